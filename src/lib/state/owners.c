/* User namespace owners: a reserved uid per live container (owners.h).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/owners.h"
#include "utils.h"

static int
check_maps (const struct spec_id_mapping *m, size_t n, const char *what, ar_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    if (m[i].size > 0 && (uint64_t) m[i].host_id + m[i].size - 1 >= OWNERS_BASE)
      return ar_make_error (err, 0,
                            "config.json: linux.%s[%zu]: host ids %u-%llu reach agentrt's "
                            "reserved range of user namespace owners (%u and up)",
                            what, i, (unsigned) m[i].host_id,
                            (unsigned long long) m[i].host_id + m[i].size - 1, OWNERS_BASE);
  return 0;
}

int
owners_check_user (const struct spec_user *u, const char *what, ar_error_t *err)
{
  if (u->uid >= OWNERS_BASE)
    return ar_make_error (err, 0,
                          "%s.uid: %u is in agentrt's reserved range of user namespace owners "
                          "(%u and up)",
                          what, (unsigned) u->uid, OWNERS_BASE);
  if (u->gid >= OWNERS_BASE)
    return ar_make_error (err, 0,
                          "%s.gid: %u is in agentrt's reserved range of user namespace owners "
                          "(%u and up)",
                          what, (unsigned) u->gid, OWNERS_BASE);
  for (size_t i = 0; i < u->n_additional_gids; i++)
    if (u->additional_gids[i] >= OWNERS_BASE)
      return ar_make_error (err, 0,
                            "%s.additionalGids[%zu]: %u is in agentrt's reserved range of user "
                            "namespace owners (%u and up)",
                            what, i, (unsigned) u->additional_gids[i], OWNERS_BASE);
  return 0;
}

int
owners_check_spec (const struct spec *s, ar_error_t *err)
{
  const struct spec_linux *l = &s->linux_;

  if (check_maps (l->uid_mappings, l->n_uid_mappings, "uidMappings", err) < 0
      || check_maps (l->gid_mappings, l->n_gid_mappings, "gidMappings", err) < 0)
    return -1;
  return s->has_process ? owners_check_user (&s->process.user, "config.json: process.user", err)
                        : 0;
}

/* The registry directory: made if missing; it must be a directory of root's that nobody else
   may write, or another user could hold slots or name them.  */
static int
registry_open (const char *registry, ar_error_t *err)
{
  cleanup_close int fd = -1;
  struct stat st;

  if (mkdir (registry, 0700) < 0 && errno != EEXIST)
    return ar_make_error (err, errno, "user namespace owners: mkdir `%s`", registry);
  fd = open (registry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "user namespace owners: open `%s`", registry);
  if (fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "user namespace owners: stat `%s`", registry);
  if (st.st_uid != geteuid () || (st.st_mode & 022) != 0)
    return ar_make_error (err, 0,
                          "user namespace owners: `%s` must be owned by uid %u and writable by "
                          "it only",
                          registry, (unsigned) geteuid ());
  return steal_fd (&fd);
}

/* Is slot `name` held: its file names a state directory that still exists?  */
static bool
slot_held (int dirfd, const char *name)
{
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char path[PATH_MAX + 1];
  ssize_t n;

  if (fd < 0)
    return errno != ENOENT; /* unreadable: kept, never taken over */
  n = read (fd, path, sizeof path - 1);
  if (n <= 0)
    return false; /* a claim cut short before its write: its create failed */
  path[n] = '\0';
  path[strcspn (path, "\n")] = '\0';
  return path[0] == '/' && access (path, F_OK) == 0;
}

static int
slot_write (int dirfd, const char *name, const char *state_dir, ar_error_t *err)
{
  cleanup_close int fd
      = openat (dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  cleanup_free char *text = xasprintf ("%s\n", state_dir);
  size_t len = strlen (text);

  if (fd < 0 || write (fd, text, len) != (ssize_t) len)
    return ar_make_error (err, errno, "user namespace owners: write slot `%s`", name);
  return 0;
}

int
owners_claim (const char *registry, const char *state_dir, uid_t *owner, ar_error_t *err)
{
  cleanup_close int dirfd = registry_open (registry, err);

  if (dirfd < 0)
    return -1;
  if (strchr (state_dir, '\n') || state_dir[0] != '/')
    return ar_make_error (err, 0, "user namespace owners: `%s`: not a usable state directory",
                          state_dir);
  /* Released when dirfd is closed, after the slot's file is written.  */
  if (flock (dirfd, LOCK_EX) < 0)
    return ar_make_error (err, errno, "user namespace owners: lock `%s`", registry);
  for (uint32_t slot = 0; slot < OWNERS_SLOTS; slot++)
    {
      char name[16];

      snprintf (name, sizeof name, "%u", (unsigned) slot);
      if (slot_held (dirfd, name))
        continue;
      if (slot_write (dirfd, name, state_dir, err) < 0)
        return -1;
      *owner = OWNERS_BASE + slot;
      return 0;
    }
  return ar_make_error (err, EAGAIN, "user namespace owners: all %u slots of `%s` are held",
                        OWNERS_SLOTS, registry);
}
