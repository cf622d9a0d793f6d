/* The OCI `linux.seccomp` profile: compiled to BPF in the runtime (before any container process
   forks) the way runc and crun read it, and the notify fd handed to the profile's seccomp agent at
   listenerPath (runtime-spec 1.2 config-linux.md, "The Container Process State").  */
#ifndef AGENTRT_SECCOMP_OCI_H
#define AGENTRT_SECCOMP_OCI_H

#include "agentrt/error.h"
#include "seccomp/bpf.h"
#include "spec/spec.h"

/* Compile `s` into *out (release it with seccomp_prog_release).  out->flags gets the profile's
   SECCOMP_FILTER_FLAG_*; out->notify is set when a rule uses SCMP_ACT_NOTIFY, and the listener
   the install returns is then for seccomp_oci_send_listener.  Syscall names libseccomp does not
   know are skipped (logged at debug level), as runc and crun do; every other problem fails.  */
int seccomp_oci_compile (const struct spec_seccomp *s, struct seccomp_prog *out, ar_error_t *err);

/* Send `notify_fd` (SCM_RIGHTS) and the container process state to s->listener_path in one
   message over a new AF_UNIX stream connection, then close it.  `state_json` is the container's
   state (the `state` command's object), embedded verbatim; its "pid" is the process pid sent.  */
int seccomp_oci_send_listener (const struct spec_seccomp *s, int notify_fd, const char *state_json,
                               ar_error_t *err);

#endif
