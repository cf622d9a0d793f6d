/* The ephemeral rootfs: an overlay whose lower layer is the bundle's rootfs and whose upper and
   work directories are on a private tmpfs (of --disk's size), made by the runtime as detached
   mounts (fsopen, fsmount), never attached on the host.  The init attaches the overlay on the
   rootfs inside its own mount namespace (rootfs.c), so the overlay and its tmpfs live exactly
   as long as the container's mount namespace: nothing to unmount on delete, nothing left if
   agentrt is killed, and the bundle is never written.

   Under a new user namespace the lower layer is an idmapped mount of the rootfs (the
   container's mapping, MOUNT_ATTR_IDMAP), so that its root owns an image's root-owned files in
   the writable layer: writes to /etc and /root work, copied up as the container's root; the
   bundle is untouched, the upper layer belongs to the mapped root.  Overlay takes detached
   layers by fd from Linux 6.15 (clone_private_mount of a detached mount; `lowerdir+` is 6.8);
   an older kernel refuses them (Debian 12's 6.1 refused even the detached tmpfs before, so
   --ephemeral did not work there at all): the overlay is then built in a mount namespace of
   the runtime's own, made for it and left at once, where the layers are attached under the
   state directory and named by path.

   Canaries are planted in the upper layer as real files (decoy credentials), each watched by
   fanotify (FAN_OPEN on its inode: opens through the overlay reach the upper inode, and the
   event names the opening process).  */
#ifndef AGENTRT_EPHEMERAL_H
#define AGENTRT_EPHEMERAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"
#include "supervisor/supervisor.h"

/* The detached mounts the init attaches on the rootfs, in index order, the overlay last (its new
   root): the ones the overlay was made from go under it, because a detached mount that is
   closed without ever being attached costs an RCU grace period (50 µs to 2 ms here) where
   attached ones go with the init's old root at pivot_root, which costs it anyway.  */
#define EPHEMERAL_MAX_LAYERS 128 /* idmapped lower layers (Docker images have 127 at most) */
enum
{
  EPHEMERAL_TMPFS = EPHEMERAL_MAX_LAYERS, /* the tmpfs of the upper layer */
  EPHEMERAL_OVERLAY,                      /* the overlay */
  EPHEMERAL__N,
};

struct ephemeral
{
  int fds[EPHEMERAL__N]; /* [0, EPHEMERAL_MAX_LAYERS): the idmapped lower layers; -1: none */
  int fanotify_fd;       /* FAN_OPEN marks on the canaries, or -1 */
  struct supervisor_canary *canaries;
  size_t n_canaries;
  bool idmapped; /* the overlay's lower layers are idmapped */
};

struct ephemeral_cfg
{
  const char *rootfs;            /* absolute: the lower layer */
  const char *scratch;           /* absolute: a directory of ours (the state directory) */
  unsigned long long disk_bytes; /* 0: tmpfs's default size */
  char *const *canaries;         /* absolute paths in the container, or NULL */
  uid_t root_uid;                /* the host ids of the container's root, for planted files */
  gid_t root_gid;
  /* The container's new user namespace's mappings, when its root is to own the image's files:
     the lower layers (LAYERS, top first: the rootfs, or the layers of the overlay it is) are
     then idmapped mounts (ephemeral_decide), made once the namespace exists
     (ephemeral_make_overlay).  NULL otherwise.  */
  const struct spec_linux *idmap;
  char **layers;
};

/* A tmpfs capped at `bytes` also gets one inode per EPHEMERAL_BYTES_PER_INODE of them (tmpfs's
   own default is half the machine's pages, 3 million here, whatever the size).  An empty file
   costs no block but holds kernel memory, measured on this kernel: ~0.95 KiB of inode and
   dentry on the tmpfs, ~2 KiB with the overlay's own on top (the overlay's are reclaimable).
   2 KiB per inode keeps what inodes can hold to about the cap again, charged to the
   container's memory cgroup; real trees use far fewer inodes per byte (a tmpfs copy of npm's
   node_modules: 7.4 KiB per inode, Python's stdlib 20 KiB, dist-packages 14 KiB; every
   non-empty file takes at least a 4 KiB page), so their size runs out first.  */
#define EPHEMERAL_BYTES_PER_INODE 2048ULL
unsigned long long ephemeral_nr_inodes (unsigned long long bytes);

/* Whether the lower layers are idmapped with the mappings L of a new user namespace, and which
   (*layers, top first, NULL-terminated; the caller frees them): when the rootfs's root belongs
   to an id that L does not map (an image unpacked by host root, whose files the container's
   root would otherwise see as nobody's and could not write), and every layer is on a
   filesystem that takes idmapped mounts (ext2/3/4, xfs, btrfs, f2fs, tmpfs).  A rootfs that is
   itself an overlay mount (containerd's and Podman's bundles; overlay cannot be idmapped) is
   taken apart: its upper and lower directories, from /proc/self/mountinfo, become the layers
   (not when a layer is named by a relative path, as containerd does for a long list, or is a
   data-only layer).  *why says why not, for the log.  */
bool ephemeral_decide (const char *rootfs, const struct spec_linux *l, char ***layers,
                       const char **why);

/* The tmpfs and the canaries; the overlay too unless c->idmap.  */
int ephemeral_make (const struct ephemeral_cfg *c, struct ephemeral *out, ar_error_t *err);
/* With c->idmap, once the container's user namespace USERNS_FD has its maps: the idmapped lower
   layer and the overlay.  A filesystem that refuses the idmap (EINVAL) gets the overlay without
   it, and *fallback says why.  */
int ephemeral_make_overlay (struct ephemeral *e, const struct ephemeral_cfg *c, int userns_fd,
                            const char **fallback, ar_error_t *err);
void ephemeral_release (struct ephemeral *e);

#endif
