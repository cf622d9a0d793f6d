/* sandbox/netpolicy.c: the egress allowlist by name.  Every kind of entry parsed to its
   canonical text, each malformed entry refused with a message naming the flag and the entry,
   and the matchers (names with wildcards, networks, ports, programs, the order of misses, the
   host's own addresses), and the caller's executable read from /proc.  No root needed.  */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/netpolicy.h"
#include "tap.h"
#include "utils.h"

#define FROM "--net-allow"

static int
parse (const char *list, struct netpolicy *p)
{
  ar_error_t err = NULL;

  if (netpolicy_parse (list, FROM, p, &err) < 0)
    {
      printf ("# parse `%s`: %s\n", list, err->msg);
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static int
test_parse_kinds (void)
{
  struct netpolicy p;

  if (parse ("pypi.org:443, *.githubusercontent.com:443,10.0.0.0/8:80-90,[2001:db8::/32]:*,"
             "192.0.2.7:22@/usr/bin/git,[::ffff:192.0.2.8]:80,Example.COM.:8080@/usr/lib/git-core/,"
             "[::ffff:10.1.0.0/112]:1-65535,0.0.0.0/0:53",
             &p)
      < 0)
    return -1;
  CHECK (p.n == 9 && p.names && !p.special_ok);
  CHECK (p.entries[0].kind == NETPOLICY_NAME);
  CHECK_STR (p.entries[0].text, "pypi.org:443");
  CHECK (p.entries[1].kind == NETPOLICY_WILDCARD);
  CHECK_STR (p.entries[1].name, "githubusercontent.com");
  CHECK_STR (p.entries[1].text, "*.githubusercontent.com:443");
  CHECK (p.entries[2].kind == NETPOLICY_NET && p.entries[2].prefix == 8);
  CHECK (p.entries[2].port_lo == 80 && p.entries[2].port_hi == 90);
  CHECK_STR (p.entries[2].text, "10.0.0.0/8:80-90");
  CHECK_STR (p.entries[3].text, "[2001:db8::/32]:*");
  CHECK (p.entries[3].port_lo == 1 && p.entries[3].port_hi == 65535);
  CHECK_STR (p.entries[4].text, "192.0.2.7:22@/usr/bin/git");
  CHECK_STR (p.entries[4].program, "/usr/bin/git");
  /* A v4-mapped address is its IPv4 one, and so is a v4-mapped network.  */
  CHECK (p.entries[5].family == AF_INET && p.entries[5].prefix == 32);
  CHECK_STR (p.entries[5].text, "192.0.2.8:80");
  CHECK_STR (p.entries[6].text, "example.com:8080@/usr/lib/git-core/");
  CHECK_STR (p.entries[7].text, "10.1.0.0/16:*");
  CHECK_STR (p.entries[8].text, "0.0.0.0/0:53");
  netpolicy_release (&p);
  CHECK (parse ("192.0.2.1:80,[::1]:80", &p) == 0 && !p.names);
  netpolicy_release (&p);
  return 0;
}

static const struct
{
  const char *list;
  const char *says; /* in the message, besides the flag and the entry */
} bad_lists[] = {
  { "", "empty" },
  { "  ", "empty" },
  { "a.com:443,,b.com:443", "empty entry" },
  { "a.com:443,", "empty entry" },
  { "pypi.org", "the port is required" },
  { "pypi.org:", "the port must be" },
  { "pypi.org:0", "the port must be" },
  { "pypi.org:65536", "the port must be" },
  { "pypi.org:+80", "the port must be" },
  { "pypi.org: 80", "the port must be" },
  { "pypi.org:80-70", "the port must be" },
  { "pypi.org:80-", "the port must be" },
  { "pypi.org:*-90", "the port must be" },
  { "pypi.org:http", "the port must be" },
  { ":443", "the host is empty" },
  { "2001:db8::1:443", "brackets" },
  { "[2001:db8::1]443", "expected [IPv6]:PORT" },
  { "[2001:db8::1:443", "expected [IPv6]:PORT" },
  { "[pypi.org]:443", "not an IPv6 address" },
  { "[192.0.2.1]:443", "not an IPv6 address" },
  { "*.:443", "not an address or a host name" },
  { "*:443", "every name" },
  { "foo.*.com:443", "whole first label" },
  { "*foo.com:443", "whole first label" },
  { "*.*.foo.com:443", "whole first label" },
  { "10.0.0.1/8:443", "bits set past /8" },
  { "10.0.0.0/33:443", "prefix length must be 0 to 32" },
  { "10.0.0.0/:443", "prefix length" },
  { "10.0.0.0/08a:443", "prefix length" },
  { "[2001:db8::/129]:443", "prefix length must be 0 to 128" },
  { "[2001:db8::1/32]:443", "bits set past /32" },
  { "pypi.org/24:443", "not an IPv4 address" },
  { "1.2.3.400:443", "not an address or a host name" },
  { "exa mple.com:443", "not an address or a host name" },
  { "b\xc3\xbc"
    "cher.de:443",
    "xn--" },
  { "a..b:443", "not an address or a host name" },
  { ".a.b:443", "not an address or a host name" },
  { "pypi.org:443@usr/bin/git", "absolute path" },
  { "pypi.org:443@/usr/../bin/git", "absolute path" },
  { "pypi.org:443@/usr/./bin/git", "absolute path" },
  { "pypi.org:443@/usr//bin/git", "absolute path" },
  { "pypi.org:443@", "absolute path" },
  { "pypi.org:443@/", "absolute path" },
  { "pypi.org:443@/usr/bin/\tgit", "absolute path" },
};

static int
test_parse_errors (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (bad_lists); i++)
    {
      struct netpolicy p;
      ar_error_t err = NULL;

      if (netpolicy_parse (bad_lists[i].list, FROM, &p, &err) == 0)
        TAP_FAIL ("`%s` parsed", bad_lists[i].list);
      CHECK (err->status == EINVAL);
      if (strstr (err->msg, FROM ": ") != err->msg || strstr (err->msg, bad_lists[i].says) == NULL)
        TAP_FAIL ("`%s`: %s", bad_lists[i].list, err->msg);
      /* The entry itself is named (only the empty list has none).  */
      if (bad_lists[i].list[0] && strchr (bad_lists[i].list, ',') == NULL
          && strstr (err->msg, bad_lists[i].list) == NULL
          && strchr (bad_lists[i].list, ' ') == NULL)
        TAP_FAIL ("`%s` not named: %s", bad_lists[i].list, err->msg);
      CHECK (p.n == 0 && p.entries == NULL);
      ar_error_release (&err);
    }
  return 0;
}

/* Labels of 63 bytes pass, 64 do not; names of 253 pass, 254 do not.  */
static int
test_parse_name_lengths (void)
{
  char label[70], name[300], list[400];
  struct netpolicy p;
  ar_error_t err = NULL;

  memset (label, 'a', 63);
  label[63] = '\0';
  snprintf (list, sizeof list, "%s.com:443", label);
  CHECK (parse (list, &p) == 0);
  netpolicy_release (&p);
  snprintf (list, sizeof list, "%sa.com:443", label);
  CHECK (netpolicy_parse (list, FROM, &p, &err) < 0);
  ar_error_release (&err);
  /* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253.  */
  snprintf (name, sizeof name, "%s.%s.%s.%.61s", label, label, label, label);
  CHECK (strlen (name) == 253);
  snprintf (list, sizeof list, "%s:443", name);
  CHECK (parse (list, &p) == 0);
  netpolicy_release (&p);
  snprintf (list, sizeof list, "%s.:443", name); /* the trailing dot does not count */
  CHECK (parse (list, &p) == 0);
  netpolicy_release (&p);
  snprintf (list, sizeof list, "%sb:443", name);
  CHECK (netpolicy_parse (list, FROM, &p, &err) < 0);
  ar_error_release (&err);
  return 0;
}

static int
test_parse_entries_max (void)
{
  size_t cap = (NETPOLICY_ENTRIES_MAX + 1) * 16;
  cleanup_free char *list = xmalloc (cap);
  struct netpolicy p;
  ar_error_t err = NULL;
  size_t len = 0;

  for (int i = 0; i < NETPOLICY_ENTRIES_MAX; i++)
    len += (size_t) snprintf (list + len, cap - len, "%s10.0.%d.%d:80", i ? "," : "", i / 256,
                              i % 256);
  CHECK (parse (list, &p) == 0 && p.n == NETPOLICY_ENTRIES_MAX);
  netpolicy_release (&p);
  snprintf (list + len, cap - len, ",10.9.9.9:80");
  CHECK (netpolicy_parse (list, FROM, &p, &err) < 0);
  CHECK (err->status == E2BIG && strstr (err->msg, "more than 1024 entries"));
  ar_error_release (&err);
  return 0;
}

static int
test_name_matches (void)
{
  struct netpolicy p;
  const struct netpolicy_entry *exact, *wild;

  CHECK (parse ("PyPI.org:443,*.Example.com:443", &p) == 0);
  exact = &p.entries[0];
  wild = &p.entries[1];
  CHECK (netpolicy_name_matches (exact, "pypi.org"));
  CHECK (netpolicy_name_matches (exact, "PYPI.ORG."));
  CHECK (!netpolicy_name_matches (exact, "files.pypi.org"));
  CHECK (!netpolicy_name_matches (exact, "pypi.org.evil"));
  CHECK (!netpolicy_name_matches (exact, "pypi.org.."));
  /* Any depth below, never the name itself nor a name that merely ends the same.  */
  CHECK (netpolicy_name_matches (wild, "a.example.com"));
  CHECK (netpolicy_name_matches (wild, "A.B.C.example.COM."));
  CHECK (!netpolicy_name_matches (wild, "example.com"));
  CHECK (!netpolicy_name_matches (wild, "badexample.com"));
  CHECK (!netpolicy_name_matches (wild, "example.com.evil"));
  CHECK (!netpolicy_name_matches (wild, ".example.com"));
  CHECK (!netpolicy_name_matches (wild, "a\x01.example.com"));
  CHECK (netpolicy_match_name (&p, "x.example.com") == wild);
  CHECK (netpolicy_match_name (&p, "pypi.org") == exact);
  CHECK (netpolicy_match_name (&p, "example.com") == NULL);
  CHECK (netpolicy_match_name (&p, "") == NULL);
  netpolicy_release (&p);
  return 0;
}

static int
check_net (const struct netpolicy_entry *e, int family, const char *text, bool expect)
{
  uint8_t a[16];

  if (inet_pton (family, text, a) != 1)
    TAP_FAIL ("bad test address %s", text);
  if (netpolicy_net_matches (e, family, a) != expect)
    TAP_FAIL ("%s against %s: expected %d", text, e->text, expect);
  return 0;
}

static int
test_net_matches (void)
{
  struct netpolicy p;

  CHECK (parse ("10.0.0.0/8:80,192.168.128.0/17:80,0.0.0.0/0:80,[2001:db8::/33]:80,"
                "192.0.2.7:80,pypi.org:80",
                &p)
         == 0);
  CHECK (check_net (&p.entries[0], AF_INET, "10.255.1.2", true) == 0);
  CHECK (check_net (&p.entries[0], AF_INET, "11.0.0.1", false) == 0);
  CHECK (check_net (&p.entries[0], AF_INET6, "::ffff:10.1.1.1", true) == 0);
  CHECK (check_net (&p.entries[0], AF_INET6, "2001:db8::10.1.1.1", false) == 0);
  CHECK (check_net (&p.entries[1], AF_INET, "192.168.128.1", true) == 0);
  CHECK (check_net (&p.entries[1], AF_INET, "192.168.255.255", true) == 0);
  CHECK (check_net (&p.entries[1], AF_INET, "192.168.127.255", false) == 0);
  CHECK (check_net (&p.entries[2], AF_INET, "203.0.113.9", true) == 0);
  CHECK (check_net (&p.entries[2], AF_INET6, "2001:db8::1", false) == 0);
  CHECK (check_net (&p.entries[3], AF_INET6, "2001:db8:7fff::1", true) == 0);
  CHECK (check_net (&p.entries[3], AF_INET6, "2001:db8:8000::1", false) == 0);
  CHECK (check_net (&p.entries[4], AF_INET, "192.0.2.7", true) == 0);
  CHECK (check_net (&p.entries[4], AF_INET, "192.0.2.6", false) == 0);
  CHECK (!netpolicy_net_matches (&p.entries[5], AF_INET, (const uint8_t *) "\xc0\x00\x02\x07"));
  netpolicy_release (&p);
  return 0;
}

static int
test_ports_and_programs (void)
{
  struct netpolicy p;
  const struct netpolicy_entry *e;

  CHECK (parse ("a.com:8000-8100@/usr/bin/git,b.com:*@/usr/lib/git-core/,c.com:443", &p) == 0);
  e = &p.entries[0];
  CHECK (!netpolicy_port_matches (e, 7999) && netpolicy_port_matches (e, 8000));
  CHECK (netpolicy_port_matches (e, 8100) && !netpolicy_port_matches (e, 8101));
  CHECK (netpolicy_program_matches (e, "/usr/bin/git"));
  CHECK (!netpolicy_program_matches (e, "/usr/bin/git2"));
  CHECK (!netpolicy_program_matches (e, "/usr/bin/git (deleted)"));
  CHECK (!netpolicy_program_matches (e, NULL));
  e = &p.entries[1];
  CHECK (netpolicy_port_matches (e, 1) && netpolicy_port_matches (e, 65535));
  CHECK (netpolicy_program_matches (e, "/usr/lib/git-core/git-remote-https"));
  CHECK (!netpolicy_program_matches (e, "/usr/lib/git-core/"));
  CHECK (!netpolicy_program_matches (e, "/usr/lib/git-corex/x"));
  e = &p.entries[2];
  CHECK (netpolicy_program_matches (e, NULL) && netpolicy_program_matches (e, "/bin/sh"));
  netpolicy_release (&p);
  return 0;
}

/* A miss says how near it came: the destination, then the port, then the program.  */
static int
test_entry_check (void)
{
  struct netpolicy p;
  const struct netpolicy_entry *n, *net;
  const uint8_t a[4] = { 192, 0, 2, 7 }, b[4] = { 192, 0, 2, 8 };

  CHECK (parse ("pypi.org:443@/usr/bin/pip,192.0.2.7:22", &p) == 0);
  n = &p.entries[0];
  net = &p.entries[1];
  CHECK (netpolicy_entry_check (n, "pypi.org", AF_INET, a, 443, "/usr/bin/pip") == NETPOLICY_HIT);
  CHECK (netpolicy_entry_check (n, "pypi.org", AF_INET, a, 443, "/bin/sh")
         == NETPOLICY_MISS_PROGRAM);
  CHECK (netpolicy_entry_check (n, "pypi.org", AF_INET, a, 80, "/usr/bin/pip")
         == NETPOLICY_MISS_PORT);
  CHECK (netpolicy_entry_check (n, "other.org", AF_INET, a, 443, "/usr/bin/pip")
         == NETPOLICY_MISS_DEST);
  CHECK (netpolicy_entry_check (n, NULL, AF_INET, a, 443, "/usr/bin/pip") == NETPOLICY_MISS_DEST);
  CHECK (netpolicy_entry_check (net, NULL, AF_INET, a, 22, NULL) == NETPOLICY_HIT);
  CHECK (netpolicy_entry_check (net, "pypi.org", AF_INET, a, 22, NULL) == NETPOLICY_HIT);
  CHECK (netpolicy_entry_check (net, NULL, AF_INET, a, 23, NULL) == NETPOLICY_MISS_PORT);
  CHECK (netpolicy_entry_check (net, NULL, AF_INET, b, 22, NULL) == NETPOLICY_MISS_DEST);
  netpolicy_release (&p);
  return 0;
}

static bool
special (int family, const char *text)
{
  uint8_t a[16];

  if (inet_pton (family, text, a) != 1)
    abort ();
  return netpolicy_address_special (family, a);
}

static bool
forbidden (int family, const char *text)
{
  uint8_t a[16];

  if (inet_pton (family, text, a) != 1)
    abort ();
  return netpolicy_answer_forbidden (family, a);
}

/* What no name's answer may pin, even when the operator lets names be the host's loopback.  */
static int
test_answer_forbidden (void)
{
  CHECK (forbidden (AF_INET, "169.254.169.254") && forbidden (AF_INET, "0.0.0.0"));
  CHECK (forbidden (AF_INET, "224.0.0.1") && forbidden (AF_INET, "255.255.255.255"));
  CHECK (forbidden (AF_INET6, "fe80::1") && forbidden (AF_INET6, "fd00:ec2::254"));
  CHECK (forbidden (AF_INET6, "::") && forbidden (AF_INET6, "ff02::1"));
  CHECK (forbidden (AF_INET6, "::ffff:169.254.169.254"));
  CHECK (!forbidden (AF_INET, "127.0.0.1") && !forbidden (AF_INET6, "::1"));
  CHECK (!forbidden (AF_INET6, "::ffff:127.0.0.53") && !forbidden (AF_INET, "8.8.8.8"));
  /* The clouds' services outside link-local (netpolicy_address_metadata): AWS's IPv6 DNS too.  */
  CHECK (forbidden (AF_INET6, "fd00:ec2::253") && forbidden (AF_INET, "100.100.100.200"));
  CHECK (forbidden (AF_INET, "168.63.129.16") && forbidden (AF_INET6, "::ffff:100.100.100.200"));
  CHECK (!forbidden (AF_INET6, "fd00:ec2::252") && !forbidden (AF_INET, "169.253.1.1"));
  return 0;
}

static int
test_special (void)
{
  struct netpolicy p;
  static const char *const host[] = { "127.0.0.1:80",
                                      "0.0.0.0/0:443",
                                      "169.254.169.254:80",
                                      "[::1]:80",
                                      "[fe80::/10]:80",
                                      "128.0.0.0/1:80",
                                      "[::/0]:80",
                                      "0.0.0.0:80",
                                      "[::ffff:127.0.0.2]:80",
                                      "100.100.100.200:80",
                                      "[fd00:ec2::254]:443",
                                      "100.64.0.0/10:80",
                                      "[::ffff:168.63.129.16]:80" };
  static const char *const fine[] = { "8.8.8.8:53", "10.0.0.0/8:80", "[2001:db8::/32]:80",
                                      "223.255.255.0/24:80", "pypi.org:443" };

  CHECK (special (AF_INET, "127.0.0.53") && special (AF_INET, "0.1.2.3"));
  CHECK (special (AF_INET, "169.254.169.254") && special (AF_INET, "224.0.0.1"));
  CHECK (special (AF_INET, "255.255.255.255") && special (AF_INET6, "::"));
  CHECK (special (AF_INET6, "::1") && special (AF_INET6, "fe80::1")
         && special (AF_INET6, "ff02::1"));
  CHECK (special (AF_INET6, "::ffff:127.0.0.1") && special (AF_INET6, "::ffff:169.254.1.1"));
  CHECK (special (AF_INET, "100.100.100.200") && special (AF_INET, "168.63.129.16"));
  CHECK (special (AF_INET6, "fd00:ec2::254") && special (AF_INET6, "fd00:ec2::253"));
  CHECK (special (AF_INET6, "::ffff:100.100.100.200"));
  CHECK (!special (AF_INET, "100.100.100.201") && !special (AF_INET6, "fd00:ec2::1"));
  CHECK (!special (AF_INET, "8.8.8.8") && !special (AF_INET, "10.0.0.1"));
  CHECK (!special (AF_INET, "169.253.1.1") && !special (AF_INET, "223.255.255.255"));
  CHECK (!special (AF_INET6, "2001:db8::1") && !special (AF_INET6, "fec0::1"));
  for (size_t i = 0; i < ARRAY_SIZE (host); i++)
    {
      CHECK (parse (host[i], &p) == 0);
      if (netpolicy_first_special (&p) != &p.entries[0])
        TAP_FAIL ("%s not seen as the host's", host[i]);
      netpolicy_release (&p);
    }
  for (size_t i = 0; i < ARRAY_SIZE (fine); i++)
    {
      CHECK (parse (fine[i], &p) == 0);
      if (netpolicy_first_special (&p) != NULL)
        TAP_FAIL ("%s seen as the host's", fine[i]);
      netpolicy_release (&p);
    }
  return 0;
}

static int
test_caller_exe (void)
{
  char self[PATH_MAX], got[PATH_MAX], tiny[4];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);

  CHECK (n > 0);
  self[n] = '\0';
  CHECK (netpolicy_caller_exe (gettid (), got, sizeof got) == 0);
  CHECK_STR (got, self);
  CHECK (netpolicy_caller_exe (gettid (), tiny, sizeof tiny) == -ENAMETOOLONG);
  CHECK (netpolicy_caller_exe (0x3fffffff, got, sizeof got) == -ENOENT);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_parse_kinds);
  RUN_TEST (test_parse_errors);
  RUN_TEST (test_parse_name_lengths);
  RUN_TEST (test_parse_entries_max);
  RUN_TEST (test_name_matches);
  RUN_TEST (test_net_matches);
  RUN_TEST (test_ports_and_programs);
  RUN_TEST (test_entry_check);
  RUN_TEST (test_special);
  RUN_TEST (test_answer_forbidden);
  RUN_TEST (test_caller_exe);
  TAP_END ();
}
