/* linux.seccomp → libseccomp → BPF, with runc's and crun's reading of the profile, and the
   container process state sent to the profile's seccomp agent.  This file never installs a
   filter (bpf.c does) and never decides policy of its own: agentrt's policy is policy/.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "seccomp/oci.h"
#include "utils.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define WHAT "linux.seccomp"
/* runtime-spec: "If not specified its default value is EPERM" (runc's actErrno/actTrace).  */
#define DEFAULT_ERRNO EPERM
/* Syscalls take at most six arguments: scmp_arg_cmp.arg is 0-5.  */
#define MAX_ARG_INDEX 5
/* runc enables libseccomp's binary tree past 32 syscalls; libseccomp <= 2.5.4 misbehaves with
   the tree and no rules, so it is only turned on once the rules are known.  */
#define BINARY_TREE_MIN_RULES 32

static void
scmp_releasep (scmp_filter_ctx *ctx)
{
  if (*ctx)
    seccomp_release (*ctx);
}
#define cleanup_scmp_ctx __attribute__ ((cleanup (scmp_releasep)))

static const struct spec_named_value *
find_name (const struct spec_named_value *t, const char *name)
{
  for (; t->name; t++)
    if (strcmp (t->name, name) == 0)
      return t;
  return NULL;
}

/* For messages: the OCI name of an action without its data.  */
static const char *
action_name (uint32_t action)
{
  for (const struct spec_named_value *t = spec_seccomp_actions; t->name; t++)
    if (t->value == (action & SECCOMP_RET_ACTION_FULL))
      return t->name;
  return "an unknown action";
}

static bool
takes_errno (uint32_t base)
{
  return base == SCMP_ACT_ERRNO (0) || base == SCMP_ACT_TRACE (0);
}

/* The full action: SCMP_ACT_ERRNO and SCMP_ACT_TRACE carry errnoRet (EPERM by default) in their
   16 data bits; any other action with errnoRet is an error (runtime-spec: "the runtime MUST print
   and error and fail"; crun does, runc ignores it).  `where` names it in errors.  */
static int
full_action (uint32_t base, const struct spec_u64 *errno_ret, const char *where, uint32_t *out,
             ar_error_t *err)
{
  uint64_t e = errno_ret->set ? errno_ret->v : DEFAULT_ERRNO;

  if (!takes_errno (base))
    {
      if (errno_ret->set)
        return ar_make_error (err, EINVAL, WHAT ": %s: %s takes no errno", where,
                              action_name (base));
      *out = base;
      return 0;
    }
  /* runc truncates to int16 silently; a value that cannot be returned is refused instead.  */
  if (e > SECCOMP_RET_DATA)
    return ar_make_error (err, ERANGE, WHAT ": %s: errno %" PRIu64 " does not fit in 16 bits",
                          where, e);
  *out = base | (uint32_t) e;
  return 0;
}

/* Every listed architecture; seccomp_init already added the native one.  Syscalls of an
   architecture not in the filter get libseccomp's default bad-arch action, SCMP_ACT_KILL_THREAD,
   which is what runc leaves in place (its patchbpf stub falls through to libseccomp's filter for
   them), so it is set explicitly here only to say so.  */
static int
add_archs (scmp_filter_ctx ctx, const struct spec_seccomp *s, ar_error_t *err)
{
  int ret = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_THREAD);

  if (ret < 0)
    return ar_make_error (err, -ret, WHAT ": set the bad-architecture action");
  for (size_t i = 0; i < s->architectures.n; i++)
    {
      const char *name = s->architectures.v[i];
      const struct spec_named_value *a = find_name (spec_seccomp_archs, name);

      if (a == NULL)
        return ar_make_error (err, EINVAL, WHAT ".architectures[%zu]: unknown architecture `%s`", i,
                              name);
      ret = seccomp_arch_add (ctx, (uint32_t) a->value);
      if (ret < 0 && ret != -EEXIST)
        return ar_make_error (err, -ret, WHAT ": add architecture `%s`", name);
    }
  return 0;
}

