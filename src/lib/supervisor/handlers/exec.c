/* execve and execveat: audited (path and argv), then run by the kernel with its own checks
   (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  What the record shows was read before the kernel reads
   it again, so a racing thread could make them differ: the record is an observation, never the
   basis of a decision (DESIGN.md, principle 1).

   The caller waits for this answer, and execs are frequent (a shell script makes hundreds), so
   the reads are few: the path and the argv array in one process_vm_readv, then every string
   in a second one (a first piece of each, within its page), unchecked; sv_audit's one
   NOTIF_ID_VALID vouches for all of it.  Only a string longer than that piece, or one the
   batch did not reach, is read on its own.  The record's comm is the new program's (new_comm),
   not read from /proc.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "json.h"
#include "supervisor/sv.h"
#include "utils.h"

#define EXEC_MAX_ARGS 64
/* What argv's strings may take in the record: their JSON text (quotes aside) plus one each.
   For plain text that is their bytes with their NULs; control bytes take six each.  */
#define EXEC_MAX_BYTES 4096
#define EXEC_PIECE 256 /* what the batch reads of each string */
#define PAGE 4096

struct exec_read
{
  char path[4096];
  /* One pointer more than is recorded: whether argv goes on past what the record shows.  */
  uint64_t argv[EXEC_MAX_ARGS + 1];
  int argc; /* pointers read before the NULL one or the first unreadable one */
  char piece[EXEC_MAX_ARGS][EXEC_PIECE];
  char str[EXEC_MAX_BYTES + 1]; /* a string longer than its piece */
};

static size_t
to_page_end (uint64_t addr, size_t max)
{
  size_t n = PAGE - (size_t) (addr & (PAGE - 1));
  return n < max ? n : max;
}

/* The string at addr into buf (max bytes with its NUL), of which the first `have` bytes are
   already there (without a NUL).  false when nothing of it could be read; a string that does
   not end within max is cut.  */
static bool
read_str_rest (struct sv_call *c, uint64_t addr, char *buf, size_t max, size_t have)
{
  long n = sv_mem_read_str_unchecked (c, addr, buf, max, have);

  return n >= 0 || n == -ENAMETOOLONG || buf[0] != '\0';
}

static int
count_args (const uint64_t *argv, int n)
{
  int i = 0;

  while (i < n && argv[i] != 0)
    i++;
  return i;
}

/* The path and the argv pointers: one read when both lie within a page.  */
static void
read_path_argv (struct sv_call *c, uint64_t path, uint64_t argv, struct exec_read *x)
{
  struct iovec local[2], remote[2];
  size_t plen = path ? to_page_end (path, sizeof x->path - 1) : 0;
  size_t alen = argv ? to_page_end (argv, sizeof x->argv) & ~(size_t) 7 : 0;
  int n = 0, whole;
  bool path_read = false, argv_read = false;

  if (plen)
    {
      local[n] = (struct iovec){ x->path, plen };
      remote[n++] = (struct iovec){ (void *) (uintptr_t) path, plen };
    }
  if (alen)
    {
      local[n] = (struct iovec){ x->argv, alen };
      remote[n++] = (struct iovec){ (void *) (uintptr_t) argv, alen };
    }
  whole = n ? sv_mem_readv_unchecked (c, local, remote, n) : 0;
  path_read = plen && whole >= 1;
  argv_read = alen && whole == n;

  if (path_read)
    {
      x->path[plen] = '\0';
      if (!memchr (x->path, '\0', plen))
        read_str_rest (c, path, x->path, sizeof x->path, plen);
    }
  else if (!path || !read_str_rest (c, path, x->path, sizeof x->path, 0))
    x->path[0] = '\0';

  /* argv: what the batch read, then page by page (an array that crosses a page, or a batch
     that stopped at the path).  */
  x->argc = 0;
  if (argv_read)
    {
      x->argc = count_args (x->argv, (int) (alen / 8));
      if (x->argc < (int) (alen / 8))
        return;
    }
  while (argv && x->argc < EXEC_MAX_ARGS + 1)
    {
      uint64_t at = argv + (uint64_t) x->argc * 8;
      size_t want = to_page_end (at, (size_t) (EXEC_MAX_ARGS + 1 - x->argc) * 8);
      struct iovec l, r;
      int k;

      want = want < 8 ? 8 : want & ~(size_t) 7; /* a pointer across the boundary: read whole */
      l = (struct iovec){ &x->argv[x->argc], want };
      r = (struct iovec){ (void *) (uintptr_t) at, want };
      if (sv_mem_readv_unchecked (c, &l, &r, 1) != 1)
        return;
      k = count_args (&x->argv[x->argc], (int) (want / 8));
      x->argc += k;
      if (k < (int) (want / 8))
        return;
    }
}

