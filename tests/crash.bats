#!/usr/bin/env bats
# Crash-safe state: a command killed part-way, a cgroup directory removed by hand, a state.json
# missing or corrupt.  delete (--force where the container may still run) must then remove all
# of the container.

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
