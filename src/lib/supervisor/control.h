/* The supervisor's control socket, ROOT/ID/supervisor.sock (SOCK_SEQPACKET, mode 0600): exec
   hands over the notify fd of each new process on it.  One message: struct control_attach with
   the fd (SCM_RIGHTS), or without one on the ptrace platform (then the supervisor attaches to
   the pid); one byte back: 0, or the errno of the failure.  */
#ifndef AGENTRT_SV_CONTROL_H
#define AGENTRT_SV_CONTROL_H

#include <stdint.h>
#include <sys/types.h>

#include "agentrt/error.h"

#define CONTROL_MAGIC 0x61727476u /* "artv" */

struct control_attach
{
  uint32_t magic;
  int32_t pid;    /* host pid of the process the fd belongs to */
  uint64_t start; /* without an fd, its start time (state_proc_start_time); an older agentrt
                     sends none */
};
#define CONTROL_ATTACH_V1_SIZE 8 /* magic and pid only */

/* One attach request taken.  */
struct control_request
{
  int fd;                   /* its notify fd; -1: none came, the process is to be traced */
  pid_t pid;                /* the process */
  unsigned long long start; /* its start time; 0: not sent */
  int pidfd;                /* with an fd, the process (-1 if it has gone); else -1 */
  int conn;                 /* to answer on once it is served (control_answer closes it) */
};

/* Bind and listen in the state directory.  */
int control_listen (int dirfd, ar_error_t *err);
/* Take one attach request.  */
int control_accept (int ctl, struct control_request *r, ar_error_t *err);
void control_answer (int conn, int e);
/* The client: connect, send (notify_fd -1: none, trace the process), wait for the answer.  */
int control_send_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err);

#endif
