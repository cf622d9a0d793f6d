/* The egress state of the supervisor worker (sv_net.h): the list in force and its live
   updates, the connections handed over and their revocation, the denials the workload reads.
   It never blocks on the workload: revocation reads /proc and takes sockets with pidfd_getfd,
   which do not wait for the processes they look at.  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "supervisor/sv.h"
#include "supervisor/sv_net.h"
#include "utils.h"

uint64_t
sv_net_now (void)
{
  return ar_monotonic_ns () / 1000000000;
}

static bool
names_programs (const struct netpolicy *p)
{
  for (size_t i = 0; i < p->n; i++)
    if (p->entries[i].program)
      return true;
  return false;
}

int
sv_net_init (struct sv *sv, struct netpolicy *policy, const struct dns_upstream *upstream,
             const struct egress_addrs *host_addrs, int vfiles_dirfd, ar_error_t *err)
{
  struct sv_net *n = xzalloc (sizeof *n);

  pthread_rwlock_init (&n->lock, NULL);
  pthread_mutex_init (&n->cache_lock, NULL);
  pthread_mutex_init (&n->conns_lock, NULL);
  pthread_mutex_init (&n->denials_lock, NULL);
  n->policy = policy;
  n->programs = names_programs (policy);
  n->pins = dns_pins_new (0, DNS_PINS_GRACE);
  if (upstream)
    n->upstream = *upstream;
  if (host_addrs)
    n->host_addrs = *host_addrs;
  n->udp_fd = n->tcp_fd = -1;
  n->cache = xzalloc (SV_NET_CACHE_SLOTS * sizeof *n->cache);
  n->conns = xzalloc (SV_NET_CONNS_MAX * sizeof *n->conns);
  n->denials_fd = vfiles_dirfd < 0 ? -1
                                   : openat (vfiles_dirfd, EGRESS_DENIALS_FILE,
                                             O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (n->denials_fd < 0)
    {
      ar_make_error (err, errno, "supervisor: open the denials file");
      free (n->cache);
      free (n->conns);
      dns_pins_free (n->pins);
      free (n);
      return -1;
    }
  sv->net = n;
  return 0;
}

const struct netpolicy *
sv_net_get (struct sv *sv)
{
  pthread_rwlock_rdlock (&sv->net->lock);
  return sv->net->policy;
}

void
sv_net_put (struct sv *sv)
{
  pthread_rwlock_unlock (&sv->net->lock);
}

/* Every socket held by a process of the container (its network namespace's), with the pid
   and fd that hold it; fn returns false to stop.  */
typedef bool (*socket_fn) (pid_t pid, int fd, ino_t ino, void *data);

static void
each_socket_in (pid_t pid, socket_fn fn, void *data, bool *stop)
{
  char path[64], link[64];
  DIR *d;
  struct dirent *e;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  d = opendir (path);
  if (d == NULL)
    return;
  while (!*stop && (e = readdir (d)) != NULL)
    {
      char fdpath[384];
      unsigned long long ino;
      ssize_t n;
      int fd = atoi (e->d_name);

      if (e->d_name[0] < '0' || e->d_name[0] > '9')
        continue;
      snprintf (fdpath, sizeof fdpath, "%s/%s", path, e->d_name);
      n = readlink (fdpath, link, sizeof link - 1);
      if (n <= 0)
        continue;
      link[n] = '\0';
      if (sscanf (link, "socket:[%llu]", &ino) == 1 && !fn (pid, fd, (ino_t) ino, data))
        *stop = true;
    }
  closedir (d);
}

static void
each_container_socket (struct sv_net *n, socket_fn fn, void *data)
{
  DIR *proc = opendir ("/proc");
  struct dirent *e;
  bool stop = false;

  if (proc == NULL)
    return;
  while (!stop && (e = readdir (proc)) != NULL)
    {
      char path[300];
      struct stat st;

      if (e->d_name[0] < '1' || e->d_name[0] > '9')
        continue;
      snprintf (path, sizeof path, "/proc/%s/ns/net", e->d_name);
      if (stat (path, &st) < 0 || (uint64_t) st.st_ino != n->container_netns_ino)
        continue;
      each_socket_in ((pid_t) atoi (e->d_name), fn, data, &stop);
    }
  closedir (proc);
}

