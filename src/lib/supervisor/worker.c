/* The supervisor worker: serves the notify fds of the container's processes.

   Each notify fd (the init's, and one per exec'd process) gets a thread blocked in
   SECCOMP_IOCTL_NOTIF_RECV (threads_per_fd says why one); every handler answers from memory at
   once, and one that may block must move to a thread of its own.  The fds are put
   in SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP mode where the kernel has it (6.6+): the kernel then
   switches straight from the caller to a waiting thread on the same CPU, and the process is
   confined to the workload's CPUs, because a round trip to another vCPU costs 10-20 times more
   here (DESIGN.md).  The main thread owns everything else: the control socket on which exec
   hands over the fds of new processes, the end of each fd (EPOLLHUP once its processes are
   gone), the init's pidfd, the once-a-second refresh of the virtual files and look at the
   watchdog (stopped, the container is killed), and SIGTERM (sent by the kernel when the
   watchdog dies: then the container is killed).  On the ptrace platform
   there are no notify fds and no serving threads: the main thread is the tracer (tracer.h),
   woken by SIGCHLD on its signalfd, and exec hands over processes to trace.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "log.h"
#include "state/state.h"
#include "supervisor/audit.h"
#include "supervisor/confine.h"
#include "supervisor/control.h"
#include "supervisor/kill.h"
#include "supervisor/sv.h"
#include "supervisor/sv_net.h"
#include "supervisor/tracer.h"
#include "supervisor/worker.h"
#include "utils.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW (4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define SV_THREADS_MAX 4
#define SV_THREAD_STACK (256 * 1024)

/* One notify fd: the init's or an exec'd process's.  */
struct sv_fd
{
  int fd;
  int pidfd; /* of the process it came with */
  unsigned nthreads;
  pthread_t threads[SV_THREADS_MAX];
  atomic_bool dead;
  struct sv_fd *next;
};

enum ev_tag
{
  EV_CONTROL = 1,
  EV_SIGNAL,
  EV_TIMER,
  EV_INIT,
  EV_CANARY,
  EV_NOTIFY, /* tag in the low bits, the struct sv_fd * in the rest */
};

static struct sv the_sv;
static pid_t watchdog;         /* our parent */
static int watchdog_stat = -1; /* its /proc/PID/stat */
/* The ptrace platform (the_cfg->trace, tracer.h): this thread traces the container's
   processes, and there are no notify fds.  */
static enum tracer_drained traced = TRACER_IDLE;
/* The channel to the watchdog, which keeps the deadline (worker.h).  */
static int deadline_ch = -1;

/* Handle one notification and answer it, unless a thread of its own will (the broker); its
   audit record is written after the answer.  */
