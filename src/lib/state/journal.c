/* The journal of a state directory (journal.h): appended records, read by delete.  A record is
   one write(2) of a few hundred bytes to a regular file opened with O_APPEND, which a killed
   writer cannot leave half-written in practice; should one be, its line does not parse, or has
   no newline yet, and is skipped, and the next record starts a line of its own.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/journal.h"
#include "utils.h"

#define JOURNAL_MAX (1 << 20)

void
state_journal_release (struct state_journal *j)
{
  ar_strv_free (j->cgroup_dirs);
  free (j->unit);
  memset (j, 0, sizeof *j);
}

int
state_journal_open (int dirfd, ar_error_t *err)
{
  int fd
      = openat (dirfd, STATE_JOURNAL, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

  if (fd < 0)
    return ar_make_error (err, errno, "open the container's journal");
  return fd;
}

/* Each record starts a line of its own, whatever the previous write left (an empty line is
   skipped).  */
static int
append (int fd, const char *text, ar_error_t *err)
{
  cleanup_free char *line = xasprintf ("\n%s", text);

  if (ar_write_all (fd, line, strlen (line), STATE_JOURNAL, err) < 0)
    return ar_error_wrap (err, "record in the container's journal");
  return 0;
}

int
state_journal_cgroups (int fd, char *const *dirs, ar_error_t *err)
{
  cleanup_free char *text = xstrdup ("");

  for (size_t i = 0; dirs && dirs[i]; i++)
    {
      char *next;
      if (strchr (dirs[i], '\n'))
        return ar_make_error (err, EINVAL, "cgroup path `%s` holds a newline", dirs[i]);
      next = xasprintf ("%scgroup %s\n", text, dirs[i]);
      free (text);
      text = next;
    }
  return *text ? append (fd, text, err) : 0;
}

int
state_journal_unit (int fd, const char *unit, ar_error_t *err)
{
  cleanup_free char *line = NULL;

  if (strchr (unit, '\n') || strchr (unit, ' '))
    return ar_make_error (err, EINVAL, "systemd unit `%s` holds a blank", unit);
  line = xasprintf ("unit %s\n", unit);
  return append (fd, line, err);
}

int
state_journal_process (int fd, const char *role, pid_t pid, unsigned long long start,
                       ar_error_t *err)
{
  char line[96];

  snprintf (line, sizeof line, "%s %d %llu\n", role, (int) pid, start);
  return append (fd, line, err);
}

int
state_journal_deleting (int dirfd, ar_error_t *err)
{
  cleanup_close int fd = state_journal_open (dirfd, err);

  if (fd < 0)
    return -1;
  return append (fd, "delete\n", err);
}

static void
add_dir (struct state_journal *j, const char *dir)
{
  size_t n = ar_strv_len (j->cgroup_dirs);

  for (size_t i = 0; i < n; i++)
    if (strcmp (j->cgroup_dirs[i], dir) == 0)
      return;
  j->cgroup_dirs = xrealloc (j->cgroup_dirs, (n + 2) * sizeof *j->cgroup_dirs);
  j->cgroup_dirs[n] = xstrdup (dir);
  j->cgroup_dirs[n + 1] = NULL;
}

/* "PID START", both positive.  */
static bool
parse_process (const char *s, pid_t *pid, unsigned long long *start)
{
  int p, used = 0;
  unsigned long long st;

  if (sscanf (s, "%d %llu%n", &p, &st, &used) != 2 || s[used] != '\0' || p <= 0 || st == 0)
    return false;
  *pid = p;
  *start = st;
  return true;
}

static void
read_line (struct state_journal *j, const char *l)
{
  if (ar_str_has_prefix (l, "cgroup /"))
    add_dir (j, l + strlen ("cgroup "));
  else if (ar_str_has_prefix (l, "unit ") && l[5] && strchr (l + 5, ' ') == NULL)
    {
      free (j->unit);
      j->unit = xstrdup (l + 5);
    }
  else if (ar_str_has_prefix (l, "init "))
    (void) parse_process (l + strlen ("init "), &j->init_pid, &j->init_start);
  else if (ar_str_has_prefix (l, "supervisor "))
    (void) parse_process (l + strlen ("supervisor "), &j->sv_pid, &j->sv_start);
  else if (strcmp (l, "delete") == 0)
    j->deleting = true;
}

static bool
owner_ok (const struct stat *st)
{
  return (st->st_uid == 0 || st->st_uid == geteuid ()) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The journal names cgroups that delete kills and removes: it counts only in a directory of
   root's or ours that nobody else may write, and as such a file with no other name (a hard
   link).  */
static bool
ours (int dirfd, int fd)
{
  struct stat d, f;

  return fstat (dirfd, &d) == 0 && fstat (fd, &f) == 0 && S_ISDIR (d.st_mode) && owner_ok (&d)
         && S_ISREG (f.st_mode) && owner_ok (&f) && f.st_nlink == 1;
}

void
state_journal_read (int dirfd, struct state_journal *j)
{
  cleanup_close int fd = openat (dirfd, STATE_JOURNAL, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_free char *text = NULL;
  char *save = NULL, *end;

  memset (j, 0, sizeof *j);
  if (fd < 0 || !ours (dirfd, fd)
      || ar_read_fd (fd, STATE_JOURNAL, JOURNAL_MAX, &text, NULL, NULL) < 0)
    return;
  j->present = true;
  /* A last line without its newline was cut short: it is not a record.  */
  end = strrchr (text, '\n');
  if (end == NULL)
    return;
  end[1] = '\0';
  for (char *l = strtok_r (text, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
    read_line (j, l);
}
