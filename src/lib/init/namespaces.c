/* Namespaces of the container: planned in the runtime (paths opened, maps validated), entered in
   the child.  A new user namespace is made first among those the child creates, so every
   namespace it unshares afterwards is owned by it, as the runtime-spec expects.

   Its owner is not host root: the kernel charges the per-user counters of everything made
   inside (inotify instances, fanotify groups, user namespaces, kernel/ucount.c inc_ucount) at
   each level up to the namespace's owner, so a container owned by root could take all 128
   inotify instances and fanotify groups of host root (and then agentrt's own canary set-up of
   the next container failed).  Nor is it any uid a process runs as: the owner has every
   capability in the namespace.  It is a uid of agentrt's reserved range, one per container
   (state/owners.h).  The owner is the euid of the process that creates the namespace, which
   the runtime cannot lend for the clone (it would lose the capabilities that
   CLONE_INTO_CGROUP needs): the child, cloned as root, sets its euid to that uid and unshares
   the user namespace itself (late_userns).  A new pid namespace is then unshared after it
   (owned by it) and the init forked into it.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "init/namespaces.h"
#include "policy/policy.h"
#include "utils.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static int
plan_entry (const struct spec_namespace *n, size_t i, struct ns_plan *p, ar_error_t *err)
{
  if (n->path == NULL)
    {
      p->new_ns[n->kind] = true;
      return 0;
    }
  p->join_fd[n->kind] = open (n->path, O_RDONLY | O_CLOEXEC);
  if (p->join_fd[n->kind] < 0)
    return ar_make_error (err, errno, "linux.namespaces[%zu]: open `%s`", i, n->path);
  return 0;
}

static int
check_maps (const struct spec_linux *l, const struct ns_plan *p, ar_error_t *err)
{
  bool maps = l->n_uid_mappings > 0 || l->n_gid_mappings > 0;

  if (p->new_ns[SPEC_NS_USER] && (l->n_uid_mappings == 0 || l->n_gid_mappings == 0))
    return ar_make_error (err, 0,
                          "config.json: linux.uidMappings and gidMappings are required with a "
                          "new user namespace");
  /* With a joined user namespace they describe it (containerd 1.7 and 2.x send the pod's
     with /proc/PID/ns/user of its sandbox, as runc 1.1 accepts): not written, but an idmapped
     mount with the same mapping uses that namespace (sources.c).  */
  if (maps && !p->new_ns[SPEC_NS_USER] && p->join_fd[SPEC_NS_USER] < 0)
    return ar_make_error (err, 0,
                          "config.json: linux.uidMappings and gidMappings need a user "
                          "namespace");
  if ((l->time_monotonic.set || l->time_boottime.set) && !p->new_ns[SPEC_NS_TIME])
    return ar_make_error (err, 0, "config.json: linux.timeOffsets need a new time namespace");
  return 0;
}

static void
plan_flags (struct ns_plan *p)
{
  static const int unshared[]
      = { SPEC_NS_MOUNT, SPEC_NS_NETWORK, SPEC_NS_IPC, SPEC_NS_UTS, SPEC_NS_CGROUP };

  /* Always unshared by the child, as its owner (see above); after the joins, too: joining a
     namespace owned by the host's user namespace needs the host's capabilities (containerd's
     pods with hostUsers: false join a network namespace made by CNI).  */
  p->late_userns = p->new_ns[SPEC_NS_USER];
  /* Entering a pid or time namespace only affects children, so then the child forks the init
     once more.  A pid namespace made by clone would belong to the runtime's user namespace
     when the container has another one.  */
  p->fork_init = p->join_fd[SPEC_NS_PID] >= 0 || p->join_fd[SPEC_NS_TIME] >= 0
                 || p->new_ns[SPEC_NS_TIME] || (p->new_ns[SPEC_NS_PID] && p->late_userns)
                 || (p->new_ns[SPEC_NS_PID] && p->join_fd[SPEC_NS_USER] >= 0);
  if (p->new_ns[SPEC_NS_PID] && !p->fork_init)
    p->clone_flags |= CLONE_NEWPID;
  for (size_t i = 0; i < ARRAY_SIZE (unshared); i++)
    if (p->new_ns[unshared[i]])
      p->unshare_flags |= spec_namespace_names[unshared[i]].clone_flag;
  /* unshare(CLONE_NEWUSER|CLONE_NEWNS) makes the user namespace first, then the mount
     namespace owned by it: the same namespaces, one step earlier.  */
  p->userns_with_mnt = p->late_userns && p->new_ns[SPEC_NS_MOUNT];
  if (p->userns_with_mnt)
    p->unshare_flags &= ~CLONE_NEWNS;
}

