/* The pty master of a container's terminal, in the runtime: sent to --console-socket, or proxied
   by a foreground `run` or `exec`.  */
#ifndef AGENTRT_CONSOLE_H
#define AGENTRT_CONSOLE_H

#include <sys/types.h>

#include "agentrt/error.h"

/* Send the master to the AF_UNIX socket at `path` with SCM_RIGHTS.  */
int console_send_to_socket (const char *path, int master, ar_error_t *err);
/* Foreground: copy stdin to the master and the master to stdout, keep the window size, forward
   other signals, until `pid` exits; returns its status.  */
int console_proxy_wait (int master, int sfd, pid_t pid, ar_error_t *err);

#endif
