#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dns/dns_upstream.h"
#include "sandbox/annotations.h"
#include "sandbox/netpolicy.h"
#include "sandbox/profile.h"
#include "sandbox/sandbox.h"
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
  return 0;
}

/* --audit-log: the directory must exist; the file is created by the supervisor.  A relative
   path is taken from the current directory, as a person typing it means.  */
static int
resolve_audit_flag (const char *v, char **out, ar_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_free char *abs = NULL;
  const char *slash;

  if (v[0] == '\0' || v[strlen (v) - 1] == '/')
    return ar_make_error (err, EINVAL, "--audit-log: `%s` is not a file path", v);
  slash = strrchr (v, '/');
  dir = slash ? xstrndup (v, slash == v ? 1 : (size_t) (slash - v)) : xstrdup (".");
  abs = realpath (dir, NULL);
  if (abs == NULL)
    return ar_make_error (err, errno, "--audit-log: directory `%s`", dir);
  *out = xasprintf ("%s/%s", strcmp (abs, "/") == 0 ? "" : abs, slash ? slash + 1 : v);
  return 0;
}

/* The annotation, where the operator lets pods use it: a file directly under audit_dir, not a
   symlink nor anything but a regular file if it exists (the supervisor opens it O_NOFOLLOW,
   so one planted later fails the open).  */
static int
resolve_audit_annotation (const char *v, const struct operator_conf *op, char **out,
                          ar_error_t *err)
{
  const char *dir = op ? op->audit_dir : NULL;
  size_t n = dir ? strlen (dir) : 0;
  bool under = dir && strncmp (v, dir, n) == 0 && v[n] == '/';
  const char *name = under ? v + n + 1 : "";
  struct stat st;

  if (name[0] == '\0' || strchr (name, '/') || strcmp (name, ".") == 0 || strcmp (name, "..") == 0
      || strlen (name) > NAME_MAX)
    return ar_make_error (err, 0,
                          "annotation io.agentrt.audit: `%s`: expected a file directly under "
                          "audit_dir `%s`",
                          v, dir ? dir : "(not set)");
  if (lstat (v, &st) == 0 && !S_ISREG (st.st_mode))
    return ar_make_error (err, 0, "annotation io.agentrt.audit: `%s` is not a regular file", v);
  *out = xstrdup (v);
  return 0;
}

/* The flag wins; else the annotation; else audit_dir/ID.jsonl when the operator set audit_dir
   (create only: exec writes no log of its own).  */
