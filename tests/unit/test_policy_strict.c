/* The strict tier (policy.h): its size on each architecture, one allowlist by name for both,
   what it refuses and how, and its filter, run here by a small classic-BPF interpreter on
   made-up seccomp_data: which calls and arguments it lets through, and that the hot calls are
   decided without reading an argument (so the kernel's action cache keeps them off the filter
   altogether).  No root needed.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "policy/policy.h"
#include "tap.h"
#include "utils.h"

#define STRICT_MAX_X86_64 200 /* issue 17's goal: reachable in the kernel under strict */

static int
init (struct policy *p, const char *arch, bool strict)
{
  struct policy_opts o = { .strict = strict };
  ar_error_t err = NULL;

  if (policy_init (p, policy_table_by_arch (arch), &o, &err) < 0)
    TAP_FAIL ("policy_init %s: %s", arch, err->msg);
  return 0;
}

static const struct sc_entry *
find (const struct policy *p, const char *name)
{
  for (size_t nr = 0; nr < p->n_nr; nr++)
    if (p->by_nr[nr] && strcmp (p->by_nr[nr]->name, name) == 0)
      return p->by_nr[nr];
  return NULL;
}

/* Reachable in the kernel (allow, allow-if) under `p`?  */
static bool
reachable (const struct sc_entry *e)
{
  return e && (e->tier == SC_ALLOW || e->tier == SC_ALLOW_IF);
}

static int
test_counts (void)
{
  struct policy d, s;
  struct policy_counts cd, cs;

  for (int i = 0; i < 2; i++)
    {
      const char *arch = i ? "aarch64" : "x86_64";
      if (init (&d, arch, false) < 0 || init (&s, arch, true) < 0)
        return -1;
      policy_count (&d, &cd);
      policy_count (&s, &cs);
      printf ("# %s: default %zu reachable, strict %zu (allow %zu, allow-if %zu)\n", arch,
              cd.reachable, cs.reachable, cs.tier[SC_ALLOW], cs.tier[SC_ALLOW_IF]);
      CHECK (cs.reachable < cd.reachable);
      if (i == 0 && cs.reachable > STRICT_MAX_X86_64)
        TAP_FAIL ("x86_64 strict: %zu reachable, more than %d", cs.reachable, STRICT_MAX_X86_64);
      /* The same table, the same entries: only tiers move.  */
      CHECK (cd.tier[SC_ALLOW] + cd.tier[SC_ALLOW_IF] + cd.tier[SC_DENY]
             == cs.tier[SC_ALLOW] + cs.tier[SC_ALLOW_IF] + cs.tier[SC_DENY]);
      CHECK (cd.tier[SC_SUPERVISE] == cs.tier[SC_SUPERVISE]);
      CHECK (cd.tier[SC_ERRNO] == cs.tier[SC_ERRNO]);
      policy_release (&d);
      policy_release (&s);
    }
  return 0;
}

/* One list by name: a call both architectures have is reachable under strict on both or on
   neither, and every strict entry resolves (policy_init would have failed otherwise).  */
static int
test_same_list_by_name (void)
{
  struct policy x, a;
  size_t both = 0;

  if (init (&x, "x86_64", true) < 0 || init (&a, "aarch64", true) < 0)
    return -1;
  for (size_t nr = 0; nr < a.n_nr; nr++)
    {
      const struct sc_entry *ea = a.by_nr[nr], *ex;
      if (ea == NULL)
        continue;
      ex = find (&x, ea->name);
      if (ex == NULL)
        continue; /* aarch64's own name (none today) */
      both++;
      if (reachable (ea) != reachable (ex))
        TAP_FAIL ("`%s`: strict reaches the kernel on %s only", ea->name,
                  reachable (ea) ? "aarch64" : "x86_64");
      if (reachable (ea) && ea->cond != ex->cond)
        TAP_FAIL ("`%s`: another condition on each architecture", ea->name);
    }
  CHECK (both > 250);
  policy_release (&x);
  policy_release (&a);
  return 0;
}

