/* The table of io.agentrt.* keys (annotations.h): the one place that says which exist and whose
   each value is.  */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sandbox/annotations.h"
#include "utils.h"

static bool
platform_none (const char *v, bool agent)
{
  (void) agent;
  return strcmp (v, "none") == 0;
}

static bool
ptrace_allow (const char *v, bool agent)
{
  (void) agent;
  return strcmp (v, "allow") == 0;
}

/* The default tier is a loosening only where the agent profile makes strict the default.  */
static bool
policy_default_under_agent (const char *v, bool agent)
{
  return agent && strcmp (v, "default") == 0;
}

static bool
any_value (const char *v, bool agent)
{
  (void) v, (void) agent;
  return true;
}

/* The agent profile makes the root writable over an ephemeral upper layer; without that layer
   the workload writes into the bundle on the host.  */
static bool
agent_not_ephemeral (const char *v, bool agent)
{
  return agent && strcmp (v, "false") == 0;
}

static const struct annotation_key keys[] = {
  { "io.agentrt.audit", true, any_value, "names a file on the host", "--audit-log or audit_dir",
    false, false },
  { "io.agentrt.audit.alerts", false, NULL, NULL, NULL, false, true },
  { "io.agentrt.canary", false, NULL, NULL, NULL, false, false },
  { "io.agentrt.disk", false, NULL, NULL, NULL, false, false },
  { "io.agentrt.ephemeral", true, agent_not_ephemeral,
    "under the agent profile lets the workload write into the bundle", NULL, true, false },
  { "io.agentrt.net.allow", true, NULL, "names an address of this host", "--net-allow", false,
    false },
  { "io.agentrt.net.allow.containers", false, NULL, NULL, NULL, false, false },
  { "io.agentrt.platform", true, platform_none, "turns the supervisor off", "--platform none", true,
    false },
  { "io.agentrt.policy", true, policy_default_under_agent,
    "under the agent profile turns the strict allowlist off", "--policy default", true, false },
  { "io.agentrt.policy.ptrace", true, ptrace_allow,
    "lets the workload trace where the default refuses it", NULL, true, false },
  { "io.agentrt.profile", false, NULL, NULL, NULL, false, false },
  { "io.agentrt.stop.reason", false, NULL, NULL, NULL, false, true },
  { "io.agentrt.timeout", false, NULL, NULL, NULL, false, false },
  { "io.agentrt.uname.release", false, NULL, NULL, NULL, false, false },
};

bool
annotation_is_ours (const char *key)
{
  return strncasecmp (key, ANNOTATION_PREFIX, strlen (ANNOTATION_PREFIX)) == 0;
}

const struct annotation_key *
annotation_lookup (const char *key)
{
  for (size_t i = 0; i < ARRAY_SIZE (keys); i++)
    if (strcmp (keys[i].key, key) == 0)
      return &keys[i];
  return NULL;
}

char *
annotation_operator_keys (void)
{
  char *s = xstrdup (ANNOTATION_SYSTEMD_PROPERTIES);

  for (size_t i = ARRAY_SIZE (keys); i-- > 0;)
    if (keys[i].has_operator_values)
      {
        char *next = xasprintf ("%s, %s", keys[i].key, s);
        free (s);
        s = next;
      }
  return s;
}
