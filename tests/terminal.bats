#!/usr/bin/env bats
# process.terminal: a pty made in the container, sent to --console-socket or proxied by run.
load helpers

setup() {
  setup_busybox
  update_config '.process.terminal = true'
  command -v script >/dev/null || skip "script (bsdutils) is not installed"
}
teardown() {
  [ -n "${RECV_PID:-}" ] && kill "$RECV_PID" 2>/dev/null
  teardown_root
}

# start_recvtty [INPUT]: a console socket at $ROOT/tty.sock whose pty output goes to $ROOT/tty.out.
start_recvtty() {
  python3 "$BATS_TEST_DIRNAME/lib/recvtty.py" "$ROOT/tty.sock" "$ROOT/tty.out" "${1:-}" >"$ROOT/recv.log" &
  RECV_PID=$!
  for _ in $(seq 50); do [ -S "$ROOT/tty.sock" ] && return 0; sleep 0.1; done
  return 1
}
wait_recvtty() { for _ in $(seq 50); do kill -0 "$RECV_PID" 2>/dev/null || return 0; sleep 0.1; done; return 1; }

@test "agentrt run [terminal] in the foreground gives the workload a pty as its controlling terminal" {
  update_config '.process.args = ["/bin/sh", "-c", "tty; echo pgid=$(cut -d\" \" -f8 /proc/self/stat)"]'
  run script -qec "$AGENTRT --root $ROOT/state run -b $BUNDLE $CID" /dev/null
  [ "$status" -eq 0 ]
  [[ "$output" == *"/dev/pts/0"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt run [terminal] exits with the workload's status" {
  update_config '.process.args = ["/bin/sh", "-c", "exit 5"]'
  run script -qec "$AGENTRT --root $ROOT/state run -b $BUNDLE $CID" /dev/null
  [[ "$output" != *agentrt:* ]]
  # script(1) returns the child's status with -e
  [ "$status" -eq 5 ]
}

@test "agentrt create --console-socket sends the pty master; input and output go through it" {
  update_config '.process.args = ["/bin/sh", "-c", "read x; echo got=$x; tty; ls -l /dev/console"]'
  start_recvtty $'hello\n'
  agentrt_detached create --console-socket "$ROOT/tty.sock" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  wait_recvtty
  grep -q 'got=hello' "$ROOT/tty.out"
  grep -q '/dev/pts/0' "$ROOT/tty.out"
  grep -q ' 136, *0 ' "$ROOT/tty.out" # /dev/console is the pty (major 136)
  [ "$(cat "$ROOT/tty.out.name")" = "/dev/ptmx" ]
}

@test "agentrt create [terminal] applies process.consoleSize" {
  update_config '.process.args = ["/bin/stty", "size"] | .process.consoleSize = {"height": 30, "width": 100}'
  start_recvtty
  agentrt_detached create --console-socket "$ROOT/tty.sock" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt start "$CID"
  wait_recvtty
  grep -q '30 100' "$ROOT/tty.out"
}

@test "agentrt create [terminal] without --console-socket fails, as runc" {
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"process.terminal needs --console-socket"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create --console-socket without process.terminal fails" {
  update_config '.process.terminal = false'
  agentrt_detached create --console-socket "$ROOT/nope.sock" -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"--console-socket needs process.terminal"* ]]
}

@test "agentrt create [terminal] with a console socket nobody listens on fails and leaves nothing" {
  agentrt_detached create --console-socket "$ROOT/nobody.sock" -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"connect to --console-socket"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt exec -t [terminal] gives the new process a pty" {
  update_config '.process.terminal = false | .process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  run script -qec "$AGENTRT --root $ROOT/state exec -t $CID /bin/tty" /dev/null
  [ "$status" -eq 0 ]
  [[ "$output" == *"/dev/pts/"* ]]
}

@test "agentrt exec -t -d --console-socket sends the pty master" {
  update_config '.process.terminal = false | .process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  start_recvtty
  agentrt_detached exec -t -d --console-socket "$ROOT/tty.sock" "$CID" /bin/sh -c 'echo via-socket'
  [ "$status" -eq 0 ]
  wait_recvtty
  grep -q via-socket "$ROOT/tty.out"
}
