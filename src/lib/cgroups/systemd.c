/* The systemd driver's names and properties (systemd.h), computed as runc computes them
   (libcontainer/specconv, cgroups/systemd/{common,v1,v2}.go, cgroups/devices/systemd.go).  */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/cgroup_internal.h"
#include "cgroups/systemd.h"
#include "log.h"
#include "utils.h"

/* systemd's UNIT_NAME_MAX (256, with the NUL).  */
#define UNIT_NAME_MAX 255

void
systemd_unit_release (struct systemd_unit *u)
{
  free (u->slice);
  free (u->name);
  free (u->path);
  memset (u, 0, sizeof *u);
}

/* The characters systemd allows in a unit name but '\\' (its escape) and '@' (templates).  */
static bool
unit_chars_ok (const char *s)
{
  for (const char *c = s; *c; c++)
    if (!isalnum ((unsigned char) *c) && !strchr (":_.-", *c))
      return false;
  return *s != '\0';
}

int
systemd_expand_slice (const char *slice, char **out, ar_error_t *err)
{
  static const char suffix[] = ".slice";
  size_t len = strlen (slice), sl = strlen (suffix);
  cleanup_free char *base = NULL;
  char *path = xstrdup (""), *save = NULL;
  cleanup_free char *prefix = xstrdup ("");

  if (len <= sl || strcmp (slice + len - sl, suffix) != 0 || strchr (slice, '/'))
    {
      free (path);
      return ar_make_error (err, EINVAL, "`%s` is not a slice name (NAME.slice)", slice);
    }
  base = xstrndup (slice, len - sl);
  if (strcmp (base, "-") == 0)
    {
      free (path);
      *out = xstrdup ("/");
      return 0;
    }
  /* Empty components (a--b.slice, -a.slice, a-.slice) are not slices systemd makes.  */
  if (base[0] == '-' || base[strlen (base) - 1] == '-' || strstr (base, "--"))
    {
      free (path);
      return ar_make_error (err, EINVAL, "`%s` is not a slice name (an empty component)", slice);
    }
  for (char *c = strtok_r (base, "-", &save); c; c = strtok_r (NULL, "-", &save))
    {
      char *next = xasprintf ("%s/%s%s%s", path, prefix, c, suffix);
      free (path);
      path = next;
      next = xasprintf ("%s%s-", prefix, c);
      free (prefix);
      prefix = next;
    }
  *out = path;
  return 0;
}

/* systemd's cg_escape: a directory name that could be taken for a file of cgroupfs (a leading
   `_` or `.`, `cgroup.*`, a controller's `NAME.*`) gets a `_` in front.  */
static char *
cg_escape (const char *p)
{
  static const char *const controllers[] = {
    "cpu",
    "cpuacct",
    "cpuset",
    "io",
    "blkio",
    "memory",
    "devices",
    "pids",
    "bpf-firewall",
    "bpf-devices",
    "bpf-foreign",
    "bpf-socket-bind",
    "bpf-restrict-network-interfaces",
  };
  const char *dot = strrchr (p, '.');
  bool prefix = p[0] == '_' || p[0] == '.' || ar_str_has_prefix (p, "cgroup.")
                || strcmp (p, "tasks") == 0 || strcmp (p, "release_agent") == 0
                || strcmp (p, "notify_on_release") == 0;

  for (size_t i = 0; !prefix && dot && i < ARRAY_SIZE (controllers); i++)
    prefix = strlen (controllers[i]) == (size_t) (dot - p)
             && strncmp (p, controllers[i], (size_t) (dot - p)) == 0;
  return prefix ? xasprintf ("_%s", p) : xstrdup (p);
}

/* The expanded slice with each component escaped, then the unit.  */
static char *
unit_path (const char *expanded, const char *unit)
{
  cleanup_free char *copy = xstrdup (expanded);
  cleanup_free char *u = cg_escape (unit);
  char *out = xstrdup (""), *save = NULL;

  for (char *c = strtok_r (copy, "/", &save); c; c = strtok_r (NULL, "/", &save))
    {
      cleanup_free char *e = cg_escape (c);
      char *next = xasprintf ("%s/%s", out, e);
      free (out);
      out = next;
    }
  char *path = xasprintf ("%s/%s", out, u);
  free (out);
  return path;
}

