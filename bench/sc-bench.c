/* sc-bench: what a system call costs inside a container, in nanoseconds per call.
 *
 * Built static (gcc -static -O2) and copied into the container's rootfs, so that it needs
 * nothing from the image.  Each test runs RUNS timed runs (after one untimed warm-up run); a run
 * repeats the call until BUDGET milliseconds have passed (at least MIN_ITERS times) and divides
 * the elapsed time by the count.  One line per test, tab-separated:
 *
 *     name  median_ns  min_ns  max_ns  runs  iterations_in_the_median_run
 *
 * or `name  n/a  reason` when the call cannot be made here (the reason is the error).
 *
 * usage: sc-bench [-r RUNS] [-t BUDGET_MS] [TEST...]    (default: every test, -r 7 -t 100)
 * tests: getppid fcntl uname open-close open-proc stat fork-exec tcp-connect
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIN_ITERS 5
#define MAX_RUNS 101
#define REGULAR_FILE "/etc/passwd"
#define PROC_FILE "/proc/meminfo"
/* A bound on connects per run: the loopback server accepts on the other CPU, and its backlog
 * (and the ephemeral ports left in TIME_WAIT) must never run out. */
#define TCP_MAX_ITERS 1000

static const char *self_path;
static char errbuf[256];

static double
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* Each op does one call (or one open+close, one fork+exec+wait, one connect…) and returns 0,
 * or -1 with errbuf set. */
typedef int (*op_fn) (void);

static int
fail (const char *what)
{
  snprintf (errbuf, sizeof errbuf, "%s: %s", what, strerror (errno));
  return -1;
}

static int
op_getppid (void)
{
  /* syscall(2), not getppid(3): no libc may ever answer this from a cache. */
  return syscall (SYS_getppid) < 0 ? fail ("getppid") : 0;
}

/* An allowed call whose argument agentrt's strict policy checks (fcntl's command): the filter
 * runs for it, where getppid is allowed by the kernel's action cache without it. */
static int
op_fcntl (void)
{
  return syscall (SYS_fcntl, 1, F_GETFD) < 0 ? fail ("fcntl") : 0;
}

static int
op_uname (void)
{
  struct utsname u;
  return uname (&u) < 0 ? fail ("uname") : 0;
}

static int
open_close (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail (path);
  close (fd);
  return 0;
}

static int
op_open_close (void)
{
  return open_close (REGULAR_FILE);
}
static int
op_open_proc (void)
{
  return open_close (PROC_FILE);
}

static int
op_stat (void)
{
  struct stat st;
  return stat (REGULAR_FILE, &st) < 0 ? fail ("stat " REGULAR_FILE) : 0;
}

static int
op_fork_exec (void)
{
  int status;
  pid_t pid = fork ();
  if (pid < 0)
    return fail ("fork");
  if (pid == 0)
    {
      char *const argv[] = { (char *) "sc-bench", (char *) "--exit", NULL };
      char *const envp[] = { NULL };
      execve (self_path, argv, envp);
      _exit (127);
    }
  if (waitpid (pid, &status, 0) < 0)
    return fail ("waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      snprintf (errbuf, sizeof errbuf, "execve %s failed in the child (status 0x%x)", self_path,
                status);
      return -1;
    }
  return 0;
}

static struct sockaddr_in server_addr;
static pid_t server_pid = -1;

/* A server on 127.0.0.1 inside the container: a child that accepts and closes, forever. */
static int
start_server (void)
{
  socklen_t len = sizeof server_addr;
  int one = 1, fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return fail ("socket");
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  memset (&server_addr, 0, sizeof server_addr);
  server_addr.sin_family = AF_INET;
  server_addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (bind (fd, (struct sockaddr *) &server_addr, sizeof server_addr) < 0)
    {
      fail ("bind 127.0.0.1");
      close (fd);
      return -1;
    }
  if (listen (fd, 4096) < 0 || getsockname (fd, (struct sockaddr *) &server_addr, &len) < 0)
    {
      fail ("listen");
      close (fd);
      return -1;
    }
  server_pid = fork ();
  if (server_pid < 0)
    {
      fail ("fork");
      close (fd);
      return -1;
    }
  if (server_pid == 0)
    {
      for (;;)
        {
          int c = accept (fd, NULL, NULL);
          if (c >= 0)
            close (c);
        }
    }
  close (fd);
  return 0;
}

static void
stop_server (void)
{
  if (server_pid > 0)
    {
      kill (server_pid, SIGKILL);
      waitpid (server_pid, NULL, 0);
      server_pid = -1;
    }
}

static int
op_tcp_connect (void)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return fail ("socket");
  if (connect (fd, (struct sockaddr *) &server_addr, sizeof server_addr) < 0)
    {
      fail ("connect 127.0.0.1");
      close (fd);
      return -1;
    }
  close (fd);
  return 0;
}

