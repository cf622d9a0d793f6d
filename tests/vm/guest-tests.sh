#!/bin/sh
# agentrt's cgroup v2 tests, run by busybox sh inside the VM (tests/vm/guest-init) on a kernel
# whose only cgroup hierarchy is cgroup2 on /sys/fs/cgroup.  Output is TAP: `ok N name`,
# `not ok N name`, or `not ok N name # TODO why` for a command this build does not have yet;
# diagnostics follow a test as `# ` lines.  tests/cgroup_v2.bats asserts each line by name.
#
# Each test gets a private --root and bundle under /tmp/tN and a unique container id, as the
# host's bats tests do, and whatever it created is deleted after it, pass or fail.
export PATH=/bin

TESTS="layout memory_oom pids_fork_bomb cpu_quota pause_resume update vfiles_update devices
kill_all ps supervisor_cgroup supervisor_pause supervisor_kill_all supervisor_deadline
socket_memory kernel_tcp tmpfs_inodes tmpfs_kmem agent_any_path agent_idmap cgroup_removed"
N=0

# --- helpers ----------------------------------------------------------------------------------
ar() { agentrt --root "$ROOT" "$@"; }
fail() {
  echo "$*"
  return 1
}

# bundle SCRIPT [RESOURCES]: a busybox bundle whose process is `sh /t.sh` running SCRIPT, with
# agentrt's default config, a writable rootfs (the tests read files the workload writes), and
# RESOURCES (JSON members, e.g. "pids": {"limit": 20}) added to linux.resources.
bundle() {
  mkdir -p "$BUNDLE"
  cp -a /rootfs "$BUNDLE/rootfs"
  printf '%s\n' "$1" >"$BUNDLE/rootfs/t.sh"
  agentrt spec --bundle "$BUNDLE" || return 1
  # The default config is runc's layout, one member per line and tab-indented; sed is all
  # busybox has for JSON.
  sed -i -e 's/"terminal": true/"terminal": false/' -e 's/"readonly": true/"readonly": false/' \
    -e 's/^\t\t\t"sh"$/\t\t\t"\/bin\/sh", "\/t.sh"/' "$BUNDLE/config.json"
  if [ -n "${2:-}" ]; then
    sed -i "/\"resources\": {/a $2," "$BUNDLE/config.json"
  fi
}

# start: create and start $CID; its stdio goes to $T/stdio.log.
start() {
  ar create --bundle "$BUNDLE" "$CID" </dev/null >"$T/stdio.log" 2>"$T/create.err" ||
    fail "create failed: $(cat "$T/create.err")" || return 1
  ar start "$CID" || fail "start failed"
}

# cgdir: the container's cgroup, from cgroupPaths in state.json (compact JSON, one line).
cgdir() { sed -n 's/.*"cgroupPaths":\["\([^"]*\)"\].*/\1/p' "$ROOT/$CID/state.json"; }

status() { ar state "$CID" | sed -n 's/.*"status": "\([a-z]*\)".*/\1/p'; }

# wait_until TENTHS COMMAND...: poll COMMAND every 0.1 s for at most TENTHS tenths of a second.
wait_until() {
  n=$1
  shift
  while ! "$@"; do
    n=$((n - 1))
    [ "$n" -gt 0 ] || return 1
    usleep 100000
  done
}

file_has() { grep -q "$2" "$1" 2>/dev/null; }
# svpids: the container's supervisor, its watchdog and the watchdog's one child, the worker.
svpids() {
  w=$(sed -n 's/.*"supervisorPid":\([0-9]*\).*/\1/p' "$ROOT/$CID/state.json")
  echo "$w $(cat "/proc/$w/task/$w/children" 2>/dev/null)"
}
# svworker: the worker alone, the one of them charged to the container.
svworker() {
  w=$(sed -n 's/.*"supervisorPid":\([0-9]*\).*/\1/p' "$ROOT/$CID/state.json")
  # The file ends its list with a space.
  for k in $(cat "/proc/$w/task/$w/children" 2>/dev/null); do echo "$k"; done
}
in_cgroup() { grep -qx "0::$2" "/proc/$1/cgroup"; }
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
nprocs() { wc -l <"$1/cgroup.procs"; }
nprocs_is() { [ "$(nprocs "$1")" -eq "$2" ]; }
# events FILE KEY: the value of KEY in a flat-keyed cgroup file (memory.events, cgroup.events).
events() { sed -n "s/^$2 //p" "$1"; }
counter() { cat "$BUNDLE/rootfs/tmp/counter" 2>/dev/null || echo 0; }
counter_above() { [ "$(counter)" -gt "$1" ]; }
is_status() { [ "$(status)" = "$1" ]; }

