/* The egress allowlist by name (issue 16): what --net-allow / io.agentrt.net.allow entries
   mean, parsed strictly, and the matching the supervisor's resolver (may this name be resolved?)
   and its broker (may this address be connected, under which entry?) ask of it.  Pure: no
   resolution, no I/O (but netpolicy_caller_exe), nothing printed.

   An entry is  HOST ":" PORTS [ "@" PROGRAM ], entries separated by commas:
     HOST     pypi.org             that name only (ASCII; an IDN as its punycode A-label)
              *.githubusercontent.com
                                   every name below it, at any depth (a.b.githubusercontent.com),
                                   not the name itself: list both for both (E2B, Vercel and
                                   Anthropic's sandbox runtime give `*.` the same meaning)
              192.0.2.7  [2001:db8::1]
                                   one address (a v4-mapped v6 one is its IPv4 address)
              10.0.0.0/8  [2001:db8::/32]
                                   a network; its host bits must be zero
     PORTS    443  8000-8100  *    one port, an inclusive range, or any port (1-65535): always
                                   written, so that "every port" is never an accident
     PROGRAM  /usr/bin/git         only a connect by a process whose executable is that file;
              /usr/lib/git-core/   …or any file under that directory (a trailing slash)
   Names compare without case and without a trailing dot.  Whitespace around an entry is
   ignored; a program path holds no comma, no `.` or `..` component and no empty one.

   A name entry allows a connect to an address only through the pin table (dns/dns_pins.h): the
   sandbox's own resolver must have returned that address for a name the entry matches.  */
#ifndef AGENTRT_NETPOLICY_H
#define AGENTRT_NETPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agentrt/error.h"

/* A name as DNS carries it: 253 characters at most without the trailing dot.  */
#define NETPOLICY_NAME_MAX 253
/* Entries in one list (an annotation is untrusted input).  */
#define NETPOLICY_ENTRIES_MAX 1024
/* A program's path, at most (PATH_MAX is the kernel's; a rule naming a longer one is a
   mistake).  */
#define NETPOLICY_PROGRAM_MAX 1024

enum netpolicy_kind
{
  NETPOLICY_NAME,     /* `name`: exactly that name */
  NETPOLICY_WILDCARD, /* `*.name`: names strictly below `name` */
  NETPOLICY_NET,      /* an address (/32, /128) or a network */
};

struct netpolicy_entry
{
  enum netpolicy_kind kind;
  char *name;       /* NAME, WILDCARD: lower case, no trailing dot (WILDCARD: without "*.") */
  int family;       /* NET: AF_INET or AF_INET6 */
  uint8_t addr[16]; /* NET: network order, 4 bytes for AF_INET */
  unsigned prefix;  /* NET: 0-32 or 0-128 */
  uint16_t port_lo; /* host order, 1 <= port_lo <= port_hi <= 65535 */
  uint16_t port_hi; /* `*` is 1-65535 */
  char *program;    /* NULL: any; ends with '/': any file under that directory */
  char *text;       /* canonical text, for audit records and denial reasons */
};

struct netpolicy
{
  struct netpolicy_entry *entries;
  size_t n;
  bool names; /* an entry is a name or a wildcard: the sandbox needs its resolver */
  /* A name's answers may pin the host's loopback (netpolicy_address_special less
     netpolicy_answer_forbidden): never parsed, set by the caller when the operator gave the
     list and agentrt.conf's dns_host_answers allows it (tests serve names on loopback).  Not
     the list alone: a wildcard's answers are chosen by whoever runs the names below it, who
     would then reach the host's own services (DNS rebinding).  */
  bool special_ok;
};

/* Parse a comma list; errors name `from` (the flag or annotation) and the entry.  An empty list
   is an error, as egress_parse says why.  */
int netpolicy_parse (const char *list, const char *from, struct netpolicy *out, ar_error_t *err);
void netpolicy_release (struct netpolicy *p);

