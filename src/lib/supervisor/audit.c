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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "supervisor/audit.h"
#include "supervisor/sv.h"
#include "utils.h"

/* The caller's comm, from /proc/TID/comm.  A thread that makes many audited calls (connects in a
   loop) has its file opened once and read again (pread) for each: the fd stays bound to the
   task it was opened for, so once that task is gone it fails (ESRCH), even if its number names
   another task by then, and the number is opened afresh.  A few slots, reused in turn.  The fd
   a slot drops is closed after the answer (*stale): closing the file of a task that has gone
   costs as much as opening one.  (An execve's record needs none: its comm is the new
   program's, handlers/exec.c.)  */
#define COMM_SLOTS 8

static struct
{
  pid_t tid;
  int fd;
} comm_cache[COMM_SLOTS];
static unsigned comm_next;
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

static void
read_comm (pid_t tid, char *buf, size_t size, int *stale)
{
  char path[64];
  ssize_t n = -1;
  int slot = -1, fd;

  buf[0] = '\0';
  pthread_mutex_lock (&comm_lock);
  for (int i = 0; i < COMM_SLOTS && slot < 0; i++)
    if (comm_cache[i].tid == tid && tid != 0)
      {
        slot = i;
        n = pread (comm_cache[i].fd, buf, size - 1, 0);
        if (n <= 0)
          {
            *stale = comm_cache[i].fd;
            comm_cache[i].tid = 0;
          }
      }
  if (slot < 0)
    {
      slot = (int) (comm_next++ % COMM_SLOTS);
      if (comm_cache[slot].tid != 0)
        *stale = comm_cache[slot].fd;
      comm_cache[slot].tid = 0;
    }
  if (n <= 0)
    {
      snprintf (path, sizeof path, "/proc/%d/comm", (int) tid);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      n = fd >= 0 ? read (fd, buf, size - 1) : -1;
      if (n > 0)
        {
          comm_cache[slot].tid = tid;
          comm_cache[slot].fd = fd;
        }
      else if (fd >= 0)
        close (fd);
    }
  pthread_mutex_unlock (&comm_lock);
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

  if (ar_replace_file (sv->state_dirfd, SUPERVISOR_ALERTS_FILE, text, (size_t) len, 0644, &err) < 0)
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
open_record (struct ar_json *j, struct sv *sv, const struct timespec *when)
{
  cleanup_free char *time = ar_time_rfc3339 (when);

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

static void
write_record (struct sv_call *c, const struct sv_record *r)
{
  struct ar_json *j = ar_json_new (NULL);
  const struct sc_entry *e = c->entry;
  cleanup_free char *line = NULL;
  size_t len;

  open_record (j, c->sv, &r->time);
  ar_json_kint (j, "pid", (long long) c->req->pid);
  ar_json_kstr (j, "comm", r->comm);
  ar_json_kstr (j, "syscall", c->name);
  ar_json_key (j, "args");
  if (r->args)
    ar_json_raw (j, r->args);
  else
    raw_args (j, c->req);
  ar_json_kstr (j, "verdict", r->verdict);
  if (r->err)
    ar_json_kstr (j, "errno", strerrorname_np (r->err));
  ar_json_kstr (j, "rule", c->rule ? c->rule : e && e->rule ? e->rule : "unknown-syscall");
  ar_json_kstr (j, "severity", policy_severity_name (r->severity));
  ar_json_obj_close (j);
  line = ar_json_finish (j, &len);
  line = xrealloc (line, len + 2);
  append_line (c->sv, line, len);
}

static void
flush_record (struct sv_call *c, struct sv_record *r)
{
  write_record (c, r);
  free (r->args);
  r->args = NULL;
  r->pending = false;
  if (r->stale_fd >= 0)
    close (r->stale_fd);
  r->stale_fd = -1;
}

void
sv_audit_flush (struct sv_call *c)
{
  if (c->record && c->record->pending)
    flush_record (c, c->record);
}

void
sv_audit (struct sv_call *c, const char *verdict, int err, const char *args_json)
{
  const struct sc_entry *e = c->entry;
  int sev = c->severity != SEV_NONE ? c->severity : e ? e->severity : SEV_WARN;
  struct sv_record now = { .stale_fd = -1 };
  struct sv_record *r = c->record && !c->record->pending ? c->record : &now;
  bool valid;

  if (!admit (c->sv, sev == SEV_ALERT))
    return;
  clock_gettime (CLOCK_REALTIME, &r->time);
  if (c->comm)
    snprintf (r->comm, sizeof r->comm, "%s", c->comm);
  else
    read_comm ((pid_t) c->req->pid, r->comm, sizeof r->comm, &r->stale_fd);
  /* Also vouches for what the handler read unchecked: the caller was blocked in this call all
     along, so its pid named it.  */
  valid = sv_id_valid (c);
  if (!valid)
    r->comm[0] = '\0';
  r->verdict = verdict;
  r->err = err;
  r->severity = sev == SEV_NONE ? SEV_INFO : sev;
  r->args = args_json && (valid || !c->unchecked) ? xstrdup (args_json) : NULL;
  r->pending = true;
  if (r == &now)
    flush_record (c, r);
}

void
sv_audit_event (struct sv *sv, const char *event, const char *severity, const char *detail)
{
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *line = NULL;
  struct timespec now;
  size_t len;

  clock_gettime (CLOCK_REALTIME, &now);
  open_record (j, sv, &now);
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

int
audit_open_log (const char *path, ar_error_t *err)
{
  int fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0640);
  struct stat st;

  if (fd < 0)
    return ar_make_error (err, errno, "open the audit log `%s`", path);
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return ar_make_error (err, EINVAL, "the audit log `%s` is not a regular file", path);
    }
  return fd;
}
