/* DNS messages (RFC 1035, EDNS0 from RFC 6891) for the sandbox's resolver: a workload's query
   parsed, its answer built, an upstream's response parsed.  Queries are untrusted bytes from the
   workload and responses untrusted bytes from the network: every length, count and compression
   pointer is checked against the message, a pointer may only go back before where the name
   being read began (so no pointer loop can exist), and a name never expands past 255 bytes.
   Nothing here allocates, blocks or prints.

   What is understood: one question, of class IN; answers of type A, AAAA and CNAME (a response's
   other records, its authority and additional sections are never read); the OPT record of a
   query.  UDP messages as they are, TCP ones behind their 2-byte length (dns_msg_tcp_*).  */
#ifndef AGENTRT_DNS_MSG_H
#define AGENTRT_DNS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agentrt/error.h"

#define DNS_TYPE_A 1
#define DNS_TYPE_CNAME 5
#define DNS_TYPE_SOA 6
#define DNS_TYPE_PTR 12
#define DNS_TYPE_AAAA 28
#define DNS_TYPE_OPT 41
#define DNS_TYPE_SVCB 64
#define DNS_TYPE_HTTPS 65
#define DNS_TYPE_ANY 255
#define DNS_CLASS_IN 1

enum dns_rcode
{
  DNS_NOERROR = 0,
  DNS_FORMERR = 1,
  DNS_SERVFAIL = 2,
  DNS_NXDOMAIN = 3,
  DNS_NOTIMP = 4,
  DNS_REFUSED = 5,
  DNS_BADVERS = 16, /* extended (EDNS): only in an answer to a query with an OPT record */
};

#define DNS_HEADER_LEN 12
#define DNS_UDP_MIN 512    /* a UDP answer to a query without EDNS */
#define DNS_UDP_MAX 4096   /* the most a UDP answer is made, whatever the query offers */
#define DNS_EDNS_SIZE 1232 /* the UDP size we offer (the DNS flag day 2020's value) */
#define DNS_MSG_MAX 65535  /* a TCP message */
#define DNS_NAME_WIRE_MAX 255
#define DNS_NAME_TEXT_MAX 253
/* CNAMEs followed from the question name, and addresses kept, per response.  */
#define DNS_CHAIN_MAX 16
#define DNS_ADDRS_MAX 32

/* A name in wire form, uncompressed: labels, then the root's 0 (len counts it).  */
struct dns_name
{
  uint8_t len;
  uint8_t wire[DNS_NAME_WIRE_MAX];
};

struct dns_query
{
  uint16_t id;
  uint16_t flags;        /* the header's flags as sent (RD and CD are echoed) */
  struct dns_name qname; /* as sent, case kept: the answer echoes it (0x20 randomisation) */
  /* The name as text: lower case, no trailing dot, when every label is of letters, digits, '-'
     and '_' (host_name); otherwise empty (the root, a label with a dot or a control byte).  */
  bool host_name;
  char name[DNS_NAME_TEXT_MAX + 1];
  uint16_t qtype;
  uint16_t qclass;
  bool edns;            /* an OPT record came with it */
  uint8_t edns_version; /* > 0: the answer is BADVERS */
  uint16_t udp_size;    /* the OPT's payload size, as sent */
};

struct dns_addr
{
  int family; /* AF_INET or AF_INET6 */
  uint8_t addr[16];
  uint32_t ttl;
};

/* An answer: the CNAME chain from the question's name, and the addresses of its last name.  */
struct dns_result
{
  int rcode;      /* enum dns_rcode */
  bool truncated; /* a UDP response had TC: ask again over TCP (nothing else is filled) */
  size_t n_chain; /* chain[0] is the question's name, chain[i + 1] the CNAME of chain[i] */
  struct dns_name chain[DNS_CHAIN_MAX + 1];
  uint32_t chain_ttl[DNS_CHAIN_MAX]; /* the TTL of chain[i] → chain[i + 1] */
  size_t n_addrs;
  struct dns_addr addrs[DNS_ADDRS_MAX];
  size_t dropped; /* addresses past DNS_ADDRS_MAX, not kept */
  /* The least TTL of the chain and the addresses: how long these addresses are the question
     name's (0 with no address).  */
  uint32_t ttl;
};

