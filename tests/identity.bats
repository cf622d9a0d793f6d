#!/usr/bin/env bats
# One kernel identity inside a supervised container: uname, /proc/version and
# /proc/sys/kernel/{osrelease,version} name the same kernel (the configured release, not the
# host's), and its uptime, clocks, sysinfo and the start times of its processes all count from
# its own start (a time namespace of its own, whose CLOCK_BOOTTIME and CLOCK_MONOTONIC read 0
# at create), so that `ps -o etime` and `pgrep -O` work.  The OCI time namespace
# (linux.timeOffsets) too, with and without the supervisor.
load helpers

setup() { setup_busybox; }
teardown() { teardown_root; }

RELEASE=6.1.0-agentrt-test

# The clocks as the container sees them, checked in python (ctypes for sysinfo): uptime,
# sysinfo.uptime, CLOCK_BOOTTIME within a second of each other, and /proc/stat's btime that
# far before now (ps's STIME and lstart add the start times to it); every process's age
# (uptime - its start time, what ps -o etime prints and pgrep -O compares) between 0 and the
# uptime; sysinfo's procs the container's own; its loads no more than its CPUs, and the same
# as /proc/loadavg's.  Prints one
# JSON line of what it saw.  MAX_UPTIME, in the environment: the most the uptime may be.
PY_CLOCKS='
import ctypes, json, os, time

class Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong),
                ("procs", ctypes.c_ushort), ("pad", ctypes.c_ushort),
                ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]

si = Sysinfo()
assert ctypes.CDLL(None, use_errno=True).sysinfo(ctypes.byref(si)) == 0, ctypes.get_errno()
with open("/proc/uptime") as f:
    uptime = float(f.read().split()[0])
boot = time.clock_gettime(time.CLOCK_BOOTTIME)
mono = time.clock_gettime(time.CLOCK_MONOTONIC)
limit = float(os.environ["MAX_UPTIME"])
assert 0 <= uptime <= limit, ("uptime", uptime, limit)
assert abs(boot - uptime) < 1, ("CLOCK_BOOTTIME", boot, "uptime", uptime)
assert abs(si.uptime - uptime) < 1.5, ("sysinfo.uptime", si.uptime, "uptime", uptime)
assert mono <= boot + 0.01, ("CLOCK_MONOTONIC", mono, "CLOCK_BOOTTIME", boot)
with open("/proc/stat") as f:
    btime = int(next(l.split()[1] for l in f if l.startswith("btime ")))
assert abs(btime + uptime - time.time()) < 2, ("btime", btime, "uptime", uptime, time.time())

hz = os.sysconf("SC_CLK_TCK")
ages = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open("/proc/%s/stat" % pid) as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
    except FileNotFoundError:
        continue
    ages[pid] = round(uptime - start / hz, 2)
assert ages and all(-0.5 <= a <= uptime + 0.5 for a in ages.values()), ("ages", uptime, ages)

ncpu = len(os.sched_getaffinity(0))
assert 1 <= si.procs <= 20, ("sysinfo.procs", si.procs)
assert all(l <= ncpu << 16 for l in si.loads), ("sysinfo.loads", list(si.loads), ncpu)
with open("/proc/loadavg") as f:
    load1 = float(f.read().split()[0])
assert abs(si.loads[0] / 65536 - load1) <= 0.02, ("sysinfo.loads", si.loads[0] / 65536, load1)
print(json.dumps({"clocks": "ok", "uptime": uptime, "boottime": round(boot, 2),
                  "monotonic": round(mono, 2), "sysinfo_uptime": si.uptime,
                  "procs": si.procs, "ages": ages}))
'

# python_bundle [MAX_UPTIME]: the bundle runs PY_CLOCKS in the cached Debian rootfs (read-only,
# shared by every test).
python_bundle() {
  local rootfs
  rootfs=$(debian_rootfs)
  update_config --arg r "$rootfs" --arg py "$PY_CLOCKS" --arg max "${1:-30}" '
    .root = {path: $r, readonly: true} |
    .process.env += ["PY_CLOCKS=" + $py, "MAX_UPTIME=" + $max] |
    .process.args = ["/bin/sh", "-c", "python3 -c \"$PY_CLOCKS\""]'
}

