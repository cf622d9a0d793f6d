/* agentrt start ID: release a created container's init, which then execs the workload.  */
#include <config.h>

#include "agentrt.h"

int
cmd_start (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  const char *id = NULL;

  ar_cmd_parse_id (argc, argv, "Start the user process of a created container.", &id);
  return ar_container_start (g, id, err);
}