static int
resolve_audit (const struct spec_map *a, const struct sandbox_flags *f, char **out, ar_error_t *err)
{
  const char *audit = sandbox_annotation (a, "io.agentrt.audit");

  if (f->audit_log)
    return resolve_audit_flag (f->audit_log, out, err);
  if (audit)
    return resolve_audit_annotation (audit, f->op, out, err);
  if (f->op && f->op->audit_dir && f->id)
    *out = xasprintf ("%s/%s.jsonl", f->op->audit_dir, f->id);
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
resolve_ptrace (const char *v, enum sandbox_ptrace *out, ar_error_t *err)
{
  if (strcmp (v, "allow") != 0 && strcmp (v, "deny") != 0)
    return ar_make_error (err, EINVAL, "annotation io.agentrt.policy.ptrace: `%s`: allow or deny",
                          v);
  *out = strcmp (v, "allow") == 0 ? SANDBOX_PTRACE_ALLOW : SANDBOX_PTRACE_DENY;
  return 0;
}

void
sandbox_resolve_ptrace (struct sandbox *sb, bool own_pidns, bool host_ptrace_cap)
{
  if (sb->ptrace != SANDBOX_PTRACE_DEFAULT)
    sb->popts.allow_ptrace = sb->ptrace == SANDBOX_PTRACE_ALLOW;
  else
    sb->popts.allow_ptrace = sb->platform == PLATFORM_SECCOMP && own_pidns && !host_ptrace_cap;
}

bool
sandbox_host_ptrace_cap (const struct spec *s)
{
  return sandbox_process_host_ptrace_cap (s, &s->process);
}

bool
sandbox_process_host_ptrace_cap (const struct spec *s, const struct spec_process *p)
{
  const struct spec_strv *b = &p->capabilities.bounding;

  for (size_t i = 0; i < s->linux_.n_namespaces; i++)
    if (s->linux_.namespaces[i].kind == SPEC_NS_USER)
      return false;
  if (!p->has_capabilities)
    return true; /* every capability is kept */
  for (size_t i = 0; i < b->n; i++)
    if (strcmp (b->v[i], "CAP_SYS_PTRACE") == 0)
      return true;
  return false;
}

/* The broker connects from the caller's network namespace, the host's, or from a pod's
   (egress.h): an allowlisted address of the host itself (its loopback, a link-local one such as
   a cloud's metadata service, one of its interfaces, or a network holding one) reaches services
   the container's own network never could.  Under an engine the caller's namespace is the
   node's, and a pod's traffic to its node is outside NetworkPolicy (Kubernetes lets it through
   whatever the policy says), so the node's addresses stay refused when the broker connects from
   the pod's namespace too; the loopback there is the pod's own (its other containers'), which
   the container would reach without the allowlist.  The operator may name any (--net-allow, or
   pod_annotations); config.json may not.  A name's answers are held to the same rule by the
   resolver (the policy's special_ok, the supervisor's host addresses).  */
static int
check_host_local (const struct netpolicy *l, const struct egress_addrs *host, bool pod,
                  ar_error_t *err)
{
  const struct netpolicy_entry *e = egress_host_local (l, host, pod);

  if (e == NULL)
    return 0;
  return ar_make_error (err, 0,
                        "annotation io.agentrt.net.allow: %s is an address of this host (%s"
                        "link-local, a cloud's metadata service or one of its interfaces), which "
                        "the broker would reach "
                        "from %s: that is the operator's to allow (--net-allow, or "
                        "pod_annotations = io.agentrt.net.allow in agentrt.conf), not "
                        "config.json's",
                        e->text, pod ? "" : "loopback, ",
                        pod ? "the pod's network" : "the host's network");
}

/* Which containers of a pod the annotation isolates (containerd's CRI marks each config.json
   with its kind and name, and copies the pod's annotations into all of them): never the pod's
   sandbox (the pause container), which holds the pod's network for the others; with
   io.agentrt.net.allow.containers only those named; else every other one.  */
static int
pod_selects (const struct spec_map *a, bool *out, ar_error_t *err)
{
  const char *type = sandbox_annotation (a, SANDBOX_CRI_TYPE);
  const char *names = sandbox_annotation (a, "io.agentrt.net.allow.containers");
  const char *name = sandbox_annotation (a, SANDBOX_CRI_NAME);
  cleanup_free char *copy = NULL;
  char *save = NULL;

  *out = !(type && strcmp (type, "sandbox") == 0);
  if (names == NULL || !*out)
    return 0;
  if (name == NULL)
    return ar_make_error (err, EINVAL,
                          "annotation io.agentrt.net.allow.containers: this container has no "
                          "name (%s, which containerd's CRI sets)",
                          SANDBOX_CRI_NAME);
  copy = xstrdup (names);
  *out = false;
  for (char *n = strtok_r (copy, ",", &save); n && !*out; n = strtok_r (NULL, ",", &save))
    *out = strcmp (n, name) == 0;
  return 0;
}

/* A container name as Kubernetes has them (an RFC 1123 label).  */
static bool
valid_container_name (const char *n, size_t len)
{
  if (len == 0 || len > 63 || n[0] == '-' || n[len - 1] == '-')
    return false;
  for (size_t i = 0; i < len; i++)
    if (!(islower ((unsigned char) n[i]) || isdigit ((unsigned char) n[i]) || n[i] == '-'))
      return false;
  return true;
}

static int
check_container_names (const char *v, bool with_list, ar_error_t *err)
{
  const char *p = v;

  if (!with_list)
    return ar_make_error (err, EINVAL,
                          "annotation io.agentrt.net.allow.containers: without "
                          "io.agentrt.net.allow there is nothing to apply to them");
  for (;;)
    {
      const char *comma = strchr (p, ',');
      size_t len = comma ? (size_t) (comma - p) : strlen (p);
      if (!valid_container_name (p, len))
        return ar_make_error (err, EINVAL,
                              "annotation io.agentrt.net.allow.containers: `%s`: a comma list "
                              "of container names (lower-case letters, digits and `-`)",
                              v);
      if (comma == NULL)
        return 0;
      p = comma + 1;
    }
}

static int
resolve_net_allow (const struct sandbox_flags *f, const struct spec_map *a, struct sandbox *out,
                   ar_error_t *err)
{
  const char *flag = f->net_allow;
  const char *annotation = sandbox_annotation (a, "io.agentrt.net.allow");
  const char *names = sandbox_annotation (a, "io.agentrt.net.allow.containers");
  bool selected = true;

  if (names && check_container_names (names, flag || annotation, err) < 0)
    return -1;
  if (flag == NULL && annotation == NULL)
    return 0;
  /* The flag is the operator's, for this container whatever config.json says it is.  */
  if (flag == NULL && pod_selects (a, &selected, err) < 0)
    return -1;
  out->egress_from = flag ? "--net-allow" : "annotation io.agentrt.net.allow";
  out->egress_annotation = flag == NULL && !operator_pod_may (f->op, "io.agentrt.net.allow");
  out->net = xzalloc (sizeof *out->net);
  if (netpolicy_parse (flag ? flag : annotation, out->egress_from, out->net, err) < 0)
    {
      free (out->net);
      out->net = NULL;
      return -1;
    }
  /* The operator's list, when agentrt.conf says so, may let a name's answers be the host's own
     addresses (netpolicy.h): never config.json's, never by the list alone.  */
  out->net->special_ok = !out->egress_annotation && f->op && f->op->dns_host_answers;
  /* Checked, so that a bad value fails the pod's sandbox too, but not applied.  */
  if (!selected)
    {
      netpolicy_release (out->net);
      free (out->net);
      out->net = NULL;
    }
  return 0;
}

/* Under the agent profile, a network namespace config.json joins stays when it is a pod's
   sandbox's (the pod's network, which its other containers join) or when the broker is to
   connect from it; otherwise the profile means no network.  */
static int
keeps_joined_net (const struct spec_map *a, const struct sandbox_flags *f, bool *out,
                  ar_error_t *err)
{
  const char *type = sandbox_annotation (a, SANDBOX_CRI_TYPE);

  *out = true;
  if ((type && strcmp (type, "sandbox") == 0) || f->net_allow)
    return 0;
  if (sandbox_annotation (a, "io.agentrt.net.allow"))
    return pod_selects (a, out, err);
  *out = false;
  return 0;
}

int
sandbox_prepare_egress (struct sandbox *sb, struct spec *s, const char *bundle,
                        const struct operator_conf *op, struct egress_netns *ns, ar_error_t *err)
{
  cleanup_free char *pod_resolv = NULL;

  if (egress_prepare_spec (s, sb->egress_from, ns, err) < 0)
    return -1;
  sb->host_addrs = xzalloc (sizeof *sb->host_addrs);
  if (egress_host_addrs (sb->host_addrs, err) < 0)
    return ar_error_wrap (err, "%s", sb->egress_from);
  if (sb->egress_annotation && check_host_local (sb->net, sb->host_addrs, ns->pod, err) < 0)
    return -1;
  if (ns->pod)
    pod_resolv = egress_pod_resolver (s, bundle);
  sb->upstream = xzalloc (sizeof *sb->upstream);
  return egress_upstream (pod_resolv, op, sb->egress_from, sb->upstream, &sb->resolv_conf, err);
}

int
sandbox_parse_size (const char *v, unsigned long long *out)
{
  char *end;
  unsigned long long n, shift = 0;

  if (!isdigit ((unsigned char) v[0]))
    return -1;
  errno = 0;
  n = strtoull (v, &end, 10);
  if (errno)
    return -1;
  switch (tolower ((unsigned char) *end))
    {
    case 'k':
      shift = 10;
      break;
    case 'm':
      shift = 20;
      break;
    case 'g':
      shift = 30;
      break;
    case 't':
      shift = 40;
      break;
    }
  if (shift)
    end++;
  if (tolower ((unsigned char) *end) == 'b')
    end++;
  if (*end != '\0' || n == 0 || n > (1ULL << 62) >> shift)
    return -1;
  *out = n << shift;
  return 0;
}

int
sandbox_parse_duration (const char *v, long long *ms)
{
  static const struct
  {
    const char *unit;
    long long ms;
  } units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60 * 1000 }, { "h", 3600 * 1000 } };
  char *end;
  long long n;

  if (!isdigit ((unsigned char) v[0]))
    return -1;
  errno = 0;
  n = strtoll (v, &end, 10);
  if (errno || n <= 0)
    return -1;
  for (size_t i = 0; i < ARRAY_SIZE (units); i++)
    if (strcmp (end, units[i].unit) == 0)
      {
        /* A year at most: a deadline beyond it is a typo, not a deadline.  */
        if (n > 366LL * 24 * 3600 * 1000 / units[i].ms)
          return -1;
        *ms = n * units[i].ms;
        return 0;
      }
  return -1;
}

