/* The egress broker's TOCTOU test: one thread flips the port of a sockaddr between an
   allowlisted endpoint and one that is not, while the main thread connects with it.  Each
   server answers with its own tag; any answer from the second one means a connect went where the
   check had not allowed.  Usage: egress_race ALLOWED_PORT OTHER_PORT SECONDS.  Prints
   "allowed=N other=M failed=K".  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in sa;
static atomic_bool stop;
static unsigned short ports[2];

static void *
flip (void *arg)
{
  volatile unsigned short *p = &sa.sin_port;
  (void) arg;
  while (!atomic_load_explicit (&stop, memory_order_relaxed))
    {
      *p = htons (ports[0]);
      *p = htons (ports[1]);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  pthread_t t;
  unsigned long allowed = 0, other = 0, failed = 0;
  time_t end;

  if (argc != 4)
    return 2;
  ports[0] = (unsigned short) atoi (argv[1]);
  ports[1] = (unsigned short) atoi (argv[2]);
  end = time (NULL) + atoi (argv[3]);
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  sa.sin_port = htons (ports[0]);
  if (pthread_create (&t, NULL, flip, NULL) != 0)
    return 2;
  while (time (NULL) < end)
    {
      char buf[16] = "";
      int s = socket (AF_INET, SOCK_STREAM, 0);
      if (s < 0)
        return 2;
      /* A byte first: the test's server answers as soon as it has read something, and waits a
         second otherwise, which left too few connects for the race to show both ways.  */
      if (connect (s, (struct sockaddr *) &sa, sizeof sa) == 0 && write (s, "x", 1) == 1
          && read (s, buf, sizeof buf - 1) > 0)
        {
          if (strncmp (buf, "other", 5) == 0)
            other++;
          else
            allowed++;
        }
      else
        failed++;
      close (s);
    }
  atomic_store (&stop, true);
  pthread_join (t, NULL);
  printf ("allowed=%lu other=%lu failed=%lu\n", allowed, other, failed);
  return 0;
}
