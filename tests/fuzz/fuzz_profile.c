/* libFuzzer target: any text through the config copier (sandbox/profile.c) with the agent
   profile and the shorthands, then with --memory alone.  Whatever it accepts, its copy must be
   JSON that the reader takes back (the copier once wrote past yajl's writer state on deep
   input); a crash, a leak or a sanitizer report is a bug.  Built and run by `make fuzz`.  */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sandbox/profile.h"
#include "utils.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
apply (const char *text, const struct profile_edits *pe)
{
  cleanup_free char *out = NULL;
  struct ar_jnode *copy = NULL;
  ar_error_t err = NULL;

  if (profile_apply (text, pe, &out, &err) < 0)
    {
      ar_error_release (&err);
      return;
    }
  if (ar_jparse (out, "the copy", &copy, &err) < 0)
    {
      cleanup_free char *msg = ar_error_text (err);
      fprintf (stderr, "profile_apply wrote what the reader refuses: %s\n", msg);
      abort ();
    }
  ar_jfree (copy);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const struct profile_edits all = {
    .agent = true,
    .memory = { true, 64 << 20 },
    .cpu_quota = { true, 50000 },
    .pids = { true, 32 },
  };
  const struct profile_edits memory = { .memory = { true, 1 << 30 } };
  char *text = xmalloc (size + 1);

  memcpy (text, data, size);
  text[size] = '\0';
  apply (text, &all);
  apply (text, &memory);
  free (text);
  return 0;
}
