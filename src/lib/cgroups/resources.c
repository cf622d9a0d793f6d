/* linux.resources written into the container's cgroups, v1 and v2, with the conversions runc
   and crun make between them (cpu shares to weight, blkio weight to io weight, v1 memsw to v2
   swap).  A limit the machine cannot apply (its controller is not mounted, or the kernel has
   no such file) fails: a sandbox must never look capped when it is not.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "cgroups/cgroup_internal.h"
#include "log.h"
#include "utils.h"

int
cg_write (const char *dir, const char *file, const char *value, size_t len, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0)
    return ar_make_error (err, errno, "cgroup `%s`", path);
  if (write (fd, value, len) != (ssize_t) len)
    return ar_make_error (err, errno, "cgroup `%s`: write `%.*s`", path, (int) len, value);
  return 0;
}

static int cg_printf (const char *dir, const char *file, ar_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static int
cg_printf (const char *dir, const char *file, ar_error_t *err, const char *fmt, ...)
{
  cleanup_free char *v = NULL;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&v, fmt, ap) < 0)
    ar_oom ();
  va_end (ap);
  return cg_write (dir, file, v, strlen (v), err);
}

const char *
cg_dir_with (const struct cgroup *cg, const char *file)
{
  for (size_t i = 0; i < cg->n; i++)
    if (cg_has (cg->dirs[i], file))
      return cg->dirs[i];
  return NULL;
}

bool
cg_has (const char *dir, const char *file)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  return access (path, F_OK) == 0;
}

bool
cg_read_u64 (const char *dir, const char *file, uint64_t *v)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  cleanup_free char *text = NULL;
  char *end;

  if (ar_read_file (path, 4096, &text, NULL, NULL) < 0)
    return false;
  errno = 0;
  *v = strtoull (text, &end, 10);
  return errno == 0 && end != text;
}

static void
copy_from_parent (const char *dir, const char *file)
{
  cleanup_free char *parent = xstrdup (dir);
  cleanup_free char *text = NULL;
  cleanup_free char *mine = NULL;
  cleanup_free char *ppath = NULL;
  char *slash = strrchr (parent, '/');
  size_t len = 0;

  if (slash == NULL || slash == parent)
    return;
  *slash = '\0';
  mine = xasprintf ("%s/%s", dir, file);
  ppath = xasprintf ("%s/%s", parent, file);
  if (ar_read_file (mine, 4096, &text, &len, NULL) == 0 && len > 1)
    return; /* already set */
  free (text);
  text = NULL;
  if (ar_read_file (ppath, 4096, &text, &len, NULL) == 0)
    (void) cg_write (dir, file, text, len, NULL);
}

void
cg_cpuset_inherit (const char *dir)
{
  if (!cg_has (dir, "cpuset.cpus") || cg_has (dir, "cgroup.controllers"))
    return;
  copy_from_parent (dir, "cpuset.cpus");
  copy_from_parent (dir, "cpuset.mems");
}

/* v2: a directory's children get every controller it has (cgroup.subtree_control), so the
   container's limits can be written; a controller the kernel refuses (EBUSY, a threaded
   subtree) is left out and its limit then fails by name.  */
void
cg_v2_delegate (const char *dir)
{
  cleanup_free char *path = xasprintf ("%s/cgroup.controllers", dir);
  cleanup_free char *ctl = NULL;
  char *save = NULL;

  if (ar_read_file (path, 4096, &ctl, NULL, NULL) < 0)
    return;
  for (char *c = strtok_r (ctl, " \n", &save); c; c = strtok_r (NULL, " \n", &save))
    {
      cleanup_free char *one = xasprintf ("+%s", c);
      if (cg_write (dir, "cgroup.subtree_control", one, strlen (one), NULL) < 0)
        ar_debug ("cgroup `%s`: cannot delegate `%s` to its children", dir, c);
    }
}

