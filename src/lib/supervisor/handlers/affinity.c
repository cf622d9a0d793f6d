/* sched_getaffinity: the CPUs the container is shown (its quota and cpuset, vfiles.c), so that
   nproc and every thread pool agree with /sys/devices/system/cpu/online.  The kernel's rules
   are kept: a buffer shorter than the kernel's mask is EINVAL, one not a multiple of a long too,
   and the return value is the number of bytes written.  */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "supervisor/sv.h"

void
sv_handle_affinity (struct sv_call *c)
{
  size_t len = (size_t) c->req->data.args[1];
  size_t kernel_size = ((size_t) c->sv->nr_cpu_ids + 63) / 64 * 8;
  unsigned char mask[1024 / 8];
  const struct vfiles_limits *l = &c->sv->limits;
  int r;

  if (len < kernel_size || (len & (sizeof (long) - 1)) != 0)
    {
      sv_reply_error (c, EINVAL);
      return;
    }
  if (kernel_size > sizeof mask)
    kernel_size = sizeof mask;
  memset (mask, 0, sizeof mask);
  for (unsigned i = 0; i < l->ncpus; i++)
    if (l->cpu_ids[i] >= 0 && (size_t) l->cpu_ids[i] < kernel_size * 8)
      mask[l->cpu_ids[i] / 8] |= (unsigned char) (1u << (l->cpu_ids[i] % 8));
  r = sv_mem_write (c, c->req->data.args[2], mask, kernel_size);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, (long long) kernel_size);
}
