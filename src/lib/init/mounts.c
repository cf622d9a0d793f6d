/* Mount options, paths resolved inside the rootfs, and one entry of config.json's `mounts`
   (runc's mountToRootfs).  This file owns the targets' safety: each one is opened inside the
   rootfs with no symlink, ".." or magic link leading out of it (CVE-2021-30465), checked once
   more against the kernel's own idea of its path, and mounted onto /proc/self/fd/N of its
   O_PATH fd, so the kernel never resolves a target path a second time.  It never creates or
   mounts anything outside the rootfs.  Bind sources are host paths from the config and are
   trusted as the config is; they are pinned by an O_PATH fd too.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init/mounts.h"
#include "init/rootfs.h"
#include "utils.h"

/* The kernel's own limit on symlinks followed in one lookup.  */
#define MAX_SYMLINKS 40
/* The inode number of procfs's root directory (fs/proc/root.c).  */
#define PROC_ROOT_INO 1

/* Options: runc's table (libcontainer/specconv), word for word.  */

enum opt_kind
{
  OPT_SET,       /* a mount(2) flag */
  OPT_CLEAR,     /* the negation of one */
  OPT_ATIME,     /* one atime mode: it replaces the others */
  OPT_PROPAGATE, /* a propagation change, applied after the mount */
  OPT_REC_SET,   /* mount_setattr(AT_RECURSIVE) attr_set */
  OPT_REC_CLEAR, /* mount_setattr(AT_RECURSIVE) attr_clr */
  OPT_REC_ATIME, /* a recursive atime mode (attr_clr gets MOUNT_ATTR__ATIME) */
  OPT_IGNORE,    /* accepted, no effect */
  OPT_IDMAP,     /* the source is an idmapped tree the runtime made (sources.h) */
};

struct mount_option
{
  const char *name;
  enum opt_kind kind;
  unsigned long value;
};

static const struct mount_option mount_options[] = {
  { "defaults", OPT_SET, 0 },
  { "ro", OPT_SET, MS_RDONLY },
  { "rw", OPT_CLEAR, MS_RDONLY },
  { "nosuid", OPT_SET, MS_NOSUID },
  { "suid", OPT_CLEAR, MS_NOSUID },
  { "nodev", OPT_SET, MS_NODEV },
  { "dev", OPT_CLEAR, MS_NODEV },
  { "noexec", OPT_SET, MS_NOEXEC },
  { "exec", OPT_CLEAR, MS_NOEXEC },
  { "sync", OPT_SET, MS_SYNCHRONOUS },
  { "async", OPT_CLEAR, MS_SYNCHRONOUS },
  { "dirsync", OPT_SET, MS_DIRSYNC },
  { "remount", OPT_SET, MS_REMOUNT },
  { "mand", OPT_SET, MS_MANDLOCK },
  { "nomand", OPT_CLEAR, MS_MANDLOCK },
  { "noatime", OPT_ATIME, MS_NOATIME },
  { "atime", OPT_CLEAR, MS_NOATIME },
  { "nodiratime", OPT_SET, MS_NODIRATIME },
  { "diratime", OPT_CLEAR, MS_NODIRATIME },
  { "relatime", OPT_ATIME, MS_RELATIME },
  { "norelatime", OPT_CLEAR, MS_RELATIME },
  { "strictatime", OPT_ATIME, MS_STRICTATIME },
  { "nostrictatime", OPT_CLEAR, MS_STRICTATIME },
  { "lazytime", OPT_SET, MS_LAZYTIME },
  { "nolazytime", OPT_CLEAR, MS_LAZYTIME },
  { "nosymfollow", OPT_SET, MS_NOSYMFOLLOW },
  { "symfollow", OPT_CLEAR, MS_NOSYMFOLLOW },
  { "bind", OPT_SET, MS_BIND },
  { "rbind", OPT_SET, MS_BIND | MS_REC },
  { "private", OPT_PROPAGATE, MS_PRIVATE },
  { "rprivate", OPT_PROPAGATE, MS_PRIVATE | MS_REC },
  { "shared", OPT_PROPAGATE, MS_SHARED },
  { "rshared", OPT_PROPAGATE, MS_SHARED | MS_REC },
  { "slave", OPT_PROPAGATE, MS_SLAVE },
  { "rslave", OPT_PROPAGATE, MS_SLAVE | MS_REC },
  { "unbindable", OPT_PROPAGATE, MS_UNBINDABLE },
  { "runbindable", OPT_PROPAGATE, MS_UNBINDABLE | MS_REC },
  { "rro", OPT_REC_SET, MOUNT_ATTR_RDONLY },
  { "rrw", OPT_REC_CLEAR, MOUNT_ATTR_RDONLY },
  { "rnosuid", OPT_REC_SET, MOUNT_ATTR_NOSUID },
  { "rsuid", OPT_REC_CLEAR, MOUNT_ATTR_NOSUID },
  { "rnodev", OPT_REC_SET, MOUNT_ATTR_NODEV },
  { "rdev", OPT_REC_CLEAR, MOUNT_ATTR_NODEV },
  { "rnoexec", OPT_REC_SET, MOUNT_ATTR_NOEXEC },
  { "rexec", OPT_REC_CLEAR, MOUNT_ATTR_NOEXEC },
  { "rnodiratime", OPT_REC_SET, MOUNT_ATTR_NODIRATIME },
  { "rdiratime", OPT_REC_CLEAR, MOUNT_ATTR_NODIRATIME },
  { "rnosymfollow", OPT_REC_SET, MOUNT_ATTR_NOSYMFOLLOW },
  { "rsymfollow", OPT_REC_CLEAR, MOUNT_ATTR_NOSYMFOLLOW },
  { "rnoatime", OPT_REC_ATIME, MOUNT_ATTR_NOATIME },
  { "rstrictatime", OPT_REC_ATIME, MOUNT_ATTR_STRICTATIME },
  { "rrelatime", OPT_REC_ATIME, MOUNT_ATTR_RELATIME },
  /* Leaving an atime mode is entering another: "not noatime" and "not strictatime" are
     relatime, the kernel's default; "not relatime" is strictatime.  */
  { "ratime", OPT_REC_ATIME, MOUNT_ATTR_RELATIME },
  { "rnostrictatime", OPT_REC_ATIME, MOUNT_ATTR_RELATIME },
  { "rnorelatime", OPT_REC_ATIME, MOUNT_ATTR_STRICTATIME },
  /* crun and runc copy the directory's old content into a new tmpfs; agentrt does not (its
     ephemeral rootfs is an overlay), so the tmpfs starts empty.  */
  { "tmpcopyup", OPT_IGNORE, 0 },
  /* The runtime idmaps the source (sources.h); the init only checks that it did.  */
  { "idmap", OPT_IDMAP, 0 },
  { "ridmap", OPT_IDMAP, 0 },
};

