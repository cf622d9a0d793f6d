/* State directories under --root: ROOT/ID/state.json plus whatever later layers keep there
   (exec fifo, supervisor socket).  Locking is flock(2) on the directory fd itself, so the lock
   disappears with the process that held it and never needs cleaning up.  */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "state/state.h"
#include "utils.h"

static const char *const status_names[] = {
  [STATE_CREATING] = "creating", [STATE_CREATED] = "created", [STATE_RUNNING] = "running",
  [STATE_PAUSED] = "paused",     [STATE_STOPPED] = "stopped", [STATE_UNKNOWN] = "unknown",
};

const char *
state_status_name (enum state_status s)
{
  return (unsigned) s < ARRAY_SIZE (status_names) ? status_names[s] : "unknown";
}

int
state_status_from_name (const char *name, enum state_status *out)
{
  for (size_t i = 0; i < ARRAY_SIZE (status_names); i++)
    if (i != STATE_UNKNOWN && strcmp (name, status_names[i]) == 0)
      {
        *out = (enum state_status) i;
        return 0;
      }
  return -1;
}

void
state_free (struct state *s)
{
  if (s == NULL)
    return;
  free (s->id);
  free (s->bundle);
  free (s->rootfs);
  free (s->created);
  free (s->owner);
  free (s->platform);
  free (s->policy);
  free (s->audit_log);
  ar_strv_free (s->cgroup_dirs);
  free (s->systemd_unit);
  spec_map_clear (&s->annotations);
  free (s);
}

void
state_freep (void *p)
{
  state_free (*(struct state **) p);
}

static bool
id_char_ok (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
         || c == '+' || c == '-' || c == '.';
}

int
state_check_id (const char *id, ar_error_t *err)
{
  size_t len = id ? strlen (id) : 0;

  if (len == 0)
    return ar_make_error (err, 0, "container id must not be empty");
  if (len > STATE_ID_MAX)
    return ar_make_error (err, 0, "container id is longer than %d bytes", STATE_ID_MAX);
  if (strcmp (id, ".") == 0 || strcmp (id, "..") == 0)
    return ar_make_error (err, 0, "invalid container id `%s`", id);
  for (const char *p = id; *p; p++)
    if (!id_char_ok (*p))
      return ar_make_error (err, 0, "invalid container id `%s`: only [A-Za-z0-9_+.-] are allowed",
                            id);
  return 0;
}

static int
mkdir_parents (const char *path, mode_t mode, ar_error_t *err)
{
  cleanup_free char *p = xstrdup (path);

  for (char *s = p + 1; *s; s++)
    {
      if (*s != '/')
        continue;
      *s = '\0';
      if (mkdir (p, mode) < 0 && errno != EEXIST)
        return ar_make_error (err, errno, "mkdir `%s`", p);
      *s = '/';
    }
  if (mkdir (p, mode) < 0 && errno != EEXIST)
    return ar_make_error (err, errno, "mkdir `%s`", p);
  return 0;
}

static bool
owner_ok (const struct stat *st)
{
  return st->st_uid == 0 || st->st_uid == geteuid ();
}

/* One component of the root's path, `p`: a symlink must be root's (or ours), and the directory
   it is or leads to must be too and writable by nobody else, but with the sticky bit (/tmp),
   where others cannot move what we own.  */
static int
check_component (const char *p, ar_error_t *err)
{
  struct stat st;

  if (lstat (p, &st) < 0)
    return errno == ENOENT ? 0 : ar_make_error (err, errno, "state root: stat `%s`", p);
  if (S_ISLNK (st.st_mode) && !owner_ok (&st))
    return ar_make_error (err, EPERM, "state root: `%s` is a symlink of uid %u, not root's", p,
                          (unsigned) st.st_uid);
  if (stat (p, &st) < 0)
    return errno == ENOENT ? 0 : ar_make_error (err, errno, "state root: stat `%s`", p);
  if (!S_ISDIR (st.st_mode))
    return ar_make_error (err, ENOTDIR, "state root: `%s` is not a directory", p);
  if (!owner_ok (&st))
    return ar_make_error (err, EPERM, "state root: `%s` belongs to uid %u, not root", p,
                          (unsigned) st.st_uid);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    return ar_make_error (err, EPERM, "state root: `%s` is writable by group or others", p);
  return 0;
}

