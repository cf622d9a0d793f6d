/* The egress allowlist by name: parsing (strict, each error naming the entry) and matching
   (netpolicy.h says the grammar).  It never resolves a name: what a name's addresses are is
   the sandbox's resolver's to say, at the time of the connect (dns/dns_pins.h).  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/netpolicy.h"
#include "utils.h"

/* An entry quoted in an error is cut here: the message stays one readable line.  */
#define ENTRY_QUOTE_MAX 200

static int __attribute__ ((format (printf, 4, 5)))
entry_error (ar_error_t *err, const char *from, const char *entry, const char *fmt, ...)
{
  cleanup_free char *why = NULL;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&why, fmt, ap) < 0)
    ar_oom ();
  va_end (ap);
  return ar_make_error (err, EINVAL, "%s: `%.*s%s`: %s", from, ENTRY_QUOTE_MAX, entry,
                        strlen (entry) > ENTRY_QUOTE_MAX ? "…" : "", why);
}

static char
ascii_lower (char c)
{
  return c >= 'A' && c <= 'Z' ? (char) (c - 'A' + 'a') : c;
}

static bool
name_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
         || c == '_';
}

bool
netpolicy_name_normalize (const char *name, char *out)
{
  size_t n = strlen (name), label = 0;
  bool digits = true;

  if (n > 0 && name[n - 1] == '.')
    n--;
  if (n == 0 || n > NETPOLICY_NAME_MAX)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      if (name[i] == '.')
        {
          if (label == 0)
            return false;
          label = 0;
          digits = true;
        }
      else if (!name_char (name[i]) || ++label > 63)
        return false;
      else if (name[i] < '0' || name[i] > '9')
        digits = false;
      out[i] = ascii_lower (name[i]);
    }
  out[n] = '\0';
  /* A last label of digits only is no host name: "1.2.3.400" is a mistyped address.  */
  return label > 0 && !digits;
}

/* A port: 1 to 5 digits, 1-65535; nothing else (no sign, no space).  */
static bool
parse_port (const char *s, size_t n, uint16_t *out)
{
  unsigned v = 0;

  if (n == 0 || n > 5)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return false;
      v = v * 10 + (unsigned) (s[i] - '0');
    }
  if (v < 1 || v > 65535)
    return false;
  *out = (uint16_t) v;
  return true;
}

static int
parse_ports (struct netpolicy_entry *e, const char *s, const char *from, const char *entry,
             ar_error_t *err)
{
  const char *dash = strchr (s, '-');

  if (strcmp (s, "*") == 0)
    {
      e->port_lo = 1;
      e->port_hi = 65535;
      return 0;
    }
  if (dash == NULL && parse_port (s, strlen (s), &e->port_lo))
    {
      e->port_hi = e->port_lo;
      return 0;
    }
  if (dash && parse_port (s, (size_t) (dash - s), &e->port_lo)
      && parse_port (dash + 1, strlen (dash + 1), &e->port_hi) && e->port_lo <= e->port_hi)
    return 0;
  return entry_error (err, from, entry,
                      "the port must be 1 to 65535, a range LOW-HIGH of them, or `*` (any)");
}

/* An absolute path with no empty, `.` or `..` component (a trailing slash: a directory).  */
static bool
valid_program (const char *p)
{
  size_t n = strlen (p);

  if (n < 2 || n > NETPOLICY_PROGRAM_MAX || p[0] != '/')
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char) p[i] < 0x20 || p[i] == 0x7f)
      return false;
  for (const char *c = p + 1; *c;)
    {
      size_t len = strcspn (c, "/");
      if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
        return false;
      c += len;
      if (*c == '/')
        c++;
    }
  return true;
}

/* A prefix length: 1 to 3 digits, at most `bits`.  */
static bool
parse_prefix (const char *s, unsigned bits, unsigned *out)
{
  size_t n = strlen (s);
  unsigned v = 0;

  if (n == 0 || n > 3)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return false;
      v = v * 10 + (unsigned) (s[i] - '0');
    }
  if (v > bits)
    return false;
  *out = v;
  return true;
}

/* The host bits of addr/prefix are zero.  */
static bool
host_bits_zero (const uint8_t *addr, unsigned bytes, unsigned prefix)
{
  for (unsigned bit = prefix; bit < bytes * 8; bit++)
    if (addr[bit / 8] & (0x80 >> (bit % 8)))
      return false;
  return true;
}

