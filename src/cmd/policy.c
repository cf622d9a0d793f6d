/* agentrt policy show [--arch x86_64|aarch64] [--tier default|strict] [--format table|json]:
   agentrt's own syscall table, one row per syscall in number order: name, number, tier,
   condition, handler, severity, rule; after the table, the count of each tier and how many
   calls reach the kernel without the supervisor.  */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentrt.h"
#include "json.h"
#include "policy/policy.h"
#include "utils.h"

struct policy_input
{
  const char *action, *arch, *format, *tier;
};

static const struct argp_option policy_options[] = {
  { "arch", 'a', "ARCH", 0, "the table of ARCH: x86_64 or aarch64 (default: this machine's)", 0 },
  { "format", 'f', "FORMAT", 0, "table (default) or json", 0 },
  { "tier", 't', "TIER", 0, "the policy of TIER: default or strict (the agent profile's)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_policy (int key, char *arg, struct argp_state *state)
{
  struct policy_input *in = state->input;

  switch (key)
    {
    case 'a':
      if (policy_table_by_arch (arg) == NULL)
        argp_error (state, "--arch: expected x86_64 or aarch64, not `%s`", arg);
      in->arch = arg;
      break;
    case 't':
      {
        bool strict;
        if (policy_tier_from_name (arg, &strict) < 0)
          argp_error (state, "--tier: expected default or strict, not `%s`", arg);
        in->tier = arg;
      }
      break;
    case 'f':
      if (strcmp (arg, "table") != 0 && strcmp (arg, "json") != 0)
        argp_error (state, "--format: expected table or json, not `%s`", arg);
      in->format = arg;
      break;
    case ARGP_KEY_END:
      if (in->action && strcmp (in->action, "show") != 0)
        argp_error (state, "unknown action `%s` (expected show)", in->action);
      /* fall through */
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->action), 1, 1);
    }
  return 0;
}

/* The errno a refused call gets, or 0 if the entry never refuses.  */
static int
entry_errno (const struct sc_entry *e)
{
  if (e->tier != SC_ERRNO && e->handler != SH_DENY)
    return 0;
  return e->err ? e->err : EPERM;
}

/* "deny:EPERM", "none:ENOSYS", "uname" (caller frees).  */
static char *
handler_text (const struct sc_entry *e)
{
  int e_no = entry_errno (e);
  const char *h = policy_handler_name (e->handler);

  return e_no ? xasprintf ("%s:%s", h, strerrorname_np (e_no)) : xstrdup (h);
}

static const char *
or_dash (const char *s)
{
  return s && *s ? s : "-";
}

static void
print_table (const struct policy *p)
{
  printf ("%-24s %4s %-10s %-58s %-20s %-8s %s\n", "NAME", "NR", "TIER", "CONDITION", "HANDLER",
          "SEVERITY", "RULE");
  for (size_t nr = 0; nr < p->n_nr; nr++)
    {
      const struct sc_entry *e = p->by_nr[nr];
      cleanup_free char *h = NULL;

      if (e == NULL)
        continue;
      h = handler_text (e);
      printf ("%-24s %4zu %-10s %-58s %-20s %-8s %s\n", e->name, nr, policy_tier_name (e->tier),
              or_dash (policy_cond_text (e->cond)), h, policy_severity_name (e->severity), e->rule);
    }
}

/* "policy strict (x86_64): reachable in the kernel: 188 (allow 180, allow-if 8); supervise 10,
   deny 195, errno 1".  */
static void
print_counts (const struct policy *p, const char *tier)
{
  struct policy_counts c;

  policy_count (p, &c);
  printf ("policy %s (%s): reachable in the kernel: %zu (allow %zu, allow-if %zu); supervise %zu, "
          "deny %zu, errno %zu\n",
          tier, p->table->arch, c.reachable, c.tier[SC_ALLOW], c.tier[SC_ALLOW_IF],
          c.tier[SC_SUPERVISE], c.tier[SC_DENY], c.tier[SC_ERRNO]);
}

static void
json_entry (struct ar_json *j, size_t nr, const struct sc_entry *e)
{
  const char *cond = policy_cond_text (e->cond);
  int e_no = entry_errno (e);

  ar_json_obj_open (j);
  ar_json_kstr (j, "name", e->name);
  ar_json_kint (j, "nr", (long long) nr);
  ar_json_kstr (j, "tier", policy_tier_name (e->tier));
  ar_json_kstr (j, "condition", *cond ? cond : NULL);
  ar_json_kstr (j, "handler", policy_handler_name (e->handler));
  ar_json_kstr (j, "errno", e_no ? strerrorname_np (e_no) : NULL);
  ar_json_kstr (j, "severity", policy_severity_name (e->severity));
  ar_json_kstr (j, "rule", e->rule);
  /* Numbered by the table, not by libseccomp, which does not know it.  */
  ar_json_kbool (j, "new", e->new_nr != 0);
  ar_json_obj_close (j);
}

static void
print_json (const struct policy *p)
{
  struct ar_json *j = ar_json_new ("  ");
  char *text;

  ar_json_arr_open (j);
  for (size_t nr = 0; nr < p->n_nr; nr++)
    if (p->by_nr[nr])
      json_entry (j, nr, p->by_nr[nr]);
  ar_json_arr_close (j);
  text = ar_json_finish (j, NULL);
  fputs (text, stdout);
  free (text);
}

int
cmd_policy (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    policy_options,
    parse_policy,
    "show",
    "Print agentrt's own syscall policy: each syscall's tier (allow, allow-if, supervise, deny, "
    "errno), the condition of allow-if entries, the supervisor's handler, the severity of its "
    "audit record and the rule name audit records carry; then the count of each tier and of the "
    "calls that reach the kernel without the supervisor.",
    NULL,
    NULL,
    NULL,
  };
  struct policy_input in = { .format = "table", .tier = "default" };
  /* A default container's: the seccomp platform, a pid namespace of its own (ptrace allowed).  */
  struct policy_opts o = { .allow_ptrace = true };
  const struct sc_table *t;
  struct policy p;

  (void) g;
  ar_cmd_parse (&argp, argc, argv, 0, &in);
  t = in.arch ? policy_table_by_arch (in.arch) : policy_native_table ();
  if (t == NULL)
    return ar_make_error (err, 0, "policy: no table for this architecture (use --arch)");
  (void) policy_tier_from_name (in.tier, &o.strict);
  if (policy_init (&p, t, &o, err) < 0)
    return -1;
  if (strcmp (in.format, "json") == 0)
    print_json (&p);
  else
    {
      print_table (&p);
      print_counts (&p, in.tier);
    }
  policy_release (&p);
  return 0;
}
