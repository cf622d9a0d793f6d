/* dns/dns_pins.c: the pin table and the connect decision.  Pins by name and the entry that
   allows them now, ports, programs, address entries, the reasons and errnos of each denial,
   expiry with grace, the host's own addresses, shared CDN addresses, the bounds (least recently
   used evicted, expired first; names per address) and the order of dns_pins_names.  Time is
   the tests' own clock.  No root needed.  */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns/dns_pins.h"
#include "tap.h"
#include "utils.h"

static struct netpolicy
policy (const char *list)
{
  struct netpolicy p;
  ar_error_t err = NULL;

  if (netpolicy_parse (list, "test", &p, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      abort ();
    }
  return p;
}

static const uint8_t *
ip (const char *text, int *family)
{
  static uint8_t a[8][16];
  static int next;
  uint8_t *out = a[next++ % 8];

  *family = strchr (text, ':') ? AF_INET6 : AF_INET;
  if (inet_pton (*family, text, out) != 1)
    abort ();
  return out;
}

static bool
pin (struct dns_pins *t, const char *name, const char *addr, uint32_t ttl, uint64_t now)
{
  int family;
  const uint8_t *a = ip (addr, &family);
  return dns_pins_add (t, name, family, a, ttl, now);
}

static struct dns_verdict
decide (struct dns_pins *t, const struct netpolicy *p, const char *addr, uint16_t port,
        const char *exe, uint64_t now)
{
  struct dns_verdict v;
  int family;
  const uint8_t *a = ip (addr, &family);

  dns_pins_decide (t, p, family, a, port, exe, now, &v);
  return v;
}

static int
test_decide_by_name (void)
{
  struct netpolicy p = policy ("pypi.org:443,*.pythonhosted.org:443");
  struct dns_pins *t = dns_pins_new (0, 120);
  struct dns_verdict v;

  CHECK (pin (t, "PyPI.org.", "151.101.0.223", 60, 1000));
  CHECK (pin (t, "files.pythonhosted.org", "2a04:4e42::223", 300, 1000));
  CHECK (dns_pins_count (t) == 2);
  v = decide (t, &p, "151.101.0.223", 443, NULL, 1010);
  CHECK (v.allowed && v.why == DNS_DENY_NONE && v.entry == &p.entries[0]);
  CHECK_STR (v.name, "pypi.org");
  v = decide (t, &p, "::ffff:151.101.0.223", 443, "/bin/sh", 1010);
  CHECK (v.allowed && v.entry == &p.entries[0]);
  v = decide (t, &p, "2a04:4e42::223", 443, NULL, 1010);
  CHECK (v.allowed && v.entry == &p.entries[1]);
  CHECK_STR (v.name, "files.pythonhosted.org");
  /* Another port of a pinned name: refused as a closed port, naming the entry to widen.  */
  v = decide (t, &p, "151.101.0.223", 80, NULL, 1010);
  CHECK (!v.allowed && v.why == DNS_DENY_PORT && v.entry == &p.entries[0]);
  CHECK (dns_deny_errno (v.why) == ECONNREFUSED);
  CHECK_STR (v.name, "pypi.org");
  /* An address no name of the sandbox's resolved to.  */
  v = decide (t, &p, "151.101.0.224", 443, NULL, 1010);
  CHECK (!v.allowed && v.why == DNS_DENY_UNKNOWN && v.entry == NULL && v.name[0] == '\0');
  CHECK (dns_deny_errno (v.why) == ENETUNREACH);
  /* TTL + grace: 1000 + 60 + 120.  */
  CHECK (decide (t, &p, "151.101.0.223", 443, NULL, 1179).allowed);
  v = decide (t, &p, "151.101.0.223", 443, NULL, 1180);
  CHECK (!v.allowed && v.why == DNS_DENY_EXPIRED);
  CHECK_STR (v.name, "pypi.org");
  CHECK (decide (t, &p, "2a04:4e42::223", 443, NULL, 1180).allowed);
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

/* A pin holds the name, not the entry: a changed list decides the next connect.  */
static int
test_decide_follows_the_list (void)
{
  struct netpolicy p = policy ("pypi.org:443"), q = policy ("other.org:443,pypi.org:8443");
  struct dns_pins *t = dns_pins_new (0, 0);
  struct dns_verdict v;

  CHECK (pin (t, "pypi.org", "192.0.2.1", 60, 0));
  CHECK (decide (t, &p, "192.0.2.1", 443, NULL, 1).allowed);
  v = decide (t, &q, "192.0.2.1", 443, NULL, 1);
  CHECK (!v.allowed && v.why == DNS_DENY_PORT && v.entry == &q.entries[1]);
  CHECK (decide (t, &q, "192.0.2.1", 8443, NULL, 1).allowed);
  netpolicy_release (&p);
  netpolicy_release (&q);
  dns_pins_free (t);
  return 0;
}

static int
test_decide_programs (void)
{
  struct netpolicy p = policy ("github.com:443@/usr/lib/git-core/,api.github.com:443@/usr/bin/gh");
  struct dns_pins *t = dns_pins_new (0, 0);
  struct dns_verdict v;

  CHECK (pin (t, "github.com", "140.82.121.3", 60, 0));
  CHECK (pin (t, "api.github.com", "140.82.121.6", 60, 0));
  v = decide (t, &p, "140.82.121.3", 443, "/usr/lib/git-core/git-remote-https", 1);
  CHECK (v.allowed && v.entry == &p.entries[0]);
  v = decide (t, &p, "140.82.121.3", 443, "/usr/bin/curl", 1);
  CHECK (!v.allowed && v.why == DNS_DENY_PROGRAM && v.entry == &p.entries[0]);
  CHECK (dns_deny_errno (v.why) == EACCES);
  v = decide (t, &p, "140.82.121.3", 443, NULL, 1); /* the program could not be read */
  CHECK (!v.allowed && v.why == DNS_DENY_PROGRAM);
  /* A program miss is nearer than a port miss.  */
  v = decide (t, &p, "140.82.121.6", 80, "/usr/bin/curl", 1);
  CHECK (!v.allowed && v.why == DNS_DENY_PORT);
  CHECK (decide (t, &p, "140.82.121.6", 443, "/usr/bin/gh", 1).allowed);
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

static int
test_decide_addresses (void)
{
  struct netpolicy p = policy ("192.0.2.0/24:22,[2001:db8::/32]:443,pypi.org:443");
  struct dns_pins *t = dns_pins_new (0, 0);
  struct dns_verdict v;

  v = decide (t, &p, "192.0.2.77", 22, NULL, 0);
  CHECK (v.allowed && v.entry == &p.entries[0] && v.name[0] == '\0');
  v = decide (t, &p, "::ffff:192.0.2.77", 22, NULL, 0);
  CHECK (v.allowed && v.entry == &p.entries[0]);
  v = decide (t, &p, "192.0.2.77", 23, NULL, 0);
  CHECK (!v.allowed && v.why == DNS_DENY_PORT && v.entry == &p.entries[0]);
  CHECK (decide (t, &p, "2001:db8:1::5", 443, NULL, 0).allowed);
  CHECK (!decide (t, &p, "2001:db9::5", 443, NULL, 0).allowed);
  /* An address entry and a pinned name: the address entry answers for its port, the pin for
     its own.  */
  CHECK (pin (t, "pypi.org", "192.0.2.77", 60, 0));
  v = decide (t, &p, "192.0.2.77", 443, NULL, 0);
  CHECK (v.allowed && v.entry == &p.entries[2]);
  CHECK_STR (v.name, "pypi.org");
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

/* A CDN address serving an allowed name and a forbidden one is open once the allowed one is
   pinned (dns_pins.h says why that is the limit of address-level control).  */
static int
test_shared_address (void)
{
  struct netpolicy p = policy ("files.pythonhosted.org:443");
  struct dns_pins *t = dns_pins_new (0, 0);
  struct dns_verdict v;

  CHECK (pin (t, "evil.example", "151.101.1.1", 60, 0));
  v = decide (t, &p, "151.101.1.1", 443, NULL, 1);
  CHECK (!v.allowed && v.why == DNS_DENY_UNKNOWN);
  CHECK (pin (t, "files.pythonhosted.org", "151.101.1.1", 60, 0));
  v = decide (t, &p, "151.101.1.1", 443, NULL, 1);
  CHECK (v.allowed);
  CHECK_STR (v.name, "files.pythonhosted.org");
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

static void
result_of (struct dns_result *r, uint32_t ttl, const char *const *addrs, size_t n)
{
  memset (r, 0, sizeof *r);
  r->n_chain = 1;
  for (size_t i = 0; i < n; i++)
    {
      int family;
      const uint8_t *a = ip (addrs[i], &family);
      r->addrs[i].family = family;
      memcpy (r->addrs[i].addr, a, family == AF_INET ? 4 : 16);
      r->addrs[i].ttl = ttl;
    }
  r->n_addrs = n;
  r->ttl = ttl;
}

/* DNS rebinding: an allowed name answered with the host's own addresses pins none of them and
   loses them from the answer, unless the operator allowed it.  */
static int
test_special_answers (void)
{
  static const char *const addrs[]
      = { "127.0.0.1",         "192.0.2.9", "169.254.169.254", "::1",
          "::ffff:127.0.0.53", "fe80::1",   "fd00:ec2::254",   "::ffff:169.254.169.254" };
  struct netpolicy p = policy ("*.example.com:80");
  struct dns_pins *t = dns_pins_new (0, 0);
  struct dns_result r;
  struct dns_verdict v;

  result_of (&r, 60, addrs, ARRAY_SIZE (addrs));
  CHECK (dns_pins_add_result (t, &p, "x.example.com", &r, 0) == 7);
  CHECK (r.n_addrs == 1 && r.addrs[0].family == AF_INET && r.addrs[0].addr[3] == 9);
  CHECK (dns_pins_count (t) == 1);
  CHECK (decide (t, &p, "192.0.2.9", 80, NULL, 1).allowed);
  CHECK (!decide (t, &p, "127.0.0.1", 80, NULL, 1).allowed);
  /* Pinned some other way, still refused at connect.  */
  CHECK (pin (t, "x.example.com", "127.0.0.1", 60, 0));
  v = decide (t, &p, "127.0.0.1", 80, NULL, 1);
  CHECK (!v.allowed && v.why == DNS_DENY_SPECIAL);
  p.special_ok = true;
  CHECK (decide (t, &p, "127.0.0.1", 80, NULL, 1).allowed);
  result_of (&r, 60, addrs, ARRAY_SIZE (addrs));
  /* The operator's loopback, never a metadata service's address (DNS rebinding): the answer
     keeps the first, and a pin of the other made some other way is refused at connect.  */
  CHECK (dns_pins_add_result (t, &p, "y.example.com", &r, 0) == 4 && r.n_addrs == 4);
  CHECK (decide (t, &p, "::1", 80, NULL, 1).allowed);
  CHECK (decide (t, &p, "::ffff:127.0.0.53", 80, NULL, 1).allowed);
  CHECK (pin (t, "y.example.com", "169.254.169.254", 60, 0));
  v = decide (t, &p, "169.254.169.254", 80, NULL, 1);
  CHECK (!v.allowed && v.why == DNS_DENY_SPECIAL);
  CHECK (!decide (t, &p, "fd00:ec2::254", 80, NULL, 1).allowed);
  CHECK (!decide (t, &p, "fe80::1", 80, NULL, 1).allowed);
  /* A name that is no host name pins nothing.  */
  result_of (&r, 60, addrs + 1, 1);
  CHECK (dns_pins_add_result (t, &p, "a b", &r, 0) == 1 && r.n_addrs == 0);
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

/* The answer's TTL (the least along its chain) counts, capped at a day; a pin is kept to the
   later of two answers.  */
static int
test_ttls (void)
{
  static const char *const one[] = { "192.0.2.1" };
  struct netpolicy p = policy ("a.com:80");
  struct dns_pins *t = dns_pins_new (0, 10);
  struct dns_result r;

  result_of (&r, 100, one, 1);
  r.addrs[0].ttl = 5000;
  CHECK (dns_pins_add_result (t, &p, "a.com", &r, 0) == 0);
  CHECK (decide (t, &p, "192.0.2.1", 80, NULL, 109).allowed);
  CHECK (!decide (t, &p, "192.0.2.1", 80, NULL, 110).allowed);
  CHECK (pin (t, "a.com", "192.0.2.1", 500, 50)); /* until 560 */
  CHECK (pin (t, "a.com", "192.0.2.1", 10, 60));  /* not shortened */
  CHECK (decide (t, &p, "192.0.2.1", 80, NULL, 559).allowed);
  CHECK (!decide (t, &p, "192.0.2.1", 80, NULL, 560).allowed);
  CHECK (pin (t, "a.com", "192.0.2.2", UINT32_MAX, 0));
  CHECK (decide (t, &p, "192.0.2.2", 80, NULL, 86409).allowed);
  CHECK (!decide (t, &p, "192.0.2.2", 80, NULL, 86410).allowed);
  CHECK (!pin (t, "", "192.0.2.3", 1, 0) && !pin (t, "1.2.3.4", "192.0.2.3", 1, 0));
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

static int
test_expire (void)
{
  struct netpolicy p = policy ("a.com:80");
  struct dns_pins *t = dns_pins_new (0, 0);
  struct dns_verdict v;

  CHECK (pin (t, "a.com", "192.0.2.1", 10, 0));
  CHECK (pin (t, "a.com", "192.0.2.2", 100, 0));
  dns_pins_expire (t, 10); /* expired at 10, not before it */
  CHECK (dns_pins_count (t) == 2);
  v = decide (t, &p, "192.0.2.1", 80, NULL, 20);
  CHECK (v.why == DNS_DENY_EXPIRED);
  dns_pins_expire (t, 11);
  CHECK (dns_pins_count (t) == 1);
  v = decide (t, &p, "192.0.2.1", 80, NULL, 20);
  CHECK (v.why == DNS_DENY_UNKNOWN);
  CHECK (decide (t, &p, "192.0.2.2", 80, NULL, 20).allowed);
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

/* At the bound, an expired pin goes first, then the least recently used (a connect uses it).  */
static int
test_bound (void)
{
  struct netpolicy p = policy ("*.a.com:80");
  struct dns_pins *t = dns_pins_new (4, 0);

  CHECK (pin (t, "h1.a.com", "192.0.2.1", 100, 0));
  CHECK (pin (t, "h2.a.com", "192.0.2.2", 100, 0));
  CHECK (pin (t, "h3.a.com", "192.0.2.3", 5, 0));
  CHECK (pin (t, "h4.a.com", "192.0.2.4", 100, 0));
  CHECK (decide (t, &p, "192.0.2.1", 80, NULL, 1).allowed);
  CHECK (pin (t, "h5.a.com", "192.0.2.5", 100, 10)); /* h3 has expired: it goes */
  CHECK (dns_pins_count (t) == 4);
  CHECK (decide (t, &p, "192.0.2.3", 80, NULL, 11).why == DNS_DENY_UNKNOWN);
  CHECK (pin (t, "h6.a.com", "192.0.2.6", 100, 12)); /* h2: least recently used */
  CHECK (decide (t, &p, "192.0.2.2", 80, NULL, 13).why == DNS_DENY_UNKNOWN);
  CHECK (decide (t, &p, "192.0.2.1", 80, NULL, 13).allowed);
  CHECK (decide (t, &p, "192.0.2.4", 80, NULL, 13).allowed);
  CHECK (decide (t, &p, "192.0.2.5", 80, NULL, 13).allowed);
  CHECK (decide (t, &p, "192.0.2.6", 80, NULL, 13).allowed);
  /* Many rounds through a small table stay within it.  */
  for (int i = 0; i < 1000; i++)
    {
      char name[32];
      snprintf (name, sizeof name, "r%d.a.com", i);
      CHECK (pin (t, name, i % 2 ? "192.0.2.7" : "2001:db8::7", 100, 20));
    }
  CHECK (dns_pins_count (t) == 4);
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

/* One address keeps its DNS_PINS_PER_ADDR most recent names; dns_pins_names lists them newest
   first.  */
static int
test_names_per_address (void)
{
  struct netpolicy p = policy ("*.cdn.com:443");
  struct dns_pins *t = dns_pins_new (0, 0);
  char names[8][NETPOLICY_NAME_MAX + 1], name[32];
  int family;
  const uint8_t *a = ip ("192.0.2.1", &family);

  for (int i = 0; i < 40; i++)
    {
      snprintf (name, sizeof name, "n%d.cdn.com", i);
      CHECK (pin (t, name, "192.0.2.1", 100, 0));
    }
  CHECK (dns_pins_count (t) == DNS_PINS_PER_ADDR);
  CHECK (dns_pins_names (t, family, a, 1, names, 8) == 8);
  CHECK_STR (names[0], "n39.cdn.com");
  CHECK_STR (names[7], "n32.cdn.com");
  CHECK (pin (t, "n20.cdn.com", "192.0.2.1", 100, 0)); /* used again: newest */
  CHECK (dns_pins_names (t, family, a, 1, names, 2) == 2);
  CHECK_STR (names[0], "n20.cdn.com");
  CHECK_STR (names[1], "n39.cdn.com");
  CHECK (dns_pins_names (t, family, a, 100, names, 8) == 0); /* all expired */
  CHECK (decide (t, &p, "192.0.2.1", 443, NULL, 1).allowed);
  netpolicy_release (&p);
  dns_pins_free (t);
  return 0;
}

static int
test_reasons (void)
{
  CHECK (dns_deny_errno (DNS_DENY_NONE) == 0);
  CHECK (dns_deny_errno (DNS_DENY_UNKNOWN) == ENETUNREACH);
  CHECK (dns_deny_errno (DNS_DENY_EXPIRED) == ENETUNREACH);
  CHECK (dns_deny_errno (DNS_DENY_SPECIAL) == ENETUNREACH);
  CHECK (dns_deny_errno (DNS_DENY_PORT) == ECONNREFUSED);
  CHECK (dns_deny_errno (DNS_DENY_PROGRAM) == EACCES);
  CHECK_STR (dns_deny_name (DNS_DENY_UNKNOWN), "unknown");
  CHECK_STR (dns_deny_name (DNS_DENY_EXPIRED), "expired");
  CHECK_STR (dns_deny_name (DNS_DENY_SPECIAL), "special");
  CHECK_STR (dns_deny_name (DNS_DENY_PORT), "port");
  CHECK_STR (dns_deny_name (DNS_DENY_PROGRAM), "program");
  return 0;
}

int
main (void)
{
  RUN_TEST (test_decide_by_name);
  RUN_TEST (test_decide_follows_the_list);
  RUN_TEST (test_decide_programs);
  RUN_TEST (test_decide_addresses);
  RUN_TEST (test_shared_address);
  RUN_TEST (test_special_answers);
  RUN_TEST (test_ttls);
  RUN_TEST (test_expire);
  RUN_TEST (test_bound);
  RUN_TEST (test_names_per_address);
  RUN_TEST (test_reasons);
  TAP_END ();
}
