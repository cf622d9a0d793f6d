/* The example configuration: runc's `spec` output (libcontainer/specconv Example), with the
   hostname "agentrt".  The document is written with the JSON writer, so it is always valid, and
   test_spec checks that the parser accepts it.  */
#include <config.h>

#include "json.h"
#include "spec/spec_example.h"
#include "utils.h"

#define V(...) \
  (const char *const[]){ __VA_ARGS__ }, ARRAY_SIZE (((const char *const[]){ __VA_ARGS__ }))

static void
kstrv (struct ar_json *j, const char *key, const char *const *v, size_t n)
{
  ar_json_key (j, key);
  ar_json_strv (j, v, n);
}

static void
write_capabilities (struct ar_json *j)
{
  static const char *const caps[] = { "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" };
  static const char *const sets[] = { "bounding", "effective", "permitted", "ambient" };

  ar_json_key (j, "capabilities");
  ar_json_obj_open (j);
  for (size_t i = 0; i < ARRAY_SIZE (sets); i++)
    kstrv (j, sets[i], caps, ARRAY_SIZE (caps));
  ar_json_obj_close (j);
}

static void
write_process (struct ar_json *j)
{
  ar_json_key (j, "process");
  ar_json_obj_open (j);
  ar_json_kbool (j, "terminal", true);
  ar_json_key (j, "user");
  ar_json_obj_open (j);
  ar_json_kint (j, "uid", 0);
  ar_json_kint (j, "gid", 0);
  ar_json_obj_close (j);
  kstrv (j, "args", V ("sh"));
  kstrv (j, "env",
         V ("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"));
  ar_json_kstr (j, "cwd", "/");
  write_capabilities (j);
  ar_json_key (j, "rlimits");
  ar_json_arr_open (j);
  ar_json_obj_open (j);
  ar_json_kstr (j, "type", "RLIMIT_NOFILE");
  ar_json_kint (j, "hard", 1024);
  ar_json_kint (j, "soft", 1024);
  ar_json_obj_close (j);
  ar_json_arr_close (j);
  ar_json_kbool (j, "noNewPrivileges", true);
  ar_json_obj_close (j);
}

static void
write_mount (struct ar_json *j, const char *dest, const char *type, const char *src,
             const char *const *opts, size_t n)
{
  ar_json_obj_open (j);
  ar_json_kstr (j, "destination", dest);
  ar_json_kstr (j, "type", type);
  ar_json_kstr (j, "source", src);
  if (n > 0)
    kstrv (j, "options", opts, n);
  ar_json_obj_close (j);
}

static void
write_mounts (struct ar_json *j, bool rootless)
{
  ar_json_key (j, "mounts");
  ar_json_arr_open (j);
  write_mount (j, "/proc", "proc", "proc", NULL, 0);
  write_mount (j, "/dev", "tmpfs", "tmpfs", V ("nosuid", "strictatime", "mode=755", "size=65536k"));
  if (rootless)
    write_mount (j, "/dev/pts", "devpts", "devpts",
                 V ("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"));
  else
    write_mount (j, "/dev/pts", "devpts", "devpts",
                 V ("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"));
  write_mount (j, "/dev/shm", "tmpfs", "shm",
               V ("nosuid", "noexec", "nodev", "mode=1777", "size=65536k"));
  write_mount (j, "/dev/mqueue", "mqueue", "mqueue", V ("nosuid", "noexec", "nodev"));
  if (rootless)
    write_mount (j, "/sys", "none", "/sys", V ("rbind", "nosuid", "noexec", "nodev", "ro"));
  else
    {
      write_mount (j, "/sys", "sysfs", "sysfs", V ("nosuid", "noexec", "nodev", "ro"));
      write_mount (j, "/sys/fs/cgroup", "cgroup", "cgroup",
                   V ("nosuid", "noexec", "nodev", "relatime", "ro"));
    }
  ar_json_arr_close (j);
}

static void
write_id_mapping (struct ar_json *j, const char *key, unsigned host_id)
{
  ar_json_key (j, key);
  ar_json_arr_open (j);
  ar_json_obj_open (j);
  ar_json_kint (j, "containerID", 0);
  ar_json_kint (j, "hostID", host_id);
  ar_json_kint (j, "size", 1);
  ar_json_obj_close (j);
  ar_json_arr_close (j);
}

static void
write_namespaces (struct ar_json *j, bool rootless)
{
  static const char *const rootful[] = { "pid", "network", "ipc", "uts", "mount", "cgroup" };
  static const char *const unpriv[] = { "pid", "ipc", "uts", "mount", "cgroup", "user" };
  const char *const *v = rootless ? unpriv : rootful;

  ar_json_key (j, "namespaces");
  ar_json_arr_open (j);
  for (size_t i = 0; i < ARRAY_SIZE (rootful); i++)
    {
      ar_json_obj_open (j);
      ar_json_kstr (j, "type", v[i]);
      ar_json_obj_close (j);
    }
  ar_json_arr_close (j);
}

static void
write_linux (struct ar_json *j, bool rootless, uid_t uid, gid_t gid)
{
  ar_json_key (j, "linux");
  ar_json_obj_open (j);
  if (rootless)
    {
      write_id_mapping (j, "uidMappings", uid);
      write_id_mapping (j, "gidMappings", gid);
    }
  else
    {
      ar_json_key (j, "resources");
      ar_json_obj_open (j);
      ar_json_key (j, "devices");
      ar_json_arr_open (j);
      ar_json_obj_open (j);
      ar_json_kbool (j, "allow", false);
      ar_json_kstr (j, "access", "rwm");
      ar_json_obj_close (j);
      ar_json_arr_close (j);
      ar_json_obj_close (j);
    }
  write_namespaces (j, rootless);
  kstrv (j, "maskedPaths",
         V ("/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
            "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
            "/proc/scsi"));
  kstrv (j, "readonlyPaths",
         V ("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"));
  ar_json_obj_close (j);
}

char *
spec_example_json (bool rootless, uid_t uid, gid_t gid)
{
  struct ar_json *j = ar_json_new ("\t");

  ar_json_obj_open (j);
  ar_json_kstr (j, "ociVersion", OCI_SPEC_VERSION);
  write_process (j);
  ar_json_key (j, "root");
  ar_json_obj_open (j);
  ar_json_kstr (j, "path", "rootfs");
  ar_json_kbool (j, "readonly", true);
  ar_json_obj_close (j);
  ar_json_kstr (j, "hostname", "agentrt");
  write_mounts (j, rootless);
  write_linux (j, rootless, uid, gid);
  ar_json_obj_close (j);
  return ar_json_finish (j, NULL);
}
