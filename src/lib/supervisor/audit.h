/* The audit log's file, for the watchdog (supervisor.c) and the worker (audit.c's records).  */
#ifndef AGENTRT_SV_AUDIT_H
#define AGENTRT_SV_AUDIT_H

#include "agentrt/error.h"

/* The audit log, for appending: a regular file only, never through a symlink (a planted link
   would make host root append to any file; a fifo would block the supervisor).  */
int audit_open_log (const char *path, ar_error_t *err);

#endif