/* "ADDR" or "ADDR/LEN" of `family`.  */
static int
parse_net (struct netpolicy_entry *e, int family, char *host, const char *from, const char *entry,
           ar_error_t *err)
{
  unsigned bits = family == AF_INET ? 32 : 128;
  char *slash = strchr (host, '/');
  unsigned len = bits;

  if (slash)
    {
      *slash = '\0';
      if (!parse_prefix (slash + 1, bits, &len))
        return entry_error (err, from, entry, "the prefix length must be 0 to %u", bits);
    }
  if (inet_pton (family, host, e->addr) != 1)
    return entry_error (err, from, entry, "`%s` is not an %s address", host,
                        family == AF_INET ? "IPv4" : "IPv6");
  if (!host_bits_zero (e->addr, bits / 8, len))
    return entry_error (err, from, entry, "the address has bits set past /%u", len);
  e->kind = NETPOLICY_NET;
  e->family = family;
  e->prefix = len;
  /* A v4-mapped network is the IPv4 one: connects to either form then match.  */
  if (family == AF_INET6 && len >= 96 && IN6_IS_ADDR_V4MAPPED ((struct in6_addr *) e->addr))
    {
      memmove (e->addr, e->addr + 12, 4);
      memset (e->addr + 4, 0, 12);
      e->family = AF_INET;
      e->prefix = len - 96;
    }
  return 0;
}

static int
parse_name (struct netpolicy_entry *e, const char *host, const char *from, const char *entry,
            ar_error_t *err)
{
  char norm[NETPOLICY_NAME_MAX + 1];
  bool wild = strncmp (host, "*.", 2) == 0;

  if (strcmp (host, "*") == 0)
    return entry_error (err, from, entry,
                        "`*` alone (every name) is no entry: name a domain, `*.example.com`");
  if (strchr (wild ? host + 2 : host, '*'))
    return entry_error (err, from, entry, "`*` may only be a whole first label: `*.example.com`");
  if (!netpolicy_name_normalize (wild ? host + 2 : host, norm))
    return entry_error (err, from, entry,
                        "`%s` is not an address or a host name (ASCII letters, digits, `-`, `_`; "
                        "an international name as its xn-- form)",
                        host);
  e->kind = wild ? NETPOLICY_WILDCARD : NETPOLICY_NAME;
  e->name = xstrdup (norm);
  return 0;
}

/* HOST: [v6] or [v6/len], v4 or v4/len, *.name or name.  */
static int
parse_host (struct netpolicy_entry *e, char *host, bool bracketed, const char *from,
            const char *entry, ar_error_t *err)
{
  uint8_t probe[4];
  char *slash = strchr (host, '/');

  if (bracketed)
    return parse_net (e, AF_INET6, host, from, entry, err);
  if (slash)
    *slash = '\0';
  if (inet_pton (AF_INET, host, probe) == 1)
    {
      if (slash)
        *slash = '/';
      return parse_net (e, AF_INET, host, from, entry, err);
    }
  if (slash)
    return entry_error (err, from, entry, "`%s` is not an IPv4 address (a network is ADDR/LEN)",
                        host);
  return parse_name (e, host, from, entry, err);
}

/* DEST = HOST ":" PORTS, with HOST bracketed when it is IPv6.  */
static int
parse_dest (struct netpolicy_entry *e, const char *dest, const char *from, const char *entry,
            ar_error_t *err)
{
  cleanup_free char *host = NULL;
  const char *colon;
  bool bracketed = dest[0] == '[';

  if (bracketed)
    {
      const char *close = strchr (dest, ']');
      if (close == NULL || close[1] != ':')
        return entry_error (err, from, entry, "expected [IPv6]:PORT");
      host = xstrndup (dest + 1, (size_t) (close - dest - 1));
      colon = close + 1;
    }
  else
    {
      colon = strrchr (dest, ':');
      if (colon == NULL)
        return entry_error (err, from, entry, "expected HOST:PORT (the port is required)");
      host = xstrndup (dest, (size_t) (colon - dest));
      if (strchr (host, ':'))
        return entry_error (err, from, entry,
                            "an IPv6 address is written in brackets: [ADDR]:PORT");
    }
  if (host[0] == '\0')
    return entry_error (err, from, entry, "the host is empty");
  if (parse_ports (e, colon + 1, from, entry, err) < 0)
    return -1;
  return parse_host (e, host, bracketed, from, entry, err);
}

