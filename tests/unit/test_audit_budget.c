/* Unit tests of the audit log's budget and aggregation (supervisor/audit_budget.c).  */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "supervisor/audit_budget.h"
#include "tap.h"
#include "utils.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define SEC 1000000000ULL

static const struct audit_limits limits = {
  .max_bytes = 1 * MiB,
  .alert_reserve = 128 * KiB,
  .rate = 64 * KiB,
  .burst = 2 * MiB, /* the rate out of the way: the size is tested */
  .window_ms = 5000,
};

static struct audit_budget *
budget_new (const struct audit_limits *l)
{
  struct audit_budget *b = xmalloc (sizeof *b);
  audit_budget_init (b, l);
  return b;
}

static void
budget_free (struct audit_budget *b)
{
  audit_budget_release (b);
  free (b);
}

/* Calls fill the log up to the reserve; the first that does not fit closes it (a notice), and
   then only alerts are written, up to the tail; the first alert past it gives the last notice,
   and nothing is written after.  The whole stays under the cap with the watchdog's room.  */
static int
test_size_cap (void)
{
  struct audit_budget *b = budget_new (&limits);
  unsigned notices;
  uint64_t wrote = 0;
  int alerts = 0;

  while (audit_budget_admit (b, AUDIT_CALL, 1000, 1, SEC, &notices))
    wrote += 1000;
  CHECK (notices == AUDIT_NOTICE_CLOSED);
  CHECK (wrote <= limits.max_bytes - limits.alert_reserve);
  CHECK (wrote + 1000 > limits.max_bytes - limits.alert_reserve);
  /* Closed: no call, no note, at any size.  */
  CHECK (!audit_budget_admit (b, AUDIT_CALL, 10, 1, SEC, &notices) && notices == 0);
  CHECK (!audit_budget_admit (b, AUDIT_NOTE, 10, 1, SEC, &notices) && notices == 0);
  CHECK (!audit_budget_may (b, AUDIT_CALL, 10, 1, SEC) && audit_budget_take_suppressed (b) == 0);
  while (audit_budget_admit (b, AUDIT_ALERT, 1000, 1, SEC, &notices))
    {
      wrote += 1000;
      alerts++;
      CHECK (notices == 0);
    }
  CHECK (notices == AUDIT_NOTICE_RESERVE);
  CHECK (alerts > 100); /* the reserve (128 KiB) held them */
  CHECK (!audit_budget_admit (b, AUDIT_ALERT, 10, 1, SEC, &notices) && notices == 0);
  CHECK (b->closed && b->reserve_gone);
  /* Records and both notices leave the watchdog its two records.  */
  wrote += 2 * AUDIT_NOTICE_MAX;
  CHECK (b->written == wrote);
  CHECK (wrote + 2 * AUDIT_NOTICE_MAX <= limits.max_bytes);
  budget_free (b);
  return 0;
}

/* Alerts may use the part before the reserve too; the first that reaches into the reserve
   closes the log to the rest, with the notice.  */
static int
test_alerts_close_the_log (void)
{
  struct audit_budget *b = budget_new (&limits);
  unsigned notices = 0;

  while (!b->closed)
    CHECK (audit_budget_admit (b, AUDIT_ALERT, 4000, 1, SEC, &notices));
  CHECK (notices == AUDIT_NOTICE_CLOSED);
  CHECK (!audit_budget_admit (b, AUDIT_CALL, 10, 1, SEC, &notices) && notices == 0);
  CHECK (audit_budget_admit (b, AUDIT_ALERT, 10, 1, SEC, &notices) && notices == 0);
  budget_free (b);
  return 0;
}

/* The rate is in bytes: calls past the burst are dropped and counted (as many calls as each
   record stood for) until time refills the bucket; alerts and notes do not spend it.  */