/* "1", "0.5", "2.25": the CFS quota for a 100000 µs period.  */
int
sandbox_parse_cpus (const char *v, long long *quota)
{
  long long whole = 0, frac = 0, scale = 100000;
  const char *p = v;

  if (!isdigit ((unsigned char) *p))
    return -1;
  while (isdigit ((unsigned char) *p) && whole <= 1024)
    whole = whole * 10 + (*p++ - '0');
  if (*p == '.')
    for (p++; isdigit ((unsigned char) *p); p++)
      {
        scale /= 10;
        if (scale == 0)
          return -1; /* finer than a µs */
        frac += (*p - '0') * scale;
      }
  *quota = whole * 100000 + frac;
  /* The kernel's smallest quota is 1 ms.  */
  return *p == '\0' && whole <= 1024 && *quota >= 1000 ? 0 : -1;
}

static const char *
source_name (const char *flag, const char *key, bool from_flag, char *buf, size_t len)
{
  if (from_flag)
    return flag;
  snprintf (buf, len, "annotation %s", key);
  return buf;
}

/* One io.agentrt.* annotation of config.json (annotations.h): a key agentrt knows, not one it
   writes itself, and a value the operator lets config.json ask for.  */
static int
check_annotation (const char *key, const char *value, const struct operator_conf *op, bool agent,
                  ar_error_t *err)
{
  const struct annotation_key *k = annotation_lookup (key);

  if (k == NULL)
    return ar_make_error (err, 0, "unknown annotation %s", key);
  if (k->output)
    return ar_make_error (err, 0,
                          "annotation %s is written by agentrt (`state` shows it), not read from "
                          "config.json",
                          key);
  if (k->operators == NULL || !k->operators (value, agent) || operator_pod_may (op, key))
    return 0;
  return ar_make_error (
      err, 0,
      "annotation %s%s%s %s: that is the operator's to ask for (%s%spod_annotations "
      "= %s in agentrt.conf), not config.json's",
      key, k->show_value ? "=" : "", k->show_value ? value : "", k->what, k->flag ? k->flag : "",
      k->flag ? ", or " : "", key);
}