static int
path_error (ar_error_t *err, const char *cp, const char *why)
{
  return ar_make_error (err, EINVAL, "config.json: linux.cgroupsPath `%s`: %s", cp, why);
}

int
systemd_unit_parse (const char *cp, const char *id, struct systemd_unit *u, ar_error_t *err)
{
  cleanup_free char *slice = NULL;
  cleanup_free char *prefix = NULL;
  cleanup_free char *name = NULL;
  cleanup_free char *expanded = NULL;
  ar_error_t e = NULL;

  memset (u, 0, sizeof *u);
  if (cp == NULL || *cp == '\0')
    {
      slice = xstrdup ("");
      prefix = xstrdup (SYSTEMD_DEFAULT_PREFIX);
      name = xstrdup (id);
      cp = "";
    }
  else
    {
      const char *c1 = strchr (cp, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL || strchr (c2 + 1, ':'))
        return path_error (err, cp, "the systemd cgroup driver takes `slice:prefix:name`");
      slice = xstrndup (cp, (size_t) (c1 - cp));
      prefix = xstrndup (c1 + 1, (size_t) (c2 - c1 - 1));
      name = xstrdup (c2 + 1);
    }
  if (*slice == '\0')
    {
      free (slice);
      slice = xstrdup (SYSTEMD_DEFAULT_SLICE);
    }
  if (*name == '\0')
    return path_error (err, cp, "the name (`slice:prefix:name`) is empty");
  if (ar_str_has_suffix (name, ".slice"))
    return path_error (err, cp, "the name is a slice: a container's unit is a scope");
  u->name = *prefix ? xasprintf ("%s-%s.scope", prefix, name) : xasprintf ("%s.scope", name);
  if (!unit_chars_ok (u->name) || strlen (u->name) > UNIT_NAME_MAX || !unit_chars_ok (slice))
    {
      systemd_unit_release (u);
      return path_error (err, cp,
                         "a systemd unit name has at most 255 of the characters A-Z a-z 0-9 : _ "
                         ". -");
    }
  if (systemd_expand_slice (slice, &expanded, &e) < 0)
    {
      systemd_unit_release (u);
      path_error (err, cp, e->msg);
      ar_error_release (&e);
      return -1;
    }
  u->path = unit_path (expanded, u->name);
  u->slice = steal_ptr (&slice);
  return 0;
}

/* Properties.  */

void
systemd_props_release (struct systemd_props *p)
{
  for (size_t i = 0; i < p->n; i++)
    {
      struct systemd_prop *q = &p->v[i];
      free (q->name);
      free (q->s);
      ar_strv_free (q->strv);
      free (q->pids);
      free (q->bytes);
    }
  free (p->v);
  memset (p, 0, sizeof *p);
}

static struct systemd_prop *
add (struct systemd_props *p, const char *name, enum systemd_prop_type type)
{
  struct systemd_prop *q;

  p->v = xrealloc (p->v, (p->n + 1) * sizeof *p->v);
  q = &p->v[p->n++];
  memset (q, 0, sizeof *q);
  q->name = xstrdup (name);
  q->type = type;
  return q;
}

static void
add_bool (struct systemd_props *p, const char *name, bool v)
{
  add (p, name, SDP_BOOL)->u = v;
}

static void
add_u64 (struct systemd_props *p, const char *name, uint64_t v)
{
  add (p, name, SDP_U64)->u = v;
}

static void
add_str (struct systemd_props *p, const char *name, const char *v)
{
  add (p, name, SDP_STR)->s = xstrdup (v);
}

