/* systemd.c: the systemd cgroup driver's names and properties, without systemd.  cgroupsPath
   `slice:prefix:name` and its errors, slice expansion (runc's ExpandSlice) and systemd's
   escaping, the base properties of a scope, linux.resources as properties on v2 and v1 with
   runc's conversions (CPUQuotaPerSecUSec rounded up to 10 ms, CPUWeight from shares, swap,
   AllowedCPUs bit masks, version gates), device rules as DevicePolicy/DeviceAllow, the
   unified map, and the org.systemd.property.* annotations in GVariant text.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/systemd.h"
#include "spec/spec.h"
#include "tap.h"
#include "utils.h"

static bool
expands_to (const char *slice, const char *want)
{
  char *out = NULL;
  ar_error_t err = NULL;
  bool ok;

  if (systemd_expand_slice (slice, &out, &err) < 0)
    {
      ok = want == NULL;
      if (!ok)
        printf ("# %s: %s\n", slice, err->msg);
      ar_error_release (&err);
      return ok;
    }
  ok = want && strcmp (out, want) == 0;
  if (!ok)
    printf ("# %s → %s, expected %s\n", slice, out, want ? want : "an error");
  free (out);
  return ok;
}

static int
test_expand_slice (void)
{
  CHECK (expands_to ("system.slice", "/system.slice"));
  CHECK (expands_to ("a-b-c.slice", "/a.slice/a-b.slice/a-b-c.slice"));
  CHECK (expands_to ("kubepods-besteffort-pod0f1e_2d3c.slice",
                     "/kubepods.slice/kubepods-besteffort.slice/"
                     "kubepods-besteffort-pod0f1e_2d3c.slice"));
  CHECK (expands_to ("-.slice", "/"));
  CHECK (expands_to ("a--b.slice", NULL));
  CHECK (expands_to ("-a.slice", NULL));
  CHECK (expands_to ("a-.slice", NULL));
  CHECK (expands_to (".slice", NULL));
  CHECK (expands_to ("a.scope", NULL));
  CHECK (expands_to ("a/b.slice", NULL));
  return 0;
}

/* cgroupsPath `cp` of container "c1" → slice, unit and path, or (slice NULL) the error.  */
static bool
parses_to (const char *cp, const char *slice, const char *name, const char *path)
{
  struct systemd_unit u;
  ar_error_t err = NULL;
  bool ok;

  if (systemd_unit_parse (cp, "c1", &u, &err) < 0)
    {
      ok = slice == NULL && strcmp (err->msg, name) == 0;
      if (!ok)
        printf ("# %s: %s\n", cp, err->msg);
      ar_error_release (&err);
      return ok;
    }
  ok = slice && strcmp (u.slice, slice) == 0 && strcmp (u.name, name) == 0
       && strcmp (u.path, path) == 0;
  if (!ok)
    printf ("# %s → %s %s %s\n", cp ? cp : "(null)", u.slice, u.name, u.path);
  systemd_unit_release (&u);
  return ok;
}

