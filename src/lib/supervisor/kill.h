/* Fail closed: kill the whole container, and say why.  */
#ifndef AGENTRT_SV_KILL_H
#define AGENTRT_SV_KILL_H

#include <stdbool.h>

#include "supervisor/supervisor.h"

/* SIGKILL to the init and to every process in the container's cgroups.  */
void sv_kill_container (const struct supervisor_cfg *c, int init_pidfd);
/* SIGKILL to every process in these cgroups (NULL-terminated; NULL: none).  */
void sv_kill_cgroups (char *const *dirs);

/* The supervisor's end, told in the state directory (SUPERVISOR_END_FILE), once its reason is
   recorded or there is none: made once (O_EXCL), so that between commands that find the
   supervisor lost the one that made it records.  True if this call made it.  */
bool sv_mark_end (int dirfd, const char *why);
/* Why the container was killed, for `state` (io.agentrt.stop.reason).  */
void sv_stop_reason (int dirfd, const char *reason);

#endif
