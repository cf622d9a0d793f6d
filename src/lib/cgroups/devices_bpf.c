/* The device controller of cgroup v2.  v2 has no devices.allow/devices.deny: access to device
   nodes is decided by a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the cgroup, which the
   kernel runs on every open and mknod of a device with (type, major, minor, access) and which
   answers 1 (allow) or 0 (EPERM).  This file turns the container's rules into such a program,
   loads it and attaches it, as runc (libcontainer/cgroups/devices/devicefilter.go) and crun
   (src/libcrun/ebpf.c) do.

   Semantics are those of the v1 path in resources.c, so that one config gives the same devices
   on both layouts: the rules are read in order and the last one that matches decides; a rule
   of type `a` matches every device and access (v1 writes it as "a"); when nothing matches the
   answer is allow, which defers to the programs of the parent cgroups (the kernel runs them
   all and needs every one to allow), as a new v1 cgroup starts from its parent's list.

   The program is written backwards: the last rule is tested first and returns at once, and the
   rules before a match-everything rule are never reached, so they are not emitted.  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroups/cgroup.h"
#include "cgroups/cgroup_internal.h"
#include "log.h"
#include "utils.h"

#define ACC_ALL (BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE)

/* The devices every container gets (runc's AllowedDevices): mknod of any node (it only creates
   the node), the nodes agentrt makes in /dev, the pty multiplexer and its slaves, and tun.  */
const struct cg_dev_rule cg_default_devices[] = {
  { true, 'c', -1, -1, BPF_DEVCG_ACC_MKNOD },
  { true, 'b', -1, -1, BPF_DEVCG_ACC_MKNOD },
  { true, 'c', 1, 3, ACC_ALL },
  /* null */ { true, 'c', 1, 5, ACC_ALL }, /* zero */
  { true, 'c', 1, 7, ACC_ALL },
  /* full */ { true, 'c', 1, 8, ACC_ALL }, /* random */
  { true, 'c', 1, 9, ACC_ALL },            /* urandom */
  { true, 'c', 5, 0, ACC_ALL },
  /* tty */ { true, 'c', 5, 1, ACC_ALL }, /* console */
  { true, 'c', 5, 2, ACC_ALL },
  /* ptmx */ { true, 'c', 136, -1, ACC_ALL }, /* pts/N */
  { true, 'c', 10, 200, ACC_ALL },            /* net/tun */
};
const size_t cg_n_default_devices = ARRAY_SIZE (cg_default_devices);

/* Rule text and program building.  */

static unsigned
access_bits (const char *access)
{
  unsigned a = 0;

  if (access == NULL)
    return ACC_ALL;
  for (const char *c = access; *c; c++)
    a |= *c == 'r'   ? BPF_DEVCG_ACC_READ
         : *c == 'w' ? BPF_DEVCG_ACC_WRITE
         : *c == 'm' ? BPF_DEVCG_ACC_MKNOD
                     : 0;
  return a;
}

struct cg_dev_rule
cg_dev_rule_from_spec (const struct spec_device_cgroup *d)
{
  struct cg_dev_rule r = { .allow = d->allow,
                           .type = d->type ? d->type : 'a',
                           .major = d->major.set && d->major.v >= 0 ? d->major.v : -1,
                           .minor = d->minor.set && d->minor.v >= 0 ? d->minor.v : -1,
                           .access = access_bits (d->access) };
  return r;
}

void
cg_dev_rule_text (const struct cg_dev_rule *r, char *buf, size_t size)
{
  char maj[24] = "*", min[24] = "*", acc[4] = "";
  size_t k = 0;

  if (r->type == 'a')
    {
      snprintf (buf, size, "a");
      return;
    }
  if (r->major >= 0)
    snprintf (maj, sizeof maj, "%lld", (long long) r->major);
  if (r->minor >= 0)
    snprintf (min, sizeof min, "%lld", (long long) r->minor);
  if (r->access & BPF_DEVCG_ACC_READ)
    acc[k++] = 'r';
  if (r->access & BPF_DEVCG_ACC_WRITE)
    acc[k++] = 'w';
  if (r->access & BPF_DEVCG_ACC_MKNOD)
    acc[k++] = 'm';
  acc[k] = '\0';
  snprintf (buf, size, "%c %s:%s %s", r->type, maj, min, acc);
}