int
cg_v1_freeze (const char *dir, bool freeze, ar_error_t *err)
{
  const char *want = freeze ? "FROZEN" : "THAWED";
  cleanup_free char *path = xasprintf ("%s/freezer.state", dir);

  if (cg_write (dir, "freezer.state", want, strlen (want), err) < 0)
    return -1;
  for (int i = 0; i < 500; i++)
    {
      cleanup_free char *now = NULL;
      if (ar_read_file (path, 64, &now, NULL, err) < 0)
        return -1;
      if (strncmp (now, want, strlen (want)) == 0)
        return 0;
      /* FREEZING: ask again (runc does), the kernel may need it when tasks were forking.  */
      if (freeze && i % 10 == 9)
        (void) cg_write (dir, "freezer.state", want, strlen (want), NULL);
      (void) poll (NULL, 0, 2);
    }
  return ar_make_error (err, EBUSY, "cgroup `%s`: did not become %s", dir, want);
}

/* v1.  */

static int
need (const char *dir, const char *what, ar_error_t *err)
{
  if (dir == NULL)
    return ar_make_error (
        err, ENOENT, "config.json: linux.resources.%s: its cgroup controller is not mounted", what);
  return 0;
}

/* The kernel refuses a memory.limit_in_bytes above memory.memsw.limit_in_bytes (EINVAL), so
   raising both (containerd's CRI sets swap = limit on every update) must write memsw first, and
   lowering both must write it last.  As runc does: memsw first when it is unlimited or above
   the current limit.  */
static bool
v1_swap_first (const char *d, const struct spec_memory *m)
{
  uint64_t cur;

  if (!m->limit.set || !m->swap.set)
    return false;
  if (m->swap.v == -1)
    return true;
  return cg_read_u64 (d, "memory.limit_in_bytes", &cur) && m->swap.v > 0
         && cur < (uint64_t) m->swap.v;
}

static int
v1_swap (const char *d, const struct spec_memory *m, ar_error_t *err)
{
  if (!cg_has (d, "memory.memsw.limit_in_bytes"))
    {
      if (m->swap.v != -1 && !(m->limit.set && m->swap.v == m->limit.v))
        return ar_make_error (err, ENOTSUP,
                              "config.json: linux.resources.memory.swap: this kernel does not "
                              "account swap (no memory.memsw.limit_in_bytes)");
      return 0;
    }
  return cg_printf (d, "memory.memsw.limit_in_bytes", err, "%" PRId64, m->swap.v);
}

/* DIR/FILE's one number, or "?".  */
static char *
cg_figure (const char *dir, const char *file)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  char *text = NULL;

  if (ar_read_file (path, 64, &text, NULL, NULL) < 0)
    return xstrdup ("?");
  text[strcspn (text, "\n")] = '\0';
  return text;
}

/* v1 refuses a limit below what the cgroup already uses with a bare EBUSY (an update through
   containerd or CRI can ask for one): say why, with the figures, as runc does.  */
static int
v1_memory_limit (const char *d, int64_t limit, ar_error_t *err)
{
  cleanup_free char *usage = NULL;
  cleanup_free char *peak = NULL;
  ar_error_t werr = NULL;

  if (cg_printf (d, "memory.limit_in_bytes", &werr, "%" PRId64, limit) == 0)
    return 0;
  if (werr->status != EBUSY)
    {
      *err = werr;
      return -1;
    }
  ar_error_release (&werr);
  usage = cg_figure (d, "memory.usage_in_bytes");
  peak = cg_figure (d, "memory.max_usage_in_bytes");
  return ar_make_error (err, 0,
                        "cgroup `%s`: unable to set memory limit to %" PRId64
                        " (current usage: %s, peak usage: %s)",
                        d, limit, usage, peak);
}

/* Socket buffers.  v1 charges them to a cgroup only once memory.kmem.tcp.limit_in_bytes has
   been written (the kernel then marks the cgroup tcpmem_active; a socket made before that is
   never charged, so create writes it before the init exists), and to a counter of their own,
   apart from memory.limit_in_bytes.  Without it a workload held ~240 MiB of loopback buffers
   under a 64 MiB limit.  The limit is kernelTCP when the config gives it (runc ignores it), else
   the memory limit: the container then holds at most its limit in memory plus as much in socket
   buffers, and an update of the memory limit moves both.  */
