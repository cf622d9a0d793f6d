/* policy: the tables against libseccomp's syscall lists, both ways and on both architectures;
   the deny list; the filter of each architecture; on x86_64, the filter installed in a
   forked child with a notify listener the parent answers; and the ptrace platform's version of
   the native filter.  No root needed.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/policy.h"
#include "tap.h"
#include "utils.h"

#define N_PROBE 1024 /* syscall numbers asked of libseccomp: all of x86_64's and aarch64's */

static const char *const deny_names[] = {
  "mount",
  "umount2",
  "pivot_root",
  "move_mount",
  "open_tree",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "bpf",
  "perf_event_open",
  "init_module",
  "finit_module",
  "delete_module",
  "kexec_load",
  "kexec_file_load",
  "reboot",
  "swapon",
  "swapoff",
  "keyctl",
  "add_key",
  "request_key",
  "userfaultfd",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "open_by_handle_at",
  "name_to_handle_at",
  "setns",
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "acct",
  "quotactl",
  "quotactl_fd",
  "syslog",
  "settimeofday",
  "clock_settime",
  "lookup_dcookie",
  "nfsservctl",
  "statmount",
  "listmount",
  "open_tree_attr",
};
static const char *const deny_names_x86_64[] = {
  "iopl",     "ioperm",        "modify_ldt",      "uselib",
  "_sysctl",  "create_module", "get_kernel_syms", "query_module",
  "getpmsg",  "putpmsg",       "afs_syscall",     "tuxcall",
  "security", "vserver",       "sysfs",           "ustat",
};

/* The entry named `name` in policy `p`, or NULL.  */
static const struct sc_entry *
find (const struct policy *p, const char *name)
{
  for (size_t nr = 0; nr < p->n_nr; nr++)
    if (p->by_nr[nr] && strcmp (p->by_nr[nr]->name, name) == 0)
      return p->by_nr[nr];
  return NULL;
}

/* Every syscall libseccomp knows for the architecture has its entry, under the same name.  */
static int
check_libseccomp_covered (const struct policy *p)
{
  for (int nr = 0; nr < N_PROBE; nr++)
    {
      cleanup_free char *name = seccomp_syscall_resolve_num_arch (p->table->scmp_arch, nr);
      const struct sc_entry *e = policy_lookup (p, nr);

      if (name == NULL)
        continue;
      if (e == NULL)
        TAP_FAIL ("%s: %s (%d) has no entry", p->table->arch, name, nr);
      CHECK_STR (e->name, name);
    }
  return 0;
}

/* Every entry is named once, resolves to a number of the architecture (not a negative
   pseudo-syscall) or carries new_nr, and is found again by that number.  */
static int
check_entries_resolve (const struct policy *p)
{
  size_t n = 0, n_nr = 0;

  for (const struct sc_entry *const *part = p->table->parts; *part; part++)
    for (const struct sc_entry *e = *part; e->name; e++, n++)
      {
        int nr = seccomp_syscall_resolve_name_arch (p->table->scmp_arch, e->name);

        if (nr < 0 && e->new_nr == 0)
          TAP_FAIL ("%s: `%s` resolves to %d", p->table->arch, e->name, nr);
        if (nr >= 0 && e->new_nr != 0 && nr != e->new_nr)
          TAP_FAIL ("%s: `%s` is %d, new_nr %u", p->table->arch, e->name, nr, e->new_nr);
        if (nr < 0)
          nr = e->new_nr;
        if (find (p, e->name) != policy_lookup (p, nr))
          TAP_FAIL ("%s: `%s` is not found at %d", p->table->arch, e->name, nr);
        CHECK (e->rule && *e->rule);
        CHECK (e->tier != SC_ALLOW_IF || e->cond != SCOND_NONE);
        CHECK ((e->tier == SC_SUPERVISE || e->tier == SC_DENY || e->tier == SC_ALLOW_IF)
               == (e->handler != SH_NONE));
      }
  for (size_t nr = 0; nr < p->n_nr; nr++)
    n_nr += p->by_nr[nr] != NULL;
  /* As many numbers as entries: no name twice (fill_by_nr already refuses a number twice).  */
  if (n != n_nr)
    TAP_FAIL ("%s: %zu entries but %zu numbers", p->table->arch, n, n_nr);
  return 0;
}

