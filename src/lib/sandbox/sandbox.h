/* The sandbox controls of one container, from its annotations (io.agentrt.*, for engines) and
   the flags of create and run (for a person; a flag wins over an annotation).  Resolved and
   checked before create touches the machine: a bad value fails naming the annotation or flag.
   The annotations are config.json's, which is untrusted: who may ask for which value is
   annotations.h's table, and what the operator allows pods is agentrt.conf (operator.h).

     io.agentrt.platform        --platform     seccomp (default) | ptrace | none
     io.agentrt.audit           --audit-log    the audit log (default ROOT/ID/audit.jsonl, or
                                               audit_dir/ID.jsonl); the annotation only names
                                               a file directly under audit_dir
     -                          --audit-budget the audit log's size cap (64k at least)
     io.agentrt.uname.release   -              the kernel release uname reports
     io.agentrt.policy          --policy       default | strict: agentrt's syscall policy
                                               (default: strict under the agent profile, else
                                               agentrt.conf's policy, else default)
     io.agentrt.policy.ptrace   -              ptrace, process_vm_readv/writev in the container
                                               (sandbox_resolve_ptrace): deny | allow (the
                                               operator's); default: allowed on the seccomp
                                               platform with a pid namespace of its own
     io.agentrt.net.allow       --net-allow    what the egress broker connects to and the
                                               resolver resolves (netpolicy.h, egress.h);
                                               implies a loopback-only netns
     io.agentrt.net.allow.containers  -        in a pod, the containers the annotation
                                               isolates (default: all but the sandbox)
     io.agentrt.timeout         --timeout      wall clock from create: 500ms, 90s, 5m, 1h
     io.agentrt.ephemeral       --ephemeral    true: overlay on the rootfs, upper on a tmpfs
     io.agentrt.disk            --disk         size of that tmpfs (64m, 1g); implies ephemeral
     io.agentrt.canary          --canary       decoy files (absolute paths, comma list); implies
                                               ephemeral, needs the supervisor
     io.agentrt.profile         --agent        agent: the agent profile (profile.h)
     -                          --memory --cpus --pids: written into linux.resources
   agentrt.conf gives the defaults of the profile, the limits, the deadline and the release
   (operator.h): a flag or config.json's own value wins over them.  */
#ifndef AGENTRT_SANDBOX_H
#define AGENTRT_SANDBOX_H

#include "agentrt/error.h"
#include "sandbox/egress.h"
#include "sandbox/operator.h"
#include "policy/policy.h"
#include "spec/spec.h"

enum sandbox_platform
{
  PLATFORM_SECCOMP,
  PLATFORM_NONE,
  PLATFORM_PTRACE,
};

/* io.agentrt.policy.ptrace.  */
enum sandbox_ptrace
{
  SANDBOX_PTRACE_DEFAULT, /* not given */
  SANDBOX_PTRACE_DENY,
  SANDBOX_PTRACE_ALLOW,
};

struct sandbox_flags
{
  const struct operator_conf *op; /* agentrt.conf, or NULL: every default */
  const char *id;                 /* the container's: its log in audit_dir; NULL for exec */
  const char *platform;           /* --platform, or NULL */
  const char *audit_log;          /* --audit-log, or NULL */
  const char *net_allow;          /* --net-allow, or NULL */
  const char *policy;             /* --policy, or NULL */
  bool policy_only; /* exec: what the filter needs; the allowlist is not resolved again */
  const char *timeout, *disk, *canary; /* NULL when not given */
  const char *memory, *cpus, *pids;
  bool ephemeral, agent;
  /* --audit-budget, or NULL: a flag only (how much is logged is the operator's).  */
  const char *audit_budget;
};

struct sandbox
{
  enum sandbox_platform platform;
  char *audit_path; /* absolute, or NULL for the default */
  char *uname_release;
  /* popts.allow_ptrace is sandbox_resolve_ptrace's, once the pid namespace is known.  */
  struct policy_opts popts;
  enum sandbox_ptrace ptrace; /* io.agentrt.policy.ptrace */
  struct netpolicy *net;      /* the allowlist (netpolicy.h), or NULL: no broker */
  const char *egress_from;    /* "--net-allow" or the annotation, for errors */
  bool egress_annotation;     /* config.json's: the host's addresses are refused */
  /* Set by sandbox_prepare_egress: the resolver's upstream, the container's resolv.conf and
     the host's addresses (egress.h).  */
  struct dns_upstream *upstream;
  char *resolv_conf;
  struct egress_addrs *host_addrs;
  long long timeout_ms;          /* 0: no deadline */
  bool ephemeral;                /* the rootfs is an overlay with a private upper layer */
  unsigned long long disk_bytes; /* size of the upper layer's tmpfs; 0: tmpfs's default */
  char **canaries;               /* absolute paths in the container, NULL-terminated, or NULL */
  /* The audit log's size cap; 0: the default (runtime/lifecycle.c).  */
  unsigned long long audit_bytes;
};

