/* The virtual files programs size themselves by, as lxcfs serves them: /proc/meminfo,
   /proc/cpuinfo, /proc/stat, /proc/uptime, /proc/loadavg, /sys/devices/system/cpu/online and
   /possible, rendered from the host's files and the container's limits (memory limit, CPU count
   from quota/period and cpuset), so a container capped at 512 MiB and 1 CPU sees exactly that.

   They are regular files in a tmpfs of their own that is mounted nowhere (or, on a kernel that
   will not clone from such a mount, in the container's state directory: lifecycle.c
   make_vfiles), bind-mounted read-only over the real ones by the init; the supervisor rewrites
   them in place every second.  Path calls never
   make a round trip to the supervisor (DESIGN.md: path calls are too frequent).

   The limits are config.json's at create; then, on every refresh, the supervisor reads them
   again from the container's cgroup (vfiles_live), as lxcfs does, so that `update` (docker
   update, CRI UpdateContainerResources, podman update) shows inside within a second.  */
#ifndef AGENTRT_VFILES_H
#define AGENTRT_VFILES_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "agentrt/error.h"
#include "spec/spec.h"

enum vfile
{
  VF_MEMINFO,
  VF_CPUINFO,
  VF_STAT,
  VF_UPTIME,
  VF_LOADAVG,
  VF_CPU_ONLINE,
  VF_CPU_POSSIBLE,
  VF__N,
};

struct vfiles_limits
{
  uint64_t mem_limit;   /* bytes; 0: none (the host's figures) */
  uint64_t mem_usage;   /* bytes the cgroup charges now (memory.current); 0: not known */
  unsigned ncpus;       /* CPUs the container may use: >= 1, <= the host's online CPUs */
  int cpu_ids[1024];    /* the host CPUs it is shown, ncpus of them, ascending */
  struct timespec boot; /* CLOCK_BOOTTIME when the container was created: its uptime's zero */
  /* What ncpus and cpu_ids are cut from, kept to derive them again when one changes.  */
  cpu_set_t cpus;      /* the CPUs it may run on (cpuset), before the quota's cut */
  uint64_t quota_cpus; /* ceil(quota/period); UINT64_MAX: no quota */
};

/* The path inside the container (absolute) and the file name in their directory; NULL for
   a value outside the enum.  */
const char *vfile_target (enum vfile f);
const char *vfile_name (enum vfile f);
/* The host file a virtual file is rendered from ("/proc/meminfo"), or NULL when it is made from
   the limits and the clock alone (uptime, cpu online and possible).  */
const char *vfile_host_path (enum vfile f);

/* Parse a cpuset list ("0-3,5") strictly into *set: decimal CPU numbers below CPU_SETSIZE and
   ascending ranges, comma-separated, no blanks.  Errors name linux.resources.cpu.cpus.  */
int vfiles_parse_cpus (const char *list, cpu_set_t *set, ar_error_t *err);

/* Limits from config.json: memory.limit (-1, 0 or absent: none); CPUs from cpu.cpus (a cpuset
   list) intersected with this process's affinity, and at most ceil(quota/period); boot = now.  */
int vfiles_limits_from_spec (const struct spec *s, struct vfiles_limits *l, ar_error_t *err);

/* Set mem_limit (0: none), cpus and quota_cpus (UINT64_MAX: none), and the CPUs shown from
   the last two: the lowest min(|cpus|, quota_cpus) of cpus, at least one (CPU 0 if cpus is
   empty).  boot is left as it is.  */
void vfiles_limits_set (struct vfiles_limits *l, uint64_t mem_limit, const cpu_set_t *cpus,
                        uint64_t quota_cpus);

/* Does the quota show fewer CPUs than the cpuset gives (sched_getaffinity must then be cut,
   handlers/affinity.c)?  */
bool vfiles_quota_cuts (const struct vfiles_limits *l);
/* What sched_getaffinity shows of a task whose kernel mask is `real`: real within the cpuset
   (real itself if they do not meet), cut to the lowest quota_cpus of those, at least one.  */
void vfiles_affinity (const struct vfiles_limits *l, const cpu_set_t *real, cpu_set_t *out);

/* The cgroup files the live limits are read from, each found in whichever of the container's
   directories has it (v2 names first; a v1 hierarchy has none of them).  */
