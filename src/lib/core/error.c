/* ar_error_t: creation, wrapping with context, and the final text.  Never prints.  */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentrt/error.h"
#include "alloc.h"

static char *
vformat (const char *fmt, va_list ap)
{
  char *s = NULL;
  if (vasprintf (&s, fmt, ap) < 0)
    ar_oom ();
  return s;
}

int
ar_make_error (ar_error_t *err, int status, const char *fmt, ...)
{
  va_list ap;
  struct ar_error *e = xmalloc (sizeof *e);

  va_start (ap, fmt);
  e->msg = vformat (fmt, ap);
  va_end (ap);
  e->status = status;
  if (err == NULL)
    {
      free (e->msg);
      free (e);
      return -1;
    }
  if (*err != NULL)
    ar_error_release (err); /* keep the newest; callers never stack two */
  *err = e;
  return -1;
}

int
ar_error_wrap (ar_error_t *err, const char *fmt, ...)
{
  va_list ap;
  char *ctx, *joined;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  ctx = vformat (fmt, ap);
  va_end (ap);
  joined = xasprintf ("%s: %s", ctx, (*err)->msg);
  free (ctx);
  free ((*err)->msg);
  (*err)->msg = joined;
  return -1;
}

void
ar_error_release (ar_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free ((*err)->msg);
  free (*err);
  *err = NULL;
}

char *
ar_error_text (ar_error_t err)
{
  if (err == NULL)
    return xstrdup ("unknown error");
  if (err->status > 0)
    return xasprintf ("%s: %s", err->msg, strerror (err->status));
  return xstrdup (err->msg);
}
