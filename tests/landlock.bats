#!/usr/bin/env bats
# Landlock, the second wall (src/lib/init/landlock.h): scoped signals and abstract unix sockets
# where a supervised container shares the runtime's pid or network namespace, and no TCP
# connect of the workload's own where the egress broker makes them all.  Every host process
# here is one the test starts itself and stops by pid.
load helpers

setup() {
  setup_probe
  HOST_PIDS=()
  SERVER_PIDS=()
  printf 'supervised_without_pidns = allow\n' >"$ROOT/agentrt.conf"
}
teardown() {
  local p
  servers_stop
  for p in "${HOST_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  teardown_root
}

requires_scopes() {
  local abi
  abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
  [ "$abi" -ge 6 ] || skip "Landlock ABI $abi: scopes need 6"
}

in_container() { update_config --arg c "$1" '.process.args = ["/bin/sh", "-c", $c]'; }
no_ns() { update_config --arg t "$1" '.linux.namespaces |= map(select(.type != $t))'; }
watchdog_pid() { jq -r .supervisorPid "$ROOT/state/$1/state.json"; }

# host_sleeper: a process of the host, as root like the container's, that the test owns.
host_sleeper() {
  sleep 1000 &
  HOST_PIDS+=($!)
  SLEEPER=$!
}

# run_created SCRIPT: create the container, then give SCRIPT the supervisor's pid as $1, start
# it and wait for its end; its output is in $output.
run_created() {
  in_container "$1"
  agentrt_detached --config "$ROOT/agentrt.conf" create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  SV=$(watchdog_pid "$CID")
  proc_alive "$SV"
  echo "$SV" >"$BUNDLE/rootfs/sv.pid"
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  wait_for "the container's end" stopped "$CID"
  output=$(cat "$ROOT/stdio.log")
  echo "$output" >&2
}
stopped() { [ "$(__agentrt state "$1" | jq -r .status)" = stopped ]; }

@test "landlock: a container in the runtime's pid namespace cannot signal its supervisor or a host process, and still signals its own" {
  requires_scopes
  host_sleeper
  no_ns pid
  run_created "sv=\$(cat /sv.pid)
    probe landlock kill \$sv 0; probe landlock kill \$sv 15; probe landlock kill $SLEEPER 15
    sleep 1001 & kill \$!; wait \$!; echo own=\$?; probe landlock kill \$\$ 0"
  [[ "$output" == *"kill: EPERM"*"kill: EPERM"*"kill: EPERM"* ]]
  [[ "$output" == *"own=143"* ]]
  [[ "$output" == *"kill: 0"* ]]
  proc_alive "$SLEEPER"
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
}

@test "landlock: agentrt exec in the runtime's pid namespace gets the same wall" {
  requires_scopes
  host_sleeper
  no_ns pid
  update_config '.process.args = ["/bin/sleep", "1002"]'
  agentrt_detached --config "$ROOT/agentrt.conf" run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt --config "$ROOT/agentrt.conf" exec "$CID" /bin/sh -c \
    "probe landlock kill $(watchdog_pid "$CID") 0; probe landlock kill $SLEEPER 9; sleep 1003 & kill \$!; wait \$!; echo own=\$?"
  [ "$status" -eq 0 ]
  [[ "$output" == *"kill: EPERM"*"kill: EPERM"* ]]
  [[ "$output" == *"own=143"* ]]
  proc_alive "$SLEEPER"
  # The supervisor and the runtime still signal the workload.
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "landlock: the supervisor still kills a scoped workload at its deadline" {
  requires_scopes
  no_ns pid
  update_config '.process.args = ["/bin/sleep", "1006"]'
  agentrt --config "$ROOT/agentrt.conf" run --timeout 1s -b "$BUNDLE" "$CID"
  [ "$status" -eq 137 ]
  [ -z "$(pgrep -f 'sleep 1006')" ]
}

@test "landlock: a container in its own pid namespace signals an exec'd process and back (no scope there)" {
  update_config '.process.args = ["/bin/sleep", "1004"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" /bin/sh -c 'probe landlock kill 1 0'
  [ "$status" -eq 0 ]
  [[ "$output" == *"kill: 0"* ]]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
}

@test "landlock: a container in the host's network namespace cannot connect to the host's abstract unix sockets, and still to its own" {
  requires_scopes
  local name="agentrt-landlock-$CID"
  python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1]); s.listen(8)
