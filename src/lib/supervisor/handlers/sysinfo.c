/* sysinfo: memory as the container's limit and usage show it (its cgroup's now, vfiles_live:
   free is what the usage leaves of the limit), uptime from where its CLOCK_BOOTTIME reads 0
   (its time namespace's), its own tasks (its pids cgroup's) and its own loads (from its CPU
   time) as /proc/loadavg shows them: consistent with the virtual /proc/meminfo, /proc/uptime
   and /proc/loadavg (vfiles.c) and with the clock.  */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>

#include "supervisor/sv.h"

static unsigned long
clip (unsigned long v, unsigned long max)
{
  return v < max ? v : max;
}

/* Whole seconds of the container's CLOCK_BOOTTIME, as the kernel's sysinfo rounds its own
   (up, when there is a fraction), so that it never says less than /proc/uptime.  */
static long
uptime_since (const struct timespec *boot)
{
  struct timespec now;
  long long ns;

  clock_gettime (CLOCK_BOOTTIME, &now);
  ns = (long long) (now.tv_sec - boot->tv_sec) * 1000000000LL + (now.tv_nsec - boot->tv_nsec);
  return ns <= 0 ? 0 : (long) ((ns + 999999999LL) / 1000000000LL);
}

static void
apply_limits (struct sysinfo *si, const struct vfiles_limits *l, long tasks)
{
  unsigned long unit = si->mem_unit ? si->mem_unit : 1;
  unsigned long limit;

  si->uptime = uptime_since (&l->boot);
  if (tasks >= 0)
    si->procs = tasks < USHRT_MAX ? (unsigned short) tasks : USHRT_MAX;
  vfiles_cap_loads (l, si->loads);
  if (l->mem_limit == 0)
    return;
  limit = (unsigned long) (l->mem_limit / unit);
  si->totalram = clip (si->totalram, limit);
  si->freeram = clip (si->freeram, limit);
  si->sharedram = clip (si->sharedram, limit);
  si->bufferram = clip (si->bufferram, limit);
  /* What the cgroup's usage leaves, as /proc/meminfo's MemFree (vfiles.c).  */
  if (l->mem_usage != 0)
    {
      unsigned long used = clip ((unsigned long) (l->mem_usage / unit), si->totalram);
      si->freeram = si->totalram - used;
      si->bufferram = clip (si->bufferram, used);
    }
  si->totalswap = 0;
  si->freeswap = 0;
  si->totalhigh = 0;
  si->freehigh = 0;
}

void
sv_handle_sysinfo (struct sv_call *c)
{
  struct vfiles_limits l;
  struct sysinfo si;
  int r;

  if (sysinfo (&si) < 0)
    {
      sv_reply_error (c, errno);
      return;
    }
  vfiles_live_get (&c->sv->limits, &l);
  apply_limits (&si, &l, vfiles_live_tasks (&c->sv->limits));
  r = sv_mem_write (c, c->req->data.args[0], &si, sizeof si);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, 0);
}
