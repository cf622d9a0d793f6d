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
   on a call whose number or arguments a tracer changed at a syscall stop (since 4.8).  */
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
  if (p->opts.deny_set_mm)
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
  p->by_nr = NULL;
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
  };
  return (size_t) c < sizeof texts / sizeof texts[0] ? texts[c] : "?";
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
