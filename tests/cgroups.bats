#!/usr/bin/env bats
# cgroups on this machine's layout (v1 or hybrid as booted): every limit of linux.resources is
# shown to hold against a workload that tries to break it, and every test checks that delete
# leaves no cgroup directory behind.
load helpers

setup() {
  # The files read here are v1's (memory.limit_in_bytes, pids.max in the pids hierarchy, ...).
  [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || skip "cgroup v2: these tests read v1 files"
  setup_busybox
  # A writable place: the rootfs is read-only in `agentrt spec`'s config.  Its pages are
  # charged to the container's memory cgroup like any other.
  update_config '.mounts += [{"destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "size=256m"]}]'
}

teardown() {
  local c
  if [ -n "${OTHER_ROOT:-}" ]; then
    for c in $("$AGENTRT" --root "$OTHER_ROOT" list -q 2>/dev/null); do
      "$AGENTRT" --root "$OTHER_ROOT" delete --force "$c" || true
    done
  fi
  teardown_root
  local d
  for d in "${EXTRA_CGROUPS[@]}"; do rmdir "$d" 2>/dev/null || true; done
  [ -z "${LOOPDEV:-}" ] || losetup -d "$LOOPDEV" 2>/dev/null || true
}

EXTRA_CGROUPS=()

# set_sh SCRIPT: the container's process is /bin/sh -c SCRIPT.
set_sh() { update_config --arg s "$1" '.process.args = ["/bin/sh", "-c", $s]'; }

# start_container [FLAG…]: create (with FLAGs) and start it detached; INIT is its host pid,
# CGROUPS its directories.
start_container() {
  agentrt_detached create "$@" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  INIT=$(jq -r .pid "$ROOT/state/$CID/state.json")
  mapfile -t CGROUPS < <(jq -r '.cgroupPaths[]' "$ROOT/state/$CID/state.json")
  [ "${#CGROUPS[@]}" -gt 0 ]
}

# cg FILE: the container's directory that has FILE (whichever hierarchy holds that controller).
cg() {
  local d
  for d in "${CGROUPS[@]}"; do [ -e "$d/$1" ] && { echo "$d"; return 0; }; done
  echo "no cgroup of $CID has $1" >&2
  return 1
}

# cg_read FILE: its content.
cg_read() { local d; d=$(cg "$1") && cat "$d/$1"; }

# cg_key FILE KEY: the value of KEY in a "key value" file (memory.oom_control, pids.events).
cg_key() { local d; d=$(cg "$1") && awk -v k="$2" '$1 == k { print $2 }' "$d/$1"; }

# no_cgroups_left: none of CGROUPS exists any more (and nothing under --root either).
no_cgroups_left() {
  local d left=0
  for d in "${CGROUPS[@]}"; do
    if [ -e "$d" ]; then echo "left behind: $d" >&2; left=1; fi
  done
  [ "$left" -eq 0 ]
  [ "$(state_dirs_left)" -eq 0 ]
}

# delete_and_check: delete --force, then nothing may be left.
delete_and_check() {
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  no_cgroups_left
}

# wait_status STATUS [TENTHS]: until `agentrt state` says STATUS (10 s by default).
wait_status() {
  local i
  for ((i = 0; i < ${2:-100}; i++)); do
    [ "$(__agentrt state "$CID" 2>/dev/null | jq -r .status)" = "$1" ] && return 0
    sleep 0.1
  done
  echo "$CID did not become $1" >&2
  return 1
}

# wait_file PATH [TENTHS]: until PATH exists and is not empty.
wait_file() {
  local i
  for ((i = 0; i < ${2:-100}; i++)); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "$1 did not appear" >&2
  return 1
}

# wait_end: until the workload has written its last line, "end", to stdio.log.
wait_end() {
  local i
  for ((i = 0; i < 100; i++)); do grep -qx end "$ROOT/stdio.log" && return 0; sleep 0.1; done
  echo "the workload did not finish:" >&2
  cat "$ROOT/stdio.log" >&2
  return 1
}

# gone PID: the process has exited (a zombie nobody reaped yet counts: it runs nothing).
gone() {
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ -z "$st" ] || [ "$st" = Z ]
}

# in_root PATH: PATH inside the container, seen from the host through its init.
in_root() { echo "/proc/$INIT/root$1"; }

# cpu_rate SECONDS: CPU-seconds per second the container used over SECONDS (cpuacct.usage).
cpu_rate() {
  local d u0 u1 t0 t1
  d=$(cg cpuacct.usage)
  u0=$(cat "$d/cpuacct.usage") t0=$(date +%s%N)
  sleep "$1"
  u1=$(cat "$d/cpuacct.usage") t1=$(date +%s%N)
  awk -v du=$((u1 - u0)) -v dt=$((t1 - t0)) 'BEGIN { printf "%.3f\n", du / dt }'
}

# own_cgroup CONTROLLER: this shell's cgroup in that v1 hierarchy (agentrt's own, since it is
# our child), "" for the root.
own_cgroup() { awk -F: -v c="$1" '$2 == c { print ($3 == "/" ? "" : $3) }' /proc/self/cgroup; }

# mount_of DIR: the cgroup hierarchy mount point DIR is in (/sys/fs/cgroup/NAME).
mount_of() { echo "$1" | cut -d/ -f1-5; }

