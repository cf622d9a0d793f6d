/* Edits of config.json made at create, before it is parsed for good: the shorthands of create
   and run (--memory, --cpus, --pids, written into linux.resources) and the agent profile
   (--agent, io.agentrt.profile=agent).  The edited text is what create stores and works from,
   so the state directory's copy of the config says what the container really got.  */
#ifndef AGENTRT_PROFILE_H
#define AGENTRT_PROFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

/* The agent profile's host range for the container's root (a user namespace).  */
#define PROFILE_AGENT_HOST_ID 100000
#define PROFILE_AGENT_ID_COUNT 65536

/* The host ids the agent profile lets a container have, [MIN, END): below are the host's own
   users (useradd's ids end at 60000, and the kubelet keeps the first 65536 for the host), from
   END up the runtime's own (kept for the owners of containers' user namespaces).  */
#define PROFILE_HOST_ID_MIN 65536u
#define PROFILE_HOST_ID_END 0xFF000000u

struct profile_edits
{
  bool agent;
  /* The agent profile keeps a network namespace config.json joins: a pod's sandbox's (it holds
     the pod's network for the others), or where the egress broker connects from (egress.h).  */
  bool keep_joined_net;
  bool policy_flag;          /* --policy was given: the profile does not write io.agentrt.policy */
  struct spec_i64 memory;    /* bytes: linux.resources.memory.limit */
  struct spec_i64 cpu_quota; /* µs per 100000 µs period */
  struct spec_i64 pids;      /* linux.resources.pids.limit */
  /* agentrt.conf's defaults: written only where config.json has no value (or a limit of 0),
     and before the agent profile's own, which they win over.  */
  struct spec_i64 def_memory, def_cpu_quota, def_pids;
  const char *def_timeout; /* io.agentrt.timeout's, or NULL */
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

/* Under the agent profile, the ids config.json maps: linux.uidMappings and gidMappings map only
   to host ids in [PROFILE_HOST_ID_MIN, PROFILE_HOST_ID_END), and so do the mounts' (idmapped
   mounts) on both sides: their container side is the ids of the files on the host, which an
   idmapped mount would give to the container.  */
int profile_check_ids (const struct spec *s, ar_error_t *err);

/* Under the agent profile, config.json's hooks that run on the host, as the runtime's root and
   outside every namespace and cgroup of the container (prestart, createRuntime, poststart,
   poststop), unless the operator allows them (agentrt.conf agent_hooks): whoever writes the
   bundle would otherwise run what they like as host root.  createContainer and startContainer
   run as the container's root, in its namespaces, and are kept.  */
int profile_check_hooks (const struct spec *s, bool allowed, ar_error_t *err);

/* Under the agent profile, the user namespace `pid` is in (made or joined: the kernel's maps,
   /proc/PID/uid_map and gid_map as the runtime sees them) maps only host ids in range.  */
int profile_check_userns (pid_t pid, ar_error_t *err);

#endif
