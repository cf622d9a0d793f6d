/* Unit tests of state.c and of the container API built on it: ids, the state directory, its
   lock, the saved state, the derived status and listing.  Runs without root in a temp dir.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "state/journal.h"
#include "state/state.h"
#include "tap.h"
#include "utils.h"

static char tmp_root[] = "/tmp/agentrt-test-state.XXXXXX";

static bool
err_is (ar_error_t *err, const char *want)
{
  cleanup_free char *text = ar_error_text (*err);
  bool ok = strcmp (text, want) == 0;
  if (!ok)
    printf ("# error `%s`, expected `%s`\n", text, want);
  ar_error_release (err);
  return ok;
}

static int
test_check_id (void)
{
  ar_error_t err = NULL;
  char long_id[STATE_ID_MAX + 2];

  CHECK (state_check_id ("abc-DEF_0.1+x", &err) == 0 && err == NULL);
  CHECK (state_check_id ("", &err) < 0 && err_is (&err, "container id must not be empty"));
  CHECK (state_check_id ("..", &err) < 0 && err_is (&err, "invalid container id `..`"));
  CHECK (state_check_id (".", &err) < 0 && err_is (&err, "invalid container id `.`"));
  CHECK (state_check_id ("a/b", &err) < 0
         && err_is (&err, "invalid container id `a/b`: only [A-Za-z0-9_+.-] are allowed"));
  CHECK (state_check_id ("a b", &err) < 0);
  ar_error_release (&err);
  memset (long_id, 'a', sizeof long_id - 1);
  long_id[sizeof long_id - 1] = '\0';
  CHECK (state_check_id (long_id, &err) < 0
         && err_is (&err, "container id is longer than 255 bytes"));
  long_id[STATE_ID_MAX] = '\0';
  CHECK (state_check_id (long_id, &err) == 0);
  return 0;
}

static struct state *
make_state (const char *id, pid_t pid, unsigned long long start, enum state_status st)
{
  struct state *s = xzalloc (sizeof *s);
  s->id = xstrdup (id);
  s->pid = pid;
  s->pid_start = start;
  s->status = st;
  s->bundle = xstrdup ("/b");
  s->rootfs = xstrdup ("/b/rootfs");
  s->created = xstrdup ("2026-12-01T00:00:00.000000000Z");
  s->owner = xstrdup ("");
  return s;
}

/* Create ROOT/ID with a saved state; returns 0.  */
static int
add_container (int rootfd, const char *id, pid_t pid, unsigned long long start,
               enum state_status st)
{
  ar_error_t err = NULL;
  cleanup_state struct state *s = make_state (id, pid, start, st);
  cleanup_close int fd = state_dir_create (rootfd, id, &err);

