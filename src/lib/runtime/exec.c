/* exec: a new process in a running container, from the container's own process spec with the
   command line's overrides (runc's exec.go), or from a process.json (--process).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "cgroups/cgroup.h"
#include "runtime/container_internal.h"
#include "log.h"
#include "policy/policy.h"
#include "init/process.h"
#include "sandbox/sandbox.h"
#include "seccomp/oci.h"
#include "spec/spec.h"
#include "supervisor/supervisor.h"
#include "state/state.h"
#include "state/owners.h"
#include "runtime/console.h"
#include "runtime/wait.h"
#include "utils.h"

static void
strv_push (struct spec_strv *v, const char *s)
{
  v->v = xrealloc (v->v, (v->n + 2) * sizeof *v->v);
  v->v[v->n++] = xstrdup (s);
  v->v[v->n] = NULL;
}

static void
strv_replace (struct spec_strv *v, char **with, int n)
{
  for (size_t i = 0; i < v->n; i++)
    free (v->v[i]);
  free (v->v);
  v->v = xzalloc ((n + 1) * sizeof *v->v);
  for (int i = 0; i < n; i++)
    v->v[i] = xstrdup (with[i]);
  v->n = n;
}

/* -e NAME=VALUE replaces NAME if the spec has it, so the override is the one getenv sees.  */
static void
env_set (struct spec_strv *env, const char *kv)
{
  size_t klen = strcspn (kv, "=");

  for (size_t i = 0; i < env->n; i++)
    if (strncmp (env->v[i], kv, klen) == 0 && env->v[i][klen] == '=')
      {
        free (env->v[i]);
        env->v[i] = xstrdup (kv);
        return;
      }
  strv_push (env, kv);
}

static int
parse_user (const char *s, struct spec_user *u, ar_error_t *err)
{
  long long uid, gid;
  cleanup_free char *copy = xstrdup (s);
  char *colon = strchr (copy, ':');

  if (colon)
    *colon = '\0';
  /* Not 4294967295: (uid_t) -1 is "unchanged" to setresuid, and the process would stay root.  */
  if (!ar_parse_int64 (copy, 0, UINT32_MAX - 1, &uid)
      || (colon && !ar_parse_int64 (colon + 1, 0, UINT32_MAX - 1, &gid)))
    return ar_make_error (
        err, 0, "--user: expected UID[:GID] as numbers from 0 to 4294967294, not `%s`", s);
  u->uid = (uint32_t) uid;
  if (colon)
    u->gid = (uint32_t) gid;
  return 0;
}

static int
add_gids (char **gids, struct spec_user *u, ar_error_t *err)
{
  for (char **g = gids; g && *g; g++)
    {
      long long v;
      if (!ar_parse_int64 (*g, 0, UINT32_MAX - 1, &v))
        return ar_make_error (
            err, 0, "--additional-gids: expected a number from 0 to 4294967294, not `%s`", *g);
      u->additional_gids
          = xrealloc (u->additional_gids, (u->n_additional_gids + 1) * sizeof *u->additional_gids);
      u->additional_gids[u->n_additional_gids++] = (uint32_t) v;
    }
  return 0;
}

/* runc: --cap goes into bounding, effective and permitted, and into ambient only when the spec
   has inheritable capabilities (ambient needs them).  */
static int
add_caps (char **caps, struct spec_process *p, ar_error_t *err)
{
  struct spec_caps *c = &p->capabilities;

  for (char **cap = caps; cap && *cap; cap++)
    {
      if (spec_cap_from_name (*cap) < 0)
        return ar_make_error (err, 0, "--cap: unknown capability `%s`", *cap);
      p->has_capabilities = true;
      strv_push (&c->bounding, *cap);
      strv_push (&c->effective, *cap);
      strv_push (&c->permitted, *cap);
      if (c->inheritable.n > 0)
        strv_push (&c->ambient, *cap);
    }
  return 0;
}

static int
apply_overrides (const struct ar_exec_opts *o, struct spec_process *p, ar_error_t *err)
{
  if (o->argc > 0)
    strv_replace (&p->args, o->argv, o->argc);
  for (char **e = o->env; e && *e; e++)
    env_set (&p->env, *e);
  if (o->cwd)
    {
      free (p->cwd);
      p->cwd = xstrdup (o->cwd);
    }
  if (o->user && parse_user (o->user, &p->user, err) < 0)
    return -1;
  if (add_gids (o->gids, &p->user, err) < 0 || add_caps (o->caps, p, err) < 0)
    return -1;
  if (o->no_new_privs)
    p->no_new_privileges = true;
  if (o->tty)
    p->terminal = true;
  return 0;
}

