/* libFuzzer target: any text as config.json, process.json and a resources document through the
   parser (spec/spec.c over core/json.c), and a parsed linux.seccomp through libseccomp
   (seccomp/oci.c) when it is small.  Errors are expected; a crash, a leak, a hang or a
   sanitizer report is a bug.  Built and run by `make fuzz` (tests/fuzz/run.sh).  */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seccomp/bpf.h"
#include "seccomp/oci.h"
#include "spec/spec.h"
#include "utils.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Past this many names (or with conditions on many), one profile costs libseccomp up to a
   second (spec.h): the fuzzer would spend its time there rather than in the parser.  */
#define FUZZ_SECCOMP_NAMES 32

static void
compile_seccomp (const struct spec *s)
{
  struct seccomp_prog prog = { 0 };
  ar_error_t err = NULL;
  size_t names = 0;

  if (!s->has_linux || !s->linux_.has_seccomp)
    return;
  for (size_t i = 0; i < s->linux_.seccomp.n_syscalls; i++)
    names += s->linux_.seccomp.syscalls[i].names.n * (1 + s->linux_.seccomp.syscalls[i].n_args);
  if (names > FUZZ_SECCOMP_NAMES)
    return;
  if (seccomp_oci_compile (&s->linux_.seccomp, &prog, &err) == 0)
    seccomp_prog_release (&prog);
  ar_error_release (&err);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = xmalloc (size + 1);
  struct spec *s = NULL;
  struct spec_process *p = NULL;
  struct spec_resources *r = NULL;
  ar_error_t err = NULL;

  memcpy (text, data, size);
  text[size] = '\0';
  if (spec_parse (text, "config.json", &s, &err) == 0)
    {
      compile_seccomp (s);
      spec_free (s);
    }
  ar_error_release (&err);
  if (spec_parse_process (text, "process.json", &p, &err) == 0)
    spec_process_free (p);
  ar_error_release (&err);
  if (spec_parse_resources (text, "resources", &r, &err) == 0)
    spec_resources_free (r);
  ar_error_release (&err);
  free (text);
  return 0;
}
