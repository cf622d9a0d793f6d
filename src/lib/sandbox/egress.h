/* The network side of a container's egress allowlist (--net-allow, io.agentrt.net.allow; the
   list itself is netpolicy.h's): where the supervisor's broker connects from, what the container
   is given instead of DNS of its own (a resolv.conf naming the supervisor's resolver in its
   network namespace, an /etc/hosts of localhost only), the upstream servers that resolver asks,
   and the host's own addresses, which config.json may never open.

   Where the broker connects from (egress_prepare_spec):
     config.json has no network namespace     the caller's (the host's, or a node's under an
     (a hostNetwork pod), or joins the         engine): the container gets a new one
     caller's own
     it joins one with loopback only           the caller's; the container joins that one
     it joins another one: a CNI pod's         that one (the pod's): the container gets a new one
                                               of its own, and the supervisor's worker enters the
                                               pod's before it makes a thread or a socket, so
                                               allowed connections and the resolver's upstream
                                               queries leave with the pod's address, under its
                                               NetworkPolicy, to the pod's DNS server (its
                                               resolv.conf: egress_pod_resolver) */
#ifndef AGENTRT_EGRESS_H
#define AGENTRT_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

#define EGRESS_HOSTS_FILE "hosts"
#define EGRESS_RESOLV_FILE "resolv.conf"
/* The resolver's address in the container's network namespace (systemd-resolved's stub
   address, which nothing else in a container uses), port 53, UDP and TCP.  */
#define EGRESS_RESOLVER_ADDR "127.0.0.53"
#define EGRESS_RESOLVER_PORT 53

/* The files the init mounts read-only in a container with an allowlist, from detached bind
   mounts the runtime made (egress_open_file; the denials file is the supervisor's, beside its
   virtual files), each created empty first where the rootfs has none, as any bind mount's
   target.  */
enum egress_file
{
  EGRESS_FILE_HOSTS,   /* /etc/hosts: localhost only */
  EGRESS_FILE_RESOLV,  /* /etc/resolv.conf: the supervisor's resolver */
  EGRESS_FILE_DENIALS, /* the recent denials, readable by the workload */
  EGRESS_FILE__N,
};
#define EGRESS_DENIALS_FILE "denials"
#define EGRESS_DENIALS_PATH "/run/agentrt/denials"
/* The path in the container of each egress_file.  */
const char *egress_file_target (enum egress_file f);

struct netpolicy;
struct dns_upstream;
struct operator_conf;

/* Is it an address of the loopback network (127/8, ::1, v4-mapped 127/8)?  */
bool egress_is_loopback (const struct sockaddr *sa, size_t len);
/* Is it the resolver's address and port (EGRESS_RESOLVER_ADDR:53)?  */
bool egress_is_resolver (const struct sockaddr *sa, size_t len);

/* The addresses of the interfaces of the caller's network namespace (under an engine: the
   node's): a list the annotation may not open, and no DNS answer may pin unless the operator
   gave the list.  */
#define EGRESS_HOST_ADDRS_MAX 64
struct egress_addrs
{
  size_t n;
  struct
  {
    int family;
    uint8_t addr[16];
  } a[EGRESS_HOST_ADDRS_MAX];
};
int egress_host_addrs (struct egress_addrs *out, ar_error_t *err);
bool egress_addrs_has (const struct egress_addrs *l, int family, const uint8_t *addr);

/* The first entry naming an address of this host as the broker sees it: loopback, unspecified
   (0.0.0.0/8, ::), link-local (169.254/16, fe80::/10), multicast, or one of `host`'s; NULL if
   none.  `pod_loopback`: the broker connects from a pod's namespace, whose loopback is the
   pod's own, not this host's: loopback addresses are then none of the host's.  */
const struct netpolicy_entry *
egress_host_local (const struct netpolicy *p, const struct egress_addrs *host, bool pod_loopback);

/* Where the broker connects from (the table above).  */
struct egress_netns
{
  int fd;   /* the pod's network namespace, for the supervisor's worker; -1: the caller's */
  bool pod; /* fd is a pod's: its loopback is the pod's, not the host's */
};

/* The container's network namespace for the broker (the table above): a config without one,
   or joining the caller's, gets a new one; one that joins a namespace with other interfaces
   than lo gets a new one too, and that namespace is opened into *out for the broker.  Errors
   name `from`.  */
int egress_prepare_spec (struct spec *s, const char *from, struct egress_netns *out,
                         ar_error_t *err);

/* Where the resolver's upstream is read from: the source of the bind mount config.json puts on
   /etc/resolv.conf (relative ones under `bundle`), when the broker connects from a pod's
   namespace; NULL otherwise (the host's /etc/resolv.conf).  */
char *egress_pod_resolver (const struct spec *s, const char *bundle);

/* The resolver's upstream servers and the container's resolv.conf.  The servers: agentrt.conf's
   dns_servers when the operator set them, else the `nameserver` lines of `resolv_conf` (NULL:
   /etc/resolv.conf), which must be a regular file (a pod's is config.json's to name: a fifo would
   block create).  The container's resolv.conf: that file's `search` and `options` lines (a pod's
   cluster domains, ndots) and one nameserver, the resolver.  Errors name `from`.  */
int egress_upstream (const char *resolv_conf, const struct operator_conf *op, const char *from,
                     struct dns_upstream *u, char **container_text, ar_error_t *err);

/* The container's /etc/hosts with an allowlist: localhost only (names are the resolver's).  */
const char *egress_hosts_text (void);

/* Write `text` into the state directory as `name` and return a detached read-only bind mount of
   it (open_tree), which the init attaches over its file in the container.  */
int egress_open_file (int state_dirfd, const char *state_dir, const char *name, const char *text,
                      ar_error_t *err);

#endif
