/* sysinfo: memory as the container's limit and usage show it (its cgroup's now, vfiles_live:
   free is what the usage leaves of the limit) and uptime
   since the container was created, consistent with the virtual /proc/meminfo and /proc/uptime
   (vfiles.c).  */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>

#include "supervisor/sv.h"

static unsigned long
clip (unsigned long v, unsigned long max)
{
  return v < max ? v : max;
}

static void
apply_limits (struct sysinfo *si, const struct vfiles_limits *l)
{
  struct timespec now;
  unsigned long unit = si->mem_unit ? si->mem_unit : 1;
  unsigned long limit;

  clock_gettime (CLOCK_BOOTTIME, &now);
  si->uptime = now.tv_sec - l->boot.tv_sec;
  if (si->uptime < 0)
    si->uptime = 0;
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
  apply_limits (&si, &l);
  r = sv_mem_write (c, c->req->data.args[0], &si, sizeof si);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, 0);
}
