/* The audit log: one JSON line per supervised or denied call, appended with a single write(2)
   to an O_APPEND file so that lines of concurrent threads never interleave.  The count of alerts
   is kept beside it (audit.alerts) for `agentrt state`.  */
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

static void
count_alert (struct sv *sv)
{
  char text[32];
  int len;
  ar_error_t err = NULL;

  pthread_mutex_lock (&sv->alerts_lock);
  len = snprintf (text, sizeof text, "%lu\n", ++sv->alerts);
  if (ar_write_file_atomic (sv->state_dirfd, SUPERVISOR_ALERTS_FILE, text, (size_t) len, 0644, &err)
      < 0)
    ar_log_error_release (&err);
  pthread_mutex_unlock (&sv->alerts_lock);
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
sv_audit (struct sv_call *c, const char *verdict, int err, const char *args_json)
{
  struct ar_json *j = ar_json_new (NULL);
  const struct sc_entry *e = c->entry;
  int sev = e ? e->severity : SEV_WARN;
  cleanup_free char *line = NULL;
  char comm[32];
  size_t len;

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
  ar_json_kstr (j, "rule", e && e->rule ? e->rule : "unknown-syscall");
  ar_json_kstr (j, "severity", policy_severity_name (sev == SEV_NONE ? SEV_INFO : sev));
  ar_json_obj_close (j);
  line = ar_json_finish (j, &len);
  line = xrealloc (line, len + 2);
  append_line (c->sv, line, len);
  if (sev == SEV_ALERT)
    count_alert (c->sv);
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
    count_alert (sv);
}
