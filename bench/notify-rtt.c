/* notify-rtt: what one seccomp user-notification round trip costs, in nanoseconds.
 *
 * The baseline a supervised call is measured against (bench/README.md): a child installs a
 * filter (no_new_privs, SECCOMP_FILTER_FLAG_NEW_LISTENER) that sends getppid, and only getppid,
 * to the listener, and hands the listener to its parent over a socketpair (SCM_RIGHTS).  The
 * parent, a separate process as agentrt's supervisor is, answers each notification at once:
 * SECCOMP_IOCTL_NOTIF_RECV, then SECCOMP_IOCTL_NOTIF_SEND with a made-up result and no error.
 * The child times its getppid calls, so one call is one whole round trip: the child's trap, the
 * parent's wake-up, its two ioctls, the child's wake-up.
 *
 * Each test is a new child (a filter cannot be taken off) and runs as sc-bench's tests do: one
 * untimed warm-up run, then RUNS runs that each repeat the call until BUDGET ms have passed, and
 * one line in sc-bench's format:
 *
 *     name  median_ns  min_ns  max_ns  runs  iterations_in_the_median_run
 *
 * or `name  n/a  reason`.  Tests:
 *
 *   native          getppid with no filter at all, the child on CPU 0
 *   same-cpu        child and supervisor both pinned to CPU 0
 *   other-cpu       child on CPU 0, supervisor on CPU 1
 *   same-cpu-sync   as same-cpu, the listener with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (6.6+):
 *                   the kernel wakes the supervisor on the caller's CPU and switches to it
 *   unpinned        neither pinned: where the scheduler puts them, as in a container
 *   unpinned-sync   unpinned, with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
 *   same-cpu-sync-uname
 *                   as same-cpu-sync, and the supervisor answers as an emulated uname must: it
 *                   calls uname(2) and writes the struct utsname into the caller's buffer (the
 *                   call's second argument) with process_vm_writev before it answers.  The least
 *                   a supervised uname can cost here, whatever the supervisor's own code does.
 *
 * usage: notify-rtt [-r RUNS] [-t BUDGET_MS] [TEST...]    (default: every test, -r 7 -t 100)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* This machine's headers are Linux 6.1; the flag came in 6.6. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW (4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "notify-rtt: add this architecture's AUDIT_ARCH_*"
#endif

#define MIN_ITERS 5
#define MAX_RUNS 101
/* What the supervisor answers getppid with: a value no real getppid gives here, so the child
 * can tell that the answer came from the supervisor. */
#define FAKE_PPID 424242
#define DONE_MARK 0x646f6e65UL /* "done" */

enum pin
{
  PIN_NONE,
  PIN_SAME,
  PIN_OTHER
};

struct test
{
  const char *name;
  int notify; /* 0: no filter, the native call */
  enum pin pin;
  int sync_wake_up;
  int write_answer; /* the supervisor writes a struct utsname into the caller first */
};

static const struct test tests[] = {
  { "native", 0, PIN_SAME, 0, 0 },
  { "same-cpu", 1, PIN_SAME, 0, 0 },
  { "other-cpu", 1, PIN_OTHER, 0, 0 },
  { "same-cpu-sync", 1, PIN_SAME, 1, 0 },
  { "unpinned", 1, PIN_NONE, 0, 0 },
  { "unpinned-sync", 1, PIN_NONE, 1, 0 },
  { "same-cpu-sync-uname", 1, PIN_SAME, 1, 1 },
};

static cpu_set_t all_cpus; /* the affinity we started with: what "unpinned" means */

static double
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* The N-th CPU (0-based) that we may run on, or -1. */
static int
nth_cpu (int n)
{
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET (cpu, &all_cpus) && n-- == 0)
      return cpu;
  return -1;
}

static int
pin_to (int cpu)
{
  cpu_set_t set;
  if (cpu < 0)
    return sched_setaffinity (0, sizeof all_cpus, &all_cpus);
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return sched_setaffinity (0, sizeof set, &set);
}

/* getppid to the listener, everything else allowed; a foreign architecture is killed rather
 * than let its numbers be read as ours. */
