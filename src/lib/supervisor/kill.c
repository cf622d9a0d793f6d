/* Fail closed: killing the whole container, which every part of the supervisor does when it
   cannot go on (the watchdog when the worker dies or stops, the worker when the watchdog does,
   either on an unexpected stop or when the deadline passes, and a command that finds the
   supervisor lost), and leaving word of why and of the supervisor's end.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "supervisor/kill.h"
#include "utils.h"

/* The init first, and gone before the cgroups are frozen for the rest (cgroup_signal_all): the
   killer may itself be killed at any moment (killing the supervisor is how the container is
   attacked), and on cgroup v1 a process frozen with its SIGKILL pending stays frozen until
   someone thaws it; the init, which engines wait for, must not be left so.  With its own pid
   namespace its death takes every process in it.  A second at most: a paused container's init
   dies only when the cgroup pass thaws it.  */
void
sv_kill_container (const struct supervisor_cfg *c, int init_pidfd)
{
  struct pollfd p = { .fd = init_pidfd, .events = POLLIN };

  if (syscall (SYS_pidfd_send_signal, init_pidfd, SIGKILL, NULL, 0) == 0)
    (void) poll (&p, 1, 1000);
  sv_kill_cgroups (c->cgroup_dirs);
}

void
sv_kill_cgroups (char *const *dirs)
{
  struct cgroup cg;

  if (dirs && cgroup_from_dirs (dirs, NULL, &cg, NULL) == 0)
    {
      (void) cgroup_signal_all (&cg, SIGKILL, NULL);
      cgroup_release (&cg);
    }
}

bool
sv_mark_end (int dirfd, const char *why)
{
  int fd = openat (dirfd, SUPERVISOR_END_FILE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                   0644);

  if (fd < 0)
    return false;
  (void) !write (fd, why, strlen (why));
  (void) !write (fd, "\n", 1);
  close (fd);
  return true;
}

void
sv_stop_reason (int dirfd, const char *reason)
{
  cleanup_free char *text = xasprintf ("%s\n", reason);

  (void) ar_replace_file (dirfd, SUPERVISOR_STOP_REASON_FILE, text, strlen (text), 0644, NULL);
}
