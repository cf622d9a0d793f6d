/* dns/dns_msg.c: queries parsed (and each malformed one refused, with the rcode to answer),
   answers built (CNAME chains, the type's addresses only, NODATA, NXDOMAIN, TC past the size,
   EDNS and BADVERS) and parsed back, upstream responses parsed (compression, chains, loops,
   caps, records of other names ignored, forged ones refused), TCP framing.  Messages are made
   byte by byte here, not by the code under test.  No root needed.  */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns/dns_msg.h"
#include "tap.h"
#include "utils.h"

/* A message being made.  */
struct m
{
  uint8_t b[8192];
  size_t n;
};

static void
u8 (struct m *m, unsigned v)
{
  m->b[m->n++] = (uint8_t) v;
}

static void
u16 (struct m *m, unsigned v)
{
  u8 (m, v >> 8);
  u8 (m, v);
}

static void
u32 (struct m *m, uint32_t v)
{
  u16 (m, v >> 16);
  u16 (m, v & 0xffff);
}

/* "a.b" as labels; "" is the root; a name ending in '>' ends with a pointer to `ptr`.  */
static void
name (struct m *m, const char *text, size_t ptr)
{
  while (*text && *text != '>')
    {
      size_t l = strcspn (text, ".>");
      u8 (m, (unsigned) l);
      memcpy (m->b + m->n, text, l);
      m->n += l;
      text += l;
      if (*text == '.')
        text++;
    }
  if (*text == '>')
    u16 (m, 0xc000 | (unsigned) ptr);
  else
    u8 (m, 0);
}

static void
header (struct m *m, unsigned id, unsigned flags, unsigned qd, unsigned an, unsigned ns,
        unsigned ar)
{
  m->n = 0;
  u16 (m, id);
  u16 (m, flags);
  u16 (m, qd);
  u16 (m, an);
  u16 (m, ns);
  u16 (m, ar);
}

static void
opt (struct m *m, unsigned size, unsigned version)
{
  u8 (m, 0);
  u16 (m, DNS_TYPE_OPT);
  u16 (m, size);
  u32 (m, version << 16);
  u16 (m, 0);
}

static void
query (struct m *m, const char *qname, unsigned qtype, bool edns)
{
  header (m, 0x1234, 0x0100, 1, 0, 0, edns);
  name (m, qname, 0);
  u16 (m, qtype);
  u16 (m, DNS_CLASS_IN);
  if (edns)
    opt (m, 4096, 0);
}