int
sandbox_check_systemd_properties (const struct spec_map *a, const struct operator_conf *op,
                                  ar_error_t *err)
{
  for (size_t i = 0; i < a->n; i++)
    if (ar_str_has_prefix (a->items[i].key, "org.systemd.property.")
        && !operator_pod_may (op, ANNOTATION_SYSTEMD_PROPERTIES))
      return ar_make_error (
          err, 0,
          "annotation %s sets a property of the container's systemd unit: that "
          "is the operator's to allow (pod_annotations = " ANNOTATION_SYSTEMD_PROPERTIES
          " in agentrt.conf), not config.json's",
          a->items[i].key);
  return 0;
}

static int
check_annotations (const struct spec_map *a, const struct operator_conf *op, bool agent,
                   ar_error_t *err)
{
  for (size_t i = 0; i < a->n; i++)
    if (annotation_is_ours (a->items[i].key)
        && check_annotation (a->items[i].key, a->items[i].value, op, agent, err) < 0)
      return -1;
  return 0;
}

/* agentrt.conf's default_profile is create's: the profile then writes its annotation, which
   exec reads (policy_only), so a container made before the operator changed the default keeps
   the profile it was made with.  */
static bool
wants_agent (const struct spec_map *a, const struct sandbox_flags *f)
{
  const char *profile = sandbox_annotation (a, "io.agentrt.profile");
  bool none_asked = profile == NULL || profile[0] == '\0';
  return f->agent || (profile && strcmp (profile, "agent") == 0)
         || (none_asked && !f->policy_only && f->op && f->op->default_agent);
}

/* agentrt.conf's defaults of the limits, which profile_apply writes where config.json has
   none: after the flags, before the agent profile's own.  */
