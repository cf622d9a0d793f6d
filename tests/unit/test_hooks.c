/* hooks.c: hooks are /bin/sh scripts in a temporary directory that leave what they saw in files
   there (stdin, argv, environment, open fds), so each test checks what the hook got, plus the
   error text and how long hooks_run took.  No root needed.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "init/hooks.h"
#include "spec/spec.h"
#include "tap.h"
#include "utils.h"

static char tmp_dir[] = "/tmp/agentrt-hooks-XXXXXX";

static const char state[] = "{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"creating\","
                            "\"pid\":42,\"bundle\":\"/tmp/b\"}";

/* DIR/NAME, written as a /bin/sh script with BODY (where each @ is replaced by DIR).  */
static char *
script (const char *name, const char *body)
{
  char *path = xasprintf ("%s/%s", tmp_dir, name);
  FILE *f = fopen (path, "we");

  if (f == NULL)
    return path;
  fputs ("#!/bin/sh\n", f);
  for (const char *c = body; *c; c++)
    if (*c == '@')
      fputs (tmp_dir, f);
    else
      fputc (*c, f);
  fputc ('\n', f);
  fclose (f);
  chmod (path, 0755);
  return path;
}

/* The contents of DIR/NAME, or NULL.  */
static char *
slurp (const char *name)
{
  cleanup_free char *path = xasprintf ("%s/%s", tmp_dir, name);
  char *text = NULL;
  size_t len;

  return ar_read_file (path, 0, &text, &len, NULL) < 0 ? NULL : text;
}

static bool have_pidfd;

/* hooks.c waits through a pidfd; valgrind 3.19 (Debian 12) answers pidfd_open with ENOSYS.  */
static int
need_pidfd (void)
{
  if (have_pidfd)
    return 0;
  printf ("# pidfd_open: ENOSYS (valgrind 3.19 does not know it)\n");
  return 77;
}

