/* Landlock rulesets for the container's processes (landlock.h).  No access rule is ever added:
   each right the ruleset handles is refused outright, and scopes need no rules.  */
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
  if (abi >= 4 && plan->deny_connect)
    out->handled_net |= AR_LANDLOCK_ACCESS_NET_CONNECT_TCP;
  if (abi >= 6 && plan->scope_signal)
    out->scoped |= AR_LANDLOCK_SCOPE_SIGNAL;
  if (abi >= 6 && plan->scope_abstract)
    out->scoped |= AR_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
  if (out->handled_net == 0 && out->scoped == 0)
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
  struct ar_landlock_ruleset_attr attr
      = { .handled_access_fs = 0, .handled_access_net = r->handled_net, .scoped = r->scoped };

  return (int) syscall (AR_NR_landlock_create_ruleset, &attr, sizeof attr, 0U);
}

void
landlock_prepare (const struct landlock_plan *plan, struct landlock_ruleset *out)
{
  int abi = landlock_abi ();
  int fd;

  if (!plan->scope_signal && !plan->scope_abstract && !plan->deny_connect)
    {
      memset (out, 0, sizeof *out);
      return;
    }
  if (abi == 0)
    {
      ar_debug ("landlock: not in this kernel; the container runs without it");
      memset (out, 0, sizeof *out);
      return;
    }
  if (!landlock_fit (plan, abi, out))
    {
      ar_debug ("landlock: ABI %d has nothing of what this container asks for (scopes need 6, "
                "TCP rights 4)",
                abi);
      return;
    }
  /* A kernel may claim an ABI without all of it (RHEL 9's 5.14 claims 6 without signal
     scopes): what it refuses here is treated as no Landlock at all.  */
  fd = ruleset_create (out);
  if (fd < 0)
    {
      ar_debug ("landlock: ABI %d refuses the ruleset (%s); the container runs without it", abi,
                strerror (errno));
      memset (out, 0, sizeof *out);
      return;
    }
  close (fd);
  ar_debug ("landlock: ABI %d, scoped %#llx, tcp handled %#llx", abi,
            (unsigned long long) out->scoped, (unsigned long long) out->handled_net);
}

int
landlock_apply (const struct landlock_ruleset *r, ar_error_t *err)
{
  cleanup_close int fd = -1;

  if (r->handled_net == 0 && r->scoped == 0)
    return 0;
  fd = ruleset_create (r);
  if (fd < 0)
    return ar_make_error (err, errno, "create the landlock ruleset");
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
