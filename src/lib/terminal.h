/* Terminals: the pty a container gets when process.terminal is set.  The init (or an exec'd
   process) opens the master from its own /dev/ptmx, so the pty belongs to the container's devpts
   instance; the master goes to the runtime, which sends it to --console-socket as runc does, or
   proxies it to its own stdio for a foreground `run` or `exec`.  */
#ifndef AGENTRT_TERMINAL_H
#define AGENTRT_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec.h"

/* In the container, after pivot_root: a new pty whose slave becomes the controlling terminal
   and stdio of this process (and /dev/console when `console`); returns the master.  */
int terminal_setup_in_container (const struct spec_process *p, bool console, ar_error_t *err);
/* Send the master to the AF_UNIX socket at `path` with SCM_RIGHTS.  */
int terminal_send_to_socket (const char *path, int master, ar_error_t *err);
/* Foreground: copy stdin to the master and the master to stdout, keep the window size, forward
   other signals, until `pid` exits; returns its status.  */
int terminal_proxy_wait (int master, int sfd, pid_t pid, ar_error_t *err);

#endif
