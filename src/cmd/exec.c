/* agentrt exec [OPTION...] ID COMMAND [ARG...] | --process FILE ID: a new process in a running
   container.  Options stop at the id: what follows is the command, dashes and all (runc).  */
#include <config.h>

#include <stdlib.h>

#include "agentrt.h"

enum
{
  OPT_CONSOLE_SOCKET = 1000,
  OPT_PID_FILE,
  OPT_CWD,
  OPT_NO_NEW_PRIVS,
  OPT_PRESERVE_FDS,
  OPT_IGNORED,
};

static const struct argp_option exec_options[] = {
  { "process", 'p', "FILE", 0, "a process.json (runtime-spec `process`) instead of COMMAND", 0 },
  { "tty", 't', NULL, 0, "allocate a pseudo-terminal", 0 },
  { "detach", 'd', NULL, 0, "do not wait for the process", 0 },
  { "env", 'e', "NAME=VALUE", 0, "set an environment variable (repeatable)", 0 },
  { "cwd", OPT_CWD, "DIR", 0, "working directory in the container", 0 },
  { "user", 'u', "UID[:GID]", 0, "user and group to run as", 0 },
  { "additional-gids", 'g', "GID", 0, "an additional group (repeatable)", 0 },
  { "cap", 'c', "CAP", 0, "add a capability (repeatable)", 0 },
  { "no-new-privs", OPT_NO_NEW_PRIVS, NULL, 0, "set no_new_privs", 0 },
  { "console-socket", OPT_CONSOLE_SOCKET, "PATH", 0, "socket to send the pty master to", 0 },
  { "pid-file", OPT_PID_FILE, "FILE", 0, "write the new process's pid to FILE", 0 },
  { "preserve-fds", OPT_PRESERVE_FDS, "N", 0, "pass N more fds to the process", 0 },
  { "process-label", OPT_IGNORED, "LABEL", OPTION_HIDDEN, "accepted and ignored", 0 },
  { "apparmor", OPT_IGNORED, "PROFILE", OPTION_HIDDEN, "accepted and ignored", 0 },
  { "cgroup", OPT_IGNORED, "PATH", OPTION_HIDDEN, "accepted and ignored", 0 },
  { "ignore-paused", OPT_IGNORED + 1, NULL, OPTION_HIDDEN, "accepted and ignored", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

struct exec_input
{
  const char *id;
  struct ar_exec_opts o;
  size_t n_env, n_caps, n_gids;
};

static void
push (char ***v, size_t *n, char *s)
{
  *v = realloc (*v, (*n + 2) * sizeof **v);
  if (*v == NULL)
    abort ();
  (*v)[(*n)++] = s;
  (*v)[*n] = NULL;
}

static error_t
parse_exec_positional (struct exec_input *in, char *arg, struct argp_state *state)
{
  if (state->arg_num == 0)
    {
      in->id = arg;
      return 0;
    }
  /* The first word after the id starts the command: stop parsing options here.  */
  in->o.argv = &state->argv[state->next - 1];
  in->o.argc = state->argc - (state->next - 1);
  state->next = state->argc;
  return 0;
}

static error_t
parse_exec (int key, char *arg, struct argp_state *state)
{
  struct exec_input *in = state->input;

  switch (key)
    {
    case 'p':
      in->o.process_file = arg;
      break;
    case 't':
      in->o.tty = true;
      break;
    case 'd':
      in->o.detach = true;
      break;
    case 'e':
      push (&in->o.env, &in->n_env, arg);
      break;
    case 'c':
      push (&in->o.caps, &in->n_caps, arg);
      break;
    case OPT_CWD:
      in->o.cwd = arg;
      break;
    case 'u':
      in->o.user = arg;
      break;
    case OPT_NO_NEW_PRIVS:
      in->o.no_new_privs = true;
      break;
    case OPT_CONSOLE_SOCKET:
      in->o.console_socket = arg;
      break;
    case OPT_PID_FILE:
      in->o.pid_file = arg;
      break;
    case OPT_PRESERVE_FDS:
      in->o.preserve_fds = ar_cmd_parse_fd_count (arg, state);
      break;
    case 'g':
      push (&in->o.gids, &in->n_gids, arg);
      break;
    case OPT_IGNORED:
    case OPT_IGNORED + 1:
      break;
    case ARGP_KEY_ARG:
      return parse_exec_positional (in, arg, state);
    case ARGP_KEY_END:
      /* arg_num counts the command's words too, which we consumed at once.  */
      ar_cmd_check_args (state, 1, (unsigned) -1);
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

int
cmd_exec (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    exec_options,
    parse_exec,
    "CONTAINER COMMAND [ARG...]\n--process FILE CONTAINER",
    "Run a new process inside a running container.",
    NULL,
    NULL,
    NULL,
  };
  struct exec_input in = { 0 };
  int ret;

  ar_cmd_parse (&argp, argc, argv, ARGP_IN_ORDER, &in);
  ret = ar_container_exec (g, in.id, &in.o, err);
  free (in.o.env);
  free (in.o.caps);
  free (in.o.gids);
  return ret;
}
