/* The container's terminal, made in the container: a pty from its own devpts, its controlling
   terminal and stdio, and /dev/console.  What the runtime does with the master is console.c's.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "init/terminal.h"
#include "utils.h"

static int
bind_console (const char *slave, ar_error_t *err)
{
  cleanup_close int fd = open ("/dev/console", O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

  if (fd < 0)
    return ar_make_error (err, errno, "create /dev/console");
  if (mount (slave, "/dev/console", NULL, MS_BIND, NULL) < 0)
    return ar_make_error (err, errno, "bind `%s` on /dev/console", slave);
  return 0;
}

static int
make_controlling (int slave, ar_error_t *err)
{
  if (setsid () < 0 && errno != EPERM) /* EPERM: already a session leader */
    return ar_make_error (err, errno, "setsid");
  if (ioctl (slave, TIOCSCTTY, 0) < 0)
    return ar_make_error (err, errno, "make the pty the controlling terminal");
  for (int i = 0; i < 3; i++)
    if (dup2 (slave, i) < 0)
      return ar_make_error (err, errno, "dup the pty to fd %d", i);
  return 0;
}

int
terminal_setup_in_container (const struct spec_process *p, bool console, ar_error_t *err)
{
  cleanup_close int master = open ("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  cleanup_close int slave = -1;
  char name[64];

  if (master < 0)
    return ar_make_error (err, errno, "open /dev/ptmx in the container");
  if (unlockpt (master) < 0 || ptsname_r (master, name, sizeof name) != 0)
    return ar_make_error (err, errno, "unlock the pty");
  slave = open (name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0)
    return ar_make_error (err, errno, "open the pty `%s`", name);
  if (p->has_console_size)
    {
      struct winsize ws = { .ws_row = p->console_height, .ws_col = p->console_width };
      (void) ioctl (slave, TIOCSWINSZ, &ws); /* a size is advice, not a requirement */
    }
  if ((console && bind_console (name, err) < 0) || make_controlling (slave, err) < 0)
    return -1;
  return steal_fd (&master);
}
