/* The virtual files programs size themselves by, as lxcfs serves them: /proc/meminfo,
   /proc/cpuinfo, /proc/stat, /proc/uptime, /proc/loadavg, /sys/devices/system/cpu/online and
   /possible, rendered from the host's files and the container's limits (memory limit, CPU count
   from quota/period and cpuset), so a container capped at 512 MiB and 1 CPU sees exactly that.

   They are regular files in the container's state directory, bind-mounted read-only over the
   real ones by the init; the supervisor rewrites them in place every second.  Path calls never
   make a round trip to the supervisor (DESIGN.md: path calls are too frequent).  */
#ifndef AGENTRT_VFILES_H
#define AGENTRT_VFILES_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "agentrt/error.h"
#include "spec.h"

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
  unsigned ncpus;       /* CPUs the container may use: >= 1, <= the host's online CPUs */
  int cpu_ids[1024];    /* the host CPUs it is shown, ncpus of them, ascending */
  struct timespec boot; /* CLOCK_BOOTTIME when the container was created: its uptime's zero */
};

/* The path inside the container (absolute) and the file name in the state directory; NULL for
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

/* Rewrite the files that change with time (meminfo, stat, uptime, loadavg) in place: one
   pwrite of the whole text at offset 0, then ftruncate, so the bind mounts keep their inode.  */
int vfiles_refresh (int dirfd, const struct vfiles_limits *l, ar_error_t *err);

#endif
