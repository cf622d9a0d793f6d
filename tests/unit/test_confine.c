/* supervisor/confine.c: the supervisor's own capabilities and seccomp filter, applied in forked
   children, which then make raw syscalls and exit with the number of the first check that
   failed (0: all held).  Dropping capabilities needs root; without it every test skips.  */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/confine.h"
#include "tap.h"

/* A call that must fail with `e`.  */
#define REFUSED(call, e) ((call) == -1 && errno == (e))

static void *
thread_fn (void *arg)
{
  return arg;
}

static bool
cap_effective (cap_value_t c)
{
  cap_t caps = cap_get_proc ();
  cap_flag_value_t v = CAP_CLEAR;

  if (caps)
    cap_get_flag (caps, c, CAP_EFFECTIVE, &v);
  cap_free (caps);
  return v == CAP_SET;
}

/* What every role must hold to: the exit status says which check failed.  */
static int
common_checks (void)
{
  char *argv[] = { "true", NULL };
  pthread_t t;
  void *res = NULL;
  int step = 0;

  step++;
  /* A path that is not there: were execve allowed, ENOENT.  */
  if (!REFUSED (execve ("/nonexistent/agentrt-test", argv, argv + 1), EPERM))
    return step;
  step++;
  if (!REFUSED (mount ("none", "/mnt", "tmpfs", 0, NULL), EPERM))
    return step;
  step++;
  if (!REFUSED (unshare (CLONE_NEWNS), EPERM))
    return step;
  step++;
  if (!REFUSED (syscall (SYS_clone3, NULL, 0), ENOSYS))
    return step;
  step++;
  /* glibc's fork is clone(SIGCHLD): no CLONE_THREAD.  */
  if (!REFUSED (syscall (SYS_clone, (unsigned long) SIGCHLD, 0, 0, 0, 0), EPERM))
    return step;
  step++;
  if (!REFUSED (syscall (SYS_bpf, 0, NULL, 0), EPERM))
    return step;
  step++;
  if (pthread_create (&t, NULL, thread_fn, &step) != 0 || pthread_join (t, &res) != 0
      || res != &step)
    return step;
  step++;
  if (getppid () <= 0 || cap_effective (CAP_SYS_ADMIN) || !cap_effective (CAP_KILL))
    return step;
  return 0;
}

static int
role_checks (enum confine_role role)
{
  ar_error_t err = NULL;
  int r;

  if (confine_supervisor (role, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      return 100;
    }
  r = common_checks ();
  if (r)
    return r;
  if (role == CONFINE_WATCHDOG && cap_effective (CAP_SYS_PTRACE))
    return 20;
  if (role != CONFINE_WATCHDOG && !cap_effective (CAP_SYS_PTRACE))
    return 21;
  if (role == CONFINE_BROKER)
    {
      /* Its thread's own view of a caller's filesystem, and nothing more.  */
      if (unshare (CLONE_FS) != 0 || chroot ("/") != 0)
        return 22;
      if (!REFUSED (unshare (CLONE_FS | CLONE_NEWNS), EPERM)
          || !REFUSED (syscall (SYS_unshare, (unsigned long) CLONE_FS | (1UL << 32)), EPERM))
        return 23;
    }
  else if (!REFUSED (unshare (CLONE_FS), EPERM) || !REFUSED (chroot ("/"), EPERM))
    return 24;
  /* ptrace: the tracer's own requests (ESRCH: pid 0 is no tracee of ours), and of them the
     watchdog's CONT and LISTEN (it ends the stops of the init it traces, the kill switch),
     and GETEVENTMSG the watchdog alone (the tracer's own filter leaves it out: it never asks),
     refused to every other role; PTRACE_ATTACH, POKEDATA and a request with high bits refused
     to all.  */
  if (!REFUSED (syscall (SYS_ptrace, PTRACE_CONT, 0, 0, 0),
                role == CONFINE_WORKER || role == CONFINE_BROKER ? EPERM : ESRCH)
      || !REFUSED (syscall (SYS_ptrace, PTRACE_LISTEN, 0, 0, 0),
                   role == CONFINE_WORKER || role == CONFINE_BROKER ? EPERM : ESRCH)
      || !REFUSED (syscall (SYS_ptrace, PTRACE_GETEVENTMSG, 0, 0, 0),
                   role == CONFINE_WATCHDOG ? ESRCH : EPERM))
    return 25;
  if (!REFUSED (syscall (SYS_ptrace, PTRACE_DETACH, 0, 0, 0),
                role == CONFINE_TRACER ? ESRCH : EPERM)
      || !REFUSED (syscall (SYS_ptrace, PTRACE_SEIZE, 0, 0, 0),
                   role == CONFINE_TRACER ? ESRCH : EPERM))
    return 27;
  if (!REFUSED (syscall (SYS_ptrace, PTRACE_ATTACH, 0, 0, 0), EPERM)
      || !REFUSED (syscall (SYS_ptrace, PTRACE_POKEDATA, 0, 0, 0), EPERM)
      || !REFUSED (syscall (SYS_ptrace, (1UL << 32) | PTRACE_CONT, 0, 0, 0), EPERM))
    return 26;
  return 0;
}

static int
run_role (enum confine_role role)
{
  int status;
  pid_t pid;

  if (geteuid () != 0)
    {
      printf ("# not root: cannot drop capabilities\n");
      return 77;
    }
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    TAP_FAIL ("fork: %s", strerror (errno));
  if (pid == 0)
    _exit (role_checks (role));
  if (waitpid (pid, &status, 0) != pid)
    TAP_FAIL ("waitpid: %s", strerror (errno));
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    TAP_FAIL ("check %d failed (status 0x%x)", WIFEXITED (status) ? WEXITSTATUS (status) : -1,
              status);
  return 0;
}

static int
test_watchdog (void)
{
  return run_role (CONFINE_WATCHDOG);
}

static int
test_worker (void)
{
  return run_role (CONFINE_WORKER);
}

static int
test_broker (void)
{
  return run_role (CONFINE_BROKER);
}

static int
test_tracer (void)
{
  return run_role (CONFINE_TRACER);
}

int
main (void)
{
  RUN_TEST (test_watchdog);
  RUN_TEST (test_worker);
  RUN_TEST (test_broker);
  RUN_TEST (test_tracer);
  TAP_END ();
}
