/* Landlock, the second wall (DESIGN.md, "Tiers, strict"): a domain each process of a supervised
   container enters just before its seccomp filters, which the kernel keeps even where a
   namespace is not what it should be.  It restricts the sandboxed side only: the supervisor and
   the runtime signal and connect to the workload as before.

   What each Landlock ABI gives, and what agentrt takes of it (the runtime probes the ABI once
   per command, and asks for no more than the kernel has; Documentation/userspace-api/
   landlock.rst, "Backward and forward compatibility"):

     ABI    the kernel adds                        agentrt
     none   (no Landlock, or landlock not in lsm=)  nothing; containers run as before (debug log),
                                                    but one that needs the ptrace wall is refused
     1-3    filesystem access rights; ptrace        the ptrace wall (below); no path is confined:
            restricted to the domain's own          the mount namespace does that
     4-5    TCP bind and connect, by port           the agent profile with the egress broker: no
                                                    TCP connect of the workload's own (the
                                                    broker makes them all)
     6      scopes: signals, abstract unix sockets  signals when the container's pid namespace
                                                    sees the runtime's processes; abstract
                                                    sockets when it is in the runtime's network
                                                    namespace
     7      restrict_self audit flags               denials after execve reach the kernel's audit

   Why scopes are asked for only where the container shares a namespace with the runtime: two
   landlock_restrict_self calls make two domains, even from one ruleset, and a domain may not
   signal (or connect to the abstract sockets of) a sibling.  Every `exec` makes its own domain,
   so a scoped exec'd `kill` of the init's processes would fail.  In a pid or network namespace
   of the container's own the namespace is the wall already, and that stays as runc does it.
   Any domain, scoped or not, also refuses ptrace (and /proc/PID/fd, environ, mem) from a
   sibling domain: where one applies, an exec'd `strace -p` of the init's processes fails.

   The ptrace wall.  That refusal is the one thing between a container that holds CAP_SYS_PTRACE
   in the host's user namespace (config.json may ask for it without a user namespace:
   sandbox_host_ptrace_cap) and the process `agentrt exec` starts: it joins the container's pid
   namespace with the runtime's capabilities and puts its filters on last, and its
   non-dumpability is nothing against CAP_SYS_PTRACE in its mm's user namespace, the initial
   one (ptrace_may_access).  A process in a Landlock domain may ptrace, or open /proc/PID/mem,
   only processes of its own domain or of domains nested under it, whatever its capabilities
   (Documentation/userspace-api/landlock.rst, "Ptrace restrictions"; every ABI has it): there
   the container's processes are in a domain, and the exec'd process is outside it until it
   enters one of its own, a sibling.  A ruleset must handle something: it handles making block
   devices (ABI 1) and gives it back beneath the container's root, so that nothing else
   changes.  Such a container is refused where the kernel has no Landlock (landlock_need): it
   would be unprotected.  */
#ifndef AGENTRT_LANDLOCK_H
#define AGENTRT_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "agentrt/error.h"

struct landlock_plan
{
  bool scope_signal;   /* the container's pid namespace sees the runtime's processes */
  bool scope_abstract; /* the container is in the runtime's network namespace */
  bool deny_connect;   /* the agent profile's broker makes every connect: the workload needs none */
  bool ptrace_wall;    /* the container may hold CAP_SYS_PTRACE in the host's user namespace */
};

/* What a process asks the kernel for: the plan, cut to the kernel's ABI.  All zero: nothing.  */
struct landlock_ruleset
{
  uint64_t handled_fs; /* given back beneath "/" by a rule: the ptrace wall's */
  uint64_t handled_net;
  uint64_t scoped;
  uint32_t restrict_flags;
  int abi;
};

/* The kernel's Landlock ABI: 0 without Landlock.  Probed once per process.  */
int landlock_abi (void);

/* PLAN cut to what ABI has, into OUT; false when nothing is left to apply.  */
bool landlock_fit (const struct landlock_plan *plan, int abi, struct landlock_ruleset *out);

/* In the runtime, before the container's process is cloned: fits PLAN to this kernel and checks
   that the kernel takes the ruleset.  Without Landlock, or when the kernel refuses it, OUT is
   all zero and a debug line says why, once per command: a container never fails for the
   lack of it, but where it needs the ptrace wall (landlock_need).  */
int landlock_prepare (const struct landlock_plan *plan, struct landlock_ruleset *out,
                      ar_error_t *err);

/* Whether a container may run with PLAN on a kernel of ABI (0: no Landlock) that REFUSED the
   ruleset or not: not when it needs the ptrace wall and does not get it.  */
int landlock_need (const struct landlock_plan *plan, int abi, bool refused, ar_error_t *err);

/* In the container's process, before its seccomp filters (an OCI profile may not list the
   Landlock calls) and while it still has CAP_SYS_ADMIN in its user namespace or no_new_privs,
   with the container's root as its own (the ptrace wall's rule is on "/").  */
int landlock_apply (const struct landlock_ruleset *r, ar_error_t *err);

/* Namespace tests for the plan: is the pid namespace of FD the runtime's own or one above it
   (where the runtime's processes are seen)?  Is the network namespace of FD the runtime's?  */
bool landlock_pidns_sees_runtime (int fd);
bool landlock_netns_is_runtimes (int fd);

#endif
