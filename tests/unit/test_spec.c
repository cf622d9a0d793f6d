/* spec.c: a config using every section, runc's `runc spec` output, and one exact error message
   for each way a config can be wrong.  JSON is written with single quotes for readability;
   tap_json() turns them into double quotes.  */
#include <config.h>

#include <errno.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "spec/spec.h"
#include "tap.h"
#include "utils.h"

static int
parse_sq (const char *sq, struct spec **out, ar_error_t *err)
{
  cleanup_free char *text = tap_json (sq);
  return spec_parse (text, "config.json", out, err);
}

/* Parse SQ, expecting failure with exactly MSG (and no errno).  */
static int
check_error (const char *sq, const char *msg)
{
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;
  cleanup_free char *text = NULL;
  int ret = parse_sq (sq, &s, &err);

  if (ret == 0)
    {
      printf ("# accepted: %s\n", sq);
      return -1;
    }
  text = ar_error_text (err);
  ret = err->status == 0 && strcmp (text, msg) == 0 ? 0 : -1;
  if (ret < 0)
    printf ("# input:    %s\n# got:      %s (status %d)\n# expected: %s\n", sq, text, err->status,
            msg);
  ar_error_release (&err);
  return ret;
}

static const char full_config[]
    = "{ 'ociVersion': '1.2.0', 'unknownTopLevel': { 'x': [1, 2.5, null] },"
      "  'process': {"
      "    'terminal': true, 'consoleSize': { 'height': 24, 'width': 80 },"
      "    'user': { 'uid': 1000, 'gid': 1001, 'umask': 18, 'additionalGids': [5, 4294967294],"
      "              'username': 'alice' },"
      "    'args': ['/bin/sh', '-c', 'echo hi'], 'env': ['PATH=/bin', 'TERM=xterm'],"
      "    'cwd': '/home',"
      "    'capabilities': { 'bounding': ['CAP_CHOWN', 'CAP_CHECKPOINT_RESTORE'],"
      "                      'effective': ['CAP_KILL'], 'inheritable': [],"
      "                      'permitted': ['CAP_KILL'], 'ambient': null },"
      "    'rlimits': [ { 'type': 'RLIMIT_NOFILE', 'soft': 1024, 'hard': 18446744073709551615 },"
      "                 { 'type': 'RLIMIT_RTTIME', 'soft': 0, 'hard': 0 } ],"
      "    'noNewPrivileges': true, 'apparmorProfile': 'unconfined', 'oomScoreAdj': -1000,"
      "    'scheduler': { 'policy': 'SCHED_DEADLINE', 'nice': -5, 'priority': 0,"
      "                   'flags': ['SCHED_FLAG_RESET_ON_FORK'], 'runtime': 1000,"
      "                   'deadline': 2000, 'period': 3000 },"
      "    'selinuxLabel': 'system_u:system_r:container_t:s0',"
      "    'ioPriority': { 'class': 'IOPRIO_CLASS_BE', 'priority': 7 },"
      "    'execCPUAffinity': { 'initial': '0-1', 'final': '2' }, 'futureField': 1 },"
      "  'root': { 'path': 'rootfs', 'readonly': true },"
      "  'hostname': 'box', 'domainname': 'example.org',"
      "  'mounts': ["
      "    { 'destination': '/proc', 'type': 'proc', 'source': 'proc', 'options': null },"
      "    { 'destination': '/data', 'type': 'bind', 'source': '/srv',"
      "      'options': ['rbind', 'ro', 'mode=755'],"
      "      'uidMappings': [ { 'containerID': 0, 'hostID': 100000, 'size': 65536 } ],"
      "      'gidMappings': [ { 'containerID': 0, 'hostID': 200000, 'size': 1 } ] } ],"
      "  'hooks': {"
      "    'prestart': [ { 'path': '/bin/pre', 'args': ['pre', 'x'], 'env': ['A=1'],"
      "                    'timeout': 5 } ],"
      "    'createRuntime': [ { 'path': '/bin/cr' } ], 'createContainer': [],"
      "    'startContainer': null, 'poststart': [ { 'path': '/bin/ps' } ],"
      "    'poststop': [ { 'path': '/bin/p1' }, { 'path': '/bin/p2', 'timeout': 1 } ],"
      "    'unknownHook': 'ignored' },"
      "  'annotations': { 'io.agentrt.audit': '/tmp/a.jsonl', 'k': 'v' },"
      "  'linux': {"
      "    'namespaces': [ { 'type': 'pid' }, { 'type': 'network', 'path': '/proc/1/ns/net' },"
      "                    { 'type': 'mount' }, { 'type': 'ipc' }, { 'type': 'uts' },"
      "                    { 'type': 'user' }, { 'type': 'cgroup' },"
      "                    { 'type': 'time', 'path': '' } ],"
      "    'uidMappings': [ { 'containerID': 0, 'hostID': 1000, 'size': 1 } ],"
      "    'gidMappings': [ { 'containerID': 0, 'hostID': 1000, 'size': 1 },"
      "                     { 'containerID': 1, 'hostID': 100000, 'size': 65536 } ],"
      "    'timeOffsets': { 'monotonic': { 'secs': -10, 'nanosecs': 500 },"
      "                     'boottime': { 'secs': 3600 } },"
      "    'devices': [ { 'type': 'c', 'path': '/dev/fuse', 'major': 10, 'minor': 229,"
      "                   'fileMode': 438, 'uid': 0, 'gid': 0 },"
      "                 { 'type': 'p', 'path': '/dev/fifo' } ],"
      "    'cgroupsPath': '/agentrt/box',"
      "    'resources': {"
      "      'devices': [ { 'allow': false, 'access': 'rwm' },"
      "                   { 'allow': true, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'rw' },"
      "                   { 'allow': true, 'type': 'b', 'major': null } ],"
      "      'memory': { 'limit': 9223372036854775807, 'reservation': 1048576, 'swap': -1,"
      "                  'kernel': null, 'kernelTCP': 0, 'swappiness': 60,"
      "                  'disableOOMKiller': true, 'useHierarchy': false,"
      "                  'checkBeforeUpdate': true },"
      "      'cpu': { 'shares': 1024, 'quota': -1, 'burst': 0, 'period': 100000,"
      "               'realtimeRuntime': 950000, 'realtimePeriod': 1000000, 'cpus': '0-3',"
      "               'mems': '0', 'idle': 1 },"
      "      'pids': { 'limit': -1 },"
      "      'blockIO': { 'weight': 500, 'leafWeight': 300,"
      "                   'weightDevice': [ { 'major': 8, 'minor': 0, 'weight': 600 } ],"
      "                   'throttleReadBpsDevice': [ { 'major': 8, 'minor': 0, 'rate': 1048576 } ],"
      "                   'throttleWriteIOPSDevice': [ { 'major': 8, 'minor': 16, 'rate': 100 },"
      "                                                { 'major': 8, 'minor': 32, 'rate': 200 } ] "
      "},"
      "      'hugepageLimits': [ { 'pageSize': '2MB', 'limit': 209715200 } ],"
      "      'network': { 'classID': 1048577, 'priorities': [ { 'name': 'eth0', 'priority': 500 } "
      "] },"
      "      'rdma': { 'mlx5_1': { 'hcaHandles': 3, 'hcaObjects': 10000 } },"
      "      'unified': { 'memory.high': '1073741824', 'io.max': '8:0 rbps=1048576' } },"
      "    'sysctl': { 'net.ipv4.ip_forward': '1' },"
      "    'seccomp': {"
      "      'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 38,"
      "      'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_RISCV64'],"
      "      'flags': ['SECCOMP_FILTER_FLAG_LOG', 'SECCOMP_FILTER_FLAG_SPEC_ALLOW'],"
      "      'listenerPath': '/run/agent.sock', 'listenerMetadata': 'meta',"
      "      'syscalls': ["
      "        { 'names': ['read', 'write'], 'action': 'SCMP_ACT_ALLOW' },"
      "        { 'names': ['personality'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 1,"
      "          'args': [ { 'index': 0, 'value': 18446744073709551615, 'valueTwo': 0,"
      "                      'op': 'SCMP_CMP_MASKED_EQ' },"
      "                    { 'index': 5, 'value': 8, 'op': 'SCMP_CMP_NE' } ] },"
      "        { 'names': ['mount'], 'action': 'SCMP_ACT_NOTIFY' },"
      "        { 'names': ['kill'], 'action': 'SCMP_ACT_KILL_PROCESS' } ] },"
      "    'rootfsPropagation': 'rslave',"
      "    'maskedPaths': ['/proc/kcore'], 'readonlyPaths': ['/proc/sys', '/proc/bus'],"
      "    'mountLabel': 'system_u:object_r:container_file_t:s0',"
      "    'personality': { 'domain': 'LINUX32', 'flags': [] },"
      "    'intelRdt': { 'closID': 'x', 'l3CacheSchema': 'L3:0=f' },"
      "    'netDevices': { 'eth1': { 'name': 'ceth1' }, 'eth2': {} },"
      "    'windowsOnly': null },"
      "  'windows': { 'layerFolders': [] }, 'vm': null }";