static void
operator_defaults (const struct operator_conf *op, struct profile_edits *out)
{
  if (op == NULL)
    return;
  out->def_memory = (struct spec_i64){ op->default_memory != 0, (int64_t) op->default_memory };
  out->def_cpu_quota = (struct spec_i64){ op->default_cpu_quota != 0, op->default_cpu_quota };
  out->def_pids = (struct spec_i64){ op->default_pids != 0, op->default_pids };
  out->def_timeout = op->default_timeout;
}

int
sandbox_edits (const struct spec_map *a, const struct sandbox_flags *f, struct profile_edits *out,
               ar_error_t *err)
{
  const char *profile = sandbox_annotation (a, "io.agentrt.profile");
  unsigned long long bytes;
  long long n;

  memset (out, 0, sizeof *out);
  /* Before the profile adds annotations of its own: what config.json asked for.  */
  if (check_annotations (a, f->op, wants_agent (a, f), err) < 0)
    return -1;
  if (profile && strcmp (profile, "agent") != 0 && strcmp (profile, "") != 0)
    return ar_make_error (err, EINVAL, "annotation io.agentrt.profile: `%s`: only `agent`",
                          profile);
  out->agent = wants_agent (a, f);
  operator_defaults (f->op, out);
  out->policy_flag = f->policy != NULL;
  if (out->agent && keeps_joined_net (a, f, &out->keep_joined_net, err) < 0)
    return -1;
  /* A container smaller than this cannot even exec a shell; runc's engines refuse 6m.  */
  if (f->memory)
    {
      if (sandbox_parse_size (f->memory, &bytes) < 0 || bytes < SANDBOX_MEMORY_MIN)
        return ar_make_error (err, EINVAL,
                              "--memory: `%s`: expected a size of at least 4m (such as 512m, 2g)",
                              f->memory);
      out->memory = (struct spec_i64){ true, (int64_t) bytes };
    }
  if (f->cpus)
    {
      if (sandbox_parse_cpus (f->cpus, &n) < 0)
        return ar_make_error (err, EINVAL,
                              "--cpus: `%s`: expected a number of CPUs from 0.01 to 1024 (such as "
                              "1, 0.5)",
                              f->cpus);
      out->cpu_quota = (struct spec_i64){ true, n };
    }
  if (f->pids)
    {
      if (!ar_parse_int64 (f->pids, 1, SANDBOX_PIDS_MAX, &n))
        return ar_make_error (err, EINVAL, "--pids: `%s`: expected a number from 1 to %d", f->pids,
                              SANDBOX_PIDS_MAX);
      out->pids = (struct spec_i64){ true, n };
    }
  return 0;
}

static int
resolve_timeout (const char *v, const char *from, long long *ms, ar_error_t *err)
{
  if (sandbox_parse_duration (v, ms) < 0)
    return ar_make_error (err, EINVAL,
                          "%s: `%s`: expected a duration such as 500ms, 90s, 5m or 1h (at most a "
                          "year)",
                          from, v);
  return 0;
}

static int
resolve_disk (const char *v, const char *from, unsigned long long *bytes, ar_error_t *err)
{
  if (sandbox_parse_size (v, bytes) < 0 || *bytes < (1ULL << 20))
    return ar_make_error (err, EINVAL, "%s: `%s`: expected a size of at least 1m (such as 64m, 1g)",
                          from, v);
  return 0;
}

/* An absolute path of plain components, outside the kernel's filesystems mounted over the
   rootfs (a decoy there would be hidden by the mount).  */
static bool
canary_path_ok (const char *p)
{
  static const char *const hidden[] = { "/proc", "/sys", "/dev" };
  size_t len = strlen (p);

  if (p[0] != '/' || len < 2 || len > 255 || p[len - 1] == '/' || strstr (p, "//"))
    return false;
  for (size_t i = 0; i < ARRAY_SIZE (hidden); i++)
    {
      size_t h = strlen (hidden[i]);
      if (strncmp (p, hidden[i], h) == 0 && (p[h] == '\0' || p[h] == '/'))
        return false;
    }
  if (strstr (p, "/./") || strstr (p, "/../") || (len >= 2 && strcmp (p + len - 2, "/.") == 0)
      || (len >= 3 && strcmp (p + len - 3, "/..") == 0))
    return false;
  for (const char *c = p; *c; c++)
    if (!isgraph ((unsigned char) *c) || *c == ',')
      return false;
  return true;
}

