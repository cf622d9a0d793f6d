/* The operator's configuration file, agentrt.conf: what the node's operator decides and no
   config.json may (annotations.h says why config.json is untrusted).  Read by the commands
   that need it (create, run, exec), from --config FILE, else $AGENTRT_CONFIG, else
   OPERATOR_CONFIG_DEFAULT, which may be missing (then every key has its default); a file named
   by the flag or the variable must exist.

   The format is strict, so that a typo is an error and not a default: one `key = value` a line,
   blanks around both ignored, `#` starting a comment line, blank lines; an unknown key, a
   repeated one, a line without `=` or an empty value fails every command that reads the file
   with `FILE:LINE: …`.  The file must be a regular file, owned by root (or by the user running
   agentrt) and not writable by group or others: whoever can write it decides what pods may do.

     audit_dir = DIR          every container's audit log is DIR/ID.jsonl (instead of
                              ROOT/ID/audit.jsonl, which goes with the container); DIR is made
                              0750 when missing
     audit_budget = SIZE      the most each container's audit log may grow (64k at least;
                              default 64m; an eighth kept for alerts); --audit-budget wins
     pod_annotations = K,…    operator-only annotation keys that config.json may nevertheless
                              use on this node (annotations.h); io.agentrt.audit then names a
                              file directly under audit_dir, nothing else
     agent_hooks = allow      under the agent profile, config.json's hooks that run on the host
                              as root (prestart, createRuntime, poststart, poststop) are run;
                              default `refuse`: create fails naming the first.  An engine's own
                              hooks (Docker's libnetwork prestart hook) need it; in Kubernetes no
                              pod can write a hook, a bundle's author by hand can
     dns_servers = ADDR[:PORT],…
                              the servers the sandbox resolver asks (3 at most), instead of
                              the nameservers of the resolv.conf of where the broker connects
                              from (egress.h)
     dns_host_answers = allow|drop
                              may a name of --net-allow resolve to the host's loopback or
                              its interfaces' addresses (default drop: such an answer is
                              removed and the address refused; link-local ones, a cloud's
                              metadata service, are refused whatever this says, and
                              config.json's lists never get either)
     policy = default|strict  agentrt's syscall policy for containers that name none (by
                              --policy or annotation io.agentrt.policy); the agent profile's
                              is strict whatever this says (default: default)
     supervised_without_pidns = allow|refuse
                              may a container with a supervisor or a deadline share the
                              runtime's pid namespace, where it can see, stop and kill the
                              supervisor's processes (default refuse)
     default_profile = agent|none
                              the profile of a container that asks for none (no --agent, no
                              io.agentrt.profile or an empty one): agent applies the agent
                              profile (profile.h) to it; default none
     default_memory = SIZE, default_cpus = N, default_pids = N, default_timeout = DURATION
                              a container's memory limit, CPU quota, pids limit and deadline
                              when neither a flag nor config.json gives one (nor a limit of 0);
                              they win over the agent profile's own defaults.  Defaults, not
                              ceilings: config.json's own values are kept
     uname_release = RELEASE  the kernel release uname(2) reports to a supervised container
                              that has no io.agentrt.uname.release (SUPERVISOR_DEFAULT_RELEASE)

   A key is a row of the table in operator.c and a member here.  */
#ifndef AGENTRT_OPERATOR_H
#define AGENTRT_OPERATOR_H

#include <stdbool.h>

#include "agentrt/error.h"

struct dns_upstream;

#define OPERATOR_CONFIG_DEFAULT "/etc/agentrt/agentrt.conf"

struct operator_conf
{
  char *path;                      /* the file read, or NULL: none, every default */
  char *audit_dir;                 /* absolute, without a trailing '/'; NULL: ROOT/ID/audit.jsonl */
  char **pod_annotations;          /* NULL-terminated, or NULL: none */
  unsigned long long audit_budget; /* bytes; 0: the default (--audit-budget wins) */
  bool agent_hooks;                /* run config.json's host hooks under the agent profile */
  struct dns_upstream *dns_servers; /* NULL: resolv.conf's */
  bool dns_host_answers;            /* names may resolve to the host's loopback (netpolicy.h) */
  bool supervised_without_pidns;    /* allowed: see the key above */
  bool default_agent;               /* default_profile = agent */
  /* The defaults of the limits, applied through profile_apply; 0 or NULL: none.  */
  unsigned long long default_memory; /* bytes */
  long long default_cpu_quota;       /* µs per 100000 µs */
  long long default_pids;
  char *default_timeout; /* as written: the annotation's value */
  char *uname_release;   /* NULL: SUPERVISOR_DEFAULT_RELEASE */
  bool strict_policy;    /* policy = strict */
};

/* Read `path`, or (named false) the default, whose absence is no error.  */
int operator_load (const char *path, bool named, struct operator_conf *out, ar_error_t *err);
/* Parse the text of a file; errors are "`name`:LINE: …".  */
int operator_parse (const char *text, const char *name, struct operator_conf *out, ar_error_t *err);
void operator_release (struct operator_conf *c);
#define cleanup_operator __attribute__ ((cleanup (operator_release)))

/* May config.json set the operator-only values of annotation `key`?  `c` may be NULL.  */
bool operator_pod_may (const struct operator_conf *c, const char *key);

/* audit_dir, made 0750 (with its parents) when missing.  */
int operator_make_audit_dir (const struct operator_conf *c, ar_error_t *err);

#endif
