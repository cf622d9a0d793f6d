/* create, start, run, kill and delete: the container's life, as runc lives it.  create leaves
   the init blocked on the exec fifo in the state directory and exits, so the init is adopted by
   the caller's subreaper (containerd's shim, conmon) exactly as with runc; run becomes a
   subreaper itself to wait for it.  Every failure on the way undoes what was done: the init is
   killed and the state directory removed.  */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "cgroups/cgroup.h"
#include "init/landlock.h"
#include "runtime/container_internal.h"
#include "sandbox/ephemeral.h"
#include "init/hooks.h"
#include "log.h"
#include "init/namespaces.h"
#include "policy/policy.h"
#include "init/process.h"
#include "sandbox/profile.h"
#include "sandbox/sandbox.h"
#include "seccomp/bpf.h"
#include "seccomp/oci.h"
#include "spec/spec.h"
#include "state/journal.h"
#include "state/owners.h"
#include "state/state.h"
#include "supervisor/supervisor.h"
#include "supervisor/vfiles.h"
#include "runtime/console.h"
#include "runtime/wait.h"
#include "utils.h"

/* What create works from, gathered before it touches the machine.  */
struct create_ctx
{
  const struct ar_globals *g;
  const char *id;
  const struct ar_create_opts *o;
  const char *state_root; /* --root: where the compiled policy is kept */
  bool foreground;        /* run without --detach: a terminal is proxied, not sent */
  int console;            /* the pty master while we hold it, else -1 */
  char *bundle, *rootfs;
  char *config_text;
  struct spec *spec;
  struct ns_plan ns;
  struct state *st;
  struct operator_conf op; /* agentrt.conf */
  struct sandbox sb;
  struct seccomp_prog progs[FILTER__N];
  struct vfiles_limits *limits; /* with the supervisor */
  char *state_dir;              /* absolute ROOT/ID */
  pid_t sv_pid;                 /* the supervisor once started, else 0 */
  int vfiles_fd;                /* the virtual files' directory (make_vfiles), or -1 */
  bool systemd_cgroup;          /* --systemd-cgroup */
  struct cgroup cg;
  bool cg_made;
  struct ephemeral eph;          /* with --ephemeral: the overlay and the canaries' fanotify fd */
  struct ephemeral_cfg eph_cfg;  /* what it is made of */
  int journal_fd;                /* the state directory's journal, for appending */
  struct egress_netns egress_ns; /* where the broker connects from (egress.h) */
  struct sources_plan sources;   /* bind sources the runtime opens for the init */
  bool agent;                    /* under the agent profile */
  int rootfd;                    /* --root */
};

static void
create_ctx_release (struct create_ctx *c)
{
  free (c->bundle);
  free (c->rootfs);
  free (c->config_text);
  spec_free (c->spec);
  namespaces_plan_release (&c->ns);
  state_free (c->st);
  ar_closep (&c->console);
  sandbox_release (&c->sb);
  operator_release (&c->op);
  for (int i = 0; i < FILTER__N; i++)
    seccomp_prog_release (&c->progs[i]);
  free (c->limits);
  ar_closep (&c->vfiles_fd);
  free (c->state_dir);
  cgroup_release (&c->cg);
  ephemeral_release (&c->eph);
  ar_closep (&c->journal_fd);
  ar_closep (&c->egress_ns.fd);
  sources_plan_release (&c->sources);
  ar_strv_free (c->eph_cfg.layers);
}

static void
warn_release (ar_error_t *err)
{
  cleanup_free char *text = ar_error_text (*err);
  ar_warn ("%s", text);
  ar_error_release (err);
}

static int
resolve_bundle (const char *bundle, char **out, ar_error_t *err)
{
  char *abs = realpath (bundle ? bundle : ".", NULL);
  if (abs == NULL)
    return ar_make_error (err, errno, "bundle `%s`", bundle ? bundle : ".");
  *out = abs;
  return 0;
}

static int
check_rootfs (struct create_ctx *c, ar_error_t *err)
{
  const char *p = c->spec->root.path;
  cleanup_free char *path = p[0] == '/' ? xstrdup (p) : xasprintf ("%s/%s", c->bundle, p);
  struct stat st;

  if (stat (path, &st) < 0)
    return ar_make_error (err, errno, "rootfs `%s`", path);
  if (!S_ISDIR (st.st_mode))
    return ar_make_error (err, ENOTDIR, "rootfs `%s`", path);
  c->rootfs = realpath (path, NULL);
  if (c->rootfs == NULL)
    return ar_make_error (err, errno, "rootfs `%s`", path);
  return 0;
}

static int
check_process (const struct create_ctx *c, ar_error_t *err)
{
  const struct spec *s = c->spec;

  if (!s->has_process)
    return ar_make_error (err, 0, "config.json: process: is required to create a container");
  /* runc's rule: a terminal must go somewhere once the runtime has exited.  */
  if (s->process.terminal && c->o->console_socket == NULL && !c->foreground)
    return ar_make_error (err, 0,
                          "config.json: process.terminal needs --console-socket when the "
                          "container is not run in the foreground");
  if (!s->process.terminal && c->o->console_socket)
    return ar_make_error (err, 0, "--console-socket needs process.terminal in config.json");
  if (c->o->preserve_fds < 0)
    return ar_make_error (err, 0, "--preserve-fds: must not be negative");
  return 0;
}

static int
load_config (struct create_ctx *c, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/config.json", c->bundle);

  if (ar_read_file (path, SPEC_MAX_SIZE, &c->config_text, NULL, err) < 0)
    return -1;
  return spec_parse (c->config_text, "config.json", &c->spec, err);
}

/* A control the config asks for and this build cannot apply fails create: a sandbox must never
   look confined when it is not.  */
static int
check_unsupported (const struct spec *s, ar_error_t *err)
{
  const char *what = NULL;

  if (s->process.has_scheduler)
    what = "process.scheduler";
  else if (s->process.has_io_priority)
    what = "process.ioPriority";
  else if (s->process.exec_cpu_affinity_initial || s->process.exec_cpu_affinity_final)
    what = "process.execCPUAffinity";
  else if (s->linux_.n_net_devices > 0)
    what = "linux.netDevices";
  if (what)
    return ar_make_error (err, ENOSYS, "config.json: %s: not supported yet", what);
  return 0;
}

/* The runtime itself enters the container's v1 memory cgroup to give birth to the init
   (cgroup_run_inside) and stays there until the init has set up: a limit it cannot live under
   OOM-kills `agentrt create` or `run`, leaving the container half made (256k did here, 1m did
   not).  The floor is --memory's.  0 is no limit, as runc reads it (resources.c).  */
#define MEMORY_LIMIT_MIN (4LL << 20)

static int
check_memory_limit (const struct spec *s, ar_error_t *err)
{
  const struct spec_i64 *l = &s->linux_.resources.memory.limit;

  if (l->set && l->v > 0 && l->v < MEMORY_LIMIT_MIN)
    return ar_make_error (err, 0,
                          "config.json: linux.resources.memory.limit: %lld bytes is below 4m, "
                          "the least a container can be started in (0 or -1: no limit)",
                          (long long) l->v);
  return 0;
}

/* linux.seccomp.  A notify action needs the one listener a filter chain may have, which the
   supervisor holds on the seccomp platform.  On the ptrace platform the listener is free, but
   the kernel takes a notify over a trace when two filters answer one call: a rule notifying a
   call the policy denies would hand it to that listener, which could let it run.  */
static int
prepare_oci_filter (struct create_ctx *c, ar_error_t *err)
{
  const struct spec_seccomp *sc = &c->spec->linux_.seccomp;

  if (!c->spec->linux_.has_seccomp)
    return 0;
  if (seccomp_oci_compile (sc, &c->progs[FILTER_OCI], err) < 0)
    return -1;
  if (!c->progs[FILTER_OCI].notify)
    return 0;
  if (sc->listener_path == NULL || sc->listener_path[0] == '\0')
    return ar_make_error (err, EINVAL,
                          "config.json: linux.seccomp: SCMP_ACT_NOTIFY needs listenerPath");
  if (c->sb.platform == PLATFORM_SECCOMP)
    return ar_make_error (err, EBUSY,
                          "config.json: linux.seccomp: SCMP_ACT_NOTIFY needs the seccomp listener, "
                          "which agentrt's supervisor holds: use --platform none");
  if (c->sb.platform == PLATFORM_PTRACE)
    return ar_make_error (err, EINVAL,
                          "config.json: linux.seccomp: SCMP_ACT_NOTIFY would take calls from "
                          "agentrt's policy (a notify outranks its trace stops): use --platform "
                          "none");
  return 0;
}