static int
test_rate (void)
{
  struct audit_limits l = limits;
  struct audit_budget *b;
  unsigned notices;
  int n = 0;

  l.max_bytes = 64 * MiB;
  l.alert_reserve = 8 * MiB;
  l.burst = 64 * KiB;
  l.rate = 16 * KiB;
  b = budget_new (&l);
  while (audit_budget_admit (b, AUDIT_CALL, 1024, 1, SEC, &notices))
    n++;
  CHECK (n == 64);
  CHECK (!audit_budget_admit (b, AUDIT_CALL, 1024, 5, SEC, &notices));
  /* The look before formatting says the same, and counts the same.  */
  CHECK (!audit_budget_may (b, AUDIT_CALL, 1024, 1, SEC));
  CHECK (audit_budget_may (b, AUDIT_ALERT, 1024, 1, SEC));
  CHECK (audit_budget_may (b, AUDIT_NOTE, 1024, 1, SEC));
  CHECK (audit_budget_take_suppressed (b) == 7);
  CHECK (audit_budget_take_suppressed (b) == 0);
  /* Rate-exempt.  */
  CHECK (audit_budget_admit (b, AUDIT_ALERT, 8000, 1, SEC, &notices));
  CHECK (audit_budget_admit (b, AUDIT_NOTE, 8000, 1, SEC, &notices));
  /* Half a second later: 8 KiB more.  */
  n = 0;
  while (audit_budget_admit (b, AUDIT_CALL, 1024, 1, SEC + SEC / 2, &notices))
    n++;
  CHECK (n == 8);
  /* Never more than the burst, however long it waited.  */
  n = 0;
  while (audit_budget_admit (b, AUDIT_CALL, 1024, 1, 1000 * SEC, &notices))
    n++;
  CHECK (n == 64);
  CHECK (!b->closed);
  budget_free (b);
  return 0;
}

/* Alerts are recorded one by one while their own bucket has room, by call alone past it
   (and always in the reserve).  */
static int
test_alert_precise (void)
{
  struct audit_limits l = limits;
  struct audit_budget *b;
  unsigned notices;

  l.max_bytes = 64 * MiB;
  l.alert_reserve = 8 * MiB;
  l.burst = 16 * KiB;
  l.rate = 16 * KiB;
  b = budget_new (&l);
  CHECK (audit_budget_alert_precise (b, SEC));
  for (int i = 0; i < 4; i++)
    CHECK (audit_budget_admit (b, AUDIT_ALERT, 4 * KiB, 1, SEC, &notices));
  CHECK (!audit_budget_alert_precise (b, SEC));
  /* Calls have a bucket of their own.  */
  CHECK (audit_budget_admit (b, AUDIT_CALL, 4 * KiB, 1, SEC, &notices));
  CHECK (audit_budget_alert_precise (b, SEC + SEC / 2));
  b->closed = true;
  CHECK (!audit_budget_alert_precise (b, 100 * SEC));
  budget_free (b);
  return 0;
}

static int
test_limits_bounded (void)
{
  struct audit_limits l = { .max_bytes = 1000, .alert_reserve = 1 * MiB, .rate = 1, .burst = 1 };
  struct audit_budget *b = budget_new (&l);

  CHECK (b->lim.max_bytes == AUDIT_MAX_BYTES_MIN);
  CHECK (b->lim.alert_reserve == AUDIT_MAX_BYTES_MIN / 2);
  CHECK (b->lim.burst == AUDIT_RECORD_MAX);
  budget_free (b);
  l.max_bytes = 64 * MiB;
  l.alert_reserve = 1;
  b = budget_new (&l);
  CHECK (b->lim.alert_reserve == AUDIT_RESERVE_MIN);
  budget_free (b);
  return 0;
}

static struct audit_key
key (const char *comm, const char *subject)
{
  return (struct audit_key){ .name = "mount",
                             .verdict = "deny",
                             .rule = "deny-mount",
                             .comm = comm,
                             .subject = subject,
                             .err = 1,
                             .severity = 3 };
}

static bool
fold (struct audit_budget *b, const struct audit_key *k, uint64_t now, long long pid,
      const char *args)
{
  struct audit_seen s = { .when = { (time_t) (now / SEC), 0 },
                          .pid = pid,
                          .comm = k->comm ? k->comm : "renamed",
                          .payload = args ? xstrdup (args) : NULL };
  bool folded = audit_agg_fold (b, k, now, &s);

  free (s.payload); /* not taken: the caller's */
  return folded;
}

/* The first record of a kind is written, its repeats within the window counted; once the
   window has ended one aggregate stands for them (the last one's pid, comm and args, the first
   and last times), and the key stays, so that a flood goes on costing one record a window.  A
   key that counted nothing in its window is forgotten.  */
