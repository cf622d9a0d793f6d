/* systemd's manager over sd-bus, libsystemd loaded at run time (sdbus.h says why).  The calls
   are runc's (go-systemd) and crun's: StartTransientUnit with mode "replace", a match on the
   manager's JobRemoved installed before the call so that the job's end is never missed,
   StopUnit, ResetFailedUnit, SetUnitProperties, the Version property.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/sdbus.h"
#include "log.h"
#include "utils.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_PRIVATE "/run/systemd/private"
#define LIBSYSTEMD "libsystemd.so.0"
/* runc waits 30 s for a job; so do we.  */
#define JOB_TIMEOUT_USEC (30ULL * 1000 * 1000)

/* Every symbol agentrt takes from libsystemd, each typed by its declaration in sd-bus.h.  */
#define SD_SYMBOLS(X)                \
  X (sd_bus_open_system)             \
  X (sd_bus_new)                     \
  X (sd_bus_set_address)             \
  X (sd_bus_start)                   \
  X (sd_bus_flush_close_unref)       \
  X (sd_bus_message_new_method_call) \
  X (sd_bus_message_append)          \
  X (sd_bus_message_append_array)    \
  X (sd_bus_message_open_container)  \
  X (sd_bus_message_close_container) \
  X (sd_bus_message_read)            \
  X (sd_bus_message_unref)           \
  X (sd_bus_call)                    \
  X (sd_bus_error_free)              \
  X (sd_bus_error_has_name)          \
  X (sd_bus_match_signal)            \
  X (sd_bus_slot_unref)              \
  X (sd_bus_process)                 \
  X (sd_bus_wait)                    \
  X (sd_bus_get_property_string)

struct sd_fns
{
#define SD_DECLARE(name) __typeof__ (name) *name;
  SD_SYMBOLS (SD_DECLARE)
#undef SD_DECLARE
};

static const struct
{
  const char *name;
  size_t offset;
} sd_symbols[] = {
#define SD_ENTRY(name) { #name, offsetof (struct sd_fns, name) },
  SD_SYMBOLS (SD_ENTRY)
#undef SD_ENTRY
};

struct sdbus
{
  void *lib;
  struct sd_fns fn;
  sd_bus *bus;
  unsigned version;
  bool have_version;
};

#define SD(b, name) ((b)->fn.name)

static int
load (struct sdbus *b, ar_error_t *err)
{
  b->lib = dlopen (LIBSYSTEMD, RTLD_NOW | RTLD_LOCAL);
  if (b->lib == NULL)
    return ar_make_error (err, ENOENT, "load " LIBSYSTEMD " (Debian package libsystemd0): %s",
                          dlerror ());
  for (size_t i = 0; i < ARRAY_SIZE (sd_symbols); i++)
    {
      void *sym = dlsym (b->lib, sd_symbols[i].name);
      if (sym == NULL)
        return ar_make_error (err, ENOSYS, LIBSYSTEMD " has no %s (systemd 237 or later is needed)",
                              sd_symbols[i].name);
      memcpy ((char *) &b->fn + sd_symbols[i].offset, &sym, sizeof sym);
    }
  return 0;
}

void
sdbus_close (struct sdbus *b)
{
  if (b == NULL)
    return;
  if (b->bus)
    SD (b, sd_bus_flush_close_unref) (b->bus);
  if (b->lib)
    dlclose (b->lib);
  free (b);
}

/* systemctl's way for root: systemd's own socket, no bus daemon.  */
static int
open_private (struct sdbus *b)
{
  sd_bus *bus = NULL;
  int r;

  if (geteuid () != 0 || access (SD_PRIVATE, F_OK) < 0)
    return -ENOENT;
  r = SD (b, sd_bus_new) (&bus);
  if (r >= 0)
    r = SD (b, sd_bus_set_address) (bus, "unix:path=" SD_PRIVATE);
  if (r >= 0)
    r = SD (b, sd_bus_start) (bus);
  if (r < 0)
    {
      if (bus)
        SD (b, sd_bus_flush_close_unref) (bus);
      return r;
    }
  b->bus = bus;
  return 0;
}

