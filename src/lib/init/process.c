/* The container init and the runtime's half of its setup.

   runtime (create)                         init (clone child)
   clone(CLONE_NEWPID without a userns) ───▶ non-dumpable, PDEATHSIG
   (systemd driver) the init into its unit ─ PLACED ─▶ join namespaces
   ◀── MAPS_PLEASE                            euid := its owner, unshare(CLONE_NEWUSER)
   write uid_map/gid_map ── MAPS_DONE ─────▶ become root of it, unshare the others
   ◀── INIT_PID (only when it forks again)   fork once more for a pid/time namespace
   ◀── HOOKS_PLEASE                          hostname, mounts
   prestart + createRuntime ── HOOKS_DONE ─▶ createContainer hooks, sysctl, pivot_root, …
   ◀── READY (or ERROR at any step)          read(exec fifo) … until `start` writes to it
                                             startContainer hooks, identity, caps, execve

   The init never writes to stderr before execve: a failure goes up the socket as status and
   message (crun's send_error_to_sync_socket), and the runtime prints it once.  */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/keyctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init/creds.h"
#include "fdpass.h"
#include "init/hooks.h"
#include "init/process.h"
#include "sandbox/egress.h"
#include "supervisor/vfiles.h"
#include "init/rlimits.h"
#include "init/rootfs.h"
#include "state/state.h"
#include "init/terminal.h"
#include "utils.h"

enum sync_type
{
  SYNC_MAPS_PLEASE = 1,
  SYNC_MAPS_DONE,
  SYNC_INIT_PID,
  SYNC_HOOKS_PLEASE,
  SYNC_HOOKS_DONE,
  SYNC_CONSOLE,  /* the pty master, with SCM_RIGHTS */
  SYNC_LISTENER, /* a seccomp notify fd, with SCM_RIGHTS; status: enum process_filter */
  SYNC_PID_ACK,  /* the runtime has the pid of a process that forked once more */
  SYNC_READY,
  SYNC_ERROR,
  SYNC_TRACE_ME,      /* a ptrace-platform filter is on: attach a tracer before my next step */
  SYNC_TRACE_OK,      /* the supervisor traces it (exec), or will before start (the init) */
  SYNC_PLACED,        /* the runtime has put the init in its cgroups (systemd driver) */
  SYNC_MOUNTS_PLEASE, /* the init has its mount namespace: the runtime opens its bind sources */
  SYNC_MOUNT_SRC,     /* one of them, with SCM_RIGHTS; status: its index in spec->mounts */
  SYNC_MOUNTS_DONE,
  SYNC_OVERLAY, /* a mount of the ephemeral rootfs, with SCM_RIGHTS; status: its place */
};

/* One message is one SOCK_SEQPACKET datagram: a header and a payload (an error message, or the
   state documents for the init's hooks, NUL-separated).  */
#define SYNC_PAYLOAD_MAX (128 * 1024)
struct sync_msg
{
  int type;
  int status; /* SYNC_ERROR: errno */
  int pid;    /* SYNC_INIT_PID */
  int fd;     /* on receipt: an fd that came with the message (SYNC_CONSOLE), or -1 */
  size_t len; /* of payload */
  char payload[SYNC_PAYLOAD_MAX];
};

