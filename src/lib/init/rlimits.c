/* process.rlimits → setrlimit(2) on the calling process.  It owns nothing else: the values were
   checked by spec.c (known names, no duplicates), and the kernel checks soft <= hard and the
   privilege to raise a hard limit.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include "init/rlimits.h"

/* runtime-spec writes "unlimited" as the largest uint64, which is RLIM_INFINITY on Linux.  */
static void
format_limit (uint64_t v, char *buf, size_t size)
{
  if (v == (uint64_t) RLIM_INFINITY)
    snprintf (buf, size, "unlimited");
  else
    snprintf (buf, size, "%" PRIu64, v);
}

static int
apply_one (const struct spec_rlimit *rl, ar_error_t *err)
{
  struct rlimit lim = { .rlim_cur = (rlim_t) rl->soft, .rlim_max = (rlim_t) rl->hard };
  char soft[24], hard[24];

  if (setrlimit (rl->resource, &lim) == 0)
    return 0;
  format_limit (rl->soft, soft, sizeof soft);
  format_limit (rl->hard, hard, sizeof hard);
  return ar_make_error (err, errno, "setrlimit %s to %s/%s", rl->type, soft, hard);
}

int
rlimits_apply (const struct spec_process *p, ar_error_t *err)
{
  for (size_t i = 0; i < p->n_rlimits; i++)
    if (apply_one (&p->rlimits[i], err) < 0)
      return -1;
  return 0;
}
