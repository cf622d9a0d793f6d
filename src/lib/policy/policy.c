/* The policy of one architecture resolved to syscall numbers, the lookup the supervisor
   dispatches by, and the names `policy show` and audit records print.  */
#include <config.h>

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "utils.h"

/* What allow_ptrace turns ptrace, process_vm_readv and process_vm_writev into (the table denies
   them: what a container gets that shares a pid namespace with others, where a tracer would
   reach processes that are not its own).  Within the container's own pid namespace the kernel
   bounds them as it does for any process (ptrace_may_access: the tracee's uid and
   capabilities, dumpable), and the tracee stays under its filter: the kernel runs seccomp again
   on a call whose number or arguments a tracer changed at a syscall stop (since 4.8).
   Another container that joins the namespace later is in reach: processes sharing a pid
   namespace trust each other, as under runc (/proc/PID/mem reaches them without ptrace).  */
static const struct sc_entry ptrace_allowed[] = {
  { .name = "ptrace", .tier = SC_ALLOW, .rule = "allow-ptrace" },
  { .name = "process_vm_readv", .tier = SC_ALLOW, .rule = "allow-ptrace" },
  { .name = "process_vm_writev", .tier = SC_ALLOW, .rule = "allow-ptrace" },
};

/* The table's clone (tracer_platform's) on a platform without a tracer of every process:
   CLONE_UNTRACED allowed too, as LeakSanitizer asks for it, unless with CLONE_THREAD.  The
   same rule, severity and handler: a test compares them with the table's.  */
static const struct sc_entry clone_untraced = {
  .name = "clone",
  .tier = SC_ALLOW_IF,
  .handler = SH_DENY,
  .cond = SCOND_CLONE_NO_NS_UNTRACED,
  .severity = SEV_ALERT,
  .rule = "deny-clone-ns",
};

/* What deny_set_mm turns prctl into: PR_SET_MM (the only way to change what /proc/PID/exe
   names, PR_SET_MM_EXE_FILE and PR_SET_MM_MAP's exe_fd) refused and audited, the rest allowed
   in the kernel.  */
static const struct sc_entry prctl_no_set_mm = {
  .name = "prctl",
  .tier = SC_ALLOW_IF,
  .handler = SH_DENY,
  .cond = SCOND_PRCTL_NO_SET_MM,
  .severity = SEV_WARN,
  .rule = "deny-prctl-set-mm",
};

const struct sc_table *
policy_native_table (void)
{
#if defined(__x86_64__)
  return &sc_table_x86_64;
#elif defined(__aarch64__)
  return &sc_table_aarch64;
#else
  return NULL;
#endif
}

const struct sc_table *
policy_table_by_arch (const char *arch)
{
  static const struct sc_table *const tables[] = { &sc_table_x86_64, &sc_table_aarch64 };

  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
    if (strcmp (tables[i]->arch, arch) == 0)
      return tables[i];
  return NULL;
}

/* The number of `e` on `t`'s architecture: libseccomp's, or new_nr for a syscall newer than
   libseccomp.  A name libseccomp does not know (or knows only as a pseudo-syscall, negative:
   the architecture lacks it) is an error, as is a new_nr that libseccomp contradicts.  */
static int
entry_nr (const struct sc_table *t, const struct sc_entry *e, ar_error_t *err)
{
  int nr = seccomp_syscall_resolve_name_arch (t->scmp_arch, e->name);

  if (nr >= 0 && e->new_nr != 0 && nr != e->new_nr)
    return ar_make_error (err, EINVAL, "policy %s: `%s` is %d for libseccomp, %u in the table",
                          t->arch, e->name, nr, e->new_nr);
  if (nr < 0 && e->new_nr != 0)
    nr = e->new_nr;
  if (nr < 0)
    return ar_make_error (err, EINVAL, "policy %s: libseccomp knows no syscall `%s`", t->arch,
                          e->name);
  return nr;
}

static int
table_max_nr (const struct sc_table *t, ar_error_t *err)
{
  int max = -1;

  for (const struct sc_entry *const *part = t->parts; *part; part++)
    for (const struct sc_entry *e = *part; e->name; e++)
      {
        int nr = entry_nr (t, e, err);
        if (nr < 0)
          return -1;
        if (nr > max)
          max = nr;
      }
  if (max < 0)
    return ar_make_error (err, EINVAL, "policy %s: the table is empty", t->arch);
  return max;
}

