/* Inside the supervisor worker: its shared state, one call being handled, the helpers handlers
   use to read and write the caller's memory, and the handlers themselves (handlers/ *.c).  */
#ifndef AGENTRT_SV_H
#define AGENTRT_SV_H

#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <sys/uio.h>

#include "policy/policy.h"
#include "supervisor/audit_budget.h"
#include "supervisor/supervisor.h"
#include "supervisor/vfiles.h"

struct sv_net;

struct sv
{
  const char *id;
  const char *release;
  bool uname_personality; /* supervisor_cfg's: read each caller's personality for uname */
  struct policy policy;
  /* The main thread changes them; handlers read them with vfiles_live_get.  */
  struct vfiles_live limits;
  uint32_t audit_arch; /* AUDIT_ARCH_* of the table */
  int audit_fd;        /* O_APPEND */
  int state_dirfd;
  int vfiles_dirfd;
  pthread_mutex_t audit_lock;   /* budget and alerts_written */
  struct audit_budget budget;   /* the audit log's size, rate and aggregates (audit_budget.h) */
  unsigned long alerts_written; /* the count audit.alerts says */
  atomic_bool audit_closed;     /* budget.closed, read without the lock before an answer */
  int nr_cpu_ids;               /* the host's, for sched_getaffinity's size rule */
  size_t cpumask_bytes;         /* what the kernel's sched_getaffinity returns for a large buffer */
  struct sv_net *net; /* the allowlist (sv_net.h); NULL: connect is audited, then done by the
                         kernel */
  /* Egress (handlers/egress.c).  An AF_UNIX connect is never continued (the kernel would look
     the fd up again, after a racing thread could have swapped it for a brokered socket of the
     host's namespace and the address for AF_UNSPEC, disconnecting it): a thread of the worker
     connects the socket it checked, with the caller's root, cwd, fs ids and groups.  */
  uint64_t broker_netns;    /* netns cookies: the broker's (the caller's or a pod's)… */
  uint64_t container_netns; /* …and the container's (loopback only) */
  atomic_uint brokers;      /* connects in progress in threads of their own */
  char *const *cgroup_dirs; /* the container's, or NULL */
  bool fsnotify_by_kernel;  /* its user namespace caps its inotify instances (fsnotify.c) */
};

/* An audit record decided while a call is handled and written once the answer has been sent
   (sv_audit_flush): formatting and writing it is no part of the caller's wait.  Everything it
   says was read from the caller before the answer.  */
struct sv_record
{
  bool pending;
  struct timespec time; /* of the call */
  const char *verdict;  /* a string constant */
  int err;
  int severity;
  char *args;     /* JSON text (malloc'd), or NULL: the raw six */
  char *subject;  /* malloc'd: what tells this call from others (sv_call) */
  bool truncated; /* the handler cut a string of args */
  char comm[16];
  int stale_fd; /* a /proc file to close once the answer is sent, or -1 */
};

/* One notification from the kernel and the answer being built.  On the ptrace platform the
   same, made up from the caller's seccomp stop (tracer.c), with no notify fd.  */
struct sv_call
{
  struct sv *sv;
  int notify_fd; /* -1: the caller is a tracee in its seccomp stop */
  const struct seccomp_notif *req;
  struct seccomp_notif_resp *resp;
  const struct sc_entry *entry; /* NULL: a number the table does not name */
  const char *name;             /* the syscall's name, "syscall_N" if unknown */
  const char *rule;             /* the audit record's rule and severity when not the entry's */
  int severity;                 /* enum sc_severity; SEV_NONE: the entry's */
  bool deferred;                /* a thread of its own answers (the broker): serve does not */
  /* The handler read the caller's memory without checking (sv_mem_read_unchecked): sv_audit's
     one check (after it reads comm, when it does) vouches for it, and when that fails the
     decoded arguments are not recorded (the raw six are).  */
  bool unchecked;
  /* The record's comm when the handler knows it (execve: the new program's); NULL: the
     caller's, read from /proc.  */
  const char *comm;
  /* What tells this call from another of the same program (an exec's path, a connect's
     address), for aggregation (audit_budget.h), never written; NULL: nothing does (a denied
     call is the same call whatever its arguments).  */
  const char *subject;
  bool truncated; /* the handler cut a string of args (its record says "truncated": true) */
  struct sv_record *record; /* NULL: sv_audit writes at once (a thread of its own answered) */
};

/* Look the call up and run its handler, which fills c->resp (or defers the answer); the
   caller sends the answer, then flushes the audit record.  `name` holds "syscall_N" for a
   number the table does not name.  */
void sv_handle_call (struct sv_call *c, char name[32]);

/* Run fn(arg) in a detached thread with a small stack (SV_DETACHED_STACK): a blocking connect
   of the broker, an upstream look-up or a TCP client of the resolver.  false if none could be
   started.  */
#define SV_DETACHED_STACK (128 * 1024)
bool sv_thread_detached (void *(*fn) (void *), void *arg);