static int
check_tier (const struct policy *p, const char *name, enum sc_tier tier)
{
  const struct sc_entry *e = find (p, name);

  if (e == NULL)
    TAP_FAIL ("%s: no entry `%s`", p->table->arch, name);
  if (e->tier != tier)
    TAP_FAIL ("%s: `%s` is %s, not %s", p->table->arch, name, policy_tier_name (e->tier),
              policy_tier_name (tier));
  return 0;
}

static int
check_tiers (const struct policy *p)
{
  for (size_t i = 0; i < sizeof deny_names / sizeof deny_names[0]; i++)
    if (check_tier (p, deny_names[i], SC_DENY) < 0)
      return -1;
  if (strcmp (p->table->arch, "x86_64") == 0)
    for (size_t i = 0; i < sizeof deny_names_x86_64 / sizeof deny_names_x86_64[0]; i++)
      if (check_tier (p, deny_names_x86_64[i], SC_DENY) < 0)
        return -1;
  CHECK (find (p, "mount")->severity == SEV_ALERT);
  CHECK_STR (find (p, "mount")->rule, "deny-mount");
  CHECK_STR (find (p, "bpf")->rule, "deny-bpf");
  CHECK (check_tier (p, "clone", SC_ALLOW_IF) == 0 && check_tier (p, "unshare", SC_ALLOW_IF) == 0);
  CHECK (check_tier (p, "ioctl", SC_ALLOW_IF) == 0 && find (p, "ioctl")->cond == SCOND_IOCTL_SAFE);
  CHECK (find (p, "socket")->err == EAFNOSUPPORT && find (p, "socket")->severity == SEV_WARN);
  CHECK (check_tier (p, "personality", SC_ALLOW_IF) == 0);
  /* Probes runtimes make on every start: refused quietly, as a kernel without them would.  */
  CHECK (find (p, "personality")->severity == SEV_WARN);
  CHECK (find (p, "io_uring_setup")->err == ENOSYS
         && find (p, "io_uring_setup")->severity == SEV_WARN);
  CHECK (find (p, "io_uring_enter")->severity == SEV_ALERT);
  /* A read of the clock's state runs (the kernel refuses changes without CAP_SYS_TIME); a
     change is an alert.  */
  CHECK (check_tier (p, "adjtimex", SC_SUPERVISE) == 0
         && find (p, "adjtimex")->handler == SH_CLOCK);
  CHECK (check_tier (p, "clock_adjtime", SC_SUPERVISE) == 0
         && find (p, "clock_adjtime")->severity == SEV_ALERT);
  CHECK (find (p, "uname")->handler == SH_UNAME && find (p, "uname")->severity == SEV_NONE);
  CHECK (find (p, "execve")->handler == SH_EXEC && find (p, "execve")->severity == SEV_INFO);
  CHECK (find (p, "connect")->handler == SH_CONNECT && find (p, "bind")->handler == SH_BIND);
  CHECK (find (p, "sched_getaffinity")->handler == SH_AFFINITY);
  CHECK (find (p, "clone3")->tier == SC_ERRNO && find (p, "clone3")->err == ENOSYS);
  /* A workload's own filters, but not its own listener (policy.h).  */
  CHECK (check_tier (p, "seccomp", SC_ALLOW_IF) == 0
         && find (p, "seccomp")->cond == SCOND_SECCOMP_NO_LISTENER
         && find (p, "seccomp")->severity == SEV_ALERT);
  CHECK (check_tier (p, "prctl", SC_ALLOW) == 0);
  CHECK (check_tier (p, "mseal", SC_ALLOW) == 0 && find (p, "mseal")->new_nr == 462);
  CHECK (check_tier (p, "read", SC_ALLOW) == 0 && check_tier (p, "kill", SC_ALLOW) == 0);
  return 0;
}

