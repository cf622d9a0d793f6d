/* The egress broker's AF_UNIX test.  A brokered TCP socket (of the host's namespace) is held
   at fd T; one thread keeps swapping fd N between a fresh unix socket and T, another flips the
   address's family between AF_UNIX and AF_UNSPEC, while the main thread connects N to it.  A
   connect that acted on T with AF_UNSPEC would disconnect it: T must stay connected to the
   allowlisted port throughout.  First, relative and `..` paths must connect as in the kernel.
   Usage: unix_race ALLOWED_PORT SECONDS, in a directory the caller may write.  Prints
   "relative=R brokered=B unix_ok=N lost=L".  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define FD_N 100 /* raced between the unix socket and T */
#define FD_U 101 /* the current unix socket */

static struct sockaddr_un sa;
static atomic_bool stop;
static int tcp;

static void *
swap_fd (void *arg)
{
  (void) arg;
  while (!atomic_load_explicit (&stop, memory_order_relaxed))
    {
      dup2 (FD_U, FD_N);
      dup2 (tcp, FD_N);
    }
  return NULL;
}

static void *
flip_family (void *arg)
{
  volatile sa_family_t *f = &sa.sun_family;
  (void) arg;
  while (!atomic_load_explicit (&stop, memory_order_relaxed))
    {
      *f = AF_UNIX;
      *f = AF_UNSPEC;
    }
  return NULL;
}

static void *
accept_all (void *arg)
{
  int l = *(int *) arg;
  for (;;)
    {
      int c = accept (l, NULL, NULL);
      if (c >= 0)
        close (c);
    }
  return NULL;
}

static uint64_t
cookie (int s)
{
  uint64_t v = 0;
  socklen_t len = sizeof v;
  getsockopt (s, SOL_SOCKET, SO_NETNS_COOKIE, &v, &len);
  return v;
}

/* Is T still connected to the allowlisted port?  */
static bool
tcp_intact (unsigned short port)
{
  struct sockaddr_in peer;
  socklen_t len = sizeof peer;
  return getpeername (tcp, (struct sockaddr *) &peer, &len) == 0 && peer.sin_family == AF_INET
         && ntohs (peer.sin_port) == port;
}

static bool
connect_path (const char *path)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  int s = socket (AF_UNIX, SOCK_STREAM, 0);
  bool ok;

  strncpy (a.sun_path, path, sizeof a.sun_path - 1);
  ok = s >= 0 && connect (s, (struct sockaddr *) &a, sizeof a) == 0;
  close (s);
  return ok;
}

int
main (int argc, char **argv)
{
  struct sockaddr_in in = { .sin_family = AF_INET };
  struct sockaddr_un la = { .sun_family = AF_UNIX };
  pthread_t t[3];
  unsigned long unix_ok = 0, lost = 0;
  unsigned short port;
  int l, relative, probe;
  time_t end;

  if (argc != 3)
    return 2;
  port = (unsigned short) atoi (argv[1]);
  end = time (NULL) + atoi (argv[2]);
  if (mkdir ("d", 0700) < 0 || chdir ("d") < 0)
    return perror ("d"), 1;
  strcpy (la.sun_path, "s");
  l = socket (AF_UNIX, SOCK_STREAM, 0);
  if (l < 0 || bind (l, (struct sockaddr *) &la, sizeof la) < 0 || listen (l, 128) < 0)
    return perror ("listen"), 1;
  pthread_create (&t[2], NULL, accept_all, &l);
  relative = connect_path ("s") && connect_path ("../d/s") && !connect_path ("nope");

  in.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  in.sin_port = htons (port);
  tcp = socket (AF_INET, SOCK_STREAM, 0);
  if (tcp < 0 || connect (tcp, (struct sockaddr *) &in, sizeof in) < 0)
    return perror ("connect tcp"), 1;
  probe = socket (AF_INET, SOCK_STREAM, 0);
  printf ("relative=%d brokered=%d ", relative, cookie (tcp) != cookie (probe));
  close (probe);

  sa = la;
  if (dup2 (l, FD_U) < 0 || dup2 (l, FD_N) < 0)
    return perror ("dup2"), 1;
  pthread_create (&t[0], NULL, swap_fd, NULL);
  pthread_create (&t[1], NULL, flip_family, NULL);
  while (time (NULL) < end && lost == 0)
    {
      int u = socket (AF_UNIX, SOCK_STREAM, 0);
      dup2 (u, FD_U);
      close (u);
      if (connect (FD_N, (struct sockaddr *) &sa, sizeof sa) == 0)
        unix_ok++;
      if (!tcp_intact (port))
        lost++;
    }
  atomic_store (&stop, true);
  pthread_join (t[0], NULL);
  pthread_join (t[1], NULL);
  printf ("unix_ok=%lu lost=%lu\n", unix_ok, lost);
  fflush (stdout);
  _exit (0);
}
