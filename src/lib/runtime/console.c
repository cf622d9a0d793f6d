/* The runtime's side of a container's terminal: the pty master the init made (init/terminal.c)
   is sent to --console-socket as runc does, or proxied to the runtime's own stdio while a
   foreground `run` or `exec` waits.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "fdpass.h"
#include "runtime/console.h"
#include "runtime/wait.h"
#include "utils.h"

int
console_send_to_socket (const char *path, int master, ar_error_t *err)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  cleanup_close int sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (strlen (path) >= sizeof addr.sun_path)
    return ar_make_error (err, ENAMETOOLONG, "--console-socket `%s`", path);
  strcpy (addr.sun_path, path);
  if (sock < 0 || connect (sock, (struct sockaddr *) &addr, sizeof addr) < 0)
    return ar_make_error (err, errno, "connect to --console-socket `%s`", path);
  /* runc sends the master's name with it; receivers such as conmon and containerd's
     console.RecvFd read both.  */
  return ar_send_fd (sock, master, "/dev/ptmx", sizeof "/dev/ptmx", "the pty master", err);
}

static void
copy_winsize (int from, int to)
{
  struct winsize ws;
  if (ioctl (from, TIOCGWINSZ, &ws) == 0)
    (void) ioctl (to, TIOCSWINSZ, &ws);
}

/* Copy what is readable from `from` to `to`; false at EOF or error.  */
static bool
pump (int from, int to)
{
  char buf[16384];
  ssize_t r = read (from, buf, sizeof buf);

  if (r < 0 && (errno == EINTR || errno == EAGAIN))
    return true;
  if (r <= 0)
    return false;
  return ar_write_all (to, buf, (size_t) r, "terminal", NULL) == 0;
}

/* One signal from the signalfd: resize, reap, or forward.  1 once `pid` has exited.  */
static int
on_signal (int sfd, int master, pid_t pid, int *status)
{
  struct signalfd_siginfo si;

  if (read (sfd, &si, sizeof si) != sizeof si)
    return errno == EINTR || errno == EAGAIN ? 0 : -1;
  if (si.ssi_signo == SIGCHLD)
    return wait_reap (pid, status) ? 1 : 0;
  if (si.ssi_signo == SIGWINCH)
    copy_winsize (0, master); /* the kernel tells the container's foreground group */
  else
    (void) kill (pid, (int) si.ssi_signo);
  return 0;
}

static void
drain (int master)
{
  int fl = fcntl (master, F_GETFL);
  if (fl >= 0 && fcntl (master, F_SETFL, fl | O_NONBLOCK) == 0)
    while (pump (master, 1))
      ;
}

int
console_proxy_wait (int master, int sfd, pid_t pid, ar_error_t *err)
{
  struct termios saved, raw;
  bool is_tty = tcgetattr (0, &saved) == 0;
  struct pollfd p[3] = { { sfd, POLLIN, 0 }, { master, POLLIN, 0 }, { 0, POLLIN, 0 } };
  int status = -1, r = 0;

  if (is_tty)
    {
      raw = saved;
      cfmakeraw (&raw);
      (void) tcsetattr (0, TCSANOW, &raw);
      copy_winsize (0, master);
    }
  while (r == 0)
    {
      if (poll (p, 3, -1) < 0 && errno != EINTR)
        break;
      if (p[0].revents & POLLIN)
        r = on_signal (sfd, master, pid, &status);
      if ((p[1].revents & (POLLIN | POLLHUP)) && !pump (master, 1))
        p[1].fd = -1; /* the container closed its side */
      if ((p[2].revents & (POLLIN | POLLHUP)) && !pump (0, master))
        p[2].fd = -1; /* our stdin ended */
    }
  drain (master);
  if (is_tty)
    (void) tcsetattr (0, TCSANOW, &saved);
  if (status < 0)
    return ar_make_error (err, errno, "wait for the container process");
  return status;
}
