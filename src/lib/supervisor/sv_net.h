/* Egress by name, inside the supervisor worker (DESIGN.md "Egress by name"): the allowlist in
   force (replaced by `agentrt update` while the container runs), the pin table of the
   sandbox's own resolver, its answer cache, the connections the broker handed over (so that a
   revoked entry's are shut down), and the recent denials the workload may read.

     resolver.c        the DNS server in the container's network namespace (UDP and TCP on
                       EGRESS_RESOLVER_ADDR:53): allowed names resolved upstream, from the
                       namespace the broker connects from, and pinned; every other name NXDOMAIN
     handlers/egress.c the connect decision (dns_pins_decide), the hand-over
     netlive.c         this state: the policy's lock, live updates and revocation, denials

   Threads: the policy is read under `lock` (shared) by the resolver's threads and the broker's;
   an update takes it exclusively, swaps the pointer, and frees the old list once nobody holds
   it.  A decision's entry points into the list it was made under, so it is used (audited)
   before the lock is let go.  */
#ifndef AGENTRT_SV_NET_H
#define AGENTRT_SV_NET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "dns/dns_msg.h"
#include "dns/dns_pins.h"
#include "dns/dns_upstream.h"
#include "sandbox/egress.h"
#include "sandbox/netpolicy.h"

struct sv;

/* The answer cache: (name, type) → the upstream's answer, until its TTL.  */
#define SV_NET_CACHE_SLOTS 256
/* Negative answers (NXDOMAIN, no address) of an allowed name are kept this long: the upstream's
   SOA, which says how long, is not read.  */
#define SV_NET_NEGATIVE_TTL 10
/* Upstream look-ups in threads of their own at once; past it a query is dropped (the client
   asks again, as for a lost datagram).  */
#define SV_NET_LOOKUPS_MAX 16
/* TCP connections to the resolver served at once.  */
#define SV_NET_TCP_MAX 8
/* Brokered connections remembered for revocation.  */
#define SV_NET_CONNS_MAX 4096
/* Denials kept for the workload's file.  */
#define SV_NET_DENIALS_MAX 32

struct sv_net_cached
{
  bool used;
  uint16_t qtype;
  uint64_t expires; /* monotonic seconds */
  char name[DNS_NAME_TEXT_MAX + 1];
  struct dns_result r;
};

/* A connection the broker handed over: its socket's inode (the workload holds the only
   reference: a copy of ours would keep the connection open after the workload closed it, and
   its peer would never see the end), and what it was allowed as.  */
struct sv_net_conn
{
  ino_t ino;
  int family;
  uint8_t addr[16];
  uint16_t port;
  char name[NETPOLICY_NAME_MAX + 1]; /* "" for an address entry */
  char *exe;                         /* NULL: not read (no entry named a program) */
};

struct sv_net_denial
{
  struct timespec when;
  char line[640];
};

struct sv_net
{
  pthread_rwlock_t lock;
  struct netpolicy *policy; /* under lock */
  bool programs;            /* an entry of policy names a program (under lock) */
  struct dns_pins *pins;
  struct dns_upstream upstream;
  struct egress_addrs host_addrs; /* no answer may pin them unless policy->special_ok */
  int udp_fd, tcp_fd;             /* the resolver's, in the container's network namespace */
  uint64_t container_netns_ino;   /* which processes are the container's (revocation) */
  atomic_uint lookups, tcp_conns;

  pthread_mutex_t cache_lock;
  struct sv_net_cached *cache; /* SV_NET_CACHE_SLOTS */

  pthread_mutex_t conns_lock;
  struct sv_net_conn *conns;
  size_t n_conns;

  pthread_mutex_t denials_lock;
  struct sv_net_denial denials[SV_NET_DENIALS_MAX];
  size_t n_denials, next_denial;
  int denials_fd; /* the file in the virtual files' directory, or -1 */
};

/* Monotonic seconds: the pins' and the cache's clock.  */
uint64_t sv_net_now (void);

/* At setup, before the worker confines itself: `policy` is the worker's copy of create's (it
   becomes the first list in force).  */
int sv_net_init (struct sv *sv, struct netpolicy *policy, const struct dns_upstream *upstream,
                 const struct egress_addrs *host_addrs, int vfiles_dirfd, ar_error_t *err);

/* The policy in force, shared; sv_net_put lets go of it.  */
const struct netpolicy *sv_net_get (struct sv *sv);
void sv_net_put (struct sv *sv);

/* A connection handed over (handlers/egress.c), for revocation.  false: the table is full of
   live connections (the caller refuses the connect).  */
bool sv_net_conn_add (struct sv *sv, int sock, int family, const uint8_t *addr, uint16_t port,
                      const char *name, const char *exe);

/* A denial, for the workload's file: `kind` "dns" or "connect", `target` what was asked for,
   `err` the errno or rcode name, `reason`, `ask` the entry that would allow it.  The file is
   rewritten at once: the workload reads it right after its call failed.  */
void sv_net_denied (struct sv *sv, const char *kind, const char *target, const char *err,
                    const char *reason, const char *ask);

/* A live update (control.h): the new list replaces the old, or its entries are added to it or
   removed from it (`remove`: each must be on the list).  Audited; connections no entry allows
   any more are shut down.  0, or an errno with *msg (malloc'd) saying why.  */
enum sv_net_op
{
  SV_NET_SET,
  SV_NET_ADD,
  SV_NET_REMOVE,
};
int sv_net_update (struct sv *sv, enum sv_net_op op, const char *list, char **msg);

/* The resolver (resolver.c): its sockets, made in the container's network namespace while the
   worker's thread is there (sv_egress_setup), then its threads, once the worker is confined.  */
int sv_resolver_open (struct sv *sv, ar_error_t *err);
int sv_resolver_start (struct sv *sv, ar_error_t *err);

/* Once a second: forget pins that expired ten minutes ago (until then a connect to one is
   denied as "expired", which says more than "unknown"), and expired answers.  */
void sv_net_tick (struct sv *sv);

#endif
