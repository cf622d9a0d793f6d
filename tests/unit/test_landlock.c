/* Unit tests of the Landlock ruleset (init/landlock.c): what each ABI keeps of a plan (the
   ABI is passed in, so every kernel is tried on this one), and, where this kernel has scopes,
   that an applied ruleset refuses a signal out of its domain and still allows one inside it.
   Runs without root: landlock_restrict_self takes no_new_privs instead.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init/landlock.h"
#include "init/landlock_uapi.h"
#include "tap.h"

static const struct landlock_plan all
    = { .scope_signal = true, .scope_abstract = true, .deny_connect = true };

static int
test_fit_by_abi (void)
{
  struct landlock_ruleset r;
  const uint64_t scopes = AR_LANDLOCK_SCOPE_SIGNAL | AR_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;

  /* No Landlock, or only filesystem rights: nothing to apply.  */
  for (int abi = 0; abi <= 3; abi++)
    CHECK (!landlock_fit (&all, abi, &r) && r.handled_net == 0 && r.scoped == 0);
  /* 4 and 5: TCP connect, no scopes.  */
  for (int abi = 4; abi <= 5; abi++)
    {
      CHECK (landlock_fit (&all, abi, &r));
      CHECK (r.handled_net == AR_LANDLOCK_ACCESS_NET_CONNECT_TCP && r.scoped == 0);
      CHECK (r.restrict_flags == 0 && r.abi == abi);
    }
  /* 6: scopes too; no audit flags before 7.  */
  CHECK (landlock_fit (&all, 6, &r) && r.scoped == scopes && r.restrict_flags == 0);
  /* 7 and later: the workload's denials are logged, its own nested domains' are not.  */
  for (int abi = 7; abi <= 9; abi++)
    {
      CHECK (landlock_fit (&all, abi, &r) && r.scoped == scopes);
      CHECK (r.handled_net == AR_LANDLOCK_ACCESS_NET_CONNECT_TCP);
      CHECK (r.restrict_flags
             == (AR_LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
                 | AR_LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF));
    }
  return 0;
}

static int
test_fit_parts (void)
{
  struct landlock_ruleset r;
  struct landlock_plan none = { 0 }, sig = { .scope_signal = true },
                       conn = { .deny_connect = true };

  CHECK (!landlock_fit (&none, 7, &r));
  CHECK (landlock_fit (&sig, 7, &r) && r.scoped == AR_LANDLOCK_SCOPE_SIGNAL && r.handled_net == 0);
  /* Scopes alone on a kernel of ABI 5: nothing.  */
  CHECK (!landlock_fit (&sig, 5, &r));
  CHECK (landlock_fit (&conn, 4, &r) && r.scoped == 0);
  return 0;
}

/* The ptrace wall is in every ABI: one filesystem right handled, nothing else.  */
static int
test_fit_ptrace_wall (void)
{
  struct landlock_plan wall = { .ptrace_wall = true };
  struct landlock_ruleset r;

  CHECK (!landlock_fit (&wall, 0, &r) && r.handled_fs == 0);
  for (int abi = 1; abi <= 9; abi++)
    {
      CHECK (landlock_fit (&wall, abi, &r));
      CHECK (r.handled_fs == AR_LANDLOCK_ACCESS_FS_MAKE_BLOCK && r.handled_net == 0
             && r.scoped == 0);
    }
  CHECK (landlock_fit (&all, 7, &r) && r.handled_fs == 0);
  return 0;
}

/* A container that needs the wall is refused without Landlock, or when the kernel refuses the
   ruleset; every other one runs as before.  */
static int
test_need (void)
{
  struct landlock_plan wall = { .ptrace_wall = true, .scope_signal = true };
  ar_error_t err = NULL;

  CHECK (landlock_need (&wall, 0, false, &err) < 0);
  CHECK (strstr (err->msg, "CAP_SYS_PTRACE without a user namespace") != NULL);
  CHECK (strstr (err->msg, "no Landlock") != NULL);
  ar_error_release (&err);
  CHECK (landlock_need (&wall, 7, true, &err) < 0);
  CHECK (strstr (err->msg, "refuses the ruleset") != NULL);
  ar_error_release (&err);
  CHECK (landlock_need (&wall, 1, false, &err) == 0 && err == NULL);
  CHECK (landlock_need (&all, 0, false, &err) == 0 && err == NULL);
  CHECK (landlock_need (&all, 7, true, &err) == 0 && err == NULL);
  return 0;
}