# controller_of MOUNT: the /proc/self/cgroup name of a v1 hierarchy mounted at MOUNT
# ("memory", "cpu,cpuacct"); "" for the cgroup2 mount.
controller_of() {
  awk -v m="$1" '$5 == m { for (i = 7; $i != "-"; i++) ; t = $(i + 1); o = $(i + 3); \
    if (t == "cgroup2") { print ""; exit } n = split(o, a, ","); r = ""; \
    for (j = 1; j <= n; j++) if (a[j] != "rw" && a[j] != "ro" && a[j] !~ /=/) r = r (r == "" ? "" : ",") a[j]; \
    print r; exit }' /proc/self/mountinfo
}

@test "cgroups: a memory bomb under a 64 MiB limit is OOM-killed, and the cgroup held it there" {
  # A shell doubling a variable: no newline ever comes, so every byte stays in its memory.
  set_sh 'x=0123456789abcdef; while :; do x="$x$x"; done'
  update_config '.linux.resources.memory.limit = 67108864'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 137 ]
  mapfile -t CGROUPS < <(jq -r '.cgroupPaths[]' "$ROOT/state/$CID/state.json")
  [ "$(cg_read memory.limit_in_bytes)" -eq 67108864 ]
  [ "$(cg_key memory.oom_control oom_kill)" -ge 1 ]
  [ "$(cg_read memory.failcnt)" -gt 0 ]
  # The host never lent it more than the limit.
  [ "$(cg_read memory.max_usage_in_bytes)" -le 67108864 ]
  delete_and_check
}

@test "cgroups: tmpfs pages count against the memory limit too" {
  # tail buffers /dev/zero whole looking for a newline; here the bomb is a file on the tmpfs.
  set_sh 'cat /dev/zero > /run/fill; echo "cat: $?"'
  update_config '.linux.resources.memory.limit = 67108864'
  agentrt run --keep -b "$BUNDLE" "$CID"
  mapfile -t CGROUPS < <(jq -r '.cgroupPaths[]' "$ROOT/state/$CID/state.json")
  # The OOM killer has nothing left to free but the processes: cat dies, or the shell.
  [ "$(cg_key memory.oom_control oom_kill)" -ge 1 ]
  [ "$(cg_read memory.max_usage_in_bytes)" -le 67108864 ]
  delete_and_check
}

@test "cgroups: a fork bomb stops at pids.limit 20 and delete removes all of it" {
  # The inner shell starts sleeps until fork fails (ash then exits); 40 is a bound in case the
  # limit did not hold.  The outer shell says when, and stays.
  set_sh 'sh -c "i=0; while [ \$((i += 1)) -le 40 ]; do sleep 100 & echo \$! >> /run/started; done"; echo done > /run/done; exec sleep 1000'
  update_config '.linux.resources.pids.limit = 20'
  start_container
  wait_file "$(in_root /run/done)"
  local started current procs
  started=$(wc -l <"$(in_root /run/started)")
  current=$(cg_read pids.current)
  echo "started $started, pids.current $current" >&2
  [ "$(cg_read pids.max)" -eq 20 ]
  [ "$started" -le 20 ]
  [ "$started" -ge 10 ]
  [ "$current" -le 20 ]
  [ "$(cg_key pids.events max)" -ge 1 ]
  mapfile -t procs < "$(cg pids.current)/cgroup.procs"
  [ "${#procs[@]}" -ge "$started" ]
  delete_and_check
  local p
  for p in "${procs[@]}"; do gone "$p"; done
}

@test "cgroups: a busy loop under a 50000/100000 CPU quota gets about half a CPU" {
  set_sh 'while :; do :; done'
  update_config '.linux.resources.cpu.quota = 50000 | .linux.resources.cpu.period = 100000'
  start_container
  [ "$(cg_read cpu.cfs_quota_us)" -eq 50000 ]
  [ "$(cg_read cpu.cfs_period_us)" -eq 100000 ]
  local rate
  rate=$(cpu_rate 3)
  echo "limited: $rate CPU-s/s" >&2
  awk -v r="$rate" 'BEGIN { exit !(r >= 0.3 && r <= 0.7) }'
  delete_and_check
}

@test "cgroups: the same busy loop without a quota gets a whole CPU" {
  set_sh 'while :; do :; done'
  start_container
  [ "$(cg_read cpu.cfs_quota_us)" -eq -1 ]
  local rate
  rate=$(cpu_rate 3)
  echo "unlimited: $rate CPU-s/s" >&2
  awk -v r="$rate" 'BEGIN { exit !(r > 0.8) }'
  delete_and_check
}

@test "cgroups: zero cpu shares, quota, period and blkio weight mean unset, as in runc (Docker sends them)" {
  set_sh 'sleep 100'
  update_config '.linux.resources.cpu = {"shares": 0, "quota": 0, "period": 0} | .linux.resources.blockIO = {"weight": 0}'
  start_container
  # The kernel's defaults are left in place: nothing was written.
  [ "$(cg_read cpu.shares)" -eq 1024 ]
  [ "$(cg_read cpu.cfs_quota_us)" -eq -1 ]
  [ "$(cg_read cpu.cfs_period_us)" -eq 100000 ]
  delete_and_check
}