static bool
uses_notify (const struct spec_seccomp *s)
{
  for (size_t i = 0; i < s->n_syscalls; i++)
    if (s->syscalls[i].action == SCMP_ACT_NOTIFY)
      return true;
  return false;
}

/* The SECCOMP_FILTER_FLAG_* bits for seccomp(2).  The kernel refuses WAIT_KILLABLE_RECV without
   a listener (EINVAL), and the flag only changes how a listener's waits behave, so a profile
   without SCMP_ACT_NOTIFY drops it rather than failing to install.  */
static int
profile_flags (const struct spec_seccomp *s, bool notify, unsigned int *out, ar_error_t *err)
{
  unsigned int flags = 0;

  for (size_t i = 0; i < s->flags.n; i++)
    {
      const struct spec_named_value *f = find_name (spec_seccomp_flags, s->flags.v[i]);
      if (f == NULL)
        return ar_make_error (err, EINVAL, WHAT ".flags[%zu]: unknown flag `%s`", i, s->flags.v[i]);
      flags |= (unsigned int) f->value;
    }
  if (!notify && (flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV))
    {
      ar_debug (WHAT ": SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV ignored: no SCMP_ACT_NOTIFY rule");
      flags &= ~(unsigned int) SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
    }
  *out = flags;
  return 0;
}

/* The rule's conditions, and whether they must be split: libseccomp refuses two conditions on
   one argument in a rule (EINVAL), so when an index repeats, runc (matchCall) and crun
   (libcrun_generate_seccomp) add each condition as a rule of its own, i.e. OR instead of AND.
   Returns the number of conditions in *cmp (caller frees).  */
static int
rule_conditions (const struct spec_seccomp_rule *r, struct scmp_arg_cmp **cmp, bool *split,
                 ar_error_t *err)
{
  unsigned int seen[MAX_ARG_INDEX + 1] = { 0 };
  cleanup_free struct scmp_arg_cmp *c = xzalloc (sizeof *c * (r->n_args ? r->n_args : 1));

  *split = false;
  for (size_t k = 0; k < r->n_args; k++)
    {
      const struct spec_seccomp_arg *a = &r->args[k];
      if (a->index > MAX_ARG_INDEX)
        return ar_make_error (err, EINVAL,
                              WHAT ": syscall \"%s\": argument index %" PRIu32
                                   " is out of range [0, %d]",
                              r->names.v[0], a->index, MAX_ARG_INDEX);
      if (seen[a->index]++)
        *split = true;
      c[k] = (struct scmp_arg_cmp){ .arg = a->index,
                                    .op = (enum scmp_compare) a->op,
                                    .datum_a = a->value,
                                    .datum_b = a->value_two };
    }
  *cmp = steal_ptr (&c);
  return (int) r->n_args;
}

/* One name of a rule; *added counts the libseccomp rules made.  */
static int
add_syscall (scmp_filter_ctx ctx, const char *name, uint32_t action, const struct scmp_arg_cmp *cmp,
             int n, bool split, size_t *added, ar_error_t *err)
{
  int nr = seccomp_syscall_resolve_name (name);
  int ret = 0;

  if (nr == __NR_SCMP_ERROR)
    {
      /* Docker's and Podman's profiles name syscalls newer than this libseccomp.  */
      ar_debug (WHAT ": unknown syscall \"%s\" ignored", name);
      return 0;
    }
  if (!split)
    {
      ret = seccomp_rule_add_array (ctx, action, nr, (unsigned int) n, cmp);
      *added += ret == 0;
    }
  for (int k = 0; split && k < n && ret == 0; k++)
    {
      ret = seccomp_rule_add_array (ctx, action, nr, 1, &cmp[k]);
      *added += ret == 0;
    }
  if (ret < 0)
    return ar_make_error (err, -ret, WHAT ": syscall \"%s\": add rule", name);
  return 0;
}

