/* main: runc's global options, the command table, and the one place an error is printed.
   Global options are parsed in order up to the command word (crun's ARGP_IN_ORDER), so that
   each command parses the rest with its own options.  */
#include <config.h>

#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentrt.h"
#include "log.h"
#include "utils.h"

struct cmd
{
  const char *name;
  ar_cmd_fn fn;
  const char *summary;
};

static const struct cmd commands[] = {
  { "create", cmd_create, "create a container" },
  { "start", cmd_start, "start a created container" },
  { "run", cmd_run, "create and start a container, and wait for it" },
  { "state", cmd_state, "print the state of a container" },
  { "kill", cmd_kill, "send a signal to the container's init process" },
  { "delete", cmd_delete, "delete a container and what it holds" },
  { "list", cmd_list, "list the containers under --root" },
  { "exec", cmd_exec, "run a new process in a container" },
  { "ps", cmd_ps, "list the processes of a container" },
  { "pause", cmd_pause, "freeze every process of a container" },
  { "resume", cmd_resume, "thaw a paused container" },
  { "update", cmd_update, "change the resource limits of a container" },
  { "events", cmd_events, "print a container's stats and events" },
  { "spec", cmd_spec, "write a default config.json" },
  { "features", cmd_features, "print the OCI features document" },
  { "audit", cmd_audit, "print a container's audit log (supervised and denied calls)" },
  { "policy", cmd_policy, "show agentrt's own syscall policy" },
  { NULL, NULL, NULL },
};

enum
{
  OPT_ROOT = 1000,
  OPT_LOG,
  OPT_LOG_FORMAT,
  OPT_LOG_LEVEL,
  OPT_DEBUG,
  OPT_SYSTEMD_CGROUP,
  OPT_ROOTLESS,
  OPT_CRIU,
  OPT_CONFIG,
};