static char *
host_text (const struct netpolicy_entry *e)
{
  char addr[INET6_ADDRSTRLEN] = "?";
  unsigned bits = e->family == AF_INET ? 32 : 128;
  char prefix[8] = "";

  if (e->kind == NETPOLICY_NAME)
    return xstrdup (e->name);
  if (e->kind == NETPOLICY_WILDCARD)
    return xasprintf ("*.%s", e->name);
  inet_ntop (e->family, e->addr, addr, sizeof addr);
  if (e->prefix != bits)
    snprintf (prefix, sizeof prefix, "/%u", e->prefix);
  if (e->family == AF_INET6)
    return xasprintf ("[%s%s]", addr, prefix);
  return xasprintf ("%s%s", addr, prefix);
}

static char *
entry_text (const struct netpolicy_entry *e)
{
  cleanup_free char *host = host_text (e);
  char ports[16];

  if (e->port_lo == 1 && e->port_hi == 65535)
    snprintf (ports, sizeof ports, "*");
  else if (e->port_lo == e->port_hi)
    snprintf (ports, sizeof ports, "%u", (unsigned) e->port_lo);
  else
    snprintf (ports, sizeof ports, "%u-%u", (unsigned) e->port_lo, (unsigned) e->port_hi);
  return xasprintf ("%s:%s%s%s", host, ports, e->program ? "@" : "", e->program ? e->program : "");
}

static void
entry_release (struct netpolicy_entry *e)
{
  free (e->name);
  free (e->program);
  free (e->text);
  memset (e, 0, sizeof *e);
}

/* One entry, already trimmed: DEST [ "@" PROGRAM ].  */
static int
parse_entry (struct netpolicy_entry *e, const char *entry, const char *from, ar_error_t *err)
{
  cleanup_free char *dest = NULL;
  const char *at = strchr (entry, '@');

  memset (e, 0, sizeof *e);
  if (at && !valid_program (at + 1))
    return entry_error (err, from, entry,
                        "the program must be an absolute path without `.`, `..` or empty "
                        "components (a trailing `/` for a directory), at most %d bytes",
                        NETPOLICY_PROGRAM_MAX);
  dest = at ? xstrndup (entry, (size_t) (at - entry)) : xstrdup (entry);
  if (parse_dest (e, dest, from, entry, err) < 0)
    {
      entry_release (e);
      return -1;
    }
  e->program = at ? xstrdup (at + 1) : NULL;
  e->text = entry_text (e);
  return 0;
}

static char *
trim (char *s)
{
  char *end = s + strlen (s);

  while (*s == ' ' || *s == '\t')
    s++;
  while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    *--end = '\0';
  return s;
}

static int
add_entry (struct netpolicy *p, char *item, const char *from, ar_error_t *err)
{
  const char *entry = trim (item);
  struct netpolicy_entry e;

  if (entry[0] == '\0')
    return ar_make_error (err, EINVAL, "%s: an empty entry (two commas, or one at an end)", from);
  if (p->n == NETPOLICY_ENTRIES_MAX)
    return ar_make_error (err, E2BIG, "%s: more than %d entries", from, NETPOLICY_ENTRIES_MAX);
  if (parse_entry (&e, entry, from, err) < 0)
    return -1;
  p->entries = xrealloc (p->entries, (p->n + 1) * sizeof *p->entries);
  p->entries[p->n++] = e;
  if (e.kind != NETPOLICY_NET)
    p->names = true;
  return 0;
}

int
netpolicy_parse (const char *list, const char *from, struct netpolicy *out, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (list);
  char *item = copy;

  memset (out, 0, sizeof *out);
  if (trim (copy)[0] == '\0')
    return ar_make_error (err, EINVAL,
                          "%s: the list is empty (entries HOST:PORT, *.NAME:PORT, ADDR/LEN:PORT, "
                          "[IPv6]:PORT, separated by commas)",
                          from);
  for (;;)
    {
      char *comma = strchr (item, ',');
      if (comma)
        *comma = '\0';
      if (add_entry (out, item, from, err) < 0)
        {
          netpolicy_release (out);
          return -1;
        }
      if (comma == NULL)
        return 0;
      item = comma + 1;
    }
}

