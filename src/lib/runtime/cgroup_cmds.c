/* pause, resume and ps: the commands that act on a container through its cgroups.  */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "cgroups/cgroup.h"
#include "runtime/container_internal.h"
#include "spec/spec.h"
#include "sandbox/netpolicy.h"
#include "sandbox/sandbox.h"
#include "supervisor/control.h"
#include "supervisor/supervisor.h"
#include "utils.h"

static int
load_cgroup (const struct state *s, struct cgroup *cg, ar_error_t *err)
{
  if (s->cgroup_dirs == NULL)
    return ar_make_error (err, ENOENT, "container `%s` has no cgroup", s->id);
  return cgroup_from_dirs (s->cgroup_dirs, s->systemd_unit, cg, err);
}

/* On cgroup v2 the supervisor's worker lives in a child of the container's cgroup (cgroup.h:
   cgroup_run_accounted), which a freeze would stop with it: it waits outside while the
   container is paused.  The watchdog is never inside.  */
static int
freeze (const struct ar_globals *g, const char *id, bool pause, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_close int dirfd = -1;
  enum state_status from = pause ? STATE_RUNNING : STATE_PAUSED;
  struct cgroup cg;
  pid_t sv[4];
  size_t n;
  int r;

  if (container_load_locked (g, id, true, &dirfd, &s, err) < 0)
    return -1;
  if (s->status != from)
    return ar_make_error (err, 0, "cannot %s container `%s`: it is %s, not %s",
                          pause ? "pause" : "resume", id, state_status_name (s->status),
                          state_status_name (from));
  if (load_cgroup (s, &cg, err) < 0)
    return -1;
  /* The watchdog first: only what follows it is moved.  */
  n = supervisor_pids (s->sv_pid, s->sv_start, sv, ARRAY_SIZE (sv));
  n = n > 0 ? n - 1 : 0;
  r = pause ? cgroup_supervisor_park (&cg, sv + 1, n, true, err) : 0;
  if (r == 0)
    r = cgroup_freeze (&cg, pause, err);
  if (r == 0 && !pause)
    r = cgroup_supervisor_park (&cg, sv + 1, n, false, err);
  else if (r < 0 && pause)
    (void) cgroup_supervisor_park (&cg, sv + 1, n, false, NULL);
  cgroup_release (&cg);
  if (r < 0)
    return -1;
  s->status = pause ? STATE_PAUSED : STATE_RUNNING;
  return state_save (dirfd, s, err);
}

int
ar_container_pause (const struct ar_globals *g, const char *id, ar_error_t *err)
{
  return freeze (g, id, true, err);
}

int
ar_container_resume (const struct ar_globals *g, const char *id, ar_error_t *err)
{
  return freeze (g, id, false, err);
}

int
ar_container_pids (const struct ar_globals *g, const char *id, int **pids, size_t *n,
                   ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  struct cgroup cg;
  pid_t *p = NULL;
  int r;

  *pids = NULL;
  *n = 0;
  if (container_load_locked (g, id, false, NULL, &s, err) < 0)
    return -1;
  if (s->status == STATE_STOPPED)
    return ar_make_error (err, 0, "container `%s` is not running", id);
  if (load_cgroup (s, &cg, err) < 0)
    return -1;
  r = cgroup_pids (&cg, &p, n, err);
  cgroup_release (&cg);
  *pids = p;
  return r;
}

/* "100000000", "512m", "1g", "-1": runc's units.RAMInBytes (binary multiples).  */
static int
parse_bytes (const char *v, const char *flag, int64_t *out, ar_error_t *err)
{
  char *end;
  long long n;
  int shift = 0;

  errno = 0;
  n = strtoll (v, &end, 10);
  if (*end && strchr ("kKmMgGtT", *end)
      && (end[1] == '\0' || ((end[1] == 'b' || end[1] == 'B') && end[2] == '\0')))
    shift = strchr ("kK", *end) ? 10 : strchr ("mM", *end) ? 20 : strchr ("gG", *end) ? 30 : 40;
  else if (*end)
    return ar_make_error (err, EINVAL, "--%s: `%s` is not a size", flag, v);
  if (errno || end == v || n < -1 || (n > 0 && shift && n > (INT64_MAX >> shift)))
    return ar_make_error (err, EINVAL, "--%s: `%s` is not a size", flag, v);
  *out = n < 0 ? -1 : (int64_t) n << shift;
  return 0;
}

static int
parse_num (const char *v, const char *flag, int64_t min, int64_t *out, ar_error_t *err)
{
  long long n;
  if (!ar_parse_int64 (v, min, INT64_MAX, &n))
    return ar_make_error (err, EINVAL, "--%s: `%s` is not a number", flag, v);
  *out = n;
  return 0;
}

