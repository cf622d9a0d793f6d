/* The process's identity and privileges, set by the container's init (and by `exec`) after its
   mounts and pivot_root, just before execve: user, groups, capabilities, umask, no_new_privs,
   oom_score_adj and personality.  */
#ifndef AGENTRT_CREDS_H
#define AGENTRT_CREDS_H

#include "agentrt/error.h"
#include "spec/spec.h"

/* The identity switch and capabilities, in runc's order: drop the bounding set to
   process.capabilities.bounding, PR_SET_KEEPCAPS 1, setgroups (additionalGids; skipped when a
   user namespace denies setgroups and none are asked for), setresgid, setresuid,
   PR_SET_KEEPCAPS 0, capset (effective, permitted, inheritable), then the ambient set (cleared,
   then each listed one raised).  No capabilities object drops every capability, as runc does.
   Then umask (user.umask, default 0022) and, if asked, PR_SET_NO_NEW_PRIVS.
   Capabilities the kernel does not know are ignored.  An ambient capability that is not both
   permitted and inheritable is not raised (runc warns, crun ignores): the process gets less,
   never more.  Call rlimits_apply and creds_set_oom_score_adj first: both may need
   CAP_SYS_RESOURCE, which this drops.  */
int creds_apply (const struct spec_process *p, ar_error_t *err);

/* Write process.oomScoreAdj to /proc/self/oom_score_adj, if set.  Lowering it below the current
   minimum needs CAP_SYS_RESOURCE; the kernel's EACCES is reported with the value
   ("set oom_score_adj to -500").  Needs /proc.  */
int creds_set_oom_score_adj (const struct spec_process *p, ar_error_t *err);

/* linux.personality.domain (LINUX or LINUX32) via personality(2), if set.  L may be NULL.  */
int creds_set_personality (const struct spec_linux *l, ar_error_t *err);

#endif
