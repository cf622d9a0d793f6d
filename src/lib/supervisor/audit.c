/* The audit log: one JSON line per supervised or denied call, appended with a single write(2)
   to an O_APPEND file so that lines of concurrent threads never interleave.  The count of alerts
   is kept beside it (audit.alerts) for `agentrt state`.

   A workload can make denied calls as fast as the supervisor answers them (200k records in 3 s
   were measured; 43 MiB a second of JSON with long arguments), which would fill --root, a tmpfs
   by default: every string of a record is capped (AUDIT_STR_MAX, the record AUDIT_RECORD_MAX),
   repeats are aggregated, and the log has a rate and a size cap with a reserve for alerts
   (audit_budget.h).  Alerts are always counted, written or not.  The record is decided before
   the answer (what it says is read from the caller then) and aggregated, formatted and written
   after it (sv_audit_flush), so none of that is part of the caller's wait.  */
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

void
sv_audit_init (struct sv *sv, const struct audit_limits *lim)
{
  pthread_mutex_init (&sv->audit_lock, NULL);
  audit_budget_init (&sv->budget, lim);
  atomic_init (&sv->audit_closed, false);
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
append_line (struct sv *sv, const char *line, size_t len)
{
  if (write (sv->audit_fd, line, len) != (ssize_t) len)
    ar_warn ("audit log: write: %s", strerror (errno));
}

/* The finished record as one line (newline included, *len its length).  */
static char *
finish_line (struct ar_json *j, size_t *len)
{
  char *line = ar_json_finish (j, len);

  line = xrealloc (line, *len + 2);
  line[(*len)++] = '\n';
  line[*len] = '\0';
  return line;
}

static void
open_record (struct ar_json *j, struct sv *sv, const struct timespec *when)
{
  cleanup_free char *time = ar_time_rfc3339 (when);

  ar_json_obj_open (j);
  ar_json_kstr (j, "time", time);
  ar_json_kstr (j, "id", sv->id);
}

/* A string of the workload's (or one that quotes it), cut at AUDIT_STR_MAX.  */
static void
kstr_capped (struct ar_json *j, const char *key, const char *s, bool *truncated)
{
  bool cut;

  ar_json_key (j, key);
  ar_json_str_max (j, s, AUDIT_STR_MAX, &cut);
  *truncated |= cut;
}

/* An aggregate's count, and the times of the first and last call it counts.  */
static void
count_fields (struct ar_json *j, const struct audit_agg_entry *e)
{
  cleanup_free char *first = ar_time_rfc3339 (&e->first);
  cleanup_free char *last = ar_time_rfc3339 (&e->last);

  ar_json_key (j, "count");
  ar_json_uint (j, e->count);
  ar_json_kstr (j, "first", first);
  ar_json_kstr (j, "last", last);
}

static void
close_record (struct ar_json *j, bool truncated)
{
  if (truncated)
    ar_json_kbool (j, "truncated", true);
  ar_json_obj_close (j);
}

/* The budget's notices, accounted for by audit_budget_admit (AUDIT_NOTICE_MAX each).  */
static void
write_notice (struct sv *sv, unsigned notice)
{
  const struct audit_limits *l = &sv->budget.lim;
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *detail = NULL;
  cleanup_free char *line = NULL;
  struct timespec now;
  size_t len;

  if (notice == AUDIT_NOTICE_CLOSED)
    detail = xasprintf ("the audit log has used its budget (%llu of %llu bytes, the rest is "
                        "reserved for alerts): from now on only alerts are written, and the "
                        "alert count goes on in io.agentrt.audit.alerts",
                        (unsigned long long) (l->max_bytes - l->alert_reserve),
                        (unsigned long long) l->max_bytes);
  else
    detail = xasprintf ("the audit log's reserve for alerts is used up (%llu bytes): nothing "
                        "more is written; alerts are still counted in io.agentrt.audit.alerts",
                        (unsigned long long) l->alert_reserve);
  clock_gettime (CLOCK_REALTIME, &now);
  open_record (j, sv, &now);
  ar_json_kstr (j, "event",
                notice == AUDIT_NOTICE_CLOSED ? "audit-budget-exhausted"
                                              : "audit-reserve-exhausted");
  ar_json_kstr (j, "detail", detail);
  ar_json_kstr (j, "severity", "warn");
  ar_json_obj_close (j);
  line = finish_line (j, &len);
  append_line (sv, line, len);
}

/* Write a record if the budget admits it, with the notices that come with it.  Written under
   the lock (after the answer, and a write to the log takes microseconds), so that the log's
   order is the budget's: nothing but alerts follows the notice that says so.  */
static void
put (struct sv *sv, enum audit_kind kind, const char *line, size_t len, unsigned long stands_for)
{
  unsigned notices;
  bool ok;

  pthread_mutex_lock (&sv->audit_lock);
  ok = audit_budget_admit (&sv->budget, kind, len, stands_for, ar_monotonic_ns (), &notices);
  if (notices & AUDIT_NOTICE_CLOSED)
    {
      atomic_store (&sv->audit_closed, true);
      write_notice (sv, AUDIT_NOTICE_CLOSED);
    }
  if (ok)
    append_line (sv, line, len);
  if (notices & AUDIT_NOTICE_RESERVE)
    write_notice (sv, AUDIT_NOTICE_RESERVE);
  pthread_mutex_unlock (&sv->audit_lock);
}

/* The raw arguments, as the kernel passed them: JSON text.  */
static char *
raw_args (const struct seccomp_notif *req)
{
  const __u64 *a = req->data.args;

  return xasprintf ("[\"0x%llx\",\"0x%llx\",\"0x%llx\",\"0x%llx\",\"0x%llx\",\"0x%llx\"]",
                    (unsigned long long) a[0], (unsigned long long) a[1], (unsigned long long) a[2],
                    (unsigned long long) a[3], (unsigned long long) a[4],
                    (unsigned long long) a[5]);
}

static const char *
rule_of (const struct sv_call *c)
{
  const struct sc_entry *e = c->entry;
  return c->rule ? c->rule : e && e->rule ? e->rule : "unknown-syscall";
}

/* A call's record.  Its strings are capped (AUDIT_STR_MAX, the handlers' own caps for args);
   a record that still comes out longer than AUDIT_RECORD_MAX is written without its args.  */
static char *
format_call (struct sv_call *c, const struct sv_record *r, bool with_args, size_t *len)
{
  struct ar_json *j = ar_json_new (NULL);
  bool truncated = r->truncated || !with_args;

  open_record (j, c->sv, &r->time);
  ar_json_kint (j, "pid", (long long) c->req->pid);
  kstr_capped (j, "comm", r->comm, &truncated);
  ar_json_kstr (j, "syscall", c->name);
  ar_json_key (j, "args");
  if (with_args)
    ar_json_raw (j, r->args);
  else
    ar_json_null (j);
  ar_json_kstr (j, "verdict", r->verdict);
  if (r->err)
    ar_json_kstr (j, "errno", strerrorname_np (r->err));
  ar_json_kstr (j, "rule", rule_of (c));
  ar_json_kstr (j, "severity", policy_severity_name (r->severity));
  close_record (j, truncated);
  return finish_line (j, len);
}

/* An aggregate's args: its last call's, or null when they are left out.  */
static void
put_args (struct ar_json *j, const struct audit_agg_entry *e, bool with_args)
{
  ar_json_key (j, "args");
  if (with_args && e->payload)
    ar_json_raw (j, e->payload);
  else
    ar_json_null (j);
}

/* An aggregate: the record of the last call it counts, with the count and the times of the
   first and the last.  */
static char *
format_summary (struct sv *sv, const struct audit_agg_entry *e, bool with_args, size_t *len)
{
  struct ar_json *j = ar_json_new (NULL);
  bool truncated = e->truncated || !with_args;
  bool event = e->verdict == NULL;

  open_record (j, sv, &e->last);
  if (!event && e->pid < 0)
    {
      /* A record of no call (sv_audit_query): the event, its args and its verdict.  */
      ar_json_kstr (j, "event", e->name);
      put_args (j, e, with_args);
      ar_json_kstr (j, "verdict", e->verdict);
      ar_json_kstr (j, "rule", e->rule);
    }
  else if (event)
    {
      ar_json_kstr (j, "event", e->name);
      kstr_capped (j, "detail", e->payload, &truncated);
    }
  else
    {
      ar_json_kint (j, "pid", e->pid);
      kstr_capped (j, "comm", e->last_comm, &truncated);
      ar_json_kstr (j, "syscall", e->name);
      put_args (j, e, with_args);
      ar_json_kstr (j, "verdict", e->verdict);
      if (e->err)
        ar_json_kstr (j, "errno", strerrorname_np (e->err));
      ar_json_kstr (j, "rule", e->rule);
    }
  ar_json_kstr (j, "severity", policy_severity_name (e->severity));
  count_fields (j, e);
  close_record (j, truncated);
  return finish_line (j, len);
}

static void
write_summary (struct sv *sv, const struct audit_agg_entry *e)
{
  size_t len;
  cleanup_free char *line = format_summary (sv, e, true, &len);

  if (len > AUDIT_RECORD_MAX)
    {
      free (line);
      line = format_summary (sv, e, false, &len);
    }
  put (sv, e->severity == SEV_ALERT ? AUDIT_ALERT : AUDIT_CALL, line, len, e->count);
}

static char *
format_event (struct sv *sv, const struct timespec *when, const char *event, const char *severity,
              const char *detail, size_t *len)
{
  struct ar_json *j = ar_json_new (NULL);
  bool truncated = false;

  open_record (j, sv, when);
  ar_json_kstr (j, "event", event);
  if (detail)
    kstr_capped (j, "detail", detail, &truncated);
  ar_json_kstr (j, "severity", severity);
  close_record (j, truncated);
  return finish_line (j, len);
}

#define DUE_BATCH 32

static void
audit_tick (struct sv *sv, bool all)
{
  struct audit_agg_entry due[DUE_BATCH];
  unsigned long suppressed, alerts;
  uint64_t now = ar_monotonic_ns ();
  bool changed;
  size_t n;

  /* The count first: whoever saw the container end may be reading it (`state`).  */
  pthread_mutex_lock (&sv->audit_lock);
  alerts = sv->budget.alerts;
  changed = alerts != sv->alerts_written;
  sv->alerts_written = alerts;
  pthread_mutex_unlock (&sv->audit_lock);
  if (changed)
    write_alerts (sv, alerts);
  /* Entries written get a new window, so a batch that is full is followed by the rest.  */
  do
    {
      pthread_mutex_lock (&sv->audit_lock);
      n = audit_agg_expire (&sv->budget, now, all, due, DUE_BATCH);
      pthread_mutex_unlock (&sv->audit_lock);
      for (size_t i = 0; i < n; i++)
        {
          write_summary (sv, &due[i]);
          audit_agg_entry_clear (&due[i]);
        }
    }
  while (n == DUE_BATCH);
  /* Last: aggregates over the rate are among them.  */
  pthread_mutex_lock (&sv->audit_lock);
  suppressed = audit_budget_take_suppressed (&sv->budget);
  pthread_mutex_unlock (&sv->audit_lock);
  if (suppressed)
    {
      struct timespec when;
      size_t len;
      cleanup_free char *detail = xasprintf (
          "the records of %lu calls over the rate limit (%llu bytes a second) were not written",
          suppressed, (unsigned long long) sv->budget.lim.rate);
      cleanup_free char *line = NULL;
      clock_gettime (CLOCK_REALTIME, &when);
      line = format_event (sv, &when, "audit-suppressed", "warn", detail, &len);
      put (sv, AUDIT_NOTE, line, len, 0);
    }
}

void
sv_audit_tick (struct sv *sv)
{
  audit_tick (sv, false);
}

void
sv_audit_finish (struct sv *sv)
{
  audit_tick (sv, true);
}

/* After the answer: aggregated, or formatted and written if the budget admits it.  */
static void
flush_record (struct sv_call *c, struct sv_record *r)
{
  struct sv *sv = c->sv;
  bool alert = r->severity == SEV_ALERT, folded, dropped;
  struct audit_key k = { .name = c->name,
                         .verdict = r->verdict,
                         .rule = rule_of (c),
                         .comm = r->comm,
                         .subject = r->subject,
                         .err = r->err,
                         .severity = r->severity };
  uint64_t now = ar_monotonic_ns ();
  struct audit_seen seen = {
    .when = r->time, .pid = (long long) c->req->pid, .comm = r->comm, .truncated = r->truncated
  };

  if (r->args == NULL)
    r->args = raw_args (c->req);
  pthread_mutex_lock (&sv->audit_lock);
  if (alert)
    sv->budget.alerts++;
  /* Past the alerts' rate, or in the reserve, alerts are aggregated by call alone: a workload
     that renames itself for each call must not fill the log (audit_budget.h).  */
  if (alert && !audit_budget_alert_precise (&sv->budget, now))
    k.comm = k.subject = NULL;
  seen.payload = steal_ptr (&r->args);
  folded = audit_agg_fold (&sv->budget, &k, now, &seen);
  r->args = seen.payload;
  /* Over the rate by its args alone: not worth formatting (nor the time of the next call).  */
  dropped = !folded
            && !audit_budget_may (&sv->budget, alert ? AUDIT_ALERT : AUDIT_CALL,
                                  strlen (r->args) + strlen (sv->id) + 128, 1, now);
  pthread_mutex_unlock (&sv->audit_lock);
  if (!folded && !dropped)
    {
      size_t len;
      cleanup_free char *line = format_call (c, r, true, &len);
      if (len > AUDIT_RECORD_MAX)
        {
          free (line);
          line = format_call (c, r, false, &len);
        }
      put (sv, alert ? AUDIT_ALERT : AUDIT_CALL, line, len, 1);
    }
  free (r->args);
  r->args = NULL;
  free (r->subject);
  r->subject = NULL;
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
  bool valid, vouched;

  /* Once the budget is used, only alerts are written: the rest costs nothing more.  */
  if (sev != SEV_ALERT && atomic_load_explicit (&c->sv->audit_closed, memory_order_relaxed))
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
  vouched = valid || !c->unchecked;
  r->verdict = verdict;
  r->err = err;
  r->severity = sev == SEV_NONE ? SEV_INFO : sev;
  r->args = args_json && vouched ? xstrdup (args_json) : NULL;
  r->subject = c->subject && vouched ? xstrdup (c->subject) : NULL;
  r->truncated = c->truncated && vouched;
  r->pending = true;
  if (r == &now)
    flush_record (c, r);
}

void
sv_audit_event_keyed (struct sv *sv, const char *event, const char *severity, const char *detail,
                      const char *key)
{
  bool alert = strcmp (severity, "alert") == 0, folded = false;
  struct audit_key k = { .name = event, .subject = key ? key : detail, .severity = SEV_ALERT };
  cleanup_free char *last = detail ? xstrdup (detail) : NULL;
  unsigned long n = 0;
  struct timespec when;

  clock_gettime (CLOCK_REALTIME, &when);
  if (alert)
    {
      pthread_mutex_lock (&sv->audit_lock);
      n = ++sv->budget.alerts;
      sv->alerts_written = n;
      struct audit_seen seen = { .when = when, .payload = steal_ptr (&last) };
      folded = audit_agg_fold (&sv->budget, &k, ar_monotonic_ns (), &seen);
      last = seen.payload;
      pthread_mutex_unlock (&sv->audit_lock);
    }
  if (!folded)
    {
      size_t len;
      cleanup_free char *line = format_event (sv, &when, event, severity, detail, &len);
      put (sv, alert ? AUDIT_ALERT : AUDIT_NOTE, line, len, 1);
    }
  /* The supervisor may be about to exit: written now, not at the next tick.  */
  if (alert)
    write_alerts (sv, n);
}

void
sv_audit_query (struct sv *sv, const char *verdict, const char *rule, const char *subject,
                const char *args_json)
{
  struct audit_key k = {
    .name = "dns", .verdict = verdict, .rule = rule, .subject = subject, .severity = SEV_WARN
  };
  struct timespec when;
  struct audit_seen seen = { .pid = -1, .comm = "" };
  uint64_t now = ar_monotonic_ns ();
  struct ar_json *j;
  cleanup_free char *line = NULL;
  size_t len;
  bool folded;

  if (atomic_load_explicit (&sv->audit_closed, memory_order_relaxed))
    return;
  clock_gettime (CLOCK_REALTIME, &when);
  seen.when = when;
  seen.payload = xstrdup (args_json);
  pthread_mutex_lock (&sv->audit_lock);
  folded = audit_agg_fold (&sv->budget, &k, now, &seen);
  pthread_mutex_unlock (&sv->audit_lock);
  free (seen.payload);
  if (folded)
    return;
  j = ar_json_new (NULL);
  open_record (j, sv, &when);
  ar_json_kstr (j, "event", "dns");
  ar_json_key (j, "args");
  ar_json_raw (j, args_json);
  ar_json_kstr (j, "verdict", verdict);
  ar_json_kstr (j, "rule", rule);
  ar_json_kstr (j, "severity", "warn");
  ar_json_obj_close (j);
  line = finish_line (j, &len);
  put (sv, AUDIT_CALL, line, len, 1);
}

void
sv_audit_event (struct sv *sv, const char *event, const char *severity, const char *detail)
{
  sv_audit_event_keyed (sv, event, severity, detail, NULL);
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
