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

/* Write a pid file atomically, as runc does (engines poll for it).  */
int container_write_pid_file (const char *path, pid_t pid, ar_error_t *err);
/* The copy of config.json that create keeps in the state directory.  */
#define CONFIG_COPY "config.json"
struct spec;
int container_load_config (int dirfd, struct spec **out, ar_error_t *err);

#endif