/* Where the runtime cannot give the namespace an owner of its own (state/owners.h: not root,
   or nested in a user namespace that does not map the reserved range), the host ids of its
   root, or of its first mapping when root is not mapped: not host root, at least.  */
static void
userns_owner_fallback (const struct spec_linux *l, struct ns_plan *p)
{
  p->userns_owner = spec_id_root_host (l->uid_mappings, l->n_uid_mappings,
                                       l->n_uid_mappings ? l->uid_mappings[0].host_id : 0);
  p->userns_group = spec_id_root_host (l->gid_mappings, l->n_gid_mappings,
                                       l->n_gid_mappings ? l->gid_mappings[0].host_id : 0);
}

int
namespaces_plan (const struct spec *s, struct ns_plan *p, ar_error_t *err)
{
  const struct spec_linux *l = &s->linux_;

  memset (p, 0, sizeof *p);
  for (size_t i = 0; i < SPEC_NS_N; i++)
    p->join_fd[i] = -1;
  for (size_t i = 0; i < l->n_namespaces; i++)
    if (plan_entry (&l->namespaces[i], i, p, err) < 0)
      {
        namespaces_plan_release (p);
        return -1;
      }
  if (!p->new_ns[SPEC_NS_MOUNT] && p->join_fd[SPEC_NS_MOUNT] < 0)
    {
      namespaces_plan_release (p);
      return ar_make_error (err, 0, "config.json: linux.namespaces: a mount namespace is required");
    }
  if (check_maps (l, p, err) < 0)
    {
      namespaces_plan_release (p);
      return -1;
    }
  plan_flags (p);
  userns_owner_fallback (l, p);
  return 0;
}

void
namespaces_plan_release (struct ns_plan *p)
{
  for (size_t i = 0; i < SPEC_NS_N; i++)
    ar_closep (&p->join_fd[i]);
}

static int
write_map (pid_t pid, const char *file, const struct spec_id_mapping *m, size_t n, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("/proc/%d/%s", (int) pid, file);
  cleanup_free char *buf = xzalloc (n * 36 + 1);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);
  size_t len = 0;

  if (fd < 0)
    return ar_make_error (err, errno, "open `%s`", path);
  for (size_t i = 0; i < n; i++)
    len += sprintf (buf + len, "%u %u %u\n", m[i].container_id, m[i].host_id, m[i].size);
  /* The kernel takes the whole map in one write, or nothing.  */
  if (write (fd, buf, len) != (ssize_t) len)
    return ar_make_error (err, errno, "write `%s`", path);
  return 0;
}

int
namespaces_write_id_maps (pid_t pid, const struct spec_linux *l, ar_error_t *err)
{
  if (write_map (pid, "uid_map", l->uid_mappings, l->n_uid_mappings, err) < 0
      || write_map (pid, "gid_map", l->gid_mappings, l->n_gid_mappings, err) < 0)
    return ar_error_wrap (err, "user namespace maps");
  return 0;
}

int
namespaces_join (const struct ns_plan *p, ar_error_t *err)
{
  /* The user namespace first: it decides what the others may be joined with.  */
  if (p->join_fd[SPEC_NS_USER] >= 0 && setns (p->join_fd[SPEC_NS_USER], CLONE_NEWUSER) < 0)
    return ar_make_error (err, errno, "setns user namespace");
  for (size_t i = 0; i < SPEC_NS_N; i++)
    {
      if (i == SPEC_NS_USER || p->join_fd[i] < 0)
        continue;
      if (setns (p->join_fd[i], spec_namespace_names[i].clone_flag) < 0)
        return ar_make_error (err, errno, "setns %s namespace", spec_namespace_names[i].oci);
    }
  return 0;
}

