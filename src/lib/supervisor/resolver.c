/* The sandbox's resolver (sv_net.h): a DNS server the supervisor serves on
   EGRESS_RESOLVER_ADDR:53, UDP and TCP, in the container's network namespace, which the
   container's resolv.conf names.

     a name no entry matches            NXDOMAIN at once, audited and written to the denials file
                                        (NXDOMAIN, not REFUSED: a stub resolver takes REFUSED
                                        for a broken server and tries the next one or reports a
                                        temporary failure, which reads as "down"; NXDOMAIN ends
                                        the look-up with "no such name", and without an SOA no
                                        client caches it, so a name added later resolves at once)
     an allowed name, A or AAAA          the cache, else the upstream (the namespace the broker
                                        connects from, its resolv.conf's servers, in a thread of
                                        its own); the answer's addresses pinned to the question's
                                        name (dns_pins.h) with its TTLs, the answer's TTLs no
                                        longer than what is left of the pin's, so a client's
                                        cache expires first
     an allowed name, any other type     NODATA (NOERROR, no record): HTTPS and SVCB too, so that
                                        clients fall back to A and AAAA, whose addresses are the
                                        ones pinned

   A cached answer costs the workload no notify round trip at all when it sends its queries
   without connect (musl, Go), and one (its connect to the resolver, answered without the
   broker, in the worker: a datagram connect cannot block) otherwise: bench/dns.sh.  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "supervisor/sv.h"
#include "supervisor/sv_net.h"
#include "utils.h"

/* A TCP client that sends nothing for this long is let go.  */
#define TCP_IDLE_MS 10000

int
sv_resolver_open (struct sv *sv, ar_error_t *err)
{
  struct sv_net *n = sv->net;
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (EGRESS_RESOLVER_PORT) };
  int one = 1;

  inet_pton (AF_INET, EGRESS_RESOLVER_ADDR, &a.sin_addr);
  n->udp_fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  n->tcp_fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (n->udp_fd < 0 || n->tcp_fd < 0)
    return ar_make_error (err, errno, "supervisor: the resolver's sockets");
  (void) setsockopt (n->tcp_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind (n->udp_fd, (struct sockaddr *) &a, sizeof a) < 0
      || bind (n->tcp_fd, (struct sockaddr *) &a, sizeof a) < 0 || listen (n->tcp_fd, 16) < 0)
    return ar_make_error (err, errno, "supervisor: the resolver on %s:%d in the container",
                          EGRESS_RESOLVER_ADDR, EGRESS_RESOLVER_PORT);
  return 0;
}

static const char *
type_name (uint16_t t, char buf[16])
{
  switch (t)
    {
    case DNS_TYPE_A:
      return "A";
    case DNS_TYPE_AAAA:
      return "AAAA";
    case DNS_TYPE_CNAME:
      return "CNAME";
    case DNS_TYPE_PTR:
      return "PTR";
    case DNS_TYPE_HTTPS:
      return "HTTPS";
    case DNS_TYPE_SVCB:
      return "SVCB";
    default:
      snprintf (buf, 16, "TYPE%u", (unsigned) t);
      return buf;
    }
}

/* The audit record and the denials file of a name refused.  */
static void
deny_name (struct sv *sv, const struct dns_query *q)
{
  char tb[16];
  const char *name = q->host_name ? q->name : "(not a host name)";
  const char *type = type_name (q->qtype, tb);
  cleanup_free char *ask = q->host_name ? xasprintf ("%s:*", q->name) : xstrdup ("-");
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *args = NULL;

  ar_json_obj_open (j);
  ar_json_kstr (j, "name", name);
  ar_json_kstr (j, "type", type);
  ar_json_kstr (j, "rcode", "NXDOMAIN");
  ar_json_kstr (j, "reason", "not-listed");
  if (q->host_name)
    ar_json_kstr (j, "ask", ask);
  ar_json_obj_close (j);
  args = ar_json_finish (j, NULL);
  sv_audit_query (sv, "deny", "egress-dns-deny", name, args);
  sv_net_denied (sv, "dns", name, "NXDOMAIN", "not-listed", ask);
}

static size_t
cache_slot (const char *name, uint16_t qtype)
{
  uint64_t h = 0xcbf29ce484222325ULL;

  for (const char *p = name; *p; p++)
    h = (h ^ (unsigned char) *p) * 0x100000001b3ULL;
  h = (h ^ qtype) * 0x100000001b3ULL;
  return (size_t) (h % SV_NET_CACHE_SLOTS);
}

/* A cached answer, with the seconds left of it in *ttl.  */
static bool
cache_get (struct sv_net *n, const struct dns_query *q, uint64_t now, struct dns_result *r,
           uint32_t *ttl)
{
  struct sv_net_cached *c = &n->cache[cache_slot (q->name, q->qtype)];
  bool hit;

  pthread_mutex_lock (&n->cache_lock);
  hit = c->used && c->qtype == q->qtype && c->expires > now && strcmp (c->name, q->name) == 0;
  if (hit)
    {
      *r = c->r;
      *ttl = (uint32_t) (c->expires - now);
    }
  pthread_mutex_unlock (&n->cache_lock);
  return hit;
}