static int
parse_q (const struct m *m, struct dns_query *q)
{
  ar_error_t err = NULL;
  int reply;

  if (dns_msg_parse_query (m->b, m->n, q, &reply, &err) < 0)
    {
      printf ("# query: %s\n", err->msg);
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static int
test_query_basic (void)
{
  struct m m;
  struct dns_query q;

  query (&m, "WwW.ExAmple.com", DNS_TYPE_A, false);
  CHECK (parse_q (&m, &q) == 0);
  CHECK (q.id == 0x1234 && q.flags == 0x0100 && q.qtype == DNS_TYPE_A);
  CHECK (q.qclass == DNS_CLASS_IN && !q.edns && q.host_name);
  CHECK_STR (q.name, "www.example.com");
  /* The wire name keeps its case, for the answer to echo.  */
  CHECK (q.qname.len == 17 && memcmp (q.qname.wire, "\3WwW\7ExAmple\3com", 17) == 0);
  CHECK (dns_msg_udp_max (&q) == 512);
  query (&m, "_sip._tcp.example.com", DNS_TYPE_AAAA, true);
  CHECK (parse_q (&m, &q) == 0 && q.host_name && q.edns && q.udp_size == 4096);
  CHECK (dns_msg_udp_max (&q) == 4096);
  return 0;
}

static int
test_query_edns (void)
{
  static const unsigned sizes[][2]
      = { { 0, 512 }, { 100, 512 }, { 512, 512 }, { 1232, 1232 }, { 4096, 4096 }, { 65535, 4096 } };
  struct m m;
  struct dns_query q;

  for (size_t i = 0; i < ARRAY_SIZE (sizes); i++)
    {
      header (&m, 1, 0, 1, 0, 0, 1);
      name (&m, "a.com", 0);
      u16 (&m, DNS_TYPE_A);
      u16 (&m, DNS_CLASS_IN);
      opt (&m, sizes[i][0], 0);
      CHECK (parse_q (&m, &q) == 0 && q.edns && q.edns_version == 0);
      CHECK (dns_msg_udp_max (&q) == sizes[i][1]);
    }
  header (&m, 1, 0, 1, 0, 0, 1);
  name (&m, "a.com", 0);
  u16 (&m, DNS_TYPE_A);
  u16 (&m, DNS_CLASS_IN);
  opt (&m, 1232, 1);
  CHECK (parse_q (&m, &q) == 0 && q.edns_version == 1);
  /* Options are skipped whole.  */
  m.n -= 2;
  u16 (&m, 6);
  u16 (&m, 10); /* EDNS cookie, 2 bytes of it */
  u16 (&m, 2);
  u16 (&m, 0xabcd);
  CHECK (parse_q (&m, &q) == 0);
  return 0;
}

/* Names that are not host names parse, and say so (the resolver refuses them).  */
static int
test_query_odd_names (void)
{
  struct m m;
  struct dns_query q;

  header (&m, 1, 0, 1, 0, 0, 0);
  name (&m, "", 0);
  u16 (&m, DNS_TYPE_A);
  u16 (&m, DNS_CLASS_IN);
  CHECK (parse_q (&m, &q) == 0 && !q.host_name && q.name[0] == '\0');
  header (&m, 1, 0, 1, 0, 0, 0);
  u8 (&m, 3);
  u8 (&m, 'a');
  u8 (&m, '.');
  u8 (&m, 'b'); /* a label holding a dot: never "a.b" */
  name (&m, "com", 0);
  u16 (&m, DNS_TYPE_A);
  u16 (&m, DNS_CLASS_IN);
  CHECK (parse_q (&m, &q) == 0 && !q.host_name && q.name[0] == '\0');
  header (&m, 1, 0, 1, 0, 0, 0);
  name (&m, "a\001b.com", 0);
  u16 (&m, DNS_TYPE_A);
  u16 (&m, DNS_CLASS_IN);
  CHECK (parse_q (&m, &q) == 0 && !q.host_name);
  return 0;
}

/* Each malformed query: refused, with the rcode to answer (-1: none).  */
static int
refused_query (const struct m *m, int expect_reply, const char *says)
{
  struct dns_query q;
  ar_error_t err = NULL;
  int reply = 99;

  if (dns_msg_parse_query (m->b, m->n, &q, &reply, &err) == 0)
    TAP_FAIL ("parsed: %s", says);
  if (reply != expect_reply || strstr (err->msg, says) == NULL)
    TAP_FAIL ("reply %d, `%s`; expected %d, `%s`", reply, err->msg, expect_reply, says);
  ar_error_release (&err);
  return 0;
}

static void
question (struct m *m, unsigned qd, unsigned an, unsigned ns, unsigned ar)
{
  header (m, 7, 0x0100, qd, an, ns, ar);
  name (m, "a.com", 0);
  u16 (m, DNS_TYPE_A);
  u16 (m, DNS_CLASS_IN);
}

static int
test_query_refused (void)
{
  struct m m;

  question (&m, 1, 0, 0, 0);
  m.n = 11;
  CHECK (refused_query (&m, -1, "shorter than a header") == 0);
  question (&m, 1, 0, 0, 0);
  m.b[2] |= 0x80;
  CHECK (refused_query (&m, -1, "a response") == 0);
  question (&m, 1, 0, 0, 0);
  m.b[2] |= 2 << 3; /* opcode STATUS */
  CHECK (refused_query (&m, DNS_NOTIMP, "opcode 2") == 0);
  question (&m, 0, 0, 0, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "not one question") == 0);
  question (&m, 2, 0, 0, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "not one question") == 0);
  question (&m, 1, 1, 0, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "not one question") == 0);
  question (&m, 1, 0, 1, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "not one question") == 0);
  question (&m, 1, 0, 0, 2);
  CHECK (refused_query (&m, DNS_FORMERR, "not one question") == 0);
  question (&m, 1, 0, 0, 1);
  CHECK (refused_query (&m, DNS_FORMERR, "a name runs past the end") == 0);
  question (&m, 1, 0, 0, 1);
  name (&m, "", 0);
  u16 (&m, DNS_TYPE_A); /* not OPT */
  u16 (&m, 1);
  u32 (&m, 0);
  u16 (&m, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "not OPT") == 0);
  question (&m, 1, 0, 0, 1);
  opt (&m, 1232, 0);
  m.b[m.n - 1] = 4; /* rdlen 4, none there */
  CHECK (refused_query (&m, DNS_FORMERR, "OPT record runs past") == 0);
  question (&m, 1, 0, 0, 0);
  u8 (&m, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "bytes after the last record") == 0);
  question (&m, 1, 0, 0, 0);
  m.n -= 1;
  CHECK (refused_query (&m, DNS_FORMERR, "the question runs past the end") == 0);
  return 0;
}

