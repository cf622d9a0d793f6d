/* The egress allowlist of a container (--net-allow, annotation io.agentrt.net.allow): the TCP
   endpoints the supervisor's broker connects to on the workload's behalf (DESIGN.md principle
   2), and the network namespace it connects from.  Parsed, then resolved at create, before
   anything is set up: host names become addresses here, once, and the lines of the
   container's /etc/hosts; the container itself has no DNS (its network namespace has loopback
   only).

   Where the broker connects from (egress_prepare_spec):
     config.json has no network namespace     the caller's (the host's, or a node's under an
     (a hostNetwork pod), or joins the         engine): the container gets a new one
     caller's own
     it joins one with loopback only           the caller's; the container joins that one
     it joins another one: a CNI pod's         that one (the pod's): the container gets a new one
                                               of its own, and the supervisor's worker enters the
                                               pod's before it makes a thread or a socket, so
                                               allowed connections leave with the pod's address,
                                               under its NetworkPolicy; names are resolved there
                                               too, with the pod's resolv.conf (egress_resolve) */
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

struct egress_rule
{
  int family;       /* AF_INET or AF_INET6 (a v4-mapped v6 address is stored as AF_INET) */
  uint8_t addr[16]; /* network order: 4 bytes for AF_INET */
  uint16_t port;    /* host order */
};

/* A name of the list, resolved by egress_resolve.  */
struct egress_name
{
  char *host;
  uint16_t port;
};

struct egress_list
{
  struct egress_rule *rules;
  size_t n;
  struct egress_name *pending; /* names egress_parse left to egress_resolve */
  size_t n_pending;
  char *hosts; /* the container's /etc/hosts: localhost and every resolved name */
  bool names;  /* the list names a host: only then is /etc/hosts mounted (and made, when the
                  rootfs has none: a list of addresses never writes the bundle) */
};

/* Parse "host:port,1.2.3.4:port,[::1]:port"; errors name `from` (the flag or annotation).  An
   empty list is an error: it would mean no network, which a config without the allowlist
   already says.  Names are checked, not resolved: egress_resolve does that once it is known
   where the broker connects from.  */
int egress_parse (const char *list, const char *from, struct egress_list *out, ar_error_t *err);

/* Where names are resolved: a pod's network namespace and the files config.json gives the pod
   as /etc/resolv.conf and /etc/hosts (NULL: the host's own).  */
struct egress_resolver
{
  int netns_fd;      /* not owned */
  char *resolv_conf; /* NULL: the host's */
  char *hosts;       /* NULL: the host's */
};

/* Resolve the pending names: every address a name has now goes into the list and into
   /etc/hosts.  r NULL: here, with the host's resolver; else in a child that enters the pod's
   network namespace and sees the pod's resolv.conf and hosts as its own.  */
int egress_resolve (struct egress_list *l, const struct egress_resolver *r, const char *from,
                    ar_error_t *err);
void egress_release (struct egress_list *l);

/* Does the address (as read from the workload) match a rule?  `len` as the workload gave it.  */
bool egress_match (const struct egress_list *l, const struct sockaddr *sa, size_t len);
/* Is it an address of the loopback network (127/8, ::1, v4-mapped 127/8)?  */
bool egress_is_loopback (const struct sockaddr *sa, size_t len);

/* The index of the first rule naming an address of this host as the broker sees it: loopback,
   unspecified (0.0.0.0/8, ::), link-local (169.254/16, fe80::/10), a cloud's metadata service
   outside link-local (netpolicy_address_metadata) or one of the addresses of
   the caller's network namespace's interfaces (under an engine: the node's); -1 if none; -2 if
   those cannot be listed.  `pod_loopback`: the broker connects from a pod's namespace, whose
   loopback is the pod's own, not this host's: loopback addresses are then none of the host's.  */
ssize_t egress_host_local (const struct egress_list *l, bool pod_loopback);
/* "1.2.3.4:80", "[::1]:80".  */
#define EGRESS_RULE_TEXT 64
void egress_rule_text (const struct egress_rule *r, char *buf, size_t len);

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

/* The pod's resolver for egress_resolve: the namespace `netns_fd` and the sources of the bind
   mounts config.json puts on /etc/resolv.conf and /etc/hosts (relative ones under `bundle`).  */
void egress_pod_resolver (const struct spec *s, const char *bundle, int netns_fd,
                          struct egress_resolver *out);
void egress_resolver_release (struct egress_resolver *r);

/* With l->names: write the hosts file into the state directory and return a detached read-only bind
   mount of it (open_tree), which the init attaches over /etc/hosts.  */
int egress_open_hosts (int state_dirfd, const char *state_dir, const struct egress_list *l,
                       ar_error_t *err);

#endif