static int
test_aggregate (void)
{
  struct audit_budget *b = budget_new (&limits);
  struct audit_key k = key ("flood", NULL), other = key ("flood", "/bin/x");
  struct audit_key renamed = key ("marker", NULL);
  struct audit_agg_entry out[4];

  CHECK (!fold (b, &k, 1 * SEC, 10, "{\"n\":0}"));
  for (int i = 1; i <= 1000; i++)
    CHECK (fold (b, &k, 1 * SEC + (uint64_t) i, 10 + i, i == 1000 ? "{\"n\":1000}" : "{}"));
  /* Another subject, another comm: other records.  */
  CHECK (!fold (b, &other, 2 * SEC, 1, NULL));
  CHECK (!fold (b, &renamed, 2 * SEC, 1, NULL));
  CHECK (audit_agg_expire (b, 5 * SEC, false, out, 4) == 0); /* within the window */
  CHECK (audit_agg_expire (b, 6 * SEC, false, out, 4) == 1);
  CHECK (out[0].count == 1000 && out[0].pid == 1010);
  CHECK_STR (out[0].payload, "{\"n\":1000}");
  CHECK_STR (out[0].last_comm, "flood");
  CHECK_STR (out[0].name, "mount");
  CHECK (out[0].first.tv_sec == 1 && out[0].last.tv_sec == 1);
  audit_agg_entry_clear (&out[0]);
  /* Still hot: the next repeat is counted, not written.  */
  CHECK (fold (b, &k, 7 * SEC, 2, NULL));
  /* `other` and `renamed` counted nothing: forgotten at their window's end.  */
  CHECK (audit_agg_expire (b, 7 * SEC + 1, false, out, 4) == 0);
  CHECK (!fold (b, &other, 8 * SEC, 1, NULL));
  /* Before exit, every aggregate whatever its window.  */
  CHECK (audit_agg_expire (b, 8 * SEC, true, out, 4) == 1 && out[0].count == 1);
  audit_agg_entry_clear (&out[0]);
  budget_free (b);
  return 0;
}

/* NULL and "" are different values of a key field, and the key is compared whole (not by its
   hash alone).  */
static int
test_aggregate_keys (void)
{
  struct audit_budget *b = budget_new (&limits);
  struct audit_key a = key (NULL, NULL), e = key ("", NULL), f = key ("x", NULL);

  CHECK (!fold (b, &a, SEC, 1, NULL));
  CHECK (!fold (b, &e, SEC, 1, NULL));
  CHECK (fold (b, &a, SEC, 1, NULL) && fold (b, &e, SEC, 1, NULL));
  f.err = 2;
  CHECK (!fold (b, &f, SEC, 1, NULL));
  f.err = 1;
  CHECK (!fold (b, &f, SEC, 1, NULL));
  budget_free (b);
  return 0;
}

/* A full table makes room by forgetting a key that counted no repeat, so a workload that makes
   every record different cannot keep others from being aggregated; when every key has repeats,
   a new one is written unaggregated.  */
static int
test_aggregate_full (void)
{
  struct audit_budget *b = budget_new (&limits);
  struct audit_key k = key ("marker", NULL);
  char comm[16];

  for (int i = 0; i < AUDIT_AGG_SLOTS; i++)
    {
      struct audit_key j = key (comm, NULL);
      snprintf (comm, sizeof comm, "f%d", i);
      CHECK (!fold (b, &j, SEC, 1, NULL));
    }
  CHECK (!fold (b, &k, SEC, 1, NULL));
  CHECK (fold (b, &k, SEC, 1, NULL));
  budget_free (b);

  /* Every key with a repeat: no room.  */
  b = budget_new (&limits);
  for (int i = 0; i < AUDIT_AGG_SLOTS; i++)
    {
      struct audit_key j = key (comm, NULL);
      snprintf (comm, sizeof comm, "f%d", i);
      CHECK (!fold (b, &j, SEC, 1, NULL));
      CHECK (fold (b, &j, SEC, 1, NULL));
    }
  CHECK (!fold (b, &k, SEC, 1, NULL));
  CHECK (!fold (b, &k, SEC, 1, NULL));
  budget_free (b);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_size_cap);
  RUN_TEST (test_alerts_close_the_log);
  RUN_TEST (test_rate);
  RUN_TEST (test_alert_precise);
  RUN_TEST (test_limits_bounded);
  RUN_TEST (test_aggregate);
  RUN_TEST (test_aggregate_keys);
  RUN_TEST (test_aggregate_full);
  TAP_END ();
}
