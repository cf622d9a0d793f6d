/* systemd's manager over D-Bus, through sd-bus (libsystemd), for the systemd cgroup driver:
   start a transient unit and wait for its job, change its properties, stop it.

   libsystemd is loaded (dlopen "libsystemd.so.0") only when a command uses the driver: linked
   in, it and the six libraries it pulls (libgcrypt, libgpg-error, liblzma, libzstd, liblz4,
   libcap) cost every agentrt call, the cgroupfs ones too, ~0.45 ms of loading (0.61 → 1.06 ms
   of CPU for `agentrt --version`, perf stat -r 300).  The types and signatures come from
   <systemd/sd-bus.h> at build time (libsystemd-dev), so each symbol taken is checked against
   the header by the compiler.  */
#ifndef AGENTRT_SDBUS_H
#define AGENTRT_SDBUS_H

#include "agentrt/error.h"
#include "cgroups/systemd.h"

struct sdbus;

/* Connect to systemd: as root its private socket (/run/systemd/private, what systemctl uses:
   no bus daemon in between, and it works before dbus runs), else the system bus.  */
int sdbus_open (struct sdbus **out, ar_error_t *err);
void sdbus_close (struct sdbus *b);
/* systemd's version (252 for "252.38-1~deb12u1"), 0 when it cannot be read.  */
unsigned sdbus_version (struct sdbus *b);

/* StartTransientUnit(name, "replace", props) and wait for its job to be done (30 s at most).
   A unit of that name left failed is reset and the start tried once more (runc).  */
int sdbus_start_unit (struct sdbus *b, const char *name, const struct systemd_props *props,
                      ar_error_t *err);
/* SetUnitProperties(name, runtime=true, props).  */
int sdbus_set_properties (struct sdbus *b, const char *name, const struct systemd_props *props,
                          ar_error_t *err);
/* StopUnit(name, "replace"), waiting for the job, then ResetFailedUnit(name).  A unit that does
   not exist (systemd removes a scope once its processes are gone) is stopped already.  */
int sdbus_stop_unit (struct sdbus *b, const char *name, ar_error_t *err);

#endif