static int
test_query_bad_names (void)
{
  struct m m;

  header (&m, 7, 0, 1, 0, 0, 0);
  u8 (&m, 10);
  u8 (&m, 'a');
  CHECK (refused_query (&m, DNS_FORMERR, "a label runs past the end") == 0);
  header (&m, 7, 0, 1, 0, 0, 0);
  u8 (&m, 0x41);
  u8 (&m, 0);
  CHECK (refused_query (&m, DNS_FORMERR, "extended label type") == 0);
  /* A pointer to itself, and one forward.  */
  header (&m, 7, 0, 1, 0, 0, 0);
  u16 (&m, 0xc000 | 12);
  u32 (&m, 0x00010001);
  CHECK (refused_query (&m, DNS_FORMERR, "does not point back") == 0);
  header (&m, 7, 0, 1, 0, 0, 0);
  u16 (&m, 0xc000 | 14);
  u8 (&m, 0);
  u32 (&m, 0x00010001);
  CHECK (refused_query (&m, DNS_FORMERR, "does not point back") == 0);
  /* A loop: a label, then a pointer back to it: the second visit is refused.  */
  header (&m, 7, 0, 1, 0, 0, 0);
  u8 (&m, 1);
  u8 (&m, 'a');
  u16 (&m, 0xc000 | 12);
  u32 (&m, 0x00010001);
  CHECK (refused_query (&m, DNS_FORMERR, "does not point back") == 0);
  header (&m, 7, 0, 1, 0, 0, 0);
  u8 (&m, 0xc0);
  CHECK (refused_query (&m, DNS_FORMERR, "a name runs past the end") == 0);
  /* 5 labels of 63: 320 bytes.  */
  header (&m, 7, 0, 1, 0, 0, 0);
  for (int i = 0; i < 5; i++)
    {
      u8 (&m, 63);
      memset (m.b + m.n, 'a', 63);
      m.n += 63;
    }
  u8 (&m, 0);
  u32 (&m, 0x00010001);
  CHECK (refused_query (&m, DNS_FORMERR, "longer than 255") == 0);
  return 0;
}

/* The longest name there is, 255 bytes, parses.  */
static int
test_query_longest_name (void)
{
  struct m m;
  struct dns_query q;

  header (&m, 7, 0, 1, 0, 0, 0);
  for (int i = 0; i < 3; i++)
    {
      u8 (&m, 63);
      memset (m.b + m.n, 'a', 63);
      m.n += 63;
    }
  u8 (&m, 61);
  memset (m.b + m.n, 'b', 61);
  m.n += 61;
  u8 (&m, 0);
  u32 (&m, 0x00010001);
  CHECK (parse_q (&m, &q) == 0 && q.qname.len == 255 && q.host_name && strlen (q.name) == 253);
  return 0;
}

static void
set_addr (struct dns_addr *a, int family, const char *text, uint32_t ttl)
{
  memset (a, 0, sizeof *a);
  a->family = family;
  if (inet_pton (family, text, a->addr) != 1)
    abort ();
  a->ttl = ttl;
}

/* www.example.com → cdn.example.net → 2 A and 1 AAAA.  */
static void
cdn_result (struct dns_result *r, const struct dns_query *q)
{
  memset (r, 0, sizeof *r);
  r->rcode = DNS_NOERROR;
  r->n_chain = 2;
  r->chain[0] = q->qname;
  dns_name_from_text ("Cdn.Example.net", &r->chain[1]);
  r->chain_ttl[0] = 3600;
  set_addr (&r->addrs[0], AF_INET, "192.0.2.1", 60);
  set_addr (&r->addrs[1], AF_INET6, "2001:db8::1", 60);
  set_addr (&r->addrs[2], AF_INET, "192.0.2.2", 30);
  r->n_addrs = 3;
  r->ttl = 30;
}

static int
build (const struct dns_query *q, const struct dns_result *r, uint32_t ttl_max, size_t max,
       struct m *out)
{
  ar_error_t err = NULL;
  int n = dns_msg_build_answer (q, r, ttl_max, out->b, max, &err);