/* A child enters the ptrace wall's domain: its parent (outside) is out of its reach, its own
   child (inside) is not.  */
static int
test_apply_ptrace_wall (void)
{
  struct landlock_plan wall = { .ptrace_wall = true };
  struct landlock_ruleset r;
  ar_error_t err = NULL;
  int status;
  pid_t pid;

  if (landlock_abi () < 1)
    {
      printf ("# this kernel has no Landlock\n");
      return 77;
    }
  CHECK (landlock_prepare (&wall, &r, &err) == 0 && err == NULL);
  CHECK (r.handled_fs == AR_LANDLOCK_ACCESS_FS_MAKE_BLOCK);
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    {
      char mem[64];
      pid_t inner;
      int fd, st;
      bool could;

      snprintf (mem, sizeof mem, "/proc/%d/mem", (int) getppid ());
      /* The control: without the domain (Yama may refuse it already).  */
      fd = open (mem, O_RDONLY | O_CLOEXEC);
      could = fd >= 0;
      if (fd >= 0)
        close (fd);
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || landlock_apply (&r, &err) < 0)
        _exit (10);
      if (could && (open (mem, O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES))
        _exit (11);
      if (ptrace (PTRACE_ATTACH, getppid (), 0, 0) == 0 || errno != EPERM)
        _exit (12);
      inner = fork ();
      if (inner == 0)
        {
          pause ();
          _exit (0);
        }
      if (inner < 0 || ptrace (PTRACE_ATTACH, inner, 0, 0) < 0 || waitpid (inner, &st, 0) != inner
          || !WIFSTOPPED (st))
        _exit (13);
      kill (inner, SIGKILL);
      (void) ptrace (PTRACE_DETACH, inner, 0, 0);
      waitpid (inner, &st, 0);
      _exit (0);
    }
  CHECK (waitpid (pid, &status, 0) == pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    TAP_FAIL ("child status %#x (10: apply, 11: parent's mem opened, 12: parent attached, 13: "
              "own child not traced)",
              status);
  return 0;
}

/* A child enters a signal-scoped domain: its parent (outside) is refused, its own child
   (inside) is not.  */
static int
test_apply_signal_scope (void)
{
  struct landlock_plan sig = { .scope_signal = true };
  struct landlock_ruleset r;
  int status;
  pid_t pid;

  if (landlock_abi () < 6)
    {
      printf ("# this kernel's Landlock ABI is %d, scopes need 6\n", landlock_abi ());
      return 77;
    }
  CHECK (landlock_prepare (&sig, &r, NULL) == 0);
  CHECK (r.scoped == AR_LANDLOCK_SCOPE_SIGNAL);
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    {
      ar_error_t err = NULL;
      pid_t inner;
      int st;

      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || landlock_apply (&r, &err) < 0)
        _exit (10);
      if (kill (getppid (), 0) == 0 || errno != EPERM)
        _exit (11);
      inner = fork ();
      if (inner == 0)
        {
          pause ();
          _exit (0);
        }
      if (inner < 0 || kill (inner, SIGTERM) < 0 || waitpid (inner, &st, 0) != inner
          || !WIFSIGNALED (st))
        _exit (12);
      _exit (0);
    }
  CHECK (waitpid (pid, &status, 0) == pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    TAP_FAIL ("child status %#x (10: apply, 11: parent not refused, 12: own child refused)",
              status);
  return 0;
}

/* A ruleset with nothing in it is no Landlock call at all.  */
static int
test_apply_nothing (void)
{
  struct landlock_ruleset r = { 0 };
  ar_error_t err = NULL;

  CHECK (landlock_apply (&r, &err) == 0 && err == NULL);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_fit_by_abi);
  RUN_TEST (test_fit_parts);
  RUN_TEST (test_fit_ptrace_wall);
  RUN_TEST (test_need);
  RUN_TEST (test_apply_ptrace_wall);
  RUN_TEST (test_apply_signal_scope);
  RUN_TEST (test_apply_nothing);
  TAP_END ();
}
