/* A compiled seccomp filter as the kernel takes it, and its installation.  Filters are built with
   libseccomp in the runtime (oci.c for linux.seccomp, policy/filter.c for agentrt's own policy)
   and exported to plain BPF before the container's processes fork, so that the init and exec'd
   processes only have to make one seccomp(2) call each, as late as possible.  */
#ifndef AGENTRT_SECCOMP_BPF_H
#define AGENTRT_SECCOMP_BPF_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>

#include "agentrt/error.h"

struct seccomp_prog
{
  struct sock_filter *insns; /* owned; NULL when empty */
  unsigned short len;
  unsigned int flags; /* SECCOMP_FILTER_FLAG_* to install it with (LOG, SPEC_ALLOW, TSYNC…) */
  bool notify;        /* some action is SCMP_ACT_NOTIFY: install with NEW_LISTENER */
  bool trace;         /* some action is SECCOMP_RET_TRACE: a tracer must be attached first */
};

/* Export a libseccomp filter to BPF (seccomp_export_bpf through a memfd).  `what` names the filter
   in errors ("linux.seccomp", "agentrt policy").  */
int seccomp_prog_from_ctx (scmp_filter_ctx ctx, const char *what, struct seccomp_prog *out,
                           ar_error_t *err);

/* Install with seccomp(SECCOMP_SET_MODE_FILTER); with p->notify, *listener is the new notify fd
   (O_CLOEXEC), else -1.  Needs no_new_privs or CAP_SYS_ADMIN.  */
int seccomp_prog_install (const struct seccomp_prog *p, int *listener, ar_error_t *err);

/* The same filter for the ptrace platform: every SECCOMP_RET_USER_NOTIF becomes
   SECCOMP_RET_TRACE with SECCOMP_PROG_TRACE_TAG in its data, so that the calls a supervisor
   answers stop the caller for its tracer instead, which tells them by the tag from the stops
   of another filter's SCMP_ACT_TRACE; nothing else changes.  The number of returns rewritten
   (0: the filter had none).  */
#define SECCOMP_PROG_TRACE_TAG 0x6172u /* "ar" */
unsigned seccomp_prog_notify_to_trace (struct seccomp_prog *p);

void seccomp_prog_release (struct seccomp_prog *p);

#endif
