/* User namespace owners: a reserved uid per live container (owners.h).  */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/owners.h"
#include "utils.h"

/* `what`: the array's path in config.json ("linux.uidMappings").  */
static int
check_maps (const struct spec_id_mapping *m, size_t n, const char *what, ar_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    if (m[i].size > 0 && (uint64_t) m[i].host_id + m[i].size - 1 >= OWNERS_BASE)
      return ar_make_error (err, 0,
                            "config.json: %s[%zu]: host ids %u-%llu reach agentrt's reserved "
                            "range of user namespace owners (%u and up)",
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

/* An idmapped mount's host ids are the owners of what the container writes there: a setuid
   file of an owner's uid would make a host user that owner.  */
static int
check_mount_maps (const struct spec *s, ar_error_t *err)
{
  for (size_t i = 0; i < s->n_mounts; i++)
    {
      const struct spec_mount *m = &s->mounts[i];
      cleanup_free char *uids = xasprintf ("mounts[%zu].uidMappings", i);
      cleanup_free char *gids = xasprintf ("mounts[%zu].gidMappings", i);

      if (check_maps (m->uid_mappings, m->n_uid_mappings, uids, err) < 0
          || check_maps (m->gid_mappings, m->n_gid_mappings, gids, err) < 0)
        return -1;
    }
  return 0;
}

int
owners_check_spec (const struct spec *s, ar_error_t *err)
{
  const struct spec_linux *l = &s->linux_;

  if (check_maps (l->uid_mappings, l->n_uid_mappings, "linux.uidMappings", err) < 0
      || check_maps (l->gid_mappings, l->n_gid_mappings, "linux.gidMappings", err) < 0
      || check_mount_maps (s, err) < 0)
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

bool
owners_map_covers (const char *map)
{
  uint64_t want = OWNERS_BASE, end = (uint64_t) OWNERS_BASE + OWNERS_SLOTS;

  /* Lines are "inside outside count"; the kernel keeps them sorted by neither, so the covered
     prefix of [want, end) grows until no line extends it.  */
  for (bool grew = true; grew && want < end;)
    {
      const char *line = map;
      grew = false;
      while (line && *line)
        {
          unsigned long long in, out, count;
          if (sscanf (line, "%llu %llu %llu", &in, &out, &count) == 3 && in <= want
              && want < in + count)
            {
              want = in + count;
              grew = true;
            }
          line = strchr (line, '\n');
          line = line ? line + 1 : NULL;
        }
    }
  return want >= end;
}

static bool
map_file_covers (const char *path)
{
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;

  if (ar_read_file (path, 1 << 16, &text, NULL, &err) < 0)
    {
      ar_error_release (&err);
      return false;
    }
  return owners_map_covers (text);
}

bool
owners_usable (void)
{
  return map_file_covers ("/proc/self/uid_map") && map_file_covers ("/proc/self/gid_map");
}

/* Does slot file `name` name `state_dir`?  */
static bool
slot_names (int dirfd, const char *name, const char *state_dir)
{
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char path[PATH_MAX + 1];
  ssize_t n;

  if (fd < 0)
    return false;
  n = read (fd, path, sizeof path - 1);
  if (n <= 0)
    return false;
  path[n] = '\0';
  path[strcspn (path, "\n")] = '\0';
  return strcmp (path, state_dir) == 0;
}

/* Remove the slot files of `dirfd` (locked) that name `state_dir`.  */
static int
release_locked (int dirfd, const char *state_dir, ar_error_t *err)
{
  DIR *d = fdopendir (dup (dirfd));
  struct dirent *e;
  int ret = 0;

  if (d == NULL)
    return ar_make_error (err, errno, "user namespace owners: read the registry");
  while (ret == 0 && (e = readdir (d)) != NULL)
    if (e->d_name[0] != '.' && slot_names (dirfd, e->d_name, state_dir)
        && unlinkat (dirfd, e->d_name, 0) < 0 && errno != ENOENT)
      ret = ar_make_error (err, errno, "user namespace owners: remove slot `%s`", e->d_name);
  closedir (d);
  return ret;
}

int
owners_release (const char *registry, const char *state_dir, ar_error_t *err)
{
  cleanup_close int dirfd = open (registry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (dirfd < 0)
    return errno == ENOENT
               ? 0
               : ar_make_error (err, errno, "user namespace owners: open `%s`", registry);
  /* Released when dirfd is closed.  */
  if (flock (dirfd, LOCK_EX) < 0)
    return ar_make_error (err, errno, "user namespace owners: lock `%s`", registry);
  return release_locked (dirfd, state_dir, err);
}
