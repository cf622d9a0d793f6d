/* agentrt features: the OCI features document on stdout.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "agentrt.h"

static error_t
parse_features (int key, char *arg, struct argp_state *state)
{
  return ar_cmd_positional (key, arg, state, NULL, 0, 0, 0);
}

int
cmd_features (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    NULL, parse_features, "",   "Print what this runtime supports (runtime-spec features.md).",
    NULL, NULL,           NULL,
  };
  char *json;

  ar_cmd_parse (&argp, argc, argv, 0, NULL);
  json = ar_features ();
  fputs (json, stdout);
  free (json);
  return 0;
}
