/* Starting, finding and stopping the supervisor, and the watchdog that fails closed.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "json.h"
#include "log.h"
#include "state/state.h"
#include "supervisor/confine.h"
#include "supervisor/audit.h"
#include "supervisor/control.h"
#include "supervisor/kill.h"
#include "supervisor/supervisor.h"
#include "supervisor/worker.h"
#include "utils.h"

/* The worker is gone when the watchdog writes, so the alert count in the state directory is
   the watchdog's to bump: an engine reading `agentrt state` sees this alert like any other.  */
static void
count_alert (const struct supervisor_cfg *c)
{
  cleanup_free char *path = xasprintf ("%s/%s", c->state_dir, SUPERVISOR_ALERTS_FILE);
  cleanup_free char *old = NULL;
  cleanup_free char *text = NULL;
  cleanup_close int dirfd = open (c->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  long long n = 0;

  if (dirfd < 0)
    return;
  if (ar_read_file (path, 64, &old, NULL, NULL) == 0)
    {
      old[strcspn (old, "\n")] = '\0';
      if (!ar_parse_int64 (old, 0, LLONG_MAX - 1, &n))
        n = 0;
    }
  text = xasprintf ("%lld\n", n + 1);
  (void) ar_replace_file (dirfd, SUPERVISOR_ALERTS_FILE, text, strlen (text), 0644, NULL);
}

/* The watchdog's audit records, written without the worker's machinery (nor its budget);
   alerts are counted.  They are few and small, so the budget keeps room for them
   (audit_budget.h): at most two per container (a timeout, then the worker's death or the
   supervisor's stop, after which the watchdog exits), each under AUDIT_NOTICE_MAX (the id is
   255 bytes at most, the detail is ours and capped).  */
static void
audit_record (const struct supervisor_cfg *c, const char *event, const char *detail,
              const char *severity)
{
  struct ar_json *j;
  cleanup_free char *line = NULL;
  cleanup_free char *time = NULL;
  struct timespec now;
  size_t len;
  bool cut;
  int fd = audit_open_log (c->audit_path, NULL);

  if (fd < 0)
    return;
  j = ar_json_new (NULL);
  clock_gettime (CLOCK_REALTIME, &now);
  time = ar_time_rfc3339 (&now);
  ar_json_obj_open (j);
  ar_json_kstr (j, "time", time);
  ar_json_kstr (j, "id", c->id);
  ar_json_kstr (j, "event", event);
  ar_json_key (j, "detail");
  ar_json_str_max (j, detail, AUDIT_NOTICE_MAX / 2, &cut);
  ar_json_kstr (j, "verdict", "kill-container");
  ar_json_kstr (j, "severity", severity);
  ar_json_obj_close (j);
  line = ar_json_finish (j, &len);
  line = xrealloc (line, len + 2);
  line[len] = '\n';
  (void) !write (fd, line, len + 1);
  close (fd);
  if (strcmp (severity, "alert") == 0)
    count_alert (c);
}

static void
audit_alert (const struct supervisor_cfg *c, const char *event, const char *detail)
{
  audit_record (c, event, detail, "alert");
}

static void
audit_died (const struct supervisor_cfg *c, int status)
{
  cleanup_free char *detail = WIFSIGNALED (status)
                                  ? xasprintf ("killed by signal %d", WTERMSIG (status))
                                  : xasprintf ("exited with status %d", WEXITSTATUS (status));
  audit_alert (c, "supervisor-died", detail);
}

/* supervisor_stop's SIGTERM carries this in si_value (SI_QUEUE), so that the watchdog tells
   agentrt's own stop (delete, a failed create) from anyone else's.  */
#define STOP_COOKIE 0x61727374

/* Has the init exited (a zombie counts)?  A pidfd polls readable once its process has.  */
static bool
init_exited (int init_pidfd)
{
  struct pollfd p = { .fd = init_pidfd, .events = POLLIN };
  return poll (&p, 1, 0) == 1;
}

static void
wait_worker (pid_t worker, int ms)
{
  cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, worker, 0);
  struct pollfd p = { .fd = pidfd, .events = POLLIN };

  if (pidfd >= 0)
    while (poll (&p, 1, ms) < 0 && errno == EINTR)
      ;
}

/* SIGTERM.  The init is killed whoever sent it: the container must never go on without its
   supervisor (fail closed); after delete it is dead already, and a failed create has just
   killed it.  A stop that is not agentrt's while the container runs is an alert.  */
static void __attribute__ ((noreturn))
watchdog_stop (const struct supervisor_cfg *c, pid_t worker, int init_pidfd,
               const struct signalfd_siginfo *si)
{
  bool ours = si->ssi_code == SI_QUEUE && si->ssi_int == STOP_COOKIE;
  bool running = !init_exited (init_pidfd);

  if (ours)
    (void) syscall (SYS_pidfd_send_signal, init_pidfd, SIGKILL, NULL, 0);
  else
    sv_kill_container (c, init_pidfd);
  /* Ours (delete, a failed create): the container is dead or dying, and the worker writes its
     last audit records (aggregates, the alert count) and exits by itself once its processes
     are gone; a moment for it, within supervisor_stop's second.  */
  if (worker > 0 && ours)
    wait_worker (worker, 500);
  if (worker > 0)
    {
      kill (worker, SIGKILL);
      (void) waitpid (worker, NULL, 0);
    }
  if (running && !ours)
    {
      cleanup_free char *detail = xasprintf (
          "stopped by signal %u from pid %u: the container is killed", si->ssi_signo, si->ssi_pid);
      audit_alert (c, "supervisor-stopped", detail);
    }
  _exit (EXIT_SUCCESS);
}

