/* The network side of an allowlist (egress.h): the broker's network namespace, the resolver's
   upstream and the files the container gets in place of DNS of its own.  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dns/dns_upstream.h"
#include "sandbox/egress.h"
#include "sandbox/netpolicy.h"
#include "sandbox/operator.h"
#include "utils.h"

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

bool
egress_is_resolver (const struct sockaddr *sa, size_t len)
{
  struct in_addr a;
  const uint8_t *addr;
  uint16_t port;
  int family;

  if (!normalize (sa, len, &family, &addr, &port) || family != AF_INET)
    return false;
  inet_pton (AF_INET, EGRESS_RESOLVER_ADDR, &a);
  return port == EGRESS_RESOLVER_PORT && memcmp (addr, &a, 4) == 0;
}

static bool
inet_of (const struct sockaddr *sa, int *family, uint8_t addr[16])
{
  if (sa == NULL)
    return false;
  if (sa->sa_family == AF_INET)
    memcpy (addr, &((const struct sockaddr_in *) sa)->sin_addr, 4);
  else if (sa->sa_family == AF_INET6)
    memcpy (addr, &((const struct sockaddr_in6 *) sa)->sin6_addr, 16);
  else
    return false;
  *family = sa->sa_family;
  return true;
}

int
egress_host_addrs (struct egress_addrs *out, ar_error_t *err)
{
  struct ifaddrs *ifs = NULL;

  out->n = 0;
  if (getifaddrs (&ifs) < 0)
    return ar_make_error (err, errno, "list this host's addresses");
  for (struct ifaddrs *f = ifs; f && out->n < EGRESS_HOST_ADDRS_MAX; f = f->ifa_next)
    if (inet_of (f->ifa_addr, &out->a[out->n].family, out->a[out->n].addr)
        && !egress_addrs_has (out, out->a[out->n].family, out->a[out->n].addr))
      out->n++;
  freeifaddrs (ifs);
  return 0;
}

bool
egress_addrs_has (const struct egress_addrs *l, int family, const uint8_t *addr)
{
  for (size_t i = 0; l && i < l->n; i++)
    if (l->a[i].family == family && memcmp (l->a[i].addr, addr, family == AF_INET ? 4 : 16) == 0)
      return true;
  return false;
}

static bool
entry_loopback (const struct netpolicy_entry *e)
{
  static const uint8_t lo6[16] = { [15] = 1 };

  if (e->family == AF_INET)
    return e->prefix >= 8 && e->addr[0] == 127;
  return e->prefix == 128 && memcmp (e->addr, lo6, 16) == 0;
}

const struct netpolicy_entry *
egress_host_local (const struct netpolicy *p, const struct egress_addrs *host, bool pod_loopback)
{
  for (size_t i = 0; i < p->n; i++)
    {
      const struct netpolicy_entry *e = &p->entries[i];
      struct netpolicy one = { .entries = (struct netpolicy_entry *) e, .n = 1 };

      if (e->kind != NETPOLICY_NET || (pod_loopback && entry_loopback (e)))
        continue;
      if (netpolicy_first_special (&one))
        return e;
      for (size_t k = 0; host && k < host->n; k++)
        if (!(pod_loopback && host->a[k].family == AF_INET && host->a[k].addr[0] == 127)
            && netpolicy_net_matches (e, host->a[k].family, host->a[k].addr))
          return e;
    }
  return NULL;
}

/* 1 if the network namespace `fd` has no interface but lo, 0 if it has others.  A child enters
   it and lists them, so that ours never changes.  */