static void
dispatch (int fd, const struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
  struct sv_record record = { .stale_fd = -1 };
  struct sv_call c
      = { .sv = &the_sv, .notify_fd = fd, .req = req, .resp = resp, .record = &record };
  char name[32];

  sv_handle_call (&c, name);
  /* ENOENT: the caller was interrupted by a signal meanwhile; the kernel restarts or fails its
     call, and our answer is moot.  */
  if (!c.deferred && ioctl (fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT)
    ar_debug ("supervisor: answer notification: %s", strerror (errno));
  sv_audit_flush (&c);
}

/* Does no process use the filter any more?  Then no notification can ever come from it again:
   a filter is inherited only from a process that uses it.  */
static bool
filter_orphaned (int fd)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };

  return poll (&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

static void *
serve (void *arg)
{
  struct sv_fd *f = arg;
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;

  while (!atomic_load (&f->dead))
    {
      memset (&req, 0, sizeof req);
      if (ioctl (f->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        {
          if (errno == EINTR)
            continue;
          /* ENOENT: a caller interrupted meanwhile, or the filter's end: once its last process
             has been reaped, RECV fails at once, every time.  Looping on it until the main
             thread saw the end (EPOLLHUP) and stopped us spun a CPU for milliseconds after
             every container and exec'd process, the very moments the runtime has work to do.  */
          if (errno == ENOENT && !filter_orphaned (f->fd))
            continue;
          break;
        }
      dispatch (f->fd, &req, &resp);
    }
  return NULL;
}

static void
wake_up (int sig)
{
  (void) sig;
}

/* One thread per fd.  Threads blocked in NOTIF_RECV all wake for every notification (the
   kernel's wait is not exclusive), so a second one costs each call an extra context switch on
   its CPU (measured here: the uname round trip from about 3.7 to 4.5 µs at best); a handler that
   may block (a brokered connect) must run on a thread of its own instead.  */
static unsigned
threads_per_fd (void)
{
  return 1;
}

bool
sv_thread_detached (void *(*fn) (void *), void *arg)
{
  pthread_attr_t attr;
  pthread_t t;
  int r;

  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, SV_DETACHED_STACK);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  r = pthread_create (&t, &attr, fn, arg);
  pthread_attr_destroy (&attr);
  return r == 0;
}

static int
start_threads (struct sv_fd *f, ar_error_t *err)
{
  pthread_attr_t attr;
  sigset_t all, old;
  int r = 0;

  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, SV_THREAD_STACK);
  /* The threads take no signal but the wake-up one.  */
  sigfillset (&all);
  sigdelset (&all, SIGUSR2);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  for (unsigned i = 0; i < threads_per_fd (); i++)
    {
      r = pthread_create (&f->threads[i], &attr, serve, f);
      if (r != 0)
        break;
      f->nthreads++;
    }
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  pthread_attr_destroy (&attr);
  if (r != 0)
    return ar_make_error (err, r, "supervisor: start a thread");
  return 0;
}

static void
stop_threads (struct sv_fd *f)
{
  atomic_store (&f->dead, true);
  for (unsigned i = 0; i < f->nthreads; i++)
    {
      struct timespec ts;
      /* A thread may be just about to block again: wake it until it is gone.  */
      do
        {
          pthread_kill (f->threads[i], SIGUSR2);
          clock_gettime (CLOCK_REALTIME, &ts);
          ts.tv_nsec += 10 * 1000 * 1000;
          if (ts.tv_nsec >= 1000000000)
            {
              ts.tv_sec++;
              ts.tv_nsec -= 1000000000;
            }
        }
      while (pthread_timedjoin_np (f->threads[i], NULL, &ts) == ETIMEDOUT);
    }
  f->nthreads = 0;
}

static struct sv_fd *fds;
static int epfd = -1;

static int
epoll_add (int fd, uint32_t events, uint64_t tag, ar_error_t *err)
{
  struct epoll_event ev = { .events = events, .data.u64 = tag };
  if (epoll_ctl (epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
    return ar_make_error (err, errno, "supervisor: epoll_ctl");
  return 0;
}

/* Take over a notify fd (and the pidfd of its process): its end watched.  Its threads come
   with serve_notify_fd, after the one waiting for us has been answered: creating a thread
   costs 0.3-0.7 ms here, and a notification that comes meanwhile waits in the kernel.  */
static struct sv_fd *
add_notify_fd (int fd, int pidfd, ar_error_t *err)
{
  struct sv_fd *f = xzalloc (sizeof *f);
  __u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

  f->fd = fd;
  f->pidfd = pidfd;
  if (ioctl (fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) < 0)
    ar_debug ("supervisor: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %s", strerror (errno));
  /* No events asked: EPOLLHUP, which comes once no process uses the filter, always is.  */
  if (epoll_add (fd, 0, EV_NOTIFY | (uint64_t) (uintptr_t) f, err) < 0)
    {
      free (f);
      return NULL;
    }
  f->next = fds;
  fds = f;
  return f;
}

static void
drop_notify_fd (struct sv_fd *gone)
{
  for (struct sv_fd **p = &fds; *p; p = &(*p)->next)
    if (*p == gone)
      {
        *p = gone->next;
        break;
      }
  (void) epoll_ctl (epfd, EPOLL_CTL_DEL, gone->fd, NULL);
  stop_threads (gone);
  close (gone->fd);
  if (gone->pidfd >= 0)
    close (gone->pidfd);
  free (gone);
}

/* Fail closed: every process we know of is killed.  With its own pid namespace, killing the
   init takes all of the container with it.  */
static const struct supervisor_cfg *the_cfg;

static void
kill_container (int init_pidfd)
{
  sv_kill_container (the_cfg, init_pidfd);
  for (struct sv_fd *f = fds; f; f = f->next)
    if (f->pidfd >= 0)
      (void) syscall (SYS_pidfd_send_signal, f->pidfd, SIGKILL, NULL, 0);
}

/* The threads of a notify fd taken over.  Without them its processes would wait forever on
   their first supervised call: the container is killed (fail closed).  */
static void
serve_notify_fd (struct sv_fd *f, int init_pidfd)
{
  ar_error_t err = NULL;
  cleanup_free char *detail = NULL;

  if (start_threads (f, &err) == 0)
    return;
  detail = ar_error_text (err);
  ar_error_release (&err);
  sv_stop_reason (the_sv.state_dirfd, "supervisor-failed");
  sv_audit_event (&the_sv, "supervisor-failed", "alert", detail);
  (void) sv_mark_end (the_sv.state_dirfd, "supervisor-failed");
  sv_audit_finish (&the_sv);
  kill_container (init_pidfd); /* last: on cgroup v2 it takes the supervisor along */
  _exit (SUPERVISOR_EXIT_RECORDED);
}

static int
open_outputs (const struct supervisor_cfg *c, ar_error_t *err)
{
  the_sv.state_dirfd = open (c->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (the_sv.state_dirfd < 0)
    return ar_make_error (err, errno, "supervisor: open `%s`", c->state_dir);
  the_sv.vfiles_dirfd = c->vfiles_fd;
  if (the_sv.vfiles_dirfd < 0)
    return ar_make_error (err, EBADF, "supervisor: no directory of virtual files");
  the_sv.audit_fd = audit_open_log (c->audit_path, err);
  return the_sv.audit_fd < 0 ? -1 : 0;
}

static int
host_nr_cpu_ids (void)
{
  cleanup_free char *text = NULL;
  const char *dash;

  if (ar_read_file ("/sys/devices/system/cpu/possible", 256, &text, NULL, NULL) < 0)
    return 1024;
  dash = strrchr (text, '-');
  return atoi (dash ? dash + 1 : text) + 1;
}

static size_t
host_cpumask_bytes (void)
{
  unsigned char buf[1024 / 8];
  long n = syscall (SYS_sched_getaffinity, 0, sizeof buf, buf);
  return n > 0 ? (size_t) n : sizeof (long);
}

/* The container's UTS namespace (uname's nodename) and the init's CPUs.  */
static int
join_container (int init_pidfd, pid_t init_pid, ar_error_t *err)
{
  cpu_set_t cpus;

  if (setns (init_pidfd, CLONE_NEWUTS) < 0)
    return ar_make_error (err, errno, "supervisor: join the container's UTS namespace");
  if (sched_getaffinity (init_pid, sizeof cpus, &cpus) == 0)
    (void) sched_setaffinity (0, sizeof cpus, &cpus);
  return 0;
}

static int
setup (const struct supervisor_cfg *c, int init_pidfd, int *ctl, int *sfd, int *tfd,
       ar_error_t *err)
{
  sigset_t set;
  struct sigaction sa = { .sa_handler = wake_up }; /* no SA_RESTART: ioctls return EINTR */
  struct itimerspec every_second = { { 1, 0 }, { 1, 0 } };

  the_sv.id = c->id;
  the_sv.release = c->uname_release;
  the_sv.uname_personality = c->uname_personality;
  vfiles_live_init (&the_sv.limits, c->limits, c->cgroup_dirs ? &c->limit_dirs : NULL);
  the_sv.audit_arch = SV_NATIVE_AUDIT_ARCH;
  the_sv.nr_cpu_ids = host_nr_cpu_ids ();
  the_sv.cpumask_bytes = host_cpumask_bytes ();
  the_sv.cgroup_dirs = c->cgroup_dirs;
  the_sv.fsnotify_by_kernel = c->fsnotify_by_kernel;
  sv_audit_init (&the_sv, &c->audit);
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGHUP);
  sigaddset (&set, SIGPIPE);
  if (c->trace)
    sigaddset (&set, SIGCHLD); /* a tracee stopped or exited (not ignored: main sees to it) */
  if (sigprocmask (SIG_BLOCK, &set, NULL) < 0 || sigaction (SIGUSR2, &sa, NULL) < 0)
    return ar_make_error (err, errno, "supervisor: signals");
  *sfd = signalfd (-1, &set, SFD_CLOEXEC);
  *tfd = timerfd_create (CLOCK_MONOTONIC, TFD_CLOEXEC);
  epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (*sfd < 0 || *tfd < 0 || epfd < 0 || timerfd_settime (*tfd, 0, &every_second, NULL) < 0)
    return ar_make_error (err, errno, "supervisor: event fds");
  if (open_outputs (c, err) < 0
      || policy_init (&the_sv.policy, policy_native_table (), &c->popts, err) < 0
      || (c->net
          && (sv_net_init (&the_sv, c->net, c->upstream, c->host_addrs, the_sv.vfiles_dirfd, err)
                  < 0
              || sv_egress_container_ns (&the_sv, c->init_pid, err) < 0
              || sv_egress_setup (&the_sv, init_pidfd, c->egress_netns_fd, err) < 0))
      || join_container (init_pidfd, c->init_pid, err) < 0)
    return -1;
  *ctl = control_listen (the_sv.state_dirfd, err);
  if (*ctl < 0)
    return -1;
  if (epoll_add (*ctl, EPOLLIN, EV_CONTROL, err) < 0
      || epoll_add (*sfd, EPOLLIN, EV_SIGNAL, err) < 0
      || epoll_add (*tfd, EPOLLIN, EV_TIMER, err) < 0
      || epoll_add (init_pidfd, EPOLLIN, EV_INIT, err) < 0
      || (c->canary_fd >= 0 && epoll_add (c->canary_fd, EPOLLIN, EV_CANARY, err) < 0))
    return -1;
  return 0;
}

/* exec on the ptrace platform: the new process waits, filtered, until it is traced.  Its pid
   names it only while its start time is the one exec sent, before the seize and after it.  */
static int
trace_attached (pid_t pid, unsigned long long start)
{
  ar_error_t err = NULL;

  if (start == 0)
    return EPROTO; /* an older exec, which does not say */
  if (state_proc_start_time (pid) != start)
    return ESRCH;
  if (tracer_seize (pid, &err) < 0)
    {
      int e = err->status ? err->status : EIO;
      ar_log_error_release (&err);
      return e;
    }
  if (state_proc_start_time (pid) != start)
    {
      tracer_release (pid);
      return ESRCH;
    }
  if (traced == TRACER_EMPTY)
    traced = TRACER_IDLE;
  return 0;
}

/* A new deadline, for the watchdog to keep: its answer is the errno.  */
static int
tell_watchdog (int64_t ms, bool from_now, char **msg)
{
  struct worker_deadline d = { ms, from_now };
  struct pollfd p = { .fd = deadline_ch, .events = POLLIN };

  if (deadline_ch < 0 || send (deadline_ch, &d, sizeof d, MSG_NOSIGNAL) != (ssize_t) sizeof d
      || poll (&p, 1, 2000) != 1 || recv (deadline_ch, &d, sizeof d, 0) != (ssize_t) sizeof d)
    {
      *msg = xstrdup ("the supervisor's watchdog did not take the new deadline");
      return EIO;
    }
  if (d.ms != 0)
    *msg = xasprintf ("the watchdog could not set the deadline: %s", strerror ((int) d.ms));
  return (int) d.ms;
}

/* `agentrt update`: the allowlist or the deadline, changed while the container runs.  */
static void
take_update (struct control_request *r)
{
  cleanup_free char *msg = NULL;
  cleanup_free char *detail = NULL;
  int e;

  switch (r->op)
    {
    case CONTROL_NET_SET:
    case CONTROL_NET_ADD:
    case CONTROL_NET_REMOVE:
      e = sv_net_update (&the_sv,
                         r->op == CONTROL_NET_SET   ? SV_NET_SET
                         : r->op == CONTROL_NET_ADD ? SV_NET_ADD
                                                    : SV_NET_REMOVE,
                         r->text, &msg);
      break;
    default:
      e = tell_watchdog (r->value, r->op == CONTROL_TIMEOUT_FROM_NOW, &msg);
      if (e == 0)
        {
          detail = xasprintf ("the deadline is now %lld ms %s", (long long) r->value,
                              r->op == CONTROL_TIMEOUT_FROM_NOW ? "from the update"
                                                                : "from the container's creation");
          sv_audit_event (&the_sv, "timeout-changed", "info", detail);
        }
      break;
    }
  control_answer_text (r->conn, e, msg);
  free (r->text);
}

static void
accept_attach (int ctl, int init_pidfd)
{
  struct control_request r;
  ar_error_t err = NULL;
  struct sv_fd *f;

  if (control_accept (ctl, &r, &err) < 0)
    {
      ar_log_error_release (&err);
      return;
    }
  if (r.update)
    {
      take_update (&r);
      return;
    }
  if (the_cfg->trace || r.fd < 0)
    {
      /* The tracer traces the process.  A notify fd for a tracer, or a process to trace for
         a notify supervisor, is refused.  */
      control_answer (r.conn,
                      the_cfg->trace == (r.fd < 0) ? trace_attached (r.pid, r.start) : EPROTO);
      ar_closep (&r.fd);
      ar_closep (&r.pidfd);
      return;
    }
  f = add_notify_fd (r.fd, r.pidfd, &err);
  if (f == NULL)
    {
      control_answer (r.conn, err->status ? err->status : EIO);
      ar_log_error_release (&err);
      ar_closep (&r.fd);
      ar_closep (&r.pidfd);
      return;
    }
  control_answer (r.conn, 0);
  serve_notify_fd (f, init_pidfd);
}

static void
refresh_vfiles (int tfd)
{
  uint64_t ticks;
  ar_error_t err = NULL;

  if (read (tfd, &ticks, sizeof ticks) < 0)
    return;
  if (vfiles_live_tick (&the_sv.limits, the_sv.vfiles_dirfd, &err) < 0)
    ar_log_error_release (&err);
  sv_audit_tick (&the_sv);
  sv_net_tick (&the_sv);
}

static const struct supervisor_canary *
canary_of (int fd)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return NULL;
  for (size_t i = 0; i < the_cfg->n_canaries; i++)
    if (the_cfg->canaries[i].dev == st.st_dev && the_cfg->canaries[i].ino == st.st_ino)
      return &the_cfg->canaries[i];
  return NULL;
}

static void
canary_alert (const struct fanotify_event_metadata *m)
{
  const struct supervisor_canary *k = canary_of (m->fd);
  cleanup_free char *detail = NULL;
  cleanup_free char *key = NULL;
  char path[64], comm[32] = "";
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/comm", (int) m->pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && (n = read (fd, comm, sizeof comm - 1)) > 0)
    comm[n - (comm[n - 1] == '\n')] = '\0';
  detail
      = xasprintf ("decoy file `%s` opened by pid %d (%s)", k ? k->path : "?", (int) m->pid, comm);
  /* Aggregated by file and program, not by pid: a loop of `cat`s is one record and a count.  */
  key = xasprintf ("%s\n%s", k ? k->path : "?", comm);
  sv_audit_event_keyed (&the_sv, "canary", "alert", detail, key);
}

/* fanotify on the canaries (ephemeral.h): every FAN_OPEN is an alert.  It sees opens only: a
   stat, a listing or an mmap of an fd opened before is not an open.  */
static void
read_canaries (int fan)
{
  char buf[4096] __attribute__ ((aligned (__alignof__(struct fanotify_event_metadata))));
  ssize_t n;

  while ((n = read (fan, buf, sizeof buf)) > 0)
    {
      const struct fanotify_event_metadata *m = (const void *) buf;
      for (; FAN_EVENT_OK (m, n); m = FAN_EVENT_NEXT (m, n))
        {
          if (m->mask & FAN_Q_OVERFLOW)
            sv_audit_event (&the_sv, "canary", "alert",
                            "canary events were lost (the queue overflowed)");
          else if (m->mask & FAN_OPEN)
            canary_alert (m);
          if (m->fd >= 0)
            close (m->fd);
        }
    }
}

/* An alert that the container is killed, and why, for `state` too.  */
static void
worker_alert (const char *event, const char *detail)
{
  sv_stop_reason (the_sv.state_dirfd, event);
  sv_audit_event (&the_sv, event, "alert", detail);
}

/* The watchdog died (our parent-death signal) or someone stops us by hand: either way the
   container must not go on without us.  The watchdog has already gone when its death is
   signalled (we have been reparented): the end is ours to tell (recorded, then marked: killed
   in between, a command records it again rather than never).  Otherwise the watchdog is told
   that the container was killed and why (SUPERVISOR_EXIT_RECORDED), so that it records nothing
   more.  */
static void __attribute__ ((noreturn)) on_signal (const struct signalfd_siginfo *si, int init_pidfd)
{
  cleanup_free char *detail = NULL;
  bool lost = getppid () != watchdog;

  if (lost)
    {
      worker_alert ("supervisor-lost",
                    "the supervisor's watchdog is gone: the container is killed");
      (void) sv_mark_end (the_sv.state_dirfd, "supervisor-lost");
    }
  else
    {
      detail = xasprintf ("stopped by signal %u from pid %u: the container is killed",
                          si->ssi_signo, si->ssi_pid);
      worker_alert ("supervisor-stopped", detail);
      (void) sv_mark_end (the_sv.state_dirfd, "supervisor-stopped");
    }
  sv_audit_finish (&the_sv);
  kill_container (init_pidfd); /* last: on cgroup v2 it takes the supervisor along */
  _exit (lost ? EXIT_FAILURE : SUPERVISOR_EXIT_RECORDED);
}

/* Is the watchdog stopped (SIGSTOP, or a debugger's stop)?  No kernel notification tells a
   child that its parent stopped (SIGCHLD and waitpid go the other way, a pidfd polls for an
   exit only), so the worker looks once a second.  */
static bool
watchdog_stopped (void)
{
  char buf[512];
  ssize_t n = watchdog_stat < 0 ? -1 : pread (watchdog_stat, buf, sizeof buf - 1, 0);
  char *paren;

  if (n <= 0)
    return false; /* gone: its death is our SIGTERM */
  buf[n] = '\0';
  paren = strrchr (buf, ')');
  return paren && paren[1] == ' ' && (paren[2] == 'T' || paren[2] == 't');
}

/* A stopped watchdog would deadline and watch nothing, and, tracing the init (the kill switch),
   keep it in its next signal's stop.  The container is killed, then the watchdog, which lets
   the dead init's exit reach its parent; we tell the end (it cannot).  */
static void
check_watchdog (int init_pidfd)
{
  cleanup_free char *detail = NULL;

  if (!watchdog_stopped ())
    return;
  detail = xasprintf ("the watchdog (pid %d) is stopped: the container is killed", (int) watchdog);
  worker_alert ("supervisor-stopped", detail);
  (void) sv_mark_end (the_sv.state_dirfd, "supervisor-stopped");
  sv_audit_tick (&the_sv);
  kill_container (init_pidfd); /* on cgroup v2 it takes the supervisor along */
  if (getppid () == watchdog)  /* still our parent, so still that process */
    kill (watchdog, SIGKILL);
  _exit (SUPERVISOR_EXIT_RECORDED);
}

/* A signal on the signalfd: a tracee's stop (SIGCHLD, when tracing), or the end.  */
static void
read_signal (int sfd, int init_pidfd)
{
  struct signalfd_siginfo si = { 0 };

  if (read (sfd, &si, sizeof si) != sizeof si)
    return;
  if (si.ssi_signo != SIGCHLD)
    on_signal (&si, init_pidfd);
  traced = tracer_drain (&the_sv);
}

/* Serve until the init has gone and no fd (or tracee) is left; then exit 0.  */
static void __attribute__ ((noreturn)) main_loop (int ctl, int sfd, int tfd, int init_pidfd)
{
  bool init_gone = false, told = false;

  for (;;)
    {
      struct epoll_event ev[16];
      /* Stops left over from a full drain are taken as soon as the other events are.  */
      int n = epoll_wait (epfd, ev, ARRAY_SIZE (ev), traced == TRACER_MORE ? 0 : -1);
      for (int i = 0; i < n; i++)
        {
          uint64_t tag = ev[i].data.u64;
          if (tag == EV_CONTROL)
            accept_attach (ctl, init_pidfd);
          else if (tag == EV_TIMER)
            {
              check_watchdog (init_pidfd);
              refresh_vfiles (tfd);
              if (the_cfg->trace) /* should a SIGCHLD be missed, a stop waits a second at most */
                traced = tracer_drain (&the_sv);
            }
          else if (tag == EV_CANARY)
            read_canaries (the_cfg->canary_fd);
          else if (tag == EV_SIGNAL)
            read_signal (sfd, init_pidfd);
          else if (tag == EV_INIT)
            {
              init_gone = true;
              (void) epoll_ctl (epfd, EPOLL_CTL_DEL, init_pidfd, NULL);
            }
          else
            drop_notify_fd ((struct sv_fd *) (uintptr_t) (tag & ~(uint64_t) 0xf));
        }
      if (traced == TRACER_MORE)
        traced = tracer_drain (&the_sv);
      if (init_gone && !told && the_cfg->trace)
        {
          /* The init's tracer tells its end (supervisor.h), once it is reaped: its parent
             hears of the exit before this write.  */
          told = true;
          traced = tracer_drain (&the_sv);
          (void) sv_mark_end (the_sv.state_dirfd, "exit");
        }
      if (init_gone && fds == NULL && (!the_cfg->trace || traced == TRACER_EMPTY))
        {
          sv_audit_finish (&the_sv);
          _exit (EXIT_SUCCESS);
        }
    }
}

static enum confine_role
worker_role (const struct supervisor_cfg *c)
{
  if (c->trace)
    return CONFINE_TRACER;
  return c->net ? CONFINE_BROKER : CONFINE_WORKER;
}

void
worker_main (const struct supervisor_cfg *c, int ready_fd, int init_pidfd, int deadline_fd)
{
  ar_error_t err = NULL;
  int ctl = -1, sfd = -1, tfd = -1;
  struct sv_fd *init_fd = NULL;
  char msg[64];
  int len;

  watchdog = getppid ();
  the_cfg = c;
  deadline_ch = deadline_fd;
  snprintf (msg, sizeof msg, "/proc/%d/stat", (int) watchdog);
  watchdog_stat = open (msg, O_RDONLY | O_CLOEXEC);
  /* Confined before the first thread exists: capabilities and filters are per thread.  The
     init is traced now, while it waits for start: its first traced call is its execve.  */
  if (setup (c, init_pidfd, &ctl, &sfd, &tfd, &err) < 0
      || confine_supervisor (worker_role (c), &err) < 0
      || (c->trace ? tracer_seize (c->init_pid, &err) < 0
                   : (init_fd = add_notify_fd (c->notify_fd, -1, &err)) == NULL)
      || (the_sv.net && sv_resolver_start (&the_sv, &err) < 0))
    {
      cleanup_free char *text = ar_error_text (err);
      dprintf (ready_fd, "error: %s", text);
      _exit (EXIT_FAILURE);
    }
  len = snprintf (msg, sizeof msg, "ok %d %d", (int) getppid (), (int) getpid ());
  if (write (ready_fd, msg, (size_t) len) != len)
    _exit (EXIT_FAILURE);
  close (ready_fd);
  if (init_fd)
    serve_notify_fd (init_fd, init_pidfd);
  main_loop (ctl, sfd, tfd, init_pidfd);
}
