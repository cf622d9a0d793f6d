/* Denied calls: refused with the entry's errno (EPERM by default) and audited, with the
   arguments decoded where they say what was attempted (the paths of a mount, the flags of a
   clone).  Reached for deny entries, for allow-if entries whose condition failed in BPF, and for
   numbers the table does not name (ENOSYS).  */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "supervisor/sv.h"
#include "utils.h"

enum arg_kind
{
  A_END,
  A_STR, /* a path or name in the caller's memory */
  A_HEX, /* flags */
  A_INT,
};

struct arg_decl
{
  const char *name;
  uint8_t kind;
};

struct decoder
{
  const char *syscall;
  struct arg_decl args[6];
};

static const struct decoder decoders[] = {
  { "mount",
    { { "source", A_STR }, { "target", A_STR }, { "fstype", A_STR }, { "flags", A_HEX } } },
  { "umount2", { { "target", A_STR }, { "flags", A_HEX } } },
  { "umount", { { "target", A_STR } } },
  { "pivot_root", { { "new_root", A_STR }, { "put_old", A_STR } } },
  { "swapon", { { "path", A_STR }, { "flags", A_HEX } } },
  { "swapoff", { { "path", A_STR } } },
  { "acct", { { "path", A_STR } } },
  { "open_tree", { { "dfd", A_INT }, { "path", A_STR }, { "flags", A_HEX } } },
  { "fsopen", { { "fstype", A_STR }, { "flags", A_HEX } } },
  { "move_mount",
    { { "from_dfd", A_INT },
      { "from_path", A_STR },
      { "to_dfd", A_INT },
      { "to_path", A_STR },
      { "flags", A_HEX } } },
  { "clone", { { "flags", A_HEX } } },
  { "unshare", { { "flags", A_HEX } } },
  { "setns", { { "fd", A_INT }, { "nstype", A_HEX } } },
  { "socket", { { "domain", A_INT }, { "type", A_HEX }, { "protocol", A_INT } } },
  { "socketpair", { { "domain", A_INT }, { "type", A_HEX }, { "protocol", A_INT } } },
  { "ioctl", { { "fd", A_INT }, { "request", A_HEX } } },
  { "personality", { { "persona", A_HEX } } },
  { "ptrace", { { "request", A_INT }, { "pid", A_INT } } },
  { "bpf", { { "cmd", A_INT } } },
  { "init_module", { { "len", A_INT }, { "params", A_STR } } },
  { "finit_module", { { "fd", A_INT }, { "params", A_STR }, { "flags", A_HEX } } },
  { "delete_module", { { "name", A_STR }, { "flags", A_HEX } } },
  { "kexec_load",
    { { "entry", A_HEX }, { "nr_segments", A_INT }, { "segments", A_HEX }, { "flags", A_HEX } } },
  { "reboot", { { "magic", A_HEX }, { "magic2", A_HEX }, { "cmd", A_HEX } } },
  { "keyctl", { { "operation", A_INT } } },
  { "add_key", { { "type", A_STR }, { "description", A_STR } } },
  { "request_key", { { "type", A_STR }, { "description", A_STR } } },
  { "open_by_handle_at", { { "mount_fd", A_INT }, { "handle", A_HEX }, { "flags", A_HEX } } },
  { "name_to_handle_at", { { "dfd", A_INT }, { "path", A_STR } } },
};

static const struct decoder *
find_decoder (const char *name)
{
  for (size_t i = 0; i < ARRAY_SIZE (decoders); i++)
    if (strcmp (decoders[i].syscall, name) == 0)
      return &decoders[i];
  return NULL;
}

/* A string is read up to a byte past what its record can show (AUDIT_STR_MAX of JSON text,
   at least a byte each), so that one that is longer is known to be cut.  */
static void
decode_arg (struct sv_call *c, struct ar_json *j, const struct arg_decl *d, uint64_t v)
{
  char buf[AUDIT_STR_MAX + 2];
  bool cut;
  long n;

  ar_json_key (j, d->name);
  switch (d->kind)
    {
    case A_STR:
      if (v == 0)
        {
          ar_json_null (j);
          return;
        }
      n = sv_mem_read_str (c, v, buf, sizeof buf);
      /* An unreadable pointer is what it is: recorded as its address.  */
      if (n < 0 && n != -ENAMETOOLONG)
        snprintf (buf, sizeof buf, "<unreadable 0x%llx>", (unsigned long long) v);
      ar_json_str_max (j, buf, AUDIT_STR_MAX, &cut);
      c->truncated |= cut;
      return;
    case A_HEX:
      snprintf (buf, sizeof buf, "0x%llx", (unsigned long long) v);
      ar_json_str (j, buf);
      return;
    default:
      ar_json_int (j, (long long) v);
    }
}

/* The decoded arguments as JSON text, or NULL when there is no decoder for this call.  */
static char *
decoded_args (struct sv_call *c)
{
  const struct decoder *d = find_decoder (c->name);
  struct ar_json *j;

  if (d == NULL)
    return NULL;
  j = ar_json_new (NULL);
  ar_json_obj_open (j);
  for (int i = 0; i < 6 && d->args[i].kind != A_END; i++)
    decode_arg (c, j, &d->args[i], c->req->data.args[i]);
  ar_json_obj_close (j);
  return ar_json_finish (j, NULL);
}

void
sv_handle_deny (struct sv_call *c)
{
  int err = c->entry && c->entry->err ? c->entry->err : EPERM;
  cleanup_free char *args = decoded_args (c);

  sv_reply_error (c, err);
  sv_audit (c, "deny", err, args);
}

void
sv_handle_unknown (struct sv_call *c)
{
  sv_reply_error (c, ENOSYS);
  sv_audit (c, "deny", ENOSYS, NULL);
}
