/* Terminals: the pty a container gets when process.terminal is set.  The init (or an exec'd
   process) opens the master from its own /dev/ptmx, so the pty belongs to the container's devpts
   instance; the master goes to the runtime (runtime/console.h).  */
#ifndef AGENTRT_TERMINAL_H
#define AGENTRT_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

/* In the container, after pivot_root: a new pty whose slave becomes the controlling terminal
   and stdio of this process (and /dev/console when `console`); returns the master.  */
int terminal_setup_in_container (const struct spec_process *p, bool console, ar_error_t *err);
#endif