static int
check_full_process (const struct spec_process *p)
{
  CHECK (p->terminal && p->has_console_size);
  CHECK (p->console_height == 24 && p->console_width == 80);
  CHECK (p->user.uid == 1000 && p->user.gid == 1001);
  CHECK (p->user.umask.set && p->user.umask.v == 18);
  CHECK (p->user.n_additional_gids == 2 && p->user.additional_gids[1] == UINT32_MAX - 1);
  CHECK_STR (p->user.username, "alice");
  CHECK (p->args.n == 3 && p->args.v[3] == NULL);
  CHECK_STR (p->args.v[2], "echo hi");
  CHECK (p->env.n == 2);
  CHECK_STR (p->env.v[1], "TERM=xterm");
  CHECK_STR (p->cwd, "/home");
  CHECK (p->command_line == NULL);
  CHECK (p->has_capabilities && p->capabilities.bounding.n == 2);
  CHECK_STR (p->capabilities.bounding.v[1], "CAP_CHECKPOINT_RESTORE");
  CHECK (p->capabilities.inheritable.n == 0 && p->capabilities.inheritable.v != NULL);
  CHECK (p->capabilities.ambient.v == NULL);
  CHECK (p->n_rlimits == 2 && p->rlimits[0].resource == RLIMIT_NOFILE);
  CHECK (p->rlimits[0].soft == 1024 && p->rlimits[0].hard == UINT64_MAX);
  CHECK_STR (p->rlimits[1].type, "RLIMIT_RTTIME");
  CHECK (p->rlimits[1].resource == RLIMIT_RTTIME);
  CHECK (p->no_new_privileges);
  CHECK_STR (p->apparmor_profile, "unconfined");
  CHECK (p->oom_score_adj.set && p->oom_score_adj.v == -1000);
  CHECK (p->has_scheduler && p->scheduler.nice == -5 && p->scheduler.period == 3000);
  CHECK_STR (p->scheduler.policy, "SCHED_DEADLINE");
  CHECK_STR (p->scheduler.flags.v[0], "SCHED_FLAG_RESET_ON_FORK");
  CHECK_STR (p->selinux_label, "system_u:system_r:container_t:s0");
  CHECK (p->has_io_priority && p->io_priority.priority == 7);
  CHECK_STR (p->io_priority.klass, "IOPRIO_CLASS_BE");
  CHECK_STR (p->exec_cpu_affinity_initial, "0-1");
  CHECK_STR (p->exec_cpu_affinity_final, "2");
  return 0;
}

static int
check_full_top (const struct spec *s)
{
  const struct spec_mount *m = &s->mounts[1];

  CHECK_STR (s->oci_version, "1.2.0");
  CHECK_STR (s->root.path, "rootfs");
  CHECK (s->root.readonly && s->has_process && s->has_linux);
  CHECK_STR (s->hostname, "box");
  CHECK_STR (s->domainname, "example.org");
  CHECK (s->n_mounts == 2 && s->mounts[0].options.v == NULL);
  CHECK_STR (m->source, "/srv");
  CHECK (m->options.n == 3);
  CHECK_STR (m->options.v[2], "mode=755");
  CHECK (m->n_uid_mappings == 1 && m->uid_mappings[0].host_id == 100000);
  CHECK (m->uid_mappings[0].size == 65536 && m->gid_mappings[0].host_id == 200000);
  CHECK (s->hooks[SPEC_HOOK_PRESTART].n == 1);
  CHECK (s->hooks[SPEC_HOOK_PRESTART].items[0].timeout.set);
  CHECK (s->hooks[SPEC_HOOK_PRESTART].items[0].timeout.v == 5);
  CHECK_STR (s->hooks[SPEC_HOOK_PRESTART].items[0].args.v[1], "x");
  CHECK (!s->hooks[SPEC_HOOK_CREATE_RUNTIME].items[0].timeout.set);
  CHECK (s->hooks[SPEC_HOOK_CREATE_CONTAINER].n == 0);
  CHECK (s->hooks[SPEC_HOOK_START_CONTAINER].n == 0);
  CHECK (s->hooks[SPEC_HOOK_POSTSTOP].n == 2);
  CHECK_STR (s->hooks[SPEC_HOOK_POSTSTOP].items[1].path, "/bin/p2");
  CHECK (s->annotations.n == 2);
  CHECK_STR (s->annotations.items[0].key, "io.agentrt.audit");
  CHECK_STR (s->annotations.items[0].value, "/tmp/a.jsonl");
  return 0;
}

static int
check_full_linux (const struct spec_linux *l)
{
  CHECK (l->n_namespaces == 8 && l->namespaces[1].kind == SPEC_NS_NETWORK);
  CHECK_STR (l->namespaces[1].path, "/proc/1/ns/net");
  CHECK (l->namespaces[7].kind == SPEC_NS_TIME && l->namespaces[7].path == NULL);
  CHECK (l->n_uid_mappings == 1 && l->n_gid_mappings == 2);
  CHECK (l->gid_mappings[1].container_id == 1 && l->gid_mappings[1].size == 65536);
  CHECK (l->time_monotonic.set && l->time_monotonic.secs == -10);
  CHECK (l->time_monotonic.nanosecs == 500);
  CHECK (l->time_boottime.set && l->time_boottime.secs == 3600);
  CHECK (l->n_devices == 2 && l->devices[0].type == 'c' && l->devices[0].minor == 229);
  CHECK (l->devices[0].file_mode.set && l->devices[0].file_mode.v == 0666);
  CHECK (l->devices[1].type == 'p' && !l->devices[1].uid.set);
  CHECK_STR (l->cgroups_path, "/agentrt/box");
  CHECK (l->sysctl.n == 1);
  CHECK_STR (l->sysctl.items[0].value, "1");
  CHECK_STR (l->rootfs_propagation, "rslave");
  CHECK (l->masked_paths.n == 1 && l->readonly_paths.n == 2);
  CHECK_STR (l->readonly_paths.v[1], "/proc/bus");
  CHECK_STR (l->mount_label, "system_u:object_r:container_file_t:s0");
  CHECK (l->has_personality && l->personality.flags.n == 0);
  CHECK_STR (l->personality.domain, "LINUX32");
  CHECK (l->has_intel_rdt);
  CHECK (l->n_net_devices == 2 && l->net_devices[1].name == NULL);
  CHECK_STR (l->net_devices[0].host_name, "eth1");
  CHECK_STR (l->net_devices[0].name, "ceth1");
  return 0;
}

