/* agentrt ps [--format table|json] ID [PS_ARGS...]: the container's processes.  */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"

#include "agentrt.h"

struct ps_input
{
  const char *id;
  bool json;
  char **ps_args; /* after the id */
  int n_ps_args;
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
      in->json = strcmp (arg, "json") == 0;
      break;
    case ARGP_KEY_ARG:
      in->id = arg;
      in->ps_args = state->argv + state->next;
      in->n_ps_args = state->argc - state->next;
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

/* The column of PID in ps's header line, counting from 0.  */
static int
pid_column (char *header)
{
  char *save = NULL;
  int i = 0;

  for (char *f = strtok_r (header, " \t\n", &save); f; f = strtok_r (NULL, " \t\n", &save), i++)
    if (strcmp (f, "PID") == 0)
      return i;
  return -1;
}

static bool
line_pid_in (const char *line, int col, const int *pids, size_t n)
{
  cleanup_free char *copy = xstrdup (line);
  char *save = NULL, *f = strtok_r (copy, " \t\n", &save);

  for (int i = 0; f && i < col; i++)
    f = strtok_r (NULL, " \t\n", &save);
  if (f == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    if (atoi (f) == pids[i])
      return true;
  return false;
}

/* runc's table: ps(1) with the given options (default -ef), filtered to the container's pids.  */
static int
print_table (const struct ps_input *in, const int *pids, size_t n, ar_error_t *err)
{
  cleanup_free char *cmd = xstrdup ("ps");
  FILE *f;
  char *line = NULL, *header = NULL;
  size_t cap = 0;
  int col = -1, st;

  for (int i = 0; i < in->n_ps_args; i++)
    {
      char *next = xasprintf ("%s '%s'", cmd, in->ps_args[i]);
      if (strchr (in->ps_args[i], '\''))
        {
          free (next);
          return ar_make_error (err, EINVAL, "ps: option `%s` has a quote", in->ps_args[i]);
        }
      free (cmd);
      cmd = next;
    }
  if (in->n_ps_args == 0)
    {
      free (cmd);
      cmd = xstrdup ("ps -ef");
    }
  f = popen (cmd, "r");
  if (f == NULL)
    return ar_make_error (err, errno, "run `%s`", cmd);
  while (getline (&line, &cap, f) > 0)
    {
      if (header == NULL)
        {
          header = xstrdup (line);
          fputs (line, stdout);
          col = pid_column (header);
          continue;
        }
      if (col >= 0 && line_pid_in (line, col, pids, n))
        fputs (line, stdout);
    }
  free (line);
  st = pclose (f);
  free (header);
  if (col < 0)
    return ar_make_error (err, 0, "ps: no PID field in the output of `%s`", cmd);
  if (st != 0)
    return ar_make_error (err, 0, "`%s` failed", cmd);
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

  int *pids = NULL;
  size_t n = 0;
  int r;

  ar_cmd_parse (&argp, argc, argv, ARGP_IN_ORDER, &in);
  if (ar_container_pids (g, in.id, &pids, &n, err) < 0)
    return -1;
  if (in.json)
    {
      putchar ('[');
      for (size_t i = 0; i < n; i++)
        printf ("%s%d", i ? "," : "", pids[i]);
      puts ("]");
      free (pids);
      return 0;
    }
  r = print_table (&in, pids, n, err);
  free (pids);
  return r;
}
