/* The container's cgroup directories: layout, paths, creation, membership, signals, freezing
   and removal.  The limits are written by resources.c.  */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "cgroups/cgroup_internal.h"
#include "cgroups/sdbus.h"
#include "cgroups/systemd.h"
#include "log.h"
#include "init/mounts.h"
#include "utils.h"

const char *
cgroup_layout_name (enum cgroup_layout l)
{
  return l == CGROUP_V2 ? "v2" : l == CGROUP_HYBRID ? "hybrid" : "v1";
}

void
cgroup_release (struct cgroup *cg)
{
  ar_strv_free (cg->dirs);
  free (cg->unified);
  free (cg->memory);
  free (cg->freezer);
  free (cg->cpu);
  free (cg->cpuacct);
  free (cg->pids);
  free (cg->cpuset);
  free (cg->unit);
  free (cg->slice);
  free (cg->by_systemd);
  sdbus_close (cg->bus);
  if (cg->extra)
    systemd_props_release (cg->extra);
  free (cg->extra);
  memset (cg, 0, sizeof *cg);
}

void
cg_hiers_release (struct cg_hiers *hs)
{
  for (size_t i = 0; i < hs->n; i++)
    {
      free (hs->h[i].mount);
      free (hs->h[i].controllers);
    }
  hs->n = 0;
}

/* The controllers of a v1 mount, from its super options ("rw,cpu,cpuacct"); named
   hierarchies (name=systemd) control nothing and are left alone.  */
static char *
v1_controllers (const char *super)
{
  cleanup_free char *copy = xstrdup (super);
  char *save = NULL, *out = xstrdup ("");

  for (char *o = strtok_r (copy, ",", &save); o; o = strtok_r (NULL, ",", &save))
    {
      char *next;
      if (strcmp (o, "rw") == 0 || strcmp (o, "ro") == 0 || strchr (o, '=')
          || strcmp (o, "clone_children") == 0 || strcmp (o, "noprefix") == 0
          || strcmp (o, "xattr") == 0 || strcmp (o, "cpuset_v2_mode") == 0)
        continue;
      next = xasprintf ("%s%s%s", out, *out ? "," : "", o);
      free (out);
      out = next;
    }
  return out;
}

static int
collect_hier (const struct mounts_info *mi, void *data, ar_error_t *err)
{
  struct cg_hiers *hs = data;
  bool v2 = strcmp (mi->fstype, "cgroup2") == 0;
  char *ctl;

  (void) err;
  if (!v2 && strcmp (mi->fstype, "cgroup") != 0)
    return 0;
  /* Only the host's view: a hierarchy mounted from a sub-cgroup is someone's bind.  */
  if (strcmp (mi->root, "/") != 0 || hs->n == CG_MAX)
    return 0;
  ctl = v2 ? xstrdup ("") : v1_controllers (mi->super_options);
  if (!v2 && *ctl == '\0')
    {
      free (ctl);
      return 0;
    }
  for (size_t i = 0; i < hs->n; i++)
    if (strcmp (hs->h[i].mount, mi->mount_point) == 0)
      {
        free (ctl);
        return 0;
      }
  hs->h[hs->n].mount = xstrdup (mi->mount_point);
  hs->h[hs->n].controllers = ctl;
  hs->h[hs->n].v2 = v2;
  hs->n++;
  return 0;
}

int
cg_read_hiers (struct cg_hiers *hs, enum cgroup_layout *layout, ar_error_t *err)
{
  bool v1 = false, v2 = false;

  if (mounts_foreach_info (collect_hier, hs, err) < 0)
    return -1;
  for (size_t i = 0; i < hs->n; i++)
    {
      if (hs->h[i].v2)
        v2 = true;
      else
        v1 = true;
    }
  if (!v1 && !v2)
    return ar_make_error (err, ENOENT, "cgroups: no cgroup hierarchy is mounted");
  *layout = v1 ? (v2 ? CGROUP_HYBRID : CGROUP_V1) : CGROUP_V2;
  return 0;
}

