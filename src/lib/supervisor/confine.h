/* The supervisor's own confinement, once it is set up: only the capabilities it uses, no new
   privileges, and a seccomp filter of its own, so that a bug in it cannot be turned against the
   host.  The worker keeps CAP_SYS_PTRACE (process_vm_readv/writev of the container's
   processes, whatever their uid and user namespace) and CAP_KILL (failing closed: killing the
   container); the watchdog keeps CAP_KILL.  */
#ifndef AGENTRT_SV_CONFINE_H
#define AGENTRT_SV_CONFINE_H

#include <stdbool.h>

#include "agentrt/error.h"

int confine_supervisor (bool worker, ar_error_t *err);

#endif