/* How the strict tier takes each kind of entry.  */
static int
test_entries (void)
{
  struct policy d, s;
  const struct sc_entry *e;

  if (init (&d, "x86_64", false) < 0 || init (&s, "x86_64", true) < 0)
    return -1;
  /* Off the allowlist: ENOSYS, audited as warn, through the supervisor.  */
  e = find (&s, "shmget");
  CHECK (e->tier == SC_DENY && e->handler == SH_DENY && e->err == ENOSYS
         && e->severity == SEV_WARN);
  CHECK_STR (e->rule, "refuse-strict");
  CHECK (find (&d, "shmget")->tier == SC_ALLOW);
  /* On it: unchanged, the very entry of the table.  */
  CHECK (find (&s, "read") == find (&d, "read") && find (&s, "read")->tier == SC_ALLOW);
  CHECK (find (&s, "clone") == find (&d, "clone"));
  /* Narrowed by argument.  */
  e = find (&s, "ioctl");
  CHECK (e->tier == SC_ALLOW_IF && e->cond == SCOND_IOCTL_STRICT && e->err == ENOTTY);
  CHECK_STR (e->rule, "refuse-strict-ioctl");
  CHECK (find (&s, "fcntl")->cond == SCOND_FCNTL_STRICT && find (&d, "fcntl")->tier == SC_ALLOW);
  CHECK (find (&s, "socket")->cond == SCOND_SOCKET_STRICT
         && find (&s, "socket")->err == EAFNOSUPPORT);
  CHECK (find (&s, "prctl")->cond == SCOND_PRCTL_STRICT);
  CHECK (find (&s, "madvise")->cond == SCOND_MADVISE_STRICT);
  CHECK (find (&s, "mremap")->cond == SCOND_MREMAP_STRICT);
  /* supervise, deny and errno keep their handling.  */
  CHECK (find (&s, "mount") == find (&d, "mount") && find (&s, "mount")->severity == SEV_ALERT);
  CHECK (find (&s, "uname") == find (&d, "uname"));
  CHECK (find (&s, "execve") == find (&d, "execve"));
  CHECK (find (&s, "clone3") == find (&d, "clone3"));
  /* What runtimes probe at start stays.  */
  static const char *const kept[] = { "rseq",       "statx",      "getrandom",  "close_range",
                                      "faccessat2", "membarrier", "pidfd_open", "epoll_pwait2" };
  for (size_t i = 0; i < ARRAY_SIZE (kept); i++)
    if (!reachable (find (&s, kept[i])))
      TAP_FAIL ("`%s` is refused under strict", kept[i]);
  policy_release (&d);
  policy_release (&s);
  return 0;
}

/* The syscalls the compatibility corpus makes under runc on x86_64 (tests/corpus, 45 tasks;
   /work/notes/corpus-syscalls-x86_64.txt, by tools/corpus-syscalls.sh): the measurement the
   strict allowlist is derived from.  */
static const char *const corpus[] = {
  "accept4",
  "access",
  "alarm",
  "arch_prctl",
  "bind",
  "brk",
  "capget",
  "chdir",
  "chmod",
  "clock_gettime",
  "clock_nanosleep",
  "clone",
  "clone3",
  "close",
  "close_range",
  "connect",
  "copy_file_range",
  "creat",
  "dup",
  "dup2",
  "dup3",
  "epoll_create",
  "epoll_create1",
  "epoll_ctl",
  "epoll_wait",
  "eventfd2",
  "execve",
  "exit",
  "exit_group",
  "faccessat2",
  "fadvise64",
  "fallocate",
  "fchdir",
  "fchmod",
  "fchmodat",
  "fchown",
  "fchownat",
  "fcntl",
  "fdatasync",
  "fgetxattr",
  "flistxattr",
  "flock",
  "fsetxattr",
  "fstatfs",
  "fsync",
  "ftruncate",
  "futex",
  "getcwd",
  "getdents",
  "getdents64",
  "getegid",
  "geteuid",
  "getgid",
  "getpeername",
  "getpgrp",
  "getpid",
  "getppid",
  "getpriority",
  "getrandom",
  "getrusage",
  "getsockname",
  "getsockopt",
  "gettid",
  "getuid",
  "getxattr",
  "inotify_add_watch",
  "inotify_init1",
  "ioctl",
  "kill",
  "link",
  "linkat",
  "listen",
  "listxattr",
  "llistxattr",
  "lseek",
  "madvise",
  "mkdir",
  "mkdirat",
  "mknodat",
  "mmap",
  "mprotect",
  "mremap",
  "msync",
  "munmap",
  "newfstatat",
  "open",
  "openat",
  "pause",
  "personality",
  "pipe2",
  "pkey_alloc",
  "poll",
  "prctl",
  "pread64",
  "prlimit64",
  "process_vm_readv",
  "pselect6",
  "ptrace",
  "pwrite64",
  "read",
  "readlink",
  "readlinkat",
  "recvfrom",
  "recvmsg",
  "removexattr",
  "rename",
  "renameat2",
  "rmdir",
  "rseq",
  "rt_sigaction",
  "rt_sigprocmask",
  "rt_sigqueueinfo",
  "rt_sigreturn",
  "rt_sigsuspend",
  "rt_sigtimedwait",
  "sched_getaffinity",
  "sched_setaffinity",
  "sched_yield",
  "sendfile",
  "sendmsg",
  "sendto",
  "set_robust_list",
  "set_tid_address",
  "setitimer",
  "setpgid",
  "setpriority",
  "setresgid",
  "setresuid",
  "setsid",
  "setsockopt",
  "setxattr",
  "shutdown",
  "sigaltstack",
  "signalfd4",
  "socket",
  "socketpair",
  "stat",
  "statfs",
  "statx",
  "symlink",
  "symlinkat",
  "sysinfo",
  "timer_create",
  "timer_settime",
  "timerfd_create",
  "timerfd_settime",
  "tkill",
  "umask",
  "uname",
  "unlink",
  "unlinkat",
  "unshare",
  "utimensat",
  "vfork",
  "wait4",
  "write",
  "writev",
};

