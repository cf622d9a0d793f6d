/* The read-only side of the container API (state, list), spec, features and version, and the
   commands whose mechanisms are not built yet.  create, start, run, kill and delete are in
   lifecycle.c.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "runtime/container_internal.h"
#include "build_version.h"
#include "runtime/features.h"
#include "sandbox/profile.h"
#include "sandbox/operator.h"
#include "spec/spec.h"
#include "spec/spec_example.h"
#include "state/journal.h"
#include "state/state.h"
#include "supervisor/supervisor.h"
#include "utils.h"

/* runc's rule: --root, else $XDG_RUNTIME_DIR/agentrt for a non-root user, else /run/agentrt.  */
const char *
container_root (const struct ar_globals *g)
{
  static char xdg[PATH_MAX];
  const char *run = getenv ("XDG_RUNTIME_DIR");

  if (g->root && *g->root)
    return g->root;
  if (geteuid () != 0 && run && *run
      && snprintf (xdg, sizeof xdg, "%s/agentrt", run) < (int) sizeof xdg)
    return xdg;
  return STATE_DEFAULT_ROOT;
}

int
container_operator_load (const struct ar_globals *g, struct operator_conf *out, ar_error_t *err)
{
  return operator_load (g->config ? g->config : OPERATOR_CONFIG_DEFAULT, g->config != NULL, out,
                        err);
}

bool
container_damaged (int rootfd, const char *id, bool locked, const ar_error_t load_err)
{
  if (load_err->status == ENOENT)
    return locked || !state_dir_busy (rootfd, id);
  return load_err->status == 0;
}

char *
container_damage_text (const ar_error_t load_err)
{
  return load_err->status == ENOENT ? xstrdup ("state.json is missing") : ar_error_text (load_err);
}

int
container_load_error (int rootfd, const char *id, bool locked, ar_error_t *load_err,
                      ar_error_t *err)
{
  bool missing = (*load_err)->status == ENOENT;
  cleanup_free char *why = NULL;

  if (!container_damaged (rootfd, id, locked, *load_err))
    {
      if (missing)
        {
          ar_error_release (load_err);
          return ar_make_error (err, 0, "container `%s` does not exist", id);
        }
      *err = steal_ptr (load_err);
      return ar_error_wrap (err, "container `%s`", id);
    }
  why = container_damage_text (*load_err);
  ar_error_release (load_err);
  return ar_make_error (err, 0,
                        "container `%s` is damaged: %s (`delete --force %s` removes what is left "
                        "of it)",
                        id, why, id);
}

int
container_check_not_deleting (int dirfd, const char *id, const char *action, ar_error_t *err)
{
  struct state_journal j;
  bool deleting;

  state_journal_read (dirfd, &j);
  deleting = j.deleting;
  state_journal_release (&j);
  if (deleting)
    return ar_make_error (err, 0, "cannot %s container `%s`: it is being deleted", action, id);
  return 0;
}

/* A start killed after it released the init but before it saved "running" left "created":
   the init no longer waits on the exec fifo (nobody reads it, or start removed it).  */
static void
refresh_started (int dirfd, struct state *s)
{
  int fd;

  if (s->status != STATE_CREATED)
    return;
  fd = openat (dirfd, EXEC_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0)
    close (fd); /* the init reads it still (and writes it, so it sees no end of file) */
  else if (errno == ENXIO || errno == ENOENT)
    s->status = STATE_RUNNING;
}

/* lock: LOCK_SH, LOCK_EX, or 0 for none (state.json is replaced atomically, so a reader needs
   no lock and never waits for a create that runs hooks).  */
