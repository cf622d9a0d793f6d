/* Unit tests of agentrt.conf (sandbox/operator.c) and of who may ask for what through
   annotations (sandbox/annotations.c, as sandbox_resolve applies it).  Runs without root.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/operator.h"
#include "sandbox/netpolicy.h"
#include "sandbox/sandbox.h"
#include "tap.h"
#include "utils.h"

static char tmp_dir[] = "/tmp/agentrt-test-operator.XXXXXX";

static bool
err_is (ar_error_t *err, const char *want)
{
  cleanup_free char *text = *err ? ar_error_text (*err) : xstrdup ("(no error)");
  bool ok = strcmp (text, want) == 0;
  if (!ok)
    printf ("# error `%s`, expected `%s`\n", text, want);
  ar_error_release (err);
  return ok;
}

/* Parse `text`; expect the error `want` (NULL: success, and the result stays in *c).  */
static bool
parse_is (const char *text, const char *want, struct operator_conf *c)
{
  ar_error_t err = NULL;
  int r = operator_parse (text, "agentrt.conf", c, &err);

  if (want == NULL)
    {
      if (r < 0)
        return err_is (&err, "(success)");
      return true;
    }
  return r < 0 && c->audit_dir == NULL && c->pod_annotations == NULL && err_is (&err, want);
}

static int
test_parse_good (void)
{
  struct operator_conf c;

  CHECK (parse_is ("", NULL, &c));
  CHECK (c.audit_dir == NULL && c.pod_annotations == NULL);
  CHECK (parse_is ("# agentrt.conf\n\n  # indented comment\naudit_dir = /var/log/agentrt\n"
                   "pod_annotations=io.agentrt.audit , io.agentrt.platform\n",
                   NULL, &c));
  CHECK_STR (c.audit_dir, "/var/log/agentrt");
  CHECK_STR (c.pod_annotations[0], "io.agentrt.audit");
  CHECK_STR (c.pod_annotations[1], "io.agentrt.platform");
  CHECK (c.pod_annotations[2] == NULL);
  CHECK (operator_pod_may (&c, "io.agentrt.platform"));
  CHECK (!operator_pod_may (&c, "io.agentrt.policy.ptrace"));
  CHECK (!operator_pod_may (NULL, "io.agentrt.platform"));
  CHECK (!operator_pod_may (&c, "org.systemd.property.*"));
  operator_release (&c);
  /* The systemd driver's unit properties, as one family.  */
  CHECK (parse_is ("pod_annotations = org.systemd.property.*\n", NULL, &c));
  CHECK (operator_pod_may (&c, "org.systemd.property.*"));
  operator_release (&c);
  /* Empty components dropped, no trailing slash; no final newline needed.  */
  CHECK (parse_is ("\taudit_dir\t=\t//var//log/agentrt/", NULL, &c));
  CHECK_STR (c.audit_dir, "/var/log/agentrt");
  operator_release (&c);
  CHECK (parse_is ("audit_budget = 16m\n", NULL, &c));
  CHECK (c.audit_budget == 16ULL << 20 && !c.dns_host_answers);
  operator_release (&c);
  CHECK (parse_is ("dns_host_answers = allow\n", NULL, &c) && c.dns_host_answers);
  operator_release (&c);
  CHECK (parse_is ("dns_host_answers = drop\n", NULL, &c) && !c.dns_host_answers);
  operator_release (&c);
  CHECK (parse_is ("audit_budget = 16m\n", NULL, &c));
  CHECK (!c.supervised_without_pidns);
  operator_release (&c);
  CHECK (parse_is ("supervised_without_pidns = allow\n", NULL, &c));
  CHECK (c.supervised_without_pidns);
  operator_release (&c);
  CHECK (parse_is ("supervised_without_pidns = refuse\n", NULL, &c));
  CHECK (!c.supervised_without_pidns);
  operator_release (&c);
  /* The node's defaults: none unless given.  */
  CHECK (parse_is ("", NULL, &c));
  CHECK (!c.default_agent && c.default_memory == 0 && c.default_cpu_quota == 0);
  CHECK (c.default_pids == 0 && c.default_timeout == NULL && c.uname_release == NULL);
  CHECK (parse_is ("default_profile = agent\ndefault_memory = 1g\ndefault_cpus = 0.5\n"
                   "default_pids = 64\ndefault_timeout = 90s\nuname_release = 6.1.0-lts\n",
                   NULL, &c));
  CHECK (c.default_agent && c.default_memory == 1ULL << 30 && c.default_cpu_quota == 50000);
  CHECK (c.default_pids == 64);
  CHECK_STR (c.default_timeout, "90s");
  CHECK_STR (c.uname_release, "6.1.0-lts");
  operator_release (&c);
  CHECK (parse_is ("default_profile = none\n", NULL, &c) && !c.default_agent);
  operator_release (&c);
  CHECK (parse_is ("policy = strict\n", NULL, &c));
  CHECK (c.strict_policy);
  operator_release (&c);
  CHECK (parse_is ("policy = default\n", NULL, &c));
  CHECK (!c.strict_policy);
  operator_release (&c);
  return 0;
}

