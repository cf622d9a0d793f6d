/* strict_probe: what the strict tier refuses and what it lets through, seen from the workload.
   Each argument names a call made with fixed arguments that change nothing outside the
   process even where the call reaches the kernel (the probe may run on the host, as root, by
   mistake); each prints one line, `NAME ok` or `NAME ERRNONAME` (strerrorname_np), and the
   exit status is 0.

     shmdt                  shmdt(1): System V shared memory, off the strict allowlist (the
                            kernel itself says EINVAL: nothing is attached there)
     syncfs                 syncfs(-1): off the allowlist (the kernel says EBADF)
     getppid                on it
     socket-inet            socket(AF_INET, SOCK_STREAM)
     socket-tcp             socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP)
     socket-ping            socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)
     socket-mptcp           socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)
     socket-udplite         socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE)
     socket-sctp            socket(AF_INET6, SOCK_STREAM, IPPROTO_SCTP)
     socket-raw             socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)
     socket-packet          socket(AF_PACKET, SOCK_DGRAM)
     socket-netlink-route   socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)
     socket-netlink-audit   socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT)
     ioctl-fionread         ioctl(pipe, FIONREAD)
     ioctl-tiocsetd         ioctl(pipe, TIOCSETD): a line discipline
     ioctl-other            ioctl(pipe, 0x1234): a request no family of the list has
     prctl-set-name         prctl(PR_SET_NAME)
     prctl-set-mm           prctl(PR_SET_MM, PR_SET_MM_START_CODE, 0): refused before the
                            kernel's own capability check
     fcntl-getfd            fcntl(pipe, F_GETFD)
     fcntl-setlease         fcntl(file, F_SETLEASE, F_UNLCK)
     madvise-dontneed       madvise(page, MADV_DONTNEED)
     madvise-mergeable      madvise(page, MADV_MERGEABLE)
     mremap-dontunmap       mremap(page, MREMAP_MAYMOVE | MREMAP_DONTUNMAP)
     repeat-shmdt N         shmdt N times, then one line for them all

   Build: gcc -static -O2 -Wall -Wextra -o strict_probe strict_probe.c  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef AF_PACKET
#define AF_PACKET 17
#endif

static int pipefd[2] = { -1, -1 };

static long
fd_call (long ret)
{
  if (ret >= 0)
    close ((int) ret);
  return ret;
}

static long
map_page (void)
{
  void *p = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? 0 : (long) p;
}

static long
call (const char *name)
{
  int n = 0;
  long page;

  if (strcmp (name, "shmdt") == 0)
    return syscall (SYS_shmdt, 1);
  if (strcmp (name, "syncfs") == 0)
    return syscall (SYS_syncfs, -1);
  if (strcmp (name, "getppid") == 0)
    return syscall (SYS_getppid);
  if (strcmp (name, "socket-inet") == 0)
    return fd_call (socket (AF_INET, SOCK_STREAM, 0));
  if (strcmp (name, "socket-tcp") == 0)
    return fd_call (socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP));
  if (strcmp (name, "socket-ping") == 0)
    return fd_call (socket (AF_INET, SOCK_DGRAM, IPPROTO_ICMP));
  if (strcmp (name, "socket-mptcp") == 0)
    return fd_call (socket (AF_INET, SOCK_STREAM, 262 /* IPPROTO_MPTCP */));
  if (strcmp (name, "socket-udplite") == 0)
    return fd_call (socket (AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE));
  if (strcmp (name, "socket-sctp") == 0)
    return fd_call (socket (AF_INET6, SOCK_STREAM, IPPROTO_SCTP));
  if (strcmp (name, "socket-raw") == 0)
    return fd_call (socket (AF_INET, SOCK_RAW, IPPROTO_ICMP));
  if (strcmp (name, "socket-packet") == 0)
    return fd_call (socket (AF_PACKET, SOCK_DGRAM, 0));
  if (strcmp (name, "socket-netlink-route") == 0)
    return fd_call (socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (strcmp (name, "socket-netlink-audit") == 0)
    return fd_call (socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT));
  if (strcmp (name, "ioctl-fionread") == 0)
    return ioctl (pipefd[0], FIONREAD, &n);
  if (strcmp (name, "ioctl-tiocsetd") == 0)
    return ioctl (pipefd[0], TIOCSETD, &n);
  if (strcmp (name, "ioctl-other") == 0)
    return ioctl (pipefd[0], 0x1234, &n);
  if (strcmp (name, "prctl-set-name") == 0)
    return prctl (PR_SET_NAME, "strict_probe", 0, 0, 0);
  if (strcmp (name, "prctl-set-mm") == 0)
    return prctl (PR_SET_MM, PR_SET_MM_START_CODE, 0, 0, 0);
  if (strcmp (name, "fcntl-getfd") == 0)
    return fcntl (pipefd[0], F_GETFD);
  if (strcmp (name, "fcntl-setlease") == 0)
    return fcntl (pipefd[0], F_SETLEASE, F_UNLCK);
  if (strcmp (name, "madvise-dontneed") == 0 && (page = map_page ()))
    return madvise ((void *) page, 4096, MADV_DONTNEED);
  if (strcmp (name, "madvise-mergeable") == 0 && (page = map_page ()))
    return madvise ((void *) page, 4096, MADV_MERGEABLE);
  if (strcmp (name, "mremap-dontunmap") == 0 && (page = map_page ()))
    return (long) syscall (SYS_mremap, page, 4096, 4096, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0) == -1
               ? -1
               : 0;
  fprintf (stderr, "strict_probe: unknown call `%s`\n", name);
  exit (2);
}

static void
report (const char *name, long ret)
{
  if (ret < 0)
    printf ("%s %s\n", name, strerrorname_np (errno));
  else
    printf ("%s ok\n", name);
}

int
main (int argc, char **argv)
{
  if (pipe (pipefd) < 0)
    return 1;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "repeat-shmdt") == 0 && i + 1 < argc)
        {
          long n = strtol (argv[++i], NULL, 10), ok = 0;
          int last = 0;
          for (long k = 0; k < n; k++)
            if (call ("shmdt") < 0)
              last = errno;
            else
              ok++;
          printf ("repeat-shmdt %ld ok, last %s\n", ok, last ? strerrorname_np (last) : "-");
          continue;
        }
      errno = 0;
      report (argv[i], call (argv[i]));
    }
  return 0;
}
