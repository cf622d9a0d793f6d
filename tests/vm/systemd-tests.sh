#!/bin/bash
# agentrt's systemd cgroup driver tests, run inside the systemd VM (tests/lib/systemd_vm.sh) by
# agentrt-tests.service, with systemd as pid 1, on cgroup v2 or on hybrid (the kernel command
# line's agentrt.cgroup=v2|hybrid).  Output is TAP on the serial console: `ok N name` or `not ok
# N name`, each test's diagnostics as `# ` lines after it, then `AGENTRT-VM-RESULT: PASS|FAIL`;
# tests/systemd.bats asserts each line by name.  Each scenario runs against runc 1.1.5 as the
# control where runc can do it, and checks what systemd says (`systemctl show`) besides the
# files.  Every test has a private --root and bundle under /tmp and a unique id, and whatever it
# made is deleted after it, pass or fail.
set -u
P=/opt/agentrt-test
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
AGENTRT=$P/agentrt
LAYOUT=$(sed -n 's/.*agentrt\.cgroup=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
CG=/sys/fs/cgroup
[ "$LAYOUT" = hybrid ] && CG=/sys/fs/cgroup/unified
N=0
FAILED=0
# agentrt.debug on the kernel command line (AGENTRT_VM_DEBUG=1 for tests/systemd.bats): every
# command of the tests is traced to the console as it runs.
if grep -qw agentrt.debug /proc/cmdline; then
  exec {BASH_XTRACEFD}>/dev/ttyS0
  set -x
fi

# --- helpers ----------------------------------------------------------------------------------
ar() { "$AGENTRT" --root "$ROOT" "$@"; }
rc() { runc --root "$T/runc" "$@"; }
fail() {
  echo "$*"
  return 1
}
# expect WHAT GOT WANT
expect() {
  [ "$2" = "$3" ] || fail "$1: got \`$2\`, expected \`$3\`"
}
prop() { systemctl show -p "$2" --value "$1"; }
unit_gone() { [ "$(prop "$1" LoadState)" = not-found ]; }
st() { jq -r "$1" "$ROOT/$CID/state.json"; }
initpid() { st .pid; }
# wait_until TENTHS COMMAND…
wait_until() {
  local n=$1
  shift
  while ! "$@"; do
    n=$((n - 1))
    [ "$n" -gt 0 ] || return 1
    sleep 0.1
  done
}
# mark WHAT: a diagnostic with the time since the test began.
mark() { echo "$1 at $(awk -v a="$TEST_T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')s"; }
# dirs_left UNIT: the directories of system.slice/UNIT that exist still, in every hierarchy.
dirs_left() {
  local d
  for d in /sys/fs/cgroup/*/system.slice/"$1" "$CG/system.slice/$1"; do
    [ ! -e "$d" ] || echo "$d"
  done
}
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
in_cgroup() { grep -q "^[0-9]*:$2:$3\$" "/proc/$1/cgroup"; }

# bundle ARG…: $B, a busybox bundle running ARG…, agentrt's default config with a writable
# rootfs and no terminal.
bundle() {
  local args
  B=$T/bundle
  rm -rf "$B"
  mkdir -p "$B"
  cp -a "$P/rootfs" "$B/rootfs"
  "$AGENTRT" spec --bundle "$B" || return 1
  args=$(printf '%s\n' "$@" | jq -R . | jq -s .)
  jq --argjson a "$args" '.process.terminal = false | .root.readonly = false | .process.args = $a' \
    <"$B/config.json" >"$B/c.json" && mv "$B/c.json" "$B/config.json"
}
edit() { jq "$@" <"$B/config.json" >"$B/c.json" && mv "$B/c.json" "$B/config.json"; }

cleanup() {
  local c
  for c in $(ar list -q 2>/dev/null); do ar delete --force "$c" >/dev/null 2>&1; done
  if [ -d "$T/runc" ]; then
    for c in $(rc list -q 2>/dev/null); do rc delete --force "$c" >/dev/null 2>&1; done
  fi
  cat "$T"/*.pid 2>/dev/null | while read -r c; do kill -9 "$c" 2>/dev/null; done
  rm -rf "$T"
}

run_test() {
  local name=$1 fn=$2 out status t0 t1
  N=$((N + 1))
  T=$(mktemp -d "/tmp/t$N.XXXXXX")
  ROOT=$T/state CID=sd$N-$RANDOM
  t0=$(cut -d' ' -f1 /proc/uptime)
  TEST_T0=$t0
  # To a file, not $(…): a container the test leaves running keeps its stdout open.
  "$fn" >"$T.out" 2>&1 </dev/null
  status=$?
  out=$(cat "$T.out")
  rm -f "$T.out"
  cleanup
  t1=$(cut -d' ' -f1 /proc/uptime)
  if [ "$status" -eq 0 ]; then
    echo "ok $N $name"
  else
    echo "not ok $N $name"
    FAILED=$((FAILED + 1))
  fi
  [ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
  echo "# ${name}: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
}

# --- tests, both layouts ----------------------------------------------------------------------

t_layout() {
  expect "pid 1" "$(cat /proc/1/comm)" systemd
  systemctl --version | head -n 1
  if [ "$LAYOUT" = v2 ]; then
    expect "/sys/fs/cgroup" "$(stat -f -c %T /sys/fs/cgroup)" cgroup2fs
  else
    expect "/sys/fs/cgroup" "$(stat -f -c %T /sys/fs/cgroup)" tmpfs
    expect "/sys/fs/cgroup/unified" "$(stat -f -c %T /sys/fs/cgroup/unified)" cgroup2fs
  fi
  expect "features .linux.cgroup.systemd" "$("$AGENTRT" features | jq .linux.cgroup.systemd)" true
  runc --version | head -n 1
}

# create/start/delete with the default cgroupsPath: system.slice/agentrt-ID.scope, and the
# later commands without --systemd-cgroup.
t_lifecycle() {
  local unit d pid
  bundle sleep 1000 || return 1
  ar --systemd-cgroup create -b "$B" "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  expect cgroupDriver "$(st .cgroupDriver)" systemd || return 1
  expect systemdUnit "$(st .systemdUnit)" "$unit" || return 1
  expect ActiveState "$(prop "$unit" ActiveState)" active || return 1
  expect ControlGroup "$(prop "$unit" ControlGroup)" "/system.slice/$unit" || return 1
  expect Delegate "$(prop "$unit" Delegate)" yes || return 1
  pid=$(initpid)
  in_cgroup "$pid" "" "/system.slice/$unit" || [ "$LAYOUT" = hybrid ] ||
    fail "init $pid not in the scope: $(cat "/proc/$pid/cgroup")" || return 1
  grep -qx "$pid" "$CG/system.slice/$unit/cgroup.procs" || fail "init not in $CG/…/cgroup.procs" || return 1
  if [ "$LAYOUT" = hybrid ]; then
    # systemd's own controllers, and those agentrt joined itself.
    for d in memory pids cpu,cpuacct freezer cpuset devices blkio; do
      [ -d "/sys/fs/cgroup/$d" ] || continue
      grep -qx "$pid" "/sys/fs/cgroup/$d/system.slice/$unit/cgroup.procs" ||
        fail "init not in /sys/fs/cgroup/$d/system.slice/$unit" || return 1
    done
    jq -r '.cgroupPaths[]' "$ROOT/$CID/state.json"
  else
    expect cgroupPaths "$(st '.cgroupPaths | join(" ")')" "$CG/system.slice/$unit" || return 1
  fi
  ar start "$CID" || fail "start without --systemd-cgroup failed" || return 1
  expect status "$(ar state "$CID" | jq -r .status)" running || return 1
  ar delete --force "$CID" || fail "delete failed" || return 1
  unit_gone "$unit" || fail "the unit is left: $(prop "$unit" ActiveState)" || return 1
  d=$(dirs_left "$unit")
  [ -z "$d" ] || fail "left: $d" || return 1
  gone "$pid" || fail "init $pid is alive"
}

# linux.resources as unit properties and as files, against runc's unit for the same config.
t_resources() {
  local unit ru p a r
  bundle sleep 1000 || return 1
  edit '.linux.resources += {"memory": {"limit": 67108864}, "pids": {"limit": 20},
        "cpu": {"shares": 1024, "quota": 33333, "period": 100000}}'
  ar --systemd-cgroup create -b "$B" "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  mkdir -p "$T/runc"
  rc --systemd-cgroup create -b "$B" "$CID" </dev/null >/dev/null 2>"$T/runc.err" || fail "runc create: $(cat "$T/runc.err")" || return 1
  ru=runc-$CID.scope
  for p in MemoryMax MemoryLimit TasksMax CPUWeight CPUShares CPUQuotaPerSecUSec CPUQuotaPeriodUSec \
    DevicePolicy Delegate MemoryAccounting TasksAccounting; do
    a=$(prop "$unit" "$p") r=$(prop "$ru" "$p")
    echo "$p: agentrt $a, runc $r"
    [ "$a" = "$r" ] || fail "$p differs from runc's" || return 1
  done
  if [ "$LAYOUT" = v2 ]; then
    expect MemoryMax "$(prop "$unit" MemoryMax)" 67108864 || return 1
    expect memory.max "$(cat "$CG/system.slice/$unit/memory.max")" 67108864 || return 1
    expect pids.max "$(cat "$CG/system.slice/$unit/pids.max")" 20 || return 1
    # systemd keeps whole percents (34 %); the file has the exact quota, as runc writes it.
    expect cpu.max "$(cat "$CG/system.slice/$unit/cpu.max")" "33333 100000" || return 1
    expect "runc's cpu.max" "$(cat "$CG/system.slice/$ru/cpu.max")" "33333 100000" || return 1
    expect cpu.weight "$(cat "$CG/system.slice/$unit/cpu.weight")" 39 || return 1
  else
    expect MemoryLimit "$(prop "$unit" MemoryLimit)" 67108864 || return 1
    expect memory.limit_in_bytes "$(cat "/sys/fs/cgroup/memory/system.slice/$unit/memory.limit_in_bytes")" 67108864 || return 1
    expect pids.max "$(cat "/sys/fs/cgroup/pids/system.slice/$unit/pids.max")" 20 || return 1
    expect cpu.cfs_quota_us "$(cat "/sys/fs/cgroup/cpu,cpuacct/system.slice/$unit/cpu.cfs_quota_us")" 33333 || return 1
    expect cpu.shares "$(cat "/sys/fs/cgroup/cpu,cpuacct/system.slice/$unit/cpu.shares")" 1024 || return 1
  fi
  expect CPUQuotaPerSecUSec "$(prop "$unit" CPUQuotaPerSecUSec)" 340ms
}

# org.systemd.property.* annotations, where agentrt.conf lets config.json set them: the same
# unit properties as runc's (TimeoutStopSec=7 is TimeoutStopUSec 7 s).
t_property_annotations() {
  local unit p a r
  bundle sleep 1000 || return 1
  edit '.annotations += {"org.systemd.property.TimeoutStopSec": "7",
        "org.systemd.property.CollectMode": "'"'"'inactive-or-failed'"'"'"}'
  printf 'pod_annotations = org.systemd.property.*\n' >"$T/agentrt.conf"
  chmod 0600 "$T/agentrt.conf"
  ar --systemd-cgroup create -b "$B" "$CID" 2>"$T/err" && fail "taken without pod_annotations" && return 1
  cat "$T/err"
  ar --config "$T/agentrt.conf" --systemd-cgroup create -b "$B" "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  mkdir -p "$T/runc"
  rc --systemd-cgroup create -b "$B" "$CID" </dev/null >/dev/null 2>"$T/runc.err" || fail "runc create: $(cat "$T/runc.err")" || return 1
  for p in TimeoutStopUSec CollectMode; do
    a=$(prop "$unit" "$p") r=$(prop "runc-$CID.scope" "$p")
    echo "$p: agentrt $a, runc $r"
    [ "$a" = "$r" ] || fail "$p differs from runc's" || return 1
  done
  expect TimeoutStopUSec "$(prop "$unit" TimeoutStopUSec)" 7s
}

# cgroupsPath slice:prefix:name, the kubelet's shape; the slices are made by systemd.
t_slice() {
  local uid unit cgp
  uid=0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0
  bundle sleep 1000 || return 1
  edit --arg p "kubepods-besteffort-pod$uid.slice:cri-containerd:$CID" '.linux.cgroupsPath = $p'
  ar --systemd-cgroup create -b "$B" "$CID" || fail "create failed" || return 1
  unit=cri-containerd-$CID.scope
  cgp=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$uid.slice/$unit
  expect ControlGroup "$(prop "$unit" ControlGroup)" "$cgp" || return 1
  expect Slice "$(prop "$unit" Slice)" "kubepods-besteffort-pod$uid.slice" || return 1
  [ -d "$CG$cgp" ] || fail "no $CG$cgp" || return 1
  ar delete --force "$CID" || return 1
  unit_gone "$unit" || fail "unit left"
}

# update: SetUnitProperties and the files; systemd re-applying its properties (daemon-reload)
# keeps the new values.
t_update() {
  local unit d
  bundle sleep 1000 || return 1
  edit '.linux.resources += {"memory": {"limit": 67108864}, "pids": {"limit": 20}}'
  ar --systemd-cgroup create -b "$B" "$CID" && ar start "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  ar update --memory 134217728 --pids-limit 30 --cpu-quota 50000 --cpu-period 100000 "$CID" ||
    fail "update failed" || return 1
  systemctl daemon-reload
  expect TasksMax "$(prop "$unit" TasksMax)" 30 || return 1
  expect CPUQuotaPerSecUSec "$(prop "$unit" CPUQuotaPerSecUSec)" 500ms || return 1
  if [ "$LAYOUT" = v2 ]; then
    d=$CG/system.slice/$unit
    expect MemoryMax "$(prop "$unit" MemoryMax)" 134217728 || return 1
    expect memory.max "$(cat "$d/memory.max")" 134217728 || return 1
    expect pids.max "$(cat "$d/pids.max")" 30 || return 1
    expect cpu.max "$(cat "$d/cpu.max")" "50000 100000" || return 1
  else
    expect MemoryLimit "$(prop "$unit" MemoryLimit)" 134217728 || return 1
    expect memory.limit_in_bytes "$(cat "/sys/fs/cgroup/memory/system.slice/$unit/memory.limit_in_bytes")" 134217728 || return 1
    expect pids.max "$(cat "/sys/fs/cgroup/pids/system.slice/$unit/pids.max")" 30 || return 1
  fi
}

counter() { cat "$B/rootfs/tmp/counter" 2>/dev/null || echo 0; }
counter_above() { [ "$(counter)" -gt "$1" ]; }

# pause/resume through the files; the supervisor waits outside while the container is frozen.
t_pause() {
  local unit c sv
  bundle sh -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/counter; sleep 0.05; done' || return 1
  ar --systemd-cgroup create -b "$B" "$CID" && ar start "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  wait_until 100 counter_above 2 || fail "the container does not count" || return 1
  ar pause "$CID" || fail "pause failed" || return 1
  expect status "$(ar state "$CID" | jq -r .status)" paused || return 1
  if [ "$LAYOUT" = v2 ]; then
    expect "cgroup.events frozen" "$(sed -n 's/^frozen //p' "$CG/system.slice/$unit/cgroup.events")" 1 || return 1
    sv=$(worker "$(st .supervisorPid)")
    [ -n "$sv" ] || fail "no supervisor worker" || return 1
    grep -q "agentrt-supervisor" "/proc/$sv/cgroup" && fail "the supervisor's worker is frozen with it" && return 1
  else
    expect freezer.state "$(cat "/sys/fs/cgroup/freezer/system.slice/$unit/freezer.state")" FROZEN || return 1
  fi
  c=$(counter)
  sleep 1
  expect "counter while paused" "$(counter)" "$c" || return 1
  ar resume "$CID" || fail "resume failed" || return 1
  wait_until 100 counter_above "$((c + 2))" || fail "it does not count after resume"
}

# worker PID: the supervisor's worker, the watchdog's one child (the file ends with a space).
worker() {
  local k
  for k in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do echo "$k"; done
}

# The supervisor's worker is charged to the container: v2 in the scope's child
# agentrt-supervisor (Delegate=yes makes that subtree agentrt's), v1 in its cpu,cpuacct cgroup
# and not its freezer.  The watchdog, which keeps the deadline, is in none of the unit's cgroups.
t_supervisor() {
  local unit sv wk
  bundle sleep 1000 || return 1
  ar --systemd-cgroup create -b "$B" "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  sv=$(st .supervisorPid)
  [ "$sv" != null ] && [ "$sv" -gt 0 ] || fail "no supervisor" || return 1
  wk=$(worker "$sv")
  [ -n "$wk" ] || fail "no worker" || return 1
  echo "watchdog $sv: $(tr '\n' ' ' <"/proc/$sv/cgroup")"
  echo "worker $wk: $(tr '\n' ' ' <"/proc/$wk/cgroup")"
  grep -q "/system.slice/$unit" "/proc/$sv/cgroup" && fail "the watchdog is in the unit's cgroups" && return 1
  if [ "$LAYOUT" = v2 ]; then
    in_cgroup "$wk" "" "/system.slice/$unit/agentrt-supervisor" || fail "worker not in the scope's child" || return 1
  else
    in_cgroup "$wk" "cpu,cpuacct" "/system.slice/$unit" || fail "worker not in the scope's cpu,cpuacct" || return 1
    in_cgroup "$wk" "freezer" "/system.slice/$unit" && fail "worker in the container's freezer" && return 1
  fi
  ar ps "$CID" | grep -qw -e "$sv" -e "$wk" && fail "ps lists the supervisor" && return 1
  return 0
}

# exec, ps, kill --all: the exec'd process is in the unit; kill --all empties it.
t_exec_kill() {
  local unit pid e n
  bundle sleep 1000 || return 1
  ar --systemd-cgroup create -b "$B" "$CID" && ar start "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  pid=$(initpid)
  ar exec -d --pid-file "$T/exec.pid" "$CID" sleep 999 || fail "exec failed" || return 1
  e=$(cat "$T/exec.pid")
  grep -q "/system.slice/$unit\$" "/proc/$e/cgroup" || fail "exec'd $e not in the unit: $(cat "/proc/$e/cgroup")" || return 1
  n=$(ar ps --format json "$CID" | jq length)
  expect "ps" "$n" 2 || return 1
  # v2 counts the supervisor's threads too (in the scope's child cgroup).
  expect "events --stats: 2 pids or more" "$(ar events --stats "$CID" | jq '.data.pids.current >= 2')" true || return 1
  ar kill --all "$CID" KILL || fail "kill --all failed" || return 1
  wait_until 50 gone "$pid" && wait_until 50 gone "$e" || fail "processes left" || return 1
  ar delete "$CID" || fail "delete failed" || return 1
  unit_gone "$unit" || fail "unit left"
}

# Devices: the defaults work, a device the rules do not name cannot be opened (a /dev/kmsg
# node the container makes: writing needs no privilege, so only the device rules stop it);
# systemd has the same list (DevicePolicy strict) as agentrt's program (v2) or devices.list (v1).
t_devices() {
  local unit out
  bundle sleep 1000 || return 1
  ar --systemd-cgroup create -b "$B" "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  expect DevicePolicy "$(prop "$unit" DevicePolicy)" strict || return 1
  prop "$unit" DeviceAllow | grep -q "/dev/char/1:3 rwm" || fail "DeviceAllow: $(prop "$unit" DeviceAllow)" || return 1
  ar delete --force "$CID" || return 1
  bundle sh -c 'echo x > /dev/null && echo null-ok; rm -f /tmp/k; mknod /tmp/k c 1 11 && { echo agentrt-test 2>/dev/null > /tmp/k && echo kmsg-open || echo kmsg-denied; }' || return 1
  edit '.process.capabilities.bounding += ["CAP_MKNOD"] | .process.capabilities.effective += ["CAP_MKNOD"] | .process.capabilities.permitted += ["CAP_MKNOD"]'
  out=$(ar --systemd-cgroup run -b "$B" "$CID" 2>&1)
  echo "$out"
  [[ "$out" == *null-ok*kmsg-denied* ]] || fail "devices: $out" || return 1
  # The same node, allowed by a rule: the test can tell the two apart.
  edit '.linux.resources.devices += [{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "w"}]'
  out=$(ar --systemd-cgroup run -b "$B" "$CID" 2>&1)
  echo "$out"
  [[ "$out" == *null-ok*kmsg-open* ]] || fail "devices with c 1:11 w allowed: $out"
}

# The journal holds the unit: a delete --force of a container whose state.json is damaged
# stops it all the same.
t_journal() {
  local unit pid
  bundle sleep 1000 || return 1
  ar --systemd-cgroup create -b "$B" "$CID" && ar start "$CID" || fail "create failed" || return 1
  unit=agentrt-$CID.scope
  pid=$(initpid)
  grep -x "unit $unit" "$ROOT/$CID/journal" || fail "the journal has no unit line" || return 1
  echo garbage >"$ROOT/$CID/state.json"
  ar delete --force "$CID" || fail "delete --force failed" || return 1
  wait_until 50 gone "$pid" || fail "init $pid alive" || return 1
  unit_gone "$unit" || fail "unit left: $(prop "$unit" ActiveState)" || return 1
  [ ! -e "$ROOT/$CID" ] || fail "state dir left"
}

# A create killed while its createRuntime hook runs (the unit made, the init in it): delete
# --force leaves nothing, the v1 directories agentrt made itself included.
t_killed_create() {
  local unit cpid d
  bundle sleep 1000 || return 1
  edit --arg p "$T/hook.pid" '.hooks.createRuntime = [{"path": "/bin/sh", "args": ["sh", "-c", "echo $$ > \($p); exec sleep 1000"]}]'
  "$AGENTRT" --root "$ROOT" --systemd-cgroup create -b "$B" "$CID" </dev/null >/dev/null 2>&1 &
  cpid=$!
  unit=agentrt-$CID.scope
  wait_until 300 test -s "$T/hook.pid" || fail "the hook never ran" || return 1
  expect ActiveState "$(prop "$unit" ActiveState)" active || return 1
  kill -9 "$cpid"
  wait "$cpid" 2>/dev/null
  ar delete --force "$CID" || fail "delete --force failed" || return 1
  unit_gone "$unit" || fail "unit left" || return 1
  d=$(dirs_left "$unit")
  [ -z "$d" ] || fail "left: $d" || return 1
  [ ! -e "$ROOT/$CID" ] || fail "state dir left"
}

# A create that fails after its unit exists (a createRuntime hook that fails) leaves nothing:
# the unit stopped, the directories gone, no state.
t_failed_create() {
  local unit d
  bundle sleep 1000 || return 1
  edit '.hooks.createRuntime = [{"path": "/bin/false"}]'
  ar --systemd-cgroup create -b "$B" "$CID" && fail "create succeeded" && return 1
  unit=agentrt-$CID.scope
  unit_gone "$unit" || fail "unit left: $(prop "$unit" ActiveState)" || return 1
  d=$(dirs_left "$unit")
  [ -z "$d" ] || fail "left: $d" || return 1
  [ ! -e "$ROOT/$CID" ] || fail "state dir left"
}

# runc, the control: the same lifecycle, its unit gone after delete.
t_runc_control() {
  bundle sleep 1000 || return 1
  mkdir -p "$T/runc"
  rc --systemd-cgroup run -d -b "$B" "$CID" </dev/null >/dev/null 2>"$T/err" || fail "runc: $(cat "$T/err")" || return 1
  expect ActiveState "$(prop "runc-$CID.scope" ActiveState)" active || return 1
  rc pause "$CID" && rc resume "$CID" || fail "runc pause/resume" || return 1
  rc delete --force "$CID" || return 1
  unit_gone "runc-$CID.scope" || fail "runc's unit left"
}

# What a create costs with each driver here (systemd moves the init into its unit: an RCU grace
# period; cgroupfs clones it straight into its cgroup), and each leaves nothing after delete.
# The cgroupfs containers go under the root (an absolute cgroupsPath): this test's service has
# no delegated subtree for the default path below its own cgroup.
t_create_time() {
  local i a=0 b=0 t0 t1
  bundle sleep 1000 || return 1
  cp "$B/config.json" "$T/systemd.json"
  edit --arg p "/agentrt-cgfs-$CID" '.linux.cgroupsPath = $p'
  cp "$B/config.json" "$T/cgroupfs.json"
  for i in 1 2 3; do
    cp "$T/systemd.json" "$B/config.json"
    t0=$(date +%s%N)
    ar --systemd-cgroup create -b "$B" "$CID-s$i" || fail "create --systemd-cgroup failed" || return 1
    t1=$(date +%s%N)
    a=$((a + (t1 - t0) / 1000000))
    cp "$T/cgroupfs.json" "$B/config.json"
    t0=$(date +%s%N)
    ar create -b "$B" "$CID-c$i" || fail "create failed" || return 1
    t1=$(date +%s%N)
    b=$((b + (t1 - t0) / 1000000))
    ar delete --force "$CID-s$i" && ar delete --force "$CID-c$i" || return 1
    unit_gone "agentrt-$CID-s$i.scope" || fail "unit left" || return 1
    [ ! -e "$CG/agentrt-cgfs-$CID" ] || fail "cgroupfs directory left" || return 1
  done
  echo "create, mean of 3: --systemd-cgroup $((a / 3)) ms, cgroupfs $((b / 3)) ms"
}

# An OOM kill in the container under systemd (v2: systemd watches the scope's memory.events):
# agentrt's container ends as runc's does.
oom_outcome() {
  local unit=$1 pid=$2
  sleep 3
  if gone "$pid"; then echo -n "init killed"; else echo -n "init alive"; fi
  echo ", unit $(prop "$unit" ActiveState)"
}

t_oom() {
  local a r
  bundle sh -c 'tail -c 300m /dev/zero; echo after-oom; sleep 1000' || return 1
  edit '.linux.resources.memory = {"limit": 33554432, "swap": 33554432}'
  ar --systemd-cgroup create -b "$B" "$CID" && ar start "$CID" || fail "create failed" || return 1
  a=$(oom_outcome "agentrt-$CID.scope" "$(initpid)")
  mkdir -p "$T/runc"
  rc --systemd-cgroup run -d -b "$B" "$CID" </dev/null >/dev/null 2>"$T/err" || fail "runc: $(cat "$T/err")" || return 1
  r=$(oom_outcome "runc-$CID.scope" "$(rc state "$CID" | jq -r .pid)")
  echo "agentrt: $a; runc: $r"
  [ "$a" = "$r" ] || fail "agentrt's container ended unlike runc's"
  ar delete --force "$CID" || return 1
  unit_gone "agentrt-$CID.scope" || fail "unit left"
}

t_no_units_left() {
  local left
  left=$(systemctl list-units --all --plain --no-legend 'agentrt-*.scope' 'runc-*.scope' 'cri-containerd-*.scope' 'libpod-*.scope' | awk '{ print $1 }')
  [ -z "$left" ] || fail "units left: $left"
}

# --- engines (v2) -----------------------------------------------------------------------------

# The container's own memory.max, read inside it, with a cgroup namespace or without.
# shellcheck disable=SC2016 # for the container's shell
INSIDE='cat "/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/memory.max"'

ctrd_start() {
  # shellcheck source=../lib/cri.sh
  source "$P/tests/lib/cri.sh"
  # shellcheck disable=SC2034 # read by cri.sh's cri_stop
  CRI_AGENTRT=$AGENTRT
  CRI_SYSTEMD_CGROUP=1 CRI_SANDBOX_IMAGE=localhost/agentrt-test/pause:1 \
    cri_start /tmp/cri "$AGENTRT" --host-run || return 1
  ctr_ images import "$P/images/pause.tar" >/dev/null &&
    ctr_ images import "$P/images/busybox.tar" >/dev/null
}

# The kubelet's calls with the systemd driver, for one handler: the pod's slice, each
# container's scope (cri-containerd-ID.scope), its memory limit as MemoryMax, an update, and
# nothing left after the pod is removed.
cri_scenario() {
  local h=$1 uid pod c unit slice
  uid=$(cat /proc/sys/kernel/random/uuid)
  slice=kubepods-besteffort-pod${uid//-/_}.slice
  cri runp --handler "$h" --name "p-$h" --uid "$uid" --namespace agentrt-test \
    --log-dir "/tmp/cri/logs/$uid" \
    --cgroup-parent "/kubepods.slice/kubepods-besteffort.slice/$slice" \
    --save "/tmp/cri/$uid.pod" >"$T/pod" || return 1
  pod=$(cat "$T/pod")
  expect "pod's unit" "$(prop "cri-containerd-$pod.scope" ControlGroup)" \
    "/kubepods.slice/kubepods-besteffort.slice/$slice/cri-containerd-$pod.scope" || return 1
  c=$(cri create --pod "$pod" --pod-config "/tmp/cri/$uid.pod" --name c --image \
    localhost/agentrt-test/busybox:1 --memory 67108864 --command sleep -- 1000) || return 1
  cri start "$c" || return 1
  unit=cri-containerd-$c.scope
  expect "$h: MemoryMax" "$(prop "$unit" MemoryMax)" 67108864 || return 1
  expect "$h: memory.max inside" "$(cri exec-sync "$c" sh -c "$INSIDE")" 67108864 || return 1
  if [ "$h" = agentrt ]; then
    expect "state.json's unit" "$(jq -r .systemdUnit "/tmp/cri/agentrt-root/k8s.io/$c/state.json")" "$unit" || return 1
  fi
  cri update "$c" --memory 134217728 || return 1
  expect "$h: MemoryMax after update" "$(prop "$unit" MemoryMax)" 134217728 || return 1
  expect "$h: memory.max after update" "$(cat "$CG/kubepods.slice/kubepods-besteffort.slice/$slice/$unit/memory.max")" 134217728 || return 1
  cri stop "$c" && cri rm "$c" && cri stopp "$pod" && cri rmp "$pod" || return 1
  unit_gone "$unit" || fail "$h: $unit left" || return 1
  unit_gone "cri-containerd-$pod.scope" || fail "$h: the pod's unit left"
}

t_cri() {
  ctrd_start || fail "containerd: $(tail -n 20 /tmp/cri/containerd.log 2>/dev/null)" || return 1
  mark "containerd up, images imported"
  local r=0
  cri_scenario runc || { fail "runc (the control) failed"; r=1; }
  mark "runc's pod done"
  cri_scenario agentrt || r=1
  mark "agentrt's pod done"
  cri cleanup >/dev/null 2>&1
  cri_stop
  return $r
}

# Podman's systemd cgroup manager: machine.slice:libpod:ID, the unit libpod-ID.scope with the
# container's memory limit; nothing left after rm.
podman_scenario() {
  local rt=$1 id unit
  id=$(podman --runtime "$rt" --cgroup-manager systemd run -d --memory 64m \
    localhost/agentrt-test-busybox:1 sleep 1000) || return 1
  unit=libpod-$id.scope
  expect "$rt: ControlGroup" "$(prop "$unit" ControlGroup)" "/machine.slice/$unit" || return 1
  expect "$rt: MemoryMax" "$(prop "$unit" MemoryMax)" 67108864 || return 1
  expect "$rt: memory.max inside" "$(podman exec "$id" sh -c "$INSIDE")" 67108864 || return 1
  podman rm -f -t 0 "$id" >/dev/null || return 1
  wait_until 100 unit_gone "$unit" || fail "$rt: $unit left"
}

t_podman() {
  # shellcheck source=../lib/podman.sh
  BATS_TEST_DIRNAME=$P/tests source "$P/tests/lib/podman.sh"
  rootfs_busybox() { mkdir -p "$1" && cp -a "$P/rootfs/." "$1/"; }
  PD=/tmp/podman AGENTRT=$AGENTRT podman_setup || return 1
  mark "podman set up"
  local r=0
  podman_scenario runc || { fail "runc (the control) failed"; r=1; }
  mark "runc's container done"
  podman_scenario agentrt || r=1
  mark "agentrt's container done"
  PD=/tmp/podman podman_teardown
  return $r
}

# The Debian package (tests/lib/deb.sh's, in the payload as agentrt.deb) installed with dpkg
# (the guest has its dependencies), then Podman as an operator runs it: its own configuration
# (no CONTAINERS_CONF, which would hide the drop-ins) and storage, with the package's drop-in
# copied to containers.conf.d as the drop-in says, and agentrt's own defaults (--root
# /run/agentrt, /etc/agentrt/agentrt.conf).  The supervisor's uname answers the annotation's
# release: agentrt ran the container, not runc.
t_deb() {
  local img=localhost/agentrt-test-deb:1 d=/etc/containers/containers.conf.d out
  # t_podman's private configuration is exported in this shell: not the operator's.
  pm() { env -u CONTAINERS_CONF -u CONTAINERS_STORAGE_CONF -u TMPDIR podman "$@"; }
  [ -f "$P/agentrt.deb" ] || fail "no agentrt.deb in the payload" || return 1
  dpkg -i "$P/agentrt.deb" >/dev/null || fail "dpkg -i failed" || return 1
  mark "installed"
  expect "the installed binary" "$(command -v agentrt)" /usr/bin/agentrt || return 1
  mkdir -p "$d"
  cp /usr/share/agentrt/podman/containers.conf "$d/agentrt.conf"
  expect "Podman's agentrt" "$(pm --runtime agentrt info --format '{{.Host.OCIRuntime.Path}}')" \
    /usr/bin/agentrt || return 1
  tar -C "$P/rootfs" -c . | pm import -q - "$img" >/dev/null || fail "podman import failed" ||
    return 1
  out=$(pm --runtime agentrt run --rm --network none \
    --annotation io.agentrt.uname.release=6.1.0-deb "$img" uname -r 2>"$T/err")
  [ -s "$T/err" ] && sed 's/^/podman: /' "$T/err"
  expect "uname -r under Podman's agentrt" "$out" 6.1.0-deb || return 1
  mark "podman run done"
  expect "containers left" "$(/usr/bin/agentrt list -q | wc -l)" 0 || return 1
  pm rmi -f "$img" >/dev/null
  rm -f "$d/agentrt.conf"
}

# --- main -------------------------------------------------------------------------------------

echo "guest: $(uname -r), systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), cgroup $LAYOUT, up $(cut -d' ' -f1 /proc/uptime)s"
start=$(cut -d' ' -f1 /proc/uptime)
run_test "layout" t_layout
run_test "lifecycle" t_lifecycle
run_test "resources" t_resources
run_test "slice" t_slice
run_test "property annotations" t_property_annotations
run_test "update" t_update
run_test "pause resume" t_pause
run_test "supervisor cgroup" t_supervisor
run_test "exec ps kill all" t_exec_kill
run_test "devices" t_devices
run_test "journal" t_journal
run_test "killed create" t_killed_create
run_test "failed create" t_failed_create
run_test "runc control" t_runc_control
run_test "create time" t_create_time
run_test "oom like runc" t_oom
if [ "$LAYOUT" = v2 ]; then
  run_test "cri" t_cri
  run_test "podman" t_podman
  run_test "deb podman drop-in" t_deb
fi
run_test "no units left" t_no_units_left
echo "1..$N"
end=$(cut -d' ' -f1 /proc/uptime)
echo "guest: tests ran from uptime ${start}s to ${end}s"
if [ "$FAILED" -eq 0 ]; then
  echo "AGENTRT-VM-RESULT: PASS $N/$N"
else
  echo "AGENTRT-VM-RESULT: FAIL $((N - FAILED))/$N"
fi
