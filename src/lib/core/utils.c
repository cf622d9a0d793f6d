/* File I/O, time and parsing helpers shared by every module (allocation: alloc.c).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h> /* struct clone_args, CLONE_INTO_CGROUP */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "utils.h"

int
ar_read_fd (int fd, const char *what, size_t max, char **out, size_t *len, ar_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t used = 0, cap = 0;

  if (max == 0)
    max = 16 << 20;
  for (;;)
    {
      ssize_t r;
      if (cap - used < 4096)
        {
          cap = cap ? cap * 2 : 8192;
          buf = xrealloc (buf, cap + 1);
        }
      r = read (fd, buf + used, cap - used);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ar_make_error (err, errno, "read `%s`", what);
      if (r == 0)
        break;
      used += r;
      if (used > max)
        return ar_make_error (err, 0, "%s: larger than %zu bytes", what, max);
    }
  buf[used] = '\0';
  if (len)
    *len = used;
  *out = steal_ptr (&buf);
  return 0;
}

uint64_t
ar_monotonic_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) t.tv_sec * 1000000000 + (uint64_t) t.tv_nsec;
}

int64_t
ar_monotonic_ms (void)
{
  return (int64_t) (ar_monotonic_ns () / 1000000);
}

int
ar_check_regular (int fd, const char *what, ar_error_t *err)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "stat `%s`", what);
  if (!S_ISREG (st.st_mode))
    return ar_make_error (err, 0, "`%s` is not a regular file", what);
  return 0;
}

int
ar_read_file (const char *path, size_t max, char **out, size_t *len, ar_error_t *err)
{
  cleanup_close int fd = open (path, AR_O_READ_FILE);

  if (fd < 0)
    return ar_make_error (err, errno, "open `%s`", path);
  if (ar_check_regular (fd, path, err) < 0)
    return -1;
  return ar_read_fd (fd, path, max, out, len, err);
}

int
ar_write_all (int fd, const char *buf, size_t len, const char *what, ar_error_t *err)
{
  while (len > 0)
    {
      ssize_t w = write (fd, buf, len);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return ar_make_error (err, errno, "write `%s`", what);
      buf += w;
      len -= w;
    }
  return 0;
}

/* A new temporary file beside `name`: O_EXCL|O_NOFOLLOW with a random suffix, so a name planted
   in a shared directory (a symlink to a host file) is never opened.  */
static int
open_temp (int dirfd, const char *name, mode_t mode, char **tmp, ar_error_t *err)
{
  for (int tries = 0; tries < 100; tries++)
    {
      unsigned long long r = 0;
      int fd;

      if (getentropy (&r, sizeof r) < 0)
        r = (unsigned long long) getpid () * 2654435761u + (unsigned long long) tries;
      free (*tmp);
      *tmp = xasprintf (".%s.%016llx", name, r);
      fd = openat (dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd >= 0 || errno != EEXIST)
        return fd >= 0 ? fd : ar_make_error (err, errno, "create `%s`", *tmp);
    }
  return ar_make_error (err, EEXIST, "create a temporary file for `%s`", name);
}

static int
write_replace (int dirfd, const char *name, const char *buf, size_t len, mode_t mode, bool sync,
               ar_error_t *err)
{
  cleanup_free char *tmp = NULL;
  cleanup_close int fd = open_temp (dirfd, name, mode, &tmp, err);

  if (fd < 0)
    return -1;
  if (ar_write_all (fd, buf, len, tmp, err) < 0 || (sync && fsync (fd) < 0 && errno != EINVAL))
    {
      if (err && *err == NULL)
        ar_make_error (err, errno, "fsync `%s`", tmp);
      (void) unlinkat (dirfd, tmp, 0);
      return -1;
    }
  if (renameat (dirfd, tmp, dirfd, name) < 0)
    {
      int e = errno;
      (void) unlinkat (dirfd, tmp, 0);
      return ar_make_error (err, e, "rename `%s` to `%s`", tmp, name);
    }
  return 0;
}

int
ar_write_file_atomic (int dirfd, const char *name, const char *buf, size_t len, mode_t mode,
                      ar_error_t *err)
{
  return write_replace (dirfd, name, buf, len, mode, true, err);
}

int
ar_replace_file (int dirfd, const char *name, const char *buf, size_t len, mode_t mode,
                 ar_error_t *err)
{
  return write_replace (dirfd, name, buf, len, mode, false, err);
}

/* The companion, open for writing: ours only if it is a regular file with one name.  */
static int
open_companion (int dirfd, const char *next, mode_t mode)
{
  int fd = openat (dirfd, next, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
  struct stat st;

  if (fd >= 0 && (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_nlink != 1))
    {
      close (fd);
      return -1;
    }
  return fd;
}

int
ar_rewrite_file (int dirfd, const char *name, const char *buf, size_t len, mode_t mode,
                 ar_error_t *err)
{
  cleanup_free char *next = xasprintf (".%s.next", name);
  cleanup_close int fd = open_companion (dirfd, next, mode);

  if (fd < 0)
    return ar_replace_file (dirfd, name, buf, len, mode, err);
  if (ar_write_all (fd, buf, len, next, err) < 0)
    return -1;
  if (ftruncate (fd, (off_t) len) < 0)
    return ar_make_error (err, errno, "truncate `%s`", next);
  if (renameat2 (dirfd, next, dirfd, name, RENAME_EXCHANGE) == 0)
    return 0;
  /* The first time (no `name` yet), or a filesystem without the exchange: a plain rename.  */
  if ((errno == ENOENT || errno == EINVAL || errno == ENOSYS)
      && renameat (dirfd, next, dirfd, name) == 0)
    return 0;
  return ar_make_error (err, errno, "rename `%s` to `%s`", next, name);
}

char *
ar_time_rfc3339 (const struct timespec *ts)
{
  struct tm tm;
  char buf[32];

  gmtime_r (&ts->tv_sec, &tm);
  strftime (buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return xasprintf ("%s.%09ldZ", buf, (long) ts->tv_nsec);
}

bool
ar_str_has_prefix (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

bool
ar_str_has_suffix (const char *s, const char *suffix)
{
  size_t ls = strlen (s), lx = strlen (suffix);
  return ls >= lx && strcmp (s + ls - lx, suffix) == 0;
}

bool
ar_parse_int64 (const char *s, long long min, long long max, long long *out)
{
  char *end = NULL;
  long long v;

  if (s == NULL || *s == '\0')
    return false;
  errno = 0;
  v = strtoll (s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return false;
  *out = v;
  return true;
}

pid_t
ar_clone (unsigned long flags, int cgroup_fd)
{
  struct clone_args a = { .flags = flags, .exit_signal = SIGCHLD };

  if (cgroup_fd < 0)
    return (pid_t) syscall (SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
  a.flags |= CLONE_INTO_CGROUP;
  a.cgroup = (__u64) cgroup_fd;
  return (pid_t) syscall (SYS_clone3, &a, sizeof a);
}
