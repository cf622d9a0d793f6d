/* The ptrace platform (tracer.h).  What a stop means follows ptrace(2) for PTRACE_SEIZE'd
   tracees, as strace reads it: status >> 16 is the event (0: a signal-delivery stop, whose
   signal is passed on when the tracee is resumed); PTRACE_EVENT_STOP with a stopping signal is
   a group stop, which PTRACE_LISTEN keeps (so that SIGCONT, not us, ends it), and with SIGTRAP
   the first stop of a process or thread traced since its birth.  A call is skipped the way the
   kernel's seccomp selftests do it: the syscall number becomes -1 and the return register
   holds the answer (x86_64: orig_rax and rax; aarch64: NT_ARM_SYSTEM_CALL and x0).  */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "log.h"
#include "seccomp/bpf.h"
#include "supervisor/tracer.h"
#include "utils.h"

#define TRACE_OPTIONS                                                                     \
  (PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE \
   | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

int
tracer_seize (pid_t pid, ar_error_t *err)
{
  if (ptrace (PTRACE_SEIZE, pid, 0, (void *) (uintptr_t) TRACE_OPTIONS) < 0)
    return ar_make_error (err, errno, "supervisor: trace pid %d (PTRACE_SEIZE)", (int) pid);
  return 0;
}

/* PTRACE_O_TRACECLONE: a thread (or a clone() child) the traced init makes is traced from its
   birth, with the same options (tracer.h: tracer_kill_switch_clone).  */
#define KILL_SWITCH_OPTIONS (PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE)

int
tracer_seize_kill_switch (pid_t pid, ar_error_t *err)
{
  if (ptrace (PTRACE_SEIZE, pid, 0, (void *) (uintptr_t) KILL_SWITCH_OPTIONS) < 0)
    return ar_make_error (err, errno,
                          "supervisor: trace the init for the kill switch (PTRACE_SEIZE)");
  return 0;
}

pid_t
tracer_kill_switch_clone (pid_t pid, int status)
{
  unsigned long tid = 0;

  if (!WIFSTOPPED (status) || (unsigned) status >> 16 != PTRACE_EVENT_CLONE
      || ptrace (PTRACE_GETEVENTMSG, pid, 0, &tid) < 0)
    return 0;
  return (pid_t) tid;
}

/* Processes to let go at their next stop (tracer_release): PTRACE_DETACH wants a stopped
   tracee, and waiting here for one that may never stop (a frozen cgroup, an uninterruptible
   sleep) would hold up every other tracee.  */
static pid_t releasing[8];

void
tracer_release (pid_t pid)
{
  if (ptrace (PTRACE_INTERRUPT, pid, 0, 0) < 0)
    return;
  for (size_t i = 0; i < ARRAY_SIZE (releasing); i++)
    if (releasing[i] == 0)
      {
        releasing[i] = pid;
        return;
      }
  /* More than 8 pids reused within microseconds of their check: keep the last one traced
     rather than block (its calls are the policy's, answered like the container's).  */
  ar_debug ("supervisor: pid %d seized by mistake stays traced", (int) pid);
}

/* A stop of a process being let go: detached, with the signal it stopped for, if any.  */
static bool
released (pid_t pid, int status)
{
  for (size_t i = 0; i < ARRAY_SIZE (releasing); i++)
    if (releasing[i] == pid)
      {
        releasing[i] = 0;
        (void) ptrace (PTRACE_DETACH, pid, 0,
                       (void *) (uintptr_t) ((unsigned) status >> 16 == 0 ? WSTOPSIG (status) : 0));
        return true;
      }
  return false;
}

static void
resume (pid_t pid, int sig)
{
  if (ptrace (PTRACE_CONT, pid, 0, (void *) (uintptr_t) sig) < 0 && errno != ESRCH)
    ar_debug ("supervisor: resume pid %d: %s", (int) pid, strerror (errno));
}

/* Skip the call the tracee is stopped in; it returns `ret` (a value, or -errno).  */
static int
skip_call (pid_t pid, long long ret)
{
#if defined(__x86_64__)
  struct user_regs_struct r;

  if (ptrace (PTRACE_GETREGS, pid, 0, &r) < 0)
    return -errno;
  r.orig_rax = (unsigned long long) -1;
  r.rax = (unsigned long long) ret;
  if (ptrace (PTRACE_SETREGS, pid, 0, &r) < 0)
    return -errno;
  return 0;
#elif defined(__aarch64__)
  struct user_regs_struct r;
  struct iovec regs = { &r, sizeof r };
  int nr = -1;
  struct iovec nr_io = { &nr, sizeof nr };

  if (ptrace (PTRACE_GETREGSET, pid, (void *) NT_PRSTATUS, &regs) < 0)
    return -errno;
  r.regs[0] = (unsigned long long) ret;
  if (ptrace (PTRACE_SETREGSET, pid, (void *) NT_PRSTATUS, &regs) < 0
      || ptrace (PTRACE_SETREGSET, pid, (void *) NT_ARM_SYSTEM_CALL, &nr_io) < 0)
    return -errno;
  return 0;
#else
#error "the ptrace platform knows the registers of x86_64 and aarch64 only"
#endif
}

/* The answer a handler built, carried out.  A call that could not be skipped must not run
   instead: its caller is killed (fail closed).  */
static void
answer (pid_t pid, const struct seccomp_notif_resp *resp)
{
  int r;

  if (resp->flags & SECCOMP_USER_NOTIF_FLAG_CONTINUE)
    {
      resume (pid, 0);
      return;
    }
  r = skip_call (pid, resp->error ? (long long) resp->error : resp->val);
  if (r == -ESRCH)
    return;
  if (r < 0)
    {
      ar_debug ("supervisor: answer pid %d: %s: killed", (int) pid, strerror (-r));
      (void) kill (pid, SIGKILL);
      return;
    }
  resume (pid, 0);
}

/* A seccomp stop: the call made up as a notification and handed to the same handlers.  */
static void
on_seccomp_stop (struct sv *sv, pid_t pid)
{
  static __u64 seq;
  struct __ptrace_syscall_info info;
  struct seccomp_notif req = { 0 };
  struct seccomp_notif_resp resp;
  struct sv_record record = { .stale_fd = -1 };
  struct sv_call c = { .sv = sv, .notify_fd = -1, .req = &req, .resp = &resp, .record = &record };
  char name[32];

  memset (&info, 0, sizeof info);
  if (ptrace (PTRACE_GET_SYSCALL_INFO, pid, (void *) sizeof info, &info) < 0)
    {
      /* Gone (ESRCH), or a stop we cannot read: never let an unread call run.  */
      if (errno != ESRCH)
        (void) kill (pid, SIGKILL);
      return;
    }
  if (info.op != PTRACE_SYSCALL_INFO_SECCOMP)
    {
      (void) kill (pid, SIGKILL);
      return;
    }
  /* Another filter's SCMP_ACT_TRACE (linux.seccomp): not a call of the policy's.  It gets what
     it would get with no tracer, ENOSYS, and no record.  (Where that filter and the policy both
     trace one call, the kernel keeps the newer filter's data: the call is refused all the
     same, unaudited.)  */
  if (info.seccomp.ret_data != SECCOMP_PROG_TRACE_TAG)
    {
      struct seccomp_notif_resp enosys = { .error = -ENOSYS };
      answer (pid, &enosys);
      return;
    }
  req.id = ++seq;
  req.pid = (__u32) pid;
  req.data.nr = (int) info.seccomp.nr;
  req.data.arch = info.arch;
  req.data.instruction_pointer = info.instruction_pointer;
  memcpy (req.data.args, info.seccomp.args, sizeof req.data.args);
  sv_handle_call (&c, name);
  if (c.deferred)
    {
      /* No handler defers here (the broker is refused at create); if one did, nobody would
         answer: fail closed.  */
      (void) kill (pid, SIGKILL);
      return;
    }
  answer (pid, &resp);
  sv_audit_flush (&c);
}

static bool
stopping_signal (int sig)
{
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

void
tracer_pass_stop (pid_t pid, int status)
{
  int sig = WSTOPSIG (status);
  int event = (unsigned) status >> 16;

  switch (event)
    {
    case PTRACE_EVENT_STOP:
      if (!stopping_signal (sig))
        resume (pid, 0);
      else if (ptrace (PTRACE_LISTEN, pid, 0, 0) < 0 && errno != ESRCH)
        ar_debug ("supervisor: keep pid %d stopped: %s", (int) pid, strerror (errno));
      break;
    case 0:
      resume (pid, sig);
      break;
    default: /* fork, vfork, clone, exec, vfork done: the new tracee is attached already */
      resume (pid, 0);
      break;
    }
}

static void
on_stop (struct sv *sv, pid_t pid, int status)
{
  if (released (pid, status))
    return;
  if ((unsigned) status >> 16 == PTRACE_EVENT_SECCOMP)
    on_seccomp_stop (sv, pid);
  else
    tracer_pass_stop (pid, status);
}

/* How long the tracer keeps asking for the next stop after it has answered one, before it
   sleeps.  A tracee and its tracer on two vCPUs of this kind of VM wake each other at ~50 µs a
   time (a halted vCPU is woken by an IPI): 68-80 µs a supervised call; on one vCPU, or with
   the tracer still awake when the next stop comes, 12-20 µs (measured with a minimal tracer
   of getppid, 20000 calls).  A program making supervised calls back to back stops again
   within ~10 µs of being resumed; 20 µs of asking was as good as 200.  The waste is bounded:
   at most this long for each stop the workload pays ~10 µs for itself.  */
#define TRACER_SPIN_NS 20000

enum tracer_drained
tracer_drain (struct sv *sv)
{
  long long answered = 0; /* when the last stop was answered; 0: none yet */

  for (int n = 0; n < TRACER_DRAIN_MAX; n++)
    {
      int status;
      pid_t pid = waitpid (-1, &status, __WALL | WNOHANG);

      if (pid == 0)
        {
          if (answered == 0 || (long long) ar_monotonic_ns () - answered > TRACER_SPIN_NS)
            return TRACER_IDLE;
          n--; /* asking again is not a stop */
          continue;
        }
      if (pid < 0)
        {
          if (errno == EINTR)
            continue;
          return errno == ECHILD ? TRACER_EMPTY : TRACER_IDLE;
        }
      if (WIFSTOPPED (status))
        {
          on_stop (sv, pid, status);
          answered = (long long) ar_monotonic_ns ();
        }
    }
  return TRACER_MORE;
}
