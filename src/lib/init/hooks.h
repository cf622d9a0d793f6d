/* OCI hooks (runtime-spec config.md#posix-platform-hooks): run one list of them, in order, each
   given the container's state JSON on its stdin.  */
#ifndef AGENTRT_HOOKS_H
#define AGENTRT_HOOKS_H

#include "agentrt/error.h"
#include "spec/spec.h"

/* Run each hook of HOOKS in order: fork + execve (path, args or {path}, env or an empty env),
   with STATE_JSON written to its stdin through a pipe (a hook that does not read it does not
   block us) and stdout/stderr inherited; every other fd is closed.  Wait for it, with its
   timeout if it has one.  The first failure stops the list:
     "hook `PATH` (KIND) exited with status N", "... killed by signal N",
     "... timed out after N s" (it is SIGKILLed), or "exec hook `PATH` (KIND)" with the errno.
   KIND names the list in messages ("prestart": spec_hook_names[]).  HOOKS may be NULL.
   The caller's signal mask and dispositions are untouched (SIGPIPE is blocked while writing,
   and one it raised is consumed); the hook starts with an empty mask and default handlers.  */
int hooks_run (const struct spec_hook_list *hooks, const char *kind, const char *state_json,
               ar_error_t *err);

#endif
