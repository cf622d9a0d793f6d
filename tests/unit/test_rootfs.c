/* rootfs.c and mounts.c.  Without root: the mount option table and in-root path resolution.
   As root: whole container filesystems, each built by a child in a mount namespace of its own
   (made private first, so nothing reaches the host) from a busybox rootfs in /tmp, then checked
   from inside: mounts and their flags, devices, masked and read-only paths, the old root gone,
   and rootfs symlinks aimed at the host that must not lead there.  Children report through
   their exit status; every mount dies with the child's namespace and the parent removes the
   directories, then checks that the host's mount table is what it was.  */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init/mounts.h"
#include "init/rootfs.h"
#include "init/sources.h"
#include "spec/spec.h"
#include "tap.h"
#include "utils.h"

#define BUSYBOX "/bin/busybox"

/* Helpers.  */

static int
fail_err (ar_error_t *err, const char *what)
{
  cleanup_free char *text = *err ? ar_error_text (*err) : xstrdup ("(no error)");

  printf ("# %s: %s\n", what, text);
  ar_error_release (err);
  return -1;
}

/* JSON written with single quotes, for readability.  */
static int
parse_config (const char *sq, struct spec **out)
{
  cleanup_free char *text = tap_json (sq);
  ar_error_t err = NULL;

  if (spec_parse (text, "config.json", out, &err) < 0)
    return fail_err (&err, "spec_parse");
  return 0;
}

static bool
has_word (const char *list, const char *word)
{
  size_t n = strlen (word);

  for (const char *p = list; p && *p;)
    {
      size_t len = strcspn (p, ",");
      if (len == n && strncmp (p, word, n) == 0)
        return true;
      p += len + (p[len] == ',');
    }
  return false;
}

static int
write_text (const char *path, const char *text)
{
  ar_error_t err = NULL;
  cleanup_close int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd < 0 || ar_write_all (fd, text, strlen (text), path, &err) < 0)
    {
      printf ("# write `%s`: %s\n", path, strerror (errno));
      ar_error_release (&err);
      return -1;
    }
  return 0;
}

static char *
read_text (const char *path)
{
  ar_error_t err = NULL;
  char *text = NULL;

  if (ar_read_file (path, 0, &text, NULL, &err) < 0)
    ar_error_release (&err);
  return text;
}

static int
remove_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) remove (path);
  return 0;
}