void
systemd_props_base (struct systemd_props *p, const struct systemd_unit *u, const char *id,
                    pid_t pid, bool v2)
{
  cleanup_free char *desc = xasprintf ("agentrt container %s", id);
  struct systemd_prop *q;

  add_str (p, "Description", desc);
  add_str (p, "Slice", u->slice);
  /* The scope's subtree is ours (v2): the supervisor's child cgroup, a nested runtime's.  */
  add_bool (p, "Delegate", true);
  q = add (p, "PIDs", SDP_PIDS);
  q->pids = xmalloc (sizeof *q->pids);
  q->pids[0] = (uint32_t) pid;
  q->n = 1;
  /* runc: the same as the cgroupfs driver, and v1's memory cgroup is not to be joined late.  */
  add_bool (p, "MemoryAccounting", true);
  add_bool (p, "CPUAccounting", true);
  add_bool (p, v2 ? "IOAccounting" : "BlockIOAccounting", true);
  add_bool (p, "TasksAccounting", true);
  add_bool (p, "DefaultDependencies", false);
}

uint64_t
systemd_cpu_quota_per_sec (int64_t quota, uint64_t period)
{
  uint64_t v;

  if (quota <= 0)
    return SYSTEMD_INFINITY;
  if (period == 0)
    period = 100000;
  v = (uint64_t) quota * 1000000 / period;
  if (v % 10000)
    v = (v / 10000 + 1) * 10000;
  return v;
}

int
systemd_cpuset_bits (const char *list, uint8_t **bits, size_t *n, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (list);
  uint8_t *b = NULL;
  size_t len = 0;
  char *save = NULL;

  for (char *r = strtok_r (copy, ",", &save); r; r = strtok_r (NULL, ",", &save))
    {
      long long lo, hi;
      char *dash;
      while (*r == ' ')
        r++;
      if (*r == '\0')
        continue;
      dash = strchr (r, '-');
      if (dash)
        *dash = '\0';
      if (!ar_parse_int64 (r, 0, 65535, &lo)
          || !ar_parse_int64 (dash ? dash + 1 : r, lo, 65535, &hi))
        {
          free (b);
          return ar_make_error (err, EINVAL, "`%s` is not a cpuset list (such as 0-3,6)", list);
        }
      if ((size_t) hi / 8 + 1 > len)
        {
          b = xrealloc (b, (size_t) hi / 8 + 1);
          memset (b + len, 0, (size_t) hi / 8 + 1 - len);
          len = (size_t) hi / 8 + 1;
        }
      for (long long i = lo; i <= hi; i++)
        b[i / 8] |= (uint8_t) (1u << (i % 8));
    }
  if (len == 0)
    return ar_make_error (err, EINVAL, "`%s` is not a cpuset list (it is empty)", list);
  *bits = b;
  *n = len;
  return 0;
}

static int
add_cpuset (struct systemd_props *p, const char *name, const char *list, unsigned version,
            ar_error_t *err)
{
  struct systemd_prop *q;
  uint8_t *bits;
  size_t n;

  /* AllowedCPUs and AllowedMemoryNodes came with systemd 244; older ones get the files only.  */
  if (list == NULL || *list == '\0' || version < 244)
    return 0;
  if (systemd_cpuset_bits (list, &bits, &n, err) < 0)
    return -1;
  q = add (p, name, SDP_BYTES);
  q->bytes = bits;
  q->n = n;
  return 0;
}

/* runc's addCpuQuota: the period (systemd 242 has CPUQuotaPeriodUSec), and the quota per
   second once either is given.  */
static void
add_cpu_quota (struct systemd_props *p, int64_t quota, uint64_t period, unsigned version)
{
  if (period && version >= 242)
    add_u64 (p, "CPUQuotaPeriodUSec", period);
  if (quota || period)
    add_u64 (p, "CPUQuotaPerSecUSec", systemd_cpu_quota_per_sec (quota, period));
}

/* Device rules.  Applied in order to an allow or deny list, as runc's devices emulator does
   (cgroups/devices/emulator.go), then said the way systemd takes them: DevicePolicy=strict and
   a DeviceAllow list.  */
struct dev_emu
{
  bool allow_all; /* the list is of denials (a blacklist) */
  bool hole;      /* a rule takes access out of a wildcard rule: not expressible */
  struct cg_dev_rule *r;
  size_t n;
};