# A command this build does not implement yet is a TODO, not a failure (status 2).
todo_if_unsupported() {
  if grep -q 'not supported yet' "$1"; then
    echo "TODO: $(cat "$1")"
    return 2
  fi
  cat "$1"
  return 1
}

# --- tests ------------------------------------------------------------------------------------

# cgroup2 is the only cgroup filesystem and the container gets exactly one directory in it,
# holding its init.
t_layout() {
  [ "$(grep -c ' - cgroup2 ' /proc/self/mountinfo)" -eq 1 ] || fail "no cgroup2 mount" || return 1
  [ "$(grep -c ' - cgroup ' /proc/self/mountinfo)" -eq 0 ] || fail "a v1 hierarchy is mounted" || return 1
  bundle 'exec sleep 1000' || return 1
  start || return 1
  grep -q '"cgroupPaths":\["/sys/fs/cgroup/[^"]*"\]' "$ROOT/$CID/state.json" ||
    fail "cgroupPaths is not one /sys/fs/cgroup directory: $(cat "$ROOT/$CID/state.json")" || return 1
  cg=$(cgdir)
  echo "cgroup: $cg"
  pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$ROOT/$CID/state.json")
  grep -qx "$pid" "$cg/cgroup.procs" || fail "init $pid is not in $cg/cgroup.procs" || return 1
  grep -q "^0::/agentrt/$CID\$" "/proc/$pid/cgroup" || fail "init's cgroup: $(cat "/proc/$pid/cgroup")"
}

# A 64 MiB memory limit: a process that grows without bound is OOM-killed inside the container;
# the container's shell, and the guest, go on.
t_memory_oom() {
  bundle 'tail /dev/zero; echo "bomb status $?"; exec sleep 1000' '"memory": {"limit": 67108864}' ||
    return 1
  start || return 1
  cg=$(cgdir)
  [ "$(cat "$cg/memory.max")" = 67108864 ] || fail "memory.max is $(cat "$cg/memory.max")" || return 1
  wait_until 600 file_has "$T/stdio.log" 'bomb status' || fail "the bomb was not stopped in 60 s" || return 1
  cat "$T/stdio.log"
  grep -q 'bomb status 137' "$T/stdio.log" || fail "the bomb did not die of SIGKILL" || return 1
  oom=$(events "$cg/memory.events" oom_kill)
  echo "memory.events: $(tr '\n' ' ' <"$cg/memory.events")"
  [ "${oom:-0}" -gt 0 ] || fail "memory.events oom_kill is ${oom:-missing}" || return 1
  is_status running || fail "the container's init died too: $(status)"
}

# pids.max 20: the workload forks sleepers until fork fails; never more than 20 processes.
t_pids_fork_bomb() {
  # ash exits when a fork fails, so the loop runs in a subshell; echo is a builtin and exec
  # does not fork, so the container's init goes on once the limit is reached.
  bundle '
(
  i=0
  while [ $i -lt 100 ]; do
    sleep 1000 &
    i=$((i + 1))
  done
) 2>/tmp/fork.err
echo done >/tmp/forked
exec sleep 1000' '"pids": {"limit": 20}' || return 1
  start || return 1
  cg=$(cgdir)
  [ "$(cat "$cg/pids.max")" = 20 ] || fail "pids.max is $(cat "$cg/pids.max")" || return 1
  wait_until 300 test -e "$BUNDLE/rootfs/tmp/forked" ||
    fail "the loop did not end in 30 s: status $(status), $(cat "$T/stdio.log" "$BUNDLE/rootfs/tmp/fork.err")" || return 1
  echo "fork errors: $(sort -u "$BUNDLE/rootfs/tmp/fork.err" | head -n 3)"
  echo "pids.current $(cat "$cg/pids.current"), processes $(nprocs "$cg"), pids.events $(cat "$cg/pids.events")"
  [ "$(cat "$cg/pids.current")" -le 20 ] || fail "pids.current above 20" || return 1
  [ "$(nprocs "$cg")" -le 20 ] || fail "more than 20 processes" || return 1
  [ "$(nprocs "$cg")" -ge 15 ] || fail "the loop made too few processes to reach the limit" || return 1
  [ "$(events "$cg/pids.events" max)" -gt 0 ] || fail "pids.events max is 0"
}

