/* agentrt run ID: create, start and wait, exiting with the workload's status.  */
#include <config.h>

#include "agentrt.h"
#include "create_opts.h"

int
cmd_run (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  struct create_input in = { 0 };

  create_opts_parse (argc, argv, true, &in);
  return ar_container_run (g, in.id, &in.o, err);
}
