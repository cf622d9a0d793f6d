/* x86_64's own syscalls (the legacy ones asm-generic dropped: open, stat, fork…, and the
   x86 specifics), and its table: the generic part, then these.  i386 and x32 calls never
   reach the table: the filter kills the process for any other ABI.  */
#include <config.h>

#include <seccomp.h>

#include "policy/table.h"

static const struct sc_entry x86_64_entries[] = {
  /* deny: I/O ports and the LDT are hardware a container has no business with.  */
  DENY (ioperm, "deny-ioport"),
  DENY (iopl, "deny-ioport"),
  DENY (modify_ldt, "deny-ldt"),

  DENY_OBSOLETE (_sysctl),
  DENY_OBSOLETE (afs_syscall),
  DENY_OBSOLETE (create_module),
  DENY_OBSOLETE (epoll_ctl_old),
  DENY_OBSOLETE (epoll_wait_old),
  DENY_OBSOLETE (get_kernel_syms),
  DENY_OBSOLETE (getpmsg),
  DENY_OBSOLETE (putpmsg),
  DENY_OBSOLETE (query_module),
  DENY_OBSOLETE (security),
  DENY_OBSOLETE (sysfs),
  DENY_OBSOLETE (tuxcall),
  DENY_OBSOLETE (uselib),
  DENY_OBSOLETE (ustat),
  DENY_OBSOLETE (vserver),

  /* supervise: the old inotify_init, counted with inotify_init1 (table_generic.c).  */
  SUPERVISE (inotify_init, SH_FSNOTIFY, SEV_WARN, "limit-fsnotify"),

  /* allow: the pre-*at path calls and the rest of the old ABI libc still uses.  fork and
     vfork take no flags, so they cannot ask for namespaces.  On the strict allowlist: what
     the corpus, glibc, musl and static binaries (busybox, Go) still call, getdents and
     epoll_create included.  Out of it: the 32-bit TLS calls (x86_64 uses arch_prctl), and
     the old forms every libc has replaced (eventfd and signalfd by their *2/4 forms, futimesat,
     utime and utimes by utimensat, mknod by mknodat, pipe by pipe2, select by pselect6, fork
     by clone); time, which the vDSO answers from its own data whatever the clock source
     (gettimeofday stays: the vDSO falls back to the call when the clock source is not one it
     can read).  */
  STRICT (access),
  STRICT (alarm),
  STRICT (arch_prctl),
  STRICT (chmod),
  STRICT (chown),
  STRICT (creat),
  STRICT (dup2),
  STRICT (epoll_create),
  STRICT (epoll_wait),
  ALLOW (eventfd),
  ALLOW (fork),
  ALLOW (futimesat),
  ALLOW (get_thread_area),
  STRICT (getdents),
  STRICT (getpgrp),
  STRICT (lchown),
  STRICT (link),
  STRICT (lstat),
  STRICT (mkdir),
  ALLOW (mknod),
  STRICT (open),
  STRICT (pause),
  ALLOW (pipe),
  STRICT (poll),
  STRICT (readlink),
  STRICT (rename),
  STRICT (rmdir),
  ALLOW (select),
  ALLOW (set_thread_area),
  ALLOW (signalfd),
  STRICT (stat),
  STRICT (symlink),
  ALLOW (time),
  STRICT (unlink),
  ALLOW (utime),
  ALLOW (utimes),
  STRICT (vfork),

  /* Newer than libseccomp 2.5.4 (arch/x86/entry/syscalls/syscall_64.tbl): the return and
     entry trampolines of user-space probes, which the kernel itself places in the process
     (strict too: refusing them would break any process the host probes).  */
  STRICT_NEW (uretprobe, 335),
  STRICT_NEW (uprobe, 336),
  TABLE_END,
};

static const struct sc_entry *const x86_64_parts[] = { sc_generic_entries, x86_64_entries, NULL };

const struct sc_table sc_table_x86_64 = {
  .arch = "x86_64",
  .scmp_arch = SCMP_ARCH_X86_64,
  .parts = x86_64_parts,
};
