/* Bind sources opened by the runtime for the init (sources.h): the plan made before clone, and
   the fds made in the init's mount namespace.  Runs in the runtime only, with host root's
   credentials; it never mounts anything anywhere: the trees it makes are detached, and the
   init attaches them.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init/sources.h"
#include "utils.h"

static bool
has_option (const struct spec_mount *m, const char *word)
{
  for (size_t i = 0; i < m->options.n; i++)
    if (strcmp (m->options.v[i], word) == 0)
      return true;
  return false;
}

static bool
is_bind (const struct spec_mount *m)
{
  return (m->type && strcmp (m->type, "bind") == 0) || has_option (m, "bind")
         || has_option (m, "rbind");
}

/* runtime-spec 1.2 (config.md, mounts): "If specified, [uidMappings] MUST be specified along
   with gidMappings"; idmap and ridmap without mappings "MAY use the container's user namespace
   mapping, otherwise an error MUST be returned", and "if … the container isn't using user
   namespaces, an error MUST be returned".  As runc, bind mounts only.  */
static int
check_idmap (const struct spec_mount *m, size_t i, bool userns, bool *idmapped, ar_error_t *err)
{
  bool uid = m->n_uid_mappings > 0, gid = m->n_gid_mappings > 0;
  bool opt = has_option (m, "idmap") || has_option (m, "ridmap");

  if (uid != gid)
    return ar_make_error (err, EINVAL, "config.json: mounts[%zu] (`%s`): %s needs %s", i,
                          m->destination, uid ? "uidMappings" : "gidMappings",
                          uid ? "gidMappings" : "uidMappings");
  *idmapped = uid || opt;
  if (!*idmapped)
    return 0;
  if (!is_bind (m))
    return ar_make_error (err, EINVAL,
                          "config.json: mounts[%zu] (`%s`): idmapped mounts are supported for "
                          "bind mounts only",
                          i, m->destination);
  if (!uid && !userns)
    return ar_make_error (err, EINVAL,
                          "config.json: mounts[%zu] (`%s`): idmap needs uidMappings and "
                          "gidMappings, or a user namespace whose mapping it takes",
                          i, m->destination);
  return 0;
}

static int
plan_one (const struct spec_mount *m, size_t i, const struct ns_plan *ns, const char *bundle,
          struct sources_mount *out, ar_error_t *err)
{
  bool userns = ns->new_ns[SPEC_NS_USER] || ns->join_fd[SPEC_NS_USER] >= 0;
  bool idmapped = false;

  if (check_idmap (m, i, userns, &idmapped, err) < 0)
    return -1;
  out->kind = idmapped ? SOURCES_IDMAP : is_bind (m) && userns ? SOURCES_OPEN : SOURCES_NONE;
  if (out->kind == SOURCES_NONE)
    return 0;
  if (m->source == NULL || m->source[0] == '\0')
    return ar_make_error (err, EINVAL,
                          "config.json: mounts[%zu] (`%s`): a bind mount needs a source", i,
                          m->destination);
  out->path = m->source[0] == '/' ? xstrdup (m->source) : xasprintf ("%s/%s", bundle, m->source);
  out->rbind = has_option (m, "rbind");
  out->ridmap = has_option (m, "ridmap");
  out->m = m;
  return 0;
}

int
sources_plan (const struct spec *s, const struct ns_plan *ns, const char *bundle,
              struct sources_plan *p, ar_error_t *err)
{
  memset (p, 0, sizeof *p);
  p->mounts = xzalloc ((s->n_mounts + 1) * sizeof *p->mounts);
  p->n = s->n_mounts;
  p->at_maps = ns->new_ns[SPEC_NS_USER];
  p->joined_userns = ns->join_fd[SPEC_NS_USER] >= 0;
  for (size_t i = 0; i < s->n_mounts; i++)
    {
      if (plan_one (&s->mounts[i], i, ns, bundle, &p->mounts[i], err) < 0)
        {
          sources_plan_release (p);
          return -1;
        }
      p->any = p->any || p->mounts[i].kind != SOURCES_NONE;
    }
  return 0;
}

void
sources_plan_release (struct sources_plan *p)
{
  for (size_t i = 0; i < p->n; i++)
    free (p->mounts[i].path);
  free (p->mounts);
  p->mounts = NULL;
  p->n = 0;
  p->any = false;
}

/* A stay in the init's mount namespace: setns resets root and cwd, so both are put back.  */
struct visit
{
  int own, root, cwd;
};

static void
visit_release (struct visit *v)
{
  ar_closep (&v->own);
  ar_closep (&v->root);
  ar_closep (&v->cwd);
}