# cpu quota 50000 per 100000 us: a spinner gets about half a CPU.  The guest is slow and shares
# the host, so the bound is loose.
t_cpu_quota() {
  bundle 'while :; do :; done' '"cpu": {"quota": 50000, "period": 100000}' || return 1
  start || return 1
  cg=$(cgdir)
  [ "$(cat "$cg/cpu.max")" = "50000 100000" ] || fail "cpu.max is $(cat "$cg/cpu.max")" || return 1
  sleep 1
  u0=$(events "$cg/cpu.stat" usage_usec)
  t0=$(cut -d' ' -f1 /proc/uptime)
  sleep 3
  u1=$(events "$cg/cpu.stat" usage_usec)
  t1=$(cut -d' ' -f1 /proc/uptime)
  echo "cpu.stat: $(tr '\n' ' ' <"$cg/cpu.stat")"
  awk -v u0="$u0" -v u1="$u1" -v t0="$t0" -v t1="$t1" 'BEGIN {
    r = (u1 - u0) / 1e6 / (t1 - t0); printf "CPUs used: %.3f over %.2f s\n", r, t1 - t0
    exit !(r >= 0.3 && r <= 0.7) }' || fail "outside 0.3-0.7 CPU"
}

# pause freezes the whole cgroup (a counter stops advancing), resume thaws it.
t_pause_resume() {
  bundle 'i=0; while :; do i=$((i + 1)); echo $i >/tmp/counter.new; mv /tmp/counter.new /tmp/counter; usleep 100000; done' ||
    return 1
  start || return 1
  cg=$(cgdir)
  wait_until 300 counter_above 2 || fail "the counter does not advance" || return 1
  ar pause "$CID" 2>"$T/pause.err" || {
    todo_if_unsupported "$T/pause.err"
    return
  }
  [ "$(cat "$cg/cgroup.freeze")" = 1 ] || fail "cgroup.freeze is $(cat "$cg/cgroup.freeze")" || return 1
  wait_until 100 file_has "$cg/cgroup.events" '^frozen 1' || fail "cgroup.events: $(cat "$cg/cgroup.events")" || return 1
  is_status paused || fail "status after pause: $(status)" || return 1
  c1=$(counter)
  sleep 2
  c2=$(counter)
  echo "paused: counter $c1, 2 s later $c2"
  [ "$c1" = "$c2" ] || fail "the counter advanced while paused" || return 1
  ar resume "$CID" 2>"$T/resume.err" || {
    todo_if_unsupported "$T/resume.err"
    return
  }
  wait_until 100 file_has "$cg/cgroup.events" '^frozen 0' || fail "cgroup.events: $(cat "$cg/cgroup.events")" || return 1
  is_status running || fail "status after resume: $(status)" || return 1
  wait_until 300 counter_above "$c2" || fail "the counter did not advance after resume" || return 1
  echo "resumed: counter $(counter)"
}

# update changes the limits of a running container: runc's flags, and --resources FILE.
t_update() {
  bundle 'exec sleep 1000' '"memory": {"limit": 67108864}, "pids": {"limit": 20}' || return 1
  start || return 1
  cg=$(cgdir)
  ar update --memory 100000000 "$CID" 2>"$T/update.err" || {
    todo_if_unsupported "$T/update.err"
    return
  }
  # memory.max is kept in pages: the kernel rounds the bytes down.
  mem=$(cat "$cg/memory.max")
  echo "memory.max $mem"
  [ "$mem" = 100000000 ] || [ "$mem" = $((100000000 / 4096 * 4096)) ] || fail "memory.max did not change" || return 1
  echo '{"pids": {"limit": 30}, "cpu": {"quota": 20000, "period": 100000}}' >"$T/resources.json"
  ar update --resources "$T/resources.json" "$CID" || fail "update --resources failed" || return 1
  [ "$(cat "$cg/pids.max")" = 30 ] || fail "pids.max is $(cat "$cg/pids.max")" || return 1
  [ "$(cat "$cg/cpu.max")" = "20000 100000" ] || fail "cpu.max is $(cat "$cg/cpu.max")" || return 1
  [ "$(cat "$cg/memory.max")" = "$mem" ] || fail "memory.max changed to $(cat "$cg/memory.max")"
}

