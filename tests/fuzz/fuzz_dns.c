/* libFuzzer target: any bytes as a workload's DNS query (alone, and as a stream of TCP-framed
   ones) and as an upstream's response to a query for a.example.com (A and AAAA, its id taken
   from the input), through dns/dns_msg.c.  Besides crashes, leaks, hangs and sanitizer
   reports, it aborts when an invariant fails: every query that parses gets an answer within
   its UDP size that parses back as the answer to it; a query that does not parse gets its
   FORMERR/NOTIMP when it asks for one; a response that parses stays within the result's bounds
   and, rebuilt as an answer, parses back to the same chain, addresses and TTLs.  Built and run
   by `make fuzz` (tests/fuzz/run.sh).  */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns/dns_msg.h"
#include "utils.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define EXPECT(cond) \
  do                 \
    {                \
      if (!(cond))   \
        abort ();    \
    }                \
  while (0)

static uint8_t out[DNS_MSG_MAX];

static void
check_name (const struct dns_name *n)
{
  size_t pos = 0;

  EXPECT (n->len >= 1);
  while (n->wire[pos] != 0)
    {
      EXPECT (n->wire[pos] < 64);
      pos += 1 + (size_t) n->wire[pos];
      EXPECT (pos < n->len);
    }
  EXPECT (pos + 1 == n->len);
}

static void
check_result (const struct dns_result *r)
{
  EXPECT (r->n_chain >= 1 && r->n_chain <= DNS_CHAIN_MAX + 1);
  EXPECT (r->n_addrs <= DNS_ADDRS_MAX);
  for (size_t i = 0; i < r->n_chain; i++)
    check_name (&r->chain[i]);
  for (size_t i = 0; i < r->n_addrs; i++)
    {
      EXPECT (r->addrs[i].family == AF_INET || r->addrs[i].family == AF_INET6);
      EXPECT (r->ttl <= r->addrs[i].ttl);
    }
  for (size_t i = 0; r->n_addrs && i + 1 < r->n_chain; i++)
    EXPECT (r->ttl <= r->chain_ttl[i]);
}

/* What we would answer to a query that parsed: it fits, and reads back as its answer.  */
static void
answer_query (const struct dns_query *q)
{
  struct dns_result r = { .rcode = DNS_NOERROR, .n_chain = 1, .n_addrs = 2 }, back;
  ar_error_t err = NULL;
  int n;

  r.chain[0] = q->qname;
  r.addrs[0] = (struct dns_addr){ .family = AF_INET, .addr = { 192, 0, 2, 1 }, .ttl = 60 };
  r.addrs[1] = (struct dns_addr){ .family = AF_INET6, .addr = { 0x20, 1, 0xd, 0xb8 }, .ttl = 60 };
  EXPECT (q->qname.len >= 1 && (!q->host_name || strlen (q->name) <= DNS_NAME_TEXT_MAX));
  n = dns_msg_build_answer (q, &r, 30, out, dns_msg_udp_max (q), &err);
  EXPECT (n > 0 && (size_t) n <= dns_msg_udp_max (q));
  if (q->qclass != DNS_CLASS_IN)
    return;
  EXPECT (dns_msg_parse_response (out, (size_t) n, q, &back, &err) == 0);
  check_result (&back);
  if (!back.truncated && (q->qtype == DNS_TYPE_A || q->qtype == DNS_TYPE_AAAA))
    EXPECT (back.n_addrs == 1 && back.addrs[0].ttl == 30);
}

static void
query (const uint8_t *data, size_t size)
{
  struct dns_query q;
  ar_error_t err = NULL;
  int reply;

  if (dns_msg_parse_query (data, size, &q, &reply, &err) == 0)
    {
      answer_query (&q);
      return;
    }
  EXPECT (err != NULL && err->msg != NULL);
  ar_error_release (&err);
  if (reply >= 0)
    EXPECT (dns_msg_build_error (q.id, q.flags, reply, out, DNS_UDP_MIN, &err) == DNS_HEADER_LEN);
}

static void
same_result (const struct dns_result *a, const struct dns_result *b)
{
  EXPECT (a->n_chain == b->n_chain && a->n_addrs == b->n_addrs && a->ttl == b->ttl);
  for (size_t i = 0; i < a->n_chain; i++)
    EXPECT (dns_name_equal (&a->chain[i], &b->chain[i]));
  for (size_t i = 0; i + 1 < a->n_chain; i++)
    EXPECT (a->chain_ttl[i] == b->chain_ttl[i]);
  for (size_t i = 0; i < a->n_addrs; i++)
    EXPECT (memcmp (&a->addrs[i], &b->addrs[i], sizeof a->addrs[i]) == 0);
}

static void
response (const uint8_t *data, size_t size, uint16_t qtype)
{
  uint8_t qbuf[512];
  struct dns_query sent;
  struct dns_result r, back;
  ar_error_t err = NULL;
  uint16_t id = size >= 2 ? (uint16_t) (data[0] << 8 | data[1]) : 0;
  int n;

  EXPECT (dns_msg_build_query (id, "a.example.com", qtype, qbuf, sizeof qbuf, &sent, &err) > 0);
  if (dns_msg_parse_response (data, size, &sent, &r, &err) < 0)
    {
      ar_error_release (&err);
      return;
    }
  check_result (&r);
  if (r.truncated || r.rcode != DNS_NOERROR)
    return;
  n = dns_msg_build_answer (&sent, &r, UINT32_MAX, out, sizeof out, &err);
  EXPECT (n > 0);
  EXPECT (dns_msg_parse_response (out, (size_t) n, &sent, &back, &err) == 0);
  same_result (&r, &back);
}

static void
tcp_stream (const uint8_t *data, size_t size)
{
  const uint8_t *msg;
  size_t len, used;

  while (dns_msg_tcp_unframe (data, size, &msg, &len, &used) == 1)
    {
      EXPECT (used == len + 2 && used <= size);
      query (msg, len);
      data += used;
      size -= used;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  query (data, size);
  response (data, size, DNS_TYPE_A);
  response (data, size, DNS_TYPE_AAAA);
  tcp_stream (data, size);
  return 0;
}