static int
check_arch (const char *arch)
{
  const struct sc_table *t = policy_table_by_arch (arch);
  struct policy p;
  ar_error_t err = NULL;
  int ret;

  CHECK (t != NULL);
  if (policy_init (&p, t, NULL, &err) < 0)
    TAP_FAIL ("policy_init %s: %s", arch, err->msg);
  ret = check_libseccomp_covered (&p);
  if (ret == 0)
    ret = check_entries_resolve (&p);
  if (ret == 0)
    ret = check_tiers (&p);
  if (ret == 0 && policy_lookup (&p, -1) != NULL)
    ret = -1;
  if (ret == 0 && policy_lookup (&p, 100000) != NULL)
    ret = -1;
  policy_release (&p);
  return ret;
}

static int
test_table_x86_64 (void)
{
  return check_arch ("x86_64");
}

static int
test_table_aarch64 (void)
{
  return check_arch ("aarch64");
}

static int
test_by_arch (void)
{
  CHECK (policy_table_by_arch ("x86_64") == &sc_table_x86_64);
  CHECK (policy_table_by_arch ("aarch64") == &sc_table_aarch64);
  CHECK (policy_table_by_arch ("riscv64") == NULL);
#ifdef __x86_64__
  CHECK (policy_native_table () == &sc_table_x86_64);
#endif
  CHECK_STR (policy_tier_name (SC_ALLOW_IF), "allow-if");
  CHECK_STR (policy_handler_name (SH_AFFINITY), "affinity");
  CHECK_STR (policy_severity_name (SEV_ALERT), "alert");
  CHECK (*policy_cond_text (SCOND_IOCTL_SAFE) && !*policy_cond_text (SCOND_NONE));
  return 0;
}

static int
test_allow_ptrace (void)
{
  struct policy_opts o = { .allow_ptrace = true };
  struct policy p;
  ar_error_t err = NULL;

  if (policy_init (&p, &sc_table_aarch64, &o, &err) < 0)
    TAP_FAIL ("policy_init: %s", err->msg);
  CHECK (policy_lookup (&p, 117)->tier == SC_ALLOW); /* aarch64's ptrace */
  CHECK_STR (policy_lookup (&p, 117)->name, "ptrace");
  CHECK (find (&p, "process_vm_writev")->tier == SC_ALLOW);
  CHECK (find (&p, "process_vm_readv")->tier == SC_ALLOW);
  CHECK (find (&p, "mount")->tier == SC_DENY);
  policy_release (&p);
  /* Without it, all three are refused under one rule.  */
  if (policy_init (&p, &sc_table_x86_64, NULL, &err) < 0)
    TAP_FAIL ("policy_init: %s", err->msg);
  CHECK (find (&p, "ptrace")->tier == SC_DENY);
  CHECK_STR (find (&p, "process_vm_readv")->rule, "deny-ptrace");
  CHECK_STR (find (&p, "process_vm_writev")->rule, "deny-ptrace");
  policy_release (&p);
  return 0;
}

/* clone where the supervisor is not the tracer: the table's entry but for its condition.  */
static int
test_clone_untraced_entry (void)
{
  struct policy_opts tracer = { .tracer_platform = true };
  struct policy p, q;
  const struct sc_entry *a, *b;
  ar_error_t err = NULL;

  if (policy_init (&p, &sc_table_x86_64, &tracer, &err) < 0
      || policy_init (&q, &sc_table_x86_64, NULL, &err) < 0)
    TAP_FAIL ("policy_init: %s", err->msg);
  a = find (&p, "clone");
  b = find (&q, "clone");
  CHECK (a->cond == SCOND_CLONE_NO_NS && b->cond == SCOND_CLONE_NO_NS_UNTRACED);
  CHECK (a->tier == b->tier && a->handler == b->handler && a->severity == b->severity
         && a->err == b->err);
  CHECK_STR (a->rule, b->rule);
  CHECK (*policy_cond_text (SCOND_CLONE_NO_NS_UNTRACED));
  policy_release (&p);
  policy_release (&q);
  return 0;
}

