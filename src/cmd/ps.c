/* agentrt ps [--format table|json] ID [PS_ARGS...]: the container's processes.  */
#include <config.h>

#include <string.h>

#include "agentrt.h"

struct ps_input
{
  const char *id;
};

static const struct argp_option ps_options[] = {
  { "format", 'f', "FORMAT", 0, "table (default) or json (a list of pids)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_ps (int key, char *arg, struct argp_state *state)
{
  struct ps_input *in = state->input;

  switch (key)
    {
    case 'f':
      if (strcmp (arg, "table") != 0 && strcmp (arg, "json") != 0)
        argp_error (state, "--format: expected table or json, not `%s`", arg);
      break;
    case ARGP_KEY_ARG:
      in->id = arg;
      state->next = state->argc; /* the rest are ps(1) options, as in runc */
      break;
    case ARGP_KEY_END:
      ar_cmd_check_args (state, 1, (unsigned) -1);
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

int
cmd_ps (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    ps_options, parse_ps, "CONTAINER [PS_OPTION...]", "List the processes of a container.", NULL,
    NULL,       NULL,
  };
  struct ps_input in = { 0 };

  ar_cmd_parse (&argp, argc, argv, ARGP_IN_ORDER, &in);
  return ar_container_unsupported (g, in.id, "ps", err);
}