#define ATIME_FLAGS (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)

struct mopts
{
  unsigned long flags, cleared, propagation, rec_set, rec_clr;
  char *data;
  bool idmap;
};

static const struct mount_option *
find_option (const char *name)
{
  for (size_t i = 0; i < ARRAY_SIZE (mount_options); i++)
    if (strcmp (mount_options[i].name, name) == 0)
      return &mount_options[i];
  return NULL;
}

static void
apply_option (struct mopts *o, const struct mount_option *opt)
{
  unsigned long v = opt->value;

  switch (opt->kind)
    {
    case OPT_ATIME:
      o->flags &= ~ATIME_FLAGS;
      /* fall through */
    case OPT_SET:
      o->flags |= v;
      o->cleared &= ~v;
      break;
    case OPT_CLEAR:
      o->flags &= ~v;
      o->cleared |= v;
      break;
    case OPT_PROPAGATE:
      o->propagation = v;
      break;
    case OPT_REC_SET:
      o->rec_set |= v;
      o->rec_clr &= ~v;
      break;
    case OPT_REC_CLEAR:
      o->rec_clr |= v;
      o->rec_set &= ~v;
      break;
    case OPT_REC_ATIME:
      o->rec_set = (o->rec_set & ~(unsigned long) MOUNT_ATTR__ATIME) | v;
      o->rec_clr |= MOUNT_ATTR__ATIME;
      break;
    case OPT_IDMAP:
      o->idmap = true;
      break;
    case OPT_IGNORE:
      break;
    }
}

static int
parse_mopts (const struct spec_strv *opts, struct mopts *o, ar_error_t *err)
{
  (void) err;
  *o = (struct mopts){ 0 };
  for (size_t i = 0; opts != NULL && i < opts->n; i++)
    {
      const char *word = opts->v[i];
      const struct mount_option *opt = find_option (word);
      char *joined;

      if (opt != NULL)
        {
          apply_option (o, opt);
          continue;
        }
      if (*word == '\0')
        continue;
      joined = o->data ? xasprintf ("%s,%s", o->data, word) : xstrdup (word);
      free (o->data);
      o->data = joined;
    }
  return 0;
}

int
mounts_parse_options (const struct spec_strv *opts, unsigned long *flags,
                      unsigned long *propagation, unsigned long *rec_attr_set,
                      unsigned long *rec_attr_clr, char **data, ar_error_t *err)
{
  struct mopts o;

  if (parse_mopts (opts, &o, err) < 0)
    return -1;
  *flags = o.flags;
  *propagation = o.propagation;
  *rec_attr_set = o.rec_set;
  *rec_attr_clr = o.rec_clr;
  *data = o.data;
  return 0;
}

/* Paths inside a root.  */

char *
mounts_clean_path (const char *path)
{
  char *out = xmalloc (strlen (path) + 2);
  size_t len = 1;

  out[0] = '/';
  while (*path)
    {
      size_t n;

      while (*path == '/')
        path++;
      n = strcspn (path, "/");
      if (n == 2 && path[0] == '.' && path[1] == '.')
        {
          while (len > 1 && out[len - 1] != '/')
            len--;
          if (len > 1)
            len--;
        }
      else if (n > 0 && !(n == 1 && path[0] == '.'))
        {
          if (len > 1)
            out[len++] = '/';
          memcpy (out + len, path, n);
          len += n;
        }
      path += n;
    }
  out[len] = '\0';
  return out;
}

const char *
mounts_fd_path (char buf[MOUNTS_FD_PATH_LEN], int fd)
{
  snprintf (buf, MOUNTS_FD_PATH_LEN, "/proc/self/fd/%d", fd);
  return buf;
}

static int
sys_openat2 (int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
  struct open_how how = { .flags = flags, .resolve = resolve };
  return (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);
}

/* One name in DIRFD, never followed: a symlink (magic or not) yields an O_PATH fd of the link
   itself.  */
static int
open_component (int dirfd, const char *name)
{
  int fd = sys_openat2 (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC,
                        RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH);

  /* openat2 is Linux 5.6, and some seccomp profiles and valgrind answer ENOSYS: a single name
     opened with O_NOFOLLOW follows nothing either.  */
  if (fd < 0 && errno == ENOSYS)
    fd = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  return fd;
}

/* A lookup done one component at a time, the way RESOLVE_IN_ROOT does it, but able to create
   what is missing: a stack of directory fds from the root down (".." pops, never past the
   root), symlinks read and their text put back in front of the rest (an absolute one restarts
   at the root).  */
struct walk
{
  int *fds;
  size_t n, cap;
  char *rest;
  size_t off;
  int links;
};

