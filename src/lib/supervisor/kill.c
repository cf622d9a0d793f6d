/* Fail closed: killing the whole container, which every part of the supervisor does when it
   cannot go on (the watchdog when the worker dies, the worker when the watchdog does, either on
   an unexpected stop or when the deadline passes).  */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "supervisor/kill.h"

void
sv_kill_container (const struct supervisor_cfg *c, int init_pidfd)
{
  struct cgroup cg;

  (void) syscall (SYS_pidfd_send_signal, init_pidfd, SIGKILL, NULL, 0);
  if (c->cgroup_dirs && cgroup_from_dirs (c->cgroup_dirs, &cg, NULL) == 0)
    {
      (void) cgroup_signal_all (&cg, SIGKILL, NULL);
      cgroup_release (&cg);
    }
}
