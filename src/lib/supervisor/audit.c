/* The audit log: one JSON line per supervised or denied call, appended with a single write(2)
   to an O_APPEND file so that lines of concurrent threads never interleave.  The count of alerts
   is kept beside it (audit.alerts) for `agentrt state`.

   A workload can make denied calls as fast as the supervisor answers them (200k records in 3 s
   were measured), which would fill --root, a tmpfs by default: records beyond AUDIT_RATE a
   second (with a burst of AUDIT_BURST) are counted instead, and a summary record says how many
   each second.  Alerts are always counted.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "supervisor/sv.h"
#include "utils.h"

static void
read_comm (pid_t pid, char *buf, size_t size)
{
  char path[64];
  int fd;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/comm", (int) pid);
  buf[0] = '\0';
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  n = read (fd, buf, size - 1);
  close (fd);
  if (n <= 0)
    return;
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
}

#define AUDIT_RATE 500.0
#define AUDIT_BURST 2000.0

/* Count the record (and the alert), and say whether it may be written.  */
static bool
admit (struct sv *sv, bool alert)
{
  struct timespec now;
  double dt, t;
  bool ok;

  clock_gettime (CLOCK_MONOTONIC, &now);
  pthread_mutex_lock (&sv->audit_lock);
  if (sv->refilled.tv_sec == 0)
    {
      sv->refilled = now;
      sv->tokens = AUDIT_BURST;
    }
  dt = (double) (now.tv_sec - sv->refilled.tv_sec) + (now.tv_nsec - sv->refilled.tv_nsec) / 1e9;
  sv->refilled = now;
  t = sv->tokens + dt * AUDIT_RATE;
  sv->tokens = t > AUDIT_BURST ? AUDIT_BURST : t;
  ok = sv->tokens >= 1.0;
  if (ok)
    sv->tokens -= 1.0;
  else
    sv->suppressed++;
  if (alert)
    sv->alerts++;
  pthread_mutex_unlock (&sv->audit_lock);
  return ok;
}

static void
write_alerts (struct sv *sv, unsigned long n)
{
  char text[32];
  int len = snprintf (text, sizeof text, "%lu\n", n);
  ar_error_t err = NULL;

  if (ar_write_file_atomic (sv->state_dirfd, SUPERVISOR_ALERTS_FILE, text, (size_t) len, 0644, &err)
      < 0)
    ar_log_error_release (&err);
}

static void
append_line (struct sv *sv, char *line, size_t len)
{
  line[len] = '\n';
  if (write (sv->audit_fd, line, len + 1) != (ssize_t) (len + 1))
    ar_warn ("audit log: write: %s", strerror (errno));
}

static void
open_record (struct ar_json *j, struct sv *sv)
{
  struct timespec now;
  cleanup_free char *time = NULL;

  clock_gettime (CLOCK_REALTIME, &now);
  time = ar_time_rfc3339 (&now);
  ar_json_obj_open (j);
  ar_json_kstr (j, "time", time);
  ar_json_kstr (j, "id", sv->id);
}

/* The raw arguments, as the kernel passed them.  */
static void
raw_args (struct ar_json *j, const struct seccomp_notif *req)
{
  char hex[24];

  ar_json_arr_open (j);
  for (int i = 0; i < 6; i++)
    {
      snprintf (hex, sizeof hex, "0x%llx", (unsigned long long) req->data.args[i]);
      ar_json_str (j, hex);
    }
  ar_json_arr_close (j);
}

void
sv_audit_tick (struct sv *sv)
{
  unsigned long suppressed, alerts;
  bool changed;

  pthread_mutex_lock (&sv->audit_lock);
  suppressed = sv->suppressed;
  sv->suppressed = 0;
  alerts = sv->alerts;
  changed = alerts != sv->alerts_written;
  sv->alerts_written = alerts;
  pthread_mutex_unlock (&sv->audit_lock);
  if (suppressed)
    {
      cleanup_free char *detail = xasprintf (
          "%lu records over the rate limit (%g a second) were not written", suppressed, AUDIT_RATE);
      sv_audit_event (sv, "audit-suppressed", "warn", detail);
    }
  if (changed)
    write_alerts (sv, alerts);
}

void
sv_audit (struct sv_call *c, const char *verdict, int err, const char *args_json)
{
  struct ar_json *j = ar_json_new (NULL);
  const struct sc_entry *e = c->entry;
  int sev = c->severity != SEV_NONE ? c->severity : e ? e->severity : SEV_WARN;
  cleanup_free char *line = NULL;
  char comm[32];
  size_t len;

  if (!admit (c->sv, sev == SEV_ALERT))
    {
      ar_json_free (j);
      return;
    }
  read_comm ((pid_t) c->req->pid, comm, sizeof comm);
  open_record (j, c->sv);
  ar_json_kint (j, "pid", (long long) c->req->pid);
  ar_json_kstr (j, "comm", sv_id_valid (c) ? comm : "");
  ar_json_kstr (j, "syscall", c->name);
  ar_json_key (j, "args");
  if (args_json)
    ar_json_raw (j, args_json);
  else
    raw_args (j, c->req);
  ar_json_kstr (j, "verdict", verdict);
  if (err)
    ar_json_kstr (j, "errno", strerrorname_np (err));
  ar_json_kstr (j, "rule", c->rule ? c->rule : e && e->rule ? e->rule : "unknown-syscall");
  ar_json_kstr (j, "severity", policy_severity_name (sev == SEV_NONE ? SEV_INFO : sev));
  ar_json_obj_close (j);
  line = ar_json_finish (j, &len);
  line = xrealloc (line, len + 2);
  append_line (c->sv, line, len);
}

void
sv_audit_event (struct sv *sv, const char *event, const char *severity, const char *detail)
{
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *line = NULL;
  size_t len;

  open_record (j, sv);
  ar_json_kstr (j, "event", event);
  if (detail)
    ar_json_kstr (j, "detail", detail);
  ar_json_kstr (j, "severity", severity);
  ar_json_obj_close (j);
  line = ar_json_finish (j, &len);
  line = xrealloc (line, len + 2);
  append_line (sv, line, len);
  if (strcmp (severity, "alert") == 0)
    {
      unsigned long n;
      pthread_mutex_lock (&sv->audit_lock);
      n = ++sv->alerts;
      sv->alerts_written = n;
      pthread_mutex_unlock (&sv->audit_lock);
      /* The supervisor may be about to exit: written now, not at the next tick.  */
      write_alerts (sv, n);
    }
}
