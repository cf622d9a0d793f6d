/* Export libseccomp filters to plain BPF and install them with seccomp(2).  */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp/bpf.h"
#include "utils.h"

#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif

/* The most instructions the kernel takes in one filter (BPF_MAXINSNS).  */
#define PROG_MAX_INSNS 4096

int
seccomp_prog_from_ctx (scmp_filter_ctx ctx, const char *what, struct seccomp_prog *out,
                       ar_error_t *err)
{
  cleanup_close int fd = memfd_create ("agentrt-bpf", MFD_CLOEXEC);
  cleanup_free char *buf = NULL;
  size_t len = 0;
  off_t size;
  int ret;

  if (fd < 0)
    return ar_make_error (err, errno, "%s: memfd_create", what);
  ret = seccomp_export_bpf (ctx, fd);
  if (ret < 0)
    return ar_make_error (err, -ret, "%s: export the filter to BPF", what);
  /* Measured before it is read: a profile at the parser's caps can compile to more than the
     kernel takes, which is then named, not read.  */
  size = lseek (fd, 0, SEEK_CUR);
  if (size < 0 || lseek (fd, 0, SEEK_SET) < 0)
    return ar_make_error (err, errno, "%s: rewind the BPF", what);
  if ((size_t) size / sizeof (struct sock_filter) > PROG_MAX_INSNS)
    return ar_make_error (err, E2BIG, "%s: the filter has more than %d instructions", what,
                          PROG_MAX_INSNS);
  if (ar_read_fd (fd, what, PROG_MAX_INSNS * sizeof (struct sock_filter) + 1, &buf, &len, err) < 0)
    return -1;
  if (len == 0 || len % sizeof (struct sock_filter) != 0)
    return ar_make_error (err, EINVAL, "%s: libseccomp exported %zu bytes of BPF", what, len);
  if (len / sizeof (struct sock_filter) > PROG_MAX_INSNS)
    return ar_make_error (err, E2BIG, "%s: the filter has more than %d instructions", what,
                          PROG_MAX_INSNS);
  out->insns = xmalloc (len);
  memcpy (out->insns, buf, len);
  out->len = (unsigned short) (len / sizeof (struct sock_filter));
  return 0;
}

int
seccomp_prog_install (const struct seccomp_prog *p, int *listener, ar_error_t *err)
{
  struct sock_fprog fprog = { .len = p->len, .filter = p->insns };
  unsigned int flags = p->flags | (p->notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
  long ret;

  /* With TSYNC a failure returns the tid that could not sync, with NEW_LISTENER a success
     returns the fd, so the kernel refuses both together (EINVAL) unless TSYNC_ESRCH makes the
     sync failure an ESRCH instead (5.7+; libseccomp's seccomp_load does the same).  */
  if ((flags & SECCOMP_FILTER_FLAG_TSYNC) && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
    flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;

  *listener = -1;
  ret = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
  if (ret < 0)
    return ar_make_error (err, errno, "install the seccomp filter");
  if (p->notify)
    *listener = (int) ret;
  return 0;
}

unsigned
seccomp_prog_notify_to_trace (struct seccomp_prog *p)
{
  unsigned n = 0;

  /* libseccomp returns constants only (BPF_RET | BPF_K); a return of the accumulator would be
     data, never an action of ours.  */
  for (unsigned short i = 0; i < p->len; i++)
    if (p->insns[i].code == (BPF_RET | BPF_K) && p->insns[i].k == SECCOMP_RET_USER_NOTIF)
      {
        p->insns[i].k = SECCOMP_RET_TRACE | SECCOMP_PROG_TRACE_TAG;
        n++;
      }
  if (n > 0)
    {
      p->notify = false;
      p->trace = true;
    }
  return n;
}

void
seccomp_prog_release (struct seccomp_prog *p)
{
  free (p->insns);
  p->insns = NULL;
  p->len = 0;
}