static const struct argp_option global_options[] = {
  { "root", OPT_ROOT, "DIR", 0, "state directory (default: /run/agentrt)", 0 },
  { "log", OPT_LOG, "FILE", 0, "write diagnostics and errors to FILE as well", 0 },
  { "log-format", OPT_LOG_FORMAT, "FORMAT", 0, "log format: text (default) or json", 0 },
  { "log-level", OPT_LOG_LEVEL, "LEVEL", 0, "error, warning (default), info or debug", 0 },
  { "debug", OPT_DEBUG, NULL, 0, "log debug messages", 0 },
  { "systemd-cgroup", OPT_SYSTEMD_CGROUP, NULL, 0, "manage cgroups through systemd", 0 },
  { "rootless", OPT_ROOTLESS, "VALUE", OPTION_ARG_OPTIONAL, "accepted and ignored, as by crun", 0 },
  { "criu", OPT_CRIU, "PATH", OPTION_HIDDEN, "accepted and ignored (no checkpointing)", 0 },
  { "config", OPT_CONFIG, "FILE", 0,
    "the operator's configuration (default: $AGENTRT_CONFIG, else /etc/agentrt/agentrt.conf)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

struct global_input
{
  struct ar_globals *g;
  const char *log_format;
  const char *log_level;
  int command; /* index in argv of the command word, 0 if none */
};

static error_t
parse_global (int key, char *arg, struct argp_state *state)
{
  struct global_input *in = state->input;

  switch (key)
    {
    case OPT_ROOT:
      in->g->root = arg;
      break;
    case OPT_LOG:
      in->g->log = arg;
      break;
    case OPT_LOG_FORMAT:
      in->log_format = arg;
      break;
    case OPT_LOG_LEVEL:
      in->log_level = arg;
      break;
    case OPT_DEBUG:
      in->g->debug = true;
      break;
    case OPT_SYSTEMD_CGROUP:
      in->g->systemd_cgroup = true;
      break;
    case OPT_ROOTLESS:
      in->g->rootless = arg ? arg : "true";
      break;
    case OPT_CRIU:
      break;
    case OPT_CONFIG:
      in->g->config = arg;
      break;
    case ARGP_KEY_ARG:
      in->command = state->next - 1;
      state->next = state->argc; /* the rest belongs to the command */
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

static char *
global_help (int key, const char *text, void *input)
{
  if (key != ARGP_KEY_HELP_POST_DOC)
    return (char *) text;
  size_t len = 0;
  for (const struct cmd *c = commands; c->name; c++)
    len += strlen (c->name) + strlen (c->summary) + 16;
  char *s = xzalloc (len + 64), *p = s;
  p += sprintf (p, "Commands:\n");
  for (const struct cmd *c = commands; c->name; c++)
    p += sprintf (p, "  %-10s %s\n", c->name, c->summary);
  sprintf (p, "\nRun 'agentrt COMMAND --help' for a command's options.");
  return s;
}

static const struct argp global_argp = {
  global_options,
  parse_global,
  "COMMAND [OPTION...] [ARG...]",
  "agentrt: an OCI runtime that sandboxes untrusted code\v",
  NULL,
  global_help,
  NULL,
};

static void
print_version (FILE *out, struct argp_state *state)
{
  cleanup_free char *v = ar_version_text ();
  fputs (v, out);
}
void (*argp_program_version_hook) (FILE *, struct argp_state *) = print_version;

/* With --log, what argp prints about bad usage must reach the log too (engines show the
   runtime's error from that file), so stderr becomes a stream that copies each line there.  */
struct tee
{
  char line[1024];
  size_t used;
};

/* containerd's shim shows the last error of the log and Podman parses it: it must be the
   diagnostic itself, not argp's usage or "Try `agentrt --help'" lines that follow it.  */
static bool
is_usage_line (const char *line)
{
  return ar_str_has_prefix (line, "Usage: ") || ar_str_has_prefix (line, "  or: ")
         || ar_str_has_prefix (line, "Try `") || ar_str_has_prefix (line, " ");
}

static ssize_t
tee_write (void *cookie, const char *buf, size_t len)
{
  struct tee *t = cookie;

  (void) ar_write_all (2, buf, len, "stderr", NULL);
  for (size_t i = 0; i < len; i++)
    {
      if (buf[i] == '\n' || t->used == sizeof t->line - 1)
        {
          t->line[t->used] = '\0';
          if (t->used > 0 && !is_usage_line (t->line))
            ar_log_to_file (AR_LOG_ERROR, t->line);
          t->used = 0;
        }
      if (buf[i] != '\n')
        t->line[t->used++] = buf[i];
    }
  return len;
}

static void
tee_stderr_to_log (void)
{
  static struct tee tee;
  cookie_io_functions_t io = { .write = tee_write };
  FILE *f = fopencookie (&tee, "w", io);

  if (f == NULL)
    return; /* keep plain stderr: the log then lacks usage errors, nothing else */
  setvbuf (f, NULL, _IOLBF, 0);
  stderr = f;
}

static int
setup_logging (const struct ar_globals *g, const struct global_input *in, ar_error_t *err)
{
  enum ar_log_format format = g->log_json ? AR_LOG_JSON : AR_LOG_TEXT;
  enum ar_log_level level = g->debug ? AR_LOG_DEBUG : AR_LOG_WARN;

  if (in->log_level && !g->debug && ar_log_parse_level (in->log_level, &level) < 0)
    return ar_make_error (err, 0, "--log-level: unknown level `%s`", in->log_level);
  if (ar_log_init (g->log, format, level, err) < 0)
    return -1;
  if (g->log && *g->log)
    tee_stderr_to_log ();
  return 0;
}

static const struct cmd *
find_command (const char *name)
{
  for (const struct cmd *c = commands; c->name; c++)
    if (strcmp (c->name, name) == 0)
      return c;
  return NULL;
}

static int
dispatch (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  const struct cmd *c = find_command (argv[0]);
  cleanup_free char *name = NULL;

  if (c == NULL)
    return ar_make_error (err, 0, "unknown command `%s` (see agentrt --help)", argv[0]);
  /* argp names the program by argv[0] in its messages: "agentrt state: …".  */
  name = xasprintf ("agentrt %s", c->name);
  argv[0] = name;
  return c->fn (g, argc, argv, err);
}

int
main (int argc, char **argv)
{
  struct ar_globals g = { 0 };
  struct global_input in = { .g = &g };
  ar_error_t err = NULL;
  int ret;

  /* An ignored SIGCHLD stays ignored across exec: then children are reaped by the kernel and
     no SIGCHLD is sent, so run and exec would wait for an exit forever, the ptrace platform's
     tracer would never hear of a stop, and the container's init would inherit it too.  */
  signal (SIGCHLD, SIG_DFL);
  argp_err_exit_status = EXIT_FAILURE;
  argv[0] = (char *) "agentrt"; /* argp's messages name the program by argv[0] */
  argp_parse (&global_argp, argc, argv, ARGP_IN_ORDER, NULL, &in);
  /* Engines pass runc's global flags only: an operator whose engine runs agentrt can name the
     file in the environment instead (or use the default path).  */
  if (g.config == NULL && getenv ("AGENTRT_CONFIG") && *getenv ("AGENTRT_CONFIG"))
    g.config = getenv ("AGENTRT_CONFIG");
  if (g.config && *g.config == '\0')
    ret = ar_make_error (&err, 0, "--config: expected a file");
  else if (in.log_format && ar_log_parse_format (in.log_format, &(enum ar_log_format){ 0 }) < 0)
    ret = ar_make_error (&err, 0, "--log-format: expected text or json, not `%s`", in.log_format);
  else
    {
      g.log_json = in.log_format && strcmp (in.log_format, "json") == 0;
      ret = setup_logging (&g, &in, &err);
    }
  if (ret >= 0 && in.command == 0)
    {
      argp_help (&global_argp, stderr, ARGP_HELP_SHORT_USAGE | ARGP_HELP_SEE, (char *) "agentrt");
      ret = ar_make_error (&err, 0, "no command given (see agentrt --help)");
    }
  if (ret >= 0)
    ret = dispatch (&g, argc - in.command, argv + in.command, &err);
  if (ret < 0)
    {
      ar_log_error_release (&err);
      ret = EXIT_FAILURE;
    }
  fflush (stdout);
  ar_log_close ();
  return ret;
}
