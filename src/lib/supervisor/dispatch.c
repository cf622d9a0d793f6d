/* The supervisor's dispatch: a call (a notification, or a tracee's seccomp stop made up as one)
   is looked up in the policy's table and handed to its handler (handlers/ *.c).  Shared by the
   notify path (worker.c) and the tracer (tracer.c).  */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "supervisor/sv.h"

static const sv_handler_fn handlers[SH__N] = {
  [SH_NONE] = sv_handle_deny,         [SH_DENY] = sv_handle_deny,
  [SH_UNAME] = sv_handle_uname,       [SH_SYSINFO] = sv_handle_sysinfo,
  [SH_AFFINITY] = sv_handle_affinity, [SH_EXEC] = sv_handle_exec,
  [SH_CONNECT] = sv_handle_connect,   [SH_BIND] = sv_handle_bind,
  [SH_UNKNOWN] = sv_handle_unknown,   [SH_FSNOTIFY] = sv_handle_fsnotify,
  [SH_CLOCK] = sv_handle_clock,
};

/* A call that reaches us although its entry says allow means the filter and the table
   disagree: refused (fail closed), as SH_NONE maps to the deny handler.  */
void
sv_handle_call (struct sv_call *c, char name[32])
{
  const struct seccomp_notif *req = c->req;

  memset (c->resp, 0, sizeof *c->resp);
  c->resp->id = req->id;
  c->entry
      = req->data.arch == c->sv->audit_arch ? policy_lookup (&c->sv->policy, req->data.nr) : NULL;
  if (c->entry)
    c->name = c->entry->name;
  else
    {
      snprintf (name, 32, "syscall_%d", req->data.nr);
      c->name = name;
    }
  handlers[c->entry ? c->entry->handler : SH_UNKNOWN](c);
}
