/* agentrt.conf (operator.h): read, checked strictly, and turned into a struct operator_conf.
   Nothing here acts on a container; a bad file is an error, never a default.  */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dns/dns_upstream.h"
#include "sandbox/annotations.h"
#include "sandbox/operator.h"
#include "sandbox/sandbox.h"
#include "supervisor/audit_budget.h"
#include "utils.h"

/* Far more than any real file; a bigger one is a mistake (or not a configuration).  */
#define OPERATOR_FILE_MAX (64 << 10)

struct operator_key
{
  const char *name;
  int (*set) (struct operator_conf *c, const char *value, ar_error_t *err);
};

/* An absolute path, its empty components dropped; "." or ".." refused (the directory the
   operator wrote is the one meant, not one a path walk arrives at).  */
static int
set_audit_dir (struct operator_conf *c, const char *v, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (v);
  cleanup_free char *norm = xstrdup ("");
  char *save = NULL;

  if (v[0] != '/')
    return ar_make_error (err, 0, "audit_dir: `%s`: expected an absolute path", v);
  for (char *p = strtok_r (copy, "/", &save); p; p = strtok_r (NULL, "/", &save))
    {
      char *next;
      if (strcmp (p, ".") == 0 || strcmp (p, "..") == 0)
        return ar_make_error (err, 0, "audit_dir: `%s`: `.` and `..` are not allowed", v);
      next = xasprintf ("%s/%s", norm, p);
      free (norm);
      norm = next;
    }
  if (norm[0] == '\0')
    return ar_make_error (err, 0, "audit_dir: `/`: expected a directory of its own");
  c->audit_dir = steal_ptr (&norm);
  return 0;
}

static char *
trim (char *s)
{
  char *end;

  while (*s == ' ' || *s == '\t')
    s++;
  end = s + strlen (s);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    *--end = '\0';
  return s;
}

static int
set_pod_annotations (struct operator_conf *c, const char *v, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (v);
  char **keys = xzalloc (sizeof *keys);
  size_t n = 0;
  char *p = copy;

  for (char *next; p; p = next)
    {
      const struct annotation_key *k;
      char *item;

      next = strchr (p, ',');
      if (next)
        *next++ = '\0';
      item = trim (p);
      k = annotation_lookup (item);
      if (item[0] == '\0'
          || (strcmp (item, ANNOTATION_SYSTEMD_PROPERTIES) != 0
              && (k == NULL || !k->has_operator_values)))
        {
          cleanup_free char *known = annotation_operator_keys ();
          int r = item[0] == '\0' ? ar_make_error (err, 0, "pod_annotations: an empty item")
                                  : ar_make_error (err, 0,
                                                   "pod_annotations: `%s` is not an annotation "
                                                   "with operator-only values (%s)",
                                                   item, known);
          ar_strv_free (keys);
          return r;
        }
      keys = xrealloc (keys, (n + 2) * sizeof *keys);
      keys[n++] = xstrdup (item);
      keys[n] = NULL;
    }
  c->pod_annotations = keys;
  return 0;
}

/* The same sizes as --audit-budget (sandbox_parse_size), the same floor.  */
static int
set_audit_budget (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (sandbox_parse_size (v, &c->audit_budget) < 0 || c->audit_budget < AUDIT_MAX_BYTES_MIN)
    return ar_make_error (err, 0,
                          "audit_budget: `%s`: expected a size of at least 64k (such as 64m)", v);
  return 0;
}

/* `allow` or `refuse` (the default).  */
static int
set_agent_hooks (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (strcmp (v, "allow") != 0 && strcmp (v, "refuse") != 0)
    return ar_make_error (err, 0, "agent_hooks: `%s`: expected `allow` or `refuse`", v);
  c->agent_hooks = strcmp (v, "allow") == 0;
  return 0;
}

/* The sandbox resolver's upstream servers, in place of resolv.conf's (a filtering resolver of
   the operator's, or, in tests, one on a port of its own).  */
static int
set_dns_servers (struct operator_conf *c, const char *v, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (v);
  char *save = NULL;

  c->dns_servers = xzalloc (sizeof *c->dns_servers);
  for (char *item = strtok_r (copy, ",", &save); item; item = strtok_r (NULL, ",", &save))
    if (dns_upstream_add (c->dns_servers, trim (item), "dns_servers", err) < 0)
      return -1;
  if (c->dns_servers->n == 0)
    return ar_make_error (err, 0, "dns_servers: `%s`: a comma list of ADDR[:PORT]", v);
  return 0;
}

/* May names of the operator's lists resolve to the host's loopback?  Off by default: the list
   names who may answer, not what they may answer, and a wildcard's names are run by others.  */
