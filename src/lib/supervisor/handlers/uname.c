/* uname: the container's own host and domain name (the worker lives in the container's UTS
   namespace, and the policy refuses a workload a second one), with a stable release and
   version instead of the host kernel's, which would tell an exploit what it runs on; the same
   as /proc/version and /proc/sys/kernel/osrelease and version say (vfiles.c).  */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>

#include "supervisor/sv.h"
#include "supervisor/vfiles.h"

void
sv_handle_uname (struct sv_call *c)
{
  struct utsname u;
  int r;

  if (uname (&u) < 0)
    {
      sv_reply_error (c, errno);
      return;
    }
  memset (u.release, 0, sizeof u.release);
  memset (u.version, 0, sizeof u.version);
  strncpy (u.release, c->sv->release, sizeof u.release - 1);
  strncpy (u.version, VFILES_KERNEL_VERSION, sizeof u.version - 1);
  r = sv_mem_write (c, c->req->data.args[0], &u, sizeof u);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, 0);
}
