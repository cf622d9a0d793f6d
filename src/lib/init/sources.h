/* The sources of the init's mounts that the runtime opens for it, with its own credentials.
   The init of a user-namespaced container is an unprivileged host uid: it cannot search a
   0700 directory of host root above a bind source (containerd's sandbox files, the kubelet's
   volumes), and it may not idmap a mount (that needs CAP_SYS_ADMIN over the filesystem's user
   namespace).  So the runtime opens them in the init's own mount namespace, once the init has
   it (setns, and back): an O_PATH fd for a plain bind, which the init mounts as it would have
   mounted its own (the copy of the source mount in that namespace carries the flags the user
   namespace locks, MNT_LOCK_*); a detached tree (open_tree, cloned in that namespace: the locks
   are kept too) with MOUNT_ATTR_IDMAP for an idmapped one, which the init moves into place.
   A tree cloned in the host's namespace would come without the locks, and the container's root
   could then remount a read-only host mount writable.

   What is made when: with a new user namespace, on the init's request for its maps (it
   unshares its mount namespace with the user namespace, so no round trip is added); with a
   joined one, or for idmapped mounts without a user namespace, on a request of their own once
   the init has its mount namespace.  Without a user namespace the init is host root and opens
   plain binds itself, as it always did.  */
#ifndef AGENTRT_SOURCES_H
#define AGENTRT_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "init/namespaces.h"
#include "spec/spec.h"

enum sources_kind
{
  SOURCES_NONE, /* the init mounts it itself (not a bind, or no user namespace) */
  SOURCES_OPEN, /* an O_PATH fd of the bind source, opened in the init's mount namespace */
  SOURCES_IDMAP /* a detached, idmapped tree of the bind source */
};

struct sources_mount
{
  enum sources_kind kind;
  char *path;                 /* the bind source on the host, absolute */
  bool rbind;                 /* the tree takes the submounts (AT_RECURSIVE on open_tree) */
  bool ridmap;                /* so does the idmapping (AT_RECURSIVE on mount_setattr) */
  const struct spec_mount *m; /* its own uidMappings/gidMappings, when it has them */
};

struct sources_plan
{
  struct sources_mount *mounts; /* one per spec->mounts entry */
  size_t n;
  bool any;           /* some mount needs the runtime */
  bool at_maps;       /* delivered with the user namespace's maps, else on a request of their own */
  bool joined_userns; /* the container's user namespace is joined: its maps are read, not
                         linux.uidMappings */
};

/* Which of the config's mounts the runtime opens, and the checks runtime-spec 1.2 asks of
   idmapped mounts (uidMappings and gidMappings together; idmap/ridmap without them need a user
   namespace, whose mapping is then used; bind mounts only).  BUNDLE resolves relative
   sources.  */
int sources_plan (const struct spec *s, const struct ns_plan *ns, const char *bundle,
                  struct sources_plan *p, ar_error_t *err);
void sources_plan_release (struct sources_plan *p);

/* Open every planned source for the init PID (its mount and user namespaces are its own by
   now, its maps written): fds[i] for mounts[i], -1 where none is planned.  On failure none is
   left open.  */
int sources_open (const struct sources_plan *p, const struct spec_linux *l, pid_t pid, int *fds,
                  ar_error_t *err);

/* Why the container's root, host uid UID and gid GID in a user namespace that maps the host
   ids of UM and GM, cannot reach PATH (with the runtime's credentials it could): "`/tmp/x` is
   0700 root:root; the container's root is host uid 100000", naming the first directory on the
   way it may not search (by mode, owner and group: ACLs and supplementary groups are not
   looked at); NULL when it may search them all.  */
char *sources_explain_access (const char *path, uid_t uid, gid_t gid,
                              const struct spec_id_mapping *um, size_t nu,
                              const struct spec_id_mapping *gm, size_t ng);

/* An init's error *ERR (status EACCES) that names host paths in backquotes gets the
   explanation of the first of them that its root cannot reach: "…: Permission denied: `/tmp/x`
   is 0700 root:root; …" (the errno's text in the message, status 0).  PID is the init, for
   the maps of a joined user namespace.  */
void sources_explain_error (ar_error_t *err, pid_t pid, const struct ns_plan *ns,
                            const struct spec_linux *l);

#endif