static int
set_dns_host_answers (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (strcmp (v, "allow") != 0 && strcmp (v, "drop") != 0)
    return ar_make_error (err, 0, "dns_host_answers: `%s`: expected allow or drop", v);
  c->dns_host_answers = strcmp (v, "allow") == 0;
  return 0;
}

/* `allow` or `refuse` (the default).  */
static int
set_supervised_without_pidns (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (strcmp (v, "allow") != 0 && strcmp (v, "refuse") != 0)
    return ar_make_error (err, 0, "supervised_without_pidns: `%s`: expected allow or refuse", v);
  c->supervised_without_pidns = strcmp (v, "allow") == 0;
  return 0;
}

/* `agent` or `none` (the default): only the profiles there are.  */
static int
set_default_profile (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (strcmp (v, "agent") != 0 && strcmp (v, "none") != 0)
    return ar_make_error (err, 0, "default_profile: `%s`: expected agent or none", v);
  c->default_agent = strcmp (v, "agent") == 0;
  return 0;
}

/* The limits' defaults take what their flags take (--memory, --cpus, --pids, --timeout), checked
   by the same parsers, so a value the flag refuses is refused here too.  */
static int
set_default_memory (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (sandbox_parse_size (v, &c->default_memory) < 0 || c->default_memory < SANDBOX_MEMORY_MIN)
    return ar_make_error (
        err, 0, "default_memory: `%s`: expected a size of at least 4m (such as 512m, 2g)", v);
  return 0;
}

static int
set_default_cpus (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (sandbox_parse_cpus (v, &c->default_cpu_quota) < 0)
    return ar_make_error (err, 0,
                          "default_cpus: `%s`: expected a number of CPUs from 0.01 to 1024 (such "
                          "as 1, 0.5)",
                          v);
  return 0;
}

static int
set_default_pids (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (!ar_parse_int64 (v, 1, SANDBOX_PIDS_MAX, &c->default_pids))
    return ar_make_error (err, 0, "default_pids: `%s`: expected a number from 1 to %d", v,
                          SANDBOX_PIDS_MAX);
  return 0;
}

static int
set_default_timeout (struct operator_conf *c, const char *v, ar_error_t *err)
{
  long long ms;

  if (sandbox_parse_duration (v, &ms) < 0)
    return ar_make_error (err, 0,
                          "default_timeout: `%s`: expected a duration such as 500ms, 90s, 5m or "
                          "1h (at most a year)",
                          v);
  c->default_timeout = xstrdup (v);
  return 0;
}

/* What io.agentrt.uname.release takes: 1 to 64 printable characters without blanks.  */
static int
set_uname_release (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (strlen (v) > 64)
    return ar_make_error (err, 0, "uname_release: 1 to 64 characters");
  for (const char *p = v; *p; p++)
    if (!isgraph ((unsigned char) *p))
      return ar_make_error (err, 0, "uname_release: `%s` has a blank", v);
  c->uname_release = xstrdup (v);
  return 0;
}

/* `default` (the default) or `strict`.  */
static int
set_policy (struct operator_conf *c, const char *v, ar_error_t *err)
{
  if (policy_tier_from_name (v, &c->strict_policy) < 0)
    return ar_make_error (err, 0, "policy: `%s`: expected default or strict", v);
  return 0;
}

static const struct operator_key operator_keys[] = {
  { "dns_servers", set_dns_servers },
  { "dns_host_answers", set_dns_host_answers },
  { "audit_dir", set_audit_dir },
  { "audit_budget", set_audit_budget },
  { "pod_annotations", set_pod_annotations },
  { "agent_hooks", set_agent_hooks },
  { "supervised_without_pidns", set_supervised_without_pidns },
  { "default_profile", set_default_profile },
  { "default_memory", set_default_memory },
  { "default_cpus", set_default_cpus },
  { "default_pids", set_default_pids },
  { "default_timeout", set_default_timeout },
  { "uname_release", set_uname_release },
  { "policy", set_policy },
};

/* `line_of`: for each key, the line that set it (0: none yet).  */
static int
parse_line (char *line, unsigned lineno, struct operator_conf *c, unsigned *line_of,
            ar_error_t *err)
{
  char *eq = strchr (line, '=');
  char *key, *value;

  if (eq == NULL)
    return ar_make_error (err, 0, "expected `key = value`");
  *eq = '\0';
  key = trim (line);
  value = trim (eq + 1);
  for (const char *p = value; *p; p++)
    if (iscntrl ((unsigned char) *p))
      return ar_make_error (err, 0, "%s: a control character in the value", key);
  for (size_t i = 0; i < ARRAY_SIZE (operator_keys); i++)
    if (strcmp (key, operator_keys[i].name) == 0)
      {
        if (line_of[i])
          return ar_make_error (err, 0, "%s: given twice (line %u)", key, line_of[i]);
        line_of[i] = lineno;
        if (value[0] == '\0')
          return ar_make_error (err, 0, "%s: empty value (leave the key out for its default)", key);
        return operator_keys[i].set (c, value, err);
      }
  return ar_make_error (err, 0, "unknown key `%s`", key);
}

