/* The seccomp filter generated from a policy.  The default action is SCMP_ACT_NOTIFY, so deny
   and supervise entries need no rule, and a number the table does not name (a syscall newer
   than it) reaches the supervisor too.  Only allow, allow-if and errno entries become rules.

   Arguments the kernel declares int (ioctl's request, unshare's flags, personality, socket's
   domain) are compared on their low 32 bits only, because the kernel drops the rest: a rule
   that looked at all 64 would let TIOCSTI | 1 << 32 pass as "not TIOCSTI" and the kernel would
   run TIOCSTI.  SCMP_CMP32 alone does not do that: it only truncates the datum, and the BPF
   still tests the high word (SCMP_A1_32 (SCMP_CMP_NE, TIOCSTI) allows any call whose high word
   is not 0).  What does is SCMP_CMP_MASKED_EQ with a mask that has no high bits, whose high-word
   test is `hi & 0 == 0`, always true.  libseccomp has neither a masked "not equal" nor two tests
   of one argument in a rule, so "low word not in a set" is built from masked equalities that
   cover its complement (allow_outside).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include "policy/policy.h"
#include "utils.h"

#define NS_FLAGS                                                                              \
  (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID \
   | CLONE_NEWNET | CLONE_NEWTIME)

#define LOW32 0xffffffffu

/* personality's flags that SCOND_PERSONALITY_DEFAULT allows (add_cond says why).  */
#define PERSONALITY_HARMLESS (ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT | READ_IMPLIES_EXEC)

static void
ctx_releasep (scmp_filter_ctx *ctx)
{
  if (*ctx)
    seccomp_release (*ctx);
}
#define cleanup_scmp_ctx __attribute__ ((cleanup (ctx_releasep)))

/* What a rule is added for: the libseccomp context, the syscall number to give it, and the
   entry (for messages).  */
struct rule_site
{
  scmp_filter_ctx ctx;
  int nr;
  const struct sc_entry *e;
};

static int
add_rule (const struct rule_site *s, uint32_t action, unsigned n, const struct scmp_arg_cmp *cmp,
          ar_error_t *err)
{
  int ret = seccomp_rule_add_array (s->ctx, action, s->nr, n, cmp);

  if (ret < 0)
    return ar_make_error (err, -ret, "agentrt policy: add the rule for `%s`", s->e->name);
  return 0;
}

/* Allowed when the low word of argument `arg`, masked with `mask`, equals `value`.  */
static int
allow_masked (const struct rule_site *s, unsigned arg, uint32_t mask, uint32_t value,
              ar_error_t *err)
{
  struct scmp_arg_cmp cmp = SCMP_CMP32 (arg, SCMP_CMP_MASKED_EQ, mask, value);

  return add_rule (s, SCMP_ACT_ALLOW, 1, &cmp, err);
}

static int
allow_in_set (const struct rule_site *s, unsigned arg, const uint32_t *set, size_t n,
              ar_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    if (allow_masked (s, arg, LOW32, set[i], err) < 0)
      return -1;
  return 0;
}

/* A set of low words: those whose bits under `mask` equal `value` (mask LOW32: one value).  */
struct masked
{
  uint32_t mask, value;
};

static int
allow_masked_set (const struct rule_site *s, unsigned arg, const struct masked *set, size_t n,
                  ar_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    if (allow_masked (s, arg, set[i].mask, set[i].value, err) < 0)
      return -1;
  return 0;
}

/* Allow the low words of argument `arg` that start with the top `len` bits of `prefix`, except
   the values in `bad`: a subtree without bad values is one rule; one with some is split on its
   next bit.  For k bad values this is at most 32·k rules (34 for TIOCSTI and TIOCLINUX, which
   share their top 28 bits).  */
