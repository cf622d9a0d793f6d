/* DNS messages: the parsers of untrusted queries and responses, and the writers of answers and
   queries (dns_msg.h).  Every read is bounded by the message's length, checked before it is
   made; no pointer into a message outlives the call.  */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "dns/dns_msg.h"
#include "utils.h"

/* The header's flags.  */
#define F_QR 0x8000
#define F_OPCODE 0x7800
#define F_TC 0x0200
#define F_RD 0x0100
#define F_RA 0x0080
#define F_CD 0x0010
#define F_RCODE 0x000f

/* Compression pointers followed in one name.  Each must go back before the last, so the walk
   ends anyway; a name has at most 127 labels, so a real message never needs more.  */
#define NAME_HOPS_MAX 127
/* Answer records of the types we use, looked at in one response (a CDN's answer has a few; a
   response with more is answered from the first ones).  */
#define ANSWERS_MAX 128

static uint16_t
get16 (const uint8_t *p)
{
  return (uint16_t) (p[0] << 8 | p[1]);
}

static uint32_t
get32 (const uint8_t *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static int
malformed (ar_error_t *err, const char *what, const char *why)
{
  return ar_make_error (err, EBADMSG, "DNS %s: %s", what, why);
}

static char
ascii_lower (uint8_t c)
{
  return (char) (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

/* The name at *off, its labels copied into `out` (case kept) with compression pointers
   followed.  RFC 1035 4.1.4: a pointer names a prior occurrence of a name, so each must point
   before where the part of this name read so far began (`limit`): the walk only goes back, and
   no message can make it loop.  *off moves past the name's own bytes.  NULL, or what is
   wrong.  */
static const char *
read_name (const uint8_t *msg, size_t len, size_t *off, struct dns_name *out)
{
  size_t pos = *off, limit = *off, end = 0;
  unsigned hops = 0;

  out->len = 0;
  for (;;)
    {
      uint8_t c;
      if (pos >= len)
        return "a name runs past the end";
      c = msg[pos];
      if ((c & 0xc0) == 0xc0)
        {
          size_t target;
          if (pos + 1 >= len)
            return "a name runs past the end";
          target = (size_t) (c & 0x3f) << 8 | msg[pos + 1];
          if (target >= limit || ++hops > NAME_HOPS_MAX)
            return "a compression pointer that does not point back";
          if (end == 0)
            end = pos + 2;
          pos = limit = target;
          continue;
        }
      if (c & 0xc0)
        return "an extended label type";
      if (pos + 1 + c > len)
        return "a label runs past the end";
      if ((size_t) out->len + 1 + c + (c ? 1 : 0) > DNS_NAME_WIRE_MAX)
        return "a name longer than 255 bytes";
      memcpy (out->wire + out->len, msg + pos, (size_t) c + 1);
      out->len = (uint8_t) (out->len + 1 + c);
      pos += 1 + (size_t) c;
      if (c == 0)
        break;
    }
  *off = end ? end : pos;
  return NULL;
}

static bool
host_char (uint8_t c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
         || c == '_';
}

/* The text of one name; false (out untouched past o) at the first byte that is not.  */
static bool
name_text (const struct dns_name *n, char *out, size_t *o)
{
  size_t pos = 0;

  while (pos < n->len && n->wire[pos] != 0)
    {
      uint8_t c = n->wire[pos];
      if (pos + 1 + c > n->len || *o + (*o ? 1 : 0) + c > DNS_NAME_TEXT_MAX)
        return false;
      if (*o)
        out[(*o)++] = '.';
      for (size_t i = 1; i <= c; i++)
        {
          if (!host_char (n->wire[pos + i]))
            return false;
          out[(*o)++] = ascii_lower (n->wire[pos + i]);
        }
      pos += 1 + (size_t) c;
    }
  return *o > 0;
}

bool
dns_name_text (const struct dns_name *n, char *out)
{
  size_t o = 0;
  bool ok = name_text (n, out, &o);

  out[ok ? o : 0] = '\0';
  return ok;
}

bool
dns_name_from_text (const char *text, struct dns_name *out)
{
  size_t n = strlen (text), o = 0, start = 0;

  if (n > 0 && text[n - 1] == '.')
    n--;
  if (n == 0)
    return false;
  for (;;)
    {
      const char *dot = memchr (text + start, '.', n - start);
      size_t l = dot ? (size_t) (dot - text) - start : n - start;
      if (l == 0 || l > 63 || o + 1 + l + 1 > DNS_NAME_WIRE_MAX)
        return false;
      out->wire[o++] = (uint8_t) l;
      memcpy (out->wire + o, text + start, l);
      o += l;
      if (dot == NULL)
        break;
      start += l + 1;
    }
  out->wire[o++] = 0;
  out->len = (uint8_t) o;
  return true;
}

/* Length bytes are below 64, so folding every byte's case never changes one.  */
bool
dns_name_equal (const struct dns_name *a, const struct dns_name *b)
{
  if (a->len != b->len)
    return false;
  for (size_t i = 0; i < a->len; i++)
    if (ascii_lower (a->wire[i]) != ascii_lower (b->wire[i]))
      return false;
  return true;
}

/* The OPT record of a query (RFC 6891 6.1.2): the root's name, type 41, the UDP size in the
   class, version in the TTL; its options are skipped.  */
static int
read_opt (const uint8_t *msg, size_t len, size_t *off, struct dns_query *q, ar_error_t *err)
{
  struct dns_name root;
  const char *why = read_name (msg, len, off, &root);
  size_t p = *off;
  uint16_t rdlen;

  if (why)
    return malformed (err, "query", why);
  if (root.len != 1 || p + 10 > len || get16 (msg + p) != DNS_TYPE_OPT)
    return malformed (err, "query", "an additional record that is not OPT");
  q->edns = true;
  q->udp_size = get16 (msg + p + 2);
  q->edns_version = msg[p + 5];
  rdlen = get16 (msg + p + 8);
  if (p + 10 + rdlen > len)
    return malformed (err, "query", "the OPT record runs past the end");
  *off = p + 10 + rdlen;
  return 0;
}

int
dns_msg_parse_query (const uint8_t *msg, size_t len, struct dns_query *q, int *reply,
                     ar_error_t *err)
{
  size_t off = DNS_HEADER_LEN;
  const char *why;

  memset (q, 0, sizeof *q);
  *reply = -1;
  if (len < DNS_HEADER_LEN)
    return malformed (err, "query", "shorter than a header");
  q->id = get16 (msg);
  q->flags = get16 (msg + 2);
  if (q->flags & F_QR)
    return malformed (err, "query", "a response, not a query");
  *reply = DNS_FORMERR;
  if (q->flags & F_OPCODE)
    {
      *reply = DNS_NOTIMP;
      return ar_make_error (err, EOPNOTSUPP, "DNS query: opcode %u", (q->flags & F_OPCODE) >> 11);
    }
  if (get16 (msg + 4) != 1 || get16 (msg + 6) != 0 || get16 (msg + 8) != 0 || get16 (msg + 10) > 1)
    return malformed (err, "query", "not one question alone (and an OPT record)");
  why = read_name (msg, len, &off, &q->qname);
  if (why)
    return malformed (err, "query", why);
  if (off + 4 > len)
    return malformed (err, "query", "the question runs past the end");
  q->qtype = get16 (msg + off);
  q->qclass = get16 (msg + off + 2);
  off += 4;
  if (get16 (msg + 10) == 1 && read_opt (msg, len, &off, q, err) < 0)
    return -1;
  if (off != len)
    return malformed (err, "query", "bytes after the last record");
  q->host_name = dns_name_text (&q->qname, q->name);
  return 0;
}

size_t
dns_msg_udp_max (const struct dns_query *q)
{
  if (!q->edns || q->udp_size <= DNS_UDP_MIN)
    return DNS_UDP_MIN;
  return q->udp_size > DNS_UDP_MAX ? DNS_UDP_MAX : q->udp_size;
}

/* A bounded writer: past `max` it writes nothing more and says so (full).  */
struct writer
{
  uint8_t *buf;
  size_t max, len;
  bool full;
};

static void
put (struct writer *w, const void *p, size_t n)
{
  if (w->full || n > w->max - w->len)
    {
      w->full = true;
      return;
    }
  memcpy (w->buf + w->len, p, n);
  w->len += n;
}

static void
put16 (struct writer *w, uint16_t v)
{
  uint8_t b[2] = { (uint8_t) (v >> 8), (uint8_t) v };
  put (w, b, 2);
}

static void
put32 (struct writer *w, uint32_t v)
{
  uint8_t b[4] = { (uint8_t) (v >> 24), (uint8_t) (v >> 16), (uint8_t) (v >> 8), (uint8_t) v };
  put (w, b, 4);
}

static void
put_header (struct writer *w, uint16_t id, uint16_t flags, uint16_t qd, uint16_t an, uint16_t ar)
{
  put16 (w, id);
  put16 (w, flags);
  put16 (w, qd);
  put16 (w, an);
  put16 (w, 0);
  put16 (w, ar);
}

/* An RR's fixed part, its owner a pointer to `owner` (an offset where that name is written in
   full: every one here is below 5 KiB, within a pointer's 14 bits).  */
static void
put_rr (struct writer *w, size_t owner, uint16_t type, uint32_t ttl, uint16_t rdlen)
{
  put16 (w, (uint16_t) (0xc000 | owner));
  put16 (w, type);
  put16 (w, DNS_CLASS_IN);
  put32 (w, ttl);
  put16 (w, rdlen);
}

/* OPT: our UDP size, the upper bits of the rcode, version 0, no flags, no options.  */
static void
put_opt (struct writer *w, int rcode)
{
  uint8_t root = 0;

  put (w, &root, 1);
  put16 (w, DNS_TYPE_OPT);
  put16 (w, DNS_EDNS_SIZE);
  put32 (w, (uint32_t) (rcode >> 4) << 24);
  put16 (w, 0);
}

static uint32_t
cap_ttl (uint32_t ttl, uint32_t max)
{
  return ttl < max ? ttl : max;
}

/* The CNAME chain, each target written in full once (the next record's owner points to it),
   then the addresses of the last name of q's type.  The number of records.  */
static uint16_t
put_records (struct writer *w, const struct dns_query *q, const struct dns_result *r,
             uint32_t ttl_max)
{
  size_t at[DNS_CHAIN_MAX + 1],
      chain = r->n_chain > DNS_CHAIN_MAX + 1 ? DNS_CHAIN_MAX + 1 : r->n_chain;
  int family = q->qtype == DNS_TYPE_A ? AF_INET : q->qtype == DNS_TYPE_AAAA ? AF_INET6 : 0;
  uint16_t n = 0;

  at[0] = DNS_HEADER_LEN; /* the question's name */
  for (size_t i = 0; i + 1 < chain; i++, n++)
    {
      put_rr (w, at[i], DNS_TYPE_CNAME, cap_ttl (r->chain_ttl[i], ttl_max), r->chain[i + 1].len);
      at[i + 1] = w->len;
      put (w, r->chain[i + 1].wire, r->chain[i + 1].len);
    }
  for (size_t i = 0; i < r->n_addrs && i < DNS_ADDRS_MAX; i++)
    {
      size_t alen = r->addrs[i].family == AF_INET ? 4 : 16;
      if (family == 0 || r->addrs[i].family != family)
        continue;
      put_rr (w, at[chain ? chain - 1 : 0], q->qtype, cap_ttl (r->addrs[i].ttl, ttl_max),
              (uint16_t) alen);
      put (w, r->addrs[i].addr, alen);
      n++;
    }
  return n;
}

static uint16_t
answer_flags (uint16_t query_flags, int rcode, bool tc)
{
  return (uint16_t) (F_QR | F_RA | (query_flags & (F_RD | F_CD)) | (tc ? F_TC : 0)
                     | (rcode & F_RCODE));
}

int
dns_msg_build_answer (const struct dns_query *q, const struct dns_result *r, uint32_t ttl_max,
                      uint8_t *buf, size_t max, ar_error_t *err)
{
  struct writer w = { .buf = buf, .max = max };
  size_t question;
  uint16_t an;
  bool tc = false;

  put_header (&w, q->id, 0, 1, 0, q->edns);
  put (&w, q->qname.wire, q->qname.len);
  put16 (&w, q->qtype);
  put16 (&w, q->qclass);
  if (w.full)
    return ar_make_error (err, EMSGSIZE, "DNS answer: does not fit in %zu bytes", max);
  question = w.len;
  an = put_records (&w, q, r, ttl_max);
  if (q->edns)
    put_opt (&w, r->rcode);
  if (w.full)
    {
      /* RFC 2181 9: what does not fit whole is not sent; TC sends the client to TCP.  */
      w.full = false;
      w.len = question;
      an = 0;
      tc = true;
      if (q->edns)
        put_opt (&w, r->rcode);
    }
  if (w.full)
    return ar_make_error (err, EMSGSIZE, "DNS answer: does not fit in %zu bytes", max);
  buf[2] = (uint8_t) (answer_flags (q->flags, r->rcode, tc) >> 8);
  buf[3] = (uint8_t) answer_flags (q->flags, r->rcode, tc);
  buf[6] = (uint8_t) (an >> 8);
  buf[7] = (uint8_t) an;
  return (int) w.len;
}

int
dns_msg_build_error (uint16_t id, uint16_t flags, int rcode, uint8_t *buf, size_t max,
                     ar_error_t *err)
{
  struct writer w = { .buf = buf, .max = max };

  put_header (&w, id, answer_flags (flags, rcode, false), 0, 0, 0);
  if (w.full)
    return ar_make_error (err, EMSGSIZE, "DNS answer: does not fit in %zu bytes", max);
  return (int) w.len;
}

int
dns_msg_build_query (uint16_t id, const char *name, uint16_t qtype, uint8_t *buf, size_t max,
                     struct dns_query *sent, ar_error_t *err)
{
  struct writer w = { .buf = buf, .max = max };

  memset (sent, 0, sizeof *sent);
  if (!dns_name_from_text (name, &sent->qname))
    return ar_make_error (err, EINVAL, "DNS query: `%s` is not a DNS name", name);
  sent->id = id;
  sent->flags = F_RD;
  sent->qtype = qtype;
  sent->qclass = DNS_CLASS_IN;
  sent->edns = true;
  sent->udp_size = DNS_EDNS_SIZE;
  sent->host_name = dns_name_text (&sent->qname, sent->name);
  put_header (&w, id, F_RD, 1, 0, 1);
  put (&w, sent->qname.wire, sent->qname.len);
  put16 (&w, qtype);
  put16 (&w, DNS_CLASS_IN);
  put_opt (&w, 0);
  if (w.full)
    return ar_make_error (err, EMSGSIZE, "DNS query: does not fit in %zu bytes", max);
  return (int) w.len;
}

/* One answer record of a type we use, located in the message.  */
struct rr
{
  uint16_t type;
  uint32_t ttl;
  size_t owner; /* offset of its name */
  size_t rdata;
  uint16_t rdlen;
};

/* The name at `off` (a record's owner, or a CNAME's target), into *out.  */
static bool
rr_name (const uint8_t *msg, size_t len, size_t off, struct dns_name *out)
{
  return read_name (msg, len, &off, out) == NULL;
}

/* A record's fixed part and rdata checked; a CNAME's target must fill its rdata exactly.  */
static const char *
check_rr (const uint8_t *msg, size_t len, const struct rr *rr)
{
  struct dns_name target;
  size_t off = rr->rdata;
  const char *why;

  if (rr->type == DNS_TYPE_A && rr->rdlen != 4)
    return "an A record that is not 4 bytes";
  if (rr->type == DNS_TYPE_AAAA && rr->rdlen != 16)
    return "an AAAA record that is not 16 bytes";
  if (rr->type != DNS_TYPE_CNAME)
    return NULL;
  why = read_name (msg, rr->rdata + rr->rdlen, &off, &target);
  if (why)
    return why;
  return off == rr->rdata + rr->rdlen ? NULL : "a CNAME whose name does not fill its record";
}

/* The answer section: each record's bounds checked, those of class IN and type A, AAAA or
   CNAME kept in rrs (the first ANSWERS_MAX).  The number kept, or -1.  */
static int
index_answers (const uint8_t *msg, size_t len, size_t off, uint16_t an, struct rr *rrs,
               ar_error_t *err)
{
  int n = 0;

  for (uint16_t i = 0; i < an; i++)
    {
      struct dns_name owner;
      struct rr rr = { .owner = off };
      const char *why = read_name (msg, len, &off, &owner);
      if (why == NULL && off + 10 > len)
        why = "a record runs past the end";
      if (why)
        return malformed (err, "response", why);
      rr.type = get16 (msg + off);
      rr.ttl = get32 (msg + off + 4);
      rr.rdlen = get16 (msg + off + 8);
      rr.rdata = off + 10;
      if (rr.rdata + rr.rdlen > len)
        return malformed (err, "response", "a record runs past the end");
      off = rr.rdata + rr.rdlen;
      if (get16 (msg + rr.rdata - 8) != DNS_CLASS_IN
          || (rr.type != DNS_TYPE_A && rr.type != DNS_TYPE_AAAA && rr.type != DNS_TYPE_CNAME))
        continue;
      why = check_rr (msg, len, &rr);
      if (why)
        return malformed (err, "response", why);
      if (n < ANSWERS_MAX)
        rrs[n++] = rr;
    }
  return n;
}

/* RFC 2181 8: a TTL with its top bit set is 0.  */
static uint32_t
ttl_of (const struct rr *rr)
{
  return rr->ttl & 0x80000000u ? 0 : rr->ttl;
}

/* The record of `type` owned by `name`, from `from` on; -1 if none.  */
static int
find_rr (const uint8_t *msg, size_t len, const struct rr *rrs, int n, int from, uint16_t type,
         const struct dns_name *name)
{
  for (int i = from; i < n; i++)
    {
      struct dns_name owner;
      if (rrs[i].type == type && rr_name (msg, len, rrs[i].owner, &owner)
          && dns_name_equal (&owner, name))
        return i;
    }
  return -1;
}

static bool
in_chain (const struct dns_result *r, const struct dns_name *n)
{
  for (size_t i = 0; i < r->n_chain; i++)
    if (dns_name_equal (&r->chain[i], n))
      return true;
  return false;
}

/* Follow the CNAMEs from chain[0]; a loop or DNS_CHAIN_MAX ends the chain.  */
static void
follow_chain (const uint8_t *msg, size_t len, const struct rr *rrs, int n, struct dns_result *r)
{
  while (r->n_chain <= DNS_CHAIN_MAX)
    {
      struct dns_name target;
      int i = find_rr (msg, len, rrs, n, 0, DNS_TYPE_CNAME, &r->chain[r->n_chain - 1]);
      if (i < 0 || !rr_name (msg, len, rrs[i].rdata, &target) || in_chain (r, &target))
        return;
      r->chain_ttl[r->n_chain - 1] = ttl_of (&rrs[i]);
      r->chain[r->n_chain++] = target;
    }
}

static void
add_addr (struct dns_result *r, int family, const uint8_t *addr, uint32_t ttl)
{
  size_t alen = family == AF_INET ? 4 : 16;

  for (size_t i = 0; i < r->n_addrs; i++)
    if (r->addrs[i].family == family && memcmp (r->addrs[i].addr, addr, alen) == 0)
      return;
  if (r->n_addrs == DNS_ADDRS_MAX)
    {
      r->dropped++;
      return;
    }
  r->addrs[r->n_addrs].family = family;
  memset (r->addrs[r->n_addrs].addr, 0, sizeof r->addrs[r->n_addrs].addr);
  memcpy (r->addrs[r->n_addrs].addr, addr, alen);
  r->addrs[r->n_addrs++].ttl = ttl;
}

/* The addresses of the chain's last name, and the least TTL of it all.  */
static void
collect_addrs (const uint8_t *msg, size_t len, const struct rr *rrs, int n, uint16_t qtype,
               struct dns_result *r)
{
  const struct dns_name *last = &r->chain[r->n_chain - 1];
  int family = qtype == DNS_TYPE_A ? AF_INET : AF_INET6;

  if (qtype != DNS_TYPE_A && qtype != DNS_TYPE_AAAA)
    return;
  for (int i = find_rr (msg, len, rrs, n, 0, qtype, last); i >= 0;
       i = find_rr (msg, len, rrs, n, i + 1, qtype, last))
    add_addr (r, family, msg + rrs[i].rdata, ttl_of (&rrs[i]));
  if (r->n_addrs == 0)
    return;
  r->ttl = UINT32_MAX;
  for (size_t i = 0; i + 1 < r->n_chain; i++)
    r->ttl = cap_ttl (r->ttl, r->chain_ttl[i]);
  for (size_t i = 0; i < r->n_addrs; i++)
    r->ttl = cap_ttl (r->ttl, r->addrs[i].ttl);
}

/* The question of a response: sent's.  */
static int
check_question (const uint8_t *msg, size_t len, size_t *off, const struct dns_query *sent,
                ar_error_t *err)
{
  struct dns_name qname;
  const char *why = read_name (msg, len, off, &qname);

  if (why == NULL && *off + 4 > len)
    why = "the question runs past the end";
  if (why)
    return malformed (err, "response", why);
  if (!dns_name_equal (&qname, &sent->qname) || get16 (msg + *off) != sent->qtype
      || get16 (msg + *off + 2) != DNS_CLASS_IN)
    return ar_make_error (err, EBADMSG, "DNS response: answers another question");
  *off += 4;
  return 0;
}

int
dns_msg_parse_response (const uint8_t *msg, size_t len, const struct dns_query *sent,
                        struct dns_result *r, ar_error_t *err)
{
  struct rr rrs[ANSWERS_MAX];
  size_t off = DNS_HEADER_LEN;
  uint16_t flags;
  int n;

  memset (r, 0, sizeof *r);
  if (len < DNS_HEADER_LEN)
    return malformed (err, "response", "shorter than a header");
  flags = get16 (msg + 2);
  if (get16 (msg) != sent->id || !(flags & F_QR) || (flags & F_OPCODE))
    return ar_make_error (err, EBADMSG, "DNS response: not the answer to our query");
  if (get16 (msg + 4) != 1)
    return malformed (err, "response", "not one question");
  if (check_question (msg, len, &off, sent, err) < 0)
    return -1;
  r->rcode = flags & F_RCODE;
  r->chain[0] = sent->qname;
  r->n_chain = 1;
  if (flags & F_TC)
    {
      r->truncated = true;
      return 0;
    }
  if (r->rcode != DNS_NOERROR)
    return 0;
  n = index_answers (msg, len, off, get16 (msg + 6), rrs, err);
  if (n < 0)
    return -1;
  follow_chain (msg, len, rrs, n, r);
  collect_addrs (msg, len, rrs, n, sent->qtype, r);
  return 0;
}

int
dns_msg_tcp_unframe (const uint8_t *buf, size_t have, const uint8_t **msg, size_t *len,
                     size_t *used)
{
  size_t n;

  if (have < 2)
    return 0;
  n = get16 (buf);
  if (n < DNS_HEADER_LEN)
    return -1;
  if (have < 2 + n)
    return 0;
  *msg = buf + 2;
  *len = n;
  *used = 2 + n;
  return 1;
}

void
dns_msg_tcp_prefix (uint8_t out[2], size_t len)
{
  out[0] = (uint8_t) (len >> 8);
  out[1] = (uint8_t) len;
}
