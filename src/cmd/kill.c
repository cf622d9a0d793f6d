/* agentrt kill [--all] ID [SIGNAL]: SIGTERM by default; names or numbers, as runc.  */
#include <config.h>

#include <signal.h>

#include "agentrt.h"

struct kill_input
{
  const char *id, *signal;
  bool all;
};

static const struct argp_option kill_options[] = {
  { "all", 'a', NULL, 0, "signal every process of the container, not only its init", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_kill (int key, char *arg, struct argp_state *state)
{
  struct kill_input *in = state->input;

  switch (key)
    {
    case 'a':
      in->all = true;
      break;
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->id, &in->signal), 1, 2);
    }
  return 0;
}

int
cmd_kill (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    kill_options,
    parse_kill,
    "CONTAINER [SIGNAL]",
    "Send SIGNAL (default SIGTERM) to the container's init process.",
    NULL,
    NULL,
    NULL,
  };
  struct kill_input in = { .signal = "SIGTERM" };

  int sig;

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  sig = ar_signal_parse (in.signal);
  if (sig < 0)
    return ar_make_error (err, 0, "invalid signal `%s`", in.signal);
  return ar_container_kill (g, in.id, sig, in.all, err);
}