static int
v1_kernel_tcp (const char *d, const struct spec_memory *m, ar_error_t *err)
{
  int64_t v = m->kernel_tcp.set ? m->kernel_tcp.v : m->limit.v;

  if (!m->kernel_tcp.set && !m->limit.set)
    return 0;
  if (!cg_has (d, "memory.kmem.tcp.limit_in_bytes"))
    {
      if (m->kernel_tcp.set)
        return ar_make_error (err, ENOTSUP,
                              "config.json: linux.resources.memory.kernelTCP: this kernel has no "
                              "memory.kmem.tcp.limit_in_bytes");
      ar_debug ("cgroup `%s`: no memory.kmem.tcp.limit_in_bytes: socket buffers are not charged",
                d);
      return 0;
    }
  return cg_printf (d, "memory.kmem.tcp.limit_in_bytes", err, "%" PRId64, v < 0 ? -1 : v);
}

static int
v1_memory (const struct cgroup *cg, const struct spec_memory *m, ar_error_t *err)
{
  const char *d = cg->memory;
  bool swap_first;

  if (need (d, "memory", err) < 0)
    return -1;
  swap_first = v1_swap_first (d, m);
  if (swap_first && v1_swap (d, m, err) < 0)
    return -1;
  if (m->limit.set && v1_memory_limit (d, m->limit.v, err) < 0)
    return -1;
  if (m->swap.set && !swap_first && v1_swap (d, m, err) < 0)
    return -1;
  if (m->reservation.set
      && cg_printf (d, "memory.soft_limit_in_bytes", err, "%" PRId64, m->reservation.v) < 0)
    return -1;
  if (m->swappiness.set && m->swappiness.v <= 100
      && cg_printf (d, "memory.swappiness", err, "%" PRIu64, m->swappiness.v) < 0)
    return -1;
  if (m->has_disable_oom_killer && m->disable_oom_killer
      && cg_write (d, "memory.oom_control", "1", 1, err) < 0)
    return -1;
  if (m->kernel.set)
    ar_debug ("linux.resources.memory.kernel: kernel memory limits are gone from this kernel");
  return v1_kernel_tcp (d, m, err);
}

static int
v1_cpu (const struct cgroup *cg, const struct spec_cpu *c, const char *cpuset, ar_error_t *err)
{
  const char *d = cg->cpu;
  bool any = c->shares.set || c->period.set || c->quota.set || c->realtime_period.set
             || c->realtime_runtime.set || c->burst.set;

  if (any && need (d, "cpu", err) < 0)
    return -1;
  if ((c->shares.set && cg_printf (d, "cpu.shares", err, "%" PRIu64, c->shares.v) < 0)
      || (c->period.set && cg_printf (d, "cpu.cfs_period_us", err, "%" PRIu64, c->period.v) < 0)
      || (c->quota.set && cg_printf (d, "cpu.cfs_quota_us", err, "%" PRId64, c->quota.v) < 0)
      || (c->burst.set && cg_printf (d, "cpu.cfs_burst_us", err, "%" PRIu64, c->burst.v) < 0)
      || (c->realtime_period.set
          && cg_printf (d, "cpu.rt_period_us", err, "%" PRIu64, c->realtime_period.v) < 0)
      || (c->realtime_runtime.set
          && cg_printf (d, "cpu.rt_runtime_us", err, "%" PRId64, c->realtime_runtime.v) < 0))
    return -1;
  if ((c->cpus || c->mems) && need (cpuset, "cpu.cpus", err) < 0)
    return -1;
  if ((c->cpus && *c->cpus && cg_write (cpuset, "cpuset.cpus", c->cpus, strlen (c->cpus), err) < 0)
      || (c->mems && *c->mems
          && cg_write (cpuset, "cpuset.mems", c->mems, strlen (c->mems), err) < 0))
    return -1;
  return 0;
}

