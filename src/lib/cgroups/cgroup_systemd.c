/* The systemd cgroup driver (cgroup.h): the container's scope made by systemd over D-Bus, as
   runc's systemd manager makes it, then agentrt's own part of the cgroups.

   The init is cloned outside every cgroup of the unit (systemd refuses a scope without
   processes, and places them itself) and waits, before it unshares anything or forks, until
   cgroup_systemd_place has put it in: StartTransientUnit with PIDs=[init], the job waited for,
   then the v1 hierarchies systemd does not manage joined (agentrt made those directories
   before the clone and the init was born in them: cgroup_run_unplaced), then every resource
   written to the files, as runc writes them again after systemd: systemd rounds a CPU quota to
   whole percents, has no property for some limits, and on v1 cannot say every device rule.
   systemd moving the init costs the RCU grace period agentrt's cgroupfs path avoids
   (README: Benchmarks).  */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "cgroups/cgroup_internal.h"
#include "cgroups/sdbus.h"
#include "cgroups/systemd.h"
#include "log.h"
#include "utils.h"

int
cgroup_systemd_open (struct cgroup *cg, const struct spec_map *annotations, ar_error_t *err)
{
  struct systemd_props extra = { NULL, 0 };

  if (systemd_props_annotations (&extra, annotations, err) < 0)
    {
      systemd_props_release (&extra);
      return -1;
    }
  if (extra.n)
    {
      cg->extra = xmalloc (sizeof *cg->extra);
      *cg->extra = extra;
    }
  if (cg->bus == NULL && sdbus_open (&cg->bus, err) < 0)
    return ar_error_wrap (err, "--systemd-cgroup");
  return 0;
}

/* Where the init is now in the hierarchy of `dir`, relative to its mount; NULL if `dir` is in
   none of them.  */
static char *
placed_at (pid_t pid, const struct cg_hiers *hs, const char *dir, const char **rel)
{
  for (size_t i = 0; i < hs->n; i++)
    {
      size_t ml = strlen (hs->h[i].mount);
      if (strncmp (dir, hs->h[i].mount, ml) == 0 && dir[ml] == '/')
        {
          *rel = dir + ml;
          return cg_proc_path (pid, &hs->h[i]);
        }
    }
  return NULL;
}

/* After the job: every directory of the container holds the init.  systemd's cgroup2 one must
   be where agentrt stored it (else every later command would act on another cgroup); a v1
   hierarchy it left the init out of (devices when no device rule was sent, any it does not
   manage on this version) is joined here, as runc's joinCgroups does.  */
static int
join_unplaced (const struct cgroup *cg, pid_t pid, ar_error_t *err)
{
  struct cg_hiers hs = { .n = 0 };
  enum cgroup_layout layout;
  char buf[16];
  int len = snprintf (buf, sizeof buf, "%d", (int) pid);
  int r = 0;

  if (cg_read_hiers (&hs, &layout, err) < 0)
    return -1;
  for (size_t i = 0; r == 0 && i < cg->n; i++)
    {
      const char *rel = NULL;
      cleanup_free char *now = placed_at (pid, &hs, cg->dirs[i], &rel);
      if (now == NULL || strcmp (now, rel) == 0)
        continue;
      if (cg->unified && strcmp (cg->dirs[i], cg->unified) == 0)
        {
          r = ar_make_error (err, 0,
                             "systemd put the container's init in cgroup `%s`, not `%s` as agentrt "
                             "expected",
                             now, rel);
          break;
        }
      ar_debug ("systemd: the init is in `%s` of %s, moved into `%s`", now, cg->dirs[i], rel);
      if (access (cg->dirs[i], F_OK) < 0 && cg_make_dir (cg->dirs[i], false, err) < 0)
        r = -1;
      else
        r = cg_write (cg->dirs[i], "cgroup.procs", buf, (size_t) len, err);
    }
  cg_hiers_release (&hs);
  return r;
}

