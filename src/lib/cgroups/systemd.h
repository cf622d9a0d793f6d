/* The systemd cgroup driver, the half that needs no systemd: what runc's systemd manager
   (libcontainer/cgroups/systemd) works out before it calls systemd.  linux.cgroupsPath as
   `slice:prefix:name` (runc's form) → the unit `prefix-name.scope` in slice `slice`, and the
   cgroup directory systemd gives it, the slice expanded as systemd expands it
   (`a-b.slice` → /a.slice/a-b.slice); linux.resources, linux.devices and the
   org.systemd.property.* annotations → the unit's properties, with runc's conversions (cpu
   quota per second rounded up to 10 ms, CPUWeight from shares, cpusets as bit masks, device
   rules as DevicePolicy/DeviceAllow).  Talking to systemd is sdbus.c's; placing the container
   is cgroup_systemd.c's.  Nothing here touches the machine.  */
#ifndef AGENTRT_SYSTEMD_H
#define AGENTRT_SYSTEMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "spec/spec.h"

/* The slice of a container whose cgroupsPath names none (runc's for root).  */
#define SYSTEMD_DEFAULT_SLICE "system.slice"
/* The prefix of its unit when cgroupsPath is empty: agentrt-ID.scope.  */
#define SYSTEMD_DEFAULT_PREFIX "agentrt"
/* systemd's "infinity" (UINT64_MAX) for limits and USec values.  */
#define SYSTEMD_INFINITY UINT64_MAX

struct systemd_unit
{
  char *slice; /* the parent slice unit, "system.slice" */
  char *name;  /* the container's scope unit, "agentrt-ID.scope" */
  char *path;  /* its cgroup below each hierarchy's root, "/system.slice/agentrt-ID.scope" */
};
void systemd_unit_release (struct systemd_unit *u);

/* cgroupsPath (NULL or "" for none) and the container's id → the unit.  Errors name
   linux.cgroupsPath and what is wrong with it.  */
int systemd_unit_parse (const char *cgroups_path, const char *id, struct systemd_unit *u,
                        ar_error_t *err);
/* "a-b-c.slice" → "/a.slice/a-b.slice/a-b-c.slice", "-.slice" → "/" (runc's ExpandSlice).  */
int systemd_expand_slice (const char *slice, char **out, ar_error_t *err);

/* One property of a unit, as StartTransientUnit and SetUnitProperties take them: a name and a
   D-Bus variant of one of these types.  */
enum systemd_prop_type
{
  SDP_BOOL,    /* b */
  SDP_U64,     /* t */
  SDP_I64,     /* x */
  SDP_U32,     /* u */
  SDP_I32,     /* i */
  SDP_DOUBLE,  /* d */
  SDP_STR,     /* s */
  SDP_STRV,    /* as: strv[0..n) */
  SDP_PIDS,    /* au: pids[0..n) */
  SDP_BYTES,   /* ay: bytes[0..n) */
  SDP_DEVICES, /* a(ss): strv[0..2n), path and permissions in turn */
};

struct systemd_prop
{
  char *name;
  enum systemd_prop_type type;
  uint64_t u; /* b, t, u; i and x as their two's complement */
  double d;
  char *s;
  char **strv;
  uint32_t *pids;
  uint8_t *bytes;
  size_t n;
};

struct systemd_props
{
  struct systemd_prop *v;
  size_t n;
};
void systemd_props_release (struct systemd_props *p);
#define cleanup_systemd_props __attribute__ ((cleanup (systemd_props_release)))

/* What every container's scope gets (runc's Apply): Description, Slice, Delegate, PIDs (the
   init), accounting of memory, CPU, I/O (v1: BlockIO) and tasks, DefaultDependencies=no.  */
void systemd_props_base (struct systemd_props *p, const struct systemd_unit *u, const char *id,
                         pid_t pid, bool v2);

/* linux.resources as properties, for systemd `version` (0: unknown, as old as can be) on a v2 or
   v1/hybrid machine.  With `devices`, DevicePolicy and DeviceAllow from the device rules, the
   defaults every container gets and linux.devices (devs), as the cgroup files get them.  A
   resource systemd has no property for is left to the files; so is what it would round.  */
int systemd_props_resources (struct systemd_props *p, const struct spec_resources *r, bool devices,
                             const struct spec_device *devs, size_t n_devs, bool v2,
                             unsigned version, ar_error_t *err);

/* The annotations org.systemd.property.NAME=VALUE (runc's and crun's), VALUE in GVariant text:
   true, false, 'string', "string", ['a', 'b'], integers (bare: int32) and typed ones
   (uint64 5, @t 5, int32 -1, …), doubles.  NAME…Sec (a lower-case letter before Sec) becomes
   NAME…USec with the value in microseconds (TimeoutStopSec=5 → TimeoutStopUSec=5000000).  */
#define SYSTEMD_PROPERTY_PREFIX "org.systemd.property."
int systemd_props_annotations (struct systemd_props *p, const struct spec_map *a, ar_error_t *err);

/* CPUQuotaPerSecUSec of a quota and period in microseconds (period 0: 100000): rounded up to
   10 ms, as systemd keeps whole percents (runc rounds the same way, so that the child cgroups
   it writes the exact cpu.max into are not above their parent); SYSTEMD_INFINITY when the
   quota is not positive.  */
uint64_t systemd_cpu_quota_per_sec (int64_t quota, uint64_t period);
/* A cpuset list ("0-2,7") as systemd's AllowedCPUs bytes: bit i of byte i/8 is CPU i.  */
int systemd_cpuset_bits (const char *list, uint8_t **bits, size_t *n, ar_error_t *err);

/* The properties as text, one "Name=value" a line (the log, the unit tests).  */
char *systemd_props_text (const struct systemd_props *p);

#endif
