/* Cgroups of a container: the layout of this machine (v1, hybrid or v2, read from mountinfo at
   run time), linux.cgroupsPath as runc reads it, the directories, the limits of
   linux.resources, and the operations built on them (enter, signal all, freeze, list, remove).

   Layouts.  v1: one hierarchy per controller (or group of them).  Hybrid (this machine): v1
   controllers plus a cgroup2 mount, /sys/fs/cgroup/unified, which may hold controllers of its
   own (hugetlb here); the container gets a directory there too.  v2: one unified hierarchy at
   /sys/fs/cgroup.

   Paths.  An absolute cgroupsPath is taken from each hierarchy's root, a relative one from the
   runtime's own cgroup in it (runc's rule).  Without one, the container goes to agentrt/ID
   under the runtime's own cgroup, so that whatever limits the caller lives under still hold.
   The resolved directories are stored in state.json: every later command uses exactly them.  */
#ifndef AGENTRT_CGROUP_H
#define AGENTRT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

enum cgroup_layout
{
  CGROUP_V1,
  CGROUP_HYBRID,
  CGROUP_V2,
};

struct cgroup
{
  enum cgroup_layout layout;
  char **dirs; /* absolute directories, one per hierarchy; NULL-terminated */
  size_t n;
  char *unified; /* the cgroup2 directory among dirs (v2, hybrid), or NULL */
  char *memory, *freezer, *cpu, *pids, *cpuset; /* the v1 directories of these, or NULL */
};

void cgroup_release (struct cgroup *cg);

/* Resolve the container's directories (nothing is created).  `systemd`: --systemd-cgroup.  */
int cgroup_resolve (const struct spec *s, const char *id, bool systemd, struct cgroup *cg,
                    ar_error_t *err);
/* From the directories stored in state.json.  */
int cgroup_from_dirs (char *const *dirs, struct cgroup *cg, ar_error_t *err);

/* None of the directories exists yet (create checks before it records them in the container's
   journal, so that a delete of a create killed then never removes another container's).  */
int cgroup_check_free (const struct cgroup *cg, ar_error_t *err);
/* Create the directories (an existing one is an error: another container's) and apply
   linux.resources.  On failure what was created is removed.  */
int cgroup_create (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err);
/* The caller's own cgroups, to go back to after cgroup_run_inside moved it (0 on success).  */
int cgroup_self_save (struct cgroup *saved, ar_error_t *err);
/* Run fn with the caller in `cg` and back afterwards, so that what it clones is born there (the
   init, an exec'd process) while the caller itself is not left inside.  The calling thread
   moves itself into each v1 hierarchy (no global lock: see enter_v1); a cgroup2 directory,
   which a thread cannot enter without its whole process (and that costs an RCU grace period),
   the child enters as it is born: fn gets an fd of it for clone3's CLONE_INTO_CGROUP (-1:
   none), and must clone with it (process.h: cgroup_fd).  A failure to move back is logged:
   fn's result is the one that counts.  */
int cgroup_run_inside (const struct cgroup *cg,
                       int (*fn) (void *data, int into_fd, ar_error_t *err), void *data,
                       ar_error_t *err);

/* Processes in the container's cgroup (the pids controller's, or the unified one).  */
int cgroup_pids (const struct cgroup *cg, pid_t **pids, size_t *n, ar_error_t *err);
/* Signal every process; with SIGKILL the cgroup is frozen first (v1) or cgroup.kill used
   (v2), so that nothing forks away in between.  A directory that has gone holds nothing: the
   processes of those that are left are signalled.  */
int cgroup_signal_all (const struct cgroup *cg, int sig, ar_error_t *err);
int cgroup_freeze (const struct cgroup *cg, bool freeze, ar_error_t *err);
/* Remove every directory (processes must be gone; retried briefly while they are reaped).  */
int cgroup_destroy (const struct cgroup *cg, ar_error_t *err);

/* The devices every container may use, and linux.devices: on v1 allowed after the rules of
   linux.resources.devices (which cgroup_apply wrote); on v2 all three lists become the
   cgroup's eBPF device program, which replaces any it had.  */
int cgroup_allow_devices (const struct cgroup *cg, const struct spec_resources *r,
                          const struct spec_device *devs, size_t n, ar_error_t *err);

/* Apply linux.resources to existing directories (update).  */
int cgroup_apply (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err);

/* runc's stats object (the "data" of a stats event), as JSON text.  */
char *cgroup_stats_json (const struct cgroup *cg);
/* How many processes the OOM killer has killed in the container so far.  */
uint64_t cgroup_oom_kills (const struct cgroup *cg);

const char *cgroup_layout_name (enum cgroup_layout l);

#endif