/* argv's strings, within EXEC_MAX_BYTES: a string that does not fit is cut ("…"), and those
   after it, or past EXEC_MAX_ARGS, are left out; either way the record says "truncated".  */
static void
argv_json (struct sv_call *c, struct ar_json *j, struct exec_read *x)
{
  struct iovec local[EXEC_MAX_ARGS], remote[EXEC_MAX_ARGS];
  size_t len[EXEC_MAX_ARGS];
  size_t budget = EXEC_MAX_BYTES;
  int argc = x->argc < EXEC_MAX_ARGS ? x->argc : EXEC_MAX_ARGS, i, whole;
  bool cut = x->argc > EXEC_MAX_ARGS;

  for (i = 0; i < argc; i++)
    {
      len[i] = to_page_end (x->argv[i], EXEC_PIECE);
      local[i] = (struct iovec){ x->piece[i], len[i] };
      remote[i] = (struct iovec){ (void *) (uintptr_t) x->argv[i], len[i] };
    }
  whole = argc ? sv_mem_readv_unchecked (c, local, remote, argc) : 0;

  ar_json_arr_open (j);
  for (i = 0; i < argc && budget > 1; i++)
    {
      const char *s = x->piece[i];
      size_t n = i < whole ? strnlen (s, len[i]) : 0;
      bool cut_here;

      if (i >= whole || n == len[i])
        {
          /* Not read by the batch, or longer than its piece: read on, up to a byte past what
             the budget can show, so that a longer string is known to be cut.  */
          size_t have = n < budget ? n : budget;
          memcpy (x->str, s, have);
          if (!read_str_rest (c, x->argv[i], x->str, budget + 1, have))
            break;
          s = x->str;
        }
      budget -= ar_json_str_max (j, s, budget - 1, &cut_here) + 1;
      cut |= cut_here;
    }
  ar_json_arr_close (j);
  c->truncated |= cut || i < argc;
}

/* The name the process takes with the new program, as the kernel gives it (begin_new_exec:
   the last component of the file name it was passed, 15 bytes at most; for execveat of an fd
   alone, "/dev/fd/N", so N) and as auditd's execve records show it.  Reading the caller's
   name from /proc instead cost ~40 µs of every exec here (opening a new task's file, and
   closing it once the task had gone): a third of what auditing an exec cost.  An exec that
   fails leaves the process its old name.  */
static void
new_comm (bool at, const __u64 *a, const char *path, char out[16])
{
  const char *base = strrchr (path, '/');

  if (at && path[0] == '\0' && (a[4] & AT_EMPTY_PATH))
    snprintf (out, 16, "%d", (int) a[0]);
  else
    snprintf (out, 16, "%s", base ? base + 1 : path);
}

void
sv_handle_exec (struct sv_call *c)
{
  bool at = strcmp (c->name, "execveat") == 0;
  const __u64 *a = c->req->data.args;
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *args = NULL;
  struct exec_read x;
  bool cut;
  char comm[16];

  c->unchecked = true;
  read_path_argv (c, at ? a[1] : a[0], at ? a[2] : a[1], &x);
  new_comm (at, a, x.path, comm);
  c->comm = comm;
  ar_json_obj_open (j);
  if (at)
    ar_json_kint (j, "dirfd", (int) a[0]);
  ar_json_key (j, "path");
  ar_json_str_max (j, x.path, AUDIT_STR_MAX, &cut);
  ar_json_key (j, "argv");
  argv_json (c, j, &x);
  ar_json_obj_close (j);
  args = ar_json_finish (j, NULL);
  c->truncated |= cut;
  /* Execs of one program are aggregated, whatever their argv.  */
  c->subject = x.path;
  sv_reply_continue (c);
  sv_audit (c, "allow", 0, args);
}
