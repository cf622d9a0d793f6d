/* The ptrace platform: the supervisor worker's main thread traces the container's processes
   instead of holding their notify fds.  The policy's filter is the same, with every call a
   supervisor answers turned into SECCOMP_RET_TRACE (seccomp_prog_notify_to_trace): the caller
   stops, the tracer reads the call (PTRACE_GET_SYSCALL_INFO), runs the same handler the
   notify platform runs, and answers by resuming the call or by skipping it with a return value
   in its registers.  For kernels or nesting where a notify listener cannot be had (a filter
   chain has one listener: a container manager above us may hold it).  What has no ptrace
   counterpart is refused at create: the egress broker (it puts a socket into the caller) and
   a workload's own ptrace (a process has one tracer).

   Every ptrace request must come from the thread that attached, and tracee stops are reaped
   with waitpid: so the worker's main thread is the tracer, and a tracee stop is a SIGCHLD on its
   signalfd (tracer_drain).  PTRACE_O_EXITKILL: if the tracer dies, every tracee is killed (fail
   closed, as a notify fd's end does on the other platform).  */
#ifndef AGENTRT_SV_TRACER_H
#define AGENTRT_SV_TRACER_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "supervisor/sv.h"

/* Trace `pid`, and every process and thread it makes from now on.  */
int tracer_seize (pid_t pid, ar_error_t *err);
/* The kill switch of the other platforms (supervisor.h): trace `pid` with PTRACE_O_EXITKILL
   and PTRACE_O_TRACECLONE only, so that it stops for signals and group stops
   (tracer_pass_stop) and when it makes a thread, and the kernel SIGKILLs it, and each thread
   it made, when the tracer dies.  Every thread: that SIGKILL goes to each tracee alone, and
   takes its whole process with it only if that tracee has not exited; an init whose main
   thread ends alone (SYS_exit, pthread_exit in main) would leave its other threads running.
   Only threads made with CLONE_UNTRACED escape, which the policy denies (not with --platform
   none, where a deadline is all the supervisor there is).  */
int tracer_seize_kill_switch (pid_t pid, ar_error_t *err);
/* The thread a kill-switch tracee made, if this waitpid status of `pid` is that stop
   (PTRACE_EVENT_CLONE); else 0.  It is traced already; its first stop is its own.  */
pid_t tracer_kill_switch_clone (pid_t pid, int status);
/* End a stop that is not a seccomp stop as if nobody traced: a signal is passed on, a group
   stop kept (PTRACE_LISTEN: SIGCONT, not us, ends it), anything else resumed.  */
void tracer_pass_stop (pid_t pid, int status);
/* Let go of a process seized by mistake (it was not the one asked for): at its next stop,
   without waiting for it.  */
void tracer_release (pid_t pid);

enum tracer_drained
{
  TRACER_IDLE, /* no stop is waiting */
  TRACER_MORE, /* stopped at TRACER_DRAIN_MAX: call again soon, after other events */
  TRACER_EMPTY /* no tracee is left */
};
/* At most this many stops a call: tracees that stop as fast as they are answered must not
   keep the worker from its signals, timer and control socket.  */
#define TRACER_DRAIN_MAX 64

/* Handle the tracee stops there are: answer seccomp stops, let fork, clone and exec events go
   on, pass signals on, keep group stops stopped.  */
enum tracer_drained tracer_drain (struct sv *sv);

#endif
