/* agentrt update [--resources FILE|-] [runc's resource flags] [--net-allow LIST]
   [--net-allow-add LIST] [--net-allow-remove LIST] [--timeout [+]DURATION] ID.  */
#include <config.h>

#include "agentrt.h"

enum
{
  OPT_FIRST = 1000,
  OPT_NET_ALLOW = 2000,
  OPT_NET_ADD,
  OPT_NET_REMOVE,
  OPT_TIMEOUT,
};

/* runc's flags, each taking a value; they become linux.resources members.  */
static const struct argp_option update_options[] = {
  { "resources", 'r', "FILE", 0, "a linux.resources JSON document; - reads stdin", 0 },
  { "blkio-weight", OPT_FIRST, "N", 0, "block IO weight, 10 to 1000", 0 },
  { "cpu-period", OPT_FIRST + 1, "US", 0, "CFS period", 0 },
  { "cpu-quota", OPT_FIRST + 2, "US", 0, "CFS quota", 0 },
  { "cpu-share", OPT_FIRST + 3, "N", 0, "CPU shares", 0 },
  { "cpu-rt-period", OPT_FIRST + 4, "US", 0, "realtime period", 0 },
  { "cpu-rt-runtime", OPT_FIRST + 5, "US", 0, "realtime runtime", 0 },
  { "cpuset-cpus", OPT_FIRST + 6, "LIST", 0, "CPUs to run on", 0 },
  { "cpuset-mems", OPT_FIRST + 7, "LIST", 0, "memory nodes to allocate from", 0 },
  { "memory", OPT_FIRST + 8, "BYTES", 0, "memory limit", 0 },
  { "memory-reservation", OPT_FIRST + 9, "BYTES", 0, "memory soft limit", 0 },
  { "memory-swap", OPT_FIRST + 10, "BYTES", 0, "memory + swap limit", 0 },
  { "kernel-memory", OPT_FIRST + 11, "BYTES", OPTION_HIDDEN, "obsolete, ignored", 0 },
  { "kernel-memory-tcp", OPT_FIRST + 12, "BYTES", OPTION_HIDDEN, "obsolete, ignored", 0 },
  { "pids-limit", OPT_FIRST + 13, "N", 0, "maximum number of processes", 0 },
  { "l3-cache-schema", OPT_FIRST + 14, "S", OPTION_HIDDEN, "Intel RDT: not supported", 0 },
  { "mem-bw-schema", OPT_FIRST + 15, "S", OPTION_HIDDEN, "Intel RDT: not supported", 0 },
  { "net-allow", OPT_NET_ALLOW, "LIST", 0,
    "replace the egress allowlist (connections it no longer allows are shut down)", 0 },
  { "net-allow-add", OPT_NET_ADD, "LIST", 0, "add entries to the egress allowlist", 0 },
  { "net-allow-remove", OPT_NET_REMOVE, "LIST", 0,
    "remove entries from the egress allowlist (each must be on it)", 0 },
  { "timeout", OPT_TIMEOUT, "[+]DURATION", 0,
    "the deadline: DURATION after create, or +DURATION from now (90s, 5m, 1h)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

struct update_input
{
  const char *id;
  struct ar_update_opts o;
};

static error_t
parse_update (int key, char *arg, struct argp_state *state)
{
  struct update_input *in = state->input;

  if (key == 'r')
    in->o.resources = arg;
  else if (key == OPT_NET_ALLOW)
    in->o.net_allow = arg;
  else if (key == OPT_NET_ADD)
    in->o.net_allow_add = arg;
  else if (key == OPT_NET_REMOVE)
    in->o.net_allow_remove = arg;
  else if (key == OPT_TIMEOUT)
    in->o.timeout = arg;
  else if (key >= OPT_FIRST && key < OPT_FIRST + AR_UPD__N)
    in->o.flags[key - OPT_FIRST] = arg; /* checked by the library */
  else
    return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->id), 1, 1);
  return 0;
}

int
cmd_update (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    update_options,
    parse_update,
    "CONTAINER",
    "Change the resource limits of a container, its egress allowlist or its deadline.",
    NULL,
    NULL,
    NULL,
  };
  struct update_input in = { 0 };

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  return ar_container_update (g, in.id, &in.o, err);
}