/* --process FILE, read before anything else, so that its errors name the file.  */
static int
load_process_file (const struct ar_exec_opts *o, struct spec_process **out, ar_error_t *err)
{
  cleanup_free char *text = NULL;

  if (o->process_file == NULL)
    {
      if (o->argc <= 0)
        return ar_make_error (err, 0, "exec: a command or --process is required");
      return 0;
    }
  if (ar_read_file (o->process_file, SPEC_MAX_SIZE, &text, NULL, err) < 0)
    return -1;
  return spec_parse_process (text, o->process_file, out, err);
}

/* The process to run: process.json, or the container's with the overrides.  */
static int
load_process (int dirfd, const struct ar_exec_opts *o, struct spec **spec,
              struct spec_process *file_proc, struct spec_process **out, ar_error_t *err)
{
  if (file_proc)
    *out = file_proc;
  else
    {
      if (container_load_config (dirfd, spec, err) < 0)
        return -1;
      *out = &(*spec)->process;
    }
  if (apply_overrides (o, *out, err) < 0
      || owners_check_user (&(*out)->user, "exec: process.user", err) < 0)
    return -1;
  if ((*out)->terminal && o->detach && o->console_socket == NULL)
    return ar_make_error (err, 0, "exec: a terminal with --detach needs --console-socket");
  return 0;
}

/* The exec'd process gets the container's policy; its listener goes to the supervisor (on the
   ptrace platform, the supervisor attaches to it).  */
struct exec_policy
{
  const struct state *s;
  const struct operator_conf *op; /* agentrt.conf as it is now */
  int dirfd;                      /* ROOT/ID, not locked */
  struct seccomp_prog prog, oci;
  struct spec *config; /* the container's, for linux.seccomp */
};

static void
exec_policy_release (struct exec_policy *ep)
{
  seccomp_prog_release (&ep->prog);
  seccomp_prog_release (&ep->oci);
  spec_free (ep->config);
}

/* linux.seccomp applies to exec'd processes too, as in runc.  */
static int
prepare_exec_oci (struct exec_policy *ep, ar_error_t *err)
{
  if (container_load_config (ep->dirfd, &ep->config, err) < 0)
    return -1;
  if (!ep->config->linux_.has_seccomp)
    return 0;
  return seccomp_oci_compile (&ep->config->linux_.seccomp, &ep->oci, err);
}

static int
send_oci_listener (struct exec_policy *ep, pid_t pid, int listener, ar_error_t *err)
{
  struct state copy = *ep->s;
  cleanup_free char *json = NULL;

  copy.pid = pid;
  json = state_to_oci_json (&copy, NULL);
  return seccomp_oci_send_listener (&ep->config->linux_.seccomp, listener, json, err);
}

static int
hand_over (int listener, pid_t pid, void *data, ar_error_t *err)
{
  struct exec_policy *ep = data;
  return supervisor_attach (ep->dirfd, ep->s->id, listener, pid, err);
}