static void
walk_release (struct walk *w)
{
  for (size_t i = 0; i < w->n; i++)
    close (w->fds[i]);
  free (w->fds);
  free (w->rest);
}
#define cleanup_walk __attribute__ ((cleanup (walk_release)))

static void
walk_push (struct walk *w, int fd)
{
  if (w->n == w->cap)
    {
      w->cap = w->cap ? w->cap * 2 : 16;
      w->fds = xrealloc (w->fds, w->cap * sizeof *w->fds);
    }
  w->fds[w->n++] = fd;
}

static void
walk_up (struct walk *w)
{
  if (w->n > 1)
    close (w->fds[--w->n]);
}

/* The next component of the rest into NAME: 1, or 0 at the end, or -errno.  */
static int
walk_next (struct walk *w, char name[NAME_MAX + 1], bool *last)
{
  const char *p = w->rest + w->off;
  size_t n;

  while (*p == '/')
    p++;
  if (*p == '\0')
    return 0;
  n = strcspn (p, "/");
  if (n > NAME_MAX)
    return -ENAMETOOLONG;
  memcpy (name, p, n);
  name[n] = '\0';
  for (p += n; *p == '/'; p++)
    ;
  *last = *p == '\0';
  w->off = p - w->rest;
  return 1;
}

/* As RESOLVE_NO_MAGICLINKS: /proc/PID/root, /proc/PID/fd/N, … lead anywhere at all.  They
   all live below /proc/PID; the links in procfs's root (self, thread-self, mounts, net) are
   plain ones.  */
static bool
is_magic_link (int linkfd, int dirfd)
{
  struct statfs sfs;
  struct stat dir;

  if (fstatfs (linkfd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)
    return false;
  return fstat (dirfd, &dir) < 0 || dir.st_ino != PROC_ROOT_INO;
}

static int
walk_follow (struct walk *w, int linkfd, const char *path, ar_error_t *err)
{
  char target[PATH_MAX];
  ssize_t len;
  char *rest;

  if (++w->links > MAX_SYMLINKS)
    return ar_make_error (err, ELOOP, "resolve `%s` in rootfs", path);
  if (is_magic_link (linkfd, w->fds[w->n - 1]))
    return ar_make_error (err, ELOOP, "resolve `%s` in rootfs: a /proc magic link", path);
  len = readlinkat (linkfd, "", target, sizeof target - 1);
  if (len < 0)
    return ar_make_error (err, errno, "resolve `%s` in rootfs", path);
  target[len] = '\0';
  if (target[0] == '/')
    while (w->n > 1)
      walk_up (w);
  rest = xasprintf ("%s/%s", target, w->rest + w->off);
  free (w->rest);
  w->rest = rest;
  w->off = 0;
  return 0;
}

static int
walk_create (int dirfd, const char *name, enum mounts_kind kind)
{
  int fd;

  if (kind == MOUNTS_DIR)
    return mkdirat (dirfd, name, 0755);
  fd = openat (dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  close (fd);
  return 0;
}

static int
walk_open (struct walk *w, const char *name, enum mounts_kind kind, bool create)
{
  int top = w->fds[w->n - 1];
  int fd = open_component (top, name);

  if (fd >= 0 || errno != ENOENT || !create || kind == MOUNTS_ANY)
    return fd;
  /* EEXIST: made by someone else meanwhile; whatever it is, it is looked at again.  */
  if (walk_create (top, name, kind) < 0 && errno != EEXIST)
    return -1;
  return open_component (top, name);
}

static int
check_kind (int fd, enum mounts_kind kind, const char *path, ar_error_t *err)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "resolve `%s` in rootfs", path);
  if (kind == MOUNTS_DIR && !S_ISDIR (st.st_mode))
    return ar_make_error (err, ENOTDIR, "resolve `%s` in rootfs", path);
  if (kind == MOUNTS_FILE && S_ISDIR (st.st_mode))
    return ar_make_error (err, EISDIR, "resolve `%s` in rootfs", path);
  return 0;
}

/* The directory the walk ended in (the path ended in "/", "." or ".."), as a new fd.  */
static int
walk_result_top (struct walk *w, enum mounts_kind kind, const char *path, ar_error_t *err)
{
  cleanup_close int fd = fcntl (w->fds[w->n - 1], F_DUPFD_CLOEXEC, 0);

  if (fd < 0)
    return ar_make_error (err, errno, "resolve `%s` in rootfs", path);
  if (check_kind (fd, kind, path, err) < 0)
    return -1;
  return steal_fd (&fd);
}

static int
resolve_walk (int rootfd, const char *path, enum mounts_kind kind, bool create, ar_error_t *err)
{
  cleanup_walk struct walk w = { .rest = xstrdup (path) };
  char name[NAME_MAX + 1];
  bool last = false;
  int r, root = fcntl (rootfd, F_DUPFD_CLOEXEC, 0);

  if (root < 0)
    return ar_make_error (err, errno, "resolve `%s` in rootfs", path);
  walk_push (&w, root);
  while ((r = walk_next (&w, name, &last)) > 0)
    {
      struct stat st;
      cleanup_close int fd = -1;

      if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
        {
          if (name[1] == '.')
            walk_up (&w);
          continue;
        }
      fd = walk_open (&w, name, last ? kind : MOUNTS_DIR, create);
      if (fd < 0 || fstat (fd, &st) < 0)
        return ar_make_error (err, errno, "resolve `%s` in rootfs", path);
      if (S_ISLNK (st.st_mode))
        {
          if (walk_follow (&w, fd, path, err) < 0)
            return -1;
          continue;
        }
      if (last)
        return check_kind (fd, kind, path, err) < 0 ? -1 : steal_fd (&fd);
      if (!S_ISDIR (st.st_mode))
        return ar_make_error (err, ENOTDIR, "resolve `%s` in rootfs", path);
      walk_push (&w, steal_fd (&fd));
    }
  if (r < 0)
    return ar_make_error (err, -r, "resolve `%s` in rootfs", path);
  return walk_result_top (&w, kind, path, err);
}