static int
netns_loopback_only (int fd, const char *path, const char *from, ar_error_t *err)
{
  int status;
  pid_t pid;

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

/* Is `fd` our own network namespace (the caller's)?  */
static bool
netns_is_ours (int fd)
{
  struct stat a, b;

  return fstat (fd, &a) == 0 && stat ("/proc/self/ns/net", &b) == 0 && a.st_dev == b.st_dev
         && a.st_ino == b.st_ino;
}

/* A joined network namespace (egress.h): kept when it has loopback only, else replaced by a
   new one, and opened into *out when it is not ours.  */
static int
prepare_joined (struct spec_namespace *ns, const char *from, struct egress_netns *out,
                ar_error_t *err)
{
  cleanup_close int fd = open (ns->path, O_RDONLY | O_CLOEXEC);
  int r;

  if (fd < 0)
    return ar_make_error (err, errno, "%s: network namespace `%s`", from, ns->path);
  if (ioctl (fd, NS_GET_NSTYPE) != CLONE_NEWNET)
    return ar_make_error (err, EINVAL, "%s: `%s` is not a network namespace", from, ns->path);
  if (!netns_is_ours (fd))
    {
      /* One with loopback only is as good as a new one.  */
      r = netns_loopback_only (fd, ns->path, from, err);
      if (r != 0)
        return r < 0 ? -1 : 0;
      out->fd = steal_fd (&fd);
      out->pod = true;
    }
  free (ns->path);
  ns->path = NULL;
  return 0;
}

int
egress_prepare_spec (struct spec *s, const char *from, struct egress_netns *out, ar_error_t *err)
{
  struct spec_linux *l = &s->linux_;

  out->fd = -1;
  out->pod = false;
  for (size_t i = 0; i < l->n_namespaces; i++)
    if (l->namespaces[i].kind == SPEC_NS_NETWORK)
      return l->namespaces[i].path ? prepare_joined (&l->namespaces[i], from, out, err) : 0;
  l->namespaces = xrealloc (l->namespaces, (l->n_namespaces + 1) * sizeof *l->namespaces);
  memset (&l->namespaces[l->n_namespaces], 0, sizeof *l->namespaces);
  l->namespaces[l->n_namespaces].kind = SPEC_NS_NETWORK;
  l->n_namespaces++;
  return 0;
}

/* The source of the last bind mount config.json puts on `dest`, or NULL.  */
static char *
bind_source (const struct spec *s, const char *bundle, const char *dest)
{
  const struct spec_mount *found = NULL;

  for (size_t i = 0; i < s->n_mounts; i++)
    {
      const struct spec_mount *m = &s->mounts[i];
      bool bind = m->type && strcmp (m->type, "bind") == 0;
      for (size_t k = 0; !bind && k < m->options.n; k++)
        bind = strcmp (m->options.v[k], "bind") == 0 || strcmp (m->options.v[k], "rbind") == 0;
      if (bind && m->source && m->destination && strcmp (m->destination, dest) == 0)
        found = m;
    }
  if (found == NULL)
    return NULL;
  if (found->source[0] == '/')
    return xstrdup (found->source);
  return xasprintf ("%s/%s", bundle, found->source);
}

char *
egress_pod_resolver (const struct spec *s, const char *bundle)
{
  return bind_source (s, bundle, "/etc/resolv.conf");
}

/* config.json may name the file: only a regular one is read (a fifo would block create, a
   device feed it forever), opened without blocking.  */
static int
read_resolv_conf (const char *path, const char *from, char **out, ar_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;

  if (fd < 0)
    return ar_make_error (err, errno, "%s: the resolver's upstream: open `%s`", from, path);
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    return ar_make_error (err, EINVAL,
                          "%s: the resolver's upstream: `%s` (/etc/resolv.conf) is not a regular "
                          "file",
                          from, path);
  return ar_read_fd (fd, path, 1 << 16, out, NULL, err);
}

/* resolv.conf's `search` and `options` lines, then our nameserver.  */
static char *
container_resolv_conf (const char *text)
{
  cleanup_free char *copy = xstrdup (text);
  char *out = xstrdup ("");
  char *save = NULL;

  for (char *line = strtok_r (copy, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      line += strspn (line, " \t");
      if (strncmp (line, "search", 6) == 0 || strncmp (line, "domain", 6) == 0
          || strncmp (line, "options", 7) == 0)
        {
          char *next = xasprintf ("%s%s\n", out, line);
          free (out);
          out = next;
        }
    }
  {
    char *next = xasprintf ("%snameserver %s\n", out, EGRESS_RESOLVER_ADDR);
    free (out);
    out = next;
  }
  return out;
}

int
egress_upstream (const char *resolv_conf, const struct operator_conf *op, const char *from,
                 struct dns_upstream *u, char **container_text, ar_error_t *err)
{
  cleanup_free char *text = NULL;
  const char *path = resolv_conf ? resolv_conf : "/etc/resolv.conf";

  if (read_resolv_conf (path, from, &text, err) < 0)
    {
      /* A host without one asks 127.0.0.1, as glibc does; a pod's must be there.  */
      if (resolv_conf || (*err)->status != ENOENT)
        return -1;
      ar_error_release (err);
      text = xstrdup ("");
    }
  if (op && op->dns_servers)
    *u = *op->dns_servers;
  else if (dns_upstream_parse (text, path, u, err) < 0)
    return ar_error_wrap (err, "%s: the resolver's upstream", from);
  *container_text = container_resolv_conf (text);
  return 0;
}

const char *
egress_file_target (enum egress_file f)
{
  static const char *const targets[] = { "/etc/hosts", "/etc/resolv.conf", EGRESS_DENIALS_PATH };

  return (unsigned) f < EGRESS_FILE__N ? targets[f] : NULL;
}

const char *
egress_hosts_text (void)
{
  return "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
}

int
egress_open_file (int state_dirfd, const char *state_dir, const char *name, const char *text,
                  ar_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                                         | MOUNT_ATTR_NOEXEC };
  cleanup_free char *path = xasprintf ("%s/%s", state_dir, name);
  int fd;

  if (ar_replace_file (state_dirfd, name, text, strlen (text), 0644, err) < 0)
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