/* The deadline, on CLOCK_BOOTTIME: time a suspended machine slept counts, as on a wall clock.
 *fd is -1 without one.  */
static int
arm_deadline (const struct supervisor_cfg *c, int *fd)
{
  struct itimerspec t = { { 0, 0 }, { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000 } };

  *fd = -1;
  if (c->timeout_ms <= 0)
    return 0;
  *fd = timerfd_create (CLOCK_BOOTTIME, TFD_CLOEXEC);
  if (*fd < 0 || timerfd_settime (*fd, 0, &t, NULL) < 0)
    return -1;
  return 0;
}

/* The deadline: the reason first (so that whoever sees the container die can read why), then
   every process of the container is killed: the init, its cgroups (which hold processes that
   left its pid namespace or forked away), and, with its own pid namespace, all of it.  */
static void
on_deadline (const struct supervisor_cfg *c, int *tfd, int init_pidfd)
{
  cleanup_close int dirfd = open (c->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_free char *detail = NULL;
  const char *reason = "timeout\n";

  ar_closep (tfd);
  /* An init that has exited stopped by itself; what it left in the cgroups is killed anyway.  */
  if (init_exited (init_pidfd))
    {
      sv_kill_container (c, init_pidfd);
      return;
    }
  detail = xasprintf ("the deadline of %lld ms has passed: the container is killed", c->timeout_ms);
  if (dirfd >= 0)
    (void) ar_replace_file (dirfd, SUPERVISOR_STOP_REASON_FILE, reason, strlen (reason), 0644,
                            NULL);
  audit_record (c, "timeout", detail, "warn");
  sv_kill_container (c, init_pidfd);
}

static void __attribute__ ((noreturn))
watchdog_loop (const struct supervisor_cfg *c, pid_t worker, int sfd, int tfd, int init_pidfd)
{
  struct signalfd_siginfo si;
  int status;

  for (;;)
    {
      /* Without a worker the watchdog ends with the init.  */
      struct pollfd p[3] = { { .fd = sfd, .events = POLLIN },
                             { .fd = tfd, .events = POLLIN },
                             { .fd = worker > 0 ? -1 : init_pidfd, .events = POLLIN } };
      if (poll (p, 3, -1) < 0)
        continue;
      if (p[1].revents)
        on_deadline (c, &tfd, init_pidfd);
      if (p[2].revents)
        _exit (EXIT_SUCCESS);
      if (!p[0].revents || read (sfd, &si, sizeof si) != sizeof si)
        continue;
      if (si.ssi_signo == SIGTERM)
        watchdog_stop (c, worker, init_pidfd, &si);
      if (worker <= 0 || waitpid (worker, &status, WNOHANG) != worker)
        continue;
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        _exit (EXIT_SUCCESS);
      sv_kill_container (c, init_pidfd);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != SUPERVISOR_EXIT_RECORDED)
        audit_died (c, status);
      _exit (EXIT_FAILURE);
    }
}

static void __attribute__ ((noreturn)) watchdog_main (const struct supervisor_cfg *c, int ready_fd)
{
  sigset_t set;
  int init_pidfd = (int) syscall (SYS_pidfd_open, c->init_pid, 0);
  int sfd, tfd = -1;
  pid_t me = getpid (), worker;
  ar_error_t err = NULL;

  (void) prctl (PR_SET_NAME, "agentrt-watch");
  /* Host root with few capabilities is still ptrace-able by a container's root that shares the
     host's pid namespace (same uid, capabilities a subset of its own): /proc/PID/root and
     /proc/PID/mem of a dumpable supervisor would be the host's.  The worker inherits it.  */
  (void) prctl (PR_SET_DUMPABLE, 0);
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGCHLD);
  if (init_pidfd < 0 || sigprocmask (SIG_BLOCK, &set, NULL) < 0)
    {
      dprintf (ready_fd, "error: supervisor: watch the init: %s", strerror (errno));
      _exit (EXIT_FAILURE);
    }
  if (arm_deadline (c, &tfd) < 0)
    {
      dprintf (ready_fd, "error: supervisor: arm the deadline: %s", strerror (errno));
      _exit (EXIT_FAILURE);
    }
  sfd = signalfd (-1, &set, SFD_CLOEXEC);
  worker = c->notify_fd >= 0 || c->trace ? fork () : 0;
  if (worker == 0 && c->notify_fd < 0 && !c->trace)
    {
      /* The deadline alone (--platform none): nothing to serve, no worker.  */
      if (sfd < 0 || confine_supervisor (CONFINE_WATCHDOG, &err) < 0)
        {
          cleanup_free char *text = err ? ar_error_text (err) : xstrdup (strerror (errno));
          dprintf (ready_fd, "error: supervisor: %s", text);
          _exit (EXIT_FAILURE);
        }
      dprintf (ready_fd, "ok %d", (int) me);
      close (ready_fd);
      watchdog_loop (c, 0, sfd, tfd, init_pidfd);
    }
  if (worker == 0)
    {
      /* The watchdog's death is our SIGTERM (blocked: it arrives on the worker's signalfd).  */
      (void) prctl (PR_SET_NAME, "agentrt-sv");
      if (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != me)
        _exit (EXIT_FAILURE);
      if (tfd >= 0)
        close (tfd); /* the deadline is the watchdog's */
      worker_main (c, ready_fd, init_pidfd);
    }
  close (ready_fd);
  if (c->notify_fd >= 0)
    close (c->notify_fd); /* the worker's, not ours */
  if (c->canary_fd >= 0)
    close (c->canary_fd);
  if (c->vfiles_fd >= 0)
    close (c->vfiles_fd);
  if (worker < 0 || sfd < 0 || confine_supervisor (CONFINE_WATCHDOG, &err) < 0)
    {
      ar_error_release (&err);
      if (worker > 0)
        kill (worker, SIGKILL);
      (void) syscall (SYS_pidfd_send_signal, init_pidfd, SIGKILL, NULL, 0);
      _exit (EXIT_FAILURE);
    }
  watchdog_loop (c, worker, sfd, tfd, init_pidfd);
}