@test "identity: uname, /proc/version, osrelease and kernel/version name the configured kernel, not the host's" {
  update_config --arg r "$RELEASE" '.annotations["io.agentrt.uname.release"] = $r |
    .process.args = ["/bin/sh", "-c", "uname -r; uname -v; cat /proc/version /proc/sys/kernel/osrelease /proc/sys/kernel/version"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "$RELEASE" ]
  [ "${lines[1]}" = "#1 SMP PREEMPT_DYNAMIC agentrt" ]
  [ "${lines[2]}" = "Linux version $RELEASE (agentrt@agentrt) (agentrt) #1 SMP PREEMPT_DYNAMIC agentrt" ]
  [ "${lines[3]}" = "$RELEASE" ]
  [ "${lines[4]}" = "#1 SMP PREEMPT_DYNAMIC agentrt" ]
  [ "${#lines[@]}" -eq 5 ]
  # Nothing of the host's kernel build is left in them.
  [[ "$output" != *"$(uname -r)"* && "$output" != *"$(uname -v)"* ]]
}

@test "identity: the kernel's files are the host's again with --platform none" {
  update_config '.process.args = ["/bin/cat", "/proc/version", "/proc/sys/kernel/osrelease"]'
  agentrt run --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "$(cat /proc/version)" ]
  [ "${lines[1]}" = "$(uname -r)" ]
}

@test "identity: /proc/uptime, sysinfo and CLOCK_BOOTTIME agree from the container's start, and so do the processes' start times" {
  python_bundle 30
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"clocks": "ok"'* ]]
}

stopped() { [ "$(__agentrt state "$CID" | jq -r .status)" = stopped ]; }

@test "identity [ptrace]: the same kernel and clocks on the ptrace platform" {
  python_bundle 30
  update_config --arg r "$RELEASE" '.annotations["io.agentrt.platform"] = "ptrace" |
    .annotations["io.agentrt.uname.release"] = $r |
    .process.args = ["/bin/sh", "-c", "python3 -c \"$PY_CLOCKS\" && uname -r && cat /proc/sys/kernel/osrelease"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"clocks": "ok"'* ]]
  [ "${lines[-2]}" = "$RELEASE" ] && [ "${lines[-1]}" = "$RELEASE" ]
}

@test "identity: a container made two seconds ago shows two seconds of uptime to its first process" {
  python_bundle 120
  update_config '.process.args = ["/bin/sh", "-c",
    "python3 -c \"$PY_CLOCKS\" && cut -d\" \" -f1 /proc/uptime"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  sleep 2
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  wait_for "the container to stop" stopped
  run cat "$ROOT/stdio.log"
  echo "$output" >&2
  [[ "$output" == *'"clocks": "ok"'* ]]
  # The clock started at create, not at start.
  [ "$(tail -n1 <<<"$output" | cut -d. -f1)" -ge 2 ]
}

# loadavg_own: /proc/loadavg in the container counts its few tasks (sleep and an exec'd cat),
# not the host's.
loadavg_own() {
  local total
  total=$(__agentrt exec "$CID" /bin/cat /proc/loadavg | cut -d' ' -f4 | cut -d/ -f2)
  [ -n "$total" ] && [ "$total" -ge 1 ] && [ "$total" -le 5 ]
}

@test "identity: agentrt exec is in the container's time namespace and sees its clocks" {
  python_bundle 30
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local pid
  pid=$(__agentrt state "$CID" | jq -r .pid)
  [ "$(readlink "/proc/$pid/ns/time")" != "$(readlink /proc/self/ns/time)" ]
  agentrt exec "$CID" /bin/sh -c 'python3 -c "$PY_CLOCKS" && readlink /proc/self/ns/time'
  [ "$status" -eq 0 ]
  [[ "$output" == *'"clocks": "ok"'* ]]
  [ "${lines[-1]}" = "$(readlink "/proc/$pid/ns/time")" ]
  # /proc/loadavg counts the container's tasks as sysinfo does (from its next refresh on).
  wait_for "/proc/loadavg to count the container's tasks" loadavg_own
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
}

@test "identity: --platform none makes no time namespace, as runc" {
  update_config '.process.args = ["/bin/readlink", "/proc/self/ns/time"]'
  agentrt run --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = "$(readlink /proc/self/ns/time)" ]
}