static int
allow_outside (const struct rule_site *s, unsigned arg, uint32_t prefix, unsigned len,
               const uint32_t *bad, size_t n_bad, ar_error_t *err)
{
  uint32_t mask = len == 0 ? 0 : LOW32 << (32 - len);
  bool hit = false;

  for (size_t i = 0; i < n_bad; i++)
    hit |= (bad[i] & mask) == prefix;
  if (!hit)
    return allow_masked (s, arg, mask, prefix, err);
  if (len == 32)
    return 0; /* a bad value itself */
  if (allow_outside (s, arg, prefix, len + 1, bad, n_bad, err) < 0)
    return -1;
  return allow_outside (s, arg, prefix | 1u << (31 - len), len + 1, bad, n_bad, err);
}

/* The strict tier's narrowing (policy.h, strict_cond).  Each is an allowlist of argument values,
   measured on the compatibility corpus (strace -f: which requests, options, commands and advice
   its programs pass) and completed by what the kernel groups with them.  The most frequent value
   comes first: a call with an argument condition is never in the kernel's action cache, so the
   filter runs for each, and stops at the first rule that allows it.  */

/* socket: AF_UNIX of any type; AF_INET and AF_INET6 stream or datagram only (not SOCK_RAW nor
   SOCK_PACKET: raw packets are what CAP_NET_RAW in the container's own user namespace would
   otherwise open to it), and of those only TCP, UDP and ping (ICMP datagrams) or protocol 0:
   a stream of IPPROTO_MPTCP or IPPROTO_SCTP, a datagram of IPPROTO_UDPLITE are other protocol
   stacks, and an unknown one makes the kernel load its module (net-pf-2-proto-N) for anyone;
   AF_NETLINK with NETLINK_ROUTE only (glibc's getaddrinfo and `ip` read addresses and routes
   with it; the other families are kernel subsystems: audit, netfilter, xfrm, generic
   netlink…).  The type's low 4 bits are the type, the rest SOCK_NONBLOCK and SOCK_CLOEXEC.  */
static int
add_socket_strict (const struct rule_site *s, ar_error_t *err)
{
  static const struct
  {
    uint32_t family, type, protocol;
  } inet[] = {
    { AF_INET, SOCK_STREAM, 0 },
    { AF_INET, SOCK_STREAM, IPPROTO_TCP },
    { AF_INET, SOCK_DGRAM, 0 },
    { AF_INET, SOCK_DGRAM, IPPROTO_UDP },
    { AF_INET, SOCK_DGRAM, IPPROTO_ICMP },
    { AF_INET6, SOCK_STREAM, 0 },
    { AF_INET6, SOCK_STREAM, IPPROTO_TCP },
    { AF_INET6, SOCK_DGRAM, 0 },
    { AF_INET6, SOCK_DGRAM, IPPROTO_UDP },
    { AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6 },
  };
  struct scmp_arg_cmp cmp[3];

  if (allow_masked (s, 0, LOW32, AF_UNIX, err) < 0)
    return -1;
  for (size_t i = 0; i < ARRAY_SIZE (inet); i++)
    {
      cmp[0] = SCMP_CMP32 (0, SCMP_CMP_MASKED_EQ, LOW32, inet[i].family);
      cmp[1] = SCMP_CMP32 (1, SCMP_CMP_MASKED_EQ, 0xf, inet[i].type);
      cmp[2] = SCMP_CMP32 (2, SCMP_CMP_MASKED_EQ, LOW32, inet[i].protocol);
      if (add_rule (s, SCMP_ACT_ALLOW, 3, cmp, err) < 0)
        return -1;
    }
  cmp[0] = SCMP_CMP32 (0, SCMP_CMP_MASKED_EQ, LOW32, AF_NETLINK);
  cmp[1] = SCMP_CMP32 (2, SCMP_CMP_MASKED_EQ, LOW32, NETLINK_ROUTE);
  return add_rule (s, SCMP_ACT_ALLOW, 2, cmp, err);
}

/* ioctl: request families programs use on their own terminals, files and sockets.  Left out:
   TIOCSTI and TIOCLINUX (input injection, as in the default tier), TIOCCONS, TIOCSETD (line
   disciplines: n_gsm, n_hdlc… kernel code a pty reaches), modem and serial control, console
   and VT requests, block, loop, device-mapper, tun, netfilter and the interface-setting
   SIOCSIF*; a refused one gets ENOTTY, the kernel's own answer to a request a file does not
   support.  The numbers are asm-generic's, x86_64's and aarch64's alike.  */
