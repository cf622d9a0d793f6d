/* The egress broker (DESIGN.md principle 2).  With an allowlist, the container's network
   namespace has loopback only, and every INET connect is done by the supervisor, on the copy of
   the address it read once and checked, never CONTINUEd (the workload could rewrite the address,
   or swap the fd, after the check):

     allowlisted, a TCP stream socket  the supervisor makes its own socket here, in its network
                                       namespace (the caller's, which has a route, or a CNI
                                       pod's: sv_egress_setup), with the
                                       options the workload set on its socket, connects it, and
                                       puts it in place of the workload's fd (ADDFD with SETFD:
                                       connect returns 0 or EINPROGRESS, not an fd, so not SEND)
     loopback, not allowlisted         the container's own loopback: connected on the workload's
                                       socket itself (pidfd_getfd), which lives in the container's
                                       namespace, so the kernel routes it there
     anything else                     refused: ECONNREFUSED for an allowlisted address on
                                       another port, ENETUNREACH otherwise, as the loopback-only
                                       namespace would answer

   A socket that is not in the container's namespace (a brokered one whose connect failed) is
   never connected for anything but an allowlisted endpoint.  AF_UNIX connects are done here too,
   on the checked unix socket itself, by a thread that first takes the caller's view of the
   filesystem (see unix_enter): continuing them would let the kernel look the fd up again, after
   a racing thread swapped it for a brokered socket of our namespace (an AF_UNSPEC address then
   disconnects it, and a disconnected socket of ours can be connected anywhere).  Blocking connects
   run in a thread of their own, so a slow endpoint never holds up the container's other calls.  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "supervisor/audit_budget.h"
#include "supervisor/sv.h"
#include "supervisor/sv_net.h"
#include "utils.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Threads connecting at once; past it a connect fails with EAGAIN (a workload opening hundreds
   of blocking connects to a black hole must not make hundreds of threads).  */
#define BROKERS_MAX 64

static uint64_t
netns_cookie (int sock)
{
  uint64_t cookie = 0;
  socklen_t len = sizeof cookie;

  if (getsockopt (sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) < 0)
    return 0;
  return cookie;
}

static int
probe_cookie (uint64_t *out, ar_error_t *err)
{
  cleanup_close int s = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  if (s < 0)
    return ar_make_error (err, errno, "supervisor: egress: socket");
  *out = netns_cookie (s);
  if (*out == 0)
    return ar_make_error (err, errno, "supervisor: egress: SO_NETNS_COOKIE");
  return 0;
}

/* The worker's main thread ends up in the namespace the broker connects from: ours (the
   caller's), or the pod's (egress_netns_fd, egress.h).  setns changes the calling thread only
   and a thread is born in its creator's namespace, so this runs before the worker makes any
   thread, and before it confines itself (setns is then refused): every broker socket, made by
   a connect thread, is born there, and the worker can never leave.  */
int
sv_egress_setup (struct sv *sv, int init_pidfd, int egress_netns_fd, ar_error_t *err)
{
  cleanup_close int self = -1;
  int broker_ns = egress_netns_fd;

  if (broker_ns < 0)
    {
      broker_ns = self = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
      if (self < 0)
        return ar_make_error (err, errno, "supervisor: open /proc/self/ns/net");
    }
  if (setns (init_pidfd, CLONE_NEWNET) < 0)
    return ar_make_error (err, errno, "supervisor: join the container's network namespace");
  /* The resolver's sockets are born here, in the container's namespace, and stay there.  */
  if (probe_cookie (&sv->container_netns, err) < 0 || sv_resolver_open (sv, err) < 0)
    return -1;
  if (setns (broker_ns, CLONE_NEWNET) < 0)
    return ar_make_error (err, errno,
                          egress_netns_fd < 0 ? "supervisor: return to the caller's network "
                                                "namespace"
                                              : "supervisor: enter the pod's network namespace");
  if (probe_cookie (&sv->broker_netns, err) < 0)
    return -1;
  if (sv->broker_netns == sv->container_netns)
    return ar_make_error (err, EINVAL, "supervisor: egress: the container shares our network");
  return 0;
}

