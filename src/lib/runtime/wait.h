/* A foreground `run` or `exec` waiting for its process: signals forwarded, children reaped.  */
#ifndef AGENTRT_WAIT_H
#define AGENTRT_WAIT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"

/* Block the signals run and exec forward, and SIGCHLD; returns a signalfd for them.  */
int wait_block_signals (sigset_t *set, ar_error_t *err);
/* Forward signals to `pid` and reap until it exits (the caller is its parent or subreaper);
   returns its status, 128+N for signal N.  */
int wait_forwarding (int sfd, pid_t pid, ar_error_t *err);

/* Reap every exited child (we are a parent or subreaper); true once `pid` is among them, with
   its status in *status (128+N for signal N).  */
bool wait_reap (pid_t pid, int *status);

#endif
