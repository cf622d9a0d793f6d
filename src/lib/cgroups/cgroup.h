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
   The resolved directories are stored in state.json: every later command uses exactly them.

   Drivers.  cgroupfs (the default): agentrt makes the directories.  systemd (--systemd-cgroup,
   cgroup_systemd.c): linux.cgroupsPath is `slice:prefix:name` and systemd makes the container's
   scope unit, prefix-name.scope in that slice, over D-Bus, with the resources as the unit's
   properties; agentrt writes them to the files again, and makes the v1 directories systemd
   does not (freezer, cpuset, …).  The unit's name is stored in state.json beside the
   directories, and delete stops it.  */
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

struct sdbus;
struct cgroup
{
  enum cgroup_layout layout;
  char **dirs; /* absolute directories, one per hierarchy; NULL-terminated */
  size_t n;
  char *unified; /* the cgroup2 directory among dirs (v2, hybrid), or NULL */
  /* the v1 directories of these, or NULL */
  char *memory, *freezer, *cpu, *cpuacct, *pids, *cpuset;
  /* The systemd driver: the container's unit ("agentrt-ID.scope") and its slice, else NULL.  */
  char *unit, *slice;
  /* Per dir (cgroup_resolve), whether systemd puts the container there: the cgroup2 one and
     the v1 hierarchies of the controllers it manages (cpu, cpuacct, blkio, memory, devices,
     pids); agentrt makes the others.  NULL from cgroup_from_dirs.  */
  bool *by_systemd;
  struct sdbus *bus;           /* systemd, once connected */
  struct systemd_props *extra; /* the org.systemd.property.* annotations, or NULL */
};

/* v2: the child directory of the container's cgroup that holds its supervisor (see
   cgroup_run_accounted).  */
#define CGROUP_SUPERVISOR_DIR "agentrt-supervisor"

void cgroup_release (struct cgroup *cg);

/* Resolve the container's directories (nothing is created).  `systemd`: --systemd-cgroup (the
   unit's name, and the directories systemd gives it).  */
int cgroup_resolve (const struct spec *s, const char *id, bool systemd, struct cgroup *cg,
                    ar_error_t *err);
/* From the directories stored in state.json, and the systemd unit (NULL: cgroupfs).  */
int cgroup_from_dirs (char *const *dirs, const char *unit, struct cgroup *cg, ar_error_t *err);

/* None of the directories exists yet (create checks before it records them in the container's
   journal, so that a delete of a create killed then never removes another container's).  */
int cgroup_check_free (const struct cgroup *cg, ar_error_t *err);
/* Where cgroup directory a is from b: the same, inside it, above it, or apart.  */
enum cgroup_relation
{
  CGROUP_APART,
  CGROUP_SAME,
  CGROUP_INSIDE,
  CGROUP_ABOVE,
};
enum cgroup_relation cgroup_relation (const char *a, const char *b);
/* No existing parent of the directories holds processes, but the runtime's own cgroup and
   those above it: a cgroupsPath inside a cgroup in use (another container's, made under
   another --root or by another runtime) would share its limits, stop its delete (a cgroup
   with a child cannot be removed) and be frozen and killed with it.  runc likewise refuses a
   container cgroup that already holds processes.  */
int cgroup_check_parents (const struct cgroup *cg, ar_error_t *err);
/* Create the directories (an existing one is an error: another container's) and apply
   linux.resources.  On failure what was created is removed.  systemd driver: only those
   systemd does not make, and no resources yet (cgroup_systemd_place).  */
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

/* The same for the container's supervisor worker, which must be charged the CPU it spends for
   the container (a workload capped at 0.25 CPU made it burn 0.4-0.75 CPU outside every cap) but
   never be frozen with it, counted in its pids or picked by its OOM killer.  v1 and hybrid:
   the calling thread enters only the v1 hierarchies of cpu and cpuacct that hold none of
   freezer, pids, memory and devices (the freezer would stop it on pause; pids and memory would
   let the workload starve it of threads and memory, and make the container's OOM killer free
   to kill it; its memory is a fixed few MiB, not proportional to the workload as its CPU is),
   and fn gets -1.  v2, one hierarchy where a child inherits everything: the child directory
   CGROUP_SUPERVISOR_DIR is made (the container's cgroup enables no controller for its
   children, so the "no internal processes" rule allows it and the child is governed by the
   container's cpu.max), and fn gets an fd of it for CLONE_INTO_CGROUP; the worker then also
   counts in the container's memory.current and pids.current, and must leave it before a
   freeze (cgroup_supervisor_park) and before a cgroup.kill it is not meant to die of.  The
   watchdog, which keeps the deadline, is never charged: a workload that uses all its CPU must
   not delay its own kill.  */