static struct cg_dev_rule *
emu_find (struct dev_emu *e, char type, int64_t major, int64_t minor)
{
  for (size_t i = 0; i < e->n; i++)
    if (e->r[i].type == type && e->r[i].major == major && e->r[i].minor == minor)
      return &e->r[i];
  return NULL;
}

static void
emu_add (struct dev_emu *e, const struct cg_dev_rule *d)
{
  struct cg_dev_rule *have = emu_find (e, d->type, d->major, d->minor);

  if (have)
    {
      have->access |= d->access;
      return;
    }
  e->r = xrealloc (e->r, (e->n + 1) * sizeof *e->r);
  e->r[e->n++] = *d;
}

static void
emu_remove (struct dev_emu *e, const struct cg_dev_rule *d)
{
  const int64_t part[3][2] = { { -1, d->minor }, { d->major, -1 }, { -1, -1 } };
  struct cg_dev_rule *have;

  for (int k = 0; k < 3; k++)
    {
      const struct cg_dev_rule *w = emu_find (e, d->type, part[k][0], part[k][1]);
      if (w && (part[k][0] != d->major || part[k][1] != d->minor) && (w->access & d->access))
        e->hole = true;
    }
  have = emu_find (e, d->type, d->major, d->minor);
  if (have == NULL)
    return;
  have->access &= ~d->access;
  if (have->access == 0)
    *have = e->r[--e->n];
}

static void
emu_apply (struct dev_emu *e, const struct cg_dev_rule *d)
{
  if (d->type == 'a')
    {
      e->allow_all = d->allow;
      e->n = 0;
      e->hole = false;
    }
  else if (d->allow != e->allow_all)
    emu_add (e, d);
  else
    emu_remove (e, d);
}

/* One allowed rule as DeviceAllow's path, or NULL when systemd has no way to say it (a
   wildcard major with a fixed minor; a whole major before systemd 240).  */
static char *
device_path (const struct cg_dev_rule *r, unsigned version)
{
  const char *group = r->type == 'b' ? "block" : "char";

  if (r->major < 0)
    return r->minor < 0 ? xasprintf ("%s-*", group) : NULL;
  if (r->minor < 0)
    return version >= 240 ? xasprintf ("%s-%" PRId64, group, r->major) : NULL;
  return xasprintf ("/dev/%s/%" PRId64 ":%" PRId64, group, r->major, r->minor);
}

static void
add_devices (struct systemd_props *p, const struct dev_emu *e, unsigned version)
{
  struct systemd_prop *q;
  size_t k = 0;

  /* systemd has no deny list: a blacklist that allows everything is policy `auto`; any other
     blacklist (or a hole in a wildcard) is sent as "nothing", and the cgroup files (v1) or
     agentrt's device program (v2) hold the exact rules, as runc does.  */
  if (e->allow_all && e->n == 0)
    {
      add_str (p, "DevicePolicy", "auto");
      add (p, "DeviceAllow", SDP_DEVICES);
      return;
    }
  add_str (p, "DevicePolicy", "strict");
  /* An empty list first: SetUnitProperties appends to DeviceAllow, and this resets it.  */
  add (p, "DeviceAllow", SDP_DEVICES);
  if (e->allow_all || e->hole)
    {
      ar_debug ("systemd: device rules that deny within a wider allow: DeviceAllow is empty, the "
                "cgroup holds the exact rules");
      return;
    }
  q = add (p, "DeviceAllow", SDP_DEVICES);
  q->strv = xzalloc ((2 * e->n + 1) * sizeof *q->strv);
  for (size_t i = 0; i < e->n; i++)
    {
      char *path = device_path (&e->r[i], version);
      char acc[4];
      size_t a = 0;
      if (path == NULL)
        {
          ar_debug ("systemd: a device rule systemd cannot express is left to the cgroup");
          continue;
        }
      if (e->r[i].access & 2)
        acc[a++] = 'r';
      if (e->r[i].access & 4)
        acc[a++] = 'w';
      if (e->r[i].access & 1)
        acc[a++] = 'm';
      acc[a] = '\0';
      q->strv[2 * k] = path;
      q->strv[2 * k + 1] = xstrdup (acc);
      k++;
    }
  q->n = k;
}