static int
check_full_resources (const struct spec_resources *r)
{
  const struct spec_block_io *b = &r->block_io;

  CHECK (r->n_devices == 3 && !r->devices[0].allow && r->devices[0].type == 'a');
  CHECK (!r->devices[0].major.set && r->devices[1].type == 'c');
  CHECK (r->devices[1].major.set && r->devices[1].minor.v == 3);
  CHECK_STR (r->devices[1].access, "rw");
  CHECK (r->devices[2].type == 'b' && !r->devices[2].major.set && r->devices[2].access == NULL);
  CHECK (r->has_memory && r->memory.limit.v == INT64_MAX);
  CHECK (r->memory.swap.set && r->memory.swap.v == -1);
  CHECK (!r->memory.kernel.set && r->memory.kernel_tcp.set);
  CHECK (r->memory.swappiness.set && r->memory.swappiness.v == 60);
  CHECK (r->memory.has_disable_oom_killer && r->memory.disable_oom_killer);
  CHECK (r->memory.has_use_hierarchy && !r->memory.use_hierarchy);
  CHECK (r->memory.check_before_update);
  CHECK (r->has_cpu && r->cpu.shares.v == 1024 && r->cpu.quota.v == -1);
  CHECK (r->cpu.burst.set && r->cpu.realtime_period.v == 1000000 && r->cpu.idle.v == 1);
  CHECK_STR (r->cpu.cpus, "0-3");
  CHECK (r->pids_limit.set && r->pids_limit.v == -1);
  CHECK (r->has_block_io && b->weight.v == 500 && b->leaf_weight.v == 300);
  CHECK (b->n_weight_device == 1 && b->weight_device[0].weight.v == 600);
  CHECK (!b->weight_device[0].leaf_weight.set);
  CHECK (b->n_throttle[0] == 1 && b->throttle[0][0].rate == 1048576);
  CHECK (b->n_throttle[1] == 0 && b->n_throttle[2] == 0 && b->n_throttle[3] == 2);
  CHECK (b->throttle[3][1].minor == 32 && b->throttle[3][1].rate == 200);
  CHECK (r->n_hugepage_limits == 1 && r->hugepage_limits[0].limit == 209715200);
  CHECK_STR (r->hugepage_limits[0].page_size, "2MB");
  CHECK (r->has_network && r->net_class_id.v == 1048577 && r->n_net_priorities == 1);
  CHECK (r->net_priorities[0].priority == 500);
  CHECK (r->n_rdma == 1 && r->rdma[0].hca_objects.v == 10000);
  CHECK_STR (r->rdma[0].device, "mlx5_1");
  CHECK (r->unified.n == 2);
  CHECK_STR (r->unified.items[1].key, "io.max");
  return 0;
}

static int
check_full_seccomp (const struct spec_seccomp *sc)
{
  CHECK (sc->default_action == SCMP_ACT_ERRNO (0));
  CHECK (sc->default_errno_ret.set && sc->default_errno_ret.v == 38);
  CHECK (sc->architectures.n == 3);
  CHECK_STR (sc->architectures.v[2], "SCMP_ARCH_RISCV64");
  CHECK (sc->flags.n == 2);
  CHECK_STR (sc->listener_path, "/run/agent.sock");
  CHECK_STR (sc->listener_metadata, "meta");
  CHECK (sc->n_syscalls == 4 && sc->syscalls[0].names.n == 2);
  CHECK (sc->syscalls[0].action == SCMP_ACT_ALLOW && !sc->syscalls[0].errno_ret.set);
  CHECK (sc->syscalls[1].action == SCMP_ACT_ERRNO (0) && sc->syscalls[1].errno_ret.v == 1);
  CHECK (sc->syscalls[1].n_args == 2 && sc->syscalls[1].args[0].value == UINT64_MAX);
  CHECK (sc->syscalls[1].args[0].op == SCMP_CMP_MASKED_EQ);
  CHECK (sc->syscalls[1].args[1].index == 5 && sc->syscalls[1].args[1].op == SCMP_CMP_NE);
  CHECK (sc->syscalls[2].action == SCMP_ACT_NOTIFY);
  CHECK (sc->syscalls[3].action == SCMP_ACT_KILL_PROCESS);
  return 0;
}

static int
test_full_config (void)
{
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;

  if (parse_sq (full_config, &s, &err) < 0)
    {
      cleanup_free char *text = ar_error_text (err);
      ar_error_release (&err);
      TAP_FAIL ("parse: %s", text);
    }
  CHECK (s->linux_.has_resources && s->linux_.has_seccomp);
  if (check_full_top (s) < 0 || check_full_process (&s->process) < 0
      || check_full_linux (&s->linux_) < 0 || check_full_resources (&s->linux_.resources) < 0
      || check_full_seccomp (&s->linux_.seccomp) < 0)
    return -1;
  return 0;
}

static const char runc_spec[]
    = "{\n"
      "\t'ociVersion': '1.2.0',\n"
      "\t'process': {\n"
      "\t\t'terminal': true,\n"
      "\t\t'user': { 'uid': 0, 'gid': 0 },\n"
      "\t\t'args': [ 'sh' ],\n"
      "\t\t'env': [\n"
      "\t\t\t'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',\n"
      "\t\t\t'TERM=xterm'\n"
      "\t\t],\n"
      "\t\t'cwd': '/',\n"
      "\t\t'capabilities': {\n"
      "\t\t\t'bounding': [ 'CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE' ],\n"
      "\t\t\t'effective': [ 'CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE' ],\n"
      "\t\t\t'permitted': [ 'CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE' ]\n"
      "\t\t},\n"
      "\t\t'rlimits': [ { 'type': 'RLIMIT_NOFILE', 'hard': 1024, 'soft': 1024 } ],\n"
      "\t\t'noNewPrivileges': true\n"
      "\t},\n"
      "\t'root': { 'path': 'rootfs', 'readonly': true },\n"
      "\t'hostname': 'runc',\n"
      "\t'mounts': [\n"
      "\t\t{ 'destination': '/proc', 'type': 'proc', 'source': 'proc' },\n"
      "\t\t{ 'destination': '/dev', 'type': 'tmpfs', 'source': 'tmpfs',\n"
      "\t\t  'options': [ 'nosuid', 'strictatime', 'mode=755', 'size=65536k' ] },\n"
      "\t\t{ 'destination': '/dev/pts', 'type': 'devpts', 'source': 'devpts',\n"
      "\t\t  'options': [ 'nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620',\n"
      "\t\t               'gid=5' ] },\n"
      "\t\t{ 'destination': '/dev/shm', 'type': 'tmpfs', 'source': 'shm',\n"
      "\t\t  'options': [ 'nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k' ] },\n"
      "\t\t{ 'destination': '/dev/mqueue', 'type': 'mqueue', 'source': 'mqueue',\n"
      "\t\t  'options': [ 'nosuid', 'noexec', 'nodev' ] },\n"
      "\t\t{ 'destination': '/sys', 'type': 'sysfs', 'source': 'sysfs',\n"
      "\t\t  'options': [ 'nosuid', 'noexec', 'nodev', 'ro' ] },\n"
      "\t\t{ 'destination': '/sys/fs/cgroup', 'type': 'cgroup', 'source': 'cgroup',\n"
      "\t\t  'options': [ 'nosuid', 'noexec', 'nodev', 'relatime', 'ro' ] }\n"
      "\t],\n"
      "\t'linux': {\n"
      "\t\t'resources': { 'devices': [ { 'allow': false, 'access': 'rwm' } ] },\n"
      "\t\t'namespaces': [ { 'type': 'pid' }, { 'type': 'network' }, { 'type': 'ipc' },\n"
      "\t\t                { 'type': 'uts' }, { 'type': 'mount' }, { 'type': 'cgroup' } ],\n"
      "\t\t'maskedPaths': [ '/proc/acpi', '/proc/asound', '/proc/kcore', '/proc/keys',\n"
      "\t\t\t'/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats',\n"
      "\t\t\t'/proc/sched_debug', '/sys/firmware', '/proc/scsi', '/sys/devices/virtual/tpm' ],\n"
      "\t\t'readonlyPaths': [ '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys',\n"
      "\t\t\t'/proc/sysrq-trigger' ]\n"
      "\t}\n"
      "}\n";

