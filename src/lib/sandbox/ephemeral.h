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

int ephemeral_make (const struct ephemeral_cfg *c, struct ephemeral *out, ar_error_t *err);
void ephemeral_release (struct ephemeral *e);

#endif
