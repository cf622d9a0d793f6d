/* The supervisor worker (worker.c): the process the watchdog forks to serve the container's
   notify fds, or to trace it on the ptrace platform.  */
#ifndef AGENTRT_SV_WORKER_H
#define AGENTRT_SV_WORKER_H

#include <stdint.h>

#include "supervisor/supervisor.h"

/* The worker's end of its channel to the watchdog, which keeps the deadline: a struct
   worker_deadline each way (the answer's `ms` is the errno, 0 when done).  */
struct worker_deadline
{
  int64_t ms;
  int32_t from_now; /* ms from now; else from the container's creation */
};

/* In the forked process.  `deadline_fd`: the channel above.  Never returns.  */
void worker_main (const struct supervisor_cfg *c, int ready_fd, int init_pidfd, int deadline_fd)
    __attribute__ ((noreturn));

#endif
