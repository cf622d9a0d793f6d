/* The API of the runtime library: what src/cmd and the tests call.  Every function takes the
   global options and reports failure through ar_error_t; none prints to stdout or exits.  */
#ifndef AGENTRT_CONTAINER_H
#define AGENTRT_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#include "agentrt/error.h"

/* runc's global options.  */
struct ar_globals
{
  const char *root; /* --root: state directories, default /run/agentrt */
  const char *log;  /* --log: diagnostics file, or NULL for stderr */
  bool log_json;    /* --log-format json */
  bool debug;
  bool systemd_cgroup;
  const char *rootless; /* accepted, ignored as by crun: "true", "false", "auto" or NULL */
  /* The operator's agentrt.conf (--config, else $AGENTRT_CONFIG), or NULL for the default,
     /etc/agentrt/agentrt.conf, which may be missing.  Read by create, run and exec.  */
  const char *config;
};

/* Options of create and run (and exec's subset), as runc names them.  */
struct ar_create_opts
{
  const char *bundle; /* NULL: the current directory */
  const char *console_socket;
  const char *pid_file;
  int preserve_fds;
  bool no_pivot, no_new_keyring, detach, keep;
  const char *platform;  /* --platform: seccomp, none (NULL: the annotation or seccomp) */
  const char *audit_log; /* --audit-log */
  const char *policy;    /* --policy: default, strict (NULL: the annotation, profile or conf) */
  const char *net_allow; /* --net-allow: the egress allowlist */
  /* The sandbox controls (src/lib/sandbox/sandbox.h), NULL when not given.  */
  const char *timeout, *disk, *canary, *memory, *cpus, *pids;
  bool ephemeral, agent;
  /* --audit-budget: the audit log's size cap.  */
  const char *audit_budget;
};

int ar_container_create (const struct ar_globals *g, const char *id, const struct ar_create_opts *o,
                         ar_error_t *err);
/* create + start + wait; returns the exit status for main to exit with.  */
int ar_container_run (const struct ar_globals *g, const char *id, const struct ar_create_opts *o,
                      ar_error_t *err);
/* Options of exec, as runc names them.  */
struct ar_exec_opts
{
  const char *process_file; /* --process: a process.json replacing the command line */
  char **argv;              /* the command, when there is no --process */
  int argc;
  const char *console_socket, *pid_file, *cwd, *user;
  char **env, **caps, **gids; /* -e, --cap and -g, NULL-terminated */
  int preserve_fds;
  bool tty, detach, no_new_privs;
};
int ar_container_exec (const struct ar_globals *g, const char *id, const struct ar_exec_opts *o,
                       ar_error_t *err);

/* "9", "KILL", "SIGKILL", "SIGRTMIN+3" → the number; -1 if not a signal.  */
int ar_signal_parse (const char *s);

/* Release a created container's init: it execs the workload.  */
int ar_container_start (const struct ar_globals *g, const char *id, ar_error_t *err);
/* Signal the init; `all`: every process of the container.  */
int ar_container_kill (const struct ar_globals *g, const char *id, int sig, bool all,
                       ar_error_t *err);
/* Freeze and thaw every process of a running container (its cgroup's freezer).  */
int ar_container_pause (const struct ar_globals *g, const char *id, ar_error_t *err);
int ar_container_resume (const struct ar_globals *g, const char *id, ar_error_t *err);
/* update: runc's flags (NULL when not given), over a linux.resources document (--resources
   FILE, "-" for stdin).  */
enum ar_update_flag
{
  AR_UPD_BLKIO_WEIGHT,
  AR_UPD_CPU_PERIOD,
  AR_UPD_CPU_QUOTA,
  AR_UPD_CPU_SHARE,
  AR_UPD_CPU_RT_PERIOD,
  AR_UPD_CPU_RT_RUNTIME,
  AR_UPD_CPUSET_CPUS,
  AR_UPD_CPUSET_MEMS,
  AR_UPD_MEMORY,
  AR_UPD_MEMORY_RESERVATION,
  AR_UPD_MEMORY_SWAP,
  AR_UPD_KERNEL_MEMORY,
  AR_UPD_KERNEL_MEMORY_TCP,
  AR_UPD_PIDS_LIMIT,
  AR_UPD_L3_CACHE,
  AR_UPD_MEM_BW,
  AR_UPD__N,
};
struct ar_update_opts
{
  const char *resources;
  const char *flags[AR_UPD__N];
  /* agentrt's own, told to the running supervisor (NULL when not given): the egress allowlist
     replaced, entries added, entries removed; the deadline ("D" from create, "+D" from now).  */
  const char *net_allow, *net_allow_add, *net_allow_remove;
  const char *timeout;
};
int ar_container_update (const struct ar_globals *g, const char *id, const struct ar_update_opts *o,
                         ar_error_t *err);
/* events: a stats event once (stats_once), or every interval_ms (0: 5 s) with an oom event as
   soon as the OOM killer strikes, until the container stops.  Each event is one JSON line.  */
typedef void (*ar_event_fn) (const char *json, void *data);
int ar_container_events (const struct ar_globals *g, const char *id, bool stats_once,
                         long interval_ms, ar_event_fn fn, void *data, ar_error_t *err);
/* The pids in the container's cgroup (caller frees *pids).  */
int ar_container_pids (const struct ar_globals *g, const char *id, int **pids, size_t *n,
                       ar_error_t *err);
/* The OCI state JSON (caller frees).  */
int ar_container_state (const struct ar_globals *g, const char *id, char **json, ar_error_t *err);
/* A created or stopped container; force: a running one too, killed first.  With force a missing
   container is not an error (containerd deletes ids that are already gone, and runc and crun
   exit 0 for them).  */
int ar_container_delete (const struct ar_globals *g, const char *id, bool force, ar_error_t *err);
/* For a command whose mechanism is not built yet: fails with "container `ID` does not exist"
   when it does not, and with "CMD: not supported yet" when it does.  */
int ar_container_unsupported (const struct ar_globals *g, const char *id, const char *cmd,
                              ar_error_t *err);

struct ar_container_info
{
  char *id;
  int pid;
  char *status;
  char *bundle;
  char *created;
  char *owner;
  char *json; /* the OCI state document, one line */
};
int ar_container_list (const struct ar_globals *g, struct ar_container_info **out, size_t *n,
                       ar_error_t *err);
void ar_container_info_free (struct ar_container_info *v, size_t n);

/* The audit log of a container, line by line (JSON text); with follow, until its supervisor
   has gone.  */
typedef void (*ar_audit_line_fn) (const char *line, void *data);
int ar_container_audit (const struct ar_globals *g, const char *id, bool follow,
                        ar_audit_line_fn fn, void *data, ar_error_t *err);

/* `spec`: BUNDLE/config.json (refuses to overwrite one).  */
int ar_spec_write (const char *bundle, bool rootless, ar_error_t *err);
/* `spec --agent`: the default config with the agent profile applied.  */
int ar_spec_write_agent (const char *bundle, ar_error_t *err);
char *ar_features (void);
char *ar_version_text (void);

#endif
