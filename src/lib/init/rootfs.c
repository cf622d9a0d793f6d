/* The container init's filesystem, in runc's order (libcontainer/rootfs_linux.go): propagation
   of "/", the rootfs bind-mounted onto itself, the config's mounts (mounts.c), /dev, then
   pivot_root, readonlyPaths, maskedPaths, root.readonly and the final propagation.  It never
   creates a device node anywhere but in the tmpfs the config mounted on /dev (it holds that
   tmpfs by an fd from the moment it is mounted, so a later mount can not redirect the nodes),
   and every path it touches inside the rootfs is resolved by mounts.c, inside the rootfs.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "init/mounts.h"
#include "init/rootfs.h"
#include "sandbox/egress.h"
#include "supervisor/vfiles.h"
#include "utils.h"

/* linux.rootfsPropagation as one MS_* propagation value (0 when absent).  */
static int
configured_propagation (const struct spec *s, unsigned long *out, ar_error_t *err)
{
  const char *p = s->has_linux ? s->linux_.rootfs_propagation : NULL;
  char *words[] = { (char *) p, NULL };
  struct spec_strv v = { words, 1 };
  unsigned long flags = 0, set = 0, clr = 0;
  cleanup_free char *data = NULL;

  *out = 0;
  if (p == NULL)
    return 0;
  if (mounts_parse_options (&v, &flags, out, &set, &clr, &data, err) < 0 || *out == 0 || flags != 0
      || set != 0 || clr != 0 || data != NULL)
    return ar_make_error (err, EINVAL,
                          "linux.rootfsPropagation `%s`: expected shared, slave, private or "
                          "unbindable, r-prefixed or not",
                          p);
  return 0;
}

/* "/" becomes a slave (or what the config says) so that nothing mounted from here on reaches
   the host.  Shared and unbindable wait until after pivot_root: a shared "/" would propagate
   the container's mounts to the host, and an unbindable one cannot be bind-mounted onto itself
   (runc#1755, fixed the same way in runc#4724).  */
static int
set_root_propagation (const struct rootfs_ctx *c, ar_error_t *err)
{
  unsigned long prop = 0;

  if (configured_propagation (c->spec, &prop, err) < 0)
    return -1;
  if (prop == 0 || (prop & (MS_SHARED | MS_UNBINDABLE)))
    prop = MS_REC | MS_SLAVE;
  if (mount (NULL, "/", NULL, prop, NULL) < 0)
    return ar_make_error (err, errno, "set the propagation of `/`");
  return 0;
}

struct parent_mount
{
  const char *path;
  char *mount_point;
  bool shared;
};

