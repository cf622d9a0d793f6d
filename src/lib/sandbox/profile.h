/* Edits of config.json made at create, before it is parsed for good: the shorthands of create
   and run (--memory, --cpus, --pids, written into linux.resources) and the agent profile
   (--agent, io.agentrt.profile=agent).  The edited text is what create stores and works from,
   so the state directory's copy of the config says what the container really got.  */
#ifndef AGENTRT_PROFILE_H
#define AGENTRT_PROFILE_H

#include <stdbool.h>

#include "agentrt/error.h"
#include "spec/spec.h"

/* The agent profile's host range for the container's root (a user namespace).  */
#define PROFILE_AGENT_HOST_ID 100000
#define PROFILE_AGENT_ID_COUNT 65536

struct profile_edits
{
  bool agent;
  /* The agent profile keeps a network namespace config.json joins: a pod's sandbox's (it holds
     the pod's network for the others), or where the egress broker connects from (egress.h).  */
  bool keep_joined_net;
  struct spec_i64 memory;    /* bytes: linux.resources.memory.limit */
  struct spec_i64 cpu_quota; /* µs per 100000 µs period */
  struct spec_i64 pids;      /* linux.resources.pids.limit */
};

/* Does `e` change anything?  */
bool profile_edits_any (const struct profile_edits *e);

/* `text` (a config.json) with the edits applied, pretty-printed unless it is larger than 1 MiB
   (caller frees *out).  The
   agent profile: a new user namespace mapping root to PROFILE_AGENT_HOST_ID (unless the config
   has one with mappings), a new network namespace (loopback only; a joined one is kept with
   keep_joined_net), every capability dropped,
   noNewPrivileges, a writable root (over the ephemeral upper layer), cgroup mounts dropped (not
   mountable from a user namespace), the usual masked and read-only /proc paths, memory 512m, 1 cpu,
   256 pids unless set, and the annotations io.agentrt.ephemeral=true, io.agentrt.timeout=10m and
   io.agentrt.disk=256m (the writable layer) unless set.  */
int profile_apply (const char *text, const struct profile_edits *e, char **out, ar_error_t *err);

#endif
