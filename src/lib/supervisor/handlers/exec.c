/* execve and execveat: audited (path and argv), then run by the kernel with its own checks
   (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  What the record shows was read before the kernel reads
   it again, so a racing thread could make them differ: the record is an observation, never the
   basis of a decision (DESIGN.md, principle 1).

   The caller waits for this answer, and execs are frequent (a shell script makes hundreds), so
   the reads are few: the path and the argv array in one process_vm_readv, then every string
   in a second one (a first piece of each, within its page), unchecked; sv_audit's one
   NOTIF_ID_VALID vouches for all of it.  Only a string longer than that piece, or one the
   batch did not reach, is read on its own.  The record's comm is the new program's (new_comm),
   not read from /proc.

   The supervisor does not learn the kernel's result (the call is continued), so that a PATH
   search (execvp tries each directory) would read as a row of allowed execs.  Before it
   answers it looks the path up itself, in the caller's root, cwd or dirfd (lookup): a path
   that is not there, or not a regular file with an execute bit on an exec mount, is recorded
   with the errno the kernel will answer ("outcome": "ENOENT", "EACCES"…) and the caller's
   own comm (a failed exec keeps it).  An observation, never a decision (the kernel looks
   again, and a racing rename can change the answer); what it cannot tell is left out rather
   than guessed: a success, ENOEXEC (binfmt_misc may take any format), the caller's own
   permissions (the supervisor's are not the caller's), a missing ELF interpreter, and paths
   through /proc (its `self` is not the caller's when the supervisor looks) or a magic link.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

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
  bool path_read; /* path is what the caller passed (not "" for an address it could not read) */
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

  x->path_read = true;
  if (path_read)
    {
      x->path[plen] = '\0';
      if (!memchr (x->path, '\0', plen))
        read_str_rest (c, path, x->path, sizeof x->path, plen);
    }
  else if (!path || !read_str_rest (c, path, x->path, sizeof x->path, 0))
    {
      x->path[0] = '\0';
      x->path_read = false;
    }

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

/* Through /proc, where the supervisor's look-up is not the caller's (/proc/self, /dev/fd).  */
static bool
via_proc (const char *path)
{
  return strncmp (path, "/proc/", 6) == 0 || strcmp (path, "/proc") == 0
         || strncmp (path, "/dev/fd/", 8) == 0 || strncmp (path, "/dev/std", 8) == 0;
}

/* The errno the kernel will answer for the file the exec names, as far as the supervisor can
   tell from a look-up of its own (see the top of this file); 0 for none, or unknown.  An
   absolute path resolves in the caller's root (RESOLVE_IN_ROOT), a relative one beneath its
   cwd or dirfd (RESOLVE_BENEATH: a path that leaves it, by `..` or an absolute symlink, is
   not followed, and its outcome left out).  */
static int
lookup (const struct sv_call *c, bool at, const __u64 *a, const char *path)
{
  pid_t tid = (pid_t) c->req->pid;
  struct open_how how = { .flags = O_PATH | O_CLOEXEC };
  char dir_path[64];
  cleanup_close int dir = -1, fd = -1;
  struct stat st;
  struct statvfs vfs;

  if (path[0] == '\0')
    return at && (a[4] & AT_EMPTY_PATH) ? 0 : ENOENT;
  if (via_proc (path))
    return 0;
  if (path[0] == '/')
    {
      snprintf (dir_path, sizeof dir_path, "/proc/%d/root", (int) tid);
      how.resolve = RESOLVE_IN_ROOT;
    }
  else
    {
      if (at && (int) a[0] != AT_FDCWD)
        snprintf (dir_path, sizeof dir_path, "/proc/%d/fd/%d", (int) tid, (int) a[0]);
      else
        snprintf (dir_path, sizeof dir_path, "/proc/%d/cwd", (int) tid);
      how.resolve = RESOLVE_BENEATH;
    }
  if (at && (a[4] & AT_SYMLINK_NOFOLLOW))
    how.flags |= O_NOFOLLOW;
  dir = open (dir_path, O_PATH | O_CLOEXEC);
  if (dir < 0)
    return 0;
  fd = (int) syscall (SYS_openat2, dir, path, &how, sizeof how);
  if (fd < 0)
    /* EXDEV: out of bounds; EACCES: the supervisor's search rights, not the caller's.  */
    return errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG ? errno
                                                                                          : 0;
  if (fstat (fd, &st) < 0)
    return 0;
  if (S_ISLNK (st.st_mode))
    return ELOOP;
  if (!S_ISREG (st.st_mode) || (st.st_mode & 0111) == 0)
    return EACCES;
  if (fstatvfs (fd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC))
    return EACCES;
  return 0;
}

void
sv_handle_exec (struct sv_call *c)
{
  bool at = strcmp (c->name, "execveat") == 0;
  const __u64 *a = c->req->data.args;
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *args = NULL;
  cleanup_free char *subject = NULL;
  struct exec_read x;
  bool cut;
  char comm[16];
  int outcome;

  c->unchecked = true;
  read_path_argv (c, at ? a[1] : a[0], at ? a[2] : a[1], &x);
  outcome = x.path_read && strlen (x.path) < sizeof x.path - 1 ? lookup (c, at, a, x.path) : 0;
  new_comm (at, a, x.path, comm);
  /* An exec that fails leaves the caller its name.  */
  c->comm = outcome ? NULL : comm;
  ar_json_obj_open (j);
  if (at)
    ar_json_kint (j, "dirfd", (int) a[0]);
  ar_json_key (j, "path");
  ar_json_str_max (j, x.path, AUDIT_STR_MAX, &cut);
  ar_json_key (j, "argv");
  argv_json (c, j, &x);
  if (outcome)
    ar_json_kstr (j, "outcome", strerrorname_np (outcome));
  ar_json_obj_close (j);
  args = ar_json_finish (j, NULL);
  c->truncated |= cut;
  /* Execs of one program are aggregated, whatever their argv; those that fail apart.  */
  if (outcome)
    c->subject = subject = xasprintf ("%s\n%d", x.path, outcome);
  else
    c->subject = x.path;
  sv_reply_continue (c);
  sv_audit (c, "allow", 0, args);
}