@test "cgroups: memory limit 0 means unset, as in runc; a limit below 4m is refused, leaving nothing" {
  # Written, 0 OOM-killed `agentrt run` itself as it entered the cgroup to start the init.
  set_sh 'sleep 100'
  update_config '.linux.resources.memory = {"limit": 0, "reservation": 0, "swap": 0}'
  start_container
  [ "$(cg_read memory.limit_in_bytes)" -gt 1099511627776 ]
  delete_and_check
  update_config '.process.args = ["/bin/echo", "hi"] | .linux.resources.memory = {"limit": 0}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = hi ]
  no_cgroups_left
  update_config '.linux.resources.memory = {"limit": 262144}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: linux.resources.memory.limit: 262144 bytes is below 4m, the least a container can be started in (0 or -1: no limit)" ]
  [ "$(state_dirs_left)" -eq 0 ]
  [ -z "$(cgroups_left)" ]
}

@test "cgroups: cpuset cpus 0 pins the container to CPU 0 and nproc says 1" {
  set_sh 'exec 2>&1; nproc; grep Cpus_allowed_list /proc/self/status; echo end; exec sleep 1000'
  update_config '.linux.resources.cpu.cpus = "0"'
  start_container
  wait_end
  [ "$(cg_read cpuset.cpus)" = 0 ]
  [ "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$INIT/status)" = 0 ]
  delete_and_check
  # What the workload itself saw (nproc is the supervisor's emulation of the same limits).
  [ "$(head -n1 "$ROOT/stdio.log")" = 1 ]
  grep -Eq '^Cpus_allowed_list:\s+0$' "$ROOT/stdio.log"
}

@test "cgroups: devices: /dev/null works, a block device made with CAP_MKNOD cannot be opened" {
  # A tmpfs without nodev, so that only the devices cgroup stands between mknod and open.
  update_config '.mounts += [{"destination": "/devtest", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid"]}]
    | .process.capabilities |= with_entries(.value += ["CAP_MKNOD"])'
  set_sh 'exec 2>&1; echo x > /dev/null && echo null-ok
    mknod /devtest/sda b 8 0 && echo mknod-ok
    head -c 1 /devtest/sda; echo end; exec sleep 1000'
  start_container
  local d
  d=$(cg devices.list)
  grep -qx 'c 1:3 rwm' "$d/devices.list"
  ! grep -Eq '^(a|b 8:0|b \*:\*) .*r' "$d/devices.list"
  wait_end
  delete_and_check
  cat "$ROOT/stdio.log" >&2
  grep -qx null-ok "$ROOT/stdio.log"
  grep -qx mknod-ok "$ROOT/stdio.log"
  grep -q 'sda: Operation not permitted' "$ROOT/stdio.log"
}

@test "cgroups: pause freezes the container, resume thaws it, delete --force removes a paused one" {
  set_sh 'i=0; while :; do i=$((i + 1)); echo $i > /run/count; sleep 0.1; done'
  start_container
  local count
  count=$(in_root /run/count)
  wait_file "$count"
  agentrt pause "$CID"
  [ "$status" -eq 0 ]
  [ "$(__agentrt state "$CID" | jq -r .status)" = paused ]
  [ "$(cg_read freezer.state)" = FROZEN ]
  local a b
  a=$(cat "$count")
  sleep 1
  b=$(cat "$count")
  [ "$a" = "$b" ]
  agentrt exec "$CID" /bin/true
  [ "$status" -ne 0 ]
  agentrt resume "$CID"
  [ "$status" -eq 0 ]
  [ "$(__agentrt state "$CID" | jq -r .status)" = running ]
  [ "$(cg_read freezer.state)" = THAWED ]
  sleep 1
  [ "$(cat "$count")" -gt "$b" ]
  agentrt pause "$CID"
  [ "$status" -eq 0 ]
  delete_and_check
  gone "$INIT"
}

# containerd's shim kills a paused task with a plain `kill ID 9`: on cgroup v1 a frozen task
# dies only once thawed, so runc thaws after SIGKILL; without it the task stays paused forever.
@test "cgroups: kill KILL of a paused container thaws it, so it dies (as runc)" {
  set_sh 'exec sleep 1000'
  start_container
  agentrt pause "$CID"
  [ "$status" -eq 0 ]
  agentrt kill "$CID" KILL
  [ "$status" -eq 0 ]
  wait_status stopped
  gone "$INIT"
  delete_and_check
}

@test "cgroups: ps lists the container's processes, as a table and as JSON" {
  set_sh 'sleep 1000 & exec sleep 2000'
  start_container
  sleep 0.3
  agentrt ps "$CID"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^UID\ +PID\ +PPID\ +C\ +STIME\ +TTY\ +TIME\ +CMD ]]
  [ "$(printf '%s\n' "${lines[@]:1}" | awk -v p="$INIT" '$2 == p' | grep -c 'sleep 2000')" -eq 1 ]
  printf '%s\n' "${lines[@]:1}" | grep -q 'sleep 1000'
  [ "${#lines[@]}" -eq 3 ]
  agentrt ps --format json "$CID"
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq -r 'type')" = array ]
  [ "$(echo "$output" | jq length)" -eq 2 ]
  echo "$output" | jq -e --argjson p "$INIT" 'index($p) != null'
  delete_and_check
}

