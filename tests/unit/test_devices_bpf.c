/* devices_bpf.c: the cgroup v2 device program.  Without root: the instructions built for a few
   rule lists (count, jump targets, verdicts), and what they answer, run by a small interpreter
   of the instructions the builder emits.  As root: the kernel loads the program, and attached
   to a scratch cgroup in the cgroup2 hierarchy (/sys/fs/cgroup/unified on this hybrid machine)
   it lets a child open /dev/null but not a block device node it made.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "cgroups/cgroup_internal.h"
#include "tap.h"
#include "utils.h"

#define R BPF_DEVCG_ACC_READ
#define W BPF_DEVCG_ACC_WRITE
#define M BPF_DEVCG_ACC_MKNOD
#define RWM (R | W | M)

/* The prologue (type, access, major, minor into r2..r5) and a final "return allow".  */
#define PROLOGUE 6
#define FINAL 2

/* Run the program on one access, as the kernel would: the subset of eBPF the builder emits.
   -1: an instruction it does not know, a jump out of the program, or no exit.  */
static int
run (const struct cg_dev_prog *p, char type, unsigned major, unsigned minor, unsigned access)
{
  struct bpf_cgroup_dev_ctx ctx
      = { .access_type = (access << 16) | (type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR),
          .major = major,
          .minor = minor };
  uint64_t reg[11] = { 0 };

  for (size_t pc = 0; pc < p->n; pc++)
    {
      const struct bpf_insn *i = &p->insns[pc];
      uint64_t src = BPF_SRC (i->code) == BPF_X ? reg[i->src_reg] : (uint64_t) (int64_t) i->imm;
      bool jump = false;

      switch (i->code)
        {
        case BPF_LDX | BPF_W | BPF_MEM:
          {
            uint32_t v;
            memcpy (&v, (const char *) &ctx + i->off, sizeof v);
            reg[i->dst_reg] = v;
            continue;
          }
        case BPF_ALU | BPF_AND | BPF_K:
          reg[i->dst_reg] = (uint32_t) (reg[i->dst_reg] & src);
          continue;
        case BPF_ALU | BPF_RSH | BPF_K:
          reg[i->dst_reg] = (uint32_t) reg[i->dst_reg] >> src;
          continue;
        case BPF_ALU | BPF_MOV | BPF_X:
          reg[i->dst_reg] = (uint32_t) src;
          continue;
        case BPF_ALU64 | BPF_MOV | BPF_K:
          reg[i->dst_reg] = src;
          continue;
        case BPF_JMP | BPF_JNE | BPF_K:
          jump = reg[i->dst_reg] != src;
          break;
        case BPF_JMP | BPF_JEQ | BPF_K:
          jump = reg[i->dst_reg] == src;
          break;
        case BPF_JMP | BPF_EXIT:
          return (int) reg[0];
        default:
          return -1;
        }
      if (jump)
        {
          if (i->off < 0 || pc + 1 + (size_t) i->off >= p->n)
            return -1;
          pc += (size_t) i->off;
        }
    }
  return -1;
}

/* Every jump lands inside the program and the last instruction is an exit.  */
static bool
well_formed (const struct cg_dev_prog *p)
{
  for (size_t pc = 0; pc < p->n; pc++)
    if (BPF_CLASS (p->insns[pc].code) == BPF_JMP && BPF_OP (p->insns[pc].code) != BPF_EXIT
        && (p->insns[pc].off < 0 || pc + 1 + (size_t) p->insns[pc].off >= p->n))
      return false;
  return p->n > 0 && p->insns[p->n - 1].code == (BPF_JMP | BPF_EXIT);
}

static const struct cg_dev_rule deny_all = { false, 'a', -1, -1, RWM };

static int
test_empty_allows_everything (void)
{
  struct cg_dev_prog p;

  cg_dev_prog_build (NULL, 0, &p);
  CHECK (p.n == PROLOGUE + FINAL);
  CHECK (well_formed (&p));
  CHECK (run (&p, 'b', 8, 0, R | W) == 1);
  cg_dev_prog_release (&p);
  return 0;
}