static int
sync_send_data (int fd, int type, int status, int pid, const char *data, size_t len)
{
  struct sync_msg h = { .type = type, .status = status, .pid = pid, .len = len };
  struct iovec iov[2] = { { &h, offsetof (struct sync_msg, payload) }, { (void *) data, len } };
  struct msghdr mh = { .msg_iov = iov, .msg_iovlen = data ? 2 : 1 };

  if (len > SYNC_PAYLOAD_MAX)
    return -1;
  return sendmsg (fd, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static int
sync_send (int fd, int type, int status, int pid, const char *msg)
{
  return sync_send_data (fd, type, status, pid, msg, msg ? strlen (msg) + 1 : 0);
}

static int
sync_send_console (int sock, int master, ar_error_t *err)
{
  struct sync_msg h = { .type = SYNC_CONSOLE };
  return ar_send_fd (sock, master, &h, offsetof (struct sync_msg, payload), "the pty master", err);
}

/* 0 on a message, -1 on EOF or error (errno 0 for EOF).  The payload is NUL-terminated.  */
static int
sync_recv (int fd, struct sync_msg *m)
{
  ssize_t r = ar_recv_fd (fd, m, sizeof *m - 1, &m->fd);

  if (r >= (ssize_t) offsetof (struct sync_msg, payload))
    {
      m->len = (size_t) r - offsetof (struct sync_msg, payload);
      m->payload[m->len] = '\0';
      return 0;
    }
  if (m->fd >= 0)
    close (m->fd);
  if (r >= 0)
    errno = 0;
  return -1;
}

static struct sync_msg *
sync_msg_new (void)
{
  return xmalloc (sizeof (struct sync_msg));
}

static int
sync_expect (int fd, int type, struct sync_msg *m, ar_error_t *err)
{
  if (sync_recv (fd, m) < 0 || m->type != type)
    return ar_make_error (err, errno, "sync with the runtime: unexpected message");
  return 0;
}

static void __attribute__ ((noreturn)) child_fail (int sock, ar_error_t *err)
{
  char msg[4096];

  snprintf (msg, sizeof msg, "%s", (*err)->msg);
  (void) sync_send (sock, SYNC_ERROR, (*err)->status, 0, msg);
  _exit (EXIT_FAILURE);
}

/* The state documents the init's own hooks read on stdin.  */
struct init_states
{
  char *creating, *created;
};

static bool
is_executable (const char *path)
{
  struct stat st;
  if (stat (path, &st) < 0)
    return false;
  if (!S_ISREG (st.st_mode))
    {
      errno = EACCES;
      return false;
    }
  return access (path, X_OK) == 0;
}

/* An executable that cannot be run, worded as runc words it (Go's lower-case errno text):
   engines read these words.  Docker's CLI exits 127 only when the error says "no such file or
   directory" or "executable file not found", 126 for "permission denied"; otherwise 125.  */
static int
exec_error (ar_error_t *err, int e, const char *name)
{
  cleanup_free char *text = xstrdup (strerror (e));

  text[0] = (char) tolower ((unsigned char) text[0]);
  return ar_make_error (err, 0, "exec `%s`: %s", name, text);
}

int
process_find_executable (const char *name, char **env, char **out, ar_error_t *err)
{
  const char *path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  cleanup_free char *dirs = NULL;
  char *save = NULL;

  if (strchr (name, '/'))
    {
      if (!is_executable (name))
        return exec_error (err, errno ? errno : EACCES, name);
      *out = xstrdup (name);
      return 0;
    }
  for (char **e = env; e && *e; e++)
    if (ar_str_has_prefix (*e, "PATH="))
      path = *e + 5;
  dirs = xstrdup (path);
  for (char *d = strtok_r (dirs, ":", &save); d; d = strtok_r (NULL, ":", &save))
    {
      cleanup_free char *cand = xasprintf ("%s/%s", *d ? d : ".", name);
      if (is_executable (cand))
        {
          *out = steal_ptr (&cand);
          return 0;
        }
    }
  return ar_make_error (err, 0, "exec `%s`: executable file not found in $PATH", name);
}

static bool
wants_sources (const struct process_init_cfg *c, bool at_maps)
{
  return c->sources && c->sources->any && c->sources->at_maps == at_maps;
}

/* Where a SYNC_MOUNT_SRC or SYNC_OVERLAY goes, or NULL for a message that has no place.  */
static int *
source_slot (const struct process_init_cfg *c, const struct sync_msg *m, int *fds, int *overlay)
{
  int *slot = NULL;

  if (m->fd < 0 || m->status < 0)
    return NULL;
  if (m->type == SYNC_MOUNT_SRC && fds && (size_t) m->status < c->spec->n_mounts)
    slot = &fds[m->status];
  else if (m->type == SYNC_OVERLAY && overlay && c->make_overlay && m->status < PROCESS_OVERLAY_FDS)
    slot = &overlay[m->status];
  return slot && *slot < 0 ? slot : NULL;
}

/* The bind sources the runtime opened for us (sources.h), and the ephemeral overlay it made
   for us, until the message UNTIL.  */
static int
recv_sources (const struct process_init_cfg *c, int sock, int until, int *fds, int *overlay,
              ar_error_t *err)
{
  cleanup_free struct sync_msg *m = sync_msg_new ();

  for (;;)
    {
      int *slot;

      if (sync_recv (sock, m) < 0)
        return ar_make_error (err, errno, "sync with the runtime: unexpected message");
      if (m->type == until && m->fd < 0)
        return 0;
      slot = source_slot (c, m, fds, overlay);
      if (slot == NULL)
        {
          ar_closep (&m->fd);
          return ar_make_error (err, 0, "sync with the runtime: a bad mount source");
        }
      *slot = m->fd;
    }
}

/* In a new user namespace: let the runtime write the maps (and open our bind sources, in the
   mount namespace unshared with the user namespace), then become its root.  */
static int
become_userns_root (const struct process_init_cfg *c, int sock, int *src_fds, int *overlay,
                    ar_error_t *err)
{
  if (!c->ns->new_ns[SPEC_NS_USER])
    return 0;
  if (sync_send (sock, SYNC_MAPS_PLEASE, 0, 0, NULL) < 0)
    return ar_make_error (err, errno, "ask for user namespace maps");
  if (recv_sources (c, sock, SYNC_MAPS_DONE, src_fds, overlay, err) < 0)
    return -1;
  if (setresgid (0, 0, 0) < 0 || setresuid (0, 0, 0) < 0)
    return ar_make_error (err, errno, "become root of the user namespace");
  return namespaces_cap_fsnotify (c->ns, err);
}

/* Without a new user namespace, idmapped mounts still need the runtime: asked for once our
   mount namespace is there.  */
static int
ask_for_sources (const struct process_init_cfg *c, int sock, int *src_fds, ar_error_t *err)
{
  if (!wants_sources (c, false))
    return 0;
  if (sync_send (sock, SYNC_MOUNTS_PLEASE, 0, 0, NULL) < 0)
    return ar_make_error (err, errno, "ask for mount sources");
  return recv_sources (c, sock, SYNC_MOUNTS_DONE, src_fds, NULL, err);
}

static void
close_sources (int *fds, size_t n)
{
  for (size_t i = 0; fds && i < n; i++)
    ar_closep (&fds[i]);
  free (fds);
}

/* For a pid or time namespace entered after clone: fork the real init; this process reports
   its pid and leaves.  */
/* After a fork into the new pid namespace, the child's messages must not overtake its
   parent's SYNC_INIT_PID (the runtime would give hooks and the supervisor the wrong pid): it
   waits until the runtime says it has the pid.  */
static int
wait_pid_ack (int sock, ar_error_t *err)
{
  cleanup_free struct sync_msg *m = sync_msg_new ();
  return sync_expect (sock, SYNC_PID_ACK, m, err);
}

static int
fork_real_init (const struct process_init_cfg *c, int sock, ar_error_t *err)
{
  pid_t pid;

  if (!c->ns->fork_init)
    return 0;
  if (c->ns->new_ns[SPEC_NS_TIME] && namespaces_set_time_offsets (&c->spec->linux_, err) < 0)
    return -1;
  pid = fork ();
  if (pid < 0)
    return ar_make_error (err, errno, "fork the container init");
  if (pid > 0)
    _exit (sync_send (sock, SYNC_INIT_PID, 0, pid, NULL) < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
  return wait_pid_ack (sock, err);
}

/* Every container process leads a session of its own, as under runc (nsexec) and crun: it is
   out of the caller's process group and session.  conmon's --timeout kills the container's
   process group: shared with conmon, that killed conmon and left Podman without an exit file.  */
static int
new_session (ar_error_t *err)
{
  if (setsid () < 0)
    return ar_make_error (err, errno, "setsid");
  return 0;
}

/* States too large for a datagram (annotations) come in a memfd: the same two documents.  */
static int
states_from_fd (int fd_in, struct init_states *st, ar_error_t *err)
{
  cleanup_close int fd = fd_in;
  cleanup_free char *text = NULL;
  size_t len = 0, l1;

  if (ar_read_fd (fd, "the container states", 2 * STATE_MAX_SIZE + 2, &text, &len, err) < 0)
    return -1;
  l1 = strnlen (text, len);
  st->creating = xstrdup (text);
  st->created = xstrdup (l1 < len ? text + l1 + 1 : "");
  return 0;
}

/* The runtime runs its hooks and sends the two state documents ours get.  */
static int
run_runtime_hooks (int sock, struct init_states *st, ar_error_t *err)
{
  cleanup_free struct sync_msg *m = sync_msg_new ();

  if (sync_send (sock, SYNC_HOOKS_PLEASE, 0, 0, NULL) < 0)
    return ar_make_error (err, errno, "ask for createRuntime hooks");
  if (sync_expect (sock, SYNC_HOOKS_DONE, m, err) < 0)
    return -1;
  if (m->fd >= 0)
    return states_from_fd (m->fd, st, err);
  st->creating = xstrdup (m->payload);
  st->created = xstrdup (m->payload + strlen (m->payload) + 1 <= m->payload + m->len
                             ? m->payload + strlen (m->payload) + 1
                             : "");
  return 0;
}

static int
cmp_int (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

/* The init inherits every fd of `create`, the lock on the state directory among them: a lock
   held by a process that lives as long as the container would block every later command.  So
   close all but stdio, the passed-on fds and what the init itself uses.  */
static int
close_fds_except (unsigned from, int *keep, size_t n, ar_error_t *err)
{
  qsort (keep, n, sizeof *keep, cmp_int);
  for (size_t i = 0; i < n; i++)
    {
      if ((unsigned) keep[i] < from)
        continue;
      if ((unsigned) keep[i] > from && syscall (SYS_close_range, from, keep[i] - 1, 0) < 0)
        return ar_make_error (err, errno, "close inherited fds");
      from = keep[i] + 1;
    }
  if (syscall (SYS_close_range, from, ~0U, 0) < 0)
    return ar_make_error (err, errno, "close inherited fds");
  return 0;
}

_Static_assert(ROOTFS_OVERLAY_FDS == PROCESS_OVERLAY_FDS, "the init attaches every overlay fd");

static int
close_inherited (const struct process_init_cfg *c, int sock, ar_error_t *err)
{
  cleanup_free int *keep
      = xmalloc ((SPEC_NS_N + VF__N + EGRESS_FILE__N + PROCESS_OVERLAY_FDS + 2) * sizeof *keep);
  size_t n = 0;

  keep[n++] = sock;
  keep[n++] = c->fifo_fd;
  for (size_t i = 0; c->vfile_fds && i < VF__N; i++)
    keep[n++] = c->vfile_fds[i];
  for (size_t i = 0; c->egress_fds && i < EGRESS_FILE__N; i++)
    keep[n++] = c->egress_fds[i];
  for (size_t i = 0; i < PROCESS_OVERLAY_FDS; i++)
    if (c->overlay_fds[i] >= 0)
      keep[n++] = c->overlay_fds[i];
  for (size_t i = 0; i < SPEC_NS_N; i++)
    if (c->ns->join_fd[i] >= 0)
      keep[n++] = c->ns->join_fd[i];
  return close_fds_except (3 + (unsigned) c->extra_fds, keep, n, err);
}

/* --preserve-fds and LISTEN_FDS name fds the caller passed: those came through its execve of
   agentrt, so they are open and not close-on-exec.  Every fd agentrt opens is O_CLOEXEC: one of
   those in the range means the caller passed nothing there, and our own fd (the state lock,
   the state root) would reach the workload.  */
static int
check_passed_fds (int n, ar_error_t *err)
{
  for (int fd = 3; fd < 3 + n; fd++)
    {
      int fl = fcntl (fd, F_GETFD);
      if (fl < 0 || (fl & FD_CLOEXEC))
        return ar_make_error (err, 0,
                              "--preserve-fds/LISTEN_FDS: fd %d was not passed by the caller", fd);
    }
  return 0;
}

/* After chdir: a cwd reached through an fd of the runtime (/proc/self/fd/N) lies outside the
   container's root, and getcwd says so (CVE-2024-21626).  */
static int
check_cwd_inside (const char *cwd, ar_error_t *err)
{
  char buf[4096];

  if (getcwd (buf, sizeof buf) == NULL || buf[0] != '/')
    return ar_make_error (err, errno ? errno : EPERM, "cwd `%s` is outside the container", cwd);
  return 0;
}

static int
enter_cwd (const char *cwd, ar_error_t *err)
{
  cleanup_free char *p = xstrdup (cwd);

  /* runc creates a missing cwd; after pivot_root every path resolves inside the rootfs.  */
  for (char *s = p + 1; *s; s++)
    if (*s == '/')
      {
        *s = '\0';
        (void) mkdir (p, 0755); /* EEXIST, or chdir below reports the real problem */
        *s = '/';
      }
  (void) mkdir (p, 0755);
  if (chdir (cwd) < 0)
    return ar_make_error (err, errno, "chdir to process.cwd `%s`", cwd);
  return check_cwd_inside (cwd, err);
}

static int
join_session_keyring (const struct process_init_cfg *c, ar_error_t *err)
{
  if (c->no_new_keyring)
    return 0;
  /* A fresh anonymous session keyring, so the container never sees the caller's keys.  */
  if (syscall (SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
    return ar_make_error (err, errno, "join a new session keyring");
  return 0;
}

/* process.terminal: the pty is made from the container's own /dev/ptmx; the master goes to the
   runtime.  */
static int
send_terminal (const struct spec_process *p, bool console, int sock, ar_error_t *err)
{
  int master;
  int ret;

  if (!p->terminal)
    return 0;
  master = terminal_setup_in_container (p, console, err);
  if (master < 0)
    return -1;
  ret = sync_send_console (sock, master, err);
  close (master);
  return ret;
}

/* The ptrace platform: a call the filter returns SECCOMP_RET_TRACE for fails with ENOSYS
   while no tracer is attached, so the process waits until the runtime says one is (exec) or
   will be before start releases it (the init).  */
static int
wait_for_tracer (int sock, ar_error_t *err)
{
  cleanup_free struct sync_msg *m = sync_msg_new ();

  if (sync_send (sock, SYNC_TRACE_ME, 0, 0, NULL) < 0)
    return ar_make_error (err, errno, "ask the runtime for the supervisor's tracer");
  return sync_expect (sock, SYNC_TRACE_OK, m, err);
}

/* The filters go on last, and each listener is sent to the runtime at once.  Nothing after
   this may make a call the policy supervises until the runtime has started the supervisor:
   creds_apply and the sync messages are all allowed in the kernel.  */
static int
install_filters (const struct seccomp_prog *const filters[FILTER__N], int sock, ar_error_t *err)
{
  for (int i = 0; i < FILTER__N; i++)
    {
      struct sync_msg h = { .type = SYNC_LISTENER, .status = i };
      int listener = -1;
      int r;

      if (filters[i] == NULL)
        continue;
      if (seccomp_prog_install (filters[i], &listener, err) < 0)
        return ar_error_wrap (err, "%s", i == FILTER_POLICY ? "agentrt policy" : "linux.seccomp");
      if (filters[i]->trace && wait_for_tracer (sock, err) < 0)
        return -1;
      if (listener < 0)
        continue;
      r = ar_send_fd (sock, listener, &h, offsetof (struct sync_msg, payload),
                      "the seccomp listener", err);
      close (listener);
      if (r < 0)
        return -1;
    }
  return 0;
}

/* Without no_new_privs a filter needs CAP_SYS_ADMIN, so it goes on before the capabilities are
   dropped (runc's order); with it, after, so the identity switch is not filtered.  Landlock
   comes first of all, while the process has CAP_SYS_ADMIN in its user namespace either way,
   and before linux.seccomp, which may not list the Landlock calls; the identity switch and the
   filters are nothing Landlock restricts.
   Non-dumpable again after the switch: a change of uid or gid makes the kernel reset it to
   fs.suid_dumpable (commit_creds), which a host may set to 1, and the process must not be
   traceable by the container's processes (ptrace is allowed there) before its filters are on
   and it has exec'd: a tracer could skip the filter's install, or use the sync socket.  */
static int
apply_creds_and_filters (const struct spec_process *p, const struct landlock_ruleset *landlock,
                         const struct seccomp_prog *const filters[FILTER__N], int sock,
                         ar_error_t *err)
{
  if (landlock_apply (landlock, err) < 0)
    return -1;
  if (!p->no_new_privileges && install_filters (filters, sock, err) < 0)
    return -1;
  if (creds_apply (p, err) < 0)
    return -1;
  if (prctl (PR_SET_DUMPABLE, 0) < 0)
    return ar_make_error (err, errno, "prctl (PR_SET_DUMPABLE) after the identity switch");
  return p->no_new_privileges ? install_filters (filters, sock, err) : 0;
}

/* Pass fds 3 … 3+n-1 on; every other inherited fd closes at execve (CVE-2024-21626).  Done
   before the seccomp filters go on: linux.seccomp may be an allowlist written before
   close_range existed (Docker's and containerd's older profiles), which would refuse it, and
   the process must not depend on the workload's profile for its own hygiene.  Whatever the
   process opens afterwards is O_CLOEXEC already.  */
static int
prepare_fds (int n, ar_error_t *err)
{
  for (int fd = 3; fd < 3 + n; fd++)
    if (fcntl (fd, F_SETFD, 0) < 0)
      return ar_make_error (err, errno, "pass fd %d to the container", fd);
  if (syscall (SYS_close_range, 3 + n, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    return ar_make_error (err, errno, "mark inherited fds close-on-exec");
  return 0;
}

/* The rootfs is the init's cwd (process_spawn_init), but joining a mount namespace resets the
   cwd to that namespace's root: there it is looked up by path, in the joined namespace, before
   a new user namespace takes the runtime's credentials away.  */
static int
enter_joined_rootfs (const struct process_init_cfg *c, ar_error_t *err)
{
  if (c->ns->join_fd[SPEC_NS_MOUNT] < 0)
    return 0;
  if (chdir (c->rootfs) < 0)
    return ar_make_error (err, errno, "enter the rootfs `%s` in the joined mount namespace",
                          c->rootfs);
  return 0;
}

/* In a joined user namespace, as in a new one (and as runc's init): its root, so that what the
   init creates belongs to an id the namespace maps (a tmpfs mounted there refuses files of host
   uid 0 with EOVERFLOW).  The paths the runtime's credentials reach are opened by the runtime
   (sources.h) or entered before (enter_joined_rootfs).  */
static int
become_joined_userns_root (const struct process_init_cfg *c, ar_error_t *err)
{
  if (c->ns->join_fd[SPEC_NS_USER] < 0)
    return 0;
  if (setresgid (0, 0, 0) < 0 || setresuid (0, 0, 0) < 0)
    return ar_make_error (err, errno, "become root of the joined user namespace");
  return 0;
}

/* Everything up to the point where the init waits for `start`, in order.  */
static int
init_setup (const struct process_init_cfg *c, int sock, struct init_states *st, char **exe,
            ar_error_t *err)
{
  const struct spec *s = c->spec;
  struct rootfs_ctx rc
      = { .spec = s,
          .bundle = c->bundle,
          .rootfs = c->rootfs,
          .userns = c->ns->new_ns[SPEC_NS_USER] || c->ns->join_fd[SPEC_NS_USER] >= 0,
          .no_pivot = c->no_pivot,
          .vfile_fds = c->vfile_fds,
          .egress_fds = c->egress_fds,
          .overlay = c->overlay_fds[PROCESS_OVERLAY_FDS - 1] >= 0 || c->make_overlay,
          .root_fd = -1 };
  int *src_fds = NULL;
  int ret;

  memcpy (rc.overlay_fds, c->overlay_fds, sizeof rc.overlay_fds);
  if (c->sources && c->sources->any)
    {
      src_fds = xmalloc ((s->n_mounts + 1) * sizeof *src_fds);
      for (size_t i = 0; i < s->n_mounts; i++)
        src_fds[i] = -1;
      rc.sources = c->sources;
      rc.source_fds = src_fds;
    }
  /* runc's order: join, then a new user namespace and its maps, then the rest.  oom_score_adj
     first, while we are host root: the file of a non-dumpable process belongs to host root,
     which the root of a user namespace is not (runc writes it from the runtime).  */
  ret = creds_set_oom_score_adj (&s->process, err) < 0 || namespaces_join (c->ns, err) < 0
                || enter_joined_rootfs (c, err) < 0 || become_joined_userns_root (c, err) < 0
                || namespaces_unshare_user (c->ns, err) < 0
                || become_userns_root (c, sock, src_fds, rc.overlay_fds, err) < 0
                || namespaces_unshare (c->ns, err) < 0
                || ask_for_sources (c, sock, src_fds, err) < 0
                || namespaces_loopback_up (c->ns, err) < 0 || fork_real_init (c, sock, err) < 0
                || new_session (err) < 0 || namespaces_set_uts (s, c->ns, err) < 0
                || rootfs_prepare (&rc, err) < 0
            ? -1
            : 0;
  close_sources (src_fds, s->n_mounts);
  if (ret < 0 || run_runtime_hooks (sock, st, err) < 0)
    {
      ar_closep (&rc.root_fd);
      return -1;
    }
  ret = hooks_run (&s->hooks[SPEC_HOOK_CREATE_CONTAINER], "createContainer", st->creating, err);
  if (ret == 0)
    ret = namespaces_apply_sysctl (s, c->ns, err);
  if (ret == 0)
    ret = rootfs_pivot (&rc, err);
  ar_closep (&rc.root_fd);
  if (ret < 0 || send_terminal (&s->process, true, sock, err) < 0)
    return -1;
  if (creds_set_personality (&s->linux_, err) < 0 || rlimits_apply (&s->process, err) < 0
      || join_session_keyring (c, err) < 0 || enter_cwd (s->process.cwd, err) < 0
      || process_find_executable (s->process.args.v[0], c->env, exe, err) < 0
      || check_passed_fds (c->extra_fds, err) < 0 || prepare_fds (c->extra_fds, err) < 0)
    return -1;
  /* The identity switch, capabilities and filters come before the wait, as in runc, so that
     their failures are create's; startContainer hooks then run with the workload's
     credentials, filtered.  */
  return apply_creds_and_filters (&s->process, &c->landlock, c->filters, sock, err);
}

static void __attribute__ ((noreturn))
init_after_start (const struct process_init_cfg *c, const struct init_states *st, const char *exe)
{
  ar_error_t err = NULL;
  cleanup_free char *text = NULL;
  const struct spec *s = c->spec;

  if (hooks_run (&s->hooks[SPEC_HOOK_START_CONTAINER], "startContainer", st->created, &err) == 0)
    {
      execve (exe, s->process.args.v, c->env);
      exec_error (&err, errno, exe);
    }
  /* `create` has gone by now: the container's own stderr is the only place left.  */
  text = ar_error_text (err);
  dprintf (2, "agentrt: %s\n", text);
  _exit (127);
}

static void __attribute__ ((noreturn)) init_main (const struct process_init_cfg *c, int sock)
{
  ar_error_t err = NULL;
  cleanup_free char *exe = NULL;
  struct init_states st = { NULL, NULL };
  char go;

  sigset_t none;

  /* `run` blocks the signals it forwards; the workload must get them.  */
  sigemptyset (&none);
  if (sigprocmask (SIG_SETMASK, &none, NULL) < 0 || close_inherited (c, sock, &err) < 0)
    {
      if (err == NULL)
        ar_make_error (&err, errno, "reset the signal mask");
      child_fail (sock, &err);
    }
  /* Die with the runtime while it sets us up; no other process may open /proc/self/exe (the
     agentrt binary, CVE-2019-5736) or our memory while we run agentrt code.  */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0 || prctl (PR_SET_DUMPABLE, 0) < 0)
    {
      ar_make_error (&err, errno, "prctl");
      child_fail (sock, &err);
    }
  if (c->place)
    {
      cleanup_free struct sync_msg *m = sync_msg_new ();
      if (sync_expect (sock, SYNC_PLACED, m, &err) < 0)
        child_fail (sock, &err);
    }
  if (init_setup (c, sock, &st, &exe, &err) < 0)
    child_fail (sock, &err);
  (void) prctl (PR_SET_PDEATHSIG, 0); /* `create` exits now; we stay */
  if (sync_send (sock, SYNC_READY, 0, 0, NULL) < 0)
    _exit (EXIT_FAILURE);
  close (sock);
  while (read (c->fifo_fd, &go, 1) < 0)
    if (errno != EINTR)
      _exit (EXIT_FAILURE);
  close (c->fifo_fd);
  init_after_start (c, &st, exe);
}

/* The processes of a setup in progress, from the runtime's side.  */
struct spawn
{
  pid_t clone_pid; /* our child; 0 once reaped */
  pid_t init_pid;  /* the init: clone_pid, or its child when it forked once more */
  int console;     /* the pty master, when the process has a terminal; else -1 */
  int listener[FILTER__N];
};

static void
spawn_kill (struct spawn *sp)
{
  ar_closep (&sp->console);
  for (int i = 0; i < FILTER__N; i++)
    ar_closep (&sp->listener[i]);
  if (sp->init_pid > 0 && sp->init_pid != sp->clone_pid)
    (void) kill (sp->init_pid, SIGKILL); /* not our child: reaped by whoever adopts it */
  if (sp->clone_pid > 0)
    {
      (void) kill (sp->clone_pid, SIGKILL);
      (void) waitpid (sp->clone_pid, NULL, 0);
    }
}

/* The end of a spawn, init or exec: on failure nothing of it is left; else what it left us.  */
static int
spawn_finish (struct spawn *sp, int ret, struct process_result *res)
{
  if (ret < 0)
    {
      spawn_kill (sp);
      return -1;
    }
  res->pid = sp->init_pid;
  res->console = sp->console;
  memcpy (res->listener, sp->listener, sizeof sp->listener);
  return 0;
}

/* The config's annotations are in both states, and may be a few hundred KiB (spec.h): more
   than one datagram holds.  */
static int
send_states_memfd (int sock, const char *both, size_t len, ar_error_t *err)
{
  struct sync_msg h = { .type = SYNC_HOOKS_DONE };
  cleanup_close int fd = memfd_create ("agentrt-states", MFD_CLOEXEC);

  if (fd < 0)
    return ar_make_error (err, errno, "memfd_create");
  if (ar_write_all (fd, both, len, "the container states", err) < 0)
    return -1;
  if (lseek (fd, 0, SEEK_SET) < 0)
    return ar_make_error (err, errno, "lseek");
  return ar_send_fd (sock, fd, &h, offsetof (struct sync_msg, payload), "the container states",
                     err);
}

static int
send_states (int sock, struct spawn *sp, process_runtime_hooks_fn hooks, void *data,
             ar_error_t *err)
{
  cleanup_free char *creating = NULL;
  cleanup_free char *created = NULL;
  cleanup_free char *both = NULL;
  size_t l1, l2;

  if (hooks (sp->init_pid, data, &creating, &created, err) < 0)
    return -1;
  l1 = strlen (creating) + 1;
  l2 = strlen (created) + 1;
  both = xmalloc (l1 + l2);
  memcpy (both, creating, l1);
  memcpy (both + l1, created, l2);
  /* sync_recv keeps a byte for the NUL.  */
  if (l1 + l2 < SYNC_PAYLOAD_MAX)
    {
      if (sync_send_data (sock, SYNC_HOOKS_DONE, 0, 0, both, l1 + l2) < 0)
        return ar_make_error (err, errno, "send the state to the container init");
      return 0;
    }
  return send_states_memfd (sock, both, l1 + l2, err);
}

/* The init's bind sources, opened in its mount namespace (sources.h), one message each; ours
   are closed again: the init holds them now (or has died, taking them along).  */
static int
send_sources (const struct process_init_cfg *c, int sock, struct spawn *sp, ar_error_t *err)
{
  const struct sources_plan *p = c->sources;
  cleanup_free int *fds = NULL;
  int ret = 0;

  if (!p->any)
    return 0;
  fds = xmalloc ((p->n + 1) * sizeof *fds);
  if (sources_open (p, &c->spec->linux_, sp->clone_pid, fds, err) < 0)
    return -1;
  for (size_t i = 0; i < p->n; i++)
    {
      struct sync_msg h = { .type = SYNC_MOUNT_SRC, .status = (int) i };
      if (fds[i] >= 0 && ret == 0)
        ret = ar_send_fd (sock, fds[i], &h, offsetof (struct sync_msg, payload), "a mount source",
                          err);
      ar_closep (&fds[i]);
    }
  return ret;
}

/* The ephemeral overlay that needs the init's user namespace, made now that it has its maps.  */
static int
send_overlay (const struct process_init_cfg *c, int sock, struct spawn *sp, ar_error_t *err)
{
  int fds[PROCESS_OVERLAY_FDS];

  if (c->make_overlay == NULL)
    return 0;
  for (int i = 0; i < PROCESS_OVERLAY_FDS; i++)
    fds[i] = -1;
  if (c->make_overlay (sp->clone_pid, c->make_overlay_data, fds, err) < 0)
    return -1;
  for (int i = 0; i < PROCESS_OVERLAY_FDS; i++)
    {
      struct sync_msg h = { .type = SYNC_OVERLAY, .status = i };
      if (fds[i] >= 0
          && ar_send_fd (sock, fds[i], &h, offsetof (struct sync_msg, payload),
                         "the ephemeral overlay", err)
                 < 0)
        return -1;
    }
  return 0;
}

/* One message of the init; 1 once it is READY.  */
static int
parent_step (const struct process_init_cfg *c, int sock, struct spawn *sp, struct sync_msg *m,
             process_runtime_hooks_fn hooks, void *data, ar_error_t *err)
{
  switch (m->type)
    {
    case SYNC_MAPS_PLEASE:
      if (namespaces_write_id_maps (sp->clone_pid, &c->spec->linux_, err) < 0
          || (c->sources && c->sources->at_maps && send_sources (c, sock, sp, err) < 0)
          || send_overlay (c, sock, sp, err) < 0)
        return -1;
      return sync_send (sock, SYNC_MAPS_DONE, 0, 0, NULL) < 0
                 ? ar_make_error (err, errno, "sync with the container init")
                 : 0;
    case SYNC_MOUNTS_PLEASE:
      if (c->sources == NULL || send_sources (c, sock, sp, err) < 0)
        return c->sources ? -1 : ar_make_error (err, 0, "container init asked for no sources");
      return sync_send (sock, SYNC_MOUNTS_DONE, 0, 0, NULL) < 0
                 ? ar_make_error (err, errno, "sync with the container init")
                 : 0;
    case SYNC_INIT_PID:
      sp->init_pid = m->pid;
      (void) waitpid (sp->clone_pid, NULL, 0); /* it has done its part */
      sp->clone_pid = 0;
      return sync_send (sock, SYNC_PID_ACK, 0, 0, NULL) < 0
                 ? ar_make_error (err, errno, "sync with the container init")
                 : 0;
    case SYNC_HOOKS_PLEASE:
      return send_states (sock, sp, hooks, data, err);
    case SYNC_CONSOLE:
      if (m->fd < 0)
        return ar_make_error (err, 0, "container init sent no pty master");
      sp->console = m->fd;
      return 0;
    case SYNC_LISTENER:
      if (m->fd < 0 || m->status < 0 || m->status >= FILTER__N || sp->listener[m->status] >= 0)
        return ar_make_error (err, 0, "container init sent a bad seccomp listener");
      sp->listener[m->status] = m->fd;
      return 0;
    case SYNC_TRACE_ME:
      /* The supervisor, started once the init is READY, attaches before create returns.  */
      return sync_send (sock, SYNC_TRACE_OK, 0, 0, NULL) < 0
                 ? ar_make_error (err, errno, "sync with the container init")
                 : 0;
    case SYNC_READY:
      return 1;
    case SYNC_ERROR:
      ar_make_error (err, m->status, "%s", m->payload);
      /* A path the init could not reach: which directory stopped it, and why.  */
      sources_explain_error (err, sp->clone_pid, c->ns, &c->spec->linux_);
      return -1;
    default:
      return ar_make_error (err, 0, "container init sent an unknown message %d", m->type);
    }
}

/* A child of ours (ar_clone): with cgroup_fd >= 0 it is born in that cgroup2 directory.  */
static pid_t
clone_child (unsigned long flags, int cgroup_fd, ar_error_t *err)
{
  pid_t pid = ar_clone (flags, cgroup_fd);

  if (pid < 0)
    return ar_make_error (err, errno, "%s",
                          cgroup_fd < 0 ? "clone"
                                        : "clone3 into the container's cgroup2 directory");
  return pid;
}

/* The runtime's half of the protocol; returns 0 once the init is READY.  */
static int
parent_sync (const struct process_init_cfg *c, int sock, struct spawn *sp,
             process_runtime_hooks_fn hooks, void *data, ar_error_t *err)
{
  cleanup_free struct sync_msg *m = sync_msg_new ();
  int r;

  do
    {
      if (sync_recv (sock, m) < 0)
        return ar_make_error (err, errno, "container init exited during setup");
      r = parent_step (c, sock, sp, m, hooks, data, err);
    }
  while (r == 0);
  return r < 0 ? -1 : 0;
}

/* The systemd driver's step, before the init does anything.  */
static int
place_init (const struct process_init_cfg *c, int sock, pid_t pid, ar_error_t *err)
{
  if (c->place == NULL)
    return 0;
  if (c->place (pid, c->place_data, err) < 0)
    return -1;
  if (sync_send (sock, SYNC_PLACED, 0, 0, NULL) < 0)
    return ar_make_error (err, errno, "sync with the container init");
  return 0;
}

/* The init gets the rootfs as its cwd, opened here with the runtime's credentials: the init
   itself may be the root of a user namespace that cannot search the directories above the
   bundle (rootfs.h).  *saved is our own cwd, to return to right after the clone.  A joined mount
   namespace resets the cwd: that init enters the rootfs itself (enter_joined_rootfs).  */
static int
cwd_to_rootfs (const struct process_init_cfg *c, int *saved, ar_error_t *err)
{
  cleanup_close int root = -1;

  *saved = -1;
  if (c->ns->join_fd[SPEC_NS_MOUNT] >= 0)
    return 0;
  root = open (c->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0)
    return ar_make_error (err, errno, "open the rootfs `%s`", c->rootfs);
  *saved = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (*saved < 0)
    return ar_make_error (err, errno, "open the working directory");
  if (fchdir (root) < 0)
    {
      int e = errno;
      ar_closep (saved);
      return ar_make_error (err, e, "enter the rootfs `%s`", c->rootfs);
    }
  return 0;
}

int
process_spawn_init (const struct process_init_cfg *c, process_runtime_hooks_fn hooks,
                    void *hooks_data, struct process_result *res, ar_error_t *err)
{
  int sv[2];
  struct spawn sp = { 0, 0, -1, { -1, -1 } };
  cleanup_close int saved_cwd = -1;
  bool restored;
  int ret;

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return ar_make_error (err, errno, "socketpair");
  if (cwd_to_rootfs (c, &saved_cwd, err) < 0)
    {
      close (sv[0]);
      close (sv[1]);
      return -1;
    }
  sp.clone_pid = clone_child ((unsigned long) c->ns->clone_flags, c->cgroup_fd, err);
  if (sp.clone_pid == 0)
    {
      close (sv[0]);
      init_main (c, sv[1]);
    }
  /* Our own cwd again at once: --pid-file, a relative --root, … name paths of the caller's.  */
  restored = saved_cwd < 0 || fchdir (saved_cwd) == 0;
  if (sp.clone_pid < 0 || !restored)
    {
      int e = errno;
      close (sv[0]);
      close (sv[1]);
      if (sp.clone_pid < 0)
        return ar_error_wrap (err, "clone the container init");
      spawn_kill (&sp);
      return ar_make_error (err, e, "return to the working directory");
    }
  close (sv[1]);
  sp.init_pid = sp.clone_pid;
  ret = place_init (c, sv[0], sp.clone_pid, err);
  if (ret == 0)
    ret = parent_sync (c, sv[0], &sp, hooks, hooks_data, err);
  close (sv[0]);
  return spawn_finish (&sp, ret, res);
}

/* exec.  The new process joins the init's namespaces (the ones that differ from ours), forks
   once more when that put it in another pid or time namespace, and execs.  A failure before
   execve goes up the socket; a successful execve closes it (SOCK_CLOEXEC), which is the
   runtime's signal that the process runs.  */

/* The user namespace last, as create makes it (namespaces.c, late_userns): the others may belong
   to another one (a pod's sandbox's, whose UTS namespace the container joined), where the
   container's root has no capability but host root has every one.  Mount before it: it moves
   our root, and setns refuses a user namespace to a process whose root is not its mount
   namespace's.  */
static const enum spec_ns_kind exec_join_order[] = {
  SPEC_NS_IPC,    SPEC_NS_UTS,  SPEC_NS_NETWORK, SPEC_NS_PID,
  SPEC_NS_CGROUP, SPEC_NS_TIME, SPEC_NS_MOUNT,   SPEC_NS_USER,
};

/* Open the init's namespaces before joining any: once in its mount namespace, /proc is its.  */
static int
open_init_namespaces (pid_t pid, int fds[SPEC_NS_N], ar_error_t *err)
{
  for (size_t i = 0; i < SPEC_NS_N; i++)
    {
      char theirs[64], ours[64];
      struct stat a, b;

      fds[i] = -1;
      snprintf (theirs, sizeof theirs, "/proc/%d/ns/%s", (int) pid, spec_namespace_names[i].proc);
      snprintf (ours, sizeof ours, "/proc/self/ns/%s", spec_namespace_names[i].proc);
      if (stat (theirs, &a) < 0)
        return ar_make_error (err, errno, "exec: namespace `%s` of the init", theirs);
      if (stat (ours, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
        continue; /* shared with the runtime: nothing to join */
      fds[i] = open (theirs, O_RDONLY | O_CLOEXEC);
      if (fds[i] < 0)
        return ar_make_error (err, errno, "exec: open `%s`", theirs);
    }
  return 0;
}

static int
join_init_namespaces (const struct process_exec_cfg *c, bool *fork_again, ar_error_t *err)
{
  int fds[SPEC_NS_N];
  int ret = open_init_namespaces (c->init_pid, fds, err);

  /* The files are the init's only if it is still the same process (the pid may be reused).  */
  if (ret == 0 && state_proc_start_time (c->init_pid) != c->init_start)
    ret = ar_make_error (err, ESRCH, "exec: the container's init has exited");
  *fork_again = fds[SPEC_NS_PID] >= 0 || fds[SPEC_NS_TIME] >= 0;
  for (size_t i = 0; ret == 0 && i < ARRAY_SIZE (exec_join_order); i++)
    {
      enum spec_ns_kind k = exec_join_order[i];
      if (fds[k] >= 0 && setns (fds[k], spec_namespace_names[k].clone_flag) < 0)
        ret = ar_make_error (err, errno, "exec: join the %s namespace",
                             spec_namespace_names[k].oci);
    }
  for (size_t i = 0; i < SPEC_NS_N; i++)
    ar_closep (&fds[i]);
  return ret;
}

static int
exec_setup (const struct process_exec_cfg *c, int sock, char **exe, ar_error_t *err)
{
  bool fork_again = false;
  pid_t pid;

  if (join_init_namespaces (c, &fork_again, err) < 0)
    return -1;
  if (fork_again)
    {
      pid = fork ();
      if (pid < 0)
        return ar_make_error (err, errno, "exec: fork into the pid namespace");
      if (pid > 0)
        _exit (sync_send (sock, SYNC_INIT_PID, 0, pid, NULL) < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
      if (wait_pid_ack (sock, err) < 0)
        return -1;
    }
  if (new_session (err) < 0 || rlimits_apply (c->proc, err) < 0
      || send_terminal (c->proc, false, sock, err) < 0)
    return -1;
  if (chdir (c->proc->cwd) < 0)
    return ar_make_error (err, errno, "exec: chdir to `%s`", c->proc->cwd);
  if (check_cwd_inside (c->proc->cwd, err) < 0)
    return -1;
  return process_find_executable (c->proc->args.v[0], c->env, exe, err);
}

static void __attribute__ ((noreturn)) exec_main (const struct process_exec_cfg *c, int sock)
{
  ar_error_t err = NULL;
  cleanup_free char *exe = NULL;
  sigset_t none;

  sigemptyset (&none);
  int keep[1] = { sock };

  if (sigprocmask (SIG_SETMASK, &none, NULL) < 0 || prctl (PR_SET_PDEATHSIG, SIGKILL) < 0
      || prctl (PR_SET_DUMPABLE, 0) < 0)
    {
      ar_make_error (&err, errno, "exec: prepare the process");
      child_fail (sock, &err);
    }
  /* Nothing of the caller's but stdio and the passed fds may survive into the container, not
     even until execve: a cwd of /proc/self/fd/N would reach through it (CVE-2024-21626).  */
  if (check_passed_fds (c->extra_fds, &err) < 0
      || close_fds_except (3 + (unsigned) c->extra_fds, keep, 1, &err) < 0)
    child_fail (sock, &err);
  if (exec_setup (c, sock, &exe, &err) < 0 || prepare_fds (c->extra_fds, &err) < 0
      || apply_creds_and_filters (c->proc, &c->landlock, c->filters, sock, &err) < 0)
    child_fail (sock, &err);
  (void) prctl (PR_SET_PDEATHSIG, 0);
  execve (exe, c->proc->args.v, c->env);
  exec_error (&err, errno, exe);
  child_fail (sock, &err);
}

/* Messages of the exec'd process until its execve closes the socket.  */
static int
exec_parent (const struct process_exec_cfg *c, int sock, struct spawn *sp, ar_error_t *err)
{
  cleanup_free struct sync_msg *m = sync_msg_new ();

  for (;;)
    {
      if (sync_recv (sock, m) < 0)
        return errno == 0 ? 0 : ar_make_error (err, errno, "exec: sync with the process");
      if (m->type == SYNC_ERROR)
        return ar_make_error (err, m->status, "%s", m->payload);
      if (m->type == SYNC_CONSOLE && m->fd >= 0)
        {
          sp->console = m->fd;
          continue;
        }
      if (m->type == SYNC_LISTENER && m->fd >= 0 && m->status >= 0 && m->status < FILTER__N
          && sp->listener[m->status] < 0)
        {
          sp->listener[m->status] = m->fd;
          if (m->status == FILTER_POLICY)
            {
              int r = c->hand_over (m->fd, sp->init_pid, c->hand_over_data, err);
              ar_closep (&sp->listener[FILTER_POLICY]);
              if (r < 0)
                return -1;
            }
          continue;
        }
      if (m->type == SYNC_TRACE_ME)
        {
          if (c->hand_over (-1, sp->init_pid, c->hand_over_data, err) < 0)
            return -1;
          if (sync_send (sock, SYNC_TRACE_OK, 0, 0, NULL) < 0)
            return ar_make_error (err, errno, "exec: sync with the process");
          continue;
        }
      if (m->type != SYNC_INIT_PID)
        return ar_make_error (err, 0, "exec: unexpected message %d", m->type);
      sp->init_pid = m->pid;
      (void) waitpid (sp->clone_pid, NULL, 0);
      sp->clone_pid = 0;
      if (sync_send (sock, SYNC_PID_ACK, 0, 0, NULL) < 0)
        return ar_make_error (err, errno, "exec: sync with the process");
    }
}

int
process_spawn_exec (const struct process_exec_cfg *c, struct process_result *res, ar_error_t *err)
{
  int sv[2];
  struct spawn sp = { 0, 0, -1, { -1, -1 } };
  int ret;

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return ar_make_error (err, errno, "socketpair");
  sp.clone_pid = clone_child (0, c->cgroup_fd, err);
  if (sp.clone_pid < 0)
    {
      close (sv[0]);
      close (sv[1]);
      return ar_error_wrap (err, "exec");
    }
  if (sp.clone_pid == 0)
    {
      close (sv[0]);
      exec_main (c, sv[1]);
    }
  close (sv[1]);
  sp.init_pid = sp.clone_pid;
  ret = exec_parent (c, sv[0], &sp, err);
  close (sv[0]);
  return spawn_finish (&sp, ret, res);
}