#define CANARY_MAX 16

static int
resolve_canary (const char *v, const char *from, char ***out, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (v);
  char **paths = xzalloc ((CANARY_MAX + 1) * sizeof *paths);
  char *save = NULL;
  size_t n = 0;

  for (char *p = strtok_r (copy, ",", &save); p; p = strtok_r (NULL, ",", &save))
    {
      if (n == CANARY_MAX || !canary_path_ok (p))
        {
          int too_many = n == CANARY_MAX;
          ar_strv_free (paths);
          if (too_many)
            return ar_make_error (err, EINVAL, "%s: at most %d paths", from, CANARY_MAX);
          return ar_make_error (err, EINVAL,
                                "%s: `%s`: expected an absolute path of plain components, not "
                                "under /proc, /sys or /dev",
                                from, p);
        }
      paths[n++] = xstrdup (p);
    }
  if (n == 0)
    {
      ar_strv_free (paths);
      return ar_make_error (err, EINVAL, "%s: `%s`: no path", from, v);
    }
  *out = paths;
  return 0;
}

static int
resolve_bool (const char *v, const char *from, bool *out, ar_error_t *err)
{
  if (strcmp (v, "true") != 0 && strcmp (v, "false") != 0)
    return ar_make_error (err, EINVAL, "%s: `%s`: true or false", from, v);
  *out = strcmp (v, "true") == 0;
  return 0;
}

/* The policy's tier: --policy, else the annotation, else strict under the agent profile, else
   agentrt.conf's policy.  */
static int
resolve_policy (const struct spec_map *a, const struct sandbox_flags *f, bool agent,
                struct sandbox *out, ar_error_t *err)
{
  const char *v = f->policy ? f->policy : sandbox_annotation (a, "io.agentrt.policy");

  if (v == NULL)
    {
      out->popts.strict = agent || (f->op && f->op->strict_policy);
      return 0;
    }
  if (policy_tier_from_name (v, &out->popts.strict) < 0)
    return ar_make_error (err, 0, "%s: `%s`: expected default or strict",
                          f->policy ? "--policy" : "annotation io.agentrt.policy", v);
  /* agentrt.conf's policy = strict is the node's floor: config.json may not lower it (under
     the agent profile check_annotation has refused it already).  */
  if (!f->policy && !out->popts.strict && f->op && f->op->strict_policy
      && !operator_pod_may (f->op, "io.agentrt.policy"))
    return ar_make_error (err, 0,
                          "annotation io.agentrt.policy=default: agentrt.conf's policy = strict "
                          "is the operator's floor (pod_annotations = io.agentrt.policy in "
                          "agentrt.conf lets pods lower it), not config.json's");
  return 0;
}

/* The controls of the sandbox proper: deadline, ephemeral rootfs, disk cap, canaries.  */
static int
resolve_controls (const struct spec_map *a, const struct sandbox_flags *f, struct sandbox *out,
                  ar_error_t *err)
{
  const char *timeout = f->timeout ? f->timeout : sandbox_annotation (a, "io.agentrt.timeout");
  const char *disk = f->disk ? f->disk : sandbox_annotation (a, "io.agentrt.disk");
  const char *canary = f->canary ? f->canary : sandbox_annotation (a, "io.agentrt.canary");
  const char *eph = sandbox_annotation (a, "io.agentrt.ephemeral");
  char b[64];

  if (timeout
      && resolve_timeout (timeout,
                          source_name ("--timeout", "io.agentrt.timeout", f->timeout, b, sizeof b),
                          &out->timeout_ms, err)
             < 0)
    return -1;
  if (disk
      && resolve_disk (disk, source_name ("--disk", "io.agentrt.disk", f->disk, b, sizeof b),
                       &out->disk_bytes, err)
             < 0)
    return -1;
  if (canary
      && resolve_canary (canary,
                         source_name ("--canary", "io.agentrt.canary", f->canary, b, sizeof b),
                         &out->canaries, err)
             < 0)
    return -1;
  if (eph && resolve_bool (eph, "annotation io.agentrt.ephemeral", &out->ephemeral, err) < 0)
    return -1;
  /* The disk cap is the size of the upper layer, and decoys are planted in it.  */
  out->ephemeral = out->ephemeral || f->ephemeral || out->disk_bytes || out->canaries;
  if (out->canaries && out->platform == PLATFORM_NONE)
    return ar_make_error (err, EINVAL,
                          "%s: canaries need the supervisor, which --platform none does not run",
                          f->canary ? "--canary" : "annotation io.agentrt.canary");
  return 0;
}

