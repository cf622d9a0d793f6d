/* The supervisor: a process beside the container's init (not its parent: engines reap the init)
   that holds the seccomp notify fd of the init and of every exec'd process, answers the calls
   agentrt's policy routes to it (emulated, audited or denied), keeps the virtual /proc files
   current, and writes the audit log.

     agentrt create ─┬─ init
                     └─ supervisor watchdog (setsid) ── supervisor worker (threads)

   It fails closed: whatever part of it dies or stops, the container is killed and the reason
   recorded (the kernel already answers every supervised call with ENOSYS once the notify fds
   are gone; the container must not go on that way).  The watchdog is single-threaded and kills
   the container when the worker dies or stops (SIGCHLD, WUNTRACED); the worker kills it when the
   watchdog dies (its parent-death signal) or stops (seen on its once-a-second timer: no kernel
   notification tells a child that its parent stopped).

   When both die at once, the kernel kills the container: the init is traced with
   PTRACE_O_EXITKILL, by the worker on the ptrace platform (tracer.h) and by the watchdog on the
   others (the kill switch: EXITKILL and TRACECLONE only, so the init stops for its signals,
   which the watchdog passes on, ~10 µs each, and when it makes a thread, which is traced too:
   a main thread that exits alone must not take the switch with it, tracer.h).  A tracer's
   death SIGKILLs its tracees with
   SEND_SIG_PRIV, which a pid namespace's init cannot ignore, and the namespace goes with its
   init.  A pipe whose read end has O_ASYNC, F_SETSIG = SIGKILL and the init as owner (SIGIO
   when the last writer closes) does not do: send_sigio's siginfo (POLL_IN) names no sender, so
   it is never forced, and sig_task_ignored drops it for a SIGNAL_UNKILLABLE task, a namespace's
   init (kernel/signal.c; seen on 6.18: the init lived on).  And a tracee cannot undo its
   trace, where the holder of such a pipe can disarm it (close, F_SETOWN, F_SETFL without
   O_ASYNC), so the policy needs no rule on close, dup or fcntl either.  A container without a
   pid namespace of its own (refused, but where agentrt.conf allows it: it could signal the
   supervisor) loses only its init so.

   Nobody is left then to record why, nor when both are stopped (then the container hangs at
   its next supervised call or signal, and no kernel notification tells anyone): the next
   command that looks at the container does it, kills what is left, and records the loss
   (supervisor_check).  It knows an end that was no loss by SUPERVISOR_END_FILE, which the
   init's tracer makes when it reaps the init, and every part that records why it killed the
   container makes after its record.  */
#ifndef AGENTRT_SUPERVISOR_H
#define AGENTRT_SUPERVISOR_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "cgroups/cgroup.h"
#include "sandbox/egress.h"
#include "sandbox/netpolicy.h"
#include "dns/dns_upstream.h"
#include "policy/policy.h"
#include "supervisor/audit_budget.h"
#include "supervisor/vfiles.h"

#define SUPERVISOR_SOCKET "supervisor.sock"
#define SUPERVISOR_VFILES_DIR "vfs"
#define SUPERVISOR_ALERTS_FILE "audit.alerts"
#define SUPERVISOR_STOP_REASON_FILE "stop.reason" /* "timeout", "supervisor-lost"… */
/* Made once the container's story has ended and been told: the init's exit (seen by its
   tracer), a kill the supervisor recorded, a stop by agentrt (kill.h: sv_mark_end).  A
   supervisor gone without it was lost.  */