/* Every call of the corpus reaches the kernel under strict, or is handled as in the default
   policy (supervised, ENOSYS for clone3, ptrace denied unless allowed), but for the documented
   refusal of pkey_alloc (V8 runs without protection keys on ENOSYS).  */
static int
test_corpus_allowed (void)
{
  static const char *const refused[] = { "pkey_alloc" };
  struct policy d, s;

  if (init (&d, "x86_64", false) < 0 || init (&s, "x86_64", true) < 0)
    return -1;
  for (size_t i = 0; i < ARRAY_SIZE (corpus); i++)
    {
      const struct sc_entry *e = find (&s, corpus[i]);
      bool documented = false;

      for (size_t k = 0; k < ARRAY_SIZE (refused); k++)
        documented |= strcmp (refused[k], corpus[i]) == 0;
      if (e == NULL)
        TAP_FAIL ("`%s` has no entry", corpus[i]);
      if (documented)
        CHECK (e->tier == SC_DENY && e->err == ENOSYS);
      else if (!reachable (e) && e != find (&d, corpus[i]))
        TAP_FAIL ("`%s`, which the corpus makes, is refused under strict (%s)", corpus[i], e->rule);
    }
  policy_release (&d);
  policy_release (&s);
  return 0;
}

/* A classic-BPF interpreter for seccomp filters (what libseccomp emits): the filter's action
   for `d`, and whether it read an argument (or the instruction pointer) on the way.  -1: an
   instruction it does not know.  */
static int64_t
run_bpf (const struct seccomp_prog *prog, const struct seccomp_data *d, bool *read_args)
{
  uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
  const unsigned char *data = (const unsigned char *) d;

  *read_args = false;
  for (unsigned pc = 0; pc < prog->len; pc++)
    {
      const struct sock_filter *f = &prog->insns[pc];
      bool jump;

      switch (f->code)
        {
        case BPF_LD | BPF_W | BPF_ABS:
          if (f->k + 4 > sizeof *d)
            return -1;
          memcpy (&a, data + f->k, 4);
          *read_args |= f->k >= offsetof (struct seccomp_data, instruction_pointer);
          continue;
        case BPF_LD | BPF_MEM:
          a = mem[f->k % BPF_MEMWORDS];
          continue;
        case BPF_LDX | BPF_MEM:
          x = mem[f->k % BPF_MEMWORDS];
          continue;
        case BPF_ST:
          mem[f->k % BPF_MEMWORDS] = a;
          continue;
        case BPF_STX:
          mem[f->k % BPF_MEMWORDS] = x;
          continue;
        case BPF_ALU | BPF_AND | BPF_K:
          a &= f->k;
          continue;
        case BPF_MISC | BPF_TAX:
          x = a;
          continue;
        case BPF_MISC | BPF_TXA:
          a = x;
          continue;
        case BPF_RET | BPF_K:
          return f->k;
        case BPF_JMP | BPF_JA:
          pc += f->k;
          continue;
        case BPF_JMP | BPF_JEQ | BPF_K:
          jump = a == f->k;
          break;
        case BPF_JMP | BPF_JGT | BPF_K:
          jump = a > f->k;
          break;
        case BPF_JMP | BPF_JGE | BPF_K:
          jump = a >= f->k;
          break;
        case BPF_JMP | BPF_JSET | BPF_K:
          jump = (a & f->k) != 0;
          break;
        default:
          printf ("# unknown BPF instruction %#x at %u\n", f->code, pc);
          return -1;
        }
      pc += jump ? f->jt : f->jf;
    }
  return -1;
}

