#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

int
ar_send_fd (int sock, int fd, const void *data, size_t len, const char *what, ar_error_t *err)
{
  char cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
  struct iovec iov = { (void *) data, len };
  struct msghdr mh
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *c = CMSG_FIRSTHDR (&mh);

  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  if (sendmsg (sock, &mh, MSG_NOSIGNAL) < 0)
    return ar_make_error (err, errno, "send %s", what);
  return 0;
}

/* Every fd that came is taken; all but the last are closed, so a peer cannot leak fds into us
   by sending several.  */
static int
fd_from_cmsg (struct msghdr *mh)
{
  int fd = -1;

  for (struct cmsghdr *c = CMSG_FIRSTHDR (mh); c; c = CMSG_NXTHDR (mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        size_t n = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        for (size_t i = 0; i < n; i++)
          {
            if (fd >= 0)
              close (fd);
            memcpy (&fd, CMSG_DATA (c) + i * sizeof (int), sizeof fd);
          }
      }
  return fd;
}

ssize_t
ar_recv_fd (int sock, void *buf, size_t len, int *fd)
{
  char cbuf[CMSG_SPACE (4 * sizeof (int))];
  struct iovec iov = { buf, len };
  struct msghdr mh
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  ssize_t r;

  *fd = -1;
  do
    r = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r > 0)
    *fd = fd_from_cmsg (&mh);
  return r;
}
