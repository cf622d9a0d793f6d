#!/usr/bin/env bats
# Crash-safe state: a command killed part-way, a cgroup directory removed by hand, a state.json
# missing or corrupt.  delete (--force where the container may still run) must then remove all
# of the container, and list must show a damaged one.  The kills come from outside the binary:
# SIGKILL after a random delay, or strace's fault injection as the command enters a given
# system call (tests/lib/crash.sh).
#
# AGENTRT_CRASH_RUNS (default 40) and AGENTRT_CRASH_STRIDE (default 25) scale the last two
# tests up by hand: e.g. 500 runs, and stride 1 (every system call of every command).

load helpers

setup() {
  [ "$EUID" -eq 0 ] || skip "needs root"
  command -v strace >/dev/null || {
    echo "strace is missing: tools/install-deps.sh --tests installs it" >&2
    return 1
  }
  setup_busybox
  # The workload's processes are found by this number in their command line.
  MARK=$((100000000 + RANDOM * 32768 + RANDOM))
  update_config --arg m "$MARK" '.process.args = ["/bin/sleep", $m]'
}

teardown() { teardown_root; }

crash_env() { env AGENTRT="$AGENTRT" ROOT="$ROOT" BUNDLE="$BUNDLE" CID="$CID" MARK="$MARK" "$@"; }

# crash ARGS...: tests/lib/crash.sh as a child subreaper (see there); its summary goes to the
# TAP output.
crash() {
  run crash_env python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
os.execvp(sys.argv[1], sys.argv[1:])' bash "$BATS_TEST_DIRNAME/lib/crash.sh" "$@"
  echo "$output" >&2
  echo "# crash.sh $*: ${lines[${#lines[@]} - 1]}" >&3
}

# nothing_left ID: no state directory, cgroup directory, process or mount of ID.
nothing_left() {
  local left
  left=$(crash_env bash "$BATS_TEST_DIRNAME/lib/crash.sh" left "$1")
  [ -z "$left" ] || {
    echo "left of $1:" >&2
    echo "$left" >&2
    return 1
  }
}

# kill_entering NAME WHEN ARGS...: agentrt ARGS, killed (SIGKILL) as it enters its WHEN-th
# NAME system call; status is 137 if the kill came.
kill_entering() {
  local name=$1 when=$2
  shift 2
  status=0
  strace -qq -o /dev/null -e trace="$name" -e inject="$name:signal=KILL:when=$when" \
    "$AGENTRT" --root "$ROOT/state" "$@" </dev/null >>"$ROOT/stdio.log" 2>&1 &
  wait $! 2>/dev/null || status=$?
  echo "agentrt $* killed entering $name #$when: status $status" >&2
}

no_supervisors() { [ "$(supervisors_left)" -eq 0 ]; }

# cgroup_dir ID WHICH: the container's directory in the hierarchy named WHICH ("pids"…), or its
# first one.
cgroup_dir() {
  jq -r --arg w "/$2/" '(.cgroupPaths | map(select(contains($w)))) + .cgroupPaths | .[0]' \
    "$ROOT/state/$1/state.json"
}

@test "agentrt delete removes a stopped container one of whose cgroup directories was removed by hand" {
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  dir=$(cgroup_dir "$CID" pids)
  agentrt kill "$CID" KILL
  wait_for "the container to stop" bash -c "'$AGENTRT' --root '$ROOT/state' state '$CID' | grep -q stopped"
  rmdir "$dir"
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  nothing_left "$CID"
}

@test "agentrt delete --force kills a running container whose pids cgroup was removed by hand" {
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  dir=$(cgroup_dir "$CID" pids)
  # Its processes moved up out of that one hierarchy (possible on v1), and the directory gone.
  for p in $(cat "$dir/cgroup.procs"); do echo "$p" >"$(dirname "$dir")/cgroup.procs"; done
  rmdir "$dir"
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  nothing_left "$CID"
}