static int
fill_by_nr (struct policy *p, ar_error_t *err)
{
  for (const struct sc_entry *const *part = p->table->parts; *part; part++)
    for (const struct sc_entry *e = *part; e->name; e++)
      {
        int nr = entry_nr (p->table, e, err);
        if (nr < 0)
          return -1;
        if (p->by_nr[nr] != NULL)
          return ar_make_error (err, EINVAL, "policy %s: syscall %d is both `%s` and `%s`",
                                p->table->arch, nr, p->by_nr[nr]->name, e->name);
        p->by_nr[nr] = e;
      }
  return 0;
}

/* How the strict tier refuses an argument its narrowing condition does not let through: with
   the errno the kernel itself gives an argument it does not support, so that programs take
   their fallback, and a rule naming the narrowing.  */
static const struct
{
  uint16_t err;
  const char *rule;
} strict_refusals[SCOND__N] = {
  [SCOND_SOCKET_STRICT] = { EAFNOSUPPORT, "refuse-strict-socket" },
  [SCOND_SOCKETPAIR_STRICT] = { EAFNOSUPPORT, "refuse-strict-socket" },
  [SCOND_IOCTL_STRICT] = { ENOTTY, "refuse-strict-ioctl" },
  [SCOND_PRCTL_STRICT] = { EINVAL, "refuse-strict-prctl" },
  [SCOND_FCNTL_STRICT] = { EINVAL, "refuse-strict-fcntl" },
  [SCOND_MADVISE_STRICT] = { EINVAL, "refuse-strict-madvise" },
  [SCOND_MREMAP_STRICT] = { EINVAL, "refuse-strict-mremap" },
};

/* The strict tier's entry for `e` in `out`; false if it is the same as the default's.  */
static bool
strict_entry (const struct sc_entry *e, struct sc_entry *out)
{
  if (e->tier != SC_ALLOW && e->tier != SC_ALLOW_IF)
    return false; /* supervise, deny, errno: the same in both tiers */
  if (e->strict && e->strict_cond == SCOND_NONE)
    return false;
  *out = *e;
  out->handler = SH_DENY;
  out->severity = SEV_WARN;
  if (!e->strict)
    {
      /* Off the allowlist: the supervisor answers ENOSYS and audits it.  */
      out->tier = SC_DENY;
      out->cond = SCOND_NONE;
      out->err = ENOSYS;
      out->rule = "refuse-strict";
      return true;
    }
  out->tier = SC_ALLOW_IF;
  out->cond = e->strict_cond;
  out->err = strict_refusals[e->strict_cond].err;
  out->rule = strict_refusals[e->strict_cond].rule;
  return true;
}

static void
apply_strict (struct policy *p)
{
  p->derived = xzalloc (p->n_nr * sizeof *p->derived);
  for (size_t nr = 0; nr < p->n_nr; nr++)
    if (p->by_nr[nr] && strict_entry (p->by_nr[nr], &p->derived[nr]))
      p->by_nr[nr] = &p->derived[nr];
}

static void
replace_entry (struct policy *p, const struct sc_entry *e)
{
  int nr = seccomp_syscall_resolve_name_arch (p->table->scmp_arch, e->name);

  if (nr >= 0 && (size_t) nr < p->n_nr)
    p->by_nr[nr] = e;
}

static void
apply_opts (struct policy *p)
{
  if (p->opts.strict)
    apply_strict (p);
  /* Under strict, prctl's allowlist has no PR_SET_MM already.  */
  if (p->opts.deny_set_mm && !p->opts.strict)
    replace_entry (p, &prctl_no_set_mm);
  if (!p->opts.tracer_platform)
    replace_entry (p, &clone_untraced);
  if (!p->opts.allow_ptrace)
    return;
  for (size_t i = 0; i < sizeof ptrace_allowed / sizeof ptrace_allowed[0]; i++)
    replace_entry (p, &ptrace_allowed[i]);
}

int
policy_init (struct policy *p, const struct sc_table *t, const struct policy_opts *o,
             ar_error_t *err)
{
  int max;

  memset (p, 0, sizeof *p);
  max = table_max_nr (t, err);
  if (max < 0)
    return -1;
  p->table = t;
  if (o)
    p->opts = *o;
  p->n_nr = (size_t) max + 1;
  p->by_nr = xzalloc (p->n_nr * sizeof *p->by_nr);
  if (fill_by_nr (p, err) < 0)
    {
      policy_release (p);
      return -1;
    }
  apply_opts (p);
  return 0;
}

