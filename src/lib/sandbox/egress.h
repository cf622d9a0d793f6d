/* The egress allowlist of a container (--net-allow, annotation io.agentrt.net.allow): the TCP
   endpoints the supervisor's broker connects to on the workload's behalf (DESIGN.md principle
   2).  Parsed and resolved at create, before anything is set up: host names become addresses
   here, once, and the lines of the container's /etc/hosts; the container itself has no DNS (its
   network namespace has loopback only).  */
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

struct egress_list
{
  struct egress_rule *rules;
  size_t n;
  char *hosts; /* the container's /etc/hosts: localhost and every resolved name */
  bool names;  /* the list names a host: only then is /etc/hosts mounted (and made, when the
                  rootfs has none: a list of addresses never writes the bundle) */
};

/* Parse "host:port,1.2.3.4:port,[::1]:port" and resolve the names; errors name `from` (the
   flag or annotation).  An empty list is an error: it would mean no network, which a config
   without the allowlist already says.  */
int egress_parse (const char *list, const char *from, struct egress_list *out, ar_error_t *err);
void egress_release (struct egress_list *l);

/* Does the address (as read from the workload) match a rule?  `len` as the workload gave it.  */
bool egress_match (const struct egress_list *l, const struct sockaddr *sa, size_t len);
/* Is it an address of the loopback network (127/8, ::1, v4-mapped 127/8)?  */
bool egress_is_loopback (const struct sockaddr *sa, size_t len);

/* The index of the first rule naming an address of this host as the broker sees it: loopback,
   unspecified (0.0.0.0/8, ::), link-local (169.254/16, fe80::/10) or one of the addresses of
   the caller's network namespace's interfaces; -1 if none; -2 if those cannot be listed.  */
ssize_t egress_host_local (const struct egress_list *l);
/* "1.2.3.4:80", "[::1]:80".  */
#define EGRESS_RULE_TEXT 64
void egress_rule_text (const struct egress_rule *r, char *buf, size_t len);

/* The container needs a network namespace of its own: one is added to a config that has none;
   a config that joins one is refused, naming `from`, unless that one has no interface but lo
   (a pod's whose sandbox agentrt made with the same allowlist); the host's or a CNI pod's is.  */
int egress_prepare_spec (struct spec *s, const char *from, ar_error_t *err);

/* With l->names: write the hosts file into the state directory and return a detached read-only bind
   mount of it (open_tree), which the init attaches over /etc/hosts.  */
int egress_open_hosts (int state_dirfd, const char *state_dir, const struct egress_list *l,
                       ar_error_t *err);

#endif
