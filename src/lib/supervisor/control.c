#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
#include "state/state.h"
#include "supervisor/control.h"
#include "supervisor/supervisor.h"
#include "utils.h"

/* Through /proc/self/fd the address stays short whatever the length of --root.  */
static socklen_t
control_addr (int dirfd, struct sockaddr_un *a)
{
  memset (a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  snprintf (a->sun_path, sizeof a->sun_path, "/proc/self/fd/%d/%s", dirfd, SUPERVISOR_SOCKET);
  return (socklen_t) sizeof *a;
}

int
control_listen (int dirfd, ar_error_t *err)
{
  struct sockaddr_un a;
  socklen_t len = control_addr (dirfd, &a);
  cleanup_close int s = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

  if (s < 0)
    return ar_make_error (err, errno, "supervisor: control socket");
  (void) unlinkat (dirfd, SUPERVISOR_SOCKET, 0);
  if (bind (s, (struct sockaddr *) &a, len) < 0 || fchmodat (dirfd, SUPERVISOR_SOCKET, 0600, 0) < 0
      || listen (s, 16) < 0)
    return ar_make_error (err, errno, "supervisor: control socket `%s`", SUPERVISOR_SOCKET);
  return steal_fd (&s);
}

void
control_answer (int conn, int e)
{
  unsigned char b = (unsigned char) e;
  (void) send (conn, &b, 1, MSG_NOSIGNAL);
  close (conn);
}

void
control_answer_text (int conn, int e, const char *text)
{
  size_t len = text && e ? strlen (text) : 0;
  cleanup_free char *buf = xmalloc (len + 1);

  buf[0] = (char) (unsigned char) e;
  if (len)
    memcpy (buf + 1, text, len);
  (void) send (conn, buf, len + 1, MSG_NOSIGNAL);
  close (conn);
}

/* An update: its header and text.  */
static int
take_update (const char *buf, size_t n, struct control_request *r)
{
  struct control_update u;

  if (n < sizeof u || n > sizeof u + CONTROL_TEXT_MAX)
    return -1;
  memcpy (&u, buf, sizeof u);
  if (u.op < CONTROL_NET_SET || u.op > CONTROL_TIMEOUT_FROM_NOW)
    return -1;
  r->update = true;
  r->op = u.op;
  r->value = u.value;
  r->text = xstrndup (buf + sizeof u, n - sizeof u);
  /* The text is an allowlist, with no NUL in it: a NUL would cut it short unseen.  */
  return strlen (r->text) == n - sizeof u ? 0 : -1;
}

int
control_accept (int ctl, struct control_request *r, ar_error_t *err)
{
  cleanup_close int conn = accept4 (ctl, NULL, NULL, SOCK_CLOEXEC);
  struct timeval tv = { 1, 0 };
  struct control_attach m = { 0 };
  cleanup_free char *buf = xmalloc (sizeof (struct control_update) + CONTROL_TEXT_MAX + 1);
  uint32_t magic = 0;
  ssize_t n;

  memset (r, 0, sizeof *r);
  r->fd = r->pidfd = r->conn = -1;
  if (conn < 0)
    return ar_make_error (err, errno, "supervisor: accept");
  /* A client that connects and says nothing must not hold up the supervisor.  */
  (void) setsockopt (conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  n = ar_recv_fd (conn, buf, sizeof (struct control_update) + CONTROL_TEXT_MAX + 1, &r->fd);
  if (n >= (ssize_t) sizeof magic)
    memcpy (&magic, buf, sizeof magic);
  if (magic == CONTROL_UPDATE_MAGIC && r->fd < 0)
    {
      if (take_update (buf, (size_t) n, r) < 0)
        {
          free (r->text);
          r->text = NULL;
          control_answer (steal_fd (&conn), EPROTO);
          return ar_make_error (err, EPROTO, "supervisor: bad update request");
        }
      r->conn = steal_fd (&conn);
      return 0;
    }
  if (n > 0)
    memcpy (&m, buf, (size_t) n < sizeof m ? (size_t) n : sizeof m);
  if ((n != (ssize_t) sizeof m && n != CONTROL_ATTACH_V1_SIZE) || m.magic != CONTROL_MAGIC
      || m.pid <= 0)
    {
      ar_closep (&r->fd);
      control_answer (steal_fd (&conn), EPROTO);
      return ar_make_error (err, EPROTO, "supervisor: bad attach request");
    }
  r->pid = (pid_t) m.pid;
  r->start = m.start;
  /* A notify fd's process, to kill when failing closed; a traced one is killed by the tracer's
     end (PTRACE_O_EXITKILL).  */
  r->pidfd = r->fd >= 0 ? (int) syscall (SYS_pidfd_open, (pid_t) m.pid, 0) : -1;
  r->conn = steal_fd (&conn);
  return 0;
}

int
control_send_update (int dirfd, const char *id, enum control_op op, int64_t value, const char *text,
                     ar_error_t *err)
{
  struct sockaddr_un a;
  socklen_t len = control_addr (dirfd, &a);
  cleanup_close int s = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct control_update u = { CONTROL_UPDATE_MAGIC, (uint32_t) op, value };
  size_t tlen = text ? strlen (text) : 0;
  cleanup_free char *msg = NULL;
  char answer[1024];
  int sndbuf = (int) (sizeof u + CONTROL_TEXT_MAX) * 2;
  ssize_t n;

  if (tlen > CONTROL_TEXT_MAX)
    return ar_make_error (err, E2BIG, "container `%s`: the list is over %d bytes", id,
                          CONTROL_TEXT_MAX);
  if (s < 0)
    return ar_make_error (err, errno, "container `%s`: socket", id);
  (void) setsockopt (s, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  if (connect (s, (struct sockaddr *) &a, len) < 0)
    return ar_make_error (err, errno, "container `%s`: its supervisor is not running", id);
  msg = xmalloc (sizeof u + tlen);
  memcpy (msg, &u, sizeof u);
  if (tlen)
    memcpy (msg + sizeof u, text, tlen);
  if (send (s, msg, sizeof u + tlen, MSG_NOSIGNAL) != (ssize_t) (sizeof u + tlen))
    return ar_make_error (err, errno, "container `%s`: send the update to its supervisor", id);
  n = recv (s, answer, sizeof answer - 1, 0);
  if (n < 1)
    return ar_make_error (err, errno ? errno : EPIPE,
                          "container `%s`: the supervisor did not answer the update", id);
  answer[n] = '\0';
  if (answer[0] != 0 && n > 1)
    return ar_make_error (err, 0, "container `%s`: %s", id, answer + 1);
  if (answer[0] != 0)
    return ar_make_error (err, (unsigned char) answer[0],
                          "container `%s`: the supervisor refused the update", id);
  return 0;
}

int
control_send_attach (int dirfd, const char *id, int notify_fd, pid_t pid, ar_error_t *err)
{
  struct sockaddr_un a;
  socklen_t len = control_addr (dirfd, &a);
  cleanup_close int s = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  /* The start time tells the tracer the pid is still this process; a notify fd needs none.  */
  struct control_attach m
      = { CONTROL_MAGIC, (int32_t) pid, notify_fd < 0 ? state_proc_start_time (pid) : 0 };
  unsigned char b;

  if (s < 0)
    return ar_make_error (err, errno, "container `%s`: socket", id);
  if (connect (s, (struct sockaddr *) &a, len) < 0)
    return ar_make_error (err, errno, "container `%s`: its supervisor is not running", id);
  if (notify_fd < 0)
    {
      if (send (s, &m, sizeof m, MSG_NOSIGNAL) != (ssize_t) sizeof m)
        return ar_make_error (err, errno, "container `%s`: ask its supervisor to trace pid %d", id,
                              (int) pid);
    }
  else if (ar_send_fd (s, notify_fd, &m, sizeof m, "the notify fd to the supervisor", err) < 0)
    return ar_error_wrap (err, "container `%s`", id);
  if (recv (s, &b, 1, 0) != 1)
    return ar_make_error (err, errno ? errno : EPIPE,
                          "container `%s`: the supervisor did not take the process", id);
  if (b != 0)
    return ar_make_error (err, b, "container `%s`: the supervisor refused the process", id);
  return 0;
}
