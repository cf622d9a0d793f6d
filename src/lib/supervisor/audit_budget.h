/* The audit log's budget and aggregation: the bookkeeping behind audit.c, free of I/O and of
   the supervisor, so that it is unit-tested (tests/unit/test_audit_budget.c).  The caller
   serialises every call (sv->audit_lock).

   What a container's supervisor writes is bounded three ways:
   - aggregation: a record like one written within the window (same call or event, verdict,
     errno, rule, severity, comm and subject: an exec's program, a connect's address) is
     counted, not written; once the window has ended, one record with the count stands for
     them all;
   - a rate, in bytes a second (a token bucket), for records that are not alerts: those over
     it are dropped and counted (an "audit-suppressed" note says how many each second);
   - alerts have a bucket of their own at the same rate, but are never dropped for it: within
     it they are aggregated as above, past it by call alone (syscall, verdict, errno, rule),
     so that a workload that renames itself for each denied call (a new key each time) costs
     a record per call and window, not one per call;
   - a size cap for all of it.  Records that are not alerts may fill it up to the alerts'
     reserve; the first record that does not fit there closes the log to them (a notice says
     so), and alerts go on, rate-exempt, into the reserve; when that is used up too, a last
     notice says so and alerts are only counted (audit.alerts, shown by `agentrt state`).  In
     the reserve alerts are aggregated by call alone.

       0 ──── calls, notes, alerts ──── max - reserve ──── alerts ──── max - 4 KiB ── notices,
                                                                                  watchdog ─ max

   The last 4 KiB hold the two notices (1 KiB each at most) and the watchdog's records, which
   are written by another process without this bookkeeping: at most two (a timeout, and the
   worker's death or the supervisor's stop), 1 KiB each at most (supervisor.c).  */
#ifndef AGENTRT_SV_AUDIT_BUDGET_H
#define AGENTRT_SV_AUDIT_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The numbers (struct supervisor_cfg's audit, set in runtime/lifecycle.c).  */
struct audit_limits
{
  uint64_t max_bytes;     /* the log's growth, all of it */
  uint64_t alert_reserve; /* the end of max_bytes that only alerts (and notices) may use */
  uint64_t rate;          /* bytes a second of records that are not alerts, sustained… */
  uint64_t burst;         /* …and at once */
  uint32_t window_ms;     /* repeats within this are counted, not written */
};

#define AUDIT_RECORD_MAX 8192 /* a record, newline included */
#define AUDIT_STR_MAX 1024    /* a string of a record (JSON text, quotes aside) */
#define AUDIT_NOTICE_MAX 1024 /* a notice of the budget, or a record of the watchdog */
#define AUDIT_TAIL 4096       /* the end of max_bytes for notices and the watchdog */

/* Bounds the limits are taken to, whatever the configuration says: a record must fit in the
   reserve, the reserve in half of the log.  */
#define AUDIT_MAX_BYTES_MIN (64 * 1024)
#define AUDIT_RESERVE_MIN (2 * AUDIT_RECORD_MAX)

enum audit_kind
{
  AUDIT_CALL,  /* a call's record that is not an alert: under the rate */
  AUDIT_ALERT, /* rate-exempt, and from the reserve once the rest is used */
  AUDIT_NOTE,  /* the supervisor's own summaries (aggregates, the rate's drops): rate-exempt */
};

enum audit_notice
{
  AUDIT_NOTICE_CLOSED = 1 << 0,  /* only alerts from now on */
  AUDIT_NOTICE_RESERVE = 1 << 1, /* nothing from now on */
};

/* What records are aggregated by.  Strings are the caller's; NULL counts as a value.  */
struct audit_key
{
  const char *name; /* the syscall, or the event */
  const char *verdict;
  const char *rule;
  const char *comm;
  const char *subject; /* what tells calls of one program apart (an exec's path), or NULL */
  int err;
  int severity;
};