@test "cgroups: kill --all without a pid namespace reaches a process that forked away" {
  update_config '.linux.namespaces |= map(select(.type != "pid"))'
  # The subshell exits at once: its sleep is orphaned, outside init's tree.
  set_sh '(sleep 1001 &); exec sleep 1000'
  # No supervisor: a container in the runtime's pid namespace may have none by default.
  start_container --platform none
  local orphan="" p i
  for ((i = 0; i < 50; i++)); do
    for p in $(cat "$(cg pids.current)/cgroup.procs"); do
      [ "$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)" = "sleep 1001 " ] && orphan=$p
    done
    [ -n "$orphan" ] && break
    sleep 0.1
  done
  [ -n "$orphan" ]
  [ "$(awk '{ print $4 }' /proc/$orphan/stat)" -ne "$INIT" ]
  agentrt kill --all "$CID" 9
  [ "$status" -eq 0 ]
  for ((i = 0; i < 50; i++)); do gone "$orphan" && break; sleep 0.1; done
  gone "$orphan"
  wait_status stopped
  delete_and_check
}

@test "cgroups: a relative cgroupsPath goes under agentrt's own cgroup in each hierarchy" {
  update_config --arg p "mytest/$CID" '.linux.cgroupsPath = $p | .process.args = ["/bin/sleep", "1000"]'
  start_container
  local d m own
  for d in "${CGROUPS[@]}"; do
    m=$(mount_of "$d")
    if [ "$(controller_of "$m")" = "" ]; then
      own=$(awk -F: '$1 == 0 { print ($3 == "/" ? "" : $3) }' /proc/self/cgroup)
    else
      own=$(own_cgroup "$(controller_of "$m")")
    fi
    echo "$d: expected $m$own/mytest/$CID" >&2
    [ "$d" = "$m$own/mytest/$CID" ]
    EXTRA_CGROUPS+=("$m$own/mytest")
    grep -qx "$INIT" "$d/cgroup.procs"
  done
  delete_and_check
}

@test "cgroups: an absolute cgroupsPath goes under each hierarchy's root" {
  update_config --arg p "/agentrt-test-$CID" '.linux.cgroupsPath = $p | .process.args = ["/bin/sleep", "1000"]'
  start_container
  local d
  for d in "${CGROUPS[@]}"; do
    [ "$d" = "$(mount_of "$d")/agentrt-test-$CID" ]
    grep -qx "$INIT" "$d/cgroup.procs"
  done
  delete_and_check
}