struct filter
{
  struct seccomp_prog prog;
  struct policy p;
};

static int
compile (struct filter *f, bool strict)
{
  ar_error_t err = NULL;

  memset (f, 0, sizeof *f);
  if (init (&f->p, "x86_64", strict) < 0)
    return -1;
  if (policy_compile (&f->p, &f->prog, &err) < 0)
    TAP_FAIL ("policy_compile: %s", err->msg);
  return 0;
}

static void
filter_release (struct filter *f)
{
  seccomp_prog_release (&f->prog);
  policy_release (&f->p);
}

/* The action of `f` for call `name` with arguments a0…a3.  */
static int64_t
action (const struct filter *f, const char *name, uint64_t a0, uint64_t a1, uint64_t a2,
        uint64_t a3, bool *read_args)
{
  struct seccomp_data d = { .arch = AUDIT_ARCH_X86_64, .args = { a0, a1, a2, a3 } };
  int nr = seccomp_syscall_resolve_name_arch (SCMP_ARCH_X86_64, name);
  bool dummy;

  d.nr = nr;
  return run_bpf (&f->prog, &d, read_args ? read_args : &dummy);
}

#define ALLOWED(f, name, a0, a1, a2, a3) \
  (action ((f), (name), (a0), (a1), (a2), (a3), NULL) == SECCOMP_RET_ALLOW)
#define NOTIFIED(f, name, a0, a1, a2, a3) \
  (action ((f), (name), (a0), (a1), (a2), (a3), NULL) == SECCOMP_RET_USER_NOTIF)