static int
compile_arch (const char *arch, struct seccomp_prog *prog)
{
  struct policy p;
  ar_error_t err = NULL;
  int ret;

  if (policy_init (&p, policy_table_by_arch (arch), NULL, &err) < 0)
    TAP_FAIL ("policy_init %s: %s", arch, err->msg);
  ret = policy_compile (&p, prog, &err);
  policy_release (&p);
  if (ret < 0)
    TAP_FAIL ("policy_compile %s: %s", arch, err->msg);
  CHECK (prog->notify && prog->len > 0 && prog->insns != NULL);
  printf ("# %s filter: %u instructions\n", arch, prog->len);
  return 0;
}

static int
test_compile_both (void)
{
  struct seccomp_prog x = { 0 }, a = { 0 };
  int ret = compile_arch ("x86_64", &x);

  if (ret == 0)
    ret = compile_arch ("aarch64", &a);
  seccomp_prog_release (&x);
  seccomp_prog_release (&a);
  return ret;
}

/* The child under the filter.  Exit codes name the step that went wrong.  */
static void *
thread_fn (void *arg)
{
  return arg;
}

static int
child_steps (void)
{
  char c = 'x';
  int n = 0, pfd[2];
  pthread_t th;
  void *res = NULL;
  pid_t pid;
  int st;

  if (getppid () <= 1)
    return 10;
  /* clone3: ENOSYS in the kernel, no notification.  */
  if (syscall (SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
    return 11;
  if (pipe (pfd) < 0 || ioctl (pfd[0], FIONREAD, &n) < 0) /* allowed in the kernel */
    return 12;
  /* A request int sign-extended, as `ioctl (fd, (int) TIOCGPTN…)` passes it: allowed in the
     kernel (ENOTTY on a pipe), no notification.  */
  if (syscall (SYS_ioctl, pfd[0], (long) (int) 0x80045430, &n) != -1 || errno != ENOTTY)
    return 13;
  /* TIOCSTI, and TIOCSTI with junk in the high word: both reach the listener (EPERM).  */
  if (ioctl (pfd[0], TIOCSTI, &c) != -1 || errno != EPERM)
    return 14;
  if (syscall (SYS_ioctl, pfd[0], (unsigned long) TIOCSTI | 1UL << 32, &c) != -1 || errno != EPERM)
    return 15;
  if (mount ("none", "/", "tmpfs", 0, NULL) != -1 || errno != EPERM)
    return 16;
  /* socket of a permitted family: in the kernel.  */
  st = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (st < 0)
    return 17;
  close (st);
  /* fork is clone without namespace flags; a thread tries clone3 first, then clone.  */
  pid = fork ();
  if (pid == 0)
    _exit (7);
  if (pid < 0 || waitpid (pid, &st, 0) != pid || !WIFEXITED (st) || WEXITSTATUS (st) != 7)
    return 18;
  if (pthread_create (&th, NULL, thread_fn, &c) != 0 || pthread_join (th, &res) != 0 || res != &c)
    return 19;
  return 0;
}

static int
send_fd (int sock, int fd)
{
  char data = 0, cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
  struct iovec iov = { .iov_base = &data, .iov_len = 1 };
  struct msghdr msg
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *cm = CMSG_FIRSTHDR (&msg);

  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cm), &fd, sizeof fd);
  return sendmsg (sock, &msg, 0) == 1 ? 0 : -1;
}

static int
recv_fd (int sock)
{
  char data, cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
  struct iovec iov = { .iov_base = &data, .iov_len = 1 };
  struct msghdr msg
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *cm;
  int fd;

  if (recvmsg (sock, &msg, MSG_CMSG_CLOEXEC) != 1)
    return -1;
  cm = CMSG_FIRSTHDR (&msg);
  if (cm == NULL || cm->cmsg_type != SCM_RIGHTS)
    return -1;
  memcpy (&fd, CMSG_DATA (cm), sizeof fd);
  return fd;
}

/* Install the filter (no_new_privs first: the filter does not set it), hand the listener to
   the parent, run the steps.  Exit code 3: a listener cannot be had here (EBUSY: another one
   already watches this filter chain).  */