/* The journal (journal.h) tells delete which cgroups to kill and remove, and state.json which
   processes are the container's: whoever could replace a directory on the way to them could
   point those commands at anything.  Every component of the path, as given, is checked.  */
int
state_root_check (const char *root, ar_error_t *err)
{
  cleanup_free char *p = xstrdup (root);

  for (char *s = p + 1; *s; s++)
    if (*s == '/')
      {
        *s = '\0';
        if (check_component (p, err) < 0)
          return -1;
        *s = '/';
      }
  return check_component (p, err);
}

int
state_root_open (const char *root, bool create, ar_error_t *err)
{
  int fd;

  if (state_root_check (root, err) < 0)
    return -1;
  if (create && mkdir_parents (root, 0700, err) < 0)
    return ar_error_wrap (err, "create state root");
  if (create && state_root_check (root, err) < 0)
    return -1;
  fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "open state root `%s`", root);
  return fd;
}

static int
lock_dir_fd (int fd, const char *id, bool exclusive, ar_error_t *err)
{
  struct stat st;

  while (flock (fd, exclusive ? LOCK_EX : LOCK_SH) < 0)
    if (errno != EINTR)
      return ar_make_error (err, errno, "lock state of container `%s`", id);
  /* A concurrent delete may have removed the directory while we waited for its lock.  */
  if (fstat (fd, &st) < 0)
    return ar_make_error (err, errno, "stat state of container `%s`", id);
  if (st.st_nlink == 0)
    return ar_make_error (err, 0, "container `%s` does not exist", id);
  return 0;
}

int
state_dir_create (int rootfd, const char *id, ar_error_t *err)
{
  cleanup_close int fd = -1;

  if (mkdirat (rootfd, id, 0700) < 0)
    {
      if (errno == EEXIST)
        return ar_make_error (err, 0, "container `%s` already exists", id);
      return ar_make_error (err, errno, "create state directory for `%s`", id);
    }
  fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || lock_dir_fd (fd, id, true, err) < 0)
    {
      if (fd < 0)
        ar_make_error (err, errno, "open state directory for `%s`", id);
      (void) unlinkat (rootfd, id, AT_REMOVEDIR);
      return -1;
    }
  return steal_fd (&fd);
}

int
state_dir_open (int rootfd, const char *id, ar_error_t *err)
{
  int fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

  if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
    return ar_make_error (err, 0, "container `%s` does not exist", id);
  if (fd < 0)
    return ar_make_error (err, errno, "open state of container `%s`", id);
  return fd;
}

int
state_dir_lock (int rootfd, const char *id, bool exclusive, ar_error_t *err)
{
  cleanup_close int fd = state_dir_open (rootfd, id, err);

  if (fd < 0 || lock_dir_fd (fd, id, exclusive, err) < 0)
    return -1;
  return steal_fd (&fd);
}