static void
devices_props (struct systemd_props *p, const struct spec_resources *r,
               const struct spec_device *devs, size_t n_devs, unsigned version)
{
  size_t n = 0;
  cleanup_free struct cg_dev_rule *rules
      = cg_dev_rules_collect (r->devices, r->n_devices, devs, n_devs, &n);
  struct dev_emu e = { .allow_all = false };

  for (size_t i = 0; i < n; i++)
    if (rules[i].type == 'a' || rules[i].access)
      emu_apply (&e, &rules[i]);
  add_devices (p, &e, version);
  free (e.r);
}

/* A limit in bytes or "max" (infinity).  */
static bool
parse_limit (const char *v, uint64_t *out)
{
  long long n;

  if (strcmp (v, "max") == 0)
    {
      *out = SYSTEMD_INFINITY;
      return true;
    }
  if (!ar_parse_int64 (v, 0, LLONG_MAX, &n))
    return false;
  *out = (uint64_t) n;
  return true;
}

/* "max", "max PERIOD", "QUOTA", "QUOTA PERIOD" (cpu.max).  */
static bool
parse_cpu_max (const char *v, int64_t *quota, uint64_t *period)
{
  cleanup_free char *copy = xstrdup (v);
  char *sp = strchr (copy, ' ');
  long long q = -1, per = 0;

  if (sp)
    *sp++ = '\0';
  if (strcmp (copy, "max") != 0 && !ar_parse_int64 (copy, 1, LLONG_MAX, &q))
    return false;
  if (sp && !ar_parse_int64 (sp, 1, LLONG_MAX, &per))
    return false;
  *quota = q;
  *period = (uint64_t) per;
  return true;
}

static int
unified_error (ar_error_t *err, const char *key, const char *value)
{
  return ar_make_error (err, EINVAL, "config.json: linux.resources.unified: `%s`: cannot read `%s`",
                        key, value);
}

/* runc's unifiedResToSystemdProps: the keys systemd has properties for; the rest are written
   to the files only.  */
static int
unified_props (struct systemd_props *p, const struct spec_map *u, unsigned version, ar_error_t *err)
{
  static const struct
  {
    const char *key, *prop;
  } mem[] = { { "memory.high", "MemoryHigh" },        { "memory.low", "MemoryLow" },
              { "memory.min", "MemoryMin" },          { "memory.max", "MemoryMax" },
              { "memory.swap.max", "MemorySwapMax" }, { "pids.max", "TasksMax" } };

  for (size_t i = 0; i < u->n; i++)
    {
      const char *k = u->items[i].key, *v = u->items[i].value;
      uint64_t n;
      bool done = false;

      for (size_t m = 0; m < ARRAY_SIZE (mem) && !done; m++)
        if (strcmp (k, mem[m].key) == 0)
          {
            if (!parse_limit (v, &n))
              return unified_error (err, k, v);
            add_u64 (p, mem[m].prop, n);
            done = true;
          }
      if (done)
        continue;
      if (strcmp (k, "cpu.weight") == 0)
        {
          long long w;
          if (!ar_parse_int64 (v, 1, 10000, &w))
            return unified_error (err, k, v);
          add_u64 (p, "CPUWeight", (uint64_t) w);
        }
      else if (strcmp (k, "cpu.max") == 0)
        {
          int64_t quota;
          uint64_t period;
          if (!parse_cpu_max (v, &quota, &period))
            return unified_error (err, k, v);
          add_cpu_quota (p, quota, period, version);
        }
      else if ((strcmp (k, "cpuset.cpus") == 0 || strcmp (k, "cpuset.mems") == 0)
               && add_cpuset (p, k[7] == 'c' ? "AllowedCPUs" : "AllowedMemoryNodes", v, version,
                              err)
                      < 0)
        return ar_error_wrap (err, "config.json: linux.resources.unified: `%s`", k);
    }
  return 0;
}