static int
prepare_exec_policy (struct exec_policy *ep, ar_error_t *err)
{
  struct sandbox_flags flags = { .op = ep->op, .policy_only = true };
  cleanup_close int rootfd = -1;
  struct sandbox sb;
  struct policy p;
  int r;

  if (prepare_exec_oci (ep, err) < 0)
    return -1;
  /* The annotations create checked, checked again against agentrt.conf as it is now: what the
     operator no longer lets config.json ask for is not granted to a new process either.  */
  if (sandbox_resolve (&ep->s->annotations, &flags, &sb, err) < 0)
    {
      sandbox_release (&sb);
      return -1;
    }
  if (ep->s->platform == NULL || strcmp (ep->s->platform, "none") == 0)
    {
      sandbox_release (&sb);
      return 0;
    }
  if (!supervisor_alive (ep->s->sv_pid, ep->s->sv_start))
    {
      sandbox_release (&sb);
      return ar_make_error (err, 0, "cannot exec in container `%s`: its supervisor is not running",
                            ep->s->id);
    }
  /* The same filter as the init's: a container with an allowlist has its resolv.conf in its state
     directory (lifecycle.c), and prctl(PR_SET_MM) refused (sandbox.c).  */
  sb.popts.deny_set_mm = faccessat (ep->dirfd, EGRESS_RESOLV_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
  /* The platform create chose (a flag's, perhaps, which the annotations do not show).  */
  if (sandbox_platform_from_name (ep->s->platform, &sb.platform) < 0)
    {
      sandbox_release (&sb);
      return ar_make_error (err, EINVAL, "container `%s`: unknown platform `%s` in state.json",
                            ep->s->id, ep->s->platform);
    }
  sb.popts.tracer_platform = sb.platform == PLATFORM_PTRACE;
  sandbox_resolve_ptrace (&sb, ep->s->own_pidns, sandbox_host_ptrace_cap (ep->config));
  /* The tier create chose, which a flag or agentrt.conf may have decided.  */
  sb.popts.strict = ep->s->policy && strcmp (ep->s->policy, "strict") == 0;
  r = policy_init (&p, policy_native_table (), &sb.popts, err);
  sandbox_release (&sb);
  if (r < 0)
    return -1;
  rootfd = openat (ep->dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  r = policy_compile_cached (&p, rootfd, &ep->prog, err);
  policy_release (&p);
  if (r == 0 && strcmp (ep->s->platform, "ptrace") == 0)
    r = policy_to_trace (&ep->prog, err);
  return r;
}

struct spawn_args
{
  const struct process_exec_cfg *cfg;
  struct process_result *res;
};

static int
spawn_fn (void *data, int cgroup_fd, ar_error_t *err)
{
  struct spawn_args *a = data;
  struct process_exec_cfg cfg = *a->cfg;

  cfg.cgroup_fd = cgroup_fd;
  return process_spawn_exec (&cfg, a->res, err);
}

/* The new process is born in the container's cgroups, as the init is (lifecycle.c).  */
static int
spawn_in_cgroup (const struct state *s, const struct process_exec_cfg *cfg,
                 struct process_result *res, ar_error_t *err)
{
  struct spawn_args a = { cfg, res };
  struct cgroup cg;
  int r;

  if (s->cgroup_dirs == NULL)
    return process_spawn_exec (cfg, res, err);
  if (cgroup_from_dirs (s->cgroup_dirs, s->systemd_unit, &cg, err) < 0)
    return -1;
  r = cgroup_run_inside (&cg, spawn_fn, &a, err);
  cgroup_release (&cg);
  return r;
}

/* The init's Landlock plan (lifecycle.c), from the namespaces the container has and its stored
   annotations (the agent profile writes its own): each exec'd process enters a domain of its
   own with the same rules.  The ptrace wall also where P itself may hold CAP_SYS_PTRACE in the
   host's user namespace (--cap): it would reach the next exec'd process.  */
static int
plan_landlock (const struct exec_policy *ep, const struct spec_process *p,
               struct landlock_ruleset *out, ar_error_t *err)
{
  struct landlock_plan plan = { 0 };
  const char *agent;
  cleanup_close int pidns = -1;
  cleanup_close int netns = -1;
  char path[64];

  if (ep->s->platform == NULL || strcmp (ep->s->platform, "none") == 0)
    {
      memset (out, 0, sizeof *out);
      return 0;
    }
  snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) ep->s->pid);
  pidns = open (path, O_RDONLY | O_CLOEXEC);
  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) ep->s->pid);
  netns = open (path, O_RDONLY | O_CLOEXEC);
  /* Not to be opened: the init is gone, and the exec fails joining it anyway.  */
  plan.scope_signal = pidns < 0 || landlock_pidns_sees_runtime (pidns);
  plan.scope_abstract = netns < 0 || landlock_netns_is_runtimes (netns);
  agent = sandbox_annotation (&ep->s->annotations, "io.agentrt.profile");
  plan.deny_connect = agent && strcmp (agent, "agent") == 0
                      && faccessat (ep->dirfd, EGRESS_RESOLV_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
  plan.ptrace_wall
      = sandbox_host_ptrace_cap (ep->config) || sandbox_process_host_ptrace_cap (ep->config, p);
  return landlock_prepare (&plan, out, err);
}

