/* The diagnostic log sink.  Formats follow runc (logrus): text lines
   `time="…" level=error msg="…"` and JSON lines {"level":"error","msg":"…","time":"…"}, which
   containerd's shim and conmon parse from the --log file to show a runtime's error.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "utils.h"

enum ar_log_level ar_log_level_current = AR_LOG_WARN;
static int log_fd = -1;
static enum ar_log_format log_format = AR_LOG_TEXT;

static const char *const level_names[] = {
  [AR_LOG_ERROR] = "error",
  [AR_LOG_WARN] = "warning",
  [AR_LOG_INFO] = "info",
  [AR_LOG_DEBUG] = "debug",
};

int
ar_log_parse_format (const char *s, enum ar_log_format *out)
{
  if (strcmp (s, "text") == 0)
    *out = AR_LOG_TEXT;
  else if (strcmp (s, "json") == 0)
    *out = AR_LOG_JSON;
  else
    return -1;
  return 0;
}

int
ar_log_parse_level (const char *s, enum ar_log_level *out)
{
  for (size_t i = 0; i < ARRAY_SIZE (level_names); i++)
    if (strcmp (s, level_names[i]) == 0)
      {
        *out = (enum ar_log_level) i;
        return 0;
      }
  if (strcmp (s, "warn") == 0)
    {
      *out = AR_LOG_WARN;
      return 0;
    }
  return -1;
}

int
ar_log_init (const char *path, enum ar_log_format format, enum ar_log_level level, ar_error_t *err)
{
  ar_log_level_current = level;
  log_format = format;
  if (path == NULL || *path == '\0')
    return 0;
  log_fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log_fd < 0)
    return ar_make_error (err, errno, "open log file `%s`", path);
  return 0;
}

void
ar_log_close (void)
{
  if (log_fd >= 0)
    close (log_fd);
  log_fd = -1;
}

static char *
now_rfc3339 (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return ar_time_rfc3339 (&ts);
}

static char *
format_json_line (enum ar_log_level level, const char *msg)
{
  cleanup_free char *t = now_rfc3339 ();
  struct ar_json *j = ar_json_new (NULL);
  char *line, *out;

  ar_json_obj_open (j);
  ar_json_kstr (j, "level", level_names[level]);
  ar_json_kstr (j, "msg", msg);
  ar_json_kstr (j, "time", t);
  ar_json_obj_close (j);
  line = ar_json_finish (j, NULL);
  out = xasprintf ("%s\n", line);
  free (line);
  return out;
}

/* logrus quotes msg with Go's %q; escaping quotes and backslashes is what parsers rely on.  */
static char *
format_text_line (enum ar_log_level level, const char *msg)
{
  cleanup_free char *t = now_rfc3339 ();
  cleanup_free char *q = xmalloc (strlen (msg) * 2 + 1);
  char *p = q;

  for (const char *s = msg; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        *p++ = '\\';
      *p++ = *s == '\n' ? ' ' : *s;
    }
  *p = '\0';
  return xasprintf ("time=\"%s\" level=%s msg=\"%s\"\n", t, level_names[level], q);
}

static void
emit (enum ar_log_level level, const char *msg, bool to_stderr)
{
  if (log_fd >= 0)
    {
      cleanup_free char *line = log_format == AR_LOG_JSON ? format_json_line (level, msg)
                                                          : format_text_line (level, msg);
      (void) ar_write_all (log_fd, line, strlen (line), "log", NULL);
    }
  if (to_stderr || log_fd < 0)
    {
      cleanup_free char *line = level == AR_LOG_ERROR
                                    ? xasprintf ("agentrt: %s\n", msg)
                                    : xasprintf ("agentrt: %s: %s\n", level_names[level], msg);
      (void) ar_write_all (2, line, strlen (line), "stderr", NULL);
    }
}

void
ar_log_to_file (enum ar_log_level level, const char *msg)
{
  if (log_fd >= 0)
    emit (level, msg, false);
}

void
ar_log_write (enum ar_log_level level, const char *fmt, ...)
{
  cleanup_free char *msg = NULL;
  va_list ap;
  int saved = errno;

  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) < 0)
    ar_oom ();
  va_end (ap);
  emit (level, msg, false);
  errno = saved;
}

void
ar_log_error_release (ar_error_t *err)
{
  cleanup_free char *text = ar_error_text (err ? *err : NULL);
  emit (AR_LOG_ERROR, text, true);
  ar_error_release (err);
}