static const struct masked ioctl_strict[] = {
  { LOW32, TCGETS }, /* isatty(), by far the most frequent (2952 of 3206 in the corpus) */
  { LOW32, TIOCGWINSZ },
  { 0xfffffff0, 0x5400 }, /* TCGETS…TCSETAF, TCSBRK, TCXONC, TCFLSH, TIOCEXCL,
                             TIOCNXCL, TIOCSCTTY, TIOCGPGRP */
  { LOW32, TIOCSPGRP },   /* job control */
  { LOW32, TIOCOUTQ },    /* also SIOCOUTQ */
  { LOW32, TIOCSWINSZ },
  { LOW32, FIONREAD }, /* also TIOCINQ, SIOCINQ */
  { LOW32, TIOCPKT },  /* script, tmux */
  { LOW32, FIONBIO },
  { LOW32, TIOCNOTTY },
  { LOW32, TIOCGETD },
  { LOW32, TCSBRKP },
  { LOW32, TIOCGSID },
  { LOW32, 0x802c542a }, /* TCGETS2 (glibc 2.42 uses termios2) */
  { LOW32, 0x402c542b }, /* TCSETS2 */
  { LOW32, 0x402c542c }, /* TCSETSW2 */
  { LOW32, 0x402c542d }, /* TCSETSF2 */
  { LOW32, TIOCGPTN },   /* ptys: ptsname, grantpt, unlockpt, openpty */
  { LOW32, TIOCSPTLCK },
  { LOW32, TIOCGPTLCK },
  { LOW32, TIOCGPTPEER },
  { LOW32, TIOCSIG }, /* a signal to a pty's foreground group (screen, sshd) */
  { LOW32, TIOCGPKT },
  { 0xfffffffe, FIONCLEX }, /* FIONCLEX, FIOCLEX */
  { LOW32, FIOASYNC },
  { LOW32, FIOQSIZE },
  { LOW32, FIGETBSZ },
  { LOW32, FS_IOC_GETFLAGS }, /* lsattr, chattr, cp -a */
  { LOW32, FS_IOC_SETFLAGS },
  { LOW32, FS_IOC_GETVERSION },
  { LOW32, FS_IOC_FSGETXATTR },
  { LOW32, 0xc020660b }, /* FS_IOC_FIEMAP: sparse-aware copies */
  { LOW32, FICLONE },    /* cp's reflink=auto, the default since coreutils 9 */
  { LOW32, FICLONERANGE },
  { LOW32, FIDEDUPERANGE },
  { LOW32, SIOCATMARK }, /* sockets */
  { LOW32, SIOCGSTAMP },
  { LOW32, SIOCGSTAMPNS },
  { LOW32, SIOCGIFNAME }, /* interface queries: ifconfig, ip, netifaces, psutil */
  { LOW32, SIOCGIFCONF },
  { LOW32, SIOCGIFFLAGS },
  { LOW32, SIOCGIFADDR },
  { LOW32, SIOCGIFDSTADDR },
  { LOW32, SIOCGIFBRDADDR },
  { LOW32, SIOCGIFNETMASK },
  { LOW32, SIOCGIFMETRIC },
  { LOW32, SIOCGIFMTU },
  { LOW32, SIOCGIFHWADDR },
  { LOW32, SIOCGIFINDEX },
  { LOW32, SIOCGIFTXQLEN },
  { LOW32, 0x80045200 }, /* RNDGETENTCNT: OpenSSL and Python check /dev/random */
};

/* prctl: the options libcs, language runtimes, sanitizers and process tools use.  Left out:
   PR_SET_MM (what /proc/PID/exe names), PR_SET_SYSCALL_USER_DISPATCH, the KSM switches
   (PR_SET_MEMORY_MERGE), PR_SET_IO_FLUSHER, PR_SCHED_CORE, PR_SET_TSC, PR_MCE_KILL,
   PR_TASK_PERF_EVENTS_*, and whatever the kernel adds next.  */