static int
visit_enter (pid_t pid, struct visit *v, ar_error_t *err)
{
  char path[64];
  cleanup_close int theirs = -1;

  snprintf (path, sizeof path, "/proc/%d/ns/mnt", (int) pid);
  theirs = open (path, O_RDONLY | O_CLOEXEC);
  v->own = open ("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  v->root = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  v->cwd = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (theirs < 0 || v->own < 0 || v->root < 0 || v->cwd < 0)
    return ar_make_error (err, errno, "mount sources: open the mount namespaces");
  if (setns (theirs, CLONE_NEWNS) < 0)
    return ar_make_error (err, errno, "mount sources: enter the container's mount namespace");
  return 0;
}

static int
visit_leave (struct visit *v, ar_error_t *err)
{
  if (setns (v->own, CLONE_NEWNS) < 0 || fchdir (v->root) < 0 || chroot (".") < 0
      || fchdir (v->cwd) < 0)
    return ar_make_error (err, errno, "mount sources: return to our mount namespace");
  return 0;
}

struct helper_ns
{
  const struct spec_mount *m;
  int fd;
};

/* The user namespaces whose idmappings the trees take, one per distinct mapping.  */
struct userns_set
{
  pid_t pid;
  const struct spec_linux *l;
  bool joined; /* l's maps are not the namespace's: read them */
  int own;     /* the container's, or -1 until needed */
  struct helper_ns *helpers;
  size_t n;
};

static void
userns_set_release (struct userns_set *u)
{
  ar_closep (&u->own);
  for (size_t i = 0; i < u->n; i++)
    close (u->helpers[i].fd);
  free (u->helpers);
}

static bool
same_map (const struct spec_id_mapping *a, size_t na, const struct spec_id_mapping *b, size_t nb)
{
  if (na != nb)
    return false;
  for (size_t i = 0; i < na; i++)
    if (a[i].container_id != b[i].container_id || a[i].host_id != b[i].host_id
        || a[i].size != b[i].size)
      return false;
  return true;
}

/* A map as the kernel shows it (/proc/PID/uid_map), for a joined user namespace.  */
static size_t
read_map (pid_t pid, const char *file, struct spec_id_mapping *out, size_t max)
{
  char path[64];
  size_t n = 0;
  FILE *f;

  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, file);
  f = fopen (path, "re");
  if (f == NULL)
    return 0;
  while (n < max
         && fscanf (f, "%u %u %u", &out[n].container_id, &out[n].host_id, &out[n].size) == 3)
    n++;
  fclose (f);
  return n;
}

/* The mount's mapping is the container's own (containerd 2.x sends its user namespace's on
   /etc/hosts and the others), or none was given.  */
static bool
is_containers_map (const struct userns_set *u, const struct spec_mount *m)
{
  struct spec_id_mapping uid[340], gid[340];
  size_t nu, ng;

  if (m->n_uid_mappings == 0)
    return true;
  if (!u->joined)
    return same_map (m->uid_mappings, m->n_uid_mappings, u->l->uid_mappings, u->l->n_uid_mappings)
           && same_map (m->gid_mappings, m->n_gid_mappings, u->l->gid_mappings,
                        u->l->n_gid_mappings);
  nu = read_map (u->pid, "uid_map", uid, ARRAY_SIZE (uid));
  ng = read_map (u->pid, "gid_map", gid, ARRAY_SIZE (gid));
  return nu > 0 && same_map (m->uid_mappings, m->n_uid_mappings, uid, nu)
         && same_map (m->gid_mappings, m->n_gid_mappings, gid, ng);
}

/* A user namespace with the mount's own mapping, held by a child that exists only until its
   namespace file is open (crun's way; runc keeps one per mapping alive).  */
static int
helper_userns (const struct spec_mount *m, ar_error_t *err)
{
  struct spec_linux l = { .uid_mappings = m->uid_mappings,
                          .n_uid_mappings = m->n_uid_mappings,
                          .gid_mappings = m->gid_mappings,
                          .n_gid_mappings = m->n_gid_mappings };
  char path[64];
  int pipefd[2], fd = -1;
  pid_t pid;
  char c;

  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return ar_make_error (err, errno, "idmap: pipe");
  pid = ar_clone (CLONE_NEWUSER, -1);
  if (pid == 0)
    {
      close (pipefd[1]);
      _exit (read (pipefd[0], &c, 1) < 0 ? 1 : 0);
    }
  close (pipefd[0]);
  if (pid < 0)
    {
      close (pipefd[1]);
      return ar_make_error (err, errno, "idmap: clone a user namespace for the mapping");
    }
  snprintf (path, sizeof path, "/proc/%d/ns/user", (int) pid);
  if (namespaces_write_id_maps (pid, &l, err) == 0)
    {
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        ar_make_error (err, errno, "idmap: open `%s`", path);
    }
  close (pipefd[1]);
  (void) waitpid (pid, NULL, 0);
  return fd;
}

