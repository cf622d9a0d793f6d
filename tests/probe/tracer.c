/* tracer: a static program the integration tests (tests/ptrace.bats) run inside a container to
   see what a tracer of the workload's own may do there.

     tracer [--fork] trace     PTRACE_TRACEME and PTRACE_ATTACH on children, syscall stops,
                               PTRACE_PEEKUSER, PTRACE_PEEKDATA, process_vm_readv
     tracer [--fork] rewrite entry|seccomp unshare|uname|mount
                               a traced child calls getppid; its tracer turns the call into
                               unshare(CLONE_NEWUSER), uname or mount at its syscall-entry stop
                               (entry) or at the seccomp stop of a SCMP_ACT_TRACE rule
                               (seccomp); the child prints what the call returned
     tracer [--fork] supervised
                               a child traced through every syscall calls uname and mount and
                               execs /bin/true; it prints what uname and mount returned
     tracer [--fork] untraced  LeakSanitizer's StopTheWorld: clone(CLONE_VM | CLONE_FS |
                               CLONE_FILES | CLONE_UNTRACED) a tracer that attaches to us
     tracer [--fork] personality
                               personality(ADDR_NO_RANDOMIZE) and what it does to a new
                               program's stack; MMAP_PAGE_ZERO and PER_LINUX32
     tracer attach PID…        PTRACE_ATTACH to each PID: `PID ERRNO` (`PID 0`: attached)
     tracer reach PID…         PTRACE_ATTACH to each PID and open its /proc/PID/mem read-write:
                               `attach PID ERRNO`, `mem PID ERRNO`
     tracer scan STOPFILE      until STOPFILE exists, each new pid of the pid namespace is
                               seized (PTRACE_SEIZE, then stopped to read its status) and its
                               /proc/PID/mem opened read-write; every success is printed with
                               the target's Seccomp and CapEff, then a summary line: `scan: N
                               new, S seized, M mem, U unprotected` (U: caught with Seccomp 0 or
                               other capabilities than the scanner's: agentrt's process before
                               its filters and capability drop)
     tracer nolandlock CMD ARG…
                               run CMD as on a kernel without Landlock: a seccomp filter (root
                               needs no no_new_privs) fails the three Landlock calls with ENOSYS

   --fork runs the mode in a child: the container's init is traced by agentrt's kill switch,
   and a process has one tracer.  Each check prints `ok NAME` or `FAIL NAME: …`; the exit status
   is 0 only if none failed.  x86_64 only (the registers of a syscall stop).  Harmless where a
   call the policy denies reaches the kernel (the program may be run on the host): unshare in a
   child that exits, mount on a path that does not exist.

   Build: gcc -static -O2 -Wall -Wextra -o tracer tracer.c  */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* mount's target: were the call to reach the kernel with CAP_SYS_ADMIN (as on the host), it
   would fail with ENOENT and change nothing.  */
#define NOWHERE "/nonexistent/agentrt-tracer"

#ifndef PTRACE_EVENT_SECCOMP
#define PTRACE_EVENT_SECCOMP 7
#endif

static int failed;

static void
check (int ok, const char *name, const char *fmt, ...)
{
  va_list ap;

  if (ok)
    {
      printf ("ok %s\n", name);
      fflush (stdout);
      return;
    }
  failed = 1;
  printf ("FAIL %s: ", name);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  fflush (stdout);
}

static const char *
ename (int e)
{
  const char *n = e ? strerrorname_np (e) : "0";
  return n ? n : "E?";
}

#ifdef __x86_64__

/* ---- trace ------------------------------------------------------------------------------ */

static char secret[32] = "agentrt-tracee-secret";

/* A child that asks to be traced, stops, calls getppid and exits 0.  */
static pid_t
traced_child (void)
{
  pid_t pid = fork ();

  if (pid != 0)
    return pid;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) < 0)
    {
      printf ("FAIL traceme: %s\n", ename (errno));
      fflush (stdout);
      _exit (3);
    }
  raise (SIGSTOP);
  syscall (SYS_getppid);
  _exit (0);
}

/* Run the stopped tracee through its syscall stops to the end: how many, whether one was
   getppid (read with PTRACE_PEEKUSER), and its exit status.  */
