/* config.json edits: a copy of the document in which some paths get new values.  An edit names
   its path with '/' between keys (annotation keys have dots); objects on the way that the
   document lacks are made.  */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sandbox/profile.h"
#include "utils.h"

/* Larger input is copied compact.  */
#define PRETTY_MAX (1u << 20)

struct edit
{
  char *path;
  char *raw; /* JSON text of the new value */
  bool done;
};

struct edits
{
  struct edit *v;
  size_t n;
};

static void
edits_add (struct edits *e, const char *path, char *raw)
{
  e->v = xrealloc (e->v, (e->n + 1) * sizeof *e->v);
  e->v[e->n++] = (struct edit){ xstrdup (path), raw, false };
}

static void
edits_release (struct edits *e)
{
  for (size_t i = 0; i < e->n; i++)
    {
      free (e->v[i].path);
      free (e->v[i].raw);
    }
  free (e->v);
}

static struct edit *
find_exact (struct edits *e, const char *path)
{
  for (size_t i = 0; i < e->n; i++)
    if (!e->v[i].done && strcmp (e->v[i].path, path) == 0)
      return &e->v[i];
  return NULL;
}

/* An edit below `path` ("a/b" is below "a").  */
static bool
has_below (const struct edits *e, const char *path)
{
  size_t n = strlen (path);
  for (size_t i = 0; i < e->n; i++)
    if (!e->v[i].done && strncmp (e->v[i].path, path, n) == 0 && e->v[i].path[n] == '/')
      return true;
  return false;
}

/* For each member of `obj`, whether it is the one the reader takes (ar_jget: the last of a key
   given more than once).  ar_jparse refuses such an object, so every member is, but an edit made
   to one member while the reader takes another would be undone: the copy never relies on that.
   Sorted, not compared pairwise: an object may have 200,000 members.  */
struct member_ref
{
  const char *key;
  size_t i;
};