static int
userns_for (struct userns_set *u, const struct spec_mount *m, ar_error_t *err)
{
  char path[64];

  if (is_containers_map (u, m))
    {
      snprintf (path, sizeof path, "/proc/%d/ns/user", (int) u->pid);
      if (u->own < 0)
        u->own = open (path, O_RDONLY | O_CLOEXEC);
      if (u->own < 0)
        return ar_make_error (err, errno, "idmap: open `%s`", path);
      return u->own;
    }
  for (size_t i = 0; i < u->n; i++)
    if (same_map (m->uid_mappings, m->n_uid_mappings, u->helpers[i].m->uid_mappings,
                  u->helpers[i].m->n_uid_mappings)
        && same_map (m->gid_mappings, m->n_gid_mappings, u->helpers[i].m->gid_mappings,
                     u->helpers[i].m->n_gid_mappings))
      return u->helpers[i].fd;
  u->helpers = xrealloc (u->helpers, (u->n + 1) * sizeof *u->helpers);
  u->helpers[u->n].m = m;
  u->helpers[u->n].fd = helper_userns (m, err);
  if (u->helpers[u->n].fd < 0)
    return -1;
  return u->helpers[u->n++].fd;
}

/* The user namespaces first (a helper's maps are written through the host's /proc, which the
   container's mount namespace shows as well, but its pid must be ours to wait for).  */
static int
open_userns (const struct sources_plan *p, struct userns_set *u, int *ns_of, ar_error_t *err)
{
  for (size_t i = 0; i < p->n; i++)
    {
      ns_of[i] = -1;
      if (p->mounts[i].kind == SOURCES_IDMAP)
        {
          ns_of[i] = userns_for (u, p->mounts[i].m, err);
          if (ns_of[i] < 0)
            return ar_error_wrap (err, "mounts[%zu] (`%s`)", i, p->mounts[i].m->destination);
        }
    }
  return 0;
}

static int
idmapped_tree (const struct sources_mount *sm, int userns, ar_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (__u64) userns };
  int fd = (int) syscall (SYS_open_tree, AT_FDCWD, sm->path,
                          OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (sm->rbind ? AT_RECURSIVE : 0));

  if (fd < 0)
    return ar_make_error (err, errno, "open bind source `%s`", sm->path);
  if (syscall (SYS_mount_setattr, fd, "", AT_EMPTY_PATH | (sm->ridmap ? AT_RECURSIVE : 0), &attr,
               sizeof attr)
      < 0)
    {
      int e = errno;
      close (fd);
      return ar_make_error (err, e, "idmap bind source `%s`%s", sm->path,
                            e == EINVAL ? " (its filesystem, or one mounted below it, cannot be "
                                          "idmapped on this kernel, or it is idmapped already)"
                                        : "");
    }
  return fd;
}