static int
add_rule (scmp_filter_ctx ctx, const struct spec_seccomp_rule *r, uint32_t default_action,
          size_t *added, ar_error_t *err)
{
  cleanup_free struct scmp_arg_cmp *cmp = NULL;
  cleanup_free char *where = NULL;
  uint32_t action = 0;
  bool split = false;
  int n;

  if (r->names.n == 0)
    return ar_make_error (err, EINVAL, WHAT ": a syscalls entry has no names");
  where = xasprintf ("syscall \"%s\"", r->names.v[0]);
  if (full_action (r->action, &r->errno_ret, where, &action, err) < 0)
    return -1;
  n = rule_conditions (r, &cmp, &split, err);
  if (n < 0)
    return -1;
  if (action == default_action)
    {
      /* libseccomp refuses a rule that repeats the default action (EACCES); runc skips it.  */
      ar_debug (WHAT ": %s: %s is the default action, rule skipped", where, action_name (action));
      return 0;
    }
  for (size_t j = 0; j < r->names.n; j++)
    if (add_syscall (ctx, r->names.v[j], action, cmp, n, split, added, err) < 0)
      return -1;
  return 0;
}

static int
add_rules (scmp_filter_ctx ctx, const struct spec_seccomp *s, uint32_t default_action,
           ar_error_t *err)
{
  size_t added = 0;
  int ret;

  for (size_t i = 0; i < s->n_syscalls; i++)
    if (add_rule (ctx, &s->syscalls[i], default_action, &added, err) < 0)
      return -1;
  if (added > BINARY_TREE_MIN_RULES)
    {
      ret = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
      if (ret < 0) /* only slower: a linear filter is still the same filter */
        ar_debug (WHAT ": no binary tree optimization: %s", strerror (-ret));
    }
  return 0;
}

/* seccomp_init with the default action.  NNP is off: the runtime sets no_new_privs itself, per
   process.noNewPrivileges, and installs with seccomp(2), so libseccomp's load attributes (NNP,
   TSYNC, LOG, SSB) never apply; the flags travel in seccomp_prog.flags instead.  */
static int
new_ctx (const struct spec_seccomp *s, scmp_filter_ctx *out, uint32_t *default_action,
         ar_error_t *err)
{
  cleanup_scmp_ctx scmp_filter_ctx ctx = NULL;
  int ret;

  /* runc refuses it too: the runtime's own calls between the install and execve (handing over
     the listener) would wait for an agent that does not have the listener yet.  */
  if (s->default_action == SCMP_ACT_NOTIFY)
    return ar_make_error (err, EINVAL, WHAT ": SCMP_ACT_NOTIFY cannot be the default action");
  if (full_action (s->default_action, &s->default_errno_ret, "defaultErrnoRet", default_action, err)
      < 0)
    return -1;
  ctx = seccomp_init (*default_action);
  if (ctx == NULL)
    return ar_make_error (err, EINVAL, WHAT ": seccomp_init with %s",
                          action_name (*default_action));
  ret = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);
  if (ret < 0)
    return ar_make_error (err, -ret, WHAT ": clear the no_new_privs attribute");
  *out = steal_ptr (&ctx);
  return 0;
}

int
seccomp_oci_compile (const struct spec_seccomp *s, struct seccomp_prog *out, ar_error_t *err)
{
  struct seccomp_prog prog = { .notify = uses_notify (s) };
  cleanup_scmp_ctx scmp_filter_ctx ctx = NULL;
  uint32_t default_action = 0;

  if (new_ctx (s, &ctx, &default_action, err) < 0 || add_archs (ctx, s, err) < 0
      || profile_flags (s, prog.notify, &prog.flags, err) < 0
      || add_rules (ctx, s, default_action, err) < 0
      || seccomp_prog_from_ctx (ctx, WHAT, &prog, err) < 0)
    return -1;
  *out = prog;
  return 0;
}

/* Listener.  */

/* The container process state (runtime-spec config-linux.md): ociVersion, fds, pid, metadata
   (omitted when empty, as runc's `omitempty`), then the state object as given.  */