static int
cmp_member (const void *a, const void *b)
{
  const struct member_ref *x = a, *y = b;
  int c = strcmp (x->key, y->key);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

static bool *
members_taken (const struct ar_jnode *obj)
{
  size_t n = ar_jlen (obj);
  bool *taken = xzalloc ((n ? n : 1) * sizeof *taken);
  cleanup_free struct member_ref *refs = xmalloc ((n ? n : 1) * sizeof *refs);

  for (size_t i = 0; i < n; i++)
    refs[i] = (struct member_ref){ ar_jkey_at (obj, i), i };
  qsort (refs, n, sizeof *refs, cmp_member);
  for (size_t k = 0; k < n; k++)
    taken[refs[k].i] = k + 1 == n || strcmp (refs[k].key, refs[k + 1].key) != 0;
  return taken;
}

static void
copy_node (struct ar_json *j, const struct ar_jnode *n)
{
  switch (ar_jtype (n))
    {
    case AR_J_NULL:
      ar_json_null (j);
      break;
    case AR_J_BOOL:
      ar_json_bool (j, ar_jbool (n));
      break;
    case AR_J_NUMBER:
      ar_json_raw (j, ar_jnum_text (n));
      break;
    case AR_J_STRING:
      ar_json_str (j, ar_jstr (n));
      break;
    case AR_J_ARRAY:
      ar_json_arr_open (j);
      for (size_t i = 0; i < ar_jlen (n); i++)
        copy_node (j, ar_jat (n, i));
      ar_json_arr_close (j);
      break;
    case AR_J_OBJECT:
      {
        cleanup_free bool *taken = members_taken (n);
        ar_json_obj_open (j);
        for (size_t i = 0; i < ar_jlen (n); i++)
          if (taken[i])
            {
              ar_json_key (j, ar_jkey_at (n, i));
              copy_node (j, ar_jat (n, i));
            }
        ar_json_obj_close (j);
      }
      break;
    }
}

/* A value made here, to be spliced into the copy: NULL if the writer refused a call (the
   document's own nesting is capped by the parser, so this is not expected, but an invalid
   piece must never reach the copy).  */
static char *
finish_piece (struct ar_json *j, const char *what, ar_error_t *err)
{
  char *out = NULL;
  return ar_json_finish_checked (j, what, &out, NULL, err) < 0 ? NULL : out;
}

static char *
child_path (const char *path, const char *key)
{
  return path[0] ? xasprintf ("%s/%s", path, key) : xstrdup (key);
}

static void emit_object (struct ar_json *j, const struct ar_jnode *obj, const char *path,
                         struct edits *e);

static void
emit_member (struct ar_json *j, const struct ar_jnode *v, const char *path, struct edits *e)
{
  struct edit *x = find_exact (e, path);

  if (x)
    {
      ar_json_raw (j, x->raw);
      /* Later edits of the same path lose (see profile_apply).  */
      for (size_t i = 0; i < e->n; i++)
        if (strcmp (e->v[i].path, path) == 0)
          e->v[i].done = true;
    }
  else if (has_below (e, path))
    emit_object (j, v && ar_jtype (v) == AR_J_OBJECT ? v : NULL, path, e);
  else
    copy_node (j, v);
}

/* The edits below `path` whose object the document does not have yet.  */
static void
emit_missing (struct ar_json *j, const char *path, struct edits *e)
{
  size_t n = path[0] ? strlen (path) + 1 : 0;

  for (size_t i = 0; i < e->n; i++)
    {
      const char *rest;
      cleanup_free char *key = NULL;
      cleanup_free char *sub = NULL;

      if (e->v[i].done
          || (n && (strncmp (e->v[i].path, path, n - 1) != 0 || e->v[i].path[n - 1] != '/')))
        continue;
      rest = e->v[i].path + n;
      key = xstrndup (rest, strcspn (rest, "/"));
      sub = child_path (path, key);
      ar_json_key (j, key);
      emit_member (j, NULL, sub, e);
    }
}

/* The members of the copy are those the reader takes (members_taken).  A key with a '/' is on no
   edit's path (edit paths are made of config.json's own keys, which have none), so it is copied
   as it is: "linux/resources" is not linux.resources.  */
static void
emit_object (struct ar_json *j, const struct ar_jnode *obj, const char *path, struct edits *e)
{
  cleanup_free bool *taken = obj ? members_taken (obj) : NULL;

  ar_json_obj_open (j);
  for (size_t i = 0; obj && i < ar_jlen (obj); i++)
    {
      const char *key = ar_jkey_at (obj, i);
      cleanup_free char *sub = NULL;

      if (!taken[i])
        continue;
      ar_json_key (j, key);
      if (strchr (key, '/'))
        {
          copy_node (j, ar_jat (obj, i));
          continue;
        }
      sub = child_path (path, key);
      emit_member (j, ar_jat (obj, i), sub, e);
    }
  emit_missing (j, path, e);
  ar_json_obj_close (j);
}

/* The node at a '/' path, or NULL.  */
static const struct ar_jnode *
at (const struct ar_jnode *root, const char *path)
{
  cleanup_free char *copy = xstrdup (path);
  char *save = NULL;
  const struct ar_jnode *n = root;

  for (char *k = strtok_r (copy, "/", &save); k && n; k = strtok_r (NULL, "/", &save))
    n = ar_jtype (n) == AR_J_OBJECT ? ar_jget (n, k) : NULL;
  return n;
}

static void
set_default (struct edits *e, const struct ar_jnode *root, const char *path, char *raw)
{
  const struct ar_jnode *n = at (root, path);

  if (n && ar_jtype (n) != AR_J_NULL)
    free (raw);
  else
    edits_add (e, path, raw);
}

static bool
zero (const struct ar_jnode *n)
{
  const char *t = n && ar_jtype (n) == AR_J_NUMBER ? ar_jnum_text (n) : NULL;
  return t && strspn (t, "-0") == strlen (t);
}

static const char *
ns_type (const struct ar_jnode *ns)
{
  const struct ar_jnode *t = ar_jtype (ns) == AR_J_OBJECT ? ar_jget (ns, "type") : NULL;
  return t ? ar_jstr (t) : NULL;
}

static bool
has_user_ns (const struct ar_jnode *nss)
{
  for (size_t i = 0; nss && ar_jtype (nss) == AR_J_ARRAY && i < ar_jlen (nss); i++)
    {
      const char *t = ns_type (ar_jat (nss, i));
      if (t && strcmp (t, "user") == 0)
        return true;
    }
  return false;
}

/* The config's namespaces, the network one made new (loopback only: a joined one is the host's
   or a pod's network) unless a joined one is kept (profile_edits), a joined IPC one too (a pod's:
   the sandbox shares no System V or POSIX IPC objects with the pod's other containers, and that
   namespace belongs to another user namespace, where the container's root may not mount its
   mqueue) and, unless there is one, a
   new user namespace; pid, ipc, uts, mount and cgroup are added when absent.  */
static char *
agent_namespaces (const struct ar_jnode *nss, bool keep_joined_net, ar_error_t *err)
{
  static const char *const want[] = { "pid", "network", "ipc", "uts", "mount", "cgroup", "user" };
  struct ar_json *j = ar_json_new (NULL);
  bool seen[ARRAY_SIZE (want)] = { false };

  ar_json_arr_open (j);
  for (size_t i = 0; nss && ar_jtype (nss) == AR_J_ARRAY && i < ar_jlen (nss); i++)
    {
      const struct ar_jnode *ns = ar_jat (nss, i);
      const char *t = ns_type (ns);
      bool joined = ar_jtype (ns) == AR_J_OBJECT && ar_jget (ns, "path") != NULL;
      if (t && strcmp (t, "network") == 0 && !(keep_joined_net && joined))
        continue;
      if (t && joined && strcmp (t, "ipc") == 0)
        continue;
      for (size_t k = 0; t && k < ARRAY_SIZE (want); k++)
        seen[k] |= strcmp (t, want[k]) == 0;
      copy_node (j, ns);
    }
  for (size_t k = 0; k < ARRAY_SIZE (want); k++)
    if (!seen[k])
      {
        ar_json_obj_open (j);
        ar_json_kstr (j, "type", want[k]);
        ar_json_obj_close (j);
      }
  ar_json_arr_close (j);
  return finish_piece (j, "config.json: linux.namespaces", err);
}

static char *
id_mapping (void)
{
  return xasprintf ("[{\"containerID\":0,\"hostID\":%d,\"size\":%d}]", PROFILE_AGENT_HOST_ID,
                    PROFILE_AGENT_ID_COUNT);
}

/* The config's paths and `add`, without duplicates.  */
static char *
path_union (const struct ar_jnode *have, const char *const *add, size_t n, const char *what,
            ar_error_t *err)
{
  struct ar_json *j = ar_json_new (NULL);
  size_t m = have && ar_jtype (have) == AR_J_ARRAY ? ar_jlen (have) : 0;

  ar_json_arr_open (j);
  for (size_t i = 0; i < m; i++)
    copy_node (j, ar_jat (have, i));
  for (size_t k = 0; k < n; k++)
    {
      bool dup = false;
      for (size_t i = 0; i < m && !dup; i++)
        dup = ar_jstr (ar_jat (have, i)) && strcmp (ar_jstr (ar_jat (have, i)), add[k]) == 0;
      if (!dup)
        ar_json_str (j, add[k]);
    }
  ar_json_arr_close (j);
  return finish_piece (j, what, err);
}

/* The mounts without cgroup filesystems: a user namespace cannot mount cgroup v1, and the
   container has no business with the host's hierarchy.  */
static char *
agent_mounts (const struct ar_jnode *mounts, ar_error_t *err)
{
  struct ar_json *j = ar_json_new (NULL);

  ar_json_arr_open (j);
  for (size_t i = 0; mounts && ar_jtype (mounts) == AR_J_ARRAY && i < ar_jlen (mounts); i++)
    {
      const struct ar_jnode *m = ar_jat (mounts, i);
      const struct ar_jnode *t = ar_jtype (m) == AR_J_OBJECT ? ar_jget (m, "type") : NULL;
      const char *type = t ? ar_jstr (t) : NULL;
      if (type && (strcmp (type, "cgroup") == 0 || strcmp (type, "cgroup2") == 0))
        continue;
      copy_node (j, m);
    }
  ar_json_arr_close (j);
  return finish_piece (j, "config.json: mounts", err);
}

/* An edit whose value is a piece made above; fails if it could not be made.  */
static int
add_piece (struct edits *e, const char *path, char *raw)
{
  if (raw == NULL)
    return -1;
  edits_add (e, path, raw);
  return 0;
}

static int
agent_edits (struct edits *e, const struct ar_jnode *root, const struct profile_edits *pe,
             ar_error_t *err)
{
  static const char *const masked[] = { "/proc/acpi",
                                        "/proc/asound",
                                        "/proc/kcore",
                                        "/proc/keys",
                                        "/proc/latency_stats",
                                        "/proc/timer_list",
                                        "/proc/timer_stats",
                                        "/proc/sched_debug",
                                        "/proc/scsi",
                                        "/sys/firmware",
                                        "/sys/devices/virtual/powercap" };
  static const char *const readonly[]
      = { "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger" };
  const struct ar_jnode *nss = at (root, "linux/namespaces");

  edits_add (e, "process/capabilities",
             xstrdup ("{\"bounding\":[],\"effective\":[],\"inheritable\":[],\"permitted\":[],"
                      "\"ambient\":[]}"));
  edits_add (e, "process/noNewPrivileges", xstrdup ("true"));
  /* The bundle is read-only all the same: it is the overlay's lower layer; writes go to the
     ephemeral upper layer, which --disk caps.  */
  edits_add (e, "root/readonly", xstrdup ("false"));
  if (!has_user_ns (nss))
    {
      edits_add (e, "linux/uidMappings", id_mapping ());
      edits_add (e, "linux/gidMappings", id_mapping ());
    }
  if (add_piece (e, "linux/namespaces", agent_namespaces (nss, pe->keep_joined_net, err)) < 0
      || add_piece (e, "mounts", agent_mounts (at (root, "mounts"), err)) < 0
      || add_piece (e, "linux/maskedPaths",
                    path_union (at (root, "linux/maskedPaths"), masked, ARRAY_SIZE (masked),
                                "config.json: linux.maskedPaths", err))
             < 0
      || add_piece (e, "linux/readonlyPaths",
                    path_union (at (root, "linux/readonlyPaths"), readonly, ARRAY_SIZE (readonly),
                                "config.json: linux.readonlyPaths", err))
             < 0)
    return -1;
  /* A limit of 0 is none (resources.c, as in runc): the profile's then.  */
  if (zero (at (root, "linux/resources/memory/limit")))
    edits_add (e, "linux/resources/memory/limit", xstrdup ("536870912"));
  else
    set_default (e, root, "linux/resources/memory/limit", xstrdup ("536870912"));
  if (at (root, "linux/resources/cpu/quota") == NULL)
    {
      set_default (e, root, "linux/resources/cpu/quota", xstrdup ("100000"));
      set_default (e, root, "linux/resources/cpu/period", xstrdup ("100000"));
    }
  set_default (e, root, "linux/resources/pids/limit", xstrdup ("256"));
  edits_add (e, "annotations/io.agentrt.profile", xstrdup ("\"agent\""));
  set_default (e, root, "annotations/io.agentrt.ephemeral", xstrdup ("\"true\""));
  /* Below the memory limit: the writable layer is a tmpfs charged to the container's memory,
     so a full disk must be ENOSPC, not an OOM kill (--disk and the annotation still win).  */
  set_default (e, root, "annotations/io.agentrt.disk", xstrdup ("\"256m\""));
  set_default (e, root, "annotations/io.agentrt.timeout", xstrdup ("\"10m\""));
  /* The strict tier: an allowlist of syscalls (policy.h).  Not with --policy, which decides
     (sandbox.c) and is recorded in state.json, not here: a `default` in the annotation would be
     the operator's value, refused when exec checks the annotations again.  */
  if (!pe->policy_flag)
    set_default (e, root, "annotations/io.agentrt.policy", xstrdup ("\"strict\""));
  return 0;
}

bool
profile_edits_any (const struct profile_edits *e)
{
  return e->agent || e->memory.set || e->cpu_quota.set || e->pids.set || e->def_memory.set
         || e->def_cpu_quota.set || e->def_pids.set || e->def_timeout;
}

/* A default where config.json has no value at `path`, or a limit of 0 (none, as in runc).  */
static void
default_limit (struct edits *e, const struct ar_jnode *root, const char *path, struct spec_i64 v)
{
  const struct ar_jnode *n = at (root, path);

  if (v.set && (n == NULL || ar_jtype (n) == AR_J_NULL || zero (n)))
    edits_add (e, path, xasprintf ("%lld", (long long) v.v));
}

/* agentrt.conf's defaults, after the flags (which win) and before the agent profile's.  */
static void
operator_default_edits (struct edits *e, const struct ar_jnode *root,
                        const struct profile_edits *pe)
{
  default_limit (e, root, "linux/resources/memory/limit", pe->def_memory);
  if (pe->def_cpu_quota.set && at (root, "linux/resources/cpu/quota") == NULL)
    {
      edits_add (e, "linux/resources/cpu/quota",
                 xasprintf ("%lld", (long long) pe->def_cpu_quota.v));
      edits_add (e, "linux/resources/cpu/period", xstrdup ("100000"));
    }
  default_limit (e, root, "linux/resources/pids/limit", pe->def_pids);
  /* A duration sandbox_parse_duration took: digits and a unit, nothing to escape.  */
  if (pe->def_timeout)
    set_default (e, root, "annotations/io.agentrt.timeout", xasprintf ("\"%s\"", pe->def_timeout));
}

int
profile_apply (const char *text, const struct profile_edits *pe, char **out, ar_error_t *err)
{
  cleanup_jnode struct ar_jnode *root = NULL;
  struct edits e = { NULL, 0 };
  struct ar_json *j;
  int ret = -1;

  if (ar_jparse (text, "config.json", &root, err) < 0)
    return -1;
  if (ar_jtype (root) != AR_J_OBJECT)
    return ar_make_error (err, EINVAL, "config.json: expected an object");
  /* The flags first: an edit found first wins, and a flag wins over the profile's default.  */
  if (pe->memory.set)
    edits_add (&e, "linux/resources/memory/limit", xasprintf ("%lld", (long long) pe->memory.v));
  if (pe->cpu_quota.set)
    {
      edits_add (&e, "linux/resources/cpu/quota", xasprintf ("%lld", (long long) pe->cpu_quota.v));
      edits_add (&e, "linux/resources/cpu/period", xstrdup ("100000"));
    }
  if (pe->pids.set)
    edits_add (&e, "linux/resources/pids/limit", xasprintf ("%lld", (long long) pe->pids.v));
  operator_default_edits (&e, root, pe);
  if (!pe->agent || agent_edits (&e, root, pe, err) == 0)
    {
      /* Pretty for people (spec --agent, the state directory's copy), but not a large
         config: its indentation alone could take the copy past SPEC_MAX_SIZE.  */
      j = ar_json_new (strlen (text) < PRETTY_MAX ? "  " : NULL);
      emit_object (j, root, "", &e);
      ret = ar_json_finish_checked (j, "config.json", out, NULL, err);
    }
  edits_release (&e);
  return ret;
}

/* [first, first + size) within the ids the agent profile gives away.  */
static bool
ids_given (uint32_t first, uint32_t size)
{
  uint64_t end = (uint64_t) first + (size ? size : 1);
  return first >= PROFILE_HOST_ID_MIN && end <= PROFILE_HOST_ID_END;
}

static int
refuse_ids (const char *where, const char *what, uint32_t first, uint32_t size, ar_error_t *err)
{
  uint64_t last = (uint64_t) first + (size ? size : 1) - 1;
  return ar_make_error (err, 0,
                        "%s: %s %" PRIu32 "-%" PRIu64 ": the agent profile gives a container only "
                        "host ids from %u to %u (below: the host's users; above: the runtime's)",
                        where, what, first, last, PROFILE_HOST_ID_MIN, PROFILE_HOST_ID_END - 1);
}

static int
check_map (const char *where, const struct spec_id_mapping *m, size_t n, bool files,
           ar_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free char *at_i = xasprintf ("%s[%zu]", where, i);
      if (!ids_given (m[i].host_id, m[i].size))
        return refuse_ids (at_i, "host ids", m[i].host_id, m[i].size, err);
      /* An idmapped mount gives the files of these host ids to the container's.  */
      if (files && !ids_given (m[i].container_id, m[i].size))
        return refuse_ids (at_i, "the files of host ids", m[i].container_id, m[i].size, err);
    }
  return 0;
}

