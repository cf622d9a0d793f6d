/* agentrt events [--stats] [--interval DUR] ID: runc's stats and OOM events as JSON.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct events_input
{
  const char *id;
  bool stats;
  long interval_ms;
};

/* "5s", "500ms", "1m", "2": Go's durations as runc takes them (a bare number is seconds).  */
static long
parse_duration (const char *arg, struct argp_state *state)
{
  char *end;
  double v = strtod (arg, &end);
  double scale = 1000;

  if (end == arg || v <= 0)
    argp_error (state, "--interval: `%s` is not a duration", arg);
  if (strcmp (end, "ms") == 0)
    scale = 1;
  else if (strcmp (end, "m") == 0)
    scale = 60000;
  else if (*end && strcmp (end, "s") != 0)
    argp_error (state, "--interval: `%s` is not a duration", arg);
  return (long) (v * scale) > 0 ? (long) (v * scale) : 1;
}

static error_t
parse_events (int key, char *arg, struct argp_state *state)
{
  struct events_input *in = state->input;

  switch (key)
    {
    case OPT_STATS:
      in->stats = true;
      break;
    case OPT_INTERVAL:
      in->interval_ms = parse_duration (arg, state);
      break;
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->id), 1, 1);
    }
  return 0;
}

static void
print_event (const char *json, void *data)
{
  (void) data;
  puts (json);
  fflush (stdout);
}

int
cmd_events (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    events_options, parse_events, "CONTAINER", "Print a container's stats and events as JSON.",
    NULL,           NULL,         NULL,
  };
  struct events_input in = { 0 };

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  return ar_container_events (g, in.id, in.stats, in.interval_ms, print_event, NULL, err);
}
