/* agentrt's own system-call policy: the syscall table of each architecture, the seccomp filter
   generated from it, and the lookup the supervisor dispatches by.

   Every syscall libseccomp knows for an architecture has one entry, in one of these tiers:
     allow      decided in the kernel, no round trip (read, write, mmap, futex…);
     allow-if   allowed in the kernel when scalar arguments pass a BPF condition (clone without
                namespace flags, socket of a permitted family…); otherwise handed to the
                supervisor, whose handler refuses and audits it;
     supervise  every call goes to the supervisor (uname is emulated, execve audited…);
     deny       every call goes to the supervisor, which refuses it with EPERM and an audit
                record (the mount family, bpf, kexec…);
     errno      refused in the kernel with a fixed errno and no audit (clone3: ENOSYS, so libc
                falls back to clone).
   A syscall number no entry names (one newer than the table) goes to the supervisor, which
   answers ENOSYS and audits it.  Calls of another ABI (i386, x32 on x86_64) kill the process.

   Two policies are made from one table (struct policy_opts.strict):
     default    the tiers above: a deny list, whatever is not denied or supervised runs;
     strict     an allowlist: only entries marked strict (`strict` below, shared by name between
                x86_64 and aarch64 through table_generic.c) keep allow or allow-if; every other
                allow or allow-if entry goes to the supervisor, which refuses it with ENOSYS
                (what a kernel without the call says, so runtimes fall back) and a warn record,
                aggregated like any other.  An entry with a strict_cond is narrowed by argument
                under strict (ioctl to a list of request families…), refused with the errno the
                kernel gives an unknown argument.  supervise, deny and errno entries are the same
                in both.  */
#ifndef AGENTRT_POLICY_H
#define AGENTRT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agentrt/error.h"
#include "seccomp/bpf.h"

enum sc_tier
{
  SC_ALLOW,
  SC_ALLOW_IF,
  SC_SUPERVISE,
  SC_DENY,
  SC_ERRNO,
};

/* What the supervisor does with a call that reaches it.  */
enum sc_handler
{
  SH_NONE,     /* never reaches the supervisor (allow, errno) */
  SH_DENY,     /* EPERM (or the entry's errno), audit */
  SH_UNAME,    /* emulated: the configured release, the container's hostname */
  SH_SYSINFO,  /* emulated: the container's memory and uptime */
  SH_AFFINITY, /* sched_getaffinity emulated: the container's CPU count */
  SH_EXEC,     /* execve/execveat: audit path and argv, then the kernel runs it */
  SH_CONNECT,  /* connect: audit the address (the egress broker's place) */
  SH_BIND,     /* bind: audit the address */
  SH_FSNOTIFY, /* inotify_init*, fanotify_init: a cap on the container's live instances */
  SH_CLOCK,    /* adjtimex, clock_adjtime: a read of the clock's state runs, the rest EPERM */
  SH_UNKNOWN,  /* a number the table does not name: ENOSYS, audit */
  SH__N,
};

/* Live inotify instances, and fanotify groups, one container may hold.  The kernel's limit
   (fs.inotify.max_user_instances, user.max_fanotify_groups: 128 each) is per user and shared
   with every process of that user on the host; a container must not take all of it.  A
   container with a user namespace of its own gets this as its namespace's limit (the kernel
   counts, namespaces.c); for the rest the supervisor counts (handlers/fsnotify.c).  */
#define POLICY_FSNOTIFY_MAX 32

/* inotify watches, and fanotify marks, one container with a user namespace of its own may
   hold: its namespace's limits (user.max_inotify_watches, user.max_fanotify_marks).  Each
   watch pins an inode in the kernel (about 1.3 KiB with the mark: the kernel's own
   INOTIFY_WATCH_COST), so 16384 is about 21 MiB of kernel memory (the marks are charged to
   the container's memory cgroup): twice the kernel's old fixed default (8192), enough for a file
   watcher on a project without its dependency trees.  The host's per-user limits are sized from
   memory (192530 and 205032 on the 2-CPU test machine) and shared by every process of that user.
   Without a user namespace nothing caps them but the host's limit (README).  */
#define POLICY_FSNOTIFY_WATCHES_MAX 16384

/* BPF conditions of allow-if entries, on scalar arguments only.  */
enum sc_cond
{
  SCOND_NONE,
  SCOND_CLONE_NO_NS,          /* clone: flags carry no CLONE_NEW* bit, nor CLONE_UNTRACED */
  SCOND_CLONE_NO_NS_UNTRACED, /* clone: no CLONE_NEW* bit; CLONE_UNTRACED without CLONE_THREAD */
  SCOND_UNSHARE_NO_NS,        /* unshare: flags carry no CLONE_NEW* bit */
  SCOND_SOCKET_FAMILY,        /* socket/socketpair: AF_UNIX, AF_INET, AF_INET6, AF_NETLINK */
  SCOND_IOCTL_SAFE,           /* ioctl: request (low 32 bits) is not TIOCSTI or TIOCLINUX */
  SCOND_PERSONALITY_DEFAULT,  /* personality: PER_LINUX with harmless flags, or the query */
  SCOND_SECCOMP_NO_LISTENER,  /* seccomp: flags without SECCOMP_FILTER_FLAG_NEW_LISTENER */
  SCOND_PRCTL_NO_SET_MM,      /* prctl: option (low 32 bits) is not PR_SET_MM */
  /* The strict tier's narrowing (strict_cond): allowlists of argument values.  */
  SCOND_SOCKET_STRICT,     /* socket: AF_UNIX; AF_INET(6) stream or datagram; NETLINK_ROUTE */
  SCOND_SOCKETPAIR_STRICT, /* socketpair: AF_UNIX */
  SCOND_IOCTL_STRICT,      /* ioctl: terminal, FIO*, file-attribute and SIOCGIF* requests */
  SCOND_PRCTL_STRICT,      /* prctl: the options libcs, runtimes and tools use */
  SCOND_FCNTL_STRICT,      /* fcntl: the commands but F_SETLEASE, F_NOTIFY */
  SCOND_MADVISE_STRICT,    /* madvise: the advice but KSM's and the memory-failure injectors */
  SCOND_MREMAP_STRICT,     /* mremap: flags within MREMAP_MAYMOVE | MREMAP_FIXED */
  SCOND__N,
};