int
profile_check_ids (const struct spec *s, ar_error_t *err)
{
  const struct spec_linux *l = &s->linux_;

  if (check_map ("config.json: linux.uidMappings", l->uid_mappings, l->n_uid_mappings, false, err)
          < 0
      || check_map ("config.json: linux.gidMappings", l->gid_mappings, l->n_gid_mappings, false,
                    err)
             < 0)
    return -1;
  for (size_t i = 0; i < s->n_mounts; i++)
    {
      const struct spec_mount *m = &s->mounts[i];
      cleanup_free char *u = xasprintf ("config.json: mounts[%zu].uidMappings", i);
      cleanup_free char *g = xasprintf ("config.json: mounts[%zu].gidMappings", i);
      if (check_map (u, m->uid_mappings, m->n_uid_mappings, true, err) < 0
          || check_map (g, m->gid_mappings, m->n_gid_mappings, true, err) < 0)
        return -1;
    }
  return 0;
}

int
profile_check_hooks (const struct spec *s, bool allowed, ar_error_t *err)
{
  static const int on_host[]
      = { SPEC_HOOK_PRESTART, SPEC_HOOK_CREATE_RUNTIME, SPEC_HOOK_POSTSTART, SPEC_HOOK_POSTSTOP };

  for (size_t i = 0; !allowed && i < ARRAY_SIZE (on_host); i++)
    if (s->hooks[on_host[i]].n > 0)
      return ar_make_error (err, 0,
                            "config.json: hooks.%s: hooks run on the host as root: refused under "
                            "the agent profile (agentrt.conf: agent_hooks = allow)",
                            spec_hook_names[on_host[i]]);
  return 0;
}

