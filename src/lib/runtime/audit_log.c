/* Reading a container's audit log (`agentrt audit`): the lines the supervisor wrote, and with
   follow the ones it goes on writing until the container and its supervisor are gone.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "runtime/container_internal.h"
#include "supervisor/supervisor.h"
#include "utils.h"

#define FOLLOW_POLL_MS 200

static int
open_log (const struct ar_globals *g, const char *id, struct state **st, int *fd, ar_error_t *err)
{
  cleanup_close int dirfd = -1;
  struct state *s;

  if (container_load_locked (g, id, false, &dirfd, st, err) < 0)
    return -1;
  s = *st;
  /* With --platform none only a deadline keeper writes one.  */
  if (s->platform == NULL || (strcmp (s->platform, "none") == 0 && s->sv_pid <= 0))
    return ar_make_error (err, 0, "container `%s` has no supervisor (platform none): no audit log",
                          id);
  *fd = s->audit_log ? open (s->audit_log, AR_O_READ_FILE)
                     : openat (dirfd, "audit.jsonl", AR_O_READ_FILE);
  /* The supervisor creates it when it starts; none yet is an empty log.  */
  if (*fd < 0 && errno != ENOENT)
    return ar_make_error (err, errno, "container `%s`: open its audit log", id);
  if (*fd >= 0 && ar_check_regular (*fd, s->audit_log ? s->audit_log : "audit.jsonl", err) < 0)
    return ar_error_wrap (err, "container `%s`: its audit log", id);
  return 0;
}

/* Hand every complete line read so far to `fn`; a partial last line waits in `buf`.  */
static int
drain (int fd, char **buf, size_t *len, ar_audit_line_fn fn, void *data, ar_error_t *err)
{
  char chunk[65536];
  ssize_t n;

  while ((n = read (fd, chunk, sizeof chunk)) > 0)
    {
      char *start, *nl;
      *buf = xrealloc (*buf, *len + (size_t) n + 1);
      memcpy (*buf + *len, chunk, (size_t) n);
      *len += (size_t) n;
      (*buf)[*len] = '\0';
      start = *buf;
      while ((nl = strchr (start, '\n')) != NULL)
        {
          *nl = '\0';
          if (nl > start)
            fn (start, data);
          start = nl + 1;
        }
      *len -= (size_t) (start - *buf);
      memmove (*buf, start, *len + 1);
    }
  if (n < 0)
    return ar_make_error (err, errno, "read the audit log");
  return 0;
}

int
ar_container_audit (const struct ar_globals *g, const char *id, bool follow, ar_audit_line_fn fn,
                    void *data, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_close int fd = -1;
  cleanup_free char *buf = NULL;
  size_t len = 0;

  if (open_log (g, id, &s, &fd, err) < 0)
    return -1;
  for (;;)
    {
      if (fd >= 0 && drain (fd, &buf, &len, fn, data, err) < 0)
        return -1;
      if (!follow || !supervisor_alive (s->sv_pid, s->sv_start))
        break;
      (void) poll (NULL, 0, FOLLOW_POLL_MS);
      if (fd < 0)
        {
          fd = s->audit_log ? open (s->audit_log, AR_O_READ_FILE) : -1;
          if (fd >= 0 && ar_check_regular (fd, s->audit_log, err) < 0)
            return ar_error_wrap (err, "container `%s`: its audit log", id);
        }
    }
  /* Whatever the supervisor wrote last, before it exited.  */
  if (fd >= 0 && drain (fd, &buf, &len, fn, data, err) < 0)
    return -1;
  return 0;
}