/* d_type is DT_UNKNOWN on some filesystems: ask then.  */
static bool
is_dir_at (int dirfd, const struct dirent *de)
{
  struct stat st;

  if (de->d_type != DT_UNKNOWN)
    return de->d_type == DT_DIR;
  return fstatat (dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (st.st_mode);
}

static int
remove_tree_at (int parentfd, const char *name, ar_error_t *err)
{
  cleanup_close int fd = openat (parentfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  DIR *d;
  struct dirent *de;
  int ret = 0;

  if (fd < 0)
    return errno == ENOENT ? 0 : ar_make_error (err, errno, "open `%s`", name);
  d = fdopendir (steal_fd (&fd));
  if (d == NULL)
    return ar_make_error (err, errno, "read directory `%s`", name);
  while (ret == 0 && (de = readdir (d)) != NULL)
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (is_dir_at (dirfd (d), de))
        ret = remove_tree_at (dirfd (d), de->d_name, err);
      else if (unlinkat (dirfd (d), de->d_name, 0) < 0 && errno != ENOENT)
        ret = ar_make_error (err, errno, "remove `%s/%s`", name, de->d_name);
    }
  closedir (d);
  if (ret == 0 && unlinkat (parentfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    ret = ar_make_error (err, errno, "remove directory `%s`", name);
  return ret;
}

int
state_dir_remove (int rootfd, const char *id, ar_error_t *err)
{
  if (remove_tree_at (rootfd, id, err) < 0)
    return ar_error_wrap (err, "remove state of container `%s`", id);
  return 0;
}

static void
write_state_fields (struct ar_json *j, const struct state *s, bool internal)
{
  bool stopped = s->status == STATE_STOPPED;

  ar_json_kstr (j, "ociVersion", OCI_SPEC_VERSION);
  ar_json_kstr (j, "id", s->id);
  ar_json_kint (j, "pid", stopped && !internal ? 0 : s->pid);
  ar_json_kstr (j, "status", state_status_name (s->status));
  ar_json_kstr (j, "bundle", s->bundle ? s->bundle : "");
  ar_json_kstr (j, "rootfs", s->rootfs ? s->rootfs : "");
  ar_json_kstr (j, "created", s->created ? s->created : "");
  ar_json_kstr (j, "owner", s->owner ? s->owner : "");
  if (s->annotations.n > 0)
    {
      ar_json_key (j, "annotations");
      ar_json_obj_open (j);
      for (size_t i = 0; i < s->annotations.n; i++)
        ar_json_kstr (j, s->annotations.items[i].key, s->annotations.items[i].value);
      ar_json_obj_close (j);
    }
  if (internal)
    {
      ar_json_key (j, "pidStartTime");
      ar_json_uint (j, s->pid_start);
      ar_json_kbool (j, "ownPidNamespace", s->own_pidns);
      if (s->platform)
        ar_json_kstr (j, "platform", s->platform);
      if (s->policy)
        ar_json_kstr (j, "policy", s->policy);
      if (s->sv_pid > 0)
        {
          ar_json_kint (j, "supervisorPid", s->sv_pid);
          ar_json_key (j, "supervisorStartTime");
          ar_json_uint (j, s->sv_start);
          ar_json_kint (j, "supervisorWorkerPid", s->sv_worker);
          ar_json_key (j, "supervisorWorkerStartTime");
          ar_json_uint (j, s->sv_worker_start);
        }
      if (s->audit_log)
        ar_json_kstr (j, "auditLog", s->audit_log);
      if (s->cgroup_dirs)
        {
          ar_json_key (j, "cgroupPaths");
          ar_json_strv (j, (const char *const *) s->cgroup_dirs, ar_strv_len (s->cgroup_dirs));
          ar_json_kstr (j, "cgroupDriver", s->systemd_unit ? "systemd" : "cgroupfs");
        }
      if (s->systemd_unit)
        ar_json_kstr (j, "systemdUnit", s->systemd_unit);
    }
}

char *
state_to_oci_json (const struct state *s, const char *indent)
{
  struct ar_json *j = ar_json_new (indent);

  ar_json_obj_open (j);
  write_state_fields (j, s, false);
  ar_json_obj_close (j);
  return ar_json_finish (j, NULL);
}

int
state_save (int dirfd, const struct state *s, ar_error_t *err)
{
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *text = NULL;
  size_t len = 0;

  ar_json_obj_open (j);
  write_state_fields (j, s, true);
  ar_json_obj_close (j);
  if (ar_json_finish_checked (j, "state.json", &text, &len, err) < 0)
    return ar_error_wrap (err, "save state of container `%s`", s->id);
  if (len > STATE_MAX_SIZE)
    return ar_make_error (err, 0, "save state of container `%s`: state.json: larger than %u bytes",
                          s->id, STATE_MAX_SIZE);
  if (ar_rewrite_file (dirfd, "state.json", text, len, 0600, err) < 0)
    return ar_error_wrap (err, "save state of container `%s`", s->id);
  return 0;
}

static char *
dup_member (const struct ar_jnode *root, const char *key)
{
  const char *v = ar_jstr (ar_jget (root, key));
  return v ? xstrdup (v) : NULL;
}

static char **
strv_member (const struct ar_jnode *root, const char *key)
{
  const struct ar_jnode *a = ar_jget (root, key);
  size_t n = ar_jlen (a);
  char **v;

  if (a == NULL || ar_jtype (a) != AR_J_ARRAY)
    return NULL;
  v = xzalloc ((n + 1) * sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = xstrdup (ar_jstr (ar_jat (a, i)) ? ar_jstr (ar_jat (a, i)) : "");
  return v;
}

static unsigned long long
num_member (const struct ar_jnode *root, const char *key)
{
  const char *t = ar_jnum_text (ar_jget (root, key));
  return t ? strtoull (t, NULL, 10) : 0;
}

static void
load_annotations (const struct ar_jnode *obj, struct spec_map *m)
{
  size_t n = ar_jlen (obj);

  if (ar_jtype (obj) != AR_J_OBJECT || n == 0)
    return;
  m->items = xzalloc (n * sizeof *m->items);
  for (size_t i = 0; i < n; i++)
    {
      const char *v = ar_jstr (ar_jat (obj, i));
      m->items[m->n].key = xstrdup (ar_jkey_at (obj, i));
      m->items[m->n++].value = xstrdup (v ? v : "");
    }
}

int
state_load (int dirfd, const char *id, struct state **out, ar_error_t *err)
{
  cleanup_close int fd = openat (dirfd, "state.json", AR_O_READ_FILE | O_NOFOLLOW);
  cleanup_free char *text = NULL;
  cleanup_jnode struct ar_jnode *root = NULL;
  cleanup_state struct state *s = NULL;
  const char *status, *driver;

  if (fd < 0)
    return ar_make_error (err, errno, "open state.json");
  if (ar_check_regular (fd, "state.json", err) < 0
      || ar_read_fd (fd, "state.json", STATE_MAX_SIZE, &text, NULL, err) < 0
      || ar_jparse (text, "state.json", &root, err) < 0)
    return -1;
  s = xzalloc (sizeof *s);
  s->id = xstrdup (id);
  s->pid = (pid_t) num_member (root, "pid");
  s->pid_start = num_member (root, "pidStartTime");
  s->bundle = dup_member (root, "bundle");
  s->rootfs = dup_member (root, "rootfs");
  s->created = dup_member (root, "created");
  s->owner = dup_member (root, "owner");
  s->own_pidns = ar_jbool (ar_jget (root, "ownPidNamespace"));
  s->platform = dup_member (root, "platform");
  s->policy = dup_member (root, "policy");
  s->sv_pid = (pid_t) num_member (root, "supervisorPid");
  s->sv_start = num_member (root, "supervisorStartTime");
  s->sv_worker = ar_jget (root, "supervisorWorkerPid")
                     ? (pid_t) num_member (root, "supervisorWorkerPid")
                     : -1;
  s->sv_worker_start = num_member (root, "supervisorWorkerStartTime");
  s->audit_log = dup_member (root, "auditLog");
  s->cgroup_dirs = strv_member (root, "cgroupPaths");
  s->systemd_unit = dup_member (root, "systemdUnit");
  driver = ar_jstr (ar_jget (root, "cgroupDriver"));
  if (driver && strcmp (driver, "systemd") == 0 && s->systemd_unit == NULL)
    return ar_make_error (err, 0, "state.json: cgroupDriver systemd without a systemdUnit");
  status = ar_jstr (ar_jget (root, "status"));
  if (status == NULL || state_status_from_name (status, &s->status) < 0)
    return ar_make_error (err, 0, "state.json: no status, or not one of runc's");
  load_annotations (ar_jget (root, "annotations"), &s->annotations);
  *out = steal_ptr (&s);
  return 0;
}

/* Reads /proc/PID/stat: the process state (field 3) and its start time (field 22).  The comm
   field may hold spaces and parentheses, so fields are counted from the last ')'.  */
static int
read_proc_stat (pid_t pid, char *state, unsigned long long *start)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  ssize_t n;
  char *p;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  p = strrchr (buf, ')');
  if (p == NULL || sscanf (p + 1, " %c", state) != 1)
    return -1;
  for (int field = 3; field <= 22 && p; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL || sscanf (p, " %llu", start) != 1)
    return -1;
  return 0;
}

/* The state of a live thread of the process whose leader `pid` is a zombie, 0 if none is.  A
   leader that ended alone (SYS_exit, pthread_exit in main) shows 'Z' while its other threads
   run on: the process, and the container whose init it is, is not over.  */
static char
live_thread_status (pid_t pid)
{
  char path[64], found = 0;
  DIR *d;
  struct dirent *e;

  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  d = opendir (path);
  if (d == NULL)
    return 0;
  while (found == 0 && (e = readdir (d)))
    {
      char st = 0, rel[32], buf[1024];
      cleanup_close int fd = -1;
      long long tid;
      ssize_t n;
      char *p;

      if (!ar_parse_int64 (e->d_name, 1, INT_MAX, &tid) || tid == pid)
        continue;
      snprintf (rel, sizeof rel, "%lld/stat", tid);
      fd = openat (dirfd (d), rel, O_RDONLY | O_CLOEXEC);
      if (fd < 0 || (n = read (fd, buf, sizeof buf - 1)) <= 0)
        continue;
      buf[n] = '\0';
      p = strrchr (buf, ')');
      if (p && sscanf (p + 1, " %c", &st) == 1 && st != 'Z' && st != 'X')
        found = st;
    }
  closedir (d);
  return found;
}

/* The process's state letter, and its start time; 0 when it has exited, whole (a zombie not
   reaped yet: runc calls it stopped too).  */
static char
proc_state (pid_t pid, unsigned long long *start)
{
  char st = 0;

  *start = 0;
  if (pid <= 0 || read_proc_stat (pid, &st, start) < 0)
    return 0;
  if (st == 'Z')
    return live_thread_status (pid);
  return st == 'X' ? 0 : st;
}

unsigned long long
state_proc_start_time (pid_t pid)
{
  unsigned long long start;

  return proc_state (pid, &start) ? start : 0;
}

char
state_proc_status (pid_t pid, unsigned long long start)
{
  unsigned long long t;
  char st = proc_state (pid, &t);

  return t == start ? st : 0;
}

void
state_refresh (struct state *s)
{
  if (s->status == STATE_STOPPED || s->pid <= 0)
    return;
  if (state_proc_start_time (s->pid) != s->pid_start || s->pid_start == 0)
    s->status = STATE_STOPPED;
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

bool
state_dir_busy (int rootfd, const char *id)
{
  cleanup_close int fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

  return fd >= 0 && flock (fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
}

int
state_list_ids (int rootfd, char ***ids, ar_error_t *err)
{
  int fd = openat (rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd < 0 ? NULL : fdopendir (fd);
  cleanup_strv char **v = NULL;
  size_t n = 0;
  struct dirent *de;

  if (d == NULL)
    {
      if (fd >= 0)
        close (fd);
      return ar_make_error (err, errno, "read state root");
    }
  v = xzalloc (sizeof *v);
  while ((de = readdir (d)) != NULL)
    {
      if (!is_dir_at (rootfd, de) || state_check_id (de->d_name, NULL) < 0)
        continue;
      v = xrealloc (v, (n + 2) * sizeof *v);
      v[n++] = xstrdup (de->d_name);
      v[n] = NULL;
    }
  closedir (d);
  qsort (v, n, sizeof *v, cmp_str);
  *ids = steal_ptr (&v);
  return 0;
}