struct cg_dev_rule *
cg_dev_rules_collect (const struct spec_device_cgroup *rules, size_t n_rules,
                      const struct spec_device *devs, size_t n_devs, size_t *n)
{
  struct cg_dev_rule *out = xmalloc ((n_rules + cg_n_default_devices + n_devs + 1) * sizeof *out);
  size_t k = 0;

  for (size_t i = 0; i < n_rules; i++)
    out[k++] = cg_dev_rule_from_spec (&rules[i]);
  for (size_t i = 0; i < cg_n_default_devices; i++)
    out[k++] = cg_default_devices[i];
  /* linux.devices: the nodes the container was given can be used ('p', a fifo, is no device).  */
  for (size_t i = 0; i < n_devs; i++)
    if (devs[i].type == 'c' || devs[i].type == 'u' || devs[i].type == 'b')
      out[k++] = (struct cg_dev_rule){ true, devs[i].type == 'b' ? 'b' : 'c', devs[i].major,
                                       devs[i].minor, ACC_ALL };
  *n = k;
  return out;
}

static void
emit (struct cg_dev_prog *p, struct bpf_insn insn)
{
  if (p->n == p->cap)
    {
      p->cap = p->cap ? 2 * p->cap : 64;
      p->insns = xrealloc (p->insns, p->cap * sizeof *p->insns);
    }
  p->insns[p->n++] = insn;
}