static int
test_deny_all (void)
{
  struct cg_dev_prog p;

  cg_dev_prog_build (&deny_all, 1, &p);
  /* A match-everything rule is a bare return, and no final return follows it.  */
  CHECK (p.n == PROLOGUE + 2);
  CHECK (well_formed (&p));
  CHECK (run (&p, 'c', 1, 3, R) == 0);
  CHECK (run (&p, 'b', 8, 0, M) == 0);
  cg_dev_prog_release (&p);
  return 0;
}

static int
test_last_match_wins (void)
{
  const struct cg_dev_rule rules[] = {
    deny_all,
    { true, 'c', 1, 3, RWM },   /* type, major, minor tests and the return: 5 */
    { true, 'c', 1, 3, R },     /* + the access test: 8 */
    { false, 'c', 1, 3, W },    /* 8 */
    { true, 'b', -1, -1, M },   /* type, access and return: 6 */
    { true, 'c', 136, -1, RWM } /* 4 */
  };
  struct cg_dev_prog p;

  cg_dev_prog_build (rules, ARRAY_SIZE (rules), &p);
  CHECK (p.n == PROLOGUE + 4 + 6 + 8 + 8 + 5 + 2);
  CHECK (well_formed (&p));
  /* The first rule tested is the last one: a jump over a pts rule, then its return.  */
  CHECK (p.insns[PROLOGUE].code == (BPF_JMP | BPF_JNE | BPF_K));
  CHECK (p.insns[PROLOGUE].imm == BPF_DEVCG_DEV_CHAR && p.insns[PROLOGUE].off == 3);
  CHECK (p.insns[PROLOGUE + 1].imm == 136 && p.insns[PROLOGUE + 1].off == 2);
  CHECK (p.insns[PROLOGUE + 2].code == (BPF_ALU64 | BPF_MOV | BPF_K)
         && p.insns[PROLOGUE + 2].imm == 1);
  CHECK (run (&p, 'c', 1, 3, R) == 1);
  CHECK (run (&p, 'c', 1, 3, M) == 1);
  CHECK (run (&p, 'c', 1, 3, W) == 0);     /* the deny after the allows */
  CHECK (run (&p, 'c', 1, 3, R | W) == 0); /* a deny of w also holds when r is asked with it */
  CHECK (run (&p, 'c', 136, 7, R | W) == 1);
  CHECK (run (&p, 'b', 8, 0, M) == 1);
  CHECK (run (&p, 'b', 8, 0, R) == 0);
  CHECK (run (&p, 'c', 1, 1, R) == 0);
  cg_dev_prog_release (&p);
  return 0;
}

static int
test_rules_before_wildcard_are_dropped (void)
{
  const struct cg_dev_rule rules[]
      = { { true, 'c', 1, 3, RWM }, { true, 'a', 5, -1, R }, deny_all };
  struct cg_dev_prog p;

  cg_dev_prog_build (rules, ARRAY_SIZE (rules), &p);
  CHECK (p.n == PROLOGUE + 2);
  CHECK (run (&p, 'c', 1, 3, R) == 0);
  cg_dev_prog_release (&p);
  return 0;
}

/* A rule that no access can match is not emitted.  */
static int
test_dead_rules_skipped (void)
{
  const struct cg_dev_rule rules[]
      = { deny_all, { true, 'c', 1, 3, 0 }, { true, 'c', 1LL << 33, 0, RWM } };
  struct cg_dev_prog p;

  cg_dev_prog_build (rules, ARRAY_SIZE (rules), &p);
  CHECK (p.n == PROLOGUE + 2);
  cg_dev_prog_release (&p);
  return 0;
}