/* What the ptrace platform cannot do, refused before anything is made.  A process has one
   tracer, the supervisor, so the workload cannot trace its own; and the broker needs to put a
   socket of the host's into the caller (SECCOMP_IOCTL_NOTIF_ADDFD), which has no ptrace
   counterpart.  */
static int
check_ptrace_platform (const struct sandbox *sb, ar_error_t *err)
{
  if (sb->platform != PLATFORM_PTRACE)
    return 0;
  if (sb->ptrace == SANDBOX_PTRACE_ALLOW)
    return ar_make_error (err, EINVAL,
                          "annotation io.agentrt.policy.ptrace=allow: the ptrace platform is the "
                          "workload's one tracer; use --platform seccomp");
  if (sb->net)
    return ar_make_error (err, EINVAL,
                          "%s: the egress broker needs --platform seccomp (ptrace cannot hand "
                          "the caller a socket)",
                          sb->egress_from);
  return 0;
}

int
sandbox_resolve (const struct spec_map *a, const struct sandbox_flags *f, struct sandbox *out,
                 ar_error_t *err)
{
  const char *platform = sandbox_annotation (a, "io.agentrt.platform");
  const char *release = sandbox_annotation (a, "io.agentrt.uname.release");
  const char *ptrace = sandbox_annotation (a, "io.agentrt.policy.ptrace");

  memset (out, 0, sizeof *out);
  /* exec resolves the stored annotations too, against agentrt.conf as it is now.  */
  if (check_annotations (a, f->op, wants_agent (a, f), err) < 0)
    return -1;
  if (f->platform || platform)
    {
      const char *from = f->platform ? "--platform" : "annotation io.agentrt.platform";
      if (resolve_platform (f->platform ? f->platform : platform, from, &out->platform, err) < 0)
        return -1;
    }
  if (resolve_audit (a, f, &out->audit_path, err) < 0)
    return -1;
  /* A flag only: where the log goes and how much of it there is are the operator's.  */
  if (f->audit_budget
      && (sandbox_parse_size (f->audit_budget, &out->audit_bytes) < 0
          || out->audit_bytes < AUDIT_MAX_BYTES_MIN))
    return ar_make_error (err, EINVAL,
                          "--audit-budget: `%s`: expected a size of at least 64k (such as 64m)",
                          f->audit_budget);
  if (!f->audit_budget && f->op)
    out->audit_bytes = f->op->audit_budget;
  if (release == NULL)
    out->uname_release = xstrdup (f->op && f->op->uname_release ? f->op->uname_release
                                                                : SUPERVISOR_DEFAULT_RELEASE);
  else if (resolve_release (release, &out->uname_release, err) < 0)
    return -1;
  if (ptrace && resolve_ptrace (ptrace, &out->ptrace, err) < 0)
    return -1;
  if (resolve_policy (a, f, wants_agent (a, f), out, err) < 0)
    return -1;
  out->popts.tracer_platform = out->platform == PLATFORM_PTRACE;
  if (!f->policy_only && resolve_net_allow (f, a, out, err) < 0)
    return -1;
  /* Per-program entries trust /proc/PID/exe, which PR_SET_MM can change; a list without them
     may gain some while the container runs (agentrt update), and its filter is fixed at
     create, so every container with an allowlist has it refused.  */
  out->popts.deny_set_mm = out->net != NULL;
  if (check_ptrace_platform (out, err) < 0)
    return -1;
  return resolve_controls (a, f, out, err);
}

void
sandbox_release (struct sandbox *sb)
{
  free (sb->audit_path);
  free (sb->uname_release);
  ar_strv_free (sb->canaries);
  sb->audit_path = sb->uname_release = NULL;
  if (sb->net)
    netpolicy_release (sb->net);
  free (sb->net);
  sb->net = NULL;
  free (sb->upstream);
  sb->upstream = NULL;
  free (sb->resolv_conf);
  sb->resolv_conf = NULL;
  free (sb->host_addrs);
  sb->host_addrs = NULL;
  sb->canaries = NULL;
}