static int
test_filter (void)
{
  struct filter s, d;
  int ret = -1;

  if (compile (&s, true) < 0 || compile (&d, false) < 0)
    return -1;
  printf ("# x86_64 filter: default %u instructions, strict %u\n", d.prog.len, s.prog.len);
  /* Off the list: to the supervisor; in the default tier: allowed.  */
  CHECK (NOTIFIED (&s, "shmget", 0, 4096, 0, 0) && ALLOWED (&d, "shmget", 0, 4096, 0, 0));
  CHECK (NOTIFIED (&s, "syncfs", 3, 0, 0, 0));
  /* socket: unix, inet stream and datagram, netlink route; not raw, packet, other netlink.  */
  CHECK (ALLOWED (&s, "socket", AF_UNIX, SOCK_DGRAM, 0, 0));
  CHECK (ALLOWED (&s, "socket", AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, 0));
  CHECK (ALLOWED (&s, "socket", AF_INET6, SOCK_DGRAM, 0, 0));
  CHECK (NOTIFIED (&s, "socket", AF_INET, SOCK_RAW, 1, 0));
  CHECK (NOTIFIED (&s, "socket", AF_INET6, SOCK_PACKET, 0, 0));
  CHECK (NOTIFIED (&s, "socket", AF_PACKET, SOCK_DGRAM, 0, 0));
  CHECK (ALLOWED (&s, "socket", AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE, 0));
  CHECK (NOTIFIED (&s, "socket", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, 0));
  CHECK (ALLOWED (&d, "socket", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, 0));
  CHECK (ALLOWED (&s, "socketpair", AF_UNIX, SOCK_STREAM, 0, 0));
  CHECK (NOTIFIED (&s, "socketpair", AF_INET, SOCK_STREAM, 0, 0));
  /* ioctl: the families of the list, on the low word only as the kernel reads it.  */
  CHECK (ALLOWED (&s, "ioctl", 0, TCGETS, 0, 0) && ALLOWED (&s, "ioctl", 0, TIOCGWINSZ, 0, 0));
  CHECK (ALLOWED (&s, "ioctl", 0, TCGETS | 1ULL << 32, 0, 0));
  CHECK (ALLOWED (&s, "ioctl", 0, TIOCSPGRP, 0, 0) && ALLOWED (&s, "ioctl", 0, FIOCLEX, 0, 0));
  CHECK (ALLOWED (&s, "ioctl", 0, FIONREAD, 0, 0) && ALLOWED (&s, "ioctl", 0, TIOCGPTN, 0, 0));
  CHECK (ALLOWED (&s, "ioctl", 0, 0x8933 /* SIOCGIFINDEX */, 0, 0));
  CHECK (NOTIFIED (&s, "ioctl", 0, TIOCSTI, 0, 0) && NOTIFIED (&s, "ioctl", 0, TIOCLINUX, 0, 0));
  CHECK (NOTIFIED (&s, "ioctl", 0, TIOCSETD, 0, 0) && NOTIFIED (&s, "ioctl", 0, 0x1234, 0, 0));
  CHECK (NOTIFIED (&s, "ioctl", 0, 0x8914 /* SIOCSIFFLAGS */, 0, 0));
  CHECK (ALLOWED (&d, "ioctl", 0, TIOCSETD, 0, 0) && NOTIFIED (&d, "ioctl", 0, TIOCSTI, 0, 0));
  /* prctl, fcntl, madvise, mremap.  */
  CHECK (ALLOWED (&s, "prctl", PR_SET_NAME, 0, 0, 0)
         && ALLOWED (&s, "prctl", PR_SET_PTRACER, 1, 0, 0));
  CHECK (NOTIFIED (&s, "prctl", PR_SET_MM, 1, 0, 0) && NOTIFIED (&s, "prctl", 59, 0, 0, 0));
  CHECK (ALLOWED (&s, "fcntl", 0, F_GETFD, 0, 0)
         && ALLOWED (&s, "fcntl", 0, F_DUPFD_CLOEXEC, 3, 0));
  CHECK (ALLOWED (&s, "fcntl", 0, F_OFD_SETLKW, 0, 0)
         && ALLOWED (&s, "fcntl", 0, F_ADD_SEALS, 0, 0));
  CHECK (NOTIFIED (&s, "fcntl", 0, F_SETLEASE, 0, 0) && NOTIFIED (&s, "fcntl", 0, F_NOTIFY, 0, 0));
  CHECK (ALLOWED (&s, "madvise", 0, 4096, MADV_DONTNEED, 0));
  CHECK (ALLOWED (&s, "madvise", 0, 4096, MADV_HUGEPAGE, 0));
  CHECK (NOTIFIED (&s, "madvise", 0, 4096, MADV_MERGEABLE, 0));
  CHECK (NOTIFIED (&s, "madvise", 0, 4096, MADV_HWPOISON, 0));
  CHECK (ALLOWED (&s, "mremap", 0, 4096, 8192, MREMAP_MAYMOVE));
  CHECK (NOTIFIED (&s, "mremap", 0, 4096, 4096, MREMAP_MAYMOVE | 4 /* DONTUNMAP */));
  ret = 0;
  filter_release (&s);
  filter_release (&d);
  return ret;
}

/* The arguments the corpus gives the calls strict narrows (tests/corpus/syscall-args-x86_64.txt
   of the corpus's branch, perf on the sys_enter tracepoints under runc): each one is allowed in
   the kernel under strict.  */
