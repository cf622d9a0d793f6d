/* rlimits.c, creds.c, caps.c: the process attributes init sets just before execve.  Each test
   parses a process.json (single quotes for readability), applies it in a forked child, checks
   the result from inside that child (getrlimit, getres[ug]id, /proc/self/status, umask) and
   reports through the child's exit status: 0 pass, 77 skip, anything else fail.  Tests that
   switch identity need root and skip without it.  */
#include <config.h>

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init/caps.h"
#include "init/creds.h"
#include "init/rlimits.h"
#include "spec/spec.h"
#include "tap.h"
#include "utils.h"

#define BIT(cap) (UINT64_C (1) << (cap))
#define PROCESS(extra) "{ 'args': ['/bin/true'], 'cwd': '/'" extra " }"

typedef int (*child_fn) (const struct spec_process *p);

/* Parse SQ, run FN on it in a child, and return the child's verdict.  */
static int
in_child (const char *sq, child_fn fn)
{
  cleanup_spec_process struct spec_process *p = NULL;
  cleanup_free char *text = tap_json (sq);
  ar_error_t err = NULL;
  int status = 0;
  pid_t pid;

  if (spec_parse_process (text, "process.json", &p, &err) < 0)
    {
      cleanup_free char *msg = ar_error_text (err);
      ar_error_release (&err);
      TAP_FAIL ("parse %s: %s", sq, msg);
    }
  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    TAP_FAIL ("fork: %s", strerror (errno));
  if (pid == 0)
    {
      int r = fn (p);
      fflush (stdout);
      _exit (r == 0 ? 0 : r == 77 ? 77 : 1);
    }
  if (waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    TAP_FAIL ("child did not exit (status %#x)", status);
  return WEXITSTATUS (status) == 0 ? 0 : WEXITSTATUS (status) == 77 ? 77 : -1;
}

static int
need_root (void)
{
  if (geteuid () == 0)
    return 0;
  printf ("# needs root\n");
  return 77;
}

/* Run APPLY, printing the error if it fails.  */
static int
apply (int (*fn) (const struct spec_process *, ar_error_t *), const struct spec_process *p)
{
  ar_error_t err = NULL;

  if (fn (p, &err) == 0)
    return 0;
  cleanup_free char *msg = ar_error_text (err);
  printf ("# %s\n", msg);
  ar_error_release (&err);
  return -1;
}

/* Run APPLY, expecting it to fail with exactly MSG and STATUS.  */
static int
apply_fails (int (*fn) (const struct spec_process *, ar_error_t *), const struct spec_process *p,
             const char *msg, int status)
{
  ar_error_t err = NULL;
  int ret;

  if (fn (p, &err) == 0)
    TAP_FAIL ("succeeded, expected \"%s\"", msg);
  ret = strcmp (err->msg, msg) == 0 && err->status == status ? 0 : -1;
  if (ret < 0)
    printf ("# got \"%s\" (status %d), expected \"%s\" (status %d)\n", err->msg, err->status, msg,
            status);
  ar_error_release (&err);
  return ret;
}

/* The value of FIELD ("CapEff") in /proc/self/status, as text.  */
static char *
status_field (const char *field)
{
  cleanup_free char *text = NULL, *key = xasprintf ("\n%s:", field);
  size_t len = 0;
  char *v;

  if (ar_read_file ("/proc/self/status", 0, &text, &len, NULL) < 0)
    return NULL;
  v = strstr (text, key);
  if (v == NULL)
    return NULL;
  v += strlen (key);
  v += strspn (v, " \t");
  return xstrndup (v, strcspn (v, "\n"));
}

static int
check_mask (const char *field, uint64_t want)
{
  cleanup_free char *v = status_field (field);
  uint64_t got = v ? strtoull (v, NULL, 16) : UINT64_MAX;

  if (got == want)
    return 0;
  TAP_FAIL ("%s = %s, expected %016" PRIx64, field, v ? v : "(missing)", want);
}

static bool
have_cap (int cap)
{
  cleanup_free char *v = status_field ("CapEff");
  return v && (strtoull (v, NULL, 16) & BIT (cap));
}

static int
child_rlimits_set (const struct spec_process *p)
{
  struct rlimit msgq, core, as;

  if (apply (rlimits_apply, p) < 0)
    return -1;
  CHECK (getrlimit (RLIMIT_MSGQUEUE, &msgq) == 0 && getrlimit (RLIMIT_CORE, &core) == 0
         && getrlimit (RLIMIT_AS, &as) == 0);
  CHECK (msgq.rlim_cur == 100 && msgq.rlim_max == 200);
  CHECK (core.rlim_cur == 0 && core.rlim_max == 0);
  CHECK (as.rlim_cur == (rlim_t) 1 << 40 && as.rlim_max == RLIM_INFINITY);
  return 0;
}

/* Not RLIMIT_NOFILE: valgrind fakes that one and refuses to change its hard limit.  */
static int
test_rlimits_set (void)
{
  struct rlimit as;

  if (getrlimit (RLIMIT_AS, &as) < 0 || as.rlim_max != RLIM_INFINITY)
    {
      printf ("# RLIMIT_AS hard limit is not unlimited here\n");
      return 77;
    }
  return in_child (PROCESS (", 'rlimits': ["
                            "  { 'type': 'RLIMIT_MSGQUEUE', 'soft': 100, 'hard': 200 },"
                            "  { 'type': 'RLIMIT_CORE', 'soft': 0, 'hard': 0 },"
                            "  { 'type': 'RLIMIT_AS', 'soft': 1099511627776,"
                            "    'hard': 18446744073709551615 } ]"),
                   child_rlimits_set);
}

static int
child_rlimit_fails (const struct spec_process *p)
{
  const struct spec_rlimit *rl = &p->rlimits[0];
  cleanup_free char *msg
      = xasprintf ("setrlimit RLIMIT_NOFILE to %" PRIu64 "/%" PRIu64, rl->soft, rl->hard);
  return apply_fails (rlimits_apply, p, msg, EPERM);
}

/* Above fs.nr_open fails even with CAP_SYS_RESOURCE; above the current hard limit fails without
   it, which is how this machine's root runs.  */
static int
test_rlimit_above_hard (void)
{
  cleanup_free char *nr_open = NULL, *sq = NULL;
  struct rlimit cur;
  size_t len;
  int ret;

  if (ar_read_file ("/proc/sys/fs/nr_open", 0, &nr_open, &len, NULL) < 0)
    return 77;
  sq = xasprintf (
      PROCESS (", 'rlimits': [ { 'type': 'RLIMIT_NOFILE', 'soft': 1024, 'hard': %llu } ]"),
      strtoull (nr_open, NULL, 10) + 1);
  ret = in_child (sq, child_rlimit_fails);
  if (ret != 0 || have_cap (CAP_SYS_RESOURCE))
    return ret;
  CHECK (getrlimit (RLIMIT_NOFILE, &cur) == 0 && cur.rlim_max != RLIM_INFINITY);
  free (sq);
  sq = xasprintf (
      PROCESS (", 'rlimits': [ { 'type': 'RLIMIT_NOFILE', 'soft': %llu, 'hard': %llu } ]"),
      (unsigned long long) cur.rlim_max, (unsigned long long) cur.rlim_max + 1);
  return in_child (sq, child_rlimit_fails);
}

static int
child_user_groups (const struct spec_process *p)
{
  uid_t r, e, s;
  gid_t rg, eg, sg, groups[8];
  int n;

  if (apply (creds_apply, p) < 0)
    return -1;
  CHECK (getresuid (&r, &e, &s) == 0 && r == 1000 && e == 1000 && s == 1000);
  CHECK (getresgid (&rg, &eg, &sg) == 0 && rg == 1000 && eg == 1000 && sg == 1000);
  n = getgroups (ARRAY_SIZE (groups), groups);
  CHECK (n == 2 && groups[0] == 1001 && groups[1] == 1002);
  return check_mask ("CapEff", 0);
}

static int
test_user_groups (void)
{
  if (need_root ())
    return 77;
  return in_child (
      PROCESS (", 'user': { 'uid': 1000, 'gid': 1000, 'additionalGids': [1002, 1001] }"),
      child_user_groups);
}

static int
child_caps_sets (const struct spec_process *p)
{
  uint64_t chown = BIT (CAP_CHOWN), kill = BIT (CAP_KILL), setuid = BIT (CAP_SETUID),
           bind = BIT (CAP_NET_BIND_SERVICE);

  if (apply (creds_apply, p) < 0)
    return -1;
  CHECK (getuid () == 1000 && geteuid () == 1000);
  if (check_mask ("CapBnd", chown | kill | setuid | bind) < 0
      || check_mask ("CapEff", chown | bind) < 0 || check_mask ("CapPrm", chown | kill | bind) < 0
      || check_mask ("CapInh", bind) < 0 || check_mask ("CapAmb", bind) < 0)
    return -1;
  return 0;
}

/* A non-root user keeps exactly the permitted set across setresuid (PR_SET_KEEPCAPS), and the
   ambient one is raised after it.  */
static int
test_caps_sets (void)
{
  if (need_root ())
    return 77;
  return in_child (
      PROCESS (", 'user': { 'uid': 1000, 'gid': 1000 }, 'capabilities': {"
               "  'bounding': ['CAP_CHOWN', 'CAP_KILL', 'CAP_SETUID', 'CAP_NET_BIND_SERVICE'],"
               "  'effective': ['CAP_CHOWN', 'CAP_NET_BIND_SERVICE'],"
               "  'permitted': ['CAP_CHOWN', 'CAP_KILL', 'CAP_NET_BIND_SERVICE'],"
               "  'inheritable': ['CAP_NET_BIND_SERVICE'],"
               "  'ambient': ['CAP_NET_BIND_SERVICE'] }"),
      child_caps_sets);
}

static int
child_no_caps (const struct spec_process *p)
{
  if (apply (creds_apply, p) < 0)
    return -1;
  CHECK (geteuid () == 0);
  if (check_mask ("CapEff", 0) < 0 || check_mask ("CapPrm", 0) < 0 || check_mask ("CapInh", 0) < 0
      || check_mask ("CapBnd", 0) < 0 || check_mask ("CapAmb", 0) < 0)
    return -1;
  return 0;
}

/* runc's rule: no capabilities object keeps nothing, even for uid 0 (an empty bounding set also
   stops execve from granting root its capabilities back).  */
static int
test_no_caps_object (void)
{
  if (need_root ())
    return 77;
  return in_child (PROCESS (""), child_no_caps);
}

static int
child_ambient_not_inheritable (const struct spec_process *p)
{
  if (apply (creds_apply, p) < 0)
    return -1;
  return check_mask ("CapAmb", 0) < 0 || check_mask ("CapPrm", BIT (CAP_KILL)) < 0 ? -1 : 0;
}

/* An ambient capability that is not inheritable is not raised, and that is not an error (runc
   and crun behave the same).  */
static int
test_ambient_not_inheritable (void)
{
  if (need_root ())
    return 77;
  return in_child (PROCESS (", 'user': { 'uid': 1000 }, 'capabilities': {"
                            "  'bounding': ['CAP_KILL'], 'permitted': ['CAP_KILL'],"
                            "  'ambient': ['CAP_KILL'] }"),
                   child_ambient_not_inheritable);
}

static int
child_effective_not_permitted (const struct spec_process *p)
{
  return apply_fails (creds_apply, p, "capset effective 0x20 permitted 0 inheritable 0", EPERM);
}

static int
test_effective_not_permitted (void)
{
  if (need_root ())
    return 77;
  return in_child (PROCESS (", 'capabilities': { 'bounding': ['CAP_KILL'],"
                            "  'effective': ['CAP_KILL'] }"),
                   child_effective_not_permitted);
}

static int
child_nnp (const struct spec_process *p)
{
  cleanup_free char *v = NULL;

  if (apply (creds_apply, p) < 0)
    return -1;
  v = status_field ("NoNewPrivs");
  CHECK_STR (v, p->no_new_privileges ? "1" : "0");
  return 0;
}

static int
test_no_new_privs (void)
{
  int ret;

  if (need_root ())
    return 77;
  ret = in_child (PROCESS (", 'noNewPrivileges': true"), child_nnp);
  return ret == 0 ? in_child (PROCESS (", 'noNewPrivileges': false"), child_nnp) : ret;
}

static int
child_umask (const struct spec_process *p)
{
  mode_t want = p->user.umask.set ? (mode_t) p->user.umask.v : 022;

  umask (0);
  if (apply (creds_apply, p) < 0)
    return -1;
  CHECK (umask (0) == want);
  return 0;
}

static int
test_umask (void)
{
  int ret;

  if (need_root ())
    return 77;
  ret = in_child (PROCESS (", 'user': { 'uid': 0, 'umask': 63 }"), child_umask);
  return ret == 0 ? in_child (PROCESS (""), child_umask) : ret;
}

static int
write_text (const char *path, const char *text)
{
  FILE *f = fopen (path, "we");
  int ok = f && fputs (text, f) >= 0;

  if (f && fclose (f) != 0)
    ok = 0;
  return ok ? 0 : -1;
}

/* In a fresh user namespace whose setgroups is "deny": creds_apply without additionalGids
   succeeds, with them it fails naming setgroups.  */
static int
child_setgroups_denied (const struct spec_process *p)
{
  if (unshare (CLONE_NEWUSER) < 0)
    {
      printf ("# unshare (CLONE_NEWUSER): %s\n", strerror (errno));
      return 77;
    }
  if (write_text ("/proc/self/setgroups", "deny") < 0
      || write_text ("/proc/self/uid_map", "0 0 1") < 0
      || write_text ("/proc/self/gid_map", "0 0 1") < 0)
    TAP_FAIL ("write the id maps: %s", strerror (errno));
  if (p->user.n_additional_gids == 0)
    return apply (creds_apply, p);
  return apply_fails (creds_apply, p, "setgroups to 1 additionalGids", EPERM);
}

static int
test_setgroups_denied (void)
{
  int ret;

  if (need_root ())
    return 77;
  ret = in_child (PROCESS (", 'user': { 'uid': 0, 'gid': 0 }"), child_setgroups_denied);
  if (ret != 0)
    return ret;
  return in_child (PROCESS (", 'user': { 'uid': 0, 'gid': 0, 'additionalGids': [0] }"),
                   child_setgroups_denied);
}

static int
child_oom (const struct spec_process *p)
{
  cleanup_free char *text = NULL;
  size_t len;

  if (p->oom_score_adj.v < 0)
    return apply_fails (creds_set_oom_score_adj, p, "set oom_score_adj to -500", EACCES);
  if (apply (creds_set_oom_score_adj, p) < 0)
    return -1;
  CHECK (ar_read_file ("/proc/self/oom_score_adj", 0, &text, &len, NULL) == 0);
  CHECK_STR (text, "500\n");
  return 0;
}

/* Raising is always allowed; lowering below the current minimum needs CAP_SYS_RESOURCE, and the
   kernel refuses it with EACCES (fs/proc/base.c __set_oom_adj), not EPERM.  */
static int
test_oom_score_adj (void)
{
  cleanup_free char *cur = NULL;
  size_t len;
  int ret = in_child (PROCESS (", 'oomScoreAdj': 500"), child_oom);

  if (ret != 0 || have_cap (CAP_SYS_RESOURCE))
    return ret;
  if (ar_read_file ("/proc/self/oom_score_adj", 0, &cur, &len, NULL) < 0 || atoi (cur) <= -500)
    return 0;
  return in_child (PROCESS (", 'oomScoreAdj': -500"), child_oom);
}

static int
child_personality (const struct spec_process *p)
{
  struct spec_linux l = { .has_personality = true, .personality = { .domain = "LINUX32" } };
  ar_error_t err = NULL;

  if (creds_set_personality (&l, &err) < 0)
    TAP_FAIL ("%s", err->msg);
  CHECK (personality (0xffffffff) == PER_LINUX32);
  CHECK (creds_set_personality (NULL, &err) == 0);
  return 0;
}

static int
test_personality (void)
{
  return in_child (PROCESS (""), child_personality);
}

static int
test_caps_names (void)
{
  char *names[] = { "CAP_CHOWN", "CAP_SYS_ADMIN", NULL }, *bad[] = { "CAP_NOPE", NULL };
  struct spec_strv good = { names, 2 }, wrong = { bad, 1 };
  cleanup_free char *last = NULL;
  uint64_t mask = BIT (CAP_KILL);
  ar_error_t err = NULL;
  size_t len;

  CHECK (caps_from_names (&good, &mask, &err) == 0);
  CHECK (mask == (BIT (CAP_KILL) | BIT (CAP_CHOWN) | BIT (CAP_SYS_ADMIN)));
  CHECK (caps_from_names (&wrong, &mask, &err) < 0);
  CHECK_STR (err->msg, "unknown capability `CAP_NOPE`");
  ar_error_release (&err);
  CHECK (ar_read_file ("/proc/sys/kernel/cap_last_cap", 0, &last, &len, NULL) == 0);
  CHECK (caps_last_cap () == atoi (last));
  CHECK (caps_known_mask () == (UINT64_C (1) << (atoi (last) + 1)) - 1);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_caps_names);
  RUN_TEST (test_rlimits_set);
  RUN_TEST (test_rlimit_above_hard);
  RUN_TEST (test_user_groups);
  RUN_TEST (test_caps_sets);
  RUN_TEST (test_no_caps_object);
  RUN_TEST (test_ambient_not_inheritable);
  RUN_TEST (test_effective_not_permitted);
  RUN_TEST (test_no_new_privs);
  RUN_TEST (test_umask);
  RUN_TEST (test_setgroups_denied);
  RUN_TEST (test_oom_score_adj);
  RUN_TEST (test_personality);
  TAP_END ();
}