/* Does the entry's name (NAME, WILDCARD) match `name`?  `name` is as a resolver has it: any
   case, an optional trailing dot.  */
bool netpolicy_name_matches (const struct netpolicy_entry *e, const char *name);
/* Does the entry's network (NET) hold the address?  A v4-mapped v6 address is its IPv4 one.  */
bool netpolicy_net_matches (const struct netpolicy_entry *e, int family, const uint8_t *addr);
bool netpolicy_port_matches (const struct netpolicy_entry *e, uint16_t port);
/* `exe`: the caller's executable as netpolicy_caller_exe read it; NULL matches only an entry
   without a program.  */
bool netpolicy_program_matches (const struct netpolicy_entry *e, const char *exe);

/* May the sandbox's resolver resolve `name` at all: does some name entry match it, whatever
   its ports and program?  The first such entry, or NULL (the resolver answers NXDOMAIN).  */
const struct netpolicy_entry *netpolicy_match_name (const struct netpolicy *p, const char *name);

/* What an entry would say about a connect: why not, in the order of the checks.  */
enum netpolicy_miss
{
  NETPOLICY_HIT = 0,
  NETPOLICY_MISS_PORT,    /* the entry names this destination, on other ports */
  NETPOLICY_MISS_PROGRAM, /* …on this port, for another program */
  NETPOLICY_MISS_DEST,    /* it does not name this destination */
};
/* The entry against a connect to `name` (NULL: to an address not pinned to any name, which
   only a NET entry can match) or to `family`/`addr`, on `port`, by `exe`.  */
enum netpolicy_miss netpolicy_entry_check (const struct netpolicy_entry *e, const char *name,
                                           int family, const uint8_t *addr, uint16_t port,
                                           const char *exe);

/* An address no DNS answer may make connectable, whatever the list says about the name: the
   broker dials from the host's side, so a name of the list resolved to one of these (DNS
   rebinding, a name pointed at 169.254.169.254) would reach the host itself.  Loopback,
   unspecified (0/8, ::), link-local (169.254/16, fe80::/10), multicast, broadcast, the clouds'
   metadata addresses below, and their v4-mapped forms.  The host's own interface addresses are
   the caller's to add.  */
bool netpolicy_address_special (int family, const uint8_t *addr);
/* A cloud's metadata or host service outside link-local (100.100.100.200, 168.63.129.16,
   fd00:ec2::254, fd00:ec2::253), or its v4-mapped form.  */
bool netpolicy_address_metadata (int family, const uint8_t *addr);

/* The first address or network entry that holds such an address (0.0.0.0/0 does), or NULL:
   like egress_host_local, an entry the operator may give and config.json may not.  */
const struct netpolicy_entry *netpolicy_first_special (const struct netpolicy *p);

/* An address no name's answer may pin, whatever special_ok says: unspecified (0/8, ::),
   link-local (169.254/16 and fe80::/10: a cloud's metadata service, 169.254.169.254), the
   clouds' services outside it (netpolicy_address_metadata), multicast and broadcast, and their
   v4-mapped forms.
   Tests need loopback behind names, never these; an operator who means one lists the address.  */
bool netpolicy_answer_forbidden (int family, const uint8_t *addr);

/* A name in the form entries use: lower case, no trailing dot, a host name (labels of letters,
   digits, '-' and '_', 1 to 63 each, 253 in all, the last not all digits).  false if it is not
   one; `out` holds NETPOLICY_NAME_MAX + 1.  */
bool netpolicy_name_normalize (const char *name, char *out);

/* The executable of thread `tid` (/proc/TID/exe), as its own mount namespace names it (the
   supervisor is not under the container's root, so the kernel gives the path from the
   container's root).  0, or -errno.  See the comment at the definition for why the answer is
   the caller's at the time of its connect.  */
int netpolicy_caller_exe (pid_t tid, char *buf, size_t len);

#endif
