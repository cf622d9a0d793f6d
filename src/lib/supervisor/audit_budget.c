/* The audit log's budget and aggregation (audit_budget.h says what they bound and how).  Pure
   bookkeeping: no I/O, no clock (the caller passes the time), no lock (the caller holds one).  */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/audit_budget.h"
#include "utils.h"

static uint64_t
clamp (uint64_t v, uint64_t lo, uint64_t hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

void
audit_budget_init (struct audit_budget *b, const struct audit_limits *lim)
{
  memset (b, 0, sizeof *b);
  b->lim = *lim;
  b->lim.max_bytes = clamp (lim->max_bytes, AUDIT_MAX_BYTES_MIN, UINT64_MAX / 2);
  b->lim.alert_reserve = clamp (lim->alert_reserve, AUDIT_RESERVE_MIN, b->lim.max_bytes / 2);
  /* A record must be able to pass the bucket at all.  */
  b->lim.burst = clamp (lim->burst, AUDIT_RECORD_MAX, UINT64_MAX / 2);
  b->calls.tokens = (double) b->lim.burst;
  b->alerts_bucket.tokens = (double) b->lim.burst;
}

void
audit_budget_release (struct audit_budget *b)
{
  for (size_t i = 0; i < AUDIT_AGG_SLOTS; i++)
    audit_agg_entry_clear (&b->agg[i]);
}

static void
refill (const struct audit_budget *b, struct audit_bucket *k, uint64_t now)
{
  double t;

  if (k->refilled == 0 || now < k->refilled)
    k->refilled = now;
  t = k->tokens + (double) (now - k->refilled) / 1e9 * (double) b->lim.rate;
  k->tokens = t > (double) b->lim.burst ? (double) b->lim.burst : t;
  k->refilled = now;
}

bool
audit_budget_alert_precise (struct audit_budget *b, uint64_t now)
{
  if (b->closed)
    return false;
  refill (b, &b->alerts_bucket, now);
  return b->alerts_bucket.tokens > 0;
}

/* A record that is not an alert: under the rate, and up to the reserve.  */
static bool
admit_other (struct audit_budget *b, enum audit_kind kind, size_t len, unsigned long stands_for,
             uint64_t now, unsigned *notices)
{
  if (b->closed)
    return false;
  if (kind == AUDIT_CALL)
    {
      refill (b, &b->calls, now);
      if (b->calls.tokens < (double) len)
        {
          b->suppressed += stands_for;
          return false;
        }
    }
  if (b->written + len > b->lim.max_bytes - b->lim.alert_reserve)
    {
      b->closed = true;
      b->written += AUDIT_NOTICE_MAX;
      *notices |= AUDIT_NOTICE_CLOSED;
      return false;
    }
  if (kind == AUDIT_CALL)
    b->calls.tokens -= (double) len;
  b->written += len;
  return true;
}

/* An alert: rate-exempt, and up to the tail.  The first one past the reserve's start closes
   the log to the rest.  */
static bool
admit_alert (struct audit_budget *b, size_t len, unsigned *notices)
{
  if (b->reserve_gone)
    return false;
  if (!b->closed && b->written + len > b->lim.max_bytes - b->lim.alert_reserve)
    {
      b->closed = true;
      b->written += AUDIT_NOTICE_MAX;
      *notices |= AUDIT_NOTICE_CLOSED;
    }
  if (b->written + len > b->lim.max_bytes - AUDIT_TAIL)
    {
      b->reserve_gone = true;
      b->written += AUDIT_NOTICE_MAX;
      *notices |= AUDIT_NOTICE_RESERVE;
      return false;
    }
  /* Below zero is a debt: the next alerts are aggregated by call until it is paid.  */
  b->alerts_bucket.tokens -= (double) len;
  b->written += len;
  return true;
}

bool
audit_budget_admit (struct audit_budget *b, enum audit_kind kind, size_t len,
                    unsigned long stands_for, uint64_t now, unsigned *notices)
{
  *notices = 0;
  if (kind == AUDIT_ALERT)
    {
      refill (b, &b->alerts_bucket, now);
      return admit_alert (b, len, notices);
    }
  return admit_other (b, kind, len, stands_for, now, notices);
}

bool
audit_budget_may (struct audit_budget *b, enum audit_kind kind, size_t len,
                  unsigned long stands_for, uint64_t now)
{
  if (kind == AUDIT_ALERT)
    return !b->reserve_gone;
  if (b->closed)
    return false;
  if (kind == AUDIT_CALL)
    {
      refill (b, &b->calls, now);
      if (b->calls.tokens < (double) len)
        {
          b->suppressed += stands_for;
          return false;
        }
    }
  return true;
}

unsigned long
audit_budget_take_suppressed (struct audit_budget *b)
{
  unsigned long n = b->suppressed;
  b->suppressed = 0;
  return n;
}

/* FNV-1a, a quick way to tell keys apart before they are compared whole (a workload that
   makes two keys collide gains nothing: they are compared whole).  */
static uint64_t
hash_str (uint64_t h, const char *s)
{
  if (s == NULL)
    return (h ^ 0xff) * 0x100000001b3ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 0x100000001b3ULL;
  return (h ^ 0) * 0x100000001b3ULL;
}

static uint64_t
key_hash (const struct audit_key *k)
{
  uint64_t h = 0xcbf29ce484222325ULL;

  h = hash_str (h, k->name);
  h = hash_str (h, k->verdict);
  h = hash_str (h, k->rule);
  h = hash_str (h, k->comm);
  h = hash_str (h, k->subject);
  h = (h ^ (uint64_t) (unsigned) k->err) * 0x100000001b3ULL;
  return (h ^ (uint64_t) (unsigned) k->severity) * 0x100000001b3ULL;
}

static bool
same (const char *a, const char *b)
{
  return a == NULL ? b == NULL : b != NULL && strcmp (a, b) == 0;
}

static bool
key_is (const struct audit_agg_entry *e, uint64_t h, const struct audit_key *k)
{
  return e->used && e->hash == h && e->err == k->err && e->severity == k->severity
         && same (e->name, k->name) && same (e->verdict, k->verdict) && same (e->rule, k->rule)
         && same (e->comm, k->comm) && same (e->subject, k->subject);
}

/* Copies of the key's strings, in one allocation (e->keys).  */
static void
key_copy (struct audit_agg_entry *e, const struct audit_key *k)
{
  const char *in[] = { k->name, k->verdict, k->rule, k->comm, k->subject };
  const char **out[] = { &e->name, &e->verdict, &e->rule, &e->comm, &e->subject };
  size_t len[ARRAY_SIZE (in)], total = 0, at = 0;

  for (size_t i = 0; i < ARRAY_SIZE (in); i++)
    total += len[i] = in[i] ? strlen (in[i]) + 1 : 0;
  e->keys = xmalloc (total ? total : 1);
  for (size_t i = 0; i < ARRAY_SIZE (in); i++)
    {
      *out[i] = in[i] ? memcpy (e->keys + at, in[i], len[i]) : NULL;
      at += len[i];
    }
  e->err = k->err;
  e->severity = k->severity;
}

static struct audit_key
key_of (const struct audit_agg_entry *e)
{
  return (struct audit_key){ .name = e->name,
                             .verdict = e->verdict,
                             .rule = e->rule,
                             .comm = e->comm,
                             .subject = e->subject,
                             .err = e->err,
                             .severity = e->severity };
}

static void
key_set (struct audit_agg_entry *e, uint64_t h, const struct audit_key *k, uint64_t end)
{
  memset (e, 0, sizeof *e);
  e->used = true;
  e->hash = h;
  key_copy (e, k);
  e->window_end = end;
}

bool
audit_agg_fold (struct audit_budget *b, const struct audit_key *k, uint64_t now,
                struct audit_seen *s)
{
  uint64_t h = key_hash (k);
  struct audit_agg_entry *e, *free_slot = NULL, *idle = NULL;

  for (size_t i = 0; i < AUDIT_AGG_SLOTS; i++)
    {
      e = &b->agg[i];
      if (key_is (e, h, k))
        {
          if (e->count++ == 0)
            e->first = s->when;
          e->last = s->when;
          e->pid = s->pid;
          snprintf (e->last_comm, sizeof e->last_comm, "%s", s->comm ? s->comm : "");
          free (e->payload);
          e->payload = steal_ptr (&s->payload);
          e->truncated = s->truncated;
          return true;
        }
      if (!e->used && free_slot == NULL)
        free_slot = e;
      if (e->used && e->count == 0 && (idle == NULL || e->window_end < idle->window_end))
        idle = e;
    }
  /* A full table: the oldest key that counted no repeat makes room (forgetting it loses
     nothing).  When every key has repeats, this one is not aggregated: the rate and the cap
     still bound it.  */
  if (free_slot == NULL && idle)
    {
      audit_agg_entry_clear (idle);
      free_slot = idle;
    }
  if (free_slot)
    key_set (free_slot, h, k, now + (uint64_t) b->lim.window_ms * 1000000);
  return false;
}

size_t
audit_agg_expire (struct audit_budget *b, uint64_t now, bool all, struct audit_agg_entry *out,
                  size_t n)
{
  size_t moved = 0;

  for (size_t i = 0; i < AUDIT_AGG_SLOTS; i++)
    {
      struct audit_agg_entry *e = &b->agg[i];
      if (!e->used || (!all && now < e->window_end))
        continue;
      if (e->count == 0)
        {
          audit_agg_entry_clear (e);
          continue;
        }
      if (moved == n)
        break;
      /* The summary takes copies; the key stays, hot, for the next window.  */
      struct audit_key k = key_of (e);
      out[moved] = *e;
      key_copy (&out[moved], &k);
      e->payload = NULL; /* moved */
      e->count = 0;
      e->window_end = now + (uint64_t) b->lim.window_ms * 1000000;
      moved++;
    }
  return moved;
}

void
audit_agg_entry_clear (struct audit_agg_entry *e)
{
  if (!e->used)
    return;
  free (e->keys);
  free (e->payload);
  memset (e, 0, sizeof *e);
}