static int
test_runc_spec (void)
{
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;

  if (parse_sq (runc_spec, &s, &err) < 0)
    {
      cleanup_free char *text = ar_error_text (err);
      ar_error_release (&err);
      TAP_FAIL ("parse: %s", text);
    }
  CHECK (s->has_process && s->process.terminal && s->process.user.uid == 0);
  CHECK (!s->process.user.umask.set && s->process.capabilities.inheritable.v == NULL);
  CHECK (s->process.n_rlimits == 1 && s->process.rlimits[0].hard == 1024);
  CHECK (s->n_mounts == 7 && s->mounts[2].options.n == 6);
  CHECK_STR (s->mounts[6].destination, "/sys/fs/cgroup");
  CHECK (s->linux_.n_namespaces == 6 && s->linux_.namespaces[5].kind == SPEC_NS_CGROUP);
  CHECK (s->linux_.resources.n_devices == 1 && !s->linux_.resources.devices[0].allow);
  CHECK (s->linux_.masked_paths.n == 11 && s->linux_.readonly_paths.n == 5);
  CHECK (!s->linux_.has_seccomp && s->linux_.rootfs_propagation == NULL);
  return 0;
}

/* Valid top-level members, so each malformed config below fails only where it means to.  */
#define BASE "'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }"
#define CFG(members) "{ " BASE ", " members " }"
#define PROC(members) CFG ("'process': { 'cwd': '/', 'args': ['sh'], " members " }")
#define LINUX(members) CFG ("'linux': { " members " }")
#define RES(members) LINUX ("'resources': { " members " }")
#define SECCOMP(members) LINUX ("'seccomp': { 'defaultAction': 'SCMP_ACT_ALLOW', " members " }")
#define SYSCALL(members) SECCOMP ("'syscalls': [ { 'names': ['read'], " members " } ]")
#define ARG(members) SYSCALL ("'action': 'SCMP_ACT_ALLOW', 'args': [ { " members " } ]")
#define E "config.json: "
#define ID_UNCHANGED "4294967295 is -1, \"unchanged\" to setresuid and setresgid: not an id"

struct bad_case
{
  const char *json;
  const char *msg;
};

static const struct bad_case bad_top[] = {
  { "[]", E "expected an object" },
  { "null", E "expected an object" },
  { "{ 'root': { 'path': 'rootfs' } }", E "ociVersion: is required" },
  { "{ 'ociVersion': 1.2, 'root': { 'path': 'rootfs' } }", E "ociVersion: expected a string" },
  { "{ 'ociVersion': '1.2.0' }", E "root: is required" },
  { "{ 'ociVersion': '1.2.0', 'root': null }", E "root: is required" },
  { "{ 'ociVersion': '1.2.0', 'root': 'rootfs' }", E "root: expected an object" },
  { "{ 'ociVersion': '1.2.0', 'root': {} }", E "root.path: is required" },
  { "{ 'ociVersion': '1.2.0', 'root': { 'path': '' } }",
    E "root.path: expected a non-empty string" },
  { "{ 'ociVersion': '1.2.0', 'root': { 'path': 'r', 'readonly': 'yes' } }",
    E "root.readonly: expected a boolean" },
  { CFG ("'hostname': 5"), E "hostname: expected a string" },
  { CFG ("'domainname': []"), E "domainname: expected a string" },
  { CFG ("'mounts': {}"), E "mounts: expected an array" },
  { CFG ("'mounts': ['proc']"), E "mounts[0]: expected an object" },
  { CFG ("'mounts': [ { 'destination': '/a' }, { 'destination': '/b' }, { 'destination': 3 } ]"),
    E "mounts[2].destination: expected a string" },
  { CFG ("'mounts': [ { 'type': 'tmpfs', 'source': 'tmpfs' } ]"),
    E "mounts[0].destination: is required" },
  { CFG ("'mounts': [ { 'destination': '/a', 'options': ['ro', 1] } ]"),
    E "mounts[0].options[1]: expected a string" },
  { CFG ("'mounts': [ { 'destination': '/a', 'uidMappings': [ { 'containerID': 0, 'hostID': 0 } "
         "] } ]"),
    E "mounts[0].uidMappings[0].size: is required" },
  { CFG ("'hooks': []"), E "hooks: expected an object" },
  { CFG ("'hooks': { 'prestart': {} }"), E "hooks.prestart: expected an array" },
  { CFG ("'hooks': { 'prestart': [ { 'args': ['x'] } ] }"),
    E "hooks.prestart[0].path: is required" },
  { CFG ("'hooks': { 'poststop': [ { 'path': '/a' }, { 'path': 'b' } ] }"),
    E "hooks.poststop[1].path: expected an absolute path" },
  { CFG ("'hooks': { 'createRuntime': [ { 'path': '/a', 'timeout': 0 } ] }"),
    E "hooks.createRuntime[0].timeout: expected a positive integer" },
  { CFG ("'hooks': { 'poststart': [ { 'path': '/a', 'timeout': 1.5 } ] }"),
    E "hooks.poststart[0].timeout: expected an integer" },
  { CFG ("'hooks': { 'startContainer': [ { 'path': '/a', 'env': 'A=1' } ] }"),
    E "hooks.startContainer[0].env: expected an array" },
  { CFG ("'annotations': []"), E "annotations: expected an object" },
  { CFG ("'annotations': { 'a': 'b', 'io.x': 1 }"), E "annotations.io.x: expected a string" },
  { CFG ("'linux': []"), E "linux: expected an object" },
};

