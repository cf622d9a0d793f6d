#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/capability.h>
#include <string.h>
#include <sys/prctl.h>

#include "caps.h"
#include "log.h"
#include "supervisor/confine.h"

static bool
kept (const cap_value_t *keep, int n, int c)
{
  for (int i = 0; i < n; i++)
    if (keep[i] == c)
      return true;
  return false;
}

static int
drop_caps (enum confine_role role, ar_error_t *err)
{
  /* The worker: pidfd_getfd (PTRACE), and, for the AF_UNIX connects it does in a thread that
     takes on the caller's root and fs ids (handlers/egress.c), SETUID, SETGID and SYS_CHROOT.  */
  cap_value_t keep[] = { CAP_KILL, CAP_SYS_PTRACE, CAP_SETUID, CAP_SETGID, CAP_SYS_CHROOT };
  int nkeep = role == CONFINE_BROKER ? 5 : role == CONFINE_WORKER ? 2 : 1;
  cap_t caps;
  int last = caps_last_cap ();

  for (int c = 0; c <= last; c++)
    if (!kept (keep, nkeep, c) && prctl (PR_CAPBSET_DROP, c) < 0 && errno != EINVAL)
      return ar_make_error (err, errno, "supervisor: drop capability %d from the bounding set", c);
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return ar_make_error (err, errno, "supervisor: clear ambient capabilities");
  caps = cap_init ();
  if (caps == NULL || cap_set_flag (caps, CAP_PERMITTED, nkeep, keep, CAP_SET) < 0
      || cap_set_flag (caps, CAP_EFFECTIVE, nkeep, keep, CAP_SET) < 0 || cap_set_proc (caps) < 0)
    {
      int e = errno;
      cap_free (caps);
      return ar_make_error (err, e, "supervisor: drop capabilities");
    }
  cap_free (caps);
  return 0;
}

/* What the supervisor never does once it serves: run programs, change mounts or namespaces,
   load kernel code, trace or write into processes other than by process_vm_writev.  The
   worker's one exception: unshare (CLONE_FS) and chroot, for a thread's own view of the
   caller's filesystem (handlers/egress.c).  */
static const char *const refused[] = {
  "execve",
  "execveat",
  "mount",
  "umount2",
  "pivot_root",
  "move_mount",
  "open_tree",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "setns",
  "unshare",
  "ptrace",
  "bpf",
  "perf_event_open",
  "init_module",
  "finit_module",
  "delete_module",
  "kexec_load",
  "kexec_file_load",
  "reboot",
  "swapon",
  "swapoff",
  "keyctl",
  "add_key",
  "request_key",
  "userfaultfd",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "open_by_handle_at",
  "name_to_handle_at",
  "chroot",
  "personality",
  "acct",
  "syslog",
  "iopl",
  "ioperm",
  "settimeofday",
  "clock_settime",
  "adjtimex",
  "clock_adjtime",
  "fork",
  "vfork",
};

static bool
broker_may (enum confine_role role, const char *name)
{
  return role == CONFINE_BROKER && strcmp (name, "chroot") == 0;
}

static int
own_filter (enum confine_role role, ar_error_t *err)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  int r = 0;

  if (ctx == NULL)
    return ar_make_error (err, ENOMEM, "supervisor: seccomp_init");
  for (size_t i = 0; i < sizeof refused / sizeof refused[0] && r == 0; i++)
    {
      int nr = seccomp_syscall_resolve_name (refused[i]);
      if (nr == __NR_SCMP_ERROR || broker_may (role, refused[i]))
        continue;
      if (role == CONFINE_BROKER && nr == SCMP_SYS (unshare))
        r = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), nr, 1,
                              SCMP_A0 (SCMP_CMP_NE, (scmp_datum_t) CLONE_FS));
      else
        r = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), nr, 0);
    }
  /* glibc falls back to clone only on ENOSYS.  */
  if (r == 0)
    r = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (clone3), 0);
  /* Threads are made with clone(CLONE_THREAD…); a new process never is.  */
  if (r == 0)
    r = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (clone), 1,
                          SCMP_A0 (SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  /* Every thread, should there be any by now.  */
  if (r == 0)
    r = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  if (r == 0)
    r = seccomp_load (ctx); /* sets no_new_privs first */
  seccomp_release (ctx);
  if (r < 0)
    return ar_make_error (err, -r, "supervisor: install its own seccomp filter");
  return 0;
}

int
confine_supervisor (enum confine_role role, ar_error_t *err)
{
  if (drop_caps (role, err) < 0)
    return -1;
  return own_filter (role, err);
}
