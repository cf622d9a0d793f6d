/* config.json and process.json → struct spec.  This file owns the schema checks: every wrong type
   and every value the runtime-spec or runc refuses is reported here, once, as
   "WHAT: PATH: expected …", so the code after it can trust the structs.  It reads JSON only
   through json.h (never yajl) and touches the system only to read BUNDLE/config.json.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "json.h"
#include "spec/spec.h"
#include "utils.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* Tables.  */

const char *const spec_hook_names[SPEC_HOOK_N] = {
  [SPEC_HOOK_PRESTART] = "prestart",
  [SPEC_HOOK_CREATE_RUNTIME] = "createRuntime",
  [SPEC_HOOK_CREATE_CONTAINER] = "createContainer",
  [SPEC_HOOK_START_CONTAINER] = "startContainer",
  [SPEC_HOOK_POSTSTART] = "poststart",
  [SPEC_HOOK_POSTSTOP] = "poststop",
};

const struct spec_namespace_name spec_namespace_names[SPEC_NS_N] = {
  [SPEC_NS_PID] = { "pid", "pid", CLONE_NEWPID },
  [SPEC_NS_NETWORK] = { "network", "net", CLONE_NEWNET },
  [SPEC_NS_MOUNT] = { "mount", "mnt", CLONE_NEWNS },
  [SPEC_NS_IPC] = { "ipc", "ipc", CLONE_NEWIPC },
  [SPEC_NS_UTS] = { "uts", "uts", CLONE_NEWUTS },
  [SPEC_NS_USER] = { "user", "user", CLONE_NEWUSER },
  [SPEC_NS_CGROUP] = { "cgroup", "cgroup", CLONE_NEWCGROUP },
  [SPEC_NS_TIME] = { "time", "time", CLONE_NEWTIME },
};

const char *const spec_throttle_names[4] = {
  "throttleReadBpsDevice",
  "throttleWriteBpsDevice",
  "throttleReadIOPSDevice",
  "throttleWriteIOPSDevice",
};

/* The flag options of runc's mount code; anything else (mode=755, size=…) is filesystem data,
   so the parser does not check options against this list.  */
const char *const spec_mount_options[] = {
  "defaults",    "ro",          "rw",          "suid",         "nosuid",         "dev",
  "nodev",       "exec",        "noexec",      "sync",         "async",          "dirsync",
  "remount",     "mand",        "nomand",      "atime",        "noatime",        "diratime",
  "nodiratime",  "relatime",    "norelatime",  "strictatime",  "nostrictatime",  "lazytime",
  "nolazytime",  "nosymfollow", "symfollow",   "bind",         "rbind",          "private",
  "rprivate",    "shared",      "rshared",     "slave",        "rslave",         "unbindable",
  "runbindable", "rro",         "rrw",         "rnosuid",      "rsuid",          "rnodev",
  "rdev",        "rnoexec",     "rexec",       "rnoatime",     "ratime",         "rnodiratime",
  "rdiratime",   "rrelatime",   "rnorelatime", "rstrictatime", "rnostrictatime", "tmpcopyup",
  "idmap",       "ridmap",      NULL,
};

