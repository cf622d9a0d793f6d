#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/mount.h>
#include <net/if.h>
#include <netdb.h>
#include <sched.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/egress.h"
#include "utils.h"

static void
add_rule (struct egress_list *l, int family, const void *addr, uint16_t port)
{
  struct egress_rule *r;

  l->rules = xrealloc (l->rules, (l->n + 1) * sizeof *l->rules);
  r = &l->rules[l->n++];
  memset (r, 0, sizeof *r);
  r->family = family;
  memcpy (r->addr, addr, family == AF_INET ? 4 : 16);
  r->port = port;
}

static void
add_hosts_line (char **hosts, const char *addr, const char *name)
{
  char *line = xasprintf ("%s%s\t%s\n", *hosts, addr, name);
  free (*hosts);
  *hosts = line;
}

static bool
valid_host_name (const char *h)
{
  size_t n = strlen (h);

  if (n == 0 || n > 253 || h[0] == '-' || h[0] == '.')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum ((unsigned char) h[i]) && h[i] != '-' && h[i] != '.' && h[i] != '_')
      return false;
  return true;
}

/* A name: every address it has now goes into the list and into /etc/hosts.  */
static int
resolve_name (struct egress_list *l, const char *host, uint16_t port, const char *from,
              ar_error_t *err)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  int r;

  if (!valid_host_name (host))
    return ar_make_error (err, EINVAL, "%s: `%s` is not a host name or address", from, host);
  r = getaddrinfo (host, NULL, &hints, &res);
  if (r != 0)
    return ar_make_error (err, r == EAI_SYSTEM ? errno : ENOENT, "%s: resolve `%s`: %s", from, host,
                          gai_strerror (r));
  for (struct addrinfo *a = res; a; a = a->ai_next)
    {
      char text[INET6_ADDRSTRLEN];
      const void *p;
      if (a->ai_family == AF_INET)
        p = &((struct sockaddr_in *) a->ai_addr)->sin_addr;
      else if (a->ai_family == AF_INET6)
        p = &((struct sockaddr_in6 *) a->ai_addr)->sin6_addr;
      else
        continue;
      add_rule (l, a->ai_family, p, port);
      inet_ntop (a->ai_family, p, text, sizeof text);
      add_hosts_line (&l->hosts, text, host);
      l->names = true;
    }
  freeaddrinfo (res);
  return 0;
}

static int
parse_port (const char *s, const char *item, const char *from, uint16_t *out, ar_error_t *err)
{
  long long v;

  if (!ar_parse_int64 (s, 1, 65535, &v))
    return ar_make_error (err, EINVAL, "%s: `%s`: the port must be 1 to 65535", from, item);
  *out = (uint16_t) v;
  return 0;
}

/* One item: [v6]:port, a.b.c.d:port or name:port.  */
static int
parse_item (struct egress_list *l, const char *item, const char *from, ar_error_t *err)
{
  cleanup_free char *host = NULL;
  const char *colon;
  uint8_t addr[16];
  uint16_t port = 0;

  if (item[0] == '[')
    {
      const char *close = strchr (item, ']');
      if (close == NULL || close[1] != ':')
        return ar_make_error (err, EINVAL, "%s: `%s`: expected [v6]:port", from, item);
      host = xstrndup (item + 1, (size_t) (close - item - 1));
      colon = close + 1;
      if (inet_pton (AF_INET6, host, addr) != 1)
        return ar_make_error (err, EINVAL, "%s: `%s`: `%s` is not an IPv6 address", from, item,
                              host);
    }
  else
    {
      colon = strrchr (item, ':');
      if (colon == NULL || memchr (item, ':', (size_t) (colon - item)))
        return ar_make_error (err, EINVAL, "%s: `%s`: expected host:port (IPv6 as [addr]:port)",
                              from, item);
      host = xstrndup (item, (size_t) (colon - item));
    }
  if (parse_port (colon + 1, item, from, &port, err) < 0)
    return -1;
  if (item[0] == '[')
    {
      /* A v4-mapped address is the IPv4 endpoint: stored as such, so both forms match.  */
      if (IN6_IS_ADDR_V4MAPPED ((struct in6_addr *) addr))
        add_rule (l, AF_INET, addr + 12, port);
      else
        add_rule (l, AF_INET6, addr, port);
      return 0;
    }
  if (inet_pton (AF_INET, host, addr) == 1)
    {
      add_rule (l, AF_INET, addr, port);
      return 0;
    }
  return resolve_name (l, host, port, from, err);
}

