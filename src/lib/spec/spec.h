/* The OCI runtime-spec 1.2 configuration (config.json) and process (process.json) as typed C
   structs, and the parser that fills them.  spec.c is the only reader of those files; everything
   after it works on these structs.  Optional scalars carry `.set`; absent strings are NULL;
   arrays are a pointer and a count.  Parse errors name the file and the JSON path:
   "config.json: linux.resources.memory.limit: expected an integer".  */
#ifndef AGENTRT_SPEC_H
#define AGENTRT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agentrt/error.h"

struct spec_i64
{
  bool set;
  int64_t v;
};
struct spec_u64
{
  bool set;
  uint64_t v;
};

/* A string → string map in document order (annotations, sysctl, unified).  */
struct spec_kv
{
  char *key;
  char *value;
};
struct spec_map
{
  struct spec_kv *items;
  size_t n;
};
void spec_map_clear (struct spec_map *m); /* frees the items, leaves an empty map */
/* NULL-terminated string vector with its length.  */
struct spec_strv
{
  char **v;
  size_t n;
};

struct spec_rlimit
{
  char *type; /* "RLIMIT_NOFILE" */
  int resource;
  uint64_t soft, hard;
};

struct spec_caps
{
  struct spec_strv bounding, effective, inheritable, permitted, ambient;
};

struct spec_user
{
  uint32_t uid, gid;
  struct spec_i64 umask;
  uint32_t *additional_gids;
  size_t n_additional_gids;
  char *username;
};

struct spec_scheduler
{
  char *policy; /* SCHED_OTHER, SCHED_FIFO, … */
  int32_t nice, priority;
  struct spec_strv flags;
  uint64_t runtime, deadline, period;
};

struct spec_io_priority
{
  char *klass; /* IOPRIO_CLASS_RT|BE|IDLE */
  int32_t priority;
};

struct spec_process
{
  bool terminal;
  bool has_console_size;
  uint32_t console_height, console_width;
  struct spec_user user;
  struct spec_strv args;
  char *command_line; /* Windows only; kept so an error can say so */
  struct spec_strv env;
  char *cwd;
  bool has_capabilities;
  struct spec_caps capabilities;
  struct spec_rlimit *rlimits;
  size_t n_rlimits;
  bool no_new_privileges;
  char *apparmor_profile;
  struct spec_i64 oom_score_adj;
  bool has_scheduler;
  struct spec_scheduler scheduler;
  char *selinux_label;
  bool has_io_priority;
  struct spec_io_priority io_priority;
  char *exec_cpu_affinity_initial, *exec_cpu_affinity_final;
};

struct spec_root
{
  char *path;
  bool readonly;
};

struct spec_id_mapping
{
  uint32_t container_id, host_id, size;
};

/* Does a mapping of m give a container id host id `host`?  */
bool spec_id_host_mapped (uint32_t host, const struct spec_id_mapping *m, size_t n);
/* The host id of the container's root (container id 0; the last mapping that starts there), or
   `none` if m maps no root.  */
uint32_t spec_id_root_host (const struct spec_id_mapping *m, size_t n, uint32_t none);

struct spec_mount
{
  char *destination;
  char *type;
  char *source;
  struct spec_strv options;
  struct spec_id_mapping *uid_mappings, *gid_mappings;
  size_t n_uid_mappings, n_gid_mappings;
};

struct spec_hook
{
  char *path;
  struct spec_strv args, env;
  struct spec_i64 timeout; /* seconds, > 0 when set */
};
struct spec_hook_list
{
  struct spec_hook *items;
  size_t n;
};
enum spec_hook_kind
{
  SPEC_HOOK_PRESTART,
  SPEC_HOOK_CREATE_RUNTIME,
  SPEC_HOOK_CREATE_CONTAINER,
  SPEC_HOOK_START_CONTAINER,
  SPEC_HOOK_POSTSTART,
  SPEC_HOOK_POSTSTOP,
  SPEC_HOOK_N,
};
extern const char *const spec_hook_names[SPEC_HOOK_N]; /* "prestart", "createRuntime", … */

enum spec_ns_kind
{
  SPEC_NS_PID,
  SPEC_NS_NETWORK,
  SPEC_NS_MOUNT,
  SPEC_NS_IPC,
  SPEC_NS_UTS,
  SPEC_NS_USER,
  SPEC_NS_CGROUP,
  SPEC_NS_TIME,
  SPEC_NS_N,
};
struct spec_namespace_name
{
  const char *oci;  /* "network" */
  const char *proc; /* "net", as in /proc/PID/ns */
  int clone_flag;   /* CLONE_NEWNET */
};
extern const struct spec_namespace_name spec_namespace_names[SPEC_NS_N];

