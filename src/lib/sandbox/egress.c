#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <nss.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/egress.h"
#include "sandbox/netpolicy.h"
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

static void
add_address (struct egress_list *l, int family, const void *addr, const char *host, uint16_t port)
{
  char text[INET6_ADDRSTRLEN];

  add_rule (l, family, addr, port);
  inet_ntop (family, addr, text, sizeof text);
  add_hosts_line (&l->hosts, text, host);
  l->names = true;
}

static const void *
inet_bytes (const struct addrinfo *a)
{
  if (a->ai_family == AF_INET)
    return &((const struct sockaddr_in *) a->ai_addr)->sin_addr;
  if (a->ai_family == AF_INET6)
    return &((const struct sockaddr_in6 *) a->ai_addr)->sin6_addr;
  return NULL;
}

static int
resolve_error (int r, int sys_errno, const char *from, const char *host, const char *where,
               ar_error_t *err)
{
  return ar_make_error (err, r == EAI_SYSTEM ? sys_errno : ENOENT, "%s: resolve `%s`%s: %s", from,
                        host, where, gai_strerror (r));
}

/* A name, here, with the host's resolver: every address it has now.  */
static int
resolve_name (struct egress_list *l, const struct egress_name *n, const char *from, ar_error_t *err)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  int r = getaddrinfo (n->host, NULL, &hints, &res);

  if (r != 0)
    return resolve_error (r, errno, from, n->host, "", err);
  for (struct addrinfo *a = res; a; a = a->ai_next)
    if (inet_bytes (a))
      add_address (l, a->ai_family, inet_bytes (a), n->host, n->port);
  freeaddrinfo (res);
  return 0;
}

/* What the pod's resolver child (resolve_child) writes: first a struct pod_step, then for each
   name a struct pod_head and that many struct pod_addr.  */
enum
{
  POD_OK,
  POD_PRIVATE,
  POD_RESOLV_CONF, /* …and POD_HOSTS: errno 0 when it is no regular file */
  POD_HOSTS,
  POD_NSCD,
  POD_NETNS,
};
struct pod_step
{
  int32_t step, sys_errno;
};
struct pod_head
{
  int32_t gai, sys_errno;
  uint32_t n;
};
struct pod_addr
{
  int32_t family;
  uint8_t addr[16];
};
/* Addresses kept per name: more would only fill /etc/hosts.  */
#define POD_ADDRS_MAX 64
#define NSCD_DIR "/var/run/nscd"

/* config.json names the file: only a regular one is read (a fifo would block the resolver, a
   device feed it forever).  Opened without blocking, checked, and bound by its fd.  */