static int
v1_devices (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err)
{
  const char *d = cg_dir_with (cg, "devices.allow");

  if (r->n_devices == 0)
    return 0;
  if (need (d, "devices", err) < 0)
    return -1;
  for (size_t i = 0; i < r->n_devices; i++)
    {
      struct cg_dev_rule dr = cg_dev_rule_from_spec (&r->devices[i]);
      char rule[80];
      cg_dev_rule_text (&dr, rule, sizeof rule);
      if (cg_write (d, dr.allow ? "devices.allow" : "devices.deny", rule, strlen (rule), err) < 0)
        return -1;
    }
  return 0;
}

/* v1: after the config's rules (apply_v1), the devices every container gets and those of
   linux.devices, as runc allows them.  v2 has no such files: one program holds all three
   lists (devices_bpf.c).  */
int
cgroup_allow_devices (const struct cgroup *cg, const struct spec_resources *r,
                      const struct spec_device *devs, size_t n, ar_error_t *err)
{
  const char *d;

  if (cg->layout == CGROUP_V2)
    return cg_v2_devices (cg->unified, r->devices, r->n_devices, devs, n, err);
  d = cg_dir_with (cg, "devices.allow");
  if (d == NULL)
    return 0;
  for (size_t i = 0; i < cg_n_default_devices; i++)
    {
      char rule[80];
      cg_dev_rule_text (&cg_default_devices[i], rule, sizeof rule);
      if (cg_write (d, "devices.allow", rule, strlen (rule), err) < 0)
        return -1;
    }
  for (size_t i = 0; i < n; i++)
    if ((devs[i].type == 'c' || devs[i].type == 'b' || devs[i].type == 'u')
        && cg_printf (d, "devices.allow", err, "%c %" PRId64 ":%" PRId64 " rwm",
                      devs[i].type == 'b' ? 'b' : 'c', devs[i].major, devs[i].minor)
               < 0)
      return -1;
  return 0;
}

/* The weight files of this kernel's proportional I/O scheduler, as runc picks them
   (libcontainer/cgroups/fs/blkio.go): CFQ's blkio.weight and blkio.weight_device (CFQ went in
   Linux 5.0), else BFQ's blkio.bfq.weight and blkio.bfq.weight_device.  Leaf weights were
   CFQ's alone: BFQ has no file for them, so a config that sets one fails by name.  */
static int
v1_blkio_weights (const char *d, const struct spec_block_io *b, ar_error_t *err)
{
  bool cfq = cg_has (d, "blkio.weight");
  const char *wf = cfq ? "blkio.weight" : "blkio.bfq.weight";
  const char *wdf = cfq ? "blkio.weight_device" : "blkio.bfq.weight_device";
  bool leaf = b->leaf_weight.set;

  for (size_t i = 0; i < b->n_weight_device; i++)
    leaf = leaf || (b->weight_device[i].leaf_weight.set && b->weight_device[i].leaf_weight.v);
  if (!cg_has (d, wf))
    return ar_make_error (err, ENOTSUP,
                          "config.json: linux.resources.blockIO.weight: no I/O scheduler "
                          "with weights here (no blkio.weight)");
  if (leaf && !cg_has (d, "blkio.leaf_weight"))
    return ar_make_error (err, ENOTSUP,
                          "config.json: linux.resources.blockIO.leafWeight: this kernel's I/O "
                          "scheduler has no leaf weights (no blkio.leaf_weight: CFQ had them)");
  if ((b->weight.set && cg_printf (d, wf, err, "%" PRIu64, b->weight.v) < 0)
      || (b->leaf_weight.set
          && cg_printf (d, "blkio.leaf_weight", err, "%" PRIu64, b->leaf_weight.v) < 0))
    return -1;
  for (size_t i = 0; i < b->n_weight_device; i++)
    {
      const struct spec_weight_device *w = &b->weight_device[i];
      if ((w->weight.set && w->weight.v
           && cg_printf (d, wdf, err, "%" PRId64 ":%" PRId64 " %" PRIu64, w->major, w->minor,
                         w->weight.v)
                  < 0)
          || (w->leaf_weight.set && w->leaf_weight.v
              && cg_printf (d, "blkio.leaf_weight_device", err, "%" PRId64 ":%" PRId64 " %" PRIu64,
                            w->major, w->minor, w->leaf_weight.v)
                     < 0))
        return -1;
    }
  return 0;
}