int
sdbus_open (struct sdbus **out, ar_error_t *err)
{
  struct sdbus *b = xzalloc (sizeof *b);
  int rp, rs;

  if (load (b, err) < 0)
    {
      sdbus_close (b);
      return -1;
    }
  rp = open_private (b);
  if (rp < 0)
    {
      rs = SD (b, sd_bus_open_system) (&b->bus);
      if (rs < 0)
        {
          b->bus = NULL;
          sdbus_close (b);
          if (rp == -ENOENT && rs == -ENOENT)
            return ar_make_error (err, ENOENT,
                                  "systemd does not run here (no " SD_PRIVATE ", no system bus)");
          return ar_make_error (err, -rs, "connect to systemd (" SD_PRIVATE ": %s; the system bus)",
                                strerror (-rp));
        }
    }
  *out = b;
  return 0;
}

unsigned
sdbus_version (struct sdbus *b)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;
  char *text = NULL;

  if (b->have_version)
    return b->version;
  b->have_version = true;
  if (SD (b, sd_bus_get_property_string) (b->bus, SD_DEST, SD_PATH, SD_MANAGER, "Version", &e,
                                          &text)
      >= 0)
    {
      const char *p = text[0] == 'v' ? text + 1 : text;
      b->version = (unsigned) strtoul (p, NULL, 10);
      ar_debug ("systemd: version %s", text);
    }
  SD (b, sd_bus_error_free) (&e);
  free (text);
  return b->version;
}

/* One property as (sv).  */
static int
append_prop (struct sdbus *b, sd_bus_message *m, const struct systemd_prop *q)
{
  static const char *const sig[] = {
    [SDP_BOOL] = "b",  [SDP_U64] = "t",    [SDP_I64] = "x",         [SDP_U32] = "u",
    [SDP_I32] = "i",   [SDP_DOUBLE] = "d", [SDP_STR] = "s",         [SDP_STRV] = "as",
    [SDP_PIDS] = "au", [SDP_BYTES] = "ay", [SDP_DEVICES] = "a(ss)",
  };
  int r = SD (b, sd_bus_message_open_container) (m, 'r', "sv");

  if (r >= 0)
    r = SD (b, sd_bus_message_append) (m, "s", q->name);
  if (r >= 0)
    r = SD (b, sd_bus_message_open_container) (m, 'v', sig[q->type]);
  if (r < 0)
    return r;
  switch (q->type)
    {
    case SDP_BOOL:
      r = SD (b, sd_bus_message_append) (m, "b", (int) q->u);
      break;
    case SDP_U64:
    case SDP_I64:
      r = SD (b, sd_bus_message_append) (m, sig[q->type], q->u);
      break;
    case SDP_U32:
    case SDP_I32:
      r = SD (b, sd_bus_message_append) (m, sig[q->type], (uint32_t) q->u);
      break;
    case SDP_DOUBLE:
      r = SD (b, sd_bus_message_append) (m, "d", q->d);
      break;
    case SDP_STR:
      r = SD (b, sd_bus_message_append) (m, "s", q->s);
      break;
    case SDP_PIDS:
      r = SD (b, sd_bus_message_append_array) (m, 'u', q->pids, q->n * sizeof *q->pids);
      break;
    case SDP_BYTES:
      r = SD (b, sd_bus_message_append_array) (m, 'y', q->bytes, q->n);
      break;
    case SDP_STRV:
    case SDP_DEVICES:
      r = SD (b, sd_bus_message_open_container) (m, 'a', q->type == SDP_STRV ? "s" : "(ss)");
      for (size_t i = 0; r >= 0 && i < q->n; i++)
        r = q->type == SDP_STRV
                ? SD (b, sd_bus_message_append) (m, "s", q->strv[i])
                : SD (b, sd_bus_message_append) (m, "(ss)", q->strv[2 * i], q->strv[2 * i + 1]);
      if (r >= 0)
        r = SD (b, sd_bus_message_close_container) (m);
      break;
    }
  if (r >= 0)
    r = SD (b, sd_bus_message_close_container) (m);
  if (r >= 0)
    r = SD (b, sd_bus_message_close_container) (m);
  return r;
}

