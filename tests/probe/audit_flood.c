/* The audit log's flood: a workload that makes the supervisor write as much as it can.  It execs
   a missing program with a long argv and makes a denied mount with long paths in a loop (each
   string made of control bytes, which JSON writes six bytes each), and once a second makes a
   marker: it runs /bin/marker-N (a link to this program, which the test makes), whose own exec
   and whose one denied mount are the calls a reader of the log must still find.

   Usage: audit_flood [--vary] SECONDS.  --vary makes every flooding call differ (the program's
   path, the process's name), as a workload that tries to defeat aggregation would.  Prints one
   line per marker ("marker N") and at the end "execs=E mounts=M markers=K", where mounts counts
   every denied mount this program and its markers made (each is an alert).  Run as
   /bin/marker-N, it makes its denied mount and exits 0.  */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NARGS 60
#define ARG_LEN 1000
#define PATH_LEN 4000

static char *
filled (size_t len, const char *prefix)
{
  char *s = malloc (len + 1);
  size_t p = strlen (prefix);

  if (s == NULL)
    exit (2);
  memcpy (s, prefix, p);
  memset (s + p, '\x01', len - p);
  s[len] = '\0';
  return s;
}

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

/* As /bin/marker-N: one denied mount, named by the marker.  */
static int
marker_main (const char *name)
{
  char target[64];

  snprintf (target, sizeof target, "/%s", name);
  if (mount ("marker", target, "marker", 0, NULL) == 0 || errno != EPERM)
    return 1;
  return 0;
}

static bool
marker (int n)
{
  char path[64], name[32];
  pid_t pid;
  int status;

  snprintf (name, sizeof name, "marker-%d", n);
  snprintf (path, sizeof path, "/bin/%s", name);
  pid = fork ();
  if (pid < 0)
    return false;
  if (pid == 0)
    {
      char *argv[] = { name, NULL };
      execv (path, argv);
      _exit (127);
    }
  if (waitpid (pid, &status, 0) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return false;
  printf ("marker %d\n", n);
  fflush (stdout);
  return true;
}

int
main (int argc, char **argv)
{
  const char *base = strrchr (argv[0], '/') ? strrchr (argv[0], '/') + 1 : argv[0];
  bool vary = argc > 1 && strcmp (argv[1], "--vary") == 0;
  char *args[NARGS + 1];
  char *path, *src, *dst, *fstype;
  unsigned long execs = 0, mounts = 0, n = 0;
  int markers = 0;
  double start, end, next;

  if (strncmp (base, "marker-", 7) == 0)
    return marker_main (base);
  if (argc != 2 + vary)
    return 2;
  for (int i = 0; i < NARGS; i++)
    args[i] = filled (ARG_LEN, "");
  args[NARGS] = NULL;
  path = filled (PATH_LEN, "/nonexistent/");
  src = filled (PATH_LEN, "");
  dst = filled (PATH_LEN, "/");
  fstype = filled (PATH_LEN, "");
  start = now ();
  end = start + atof (argv[1 + vary]);
  next = start + 1;
  while (now () < end)
    {
      if (vary)
        {
          char comm[16], digits[24];
          /* A new program path and a new process name for each call.  */
          int len = snprintf (digits, sizeof digits, "%020lu", n);
          memcpy (path + 13, digits, (size_t) len); /* without its NUL: the path goes on */
          snprintf (comm, sizeof comm, "f%lu", n);
          prctl (PR_SET_NAME, comm);
        }
      n++;
      execv (path, args);
      execs++;
      if (mount (src, dst, fstype, 0, NULL) < 0 && errno == EPERM)
        mounts++;
      if (now () >= next)
        {
          next += 1;
          if (!marker (++markers))
            return 1;
          mounts++;
        }
    }
  printf ("execs=%lu mounts=%lu markers=%d\n", execs, mounts, markers);
  return 0;
}