static void
memory_props (struct systemd_props *p, const struct spec_memory *m, bool v2)
{
  int64_t limit = m->limit.set ? m->limit.v : 0;

  if (limit)
    add_u64 (p, v2 ? "MemoryMax" : "MemoryLimit", limit < 0 ? SYSTEMD_INFINITY : (uint64_t) limit);
  if (!v2)
    return;
  if (m->reservation.set && m->reservation.v)
    add_u64 (p, "MemoryLow", m->reservation.v < 0 ? SYSTEMD_INFINITY : (uint64_t) m->reservation.v);
  /* v2's swap is swap alone, the config's memory+swap (runc's
     ConvertMemorySwapToCgroupV2Value); one below the limit is the files' error to report.  */
  if ((m->swap.set && m->swap.v < 0) || (!m->swap.set && limit < 0))
    add_u64 (p, "MemorySwapMax", SYSTEMD_INFINITY);
  else if (m->swap.set && m->swap.v > 0 && limit > 0 && m->swap.v >= limit)
    add_u64 (p, "MemorySwapMax", (uint64_t) (m->swap.v - limit));
}

static int
cpu_props (struct systemd_props *p, const struct spec_cpu *c, bool v2, unsigned version,
           ar_error_t *err)
{
  uint64_t shares = c->shares.set ? c->shares.v : 0;

  if (v2 && c->idle.set && c->idle.v == 1 && version >= 252)
    add_u64 (p, "CPUWeight", 0); /* cpu.idle (systemd 252) */
  else if (shares)
    add_u64 (p, v2 ? "CPUWeight" : "CPUShares", v2 ? cg_shares_to_weight (shares) : shares);
  add_cpu_quota (p, c->quota.set ? c->quota.v : 0, c->period.set ? c->period.v : 0, version);
  if (add_cpuset (p, "AllowedCPUs", c->cpus, version, err) < 0
      || add_cpuset (p, "AllowedMemoryNodes", c->mems, version, err) < 0)
    return ar_error_wrap (err, "config.json: linux.resources.cpu");
  return 0;
}

int
systemd_props_resources (struct systemd_props *p, const struct spec_resources *r, bool devices,
                         const struct spec_device *devs, size_t n_devs, bool v2, unsigned version,
                         ar_error_t *err)
{
  if (devices)
    devices_props (p, r, devs, n_devs, version);
  if (r->has_memory)
    memory_props (p, &r->memory, v2);
  if (r->has_cpu && cpu_props (p, &r->cpu, v2, version, err) < 0)
    return -1;
  /* agentrt writes pids.max=max for a limit of 0 or less; systemd's infinity is the same.  */
  if (r->pids_limit.set)
    add_u64 (p, "TasksMax", r->pids_limit.v > 0 ? (uint64_t) r->pids_limit.v : SYSTEMD_INFINITY);
  if (!v2 && r->has_block_io && r->block_io.weight.set && r->block_io.weight.v)
    add_u64 (p, "BlockIOWeight", r->block_io.weight.v);
  return v2 ? unified_props (p, &r->unified, version, err) : 0;
}

/* Annotations: GVariant text, the part of it unit properties use.  */

