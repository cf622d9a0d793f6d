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
     vfork take no flags, so they cannot ask for namespaces.  */
  ALLOW (access),
  ALLOW (alarm),
  ALLOW (arch_prctl),
  ALLOW (chmod),
  ALLOW (chown),
  ALLOW (creat),
  ALLOW (dup2),
  ALLOW (epoll_create),
  ALLOW (epoll_wait),
  ALLOW (eventfd),
  ALLOW (fork),
  ALLOW (futimesat),
  ALLOW (get_thread_area),
  ALLOW (getdents),
  ALLOW (getpgrp),
  ALLOW (lchown),
  ALLOW (link),
  ALLOW (lstat),
  ALLOW (mkdir),
  ALLOW (mknod),
  ALLOW (open),
  ALLOW (pause),
  ALLOW (pipe),
  ALLOW (poll),
  ALLOW (readlink),
  ALLOW (rename),
  ALLOW (rmdir),
  ALLOW (select),
  ALLOW (set_thread_area),
  ALLOW (signalfd),
  ALLOW (stat),
  ALLOW (symlink),
  ALLOW (time),
  ALLOW (unlink),
  ALLOW (utime),
  ALLOW (utimes),
  ALLOW (vfork),

  /* Newer than libseccomp 2.5.4 (arch/x86/entry/syscalls/syscall_64.tbl): the return and
     entry trampolines of user-space probes, which the kernel itself places in the process.  */
  ALLOW_NEW (uretprobe, 335),
  ALLOW_NEW (uprobe, 336),
  TABLE_END,
};

static const struct sc_entry *const x86_64_parts[] = { sc_generic_entries, x86_64_entries, NULL };

const struct sc_table sc_table_x86_64 = {
  .arch = "x86_64",
  .scmp_arch = SCMP_ARCH_X86_64,
  .parts = x86_64_parts,
};
