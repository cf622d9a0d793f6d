/* The pin table (dns_pins.h): a fixed pool of pins, chained in hash buckets by address, each
   stamped when last used so that eviction takes the least recently used.  */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns/dns_pins.h"
#include "utils.h"

#define NIL UINT32_MAX

struct pin
{
  int family; /* 0: a free slot */
  uint8_t addr[16];
  uint64_t expires;
  uint64_t used; /* t->stamp when last added or used by a connect */
  uint32_t next; /* in its bucket, or in the free list */
  char name[NETPOLICY_NAME_MAX + 1];
};

struct dns_pins
{
  pthread_mutex_t lock;
  struct pin *pins;
  uint32_t max, count, free;
  uint32_t *buckets;
  uint32_t mask; /* buckets - 1, a power of two at least max */
  uint64_t stamp;
  uint32_t grace;
};

struct dns_pins *
dns_pins_new (size_t max, uint32_t grace)
{
  struct dns_pins *t = xzalloc (sizeof *t);
  size_t nb = 1;

  if (max == 0 || max > UINT32_MAX / 2)
    max = DNS_PINS_DEFAULT;
  while (nb < max)
    nb <<= 1;
  pthread_mutex_init (&t->lock, NULL);
  t->pins = xzalloc (max * sizeof *t->pins);
  t->buckets = xmalloc (nb * sizeof *t->buckets);
  for (size_t i = 0; i < nb; i++)
    t->buckets[i] = NIL;
  for (size_t i = 0; i < max; i++)
    t->pins[i].next = i + 1 < max ? (uint32_t) (i + 1) : NIL;
  t->max = (uint32_t) max;
  t->mask = (uint32_t) (nb - 1);
  t->grace = grace;
  return t;
}

void
dns_pins_free (struct dns_pins *t)
{
  if (t == NULL)
    return;
  pthread_mutex_destroy (&t->lock);
  free (t->pins);
  free (t->buckets);
  free (t);
}

/* A v4-mapped v6 address is kept, and looked up, as its IPv4 one.  */
static void
unmap (int *family, const uint8_t **addr)
{
  if (*family == AF_INET6 && IN6_IS_ADDR_V4MAPPED ((const struct in6_addr *) *addr))
    {
      *family = AF_INET;
      *addr += 12;
    }
}

static size_t
addr_len (int family)
{
  return family == AF_INET ? 4 : 16;
}

/* FNV-1a over the address.  */
static uint32_t
bucket_of (const struct dns_pins *t, int family, const uint8_t *addr)
{
  uint32_t h = 2166136261u ^ (uint32_t) family;

  for (size_t i = 0; i < addr_len (family); i++)
    h = (h ^ addr[i]) * 16777619u;
  return h & t->mask;
}

static bool
same_addr (const struct pin *p, int family, const uint8_t *addr)
{
  return p->family == family && memcmp (p->addr, addr, addr_len (family)) == 0;
}

static void
unlink_pin (struct dns_pins *t, uint32_t i)
{
  struct pin *p = &t->pins[i];

  for (uint32_t *at = &t->buckets[bucket_of (t, p->family, p->addr)]; *at != NIL;
       at = &t->pins[*at].next)
    if (*at == i)
      {
        *at = p->next;
        break;
      }
  memset (p, 0, sizeof *p);
  p->next = t->free;
  t->free = i;
  t->count--;
}

/* The pin to give up for a new one: an expired one, else the least recently used (of the
   address's own pins when `family` is set, else of all).  */
static uint32_t
victim (const struct dns_pins *t, int family, const uint8_t *addr, uint64_t now)
{
  uint32_t best = NIL;

  for (uint32_t i = 0; i < t->max; i++)
    {
      const struct pin *p = &t->pins[i];
      if (p->family == 0 || (family && !same_addr (p, family, addr)))
        continue;
      if (p->expires <= now)
        return i;
      if (best == NIL || p->used < t->pins[best].used)
        best = i;
    }
  return best;
}

/* The pin of (address, name), and how many pins the address has.  */
static uint32_t
find (const struct dns_pins *t, int family, const uint8_t *addr, const char *name, size_t *names)
{
  uint32_t found = NIL;

  *names = 0;
  for (uint32_t i = t->buckets[bucket_of (t, family, addr)]; i != NIL; i = t->pins[i].next)
    if (same_addr (&t->pins[i], family, addr))
      {
        (*names)++;
        if (strcmp (t->pins[i].name, name) == 0)
          found = i;
      }
  return found;
}

