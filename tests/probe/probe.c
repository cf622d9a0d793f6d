/* probe: a static program the integration tests run inside a container to see, from the
   workload's side, what the supervisor denies and what it emulates.

     probe deny [--list]   call each syscall of agentrt's deny list and expect EPERM; check that
                           a few allowed calls still work (ptrace, process_vm_*v and
                           clone(CLONE_UNTRACED), which depend on the platform and the pid
                           namespace, are tracer.c's)
     probe deny NAME...    only the checks named (as --list prints them)
     probe affinity CPU    sched_getaffinity of a thread pinned to CPU, by its tid; with a
                           one-byte buffer; of pid -1
     probe emulate [--mem BYTES] [--cpus N] [--release R] [--hostname H]
                           check what uname, sysinfo, sched_getaffinity and the virtual /proc and
                           /sys files report against the container's limits
     probe mount DIR       mount a tmpfs on DIR
     probe loop N CALL     time N calls of getppid, uname or `openclose PATH`
     probe flood N         open N loopback TCP connections, send on each until the kernel
                           will queue no more (the peer never reads), print the MiB queued,
                           then hold them until killed
     probe hold inotify|fanotify N
                           make up to N inotify instances (fanotify groups), print how many
                           and the errno that stopped them, then hold them until killed
     probe watch inotify|fanotify N DIR
                           make N files in a new directory under DIR, add an inotify watch
                           (fanotify inode mark) on each, print how many were added and the
                           errno that stopped them, then hold them until killed
     probe fdscan PROCS FDS N
                           start PROCS processes holding FDS fds each, then time N
                           inotify_init1 calls (each closed at once); print the mean, the
                           worst and how many failed with EMFILE
     probe threads N       start N threads at once, join them, print how many, exit 0
     probe orphan          start a thread that runs until killed, then end the main thread
                           alone (SYS_exit, not exit_group): the process lives on, its thread
                           group leader a zombie

   Each check prints one line: `ok NAME`, `skip NAME` (not on this architecture) or
   `FAIL NAME: expected …, got RET/ERRNO`; the exit status is 0 only if no check failed.

   The deny checks must be harmless where a call unexpectedly succeeds: the probe is also run
   with --platform none, as root with every capability, for comparison.  So every check runs in
   a child process of its own (namespaces, personality, keyrings or I/O privileges it changes die
   with it), touches only a temporary directory of its own, and passes arguments that the kernel
   refuses after its permission check where the call itself would change the host (reboot,
   kexec, the clock, swap, accounting, modules).  The idea of calling each syscall so that a
   call reaching the kernel fails in a recognisable way is bubblewrap's tests/try-syscall.c.

   Build: gcc -static -O2 -Wall -Wextra -o probe probe.c  (x86_64 and aarch64).  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/quota.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>

#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/kexec.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/filter.h>
#include <linux/reboot.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>

/* The generic numbers from 424 on are the same on every architecture; older headers lack
   them.  */
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#define SYS_io_uring_enter 426
#define SYS_io_uring_register 427
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#define SYS_fsopen 430
#define SYS_fsconfig 431
#define SYS_fsmount 432
#define SYS_fspick 433
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

/* The new mount API's flags, spelled here: <linux/mount.h> and glibc's <sys/mount.h> clash on
   older systems.  */
#define P_OPEN_TREE_CLOEXEC O_CLOEXEC
#define P_FSOPEN_CLOEXEC 1
#define P_FSPICK_CLOEXEC 1
#define P_FSMOUNT_CLOEXEC 1
#define P_FSCONFIG_SET_STRING 1

