/* The ephemeral rootfs: an overlay whose lower layer is the bundle's rootfs and whose upper and
   work directories are on a private tmpfs (of --disk's size), made by the runtime as detached
   mounts (fsopen, fsmount), never attached on the host.  The init attaches the overlay on the
   rootfs path inside its own mount namespace (rootfs.c), so the overlay and its tmpfs live
   exactly as long as the container's mount namespace: nothing to unmount on delete, nothing
   left if agentrt is killed, and the bundle is never written.

   Canaries are planted in the upper layer as real files (decoy credentials), each watched by
   fanotify (FAN_OPEN on its inode: opens through the overlay reach the upper inode, and the
   event names the opening process).  */
#ifndef AGENTRT_EPHEMERAL_H
#define AGENTRT_EPHEMERAL_H

#include <sys/types.h>

#include "agentrt/error.h"
#include "supervisor/supervisor.h"

struct ephemeral
{
  int overlay_fd;  /* the detached overlay, for the init */
  int fanotify_fd; /* FAN_OPEN marks on the canaries, or -1 */
  struct supervisor_canary *canaries;
  size_t n_canaries;
};

struct ephemeral_cfg
{
  const char *rootfs;            /* absolute: the lower layer */
  unsigned long long disk_bytes; /* 0: tmpfs's default size */
  char *const *canaries;         /* absolute paths in the container, or NULL */
  uid_t root_uid;                /* the host ids of the container's root, for planted files */
  gid_t root_gid;
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

int ephemeral_make (const struct ephemeral_cfg *c, struct ephemeral *out, ar_error_t *err);
void ephemeral_release (struct ephemeral *e);

#endif