struct spec_namespace
{
  enum spec_ns_kind kind;
  char *path; /* join this one instead of creating */
};

struct spec_device
{
  char type; /* 'c', 'b', 'u' or 'p' */
  char *path;
  int64_t major, minor;
  struct spec_u64 file_mode; /* permission bits */
  struct spec_u64 uid, gid;
};

struct spec_device_cgroup
{
  bool allow;
  char type;                    /* 'a', 'c' or 'b'; 'a' when absent */
  struct spec_i64 major, minor; /* absent: wildcard */
  char *access;                 /* "rwm" subset; NULL: all */
};

struct spec_memory
{
  struct spec_i64 limit, reservation, swap, kernel, kernel_tcp;
  struct spec_u64 swappiness;
  bool has_disable_oom_killer, disable_oom_killer;
  bool has_use_hierarchy, use_hierarchy;
  bool check_before_update;
};

struct spec_cpu
{
  struct spec_u64 shares, period, realtime_period, burst;
  struct spec_i64 quota, realtime_runtime, idle;
  char *cpus, *mems;
};

struct spec_weight_device
{
  int64_t major, minor;
  struct spec_u64 weight, leaf_weight;
};
struct spec_throttle_device
{
  int64_t major, minor;
  uint64_t rate;
};
struct spec_block_io
{
  struct spec_u64 weight, leaf_weight;
  struct spec_weight_device *weight_device;
  size_t n_weight_device;
  struct spec_throttle_device *throttle[4]; /* read bps, write bps, read iops, write iops */
  size_t n_throttle[4];
};
extern const char *const spec_throttle_names[4]; /* "throttleReadBpsDevice", … */

struct spec_hugepage_limit
{
  char *page_size; /* "2MB" */
  uint64_t limit;
};

struct spec_net_priority
{
  char *name;
  uint32_t priority;
};

struct spec_rdma
{
  char *device;
  struct spec_u64 hca_handles, hca_objects;
};

struct spec_resources
{
  struct spec_device_cgroup *devices;
  size_t n_devices;
  bool has_memory;
  struct spec_memory memory;
  bool has_cpu;
  struct spec_cpu cpu;
  struct spec_i64 pids_limit;
  bool has_block_io;
  struct spec_block_io block_io;
  struct spec_hugepage_limit *hugepage_limits;
  size_t n_hugepage_limits;
  bool has_network;
  struct spec_u64 net_class_id;
  struct spec_net_priority *net_priorities;
  size_t n_net_priorities;
  struct spec_rdma *rdma;
  size_t n_rdma;
  struct spec_map unified;
};

struct spec_seccomp_arg
{
  uint32_t index;
  uint64_t value, value_two;
  int op; /* enum scmp_compare */
};
struct spec_seccomp_rule
{
  struct spec_strv names;
  uint32_t action; /* SCMP_ACT_* without the errno/trace data */
  struct spec_u64 errno_ret;
  struct spec_seccomp_arg *args;
  size_t n_args;
};
struct spec_seccomp
{
  uint32_t default_action;
  struct spec_u64 default_errno_ret;
  struct spec_strv architectures; /* "SCMP_ARCH_X86_64", … */
  struct spec_strv flags;         /* "SECCOMP_FILTER_FLAG_LOG", … */
  char *listener_path, *listener_metadata;
  struct spec_seccomp_rule *syscalls;
  size_t n_syscalls;
};

struct spec_personality
{
  char *domain; /* LINUX or LINUX32 */
  struct spec_strv flags;
};

struct spec_time_offset
{
  bool set;
  int64_t secs;
  uint32_t nanosecs;
};

struct spec_net_device
{
  char *host_name, *name;
};

struct spec_linux
{
  struct spec_namespace *namespaces;
  size_t n_namespaces;
  struct spec_id_mapping *uid_mappings, *gid_mappings;
  size_t n_uid_mappings, n_gid_mappings;
  struct spec_time_offset time_monotonic, time_boottime;
  struct spec_device *devices;
  size_t n_devices;
  char *cgroups_path;
  bool has_resources;
  struct spec_resources resources;
  struct spec_map sysctl;
  bool has_seccomp;
  struct spec_seccomp seccomp;
  char *rootfs_propagation; /* shared, slave, private, unbindable (r-prefixed too) */
  struct spec_strv masked_paths, readonly_paths;
  char *mount_label;
  bool has_personality;
  struct spec_personality personality;
  bool has_intel_rdt; /* parsed and ignored: no RDT on these machines */
  struct spec_net_device *net_devices;
  size_t n_net_devices;
};

