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
   and PTRACE_O_TRACEEXIT only, so that it stops for signals, group stops (tracer_pass_stop)
   and its exit, and the kernel SIGKILLs it when the tracer dies.  */
int tracer_seize_kill_switch (pid_t pid, ar_error_t *err);
/* The threads of the init's process that the kill switch traces besides the init.  */
struct tracer_threads
{
  pid_t *tids;
  size_t n;
};
/* A thread traced by the kill switch stopped at its exit (tracer_exit_stop), `exiting` of
   process `tgid`: every other live thread of it is seized the same way before it goes on, so
   that the kill switch holds while any thread of the process runs.  A SIGKILL to one live
   thread takes the whole process, but the kernel's SIGKILL at the tracer's death goes to each
   tracee alone, and one that has exited takes nobody with it: an init whose main thread ends
   alone (SYS_exit, pthread_exit in main) would leave its other threads running, untraced.
   -1: a live thread could not be traced (another tracer, or threads made faster than it can
   follow): the caller kills the process (fail closed).  */
int tracer_cover_threads (pid_t tgid, pid_t exiting, struct tracer_threads *t);
/* Is this waitpid status a stop at the exit (PTRACE_EVENT_EXIT)?  */
bool tracer_exit_stop (int status);
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