static int
test_corpus_args_allowed (void)
{
  static const struct
  {
    const char *name;
    uint64_t a[4];
  } used[] = {
    { "fcntl", { 0x0, 0x0, 0x0, 0x0 } },        { "fcntl", { 0x0, 0x1, 0x0, 0x0 } },
    { "fcntl", { 0x0, 0x406, 0x0, 0x0 } },      { "fcntl", { 0x0, 0x408, 0x0, 0x0 } },
    { "fcntl", { 0x0, 0x2, 0x0, 0x0 } },        { "fcntl", { 0x0, 0x3, 0x0, 0x0 } },
    { "fcntl", { 0x0, 0x4, 0x0, 0x0 } },        { "fcntl", { 0x0, 0x5, 0x0, 0x0 } },
    { "fcntl", { 0x0, 0x6, 0x0, 0x0 } },        { "fcntl", { 0x0, 0x7, 0x0, 0x0 } },
    { "ioctl", { 0x0, 0x40045431, 0x0, 0x0 } }, { "ioctl", { 0x0, 0x40049409, 0x0, 0x0 } },
    { "ioctl", { 0x0, 0x5401, 0x0, 0x0 } },     { "ioctl", { 0x0, 0x5402, 0x0, 0x0 } },
    { "ioctl", { 0x0, 0x540e, 0x0, 0x0 } },     { "ioctl", { 0x0, 0x540f, 0x0, 0x0 } },
    { "ioctl", { 0x0, 0x5413, 0x0, 0x0 } },     { "ioctl", { 0x0, 0x5421, 0x0, 0x0 } },
    { "ioctl", { 0x0, 0x5441, 0x0, 0x0 } },     { "ioctl", { 0x0, 0x5451, 0x0, 0x0 } },
    { "ioctl", { 0x0, 0x80045430, 0x0, 0x0 } }, { "madvise", { 0x0, 0x1000, 0xa, 0x0 } },
    { "madvise", { 0x0, 0x1000, 0xf, 0x0 } },   { "madvise", { 0x0, 0x1000, 0x10, 0x0 } },
    { "madvise", { 0x0, 0x1000, 0x3, 0x0 } },   { "madvise", { 0x0, 0x1000, 0x4, 0x0 } },
    { "mremap", { 0x0, 0x1000, 0x2000, 0x1 } }, { "prctl", { 0x1, 0x0, 0x0, 0x0 } },
    { "prctl", { 0x59616d61, 0x0, 0x0, 0x0 } }, { "prctl", { 0xf, 0x0, 0x0, 0x0 } },
    { "prctl", { 0x17, 0x0, 0x0, 0x0 } },       { "prctl", { 0x3, 0x0, 0x0, 0x0 } },
    { "socket", { 0x1, 0x1, 0x0, 0x0 } },       { "socket", { 0xa, 0x1, 0x0, 0x0 } },
    { "socket", { 0xa, 0x2, 0x0, 0x0 } },       { "socket", { 0x2, 0x1, 0x0, 0x0 } },
    { "socket", { 0x2, 0x1, 0x6, 0x0 } },       { "socket", { 0x2, 0x2, 0x0, 0x0 } },
  };
  struct filter s;

  if (compile (&s, true) < 0)
    return -1;
  for (size_t i = 0; i < ARRAY_SIZE (used); i++)
    if (!ALLOWED (&s, used[i].name, used[i].a[0], used[i].a[1], used[i].a[2], used[i].a[3]))
      TAP_FAIL ("%s (%#llx, %#llx, %#llx, %#llx), which the corpus makes, is not allowed",
                used[i].name, (unsigned long long) used[i].a[0], (unsigned long long) used[i].a[1],
                (unsigned long long) used[i].a[2], (unsigned long long) used[i].a[3]);
  filter_release (&s);
  return 0;
}

/* The hot calls are allowed whatever their arguments, without the filter reading one: the
   kernel's action cache (seccomp_cache_prepare) then allows them without running the filter.
   So the strict tier costs them nothing; only the narrowed calls run it.  */
static int
test_hot_calls_cached (void)
{
  static const char *const hot[]
      = { "read",           "write",        "futex",      "mmap",          "munmap",
          "close",          "openat",       "newfstatat", "lseek",         "brk",
          "rt_sigprocmask", "rt_sigaction", "getpid",     "clock_gettime", "epoll_pwait",
          "ppoll",          "mprotect",     "pread64",    "getdents64" };
  static const uint64_t args[][4] = { { 0, 0, 0, 0 }, { ~0ULL, 1ULL << 40, 0x5412, 35 } };
  struct filter s;

  if (compile (&s, true) < 0)
    return -1;
  for (size_t i = 0; i < ARRAY_SIZE (hot); i++)
    for (size_t k = 0; k < ARRAY_SIZE (args); k++)
      {
        bool read_args;
        int64_t r = action (&s, hot[i], args[k][0], args[k][1], args[k][2], args[k][3], &read_args);
        if (r != SECCOMP_RET_ALLOW || read_args)
          TAP_FAIL ("`%s`: action %#llx, %s its arguments", hot[i], (long long) r,
                    read_args ? "reads" : "does not read");
      }
  /* The check itself sees an argument read: the narrowed ioctl does read one.  */
  {
    bool read_args;
    CHECK (action (&s, "ioctl", 0, TCGETS, 0, 0, &read_args) == SECCOMP_RET_ALLOW && read_args);
  }
  filter_release (&s);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_counts);
  RUN_TEST (test_same_list_by_name);
  RUN_TEST (test_entries);
  RUN_TEST (test_corpus_allowed);
  RUN_TEST (test_filter);
  RUN_TEST (test_corpus_args_allowed);
  RUN_TEST (test_hot_calls_cached);
  TAP_END ();
}
