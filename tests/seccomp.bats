#!/usr/bin/env bats
# linux.seccomp (the OCI profile), seen from inside the container with busybox: its actions,
# errno values and argument conditions, the profile errors create reports, and the seccomp agent
# of SCMP_ACT_NOTIFY (listenerPath), which needs --platform none because agentrt's supervisor
# holds the one listener a filter chain may have.
load helpers

setup() {
  setup_busybox
  LISTENER="$BATS_TEST_DIRNAME/lib/seccomp-listener.py"
}
teardown() {
  [ -z "${LISTENER_PID:-}" ] || kill "$LISTENER_PID" 2>/dev/null || true
  teardown_root
}

# profile JSON: linux.seccomp := JSON.
profile() { update_config --argjson p "$1" '.linux.seccomp = $p'; }

# run_sh SCRIPT: run the container with /bin/sh -c SCRIPT (and --rm).
run_sh() {
  update_config --arg s "$1" '.process.args = ["/bin/sh", "-c", $s]'
  agentrt run -b "$BUNDLE" "$CID"
}

# start_listener: the seccomp agent on $ROOT/agent.sock, writing $ROOT/agent.json; waits until
# it listens.
start_listener() {
  python3 "$LISTENER" "$ROOT/agent.sock" "$ROOT/agent.json" 20 &
  LISTENER_PID=$!
  local i
  for i in $(seq 100); do
    [ -S "$ROOT/agent.sock" ] && return 0
    sleep 0.05
  done
  echo "the seccomp agent did not start" >&2
  return 1
}

# notify_profile: SCMP_ACT_NOTIFY for acct, which no workload here calls, so the agent never has
# to answer; the rest is allowed.
notify_profile() {
  profile "$(jq -nc --arg l "$ROOT/agent.sock" '{defaultAction: "SCMP_ACT_ALLOW",
    listenerPath: $l, listenerMetadata: "agentrt-test",
    syscalls: [{names: ["acct"], action: "SCMP_ACT_NOTIFY"}]}')"
}

@test "seccomp: SCMP_ACT_ERRNO rules: mkdir gets EPERM by default, getppid errnoRet 38" {
  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"},
    {"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}'
  # The rootfs is read-only: without the rule mkdir would fail with EROFS instead.
  run_sh 'mkdir /tmp/d; echo "mkdir=$?"; echo "ppid=$PPID"; echo alive'
  [ "$status" -eq 0 ]
  [[ "$output" == *"can't create directory '/tmp/d': Operation not permitted"* ]]
  [[ "$output" == *"mkdir=1"* ]]
  # getppid cannot fail, so libc hands the raw -38 on: ash prints it unsigned.
  [[ "$output" == *"ppid=$((2 ** 32 - 38))"* ]]
  [[ "$output" == *alive* ]]
  leaves_nothing
}

@test "seccomp: an errno default action with an allow list: what is not listed gets defaultErrnoRet" {
  local names
  # Every syscall agentrt's table names (names libseccomp does not know are skipped) but mkdir.
  names=$("$AGENTRT" policy show --format json | jq -c '[.[].name | select(. != "mkdir" and . != "mkdirat")]')
  [ "$(jq length <<<"$names")" -gt 300 ]
  profile "$(jq -nc --argjson n "$names" '{defaultAction: "SCMP_ACT_ERRNO", defaultErrnoRet: 95,
    syscalls: [{names: $n, action: "SCMP_ACT_ALLOW"}]}')"
  run_sh 'mkdir /tmp/d; echo "mkdir=$?"; echo "uname=$(uname -s)"'
  [ "$status" -eq 0 ]
  [[ "$output" == *"can't create directory '/tmp/d': Operation not supported"* ]] # EOPNOTSUPP
  [[ "$output" == *"mkdir=1"* ]]
  [[ "$output" == *"uname=Linux"* ]]
  leaves_nothing
}

# Older allowlists (Docker's and containerd's profiles before close_range, hand-written ones)
# do not name close_range: the runtime marks inherited fds close-on-exec before the profile's
# filter is on, so such a profile runs, for the init and for an exec'd process alike.
@test "seccomp: an allowlist without close_range runs, and exec in it too" {
  local names
  names=$("$AGENTRT" policy show --format json | jq -c '[.[].name | select(. != "close_range")]')
  profile "$(jq -nc --argjson n "$names" '{defaultAction: "SCMP_ACT_ERRNO", defaultErrnoRet: 1,
    syscalls: [{names: $n, action: "SCMP_ACT_ALLOW"}]}')"
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" /bin/sh -c 'echo ran'
  [ "$status" -eq 0 ]
  [ "$output" = ran ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "seccomp: argument conditions: socket(AF_INET6) is refused, socket(AF_INET) works" {
  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["socket"], "action": "SCMP_ACT_ERRNO", "errnoRet": 97,
     "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_EQ"}]}]}'
  # Nothing listens on port 1: a socket that was made gets "Connection refused".
  run_sh 'nc 127.0.0.1 1 </dev/null; nc ::1 1 </dev/null; echo done'
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == *"(127.0.0.1): Connection refused"* ]]
  [[ "${lines[1]}" == *"socket: Address family not supported by protocol"* ]]
  [ "${lines[2]}" = done ]
  leaves_nothing
}