static bool
bind_regular (const char *src, const char *dst)
{
  cleanup_close int fd = open (src, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  char proc[64];
  struct stat st;

  if (fd < 0 || fstat (fd, &st) < 0)
    return false;
  if (!S_ISREG (st.st_mode))
    {
      errno = 0;
      return false;
    }
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  return mount (proc, dst, NULL, MS_BIND, NULL) == 0;
}

/* The pod's view, in our own mount namespace (a copy of the host's, made private first so that
   nothing reaches the host's): its files over /etc's, and no nscd (which would answer from the
   host's resolver), then its network namespace.  */
static int
enter_pod_view (const struct egress_resolver *r)
{
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return POD_PRIVATE;
  if (r->resolv_conf && !bind_regular (r->resolv_conf, "/etc/resolv.conf"))
    return POD_RESOLV_CONF;
  if (r->hosts && !bind_regular (r->hosts, "/etc/hosts"))
    return POD_HOSTS;
  if (access (NSCD_DIR, F_OK) == 0 && mount ("none", NSCD_DIR, "tmpfs", MS_RDONLY, NULL) < 0)
    return POD_NSCD;
  if (setns (r->netns_fd, CLONE_NEWNET) < 0)
    return POD_NETNS;
  return POD_OK;
}

static void __attribute__ ((noreturn))
resolve_child (int out, const struct egress_list *l, const struct egress_resolver *r)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
  struct pod_step st = { enter_pod_view (r), 0 };

  st.sys_errno = st.step ? errno : 0;
  if (write (out, &st, sizeof st) != sizeof st || st.step)
    _exit (1);
  /* Files and DNS only: a module of the host's nsswitch.conf (systemd-resolved's, mdns) would
     ask the host's resolver.  */
  __nss_configure_lookup ("hosts", "files dns");
  for (size_t i = 0; i < l->n_pending; i++)
    {
      struct addrinfo *res = NULL;
      struct pod_head h = { getaddrinfo (l->pending[i].host, NULL, &hints, &res), 0, 0 };
      struct pod_addr a[POD_ADDRS_MAX];

      h.sys_errno = h.gai == EAI_SYSTEM ? errno : 0;
      for (struct addrinfo *p = res; p && h.n < POD_ADDRS_MAX; p = p->ai_next)
        if (inet_bytes (p))
          {
            memset (&a[h.n], 0, sizeof a[h.n]);
            a[h.n].family = p->ai_family;
            memcpy (a[h.n].addr, inet_bytes (p), p->ai_family == AF_INET ? 4 : 16);
            h.n++;
          }
      if (res)
        freeaddrinfo (res);
      if (write (out, &h, sizeof h) != sizeof h
          || (h.n && write (out, a, h.n * sizeof *a) != (ssize_t) (h.n * sizeof *a)))
        _exit (1);
    }
  _exit (0);
}

static int
pod_step_error (const struct pod_step *st, const struct egress_resolver *r, const char *from,
                ar_error_t *err)
{
  const char *file = st->step == POD_RESOLV_CONF ? r->resolv_conf : r->hosts;
  const char *dst = st->step == POD_RESOLV_CONF ? "/etc/resolv.conf" : "/etc/hosts";

  switch (st->step)
    {
    case POD_PRIVATE:
      return ar_make_error (err, st->sys_errno,
                            "%s: resolve in the pod's network: make our mount namespace private",
                            from);
    case POD_RESOLV_CONF:
    case POD_HOSTS:
      if (st->sys_errno == 0)
        return ar_make_error (err, EINVAL,
                              "%s: resolve in the pod's network: the pod's %s, `%s`, is not a "
                              "regular file",
                              from, dst, file);
      return ar_make_error (err, st->sys_errno,
                            "%s: resolve in the pod's network: bind the pod's `%s` over %s", from,
                            file, dst);
    case POD_NSCD:
      return ar_make_error (err, st->sys_errno, "%s: resolve in the pod's network: hide %s", from,
                            NSCD_DIR);
    default:
      return ar_make_error (err, st->sys_errno,
                            "%s: resolve in the pod's network: enter its network namespace", from);
    }
}

/* The child's answers, into the list.  */
static int
read_pod_answers (struct egress_list *l, const char *buf, size_t len,
                  const struct egress_resolver *r, const char *from, ar_error_t *err)
{
  struct pod_step st;
  size_t off = sizeof st;

  if (len < sizeof st)
    return ar_make_error (err, EIO, "%s: resolve in the pod's network: the resolver died", from);
  memcpy (&st, buf, sizeof st);
  if (st.step != POD_OK)
    return pod_step_error (&st, r, from, err);
  for (size_t i = 0; i < l->n_pending; i++)
    {
      struct pod_head h;
      if (len - off < sizeof h)
        return ar_make_error (err, EIO, "%s: resolve in the pod's network: the resolver died",
                              from);
      memcpy (&h, buf + off, sizeof h);
      off += sizeof h;
      if (h.gai != 0)
        return resolve_error (h.gai, h.sys_errno, from, l->pending[i].host, " in the pod's network",
                              err);
      if (h.n > POD_ADDRS_MAX || len - off < h.n * sizeof (struct pod_addr))
        return ar_make_error (err, EIO, "%s: resolve in the pod's network: a short answer", from);
      for (uint32_t k = 0; k < h.n; k++, off += sizeof (struct pod_addr))
        {
          struct pod_addr a;
          memcpy (&a, buf + off, sizeof a);
          if (a.family == AF_INET || a.family == AF_INET6)
            add_address (l, a.family, a.addr, l->pending[i].host, l->pending[i].port);
        }
    }
  return 0;
}

