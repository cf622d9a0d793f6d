/* Fail closed: kill the whole container.  */
#ifndef AGENTRT_SV_KILL_H
#define AGENTRT_SV_KILL_H

#include "supervisor/supervisor.h"

/* SIGKILL to the init and to every process in the container's cgroups.  */
void sv_kill_container (const struct supervisor_cfg *c, int init_pidfd);

#endif