static const uint32_t prctl_strict[] = {
  PR_SET_NAME, /* the most frequent: thread names */
  PR_GET_NAME,
  PR_SET_VMA, /* glibc names its anonymous mappings */
  PR_SET_PDEATHSIG,
  PR_GET_PDEATHSIG,
  PR_GET_DUMPABLE,
  PR_SET_DUMPABLE,
  PR_GET_KEEPCAPS,
  PR_SET_KEEPCAPS,
  PR_GET_SECCOMP,
  PR_SET_SECCOMP, /* a filter of the workload's own: never a listener this way */
  PR_CAPBSET_READ,
  PR_CAPBSET_DROP,
  PR_GET_SECUREBITS,
  PR_SET_SECUREBITS,
  PR_SET_TIMERSLACK,
  PR_GET_TIMERSLACK,
  PR_SET_CHILD_SUBREAPER, /* tini, dumb-init, make's jobserver helpers */
  PR_GET_CHILD_SUBREAPER,
  PR_SET_NO_NEW_PRIVS,
  PR_GET_NO_NEW_PRIVS,
  PR_GET_TID_ADDRESS,
  PR_SET_THP_DISABLE,
  PR_GET_THP_DISABLE,
  PR_CAP_AMBIENT,
  PR_GET_SPECULATION_CTRL,
  PR_SET_SPECULATION_CTRL,
  PR_SET_PTRACER, /* LeakSanitizer's stop-the-world, gdb's helpers */
  0x41555856,     /* PR_GET_AUXV */
  50,
  51,
  63,
  64, /* PR_SVE_SET_VL, PR_SVE_GET_VL, PR_SME_SET_VL, PR_SME_GET_VL: glibc
         on aarch64 */
  55,
  56, /* PR_SET_TAGGED_ADDR_CTRL, PR_GET_TAGGED_ADDR_CTRL: MTE */
  65,
  66, /* PR_SET_MDWE, PR_GET_MDWE: memory-deny-write-execute */
  74,
  75,
  76, /* PR_GET/SET/LOCK_SHADOW_STACK_STATUS: glibc with arm64 GCS */
};

/* fcntl: every command the kernel knows but F_SETLEASE (a lease lets the workload stall
   another opener of the file, the host's included, for lease-break-time) and F_NOTIFY
   (dnotify, which inotify replaced and whose marks escape the fsnotify cap).  */
static const struct masked fcntl_strict[] = {
  { 0xfffffff8, 0 },    /* F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK, F_SETLK(W) */
  { 0xfffffffc, 8 },    /* F_SETOWN, F_GETOWN, F_SETSIG, F_GETSIG */
  { LOW32, 15 },        /* F_SETOWN_EX */
  { LOW32, 16 },        /* F_GETOWN_EX */
  { LOW32, 17 },        /* F_GETOWNER_UIDS */
  { 0xfffffffc, 36 },   /* F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW */
  { LOW32, 1025 },      /* F_GETLEASE */
  { LOW32, 1027 },      /* F_DUPFD_QUERY */
  { LOW32, 1028 },      /* F_CREATED_QUERY */
  { 0xfffffffe, 1030 }, /* F_DUPFD_CLOEXEC, F_SETPIPE_SZ */
  { 0xfffffff8, 1032 }, /* F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS, the write-life hints */
};

/* madvise: all advice but MADV_MERGEABLE and MADV_UNMERGEABLE (KSM: merging pages across
   containers is a timing side channel between them) and MADV_HWPOISON and MADV_SOFT_OFFLINE
   (memory-failure injection).  */
static const struct masked madvise_strict[] = {
  { 0xfffffff8, 0 },   /* NORMAL, RANDOM, SEQUENTIAL, WILLNEED, DONTNEED (allocators) */
  { 0xfffffffc, 8 },   /* FREE, REMOVE, DONTFORK, DOFORK */
  { 0xfffffffe, 14 },  /* HUGEPAGE, NOHUGEPAGE */
  { 0xfffffff8, 16 },  /* DONTDUMP, DODUMP, WIPEONFORK, KEEPONFORK, COLD, PAGEOUT,
                          POPULATE_READ, POPULATE_WRITE */
  { 0xfffffffe, 24 },  /* DONTNEED_LOCKED, COLLAPSE */
  { 0xfffffffe, 102 }, /* GUARD_INSTALL, GUARD_REMOVE */
};

