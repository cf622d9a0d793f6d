/* dns/dns_upstream.c against a tiny DNS server of the test's own on 127.0.0.1 (UDP and TCP on
   one port, a thread): answers, TC then TCP, a forged response before the real one, a dropped
   query retried, SERVFAIL moving on to the next server, NXDOMAIN, a silent server timing out,
   a CNAME chain left for the client to follow; and resolv.conf parsing.  The server reads
   queries and writes answers with dns_msg.c, tested on its own in test_dns_msg.  No network
   but loopback, no root.  */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dns/dns_upstream.h"
#include "tap.h"
#include "utils.h"

struct srv
{
  int udp, tcp, stop;
  struct sockaddr_in addr;
  pthread_t thread;
  atomic_int udp_seen, tcp_seen;
  /* Set by the test between queries.  */
  int drop_udp;       /* the first N UDP queries get no answer */
  bool tc_udp;        /* UDP answers are TC, empty */
  bool forge_first;   /* each UDP answer comes after one with another id and address */
  atomic_int rcode;   /* answer with it, no records, when not NOERROR */
  atomic_bool silent; /* never answer */
};

static void
set_addr (struct dns_addr *a, const char *text, uint32_t ttl)
{
  memset (a, 0, sizeof *a);
  a->family = strchr (text, ':') ? AF_INET6 : AF_INET;
  inet_pton (a->family, text, a->addr);
  a->ttl = ttl;
}

/* The zone: a.test (two addresses), many.test (40), alias.test → real.test given without its
   address, real.test, and NXDOMAIN for the rest.  */
static void
zone (struct srv *s, const struct dns_query *q, bool forged, struct dns_result *r)
{
  memset (r, 0, sizeof *r);
  r->n_chain = 1;
  r->chain[0] = q->qname;
  r->rcode = s->rcode;
  if (s->rcode != DNS_NOERROR)
    return;
  if (strcmp (q->name, "a.test") == 0)
    {
      set_addr (&r->addrs[0], forged ? "192.0.2.66" : "192.0.2.1", 60);
      set_addr (&r->addrs[1], "192.0.2.2", 30);
      r->n_addrs = 2;
    }
  else if (strcmp (q->name, "many.test") == 0)
    for (int i = 0; i < DNS_ADDRS_MAX; i++)
      {
        char text[32];
        snprintf (text, sizeof text, "198.51.100.%d", i + 1);
        set_addr (&r->addrs[r->n_addrs++], text, 300);
      }
  else if (strcmp (q->name, "alias.test") == 0)
    {
      dns_name_from_text ("real.test", &r->chain[1]);
      r->chain_ttl[0] = 20;
      r->n_chain = 2;
    }
  else if (strcmp (q->name, "real.test") == 0)
    {
      set_addr (&r->addrs[0], "203.0.113.9", 100);
      r->n_addrs = 1;
    }
  else
    r->rcode = DNS_NXDOMAIN;
}

/* The answer to one query into buf: its length, 0 for none.  */
static size_t
answer (struct srv *s, const uint8_t *msg, size_t len, bool tcp, bool forged, uint8_t *buf,
        size_t max)
{
  struct dns_query q;
  struct dns_result r;
  ar_error_t err = NULL;
  int reply, n;

  if (dns_msg_parse_query (msg, len, &q, &reply, &err) < 0)
    {
      ar_error_release (&err);
      return 0;
    }
  zone (s, &q, forged, &r);
  if (forged)
    q.id ^= 0x5555;
  if (s->tc_udp && !tcp)
    r.n_addrs = 0;
  n = dns_msg_build_answer (&q, &r, UINT32_MAX, buf, tcp ? max : dns_msg_udp_max (&q), &err);
  if (n < 0)
    {
      ar_error_release (&err);
      return 0;
    }
  if (s->tc_udp && !tcp)
    buf[2] |= 0x02;
  return (size_t) n;
}

