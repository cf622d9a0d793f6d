/* Shared by cgroup.c and resources.c.  */
#ifndef AGENTRT_CGROUP_INTERNAL_H
#define AGENTRT_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "agentrt/error.h"

/* Write `value` to DIR/FILE; the error names the file and the value.  */
int cg_write (const char *dir, const char *file, const char *value, size_t len, ar_error_t *err);
/* Does DIR/FILE exist?  */
bool cg_has (const char *dir, const char *file);
/* A new v1 cpuset directory gets its parent's cpus and mems (no-op elsewhere).  */
void cg_cpuset_inherit (const char *dir);
/* v2: give the children of `dir` every controller it has (no-op on v1).  */
void cg_v2_delegate (const char *dir);
/* v1 freezer: FROZEN or THAWED, waiting until the kernel says it is done.  */
int cg_v1_freeze (const char *dir, bool freeze, ar_error_t *err);

#endif