static int
apply_flags (const struct ar_update_opts *o, struct spec_resources *r, ar_error_t *err)
{
  const char *const *f = o->flags;
  int64_t v = 0;

#define I64(IDX, NAME, MIN, FIELD, HAS)               \
  if (f[IDX])                                         \
    {                                                 \
      if (parse_num (f[IDX], NAME, MIN, &v, err) < 0) \
        return -1;                                    \
      FIELD.set = true;                               \
      FIELD.v = v;                                    \
      HAS = true;                                     \
    }
#define BYTES(IDX, NAME, FIELD)                    \
  if (f[IDX])                                      \
    {                                              \
      if (parse_bytes (f[IDX], NAME, &v, err) < 0) \
        return -1;                                 \
      FIELD.set = true;                            \
      FIELD.v = v;                                 \
      r->has_memory = true;                        \
    }
  I64 (AR_UPD_BLKIO_WEIGHT, "blkio-weight", 10, r->block_io.weight, r->has_block_io);
  I64 (AR_UPD_CPU_PERIOD, "cpu-period", 1, r->cpu.period, r->has_cpu);
  I64 (AR_UPD_CPU_QUOTA, "cpu-quota", -1, r->cpu.quota, r->has_cpu);
  I64 (AR_UPD_CPU_SHARE, "cpu-share", 2, r->cpu.shares, r->has_cpu);
  I64 (AR_UPD_CPU_RT_PERIOD, "cpu-rt-period", 1, r->cpu.realtime_period, r->has_cpu);
  I64 (AR_UPD_CPU_RT_RUNTIME, "cpu-rt-runtime", -1, r->cpu.realtime_runtime, r->has_cpu);
  BYTES (AR_UPD_MEMORY, "memory", r->memory.limit);
  BYTES (AR_UPD_MEMORY_RESERVATION, "memory-reservation", r->memory.reservation);
  BYTES (AR_UPD_MEMORY_SWAP, "memory-swap", r->memory.swap);
  if (f[AR_UPD_PIDS_LIMIT])
    {
      if (parse_num (f[AR_UPD_PIDS_LIMIT], "pids-limit", -1, &v, err) < 0)
        return -1;
      r->pids_limit.set = true;
      r->pids_limit.v = v;
    }
#undef I64
#undef BYTES
  for (int k = AR_UPD_CPUSET_CPUS; k <= AR_UPD_CPUSET_MEMS; k++)
    if (f[k])
      {
        char **slot = k == AR_UPD_CPUSET_CPUS ? &r->cpu.cpus : &r->cpu.mems;
        free (*slot);
        *slot = xstrdup (f[k]);
        r->has_cpu = true;
      }
  if (f[AR_UPD_L3_CACHE] || f[AR_UPD_MEM_BW])
    return ar_make_error (err, ENOSYS, "update: Intel RDT is not supported");
  return 0;
}

static int
load_resources (const char *file, struct spec_resources **r, ar_error_t *err)
{
  cleanup_free char *text = NULL;

  if (file == NULL)
    return spec_parse_resources ("{}", "--resources", r, err);
  if (strcmp (file, "-") == 0)
    {
      if (ar_read_fd (0, "stdin", 1 << 20, &text, NULL, err) < 0)
        return -1;
    }
  else if (ar_read_file (file, 1 << 20, &text, NULL, err) < 0)
    return -1;
  return spec_parse_resources (text, strcmp (file, "-") == 0 ? "stdin" : file, r, err);
}

/* New device rules: on v2 they replace the cgroup's device program, and with the systemd driver
   the unit's DeviceAllow, both built again from them, the defaults and linux.devices, which
   state.json does not hold: they are read from the bundle's config.json, as at create.  (v1
   with cgroupfs appends the new rules to the kernel's list.)  */
static int
bundle_devices (const struct state *s, struct spec **sp, ar_error_t *err)
{
  if (s->bundle == NULL || spec_load_bundle (s->bundle, sp, err) < 0)
    {
      if (s->bundle == NULL)
        ar_make_error (err, ENOENT, "container `%s` has no bundle", s->id);
      return ar_error_wrap (err, "update linux.resources.devices: the linux.devices of the "
                                 "container");
    }
  return 0;
}

/* Were any of runc's resource flags given (or --resources)?  */
static bool
resources_given (const struct ar_update_opts *o)
{
  for (int i = 0; i < AR_UPD__N; i++)
    if (o->flags[i])
      return true;
  return o->resources != NULL;
}

/* agentrt's own flags, checked here (so that a bad list fails before anything changes) and
   told to the supervisor, which applies them (sv_net.h, the watchdog's deadline).  */
