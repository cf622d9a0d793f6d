/* Shared by container.c and lifecycle.c, nothing else.  */
#ifndef AGENTRT_CONTAINER_INTERNAL_H
#define AGENTRT_CONTAINER_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/container.h"
#include "state/state.h"

const char *container_root (const struct ar_globals *g);
/* agentrt.conf: --config, $AGENTRT_CONFIG (both in g->config), or the default (operator.h).  */
struct operator_conf;
int container_operator_load (const struct ar_globals *g, struct operator_conf *out,
                             ar_error_t *err);
/* Validate the id, lock ROOT/ID (shared or exclusive), load and refresh its state.  With
   dirfd_out the locked directory fd is handed over (the lock lives with it).  */
int container_load_locked (const struct ar_globals *g, const char *id, bool exclusive,
                           int *dirfd_out, struct state **out, ar_error_t *err);

/* Is a directory whose state.json would not load (load_err, from state_load) damaged?  Missing,
   it is only if nobody holds its lock (`locked`: the caller does): else a create has not written
   it yet, or a delete has removed it.  Corrupt, it is.  An error reading it is not damage.  */
bool container_damaged (int rootfd, const char *id, bool locked, const ar_error_t load_err);
/* What is wrong with a damaged directory, in a few words ("state.json is missing").  */
char *container_damage_text (const ar_error_t load_err);
/* The error of a command that needs the state: "does not exist", or that the container is
   damaged and how to remove it, or the read error.  Takes *load_err; returns -1.  */
int container_load_error (int rootfd, const char *id, bool locked, ar_error_t *load_err,
                          ar_error_t *err);
/* start and exec refuse a container whose delete has begun (the journal says so).  */
int container_check_not_deleting (int dirfd, const char *id, const char *action, ar_error_t *err);

/* What create claims for container `id` against the other containers of the root (claim.c):
   its cgroup directories (none is, is inside or holds another's, and no parent is in use; NULL:
   none to claim) and its audit log (none other writes it but within its pod; NULL: none to
   claim).  Returns the root's lock, to hold until the directories are recorded and made.  */
struct cgroup;
struct spec_map;
struct container_claim
{
  const char *id;
  const struct cgroup *cg;
  const char *audit_log;
  const struct spec_map *annotations; /* config.json's: the pod the container is of */
};
int container_claim (int rootfd, const struct container_claim *cl, ar_error_t *err);

/* The fifo the init waits on until start.  */
#define EXEC_FIFO "exec.fifo"

/* Write a pid file atomically, as runc does (engines poll for it).  */
int container_write_pid_file (const char *path, pid_t pid, ar_error_t *err);
/* The copy of config.json that create keeps in the state directory.  */
#define CONFIG_COPY "config.json"
struct spec;
int container_load_config (int dirfd, struct spec **out, ar_error_t *err);

#endif
