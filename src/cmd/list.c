/* agentrt list [--format table|json] [--quiet]: runc's table (tabwriter, min width 12, padding
   3), its JSON array, or only the ids.  */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "agentrt.h"

struct list_input
{
  const char *format;
  bool quiet;
};

static const struct argp_option list_options[] = {
  { "format", 'f', "FORMAT", 0, "table (default) or json", 0 },
  { "quiet", 'q', NULL, 0, "print only the container ids", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_list (int key, char *arg, struct argp_state *state)
{
  struct list_input *in = state->input;

  switch (key)
    {
    case 'f':
      if (strcmp (arg, "table") != 0 && strcmp (arg, "json") != 0)
        argp_error (state, "--format: expected table or json, not `%s`", arg);
      in->format = arg;
      break;
    case 'q':
      in->quiet = true;
      break;
    default:
      return ar_cmd_positional (key, arg, state, NULL, 0, 0, 0);
    }
  return 0;
}

static int
width (int w, const char *s)
{
  int l = (int) strlen (s) + 3;
  return l > w ? l : w;
}

static void
print_table (const struct ar_container_info *v, size_t n)
{
  int w[5] = { 12, 12, 12, 12, 12 };
  char pid[16];

  w[0] = width (w[0], "ID");
  for (size_t i = 0; i < n; i++)
    {
      snprintf (pid, sizeof pid, "%d", v[i].pid);
      w[0] = width (w[0], v[i].id);
      w[1] = width (w[1], pid);
      w[2] = width (w[2], v[i].status);
      w[3] = width (w[3], v[i].bundle);
      w[4] = width (w[4], v[i].created);
    }
  printf ("%-*s%-*s%-*s%-*s%-*s%s\n", w[0], "ID", w[1], "PID", w[2], "STATUS", w[3], "BUNDLE", w[4],
          "CREATED", "OWNER");
  for (size_t i = 0; i < n; i++)
    printf ("%-*s%-*d%-*s%-*s%-*s%s\n", w[0], v[i].id, w[1], v[i].pid, w[2], v[i].status, w[3],
            v[i].bundle, w[4], v[i].created, v[i].owner);
}

static void
print_json (const struct ar_container_info *v, size_t n)
{
  fputs ("[", stdout);
  for (size_t i = 0; i < n; i++)
    printf ("%s%s", i ? "," : "", v[i].json);
  fputs ("]\n", stdout);
}

int
cmd_list (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    list_options, parse_list, "", "List the containers under --root.", NULL, NULL, NULL,
  };
  struct list_input in = { .format = "table" };
  struct ar_container_info *v = NULL;
  size_t n = 0;

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  if (ar_container_list (g, &v, &n, err) < 0)
    return -1;
  if (in.quiet)
    for (size_t i = 0; i < n; i++)
      printf ("%s\n", v[i].id);
  else if (strcmp (in.format, "json") == 0)
    print_json (v, n);
  else
    print_table (v, n);
  ar_container_info_free (v, n);
  return 0;
}
