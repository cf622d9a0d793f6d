/* The supervisor worker (worker.c): the process the watchdog forks to serve the container's
   notify fds, or to trace it on the ptrace platform.  */
#ifndef AGENTRT_SV_WORKER_H
#define AGENTRT_SV_WORKER_H

#include "supervisor/supervisor.h"

/* In the forked process.  Never returns.  */
void worker_main (const struct supervisor_cfg *c, int ready_fd, int init_pidfd)
    __attribute__ ((noreturn));

#endif