static int
update_supervised (const struct state *s, int dirfd, const struct ar_update_opts *o,
                   ar_error_t *err)
{
  const struct
  {
    const char *flag, *list;
    enum control_op op;
  } lists[] = { { "--net-allow", o->net_allow, CONTROL_NET_SET },
                { "--net-allow-add", o->net_allow_add, CONTROL_NET_ADD },
                { "--net-allow-remove", o->net_allow_remove, CONTROL_NET_REMOVE } };
  bool none = s->platform == NULL || strcmp (s->platform, "none") == 0;
  long long ms = 0;

  if (o->timeout
      && (sandbox_parse_duration (o->timeout + (o->timeout[0] == '+'), &ms) < 0 || ms <= 0))
    return ar_make_error (err, EINVAL,
                          "--timeout: `%s`: expected a duration such as 90s, 5m, "
                          "1h, or +5m for five minutes from now",
                          o->timeout);
  for (size_t i = 0; i < ARRAY_SIZE (lists); i++)
    if (lists[i].list)
      {
        struct netpolicy p;
        if (netpolicy_parse (lists[i].list, lists[i].flag, &p, err) < 0)
          return -1;
        netpolicy_release (&p);
      }
  if (none && (o->timeout || o->net_allow || o->net_allow_add || o->net_allow_remove))
    return ar_make_error (err, EINVAL,
                          "cannot update container `%s`: it runs with --platform none, whose "
                          "deadline keeper takes no update and which has no egress broker",
                          s->id);
  for (size_t i = 0; i < ARRAY_SIZE (lists); i++)
    if (lists[i].list && control_send_update (dirfd, s->id, lists[i].op, 0, lists[i].list, err) < 0)
      return -1;
  if (o->timeout
      && control_send_update (dirfd, s->id,
                              o->timeout[0] == '+' ? CONTROL_TIMEOUT_FROM_NOW : CONTROL_TIMEOUT, ms,
                              NULL, err)
             < 0)
    return -1;
  return 0;
}

int
ar_container_update (const struct ar_globals *g, const char *id, const struct ar_update_opts *o,
                     ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_spec struct spec *sp = NULL;
  cleanup_close int dirfd = -1;
  struct spec_resources *r = NULL;
  struct cgroup cg;
  bool ours = o->net_allow || o->net_allow_add || o->net_allow_remove || o->timeout;
  bool devices;
  int ret;

  if (container_load_locked (g, id, true, &dirfd, &s, err) < 0)
    return -1;
  if (s->status == STATE_STOPPED)
    return ar_make_error (err, 0, "cannot update container `%s`: it is stopped", id);
  if (ours && update_supervised (s, dirfd, o, err) < 0)
    return -1;
  if (ours && !resources_given (o))
    return 0;
  if (load_resources (o->resources, &r, err) < 0 || apply_flags (o, r, err) < 0
      || load_cgroup (s, &cg, err) < 0)
    {
      spec_resources_free (r);
      return -1;
    }
  devices = r->n_devices > 0 && (cg.layout == CGROUP_V2 || cg.unit);
  ret = devices ? bundle_devices (s, &sp, err) : 0;
  if (ret == 0)
    ret = cgroup_update (&cg, r, devices, sp ? sp->linux_.devices : NULL,
                         sp ? sp->linux_.n_devices : 0, s->status == STATE_PAUSED, err);
  cgroup_release (&cg);
  spec_resources_free (r);
  return ret;
}

static void
emit (const char *type, const char *id, const char *data_json, ar_event_fn fn, void *data)
{
  cleanup_free char *line
      = data_json ? xasprintf ("{\"type\":\"%s\",\"id\":\"%s\",\"data\":%s}", type, id, data_json)
                  : xasprintf ("{\"type\":\"%s\",\"id\":\"%s\"}", type, id);
  fn (line, data);
}

#define OOM_POLL_MS 100

int
ar_container_events (const struct ar_globals *g, const char *id, bool stats_once, long interval_ms,
                     ar_event_fn fn, void *data, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  struct cgroup cg;
  uint64_t ooms;
  long since = 0;

  /* The id is checked by the state load; it is a plain [A-Za-z0-9_+.-] name, safe in JSON.  */
  if (container_load_locked (g, id, false, NULL, &s, err) < 0)
    return -1;
  if (s->status == STATE_STOPPED)
    return ar_make_error (err, 0, "container `%s` is not running", id);
  if (load_cgroup (s, &cg, err) < 0)
    return -1;
  if (interval_ms <= 0)
    interval_ms = 5000;
  ooms = cgroup_oom_kills (&cg);
  for (;;)
    {
      uint64_t now = cgroup_oom_kills (&cg);
      if (now > ooms && !stats_once)
        emit ("oom", id, NULL, fn, data);
      ooms = now;
      if (since <= 0)
        {
          cleanup_free char *stats = cgroup_stats_json (&cg);
          emit ("stats", id, stats, fn, data);
          since = interval_ms;
          if (stats_once)
            break;
        }
      (void) poll (NULL, 0, OOM_POLL_MS);
      since -= OOM_POLL_MS;
      if (state_proc_start_time (s->pid) != s->pid_start)
        break;
    }
  cgroup_release (&cg);
  return 0;
}