/* The names, resolved as the pod would (egress.h): by a child, so that our own mount and
   network namespaces never change.  */
static int
resolve_in_pod (struct egress_list *l, const struct egress_resolver *r, const char *from,
                ar_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  int p[2], status, ret;
  pid_t pid;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return ar_make_error (err, errno, "pipe");
  pid = ar_clone (CLONE_NEWNS, -1);
  if (pid < 0)
    {
      int e = errno;
      close (p[0]);
      close (p[1]);
      return ar_make_error (err, e, "%s: resolve in the pod's network: fork", from);
    }
  if (pid == 0)
    {
      close (p[0]);
      resolve_child (p[1], l, r);
    }
  close (p[1]);
  ret = ar_read_fd (p[0], "the pod's resolver", 0, &buf, &len, err);
  close (p[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (ret < 0)
    return -1;
  return read_pod_answers (l, buf, len, r, from, err);
}

int
egress_resolve (struct egress_list *l, const struct egress_resolver *r, const char *from,
                ar_error_t *err)
{
  if (l->n_pending == 0)
    return 0;
  if (r)
    return resolve_in_pod (l, r, from, err);
  for (size_t i = 0; i < l->n_pending; i++)
    if (resolve_name (l, &l->pending[i], from, err) < 0)
      return -1;
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
  if (!valid_host_name (host))
    return ar_make_error (err, EINVAL, "%s: `%s` is not a host name or address", from, host);
  l->pending = xrealloc (l->pending, (l->n_pending + 1) * sizeof *l->pending);
  l->pending[l->n_pending++] = (struct egress_name){ steal_ptr (&host), port };
  return 0;
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
  for (size_t i = 0; i < l->n_pending; i++)
    free (l->pending[i].host);
  free (l->pending);
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
rule_loopback (const struct egress_rule *r)
{
  if (r->family == AF_INET)
    return r->addr[0] == 127;
  return IN6_IS_ADDR_LOOPBACK ((const struct in6_addr *) r->addr);
}

static bool
special_local (const struct egress_rule *r)
{
  static const uint8_t any6[16] = { 0 };
  const uint8_t *a = r->addr;

  if (netpolicy_address_metadata (r->family, a))
    return true;
  if (r->family == AF_INET)
    return a[0] == 0 || (a[0] == 169 && a[1] == 254);
  return memcmp (a, any6, 16) == 0 || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80);
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
egress_host_local (const struct egress_list *l, bool pod_loopback)
{
  struct ifaddrs *ifs = NULL;
  ssize_t found = -1;

  for (size_t i = 0; i < l->n; i++)
    if (special_local (&l->rules[i]) || (!pod_loopback && rule_loopback (&l->rules[i])))
      return (ssize_t) i;
  if (getifaddrs (&ifs) < 0)
    return -2;
  for (size_t i = 0; i < l->n && found < 0; i++)
    for (struct ifaddrs *f = ifs; f && found < 0; f = f->ifa_next)
      if (!(pod_loopback && rule_loopback (&l->rules[i]))
          && same_address (&l->rules[i], f->ifa_addr))
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

void
egress_pod_resolver (const struct spec *s, const char *bundle, int netns_fd,
                     struct egress_resolver *out)
{
  out->netns_fd = netns_fd;
  out->resolv_conf = bind_source (s, bundle, "/etc/resolv.conf");
  out->hosts = bind_source (s, bundle, "/etc/hosts");
}

void
egress_resolver_release (struct egress_resolver *r)
{
  free (r->resolv_conf);
  free (r->hosts);
  r->resolv_conf = r->hosts = NULL;
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