static size_t
key_index (const char *name)
{
  for (size_t i = 0; i < ARRAY_SIZE (operator_keys); i++)
    if (strcmp (operator_keys[i].name, name) == 0)
      return i;
  abort ();
}

/* What one key needs of another, once the whole file is read; the error's line is that of the
   key that needs.  */
static int
check_conf (const struct operator_conf *c, const unsigned *line_of, unsigned *lineno,
            ar_error_t *err)
{
  if (operator_pod_may (c, "io.agentrt.audit") && c->audit_dir == NULL)
    {
      *lineno = line_of[key_index ("pod_annotations")];
      return ar_make_error (err, 0,
                            "pod_annotations: io.agentrt.audit needs audit_dir (the only "
                            "directory it may name a file in)");
    }
  return 0;
}

int
operator_parse (const char *text, const char *name, struct operator_conf *out, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (text);
  unsigned line_of[ARRAY_SIZE (operator_keys)] = { 0 };
  unsigned lineno = 0;
  char *line = copy;
  int r = 0;

  memset (out, 0, sizeof *out);
  for (char *next; line; line = next)
    {
      char *s;

      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      lineno++;
      s = trim (line);
      if (s[0] == '\0' || s[0] == '#')
        continue;
      r = parse_line (s, lineno, out, line_of, err);
      if (r < 0)
        break;
    }
  if (r == 0 && check_conf (out, line_of, &lineno, err) == 0)
    return 0;
  operator_release (out);
  return ar_error_wrap (err, "%s:%u", name, lineno);
}

/* Whoever may write the file decides what every pod may do: it must be the operator's alone.  */
static int
check_file (int fd, const char *path, ar_error_t *err)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "stat `%s`", path);
  if (!S_ISREG (st.st_mode))
    return ar_make_error (err, 0, "`%s` is not a regular file", path);
  if (st.st_uid != 0 && st.st_uid != geteuid ())
    return ar_make_error (err, 0, "`%s` is owned by uid %u, not by root", path,
                          (unsigned) st.st_uid);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return ar_make_error (err, 0, "`%s` is writable by group or others", path);
  return 0;
}

int
operator_load (const char *path, bool named, struct operator_conf *out, ar_error_t *err)
{
  /* O_NONBLOCK: a FIFO put there is refused by check_file, not waited on.  */
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  cleanup_free char *text = NULL;
  size_t len;

  memset (out, 0, sizeof *out);
  if (fd < 0 && errno == ENOENT && !named)
    return 0;
  if (fd < 0)
    return ar_make_error (err, errno, "operator configuration `%s`", path);
  if (check_file (fd, path, err) < 0)
    return -1;
  if (ar_read_fd (fd, path, OPERATOR_FILE_MAX, &text, &len, err) < 0)
    return -1;
  if (strlen (text) != len)
    return ar_make_error (err, 0, "`%s`: a NUL byte: not a text file", path);
  if (operator_parse (text, path, out, err) < 0)
    return -1;
  out->path = xstrdup (path);
  return 0;
}

void
operator_release (struct operator_conf *c)
{
  free (c->path);
  free (c->audit_dir);
  ar_strv_free (c->pod_annotations);
  free (c->dns_servers);
  free (c->default_timeout);
  free (c->uname_release);
  memset (c, 0, sizeof *c);
}

bool
operator_pod_may (const struct operator_conf *c, const char *key)
{
  for (size_t i = 0; c && c->pod_annotations && c->pod_annotations[i]; i++)
    if (strcmp (c->pod_annotations[i], key) == 0)
      return true;
  return false;
}

int
operator_make_audit_dir (const struct operator_conf *c, ar_error_t *err)
{
  cleanup_free char *p = c->audit_dir ? xstrdup (c->audit_dir) : NULL;
  struct stat st;

  if (p == NULL)
    return 0;
  for (char *s = p + 1;; s++)
    {
      bool last = *s == '\0';
      if (*s != '/' && !last)
        continue;
      *s = '\0';
      if (mkdir (p, last ? 0750 : 0755) < 0 && errno != EEXIST)
        return ar_make_error (err, errno, "audit_dir: mkdir `%s`", p);
      if (last)
        break;
      *s = '/';
    }
  if (stat (p, &st) < 0)
    return ar_make_error (err, errno, "audit_dir `%s`", p);
  if (!S_ISDIR (st.st_mode))
    return ar_make_error (err, ENOTDIR, "audit_dir `%s`", p);
  return 0;
}