int
sv_egress_container_ns (struct sv *sv, pid_t init_pid, ar_error_t *err)
{
  char path[64];
  struct stat st;

  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) init_pid);
  if (stat (path, &st) < 0)
    return ar_make_error (err, errno, "supervisor: stat `%s`", path);
  sv->net->container_netns_ino = (uint64_t) st.st_ino;
  return 0;
}

/* Supplementary groups of a caller we take on for an AF_UNIX connect; more is refused (the
   kernel's limit is 65536, far past what a container has).  */
#define NGROUPS_MAX_CALLER 256

/* One connect being done for the workload.  */
struct job
{
  struct sv *sv;
  int notify_fd; /* ours (a dup, in a thread): the worker may close its own meanwhile */
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  const struct sc_entry *entry;
  const char *name;
  const char *rule;
  int target;              /* the workload's fd number */
  int sock;                /* the socket connected: ours (replace) or the workload's own */
  bool replace;            /* sock is ours: it takes the place of the workload's fd */
  bool cloexec;            /* the workload's fd is close-on-exec */
  bool nonblock;           /* the workload's socket is O_NONBLOCK: ours gets it once connected */
  struct timeval sndtimeo; /* the workload's SO_SNDTIMEO, put back once connected */
  struct sockaddr_storage addr;
  socklen_t len;
  char *args;
  char *subject; /* the address, for aggregation (sv_call) */
  bool quiet;    /* a connect to the resolver: not audited (its queries are, when refused) */
  /* A brokered one, for revocation (sv_net_conn_add).  */
  int family;
  uint8_t paddr[16];
  uint16_t port;
  char vname[NETPOLICY_NAME_MAX + 1];
  char *exe;
  /* AF_UNIX (is_unix): the caller's root and cwd (O_PATH), fs ids and groups.  */
  bool is_unix;
  int root, cwd;
  uid_t fsuid;
  gid_t fsgid;
  size_t ngroups;
  gid_t groups[NGROUPS_MAX_CALLER];
};

static void
job_free (struct job *j)
{
  if (j->sock >= 0)
    close (j->sock);
  if (j->root >= 0)
    close (j->root);
  if (j->cwd >= 0)
    close (j->cwd);
  free (j->args);
  free (j->subject);
  free (j->exe);
  free (j);
}

static void
job_audit (struct job *j, const char *verdict, int err)
{
  if (j->quiet)
    return;
  struct sv_call c = { .sv = j->sv,
                       .notify_fd = j->notify_fd,
                       .req = &j->req,
                       .resp = &j->resp,
                       .entry = j->entry,
                       .name = j->name,
                       .rule = j->rule,
                       .subject = j->subject };
  sv_audit (&c, verdict, err, j->args);
}

/* The workload's fd, through pidfd_getfd (the worker has CAP_SYS_PTRACE); -errno on failure,
   -ENOENT when the notification has gone (the pid may have been reused since).  */
static int
workload_fd (const struct sv_call *c, int fd)
{
  int pidfd = (int) syscall (SYS_pidfd_open, (pid_t) c->req->pid, PIDFD_THREAD);
  int got, e;

  if (pidfd < 0 && errno == EINVAL)
    pidfd = (int) syscall (SYS_pidfd_open, (pid_t) c->req->pid, 0);
  if (pidfd < 0)
    return errno == ESRCH ? -ENOENT : -errno;
  if (!sv_id_valid (c))
    {
      close (pidfd);
      return -ENOENT;
    }
  got = (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0);
  e = errno;
  close (pidfd);
  return got < 0 ? -e : got;
}

static bool
fd_cloexec (pid_t pid, int fd)
{
  char path[64];
  cleanup_free char *text = NULL;
  const char *flags;

  snprintf (path, sizeof path, "/proc/%d/fdinfo/%d", (int) pid, fd);
  if (ar_read_file (path, 4096, &text, NULL, NULL) < 0)
    return false;
  flags = strstr (text, "flags:");
  return flags && (strtoul (flags + 6, NULL, 8) & O_CLOEXEC);
}

static int
sockopt_int (int s, int level, int name)
{
  int v = -1;
  socklen_t len = sizeof v;
  return getsockopt (s, level, name, &v, &len) < 0 ? -1 : v;
}