int
namespaces_unshare_user (const struct ns_plan *p, ar_error_t *err)
{
  if (!p->late_userns)
    return 0;
  /* The effective ids only: the real and saved ones stay root until the caller becomes the
     namespace's root, and nothing runs in between but the unshare and the sync with the
     runtime, which writes the maps.  */
  if (setresgid (-1, p->userns_group, -1) < 0 || setresuid (-1, p->userns_owner, -1) < 0)
    return ar_make_error (err, errno, "become uid %u, the user namespace's owner",
                          (unsigned) p->userns_owner);
  if (unshare (CLONE_NEWUSER | (p->userns_with_mnt ? CLONE_NEWNS : 0)) < 0)
    return ar_make_error (err, errno, "unshare user namespace");
  return 0;
}

int
namespaces_unshare (const struct ns_plan *p, ar_error_t *err)
{
  if (p->unshare_flags && unshare (p->unshare_flags) < 0)
    return ar_make_error (err, errno, "unshare namespaces");
  if (p->new_ns[SPEC_NS_PID] && !(p->clone_flags & CLONE_NEWPID) && unshare (CLONE_NEWPID) < 0)
    return ar_make_error (err, errno, "unshare pid namespace");
  if (p->new_ns[SPEC_NS_TIME] && unshare (CLONE_NEWTIME) < 0)
    return ar_make_error (err, errno, "unshare time namespace");
  return 0;
}

int
namespaces_cap_fsnotify (const struct ns_plan *p, ar_error_t *err)
{
  static const struct
  {
    const char *file;
    int max;
  } limits[] = {
    { "/proc/sys/user/max_inotify_instances", POLICY_FSNOTIFY_MAX },
    { "/proc/sys/user/max_fanotify_groups", POLICY_FSNOTIFY_MAX },
    { "/proc/sys/user/max_inotify_watches", POLICY_FSNOTIFY_WATCHES_MAX },
    { "/proc/sys/user/max_fanotify_marks", POLICY_FSNOTIFY_WATCHES_MAX },
  };

  if (!p->late_userns || p->userns_owner == 0)
    return 0;
  for (size_t i = 0; i < ARRAY_SIZE (limits); i++)
    {
      cleanup_close int fd = open (limits[i].file, O_WRONLY | O_CLOEXEC);
      char v[16];
      int len = snprintf (v, sizeof v, "%d", limits[i].max);

      if (fd < 0 && errno == ENOENT)
        continue; /* a kernel without fanotify */
      if (fd < 0 || write (fd, v, (size_t) len) != len)
        return ar_make_error (err, errno, "user namespace: write `%s`", limits[i].file);
    }
  return 0;
}

/* A new network namespace starts with `lo` down; runc and crun bring it up, and programs expect
   127.0.0.1 to work (a workload's own local servers).  */
int
namespaces_loopback_up (const struct ns_plan *p, ar_error_t *err)
{
  struct ifreq ifr = { 0 };
  cleanup_close int sock = -1;

  if (!p->new_ns[SPEC_NS_NETWORK])
    return 0;
  sock = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0)
    return ar_make_error (err, errno, "socket for the loopback interface");
  strcpy (ifr.ifr_name, "lo");
  if (ioctl (sock, SIOCGIFFLAGS, &ifr) < 0)
    return ar_make_error (err, errno, "get the flags of `lo`");
  ifr.ifr_flags |= IFF_UP;
  if (ioctl (sock, SIOCSIFFLAGS, &ifr) < 0)
    return ar_make_error (err, errno, "bring `lo` up");
  return 0;
}

