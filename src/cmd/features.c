/* agentrt features: the OCI features document on stdout.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "agentrt.h"

static error_t
parse_features (int key, char *arg, struct argp_state *state)
{
  if (key == ARGP_KEY_END)
    ar_cmd_check_args (state, 0, 0);
  else if (key != ARGP_KEY_ARG)
    return ARGP_ERR_UNKNOWN;
  return 0;
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
