/* sched_getaffinity: the kernel's answer, cut to the CPUs the container is shown (its quota as
   its cgroup has it now, vfiles_live in vfiles.c), so that nproc and every thread pool agree
   with /sys/devices/system/cpu/online.

   The kernel's answer already agrees with the cpuset (the cgroup bounds every mask), so while
   the quota cuts nothing the call is the kernel's (SECCOMP_USER_NOTIF_FLAG_CONTINUE): its pid
   look-up in the caller's namespace, its ESRCH, EINVAL and EFAULT, exactly.  Only when a CFS
   quota is below the CPUs the cpuset gives, which the kernel's mask cannot know, is it answered
   here: the target's real mask (read from the kernel by its pid as the supervisor sees it)
   within the cpuset, cut to the lowest ceil(quota/period) of those CPUs (vfiles_affinity).  The
   kernel's rules are kept: a buffer with fewer bits than the kernel has CPU ids is EINVAL, one
   not a multiple of a long too, a pid the caller cannot see (none, or outside its pid
   namespace) is ESRCH, and the return value is the number of bytes written, at most the size
   of the kernel's cpumask (measured once at start).  */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "supervisor/sv.h"
#include "utils.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The most pid namespace levels a status line is read for (the kernel's MAX_PID_NS_LEVEL).  */
#define NS_LEVELS 32

/* A task's ids in each pid namespace it is in, as its status file gives them (`key` is
   "\nNSpid:" or "\nNStgid:"): ids[0] in the supervisor's, the last in its own.  The number
   of levels, 0 when the file cannot be read.  */
static int
status_ids (const char *path, const char *key, pid_t ids[NS_LEVELS])
{
  char text[4096];
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t len = fd >= 0 ? read (fd, text, sizeof text - 1) : -1;
  const char *p;
  int n = 0;

  if (len <= 0)
    return 0;
  text[len] = '\0';
  p = strstr (text, key);
  if (p == NULL)
    return 0;
  p += strlen (key);
  while (n < NS_LEVELS)
    {
      char *end;
      long v;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p < '0' || *p > '9')
        break;
      v = strtol (p, &end, 10);
      ids[n++] = (pid_t) v;
      p = end;
    }
  return n;
}

static bool
same_inode (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is the pid namespace of `path` (a /proc/…/ns/pid) `ns`, or `up` levels below it?  */
static bool
ns_within (const char *path, int up, const struct stat *ns)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  struct stat st;

  if (fd < 0)
    return false;
  while (up-- > 0)
    {
      int parent = ioctl (fd, NS_GET_PARENT);
      if (parent < 0)
        return false;
      close (fd);
      fd = parent;
    }
  return fstat (fd, &st) == 0 && same_inode (&st, ns);
}

/* The caller: its pid namespace, and the depth of it as the supervisor sees it.  */
struct caller
{
  struct stat ns;
  int depth;
};

/* Does task `tid` of process `pid` have id `vpid` in the caller's namespace?  */
static bool
task_is (pid_t pid, pid_t tid, pid_t vpid, const struct caller *who)
{
  char path[96];
  pid_t ids[NS_LEVELS];
  int n;

  snprintf (path, sizeof path, "/proc/%d/task/%d/status", (int) pid, (int) tid);
  n = status_ids (path, "\nNSpid:", ids);
  if (n < who->depth || ids[who->depth - 1] != vpid)
    return false;
  snprintf (path, sizeof path, "/proc/%d/task/%d/ns/pid", (int) pid, (int) tid);
  return ns_within (path, n - who->depth, &who->ns);
}

/* The task of process `pid` whose id is `vpid` in the caller's namespace: its tid, or 0.  */
static pid_t
find_in_process (pid_t pid, pid_t vpid, const struct caller *who)
{
  char path[64];
  DIR *d;
  struct dirent *de;
  pid_t found = 0;

  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  d = opendir (path);
  while (d && found == 0 && (de = readdir (d)) != NULL)
    {
      long long tid;
      if (ar_parse_int64 (de->d_name, 1, INT32_MAX, &tid) && task_is (pid, (pid_t) tid, vpid, who))
        found = (pid_t) tid;
    }
  if (d)
    closedir (d);
  return found;
}

/* Every process that could be the target: the container's cgroups' (every process of the
   container is there), or, without cgroups, every process in /proc.  */
static size_t
candidates (const struct sv *sv, pid_t **pids)
{
  struct cgroup cg;
  size_t n = 0, cap = 0;
  DIR *d;
  struct dirent *de;

  *pids = NULL;
  if (sv->cgroup_dirs != NULL && cgroup_from_dirs (sv->cgroup_dirs, NULL, &cg, NULL) == 0)
    {
      if (cgroup_pids_all (&cg, pids, &n, NULL) < 0)
        n = 0;
      cgroup_release (&cg);
      return n;
    }
  d = opendir ("/proc");
  while (d && (de = readdir (d)) != NULL)
    {
      long long pid;
      if (!ar_parse_int64 (de->d_name, 1, INT32_MAX, &pid))
        continue;
      if (n == cap)
        {
          cap = cap ? 2 * cap : 256;
          *pids = xrealloc (*pids, cap * sizeof **pids);
        }
      (*pids)[n++] = (pid_t) pid;
    }
  if (d)
    closedir (d);
  return n;
}

