/* agentrt spec [--bundle DIR] [--rootless]: write a default config.json, as runc spec.  */
#include <config.h>

#include "agentrt.h"

enum
{
  OPT_ROOTLESS = 1000,
  OPT_AGENT,
};

struct spec_input
{
  const char *bundle;
  bool rootless, agent;
};

static const struct argp_option spec_options[] = {
  { "bundle", 'b', "DIR", 0, "where to write config.json (default: the current directory)", 0 },
  { "rootless", OPT_ROOTLESS, NULL, 0, "a config for an unprivileged user (user namespace)", 0 },
  { "agent", OPT_AGENT, NULL, 0,
    "a locked-down config for model-written code: user and network namespaces, no "
    "capabilities, an ephemeral rootfs, caps and a timeout",
    0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_spec (int key, char *arg, struct argp_state *state)
{
  struct spec_input *in = state->input;

  switch (key)
    {
    case 'b':
      in->bundle = arg;
      break;
    case OPT_ROOTLESS:
      in->rootless = true;
      break;
    case OPT_AGENT:
      in->agent = true;
      break;
    default:
      return ar_cmd_positional (key, arg, state, NULL, 0, 0, 0);
    }
  return 0;
}

int
cmd_spec (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    spec_options, parse_spec, "",   "Write a default config.json into the bundle directory.",
    NULL,         NULL,       NULL,
  };
  struct spec_input in = { 0 };

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  if (in.agent && in.rootless)
    return ar_make_error (err, EINVAL, "--agent and --rootless: choose one");
  if (in.agent)
    return ar_spec_write_agent (in.bundle, err);
  return ar_spec_write (in.bundle, in.rootless, err);
}