/* The options a workload sets before connect that change the connection.  Each one is copied
   only where it differs from what our fresh socket has (so buffer sizes the workload did not set
   keep their autotuning).  Never copied: SO_BINDTODEVICE and SO_MARK (routing on the host),
   TCP_FASTOPEN*, TCP_REPAIR.  */
static const struct
{
  int level, name;
  bool halve; /* the kernel doubles what is set and reports the doubled value */
} copied[] = {
  { SOL_SOCKET, SO_KEEPALIVE, false },
  { SOL_SOCKET, SO_RCVBUF, true },
  { SOL_SOCKET, SO_SNDBUF, true },
  { SOL_SOCKET, SO_RCVTIMEO, false },
  { SOL_SOCKET, SO_SNDTIMEO, false },
  { SOL_SOCKET, SO_LINGER, false },
  { SOL_SOCKET, SO_OOBINLINE, false },
  { SOL_SOCKET, SO_REUSEADDR, false },
  { SOL_SOCKET, SO_PRIORITY, false },
  { SOL_SOCKET, SO_RCVLOWAT, false },
  { IPPROTO_TCP, TCP_NODELAY, false },
  { IPPROTO_TCP, TCP_KEEPIDLE, false },
  { IPPROTO_TCP, TCP_KEEPINTVL, false },
  { IPPROTO_TCP, TCP_KEEPCNT, false },
  { IPPROTO_TCP, TCP_USER_TIMEOUT, false },
  { IPPROTO_TCP, TCP_SYNCNT, false },
  { IPPROTO_TCP, TCP_MAXSEG, false },
  { IPPROTO_TCP, TCP_NOTSENT_LOWAT, false },
  { IPPROTO_TCP, TCP_WINDOW_CLAMP, false },
  { IPPROTO_TCP, TCP_CORK, false },
  { IPPROTO_IP, IP_TOS, false },
  { IPPROTO_IP, IP_TTL, false },
  { IPPROTO_IPV6, IPV6_V6ONLY, false },
  { IPPROTO_IPV6, IPV6_TCLASS, false },
  { IPPROTO_IPV6, IPV6_UNICAST_HOPS, false },
};

static void
copy_options (int from, int to, int domain)
{
  for (size_t i = 0; i < ARRAY_SIZE (copied); i++)
    {
      unsigned char a[64], b[64];
      socklen_t la = sizeof a, lb = sizeof b;

      if ((copied[i].level == IPPROTO_IPV6 && domain != AF_INET6)
          || (copied[i].level == IPPROTO_IP && domain != AF_INET))
        continue;
      if (getsockopt (from, copied[i].level, copied[i].name, a, &la) < 0
          || getsockopt (to, copied[i].level, copied[i].name, b, &lb) < 0)
        continue;
      if (la == lb && memcmp (a, b, la) == 0)
        continue;
      if (copied[i].halve && la == sizeof (int))
        {
          int v;
          memcpy (&v, a, sizeof v);
          v /= 2;
          memcpy (a, &v, sizeof v);
        }
      if (setsockopt (to, copied[i].level, copied[i].name, a, la) < 0)
        ar_debug ("supervisor: egress: copy socket option %d/%d: %s", copied[i].level,
                  copied[i].name, strerror (errno));
    }
}

/* Our socket for an allowlisted endpoint: the workload's domain, TCP and its options.  It is
   connected blocking, on a thread of its own, and only a connected one is handed over: the
   workload must never hold an unconnected socket of the host's namespace, which the kernel
   would let it connect anywhere (sendto with MSG_FASTOPEN) or listen on.  A non-blocking
   caller therefore sees its connect complete at once (0, which a non-blocking connect may
   return) or fail, after at most BROKER_NONBLOCK_WAIT.  */
#define BROKER_NONBLOCK_WAIT 10

static int
broker_socket (int wfd, int domain)
{
  int s = socket (domain, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);

  if (s < 0)
    return -errno;
  copy_options (wfd, s, domain);
  return s;
}

