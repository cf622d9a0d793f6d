/* process.rlimits: the resource limits the container's process starts with.  */
#ifndef AGENTRT_RLIMITS_H
#define AGENTRT_RLIMITS_H

#include "agentrt/error.h"
#include "spec/spec.h"

/* setrlimit each process.rlimits entry, in order; the first failure is returned as
   "setrlimit RLIMIT_NOFILE to 4096/8192" with its errno.  Raising a hard limit needs
   CAP_SYS_RESOURCE, so call this before creds_apply () drops capabilities.  */
int rlimits_apply (const struct spec_process *p, ar_error_t *err);

#endif
