/* Shorthands for the table files (table_generic.c, table_x86_64.c, table_aarch64.c), so that
   each entry is one readable line.  Not used outside src/lib/policy.  */
#ifndef AGENTRT_POLICY_TABLE_H
#define AGENTRT_POLICY_TABLE_H

#include <errno.h>

#include "policy/policy.h"

/* Decided in the kernel, no round trip, in the default tier only: the strict tier refuses it
   (ENOSYS, audited).  */
#define ALLOW(n)                                  \
  {                                               \
    .name = #n, .tier = SC_ALLOW, .rule = "allow" \
  }
/* Decided in the kernel in both tiers: on the strict allowlist.  */
#define STRICT(n)                                                 \
  {                                                               \
    .name = #n, .tier = SC_ALLOW, .rule = "allow", .strict = true \
  }
/* Allowed in the default tier; under strict, allowed when `sc` holds (policy.h).  */
#define STRICT_IF(n, sc)                                                               \
  {                                                                                    \
    .name = #n, .tier = SC_ALLOW, .rule = "allow", .strict = true, .strict_cond = (sc) \
  }
/* Newer than libseccomp 2.5.4: added to the filter by number.  */
#define ALLOW_NEW(n, nr)                                          \
  {                                                               \
    .name = #n, .tier = SC_ALLOW, .new_nr = (nr), .rule = "allow" \
  }
#define STRICT_NEW(n, nr)                                                         \
  {                                                                               \
    .name = #n, .tier = SC_ALLOW, .new_nr = (nr), .rule = "allow", .strict = true \
  }

/* Allowed in the kernel when `c` holds; otherwise refused (EPERM, or `e`) and audited.  On
   the strict allowlist too; ALLOW_IF_STRICT narrows it there to `sc`.  */
#define ALLOW_IF(n, c, sev, e, r)                                                        \
  {                                                                                      \
    .name = #n, .tier = SC_ALLOW_IF, .handler = SH_DENY, .cond = (c), .severity = (sev), \
    .err = (e), .rule = (r), .strict = true                                              \
  }
#define ALLOW_IF_STRICT(n, c, sev, e, r, sc)                                             \
  {                                                                                      \
    .name = #n, .tier = SC_ALLOW_IF, .handler = SH_DENY, .cond = (c), .severity = (sev), \
    .err = (e), .rule = (r), .strict = true, .strict_cond = (sc)                         \
  }

/* Every call goes to the supervisor's handler `h`.  */
#define SUPERVISE(n, h, sev, r)                                                      \
  {                                                                                  \
    .name = #n, .tier = SC_SUPERVISE, .handler = (h), .severity = (sev), .rule = (r) \
  }

/* Every call goes to the supervisor, which refuses it with EPERM and an audit record.  */
#define DENY(n, r)                                                                      \
  {                                                                                     \
    .name = #n, .tier = SC_DENY, .handler = SH_DENY, .severity = SEV_ALERT, .rule = (r) \
  }
#define DENY_NEW(n, nr, r)                                                                  \
  {                                                                                         \
    .name = #n, .tier = SC_DENY, .handler = SH_DENY, .severity = SEV_ALERT, .new_nr = (nr), \
    .rule = (r)                                                                             \
  }
/* Gone from the kernel (it answers ENOSYS anyway): programs probe these innocently.  */
#define DENY_OBSOLETE(n)                                                                           \
  {                                                                                                \
    .name = #n, .tier = SC_DENY, .handler = SH_DENY, .severity = SEV_WARN, .rule = "deny-obsolete" \
  }

/* Refused with errno `e` and audited as a warning: a call common runtimes probe on every start
   (and take its refusal for a kernel without it), never an escape attempt by itself.  */
#define DENY_PROBE(n, e, r)                                                                        \
  {                                                                                                \
    .name = #n, .tier = SC_DENY, .handler = SH_DENY, .severity = SEV_WARN, .err = (e), .rule = (r) \
  }

/* Refused in the kernel with errno `e`, no audit.  */
#define ERRNO(n, e, r)                                    \
  {                                                       \
    .name = #n, .tier = SC_ERRNO, .err = (e), .rule = (r) \
  }

#define TABLE_END \
  {               \
    .name = NULL  \
  }

/* The part both architectures share (table_generic.c).  */
extern const struct sc_entry sc_generic_entries[];

#endif