/* struct mount_attr and struct clone_args (version 0), likewise spelled here.  */
struct p_mount_attr
{
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
struct p_clone_args
{
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* Paths that exist nowhere: calls that would act on a file get ENOENT from the kernel.  */
#define NOWHERE "/nonexistent-agentrt-probe"

/* The check's own directory (a fresh mkdtemp, so never a mount point), or NOWHERE.  */
static char workdir[64] = NOWHERE;

struct result
{
  long ret;
  int err;
  int sig; /* the child died of this signal */
};

/* What a check expects: success (ret >= 0), or -1 with one of up to three errnos.  */
struct check
{
  const char *name;
  long (*fn) (void);
  int errs[3]; /* {0}: expects success */
  bool skip;   /* this architecture has no such syscall */
};

/* ---- the deny list --------------------------------------------------------------------- */

static long
close_if_fd (long ret)
{
  if (ret >= 0)
    close ((int) ret);
  return ret;
}

static long
c_mount (void)
{
  long r = mount ("none", workdir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k");
  if (r == 0)
    umount2 (workdir, MNT_DETACH);
  return r;
}

/* workdir is never a mount point: EINVAL where it reaches the kernel with CAP_SYS_ADMIN.  */
static long
c_umount2 (void)
{
  return umount2 (workdir, 0);
}

/* put_old does not exist: the kernel fails before it changes anything.  */
static long
c_pivot_root (void)
{
  return syscall (SYS_pivot_root, workdir, NOWHERE);
}

static long
c_move_mount (void)
{
  return syscall (SYS_move_mount, AT_FDCWD, workdir, AT_FDCWD, NOWHERE, 0);
}

/* Without OPEN_TREE_CLONE this is an O_PATH open that needs no privilege.  */
static long
c_open_tree (void)
{
  return close_if_fd (syscall (SYS_open_tree, AT_FDCWD, workdir, P_OPEN_TREE_CLOEXEC));
}

/* A filesystem context is only a superblock once FSCONFIG_CMD_CREATE is sent: closing it
   unused leaves nothing behind.  */
static long
c_fsopen (void)
{
  return close_if_fd (syscall (SYS_fsopen, "tmpfs", P_FSOPEN_CLOEXEC));
}

static long
c_fsconfig (void)
{
  return syscall (SYS_fsconfig, -1, P_FSCONFIG_SET_STRING, "size", "64k", 0);
}

static long
c_fsmount (void)
{
  return close_if_fd (syscall (SYS_fsmount, -1, P_FSMOUNT_CLOEXEC, 0));
}

static long
c_fspick (void)
{
  return close_if_fd (syscall (SYS_fspick, AT_FDCWD, workdir, P_FSPICK_CLOEXEC));
}

/* Nothing set, nothing cleared: a no-op even on a mount point.  */
static long
c_mount_setattr (void)
{
  struct p_mount_attr a = { 0 };
  return syscall (SYS_mount_setattr, AT_FDCWD, workdir, 0, &a, sizeof a);
}

static long
c_bpf (void)
{
  union bpf_attr a;
  memset (&a, 0, sizeof a);
  a.map_type = BPF_MAP_TYPE_ARRAY;
  a.key_size = 4;
  a.value_size = 4;
  a.max_entries = 1;
  return close_if_fd (syscall (SYS_bpf, BPF_MAP_CREATE, &a, sizeof a));
}

/* A user-space-only software counter on ourselves: allowed by perf_event_paranoid 2.  */
static long
c_perf_event_open (void)
{
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  a.type = PERF_TYPE_SOFTWARE;
  a.size = sizeof a;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  return close_if_fd (syscall (SYS_perf_event_open, &a, 0, -1, -1, 0));
}

/* Not an ELF image: ENOEXEC even with CAP_SYS_MODULE.  */
static long
c_init_module (void)
{
  static const char junk[16] = "not a module";
  return syscall (SYS_init_module, junk, sizeof junk, "");
}

/* /dev/null is not a regular file: EINVAL even with CAP_SYS_MODULE.  */
static long
c_finit_module (void)
{
  int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  long r = syscall (SYS_finit_module, fd, "", 0);
  int e = errno;
  if (fd >= 0)
    close (fd);
  errno = e;
  return r;
}

static long
c_delete_module (void)
{
  return syscall (SYS_delete_module, "agentrt_probe_no_such_module", O_NONBLOCK);
}

/* Never nr_segments 0 with no flags: that unloads the loaded kexec image.  Too many segments
   and a foreign architecture: EINVAL even with CAP_SYS_BOOT.  */
static long
c_kexec_load (void)
{
  return syscall (SYS_kexec_load, 0UL, (unsigned long) KEXEC_SEGMENT_MAX + 1, NULL,
                  (unsigned long) KEXEC_ARCH_MASK);
}

#ifdef SYS_kexec_file_load
/* Never KEXEC_FILE_UNLOAD; an unknown flag bit is EINVAL even with CAP_SYS_BOOT.  */
static long
c_kexec_file_load (void)
{
  return syscall (SYS_kexec_file_load, -1, -1, 0UL, "", 1UL << 31);
}
#endif

/* A wrong first magic and no valid command: EINVAL even with CAP_SYS_BOOT, never a reboot
   (and never cmd 0, which is LINUX_REBOOT_CMD_CAD_OFF).  */
static long
c_reboot (void)
{
  return syscall (SYS_reboot, 0x0badc0deUL, (unsigned long) LINUX_REBOOT_MAGIC2, 0x0badf00dUL,
                  NULL);
}

static long
c_swapon (void)
{
  return syscall (SYS_swapon, NOWHERE "/swap", 0);
}

static long
c_swapoff (void)
{
  return syscall (SYS_swapoff, NOWHERE "/swap");
}

/* A lookup that does not create the keyring.  */
static long
c_keyctl (void)
{
  return syscall (SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

/* The process keyring dies with this child.  */
static long
c_add_key (void)
{
  return syscall (SYS_add_key, "user", "agentrt-probe", "x", 1UL, KEY_SPEC_PROCESS_KEYRING);
}

/* No callout info: the kernel never runs /sbin/request-key.  */
static long
c_request_key (void)
{
  return syscall (SYS_request_key, "user", "agentrt-probe-none", NULL, 0);
}

static long
c_userfaultfd (void)
{
  return close_if_fd (syscall (SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
}

static long
c_io_uring_setup (void)
{
  struct io_uring_params p;
  memset (&p, 0, sizeof p);
  return close_if_fd (syscall (SYS_io_uring_setup, 1, &p));
}

static long
c_io_uring_enter (void)
{
  return syscall (SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
}

static long
c_io_uring_register (void)
{
  return syscall (SYS_io_uring_register, -1, 0, NULL, 0);
}

/* A handle that names nothing: ESTALE even with CAP_DAC_READ_SEARCH.  */
static long
c_open_by_handle_at (void)
{
  union
  {
    struct file_handle fh;
    char buf[sizeof (struct file_handle) + 8];
  } h;
  memset (&h, 0, sizeof h);
  h.fh.handle_bytes = 8;
  h.fh.handle_type = 1;
  return close_if_fd (syscall (SYS_open_by_handle_at, AT_FDCWD, &h.fh, O_RDONLY | O_CLOEXEC));
}

static long
c_name_to_handle_at (void)
{
  union
  {
    struct file_handle fh;
    char buf[sizeof (struct file_handle) + MAX_HANDLE_SZ];
  } h;
  int mount_id;
  memset (&h, 0, sizeof h);
  h.fh.handle_bytes = MAX_HANDLE_SZ;
  return syscall (SYS_name_to_handle_at, AT_FDCWD, "/", &h.fh, &mount_id, 0);
}

/* Joining the UTS namespace we are already in changes nothing.  */
static long
c_setns (void)
{
  int fd = open ("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
  long r = syscall (SYS_setns, fd, CLONE_NEWUTS);
  int e = errno;
  if (fd >= 0)
    close (fd);
  errno = e;
  return r;
}

static long
c_unshare_newns (void)
{
  return syscall (SYS_unshare, CLONE_NEWNS);
}

static long
c_unshare_newuser (void)
{
  return syscall (SYS_unshare, CLONE_NEWUSER);
}

/* Raw clone, so libc cannot pick clone3; no CLONE_VM and no stack, so the child is a fork's
   copy that leaves at once.  */
static long
raw_clone (unsigned long flags)
{
  long r = syscall (SYS_clone, flags | SIGCHLD, 0UL, NULL, NULL, 0UL);
  if (r == 0)
    _exit (0);
  if (r > 0)
    waitpid ((pid_t) r, NULL, __WALL);
  return r;
}

static long
c_clone_newuser (void)
{
  return raw_clone (CLONE_NEWUSER);
}

/* A listener of the workload's own: on the ptrace platform its notify would outrank the
   policy's trace stops.  The filter allows everything, so were it installed nothing changes
   but the returned fd.  */
static long
c_seccomp_listener (void)
{
  struct sock_filter allow = BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = { 1, &allow };

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return -1;
  return syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

/* acct opens without O_CREAT: ENOENT, and accounting is left as it was.  */
static long
c_acct (void)
{
  return syscall (SYS_acct, NOWHERE "/acct");
}

/* A query, on a device that is not a block device.  */
static long
c_quotactl (void)
{
  char info[128] = { 0 };
  return syscall (SYS_quotactl, QCMD (Q_GETINFO, USRQUOTA), "/dev/null", 0, info);
}

/* SYSLOG_ACTION_SIZE_BUFFER: read-only.  */
static long
c_syslog (void)
{
  return syscall (SYS_syslog, 10, NULL, 0);
}

#ifdef SYS_iopl
/* Level 0 needs no privilege, and it dies with this child.  */
static long
c_iopl (void)
{
  return syscall (SYS_iopl, 0);
}
#endif

#ifdef SYS_ioperm
/* Turning a port off needs no privilege.  */
static long
c_ioperm (void)
{
  return syscall (SYS_ioperm, 0x80UL, 1UL, 0);
}
#endif

/* The current second with an out-of-range microsecond: the kernel checks the value before the
   capability, so this is EINVAL even with CAP_SYS_TIME and the clock is never set (setting it to
   "now" would still step it back by the time the call took).  Raw: glibc checks the value
   itself and would never make the call.  */
static long
c_settimeofday (void)
{
  struct timeval tv;
  gettimeofday (&tv, NULL);
  tv.tv_usec = 1000001;
  return syscall (SYS_settimeofday, &tv, NULL);
}

static long
c_clock_settime (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  ts.tv_nsec = 1000000001;
  return syscall (SYS_clock_settime, CLOCK_REALTIME, &ts);
}

/* modes != 0, but the one read-only mode: it needs no capability and changes nothing.  */
static long
c_adjtimex (void)
{
  struct timex t;
  memset (&t, 0, sizeof t);
  t.modes = ADJ_OFFSET_SS_READ;
  return syscall (SYS_adjtimex, &t);
}

/* A change of the tick, to a value the kernel would refuse (EINVAL) even from a caller with
   CAP_SYS_TIME: should the call ever reach it, the host's clock stays as it is.  */
static long
c_adjtimex_tick (void)
{
  struct timex t;
  memset (&t, 0, sizeof t);
  t.modes = ADJ_TICK;
  t.tick = 1;
  return syscall (SYS_adjtimex, &t);
}

static long
c_personality_linux32 (void)
{
  return syscall (SYS_personality, (unsigned long) PER_LINUX32);
}

#ifdef SYS_modify_ldt
/* func 0 reads the LDT.  */
static long
c_modify_ldt (void)
{
  char buf[16];
  return syscall (SYS_modify_ldt, 0, buf, sizeof buf);
}
#endif

#ifdef SYS_uselib
static long
c_uselib (void)
{
  return syscall (SYS_uselib, NOWHERE "/lib.so");
}
#endif

#ifdef SYS__sysctl
/* Removed from the kernel in 5.5 (ENOSYS there); a read of nothing where it still exists.  */
static long
c_sysctl (void)
{
  struct
  {
    int *name;
    int nlen;
    void *oldval;
    size_t *oldlenp;
    void *newval;
    size_t newlen;
    unsigned long unused[4];
  } a;
  memset (&a, 0, sizeof a);
  return syscall (SYS__sysctl, &a);
}
#endif

#ifdef SYS_ustat
static long
c_ustat (void)
{
  char buf[64];
  return syscall (SYS_ustat, 0UL, buf);
}
#endif

#ifdef SYS_sysfs
/* option 3: how many filesystem types the kernel knows.  */
static long
c_sysfs (void)
{
  return syscall (SYS_sysfs, 3);
}
#endif

/* No flags: a plain fork, refused with ENOSYS so that libc falls back to clone.  */
static long
c_clone3 (void)
{
  struct p_clone_args a = { 0 };
  a.exit_signal = SIGCHLD;
  long r = syscall (SYS_clone3, &a, sizeof a);
  if (r == 0)
    _exit (0);
  if (r > 0)
    waitpid ((pid_t) r, NULL, 0);
  return r;
}

/* /dev/null, never a terminal: where the call reaches the kernel it is ENOTTY and no input is
   pushed into anybody's terminal.  Raw, so all 64 bits of the request reach the filter.  */
static long
tiocsti (unsigned long req)
{
  char c = ' ';
  int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  long r = syscall (SYS_ioctl, fd, req, &c);
  int e = errno;
  if (fd >= 0)
    close (fd);
  errno = e;
  return r;
}

static long
c_ioctl_tiocsti (void)
{
  return tiocsti (TIOCSTI);
}

/* The kernel reads the request as 32 bits: junk above them must not get it past the filter.  */
static long
c_ioctl_tiocsti_high (void)
{
  return tiocsti ((unsigned long) TIOCSTI | 0xdeadbeef00000000UL);
}

static long
c_socket_packet (void)
{
  return close_if_fd (socket (AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0));
}

/* ---- allowed calls --------------------------------------------------------------------- */

static long
c_unshare_0 (void)
{
  return syscall (SYS_unshare, 0);
}

static long
c_personality_query (void)
{
  return syscall (SYS_personality, 0xffffffffUL);
}

static long
c_getppid (void)
{
  return syscall (SYS_getppid);
}

static long
c_socket_inet (void)
{
  return close_if_fd (socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
}

static long
c_fork_wait (void)
{
  int st;
  pid_t p = fork ();
  if (p < 0)
    return -1;
  if (p == 0)
    _exit (7);
  if (waitpid (p, &st, 0) != p)
    return -1;
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 7)
    {
      errno = ECHILD;
      return -1;
    }
  return 0;
}

/* clang-format off */
#define DENY(n, f) { n, f, { EPERM }, false }
#define OK(n, f) { n, f, { 0 }, false }
/* This architecture has no such syscall (iopl, modify_ldt… on aarch64).  */
#define SKIP(n) { n, NULL, { 0 }, true }
/* clang-format on */

/* Names: the syscall's name as libseccomp spells it (the audit log's "syscall"), with the
   arguments that matter in parentheses; allowed calls start with "allowed:".  */
static const struct check deny_checks[] = {
  DENY ("mount", c_mount),
  DENY ("umount2", c_umount2),
  DENY ("pivot_root", c_pivot_root),
  DENY ("move_mount", c_move_mount),
  DENY ("open_tree", c_open_tree),
  DENY ("fsopen", c_fsopen),
  DENY ("fsconfig", c_fsconfig),
  DENY ("fsmount", c_fsmount),
  DENY ("fspick", c_fspick),
  DENY ("mount_setattr", c_mount_setattr),
  DENY ("bpf", c_bpf),
  DENY ("perf_event_open", c_perf_event_open),
  DENY ("init_module", c_init_module),
  DENY ("finit_module", c_finit_module),
  DENY ("delete_module", c_delete_module),
  DENY ("kexec_load", c_kexec_load),
#ifdef SYS_kexec_file_load
  DENY ("kexec_file_load", c_kexec_file_load),
#else
  SKIP ("kexec_file_load"),
#endif
  DENY ("reboot", c_reboot),
  DENY ("swapon", c_swapon),
  DENY ("swapoff", c_swapoff),
  DENY ("keyctl", c_keyctl),
  DENY ("add_key", c_add_key),
  DENY ("request_key", c_request_key),
  DENY ("userfaultfd", c_userfaultfd),
  { "io_uring_setup", c_io_uring_setup, { ENOSYS }, false },
  DENY ("io_uring_enter", c_io_uring_enter),
  DENY ("io_uring_register", c_io_uring_register),
  DENY ("open_by_handle_at", c_open_by_handle_at),
  DENY ("name_to_handle_at", c_name_to_handle_at),
  DENY ("setns", c_setns),
  DENY ("unshare(CLONE_NEWNS)", c_unshare_newns),
  DENY ("unshare(CLONE_NEWUSER)", c_unshare_newuser),
  DENY ("clone(CLONE_NEWUSER)", c_clone_newuser),
  DENY ("seccomp(NEW_LISTENER)", c_seccomp_listener),
  DENY ("acct", c_acct),
  DENY ("quotactl", c_quotactl),
  DENY ("syslog", c_syslog),
#ifdef SYS_iopl
  DENY ("iopl", c_iopl),
#else
  SKIP ("iopl"),
#endif
#ifdef SYS_ioperm
  DENY ("ioperm", c_ioperm),
#else
  SKIP ("ioperm"),
#endif
  DENY ("settimeofday", c_settimeofday),
  DENY ("clock_settime", c_clock_settime),
  DENY ("adjtimex(ADJ_TICK)", c_adjtimex_tick),
  DENY ("personality(PER_LINUX32)", c_personality_linux32),
#ifdef SYS_modify_ldt
  DENY ("modify_ldt", c_modify_ldt),
#else
  SKIP ("modify_ldt"),
#endif
#ifdef SYS_uselib
  DENY ("uselib", c_uselib),
#else
  SKIP ("uselib"),
#endif
#ifdef SYS__sysctl
  DENY ("_sysctl", c_sysctl),
#else
  SKIP ("_sysctl"),
#endif
#ifdef SYS_ustat
  DENY ("ustat", c_ustat),
#else
  SKIP ("ustat"),
#endif
#ifdef SYS_sysfs
  DENY ("sysfs", c_sysfs),
#else
  SKIP ("sysfs"),
#endif
  { "clone3", c_clone3, { ENOSYS }, false },
  DENY ("ioctl(TIOCSTI)", c_ioctl_tiocsti),
  DENY ("ioctl(TIOCSTI|high bits)", c_ioctl_tiocsti_high),
  { "socket(AF_PACKET)", c_socket_packet, { EPERM, EAFNOSUPPORT }, false },
  OK ("allowed:unshare(0)", c_unshare_0),
  OK ("allowed:personality(0xffffffff)", c_personality_query),
  OK ("allowed:adjtimex(ADJ_OFFSET_SS_READ)", c_adjtimex),
  OK ("allowed:getppid", c_getppid),
  OK ("allowed:socket(AF_INET)", c_socket_inet),
  OK ("allowed:fork+wait", c_fork_wait),
};

/* ---- running the checks ---------------------------------------------------------------- */

static const char *
errno_name (int e)
{
  const char *n = strerrorname_np (e);
  return n ? n : "E?";
}

/* Runs fn in a child, so that whatever it changes in its process dies with it, and a call that
   blocks (a supervisor that never answers) fails the check instead of hanging the probe.  */
static struct result
run_in_child (long (*fn) (void))
{
  struct result *shared, res = { -1, 0, 0 };
  shared = mmap (NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    {
      res.err = errno;
      return res;
    }
  *shared = res;
  pid_t p = fork ();
  if (p < 0)
    {
      res.err = errno;
      munmap (shared, sizeof *shared);
      return res;
    }
  if (p == 0)
    {
      alarm (10);
      errno = 0;
      long r = fn ();
      shared->err = r < 0 ? errno : 0;
      shared->ret = r;
      _exit (0);
    }
  int st = 0;
  while (waitpid (p, &st, 0) < 0 && errno == EINTR)
    ;
  res = *shared;
  if (WIFSIGNALED (st))
    res.sig = WTERMSIG (st);
  munmap (shared, sizeof *shared);
  return res;
}

static bool
expects_success (const struct check *c)
{
  return c->errs[0] == 0;
}

static bool
passes (const struct check *c, const struct result *r)
{
  if (r->sig)
    return false;
  if (expects_success (c))
    return r->ret >= 0;
  if (r->ret != -1)
    return false;
  for (size_t i = 0; i < sizeof c->errs / sizeof c->errs[0] && c->errs[i]; i++)
    if (r->err == c->errs[i])
      return true;
  return false;
}

static void
print_expected (const struct check *c)
{
  if (expects_success (c))
    {
      fputs ("success", stdout);
      return;
    }
  fputs ("-1/", stdout);
  for (size_t i = 0; i < sizeof c->errs / sizeof c->errs[0] && c->errs[i]; i++)
    printf ("%s%s", i ? "|" : "", errno_name (c->errs[i]));
}

static bool
run_check (const struct check *c)
{
  if (c->skip)
    {
      printf ("skip %s\n", c->name);
      return true;
    }
  struct result r = run_in_child (c->fn);
  bool ok = passes (c, &r);
  if (ok)
    printf ("ok %s\n", c->name);
  else
    {
      printf ("FAIL %s: expected ", c->name);
      print_expected (c);
      if (r.sig)
        printf (", got signal %s\n", sigabbrev_np (r.sig) ? sigabbrev_np (r.sig) : "?");
      else
        printf (", got %ld/%s\n", r.ret, r.ret < 0 ? errno_name (r.err) : "0");
    }
  fflush (stdout);
  return ok;
}

static void
make_workdir (void)
{
  static const char *const bases[] = { "/tmp", "/dev/shm" };
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
    {
      snprintf (workdir, sizeof workdir, "%s/agentrt-probe.XXXXXX", bases[i]);
      if (mkdtemp (workdir))
        return;
    }
  /* No writable place: the checks still run, on a path that does not exist.  */
  snprintf (workdir, sizeof workdir, "%s", NOWHERE);
}

static int
cmd_deny (int argc, char **argv)
{
  size_t n = sizeof deny_checks / sizeof deny_checks[0];
  if (argc == 3 && strcmp (argv[2], "--list") == 0)
    {
      for (size_t i = 0; i < n; i++)
        puts (deny_checks[i].name);
      return 0;
    }
  /* Only the checks named, in the order named (probe deny NAME...).  */
  size_t pick[64];
  int npick = 0;
  for (int a = 2; a < argc; a++)
    {
      size_t i = 0;
      while (i < n && strcmp (deny_checks[i].name, argv[a]) != 0)
        i++;
      if (i == n || npick == 64)
        {
          fprintf (stderr, "probe deny: no check `%s` (probe deny --list)\n", argv[a]);
          return 2;
        }
      pick[npick++] = i;
    }
  make_workdir ();
  int failed = 0;
  for (int k = 0; k < npick; k++)
    failed += !run_check (&deny_checks[pick[k]]);
  for (size_t i = 0; npick == 0 && i < n; i++)
    failed += !run_check (&deny_checks[i]);
  if (strcmp (workdir, NOWHERE) != 0)
    rmdir (workdir);
  return failed ? 1 : 0;
}

/* ---- emulate --------------------------------------------------------------------------- */

struct emu_opts
{
  long long mem; /* bytes; -1: not checked */
  long cpus;     /* -1: not checked */
  const char *release, *hostname;
};

static int emu_failed;

static void
emu_ok (const char *name)
{
  printf ("ok %s\n", name);
}

static void
emu_skip (const char *name)
{
  printf ("skip %s\n", name);
}

static void __attribute__ ((format (printf, 2, 3)))
emu_fail (const char *name, const char *fmt, ...)
{
  va_list ap;
  printf ("FAIL %s: ", name);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  emu_failed++;
}

/* Reads a whole small file into buf (NUL-terminated); -1 with errno on failure.  */
static ssize_t
read_file (const char *path, char *buf, size_t size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t len = 0;
  while (len + 1 < size)
    {
      ssize_t r = read (fd, buf + len, size - 1 - len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          int e = errno;
          close (fd);
          errno = e;
          return -1;
        }
      if (r == 0)
        break;
      len += (size_t) r;
    }
  close (fd);
  buf[len] = '\0';
  return (ssize_t) len;
}

/* How many lines of buf start with prefix and then, if digit, a digit.  */
static long
count_lines (const char *buf, const char *prefix, bool digit)
{
  long n = 0;
  size_t pl = strlen (prefix);
  for (const char *l = buf; l && *l; l = strchr (l, '\n'), l = l ? l + 1 : NULL)
    if (strncmp (l, prefix, pl) == 0 && (!digit || (l[pl] >= '0' && l[pl] <= '9')))
      n++;
  return n;
}

static void
emu_uname (const struct emu_opts *o)
{
  struct utsname u;
  if (!o->release && !o->hostname)
    {
      emu_skip ("uname");
      return;
    }
  if (uname (&u) < 0)
    emu_fail ("uname", "uname: %s", errno_name (errno));
  else if (o->release && strcmp (u.release, o->release) != 0)
    emu_fail ("uname", "expected release %s, got %s", o->release, u.release);
  else if (o->hostname && strcmp (u.nodename, o->hostname) != 0)
    emu_fail ("uname", "expected nodename %s, got %s", o->hostname, u.nodename);
  else
    emu_ok ("uname");
}

static void
emu_sysinfo (const struct emu_opts *o)
{
  struct sysinfo si;
  if (sysinfo (&si) < 0)
    {
      emu_fail ("sysinfo", "sysinfo: %s", errno_name (errno));
      return;
    }
  unsigned long long total = (unsigned long long) si.totalram * si.mem_unit;
  if (o->mem >= 0 && total != (unsigned long long) o->mem)
    emu_fail ("sysinfo", "expected totalram %lld bytes, got %llu", o->mem, total);
  else if (si.uptime < 0 || si.uptime >= 600)
    emu_fail ("sysinfo", "expected uptime < 600 s, got %ld", si.uptime);
  else
    emu_ok ("sysinfo");
}

static void
emu_affinity (const struct emu_opts *o)
{
  cpu_set_t set;
  if (o->cpus < 0)
    {
      emu_skip ("sched_getaffinity");
      emu_skip ("sysconf(_SC_NPROCESSORS_ONLN)");
      return;
    }
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) < 0)
    emu_fail ("sched_getaffinity", "sched_getaffinity: %s", errno_name (errno));
  else if (CPU_COUNT (&set) != o->cpus)
    emu_fail ("sched_getaffinity", "expected %ld CPUs, got %d", o->cpus, CPU_COUNT (&set));
  else
    emu_ok ("sched_getaffinity");
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  if (n != o->cpus)
    emu_fail ("sysconf(_SC_NPROCESSORS_ONLN)", "expected %ld, got %ld", o->cpus, n);
  else
    emu_ok ("sysconf(_SC_NPROCESSORS_ONLN)");
}

static char filebuf[1 << 20];

/* Reads path into filebuf, or fails the check `name`.  */
static bool
emu_read (const char *name, const char *path)
{
  if (read_file (path, filebuf, sizeof filebuf) < 0)
    {
      emu_fail (name, "read %s: %s", path, errno_name (errno));
      return false;
    }
  return true;
}

static void
emu_meminfo (const struct emu_opts *o)
{
  const char *name = "/proc/meminfo";
  unsigned long long kb;
  if (o->mem < 0)
    {
      emu_skip (name);
      return;
    }
  if (!emu_read (name, name))
    return;
  const char *l = strstr (filebuf, "MemTotal:");
  if (!l || sscanf (l, "MemTotal: %llu kB", &kb) != 1)
    emu_fail (name, "no MemTotal line");
  else if (kb != (unsigned long long) o->mem / 1024)
    emu_fail (name, "expected MemTotal %lld kB, got %llu kB", o->mem / 1024, kb);
  else
    emu_ok (name);
}

static void
emu_cpu_lines (const struct emu_opts *o, const char *path, const char *prefix, bool digit)
{
  if (o->cpus < 0)
    {
      emu_skip (path);
      return;
    }
  if (!emu_read (path, path))
    return;
  long n = count_lines (filebuf, prefix, digit);
  if (n != o->cpus)
    emu_fail (path, "expected %ld \"%s\" lines, got %ld", o->cpus, prefix, n);
  else
    emu_ok (path);
}

static void
emu_uptime (void)
{
  const char *name = "/proc/uptime";
  double up, idle;
  if (!emu_read (name, name))
    return;
  if (sscanf (filebuf, "%lf %lf", &up, &idle) != 2)
    emu_fail (name, "does not parse: %.40s", filebuf);
  else if (up < 0 || up >= 600)
    emu_fail (name, "expected uptime < 600 s, got %.2f", up);
  else
    emu_ok (name);
}

/* "0.00 0.01 0.05 1/123 4567": three averages, running/total, the last pid.  */
static void
emu_loadavg (void)
{
  const char *name = "/proc/loadavg";
  double a1, a5, a15;
  long running, total, last;
  char extra;
  if (!emu_read (name, name))
    return;
  if (sscanf (filebuf, "%lf %lf %lf %ld/%ld %ld %c", &a1, &a5, &a15, &running, &total, &last,
              &extra)
      != 6)
    emu_fail (name, "expected 5 fields, got: %.60s", filebuf);
  else
    emu_ok (name);
}

/* The kernel's cpulist format for CPUs 0..n-1: "0", "0-1", "0-3".  */
static void
emu_cpulist (const struct emu_opts *o, const char *path)
{
  char want[32];
  if (o->cpus < 0)
    {
      emu_skip (path);
      return;
    }
  if (o->cpus == 1)
    snprintf (want, sizeof want, "0\n");
  else
    snprintf (want, sizeof want, "0-%ld\n", o->cpus - 1);
  if (!emu_read (path, path))
    return;
  if (strcmp (filebuf, want) != 0)
    {
      want[strlen (want) - 1] = '\0';
      filebuf[strcspn (filebuf, "\n")] = '\0';
      emu_fail (path, "expected \"%s\", got \"%s\"", want, filebuf);
    }
  else
    emu_ok (path);
}

static bool
parse_num (const char *s, long long *out)
{
  char *end;
  errno = 0;
  long long v = strtoll (s, &end, 0);
  if (errno || end == s || *end || v < 0)
    return false;
  *out = v;
  return true;
}

static int
cmd_emulate (int argc, char **argv)
{
  struct emu_opts o = { -1, -1, NULL, NULL };
  for (int i = 2; i < argc; i += 2)
    {
      long long v;
      const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
      if (!val)
        goto usage;
      if (strcmp (a, "--mem") == 0 && parse_num (val, &v))
        o.mem = v;
      else if (strcmp (a, "--cpus") == 0 && parse_num (val, &v) && v > 0)
        o.cpus = (long) v;
      else if (strcmp (a, "--release") == 0)
        o.release = val;
      else if (strcmp (a, "--hostname") == 0)
        o.hostname = val;
      else
        goto usage;
    }
  emu_uname (&o);
  emu_sysinfo (&o);
  emu_affinity (&o);
  emu_meminfo (&o);
  emu_cpu_lines (&o, "/proc/cpuinfo", "processor", false);
  emu_cpu_lines (&o, "/proc/stat", "cpu", true);
  emu_uptime ();
  emu_loadavg ();
  emu_cpulist (&o, "/sys/devices/system/cpu/online");
  emu_cpulist (&o, "/sys/devices/system/cpu/possible");
  fflush (stdout);
  return emu_failed ? 1 : 0;
usage:
  fprintf (stderr, "usage: probe emulate [--mem BYTES] [--cpus N] [--release R] [--hostname H]\n");
  return 2;
}

/* ---- mount and loop -------------------------------------------------------------------- */

static int
cmd_mount (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: probe mount DIR\n");
      return 2;
    }
  const char *dir = argv[2];
  struct stat st;
  /* mkdir only where it is missing: on a read-only rootfs it would fail even for a directory
     that is there.  */
  if (stat (dir, &st) < 0 && mkdir (dir, 0755) < 0)
    {
      printf ("mount: mkdir %s: %s\n", dir, errno_name (errno));
      return 1;
    }
  if (mount ("none", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0)
    {
      printf ("mount: %s\n", errno_name (errno));
      return 1;
    }
  puts ("mounted");
  umount2 (dir, MNT_DETACH);
  return 0;
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
cmd_loop (int argc, char **argv)
{
  long long n;
  if (argc < 4 || !parse_num (argv[2], &n) || n <= 0)
    goto usage;
  const char *call = argv[3];
  bool openclose = strcmp (call, "openclose") == 0;
  if (openclose ? argc != 5 : argc != 4)
    goto usage;
  if (!openclose && strcmp (call, "getppid") != 0 && strcmp (call, "uname") != 0)
    goto usage;
  struct utsname u;
  double t0 = now_s ();
  for (long long i = 0; i < n; i++)
    {
      if (call[0] == 'g')
        syscall (SYS_getppid);
      else if (call[0] == 'u')
        uname (&u);
      else
        {
          int fd = open (argv[4], O_RDONLY | O_CLOEXEC);
          if (fd < 0)
            {
              printf ("open %s: %s\n", argv[4], errno_name (errno));
              return 1;
            }
          close (fd);
        }
    }
  double t = now_s () - t0;
  printf ("%s: %lld calls in %.3f s, %.3f us per call\n", call, n, t, t * 1e6 / (double) n);
  return 0;
usage:
  fprintf (stderr, "usage: probe loop N getppid|uname|openclose PATH\n");
  return 2;
}

/* ---- flood ---------------------------------------------------------------------------- */

/* Socket buffers the kernel holds for the workload: each connection's send queue and its
   peer's receive queue fill up (the peer never reads) until TCP, or the cgroup's socket
   memory limit, refuses more.  */
static int
cmd_flood (int argc, char **argv)
{
  static char buf[65536];
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t alen = sizeof a;
  long n = argc == 3 ? atol (argv[2]) : 0, made = 0;
  long long queued = 0;
  int l = socket (AF_INET, SOCK_STREAM, 0);

  if (argc != 3 || n <= 0)
    {
      fprintf (stderr, "usage: probe flood N\n");
      return 2;
    }
  if (l < 0 || bind (l, (struct sockaddr *) &a, sizeof a) < 0 || listen (l, (int) n) < 0
      || getsockname (l, (struct sockaddr *) &a, &alen) < 0)
    {
      printf ("flood: listen: %s\n", errno_name (errno));
      return 1;
    }
  memset (buf, 'x', sizeof buf);
  for (; made < n; made++)
    {
      int c = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      struct pollfd p = { .fd = l, .events = POLLIN };
      /* Under memory pressure the handshake itself may be dropped and retried for ever: a
         connection not accepted within 2 s ends the flood.  */
      if (c < 0 || (connect (c, (struct sockaddr *) &a, sizeof a) < 0 && errno != EINPROGRESS)
          || poll (&p, 1, 2000) != 1 || accept (l, NULL, NULL) < 0)
        break;
      for (int stalls = 0; stalls < 20;)
        {
          ssize_t w = send (c, buf, sizeof buf, MSG_NOSIGNAL);
          if (w > 0)
            {
              queued += w;
              stalls = 0;
              continue;
            }
          if (w < 0 && errno != EAGAIN)
            break;
          /* The peer's window may open again as its queue is collapsed: a few retries.  */
          stalls++;
          usleep (1000);
        }
    }
  printf ("flood: %ld connections, %lld MiB queued\n", made, queued >> 20);
  fflush (stdout);
  for (;;)
    pause ();
}

/* ---- hold ----------------------------------------------------------------------------- */

static int
cmd_hold (int argc, char **argv)
{
  bool fan;
  long n, made = 0;
  int e = 0;

  if (argc != 4 || (strcmp (argv[2], "inotify") != 0 && strcmp (argv[2], "fanotify") != 0))
    {
      fprintf (stderr, "usage: probe hold inotify|fanotify N\n");
      return 2;
    }
  fan = strcmp (argv[2], "fanotify") == 0;
  n = atol (argv[3]);
  for (; made < n; made++)
    {
      /* FAN_CLASS_NOTIF | FAN_REPORT_FID: the group an unprivileged caller may make too.  */
      long fd = fan ? syscall (SYS_fanotify_init, 0x200L, 0L) : syscall (SYS_inotify_init1, 0L);
      if (fd < 0)
        {
          e = errno;
          break;
        }
    }
  printf ("%s: %ld made, then %s\n", argv[2], made, e ? errno_name (e) : "none");
  fflush (stdout);
  for (;;)
    pause ();
}

/* ---- watch ---------------------------------------------------------------------------- */

static int
cmd_watch (int argc, char **argv)
{
  char dir[4096];
  bool fan;
  long n, made = 0;
  int e = 0, group, dfd;

  if (argc != 5 || (strcmp (argv[2], "inotify") != 0 && strcmp (argv[2], "fanotify") != 0))
    {
      fprintf (stderr, "usage: probe watch inotify|fanotify N DIR\n");
      return 2;
    }
  fan = strcmp (argv[2], "fanotify") == 0;
  n = atol (argv[3]);
  snprintf (dir, sizeof dir, "%s/probe-watch.%d", argv[4], (int) getpid ());
  if (mkdir (dir, 0700) < 0 || (dfd = open (dir, O_RDONLY | O_DIRECTORY)) < 0)
    {
      perror (dir);
      return 1;
    }
  /* FAN_CLASS_NOTIF | FAN_REPORT_FID: the group an unprivileged caller may make too.  */
  group = (int) (fan ? syscall (SYS_fanotify_init, 0x200L, 0L) : syscall (SYS_inotify_init1, 0L));
  if (group < 0)
    {
      perror (argv[2]);
      return 1;
    }
  for (; made < n; made++)
    {
      char name[32];
      long r;
      int fd;

      snprintf (name, sizeof name, "%ld", made);
      fd = openat (dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
      if (fd < 0)
        {
          perror (name);
          return 1;
        }
      close (fd);
      /* Each file is an inode of its own: a watch (mark) each.  */
      if (fan)
        r = syscall (SYS_fanotify_mark, group, 0x1L /* FAN_MARK_ADD */, 0x2ULL /* FAN_MODIFY */,
                     dfd, name);
      else
        {
          char path[4200];
          snprintf (path, sizeof path, "%s/%s", dir, name);
          r = syscall (SYS_inotify_add_watch, group, path, 0x2L /* IN_MODIFY */);
        }
      if (r < 0)
        {
          e = errno;
          break;
        }
    }
  printf ("%s watches: %ld made, then %s\n", argv[2], made, e ? errno_name (e) : "none");
  fflush (stdout);
  for (;;)
    pause ();
}

/* ---- fdscan --------------------------------------------------------------------------- */

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e3 + (double) t.tv_nsec / 1e6;
}

/* P processes holding FDS fds each (the supervisor's count of inotify instances reads every fd
   table of the container), then N inotify_init1 calls, each timed and closed.  */
static int
cmd_fdscan (int argc, char **argv)
{
  long procs, fds, n, ok = 0, emfile = 0, other = 0;
  double worst = 0, total = 0;
  int ready[2];
  pid_t kids[1024];

  if (argc != 5 || atol (argv[2]) > 1024)
    {
      fprintf (stderr, "usage: probe fdscan PROCS(<=1024) FDS N\n");
      return 2;
    }
  procs = atol (argv[2]);
  fds = atol (argv[3]);
  n = atol (argv[4]);
  if (pipe (ready) < 0)
    return 1;
  for (long p = 0; p < procs; p++)
    if ((kids[p] = fork ()) == 0)
      {
        for (long i = 0; i < fds; i++)
          if (dup (0) < 0)
            {
              fprintf (stderr, "fdscan: dup: %s\n", strerror (errno));
              _exit (1);
            }
        (void) !write (ready[1], "x", 1);
        for (;;)
          pause ();
      }
  for (long p = 0; p < procs; p++)
    {
      char c;
      if (read (ready[0], &c, 1) != 1)
        return 1;
    }
  for (long i = 0; i < n; i++)
    {
      double t0 = now_ms (), dt;
      long fd = syscall (SYS_inotify_init1, 0L);
      dt = now_ms () - t0;
      total += dt;
      if (dt > worst)
        worst = dt;
      if (fd >= 0)
        {
          ok++;
          close ((int) fd);
        }
      else if (errno == EMFILE)
        emfile++;
      else
        other++;
    }
  printf ("fdscan: %ld procs x %ld fds: %ld calls, mean %.1f ms, max %.1f ms, ok %ld, EMFILE %ld, "
          "other %ld\n",
          procs, fds, n, total / (double) n, worst, ok, emfile, other);
  fflush (stdout);
  for (long p = 0; p < procs; p++)
    kill (kids[p], SIGKILL);
  while (wait (NULL) > 0)
    ;
  return 0;
}

/* ---- orphan --------------------------------------------------------------------------- */

static void *
orphan_thread (void *arg)
{
  (void) arg;
  printf ("orphan: thread %ld running\n", (long) syscall (SYS_gettid));
  fflush (stdout);
  for (;;)
    pause ();
  return NULL;
}

static void *
thread_noop (void *arg)
{
  return arg;
}

static int
cmd_threads (long n)
{
  pthread_t *t = calloc ((size_t) n, sizeof *t);
  long made = 0, joined = 0;

  if (t == NULL)
    return 1;
  for (; made < n; made++)
    if (pthread_create (&t[made], NULL, thread_noop, NULL) != 0)
      break;
  for (long i = 0; i < made; i++)
    if (pthread_join (t[i], NULL) == 0)
      joined++;
  printf ("threads: %ld made, %ld joined\n", made, joined);
  free (t);
  return joined == n ? 0 : 1;
}

/* affinity: sched_getaffinity of another thread (pinned to CPU `cpu`) by its tid, then with a
   buffer of one byte and a negative pid; one line each: the CPUs ("1", "0 1") or the errno.  */
static pthread_barrier_t aff_ready, aff_done;
static pid_t aff_tid;

static void *
aff_thread (void *arg)
{
  cpu_set_t set;

  CPU_ZERO (&set);
  CPU_SET ((int) (long) arg, &set);
  if (sched_setaffinity (0, sizeof set, &set) < 0)
    perror ("sched_setaffinity");
  aff_tid = (pid_t) syscall (SYS_gettid);
  pthread_barrier_wait (&aff_ready);
  pthread_barrier_wait (&aff_done);
  return NULL;
}

static void
aff_print (const char *what, long r, const cpu_set_t *set)
{
  printf ("%s:", what);
  if (r < 0)
    printf (" %s", errno_name (errno));
  for (int c = 0; r >= 0 && c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, set))
      printf (" %d", c);
  printf ("\n");
}

static int
cmd_affinity (int cpu)
{
  pthread_t t;
  cpu_set_t set;
  long r;

  pthread_barrier_init (&aff_ready, NULL, 2);
  pthread_barrier_init (&aff_done, NULL, 2);
  if (pthread_create (&t, NULL, aff_thread, (void *) (long) cpu) != 0)
    return 1;
  pthread_barrier_wait (&aff_ready);
  CPU_ZERO (&set);
  r = syscall (SYS_sched_getaffinity, aff_tid, sizeof set, &set);
  aff_print ("thread", r, &set);
  pthread_barrier_wait (&aff_done);
  pthread_join (t, NULL);
  r = syscall (SYS_sched_getaffinity, 0, 1, &set);
  aff_print ("size1", r, &set);
  r = syscall (SYS_sched_getaffinity, -1, sizeof set, &set);
  aff_print ("pid-1", r, &set);
  return 0;
}

static int
cmd_orphan (void)
{
  pthread_t t;

  if (pthread_create (&t, NULL, orphan_thread, NULL) != 0)
    {
      fprintf (stderr, "probe orphan: pthread_create failed\n");
      return 1;
    }
  /* The main thread alone, as pthread_exit does once libc's cleanups have run.  */
  for (;;)
    syscall (SYS_exit, 0);
}

/* ---- landlock: what the second wall refuses (tests/landlock.bats) ---------------------- */

static void
ll_print (const char *what, long r)
{
  if (r < 0)
    printf ("%s: %s\n", what, errno_name (errno));
  else
    printf ("%s: %ld\n", what, r);
}

/* Connect to the abstract unix socket @NAME (stream).  */
static long
ll_abstract_connect (const char *name)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t n = strlen (name);
  int s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  long r;

  if (s < 0 || n + 1 > sizeof sa.sun_path)
    return -1;
  memcpy (sa.sun_path + 1, name, n);
  r = connect (s, (struct sockaddr *) &sa,
               (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + n));
  close (s);
  return r;
}

/* One of our own: listen on @NAME here, then connect to it.  */
static long
ll_abstract_self (const char *name)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t n = strlen (name);
  int s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  long r;

  if (s < 0 || n + 1 > sizeof sa.sun_path)
    return -1;
  memcpy (sa.sun_path + 1, name, n);
  if (bind (s, (struct sockaddr *) &sa,
            (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + n))
          < 0
      || listen (s, 4) < 0)
    {
      close (s);
      return -1;
    }
  r = ll_abstract_connect (name);
  close (s);
  return r;
}

/* A TCP listener on 127.0.0.1 (any port), then a connect to it, then a TCP Fast Open sendto to
   it: a connect made by sendto, which the supervisor never sees.  */
static int
ll_tcp (void)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  int l = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c, f;

  if (l < 0 || bind (l, (struct sockaddr *) &sa, sizeof sa) < 0 || listen (l, 8) < 0
      || getsockname (l, (struct sockaddr *) &sa, &len) < 0)
    {
      ll_print ("listen", -1);
      return 1;
    }
  ll_print ("listen", 0);
  c = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ll_print ("connect", connect (c, (struct sockaddr *) &sa, sizeof sa));
  f = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ll_print ("fastopen", sendto (f, "x", 1, MSG_FASTOPEN, (struct sockaddr *) &sa, sizeof sa));
  close (c);
  close (f);
  close (l);
  return 0;
}

/* probe landlock kill PID SIG | abstract NAME | abstract-self NAME | tcp  */
static int
cmd_landlock (int argc, char **argv)
{
  if (argc == 5 && strcmp (argv[2], "kill") == 0)
    ll_print ("kill", kill ((pid_t) atol (argv[3]), atoi (argv[4])));
  else if (argc == 4 && strcmp (argv[2], "abstract") == 0)
    ll_print ("abstract", ll_abstract_connect (argv[3]));
  else if (argc == 4 && strcmp (argv[2], "abstract-self") == 0)
    ll_print ("abstract-self", ll_abstract_self (argv[3]));
  else if (argc == 3 && strcmp (argv[2], "tcp") == 0)
    return ll_tcp ();
  else
    return 2;
  return 0;
}

int
main (int argc, char **argv)
{
  /* One line per check, in order, even when stdout is a pipe and children print nothing.  */
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (argc >= 2 && strcmp (argv[1], "deny") == 0)
    return cmd_deny (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "emulate") == 0)
    return cmd_emulate (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "mount") == 0)
    return cmd_mount (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "loop") == 0)
    return cmd_loop (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "hold") == 0)
    return cmd_hold (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "fdscan") == 0)
    return cmd_fdscan (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "flood") == 0)
    return cmd_flood (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "watch") == 0)
    return cmd_watch (argc, argv);
  if (argc >= 2 && strcmp (argv[1], "landlock") == 0)
    return cmd_landlock (argc, argv);
  if (argc == 2 && strcmp (argv[1], "orphan") == 0)
    return cmd_orphan ();
  if (argc == 3 && strcmp (argv[1], "threads") == 0 && atol (argv[2]) > 0)
    return cmd_threads (atol (argv[2]));
  if (argc == 3 && strcmp (argv[1], "affinity") == 0)
    return cmd_affinity (atoi (argv[2]));
  fprintf (stderr,
           "usage: probe deny [--list | NAME...] | emulate [OPTIONS] | mount DIR | loop N CALL | "
           "hold KIND N | flood N | watch KIND N DIR | fdscan PROCS FDS N | threads N | "
           "orphan | affinity CPU | landlock kill PID SIG|abstract NAME|abstract-self NAME|tcp\n");
  return 2;
}
