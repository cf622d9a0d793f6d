/* Runs OCI hooks: one child per hook, its stdin a pipe carrying the state JSON, its end watched
   through a pidfd so the timeout needs no SIGALRM and no sleeping.  It owns nothing past the
   call: every child is reaped (or SIGKILLed and reaped) before hooks_run returns, and the
   caller's signal state is left as it was.  The hook gets fds 0, 1 and 2 only (CVE-2024-21626
   came from a leaked fd).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "init/hooks.h"
#include "utils.h"

/* What the child execs, built before fork: after fork only async-signal-safe calls.  */
struct hook_exec
{
  const char *path, *kind;
  char *const *argv, *const *envp;
};

struct hook_proc
{
  pid_t pid; /* > 0 until reaped */
  int pidfd;
};

static void
hook_proc_release (struct hook_proc *p)
{
  if (p->pid > 0)
    {
      /* Not reaped yet, so neither the pid nor the pidfd can name another process.  */
      if (p->pidfd < 0 || syscall (SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0) < 0)
        (void) kill (p->pid, SIGKILL);
      while (waitpid (p->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  if (p->pidfd >= 0)
    close (p->pidfd);
}
#define cleanup_hook_proc __attribute__ ((cleanup (hook_proc_release)))

/* Close now and forget it, so the cleanup attribute does not close a reused number later
   (ar_closep leaves *fd as it was).  */
static void
close_now (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* A CLOEXEC pipe whose ends are above stdio, so dup2 onto fd 0 in the child never collides
   with them (a caller may run with fds 0-2 closed).  */
static int
pipe_above_stdio (int fds[2], ar_error_t *err)
{
  if (pipe2 (fds, O_CLOEXEC) < 0)
    return ar_make_error (err, errno, "pipe");
  for (int i = 0; i < 2; i++)
    if (fds[i] <= STDERR_FILENO)
      {
        int fd = fcntl (fds[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        int e = errno;

        close (fds[i]);
        fds[i] = fd;
        if (fd < 0)
          {
            close (fds[1 - i]);
            return ar_make_error (err, e, "pipe");
          }
      }
  return 0;
}

/* In the child.  SIG_IGN and the signal mask survive execve, so both are reset: a caller that
   ignores SIGPIPE or blocks signals for a signalfd must not pass that on.  ERRFD is CLOEXEC:
   it reads EOF in the parent when execve succeeds, the errno when it fails.  */
static void __attribute__ ((noreturn))
child_exec (const struct hook_exec *x, int stdin_r, int errfd)
{
  struct sigaction dfl = { .sa_handler = SIG_DFL };
  sigset_t none;
  int e;

  for (int sig = 1; sig < NSIG; sig++)
    (void) sigaction (sig, &dfl, NULL); /* EINVAL for SIGKILL, SIGSTOP, libc's own */
  sigemptyset (&none);
  (void) sigprocmask (SIG_SETMASK, &none, NULL);
  /* A hook dies with the runtime that waits for it: a killed create leaves nothing running.  */
  (void) prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (dup2 (stdin_r, STDIN_FILENO) >= 0)
    {
      (void) close_range (STDERR_FILENO + 1, (unsigned) errfd - 1, 0);
      (void) close_range ((unsigned) errfd + 1, ~0U, 0);
      execve (x->path, x->argv, x->envp);
    }
  e = errno;
  /* Tested, not cast to void, which glibc's warn_unused_result does not accept (Debian's
     _FORTIFY_SOURCE build warns).  */
  if (write (errfd, &e, sizeof e) < 0)
    {
      /* Nobody left to tell: the parent reads EOF and the hook's status 127.  */
    }
  _exit (127);
}

/* 0 once execve succeeded (EOF), else the child's errno.  */
static int
read_exec_errno (int fd)
{
  int e = 0;
  ssize_t n;

  do
    n = read (fd, &e, sizeof e);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return errno;
  return n == (ssize_t) sizeof e ? e : 0;
}

static int
spawn (const struct hook_exec *x, struct hook_proc *proc, int *stdin_w, ar_error_t *err)
{
  int in[2], ep[2], e;

  if (pipe_above_stdio (in, err) < 0)
    return -1;
  cleanup_close int in_r = in[0], in_w = in[1];
  if (pipe_above_stdio (ep, err) < 0)
    return -1;
  cleanup_close int err_r = ep[0], err_w = ep[1];

  proc->pid = fork ();
  if (proc->pid < 0)
    return ar_make_error (err, errno, "fork hook `%s` (%s)", x->path, x->kind);
  if (proc->pid == 0)
    child_exec (x, in_r, err_w);
  close_now (&err_w);
  e = read_exec_errno (err_r);
  if (e != 0)
    return ar_make_error (err, e, "exec hook `%s` (%s)", x->path, x->kind);
  proc->pidfd = (int) syscall (SYS_pidfd_open, proc->pid, 0);
  if (proc->pidfd < 0)
    return ar_make_error (err, errno, "pidfd_open hook `%s` (%s)", x->path, x->kind);
  if (fcntl (in_w, F_SETFL, O_NONBLOCK) < 0)
    return ar_make_error (err, errno, "set O_NONBLOCK on the stdin of hook `%s`", x->path);
  *stdin_w = steal_fd (&in_w);
  return 0;
}

/* Milliseconds to DEADLINE for poll: -1 (forever) without one.  */
static int
remaining_ms (int64_t deadline)
{
  int64_t left;

  if (deadline < 0)
    return -1;
  left = deadline - ar_monotonic_ms ();
  return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int) left;
}

static int64_t
deadline_after (const struct spec_i64 *timeout)
{
  int64_t now = ar_monotonic_ms ();

  if (!timeout->set || timeout->v > (INT64_MAX - now) / 1000)
    return -1;
  return now + timeout->v * 1000;
}

/* Write what the pipe takes now.  A reader that is gone (EPIPE, POLLERR) or a state fully
   written closes our end: the hook sees EOF, and we only wait for it to exit.  */
static int
feed_some (int *fd, short revents, const char *buf, size_t len, size_t *off, ar_error_t *err)
{
  ssize_t n = 0;

  if (!(revents & (POLLERR | POLLHUP)))
    n = write (*fd, buf + *off, len - *off);
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return 0;
  if (n < 0 && errno != EPIPE)
    return ar_make_error (err, errno, "write the state to a hook's stdin");
  if (n > 0)
    *off += (size_t) n;
  if (n <= 0 || *off == len)
    close_now (fd);
  return 0;
}

/* Feed the state while waiting for the hook to exit.  1: it exited; 0: the deadline passed.  */
static int
feed_and_wait (int pidfd, int *stdin_w, const char *buf, size_t len, int64_t deadline,
               ar_error_t *err)
{
  size_t off = 0;

  if (len == 0)
    close_now (stdin_w);
  for (;;)
    {
      struct pollfd fds[2]
          = { { .fd = pidfd, .events = POLLIN }, { .fd = *stdin_w, .events = POLLOUT } };
      int r = poll (fds, *stdin_w >= 0 ? 2 : 1, remaining_ms (deadline));

      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ar_make_error (err, errno, "poll a hook's pidfd");
      if (r == 0)
        return 0;
      if (fds[0].revents)
        return 1;
      if (fds[1].revents && feed_some (stdin_w, fds[1].revents, buf, len, &off, err) < 0)
        return -1;
    }
}

struct sigpipe_guard
{
  sigset_t old;
  bool was_pending;
};

/* A write to a pipe whose reader has gone raises SIGPIPE, whose default kills us.  It is
   blocked rather than ignored, so the caller's disposition stays and nothing is inherited.  */
static void
sigpipe_block (struct sigpipe_guard *g)
{
  sigset_t set, pending;

  sigemptyset (&set);
  sigaddset (&set, SIGPIPE);
  g->was_pending = sigpending (&pending) == 0 && sigismember (&pending, SIGPIPE);
  pthread_sigmask (SIG_BLOCK, &set, &g->old);
}

static void
sigpipe_restore (struct sigpipe_guard *g)
{
  static const struct timespec zero = { 0, 0 };
  sigset_t set, pending;

  sigemptyset (&set);
  sigaddset (&set, SIGPIPE);
  if (!g->was_pending && sigpending (&pending) == 0 && sigismember (&pending, SIGPIPE))
    (void) sigtimedwait (&set, NULL, &zero);
  pthread_sigmask (SIG_SETMASK, &g->old, NULL);
}

static int
reap (struct hook_proc *proc, int *status, ar_error_t *err)
{
  pid_t r;

  do
    r = waitpid (proc->pid, status, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return ar_make_error (err, errno, "wait for hook pid %d", (int) proc->pid);
  proc->pid = -1;
  return 0;
}

static int
check_status (const struct hook_exec *x, int status, ar_error_t *err)
{
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return 0;
  if (WIFEXITED (status))
    return ar_make_error (err, 0, "hook `%s` (%s) exited with status %d", x->path, x->kind,
                          WEXITSTATUS (status));
  return ar_make_error (err, 0, "hook `%s` (%s) killed by signal %d", x->path, x->kind,
                        WIFSIGNALED (status) ? WTERMSIG (status) : 0);
}

static int
run_one (const struct spec_hook *h, const char *kind, const char *state, size_t len,
         ar_error_t *err)
{
  char *default_argv[] = { h->path, NULL }, *empty_env[] = { NULL };
  struct hook_exec x = { .path = h->path,
                         .kind = kind,
                         .argv = h->args.n > 0 ? h->args.v : default_argv,
                         .envp = h->env.v ? h->env.v : empty_env };
  cleanup_hook_proc struct hook_proc proc = { .pid = -1, .pidfd = -1 };
  cleanup_close int stdin_w = -1;
  struct sigpipe_guard guard;
  int status, r;

  if (spawn (&x, &proc, &stdin_w, err) < 0)
    return -1;
  sigpipe_block (&guard);
  r = feed_and_wait (proc.pidfd, &stdin_w, state, len, deadline_after (&h->timeout), err);
  sigpipe_restore (&guard);
  if (r < 0)
    return -1;
  if (r == 0)
    return ar_make_error (err, 0, "hook `%s` (%s) timed out after %" PRId64 " s", x.path, kind,
                          h->timeout.v); /* proc's cleanup SIGKILLs and reaps it */
  if (reap (&proc, &status, err) < 0)
    return -1;
  return check_status (&x, status, err);
}

int
hooks_run (const struct spec_hook_list *hooks, const char *kind, const char *state_json,
           ar_error_t *err)
{
  const char *state = state_json ? state_json : "";
  size_t len = strlen (state);

  for (size_t i = 0; hooks && i < hooks->n; i++)
    if (run_one (&hooks->items[i], kind, state, len, err) < 0)
      return -1;
  return 0;
}
