/* Starting, finding and stopping the supervisor, and the watchdog that fails closed.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "json.h"
#include "log.h"
#include "state/journal.h"
#include "state/state.h"
#include "supervisor/confine.h"
#include "supervisor/audit.h"
#include "supervisor/control.h"
#include "supervisor/kill.h"
#include "supervisor/supervisor.h"
#include "supervisor/tracer.h"
#include "supervisor/worker.h"
#include "utils.h"

/* The worker is gone when the watchdog writes, so the alert count in the state directory is
   the watchdog's to bump: an engine reading `agentrt state` sees this alert like any other.  */
static void
count_alert (int dirfd)
{
  cleanup_free char *old = NULL;
  cleanup_free char *text = NULL;
  cleanup_close int fd = openat (dirfd, SUPERVISOR_ALERTS_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  long long n = 0;

  if (fd >= 0 && ar_read_fd (fd, SUPERVISOR_ALERTS_FILE, 64, &old, NULL, NULL) == 0)
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
audit_record (int dirfd, const char *id, const char *audit_path, const char *event,
              const char *detail, const char *severity)
{
  struct ar_json *j;
  cleanup_free char *line = NULL;
  cleanup_free char *time = NULL;
  struct timespec now;
  size_t len;
  bool cut;
  int fd = audit_open_log (audit_path, NULL);

  if (fd < 0)
    return;
  j = ar_json_new (NULL);
  clock_gettime (CLOCK_REALTIME, &now);
  time = ar_time_rfc3339 (&now);
  ar_json_obj_open (j);
  ar_json_kstr (j, "time", time);
  ar_json_kstr (j, "id", id);
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
    count_alert (dirfd);
}

/* The watchdog: what it keeps while the container runs.  */
struct watchdog
{
  const struct supervisor_cfg *c;
  pid_t worker; /* 0: none (the deadline alone, --platform none) */
  int init_pidfd;
  bool tracing; /* the init is our tracee (the kill switch, supervisor.h), not reaped yet */
  struct
  {
    pid_t *tids;
    size_t n;
  } threads;               /* the threads (and clone() children) it made, which we trace too */
  int dirfd;               /* the state directory */
  int deadline_ch;         /* the worker's requests for a new deadline (worker.h), or -1 */
  struct timespec created; /* CLOCK_BOOTTIME at start: what a deadline counts from */
  long long timeout_ms;    /* the deadline in force, from `created`; 0: none */
  /* We have killed the container: on cgroup v2 the worker, in its cgroup, dies with it, and
     that is no loss.  */
  bool killed;
};

/* An alert that the container is killed, and why, for `state` too.  */
static void
watchdog_alert (const struct watchdog *w, const char *event, const char *detail)
{
  sv_stop_reason (w->dirfd, event);
  audit_record (w->dirfd, w->c->id, w->c->audit_path, event, detail, "alert");
}

static void
audit_died (const struct watchdog *w, int status)
{
  cleanup_free char *detail = WIFSIGNALED (status)
                                  ? xasprintf ("killed by signal %d", WTERMSIG (status))
                                  : xasprintf ("exited with status %d", WEXITSTATUS (status));
  watchdog_alert (w, "supervisor-died", detail);
}

/* Every exit says that the supervisor's story has ended and been told (supervisor_check).  */
static void __attribute__ ((noreturn))
watchdog_exit (const struct watchdog *w, int status, const char *why)
{
  (void) sv_mark_end (w->dirfd, why);
  _exit (status);
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
watchdog_stop (const struct watchdog *w, const struct signalfd_siginfo *si)
{
  bool ours = si->ssi_code == SI_QUEUE && si->ssi_int == STOP_COOKIE;
  bool running = !init_exited (w->init_pidfd);

  /* Recorded, and the end marked, before the kill: on cgroup v2 the worker is inside the
     cgroup it kills.  Stopped by agentrt, whose command marks the end should the state outlive
     it (supervisor_mark_end): no write of ours in its wait.  */
  if (!ours)
    {
      if (running)
        {
          cleanup_free char *detail
              = xasprintf ("stopped by signal %u from pid %u: the container is killed",
                           si->ssi_signo, si->ssi_pid);
          watchdog_alert (w, "supervisor-stopped", detail);
        }
      (void) sv_mark_end (w->dirfd, "supervisor-stopped");
    }
  if (ours)
    (void) syscall (SYS_pidfd_send_signal, w->init_pidfd, SIGKILL, NULL, 0);
  else
    sv_kill_container (w->c, w->init_pidfd);
  /* Ours (delete, a failed create): the container is dead or dying, and the worker writes its
     last audit records (aggregates, the alert count) and exits by itself once its processes
     are gone; a moment for it, within supervisor_stop's second.  */
  if (w->worker > 0 && ours)
    wait_worker (w->worker, 500);
  if (w->worker > 0)
    {
      kill (w->worker, SIGKILL);
      (void) waitpid (w->worker, NULL, 0);
    }
  _exit (EXIT_SUCCESS);
}

/* The deadline, on CLOCK_BOOTTIME: time a suspended machine slept counts, as on a wall clock.
 *fd is -1 without one.  */
static int
arm_deadline (struct watchdog *w, int *fd)
{
  struct itimerspec t = { { 0, 0 }, w->created };
  long long ms = w->timeout_ms;

  if (ms <= 0)
    return 0;
  t.it_value.tv_sec += ms / 1000;
  t.it_value.tv_nsec += (ms % 1000) * 1000000;
  if (t.it_value.tv_nsec >= 1000000000)
    {
      t.it_value.tv_sec++;
      t.it_value.tv_nsec -= 1000000000;
    }
  if (*fd < 0)
    *fd = timerfd_create (CLOCK_BOOTTIME, TFD_CLOEXEC);
  /* Absolute: a deadline already past fires at once.  */
  if (*fd < 0 || timerfd_settime (*fd, TFD_TIMER_ABSTIME, &t, NULL) < 0)
    return -1;
  return 0;
}

/* `agentrt update --timeout` through the worker (worker.h): the deadline moves, later or
   sooner, counted from the container's creation or from now.  */
static void
new_deadline (struct watchdog *w, int *tfd)
{
  struct worker_deadline d;
  struct timespec now;
  long long ms;

  if (recv (w->deadline_ch, &d, sizeof d, MSG_DONTWAIT) != (ssize_t) sizeof d)
    return;
  ms = d.ms;
  if (d.from_now)
    {
      clock_gettime (CLOCK_BOOTTIME, &now);
      ms += (now.tv_sec - w->created.tv_sec) * 1000LL
            + (now.tv_nsec - w->created.tv_nsec) / 1000000;
    }
  d.ms = 0;
  if (ms <= 0)
    d.ms = EINVAL;
  else
    {
      long long was = w->timeout_ms;
      w->timeout_ms = ms;
      if (arm_deadline (w, tfd) < 0)
        {
          d.ms = errno ? errno : EIO;
          w->timeout_ms = was;
        }
    }
  (void) send (w->deadline_ch, &d, sizeof d, MSG_NOSIGNAL);
}

/* The deadline: the reason first (so that whoever sees the container die can read why), then
   every process of the container is killed: the init, its cgroups (which hold processes that
   left its pid namespace or forked away), and, with its own pid namespace, all of it.  */
static void
on_deadline (struct watchdog *w, int *tfd)
{
  cleanup_free char *detail = NULL;

  ar_closep (tfd);
  /* An init that has exited stopped by itself; what it left in the cgroups is killed anyway.  */
  if (init_exited (w->init_pidfd))
    {
      (void) sv_mark_end (w->dirfd, "exit"); /* before the kill, which on v2 takes the worker */
      w->killed = true;
      sv_kill_container (w->c, w->init_pidfd);
      return;
    }
  detail = xasprintf ("the deadline of %lld ms has passed: the container is killed", w->timeout_ms);
  sv_stop_reason (w->dirfd, "timeout");
  audit_record (w->dirfd, w->c->id, w->c->audit_path, "timeout", detail, "warn");
  (void) sv_mark_end (w->dirfd, "timeout"); /* before the kill, which on v2 takes the worker */
  w->killed = true;
  sv_kill_container (w->c, w->init_pidfd);
}

/* A stop of a traced thread goes on as if nobody traced it; a thread it made is traced from its
   birth (tracer_kill_switch_clone), and waited for from now on.  */
static void
traced_stop (struct watchdog *w, pid_t tid, int status)
{
  pid_t born = tracer_kill_switch_clone (tid, status);

  if (born > 0)
    {
      w->threads.tids = xrealloc (w->threads.tids, (w->threads.n + 1) * sizeof (pid_t));
      w->threads.tids[w->threads.n++] = born;
    }
  tracer_pass_stop (tid, status);
}

/* One wait for a traced thread: 0 nothing new, 1 a stop (handled), -1 gone (reaped, or not
   ours any more).  */
static int
wait_traced (struct watchdog *w, pid_t tid)
{
  int status;
  pid_t r;

  do
    r = waitpid (tid, &status, __WALL | WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == 0)
    return 0;
  if (r < 0 || !WIFSTOPPED (status))
    return -1;
  traced_stop (w, tid, status);
  return 1;
}

/* The traced threads' stops and exits.  The init's exit is reaped, which tells its parent (a
   traced process's parent hears of its exit after its tracer); the other threads' first: the
   init's exit is not reported while a thread of its process, a zombie we trace, is left.  A
   stop may name a new thread: the loop goes on until a pass finds nothing.  */
static void
drain_init (struct watchdog *w)
{
  bool more = true;

  while (more)
    {
      more = false;
      for (size_t i = 0; i < w->threads.n;)
        {
          int r = wait_traced (w, w->threads.tids[i]);

          more |= r != 0;
          if (r < 0)
            w->threads.tids[i] = w->threads.tids[--w->threads.n];
          else
            i++;
        }
      if (!w->tracing)
        continue;
      switch (wait_traced (w, w->c->init_pid))
        {
        case 0:
          break;
        case 1:
          more = true;
          break;
        default:
          /* An end, after which nothing is lost (its parent has heard of it: this write is no
             part of its wait).  */
          w->tracing = false;
          (void) sv_mark_end (w->dirfd, "exit");
          break;
        }
    }
}

/* The worker stopped (SIGSTOP, SIGTSTP…): every supervised call would wait for it for ever.
   Killed with the container: a stopped tracer (the ptrace platform) would keep its dead
   tracees from their parents.  */
static void __attribute__ ((noreturn)) worker_stopped (const struct watchdog *w, int status)
{
  cleanup_free char *detail
      = xasprintf ("the worker (pid %d) was stopped by signal %d: the container is killed",
                   (int) w->worker, WSTOPSIG (status));

  /* Recorded, and the end marked, before the kill (on cgroup v2 it takes the worker).  */
  watchdog_alert (w, "supervisor-stopped", detail);
  (void) sv_mark_end (w->dirfd, "supervisor-stopped");
  sv_kill_container (w->c, w->init_pidfd);
  kill (w->worker, SIGKILL);
  (void) waitpid (w->worker, NULL, 0);
  _exit (EXIT_FAILURE);
}

/* What the worker's SIGCHLD says: a clean exit (the container is over), a stop, or a death.  */
static void
check_worker (const struct watchdog *w)
{
  int status;

  if (w->worker <= 0 || waitpid (w->worker, &status, WNOHANG | WUNTRACED) != w->worker)
    return;
  if (WIFSTOPPED (status))
    worker_stopped (w, status);
  if ((WIFEXITED (status) && WEXITSTATUS (status) == 0) || w->killed)
    watchdog_exit (w, EXIT_SUCCESS, "exit");
  /* Recorded, and the end marked, before the kill (on cgroup v2 it takes the worker).  */
  if (WIFEXITED (status) && WEXITSTATUS (status) == SUPERVISOR_EXIT_RECORDED)
    (void) sv_mark_end (w->dirfd, "recorded by the worker");
  else
    {
      audit_died (w, status);
      (void) sv_mark_end (w->dirfd, "supervisor-died");
    }
  sv_kill_container (w->c, w->init_pidfd);
  _exit (EXIT_FAILURE);
}

static void __attribute__ ((noreturn)) watchdog_loop (struct watchdog *w, int sfd, int tfd)
{
  struct signalfd_siginfo si;

  for (;;)
    {
      /* Without a worker the watchdog ends with the init.  */
      struct pollfd p[4] = { { .fd = sfd, .events = POLLIN },
                             { .fd = tfd, .events = POLLIN },
                             { .fd = w->worker > 0 ? -1 : w->init_pidfd, .events = POLLIN },
                             { .fd = w->deadline_ch, .events = POLLIN } };
      if (poll (p, 4, -1) < 0)
        continue;
      if (p[3].revents & POLLIN)
        new_deadline (w, &tfd);
      if (p[1].revents)
        on_deadline (w, &tfd);
      if (p[2].revents)
        {
          drain_init (w);
          watchdog_exit (w, EXIT_SUCCESS, "exit");
        }
      if (!p[0].revents || read (sfd, &si, sizeof si) != sizeof si)
        continue;
      if (si.ssi_signo == SIGTERM)
        watchdog_stop (w, &si);
      drain_init (w); /* SIGCHLD: the init's, or the worker's (several are one signal) */
      check_worker (w);
    }
}

static void __attribute__ ((noreturn))
setup_failed (int ready_fd, const char *what, ar_error_t *err)
{
  cleanup_free char *text = *err ? ar_error_text (*err) : xstrdup (strerror (errno));

  /* Our own errors name the supervisor already.  */
  if (*what)
    dprintf (ready_fd, "error: supervisor: %s: %s", what, text);
  else
    dprintf (ready_fd, "error: %s", text);
  _exit (EXIT_FAILURE);
}

/* What the worker's fork needs (fork_worker).  */
struct worker_fork
{
  const struct supervisor_cfg *c;
  struct watchdog *w;
  int ready_fd, tfd;
  int ch[2]; /* the deadline's channel: the watchdog's end, the worker's */
  pid_t me;  /* the watchdog */
};

/* Fork the worker, in the cgroup2 directory `into_fd` if >= 0 (called by
   cgroup_run_accounted, with the calling thread in the v1 accounting cgroups for the fork).
   The child never returns here: were it to, it would move itself back out.  w->worker is -1
   on failure.  */
static int
fork_worker (void *data, int into_fd, ar_error_t *err)
{
  struct worker_fork *f = data;
  pid_t pid = ar_clone (0, into_fd);

  f->w->worker = pid;
  if (pid < 0)
    return ar_make_error (err, errno, "supervisor: fork the worker");
  if (pid > 0)
    return 0;
  /* The watchdog's death is our SIGTERM (blocked: it arrives on the worker's signalfd).  */
  (void) prctl (PR_SET_NAME, "agentrt-sv");
  if (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != f->me)
    _exit (EXIT_FAILURE);
  if (f->tfd >= 0)
    close (f->tfd); /* the deadline is the watchdog's */
  close (f->w->dirfd);
  if (f->ch[0] >= 0)
    close (f->ch[0]);
  worker_main (f->c, f->ready_fd, f->w->init_pidfd, f->ch[1]);
}

static void __attribute__ ((noreturn)) watchdog_main (const struct supervisor_cfg *c, int ready_fd)
{
  sigset_t set;
  struct watchdog w = { .c = c,
                        .init_pidfd = (int) syscall (SYS_pidfd_open, c->init_pid, 0),
                        .dirfd = open (c->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
                        .deadline_ch = -1,
                        .timeout_ms = c->timeout_ms };
  int sfd, tfd = -1, ch[2] = { -1, -1 };
  pid_t me = getpid ();
  ar_error_t err = NULL;

  (void) prctl (PR_SET_NAME, "agentrt-watch");
  /* Host root with few capabilities is still ptrace-able by a container's root that shares the
     host's pid namespace (same uid, capabilities a subset of its own): /proc/PID/root and
     /proc/PID/mem of a dumpable supervisor would be the host's.  The worker inherits it.  */
  (void) prctl (PR_SET_DUMPABLE, 0);
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGCHLD);
  if (w.init_pidfd < 0 || w.dirfd < 0 || sigprocmask (SIG_BLOCK, &set, NULL) < 0)
    setup_failed (ready_fd, "watch the init", &err);
  /* The kill switch (supervisor.h), seized while we hold every capability: the tracer's
     credentials then are those the kernel weighs when the traced init execs a set-id program
     (ptracer_capable), so it runs as it would untraced.  On the ptrace platform the worker
     traces the init instead.  */
  if (!c->trace && tracer_seize_kill_switch (c->init_pid, &err) < 0)
    setup_failed (ready_fd, "", &err);
  w.tracing = !c->trace;
  clock_gettime (CLOCK_BOOTTIME, &w.created);
  if (arm_deadline (&w, &tfd) < 0)
    setup_failed (ready_fd, "arm the deadline", &err);
  /* The worker's requests for a new deadline (`agentrt update --timeout`).  */
  if ((c->notify_fd >= 0 || c->trace)
      && socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0)
    setup_failed (ready_fd, "the deadline's channel", &err);
  sfd = signalfd (-1, &set, SFD_CLOEXEC);
  if (c->notify_fd < 0 && !c->trace)
    {
      /* The deadline alone (--platform none): nothing to serve, no worker.  */
      if (sfd < 0 || confine_supervisor (CONFINE_WATCHDOG, &err) < 0)
        setup_failed (ready_fd, "", &err);
      dprintf (ready_fd, "ok %d 0", (int) me);
      close (ready_fd);
      watchdog_loop (&w, sfd, tfd);
    }
  /* The worker, born in the container's CPU accounting (cgroup_run_accounted); the watchdog
     stays out of it, so that a workload that uses all the CPU it is given never delays its own
     deadline or the watchdog's other kills.  */
  {
    struct worker_fork f
        = { .c = c, .w = &w, .ready_fd = ready_fd, .tfd = tfd, .ch = { ch[0], ch[1] }, .me = me };
    int r;

    w.worker = -1;
    r = c->accounting ? cgroup_run_accounted (c->accounting, fork_worker, &f, &err)
                      : fork_worker (&f, -1, &err);
    if (r < 0)
      setup_failed (ready_fd, "", &err);
  }
  close (ready_fd);
  if (ch[1] >= 0)
    close (ch[1]);
  w.deadline_ch = ch[0];
  if (c->notify_fd >= 0)
    close (c->notify_fd); /* the worker's, not ours */
  if (c->canary_fd >= 0)
    close (c->canary_fd);
  if (c->vfiles_fd >= 0)
    close (c->vfiles_fd);
  if (c->egress_netns_fd >= 0)
    close (c->egress_netns_fd);
  if (w.worker < 0 || sfd < 0 || confine_supervisor (CONFINE_WATCHDOG, &err) < 0)
    {
      ar_error_release (&err);
      if (w.worker > 0)
        kill (w.worker, SIGKILL);
      (void) syscall (SYS_pidfd_send_signal, w.init_pidfd, SIGKILL, NULL, 0);
      _exit (EXIT_FAILURE);
    }
  watchdog_loop (&w, sfd, tfd);
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
read_ready (int fd, pid_t *pid, pid_t *worker, ar_error_t *err)
{
  char msg[4096];
  ssize_t n;
  int a, b, end = 0;

  do
    n = read (fd, msg, sizeof msg - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return ar_make_error (err, n < 0 ? errno : 0, "the supervisor failed to start");
  msg[n] = '\0';
  if (sscanf (msg, "ok %d %d%n", &a, &b, &end) == 2 && msg[end] == '\0' && a > 0 && b >= 0)
    {
      *pid = (pid_t) a;
      *worker = (pid_t) b;
      return 0;
    }
  return ar_make_error (err, 0, "%s", strncmp (msg, "error: ", 7) == 0 ? msg + 7 : msg);
}

int
supervisor_start (const struct supervisor_cfg *c, pid_t *pid, pid_t *worker, ar_error_t *err)
{
  int p[2];
  pid_t watchdog;
  int ret;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return ar_make_error (err, errno, "supervisor: pipe");
  watchdog = ar_clone (0, -1);
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
      int *const keep[]
          = { &p[1], &mine.notify_fd, &mine.canary_fd, &mine.vfiles_fd, &mine.egress_netns_fd };
      /* First, while our copy of create's fds still holds the container's lock: a delete of a
         create killed from here on finds us in the journal, as it cannot run before we let go
         of the lock (close_others).  Not recorded, we would only outlive the init.  */
      if (c->journal_fd >= 0
          && state_journal_process (c->journal_fd, "supervisor", getpid (),
                                    state_proc_start_time (getpid ()), NULL)
                 < 0)
        _exit (EXIT_FAILURE);
      close (p[0]);
      if (setsid () < 0 || close_others (keep, ARRAY_SIZE (keep)) < 0)
        _exit (EXIT_FAILURE);
      /* Freed, and the pages given back (freed chunks amid the heap are not, by free alone),
         before the worker is forked: both would keep them for the container's life.  */
      if (c->release_unneeded)
        {
          c->release_unneeded (c->release_arg);
          (void) malloc_trim (0);
        }
      watchdog_main (&mine, p[1]);
    }
  close (p[1]);
  ret = read_ready (p[0], pid, worker, err);
  close (p[0]);
  return ret;
}

int
supervisor_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err)
{
  return control_send_attach (dirfd, id, notify_fd, pid, err);
}

size_t
supervisor_pids (pid_t pid, unsigned long long start, pid_t *out, size_t max)
{
  cleanup_free char *path = xasprintf ("/proc/%d/task/%d/children", (int) pid, (int) pid);
  cleanup_free char *text = NULL;
  char *save = NULL;
  size_t n = 0;

  if (max == 0 || !supervisor_alive (pid, start))
    return 0;
  out[n++] = pid;
  /* The watchdog is single-threaded and its only child is the worker.  */
  if (ar_read_file (path, 4096, &text, NULL, NULL) < 0)
    return n;
  for (char *w = strtok_r (text, " \n", &save); w && n < max; w = strtok_r (NULL, " \n", &save))
    {
      long long v;
      if (ar_parse_int64 (w, 1, INT_MAX, &v))
        out[n++] = (pid_t) v;
    }
  return n;
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
  /* Gone when we return, SIGKILLed if need be: a delete must leave no process behind.  */
  if (poll (&p, 1, 1000) != 1)
    {
      (void) syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
      (void) poll (&p, 1, 1000);
    }
  close (pidfd);
}

/* A part of the supervisor, as a command sees it from outside.  */
enum part
{
  PART_GONE,
  PART_STOPPED, /* SIGSTOP and the like, or a debugger's stop */
  PART_RUNNING,
};

static enum part
part_of (pid_t pid, unsigned long long start)
{
  char st = state_proc_status (pid, start);

  if (st == 0)
    return PART_GONE;
  return st == 'T' || st == 't' ? PART_STOPPED : PART_RUNNING;
}

/* SIGKILL to the process that started at `start`, checked once its pidfd is open (the pid
   cannot name another process after that); then, with `wait_ms`, wait for it to go.  */
static void
kill_exact (pid_t pid, unsigned long long start, int wait_ms)
{
  cleanup_close int pidfd = pid > 0 ? (int) syscall (SYS_pidfd_open, pid, 0) : -1;
  struct pollfd p = { .fd = pidfd, .events = POLLIN };

  if (pidfd < 0 || state_proc_start_time (pid) != start)
    return;
  (void) syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  if (wait_ms > 0)
    (void) poll (&p, 1, wait_ms);
}

/* May this command write into the state directory?  Not while another holds its lock (a delete
   in progress, which looks for itself), nor once it has been removed.  */
static bool
may_write (int dirfd, bool locked)
{
  struct stat st;

  if (!locked && flock (dirfd, LOCK_SH | LOCK_NB) < 0)
    return false;
  return fstat (dirfd, &st) == 0 && st.st_nlink > 0;
}

bool
supervisor_check (int dirfd, const struct state *s, bool locked)
{
  pid_t worker = s->sv_worker;
  enum part wd, wk;
  const char *event;
  cleanup_free char *detail = NULL;
  cleanup_free char *log = NULL;

  if (s->sv_pid <= 0 || faccessat (dirfd, SUPERVISOR_END_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return false;
  /* A part still running acts on the other's death or stop itself.  sv_worker < 0: the state of
     an older agentrt, whose supervisor marks no end.  */
  wd = part_of (s->sv_pid, s->sv_start);
  if (wd == PART_RUNNING || worker < 0)
    return false;
  wk = worker > 0 ? part_of (worker, s->sv_worker_start) : PART_GONE;
  if (wk == PART_RUNNING || !may_write (dirfd, locked))
    return false;
  event = wd == PART_GONE ? "supervisor-lost" : "supervisor-stopped";
  if (!sv_mark_end (dirfd, event))
    return false; /* told by another command meanwhile */
  sv_stop_reason (dirfd, event);
  if (worker <= 0)
    detail = xasprintf ("the supervisor's watchdog (pid %d) is %s and recorded nothing: the "
                        "container is killed",
                        (int) s->sv_pid, wd == PART_GONE ? "gone" : "stopped");
  else
    detail = xasprintf ("the supervisor's watchdog (pid %d) is %s, its worker (pid %d) %s, and "
                        "neither recorded why: the container is killed",
                        (int) s->sv_pid, wd == PART_GONE ? "gone" : "stopped", (int) worker,
                        wk == PART_GONE ? "gone" : "stopped");
  log = s->audit_log ? xstrdup (s->audit_log) : xasprintf ("/proc/self/fd/%d/audit.jsonl", dirfd);
  audit_record (dirfd, s->id, log, event, detail, "alert");
  /* With the watchdog gone, the kernel has killed the init (the kill switch).  The stopped
     parts of the supervisor go (a stopped tracer holds its dead tracees from their parents),
     the init of a container stopped with them, then what is left in the cgroups (after the
     init: sv_kill_container says why).  */
  if (wd == PART_STOPPED)
    kill_exact (s->sv_pid, s->sv_start, 0);
  if (wk == PART_STOPPED)
    kill_exact (worker, s->sv_worker_start, 0);
  kill_exact (s->pid, s->pid_start, 1000);
  sv_kill_cgroups (s->cgroup_dirs);
  return true;
}

void
supervisor_mark_end (int dirfd)
{
  (void) sv_mark_end (dirfd, "stop");
}