/* agentrt's policy, compiled once here: the init (and every exec) only installs it.  */
static int
prepare_policy (struct create_ctx *c, ar_error_t *err)
{
  cleanup_close int rootfd = -1;
  struct policy p;
  int r;

  if (prepare_oci_filter (c, err) < 0)
    return -1;
  if (c->sb.platform == PLATFORM_NONE)
    return 0;
  /* Joined (a pod's), a pid namespace is not the container's own: others' processes are in it.  */
  sandbox_resolve_ptrace (&c->sb, c->ns.new_ns[SPEC_NS_PID], sandbox_host_ptrace_cap (c->spec));
  if (policy_init (&p, policy_native_table (), &c->sb.popts, err) < 0)
    return -1;
  /* The root may not exist before the first container: then compiled, and kept next time.  */
  rootfd = open (c->state_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  r = policy_compile_cached (&p, rootfd, &c->progs[FILTER_POLICY], err);
  policy_release (&p);
  if (r < 0)
    return -1;
  if (c->sb.platform == PLATFORM_PTRACE && policy_to_trace (&c->progs[FILTER_POLICY], err) < 0)
    return -1;
  return 0;
}

/* What the supervisor's virtual files and emulations show (vfiles.h), from config.json; the
   time namespace's offsets are taken from its boot, so this comes before it is planned.  */
static int
prepare_limits (struct create_ctx *c, ar_error_t *err)
{
  if (c->sb.platform == PLATFORM_NONE)
    return 0;
  c->limits = xzalloc (sizeof *c->limits);
  if (vfiles_limits_from_spec (c->spec, c->limits, err) < 0)
    return -1;
  snprintf (c->limits->release, sizeof c->limits->release, "%s", c->sb.uname_release);
  return 0;
}

/* -t, as timens_offsets wants it: whole seconds and 0 <= nanoseconds < 1e9.  */
static struct spec_time_offset
minus (const struct timespec *t)
{
  struct spec_time_offset o = { true, -(int64_t) t->tv_sec, 0 };

  if (t->tv_nsec > 0)
    {
      o.secs--;
      o.nanosecs = (uint32_t) (1000000000L - t->tv_nsec);
    }
  return o;
}

/* A supervised container gets a time namespace of its own (unless its config names one: its
   own offsets, or a path to join, such as /proc/self/ns/time to keep the host's clocks), whose
   CLOCK_BOOTTIME and CLOCK_MONOTONIC read 0 at create.  Its uptime, its clocks and the start
   times in /proc/PID/stat (which the kernel shifts by the offset) then all count from its own
   start, as on a machine just booted, and no longer tell the host's uptime.  Only with a pid
   namespace of its own: in the host's or a pod's, it would see processes started before its
   zero, whose start times the kernel shifts below it.  runc and crun make none unasked, and
   neither does --platform none.  The clocks are read here, before the init exists, so that the
   kernel (which refuses an offset that makes a clock negative) takes them later.  */
static int
plan_time_namespace (struct create_ctx *c, ar_error_t *err)
{
  struct spec_linux *l = &c->spec->linux_;
  struct timespec mono;
  bool own_pid = false;

  /* Offsets without a time namespace: namespaces_plan refuses them, as runc does.  */
  if (c->limits == NULL || l->time_boottime.set || l->time_monotonic.set
      || access ("/proc/self/ns/time", F_OK) < 0)
    return 0;
  for (size_t i = 0; i < l->n_namespaces; i++)
    {
      if (l->namespaces[i].kind == SPEC_NS_TIME)
        return 0;
      own_pid = own_pid || (l->namespaces[i].kind == SPEC_NS_PID && l->namespaces[i].path == NULL);
    }
  if (!own_pid)
    return 0;
  if (clock_gettime (CLOCK_MONOTONIC, &mono) < 0)
    return ar_make_error (err, errno, "clock_gettime CLOCK_MONOTONIC");
  l->namespaces = xrealloc (l->namespaces, (l->n_namespaces + 1) * sizeof *l->namespaces);
  l->namespaces[l->n_namespaces++] = (struct spec_namespace){ .kind = SPEC_NS_TIME };
  l->time_boottime = minus (&c->limits->boot);
  l->time_monotonic = minus (&mono);
  return 0;
}

/* An allowlist needs the broker (the supervisor), a loopback-only network namespace, and its
   names resolved where the broker connects from.  */
static int
prepare_egress (struct create_ctx *c, ar_error_t *err)
{
  if (c->sb.net == NULL)
    return 0;
  if (c->sb.platform == PLATFORM_NONE)
    return ar_make_error (err, EINVAL, "%s: needs the supervisor's broker, not --platform none",
                          c->sb.egress_from);
  return sandbox_prepare_egress (&c->sb, c->spec, c->bundle, &c->op, &c->egress_ns, err);
}

/* Everything create checks before it touches the machine.  */
/* The shorthands and the agent profile rewrite config.json before anything reads it: the
   edited text is the one parsed, checked and kept in the state directory.  */
static int
apply_edits (struct create_ctx *c, const struct sandbox_flags *f, ar_error_t *err)
{
  struct profile_edits pe;
  char *text = NULL;

  if (sandbox_edits (&c->spec->annotations, f, &pe, err) < 0)
    return -1;
  if (!profile_edits_any (&pe))
    return 0;
  if (profile_apply (c->config_text, &pe, &text, err) < 0)
    return -1;
  free (c->config_text);
  c->config_text = text;
  spec_free (c->spec);
  c->spec = NULL;
  c->agent = pe.agent;
  if (spec_parse (c->config_text, "config.json", &c->spec, err) < 0)
    return -1;
  /* The profile keeps the config's own user namespace and mappings (a pod's): not when they
     would give the workload host ids that are not the profile's to give, such as host root.  */
  if (!pe.agent)
    return 0;
  return profile_check_ids (c->spec, err) < 0
             ? -1
             : profile_check_hooks (c->spec, c->op.agent_hooks, err);
}

/* --disk caps the config's writable tmpfs mounts that have no size of their own too: a tmpfs
   is memory, and the cap is on everything the container may write.  */
static void
cap_tmpfs_mounts (struct spec *s, unsigned long long bytes)
{
  for (size_t i = 0; bytes && i < s->n_mounts; i++)
    {
      struct spec_mount *m = &s->mounts[i];
      bool skip = m->type == NULL || strcmp (m->type, "tmpfs") != 0;
      bool inodes = false;
      for (size_t k = 0; !skip && k < m->options.n; k++)
        {
          skip
              = strcmp (m->options.v[k], "ro") == 0 || ar_str_has_prefix (m->options.v[k], "size=");
          inodes = inodes || ar_str_has_prefix (m->options.v[k], "nr_inodes=");
        }
      if (skip)
        continue;
      m->options.v = xrealloc (m->options.v, (m->options.n + 3) * sizeof (char *));
      m->options.v[m->options.n++] = xasprintf ("size=%llu", bytes);
      /* Inodes hold kernel memory that size does not count (ephemeral.h).  */
      if (!inodes)
        m->options.v[m->options.n++] = xasprintf ("nr_inodes=%llu", ephemeral_nr_inodes (bytes));
      m->options.v[m->options.n] = NULL;
    }
}

/* A container in the runtime's pid namespace sees the supervisor's processes, which run as
   host root with the container's own uid where it has no user namespace, and may SIGSTOP or
   SIGKILL them: a stop holds the deadline off until the next command looks, and the death of
   both leaves only the init to the kill switch.  The operator may allow it (agentrt.conf).  */
static int
check_supervisor_pidns (const struct create_ctx *c, ar_error_t *err)
{
  const char *what = c->sb.platform != PLATFORM_NONE ? "its supervisor" : "its deadline's watchdog";
  int join = c->ns.join_fd[SPEC_NS_PID];

  if ((c->sb.platform == PLATFORM_NONE && c->sb.timeout_ms <= 0) || c->ns.new_ns[SPEC_NS_PID]
      || c->op.supervised_without_pidns || (join >= 0 && !landlock_pidns_sees_runtime (join)))
    return 0;
  return ar_make_error (err, 0,
                        "linux.namespaces: no pid namespace of the container's own, where it "
                        "could stop or kill %s: add one, or allow it in agentrt.conf "
                        "(supervised_without_pidns = allow)",
                        what);
}

static int
prepare_create (struct create_ctx *c, ar_error_t *err)
{
  const struct ar_create_opts *o = c->o;
  struct sandbox_flags f = { .op = &c->op,
                             .id = c->id,
                             .platform = o->platform,
                             .audit_log = o->audit_log,
                             .policy = o->policy,
                             .audit_budget = o->audit_budget,
                             .net_allow = o->net_allow,
                             .timeout = o->timeout,
                             .disk = o->disk,
                             .canary = o->canary,
                             .memory = o->memory,
                             .cpus = o->cpus,
                             .pids = o->pids,
                             .ephemeral = o->ephemeral,
                             .agent = o->agent };

  /* The allowlist may add a network namespace: before namespaces_plan.  */
  if (state_check_id (c->id, err) < 0 || container_operator_load (c->g, &c->op, err) < 0
      || resolve_bundle (c->o->bundle, &c->bundle, err) < 0 || load_config (c, err) < 0
      || apply_edits (c, &f, err) < 0 || check_rootfs (c, err) < 0 || check_process (c, err) < 0
      || owners_check_spec (c->spec, err) < 0 || check_unsupported (c->spec, err) < 0
      || check_memory_limit (c->spec, err) < 0
      || sandbox_resolve (&c->spec->annotations, &f, &c->sb, err) < 0 || prepare_egress (c, err) < 0
      || prepare_limits (c, err) < 0 || plan_time_namespace (c, err) < 0
      || cgroup_resolve (c->spec, c->id, c->systemd_cgroup, &c->cg, err) < 0
      || namespaces_plan (c->spec, &c->ns, err) < 0 || check_supervisor_pidns (c, err) < 0
      || prepare_policy (c, err) < 0
      || sources_plan (c->spec, &c->ns, c->bundle, &c->sources, err) < 0)
    return -1;
  /* systemd is asked now, before anything is made: without it create fails here, clean.  */
  if (c->cg.unit
      && (sandbox_check_systemd_properties (&c->spec->annotations, &c->op, err) < 0
          || cgroup_systemd_open (&c->cg, &c->spec->annotations, err) < 0))
    return -1;
  /* The operator's directory, kept between containers: made once, never removed.  */
  if (o->audit_log == NULL && operator_make_audit_dir (&c->op, err) < 0)
    return -1;
  /* The overlay is attached inside the init's mount namespace, which namespaces_plan has
     made sure of.  */
  if (c->sb.ephemeral)
    cap_tmpfs_mounts (c->spec, c->sb.disk_bytes);
  return 0;
}

static char *
owner_name (void)
{
  struct passwd pw, *res = NULL;
  char buf[1024];

  if (getpwuid_r (geteuid (), &pw, buf, sizeof buf, &res) == 0 && res)
    return xstrdup (pw.pw_name);
  return xasprintf ("%d", (int) geteuid ());
}

static struct state *
new_state (const struct create_ctx *c)
{
  struct state *s = xzalloc (sizeof *s);
  struct timespec now;
  const struct spec_map *a = &c->spec->annotations;

  clock_gettime (CLOCK_REALTIME, &now);
  s->id = xstrdup (c->id);
  s->status = STATE_CREATING;
  s->bundle = xstrdup (c->bundle);
  s->rootfs = xstrdup (c->rootfs);
  s->created = ar_time_rfc3339 (&now);
  s->owner = owner_name ();
  s->own_pidns = c->ns.new_ns[SPEC_NS_PID];
  s->platform = xstrdup (sandbox_platform_name (c->sb.platform));
  s->policy = xstrdup (c->sb.popts.strict ? "strict" : "default");
  s->annotations.items = xzalloc ((a->n + 1) * sizeof *a->items);
  for (size_t i = 0; i < a->n; i++)
    {
      s->annotations.items[i].key = xstrdup (a->items[i].key);
      s->annotations.items[i].value = xstrdup (a->items[i].value);
    }
  s->annotations.n = a->n;
  /* From the first save on: the claim of another create reads it (claim.c).  */
  s->audit_log = c->sb.audit_path ? xstrdup (c->sb.audit_path) : NULL;
  return s;
}

/* runc passes systemd socket activation on: LISTEN_FDS fds after stdio, and LISTEN_PID=1.  */
static int
listen_fds (void)
{
  long long n = 0;
  const char *v = getenv ("LISTEN_FDS");
  return v && ar_parse_int64 (v, 1, 4096, &n) ? (int) n : 0;
}

static char **
workload_env (const struct spec_process *p, int n_listen)
{
  size_t n = p->env.n;
  char **env = xzalloc ((n + 3) * sizeof *env);

  for (size_t i = 0; i < n; i++)
    env[i] = xstrdup (p->env.v[i]);
  if (n_listen > 0)
    {
      env[n++] = xasprintf ("LISTEN_FDS=%d", n_listen);
      env[n++] = xstrdup ("LISTEN_PID=1");
    }
  return env;
}

static char *
state_json_with (struct state *s, pid_t pid, enum state_status status)
{
  enum state_status saved = s->status;
  pid_t saved_pid = s->pid;
  char *json;

  s->status = status;
  s->pid = pid;
  json = state_to_oci_json (s, NULL);
  s->status = saved;
  s->pid = saved_pid;
  return json;
}

/* process_runtime_hooks_fn: prestart and createRuntime run here, in the runtime's namespaces.
   The init has joined or made every namespace by now, and runs nothing of the workload's
   before this returns: under the agent profile, the user namespace it is in is checked here,
   by the kernel's own maps, since a joined one (linux.namespaces' path) has none in
   config.json that bind it.  */
static int
runtime_hooks (pid_t init_pid, void *data, char **creating, char **created, ar_error_t *err)
{
  struct create_ctx *c = data;
  const struct spec_hook_list *h = c->spec->hooks;

  if (c->agent && profile_check_userns (init_pid, err) < 0)
    return -1;

  *creating = state_json_with (c->st, init_pid, STATE_CREATING);
  *created = state_json_with (c->st, init_pid, STATE_CREATED);
  if (hooks_run (&h[SPEC_HOOK_PRESTART], "prestart", *creating, err) < 0
      || hooks_run (&h[SPEC_HOOK_CREATE_RUNTIME], "createRuntime", *creating, err) < 0)
    return -1;
  return 0;
}

int
container_write_pid_file (const char *path, pid_t pid, ar_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_free char *text = xasprintf ("%d", (int) pid);
  cleanup_close int dirfd = -1;
  const char *slash = strrchr (path, '/');

  dir = slash ? xstrndup (path, slash == path ? 1 : (size_t) (slash - path)) : xstrdup (".");
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return ar_make_error (err, errno, "pid file directory `%s`", dir);
  if (ar_replace_file (dirfd, slash ? slash + 1 : path, text, strlen (text), 0644, err) < 0)
    return ar_error_wrap (err, "write pid file `%s`", path);
  return 0;
}

/* Each virtual file as a detached read-only bind mount (open_tree with OPEN_TREE_CLONE, as
   runc 1.2 passes bind sources): the init attaches it with move_mount, whatever user
   namespace it is in by then and although it cannot reach the state directory itself.  */
static int
open_vfile (int dirfd, const char *name, ar_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                                         | MOUNT_ATTR_NOEXEC };
  int fd = (int) syscall (SYS_open_tree, dirfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

  if (fd < 0)
    return ar_make_error (err, errno, "open_tree `%s`", name);
  if (syscall (SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0)
    {
      int e = errno;
      close (fd);
      return ar_make_error (err, e, "make the bind of `%s` read-only", name);
    }
  return fd;
}

static int
open_vfiles (int dirfd, int fds[VF__N], ar_error_t *err)
{
  for (int i = 0; i < VF__N; i++)
    {
      fds[i] = open_vfile (dirfd, vfile_name ((enum vfile) i), err);
      if (fds[i] < 0)
        {
          while (i-- > 0)
            close (fds[i]);
          return -1;
        }
    }
  return 0;
}

/* A tmpfs mounted nowhere (fsmount): its root, or -1 with errno.  16 MiB at most, though the
   files take a few KiB: /proc/cpuinfo and /proc/stat grow with the CPUs shown (~1.5 KiB each
   for cpuinfo), and a host with thousands must still fit.  */
static int
detached_tmpfs (void)
{
  cleanup_close int fs = (int) syscall (SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);

  if (fs < 0 || syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "16m", 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return -1;
  return (int) syscall (SYS_fsmount, fs, FSMOUNT_CLOEXEC,
                        MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
}

/* The supervisor's virtual files, and a detached read-only bind mount of each for the init;
   c->vfiles_fd gets their directory, which the supervisor keeps current.  They are written in
   a tmpfs of their own that is mounted nowhere: on a disk-backed --root, creating the seven
   files took 0.6-5 ms of each create here (ext4), removing them more at delete, and the
   supervisor's rewrites each second touched the disk; the tmpfs goes when its last bind mount
   and fd do.  A kernel that will not clone a file of a mount that is not attached (EINVAL:
   older kernels refuse open_tree on a detached mount) gets them in the state directory, as
   before.  */
static int
make_vfiles (struct create_ctx *c, int fds[VF__N], ar_error_t *err)
{
  cleanup_free char *dir = NULL;
  int tmpfs = detached_tmpfs ();
  ar_error_t why = NULL;

  if (tmpfs >= 0)
    {
      c->vfiles_fd = tmpfs;
      if (vfiles_write_at (tmpfs, c->limits, err) < 0)
        return -1;
      if (open_vfiles (tmpfs, fds, &why) == 0)
        return 0;
      ar_debug ("virtual files: not in a detached tmpfs: %s", why->msg);
      ar_error_release (&why);
      ar_closep (&c->vfiles_fd);
    }
  dir = xasprintf ("%s/%s", c->state_dir, SUPERVISOR_VFILES_DIR);
  if (vfiles_write_all (dir, c->limits, err) < 0)
    return -1;
  c->vfiles_fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (c->vfiles_fd < 0)
    return ar_make_error (err, errno, "open `%s`", dir);
  return open_vfiles (c->vfiles_fd, fds, err);
}

/* With an allowlist: the container's /etc/hosts and resolv.conf, in the state directory (exec
   knows the container has an allowlist by the latter), and the denials file the supervisor
   keeps, beside its virtual files; a detached read-only bind mount of each for the init.  */
static int
open_egress_files (struct create_ctx *c, int dirfd, int fds[EGRESS_FILE__N], ar_error_t *err)
{
  static const char header[] = "# no egress denied yet\n";
  cleanup_close int fd = -1;

  fds[EGRESS_FILE_HOSTS]
      = egress_open_file (dirfd, c->state_dir, EGRESS_HOSTS_FILE, egress_hosts_text (), err);
  if (fds[EGRESS_FILE_HOSTS] < 0)
    return -1;
  fds[EGRESS_FILE_RESOLV]
      = egress_open_file (dirfd, c->state_dir, EGRESS_RESOLV_FILE, c->sb.resolv_conf, err);
  if (fds[EGRESS_FILE_RESOLV] < 0)
    return -1;
  fd = openat (c->vfiles_fd, EGRESS_DENIALS_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write (fd, header, sizeof header - 1) != (ssize_t) (sizeof header - 1))
    return ar_make_error (err, errno, "write the denials file");
  fds[EGRESS_FILE_DENIALS] = open_vfile (c->vfiles_fd, EGRESS_DENIALS_FILE, err);
  return fds[EGRESS_FILE_DENIALS] < 0 ? -1 : 0;
}

/* The host ids of the container's root: planted files belong to it.  */
static void
container_root_ids (const struct spec_linux *l, uid_t *uid, gid_t *gid)
{
  *uid = spec_id_root_host (l->uid_mappings, l->n_uid_mappings, 0);
  *gid = spec_id_root_host (l->gid_mappings, l->n_gid_mappings, 0);
}

/* The ephemeral rootfs.  Under a new user namespace the container's root is to own the image's
   root-owned files, through an idmapped lower layer (ephemeral.h): the overlay is then made once
   the init's user namespace has its maps (make_idmapped_overlay), else here.  */
static int
make_ephemeral (struct create_ctx *c, ar_error_t *err)
{
  struct ephemeral_cfg *ec = &c->eph_cfg;
  const char *why = NULL;

  *ec = (struct ephemeral_cfg){ .rootfs = c->rootfs,
                                .scratch = c->state_dir,
                                .disk_bytes = c->sb.disk_bytes,
                                .canaries = c->sb.canaries };
  if (c->ns.new_ns[SPEC_NS_USER])
    {
      container_root_ids (&c->spec->linux_, &ec->root_uid, &ec->root_gid);
      if (ephemeral_decide (c->rootfs, &c->spec->linux_, &ec->layers, &why))
        ec->idmap = &c->spec->linux_;
      else if (why)
        ar_debug ("ephemeral rootfs: not idmapped: %s", why);
    }
  return ephemeral_make (ec, &c->eph, err);
}

_Static_assert(EPHEMERAL__N == PROCESS_OVERLAY_FDS, "the init attaches every ephemeral mount");

/* process_init_cfg.make_overlay: the idmapped lower layer takes the init's user namespace.  */
static int
make_idmapped_overlay (pid_t init, void *data, int fds[PROCESS_OVERLAY_FDS], ar_error_t *err)
{
  struct create_ctx *c = data;
  cleanup_free char *path = xasprintf ("/proc/%d/ns/user", (int) init);
  cleanup_close int userns = open (path, O_RDONLY | O_CLOEXEC);
  const char *fallback = NULL;

  if (userns < 0)
    return ar_make_error (err, errno, "ephemeral rootfs: open `%s`", path);
  if (ephemeral_make_overlay (&c->eph, &c->eph_cfg, userns, &fallback, err) < 0)
    return -1;
  if (fallback)
    ar_warn ("ephemeral rootfs: not idmapped: %s", fallback);
  memcpy (fds, c->eph.fds, sizeof c->eph.fds);
  return 0;
}

/* The systemd driver: the init, waiting, into its unit, with the resources.  */
static int
place_fn (pid_t pid, void *data, ar_error_t *err)
{
  struct create_ctx *c = data;
  const struct spec_linux *l = &c->spec->linux_;

  return cgroup_systemd_place (&c->cg, pid, c->id, &l->resources, l->devices, l->n_devices, err);
}

/* The second wall (landlock.h), for a supervised container: scopes where it shares the
   runtime's pid or network namespace; under the agent profile, no TCP connect of its own where
   the broker makes them; the ptrace wall where it may hold CAP_SYS_PTRACE in the host's user
   namespace.  Only there: a domain also keeps ptrace and /proc/PID/fd between an exec'd
   process and the init's (sibling domains), which a debugging session in a container with an
   allowlist outside the profile should not lose.  */
static int
plan_landlock (const struct create_ctx *c, struct landlock_ruleset *out, ar_error_t *err)
{
  int pid_join = c->ns.join_fd[SPEC_NS_PID], net_join = c->ns.join_fd[SPEC_NS_NETWORK];
  bool on = c->sb.platform != PLATFORM_NONE;
  struct landlock_plan plan = {
    .scope_signal
    = on && !c->ns.new_ns[SPEC_NS_PID] && (pid_join < 0 || landlock_pidns_sees_runtime (pid_join)),
    .scope_abstract = on && !c->ns.new_ns[SPEC_NS_NETWORK]
                      && (net_join < 0 || landlock_netns_is_runtimes (net_join)),
    .deny_connect = on && c->agent && c->sb.net != NULL,
    .ptrace_wall = on && sandbox_host_ptrace_cap (c->spec),
  };

  return landlock_prepare (&plan, out, err);
}

static int
spawn (struct create_ctx *c, int dirfd, int cgroup_fd, struct process_result *res, ar_error_t *err)
{
  cleanup_close int fifo = -1;
  cleanup_strv char **env = NULL;
  int vfile_fds[VF__N];
  int egress_fds[EGRESS_FILE__N] = { -1, -1, -1 };
  int n_listen = listen_fds ();
  int ret;
  struct process_init_cfg cfg = { .spec = c->spec,
                                  .bundle = c->bundle,
                                  .rootfs = c->rootfs,
                                  .ns = &c->ns,
                                  .no_pivot = c->o->no_pivot,
                                  .no_new_keyring = c->o->no_new_keyring,
                                  .cgroup_fd = cgroup_fd,
                                  .sources = &c->sources };

  if (c->cg.unit)
    {
      cfg.place = place_fn;
      cfg.place_data = c;
    }

  for (int i = 0; i < FILTER__N; i++)
    cfg.filters[i] = c->progs[i].insns ? &c->progs[i] : NULL;
  if (plan_landlock (c, &cfg.landlock, err) < 0)
    return -1;
  if (c->sb.ephemeral && make_ephemeral (c, err) < 0)
    return -1;
  if (c->sb.ephemeral && c->eph_cfg.idmap)
    {
      /* All of it comes with the maps.  */
      for (int i = 0; i < PROCESS_OVERLAY_FDS; i++)
        cfg.overlay_fds[i] = -1;
      cfg.make_overlay = make_idmapped_overlay;
      cfg.make_overlay_data = c;
    }
  else
    memcpy (cfg.overlay_fds, c->eph.fds, sizeof cfg.overlay_fds);
  if (mkfifoat (dirfd, EXEC_FIFO, 0600) < 0)
    return ar_make_error (err, errno, "create the exec fifo");
  /* O_RDWR never blocks on a fifo; the init then blocks in read until start writes.  */
  fifo = openat (dirfd, EXEC_FIFO, O_RDWR | O_CLOEXEC);
  if (fifo < 0)
    return ar_make_error (err, errno, "open the exec fifo");
  /* Last before the spawn, which closes them on every path.  */
  if (c->limits)
    {
      if (make_vfiles (c, vfile_fds, err) < 0)
        return -1;
      cfg.vfile_fds = vfile_fds;
    }
  if (c->sb.net)
    {
      if (open_egress_files (c, dirfd, egress_fds, err) < 0)
        {
          for (int i = 0; cfg.vfile_fds && i < VF__N; i++)
            close (vfile_fds[i]);
          for (int i = 0; i < EGRESS_FILE__N; i++)
            ar_closep (&egress_fds[i]);
          return -1;
        }
      cfg.egress_fds = egress_fds;
    }
  env = workload_env (&c->spec->process, n_listen);
  cfg.fifo_fd = fifo;
  cfg.env = env;
  cfg.extra_fds = c->o->preserve_fds + n_listen;
  ret = process_spawn_init (&cfg, runtime_hooks, c, res, err);
  for (int i = 0; cfg.vfile_fds && i < VF__N; i++)
    close (vfile_fds[i]);
  for (int i = 0; i < EGRESS_FILE__N; i++)
    ar_closep (&egress_fds[i]);
  /* The init holds the overlay now (or failed): ours would only keep the layers alive.  */
  for (int i = 0; i < EPHEMERAL__N; i++)
    ar_closep (&c->eph.fds[i]);
  return ret;
}

/* Where the supervisor reads the limits it shows (vfiles): on cgroup v2 the one directory; on
   v1 each controller's (hybrid: the cgroup2 one holds none of them).  */
static struct vfiles_cgroup
limit_dirs (const struct cgroup *cg)
{
  if (cg->layout == CGROUP_V2)
    return (struct vfiles_cgroup){ cg->unified, cg->unified, cg->unified, cg->unified,
                                   cg->unified };
  return (struct vfiles_cgroup){ cg->memory, cg->cpu, cg->cpuset, cg->pids, cg->cpuacct };
}

/* The audit log's budget, per container (supervisor/audit_budget.h).  The log is on the host,
   by default under --root (/run/agentrt: a tmpfs, so memory), and no cgroup of the container
   pays for it.  64 MiB holds 100,000 to 300,000 records of an ordinary workload (an exec's is
   200-600 bytes) before aggregation (a shell loop of 500 execs wrote 501 records, 108 KB, and
   now writes 3), and is an eighth of the agent profile's 512 MiB of memory; 8 MiB of it is kept
   for alerts (a thousand of the largest records, many more of the usual size).  The rate, 256
   KiB a second and 2 MiB at once, passes a build's bursts (hundreds of execs a second, ~1 KiB
   each); alerts have as much again before they are aggregated by call alone, so a workload that
   floods with records that all differ needs some two minutes to use the budget (measured:
   0.53 MB/s).  A record like one written in the last 5 s is counted, not written.  */
static const struct audit_limits audit_defaults = {
  .max_bytes = 64 * 1024 * 1024,
  .alert_reserve = 8 * 1024 * 1024,
  .rate = 256 * 1024,
  .burst = 2 * 1024 * 1024,
  .window_ms = 5000,
};

/* In the forked supervisor (supervisor_cfg.release_unneeded): config.json, as text and parsed,
   which nothing the supervisor is given points into.  A 4 MiB config (process.env) kept both of
   its processes at 15.6 MB RSS each, 2.4 MB without it.  */
static void
release_for_supervisor (void *arg)
{
  struct create_ctx *c = arg;

  free (c->config_text);
  c->config_text = NULL;
  spec_free (c->spec);
  c->spec = NULL;
}

/* Does the container run in the PER_LINUX32 personality (linux.personality LINUX32)?  */
static bool
linux32 (const struct spec *s)
{
  const char *d = s->linux_.has_personality ? s->linux_.personality.domain : NULL;
  return d && strcmp (d, "LINUX32") == 0;
}

static int
start_supervisor (struct create_ctx *c, pid_t init, int listener, bool trace, ar_error_t *err)
{
  cleanup_free char *audit
      = c->sb.audit_path ? xstrdup (c->sb.audit_path) : xasprintf ("%s/audit.jsonl", c->state_dir);
  struct supervisor_cfg sc = { .id = c->id,
                               .state_dir = c->state_dir,
                               .audit_path = audit,
                               .uname_release = c->sb.uname_release,
                               .uname_personality = linux32 (c->spec),
                               .popts = c->sb.popts,
                               .limits = c->limits,
                               .init_pid = init,
                               .own_pidns = c->ns.new_ns[SPEC_NS_PID],
                               .cgroup_dirs = c->st->cgroup_dirs,
                               .limit_dirs = limit_dirs (&c->cg),
                               .net = c->sb.net,
                               .upstream = c->sb.upstream,
                               .host_addrs = c->sb.host_addrs,
                               .egress_netns_fd = c->egress_ns.fd,
                               .notify_fd = listener,
                               .trace = trace,
                               .timeout_ms = c->sb.timeout_ms,
                               .canary_fd = c->eph.fanotify_fd,
                               .vfiles_fd = c->vfiles_fd,
                               .canaries = c->eph.canaries,
                               .n_canaries = c->eph.n_canaries,
                               .journal_fd = c->journal_fd,
                               /* The worker's CPU is the container's, never its freezer
                                  (cgroup_run_accounted); the watchdog's is ours.  */
                               .accounting = &c->cg,
                               .audit = audit_defaults,
                               .release_unneeded = release_for_supervisor,
                               .release_arg = c };

  if (c->sb.audit_bytes)
    {
      sc.audit.max_bytes = c->sb.audit_bytes;
      sc.audit.alert_reserve = c->sb.audit_bytes / 8;
    }
  /* Its user namespace's own limit caps the container's inotify instances (namespaces.c).  */
  sc.fsnotify_by_kernel = c->ns.new_ns[SPEC_NS_USER] && c->ns.userns_owner != 0;
  if (supervisor_start (&sc, &c->sv_pid, &c->st->sv_worker, err) < 0)
    return -1;
  c->st->sv_pid = c->sv_pid;
  c->st->sv_start = state_proc_start_time (c->sv_pid);
  c->st->sv_worker_start = state_proc_start_time (c->st->sv_worker);
  free (c->st->audit_log);
  c->st->audit_log = steal_ptr (&audit);
  return 0;
}

/* The init is born in the container's cgroups: the runtime moves itself there for the clone
   and back at once, so the init is never outside them, not even before it unshares its cgroup
   namespace (whose root is then the container's cgroup).  The supervisor, forked later, goes
   into its CPU accounting only (start_supervisor): pause must not freeze it.  */
struct spawn_args
{
  struct create_ctx *c;
  int dirfd;
  struct process_result *res;
};

static int
spawn_fn (void *data, int cgroup_fd, ar_error_t *err)
{
  struct spawn_args *a = data;
  return spawn (a->c, a->dirfd, cgroup_fd, a->res, err);
}

/* The log the claim checks: audit_dir's, whether a pod's annotation or the operator's default
   named it; --audit-log is the operator's to share.  */
static const char *
claimed_audit_log (const struct create_ctx *c)
{
  return c->o->audit_log ? NULL : c->sb.audit_path;
}

static int
spawn_in_cgroup (struct create_ctx *c, int dirfd, struct process_result *res, ar_error_t *err)
{
  struct spawn_args a = { c, dirfd, res };
  cleanup_close int claim = -1;

  /* Recorded before they are made (the systemd unit too, before systemd is asked): a create
     killed from here on leaves a journal that delete cleans them up from.  Checked free first,
     so that the record never names another container's; claimed under the root's lock until
     made (claim.c), with the audit log.  */
  claim = container_claim (c->rootfd,
                           &(struct container_claim){ .id = c->id,
                                                      .cg = &c->cg,
                                                      .audit_log = claimed_audit_log (c),
                                                      .annotations = &c->spec->annotations },
                           err);
  if (claim < 0 || cgroup_check_free (&c->cg, err) < 0
      || state_journal_cgroups (c->journal_fd, c->cg.dirs, err) < 0
      || (c->cg.unit && state_journal_unit (c->journal_fd, c->cg.unit, err) < 0))
    return -1;
  if (cgroup_create (&c->cg, &c->spec->linux_.resources, err) < 0)
    return -1;
  c->cg_made = true;
  c->st->cgroup_dirs = xzalloc ((c->cg.n + 1) * sizeof (char *));
  for (size_t i = 0; i < c->cg.n; i++)
    c->st->cgroup_dirs[i] = xstrdup (c->cg.dirs[i]);
  /* systemd's unit gets the init and the limits (place_fn) once the init exists; the claim is
     held until then, as systemd makes the unit's directories.  */
  if (c->cg.unit)
    {
      c->st->systemd_unit = xstrdup (c->cg.unit);
      return cgroup_run_unplaced (&c->cg, spawn_fn, &a, err);
    }
  ar_closep (&claim);
  if (cgroup_allow_devices (&c->cg, &c->spec->linux_.resources, c->spec->linux_.devices,
                            c->spec->linux_.n_devices, err)
      < 0)
    return -1;
  return cgroup_run_inside (&c->cg, spawn_fn, &a, err);
}

/* The boottime offset of PID's time namespace (minus, the host's CLOCK_BOOTTIME at which its
   clock reads 0); 0 where the kernel has no time namespaces.  */
static int
read_boot_offset (pid_t pid, struct timespec *boot, ar_error_t *err)
{
  char path[64], line[128];
  cleanup_file FILE *f = NULL;
  long long secs;
  long nsecs;

  snprintf (path, sizeof path, "/proc/%d/timens_offsets", (int) pid);
  *boot = (struct timespec){ 0, 0 };
  f = fopen (path, "re");
  if (f == NULL)
    return errno == ENOENT ? 0 : ar_make_error (err, errno, "open `%s`", path);
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "boottime %lld %ld", &secs, &nsecs) == 2)
      {
        /* -(secs + nsecs/1e9), nsecs in [0, 1e9).  */
        boot->tv_sec = -secs - (nsecs > 0);
        boot->tv_nsec = nsecs > 0 ? 1000000000L - nsecs : 0;
        return 0;
      }
  return ar_make_error (err, EINVAL, "`%s`: no boottime offset", path);
}

/* The container's uptime counts from where its CLOCK_BOOTTIME reads 0, whoever made its time
   namespace (plan_time_namespace, the config's timeOffsets, a joined one), or from the host's
   boot without one: /proc/uptime, sysinfo, the clock and the processes' start times then agree.
   The files are rewritten before the workload can read them: the init waits for start.  */
static int
sync_uptime (struct create_ctx *c, pid_t init, ar_error_t *err)
{
  if (c->limits == NULL)
    return 0;
  if (read_boot_offset (init, &c->limits->boot, err) < 0)
    return ar_error_wrap (err, "the container's uptime");
  return c->vfiles_fd < 0 ? 0 : vfiles_refresh (c->vfiles_fd, c->limits, err);
}

/* What the init left us: its pty master, and its filters' listeners.  */
static int
take_result (struct create_ctx *c, struct process_result *r, ar_error_t *err)
{
  int ret = 0;

  c->console = r->console;
  if (sync_uptime (c, r->pid, err) < 0)
    ret = -1;
  else if (r->listener[FILTER_POLICY] >= 0)
    ret = start_supervisor (c, r->pid, r->listener[FILTER_POLICY], false, err);
  else if (c->progs[FILTER_POLICY].trace)
    ret = start_supervisor (c, r->pid, -1, true, err); /* it attaches before start releases */
  else if (c->progs[FILTER_POLICY].insns)
    ret = ar_make_error (err, 0, "container init sent no seccomp listener");
  else if (c->sb.timeout_ms > 0)
    ret = start_supervisor (c, r->pid, -1, false, err); /* the watchdog alone keeps the deadline */
  if (ret == 0 && r->listener[FILTER_OCI] >= 0)
    {
      cleanup_free char *json = state_json_with (c->st, r->pid, STATE_CREATING);
      ret = seccomp_oci_send_listener (&c->spec->linux_.seccomp, r->listener[FILTER_OCI], json,
                                       err);
    }
  for (int i = 0; i < FILTER__N; i++)
    ar_closep (&r->listener[i]);
  return ret;
}

/* The absolute path of ROOT/ID, for the supervisor and the init's bind mounts.  */
static int
state_dir_path (int dirfd, char **out, ar_error_t *err)
{
  char link[64], buf[PATH_MAX];
  ssize_t n;

  snprintf (link, sizeof link, "/proc/self/fd/%d", dirfd);
  n = readlink (link, buf, sizeof buf - 1);
  if (n < 0)
    return ar_make_error (err, errno, "resolve the state directory");
  buf[n] = '\0';
  *out = xstrdup (buf);
  return 0;
}

/* A new user namespace gets an owner of its own (state/owners.h), claimed once the state
   directory that holds the claim exists.  A runtime that is not root, or is nested in a user
   namespace without the reserved ids, keeps namespaces_plan's fallback.  */
static int
claim_userns_owner (struct create_ctx *c, ar_error_t *err)
{
  uid_t owner;

  if (!c->ns.new_ns[SPEC_NS_USER] || geteuid () != 0 || !owners_usable ())
    return 0;
  if (owners_claim (OWNERS_REGISTRY, c->state_dir, &owner, err) < 0)
    return -1;
  c->ns.userns_owner = owner;
  c->ns.userns_group = (gid_t) owner;
  return 0;
}

/* Once the container's processes are dead (delete, a failed create), before its state
   directory is removed: its user namespace's owner may be another's.  Should this fail, the
   slot is freed anyway once the state directory is gone (owners.c).  */
static void
release_userns_owner (int dirfd)
{
  cleanup_free char *path = NULL;
  ar_error_t e = NULL;

  if (geteuid () != 0)
    return;
  if (state_dir_path (dirfd, &path, &e) < 0 || owners_release (OWNERS_REGISTRY, path, &e) < 0)
    warn_release (&e);
}

/* From the state directory on: the init, then its state and pid file.  */
static int
create_in (struct create_ctx *c, int dirfd, pid_t *pid_out, ar_error_t *err)
{
  struct process_result res = { 0, -1, { -1, -1 } };
  pid_t pid = 0;

  c->st = new_state (c);
  /* The journal, then state.json: the window in which the directory has neither is as short as
     it can be (and nothing is made in it).  */
  c->journal_fd = state_journal_open (dirfd, err);
  if (c->journal_fd < 0 || state_save (dirfd, c->st, err) < 0
      || ar_replace_file (dirfd, CONFIG_COPY, c->config_text, strlen (c->config_text), 0600, err)
             < 0
      || state_dir_path (dirfd, &c->state_dir, err) < 0 || claim_userns_owner (c, err) < 0
      || spawn_in_cgroup (c, dirfd, &res, err) < 0)
    return -1;
  pid = res.pid;
  c->st->pid = pid;
  c->st->pid_start = state_proc_start_time (pid);
  if (take_result (c, &res, err) < 0
      || state_journal_process (c->journal_fd, "init", pid, c->st->pid_start, err) < 0)
    {
      (void) kill (pid, SIGKILL);
      return -1;
    }
  c->st->status = STATE_CREATED;
  if (state_save (dirfd, c->st, err) < 0
      || (c->o->pid_file && container_write_pid_file (c->o->pid_file, pid, err) < 0)
      || (c->o->console_socket
          && console_send_to_socket (c->o->console_socket, c->console, err) < 0))
    {
      (void) kill (pid, SIGKILL);
      return -1;
    }
  if (c->o->console_socket)
    ar_closep (&c->console);
  *pid_out = pid;
  return 0;
}

#define cleanup_create_ctx __attribute__ ((cleanup (create_ctx_release)))

/* Whatever is left in the cgroups is killed, then they are removed; errors are warnings, as
   the error in hand (or the delete) is the one to report.  */
static void
remove_cgroup (struct cgroup *cg)
{
  ar_error_t e = NULL;

  if (cgroup_signal_all (cg, SIGKILL, &e) < 0 || cgroup_destroy (cg, &e) < 0)
    warn_release (&e);
}

/* foreground: `run` without --detach, which keeps the pty master (*console) to proxy it.  */
static int
create_container (const struct ar_globals *g, const char *id, const struct ar_create_opts *o,
                  bool foreground, pid_t *pid, int *console, ar_error_t *err)
{
  cleanup_create_ctx struct create_ctx c = {
    .g = g,
    .id = id,
    .o = o,
    .foreground = foreground,
    .console = -1,
    .systemd_cgroup = g->systemd_cgroup,
    .state_root = container_root (g),
  };
  cleanup_close int rootfd = -1;
  cleanup_close int dirfd = -1;

  for (size_t i = 0; i < SPEC_NS_N; i++)
    c.ns.join_fd[i] = -1;
  for (int i = 0; i < EPHEMERAL__N; i++)
    c.eph.fds[i] = -1;
  c.eph.fanotify_fd = -1;
  c.vfiles_fd = -1;
  c.journal_fd = -1;
  c.egress_ns.fd = -1;
  if (prepare_create (&c, err) < 0)
    return -1;
  rootfd = state_root_open (container_root (g), true, err);
  if (rootfd < 0)
    return -1;
  c.rootfd = rootfd;
  dirfd = state_dir_create (rootfd, id, err);
  if (dirfd < 0)
    return -1;
  if (create_in (&c, dirfd, pid, err) < 0)
    {
      if (c.sv_pid > 0)
        {
          supervisor_stop (c.sv_pid, state_proc_start_time (c.sv_pid));
          supervisor_mark_end (dirfd); /* should the removal below fail */
        }
      if (c.cg_made)
        remove_cgroup (&c.cg);
      if (c.ns.userns_owner >= OWNERS_BASE)
        release_userns_owner (dirfd);
      (void) state_dir_remove (rootfd, id, NULL); /* the error in hand is the one to report */
      return -1;
    }
  *console = steal_fd (&c.console);
  return 0;
}

int
ar_container_create (const struct ar_globals *g, const char *id, const struct ar_create_opts *o,
                     ar_error_t *err)
{
  pid_t pid;
  int console = -1;
  return create_container (g, id, o, false, &pid, &console, err);
}

/* A failing poststart or poststop hook is a warning, and the hooks after it still run: the
   runtime-spec says the remaining hooks and the lifecycle go on.  */
static void
run_hooks_warn (int dirfd, struct state *s, enum spec_hook_kind kind, const char *name)
{
  cleanup_spec struct spec *spec = NULL;
  cleanup_free char *json = NULL;
  ar_error_t err = NULL;

  if (container_load_config (dirfd, &spec, &err) < 0)
    {
      warn_release (&err);
      return;
    }
  json = state_to_oci_json (s, NULL);
  for (size_t i = 0; i < spec->hooks[kind].n; i++)
    {
      struct spec_hook_list one = { &spec->hooks[kind].items[i], 1 };
      if (hooks_run (&one, name, json, &err) < 0)
        warn_release (&err);
    }
}

static int
release_init (int dirfd, const char *id, ar_error_t *err)
{
  cleanup_close int fifo = openat (dirfd, EXEC_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

  /* ENXIO: nobody reads it, so the init has gone.  */
  if (fifo < 0)
    return ar_make_error (err, errno == ENXIO ? 0 : errno, "start container `%s`: %s", id,
                          errno == ENXIO ? "its init has exited" : "open the exec fifo");
  if (write (fifo, "0", 1) != 1)
    return ar_make_error (err, errno, "start container `%s`: write the exec fifo", id);
  (void) unlinkat (dirfd, EXEC_FIFO, 0); /* the init holds its own fd */
  return 0;
}

static int
start_locked (int dirfd, struct state *s, ar_error_t *err)
{
  if (s->status != STATE_CREATED)
    return ar_make_error (err, 0, "cannot start container `%s`: it is %s, not created", s->id,
                          state_status_name (s->status));
  if (container_check_not_deleting (dirfd, s->id, "start", err) < 0
      || release_init (dirfd, s->id, err) < 0)
    return -1;
  s->status = STATE_RUNNING;
  if (state_save (dirfd, s, err) < 0)
    return -1;
  run_hooks_warn (dirfd, s, SPEC_HOOK_POSTSTART, "poststart");
  return 0;
}

int
ar_container_start (const struct ar_globals *g, const char *id, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_close int dirfd = -1;

  if (container_load_locked (g, id, true, &dirfd, &s, err) < 0)
    return -1;
  return start_locked (dirfd, s, err);
}

static int
pidfd_open_checked (const struct state *s, ar_error_t *err)
{
  int fd = (int) syscall (SYS_pidfd_open, s->pid, 0);

  if (fd < 0)
    return ar_make_error (err, errno, "container `%s`: open its init (pid %d)", s->id,
                          (int) s->pid);
  /* The pid may have been reused between the state check and pidfd_open.  */
  if (state_proc_start_time (s->pid) != s->pid_start)
    {
      close (fd);
      return ar_make_error (err, ESRCH, "container `%s`: its init has exited", s->id);
    }
  return fd;
}

static bool
same_ns (const char *path, const struct stat *want)
{
  struct stat st;
  return stat (path, &st) == 0 && st.st_ino == want->st_ino && st.st_dev == want->st_dev;
}

/* The init's pid namespace, if the container created it (then it holds only the container; a
   joined one may be a whole pod's).  */
static int
own_pidns (const struct state *s, struct stat *ns, ar_error_t *err)
{
  char path[64];

  if (!s->own_pidns)
    return 0;
  snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) s->pid);
  if (stat (path, ns) < 0)
    return ar_make_error (err, errno, "container `%s`: its pid namespace", s->id);
  return same_ns ("/proc/self/ns/pid", ns) ? 0 : 1;
}

/* kill --all: every process of the pid namespace.  Without a pid namespace of its own only the
   init is signalled; its other processes are found through the cgroup (issue 8).  */
static int
signal_pidns (const struct state *s, int sig, ar_error_t *err)
{
  struct stat ns;
  DIR *d;
  struct dirent *de;
  int own = own_pidns (s, &ns, err);

  if (own <= 0)
    return own;
  d = opendir ("/proc");
  if (d == NULL)
    return ar_make_error (err, errno, "read /proc");
  while ((de = readdir (d)) != NULL)
    {
      char path[300];
      long long pid;
      if (!ar_parse_int64 (de->d_name, 1, INT_MAX, &pid) || pid == s->pid)
        continue;
      snprintf (path, sizeof path, "/proc/%s/ns/pid", de->d_name);
      if (same_ns (path, &ns))
        (void) kill ((pid_t) pid, sig); /* may have exited meanwhile */
    }
  closedir (d);
  return 0;
}

/* kill --all: every process in the container's cgroups, or without cgroups in its own pid
   namespace.  */
static int
signal_all (const struct state *s, int sig, ar_error_t *err)
{
  struct cgroup cg;
  int r;

  if (s->cgroup_dirs == NULL)
    return signal_pidns (s, sig, err);
  if (cgroup_from_dirs (s->cgroup_dirs, s->systemd_unit, &cg, err) < 0)
    return -1;
  /* On cgroup v2 cgroup.kill would take the supervisor too (it lives in a child of the
     container's cgroup), which its watchdog could see as its worker's death and record as an
     alert: it is stopped first, as delete does, since nothing is left for it to serve.  */
  if (sig == SIGKILL && cg.layout == CGROUP_V2)
    supervisor_stop (s->sv_pid, s->sv_start);
  r = cgroup_signal_all (&cg, sig, err);
  cgroup_release (&cg);
  return r;
}

/* kill --all of a stopped container, as runc: what its init left in its cgroups (possible
   without a pid namespace of its own) is signalled, and a cgroup already gone is no error.
   containerd's shim sends it after such an init exits and when a pod sandbox stops.  The init's
   pid is not used: it may be another process's by now.  */
static int
signal_left (const struct state *s, int sig, ar_error_t *err)
{
  struct cgroup cg;
  ar_error_t cerr = NULL;
  int r;

  if (s->cgroup_dirs == NULL)
    return 0;
  if (cgroup_from_dirs (s->cgroup_dirs, s->systemd_unit, &cg, err) < 0)
    return -1;
  r = cgroup_signal_all (&cg, sig, &cerr);
  cgroup_release (&cg);
  if (r < 0 && cerr->status == ENOENT)
    {
      ar_error_release (&cerr);
      return 0;
    }
  if (r < 0)
    *err = cerr;
  return r;
}

static int
signal_container (const struct state *s, int sig, bool all, ar_error_t *err)
{
  cleanup_close int pidfd = pidfd_open_checked (s, err);

  if (pidfd < 0)
    return -1;
  if (all && signal_all (s, sig, err) < 0)
    return -1;
  if (syscall (SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 && errno != ESRCH)
    return ar_make_error (err, errno, "container `%s`: send signal %d", s->id, sig);
  return 0;
}

/* On cgroup v1 a frozen task dies of SIGKILL only once thawed: like runc, a SIGKILL to a paused
   container thaws it (containerd's shim kills a paused task with a plain `kill ID 9`).  */
static void
thaw_killed (const struct state *s)
{
  struct cgroup cg;

  if (s->cgroup_dirs == NULL || cgroup_from_dirs (s->cgroup_dirs, s->systemd_unit, &cg, NULL) < 0)
    return;
  (void) cgroup_freeze (&cg, false, NULL);
  cgroup_release (&cg);
}

int
ar_container_kill (const struct ar_globals *g, const char *id, int sig, bool all, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_close int dirfd = -1;

  if (container_load_locked (g, id, false, &dirfd, &s, err) < 0)
    return -1;
  if (s->status == STATE_STOPPED && all)
    return signal_left (s, sig, err);
  if (s->status == STATE_STOPPED)
    return ar_make_error (err, 0, "cannot kill container `%s`: container not running", id);
  if (signal_container (s, sig, all, err) < 0)
    return -1;
  /* On cgroup v2 signal_all stopped the supervisor (agentrt's own stop marks no end): that was
     no loss.  A supervisor still alive ends by itself and says so.  */
  if (all && sig == SIGKILL && !supervisor_alive (s->sv_pid, s->sv_start))
    supervisor_mark_end (dirfd);
  if (sig == SIGKILL && s->status == STATE_PAUSED)
    thaw_killed (s);
  return 0;
}

/* Wait for a process that is not our child; true once it has gone.  */
static bool
wait_gone (const struct state *s, int timeout_ms)
{
  cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, s->pid, 0);
  struct pollfd p = { .fd = pidfd, .events = POLLIN };

  if (pidfd < 0 || state_proc_start_time (s->pid) != s->pid_start)
    return true;
  return poll (&p, 1, timeout_ms) == 1;
}

static int
kill_and_wait (struct state *s, ar_error_t *err)
{
  ar_error_t serr = NULL;

  /* A create that died before it spawned the init left pid 0: nothing to kill.  */
  if (s->pid <= 0)
    {
      s->status = STATE_STOPPED;
      return 0;
    }
  if (signal_container (s, SIGKILL, true, &serr) < 0)
    {
      if (serr->status != ESRCH)
        {
          *err = serr;
          return -1;
        }
      ar_error_release (&serr); /* gone already */
    }
  if (!wait_gone (s, 10000))
    return ar_make_error (err, ETIMEDOUT, "container `%s`: its init did not die", s->id);
  s->status = STATE_STOPPED;
  return 0;
}

/* Processes that left the init's pid namespace, or outlived a stopped init, are in the cgroup
   still: killed before it is removed.  A directory already gone (removed by hand, or by a delete
   that was killed part-way) is no error.  */
static int
destroy_cgroups (const struct state *s, ar_error_t *err)
{
  struct cgroup cg;
  int r;

  if (cgroup_from_dirs (s->cgroup_dirs, s->systemd_unit, &cg, err) < 0)
    return -1;
  r = cgroup_signal_all (&cg, SIGKILL, err) < 0 ? -1 : cgroup_destroy (&cg, err);
  cgroup_release (&cg);
  return r;
}

/* What the journal has that state.json lacks: a create killed before it saved its cgroups, its
   init or its supervisor there.  */
static void
merge_journal (struct state *s, struct state_journal *j)
{
  if (s->cgroup_dirs == NULL)
    s->cgroup_dirs = steal_ptr (&j->cgroup_dirs);
  if (s->systemd_unit == NULL)
    s->systemd_unit = steal_ptr (&j->unit);
  if (s->pid <= 0 && j->init_pid > 0)
    {
      s->pid = j->init_pid;
      s->pid_start = j->init_start;
    }
  if (s->sv_pid <= 0 && j->sv_pid > 0)
    {
      s->sv_pid = j->sv_pid;
      s->sv_start = j->sv_start;
    }
}

/* Without a journal (a directory an older agentrt made, or one whose journal is gone), the
   cgroups are where create would have put them: the stored config's linux.cgroupsPath, or the
   default agentrt/ID.  Only those that exist are taken.  */
static char **
derive_cgroups (int dirfd, const char *id)
{
  cleanup_spec struct spec *spec = NULL;
  struct spec none;
  struct cgroup cg;
  ar_error_t e = NULL;
  char **dirs;
  size_t n = 0;

  memset (&none, 0, sizeof none);
  if (container_load_config (dirfd, &spec, &e) < 0)
    ar_error_release (&e);
  if (cgroup_resolve (spec ? spec : &none, id, false, &cg, &e) < 0)
    {
      ar_error_release (&e);
      return NULL;
    }
  dirs = xzalloc ((cg.n + 1) * sizeof *dirs);
  for (size_t i = 0; i < cg.n; i++)
    if (access (cg.dirs[i], F_OK) == 0)
      dirs[n++] = xstrdup (cg.dirs[i]);
  cgroup_release (&cg);
  if (n == 0)
    ar_strv_free (steal_ptr (&dirs));
  return dirs;
}

/* A damaged directory's state, made of what can be found: the journal's init, supervisor and
   cgroups.  Its init, if alive, makes it running; else it is stopped.  */
static struct state *
state_from_journal (int dirfd, const char *id, struct state_journal *j)
{
  struct state *s = xzalloc (sizeof *s);

  s->id = xstrdup (id);
  s->status = STATE_STOPPED;
  merge_journal (s, j);
  if (!j->present)
    s->cgroup_dirs = derive_cgroups (dirfd, id);
  if (s->pid > 0 && state_proc_start_time (s->pid) == s->pid_start)
    s->status = STATE_RUNNING;
  return s;
}

/* Each step finds what a delete killed before it left, and is no error on what it removed:
   an init gone, a supervisor gone, cgroups gone.  `damage`: why state.json could not be used
   (then the poststop hooks, which need it, do not run), or NULL.  */
static int
delete_locked (int rootfd, int dirfd, struct state *s, bool force, const char *damage,
               ar_error_t *err)
{
  bool live = s->status == STATE_RUNNING || s->status == STATE_PAUSED;
  ar_error_t jerr = NULL;

  if (live && !force && damage)
    return ar_make_error (err, 0,
                          "cannot delete container `%s`: it is damaged (%s) and its init (pid "
                          "%d) runs: use --force",
                          s->id, damage, (int) s->pid);
  if (live && !force)
    return ar_make_error (err, 0, "cannot delete container `%s` that is not stopped: %s", s->id,
                          state_status_name (s->status));
  /* Before anything is undone, so that a delete killed from here on is finished by the next
     one, --force or not.  A state directory that cannot be written (a full disk) must still
     be deletable: the record is then skipped.  */
  if (state_journal_deleting (dirfd, &jerr) < 0)
    warn_release (&jerr);
  /* A created container is killed without --force, as runc does.  A creating one whose lock we
     hold has lost its creator.  */
  if (s->status != STATE_STOPPED && kill_and_wait (s, err) < 0)
    return -1;
  supervisor_stop (s->sv_pid, s->sv_start);
  /* Should the state outlive its supervisor now, that was no loss.  */
  if (s->cgroup_dirs && destroy_cgroups (s, err) < 0)
    {
      supervisor_mark_end (dirfd);
      return -1;
    }
  if (damage == NULL)
    run_hooks_warn (dirfd, s, SPEC_HOOK_POSTSTOP, "poststop");
  release_userns_owner (dirfd);
  if (state_dir_remove (rootfd, s->id, err) < 0)
    {
      supervisor_mark_end (dirfd);
      return -1;
    }
  return 0;
}

#define cleanup_journal __attribute__ ((cleanup (state_journal_release)))

/* Whatever a create, start, exec or delete killed part-way left is found here: state.json if it
   loads, the journal besides it; a directory with neither (a create killed before it wrote
   them) is removed as runc removes it.  */
int
ar_container_delete (const struct ar_globals *g, const char *id, bool force, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_journal struct state_journal j = { 0 };
  cleanup_close int dirfd = -1;
  cleanup_close int rootfd = -1;
  cleanup_free char *damage = NULL;
  ar_error_t lerr = NULL;

  if (state_check_id (id, err) < 0 || state_root_check (container_root (g), err) < 0)
    return -1;
  rootfd = open (container_root (g), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0 && errno != ENOENT)
    return ar_make_error (err, errno, "open state root `%s`", container_root (g));
  dirfd = rootfd < 0 ? ar_make_error (&lerr, 0, "container `%s` does not exist", id)
                     : state_dir_lock (rootfd, id, true, &lerr);
  if (dirfd < 0)
    {
      /* Nothing there, or another delete --force won the race: what we want.  */
      if (force && (rootfd < 0 || faccessat (rootfd, id, F_OK, AT_SYMLINK_NOFOLLOW) < 0))
        {
          ar_error_release (&lerr);
          return 0;
        }
      *err = lerr;
      return -1;
    }
  state_journal_read (dirfd, &j);
  if (state_load (dirfd, id, &s, &lerr) == 0)
    {
      state_refresh (s);
      merge_journal (s, &j);
    }
  else
    {
      damage = container_damage_text (lerr);
      ar_error_release (&lerr);
      s = state_from_journal (dirfd, id, &j);
    }
  return delete_locked (rootfd, dirfd, s, force || j.deleting, damage, err);
}

/* The supervisor writes its last audit records (aggregates, the alert count) once the
   container has ended, and exits: run returns after that, so that the log and `state` are
   complete.  Bounded: a process left behind (outside the init's pid namespace) keeps it
   serving.  */
static void
wait_supervisor (const struct ar_globals *g, const char *id)
{
  cleanup_state struct state *s = NULL;

  if (container_load_locked (g, id, false, NULL, &s, NULL) == 0)
    supervisor_wait (s->sv_pid, s->sv_start, 2000);
}

static int
run_foreground (const struct ar_globals *g, const char *id, const struct ar_create_opts *o, int sfd,
                ar_error_t *err)
{
  pid_t pid = 0;
  int status;
  ar_error_t derr = NULL;
  cleanup_close int console = -1;

  if (create_container (g, id, o, !o->detach, &pid, &console, err) < 0)
    return -1;
  if (ar_container_start (g, id, err) < 0)
    {
      (void) ar_container_delete (g, id, true, NULL);
      return -1;
    }
  if (o->detach)
    return 0;
  status = console >= 0 ? console_proxy_wait (console, sfd, pid, err)
                        : wait_forwarding (sfd, pid, err);
  if (status >= 0)
    wait_supervisor (g, id);
  if (status < 0 || o->keep)
    return status;
  if (ar_container_delete (g, id, true, &derr) < 0)
    warn_release (&derr);
  return status;
}

int
ar_container_run (const struct ar_globals *g, const char *id, const struct ar_create_opts *o,
                  ar_error_t *err)
{
  sigset_t set;
  cleanup_close int sfd = -1;
  int ret;

  /* The init is our child; anything it leaves behind outside a pid namespace is reparented to
     us and reaped here.  */
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0)
    return ar_make_error (err, errno, "become a subreaper");
  sfd = wait_block_signals (&set, err);
  if (sfd < 0)
    return -1;
  ret = run_foreground (g, id, o, sfd, err);
  (void) sigprocmask (SIG_UNBLOCK, &set, NULL);
  return ret;
}