static int
syscall_stops (pid_t pid, int *n, int *saw_getppid)
{
  int st;

  *n = *saw_getppid = 0;
  if (ptrace (PTRACE_SETOPTIONS, pid, NULL, (void *) (PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
      < 0)
    return -1;
  for (;;)
    {
      if (ptrace (PTRACE_SYSCALL, pid, NULL, NULL) < 0 || waitpid (pid, &st, __WALL) != pid)
        return -1;
      if (WIFEXITED (st) || WIFSIGNALED (st))
        return st;
      if (WIFSTOPPED (st) && WSTOPSIG (st) == (SIGTRAP | 0x80))
        {
          long nr = ptrace (PTRACE_PEEKUSER, pid, offsetof (struct user_regs_struct, orig_rax), 0);
          (*n)++;
          *saw_getppid |= nr == SYS_getppid;
        }
    }
}

static void
mode_trace (void)
{
  char buf[sizeof secret] = { 0 };
  struct iovec l = { buf, sizeof buf }, r = { secret, sizeof secret };
  int st = 0, n, saw, e;
  long word;
  pid_t pid = traced_child ();

  check (pid > 0 && waitpid (pid, &st, __WALL) == pid && WIFSTOPPED (st)
             && WSTOPSIG (st) == SIGSTOP,
         "traceme", "the child did not stop for its tracer (status %#x)", st);
  /* Our copy of secret is at the same address in the child (fork).  */
  n = (int) process_vm_readv (pid, &l, 1, &r, 1, 0);
  e = errno;
  check (n == (int) sizeof buf && strcmp (buf, secret) == 0, "process_vm_readv", "%s",
         ename (n < 0 ? e : 0));
  errno = 0;
  word = ptrace (PTRACE_PEEKDATA, pid, secret, NULL);
  e = errno;
  check (e == 0 && memcmp (&word, secret, sizeof word) == 0, "peekdata", "%s", ename (e));
  st = syscall_stops (pid, &n, &saw);
  check (st >= 0 && WIFEXITED (st) && WEXITSTATUS (st) == 0 && n >= 2 && saw, "syscall-stops",
         "status %#x, %d stops, getppid %s", st, n, saw ? "seen" : "not seen");

  /* PTRACE_ATTACH to a child that does not ask for it.  */
  pid = fork ();
  if (pid == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      for (;;)
        pause ();
    }
  n = ptrace (PTRACE_ATTACH, pid, NULL, NULL) == 0 && waitpid (pid, &st, __WALL) == pid
      && WIFSTOPPED (st) && ptrace (PTRACE_DETACH, pid, NULL, NULL) == 0;
  e = errno;
  check (n, "attach", "%s", ename (e));
  kill (pid, SIGKILL);
  waitpid (pid, NULL, __WALL);
}

/* ---- rewrite ---------------------------------------------------------------------------- */

struct target
{
  const char *name;
  long nr;
};

static const struct target targets[] = {
  { "unshare", SYS_unshare },
  { "uname", SYS_uname },
  { "mount", SYS_mount },
};

/* The child: getppid, with the arguments of the call its tracer makes of it.  */
static void __attribute__ ((noreturn)) rewrite_child (const struct target *t)
{
  static struct utsname u;
  long r;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) < 0)
    _exit (3);
  raise (SIGSTOP);
  if (t->nr == SYS_unshare)
    r = syscall (SYS_getppid, (long) CLONE_NEWUSER);
  else if (t->nr == SYS_uname)
    r = syscall (SYS_getppid, &u);
  else
    r = syscall (SYS_getppid, "none", NOWHERE, "tmpfs", 0L, NULL);
  printf ("child: %s = %ld %s", t->name, r, ename (r == -1 ? errno : 0));
  if (t->nr == SYS_uname && r == 0)
    printf (" release %s", u.release);
  putchar ('\n');
  fflush (stdout);
  _exit (0);
}

/* Wait for the child's next stop that `is_it` accepts, letting it run past the others.  */
static int
next_stop (pid_t pid, int how, int (*is_it) (int st))
{
  int st;

  for (;;)
    {
      if (ptrace (how, pid, NULL, NULL) < 0 || waitpid (pid, &st, __WALL) != pid)
        return -1;
      if (!WIFSTOPPED (st))
        return -1;
      if (is_it (st))
        return 0;
    }
}

static int
is_syscall_stop (int st)
{
  return WSTOPSIG (st) == (SIGTRAP | 0x80);
}

static int
is_seccomp_stop (int st)
{
  return st >> 8 == (SIGTRAP | PTRACE_EVENT_SECCOMP << 8);
}