@test "seccomp: the profile applies to exec'd processes too" {
  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}'
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" /bin/mkdir /tmp/d
  [ "$status" -eq 1 ]
  [[ "$output" == *"Function not implemented"* ]]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "seccomp: unknown syscall names are skipped, the rest of the rule applies" {
  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["agentrt_no_such_syscall", "mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]}'
  run_sh 'mkdir /tmp/d'
  [ "$status" -eq 1 ]
  [[ "$output" == *"Operation not permitted"* ]]
  leaves_nothing
}

@test "seccomp: an invalid rule fails create naming its syscall, and leaves nothing" {
  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["mkdir"], "action": "SCMP_ACT_KILL", "errnoRet": 1}]}'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *'syscall "mkdir": SCMP_ACT_KILL takes no errno'* ]]
  leaves_nothing

  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 6, "value": 1, "op": "SCMP_CMP_EQ"}]}]}'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  # The parser refuses it first, naming where it is.
  [[ "$output" == *"linux.seccomp.syscalls[0].args[0].index: expected an integer in [0, 5]"* ]]
  leaves_nothing

  profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 70000}]}'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *'syscall "getppid": errno 70000 does not fit in 16 bits'* ]]
  leaves_nothing
}

@test "seccomp: SCMP_ACT_NOTIFY with the seccomp or ptrace platform fails create naming --platform none" {
  notify_profile
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"SCMP_ACT_NOTIFY"*"--platform none"* ]]
  leaves_nothing
  # On the ptrace platform the listener is free, but a notify outranks the policy's trace
  # stops: the rule could take a denied call away from the supervisor.
  agentrt_detached create --platform ptrace -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"SCMP_ACT_NOTIFY would take calls from agentrt's policy"*"--platform none"* ]]
  leaves_nothing
  # No listenerPath: refused whatever the platform.
  update_config '.linux.seccomp |= del(.listenerPath)'
  agentrt_detached create --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"SCMP_ACT_NOTIFY needs listenerPath"* ]]
  leaves_nothing
}

@test "seccomp: SCMP_ACT_NOTIFY with --platform none sends the notify fd and the state to listenerPath" {
  notify_profile
  update_config '.process.args = ["/bin/sh", "-c", "echo served"]'
  start_listener
  agentrt_detached create --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait "$LISTENER_PID" # it exits once it has the message
  LISTENER_PID=
  local pid msg
  pid=$(__agentrt state "$CID" | jq .pid)
  msg=$(jq -c .message "$ROOT/agent.json")
  echo "agent got: $(cat "$ROOT/agent.json")" >&2
  [ "$(jq .nfds "$ROOT/agent.json")" -eq 1 ]
  [ "$(jq .fd_is_seccomp "$ROOT/agent.json")" = true ]
  [ "$(jq -c .fds <<<"$msg")" = '["seccompFd"]' ]
  [ "$(jq .pid <<<"$msg")" -eq "$pid" ]
  [ "$(jq -r .metadata <<<"$msg")" = agentrt-test ]
  [ "$(jq -r .ociVersion <<<"$msg")" != null ]
  [ "$(jq -r .state.id <<<"$msg")" = "$CID" ]
  [ "$(jq .state.pid <<<"$msg")" -eq "$pid" ]
  [ "$(jq -r .state.status <<<"$msg")" = creating ]
  [ "$(jq -r .state.bundle <<<"$msg")" = "$BUNDLE" ]
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  grep -qx served "$ROOT/stdio.log"
  leaves_nothing
}

@test "seccomp: a listenerPath nobody listens on fails create, and leaves nothing" {
  notify_profile
  agentrt_detached create --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"linux.seccomp.listenerPath \`$ROOT/agent.sock\`"* ]]
  leaves_nothing
  # The init it had spawned is gone too: nothing runs the workload.
  ! pgrep -f -- "--root $ROOT/state" >/dev/null
}