struct audit_agg_entry
{
  bool used;
  uint64_t hash;
  const char *name, *verdict, *rule, *comm, *subject; /* copies, in `keys` */
  char *keys;                                         /* one allocation for them all */
  int err, severity;
  unsigned long count;         /* repeats counted since the last record of this key */
  struct timespec first, last; /* of those repeats (the calls' times) */
  long long pid;               /* the last repeat's caller… */
  char last_comm[16];          /* …and its name */
  char *payload;               /* the last repeat's args (JSON text), or an event's detail */
  bool truncated;              /* …which was cut */
  uint64_t window_end;         /* CLOCK_MONOTONIC, ns */
};

#define AUDIT_AGG_SLOTS 256

struct audit_bucket
{
  double tokens; /* bytes */
  uint64_t refilled;
};

struct audit_budget
{
  struct audit_limits lim;
  uint64_t written; /* bytes accounted for, notices included */
  struct audit_bucket calls, alerts_bucket;
  bool closed;              /* AUDIT_NOTICE_CLOSED was given */
  bool reserve_gone;        /* AUDIT_NOTICE_RESERVE was given */
  unsigned long suppressed; /* calls over the rate since audit_budget_take_suppressed */
  unsigned long alerts;     /* every alert, written, counted in an aggregate or lost */
  struct audit_agg_entry agg[AUDIT_AGG_SLOTS];
};

/* Takes the limits, each within its bounds.  */
void audit_budget_init (struct audit_budget *b, const struct audit_limits *lim);
void audit_budget_release (struct audit_budget *b);

/* Could a record of about len bytes of this kind be written now?  A cheap look before the
   record is formatted (audit_budget_admit then decides); nothing is accounted for but, when it
   could not for the rate, the `stands_for` calls it would have recorded (as suppressed).  */
bool audit_budget_may (struct audit_budget *b, enum audit_kind kind, size_t len,
                       unsigned long stands_for, uint64_t now);

/* May a record of len bytes (newline included) of this kind be written now?  true: it is
   accounted for.  `stands_for`: the calls it records (an aggregate's count; 1 otherwise), for
   the count of those over the rate.  *notices gets the notices to write now (AUDIT_NOTICE_*),
   each accounted for already: CLOSED before this record, RESERVE after it.  */
bool audit_budget_admit (struct audit_budget *b, enum audit_kind kind, size_t len,
                         unsigned long stands_for, uint64_t now, unsigned *notices);

/* Is an alert now recorded by its whole key (its bucket has room, and the log is not in its
   reserve)?  false: by call alone (the caller drops comm and subject from its key).  */
bool audit_budget_alert_precise (struct audit_budget *b, uint64_t now);

/* The calls dropped by the rate since the last call (and zero).  */
unsigned long audit_budget_take_suppressed (struct audit_budget *b);

/* A call (or event) as the record of an aggregate shows the last one it counts.  */
struct audit_seen
{
  struct timespec when;
  long long pid;
  const char *comm; /* the caller's, also when the key leaves it out */
  char *payload;    /* its args (JSON text), or an event's detail: taken when it is counted */
  bool truncated;   /* the payload was cut */
};

/* A record like *k at `now` (CLOCK_MONOTONIC, ns): true when one like it was recorded within
   its window, and this one is counted instead (the caller writes nothing; the aggregate takes
   s->payload).  false: the caller writes it, and repeats from now on are counted.  */
bool audit_agg_fold (struct audit_budget *b, const struct audit_key *k, uint64_t now,
                     struct audit_seen *s);

/* The aggregates due at `now` (every one with `all`): those that counted repeats are moved
   into out[] (at most n; the caller writes each and releases it with audit_agg_entry_clear),
   and their keys stay for another window; keys that counted none are forgotten.  The number
   moved.  */
size_t audit_agg_expire (struct audit_budget *b, uint64_t now, bool all,
                         struct audit_agg_entry *out, size_t n);
void audit_agg_entry_clear (struct audit_agg_entry *e);

#endif
