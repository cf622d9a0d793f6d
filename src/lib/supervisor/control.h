/* The supervisor's control socket, ROOT/ID/supervisor.sock (SOCK_SEQPACKET, mode 0600, so root's
   alone): one request a connection.
     attach   exec hands over the notify fd of each new process: struct control_attach with the
              fd (SCM_RIGHTS), or without one on the ptrace platform (then the supervisor
              attaches to the pid); one byte back: 0, or the errno of the failure
     update   `agentrt update --net-allow… --timeout`: struct control_update and its text; back
              one byte, 0 or an errno, and what went wrong as text  */
#ifndef AGENTRT_SV_CONTROL_H
#define AGENTRT_SV_CONTROL_H

#include <stdbool.h>
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

#define CONTROL_UPDATE_MAGIC 0x61727475u /* "artu" */
/* An update's text (an allowlist), at most: 1024 entries of a usual length.  */
#define CONTROL_TEXT_MAX (64 * 1024)

enum control_op
{
  CONTROL_NET_SET = 1,      /* the list replaces the allowlist */
  CONTROL_NET_ADD,          /* its entries are added */
  CONTROL_NET_REMOVE,       /* its entries are removed */
  CONTROL_TIMEOUT,          /* the deadline: `value` ms after create */
  CONTROL_TIMEOUT_FROM_NOW, /* the deadline: `value` ms from now */
};

struct control_update
{
  uint32_t magic;
  uint32_t op;   /* enum control_op */
  int64_t value; /* CONTROL_TIMEOUT*: ms */
  /* then the text, not NUL-terminated, to the end of the message */
};

/* One request taken.  */
struct control_request
{
  bool update; /* an update (op, value, text); else an attach */
  uint32_t op; /* enum control_op */
  int64_t value;
  char *text;               /* malloc'd, NUL-terminated; "" when none */
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
/* An update's answer: the errno (0: done) and, when not 0, the text saying why.  */
void control_answer_text (int conn, int e, const char *text);
/* The client: send an update, wait for the answer (the supervisor's text is the error).  */
int control_send_update (int dirfd, const char *id, enum control_op op, int64_t value,
                         const char *text, ar_error_t *err);
/* The client: connect, send (notify_fd -1: none, trace the process), wait for the answer.  */
int control_send_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err);

#endif