/* A workload's query.  0, or -1 with *err saying what is wrong; then *reply is the rcode to
   answer with (FORMERR, NOTIMP for an opcode other than QUERY) when q->id is known and the
   message is a query, or -1 when nothing should be answered (too short, a response).  Queries
   with a qclass other than IN parse; the caller refuses them.  */
int dns_msg_parse_query (const uint8_t *msg, size_t len, struct dns_query *q, int *reply,
                         ar_error_t *err);

/* The largest UDP answer to q: 512 without EDNS, else its size within [512, DNS_UDP_MAX].  */
size_t dns_msg_udp_max (const struct dns_query *q);

/* The answer to q into buf (at most `max` bytes: dns_msg_udp_max, or DNS_MSG_MAX for TCP):
   r->rcode, the question echoed, then r's CNAME chain and those of its addresses of q's type
   (A, AAAA; none for another type, which makes NOERROR an empty NODATA answer: no SOA, so
   nothing caches it), each TTL at most ttl_max, and an OPT record when q had one.  What does not
   fit in `max` is sent as TC with no records, for the client to ask over TCP.  The length, or -1
   with *err when even that does not fit.  */
int dns_msg_build_answer (const struct dns_query *q, const struct dns_result *r, uint32_t ttl_max,
                          uint8_t *buf, size_t max, ar_error_t *err);
/* An answer to a query that did not parse: the header only, with `rcode` (FORMERR, NOTIMP).  */
int dns_msg_build_error (uint16_t id, uint16_t flags, int rcode, uint8_t *buf, size_t max,
                         ar_error_t *err);

/* A recursive query for `name` (text, an optional trailing dot), with an OPT record offering
   DNS_EDNS_SIZE; *sent describes it for dns_msg_parse_response.  The length or -1.  */
int dns_msg_build_query (uint16_t id, const char *name, uint16_t qtype, uint8_t *buf, size_t max,
                         struct dns_query *sent, ar_error_t *err);

/* An upstream's response to `sent`: it must be a response with sent's id and question (else -1:
   not ours, or forged).  Fills r: the rcode; TC only (r->truncated); or the chain of CNAMEs
   from the question's name and the addresses of sent's type of its last name, from the answer
   section (records of other names, types and classes are skipped; CNAMEs past DNS_CHAIN_MAX or
   looping end the chain there).  TTLs with the top bit set count as 0 (RFC 2181 8).  */
int dns_msg_parse_response (const uint8_t *msg, size_t len, const struct dns_query *sent,
                            struct dns_result *r, ar_error_t *err);

/* TCP: a message is its length (2 bytes, network order) and then it.  Of `have` bytes read so
   far: 1 with *msg, *len and *used (the bytes of this one, length included) when a whole
   message is there, 0 when more must be read, -1 when the length says less than a header.  */
int dns_msg_tcp_unframe (const uint8_t *buf, size_t have, const uint8_t **msg, size_t *len,
                         size_t *used);
void dns_msg_tcp_prefix (uint8_t out[2], size_t len);

/* Names.  Text of a wire name (lower case, no trailing dot; false if a label is not of letters,
   digits, '-', '_'); `out` holds DNS_NAME_TEXT_MAX + 1 bytes.  The wire form of a text name
   (false if a label is empty or over 63 bytes, or it is over 255 in all).  */
bool dns_name_text (const struct dns_name *n, char *out);
bool dns_name_from_text (const char *text, struct dns_name *out);
/* Equal, ignoring ASCII case.  */
bool dns_name_equal (const struct dns_name *a, const struct dns_name *b);

#endif