static const struct bad_case bad_process[] = {
  { CFG ("'process': 'sh'"), E "process: expected an object" },
  { CFG ("'process': { 'args': ['sh'] }"), E "process.cwd: is required" },
  { CFG ("'process': { 'args': ['sh'], 'cwd': 'home' }"),
    E "process.cwd: expected an absolute path" },
  { CFG ("'process': { 'cwd': '/', 'args': [] }"), E "process.args: expected a non-empty array" },
  { CFG ("'process': { 'cwd': '/' }"), E "process.args: is required" },
  { CFG ("'process': { 'cwd': '/', 'args': ['sh', 1] }"), E "process.args[1]: expected a string" },
  { PROC ("'terminal': 'true'"), E "process.terminal: expected a boolean" },
  { PROC ("'consoleSize': { 'height': 25 }"), E "process.consoleSize.width: is required" },
  { PROC ("'user': { 'uid': -1 }"), E "process.user.uid: expected a non-negative integer" },
  { PROC ("'user': { 'uid': 1.5 }"), E "process.user.uid: expected an integer" },
  { PROC ("'user': { 'uid': 1e3 }"), E "process.user.uid: expected an integer" },
  { PROC ("'user': { 'gid': 4294967296 }"),
    E "process.user.gid: expected an integer in [0, 4294967295]" },
  { PROC ("'user': { 'additionalGids': [1, '2'] }"),
    E "process.user.additionalGids[1]: expected an integer" },
  /* (uid_t) -1: setresuid(-1, ...) would leave the process root.  */
  { PROC ("'user': { 'uid': 4294967295 }"), E "process.user.uid: " ID_UNCHANGED },
  { PROC ("'user': { 'gid': 4294967295 }"), E "process.user.gid: " ID_UNCHANGED },
  { PROC ("'user': { 'additionalGids': [1, 4294967295] }"),
    E "process.user.additionalGids[1]: " ID_UNCHANGED },
  { PROC ("'user': { 'username': false }"), E "process.user.username: expected a string" },
  { PROC ("'env': [ 'A=1', null ]"), E "process.env[1]: expected a string" },
  { PROC ("'capabilities': { 'bounding': ['CAP_KILL', 'CAP_FOO'] }"),
    E "process.capabilities.bounding[1]: unknown capability `CAP_FOO`" },
  { PROC ("'capabilities': { 'ambient': ['cap_kill'] }"),
    E "process.capabilities.ambient[0]: unknown capability `cap_kill`" },
  { PROC ("'capabilities': { 'effective': 'CAP_KILL' }"),
    E "process.capabilities.effective: expected an array" },
  { PROC ("'rlimits': [ { 'type': 'RLIMIT_FOO', 'soft': 1, 'hard': 1 } ]"),
    E "process.rlimits[0].type: unknown rlimit `RLIMIT_FOO`" },
  { PROC ("'rlimits': [ { 'type': 'RLIMIT_NOFILE', 'soft': 1, 'hard': 1 },"
          "             { 'type': 'RLIMIT_NOFILE', 'soft': 2, 'hard': 2 } ]"),
    E "process.rlimits[1].type: duplicate rlimit `RLIMIT_NOFILE`" },
  { PROC ("'rlimits': [ { 'type': 'RLIMIT_CORE', 'soft': 1 } ]"),
    E "process.rlimits[0].hard: is required" },
  { PROC ("'rlimits': [ { 'type': 'RLIMIT_CORE', 'soft': -1, 'hard': 1 } ]"),
    E "process.rlimits[0].soft: expected a non-negative integer" },
  { PROC ("'rlimits': [ { 'type': 'RLIMIT_CORE', 'soft': 1, 'hard': 18446744073709551616 } ]"),
    E "process.rlimits[0].hard: expected an integer in [0, 18446744073709551615]" },
  { PROC ("'rlimits': [ { 'soft': 1, 'hard': 1 } ]"), E "process.rlimits[0].type: is required" },
  { PROC ("'noNewPrivileges': 1"), E "process.noNewPrivileges: expected a boolean" },
  { PROC ("'oomScoreAdj': 1001"), E "process.oomScoreAdj: expected an integer in [-1000, 1000]" },
  { PROC ("'oomScoreAdj': -1001"), E "process.oomScoreAdj: expected an integer in [-1000, 1000]" },
  { PROC ("'scheduler': { 'nice': 1 }"), E "process.scheduler.policy: is required" },
  { PROC ("'scheduler': { 'policy': 'SCHED_FOO' }"),
    E "process.scheduler.policy: unknown policy `SCHED_FOO`" },
  { PROC ("'scheduler': { 'policy': 'SCHED_RR', 'nice': 2147483648 }"),
    E "process.scheduler.nice: expected an integer in [-2147483648, 2147483647]" },
  { PROC ("'scheduler': { 'policy': 'SCHED_RR', 'flags': ['SCHED_FLAG_FOO'] }"),
    E "process.scheduler.flags[0]: unknown flag `SCHED_FLAG_FOO`" },
  { PROC ("'ioPriority': { 'class': 'IOPRIO_CLASS_NONE' }"),
    E "process.ioPriority.class: unknown class `IOPRIO_CLASS_NONE`" },
  { PROC ("'ioPriority': { 'class': 'IOPRIO_CLASS_RT', 'priority': 8 }"),
    E "process.ioPriority.priority: expected an integer in [0, 7]" },
  { PROC ("'execCPUAffinity': { 'initial': 1 }"),
    E "process.execCPUAffinity.initial: expected a string" },
};

static const struct bad_case bad_linux[] = {
  { LINUX ("'namespaces': [ { 'type': 'pid' }, { 'type': 'foo' } ]"),
    E "linux.namespaces[1].type: unknown namespace `foo`" },
  { LINUX ("'namespaces': [ { 'type': 'pid' }, { 'type': 'uts' }, { 'type': 'pid' } ]"),
    E "linux.namespaces[2].type: duplicate namespace `pid`" },
  { LINUX ("'namespaces': [ { 'type': 'network', 'path': 'proc/1/ns/net' } ]"),
    E "linux.namespaces[0].path: expected an absolute path" },
  { LINUX ("'namespaces': [ { 'path': '/proc/1/ns/net' } ]"),
    E "linux.namespaces[0].type: is required" },
  { LINUX ("'uidMappings': [ { 'containerID': 0, 'hostID': -1, 'size': 1 } ]"),
    E "linux.uidMappings[0].hostID: expected a non-negative integer" },
  { LINUX ("'gidMappings': [ { 'containerID': 0, 'hostID': 0, 'size': '1' } ]"),
    E "linux.gidMappings[0].size: expected an integer" },
  { LINUX ("'timeOffsets': { 'monotonic': { 'secs': '10' } }"),
    E "linux.timeOffsets.monotonic.secs: expected an integer" },
  { LINUX ("'timeOffsets': { 'boottime': [] }"),
    E "linux.timeOffsets.boottime: expected an object" },
  { LINUX ("'devices': [ { 'type': 'x', 'path': '/dev/x', 'major': 1, 'minor': 1 } ]"),
    E "linux.devices[0].type: unknown device type `x`" },
  { LINUX ("'devices': [ { 'type': 'c', 'major': 1, 'minor': 3 } ]"),
    E "linux.devices[0].path: is required" },
  { LINUX ("'devices': [ { 'type': 'c', 'path': 'dev/null', 'major': 1, 'minor': 3 } ]"),
    E "linux.devices[0].path: expected an absolute path" },
  { LINUX ("'devices': [ { 'type': 'b', 'path': '/dev/sda', 'minor': 0 } ]"),
    E "linux.devices[0].major: is required" },
  { LINUX ("'devices': [ { 'path': '/dev/null' } ]"), E "linux.devices[0].type: is required" },
  { LINUX ("'cgroupsPath': 1"), E "linux.cgroupsPath: expected a string" },
  { LINUX ("'sysctl': { 'net.core.somaxconn': 1024 }"),
    E "linux.sysctl.net.core.somaxconn: expected a string" },
  { LINUX ("'rootfsPropagation': 'recursive'"),
    E "linux.rootfsPropagation: unknown propagation `recursive`" },
  { LINUX ("'maskedPaths': [ 1 ]"), E "linux.maskedPaths[0]: expected a string" },
  { LINUX ("'readonlyPaths': '/proc'"), E "linux.readonlyPaths: expected an array" },
  { LINUX ("'personality': { 'domain': 'LINUX64' }"),
    E "linux.personality.domain: unknown domain `LINUX64`" },
  { LINUX ("'personality': {}"), E "linux.personality.domain: is required" },
  { LINUX ("'intelRdt': true"), E "linux.intelRdt: expected an object" },
  { LINUX ("'netDevices': { 'eth0': { 'name': 1 } }"),
    E "linux.netDevices.eth0.name: expected a string" },
  { LINUX ("'netDevices': { 'eth0': 'eth1' }"), E "linux.netDevices.eth0: expected an object" },
};