struct test
{
  const char *name;
  op_fn op;
  int (*setup) (void);
  void (*teardown) (void);
  long max_iters; /* 0: no bound */
};

static const struct test tests[] = {
  { "getppid", op_getppid, NULL, NULL, 0 },
  { "fcntl", op_fcntl, NULL, NULL, 0 },
  { "uname", op_uname, NULL, NULL, 0 },
  { "open-close", op_open_close, NULL, NULL, 0 },
  { "open-proc", op_open_proc, NULL, NULL, 0 },
  { "stat", op_stat, NULL, NULL, 0 },
  { "fork-exec", op_fork_exec, NULL, NULL, 0 },
  { "tcp-connect", op_tcp_connect, start_server, stop_server, TCP_MAX_ITERS },
};

/* One run: repeat op in growing batches until the budget is spent.  Returns ns per call. */
static int
one_run (const struct test *t, double budget_ns, double *ns, long *iters)
{
  long n = 0, batch = 1;
  double start = now_ns (), elapsed = 0;
  while (elapsed < budget_ns || n < MIN_ITERS)
    {
      for (long i = 0; i < batch; i++)
        if (t->op () < 0)
          return -1;
      n += batch;
      elapsed = now_ns () - start;
      if (t->max_iters && n >= t->max_iters)
        break;
      if (batch < 1024)
        batch *= 2;
      if (t->max_iters && n + batch > t->max_iters)
        batch = t->max_iters - n;
    }
  *ns = elapsed / (double) n;
  *iters = n;
  return 0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
run_test (const struct test *t, int runs, double budget_ns)
{
  double ns[MAX_RUNS], sorted[MAX_RUNS];
  long iters[MAX_RUNS], dummy_iters;
  double dummy;
  if (t->setup && t->setup () < 0)
    {
      printf ("%s\tn/a\t%s\n", t->name, errbuf);
      return;
    }
  /* The warm-up run: page cache, dentries, the first fault of every page. */
  if (one_run (t, budget_ns / 4, &dummy, &dummy_iters) < 0)
    {
      printf ("%s\tn/a\t%s\n", t->name, errbuf);
      if (t->teardown)
        t->teardown ();
      return;
    }
  for (int r = 0; r < runs; r++)
    {
      if (t->max_iters)
        usleep (20000); /* let the server drain its backlog, untimed */
      if (one_run (t, budget_ns, &ns[r], &iters[r]) < 0)
        {
          printf ("%s\tn/a\t%s\n", t->name, errbuf);
          if (t->teardown)
            t->teardown ();
          return;
        }
    }
  if (t->teardown)
    t->teardown ();
  memcpy (sorted, ns, sizeof (double) * (size_t) runs);
  qsort (sorted, (size_t) runs, sizeof (double), cmp_double);
  double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
  long median_iters = iters[0];
  for (int r = 0; r < runs; r++)
    if (ns[r] == sorted[runs / 2])
      median_iters = iters[r];
  printf ("%s\t%.1f\t%.1f\t%.1f\t%d\t%ld\n", t->name, median, sorted[0], sorted[runs - 1], runs,
          median_iters);
  fflush (stdout);
}

static void
usage (void)
{
  fprintf (stderr, "usage: sc-bench [-r RUNS] [-t BUDGET_MS] [TEST...]\ntests:");
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
    fprintf (stderr, " %s", tests[i].name);
  fprintf (stderr, "\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  int runs = 7, opt;
  double budget_ms = 100;
  if (argc == 2 && strcmp (argv[1], "--exit") == 0)
    _exit (0); /* the child of fork-exec */
  while ((opt = getopt (argc, argv, "r:t:h")) != -1)
    {
      switch (opt)
        {
        case 'r':
          runs = atoi (optarg);
          if (runs < 1 || runs > MAX_RUNS)
            usage ();
          break;
        case 't':
          budget_ms = atof (optarg);
          if (budget_ms <= 0)
            usage ();
          break;
        default:
          usage ();
        }
    }
  /* execve of our own file by path: argv[0] when it is one, else what the kernel says. */
  self_path = strchr (argv[0], '/') ? argv[0] : "/proc/self/exe";
  setvbuf (stdout, NULL, _IOLBF, 0);
  printf ("# sc-bench: ns per call, median of %d runs of >= %.0f ms each (min, max, runs, "
          "iterations)\n",
          runs, budget_ms);
  int ran = 0;
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
    {
      int wanted = optind >= argc;
      for (int a = optind; a < argc; a++)
        if (strcmp (argv[a], tests[i].name) == 0)
          wanted = 1;
      if (wanted)
        {
          run_test (&tests[i], runs, budget_ms * 1e6);
          ran++;
        }
    }
  if (!ran)
    usage ();
  return 0;
}