static int
install_filter (void)
{
  struct sock_filter insns[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { .len = sizeof insns / sizeof insns[0], .filter = insns };
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return -1;
  return (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        &prog);
}

static int
send_fd (int sock, int fd)
{
  char byte = 0;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr msg
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
  memset (&u, 0, sizeof u);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  return sendmsg (sock, &msg, 0) == 1 ? 0 : -1;
}

static int
recv_fd (int sock)
{
  char byte;
  int fd = -1;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr msg
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  if (recvmsg (sock, &msg, MSG_CMSG_CLOEXEC) != 1)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
  if (c == NULL || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN (sizeof (int)))
    return -1;
  memcpy (&fd, CMSG_DATA (c), sizeof fd);
  return fd;
}

/* ------------------------------------------------------------------------------------------ */
/* The child: the caller, and the one that times. */

static char errbuf[256];
static long expect; /* what getppid must return: the real parent, or FAKE_PPID */
/* Where a write_answer supervisor puts its struct utsname: every call passes it as its second
 * argument (getppid ignores its arguments; the notification carries them). */
static struct utsname answer;

static int
fail (const char *what)
{
  snprintf (errbuf, sizeof errbuf, "%s: %s", what, strerror (errno));
  return -1;
}

static int
one_call (void)
{
  long r = syscall (SYS_getppid, 0, &answer);
  if (r != expect)
    {
      snprintf (errbuf, sizeof errbuf, "getppid returned %ld, not %ld (errno %d)", r, expect,
                errno);
      return -1;
    }
  return 0;
}

static int
one_run (double budget_ns, double *ns, long *iters)
{
  long n = 0, batch = 1;
  double start = now_ns (), elapsed = 0;
  while (elapsed < budget_ns || n < MIN_ITERS)
    {
      for (long i = 0; i < batch; i++)
        if (one_call () < 0)
          return -1;
      n += batch;
      elapsed = now_ns () - start;
      if (batch < 1024)
        batch *= 2;
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

/* Warm-up, RUNS runs, the line.  The caller's output goes straight to stdout. */
static void
measure (const struct test *t, int runs, double budget_ns)
{
  double ns[MAX_RUNS], sorted[MAX_RUNS], dummy;
  long iters[MAX_RUNS], dummy_iters;
  if (one_run (budget_ns / 4, &dummy, &dummy_iters) < 0)
    {
      printf ("%s\tn/a\t%s\n", t->name, errbuf);
      return;
    }
  for (int r = 0; r < runs; r++)
    if (one_run (budget_ns, &ns[r], &iters[r]) < 0)
      {
        printf ("%s\tn/a\t%s\n", t->name, errbuf);
        return;
      }
  memcpy (sorted, ns, sizeof (double) * (size_t) runs);
  qsort (sorted, (size_t) runs, sizeof (double), cmp_double);
  double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
  long median_iters = iters[0];
  for (int r = 0; r < runs; r++)
    if (ns[r] == sorted[runs / 2])
      median_iters = iters[r];
  printf ("%s\t%.1f\t%.1f\t%.1f\t%d\t%ld\n", t->name, median, sorted[0], sorted[runs - 1], runs,
          median_iters);
}

/* The last notified call: getppid's first argument, which the kernel ignores but the
 * notification carries, tells the supervisor to stop after answering it.  Race-free, where a
 * SIGCHLD could come just before the supervisor blocks in RECV again. */
static void
say_done (void)
{
  syscall (SYS_getppid, DONE_MARK, &answer);
}

/* The child's side of a test: pin, filter, hand over the listener, wait for the supervisor to
 * be ready, measure.  Never returns. */
static void
child (const struct test *t, int sock, int cpu, int runs, double budget_ns)
{
  char go = 0;
  int supervised = 0;
  if (pin_to (cpu) < 0)
    {
      fail ("sched_setaffinity");
      goto out;
    }
  expect = getppid (); /* before the filter: the real one */
  if (t->notify)
    {
      int listener = install_filter ();
      if (listener < 0)
        {
          fail ("seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER)");
          goto out;
        }
      if (send_fd (sock, listener) < 0)
        {
          fail ("sendmsg SCM_RIGHTS");
          goto out;
        }
      close (listener);
      expect = FAKE_PPID;
    }
  else if (write (sock, "n", 1) != 1)
    {
      fail ("write");
      goto out;
    }
  /* The parent's answer: `g` once it holds the listener with its flags set, or `e` and why not
   * (and then it does not supervise). */
  if (read (sock, &go, 1) != 1)
    {
      snprintf (errbuf, sizeof errbuf, "the supervisor closed the socket");
      goto out;
    }
  if (go != 'g')
    {
      ssize_t n = read (sock, errbuf, sizeof errbuf - 1);
      errbuf[n > 0 ? n : 0] = '\0';
      goto out;
    }
  supervised = t->notify;
  if (t->write_answer && (one_call () < 0 || answer.sysname[0] == '\0'))
    {
      if (answer.sysname[0] == '\0')
        snprintf (errbuf, sizeof errbuf, "the supervisor wrote no struct utsname");
      goto out;
    }
  measure (t, runs, budget_ns);
  if (supervised)
    say_done ();
  _exit (0);
out:
  printf ("%s\tn/a\t%s\n", t->name, errbuf);
  if (supervised)
    say_done ();
  _exit (1);
}

/* ------------------------------------------------------------------------------------------ */
/* The parent: the supervisor. */

static void
on_sigchld (int sig)
{
  (void) sig; /* only there to make a blocked NOTIF_RECV return EINTR if the child dies */
}

/* Tell the child why not, and let it print the line. */
static void
refuse (int sock, const char *why)
{
  char msg[sizeof errbuf];
  int n = snprintf (msg, sizeof msg, "e%s", why);
  if (write (sock, msg, (size_t) n) < 0)
    return;
}

/* Whether the child has exited, without reaping it (run_test wants its status). */
static int
child_gone (pid_t pid)
{
  siginfo_t info;
  memset (&info, 0, sizeof info);
  return waitid (P_PID, (id_t) pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid != 0;
}

/* Answer every notification at once, until the child says it is done (or dies: SIGCHLD
 * interrupts RECV). */
/* An emulated uname's work: the answer into the caller's memory at ADDR.  */
static void
write_utsname (pid_t pid, uint64_t addr)
{
  struct utsname u;
  struct iovec local = { &u, sizeof u };
  struct iovec remote = { (void *) (uintptr_t) addr, sizeof u };
  if (uname (&u) < 0 || process_vm_writev (pid, &local, 1, &remote, 1, 0) != (ssize_t) sizeof u)
    perror ("notify-rtt: uname and process_vm_writev");
}

static void
supervise (int listener, pid_t pid, int write_answer)
{
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  for (;;)
    {
      /* The kernel wants a zeroed request each time (EINVAL otherwise). */
      memset (&req, 0, sizeof req);
      if (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        {
          /* EINTR: a signal (SIGCHLD?); ENOENT: the caller died with a call pending. */
          if ((errno == EINTR || errno == ENOENT) && !child_gone (pid))
            continue;
          if (errno != EINTR && errno != ENOENT)
            perror ("notify-rtt: SECCOMP_IOCTL_NOTIF_RECV");
          return;
        }
      memset (&resp, 0, sizeof resp);
      resp.id = req.id;
      resp.val = FAKE_PPID;
      if (write_answer)
        write_utsname ((pid_t) req.pid, req.data.args[1]);
      /* ENOENT: the child died between RECV and SEND. */
      if (ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
        {
          perror ("notify-rtt: SECCOMP_IOCTL_NOTIF_SEND");
          return;
        }
      if (req.data.args[0] == DONE_MARK)
        return;
    }
}

static void
run_test (const struct test *t, int runs, double budget_ns)
{
  int sv[2], listener = -1, status;
  int child_cpu = t->pin == PIN_NONE ? -1 : nth_cpu (0);
  int sup_cpu = t->pin == PIN_NONE ? -1 : nth_cpu (t->pin == PIN_OTHER ? 1 : 0);
  if (t->pin == PIN_OTHER && sup_cpu < 0)
    {
      printf ("%s\tn/a\tonly one CPU to run on\n", t->name);
      return;
    }
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    {
      printf ("%s\tn/a\tsocketpair: %s\n", t->name, strerror (errno));
      return;
    }
  fflush (stdout);
  pid_t pid = fork ();
  if (pid < 0)
    {
      printf ("%s\tn/a\tfork: %s\n", t->name, strerror (errno));
      close (sv[0]);
      close (sv[1]);
      return;
    }
  if (pid == 0)
    {
      close (sv[0]);
      child (t, sv[1], child_cpu, runs, budget_ns);
    }
  close (sv[1]);
  if (t->notify)
    listener = recv_fd (sv[0]);
  else
    {
      char c;
      if (read (sv[0], &c, 1) != 1)
        listener = -2;
    }
  if (listener < 0 && (t->notify || listener == -2))
    ; /* the child failed before handing over the listener, and says why */
  else if (pin_to (sup_cpu) < 0)
    refuse (sv[0], "sched_setaffinity of the supervisor failed");
  else if (t->sync_wake_up
           && ioctl (listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
                  < 0)
    {
      char why[128];
      snprintf (why, sizeof why, "SECCOMP_IOCTL_NOTIF_SET_FLAGS SYNC_WAKE_UP: %s (Linux < 6.6?)",
                strerror (errno));
      refuse (sv[0], why);
    }
  else if (write (sv[0], "g", 1) != 1)
    perror ("notify-rtt: write");
  else if (t->notify)
    supervise (listener, pid, t->write_answer);
  if (waitpid (pid, &status, 0) < 0)
    perror ("notify-rtt: waitpid");
  else if (WIFSIGNALED (status))
    printf ("%s\tn/a\tthe caller was killed by signal %d\n", t->name, WTERMSIG (status));
  if (listener >= 0)
    close (listener);
  close (sv[0]);
  pin_to (-1);
}

static void
usage (void)
{
  fprintf (stderr, "usage: notify-rtt [-r RUNS] [-t BUDGET_MS] [TEST...]\ntests:");
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
    fprintf (stderr, " %s", tests[i].name);
  fprintf (stderr, "\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  int runs = 7, opt, ran = 0;
  double budget_ms = 100;
  struct sigaction sa;
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
  if (sched_getaffinity (0, sizeof all_cpus, &all_cpus) < 0)
    {
      perror ("notify-rtt: sched_getaffinity");
      return 1;
    }
  /* No SA_RESTART: the child's exit must interrupt the supervisor's blocking RECV. */
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_sigchld;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGCHLD, &sa, NULL);
  setvbuf (stdout, NULL, _IOLBF, 0);
  printf ("# notify-rtt: ns per getppid, median of %d runs of >= %.0f ms each (min, max, runs, "
          "iterations)\n",
          runs, budget_ms);
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
