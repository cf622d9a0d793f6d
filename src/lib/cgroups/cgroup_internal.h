/* Shared by cgroup.c, resources.c and devices_bpf.c.  */
#ifndef AGENTRT_CGROUP_INTERNAL_H
#define AGENTRT_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "cgroups/cgroup.h"
#include "spec/spec.h"

#define CG_MAX 32

/* One hierarchy: where it is mounted, what it controls ("cpu,cpuacct"; "" for cgroup2).  */
struct cg_hier
{
  char *mount;
  char *controllers;
  bool v2;
};
struct cg_hiers
{
  struct cg_hier h[CG_MAX];
  size_t n;
};
/* The hierarchies mounted here (named ones such as name=systemd, which control nothing, left
   out), and what layout they make.  */
int cg_read_hiers (struct cg_hiers *hs, enum cgroup_layout *layout, ar_error_t *err);
void cg_hiers_release (struct cg_hiers *hs);
/* Is `name` one of the comma list `list`?  */
bool cg_has_controller (const char *list, const char *name);
/* The cgroup of process `pid` (0: the caller) in h, from /proc/PID/cgroup ("/" if unknown).  */
char *cg_proc_path (pid_t pid, const struct cg_hier *h);
/* mkdir -p `dir`, itself exclusively (EEXIST: another container's); v1 cpusets get their
   parent's CPUs and memory nodes, v2 parents delegate their controllers.  */
int cg_make_dir (const char *dir, bool v2, ar_error_t *err);
/* The calling thread into each v1 directory of `cg` (only those agentrt makes, with
   `own_only`: the systemd driver's before the unit exists).  */
int cg_enter_v1 (const struct cgroup *cg, bool own_only, ar_error_t *err);

/* Write `value` to DIR/FILE; the error names the file and the value.  */
int cg_write (const char *dir, const char *file, const char *value, size_t len, ar_error_t *err);
/* Does DIR/FILE exist?  */
bool cg_has (const char *dir, const char *file);
/* The number DIR/FILE begins with; false when it cannot be read or begins with none ("max").  */
bool cg_read_u64 (const char *dir, const char *file, uint64_t *v);
struct cgroup;
/* The first of the container's directories that has FILE (the hierarchy of its controller).  */
const char *cg_dir_with (const struct cgroup *cg, const char *file);
/* A new v1 cpuset directory gets its parent's cpus and mems (no-op elsewhere).  */
void cg_cpuset_inherit (const char *dir);
/* v2: give the children of `dir` every controller it has (no-op on v1).  */
void cg_v2_delegate (const char *dir);
/* crun's and runc's conversion of cpu.shares [2, 262144] to cpu.weight [1, 10000] (the file on
   v2, and systemd's CPUWeight).  */
uint64_t cg_shares_to_weight (uint64_t shares);
/* v1 freezer: FROZEN or THAWED, waiting until the kernel says it is done.  */
int cg_v1_freeze (const char *dir, bool freeze, ar_error_t *err);

/* Device rules (devices_bpf.c), one form for both layouts.  */
struct cg_dev_rule
{
  bool allow;
  char type;            /* 'a' (every device, every access), 'c' or 'b' */
  int64_t major, minor; /* -1: any */
  unsigned access;      /* BPF_DEVCG_ACC_* bits: MKNOD 1, READ 2, WRITE 4 */
};
/* The devices every container may use, after its own rules.  */
extern const struct cg_dev_rule cg_default_devices[];
extern const size_t cg_n_default_devices;

struct cg_dev_rule cg_dev_rule_from_spec (const struct spec_device_cgroup *d);
/* As v1's devices.allow/devices.deny read it: "c 1:3 rwm", "b *:* m", "a".  */
void cg_dev_rule_text (const struct cg_dev_rule *r, char *buf, size_t size);
/* Every rule of a container, in order: linux.resources.devices, the defaults, then an allow
   of each node in linux.devices (caller frees).  */
struct cg_dev_rule *cg_dev_rules_collect (const struct spec_device_cgroup *rules, size_t n_rules,
                                          const struct spec_device *devs, size_t n_devs, size_t *n);

/* A BPF_PROG_TYPE_CGROUP_DEVICE program (struct bpf_insn is <linux/bpf.h>'s).  */
struct bpf_insn;
struct cg_dev_prog
{
  struct bpf_insn *insns;
  size_t n, cap;
};
/* The program of `rules`: the last rule that matches decides, allow when none does.  */
void cg_dev_prog_build (const struct cg_dev_rule *rules, size_t n, struct cg_dev_prog *p);
void cg_dev_prog_release (struct cg_dev_prog *p);
/* bpf(BPF_PROG_LOAD): the program's fd.  */
int cg_dev_prog_load (const struct cg_dev_prog *p, ar_error_t *err);
/* Make it the device program of cgroup directory `dir`, replacing any it had.  */
int cg_dev_prog_attach (int progfd, const char *dir, ar_error_t *err);
/* All of the above for a container's cgroup v2 directory.  */
int cg_v2_devices (const char *dir, const struct spec_device_cgroup *rules, size_t n_rules,
                   const struct spec_device *devs, size_t n_devs, ar_error_t *err);

#endif