/* What `agentrt spec` gives: deny all, then the defaults, and one linux.devices node.  */
static int
test_default_config (void)
{
  struct spec_device_cgroup deny = { .allow = false, .type = 'a', .access = (char *) "rwm" };
  struct spec_device fuse
      = { .type = 'c', .path = (char *) "/dev/fuse", .major = 10, .minor = 229 };
  size_t n = 0;
  struct cg_dev_rule *all = cg_dev_rules_collect (&deny, 1, &fuse, 1, &n);
  struct cg_dev_prog p;

  CHECK (n == 1 + cg_n_default_devices + 1);
  cg_dev_prog_build (all, n, &p);
  free (all);
  /* linux.devices 5, 12 defaults (2 mknod rules of 6, 9 nodes of 5, pts 4), deny all 2.  */
  CHECK (p.n == PROLOGUE + 5 + 2 * 6 + 9 * 5 + 4 + 2);
  CHECK (well_formed (&p));
  CHECK (run (&p, 'c', 1, 3, R | W) == 1);   /* /dev/null */
  CHECK (run (&p, 'c', 5, 2, R | W) == 1);   /* /dev/ptmx */
  CHECK (run (&p, 'c', 136, 0, R | W) == 1); /* /dev/pts/0 */
  CHECK (run (&p, 'c', 10, 229, R | W) == 1);
  CHECK (run (&p, 'b', 7, 0, M) == 1);
  CHECK (run (&p, 'b', 7, 0, R) == 0);
  CHECK (run (&p, 'c', 1, 1, R) == 0); /* /dev/mem */
  CHECK (run (&p, 'c', 10, 200, R | W) == 1);
  cg_dev_prog_release (&p);
  return 0;
}

/* The v1 path writes the same rules as text.  */
static int
test_rule_text (void)
{
  char buf[80];
  struct spec_device_cgroup sd
      = { .allow = true, .type = 'b', .major = { true, 8 }, .access = (char *) "wr" };
  struct cg_dev_rule r = cg_dev_rule_from_spec (&sd);

  cg_dev_rule_text (&cg_default_devices[0], buf, sizeof buf);
  CHECK_STR (buf, "c *:* m");
  cg_dev_rule_text (&cg_default_devices[2], buf, sizeof buf);
  CHECK_STR (buf, "c 1:3 rwm");
  cg_dev_rule_text (&r, buf, sizeof buf);
  CHECK_STR (buf, "b 8:* rw");
  cg_dev_rule_text (&deny_all, buf, sizeof buf);
  CHECK_STR (buf, "a");
  return 0;
}

/* Root only.  */

static int
test_kernel_loads (void)
{
  struct cg_dev_prog p;
  ar_error_t err = NULL;
  size_t n = 0;
  struct spec_device_cgroup deny = { .allow = false, .type = 'a' };
  struct cg_dev_rule *all = cg_dev_rules_collect (&deny, 1, NULL, 0, &n);
  int fd;

  if (geteuid () != 0)
    {
      free (all);
      printf ("# needs root (BPF_PROG_LOAD of a cgroup device program)\n");
      return 77;
    }
  cg_dev_prog_build (all, n, &p);
  free (all);
  fd = cg_dev_prog_load (&p, &err);
  cg_dev_prog_release (&p);
  if (fd < 0)
    TAP_FAIL ("%s", err->msg);
  close (fd);
  return 0;
}

