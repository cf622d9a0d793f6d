#!/usr/bin/env bats
# containerd 1.6 drives agentrt as it drives runc: `ctr run --runc-binary`, through the
# io.containerd.runc.v2 shim (options BinaryName and Root), against a private containerd
# (tests/lib/containerd.sh) and a busybox image built here (no registry).  Every scenario runs
# against agentrt and against runc, the control; after each, nothing of the container is left.
load helpers
source "$BATS_TEST_DIRNAME/lib/containerd.sh"

IMAGE=docker.io/library/busybox:agentrt-test

setup_file() {
  containerd_start
  rootfs_busybox "$BATS_FILE_TMPDIR/rootfs"
  oci_image_from_rootfs "$BATS_FILE_TMPDIR/rootfs" "$BATS_FILE_TMPDIR/busybox.tar" "$IMAGE"
  ctr_ image import "$BATS_FILE_TMPDIR/busybox.tar" >/dev/null
  export CTRD_DIR CTRD_SOCK CTRD_PID CTRD_NS
}

teardown_file() { containerd_stop; }

setup() {
  CID="ctr${BATS_TEST_NUMBER}-$$-$RANDOM"
  PIDS=()
}

# A failed test may leave its container: remove it, then check what is left either way.
teardown() {
  local id
  for id in $(ctr_ container ls -q 2>/dev/null | grep "^$CID"); do
    ctr_ task kill -a -s SIGKILL "$id" >/dev/null 2>&1 || true
    ctr_ task delete -f "$id" >/dev/null 2>&1 || true
    ctr_ container delete "$id" >/dev/null 2>&1 || true
  done
  [ -z "${RT:-}" ] || nothing_left
}

# use_runtime agentrt|runc: the binary the shim calls (BinaryName) and its --root (the shim
# passes ROOT/NAMESPACE), one per runtime.
use_runtime() {
  RT=$1
  case $RT in
    agentrt) RT_BIN=$AGENTRT ;;
    runc) RT_BIN=$(command -v runc) ;;
  esac
  RT_ROOT=$CTRD_DIR/runtime-$RT
}

# ctr run with this runtime; run_container and run_exec: bats `run` of ctr run and task exec.
ctr_run() { ctr_ run --fifo-dir "$CTRD_DIR/fifo" --runc-binary "$RT_BIN" --runc-root "$RT_ROOT" "$@"; }
run_container() {
  run_ctr run --fifo-dir "$CTRD_DIR/fifo" --runc-binary "$RT_BIN" --runc-root "$RT_ROOT" "$@"
}
run_exec() { run_ctr task exec --fifo-dir "$CTRD_DIR/fifo" "$@"; }

# bats `run` of ctr_ with no stdin; shown only when the test fails.
run_ctr() {
  run ctr_ "$@" </dev/null
  echo "ctr $* (status=$status)" >&2
  echo "$output" >&2
}

# run_detached ARGS…: a container started with `ctr run -d`; its init's pid is recorded.
run_detached() {
  ctr_run -d --null-io "$IMAGE" "$CID" "$@" </dev/null
  PIDS+=("$(task_pid)")
}

task_field() { ctr_ task ls 2>/dev/null | awk -v id="$CID" -v f="$1" '$1 == id { print $f }'; }
task_pid() { task_field 2; }
task_status() { task_field 3; }

# wait_status STATUS: poll `ctr task ls` until the task shows STATUS (5 s).
wait_status() {
  local i
  for ((i = 0; i < 50; i++)); do [ "$(task_status)" = "$1" ] && return 0; sleep 0.1; done
  echo "task $CID: status $(task_status), not $1" >&2
  return 1
}

# wait_file PATH: poll until PATH exists (5 s).
wait_file() {
  local i
  for ((i = 0; i < 50; i++)); do [ -e "$1" ] && return 0; sleep 0.1; done
  echo "$1 did not appear" >&2
  return 1
}