static int
test_unit_parse (void)
{
  char long_name[300];

  CHECK (parses_to (NULL, "system.slice", "agentrt-c1.scope", "/system.slice/agentrt-c1.scope"));
  CHECK (parses_to ("", "system.slice", "agentrt-c1.scope", "/system.slice/agentrt-c1.scope"));
  /* The kubelet's, through containerd's CRI (besteffort pod).  */
  CHECK (parses_to ("kubepods-besteffort-pod0f1e_2d3c.slice:cri-containerd:abc123",
                    "kubepods-besteffort-pod0f1e_2d3c.slice", "cri-containerd-abc123.scope",
                    "/kubepods.slice/kubepods-besteffort.slice/"
                    "kubepods-besteffort-pod0f1e_2d3c.slice/cri-containerd-abc123.scope"));
  /* Podman's.  */
  CHECK (parses_to ("machine.slice:libpod:f00d", "machine.slice", "libpod-f00d.scope",
                    "/machine.slice/libpod-f00d.scope"));
  CHECK (parses_to (":runc:x", "system.slice", "runc-x.scope", "/system.slice/runc-x.scope"));
  CHECK (parses_to ("-.slice:p:n", "-.slice", "p-n.scope", "/p-n.scope"));
  CHECK (parses_to ("system.slice::n", "system.slice", "n.scope", "/system.slice/n.scope"));
  /* systemd escapes a directory that could be taken for a controller's file.  */
  CHECK (parses_to ("system.slice::cpu", "system.slice", "cpu.scope", "/system.slice/_cpu.scope"));
  CHECK (parses_to ("/agentrt/c1", NULL,
                    "config.json: linux.cgroupsPath `/agentrt/c1`: the systemd cgroup driver "
                    "takes `slice:prefix:name`",
                    NULL));
  CHECK (parses_to ("a:b", NULL,
                    "config.json: linux.cgroupsPath `a:b`: the systemd cgroup driver takes "
                    "`slice:prefix:name`",
                    NULL));
  CHECK (parses_to ("a.slice:b:c:d", NULL,
                    "config.json: linux.cgroupsPath `a.slice:b:c:d`: the systemd cgroup driver "
                    "takes `slice:prefix:name`",
                    NULL));
  CHECK (parses_to ("system.slice:p:", NULL,
                    "config.json: linux.cgroupsPath `system.slice:p:`: the name "
                    "(`slice:prefix:name`) is empty",
                    NULL));
  CHECK (parses_to ("system.slice:p:x.slice", NULL,
                    "config.json: linux.cgroupsPath `system.slice:p:x.slice`: the name is a "
                    "slice: a container's unit is a scope",
                    NULL));
  CHECK (parses_to ("system.slice:p:a b", NULL,
                    "config.json: linux.cgroupsPath `system.slice:p:a b`: a systemd unit name "
                    "has at most 255 of the characters A-Z a-z 0-9 : _ . -",
                    NULL));
  CHECK (parses_to ("a--b.slice:p:n", NULL,
                    "config.json: linux.cgroupsPath `a--b.slice:p:n`: `a--b.slice` is not a "
                    "slice name (an empty component)",
                    NULL));
  CHECK (parses_to ("a.scope:p:n", NULL,
                    "config.json: linux.cgroupsPath `a.scope:p:n`: `a.scope` is not a slice "
                    "name (NAME.slice)",
                    NULL));
  memset (long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  {
    cleanup_free char *cp = xasprintf ("system.slice:p:%s", long_name);
    struct systemd_unit u;
    ar_error_t err = NULL;
    CHECK (systemd_unit_parse (cp, "c1", &u, &err) < 0);
    CHECK (strstr (err->msg, "at most 255") != NULL);
    ar_error_release (&err);
  }
  return 0;
}

static int
test_cpu_quota (void)
{
  CHECK (systemd_cpu_quota_per_sec (50000, 100000) == 500000);
  /* A third of a CPU is 33.333 %: systemd keeps whole percents, so 34 %.  */
  CHECK (systemd_cpu_quota_per_sec (33333, 100000) == 340000);
  CHECK (systemd_cpu_quota_per_sec (1, 100000) == 10000);
  CHECK (systemd_cpu_quota_per_sec (150000, 0) == 1500000);
  CHECK (systemd_cpu_quota_per_sec (123, 1000) == 130000);
  CHECK (systemd_cpu_quota_per_sec (200000, 100000) == 2000000);
  CHECK (systemd_cpu_quota_per_sec (-1, 100000) == SYSTEMD_INFINITY);
  CHECK (systemd_cpu_quota_per_sec (0, 0) == SYSTEMD_INFINITY);
  return 0;
}

static bool
bits_are (const char *list, const char *hex)
{
  uint8_t *b = NULL;
  size_t n = 0;
  ar_error_t err = NULL;
  char got[64] = "";

  if (systemd_cpuset_bits (list, &b, &n, &err) < 0)
    {
      ar_error_release (&err);
      return hex == NULL;
    }
  for (size_t i = 0; i < n; i++)
    snprintf (got + strlen (got), sizeof got - strlen (got), "%02x", b[i]);
  free (b);
  if (hex && strcmp (got, hex) == 0)
    return true;
  printf ("# %s → %s, expected %s\n", list, got, hex ? hex : "an error");
  return false;
}

static int
test_cpuset_bits (void)
{
  CHECK (bits_are ("0", "01"));
  CHECK (bits_are ("0-2,7", "87"));
  CHECK (bits_are ("1,3-5", "3a"));
  CHECK (bits_are ("8", "0001"));
  CHECK (bits_are ("0-9", "ff03"));
  CHECK (bits_are (" 1, ,2", "06"));
  CHECK (bits_are ("", NULL));
  CHECK (bits_are ("a", NULL));
  CHECK (bits_are ("3-1", NULL));
  CHECK (bits_are ("1-", NULL));
  return 0;
}

/* The properties of linux.resources `json` (devices: with the default device rules).  */
static char *
props_of (const char *json, bool v2, unsigned version, bool devices, char **error)
{
  cleanup_free char *text = tap_json (json);
  struct spec_resources *r = NULL;
  struct systemd_props p = { NULL, 0 };
  ar_error_t err = NULL;
  char *out = NULL;

  *error = NULL;
  if (spec_parse_resources (text, "test", &r, &err) < 0
      || systemd_props_resources (&p, r, devices, NULL, 0, v2, version, &err) < 0)
    {
      *error = xstrdup (err->msg);
      ar_error_release (&err);
    }
  else
    out = systemd_props_text (&p);
  systemd_props_release (&p);
  spec_resources_free (r);
  return out;
}

#define CHECK_PROPS(json, v2, version, devices, want)                       \
  do                                                                        \
    {                                                                       \
      char *e_ = NULL;                                                      \
      cleanup_free char *got_ = props_of (json, v2, version, devices, &e_); \
      if (e_)                                                               \
        TAP_FAIL ("%s: %s", json, e_);                                      \
      CHECK_STR (got_, want);                                               \
    }                                                                       \
  while (0)

static int
test_resources_v2 (void)
{
  CHECK_PROPS ("{'memory': {'limit': 67108864, 'reservation': 33554432, 'swap': 134217728}}", true,
               252, false, "MemoryMax=67108864\nMemoryLow=33554432\nMemorySwapMax=67108864\n");
  /* No swap limit with an unlimited memory: swap unlimited too (runc).  */
  CHECK_PROPS ("{'memory': {'limit': -1}}", true, 252, false,
               "MemoryMax=infinity\nMemorySwapMax=infinity\n");
  /* shares 1024 → weight 39 (runc's and crun's formula); quota per second rounded to 10 ms; the
     exact cpu.max goes to the file afterwards.  */
  CHECK_PROPS ("{'cpu': {'shares': 1024, 'quota': 33333, 'period': 100000, 'cpus': '0-1', "
               "'mems': '0'}, 'pids': {'limit': 20}}",
               true, 252, false,
               "CPUWeight=39\nCPUQuotaPeriodUSec=100000\nCPUQuotaPerSecUSec=340000\n"
               "AllowedCPUs=[0x03]\nAllowedMemoryNodes=[0x01]\nTasksMax=20\n");
  /* Before 242 no CPUQuotaPeriodUSec, before 244 no AllowedCPUs: the files have them.  */
  CHECK_PROPS ("{'cpu': {'quota': 50000, 'period': 50000, 'cpus': '0'}}", true, 241, false,
               "CPUQuotaPerSecUSec=1000000\n");
  CHECK_PROPS ("{'cpu': {'quota': -1}, 'pids': {'limit': -1}}", true, 252, false,
               "CPUQuotaPerSecUSec=infinity\nTasksMax=infinity\n");
  /* cpu.idle is CPUWeight=0 from systemd 252.  */
  CHECK_PROPS ("{'cpu': {'shares': 1024, 'idle': 1}}", true, 252, false, "CPUWeight=0\n");
  CHECK_PROPS ("{'cpu': {'shares': 1024, 'idle': 1}}", true, 251, false, "CPUWeight=39\n");
  /* Docker's zeros mean "unset".  */
  CHECK_PROPS ("{'cpu': {'shares': 0, 'quota': 0}, 'memory': {'limit': 0}}", true, 252, false, "");
  /* v2 has no I/O properties in runc: the files only.  */
  CHECK_PROPS ("{'blockIO': {'weight': 500}}", true, 252, false, "");
  return 0;
}

static int
test_resources_v1 (void)
{
  CHECK_PROPS ("{'memory': {'limit': 67108864, 'swap': 134217728}, 'cpu': {'shares': 512, "
               "'quota': 20000}, 'blockIO': {'weight': 300}, 'pids': {'limit': 5}}",
               false, 252, false,
               "MemoryLimit=67108864\nCPUShares=512\nCPUQuotaPerSecUSec=200000\nTasksMax=5\n"
               "BlockIOWeight=300\n");
  return 0;
}

static int
test_unified (void)
{
  char *e = NULL;
  cleanup_free char *bad = NULL;

  CHECK_PROPS ("{'unified': {'memory.high': 'max', 'memory.min': '1048576', 'cpu.weight': '50', "
               "'cpu.max': 'max 50000', 'pids.max': '7', 'io.weight': 'default 100', "
               "'cpuset.cpus': '2'}}",
               true, 252, false,
               "MemoryHigh=infinity\nMemoryMin=1048576\nCPUWeight=50\nCPUQuotaPeriodUSec=50000\n"
               "CPUQuotaPerSecUSec=infinity\nTasksMax=7\nAllowedCPUs=[0x04]\n");
  CHECK_PROPS ("{'unified': {'cpu.max': '25000 100000'}}", true, 252, false,
               "CPUQuotaPeriodUSec=100000\nCPUQuotaPerSecUSec=250000\n");
  /* v1 has no unified map of properties (the files of a hybrid's cgroup2 directory only).  */
  CHECK_PROPS ("{'unified': {'memory.high': '5'}}", false, 252, false, "");
  bad = props_of ("{'unified': {'cpu.weight': 'heavy'}}", true, 252, false, &e);
  CHECK (bad == NULL && e != NULL);
  CHECK_STR (e, "config.json: linux.resources.unified: `cpu.weight`: cannot read `heavy`");
  free (e);
  return 0;
}

#define DEFAULTS                                                                            \
  "('char-*', 'm'), ('block-*', 'm'), ('/dev/char/1:3', 'rwm'), ('/dev/char/1:5', 'rwm'), " \
  "('/dev/char/1:7', 'rwm'), ('/dev/char/1:8', 'rwm'), ('/dev/char/1:9', 'rwm'), "          \
  "('/dev/char/5:0', 'rwm'), ('/dev/char/5:1', 'rwm'), ('/dev/char/5:2', 'rwm'), "          \
  "('char-136', 'rwm'), ('/dev/char/10:200', 'rwm')"

static int
test_devices (void)
{
  /* runc's default config: deny all, then the defaults every container gets.  */
  CHECK_PROPS ("{'devices': [{'allow': false, 'access': 'rwm'}]}", true, 252, true,
               "DevicePolicy='strict'\nDeviceAllow=[]\nDeviceAllow=[" DEFAULTS "]\n");
  /* The last rule wins; a rule that gives back access merges.  */
  CHECK_PROPS ("{'devices': [{'allow': false, 'access': 'rwm'}, {'allow': true, 'type': 'c', "
               "'major': 10, 'access': 'rw'}, {'allow': true, 'type': 'b', 'major': 8, 'minor': "
               "0, 'access': 'r'}, {'allow': false, 'type': 'b', 'major': 8, 'minor': 0, "
               "'access': 'r'}]}",
               true, 252, true,
               "DevicePolicy='strict'\nDeviceAllow=[]\nDeviceAllow=[('char-10', 'rw'), " DEFAULTS
               "]\n");
  /* A whole major before systemd 240 is left to the cgroup.  */
  CHECK_PROPS ("{'devices': [{'allow': false, 'access': 'rwm'}, {'allow': true, 'type': 'c', "
               "'major': 10, 'access': 'rw'}]}",
               true, 239, true,
               "DevicePolicy='strict'\nDeviceAllow=[]\nDeviceAllow=[('char-*', 'm'), "
               "('block-*', 'm'), ('/dev/char/1:3', 'rwm'), ('/dev/char/1:5', 'rwm'), "
               "('/dev/char/1:7', 'rwm'), ('/dev/char/1:8', 'rwm'), ('/dev/char/1:9', 'rwm'), "
               "('/dev/char/5:0', 'rwm'), ('/dev/char/5:1', 'rwm'), ('/dev/char/5:2', 'rwm'), "
               "('/dev/char/10:200', 'rwm')]\n");
  /* Everything allowed: policy auto and no list.  */
  CHECK_PROPS ("{'devices': [{'allow': true, 'access': 'rwm'}]}", true, 252, true,
               "DevicePolicy='auto'\nDeviceAllow=[]\n");
  /* A deny list systemd cannot hold: nothing allowed there, the cgroup has the exact rules.  */
  CHECK_PROPS ("{'devices': [{'allow': true, 'access': 'rwm'}, {'allow': false, 'type': 'c', "
               "'major': 4, 'minor': 1, 'access': 'rwm'}]}",
               true, 252, true, "DevicePolicy='strict'\nDeviceAllow=[]\n");
  /* … unless the defaults allow again what it denied (/dev/null): everything is allowed.  */
  CHECK_PROPS ("{'devices': [{'allow': true, 'access': 'rwm'}, {'allow': false, 'type': 'c', "
               "'major': 1, 'minor': 3, 'access': 'rwm'}]}",
               true, 252, true, "DevicePolicy='auto'\nDeviceAllow=[]\n");
  /* A hole in a wildcard allow: the same.  */
  CHECK_PROPS ("{'devices': [{'allow': false, 'access': 'rwm'}, {'allow': true, 'type': 'c', "
               "'access': 'rwm'}, {'allow': false, 'type': 'c', 'major': 1, 'minor': 3, "
               "'access': 'w'}]}",
               true, 252, true, "DevicePolicy='strict'\nDeviceAllow=[]\n");
  return 0;
}

static int
test_base (void)
{
  struct systemd_unit u = { .slice = (char *) "machine.slice", .name = (char *) "libpod-x.scope" };
  struct systemd_props p = { NULL, 0 };
  cleanup_free char *v2 = NULL;
  cleanup_free char *v1 = NULL;

  systemd_props_base (&p, &u, "x", 4242, true);
  v2 = systemd_props_text (&p);
  systemd_props_release (&p);
  CHECK_STR (v2, "Description='agentrt container x'\nSlice='machine.slice'\nDelegate=true\n"
                 "PIDs=[4242]\nMemoryAccounting=true\nCPUAccounting=true\nIOAccounting=true\n"
                 "TasksAccounting=true\nDefaultDependencies=false\n");
  systemd_props_base (&p, &u, "x", 4242, false);
  v1 = systemd_props_text (&p);
  systemd_props_release (&p);
  CHECK (strstr (v1, "\nBlockIOAccounting=true\n") && !strstr (v1, "\nIOAccounting"));
  return 0;
}

/* The annotations `k=v` … → properties text, or the error.  */
static char *
annotations_to (const char *const *kv, size_t n, bool *failed)
{
  struct spec_map m = { xzalloc (n * sizeof *m.items), n };
  struct systemd_props p = { NULL, 0 };
  ar_error_t err = NULL;
  char *out;

  for (size_t i = 0; i < n; i++)
    {
      m.items[i].key = xstrdup (kv[2 * i]);
      m.items[i].value = xstrdup (kv[2 * i + 1]);
    }
  *failed = systemd_props_annotations (&p, &m, &err) < 0;
  out = *failed ? xstrdup (err->msg) : systemd_props_text (&p);
  ar_error_release (&err);
  systemd_props_release (&p);
  spec_map_clear (&m);
  return out;
}

static int
test_annotations (void)
{
  static const char *const good[] = {
    "io.agentrt.timeout",
    "5m", /* not ours here */
    "org.systemd.property.TimeoutStopSec",
    "5",
    "org.systemd.property.RuntimeMaxSec",
    "1.5",
    "org.systemd.property.CollectMode",
    "'inactive-or-failed'",
    "org.systemd.property.After",
    "['a.service', \"b.service\"]",
    "org.systemd.property.Wants",
    "@as []",
    "org.systemd.property.TasksMax",
    "uint64 50",
    "org.systemd.property.MemoryHigh",
    "@t 1048576",
    "org.systemd.property.CPUWeight",
    "int32 -1",
    "org.systemd.property.SendSIGKILL",
    "false",
    "org.systemd.property.TimeoutStartUSec",
    "uint64 9",
  };
  bool failed;
  cleanup_free char *text = annotations_to (good, ARRAY_SIZE (good) / 2, &failed);
  const char *bad[][2] = {
    { "org.systemd.property.Timeout1Sec", "5" },
    { "org.systemd.property.Ab", "5" },
    { "org.systemd.property.CollectMode", "inactive" },
    { "org.systemd.property.TimeoutStopSec", "'5'" },
    { "org.systemd.property.TimeoutStopSec", "-5" },
    { "org.systemd.property.TasksMax", "uint64 -1" },
    { "org.systemd.property.After", "['a', 5]" },
    { "org.systemd.property.CollectMode", "'unterminated" },
    { "org.systemd.property.CPUWeight", "int32 99999999999" },
  };

  CHECK (!failed);
  CHECK_STR (text, "TimeoutStopUSec=5000000\nRuntimeMaxUSec=1500000\n"
                   "CollectMode='inactive-or-failed'\nAfter=['a.service', 'b.service']\nWants=[]\n"
                   "TasksMax=50\nMemoryHigh=1048576\nCPUWeight=-1\nSendSIGKILL=false\n"
                   "TimeoutStartUSec=9\n");
  for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
    {
      const char *kv[2] = { bad[i][0], bad[i][1] };
      cleanup_free char *e = annotations_to (kv, 1, &failed);
      if (!failed)
        TAP_FAIL ("%s=%s was taken: %s", kv[0], kv[1], e);
      CHECK (strstr (e, kv[0]) != NULL);
    }
  return 0;
}

int
main (void)
{
  RUN_TEST (test_expand_slice);
  RUN_TEST (test_unit_parse);
  RUN_TEST (test_cpu_quota);
  RUN_TEST (test_cpuset_bits);
  RUN_TEST (test_resources_v2);
  RUN_TEST (test_resources_v1);
  RUN_TEST (test_unified);
  RUN_TEST (test_devices);
  RUN_TEST (test_base);
  RUN_TEST (test_annotations);
  TAP_END ();
}