/* The cgroup of process `pid` (0: the runtime) in hierarchy h, from /proc/PID/cgroup; "/"
   when it cannot be read.  */
char *
cg_proc_path (pid_t pid, const struct cg_hier *h)
{
  cleanup_free char *text = NULL;
  char *save = NULL;
  char file[64];

  if (pid > 0)
    snprintf (file, sizeof file, "/proc/%d/cgroup", (int) pid);
  else
    snprintf (file, sizeof file, "/proc/self/cgroup");
  if (ar_read_file (file, 65536, &text, NULL, NULL) < 0)
    return xstrdup ("/");
  for (char *l = strtok_r (text, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
    {
      char *c1 = strchr (l, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL)
        continue;
      *c2 = '\0';
      if (h->v2 ? (strncmp (l, "0:", 2) == 0 && c1[1] == '\0')
                : strcmp (c1 + 1, h->controllers) == 0)
        return xstrdup (c2 + 1);
    }
  return xstrdup ("/");
}

bool
cg_has_controller (const char *list, const char *name)
{
  size_t n = strlen (name);
  for (const char *p = list; (p = strstr (p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
      return true;
  return false;
}

static int
check_path (const char *p, ar_error_t *err)
{
  cleanup_free char *clean = mounts_clean_path (p);
  /* ".." would climb out of the hierarchy's root or the runtime's cgroup; a newline would
     split the path's record in the container's journal (state/journal.h).  */
  if (strstr (p, "..") || strchr (p, '\n') || strcmp (clean, "/") == 0)
    return ar_make_error (err, EINVAL, "config.json: linux.cgroupsPath: `%s` is not a cgroup path",
                          p);
  return 0;
}

/* The v1 directory slots of `cg` that hierarchy h fills with `dir`.  */
static void
fill_slots (struct cgroup *cg, const struct cg_hier *h, const char *dir)
{
  char **slot[6] = { &cg->memory, &cg->freezer, &cg->cpu, &cg->cpuacct, &cg->pids, &cg->cpuset };
  static const char *const names[6] = { "memory", "freezer", "cpu", "cpuacct", "pids", "cpuset" };

  if (h->v2)
    {
      if (cg->unified == NULL)
        cg->unified = xstrdup (dir);
      return;
    }
  for (int k = 0; k < 6; k++)
    if (*slot[k] == NULL && cg_has_controller (h->controllers, names[k]))
      *slot[k] = xstrdup (dir);
}

/* Where systemd puts a unit's processes: the cgroup2 hierarchy, and the v1 ones of the
   controllers it manages there (the others it leaves at the root).  */
static bool
systemd_places (const struct cg_hier *h)
{
  static const char *const managed[] = { "cpu", "cpuacct", "blkio", "memory", "devices", "pids" };

  if (h->v2)
    return true;
  for (size_t k = 0; k < ARRAY_SIZE (managed); k++)
    if (cg_has_controller (h->controllers, managed[k]))
      return true;
  return false;
}

/* --systemd-cgroup: the unit of `slice:prefix:name`, at the same path in every hierarchy, from
   its root (systemd's layout, whatever the runtime's own cgroup).  */
static int
resolve_systemd (const struct spec *s, const char *id, struct cgroup *cg, ar_error_t *err)
{
  struct cg_hiers hs = { .n = 0 };
  struct systemd_unit u;

  if (geteuid () != 0)
    return ar_make_error (err, EPERM,
                          "--systemd-cgroup: only for root (systemd's user instances are not "
                          "supported)");
  if (systemd_unit_parse (s->linux_.cgroups_path, id, &u, err) < 0)
    return -1;
  if (cg_read_hiers (&hs, &cg->layout, err) < 0)
    {
      systemd_unit_release (&u);
      return -1;
    }
  cg->dirs = xzalloc ((hs.n + 1) * sizeof *cg->dirs);
  cg->by_systemd = xzalloc ((hs.n + 1) * sizeof *cg->by_systemd);
  for (size_t i = 0; i < hs.n; i++)
    {
      cleanup_free char *joined = xasprintf ("%s/%s", hs.h[i].mount, u.path);
      cg->dirs[cg->n] = mounts_clean_path (joined);
      cg->by_systemd[cg->n] = systemd_places (&hs.h[i]);
      fill_slots (cg, &hs.h[i], cg->dirs[cg->n]);
      cg->n++;
    }
  cg->unit = steal_ptr (&u.name);
  cg->slice = steal_ptr (&u.slice);
  systemd_unit_release (&u);
  cg_hiers_release (&hs);
  return 0;
}

int
cgroup_resolve (const struct spec *s, const char *id, bool systemd, struct cgroup *cg,
                ar_error_t *err)
{
  struct cg_hiers hs = { .n = 0 };
  const char *cp = s->linux_.cgroups_path;
  cleanup_free char *rel = NULL;

  memset (cg, 0, sizeof *cg);
  if (systemd)
    return resolve_systemd (s, id, cg, err);
  if (cp && *cp && check_path (cp, err) < 0)
    return -1;
  rel = cp && *cp ? NULL : xasprintf ("agentrt/%s", id);
  if (cg_read_hiers (&hs, &cg->layout, err) < 0)
    return -1;
  cg->dirs = xzalloc ((hs.n + 1) * sizeof *cg->dirs);
  for (size_t i = 0; i < hs.n; i++)
    {
      const struct cg_hier *h = &hs.h[i];
      cleanup_free char *base = (cp && cp[0] == '/') ? xstrdup ("") : cg_proc_path (0, h);
      cleanup_free char *joined = xasprintf ("%s/%s/%s", h->mount, base, rel ? rel : cp);

      cg->dirs[cg->n] = mounts_clean_path (joined);
      fill_slots (cg, h, cg->dirs[cg->n]);
      cg->n++;
    }
  cg_hiers_release (&hs);
  return 0;
}

int
cgroup_from_dirs (char *const *dirs, const char *unit, struct cgroup *cg, ar_error_t *err)
{
  struct cg_hiers hs = { .n = 0 };

  memset (cg, 0, sizeof *cg);
  if (cg_read_hiers (&hs, &cg->layout, err) < 0)
    return -1;
  cg->dirs = xzalloc ((ar_strv_len (dirs) + 1) * sizeof *cg->dirs);
  for (size_t d = 0; dirs[d]; d++)
    {
      cg->dirs[cg->n++] = xstrdup (dirs[d]);
      for (size_t i = 0; i < hs.n; i++)
        {
          size_t ml = strlen (hs.h[i].mount);
          if (strncmp (dirs[d], hs.h[i].mount, ml) == 0 && dirs[d][ml] == '/')
            fill_slots (cg, &hs.h[i], dirs[d]);
        }
    }
  cg->unit = unit ? xstrdup (unit) : NULL;
  cg_hiers_release (&hs);
  return 0;
}

/* mkdir -p, the container's own directory last and exclusively; new v1 cpuset parents get
   their parent's CPUs and memory nodes, without which no task may join.  */
static int
make_parents (char *p, bool v2, ar_error_t *err)
{
  for (char *s = strchr (p + 1, '/'); s; s = strchr (s + 1, '/'))
    {
      *s = '\0';
      if (mkdir (p, 0755) < 0 && errno != EEXIST)
        return ar_make_error (err, errno, "create cgroup `%s`", p);
      /* Also when it exists: a create beside us may have made it a moment ago and not yet
         given it CPUs and memory nodes (a child of an empty cpuset cannot be joined).  */
      cg_cpuset_inherit (p);
      if (v2)
        cg_v2_delegate (p);
      *s = '/';
    }
  return 0;
}

int
cg_make_dir (const char *dir, bool v2, ar_error_t *err)
{
  cleanup_free char *p = xstrdup (dir);
  int r;

  /* A delete may remove the shared agentrt/ parent between our two mkdirs (cgroup_destroy):
     then the parents are made again.  */
  for (int tries = 0;; tries++)
    {
      if (make_parents (p, v2, err) < 0)
        return -1;
      r = mkdir (p, 0755);
      if (r == 0 || errno != ENOENT || tries == 3)
        break;
    }
  if (r < 0)
    return ar_make_error (err, errno, "create cgroup `%s`%s", p,
                          errno == EEXIST ? ": it exists (another container's?)" : "");
  cg_cpuset_inherit (p);
  return 0;
}

int
cgroup_check_free (const struct cgroup *cg, ar_error_t *err)
{
  struct stat st;

  for (size_t i = 0; i < cg->n; i++)
    if (stat (cg->dirs[i], &st) == 0)
      return ar_make_error (err, EEXIST, "create cgroup `%s`: it exists (another container's?)",
                            cg->dirs[i]);
  return 0;
}

/* Does agentrt make dirs[i] (with the systemd driver, only where systemd does not)?  */
static bool
own_dir (const struct cgroup *cg, size_t i)
{
  return cg->unit == NULL || cg->by_systemd == NULL || !cg->by_systemd[i];
}

enum cgroup_relation
cgroup_relation (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b);

  if (strcmp (a, b) == 0)
    return CGROUP_SAME;
  if (la > lb && strncmp (a, b, lb) == 0 && a[lb] == '/')
    return CGROUP_INSIDE;
  if (lb > la && strncmp (a, b, la) == 0 && b[la] == '/')
    return CGROUP_ABOVE;
  return CGROUP_APART;
}

/* Does DIR list a process in cgroup.procs?  One byte is enough to know; a directory that does
   not exist (yet) holds none.  */
static bool
holds_processes (const char *dir)
{
  cleanup_free char *path = xasprintf ("%s/cgroup.procs", dir);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  char c;

  return fd >= 0 && read (fd, &c, 1) == 1;
}

/* The parents of dir (below its hierarchy's root, above dir) that are neither the runtime's
   own cgroup nor above it, which the runtime lives in whatever the config says.  */
static int
check_parents_of (const char *dir, const struct cg_hiers *hs, ar_error_t *err)
{
  cleanup_free char *p = xstrdup (dir);

  for (size_t i = 0; i < hs->n; i++)
    {
      size_t ml = strlen (hs->h[i].mount);
      cleanup_free char *own = NULL, *own_dir = NULL;
      if (strncmp (dir, hs->h[i].mount, ml) != 0 || dir[ml] != '/')
        continue;
      own = cg_proc_path (0, &hs->h[i]);
      own_dir = xasprintf ("%s/%s", hs->h[i].mount, own);
      free (own);
      own = mounts_clean_path (own_dir);
      for (char *s = strchr (p + ml + 1, '/'); s; s = strchr (s + 1, '/'))
        {
          enum cgroup_relation rel;
          *s = '\0';
          rel = cgroup_relation (p, own);
          if (rel != CGROUP_SAME && rel != CGROUP_ABOVE && holds_processes (p))
            return ar_make_error (err, 0,
                                  "create cgroup `%s`: its parent `%s` holds processes (another "
                                  "container's cgroup?); a container's cgroup must not nest in "
                                  "one in use",
                                  dir, p);
          *s = '/';
        }
      return 0;
    }
  return 0;
}

int
cgroup_check_parents (const struct cgroup *cg, ar_error_t *err)
{
  struct cg_hiers hs = { .n = 0 };
  enum cgroup_layout layout;
  int r = 0;

  if (cg_read_hiers (&hs, &layout, err) < 0)
    return -1;
  for (size_t i = 0; r == 0 && i < cg->n; i++)
    r = check_parents_of (cg->dirs[i], &hs, err);
  cg_hiers_release (&hs);
  return r;
}

int
cgroup_create (const struct cgroup *cg, const struct spec_resources *r, ar_error_t *err)
{
  size_t made = 0;

  for (; made < cg->n; made++)
    if (own_dir (cg, made) && cg_make_dir (cg->dirs[made], cg->layout == CGROUP_V2, err) < 0)
      break;
  if (made == cg->n && (cg->unit || cgroup_apply (cg, r, err) == 0))
    return 0;
  for (size_t i = 0; i < made; i++)
    if (own_dir (cg, i))
      (void) rmdir (cg->dirs[i]);
  return -1;
}

/* The calling thread into each v1 hierarchy of `cg` (its cgroup2 directory, if any, is not
   touched): `0` into `tasks` moves the thread that writes it, and the kernel takes no global
   lock for that, where a pid in cgroup.procs takes cgroup_threadgroup_rwsem for writing and
   so waits for an RCU grace period (5-15 ms on this kind of VM, every time).  The runtime is
   single-threaded: its thread is the process.  */
int
cg_enter_v1 (const struct cgroup *cg, bool own_only, ar_error_t *err)
{
  for (size_t i = 0; i < cg->n; i++)
    if ((cg->unified == NULL || strcmp (cg->dirs[i], cg->unified) != 0)
        && (!own_only || own_dir (cg, i)) && cg_write (cg->dirs[i], "tasks", "0", 1, err) < 0)
      return -1;
  return 0;
}

int
cgroup_self_save (struct cgroup *saved, ar_error_t *err)
{
  struct cg_hiers hs = { .n = 0 };

  memset (saved, 0, sizeof *saved);
  if (cg_read_hiers (&hs, &saved->layout, err) < 0)
    return -1;
  saved->dirs = xzalloc ((hs.n + 1) * sizeof *saved->dirs);
  for (size_t i = 0; i < hs.n; i++)
    {
      cleanup_free char *own = cg_proc_path (0, &hs.h[i]);
      cleanup_free char *joined = xasprintf ("%s/%s", hs.h[i].mount, own);
      saved->dirs[saved->n] = mounts_clean_path (joined);
      if (hs.h[i].v2)
        saved->unified = xstrdup (saved->dirs[saved->n]);
      saved->n++;
    }
  cg_hiers_release (&hs);
  return 0;
}

int
cgroup_run_inside (const struct cgroup *cg, int (*fn) (void *data, int into_fd, ar_error_t *err),
                   void *data, ar_error_t *err)
{
  struct cgroup self;
  ar_error_t back = NULL;
  int into = -1, r = -1;

  if (cgroup_self_save (&self, err) < 0)
    return -1;
  if (cg->unified)
    {
      into = open (cg->unified, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (into < 0)
        r = ar_make_error (err, errno, "cgroups: open `%s`", cg->unified);
    }
  if ((cg->unified == NULL || into >= 0) && cg_enter_v1 (cg, false, err) == 0)
    r = fn (data, into, err);
  if (cg_enter_v1 (&self, false, &back) < 0)
    ar_log_error_release (&back);
  if (into >= 0)
    close (into);
  cgroup_release (&self);
  return r;
}

int
cgroup_run_unplaced (const struct cgroup *cg, int (*fn) (void *data, int into_fd, ar_error_t *err),
                     void *data, ar_error_t *err)
{
  struct cgroup self;
  ar_error_t back = NULL;
  int r = -1;

  if (cgroup_self_save (&self, err) < 0)
    return -1;
  if (cg_enter_v1 (cg, true, err) == 0)
    r = fn (data, -1, err);
  if (cg_enter_v1 (&self, false, &back) < 0)
    ar_log_error_release (&back);
  cgroup_release (&self);
  return r;
}

static bool
same_dir (const char *a, const char *b)
{
  return a && b && strcmp (a, b) == 0;
}

/* The caller's own directory in the hierarchy that holds `dir`, or NULL.  */
static char *
own_dir_of (const char *dir)
{
  struct cg_hiers hs = { .n = 0 };
  enum cgroup_layout layout;
  char *out = NULL;

  if (cg_read_hiers (&hs, &layout, NULL) < 0)
    return NULL;
  for (size_t i = 0; out == NULL && i < hs.n; i++)
    {
      size_t ml = strlen (hs.h[i].mount);
      if (strncmp (dir, hs.h[i].mount, ml) == 0 && (dir[ml] == '/' || dir[ml] == '\0'))
        {
          cleanup_free char *own = cg_proc_path (0, &hs.h[i]);
          cleanup_free char *joined = xasprintf ("%s/%s", hs.h[i].mount, own);
          out = mounts_clean_path (joined);
        }
    }
  cg_hiers_release (&hs);
  return out;
}

/* v1: the directories of cpu and cpuacct whose hierarchy holds none of freezer, pids, memory
   and devices (cgroup.h: cgroup_run_accounted says why), each once.  */
static size_t
accounting_dirs_v1 (const struct cgroup *cg, const char *out[2])
{
  const char *devices = cg_dir_with (cg, "devices.allow");
  const char *cand[2] = { cg->cpu, cg->cpuacct };
  size_t n = 0;

  for (int i = 0; i < 2; i++)
    if (cand[i] && !same_dir (cand[i], cg->freezer) && !same_dir (cand[i], cg->pids)
        && !same_dir (cand[i], cg->memory) && !same_dir (cand[i], devices)
        && !(n == 1 && same_dir (cand[i], out[0])))
      out[n++] = cand[i];
  return n;
}

static int
run_accounted_v1 (const struct cgroup *cg, int (*fn) (void *data, int into_fd, ar_error_t *err),
                  void *data, ar_error_t *err)
{
  const char *dirs[2];
  char *back[2] = { NULL, NULL };
  size_t n = accounting_dirs_v1 (cg, dirs);
  ar_error_t berr = NULL;
  int r = 0;

  for (size_t i = 0; r == 0 && i < n; i++)
    {
      back[i] = own_dir_of (dirs[i]);
      if (back[i] == NULL)
        r = ar_make_error (err, ENOENT, "cgroups: the runtime's own cgroup beside `%s`", dirs[i]);
      else
        r = cg_write (dirs[i], "tasks", "0", 1, err);
    }
  if (r == 0)
    r = fn (data, -1, err);
  for (size_t i = 0; i < n; i++)
    {
      if (back[i] && cg_write (back[i], "tasks", "0", 1, &berr) < 0)
        ar_log_error_release (&berr);
      free (back[i]);
    }
  return r;
}

int
cgroup_run_accounted (const struct cgroup *cg, int (*fn) (void *data, int into_fd, ar_error_t *err),
                      void *data, ar_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_close int fd = -1;

  if (cg->layout != CGROUP_V2)
    return run_accounted_v1 (cg, fn, data, err);
  dir = xasprintf ("%s/" CGROUP_SUPERVISOR_DIR, cg->unified);
  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    return ar_make_error (err, errno, "create cgroup `%s`", dir);
  fd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "cgroups: open `%s`", dir);
  return fn (data, fd, err);
}

int
cgroup_supervisor_park (const struct cgroup *cg, const pid_t *pids, size_t n, bool park,
                        ar_error_t *err)
{
  cleanup_free char *to = NULL;

  if (cg->layout != CGROUP_V2 || n == 0)
    return 0;
  to = park ? own_dir_of (cg->unified) : xasprintf ("%s/" CGROUP_SUPERVISOR_DIR, cg->unified);
  if (to == NULL)
    return ar_make_error (err, ENOENT, "cgroups: the runtime's own cgroup2 directory");
  for (size_t i = 0; i < n; i++)
    {
      char buf[16];
      int len = snprintf (buf, sizeof buf, "%d", (int) pids[i]);
      ar_error_t e = NULL;
      if (cg_write (to, "cgroup.procs", buf, (size_t) len, &e) == 0)
        continue;
      if (e->status != ESRCH)
        {
          *err = e;
          return ar_error_wrap (err, "move the supervisor");
        }
      ar_error_release (&e);
    }
  return 0;
}

static const char *
procs_dir (const struct cgroup *cg)
{
  return cg->unified && cg->layout == CGROUP_V2 ? cg->unified
         : cg->pids                             ? cg->pids
         : cg->memory                           ? cg->memory
                                                : (cg->n ? cg->dirs[0] : NULL);
}

/* The pids in DIR/cgroup.procs, appended to *pids (*n of them so far).  */
static int
read_procs (const char *dir, pid_t **pids, size_t *n, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *text = NULL;
  char *save = NULL;

  if (ar_read_file (path, 0, &text, NULL, err) < 0)
    return -1;
  for (char *l = strtok_r (text, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
    {
      long long v;
      if (!ar_parse_int64 (l, 1, INT_MAX, &v))
        continue;
      *pids = xrealloc (*pids, (*n + 1) * sizeof **pids);
      (*pids)[(*n)++] = (pid_t) v;
    }
  return 0;
}

/* Append the pids of DIR/cgroup.procs, then those of its subdirectories (not the
   supervisor's), at most 16 levels down.  A directory that goes meanwhile is skipped.  */
static void
collect_pids (int dirfd, int depth, pid_t **pids, size_t *n, size_t *cap)
{
  cleanup_close int procs = openat (dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
  cleanup_free char *text = NULL;
  char *save = NULL;
  DIR *d;
  struct dirent *de;

  if (procs >= 0 && ar_read_fd (procs, "cgroup.procs", 0, &text, NULL, NULL) == 0)
    for (char *l = strtok_r (text, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
      {
        long long v;
        if (!ar_parse_int64 (l, 1, INT_MAX, &v))
          continue;
        if (*n == *cap)
          *pids = xrealloc (*pids, (*cap = *cap ? *cap * 2 : 16) * sizeof **pids);
        (*pids)[(*n)++] = (pid_t) v;
      }
  if (depth >= 16)
    return;
  d = fdopendir (dup (dirfd));
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      int sub;
      if (de->d_type != DT_DIR || de->d_name[0] == '.'
          || strcmp (de->d_name, CGROUP_SUPERVISOR_DIR) == 0)
        continue;
      sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (sub < 0)
        continue;
      collect_pids (sub, depth + 1, pids, n, cap);
      close (sub);
    }
  closedir (d);
}

int
cgroup_pids_all (const struct cgroup *cg, pid_t **pids, size_t *n, ar_error_t *err)
{
  const char *dir = procs_dir (cg);
  cleanup_close int fd = dir ? open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  size_t cap = 0;

  *pids = NULL;
  *n = 0;
  /* Gone: no process is left in it (systemd removes a scope once it is empty).  */
  if (dir == NULL || (fd < 0 && errno == ENOENT))
    return 0;
  if (fd < 0)
    return ar_make_error (err, errno, "cgroups: open `%s`", dir);
  collect_pids (fd, 0, pids, n, &cap);
  return 0;
}

int
cgroup_pids (const struct cgroup *cg, pid_t **pids, size_t *n, ar_error_t *err)
{
  const char *dir = procs_dir (cg);

  *pids = NULL;
  *n = 0;
  return dir ? read_procs (dir, pids, n, err) : 0;
}

int
cgroup_freeze (const struct cgroup *cg, bool freeze, ar_error_t *err)
{
  if (cg->layout == CGROUP_V2)
    return cg_write (cg->unified, "cgroup.freeze", freeze ? "1" : "0", 1, err);
  if (cg->freezer == NULL)
    return ar_make_error (err, ENOENT, "cgroups: the freezer controller is not mounted");
  return cg_v1_freeze (cg->freezer, freeze, err);
}

/* The processes of every directory that is left, when the one cgroup_pids reads has gone
   (removed by hand, or by a delete that was killed part-way): a process moved out of one
   hierarchy is still in the others.  None left: nothing to signal.  */
static int
list_each_dir (const struct cgroup *cg, pid_t **pids, size_t *n, ar_error_t *err)
{
  for (size_t i = 0; i < cg->n; i++)
    {
      ar_error_t e = NULL;
      if (read_procs (cg->dirs[i], pids, n, &e) == 0)
        continue;
      if (e->status != ENOENT)
        {
          *err = e;
          return -1;
        }
      ar_error_release (&e);
    }
  return 0;
}

static int
signal_listed (const struct cgroup *cg, int sig, ar_error_t *err)
{
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  ar_error_t e = NULL;

  if (cgroup_pids (cg, &pids, &n, &e) < 0)
    {
      if (e->status != ENOENT)
        {
          *err = e;
          return -1;
        }
      ar_error_release (&e);
      if (list_each_dir (cg, &pids, &n, err) < 0)
        return -1;
    }
  for (size_t i = 0; i < n; i++)
    (void) kill (pids[i], sig);
  return 0;
}

int
cgroup_signal_all (const struct cgroup *cg, int sig, ar_error_t *err)
{
  bool frozen = false;
  int r;

  if (sig == SIGKILL && cg->layout == CGROUP_V2
      && cg_write (cg->unified, "cgroup.kill", "1", 1, NULL) == 0)
    return 0;
  /* v2 before cgroup.kill (Linux 5.14): no freeze, which would also stop the supervisor in its
     child cgroup, and it may be the one killing; the listing is repeated until nothing is left
     (forks are bounded by pids.max).  */
  if (sig == SIGKILL && cg->layout == CGROUP_V2)
    {
      for (int pass = 0; pass < 20; pass++)
        {
          cleanup_free pid_t *pids = NULL;
          size_t n = 0;
          if (cgroup_pids_all (cg, &pids, &n, err) < 0)
            return -1;
          if (n == 0)
            break;
          for (size_t i = 0; i < n; i++)
            (void) kill (pids[i], SIGKILL);
          (void) poll (NULL, 0, 5);
        }
      return 0;
    }
  /* Frozen, nothing can fork between the listing and the kill; SIGKILL is delivered once the
     tasks thaw.  */
  if (sig == SIGKILL && cgroup_freeze (cg, true, NULL) == 0)
    frozen = true;
  r = signal_listed (cg, sig, err);
  if (frozen)
    (void) cgroup_freeze (cg, false, NULL);
  return r;
}

/* The agentrt/ directory the default path puts containers in goes with the last of them (it
   fails harmlessly while others are there).  */
static void
remove_default_parent (const char *dir)
{
  cleanup_free char *parent = xstrdup (dir);
  char *slash = strrchr (parent, '/');

  if (slash == NULL)
    return;
  *slash = '\0';
  slash = strrchr (parent, '/');
  if (slash && strcmp (slash + 1, "agentrt") == 0)
    (void) rmdir (parent);
}

/* rmdir, retried while the last tasks are being reaped (EBUSY); a directory already gone is
   no error.  */
static int
remove_dir (const char *dir, ar_error_t *err)
{
  int tries = 0;

  while (rmdir (dir) < 0)
    {
      if (errno == ENOENT)
        return 0;
      if (errno != EBUSY || ++tries > 100)
        return ar_make_error (err, errno, "remove cgroup `%s`", dir);
      (void) poll (NULL, 0, 20);
    }
  return 0;
}

/* The unit goes first: systemd removes its own directories then (a scope's processes are gone
   by now, and systemd stops an empty scope by itself anyway, so a systemd that does not answer
   is only worth a warning).  */
static void
stop_unit (struct cgroup *cg)
{
  ar_error_t e = NULL;

  if ((cg->bus == NULL && sdbus_open (&cg->bus, &e) < 0)
      || sdbus_stop_unit (cg->bus, cg->unit, &e) < 0)
    {
      cleanup_free char *text = ar_error_text (e);
      ar_warn ("%s", text);
      ar_error_release (&e);
    }
}

int
cgroup_destroy (struct cgroup *cg, ar_error_t *err)
{
  if (cg->unit)
    stop_unit (cg);
  /* Each directory is the container's own leaf, but for its supervisor's (v2), which goes
     first.  */
  for (size_t i = 0; i < cg->n; i++)
    {
      cleanup_free char *sv = xasprintf ("%s/" CGROUP_SUPERVISOR_DIR, cg->dirs[i]);
      if (remove_dir (sv, err) < 0 || remove_dir (cg->dirs[i], err) < 0)
        return -1;
      remove_default_parent (cg->dirs[i]);
    }
  return 0;
}