static void
insert (struct dns_pins *t, const char *name, int family, const uint8_t *addr, uint64_t expires)
{
  uint32_t i = t->free, b = bucket_of (t, family, addr);
  struct pin *p = &t->pins[i];

  t->free = p->next;
  p->family = family;
  memcpy (p->addr, addr, addr_len (family));
  strcpy (p->name, name);
  p->expires = expires;
  p->used = ++t->stamp;
  p->next = t->buckets[b];
  t->buckets[b] = i;
  t->count++;
}

static void
add_locked (struct dns_pins *t, const char *name, int family, const uint8_t *addr, uint32_t ttl,
            uint64_t now)
{
  uint64_t expires = now + (ttl < DNS_PINS_TTL_MAX ? ttl : DNS_PINS_TTL_MAX) + t->grace;
  size_t names;
  uint32_t i = find (t, family, addr, name, &names);

  if (i != NIL)
    {
      if (expires > t->pins[i].expires)
        t->pins[i].expires = expires;
      t->pins[i].used = ++t->stamp;
      return;
    }
  if (names >= DNS_PINS_PER_ADDR)
    unlink_pin (t, victim (t, family, addr, now));
  else if (t->count == t->max)
    unlink_pin (t, victim (t, 0, NULL, now));
  insert (t, name, family, addr, expires);
}

bool
dns_pins_add (struct dns_pins *t, const char *name, int family, const uint8_t *addr, uint32_t ttl,
              uint64_t now)
{
  char norm[NETPOLICY_NAME_MAX + 1];

  if ((family != AF_INET && family != AF_INET6) || !netpolicy_name_normalize (name, norm))
    return false;
  unmap (&family, &addr);
  pthread_mutex_lock (&t->lock);
  add_locked (t, norm, family, addr, ttl, now);
  pthread_mutex_unlock (&t->lock);
  return true;
}

/* May a name's answer make this address connectable?  Never a forbidden one (a cloud's metadata
   service), the host's loopback only when the operator said so (netpolicy.h).  */
static bool
answer_ok (const struct netpolicy *p, int family, const uint8_t *addr)
{
  if (netpolicy_answer_forbidden (family, addr))
    return false;
  return p->special_ok || !netpolicy_address_special (family, addr);
}

size_t
dns_pins_add_result (struct dns_pins *t, const struct netpolicy *p, const char *name,
                     struct dns_result *r, uint64_t now)
{
  size_t kept = 0, removed = 0;

  for (size_t i = 0; i < r->n_addrs; i++)
    {
      const struct dns_addr *a = &r->addrs[i];
      /* The answer's TTL (the least along its chain), not the address record's own: the
         address is the question's only as long as every CNAME leading to it is.  */
      if (!answer_ok (p, a->family, a->addr)
          || !dns_pins_add (t, name, a->family, a->addr, r->ttl, now))
        {
          removed++;
          continue;
        }
      r->addrs[kept++] = *a;
    }
  r->n_addrs = kept;
  return removed;
}

void
dns_pins_expire (struct dns_pins *t, uint64_t before)
{
  pthread_mutex_lock (&t->lock);
  for (uint32_t i = 0; i < t->max; i++)
    if (t->pins[i].family != 0 && t->pins[i].expires < before)
      unlink_pin (t, i);
  pthread_mutex_unlock (&t->lock);
}

size_t
dns_pins_count (struct dns_pins *t)
{
  size_t n;

  pthread_mutex_lock (&t->lock);
  n = t->count;
  pthread_mutex_unlock (&t->lock);
  return n;
}

int
dns_deny_errno (enum dns_deny why)
{
  switch (why)
    {
    case DNS_DENY_NONE:
      return 0;
    case DNS_DENY_PORT:
      return ECONNREFUSED;
    case DNS_DENY_PROGRAM:
      return EACCES;
    default:
      return ENETUNREACH;
    }
}

const char *
dns_deny_name (enum dns_deny why)
{
  static const char *const names[] = {
    [DNS_DENY_NONE] = "none",       [DNS_DENY_UNKNOWN] = "unknown", [DNS_DENY_EXPIRED] = "expired",
    [DNS_DENY_SPECIAL] = "special", [DNS_DENY_PORT] = "port",       [DNS_DENY_PROGRAM] = "program",
  };
  return (size_t) why < ARRAY_SIZE (names) ? names[why] : "?";
}