void
netpolicy_release (struct netpolicy *p)
{
  for (size_t i = 0; i < p->n; i++)
    entry_release (&p->entries[i]);
  free (p->entries);
  memset (p, 0, sizeof *p);
}

/* `norm` is normalized (netpolicy_name_normalize).  */
static bool
name_matches_normalized (const struct netpolicy_entry *e, const char *norm)
{
  size_t n, b;

  if (e->kind == NETPOLICY_NAME)
    return strcmp (norm, e->name) == 0;
  if (e->kind != NETPOLICY_WILDCARD)
    return false;
  n = strlen (norm);
  b = strlen (e->name);
  return n > b + 1 && norm[n - b - 1] == '.' && strcmp (norm + n - b, e->name) == 0;
}

bool
netpolicy_name_matches (const struct netpolicy_entry *e, const char *name)
{
  char norm[NETPOLICY_NAME_MAX + 1];

  return netpolicy_name_normalize (name, norm) && name_matches_normalized (e, norm);
}

/* The ranges netpolicy_address_special names, as networks.  */
static const struct
{
  int family;
  uint8_t addr[16];
  unsigned prefix;
} special_nets[] = {
  { AF_INET, { 0 }, 8 },
  { AF_INET, { 127 }, 8 },
  { AF_INET, { 169, 254 }, 16 },
  { AF_INET, { 224 }, 3 },
  { AF_INET6, { 0 }, 128 },
  { AF_INET6, { [15] = 1 }, 128 },
  { AF_INET6, { 0xfe, 0x80 }, 10 },
  { AF_INET6, { 0xff }, 8 },
};

/* Clouds' metadata and host services outside link-local, each one address: Alibaba Cloud's
   metadata (100.100.100.200, in the shared address space 100.64/10), Azure's WireServer
   (168.63.129.16, which hands a VM its configuration), AWS's IPv6 metadata and DNS
   (fd00:ec2::254, fd00:ec2::253, ULA addresses a Nitro instance reaches).  */
static const struct
{
  int family;
  uint8_t addr[16];
} metadata_addrs[] = {
  { AF_INET, { 100, 100, 100, 200 } },
  { AF_INET, { 168, 63, 129, 16 } },
  { AF_INET6, { 0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54 } },
  { AF_INET6, { 0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x53 } },
};

/* Do the first `bits` bits of a and b agree?  */
static bool
prefix_equal (const uint8_t *a, const uint8_t *b, unsigned bits)
{
  unsigned whole = bits / 8, rest = bits % 8;

  if (memcmp (a, b, whole) != 0)
    return false;
  return rest == 0 || ((a[whole] ^ b[whole]) & (0xff00 >> rest)) == 0;
}

/* A v4-mapped v6 address as its IPv4 one.  */
static void
unmap (int *family, const uint8_t **addr)
{
  if (*family == AF_INET6 && IN6_IS_ADDR_V4MAPPED ((const struct in6_addr *) *addr))
    {
      *family = AF_INET;
      *addr += 12;
    }
}

bool
netpolicy_net_matches (const struct netpolicy_entry *e, int family, const uint8_t *addr)
{
  if (e->kind != NETPOLICY_NET || addr == NULL)
    return false;
  unmap (&family, &addr);
  return family == e->family && prefix_equal (addr, e->addr, e->prefix);
}

bool
netpolicy_port_matches (const struct netpolicy_entry *e, uint16_t port)
{
  return port >= e->port_lo && port <= e->port_hi;
}

bool
netpolicy_program_matches (const struct netpolicy_entry *e, const char *exe)
{
  size_t n;

  if (e->program == NULL)
    return true;
  if (exe == NULL)
    return false;
  n = strlen (e->program);
  if (e->program[n - 1] == '/')
    return strncmp (exe, e->program, n) == 0 && exe[n] != '\0';
  return strcmp (exe, e->program) == 0;
}

const struct netpolicy_entry *
netpolicy_match_name (const struct netpolicy *p, const char *name)
{
  char norm[NETPOLICY_NAME_MAX + 1];

  if (!netpolicy_name_normalize (name, norm))
    return NULL;
  for (size_t i = 0; i < p->n; i++)
    if (name_matches_normalized (&p->entries[i], norm))
      return &p->entries[i];
  return NULL;
}