static bool
path_within (const char *path, const char *dir)
{
  size_t n = strlen (dir);

  if (strcmp (dir, "/") == 0)
    return true;
  return strncmp (path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int
find_parent_mount (const struct mounts_info *mi, void *data, ar_error_t *err)
{
  struct parent_mount *p = data;

  /* The longest mount point above the rootfs; of equal ones the later is on top.  */
  if (!path_within (p->path, mi->mount_point)
      || (p->mount_point && strlen (mi->mount_point) < strlen (p->mount_point)))
    return 0;
  free (p->mount_point);
  p->mount_point = xstrdup (mi->mount_point);
  p->shared = strstr (mi->optional, "shared:") != NULL;
  return 0;
}

/* pivot_root refuses a new root whose parent mount is shared, and a bind under a shared mount
   would propagate to the host's peers: runc makes that parent private.  */
static int
make_parent_private (const char *rootfs, ar_error_t *err)
{
  struct parent_mount p = { .path = rootfs };
  int ret = mounts_foreach_info (find_parent_mount, &p, err);

  if (ret == 0 && p.shared && mount (NULL, p.mount_point, NULL, MS_PRIVATE, NULL) < 0)
    ret = ar_make_error (err, errno, "make `%s` private", p.mount_point);
  free (p.mount_point);
  return ret;
}

/* The rootfs bind-mounted onto itself (runc's MS_BIND|MS_REC of the path onto the path), done
   on the cwd: open_tree clones the tree there and move_mount attaches the clone on top of it,
   then the clone's root becomes the cwd (a mount over the cwd is not entered by "." lookups).  */
static int
bind_rootfs (const char *rootfs, ar_error_t *err)
{
  cleanup_close int tree
      = (int) syscall (SYS_open_tree, AT_FDCWD, "",
                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);

  if (tree < 0)
    return ar_make_error (err, errno, "bind the rootfs `%s` onto itself: open_tree", rootfs);
  if (syscall (SYS_move_mount, tree, "", AT_FDCWD, "",
               MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
          < 0
      || fchdir (tree) < 0)
    return ar_make_error (err, errno, "bind the rootfs `%s` onto itself", rootfs);
  return 0;
}

/* What the mounts left for /dev.  */
struct prep
{
  int rootfd;
  int devfd; /* the tmpfs the config mounted on /dev, or -1 */
  bool proc; /* proc is mounted on /proc */
};

static void
prep_release (struct prep *p)
{
  ar_closep (&p->rootfd);
  ar_closep (&p->devfd);
}
#define cleanup_prep __attribute__ ((cleanup (prep_release)))

static bool
mount_type_is (const struct spec_mount *m, const char *type)
{
  return m->type != NULL && strcmp (m->type, type) == 0;
}

/* After a mount on /dev: a fresh tmpfs (not a bind, not a remount) is where the nodes go.  */
static int
track_dev (struct prep *p, const struct spec_mount *m, ar_error_t *err)
{
  unsigned long flags = 0, prop, set, clr;
  cleanup_free char *data = NULL;
  struct statfs sfs;

  if (mounts_parse_options (&m->options, &flags, &prop, &set, &clr, &data, err) < 0)
    return -1;
  if (flags & MS_REMOUNT)
    return 0;
  ar_closep (&p->devfd);
  p->devfd = -1;
  if (!mount_type_is (m, "tmpfs") || (flags & MS_BIND))
    return 0;
  p->devfd = mounts_open_in_root (p->rootfd, "/dev", err);
  if (p->devfd < 0)
    return -1;
  if (fstatfs (p->devfd, &sfs) < 0)
    return ar_make_error (err, errno, "statfs `/dev`");
  if (sfs.f_type != TMPFS_MAGIC)
    return ar_make_error (err, EXDEV, "open `/dev`: not the tmpfs just mounted");
  return 0;
}

static int
apply_mounts (const struct rootfs_ctx *c, struct prep *p, ar_error_t *err)
{
  for (size_t i = 0; i < c->spec->n_mounts; i++)
    {
      const struct spec_mount *m = &c->spec->mounts[i];
      cleanup_free char *dest = NULL;

      struct mounts_src src = { -1, false };

      if (c->source_fds && c->sources->mounts[i].kind != SOURCES_NONE)
        src = (struct mounts_src){ c->source_fds[i], c->sources->mounts[i].kind == SOURCES_IDMAP };
      if (mounts_apply_one (p->rootfd, m, c, src, err) < 0)
        return -1;
      dest = mounts_clean_path (m->destination);
      if (strcmp (dest, "/proc") == 0)
        p->proc = mount_type_is (m, "proc");
      if (strcmp (dest, "/dev") == 0 && track_dev (p, m, err) < 0)
        return -1;
    }
  return 0;
}

/* Devices.  */

struct dev_node
{
  char type; /* c, u, b or p */
  const char *path;
  long long major, minor;
  mode_t mode;
  uid_t uid;
  gid_t gid;
};

static const struct dev_node default_devices[] = {
  { 'c', "/dev/null", 1, 3, 0666, 0, 0 },    { 'c', "/dev/zero", 1, 5, 0666, 0, 0 },
  { 'c', "/dev/full", 1, 7, 0666, 0, 0 },    { 'c', "/dev/random", 1, 8, 0666, 0, 0 },
  { 'c', "/dev/urandom", 1, 9, 0666, 0, 0 }, { 'c', "/dev/tty", 5, 0, 0666, 0, 0 },
};

static mode_t
dev_type_bits (char type)
{
  return type == 'b' ? S_IFBLK : type == 'p' ? S_IFIFO : S_IFCHR;
}

/* The directory in the /dev tmpfs that holds D, created when missing, and the node's name.  */
static int
dev_parent (int devfd, const struct dev_node *d, char **base, ar_error_t *err)
{
  cleanup_free char *clean = mounts_clean_path (d->path);
  cleanup_close int fd = -1;
  struct stat top, st;
  char *slash;

  if (!ar_str_has_prefix (clean, "/dev/"))
    return ar_make_error (err, EINVAL, "device `%s`: not in /dev", d->path);
  slash = strrchr (clean, '/');
  *slash = '\0';
  fd = mounts_mkpath_in_root (devfd, clean + strlen ("/dev"), MOUNTS_DIR, err);
  if (fd < 0)
    return ar_error_wrap (err, "device `%s`", d->path);
  if (fstat (devfd, &top) < 0 || fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "device `%s`", d->path);
  if (st.st_dev != top.st_dev)
    return ar_make_error (err, EXDEV, "device `%s`: not in the /dev tmpfs", d->path);
  *base = xstrdup (slash + 1);
  return steal_fd (&fd);
}

static int
mknod_device (int dirfd, const char *base, const struct dev_node *d, ar_error_t *err)
{
  mode_t old = umask (0);
  int r = mknodat (dirfd, base, dev_type_bits (d->type) | (d->mode & 07777),
                   makedev (d->major, d->minor));

  umask (old);
  if (r < 0 && errno == EEXIST)
    return 0; /* as runc: a node already there (listed twice, or a default) stays */
  if (r < 0)
    return ar_make_error (err, errno, "mknod `%s`", d->path);
  if (fchownat (dirfd, base, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0)
    return ar_make_error (err, errno, "chown `%s`", d->path);
  return 0;
}

/* Under a user namespace mknod is refused (and a node on its tmpfs would not open): the
   host's node is bound onto an empty file, as runc does.  */
static int
bind_device (int dirfd, const char *base, const struct dev_node *d, ar_error_t *err)
{
  char b1[MOUNTS_FD_PATH_LEN], b2[MOUNTS_FD_PATH_LEN];
  cleanup_close int src = open (d->path, O_PATH | O_CLOEXEC);
  cleanup_close int dst = -1;
  struct stat st;

  if (src < 0 || fstat (src, &st) < 0)
    return ar_make_error (err, errno, "open the host's `%s`", d->path);
  if ((st.st_mode & S_IFMT) != dev_type_bits (d->type)
      || st.st_rdev != makedev (d->major, d->minor))
    return ar_make_error (err, EINVAL, "device `%s`: the host's is not %c %lld:%lld", d->path,
                          d->type, d->major, d->minor);
  dst = openat (dirfd, base, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
  if (dst < 0 && errno == EEXIST)
    return 0;
  if (dst < 0)
    return ar_make_error (err, errno, "create `%s`", d->path);
  close (dst);
  dst = openat (dirfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (dst < 0)
    return ar_make_error (err, errno, "open `%s`", d->path);
  return mounts_mount (mounts_fd_path (b1, src), mounts_fd_path (b2, dst), NULL, MS_BIND, NULL,
                       d->path, d->path, err);
}

static int
make_device (const struct rootfs_ctx *c, int devfd, const struct dev_node *d, ar_error_t *err)
{
  cleanup_free char *base = NULL;
  cleanup_close int dirfd = dev_parent (devfd, d, &base, err);

  if (dirfd < 0)
    return -1;
  if (c->userns && d->type != 'p')
    return bind_device (dirfd, base, d, err);
  return mknod_device (dirfd, base, d, err);
}

static int
make_devices (const struct rootfs_ctx *c, int devfd, ar_error_t *err)
{
  const struct spec_linux *l = &c->spec->linux_;

  for (size_t i = 0; c->spec->has_linux && i < l->n_devices; i++)
    {
      const struct spec_device *sd = &l->devices[i];
      struct dev_node d = { .type = sd->type,
                            .path = sd->path,
                            .major = sd->major,
                            .minor = sd->minor,
                            .mode = sd->file_mode.set ? (mode_t) sd->file_mode.v : 0666,
                            .uid = sd->uid.set ? (uid_t) sd->uid.v : 0,
                            .gid = sd->gid.set ? (gid_t) sd->gid.v : 0 };
      if (make_device (c, devfd, &d, err) < 0)
        return -1;
    }
  for (size_t i = 0; i < ARRAY_SIZE (default_devices); i++)
    if (make_device (c, devfd, &default_devices[i], err) < 0)
      return -1;
  return 0;
}

static int
make_dev_links (int devfd, bool proc, ar_error_t *err)
{
  static const char *const links[][2] = {
    { "/proc/self/fd", "fd" },       { "/proc/self/fd/0", "stdin" },
    { "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
    { "/proc/kcore", "core" },
  };

  /* The devpts instance's own ptmx, whatever the config put at /dev/ptmx.  */
  if (unlinkat (devfd, "ptmx", 0) < 0 && errno != ENOENT)
    return ar_make_error (err, errno, "remove `/dev/ptmx`");
  if (symlinkat ("pts/ptmx", devfd, "ptmx") < 0)
    return ar_make_error (err, errno, "symlink `/dev/ptmx`");
  for (size_t i = 0; i < ARRAY_SIZE (links); i++)
    {
      if (!proc && strcmp (links[i][1], "core") == 0)
        continue;
      if (symlinkat (links[i][0], devfd, links[i][1]) < 0 && errno != EEXIST)
        return ar_make_error (err, errno, "symlink `/dev/%s`", links[i][1]);
    }
  return 0;
}

static int
check_ctx (const struct rootfs_ctx *c, ar_error_t *err)
{
  if (c == NULL || c->spec == NULL || c->rootfs == NULL || c->rootfs[0] != '/')
    return ar_make_error (err, EINVAL, "rootfs: an absolute path and a config are needed");
  return 0;
}

/* One virtual file over its target: attach the read-only detached bind the runtime made.  */
static int
bind_vfile (const struct rootfs_ctx *c, int rootfd, enum vfile f, ar_error_t *err)
{
  const char *target = vfile_target (f);
  cleanup_close int fd = mounts_open_in_root (rootfd, target, err);

  if (fd < 0 && (*err)->status == ENOENT)
    {
      ar_error_release (err);
      return 0;
    }
  if (fd < 0)
    return -1;
  if (syscall (SYS_move_mount, c->vfile_fds[f], "", fd, "",
               MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
      < 0)
    return ar_make_error (err, errno, "mount `%s` on `%s`", vfile_name (f), target);
  return 0;
}

/* Has the container a time namespace (its own, the config's, or a joined one)?  */
static bool
has_time_ns (const struct spec *s)
{
  for (size_t i = 0; i < s->linux_.n_namespaces; i++)
    if (s->linux_.namespaces[i].kind == SPEC_NS_TIME)
      return true;
  return false;
}

/* In a time namespace the kernel's /proc/uptime counts from the namespace's zero, exactly as
   its clocks and the processes' start times do; the virtual one, rewritten each second, lags
   them by up to a second (ps -o etimes of a second-old process said 0).  Its idle figure is
   then the host's CPUs' (README: what still tells the host).  */
static int
bind_vfiles (const struct rootfs_ctx *c, int rootfd, ar_error_t *err)
{
  bool kernel_uptime = has_time_ns (c->spec);

  for (int f = 0; c->vfile_fds && f < VF__N; f++)
    if (!(f == VF_UPTIME && kernel_uptime) && bind_vfile (c, rootfd, (enum vfile) f, err) < 0)
      return -1;
  return 0;
}

/* The egress allowlist's files (egress.h): the container's DNS is the supervisor's resolver.
   A rootfs without one of them gets an empty one to mount on, as any bind mount's missing
   target (runc does the same, read-only root or not).  */
static int
bind_egress (const struct rootfs_ctx *c, int rootfd, ar_error_t *err)
{
  for (int f = 0; c->egress_fds && f < EGRESS_FILE__N; f++)
    {
      const char *target = egress_file_target ((enum egress_file) f);
      cleanup_close int fd = mounts_mkpath_in_root (rootfd, target, MOUNTS_FILE, err);

      if (fd < 0)
        return ar_error_wrap (err, "the egress allowlist's `%s`", target);
      if (syscall (SYS_move_mount, c->egress_fds[f], "", fd, "",
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
          < 0)
        return ar_make_error (err, errno, "mount the egress allowlist's file on `%s`", target);
    }
  return 0;
}

/* The ephemeral overlay on top of the bundle's rootfs (the cwd), in this mount namespace only
   (the propagation of "/" is slave or private by now, so nothing reaches the host); its root
   becomes the cwd.  The overlay is a mount of its own, so it needs no bind onto itself.  */
static int
attach_overlay (const struct rootfs_ctx *c, ar_error_t *err)
{
  int top = -1;

  /* Each on top of the one before (the layers the overlay was made from stay under it, and go
     with the old root at pivot_root).  */
  for (size_t i = 0; i < ARRAY_SIZE (c->overlay_fds); i++)
    {
      if (c->overlay_fds[i] < 0)
        continue;
      if (syscall (SYS_move_mount, c->overlay_fds[i], "", AT_FDCWD, "",
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
          < 0)
        return ar_make_error (err, errno, "attach the ephemeral overlay on `%s`", c->rootfs);
      top = c->overlay_fds[i];
    }
  if (top < 0 || fchdir (top) < 0)
    return ar_make_error (err, top < 0 ? EINVAL : errno, "enter the ephemeral overlay on `%s`",
                          c->rootfs);
  return 0;
}

int
rootfs_prepare (struct rootfs_ctx *c, ar_error_t *err)
{
  cleanup_prep struct prep p = { .rootfd = -1, .devfd = -1 };

  if (check_ctx (c, err) < 0 || set_root_propagation (c, err) < 0
      || make_parent_private (c->rootfs, err) < 0
      || (c->overlay ? attach_overlay (c, err) : bind_rootfs (c->rootfs, err)) < 0)
    return -1;
  /* The cwd is the root of the new mount now: every mount below goes onto it, the future
     "/".  */
  p.rootfd = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (p.rootfd < 0)
    return ar_make_error (err, errno, "open the rootfs `%s`", c->rootfs);
  c->root_fd = fcntl (p.rootfd, F_DUPFD_CLOEXEC, 0);
  if (c->root_fd < 0)
    return ar_make_error (err, errno, "open the rootfs `%s`", c->rootfs);
  if (apply_mounts (c, &p, err) < 0)
    return -1;
  /* no tmpfs on /dev: no device node anywhere */
  if (p.devfd >= 0
      && (make_devices (c, p.devfd, err) < 0 || make_dev_links (p.devfd, p.proc, err) < 0))
    return -1;
  if (bind_vfiles (c, p.rootfd, err) < 0)
    return -1;
  return bind_egress (c, p.rootfd, err);
}

/* pivot_root and after.  */

/* runc's pivotRoot: pivot_root(".", ".") stacks the old root on the new one; it is made a slave
   (so the unmount does not propagate to the host) and detached.  */
static int
pivot_into (const char *rootfs, int newroot, ar_error_t *err)
{
  cleanup_close int oldroot = open ("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);

  if (oldroot < 0)
    return ar_make_error (err, errno, "pivot_root `%s`: open `/`", rootfs);
  if (fchdir (newroot) < 0 || syscall (SYS_pivot_root, ".", ".") < 0)
    return ar_make_error (err, errno, "pivot_root `%s`", rootfs);
  if (fchdir (oldroot) < 0)
    return ar_make_error (err, errno, "pivot_root `%s`: enter the old root", rootfs);
  if (mount (NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
    return ar_make_error (err, errno, "pivot_root `%s`: make the old root a slave", rootfs);
  if (umount2 (".", MNT_DETACH) < 0)
    return ar_make_error (err, errno, "pivot_root `%s`: unmount the old root", rootfs);
  if (chdir ("/") < 0)
    return ar_make_error (err, errno, "pivot_root `%s`: chdir `/`", rootfs);
  return 0;
}

/* --no-pivot (a rootfs on a ramfs, where pivot_root fails): the old root stays mounted under
   the new one, reachable by whoever may chroot again.  */
static int
move_into (const char *rootfs, int newroot, ar_error_t *err)
{
  if (fchdir (newroot) < 0)
    return ar_make_error (err, errno, "chdir `%s`", rootfs);
  if (mount (".", "/", NULL, MS_MOVE, NULL) < 0)
    return ar_make_error (err, errno, "move `%s` to `/`", rootfs);
  if (chroot (".") < 0 || chdir ("/") < 0)
    return ar_make_error (err, errno, "chroot `%s`", rootfs);
  return 0;
}

/* The container's "/", after the pivot.  */
struct after
{
  int rootfd;
  bool proc; /* /proc is a procfs, so /proc/self/fd/N names an fd */
};

/* mount(2)'s name for FD.  Without a procfs in the container there is no magic link either,
   and a path resolved again by the kernel can not leave "/": PATH itself will do.  */
static const char *
target_of (const struct after *a, int fd, const char *path, char buf[MOUNTS_FD_PATH_LEN])
{
  return a->proc ? mounts_fd_path (buf, fd) : path;
}

static int
open_if_exists (const struct after *a, const char *path, bool *missing, ar_error_t *err)
{
  int fd = mounts_open_in_root (a->rootfd, path, err);

  *missing = fd < 0 && (*err)->status == ENOENT;
  if (*missing)
    ar_error_release (err);
  return fd;
}

/* runc's readonlyPath: a recursive bind onto itself, remounted read-only with the flags it
   had (nosuid, nodev, noexec stay).  */
static int
readonly_path (const struct after *a, const char *path, ar_error_t *err)
{
  char b1[MOUNTS_FD_PATH_LEN], b2[MOUNTS_FD_PATH_LEN];
  bool missing = false;
  cleanup_close int fd = open_if_exists (a, path, &missing, err);
  cleanup_close int top = -1;
  const char *t;

  if (fd < 0)
    return missing ? 0 : -1;
  t = target_of (a, fd, path, b1);
  if (mounts_mount (t, t, NULL, MS_BIND | MS_REC, NULL, path, path, err) < 0)
    return -1;
  top = mounts_open_in_root (a->rootfd, path, err);
  if (top < 0)
    return -1;
  return mounts_remount_bind (top, target_of (a, top, path, b2), MS_RDONLY, MOUNTS_LOCKED_FLAGS,
                              path, err);
}

/* /dev/null of the container, if it is the null device.  */
static int
open_null (const struct after *a)
{
  ar_error_t e = NULL;
  struct stat st;
  int fd = mounts_open_in_root (a->rootfd, "/dev/null", &e);

  ar_error_release (&e);
  if (fd >= 0 && (fstat (fd, &st) < 0 || !S_ISCHR (st.st_mode) || st.st_rdev != makedev (1, 3)))
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

/* runc's maskPath: /dev/null over a file, an empty read-only tmpfs over a directory.  */
static int
mask_path (const struct after *a, int nullfd, const char *path, ar_error_t *err)
{
  char b1[MOUNTS_FD_PATH_LEN], b2[MOUNTS_FD_PATH_LEN];
  bool missing = false;
  cleanup_close int fd = open_if_exists (a, path, &missing, err);
  struct stat st;

  if (fd < 0)
    return missing ? 0 : -1;
  if (fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "mask `%s`", path);
  if (S_ISDIR (st.st_mode))
    return mounts_mount ("tmpfs", target_of (a, fd, path, b1), "tmpfs", MS_RDONLY, NULL, "tmpfs",
                         path, err);
  if (nullfd < 0)
    return ar_make_error (err, ENODEV, "mask `%s`: /dev/null is not the null device", path);
  return mounts_mount (target_of (a, nullfd, "/dev/null", b2), target_of (a, fd, path, b1), NULL,
                       MS_BIND, NULL, "/dev/null", path, err);
}

static int
protect_paths (const struct spec_linux *l, const struct after *a, ar_error_t *err)
{
  cleanup_close int nullfd = -1;

  for (size_t i = 0; i < l->readonly_paths.n; i++)
    if (readonly_path (a, l->readonly_paths.v[i], err) < 0)
      return -1;
  if (l->masked_paths.n > 0)
    nullfd = open_null (a);
  for (size_t i = 0; i < l->masked_paths.n; i++)
    if (mask_path (a, nullfd, l->masked_paths.v[i], err) < 0)
      return -1;
  return 0;
}

/* After the pivot, so that it applies to the container's "/" and not to a mount of the host's
   (runc does the same).  */
static int
final_propagation (const struct spec *s, ar_error_t *err)
{
  unsigned long prop = 0;

  if (configured_propagation (s, &prop, err) < 0)
    return -1;
  if ((prop & (MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE)) == 0)
    return 0;
  if (mount (NULL, "/", NULL, prop, NULL) < 0)
    return ar_make_error (err, errno, "set the propagation of `/` to `%s`",
                          s->linux_.rootfs_propagation);
  return 0;
}

int
rootfs_pivot (const struct rootfs_ctx *c, ar_error_t *err)
{
  struct after a = { .rootfd = -1 };
  cleanup_close int rootfd = -1;
  struct statfs sfs;

  if (check_ctx (c, err) < 0)
    return -1;
  if (c->root_fd < 0)
    return ar_make_error (err, EINVAL, "pivot_root `%s`: the rootfs is not prepared", c->rootfs);
  if ((c->no_pivot ? move_into (c->rootfs, c->root_fd, err)
                   : pivot_into (c->rootfs, c->root_fd, err))
      < 0)
    return -1;
  rootfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return ar_make_error (err, errno, "open `/`");
  a.rootfd = rootfd;
  a.proc = statfs ("/proc", &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
  if (c->spec->has_linux && protect_paths (&c->spec->linux_, &a, err) < 0)
    return -1;
  if (c->spec->root.readonly
      && mounts_remount_bind (rootfd, "/", MS_RDONLY, MOUNTS_LOCKED_FLAGS, "/", err) < 0)
    return -1;
  if (final_propagation (c->spec, err) < 0)
    return -1;
  if (chdir ("/") < 0)
    return ar_make_error (err, errno, "chdir `/`");
  return 0;
}