# What the container is shown follows update: the supervisor reads memory.max, cpu.max and
# cpuset.cpus.effective again every second for the virtual /proc/meminfo, cpu online and the
# emulated sched_getaffinity (nproc).
memtotal() { ar exec "$CID" cat /proc/meminfo | sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p'; }
shown() { echo "MemTotal $(memtotal) kB, nproc $(ar exec "$CID" nproc), online $(ar exec "$CID" cat /sys/devices/system/cpu/online)"; }
shows() { [ "$(shown)" = "MemTotal $1 kB, nproc $2, online $3" ]; }
t_vfiles_update() {
  bundle 'exec sleep 1000' '"memory": {"limit": 268435456}, "cpu": {"quota": 100000, "period": 100000}' || return 1
  start || return 1
  shows 262144 1 0 || fail "at start: $(shown)" || return 1
  ar update --memory 134217728 --cpu-quota 200000 "$CID" || fail "update failed" || return 1
  wait_until 30 shows 131072 2 0-1 || fail "after update --memory 128m --cpu-quota 200000: $(shown)" || return 1
  echo "updated: $(shown)"
  ar update --cpuset-cpus 1 "$CID" || fail "update --cpuset-cpus failed" || return 1
  wait_until 30 shows 131072 1 0 || fail "after update --cpuset-cpus 1: $(shown)" || return 1
  echo "cpuset 1: $(shown)"
}

# The device program: with the default config (deny all, then the defaults) /dev/null works,
# but a block device node the workload makes (mknod itself is allowed, with CAP_MKNOD) cannot
# be opened: EPERM, where without a program the guest (it has no disk) would say ENXIO.  An
# update that allows 8:0 for reading replaces the program: then the open reaches the driver.
t_devices() {
  bundle 'mknod /dev/blk b 8 0 || echo "mknod failed"
echo hi >/dev/null && echo "null ok"
cat /dev/blk >/dev/null 2>/tmp/blk.err && echo "blk opened" || echo "blk: $(cat /tmp/blk.err)"
echo done
exec sleep 1000' || return 1
  sed -i 's/"CAP_KILL",/"CAP_KILL", "CAP_MKNOD",/' "$BUNDLE/config.json"
  start || return 1
  wait_until 300 file_has "$T/stdio.log" '^done' || fail "no result in 30 s: $(cat "$T/stdio.log")" || return 1
  cat "$T/stdio.log"
  ! grep -q 'mknod failed' "$T/stdio.log" || fail "mknod of a block device was refused" || return 1
  grep -q '^null ok' "$T/stdio.log" || fail "/dev/null is not usable" || return 1
  grep -q '^blk: .*Operation not permitted' "$T/stdio.log" || fail "the block device was not EPERM" || return 1
  echo '{"devices": [{"allow": true, "type": "b", "major": 8, "minor": 0, "access": "r"}]}' >"$T/dev.json"
  ar update --resources "$T/dev.json" "$CID" 2>"$T/update.err" || fail "update: $(cat "$T/update.err")" || return 1
  ar exec "$CID" cat /dev/blk >/dev/null 2>"$T/exec.err"
  echo "after update: $(cat "$T/exec.err")"
  ! grep -q 'Operation not permitted' "$T/exec.err" || fail "still EPERM after the update" || return 1
  ar exec "$CID" sh -c 'echo hi >/dev/null' || fail "/dev/null is not usable after the update"
}

# kill --all KILL: every process of the cgroup dies, not only init.
t_kill_all() {
  bundle 'sleep 1000 & sleep 1000 & sleep 1000 & wait' || return 1
  start || return 1
  cg=$(cgdir)
  wait_until 300 nprocs_is "$cg" 4 || fail "expected 4 processes: $(cat "$cg/cgroup.procs")" || return 1
  ar kill --all "$CID" KILL || fail "kill --all failed" || return 1
  wait_until 100 nprocs_is "$cg" 0 || fail "left: $(cat "$cg/cgroup.procs")" || return 1
  wait_until 100 is_status stopped || fail "status after kill --all: $(status)"
}

# ps lists the pids of the container's cgroup.
t_ps() {
  bundle 'sleep 1000 & sleep 1000 & wait' || return 1
  start || return 1
  cg=$(cgdir)
  wait_until 300 nprocs_is "$cg" 3 || fail "expected 3 processes: $(cat "$cg/cgroup.procs")" || return 1
  ar ps --format json "$CID" >"$T/ps.json" 2>"$T/ps.err" || {
    todo_if_unsupported "$T/ps.err"
    return
  }
  cat "$T/ps.json"
  for p in $(cat "$cg/cgroup.procs"); do
    grep -qE "(^|[^0-9])$p([^0-9]|\$)" "$T/ps.json" || fail "pid $p missing" || return 1
  done
}

# The supervisor's worker is charged to the container's CPU: it lives in the child
# agentrt-supervisor of the container's cgroup (no controller is delegated to children, so the
# container may hold processes itself), under the container's cpu.max; the watchdog, which keeps
# the deadline, is outside.  A workload capped at a quarter of a CPU that calls uname
# (supervised) in a loop: the child's cpu.stat shows the worker's work, the container's (which
# includes it) stays near the cap, and ps does not list the supervisor.
t_supervisor_cgroup() {
  bundle 'exec /bin/probe loop 1000000000 uname' '"cpu": {"quota": 25000, "period": 100000}' ||
    return 1
  start || return 1
  cg=$(cgdir)
  sv=$(svpids)
  wk=$(svworker)
  [ -n "$wk" ] || fail "no worker" || return 1
  in_cgroup "$wk" "/agentrt/$CID/agentrt-supervisor" || fail "worker $wk: $(cat "/proc/$wk/cgroup")" || return 1
  ! grep -q "/agentrt/$CID" "/proc/${sv%% *}/cgroup" || fail "watchdog: $(cat "/proc/${sv%% *}/cgroup")" || return 1
  [ -z "$(cat "$cg/cgroup.subtree_control")" ] || fail "subtree_control: $(cat "$cg/cgroup.subtree_control")" || return 1
  sleep 1
  u0=$(events "$cg/cpu.stat" usage_usec)
  s0=$(events "$cg/agentrt-supervisor/cpu.stat" usage_usec)
  t0=$(cut -d' ' -f1 /proc/uptime)
  sleep 3
  u1=$(events "$cg/cpu.stat" usage_usec)
  s1=$(events "$cg/agentrt-supervisor/cpu.stat" usage_usec)
  t1=$(cut -d' ' -f1 /proc/uptime)
  awk -v u0="$u0" -v u1="$u1" -v s0="$s0" -v s1="$s1" -v t0="$t0" -v t1="$t1" 'BEGIN {
    c = (u1 - u0) / 1e6 / (t1 - t0); s = (s1 - s0) / 1e6 / (t1 - t0)
    printf "container: %.3f CPU, of which the supervisor: %.3f CPU\n", c, s
    exit !(s > 0.005 && c <= 0.35) }' || fail "outside the cap, or no supervisor time" || return 1
  ar ps --format json "$CID" >"$T/ps.json" || fail "ps failed" || return 1
  for p in $sv; do
    ! grep -qE "(^|[^0-9])$p([^0-9]|\$)" "$T/ps.json" || fail "ps lists the supervisor $p: $(cat "$T/ps.json")" || return 1
  done
}