static void
cache_put (struct sv_net *n, const struct dns_query *q, uint64_t now, const struct dns_result *r,
           uint32_t ttl)
{
  struct sv_net_cached *c = &n->cache[cache_slot (q->name, q->qtype)];

  if (ttl == 0)
    return;
  pthread_mutex_lock (&n->cache_lock);
  c->used = true;
  c->qtype = q->qtype;
  c->expires = now + ttl;
  snprintf (c->name, sizeof c->name, "%s", q->name);
  c->r = *r;
  pthread_mutex_unlock (&n->cache_lock);
}

/* The host's own addresses are no answer of a list config.json gave (sandbox.c): dropped, as
   dns_pins_add_result drops loopback and link-local ones.  */
static void
drop_host_addrs (struct sv_net *n, const struct netpolicy *p, struct dns_result *r)
{
  size_t k = 0;

  if (p->special_ok)
    return;
  for (size_t i = 0; i < r->n_addrs; i++)
    if (!egress_addrs_has (&n->host_addrs, r->addrs[i].family, r->addrs[i].addr))
      r->addrs[k++] = r->addrs[i];
  r->n_addrs = k;
}

/* Resolve an allowed name's A or AAAA: the cache, or (may_block) the upstream.  1 with *r and
 *ttl; 0 when it needs the upstream and may not block; -1 when the upstream failed.  */
static int
lookup (struct sv *sv, const struct dns_query *q, bool may_block, struct dns_result *r,
        uint32_t *ttl)
{
  struct sv_net *n = sv->net;
  uint64_t now = sv_net_now ();
  const struct netpolicy *p;
  ar_error_t err = NULL;

  if (cache_get (n, q, now, r, ttl))
    {
      /* Pinned again for what is left of it: a pin evicted meanwhile comes back.  */
      p = sv_net_get (sv);
      for (size_t i = 0; i < r->n_addrs; i++)
        dns_pins_add (n->pins, q->name, r->addrs[i].family, r->addrs[i].addr, *ttl, now);
      sv_net_put (sv);
      (void) p;
      return 1;
    }
  if (!may_block)
    return 0;
  if (dns_upstream_resolve (&n->upstream, q->name, q->qtype, r, &err) < 0)
    {
      ar_debug ("supervisor: resolver: %s: %s", q->name, err->msg);
      ar_error_release (&err);
      return -1;
    }
  now = sv_net_now ();
  p = sv_net_get (sv);
  drop_host_addrs (n, p, r);
  dns_pins_add_result (n->pins, p, q->name, r, now);
  sv_net_put (sv);
  *ttl = r->n_addrs ? r->ttl : SV_NET_NEGATIVE_TTL;
  if (*ttl > DNS_PINS_TTL_MAX)
    *ttl = DNS_PINS_TTL_MAX;
  cache_put (n, q, now, r, *ttl);
  return 1;
}

/* The answer to one query, into out (at most `max` bytes).  Its length; 0 when it must go to a
   thread that may block (only when !may_block); -1: no answer at all.  */
static int
answer (struct sv *sv, const uint8_t *msg, size_t len, bool may_block, uint8_t *out, size_t max,
        bool tcp)
{
  struct dns_query q;
  struct dns_result r;
  ar_error_t err = NULL;
  uint32_t ttl = 0;
  int reply = -1, got, w;
  bool allowed;

  if (dns_msg_parse_query (msg, len, &q, &reply, &err) < 0)
    {
      ar_error_release (&err);
      if (reply < 0)
        return -1;
      w = dns_msg_build_error (q.id, q.flags, reply, out, max, &err);
      goto done;
    }
  if (!tcp && max > dns_msg_udp_max (&q))
    max = dns_msg_udp_max (&q);
  memset (&r, 0, sizeof r);
  r.rcode = DNS_NOERROR;
  allowed = q.host_name && q.qclass == DNS_CLASS_IN;
  if (allowed)
    {
      allowed = netpolicy_match_name (sv_net_get (sv), q.name) != NULL;
      sv_net_put (sv);
    }
  if (q.qclass != DNS_CLASS_IN)
    r.rcode = DNS_REFUSED;
  else if (!allowed)
    {
      r.rcode = DNS_NXDOMAIN;
      deny_name (sv, &q);
    }
  else if (q.qtype == DNS_TYPE_A || q.qtype == DNS_TYPE_AAAA)
    {
      got = lookup (sv, &q, may_block, &r, &ttl);
      if (got == 0)
        return 0;
      if (got < 0)
        {
          memset (&r, 0, sizeof r);
          r.rcode = DNS_SERVFAIL;
        }
    }
  w = dns_msg_build_answer (&q, &r, ttl, out, max, &err);
done:
  if (w < 0)
    {
      ar_debug ("supervisor: resolver: %s", err->msg);
      ar_error_release (&err);
      return -1;
    }
  return w;
}

/* A query that needs the upstream: a thread of its own answers it.  */
struct pending
{
  struct sv *sv;
  struct sockaddr_storage from;
  socklen_t from_len;
  size_t len;
  uint8_t msg[DNS_UDP_MAX];
};