static int
add_strict_cond (const struct rule_site *s, ar_error_t *err)
{
  switch (s->e->cond)
    {
    case SCOND_SOCKET_STRICT:
      return add_socket_strict (s, err);
    case SCOND_SOCKETPAIR_STRICT:
      return allow_masked (s, 0, LOW32, AF_UNIX, err);
    case SCOND_IOCTL_STRICT:
      return allow_masked_set (s, 1, ioctl_strict, ARRAY_SIZE (ioctl_strict), err);
    case SCOND_PRCTL_STRICT:
      return allow_in_set (s, 0, prctl_strict, ARRAY_SIZE (prctl_strict), err);
    case SCOND_FCNTL_STRICT:
      return allow_masked_set (s, 1, fcntl_strict, ARRAY_SIZE (fcntl_strict), err);
    case SCOND_MADVISE_STRICT:
      return allow_masked_set (s, 2, madvise_strict, ARRAY_SIZE (madvise_strict), err);
    case SCOND_MREMAP_STRICT:
      /* Not MREMAP_DONTUNMAP, which leaves the old range mapped and empty (userfaultfd's
         garbage collectors; no libc or runtime of the corpus).  */
      return allow_masked (s, 3, ~(uint32_t) (MREMAP_MAYMOVE | MREMAP_FIXED), 0, err);
    default:
      return ar_make_error (err, EINVAL, "agentrt policy: `%s` is allow-if without a condition",
                            s->e->name);
    }
}

/* The allow rules of an allow-if entry; a call that fails them gets the default, NOTIFY.  */
static int
add_cond (const struct rule_site *s, ar_error_t *err)
{
  static const uint32_t families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
  static const uint32_t tty_inject[] = { TIOCSTI, TIOCLINUX };
  static const uint32_t set_mm[] = { 35 /* PR_SET_MM */ };

  switch (s->e->cond)
    {
    case SCOND_CLONE_NO_NS:
      /* Flags are argument 0 of clone on x86_64 and aarch64 alike (the two differ only in
         where tls and child_tid go), and the kernel uses their low word only.  CLONE_UNTRACED
         too, on the ptrace platform: its child would escape the tracer, and its denied calls,
         failing with ENOSYS, the audit log.  */
      return allow_masked (s, 0, NS_FLAGS | CLONE_UNTRACED, 0, err);
    case SCOND_CLONE_NO_NS_UNTRACED:
      /* Where no tracer of ours follows every process, CLONE_UNTRACED only keeps the child
         from a tracer of the workload's own (LeakSanitizer's StopTheWorld makes its tracer
         with it, which a debugger of the program must not trace).  Not for a thread: the kill
         switch traces the init's threads (PTRACE_O_TRACECLONE) so that its SIGKILL reaches a
         process whose main thread has exited alone (tracer.c).  */
      if (allow_masked (s, 0, NS_FLAGS | CLONE_UNTRACED, 0, err) < 0)
        return -1;
      return allow_masked (s, 0, NS_FLAGS | CLONE_UNTRACED | CLONE_THREAD, CLONE_UNTRACED, err);
    case SCOND_UNSHARE_NO_NS:
      return allow_masked (s, 0, NS_FLAGS, 0, err);
    case SCOND_SOCKET_FAMILY:
      return allow_in_set (s, 0, families, sizeof families / sizeof families[0], err);
    case SCOND_SECCOMP_NO_LISTENER:
      /* A listener of the workload's own would outrank the policy on the ptrace platform (the
         kernel takes a notify over a trace) and could let any call run; on the seccomp
         platform the kernel refuses a second listener anyway (EBUSY).  */
      return allow_masked (s, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, err);
    case SCOND_PERSONALITY_DEFAULT:
      /* PER_LINUX with flags that change only the caller's own address space, each cleared by
         the kernel on a set-id execve (PER_CLEAR_ON_SETID): ADDR_NO_RANDOMIZE (gdb's run,
         setarch -R), ADDR_COMPAT_LAYOUT (setarch -L) and READ_IMPLIES_EXEC (setarch -X; the
         process could map PROT_EXEC itself).  Still refused: MMAP_PAGE_ZERO, which maps page 0
         at exec, below mmap_min_addr (a kernel NULL dereference's friend, CVE-2009-1895); the
         32-bit address limits and STICKY_TIMEOUTS, which no 64-bit program needs; PER_LINUX32
         and UNAME26, whose only effect is what uname says, which the supervisor emulates and
         would not change (a clear EPERM over a wrong answer).  */
      if (allow_masked (s, 0, LOW32 & ~PERSONALITY_HARMLESS, 0, err) < 0)
        return -1;
      return allow_masked (s, 0, LOW32, 0xffffffff /* the query */, err);
    case SCOND_PRCTL_NO_SET_MM:
      return allow_outside (s, 0, 0, 0, set_mm, 1, err);
    case SCOND_IOCTL_SAFE:
      return allow_outside (s, 1, 0, 0, tty_inject, sizeof tty_inject / sizeof tty_inject[0], err);
    default:
      return add_strict_cond (s, err);
    }
}