# pause must not freeze the supervisor: it waits outside the container's cgroup while the
# container is frozen, and is back in its child after resume, answering supervised calls.
t_supervisor_pause() {
  bundle 'i=0; while :; do i=$((i + 1)); echo $i >/tmp/counter.new; mv /tmp/counter.new /tmp/counter; usleep 100000; done' ||
    return 1
  start || return 1
  cg=$(cgdir)
  sv=$(svpids)
  wait_until 300 counter_above 2 || fail "the counter does not advance" || return 1
  ar pause "$CID" || fail "pause failed" || return 1
  wait_until 100 file_has "$cg/cgroup.events" '^frozen 1' || fail "cgroup.events: $(cat "$cg/cgroup.events")" || return 1
  for p in $sv; do
    echo "paused: supervisor $p in $(cat "/proc/$p/cgroup")"
    ! grep -q "/agentrt/$CID" "/proc/$p/cgroup" || fail "supervisor $p is in the frozen cgroup" || return 1
  done
  c1=$(counter)
  sleep 1
  [ "$(counter)" = "$c1" ] || fail "the counter advanced while paused" || return 1
  ar resume "$CID" || fail "resume failed" || return 1
  wk=$(svworker)
  in_cgroup "$wk" "/agentrt/$CID/agentrt-supervisor" || fail "resumed: worker $wk in $(cat "/proc/$wk/cgroup")" || return 1
  [ "$(ar exec "$CID" uname -s)" = Linux ] || fail "uname after resume"
}