static void
child_main (const struct seccomp_prog *prog, int sock)
{
  ar_error_t err = NULL;
  int listener;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    _exit (2);
  if (seccomp_prog_install (prog, &listener, &err) < 0)
    _exit (err->status == EBUSY ? 3 : 5);
  if (send_fd (sock, listener) < 0)
    _exit (4);
  close (listener);
  _exit (child_steps ());
}

/* Receive one notification within 5 s, check its number and request argument, answer EPERM.  */
static int
answer_one (int listener, long nr, int check_arg, uint64_t arg1)
{
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  struct pollfd pfd = { .fd = listener, .events = POLLIN };

  if (poll (&pfd, 1, 5000) != 1 || !(pfd.revents & POLLIN))
    TAP_FAIL ("no notification for syscall %ld", nr);
  memset (&req, 0, sizeof req);
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
    TAP_FAIL ("NOTIF_RECV: %s", strerror (errno));
  memset (&resp, 0, sizeof resp);
  resp.id = req.id;
  resp.error = -EPERM;
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
    TAP_FAIL ("NOTIF_SEND: %s", strerror (errno));
  if (req.data.nr != nr)
    TAP_FAIL ("notified syscall %d, expected %ld", req.data.nr, nr);
  if (check_arg && req.data.args[1] != arg1)
    TAP_FAIL ("notified arg1 %#llx, expected %#llx", (unsigned long long) req.data.args[1],
              (unsigned long long) arg1);
  return 0;
}

static int
run_parent (pid_t pid, int sock)
{
  int listener = -1, st, ret = 0;
  struct pollfd pfd = { .fd = sock, .events = POLLIN };

  /* The listener, or end of file if the child failed before sending it.  */
  if (poll (&pfd, 1, 5000) == 1)
    listener = recv_fd (sock);
  if (listener >= 0)
    {
      ret = answer_one (listener, SYS_ioctl, 1, TIOCSTI);
      if (ret == 0)
        ret = answer_one (listener, SYS_ioctl, 1, (uint64_t) TIOCSTI | 1ULL << 32);
      if (ret == 0)
        ret = answer_one (listener, SYS_mount, 0, 0);
      close (listener);
    }
  if (ret < 0)
    kill (pid, SIGKILL);
  if (waitpid (pid, &st, 0) != pid)
    TAP_FAIL ("waitpid: %s", strerror (errno));
  if (ret < 0)
    return ret;
  if (WIFEXITED (st) && WEXITSTATUS (st) == 3)
    {
      printf ("# cannot install a listener here: EBUSY\n");
      return 77;
    }
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0)
    TAP_FAIL ("child status %#x (exit code = failed step)", st);
  return 0;
}

static int
test_install_x86_64 (void)
{
  struct seccomp_prog prog = { 0 };
  int sv[2], ret;
  pid_t pid;

#ifndef __x86_64__
  printf ("# not an x86_64 machine\n");
  return 77;
#endif
  if (compile_arch ("x86_64", &prog) < 0)
    return -1;
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    TAP_FAIL ("socketpair: %s", strerror (errno));
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    TAP_FAIL ("fork: %s", strerror (errno));
  if (pid == 0)
    {
      close (sv[0]);
      child_main (&prog, sv[1]);
    }
  close (sv[1]);
  ret = run_parent (pid, sv[0]);
  close (sv[0]);
  seccomp_prog_release (&prog);
  return ret;
}

/* How many returns of the filter are `action`.  */
static unsigned
count_returns (const struct seccomp_prog *p, uint32_t action)
{
  unsigned n = 0;

  for (unsigned short i = 0; i < p->len; i++)
    n += p->insns[i].code == (BPF_RET | BPF_K) && p->insns[i].k == action;
  return n;
}

/* In a child with the trace filter and no tracer: a call for the supervisor fails with ENOSYS
   (the kernel's answer to SECCOMP_RET_TRACE without one), an allowed call runs.  */
static int
trace_child (const struct seccomp_prog *prog)
{
  ar_error_t err = NULL;
  int listener;
  struct utsname u;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return 2;
  if (seccomp_prog_install (prog, &listener, &err) < 0)
    return 3;
  if (listener != -1)
    return 4;
  if (syscall (SYS_uname, &u) != -1 || errno != ENOSYS)
    return 5;
  if (syscall (SYS_getppid) <= 0)
    return 6;
  return 0;
}