static struct spec_hook
hook (char *path, int64_t timeout)
{
  return (struct spec_hook){ .path = path, .timeout = { .set = timeout > 0, .v = timeout } };
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Run LIST, expecting failure with exactly MSG (status 0).  */
static int
run_fails (struct spec_hook *items, size_t n, const char *kind, const char *msg)
{
  struct spec_hook_list list = { items, n };
  ar_error_t err = NULL;
  int ret;

  if (hooks_run (&list, kind, state, &err) == 0)
    TAP_FAIL ("succeeded, expected \"%s\"", msg);
  ret = strcmp (err->msg, msg) == 0 && err->status == 0 ? 0 : -1;
  if (ret < 0)
    printf ("# got \"%s\" (status %d)\n# expected \"%s\"\n", err->msg, err->status, msg);
  ar_error_release (&err);
  return ret;
}

static int
run_ok (struct spec_hook *items, size_t n, const char *json)
{
  struct spec_hook_list list = { items, n };
  ar_error_t err = NULL;

  if (hooks_run (&list, "prestart", json, &err) == 0)
    return 0;
  printf ("# %s (status %d)\n", err->msg, err->status);
  ar_error_release (&err);
  return -1;
}

static int
test_state_on_stdin (void)
{
  cleanup_free char *path = script ("cat.sh", "exec /bin/cat > @/state.out");
  cleanup_free char *got = NULL;
  struct spec_hook h = hook (path, 0);

  if (need_pidfd ())
    return 77;

  CHECK (run_ok (&h, 1, state) == 0);
  got = slurp ("state.out");
  CHECK_STR (got, state);
  return 0;
}

/* argv[0] included: /bin/sh itself is the hook, so /proc/$$/cmdline is exactly our args.  */
static int
test_args_and_env (void)
{
  cleanup_free char *cmd
      = xasprintf ("/bin/cat /proc/$$/cmdline > %s/cmdline;"
                   " printf '%%s|%%s' \"${FOO-unset}\" \"${HOME-unset}\" > %s/env",
                   tmp_dir, tmp_dir);
  char *args[] = { "my-hook", "-c", cmd, "zero", "one", NULL }, *env[] = { "FOO=bar", NULL };
  struct spec_hook h = { .path = "/bin/sh", .args = { args, 5 }, .env = { env, 1 } };
  cleanup_free char *cmdline = NULL, *got_env = NULL;
  cleanup_free char *want = xasprintf ("my-hook|-c|%s|zero|one|", cmd);
  cleanup_free char *cmdline_path = xasprintf ("%s/cmdline", tmp_dir);
  size_t len = 0;

  if (need_pidfd ())
    return 77;

  setenv ("HOME", "/root", 1);
  CHECK (run_ok (&h, 1, state) == 0);
  CHECK (ar_read_file (cmdline_path, 0, &cmdline, &len, NULL) == 0);
  for (size_t i = 0; i < len; i++)
    if (cmdline[i] == '\0')
      cmdline[i] = '|';
  CHECK_STR (cmdline, want);
  got_env = slurp ("env");
  CHECK_STR (got_env, "bar|unset");
  return 0;
}

/* No args: argv is {path}; no env: the environment is empty, not ours.  */
static int
test_default_args_and_env (void)
{
  cleanup_free char *path = script (
      "defaults.sh", "printf '%s|%s|%s' \"$#\" \"$0\" \"${AGENTRT_LEAK-unset}\" > @/defaults");
  cleanup_free char *got = NULL, *want = xasprintf ("0|%s|unset", path);
  struct spec_hook h = hook (path, 0);

  if (need_pidfd ())
    return 77;

  setenv ("AGENTRT_LEAK", "leaked", 1);
  CHECK (run_ok (&h, 1, state) == 0);
  unsetenv ("AGENTRT_LEAK");
  got = slurp ("defaults");
  CHECK_STR (got, want);
  return 0;
}

static int
test_order (void)
{
  cleanup_free char *a = script ("one.sh", "echo one >> @/order");
  cleanup_free char *b = script ("two.sh", "echo two >> @/order");
  cleanup_free char *c = script ("three.sh", "echo three >> @/order");
  cleanup_free char *got = NULL;
  struct spec_hook list[] = { hook (a, 10), hook (b, 0), hook (c, 10) };

  if (need_pidfd ())
    return 77;

  CHECK (run_ok (list, 3, state) == 0);
  got = slurp ("order");
  CHECK_STR (got, "one\ntwo\nthree\n");
  return 0;
}

static int
test_failure_stops_the_list (void)
{
  cleanup_free char *a = script ("first.sh", "echo first >> @/stops");
  cleanup_free char *b = script ("fail.sh", "echo fail >> @/stops; exit 3");
  cleanup_free char *c = script ("never.sh", "echo never >> @/stops");
  cleanup_free char *msg = xasprintf ("hook `%s` (createContainer) exited with status 3", b);
  cleanup_free char *got = NULL;
  struct spec_hook list[] = { hook (a, 0), hook (b, 0), hook (c, 0) };

  if (need_pidfd ())
    return 77;

  CHECK (run_fails (list, 3, "createContainer", msg) == 0);
  got = slurp ("stops");
  CHECK_STR (got, "first\nfail\n");
  return 0;
}

static int
test_killed_by_signal (void)
{
  cleanup_free char *path = script ("term.sh", "kill -TERM $$");
  cleanup_free char *msg = xasprintf ("hook `%s` (poststart) killed by signal 15", path);
  struct spec_hook h = hook (path, 0);

  if (need_pidfd ())
    return 77;

  return run_fails (&h, 1, "poststart", msg);
}

/* The hook is SIGKILLed at its deadline and reaped: its pid is gone when hooks_run returns.  */
static int
test_timeout (void)
{
  cleanup_free char *path = script ("sleep.sh", "echo $$ > @/sleep.pid; exec sleep 5");
  cleanup_free char *msg = xasprintf ("hook `%s` (createRuntime) timed out after 1 s", path);
  cleanup_free char *pid = NULL;
  struct spec_hook h = hook (path, 1);
  double start = now_s (), took;

  if (need_pidfd ())
    return 77;

  CHECK (run_fails (&h, 1, "createRuntime", msg) == 0);
  took = now_s () - start;
  if (took < 0.9 || took > 1.8)
    TAP_FAIL ("hooks_run took %.2f s for a 1 s timeout", took);
  pid = slurp ("sleep.pid");
  CHECK (pid != NULL && kill (atoi (pid), 0) < 0 && errno == ESRCH);
  return 0;
}

/* CPU seconds this process has used: a hook's wait must not spin.  */
static double
cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
         + (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static char *
big_state (void)
{
  size_t n = 1 << 20;
  char *s = xmalloc (n + 1);

  memset (s, 'x', n);
  s[0] = '"';
  s[n - 1] = '"';
  s[n] = '\0';
  return s;
}

/* 1 MiB is far more than a pipe holds.  Hooks that never read it, or close their stdin and go
   on running, or read a little, must neither block us nor kill us with SIGPIPE, nor make us
   spin while they run; and the timeout still holds while the state is being written.  */
static int
test_unread_large_state (void)
{
  cleanup_free char *json = big_state ();
  cleanup_free char *exits = script ("exits.sh", "exit 0");
  cleanup_free char *closes = script ("closes.sh", "exec 0<&-; sleep 0.3; exit 0");
  cleanup_free char *partial = script ("partial.sh", "/usr/bin/head -c 10 > /dev/null");
  cleanup_free char *sleeps = script ("sleeps.sh", "exec sleep 5");
  cleanup_free char *msg = xasprintf ("hook `%s` (prestart) timed out after 1 s", sleeps);
  struct spec_hook ok[] = { hook (exits, 0), hook (closes, 0), hook (partial, 0) };
  struct spec_hook slow = hook (sleeps, 1);
  struct spec_hook_list slow_list = { &slow, 1 };
  struct sigaction sa;
  ar_error_t err = NULL;
  sigset_t pending;
  double start = now_s (), cpu = cpu_s ();

  if (need_pidfd ())
    return 77;

  CHECK (run_ok (ok, 3, json) == 0);
  CHECK (now_s () - start < 1.0);
  CHECK (cpu_s () - cpu < 0.1);
  start = now_s ();
  CHECK (hooks_run (&slow_list, "prestart", json, &err) < 0);
  CHECK_STR (err->msg, msg);
  ar_error_release (&err);
  CHECK (now_s () - start < 1.8);
  CHECK (sigpending (&pending) == 0 && !sigismember (&pending, SIGPIPE));
  CHECK (sigaction (SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL);
  return 0;
}

static int
test_exec_fails (void)
{
  cleanup_free char *missing = xasprintf ("%s/missing", tmp_dir);
  cleanup_free char *msg = xasprintf ("exec hook `%s` (poststop)", missing);
  cleanup_free char *plain = script ("plain.sh", "exit 0");
  struct spec_hook h = hook (missing, 0), p = hook (plain, 0);
  struct spec_hook_list list = { &h, 1 }, plain_list = { &p, 1 };
  ar_error_t err = NULL;

  CHECK (hooks_run (&list, "poststop", state, &err) < 0);
  CHECK_STR (err->msg, msg);
  CHECK (err->status == ENOENT);
  ar_error_release (&err);
  CHECK (chmod (plain, 0644) == 0);
  CHECK (hooks_run (&plain_list, "poststop", state, &err) < 0 && err->status == EACCES);
  ar_error_release (&err);
  return 0;
}

/* An fd we leave open without O_CLOEXEC must not reach the hook (CVE-2024-21626).  */
static int
test_fds_closed (void)
{
  cleanup_free char *path = script ("fds.sh", "if [ -e /proc/$$/fd/50 ]; then echo leaked;"
                                              " else echo closed; fi > @/fds");
  cleanup_free char *got = NULL;
  struct spec_hook h = hook (path, 0);
  int fd = open ("/dev/null", O_RDONLY);

  if (need_pidfd ())
    return 77;

  CHECK (fd >= 0 && dup2 (fd, 50) == 50);
  close (fd);
  CHECK (run_ok (&h, 1, state) == 0);
  close (50);
  got = slurp ("fds");
  CHECK_STR (got, "closed\n");
  return 0;
}

/* A caller that blocks SIGTERM (for a signalfd) and ignores SIGINT does not pass either on: both
   survive execve unless the child resets them.  */
static int
test_signals_reset (void)
{
  cleanup_free char *term = script ("self-term.sh", "kill -TERM $$; exit 0");
  cleanup_free char *intr = script ("self-int.sh", "kill -INT $$; exit 0");
  cleanup_free char *term_msg = xasprintf ("hook `%s` (prestart) killed by signal 15", term);
  cleanup_free char *int_msg = xasprintf ("hook `%s` (prestart) killed by signal 2", intr);
  struct spec_hook t = hook (term, 0), i = hook (intr, 0);
  struct sigaction ign = { .sa_handler = SIG_IGN }, old_int;
  sigset_t set, old_mask;
  int r1, r2;

  if (need_pidfd ())
    return 77;

  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigprocmask (SIG_BLOCK, &set, &old_mask);
  sigaction (SIGINT, &ign, &old_int);
  r1 = run_fails (&t, 1, "prestart", term_msg);
  r2 = run_fails (&i, 1, "prestart", int_msg);
  sigaction (SIGINT, &old_int, NULL);
  sigprocmask (SIG_SETMASK, &old_mask, NULL);
  return r1 == 0 && r2 == 0 ? 0 : -1;
}

static int
test_empty_list (void)
{
  struct spec_hook_list empty = { NULL, 0 };
  ar_error_t err = NULL;

  CHECK (hooks_run (&empty, "prestart", state, &err) == 0);
  CHECK (hooks_run (NULL, "prestart", state, &err) == 0);
  CHECK (err == NULL);
  return 0;
}

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  return remove (path);
}

int
main (void)
{
  int pidfd = (int) syscall (SYS_pidfd_open, getpid (), 0);

  if (mkdtemp (tmp_dir) == NULL)
    return 1;
  have_pidfd = pidfd >= 0;
  if (pidfd >= 0)
    close (pidfd);
  RUN_TEST (test_state_on_stdin);
  RUN_TEST (test_args_and_env);
  RUN_TEST (test_default_args_and_env);
  RUN_TEST (test_order);
  RUN_TEST (test_failure_stops_the_list);
  RUN_TEST (test_killed_by_signal);
  RUN_TEST (test_timeout);
  RUN_TEST (test_unread_large_state);
  RUN_TEST (test_exec_fails);
  RUN_TEST (test_fds_closed);
  RUN_TEST (test_signals_reset);
  RUN_TEST (test_empty_list);
  nftw (tmp_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
  TAP_END ();
}
