/* The supervisor's own confinement, once it is set up: only the capabilities it uses, no new
   privileges, and a seccomp filter of its own, so that a bug in it cannot be turned against the
   host.  The worker keeps CAP_SYS_PTRACE (process_vm_readv/writev of the container's
   processes, whatever their uid and user namespace) and CAP_KILL (failing closed: killing the
   container); the watchdog keeps CAP_KILL.  Only the ptrace platform's worker may call ptrace,
   and the watchdog to end the stops of the init and its threads it traces (PTRACE_CONT,
   PTRACE_LISTEN, PTRACE_GETEVENTMSG).  */
#ifndef AGENTRT_SV_CONFINE_H
#define AGENTRT_SV_CONFINE_H

#include <linux/audit.h>
#include <stdbool.h>

#include "agentrt/error.h"

/* The AUDIT_ARCH_* agentrt is built for: the one architecture the policy's filter and the
   supervisor's own let through, and the one the worker's syscall table speaks.  */
#if defined(__x86_64__)
#define SV_NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SV_NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "agentrt's policy has tables for x86_64 and aarch64 only"
#endif

enum confine_role
{
  CONFINE_WATCHDOG, /* CAP_KILL, PTRACE_CONT, PTRACE_LISTEN and PTRACE_GETEVENTMSG */
  CONFINE_WORKER,   /* + CAP_SYS_PTRACE */
  CONFINE_BROKER,   /* a worker with an egress allowlist: + CAP_SETUID, CAP_SETGID and
                       CAP_SYS_CHROOT, unshare(CLONE_FS) and chroot, for the AF_UNIX connects
                       it makes as the caller (handlers/egress.c) */
  CONFINE_TRACER,   /* a worker on the ptrace platform: + ptrace(2) (tracer.h) */
};

int confine_supervisor (enum confine_role role, ar_error_t *err);

#endif
