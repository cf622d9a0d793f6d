/* Owners of the user namespaces agentrt makes: one host uid per live container, from a range
   reserved for it, so that no host process and no other container owns a container's user
   namespace.

   The owner of a user namespace has every capability in it (setns, ptrace of its processes,
   mounts in its mount namespace: kernel/capability.c cap_capable), and the kernel charges the
   per-user counters of what is made inside (inotify, fanotify, namespaces: kernel/ucount.c) to
   the owner at the host's level.  An owner that a workload, a mapping or another container
   shares gives them both.  So the owner is OWNERS_BASE + a slot that no other live container
   holds, and every id from OWNERS_BASE up is refused in linux.uidMappings/gidMappings (as host
   ids) and in process.user, so that no process agentrt starts ever runs as one.

   Slots are claimed in a registry shared by every agentrt on the host whatever its --root
   (OWNERS_REGISTRY, root's, mode 0700): one file per slot naming the state directory of the
   container that holds it, written under a lock on the directory (flock), lowest free slot
   first.  delete removes the file once the container's processes are dead; a slot whose state
   directory is gone (a create that failed, a directory removed by hand) is free too, so a
   slot is never taken while the namespace it owns has a process in it.  */
#ifndef AGENTRT_OWNERS_H
#define AGENTRT_OWNERS_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

#define OWNERS_REGISTRY "/run/agentrt-owners"
/* Owners are OWNERS_BASE .. OWNERS_BASE + OWNERS_SLOTS - 1 (0xff000000 .. 0xfffeffff); the
   whole range from OWNERS_BASE to 0xffffffff is refused in configs (0xffffffff is -1, "no
   change", to setresuid).  */
#define OWNERS_BASE 0xff000000u
#define OWNERS_SLOTS 0x00ff0000u

/* config.json: no host id of linux.uidMappings/gidMappings, and no id of process.user, at or
   above OWNERS_BASE.  */
int owners_check_spec (const struct spec *s, ar_error_t *err);
/* The same for one process's user (`what` names it in the error: "exec: process.user").  */
int owners_check_user (const struct spec_user *u, const char *what, ar_error_t *err);
/* Does the id map text MAP (/proc/self/uid_map's format) cover every owner id?  A runtime nested
   in a user namespace that does not map them cannot use them (setresuid fails): it keeps the
   fallback owner (namespaces.c).  */
bool owners_map_covers (const char *map);
/* Both of this process's id maps cover the owners.  */
bool owners_usable (void);
/* Claim a slot in `registry` for the container whose state directory is `state_dir` (an
   absolute path that exists): *owner is the uid (and gid) that owns its user namespace.  */
int owners_claim (const char *registry, const char *state_dir, uid_t *owner, ar_error_t *err);
/* Free the slots `registry` has for `state_dir` (delete, once the container's processes are
   dead and before its state directory is removed: while it exists no other container can have
   that path).  A missing registry holds nothing.  */
int owners_release (const char *registry, const char *state_dir, ar_error_t *err);

#endif