static int
open_one (const struct sources_mount *sm, int userns, ar_error_t *err)
{
  int fd;

  if (sm->kind == SOURCES_IDMAP)
    return idmapped_tree (sm, userns, err);
  fd = open (sm->path, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return ar_make_error (err, errno, "open bind source `%s`", sm->path);
  return fd;
}

static void
close_all (int *fds, size_t n)
{
  for (size_t i = 0; i < n; i++)
    ar_closep (&fds[i]);
}

int
sources_open (const struct sources_plan *p, const struct spec_linux *l, pid_t pid, int *fds,
              ar_error_t *err)
{
  struct userns_set u = { .pid = pid, .l = l, .joined = p->joined_userns, .own = -1 };
  struct visit v = { -1, -1, -1 };
  cleanup_free int *ns_of = xzalloc ((p->n + 1) * sizeof *ns_of);
  int ret;

  for (size_t i = 0; i < p->n; i++)
    fds[i] = -1;
  ret = open_userns (p, &u, ns_of, err);
  if (ret == 0)
    ret = visit_enter (pid, &v, err);
  for (size_t i = 0; ret == 0 && i < p->n; i++)
    if (p->mounts[i].kind != SOURCES_NONE)
      {
        fds[i] = open_one (&p->mounts[i], ns_of[i], err);
        if (fds[i] < 0)
          ret = -1;
      }
  /* Back in any case: the runtime goes on in its own namespace.  */
  if (v.own >= 0)
    {
      ar_error_t e = NULL;
      if (visit_leave (&v, &e) < 0 && ret == 0)
        {
          *err = e;
          ret = -1;
        }
      else if (e)
        ar_error_release (&e);
    }
  visit_release (&v);
  userns_set_release (&u);
  if (ret < 0)
    close_all (fds, p->n);
  return ret;
}

/* Explaining a path the container's root cannot reach.  */

/* What generic_permission lets the root of a user namespace do: CAP_DAC_OVERRIDE where the
   inode's owner and group are both mapped, the mode's bits for it otherwise.  */
static bool
may_search (const struct stat *st, uid_t uid, gid_t gid, const struct spec_id_mapping *um,
            size_t nu, const struct spec_id_mapping *gm, size_t ng)
{
  if (spec_id_host_mapped (st->st_uid, um, nu) && spec_id_host_mapped (st->st_gid, gm, ng))
    return true;
  if (st->st_uid == uid)
    return st->st_mode & S_IXUSR;
  if (st->st_gid == gid)
    return st->st_mode & S_IXGRP;
  return st->st_mode & S_IXOTH;
}

static char *
owner_text (uid_t uid, gid_t gid)
{
  char buf[1024];
  struct passwd pw, *pr = NULL;
  struct group gr, *gp = NULL;
  cleanup_free char *u = NULL;

  u = getpwuid_r (uid, &pw, buf, sizeof buf, &pr) == 0 && pr ? xstrdup (pw.pw_name)
                                                             : xasprintf ("%u", (unsigned) uid);
  if (getgrgid_r (gid, &gr, buf, sizeof buf, &gp) == 0 && gp)
    return xasprintf ("%s:%s", u, gr.gr_name);
  return xasprintf ("%s:%u", u, (unsigned) gid);
}

char *
sources_explain_access (const char *path, uid_t uid, gid_t gid, const struct spec_id_mapping *um,
                        size_t nu, const struct spec_id_mapping *gm, size_t ng)
{
  cleanup_free char *copy = xstrdup (path);
  size_t len = strlen (copy);

  if (copy[0] != '/')
    return NULL;
  /* "/", then each directory on the way, then PATH itself when it is one.  */
  for (size_t end = 0; end <= len; end++)
    {
      struct stat st;
      char saved = copy[end];
      const char *dir = end == 0 ? "/" : copy;
      cleanup_free char *owner = NULL;

      if (end > 0 && end < len && copy[end] != '/')
        continue;
      if (end > 0)
        copy[end] = '\0';
      if (stat (dir, &st) < 0 || !S_ISDIR (st.st_mode)
          || may_search (&st, uid, gid, um, nu, gm, ng))
        {
          copy[end] = saved;
          continue;
        }
      owner = owner_text (st.st_uid, st.st_gid);
      return xasprintf ("`%s` is %04o %s; the container's root is host uid %u", dir,
                        (unsigned) (st.st_mode & 07777), owner, (unsigned) uid);
    }
  return NULL;
}

/* The host ids of the init's root, and its maps.  */
struct root_ids
{
  uid_t uid;
  gid_t gid;
  struct spec_id_mapping um[340], gm[340];
  size_t nu, ng;
};

static void
host_of_root (struct root_ids *r)
{
  r->uid = spec_id_root_host (r->um, r->nu, 0);
  r->gid = spec_id_root_host (r->gm, r->ng, 0);
}

void
sources_explain_error (ar_error_t *err, pid_t pid, const struct ns_plan *ns,
                       const struct spec_linux *l)
{
  cleanup_free struct root_ids *r = NULL;
  const char *p;

  if (*err == NULL || (*err)->status != EACCES || (*err)->msg == NULL
      || (!ns->new_ns[SPEC_NS_USER] && ns->join_fd[SPEC_NS_USER] < 0))
    return;
  r = xzalloc (sizeof *r);
  if (ns->new_ns[SPEC_NS_USER])
    {
      r->nu = l->n_uid_mappings < 340 ? l->n_uid_mappings : 340;
      r->ng = l->n_gid_mappings < 340 ? l->n_gid_mappings : 340;
      memcpy (r->um, l->uid_mappings, r->nu * sizeof *r->um);
      memcpy (r->gm, l->gid_mappings, r->ng * sizeof *r->gm);
    }
  else
    {
      r->nu = read_map (pid, "uid_map", r->um, ARRAY_SIZE (r->um));
      r->ng = read_map (pid, "gid_map", r->gm, ARRAY_SIZE (r->gm));
    }
  host_of_root (r);
  for (p = strchr ((*err)->msg, '`'); p; p = strchr (p, '`'))
    {
      const char *end = strchr (++p, '`');
      cleanup_free char *path = NULL;
      cleanup_free char *why = NULL;
      char *msg;

      if (end == NULL)
        break;
      path = xstrndup (p, (size_t) (end - p));
      p = end + 1;
      why = sources_explain_access (path, r->uid, r->gid, r->um, r->nu, r->gm, r->ng);
      if (why == NULL)
        continue;
      /* The reason last, after the errno's text.  */
      msg = xasprintf ("%s: %s: %s", (*err)->msg, strerror ((*err)->status), why);
      free ((*err)->msg);
      (*err)->msg = msg;
      (*err)->status = 0;
      return;
    }
}