static int
process_state_json (const struct spec_seccomp *s, const char *state_json, char **out,
                    ar_error_t *err)
{
  static const char *const fds[] = { "seccompFd" };
  cleanup_jnode struct ar_jnode *state = NULL;
  const char *pid_text = NULL;
  long long pid = 0;
  struct ar_json *j = NULL;
  cleanup_free char *head = NULL;
  size_t n = 0;

  if (ar_jparse (state_json, "the container state", &state, err) < 0)
    return -1;
  if (ar_jtype (state) != AR_J_OBJECT)
    return ar_make_error (err, EINVAL, "the container state is not an object");
  pid_text = ar_jnum_text (ar_jget (state, "pid"));
  if (pid_text == NULL || !ar_parse_int64 (pid_text, 1, INT32_MAX, &pid))
    return ar_make_error (err, EINVAL, "the container state has no valid pid");

  j = ar_json_new (NULL);
  ar_json_obj_open (j);
  ar_json_kstr (j, "ociVersion", OCI_SPEC_VERSION);
  ar_json_key (j, "fds");
  ar_json_strv (j, fds, ARRAY_SIZE (fds));
  ar_json_kint (j, "pid", pid);
  if (s->listener_metadata && *s->listener_metadata)
    ar_json_kstr (j, "metadata", s->listener_metadata);
  ar_json_obj_close (j);
  if (ar_json_finish_checked (j, "the container process state", &head, &n, err) < 0)
    return -1;
  /* The writer has no raw-value call, and re-encoding the state could only change it: the closing
     brace makes way for "state" as the caller wrote it (checked above to be an object).  */
  head[n - 1] = '\0';
  *out = xasprintf ("%s,\"state\":%s}", head, state_json);
  return 0;
}

static int
connect_unix (const char *path, ar_error_t *err)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  cleanup_close int sock = -1;

  if (strlen (path) >= sizeof addr.sun_path)
    return ar_make_error (err, ENAMETOOLONG, "connect to " WHAT ".listenerPath `%s`", path);
  strcpy (addr.sun_path, path);
  sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0)
    return ar_make_error (err, errno, "create a socket for " WHAT ".listenerPath `%s`", path);
  if (connect (sock, (struct sockaddr *) &addr, sizeof addr) < 0)
    return ar_make_error (err, errno, "connect to " WHAT ".listenerPath `%s`", path);
  return steal_fd (&sock);
}

/* The fd rides with the first sendmsg only, as the spec requires when a message takes more than
   one call (a signal can cut a stream send short).  MSG_NOSIGNAL: an agent that hung up is an
   error to report, not a SIGPIPE.  */
static int
send_with_fd (int sock, int fd, const char *buf, size_t len, const char *path, ar_error_t *err)
{
  char cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
  struct iovec iov = { (void *) buf, len };
  struct msghdr mh
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *c = CMSG_FIRSTHDR (&mh);
  size_t sent = 0;

  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  while (sent < len)
    {
      ssize_t w;
      iov = (struct iovec){ (void *) (buf + sent), len - sent };
      w = sendmsg (sock, &mh, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return ar_make_error (err, errno, "send the seccomp fd to " WHAT ".listenerPath `%s`",
                              path);
      sent += (size_t) w;
      mh.msg_control = NULL;
      mh.msg_controllen = 0;
    }
  return 0;
}

int
seccomp_oci_send_listener (const struct spec_seccomp *s, int notify_fd, const char *state_json,
                           ar_error_t *err)
{
  const char *path = s->listener_path;
  cleanup_free char *msg = NULL;
  cleanup_close int sock = -1;

  if (path == NULL || *path == '\0')
    return ar_make_error (err, EINVAL, WHAT ".listenerPath is not set");
  if (process_state_json (s, state_json, &msg, err) < 0)
    return ar_error_wrap (err, WHAT ".listenerPath `%s`", path);
  sock = connect_unix (path, err);
  if (sock < 0)
    return -1;
  /* One connection, one state, then closed (runtime-spec): cleanup_close ends it.  */
  return send_with_fd (sock, notify_fd, msg, strlen (msg), path, err);
}