# OCI's own: a time namespace in linux.namespaces with linux.timeOffsets (runtime-spec 1.1).
time_offsets_day() {
  update_config '.linux.namespaces += [{type: "time"}] |
    .linux.timeOffsets = {boottime: {secs: 86400, nanosecs: 0}, monotonic: {secs: 3600, nanosecs: 0}}'
}

@test "identity: features lists the time namespace" {
  agentrt features
  [ "$status" -eq 0 ]
  [ "$(jq -r '.linux.namespaces | index("time") != null' <<<"$output")" = true ]
}

@test "identity: linux.timeOffsets move the clocks of the config's time namespace (--platform none)" {
  time_offsets_day
  update_config '.process.args = ["/bin/cat", "/proc/uptime", "/proc/self/timens_offsets"]'
  agentrt run --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local host
  host=$(cut -d. -f1 /proc/uptime)
  [ "$(cut -d. -f1 <<<"${lines[0]}")" -ge $((host + 86400)) ]
  [[ "${lines[1]}" =~ ^monotonic\ +3600\ +0$ ]]
  [[ "${lines[2]}" =~ ^boottime\ +86400\ +0$ ]]
}

@test "identity: under the supervisor, the uptime follows the config's own time offsets" {
  time_offsets_day
  local host
  host=$(cut -d. -f1 /proc/uptime)
  python_bundle $((host + 86400 + 60))
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"clocks": "ok"'* ]]
  [ "$(jq -r '.uptime | floor' <<<"$output")" -ge $((host + 86400)) ]
}

@test "identity: linux.timeOffsets without a time namespace are refused" {
  update_config '.linux.timeOffsets = {boottime: {secs: 10, nanosecs: 0}}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"linux.timeOffsets need a new time namespace"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "identity: a user-namespaced container gets its clocks and the config's offsets too" {
  update_config '.linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .process.args = ["/bin/cat", "/proc/uptime", "/proc/self/timens_offsets"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(cut -d. -f1 <<<"${lines[0]}")" -lt 30 ]
  [[ "${lines[2]}" =~ ^boottime\ +-[0-9]+\  ]]
  # exec joins it too (a time namespace its user namespace owns).
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" /bin/sh -c 'cut -d. -f1 /proc/uptime; readlink /proc/self/ns/time; readlink /proc/1/ns/time'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" -lt 30 ] && [ "${lines[1]}" = "${lines[2]}" ]
  [ "${lines[1]}" != "$(readlink /proc/self/ns/time)" ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  time_offsets_day
  update_config '.process.args = ["/bin/cat", "/proc/uptime", "/proc/self/timens_offsets"]'
  agentrt run --platform none -b "$BUNDLE" "$CID-oci"
  [ "$status" -eq 0 ]
  [[ "${lines[2]}" =~ ^boottime\ +86400\ +0$ ]]
}

@test "identity: the load averages are the container's own: none when idle, some when it keeps a CPU busy" {
  update_config '.process.args = ["/bin/sh", "-c",
    "sleep 3; cut -d\" \" -f1 /proc/loadavg; sh -c \"while :; do :; done\" & p=$!; sleep 4; kill $p; sleep 1; cut -d\" \" -f1 /proc/loadavg; cat /proc/uptime; nproc"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  echo "host: $(cat /proc/loadavg)" >&2
  # Idle: its own CPU time is next to none, whatever the host's load.
  [ "${lines[0]}" = 0.00 ]
  # Busy for 4 s: at least a hundredth of a CPU in the minute's average (1 - e^(-4/60) of a
  # whole CPU, 0.06, when it gets one).
  [[ "${lines[1]}" =~ ^[0-9]+\.[0-9][0-9]$ ]]
  [ "${lines[1]/./}" -ge 1 ]
  # /proc/uptime is the kernel's in the container's time namespace: its uptime since create.
  awk '{ exit !($1 >= 8 && $1 < 60) }' <<<"${lines[2]}"
}

@test "identity: a config that joins the host's time namespace keeps the host's clocks, and its uptime agrees" {
  local host
  host=$(cut -d. -f1 /proc/uptime)
  update_config '.linux.namespaces += [{type: "time", path: "/proc/self/ns/time"}]'
  python_bundle $((host + 60))
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"clocks": "ok"'* ]]
  [ "$(jq -r '.uptime | floor' <<<"$output")" -ge "$host" ]
}
