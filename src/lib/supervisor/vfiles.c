/* vfiles.c renders the lxcfs-style virtual files (vfiles.h) from one read of each host file and
   the container's limits, and writes them in place into the directory they live in.  It owns the
   text formats and where the limits come from: config.json at create, then the few cgroup files
   that hold the limits (read again every second, on fds opened once), so every figure is the
   host's, cut down to the limits in force.  It never mounts anything (the init bind-mounts the
   files) and never writes a cgroup.

   The supervisor refreshes every container's files every second, so rendering walks the host
   text once or twice with pointers into it, appends to one growing buffer sized from the host
   text, and allocates nothing per line.  The ideas (which fields to clip, renumbering the CPUs
   shown) follow lxcfs's proc_fuse.c; the code is ours.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/vfiles.h"
#include "utils.h"

/* A growing NUL-terminated output text.  */
struct sbuf
{
  char *p;
  size_t len, cap;
};

static void
sb_reserve (struct sbuf *b, size_t n)
{
  size_t cap = b->cap ? b->cap : 256;

  if (b->p != NULL && b->cap - b->len > n)
    return;
  while (cap - b->len <= n)
    cap *= 2;
  b->p = xrealloc (b->p, cap);
  b->cap = cap;
}

static void
sb_add (struct sbuf *b, const char *s, size_t n)
{
  sb_reserve (b, n);
  memcpy (b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void sb_printf (struct sbuf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void
sb_printf (struct sbuf *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  sb_reserve (b, 64);
  va_start (ap, fmt);
  n = vsnprintf (b->p + b->len, b->cap - b->len, fmt, ap);
  va_end (ap);
  if (n < 0)
    return; /* only for a bad format, which the attribute rules out */
  if ((size_t) n >= b->cap - b->len)
    {
      sb_reserve (b, n);
      va_start (ap, fmt);
      vsnprintf (b->p + b->len, b->cap - b->len, fmt, ap);
      va_end (ap);
    }
  b->len += n;
}

/* The line at *pos (with its '\n', if any), advancing *pos; false at the end of the text.  */
static bool
next_line (const char **pos, const char **line, size_t *len)
{
  const char *s = *pos, *nl;

  if (*s == '\0')
    return false;
  nl = strchr (s, '\n');
  *len = nl ? (size_t) (nl - s + 1) : strlen (s);
  *line = s;
  *pos = s + *len;
  return true;
}

/* A decimal number at s: the character after it, or NULL if there is none or it overflows.  */
static const char *
parse_u64 (const char *s, uint64_t *v)
{
  uint64_t x = 0;

  if (*s < '0' || *s > '9')
    return NULL;
  for (; *s >= '0' && *s <= '9'; s++)
    {
      unsigned d = *s - '0';
      if (x > (UINT64_MAX - d) / 10)
        return NULL;
      x = x * 10 + d;
    }
  *v = x;
  return s;
}

/* The index among the CPUs shown of host CPU `id`, or -1 if it is not shown.  */
static int
cpu_index (const struct vfiles_limits *l, uint64_t id)
{
  int lo = 0, hi = (int) l->ncpus - 1;

  while (lo <= hi)
    {
      int mid = (lo + hi) / 2;
      if ((uint64_t) l->cpu_ids[mid] == id)
        return mid;
      if ((uint64_t) l->cpu_ids[mid] < id)
        lo = mid + 1;
      else
        hi = mid - 1;
    }
  return -1;
}

/* meminfo.  */

/* Whether the line's field name (before `colon`) is `name`.  */
static bool
field_is (const char *line, const char *colon, const char *name)
{
  size_t n = strlen (name);
  return (size_t) (colon - line) == n && memcmp (line, name, n) == 0;
}

/* The value in kB of the meminfo field `name`, or 0 if it is absent.  */
static uint64_t
meminfo_field (const char *host, const char *name)
{
  const char *pos = host, *line, *colon;
  size_t len;
  uint64_t v;

  while (next_line (&pos, &line, &len))
    {
      colon = memchr (line, ':', len);
      if (colon && field_is (line, colon, name))
        {
          const char *num = colon + 1 + strspn (colon + 1, " ");
          return parse_u64 (num, &v) ? v : 0;
        }
    }
  return 0;
}

/* The container's memory as meminfo shows it, in kB.  */
struct mem_view
{
  uint64_t total;
  bool known; /* the cgroup's usage is known: used is it */
  uint64_t used;
  uint64_t left; /* of used, what Buffers, Cached and SReclaimable have not shown yet */
};

/* One meminfo line with its kB figure set to the container's view: MemTotal is `total`, swap
   is none (the container has no swap of its own to show), and everything else is clipped to
   `total` so no figure claims more memory than there is.  Where the cgroup's usage is known,
   MemFree and MemAvailable are what it leaves of the limit, and Buffers, Cached and
   SReclaimable together at most the usage, so that total - free - buffers - cached -
   sreclaimable (busybox free's "used") is never below 0 (the host's cache alone was twice a
   small limit, and that used wrapped around).
   Lines without " kB" (HugePages_*) and unchanged figures are copied as they are.  */
static void
meminfo_line (struct sbuf *b, const char *line, size_t len, struct mem_view *m)
{
  uint64_t total = m->total;
  const char *colon = memchr (line, ':', len), *num, *end = NULL;
  uint64_t v = 0, nv;
  int pad;

  if (colon)
    {
      num = colon + 1 + strspn (colon + 1, " ");
      end = parse_u64 (num, &v);
    }
  if (end == NULL || strncmp (end, " kB", 3) != 0)
    {
      sb_add (b, line, len);
      return;
    }
  if (field_is (line, colon, "MemTotal"))
    nv = total;
  else if (field_is (line, colon, "SwapTotal") || field_is (line, colon, "SwapFree"))
    nv = 0;
  else if (m->known
           && (field_is (line, colon, "MemFree") || field_is (line, colon, "MemAvailable")))
    nv = total - m->used;
  else if (m->known
           && (field_is (line, colon, "Buffers") || field_is (line, colon, "Cached")
               || field_is (line, colon, "SReclaimable")))
    {
      nv = v < m->left ? v : m->left;
      m->left -= nv;
    }
  else
    nv = v < total ? v : total;
  if (nv == v)
    {
      sb_add (b, line, len);
      return;
    }
  /* The kernel's layout (fs/proc/meminfo.c show_val_kb): the name and colon padded to 16
     columns, then the figure right-aligned in 8.  */
  pad = 16 - (int) (colon + 1 - line);
  sb_add (b, line, colon + 1 - line);
  sb_printf (b, "%*s%8" PRIu64, pad < 1 ? 1 : pad, "", nv);
  sb_add (b, end, line + len - end);
}

static int
render_meminfo (struct sbuf *b, const struct vfiles_limits *l, const char *host, ar_error_t *err)
{
  const char *pos = host, *line;
  uint64_t total, host_total;
  struct mem_view m;
  size_t len;

  (void) err;
  if (l->mem_limit == 0)
    {
      sb_add (b, host, strlen (host));
      return 0;
    }
  /* A limit above the host's memory is no limit at all (lxcfs does the same).  */
  total = l->mem_limit / 1024;
  host_total = meminfo_field (host, "MemTotal");
  if (host_total != 0 && host_total < total)
    total = host_total;
  m = (struct mem_view){ .total = total, .known = l->mem_usage != 0 };
  m.used = l->mem_usage / 1024 < total ? l->mem_usage / 1024 : total;
  m.left = m.used;
  while (next_line (&pos, &line, &len))
    meminfo_line (b, line, len, &m);
  return 0;
}

/* cpuinfo.  */

/* Whether the line is "processor<blanks>: N": *val points at N, *id is N.  */
static bool
processor_line (const char *line, const char **val, uint64_t *id)
{
  const char *s = line;

  if (strncmp (s, "processor", 9) != 0)
    return false;
  s += 9;
  s += strspn (s, " \t");
  if (*s != ':')
    return false;
  s++;
  s += strspn (s, " \t");
  *val = s;
  s = parse_u64 (s, id);
  return s != NULL && (*s == '\n' || *s == '\0');
}

/* Keep only the processor blocks of the CPUs shown, renumbered 0..ncpus-1.  A block runs from
   its "processor" line to the next blank line (x86, current arm64); lines outside any block are
   kept (arm's trailing "Hardware" block, the leading "Processor : AArch64 …" line).  Kernels
   before 3.19 on arm64 listed the "processor" lines one after another with one shared block
   below: there each block is that one line, and the shared lines are kept.  */
static int
render_cpuinfo (struct sbuf *b, const struct vfiles_limits *l, const char *host, ar_error_t *err)
{
  bool in_block = false, keep = true, prev_processor = false, one_line_blocks = false;
  const char *pos = host, *line, *val;
  size_t len;
  uint64_t id;

  (void) err;
  while (next_line (&pos, &line, &len))
    {
      if (processor_line (line, &val, &id))
        {
          int idx = cpu_index (l, id);
          one_line_blocks = one_line_blocks || prev_processor;
          prev_processor = true;
          in_block = !one_line_blocks;
          keep = idx >= 0;
          if (keep)
            {
              sb_add (b, line, val - line);
              sb_printf (b, "%d\n", idx);
            }
          continue;
        }
      prev_processor = false;
      if (in_block && line[0] == '\n')
        {
          /* The blank line closing a block goes with it.  */
          if (keep)
            sb_add (b, line, len);
          in_block = false;
          keep = true;
          continue;
        }
      if (!in_block || keep)
        sb_add (b, line, len);
    }
  return 0;
}

/* stat.  */

#define STAT_MAX_FIELDS 16

/* Whether the line is "cpuN …": *rest points after N, *id is N.  */
static bool
cpu_line (const char *line, uint64_t *id, const char **rest)
{
  if (strncmp (line, "cpu", 3) != 0)
    return false;
  *rest = parse_u64 (line + 3, id);
  return *rest != NULL;
}

/* Add the figures after `s` to sums[]; returns how many there were.  */
static unsigned
add_fields (const char *s, uint64_t *sums)
{
  unsigned n = 0;
  uint64_t v;

  for (;;)
    {
      s += strspn (s, " ");
      if (n == STAT_MAX_FIELDS || (s = parse_u64 (s, &v)) == NULL)
        return n;
      sums[n++] += v;
    }
}

/* The aggregate "cpu" line, as the sum of the CPUs shown; the kernel writes it "cpu  a b …".  */
static void
stat_aggregate (struct sbuf *b, const struct vfiles_limits *l, const char *host)
{
  uint64_t sums[STAT_MAX_FIELDS] = { 0 }, ignored[STAT_MAX_FIELDS] = { 0 }, id;
  const char *pos = host, *line, *rest;
  unsigned nfields = 0, n;
  size_t len;

  while (next_line (&pos, &line, &len))
    {
      if (strncmp (line, "cpu ", 4) == 0)
        n = add_fields (line + 4, ignored); /* only to count the kernel's fields */
      else if (cpu_line (line, &id, &rest) && cpu_index (l, id) >= 0)
        n = add_fields (rest, sums);
      else
        continue;
      nfields = n > nfields ? n : nfields;
    }
  sb_add (b, "cpu ", 4);
  for (unsigned i = 0; i < nfields; i++)
    sb_printf (b, " %" PRIu64, sums[i]);
  sb_add (b, "\n", 1);
}

/* The aggregate line recomputed, then the CPUs shown as cpu0.., then the rest (intr, ctxt,
   btime, processes, procs_running, …) as the host has it: those have no per-CPU split, and
   without cgroups there is no per-container figure to put there.  */
static int
render_stat (struct sbuf *b, const struct vfiles_limits *l, const char *host, ar_error_t *err)
{
  const char *pos = host, *line, *rest;
  size_t len;
  uint64_t id;

  (void) err;
  stat_aggregate (b, l, host);
  while (next_line (&pos, &line, &len))
    {
      int idx;
      if (strncmp (line, "cpu ", 4) == 0)
        continue;
      if (!cpu_line (line, &id, &rest))
        {
          sb_add (b, line, len);
          continue;
        }
      idx = cpu_index (l, id);
      if (idx < 0)
        continue;
      sb_printf (b, "cpu%d", idx);
      sb_add (b, rest, line + len - rest);
    }
  return 0;
}

/* uptime, loadavg, cpu online.  */

/* Seconds since l->boot, and idle as uptime × ncpus: without a cgroup there is no per-container
   idle time (lxcfs reads it from cpuacct), so the container's CPUs are reported idle for all of
   it; programs read the first figure, rarely the second.  */
static int
render_uptime (struct sbuf *b, const struct vfiles_limits *l, const char *host, ar_error_t *err)
{
  struct timespec now;
  int64_t cs;
  uint64_t up, idle;

  (void) host;
  if (clock_gettime (CLOCK_BOOTTIME, &now) < 0)
    return ar_make_error (err, errno, "clock_gettime CLOCK_BOOTTIME");
  cs = ((int64_t) (now.tv_sec - l->boot.tv_sec) * 1000000000 + (now.tv_nsec - l->boot.tv_nsec))
       / 10000000;
  up = cs > 0 ? (uint64_t) cs : 0;
  idle = up * l->ncpus;
  sb_printf (b, "%" PRIu64 ".%02" PRIu64 " %" PRIu64 ".%02" PRIu64 "\n", up / 100, up % 100,
             idle / 100, idle % 100);
  return 0;
}

/* A load average "I.FF" at s, in hundredths; the character after it, or NULL.  */
static const char *
parse_load (const char *s, uint64_t *centi)
{
  uint64_t i;

  s = parse_u64 (s, &i);
  if (s == NULL || s[0] != '.' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9'
      || i > UINT64_MAX / 100 - 1)
    return NULL;
  *centi = i * 100 + (s[1] - '0') * 10 + (s[2] - '0');
  return s + 3;
}

/* The host's three averages, none above ncpus (a container cannot keep more CPUs busy than it
   has); the running/total tasks and the last pid stay the host's.  Without cgroups there is no
   per-container load: this is the host's, capped.  */
static int
render_loadavg (struct sbuf *b, const struct vfiles_limits *l, const char *host, ar_error_t *err)
{
  uint64_t cap = (uint64_t) l->ncpus * 100, v;
  const char *s = host;

  for (int i = 0; i < 3; i++)
    {
      s += strspn (s, " ");
      s = parse_load (s, &v);
      if (s == NULL)
        return ar_make_error (err, EINVAL, "parse `/proc/loadavg`");
      v = v < cap ? v : cap;
      sb_printf (b, "%s%" PRIu64 ".%02" PRIu64, i ? " " : "", v / 100, v % 100);
    }
  sb_add (b, s, strlen (s));
  return 0;
}

static int
render_cpu_list (struct sbuf *b, const struct vfiles_limits *l, const char *host, ar_error_t *err)
{
  (void) host;
  (void) err;
  if (l->ncpus == 1)
    sb_add (b, "0\n", 2);
  else
    sb_printf (b, "0-%u\n", l->ncpus - 1);
  return 0;
}

/* The table: one row per file.  */

typedef int (*render_fn) (struct sbuf *, const struct vfiles_limits *, const char *host,
                          ar_error_t *);

struct vfile_desc
{
  const char *name, *target, *host;
  render_fn render;
  bool changes; /* rewritten by vfiles_refresh */
};

static const struct vfile_desc vfiles[VF__N] = {
  [VF_MEMINFO] = { "meminfo", "/proc/meminfo", "/proc/meminfo", render_meminfo, true },
  [VF_CPUINFO] = { "cpuinfo", "/proc/cpuinfo", "/proc/cpuinfo", render_cpuinfo, false },
  [VF_STAT] = { "stat", "/proc/stat", "/proc/stat", render_stat, true },
  [VF_UPTIME] = { "uptime", "/proc/uptime", NULL, render_uptime, true },
  [VF_LOADAVG] = { "loadavg", "/proc/loadavg", "/proc/loadavg", render_loadavg, true },
  [VF_CPU_ONLINE]
  = { "cpu_online", "/sys/devices/system/cpu/online", NULL, render_cpu_list, false },
  [VF_CPU_POSSIBLE]
  = { "cpu_possible", "/sys/devices/system/cpu/possible", NULL, render_cpu_list, false },
};

static const struct vfile_desc *
desc (enum vfile f)
{
  return (unsigned) f < VF__N ? &vfiles[f] : NULL;
}

const char *
vfile_target (enum vfile f)
{
  return desc (f) ? desc (f)->target : NULL;
}

const char *
vfile_name (enum vfile f)
{
  return desc (f) ? desc (f)->name : NULL;
}

const char *
vfile_host_path (enum vfile f)
{
  return desc (f) ? desc (f)->host : NULL;
}

int
vfile_render_text (enum vfile f, const struct vfiles_limits *l, const char *host, char **out,
                   size_t *len, ar_error_t *err)
{
  const struct vfile_desc *d = desc (f);
  struct sbuf b = { NULL, 0, 0 };

  if (d == NULL)
    return ar_make_error (err, EINVAL, "render virtual file %d: no such file", (int) f);
  if (l->ncpus < 1 || l->ncpus > ARRAY_SIZE (l->cpu_ids))
    return ar_make_error (err, EINVAL, "render `%s`: %u CPUs", d->name, l->ncpus);
  if (d->host != NULL && host == NULL)
    return ar_make_error (err, EINVAL, "render `%s`: no host text", d->name);
  /* Every renderer writes about as much as it reads: one allocation in the usual case.  */
  sb_reserve (&b, (d->host ? strlen (host) : 0) + 256);
  b.p[0] = '\0';
  if (d->render (&b, l, host, err) < 0)
    {
      free (b.p);
      return -1;
    }
  if (len)
    *len = b.len;
  *out = b.p;
  return 0;
}

static int
render (enum vfile f, const struct vfiles_limits *l, char **out, size_t *len, ar_error_t *err)
{
  const char *path = vfile_host_path (f);
  cleanup_free char *host = NULL;

  if (path != NULL && ar_read_file (path, 0, &host, NULL, err) < 0)
    return -1;
  return vfile_render_text (f, l, host, out, len, err);
}

int
vfile_render (enum vfile f, const struct vfiles_limits *l, char **out, ar_error_t *err)
{
  return render (f, l, out, NULL, err);
}

/* Writing.  */

/* Write `text` over DIRFD/NAME from offset 0 and cut the file there: the inode stays, so the
   bind mounts over /proc/… keep showing it.  A reader between the two calls may see the old
   tail after the new text; the next second fixes it, and the texts barely change in length.  */
static int
write_in_place (int dirfd, const char *name, int flags, const char *text, size_t len,
                ar_error_t *err)
{
  cleanup_close int fd = openat (dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | flags, 0644);
  size_t off = 0;

  if (fd < 0)
    return ar_make_error (err, errno, "open `%s`", name);
  while (off < len)
    {
      ssize_t w = pwrite (fd, text + off, len - off, off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return ar_make_error (err, errno, "write `%s`", name);
      off += w;
    }
  if (ftruncate (fd, len) < 0)
    return ar_make_error (err, errno, "truncate `%s`", name);
  return 0;
}

static int
render_and_write (int dirfd, enum vfile f, int flags, const struct vfiles_limits *l,
                  ar_error_t *err)
{
  cleanup_free char *text = NULL;
  size_t len;

  if (render (f, l, &text, &len, err) < 0)
    return -1;
  return write_in_place (dirfd, vfile_name (f), flags, text, len, err);
}

int
vfiles_write_at (int dirfd, const struct vfiles_limits *l, ar_error_t *err)
{
  for (int f = 0; f < VF__N; f++)
    if (render_and_write (dirfd, f, O_CREAT, l, err) < 0)
      return -1;
  return 0;
}

int
vfiles_write_all (const char *dir, const struct vfiles_limits *l, ar_error_t *err)
{
  cleanup_close int dirfd = -1;

  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    return ar_make_error (err, errno, "mkdir `%s`", dir);
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0)
    return ar_make_error (err, errno, "open `%s`", dir);
  if (vfiles_write_at (dirfd, l, err) < 0)
    return ar_error_wrap (err, "write the virtual files in `%s`", dir);
  return 0;
}

static int
rewrite (int dirfd, const struct vfiles_limits *l, bool all, ar_error_t *err)
{
  for (int f = 0; f < VF__N; f++)
    if ((all || vfiles[f].changes) && render_and_write (dirfd, f, 0, l, err) < 0)
      return ar_error_wrap (err, "refresh the virtual files");
  return 0;
}

int
vfiles_refresh (int dirfd, const struct vfiles_limits *l, ar_error_t *err)
{
  return rewrite (dirfd, l, false, err);
}

int
vfiles_rewrite_all (int dirfd, const struct vfiles_limits *l, ar_error_t *err)
{
  return rewrite (dirfd, l, true, err);
}

/* Limits.  */

/* One element of a CPU list, "N" or "N-M", at *s; advances *s.  */
static int
parse_cpu_range (const char **s, const char *list, cpu_set_t *set, ar_error_t *err)
{
  uint64_t lo, hi;
  const char *p = parse_u64 (*s, &lo);

  if (p == NULL)
    return ar_make_error (err, EINVAL,
                          "linux.resources.cpu.cpus: `%s`: expected a CPU list "
                          "such as 0-3,5",
                          list);
  hi = lo;
  if (*p == '-' && (p = parse_u64 (p + 1, &hi)) == NULL)
    return ar_make_error (err, EINVAL,
                          "linux.resources.cpu.cpus: `%s`: expected a CPU list "
                          "such as 0-3,5",
                          list);
  if (hi < lo)
    return ar_make_error (
        err, EINVAL, "linux.resources.cpu.cpus: `%s`: range %" PRIu64 "-%" PRIu64 " runs backwards",
        list, lo, hi);
  if (hi >= CPU_SETSIZE)
    return ar_make_error (err, EINVAL,
                          "linux.resources.cpu.cpus: `%s`: CPU %" PRIu64
                          " is past the last one supported (%d)",
                          list, hi, CPU_SETSIZE - 1);
  for (uint64_t c = lo; c <= hi; c++)
    CPU_SET (c, set);
  *s = p;
  return 0;
}

int
vfiles_parse_cpus (const char *list, cpu_set_t *set, ar_error_t *err)
{
  const char *s = list;

  CPU_ZERO (set);
  for (;;)
    {
      if (parse_cpu_range (&s, list, set, err) < 0)
        return -1;
      if (*s == '\0')
        return 0;
      if (*s != ',')
        return ar_make_error (err, EINVAL,
                              "linux.resources.cpu.cpus: `%s`: expected a CPU "
                              "list such as 0-3,5",
                              list);
      s++;
    }
}

/* The CPUs a container of `r` may run on: this process's affinity (which it inherits), cut to
   cpu.cpus when that is set.  */
static int
allowed_cpus (const struct spec_resources *r, cpu_set_t *set, ar_error_t *err)
{
  cpu_set_t cpus;

  if (sched_getaffinity (0, sizeof *set, set) < 0)
    return ar_make_error (err, errno, "sched_getaffinity");
  if (r == NULL || !r->has_cpu || r->cpu.cpus == NULL || r->cpu.cpus[0] == '\0')
    return 0;
  if (vfiles_parse_cpus (r->cpu.cpus, &cpus, err) < 0)
    return -1;
  CPU_AND (set, set, &cpus);
  if (CPU_COUNT (set) == 0)
    return ar_make_error (err, EINVAL,
                          "linux.resources.cpu.cpus: `%s`: none of these CPUs is available",
                          r->cpu.cpus);
  return 0;
}

/* ceil(quota/period), at least 1.  */
static uint64_t
ceil_cpus (uint64_t quota, uint64_t period)
{
  uint64_t n = quota / period + (quota % period != 0);
  return n ? n : 1;
}

/* ceil(quota/period) when a quota is set (period 100000 µs by default, as the kernel's), else
   UINT64_MAX.  */
static uint64_t
quota_cpus (const struct spec_resources *r)
{
  uint64_t quota, period = 100000;

  if (r == NULL || !r->has_cpu || !r->cpu.quota.set || r->cpu.quota.v <= 0)
    return UINT64_MAX;
  if (r->cpu.period.set && r->cpu.period.v > 0)
    period = r->cpu.period.v;
  quota = (uint64_t) r->cpu.quota.v;
  return ceil_cpus (quota, period);
}

void
vfiles_limits_set (struct vfiles_limits *l, uint64_t mem_limit, const cpu_set_t *cpus,
                   uint64_t quota_cpus)
{
  uint64_t n = CPU_COUNT (cpus);

  l->mem_limit = mem_limit;
  l->cpus = *cpus;
  l->quota_cpus = quota_cpus;
  if (quota_cpus < n)
    n = quota_cpus;
  l->ncpus = 0;
  for (int c = 0; c < CPU_SETSIZE && l->ncpus < n; c++)
    if (CPU_ISSET (c, cpus))
      l->cpu_ids[l->ncpus++] = c;
  if (l->ncpus == 0)
    l->cpu_ids[l->ncpus++] = 0;
}

bool
vfiles_quota_cuts (const struct vfiles_limits *l)
{
  return l->quota_cpus < (uint64_t) CPU_COUNT (&l->cpus);
}

void
vfiles_affinity (const struct vfiles_limits *l, const cpu_set_t *real, cpu_set_t *out)
{
  uint64_t n = 0;
  cpu_set_t in;

  CPU_AND (&in, real, &l->cpus);
  if (CPU_COUNT (&in) == 0)
    in = *real;
  CPU_ZERO (out);
  for (int c = 0; c < CPU_SETSIZE && (n == 0 || n < l->quota_cpus); c++)
    if (CPU_ISSET (c, &in))
      {
        CPU_SET (c, out);
        n++;
      }
}

int
vfiles_limits_from_spec (const struct spec *s, struct vfiles_limits *l, ar_error_t *err)
{
  const struct spec_resources *r
      = s->has_linux && s->linux_.has_resources ? &s->linux_.resources : NULL;
  uint64_t mem = 0;
  cpu_set_t cpus;

  memset (l, 0, sizeof *l);
  if (r && r->has_memory && r->memory.limit.set && r->memory.limit.v > 0)
    mem = (uint64_t) r->memory.limit.v;
  if (allowed_cpus (r, &cpus, err) < 0)
    return -1;
  vfiles_limits_set (l, mem, &cpus, quota_cpus (r));
  if (clock_gettime (CLOCK_BOOTTIME, &l->boot) < 0)
    return ar_make_error (err, errno, "clock_gettime CLOCK_BOOTTIME");
  return 0;
}

/* Live limits: the cgroup's files.  */

/* The names of each file, v2's first.  */
static const char *const cg_names[VCG__N][3] = {
  [VCG_MEMORY] = { "memory.max", "memory.limit_in_bytes", NULL },
  [VCG_CPU_MAX] = { "cpu.max", NULL, NULL },
  [VCG_CFS_QUOTA] = { "cpu.cfs_quota_us", NULL, NULL },
  [VCG_CFS_PERIOD] = { "cpu.cfs_period_us", NULL, NULL },
  [VCG_CPUSET] = { "cpuset.cpus.effective", "cpuset.effective_cpus", "cpuset.cpus" },
  [VCG_MEM_USAGE] = { "memory.current", "memory.usage_in_bytes", NULL },
};

/* A decimal number that is all of `s` but a trailing newline.  */
static bool
whole_u64 (const char *s, uint64_t *v)
{
  s = parse_u64 (s, v);
  return s != NULL && (s[0] == '\0' || (s[0] == '\n' && s[1] == '\0'));
}

/* "max" or a number of bytes; *v is 0 for none.  */
static bool
parse_mem (const char *s, uint64_t *v)
{
  if (strcmp (s, "max") == 0 || strcmp (s, "max\n") == 0)
    {
      *v = 0;
      return true;
    }
  if (!whole_u64 (s, v))
    return false;
  if (*v >= UINT64_C (1) << 62)
    *v = 0;
  return true;
}

/* cpu.max: "max PERIOD" or "QUOTA PERIOD".  */
static bool
parse_cpu_max (const char *s, uint64_t *cpus)
{
  uint64_t quota, period;
  const char *p;

  if (strncmp (s, "max ", 4) == 0)
    {
      *cpus = UINT64_MAX;
      return whole_u64 (s + 4, &period);
    }
  p = parse_u64 (s, &quota);
  if (p == NULL || *p != ' ' || !whole_u64 (p + 1, &period) || period == 0)
    return false;
  *cpus = ceil_cpus (quota, period);
  return true;
}

/* cpu.cfs_quota_us ("-1": none) and cpu.cfs_period_us (100000 µs without it).  */
static bool
parse_cfs (const char *quota_s, const char *period_s, uint64_t *cpus)
{
  uint64_t quota, period = 100000;

  if (strcmp (quota_s, "-1") == 0 || strcmp (quota_s, "-1\n") == 0)
    {
      *cpus = UINT64_MAX;
      return true;
    }
  if (!whole_u64 (quota_s, &quota)
      || (period_s != NULL && (!whole_u64 (period_s, &period) || period == 0)))
    return false;
  *cpus = ceil_cpus (quota, period);
  return true;
}

/* A cpuset list as the kernel writes it; an empty one leaves *set as it is.  */
static bool
parse_cpuset (const char *s, cpu_set_t *set)
{
  char list[4096];
  size_t len = strlen (s);
  cpu_set_t parsed;
  ar_error_t err = NULL;

  if (len > 0 && s[len - 1] == '\n')
    len--;
  if (len == 0)
    return true;
  if (len >= sizeof list)
    return false;
  memcpy (list, s, len);
  list[len] = '\0';
  if (vfiles_parse_cpus (list, &parsed, &err) < 0)
    {
      ar_error_release (&err);
      return false;
    }
  *set = parsed;
  return true;
}

int
vfiles_limits_from_cgroup (const struct vfiles_limits *base, const char *const text[VCG__N],
                           struct vfiles_limits *l, ar_error_t *err)
{
  uint64_t mem = base->mem_limit, quota = base->quota_cpus;
  cpu_set_t cpus = base->cpus;
  int bad = -1;

  if (text[VCG_MEMORY] && !parse_mem (text[VCG_MEMORY], &mem))
    bad = VCG_MEMORY;
  else if (text[VCG_CPU_MAX] && !parse_cpu_max (text[VCG_CPU_MAX], &quota))
    bad = VCG_CPU_MAX;
  else if (!text[VCG_CPU_MAX] && text[VCG_CFS_QUOTA]
           && !parse_cfs (text[VCG_CFS_QUOTA], text[VCG_CFS_PERIOD], &quota))
    bad = VCG_CFS_QUOTA;
  else if (text[VCG_CPUSET] && !parse_cpuset (text[VCG_CPUSET], &cpus))
    bad = VCG_CPUSET;
  if (bad >= 0)
    return ar_make_error (err, EINVAL, "the cgroup's %s: cannot parse `%.64s`",
                          bad == VCG_MEMORY   ? "memory limit"
                          : bad == VCG_CPUSET ? "cpuset"
                                              : "CPU quota",
                          text[bad]);
  l->boot = base->boot;
  vfiles_limits_set (l, mem, &cpus, quota);
  if (!text[VCG_MEM_USAGE] || !whole_u64 (text[VCG_MEM_USAGE], &l->mem_usage))
    l->mem_usage = 0;
  return 0;
}

bool
vfiles_limits_same (const struct vfiles_limits *a, const struct vfiles_limits *b)
{
  return a->mem_limit == b->mem_limit && a->ncpus == b->ncpus
         && memcmp (a->cpu_ids, b->cpu_ids, a->ncpus * sizeof a->cpu_ids[0]) == 0;
}

/* The first of `names` in `dir`, open for reading; -1 if none (or no dir).  */
static int
open_cg_file (const char *dir, const char *const *names)
{
  for (; dir && *names; names++)
    {
      cleanup_free char *path = xasprintf ("%s/%s", dir, *names);
      int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd >= 0)
        return fd;
    }
  return -1;
}

void
vfiles_live_init (struct vfiles_live *v, const struct vfiles_limits *limits,
                  const struct vfiles_cgroup *cg)
{
  /* Each file in its controller's directory only: a lookup that fails in cgroupfs costs
     ~15 µs here, and trying every name in every hierarchy was 40 of them per start.  */
  const char *dir[VCG__N]
      = { [VCG_MEMORY] = cg ? cg->memory : NULL, [VCG_CPU_MAX] = cg ? cg->cpu : NULL,
          [VCG_CFS_QUOTA] = cg ? cg->cpu : NULL, [VCG_CFS_PERIOD] = cg ? cg->cpu : NULL,
          [VCG_CPUSET] = cg ? cg->cpuset : NULL, [VCG_MEM_USAGE] = cg ? cg->memory : NULL };

  pthread_rwlock_init (&v->lock, NULL);
  v->now = *limits;
  v->base = *limits;
  for (int i = 0; i < VCG__N; i++)
    v->fd[i] = open_cg_file (dir[i], cg_names[i]);
}

/* The cgroup's limits now into *l: false when there is no file to read, or one failed.  */
static bool
read_live (const struct vfiles_live *v, struct vfiles_limits *l)
{
  char buf[8192];
  const char *text[VCG__N] = { NULL };
  size_t used = 0;
  bool any = false;
  ar_error_t err = NULL;

  for (int i = 0; i < VCG__N; i++)
    {
      ssize_t n;
      if (v->fd[i] < 0)
        continue;
      do
        n = pread (v->fd[i], buf + used, sizeof buf - used - 1, 0);
      while (n < 0 && errno == EINTR);
      if (n < 0 || (size_t) n >= sizeof buf - used - 1)
        return false;
      buf[used + n] = '\0';
      text[i] = buf + used;
      used += n + 1;
      any = true;
    }
  if (!any || vfiles_limits_from_cgroup (&v->base, text, l, &err) < 0)
    {
      ar_error_release (&err);
      return false;
    }
  return true;
}

int
vfiles_live_tick (struct vfiles_live *v, int dirfd, ar_error_t *err)
{
  struct vfiles_limits next;

  if (!read_live (v, &next))
    return vfiles_refresh (dirfd, &v->now, err);
  if (vfiles_limits_same (&next, &v->now))
    {
      /* The usage changes every second: shown by the files refreshed anyway (meminfo).  */
      if (v->now.mem_usage != next.mem_usage && next.mem_usage != 0)
        {
          pthread_rwlock_wrlock (&v->lock);
          v->now.mem_usage = next.mem_usage;
          pthread_rwlock_unlock (&v->lock);
        }
      return vfiles_refresh (dirfd, &v->now, err);
    }
  pthread_rwlock_wrlock (&v->lock);
  v->now = next;
  pthread_rwlock_unlock (&v->lock);
  return vfiles_rewrite_all (dirfd, &v->now, err);
}

void
vfiles_live_get (struct vfiles_live *v, struct vfiles_limits *l)
{
  pthread_rwlock_rdlock (&v->lock);
  *l = v->now;
  pthread_rwlock_unlock (&v->lock);
}