static int
test_parse_errors (void)
{
  struct operator_conf c;

  CHECK (parse_is ("audit_dir = /a\nbogus = 1\n", "agentrt.conf:2: unknown key `bogus`", &c));
  CHECK (parse_is ("\n\naudit_dir /a\n", "agentrt.conf:3: expected `key = value`", &c));
  CHECK (parse_is ("audit_dir = /a\naudit_dir = /b\n",
                   "agentrt.conf:2: audit_dir: given twice (line 1)", &c));
  CHECK (parse_is ("audit_dir =\n",
                   "agentrt.conf:1: audit_dir: empty value (leave the key out for its default)",
                   &c));
  CHECK (parse_is (" = /a\n", "agentrt.conf:1: unknown key ``", &c));
  CHECK (parse_is ("audit_dir = /a\r\n",
                   "agentrt.conf:1: audit_dir: a control character in the "
                   "value",
                   &c));
  CHECK (parse_is ("audit_dir = var/log\n",
                   "agentrt.conf:1: audit_dir: `var/log`: expected an absolute path", &c));
  CHECK (parse_is ("audit_dir = /var/../etc\n",
                   "agentrt.conf:1: audit_dir: `/var/../etc`: `.` and `..` are not allowed", &c));
  CHECK (parse_is ("audit_dir = ///\n",
                   "agentrt.conf:1: audit_dir: `/`: expected a directory of its own", &c));
  /* containerd's pattern is not ours: only keys with operator-only values may be listed.  */
  CHECK (parse_is ("pod_annotations = io.agentrt.*\n",
                   "agentrt.conf:1: pod_annotations: `io.agentrt.*` is not an annotation with "
                   "operator-only values (io.agentrt.audit, io.agentrt.ephemeral, "
                   "io.agentrt.net.allow, io.agentrt.platform, io.agentrt.policy, "
                   "io.agentrt.policy.ptrace, org.systemd.property.*)",
                   &c));
  CHECK (parse_is ("pod_annotations = io.agentrt.timeout\n",
                   "agentrt.conf:1: pod_annotations: `io.agentrt.timeout` is not an annotation "
                   "with operator-only values (io.agentrt.audit, io.agentrt.ephemeral, "
                   "io.agentrt.net.allow, io.agentrt.platform, io.agentrt.policy, "
                   "io.agentrt.policy.ptrace, org.systemd.property.*)",
                   &c));
  CHECK (parse_is ("pod_annotations = io.agentrt.platform,,io.agentrt.audit\n",
                   "agentrt.conf:1: pod_annotations: an empty item", &c));
  CHECK (parse_is ("default_profile = strict\n",
                   "agentrt.conf:1: default_profile: `strict`: expected agent or none", &c));
  CHECK (parse_is ("default_memory = 1m\n",
                   "agentrt.conf:1: default_memory: `1m`: expected a size of at least 4m (such "
                   "as 512m, 2g)",
                   &c));
  CHECK (parse_is ("default_cpus = 0.001\n",
                   "agentrt.conf:1: default_cpus: `0.001`: expected a number of CPUs from 0.01 "
                   "to 1024 (such as 1, 0.5)",
                   &c));
  CHECK (parse_is ("default_pids = 0\n",
                   "agentrt.conf:1: default_pids: `0`: expected a number from 1 to 4194304", &c));
  CHECK (parse_is ("\ndefault_timeout = 10\n",
                   "agentrt.conf:2: default_timeout: `10`: expected a duration such as 500ms, "
                   "90s, 5m or 1h (at most a year)",
                   &c));
  CHECK (parse_is ("uname_release = 6.1 lts\n",
                   "agentrt.conf:1: uname_release: `6.1 lts` has a blank", &c));
  CHECK (parse_is ("uname_release = "
                   "01234567890123456789012345678901234567890123456789012345678901234\n",
                   "agentrt.conf:1: uname_release: 1 to 64 characters", &c));
  CHECK (parse_is ("policy = allowlist\n",
                   "agentrt.conf:1: policy: `allowlist`: expected default or strict", &c));
  CHECK (parse_is ("supervised_without_pidns = yes\n",
                   "agentrt.conf:1: supervised_without_pidns: `yes`: expected allow or refuse",
                   &c));
  CHECK (parse_is ("audit_budget = 63k\n",
                   "agentrt.conf:1: audit_budget: `63k`: expected a size of at least 64k (such as "
                   "64m)",
                   &c));
  CHECK (parse_is ("dns_host_answers = yes\n",
                   "agentrt.conf:1: dns_host_answers: `yes`: expected allow or drop", &c));
  CHECK (parse_is ("# no audit_dir\npod_annotations = io.agentrt.audit\n",
                   "agentrt.conf:2: pod_annotations: io.agentrt.audit needs audit_dir (the only "
                   "directory it may name a file in)",
                   &c));
  return 0;
}