static void
mode_rewrite (const char *at, const char *what)
{
  const struct target *t = NULL;
  bool seccomp = strcmp (at, "seccomp") == 0;
  struct user_regs_struct regs;
  int st;
  pid_t pid;

  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp (targets[i].name, what) == 0)
      t = &targets[i];
  if (t == NULL || (!seccomp && strcmp (at, "entry") != 0))
    {
      fprintf (stderr, "tracer rewrite: entry|seccomp unshare|uname|mount\n");
      exit (2);
    }
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    rewrite_child (t);
  if (waitpid (pid, &st, __WALL) != pid || !WIFSTOPPED (st)
      || ptrace (PTRACE_SETOPTIONS, pid, NULL,
                 (void *) (uintptr_t) (PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL
                                       | (seccomp ? PTRACE_O_TRACESECCOMP : 0)))
             < 0)
    {
      check (0, "rewrite", "the child did not stop for its tracer");
      return;
    }
  /* To getppid's entry: its first syscall stop, or its seccomp stop (the bundle traces
     getppid).  */
  for (;;)
    {
      if (next_stop (pid, seccomp ? PTRACE_CONT : PTRACE_SYSCALL,
                     seccomp ? is_seccomp_stop : is_syscall_stop)
              < 0
          || ptrace (PTRACE_GETREGS, pid, NULL, &regs) < 0)
        {
          check (0, "rewrite", "no stop at getppid: %s", ename (errno));
          return;
        }
      if (regs.orig_rax == SYS_getppid)
        break;
      if (!seccomp)
        next_stop (pid, PTRACE_SYSCALL, is_syscall_stop); /* its exit */
    }
  regs.orig_rax = (unsigned long long) t->nr;
  st = (int) ptrace (PTRACE_SETREGS, pid, NULL, &regs);
  check (st == 0, "setregs", "%s", ename (errno));
  ptrace (PTRACE_DETACH, pid, NULL, NULL);
  waitpid (pid, &st, 0);
  check (WIFEXITED (st) && WEXITSTATUS (st) == 0, "rewrite", "child status %#x", st);
}

/* ---- supervised ------------------------------------------------------------------------- */

static void
mode_supervised (void)
{
  int st = 0, n, saw;
  pid_t pid = fork ();

  if (pid == 0)
    {
      struct utsname u;
      long r;

      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) < 0)
        _exit (3);
      raise (SIGSTOP);
      syscall (SYS_getppid);
      r = uname (&u);
      printf ("child: uname = %ld release %s\n", r, r == 0 ? u.release : "-");
      r = syscall (SYS_mount, "none", NOWHERE, "tmpfs", 0L, NULL);
      printf ("child: mount = %ld %s\n", r, ename (r == -1 ? errno : 0));
      fflush (stdout);
      execl ("/bin/true", "true", (char *) NULL);
      _exit (4);
    }
  check (waitpid (pid, &st, __WALL) == pid && WIFSTOPPED (st), "traceme", "status %#x", st);
  st = syscall_stops (pid, &n, &saw);
  check (st >= 0 && WIFEXITED (st) && WEXITSTATUS (st) == 0 && saw, "supervised",
         "status %#x, %d stops", st, n);
}

/* ---- untraced --------------------------------------------------------------------------- */

static volatile long attach_errno = -1, peeked;
static volatile pid_t victim;

/* LeakSanitizer's tracer thread: attach to the process that made it, read a word, detach.
   It shares our memory (CLONE_VM) and our TLS: it calls nothing that writes errno but the raw
   syscalls, whose results it keeps in attach_errno.  */
static int
stw_tracer (void *arg)
{
  long r = syscall (SYS_ptrace, PTRACE_ATTACH, victim, 0L, 0L);

  (void) arg;
  if (r < 0)
    {
      attach_errno = errno;
      return 1;
    }
  syscall (SYS_wait4, victim, 0L, __WALL, 0L);
  syscall (SYS_ptrace, PTRACE_PEEKDATA, victim, (long) secret, (long) &peeked);
  syscall (SYS_ptrace, PTRACE_DETACH, victim, 0L, 0L);
  attach_errno = 0;
  return 0;
}

static void
mode_untraced (void)
{
  size_t size = 1 << 16;
  char *stack = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int st;
  pid_t pid;

  victim = getpid ();
  /* The exit signal 0, as LeakSanitizer's: waited for with __WALL.  */
  pid = clone (stw_tracer, stack + size, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED, NULL);
  st = errno;
  check (pid > 0, "clone(CLONE_UNTRACED)", "%s", ename (st));
  if (pid <= 0)
    return;
  /* Yama would want PR_SET_PTRACER: the tracer is our child, not our ancestor.  */
  prctl (PR_SET_PTRACER, pid);
  while (waitpid (pid, &st, __WALL) < 0 && errno == EINTR)
    ;
  printf ("attach %s\n", ename ((int) attach_errno));
  check (attach_errno == 0 && memcmp ((const void *) &peeked, secret, sizeof peeked) == 0,
         "stop-the-world", "attach %s", ename ((int) attach_errno));
}