# kill --all KILL (cgroup.kill, which kills descendants too) and delete end the container
# without an alert: the supervisor is stopped first, not killed with it.
t_supervisor_kill_all() {
  bundle 'sleep 1000 & exec sleep 1000' || return 1
  start || return 1
  cg=$(cgdir)
  sv=$(svpids)
  ar kill --all "$CID" KILL || fail "kill --all failed" || return 1
  wait_until 100 nprocs_is "$cg" 0 || fail "left: $(cat "$cg/cgroup.procs")" || return 1
  for p in $sv; do wait_until 100 gone "$p" || fail "supervisor $p is still there" || return 1; done
  wait_until 100 is_status stopped || fail "status: $(status)" || return 1
  ! grep '"severity":"alert"' "$ROOT/$CID/audit.jsonl" || fail "an alert was recorded" || return 1
  ar delete "$CID" || fail "delete failed" || return 1
  [ ! -e "$cg" ] || fail "$cg is left"
}

# The deadline: the watchdog records it, then kills the container's cgroup, the worker included
# (it is in it): the record is there, and no alert.
t_supervisor_deadline() {
  bundle 'exec sleep 1000' || return 1
  ar create --timeout 3s --bundle "$BUNDLE" "$CID" </dev/null >"$T/stdio.log" 2>"$T/create.err" ||
    fail "create failed: $(cat "$T/create.err")" || return 1
  ar start "$CID" || fail "start failed" || return 1
  wait_until 200 is_status stopped || fail "not stopped after its deadline: $(status)" || return 1
  cat "$ROOT/$CID/audit.jsonl"
  grep -q '"event":"timeout"' "$ROOT/$CID/audit.jsonl" || fail "no timeout record" || return 1
  ! grep -q '"severity":"alert"' "$ROOT/$CID/audit.jsonl" || fail "an alert was recorded"
}

# Socket buffers count against memory.max on v2 (memory.stat sock): 64 loopback connections
# that never read cannot hold more than a 64 MiB limit.  TCP may also charge what it must send
# (acks) past the limit, and the OOM killer then takes the flood: either way the cgroup's
# memory, sockets included, peaks at about the limit.
flood_ended() { file_has "$T/stdio.log" queued || [ "$(events "$cg/memory.events" oom_kill)" -gt 0 ]; }
t_socket_memory() {
  bundle 'exec /bin/probe flood 64' '"memory": {"limit": 67108864}' || return 1
  start || return 1
  cg=$(cgdir)
  wait_until 900 flood_ended || fail "no result in 90 s: $(cat "$T/stdio.log")" || return 1
  cat "$T/stdio.log"
  echo "memory.stat sock $(events "$cg/memory.stat" sock), memory.peak $(cat "$cg/memory.peak"), memory.events: $(tr '\n' ' ' <"$cg/memory.events")"
  [ "$(cat "$cg/memory.peak")" -le $((67108864 * 11 / 10)) ] || fail "memory.peak above the limit" || return 1
  ! file_has "$T/stdio.log" queued || [ "$(sed -n 's/.* \([0-9]*\) MiB queued/\1/p' "$T/stdio.log")" -le 66 ] ||
    fail "queued above the limit"
}

# v2 has no separate socket limit: a kernelTCP at or above the memory limit holds already, a
# lower one fails create by name.
t_kernel_tcp() {
  bundle 'exec sleep 1000' '"memory": {"limit": 67108864, "kernelTCP": 33554432}' || return 1
  ! ar create --bundle "$BUNDLE" "$CID" </dev/null >"$T/stdio.log" 2>"$T/create.err" ||
    fail "create with kernelTCP below memory.max succeeded" || return 1
  cat "$T/create.err"
  grep -q 'linux.resources.memory.kernelTCP' "$T/create.err" || fail "the error does not name kernelTCP" || return 1
  sed -i 's/"kernelTCP": 33554432/"kernelTCP": 134217728/' "$BUNDLE/config.json"
  start || return 1
}

