/* Landlock rulesets for the container's processes (landlock.h).  One access rule at most: the
   ptrace wall's, which gives back beneath "/" the filesystem right it handles; every other
   right the ruleset handles is refused outright, and scopes need no rules.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init/landlock.h"
#include "init/landlock_uapi.h"
#include "log.h"
#include "alloc.h"

int
landlock_abi (void)
{
  static int abi = -1;
  long r;

  if (abi >= 0)
    return abi;
  r = syscall (AR_NR_landlock_create_ruleset, NULL, 0, AR_LANDLOCK_CREATE_RULESET_VERSION);
  abi = r < 0 ? 0 : (int) r; /* ENOSYS: not built; EOPNOTSUPP: not in lsm= */
  return abi;
}

bool
landlock_fit (const struct landlock_plan *plan, int abi, struct landlock_ruleset *out)
{
  memset (out, 0, sizeof *out);
  if (abi >= 1 && plan->ptrace_wall)
    out->handled_fs |= AR_LANDLOCK_ACCESS_FS_MAKE_BLOCK;
  if (abi >= 4 && plan->deny_connect)
    out->handled_net |= AR_LANDLOCK_ACCESS_NET_CONNECT_TCP;
  if (abi >= 6 && plan->scope_signal)
    out->scoped |= AR_LANDLOCK_SCOPE_SIGNAL;
  if (abi >= 6 && plan->scope_abstract)
    out->scoped |= AR_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
  if (out->handled_fs == 0 && out->handled_net == 0 && out->scoped == 0)
    return false;
  out->abi = abi;
  /* The workload is what we want to hear about, not agentrt's own few calls before execve
     (there are none to deny).  A nested domain the workload makes for itself is its business,
     and must not let it fill the host's audit log.  */
  if (abi >= 7)
    out->restrict_flags
        = AR_LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON | AR_LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF;
  return true;
}

static int
ruleset_create (const struct landlock_ruleset *r)
{
  struct ar_landlock_ruleset_attr attr = { .handled_access_fs = r->handled_fs,
                                           .handled_access_net = r->handled_net,
                                           .scoped = r->scoped };

  return (int) syscall (AR_NR_landlock_create_ruleset, &attr, sizeof attr, 0U);
}

int
landlock_need (const struct landlock_plan *plan, int abi, bool refused, ar_error_t *err)
{
  if (!plan->ptrace_wall || (abi > 0 && !refused))
    return 0;
  return ar_make_error (err, 0,
                        "linux.capabilities: CAP_SYS_PTRACE without a user namespace lets the "
                        "container attach to agentrt's own processes during exec, and this "
                        "kernel has %s to stop it: add a user namespace or drop CAP_SYS_PTRACE",
                        abi == 0 ? "no Landlock" : "a Landlock that refuses the ruleset");
}

int
landlock_prepare (const struct landlock_plan *plan, struct landlock_ruleset *out, ar_error_t *err)
{
  int abi = landlock_abi ();
  int fd;

  memset (out, 0, sizeof *out);
  if (!plan->scope_signal && !plan->scope_abstract && !plan->deny_connect && !plan->ptrace_wall)
    return 0;
  if (abi == 0)
    {
      ar_debug ("landlock: not in this kernel; the container runs without it");
      return landlock_need (plan, abi, false, err);
    }
  if (!landlock_fit (plan, abi, out))
    {
      ar_debug ("landlock: ABI %d has nothing of what this container asks for (scopes need 6, "
                "TCP rights 4)",
                abi);
      return 0;
    }
  /* A kernel may claim an ABI without all of it (RHEL 9's 5.14 claims 6 without signal
     scopes): what it refuses here is treated as no Landlock at all.  */
  fd = ruleset_create (out);
  if (fd < 0)
    {
      ar_debug ("landlock: ABI %d refuses the ruleset (%s); the container runs without it", abi,
                strerror (errno));
      memset (out, 0, sizeof *out);
      return landlock_need (plan, abi, true, err);
    }
  close (fd);
  ar_debug ("landlock: ABI %d, scoped %#llx, tcp handled %#llx, fs handled %#llx", abi,
            (unsigned long long) out->scoped, (unsigned long long) out->handled_net,
            (unsigned long long) out->handled_fs);
  return 0;
}

/* The ptrace wall's rule: making block devices, handled only so that the ruleset has something
   to handle, is given back beneath the container's root, so that mknod works as it did (the
   device cgroup and CAP_MKNOD still decide).  Rules are on inodes, and the kernel's walk up
   from a path passes mount points up to the real root: every path of the container reaches
   this one.  */
static int
allow_beneath_root (int ruleset, uint64_t access, ar_error_t *err)
{
  cleanup_close int root = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct ar_landlock_path_beneath_attr rule = { .allowed_access = access, .parent_fd = root };

  if (root < 0)
    return ar_make_error (err, errno, "open the container's root for the landlock rule");
  if (syscall (AR_NR_landlock_add_rule, ruleset, AR_LANDLOCK_RULE_PATH_BENEATH, &rule, 0U) < 0)
    return ar_make_error (err, errno, "add the landlock rule beneath the container's root");
  return 0;
}

int
landlock_apply (const struct landlock_ruleset *r, ar_error_t *err)
{
  cleanup_close int fd = -1;

  if (r->handled_fs == 0 && r->handled_net == 0 && r->scoped == 0)
    return 0;
  fd = ruleset_create (r);
  if (fd < 0)
    return ar_make_error (err, errno, "create the landlock ruleset");
  if (r->handled_fs && allow_beneath_root (fd, r->handled_fs, err) < 0)
    return -1;
  if (syscall (AR_NR_landlock_restrict_self, fd, r->restrict_flags) < 0)
    return ar_make_error (err, errno, "enter the landlock domain");
  return 0;
}

bool
landlock_pidns_sees_runtime (int fd)
{
  struct stat target, st;
  int ns = open ("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);

  if (fstat (fd, &target) < 0)
    {
      ar_closep (&ns);
      return true;
    }
  while (ns >= 0)
    {
      int parent;

      if (fstat (ns, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino)
        {
          close (ns);
          return true;
        }
      /* EPERM past the namespaces we may see.  */
      parent = ioctl (ns, NS_GET_PARENT);
      close (ns);
      ns = parent;
    }
  return false;
}

bool
landlock_netns_is_runtimes (int fd)
{
  struct stat target, st;

  if (fstat (fd, &target) < 0 || stat ("/proc/self/ns/net", &st) < 0)
    return true;
  return st.st_dev == target.st_dev && st.st_ino == target.st_ino;
}
