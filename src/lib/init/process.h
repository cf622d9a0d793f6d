/* The container init: clone, the sync protocol between the runtime and the init, and the init's
   own setup from namespaces to execve.  The runtime side lives here too, so both halves of the
   protocol are read in one file.  */
#ifndef AGENTRT_PROCESS_H
#define AGENTRT_PROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "init/landlock.h"
#include "init/namespaces.h"
#include "init/sources.h"
#include "seccomp/bpf.h"
#include "spec/spec.h"

/* The seccomp filters a process installs last before it waits (init) or execs: agentrt's
   policy (its listener goes to the supervisor) and linux.seccomp (its listener, if it has
   notify actions, to listenerPath).  Either may be NULL.  */
enum process_filter
{
  FILTER_POLICY,
  FILTER_OCI,
  FILTER__N,
};

#define PROCESS_OVERLAY_FDS 130 /* ephemeral.h: EPHEMERAL__N */

struct process_init_cfg
{
  const struct spec *spec;
  const char *bundle; /* absolute */
  const char *rootfs; /* absolute */
  const struct ns_plan *ns;
  int fifo_fd;   /* the exec fifo, O_RDWR: the init blocks reading it until `start` writes */
  int extra_fds; /* fds 3 … 3+extra_fds-1 are passed on (--preserve-fds, LISTEN_FDS) */
  char **env;    /* the workload's environment */
  bool no_pivot, no_new_keyring;
  const struct seccomp_prog *filters[FILTER__N];
  /* The Landlock ruleset the process enters just before its filters (landlock.h); all zero:
     none.  */
  struct landlock_ruleset landlock;
  /* The supervisor's virtual /proc files to bind-mount (O_PATH, opened by the runtime: a new
     user namespace's root cannot reach the state directory), or NULL.  */
  const int *vfile_fds;
  /* The egress allowlist's files, the same way (egress.h: EGRESS_FILE__N of them), or NULL.  */
  const int *egress_fds;
  /* The ephemeral rootfs (ephemeral.h): detached mounts the init attaches on the rootfs in
     its own mount namespace, in this order, the last one (the overlay) its new root; -1 where
     there is none.  */
  int overlay_fds[PROCESS_OVERLAY_FDS];
  /* Or, when it needs the init's user namespace (an idmapped lower layer), made by this on the
     init's request for its maps, once they are written: fills FDS as above (they stay the
     caller's).  NULL otherwise.  */
  int (*make_overlay) (pid_t init, void *data, int fds[PROCESS_OVERLAY_FDS], ar_error_t *err);
  void *make_overlay_data;
  /* The container's cgroup2 directory (O_PATH), which the init is cloned into
     (CLONE_INTO_CGROUP), or -1 (cgroups.h: cgroup_run_inside).  */
  int cgroup_fd;
  /* The systemd cgroup driver: called in the runtime with the init's pid as soon as it is
     cloned, while the init waits before its first step (it must be in the unit before it
     unshares its cgroup namespace or forks), to have systemd put it in the container's unit
     (cgroups.h: cgroup_systemd_place); NULL: none.  */
  int (*place) (pid_t pid, void *data, ar_error_t *err);
  void *place_data;
  /* The bind sources the runtime opens for the init (sources.h), or NULL.  */
  const struct sources_plan *sources;
};

/* What a spawned init or exec'd process leaves with the runtime.  */
struct process_result
{
  pid_t pid;
  int console;             /* its pty master (process.terminal), or -1 */
  int listener[FILTER__N]; /* the notify fds of its filters, or -1 */
};

/* Called in the runtime while the init waits, after its mounts and before pivot_root: runs the
   prestart and createRuntime hooks, and gives the state documents the init's own hooks get on
   stdin (createContainer: status creating; startContainer: created).  */
typedef int (*process_runtime_hooks_fn) (pid_t init_pid, void *data, char **state_creating,
                                         char **state_created, ar_error_t *err);

/* Start the init and take it through its setup; on success it is blocked on the exec fifo and
 *res says what it left us.  On failure nothing of it is left running.  */
int process_spawn_init (const struct process_init_cfg *c, process_runtime_hooks_fn hooks,
                        void *hooks_data, struct process_result *res, ar_error_t *err);

/* exec: a new process in the namespaces of the container's init.  */
struct process_exec_cfg
{
  pid_t init_pid;
  unsigned long long init_start;   /* its start time: the pid must still be the same process */
  const struct spec_process *proc; /* args, env, cwd, user, capabilities, rlimits… */
  char **env;
  int extra_fds;
  const struct seccomp_prog *filters[FILTER__N];
  struct landlock_ruleset landlock; /* as the init's: a domain of its own, with the same rules */
  /* Called with the policy filter's listener as soon as it arrives, before the process execs
     (its execve is supervised, so the supervisor must hold the fd by then); on the ptrace
     platform with listener -1, when the process asks for its tracer, which must be attached
     when this returns.  */
  int (*hand_over) (int listener, pid_t pid, void *data, ar_error_t *err);
  void *hand_over_data;
  int cgroup_fd; /* as in process_init_cfg: the process is cloned into it, or -1 */
};
/* Start it; res->pid is its pid once it has exec'd (a failure before execve is reported here).
   res->listener[FILTER_POLICY] is always -1: it went to hand_over.  */
int process_spawn_exec (const struct process_exec_cfg *c, struct process_result *res,
                        ar_error_t *err);

/* Resolve process.args[0] against PATH from `env` (runc's rule), in the current root.  */
int process_find_executable (const char *name, char **env, char **out, ar_error_t *err);

#endif