static int
add_entry (const struct rule_site *s, ar_error_t *err)
{
  switch (s->e->tier)
    {
    case SC_ALLOW:
      return add_rule (s, SCMP_ACT_ALLOW, 0, NULL, err);
    case SC_ALLOW_IF:
      return add_cond (s, err);
    case SC_ERRNO:
      return add_rule (s, SCMP_ACT_ERRNO (s->e->err ? s->e->err : EPERM), 0, NULL, err);
    default:
      return 0; /* supervise, deny: the default action */
    }
}

/* The number to give libseccomp for syscall `nr` of the policy's architecture, or -1 to skip
   it.  libseccomp reads rule numbers as the native architecture's and translates them by name
   for the others, so a foreign table's entries go by name, and one newer than libseccomp
   cannot be expressed there: it is left to NOTIFY, where the supervisor's lookup finds it (a
   foreign table is generated for inspection and tests; on its own host it is native).  */
static int
rule_nr (bool native, int nr, const struct sc_entry *e)
{
  if (native)
    return nr;
  nr = seccomp_syscall_resolve_name (e->name);
  return nr == __NR_SCMP_ERROR ? -1 : nr;
}

static int
set_attrs (scmp_filter_ctx ctx, const struct policy *p, bool native, ar_error_t *err)
{
  int ret;

  /* Calls of another ABI (i386's int 0x80, x32) would bypass the table: kill.  */
  ret = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (ret == 0)
    ret = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0); /* the installer sets it */
  if (ret == 0)
    ret = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2); /* binary tree on the number */
  if (ret < 0)
    return ar_make_error (err, -ret, "agentrt policy: set the filter's attributes");
  if (native)
    return 0;
  ret = seccomp_arch_add (ctx, p->table->scmp_arch);
  if (ret == 0)
    ret = seccomp_arch_remove (ctx, SCMP_ARCH_NATIVE);
  if (ret < 0)
    return ar_make_error (err, -ret, "agentrt policy: make a filter for %s", p->table->arch);
  return 0;
}

int
policy_compile (const struct policy *p, struct seccomp_prog *out, ar_error_t *err)
{
  cleanup_scmp_ctx scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_NOTIFY);
  bool native = p->table->scmp_arch == seccomp_arch_native ();

  memset (out, 0, sizeof *out);
  if (ctx == NULL)
    return ar_make_error (err, ENOMEM, "agentrt policy: seccomp_init");
  if (set_attrs (ctx, p, native, err) < 0)
    return -1;
  for (size_t nr = 0; nr < p->n_nr; nr++)
    {
      const struct sc_entry *e = p->by_nr[nr];
      struct rule_site s = { .ctx = ctx, .e = e };

      if (e == NULL)
        continue;
      s.nr = rule_nr (native, (int) nr, e);
      if (s.nr == -1)
        continue;
      if (add_entry (&s, err) < 0)
        return -1;
    }
  if (seccomp_prog_from_ctx (ctx, "agentrt policy", out, err) < 0)
    return -1;
  out->notify = true;
  return 0;
}