/* Answers.  */
void sv_reply_error (struct sv_call *c, int err);
void sv_reply_value (struct sv_call *c, long long val);
void sv_reply_continue (struct sv_call *c);

/* Is the notification still pending (its task has not gone or been interrupted)?  Every read of
   the caller's memory is followed by this check before what was read is trusted.  A tracee in
   its seccomp stop always is: it cannot leave the stop before we resume it; should it be
   killed, its pid is not free until we, its tracer, have waited for it; and another thread's
   execve, which would take its tid (de_thread), stops first for the same single-threaded
   tracer, which is busy with this call.  */
bool sv_id_valid (const struct sv_call *c);

/* Read `len` bytes at `addr` in the caller; 0 or -errno.  */
int sv_mem_read (const struct sv_call *c, uint64_t addr, void *buf, size_t len);
/* The same, without the check: several ranges in one process_vm_readv (each within one page of
   the caller, so each is read whole or not at all).  The number of ranges read whole, from the
   first; 0 when the first failed.  The caller checks (sv_id_valid) before trusting any of it.  */
int sv_mem_readv_unchecked (const struct sv_call *c, const struct iovec *local,
                            const struct iovec *remote, int n);
/* Read a NUL-terminated string of at most `max - 1` bytes; its length or -errno (-ENAMETOOLONG
   when it does not end within max).  */
long sv_mem_read_str (const struct sv_call *c, uint64_t addr, char *buf, size_t max);
/* The same without the check, and going on from byte `have` (the first `have` bytes are in buf
   already, without a NUL).  buf always ends with a NUL, after what could be read.  */
long sv_mem_read_str_unchecked (const struct sv_call *c, uint64_t addr, char *buf, size_t max,
                                size_t have);
/* Write into the caller (the buffer of uname, sysinfo…).  0 or -errno.  */
int sv_mem_write (const struct sv_call *c, uint64_t addr, const void *buf, size_t len);

/* Audit records: JSON lines.  `args` is the JSON text of the decoded arguments (an object), or
   NULL for the raw six.  verdict: a string constant, "deny", "allow", "emulate"…  The caller's
   comm is read now, and checked with what the handler read (NOTIF_ID_VALID, once); the record is
   written now, or after the answer when c->record is set (then sv_audit_flush writes it).  */
void sv_audit (struct sv_call *c, const char *verdict, int err, const char *args_json);
void sv_audit_flush (struct sv_call *c);
/* At setup: the budget's limits.  */
void sv_audit_init (struct sv *sv, const struct audit_limits *lim);
/* Once a second (the main thread's timer): the aggregates whose window has ended, a summary of
   the records the rate dropped, and the alert count for `state`, written only when it
   changed.  */
void sv_audit_tick (struct sv *sv);
/* The same before the worker exits, with every aggregate, whatever its window.  */
void sv_audit_finish (struct sv *sv);
/* An event of the supervisor itself (no call): "supervisor-died", …  Alerts are aggregated by
   event and `key` (NULL: the detail), the others are the supervisor's own notes.  */
void sv_audit_event (struct sv *sv, const char *event, const char *severity, const char *detail);
/* A record of the resolver (no call): {"event":"dns","args":ARGS,"verdict":…,"rule":…},
   aggregated by verdict, rule and `subject` (the name) like a call's.  */
void sv_audit_query (struct sv *sv, const char *verdict, const char *rule, const char *subject,
                     const char *args_json);
void sv_audit_event_keyed (struct sv *sv, const char *event, const char *severity,
                           const char *detail, const char *key);

typedef void (*sv_handler_fn) (struct sv_call *c);
void sv_handle_deny (struct sv_call *c);
void sv_handle_unknown (struct sv_call *c);
void sv_handle_uname (struct sv_call *c);
void sv_handle_sysinfo (struct sv_call *c);
void sv_handle_affinity (struct sv_call *c);
void sv_handle_clock (struct sv_call *c);
void sv_handle_exec (struct sv_call *c);
void sv_handle_connect (struct sv_call *c);
void sv_handle_bind (struct sv_call *c);
void sv_handle_fsnotify (struct sv_call *c);

/* The egress broker (handlers/egress.c): connect when an allowlist is set.  */
void sv_egress_connect (struct sv_call *c, const void *addr, size_t len, const char *args_json);
/* At setup, before the worker makes a thread or confines itself: the two netns cookies, and
   the main thread left in the namespace the broker connects from (egress_netns_fd, or -1:
   ours).  */
int sv_egress_setup (struct sv *sv, int init_pidfd, int egress_netns_fd, ar_error_t *err);
/* The inode of the init's network namespace (the container's), for revocation.  */
int sv_egress_container_ns (struct sv *sv, pid_t init_pid, ar_error_t *err);

/* Decode a sockaddr read from the caller into a JSON object text (malloc'd).  */
char *sv_sockaddr_json (const void *sa, size_t len);

#endif