# The writable layer capped by --disk has inodes in proportion (one per 2 KiB): 64 MiB, 32768
# inodes, and empty files stop there (ENOSPC) instead of holding kernel memory without bound.
# Debian 12's kernel (6.1) takes no detached layers (its overlay clones only mounts of the
# caller's namespace): agentrt builds the overlay in a mount namespace of its own there.
t_tmpfs_inodes() {
  bundle 'stat -f -c "inodes %c" /
cd /tmp && seq 1 40000 | xargs touch 2>/dev/null
echo "files $(ls /tmp | wc -l)"
echo done
exec sleep 1000' '"memory": {"limit": 268435456}' || return 1
  ar create --disk 64m --bundle "$BUNDLE" "$CID" </dev/null >"$T/stdio.log" 2>"$T/create.err" ||
    fail "create failed: $(cat "$T/create.err")" || return 1
  ar start "$CID" || fail "start failed" || return 1
  cg=$(cgdir)
  wait_until 1200 file_has "$T/stdio.log" '^done' || fail "no result in 120 s: $(cat "$T/stdio.log")" || return 1
  cat "$T/stdio.log"
  echo "memory.current $(cat "$cg/memory.current"), slab $(events "$cg/memory.stat" slab)"
  grep -qx 'inodes 32768' "$T/stdio.log" || fail "not 32768 inodes" || return 1
  n=$(sed -n 's/^files //p' "$T/stdio.log")
  [ "$n" -lt 32768 ] && [ "$n" -gt 30000 ] || fail "$n files"
}

# What files cost the kernel (inodes, dentries) is charged to the container's memory.max on v2:
# 40000 empty files on a tmpfs of the config raise memory.stat slab by megabytes, and
# memory.current stays under the limit.
t_tmpfs_kmem() {
  bundle 'cd /scratch && seq 1 40000 | xargs touch 2>/dev/null
echo "files $(ls /scratch | wc -l)"
echo done
exec sleep 1000' '"memory": {"limit": 134217728}' || return 1
  sed -i 's|^\t"mounts": \[|&\n\t\t{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs", "options": ["size=64m"]},|' \
    "$BUNDLE/config.json"
  start || return 1
  cg=$(cgdir)
  wait_until 1200 file_has "$T/stdio.log" '^done' || fail "no result in 120 s: $(cat "$T/stdio.log")" || return 1
  cat "$T/stdio.log"
  slab=$(events "$cg/memory.stat" slab)
  echo "memory.current $(cat "$cg/memory.current"), memory.peak $(cat "$cg/memory.peak"), slab $slab"
  [ "$slab" -gt $((40000 * 500)) ] || fail "the files' inodes are not charged to the container" || return 1
  [ "$(cat "$cg/memory.peak")" -le 134217728 ] || fail "above memory.max"
}

# The agent profile (a user namespace, the ephemeral overlay) on this kernel, from a bundle
# under a 0700 directory of root's, as containerd's are: the runtime hands the init the rootfs
# as its cwd.  The guest's root is a tmpfs, which 6.1 cannot idmap: the image's files stay
# nobody's (65534) and a warning says so; /tmp is the container's.
t_agent_any_path() {
  mkdir -p "$T/private" && chmod 0700 "$T/private"
  BUNDLE=$T/private/b
  bundle 'id -u; stat -c %u /etc; echo w >/tmp/w && cat /tmp/w' || return 1
  ar run --agent --bundle "$BUNDLE" "$CID" </dev/null >"$T/out" 2>"$T/err" ||
    fail "run failed: $(cat "$T/err")" || return 1
  cat "$T/out" "$T/err"
  [ "$(sed -n 1p "$T/out")" = 0 ] || fail "not root inside" || return 1
  [ "$(sed -n 2p "$T/out")" = 65534 ] || fail "/etc is not nobody's" || return 1
  grep -q 'not idmapped: this kernel cannot idmap' "$T/err" || fail "no warning" || return 1
  [ "$(sed -n 3p "$T/out")" = w ] || fail "/tmp is not writable"
}