  if (fd < 0 || state_save (fd, s, &err) < 0)
    {
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static int
test_create_duplicate (void)
{
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_close int fd = -1;

  CHECK (rootfd >= 0);
  fd = state_dir_create (rootfd, "dup", &err);
  CHECK (fd >= 0);
  CHECK (state_dir_create (rootfd, "dup", &err) < 0
         && err_is (&err, "container `dup` already exists"));
  CHECK (state_dir_remove (rootfd, "dup", &err) == 0);
  CHECK (faccessat (rootfd, "dup", F_OK, 0) < 0 && errno == ENOENT);
  return 0;
}

static int
test_save_load (void)
{
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_state struct state *s = make_state ("rt", 4242, 99, STATE_CREATED);
  cleanup_state struct state *got = NULL;
  cleanup_close int fd = state_dir_create (rootfd, "rt", &err);

  s->annotations.items = xzalloc (sizeof *s->annotations.items);
  s->annotations.items[0].key = xstrdup ("io.agentrt.k");
  s->annotations.items[0].value = xstrdup ("v \"quoted\"");
  s->annotations.n = 1;
  CHECK (fd >= 0 && state_save (fd, s, &err) == 0);
  CHECK (state_load (fd, "rt", &got, &err) == 0);
  CHECK (got->pid == 4242 && got->pid_start == 99 && got->status == STATE_CREATED);
  CHECK_STR (got->bundle, "/b");
  CHECK_STR (got->rootfs, "/b/rootfs");
  CHECK_STR (got->created, "2026-12-01T00:00:00.000000000Z");
  CHECK (got->annotations.n == 1);
  CHECK_STR (got->annotations.items[0].value, "v \"quoted\"");
  /* No supervisor: its worker is not recorded either (-1, as in an older agentrt's state).  */
  CHECK (got->sv_pid == 0 && got->sv_worker == -1);
  state_free (got);
  got = NULL;
  /* A supervisor (with a worker, or without: 0) and its worker, by pid and start time.  */
  s->sv_pid = 77;
  s->sv_start = 7;
  s->sv_worker = 78;
  s->sv_worker_start = 8;
  CHECK (state_save (fd, s, &err) == 0);
  CHECK (state_load (fd, "rt", &got, &err) == 0);
  CHECK (got->sv_pid == 77 && got->sv_start == 7);
  CHECK (got->sv_worker == 78 && got->sv_worker_start == 8);
  state_free (got);
  got = NULL;
  s->sv_worker = 0;
  CHECK (state_save (fd, s, &err) == 0);
  CHECK (state_load (fd, "rt", &got, &err) == 0);
  CHECK (got->sv_worker == 0 && got->systemd_unit == NULL);
  state_free (got);
  got = NULL;
  /* The systemd driver's unit, so that later commands need no --systemd-cgroup.  */
  s->cgroup_dirs = xzalloc (2 * sizeof *s->cgroup_dirs);
  s->cgroup_dirs[0] = xstrdup ("/sys/fs/cgroup/system.slice/agentrt-rt.scope");
  s->systemd_unit = xstrdup ("agentrt-rt.scope");
  CHECK (state_save (fd, s, &err) == 0);
  CHECK (state_load (fd, "rt", &got, &err) == 0);
  CHECK_STR (got->systemd_unit, "agentrt-rt.scope");
  CHECK_STR (got->cgroup_dirs[0], "/sys/fs/cgroup/system.slice/agentrt-rt.scope");
  state_free (got);
  got = NULL;
  {
    cleanup_free char *text = NULL;
    cleanup_free char *path = xasprintf ("%s/rt/state.json", tmp_root);
    CHECK (ar_read_file (path, 1 << 20, &text, NULL, &err) == 0);
    CHECK (strstr (text, "\"cgroupDriver\":\"systemd\"") != NULL);
  }
  CHECK (state_dir_remove (rootfd, "rt", &err) == 0);
  return 0;
}

/* ar_rewrite_file, which state_save uses: each save swaps the file with its companion, so the
   companion holds the save before; a companion that is not a plain file of ours (a directory
   here) makes it fall back to a temporary file and a rename.  */
static int
test_rewrite_file (void)
{
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_free char *text = NULL;
  cleanup_free char *file = xasprintf ("%s/f.json", tmp_root);
  cleanup_free char *next = xasprintf ("%s/.f.json.next", tmp_root);
  struct stat before, after;

  CHECK (rootfd >= 0);
  CHECK (ar_rewrite_file (rootfd, "f.json", "first version", 13, 0600, &err) == 0);
  CHECK (ar_rewrite_file (rootfd, "f.json", "second", 6, 0600, &err) == 0);
  CHECK (ar_read_file (file, 0, &text, NULL, &err) == 0);
  CHECK_STR (text, "second");
  free (text);
  text = NULL;
  CHECK (ar_read_file (next, 0, &text, NULL, &err) == 0);
  CHECK_STR (text, "first version");
  free (text);
  text = NULL;
  /* The third save rewrites the first file in place: no inode is made or freed.  */
  CHECK (fstatat (rootfd, ".f.json.next", &before, 0) == 0);
  CHECK (ar_rewrite_file (rootfd, "f.json", "third", 5, 0600, &err) == 0);
  CHECK (fstatat (rootfd, "f.json", &after, 0) == 0);
  CHECK (after.st_ino == before.st_ino && after.st_size == 5);
  CHECK (unlinkat (rootfd, ".f.json.next", 0) == 0 && mkdirat (rootfd, ".f.json.next", 0700) == 0);
  CHECK (ar_rewrite_file (rootfd, "f.json", "fourth", 6, 0600, &err) == 0);
  CHECK (ar_read_file (file, 0, &text, NULL, &err) == 0);
  CHECK_STR (text, "fourth");
  CHECK (unlinkat (rootfd, ".f.json.next", AT_REMOVEDIR) == 0
         && unlinkat (rootfd, "f.json", 0) == 0);
  return 0;
}

static int
test_oci_json (void)
{
  cleanup_state struct state *s = make_state ("j", 77, 1, STATE_STOPPED);
  cleanup_free char *stopped = state_to_oci_json (s, NULL);
  cleanup_free char *running = NULL;

  /* runc reports pid 0 for a stopped container.  */
  CHECK (strstr (stopped, "\"pid\":0") != NULL);
  CHECK (strstr (stopped, "\"status\":\"stopped\"") != NULL);
  CHECK (strstr (stopped, "\"ociVersion\":\"" OCI_SPEC_VERSION "\"") != NULL);
  CHECK (strstr (stopped, "pidStartTime") == NULL);
  s->status = STATE_RUNNING;
  running = state_to_oci_json (s, "  ");
  CHECK (strstr (running, "\"pid\": 77") != NULL);
  CHECK (strstr (running, "\"bundle\": \"/b\"") != NULL);
  return 0;
}

static int
test_refresh (void)
{
  unsigned long long me = state_proc_start_time (getpid ());
  cleanup_state struct state *live = make_state ("l", getpid (), me, STATE_RUNNING);
  cleanup_state struct state *reused = make_state ("r", getpid (), me + 1, STATE_RUNNING);
  cleanup_state struct state *dead = NULL;
  pid_t child = fork ();

  CHECK (child >= 0);
  if (child == 0)
    _exit (0);
  CHECK (waitpid (child, NULL, 0) == child);
  dead = make_state ("d", child, 1, STATE_CREATED);
  CHECK (me > 0);
  state_refresh (live);
  state_refresh (reused);
  state_refresh (dead);
  CHECK (live->status == STATE_RUNNING);
  CHECK (reused->status == STATE_STOPPED); /* same pid, another process */
  CHECK (dead->status == STATE_STOPPED);
  return 0;
}

static void *
pause_forever (void *arg)
{
  (void) arg;
  for (;;)
    pause ();
  return NULL;
}

/* Is `pid`'s thread group leader a zombie?  */
static bool
leader_zombie (pid_t pid)
{
  cleanup_free char *path = xasprintf ("/proc/%d/stat", (int) pid);
  cleanup_free char *text = NULL;
  char *p;

  if (ar_read_file (path, 4096, &text, NULL, NULL) < 0 || (p = strrchr (text, ')')) == NULL)
    return false;
  return p[1] == ' ' && p[2] == 'Z';
}

/* A process whose main thread has exited alone (SYS_exit) while another runs is live: its
   leader's /proc/PID/stat says Z, but the process, a container's init, is not over.  */
static int
test_refresh_zombie_leader (void)
{
  cleanup_state struct state *s = NULL;
  unsigned long long start;
  bool zombie, live, running;
  char st;
  pid_t child = fork ();

  CHECK (child >= 0);
  if (child == 0)
    {
      pthread_t t;
      if (pthread_create (&t, NULL, pause_forever, NULL) != 0)
        _exit (1);
      for (;;)
        syscall (SYS_exit, 0);
    }
  start = state_proc_start_time (child);
  /* Until the leader is a zombie and its thread asleep in pause: on a loaded machine the
     thread may still be running (R) when the leader has exited.  */
  for (int i = 0; i < 500 && !(leader_zombie (child) && state_proc_status (child, start) == 'S');
       i++)
    usleep (10000);
  zombie = leader_zombie (child);
  live = start > 0 && state_proc_start_time (child) == start;
  st = state_proc_status (child, start);
  s = make_state ("z", child, start, STATE_RUNNING);
  state_refresh (s);
  running = s->status == STATE_RUNNING;
  /* Gone before any check fails: its thread would hold our stdout.  */
  kill (child, SIGKILL);
  CHECK (waitpid (child, NULL, 0) == child);
  CHECK (zombie && live && st == 'S' && running);
  state_refresh (s);
  CHECK (s->status == STATE_STOPPED);
  return 0;
}

static int
test_lock_excludes (void)
{
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_close int held = -1;
  int status = 0;
  pid_t child;

  CHECK (add_container (rootfd, "locked", 0, 0, STATE_STOPPED) == 0);
  held = state_dir_lock (rootfd, "locked", true, &err);
  CHECK (held >= 0);
  child = fork ();
  CHECK (child >= 0);
  if (child == 0)
    {
      int fd = openat (rootfd, "locked", O_RDONLY | O_DIRECTORY);
      _exit (flock (fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK ? 0 : 1);
    }
  CHECK (waitpid (child, &status, 0) == child);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  CHECK (state_dir_remove (rootfd, "locked", &err) == 0);
  CHECK (state_dir_lock (rootfd, "locked", false, &err) < 0
         && err_is (&err, "container `locked` does not exist"));
  return 0;
}

static int
test_list_sorted (void)
{
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_strv char **ids = NULL;

  CHECK (add_container (rootfd, "b2", 0, 0, STATE_STOPPED) == 0);
  CHECK (add_container (rootfd, "a1", 0, 0, STATE_STOPPED) == 0);
  CHECK (mkdirat (rootfd, "half-made", 0700) == 0); /* no state.json: listed, list decides */
  CHECK (mkdirat (rootfd, "not an id", 0700) == 0);
  CHECK (state_list_ids (rootfd, &ids, &err) == 0);
  CHECK (ar_strv_len (ids) == 3);
  CHECK_STR (ids[0], "a1");
  CHECK_STR (ids[1], "b2");
  CHECK_STR (ids[2], "half-made");
  CHECK (unlinkat (rootfd, "not an id", AT_REMOVEDIR) == 0);
  CHECK (unlinkat (rootfd, "half-made", AT_REMOVEDIR) == 0);
  CHECK (state_dir_remove (rootfd, "a1", &err) == 0);
  CHECK (state_dir_remove (rootfd, "b2", &err) == 0);
  return 0;
}

static int
test_api_state_and_delete (void)
{
  struct ar_globals g = { .root = tmp_root };
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_free char *json = NULL;
  struct ar_container_info *v = NULL;
  size_t n = 0;

  CHECK (ar_container_state (&g, "nosuch", &json, &err) < 0
         && err_is (&err, "container `nosuch` does not exist"));
  CHECK (ar_container_delete (&g, "nosuch", false, &err) < 0
         && err_is (&err, "container `nosuch` does not exist"));
  CHECK (ar_container_delete (&g, "nosuch", true, &err) == 0 && err == NULL);
  /* A container whose init has gone is stopped, and delete removes it.  */
  CHECK (add_container (rootfd, "gone", 999999, 5, STATE_RUNNING) == 0);
  CHECK (ar_container_state (&g, "gone", &json, &err) == 0);
  CHECK (strstr (json, "\"status\": \"stopped\"") != NULL);
  CHECK (ar_container_list (&g, &v, &n, &err) == 0 && n == 1);
  CHECK_STR (v[0].status, "stopped");
  ar_container_info_free (v, n);
  CHECK (ar_container_delete (&g, "gone", false, &err) == 0);
  CHECK (faccessat (rootfd, "gone", F_OK, 0) < 0);
  return 0;
}

static int
test_api_refuses_live_delete (void)
{
  struct ar_globals g = { .root = tmp_root };
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);

  CHECK (add_container (rootfd, "live", getpid (), state_proc_start_time (getpid ()), STATE_RUNNING)
         == 0);
  CHECK (ar_container_delete (&g, "live", false, &err) < 0
         && err_is (&err, "cannot delete container `live` that is not stopped: running"));
  CHECK (ar_container_unsupported (&g, "live", "pause", &err) < 0
         && err_is (&err, "pause: not supported yet: Function not implemented"));
  CHECK (state_dir_remove (rootfd, "live", &err) == 0);
  return 0;
}

static int
test_journal (void)
{
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_close int dirfd = state_dir_create (rootfd, "j", &err);
  cleanup_close int fd = -1;
  char *dirs[] = { "/sys/fs/cgroup/pids/agentrt/j", "/sys/fs/cgroup/memory/agentrt/j", NULL };
  char *bad[] = { "/sys/fs/cgroup/a\nb", NULL };
  struct state_journal j;

  CHECK (dirfd >= 0);
  state_journal_read (dirfd, &j);
  CHECK (!j.present && j.cgroup_dirs == NULL && j.init_pid == 0 && !j.deleting);
  fd = state_journal_open (dirfd, &err);
  CHECK (fd >= 0);
  CHECK (state_journal_cgroups (fd, dirs, &err) == 0);
  CHECK (state_journal_cgroups (fd, bad, &err) < 0
         && err_is (&err, "cgroup path `/sys/fs/cgroup/a\nb` holds a newline: Invalid argument"));
  CHECK (state_journal_unit (fd, "agentrt-j.scope", &err) == 0);
  CHECK (state_journal_unit (fd, "a b.scope", &err) < 0
         && err_is (&err, "systemd unit `a b.scope` holds a blank: Invalid argument"));
  CHECK (state_journal_process (fd, "init", 42, 7, &err) == 0);
  CHECK (state_journal_process (fd, "supervisor", 43, 8, &err) == 0);
  /* Lines that do not parse are skipped, and a last line without its newline was cut short.  */
  const char *junk = "init x y\nsupervisor 0 5\ncgroup relative\nunit a b\ndelete";
  CHECK (write (fd, junk, strlen (junk)) == (ssize_t) strlen (junk));
  state_journal_read (dirfd, &j);
  CHECK (j.present && ar_strv_len (j.cgroup_dirs) == 2);
  CHECK_STR (j.cgroup_dirs[1], "/sys/fs/cgroup/memory/agentrt/j");
  CHECK (j.init_pid == 42 && j.init_start == 7 && j.sv_pid == 43 && j.sv_start == 8);
  CHECK_STR (j.unit, "agentrt-j.scope");
  CHECK (!j.deleting);
  state_journal_release (&j);
  CHECK (state_journal_deleting (dirfd, &err) == 0); /* a line of its own after the cut one */
  state_journal_read (dirfd, &j);
  CHECK (j.deleting && ar_strv_len (j.cgroup_dirs) == 2);
  state_journal_release (&j);
  CHECK (state_dir_remove (rootfd, "j", &err) == 0);
  return 0;
}

/* A directory whose state.json is missing (and unlocked) or corrupt: list shows it, state names
   the damage, delete removes it.  */
static int
test_api_damaged (void)
{
  struct ar_globals g = { .root = tmp_root };
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_free char *json = NULL;
  struct ar_container_info *v = NULL;
  size_t n = 0;
  int fd;

  CHECK (mkdirat (rootfd, "missing", 0700) == 0);
  CHECK (add_container (rootfd, "corrupt", 0, 0, STATE_STOPPED) == 0);
  fd = openat (rootfd, "corrupt/state.json", O_WRONLY | O_TRUNC | O_CLOEXEC);
  CHECK (fd >= 0 && write (fd, "{\"id\": ", 7) == 7);
  close (fd);
  CHECK (ar_container_state (&g, "missing", &json, &err) < 0
         && err_is (&err, "container `missing` is damaged: state.json is missing "
                          "(`delete --force missing` removes what is left of it)"));
  CHECK (ar_container_state (&g, "corrupt", &json, &err) < 0);
  CHECK (strstr (err->msg, "container `corrupt` is damaged: state.json: invalid JSON") == err->msg);
  ar_error_release (&err);
  CHECK (ar_container_list (&g, &v, &n, &err) == 0 && n == 2);
  CHECK_STR (v[0].id, "corrupt");
  CHECK_STR (v[0].status, "unknown");
  CHECK (v[0].pid == 0 && strstr (v[0].json, "\"status\":\"unknown\"") != NULL);
  CHECK (strstr (v[0].json, "\"io.agentrt.state.damage\":\"state.json: invalid JSON") != NULL);
  CHECK_STR (v[1].id, "missing");
  CHECK (strstr (v[1].json, "\"io.agentrt.state.damage\":\"state.json is missing\"") != NULL);
  ar_container_info_free (v, n);
  /* Nothing of either runs: delete needs no --force.  */
  CHECK (ar_container_delete (&g, "missing", false, &err) == 0);
  CHECK (ar_container_delete (&g, "corrupt", false, &err) == 0);
  CHECK (faccessat (rootfd, "missing", F_OK, 0) < 0 && faccessat (rootfd, "corrupt", F_OK, 0) < 0);
  return 0;
}

/* While a create holds the lock of a directory without state.json, it is not a container yet:
   state says it does not exist and list leaves it out.  */
static int
test_api_busy_not_damaged (void)
{
  struct ar_globals g = { .root = tmp_root };
  ar_error_t err = NULL;
  cleanup_close int rootfd = state_root_open (tmp_root, true, &err);
  cleanup_close int dirfd = state_dir_create (rootfd, "busy", &err); /* locked */
  cleanup_free char *json = NULL;
  struct ar_container_info *v = NULL;
  size_t n = 7;

  CHECK (dirfd >= 0);
  CHECK (ar_container_state (&g, "busy", &json, &err) < 0
         && err_is (&err, "container `busy` does not exist"));
  CHECK (ar_container_list (&g, &v, &n, &err) == 0 && n == 0);
  ar_container_info_free (v, n);
  CHECK (state_dir_remove (rootfd, "busy", &err) == 0);
  return 0;
}

static int
test_api_list_missing_root (void)
{
  struct ar_globals g = { .root = "/nonexistent/agentrt-root" };
  ar_error_t err = NULL;
  struct ar_container_info *v = NULL;
  size_t n = 7;

  CHECK (ar_container_list (&g, &v, &n, &err) == 0 && n == 0 && v == NULL);
  return 0;
}

int
main (void)
{
  if (mkdtemp (tmp_root) == NULL)
    return 1;
  RUN_TEST (test_check_id);
  RUN_TEST (test_create_duplicate);
  RUN_TEST (test_save_load);
  RUN_TEST (test_rewrite_file);
  RUN_TEST (test_oci_json);
  RUN_TEST (test_refresh);
  RUN_TEST (test_refresh_zombie_leader);
  RUN_TEST (test_lock_excludes);
  RUN_TEST (test_list_sorted);
  RUN_TEST (test_api_state_and_delete);
  RUN_TEST (test_api_refuses_live_delete);
  RUN_TEST (test_journal);
  RUN_TEST (test_api_damaged);
  RUN_TEST (test_api_busy_not_damaged);
  RUN_TEST (test_api_list_missing_root);
  rmdir (tmp_root);
  TAP_END ();
}