/* FTW_MOUNT: never cross into a mount, should one have been left by mistake.  */
static void
remove_tree (const char *path)
{
  (void) nftw (path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Every temporary directory made, so that the last test can check that none is left.  */
static char *made[32];
static size_t n_made;

static char *
make_temp_dir (char *template)
{
  if (mkdtemp (template) == NULL)
    return NULL;
  if (n_made < ARRAY_SIZE (made))
    made[n_made++] = xstrdup (template);
  return template;
}

/* The top mount at MP in this process's mountinfo.  */
struct found
{
  const char *mp;
  char *fstype, *options, *super, *root, *optional;
  int count; /* of entries at MP */
};

static void
found_release (struct found *f)
{
  free (f->fstype);
  free (f->options);
  free (f->super);
  free (f->root);
  free (f->optional);
}
#define cleanup_found __attribute__ ((cleanup (found_release)))

static int
found_cb (const struct mounts_info *mi, void *data, ar_error_t *err)
{
  struct found *f = data;

  if (strcmp (mi->mount_point, f->mp) != 0)
    return 0;
  found_release (f);
  f->fstype = xstrdup (mi->fstype);
  f->options = xstrdup (mi->options);
  f->super = xstrdup (mi->super_options);
  f->root = xstrdup (mi->root);
  f->optional = xstrdup (mi->optional);
  f->count++;
  return 0;
}

static int
find_mount (struct found *f, const char *mp)
{
  ar_error_t err = NULL;

  *f = (struct found){ .mp = mp };
  if (mounts_foreach_info (found_cb, f, &err) < 0)
    return fail_err (&err, "mountinfo");
  if (f->count == 0)
    printf ("# no mount on `%s`\n", mp);
  return f->count > 0 ? 0 : -1;
}

/* MP is mounted with type FSTYPE (NULL: any) and every word of OPTS in its options or its
   super options.  */
static int
expect_mount (const char *mp, const char *fstype, const char *const *opts)
{
  cleanup_found struct found f = { 0 };

  if (find_mount (&f, mp) < 0)
    return -1;
  if (fstype && strcmp (f.fstype, fstype) != 0)
    TAP_FAIL ("`%s` is %s, expected %s", mp, f.fstype, fstype);
  for (; opts && *opts; opts++)
    if (!has_word (f.options, *opts) && !has_word (f.super, *opts))
      TAP_FAIL ("`%s` (%s; %s) lacks %s", mp, f.options, f.super, *opts);
  return 0;
}
#define OPTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Fixtures: DIR/bundle holds config-relative files, DIR/rootfs a busybox rootfs.  */

struct fixture
{
  char dir[64];
  char bundle[PATH_MAX];
  char rootfs[PATH_MAX];
};

static int
install_applets (const char *rootfs)
{
  cleanup_free char *cmd = xasprintf ("%s/bin/busybox --list", rootfs);
  cleanup_free char *bin = xasprintf ("%s/bin", rootfs);
  cleanup_close int dirfd = open (bin, O_PATH | O_DIRECTORY | O_CLOEXEC);
  FILE *p = popen (cmd, "r");
  char line[256];
  int n = 0;

  if (p == NULL || dirfd < 0)
    TAP_FAIL ("run `%s`: %s", cmd, strerror (errno));
  while (fgets (line, sizeof line, p))
    {
      line[strcspn (line, "\n")] = '\0';
      if (*line && strcmp (line, "busybox") != 0 && symlinkat ("busybox", dirfd, line) == 0)
        n++;
    }
  pclose (p);
  if (n < 10)
    TAP_FAIL ("only %d busybox applets", n);
  return 0;
}

static int
fixture_setup (struct fixture *f)
{
  static const char *const dirs[] = { "bin", "etc", "proc", "sys", "dev", "tmp", "root" };
  cleanup_free char *exe = NULL;
  cleanup_free char *image = NULL;
  size_t len = 0;
  ar_error_t err = NULL;

  snprintf (f->dir, sizeof f->dir, "/tmp/agentrt-test-rootfs.XXXXXX");
  if (make_temp_dir (f->dir) == NULL)
    TAP_FAIL ("mkdtemp: %s", strerror (errno));
  snprintf (f->bundle, sizeof f->bundle, "%s/bundle", f->dir);
  snprintf (f->rootfs, sizeof f->rootfs, "%s/rootfs", f->dir);
  CHECK (mkdir (f->bundle, 0755) == 0 && mkdir (f->rootfs, 0755) == 0);
  for (size_t i = 0; i < ARRAY_SIZE (dirs); i++)
    {
      cleanup_free char *d = xasprintf ("%s/%s", f->rootfs, dirs[i]);
      CHECK (mkdir (d, 0755) == 0);
    }
  if (ar_read_file (BUSYBOX, 64 << 20, &image, &len, &err) < 0)
    return fail_err (&err, "busybox-static is needed (apt-get install busybox-static)");
  exe = xasprintf ("%s/bin/busybox", f->rootfs);
  {
    cleanup_close int fd = open (exe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    if (fd < 0 || ar_write_all (fd, image, len, exe, &err) < 0)
      return fail_err (&err, "copy busybox");
  }
  return install_applets (f->rootfs);
}

static void
fixture_teardown (struct fixture *f)
{
  if (f->dir[0])
    remove_tree (f->dir);
}
#define cleanup_fixture __attribute__ ((cleanup (fixture_teardown)))

/* Run FN in a child, in a mount namespace of its own whose mounts are all private.  */
typedef int (*child_fn) (struct fixture *f, void *arg);

static int
in_child (child_fn fn, struct fixture *f, void *arg)
{
  int status = 0;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid < 0)
    TAP_FAIL ("fork: %s", strerror (errno));
  if (pid == 0)
    {
      int r = -1;
      /* The runtime hands the init the rootfs as its cwd (process.c).  */
      if (unshare (CLONE_NEWNS) < 0 || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0
          || chdir (f->rootfs) < 0)
        printf ("# private mount namespace: %s\n", strerror (errno));
      else
        r = fn (f, arg);
      fflush (stdout);
      _exit (r == 0 ? 0 : r == 77 ? 77 : 1);
    }
  if (waitpid (pid, &status, 0) < 0 || !WIFEXITED (status))
    TAP_FAIL ("child died: status %#x", status);
  return WEXITSTATUS (status) == 0 ? 0 : WEXITSTATUS (status) == 77 ? 77 : -1;
}

static int
needs_root (void)
{
  if (geteuid () == 0)
    return 0;
  printf ("# needs root\n");
  return 77;
}

static int
build (struct fixture *f, const char *config, bool userns, bool no_pivot)
{
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;
  struct rootfs_ctx c = {
    .bundle = f->bundle, .rootfs = f->rootfs, .userns = userns, .no_pivot = no_pivot, .root_fd = -1
  };
  int r;

  if (parse_config (config, &s) < 0)
    return -1;
  c.spec = s;
  if (rootfs_prepare (&c, &err) < 0)
    return fail_err (&err, "rootfs_prepare");
  r = rootfs_pivot (&c, &err);
  ar_closep (&c.root_fd);
  if (r < 0)
    return fail_err (&err, "rootfs_pivot");
  return 0;
}

/* runc's `runc spec` mounts, masked and read-only paths.  */
#define RUNC_MOUNTS(DEVPTS_GID)                                                               \
  "'mounts': ["                                                                               \
  " { 'destination': '/proc', 'type': 'proc', 'source': 'proc' },"                            \
  " { 'destination': '/dev', 'type': 'tmpfs', 'source': 'tmpfs',"                             \
  "   'options': ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },"                     \
  " { 'destination': '/dev/pts', 'type': 'devpts', 'source': 'devpts',"                       \
  "   'options': ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620'" DEVPTS_GID \
  "] },"                                                                                      \
  " { 'destination': '/dev/shm', 'type': 'tmpfs', 'source': 'shm',"                           \
  "   'options': ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'] },"                \
  " { 'destination': '/dev/mqueue', 'type': 'mqueue', 'source': 'mqueue',"                    \
  "   'options': ['nosuid', 'noexec', 'nodev'] },"                                            \
  " { 'destination': '/sys', 'type': 'sysfs', 'source': 'sysfs',"                             \
  "   'options': ['nosuid', 'noexec', 'nodev', 'ro'] },"                                      \
  " { 'destination': '/sys/fs/cgroup', 'type': 'cgroup', 'source': 'cgroup',"                 \
  "   'options': ['nosuid', 'noexec', 'nodev', 'relatime', 'ro'] }"
#define RUNC_PATHS                                                                         \
  "'maskedPaths': ['/proc/acpi', '/proc/asound', '/proc/kcore', '/proc/keys',"             \
  "  '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug'," \
  "  '/sys/firmware', '/proc/scsi'],"                                                      \
  "'readonlyPaths': ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger']"

/* Option parsing (no root).  */

static int
parse_words (const char *const *words, size_t n, unsigned long *flags, unsigned long *prop,
             unsigned long *set, unsigned long *clr, char **data, ar_error_t *err)
{
  struct spec_strv v = { (char **) words, n };
  return mounts_parse_options (&v, flags, prop, set, clr, data, err);
}
#define PARSE(...)                                                                                 \
  parse_words (OPTS (__VA_ARGS__), ARRAY_SIZE (OPTS (__VA_ARGS__)) - 1, &flags, &prop, &set, &clr, \
               &data, &err)

static int
test_parse_options (void)
{
  unsigned long flags, prop, set, clr;
  ar_error_t err = NULL;
  char *data = NULL;

  CHECK (PARSE ("nosuid", "strictatime", "mode=755", "size=65536k", "ro", "nodev") == 0);
  CHECK (flags == (MS_NOSUID | MS_STRICTATIME | MS_RDONLY | MS_NODEV) && prop == 0);
  CHECK (set == 0 && clr == 0);
  CHECK_STR (data, "mode=755,size=65536k");
  free (steal_ptr (&data));
  CHECK (PARSE ("rbind", "rprivate", "rro", "rnosuid", "tmpcopyup") == 0);
  CHECK (flags == (MS_BIND | MS_REC) && prop == (MS_PRIVATE | MS_REC) && data == NULL);
  CHECK (set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID) && clr == 0);
  CHECK (PARSE ("ro", "noatime", "rw", "relatime", "shared", "slave", "rrw", "rdev") == 0);
  CHECK (flags == MS_RELATIME && prop == MS_SLAVE);
  CHECK (set == 0 && clr == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV));
  CHECK (PARSE ("rnoatime", "bind", "remount", "nosymfollow") == 0);
  CHECK (set == MOUNT_ATTR_NOATIME && clr == MOUNT_ATTR__ATIME);
  CHECK (flags == (MS_BIND | MS_REMOUNT | MS_NOSYMFOLLOW));
  CHECK (PARSE ("defaults") == 0 && flags == 0 && prop == 0 && data == NULL);
  CHECK (mounts_parse_options (NULL, &flags, &prop, &set, &clr, &data, &err) == 0 && flags == 0);
  /* idmap is the runtime's (sources.h): neither a flag nor filesystem data.  */
  CHECK (PARSE ("rbind", "idmap", "mode=1") == 0 && flags == (MS_BIND | MS_REC));
  CHECK_STR (data, "mode=1");
  free (steal_ptr (&data));
  return 0;
}

/* The parser knows every option spec.c lists (and `features` reports).  */
static int
test_options_match_spec (void)
{
  for (const char *const *o = spec_mount_options; *o; o++)
    {
      unsigned long flags, prop, set, clr;
      ar_error_t err = NULL;
      char *data = NULL;
      int r = PARSE (*o);

      if (r < 0 || data != NULL)
        TAP_FAIL ("option `%s`: ret %d, data %s", *o, r, data ? data : "(none)");
      ar_error_release (&err);
      free (data);
    }
  return 0;
}