static void
serve_udp (struct srv *s)
{
  uint8_t in[DNS_UDP_MAX], out[DNS_UDP_MAX];
  struct sockaddr_storage from;
  socklen_t fl = sizeof from;
  ssize_t n = recvfrom (s->udp, in, sizeof in, 0, (struct sockaddr *) &from, &fl);
  size_t len;

  if (n <= 0 || atomic_fetch_add (&s->udp_seen, 1) < s->drop_udp || s->silent)
    return;
  if (s->forge_first && (len = answer (s, in, (size_t) n, false, true, out, sizeof out)) > 0)
    (void) sendto (s->udp, out, len, 0, (struct sockaddr *) &from, fl);
  len = answer (s, in, (size_t) n, false, false, out, sizeof out);
  if (len > 0)
    (void) sendto (s->udp, out, len, 0, (struct sockaddr *) &from, fl);
}

static void
serve_tcp (struct srv *s)
{
  uint8_t in[2 + 512];
  uint8_t *out = xmalloc (2 + DNS_MSG_MAX);
  size_t have = 0, len, used, n_out;
  const uint8_t *msg;
  int c = accept4 (s->tcp, NULL, NULL, SOCK_CLOEXEC);

  atomic_fetch_add (&s->tcp_seen, 1);
  while (c >= 0 && have < sizeof in)
    {
      ssize_t n = recv (c, in + have, sizeof in - have, 0);
      if (n <= 0)
        break;
      have += (size_t) n;
      if (dns_msg_tcp_unframe (in, have, &msg, &len, &used) != 0)
        break;
    }
  if (c >= 0 && dns_msg_tcp_unframe (in, have, &msg, &len, &used) == 1
      && (n_out = answer (s, msg, len, true, false, out + 2, DNS_MSG_MAX)) > 0)
    {
      dns_msg_tcp_prefix (out, n_out);
      (void) send (c, out, n_out + 2, MSG_NOSIGNAL);
    }
  if (c >= 0)
    close (c);
  free (out);
}

static void *
serve (void *arg)
{
  struct srv *s = arg;

  for (;;)
    {
      struct pollfd p[3] = { { s->udp, POLLIN, 0 }, { s->tcp, POLLIN, 0 }, { s->stop, POLLIN, 0 } };
      if (poll (p, 3, -1) < 0)
        continue;
      if (p[2].revents)
        return NULL;
      if (p[0].revents)
        serve_udp (s);
      if (p[1].revents)
        serve_tcp (s);
    }
}

/* UDP and TCP on one free port of 127.0.0.1.  */
static int
srv_bind (struct srv *s)
{
  socklen_t l = sizeof s->addr;

  for (int tries = 0; tries < 20; tries++)
    {
      memset (&s->addr, 0, sizeof s->addr);
      s->addr.sin_family = AF_INET;
      s->addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      s->udp = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      s->tcp = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (s->udp < 0 || s->tcp < 0 || bind (s->udp, (struct sockaddr *) &s->addr, l) < 0
          || getsockname (s->udp, (struct sockaddr *) &s->addr, &l) < 0)
        return -1;
      if (bind (s->tcp, (struct sockaddr *) &s->addr, l) == 0 && listen (s->tcp, 8) == 0)
        return 0;
      close (s->udp);
      close (s->tcp);
    }
  return -1;
}

static struct srv *
srv_start (void)
{
  struct srv *s = xzalloc (sizeof *s);

  if (srv_bind (s) < 0)
    abort ();
  s->stop = eventfd (0, EFD_CLOEXEC);
  if (s->stop < 0 || pthread_create (&s->thread, NULL, serve, s) != 0)
    abort ();
  return s;
}

static void
srv_stop (struct srv *s)
{
  uint64_t one = 1;

  if (write (s->stop, &one, sizeof one) != sizeof one)
    abort ();
  pthread_join (s->thread, NULL);
  close (s->udp);
  close (s->tcp);
  close (s->stop);
  free (s);
}

static void
upstream_of (struct dns_upstream *u, struct srv *const *servers, size_t n, unsigned timeout_ms)
{
  ar_error_t err = NULL;

  if (dns_upstream_init_server (u, (struct sockaddr *) &servers[0]->addr, sizeof servers[0]->addr,
                                &err)
      < 0)
    abort ();
  for (size_t i = 1; i < n; i++)
    {
      memcpy (&u->servers[i], &servers[i]->addr, sizeof servers[i]->addr);
      u->lens[i] = sizeof servers[i]->addr;
    }
  u->n = n;
  u->timeout_ms = timeout_ms;
}

