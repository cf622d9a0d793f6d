/* Which namespaces a container gets (new, joined by path, or the runtime's own), the uid/gid maps
   of a new user namespace, the UTS names and namespaced sysctls.  The plan is made in the runtime
   before clone, so that a bad path fails before any process exists; the child only calls setns
   and unshare.  */
#ifndef AGENTRT_NAMESPACES_H
#define AGENTRT_NAMESPACES_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

struct ns_plan
{
  bool new_ns[SPEC_NS_N]; /* create this namespace */
  int join_fd[SPEC_NS_N]; /* join this one (an open /proc/PID/ns/X or bind-mounted file), or -1 */
  int clone_flags;        /* what clone() itself creates: user and pid when new */
  int unshare_flags;      /* what the child unshares after joining: mount, net, ipc, uts, cgroup */
  bool fork_init;         /* the init must be forked once more (new time ns, or a new pid ns
                             under a joined user ns) */
  bool late_userns;       /* a new user ns, made by the child with unshare after joining the
                             others (runc's nsexec order: joining needs the host's capabilities)
                             and as its owner (userns_owner) */
  bool userns_with_mnt;   /* the new mount namespace is unshared with the user namespace, so
                             that it is there when the runtime writes the maps (sources.h) */
  uid_t userns_owner;     /* the host ids that own a new user namespace (state/owners.h) */
  gid_t userns_group;
};

/* Validate linux.namespaces and the id maps, and open every `path`.  */
int namespaces_plan (const struct spec *s, struct ns_plan *p, ar_error_t *err);
void namespaces_plan_release (struct ns_plan *p);

/* Runtime side: write the maps of the child's new user namespace.  */
int namespaces_write_id_maps (pid_t pid, const struct spec_linux *l, ar_error_t *err);
/* Child side, in order: join by path (user first); with late_userns, unshare the user
   namespace as its owner (the caller then has its maps written and becomes its root); then
   unshare the rest.  */
int namespaces_join (const struct ns_plan *p, ar_error_t *err);
int namespaces_unshare_user (const struct ns_plan *p, ar_error_t *err);
int namespaces_unshare (const struct ns_plan *p, ar_error_t *err);
/* Child side, as root of a new user namespace with an unprivileged owner: its own limits on
   inotify instances and fanotify groups become POLICY_FSNOTIFY_MAX, on inotify watches and
   fanotify marks POLICY_FSNOTIFY_WATCHES_MAX (the kernel counts them at each level up to the
   owner; a workload without CAP_SYS_RESOURCE in the namespace cannot raise them, one with it
   only up to the owner's, which is the container's own).  */
int namespaces_cap_fsnotify (const struct ns_plan *p, ar_error_t *err);
/* Child side, in a new network namespace: bring `lo` up.  */
int namespaces_loopback_up (const struct ns_plan *p, ar_error_t *err);
/* Child side: a new time namespace's offsets (before the fork that enters it).  */
int namespaces_set_time_offsets (const struct spec_linux *l, ar_error_t *err);
/* hostname and domainname; an error if set without a UTS namespace of the container's own.  */
int namespaces_set_uts (const struct spec *s, const struct ns_plan *p, ar_error_t *err);
/* linux.sysctl: only keys that belong to a namespace the container has of its own.  */
int namespaces_apply_sysctl (const struct spec *s, const struct ns_plan *p, ar_error_t *err);

#endif