struct spec
{
  char *oci_version;
  bool has_process;
  struct spec_process process;
  struct spec_root root;
  char *hostname, *domainname;
  struct spec_mount *mounts;
  size_t n_mounts;
  struct spec_hook_list hooks[SPEC_HOOK_N];
  struct spec_map annotations;
  bool has_linux;
  struct spec_linux linux_;
};

/* Caps on what config.json and process.json may hold: they come from whoever writes the bundle
   or the pod, and the runtime's time and memory must not be theirs to spend.  Generous for real
   configs (Podman's and Docker's default seccomp profiles: 30-35 entries, 420-470 names, about
   10 argument conditions; Kubernetes pods with hundreds of mounts and thousands of env
   entries), small enough that no accepted config takes more than about a second to parse and
   compile (docs/runtime-spec.md has the figures).  Past a cap the parser fails with
   "config.json: PATH: more than N entries".  The nesting depth is json.h's AR_JSON_MAX_DEPTH. */
/* Bytes.  The kernel's default limit on a process's args and env together is 2 MiB.  */
#define SPEC_MAX_SIZE (4u << 20)
/* Any list or map without a cap below: mounts, masked and read-only paths, devices, device
   rules, sysctl, capabilities, mount options, block devices, …  */
#define SPEC_MAX_ITEMS 1024
/* process.args, process.env, hooks' args and env, additionalGids (the kernel's NGROUPS_MAX).  */
#define SPEC_MAX_STRINGS 65536
/* uid and gid mappings: the kernel's limit for a map.  */
#define SPEC_MAX_ID_MAPPINGS 340
/* Hooks of one kind: each is a process run in turn.  */
#define SPEC_MAX_HOOKS 128
/* Annotations, and their keys and values together (Kubernetes' own cap on a pod's).  */
#define SPEC_MAX_ANNOTATIONS 4096
#define SPEC_MAX_ANNOTATION_BYTES (256u << 10)
/* linux.seccomp.syscalls: entries, and their syscall names all together.  */
#define SPEC_MAX_SECCOMP_RULES 1024
#define SPEC_MAX_SECCOMP_NAMES 2048
/* Argument conditions in all entries, each counted once per name of its entry, as libseccomp
   adds them: its time grows fast with them (1024 entries of 4 names with 6 conditions each ran
   for more than 5 minutes).  */
#define SPEC_MAX_SECCOMP_CONDITIONS 256

/* Parse config.json text; `what` names it in errors ("config.json").  */
int spec_parse (const char *text, const char *what, struct spec **out, ar_error_t *err);
/* Read and parse BUNDLE/config.json.  */
int spec_load_bundle (const char *bundle, struct spec **out, ar_error_t *err);
void spec_free (struct spec *s);
void spec_freep (void *p);
#define cleanup_spec __attribute__ ((cleanup (spec_freep)))

/* A process spec alone, as `exec --process FILE` reads it.  */
int spec_parse_process (const char *text, const char *what, struct spec_process **out,
                        ar_error_t *err);
void spec_process_free (struct spec_process *p);
void spec_process_freep (void *p);
#define cleanup_spec_process __attribute__ ((cleanup (spec_process_freep)))

/* Lookups shared with `features`, so it lists exactly what the parser accepts.  */
/* A linux.resources document alone (update --resources).  */
int spec_parse_resources (const char *text, const char *what, struct spec_resources **out,
                          ar_error_t *err);
void spec_resources_free (struct spec_resources *r);
int spec_rlimit_from_name (const char *name); /* RLIMIT_*; -1 if unknown */
int spec_cap_from_name (const char *name);    /* CAP_*; -1 if unknown */
size_t spec_cap_count (void);
const char *spec_cap_name (size_t i);
/* Mount options the runtime understands, NULL-terminated.  */
extern const char *const spec_mount_options[];

/* Seccomp names: actions, operators and flags, each NULL-terminated.  */
struct spec_named_value
{
  const char *name;
  uint64_t value;
};
extern const struct spec_named_value spec_seccomp_actions[];
extern const struct spec_named_value spec_seccomp_operators[];
extern const struct spec_named_value spec_seccomp_flags[];
extern const struct spec_named_value spec_seccomp_archs[];

#endif
