/* Passing one fd over an AF_UNIX socket with SCM_RIGHTS: the console socket, the init's sync
   socket, the supervisor's control socket and the seccomp listener all use these two.  */
#ifndef AGENTRT_FDPASS_H
#define AGENTRT_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

#include "agentrt/error.h"

/* Send `data` and `fd` in one message; `what` names it in errors ("the pty master").  */
int ar_send_fd (int sock, int fd, const void *data, size_t len, const char *what, ar_error_t *err);

/* Receive one message into buf (at most len bytes; EINTR retried); *fd is the fd that came
   with it (O_CLOEXEC) or -1.  Returns the bytes read, 0 at EOF, -1 with errno on error.  */
ssize_t ar_recv_fd (int sock, void *buf, size_t len, int *fd);

#endif