/* Keep the nearer of two reasons: a miss on the program is nearer than one on the port, which
   is nearer than an expired pin, nearer than knowing nothing.  */
static void
note (struct dns_verdict *v, enum dns_deny why, const struct netpolicy_entry *e, const char *name)
{
  if (why <= v->why)
    return;
  v->why = why;
  v->entry = e;
  strcpy (v->name, name ? name : "");
}

static enum dns_deny
deny_of (enum netpolicy_miss m)
{
  return m == NETPOLICY_MISS_PORT      ? DNS_DENY_PORT
         : m == NETPOLICY_MISS_PROGRAM ? DNS_DENY_PROGRAM
                                       : DNS_DENY_UNKNOWN;
}

/* The entries against a connect to `name` (NULL: the address itself, for address entries).
   true, with v filled, when one allows it.  */
static bool
check_entries (const struct netpolicy *p, const char *name, int family, const uint8_t *addr,
               uint16_t port, const char *exe, struct dns_verdict *v)
{
  for (size_t i = 0; i < p->n; i++)
    {
      const struct netpolicy_entry *e = &p->entries[i];
      enum netpolicy_miss m;
      if ((e->kind == NETPOLICY_NET) != (name == NULL))
        continue;
      m = netpolicy_entry_check (e, name, family, addr, port, exe);
      if (m == NETPOLICY_HIT)
        {
          v->allowed = true;
          v->why = DNS_DENY_NONE;
          v->entry = e;
          strcpy (v->name, name ? name : "");
          return true;
        }
      note (v, deny_of (m), e, name);
    }
  return false;
}

static void
check_pins (struct dns_pins *t, const struct netpolicy *p, int family, const uint8_t *addr,
            uint16_t port, const char *exe, uint64_t now, struct dns_verdict *v)
{
  for (uint32_t i = t->buckets[bucket_of (t, family, addr)]; i != NIL; i = t->pins[i].next)
    {
      struct pin *pin = &t->pins[i];
      if (!same_addr (pin, family, addr))
        continue;
      if (pin->expires <= now)
        note (v, DNS_DENY_EXPIRED, NULL, pin->name);
      else if (!answer_ok (p, family, addr))
        note (v, DNS_DENY_SPECIAL, NULL, pin->name);
      else if (check_entries (p, pin->name, family, addr, port, exe, v))
        {
          pin->used = ++t->stamp;
          return;
        }
    }
}

void
dns_pins_decide (struct dns_pins *t, const struct netpolicy *p, int family, const uint8_t *addr,
                 uint16_t port, const char *exe, uint64_t now, struct dns_verdict *v)
{
  memset (v, 0, sizeof *v);
  v->why = DNS_DENY_UNKNOWN;
  if (family != AF_INET && family != AF_INET6)
    return;
  unmap (&family, &addr);
  if (check_entries (p, NULL, family, addr, port, exe, v))
    return;
  pthread_mutex_lock (&t->lock);
  check_pins (t, p, family, addr, port, exe, now, v);
  pthread_mutex_unlock (&t->lock);
}

size_t
dns_pins_names (struct dns_pins *t, int family, const uint8_t *addr, uint64_t now,
                char (*out)[NETPOLICY_NAME_MAX + 1], size_t max)
{
  uint64_t used[DNS_PINS_PER_ADDR];
  size_t n = 0;

  if (family != AF_INET && family != AF_INET6)
    return 0;
  unmap (&family, &addr);
  if (max > DNS_PINS_PER_ADDR)
    max = DNS_PINS_PER_ADDR;
  pthread_mutex_lock (&t->lock);
  for (uint32_t i = t->buckets[bucket_of (t, family, addr)]; i != NIL; i = t->pins[i].next)
    {
      const struct pin *pin = &t->pins[i];
      size_t at = n;
      if (!same_addr (pin, family, addr) || pin->expires <= now)
        continue;
      /* Insertion by recency: most recent first; past `max`, the oldest fall off.  */
      while (at > 0 && used[at - 1] < pin->used)
        at--;
      if (at >= max)
        continue;
      if (n == max)
        n--;
      memmove (&used[at + 1], &used[at], (n - at) * sizeof *used);
      memmove (&out[at + 1], &out[at], (n - at) * sizeof *out);
      used[at] = pin->used;
      strcpy (out[at], pin->name);
      n++;
    }
  pthread_mutex_unlock (&t->lock);
  return n;
}
