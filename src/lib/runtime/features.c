/* The features document.  Names lists (hooks, mount options, namespaces, capabilities, seccomp
   actions, operators, architectures) are the names the config parser recognizes, from the same
   tables spec.c uses, which is what runtime-spec features.md asks for ("recognized").  The
   `enabled` flags say what the runtime applies today, from `applied` below: each flips to true in
   the change that makes the mechanism work, and never before.  */
#include <config.h>

#include <seccomp.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "build_version.h"
#include "runtime/features.h"
#include "json.h"
#include "policy/policy.h"
#include "spec/spec.h"
#include "utils.h"

static const struct
{
  bool cgroup_v1, cgroup_v2, cgroup_systemd, seccomp, apparmor, selinux, intel_rdt, idmap;
} applied = {
  .cgroup_v1 = true, .cgroup_v2 = true, .cgroup_systemd = true, .seccomp = true, .idmap = true
};

static void
write_named (struct ar_json *j, const char *key, const struct spec_named_value *v)
{
  ar_json_key (j, key);
  ar_json_arr_open (j);
  for (; v->name; v++)
    ar_json_str (j, v->name);
  ar_json_arr_close (j);
}

/* The parser knows tmpcopyup, but mounts.c does not apply it.  */
static void
write_mount_options (struct ar_json *j)
{
  static const char *const not_applied[] = { "tmpcopyup" };

  ar_json_key (j, "mountOptions");
  ar_json_arr_open (j);
  for (const char *const *o = spec_mount_options; *o; o++)
    {
      bool skip = false;
      for (size_t i = 0; i < ARRAY_SIZE (not_applied); i++)
        skip = skip || strcmp (*o, not_applied[i]) == 0;
      if (!skip)
        ar_json_str (j, *o);
    }
  ar_json_arr_close (j);
}

static void
write_enabled (struct ar_json *j, const char *key, bool on)
{
  ar_json_key (j, key);
  ar_json_obj_open (j);
  ar_json_kbool (j, "enabled", on);
  ar_json_obj_close (j);
}

static void
write_seccomp (struct ar_json *j)
{
  ar_json_key (j, "seccomp");
  ar_json_obj_open (j);
  ar_json_kbool (j, "enabled", applied.seccomp);
  write_named (j, "actions", spec_seccomp_actions);
  write_named (j, "operators", spec_seccomp_operators);
  write_named (j, "archs", spec_seccomp_archs);
  write_named (j, "knownFlags", spec_seccomp_flags);
  ar_json_key (j, "supportedFlags");
  ar_json_arr_open (j);
  for (const struct spec_named_value *f = spec_seccomp_flags; applied.seccomp && f->name; f++)
    ar_json_str (j, f->name);
  ar_json_arr_close (j);
  ar_json_obj_close (j);
}

static void
write_cgroup (struct ar_json *j)
{
  ar_json_key (j, "cgroup");
  ar_json_obj_open (j);
  ar_json_kbool (j, "v1", applied.cgroup_v1);
  ar_json_kbool (j, "v2", applied.cgroup_v2);
  ar_json_kbool (j, "systemd", applied.cgroup_systemd);
  ar_json_kbool (j, "systemdUser", false);
  ar_json_kbool (j, "rdma", false);
  ar_json_obj_close (j);
}

static void
write_linux (struct ar_json *j)
{
  ar_json_key (j, "linux");
  ar_json_obj_open (j);
  ar_json_key (j, "namespaces");
  ar_json_arr_open (j);
  for (size_t i = 0; i < SPEC_NS_N; i++)
    ar_json_str (j, spec_namespace_names[i].oci);
  ar_json_arr_close (j);
  ar_json_key (j, "capabilities");
  ar_json_arr_open (j);
  for (size_t i = 0; i < spec_cap_count (); i++)
    ar_json_str (j, spec_cap_name (i));
  ar_json_arr_close (j);
  write_cgroup (j);
  write_seccomp (j);
  /* "true" even for partial support (features-linux.md): bind mounts only (sources.c).  */
  ar_json_key (j, "mountExtensions");
  ar_json_obj_open (j);
  write_enabled (j, "idmap", applied.idmap);
  ar_json_obj_close (j);
  write_enabled (j, "apparmor", applied.apparmor);
  write_enabled (j, "selinux", applied.selinux);
  write_enabled (j, "intelRdt", applied.intel_rdt);
  ar_json_obj_close (j);
}

char *
features_libseccomp_version (void)
{
  const struct scmp_version *v = seccomp_version ();
  return xasprintf ("%u.%u.%u", v->major, v->minor, v->micro);
}

/* The policy of the native table, in brief: the names of every call that goes to the
   supervisor, by tier (`agentrt policy show` has the whole table).  */
static void
write_policy_tier (struct ar_json *j, const char *key, enum sc_tier tier)
{
  const struct sc_table *t = policy_native_table ();
  size_t len = 0, cap = 256;
  char *names = xmalloc (cap);

  names[0] = '\0';
  for (const struct sc_entry *const *part = t->parts; *part; part++)
    for (const struct sc_entry *e = *part; e->name; e++)
      {
        size_t n = strlen (e->name);
        if (e->tier != tier)
          continue;
        if (len + n + 2 > cap)
          names = xrealloc (names, cap = 2 * (len + n + 2));
        len += (size_t) sprintf (names + len, "%s%s", len ? "," : "", e->name);
      }
  ar_json_kstr (j, key, names);
  free (names);
}

static void
write_policy (struct ar_json *j)
{
  ar_json_kstr (j, "io.agentrt.policy.arch", policy_native_table ()->arch);
  write_policy_tier (j, "io.agentrt.policy.supervise", SC_SUPERVISE);
  write_policy_tier (j, "io.agentrt.policy.deny", SC_DENY);
  write_policy_tier (j, "io.agentrt.policy.allowIf", SC_ALLOW_IF);
  write_policy_tier (j, "io.agentrt.policy.errno", SC_ERRNO);
}

static void
write_annotations (struct ar_json *j)
{
  cleanup_free char *scmp = features_libseccomp_version ();

  ar_json_key (j, "annotations");
  ar_json_obj_open (j);
  ar_json_kstr (j, "io.github.seccomp.libseccomp.version", scmp);
  ar_json_kstr (j, "io.agentrt.version", PACKAGE_VERSION);
  ar_json_kstr (j, "io.agentrt.commit", AR_BUILD_COMMIT);
  ar_json_kstr (j, "io.agentrt.platforms", "seccomp,ptrace,none");
  write_policy (j);
  ar_json_obj_close (j);
}

char *
features_json (void)
{
  struct ar_json *j = ar_json_new ("    ");

  ar_json_obj_open (j);
  ar_json_kstr (j, "ociVersionMin", OCI_SPEC_VERSION_MIN);
  ar_json_kstr (j, "ociVersionMax", OCI_SPEC_VERSION);
  ar_json_key (j, "hooks");
  ar_json_strv (j, spec_hook_names, SPEC_HOOK_N);
  write_mount_options (j);
  write_linux (j);
  write_annotations (j);
  ar_json_obj_close (j);
  return ar_json_finish (j, NULL);
}

char *
features_version_tags (void)
{
  /* Only what is in use today: +SECCOMP once filters are applied, +CGROUP with cgroups, … */
  return xstrdup (applied.seccomp ? "+SECCOMP +YAJL" : "+YAJL");
}