static int
v1_blkio (const struct cgroup *cg, const struct spec_block_io *b, ar_error_t *err)
{
  static const char *const files[4]
      = { "blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
          "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device" };
  const char *d = cg_dir_with (cg, "blkio.throttle.read_bps_device");

  if (need (d, "blockIO", err) < 0)
    return -1;
  if ((b->weight.set || b->leaf_weight.set || b->n_weight_device)
      && v1_blkio_weights (d, b, err) < 0)
    return -1;
  for (int k = 0; k < 4; k++)
    for (size_t i = 0; i < b->n_throttle[k]; i++)
      if (cg_printf (d, files[k], err, "%" PRId64 ":%" PRId64 " %" PRIu64, b->throttle[k][i].major,
                     b->throttle[k][i].minor, b->throttle[k][i].rate)
          < 0)
        return -1;
  return 0;
}

/* v2 (and the unified directory of a hybrid machine).  */

uint64_t
cg_shares_to_weight (uint64_t shares)
{
  if (shares < 2)
    shares = 2;
  if (shares > 262144)
    shares = 262144;
  return 1 + ((shares - 2) * 9999) / 262142;
}

/* v2 charges socket buffers to memory.max with everything else, and has no file of their own:
   a kernelTCP at or above the memory limit holds already; a lower one cannot be applied.  */
static int
v2_kernel_tcp (const char *d, const struct spec_memory *m, ar_error_t *err)
{
  uint64_t cur;
  int64_t limit = m->limit.set                                              ? m->limit.v
                  : cg_read_u64 (d, "memory.max", &cur) && cur <= INT64_MAX ? (int64_t) cur
                                                                            : -1;

  if (!m->kernel_tcp.set || m->kernel_tcp.v < 0 || (limit >= 0 && limit <= m->kernel_tcp.v))
    return 0;
  return ar_make_error (err, ENOTSUP,
                        "config.json: linux.resources.memory.kernelTCP: cgroup v2 charges socket "
                        "buffers to memory.max, and has no separate limit below it");
}

static int
v2_memory (const char *d, const struct spec_memory *m, ar_error_t *err)
{
  if (m->limit.set)
    {
      if (m->limit.v < 0 ? cg_write (d, "memory.max", "max", 3, err) < 0
                         : cg_printf (d, "memory.max", err, "%" PRId64, m->limit.v) < 0)
        return -1;
    }
  if ((m->reservation.set && m->reservation.v >= 0
       && cg_printf (d, "memory.low", err, "%" PRId64, m->reservation.v) < 0)
      || v2_kernel_tcp (d, m, err) < 0)
    return -1;
  /* v1's swap is memory+swap; v2's is swap alone.  */
  if (m->swap.set && cg_has (d, "memory.swap.max"))
    {
      if (m->swap.v < 0)
        return cg_write (d, "memory.swap.max", "max", 3, err);
      if (m->limit.set && m->swap.v < m->limit.v)
        return ar_make_error (err, EINVAL,
                              "config.json: linux.resources.memory.swap: less than the limit");
      return cg_printf (d, "memory.swap.max", err, "%" PRId64,
                        m->swap.v - (m->limit.set ? m->limit.v : 0));
    }
  return 0;
}

