/* inotify_init, inotify_init1 and fanotify_init: a cap on the instances one container holds
   (POLICY_FSNOTIFY_MAX).  The kernel counts them per user, and a container without a user
   namespace of its own runs as host users: one that held all 128 inotify instances of host
   root left host root, and agentrt's own canary set-up for the next container (fanotify), with
   EMFILE.  A container whose user namespace has an unprivileged owner is charged to that owner
   and capped by its namespace's own limit (namespaces.c): the kernel counts there, and the call
   goes on.

   Otherwise the supervisor counts the live instances of the container before the call goes
   on: every fd table of every process in the container's cgroups (threads that unshared theirs
   included), each inotify (fanotify) file counted once however many fds or processes share it
   (kcmp KCMP_FILE).  A call past the cap gets EMFILE, as the kernel's own limit answers, and an
   audit record.  The call itself is continued (its arguments are scalars, decided on nothing
   read from memory), so the instance is the caller's, charged as the kernel charges it.

   What the count cannot see: an instance whose only reference is in flight in a unix socket
   (sent with SCM_RIGHTS and closed).  Those are bounded by the kernel's own limit on fds in
   flight (RLIMIT_NOFILE of the sender), not by this cap; and concurrent calls of several
   threads may each pass before the others' instances exist (at most one per thread in the
   call at once).  This is a cap for honest and careless programs, and makes the flooding of
   the report harder, not impossible: the sound answer is a user namespace (the agent
   profile's).

   Nor does it cap watches and fanotify marks (inotify_add_watch, fanotify_mark are allowed):
   counting them means reading every instance's fdinfo on each call, work that grows with the
   watches already held.  Only the host's per-user limit bounds them here (README); in a user
   namespace, its own limit does (POLICY_FSNOTIFY_WATCHES_MAX).

   The count reads one /proc entry per fd of the container (a readlink, about 5 us here): a
   container holding a million fds made each call take 5.5 s of the supervisor's time (9.4 s at
   worst), during which the caller waited.  The work per call is capped at FSNOTIFY_SCAN_MAX
   entries (about 0.2 s); a container with more fds than that cannot be counted, and the call
   gets EMFILE with an audit record that says so (`"scan":"over"`), fail-closed as the cap
   itself is.  */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "supervisor/sv.h"
#include "utils.h"

/* /proc entries (fds, threads) one call may read.  */
#define FSNOTIFY_SCAN_MAX 32768

/* The instances found so far: one (task, fd) holding each; the entries still to be read.  */
struct found
{
  pid_t tid[POLICY_FSNOTIFY_MAX];
  int fd[POLICY_FSNOTIFY_MAX];
  size_t n;
  size_t budget;
};

/* One more /proc entry read; false once the budget is spent.  */
static bool
spend (struct found *f)
{
  if (f->budget == 0)
    return false;
  f->budget--;
  return true;
}

static bool
same_file (pid_t t1, int fd1, pid_t t2, int fd2)
{
  return syscall (SYS_kcmp, t1, t2, KCMP_FILE, fd1, fd2) == 0;
}

/* Count the instances of kind `link` ("anon_inode:inotify") in task tid's fd table; false once
   the cap is reached or the budget spent.  */
static bool
scan_table (pid_t tid, const char *link, struct found *f)
{
  char path[64], target[64];
  DIR *d;
  struct dirent *de;
  bool more = true;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) tid);
  d = opendir (path);
  if (d == NULL)
    return true; /* gone meanwhile */
  while (more && (de = readdir (d)) != NULL)
    {
      ssize_t len;
      long long fd;
      bool seen = false;
      if (!ar_parse_int64 (de->d_name, 0, INT32_MAX, &fd))
        continue;
      if (!spend (f))
        {
          more = false;
          break;
        }
      len = readlinkat (dirfd (d), de->d_name, target, sizeof target - 1);
      if (len <= 0)
        continue;
      target[len] = '\0';
      if (strcmp (target, link) != 0)
        continue;
      for (size_t i = 0; !seen && i < f->n; i++)
        seen = same_file (tid, (int) fd, f->tid[i], f->fd[i]);
      if (seen)
        continue;
      f->tid[f->n] = tid;
      f->fd[f->n++] = (int) fd;
      more = f->n < POLICY_FSNOTIFY_MAX;
    }
  closedir (d);
  return more;
}

/* The process's fd table, and those of its threads that do not share it.  */
static bool
scan_process (pid_t pid, const char *link, struct found *f)
{
  char path[64];
  DIR *d;
  struct dirent *de;
  bool more = scan_table (pid, link, f);

  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  d = more ? opendir (path) : NULL;
  while (d && more && (de = readdir (d)) != NULL)
    {
      long long tid;
      if (!ar_parse_int64 (de->d_name, 1, INT32_MAX, &tid) || tid == pid)
        continue;
      if (!spend (f))
        more = false;
      else if (syscall (SYS_kcmp, pid, (pid_t) tid, KCMP_FILES, 0, 0) != 0)
        more = scan_table ((pid_t) tid, link, f);
    }
  if (d)
    closedir (d);
  return more;
}

enum count
{
  COUNT_UNDER,
  COUNT_AT_CAP,
  COUNT_OVER_BUDGET, /* too many fds to count within FSNOTIFY_SCAN_MAX */
};

/* Does the container hold POLICY_FSNOTIFY_MAX instances of that kind already?  */
static enum count
count (const struct sv *sv, const char *link)
{
  struct cgroup cg;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  struct found f = { .n = 0, .budget = FSNOTIFY_SCAN_MAX };
  bool more = true;

  if (sv->cgroup_dirs == NULL || cgroup_from_dirs (sv->cgroup_dirs, NULL, &cg, NULL) < 0)
    return COUNT_UNDER;
  if (cgroup_pids_all (&cg, &pids, &n, NULL) < 0)
    n = 0;
  cgroup_release (&cg);
  for (size_t i = 0; more && i < n; i++)
    more = spend (&f) && scan_process (pids[i], link, &f);
  if (more)
    return COUNT_UNDER;
  return f.n >= POLICY_FSNOTIFY_MAX ? COUNT_AT_CAP : COUNT_OVER_BUDGET;
}

void
sv_handle_fsnotify (struct sv_call *c)
{
  bool fan = strcmp (c->name, "fanotify_init") == 0;
  enum count r = COUNT_UNDER;
  char args[128];

  if (!c->sv->fsnotify_by_kernel)
    r = count (c->sv, fan ? "anon_inode:[fanotify]" : "anon_inode:inotify");
  if (r == COUNT_UNDER)
    {
      sv_reply_continue (c);
      return;
    }
  if (r == COUNT_OVER_BUDGET)
    snprintf (args, sizeof args,
              "{\"flags\":\"0x%llx\",\"limit\":%d,\"scan\":\"over\",\"scanMax\":%d}",
              (unsigned long long) c->req->data.args[0], POLICY_FSNOTIFY_MAX, FSNOTIFY_SCAN_MAX);
  else
    snprintf (args, sizeof args, "{\"flags\":\"0x%llx\",\"limit\":%d}",
              (unsigned long long) c->req->data.args[0], POLICY_FSNOTIFY_MAX);
  sv_reply_error (c, EMFILE);
  sv_audit (c, "deny", EMFILE, args);
}