/* The tid, as the supervisor sees it, of the task the caller calls `vpid`; 0 when the caller
   cannot see one (ESRCH).  -1 when the caller has gone.  */
static pid_t
translate (struct sv_call *c, pid_t vpid)
{
  pid_t tid = (pid_t) c->req->pid, ids[NS_LEVELS];
  char path[64];
  struct caller who;
  struct stat self;
  cleanup_free pid_t *pids = NULL;
  size_t n;

  if (vpid == 0)
    return tid;
  if (vpid < 0)
    return 0;
  snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) tid);
  if (stat (path, &who.ns) < 0 || stat ("/proc/self/ns/pid", &self) < 0)
    return sv_id_valid (c) ? 0 : -1;
  /* The container shares the supervisor's namespace: the ids are the same.  */
  if (same_inode (&who.ns, &self))
    return vpid;
  snprintf (path, sizeof path, "/proc/%d/status", (int) tid);
  who.depth = status_ids (path, "\nNSpid:", ids);
  if (who.depth < 2 || !sv_id_valid (c))
    return -1;
  /* The caller itself, the commonest target after 0.  */
  if (ids[who.depth - 1] == vpid)
    return tid;
  n = candidates (c->sv, &pids);
  for (size_t i = 0; i < n; i++)
    {
      pid_t found = find_in_process (pids[i], vpid, &who);
      if (found > 0)
        return found;
    }
  return 0;
}

/* The real mask of the task the caller calls `vpid`, read from the kernel: 0, or an errno
   (ESRCH: none the caller can see; EINTR: the caller has gone).  A pid found by its status
   could be freed and reused before its mask is read: a pidfd taken first and still alive
   after says it was the same task throughout.  */
static int
target_mask (struct sv_call *c, pid_t vpid, cpu_set_t *real)
{
  pid_t tid = translate (c, vpid);
  cleanup_close int pidfd = -1;
  struct pollfd pfd;

  if (tid < 0)
    return EINTR;
  if (tid == 0)
    return ESRCH;
  if (tid != (pid_t) c->req->pid && vpid != 0)
    {
      pidfd = (int) syscall (SYS_pidfd_open, tid, PIDFD_THREAD);
      if (pidfd < 0 && errno == EINVAL)
        pidfd = (int) syscall (SYS_pidfd_open, tid, 0);
      if (pidfd < 0)
        return ESRCH;
      /* Still the task found, now that the pidfd holds it?  */
      if (translate (c, vpid) != tid)
        return ESRCH;
    }
  if (sched_getaffinity (tid, sizeof *real, real) < 0)
    return errno == ESRCH ? ESRCH : EINVAL;
  if (pidfd >= 0)
    {
      pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
      if (poll (&pfd, 1, 0) != 0)
        return ESRCH; /* it exited: its pid may have been someone else's meanwhile */
    }
  return sv_id_valid (c) ? 0 : EINTR;
}

void
sv_handle_affinity (struct sv_call *c)
{
  /* The kernel's arguments: a pid_t and an unsigned int, the low 32 bits of each.  */
  pid_t vpid = (pid_t) (int32_t) c->req->data.args[0];
  size_t len = (uint32_t) c->req->data.args[1];
  size_t ret = len < c->sv->cpumask_bytes ? len : c->sv->cpumask_bytes;
  unsigned char mask[1024 / 8];
  struct vfiles_limits l;
  cpu_set_t real, shown;
  int r;

  vfiles_live_get (&c->sv->limits, &l);
  if (!vfiles_quota_cuts (&l))
    {
      sv_reply_continue (c);
      return;
    }
  if (len * 8 < (size_t) c->sv->nr_cpu_ids || (len & (sizeof (long) - 1)) != 0)
    {
      sv_reply_error (c, EINVAL);
      return;
    }
  r = target_mask (c, vpid, &real);
  if (r != 0)
    {
      sv_reply_error (c, r);
      return;
    }
  vfiles_affinity (&l, &real, &shown);
  if (ret > sizeof mask)
    ret = sizeof mask;
  memset (mask, 0, sizeof mask);
  for (size_t i = 0; i < ret * 8; i++)
    if (CPU_ISSET (i, &shown))
      mask[i / 8] |= (unsigned char) (1u << (i % 8));
  r = sv_mem_write (c, c->req->data.args[2], mask, ret);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, (long long) ret);
}
