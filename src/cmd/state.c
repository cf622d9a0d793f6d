/* agentrt state ID: the OCI state JSON on stdout, as runc prints it.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "agentrt.h"

int
cmd_state (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  const char *id = NULL;
  char *json = NULL;

  ar_cmd_parse_id (argc, argv, "Print the state of a container as OCI state JSON.", &id);
  if (ar_container_state (g, id, &json, err) < 0)
    return -1;
  fputs (json, stdout);
  free (json);
  return 0;
}
