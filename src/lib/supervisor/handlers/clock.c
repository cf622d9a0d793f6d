/* adjtimex and clock_adjtime: a read of the clock's state (modes 0, or ADJ_OFFSET_SS_READ) is
   what NTP status tools and runtimes do on start, and is run by the kernel; anything else
   would set the host's clock and is refused with an alert (deny-clock).

   BPF cannot decide this in the kernel: modes lives in the struct timex the argument points
   to.  The modes read here could be changed by another thread before the kernel reads them
   again, so continuing is safe only because the kernel itself refuses every change to a
   caller without CAP_SYS_TIME in the initial user namespace (timekeeping_validate_timex): a
   caller that might hold it (in the supervisor's user namespace with CAP_SYS_TIME effective)
   is refused even a read.  A thread's capabilities and user namespace are its own to change,
   and it is blocked in this call, so what its status file says holds until the answer.
   clock_adjtime is continued for CLOCK_REALTIME only: a dynamic clock (a PTP device's fd)
   takes a change on the rights of its fd, not on a capability.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <unistd.h>

#include "supervisor/sv.h"
#include "utils.h"

/* Might the caller set the clock if the kernel were asked?  True when it cannot be told.  */
static bool
may_set_time (struct sv_call *c)
{
  char path[64], text[4096];
  struct stat mine, theirs;
  const char *p;
  unsigned long long eff;
  ssize_t len;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/ns/user", (int) c->req->pid);
  if (stat (path, &theirs) < 0 || stat ("/proc/self/ns/user", &mine) < 0)
    return true;
  /* A user namespace of its own: no capability there is the initial namespace's.  */
  if (theirs.st_dev != mine.st_dev || theirs.st_ino != mine.st_ino)
    return false;
  snprintf (path, sizeof path, "/proc/%d/status", (int) c->req->pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  len = fd >= 0 ? read (fd, text, sizeof text - 1) : -1;
  if (fd >= 0)
    close (fd);
  if (len <= 0)
    return true;
  text[len] = '\0';
  p = strstr (text, "\nCapEff:");
  if (p == NULL || sscanf (p + 8, "%llx", &eff) != 1)
    return true;
  return (eff >> CAP_SYS_TIME) & 1;
}

void
sv_handle_clock (struct sv_call *c)
{
  bool at = strcmp (c->name, "clock_adjtime") == 0;
  const __u64 *a = c->req->data.args;
  unsigned int modes;
  char args[96];
  int r;

  r = sv_mem_read (c, at ? a[1] : a[0], &modes, sizeof modes);
  if (r < 0)
    {
      sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
      return;
    }
  if (at)
    snprintf (args, sizeof args, "{\"clockid\":%d,\"modes\":\"0x%x\"}", (int) a[0], modes);
  else
    snprintf (args, sizeof args, "{\"modes\":\"0x%x\"}", modes);
  if (modes == 0 || modes == ADJ_OFFSET_SS_READ)
    {
      if ((!at || (int) a[0] == CLOCK_REALTIME) && !may_set_time (c))
        {
          c->rule = "allow-clock-read";
          c->severity = SEV_INFO;
          sv_reply_continue (c);
          sv_audit (c, "allow", 0, args);
          return;
        }
      /* A read still, refused only for what the caller might do with the same call.  */
      c->rule = "probe-clock-read";
      c->severity = SEV_WARN;
    }
  sv_reply_error (c, EPERM);
  sv_audit (c, "deny", EPERM, args);
}