static int
load (const struct ar_globals *g, const char *id, int lock, int *dirfd_out, struct state **out,
      ar_error_t *err)
{
  cleanup_close int rootfd = -1;
  cleanup_close int dirfd = -1;
  ar_error_t lerr = NULL;

  if (state_check_id (id, err) < 0 || state_root_check (container_root (g), err) < 0)
    return -1;
  rootfd = open (container_root (g), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0 && errno == ENOENT)
    return ar_make_error (err, 0, "container `%s` does not exist", id);
  if (rootfd < 0)
    return ar_make_error (err, errno, "open state root `%s`", container_root (g));
  dirfd
      = lock ? state_dir_lock (rootfd, id, lock == LOCK_EX, err) : state_dir_open (rootfd, id, err);
  if (dirfd < 0)
    return -1;
  if (state_load (dirfd, id, out, &lerr) < 0)
    return container_load_error (rootfd, id, lock != 0, &lerr, err);
  state_refresh (*out);
  refresh_started (dirfd, *out);
  if (supervisor_check (dirfd, *out, lock != 0))
    state_refresh (*out);
  if (dirfd_out)
    *dirfd_out = steal_fd (&dirfd);
  return 0;
}

int
container_load_locked (const struct ar_globals *g, const char *id, bool exclusive, int *dirfd_out,
                       struct state **out, ar_error_t *err)
{
  return load (g, id, exclusive ? LOCK_EX : LOCK_SH, dirfd_out, out, err);
}

/* The supervisor counts alerts in ROOT/ID/audit.alerts; state shows the count as an
   annotation, so an engine or a person sees an escape attempt without reading the log.  */
static void
annotate_alerts (int dirfd, struct state *s)
{
  cleanup_close int fd = -1;
  char buf[32];
  ssize_t n;
  long long v = 0;
  struct spec_kv *items;

  /* With --platform none only a deadline keeper counts any.  */
  if (s->platform == NULL || (strcmp (s->platform, "none") == 0 && s->sv_pid <= 0))
    return;
  /* O_NONBLOCK: the files the supervisor leaves here are regular; anything else must not
     block `state` or `list`.  */
  fd = openat (dirfd, SUPERVISOR_ALERTS_FILE, AR_O_READ_FILE | O_NOFOLLOW);
  if (fd >= 0 && (n = read (fd, buf, sizeof buf - 1)) > 0)
    {
      buf[n] = '\0';
      buf[strcspn (buf, "\n")] = '\0';
      if (!ar_parse_int64 (buf, 0, LLONG_MAX, &v))
        v = 0;
    }
  items = xrealloc (s->annotations.items, (s->annotations.n + 1) * sizeof *items);
  items[s->annotations.n].key = xstrdup ("io.agentrt.audit.alerts");
  items[s->annotations.n].value = xasprintf ("%lld", v);
  s->annotations.items = items;
  s->annotations.n++;
}

static void
annotate (struct state *s, const char *key, char *value)
{
  struct spec_kv *items = xrealloc (s->annotations.items, (s->annotations.n + 1) * sizeof *items);

  items[s->annotations.n].key = xstrdup (key);
  items[s->annotations.n].value = value;
  s->annotations.items = items;
  s->annotations.n++;
}

/* Why the supervisor killed the container (a deadline), in ROOT/ID/stop.reason: the watchdog
   writes it there, not into state.json, because state.json is the runtime's, under the
   container's lock, which a supervisor must never wait for.  */
static void
annotate_stop_reason (int dirfd, struct state *s)
{
  cleanup_close int fd = openat (dirfd, SUPERVISOR_STOP_REASON_FILE, AR_O_READ_FILE | O_NOFOLLOW);
  char buf[64];
  ssize_t n;

  if (fd < 0 || (n = read (fd, buf, sizeof buf - 1)) <= 0)
    return;
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  if (buf[0])
    annotate (s, "io.agentrt.stop.reason", xstrdup (buf));
}

int
ar_container_state (const struct ar_globals *g, const char *id, char **json, ar_error_t *err)
{
  cleanup_state struct state *s = NULL;
  cleanup_close int dirfd = -1;

  if (load (g, id, 0, &dirfd, &s, err) < 0)
    return -1;
  annotate_alerts (dirfd, s);
  annotate_stop_reason (dirfd, s);
  *json = state_to_oci_json (s, "  ");
  return 0;
}

