/* The supervisor's side of one notification: answers, and the caller's memory.  Memory is read
   with process_vm_readv (one syscall, no fd to open per call) and only trusted after
   SECCOMP_IOCTL_NOTIF_ID_VALID says the caller is still the one blocked in this call: otherwise
   its pid might already name another process (seccomp_unotify(2), "Design goals; use of
   SECCOMP_USER_NOTIF_FLAG_CONTINUE").  */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "supervisor/sv.h"

void
sv_reply_error (struct sv_call *c, int err)
{
  c->resp->error = -err;
  c->resp->val = 0;
  c->resp->flags = 0;
}

void
sv_reply_value (struct sv_call *c, long long val)
{
  c->resp->error = 0;
  c->resp->val = val;
  c->resp->flags = 0;
}

void
sv_reply_continue (struct sv_call *c)
{
  c->resp->error = 0;
  c->resp->val = 0;
  c->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
}

bool
sv_id_valid (const struct sv_call *c)
{
  __u64 id = c->req->id;

  if (c->notify_fd < 0)
    return true;
  return ioctl (c->notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static ssize_t
vm_read (pid_t pid, uint64_t addr, void *buf, size_t len)
{
  struct iovec local = { buf, len };
  struct iovec remote = { (void *) (uintptr_t) addr, len };
  return process_vm_readv (pid, &local, 1, &remote, 1, 0);
}

int
sv_mem_read (const struct sv_call *c, uint64_t addr, void *buf, size_t len)
{
  ssize_t n = vm_read ((pid_t) c->req->pid, addr, buf, len);

  if (n < 0)
    return -errno;
  if ((size_t) n != len)
    return -EFAULT;
  return sv_id_valid (c) ? 0 : -ENOENT;
}

int
sv_mem_readv_unchecked (const struct sv_call *c, const struct iovec *local,
                        const struct iovec *remote, int n)
{
  ssize_t got = process_vm_readv ((pid_t) c->req->pid, local, (unsigned long) n, remote,
                                  (unsigned long) n, 0);
  int whole = 0;

  while (got > 0 && whole < n && (size_t) got >= remote[whole].iov_len)
    got -= (ssize_t) remote[whole++].iov_len;
  return whole;
}

/* Read page by page: a string near the end of a mapping must not fail because the bytes after
   it are unmapped.  */
long
sv_mem_read_str_unchecked (const struct sv_call *c, uint64_t addr, char *buf, size_t max,
                           size_t have)
{
  size_t got = have;

  while (got < max)
    {
      size_t to_page = 4096 - ((addr + got) & 4095);
      size_t want = to_page < max - got ? to_page : max - got;
      ssize_t n = vm_read ((pid_t) c->req->pid, addr + got, buf + got, want);
      int e = errno;
      char *nul;

      if (n <= 0)
        {
          buf[got] = '\0';
          return n == 0 ? -EFAULT : -e;
        }
      nul = memchr (buf + got, '\0', (size_t) n);
      if (nul)
        return (long) (nul - buf);
      got += (size_t) n;
    }
  buf[max - 1] = '\0';
  return -ENAMETOOLONG;
}

long
sv_mem_read_str (const struct sv_call *c, uint64_t addr, char *buf, size_t max)
{
  long n = sv_mem_read_str_unchecked (c, addr, buf, max, 0);

  if (n < 0)
    return n;
  return sv_id_valid (c) ? n : -ENOENT;
}

/* No NOTIF_ID_VALID first: the caller is blocked in its call, so its pid is only free again
   once it has been killed and pid_max other processes have been created since, within the
   microsecond this takes; and what is written (a uname or sysinfo result) is nothing a process
   that got it by mistake could not have asked for.  What matters is checked after reads.  */
int
sv_mem_write (const struct sv_call *c, uint64_t addr, const void *buf, size_t len)
{
  struct iovec local = { (void *) buf, len };
  struct iovec remote = { (void *) (uintptr_t) addr, len };
  ssize_t n;

  n = process_vm_writev ((pid_t) c->req->pid, &local, 1, &remote, 1, 0);
  if (n < 0)
    return -errno;
  return (size_t) n == len ? 0 : -EFAULT;
}