@test "agentrt list shows a container whose state.json is gone, state names the damage, delete --force removes all of it" {
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(supervisors_left)" -eq 2 ]
  pid=$(jq -r .pid "$ROOT/state/$CID/state.json")
  rm "$ROOT/state/$CID/state.json"
  agentrt list
  [ "$status" -eq 0 ]
  [[ "${lines[1]}" =~ ^$CID\ +$pid\ +unknown\  ]]
  agentrt list --format json
  [ "$(echo "$output" | jq -r '.[0] | "\(.id) \(.pid) \(.status) \(.annotations["io.agentrt.state.damage"])"')" = "$CID $pid unknown state.json is missing" ]
  # The created time stays a time, as engines parse it.
  date -d "$(echo "$output" | jq -r '.[0].created')" >/dev/null
  agentrt state "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"container \`$CID\` is damaged: state.json is missing (\`delete --force $CID\` removes what is left of it)"* ]]
  agentrt delete "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"it is damaged (state.json is missing) and its init (pid $pid) runs: use --force"* ]]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  nothing_left "$CID"
  agentrt list -q
  [ -z "$output" ]
}

@test "agentrt delete --force removes a container whose state.json is corrupt: init, supervisor, cgroups" {
  update_config '.annotations["io.agentrt.timeout"] = "1h"'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  printf '{"id": "%s", "pid": ' "$CID" >"$ROOT/state/$CID/state.json"
  agentrt list --format json
  [ "$(echo "$output" | jq -r '.[0].status')" = unknown ]
  [[ "$(echo "$output" | jq -r '.[0].annotations["io.agentrt.state.damage"]')" == "state.json: invalid JSON"* ]]
  agentrt state "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"container \`$CID\` is damaged: state.json: invalid JSON"* ]]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  nothing_left "$CID"
}

@test "agentrt delete --force of a container with neither state.json nor journal finds its cgroups from the id" {
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  rm "$ROOT/state/$CID/state.json" "$ROOT/state/$CID/journal"
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  # The supervisor, recorded nowhere now, goes with the init (fail closed).
  wait_for "the supervisor to go" no_supervisors
  nothing_left "$CID"
}

@test "agentrt create killed after it made any of its cgroups leaves nothing once delete --force runs" {
  crash sweep create 1 mkdir
  [ "$status" -eq 0 ]
}

@test "agentrt delete killed after it removed some of the cgroups is finished by a second delete" {
  agentrt_detached run -d -b "$BUNDLE" "$CID-ref"
  n=$(jq '.cgroupPaths | length' "$ROOT/state/$CID-ref/state.json")
  agentrt delete --force "$CID-ref"
  for ((k = 1; k <= n; k++)); do
    agentrt_detached run -d -b "$BUNDLE" "$CID-$k"
    [ "$status" -eq 0 ]
    # cgroup_destroy removes each directory, then tries the agentrt/ parent: 2 per directory.
    kill_entering rmdir $((2 * k - 1)) delete --force "$CID-$k"
    [ "$status" -eq 137 ]
    agentrt delete "$CID-$k"
    [ "$status" -eq 0 ]
    nothing_left "$CID-$k"
  done
}

@test "agentrt delete --force killed before it killed the init is finished by a delete without --force; exec is refused meanwhile" {
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  kill_entering pidfd_open 1 delete --force "$CID"
  [ "$status" -eq 137 ]
  agentrt exec "$CID" /bin/true
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot exec in container \`$CID\`: it is being deleted"* ]]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  nothing_left "$CID"
}

@test "agentrt start refuses a created container whose delete has begun" {
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  kill_entering pidfd_open 1 delete "$CID"
  [ "$status" -eq 137 ]
  agentrt start "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot start container \`$CID\`: it is being deleted"* ]]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  nothing_left "$CID"
}

@test "agentrt start killed after it released the init leaves a running container, as state says" {
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # Its write to the exec fifo released the init; the fifo's removal and "running" are not done.
  kill_entering unlinkat 1 start "$CID"
  [ "$status" -eq 137 ]
  agentrt state "$CID"
  [ "$(echo "$output" | jq -r .status)" = running ]
  agentrt start "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot start container \`$CID\`: it is running, not created"* ]]
}

@test "agentrt create, start, exec and delete killed at random points: delete --force leaves nothing" {
  crash random "${AGENTRT_CRASH_RUNS:-40}"
  [ "$status" -eq 0 ]
}

@test "agentrt create, start, exec and delete killed entering a system call: delete --force leaves nothing" {
  for cmd in create start exec delete; do
    crash sweep "$cmd" "${AGENTRT_CRASH_STRIDE:-25}"
    [ "$status" -eq 0 ]
  done
}