static void
prepare_nonblock (struct job *j)
{
  struct timeval wait = { BROKER_NONBLOCK_WAIT, 0 };
  socklen_t l = sizeof j->sndtimeo;

  if (getsockopt (j->sock, SOL_SOCKET, SO_SNDTIMEO, &j->sndtimeo, &l) < 0)
    memset (&j->sndtimeo, 0, sizeof j->sndtimeo);
  (void) setsockopt (j->sock, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
}

/* O_NONBLOCK is the file's, shared once handed over: set on ours as the workload had it.  */
static int
finish_nonblock (struct job *j)
{
  (void) setsockopt (j->sock, SOL_SOCKET, SO_SNDTIMEO, &j->sndtimeo, sizeof j->sndtimeo);
  return fcntl (j->sock, F_SETFL, O_NONBLOCK) < 0 ? errno : 0;
}

static int
install (struct job *j)
{
  struct seccomp_notif_addfd a = { .id = j->req.id,
                                   .flags = SECCOMP_ADDFD_FLAG_SETFD,
                                   .srcfd = (unsigned) j->sock,
                                   .newfd = (unsigned) j->target,
                                   .newfd_flags = j->cloexec ? O_CLOEXEC : 0 };

  return ioctl (j->notify_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 ? -errno : 0;
}

/* Connect, then (for ours) hand the socket over; the answer goes into j->resp.  A failed
   blocking connect leaves the workload its own socket: a socket of ours that failed could be
   reconnected by the kernel from our namespace (sendto with MSG_FASTOPEN).  */
static void
run_job (struct job *j)
{
  int r, e;

  if (j->replace && j->nonblock)
    prepare_nonblock (j);
  r = connect (j->sock, (struct sockaddr *) &j->addr, j->len) < 0 ? errno : 0;
  if (j->replace && j->nonblock && r == EINPROGRESS)
    r = ETIMEDOUT; /* SO_SNDTIMEO ran out: not connected, not handed over */
  if (j->replace && j->nonblock && r == 0)
    r = finish_nonblock (j);
  j->resp.id = j->req.id;
  /* Remembered before it is handed over (its inode is the workload's socket's from then on), so
     that a revocation that comes meanwhile finds it.  */
  if (j->replace && r == 0
      && !sv_net_conn_add (j->sv, j->sock, j->family, j->paddr, j->port, j->vname, j->exe))
    r = EAGAIN;
  if (j->replace && r == 0)
    {
      e = install (j);
      if (e < 0)
        r = e == -ENOENT ? EINTR : -e;
    }
  j->resp.error = -r;
  j->resp.val = 0;
  j->resp.flags = 0;
  /* Allowed by the list either way; errno says when the endpoint refused.  */
  job_audit (j, "allow", r == EINPROGRESS ? 0 : r);
}

/* This thread, for the rest of its short life, resolves paths as the caller does: a
   filesystem context of its own (unshare CLONE_FS: the worker's other threads keep theirs)
   rooted at the caller's root and in its cwd, so relative paths, `..` and absolute symlinks
   resolve as the kernel would have resolved them in the caller (the mounts walked are the
   caller's: they hang off its root), and the caller's fs ids and groups, so the permission
   checks on the path and the socket file are the caller's, never wider.  Raw syscalls: the
   libc wrappers of setgroups/setfsuid would apply them to every thread.  The caller's
   capabilities are not taken on: a caller that could connect only thanks to CAP_DAC_OVERRIDE
   is refused (EACCES), which fails closed.  0 or an errno.  */
static int
unix_enter (const struct job *j)
{
  if (syscall (SYS_unshare, CLONE_FS) < 0
      || syscall (SYS_setgroups, j->ngroups, j->ngroups ? j->groups : NULL) < 0)
    return errno;
  (void) syscall (SYS_setfsgid, j->fsgid);
  if ((gid_t) syscall (SYS_setfsgid, -1) != j->fsgid)
    return EPERM;
  (void) syscall (SYS_setfsuid, j->fsuid);
  if ((uid_t) syscall (SYS_setfsuid, -1) != j->fsuid)
    return EPERM;
  if (fchdir (j->root) < 0 || chroot (".") < 0 || fchdir (j->cwd) < 0)
    return errno;
  return 0;
}

static void *
job_thread (void *arg)
{
  struct job *j = arg;
  int e = j->is_unix ? unix_enter (j) : 0;

  if (e == 0)
    run_job (j);
  else
    {
      ar_debug ("supervisor: egress: take the caller's filesystem view: %s", strerror (e));
      j->resp = (struct seccomp_notif_resp){ .id = j->req.id, .error = -e };
      job_audit (j, "deny", e);
    }
  if (ioctl (j->notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &j->resp) < 0 && errno != ENOENT)
    ar_debug ("supervisor: egress: answer notification: %s", strerror (errno));
  atomic_fetch_sub (&j->sv->brokers, 1);
  close (j->notify_fd);
  job_free (j);
  return NULL;
}

/* A blocking connect: a thread of its own answers.  false: none could be started.  */
static bool
defer (struct sv_call *c, struct job *j)
{
  if (atomic_fetch_add (&c->sv->brokers, 1) >= BROKERS_MAX)
    {
      atomic_fetch_sub (&c->sv->brokers, 1);
      return false;
    }
  j->notify_fd = fcntl (c->notify_fd, F_DUPFD_CLOEXEC, 0);
  if (j->notify_fd < 0)
    {
      atomic_fetch_sub (&c->sv->brokers, 1);
      return false;
    }
  if (!sv_thread_detached (job_thread, j))
    {
      close (j->notify_fd);
      atomic_fetch_sub (&c->sv->brokers, 1);
      return false;
    }
  c->deferred = true;
  return true;
}

static void
deny (struct sv_call *c, int err, const char *rule, const char *args)
{
  c->rule = rule;
  c->severity = SEV_WARN;
  sv_reply_error (c, err);
  sv_audit (c, "deny", err, args);
}

struct sock_info
{
  int domain, type, protocol;
  bool nonblock;
  uint64_t netns;
};

static int
sock_info (int fd, struct sock_info *si)
{
  int fl = fcntl (fd, F_GETFL);

  si->domain = sockopt_int (fd, SOL_SOCKET, SO_DOMAIN);
  if (si->domain < 0)
    return -errno;
  si->type = sockopt_int (fd, SOL_SOCKET, SO_TYPE);
  si->protocol = sockopt_int (fd, SOL_SOCKET, SO_PROTOCOL);
  si->nonblock = fl >= 0 && (fl & O_NONBLOCK);
  si->netns = netns_cookie (fd);
  return 0;
}

/* The address as (family, bytes, port), a v4-mapped v6 one as IPv4; false if not INET.  */
static bool
inet_parts (const struct sockaddr_storage *ss, size_t len, int *family, uint8_t addr[16],
            uint16_t *port)
{
  if (ss->ss_family == AF_INET && len >= sizeof (struct sockaddr_in))
    {
      const struct sockaddr_in *in = (const void *) ss;
      *family = AF_INET;
      memcpy (addr, &in->sin_addr, 4);
      *port = ntohs (in->sin_port);
      return true;
    }
  if (ss->ss_family == AF_INET6 && len >= sizeof (struct sockaddr_in6))
    {
      const struct sockaddr_in6 *in6 = (const void *) ss;
      bool mapped = IN6_IS_ADDR_V4MAPPED (&in6->sin6_addr);
      *family = mapped ? AF_INET : AF_INET6;
      memcpy (addr, in6->sin6_addr.s6_addr + (mapped ? 12 : 0), mapped ? 4 : 16);
      *port = ntohs (in6->sin6_port);
      return true;
    }
  return false;
}

/* A connect's decision, and what its audit record and the denials file say.  */
struct decision
{
  const char *rule; /* NULL: refused with deny_err */
  int deny_err;
  bool broker; /* allowed: the broker connects */
  bool quiet;  /* the resolver: local, not audited */
  int family;
  uint8_t addr[16];
  uint16_t port;
  char name[NETPOLICY_NAME_MAX + 1];
  char entry[NETPOLICY_NAME_MAX + NETPOLICY_PROGRAM_MAX + 32];
  const char *reason;
  char *exe;
};

/* The rule that would allow what was refused (the denials file, --suggest).  */
static char *
ask_for (const struct decision *d, enum dns_deny why)
{
  char addr[INET6_ADDRSTRLEN] = "?";
  cleanup_free char *host = NULL;

  inet_ntop (d->family, d->addr, addr, sizeof addr);
  host = d->name[0]              ? xstrdup (d->name)
         : d->family == AF_INET6 ? xasprintf ("[%s]", addr)
                                 : xstrdup (addr);
  if (why == DNS_DENY_PROGRAM && d->exe)
    return xasprintf ("%s:%u@%s", host, (unsigned) d->port, d->exe);
  return xasprintf ("%s:%u", host, (unsigned) d->port);
}

/* The caller's executable, when an entry names a program (netpolicy.h says why it is the
   caller's); NULL otherwise, or when it cannot be read (then only entries without a program
   match).  */
static char *
caller_exe (struct sv_call *c, bool programs)
{
  char buf[NETPOLICY_PROGRAM_MAX + 1];

  if (!programs || netpolicy_caller_exe ((pid_t) c->req->pid, buf, sizeof buf) < 0
      || !sv_id_valid (c))
    return NULL;
  return xstrdup (buf);
}

/* The pins and the list: may the broker connect it?  */
static void
decide_inet (struct sv_call *c, struct decision *d, struct dns_verdict *v)
{
  struct sv_net *n = c->sv->net;
  const struct netpolicy *p;
  bool programs;

  pthread_rwlock_rdlock (&n->lock);
  programs = n->programs;
  pthread_rwlock_unlock (&n->lock);
  d->exe = caller_exe (c, programs);
  p = sv_net_get (c->sv);
  dns_pins_decide (n->pins, p, d->family, d->addr, d->port, d->exe, sv_net_now (), v);
  /* The entry is the list's, which an update may free once the lock is let go.  */
  if (v->entry)
    snprintf (d->entry, sizeof d->entry, "%s", v->entry->text);
  snprintf (d->name, sizeof d->name, "%s", v->name);
  sv_net_put (c->sv);
}

/* What is done with this connect: d->rule for its audit record, or NULL when refused
   (d->deny_err then says how).  */
static void
decide (struct sv_call *c, const struct sockaddr_storage *ss, size_t len,
        const struct sock_info *si, struct decision *d)
{
  bool inet = inet_parts (ss, len, &d->family, d->addr, &d->port);
  bool ours_ns = si->netns == c->sv->container_netns;
  bool tcp = (si->domain == AF_INET || si->domain == AF_INET6) && si->type == SOCK_STREAM
             && (si->protocol == IPPROTO_TCP || si->protocol == 0);
  struct dns_verdict v = { .why = DNS_DENY_UNKNOWN };

  /* The resolver is the container's own, whatever the list says of loopback.  */
  if (inet && ours_ns && egress_is_resolver ((const struct sockaddr *) ss, len))
    {
      d->rule = "egress-local";
      d->quiet = true;
      return;
    }
  if (inet)
    decide_inet (c, d, &v);
  if (inet && v.allowed && tcp)
    {
      d->broker = true;
      d->rule = "egress-allow";
      return;
    }
  /* Only a brokered socket lives elsewhere: it is never reconnected but to the list.  */
  if (!ours_ns)
    {
      d->deny_err = ECONNREFUSED;
      d->reason = "not-container-socket";
      return;
    }
  /* Loopback is the container's own, but for a name the operator let resolve to the host's
     (special_ok): its other ports and programs are refused as any name's.  */
  if (!inet
      || (egress_is_loopback ((const struct sockaddr *) ss, len)
          && !(v.name[0] && (v.why == DNS_DENY_PORT || v.why == DNS_DENY_PROGRAM))))
    {
      d->rule = "egress-local";
      return;
    }
  d->deny_err = v.allowed ? ENETUNREACH : dns_deny_errno (v.why);
  d->reason = v.allowed ? "not-tcp" : dns_deny_name (v.why);
}

/* The connect's args with what the decision was made on: {"fd":…,"addr":…,"egress":{…}}.  */
static char *
decision_args (const char *args_json, const struct decision *d, const char *ask)
{
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *extra = NULL;
  size_t len = strlen (args_json);
  bool cut;

  ar_json_obj_open (j);
  if (d->name[0])
    ar_json_kstr (j, "name", d->name);
  if (d->entry[0])
    {
      ar_json_key (j, "entry");
      ar_json_str_max (j, d->entry, AUDIT_STR_MAX, &cut);
    }
  if (d->reason)
    ar_json_kstr (j, "reason", d->reason);
  if (d->exe)
    {
      ar_json_key (j, "exe");
      ar_json_str_max (j, d->exe, AUDIT_STR_MAX, &cut);
    }
  if (ask)
    {
      ar_json_key (j, "ask");
      ar_json_str_max (j, ask, AUDIT_STR_MAX, &cut);
    }
  ar_json_obj_close (j);
  extra = ar_json_finish (j, NULL);
  if (len < 2 || args_json[len - 1] != '}')
    return xstrdup (args_json);
  return xasprintf ("%.*s,\"egress\":%s}", (int) (len - 1), args_json, extra);
}

/* A refused connect: its errno at once, the audit record, the denials file.  */
static void
deny_connect (struct sv_call *c, struct decision *d, const char *args_json)
{
  enum dns_deny why = DNS_DENY_UNKNOWN;
  char addr[INET6_ADDRSTRLEN] = "?";
  cleanup_free char *ask = NULL;
  cleanup_free char *args = NULL;
  cleanup_free char *target = NULL;

  for (int w = DNS_DENY_UNKNOWN; w <= DNS_DENY_PROGRAM; w++)
    if (d->reason && strcmp (d->reason, dns_deny_name ((enum dns_deny) w)) == 0)
      why = (enum dns_deny) w;
  ask = d->family ? ask_for (d, why) : NULL;
  args = decision_args (args_json, d, ask);
  deny (c, d->deny_err, "egress-deny", args);
  if (d->family == 0)
    return;
  inet_ntop (d->family, d->addr, addr, sizeof addr);
  target = xasprintf ("%s%s%s:%u%s%s%s", d->family == AF_INET6 ? "[" : "", addr,
                      d->family == AF_INET6 ? "]" : "", (unsigned) d->port, d->name[0] ? "(" : "",
                      d->name, d->name[0] ? ")" : "");
  sv_net_denied (c->sv, "connect", target, strerrorname_np (d->deny_err), d->reason, ask);
}

static struct job *
job_new (struct sv_call *c, const char *rule, const char *args_json)
{
  struct job *j = xzalloc (sizeof *j);

  j->sv = c->sv;
  j->notify_fd = c->notify_fd;
  j->req = *c->req;
  j->entry = c->entry;
  j->name = c->name;
  j->rule = rule;
  j->args = xstrdup (args_json);
  j->subject = c->subject ? xstrdup (c->subject) : NULL;
  j->sock = j->root = j->cwd = -1;
  return j;
}

/* The fourth field of /proc/TID/status's line `key` (Uid:, Gid:: the fs id), in our user
   namespace, which is the host's.  */
static bool
status_fs_id (const char *text, const char *key, unsigned *out)
{
  const char *p = strstr (text, key);
  unsigned r, e, s;

  return p && sscanf (p + strlen (key), "%u %u %u %u", &r, &e, &s, out) == 4;
}

static bool
status_groups (const char *text, struct job *j)
{
  const char *p = strstr (text, "\nGroups:");
  char *end;

  if (p == NULL)
    return false;
  p += strlen ("\nGroups:");
  for (;;)
    {
      unsigned long g;

      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\n' || *p == '\0')
        return true;
      errno = 0;
      g = strtoul (p, &end, 10);
      if (end == p || errno != 0 || j->ngroups == NGROUPS_MAX_CALLER)
        return false;
      j->groups[j->ngroups++] = (gid_t) g;
      p = end;
    }
}

/* What unix_enter takes on: the caller's root, cwd and credentials.  The caller's own
   thread (req.pid is a tid) cannot change its credentials while it waits for us; its root
   and cwd may be changed by a thread sharing them, which is the caller's own doing, as it
   would be for the kernel's look-up.  0 or an errno (EINTR: the call has gone).  */
static int
caller_fs (struct sv_call *c, struct job *j)
{
  char path[64];
  cleanup_free char *text = NULL;
  unsigned uid, gid;
  pid_t tid = (pid_t) c->req->pid;

  snprintf (path, sizeof path, "/proc/%d/root", (int) tid);
  j->root = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  snprintf (path, sizeof path, "/proc/%d/cwd", (int) tid);
  j->cwd = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  snprintf (path, sizeof path, "/proc/%d/status", (int) tid);
  if (j->root < 0 || j->cwd < 0 || ar_read_file (path, 1 << 16, &text, NULL, NULL) < 0)
    return sv_id_valid (c) ? EACCES : EINTR;
  if (!status_fs_id (text, "\nUid:", &uid) || !status_fs_id (text, "\nGid:", &gid)
      || !status_groups (text, j))
    return sv_id_valid (c) ? EACCES : EINTR;
  /* Checked last: all of the above was the caller's, not a reused pid's.  */
  if (!sv_id_valid (c))
    return EINTR;
  j->fsuid = uid;
  j->fsgid = gid;
  return 0;
}

/* An AF_UNIX connect, on the socket checked (`wfd`, the workload's own, a unix socket of the
   container's namespace, so an abstract name resolves there too), in a thread of its own
   (unix_enter must not change the worker's own view, and a connect to a busy listener
   blocks).  */
static void
unix_connect (struct sv_call *c, int wfd, const struct sock_info *si, const void *addr, size_t len,
              const char *args_json)
{
  struct job *j;
  int e;

  if (si->domain != AF_UNIX || si->netns != c->sv->container_netns)
    {
      close (wfd);
      sv_reply_error (c, EAFNOSUPPORT);
      return;
    }
  j = job_new (c, "egress-local", args_json);
  j->sock = wfd;
  j->is_unix = true;
  memcpy (&j->addr, addr, len);
  j->len = (socklen_t) len;
  e = caller_fs (c, j);
  if (e != 0)
    {
      job_free (j);
      sv_reply_error (c, e);
      return;
    }
  if (defer (c, j))
    return;
  job_free (j);
  deny (c, EAGAIN, "egress-busy", args_json);
}

/* May this connect wait (a thread of its own then answers it)?  */
static bool
blocking (const struct decision *d, const struct sock_info *si)
{
  return d->broker || (!si->nonblock && si->type != SOCK_DGRAM);
}

void
sv_egress_connect (struct sv_call *c, const void *addr, size_t len, const char *args_json)
{
  const struct sockaddr_storage *ss = addr;
  struct sock_info si = { 0 };
  struct decision d = { 0 };
  cleanup_free char *args = NULL;
  struct job *j;
  int wfd, r;

  wfd = workload_fd (c, (int) c->req->data.args[0]);
  if (wfd < 0)
    {
      sv_reply_error (c, wfd == -ENOENT ? EINTR : wfd == -EBADF ? EBADF : -wfd);
      return;
    }
  r = sock_info (wfd, &si);
  if (r < 0)
    {
      close (wfd);
      sv_reply_error (c, -r); /* ENOTSOCK */
      return;
    }
  if (len >= sizeof ss->ss_family && ss->ss_family == AF_UNIX)
    {
      unix_connect (c, wfd, &si, ss, len, args_json);
      return;
    }
  decide (c, ss, len, &si, &d);
  if (d.rule == NULL)
    {
      close (wfd);
      deny_connect (c, &d, args_json);
      free (d.exe);
      return;
    }
  args = d.broker ? decision_args (args_json, &d, NULL) : xstrdup (args_json);
  j = job_new (c, d.rule, args);
  j->quiet = d.quiet;
  j->target = (int) c->req->data.args[0];
  j->replace = d.broker;
  j->cloexec = d.broker && fd_cloexec ((pid_t) c->req->pid, j->target);
  memcpy (&j->addr, ss, len);
  j->len = (socklen_t) len;
  j->nonblock = si.nonblock;
  j->family = d.family;
  memcpy (j->paddr, d.addr, sizeof d.addr);
  j->port = d.port;
  memcpy (j->vname, d.name, sizeof d.name);
  j->exe = steal_ptr (&d.exe);
  if (d.broker)
    {
      j->sock = broker_socket (wfd, si.domain);
      close (wfd);
      if (j->sock < 0)
        {
          r = -j->sock;
          j->sock = -1;
          job_free (j);
          sv_reply_error (c, r);
          return;
        }
    }
  else
    j->sock = wfd; /* the workload's own socket, in the container's namespace */
  /* A connect of the workload's own socket that cannot block is answered here at once: a
     non-blocking one, or a datagram socket's (it only sets the peer: a stub resolver's connect
     to the sandbox's resolver costs no thread).  */
  if (blocking (&d, &si) && defer (c, j))
    return;
  if (blocking (&d, &si))
    {
      job_free (j);
      deny (c, EAGAIN, "egress-busy", args);
      return;
    }
  run_job (j);
  *c->resp = j->resp;
  job_free (j);
}
