#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* The tmpfs of the upper layer, with upper/ shaped like the rootfs's own "/" (the overlay's
   root shows the upper directory's owner and mode) and work/.  */
static int
make_tmpfs (const struct ephemeral_cfg *c, ar_error_t *err)
{
  cleanup_close int fsfd = fs_open ("tmpfs", err);
  cleanup_close int mnt = -1;
  char size[32], inodes[32];
  struct stat root;

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
  if (stat (c->rootfs, &root) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: stat `%s`", c->rootfs);
  if (mkdirat (mnt, "upper", 0700) < 0 || mkdirat (mnt, "work", 0700) < 0
      || fchownat (mnt, "upper", root.st_uid, root.st_gid, AT_SYMLINK_NOFOLLOW) < 0
      || fchmodat (mnt, "upper", root.st_mode & 07777, 0) < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: make the upper layer");
  return steal_fd (&mnt);
}

static int
make_overlay (const char *rootfs, int tmpfs, ar_error_t *err)
{
  cleanup_close int fsfd = fs_open ("overlay", err);
  char upper[64], work[64];

  if (fsfd < 0)
    return -1;
  /* The upper layer is reachable only through our fd to the detached tmpfs.  */
  snprintf (upper, sizeof upper, "/proc/self/fd/%d/upper", tmpfs);
  snprintf (work, sizeof work, "/proc/self/fd/%d/work", tmpfs);
  /* lowerdir+ (6.8) takes the path whole; lowerdir would split it at ':'.  */
  if (fs_set (fsfd, "lowerdir+", rootfs) < 0
      && (errno != EINVAL || strpbrk (rootfs, ":,\\") || fs_set (fsfd, "lowerdir", rootfs) < 0))
    return fs_error (fsfd, errno, "overlay lower layer", err);
  if (fs_set (fsfd, "upperdir", upper) < 0 || fs_set (fsfd, "workdir", work) < 0)
    return fs_error (fsfd, errno, "overlay upper layer", err);
  return fs_mount (fsfd, "overlay", err);
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
  cleanup_close int tmpfs = -1;

  out->overlay_fd = out->fanotify_fd = -1;
  out->canaries = NULL;
  out->n_canaries = 0;
  tmpfs = make_tmpfs (c, err);
  if (tmpfs < 0)
    goto fail;
  if (c->canaries && plant_canaries (tmpfs, c, out, err) < 0)
    goto fail;
  out->overlay_fd = make_overlay (c->rootfs, tmpfs, err);
  if (out->overlay_fd < 0)
    goto fail;
  return 0;
fail:
  ephemeral_release (out);
  return -1;
}

void
ephemeral_release (struct ephemeral *e)
{
  ar_closep (&e->overlay_fd);
  ar_closep (&e->fanotify_fd);
  for (size_t i = 0; i < e->n_canaries; i++)
    free (e->canaries[i].path);
  free (e->canaries);
  e->canaries = NULL;
  e->n_canaries = 0;
}