static void *
pending_thread (void *arg)
{
  struct pending *p = arg;
  uint8_t out[DNS_UDP_MAX];
  int w = answer (p->sv, p->msg, p->len, true, out, sizeof out, false);

  if (w > 0)
    (void) sendto (p->sv->net->udp_fd, out, (size_t) w, MSG_NOSIGNAL, (struct sockaddr *) &p->from,
                   p->from_len);
  atomic_fetch_sub (&p->sv->net->lookups, 1);
  free (p);
  return NULL;
}

static void
defer_udp (struct sv *sv, const uint8_t *msg, size_t len, const struct sockaddr_storage *from,
           socklen_t from_len)
{
  struct pending *p;

  if (atomic_fetch_add (&sv->net->lookups, 1) >= SV_NET_LOOKUPS_MAX)
    {
      atomic_fetch_sub (&sv->net->lookups, 1);
      return; /* dropped: the client asks again */
    }
  p = xzalloc (sizeof *p);
  p->sv = sv;
  p->from = *from;
  p->from_len = from_len;
  p->len = len;
  memcpy (p->msg, msg, len);
  if (!sv_thread_detached (pending_thread, p))
    {
      atomic_fetch_sub (&sv->net->lookups, 1);
      free (p);
    }
}

static void *
udp_thread (void *arg)
{
  struct sv *sv = arg;
  uint8_t msg[DNS_UDP_MAX], out[DNS_UDP_MAX];

  for (;;)
    {
      struct sockaddr_storage from;
      socklen_t from_len = sizeof from;
      ssize_t n
          = recvfrom (sv->net->udp_fd, msg, sizeof msg, 0, (struct sockaddr *) &from, &from_len);
      int w;

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          ar_debug ("supervisor: resolver: recvfrom: %s", strerror (errno));
          (void) poll (NULL, 0, 10);
          continue;
        }
      w = answer (sv, msg, (size_t) n, false, out, sizeof out, false);
      if (w == 0)
        defer_udp (sv, msg, (size_t) n, &from, from_len);
      else if (w > 0)
        (void) sendto (sv->net->udp_fd, out, (size_t) w, MSG_NOSIGNAL, (struct sockaddr *) &from,
                       from_len);
    }
  return NULL;
}

/* Read exactly len bytes within the idle time.  */
static bool
read_full (int fd, uint8_t *buf, size_t len)
{
  size_t have = 0;

  while (have < len)
    {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      ssize_t n;
      if (poll (&p, 1, TCP_IDLE_MS) <= 0)
        return false;
      n = read (fd, buf + have, len - have);
      if (n <= 0)
        return false;
      have += (size_t) n;
    }
  return true;
}

struct tcp_conn
{
  struct sv *sv;
  int fd;
};

static void *
tcp_conn_thread (void *arg)
{
  struct tcp_conn *c = arg;
  uint8_t *msg = xmalloc (DNS_MSG_MAX), *out = xmalloc (DNS_MSG_MAX + 2);
  uint8_t lenb[2];

  while (read_full (c->fd, lenb, 2))
    {
      size_t len = (size_t) lenb[0] << 8 | lenb[1];
      int w;
      if (len < DNS_HEADER_LEN || !read_full (c->fd, msg, len))
        break;
      w = answer (c->sv, msg, len, true, out + 2, DNS_MSG_MAX, true);
      if (w < 0)
        break;
      dns_msg_tcp_prefix (out, (size_t) w);
      if (send (c->fd, out, (size_t) w + 2, MSG_NOSIGNAL) != w + 2)
        break;
    }
  free (msg);
  free (out);
  close (c->fd);
  atomic_fetch_sub (&c->sv->net->tcp_conns, 1);
  free (c);
  return NULL;
}

static void *
tcp_thread (void *arg)
{
  struct sv *sv = arg;

  for (;;)
    {
      int fd = accept4 (sv->net->tcp_fd, NULL, NULL, SOCK_CLOEXEC);
      struct tcp_conn *c;

      if (fd < 0)
        {
          if (errno != EINTR)
            (void) poll (NULL, 0, 10);
          continue;
        }
      if (atomic_fetch_add (&sv->net->tcp_conns, 1) >= SV_NET_TCP_MAX)
        {
          atomic_fetch_sub (&sv->net->tcp_conns, 1);
          close (fd);
          continue;
        }
      c = xzalloc (sizeof *c);
      c->sv = sv;
      c->fd = fd;
      if (!sv_thread_detached (tcp_conn_thread, c))
        {
          atomic_fetch_sub (&sv->net->tcp_conns, 1);
          close (fd);
          free (c);
        }
    }
  return NULL;
}

int
sv_resolver_start (struct sv *sv, ar_error_t *err)
{
  sigset_t all, old;
  bool ok;

  /* Like the serving threads, they take no signal (the main thread's signalfd has them).  */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  ok = sv_thread_detached (udp_thread, sv) && sv_thread_detached (tcp_thread, sv);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (!ok)
    return ar_make_error (err, EAGAIN, "supervisor: start the resolver's threads");
  return 0;
}