/* One map as the kernel shows it to the runtime: host ids relative to the runtime's user
   namespace, whatever the nesting.  An identity map ("0 0 4294967295") is the host's own
   namespace, joined.  */
static int
check_kernel_map (pid_t pid, const char *file, ar_error_t *err)
{
  cleanup_free char *path = xasprintf ("/proc/%d/%s", (int) pid, file);
  cleanup_file FILE *f = fopen (path, "re");
  cleanup_free char *where = NULL;
  uint32_t inside, host, size;
  size_t n = 0;

  if (f == NULL)
    return ar_make_error (err, errno, "open `%s`", path);
  where = xasprintf ("the container's user namespace (%s)", file);
  while (fscanf (f, "%" SCNu32 " %" SCNu32 " %" SCNu32, &inside, &host, &size) == 3)
    {
      n++;
      if (!ids_given (host, size))
        return refuse_ids (where, "maps host ids", host, size, err);
    }
  if (n == 0)
    return ar_make_error (err, 0, "%s: no ids mapped", where);
  return 0;
}

int
profile_check_userns (pid_t pid, ar_error_t *err)
{
  if (check_kernel_map (pid, "uid_map", err) < 0 || check_kernel_map (pid, "gid_map", err) < 0)
    return -1;
  return 0;
}
