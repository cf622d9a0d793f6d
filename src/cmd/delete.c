/* agentrt delete [--force] ID: remove a stopped container; --force kills a live one first and
   succeeds for an id that is already gone (containerd relies on it).  */
#include <config.h>

#include "agentrt.h"

struct delete_input
{
  const char *id;
  bool force;
};

static const struct argp_option delete_options[] = {
  { "force", 'f', NULL, 0, "kill the container if it still runs; no error if it is gone", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_delete (int key, char *arg, struct argp_state *state)
{
  struct delete_input *in = state->input;

  switch (key)
    {
    case 'f':
      in->force = true;
      break;
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->id), 1, 1);
    }
  return 0;
}

int
cmd_delete (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    delete_options, parse_delete,
    "CONTAINER",    "Delete a container: its processes, cgroups, mounts and state.",
    NULL,           NULL,
    NULL,
  };
  struct delete_input in = { 0 };

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  return ar_container_delete (g, in.id, in.force, err);
}