static char *
write_conf (const char *name, const char *text, mode_t mode)
{
  char *path = xasprintf ("%s/%s", tmp_dir, name);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  if (fd < 0 || write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    abort ();
  close (fd);
  if (chmod (path, mode) < 0)
    abort ();
  return path;
}

static int
test_load (void)
{
  cleanup_free char *good = write_conf ("good.conf", "audit_dir = /x\n", 0644);
  cleanup_free char *gw = write_conf ("gw.conf", "audit_dir = /x\n", 0664);
  cleanup_free char *missing = xasprintf ("%s/missing.conf", tmp_dir);
  cleanup_free char *fifo = xasprintf ("%s/fifo.conf", tmp_dir);
  cleanup_free char *want = NULL;
  struct operator_conf c;
  ar_error_t err = NULL;

  CHECK (operator_load (good, true, &c, &err) == 0);
  CHECK_STR (c.path, good);
  CHECK_STR (c.audit_dir, "/x");
  operator_release (&c);
  /* The default may be missing: every key has its default.  A file named is meant.  */
  CHECK (operator_load (missing, false, &c, &err) == 0 && c.path == NULL && c.audit_dir == NULL);
  want = xasprintf ("operator configuration `%s`: %s", missing, strerror (ENOENT));
  CHECK (operator_load (missing, true, &c, &err) < 0 && err_is (&err, want));
  free (want);
  want = xasprintf ("`%s` is writable by group or others", gw);
  CHECK (operator_load (gw, false, &c, &err) < 0 && err_is (&err, want));
  free (want);
  /* Not waited on: refused as what it is.  */
  CHECK (mkfifo (fifo, 0600) == 0);
  want = xasprintf ("`%s` is not a regular file", fifo);
  CHECK (operator_load (fifo, true, &c, &err) < 0 && err_is (&err, want));
  free (want);
  want = xasprintf ("`%s` is not a regular file", tmp_dir);
  CHECK (operator_load (tmp_dir, true, &c, &err) < 0 && err_is (&err, want));
  free (want);
  /* A parse error names the file as given, and its line.  */
  free (good);
  good = write_conf ("bad.conf", "\naudit_dirr = /x\n", 0600);
  want = xasprintf ("%s:2: unknown key `audit_dirr`", good);
  CHECK (operator_load (good, true, &c, &err) < 0 && err_is (&err, want));
  unlink (good);
  unlink (gw);
  unlink (fifo);
  return 0;
}

static int
test_load_owner (void)
{
  cleanup_free char *path = write_conf ("owned.conf", "", 0644);
  cleanup_free char *want = NULL;
  struct operator_conf c;
  ar_error_t err = NULL;

  if (geteuid () != 0)
    {
      unlink (path);
      printf ("# needs root to give the file away\n");
      return 77;
    }
  CHECK (chown (path, 65534, 65534) == 0);
  want = xasprintf ("`%s` is owned by uid 65534, not by root", path);
  CHECK (operator_load (path, true, &c, &err) < 0 && err_is (&err, want));
  unlink (path);
  return 0;
}

static int
test_make_audit_dir (void)
{
  cleanup_free char *dir = xasprintf ("%s/logs/agentrt", tmp_dir);
  cleanup_free char *file = xasprintf ("%s/good.conf", tmp_dir);
  struct operator_conf c = { .audit_dir = dir };
  struct operator_conf none = { 0 };
  ar_error_t err = NULL;
  struct stat st;

  CHECK (operator_make_audit_dir (&none, &err) == 0);
  CHECK (operator_make_audit_dir (&c, &err) == 0);
  CHECK (stat (dir, &st) == 0 && S_ISDIR (st.st_mode) && (st.st_mode & 07777) == 0750);
  CHECK (operator_make_audit_dir (&c, &err) == 0); /* there already */
  rmdir (dir);
  free (dir);
  c.audit_dir = dir = xasprintf ("%s/logs", tmp_dir);
  rmdir (dir);
  free (dir);
  /* A file where the directory should be.  */
  close (open (file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  c.audit_dir = dir = xstrdup (file);
  CHECK (operator_make_audit_dir (&c, &err) < 0);
  ar_error_release (&err);
  unlink (file);
  return 0;
}

/* sandbox_resolve of annotations `kv` (key, value, …, NULL) with agentrt.conf `op`; the error
   text, or "" for success.  */
/* As create goes on with an allowlist: a config without a network namespace, so the broker's is
   ours (the host's).  */
static int
prepare_egress (struct sandbox *sb, const struct operator_conf *op, ar_error_t *err)
{
  struct spec s;
  struct egress_netns ns;
  int r;

  if (sb->net == NULL)
    return 0;
  memset (&s, 0, sizeof s);
  r = sandbox_prepare_egress (sb, &s, "/", op, &ns, err);
  free (s.linux_.namespaces);
  return r;
}

static char *
resolve (const struct operator_conf *op, const char *id, ...)
{
  struct spec_kv items[16];
  struct spec_map a = { items, 0 };
  struct sandbox_flags f = { .op = op, .id = id };
  struct sandbox sb;
  ar_error_t err = NULL;
  const char *k;
  char *out;
  va_list ap;

  va_start (ap, id);
  while ((k = va_arg (ap, const char *)) != NULL)
    {
      items[a.n].key = (char *) k;
      items[a.n++].value = va_arg (ap, char *);
    }
  va_end (ap);
  if (sandbox_resolve (&a, &f, &sb, &err) < 0 || prepare_egress (&sb, op, &err) < 0)
    {
      out = ar_error_text (err);
      ar_error_release (&err);
      sandbox_release (&sb);
      return out;
    }
  out = xstrdup (sb.audit_path ? sb.audit_path : "");
  sandbox_release (&sb);
  return out;
}

#define CHECK_RESOLVE(want, ...)                             \
  do                                                         \
    {                                                        \
      cleanup_free char *got_ = resolve (__VA_ARGS__, NULL); \
      CHECK_STR (got_, want);                                \
    }                                                        \
  while (0)

static int
test_annotations_who (void)
{
  struct operator_conf none = { 0 };

  /* The pod's: they only tighten, or change nothing outside.  */
  CHECK_RESOLVE ("", &none, "c1", "io.agentrt.platform", "ptrace", "io.agentrt.timeout", "5m",
                 "io.agentrt.policy.ptrace", "deny", "io.agentrt.ephemeral", "true",
                 "io.agentrt.uname.release", "6.1.0", "other.key", "x");
  /* Without the agent profile, not ephemeral is what every runc container is.  */
  CHECK_RESOLVE ("", &none, "c1", "io.agentrt.ephemeral", "false");
  /* The strict tier tightens; the default tier is the default without the agent profile.  */
  CHECK_RESOLVE ("", &none, "c1", "io.agentrt.policy", "strict");
  CHECK_RESOLVE ("", &none, "c1", "io.agentrt.policy", "default");
  CHECK_RESOLVE ("", &none, "c1", "io.agentrt.profile", "agent", "io.agentrt.policy", "strict");
  CHECK_RESOLVE ("annotation io.agentrt.policy: `lax`: expected default or strict", &none, "c1",
                 "io.agentrt.policy", "lax");
  CHECK_RESOLVE ("unknown annotation io.agentrt.timout", NULL, "c1", "io.agentrt.timout", "5m");
  CHECK_RESOLVE ("unknown annotation IO.AGENTRT.timeout", NULL, "c1", "IO.AGENTRT.timeout", "5m");
  CHECK_RESOLVE ("annotation io.agentrt.stop.reason is written by agentrt (`state` shows it), not "
                 "read from config.json",
                 NULL, "c1", "io.agentrt.stop.reason", "timeout");
  CHECK_RESOLVE ("annotation io.agentrt.audit.alerts is written by agentrt (`state` shows it), "
                 "not read from config.json",
                 NULL, "c1", "io.agentrt.audit.alerts", "0");
  CHECK_RESOLVE ("annotation io.agentrt.platform=none turns the supervisor off: that is the "
                 "operator's to ask for (--platform none, or pod_annotations = io.agentrt.platform "
                 "in agentrt.conf), not config.json's",
                 &none, "c1", "io.agentrt.platform", "none");
  CHECK_RESOLVE ("annotation io.agentrt.audit names a file on the host: that is the operator's to "
                 "ask for (--audit-log or audit_dir, or pod_annotations = io.agentrt.audit in "
                 "agentrt.conf), not config.json's",
                 &none, "c1", "io.agentrt.audit", "/etc/passwd");
  CHECK_RESOLVE ("annotation io.agentrt.policy.ptrace=allow lets the workload trace where the "
                 "default refuses it: that is the operator's to ask for (pod_annotations = "
                 "io.agentrt.policy.ptrace in agentrt.conf), not config.json's",
                 &none, "c1", "io.agentrt.policy.ptrace", "allow");
  CHECK_RESOLVE ("annotation io.agentrt.ephemeral=false under the agent profile lets the workload "
                 "write into the bundle: that is the operator's to ask for (pod_annotations = "
                 "io.agentrt.ephemeral in agentrt.conf), not config.json's",
                 &none, "c1", "io.agentrt.profile", "agent", "io.agentrt.ephemeral", "false");
  CHECK_RESOLVE ("annotation io.agentrt.policy=default under the agent profile turns the strict "
                 "allowlist off: that is the operator's to ask for (--policy default, or "
                 "pod_annotations = io.agentrt.policy in agentrt.conf), not config.json's",
                 &none, "c1", "io.agentrt.profile", "agent", "io.agentrt.policy", "default");
  return 0;
}

/* Which tier sandbox_resolve picks: --policy, else the annotation, else strict under the agent
   profile, else agentrt.conf's policy.  -1: refused.  */
static int
tier_of (const struct operator_conf *op, const char *flag, bool agent, const char *annotation)
{
  struct spec_kv items[2];
  struct spec_map a = { items, 0 };
  struct sandbox_flags f = { .op = op, .policy = flag, .agent = agent, .policy_only = true };
  struct sandbox sb;
  ar_error_t err = NULL;
  int r;

  if (annotation)
    items[a.n++] = (struct spec_kv){ (char *) "io.agentrt.policy", (char *) annotation };
  r = sandbox_resolve (&a, &f, &sb, &err) < 0 ? -1 : sb.popts.strict;
  sandbox_release (&sb);
  ar_error_release (&err);
  return r;
}

static int
test_policy_tier (void)
{
  char *pods[] = { (char *) "io.agentrt.policy", NULL };
  struct operator_conf none = { 0 }, strict = { .strict_policy = true };
  struct operator_conf strict_pods = { .strict_policy = true, .pod_annotations = pods };

  CHECK (tier_of (&none, NULL, false, NULL) == 0);   /* the default does not change */
  CHECK (tier_of (&none, NULL, true, NULL) == 1);    /* the agent profile's */
  CHECK (tier_of (&strict, NULL, false, NULL) == 1); /* agentrt.conf's policy = strict */
  CHECK (tier_of (&none, NULL, false, "strict") == 1);
  /* agentrt.conf's strict is the node's floor: config.json lowers it only where pods may.  */
  CHECK (tier_of (&strict, NULL, false, "default") == -1);
  CHECK (tier_of (&strict_pods, NULL, false, "default") == 0);
  CHECK (tier_of (&strict, "default", false, NULL) == 0); /* the operator's flag may */
  CHECK (tier_of (&none, "default", true, NULL) == 0);    /* the operator's flag wins */
  CHECK (tier_of (&none, "strict", false, "default") == 1);
  CHECK (tier_of (&none, NULL, true, "default") == -1); /* config.json may not loosen it */
  CHECK (tier_of (&none, "lax", false, NULL) == -1);
  return 0;
}

static int
test_annotations_allowed (void)
{
  cleanup_free char *dir = xasprintf ("%s/audit", tmp_dir);
  cleanup_free char *inside = xasprintf ("%s/mine.jsonl", dir);
  cleanup_free char *link = xasprintf ("%s/link.jsonl", dir);
  cleanup_free char *deeper = xasprintf ("%s/sub/x.jsonl", dir);
  cleanup_free char *dotdot = xasprintf ("%s/../x.jsonl", dir);
  cleanup_free char *sibling = xasprintf ("%s-other/x.jsonl", dir);
  cleanup_free char *want = NULL;
  char *keys[] = { (char *) "io.agentrt.audit", (char *) "io.agentrt.platform", NULL };
  struct operator_conf op = { .audit_dir = dir, .pod_annotations = keys };
  struct operator_conf dir_only = { .audit_dir = dir };

  CHECK (mkdir (dir, 0750) == 0);
  CHECK (symlink ("/etc/passwd", link) == 0);
  /* audit_dir places every log: ID.jsonl.  */
  want = xasprintf ("%s/c1.jsonl", dir);
  CHECK_RESOLVE (want, &dir_only, "c1", "k", "v");
  CHECK_RESOLVE ("", &dir_only, NULL, "k", "v"); /* exec: no log of its own */
  CHECK_RESOLVE (want, &op, "c1", "io.agentrt.platform", "none");
  CHECK_RESOLVE (inside, &op, "c1", "io.agentrt.audit", inside);
  free (want);
  want = xasprintf ("annotation io.agentrt.audit: `%s` is not a regular file", link);
  CHECK_RESOLVE (want, &op, "c1", "io.agentrt.audit", link);
  const char *outside[] = { deeper, dotdot, sibling, "/etc/passwd", "relative.jsonl", dir };
  for (size_t i = 0; i < ARRAY_SIZE (outside); i++)
    {
      free (want);
      want = xasprintf ("annotation io.agentrt.audit: `%s`: expected a file directly under "
                        "audit_dir `%s`",
                        outside[i], dir);
      CHECK_RESOLVE (want, &op, "c1", "io.agentrt.audit", outside[i]);
    }
  unlink (link);
  rmdir (dir);
  return 0;
}

static int
test_net_allow_host (void)
{
  char *keys[] = { (char *) "io.agentrt.net.allow", NULL };
  struct operator_conf op = { .pod_annotations = keys };
  const char *local[] = { "127.0.0.1:80",       "[::1]:80",     "0.0.0.0:80",
                          "169.254.169.254:80", "[fe80::1]:80", "[::ffff:127.0.0.2]:80",
                          "127.0.0.0/8:*" };

  for (size_t i = 0; i < ARRAY_SIZE (local); i++)
    {
      cleanup_free char *got = resolve (NULL, "c1", "io.agentrt.net.allow", local[i], NULL);
      if (strstr (got, "is an address of this host") == NULL)
        TAP_FAIL ("%s: got `%s`", local[i], got);
      free (got);
      got = resolve (&op, "c1", "io.agentrt.net.allow", local[i], NULL);
      CHECK_STR (got, "");
    }
  /* An address of no interface here is the pod's to allow.  A name is too: its answers are
     held to the same rule when they come (the resolver drops the host's, dns_pins.h).  */
  CHECK_RESOLVE ("", NULL, "c1", "io.agentrt.net.allow", "192.0.2.1:443");
  CHECK_RESOLVE ("", NULL, "c1", "io.agentrt.net.allow", "localhost:80");
  return 0;
}

/* From a CNI pod's namespace the loopback is the pod's own; the rest of the host's addresses
   stay the host's.  */
static int
test_net_allow_pod_loopback (void)
{
  static const struct
  {
    const char *list;
    ssize_t host, pod;
  } cases[] = {
    { "127.0.0.1:80", 0, -1 },
    { "[::1]:80", 0, -1 },
    { "[::ffff:127.0.0.2]:80", 0, -1 },
    { "192.0.2.1:80,127.0.0.1:80", 1, -1 },
    { "0.0.0.0:80", 0, 0 },
    { "169.254.169.254:80", 0, 0 },
    { "[fe80::1]:80", 0, 0 },
    { "127.0.0.1:80,169.254.1.1:80", 0, 1 },
    { "192.0.2.1:443", -1, -1 },
    { "10.0.0.0/8:443", -1, -1 },
    { "0.0.0.0/0:443", 0, 0 },
    { "example.com:443,127.0.0.0/8:*", 1, -1 },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      struct netpolicy l;
      ar_error_t err = NULL;
      const struct netpolicy_entry *h, *p;
      ssize_t host, pod;
      if (netpolicy_parse (cases[i].list, "t", &l, &err) < 0)
        {
          ar_error_release (&err);
          TAP_FAIL ("%s: parse", cases[i].list);
        }
      h = egress_host_local (&l, NULL, false);
      p = egress_host_local (&l, NULL, true);
      host = h ? h - l.entries : -1;
      pod = p ? p - l.entries : -1;
      netpolicy_release (&l);
      if (host != cases[i].host || pod != cases[i].pod)
        TAP_FAIL ("%s: host %zd pod %zd, want %zd %zd", cases[i].list, host, pod, cases[i].host,
                  cases[i].pod);
    }
  return 0;
}

/* io.agentrt.net.allow.containers: which containers of a pod the list isolates.  */
static int
test_net_allow_containers (void)
{
  static const char allow[] = "192.0.2.1:443";
  struct spec_kv items[8];
  struct spec_map a = { items, 0 };
  struct sandbox_flags f = { .id = "c1" };
  struct sandbox sb;
  ar_error_t err = NULL;
  static const struct
  {
    const char *type, *name, *containers;
    int want; /* 1 isolated, 0 not, -1 an error */
  } cases[] = {
    { NULL, NULL, NULL, 1 },
    { "sandbox", NULL, NULL, 0 },
    { "sandbox", NULL, "agent", 0 },
    { "container", "agent", NULL, 1 },
    { "container", "agent", "tool,agent", 1 },
    { "container", "sidecar", "tool,agent", 0 },
    { "container", NULL, "agent", -1 },
    { "container", "agent", "Agent", -1 },
    { "container", "agent", "agent,", -1 },
    { "container", "agent", "", -1 },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      int got;
      a.n = 0;
      items[a.n++] = (struct spec_kv){ (char *) "io.agentrt.net.allow", (char *) allow };
      if (cases[i].type)
        items[a.n++] = (struct spec_kv){ (char *) SANDBOX_CRI_TYPE, (char *) cases[i].type };
      if (cases[i].name)
        items[a.n++] = (struct spec_kv){ (char *) SANDBOX_CRI_NAME, (char *) cases[i].name };
      if (cases[i].containers)
        items[a.n++] = (struct spec_kv){ (char *) "io.agentrt.net.allow.containers",
                                         (char *) cases[i].containers };
      got = sandbox_resolve (&a, &f, &sb, &err) < 0 ? -1 : sb.net != NULL;
      ar_error_release (&err);
      sandbox_release (&sb);
      if (got != cases[i].want)
        TAP_FAIL ("case %zu: got %d, want %d", i, got, cases[i].want);
    }
  /* Without the list there is nothing to select from; and the flag is the operator's, for
     every container (a pod's sandbox included).  */
  a.n = 0;
  items[a.n++] = (struct spec_kv){ (char *) "io.agentrt.net.allow.containers", (char *) "agent" };
  if (sandbox_resolve (&a, &f, &sb, &err) == 0)
    TAP_FAIL ("containers without a list was accepted");
  ar_error_release (&err);
  sandbox_release (&sb);
  a.n = 0;
  items[a.n++] = (struct spec_kv){ (char *) SANDBOX_CRI_TYPE, (char *) "sandbox" };
  f.net_allow = allow;
  if (sandbox_resolve (&a, &f, &sb, &err) < 0 || sb.net == NULL)
    TAP_FAIL ("--net-allow was not applied to a sandbox");
  ar_error_release (&err);
  sandbox_release (&sb);
  return 0;
}

/* ptrace's default: the platform, the pid namespace, and CAP_SYS_PTRACE in the host's user
   namespace; the annotation wins either way.  */
static bool
host_cap (const char *process, const char *namespaces)
{
  cleanup_free char *text
      = xasprintf ("{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"rootfs\"}, "
                   "\"process\": {\"cwd\": \"/\", \"args\": [\"sh\"]%s}, "
                   "\"linux\": {\"namespaces\": [%s]}}",
                   process, namespaces);
  struct spec *s = NULL;
  ar_error_t err = NULL;
  bool r;

  if (spec_parse (text, "config.json", &s, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      ar_error_release (&err);
      return false;
    }
  r = sandbox_host_ptrace_cap (s);
  spec_free (s);
  return r;
}

static int
test_ptrace_default (void)
{
  struct sandbox sb = { 0 };
  const char *pid = "{\"type\": \"pid\"}", *user = "{\"type\": \"pid\"}, {\"type\": \"user\"}";
  const char *caps = ", \"capabilities\": {\"bounding\": [\"CAP_KILL\"]}";
  const char *ptrace_cap = ", \"capabilities\": {\"bounding\": [\"CAP_KILL\", \"CAP_SYS_PTRACE\"]}";

  CHECK (!host_cap (caps, pid));
  CHECK (host_cap (ptrace_cap, pid));
  CHECK (host_cap ("", pid)); /* no capabilities section: every one kept */
  CHECK (!host_cap (ptrace_cap, user));
  CHECK (!host_cap ("", user));

  sb.platform = PLATFORM_SECCOMP;
  sandbox_resolve_ptrace (&sb, true, false);
  CHECK (sb.popts.allow_ptrace);
  sandbox_resolve_ptrace (&sb, false, false);
  CHECK (!sb.popts.allow_ptrace);
  sandbox_resolve_ptrace (&sb, true, true);
  CHECK (!sb.popts.allow_ptrace);
  sb.platform = PLATFORM_PTRACE;
  sandbox_resolve_ptrace (&sb, true, false);
  CHECK (!sb.popts.allow_ptrace);
  sb.platform = PLATFORM_SECCOMP;
  sb.ptrace = SANDBOX_PTRACE_DENY;
  sandbox_resolve_ptrace (&sb, true, false);
  CHECK (!sb.popts.allow_ptrace);
  sb.ptrace = SANDBOX_PTRACE_ALLOW;
  sandbox_resolve_ptrace (&sb, false, true);
  CHECK (sb.popts.allow_ptrace);
  return 0;
}

int
main (void)
{
  if (mkdtemp (tmp_dir) == NULL)
    abort ();
  RUN_TEST (test_parse_good);
  RUN_TEST (test_parse_errors);
  RUN_TEST (test_load);
  RUN_TEST (test_load_owner);
  RUN_TEST (test_make_audit_dir);
  RUN_TEST (test_annotations_who);
  RUN_TEST (test_annotations_allowed);
  RUN_TEST (test_policy_tier);
  RUN_TEST (test_net_allow_host);
  RUN_TEST (test_net_allow_pod_loopback);
  RUN_TEST (test_net_allow_containers);
  RUN_TEST (test_ptrace_default);
  rmdir (tmp_dir);
  TAP_END ();
}