  if (n < 0)
    {
      printf ("# build: %s\n", err->msg);
      ar_error_release (&err);
      return -1;
    }
  out->n = (size_t) n;
  return 0;
}

static int
parse_r (const struct m *m, const struct dns_query *sent, struct dns_result *r)
{
  ar_error_t err = NULL;

  if (dns_msg_parse_response (m->b, m->n, sent, r, &err) < 0)
    {
      printf ("# response: %s\n", err->msg);
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static unsigned
get16 (const struct m *m, size_t off)
{
  return (unsigned) m->b[off] << 8 | m->b[off + 1];
}

static int
test_answer_round_trip (void)
{
  struct m m, a;
  struct dns_query q;
  struct dns_result r, back;
  char text[DNS_NAME_TEXT_MAX + 1];

  query (&m, "WWW.example.COM", DNS_TYPE_A, false);
  CHECK (parse_q (&m, &q) == 0);
  cdn_result (&r, &q);
  CHECK (build (&q, &r, 45, dns_msg_udp_max (&q), &a) == 0);
  CHECK (get16 (&a, 0) == 0x1234);
  CHECK (get16 (&a, 2) == 0x8180); /* QR, RD echoed, RA, NOERROR */
  CHECK (get16 (&a, 4) == 1 && get16 (&a, 6) == 3 && get16 (&a, 8) == 0 && get16 (&a, 10) == 0);
  /* The question as it was asked, case and all.  */
  CHECK (memcmp (a.b + 12, m.b + 12, q.qname.len + 4) == 0);
  CHECK (parse_r (&a, &q, &back) == 0);
  CHECK (back.rcode == DNS_NOERROR && back.n_chain == 2 && back.n_addrs == 2);
  CHECK (dns_name_text (&back.chain[1], text));
  CHECK_STR (text, "cdn.example.net");
  CHECK (back.chain_ttl[0] == 45); /* capped */
  CHECK (back.addrs[0].family == AF_INET && memcmp (back.addrs[0].addr, r.addrs[0].addr, 4) == 0);
  CHECK (back.addrs[1].family == AF_INET && memcmp (back.addrs[1].addr, r.addrs[2].addr, 4) == 0);
  CHECK (back.addrs[0].ttl == 45 && back.addrs[1].ttl == 30 && back.ttl == 30);
  /* AAAA: the v6 address only.  */
  query (&m, "www.example.com", DNS_TYPE_AAAA, true);
  CHECK (parse_q (&m, &q) == 0);
  CHECK (build (&q, &r, 3600, dns_msg_udp_max (&q), &a) == 0);
  CHECK (get16 (&a, 6) == 2 && get16 (&a, 10) == 1); /* CNAME + AAAA, and OPT */
  CHECK (parse_r (&a, &q, &back) == 0 && back.n_addrs == 1 && back.addrs[0].family == AF_INET6);
  CHECK (back.ttl == 60 && back.addrs[0].ttl == 60);
  return 0;
}

static int
test_answer_rcodes (void)
{
  static const int rcodes[] = { DNS_NXDOMAIN, DNS_REFUSED, DNS_SERVFAIL, DNS_NOERROR };
  struct m m, a;
  struct dns_query q;
  struct dns_result r;

  query (&m, "blocked.example", DNS_TYPE_A, false);
  CHECK (parse_q (&m, &q) == 0);
  for (size_t i = 0; i < ARRAY_SIZE (rcodes); i++)
    {
      memset (&r, 0, sizeof r);
      r.rcode = rcodes[i];
      CHECK (build (&q, &r, 60, 512, &a) == 0);
      CHECK ((get16 (&a, 2) & 0xf) == (unsigned) rcodes[i]);
      /* No records at all: NXDOMAIN, or NODATA without an SOA (so nothing caches it).  */
      CHECK (get16 (&a, 6) == 0 && get16 (&a, 8) == 0 && get16 (&a, 10) == 0);
      CHECK (a.n == (size_t) (12 + q.qname.len + 4));
    }
  /* NODATA for a type we do not serve, even with addresses at hand.  */
  query (&m, "www.example.com", DNS_TYPE_HTTPS, false);
  CHECK (parse_q (&m, &q) == 0);
  cdn_result (&r, &q);
  r.n_chain = 1;
  CHECK (build (&q, &r, 60, 512, &a) == 0 && get16 (&a, 6) == 0 && (get16 (&a, 2) & 0xf) == 0);
  return 0;
}

static int
test_answer_badvers (void)
{
  struct m m, a;
  struct dns_query q;
  struct dns_result r = { .rcode = DNS_BADVERS };

  query (&m, "a.com", DNS_TYPE_A, true);
  m.b[m.n - 5] = 1; /* version 1 */
  CHECK (parse_q (&m, &q) == 0 && q.edns_version == 1);
  CHECK (build (&q, &r, 60, 512, &a) == 0);
  /* rcode 16: 0 in the header, 1 in the OPT's extended rcode.  */
  CHECK ((get16 (&a, 2) & 0xf) == 0 && get16 (&a, 10) == 1);
  CHECK (a.b[a.n - 11] == 0 && get16 (&a, a.n - 10) == DNS_TYPE_OPT);
  CHECK (get16 (&a, a.n - 8) == DNS_EDNS_SIZE && a.b[a.n - 6] == 1);
  return 0;
}

/* An answer past the size: TC and no records, within the size; whole over TCP.  */
static int
test_answer_truncated (void)
{
  struct m m, a;
  struct dns_query q;
  struct dns_result r;
  char text[64];

  query (&m, "www.example.com", DNS_TYPE_AAAA, false);
  CHECK (parse_q (&m, &q) == 0);
  memset (&r, 0, sizeof r);
  r.n_chain = 1;
  r.chain[0] = q.qname;
  for (int i = 0; i < DNS_ADDRS_MAX; i++)
    {
      snprintf (text, sizeof text, "2001:db8::%x", i + 1);
      set_addr (&r.addrs[i], AF_INET6, text, 60);
    }
  r.n_addrs = DNS_ADDRS_MAX; /* 32 × 28 bytes: 896 */
  CHECK (build (&q, &r, 60, dns_msg_udp_max (&q), &a) == 0);
  CHECK (a.n <= 512 && (get16 (&a, 2) & 0x0200) && get16 (&a, 6) == 0);
  CHECK (a.n == (size_t) (12 + q.qname.len + 4));
  query (&m, "www.example.com", DNS_TYPE_AAAA, true);
  CHECK (parse_q (&m, &q) == 0);
  m.b[m.n - 8] = 0x02; /* offers 512, then 768 bytes */
  m.b[m.n - 7] = 0x00;
  CHECK (parse_q (&m, &q) == 0 && dns_msg_udp_max (&q) == 512);
  m.b[m.n - 8] = 0x03;
  CHECK (parse_q (&m, &q) == 0 && dns_msg_udp_max (&q) == 768);
  CHECK (build (&q, &r, 60, dns_msg_udp_max (&q), &a) == 0);
  CHECK ((get16 (&a, 2) & 0x0200) && get16 (&a, 6) == 0 && get16 (&a, 10) == 1);
  CHECK (build (&q, &r, 60, DNS_MSG_MAX, &a) == 0);
  CHECK (!(get16 (&a, 2) & 0x0200) && get16 (&a, 6) == DNS_ADDRS_MAX && a.n > 900);
  return 0;
}

static int
test_answer_too_small (void)
{
  struct m m, a;
  struct dns_query q;
  struct dns_result r = { .rcode = DNS_NXDOMAIN };
  ar_error_t err = NULL;

  query (&m, "www.example.com", DNS_TYPE_A, false);
  CHECK (parse_q (&m, &q) == 0);
  CHECK (dns_msg_build_answer (&q, &r, 60, a.b, 20, &err) < 0 && err->status == EMSGSIZE);
  ar_error_release (&err);
  CHECK (dns_msg_build_error (q.id, q.flags, DNS_FORMERR, a.b, 12, &err) == 12);
  a.n = 12;
  CHECK (get16 (&a, 0) == 0x1234 && get16 (&a, 2) == 0x8181 && get16 (&a, 4) == 0);
  CHECK (dns_msg_build_error (q.id, q.flags, DNS_FORMERR, a.b, 11, &err) < 0);
  ar_error_release (&err);
  return 0;
}

/* What our client sends: one question, RD, an OPT record offering DNS_EDNS_SIZE.  */
static int
test_build_query (void)
{
  struct m m;
  struct dns_query sent, q;
  ar_error_t err = NULL;
  int n = dns_msg_build_query (0xbeef, "Pypi.org.", DNS_TYPE_AAAA, m.b, sizeof m.b, &sent, &err);

  CHECK (n > 0);
  m.n = (size_t) n;
  CHECK (sent.id == 0xbeef && sent.qtype == DNS_TYPE_AAAA && sent.edns && sent.host_name);
  CHECK (parse_q (&m, &q) == 0);
  CHECK (q.id == 0xbeef && (q.flags & 0x0100) && q.edns && q.udp_size == DNS_EDNS_SIZE);
  CHECK_STR (q.name, "pypi.org");
  CHECK (dns_name_equal (&q.qname, &sent.qname));
  CHECK (dns_msg_build_query (1, "a..b", DNS_TYPE_A, m.b, sizeof m.b, &sent, &err) < 0);
  ar_error_release (&err);
  CHECK (dns_msg_build_query (1, "a.com", DNS_TYPE_A, m.b, 20, &sent, &err) < 0);
  ar_error_release (&err);
  return 0;
}

/* A response as an upstream sends it: `an` answers follow.  */
static void
response (struct m *m, unsigned id, unsigned flags, unsigned an, const char *qname, unsigned qtype)
{
  header (m, id, 0x8180 | flags, 1, an, 0, 0);
  name (m, qname, 0);
  u16 (m, qtype);
  u16 (m, DNS_CLASS_IN);
}

static void
rr_a (struct m *m, const char *owner, size_t ptr, uint32_t ttl, const char *addr)
{
  uint8_t a[4];

  inet_pton (AF_INET, addr, a);
  name (m, owner, ptr);
  u16 (m, DNS_TYPE_A);
  u16 (m, DNS_CLASS_IN);
  u32 (m, ttl);
  u16 (m, 4);
  memcpy (m->b + m->n, a, 4);
  m->n += 4;
}

/* A CNAME whose target is written in full; its offset returned.  */
static size_t
rr_cname (struct m *m, const char *owner, size_t ptr, uint32_t ttl, const char *target)
{
  size_t at;
  size_t len = strlen (target) + 2;

  name (m, owner, ptr);
  u16 (m, DNS_TYPE_CNAME);
  u16 (m, DNS_CLASS_IN);
  u32 (m, ttl);
  u16 (m, (unsigned) len);
  at = m->n;
  name (m, target, 0);
  return at;
}

static int
sent_query (const char *qname, unsigned qtype, struct dns_query *sent)
{
  uint8_t buf[512];
  ar_error_t err = NULL;

  if (dns_msg_build_query (0x4242, qname, (uint16_t) qtype, buf, sizeof buf, sent, &err) < 0)
    {
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static int
test_response_chain (void)
{
  struct m m;
  struct dns_query sent;
  struct dns_result r;
  char text[DNS_NAME_TEXT_MAX + 1];
  size_t b, c;

  CHECK (sent_query ("a.example.com", DNS_TYPE_A, &sent) == 0);
  response (&m, 0x4242, 0, 7, "A.Example.com", DNS_TYPE_A);
  rr_a (&m, "x.other>", 12, 60, "203.0.113.66"); /* another name: ignored */
  b = rr_cname (&m, ">", 12, 300, "b.cdn.net");
  rr_a (&m, ">", 12, 60, "203.0.113.1");              /* the question's own, not the chain's end */
  c = rr_cname (&m, ">", b, 0x80000010, "c.cdn.net"); /* top bit: 0 */
  rr_a (&m, ">", c, 20, "192.0.2.10");
  rr_a (&m, "C.CDN.NET", 0, 40, "192.0.2.11");
  rr_a (&m, ">", c, 20, "192.0.2.10"); /* a duplicate */
  /* Authority and additional sections are never read: junk there changes nothing.  */
  u8 (&m, 0xc0);
  m.b[9] = 3;
  CHECK (parse_r (&m, &sent, &r) == 0);
  CHECK (r.rcode == DNS_NOERROR && !r.truncated && r.n_chain == 3);
  CHECK (dns_name_text (&r.chain[0], text));
  CHECK_STR (text, "a.example.com");
  CHECK (dns_name_text (&r.chain[2], text));
  CHECK_STR (text, "c.cdn.net");
  CHECK (r.chain_ttl[0] == 300 && r.chain_ttl[1] == 0);
  CHECK (r.n_addrs == 2 && r.addrs[0].addr[3] == 10 && r.addrs[1].addr[3] == 11);
  CHECK (r.addrs[0].ttl == 20 && r.addrs[1].ttl == 40 && r.ttl == 0);
  return 0;
}

static int
test_response_loops_and_caps (void)
{
  struct m m;
  struct dns_query sent;
  struct dns_result r;
  char owner[32], target[32];

  CHECK (sent_query ("a.com", DNS_TYPE_A, &sent) == 0);
  response (&m, 0x4242, 0, 3, "a.com", DNS_TYPE_A);
  rr_cname (&m, "a.com", 0, 60, "b.com");
  rr_cname (&m, "b.com", 0, 60, "a.com");
  rr_a (&m, "a.com", 0, 60, "192.0.2.1");
  CHECK (parse_r (&m, &sent, &r) == 0 && r.n_chain == 2 && r.n_addrs == 0 && r.ttl == 0);
  /* A chain of 20: 16 CNAMEs followed, and no address (the end is not reached).  */
  response (&m, 0x4242, 0, 21, "n0.com", DNS_TYPE_A);
  CHECK (sent_query ("n0.com", DNS_TYPE_A, &sent) == 0);
  for (int i = 0; i < 20; i++)
    {
      snprintf (owner, sizeof owner, "n%d.com", i);
      snprintf (target, sizeof target, "n%d.com", i + 1);
      rr_cname (&m, owner, 0, 60, target);
    }
  rr_a (&m, "n20.com", 0, 60, "192.0.2.1");
  CHECK (parse_r (&m, &sent, &r) == 0 && r.n_chain == DNS_CHAIN_MAX + 1 && r.n_addrs == 0);
  /* 40 addresses: 32 kept.  */
  CHECK (sent_query ("many.com", DNS_TYPE_A, &sent) == 0);
  response (&m, 0x4242, 0, 40, "many.com", DNS_TYPE_A);
  for (int i = 0; i < 40; i++)
    {
      snprintf (target, sizeof target, "192.0.2.%d", i);
      rr_a (&m, ">", 12, 60, target);
    }
  CHECK (parse_r (&m, &sent, &r) == 0 && r.n_addrs == DNS_ADDRS_MAX && r.dropped == 8);
  return 0;
}

static int
refused_response (const struct m *m, const struct dns_query *sent, const char *says)
{
  struct dns_result r;
  ar_error_t err = NULL;

  if (dns_msg_parse_response (m->b, m->n, sent, &r, &err) == 0)
    TAP_FAIL ("parsed: %s", says);
  if (strstr (err->msg, says) == NULL)
    TAP_FAIL ("`%s`, expected `%s`", err->msg, says);
  ar_error_release (&err);
  return 0;
}

static int
test_response_refused (void)
{
  struct m m;
  struct dns_query sent;

  CHECK (sent_query ("a.com", DNS_TYPE_A, &sent) == 0);
  response (&m, 0x4243, 0, 0, "a.com", DNS_TYPE_A);
  CHECK (refused_response (&m, &sent, "not the answer to our query") == 0);
  response (&m, 0x4242, 0, 0, "a.com", DNS_TYPE_A);
  m.b[2] &= 0x7f; /* a query */
  CHECK (refused_response (&m, &sent, "not the answer to our query") == 0);
  response (&m, 0x4242, 0, 0, "b.com", DNS_TYPE_A);
  CHECK (refused_response (&m, &sent, "answers another question") == 0);
  response (&m, 0x4242, 0, 0, "a.com", DNS_TYPE_AAAA);
  CHECK (refused_response (&m, &sent, "answers another question") == 0);
  response (&m, 0x4242, 0, 0, "a.com", DNS_TYPE_A);
  m.b[5] = 0;
  CHECK (refused_response (&m, &sent, "not one question") == 0);
  response (&m, 0x4242, 0, 1, "a.com", DNS_TYPE_A);
  rr_a (&m, ">", 12, 60, "192.0.2.1");
  m.b[m.n - 5] = 5; /* rdlen 5 */
  CHECK (refused_response (&m, &sent, "runs past the end") == 0);
  u8 (&m, 0);
  CHECK (refused_response (&m, &sent, "not 4 bytes") == 0);
  response (&m, 0x4242, 0, 1, "a.com", DNS_TYPE_A);
  rr_cname (&m, ">", 12, 60, "b.com");
  m.b[m.n - 8] += 1; /* rdlen one more than the name */
  u8 (&m, 0);
  CHECK (refused_response (&m, &sent, "does not fill") == 0);
  response (&m, 0x4242, 0, 2, "a.com", DNS_TYPE_A);
  rr_a (&m, ">", 12, 60, "192.0.2.1");
  CHECK (refused_response (&m, &sent, "runs past the end") == 0);
  return 0;
}

static int
test_response_tc_and_rcodes (void)
{
  struct m m;
  struct dns_query sent;
  struct dns_result r;

  CHECK (sent_query ("a.com", DNS_TYPE_A, &sent) == 0);
  response (&m, 0x4242, 0x0200, 1, "a.com", DNS_TYPE_A);
  u8 (&m, 0xff); /* the truncated rest is never read */
  CHECK (parse_r (&m, &sent, &r) == 0 && r.truncated && r.n_addrs == 0);
  response (&m, 0x4242, DNS_NXDOMAIN, 0, "a.com", DNS_TYPE_A);
  CHECK (parse_r (&m, &sent, &r) == 0 && r.rcode == DNS_NXDOMAIN && r.n_chain == 1);
  response (&m, 0x4242, DNS_SERVFAIL, 0, "a.com", DNS_TYPE_A);
  CHECK (parse_r (&m, &sent, &r) == 0 && r.rcode == DNS_SERVFAIL);
  return 0;
}

static int
test_tcp_frames (void)
{
  uint8_t buf[64];
  const uint8_t *msg;
  size_t len, used;

  memset (buf, 0, sizeof buf);
  dns_msg_tcp_prefix (buf, 20);
  dns_msg_tcp_prefix (buf + 22, 12);
  CHECK (dns_msg_tcp_unframe (buf, 1, &msg, &len, &used) == 0);
  CHECK (dns_msg_tcp_unframe (buf, 21, &msg, &len, &used) == 0);
  CHECK (dns_msg_tcp_unframe (buf, 40, &msg, &len, &used) == 1);
  CHECK (msg == buf + 2 && len == 20 && used == 22);
  CHECK (dns_msg_tcp_unframe (buf + used, 40 - used, &msg, &len, &used) == 1 && len == 12);
  dns_msg_tcp_prefix (buf, 11);
  CHECK (dns_msg_tcp_unframe (buf, 40, &msg, &len, &used) == -1);
  dns_msg_tcp_prefix (buf, 65535);
  CHECK (buf[0] == 0xff && buf[1] == 0xff);
  return 0;
}

static int
test_names (void)
{
  struct dns_name a, b;
  char text[DNS_NAME_TEXT_MAX + 1];
  char long_name[300];

  CHECK (dns_name_from_text ("Foo.Example.", &a) && a.len == 13);
  CHECK (dns_name_from_text ("foo.example", &b) && dns_name_equal (&a, &b));
  CHECK (dns_name_text (&a, text));
  CHECK_STR (text, "foo.example");
  CHECK (dns_name_from_text ("foo.exampl", &b) && !dns_name_equal (&a, &b));
  CHECK (!dns_name_from_text ("", &a) && !dns_name_from_text (".", &a));
  CHECK (!dns_name_from_text ("a..b", &a) && !dns_name_from_text (".a", &a));
  memset (long_name, 'a', 64);
  long_name[64] = '\0';
  CHECK (!dns_name_from_text (long_name, &a));
  for (int i = 0; i < 128; i++)
    memcpy (long_name + 2 * i, "a.", 2);
  long_name[255] = '\0'; /* 128 labels: 257 bytes of wire */
  CHECK (!dns_name_from_text (long_name, &a));
  long_name[253] = '\0'; /* 127 labels: 255 */
  CHECK (dns_name_from_text (long_name, &a) && a.len == 255);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_query_basic);
  RUN_TEST (test_query_edns);
  RUN_TEST (test_query_odd_names);
  RUN_TEST (test_query_refused);
  RUN_TEST (test_query_bad_names);
  RUN_TEST (test_query_longest_name);
  RUN_TEST (test_answer_round_trip);
  RUN_TEST (test_answer_rcodes);
  RUN_TEST (test_answer_badvers);
  RUN_TEST (test_answer_truncated);
  RUN_TEST (test_answer_too_small);
  RUN_TEST (test_build_query);
  RUN_TEST (test_response_chain);
  RUN_TEST (test_response_loops_and_caps);
  RUN_TEST (test_response_refused);
  RUN_TEST (test_response_tc_and_rcodes);
  RUN_TEST (test_tcp_frames);
  RUN_TEST (test_names);
  TAP_END ();
}
