/* agentrt events [--stats] [--interval DUR] ID: runc's stats and OOM events as JSON.  */
#include <config.h>

#include "agentrt.h"

enum
{
  OPT_STATS = 1000,
  OPT_INTERVAL,
};

static const struct argp_option events_options[] = {
  { "stats", OPT_STATS, NULL, 0, "print the stats once and exit", 0 },
  { "interval", OPT_INTERVAL, "DURATION", 0, "stats interval (default 5s)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_events (int key, char *arg, struct argp_state *state)
{
  const char **id = state->input;

  switch (key)
    {
    case OPT_STATS:
    case OPT_INTERVAL:
      break;
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (id), 1, 1);
    }
  return 0;
}

int
cmd_events (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    events_options, parse_events, "CONTAINER", "Print a container's stats and events as JSON.",
    NULL,           NULL,         NULL,
  };
  const char *id = NULL;

  ar_cmd_parse (&argp, argc, argv, 0, &id);
  return ar_container_unsupported (g, id, "events", err);
}
