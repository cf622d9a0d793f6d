#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init/caps.h"
#include "log.h"
#include "supervisor/confine.h"
#include "utils.h"

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
  int nkeep = role == CONFINE_BROKER ? 5 : role == CONFINE_WATCHDOG ? 1 : 2;
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
   exceptions: the broker's unshare (CLONE_FS) and chroot, for a thread's own view of the
   caller's filesystem (handlers/egress.c), and the tracer's ptrace (tracer.h).  Numbers, not
   names: a name this architecture lacks (fork on aarch64) is left out at build time.  */
static const int refused[] = {
  SYS_execve,
  SYS_execveat,
  SYS_mount,
  SYS_umount2,
  SYS_pivot_root,
  SYS_move_mount,
  SYS_open_tree,
  SYS_fsopen,
  SYS_fsconfig,
  SYS_fsmount,
  SYS_fspick,
  SYS_mount_setattr,
  SYS_setns,
  SYS_ptrace,
  SYS_bpf,
  SYS_perf_event_open,
  SYS_init_module,
  SYS_finit_module,
  SYS_delete_module,
  SYS_kexec_load,
  SYS_kexec_file_load,
  SYS_reboot,
  SYS_swapon,
  SYS_swapoff,
  SYS_keyctl,
  SYS_add_key,
  SYS_request_key,
  SYS_userfaultfd,
  SYS_io_uring_setup,
  SYS_io_uring_enter,
  SYS_io_uring_register,
  SYS_open_by_handle_at,
  SYS_name_to_handle_at,
  SYS_personality,
  SYS_acct,
  SYS_syslog,
  SYS_settimeofday,
  SYS_clock_settime,
  SYS_adjtimex,
  SYS_clock_adjtime,
#ifdef SYS_iopl
  SYS_iopl,
#endif
#ifdef SYS_ioperm
  SYS_ioperm,
#endif
#ifdef SYS_fork
  SYS_fork,
#endif
#ifdef SYS_vfork
  SYS_vfork,
#endif
};

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LO offsetof (struct seccomp_data, args[0])
#define ARG0_HI (offsetof (struct seccomp_data, args[0]) + 4)
#else
#define ARG0_LO (offsetof (struct seccomp_data, args[0]) + 4)
#define ARG0_HI offsetof (struct seccomp_data, args[0])
#endif

#define FILTER_MAX 128

/* A filter under construction: jumps to the returns at its end are patched once they exist.  */
struct prog
{
  struct sock_filter f[FILTER_MAX];
  unsigned n;
};

static unsigned
emit (struct prog *p, struct sock_filter insn)
{
  if (p->n >= FILTER_MAX)
    abort (); /* FILTER_MAX is too small for the filters built here: a bug */
  p->f[p->n] = insn;
  return p->n++;
}

/* Point the jump at `at` (its true branch, or its false one) to `to`.  */
static void
patch (struct prog *p, unsigned at, unsigned to, bool true_branch)
{
  if (true_branch)
    p->f[at].jt = (unsigned char) (to - at - 1);
  else
    p->f[at].jf = (unsigned char) (to - at - 1);
}

static unsigned
jeq (struct prog *p, unsigned k)
{
  return emit (p, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0));
}

static unsigned
ret (struct prog *p, unsigned action)
{
  return emit (p, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, action));
}

static unsigned
load (struct prog *p, unsigned offset)
{
  return emit (p, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offset));
}

/* The requests the tracer makes (tracer.c): no PTRACE_ATTACH, no PEEK or POKE.  */
static const unsigned tracer_requests[] = {
  PTRACE_SEIZE,     PTRACE_CONT,    PTRACE_LISTEN, PTRACE_GET_SYSCALL_INFO,
  PTRACE_INTERRUPT, PTRACE_DETACH,
#if defined(__x86_64__)
  PTRACE_GETREGS,   PTRACE_SETREGS,
#else
  PTRACE_GETREGSET, PTRACE_SETREGSET,
#endif
};

/* The watchdog's, which holds the kill switch of the other platforms (supervisor.h): it only
   ends the stops of the init it traces (seized before it confined itself) and of the threads
   the init makes (traced from their birth, PTRACE_O_TRACECLONE: GETEVENTMSG names them).  */
static const unsigned watchdog_requests[] = { PTRACE_CONT, PTRACE_LISTEN, PTRACE_GETEVENTMSG };

/* ptrace for a role that traces: its requests (all 64 bits of them) allowed, the rest
   refused.  */
struct ptrace_check
{
  const unsigned *requests;
  size_t n;
  unsigned at, hi_zero, req[ARRAY_SIZE (tracer_requests)];
};

static unsigned
emit_ptrace_check (struct prog *p, struct ptrace_check *k)
{
  unsigned first = load (p, ARG0_HI);

  k->hi_zero = jeq (p, 0);
  load (p, ARG0_LO);
  for (size_t i = 0; i < k->n; i++)
    k->req[i] = jeq (p, k->requests[i]);
  return first;
}