static int
v2_cpu (const char *d, const struct spec_cpu *c, ar_error_t *err)
{
  uint64_t period = c->period.set ? c->period.v : 100000;

  if (c->shares.set
      && cg_printf (d, "cpu.weight", err, "%" PRIu64, cg_shares_to_weight (c->shares.v)) < 0)
    return -1;
  if (c->quota.set || c->period.set)
    {
      int r = c->quota.set && c->quota.v > 0
                  ? cg_printf (d, "cpu.max", err, "%" PRId64 " %" PRIu64, c->quota.v, period)
                  : cg_printf (d, "cpu.max", err, "max %" PRIu64, period);
      if (r < 0)
        return -1;
    }
  if (c->idle.set && cg_printf (d, "cpu.idle", err, "%" PRId64, c->idle.v) < 0)
    return -1;
  if ((c->cpus && *c->cpus && cg_write (d, "cpuset.cpus", c->cpus, strlen (c->cpus), err) < 0)
      || (c->mems && *c->mems && cg_write (d, "cpuset.mems", c->mems, strlen (c->mems), err) < 0))
    return -1;
  return 0;
}

static int
v2_block_io (const char *d, const struct spec_block_io *b, ar_error_t *err)
{
  static const char *const keys[4] = { "rbps", "wbps", "riops", "wiops" };
  bool leaf = b->leaf_weight.set;

  for (size_t i = 0; i < b->n_weight_device; i++)
    leaf = leaf || (b->weight_device[i].leaf_weight.set && b->weight_device[i].leaf_weight.v);
  if (leaf)
    return ar_make_error (err, ENOTSUP,
                          "config.json: linux.resources.blockIO.leafWeight: cgroup v2 has no "
                          "leaf weights");
  /* runc's conversion of blkio.weight [10, 1000] to io.weight [1, 10000].  */
  if (b->weight.set
      && cg_printf (d, "io.weight", err, "%" PRIu64, 1 + (b->weight.v - 10) * 9999 / 990) < 0)
    return -1;
  /* Per-device weights are BFQ's alone (io.bfq.weight takes "MAJ:MIN WEIGHT"); runc skips
     them without it, which would leave a limit unapplied.  */
  for (size_t i = 0; i < b->n_weight_device; i++)
    {
      const struct spec_weight_device *w = &b->weight_device[i];
      if (!w->weight.set || w->weight.v == 0)
        continue;
      if (!cg_has (d, "io.bfq.weight"))
        return ar_make_error (err, ENOTSUP,
                              "config.json: linux.resources.blockIO.weightDevice: needs the BFQ "
                              "I/O scheduler (no io.bfq.weight)");
      if (cg_printf (d, "io.bfq.weight", err, "%" PRId64 ":%" PRId64 " %" PRIu64, w->major,
                     w->minor, w->weight.v)
          < 0)
        return -1;
    }
  for (int k = 0; k < 4; k++)
    for (size_t i = 0; i < b->n_throttle[k]; i++)
      if (cg_printf (d, "io.max", err, "%" PRId64 ":%" PRId64 " %s=%" PRIu64,
                     b->throttle[k][i].major, b->throttle[k][i].minor, keys[k],
                     b->throttle[k][i].rate)
          < 0)
        return -1;
  return 0;
}

static int
hugetlb (const char *d, bool v2, const struct spec_resources *r, ar_error_t *err)
{
  for (size_t i = 0; i < r->n_hugepage_limits; i++)
    {
      cleanup_free char *file = xasprintf ("hugetlb.%s.%s", r->hugepage_limits[i].page_size,
                                           v2 ? "max" : "limit_in_bytes");
      if (cg_printf (d, file, err, "%" PRIu64, r->hugepage_limits[i].limit) < 0)
        return -1;
    }
  return 0;
}

static int
unified (const char *d, const struct spec_map *u, ar_error_t *err)
{
  for (size_t i = 0; i < u->n; i++)
    {
      const char *k = u->items[i].key;
      if (strchr (k, '/') || strcmp (k, "..") == 0 || strcmp (k, ".") == 0)
        return ar_make_error (err, EINVAL, "config.json: linux.resources.unified: bad key `%s`", k);
      if (cg_write (d, k, u->items[i].value, strlen (u->items[i].value), err) < 0)
        return -1;
    }
  return 0;
}

