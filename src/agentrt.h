/* The command-line layer: the command table in agentrt.c and one file per subcommand in src/cmd.
   Each handler parses its own options with argp and makes one library call.  */
#ifndef AGENTRT_CLI_H
#define AGENTRT_CLI_H

#include <argp.h>

#include "agentrt/container.h"
#include "agentrt/error.h"

typedef int (*ar_cmd_fn) (struct ar_globals *g, int argc, char **argv, ar_error_t *err);

/* Parse a subcommand's arguments (argv[0] is the command name) with `flags` for argp_parse
   (ARGP_IN_ORDER for exec).  Usage errors print the problem and a usage line and exit 1, as
   runc does; --help and --usage print and exit 0.  */
void ar_cmd_parse (const struct argp *argp, int argc, char **argv, unsigned flags, void *input);
/* Inside a parse_opt, at ARGP_KEY_END: a usage error unless min <= arg_num <= max.  */
void ar_cmd_check_args (struct argp_state *state, unsigned min, unsigned max);
/* The tail of most parse_opt functions: positional arguments go into `slots` in order (extra
   ones are counted, not stored), and at the end there must be min … max of them.  Other keys
   give ARGP_ERR_UNKNOWN.  */
error_t ar_cmd_positional (int key, char *arg, struct argp_state *state, const char **const *slots,
                           unsigned n_slots, unsigned min, unsigned max);
#define AR_SLOTS(...) (const char **const[]){ __VA_ARGS__ }, ARRAY_LEN (__VA_ARGS__)
#define ARRAY_LEN(...) (sizeof ((const char **const[]){ __VA_ARGS__ }) / sizeof (const char **))
/* --preserve-fds N: a usage error unless 0 <= N <= 65536.  */
int ar_cmd_parse_fd_count (const char *arg, struct argp_state *state);
/* For a command whose only arguments are the container id (start, pause, …).  */
int ar_cmd_parse_id (int argc, char **argv, const char *doc, const char **id);

int cmd_create (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_start (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_run (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_exec (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_kill (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_delete (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_state (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_list (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_ps (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_pause (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_resume (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_update (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_events (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_spec (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_features (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_audit (struct ar_globals *g, int argc, char **argv, ar_error_t *err);
int cmd_policy (struct ar_globals *g, int argc, char **argv, ar_error_t *err);

#endif
