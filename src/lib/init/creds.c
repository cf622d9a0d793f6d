/* Who the container's process is and what it may do: groups, uid/gid, the five capability sets,
   umask, no_new_privs, oom_score_adj and personality, each applied to the calling process.  It
   never forks, prints or exits; a failure leaves the process half switched, so the caller
   (init, or exec's child) must not exec after an error.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init/caps.h"
#include "init/creds.h"
#include "utils.h"

_Static_assert(sizeof (gid_t) == sizeof (uint32_t), "additionalGids are passed as gid_t");

struct creds_caps
{
  uint64_t bounding, effective, permitted, inheritable, ambient;
};

#define CAP_BIT(cap) (UINT64_C (1) << (cap))

/* "CAP_CHOWN", or "capability 41" for one newer than this program.  */
static const char *
cap_label (int cap, char *buf, size_t size)
{
  const char *name = spec_cap_name ((size_t) cap);

  if (name)
    return name;
  snprintf (buf, size, "capability %d", cap);
  return buf;
}

static int
load_caps (const struct spec_process *p, struct creds_caps *c, ar_error_t *err)
{
  const struct spec_caps *s = &p->capabilities;
  uint64_t known = caps_known_mask ();

  *c = (struct creds_caps){ 0 };
  if (!p->has_capabilities)
    return 0;
  if (caps_from_names (&s->bounding, &c->bounding, err) < 0
      || caps_from_names (&s->effective, &c->effective, err) < 0
      || caps_from_names (&s->permitted, &c->permitted, err) < 0
      || caps_from_names (&s->inheritable, &c->inheritable, err) < 0
      || caps_from_names (&s->ambient, &c->ambient, err) < 0)
    return ar_error_wrap (err, "process.capabilities");
  c->bounding &= known;
  c->effective &= known;
  c->permitted &= known;
  c->inheritable &= known;
  c->ambient &= known;
  return 0;
}

/* Only caps still in the set are dropped, so a process that already lost CAP_SETPCAP can still
   apply a bounding set that keeps nothing more than it has.  */
static int
drop_bounding (uint64_t keep, ar_error_t *err)
{
  int last = caps_last_cap ();
  char buf[32];

  for (int cap = 0; cap <= last; cap++)
    {
      if ((keep & CAP_BIT (cap)) || prctl (PR_CAPBSET_READ, (unsigned long) cap, 0, 0, 0) == 0)
        continue;
      if (prctl (PR_CAPBSET_DROP, (unsigned long) cap, 0, 0, 0) < 0)
        return ar_make_error (err, errno, "drop `%s` from the bounding set",
                              cap_label (cap, buf, sizeof buf));
    }
  return 0;
}

static int
set_keepcaps (int on, ar_error_t *err)
{
  if (prctl (PR_SET_KEEPCAPS, (unsigned long) on, 0, 0, 0) < 0)
    return ar_make_error (err, errno, "prctl PR_SET_KEEPCAPS %d", on);
  return 0;
}

/* A user namespace whose /proc/self/setgroups says "deny" (rootless, or a gid_map written by an
   unprivileged parent) refuses setgroups(2) with EPERM whatever the list.  */
static bool
setgroups_denied (void)
{
  char buf[16] = "";
  cleanup_file FILE *f = fopen ("/proc/self/setgroups", "re");

  return f && fgets (buf, sizeof buf, f) && strncmp (buf, "deny", 4) == 0;
}

static int
set_groups (const struct spec_user *u, ar_error_t *err)
{
  if (setgroups (u->n_additional_gids, (const gid_t *) u->additional_gids) == 0)
    return 0;
  if (errno == EPERM && u->n_additional_gids == 0 && setgroups_denied ())
    return 0;
  return ar_make_error (err, errno, "setgroups to %zu additionalGids", u->n_additional_gids);
}

