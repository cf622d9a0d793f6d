/* uname: the container's own host and domain name (the worker lives in the container's UTS
   namespace, and the policy refuses a workload a second one), with a stable release and
   version instead of the host kernel's, which would tell an exploit what it runs on.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "supervisor/sv.h"

#define SV_UNAME_VERSION "#1 SMP PREEMPT_DYNAMIC agentrt"

/* The kernel's machine for a PER_LINUX32 task (override_architecture: COMPAT_UTS_MACHINE).  */
#if defined(__x86_64__)
#define SV_UNAME_MACHINE32 "i686"
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SV_UNAME_MACHINE32 "armv8b"
#elif defined(__aarch64__)
#define SV_UNAME_MACHINE32 "armv8l"
#endif

/* Is the caller in the PER_LINUX32 personality?  */
static bool
caller_linux32 (const struct sv_call *c)
{
  char path[64], text[32];
  int fd;
  ssize_t n;
  unsigned long p;

  snprintf (path, sizeof path, "/proc/%d/personality", (int) c->req->pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  n = read (fd, text, sizeof text - 1);
  close (fd);
  if (n <= 0)
    return false;
  text[n] = '\0';
  p = strtoul (text, NULL, 16);
  return (p & PER_MASK) == PER_LINUX32;
}

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
  strncpy (u.version, SV_UNAME_VERSION, sizeof u.version - 1);
#ifdef SV_UNAME_MACHINE32
  if (c->sv->uname_personality && caller_linux32 (c))
    {
      memset (u.machine, 0, sizeof u.machine);
      strncpy (u.machine, SV_UNAME_MACHINE32, sizeof u.machine - 1);
    }
#endif
  r = sv_mem_write (c, c->req->data.args[0], &u, sizeof u);
  if (r < 0)
    sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
  else
    sv_reply_value (c, 0);
}
