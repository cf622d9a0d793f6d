/* The pod sandbox's init for tests/cri.bats: what a Kubernetes pause container does.  It holds
   the pod's namespaces open, reaps whatever is reparented to it (it is pid 1 of the pod's pid
   namespace when one is shared), and exits 0 on SIGINT or SIGTERM so that StopPodSandbox is
   quick.  Built with `gcc -static` so that the image needs nothing else.  */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void
on_stop (int sig)
{
  (void) sig;
  _exit (0);
}

static void
on_child (int sig)
{
  int saved = errno;

  (void) sig;
  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
  errno = saved;
}

int
main (int argc, char **argv)
{
  struct sigaction sa;

  if (argc > 1 && (strcmp (argv[1], "-v") == 0 || strcmp (argv[1], "--version") == 0))
    {
      puts ("pause (agentrt tests) 1");
      return 0;
    }
  if (getpid () != 1)
    fprintf (stderr, "pause: warning: not pid 1\n");

  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_stop;
  if (sigaction (SIGINT, &sa, NULL) < 0 || sigaction (SIGTERM, &sa, NULL) < 0)
    {
      perror ("pause: sigaction");
      return 1;
    }
  sa.sa_handler = on_child;
  sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  if (sigaction (SIGCHLD, &sa, NULL) < 0)
    {
      perror ("pause: sigaction");
      return 1;
    }
  for (;;)
    pause ();
}