static struct bpf_insn
insn (uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
  return (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
}

/* Registers after the prologue: r2 the device type, r3 the access asked for, r4 the major,
   r5 the minor (struct bpf_cgroup_dev_ctx: access_type is access << 16 | type).  r1, the
   context, is free after that and serves as scratch.  */
static void
emit_prologue (struct cg_dev_prog *p)
{
  const int16_t at = offsetof (struct bpf_cgroup_dev_ctx, access_type);

  emit (p, insn (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, at, 0));
  emit (p, insn (BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff));
  emit (p, insn (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1, at, 0));
  emit (p, insn (BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16));
  emit (p, insn (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1,
                 offsetof (struct bpf_cgroup_dev_ctx, major), 0));
  emit (p, insn (BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_1,
                 offsetof (struct bpf_cgroup_dev_ctx, minor), 0));
}

static void
emit_return (struct cg_dev_prog *p, bool allow)
{
  emit (p, insn (BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, allow ? 1 : 0));
  emit (p, insn (BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

/* One rule: each test that fails jumps past the rule's return, to the next rule.  The access
   test is not the same for both verdicts, on purpose: an allow rule must cover every access
   asked for (the bits outside it must be 0), a deny rule matches when it covers any of them
   (v1's own rule for a deny list), so that asking for read+write does not slip past a rule
   that denies write.  */
static void
emit_rule (struct cg_dev_prog *p, const struct cg_dev_rule *r)
{
  bool type = r->type != 'a';
  bool access = type && (r->access & ACC_ALL) != ACC_ALL;
  bool major = type && r->major >= 0;
  bool minor = type && r->minor >= 0;
  size_t start = p->n;
  /* The rule's length; a jump at index i of it skips the L - 1 - i that follow.  */
  int16_t len = (int16_t) (type + 3 * access + major + minor + 2);
#define NEXT ((int16_t) (len - 1 - (int16_t) (p->n - start)))

  if (type)
    emit (p, insn (BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, NEXT,
                   r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR));
  if (access)
    {
      emit (p, insn (BPF_ALU | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0));
      emit (p, insn (BPF_ALU | BPF_AND | BPF_K, BPF_REG_1, 0, 0,
                     (int32_t) (r->allow ? ~r->access & ACC_ALL : r->access)));
      emit (p, insn (BPF_JMP | (r->allow ? BPF_JNE : BPF_JEQ) | BPF_K, BPF_REG_1, 0, NEXT, 0));
    }
  if (major)
    emit (p, insn (BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, NEXT, (int32_t) r->major));
  if (minor)
    emit (p, insn (BPF_JMP | BPF_JNE | BPF_K, BPF_REG_5, 0, NEXT, (int32_t) r->minor));
#undef NEXT
  emit_return (p, r->allow);
}

/* A rule that cannot match any access is left out: no access bits, or a device number no
   device has (the kernel's are 32 bits; the immediates compared against are signed 32).  */
static bool
rule_can_match (const struct cg_dev_rule *r)
{
  if (r->type == 'a')
    return true;
  return (r->access & ACC_ALL) != 0 && r->major <= INT32_MAX && r->minor <= INT32_MAX
         && (r->type == 'b' || r->type == 'c');
}

void
cg_dev_prog_build (const struct cg_dev_rule *rules, size_t n, struct cg_dev_prog *p)
{
  memset (p, 0, sizeof *p);
  emit_prologue (p);
  for (size_t i = n; i-- > 0;)
    {
      if (!rule_can_match (&rules[i]))
        continue;
      emit_rule (p, &rules[i]);
      if (rules[i].type == 'a')
        return; /* it decides everything: the rules before it are dead */
    }
  emit_return (p, true);
}

void
cg_dev_prog_release (struct cg_dev_prog *p)
{
  free (p->insns);
  memset (p, 0, sizeof *p);
}

/* Loading and attaching.  */

static int
sys_bpf (int cmd, union bpf_attr *attr)
{
  return (int) syscall (__NR_bpf, cmd, attr, sizeof *attr);
}

/* The verifier's last line (why it refused), from a log it wrote into `log`.  */
static const char *
last_line (char *log)
{
  size_t len = strlen (log);
  char *nl;

  while (len > 0 && log[len - 1] == '\n')
    log[--len] = '\0';
  nl = strrchr (log, '\n');
  return nl ? nl + 1 : log;
}

int
cg_dev_prog_load (const struct cg_dev_prog *p, ar_error_t *err)
{
  union bpf_attr attr;
  int fd;

  memset (&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.insns = (uint64_t) (uintptr_t) p->insns;
  attr.insn_cnt = (uint32_t) p->n;
  /* The kernel wants a license string (a NULL one is EFAULT); it only decides access to
     GPL-only helpers, and this program calls no helper at all.  */
  attr.license = (uint64_t) (uintptr_t) "GPL";
  fd = sys_bpf (BPF_PROG_LOAD, &attr);
  if (fd >= 0)
    return fd;
  if (errno == EINVAL || errno == EACCES)
    {
      /* Refused by the verifier: load again with its log, for the error.  */
      int saved = errno;
      cleanup_free char *log = xzalloc (65536);
      attr.log_level = 1;
      attr.log_buf = (uint64_t) (uintptr_t) log;
      attr.log_size = 65536;
      fd = sys_bpf (BPF_PROG_LOAD, &attr);
      if (fd >= 0)
        return fd;
      errno = saved;
      if (*log)
        return ar_make_error (err, errno,
                              "cgroup v2: load the device program (%zu instructions): %s", p->n,
                              last_line (log));
    }
  return ar_make_error (err, errno, "cgroup v2: load the device program");
}

/* The device programs attached to the cgroup itself (not those it inherits).  */
static int
query_progs (int dirfd, const char *dir, uint32_t *ids, uint32_t max, uint32_t *n, ar_error_t *err)
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.query.target_fd = (uint32_t) dirfd;
  attr.query.attach_type = BPF_CGROUP_DEVICE;
  attr.query.prog_ids = (uint64_t) (uintptr_t) ids;
  attr.query.prog_cnt = max;
  if (sys_bpf (BPF_PROG_QUERY, &attr) < 0)
    return ar_make_error (err, errno, "cgroup v2: list the device programs of `%s`", dir);
  *n = attr.query.prog_cnt;
  return 0;
}

static int
prog_fd_by_id (uint32_t id)
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.prog_id = id;
  return sys_bpf (BPF_PROG_GET_FD_BY_ID, &attr);
}

static int
attach (int dirfd, int progfd, int replace_fd)
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.target_fd = (uint32_t) dirfd;
  attr.attach_bpf_fd = (uint32_t) progfd;
  attr.attach_type = BPF_CGROUP_DEVICE;
  /* MULTI: a cgroup below ours (a nested runtime's) may attach its own, which then runs
     with ours instead of overriding it.  */
  attr.attach_flags = BPF_F_ALLOW_MULTI;
  if (replace_fd >= 0)
    {
      attr.attach_flags |= BPF_F_REPLACE;
      attr.replace_bpf_fd = (uint32_t) replace_fd;
    }
  return sys_bpf (BPF_PROG_ATTACH, &attr);
}

static void
detach (int dirfd, uint32_t id)
{
  cleanup_close int fd = prog_fd_by_id (id);
  union bpf_attr attr;

  if (fd < 0)
    return; /* gone already */
  memset (&attr, 0, sizeof attr);
  attr.target_fd = (uint32_t) dirfd;
  attr.attach_bpf_fd = (uint32_t) fd;
  attr.attach_type = BPF_CGROUP_DEVICE;
  if (sys_bpf (BPF_PROG_DETACH, &attr) < 0 && errno != ENOENT)
    ar_debug ("cgroup v2: detach the old device program %u: %s", id, strerror (errno));
}

/* Our program becomes the only one on the cgroup: a previous one (update) is replaced in one
   step when there is exactly one, otherwise the new one is attached first and the old ones
   detached after, so that there is no moment without a device program.  */
int
cg_dev_prog_attach (int progfd, const char *dir, ar_error_t *err)
{
  cleanup_close int dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  uint32_t ids[64], n = 0;

  if (dirfd < 0)
    return ar_make_error (err, errno, "cgroup v2: open `%s`", dir);
  if (query_progs (dirfd, dir, ids, ARRAY_SIZE (ids), &n, err) < 0)
    return -1;
  if (n == 1)
    {
      cleanup_close int old = prog_fd_by_id (ids[0]);
      if (old >= 0 && attach (dirfd, progfd, old) == 0)
        return 0;
      /* It went away meanwhile, or this kernel has no BPF_F_REPLACE: attach, then detach.  */
    }
  if (attach (dirfd, progfd, -1) < 0)
    return ar_make_error (err, errno, "cgroup v2: attach the device program to `%s`", dir);
  for (uint32_t i = 0; i < n; i++)
    detach (dirfd, ids[i]);
  return 0;
}

int
cg_v2_devices (const char *dir, const struct spec_device_cgroup *rules, size_t n_rules,
               const struct spec_device *devs, size_t n_devs, ar_error_t *err)
{
  size_t n = 0;
  cleanup_free struct cg_dev_rule *all = cg_dev_rules_collect (rules, n_rules, devs, n_devs, &n);
  struct cg_dev_prog p;
  int fd, ret;

  cg_dev_prog_build (all, n, &p);
  fd = cg_dev_prog_load (&p, err);
  ar_debug ("cgroup v2: device program of %zu rules, %zu instructions", n, p.n);
  cg_dev_prog_release (&p);
  if (fd < 0)
    return -1;
  /* The attachment holds the program: our fd can go.  */
  ret = cg_dev_prog_attach (fd, dir, err);
  close (fd);
  return ret;
}