# The same from a bundle on ext4 (a loop device), which 6.1 idmaps: the container's root owns
# the image's root-owned files, writes /etc and /root, and the bundle is not written.  6.1's
# overlay takes no detached (idmapped) layer either: agentrt attaches it in a mount namespace
# of its own and builds the overlay there by path.
agent_idmap_on() {
  mkdir "$1/private" && chmod 0700 "$1/private"
  BUNDLE=$1/private/b
  bundle 'stat -c %u:%g /etc /etc/passwd; echo x >/etc/x && echo a:x:1:1::/:/bin/sh >>/etc/passwd && mkdir /root/a && echo wrote' || return 1
  sum=$(md5sum "$BUNDLE/rootfs/etc/passwd")
  ar run --agent --bundle "$BUNDLE" "$CID" </dev/null >"$T/out" 2>"$T/err" ||
    fail "run failed: $(cat "$T/err")" || return 1
  cat "$T/out" "$T/err"
  [ "$(sed -n 1,2p "$T/out" | sort -u)" = 0:0 ] || fail "the image is not the container root's" || return 1
  grep -qx wrote "$T/out" || fail "no write to /etc or /root" || return 1
  [ ! -e "$BUNDLE/rootfs/etc/x" ] && [ ! -e "$BUNDLE/rootfs/root/a" ] &&
    [ "$(md5sum "$BUNDLE/rootfs/etc/passwd")" = "$sum" ] || fail "the bundle was written"
}

t_agent_idmap() {
  dd if=/dev/zero of="$T/ext.img" bs=1M count=24 2>/dev/null || fail "no image file" || return 1
  dev=$(losetup -f) && losetup "$dev" "$T/ext.img" || fail "no loop device" || return 1
  if mke2fs -q "$dev" >/dev/null && mkdir "$T/ext" && mount -t ext4 "$dev" "$T/ext"; then
    agent_idmap_on "$T/ext"
    rc=$?
    for c in $(ar list -q 2>/dev/null); do ar delete --force "$c" >/dev/null 2>&1; done
    umount "$T/ext" || rc=1
  else
    rc=1
    echo "an ext4 file system on $dev"
  fi
  losetup -d "$dev"
  return $rc
}

# delete removes the container's cgroup, and with the last container agentrt/ goes too; no
# test before this one left a directory either.
t_cgroup_removed() {
  bundle 'exec sleep 1000' '"memory": {"limit": 67108864}' || return 1
  start || return 1
  cg=$(cgdir)
  [ -d "$cg" ] || fail "no $cg" || return 1
  ar delete --force "$CID" || fail "delete failed" || return 1
  [ ! -e "$cg" ] || fail "$cg is left" || return 1
  left=$(find /sys/fs/cgroup -mindepth 1 -type d)
  [ -z "$left" ] || fail "cgroup directories left: $left"
}

# --- runner -----------------------------------------------------------------------------------

# run_test NAME: t_NAME in a subshell, its output as TAP diagnostics; then whatever it left is
# deleted.
run_test() {
  N=$((N + 1))
  T=/tmp/t$N
  ROOT=$T/state
  BUNDLE=$T/bundle
  CID="vm$N-$$"
  mkdir -p "$ROOT"
  t0=$(cut -d' ' -f1 /proc/uptime)
  out=$( ("t_$1") 2>&1)
  rc=$?
  t1=$(cut -d' ' -f1 /proc/uptime)
  name=$(echo "$1" | tr _ ' ')
  case $rc in
  0) echo "ok $N $name" ;;
  2) echo "not ok $N $name # TODO $(echo "$out" | sed -n 's/^TODO: //p' | head -n 1)" ;;
  *) echo "not ok $N $name" ;;
  esac
  [ -z "$out" ] || echo "$out" | sed 's/^/# /'
  echo "# ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
  for c in $(ar list -q 2>/dev/null); do
    ar delete --force "$c" >/dev/null 2>&1 || echo "# could not delete $c"
  done
  rm -rf "$T"
}

# shellcheck disable=SC2086 # the list is split on purpose
set -- $TESTS
echo "1..$#"
for t in $TESTS; do run_test "$t"; done
