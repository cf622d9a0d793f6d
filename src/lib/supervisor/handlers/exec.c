/* execve and execveat: audited (path and argv), then run by the kernel with its own checks
   (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  What the record shows was read before the kernel reads
   it again, so a racing thread could make them differ: the record is an observation, never the
   basis of a decision (DESIGN.md, principle 1).  */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "json.h"
#include "supervisor/sv.h"
#include "utils.h"

#define EXEC_MAX_ARGS 64
#define EXEC_MAX_BYTES 4096

static void
argv_json (struct sv_call *c, struct ar_json *j, uint64_t argv)
{
  char buf[EXEC_MAX_BYTES];
  size_t budget = EXEC_MAX_BYTES;

  ar_json_arr_open (j);
  for (int i = 0; argv && i < EXEC_MAX_ARGS && budget > 1; i++)
    {
      uint64_t p;
      long n;

      if (sv_mem_read (c, argv + (uint64_t) i * sizeof p, &p, sizeof p) < 0 || p == 0)
        break;
      n = sv_mem_read_str (c, p, buf, budget);
      if (n < 0 && n != -ENAMETOOLONG)
        break;
      ar_json_str (j, buf);
      budget -= strlen (buf) + 1;
    }
  ar_json_arr_close (j);
}

void
sv_handle_exec (struct sv_call *c)
{
  bool at = strcmp (c->name, "execveat") == 0;
  const __u64 *a = c->req->data.args;
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *args = NULL;
  char path[4096];

  if (sv_mem_read_str (c, at ? a[1] : a[0], path, sizeof path) < 0)
    path[0] = '\0';
  ar_json_obj_open (j);
  if (at)
    ar_json_kint (j, "dirfd", (int) a[0]);
  ar_json_kstr (j, "path", path);
  ar_json_key (j, "argv");
  argv_json (c, j, at ? a[2] : a[1]);
  ar_json_obj_close (j);
  args = ar_json_finish (j, NULL);
  sv_reply_continue (c);
  sv_audit (c, "allow", 0, args);
}