static int
resolve (int rootfd, const char *path, enum mounts_kind kind, bool create, ar_error_t *err)
{
  cleanup_close int fd = -1;

  if (path == NULL || *path == '\0')
    path = "/";
  /* The kernel does the whole lookup when everything exists; EAGAIN means a rename or mount
     raced with a ".." and the lookup may simply be tried again.  */
  for (int i = 0; i < 16; i++)
    {
      fd = sys_openat2 (rootfd, path, O_PATH | O_CLOEXEC, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
      if (fd >= 0 || errno != EAGAIN)
        break;
    }
  if (fd < 0 && (errno == ENOSYS || (errno == ENOENT && create)))
    return resolve_walk (rootfd, path, kind, create, err);
  if (fd < 0)
    return ar_make_error (err, errno, "resolve `%s` in rootfs", path);
  if (check_kind (fd, kind, path, err) < 0)
    return -1;
  return steal_fd (&fd);
}

int
mounts_open_in_root (int rootfd, const char *path, ar_error_t *err)
{
  return resolve (rootfd, path, MOUNTS_ANY, false, err);
}

int
mounts_mkpath_in_root (int rootfd, const char *path, enum mounts_kind kind, ar_error_t *err)
{
  return resolve (rootfd, path, kind, true, err);
}

/* mountinfo */

static char *
next_field (char **p)
{
  char *s = *p, *e;

  if (s == NULL)
    return NULL;
  e = strchr (s, ' ');
  *p = e ? e + 1 : NULL;
  if (e)
    *e = '\0';
  return s;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo.  */
static void
unescape (char *s)
{
  char *out = s;

  for (; *s; s++)
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0'
        && s[3] <= '7')
      {
        *out++ = (char) ((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
        s += 3;
      }
    else
      *out++ = *s;
  *out = '\0';
}

static int
parse_info_line (char *line, struct mounts_info *mi)
{
  char *sep = strstr (line, " - ");
  char *head = line, *tail, *id, *parent, *root, *mp, *opts, *fstype, *source;

  if (sep == NULL)
    return -1;
  *sep = '\0';
  tail = sep + 3;
  id = next_field (&head);
  parent = next_field (&head);
  (void) next_field (&head); /* major:minor */
  root = next_field (&head);
  mp = next_field (&head);
  opts = next_field (&head);
  fstype = next_field (&tail);
  source = next_field (&tail);
  if (opts == NULL || source == NULL)
    return -1;
  unescape (root);
  unescape (mp);
  unescape (source);
  *mi = (struct mounts_info){ .id = atoi (id),
                              .parent = atoi (parent),
                              .root = root,
                              .mount_point = mp,
                              .options = opts,
                              .optional = head ? head : "",
                              .fstype = fstype,
                              .source = source,
                              .super_options = tail ? tail : "" };
  return 0;
}

int
mounts_foreach_info (int (*fn) (const struct mounts_info *mi, void *data, ar_error_t *err),
                     void *data, ar_error_t *err)
{
  cleanup_free char *text = NULL;
  char *save = NULL;

  if (ar_read_file ("/proc/self/mountinfo", 0, &text, NULL, err) < 0)
    return -1;
  for (char *line = strtok_r (text, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      struct mounts_info mi;
      int r;

      if (parse_info_line (line, &mi) < 0)
        continue;
      r = fn (&mi, data, err);
      if (r != 0)
        return r < 0 ? -1 : 0;
    }
  return 0;
}

/* mount(2) helpers */

int
mounts_mount (const char *source, const char *target, const char *type, unsigned long flags,
              const char *data, const char *what, const char *dest, ar_error_t *err)
{
  if (mount (source, target, type, flags, data) < 0)
    return ar_make_error (err, errno, "mount `%s` on `%s`", what, dest);
  return 0;
}

/* The flags of the mount FD is on, as mount(2) flags.  */
static int
fd_mount_flags (int fd, const char *dest, unsigned long *out, ar_error_t *err)
{
  static const struct
  {
    unsigned long st, ms;
  } map[] = {
    { ST_RDONLY, MS_RDONLY },     { ST_NOSUID, MS_NOSUID },   { ST_NODEV, MS_NODEV },
    { ST_NOEXEC, MS_NOEXEC },     { ST_NOATIME, MS_NOATIME }, { ST_NODIRATIME, MS_NODIRATIME },
    { ST_RELATIME, MS_RELATIME },
  };
  struct statvfs sv;

  if (fstatvfs (fd, &sv) < 0)
    return ar_make_error (err, errno, "statvfs `%s`", dest);
  *out = 0;
  for (size_t i = 0; i < ARRAY_SIZE (map); i++)
    if (sv.f_flag & map[i].st)
      *out |= map[i].ms;
  if ((*out & (MS_NOATIME | MS_RELATIME)) == 0)
    *out |= MS_STRICTATIME;
  return 0;
}

int
mounts_remount_bind (int fd, const char *target, unsigned long flags, unsigned long keep,
                     const char *dest, ar_error_t *err)
{
  unsigned long cur = 0;

  if (keep != 0 && fd_mount_flags (fd, dest, &cur, err) < 0)
    return -1;
  flags |= cur & keep & ~ATIME_FLAGS;
  /* Without an atime flag the kernel picks relatime, which is a change of a locked flag too.  */
  if ((flags & ATIME_FLAGS) == 0)
    flags |= cur & keep & ATIME_FLAGS;
  if (mount (NULL, target, NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0)
    return ar_make_error (err, errno, "remount `%s` with its options", dest);
  return 0;
}

/* One mount of the config.  */

struct job
{
  int rootfd;
  const struct spec_mount *m;
  const struct rootfs_ctx *c;
  struct mounts_src src;
  struct mopts o;
  const char *type;   /* what mount(2) is given */
  const char *source; /* idem; a host path for binds */
  const char *data;
};

static bool
has_ns (const struct spec *s, enum spec_ns_kind kind, bool new_only)
{
  for (size_t i = 0; s->has_linux && i < s->linux_.n_namespaces; i++)
    if (s->linux_.namespaces[i].kind == kind && (!new_only || !s->linux_.namespaces[i].path))
      return true;
  return false;
}

static char *
read_link (const char *path)
{
  char buf[PATH_MAX];
  ssize_t n = readlink (path, buf, sizeof buf - 1);

  return n < 0 ? NULL : xstrndup (buf, n);
}

/* Where FD is, relative to the rootfs, from the kernel's own record of both paths: the last
   word on whether a resolved target is inside the rootfs.  */
static int
path_in_root (int rootfd, int fd, const char *dest, char **out, ar_error_t *err)
{
  char b1[MOUNTS_FD_PATH_LEN], b2[MOUNTS_FD_PATH_LEN];
  cleanup_free char *root = read_link (mounts_fd_path (b1, rootfd));
  cleanup_free char *p = read_link (mounts_fd_path (b2, fd));
  size_t n;

  if (root == NULL || p == NULL)
    return ar_make_error (err, errno, "resolve `%s` in rootfs", dest);
  n = strcmp (root, "/") == 0 ? 0 : strlen (root);
  if (strncmp (p, root, n) != 0 || (p[n] != '/' && p[n] != '\0'))
    return ar_make_error (err, EXDEV, "resolve `%s` in rootfs: it is `%s`, outside", dest, p);
  *out = xstrdup (p[n] ? p + n : "/");
  return 0;
}

/* runc's checkProcMount: /proc takes only a procfs, and inside it only the files that lxcfs
   (or the supervisor) serves in place of the kernel's, so a config can not hide what the
   kernel tells about the container (CVE-2019-16884: an image's volume over /proc defeated
   AppArmor).  */
static int
check_proc_dest (const struct job *j, const char *inroot, int srcfd, ar_error_t *err)
{
  static const char *const allowed[] = { "/proc/cpuinfo",
                                         "/proc/diskstats",
                                         "/proc/meminfo",
                                         "/proc/stat",
                                         "/proc/swaps",
                                         "/proc/uptime",
                                         "/proc/loadavg",
                                         "/proc/slabinfo",
                                         "/proc/pressure/cpu",
                                         "/proc/pressure/io",
                                         "/proc/net/dev",
                                         "/proc/pressure/memory",
                                         "/proc/sys/kernel/ns_last_pid" };
  struct statfs sfs;

  if (strcmp (inroot, "/proc") == 0)
    {
      if (srcfd < 0 ? strcmp (j->type, "proc") == 0
                    : fstatfs (srcfd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC)
        return 0;
    }
  else if (!ar_str_has_prefix (inroot, "/proc/"))
    return 0;
  for (size_t i = 0; i < ARRAY_SIZE (allowed); i++)
    if (strcmp (inroot, allowed[i]) == 0)
      return 0;
  return ar_make_error (err, EPERM, "mount on `%s`: `%s` is inside /proc", j->m->destination,
                        inroot);
}

/* The target, created when missing, inside the rootfs, and not one /proc refuses.  */
static int
open_target (const struct job *j, enum mounts_kind kind, int srcfd, ar_error_t *err)
{
  const char *dest = j->m->destination;
  cleanup_close int fd = mounts_mkpath_in_root (j->rootfd, dest, kind, err);
  cleanup_free char *inroot = NULL;

  if (fd < 0 || path_in_root (j->rootfd, fd, dest, &inroot, err) < 0
      || check_proc_dest (j, inroot, srcfd, err) < 0)
    return -1;
  if (strcmp (inroot, "/") == 0)
    return ar_make_error (err, EINVAL, "mount on `%s`: that is the rootfs itself", dest);
  return steal_fd (&fd);
}

/* The target once more, now the root of the mount just made (a mount on /proc/self/fd/N is
   not seen through N, which still names the directory underneath).  */
static int
reopen_mounted (int rootfd, const char *dest, ar_error_t *err)
{
  cleanup_close int fd = mounts_open_in_root (rootfd, dest, err);
  struct statx stx;

  if (fd < 0)
    return -1;
  if (statx (fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) < 0)
    return ar_make_error (err, errno, "statx `%s`", dest);
  if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
      && !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
    return ar_make_error (err, EXDEV, "reopen `%s` after mounting: it is not the new mount", dest);
  return steal_fd (&fd);
}

static bool
needs_remount (const struct mopts *o)
{
  return (o->flags & ~(MS_BIND | MS_REC | MS_REMOUNT)) != 0;
}

static bool
needs_finish (const struct mopts *o)
{
  return o->propagation != 0 || o->rec_set != 0 || o->rec_clr != 0;
}

/* Propagation and the recursive attributes, on the mount whose root FD is.  */
static int
finish (const struct job *j, int fd, const char *dest, ar_error_t *err)
{
  char b[MOUNTS_FD_PATH_LEN];
  struct mount_attr attr = { .attr_set = j->o.rec_set, .attr_clr = j->o.rec_clr };

  if (j->o.propagation != 0
      && mount (NULL, mounts_fd_path (b, fd), NULL, j->o.propagation, NULL) < 0)
    return ar_make_error (err, errno, "set the propagation of `%s`", dest);
  if (attr.attr_set == 0 && attr.attr_clr == 0)
    return 0;
  if (mount_setattr (fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
    return ar_make_error (err, errno,
                          errno == ENOSYS ? "set recursive options on `%s` (mount_setattr is "
                                            "Linux 5.12)"
                                          : "set recursive options on `%s`",
                          dest);
  return 0;
}

/* The bind's own flags: the first MS_BIND ignores them.  Under a user namespace the flags the
   source mount has are locked (MNT_LOCK_*) and leaving one out fails with EPERM, so runc keeps
   them (unless the config asked to clear one: that fails, as it should).  Elsewhere the
   config's flags are taken as given, unless the kernel says they are locked anyway (a runtime
   nested in a user namespace).  */
static int
remount_bind (const struct job *j, int fd, const char *dest, ar_error_t *err)
{
  char b[MOUNTS_FD_PATH_LEN];
  unsigned long flags = j->o.flags & ~(MS_BIND | MS_REC | MS_REMOUNT);
  unsigned long keep = MOUNTS_LOCKED_FLAGS & ~j->o.cleared;

  mounts_fd_path (b, fd);
  if (mounts_remount_bind (fd, b, flags, j->c->userns ? keep : 0, dest, err) == 0)
    return 0;
  if (j->c->userns || (*err)->status != EPERM)
    return -1;
  ar_error_release (err);
  return mounts_remount_bind (fd, b, flags, keep, dest, err);
}

static int
open_bind_source (const struct job *j, struct stat *st, ar_error_t *err)
{
  const char *src = j->source;
  cleanup_free char *path = NULL;
  cleanup_close int fd = -1;

  if (src == NULL || *src == '\0')
    return ar_make_error (err, EINVAL, "bind mount on `%s`: no source", j->m->destination);
  path = src[0] == '/' || j->c->bundle == NULL ? xstrdup (src)
                                               : xasprintf ("%s/%s", j->c->bundle, src);
  fd = open (path, O_PATH | O_CLOEXEC);
  if (fd < 0 || fstat (fd, st) < 0)
    return ar_make_error (err, errno, "open bind source `%s`", path);
  return steal_fd (&fd);
}

/* The source the runtime opened, else our own: an O_PATH fd in our mount namespace, or a
   detached tree.  */
static int
bind_source (const struct job *j, struct stat *st, ar_error_t *err)
{
  int fd;

  if (j->src.fd < 0 && j->o.idmap)
    return ar_make_error (err, EINVAL, "bind mount on `%s`: idmap, but no idmapped source",
                          j->m->destination);
  if (j->src.fd < 0)
    return open_bind_source (j, st, err);
  fd = fcntl (j->src.fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0 || fstat (fd, st) < 0)
    {
      int e = errno;
      ar_closep (&fd);
      return ar_make_error (err, e, "bind source `%s`", j->source);
    }
  return fd;
}

/* A bind of SRC on DST: a tree is moved there (the runtime cloned it, with MS_REC's submounts
   when the config said rbind), an fd is bound by mount(2).  */
static int
attach_bind (const struct job *j, int src, int dst, ar_error_t *err)
{
  char b1[MOUNTS_FD_PATH_LEN], b2[MOUNTS_FD_PATH_LEN];

  if (!j->src.tree)
    return mounts_mount (mounts_fd_path (b1, src), mounts_fd_path (b2, dst), NULL,
                         MS_BIND | (j->o.flags & MS_REC), NULL, j->source, j->m->destination, err);
  if (syscall (SYS_move_mount, src, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
      < 0)
    return ar_make_error (err, errno, "mount `%s` on `%s`", j->source, j->m->destination);
  return 0;
}

static int
mount_bind (const struct job *j, ar_error_t *err)
{
  const char *dest = j->m->destination;
  struct stat st;
  cleanup_close int src = bind_source (j, &st, err);
  cleanup_close int dst = -1;
  cleanup_close int fd = -1;

  if (src < 0)
    return -1;
  /* A file goes onto a file and a directory onto a directory.  */
  dst = open_target (j, S_ISDIR (st.st_mode) ? MOUNTS_DIR : MOUNTS_FILE, src, err);
  if (dst < 0 || attach_bind (j, src, dst, err) < 0)
    return -1;
  if (!needs_remount (&j->o) && !needs_finish (&j->o))
    return 0;
  fd = reopen_mounted (j->rootfd, dest, err);
  if (fd < 0 || (needs_remount (&j->o) && remount_bind (j, fd, dest, err) < 0))
    return -1;
  return finish (j, fd, dest, err);
}

/* proc, tmpfs, devpts, mqueue, sysfs, cgroup2 and any other filesystem: one mount(2).  */
static int
mount_fs (const struct job *j, ar_error_t *err)
{
  const char *dest = j->m->destination;
  bool remount = (j->o.flags & MS_REMOUNT) != 0;
  char b[MOUNTS_FD_PATH_LEN];
  cleanup_close int dst
      = remount ? mounts_open_in_root (j->rootfd, dest, err) : open_target (j, MOUNTS_DIR, -1, err);
  cleanup_close int fd = -1;

  if (dst < 0
      || mounts_mount (j->source ? j->source : j->type, mounts_fd_path (b, dst), j->type,
                       j->o.flags, j->data, j->type, dest, err)
             < 0)
    return -1;
  if (!needs_finish (&j->o))
    return 0;
  fd = remount ? steal_fd (&dst) : reopen_mounted (j->rootfd, dest, err);
  if (fd < 0)
    return -1;
  return finish (j, fd, dest, err);
}

/* An rbind of a host path in place of a filesystem the user namespace may not mount.  */
static int
mount_host_instead (const struct job *j, const char *host, unsigned long extra, ar_error_t *err)
{
  struct job b = *j;

  b.src = (struct mounts_src){ -1, false };
  b.source = host;
  b.type = NULL;
  b.o.flags |= MS_BIND | MS_REC | extra;
  return mount_bind (&b, err);
}

/* sysfs belongs to the network namespace: a user namespace without one may not mount it, so
   runc binds the host's /sys instead, read-only.  A joined one may or may not be the user
   namespace's own: the kernel says.  */
static int
mount_sysfs (const struct job *j, ar_error_t *err)
{
  const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
  int ret;

  if (j->c->userns && !has_ns (j->c->spec, SPEC_NS_NETWORK, false))
    return mount_host_instead (j, "/sys", ro, err);
  ret = mount_fs (j, err);
  if (ret == 0 || !j->c->userns || (*err)->status != EPERM)
    return ret;
  ar_error_release (err);
  return mount_host_instead (j, "/sys", ro, err);
}

/* mqueue belongs to the IPC namespace, with the same fallback.  */
static int
mount_mqueue (const struct job *j, ar_error_t *err)
{
  int ret = mount_fs (j, err);

  if (ret == 0 || !j->c->userns || (*err)->status != EPERM)
    return ret;
  ar_error_release (err);
  return mount_host_instead (j, "/dev/mqueue", 0, err);
}

/* cgroups.  Without a cgroup namespace of its own a fresh mount would show the host's whole
   tree, so the container's own cgroup (from /proc/self/cgroup) is bound instead, as runc does;
   with one, a fresh mount shows the namespace's root.  */

static bool
has_token (const char *list, const char *tok, size_t n)
{
  for (const char *p = list; *p;)
    {
      size_t len = strcspn (p, ",");
      if (len == n && strncmp (p, tok, n) == 0)
        return true;
      p += len + (p[len] == ',');
    }
  return false;
}

/* Every comma-separated word of WANT is one of HAVE's.  */
static bool
all_tokens_in (const char *want, const char *have)
{
  for (const char *p = want; *p;)
    {
      size_t len = strcspn (p, ",");
      if (!has_token (have, p, len))
        return false;
      p += len + (p[len] == ',');
    }
  return true;
}

/* The calling process's cgroup in the hierarchy mounted as MI, or NULL.  */
static char *
own_cgroup (const char *self, const struct mounts_info *mi)
{
  cleanup_free char *copy = xstrdup (self);
  char *save = NULL;

  for (char *line = strtok_r (copy, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *ctrl = strchr (line, ':'), *path = ctrl ? strchr (ctrl + 1, ':') : NULL;

      if (path == NULL)
        continue;
      *path++ = '\0';
      ctrl++;
      if (*ctrl == '\0'
              ? strcmp (mi->fstype, "cgroup2") == 0
              : strcmp (mi->fstype, "cgroup") == 0 && all_tokens_in (ctrl, mi->super_options))
        return xstrdup (path);
    }
  return NULL;
}

/* The host directory of the container's cgroup in the hierarchy MI, or NULL when it is not
   below that mount's root.  */
static char *
cgroup_source (const char *self, const struct mounts_info *mi)
{
  cleanup_free char *own = own_cgroup (self, mi);
  size_t n = strcmp (mi->root, "/") == 0 ? 0 : strlen (mi->root);

  if (own == NULL || strncmp (own, mi->root, n) != 0 || (own[n] != '/' && own[n] != '\0'))
    return NULL;
  return xasprintf ("%s%s", mi->mount_point, own + n);
}

/* A fresh v1 mount must name the same controllers as the host's; release_agent may only be
   set in the initial namespaces.  */
static char *
cgroup_v1_data (const char *super_options)
{
  cleanup_free char *copy = xstrdup (super_options);
  char *out = NULL, *save = NULL;

  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    {
      char *joined;
      if (strcmp (t, "rw") == 0 || strcmp (t, "ro") == 0 || ar_str_has_prefix (t, "release_agent="))
        continue;
      joined = out ? xasprintf ("%s,%s", out, t) : xstrdup (t);
      free (out);
      out = joined;
    }
  return out;
}

struct cgroup_v1
{
  const struct job *j;
  int dirfd;  /* the tmpfs on the target */
  char *self; /* /proc/self/cgroup */
  bool cgroupns;
};

static int
cgroup_v1_bind (struct cgroup_v1 *cg, const struct mounts_info *mi, int fd, const char *dest,
                ar_error_t *err)
{
  char b1[MOUNTS_FD_PATH_LEN], b2[MOUNTS_FD_PATH_LEN];
  cleanup_free char *src = cgroup_source (cg->self, mi);
  cleanup_close int srcfd = -1;

  if (src == NULL)
    return 0; /* the container's cgroup is not visible there: leave the directory empty */
  srcfd = open (src, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (srcfd < 0)
    return ar_make_error (err, errno, "open `%s`", src);
  if (mounts_mount (mounts_fd_path (b1, srcfd), mounts_fd_path (b2, fd), NULL, MS_BIND, NULL, src,
                    dest, err)
      < 0)
    return -1;
  if (!needs_remount (&cg->j->o))
    return 0;
  {
    cleanup_close int top = reopen_mounted (cg->j->rootfd, dest, err);
    return top < 0 ? -1 : remount_bind (cg->j, top, dest, err);
  }
}

static int
cgroup_v1_links (int dirfd, const char *name, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (name);
  char *save = NULL;

  if (strchr (name, ',') == NULL)
    return 0;
  /* "cpu,cpuacct" is also reachable as cpu and as cpuacct.  */
  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    if (symlinkat (name, dirfd, t) < 0 && errno != EEXIST)
      return ar_make_error (err, errno, "symlink `%s` to `%s`", t, name);
  return 0;
}

static int
cgroup_v1_one (const struct mounts_info *mi, void *data, ar_error_t *err)
{
  static const char prefix[] = "/sys/fs/cgroup/";
  struct cgroup_v1 *cg = data;
  const char *name = mi->mount_point + sizeof prefix - 1;
  unsigned long flags = cg->j->o.flags & ~(MS_BIND | MS_REC | MS_REMOUNT);
  cleanup_free char *dest = NULL;
  cleanup_free char *opts = NULL;
  cleanup_close int fd = -1;
  char b[MOUNTS_FD_PATH_LEN];

  if ((strcmp (mi->fstype, "cgroup") != 0 && strcmp (mi->fstype, "cgroup2") != 0)
      || !ar_str_has_prefix (mi->mount_point, prefix) || *name == '\0' || strchr (name, '/'))
    return 0;
  dest = xasprintf ("%s/%s", cg->j->m->destination, name);
  if (mkdirat (cg->dirfd, name, 0755) < 0 && errno != EEXIST)
    return ar_make_error (err, errno, "mkdir `%s`", dest);
  fd = openat (cg->dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "open `%s`", dest);
  if (!cg->cgroupns && cgroup_v1_bind (cg, mi, fd, dest, err) < 0)
    return -1;
  opts = strcmp (mi->fstype, "cgroup") == 0 ? cgroup_v1_data (mi->super_options) : NULL;
  if (cg->cgroupns
      && mounts_mount (mi->fstype, mounts_fd_path (b, fd), mi->fstype, flags, opts, mi->fstype,
                       dest, err)
             < 0)
    return -1;
  return cgroup_v1_links (cg->dirfd, name, err);
}

/* A tmpfs with one directory per host hierarchy, then the tmpfs made read-only.  */
static int
mount_cgroup_v1 (const struct job *j, ar_error_t *err)
{
  const char *dest = j->m->destination;
  struct job t = *j;
  struct cgroup_v1 cg = { .j = j, .cgroupns = has_ns (j->c->spec, SPEC_NS_CGROUP, false) };
  cleanup_free char *self = NULL;
  cleanup_close int fd = -1;
  char b[MOUNTS_FD_PATH_LEN];

  t.type = t.source = "tmpfs";
  t.data = "mode=755";
  t.o.flags &= MS_NOSUID | MS_NODEV | MS_NOEXEC;
  t.o.propagation = t.o.rec_set = t.o.rec_clr = 0;
  if (ar_read_file ("/proc/self/cgroup", 0, &self, NULL, err) < 0 || mount_fs (&t, err) < 0)
    return -1;
  fd = reopen_mounted (j->rootfd, dest, err);
  if (fd < 0)
    return -1;
  cg.dirfd = fd;
  cg.self = self;
  if (mounts_foreach_info (cgroup_v1_one, &cg, err) < 0
      || mounts_remount_bind (fd, mounts_fd_path (b, fd), j->o.flags & ~(MS_BIND | MS_REC), 0, dest,
                              err)
             < 0)
    return -1;
  return finish (j, fd, dest, err);
}

static int
mount_cgroup_v2 (const struct job *j, ar_error_t *err)
{
  struct job t = *j;
  struct mounts_info mi = { .root = "/", .mount_point = "/sys/fs/cgroup", .fstype = "cgroup2" };
  cleanup_free char *self = NULL;
  cleanup_free char *src = NULL;
  int ret;

  t.type = "cgroup2";
  if (has_ns (j->c->spec, SPEC_NS_CGROUP, false))
    {
      /* No nsdelegate: that is for the initial namespace's mount only.  */
      ret = mount_fs (&t, err);
      if (ret == 0 || ((*err)->status != EPERM && (*err)->status != EBUSY))
        return ret;
      ar_error_release (err);
    }
  if (ar_read_file ("/proc/self/cgroup", 0, &self, NULL, err) < 0)
    return -1;
  src = cgroup_source (self, &mi);
  if (src == NULL)
    return ar_make_error (err, ENOENT,
                          "mount `cgroup` on `%s`: no cgroup v2 path in "
                          "/proc/self/cgroup",
                          j->m->destination);
  return mount_host_instead (j, src, 0, err);
}

static int
mount_cgroup (const struct job *j, ar_error_t *err)
{
  struct statfs sfs;

  if (statfs ("/sys/fs/cgroup", &sfs) < 0)
    return ar_make_error (err, errno, "statfs `/sys/fs/cgroup`");
  if (sfs.f_type == CGROUP2_SUPER_MAGIC)
    return mount_cgroup_v2 (j, err);
  return mount_cgroup_v1 (j, err);
}

static bool
type_is (const struct job *j, const char *type)
{
  return j->type != NULL && strcmp (j->type, type) == 0;
}

int
mounts_apply_one (int rootfd, const struct spec_mount *m, const struct rootfs_ctx *c,
                  struct mounts_src src, ar_error_t *err)
{
  struct job j
      = { .rootfd = rootfd, .m = m, .c = c, .src = src, .type = m->type, .source = m->source };
  cleanup_free char *data = NULL;

  if (m->destination == NULL)
    return ar_make_error (err, EINVAL, "mount: no destination");
  if (parse_mopts (&m->options, &j.o, err) < 0)
    return ar_error_wrap (err, "mount on `%s`", m->destination);
  data = j.o.data;
  j.data = data;
  if ((j.o.flags & MS_BIND) || type_is (&j, "bind"))
    return mount_bind (&j, err);
  if (j.type == NULL || *j.type == '\0')
    return ar_make_error (err, EINVAL, "mount on `%s`: no type", m->destination);
  if (type_is (&j, "cgroup"))
    return mount_cgroup (&j, err);
  if (type_is (&j, "sysfs"))
    return mount_sysfs (&j, err);
  if (type_is (&j, "mqueue"))
    return mount_mqueue (&j, err);
  return mount_fs (&j, err);
}
