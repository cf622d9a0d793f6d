/* A foreground `run` or `exec` waiting for its process: the signals it forwards, and reaping
   (the runtime is the process's parent or subreaper).  */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/wait.h"
#include "utils.h"

/* run and exec: the signals forwarded to the workload, and SIGCHLD, arrive on a signalfd.  */
int
wait_block_signals (sigset_t *set, ar_error_t *err)
{
  static const int forwarded[]
      = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGPIPE, SIGALRM };
  int fd;

  sigemptyset (set);
  sigaddset (set, SIGCHLD);
  for (size_t i = 0; i < ARRAY_SIZE (forwarded); i++)
    sigaddset (set, forwarded[i]);
  if (sigprocmask (SIG_BLOCK, set, NULL) < 0)
    return ar_make_error (err, errno, "block signals");
  fd = signalfd (-1, set, SFD_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "signalfd");
  return fd;
}

bool
wait_reap (pid_t init, int *status)
{
  int st;
  pid_t p;
  bool done = false;

  while ((p = waitpid (-1, &st, WNOHANG)) > 0)
    if (p == init)
      {
        *status = WIFSIGNALED (st) ? 128 + WTERMSIG (st) : WEXITSTATUS (st);
        done = true;
      }
  return done;
}

int
wait_forwarding (int sfd, pid_t init, ar_error_t *err)
{
  struct signalfd_siginfo si;
  int status = 0;

  for (;;)
    {
      ssize_t r = read (sfd, &si, sizeof si);
      if (r < 0 && errno == EINTR)
        continue;
      if (r != sizeof si)
        return ar_make_error (err, errno, "read signalfd");
      if (si.ssi_signo == SIGCHLD)
        {
          if (wait_reap (init, &status))
            return status;
        }
      else
        (void) kill (init, (int) si.ssi_signo);
    }
}
