/* What create claims against the other containers of the same --root: its cgroup directories
   and its audit log.  The claim is made under a lock on --root, so that two creates beside
   each other cannot both find the place free.

   Cgroups.  A config names its cgroupsPath freely, so it could name the cgroup of another
   container, one inside it, or one above it: the container would then share the other's limits
   and accounting, be frozen and killed with it (or freeze and kill it), and a cgroup with a
   child cannot be removed, so the other's delete would fail.  Each create records its
   directories in its journal (journal.h) before it makes them, under the lock, and the next
   create reads every journal of the root before it records its own.  Containers of another
   --root, or of another runtime, are seen only by their processes (cgroup_check_parents).

   The audit log.  With pod_annotations = io.agentrt.audit a pod names its log file under
   audit_dir: it could name another container's (audit_dir/ID.jsonl, or the file another pod
   named), write its records among theirs and spend their audit budget, which counts the
   file's size.  A log that another container of the root writes is refused, but within a pod
   (the same io.kubernetes.cri.sandbox-id, which containerd's CRI sets, and copies the pod's
   annotations into each of its containers).  Each container's state.json holds its log's path
   from the first save on, before this claim.  */
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

#define CRI_SANDBOX_ID "io.kubernetes.cri.sandbox-id"

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
dirs_of (int dirfd, struct state *s)
{
  struct state_journal j;
  char **dirs;

  state_journal_read (dirfd, &j);
  dirs = steal_ptr (&j.cgroup_dirs);
  state_journal_release (&j);
  if (dirs == NULL && s)
    dirs = steal_ptr (&s->cgroup_dirs);
  return dirs;
}

static int
check_cgroups (const struct cgroup *cg, const char *other, char *const *dirs, ar_error_t *err)
{
  static const char *const what[] = {
    [CGROUP_SAME] = "is",
    [CGROUP_INSIDE] = "is inside",
    [CGROUP_ABOVE] = "holds",
  };

  for (size_t i = 0; cg && i < cg->n; i++)
    for (size_t k = 0; dirs && dirs[k]; k++)
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

static const char *
annotation (const struct spec_map *a, const char *key)
{
  for (size_t i = 0; a && i < a->n; i++)
    if (strcmp (a->items[i].key, key) == 0)
      return a->items[i].value;
  return NULL;
}

static int
check_audit (const struct container_claim *cl, const struct state *other, ar_error_t *err)
{
  const char *pod = annotation (cl->annotations, CRI_SANDBOX_ID);
  const char *theirs = annotation (&other->annotations, CRI_SANDBOX_ID);

  if (cl->audit_log == NULL || other->audit_log == NULL
      || strcmp (cl->audit_log, other->audit_log) != 0)
    return 0;
  if (pod && *pod && theirs && strcmp (pod, theirs) == 0)
    return 0;
  return ar_make_error (err, 0,
                        "audit log `%s`: container `%s` writes it; a container's audit log is "
                        "its own (or its pod's: io.agentrt.audit)",
                        cl->audit_log, other->id);
}

static int
check_one (int rootfd, const struct container_claim *cl, const char *other, ar_error_t *err)
{
  cleanup_close int fd = openat (rootfd, other, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_state struct state *s = NULL;
  cleanup_strv char **dirs = NULL;

  if (fd < 0)
    return 0; /* deleted meanwhile */
  (void) state_load (fd, other, &s, NULL);
  dirs = dirs_of (fd, s);
  if (check_cgroups (cl->cg, other, dirs, err) < 0 || (s && check_audit (cl, s, err) < 0))
    return -1;
  return 0;
}

int
container_claim (int rootfd, const struct container_claim *cl, ar_error_t *err)
{
  cleanup_close int lock = lock_root (rootfd, err);
  cleanup_strv char **ids = NULL;

  if (lock < 0 || state_list_ids (rootfd, &ids, err) < 0)
    return -1;
  for (size_t i = 0; ids[i]; i++)
    if (strcmp (ids[i], cl->id) != 0 && check_one (rootfd, cl, ids[i], err) < 0)
      return -1;
  if (cl->cg && cgroup_check_parents (cl->cg, err) < 0)
    return -1;
  return steal_fd (&lock);
}