static int
test_clean_path (void)
{
  static const char *const cases[][2] = {
    { "/a//b/./c/../d", "/a/b/d" },
    { "../../x", "/x" },
    { "", "/" },
    { "/..", "/" },
    { "dev/", "/dev" },
    { "/dev/../../dev", "/dev" },
    { ".", "/" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      cleanup_free char *got = mounts_clean_path (cases[i][0]);
      CHECK_STR (got, cases[i][1]);
    }
  return 0;
}

/* In-root resolution (no root): symlinks aimed at the host stay in the tree.  */

static int
resolve_expect_errno (int rootfd, const char *path, enum mounts_kind kind, int want)
{
  ar_error_t err = NULL;
  int fd = kind == MOUNTS_ANY ? mounts_open_in_root (rootfd, path, &err)
                              : mounts_mkpath_in_root (rootfd, path, kind, &err);

  if (fd >= 0)
    {
      close (fd);
      TAP_FAIL ("`%s` resolved, expected errno %d", path, want);
    }
  if (err->status != want)
    return fail_err (&err, path);
  ar_error_release (&err);
  return 0;
}

/* mkpath PATH in ROOT and check that it made WANT (relative to the root).  */
static int
mkpath_expect (int rootfd, const char *root, const char *path, enum mounts_kind kind,
               const char *want)
{
  ar_error_t err = NULL;
  cleanup_close int fd = mounts_mkpath_in_root (rootfd, path, kind, &err);
  cleanup_free char *where = xasprintf ("%s%s", root, want);
  struct stat a, b;

  if (fd < 0)
    return fail_err (&err, path);
  if (fstat (fd, &a) < 0 || lstat (where, &b) < 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
    TAP_FAIL ("`%s` did not resolve to `%s`", path, where);
  if (kind == MOUNTS_DIR ? !S_ISDIR (b.st_mode) : !S_ISREG (b.st_mode))
    TAP_FAIL ("`%s` has the wrong type", where);
  return 0;
}

static int
make_links (const char *root, const char *const (*links)[2], size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free char *at = xasprintf ("%s/%s", root, links[i][1]);
      if (symlink (links[i][0], at) < 0)
        TAP_FAIL ("symlink `%s`: %s", at, strerror (errno));
    }
  return 0;
}

static int
resolve_checks (int rootfd, const char *root, const char *host)
{
  cleanup_free char *in_host = xasprintf ("%s/x", host);
  cleanup_free char *in_host_file = xasprintf ("%s/file", host);

  if (mkpath_expect (rootfd, root, "/evil/x", MOUNTS_DIR, in_host) < 0
      || mkpath_expect (rootfd, root, "/up/y/z", MOUNTS_DIR, "/up-target/y/z") < 0
      || mkpath_expect (rootfd, root, "/../../../../w", MOUNTS_DIR, "/w") < 0
      || mkpath_expect (rootfd, root, "/etc/hostname", MOUNTS_FILE, in_host_file) < 0
      || mkpath_expect (rootfd, root, "/dangling/q", MOUNTS_DIR, "/etc/nothere/q/q") < 0
      || mkpath_expect (rootfd, root, "/self/x", MOUNTS_DIR, "/proc/self/root/x") < 0
      || mkpath_expect (rootfd, root, "/f/g", MOUNTS_FILE, "/f/g") < 0
      || mkpath_expect (rootfd, root, "/f/.", MOUNTS_DIR, "/f") < 0)
    return -1;
  if (resolve_expect_errno (rootfd, "/loop/x", MOUNTS_DIR, ELOOP) < 0
      || resolve_expect_errno (rootfd, "/loop", MOUNTS_ANY, ELOOP) < 0
      || resolve_expect_errno (rootfd, "/f/g", MOUNTS_DIR, ENOTDIR) < 0
      || resolve_expect_errno (rootfd, "/f", MOUNTS_FILE, EISDIR) < 0
      || resolve_expect_errno (rootfd, "/f/g/h", MOUNTS_DIR, ENOTDIR) < 0
      || resolve_expect_errno (rootfd, "/nothing", MOUNTS_ANY, ENOENT) < 0)
    return -1;
  return 0;
}

static int
test_resolve_in_root (void)
{
  char root[] = "/tmp/agentrt-test-resolve.XXXXXX";
  char host[] = "/tmp/agentrt-host-target.XXXXXX";
  cleanup_free char *up = NULL;
  cleanup_close int rootfd = -1;
  DIR *d;
  int ret, entries = 0;

  CHECK (make_temp_dir (root) != NULL && make_temp_dir (host) != NULL);
  up = xasprintf ("../../../../../../../..%s/../../up-target", host);
  {
    cleanup_free char *etc = xasprintf ("%s/etc", root);
    const char *const links[][2] = { { host, "evil" },
                                     { up, "up" },
                                     { "loop", "loop" },
                                     { "nothere/q", "etc/dangling" },
                                     { "etc/dangling", "dangling" },
                                     { "/proc/self/root", "self" } };
    char hostfile[64];
    snprintf (hostfile, sizeof hostfile, "%s/file", host);
    const char *const file_link[][2] = { { hostfile, "etc/hostname" } };
    CHECK (mkdir (etc, 0755) == 0);
    CHECK (make_links (root, links, ARRAY_SIZE (links)) == 0);
    CHECK (make_links (root, file_link, 1) == 0);
  }
  rootfd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ret = rootfd < 0 ? -1 : resolve_checks (rootfd, root, host);
  /* The links above lead to `host` from the host's view; inside the root nothing leaves it.  */
  if ((d = opendir (host)) != NULL)
    {
      for (struct dirent *e; (e = readdir (d));)
        entries += strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
      closedir (d);
    }
  remove_tree (root);
  remove_tree (host);
  if (entries != 0)
    TAP_FAIL ("%d entries appeared in the host directory `%s`", entries, host);
  return ret;
}

/* A whole container, runc's default spec (root).  */

static int
check_devices (void)
{
  struct stat st;
  char buf[8] = { 1 };
  char link[64];
  cleanup_close int zero = open ("/dev/zero", O_RDONLY | O_CLOEXEC);
  cleanup_close int null = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  static const char *const links[][2]
      = { { "/dev/ptmx", "pts/ptmx" },          { "/dev/fd", "/proc/self/fd" },
          { "/dev/stdin", "/proc/self/fd/0" },  { "/dev/stdout", "/proc/self/fd/1" },
          { "/dev/stderr", "/proc/self/fd/2" }, { "/dev/core", "/proc/kcore" } };

  CHECK (stat ("/dev/null", &st) == 0 && S_ISCHR (st.st_mode) && st.st_rdev == makedev (1, 3));
  CHECK ((st.st_mode & 0777) == 0666);
  CHECK (null >= 0 && write (null, "x", 1) == 1);
  CHECK (zero >= 0 && read (zero, buf, sizeof buf) == sizeof buf && buf[0] == 0 && buf[7] == 0);
  CHECK (stat ("/dev/tty", &st) == 0 && st.st_rdev == makedev (5, 0));
  CHECK (stat ("/dev/urandom", &st) == 0 && st.st_rdev == makedev (1, 9));
  CHECK (stat ("/dev/agentrt-full", &st) == 0 && S_ISCHR (st.st_mode));
  CHECK (st.st_rdev == makedev (1, 7) && (st.st_mode & 07777) == 0600 && st.st_uid == 1000);
  CHECK (stat ("/dev/sub/dir/fifo", &st) == 0 && S_ISFIFO (st.st_mode) && st.st_gid == 7);
  for (size_t i = 0; i < ARRAY_SIZE (links); i++)
    {
      ssize_t n = readlink (links[i][0], link, sizeof link - 1);
      CHECK (n > 0);
      link[n] = '\0';
      CHECK_STR (link, links[i][1]);
    }
  return 0;
}

/* Every mount point is "/", under /proc, /dev or /sys, or one the config added: nothing of
   the old root is left.  */
struct only_ours
{
  const char *extra;
  int bad;
};

static bool
under (const char *path, const char *dir)
{
  size_t n = strlen (dir);
  return strncmp (path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int
only_container_mounts (const struct mounts_info *mi, void *data, ar_error_t *err)
{
  struct only_ours *o = data;

  if (strcmp (mi->mount_point, "/") == 0 || under (mi->mount_point, "/proc")
      || under (mi->mount_point, "/dev") || under (mi->mount_point, "/sys")
      || (o->extra && under (mi->mount_point, o->extra)))
    return 0;
  printf ("# unexpected mount `%s` (%s)\n", mi->mount_point, mi->fstype);
  o->bad++;
  return 0;
}

static int
check_old_root_gone (const struct fixture *f, const char *extra)
{
  cleanup_free char *marker = xasprintf ("%s/host-marker", f->dir);
  cleanup_found struct found root = { 0 };
  struct only_ours o = { .extra = extra };
  ar_error_t err = NULL;

  CHECK (access (marker, F_OK) < 0 && errno == ENOENT);
  CHECK (access (f->rootfs, F_OK) < 0 && errno == ENOENT);
  if (mounts_foreach_info (only_container_mounts, &o, &err) < 0)
    return fail_err (&err, "mountinfo");
  CHECK (o.bad == 0);
  CHECK (find_mount (&root, "/") == 0 && root.count == 1);
  return 0;
}

/* MEMORY's mount shows the container's own memory cgroup, read-only.  */
static int
check_cgroups (const char *memory_root)
{
  cleanup_found struct found mem = { 0 };

  if (expect_mount ("/sys/fs/cgroup", "tmpfs", OPTS ("ro", "nosuid", "nodev", "noexec")) < 0
      || expect_mount ("/sys/fs/cgroup/memory", "cgroup", OPTS ("ro", "nosuid", "memory")) < 0
      || expect_mount ("/sys/fs/cgroup/unified", "cgroup2", OPTS ("ro")) < 0
      || find_mount (&mem, "/sys/fs/cgroup/memory") < 0)
    return -1;
  CHECK_STR (mem.root, memory_root);
  CHECK (access ("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0);
  CHECK (mkdir ("/sys/fs/cgroup/new", 0755) < 0 && errno == EROFS);
  return 0;
}

static int
check_runc_mounts (void)
{
  if (expect_mount ("/", NULL, OPTS ("ro")) < 0 || expect_mount ("/proc", "proc", NULL) < 0
      || expect_mount ("/dev", "tmpfs", OPTS ("nosuid", "mode=755", "size=65536k")) < 0
      || expect_mount ("/dev/pts", "devpts", OPTS ("nosuid", "noexec", "gid=5", "mode=620")) < 0
      || expect_mount ("/dev/shm", "tmpfs", OPTS ("nosuid", "nodev", "noexec")) < 0
      || expect_mount ("/dev/mqueue", "mqueue", OPTS ("nosuid", "nodev", "noexec")) < 0
      || expect_mount ("/sys", "sysfs", OPTS ("ro", "nosuid", "nodev", "noexec")) < 0
      || expect_mount ("/proc/sys", "proc", OPTS ("ro")) < 0
      || expect_mount ("/proc/irq", "proc", OPTS ("ro")) < 0)
    return -1;
  {
    cleanup_found struct found dev = { 0 };
    struct stat st;
    CHECK (find_mount (&dev, "/dev") == 0 && !has_word (dev.options, "relatime"));
    CHECK (stat ("/dev/shm", &st) == 0 && (st.st_mode & 07777) == 01777);
  }
  return 0;
}

/* A masked file reads empty; some kernels have no /proc/kcore, none lacks /proc/keys.  */
static int
check_masked_files (void)
{
  static const char *const files[] = { "/proc/kcore", "/proc/keys", "/proc/timer_list" };
  char buf[16];
  int masked = 0;

  for (size_t i = 0; i < ARRAY_SIZE (files); i++)
    {
      cleanup_close int fd = open (files[i], O_RDONLY | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT)
        continue;
      CHECK (fd >= 0 && read (fd, buf, sizeof buf) == 0);
      if (expect_mount (files[i], "tmpfs", NULL) < 0) /* the /dev tmpfs's null */
        return -1;
      masked++;
    }
  CHECK (masked > 0);
  /* A masked directory is an empty read-only tmpfs.  */
  if (access ("/proc/acpi", F_OK) == 0)
    {
      DIR *d = opendir ("/proc/acpi");
      int entries = 0;
      CHECK (d != NULL);
      for (struct dirent *e; (e = readdir (d));)
        entries += e->d_name[0] != '.';
      closedir (d);
      CHECK (entries == 0);
      return expect_mount ("/proc/acpi", "tmpfs", OPTS ("ro"));
    }
  return 0;
}

static int
check_protected (void)
{
  if (check_masked_files () < 0)
    return -1;
  /* access(W_OK) asks without writing: were it wrong, nothing of the host changes.  */
  CHECK (access ("/proc/sys/kernel/hostname", W_OK) < 0 && errno == EROFS);
  CHECK (access ("/proc/irq", W_OK) < 0 && errno == EROFS);
  CHECK (mkdir ("/agentrt-new", 0755) < 0 && errno == EROFS);
  CHECK (open ("/bin/new", O_WRONLY | O_CREAT | O_CLOEXEC, 0644) < 0 && errno == EROFS);
  CHECK (write_text ("/dev/shm/writable", "yes") == 0);
  if (access ("/sys/firmware", F_OK) == 0)
    return expect_mount ("/sys/firmware", "tmpfs", OPTS ("ro"));
  return 0;
}

/* The workload's view: busybox runs from the new root.  */
static int
check_busybox (void)
{
  static char *const env[] = { "PATH=/bin", NULL };
  static char *const argv[] = { "sh", "-c",
                                "test -c /dev/null && test -L /dev/ptmx && ! touch /x 2>/dev/null"
                                " && [ \"$(pwd)\" = / ] && echo ok > /dev/shm/ok",
                                NULL };
  cleanup_free char *got = NULL;
  int status = 0;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      execve ("/bin/sh", argv, env);
      _exit (127);
    }
  CHECK (pid > 0 && waitpid (pid, &status, 0) == pid);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  got = read_text ("/dev/shm/ok");
  CHECK_STR (got, "ok\n");
  return 0;
}

static char *
own_memory_cgroup (void)
{
  cleanup_free char *text = read_text ("/proc/self/cgroup");
  char *line = text ? strstr (text, ":memory:") : NULL;

  return line ? xstrndup (line + 8, strcspn (line + 8, "\n")) : NULL;
}

static int
runc_default_child (struct fixture *f, void *arg)
{
  const char *config
      = "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs', 'readonly': true }," RUNC_MOUNTS (
          ", 'gid=5'") "], 'linux': { 'devices': ["
                       " { 'path': '/dev/agentrt-full', 'type': 'c', 'major': 1, 'minor': 7, "
                       "'fileMode': 384,"
                       "   'uid': 1000, 'gid': 1000 },"
                       " { 'path': '/dev/sub/dir/fifo', 'type': 'p', 'major': 0, 'minor': 0, "
                       "'gid': 7 } ]," RUNC_PATHS " } }";
  cleanup_free char *memory = own_memory_cgroup ();
  char cwd[PATH_MAX];

  CHECK (memory != NULL);
  if (build (f, config, false, false) < 0 || check_runc_mounts () < 0 || check_devices () < 0
      || check_protected () < 0 || check_cgroups (memory) < 0 || check_old_root_gone (f, NULL) < 0)
    return -1;
  CHECK (getcwd (cwd, sizeof cwd) && strcmp (cwd, "/") == 0);
  return check_busybox ();
}

static int
test_runc_default (void)
{
  cleanup_fixture struct fixture f = { "" };
  cleanup_free char *marker = NULL;

  if (needs_root () != 0)
    return 77;
  if (fixture_setup (&f) < 0)
    return -1;
  marker = xasprintf ("%s/host-marker", f.dir);
  CHECK (write_text (marker, "host") == 0);
  return in_child (runc_default_child, &f, NULL);
}

/* A hostile rootfs: its symlinks aim at a host directory and a host file (CVE-2021-30465).  */

struct hostile
{
  char host[64];     /* the host directory the links aim at */
  char hostfile[96]; /* a file in it */
};

/* From the host's view, while the container's mounts exist: nothing new, nothing mounted.  */
static int
host_untouched (const struct hostile *h)
{
  cleanup_free char *content = read_text (h->hostfile);
  struct stat tmp, dir, file;
  int entries = 0;
  DIR *d = opendir (h->host);

  CHECK (d != NULL);
  for (struct dirent *e; (e = readdir (d));)
    entries += strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
  closedir (d);
  CHECK (entries == 1);
  CHECK_STR (content, "host\n");
  CHECK (stat ("/tmp", &tmp) == 0 && stat (h->host, &dir) == 0 && stat (h->hostfile, &file) == 0);
  CHECK (dir.st_dev == tmp.st_dev && file.st_dev == tmp.st_dev);
  return 0;
}

static int
hostile_links (struct fixture *f, const struct hostile *h)
{
  cleanup_free char *up = xasprintf ("../../../../../../..%s", h->host);
  const char *const links[][2]
      = { { h->host, "evil" }, { up, "up" }, { h->hostfile, "etc/hostname" } };

  return make_links (f->rootfs, links, ARRAY_SIZE (links));
}

static int
hostile_child (struct fixture *f, void *arg)
{
  const struct hostile *h = arg;
  const char *config = "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': ["
                       " { 'destination': '/proc', 'type': 'proc', 'source': 'proc' },"
                       " { 'destination': '/evil/x', 'type': 'tmpfs', 'source': 'tmpfs' },"
                       " { 'destination': '/up/y', 'type': 'tmpfs', 'source': 'tmpfs' },"
                       " { 'destination': '/etc/hostname', 'type': 'bind', 'source': 'hostname',"
                       "   'options': ['bind', 'ro'] } ] }";
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;
  struct rootfs_ctx c = { .bundle = f->bundle, .rootfs = f->rootfs, .root_fd = -1 };
  cleanup_free char *x = xasprintf ("%s/x", h->host);
  cleanup_free char *y = xasprintf ("%s/y", h->host);
  cleanup_free char *name = NULL;
  struct statfs sfs;
  int r;

  if (parse_config (config, &s) < 0)
    return -1;
  c.spec = s;
  if (rootfs_prepare (&c, &err) < 0)
    return fail_err (&err, "rootfs_prepare");
  if (host_untouched (h) < 0 || (r = rootfs_pivot (&c, &err), ar_closep (&c.root_fd), r) < 0)
    return err ? fail_err (&err, "rootfs_pivot") : -1;
  /* Inside, the same paths are the container's own.  */
  CHECK (statfs (x, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC);
  CHECK (statfs (y, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC);
  name = read_text ("/etc/hostname");
  CHECK_STR (name, "container\n");
  CHECK (access ("/etc/hostname", W_OK) < 0 && errno == EROFS);
  return 0;
}

static int
test_hostile_rootfs (void)
{
  cleanup_fixture struct fixture f = { "" };
  struct hostile h = { .host = "/tmp/agentrt-host-target.XXXXXX" };
  cleanup_free char *bundled = NULL;
  int ret;

  if (needs_root () != 0)
    return 77;
  if (fixture_setup (&f) < 0 || make_temp_dir (h.host) == NULL)
    return -1;
  snprintf (h.hostfile, sizeof h.hostfile, "%s/hostname", h.host);
  bundled = xasprintf ("%s/hostname", f.bundle);
  ret = write_text (h.hostfile, "host\n") < 0 || write_text (bundled, "container\n") < 0
                || hostile_links (&f, &h) < 0
            ? -1
            : in_child (hostile_child, &f, &h);
  /* And once the container is gone.  */
  if (ret == 0 && host_untouched (&h) < 0)
    ret = -1;
  remove_tree (h.host);
  return ret;
}

/* Errors name the step and the object, and carry errno.  */

static int
expect_prepare_error (struct fixture *f, const char *mounts, const char *msg, int status)
{
  cleanup_free char *config = xasprintf (
      "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': [%s] }", mounts);
  cleanup_spec struct spec *s = NULL;
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;
  struct rootfs_ctx c = { .bundle = f->bundle, .rootfs = f->rootfs, .root_fd = -1 };
  int r;

  if (parse_config (config, &s) < 0 || chdir (f->rootfs) < 0)
    return -1;
  c.spec = s;
  r = rootfs_prepare (&c, &err);
  ar_closep (&c.root_fd);
  if (r == 0)
    TAP_FAIL ("rootfs_prepare accepted %s", mounts);
  text = ar_error_text (err);
  if (strstr (text, msg) == NULL || err->status != status)
    TAP_FAIL ("got `%s` (status %d), expected `%s` (status %d)", text, err->status, msg, status);
  ar_error_release (&err);
  return 0;
}

static int
errors_child (struct fixture *f, void *arg)
{
  cleanup_spec struct spec *s = NULL;
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;
  struct rootfs_ctx c = { .bundle = f->bundle, .rootfs = f->rootfs, .root_fd = -1 };
  int r;

  if (expect_prepare_error (f, "{ 'destination': '/loop/x', 'type': 'tmpfs' }",
                            "resolve `/loop/x` in rootfs", ELOOP)
          < 0
      || expect_prepare_error (f,
                               "{ 'destination': '/proc', 'type': 'proc' },"
                               "{ 'destination': '/magic/x', 'type': 'tmpfs' }",
                               "resolve `/magic/x` in rootfs", ELOOP)
             < 0
      || expect_prepare_error (f, "{ 'destination': '/mnt', 'type': 'agentrtfs' }",
                               "mount `agentrtfs` on `/mnt`", ENODEV)
             < 0
      || expect_prepare_error (f, "{ 'destination': '/proc/self', 'type': 'tmpfs' }",
                               "is inside /proc", EPERM)
             < 0
      || expect_prepare_error (f, "{ 'destination': '/x', 'type': 'bind', 'source': 'missing' }",
                               "open bind source", ENOENT)
             < 0
      || expect_prepare_error (f, "{ 'destination': '/', 'type': 'tmpfs' }", "rootfs itself",
                               EINVAL)
             < 0)
    return -1;
  /* A directory that is not a mount point can not be pivoted into.  */
  c.rootfs = f->bundle;
  if (parse_config ("{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' } }", &s) < 0)
    return -1;
  c.spec = s;
  c.root_fd = open (f->bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
  r = rootfs_pivot (&c, &err);
  ar_closep (&c.root_fd);
  CHECK (r < 0);
  text = ar_error_text (err);
  /* EBUSY since Linux 5.x (it is on the current root's mount), EINVAL before.  */
  if ((err->status != EINVAL && err->status != EBUSY) || strstr (text, "pivot_root `") == NULL)
    TAP_FAIL ("got `%s` (status %d)", text, err->status);
  ar_error_release (&err);
  return 0;
}

static int
test_errors (void)
{
  cleanup_fixture struct fixture f = { "" };
  const char *const links[][2] = { { "loop", "loop" }, { "/proc/self/root/tmp", "magic" } };

  if (needs_root () != 0)
    return 77;
  if (fixture_setup (&f) < 0 || make_links (f.rootfs, links, ARRAY_SIZE (links)) < 0)
    return -1;
  return in_child (errors_child, &f, NULL);
}

/* --no-pivot and a shared root.  */

static int
no_pivot_child (struct fixture *f, void *arg)
{
  cleanup_found struct found root = { 0 };
  struct stat st;

  if (build (f,
             "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': ["
             " { 'destination': '/proc', 'type': 'proc', 'source': 'proc' },"
             " { 'destination': '/dev', 'type': 'tmpfs', 'source': 'tmpfs' } ],"
             " 'linux': { 'rootfsPropagation': 'rshared' } }",
             false, true)
      < 0)
    return -1;
  CHECK (stat ("/bin/busybox", &st) == 0 && access (f->dir, F_OK) < 0);
  CHECK (stat ("/dev/null", &st) == 0 && st.st_rdev == makedev (1, 3));
  CHECK (find_mount (&root, "/") == 0);
  CHECK (strstr (root.optional, "shared:") != NULL);
  return expect_mount ("/proc", "proc", NULL);
}

static int
test_no_pivot_shared (void)
{
  cleanup_fixture struct fixture f = { "" };

  if (needs_root () != 0)
    return 77;
  if (fixture_setup (&f) < 0)
    return -1;
  return in_child (no_pivot_child, &f, NULL);
}

/* A cgroup namespace: fresh cgroup mounts, rooted at the namespace.  */

static int
cgroupns_child (struct fixture *f, void *arg)
{
  cleanup_found struct found mem = { 0 };

  if (unshare (CLONE_NEWCGROUP) < 0)
    TAP_FAIL ("unshare(CLONE_NEWCGROUP): %s", strerror (errno));
  if (build (f,
             "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': ["
             " { 'destination': '/proc', 'type': 'proc', 'source': 'proc' },"
             " { 'destination': '/sys', 'type': 'sysfs', 'source': 'sysfs', 'options': ['ro'] },"
             " { 'destination': '/sys/fs/cgroup', 'type': 'cgroup', 'source': 'cgroup',"
             "   'options': ['nosuid', 'noexec', 'nodev', 'ro'] } ],"
             " 'linux': { 'namespaces': [ { 'type': 'mount' }, { 'type': 'cgroup' } ] } }",
             false, false)
      < 0)
    return -1;
  CHECK (find_mount (&mem, "/sys/fs/cgroup/memory") == 0);
  CHECK_STR (mem.root, "/");
  CHECK (has_word (mem.options, "ro") && has_word (mem.super, "memory"));
  return expect_mount ("/sys/fs/cgroup/systemd", "cgroup", OPTS ("ro", "name=systemd"));
}

static int
test_cgroupns (void)
{
  cleanup_fixture struct fixture f = { "" };
  struct statfs sfs;

  if (needs_root () != 0)
    return 77;
  if (statfs ("/sys/fs/cgroup", &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
    {
      printf ("# not a cgroup v1 or hybrid host\n");
      return 77;
    }
  if (fixture_setup (&f) < 0)
    return -1;
  return in_child (cgroupns_child, &f, NULL);
}

/* cgroup v2, on this host too: the child mounts cgroup2 on its own /sys/fs/cgroup first.  */

static int
cgroup_v2_child (struct fixture *f, void *arg)
{
  const bool *cgroupns = arg;
  char config[1024];
  cleanup_found struct found cg = { 0 };

  CHECK (mount ("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) == 0);
  if (*cgroupns && unshare (CLONE_NEWCGROUP) < 0)
    TAP_FAIL ("unshare(CLONE_NEWCGROUP): %s", strerror (errno));
  snprintf (config, sizeof config,
            "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': ["
            " { 'destination': '/proc', 'type': 'proc', 'source': 'proc' },"
            " { 'destination': '/sys', 'type': 'sysfs', 'source': 'sysfs', 'options': ['ro'] },"
            " { 'destination': '/sys/fs/cgroup', 'type': 'cgroup', 'source': 'cgroup',"
            "   'options': ['nosuid', 'noexec', 'nodev', 'ro'] } ]%s }",
            *cgroupns ? ", 'linux': { 'namespaces': [ { 'type': 'cgroup' } ] }" : "");
  if (build (f, config, false, false) < 0
      || expect_mount ("/sys/fs/cgroup", "cgroup2", OPTS ("ro", "nosuid", "nodev", "noexec")) < 0
      || find_mount (&cg, "/sys/fs/cgroup") < 0)
    return -1;
  CHECK (!has_word (cg.super, "nsdelegate"));
  CHECK (access ("/sys/fs/cgroup/cgroup.procs", F_OK) == 0);
  CHECK (mkdir ("/sys/fs/cgroup/agentrt-new", 0755) < 0 && errno == EROFS);
  return 0;
}

static int
test_cgroup_v2 (void)
{
  static const bool variants[] = { false, true };

  if (needs_root () != 0)
    return 77;
  for (size_t i = 0; i < ARRAY_SIZE (variants); i++)
    {
      cleanup_fixture struct fixture f = { "" };
      if (fixture_setup (&f) < 0 || in_child (cgroup_v2_child, &f, (void *) &variants[i]) != 0)
        TAP_FAIL ("with%s a cgroup namespace", variants[i] ? "" : "out");
    }
  return 0;
}

/* Bind options: recursive attributes reach submounts, a plain bind leaves them out, a file
   source gets a file target made for it.  */

static int
bind_options_child (struct fixture *f, void *arg)
{
  cleanup_free char *src = xasprintf ("%s/src", f->dir);
  cleanup_free char *sub = xasprintf ("%s/src/sub", f->dir);
  cleanup_free char *file = xasprintf ("%s/src/sub/file", f->dir);
  cleanup_free char *config = xasprintf (
      "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': ["
      " { 'destination': '/proc', 'type': 'proc', 'source': 'proc' },"
      " { 'destination': '/data', 'type': 'bind', 'source': '%s',"
      "   'options': ['rbind', 'rro', 'rnosuid', 'rprivate'] },"
      " { 'destination': '/flat', 'type': 'none', 'source': '%s', 'options': ['bind', 'ro'] },"
      " { 'destination': '/etc/new/resolv.conf', 'source': 'hostname',"
      "   'options': ['bind', 'ro', 'nodev'] } ] }",
      src, src);
  cleanup_free char *got = NULL;
  cleanup_free char *name = NULL;

  CHECK (mkdir (src, 0755) == 0 && mkdir (sub, 0755) == 0);
  CHECK (mount ("tmpfs", sub, "tmpfs", 0, "size=64k") == 0 && write_text (file, "sub\n") == 0);
  if (build (f, config, false, false) < 0 || expect_mount ("/data", NULL, OPTS ("ro", "nosuid")) < 0
      || expect_mount ("/data/sub", "tmpfs", OPTS ("ro", "nosuid")) < 0
      || expect_mount ("/flat", NULL, OPTS ("ro")) < 0
      || expect_mount ("/etc/new/resolv.conf", NULL, OPTS ("ro", "nodev")) < 0)
    return -1;
  got = read_text ("/data/sub/file");
  CHECK_STR (got, "sub\n");
  CHECK (access ("/flat/sub/file", F_OK) < 0 && errno == ENOENT);
  name = read_text ("/etc/new/resolv.conf");
  CHECK_STR (name, "container\n");
  return 0;
}

static int
test_bind_options (void)
{
  cleanup_fixture struct fixture f = { "" };
  cleanup_free char *bundled = NULL;
  struct mount_attr attr = { 0 };

  if (needs_root () != 0)
    return 77;
  if (mount_setattr (-1, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0 && errno == ENOSYS)
    {
      printf ("# no mount_setattr (Linux 5.12; valgrind 3.19 does not know it)\n");
      return 77;
    }
  if (fixture_setup (&f) < 0)
    return -1;
  bundled = xasprintf ("%s/hostname", f.bundle);
  if (write_text (bundled, "container\n") < 0)
    return -1;
  return in_child (bind_options_child, &f, NULL);
}

/* A user namespace: locked flags kept on a bind, devices bound from the host, sysfs bound
   from the host because the container has no network namespace of its own.  */

static int
write_map (pid_t pid, const char *which)
{
  static const char map[] = "0 0 4294967295";
  cleanup_free char *path = xasprintf ("/proc/%d/%s", (int) pid, which);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0 || write (fd, map, sizeof map - 1) != (ssize_t) sizeof map - 1)
    TAP_FAIL ("write `%s`: %s", path, strerror (errno));
  return 0;
}

/* Writes PID's maps once told to, from outside its user namespace (the writer needs
   CAP_SETUID and CAP_SETGID over the parent namespace).  */
static int
map_helper (pid_t pid, int go)
{
  char c;

  if (read (go, &c, 1) != 1)
    return 1; /* unshare failed */
  return write_map (pid, "uid_map") < 0 || write_map (pid, "gid_map") < 0 ? 1 : 0;
}

/* Enter a new user namespace as its root, the whole id range mapped onto the host's.  */
static int
enter_userns (void)
{
  pid_t self = getpid (), helper;
  int go[2], status = 0, e;

  CHECK (pipe2 (go, O_CLOEXEC) == 0);
  fflush (stdout);
  helper = fork ();
  if (helper == 0)
    {
      close (go[1]);
      e = map_helper (self, go[0]);
      fflush (stdout);
      _exit (e);
    }
  close (go[0]);
  e = helper < 0 || unshare (CLONE_NEWUSER) < 0 ? errno : 0;
  if (e == 0 && write (go[1], "x", 1) != 1)
    e = errno;
  close (go[1]);
  if (helper > 0)
    (void) waitpid (helper, &status, 0);
  if (e == EPERM || e == EINVAL || e == ENOSPC)
    {
      printf ("# no user namespace: %s\n", strerror (e));
      return 77;
    }
  CHECK (e == 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
  return 0;
}

static int
userns_container (struct fixture *f)
{
  cleanup_free char *config = xasprintf (
      "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs', 'readonly': true }," RUNC_MOUNTS (
          ", 'gid=5'") ","
                       " { 'destination': '/locked', 'type': 'bind', 'source': '%s/locked',"
                       "   'options': ['rbind', 'nosuid'] } ],"
                       " 'linux': {" RUNC_PATHS " } }",
      f->dir);
  cleanup_free char *data = NULL;
  cleanup_close int null = -1;
  struct stat st;

  if (build (f, config, true, false) < 0)
    return -1;
  /* nosuid was asked; ro, nodev and noexec were locked on the source and are kept.  */
  if (expect_mount ("/locked", "tmpfs", OPTS ("ro", "nosuid", "nodev", "noexec")) < 0
      || expect_mount ("/dev/null", NULL, NULL) < 0
      || expect_mount ("/sys", "sysfs", OPTS ("ro", "nosuid", "nodev", "noexec")) < 0
      || expect_mount ("/proc/sys", "proc", OPTS ("ro")) < 0
      || check_old_root_gone (f, "/locked") < 0)
    return -1;
  data = read_text ("/locked/data");
  CHECK_STR (data, "locked\n");
  null = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  CHECK (null >= 0 && write (null, "x", 1) == 1);
  CHECK (stat ("/dev/null", &st) == 0 && st.st_rdev == makedev (1, 3));
  CHECK (mkdir ("/agentrt-new", 0755) < 0 && errno == EROFS);
  return check_busybox ();
}

/* A tmpfs with nodev, noexec and ro set in the host's namespace: locked in the new one.  */
static int
make_locked_source (struct fixture *f)
{
  cleanup_free char *dir = xasprintf ("%s/locked", f->dir);
  cleanup_free char *file = xasprintf ("%s/locked/data", f->dir);

  CHECK (mkdir (dir, 0755) == 0);
  CHECK (mount ("tmpfs", dir, "tmpfs", MS_NODEV | MS_NOEXEC, "size=64k") == 0);
  CHECK (write_text (file, "locked\n") == 0);
  CHECK (mount (NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | MS_NOEXEC, NULL)
         == 0);
  return 0;
}

static int
userns_child (struct fixture *f, void *arg)
{
  int r = -1, status = 0;
  pid_t pid;

  if (make_locked_source (f) < 0 || (r = enter_userns ()) != 0)
    return r == 77 ? 77 : -1;
  /* Its own mount namespace (so the host's mounts are locked), pid namespace (for proc) and
     IPC namespace (for mqueue); pid 1 of the new pid namespace builds the container.  */
  if (unshare (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC) < 0)
    TAP_FAIL ("unshare: %s", strerror (errno));
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      r = userns_container (f);
      fflush (stdout);
      _exit (r == 0 ? 0 : 1);
    }
  CHECK (pid > 0 && waitpid (pid, &status, 0) == pid);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

static int
test_userns (void)
{
  cleanup_fixture struct fixture f = { "" };

  if (needs_root () != 0)
    return 77;
  if (fixture_setup (&f) < 0)
    return -1;
  return in_child (userns_child, &f, NULL);
}

/* Last: the host's mount table is what it was, and no temporary directory is left.  */
static char *host_mountinfo;

static int
test_host_unchanged (void)
{
  cleanup_free char *now = read_text ("/proc/self/mountinfo");
  int left = 0;

  for (size_t i = 0; i < n_made; i++)
    if (access (made[i], F_OK) == 0 || errno != ENOENT)
      {
        printf ("# `%s` is left\n", made[i]);
        left++;
      }
  CHECK (host_mountinfo != NULL && now != NULL);
  CHECK_STR (now, host_mountinfo);
  CHECK (left == 0);
  return 0;
}

/* The runtime's plan of the bind sources it opens, and runtime-spec 1.2's checks of idmapped
   mounts (sources.h).  */

static int
expect_plan (const char *mounts, bool userns, const char *msg)
{
  cleanup_free char *config = xasprintf (
      "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': [%s] }", mounts);
  cleanup_spec struct spec *s = NULL;
  struct ns_plan ns = { .new_ns = { [SPEC_NS_USER] = userns } };
  struct sources_plan p;
  ar_error_t err = NULL;
  int r;

  for (size_t i = 0; i < SPEC_NS_N; i++)
    ns.join_fd[i] = -1;
  if (parse_config (config, &s) < 0)
    return -1;
  r = sources_plan (s, &ns, "/bundle", &p, &err);
  if (msg == NULL)
    {
      if (r < 0)
        return fail_err (&err, "sources_plan");
      sources_plan_release (&p);
      return 0;
    }
  if (r == 0)
    TAP_FAIL ("sources_plan accepted %s", mounts);
  if (strstr (err->msg, msg) == NULL)
    TAP_FAIL ("got `%s`, expected `%s`", err->msg, msg);
  ar_error_release (&err);
  return 0;
}

static int
test_sources_plan (void)
{
  const char *map = "'uidMappings': [{ 'containerID': 0, 'hostID': 1000, 'size': 1 }]";
  const char *gmap = "'gidMappings': [{ 'containerID': 0, 'hostID': 1000, 'size': 1 }]";
  cleanup_free char *uid_only
      = xasprintf ("{ 'destination': '/a', 'type': 'bind', 'source': '/x', %s }", map);
  cleanup_free char *gid_only
      = xasprintf ("{ 'destination': '/a', 'type': 'bind', 'source': '/x', %s }", gmap);
  cleanup_free char *both
      = xasprintf ("{ 'destination': '/a', 'type': 'bind', 'source': 'x', %s, %s }", map, gmap);
  cleanup_free char *tmpfs = xasprintf (
      "{ 'destination': '/a', 'type': 'tmpfs', 'source': 'tmpfs', %s, %s }", map, gmap);
  cleanup_spec struct spec *s = NULL;
  struct ns_plan ns = { .new_ns = { [SPEC_NS_USER] = true } };
  struct sources_plan p;
  ar_error_t err = NULL;

  CHECK (expect_plan (uid_only, true, "mounts[0] (`/a`): uidMappings needs gidMappings") == 0);
  CHECK (expect_plan (gid_only, true, "mounts[0] (`/a`): gidMappings needs uidMappings") == 0);
  CHECK (expect_plan (tmpfs, true, "supported for bind mounts only") == 0);
  CHECK (
      expect_plan ("{ 'destination': '/a', 'type': 'bind', 'source': '/x', 'options': ['idmap'] }",
                   false, "idmap needs uidMappings and gidMappings, or a user namespace")
      == 0);
  CHECK (expect_plan ("{ 'destination': '/a', 'type': 'bind', 'options': ['rbind', 'ridmap'] }",
                      true, "a bind mount needs a source")
         == 0);
  /* Mappings without a user namespace are enough; the option is not needed (containerd 2.x). */
  CHECK (expect_plan (both, false, NULL) == 0);
  /* What each mount gets: a plain bind under a new user namespace is opened by the runtime,
     a tmpfs is the init's, an idmapped bind is a tree; relative sources are the bundle's.  */
  for (size_t i = 0; i < SPEC_NS_N; i++)
    ns.join_fd[i] = -1;
  if (parse_config (
          "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'mounts': ["
          " { 'destination': '/t', 'type': 'tmpfs' },"
          " { 'destination': '/b', 'type': 'none', 'source': 'rel', 'options': ['rbind'] },"
          " { 'destination': '/i', 'type': 'bind', 'source': '/abs', 'options': ['ridmap'] } ] }",
          &s)
      < 0)
    return -1;
  if (sources_plan (s, &ns, "/bundle", &p, &err) < 0)
    return fail_err (&err, "sources_plan");
  CHECK (p.any && p.at_maps && p.n == 3);
  CHECK (p.mounts[0].kind == SOURCES_NONE);
  CHECK (p.mounts[1].kind == SOURCES_OPEN && p.mounts[1].rbind);
  CHECK_STR (p.mounts[1].path, "/bundle/rel");
  CHECK (p.mounts[2].kind == SOURCES_IDMAP && p.mounts[2].ridmap && !p.mounts[2].rbind);
  sources_plan_release (&p);
  /* A joined user namespace: on a request of their own.  */
  ns.new_ns[SPEC_NS_USER] = false;
  ns.join_fd[SPEC_NS_USER] = 0;
  CHECK (sources_plan (s, &ns, "/bundle", &p, &err) == 0);
  CHECK (p.mounts[1].kind == SOURCES_OPEN && p.mounts[2].kind == SOURCES_IDMAP && !p.at_maps);
  CHECK (p.joined_userns);
  sources_plan_release (&p);
  /* Without a user namespace the init opens its plain binds itself (and ridmap has no
     mapping to take).  */
  ns.join_fd[SPEC_NS_USER] = -1;
  CHECK (sources_plan (s, &ns, "/bundle", &p, &err) < 0 && strstr (err->msg, "mounts[2]"));
  ar_error_release (&err);
  s->n_mounts = 2;
  CHECK (sources_plan (s, &ns, "/bundle", &p, &err) == 0);
  CHECK (!p.any && p.mounts[1].kind == SOURCES_NONE);
  sources_plan_release (&p);
  s->n_mounts = 3;
  return 0;
}

/* The explanation of a path the container's root cannot reach names the first directory that
   stops it, by mode, owner and group.  */
static int
test_explain_access (void)
{
  char dir[] = "/tmp/agentrt-explain.XXXXXX";
  cleanup_free char *path = NULL;
  cleanup_free char *why = NULL;
  cleanup_free char *expect = NULL;
  struct spec_id_mapping own = { 0, getuid (), 1 }, owng = { 0, getgid (), 1 };
  struct spec_id_mapping other = { 0, 100000, 65536 };

  if (mkdtemp (dir) == NULL)
    TAP_FAIL ("mkdtemp: %s", strerror (errno));
  path = xasprintf ("%s/b/rootfs", dir);
  why = sources_explain_access (path, 100000, 100000, &other, 1, &other, 1);
  expect = xasprintf ("`%s` is 0700 ", dir);
  rmdir (dir);
  CHECK (why != NULL && strstr (why, expect) == why);
  CHECK (strstr (why, "; the container's root is host uid 100000") != NULL);
  free (steal_ptr (&why));
  if (mkdir (dir, 0700) < 0)
    TAP_FAIL ("mkdir: %s", strerror (errno));
  /* Its owner may search it; so may a root whose namespace maps its owner and group.  */
  why = sources_explain_access (path, getuid (), 12345, &other, 1, &other, 1);
  CHECK (why == NULL);
  why = sources_explain_access (path, 100000, 100000, &own, 1, &owng, 1);
  CHECK (why == NULL);
  CHECK (chmod (dir, 0701) == 0);
  why = sources_explain_access (path, 100000, 100000, &other, 1, &other, 1);
  rmdir (dir);
  CHECK (why == NULL);
  return 0;
}

int
main (void)
{
  host_mountinfo = read_text ("/proc/self/mountinfo");
  RUN_TEST (test_parse_options);
  RUN_TEST (test_options_match_spec);
  RUN_TEST (test_clean_path);
  RUN_TEST (test_resolve_in_root);
  RUN_TEST (test_runc_default);
  RUN_TEST (test_hostile_rootfs);
  RUN_TEST (test_errors);
  RUN_TEST (test_bind_options);
  RUN_TEST (test_no_pivot_shared);
  RUN_TEST (test_cgroupns);
  RUN_TEST (test_cgroup_v2);
  RUN_TEST (test_userns);
  RUN_TEST (test_host_unchanged);
  RUN_TEST (test_sources_plan);
  RUN_TEST (test_explain_access);
  free (host_mountinfo);
  for (size_t i = 0; i < n_made; i++)
    free (made[i]);
  TAP_END ();
}
