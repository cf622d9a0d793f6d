/* create's claim on its cgroup directories.  A config names its cgroupsPath freely, so it could
   name the cgroup of another container, one inside it, or one above it: the container would then
   share the other's limits and accounting, be frozen and killed with it (or freeze and kill it),
   and a cgroup with a child cannot be removed, so the other's delete would fail.  The claim is
   made under a lock on --root, so that two creates beside each other cannot both find the place
   free: each records its directories in its journal (journal.h) before it makes them, and the
   next create reads every journal of the root before it records its own.  Containers of another
   --root, or of another runtime, are seen only by their processes (cgroup_check_parents).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "runtime/container_internal.h"
#include "state/journal.h"
#include "utils.h"

static int
lock_root (int rootfd, ar_error_t *err)
{
  cleanup_close int fd = openat (rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    return ar_make_error (err, errno, "open the state root");
  while (flock (fd, LOCK_EX) < 0)
    if (errno != EINTR)
      return ar_make_error (err, errno, "lock the state root");
  return steal_fd (&fd);
}

/* The cgroup directories of container `id` of the root: what its journal says it made or was
   about to make, else what its state.json says (NULL: none known).  */
static char **
dirs_of (int rootfd, const char *id)
{
  cleanup_close int fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct state_journal j;
  struct state *s = NULL;
  char **dirs;

  if (fd < 0)
    return NULL;
  state_journal_read (fd, &j);
  dirs = steal_ptr (&j.cgroup_dirs);
  state_journal_release (&j);
  if (dirs == NULL && state_load (fd, id, &s, NULL) == 0)
    dirs = steal_ptr (&s->cgroup_dirs);
  state_free (s);
  return dirs;
}

static int
check_against (const struct cgroup *cg, const char *other, char *const *dirs, ar_error_t *err)
{
  static const char *const what[] = {
    [CGROUP_SAME] = "is",
    [CGROUP_INSIDE] = "is inside",
    [CGROUP_ABOVE] = "holds",
  };

  for (size_t i = 0; i < cg->n; i++)
    for (size_t k = 0; dirs[k]; k++)
      {
        enum cgroup_relation rel = cgroup_relation (cg->dirs[i], dirs[k]);
        if (rel != CGROUP_APART)
          return ar_make_error (err, 0,
                                "create cgroup `%s`: it %s container `%s`'s cgroup `%s` "
                                "(linux.cgroupsPath)",
                                cg->dirs[i], what[rel], other, dirs[k]);
      }
  return 0;
}

int
container_cgroup_claim (int rootfd, const char *id, const struct cgroup *cg, ar_error_t *err)
{
  cleanup_close int lock = lock_root (rootfd, err);
  char **ids = NULL;
  int r = 0;

  if (lock < 0 || state_list_ids (rootfd, &ids, err) < 0)
    return -1;
  for (size_t i = 0; r == 0 && ids[i]; i++)
    {
      char **dirs;
      if (strcmp (ids[i], id) == 0)
        continue;
      dirs = dirs_of (rootfd, ids[i]);
      if (dirs)
        r = check_against (cg, ids[i], dirs, err);
      ar_strv_free (dirs);
    }
  ar_strv_free (ids);
  if (r < 0 || cgroup_check_parents (cg, err) < 0)
    return -1;
  return steal_fd (&lock);
}
