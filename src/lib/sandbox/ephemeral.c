#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init/mounts.h"
#include "sandbox/ephemeral.h"
#include "utils.h"

static int
fs_open (const char *type, ar_error_t *err)
{
  int fd = (int) syscall (SYS_fsopen, type, FSOPEN_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: fsopen %s", type);
  return fd;
}

static int
fs_set (int fsfd, const char *key, const char *value)
{
  return (int) syscall (SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, key, value, 0);
}

/* The kernel's own words on a failed fsconfig, read from the fs context.  */
static int
fs_error (int fsfd, int e, const char *what, ar_error_t *err)
{
  char msg[512];
  ssize_t n = read (fsfd, msg, sizeof msg - 1);

  if (n > 0)
    {
      msg[n] = '\0';
      msg[strcspn (msg, "\n")] = '\0';
      return ar_make_error (err, e, "ephemeral rootfs: %s: %s", what, msg);
    }
  return ar_make_error (err, e, "ephemeral rootfs: %s", what);
}

static int
fs_mount (int fsfd, const char *what, ar_error_t *err)
{
  int fd;

  if (syscall (SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return fs_error (fsfd, errno, what, err);
  fd = (int) syscall (SYS_fsmount, fsfd, FSMOUNT_CLOEXEC, 0);
  if (fd < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: fsmount %s", what);
  return fd;
}

unsigned long long
ephemeral_nr_inodes (unsigned long long bytes)
{
  /* 0 would mean no limit at all.  */
  return bytes < EPHEMERAL_BYTES_PER_INODE ? 1 : bytes / EPHEMERAL_BYTES_PER_INODE;
}

/* The host id that a mapping gives ID (the container's view of an idmapped file's owner, on
   the host), or ID itself where it maps none.  */
static uint32_t
map_id (uint32_t id, const struct spec_id_mapping *m, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
      return m[i].host_id + (id - m[i].container_id);
  return id;
}

/* An owner as the overlay shows it: through the idmapped lower layer, or as it is.  */
static void
shown_owner (const struct ephemeral_cfg *c, bool idmapped, struct stat *st)
{
  if (!idmapped)
    return;
  st->st_uid = map_id (st->st_uid, c->idmap->uid_mappings, c->idmap->n_uid_mappings);
  st->st_gid = map_id (st->st_gid, c->idmap->gid_mappings, c->idmap->n_gid_mappings);
}

static bool
is_idmappable (unsigned long type)
{
  static const unsigned long types[]
      = { EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, F2FS_SUPER_MAGIC, TMPFS_MAGIC };

  for (size_t i = 0; i < ARRAY_SIZE (types); i++)
    if (type == types[i])
      return true;
  return false;
}

static bool
is_octal (char c, char max)
{
  return c >= '0' && c <= max;
}

/* One path of an overlay's options in mountinfo: \ooo (the octal escapes of mountinfo and of
   seq_show_option) and \X (overlay's own, for ':' in a layer) undone.  */
static char *
unescape_option (const char *s, size_t n)
{
  char *out = xmalloc (n + 1), *o = out;

  for (size_t i = 0; i < n; i++)
    {
      if (s[i] == '\\' && n - i >= 4 && is_octal (s[i + 1], '3') && is_octal (s[i + 2], '7')
          && is_octal (s[i + 3], '7'))
        {
          *o++ = (char) ((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
          i += 3;
        }
      else if (s[i] == '\\' && i + 1 < n)
        *o++ = s[++i];
      else
        *o++ = s[i];
    }
  *o = '\0';
  return out;
}

/* The end of the item starting at P, before an unescaped SEP.  */
static const char *
item_end (const char *p, char sep)
{
  for (; *p && *p != sep; p++)
    if (*p == '\\' && p[1])
      p++;
  return p;
}

struct overlay_layers
{
  const char *mount_point;
  char *options; /* the super options of the last overlay mounted there */
};

static int
find_overlay (const struct mounts_info *mi, void *data, ar_error_t *err)
{
  struct overlay_layers *o = data;

  (void) err;
  if (strcmp (mi->mount_point, o->mount_point) != 0)
    return 0;
  free (o->options);
  o->options = strcmp (mi->fstype, "overlay") == 0 ? xstrdup (mi->super_options) : NULL;
  return 0;
}

static void
add_layer (char ***v, size_t *n, char *path)
{
  *v = xrealloc (*v, (*n + 2) * sizeof **v);
  (*v)[(*n)++] = path;
  (*v)[*n] = NULL;
}

/* The lowerdir= value: paths at ':' (a "::" starts data-only layers: no).  */
static const char *
add_lowers (const char *p, const char *end, char ***v, size_t *n)
{
  while (p < end)
    {
      const char *e = item_end (p, ':');
      if (e > end)
        e = end;
      if (e == p)
        return "the rootfs's overlay has data-only layers";
      add_layer (v, n, unescape_option (p, (size_t) (e - p)));
      p = e < end ? e + 1 : e;
    }
  return NULL;
}

/* The rootfs's overlay as layers, top first: upperdir, then lowerdir's.  */
static const char *
overlay_layers (const char *rootfs, char ***out)
{
  struct overlay_layers o = { .mount_point = rootfs };
  ar_error_t e = NULL;
  cleanup_strv char **lowers = NULL;
  char *upper = NULL;
  size_t n = 0;
  const char *why = NULL;

  if (mounts_foreach_info (find_overlay, &o, &e) < 0)
    {
      ar_error_release (&e);
      return "the rootfs's overlay is not in /proc/self/mountinfo";
    }
  if (o.options == NULL)
    return "the rootfs is an overlay, but not a mount of its own";
  for (const char *p = o.options; *p && why == NULL;)
    {
      const char *end = item_end (p, ',');
      if (ar_str_has_prefix (p, "lowerdir=") || ar_str_has_prefix (p, "lowerdir+="))
        why = add_lowers (strchr (p, '=') + 1, end, &lowers, &n);
      else if (ar_str_has_prefix (p, "upperdir="))
        {
          free (upper);
          upper = unescape_option (p + 9, (size_t) (end - p - 9));
        }
      else if (ar_str_has_prefix (p, "datadir+="))
        why = "the rootfs's overlay has data-only layers";
      p = *end ? end + 1 : end;
    }
  free (o.options);
  if (why == NULL && n == 0)
    why = "the rootfs's overlay names no lower layer";
  if (why == NULL && n + (upper != NULL) > EPHEMERAL_MAX_LAYERS)
    why = "the rootfs's overlay has too many layers";
  if (why)
    {
      free (upper);
      return why;
    }
  *out = NULL;
  n = 0;
  if (upper)
    add_layer (out, &n, upper);
  for (char **l = lowers; *l; l++)
    add_layer (out, &n, steal_ptr (l));
  return NULL;
}

/* Each layer a directory named by an absolute path, on a filesystem that takes idmapped
   mounts, and not the container's already.  */
static const char *
check_layers (char **layers, const struct spec_linux *l)
{
  for (char **p = layers; *p; p++)
    {
      struct statfs sfs;
      struct stat st;

      if ((*p)[0] != '/')
        return "a layer of the rootfs's overlay is named by a relative path";
      if (stat (*p, &st) < 0 || statfs (*p, &sfs) < 0 || !S_ISDIR (st.st_mode))
        return "a layer of the rootfs cannot be looked at";
      if (!is_idmappable ((unsigned long) sfs.f_type))
        return "a layer of the rootfs is on a filesystem not known to take idmapped mounts";
      if (spec_id_host_mapped (st.st_uid, l->uid_mappings, l->n_uid_mappings))
        return "the rootfs belongs to the container already (an id its user namespace maps)";
    }
  return NULL;
}

bool
ephemeral_decide (const char *rootfs, const struct spec_linux *l, char ***layers, const char **why)
{
  cleanup_strv char **v = NULL;
  struct statfs sfs;
  struct stat st;

  *layers = NULL;
  *why = NULL;
  if (l->n_uid_mappings == 0 || l->n_gid_mappings == 0)
    return false;
  if (stat (rootfs, &st) < 0 || statfs (rootfs, &sfs) < 0)
    {
      *why = "the rootfs cannot be looked at";
      return false;
    }
  if (spec_id_host_mapped (st.st_uid, l->uid_mappings, l->n_uid_mappings))
    {
      *why = "the rootfs belongs to the container already (an id its user namespace maps)";
      return false;
    }
  if ((unsigned long) sfs.f_type == OVERLAYFS_SUPER_MAGIC)
    *why = overlay_layers (rootfs, &v);
  else
    {
      v = xzalloc (2 * sizeof *v);
      v[0] = xstrdup (rootfs);
    }
  if (*why == NULL)
    *why = check_layers (v, l);
  if (*why)
    return false;
  *layers = steal_ptr (&v);
  return true;
}

/* The tmpfs of the upper layer, with upper/ and work/ (upper/ is shaped like the rootfs's "/"
   when the overlay is made: shape_upper).  */
static int
make_tmpfs (const struct ephemeral_cfg *c, ar_error_t *err)
{
  cleanup_close int fsfd = fs_open ("tmpfs", err);
  cleanup_close int mnt = -1;
  char size[32], inodes[32];

  if (fsfd < 0)
    return -1;
  snprintf (size, sizeof size, "%llu", c->disk_bytes);
  snprintf (inodes, sizeof inodes, "%llu", ephemeral_nr_inodes (c->disk_bytes));
  if ((c->disk_bytes && (fs_set (fsfd, "size", size) < 0 || fs_set (fsfd, "nr_inodes", inodes) < 0))
      || fs_set (fsfd, "mode", "0700") < 0)
    return fs_error (fsfd, errno, "tmpfs size", err);
  mnt = fs_mount (fsfd, "tmpfs", err);
  if (mnt < 0)
    return -1;
  if (mkdirat (mnt, "upper", 0700) < 0 || mkdirat (mnt, "work", 0700) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: make the upper layer");
  return steal_fd (&mnt);
}

/* The overlay's root shows the upper directory's owner and mode: the rootfs's, as the lower
   layer shows it (through the idmap, the container's root).  */
static int
shape_upper (const struct ephemeral_cfg *c, int tmpfs, bool idmapped, ar_error_t *err)
{
  struct stat root;

  if (stat (c->rootfs, &root) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: stat `%s`", c->rootfs);
  shown_owner (c, idmapped, &root);
  if (fchownat (tmpfs, "upper", root.st_uid, root.st_gid, AT_SYMLINK_NOFOLLOW) < 0
      || fchmodat (tmpfs, "upper", root.st_mode & 07777, 0) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: make the upper layer");
  return 0;
}

/* The lower layers, top first: by fd (the idmapped trees, as /proc/self/fd/N), else the rootfs
   by path.  */
struct lowers
{
  const char *rootfs;
  const int *trees; /* e->fds: the first n_trees are trees */
  size_t n_trees;
};

/* The overlay from detached layers: the lower ones as `lowers` says, the upper ones through our
   fd to the tmpfs.  Linux 6.15 takes them; an older kernel fails with EINVAL
   (overlay_elsewhere then builds it).  */
static int
make_overlay (const struct lowers *lw, int tmpfs, ar_error_t *err)
{
  cleanup_close int fsfd = fs_open ("overlay", err);
  char upper[64], work[64], lower[64];

  if (fsfd < 0)
    return -1;
  /* The upper layer is reachable only through our fd to the detached tmpfs.  */
  snprintf (upper, sizeof upper, "/proc/self/fd/%d/upper", tmpfs);
  snprintf (work, sizeof work, "/proc/self/fd/%d/work", tmpfs);
  for (size_t i = 0; i < lw->n_trees; i++)
    {
      snprintf (lower, sizeof lower, "/proc/self/fd/%d", lw->trees[i]);
      if (fs_set (fsfd, "lowerdir+", lower) < 0)
        return fs_error (fsfd, errno, "overlay lower layer", err);
    }
  /* lowerdir+ (6.8) takes the path whole; lowerdir would split it at ':'.  */
  if (lw->n_trees == 0 && fs_set (fsfd, "lowerdir+", lw->rootfs) < 0
      && (errno != EINVAL || strpbrk (lw->rootfs, ":,\\")
          || fs_set (fsfd, "lowerdir", lw->rootfs) < 0))
    return fs_error (fsfd, errno, "overlay lower layer", err);
  if (fs_set (fsfd, "upperdir", upper) < 0 || fs_set (fsfd, "workdir", work) < 0)
    return fs_error (fsfd, errno, "overlay upper layer", err);
  return fs_mount (fsfd, "overlay", err);
}

/* A path as one lowerdir: overlay splits the option at ':' (and the mount data of a kernel
   before 6.5 at ','), each escaped with a backslash.  */
static void
append_escaped (char **out, size_t *len, const char *path)
{
  *out = xrealloc (*out, *len + 2 * strlen (path) + 2);
  if (*len > 0)
    (*out)[(*len)++] = ':';
  for (const char *p = path; *p; p++)
    {
      if (*p == ':' || *p == ',' || *p == '\\')
        (*out)[(*len)++] = '\\';
      (*out)[(*len)++] = *p;
    }
  (*out)[*len] = '\0';
}

/* In a mount namespace of our own, all of whose mounts are private: the tmpfs attached on the
   scratch directory, each idmapped tree on the directory it was cloned from, and the overlay
   made from their paths.  What is attached here goes with the namespace.  */
static int
overlay_from_paths (const struct ephemeral_cfg *c, const struct lowers *lw, int tmpfs,
                    ar_error_t *err)
{
  cleanup_close int fsfd = -1;
  cleanup_free char *lower = NULL;
  cleanup_free char *upper = xasprintf ("%s/upper", c->scratch);
  cleanup_free char *work = xasprintf ("%s/work", c->scratch);
  size_t len = 0;

  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: make a private mount namespace");
  if (syscall (SYS_move_mount, tmpfs, "", AT_FDCWD, c->scratch, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: attach the upper layer");
  for (size_t i = 0; i < lw->n_trees; i++)
    {
      if (syscall (SYS_move_mount, lw->trees[i], "", AT_FDCWD, c->layers[i],
                   MOVE_MOUNT_F_EMPTY_PATH)
          < 0)
        return ar_make_error (err, errno, "ephemeral rootfs: attach the layer `%s`", c->layers[i]);
      append_escaped (&lower, &len, c->layers[i]);
    }
  if (lw->n_trees == 0)
    append_escaped (&lower, &len, lw->rootfs);
  fsfd = fs_open ("overlay", err);
  if (fsfd < 0)
    return -1;
  if (fs_set (fsfd, "lowerdir", lower) < 0 || fs_set (fsfd, "upperdir", upper) < 0
      || fs_set (fsfd, "workdir", work) < 0)
    return fs_error (fsfd, errno, "overlay layers", err);
  return fs_mount (fsfd, "overlay", err);
}

/* overlay_from_paths in a mount namespace made for it and left at once (setns resets our root
   and cwd: both are put back).  */
static int
overlay_elsewhere (const struct ephemeral_cfg *c, const struct lowers *lw, int tmpfs,
                   ar_error_t *err)
{
  cleanup_close int own = open ("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  cleanup_close int root = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int cwd = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  int ret;

  if (own < 0 || root < 0 || cwd < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: open our mount namespace");
  if (unshare (CLONE_NEWNS) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: a mount namespace to build it in");
  ret = overlay_from_paths (c, lw, tmpfs, err);
  if (setns (own, CLONE_NEWNS) < 0 || fchdir (root) < 0 || chroot (".") < 0 || fchdir (cwd) < 0)
    {
      int e = errno;
      if (ret >= 0)
        close (ret);
      else
        ar_error_release (err);
      return ar_make_error (err, e, "ephemeral rootfs: return to our mount namespace");
    }
  return ret;
}

/* The overlay over the first N_TREES fds of e (the idmapped lower layers, top first), or the
   rootfs itself.  */
static int
build_overlay (struct ephemeral *e, const struct ephemeral_cfg *c, size_t n_trees, ar_error_t *err)
{
  struct lowers lw = { .rootfs = c->rootfs, .trees = e->fds, .n_trees = n_trees };
  ar_error_t why = NULL;
  int fd;

  e->idmapped = n_trees > 0;
  if (shape_upper (c, e->fds[EPHEMERAL_TMPFS], e->idmapped, err) < 0)
    return -1;
  fd = make_overlay (&lw, e->fds[EPHEMERAL_TMPFS], &why);
  if (fd < 0 && why->status == EINVAL && c->scratch)
    {
      ar_error_release (&why);
      fd = overlay_elsewhere (c, &lw, e->fds[EPHEMERAL_TMPFS], &why);
      /* Attached in that namespace, and gone with it: nothing for the init.  */
      for (int i = 0; i < EPHEMERAL_OVERLAY; i++)
        ar_closep (&e->fds[i]);
    }
  if (fd < 0)
    {
      *err = why;
      return -1;
    }
  e->fds[EPHEMERAL_OVERLAY] = fd;
  return 0;
}

/* A decoy credentials file: looks like the real thing, and says what it is to anyone reading
   the keys closely.  */
static const char *
decoy_text (const char *path)
{
  if (strstr (path, "/.ssh/"))
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n"
           "YWdlbnRydC1jYW5hcnk6IHRoaXMga2V5IGlzIGEgZGVjb3k7IGl0cyB1c2UgaXMgbG9nZ2Vk\n"
           "-----END OPENSSH PRIVATE KEY-----\n";
  return "[default]\n"
         "aws_access_key_id = AKIAAGENTRTCANARY001\n"
         "aws_secret_access_key = agentrt-canary/this-key-is-a-decoy/any-use-is-logged\n";
}

/* One directory of a canary's path, in the upper layer; `lower` is the same directory in the
   rootfs (or -1 when it has none).  An existing one keeps its owner and mode (the upper
   directory's are the ones the container sees).  */
static int
plant_dir (int up, int *lower, const char *name, const struct ephemeral_cfg *c, const char *path,
           ar_error_t *err)
{
  struct stat st = { .st_mode = S_IFDIR | 0755, .st_uid = c->root_uid, .st_gid = c->root_gid };
  int next = -1;

  if (*lower >= 0 && fstatat (*lower, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    {
      if (!S_ISDIR (st.st_mode))
        return ar_make_error (err, ENOTDIR, "canary `%s`: `%s` in the rootfs is not a directory",
                              path, name);
      next = openat (*lower, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      shown_owner (c, c->idmap != NULL, &st);
    }
  ar_closep (lower);
  *lower = next;
  if (mkdirat (up, name, 0700) < 0 && errno != EEXIST)
    return ar_make_error (err, errno, "canary `%s`: make `%s`", path, name);
  if (fchownat (up, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0
      || fchmodat (up, name, st.st_mode & 07777, 0) < 0)
    return ar_make_error (err, errno, "canary `%s`: set up `%s`", path, name);
  return openat (up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int
plant_file (int dir, const char *name, const struct ephemeral_cfg *c, const char *path,
            struct stat *st, ar_error_t *err)
{
  cleanup_close int fd
      = openat (dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  const char *text = decoy_text (path);

  if (fd < 0)
    return ar_make_error (err, errno, "canary `%s`: create it", path);
  if (ar_write_all (fd, text, strlen (text), "canary", err) < 0)
    return -1;
  if (fchown (fd, c->root_uid, c->root_gid) < 0 || fstat (fd, st) < 0)
    return ar_make_error (err, errno, "canary `%s`: set its owner", path);
  return 0;
}

static int
plant (int tmpfs, int fan, const struct ephemeral_cfg *c, const char *path,
       struct supervisor_canary *out, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (path + 1);
  cleanup_close int up = openat (tmpfs, "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int lower = open (c->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  char *base = strrchr (copy, '/');
  char *save = NULL;
  struct stat st;

  if (up < 0 || lower < 0)
    return ar_make_error (err, errno, "canary `%s`: open the layers", path);
  if (base)
    {
      *base++ = '\0';
      for (char *d = strtok_r (copy, "/", &save); d; d = strtok_r (NULL, "/", &save))
        {
          int next = plant_dir (up, &lower, d, c, path, err);
          if (next < 0)
            return -1;
          close (up);
          up = next;
        }
    }
  else
    base = copy;
  if (plant_file (up, base, c, path, &st, err) < 0)
    return -1;
  if (fanotify_mark (fan, FAN_MARK_ADD, FAN_OPEN, up, base) < 0)
    return ar_make_error (err, errno, "canary `%s`: fanotify_mark", path);
  out->path = xstrdup (path);
  out->dev = st.st_dev;
  out->ino = st.st_ino;
  return 0;
}

static int
plant_canaries (int tmpfs, const struct ephemeral_cfg *c, struct ephemeral *out, ar_error_t *err)
{
  size_t n = ar_strv_len (c->canaries);

  /* fanotify_init needs CAP_SYS_ADMIN, which the supervisor no longer has; made here, a group
     of host root also reports the opener's pid (an unprivileged group's does not).  */
  out->fanotify_fd = fanotify_init (FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
                                    O_RDONLY | O_CLOEXEC | O_LARGEFILE);
  if (out->fanotify_fd < 0)
    return ar_make_error (err, errno, "canaries: fanotify_init");
  out->canaries = xzalloc (n * sizeof *out->canaries);
  for (size_t i = 0; i < n; i++)
    {
      if (plant (tmpfs, out->fanotify_fd, c, c->canaries[i], &out->canaries[i], err) < 0)
        return -1;
      out->n_canaries++;
    }
  return 0;
}

int
ephemeral_make (const struct ephemeral_cfg *c, struct ephemeral *out, ar_error_t *err)
{
  for (int i = 0; i < EPHEMERAL__N; i++)
    out->fds[i] = -1;
  out->fanotify_fd = -1;
  out->canaries = NULL;
  out->n_canaries = 0;
  out->idmapped = false;
  out->fds[EPHEMERAL_TMPFS] = make_tmpfs (c, err);
  if (out->fds[EPHEMERAL_TMPFS] < 0
      || (c->canaries && plant_canaries (out->fds[EPHEMERAL_TMPFS], c, out, err) < 0)
      || (c->idmap == NULL && build_overlay (out, c, 0, err) < 0))
    {
      ephemeral_release (out);
      return -1;
    }
  return 0;
}

/* A layer as an idmapped mount: a detached clone (the mounts below it are not the overlay's
   business: overlay looks at one filesystem per layer) with the user namespace's mapping.  */
static int
idmapped_layer (const char *dir, int userns, ar_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (__u64) userns };
  cleanup_close int fd
      = (int) syscall (SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

  if (fd < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: open_tree `%s`", dir);
  if (syscall (SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: idmap `%s`", dir);
  return steal_fd (&fd);
}

int
ephemeral_make_overlay (struct ephemeral *e, const struct ephemeral_cfg *c, int userns_fd,
                        const char **fallback, ar_error_t *err)
{
  size_t n = 0;

  *fallback = NULL;
  for (; c->layers[n] && n < EPHEMERAL_MAX_LAYERS; n++)
    {
      ar_error_t why = NULL;

      e->fds[n] = idmapped_layer (c->layers[n], userns_fd, &why);
      if (e->fds[n] >= 0)
        continue;
      if (why->status != EINVAL)
        {
          *err = why;
          return -1;
        }
      /* A filesystem this kernel cannot idmap (tmpfs before 6.3): the files stay as they are.  */
      ar_error_release (&why);
      *fallback = "this kernel cannot idmap the rootfs's filesystem";
      for (size_t i = 0; i < n; i++)
        ar_closep (&e->fds[i]);
      n = 0;
      break;
    }
  if (n == 0 || build_overlay (e, c, n, err) == 0)
    return n == 0 ? build_overlay (e, c, 0, err) : 0;
  /* The layers of a live overlay, stacked again: with index=on overlay refuses a lower layer
     that another mount uses as its upper (EBUSY).  The rootfs as it is, then.  */
  if ((*err)->status != EBUSY)
    return -1;
  ar_error_release (err);
  *fallback = "the kernel refuses to stack the rootfs's overlay layers again";
  for (size_t i = 0; i < n; i++)
    ar_closep (&e->fds[i]);
  return build_overlay (e, c, 0, err);
}

void
ephemeral_release (struct ephemeral *e)
{
  for (int i = 0; i < EPHEMERAL__N; i++)
    ar_closep (&e->fds[i]);
  ar_closep (&e->fanotify_fd);
  for (size_t i = 0; i < e->n_canaries; i++)
    free (e->canaries[i].path);
  free (e->canaries);
  e->canaries = NULL;
  e->n_canaries = 0;
}