int
ar_container_unsupported (const struct ar_globals *g, const char *id, const char *cmd,
                          ar_error_t *err)
{
  cleanup_state struct state *s = NULL;

  if (container_load_locked (g, id, false, NULL, &s, err) < 0)
    return -1;
  return ar_make_error (err, ENOSYS, "%s: not supported yet", cmd);
}

static void
fill_info (struct ar_container_info *ci, const struct state *s)
{
  ci->id = xstrdup (s->id);
  ci->pid = s->status == STATE_STOPPED ? 0 : s->pid;
  ci->status = xstrdup (state_status_name (s->status));
  ci->bundle = xstrdup (s->bundle ? s->bundle : "");
  ci->created = xstrdup (s->created ? s->created : "");
  ci->owner = xstrdup (s->owner ? s->owner : "");
  ci->json = state_to_oci_json (s, NULL);
}

static char *
owner_of (uid_t uid)
{
  struct passwd pw, *res = NULL;
  char buf[1024];

  if (getpwuid_r (uid, &pw, buf, sizeof buf, &res) == 0 && res)
    return xstrdup (pw.pw_name);
  return xasprintf ("#%d", (int) uid); /* runc's form for a uid without a name */
}

/* A damaged directory in list: status "unknown", the init's pid if the journal names a live
   one, the directory's owner and birth (or change) time, and what is wrong as the annotation
   io.agentrt.state.damage.  The JSON keeps a healthy entry's shape (created stays a time) for
   the engines' parsers (go-runc reads `created` as a time).  */
static void
fill_damaged (struct ar_container_info *ci, int dirfd, const char *id, const char *why)
{
  cleanup_state struct state *s = xzalloc (sizeof *s);
  struct state_journal j;
  struct statx stx;
  struct timespec t = { 0, 0 };

  s->id = xstrdup (id);
  s->status = STATE_UNKNOWN;
  state_journal_read (dirfd, &j);
  if (j.init_pid > 0 && state_proc_start_time (j.init_pid) == j.init_start)
    s->pid = j.init_pid;
  state_journal_release (&j);
  memset (&stx, 0, sizeof stx);
  if (statx (dirfd, "", AT_EMPTY_PATH, STATX_BTIME | STATX_MTIME | STATX_UID, &stx) == 0)
    {
      struct statx_timestamp b = stx.stx_mask & STATX_BTIME ? stx.stx_btime : stx.stx_mtime;
      t = (struct timespec){ b.tv_sec, b.tv_nsec };
    }
  s->created = ar_time_rfc3339 (&t);
  s->owner = owner_of (stx.stx_uid);
  s->annotations.items = xzalloc (sizeof *s->annotations.items);
  s->annotations.items[0].key = xstrdup ("io.agentrt.state.damage");
  s->annotations.items[0].value = xstrdup (why);
  s->annotations.n = 1;
  fill_info (ci, s);
}

/* One entry of list, or false for a directory with no state.json yet (or no more) that a create
   or a delete holds: it is not a container at this moment.  */