static int
test_to_trace (void)
{
  struct seccomp_prog prog = { 0 }, allow = { 0 };
  ar_error_t err = NULL;
  unsigned notify;
  int st;
  pid_t pid;

  if (compile_arch (policy_native_table ()->arch, &prog) < 0)
    return -1;
  notify = count_returns (&prog, SECCOMP_RET_USER_NOTIF);
  if (notify == 0 || !prog.notify)
    TAP_FAIL ("the policy has no notify return");
  if (policy_to_trace (&prog, &err) < 0)
    TAP_FAIL ("policy_to_trace: %s", err->msg);
  if (count_returns (&prog, SECCOMP_RET_TRACE | SECCOMP_PROG_TRACE_TAG) != notify
      || count_returns (&prog, SECCOMP_RET_USER_NOTIF) != 0 || prog.notify || !prog.trace)
    TAP_FAIL ("%u notify returns became %u trace returns, %u left", notify,
              count_returns (&prog, SECCOMP_RET_TRACE | SECCOMP_PROG_TRACE_TAG),
              count_returns (&prog, SECCOMP_RET_USER_NOTIF));
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    TAP_FAIL ("fork: %s", strerror (errno));
  if (pid == 0)
    _exit (trace_child (&prog));
  seccomp_prog_release (&prog);
  if (waitpid (pid, &st, 0) != pid || !WIFEXITED (st) || WEXITSTATUS (st) != 0)
    TAP_FAIL ("child status %#x (exit code = failed step)", st);
  /* A filter with nothing for a tracer is a mistake, not a ptrace policy.  */
  allow.insns = xmalloc (sizeof *allow.insns);
  allow.insns[0] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  allow.len = 1;
  if (policy_to_trace (&allow, &err) == 0)
    TAP_FAIL ("an allow-only filter became a trace filter");
  ar_error_release (&err);
  seccomp_prog_release (&allow);
  return 0;
}

/* Under the native filter turned into a trace filter with no tracer (a call the supervisor
   would see fails with ENOSYS, test_to_trace): what each platform's policy lets the kernel
   decide.  Exit codes name the failed step.  */
static int
expect_nosys (long r)
{
  return r == -1 && errno == ENOSYS;
}

static int
platform_child (const struct seccomp_prog *prog, bool tracer_platform)
{
  static char src[8] = "agentrt", dst[8];
  struct iovec l = { dst, sizeof dst }, rv = { src, sizeof src };
  ar_error_t err = NULL;
  int listener, st;
  long r;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0
      || seccomp_prog_install (prog, &listener, &err) < 0)
    return 2;
  /* A fork with CLONE_UNTRACED, as LeakSanitizer's tracer (which adds CLONE_VM).  */
  r = syscall (SYS_clone, (unsigned long) (CLONE_UNTRACED | SIGCHLD), 0UL, 0UL, 0UL, 0UL);
  if (r == 0)
    _exit (7);
  if (tracer_platform != expect_nosys (r))
    return 3;
  if (r > 0 && (waitpid ((pid_t) r, &st, 0) != r || !WIFEXITED (st) || WEXITSTATUS (st) != 7))
    return 4;
  /* A thread never: EINVAL from the kernel (no CLONE_SIGHAND) would mean it got there.  */
  if (!expect_nosys (
          syscall (SYS_clone, (unsigned long) (CLONE_UNTRACED | CLONE_THREAD), 0UL, 0UL, 0UL, 0UL)))
    return 5;
  /* ptrace and process_vm_readv reach the kernel on the seccomp platform only.  */
  r = syscall (SYS_ptrace, PTRACE_PEEKDATA, 0x7fffffffL, 0L, 0L);
  if (tracer_platform ? !expect_nosys (r) : r != -1 || errno != ESRCH)
    return 6;
  r = syscall (SYS_process_vm_readv, getpid (), &l, 1UL, &rv, 1UL, 0UL);
  if (tracer_platform ? !expect_nosys (r) : r != (long) sizeof dst || strcmp (dst, src) != 0)
    return 7;
  /* personality: gdb's and setarch's flags in the kernel on both; page 0 and PER_LINUX32 not.  */
  if (syscall (SYS_personality, (unsigned long) ADDR_NO_RANDOMIZE) < 0
      || syscall (SYS_personality, 0xffffffffUL) != ADDR_NO_RANDOMIZE)
    return 8;
  if (syscall (SYS_personality, (unsigned long) (READ_IMPLIES_EXEC | ADDR_COMPAT_LAYOUT)) < 0)
    return 9;
  if (!expect_nosys (syscall (SYS_personality, (unsigned long) MMAP_PAGE_ZERO))
      || !expect_nosys (syscall (SYS_personality, (unsigned long) PER_LINUX32))
      || !expect_nosys (syscall (SYS_personality, (unsigned long) PER_LINUX32 | ADDR_NO_RANDOMIZE)))
    return 10;
  return 0;
}

