/* The state directory of each container, ROOT/ID/, and the state.json inside it.  It owns id
   validation, the per-container lock, atomic writes and the derived status (a stored pid is only
   "running" while the same process, by start time, is alive).  It never starts or signals
   processes.  */
#ifndef AGENTRT_STATE_H
#define AGENTRT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

#define STATE_ID_MAX 255 /* a directory name */
#define STATE_DEFAULT_ROOT "/run/agentrt"
/* state.json is read back whole up to this size, and state_save refuses to write more, so that
   a container it saves can always be loaded again.  Its only part of any size is the config's
   annotations, which spec.c caps at SPEC_MAX_ANNOTATION_BYTES (6 times that once escaped).  */
#define STATE_MAX_SIZE (4u << 20)

enum state_status
{
  STATE_CREATING,
  STATE_CREATED,
  STATE_RUNNING,
  STATE_PAUSED,
  STATE_STOPPED,
  STATE_UNKNOWN, /* list's word for a directory whose state.json is missing or corrupt; never
                    stored */
};
const char *state_status_name (enum state_status s);
int state_status_from_name (const char *name, enum state_status *out);

struct state
{
  char *id;
  pid_t pid;
  unsigned long long pid_start; /* field 22 of /proc/PID/stat: guards against pid reuse */
  enum state_status status;     /* as stored; see state_refresh */
  char *bundle;
  char *rootfs;
  char *created; /* RFC 3339, UTC */
  char *owner;
  struct spec_map annotations;
  bool own_pidns; /* the container made its pid namespace: kill --all may walk it */
  char *platform; /* "seccomp" or "none" */
  /* agentrt's policy: "default" or "strict" (NULL: an older agentrt's state, default).  Kept
     here for exec, which cannot tell from the annotations alone: --policy and agentrt.conf's
     policy decide too.  */
  char *policy;
  pid_t sv_pid; /* the supervisor's watchdog, 0 if none */
  unsigned long long sv_start;
  pid_t sv_worker; /* its worker, 0 if none; -1: not recorded (an older agentrt's state) */
  unsigned long long sv_worker_start;
  char *audit_log;    /* absolute path, or NULL */
  char **cgroup_dirs; /* the container's cgroup directories, NULL-terminated; NULL: none */
  /* The systemd cgroup driver's unit ("agentrt-ID.scope"), or NULL: the cgroupfs driver.
     state.json says "cgroupDriver" too, so that later commands need no --systemd-cgroup.  */
  char *systemd_unit;
};
void state_free (struct state *s);
void state_freep (void *p);
#define cleanup_state __attribute__ ((cleanup (state_freep)))

/* runc's rule: [A-Za-z0-9_+.-]+, not "." or "..", at most STATE_ID_MAX bytes.  */
int state_check_id (const char *id, ar_error_t *err);

/* Every directory on the way to --root (and any symlink) is root's or ours, and writable by
   nobody else but with the sticky bit: the journal and state.json in it tell delete and kill
   what to remove and signal.  A path that does not exist (yet) passes.  */
int state_root_check (const char *root, ar_error_t *err);
/* Open (and with `create`, make, mode 0700) the --root directory, checked as above.  */
int state_root_open (const char *root, bool create, ar_error_t *err);

/* Make ROOT/ID for a new container; an existing one fails with "container `ID` already exists".
   Returns the directory fd, locked exclusively.  */
int state_dir_create (int rootfd, const char *id, ar_error_t *err);
/* Open and lock ROOT/ID (exclusive or shared); "container `ID` does not exist" if absent.  The
   lock lives as long as the returned fd.  */
int state_dir_lock (int rootfd, const char *id, bool exclusive, ar_error_t *err);
/* Open ROOT/ID without locking it (readers: state.json is replaced atomically).  */
int state_dir_open (int rootfd, const char *id, ar_error_t *err);
/* Is ROOT/ID locked exclusively by someone (a create or a delete at work)?  Never waits.  */
bool state_dir_busy (int rootfd, const char *id);
/* Remove ROOT/ID and everything in it (the caller holds its lock).  */
int state_dir_remove (int rootfd, const char *id, ar_error_t *err);

int state_save (int dirfd, const struct state *s, ar_error_t *err);
/* Errors: status ENOENT without a state.json (a create before its first write, or a damaged
   directory), 0 when it does not parse or holds no valid status (damaged), another errno when
   it cannot be read.  The messages name state.json, not the container: the caller does.  */
int state_load (int dirfd, const char *id, struct state **out, ar_error_t *err);
/* Replace the stored status by what is true now (stopped when the process has gone).  */
void state_refresh (struct state *s);
/* Start time of a live process, 0 if it does not exist or has exited (every thread of it:
   a zombie leader whose other threads run is live).  */
unsigned long long state_proc_start_time (pid_t pid);
/* The state letter of /proc/PID/stat ('R', 'S', 'T'…) of the process that started at `start`,
   0 if it does not exist (or has exited, or the pid is another process's now).  */
char state_proc_status (pid_t pid, unsigned long long start);

/* Ids of the containers under root, sorted (NULL-terminated; caller frees): every directory
   named like an id, with a state.json or not (a damaged one, or one being made).  */
int state_list_ids (int rootfd, char ***ids, ar_error_t *err);

/* The OCI state document, as `runc state` prints it.  indent NULL: one line.  */
char *state_to_oci_json (const struct state *s, const char *indent);

#endif
