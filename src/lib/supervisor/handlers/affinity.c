/* sched_getaffinity: the CPUs the container is shown (its quota and cpuset as its cgroup has
   them now, vfiles_live in vfiles.c), so that nproc and every thread pool agree with
   /sys/devices/system/cpu/online.  The kernel's rules are kept: a buffer with fewer bits than
   the kernel has CPU ids is EINVAL, one not a multiple of a long too, and the return value is
   the number of bytes written, at most the size of the kernel's cpumask (measured once at
   start).  */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "supervisor/sv.h"

void
sv_handle_affinity (struct sv_call *c)
{
  /* The kernel's argument is an unsigned int: the low 32 bits.  */
  size_t len = (uint32_t) c->req->data.args[1];
  size_t ret = len < c->sv->cpumask_bytes ? len : c->sv->cpumask_bytes;
  unsigned char mask[1024 / 8];
  struct vfiles_limits l;
  int r;

  if (len * 8 < (size_t) c->sv->nr_cpu_ids || (len & (sizeof (long) - 1)) != 0)
    {
      sv_reply_error (c, EINVAL);
      return;
    }
  if (ret > sizeof mask)
    ret = sizeof mask;
  vfiles_live_get (&c->sv->limits, &l);
  memset (mask, 0, sizeof mask);
  for (unsigned i = 0; i < l.ncpus; i++)
    if (l.cpu_ids[i] >= 0 && (size_t) l.cpu_ids[i] < ret * 8)
      mask[l.cpu_ids[i] / 8] |= (unsigned char) (1u << (l.cpu_ids[i] % 8));
  r = sv_mem_write (c, c->req->data.args[2], mask, ret);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, (long long) ret);
}