int
namespaces_set_time_offsets (const struct spec_linux *l, ar_error_t *err)
{
  char buf[128];
  int len = 0, dumpable, e = 0;
  cleanup_close int fd = -1;

  if (l->time_monotonic.set)
    len += snprintf (buf + len, sizeof buf - len, "monotonic %lld %u\n",
                     (long long) l->time_monotonic.secs, l->time_monotonic.nanosecs);
  if (l->time_boottime.set)
    len += snprintf (buf + len, sizeof buf - len, "boottime %lld %u\n",
                     (long long) l->time_boottime.secs, l->time_boottime.nanosecs);
  if (len == 0)
    return 0;
  /* Having changed ids (become_userns_root), this process is not dumpable, so its /proc files
     belong to host root, which a new user namespace does not map: even its root may not open
     them.  Dumpable for the write, as it was after.  */
  dumpable = prctl (PR_GET_DUMPABLE);
  if (dumpable == 0 && prctl (PR_SET_DUMPABLE, 1) < 0)
    return ar_make_error (err, errno, "time namespace offsets: make the process dumpable");
  fd = open ("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, buf, len) != len)
    e = errno;
  if (dumpable == 0 && prctl (PR_SET_DUMPABLE, 0) < 0 && e == 0)
    e = errno;
  if (e != 0)
    return ar_make_error (err, e, "write time namespace offsets");
  return 0;
}

static bool
has_own (const struct ns_plan *p, enum spec_ns_kind k)
{
  return p->new_ns[k] || p->join_fd[k] >= 0;
}

int
namespaces_set_uts (const struct spec *s, const struct ns_plan *p, ar_error_t *err)
{
  if ((s->hostname || s->domainname) && !has_own (p, SPEC_NS_UTS))
    return ar_make_error (err, 0, "config.json: hostname needs a UTS namespace of its own");
  if (s->hostname && sethostname (s->hostname, strlen (s->hostname)) < 0)
    return ar_make_error (err, errno, "sethostname `%s`", s->hostname);
  if (s->domainname && setdomainname (s->domainname, strlen (s->domainname)) < 0)
    return ar_make_error (err, errno, "setdomainname `%s`", s->domainname);
  return 0;
}

/* runc's rule (libcontainer/configs/validate): IPC keys need an IPC namespace, net.* a network
   namespace, kernel.hostname/domainname a UTS one; nothing else is namespaced.  */
static int
sysctl_namespace (const char *key)
{
  static const char *const ipc[]
      = { "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem",
          "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced" };

  for (size_t i = 0; i < ARRAY_SIZE (ipc); i++)
    if (strcmp (key, ipc[i]) == 0)
      return SPEC_NS_IPC;
  if (ar_str_has_prefix (key, "fs.mqueue."))
    return SPEC_NS_IPC;
  if (ar_str_has_prefix (key, "net."))
    return SPEC_NS_NETWORK;
  if (strcmp (key, "kernel.hostname") == 0 || strcmp (key, "kernel.domainname") == 0)
    return SPEC_NS_UTS;
  return -1;
}

static int
write_sysctl (const char *key, const char *value, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("/proc/sys/%s", key);
  cleanup_close int fd = -1;

  for (char *c = path + strlen ("/proc/sys/"); *c; c++)
    if (*c == '.')
      *c = '/';
  fd = open (path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return ar_make_error (err, errno, "sysctl `%s`", key);
  if (write (fd, value, strlen (value)) < 0)
    return ar_make_error (err, errno, "sysctl `%s` = `%s`", key, value);
  return 0;
}

int
namespaces_apply_sysctl (const struct spec *s, const struct ns_plan *p, ar_error_t *err)
{
  const struct spec_map *m = &s->linux_.sysctl;

  for (size_t i = 0; i < m->n; i++)
    {
      const char *key = m->items[i].key;
      int ns = sysctl_namespace (key);
      if (ns < 0 || strstr (key, "..") || strchr (key, '/'))
        return ar_make_error (err, 0, "config.json: linux.sysctl: `%s` is not namespaced", key);
      if (!has_own (p, ns))
        return ar_make_error (err, 0, "config.json: linux.sysctl: `%s` needs a %s namespace", key,
                              spec_namespace_names[ns].oci);
      if (write_sysctl (key, m->items[i].value, err) < 0)
        return -1;
    }
  return 0;
}
