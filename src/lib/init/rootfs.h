/* The container init's filesystem, as runc and crun build it: the rootfs bind-mounted onto
   itself, config.json's mounts inside it, /dev, then pivot_root, masked and read-only paths.
   Both calls run in the init, in its own mount namespace (and, when configured, as root of its
   new user namespace, maps written), before execve.  Nothing here creates or mounts anything
   outside the rootfs, and no device node is made anywhere but in the tmpfs the config mounts
   on /dev.  */
#ifndef AGENTRT_ROOTFS_H
#define AGENTRT_ROOTFS_H

#include <stdbool.h>

#include "agentrt/error.h"
#include "spec/spec.h"

struct rootfs_ctx
{
  const struct spec *spec; /* parsed config.json */
  const char *bundle;      /* absolute bundle path (relative mount sources resolve against it) */
  const char *rootfs;      /* absolute rootfs path on the host */
  bool userns;           /* init is in a new user namespace: bind-mount devices instead of mknod */
  bool no_pivot;         /* --no-pivot: MS_MOVE + chroot instead of pivot_root */
  const int *vfile_fds;  /* O_PATH fds of the supervisor's virtual files (vfiles.h), or NULL */
  const int *egress_fds; /* the egress allowlist's files (egress.h: EGRESS_FILE__N), or NULL */
  bool overlay;          /* an ephemeral rootfs (ephemeral.h) to attach on `rootfs`: */
  int overlay_fd;        /* its detached mount */
};

/* Everything before pivot_root: root propagation (MS_REC|MS_SLAVE, or linux.rootfsPropagation),
   the parent mount of the rootfs made private if it is shared, the rootfs bind-mounted onto
   itself (MS_BIND|MS_REC) — with overlay_fd, the overlay attached there first, so that the
   bundle's own tree is only ever its lower layer —, every entry of spec->mounts in order, then,
   when the config mounts a tmpfs on /dev, the devices in it: null zero full random urandom tty and
   linux.devices (mknod, or under a user namespace a bind of the host's node onto an empty file),
   and the links ptmx fd stdin stdout stderr (and core when /proc is mounted); last, with vfile_fds,
   each virtual file bind-mounted read-only over its target where the target exists (a config
   without /proc or /sys has none to cover); with egress_fds, /etc/hosts, /etc/resolv.conf and
   the denials file likewise (created empty first when the rootfs has none, as a bind mount's
   target would be).  */
int rootfs_prepare (const struct rootfs_ctx *c, ar_error_t *err);

/* pivot_root into the rootfs, the old root lazily unmounted (or MS_MOVE + chroot with
   no_pivot); then readonlyPaths, maskedPaths (missing ones ignored), root.readonly, the final
   rootfsPropagation when it is shared, slave or private; ends in "/".  */
int rootfs_pivot (const struct rootfs_ctx *c, ar_error_t *err);

#endif