while True: s.accept()[0].close()' "$name" 3>&- &
  HOST_PIDS+=($!)
  wait_for "the host's socket" grep -q "@$name" /proc/net/unix
  # The host's socket is reachable without the wall (the control): from the host.
  "$PROBE" landlock abstract "$name" | grep -q "abstract: 0"
  no_ns network
  in_container "probe landlock abstract $name; probe landlock abstract-self $name-own"
  agentrt --config "$ROOT/agentrt.conf" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"abstract: EPERM"* ]]
  [[ "$output" == *"abstract-self: 0"* ]]
}

@test "landlock: under the agent profile with the egress broker no TCP connect reaches the kernel as the workload's own (TCP Fast Open), brokered and loopback connects work" {
  local abi
  abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
  [ "$abi" -ge 4 ] || skip "Landlock ABI $abi: TCP rights need 4"
  serve 127.0.0.1 host
  in_container "probe landlock tcp; echo ping | nc 127.0.0.1 $PORT"
  agentrt run --agent --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"listen: 0"*"connect: 0"*"fastopen: EACCES"* ]]
  [[ "$output" == *"host:ping"* ]]
  # An exec'd process gets the same rights.
  update_config '.process.args = ["/bin/sleep", "1005"]'
  agentrt_detached run -d --agent --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID-x"
  [ "$status" -eq 0 ]
  agentrt exec "$CID-x" probe landlock tcp
  [ "$status" -eq 0 ]
  [[ "$output" == *"connect: 0"*"fastopen: EACCES"* ]]
  agentrt delete --force "$CID-x"
  # Outside the agent profile an allowlist leaves the kernel's TCP rights alone.
  in_container "probe landlock tcp"
  agentrt run --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"connect: 0"*"fastopen: 1"* ]]
  # Without the broker the kernel connects for the workload, in its loopback-only namespace:
  # Landlock's rights are by port, so it has nothing to add there.
  in_container "probe landlock tcp"
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"connect: 0"*"fastopen: 1"* ]]
}

@test "landlock: --platform none is runc's behaviour, without the wall" {
  requires_scopes
  host_sleeper
  no_ns pid
  in_container "probe landlock kill $SLEEPER 0"
  agentrt run --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"kill: 0"* ]]
}

# The ptrace wall (landlock.h): a container holding CAP_SYS_PTRACE without a user namespace is
# in a domain that handles making block devices (a ruleset must handle something) and gives it
# back beneath the container's root: mknod is what CAP_MKNOD and the device cgroup make it
# (without the rule it would be EACCES).
# (Its ptrace side: tests/ptrace.bats.)
@test "landlock: the ptrace wall leaves mknod of a block device to CAP_MKNOD and the device cgroup" {
  update_config '.process.capabilities |= (reduce ("bounding", "effective", "permitted") as $s
      (.; .[$s] += ["CAP_SYS_PTRACE", "CAP_MKNOD"]))
    | .linux.resources.devices += [{"allow": true, "type": "b", "major": 7, "minor": 0, "access": "m"}]
    | .root.readonly = false'
  in_container "mknod /loop0 b 7 0 && echo made"
  agentrt --log-level debug run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"fs handled 0x800"* ]]
  [[ "$output" == *"made"* ]]
  [ -b "$BUNDLE/rootfs/loop0" ]
  rm -f "$BUNDLE/rootfs/loop0"
}