static const char *
skip_blanks (const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* A quoted string at *s ('…' or "…", backslash escapes); *s moves past it.  */
static char *
parse_quoted (const char **s)
{
  char q = **s;
  const char *c = *s + 1;
  char *out = xmalloc (strlen (c) + 1), *o = out;

  for (; *c && *c != q; c++)
    {
      if (*c == '\\' && c[1])
        c++;
      *o++ = *c;
    }
  if (*c != q)
    {
      free (out);
      return NULL;
    }
  *o = '\0';
  *s = c + 1;
  return out;
}

/* ['a', "b"] (or [] ) into q (as).  */
static bool
parse_strv (const char *s, struct systemd_prop *q)
{
  q->strv = xzalloc (sizeof *q->strv);
  s = skip_blanks (s + 1);
  while (*s != ']')
    {
      char *item;
      if (*s != '\'' && *s != '"')
        return false;
      item = parse_quoted (&s);
      if (item == NULL)
        return false;
      q->strv = xrealloc (q->strv, (q->n + 2) * sizeof *q->strv);
      q->strv[q->n++] = item;
      q->strv[q->n] = NULL;
      s = skip_blanks (s);
      if (*s == ',')
        s = skip_blanks (s + 1);
      else if (*s != ']')
        return false;
    }
  return *skip_blanks (s + 1) == '\0';
}

static const struct
{
  const char *word, *sig;
  enum systemd_prop_type type;
} typed[] = {
  { "boolean", "b", SDP_BOOL }, { "uint64", "t", SDP_U64 }, { "int64", "x", SDP_I64 },
  { "uint32", "u", SDP_U32 },   { "int32", "i", SDP_I32 },  { "double", "d", SDP_DOUBLE },
  { "string", "s", SDP_STR },   { "@as", "as", SDP_STRV },
};

/* A number of type t (or, t < 0, int32 / double as GVariant infers them).  */
static bool
parse_number (const char *s, int t, struct systemd_prop *q)
{
  char *end;
  bool real = strpbrk (s, ".eE") != NULL && strncmp (s, "0x", 2) != 0;

  errno = 0;
  if (t == SDP_DOUBLE || (t < 0 && real))
    {
      q->type = SDP_DOUBLE;
      q->d = strtod (s, &end);
      return errno == 0 && end != s && *skip_blanks (end) == '\0' && isfinite (q->d);
    }
  q->type = t < 0 ? SDP_I32 : (enum systemd_prop_type) t;
  if (q->type == SDP_U64 || q->type == SDP_U32)
    {
      unsigned long long v = strtoull (s, &end, 0);
      q->u = v;
      return errno == 0 && end != s && *skip_blanks (end) == '\0' && *s != '-'
             && (q->type == SDP_U64 || v <= UINT32_MAX);
    }
  long long v = strtoll (s, &end, 0);
  q->u = (uint64_t) v;
  return errno == 0 && end != s && *skip_blanks (end) == '\0'
         && (q->type == SDP_I64 || (v >= INT32_MIN && v <= INT32_MAX));
}

static bool
parse_gvariant (const char *v, struct systemd_prop *q)
{
  const char *s = skip_blanks (v);
  int t = -1;

  for (size_t i = 0; i < ARRAY_SIZE (typed); i++)
    {
      size_t wl = strlen (typed[i].word);
      cleanup_free char *at = xasprintf ("@%s", typed[i].sig);
      size_t al = strlen (at);
      if (strncmp (s, typed[i].word, wl) == 0 && (s[wl] == ' ' || s[wl] == '['))
        s = skip_blanks (s + wl), t = (int) typed[i].type;
      else if (strncmp (s, at, al) == 0 && (s[al] == ' ' || s[al] == '['))
        s = skip_blanks (s + al), t = (int) typed[i].type;
      else
        continue;
      break;
    }
  if ((t < 0 || t == SDP_BOOL) && (strcmp (s, "true") == 0 || strcmp (s, "false") == 0))
    {
      q->type = SDP_BOOL;
      q->u = s[0] == 't';
      return true;
    }
  if ((t < 0 || t == SDP_STR) && (*s == '\'' || *s == '"'))
    {
      q->type = SDP_STR;
      q->s = parse_quoted (&s);
      return q->s && *skip_blanks (s) == '\0';
    }
  if ((t < 0 || t == SDP_STRV) && *s == '[')
    {
      q->type = SDP_STRV;
      return parse_strv (s, q);
    }
  if (t == SDP_BOOL || t == SDP_STR || t == SDP_STRV)
    return false;
  return parse_number (s, t, q);
}

/* runc's convertSecToUSec: a number of seconds as uint64 microseconds.  */
static bool
sec_to_usec (struct systemd_prop *q)
{
  switch (q->type)
    {
    case SDP_DOUBLE:
      if (q->d < 0 || q->d * 1e6 >= 18446744073709551615.0)
        return false;
      q->u = (uint64_t) (q->d * 1e6);
      break;
    case SDP_I32:
    case SDP_I64:
      if ((int64_t) q->u < 0 || q->u > UINT64_MAX / 1000000)
        return false;
      q->u *= 1000000;
      break;
    case SDP_U32:
    case SDP_U64:
      if (q->u > UINT64_MAX / 1000000)
        return false;
      q->u *= 1000000;
      break;
    default:
      return false;
    }
  q->type = SDP_U64;
  return true;
}

static int
annotation_prop (struct systemd_props *p, const char *key, const char *value, ar_error_t *err)
{
  const char *name = key + strlen (SYSTEMD_PROPERTY_PREFIX);
  size_t len = strlen (name);
  struct systemd_prop q = { .n = 0 };
  cleanup_free char *real = NULL;
  bool ok;

  for (size_t i = 0; i < len; i++)
    if (!isalpha ((unsigned char) name[i]))
      len = 0;
  if (len < 3)
    return ar_make_error (err, EINVAL,
                          "config.json: annotation %s: a property name is letters only", key);
  ok = parse_gvariant (value, &q);
  /* TimeoutStopSec=5 → TimeoutStopUSec=5000000, as runc converts it.  */
  if (ok && len > 3 && strcmp (name + len - 3, "Sec") == 0
      && islower ((unsigned char) name[len - 4]))
    {
      real = xasprintf ("%.*sUSec", (int) (len - 3), name);
      ok = sec_to_usec (&q);
    }
  if (!ok)
    {
      free (q.s);
      ar_strv_free (q.strv);
      return ar_make_error (err, EINVAL,
                            "config.json: annotation %s: `%s` is not a value agentrt reads "
                            "(GVariant text: true, 'text', ['a', 'b'], 5, uint64 5, 1.5)",
                            key, value);
    }
  q.name = xstrdup (real ? real : name);
  p->v = xrealloc (p->v, (p->n + 1) * sizeof *p->v);
  p->v[p->n++] = q;
  return 0;
}

int
systemd_props_annotations (struct systemd_props *p, const struct spec_map *a, ar_error_t *err)
{
  for (size_t i = 0; i < a->n; i++)
    if (ar_str_has_prefix (a->items[i].key, SYSTEMD_PROPERTY_PREFIX)
        && annotation_prop (p, a->items[i].key, a->items[i].value, err) < 0)
      return -1;
  return 0;
}

/* Text.  */

static char *
append (char *s, const char *more)
{
  char *out = xasprintf ("%s%s", s, more);
  free (s);
  return out;
}

static char *
prop_value (const struct systemd_prop *q)
{
  char *v = NULL;

  switch (q->type)
    {
    case SDP_BOOL:
      return xstrdup (q->u ? "true" : "false");
    case SDP_U64:
      return q->u == SYSTEMD_INFINITY ? xstrdup ("infinity") : xasprintf ("%" PRIu64, q->u);
    case SDP_U32:
      return xasprintf ("%" PRIu64, q->u);
    case SDP_I64:
    case SDP_I32:
      return xasprintf ("%" PRId64, (int64_t) q->u);
    case SDP_DOUBLE:
      return xasprintf ("%g", q->d);
    case SDP_STR:
      return xasprintf ("'%s'", q->s);
    case SDP_STRV:
    case SDP_PIDS:
    case SDP_BYTES:
    case SDP_DEVICES:
      v = xstrdup ("[");
      for (size_t i = 0; i < q->n; i++)
        {
          cleanup_free char *one
              = q->type == SDP_STRV   ? xasprintf ("'%s'", q->strv[i])
                : q->type == SDP_PIDS ? xasprintf ("%" PRIu32, q->pids[i])
                : q->type == SDP_BYTES
                    ? xasprintf ("0x%02x", q->bytes[i])
                    : xasprintf ("('%s', '%s')", q->strv[2 * i], q->strv[2 * i + 1]);
          v = append (v, i ? ", " : "");
          v = append (v, one);
        }
      return append (v, "]");
    }
  return xstrdup ("?");
}

char *
systemd_props_text (const struct systemd_props *p)
{
  char *s = xstrdup ("");

  for (size_t i = 0; i < p->n; i++)
    {
      cleanup_free char *v = prop_value (&p->v[i]);
      cleanup_free char *line = xasprintf ("%s=%s\n", p->v[i].name, v);
      s = append (s, line);
    }
  return s;
}