/* A compiled policy is the same for every container of one agentrt binary, one libseccomp and one
   set of switches, and compiling it takes milliseconds (libseccomp): most of what the supervisor
   added to create and exec.  So it is kept in the state root, as crun keeps its seccomp cache: a
   file named after a hash of that identity, holding the identity and then the BPF, written
   atomically.  A file that is not ours (owner, mode, identity, size) is never used: the policy
   is compiled afresh and the file rewritten.  The root is root's, as are the state directories
   beside it, which can already decide more than a filter.  */
static char *
compiled_identity (const struct policy *p)
{
  const struct scmp_version *v = seccomp_version ();
  struct stat st;

  if (stat ("/proc/self/exe", &st) < 0 || v == NULL)
    return NULL;
  return xasprintf ("agentrt policy 1\nexe %llu:%llu:%lld.%09ld:%lld\nlibseccomp %u.%u.%u\n"
                    "arch %s\nallow_ptrace %d\ntracer_platform %d\ndeny_set_mm %d\nstrict %d\n",
                    (unsigned long long) st.st_dev, (unsigned long long) st.st_ino,
                    (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long) st.st_size,
                    v->major, v->minor, v->micro, p->table->arch, (int) p->opts.allow_ptrace,
                    (int) p->opts.tracer_platform, (int) p->opts.deny_set_mm, (int) p->opts.strict);
}

static char *
cache_name (const char *identity)
{
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

  for (const unsigned char *c = (const unsigned char *) identity; *c; c++)
    h = (h ^ *c) * 0x100000001b3ULL;
  /* '@' is not allowed in a container id: no state directory can have this name.  */
  return xasprintf ("policy@%016llx.bpf", (unsigned long long) h);
}

static bool
cache_read (int dirfd, const char *name, const char *identity, struct seccomp_prog *out)
{
  size_t idlen = strlen (identity) + 1;
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_free char *buf = NULL;
  struct stat st;
  size_t len = 0, n;

  if (fd < 0 || fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid ()
      || (st.st_mode & 022) != 0)
    return false;
  if (ar_read_fd (fd, name, idlen + 4096 * sizeof (struct sock_filter), &buf, &len, NULL) < 0
      || len <= idlen || memcmp (buf, identity, idlen) != 0)
    return false;
  n = len - idlen;
  if (n % sizeof (struct sock_filter) != 0 || n / sizeof (struct sock_filter) > 4096)
    return false;
  out->insns = xmalloc (n);
  memcpy (out->insns, buf + idlen, n);
  out->len = (unsigned short) (n / sizeof (struct sock_filter));
  out->notify = true;
  return true;
}

static void
cache_write (int dirfd, const char *name, const char *identity, const struct seccomp_prog *prog)
{
  size_t idlen = strlen (identity) + 1;
  size_t n = prog->len * sizeof (struct sock_filter);
  cleanup_free char *buf = xmalloc (idlen + n);

  memcpy (buf, identity, idlen);
  memcpy (buf + idlen, prog->insns, n);
  (void) ar_write_file_atomic (dirfd, name, buf, idlen + n, 0600, NULL); /* synced: written once */
}

int
policy_compile_cached (const struct policy *p, int dirfd, struct seccomp_prog *out, ar_error_t *err)
{
  cleanup_free char *identity = dirfd >= 0 ? compiled_identity (p) : NULL;
  cleanup_free char *name = identity ? cache_name (identity) : NULL;

  memset (out, 0, sizeof *out);
  if (name && cache_read (dirfd, name, identity, out))
    return 0;
  if (policy_compile (p, out, err) < 0)
    return -1;
  if (name)
    cache_write (dirfd, name, identity, out);
  return 0;
}

int
policy_to_trace (struct seccomp_prog *prog, ar_error_t *err)
{
  if (seccomp_prog_notify_to_trace (prog) == 0)
    return ar_make_error (err, EINVAL, "agentrt policy: the filter has no call for a tracer");
  return 0;
}