/* A scratch cgroup under our own one in the cgroup2 hierarchy, or NULL (with the reason).  */
static char *
scratch_cgroup (const char **why)
{
  static const char *const roots[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
  cleanup_free char *self = NULL;
  const char *root = NULL;
  char *line, *dir;

  for (size_t i = 0; i < ARRAY_SIZE (roots) && root == NULL; i++)
    {
      cleanup_free char *f = xasprintf ("%s/cgroup.procs", roots[i]);
      cleanup_free char *c = xasprintf ("%s/cgroup.controllers", roots[i]);
      if (access (f, F_OK) == 0 && access (c, F_OK) == 0)
        root = roots[i];
    }
  if (root == NULL)
    {
      *why = "no cgroup2 hierarchy mounted";
      return NULL;
    }
  if (ar_read_file ("/proc/self/cgroup", 1 << 16, &self, NULL, NULL) < 0
      || (line = strstr (self, "0::/")) == NULL)
    {
      *why = "no cgroup2 line in /proc/self/cgroup";
      return NULL;
    }
  line += 3;
  line[strcspn (line, "\n")] = '\0';
  dir = xasprintf ("%s%s%sagentrt-unit-devices-%d", root, line, strcmp (line, "/") ? "/" : "",
                   (int) getpid ());
  if (mkdir (dir, 0755) < 0)
    {
      *why = "cannot create a scratch cgroup";
      free (dir);
      return NULL;
    }
  return dir;
}

/* In the child: join `dir`, then open each node; exit code: bit i set if open i failed with
   EPERM, 0x80 on a setup failure.  */
static int
child_probe (const char *dir, const char *tmp)
{
  char pid[16];
  cleanup_free char *blk = xasprintf ("%s/blk", tmp);
  cleanup_free char *lo = xasprintf ("%s/loop", tmp);
  const char *paths[] = { "/dev/null", blk, lo };
  int code = 0;

  snprintf (pid, sizeof pid, "%d", (int) getpid ());
  if (cg_write (dir, "cgroup.procs", pid, strlen (pid), NULL) < 0)
    return 0x80;
  /* mknod is allowed for any node; a block device made is then not usable.  */
  if (mknod (blk, S_IFBLK | 0600, makedev (8, 0)) < 0
      || mknod (lo, S_IFBLK | 0600, makedev (7, 0)) < 0)
    return 0x80 | 0x40;
  for (int i = 0; i < 3; i++)
    {
      int fd = open (paths[i], O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        close (fd);
      else if (errno == EPERM)
        code |= 1 << i;
    }
  return code;
}

static int
test_attached_program_enforces (void)
{
  const char *why = NULL;
  cleanup_free char *dir = NULL;
  char tmp[] = "/tmp/agentrt-devices-XXXXXX";
  struct spec_device_cgroup deny = { .allow = false, .type = 'a' };
  struct spec_resources r = { .devices = &deny, .n_devices = 1 };
  /* linux.devices gives the container loop0 (7:0), not sda (8:0).  */
  struct spec_device loop0 = { .type = 'b', .major = 7, .minor = 0 };
  struct cgroup cg = { .layout = CGROUP_V2 };
  ar_error_t err = NULL;
  uint32_t ids[4];
  union bpf_attr q;
  int status = -1, ret = 0;
  pid_t pid;

  if (geteuid () != 0)
    {
      printf ("# needs root (a cgroup, BPF_PROG_ATTACH)\n");
      return 77;
    }
  dir = scratch_cgroup (&why);
  if (dir == NULL)
    {
      printf ("# %s\n", why);
      return 77;
    }
  cg.unified = dir;
  if (mkdtemp (tmp) == NULL)
    TAP_FAIL ("mkdtemp: %s", strerror (errno));
  /* Twice: the second replaces the first, the cgroup keeps one program.  */
  if (cgroup_allow_devices (&cg, &r, &loop0, 1, &err) < 0
      || cgroup_allow_devices (&cg, &r, &loop0, 1, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      ret = -1;
      goto out;
    }
  memset (&q, 0, sizeof q);
  {
    cleanup_close int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    q.query.target_fd = (uint32_t) dfd;
    q.query.attach_type = BPF_CGROUP_DEVICE;
    q.query.prog_ids = (uint64_t) (uintptr_t) ids;
    q.query.prog_cnt = ARRAY_SIZE (ids);
    if (syscall (__NR_bpf, BPF_PROG_QUERY, &q, sizeof q) < 0 || q.query.prog_cnt != 1)
      {
        printf ("# programs attached: %u (%s)\n", q.query.prog_cnt, strerror (errno));
        ret = -1;
        goto out;
      }
  }
  pid = fork ();
  if (pid == 0)
    _exit (child_probe (dir, tmp));
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    {
      printf ("# the child did not exit\n");
      ret = -1;
      goto out;
    }
  /* /dev/null opens, sda is EPERM, loop0 (linux.devices) is not.  */
  if (WEXITSTATUS (status) != 0x2)
    {
      printf ("# child's result 0x%x, expected 0x2\n", WEXITSTATUS (status));
      ret = -1;
    }
out:
  {
    cleanup_free char *blk = xasprintf ("%s/blk", tmp);
    cleanup_free char *lo = xasprintf ("%s/loop", tmp);
    unlink (blk);
    unlink (lo);
    rmdir (tmp);
  }
  if (rmdir (dir) < 0)
    printf ("# rmdir %s: %s\n", dir, strerror (errno));
  return ret;
}

int
main (void)
{
  RUN_TEST (test_empty_allows_everything);
  RUN_TEST (test_deny_all);
  RUN_TEST (test_last_match_wins);
  RUN_TEST (test_rules_before_wildcard_are_dropped);
  RUN_TEST (test_dead_rules_skipped);
  RUN_TEST (test_default_config);
  RUN_TEST (test_rule_text);
  RUN_TEST (test_kernel_loads);
  RUN_TEST (test_attached_program_enforces);
  TAP_END ();
}
