/* One entry of config.json's `mounts`, and what rootfs.c shares with it: the mount option table,
   paths resolved inside a directory tree without ever leaving it, and mount(2) onto an fd.
   Nothing here follows a symlink or ".." out of the rootfs (CVE-2021-30465): every target is
   opened component by component relative to the rootfs fd and the mount goes onto
   /proc/self/fd/N of that O_PATH fd, never onto a path the kernel would resolve again.  */
#ifndef AGENTRT_MOUNTS_H
#define AGENTRT_MOUNTS_H

#include <stdbool.h>
#include <sys/mount.h>

#include "agentrt/error.h"
#include "spec/spec.h"

struct rootfs_ctx;

/* Option words to mount(2) flags (MS_*), one propagation change (MS_PRIVATE|MS_REC, …; the last
   one given wins), recursive attributes for mount_setattr(AT_RECURSIVE) (MOUNT_ATTR_*, from
   rro, rnosuid, …), and the rest joined with commas as filesystem data ("mode=755,size=65536k";
   NULL when there is none; the caller frees it).  idmap and ridmap are the runtime's
   (sources.h): no flag here.  */
int mounts_parse_options (const struct spec_strv *opts, unsigned long *flags,
                          unsigned long *propagation, unsigned long *rec_attr_set,
                          unsigned long *rec_attr_clr, char **data, ar_error_t *err);

/* A bind source the runtime opened (sources.h): an O_PATH fd of it in our mount namespace, or
   a detached tree (tree) to move into place; fd -1 when the init opens the source itself.  */
struct mounts_src
{
  int fd;
  bool tree;
};

/* Mount config entry M inside the rootfs open at ROOTFD (an O_PATH or directory fd of the
   rootfs bind mount).  A bind takes its source from SRC, else opens it (relative sources
   resolve against c->bundle).  Needs the host's /proc (for /proc/self/fd), so it runs before
   pivot_root.  */
int mounts_apply_one (int rootfd, const struct spec_mount *m, const struct rootfs_ctx *c,
                      struct mounts_src src, ar_error_t *err);

enum mounts_kind
{
  MOUNTS_ANY,  /* whatever is there (nothing is created for the last component) */
  MOUNTS_DIR,  /* a directory, created when missing */
  MOUNTS_FILE, /* a non-directory, created as an empty regular file when missing */
};

/* An O_PATH fd for PATH inside the tree rooted at ROOTFD, as RESOLVE_IN_ROOT sees it: absolute
   symlinks and ".." stop at ROOTFD, magic links (/proc/self/root, …) are refused.  A missing
   path fails with status ENOENT.  */
int mounts_open_in_root (int rootfd, const char *path, ar_error_t *err);
/* The same, creating the missing directories on the way (0755) and the last component as KIND
   says.  A last component of the other kind fails with ENOTDIR or EISDIR.  */
int mounts_mkpath_in_root (int rootfd, const char *path, enum mounts_kind kind, ar_error_t *err);

/* "/proc/self/fd/N", the name mount(2) is given for an fd.  */
#define MOUNTS_FD_PATH_LEN 32
const char *mounts_fd_path (char buf[MOUNTS_FD_PATH_LEN], int fd);

/* mount(2) onto TARGET (usually mounts_fd_path of a resolved fd); an error reads
   "mount `WHAT` on `DEST`".  */
int mounts_mount (const char *source, const char *target, const char *type, unsigned long flags,
                  const char *data, const char *what, const char *dest, ar_error_t *err);

/* Flags a user namespace locks on the mounts it inherits (MNT_LOCK_*): a bind remount that
   leaves one of them out fails with EPERM.  */
#define MOUNTS_LOCKED_FLAGS                                                                \
  (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME \
   | MS_STRICTATIME)
/* MS_REMOUNT|MS_BIND of the mount whose root FD is (TARGET names it for mount(2)) with FLAGS,
   plus those of KEEP that the mount has now (its statvfs); its atime mode is kept as well when
   FLAGS names none.  */
int mounts_remount_bind (int fd, const char *target, unsigned long flags, unsigned long keep,
                         const char *dest, ar_error_t *err);

/* PATH made absolute and lexically clean: "a//b/./c/../d" is "/a/b/d", ".." stops at "/".  */
char *mounts_clean_path (const char *path);

/* One line of /proc/self/mountinfo, with root and mount point unescaped.  */
struct mounts_info
{
  int id, parent;
  const char *root, *mount_point, *options, *optional, *fstype, *source, *super_options;
};
/* Call FN for each mount of the calling process's namespace, in order; FN returns < 0 (with
 *err set) to fail, > 0 to stop early.  */
int mounts_foreach_info (int (*fn) (const struct mounts_info *mi, void *data, ar_error_t *err),
                         void *data, ar_error_t *err);

#endif
