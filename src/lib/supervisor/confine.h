/* The supervisor's own confinement, once it is set up: only the capabilities it uses, no new
   privileges, and a seccomp filter of its own, so that a bug in it cannot be turned against the
   host.  The worker keeps CAP_SYS_PTRACE (process_vm_readv/writev of the container's
   processes, whatever their uid and user namespace) and CAP_KILL (failing closed: killing the
   container); the watchdog keeps CAP_KILL.  */
#ifndef AGENTRT_SV_CONFINE_H
#define AGENTRT_SV_CONFINE_H

#include <stdbool.h>

#include "agentrt/error.h"

enum confine_role
{
  CONFINE_WATCHDOG, /* CAP_KILL */
  CONFINE_WORKER,   /* + CAP_SYS_PTRACE */
  CONFINE_BROKER,   /* a worker with an egress allowlist: + CAP_SETUID, CAP_SETGID and
                       CAP_SYS_CHROOT, unshare(CLONE_FS) and chroot, for the AF_UNIX connects
                       it makes as the caller (handlers/egress.c) */
};

int confine_supervisor (enum confine_role role, ar_error_t *err);

#endif