# task_delete_status: `ctr task delete` of the stopped task; echoes the exit status containerd
# reports (ctr 1.6 prints it as a warning when it is not 0 and exits 0 itself).
task_delete_status() {
  local out
  out=$(ctr_ task delete "$CID" 2>&1) || { echo "ctr task delete: $out" >&2; return 1; }
  if [[ $out =~ "exit code "([0-9]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo 0; fi
}

# proc_gone PID: not alive.  A function, because bats does not fail a test on `! cmd`.
proc_gone() { ! proc_alive "$1"; }

# shim_pid: the shim of this container (containerd-shim-runc-v2 -id CID -address our socket).
shim_pid() {
  local p
  for p in $(containerd_shim_pids); do
    tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF -- "-id $CID " && echo "$p"
  done
}

# nothing_left: no runtime state, bundle, snapshot, mount, cgroup or process of this test's
# containers (their ids start with CID).
nothing_left() {
  local bad=() p
  p=$(compgen -G "$RT_ROOT/$CTRD_NS/$CID*") && bad+=("runtime state $p")
  p=$(compgen -G "$CTRD_DIR/state/io.containerd.runtime.v2.task/$CTRD_NS/$CID*") && bad+=("bundle $p")
  ctr_ container ls -q | grep -q "^$CID" && bad+=("container record")
  ctr_ snapshot ls | awk '{ print $1 }' | grep -q "^$CID" && bad+=("snapshot")
  p=$(containerd_mounts_under "$CTRD_DIR")
  [ -z "$p" ] || bad+=("mounts: $(tr '\n' ' ' <<<"$p")")
  [ -z "$(cgroups_left)" ] || bad+=("cgroups: $(cgroups_left)")
  for p in $(containerd_shim_pids); do
    tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF -- "-id $CID" && bad+=("shim $p")
  done
  for p in "${PIDS[@]}"; do proc_alive "$p" && bad+=("process $p"); done
  for p in $(grep -lsF -- "$RT_ROOT/" /proc/[0-9]*/cmdline); do
    p=${p#/proc/} p=${p%/cmdline}
    proc_alive "$p" && bad+=("runtime process $p: $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")")
  done
  [ ${#bad[@]} -eq 0 ] && return 0
  printf 'left behind: %s\n' "${bad[@]}" >&2
  return 1
}

scenario_run_rm() {
  use_runtime "$1"
  run_container --rm "$IMAGE" "$CID" sh -c 'echo "out of $1"; echo to-stderr >&2; exit 3' sh "$CID"
  [ "$status" -eq 3 ]
  [[ $output == *"out of $CID"* ]]
  [[ $output == *to-stderr* ]]
  run_container --rm "$IMAGE" "$CID" true
  [ "$status" -eq 0 ]
  nothing_left
}

# run -d and exec: the init is the shim's child (the shim is the subreaper that reports exit
# statuses), the runtime keeps its state in ROOT/NAMESPACE/ID, exec gives output and status,
# ps lists init and exec'd processes.
scenario_run_d_exec() {
  use_runtime "$1"
  run_detached sleep 1000
  [ "$(task_status)" = RUNNING ]
  [ -n "$(shim_pid)" ]
  [ "$(ps -o ppid= -p "${PIDS[0]}" | tr -d ' ')" = "$(shim_pid)" ]
  [ -d "$RT_ROOT/$CTRD_NS/$CID" ]
  # The root filesystem is the overlayfs snapshot, mounted by the shim in containerd's namespace.
  local rootfs=$CTRD_DIR/state/io.containerd.runtime.v2.task/$CTRD_NS/$CID/rootfs
  [ "$(awk -v m="$rootfs" '$5 == m { for (i = 7; $i != "-"; i++); print $(i + 1) }' \
    "/proc/$CTRD_PID/mountinfo")" = overlay ]
  run_exec --exec-id e1 "$CID" sh -c 'echo "exec in $1"; exit 5' sh "$CID"
  [ "$status" -eq 5 ]
  [ "$output" = "exec in $CID" ]
  # An exec whose child outlives it: its own status still comes back at once.
  run_exec --exec-id e2 "$CID" sh -c 'sleep 1000 >/dev/null 2>&1 & exit 4'
  [ "$status" -eq 4 ]
  # An exec that cannot start: the runtime's error, and the task goes on.
  run_exec --exec-id bad "$CID" /no/such/binary
  [ "$status" -ne 0 ]
  [[ $output == *"OCI runtime exec failed"*"/no/such/binary"* ]]
  [ "$(task_status)" = RUNNING ]
  run_exec --exec-id e3 -d "$CID" sleep 2000
  [ "$status" -eq 0 ]
  run_ctr task ps "$CID"
  [ "$status" -eq 0 ]
  local listed
  read -ra listed <<<"$(awk 'NR > 1 { print $1 }' <<<"$output" | tr '\n' ' ')"
  PIDS+=("${listed[@]}")
  # init, the orphaned sleep of e2 and the sleep of e3
  [ "${#listed[@]}" -eq 3 ]
  [[ " ${listed[*]} " == *" ${PIDS[0]} "* ]]
  grep -q 'ExecID:e3' <<<"$output"
  run_ctr task kill -s SIGKILL "$CID"
  [ "$status" -eq 0 ]
  wait_status STOPPED
  [ "$(task_delete_status)" -eq 137 ]
  run_ctr container delete "$CID"
  [ "$status" -eq 0 ]
  nothing_left
}

# kill: SIGTERM (the default) reaches the init's handler, SIGKILL kills it; exit statuses as
# ctr run reports them.
scenario_kill() {
  use_runtime "$1"
  local out=$BATS_TEST_TMPDIR/run.out rc=0 run_pid i
  ctr_run --rm "$IMAGE" "$CID" \
    sh -c 'trap "echo got-term; exit 7" TERM; touch /tmp/ready; while :; do sleep 0.1; done' \
    </dev/null >"$out" 2>&1 3>&- &
  run_pid=$!
  for ((i = 0; i < 50; i++)); do [ "$(task_status)" = RUNNING ] && break; sleep 0.1; done
  PIDS+=("$(task_pid)")
  wait_file "/proc/${PIDS[0]}/root/tmp/ready"
  run_ctr task kill "$CID"
  [ "$status" -eq 0 ]
  wait "$run_pid" || rc=$?
  cat "$out" >&2
  [ "$rc" -eq 7 ]
  grep -qx got-term "$out"

  ctr_run --rm "$IMAGE" "$CID" sleep 1000 </dev/null >"$out" 2>&1 3>&- &
  run_pid=$! rc=0
  wait_status RUNNING
  PIDS+=("$(task_pid)")
  run_ctr task kill -s SIGKILL "$CID"
  [ "$status" -eq 0 ]
  wait "$run_pid" || rc=$?
  [ "$rc" -eq 137 ]
  nothing_left
}

# kill --all: every process of the container gets the signal.  The init (sleep, no handler)
# ignores SIGTERM as a pid namespace's init does; an exec'd sleep dies of it, so only --all can
# have reached it.
scenario_kill_all() {
  use_runtime "$1"
  run_detached sleep 1000
  run_exec --exec-id e1 -d "$CID" sleep 2000
  [ "$status" -eq 0 ]
  local e i
  e=$(ctr_ task ps "$CID" | awk -v init="${PIDS[0]}" 'NR > 1 && $1 != init { print $1 }')
  [ -n "$e" ]
  PIDS+=("$e")
  run_ctr task kill -s SIGTERM "$CID"
  [ "$status" -eq 0 ]
  proc_alive "$e"
  run_ctr task kill --all -s SIGTERM "$CID"
  [ "$status" -eq 0 ]
  for ((i = 0; i < 50; i++)); do proc_alive "$e" || break; sleep 0.1; done
  proc_gone "$e"
  [ "$(task_status)" = RUNNING ]
  proc_alive "${PIDS[0]}"
  run_ctr task kill --all -s SIGKILL "$CID"
  [ "$status" -eq 0 ]
  wait_status STOPPED
  [ "$(task_delete_status)" -eq 137 ]
  run_ctr container delete "$CID"
  nothing_left
}

# pause/resume: the status follows, and a paused task really stops running (a counter it
# writes stays still, then moves again after resume); a paused task can be killed.
scenario_pause_resume() {
  use_runtime "$1"
  run_detached sh -c 'i=0
    while :; do i=$((i + 1)); echo $i >/tmp/n.new; mv /tmp/n.new /tmp/n; usleep 20000; done'
  local n="/proc/${PIDS[0]}/root/tmp/n" v1 v2 i
  wait_file "$n"
  run_ctr task pause "$CID"
  [ "$status" -eq 0 ]
  [ "$(task_status)" = PAUSED ]
  v1=$(cat "$n")
  sleep 0.5 # the counter moves every 20 ms when it runs
  v2=$(cat "$n")
  [ "$v1" = "$v2" ]
  run_ctr task resume "$CID"
  [ "$status" -eq 0 ]
  [ "$(task_status)" = RUNNING ]
  for ((i = 0; i < 50; i++)); do [ "$(cat "$n")" != "$v1" ] && break; sleep 0.1; done
  [ "$(cat "$n")" -gt "$v1" ]
  # A paused task killed with SIGKILL dies (on cgroup v1 the runtime must thaw it).
  run_ctr task pause "$CID"
  [ "$status" -eq 0 ]
  run_ctr task kill -s SIGKILL "$CID"
  [ "$status" -eq 0 ]
  wait_status STOPPED
  [ "$(task_delete_status)" -eq 137 ]
  run_ctr container delete "$CID"
  nothing_left
}

# metrics: the shim reads the container's cgroups (found through the init's pid): the memory
# limit given to ctr run, the memory in use, the pids.
scenario_metrics() {
  use_runtime "$1"
  ctr_run -d --null-io --memory-limit 67108864 "$IMAGE" "$CID" sh -c 'sleep 1000 & wait' </dev/null
  PIDS+=("$(task_pid)")
  local i
  for ((i = 0; i < 50; i++)); do
    [ "$(ctr_ task ps "$CID" | awk 'NR > 1' | wc -l)" -eq 2 ] && break
    sleep 0.1
  done
  run_ctr task metrics --format json "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq .memory.usage.limit <<<"$output")" -eq 67108864 ]
  [ "$(jq .memory.usage.usage <<<"$output")" -gt 0 ]
  [ "$(jq .pids.current <<<"$output")" -eq 2 ]
  run_ctr task metrics "$CID"
  [ "$status" -eq 0 ]
  grep -Eq '^pids.current +2 ' <<<"$output"
  run_ctr task kill -s SIGKILL "$CID"
  wait_status STOPPED
  run_ctr task delete "$CID"
  run_ctr container delete "$CID"
  nothing_left
}

# update: containerd's Tasks/Update (ctr 1.6 has no command for it; CRI's
# UpdateContainerResources comes the same way) makes the shim run `update --resources - ID` with
# the JSON on stdin.  Debian's python3, which has python3-grpcio (a pyenv one may be first in
# PATH).
scenario_update() {
  use_runtime "$1"
  ctr_run -d --null-io --memory-limit 67108864 "$IMAGE" "$CID" sleep 1000 </dev/null
  PIDS+=("$(task_pid)")
  run /usr/bin/python3 "$BATS_TEST_DIRNAME/lib/ctrd_update.py" "$CTRD_SOCK" "$CTRD_NS" "$CID" \
    '{"memory": {"limit": 134217728}, "pids": {"limit": 50}, "cpu": {"shares": 512}}'
  echo "$output" >&2
  [ "$status" -eq 0 ]
  run_ctr task metrics --format json "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq .memory.usage.limit <<<"$output")" -eq 134217728 ]
  [ "$(jq .pids.limit <<<"$output")" -eq 50 ]
  local cg
  cg=$(awk -F: '$2 == "cpu,cpuacct" || $2 == "cpu" { print $3; exit }' "/proc/${PIDS[0]}/cgroup")
  [ "$(cat "/sys/fs/cgroup/cpu$cg/cpu.shares")" -eq 512 ]
  # A bad value: the runtime's error comes back, the task goes on.
  run /usr/bin/python3 "$BATS_TEST_DIRNAME/lib/ctrd_update.py" "$CTRD_SOCK" "$CTRD_NS" "$CID" \
    '{"memory": {"limit": 4096}}'
  echo "$output" >&2
  [ "$status" -ne 0 ]
  [[ $output == *"unable to set memory limit to 4096 (current usage: "* ]]
  [ "$(task_status)" = RUNNING ]
  run_ctr task kill -s SIGKILL "$CID"
  wait_status STOPPED
  run_ctr task delete "$CID"
  run_ctr container delete "$CID"
  nothing_left
}

# OOM: a task over its memory limit is killed, and the shim, watching the cgroup it found through
# the init's pid, reports /tasks/oom.  `ctr events` is known to be subscribed once it shows an
# event of our own (an image tag).
scenario_oom() {
  use_runtime "$1"
  local ev=$BATS_TEST_TMPDIR/events ev_pid i
  ctr_ events >"$ev" 2>&1 </dev/null 3>&- &
  ev_pid=$!
  ctr_ image tag "$IMAGE" "$IMAGE-$CID" >/dev/null
  for ((i = 0; i < 50; i++)); do grep -aq "/images/create.*$IMAGE-$CID" "$ev" && break; sleep 0.1; done
  run_container --rm --memory-limit 33554432 "$IMAGE" "$CID" \
    sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo survived'
  [ "$status" -eq 137 ]
  [[ $output != *survived* ]]
  for ((i = 0; i < 50; i++)); do grep -aq "/tasks/oom.*\"$CID\"" "$ev" && break; sleep 0.1; done
  kill "$ev_pid"
  wait "$ev_pid" || true
  ctr_ image rm "$IMAGE-$CID" >/dev/null
  grep -a "$CID" "$ev" | cut -c1-200 >&2
  grep -aq "/tasks/oom.*\"$CID\"" "$ev"
  nothing_left
}

# Several containers at once (the shims call the runtime concurrently): each its own status.
scenario_parallel() {
  use_runtime "$1"
  local i pids=() rc
  for i in 1 2 3 4; do
    ctr_run --rm "$IMAGE" "$CID-$i" sh -c "exit $((i + 10))" </dev/null >/dev/null 2>&1 3>&- &
    pids+=($!)
  done
  for i in 1 2 3 4; do
    rc=0
    wait "${pids[i - 1]}" || rc=$?
    [ "$rc" -eq $((i + 10)) ]
  done
  nothing_left
}

# agentrt's sandbox controls come as OCI annotations (ctr run --annotation, CRI pod annotations):
# the supervisor's uname and the wall-clock timeout reach agentrt through containerd.  runc, the
# control, ignores them: the host's release, and the workload runs to its end.
scenario_annotations() {
  use_runtime "$1"
  run_container --rm \
    --annotation io.agentrt.uname.release=6.1.0-ctrtest --annotation io.agentrt.timeout=1s \
    "$IMAGE" "$CID" sh -c 'uname -r; sleep 2; echo ran-to-the-end'
  if [ "$RT" = agentrt ]; then
    [ "$status" -eq 137 ]
    [ "${lines[0]}" = 6.1.0-ctrtest ]
    [[ $output != *ran-to-the-end* ]]
  else
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(uname -r)" ]
    [[ $output == *ran-to-the-end* ]]
  fi
  nothing_left
}

# The agent profile asked for by annotation (io.agentrt.profile=agent), from the bundle the shim
# makes 0700 root's, whose rootfs is an overlay mount of containerd's snapshotter: the
# container's root is host uid 100000 and owns the image (its layers idmapped), writes /etc,
# and the snapshots are not written.  runc ignores the annotation: host root, in its snapshot.
scenario_agent_profile() {
  use_runtime "$1"
  local bundle=$CTRD_DIR/state/io.containerd.runtime.v2.task/$CTRD_NS/$CID
  ctr_run -d --null-io --annotation io.agentrt.profile=agent "$IMAGE" "$CID" sleep 1000 </dev/null
  PIDS+=("$(task_pid)")
  wait_status RUNNING
  [ "$(stat -c %a:%u "$bundle")" = 700:0 ]
  [ "$(findmnt -n -o FSTYPE -N "$CTRD_PID" "$bundle/rootfs")" = overlay ]
  run_exec --exec-id a1 "$CID" sh -c 'id -u; cat /proc/self/uid_map; echo x >/etc/x && cat /etc/x'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ] && [ "${lines[2]}" = x ]
  if [ "$RT" = agentrt ]; then
    [[ ${lines[1]} =~ ^\ +0\ +100000\ +65536$ ]]
    [ -z "$(find "$CTRD_DIR/root/io.containerd.snapshotter.v1.overlayfs/snapshots" -path '*/etc/x')" ]
  else
    [[ ${lines[1]} =~ ^\ +0\ +0\ +4294967295$ ]]
  fi
  run_ctr task kill -s SIGKILL "$CID"
  wait_status STOPPED
  task_delete_status >/dev/null
  run_ctr container delete "$CID"
  nothing_left
}

# delete: a running task is not deleted without --force (and keeps running); --force kills and
# deletes it; then the container record and its snapshot go.
scenario_delete() {
  use_runtime "$1"
  run_detached sleep 1000
  run_ctr task delete "$CID"
  [ "$status" -ne 0 ]
  [ "$(task_status)" = RUNNING ]
  proc_alive "${PIDS[0]}"
  [ -d "$RT_ROOT/$CTRD_NS/$CID" ]
  run_ctr task delete --force "$CID"
  [ "$status" -eq 0 ]
  [ -z "$(task_status)" ]
  proc_gone "${PIDS[0]}"
  [ ! -e "$RT_ROOT/$CTRD_NS/$CID" ]
  run_ctr container delete "$CID"
  [ "$status" -eq 0 ]
  nothing_left
}

# A terminal: ctr -t needs one on its own stdin, so it runs under script(1).  The shim hands the
# runtime a --console-socket for the init (create) and for the exec'd process (exec).
scenario_tty() {
  use_runtime "$1"
  local ctr_cmd="ctr --address $CTRD_SOCK --namespace $CTRD_NS"
  run script -qec "$ctr_cmd run -t --rm --fifo-dir $CTRD_DIR/fifo --runc-binary $RT_BIN \
    --runc-root $RT_ROOT $IMAGE $CID sh -c 'tty; exit 2'" /dev/null </dev/null
  echo "$output" >&2
  [ "$status" -eq 2 ]
  [[ $output == *"/dev/pts/0"* ]]
  run_detached sleep 1000
  run script -qec "$ctr_cmd task exec -t --fifo-dir $CTRD_DIR/fifo --exec-id t1 $CID \
    sh -c 'tty; exit 6'" /dev/null </dev/null
  echo "$output" >&2
  [ "$status" -eq 6 ]
  [[ $output == *"/dev/pts/"* ]]
  run_ctr task kill -s SIGKILL "$CID"
  wait_status STOPPED
  [ "$(task_delete_status)" -eq 137 ]
  run_ctr container delete "$CID"
  nothing_left
}

# A workload that cannot start: ctr fails with the runtime's error (the shim reads it from the
# last line of the runtime's --log), and nothing is left.
scenario_bad_exec() {
  use_runtime "$1"
  run_container --rm "$IMAGE" "$CID" /no/such/binary
  [ "$status" -ne 0 ]
  [[ $output == *"OCI runtime"*"/no/such/binary"* ]]
  ctr_ container delete "$CID" >/dev/null 2>&1 || true
  nothing_left
}

@test "containerd: ctr run --rm (agentrt): output and exit status" { scenario_run_rm agentrt; }
@test "containerd: ctr run --rm (runc): output and exit status" { scenario_run_rm runc; }
@test "containerd: ctr run of a missing binary (agentrt): the runtime's error" { scenario_bad_exec agentrt; }
@test "containerd: ctr run of a missing binary (runc): the runtime's error" { scenario_bad_exec runc; }
@test "containerd: ctr run -d, task exec, task ps (agentrt)" { scenario_run_d_exec agentrt; }
@test "containerd: ctr run -d, task exec, task ps (runc)" { scenario_run_d_exec runc; }
@test "containerd: ctr run -t, task exec -t (agentrt)" { scenario_tty agentrt; }
@test "containerd: ctr run -t, task exec -t (runc)" { scenario_tty runc; }
@test "containerd: ctr task kill SIGTERM, SIGKILL (agentrt)" { scenario_kill agentrt; }
@test "containerd: ctr task kill SIGTERM, SIGKILL (runc)" { scenario_kill runc; }
@test "containerd: ctr task kill --all (agentrt)" { scenario_kill_all agentrt; }
@test "containerd: ctr task kill --all (runc)" { scenario_kill_all runc; }
@test "containerd: ctr task pause, resume (agentrt)" { scenario_pause_resume agentrt; }
@test "containerd: ctr task pause, resume (runc)" { scenario_pause_resume runc; }
@test "containerd: ctr task metrics (agentrt)" { scenario_metrics agentrt; }
@test "containerd: ctr task metrics (runc)" { scenario_metrics runc; }
@test "containerd: Tasks/Update: update --resources - (agentrt)" { scenario_update agentrt; }
@test "containerd: Tasks/Update: update --resources - (runc)" { scenario_update runc; }
@test "containerd: a task over its memory limit: exit 137 and /tasks/oom (agentrt)" { scenario_oom agentrt; }
@test "containerd: a task over its memory limit: exit 137 and /tasks/oom (runc)" { scenario_oom runc; }
@test "containerd: four ctr run at once, each its own exit status (agentrt)" { scenario_parallel agentrt; }
@test "containerd: four ctr run at once, each its own exit status (runc)" { scenario_parallel runc; }
@test "containerd: io.agentrt.* annotations reach agentrt (agentrt)" { scenario_annotations agentrt; }
@test "containerd: io.agentrt.* annotations reach agentrt (runc ignores them)" { scenario_annotations runc; }
@test "containerd: ctr task delete, container delete (agentrt)" { scenario_delete agentrt; }
@test "containerd: ctr task delete, container delete (runc)" { scenario_delete runc; }
@test "containerd: annotation io.agentrt.profile=agent: the profile from containerd's 0700 bundle, the root owns the image (agentrt)" { scenario_agent_profile agentrt; }
@test "containerd: annotation io.agentrt.profile=agent (runc ignores it)" { scenario_agent_profile runc; }