int
egress_parse (const char *list, const char *from, struct egress_list *out, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (list);
  char *save = NULL;
  size_t len = strlen (list);

  memset (out, 0, sizeof *out);
  out->hosts = xstrdup ("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
  if (len == 0 || list[0] == ',' || list[len - 1] == ',' || strstr (list, ",,"))
    {
      egress_release (out);
      return ar_make_error (err, EINVAL, "%s: `%s`: a comma list of host:port, ip:port, [v6]:port",
                            from, list);
    }
  for (char *item = strtok_r (copy, ",", &save); item; item = strtok_r (NULL, ",", &save))
    if (parse_item (out, item, from, err) < 0)
      {
        egress_release (out);
        return -1;
      }
  return 0;
}

void
egress_release (struct egress_list *l)
{
  free (l->rules);
  free (l->hosts);
  memset (l, 0, sizeof *l);
}

/* The address as (family, bytes, port), a v4-mapped v6 one as IPv4; false if not INET.  */
static bool
normalize (const struct sockaddr *sa, size_t len, int *family, const uint8_t **addr, uint16_t *port)
{
  if (len >= sizeof (struct sockaddr_in) && sa->sa_family == AF_INET)
    {
      const struct sockaddr_in *in = (const void *) sa;
      *family = AF_INET;
      *addr = (const uint8_t *) &in->sin_addr;
      *port = ntohs (in->sin_port);
      return true;
    }
  if (len >= sizeof (struct sockaddr_in6) && sa->sa_family == AF_INET6)
    {
      const struct sockaddr_in6 *in6 = (const void *) sa;
      bool mapped = IN6_IS_ADDR_V4MAPPED (&in6->sin6_addr);
      *family = mapped ? AF_INET : AF_INET6;
      *addr = in6->sin6_addr.s6_addr + (mapped ? 12 : 0);
      *port = ntohs (in6->sin6_port);
      return true;
    }
  return false;
}

bool
egress_match (const struct egress_list *l, const struct sockaddr *sa, size_t len)
{
  const uint8_t *addr;
  uint16_t port;
  int family;

  if (l == NULL || !normalize (sa, len, &family, &addr, &port))
    return false;
  for (size_t i = 0; i < l->n; i++)
    if (l->rules[i].family == family && l->rules[i].port == port
        && memcmp (l->rules[i].addr, addr, family == AF_INET ? 4 : 16) == 0)
      return true;
  return false;
}

bool
egress_is_loopback (const struct sockaddr *sa, size_t len)
{
  const uint8_t *addr;
  uint16_t port;
  int family;

  if (!normalize (sa, len, &family, &addr, &port))
    return false;
  if (family == AF_INET)
    return addr[0] == 127;
  return IN6_IS_ADDR_LOOPBACK ((const struct in6_addr *) addr);
}

static bool
special_local (const struct egress_rule *r)
{
  static const uint8_t any6[16] = { 0 };
  const uint8_t *a = r->addr;

  if (r->family == AF_INET)
    return a[0] == 127 || a[0] == 0 || (a[0] == 169 && a[1] == 254);
  return IN6_IS_ADDR_LOOPBACK ((const struct in6_addr *) a) || memcmp (a, any6, 16) == 0
         || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80);
}

static bool
same_address (const struct egress_rule *r, const struct sockaddr *sa)
{
  if (sa == NULL || sa->sa_family != r->family)
    return false;
  if (r->family == AF_INET)
    return memcmp (&((const struct sockaddr_in *) sa)->sin_addr, r->addr, 4) == 0;
  return memcmp (&((const struct sockaddr_in6 *) sa)->sin6_addr, r->addr, 16) == 0;
}

