/* The sandbox controls of one container, from its annotations (io.agentrt.*, for engines) and
   the flags of create and run (for a person; a flag wins over an annotation).  Resolved and
   checked before create touches the machine: a bad value fails naming the annotation or flag.

     io.agentrt.platform        --platform     seccomp (default) | none | ptrace (not built)
     io.agentrt.audit           --audit-log    where the audit log goes (default
   ROOT/ID/audit.jsonl) io.agentrt.uname.release   -              the kernel release uname reports
     io.agentrt.policy.ptrace   -              allow | deny (default): ptrace for debugging
     io.agentrt.net.allow       --net-allow    TCP endpoints the egress broker connects to
                                               (egress.h); implies a loopback-only netns  */
#ifndef AGENTRT_SANDBOX_H
#define AGENTRT_SANDBOX_H

#include "agentrt/error.h"
#include "egress.h"
#include "policy/policy.h"
#include "spec.h"

enum sandbox_platform
{
  PLATFORM_SECCOMP,
  PLATFORM_NONE,
  PLATFORM_PTRACE,
};

struct sandbox_flags
{
  const char *platform;  /* --platform, or NULL */
  const char *audit_log; /* --audit-log, or NULL */
  const char *net_allow; /* --net-allow, or NULL */
  bool policy_only;      /* exec: what the filter needs; the allowlist is not resolved again */
};

struct sandbox
{
  enum sandbox_platform platform;
  char *audit_path; /* absolute, or NULL for the default */
  char *uname_release;
  struct policy_opts popts;
  struct egress_list *egress; /* the allowlist, or NULL: no broker */
  const char *egress_from;    /* "--net-allow" or the annotation, for errors */
};

/* From the annotations of config.json (or of state.json, for exec) and the flags.  */
int sandbox_resolve (const struct spec_map *annotations, const struct sandbox_flags *f,
                     struct sandbox *out, ar_error_t *err);
void sandbox_release (struct sandbox *sb);

const char *sandbox_platform_name (enum sandbox_platform p);
int sandbox_platform_from_name (const char *name, enum sandbox_platform *out);

/* The value of annotation `key`, or NULL.  */
const char *sandbox_annotation (const struct spec_map *a, const char *key);

#endif