static int
exec_in (const struct state *s, const struct operator_conf *op, int dirfd,
         const struct ar_exec_opts *o, struct spec_process *p, ar_error_t *err)
{
  struct exec_policy ep = { .s = s, .op = op, .dirfd = dirfd };
  struct process_exec_cfg cfg = { .init_pid = s->pid,
                                  .init_start = s->pid_start,
                                  .proc = p,
                                  .env = p->env.v,
                                  .extra_fds = o->preserve_fds,
                                  .hand_over = hand_over,
                                  .hand_over_data = &ep,
                                  .cgroup_fd = -1 };
  struct process_result res = { 0, -1, { -1, -1 } };
  sigset_t set;
  cleanup_close int sfd = -1;
  cleanup_close int console = -1;
  pid_t pid;
  int status, r;

  if (prepare_exec_policy (&ep, err) < 0)
    {
      exec_policy_release (&ep);
      return -1;
    }
  cfg.filters[FILTER_POLICY] = ep.prog.insns ? &ep.prog : NULL;
  cfg.filters[FILTER_OCI] = ep.oci.insns ? &ep.oci : NULL;
  if (plan_landlock (&ep, p, &cfg.landlock, err) < 0)
    {
      exec_policy_release (&ep);
      return -1;
    }

  if (!o->detach)
    {
      /* The new process may be forked once more into the pid namespace: as a subreaper we are
         the one who can wait for it.  */
      if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0)
        return ar_make_error (err, errno, "become a subreaper");
      sfd = wait_block_signals (&set, err);
      if (sfd < 0)
        return -1;
    }
  r = spawn_in_cgroup (s, &cfg, &res, err);
  if (r == 0 && res.listener[FILTER_OCI] >= 0)
    r = send_oci_listener (&ep, res.pid, res.listener[FILTER_OCI], err);
  exec_policy_release (&ep);
  ar_closep (&res.listener[FILTER_OCI]);
  if (r < 0)
    {
      if (res.pid > 0)
        (void) kill (res.pid, SIGKILL);
      ar_closep (&res.console);
      return -1;
    }
  pid = res.pid;
  console = res.console;
  if (o->pid_file && container_write_pid_file (o->pid_file, pid, err) < 0)
    {
      (void) kill (pid, SIGKILL); /* an engine without its pid file cannot manage it */
      return -1;
    }
  if (console >= 0 && o->console_socket)
    {
      if (console_send_to_socket (o->console_socket, console, err) < 0)
        return -1;
      ar_closep (&console);
    }
  if (o->detach)
    return 0;
  status = console >= 0 ? console_proxy_wait (console, sfd, pid, err)
                        : wait_forwarding (sfd, pid, err);
  (void) sigprocmask (SIG_UNBLOCK, &set, NULL);
  return status;
}

int
ar_container_exec (const struct ar_globals *g, const char *id, const struct ar_exec_opts *o,
                   ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_operator struct operator_conf op = { 0 };
  cleanup_spec struct spec *spec = NULL;
  cleanup_spec_process struct spec_process *file_proc = NULL;
  cleanup_close int dirfd = -1;
  cleanup_close int unlocked = -1;
  struct spec_process *p = NULL;

  if (o->preserve_fds < 0)
    return ar_make_error (err, 0, "--preserve-fds: must not be negative");
  if (state_check_id (id, err) < 0 || container_operator_load (g, &op, err) < 0
      || load_process_file (o, &file_proc, err) < 0)
    return -1;
  if (container_load_locked (g, id, false, &dirfd, &s, err) < 0)
    return -1;
  if (s->status != STATE_RUNNING && s->status != STATE_CREATED)
    return ar_make_error (err, 0, "cannot exec in container `%s`: it is %s", id,
                          state_status_name (s->status));
  if (container_check_not_deleting (dirfd, id, "exec in", err) < 0)
    return -1;
  if (load_process (dirfd, o, &spec, file_proc, &p, err) < 0)
    return -1;
  /* The lock is not held while the process runs: a new open file description has none.  */
  unlocked = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (unlocked < 0)
    return ar_make_error (err, errno, "container `%s`: open its state directory", id);
  ar_closep (&dirfd);
  return exec_in (s, &op, unlocked, o, p, err);
}