#define SUPERVISOR_END_FILE "supervisor.end"
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
  /* linux.personality is LINUX32: uname's machine is each caller's (i686 rather than x86_64),
     read from its personality; otherwise no caller can be in another (the policy refuses
     personality but for PER_LINUX) and the host's is answered without the read.  */
  bool uname_personality;
  struct policy_opts popts;
  const struct vfiles_limits *limits;
  pid_t init_pid;
  bool own_pidns; /* the container made its pid namespace: killing the init kills it all */
  char *const *cgroup_dirs;        /* the container's cgroups: failing closed kills all of them */
  struct vfiles_cgroup limit_dirs; /* those of them that say its limits (vfiles.h) */
  struct netpolicy *net;           /* the allowlist the broker serves, or NULL */
  const struct dns_upstream *upstream;   /* the resolver's servers (with net) */
  const struct egress_addrs *host_addrs; /* the host's addresses (with net) */
  int egress_netns_fd;                   /* the pod's network namespace the broker connects from,
                                            or -1: ours (egress.h) */
  int notify_fd;        /* the init's listener, or -1: then the supervisor is only the
                           watchdog, keeping the deadline (--platform none)… */
  bool trace;           /* …unless it traces the init instead (--platform ptrace) */
  long long timeout_ms; /* the deadline from now, 0: none */
  int canary_fd;        /* fanotify on the canaries, or -1 */
  int vfiles_fd;        /* the virtual files' directory, which the worker keeps current, or -1 */
  const struct supervisor_canary *canaries;
  size_t n_canaries;
  int journal_fd; /* the container's journal (state/journal.h), where the watchdog records
                     itself before anything else, or -1 */
  /* The container's cgroups, where the worker is born to be charged the CPU it spends for
     the container (cgroup_run_accounted; the watchdog stays outside), or NULL.  */
  const struct cgroup *accounting;
  /* The container's user namespace has an unprivileged owner and caps its inotify instances
     and fanotify groups (namespaces.c): the supervisor need not count them.  */
  bool fsnotify_by_kernel;
  struct audit_limits audit; /* the audit log's budget (audit_budget.h) */
  /* Called in the forked supervisor before anything else: the caller frees there what its
     supervisor does not need (the parsed config.json: ~13 MB for a 4 MiB one, kept for the
     container's life), nothing this structure points to.  NULL: nothing.  */
  void (*release_unneeded) (void *arg);
  void *release_arg;
};

/* Fork the supervisor and wait until it serves (its control socket exists); *pid is the
   watchdog's pid, *worker the worker's (0: none).  */
int supervisor_start (const struct supervisor_cfg *c, pid_t *pid, pid_t *worker, ar_error_t *err);

/* exec: hand the notify fd of a new process (host pid `pid`) to the running supervisor of the
   container whose state directory is `dirfd`.  */
int supervisor_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err);

/* Is the supervisor (watchdog pid, start time) still alive?  */
bool supervisor_alive (pid_t pid, unsigned long long start);

/* Its processes (the watchdog first, then the worker), at most `max`; 0 if it is gone.  */
size_t supervisor_pids (pid_t pid, unsigned long long start, pid_t *out, size_t max);

/* Stop it (delete): SIGTERM to the watchdog, which takes the worker with it; waits up to a
   second, then SIGKILL and up to a second more.  It marks no end (that write would be in the
   caller's wait): a caller whose state directory outlives the stop calls supervisor_mark_end.  */
void supervisor_stop (pid_t pid, unsigned long long start);
/* agentrt stopped the supervisor (supervisor_stop): that is no loss.  */
void supervisor_mark_end (int dirfd);

/* For every command that looks at a container (state, list, audit, delete…): if its supervisor
   is gone or stopped for good without having said so (no SUPERVISOR_END_FILE, and no part of it
   left running to act), the loss is recorded once, an alert (supervisor-lost, or
   supervisor-stopped when all of it is stopped) and the stop reason, and the container is
   killed, what is left of the supervisor too.  `locked`: the caller holds the container's
   lock; else the check writes nothing while another command holds it (a delete in progress,
   which checks for itself).  True if it did (the init is dead: the caller refreshes the
   status).  Best effort: errors are ignored.  */
struct state;
bool supervisor_check (int dirfd, const struct state *s, bool locked);

/* Wait up to `ms` for it to exit by itself, as it does once the container has ended and it has
   written its last audit records (run: the log and the alert count are then complete).  */
void supervisor_wait (pid_t pid, unsigned long long start, int ms);

#endif