static const struct bad_case bad_resources[] = {
  { LINUX ("'resources': []"), E "linux.resources: expected an object" },
  { RES ("'devices': [ { 'allow': true, 'access': 'rwx' } ]"),
    E "linux.resources.devices[0].access: expected a subset of \"rwm\"" },
  { RES ("'devices': [ { 'allow': true, 'type': 'p' } ]"),
    E "linux.resources.devices[0].type: unknown device type `p`" },
  { RES ("'devices': [ { 'access': 'rwm' } ]"), E "linux.resources.devices[0].allow: is required" },
  { RES ("'devices': [ { 'allow': false, 'major': 1.0 } ]"),
    E "linux.resources.devices[0].major: expected an integer" },
  { RES ("'memory': { 'limit': '1G' }"), E "linux.resources.memory.limit: expected an integer" },
  { RES ("'memory': { 'limit': 1.5 }"), E "linux.resources.memory.limit: expected an integer" },
  { RES ("'memory': { 'limit': 9223372036854775808 }"),
    E "linux.resources.memory.limit: expected an integer in [-9223372036854775808, "
      "9223372036854775807]" },
  { RES ("'memory': { 'swappiness': 101 }"),
    E "linux.resources.memory.swappiness: expected an integer in [0, 100]" },
  { RES ("'memory': { 'swappiness': -1 }"),
    E "linux.resources.memory.swappiness: expected a non-negative integer" },
  { RES ("'memory': { 'disableOOMKiller': 'no' }"),
    E "linux.resources.memory.disableOOMKiller: expected a boolean" },
  { RES ("'cpu': { 'cpus': 1 }"), E "linux.resources.cpu.cpus: expected a string" },
  { RES ("'cpu': { 'shares': -2 }"),
    E "linux.resources.cpu.shares: expected a non-negative integer" },
  { RES ("'pids': { 'limit': true }"), E "linux.resources.pids.limit: expected an integer" },
  { RES ("'blockIO': { 'weight': 65536 }"),
    E "linux.resources.blockIO.weight: expected an integer in [0, 65535]" },
  { RES ("'blockIO': { 'weightDevice': [ { 'major': 8, 'weight': 10 } ] }"),
    E "linux.resources.blockIO.weightDevice[0].minor: is required" },
  { RES ("'blockIO': { 'throttleReadBpsDevice': [ { 'major': 8, 'minor': 0 } ] }"),
    E "linux.resources.blockIO.throttleReadBpsDevice[0].rate: is required" },
  { RES ("'blockIO': { 'throttleWriteIOPSDevice': [ { 'major': 8, 'minor': 0, 'rate': -5 } ] }"),
    E "linux.resources.blockIO.throttleWriteIOPSDevice[0].rate: expected a non-negative integer" },
  { RES ("'hugepageLimits': [ { 'limit': 1 } ]"),
    E "linux.resources.hugepageLimits[0].pageSize: is required" },
  { RES ("'network': { 'priorities': [ { 'priority': 1 } ] }"),
    E "linux.resources.network.priorities[0].name: is required" },
  { RES ("'network': { 'classID': 4294967296 }"),
    E "linux.resources.network.classID: expected an integer in [0, 4294967295]" },
  { RES ("'rdma': { 'mlx5_1': 3 }"), E "linux.resources.rdma.mlx5_1: expected an object" },
  { RES ("'unified': { 'memory.max': 1024 }"),
    E "linux.resources.unified.memory.max: expected a string" },
};

static const struct bad_case bad_seccomp[] = {
  { LINUX ("'seccomp': { 'architectures': ['SCMP_ARCH_X86_64'] }"),
    E "linux.seccomp.defaultAction: is required" },
  { LINUX ("'seccomp': { 'defaultAction': 'SCMP_ACT_FOO' }"),
    E "linux.seccomp.defaultAction: unknown action `SCMP_ACT_FOO`" },
  { LINUX ("'seccomp': { 'defaultAction': 5 }"),
    E "linux.seccomp.defaultAction: expected a string" },
  { SECCOMP ("'defaultErrnoRet': -1"),
    E "linux.seccomp.defaultErrnoRet: expected a non-negative integer" },
  { SECCOMP ("'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_LOONGARCH64']"),
    E "linux.seccomp.architectures[1]: unknown architecture `SCMP_ARCH_LOONGARCH64`" },
  { SECCOMP ("'flags': ['SECCOMP_FILTER_FLAG_NEW_LISTENER']"),
    E "linux.seccomp.flags[0]: unknown flag `SECCOMP_FILTER_FLAG_NEW_LISTENER`" },
  { SECCOMP ("'listenerPath': 1"), E "linux.seccomp.listenerPath: expected a string" },
  { SECCOMP ("'syscalls': [ { 'action': 'SCMP_ACT_ALLOW' } ]"),
    E "linux.seccomp.syscalls[0].names: is required" },
  { SECCOMP ("'syscalls': [ { 'names': [], 'action': 'SCMP_ACT_ALLOW' } ]"),
    E "linux.seccomp.syscalls[0].names: expected a non-empty array" },
  { SECCOMP ("'syscalls': [ { 'names': ['read', 7], 'action': 'SCMP_ACT_ALLOW' } ]"),
    E "linux.seccomp.syscalls[0].names[1]: expected a string" },
  { SYSCALL ("'errnoRet': 1"), E "linux.seccomp.syscalls[0].action: is required" },
  { SYSCALL ("'action': 'SCMP_ACT_ERRNO(1)'"),
    E "linux.seccomp.syscalls[0].action: unknown action `SCMP_ACT_ERRNO(1)`" },
  { SYSCALL ("'action': 'SCMP_ACT_ERRNO', 'errnoRet': 4294967296"),
    E "linux.seccomp.syscalls[0].errnoRet: expected an integer in [0, 4294967295]" },
  { ARG ("'index': 6, 'value': 1, 'op': 'SCMP_CMP_EQ'"),
    E "linux.seccomp.syscalls[0].args[0].index: expected an integer in [0, 5]" },
  { ARG ("'index': 0, 'value': 1, 'op': 'SCMP_CMP_FOO'"),
    E "linux.seccomp.syscalls[0].args[0].op: unknown operator `SCMP_CMP_FOO`" },
  { ARG ("'index': 0, 'value': 1"), E "linux.seccomp.syscalls[0].args[0].op: is required" },
  { ARG ("'index': 0, 'value': -1, 'op': 'SCMP_CMP_EQ'"),
    E "linux.seccomp.syscalls[0].args[0].value: expected a non-negative integer" },
  { ARG ("'index': 0, 'value': 1, 'valueTwo': 18446744073709551616, 'op': 'SCMP_CMP_EQ'"),
    E "linux.seccomp.syscalls[0].args[0].valueTwo: expected an integer in [0, "
      "18446744073709551615]" },
  { ARG ("'value': 1, 'op': 'SCMP_CMP_EQ'"),
    E "linux.seccomp.syscalls[0].args[0].index: is required" },
};

static int
run_cases (const struct bad_case *cases, size_t n)
{
  int ret = 0;
  for (size_t i = 0; i < n; i++)
    if (check_error (cases[i].json, cases[i].msg) < 0)
      ret = -1;
  return ret;
}

static int
test_errors_top (void)
{
  return run_cases (bad_top, ARRAY_SIZE (bad_top));
}

static int
test_errors_process (void)
{
  return run_cases (bad_process, ARRAY_SIZE (bad_process));
}

static int
test_errors_linux (void)
{
  return run_cases (bad_linux, ARRAY_SIZE (bad_linux));
}

static int
test_errors_resources (void)
{
  return run_cases (bad_resources, ARRAY_SIZE (bad_resources));
}

static int
test_errors_seccomp (void)
{
  return run_cases (bad_seccomp, ARRAY_SIZE (bad_seccomp));
}