void
policy_release (struct policy *p)
{
  free (p->by_nr);
  free (p->derived);
  p->by_nr = NULL;
  p->derived = NULL;
  p->n_nr = 0;
}

const struct sc_entry *
policy_lookup (const struct policy *p, long nr)
{
  if (nr < 0 || (unsigned long) nr >= p->n_nr)
    return NULL;
  return p->by_nr[nr];
}

const char *
policy_tier_name (enum sc_tier t)
{
  static const char *const names[] = {
    [SC_ALLOW] = "allow", [SC_ALLOW_IF] = "allow-if", [SC_SUPERVISE] = "supervise",
    [SC_DENY] = "deny",   [SC_ERRNO] = "errno",
  };
  return (size_t) t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *
policy_handler_name (enum sc_handler h)
{
  static const char *const names[] = {
    [SH_NONE] = "none",         [SH_DENY] = "deny",         [SH_UNAME] = "uname",
    [SH_SYSINFO] = "sysinfo",   [SH_AFFINITY] = "affinity", [SH_EXEC] = "exec",
    [SH_CONNECT] = "connect",   [SH_BIND] = "bind",         [SH_UNKNOWN] = "unknown",
    [SH_FSNOTIFY] = "fsnotify", [SH_CLOCK] = "clock",
  };
  return (size_t) h < sizeof names / sizeof names[0] ? names[h] : "?";
}

const char *
policy_cond_text (enum sc_cond c)
{
  static const char *const texts[] = {
    [SCOND_NONE] = "",
    [SCOND_CLONE_NO_NS] = "(u32) flags & (CLONE_NEW* | CLONE_UNTRACED) == 0",
    [SCOND_CLONE_NO_NS_UNTRACED] = "(u32) no CLONE_NEW*, no CLONE_UNTRACED with CLONE_THREAD",
    [SCOND_UNSHARE_NO_NS] = "(u32) flags & CLONE_NEW* == 0",
    [SCOND_SOCKET_FAMILY] = "(u32) domain in {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK}",
    [SCOND_IOCTL_SAFE] = "(u32) request not in {TIOCSTI, TIOCLINUX}",
    [SCOND_PERSONALITY_DEFAULT] = "(u32) PER_LINUX with setarch -R/-L/-X flags, or query",
    [SCOND_SECCOMP_NO_LISTENER] = "(u32) flags & SECCOMP_FILTER_FLAG_NEW_LISTENER == 0",
    [SCOND_PRCTL_NO_SET_MM] = "(u32) option != PR_SET_MM",
    [SCOND_SOCKET_STRICT] = "AF_UNIX | AF_INET(6) stream/dgram | AF_NETLINK NETLINK_ROUTE",
    [SCOND_SOCKETPAIR_STRICT] = "(u32) domain == AF_UNIX",
    [SCOND_IOCTL_STRICT] = "(u32) request in {TC*, TIOC*, FIO*, FS_IOC_*, FICLONE*, SIOCGIF*}",
    [SCOND_PRCTL_STRICT] = "(u32) option in the allowlist (agentrt-policy(7))",
    [SCOND_FCNTL_STRICT] = "(u32) cmd is known, not F_SETLEASE or F_NOTIFY",
    [SCOND_MADVISE_STRICT] = "(u32) advice not MERGEABLE, UNMERGEABLE, HWPOISON, SOFT_OFFLINE",
    [SCOND_MREMAP_STRICT] = "(u32) flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED) == 0",
  };
  return (size_t) c < sizeof texts / sizeof texts[0] ? texts[c] : "?";
}

void
policy_count (const struct policy *p, struct policy_counts *out)
{
  memset (out, 0, sizeof *out);
  for (size_t nr = 0; nr < p->n_nr; nr++)
    if (p->by_nr[nr] && p->by_nr[nr]->tier <= SC_ERRNO)
      out->tier[p->by_nr[nr]->tier]++;
  out->reachable = out->tier[SC_ALLOW] + out->tier[SC_ALLOW_IF];
}

int
policy_tier_from_name (const char *name, bool *strict)
{
  if (strcmp (name, "default") == 0)
    *strict = false;
  else if (strcmp (name, "strict") == 0)
    *strict = true;
  else
    return -1;
  return 0;
}

const char *
policy_severity_name (enum sc_severity s)
{
  static const char *const names[] = {
    [SEV_NONE] = "none",
    [SEV_INFO] = "info",
    [SEV_WARN] = "warn",
    [SEV_ALERT] = "alert",
  };
  return (size_t) s < sizeof names / sizeof names[0] ? names[s] : "?";
}