static int
append_props (struct sdbus *b, sd_bus_message *m, const struct systemd_props *p)
{
  int r = SD (b, sd_bus_message_open_container) (m, 'a', "(sv)");

  for (size_t i = 0; r >= 0 && i < p->n; i++)
    r = append_prop (b, m, &p->v[i]);
  return r < 0 ? r : SD (b, sd_bus_message_close_container) (m);
}

/* The end of one job: JobRemoved(id, job, unit, result) with our job's path.  */
struct job_wait
{
  struct sdbus *b;
  char *job;
  bool done;
  char result[32];
};

static int
on_job_removed (sd_bus_message *m, void *data, sd_bus_error *e)
{
  struct job_wait *w = data;
  uint32_t id;
  const char *path, *unit, *result;

  (void) e;
  if (SD (w->b, sd_bus_message_read) (m, "uoss", &id, &path, &unit, &result) < 0)
    return 0;
  if (w->job && strcmp (path, w->job) == 0)
    {
      w->done = true;
      snprintf (w->result, sizeof w->result, "%s", result);
    }
  return 0;
}

/* Dispatch until our job's JobRemoved came (it may be queued already: it can arrive before the
   reply that names the job).  */
static int
wait_job (struct sdbus *b, struct job_wait *w, const char *what, const char *unit, ar_error_t *err)
{
  uint64_t end = ar_monotonic_ns () / 1000 + JOB_TIMEOUT_USEC;

  while (!w->done)
    {
      uint64_t now = ar_monotonic_ns () / 1000;
      int r = SD (b, sd_bus_process) (b->bus, NULL);
      if (r > 0)
        continue;
      if (r == 0 && now < end)
        r = SD (b, sd_bus_wait) (b->bus, end - now);
      if (r < 0)
        return ar_make_error (err, -r, "systemd: %s unit `%s`: wait for its job", what, unit);
      if (now >= end)
        return ar_make_error (err, ETIMEDOUT, "systemd: %s unit `%s`: its job did not end in 30 s",
                              what, unit);
    }
  return 0;
}

/* Call METHOD on the manager with (unit, "replace"[, props][, aux]) and wait for the job it
   returns; the error of the call is left in *e.  */
static int
job_call (struct sdbus *b, const char *method, const char *unit, const struct systemd_props *props,
          struct job_wait *w, sd_bus_error *e)
{
  sd_bus_message *m = NULL, *reply = NULL;
  const char *job = NULL;
  int r = SD (b, sd_bus_message_new_method_call) (b->bus, &m, SD_DEST, SD_PATH, SD_MANAGER, method);

  if (r >= 0)
    r = SD (b, sd_bus_message_append) (m, "ss", unit, "replace");
  if (r >= 0 && props)
    r = append_props (b, m, props);
  if (r >= 0 && props)
    r = SD (b, sd_bus_message_append) (m, "a(sa(sv))", 0);
  if (r >= 0)
    r = SD (b, sd_bus_call) (b->bus, m, 0, e, &reply);
  if (r >= 0)
    r = SD (b, sd_bus_message_read) (reply, "o", &job);
  if (r >= 0)
    w->job = xstrdup (job);
  if (reply)
    SD (b, sd_bus_message_unref) (reply);
  if (m)
    SD (b, sd_bus_message_unref) (m);
  return r;
}

static int
call_unit (struct sdbus *b, const char *method, const char *unit, sd_bus_error *e)
{
  sd_bus_message *m = NULL, *reply = NULL;
  int r = SD (b, sd_bus_message_new_method_call) (b->bus, &m, SD_DEST, SD_PATH, SD_MANAGER, method);

  if (r >= 0)
    r = SD (b, sd_bus_message_append) (m, "s", unit);
  if (r >= 0)
    r = SD (b, sd_bus_call) (b->bus, m, 0, e, &reply);
  if (reply)
    SD (b, sd_bus_message_unref) (reply);
  if (m)
    SD (b, sd_bus_message_unref) (m);
  return r;
}

