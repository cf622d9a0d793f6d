/* agentrt pause ID and agentrt resume ID: the freezer, both ways.  */
#include <config.h>

#include "agentrt.h"

int
cmd_pause (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  const char *id = NULL;

  ar_cmd_parse_id (argc, argv, "Freeze every process of a container.", &id);
  return ar_container_pause (g, id, err);
}

int
cmd_resume (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  const char *id = NULL;

  ar_cmd_parse_id (argc, argv, "Thaw every process of a paused container.", &id);
  return ar_container_resume (g, id, err);
}