/* What containerd's CRI writes into each config.json of a pod: its kind ("sandbox" for the
   pause container, "container") and its name in the pod.  */
#define SANDBOX_CRI_TYPE "io.kubernetes.cri.container-type"
#define SANDBOX_CRI_NAME "io.kubernetes.cri.container-name"

/* From the annotations of config.json (or of state.json, for exec) and the flags.  */
int sandbox_resolve (const struct spec_map *annotations, const struct sandbox_flags *f,
                     struct sandbox *out, ar_error_t *err);
void sandbox_release (struct sandbox *sb);

/* ptrace in the container (popts.allow_ptrace), once create knows whether it has a pid
   namespace of its own (`own_pidns`: made for it, not joined).  Allowed there by default on the
   seccomp platform: a tracer then sees only the container's processes.  Denied where it shares
   one (the host's, with supervised_without_pidns = allow, or a pod's), where it would reach
   processes that are not the container's, unless the annotation says allow (the operator's);
   on the ptrace platform, where the supervisor is every process's one tracer; and where the
   container may hold CAP_SYS_PTRACE in the host's user namespace (sandbox_host_ptrace_cap).
   The annotation's deny denies it everywhere.  */
void sandbox_resolve_ptrace (struct sandbox *sb, bool own_pidns, bool host_ptrace_cap);

/* May the container's processes hold CAP_SYS_PTRACE in the host's user namespace (no user
   namespace of its own, and the capability in the bounding set, or no capabilities section)?
   Then the kernel lets them attach to any process in their pid namespace, dumpable or not:
   agentrt's own among them, such as a process `exec` starts, which joins the namespaces with
   every capability and installs its filters last (tests/ptrace.bats).  The Landlock ptrace
   wall keeps them off it (init/landlock.h); without Landlock such a container is refused.  */
bool sandbox_host_ptrace_cap (const struct spec *s);

/* The same for process P (an exec'd one, whose --cap may add it) in container S.  */
bool sandbox_process_host_ptrace_cap (const struct spec *s, const struct spec_process *p);

/* With an allowlist, at create: the container's network namespace and where the broker
   connects from (egress_prepare_spec, *ns), the resolver's upstream read there, and, for
   config.json's list, no address of the host (which may depend on where: a pod's loopback is its
   own).  */
int sandbox_prepare_egress (struct sandbox *sb, struct spec *s, const char *bundle,
                            const struct operator_conf *op, struct egress_netns *ns,
                            ar_error_t *err);

struct profile_edits;
/* The edits of config.json the flags and the bundle's annotations ask for (profile.h): done
   before sandbox_resolve, which then reads the edited annotations.  */
int sandbox_edits (const struct spec_map *annotations, const struct sandbox_flags *f,
                   struct profile_edits *out, ar_error_t *err);

/* "64m", "1g", "4096": bytes (k, m, g, t: powers of 1024); "90s", "5m", "1h", "500ms": ms.  */
int sandbox_parse_size (const char *v, unsigned long long *out);
int sandbox_parse_duration (const char *v, long long *ms);
/* "1", "0.5": CPUs as a quota of µs per 100000 µs period (0.01 to 1024).  */
int sandbox_parse_cpus (const char *v, long long *quota);
/* --memory's floor (a smaller container cannot exec a shell) and --pids' ceiling.  */
#define SANDBOX_MEMORY_MIN (4ULL << 20)
#define SANDBOX_PIDS_MAX (1 << 22)

const char *sandbox_platform_name (enum sandbox_platform p);
int sandbox_platform_from_name (const char *name, enum sandbox_platform *out);

/* The systemd cgroup driver: config.json's org.systemd.property.* annotations set properties of
   the container's unit (runc's and crun's), which may loosen anything systemd enforces
   (MemoryMax=infinity, DeviceAllow=, Delegate=…): the operator's, taken only where
   agentrt.conf's pod_annotations lists ANNOTATION_SYSTEMD_PROPERTIES.  */
int sandbox_check_systemd_properties (const struct spec_map *annotations,
                                      const struct operator_conf *op, ar_error_t *err);

/* The value of annotation `key`, or NULL.  */
const char *sandbox_annotation (const struct spec_map *a, const char *key);

#endif