static void
add_extra (struct systemd_props *p, const struct systemd_props *extra)
{
  for (size_t i = 0; extra && i < extra->n; i++)
    {
      const struct systemd_prop *q = &extra->v[i];
      struct systemd_prop *c;
      p->v = xrealloc (p->v, (p->n + 1) * sizeof *p->v);
      c = &p->v[p->n++];
      *c = *q;
      c->name = xstrdup (q->name);
      c->s = q->s ? xstrdup (q->s) : NULL;
      c->strv = NULL;
      c->pids = NULL;
      c->bytes = NULL;
      if (q->strv)
        {
          c->strv = xzalloc ((q->n + 1) * sizeof *c->strv);
          for (size_t k = 0; k < q->n; k++)
            c->strv[k] = xstrdup (q->strv[k]);
        }
    }
}

int
cgroup_systemd_place (struct cgroup *cg, pid_t pid, const char *id, const struct spec_resources *r,
                      const struct spec_device *devs, size_t n_devs, ar_error_t *err)
{
  cleanup_systemd_props struct systemd_props p = { NULL, 0 };
  struct systemd_unit u = { .slice = cg->slice, .name = cg->unit };
  bool v2 = cg->layout == CGROUP_V2;

  systemd_props_base (&p, &u, id, pid, v2);
  if (systemd_props_resources (&p, r, true, devs, n_devs, v2, sdbus_version (cg->bus), err) < 0)
    return -1;
  add_extra (&p, cg->extra);
  if (ar_log_level_current >= AR_LOG_DEBUG)
    {
      cleanup_free char *text = systemd_props_text (&p);
      ar_debug ("systemd: start unit %s with\n%s", cg->unit, text);
    }
  if (sdbus_start_unit (cg->bus, cg->unit, &p, err) < 0)
    return -1;
  /* systemd is not needed again unless create fails (cgroup_destroy connects anew): the
     connection is not held while the container is set up, nor inherited by the supervisor.  */
  sdbus_close (cg->bus);
  cg->bus = NULL;
  if (join_unplaced (cg, pid, err) < 0 || cgroup_apply (cg, r, err) < 0
      || cgroup_allow_devices (cg, r, devs, n_devs, err) < 0)
    return -1;
  return 0;
}

static int
set_unit_properties (struct cgroup *cg, const struct spec_resources *r, bool devices,
                     const struct spec_device *devs, size_t n_devs, ar_error_t *err)
{
  cleanup_systemd_props struct systemd_props p = { NULL, 0 };

  if (cg->bus == NULL && sdbus_open (&cg->bus, err) < 0)
    return -1;
  if (systemd_props_resources (&p, r, devices, devs, n_devs, cg->layout == CGROUP_V2,
                               sdbus_version (cg->bus), err)
      < 0)
    return -1;
  return p.n ? sdbus_set_properties (cg->bus, cg->unit, &p, err) : 0;
}

int
cgroup_update (struct cgroup *cg, const struct spec_resources *r, bool devices,
               const struct spec_device *devs, size_t n_devs, bool frozen, ar_error_t *err)
{
  /* v1: systemd writes a new device list as "deny everything, then allow each": the workload
     must not run in between (runc's freezeBeforeSet).  */
  bool freeze = cg->unit && devices && cg->layout != CGROUP_V2 && !frozen && cg->freezer;
  int ret;

  if (freeze && cgroup_freeze (cg, true, err) < 0)
    return -1;
  ret = cg->unit ? set_unit_properties (cg, r, devices, devs, n_devs, err) : 0;
  if (ret == 0)
    ret = cgroup_apply (cg, r, err);
  if (ret == 0 && devices && (cg->layout == CGROUP_V2 || cg->unit))
    ret = cgroup_allow_devices (cg, r, devs, n_devs, err);
  if (freeze)
    (void) cgroup_freeze (cg, false, NULL);
  return ret;
}