/* Base values: SCMP_ACT_ERRNO and SCMP_ACT_TRACE carry their data in errno_ret.  */
const struct spec_named_value spec_seccomp_actions[] = {
  { "SCMP_ACT_KILL", SCMP_ACT_KILL },
  { "SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS },
  { "SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD },
  { "SCMP_ACT_TRAP", SCMP_ACT_TRAP },
  { "SCMP_ACT_ERRNO", SCMP_ACT_ERRNO (0) },
  { "SCMP_ACT_TRACE", SCMP_ACT_TRACE (0) },
  { "SCMP_ACT_ALLOW", SCMP_ACT_ALLOW },
  { "SCMP_ACT_LOG", SCMP_ACT_LOG },
  { "SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY },
  { NULL, 0 },
};

const struct spec_named_value spec_seccomp_operators[] = {
  { "SCMP_CMP_NE", SCMP_CMP_NE },
  { "SCMP_CMP_LT", SCMP_CMP_LT },
  { "SCMP_CMP_LE", SCMP_CMP_LE },
  { "SCMP_CMP_EQ", SCMP_CMP_EQ },
  { "SCMP_CMP_GE", SCMP_CMP_GE },
  { "SCMP_CMP_GT", SCMP_CMP_GT },
  { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
  { NULL, 0 },
};

const struct spec_named_value spec_seccomp_flags[] = {
  { "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
  { "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
  { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
  { "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
  { NULL, 0 },
};

/* Exactly the architectures libseccomp 2.5.4's seccomp.h defines.  */
const struct spec_named_value spec_seccomp_archs[] = {
  { "SCMP_ARCH_X86", SCMP_ARCH_X86 },
  { "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64 },
  { "SCMP_ARCH_X32", SCMP_ARCH_X32 },
  { "SCMP_ARCH_ARM", SCMP_ARCH_ARM },
  { "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64 },
  { "SCMP_ARCH_MIPS", SCMP_ARCH_MIPS },
  { "SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64 },
  { "SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32 },
  { "SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL },
  { "SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64 },
  { "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32 },
  { "SCMP_ARCH_PPC", SCMP_ARCH_PPC },
  { "SCMP_ARCH_PPC64", SCMP_ARCH_PPC64 },
  { "SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE },
  { "SCMP_ARCH_S390", SCMP_ARCH_S390 },
  { "SCMP_ARCH_S390X", SCMP_ARCH_S390X },
  { "SCMP_ARCH_PARISC", SCMP_ARCH_PARISC },
  { "SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64 },
  { "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64 },
  { NULL, 0 },
};

static const struct spec_named_value rlimit_names[] = {
  { "RLIMIT_CPU", RLIMIT_CPU },
  { "RLIMIT_FSIZE", RLIMIT_FSIZE },
  { "RLIMIT_DATA", RLIMIT_DATA },
  { "RLIMIT_STACK", RLIMIT_STACK },
  { "RLIMIT_CORE", RLIMIT_CORE },
  { "RLIMIT_RSS", RLIMIT_RSS },
  { "RLIMIT_NPROC", RLIMIT_NPROC },
  { "RLIMIT_NOFILE", RLIMIT_NOFILE },
  { "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK },
  { "RLIMIT_AS", RLIMIT_AS },
  { "RLIMIT_LOCKS", RLIMIT_LOCKS },
  { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
  { "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE },
  { "RLIMIT_NICE", RLIMIT_NICE },
  { "RLIMIT_RTPRIO", RLIMIT_RTPRIO },
  { "RLIMIT_RTTIME", RLIMIT_RTTIME },
  { NULL, 0 },
};

/* Indexed by capability number (linux/capability.h), so the kernel's numbering is the index.  */
static const char *const cap_names[] = {
  "CAP_CHOWN",
  "CAP_DAC_OVERRIDE",
  "CAP_DAC_READ_SEARCH",
  "CAP_FOWNER",
  "CAP_FSETID",
  "CAP_KILL",
  "CAP_SETGID",
  "CAP_SETUID",
  "CAP_SETPCAP",
  "CAP_LINUX_IMMUTABLE",
  "CAP_NET_BIND_SERVICE",
  "CAP_NET_BROADCAST",
  "CAP_NET_ADMIN",
  "CAP_NET_RAW",
  "CAP_IPC_LOCK",
  "CAP_IPC_OWNER",
  "CAP_SYS_MODULE",
  "CAP_SYS_RAWIO",
  "CAP_SYS_CHROOT",
  "CAP_SYS_PTRACE",
  "CAP_SYS_PACCT",
  "CAP_SYS_ADMIN",
  "CAP_SYS_BOOT",
  "CAP_SYS_NICE",
  "CAP_SYS_RESOURCE",
  "CAP_SYS_TIME",
  "CAP_SYS_TTY_CONFIG",
  "CAP_MKNOD",
  "CAP_LEASE",
  "CAP_AUDIT_WRITE",
  "CAP_AUDIT_CONTROL",
  "CAP_SETFCAP",
  "CAP_MAC_OVERRIDE",
  "CAP_MAC_ADMIN",
  "CAP_SYSLOG",
  "CAP_WAKE_ALARM",
  "CAP_BLOCK_SUSPEND",
  "CAP_AUDIT_READ",
  "CAP_PERFMON",
  "CAP_BPF",
  "CAP_CHECKPOINT_RESTORE",
};

static const char *const propagations[] = {
  "",        "shared", "slave",    "private",     "unbindable",
  "rshared", "rslave", "rprivate", "runbindable", NULL,
};
static const char *const sched_policies[] = {
  "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",       "SCHED_BATCH",
  "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL,
};
static const char *const sched_flags[] = {
  "SCHED_FLAG_RESET_ON_FORK",  "SCHED_FLAG_RECLAIM",
  "SCHED_FLAG_DL_OVERRUN",     "SCHED_FLAG_KEEP_POLICY",
  "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
  "SCHED_FLAG_UTIL_CLAMP_MAX", NULL,
};
static const char *const ioprio_classes[] = {
  "IOPRIO_CLASS_RT",
  "IOPRIO_CLASS_BE",
  "IOPRIO_CLASS_IDLE",
  NULL,
};
static const char *const personality_domains[] = { "LINUX", "LINUX32", NULL };

static const struct spec_named_value *
named_find (const struct spec_named_value *t, const char *name)
{
  for (; t->name; t++)
    if (strcmp (t->name, name) == 0)
      return t;
  return NULL;
}

static bool
strv_has (const char *const *list, const char *s)
{
  for (; *list; list++)
    if (strcmp (*list, s) == 0)
      return true;
  return false;
}

int
spec_rlimit_from_name (const char *name)
{
  const struct spec_named_value *v = named_find (rlimit_names, name);
  return v ? (int) v->value : -1;
}

int
spec_cap_from_name (const char *name)
{
  for (size_t i = 0; i < ARRAY_SIZE (cap_names); i++)
    if (strcmp (cap_names[i], name) == 0)
      return (int) i;
  return -1;
}

size_t
spec_cap_count (void)
{
  return ARRAY_SIZE (cap_names);
}

const char *
spec_cap_name (size_t i)
{
  return i < ARRAY_SIZE (cap_names) ? cap_names[i] : NULL;
}

static int
ns_from_name (const char *name)
{
  for (int i = 0; i < SPEC_NS_N; i++)
    if (strcmp (spec_namespace_names[i].oci, name) == 0)
      return i;
  return -1;
}

/* Cursors: a JSON value and where it sits.  The parent chain spells the path for errors, so
   nothing is formatted unless something fails.  */

struct pctx
{
  const char *what; /* "config.json" */
  ar_error_t *err;
};

struct jcur
{
  const struct pctx *c;
  const struct jcur *up; /* NULL at the document root */
  const char *key;       /* member name; NULL for an array item */
  size_t index;
  const struct ar_jnode *node; /* NULL when absent */
};

static char *
path_text (const struct jcur *v)
{
  cleanup_free char *up = NULL;

  if (v->up == NULL)
    return xstrdup ("");
  up = path_text (v->up);
  if (v->key == NULL)
    return xasprintf ("%s[%zu]", up, v->index);
  return xasprintf ("%s%s%s", up, up[0] ? "." : "", v->key);
}

static int fail (const struct jcur *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int
fail (const struct jcur *v, const char *fmt, ...)
{
  cleanup_free char *path = path_text (v);
  cleanup_free char *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) < 0)
    ar_oom ();
  va_end (ap);
  if (path[0] == '\0')
    ar_make_error (v->c->err, 0, "%s: %s", v->c->what, msg);
  else
    ar_make_error (v->c->err, 0, "%s: %s: %s", v->c->what, path, msg);
  return -1;
}

static struct jcur
member (const struct jcur *obj, const char *key)
{
  return (struct jcur){ .c = obj->c, .up = obj, .key = key, .node = ar_jget (obj->node, key) };
}

static struct jcur
item (const struct jcur *arr, size_t i)
{
  return (struct jcur){ .c = arr->c, .up = arr, .index = i, .node = ar_jat (arr->node, i) };
}

static struct jcur
entry (const struct jcur *obj, size_t i)
{
  return (struct jcur){
    .c = obj->c, .up = obj, .key = ar_jkey_at (obj->node, i), .node = ar_jat (obj->node, i)
  };
}

static enum ar_jtype
type_of (const struct jcur *v)
{
  return ar_jtype (v->node);
}

/* Member KEY of OBJ into *M: 1 if present, 0 if absent or null (Go's encoding/json treats a
   null member as absent), < 0 if absent but required.  */
static int
lookup (const struct jcur *obj, const char *key, bool required, struct jcur *m)
{
  *m = member (obj, key);
  if (type_of (m) != AR_J_NULL)
    return 1;
  return required ? fail (m, "is required") : 0;
}

static int
open_kind (const struct jcur *obj, const char *key, bool required, enum ar_jtype kind,
           struct jcur *m)
{
  int r = lookup (obj, key, required, m);
  if (r > 0 && type_of (m) != kind)
    return fail (m, "expected %s", ar_jtype_name (kind));
  return r;
}

/* Typed values, already known to be present.  */

static int
val_str (const struct jcur *v, char **out)
{
  const char *s = ar_jstr (v->node);
  if (s == NULL)
    return fail (v, "expected a string");
  *out = xstrdup (s);
  return 0;
}

/* JSON numbers as written: an integer field refuses 1.0 and 1e3, as Go's decoder does.  */
static int
int_text (const struct jcur *v, const char **text)
{
  const char *t = ar_jnum_text (v->node);
  if (t == NULL || strpbrk (t, ".eE") != NULL)
    return fail (v, "expected an integer");
  *text = t;
  return 0;
}

static int
val_i64 (const struct jcur *v, int64_t min, int64_t max, int64_t *out)
{
  const char *t = NULL;
  char *end = NULL;
  long long n;

  if (int_text (v, &t) < 0)
    return -1;
  errno = 0;
  n = strtoll (t, &end, 10);
  if (end == t || *end != '\0')
    return fail (v, "expected an integer");
  if (errno == ERANGE || n < min || n > max)
    return fail (v, "expected an integer in [%" PRId64 ", %" PRId64 "]", min, max);
  *out = n;
  return 0;
}

static int
val_u64 (const struct jcur *v, uint64_t max, uint64_t *out)
{
  const char *t = NULL;
  char *end = NULL;
  unsigned long long n;

  if (int_text (v, &t) < 0)
    return -1;
  if (t[0] == '-')
    return fail (v, "expected a non-negative integer");
  errno = 0;
  n = strtoull (t, &end, 10);
  if (end == t || *end != '\0')
    return fail (v, "expected an integer");
  if (errno == ERANGE || n > max)
    return fail (v, "expected an integer in [0, %" PRIu64 "]", max);
  *out = n;
  return 0;
}

/* Member getters: 1 if present (and *out set), 0 if absent, < 0 on error.  */

static int
get_str (const struct jcur *obj, const char *key, bool required, char **out)
{
  struct jcur m;
  int r = lookup (obj, key, required, &m);
  if (r <= 0)
    return r;
  return val_str (&m, out) < 0 ? -1 : 1;
}

static int
get_abs_path (const struct jcur *obj, const char *key, bool required, char **out)
{
  int r = get_str (obj, key, required, out);
  if (r > 0 && (*out)[0] != '/')
    {
      struct jcur m = member (obj, key);
      return fail (&m, "expected an absolute path");
    }
  return r;
}

/* A string that must be one of CHOICES; KIND names the set in the error.  */
static int
get_choice (const struct jcur *obj, const char *key, bool required, const char *const *choices,
            const char *kind, char **out)
{
  int r = get_str (obj, key, required, out);
  if (r > 0 && !strv_has (choices, *out))
    {
      struct jcur m = member (obj, key);
      return fail (&m, "unknown %s `%s`", kind, *out);
    }
  return r;
}

static int
get_named (const struct jcur *obj, const char *key, bool required,
           const struct spec_named_value *table, const char *kind, uint64_t *out)
{
  cleanup_free char *s = NULL;
  const struct spec_named_value *nv;
  struct jcur m;
  int r = lookup (obj, key, required, &m);

  if (r <= 0)
    return r;
  if (val_str (&m, &s) < 0)
    return -1;
  nv = named_find (table, s);
  if (nv == NULL)
    return fail (&m, "unknown %s `%s`", kind, s);
  *out = nv->value;
  return 1;
}

static int
get_bool (const struct jcur *obj, const char *key, bool required, bool *out)
{
  struct jcur m;
  int r = lookup (obj, key, required, &m);
  if (r <= 0)
    return r;
  if (type_of (&m) != AR_J_BOOL)
    return fail (&m, "expected a boolean");
  *out = ar_jbool (m.node);
  return 1;
}

static int
opt_bool (const struct jcur *obj, const char *key, bool *has, bool *out)
{
  int r = get_bool (obj, key, false, out);
  *has = r > 0;
  return r;
}

static int
get_i64 (const struct jcur *obj, const char *key, bool required, int64_t min, int64_t max,
         int64_t *out)
{
  struct jcur m;
  int r = lookup (obj, key, required, &m);
  if (r <= 0)
    return r;
  return val_i64 (&m, min, max, out) < 0 ? -1 : 1;
}

static int
get_u64 (const struct jcur *obj, const char *key, bool required, uint64_t max, uint64_t *out)
{
  struct jcur m;
  int r = lookup (obj, key, required, &m);
  if (r <= 0)
    return r;
  return val_u64 (&m, max, out) < 0 ? -1 : 1;
}

static int
get_i32 (const struct jcur *obj, const char *key, int32_t min, int32_t max, int32_t *out)
{
  int64_t n = 0;
  int r = get_i64 (obj, key, false, min, max, &n);
  if (r > 0)
    *out = (int32_t) n;
  return r;
}

static int
get_u32 (const struct jcur *obj, const char *key, bool required, uint32_t *out)
{
  uint64_t n = 0;
  int r = get_u64 (obj, key, required, UINT32_MAX, &n);
  if (r > 0)
    *out = (uint32_t) n;
  return r;
}

static int
opt_si64 (const struct jcur *obj, const char *key, int64_t min, int64_t max, struct spec_i64 *out)
{
  int r = get_i64 (obj, key, false, min, max, &out->v);
  out->set = r > 0;
  return r;
}

static int
opt_su64 (const struct jcur *obj, const char *key, uint64_t max, struct spec_u64 *out)
{
  int r = get_u64 (obj, key, false, max, &out->v);
  out->set = r > 0;
  return r;
}

static int
opt_any_i64 (const struct jcur *obj, const char *key, struct spec_i64 *out)
{
  return opt_si64 (obj, key, INT64_MIN, INT64_MAX, out);
}

/* Containers: string arrays, string maps, lists of objects and sub-objects.  */

/* A list or map past its cap (spec.h) is refused before anything is made of it.  */
static int
check_count (const struct jcur *m, size_t max)
{
  if (ar_jlen (m->node) > max)
    return fail (m, "more than %zu entries", max);
  return 0;
}

typedef int (*check_fn) (const struct jcur *v, const char *s);

static int
get_strv (const struct jcur *obj, const char *key, check_fn check, size_t max,
          struct spec_strv *out)
{
  struct jcur m;
  int r = open_kind (obj, key, false, AR_J_ARRAY, &m);

  if (r <= 0)
    return r;
  if (check_count (&m, max) < 0)
    return -1;
  out->n = ar_jlen (m.node);
  out->v = xzalloc ((out->n + 1) * sizeof *out->v);
  for (size_t i = 0; i < out->n; i++)
    {
      struct jcur e = item (&m, i);
      if (val_str (&e, &out->v[i]) < 0 || (check && check (&e, out->v[i]) < 0))
        return -1;
    }
  return 1;
}

/* A repeated key keeps its first place and takes the last value, as a Go map would.  */
static void
map_put (struct spec_map *m, const char *key, char *value)
{
  for (size_t i = 0; i < m->n; i++)
    if (strcmp (m->items[i].key, key) == 0)
      {
        free (m->items[i].value);
        m->items[i].value = value;
        return;
      }
  m->items[m->n].key = xstrdup (key);
  m->items[m->n++].value = value;
}

static int
get_map (const struct jcur *obj, const char *key, size_t max, struct spec_map *out)
{
  struct jcur m;
  int r = open_kind (obj, key, false, AR_J_OBJECT, &m);
  size_t len;

  if (r <= 0)
    return r;
  if (check_count (&m, max) < 0)
    return -1;
  len = ar_jlen (m.node);
  out->items = xzalloc (len * sizeof *out->items);
  for (size_t i = 0; i < len; i++)
    {
      struct jcur e = entry (&m, i);
      char *value = NULL;
      if (val_str (&e, &value) < 0)
        return -1;
      map_put (out, e.key, value);
    }
  return 1;
}

typedef int (*elem_fn) (const struct jcur *v, void *base, size_t i);

/* Call FN on every item of the array (or every value of the object) L, each an object.  */
static int
each_object (const struct jcur *l, void *base, elem_fn fn)
{
  size_t n = ar_jlen (l->node);

  for (size_t i = 0; i < n; i++)
    {
      struct jcur e = type_of (l) == AR_J_ARRAY ? item (l, i) : entry (l, i);
      if (type_of (&e) != AR_J_OBJECT)
        return fail (&e, "expected an object");
      if (fn (&e, base, i) < 0)
        return -1;
    }
  return 1;
}

/* Member KEY (an array, or an object used as a map) of objects into ARR[N], zeroed first so that
   a list that fails half-way is still freed by spec_free.  */
#define GET_LIST(obj, key, kind, arr, n, fn, max)    \
  ({                                                 \
    struct jcur l_;                                  \
    int r_ = open_kind (obj, key, false, kind, &l_); \
    if (r_ > 0 && check_count (&l_, max) < 0)        \
      r_ = -1;                                       \
    if (r_ > 0)                                      \
      {                                              \
        (n) = ar_jlen (l_.node);                     \
        (arr) = xzalloc ((n) * sizeof *(arr));       \
        r_ = each_object (&l_, (arr), fn);           \
      }                                              \
    r_;                                              \
  })

/* The same for a field F of struct S with its count n_F.  */
#define GET_ARRAY(obj, key, s, f, fn, max) \
  GET_LIST (obj, key, AR_J_ARRAY, (s)->f, (s)->n_##f, fn, max)
#define GET_OBJMAP(obj, key, s, f, fn, max) \
  GET_LIST (obj, key, AR_J_OBJECT, (s)->f, (s)->n_##f, fn, max)

typedef int (*section_fn) (const struct jcur *v, void *out);

/* An optional object member, parsed by FN into OUT; *HAS (if given) says it was there.  */
static int
get_section (const struct jcur *obj, const char *key, bool *has, section_fn fn, void *out)
{
  struct jcur m;
  int r = open_kind (obj, key, false, AR_J_OBJECT, &m);

  if (r <= 0)
    return r;
  if (has)
    *has = true;
  return fn (&m, out) < 0 ? -1 : 1;
}

static int
check_cap (const struct jcur *v, const char *s)
{
  return spec_cap_from_name (s) < 0 ? fail (v, "unknown capability `%s`", s) : 0;
}

static int
check_arch (const struct jcur *v, const char *s)
{
  return named_find (spec_seccomp_archs, s) ? 0 : fail (v, "unknown architecture `%s`", s);
}

static int
check_seccomp_flag (const struct jcur *v, const char *s)
{
  return named_find (spec_seccomp_flags, s) ? 0 : fail (v, "unknown flag `%s`", s);
}

static int
check_sched_flag (const struct jcur *v, const char *s)
{
  return strv_has (sched_flags, s) ? 0 : fail (v, "unknown flag `%s`", s);
}

/* process */

static int
parse_console_size (const struct jcur *v, void *out)
{
  struct spec_process *p = out;
  if (get_u32 (v, "height", true, &p->console_height) < 0
      || get_u32 (v, "width", true, &p->console_width) < 0)
    return -1;
  return 0;
}

/* A user or group id the process is to have.  4294967295 is (uid_t) -1, which setresuid and
   setresgid take as "leave this one unchanged": the process would keep the runtime's root.  */
static int
val_id (const struct jcur *v, uint32_t *out)
{
  uint64_t id = 0;

  if (val_u64 (v, UINT32_MAX, &id) < 0)
    return -1;
  if (id == UINT32_MAX)
    return fail (v, "4294967295 is -1, \"unchanged\" to setresuid and setresgid: not an id");
  *out = (uint32_t) id;
  return 0;
}

static int
get_id (const struct jcur *obj, const char *key, uint32_t *out)
{
  struct jcur m;
  int r = lookup (obj, key, false, &m);
  if (r <= 0)
    return r;
  return val_id (&m, out) < 0 ? -1 : 1;
}

static int
get_gids (const struct jcur *obj, const char *key, uint32_t **out, size_t *n)
{
  struct jcur m;
  int r = open_kind (obj, key, false, AR_J_ARRAY, &m);

  if (r <= 0)
    return r;
  if (check_count (&m, SPEC_MAX_STRINGS) < 0)
    return -1;
  *n = ar_jlen (m.node);
  *out = xzalloc (*n * sizeof **out);
  for (size_t i = 0; i < *n; i++)
    {
      struct jcur e = item (&m, i);
      if (val_id (&e, &(*out)[i]) < 0)
        return -1;
    }
  return 1;
}

static int
parse_user (const struct jcur *v, void *out)
{
  struct spec_user *u = out;
  uint64_t umask = 0;
  int r;

  if (get_id (v, "uid", &u->uid) < 0 || get_id (v, "gid", &u->gid) < 0)
    return -1;
  r = get_u64 (v, "umask", false, UINT32_MAX, &umask);
  if (r < 0)
    return -1;
  u->umask = (struct spec_i64){ .set = r > 0, .v = (int64_t) umask };
  if (get_gids (v, "additionalGids", &u->additional_gids, &u->n_additional_gids) < 0
      || get_str (v, "username", false, &u->username) < 0)
    return -1;
  return 0;
}

static int
parse_args (const struct jcur *v, struct spec_process *p)
{
  struct jcur args = member (v, "args");

  if (get_strv (v, "args", NULL, SPEC_MAX_STRINGS, &p->args) < 0
      || get_str (v, "commandLine", false, &p->command_line) < 0)
    return -1;
  if (p->args.n == 0 && p->command_line == NULL)
    return fail (&args, p->args.v ? "expected a non-empty array" : "is required");
  return 0;
}

static int
parse_caps (const struct jcur *v, void *out)
{
  struct spec_caps *c = out;
  if (get_strv (v, "bounding", check_cap, SPEC_MAX_ITEMS, &c->bounding) < 0
      || get_strv (v, "effective", check_cap, SPEC_MAX_ITEMS, &c->effective) < 0
      || get_strv (v, "inheritable", check_cap, SPEC_MAX_ITEMS, &c->inheritable) < 0
      || get_strv (v, "permitted", check_cap, SPEC_MAX_ITEMS, &c->permitted) < 0
      || get_strv (v, "ambient", check_cap, SPEC_MAX_ITEMS, &c->ambient) < 0)
    return -1;
  return 0;
}

static int
parse_rlimit (const struct jcur *v, void *base, size_t i)
{
  struct spec_rlimit *rl = (struct spec_rlimit *) base + i;
  struct jcur type = member (v, "type");

  if (get_str (v, "type", true, &rl->type) < 0)
    return -1;
  rl->resource = spec_rlimit_from_name (rl->type);
  if (rl->resource < 0)
    return fail (&type, "unknown rlimit `%s`", rl->type);
  for (size_t j = 0; j < i; j++)
    if (((struct spec_rlimit *) base)[j].resource == rl->resource)
      return fail (&type, "duplicate rlimit `%s`", rl->type);
  if (get_u64 (v, "soft", true, UINT64_MAX, &rl->soft) < 0
      || get_u64 (v, "hard", true, UINT64_MAX, &rl->hard) < 0)
    return -1;
  return 0;
}

static int
parse_scheduler (const struct jcur *v, void *out)
{
  struct spec_scheduler *s = out;
  if (get_choice (v, "policy", true, sched_policies, "policy", &s->policy) < 0
      || get_i32 (v, "nice", INT32_MIN, INT32_MAX, &s->nice) < 0
      || get_i32 (v, "priority", INT32_MIN, INT32_MAX, &s->priority) < 0
      || get_strv (v, "flags", check_sched_flag, SPEC_MAX_ITEMS, &s->flags) < 0
      || get_u64 (v, "runtime", false, UINT64_MAX, &s->runtime) < 0
      || get_u64 (v, "deadline", false, UINT64_MAX, &s->deadline) < 0
      || get_u64 (v, "period", false, UINT64_MAX, &s->period) < 0)
    return -1;
  return 0;
}

static int
parse_io_priority (const struct jcur *v, void *out)
{
  struct spec_io_priority *io = out;
  if (get_choice (v, "class", true, ioprio_classes, "class", &io->klass) < 0
      || get_i32 (v, "priority", 0, 7, &io->priority) < 0)
    return -1;
  return 0;
}

static int
parse_cpu_affinity (const struct jcur *v, void *out)
{
  struct spec_process *p = out;
  if (get_str (v, "initial", false, &p->exec_cpu_affinity_initial) < 0
      || get_str (v, "final", false, &p->exec_cpu_affinity_final) < 0)
    return -1;
  return 0;
}

static int
parse_process (const struct jcur *v, void *out)
{
  struct spec_process *p = out;
  if (get_bool (v, "terminal", false, &p->terminal) < 0
      || get_section (v, "consoleSize", &p->has_console_size, parse_console_size, p) < 0
      || get_section (v, "user", NULL, parse_user, &p->user) < 0 || parse_args (v, p) < 0
      || get_strv (v, "env", NULL, SPEC_MAX_STRINGS, &p->env) < 0
      || get_abs_path (v, "cwd", true, &p->cwd) < 0
      || get_section (v, "capabilities", &p->has_capabilities, parse_caps, &p->capabilities) < 0
      || GET_ARRAY (v, "rlimits", p, rlimits, parse_rlimit, SPEC_MAX_ITEMS) < 0
      || get_bool (v, "noNewPrivileges", false, &p->no_new_privileges) < 0
      || get_str (v, "apparmorProfile", false, &p->apparmor_profile) < 0
      || opt_si64 (v, "oomScoreAdj", -1000, 1000, &p->oom_score_adj) < 0
      || get_section (v, "scheduler", &p->has_scheduler, parse_scheduler, &p->scheduler) < 0
      || get_str (v, "selinuxLabel", false, &p->selinux_label) < 0
      || get_section (v, "ioPriority", &p->has_io_priority, parse_io_priority, &p->io_priority) < 0
      || get_section (v, "execCPUAffinity", NULL, parse_cpu_affinity, p) < 0)
    return -1;
  return 0;
}

/* root, mounts, hooks */

static int
parse_root (const struct jcur *v, struct spec_root *r)
{
  struct jcur path = member (v, "path");

  if (get_str (v, "path", true, &r->path) < 0)
    return -1;
  if (r->path[0] == '\0')
    return fail (&path, "expected a non-empty string");
  return get_bool (v, "readonly", false, &r->readonly) < 0 ? -1 : 0;
}

static int
parse_id_mapping (const struct jcur *v, void *base, size_t i)
{
  struct spec_id_mapping *m = (struct spec_id_mapping *) base + i;
  if (get_u32 (v, "containerID", true, &m->container_id) < 0
      || get_u32 (v, "hostID", true, &m->host_id) < 0 || get_u32 (v, "size", true, &m->size) < 0)
    return -1;
  return 0;
}

static int
parse_mount (const struct jcur *v, void *base, size_t i)
{
  struct spec_mount *m = (struct spec_mount *) base + i;
  if (get_str (v, "destination", true, &m->destination) < 0
      || get_str (v, "type", false, &m->type) < 0 || get_str (v, "source", false, &m->source) < 0
      || get_strv (v, "options", NULL, SPEC_MAX_ITEMS, &m->options) < 0
      || GET_ARRAY (v, "uidMappings", m, uid_mappings, parse_id_mapping, SPEC_MAX_ID_MAPPINGS) < 0
      || GET_ARRAY (v, "gidMappings", m, gid_mappings, parse_id_mapping, SPEC_MAX_ID_MAPPINGS) < 0)
    return -1;
  return 0;
}

static int
parse_hook (const struct jcur *v, void *base, size_t i)
{
  struct spec_hook *h = (struct spec_hook *) base + i;

  if (get_abs_path (v, "path", true, &h->path) < 0
      || get_strv (v, "args", NULL, SPEC_MAX_STRINGS, &h->args) < 0
      || get_strv (v, "env", NULL, SPEC_MAX_STRINGS, &h->env) < 0
      || opt_any_i64 (v, "timeout", &h->timeout) < 0)
    return -1;
  if (h->timeout.set && h->timeout.v <= 0)
    {
      struct jcur t = member (v, "timeout");
      return fail (&t, "expected a positive integer");
    }
  return 0;
}

static int
parse_hooks (const struct jcur *v, void *out)
{
  struct spec_hook_list *hooks = out;

  for (int k = 0; k < SPEC_HOOK_N; k++)
    if (GET_LIST (v, spec_hook_names[k], AR_J_ARRAY, hooks[k].items, hooks[k].n, parse_hook,
                  SPEC_MAX_HOOKS)
        < 0)
      return -1;
  return 0;
}

/* linux: namespaces, devices, time offsets, personality, net devices */

static int
parse_namespace (const struct jcur *v, void *base, size_t i)
{
  struct spec_namespace *ns = (struct spec_namespace *) base + i;
  struct jcur type = member (v, "type");
  cleanup_free char *name = NULL;
  int kind;

  if (get_str (v, "type", true, &name) < 0)
    return -1;
  kind = ns_from_name (name);
  if (kind < 0)
    return fail (&type, "unknown namespace `%s`", name);
  for (size_t j = 0; j < i; j++)
    if (((struct spec_namespace *) base)[j].kind == (enum spec_ns_kind) kind)
      return fail (&type, "duplicate namespace `%s`", name);
  ns->kind = kind;
  if (get_str (v, "path", false, &ns->path) < 0)
    return -1;
  if (ns->path && ns->path[0] == '\0') /* runc: an empty path means "create one" */
    free (steal_ptr (&ns->path));
  if (ns->path && ns->path[0] != '/')
    {
      struct jcur path = member (v, "path");
      return fail (&path, "expected an absolute path");
    }
  return 0;
}

/* "type": a one-letter string from ALLOWED; when not REQUIRED, absent or "" keeps *OUT.  */
static int
get_dev_type (const struct jcur *obj, bool required, const char *allowed, char *out)
{
  struct jcur m = member (obj, "type");
  cleanup_free char *s = NULL;
  int r = get_str (obj, "type", required, &s);

  if (r <= 0 || (s[0] == '\0' && !required))
    return r;
  if (s[0] == '\0' || s[1] != '\0' || strchr (allowed, s[0]) == NULL)
    return fail (&m, "unknown device type `%s`", s);
  *out = s[0];
  return 1;
}

static int
parse_device (const struct jcur *v, void *base, size_t i)
{
  struct spec_device *d = (struct spec_device *) base + i;
  bool numbered;

  if (get_dev_type (v, true, "cbup", &d->type) < 0 || get_abs_path (v, "path", true, &d->path) < 0)
    return -1;
  numbered = d->type != 'p';
  if (get_i64 (v, "major", numbered, INT64_MIN, INT64_MAX, &d->major) < 0
      || get_i64 (v, "minor", numbered, INT64_MIN, INT64_MAX, &d->minor) < 0
      || opt_su64 (v, "fileMode", UINT32_MAX, &d->file_mode) < 0
      || opt_su64 (v, "uid", UINT32_MAX, &d->uid) < 0
      || opt_su64 (v, "gid", UINT32_MAX, &d->gid) < 0)
    return -1;
  return 0;
}

static int
parse_time_offset (const struct jcur *v, void *out)
{
  struct spec_time_offset *t = out;
  if (get_i64 (v, "secs", false, INT64_MIN, INT64_MAX, &t->secs) < 0
      || get_u32 (v, "nanosecs", false, &t->nanosecs) < 0)
    return -1;
  return 0;
}

static int
parse_time_offsets (const struct jcur *v, void *out)
{
  struct spec_time_offset *mono = &((struct spec_linux *) out)->time_monotonic;
  struct spec_time_offset *boot = &((struct spec_linux *) out)->time_boottime;

  if (get_section (v, "monotonic", &mono->set, parse_time_offset, mono) < 0
      || get_section (v, "boottime", &boot->set, parse_time_offset, boot) < 0)
    return -1;
  return 0;
}

static int
parse_personality (const struct jcur *v, void *out)
{
  struct spec_personality *p = out;
  if (get_choice (v, "domain", true, personality_domains, "domain", &p->domain) < 0
      || get_strv (v, "flags", NULL, SPEC_MAX_ITEMS, &p->flags) < 0)
    return -1;
  return 0;
}

static int
parse_net_device (const struct jcur *v, void *base, size_t i)
{
  struct spec_net_device *d = (struct spec_net_device *) base + i;
  d->host_name = xstrdup (v->key);
  return get_str (v, "name", false, &d->name) < 0 ? -1 : 0;
}

static int
parse_propagation (const struct jcur *v, struct spec_linux *l)
{
  char **prop = &l->rootfs_propagation;

  if (get_choice (v, "rootfsPropagation", false, propagations, "propagation", prop) < 0)
    return -1;
  if (*prop && (*prop)[0] == '\0') /* runc: "" is the default */
    free (steal_ptr (prop));
  return 0;
}

static int
has_object (const struct jcur *obj, const char *key, bool *has)
{
  struct jcur m;
  int r = open_kind (obj, key, false, AR_J_OBJECT, &m);
  *has = r > 0;
  return r;
}

/* linux.resources */

static int
parse_dev_cgroup (const struct jcur *v, void *base, size_t i)
{
  struct spec_device_cgroup *d = (struct spec_device_cgroup *) base + i;

  d->type = 'a';
  if (get_bool (v, "allow", true, &d->allow) < 0 || get_dev_type (v, false, "acb", &d->type) < 0
      || opt_any_i64 (v, "major", &d->major) < 0 || opt_any_i64 (v, "minor", &d->minor) < 0
      || get_str (v, "access", false, &d->access) < 0)
    return -1;
  if (d->access && d->access[strspn (d->access, "rwm")] != '\0')
    {
      struct jcur a = member (v, "access");
      return fail (&a, "expected a subset of \"rwm\"");
    }
  return 0;
}

static int
parse_memory (const struct jcur *v, void *out)
{
  struct spec_memory *m = out;
  if (opt_any_i64 (v, "limit", &m->limit) < 0 || opt_any_i64 (v, "reservation", &m->reservation) < 0
      || opt_any_i64 (v, "swap", &m->swap) < 0 || opt_any_i64 (v, "kernel", &m->kernel) < 0
      || opt_any_i64 (v, "kernelTCP", &m->kernel_tcp) < 0
      || opt_su64 (v, "swappiness", 100, &m->swappiness) < 0
      || opt_bool (v, "disableOOMKiller", &m->has_disable_oom_killer, &m->disable_oom_killer) < 0
      || opt_bool (v, "useHierarchy", &m->has_use_hierarchy, &m->use_hierarchy) < 0
      || get_bool (v, "checkBeforeUpdate", false, &m->check_before_update) < 0)
    return -1;
  return 0;
}

static int
parse_cpu (const struct jcur *v, void *out)
{
  struct spec_cpu *c = out;
  if (opt_su64 (v, "shares", UINT64_MAX, &c->shares) < 0 || opt_any_i64 (v, "quota", &c->quota) < 0
      || opt_su64 (v, "burst", UINT64_MAX, &c->burst) < 0
      || opt_su64 (v, "period", UINT64_MAX, &c->period) < 0
      || opt_any_i64 (v, "realtimeRuntime", &c->realtime_runtime) < 0
      || opt_su64 (v, "realtimePeriod", UINT64_MAX, &c->realtime_period) < 0
      || get_str (v, "cpus", false, &c->cpus) < 0 || get_str (v, "mems", false, &c->mems) < 0
      || opt_any_i64 (v, "idle", &c->idle) < 0)
    return -1;
  return 0;
}

static int
parse_pids (const struct jcur *v, void *out)
{
  return opt_any_i64 (v, "limit", out) < 0 ? -1 : 0;
}

static int
parse_weight_device (const struct jcur *v, void *base, size_t i)
{
  struct spec_weight_device *w = (struct spec_weight_device *) base + i;
  if (get_i64 (v, "major", true, INT64_MIN, INT64_MAX, &w->major) < 0
      || get_i64 (v, "minor", true, INT64_MIN, INT64_MAX, &w->minor) < 0
      || opt_su64 (v, "weight", UINT16_MAX, &w->weight) < 0
      || opt_su64 (v, "leafWeight", UINT16_MAX, &w->leaf_weight) < 0)
    return -1;
  return 0;
}

static int
parse_throttle_device (const struct jcur *v, void *base, size_t i)
{
  struct spec_throttle_device *t = (struct spec_throttle_device *) base + i;
  if (get_i64 (v, "major", true, INT64_MIN, INT64_MAX, &t->major) < 0
      || get_i64 (v, "minor", true, INT64_MIN, INT64_MAX, &t->minor) < 0
      || get_u64 (v, "rate", true, UINT64_MAX, &t->rate) < 0)
    return -1;
  return 0;
}

static int
parse_block_io (const struct jcur *v, void *out)
{
  struct spec_block_io *b = out;

  if (opt_su64 (v, "weight", UINT16_MAX, &b->weight) < 0
      || opt_su64 (v, "leafWeight", UINT16_MAX, &b->leaf_weight) < 0
      || GET_ARRAY (v, "weightDevice", b, weight_device, parse_weight_device, SPEC_MAX_ITEMS) < 0)
    return -1;
  for (int k = 0; k < 4; k++)
    if (GET_ARRAY (v, spec_throttle_names[k], b, throttle[k], parse_throttle_device, SPEC_MAX_ITEMS)
        < 0)
      return -1;
  return 0;
}

static int
parse_hugepage_limit (const struct jcur *v, void *base, size_t i)
{
  struct spec_hugepage_limit *h = (struct spec_hugepage_limit *) base + i;
  if (get_str (v, "pageSize", true, &h->page_size) < 0
      || get_u64 (v, "limit", true, UINT64_MAX, &h->limit) < 0)
    return -1;
  return 0;
}

static int
parse_net_priority (const struct jcur *v, void *base, size_t i)
{
  struct spec_net_priority *p = (struct spec_net_priority *) base + i;
  if (get_str (v, "name", true, &p->name) < 0 || get_u32 (v, "priority", true, &p->priority) < 0)
    return -1;
  return 0;
}

static int
parse_network (const struct jcur *v, void *out)
{
  struct spec_resources *r = out;
  if (opt_su64 (v, "classID", UINT32_MAX, &r->net_class_id) < 0
      || GET_ARRAY (v, "priorities", r, net_priorities, parse_net_priority, SPEC_MAX_ITEMS) < 0)
    return -1;
  return 0;
}

static int
parse_rdma (const struct jcur *v, void *base, size_t i)
{
  struct spec_rdma *r = (struct spec_rdma *) base + i;

  r->device = xstrdup (v->key);
  if (opt_su64 (v, "hcaHandles", UINT32_MAX, &r->hca_handles) < 0
      || opt_su64 (v, "hcaObjects", UINT32_MAX, &r->hca_objects) < 0)
    return -1;
  return 0;
}

static int
parse_resources (const struct jcur *v, void *out)
{
  struct spec_resources *r = out;
  if (GET_ARRAY (v, "devices", r, devices, parse_dev_cgroup, SPEC_MAX_ITEMS) < 0
      || get_section (v, "memory", &r->has_memory, parse_memory, &r->memory) < 0
      || get_section (v, "cpu", &r->has_cpu, parse_cpu, &r->cpu) < 0
      || get_section (v, "pids", NULL, parse_pids, &r->pids_limit) < 0
      || get_section (v, "blockIO", &r->has_block_io, parse_block_io, &r->block_io) < 0
      || GET_ARRAY (v, "hugepageLimits", r, hugepage_limits, parse_hugepage_limit, SPEC_MAX_ITEMS)
             < 0
      || get_section (v, "network", &r->has_network, parse_network, r) < 0
      || GET_OBJMAP (v, "rdma", r, rdma, parse_rdma, SPEC_MAX_ITEMS) < 0
      || get_map (v, "unified", SPEC_MAX_ITEMS, &r->unified) < 0)
    return -1;
  return 0;
}

/* linux.seccomp */

static int
parse_seccomp_arg (const struct jcur *v, void *base, size_t i)
{
  struct spec_seccomp_arg *a = (struct spec_seccomp_arg *) base + i;
  uint64_t index = 0, op = 0;

  if (get_u64 (v, "index", true, 5, &index) < 0
      || get_u64 (v, "value", true, UINT64_MAX, &a->value) < 0
      || get_u64 (v, "valueTwo", false, UINT64_MAX, &a->value_two) < 0
      || get_named (v, "op", true, spec_seccomp_operators, "operator", &op) < 0)
    return -1;
  a->index = (uint32_t) index;
  a->op = (int) op;
  return 0;
}

static int
parse_syscall (const struct jcur *v, void *base, size_t i)
{
  struct spec_seccomp_rule *rule = (struct spec_seccomp_rule *) base + i;
  struct jcur names = member (v, "names");
  uint64_t action = 0;
  int r = get_strv (v, "names", NULL, SPEC_MAX_SECCOMP_NAMES, &rule->names);

  if (r < 0)
    return -1;
  if (rule->names.n == 0)
    return fail (&names, r == 0 ? "is required" : "expected a non-empty array");
  if (get_named (v, "action", true, spec_seccomp_actions, "action", &action) < 0
      || opt_su64 (v, "errnoRet", UINT32_MAX, &rule->errno_ret) < 0
      || GET_ARRAY (v, "args", rule, args, parse_seccomp_arg, SPEC_MAX_SECCOMP_CONDITIONS) < 0)
    return -1;
  rule->action = (uint32_t) action;
  return 0;
}

/* libseccomp's time grows with the names and, fast, with the argument conditions, which it adds
   once per name (spec.h).  */
static int
check_seccomp_totals (const struct jcur *v, const struct spec_seccomp *sc)
{
  struct jcur syscalls = member (v, "syscalls");
  size_t names = 0, conditions = 0;

  for (size_t i = 0; i < sc->n_syscalls; i++)
    {
      names += sc->syscalls[i].names.n;
      conditions += sc->syscalls[i].names.n * sc->syscalls[i].n_args;
    }
  if (names > SPEC_MAX_SECCOMP_NAMES)
    return fail (&syscalls, "more than %d syscall names in all entries", SPEC_MAX_SECCOMP_NAMES);
  if (conditions > SPEC_MAX_SECCOMP_CONDITIONS)
    return fail (&syscalls, "more than %d argument conditions in all entries (one per name)",
                 SPEC_MAX_SECCOMP_CONDITIONS);
  return 0;
}

static int
parse_seccomp (const struct jcur *v, void *out)
{
  struct spec_seccomp *sc = out;
  uint64_t action = 0;

  if (get_named (v, "defaultAction", true, spec_seccomp_actions, "action", &action) < 0)
    return -1;
  sc->default_action = (uint32_t) action;
  if (opt_su64 (v, "defaultErrnoRet", UINT32_MAX, &sc->default_errno_ret) < 0
      || get_strv (v, "architectures", check_arch, SPEC_MAX_ITEMS, &sc->architectures) < 0
      || get_strv (v, "flags", check_seccomp_flag, SPEC_MAX_ITEMS, &sc->flags) < 0
      || get_str (v, "listenerPath", false, &sc->listener_path) < 0
      || get_str (v, "listenerMetadata", false, &sc->listener_metadata) < 0
      || GET_ARRAY (v, "syscalls", sc, syscalls, parse_syscall, SPEC_MAX_SECCOMP_RULES) < 0
      || check_seccomp_totals (v, sc) < 0)
    return -1;
  return 0;
}

static int
parse_linux (const struct jcur *v, void *out)
{
  struct spec_linux *l = out;
  if (GET_ARRAY (v, "namespaces", l, namespaces, parse_namespace, SPEC_MAX_ITEMS) < 0
      || GET_ARRAY (v, "uidMappings", l, uid_mappings, parse_id_mapping, SPEC_MAX_ID_MAPPINGS) < 0
      || GET_ARRAY (v, "gidMappings", l, gid_mappings, parse_id_mapping, SPEC_MAX_ID_MAPPINGS) < 0
      || get_section (v, "timeOffsets", NULL, parse_time_offsets, l) < 0
      || GET_ARRAY (v, "devices", l, devices, parse_device, SPEC_MAX_ITEMS) < 0
      || get_str (v, "cgroupsPath", false, &l->cgroups_path) < 0
      || get_section (v, "resources", &l->has_resources, parse_resources, &l->resources) < 0
      || get_map (v, "sysctl", SPEC_MAX_ITEMS, &l->sysctl) < 0
      || get_section (v, "seccomp", &l->has_seccomp, parse_seccomp, &l->seccomp) < 0
      || parse_propagation (v, l) < 0
      || get_strv (v, "maskedPaths", NULL, SPEC_MAX_ITEMS, &l->masked_paths) < 0
      || get_strv (v, "readonlyPaths", NULL, SPEC_MAX_ITEMS, &l->readonly_paths) < 0
      || get_str (v, "mountLabel", false, &l->mount_label) < 0
      || get_section (v, "personality", &l->has_personality, parse_personality, &l->personality) < 0
      || has_object (v, "intelRdt", &l->has_intel_rdt) < 0
      || GET_OBJMAP (v, "netDevices", l, net_devices, parse_net_device, SPEC_MAX_ITEMS) < 0)
    return -1;
  return 0;
}

/* Counted, and their bytes too: state.json keeps them (state.h).  */
static int
parse_annotations (const struct jcur *v, struct spec_map *out)
{
  struct jcur m = member (v, "annotations");
  size_t bytes = 0;

  if (get_map (v, "annotations", SPEC_MAX_ANNOTATIONS, out) < 0)
    return -1;
  for (size_t i = 0; i < out->n; i++)
    bytes += strlen (out->items[i].key) + strlen (out->items[i].value);
  if (bytes > SPEC_MAX_ANNOTATION_BYTES)
    return fail (&m, "more than %u bytes of keys and values", SPEC_MAX_ANNOTATION_BYTES);
  return 0;
}

static int
parse_spec (const struct jcur *v, void *out)
{
  struct spec *s = out;
  struct jcur root;

  if (get_str (v, "ociVersion", true, &s->oci_version) < 0
      || open_kind (v, "root", true, AR_J_OBJECT, &root) < 0 || parse_root (&root, &s->root) < 0
      || get_section (v, "process", &s->has_process, parse_process, &s->process) < 0
      || get_str (v, "hostname", false, &s->hostname) < 0
      || get_str (v, "domainname", false, &s->domainname) < 0
      || GET_ARRAY (v, "mounts", s, mounts, parse_mount, SPEC_MAX_ITEMS) < 0
      || get_section (v, "hooks", NULL, parse_hooks, s->hooks) < 0
      || parse_annotations (v, &s->annotations) < 0
      || get_section (v, "linux", &s->has_linux, parse_linux, &s->linux_) < 0)
    return -1;
  return 0;
}

/* A whole document: TEXT must hold one JSON object, parsed by FN into OUT.  */
static int
parse_text (const char *text, const char *what, section_fn fn, void *out, ar_error_t *err)
{
  cleanup_jnode struct ar_jnode *doc = NULL;
  struct pctx c = { .what = what, .err = err };
  struct jcur root = { .c = &c };

  /* The readers cap what they read; text from elsewhere (an edited config) is held to the same.  */
  if (strlen (text) > SPEC_MAX_SIZE)
    return fail (&root, "larger than %u bytes", SPEC_MAX_SIZE);
  if (ar_jparse (text, what, &doc, err) < 0)
    return -1;
  root.node = doc;
  if (type_of (&root) != AR_J_OBJECT)
    return fail (&root, "expected an object");
  return fn (&root, out);
}

int
spec_parse (const char *text, const char *what, struct spec **out, ar_error_t *err)
{
  cleanup_spec struct spec *s = xzalloc (sizeof *s);

  if (parse_text (text, what, parse_spec, s, err) < 0)
    return -1;
  *out = steal_ptr (&s);
  return 0;
}

int
spec_load_bundle (const char *bundle, struct spec **out, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/config.json", bundle);
  cleanup_free char *text = NULL;

  if (ar_read_file (path, SPEC_MAX_SIZE, &text, NULL, err) < 0)
    return -1;
  return spec_parse (text, "config.json", out, err);
}

int
spec_parse_process (const char *text, const char *what, struct spec_process **out, ar_error_t *err)
{
  cleanup_spec_process struct spec_process *p = xzalloc (sizeof *p);

  if (parse_text (text, what, parse_process, p, err) < 0)
    return -1;
  *out = steal_ptr (&p);
  return 0;
}

static void resources_clear (struct spec_resources *r);

int
spec_parse_resources (const char *text, const char *what, struct spec_resources **out,
                      ar_error_t *err)
{
  struct spec_resources *r = xzalloc (sizeof *r);

  if (parse_text (text, what, parse_resources, r, err) < 0)
    {
      spec_resources_free (r);
      return -1;
    }
  *out = r;
  return 0;
}

void
spec_resources_free (struct spec_resources *r)
{
  if (r == NULL)
    return;
  resources_clear (r);
  free (r);
}

/* Freeing.  Every parser fills a zeroed struct, so these work on half-parsed ones too.  */

typedef void (*clear_fn) (void *elem);

static void
free_items (void *items, size_t n, size_t size, clear_fn clear)
{
  for (size_t i = 0; items && i < n; i++)
    clear ((char *) items + i * size);
  free (items);
}
#define FREE_LIST(arr, n, clear) free_items ((arr), (n), sizeof *(arr), (clear))

static void
strv_clear (struct spec_strv *v)
{
  for (size_t i = 0; v->v && i < v->n; i++)
    free (v->v[i]);
  free (v->v);
}

void
spec_map_clear (struct spec_map *m)
{
  for (size_t i = 0; i < m->n; i++)
    {
      free (m->items[i].key);
      free (m->items[i].value);
    }
  free (m->items);
  m->items = NULL;
  m->n = 0;
}

static void
clear_rlimit (void *p)
{
  free (((struct spec_rlimit *) p)->type);
}

static void
process_clear (struct spec_process *p)
{
  struct spec_caps *c = &p->capabilities;

  free (p->user.additional_gids);
  free (p->user.username);
  strv_clear (&p->args);
  free (p->command_line);
  strv_clear (&p->env);
  free (p->cwd);
  strv_clear (&c->bounding);
  strv_clear (&c->effective);
  strv_clear (&c->inheritable);
  strv_clear (&c->permitted);
  strv_clear (&c->ambient);
  FREE_LIST (p->rlimits, p->n_rlimits, clear_rlimit);
  free (p->apparmor_profile);
  free (p->scheduler.policy);
  strv_clear (&p->scheduler.flags);
  free (p->selinux_label);
  free (p->io_priority.klass);
  free (p->exec_cpu_affinity_initial);
  free (p->exec_cpu_affinity_final);
}

static void
clear_mount (void *p)
{
  struct spec_mount *m = p;
  free (m->destination);
  free (m->type);
  free (m->source);
  strv_clear (&m->options);
  free (m->uid_mappings);
  free (m->gid_mappings);
}

static void
clear_hook (void *p)
{
  struct spec_hook *h = p;
  free (h->path);
  strv_clear (&h->args);
  strv_clear (&h->env);
}

static void
clear_namespace (void *p)
{
  free (((struct spec_namespace *) p)->path);
}

static void
clear_device (void *p)
{
  free (((struct spec_device *) p)->path);
}

static void
clear_dev_cgroup (void *p)
{
  free (((struct spec_device_cgroup *) p)->access);
}

static void
clear_hugepage (void *p)
{
  free (((struct spec_hugepage_limit *) p)->page_size);
}

static void
clear_net_priority (void *p)
{
  free (((struct spec_net_priority *) p)->name);
}

static void
clear_rdma (void *p)
{
  free (((struct spec_rdma *) p)->device);
}

static void
clear_syscall (void *p)
{
  struct spec_seccomp_rule *r = p;
  strv_clear (&r->names);
  free (r->args);
}

static void
clear_net_device (void *p)
{
  struct spec_net_device *d = p;
  free (d->host_name);
  free (d->name);
}

static void
resources_clear (struct spec_resources *r)
{
  FREE_LIST (r->devices, r->n_devices, clear_dev_cgroup);
  free (r->cpu.cpus);
  free (r->cpu.mems);
  free (r->block_io.weight_device);
  for (int k = 0; k < 4; k++)
    free (r->block_io.throttle[k]);
  FREE_LIST (r->hugepage_limits, r->n_hugepage_limits, clear_hugepage);
  FREE_LIST (r->net_priorities, r->n_net_priorities, clear_net_priority);
  FREE_LIST (r->rdma, r->n_rdma, clear_rdma);
  spec_map_clear (&r->unified);
}

static void
seccomp_clear (struct spec_seccomp *sc)
{
  strv_clear (&sc->architectures);
  strv_clear (&sc->flags);
  free (sc->listener_path);
  free (sc->listener_metadata);
  FREE_LIST (sc->syscalls, sc->n_syscalls, clear_syscall);
}

static void
linux_clear (struct spec_linux *l)
{
  FREE_LIST (l->namespaces, l->n_namespaces, clear_namespace);
  free (l->uid_mappings);
  free (l->gid_mappings);
  FREE_LIST (l->devices, l->n_devices, clear_device);
  free (l->cgroups_path);
  resources_clear (&l->resources);
  spec_map_clear (&l->sysctl);
  seccomp_clear (&l->seccomp);
  free (l->rootfs_propagation);
  strv_clear (&l->masked_paths);
  strv_clear (&l->readonly_paths);
  free (l->mount_label);
  free (l->personality.domain);
  strv_clear (&l->personality.flags);
  FREE_LIST (l->net_devices, l->n_net_devices, clear_net_device);
}

void
spec_free (struct spec *s)
{
  if (s == NULL)
    return;
  free (s->oci_version);
  process_clear (&s->process);
  free (s->root.path);
  free (s->hostname);
  free (s->domainname);
  FREE_LIST (s->mounts, s->n_mounts, clear_mount);
  for (int k = 0; k < SPEC_HOOK_N; k++)
    FREE_LIST (s->hooks[k].items, s->hooks[k].n, clear_hook);
  spec_map_clear (&s->annotations);
  linux_clear (&s->linux_);
  free (s);
}

void
spec_freep (void *p)
{
  spec_free (*(struct spec **) p);
}

void
spec_process_free (struct spec_process *p)
{
  if (p == NULL)
    return;
  process_clear (p);
  free (p);
}

void
spec_process_freep (void *p)
{
  spec_process_free (*(struct spec_process **) p);
}

bool
spec_id_host_mapped (uint32_t host, const struct spec_id_mapping *m, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (host >= m[i].host_id && host - m[i].host_id < m[i].size)
      return true;
  return false;
}

uint32_t
spec_id_root_host (const struct spec_id_mapping *m, size_t n, uint32_t none)
{
  for (size_t i = 0; i < n; i++)
    if (m[i].container_id == 0)
      none = m[i].host_id;
  return none;
}