struct held
{
  struct sv_net *n;
  bool *live; /* per conn */
};

static bool
mark_held (pid_t pid, int fd, ino_t ino, void *data)
{
  struct held *h = data;

  (void) pid;
  (void) fd;
  for (size_t i = 0; i < h->n->n_conns; i++)
    if (h->n->conns[i].ino == ino)
      h->live[i] = true;
  return true;
}

static void
conn_drop (struct sv_net *n, size_t i)
{
  free (n->conns[i].exe);
  n->conns[i] = n->conns[--n->n_conns];
}

/* The connections no process holds any more are forgotten (with conns_lock).  */
static void
prune_conns (struct sv_net *n)
{
  cleanup_free bool *live = xzalloc ((n->n_conns + 1) * sizeof *live);
  struct held h = { n, live };

  each_container_socket (n, mark_held, &h);
  for (size_t i = n->n_conns; i-- > 0;)
    if (!live[i])
      conn_drop (n, i);
}

bool
sv_net_conn_add (struct sv *sv, int sock, int family, const uint8_t *addr, uint16_t port,
                 const char *name, const char *exe)
{
  struct sv_net *n = sv->net;
  struct sv_net_conn *c;
  struct stat st;

  if (fstat (sock, &st) < 0)
    return false;
  pthread_mutex_lock (&n->conns_lock);
  if (n->n_conns == SV_NET_CONNS_MAX)
    prune_conns (n);
  if (n->n_conns == SV_NET_CONNS_MAX)
    {
      pthread_mutex_unlock (&n->conns_lock);
      return false;
    }
  c = &n->conns[n->n_conns++];
  memset (c, 0, sizeof *c);
  c->ino = st.st_ino;
  c->family = family;
  memcpy (c->addr, addr, family == AF_INET ? 4 : 16);
  c->port = port;
  snprintf (c->name, sizeof c->name, "%s", name ? name : "");
  c->exe = exe ? xstrdup (exe) : NULL;
  pthread_mutex_unlock (&n->conns_lock);
  return true;
}

/* The workload's file: a header and the denials, oldest first, rewritten in place (the bind
   mount keeps its inode).  */
static void
write_denials (struct sv_net *n)
{
  char buf[256 + SV_NET_DENIALS_MAX * (sizeof n->denials[0].line + 32)];
  size_t len = 0, first = (n->next_denial + SV_NET_DENIALS_MAX - n->n_denials) % SV_NET_DENIALS_MAX;

  len += (size_t) snprintf (buf, sizeof buf,
                            "# egress denied, oldest first (the last %d): TIME KIND TARGET ERROR "
                            "REASON ask: the rule that would allow it\n",
                            SV_NET_DENIALS_MAX);
  for (size_t k = 0; k < n->n_denials && len < sizeof buf; k++)
    {
      const struct sv_net_denial *d = &n->denials[(first + k) % SV_NET_DENIALS_MAX];
      cleanup_free char *time = ar_time_rfc3339 (&d->when);
      len += (size_t) snprintf (buf + len, sizeof buf - len, "%.19sZ %s\n", time, d->line);
    }
  if (len > sizeof buf)
    len = sizeof buf;
  if (pwrite (n->denials_fd, buf, len, 0) == (ssize_t) len)
    (void) !ftruncate (n->denials_fd, (off_t) len);
}

void
sv_net_denied (struct sv *sv, const char *kind, const char *target, const char *err,
               const char *reason, const char *ask)
{
  struct sv_net *n = sv->net;
  struct sv_net_denial *d;
  char line[sizeof d->line];

  /* The target is the workload's (a name it asked for): only host-name characters reach the
     file (dns_msg's host_name, addresses, netpolicy's entry text).  */
  snprintf (line, sizeof line, "%s %s %s %s ask: %s", kind, target, err, reason, ask);
  pthread_mutex_lock (&n->denials_lock);
  /* The same again (a stub asks for A and AAAA, and retries): the newest line, a new time.  */
  d = &n->denials[(n->next_denial + SV_NET_DENIALS_MAX - 1) % SV_NET_DENIALS_MAX];
  if (n->n_denials > 0 && strcmp (d->line, line) == 0)
    {
      clock_gettime (CLOCK_REALTIME, &d->when);
      write_denials (n);
      pthread_mutex_unlock (&n->denials_lock);
      return;
    }
  d = &n->denials[n->next_denial];
  n->next_denial = (n->next_denial + 1) % SV_NET_DENIALS_MAX;
  if (n->n_denials < SV_NET_DENIALS_MAX)
    n->n_denials++;
  clock_gettime (CLOCK_REALTIME, &d->when);
  memcpy (d->line, line, sizeof line);
  write_denials (n);
  pthread_mutex_unlock (&n->denials_lock);
}