int cgroup_run_accounted (const struct cgroup *cg,
                          int (*fn) (void *data, int into_fd, ar_error_t *err), void *data,
                          ar_error_t *err);
/* v2: move the supervisor's worker out of the container's cgroup into the caller's own
   (park: pause must not freeze them), or back into CGROUP_SUPERVISOR_DIR (unpark, after the
   thaw).  Processes that are gone are skipped.  No-op on v1 and hybrid.  */
int cgroup_supervisor_park (const struct cgroup *cg, const pid_t *pids, size_t n, bool park,
                            ar_error_t *err);

/* Processes in the container's cgroup (the pids controller's, or the unified one).  */
int cgroup_pids (const struct cgroup *cg, pid_t **pids, size_t *n, ar_error_t *err);
/* The same in the container's cgroup and every cgroup below it but the supervisor's: each
   process the container may have, wherever in its subtree it went.  */
int cgroup_pids_all (const struct cgroup *cg, pid_t **pids, size_t *n, ar_error_t *err);
/* Signal every process; with SIGKILL the cgroup is frozen first (v1) or cgroup.kill used
   (v2), so that nothing forks away in between.  A directory that has gone holds nothing: the
   processes of those that are left are signalled.  */
int cgroup_signal_all (const struct cgroup *cg, int sig, ar_error_t *err);
int cgroup_freeze (const struct cgroup *cg, bool freeze, ar_error_t *err);
/* Remove every directory (processes must be gone; retried briefly while they are reaped).
   systemd driver: the unit is stopped first (StopUnit, ResetFailedUnit); systemd not answering
   is a warning, as it removes a scope whose processes are gone by itself.  */
int cgroup_destroy (struct cgroup *cg, ar_error_t *err);

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

/* The systemd driver (cgroup_systemd.c).  create: cgroup_resolve, cgroup_systemd_open (before
   anything is made: a machine without systemd fails here), cgroup_create (agentrt's own
   directories), cgroup_run_unplaced with an init that waits until cgroup_systemd_place has put
   it in the unit.  */

/* Connect to systemd, and read the org.systemd.property.* annotations into properties (the
   caller has checked that the operator lets config.json set them).  */
int cgroup_systemd_open (struct cgroup *cg, const struct spec_map *annotations, ar_error_t *err);
/* Run fn with the caller in the directories agentrt made (cgroup_create; v1's freezer, cpuset,
   …), so that the init is born there, as cgroup_run_inside does; fn gets -1 (systemd puts it in
   the cgroup2 one).  */
int cgroup_run_unplaced (const struct cgroup *cg,
                         int (*fn) (void *data, int into_fd, ar_error_t *err), void *data,
                         ar_error_t *err);
/* The init `pid`, waiting, into the unit: StartTransientUnit with PIDs=[pid], the resources and
   devices as properties, and the job waited for; then where systemd did not put it, it is
   moved (v1 controllers systemd leaves alone); then linux.resources and the device rules are
   written to the files as cgroupfs does, exact where systemd rounds.  */
int cgroup_systemd_place (struct cgroup *cg, pid_t pid, const char *id,
                          const struct spec_resources *r, const struct spec_device *devs,
                          size_t n_devs, ar_error_t *err);
/* update, both drivers: the files (cgroup_apply), and with `devices` (new device rules; devs:
   linux.devices) v2's device program built again (cgroup_allow_devices).  systemd driver:
   first SetUnitProperties of what `r` sets (DevicePolicy and DeviceAllow with `devices`), the
   cgroup frozen meanwhile on v1 when devices change (systemd rewrites the list from nothing)
   unless `frozen` already; v1 then gets the whole device list again too.  */
int cgroup_update (struct cgroup *cg, const struct spec_resources *r, bool devices,
                   const struct spec_device *devs, size_t n_devs, bool frozen, ar_error_t *err);

#endif