static int
bus_error (ar_error_t *err, int r, const sd_bus_error *e, const char *what, const char *unit)
{
  if (e->message)
    return ar_make_error (err, -r, "systemd: %s unit `%s`: %s", what, unit, e->message);
  return ar_make_error (err, -r, "systemd: %s unit `%s`", what, unit);
}

/* One job of METHOD for UNIT, from the match to its end; 1 when the call failed with error
   `retry_on` (the caller decides), its error left in *e.  */
static int
run_job (struct sdbus *b, const char *method, const char *what, const char *unit,
         const struct systemd_props *props, const char *retry_on, struct job_wait *w,
         sd_bus_error *e, ar_error_t *err)
{
  sd_bus_slot *slot = NULL;
  int r = SD (b, sd_bus_match_signal) (b->bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved",
                                       on_job_removed, w);

  if (r < 0)
    return ar_make_error (err, -r, "systemd: %s unit `%s`: watch its job", what, unit);
  r = job_call (b, method, unit, props, w, e);
  if (r >= 0)
    r = wait_job (b, w, what, unit, err) < 0 ? -1 : 0;
  else if (retry_on && SD (b, sd_bus_error_has_name) (e, retry_on))
    r = 1;
  else
    r = bus_error (err, r, e, what, unit);
  SD (b, sd_bus_slot_unref) (slot);
  return r;
}

static void
reset_failed (struct sdbus *b, const char *unit)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;

  (void) call_unit (b, "ResetFailedUnit", unit, &e); /* "not failed", "no such unit": fine */
  SD (b, sd_bus_error_free) (&e);
}

int
sdbus_start_unit (struct sdbus *b, const char *unit, const struct systemd_props *props,
                  ar_error_t *err)
{
  for (int attempt = 0;; attempt++)
    {
      sd_bus_error e = SD_BUS_ERROR_NULL;
      struct job_wait w = { .b = b };
      int r = run_job (b, "StartTransientUnit", "start", unit, props,
                       attempt == 0 ? "org.freedesktop.systemd1.UnitExists" : NULL, &w, &e, err);
      SD (b, sd_bus_error_free) (&e);
      free (w.job);
      if (r == 1)
        {
          /* A unit of this name that failed and was kept: reset it, and try once more.  */
          reset_failed (b, unit);
          continue;
        }
      if (r < 0)
        return -1;
      if (strcmp (w.result, "done") != 0)
        {
          reset_failed (b, unit);
          return ar_make_error (err, 0, "systemd: start unit `%s`: its job ended `%s`", unit,
                                w.result);
        }
      return 0;
    }
}

int
sdbus_stop_unit (struct sdbus *b, const char *unit, ar_error_t *err)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;
  struct job_wait w = { .b = b };
  int r = run_job (b, "StopUnit", "stop", unit, NULL, "org.freedesktop.systemd1.NoSuchUnit", &w, &e,
                   err);

  SD (b, sd_bus_error_free) (&e);
  free (w.job);
  if (r < 0)
    return -1;
  if (r == 0 && strcmp (w.result, "done") != 0)
    ar_debug ("systemd: stop unit `%s`: its job ended `%s`", unit, w.result);
  reset_failed (b, unit);
  return 0;
}

int
sdbus_set_properties (struct sdbus *b, const char *unit, const struct systemd_props *props,
                      ar_error_t *err)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;
  sd_bus_message *m = NULL, *reply = NULL;
  int r = SD (b, sd_bus_message_new_method_call) (b->bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
                                                  "SetUnitProperties");

  if (r >= 0)
    r = SD (b, sd_bus_message_append) (m, "sb", unit, 1);
  if (r >= 0)
    r = append_props (b, m, props);
  if (r >= 0)
    r = SD (b, sd_bus_call) (b->bus, m, 0, &e, &reply);
  if (r < 0)
    bus_error (err, r, &e, "set properties of", unit);
  if (reply)
    SD (b, sd_bus_message_unref) (reply);
  if (m)
    SD (b, sd_bus_message_unref) (m);
  SD (b, sd_bus_error_free) (&e);
  return r < 0 ? -1 : 0;
}
