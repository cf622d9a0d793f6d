/* Starting, finding and stopping the supervisor, and the watchdog that fails closed.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "state.h"
#include "supervisor/confine.h"
#include "supervisor/control.h"
#include "supervisor/supervisor.h"
#include "utils.h"

/* The watchdog's one audit record, written without the worker's machinery.  */
static void
audit_died (const struct supervisor_cfg *c, int status)
{
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *line = NULL;
  cleanup_free char *detail = NULL;
  cleanup_free char *time = NULL;
  struct timespec now;
  size_t len;
  int fd = open (c->audit_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

  if (fd < 0)
    return;
  clock_gettime (CLOCK_REALTIME, &now);
  time = ar_time_rfc3339 (&now);
  detail = WIFSIGNALED (status) ? xasprintf ("killed by signal %d", WTERMSIG (status))
                                : xasprintf ("exited with status %d", WEXITSTATUS (status));
  ar_json_obj_open (j);
  ar_json_kstr (j, "time", time);
  ar_json_kstr (j, "id", c->id);
  ar_json_kstr (j, "event", "supervisor-died");
  ar_json_kstr (j, "detail", detail);
  ar_json_kstr (j, "verdict", "kill-container");
  ar_json_kstr (j, "severity", "alert");
  ar_json_obj_close (j);
  line = ar_json_finish (j, &len);
  line = xrealloc (line, len + 2);
  line[len] = '\n';
  (void) !write (fd, line, len + 1);
  close (fd);
}

static void __attribute__ ((noreturn))
watchdog_loop (const struct supervisor_cfg *c, pid_t worker, int sfd, int init_pidfd)
{
  struct signalfd_siginfo si;
  int status;

  for (;;)
    {
      if (read (sfd, &si, sizeof si) != sizeof si)
        continue;
      if (si.ssi_signo == SIGTERM)
        {
          /* delete: the container is being removed; nothing to fail closed for.  */
          kill (worker, SIGKILL);
          (void) waitpid (worker, NULL, 0);
          _exit (EXIT_SUCCESS);
        }
      if (waitpid (worker, &status, WNOHANG) != worker)
        continue;
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        _exit (EXIT_SUCCESS);
      (void) syscall (SYS_pidfd_send_signal, init_pidfd, SIGKILL, NULL, 0);
      audit_died (c, status);
      _exit (EXIT_FAILURE);
    }
}

static void __attribute__ ((noreturn)) watchdog_main (const struct supervisor_cfg *c, int ready_fd)
{
  sigset_t set;
  int init_pidfd = (int) syscall (SYS_pidfd_open, c->init_pid, 0);
  int sfd;
  pid_t me = getpid (), worker;
  ar_error_t err = NULL;

  (void) prctl (PR_SET_NAME, "agentrt-watch");
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGCHLD);
  if (init_pidfd < 0 || sigprocmask (SIG_BLOCK, &set, NULL) < 0)
    {
      dprintf (ready_fd, "error: supervisor: watch the init: %s", strerror (errno));
      _exit (EXIT_FAILURE);
    }
  sfd = signalfd (-1, &set, SFD_CLOEXEC);
  worker = fork ();
  if (worker == 0)
    {
      /* The watchdog's death is our SIGTERM (blocked: it arrives on the worker's signalfd).  */
      (void) prctl (PR_SET_NAME, "agentrt-sv");
      if (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != me)
        _exit (EXIT_FAILURE);
      supervisor_worker_main (c, ready_fd, init_pidfd);
    }
  close (ready_fd);
  if (worker < 0 || sfd < 0 || confine_supervisor (false, &err) < 0)
    {
      ar_error_release (&err);
      if (worker > 0)
        kill (worker, SIGKILL);
      (void) syscall (SYS_pidfd_send_signal, init_pidfd, SIGKILL, NULL, 0);
      _exit (EXIT_FAILURE);
    }
  watchdog_loop (c, worker, sfd, init_pidfd);
}

/* Everything but stdio and the fds the supervisor needs is closed: it must not keep the
   caller's pipes (an engine waits for their end) or the container's files open.  */
static void
close_others (int keep1, int keep2)
{
  int devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);

  if (devnull >= 0)
    {
      dup2 (devnull, 0);
      dup2 (devnull, 1);
      dup2 (devnull, 2);
      close (devnull);
    }
  for (int fd = 3; fd < 1024; fd++)
    if (fd != keep1 && fd != keep2)
      (void) fcntl (fd, F_SETFD, FD_CLOEXEC), close (fd);
}

static int
read_ready (int fd, pid_t *pid, ar_error_t *err)
{
  char msg[4096];
  ssize_t n;
  long long v;

  do
    n = read (fd, msg, sizeof msg - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return ar_make_error (err, n < 0 ? errno : 0, "the supervisor failed to start");
  msg[n] = '\0';
  if (strncmp (msg, "ok ", 3) == 0 && ar_parse_int64 (msg + 3, 1, 1 << 30, &v))
    {
      *pid = (pid_t) v;
      return 0;
    }
  return ar_make_error (err, 0, "%s", strncmp (msg, "error: ", 7) == 0 ? msg + 7 : msg);
}

int
supervisor_start (const struct supervisor_cfg *c, pid_t *pid, ar_error_t *err)
{
  int p[2];
  pid_t mid;
  int status, ret;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return ar_make_error (err, errno, "supervisor: pipe");
  mid = fork ();
  if (mid < 0)
    {
      close (p[0]);
      close (p[1]);
      return ar_make_error (err, errno, "supervisor: fork");
    }
  if (mid == 0)
    {
      /* Twice: the supervisor is nobody's child here, in a session of its own, so the caller's
         terminal and process group signals never reach it.  */
      close (p[0]);
      if (setsid () < 0 || fork () != 0)
        _exit (EXIT_SUCCESS);
      close_others (p[1], c->notify_fd);
      watchdog_main (c, p[1]);
    }
  close (p[1]);
  (void) waitpid (mid, &status, 0);
  ret = read_ready (p[0], pid, err);
  close (p[0]);
  return ret;
}

int
supervisor_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err)
{
  return control_send_attach (dirfd, id, notify_fd, pid, err);
}

bool
supervisor_alive (pid_t pid, unsigned long long start)
{
  return pid > 0 && state_proc_start_time (pid) == start;
}

void
supervisor_stop (pid_t pid, unsigned long long start)
{
  int pidfd;
  struct pollfd p;

  if (pid <= 0)
    return;
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  if (pidfd < 0)
    return;
  /* The pid is ours only while the start time matches (checked after pidfd_open).  */
  if (state_proc_start_time (pid) != start)
    {
      close (pidfd);
      return;
    }
  (void) syscall (SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0);
  p.fd = pidfd;
  p.events = POLLIN;
  if (poll (&p, 1, 1000) != 1)
    (void) syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  close (pidfd);
}
