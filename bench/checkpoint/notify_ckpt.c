/* What CRIU does to a seccomp user-notification filter (docs/checkpoint.md, spike (c)).

   notify_ckpt run [--seize] PIDFILE
     forks a child that sets no_new_privs, installs a filter sending getppid() to a listener
     (SECCOMP_FILTER_FLAG_NEW_LISTENER) and hands the listener to the parent, which answers
     every getppid with 4242.  Like agentrt's policy (deny-seccomp-listener), the filter also
     sends seccomp() with NEW_LISTENER to the listener, which refuses it (EPERM).  The child
     prints one line per 200 ms: what getppid returned.
     --seize: the parent also PTRACE_SEIZEs the child, as agentrt's kill switch does.
   notify_ckpt adopt PID
     SIGUSR1 makes the task stack the same filter again with NEW_LISTENER itself (its handler
     leaves the listener at fd 100); adopt takes it with pidfd_getfd and answers, as the parent
     did.  The task's own filter decides whether that call may run.
   notify_ckpt inject PID
     what agentrt restore would do, without the task's help: seize it with
     PTRACE_O_SUSPEND_SECCOMP (so its filter does not see the injected calls), make it call
     seccomp(SET_MODE_FILTER, NEW_LISTENER, the filter) from one of its own `syscall`
     instructions, take the listener with pidfd_getfd, make it close its copy, detach, answer.

   Built and driven by bench/checkpoint/spike.sh.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ADOPT_FD 100

static struct sock_filter insns[] = {
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 4, 0),
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 2),
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[1])),
  BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, 1, 0),
  BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
};
static struct sock_fprog prog = { sizeof insns / sizeof insns[0], insns };

static int
install (void)
{
  return (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        &prog);
}

/* The injected call's stand-in: async-signal-safe system calls only.  */
static void
on_usr1 (int sig)
{
  int fd = install ();

  (void) sig;
  if (fd < 0)
    {
      char msg[64];
      int n = snprintf (msg, sizeof msg, "stack NEW_LISTENER: errno %d\n", errno);
      (void) write (1, msg, (size_t) n);
      return;
    }
  dup2 (fd, ADOPT_FD);
  close (fd);
}

static void
child_loop (int sock)
{
  char cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
  struct msghdr mh = { 0 };
  struct iovec iov;
  struct cmsghdr *c;
  char one = 1;
  int fd;

  /* One output file for the child: CRIU restores a regular file only at the size it had.  */
  dup2 (1, 2);
  setsid ();
  signal (SIGUSR1, on_usr1);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || (fd = install ()) < 0)
    {
      perror ("seccomp");
      _exit (1);
    }
  iov.iov_base = &one;
  iov.iov_len = 1;
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf;
  mh.msg_controllen = sizeof cbuf;
  c = CMSG_FIRSTHDR (&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  if (sendmsg (sock, &mh, 0) < 0)
    _exit (1);
  close (fd);
  close (sock);
  for (unsigned long tick = 0;; tick++)
    {
      long r = syscall (SYS_getppid);
      printf ("tick %lu getppid=%ld errno=%d\n", tick, r, r < 0 ? errno : 0);
      fflush (stdout);
      usleep (200000);
    }
}

static int
recv_fd (int sock)
{
  char cbuf[CMSG_SPACE (sizeof (int))];
  struct msghdr mh = { 0 };
  struct iovec iov;
  char one;
  int fd;

  iov.iov_base = &one;
  iov.iov_len = 1;
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf;
  mh.msg_controllen = sizeof cbuf;
  if (recvmsg (sock, &mh, 0) <= 0 || !CMSG_FIRSTHDR (&mh))
    return -1;
  memcpy (&fd, CMSG_DATA (CMSG_FIRSTHDR (&mh)), sizeof fd);
  return fd;
}