enum sc_severity
{
  SEV_NONE,  /* never audited */
  SEV_INFO,  /* audit-only calls: execve, connect, bind */
  SEV_WARN,  /* refused, but programs probe it innocently (unknown numbers, odd families) */
  SEV_ALERT, /* an escape or tampering attempt: the deny list */
};

struct sc_entry
{
  const char *name; /* libseccomp's name for it */
  uint8_t tier;     /* enum sc_tier */
  uint8_t handler;  /* enum sc_handler: for allow-if, what handles a call failing the condition */
  uint8_t cond;     /* enum sc_cond, for allow-if */
  uint8_t severity; /* enum sc_severity of its audit record */
  uint16_t err;     /* errno for SC_ERRNO and SH_DENY (0: EPERM) */
  uint16_t new_nr;  /* nonzero: its number, for syscalls newer than libseccomp 2.5.4 knows
                       (the generic numbers from 424 on are the same on x86_64 and aarch64) */
  const char *rule; /* the rule name in audit records and `policy show`: "deny-mount", … */
  /* For allow and allow-if entries: kept by the strict tier (the allowlist), and the condition
     that narrows it there (SCOND_NONE: as in the default tier).  */
  bool strict;
  uint8_t strict_cond;
};

/* The table of one architecture.  Entries may come from several parts (the generic syscalls
   both architectures share, then the architecture's own), each ended by a NULL name.  */
struct sc_table
{
  const char *arch;                    /* "x86_64", "aarch64" */
  uint32_t scmp_arch;                  /* SCMP_ARCH_X86_64, … */
  const struct sc_entry *const *parts; /* NULL-terminated */
};

extern const struct sc_table sc_table_x86_64;
extern const struct sc_table sc_table_aarch64;

/* The table of the architecture we were built for, and one by name (NULL if unknown).  */
const struct sc_table *policy_native_table (void);
const struct sc_table *policy_table_by_arch (const char *arch);

/* Switches a container's policy may turn (annotations io.agentrt.policy.*).  Each one must be
   part of compiled_identity (filter.c): a compiled policy is cached under that identity.  */
struct policy_opts
{
  bool strict; /* the strict tier: an allowlist (above) */
  /* ptrace, process_vm_readv and process_vm_writev reach the kernel: the default on the
     seccomp platform for a container with a pid namespace of its own (sandbox.h).  */
  bool allow_ptrace;
  /* The ptrace platform: the supervisor is every process's tracer, so clone(CLONE_UNTRACED),
     whose child it would not follow, is refused.  Elsewhere that flag is allowed (LeakSanitizer
     makes its tracer with it), but not with CLONE_THREAD: the kill switch follows the init's
     threads (tracer.c).  */
  bool tracer_platform;
  /* prctl(PR_SET_MM) refused: with an egress allowlist, whose per-program entries trust
     /proc/PID/exe (netpolicy_caller_exe).  */
  bool deny_set_mm;
};

/* The resolved policy of one architecture: each syscall number's entry.  */
struct policy
{
  const struct sc_table *table;
  struct policy_opts opts;
  const struct sc_entry **by_nr; /* indexed by syscall number; NULL: not named */
  size_t n_nr;
  struct sc_entry *derived; /* by number: the strict tier's changed entries (by_nr points here) */
};

/* The number of calls that reach the kernel without the supervisor (allow, allow-if), and each
   tier's count, of a resolved policy.  */
struct policy_counts
{
  size_t tier[SC_ERRNO + 1];
  size_t reachable;
};
void policy_count (const struct policy *p, struct policy_counts *out);

/* "default" or "strict": a policy by name, for annotations, flags and `policy show`.  */
int policy_tier_from_name (const char *name, bool *strict);

/* Resolve `t` (every name through libseccomp for t->scmp_arch; a name it does not know is an
   error naming it) with the switches applied.  */
int policy_init (struct policy *p, const struct sc_table *t, const struct policy_opts *o,
                 ar_error_t *err);
void policy_release (struct policy *p);

/* The entry for syscall number `nr`, or NULL.  */
const struct sc_entry *policy_lookup (const struct policy *p, long nr);

/* Generate the seccomp filter of the policy: allow entries allowed, allow-if entries allowed on
   their condition, errno entries refused in BPF, everything else SCMP_ACT_NOTIFY.  */
int policy_compile (const struct policy *p, struct seccomp_prog *out, ar_error_t *err);
/* The same, kept in (and taken from) the directory dirfd (the state root) for the next
   container; dirfd -1: compiled every time.  */
int policy_compile_cached (const struct policy *p, int dirfd, struct seccomp_prog *out,
                           ar_error_t *err);

/* The compiled policy for the ptrace platform: what would reach the supervisor by notification
   stops the caller for its tracer instead (SECCOMP_RET_TRACE).  */
int policy_to_trace (struct seccomp_prog *prog, ar_error_t *err);

/* Names for output.  */
const char *policy_tier_name (enum sc_tier t);
const char *policy_handler_name (enum sc_handler h);
const char *policy_cond_text (enum sc_cond c);
const char *policy_severity_name (enum sc_severity s);

#endif
