#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox.h"
#include "supervisor/supervisor.h"
#include "utils.h"

static const char *const platform_names[] = { "seccomp", "none", "ptrace" };

const char *
sandbox_platform_name (enum sandbox_platform p)
{
  return (unsigned) p < ARRAY_SIZE (platform_names) ? platform_names[p] : "?";
}

int
sandbox_platform_from_name (const char *name, enum sandbox_platform *out)
{
  for (size_t i = 0; i < ARRAY_SIZE (platform_names); i++)
    if (strcmp (name, platform_names[i]) == 0)
      {
        *out = (enum sandbox_platform) i;
        return 0;
      }
  return -1;
}

const char *
sandbox_annotation (const struct spec_map *a, const char *key)
{
  for (size_t i = 0; i < a->n; i++)
    if (strcmp (a->items[i].key, key) == 0)
      return a->items[i].value;
  return NULL;
}

static int
resolve_platform (const char *v, const char *from, enum sandbox_platform *out, ar_error_t *err)
{
  if (sandbox_platform_from_name (v, out) < 0)
    return ar_make_error (err, EINVAL, "%s: unknown platform `%s` (seccomp, none or ptrace)", from,
                          v);
  /* The ptrace platform (SECCOMP_RET_TRACE and a tracer) is designed, not built.  */
  if (*out == PLATFORM_PTRACE)
    return ar_make_error (err, ENOSYS, "%s: platform `ptrace`: not supported yet", from);
  return 0;
}

/* The directory of an audit log must exist; the file is created by the supervisor.  A relative
   --audit-log is taken from the current directory, as a person typing it means.  */
static int
resolve_audit (const char *v, const char *from, bool flag, char **out, ar_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_free char *abs = NULL;
  const char *slash;

  if (v[0] == '\0' || v[strlen (v) - 1] == '/')
    return ar_make_error (err, EINVAL, "%s: `%s` is not a file path", from, v);
  if (v[0] != '/' && !flag)
    return ar_make_error (err, EINVAL, "%s: `%s` must be an absolute path", from, v);
  slash = strrchr (v, '/');
  dir = slash ? xstrndup (v, slash == v ? 1 : (size_t) (slash - v)) : xstrdup (".");
  abs = realpath (dir, NULL);
  if (abs == NULL)
    return ar_make_error (err, errno, "%s: directory `%s`", from, dir);
  *out = xasprintf ("%s/%s", strcmp (abs, "/") == 0 ? "" : abs, slash ? slash + 1 : v);
  return 0;
}

static int
resolve_release (const char *v, char **out, ar_error_t *err)
{
  size_t n = strlen (v);

  if (n == 0 || n > 64)
    return ar_make_error (err, EINVAL, "annotation io.agentrt.uname.release: 1 to 64 characters");
  for (size_t i = 0; i < n; i++)
    if (!isgraph ((unsigned char) v[i]))
      return ar_make_error (err, EINVAL,
                            "annotation io.agentrt.uname.release: `%s` has a blank or control "
                            "character",
                            v);
  *out = xstrdup (v);
  return 0;
}

static int
resolve_ptrace (const char *v, bool *out, ar_error_t *err)
{
  if (strcmp (v, "allow") != 0 && strcmp (v, "deny") != 0)
    return ar_make_error (err, EINVAL, "annotation io.agentrt.policy.ptrace: `%s`: allow or deny",
                          v);
  *out = strcmp (v, "allow") == 0;
  return 0;
}

static int
resolve_net_allow (const char *flag, const char *annotation, struct sandbox *out, ar_error_t *err)
{
  out->egress_from = flag ? "--net-allow" : "annotation io.agentrt.net.allow";
  out->egress = xzalloc (sizeof *out->egress);
  if (egress_parse (flag ? flag : annotation, out->egress_from, out->egress, err) < 0)
    {
      free (out->egress);
      out->egress = NULL;
      return -1;
    }
  return 0;
}

int
sandbox_resolve (const struct spec_map *a, const struct sandbox_flags *f, struct sandbox *out,
                 ar_error_t *err)
{
  const char *platform = sandbox_annotation (a, "io.agentrt.platform");
  const char *audit = sandbox_annotation (a, "io.agentrt.audit");
  const char *release = sandbox_annotation (a, "io.agentrt.uname.release");
  const char *ptrace = sandbox_annotation (a, "io.agentrt.policy.ptrace");
  const char *net_allow = sandbox_annotation (a, "io.agentrt.net.allow");

  memset (out, 0, sizeof *out);
  if (f->platform || platform)
    {
      const char *from = f->platform ? "--platform" : "annotation io.agentrt.platform";
      if (resolve_platform (f->platform ? f->platform : platform, from, &out->platform, err) < 0)
        return -1;
    }
  if (f->audit_log || audit)
    {
      const char *from = f->audit_log ? "--audit-log" : "annotation io.agentrt.audit";
      if (resolve_audit (f->audit_log ? f->audit_log : audit, from, f->audit_log != NULL,
                         &out->audit_path, err)
          < 0)
        return -1;
    }
  if (release == NULL)
    out->uname_release = xstrdup (SUPERVISOR_DEFAULT_RELEASE);
  else if (resolve_release (release, &out->uname_release, err) < 0)
    return -1;
  if (ptrace && resolve_ptrace (ptrace, &out->popts.allow_ptrace, err) < 0)
    return -1;
  if (!f->policy_only && (f->net_allow || net_allow)
      && resolve_net_allow (f->net_allow, net_allow, out, err) < 0)
    return -1;
  return 0;
}

void
sandbox_release (struct sandbox *sb)
{
  free (sb->audit_path);
  free (sb->uname_release);
  sb->audit_path = sb->uname_release = NULL;
  if (sb->egress)
    egress_release (sb->egress);
  free (sb->egress);
  sb->egress = NULL;
}