static int
apply_v2 (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err)
{
  const char *d = cg->unified;

  if ((r->has_memory && v2_memory (d, &r->memory, err) < 0)
      || (r->has_cpu && v2_cpu (d, &r->cpu, err) < 0)
      || (r->pids_limit.set
          && (r->pids_limit.v <= 0 ? cg_write (d, "pids.max", "max", 3, err)
                                   : cg_printf (d, "pids.max", err, "%" PRId64, r->pids_limit.v))
                 < 0)
      || (r->has_block_io && v2_block_io (d, &r->block_io, err) < 0)
      || hugetlb (d, true, r, err) < 0 || unified (d, &r->unified, err) < 0)
    return -1;
  /* linux.resources.devices: cgroup_allow_devices, with linux.devices.  */
  if (r->has_network || r->n_rdma)
    return ar_make_error (err, ENOTSUP,
                          "config.json: linux.resources.%s: not available on cgroup v2",
                          r->has_network ? "network" : "rdma");
  return 0;
}

static int
apply_v1 (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err)
{
  const char *cpuset = cg_dir_with (cg, "cpuset.cpus");
  const char *pids = cg->pids;
  /* Hybrid: what v1 does not have may be in the unified directory (hugetlb here).  */
  const char *huge = cg_dir_with (cg, "hugetlb.2MB.limit_in_bytes");
  bool huge_v2 = false;

  if (huge == NULL && cg->unified && cg_has (cg->unified, "hugetlb.2MB.max"))
    {
      huge = cg->unified;
      huge_v2 = true;
    }
  if ((r->has_memory && v1_memory (cg, &r->memory, err) < 0)
      || (r->has_cpu && v1_cpu (cg, &r->cpu, cpuset, err) < 0) || v1_devices (cg, r, err) < 0
      || (r->has_block_io && v1_blkio (cg, &r->block_io, err) < 0))
    return -1;
  if (r->pids_limit.set
      && (need (pids, "pids", err) < 0
          || (r->pids_limit.v <= 0 ? cg_write (pids, "pids.max", "max", 3, err)
                                   : cg_printf (pids, "pids.max", err, "%" PRId64, r->pids_limit.v))
                 < 0))
    return -1;
  if (r->n_hugepage_limits
      && (need (huge, "hugepageLimits", err) < 0 || hugetlb (huge, huge_v2, r, err) < 0))
    return -1;
  if (r->has_network || r->n_rdma)
    return need (NULL, r->has_network ? "network" : "rdma", err);
  if (r->unified.n)
    {
      if (cg->unified == NULL)
        return ar_make_error (err, ENOTSUP,
                              "config.json: linux.resources.unified: needs cgroup v2");
      return unified (cg->unified, &r->unified, err);
    }
  return 0;
}

/* runc writes these only when they are not 0: 0 means "the kernel's default".  Docker sends
   `cpu.shares: 0` and `blockIO.weight: 0` for every container, and the kernel refuses 0.  A
   memory limit of 0, written, would OOM-kill the runtime itself as it enters the cgroup to
   give birth to the init (cgroup_run_inside).  A macro, for the signed fields (struct
   spec_i64) and the unsigned ones (spec_u64) alike.  */
#define ZERO_IS_UNSET(field)             \
  do                                     \
    {                                    \
      if ((field).set && (field).v == 0) \
        (field).set = false;             \
    }                                    \
  while (0)

int
cgroup_apply (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err)
{
  struct spec_resources rr = *r;

  ZERO_IS_UNSET (rr.cpu.shares);
  ZERO_IS_UNSET (rr.cpu.period);
  ZERO_IS_UNSET (rr.cpu.realtime_period);
  ZERO_IS_UNSET (rr.block_io.weight);
  ZERO_IS_UNSET (rr.block_io.leaf_weight);
  ZERO_IS_UNSET (rr.cpu.quota);
  ZERO_IS_UNSET (rr.cpu.realtime_runtime);
  ZERO_IS_UNSET (rr.memory.kernel_tcp);
  ZERO_IS_UNSET (rr.memory.limit);
  ZERO_IS_UNSET (rr.memory.reservation);
  ZERO_IS_UNSET (rr.memory.swap);
  return cg->layout == CGROUP_V2 ? apply_v2 (cg, &rr, err) : apply_v1 (cg, &rr, err);
}
