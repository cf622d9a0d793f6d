/* The options create and run share.  */
#ifndef AGENTRT_CMD_CREATE_OPTS_H
#define AGENTRT_CMD_CREATE_OPTS_H

#include <stdbool.h>

#include "agentrt/container.h"

struct create_input
{
  const char *id;
  struct ar_create_opts o;
};

void create_opts_parse (int argc, char **argv, bool run, struct create_input *in);

#endif