/* The entries of `p` as a comma list of their canonical texts, but those in `skip`.  */
static char *
policy_text (const struct netpolicy *p, const struct netpolicy *skip)
{
  char *out = xstrdup ("");

  for (size_t i = 0; p && i < p->n; i++)
    {
      bool skipped = false;
      char *next;
      for (size_t k = 0; skip && k < skip->n && !skipped; k++)
        skipped = strcmp (p->entries[i].text, skip->entries[k].text) == 0;
      if (skipped)
        continue;
      next = xasprintf ("%s%s%s", out, *out ? "," : "", p->entries[i].text);
      free (out);
      out = next;
    }
  return out;
}

static bool
has_entry (const struct netpolicy *p, const char *text)
{
  for (size_t i = 0; i < p->n; i++)
    if (strcmp (p->entries[i].text, text) == 0)
      return true;
  return false;
}

/* The list an update makes, into *out (entries may be none: nothing is allowed).  */
static int
updated_list (const struct netpolicy *old, enum sv_net_op op, const struct netpolicy *given,
              struct netpolicy *out, char **msg)
{
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;

  memset (out, 0, sizeof *out);
  if (op == SV_NET_SET)
    text = policy_text (given, NULL);
  else if (op == SV_NET_ADD)
    {
      cleanup_free char *kept = policy_text (old, given);
      cleanup_free char *added = policy_text (given, NULL);
      text = xasprintf ("%s%s%s", kept, *kept && *added ? "," : "", added);
    }
  else
    {
      for (size_t i = 0; i < given->n; i++)
        if (!has_entry (old, given->entries[i].text))
          {
            *msg
                = xasprintf ("--net-allow-remove: `%s` is not on the list", given->entries[i].text);
            return ENOENT;
          }
      text = policy_text (old, given);
    }
  if (*text == '\0')
    return 0;
  if (netpolicy_parse (text, "the updated list", out, &err) < 0)
    {
      *msg = ar_error_text (err);
      ar_error_release (&err);
      return err ? EINVAL : EINVAL;
    }
  return 0;
}

/* What a connection is checked against when the list changes: the entries, on the name it was
   allowed under (its pin may have expired since: a connection outlives its TTL).  */
static bool
still_allowed (const struct netpolicy *p, const struct sv_net_conn *c)
{
  for (size_t i = 0; i < p->n; i++)
    if (netpolicy_entry_check (&p->entries[i], c->name[0] ? c->name : NULL, c->family, c->addr,
                               c->port, c->exe)
        == NETPOLICY_HIT)
      return true;
  return false;
}

struct revoking
{
  struct sv *sv;
  bool *doomed; /* per conn */
  unsigned shut;
};

/* Shut a doomed connection down through the workload's own fd (pidfd_getfd): FIN to the peer,
   EOF and EPIPE to the workload, at once.  */
static bool
shut_doomed (pid_t pid, int fd, ino_t ino, void *data)
{
  struct revoking *r = data;
  struct sv_net *n = r->sv->net;

  for (size_t i = 0; i < n->n_conns; i++)
    if (r->doomed[i] && n->conns[i].ino == ino)
      {
        int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
        int s = pidfd < 0 ? -1 : (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0);
        struct stat st;
        if (s >= 0 && fstat (s, &st) == 0 && st.st_ino == ino && shutdown (s, SHUT_RDWR) == 0)
          r->shut++;
        if (s >= 0)
          close (s);
        if (pidfd >= 0)
          close (pidfd);
      }
  return true;
}

