/* The default config.json that `agentrt spec` writes, as runc's `spec` does.  */
#ifndef AGENTRT_SPEC_EXAMPLE_H
#define AGENTRT_SPEC_EXAMPLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"

/* rootless: a user namespace mapping uid/gid 0 to `uid`/`gid`, no network namespace, /sys
   bind-mounted, no cgroup mount or resources (runc's `spec --rootless`).  */
char *spec_example_json (bool rootless, uid_t uid, gid_t gid);

#endif
