/* The supervisor: a process beside the container's init (not its parent: engines reap the init)
   that holds the seccomp notify fd of the init and of every exec'd process, answers the calls
   agentrt's policy routes to it (emulated, audited or denied), keeps the virtual /proc files
   current, and writes the audit log.

     agentrt create ─┬─ init
                     └─ supervisor watchdog (setsid) ── supervisor worker (threads)

   The watchdog is single-threaded and does one thing: when the worker dies for any reason but a
   clean exit, it kills the container (fail closed: the kernel already answers every supervised
   call with ENOSYS once the notify fds are gone; the container must not go on that way).  The
   worker likewise kills the container when the watchdog dies.  */
#ifndef AGENTRT_SUPERVISOR_H
#define AGENTRT_SUPERVISOR_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "sandbox/egress.h"
#include "policy/policy.h"
#include "supervisor/audit_budget.h"
#include "supervisor/vfiles.h"

#define SUPERVISOR_SOCKET "supervisor.sock"
#define SUPERVISOR_VFILES_DIR "vfs"
#define SUPERVISOR_ALERTS_FILE "audit.alerts"
#define SUPERVISOR_STOP_REASON_FILE "stop.reason" /* "timeout" once the deadline killed it */
#define SUPERVISOR_DEFAULT_RELEASE "6.1.0-agentrt"
/* The worker's exit status when it has killed the container and audited why itself.  */
#define SUPERVISOR_EXIT_RECORDED 3

/* A decoy file of the container (ephemeral.h), known by its inode on the upper layer.  */
struct supervisor_canary
{
  char *path; /* in the container */
  dev_t dev;
  ino_t ino;
};

struct supervisor_cfg
{
  const char *id;
  const char *state_dir;  /* absolute: ROOT/ID */
  const char *audit_path; /* absolute */
  const char *uname_release;
  struct policy_opts popts;
  const struct vfiles_limits *limits;
  pid_t init_pid;
  bool own_pidns; /* the container made its pid namespace: killing the init kills it all */
  char *const *cgroup_dirs;         /* the container's cgroups: failing closed kills all of them */
  struct vfiles_cgroup limit_dirs;  /* those of them that say its limits (vfiles.h) */
  const struct egress_list *egress; /* the allowlist the broker serves, or NULL */
  int notify_fd;                    /* the init's listener, or -1: then the supervisor is only the
                                       watchdog, keeping the deadline (--platform none)… */
  bool trace;                       /* …unless it traces the init instead (--platform ptrace) */
  long long timeout_ms;             /* the deadline from now, 0: none */
  int canary_fd;                    /* fanotify on the canaries, or -1 */
  int vfiles_fd; /* the virtual files' directory, which the worker keeps current, or -1 */
  const struct supervisor_canary *canaries;
  size_t n_canaries;
  struct audit_limits audit; /* the audit log's budget (audit_budget.h) */
};

/* Fork the supervisor and wait until it serves (its control socket exists); *pid is the
   watchdog's pid.  */
int supervisor_start (const struct supervisor_cfg *c, pid_t *pid, ar_error_t *err);

/* exec: hand the notify fd of a new process (host pid `pid`) to the running supervisor of the
   container whose state directory is `dirfd`.  */
int supervisor_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err);

/* Is the supervisor (watchdog pid, start time) still alive?  */
bool supervisor_alive (pid_t pid, unsigned long long start);

/* Stop it (delete): SIGTERM to the watchdog, which takes the worker with it; waits up to a
   second, then SIGKILL.  */
void supervisor_stop (pid_t pid, unsigned long long start);

/* Wait up to `ms` for it to exit by itself, as it does once the container has ended and it has
   written its last audit records (run: the log and the alert count are then complete).  */
void supervisor_wait (pid_t pid, unsigned long long start, int ms);

#endif