enum vfiles_cg
{
  VCG_MEMORY,     /* memory.max (v2), memory.limit_in_bytes (v1): "max" or bytes */
  VCG_CPU_MAX,    /* cpu.max (v2): "max PERIOD" or "QUOTA PERIOD" */
  VCG_CFS_QUOTA,  /* cpu.cfs_quota_us (v1): -1 or µs */
  VCG_CFS_PERIOD, /* cpu.cfs_period_us (v1) */
  VCG_CPUSET,     /* cpuset.cpus.effective (v2), cpuset.effective_cpus or cpuset.cpus (v1) */
  VCG_MEM_USAGE,  /* memory.current (v2), memory.usage_in_bytes (v1): bytes */
  VCG__N,
};

/* The limits from the texts of those files, as read (a trailing newline is allowed); NULL
   for a file the cgroup does not have: its figure is then base's (config.json's).  A memory
   limit of 2^62 bytes or more is none (v1 writes "unlimited" as LONG_MAX rounded to a page),
   an empty cpuset is none.  A usage that does not parse is not known (0).  *l gets base's boot.  -1
   with EINVAL (and *l untouched) when a text does not parse.  */
int vfiles_limits_from_cgroup (const struct vfiles_limits *base, const char *const text[VCG__N],
                               struct vfiles_limits *l, ar_error_t *err);

/* Do a and b show the same memory and CPUs?  */
bool vfiles_limits_same (const struct vfiles_limits *a, const struct vfiles_limits *b);

/* The limits as the supervisor's threads share them: its main thread re-reads the cgroup
   every second (vfiles_live_tick) and replaces `now` when it changed; handler threads
   (sysinfo, sched_getaffinity) copy `now` under the lock.  The main thread, the only writer,
   reads `now` without it.  */
struct vfiles_live
{
  pthread_rwlock_t lock;
  struct vfiles_limits now;  /* what the container is shown */
  struct vfiles_limits base; /* config.json's, for what its cgroup does not say */
  int fd[VCG__N];            /* the cgroup's files, open for pread; -1: not there */
};

/* The container's directories whose files say its limits: memory.max or
   memory.limit_in_bytes, cpu.max or cpu.cfs_quota_us/cpu.cfs_period_us, the cpuset's CPUs (on
   cgroup v2, the one directory thrice).  NULL: none.  */
struct vfiles_cgroup
{
  const char *memory, *cpu, *cpuset;
};

/* now = base = *limits; the files are opened from `cg` (NULL: no cgroup, the limits stay
   config.json's).  Done before the supervisor confines itself.  */
void vfiles_live_init (struct vfiles_live *v, const struct vfiles_limits *limits,
                       const struct vfiles_cgroup *cg);
/* The once-a-second refresh: read the cgroup's files, and when the limits they say differ from
   `now`, replace it and rewrite every virtual file; otherwise refresh the ones that change
   with time (vfiles_refresh).  A file that cannot be read or parsed this time (the cgroup is
   being removed) changes nothing.  */
int vfiles_live_tick (struct vfiles_live *v, int dirfd, ar_error_t *err);
/* A copy of `now`, from any thread.  */
void vfiles_live_get (struct vfiles_live *v, struct vfiles_limits *l);

/* Render one file from the host's current figures: a malloc'd text in *out.  */
int vfile_render (enum vfile f, const struct vfiles_limits *l, char **out, ar_error_t *err);
/* The same from `host`, the text of vfile_host_path (f) (ignored when that is NULL), so tests
   can feed fixtures; *len (if not NULL) gets the length of *out.  */
int vfile_render_text (enum vfile f, const struct vfiles_limits *l, const char *host, char **out,
                       size_t *len, ar_error_t *err);

/* Create `dir` (0755; an existing one is reused) and write every file into it (0644: the
   container sees them only through read-only bind mounts, and the owner must be able to
   reopen them for writing without CAP_DAC_OVERRIDE when the supervisor is rootless).  */
int vfiles_write_all (const char *dir, const struct vfiles_limits *l, ar_error_t *err);
/* The same into the directory `dirfd` (which exists).  */
int vfiles_write_at (int dirfd, const struct vfiles_limits *l, ar_error_t *err);

/* Rewrite the files that change with time (meminfo, stat, uptime, loadavg) in place: one
   pwrite of the whole text at offset 0, then ftruncate, so the bind mounts keep their inode.  */
int vfiles_refresh (int dirfd, const struct vfiles_limits *l, ar_error_t *err);
/* Rewrite all of them in place (the limits changed: cpuinfo and cpu online too).  */
int vfiles_rewrite_all (int dirfd, const struct vfiles_limits *l, ar_error_t *err);

#endif
