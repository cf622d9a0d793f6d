/* Shared argument handling for the subcommands.  */
#include <config.h>

#include <argp.h>
#include <stdio.h>
#include <stdlib.h>

#include "agentrt.h"

void
ar_cmd_parse (const struct argp *argp, int argc, char **argv, unsigned flags, void *input)
{
  argp_parse (argp, argc, argv, flags, NULL, input);
}

void
ar_cmd_check_args (struct argp_state *state, unsigned min, unsigned max)
{
  const char *what = NULL;

  if (state->arg_num < min)
    what = "missing";
  else if (state->arg_num > max)
    what = "too many";
  if (what == NULL)
    return;
  if (max == (unsigned) -1)
    fprintf (state->err_stream, "%s: %s arguments: expects at least %u\n", state->name, what, min);
  else if (min == max)
    fprintf (state->err_stream, "%s: %s arguments: expects exactly %u\n", state->name, what, min);
  else
    fprintf (state->err_stream, "%s: %s arguments: expects %u to %u\n", state->name, what, min,
             max);
  argp_state_help (state, state->err_stream,
                   ARGP_HELP_SHORT_USAGE | ARGP_HELP_SEE | ARGP_HELP_EXIT_ERR);
}

int
ar_cmd_parse_fd_count (const char *arg, struct argp_state *state)
{
  char *end = NULL;
  long n = strtol (arg, &end, 10);

  if (*arg == '\0' || *end != '\0' || n < 0 || n > 65536)
    argp_error (state, "--preserve-fds: expected a number of fds, not `%s`", arg);
  return (int) n;
}

error_t
ar_cmd_positional (int key, char *arg, struct argp_state *state, const char **const *slots,
                   unsigned n_slots, unsigned min, unsigned max)
{
  if (key == ARGP_KEY_ARG)
    {
      if (state->arg_num < n_slots)
        *slots[state->arg_num] = arg;
      return 0;
    }
  if (key == ARGP_KEY_END)
    {
      ar_cmd_check_args (state, min, max);
      return 0;
    }
  return ARGP_ERR_UNKNOWN;
}

static error_t
parse_id (int key, char *arg, struct argp_state *state)
{
  const char **id = state->input;
  return ar_cmd_positional (key, arg, state, AR_SLOTS (id), 1, 1);
}

int
ar_cmd_parse_id (int argc, char **argv, const char *doc, const char **id)
{
  static const struct argp_option none[] = { { NULL, 0, NULL, 0, NULL, 0 } };
  struct argp argp = { none, parse_id, "CONTAINER", doc, NULL, NULL, NULL };

  ar_cmd_parse (&argp, argc, argv, 0, id);
  return 0;
}