ssize_t
egress_host_local (const struct egress_list *l)
{
  struct ifaddrs *ifs = NULL;
  ssize_t found = -1;

  for (size_t i = 0; i < l->n; i++)
    if (special_local (&l->rules[i]))
      return (ssize_t) i;
  if (getifaddrs (&ifs) < 0)
    return -2;
  for (size_t i = 0; i < l->n && found < 0; i++)
    for (struct ifaddrs *f = ifs; f && found < 0; f = f->ifa_next)
      if (same_address (&l->rules[i], f->ifa_addr))
        found = (ssize_t) i;
  freeifaddrs (ifs);
  return found;
}

void
egress_rule_text (const struct egress_rule *r, char *buf, size_t len)
{
  char addr[INET6_ADDRSTRLEN] = "?";

  inet_ntop (r->family, r->addr, addr, sizeof addr);
  if (r->family == AF_INET6)
    snprintf (buf, len, "[%s]:%u", addr, (unsigned) r->port);
  else
    snprintf (buf, len, "%s:%u", addr, (unsigned) r->port);
}

/* 1 if the network namespace at `path` has no interface but lo, 0 if it has others.  A child
   enters it and lists them, so that ours never changes.  */
static int
netns_loopback_only (const char *path, const char *from, ar_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  int status;
  pid_t pid;

  if (fd < 0)
    return ar_make_error (err, errno, "%s: network namespace `%s`", from, path);
  pid = fork ();
  if (pid < 0)
    return ar_make_error (err, errno, "fork");
  if (pid == 0)
    {
      struct if_nameindex *ifs;
      if (setns (fd, CLONE_NEWNET) < 0 || (ifs = if_nameindex ()) == NULL)
        _exit (2);
      for (struct if_nameindex *i = ifs; i->if_index; i++)
        if (strcmp (i->if_name, "lo") != 0)
          _exit (1);
      _exit (0);
    }
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return ar_make_error (err, errno, "waitpid");
  if (!WIFEXITED (status) || WEXITSTATUS (status) > 1)
    return ar_make_error (err, EIO, "%s: cannot list the interfaces of network namespace `%s`",
                          from, path);
  return WEXITSTATUS (status) == 0;
}

int
egress_prepare_spec (struct spec *s, const char *from, ar_error_t *err)
{
  struct spec_linux *l = &s->linux_;
  int r;

  for (size_t i = 0; i < l->n_namespaces; i++)
    if (l->namespaces[i].kind == SPEC_NS_NETWORK)
      {
        if (l->namespaces[i].path == NULL)
          return 0;
        /* Joined: the host's, or a pod's with routes of its own, would let traffic past the
           broker (UDP, a raw reconnect).  One with loopback only is as good as our own: a
           Kubernetes pod's, whose sandbox agentrt gave a new one for the same allowlist.  */
        r = netns_loopback_only (l->namespaces[i].path, from, err);
        if (r != 0)
          return r < 0 ? -1 : 0;
        return ar_make_error (err, EINVAL,
                              "%s: needs a network namespace of the container's own (or one with "
                              "loopback only), and config.json joins `%s`, which has other "
                              "interfaces",
                              from, l->namespaces[i].path);
      }
  l->namespaces = xrealloc (l->namespaces, (l->n_namespaces + 1) * sizeof *l->namespaces);
  memset (&l->namespaces[l->n_namespaces], 0, sizeof *l->namespaces);
  l->namespaces[l->n_namespaces].kind = SPEC_NS_NETWORK;
  l->n_namespaces++;
  return 0;
}

int
egress_open_hosts (int state_dirfd, const char *state_dir, const struct egress_list *l,
                   ar_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                                         | MOUNT_ATTR_NOEXEC };
  cleanup_free char *path = xasprintf ("%s/%s", state_dir, EGRESS_HOSTS_FILE);
  int fd;

  if (ar_replace_file (state_dirfd, EGRESS_HOSTS_FILE, l->hosts, strlen (l->hosts), 0644, err) < 0)
    return -1;
  fd = (int) syscall (SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "open_tree `%s`", path);
  if (syscall (SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0)
    {
      int e = errno;
      close (fd);
      return ar_make_error (err, e, "make the bind of `%s` read-only", path);
    }
  return fd;
}