/* Answer getppid with 4242 until the listener's filter has no task left (POLLHUP).  */
static int
serve (int fd)
{
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  unsigned long answered = 0;

  for (;;)
    {
      struct pollfd p = { fd, POLLIN, 0 };
      if (poll (&p, 1, -1) < 0 && errno != EINTR)
        return 1;
      if (p.revents & POLLHUP)
        break;
      memset (&req, 0, sizeof req);
      if (ioctl (fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        continue;
      memset (&resp, 0, sizeof resp);
      resp.id = req.id;
      if (req.data.nr == __NR_seccomp)
        resp.error = -EPERM; /* agentrt's deny-seccomp-listener */
      else
        resp.val = 4242;
      if (ioctl (fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
        answered++;
    }
  fprintf (stderr, "listener hung up after %lu answers\n", answered);
  return 0;
}

static int
run (int seize, const char *pidfile)
{
  int sv[2], fd;
  pid_t pid;
  FILE *f;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return 1;
  pid = fork ();
  if (pid == 0)
    {
      close (sv[0]);
      child_loop (sv[1]);
    }
  close (sv[1]);
  fd = recv_fd (sv[0]);
  if (fd < 0)
    return 1;
  if (seize && ptrace (PTRACE_SEIZE, pid, 0, (void *) (long) PTRACE_O_EXITKILL) < 0)
    perror ("PTRACE_SEIZE");
  f = fopen (pidfile, "w");
  if (!f)
    return 1;
  fprintf (f, "%d\n", (int) pid);
  fclose (f);
  if (seize)
    {
      /* A tracer must reap its tracee's stops; the listener is served by a second process.  */
      if (fork () == 0)
        _exit (serve (fd));
      close (fd);
      for (;;)
        {
          int st;
          if (waitpid (pid, &st, __WALL) < 0 || WIFEXITED (st) || WIFSIGNALED (st))
            break;
          ptrace (PTRACE_CONT, pid, 0,
                  (void *) (long) (WIFSTOPPED (st) && (st >> 16) == 0 ? WSTOPSIG (st) : 0));
        }
      wait (NULL);
      return 0;
    }
  return serve (fd);
}

static int
adopt (pid_t pid)
{
  int pidfd = (int) syscall (SYS_pidfd_open, pid, 0), fd = -1;

  if (pidfd < 0 || kill (pid, SIGUSR1) < 0)
    {
      perror ("adopt");
      return 1;
    }
  for (int i = 0; i < 100 && fd < 0; i++)
    {
      usleep (10000);
      fd = (int) syscall (SYS_pidfd_getfd, pidfd, ADOPT_FD, 0);
    }
  if (fd < 0)
    {
      perror ("pidfd_getfd");
      return 1;
    }
  fprintf (stderr, "adopted a listener from pid %d\n", (int) pid);
  return serve (fd);
}

/* Where the task has a `syscall` instruction (0f 05) in an executable mapping of its own.  */
static unsigned long
find_syscall_insn (pid_t pid)
{
  char path[64], line[512];
  unsigned long found = 0;
  FILE *maps;
  int mem;

  snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
  maps = fopen (path, "r");
  snprintf (path, sizeof path, "/proc/%d/mem", (int) pid);
  mem = open (path, O_RDONLY | O_CLOEXEC);
  while (maps && mem >= 0 && !found && fgets (line, sizeof line, maps))
    {
      unsigned long lo, hi;
      char perms[8];
      static unsigned char buf[1 << 16];

      if (sscanf (line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x'
          || strstr (line, "[vsyscall]"))
        continue;
      for (unsigned long a = lo; a < hi && !found; a += sizeof buf - 1)
        {
          ssize_t n = pread (mem, buf, sizeof buf, (off_t) a);
          for (ssize_t i = 0; i + 1 < n; i++)
            if (buf[i] == 0x0f && buf[i + 1] == 0x05)
              {
                found = a + (unsigned long) i;
                break;
              }
          if (n <= 0)
            break;
        }
    }
  if (maps)
    fclose (maps);
  if (mem >= 0)
    close (mem);
  return found;
}

/* A signal the tracee dequeued while we stepped it (CRIU's --leave-stopped SIGSTOP): given
   back at detach.  */
static int held_signal;

/* One system call made by the stopped tracee: its registers with the call's, one step over
   the `syscall` instruction at INSN, then its own registers back.  orig_rax -1: no restart
   of the call it was stopped in is attempted on our registers.  A signal-delivery stop
   before the step is held and the step made again.  */
static long
inject_syscall (pid_t pid, unsigned long insn, const struct user_regs_struct *saved, long nr,
                unsigned long a1, unsigned long a2, unsigned long a3)
{
  struct user_regs_struct r = *saved;
  int st;

  r.rip = insn;
  r.rax = (unsigned long) nr;
  r.orig_rax = (unsigned long) -1;
  r.rdi = a1;
  r.rsi = a2;
  r.rdx = a3;
  if (ptrace (PTRACE_SETREGS, pid, 0, &r) < 0)
    return -ESRCH;
  for (int tries = 0; tries < 8; tries++)
    {
      if (ptrace (PTRACE_SINGLESTEP, pid, 0, 0) < 0 || waitpid (pid, &st, __WALL) < 0
          || !WIFSTOPPED (st) || ptrace (PTRACE_GETREGS, pid, 0, &r) < 0)
        return -ESRCH;
      if (r.rip == insn + 2)
        return (long) r.rax;
      if ((st >> 16) == 0 && WSTOPSIG (st) != SIGTRAP)
        held_signal = WSTOPSIG (st);
    }
  return -EAGAIN;
}

static int
inject (pid_t pid)
{
  struct user_regs_struct saved;
  struct sock_fprog remote;
  struct iovec local[2], far;
  unsigned long insn, at;
  int pidfd, st, fd;
  long tfd;

  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  if (pidfd < 0 || ptrace (PTRACE_SEIZE, pid, 0, (void *) (long) PTRACE_O_SUSPEND_SECCOMP) < 0
      || ptrace (PTRACE_INTERRUPT, pid, 0, 0) < 0 || waitpid (pid, &st, __WALL) < 0
      || ptrace (PTRACE_GETREGS, pid, 0, &saved) < 0)
    {
      perror ("inject: seize");
      return 1;
    }
  insn = find_syscall_insn (pid);
  /* The program, copied below the red zone of the task's stack.  */
  at = (saved.rsp - 4096 - sizeof insns) & ~15UL;
  remote.len = prog.len;
  remote.filter = (struct sock_filter *) (at + 16);
  local[0].iov_base = &remote;
  local[0].iov_len = 16;
  local[1].iov_base = insns;
  local[1].iov_len = sizeof insns;
  far.iov_base = (void *) at;
  far.iov_len = 16 + sizeof insns;
  if (!insn || process_vm_writev (pid, local, 2, &far, 1, 0) != (ssize_t) far.iov_len)
    {
      perror ("inject: write the program");
      return 1;
    }
  tfd = inject_syscall (pid, insn, &saved, __NR_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_NEW_LISTENER, at);
  fprintf (stderr, "injected seccomp(NEW_LISTENER) returned %ld\n", tfd);
  fd = tfd < 0 ? -1 : (int) syscall (SYS_pidfd_getfd, pidfd, (int) tfd, 0);
  if (tfd >= 0)
    fprintf (stderr, "injected close(%ld) returned %ld\n", tfd,
             inject_syscall (pid, insn, &saved, __NR_close, (unsigned long) tfd, 0, 0));
  /* The task's own registers back, whatever happened.  */
  if (ptrace (PTRACE_SETREGS, pid, 0, &saved) < 0
      || ptrace (PTRACE_DETACH, pid, 0, (void *) (long) held_signal) < 0)
    {
      perror ("inject: detach");
      return 1;
    }
  if (fd < 0)
    return 1;
  return serve (fd);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && !strcmp (argv[1], "run"))
    return run (0, argv[2]);
  if (argc == 4 && !strcmp (argv[1], "run") && !strcmp (argv[2], "--seize"))
    return run (1, argv[3]);
  if (argc == 3 && !strcmp (argv[1], "adopt"))
    return adopt ((pid_t) atoi (argv[2]));
  if (argc == 3 && !strcmp (argv[1], "inject"))
    return inject ((pid_t) atoi (argv[2]));
  fprintf (stderr, "usage: notify_ckpt run [--seize] PIDFILE | adopt PID | inject PID\n");
  return 2;
}