enum netpolicy_miss
netpolicy_entry_check (const struct netpolicy_entry *e, const char *name, int family,
                       const uint8_t *addr, uint16_t port, const char *exe)
{
  bool dest = e->kind == NETPOLICY_NET ? netpolicy_net_matches (e, family, addr)
                                       : name != NULL && name_matches_normalized (e, name);

  if (!dest)
    return NETPOLICY_MISS_DEST;
  if (!netpolicy_port_matches (e, port))
    return NETPOLICY_MISS_PORT;
  if (!netpolicy_program_matches (e, exe))
    return NETPOLICY_MISS_PROGRAM;
  return NETPOLICY_HIT;
}

bool
netpolicy_address_metadata (int family, const uint8_t *a)
{
  unmap (&family, &a);
  for (size_t j = 0; j < ARRAY_SIZE (metadata_addrs); j++)
    if (family == metadata_addrs[j].family
        && memcmp (a, metadata_addrs[j].addr, family == AF_INET ? 4 : 16) == 0)
      return true;
  return false;
}

bool
netpolicy_address_special (int family, const uint8_t *a)
{
  unmap (&family, &a);
  for (size_t j = 0; j < ARRAY_SIZE (special_nets); j++)
    if (family == special_nets[j].family
        && prefix_equal (a, special_nets[j].addr, special_nets[j].prefix))
      return true;
  return netpolicy_address_metadata (family, a);
}

bool
netpolicy_answer_forbidden (int family, const uint8_t *a)
{
  unmap (&family, &a);
  if (family == AF_INET)
    return a[0] != 127 && netpolicy_address_special (family, a);
  return !IN6_IS_ADDR_LOOPBACK ((const struct in6_addr *) a)
         && netpolicy_address_special (family, a);
}

const struct netpolicy_entry *
netpolicy_first_special (const struct netpolicy *p)
{
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < ARRAY_SIZE (special_nets); j++)
      {
        const struct netpolicy_entry *e = &p->entries[i];
        unsigned bits = e->prefix < special_nets[j].prefix ? e->prefix : special_nets[j].prefix;
        if (e->kind == NETPOLICY_NET && e->family == special_nets[j].family
            && prefix_equal (e->addr, special_nets[j].addr, bits))
          return e;
      }
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < ARRAY_SIZE (metadata_addrs); j++)
      {
        const struct netpolicy_entry *e = &p->entries[i];
        if (e->kind == NETPOLICY_NET && e->family == metadata_addrs[j].family
            && prefix_equal (e->addr, metadata_addrs[j].addr, e->prefix))
          return e;
      }
  return NULL;
}

/* The caller is the thread blocked in connect, in our notification.  What makes the link read
   here the executable of the code that made that connect:
   - The link is the mm's exe_file, which execve replaces.  The caller cannot execve while it
     waits for us.  Another thread of its process can, but execve first kills every other
     thread of the process (de_thread), our caller among them: its notification is then gone,
     and the supervisor's NOTIF_ID_VALID check after this read fails, so what was read is
     never used.  A pid reused meanwhile is caught by the same check.
   - prctl (PR_SET_MM, PR_SET_MM_MAP with exe_fd) replaces exe_file without an execve, for a
     caller with CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN in its user namespace: a sandbox given
     per-program rules must deny it (the policy's prctl condition), or the check is void.
   - What the link names is the file, as the caller's mount namespace names it: a file the
     workload can replace or bind over, or a program it can make run its code (LD_PRELOAD,
     ptrace of a process of its own uid, an interpreter's script), is that program as far as
     this check can tell.  A per-program rule narrows what honest tools reach and says who
     connected; against a hostile workload it holds only where that program's file and code
     are out of the workload's reach.
   A deleted executable reads as "PATH (deleted)", which matches no rule: denied.  */
int
netpolicy_caller_exe (pid_t tid, char *buf, size_t len)
{
  char path[64];
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/exe", (int) tid);
  n = readlink (path, buf, len);
  if (n < 0)
    return -errno;
  if ((size_t) n >= len)
    return -ENAMETOOLONG;
  buf[n] = '\0';
  return 0;
}