static bool
list_one (int rootfd, const char *id, struct ar_container_info *ci)
{
  cleanup_state struct state *s = NULL;
  cleanup_close int dirfd = state_dir_open (rootfd, id, NULL);
  ar_error_t lerr = NULL;
  cleanup_free char *why = NULL;

  if (dirfd < 0)
    return false; /* deleted meanwhile */
  if (state_load (dirfd, id, &s, &lerr) == 0)
    {
      state_refresh (s);
      refresh_started (dirfd, s);
      if (supervisor_check (dirfd, s, false))
        state_refresh (s);
      fill_info (ci, s);
      return true;
    }
  if (!container_damaged (rootfd, id, false, lerr)
      || faccessat (rootfd, id, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
    {
      ar_error_release (&lerr);
      return false;
    }
  why = container_damage_text (lerr);
  ar_error_release (&lerr);
  fill_damaged (ci, dirfd, id, why);
  return true;
}

int
ar_container_list (const struct ar_globals *g, struct ar_container_info **out, size_t *n,
                   ar_error_t *err)
{
  cleanup_strv char **ids = NULL;
  cleanup_close int rootfd = -1;
  struct ar_container_info *v;
  size_t k = 0;

  *out = NULL;
  *n = 0;
  if (state_root_check (container_root (g), err) < 0)
    return -1;
  rootfd = open (container_root (g), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0 && errno == ENOENT)
    return 0; /* runc lists nothing for a root that was never made */
  if (rootfd < 0)
    return ar_make_error (err, errno, "open state root `%s`", container_root (g));
  if (state_list_ids (rootfd, &ids, err) < 0)
    return -1;
  v = xzalloc ((ar_strv_len (ids) + 1) * sizeof *v);
  for (char **id = ids; *id; id++)
    if (list_one (rootfd, *id, &v[k]))
      k++;
  *out = v;
  *n = k;
  return 0;
}

void
ar_container_info_free (struct ar_container_info *v, size_t n)
{
  for (size_t i = 0; v && i < n; i++)
    {
      free (v[i].id);
      free (v[i].status);
      free (v[i].bundle);
      free (v[i].created);
      free (v[i].owner);
      free (v[i].json);
    }
  free (v);
}

static int
spec_write (const char *bundle, bool rootless, bool agent, ar_error_t *err)
{
  const char *dir = bundle && *bundle ? bundle : ".";
  cleanup_close int dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_free char *text = NULL;
  struct profile_edits pe = { .agent = true };

  if (dirfd < 0)
    return ar_make_error (err, errno, "open bundle `%s`", dir);
  if (faccessat (dirfd, "config.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return ar_make_error (err, EEXIST, "`%s/config.json` exists: remove it first", dir);
  text = spec_example_json (rootless, geteuid (), getegid ());
  if (agent)
    {
      char *edited = NULL;
      if (profile_apply (text, &pe, &edited, err) < 0)
        return -1;
      free (text);
      text = edited;
    }
  if (ar_write_file_atomic (dirfd, "config.json", text, strlen (text), 0644, err) < 0)
    return ar_error_wrap (err, "write `%s/config.json`", dir);
  return 0;
}

int
ar_spec_write (const char *bundle, bool rootless, ar_error_t *err)
{
  return spec_write (bundle, rootless, false, err);
}

int
ar_spec_write_agent (const char *bundle, ar_error_t *err)
{
  return spec_write (bundle, false, true, err);
}

char *
ar_features (void)
{
  return features_json ();
}

char *
ar_version_text (void)
{
  cleanup_free char *scmp = features_libseccomp_version ();
  cleanup_free char *tags = features_version_tags ();

  return xasprintf ("agentrt version %s\ncommit: %s\nspec: %s\nlibseccomp: %s\n%s\n",
                    PACKAGE_VERSION, AR_BUILD_COMMIT, OCI_SPEC_VERSION, scmp, tags);
}

/* The stored config, for the hooks of later commands.  */
int
container_load_config (int dirfd, struct spec **out, ar_error_t *err)
{
  cleanup_close int fd = openat (dirfd, CONFIG_COPY, AR_O_READ_FILE | O_NOFOLLOW);
  cleanup_free char *text = NULL;

  if (fd < 0)
    return ar_make_error (err, errno, "open the container's config");
  if (ar_check_regular (fd, CONFIG_COPY, err) < 0
      || ar_read_fd (fd, CONFIG_COPY, SPEC_MAX_SIZE, &text, NULL, err) < 0)
    return -1;
  return spec_parse (text, "config.json", out, err);
}
