/* The pin table of one sandbox: which addresses its own resolver returned, for which names,
   until when; and the connect decision made from it and the allowlist (issue 16, DESIGN.md
   "Egress by name").

   A pin is (address, name, expiry): the sandbox's resolver answered `name` (the question's
   name, which the allowlist matched, not a CNAME's target: a CDN's internal names are never
   listed) with `address`, valid for the answer's TTL (at most DNS_PINS_TTL_MAX) plus a grace,
   so a client that keeps an address a little past its TTL (connection pools, Java's cache)
   still reconnects.  An address may be pinned to many names (a CDN's), a name to many
   addresses.  The pin keeps the name, not the entry that allowed it: the entry is found again
   at each connect, so a change of the allowlist (live updates) takes effect on the next connect
   without walking the table, and the decision names the entry that holds now.

   Bound: at most `max` pins.  A new pin at the bound takes the place of an expired one, else of
   the least recently used (a connect uses a pin).  Refusing new names instead would break a
   long-running sandbox whose CDNs rotate addresses until the old pins expire; evicting only
   hurts the sandbox that filled its own table (its next connect to an evicted address fails
   until it resolves the name again), and each sandbox has a table of its own.  Also at most
   DNS_PINS_PER_ADDR names per address (the least recently used goes), so one address cannot
   make each connect walk the whole table.

   Thread-safe: a mutex of its own (the resolver's thread adds, the broker's threads decide).  */
#ifndef AGENTRT_DNS_PINS_H
#define AGENTRT_DNS_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns/dns_msg.h"
#include "sandbox/netpolicy.h"

#define DNS_PINS_DEFAULT 1024
#define DNS_PINS_PER_ADDR 32
#define DNS_PINS_GRACE 120     /* seconds */
#define DNS_PINS_TTL_MAX 86400 /* an answer's TTL counts for a day at most */

struct dns_pins;

/* `max` pins (0: DNS_PINS_DEFAULT), each kept `grace` seconds past its TTL.  */
struct dns_pins *dns_pins_new (size_t max, uint32_t grace);
void dns_pins_free (struct dns_pins *t);

/* Pin one address to `name` until now + ttl + grace (a pin already there is kept to the later
   of the two).  `now`: seconds on any monotonic clock, the same for every call.  false if the
   name is no host name (netpolicy_name_normalize).  */
bool dns_pins_add (struct dns_pins *t, const char *name, int family, const uint8_t *addr,
                   uint32_t ttl, uint64_t now);
/* Pin the addresses of a resolver's answer to the question's `name`.  An address that
   netpolicy_answer_forbidden names is never pinned, one netpolicy_address_special names only
   when p->special_ok, and either is removed from r,
   so that the answer given to the workload holds only what a connect may use.  The number
   removed.  */
size_t dns_pins_add_result (struct dns_pins *t, const struct netpolicy *p, const char *name,
                            struct dns_result *r, uint64_t now);
/* Forget pins that expired before `before` (now, or earlier to remember a little longer why an
   address was known: DNS_DENY_EXPIRED).  */
void dns_pins_expire (struct dns_pins *t, uint64_t before);
size_t dns_pins_count (struct dns_pins *t);

/* Why a connect is refused, and the errno it fails with (dns_deny_errno).  */
enum dns_deny
{
  DNS_DENY_NONE = 0,
  DNS_DENY_UNKNOWN, /* no address entry holds it, and the sandbox never resolved a name to it:
                       ENETUNREACH, as the loopback-only namespace answers */
  DNS_DENY_EXPIRED, /* it was pinned, and has expired: ENETUNREACH; resolve the name again */
  DNS_DENY_SPECIAL, /* a name's address that is the host's own (netpolicy_address_special) */
  DNS_DENY_PORT,    /* an entry names the destination, not this port: ECONNREFUSED, as a host
                       that is up refuses a closed port */
  DNS_DENY_PROGRAM, /* an entry names it and this port, for another program: EACCES (connect(2):
                       "a local firewall rule") */
};
int dns_deny_errno (enum dns_deny why);
/* "unknown", "expired", "special", "port", "program": the audit record's reason.  */
const char *dns_deny_name (enum dns_deny why);

struct dns_verdict
{
  bool allowed;
  enum dns_deny why;
  /* Allowed: the entry that allows it.  Denied: the entry of the nearest miss (PORT, PROGRAM),
     or NULL.  It points into the policy given, which the caller keeps while it uses this.  */
  const struct netpolicy_entry *entry;
  /* The pinned name it was decided under; empty for an address entry or no name.  */
  char name[NETPOLICY_NAME_MAX + 1];
};

/* May `exe` (NULL: unknown) connect to addr:port?  Address entries first, then each live name
   pinned to the address, against the name entries; a connect that is allowed uses its pin.

   Shared addresses.  A connect is allowed to an address if any allowed name the sandbox itself
   resolved is pinned to it, whatever other names the address serves.  A CDN address serving an
   allowed name (pypi.org) and a forbidden one (evil.example, on the same CDN) is therefore open
   to both: TLS's SNI and HTTP's Host are chosen by the workload, after the connect, and nothing
   that decides on addresses sees them.  This is the limit of every IP-level egress control
   without a proxy on the data path: the allowlist is of names, the enforcement of addresses,
   and an allowed name's address admits every tenant of that address.  What it still gives: no
   address that no allowed name ever resolved to (within its TTL and grace) is reachable, each
   connect is recorded under the name it was allowed by, and the workload cannot pin an address
   by resolving a name of its own choosing unless the allowlist names it (a wildcard over a
   domain whose DNS someone else controls hands that someone the choice of addresses: list
   such domains by name).  Stopping cross-tenant use needs a proxy that reads SNI/Host, at the
   cost of the data path this design avoids.  */
void dns_pins_decide (struct dns_pins *t, const struct netpolicy *p, int family,
                      const uint8_t *addr, uint16_t port, const char *exe, uint64_t now,
                      struct dns_verdict *v);

/* Names live-pinned to the address, most recent first, for audit records and `--suggest`: up
   to `max` copied into out; the number copied.  */
size_t dns_pins_names (struct dns_pins *t, int family, const uint8_t *addr, uint64_t now,
                       char (*out)[NETPOLICY_NAME_MAX + 1], size_t max);

#endif