/* ---- personality ------------------------------------------------------------------------ */

/* The address of a new program's stack: this program exec'd in a child.  */
static unsigned long
child_stack_address (const char *self)
{
  int pfd[2];
  char buf[32] = { 0 };
  pid_t pid;

  if (pipe (pfd) < 0)
    return 0;
  pid = fork ();
  if (pid == 0)
    {
      dup2 (pfd[1], 1);
      execl (self, self, "stack", (char *) NULL);
      _exit (4);
    }
  close (pfd[1]);
  if (read (pfd[0], buf, sizeof buf - 1) < 0)
    buf[0] = 0;
  close (pfd[0]);
  waitpid (pid, NULL, 0);
  return strtoul (buf, NULL, 16);
}

static void
mode_personality (const char *self)
{
  long r = syscall (SYS_personality, (unsigned long) ADDR_NO_RANDOMIZE);
  int e = errno;
  unsigned long a, b;

  check (r >= 0 && syscall (SYS_personality, 0xffffffffUL) == ADDR_NO_RANDOMIZE,
         "personality(ADDR_NO_RANDOMIZE)", "%ld %s", r, ename (r < 0 ? e : 0));
  a = child_stack_address (self);
  b = child_stack_address (self);
  check (a != 0 && a == b, "no-randomize", "two programs' stacks at %#lx and %#lx", a, b);
  r = syscall (SYS_personality, (unsigned long) (ADDR_NO_RANDOMIZE | MMAP_PAGE_ZERO));
  e = r == -1 ? errno : 0;
  check (e == EPERM, "personality(MMAP_PAGE_ZERO)", "%ld %s", r, ename (e));
  r = syscall (SYS_personality, (unsigned long) PER_LINUX32);
  e = r == -1 ? errno : 0;
  check (e == EPERM, "personality(PER_LINUX32)", "%ld %s", r, ename (e));
}

#endif /* __x86_64__ */

static void
mode_attach (int argc, char **argv)
{
  for (int i = 0; i < argc; i++)
    {
      pid_t pid = (pid_t) atoi (argv[i]);
      long r = ptrace (PTRACE_ATTACH, pid, NULL, NULL);

      printf ("%d %s\n", (int) pid, ename (r == 0 ? 0 : errno));
      if (r == 0)
        {
          waitpid (pid, NULL, __WALL);
          ptrace (PTRACE_DETACH, pid, NULL, NULL);
        }
    }
}

/* ---- reach, scan --------------------------------------------------------------------------- */

static void
mode_reach (int n, char **pids)
{
  for (int i = 0; i < n; i++)
    {
      pid_t pid = (pid_t) atoi (pids[i]);
      char path[64];
      long r = ptrace (PTRACE_ATTACH, pid, NULL, NULL);
      int fd;

      printf ("attach %d %s\n", (int) pid, ename (r == 0 ? 0 : errno));
      if (r == 0)
        {
          waitpid (pid, NULL, __WALL);
          ptrace (PTRACE_DETACH, pid, NULL, NULL);
        }
      snprintf (path, sizeof path, "/proc/%d/mem", (int) pid);
      fd = open (path, O_RDWR | O_CLOEXEC);
      printf ("mem %d %s\n", (int) pid, ename (fd >= 0 ? 0 : errno));
      if (fd >= 0)
        close (fd);
    }
  fflush (stdout);
}

/* The Seccomp and CapEff lines of PID's status ("?" where unread).  */
static void
status_of (pid_t pid, char seccomp[8], char capeff[24])
{
  char path[64], line[256];
  FILE *f;

  strcpy (seccomp, "?");
  strcpy (capeff, "?");
  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  f = fopen (path, "re");
  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f))
    {
      if (strncmp (line, "Seccomp:", 8) == 0)
        sscanf (line + 8, "%7s", seccomp);
      else if (strncmp (line, "CapEff:", 7) == 0)
        sscanf (line + 7, "%23s", capeff);
    }
  fclose (f);
}

static unsigned n_new, n_seized, n_mem, n_unprotected;
static char own_capeff[24];

