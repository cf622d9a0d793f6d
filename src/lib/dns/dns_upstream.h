/* The sandbox resolver's upstream: the host's nameservers (resolv.conf), asked over UDP, again
   over TCP when the answer is truncated, with resolv.conf's timeout and attempts.  Blocking:
   the caller runs it on a thread of its own.  Nothing printed.  */
#ifndef AGENTRT_DNS_UPSTREAM_H
#define AGENTRT_DNS_UPSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agentrt/error.h"
#include "dns/dns_msg.h"

#define DNS_UPSTREAM_SERVERS_MAX 3  /* glibc's MAXNS: later nameserver lines are ignored */
#define DNS_UPSTREAM_TIMEOUT 5      /* seconds per try, resolv.conf's default… */
#define DNS_UPSTREAM_TIMEOUT_MAX 30 /* …and glibc's cap */
#define DNS_UPSTREAM_ATTEMPTS 2
#define DNS_UPSTREAM_ATTEMPTS_MAX 5
/* CNAME chains the upstream left unresolved are followed by asking for their last name, this
   many times at most.  */
#define DNS_UPSTREAM_FOLLOW_MAX 4

struct dns_upstream
{
  size_t n;
  struct sockaddr_storage servers[DNS_UPSTREAM_SERVERS_MAX];
  socklen_t lens[DNS_UPSTREAM_SERVERS_MAX];
  unsigned timeout_ms; /* one try of one server (its TCP retry has as long again) */
  unsigned attempts;   /* rounds over the servers */
};

/* resolv.conf's text: `nameserver ADDR` lines (IPv4, or IPv6 with an optional %interface), and
   `options timeout:N attempts:N` capped as glibc caps them; everything else is ignored.  No
   nameserver means 127.0.0.1, as for glibc.  `what` names the file in errors.  */
int dns_upstream_parse (const char *text, const char *what, struct dns_upstream *u,
                        ar_error_t *err);
int dns_upstream_load (const char *path, struct dns_upstream *u, ar_error_t *err);
/* One more server, "ADDR", "ADDR:PORT" or "[V6ADDR]:PORT" (agentrt.conf's dns_servers); the
   default timeout and attempts when u has none yet.  Errors name `what`.  */
int dns_upstream_add (struct dns_upstream *u, const char *server, const char *what,
                      ar_error_t *err);
/* An upstream of one server (tests: a port other than 53), with the default timeout and
   attempts.  */
int dns_upstream_init_server (struct dns_upstream *u, const struct sockaddr *sa, socklen_t len,
                              ar_error_t *err);

/* Ask for `name`'s records of `qtype` (A, AAAA).  Each round asks each server in turn: a
   response that is not the answer to our query (another id or question, from a forger or an
   older query) is ignored and the wait goes on; TC asks the same server again over TCP;
   SERVFAIL, REFUSED, a malformed response or the timeout move on to the next server.  A chain
   of CNAMEs whose last name has no address in the answer is followed by asking for that name
   (DNS_UPSTREAM_FOLLOW_MAX times).  0 with *r (rcode NOERROR, with or without addresses, or
   NXDOMAIN), or -1 with *err saying what the last server did.  */
int dns_upstream_resolve (const struct dns_upstream *u, const char *name, uint16_t qtype,
                          struct dns_result *r, ar_error_t *err);

#endif