/* Everything but stdio and the fds the supervisor needs is closed: it must not keep the
   caller's pipes (an engine waits for their end) or the container's files open.  Those it
   needs become fds 3, 4, …; everything else is closed, whatever its number.  An fd of -1
   (none) keeps its slot, closed, and stays -1.  */
static int
close_others (int *const keep[], unsigned n)
{
  int devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
  int tmp[8];

  if (devnull < 0 || n > ARRAY_SIZE (tmp))
    return -1;
  for (unsigned i = 0; i < n; i++)
    {
      tmp[i] = *keep[i] < 0 ? -1 : fcntl (*keep[i], F_DUPFD_CLOEXEC, 3 + n);
      if (*keep[i] >= 0 && tmp[i] < 0)
        return -1;
    }
  dup2 (devnull, 0);
  dup2 (devnull, 1);
  dup2 (devnull, 2);
  for (unsigned i = 0; i < n; i++)
    {
      if (tmp[i] >= 0 ? dup3 (tmp[i], 3 + (int) i, O_CLOEXEC) < 0
                      : close (3 + (int) i) < 0 && errno != EBADF)
        return -1;
      *keep[i] = tmp[i] < 0 ? -1 : 3 + (int) i;
    }
  return syscall (SYS_close_range, 3 + n, ~0U, 0) < 0 ? -1 : 0;
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
  pid_t watchdog;
  int ret;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return ar_make_error (err, errno, "supervisor: pipe");
  watchdog = fork ();
  if (watchdog < 0)
    {
      close (p[0]);
      close (p[1]);
      return ar_make_error (err, errno, "supervisor: fork");
    }
  if (watchdog == 0)
    {
      /* Once, not twice: a fork costs half a millisecond on this kind of VM, and a middle one
         that exits at once changes nothing that matters.  The runtime reaps whatever child of
         it exits (run) or exits first (create), and then the supervisor is adopted as it would
         have been when a middle process died.  A session of its own keeps the caller's
         terminal and process group signals away.  */
      struct supervisor_cfg mine = *c;
      int *const keep[] = { &p[1], &mine.notify_fd, &mine.canary_fd, &mine.vfiles_fd };
      close (p[0]);
      if (setsid () < 0 || close_others (keep, ARRAY_SIZE (keep)) < 0)
        _exit (EXIT_FAILURE);
      watchdog_main (&mine, p[1]);
    }
  close (p[1]);
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
supervisor_wait (pid_t pid, unsigned long long start, int ms)
{
  cleanup_close int pidfd = -1;
  struct pollfd p;

  if (pid <= 0)
    return;
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  /* The pid is ours only while the start time matches (checked after pidfd_open).  */
  if (pidfd < 0 || state_proc_start_time (pid) != start)
    return;
  p.fd = pidfd;
  p.events = POLLIN;
  while (poll (&p, 1, ms) < 0 && errno == EINTR)
    ;
}

void
supervisor_stop (pid_t pid, unsigned long long start)
{
  int pidfd;
  struct pollfd p;
  siginfo_t si;

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
  memset (&si, 0, sizeof si);
  si.si_signo = SIGTERM;
  si.si_code = SI_QUEUE;
  si.si_pid = getpid ();
  si.si_uid = getuid ();
  si.si_value.sival_int = STOP_COOKIE;
  (void) syscall (SYS_pidfd_send_signal, pidfd, SIGTERM, &si, 0);
  p.fd = pidfd;
  p.events = POLLIN;
  if (poll (&p, 1, 1000) != 1)
    (void) syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  close (pidfd);
}