/* Seize PID and stop it, so that its status is what it was when caught; open its mem.  */
static void
scan_one (pid_t pid)
{
  char path[64], seccomp[8], capeff[24];
  bool seized = ptrace (PTRACE_SEIZE, pid, NULL, NULL) == 0;
  int fd, st;

  if (seized && ptrace (PTRACE_INTERRUPT, pid, NULL, NULL) == 0)
    waitpid (pid, &st, __WALL);
  snprintf (path, sizeof path, "/proc/%d/mem", (int) pid);
  fd = open (path, O_RDWR | O_CLOEXEC);
  if (seized || fd >= 0)
    {
      status_of (pid, seccomp, capeff);
      n_seized += seized;
      n_mem += fd >= 0;
      if (strcmp (seccomp, "0") == 0 || strcmp (capeff, own_capeff) != 0)
        n_unprotected++;
      printf ("caught %d seize=%d mem=%d Seccomp=%s CapEff=%s\n", (int) pid, seized, fd >= 0,
              seccomp, capeff);
    }
  if (fd >= 0)
    close (fd);
  if (seized)
    ptrace (PTRACE_DETACH, pid, NULL, NULL);
}

/* One pass over /proc: the pids not seen before are tried (unless MARK_ONLY).  */
static void
scan_pass (uint8_t *seen, bool mark_only)
{
  DIR *d = opendir ("/proc");
  struct dirent *e;

  if (d == NULL)
    return;
  while ((e = readdir (d)) != NULL)
    {
      long pid = strtol (e->d_name, NULL, 10);

      if (pid <= 0 || pid >= (1L << 22) || (seen[pid / 8] & (1U << (pid % 8))))
        continue;
      seen[pid / 8] |= (uint8_t) (1U << (pid % 8));
      if (pid == getpid () || mark_only)
        continue;
      n_new++;
      scan_one ((pid_t) pid);
    }
  closedir (d);
  fflush (stdout);
}

static void
mode_scan (const char *stop)
{
  static uint8_t seen[(1 << 22) / 8];
  char seccomp[8];

  status_of (getpid (), seccomp, own_capeff);
  scan_pass (seen, true);
  printf ("scanning\n");
  fflush (stdout);
  while (access (stop, F_OK) != 0)
    scan_pass (seen, false);
  printf ("scan: %u new, %u seized, %u mem, %u unprotected\n", n_new, n_seized, n_mem,
          n_unprotected);
}

/* ---- nolandlock ------------------------------------------------------------------------- */

static int
mode_nolandlock (char **cmd)
{
  struct sock_filter f[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JGE | BPF_K, 444, 0, 2), /* landlock_create_ruleset … */
    BPF_JUMP (BPF_JMP | BPF_JGT | BPF_K, 446, 1, 0), /* … landlock_restrict_self */
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { sizeof f / sizeof f[0], f };

  if (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
    {
      fprintf (stderr, "tracer: seccomp: %s\n", strerror (errno));
      return 1;
    }
  execvp (cmd[0], cmd);
  fprintf (stderr, "tracer: %s: %s\n", cmd[0], strerror (errno));
  return 127;
}

static int
run_mode (int argc, char **argv)
{
  const char *m = argv[0];

  if (strcmp (m, "attach") == 0)
    mode_attach (argc - 1, argv + 1);
  else if (strcmp (m, "reach") == 0)
    mode_reach (argc - 1, argv + 1);
  else if (strcmp (m, "scan") == 0 && argc == 2)
    mode_scan (argv[1]);
  else if (strcmp (m, "nolandlock") == 0 && argc >= 2)
    return mode_nolandlock (argv + 1);
#ifdef __x86_64__
  else if (strcmp (m, "stack") == 0)
    printf ("%lx\n", (unsigned long) __builtin_frame_address (0));
  else if (strcmp (m, "trace") == 0)
    mode_trace ();
  else if (strcmp (m, "rewrite") == 0 && argc == 3)
    mode_rewrite (argv[1], argv[2]);
  else if (strcmp (m, "supervised") == 0)
    mode_supervised ();
  else if (strcmp (m, "untraced") == 0)
    mode_untraced ();
  else if (strcmp (m, "personality") == 0)
    mode_personality ("/proc/self/exe");
#endif
  else
    {
      fprintf (stderr, "tracer: unknown mode `%s`\n", m);
      return 2;
    }
  return failed;
}

int
main (int argc, char **argv)
{
  int st;
  pid_t pid;

  if (argc >= 3 && strcmp (argv[1], "--fork") == 0)
    {
      fflush (stdout);
      pid = fork ();
      if (pid == 0)
        return run_mode (argc - 2, argv + 2);
      if (pid < 0 || waitpid (pid, &st, 0) != pid)
        return 1;
      return WIFEXITED (st) ? WEXITSTATUS (st) : 1;
    }
  if (argc < 2)
    {
      fprintf (stderr, "usage: tracer [--fork] MODE [ARG…]\n");
      return 2;
    }
  return run_mode (argc - 1, argv + 1);
}