static int
resolve (const struct dns_upstream *u, const char *name, uint16_t qtype, struct dns_result *r)
{
  ar_error_t err = NULL;

  if (dns_upstream_resolve (u, name, qtype, r, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static int
test_udp_answer (void)
{
  struct srv *s = srv_start ();
  struct dns_upstream u;
  struct dns_result r;

  upstream_of (&u, &s, 1, 2000);
  CHECK (resolve (&u, "A.Test.", DNS_TYPE_A, &r) == 0);
  CHECK (r.rcode == DNS_NOERROR && r.n_addrs == 2 && r.ttl == 30);
  CHECK (r.addrs[0].addr[3] == 1 && r.addrs[1].addr[3] == 2);
  CHECK (s->udp_seen == 1 && s->tcp_seen == 0);
  srv_stop (s);
  return 0;
}

static int
test_truncated_then_tcp (void)
{
  struct srv *s = srv_start ();
  struct dns_upstream u;
  struct dns_result r;

  s->tc_udp = true;
  upstream_of (&u, &s, 1, 2000);
  CHECK (resolve (&u, "many.test", DNS_TYPE_A, &r) == 0);
  CHECK (!r.truncated && r.n_addrs == DNS_ADDRS_MAX && r.ttl == 300);
  CHECK (s->udp_seen == 1 && s->tcp_seen == 1);
  srv_stop (s);
  return 0;
}

/* A response with another id, sent first from the server's own address and port, is not
   taken for the answer.  */
static int
test_forged_first (void)
{
  struct srv *s = srv_start ();
  struct dns_upstream u;
  struct dns_result r;

  s->forge_first = true;
  upstream_of (&u, &s, 1, 2000);
  CHECK (resolve (&u, "a.test", DNS_TYPE_A, &r) == 0);
  CHECK (r.n_addrs == 2 && r.addrs[0].addr[3] == 1 && r.addrs[1].addr[3] == 2);
  CHECK (s->udp_seen == 1);
  srv_stop (s);
  return 0;
}

static int64_t
ms_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
test_dropped_then_retried (void)
{
  struct srv *s = srv_start ();
  struct dns_upstream u;
  struct dns_result r;
  int64_t t0;

  s->drop_udp = 1;
  upstream_of (&u, &s, 1, 200);
  t0 = ms_now ();
  CHECK (resolve (&u, "a.test", DNS_TYPE_A, &r) == 0 && r.n_addrs == 2);
  CHECK (s->udp_seen == 2 && ms_now () - t0 >= 200);
  srv_stop (s);
  return 0;
}

/* SERVFAIL: the next server; NXDOMAIN: the answer, from the first.  */
static int
test_servfail_next_server (void)
{
  struct srv *s[2] = { srv_start (), srv_start () };
  struct dns_upstream u;
  struct dns_result r;

  s[0]->rcode = DNS_SERVFAIL;
  upstream_of (&u, s, 2, 2000);
  CHECK (resolve (&u, "a.test", DNS_TYPE_A, &r) == 0 && r.n_addrs == 2);
  CHECK (s[0]->udp_seen == 1 && s[1]->udp_seen == 1);
  s[0]->rcode = DNS_NOERROR;
  CHECK (resolve (&u, "nothing.test", DNS_TYPE_A, &r) == 0);
  CHECK (r.rcode == DNS_NXDOMAIN && r.n_addrs == 0);
  CHECK (s[0]->udp_seen == 2 && s[1]->udp_seen == 1);
  srv_stop (s[0]);
  srv_stop (s[1]);
  return 0;
}

/* Nothing answers: every server, every attempt, then an error naming the name and the server,
   after about attempts × servers × timeout.  */
static int
test_silent_times_out (void)
{
  struct srv *s[2] = { srv_start (), srv_start () };
  struct dns_upstream u;
  struct dns_result r;
  ar_error_t err = NULL;
  char port[16];
  int64_t t0, took;

  s[0]->silent = s[1]->silent = true;
  s[1]->rcode = DNS_REFUSED;
  s[1]->silent = false;
  upstream_of (&u, s, 2, 100);
  u.attempts = 3;
  t0 = ms_now ();
  CHECK (dns_upstream_resolve (&u, "a.test", DNS_TYPE_A, &r, &err) < 0);
  took = ms_now () - t0;
  CHECK (took >= 300 && took < 2000);
  CHECK (s[0]->udp_seen == 3 && s[1]->udp_seen == 3);
  snprintf (port, sizeof port, ":%u", (unsigned) ntohs (s[1]->addr.sin_port));
  /* The last server tried is the one that refused.  */
  CHECK (strstr (err->msg, "resolve `a.test`") && strstr (err->msg, "127.0.0.1")
         && strstr (err->msg, port) && strstr (err->msg, "rcode 5"));
  ar_error_release (&err);
  s[1]->silent = true;
  CHECK (dns_upstream_resolve (&u, "a.test", DNS_TYPE_A, &r, &err) < 0);
  CHECK (err->status == ETIMEDOUT && strstr (err->msg, "no answer"));
  ar_error_release (&err);
  srv_stop (s[0]);
  srv_stop (s[1]);
  return 0;
}

/* A chain whose last name has no address in the answer: that name is asked for.  */
static int
test_follows_cname (void)
{
  struct srv *s = srv_start ();
  struct dns_upstream u;
  struct dns_result r;
  char text[DNS_NAME_TEXT_MAX + 1];

  upstream_of (&u, &s, 1, 2000);
  CHECK (resolve (&u, "alias.test", DNS_TYPE_A, &r) == 0);
  CHECK (r.n_chain == 2 && r.n_addrs == 1 && r.addrs[0].addr[3] == 9);
  CHECK (dns_name_text (&r.chain[0], text));
  CHECK_STR (text, "alias.test");
  CHECK (r.ttl == 20 && s->udp_seen == 2);
  srv_stop (s);
  return 0;
}

static int
test_resolv_conf (void)
{
  struct dns_upstream u;
  ar_error_t err = NULL;
  const struct sockaddr_in6 *in6;

  CHECK (dns_upstream_parse ("# comment\n; other\nsearch example.com\n"
                             "nameserver 192.0.2.53\r\n"
                             "nameserver fe80::1%lo\n"
                             "options ndots:2 timeout:1 attempts:3 rotate\n"
                             "nameserver 2001:db8::53\nnameserver 192.0.2.54\n",
                             "resolv.conf", &u, &err)
         == 0);
  CHECK (u.n == 3 && u.timeout_ms == 1000 && u.attempts == 3);
  CHECK (u.servers[0].ss_family == AF_INET);
  CHECK (ntohs (((struct sockaddr_in *) &u.servers[0])->sin_port) == 53);
  in6 = (const struct sockaddr_in6 *) &u.servers[1];
  CHECK (in6->sin6_family == AF_INET6 && in6->sin6_scope_id == 1 && ntohs (in6->sin6_port) == 53);
  CHECK (dns_upstream_parse ("options timeout:100 attempts:0\n", "r", &u, &err) == 0);
  CHECK (u.n == 1 && u.timeout_ms == DNS_UPSTREAM_TIMEOUT_MAX * 1000 && u.attempts == 1);
  CHECK (((struct sockaddr_in *) &u.servers[0])->sin_addr.s_addr == htonl (INADDR_LOOPBACK));
  CHECK (dns_upstream_parse ("options timeout:5000 attempts:99\n", "r", &u, &err) == 0);
  CHECK (u.timeout_ms == DNS_UPSTREAM_TIMEOUT_MAX * 1000
         && u.attempts == DNS_UPSTREAM_ATTEMPTS_MAX);
  CHECK (dns_upstream_parse ("", "r", &u, &err) == 0);
  CHECK (u.timeout_ms == DNS_UPSTREAM_TIMEOUT * 1000 && u.attempts == DNS_UPSTREAM_ATTEMPTS);
  CHECK (dns_upstream_parse ("nameserver dns.example\n", "/etc/resolv.conf", &u, &err) < 0);
  CHECK (strstr (err->msg, "/etc/resolv.conf: nameserver `dns.example`") != NULL);
  ar_error_release (&err);
  CHECK (dns_upstream_load ("/nonexistent/resolv.conf", &u, &err) < 0);
  ar_error_release (&err);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_udp_answer);
  RUN_TEST (test_truncated_then_tcp);
  RUN_TEST (test_forged_first);
  RUN_TEST (test_dropped_then_retried);
  RUN_TEST (test_servfail_next_server);
  RUN_TEST (test_silent_times_out);
  RUN_TEST (test_follows_cname);
  RUN_TEST (test_resolv_conf);
  TAP_END ();
}