static int
set_ids (const struct spec_user *u, ar_error_t *err)
{
  if (setresgid (u->gid, u->gid, u->gid) < 0)
    return ar_make_error (err, errno, "setresgid %" PRIu32, u->gid);
  if (setresuid (u->uid, u->uid, u->uid) < 0)
    return ar_make_error (err, errno, "setresuid %" PRIu32, u->uid);
  return 0;
}

/* The raw syscall rather than libcap: three 64-bit masks need no allocation, and libcap's
   cap_set_flag would refuse numbers newer than its own table.  */
static int
set_caps (const struct creds_caps *c, ar_error_t *err)
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
    {
      data[i].effective = (uint32_t) (c->effective >> (32 * i));
      data[i].permitted = (uint32_t) (c->permitted >> (32 * i));
      data[i].inheritable = (uint32_t) (c->inheritable >> (32 * i));
    }
  if (syscall (SYS_capset, &hdr, data) < 0)
    return ar_make_error (
        err, errno, "capset effective %#" PRIx64 " permitted %#" PRIx64 " inheritable %#" PRIx64,
        c->effective, c->permitted, c->inheritable);
  return 0;
}

/* EPERM means the capability is not both permitted and inheritable; runc only warns about it
   and crun ignores it, and engines (Podman for non-root users) rely on that.  Skipping it gives
   the process less than asked, never more.  */
static int
set_ambient (uint64_t ambient, ar_error_t *err)
{
  int last = caps_last_cap ();
  char buf[32];

  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
    return ar_make_error (err, errno, "clear the ambient capability set");
  for (int cap = 0; cap <= last; cap++)
    {
      if (!(ambient & CAP_BIT (cap)))
        continue;
      if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long) cap, 0, 0) < 0
          && errno != EPERM)
        return ar_make_error (err, errno, "raise ambient `%s`", cap_label (cap, buf, sizeof buf));
    }
  return 0;
}

int
creds_apply (const struct spec_process *p, ar_error_t *err)
{
  struct creds_caps c;

  if (load_caps (p, &c, err) < 0 || drop_bounding (c.bounding, err) < 0 || set_keepcaps (1, err) < 0
      || set_groups (&p->user, err) < 0 || set_ids (&p->user, err) < 0 || set_keepcaps (0, err) < 0
      || set_caps (&c, err) < 0 || set_ambient (c.ambient, err) < 0)
    return -1;
  umask (p->user.umask.set ? (mode_t) (p->user.umask.v & 07777) : 022);
  if (p->no_new_privileges && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return ar_make_error (err, errno, "prctl PR_SET_NO_NEW_PRIVS");
  return 0;
}

int
creds_set_oom_score_adj (const struct spec_process *p, ar_error_t *err)
{
  char buf[24];
  int len;
  ssize_t n;
  cleanup_close int fd = -1;

  if (!p->oom_score_adj.set)
    return 0;
  len = snprintf (buf, sizeof buf, "%" PRId64, p->oom_score_adj.v);
  fd = open ("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "open `/proc/self/oom_score_adj`");
  n = write (fd, buf, (size_t) len);
  if (n != len)
    return ar_make_error (err, n < 0 ? errno : EIO, "set oom_score_adj to %s", buf);
  return 0;
}

int
creds_set_personality (const struct spec_linux *l, ar_error_t *err)
{
  const char *domain = l && l->has_personality ? l->personality.domain : NULL;
  unsigned long persona;

  if (domain == NULL)
    return 0;
  if (strcmp (domain, "LINUX") == 0)
    persona = PER_LINUX;
  else if (strcmp (domain, "LINUX32") == 0)
    persona = PER_LINUX32;
  else
    return ar_make_error (err, EINVAL, "unknown personality domain `%s`", domain);
  /* linux.personality.flags are ignored: runtime-spec defines none.  */
  if (personality (persona) < 0)
    return ar_make_error (err, errno, "set personality %s", domain);
  return 0;
}
