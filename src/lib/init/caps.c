/* Capability names <-> numbers and the kernel's last capability.  It reads /proc and asks
   prctl, and never changes a capability set: creds.c does that.  */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "init/caps.h"
#include "utils.h"

/* The number of bits in a mask: capability numbers above 63 cannot be represented.  */
#define CAPS_MAX_BIT 63

static int
last_cap_from_proc (void)
{
  char buf[16] = "";
  long long v = -1;
  cleanup_file FILE *f = fopen ("/proc/sys/kernel/cap_last_cap", "re");

  if (f == NULL || fgets (buf, sizeof buf, f) == NULL)
    return -1;
  buf[strcspn (buf, "\n")] = '\0';
  if (!ar_parse_int64 (buf, 0, CAPS_MAX_BIT, &v))
    return -1;
  return (int) v;
}

int
caps_last_cap (void)
{
  int last = last_cap_from_proc ();

  if (last >= 0)
    return last;
  /* No /proc (a container without a proc mount): PR_CAPBSET_READ fails with EINVAL past the
     last capability, which is how libcap's cap_max_bits probes too.  */
  for (last = 0; last < CAPS_MAX_BIT; last++)
    if (prctl (PR_CAPBSET_READ, (unsigned long) last + 1, 0, 0, 0) < 0)
      break;
  return last;
}

uint64_t
caps_known_mask (void)
{
  int last = caps_last_cap ();
  return last >= CAPS_MAX_BIT ? UINT64_MAX : (UINT64_C (1) << (last + 1)) - 1;
}

int
caps_from_names (const struct spec_strv *names, uint64_t *mask, ar_error_t *err)
{
  for (size_t i = 0; i < names->n; i++)
    {
      int cap = spec_cap_from_name (names->v[i]);

      if (cap < 0 || cap > CAPS_MAX_BIT)
        return ar_make_error (err, EINVAL, "unknown capability `%s`", names->v[i]);
      *mask |= UINT64_C (1) << cap;
    }
  return 0;
}
