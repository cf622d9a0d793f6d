/* Allocation that aborts on OOM, and the release functions behind the cleanup attributes.  The
   bottom of the library: it depends on nothing of agentrt's, so that error.c and utils.c can both
   build on it.  */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"

void
ar_oom (void)
{
  static const char msg[] = "agentrt: out of memory\n";
  (void) !write (2, msg, sizeof msg - 1);
  abort ();
}

void *
xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);
  if (p == NULL)
    ar_oom ();
  return p;
}

void *
xzalloc (size_t n)
{
  void *p = calloc (1, n ? n : 1);
  if (p == NULL)
    ar_oom ();
  return p;
}

void *
xrealloc (void *p, size_t n)
{
  p = realloc (p, n ? n : 1);
  if (p == NULL)
    ar_oom ();
  return p;
}

char *
xstrdup (const char *s)
{
  char *r = strdup (s);
  if (r == NULL)
    ar_oom ();
  return r;
}

char *
xstrndup (const char *s, size_t n)
{
  char *r = strndup (s, n);
  if (r == NULL)
    ar_oom ();
  return r;
}

char *
xasprintf (const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (r < 0)
    ar_oom ();
  return s;
}

void
ar_freep (void *p)
{
  free (*(void **) p);
}

void
ar_closep (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
      *fd = -1;
    }
}

void
ar_fclosep (void *f)
{
  FILE **fp = f;
  if (*fp)
    fclose (*fp);
}

void
ar_strv_free (char **v)
{
  if (v == NULL)
    return;
  for (char **p = v; *p; p++)
    free (*p);
  free (v);
}

void
ar_strv_freep (void *p)
{
  ar_strv_free (*(char ***) p);
}

size_t
ar_strv_len (char *const *v)
{
  size_t n = 0;
  while (v && v[n])
    n++;
  return n;
}
