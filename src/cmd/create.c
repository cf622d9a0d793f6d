/* agentrt create and agentrt run: the same options (run adds --detach and --keep), as runc.  */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "agentrt.h"
#include "create_opts.h"

enum
{
  OPT_CONSOLE_SOCKET = 1000,
  OPT_PID_FILE,
  OPT_NO_PIVOT,
  OPT_NO_NEW_KEYRING,
  OPT_PRESERVE_FDS,
  OPT_KEEP,
  OPT_NO_SUBREAPER,
  OPT_PLATFORM,
  OPT_AUDIT_LOG,
  OPT_AUDIT_BUDGET,
  OPT_NET_ALLOW,
  OPT_TIMEOUT,
  OPT_EPHEMERAL,
  OPT_DISK,
  OPT_CANARY,
  OPT_AGENT,
  OPT_MEMORY,
  OPT_CPUS,
  OPT_PIDS,
  OPT_POLICY,
};

static const struct argp_option create_options[] = {
  { "bundle", 'b', "DIR", 0, "bundle directory (default: the current directory)", 0 },
  { "console-socket", OPT_CONSOLE_SOCKET, "PATH", 0,
    "AF_UNIX socket to send the pty master to (process.terminal)", 0 },
  { "pid-file", OPT_PID_FILE, "FILE", 0, "write the container init's pid to FILE", 0 },
  { "no-pivot", OPT_NO_PIVOT, NULL, 0, "use MS_MOVE and chroot instead of pivot_root", 0 },
  { "no-new-keyring", OPT_NO_NEW_KEYRING, NULL, 0, "keep the caller's session keyring", 0 },
  { "preserve-fds", OPT_PRESERVE_FDS, "N", 0, "pass N more fds (3 … 3+N-1) to the container", 0 },
  { "platform", OPT_PLATFORM, "NAME", 0,
    "seccomp (default: the supervisor), ptrace (the same policy, the supervisor as the "
    "workload's tracer) or none (no agentrt policy, as runc)",
    0 },
  { "audit-log", OPT_AUDIT_LOG, "FILE", 0,
    "write the audit log to FILE (default ROOT/ID/audit.jsonl, or agentrt.conf's "
    "audit_dir/ID.jsonl)",
    0 },
  { "audit-budget", OPT_AUDIT_BUDGET, "SIZE", 0,
    "the most the audit log may grow (default 64m; an eighth of it is kept for alerts)", 0 },
  { "net-allow", OPT_NET_ALLOW, "LIST", 0,
    "only these TCP endpoints are reachable (host:port,ip:port,[v6]:port): a loopback-only "
    "network namespace, connects brokered by the supervisor",
    0 },
  { "timeout", OPT_TIMEOUT, "DUR", 0,
    "kill the whole container DUR after create (500ms, 90s, 5m, 1h): exit status 137", 0 },
  { "ephemeral", OPT_EPHEMERAL, NULL, 0,
    "an overlay on the rootfs with a private upper layer, thrown away on delete", 0 },
  { "disk", OPT_DISK, "SIZE", 0,
    "the writable layer's size (64m, 1g), also of tmpfs mounts without one; implies --ephemeral",
    0 },
  { "canary", OPT_CANARY, "PATH,...", 0,
    "plant decoy credential files; any open of one is an alert (implies --ephemeral)", 0 },
  { "policy", OPT_POLICY, "TIER", 0,
    "agentrt's syscall policy: default (a deny list) or strict (an allowlist; the agent "
    "profile's)",
    0 },
  { "agent", OPT_AGENT, NULL, 0,
    "apply the agent profile: user and network namespaces, no capabilities, caps, timeout", 0 },
  { "memory", OPT_MEMORY, "SIZE", 0, "linux.resources.memory.limit (512m, 2g)", 0 },
  { "cpus", OPT_CPUS, "N", 0, "CPU quota in CPUs (1, 0.5)", 0 },
  { "pids", OPT_PIDS, "N", 0, "linux.resources.pids.limit", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static const struct argp_option run_options[] = {
  { "detach", 'd', NULL, 0, "do not wait: return once the container has started", 0 },
  { "keep", OPT_KEEP, NULL, 0, "keep the stopped container's state (no delete at exit)", 0 },
  { "no-subreaper", OPT_NO_SUBREAPER, NULL, OPTION_HIDDEN, "accepted and ignored", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

/* Options of both commands.  */
static error_t
parse_common (int key, char *arg, struct argp_state *state)
{
  struct create_input *in = state->input;

  switch (key)
    {
    case 'b':
      in->o.bundle = arg;
      break;
    case OPT_CONSOLE_SOCKET:
      in->o.console_socket = arg;
      break;
    case OPT_PID_FILE:
      in->o.pid_file = arg;
      break;
    case OPT_NO_PIVOT:
      in->o.no_pivot = true;
      break;
    case OPT_NO_NEW_KEYRING:
      in->o.no_new_keyring = true;
      break;
    case OPT_PRESERVE_FDS:
      in->o.preserve_fds = ar_cmd_parse_fd_count (arg, state);
      break;
    case OPT_PLATFORM:
      in->o.platform = arg;
      break;
    case OPT_AUDIT_LOG:
      in->o.audit_log = arg;
      break;
    case OPT_AUDIT_BUDGET:
      in->o.audit_budget = arg;
      break;
    case OPT_NET_ALLOW:
      in->o.net_allow = arg;
      break;
    case OPT_TIMEOUT:
      in->o.timeout = arg;
      break;
    case OPT_EPHEMERAL:
      in->o.ephemeral = true;
      break;
    case OPT_DISK:
      in->o.disk = arg;
      break;
    case OPT_CANARY:
      in->o.canary = arg;
      break;
    case OPT_AGENT:
      in->o.agent = true;
      break;
    case OPT_POLICY:
      in->o.policy = arg;
      break;
    case OPT_MEMORY:
      in->o.memory = arg;
      break;
    case OPT_CPUS:
      in->o.cpus = arg;
      break;
    case OPT_PIDS:
      in->o.pids = arg;
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

/* run's own options and the container id, for both.  */
static error_t
parse_command (int key, char *arg, struct argp_state *state)
{
  struct create_input *in = state->input;

  switch (key)
    {
    case ARGP_KEY_INIT:
      state->child_inputs[0] = in;
      break;
    case 'd':
      in->o.detach = true;
      break;
    case OPT_KEEP:
      in->o.keep = true;
      break;
    case OPT_NO_SUBREAPER:
      break;
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->id), 1, 1);
    }
  return 0;
}

void
create_opts_parse (int argc, char **argv, bool run, struct create_input *in)
{
  static const struct argp common_argp
      = { create_options, parse_common, NULL, NULL, NULL, NULL, NULL };
  static const struct argp_child children[]
      = { { &common_argp, 0, NULL, 0 }, { NULL, 0, NULL, 0 } };
  static const struct argp create_argp = {
    NULL,        parse_command,
    "CONTAINER", "Create a container from the bundle's config.json; `start` runs its process.",
    children,    NULL,
    NULL,
  };
  static const struct argp run_argp = {
    run_options, parse_command,
    "CONTAINER", "Create and start a container, and wait for it: exits with its status.",
    children,    NULL,
    NULL,
  };

  ar_cmd_parse (run ? &run_argp : &create_argp, argc, argv, 0, in);
}

int
cmd_create (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  struct create_input in = { 0 };

  create_opts_parse (argc, argv, false, &in);
  return ar_container_create (g, in.id, &in.o, err);
}