@test "cgroups: create fails on an existing cgroup directory and leaves nothing" {
  local taken=/sys/fs/cgroup/pids/agentrt-test-$CID
  [ -d /sys/fs/cgroup/pids ] || skip "no v1 pids hierarchy"
  mkdir "$taken"
  EXTRA_CGROUPS+=("$taken")
  update_config --arg p "/agentrt-test-$CID" '.linux.cgroupsPath = $p'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"it exists"* ]]
  # The other hierarchies' directories, made before the failure, are gone again.
  [ "$(ls -d /sys/fs/cgroup/*/agentrt-test-$CID | grep -vxF "$taken" | wc -l)" -eq 0 ]
  [ -d "$taken" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

# systemd does not run on this machine: the driver is tested in a VM that boots it
# (tests/systemd.bats).  Here it must fail at once, in one line, before anything is made.
@test "cgroups: create --systemd-cgroup without systemd fails in one line and leaves nothing" {
  [ ! -S /run/systemd/private ] && [ ! -S /run/dbus/system_bus_socket ] ||
    skip "systemd runs here (tests/systemd.bats tests the driver)"
  update_config --arg p "system.slice:agentrt-test:$CID" '.linux.cgroupsPath = $p'
  agentrt_detached --systemd-cgroup create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [ "$output" = "agentrt: --systemd-cgroup: systemd does not run here (no /run/systemd/private, no system bus): No such file or directory" ]
  [ "$(state_dirs_left)" -eq 0 ]
  [ "$(ls -d /sys/fs/cgroup/*/system.slice/agentrt-test-"$CID".scope 2>/dev/null | wc -l)" -eq 0 ]
  agentrt_detached --systemd-cgroup run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "cgroups: --systemd-cgroup refuses a cgroupsPath that is not slice:prefix:name, naming it" {
  update_config '.linux.cgroupsPath = "/agentrt-test/x"'
  agentrt_detached --systemd-cgroup create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: linux.cgroupsPath \`/agentrt-test/x\`: the systemd cgroup driver takes \`slice:prefix:name\`: Invalid argument" ]
  update_config '.linux.cgroupsPath = "a--b.slice:p:x"'
  agentrt_detached --systemd-cgroup create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"\`a--b.slice\` is not a slice name (an empty component)"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "cgroups: state.json names the cgroup driver, cgroupfs without --systemd-cgroup" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  start_container
  [ "$(jq -r .cgroupDriver "$ROOT/state/$CID/state.json")" = cgroupfs ]
  [ "$(jq -r .systemdUnit "$ROOT/state/$CID/state.json")" = null ]
  delete_and_check
}

# second_bundle NAME CGROUPSPATH: a copy of the bundle in $ROOT/NAME running sleep, in CGROUPSPATH.
second_bundle() {
  mkdir -p "$ROOT/$1"
  ln -s "$BUNDLE/rootfs" "$ROOT/$1/rootfs"
  jq --arg p "$2" '.linux.cgroupsPath = $p | .process.args = ["/bin/sleep", "1000"] | .root.path = "rootfs"' \
    "$BUNDLE/config.json" >"$ROOT/$1/config.json"
}

@test "cgroups: create refuses a cgroupsPath inside, at or above another container's cgroup of the root" {
  update_config --arg p "/agentrt-test-$CID/a" '.linux.cgroupsPath = $p | .process.args = ["/bin/sleep", "1000"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  mapfile -t CGROUPS < <(jq -r '.cgroupPaths[]' "$ROOT/state/$CID/state.json")
  # Left only should the refusal fail (the first's delete removes its own leaf).
  EXTRA_CGROUPS+=(/sys/fs/cgroup/*/agentrt-test-$CID/a/evil /sys/fs/cgroup/*/agentrt-test-$CID/a
    /sys/fs/cgroup/*/agentrt-test-$CID)
  # Inside: it would share the first's limits and keep its delete from removing its cgroup.
  second_bundle in "/agentrt-test-$CID/a/evil"
  agentrt_detached create -b "$ROOT/in" "$CID-in"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"is inside container \`$CID\`'s cgroup"* ]]
  [ "$(ls -d /sys/fs/cgroup/*/agentrt-test-$CID/a/evil 2>/dev/null | wc -l)" -eq 0 ]
  # Above: it would be frozen, killed and limited with the first.
  second_bundle above "/agentrt-test-$CID"
  agentrt_detached create -b "$ROOT/above" "$CID-above"
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"holds container \`$CID\`'s cgroup"* ]]
  [ "$(state_dirs_left)" -eq 1 ]
  # The first is untouched: it starts, and its delete removes all of it.
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  no_cgroups_left
}

@test "cgroups: of two creates side by side, one above the other's cgroupsPath, at most one succeeds" {
  local i ok
  second_bundle outer "/agentrt-test-$CID"
  second_bundle inner "/agentrt-test-$CID/in"
  EXTRA_CGROUPS+=(/sys/fs/cgroup/*/agentrt-test-$CID/in /sys/fs/cgroup/*/agentrt-test-$CID)
  for i in 1 2 3 4 5; do
    __agentrt create -b "$ROOT/outer" "$CID-o$i" </dev/null >>"$ROOT/stdio.log" 2>>"$ROOT/race.err" &
    __agentrt create -b "$ROOT/inner" "$CID-i$i" </dev/null >>"$ROOT/stdio.log" 2>>"$ROOT/race.err" &
    wait
    ok=$(__agentrt list -q | wc -l)
    echo "round $i: $ok created" >&2
    [ "$ok" -le 1 ]
    for c in $(__agentrt list -q); do __agentrt delete --force "$c"; done
    rmdir /sys/fs/cgroup/*/agentrt-test-$CID/in /sys/fs/cgroup/*/agentrt-test-$CID 2>/dev/null || true
  done
  cat "$ROOT/race.err" >&2
}

@test "cgroups: create refuses a cgroupsPath inside a cgroup that holds processes (another root's container)" {
  update_config --arg p "/agentrt-test-$CID" '.linux.cgroupsPath = $p | .process.args = ["/bin/sleep", "1000"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  mapfile -t CGROUPS < <(jq -r '.cgroupPaths[]' "$ROOT/state/$CID/state.json")
  second_bundle in "/agentrt-test-$CID/evil"
  EXTRA_CGROUPS+=(/sys/fs/cgroup/*/agentrt-test-$CID/evil)
  OTHER_ROOT="$ROOT/other-root"
  status=0
  "$AGENTRT" --root "$OTHER_ROOT" create -b "$ROOT/in" "$CID-in" </dev/null >>"$ROOT/stdio.log" 2>"$ROOT/other.err" || status=$?
  cat "$ROOT/other.err" >&2
  [ "$status" -ne 0 ]
  [ "$(wc -l <"$ROOT/other.err")" -eq 1 ]
  grep -q "holds processes" "$ROOT/other.err"
  [ "$(ls -d /sys/fs/cgroup/*/agentrt-test-$CID/evil 2>/dev/null | wc -l)" -eq 0 ]
  [ "$(state_dirs_left "$ROOT/other-root")" -eq 0 ]
  delete_and_check
}

@test "cgroups: a cgroupsPath with .. is refused" {
  update_config --arg p "mytest/../../agentrt-test-$CID" '.linux.cgroupsPath = $p'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *cgroupsPath* ]]
  [ "$(ls -d /sys/fs/cgroup/*/agentrt-test-$CID /sys/fs/cgroup/*/*/agentrt-test-$CID 2>/dev/null | wc -l)" -eq 0 ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "cgroups: update changes the live memory, pids and CPU limits" {
  update_config '.process.args = ["/bin/sleep", "1000"] | .linux.resources.memory.limit = 67108864
    | .linux.resources.pids.limit = 20 | .linux.resources.cpu.quota = 50000 | .linux.resources.cpu.period = 100000'
  start_container
  agentrt update --memory 134217728 "$CID"
  [ "$status" -eq 0 ]
  [ "$(cg_read memory.limit_in_bytes)" -eq 134217728 ]
  agentrt update --pids-limit 33 "$CID"
  [ "$status" -eq 0 ]
  [ "$(cg_read pids.max)" -eq 33 ]
  agentrt update --cpu-quota 25000 "$CID"
  [ "$status" -eq 0 ]
  [ "$(cg_read cpu.cfs_quota_us)" -eq 25000 ]
  # What one flag changes, the others keep.
  [ "$(cg_read memory.limit_in_bytes)" -eq 134217728 ]
  [ "$(cg_read pids.max)" -eq 33 ]
  echo '{"memory": {"limit": 100663296}, "pids": {"limit": 44}, "cpu": {"quota": 30000, "period": 100000}}' >"$ROOT/res.json"
  agentrt update --resources "$ROOT/res.json" "$CID"
  [ "$status" -eq 0 ]
  [ "$(cg_read memory.limit_in_bytes)" -eq 100663296 ]
  [ "$(cg_read pids.max)" -eq 44 ]
  [ "$(cg_read cpu.cfs_quota_us)" -eq 30000 ]
  run __agentrt update --resources - "$CID" <<<'{"pids": {"limit": 55}, "cpu": {"quota": 40000}}'
  [ "$status" -eq 0 ]
  [ "$(cg_read pids.max)" -eq 55 ]
  [ "$(cg_read cpu.cfs_quota_us)" -eq 40000 ]
  [ "$(cg_read memory.limit_in_bytes)" -eq 100663296 ]
  # Below what it uses, v1 refuses the limit: the error says so (containerd shows this line).
  agentrt update --memory 4096 "$CID"
  [ "$status" -eq 1 ]
  [[ $output == *"unable to set memory limit to 4096 (current usage: "[0-9]*", peak usage: "[0-9]*")"* ]]
  [ "$(cg_read memory.limit_in_bytes)" -eq 100663296 ]
  delete_and_check
}

@test "cgroups: update --resources: a FIFO fails at once, deep nesting fails cleanly, - reads stdin" {
  update_config '.process.args = ["/bin/sleep", "1000"] | .linux.resources.pids.limit = 20'
  start_container
  mkfifo "$ROOT/res.fifo"
  status=0
  timeout 20 "$AGENTRT" --root "$ROOT/state" update --resources "$ROOT/res.fifo" "$CID" \
    </dev/null >/dev/null 2>"$ROOT/err" || status=$?
  echo "status=$status: $(cat "$ROOT/err")" >&2
  [ "$status" -eq 1 ]
  [ "$(cat "$ROOT/err")" = "agentrt: \`$ROOT/res.fifo\` is not a regular file" ]
  echo '{"pids": {"limit": 30}}' >"$ROOT/res.json"
  nest_member "$ROOT/res.json" 400000
  agentrt update --resources "$ROOT/res.json" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $ROOT/res.json: x[0][0][0][0][0][0][0]...: nested deeper than 64 levels" ]
  run __agentrt update --resources - "$CID" < <(cat "$ROOT/res.json")
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: stdin: x[0][0][0][0][0][0][0]...: nested deeper than 64 levels" ]
  [ "$(cg_read pids.max)" -eq 20 ]
  # A pipe on stdin is still read: `-` is how containerd's shim sends the resources.
  run __agentrt update --resources - "$CID" < <(echo '{"pids": {"limit": 31}}')
  [ "$status" -eq 0 ]
  [ "$(cg_read pids.max)" -eq 31 ]
  delete_and_check
}

@test "cgroups: update raises and lowers memory and memory+swap together (containerd's CRI, docker update)" {
  [ -e /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes ] || skip "no swap accounting (memsw)"
  update_config '.process.args = ["/bin/sleep", "1000"] | .linux.resources.memory.limit = 67108864
    | .linux.resources.memory.swap = 67108864'
  start_container
  [ "$(cg_read memory.memsw.limit_in_bytes)" -eq 67108864 ]
  # As containerd-shim-runc-v2 does for UpdateContainerResources: swap = limit.  Raising both
  # needs memsw written first (the kernel refuses a limit above it), lowering needs it last.
  run __agentrt update --resources - "$CID" <<<'{"memory": {"limit": 100663296, "swap": 100663296}}'
  echo "$output" >&2
  [ "$status" -eq 0 ]
  [ "$(cg_read memory.limit_in_bytes)" -eq 100663296 ]
  [ "$(cg_read memory.memsw.limit_in_bytes)" -eq 100663296 ]
  run __agentrt update --resources - "$CID" <<<'{"memory": {"limit": 50331648, "swap": 50331648}}'
  echo "$output" >&2
  [ "$status" -eq 0 ]
  [ "$(cg_read memory.limit_in_bytes)" -eq 50331648 ]
  [ "$(cg_read memory.memsw.limit_in_bytes)" -eq 50331648 ]
  run __agentrt update --resources - "$CID" <<<'{"memory": {"limit": 83886080, "swap": -1}}'
  echo "$output" >&2
  [ "$status" -eq 0 ]
  [ "$(cg_read memory.limit_in_bytes)" -eq 83886080 ]
  delete_and_check
}

@test "cgroups: events --stats prints one stats object with cpu, memory and pids" {
  set_sh 'sleep 1000 & exec sleep 2000'
  start_container
  sleep 0.3
  agentrt events --stats "$CID"
  [ "$status" -eq 0 ]
  echo "$output" | jq -e --arg id "$CID" '.type == "stats" and .id == $id'
  echo "$output" | jq -e '(.data.cpu | type) == "object" and (.data.memory | type) == "object"'
  [ "$(echo "$output" | jq '.data.pids.current')" -eq 2 ]
  delete_and_check
}

@test "cgroups: events --interval streams stats, and an OOM kill shows as an oom event" {
  set_sh 'sleep 2; sh -c "x=0123456789abcdef; while :; do x=\"\$x\$x\"; done"; exec sleep 1000'
  update_config '.linux.resources.memory.limit = 67108864'
  start_container
  "$AGENTRT" --root "$ROOT/state" events --interval 1s "$CID" >"$ROOT/events" 2>"$ROOT/events.err" &
  local ev=$! i
  for ((i = 0; i < 150; i++)); do
    grep -q '"oom"' "$ROOT/events" 2>/dev/null && break
    sleep 0.1
  done
  sleep 1.2 # at least one more stats line after the OOM
  kill "$ev" 2>/dev/null || true
  wait "$ev" || true
  cat "$ROOT/events" "$ROOT/events.err" >&2
  [ "$(cg_key memory.oom_control oom_kill)" -ge 1 ]
  jq -se --arg id "$CID" 'map(select(.type == "oom")) | length >= 1 and all(.id == $id)' "$ROOT/events"
  [ "$(jq -r 'select(.type == "stats") | .id' "$ROOT/events" | sort -u)" = "$CID" ]
  [ "$(jq -s 'map(select(.type == "stats")) | length' "$ROOT/events")" -ge 2 ]
  delete_and_check
}

@test "cgroups: a process started by exec is in the container's cgroups and under its limits" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  start_container
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" /bin/sleep 1001
  [ "$status" -eq 0 ]
  local p d
  p=$(cat "$ROOT/exec.pid")
  for d in "${CGROUPS[@]}"; do
    echo "$d" >&2
    grep -qx "$p" "$d/cgroup.procs"
  done
  delete_and_check
  gone "$p"
}

# sv_pids: the container's supervisor processes, the watchdog and its worker.
sv_pids() {
  local w
  w=$(jq -r .supervisorPid "$ROOT/state/$CID/state.json")
  echo "$w $(cat "/proc/$w/task/$w/children")"
}

# proc_cgroup PID CONTROLLERS: PID's cgroup in the v1 hierarchy named CONTROLLERS.
proc_cgroup() { awk -F: -v c="$2" '$2 == c { print $3 }' "/proc/$1/cgroup"; }

# The worker is charged the CPU it spends for the container; the watchdog, which keeps the
# deadline, is in none of the container's cgroups (a CPU-starved container must not delay its
# own kill).
@test "cgroups: the supervisor's worker is in the container's cpu and cpuacct cgroups, not in its freezer, pids or memory; the watchdog in none" {
  set_sh 'exec sleep 100'
  start_container
  local p d mnt ctl joined=0 watchdog
  watchdog=$(jq -r .supervisorPid "$ROOT/state/$CID/state.json")
  for p in $(sv_pids); do
    for d in "${CGROUPS[@]}"; do
      mnt=$(mount_of "$d")
      ctl=$(controller_of "$mnt")
      [ -n "$ctl" ] || continue # the cgroup2 mount of a hybrid machine: not joined
      echo "supervisor $p, $ctl: $(proc_cgroup "$p" "$ctl") (container: ${d#"$mnt"})" >&2
      case ",$ctl," in
        *,cpu,* | *,cpuacct,*)
          if [ "$p" = "$watchdog" ]; then
            [ "$(proc_cgroup "$p" "$ctl")" != "${d#"$mnt"}" ]
          else
            [ "$(proc_cgroup "$p" "$ctl")" = "${d#"$mnt"}" ]
            joined=$((joined + 1))
          fi ;;
        *) [ "$(proc_cgroup "$p" "$ctl")" != "${d#"$mnt"}" ] ;;
      esac
    done
  done
  [ "$joined" -ge 2 ]
  # Pause still cannot stop it: a supervised call made after resume is answered.
  agentrt pause "$CID"
  [ "$status" -eq 0 ]
  for p in $(sv_pids); do [ "$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f1)" != D ]; done
  agentrt resume "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" uname -s
  [ "$status" -eq 0 ]
  [ "$output" = Linux ]
  delete_and_check
}

# A workload capped at a quarter of a CPU that makes supervised calls (uname) in a loop: the
# supervisor's CPU (about 0.15 CPU here, 0.4 when it ran outside the cap) counts in the
# container's cpuacct.usage, and the two together stay under the cap.
@test "cgroups: the supervisor's CPU is charged to the container, and workload plus supervisor stay under --cpus 0.25" {
  build_probe "${BATS_RUN_TMPDIR:-/tmp}/probe" "$BUNDLE/rootfs"
  update_config '.process.args = ["/bin/probe", "loop", "1000000000", "uname"]
    | .linux.resources.cpu.quota = 25000 | .linux.resources.cpu.period = 100000'
  start_container
  sleep 0.5
  local d u0 u1 s0 s1 t0 t1 tick
  d=$(cg cpuacct.usage)
  tick=$(getconf CLK_TCK)
  # sv_ticks: user+system ticks of every thread of the supervisor's processes.
  sv_ticks() {
    local p t n=0
    for p in $(sv_pids); do
      for t in /proc/"$p"/task/*; do
        n=$((n + $(sed 's/.*) //' "$t/stat" | awk '{ print $12 + $13 }')))
      done
    done
    echo "$n"
  }
  u0=$(cat "$d/cpuacct.usage") s0=$(sv_ticks) t0=$(date +%s%N)
  sleep 3
  u1=$(cat "$d/cpuacct.usage") s1=$(sv_ticks) t1=$(date +%s%N)
  awk -v du=$((u1 - u0)) -v ds=$((s1 - s0)) -v dt=$((t1 - t0)) -v tk="$tick" 'BEGIN {
    c = du / dt; s = ds / tk / (dt / 1e9)
    printf "container (cpuacct.usage): %.3f CPU, of which the supervisor: %.3f CPU\n", c, s > "/dev/stderr"
    exit !(s > 0.01 && s <= c + 0.02 && c <= 0.3) }'
  delete_and_check
}

# v1 charges socket buffers to a cgroup only once memory.kmem.tcp.limit_in_bytes is written,
# and then to a counter of their own: create writes the memory limit there (a workload queued
# ~240 MiB of loopback buffers under a 64 MiB limit without it).
@test "cgroups: socket buffers are capped at the memory limit: a loopback flood stays under 64 MiB" {
  cg_has_tcp() { [ -e "$(cg memory.limit_in_bytes)/memory.kmem.tcp.limit_in_bytes" ]; }
  build_probe "${BATS_RUN_TMPDIR:-/tmp}/probe" "$BUNDLE/rootfs"
  update_config '.process.args = ["/bin/probe", "flood", "64"] | .linux.resources.memory.limit = 67108864'
  start_container
  cg_has_tcp || skip "this kernel has no memory.kmem.tcp.limit_in_bytes"
  [ "$(cg_read memory.kmem.tcp.limit_in_bytes)" -eq 67108864 ]
  local i
  for ((i = 0; i < 100; i++)); do grep -q queued "$ROOT/stdio.log" && break; sleep 0.1; done
  cat "$ROOT/stdio.log" >&2
  echo "memory.kmem.tcp.max_usage_in_bytes: $(cg_read memory.kmem.tcp.max_usage_in_bytes)" >&2
  # The kernel lets a few charges that must not fail overshoot the limit a little.
  [ "$(cg_read memory.kmem.tcp.max_usage_in_bytes)" -le $((67108864 * 115 / 100)) ]
  [ "$(sed -n 's/.* \([0-9]*\) MiB queued/\1/p' "$ROOT/stdio.log")" -le 74 ]
  delete_and_check
}

@test "cgroups: linux.resources.memory.kernelTCP is written to memory.kmem.tcp.limit_in_bytes" {
  set_sh 'exec sleep 100'
  update_config '.linux.resources.memory = {"limit": 134217728, "kernelTCP": 33554432}'
  start_container
  [ -e "$(cg memory.limit_in_bytes)/memory.kmem.tcp.limit_in_bytes" ] || skip "no memory.kmem.tcp.limit_in_bytes"
  [ "$(cg_read memory.kmem.tcp.limit_in_bytes)" -eq 33554432 ]
  # update moves the socket limit with the memory limit when kernelTCP is not given.
  agentrt update --memory 96m "$CID"
  [ "$status" -eq 0 ]
  [ "$(cg_read memory.kmem.tcp.limit_in_bytes)" -eq $((96 << 20)) ]
  delete_and_check
}

# With BFQ (CFQ is gone since Linux 5.0) the weights are blkio.bfq.weight and, per device,
# blkio.bfq.weight_device, as runc writes them.  A loop device of the test's own gets BFQ.
@test "cgroups: blockIO.weightDevice goes to blkio.bfq.weight_device, leafWeight fails by name" {
  local img dev majmin sched
  [ -e /dev/loop-control ] || skip "no loop devices"
  img="$ROOT/disk.img"
  truncate -s 1M "$img"
  dev=$(losetup -f --show "$img") || skip "losetup failed"
  LOOPDEV=$dev
  sched="/sys/block/${dev#/dev/}/queue/scheduler"
  grep -qw bfq "$sched" && echo bfq >"$sched" || skip "no BFQ I/O scheduler"
  majmin=$(lsblk -ndo MAJ:MIN "$dev" | tr -d ' ')
  set_sh 'exec sleep 100'
  update_config --argjson ma "${majmin%:*}" --argjson mi "${majmin#*:}" \
    '.linux.resources.blockIO = {"weight": 300, "weightDevice": [{"major": $ma, "minor": $mi, "weight": 200}]}'
  start_container
  [ -e "$(cg blkio.throttle.read_bps_device)/blkio.bfq.weight" ] || skip "no blkio.bfq.weight"
  cat "$(cg blkio.bfq.weight_device)/blkio.bfq.weight_device" >&2
  grep -qx "default 300" "$(cg blkio.bfq.weight_device)/blkio.bfq.weight_device"
  grep -qx "$majmin 200" "$(cg blkio.bfq.weight_device)/blkio.bfq.weight_device"
  delete_and_check
  # BFQ has no leaf weights: a config that sets one fails create, naming it.
  update_config '.linux.resources.blockIO = {"leafWeight": 300}'
  agentrt_detached create -b "$BUNDLE" "$CID-leaf"
  [ "$status" -ne 0 ]
  [[ "$output" == *"linux.resources.blockIO.leafWeight"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}