static int
run_platform (bool tracer_platform)
{
  struct policy_opts o = { .allow_ptrace = !tracer_platform, .tracer_platform = tracer_platform };
  struct seccomp_prog prog = { 0 };
  ar_error_t err = NULL;
  struct policy p;
  int st, r;
  pid_t pid;

  if (policy_init (&p, policy_native_table (), &o, &err) < 0)
    TAP_FAIL ("policy_init: %s", err->msg);
  r = policy_compile (&p, &prog, &err);
  policy_release (&p);
  if (r < 0 || policy_to_trace (&prog, &err) < 0)
    TAP_FAIL ("compile: %s", err->msg);
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    TAP_FAIL ("fork: %s", strerror (errno));
  if (pid == 0)
    _exit (platform_child (&prog, tracer_platform));
  seccomp_prog_release (&prog);
  if (waitpid (pid, &st, 0) != pid || !WIFEXITED (st) || WEXITSTATUS (st) != 0)
    TAP_FAIL ("%s platform: child status %#x (exit code = failed step)",
              tracer_platform ? "ptrace" : "seccomp", st);
  return 0;
}

static int
test_platforms_x86_64 (void)
{
#ifndef __x86_64__
  printf ("# not an x86_64 machine\n");
  return 77;
#endif
  if (run_platform (false) < 0)
    return -1;
  return run_platform (true);
}

/* Each switch is part of the compiled policy's identity: another switch, another file.  */
static int
test_cache_per_switch (void)
{
  char dir[] = "/tmp/agentrt-test-policy.XXXXXX";
  const struct policy_opts opts[] = {
    { 0 },
    { .allow_ptrace = true },
    { .tracer_platform = true },
    { .deny_set_mm = true },
  };
  struct seccomp_prog prog;
  ar_error_t err = NULL;
  struct policy p;
  int dirfd, n = 0;
  DIR *d;

  if (mkdtemp (dir) == NULL || (dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    TAP_FAIL ("mkdtemp: %s", strerror (errno));
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    {
      if (policy_init (&p, policy_native_table (), &opts[i], &err) < 0
          || policy_compile_cached (&p, dirfd, &prog, &err) < 0)
        TAP_FAIL ("compile: %s", err->msg);
      policy_release (&p);
      seccomp_prog_release (&prog);
    }
  d = fdopendir (dirfd);
  for (struct dirent *de; d && (de = readdir (d));)
    if (de->d_name[0] != '.' && unlinkat (dirfd, de->d_name, 0) == 0)
      n++;
  if (d)
    closedir (d);
  rmdir (dir);
  if (n != (int) (sizeof opts / sizeof opts[0]))
    TAP_FAIL ("%d files for %zu sets of switches", n, sizeof opts / sizeof opts[0]);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_table_x86_64);
  RUN_TEST (test_table_aarch64);
  RUN_TEST (test_by_arch);
  RUN_TEST (test_allow_ptrace);
  RUN_TEST (test_clone_untraced_entry);
  RUN_TEST (test_compile_both);
  RUN_TEST (test_install_x86_64);
  RUN_TEST (test_to_trace);
  RUN_TEST (test_platforms_x86_64);
  RUN_TEST (test_cache_per_switch);
  TAP_END ();
}