static void
audit_revoked (struct sv *sv, const struct sv_net_conn *c)
{
  char addr[64] = "?";
  cleanup_free char *detail = NULL;

  inet_ntop (c->family, c->addr, addr, sizeof addr);
  detail
      = xasprintf ("the connection to %s%s%s:%u%s%s%s was shut down: no entry allows it any more",
                   c->family == AF_INET6 ? "[" : "", addr, c->family == AF_INET6 ? "]" : "",
                   (unsigned) c->port, c->name[0] ? " (" : "", c->name, c->name[0] ? ")" : "");
  sv_audit_event (sv, "egress-revoke", "warn", detail);
}

/* After the list changed: the connections it no longer allows are shut down.  */
static unsigned
revoke_denied (struct sv *sv, const struct netpolicy *p)
{
  struct sv_net *n = sv->net;
  struct revoking r = { sv, NULL, 0 };
  bool any = false;

  pthread_mutex_lock (&n->conns_lock);
  r.doomed = xzalloc ((n->n_conns + 1) * sizeof *r.doomed);
  for (size_t i = 0; i < n->n_conns; i++)
    any |= r.doomed[i] = !still_allowed (p, &n->conns[i]);
  if (any)
    each_container_socket (n, shut_doomed, &r);
  for (size_t i = n->n_conns; any && i-- > 0;)
    if (r.doomed[i])
      {
        audit_revoked (sv, &n->conns[i]);
        conn_drop (n, i);
      }
  pthread_mutex_unlock (&n->conns_lock);
  free (r.doomed);
  return r.shut;
}

int
sv_net_update (struct sv *sv, enum sv_net_op op, const char *list, char **msg)
{
  static const char *const flags[] = { "--net-allow", "--net-allow-add", "--net-allow-remove" };
  struct sv_net *n = sv->net;
  struct netpolicy given, *next, *old;
  cleanup_free char *before = NULL;
  cleanup_free char *after = NULL;
  cleanup_free char *detail = NULL;
  ar_error_t err = NULL;
  unsigned shut;
  int r;

  if (n == NULL)
    {
      *msg = xstrdup ("the container has no egress allowlist (it was created without "
                      "--net-allow or io.agentrt.net.allow): its network cannot be opened now");
      return EINVAL;
    }
  if (netpolicy_parse (list, flags[op], &given, &err) < 0)
    {
      *msg = ar_error_text (err);
      ar_error_release (&err);
      return EINVAL;
    }
  next = xzalloc (sizeof *next);
  pthread_rwlock_wrlock (&n->lock);
  old = n->policy;
  r = updated_list (old, op, &given, next, msg);
  if (r == 0)
    {
      /* Whether a name's answers may be the host's is agentrt.conf's, decided at create for the
         list's origin (sandbox.c): an update keeps it (it never turns it on for a list
         config.json gave).  */
      next->special_ok = old->special_ok;
      before = policy_text (old, NULL);
      after = policy_text (next, NULL);
      n->policy = next;
      n->programs = names_programs (next);
    }
  pthread_rwlock_unlock (&n->lock);
  netpolicy_release (&given);
  if (r != 0)
    {
      netpolicy_release (next);
      free (next);
      return r;
    }
  /* Nobody holds the old list now (the lock was exclusive), and no decision refers to it.  */
  netpolicy_release (old);
  free (old);
  detail = xasprintf ("%s: the allowlist was `%s`, is now `%s`", flags[op], before, after);
  sv_audit_event (sv, "egress-policy", "info", detail);
  pthread_rwlock_rdlock (&n->lock);
  shut = revoke_denied (sv, n->policy);
  pthread_rwlock_unlock (&n->lock);
  if (shut)
    ar_debug ("supervisor: egress: %u connections shut down", shut);
  return 0;
}

void
sv_net_tick (struct sv *sv)
{
  struct sv_net *n = sv->net;
  uint64_t now = sv_net_now ();

  if (n == NULL)
    return;
  dns_pins_expire (n->pins, now > 600 ? now - 600 : 0);
  pthread_mutex_lock (&n->cache_lock);
  for (size_t i = 0; i < SV_NET_CACHE_SLOTS; i++)
    if (n->cache[i].used && n->cache[i].expires <= now)
      n->cache[i].used = false;
  pthread_mutex_unlock (&n->cache_lock);
}