static void
patch_ptrace_check (struct prog *p, const struct ptrace_check *k, unsigned chk, unsigned allow,
                    unsigned eperm)
{
  size_t last = k->n - 1;

  patch (p, k->at, chk, true);
  patch (p, k->hi_zero, eperm, false);
  for (size_t i = 0; i <= last; i++)
    patch (p, k->req[i], allow, true);
  patch (p, k->req[last], eperm, false);
}

/* The supervisor's own filter, built here rather than by libseccomp: the watchdog and the
   worker load one at every container start, and libseccomp's generation cost ~0.3 ms of it on
   this kind of VM.  Everything is allowed but `refused`, unshare and chroot (EPERM), clone3
   (ENOSYS: glibc then falls back to clone) and clone without CLONE_THREAD (EPERM: threads
   only); the broker may unshare (CLONE_FS, all 64 bits of it) and chroot, and the tracer and
   the watchdog make their own ptrace requests.  Another architecture, or x32, is killed.  What is
   allowed depends on the number alone (but for clone, unshare and ptrace), so the kernel's action
   cache answers it without running the filter.  */
static void
build_filter (enum confine_role role, struct prog *p)
{
  unsigned eq[ARRAY_SIZE (refused) + 2], n_eq = 0, clone3_at, clone_at, unshare_at = 0;
  unsigned clone_chk, clone_jset, unshare_chk = 0, hi_zero = 0, lo_fs = 0, ptrace_chk = 0;
  unsigned allow, eperm, enosys, kill_at;
  bool broker = role == CONFINE_BROKER;
  bool tracer = role == CONFINE_TRACER || role == CONFINE_WATCHDOG;
  struct ptrace_check pk = { .requests = tracer_requests, .n = ARRAY_SIZE (tracer_requests) };

  if (role == CONFINE_WATCHDOG)
    {
      pk.requests = watchdog_requests;
      pk.n = ARRAY_SIZE (watchdog_requests);
    }

  /* BPF jumps go forward only: the number tests, the argument tests, then the returns.  */
  p->n = 0;
  load (p, offsetof (struct seccomp_data, arch));
  emit (p, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SV_NATIVE_AUDIT_ARCH, 1, 0));
  ret (p, SECCOMP_RET_KILL_PROCESS);
  load (p, offsetof (struct seccomp_data, nr));
#if defined(__x86_64__)
  unsigned x32 = emit (
      p, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 0));
#endif
  for (size_t i = 0; i < ARRAY_SIZE (refused); i++)
    if (tracer && refused[i] == SYS_ptrace)
      pk.at = jeq (p, SYS_ptrace);
    else
      eq[n_eq++] = jeq (p, (unsigned) refused[i]);
  if (broker)
    unshare_at = jeq (p, SYS_unshare);
  else
    {
      eq[n_eq++] = jeq (p, SYS_unshare);
      eq[n_eq++] = jeq (p, SYS_chroot);
    }
  clone3_at = jeq (p, SYS_clone3);
  clone_at = jeq (p, SYS_clone);
  ret (p, SECCOMP_RET_ALLOW);
  /* clone: a thread, or refused.  */
  clone_chk = load (p, ARG0_LO);
  clone_jset
      = emit (p, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 0));
  if (broker)
    {
      unshare_chk = load (p, ARG0_HI);
      hi_zero = jeq (p, 0);
      load (p, ARG0_LO);
      lo_fs = jeq (p, CLONE_FS);
    }
  if (tracer)
    ptrace_chk = emit_ptrace_check (p, &pk);
  allow = ret (p, SECCOMP_RET_ALLOW);
  eperm = ret (p, SECCOMP_RET_ERRNO | EPERM);
  enosys = ret (p, SECCOMP_RET_ERRNO | ENOSYS);
  kill_at = ret (p, SECCOMP_RET_KILL_PROCESS);

#if defined(__x86_64__)
  patch (p, x32, kill_at, true);
#endif
  (void) kill_at;
  for (unsigned i = 0; i < n_eq; i++)
    patch (p, eq[i], eperm, true);
  patch (p, clone3_at, enosys, true);
  patch (p, clone_at, clone_chk, true);
  patch (p, clone_jset, allow, true);
  patch (p, clone_jset, eperm, false);
  if (tracer)
    patch_ptrace_check (p, &pk, ptrace_chk, allow, eperm);
  if (broker)
    {
      patch (p, unshare_at, unshare_chk, true);
      patch (p, hi_zero, eperm, false);
      patch (p, lo_fs, allow, true);
      patch (p, lo_fs, eperm, false);
    }
}

static int
own_filter (enum confine_role role, ar_error_t *err)
{
  struct prog p;
  struct sock_fprog prog;
  long r;

  build_filter (role, &p);
  prog = (struct sock_fprog){ .len = (unsigned short) p.n, .filter = p.f };
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return ar_make_error (err, errno, "supervisor: set no_new_privs");
  /* Every thread, should there be any by now: a thread that cannot take it makes this fail
     with its id, not -1.  */
  r = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (r != 0)
    return ar_make_error (err, r < 0 ? errno : EBUSY, "supervisor: install its own seccomp filter");
  return 0;
}

int
confine_supervisor (enum confine_role role, ar_error_t *err)
{
  if (drop_caps (role, err) < 0)
    return -1;
  return own_filter (role, err);
}