/* json.c words these (yajl's message plus a snippet of the text), so only the start is ours.  */
static int
test_invalid_json (void)
{
  static const struct bad_case cases[] = {
    { "{ 'ociVersion': '1.2.0', ", E "invalid JSON: parse error: premature EOF" },
    { "", E "invalid JSON: parse error: premature EOF" },
    { "{ 'ociVersion': '1.2.0' } x", E "invalid JSON: parse error: trailing garbage" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      cleanup_spec struct spec *s = NULL;
      cleanup_free char *text = NULL;
      ar_error_t err = NULL;

      CHECK (parse_sq (cases[i].json, &s, &err) < 0);
      text = ar_error_text (err);
      ar_error_release (&err);
      if (strncmp (text, cases[i].msg, strlen (cases[i].msg)) != 0)
        TAP_FAIL ("got \"%s\", expected it to start with \"%s\"", text, cases[i].msg);
    }
  return 0;
}

static int
test_invalid_json_process (void)
{
  cleanup_spec_process struct spec_process *p = NULL;
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;
  const char *want = "process.json: invalid JSON: parse error: premature EOF";

  CHECK (spec_parse_process ("{ \"cwd\": ", "process.json", &p, &err) < 0);
  text = ar_error_text (err);
  ar_error_release (&err);
  CHECK (strncmp (text, want, strlen (want)) == 0);
  return 0;
}

/* A failed parse leaves *out alone.  */
static int
test_error_keeps_out (void)
{
  static struct spec sentinel;
  struct spec *s = &sentinel;
  ar_error_t err = NULL;

  CHECK (parse_sq (CFG ("'hostname': 1"), &s, &err) < 0);
  CHECK (s == &sentinel);
  ar_error_release (&err);
  return 0;
}

static int
test_null_is_absent (void)
{
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;

  CHECK (parse_sq (CFG ("'process': null, 'hostname': null, 'mounts': null, 'hooks': null, "
                        "'annotations': null, 'linux': { 'resources': null, 'seccomp': null, "
                        "'namespaces': null, 'rootfsPropagation': '' }"),
                   &s, &err)
         == 0);
  CHECK (!s->has_process && s->hostname == NULL && s->n_mounts == 0 && s->annotations.n == 0);
  CHECK (s->has_linux && !s->linux_.has_resources && !s->linux_.has_seccomp);
  CHECK (s->linux_.rootfs_propagation == NULL);
  return 0;
}

static int
test_parse_process (void)
{
  cleanup_spec_process struct spec_process *p = NULL;
  cleanup_free char *text
      = tap_json ("{ 'cwd': '/work', 'args': ['ls', '-l'], 'env': ['A=1'], 'user': { 'uid': 7 }, "
                  "'rlimits': [ { 'type': 'RLIMIT_CPU', 'soft': 1, 'hard': 2 } ], "
                  "'consoleSize': { 'height': 10, 'width': 20 }, 'unknown': [] }");
  ar_error_t err = NULL;

  CHECK (spec_parse_process (text, "process.json", &p, &err) == 0);
  CHECK_STR (p->cwd, "/work");
  CHECK (p->args.n == 2 && p->user.uid == 7 && p->n_rlimits == 1);
  CHECK (p->rlimits[0].resource == RLIMIT_CPU && p->has_console_size);
  return 0;
}

static int
check_process_error (const char *sq, const char *msg)
{
  cleanup_spec_process struct spec_process *p = NULL;
  cleanup_free char *json = tap_json (sq);
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;

  CHECK (spec_parse_process (json, "process.json", &p, &err) < 0);
  text = ar_error_text (err);
  ar_error_release (&err);
  CHECK_STR (text, msg);
  return 0;
}

static int
test_parse_process_errors (void)
{
  static const struct bad_case cases[] = {
    { "{ 'cwd': '/', 'args': [1] }", "process.json: args[0]: expected a string" },
    { "{ 'args': ['sh'] }", "process.json: cwd: is required" },
    { "[ 'sh' ]", "process.json: expected an object" },
    { "{ 'cwd': '/', 'args': ['sh'], 'user': { 'uid': 'root' } }",
      "process.json: user.uid: expected an integer" },
    { "{ 'cwd': '/', 'args': ['sh'], 'rlimits': [ { 'type': 'RLIMIT_AS', 'soft': 1, 'hard': 1 }, "
      "{ 'type': 'RLIMIT_AS', 'soft': 1, 'hard': 1 } ] }",
      "process.json: rlimits[1].type: duplicate rlimit `RLIMIT_AS`" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    if (check_process_error (cases[i].json, cases[i].msg) < 0)
      return -1;
  return 0;
}

static int
test_load_bundle_missing (void)
{
  cleanup_spec struct spec *s = NULL;
  cleanup_free char *text = NULL;
  ar_error_t err = NULL;

  CHECK (spec_load_bundle ("/nonexistent/agentrt-bundle", &s, &err) < 0);
  CHECK (err->status == ENOENT);
  text = ar_error_text (err);
  ar_error_release (&err);
  CHECK_STR (text, "open `/nonexistent/agentrt-bundle/config.json`: No such file or directory");
  return 0;
}

static int
test_load_bundle (void)
{
  char dir[] = "/tmp/agentrt-test-spec.XXXXXX";
  cleanup_free char *path = NULL;
  cleanup_free char *json = tap_json (runc_spec);
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;
  FILE *f;
  int ret;

  CHECK (mkdtemp (dir) != NULL);
  path = xasprintf ("%s/config.json", dir);
  f = fopen (path, "we");
  CHECK (f != NULL);
  fputs (json, f);
  fclose (f);
  ret = spec_load_bundle (dir, &s, &err);
  unlink (path);
  rmdir (dir);
  ar_error_release (&err);
  CHECK (ret == 0);
  CHECK_STR (s->hostname, "runc");
  return 0;
}

/* Caps (spec.h): a config of BEFORE, N copies of ITEM joined by ',', and AFTER, all in single
   quotes.  A '#' in ITEM becomes the copy's number: an object's keys must differ (json.c).  */
static char *
repeat_config (const char *before, const char *item, size_t n, const char *after)
{
  size_t lb = strlen (before), li = strlen (item), la = strlen (after);
  char *sq = xmalloc (lb + n * (li + 21) + la + 1), *p = sq;
  char *json;

  memcpy (p, before, lb);
  p += lb;
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        *p++ = ',';
      for (const char *c = item; *c; c++)
        if (*c == '#')
          p += sprintf (p, "%zu", i);
        else
          *p++ = *c;
    }
  memcpy (p, after, la + 1);
  json = tap_json (sq);
  free (sq);
  return json;
}

/* Parse it: NULL expects success, otherwise the exact error.  */
static int
check_limit (const char *before, const char *item, size_t n, const char *after, const char *msg)
{
  cleanup_free char *text = repeat_config (before, item, n, after);
  cleanup_spec struct spec *s = NULL;
  cleanup_free char *got = NULL;
  ar_error_t err = NULL;
  int ret = spec_parse (text, "config.json", &s, &err);

  if (msg == NULL && ret == 0)
    return 0;
  got = ret < 0 ? ar_error_text (err) : xstrdup ("(accepted)");
  ar_error_release (&err);
  if (msg && strcmp (got, msg) == 0)
    return 0;
  printf ("# %zu x %s: got \"%s\", expected \"%s\"\n", n, item, got, msg ? msg : "(accepted)");
  return -1;
}

#define TOP_SQ "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, "
#define SECCOMP_SQ TOP_SQ "'linux': { 'seccomp': { 'defaultAction': 'SCMP_ACT_ALLOW', "

/* 20,000 entries took libseccomp 140 s; the caps keep every accepted profile near a second.  */
static int
test_caps_seccomp (void)
{
  const char *rules = SECCOMP_SQ "'syscalls': [";
  const char *rule = "{ 'names': ['read'], 'action': 'SCMP_ACT_ERRNO' }";
  const char *names = SECCOMP_SQ "'syscalls': [ { 'action': 'SCMP_ACT_ERRNO', 'names': [";
  const char *args = SECCOMP_SQ "'syscalls': [ { 'action': 'SCMP_ACT_ERRNO', "
                                "'names': ['read', 'write'], 'args': [";
  const char *arg = "{ 'index': 0, 'value': 1, 'op': 'SCMP_CMP_EQ' }";

  CHECK (check_limit (rules, rule, SPEC_MAX_SECCOMP_RULES, "] } } }", NULL) == 0);
  CHECK (check_limit (rules, rule, SPEC_MAX_SECCOMP_RULES + 1, "] } } }",
                      E "linux.seccomp.syscalls: more than 1024 entries")
         == 0);
  CHECK (check_limit (rules, rule, 20000, "] } } }",
                      E "linux.seccomp.syscalls: more than 1024 entries")
         == 0);
  CHECK (check_limit (names, "'read'", SPEC_MAX_SECCOMP_NAMES, "] } ] } } }", NULL) == 0);
  CHECK (check_limit (names, "'read'", SPEC_MAX_SECCOMP_NAMES + 1, "] } ] } } }",
                      E "linux.seccomp.syscalls[0].names: more than 2048 entries")
         == 0);
  /* The names of all entries together.  */
  CHECK (check_limit (SECCOMP_SQ "'syscalls': [",
                      "{ 'names': ['read', 'write', 'open', 'close'], "
                      "'action': 'SCMP_ACT_ERRNO' }",
                      SPEC_MAX_SECCOMP_NAMES / 4 + 1, "] } } }",
                      E "linux.seccomp.syscalls: more than 2048 syscall names in all entries")
         == 0);
  /* Conditions count once per name: 2 names x 128 fit, 2 x 129 do not.  */
  CHECK (check_limit (args, arg, 128, "] } ] } } }", NULL) == 0);
  CHECK (check_limit (args, arg, 129, "] } ] } } }",
                      E "linux.seccomp.syscalls: more than 256 argument conditions in all entries "
                        "(one per name)")
         == 0);
  return 0;
}

static int
test_caps_lists (void)
{
  static const struct
  {
    const char *before, *item, *after;
    size_t max;
    const char *msg;
  } cases[] = {
    { TOP_SQ "'mounts': [", "{ 'destination': '/m' }", "] }", SPEC_MAX_ITEMS,
      E "mounts: more than 1024 entries" },
    { TOP_SQ "'process': { 'cwd': '/', 'args': ['sh'], 'env': [", "'A=1'", "] } }",
      SPEC_MAX_STRINGS, E "process.env: more than 65536 entries" },
    { TOP_SQ "'process': { 'cwd': '/', 'args': [", "'a'", "] } }", SPEC_MAX_STRINGS,
      E "process.args: more than 65536 entries" },
    { TOP_SQ "'linux': { 'maskedPaths': [", "'/p'", "] } }", SPEC_MAX_ITEMS,
      E "linux.maskedPaths: more than 1024 entries" },
    { TOP_SQ "'linux': { 'readonlyPaths': [", "'/p'", "] } }", SPEC_MAX_ITEMS,
      E "linux.readonlyPaths: more than 1024 entries" },
    { TOP_SQ "'linux': { 'devices': [", "{ 'type': 'c', 'path': '/dev/x', 'major': 1, 'minor': 3 }",
      "] } }", SPEC_MAX_ITEMS, E "linux.devices: more than 1024 entries" },
    { TOP_SQ "'linux': { 'resources': { 'devices': [", "{ 'allow': false }", "] } } }",
      SPEC_MAX_ITEMS, E "linux.resources.devices: more than 1024 entries" },
    { TOP_SQ "'linux': { 'uidMappings': [", "{ 'containerID': 0, 'hostID': 1, 'size': 1 }", "] } }",
      SPEC_MAX_ID_MAPPINGS, E "linux.uidMappings: more than 340 entries" },
    { TOP_SQ "'hooks': { 'prestart': [", "{ 'path': '/bin/true' }", "] } }", SPEC_MAX_HOOKS,
      E "hooks.prestart: more than 128 entries" },
    { TOP_SQ "'linux': { 'sysctl': { 'a': 'b', ", "'x#': 'y'", "} } }", SPEC_MAX_ITEMS - 1,
      E "linux.sysctl: more than 1024 entries" },
    { TOP_SQ "'process': { 'cwd': '/', 'args': ['sh'], 'user': { 'additionalGids': [", "1",
      "] } } }", SPEC_MAX_STRINGS, E "process.user.additionalGids: more than 65536 entries" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    if (check_limit (cases[i].before, cases[i].item, cases[i].max, cases[i].after, NULL) < 0
        || check_limit (cases[i].before, cases[i].item, cases[i].max + 1, cases[i].after,
                        cases[i].msg)
               < 0)
      return -1;
  return 0;
}

/* state.json keeps the annotations, and is read back under a cap of its own (state.h).  */
static int
test_caps_annotations (void)
{
  cleanup_free char *value = xmalloc (SPEC_MAX_ANNOTATION_BYTES + 1);
  cleanup_free char *over = NULL;
  cleanup_free char *fits = NULL;

  CHECK (check_limit (TOP_SQ "'annotations': { 'a': 'b', ", "'k#': 'v'", SPEC_MAX_ANNOTATIONS,
                      "} }", E "annotations: more than 4096 entries")
         == 0);
  memset (value, 'v', SPEC_MAX_ANNOTATION_BYTES);
  value[SPEC_MAX_ANNOTATION_BYTES - 1] = '\0'; /* with the key "k": exactly the cap */
  fits = xasprintf ("'k': '%s'", value);
  CHECK (check_limit (TOP_SQ "'annotations': { ", fits, 1, "} }", NULL) == 0);
  value[SPEC_MAX_ANNOTATION_BYTES - 1] = 'v';
  value[SPEC_MAX_ANNOTATION_BYTES] = '\0';
  over = xasprintf ("'k': '%s'", value);
  CHECK (check_limit (TOP_SQ "'annotations': { ", over, 1, "} }",
                      E "annotations: more than 262144 bytes of keys and values")
         == 0);
  return 0;
}

/* The size cap holds for text that was not read from a file too (create's edited copy).  */
static int
test_caps_size (void)
{
  cleanup_free char *big = xmalloc (SPEC_MAX_SIZE + 1);
  cleanup_free char *item = NULL;

  memset (big, 'x', SPEC_MAX_SIZE);
  big[SPEC_MAX_SIZE - 100] = '\0';
  item = xasprintf ("'%s'", big);
  CHECK (check_limit (TOP_SQ "'hostname': ", item, 1, "}", NULL) == 0);
  big[SPEC_MAX_SIZE - 100] = 'x';
  big[SPEC_MAX_SIZE] = '\0';
  free (item);
  item = xasprintf ("'%s'", big);
  CHECK (check_limit (TOP_SQ "'hostname': ", item, 1, "}", E "larger than 4194304 bytes") == 0);
  return 0;
}

static int
test_tables (void)
{
  size_t n = 0;

  CHECK (spec_cap_count () == 41);
  CHECK_STR (spec_cap_name (0), "CAP_CHOWN");
  CHECK_STR (spec_cap_name (40), "CAP_CHECKPOINT_RESTORE");
  CHECK (spec_cap_name (41) == NULL);
  CHECK (spec_cap_from_name ("CAP_SYS_ADMIN") == 21 && spec_cap_from_name ("CAP_BPF") == 39);
  CHECK (spec_cap_from_name ("SYS_ADMIN") == -1);
  CHECK (spec_rlimit_from_name ("RLIMIT_CPU") == RLIMIT_CPU);
  CHECK (spec_rlimit_from_name ("RLIMIT_RTTIME") == RLIMIT_RTTIME);
  CHECK (spec_rlimit_from_name ("RLIMIT_FOO") == -1);
  CHECK_STR (spec_hook_names[SPEC_HOOK_CREATE_CONTAINER], "createContainer");
  CHECK_STR (spec_namespace_names[SPEC_NS_NETWORK].proc, "net");
  CHECK_STR (spec_namespace_names[SPEC_NS_MOUNT].proc, "mnt");
  CHECK (spec_namespace_names[SPEC_NS_TIME].clone_flag == 0x80);
  CHECK_STR (spec_throttle_names[3], "throttleWriteIOPSDevice");
  while (spec_mount_options[n])
    n++;
  CHECK (n == 56);
  CHECK_STR (spec_mount_options[n - 1], "ridmap");
  for (n = 0; spec_seccomp_archs[n].name; n++)
    ;
  CHECK (n == 19);
  CHECK (spec_seccomp_actions[4].value == SCMP_ACT_ERRNO (0));
  CHECK (spec_seccomp_operators[6].value == SCMP_CMP_MASKED_EQ);
  CHECK_STR (spec_seccomp_flags[3].name, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");
  CHECK (spec_seccomp_flags[4].name == NULL);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_full_config);
  RUN_TEST (test_runc_spec);
  RUN_TEST (test_invalid_json);
  RUN_TEST (test_invalid_json_process);
  RUN_TEST (test_errors_top);
  RUN_TEST (test_errors_process);
  RUN_TEST (test_errors_linux);
  RUN_TEST (test_errors_resources);
  RUN_TEST (test_errors_seccomp);
  RUN_TEST (test_error_keeps_out);
  RUN_TEST (test_null_is_absent);
  RUN_TEST (test_parse_process);
  RUN_TEST (test_parse_process_errors);
  RUN_TEST (test_load_bundle_missing);
  RUN_TEST (test_load_bundle);
  RUN_TEST (test_tables);
  RUN_TEST (test_caps_seccomp);
  RUN_TEST (test_caps_lists);
  RUN_TEST (test_caps_annotations);
  RUN_TEST (test_caps_size);
  TAP_END ();
}
