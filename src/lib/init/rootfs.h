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
#include "init/sources.h"
#include "spec/spec.h"

#define ROOTFS_OVERLAY_FDS 130

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
  int overlay_fds[ROOTFS_OVERLAY_FDS]; /* its detached mounts, in order, the last one its root
                                          (-1: none) */
  int root_fd; /* set by rootfs_prepare: the future "/" (O_PATH); the caller closes it */
  /* Bind sources the runtime opened (sources.h), or NULL: source_fds[i] for spec->mounts[i]
     where sources->mounts[i].kind is not SOURCES_NONE.  */
  const struct sources_plan *sources;
  const int *source_fds;
};

/* The rootfs is reached through the cwd, never by its path: the runtime makes it the init's
   cwd before clone (process.c), and unshare(CLONE_NEWNS) carries the cwd into the new mount
   namespace.  A path walk by the init would run as the container's root, a host uid that
   cannot search a 0700 directory of host root above the bundle (every `mktemp -d`, /root,
   containerd's bundles); `rootfs` is only named in messages (and, when the parent mount is
   shared, made private by path, which under a user namespace never happens: its mount
   namespace gets no shared mounts).

   Everything before pivot_root: root propagation (MS_REC|MS_SLAVE, or linux.rootfsPropagation),
   the parent mount of the rootfs made private if it is shared, the rootfs bind-mounted onto
   itself (MS_BIND|MS_REC) — with overlay_fds, the overlay attached there instead, so that the
   bundle's own tree is only ever its lower layer —, every entry of spec->mounts in order, then,
   when the config mounts a tmpfs on /dev, the devices in it: null zero full random urandom tty and
   linux.devices (mknod, or under a user namespace a bind of the host's node onto an empty file),
   and the links ptmx fd stdin stdout stderr (and core when /proc is mounted); last, with vfile_fds,
   each virtual file bind-mounted read-only over its target where the target exists (a config
   without /proc or /sys has none to cover); with egress_fds, /etc/hosts, /etc/resolv.conf and
   the denials file likewise (created empty first when the rootfs has none, as a bind mount's
   target would be).  */
int rootfs_prepare (struct rootfs_ctx *c, ar_error_t *err);

/* pivot_root into the rootfs, the old root lazily unmounted (or MS_MOVE + chroot with
   no_pivot); then readonlyPaths, maskedPaths (missing ones ignored), root.readonly, the final
   rootfsPropagation when it is shared, slave or private; ends in "/".  */
int rootfs_pivot (const struct rootfs_ctx *c, ar_error_t *err);

#endif
