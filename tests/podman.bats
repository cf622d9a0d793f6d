#!/usr/bin/env bats
# Podman (Debian's podman 4.3 and conmon) drives agentrt end to end, with the configuration
# shipped in contrib/podman/containers.conf.  Every scenario runs against agentrt and against
# runc, the control: a failure under runc is the harness's, not agentrt's.  Everything Podman
# keeps is under one private directory $PD (tests/lib/podman.sh); after each scenario nothing
# of its container may be left: Podman's record, the runtime's state, a mount, a cgroup, a
# process.
load helpers
source "$BATS_TEST_DIRNAME/lib/podman.sh"

setup_file() {
  local t
  for t in podman conmon runc tmux python3; do
    command -v "$t" >/dev/null || skip "$t is not installed (tools/install-deps.sh)"
  done
  [ -d /sys/fs/cgroup/memory/libpod_parent ] && touch "$BATS_FILE_TMPDIR/libpod_parent.existed"
  PD=$(mktemp -d "${BATS_RUN_TMPDIR:-/tmp}/podman.XXXXXX")
  export PD
  podman_setup
}

teardown_file() {
  podman_teardown
}

setup() {
  NAME="agentrt-test-$BATS_TEST_NUMBER-$$"
  SERVER_PIDS=()
  TMUX_PID=
}

teardown() {
  servers_stop
  [ -z "$TMUX_PID" ] || kill "$TMUX_PID" 2>/dev/null || true
  podman rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
}

# pm ARGS: podman with the scenario's runtime.
pm() { podman --runtime "$RT" "$@"; }

# start_detached ARGS: `podman run -d --name $NAME ARGS`; CID gets the container's id.
start_detached() {
  run -0 pm run -d --name "$NAME" "$@"
  CID=$output
  [[ $CID =~ ^[0-9a-f]{64}$ ]]
}

# cgroup_of CONTROLLER: the container's cgroup directory there (Podman's cgroupfs layout).
cgroup_of() { echo "/sys/fs/cgroup/$1/libpod_parent/libpod-$CID"; }

# podman_status: the container's state as Podman sees it.
podman_status() { pm inspect -f '{{.State.Status}}' "$NAME"; }
status_is() { [ "$(podman_status)" = "$1" ]; }
logs_have() { pm logs "$NAME" 2>&1 | grep -qx -- "$1"; }

# tmux_run CMD: CMD in a detached 100x30 tmux pane of a private server that keeps the pane
# after CMD exits (for its exit status).  TMUX_PID is the server's pid.
tmux_run() {
  printf 'set -g remain-on-exit on\nset -g history-limit 500\n' >"$PD/tmux.conf"
  # The pane runs a shell that writes the command's exit status to a file: tmux 3.3 sometimes
  # leaves a pane's process unreaped (a zombie, no pane_dead_status) once its pty has closed.
  printf '%s\n' "$1" >"$PD/tmux.cmd"
  rm -f "$PD/tmux.status"
  tmux -S "$PD/tmux.sock" -f "$PD/tmux.conf" new-session -d -x 100 -y 30 \
    "sh $PD/tmux.cmd; echo \$? >$PD/tmux.status.new; mv $PD/tmux.status.new $PD/tmux.status"
  TMUX_PID=$(tmux -S "$PD/tmux.sock" display -p '#{pid}')
}
tmux_screen() { tmux -S "$PD/tmux.sock" capture-pane -p -S -; }
tmux_shows() { tmux_screen | grep -qF -- "$1"; }
# The command has exited; tmux_status prints its exit status.
tmux_dead() { [ -s "$PD/tmux.status" ]; }
tmux_status() { cat "$PD/tmux.status"; }
tmux_stop() {
  tmux -S "$PD/tmux.sock" kill-server
  wait_for "the tmux server to exit" eval '! proc_alive "$TMUX_PID"'
  TMUX_PID=
}

scenario_run_rm() {
  run -3 --separate-stderr pm run --rm --cidfile "$PD/cid.$NAME" --name "$NAME" "$PODMAN_IMAGE" \
    sh -c "echo hello from \$(cat /proc/1/comm); echo to-stderr >&2; exit 3"
  [ "$output" = "hello from sh" ]
  [ "$stderr" = "to-stderr" ]
  assert_nothing_left "$(cat "$PD/cid.$NAME")"
}

# Podman 4.3 puts no process.consoleSize in config.json: the pane's size reaches the pty when
# podman, attached, sends it to conmon, which may be after the container has started (a race
# of Podman's, lost under runc too when the runtime is quick).  So the container waits, up to
# 5 s, for a size before it prints one (busybox's stty prints no "0 0", only an error); a size
# that never comes, or a wrong one, still fails.
scenario_tty() {
  tmux_run "podman --runtime $RT run -it --rm --cidfile $PD/cid.$NAME --name $NAME $PODMAN_IMAGE \
    sh -c 'tty; test -t 0 && test -t 1 && echo stdio-is-a-tty; \
    i=0; until stty size 2>/dev/null | grep -q ^[1-9] || [ \$i = 50 ]; do sleep 0.1; i=\$((i+1)); done; \
    stty size; printf \"ready> \"; read line; echo \"got:\$line\"; exit 5'"
  wait_for "the prompt" tmux_shows "ready>" || { tmux_screen >&2; return 1; }
  tmux -S "$PD/tmux.sock" send-keys "hello world" Enter
  wait_for "the container to exit" tmux_dead
  tmux_screen >&2
  tmux_shows "/dev/pts/0"
  tmux_shows "stdio-is-a-tty"
  tmux_shows "30 100"
  tmux_shows "got:hello world"
  [ "$(tmux_status)" = 5 ]
  tmux_stop
  assert_nothing_left "$(cat "$PD/cid.$NAME")"
}

scenario_exec_tty() {
  start_detached "$PODMAN_IMAGE" sleep 1000
  tmux_run "podman --runtime $RT exec -it $NAME sh -c 'tty; test -t 0 && echo stdin-is-a-tty; \
    printf \"ready> \"; read line; echo \"got:\$line\"; exit 6'"
  wait_for "the prompt" tmux_shows "ready>"
  tmux -S "$PD/tmux.sock" send-keys "typed in" Enter
  wait_for "the exec to exit" tmux_dead
  tmux_screen >&2
  tmux_shows "/dev/pts/"
  tmux_shows "stdin-is-a-tty"
  tmux_shows "got:typed in"
  [ "$(tmux_status)" = 6 ]
  tmux_stop
  status_is running
  run -0 pm rm -f -t 0 "$NAME"
  assert_nothing_left "$CID"
}

scenario_detached() {
  start_detached "$PODMAN_IMAGE" sh -c \
    'echo started; trap "echo got-term; exit 0" TERM; while :; do sleep 0.1; done'
  wait_for "the workload's first line" logs_have started
  run -0 pm exec "$NAME" sh -c 'echo in-exec; cat /proc/1/comm'
  [ "$output" = "$(printf 'in-exec\nsh')" ]
  run -7 pm exec "$NAME" sh -c 'exit 7'
  # SIGTERM from `stop` reaches the workload's trap: it exits 0 well before the timeout.
  run -0 pm stop -t 20 "$NAME"
  status_is exited
  [ "$(pm inspect -f '{{.State.ExitCode}}' "$NAME")" = 0 ]
  run -0 pm logs "$NAME"
  [ "$output" = "$(printf 'started\ngot-term')" ]
  run -0 pm rm "$NAME"
  assert_nothing_left "$CID"
}

scenario_kill() {
  start_detached "$PODMAN_IMAGE" sh -c \
    'trap "echo got-usr1" USR1; trap "" TERM; echo ready; while :; do sleep 0.1; done'
  wait_for "the workload's first line" logs_have ready
  run -0 pm kill -s USR1 "$NAME"
  wait_for "USR1 to reach the workload" logs_have got-usr1
  status_is running
  # TERM is ignored by the workload; KILL (podman kill's default) ends it.
  run -0 pm kill -s TERM "$NAME"
  status_is running
  run -0 pm kill "$NAME"
  run -0 pm wait "$NAME"
  [ "$output" = 137 ]
  status_is exited
  run -0 pm rm "$NAME"
  assert_nothing_left "$CID"
}

# counter: the number the workload of scenario_pause writes, read from the host.
counter() { cat "/proc/$PID/root/tmp/n"; }
counter_moved() { [ "$(counter)" != "$1" ]; }

scenario_pause() {
  start_detached "$PODMAN_IMAGE" sh -c \
    'i=0; while :; do i=$((i + 1)); echo $i >/tmp/n; sleep 0.02; done'
  PID=$(pm inspect -f '{{.State.Pid}}' "$NAME")
  wait_for "the counter" test -s "/proc/$PID/root/tmp/n"
  run -0 pm pause "$NAME"
  status_is paused
  [ "$(cat "$(cgroup_of freezer)/freezer.state")" = FROZEN ]
  # Frozen for real: the counter does not move in half a second (25 turns of the loop).
  local before
  before=$(counter)
  sleep 0.5
  [ "$(counter)" = "$before" ]
  run -0 pm unpause "$NAME"
  status_is running
  [ "$(cat "$(cgroup_of freezer)/freezer.state")" = THAWED ]
  wait_for "the counter to move again" counter_moved "$before"
  run -0 pm rm -f -t 0 "$NAME"
  assert_nothing_left "$CID"
}

scenario_top() {
  start_detached "$PODMAN_IMAGE" sh -c 'while :; do sleep 0.1; done'
  run -0 pm top "$NAME" pid args
  echo "$output" | grep -qE '^1 +sh -c while :; do sleep 0\.1; done'
  run -0 pm rm -f -t 0 "$NAME"
  assert_nothing_left "$CID"
}

scenario_stats() {
  start_detached "$PODMAN_IMAGE" sh -c 'sleep 1000 & sleep 1000 & wait'
  wait_for "three processes in the pids cgroup" \
    eval '[ "$(wc -l <"$(cgroup_of pids)/cgroup.procs")" -eq 3 ]'
  run -0 pm stats --no-stream --format '{{.ID}} {{.PIDs}} {{.MemUsage}}' "$NAME"
  local id pids mem
  read -r id pids mem <<<"$output"
  [ "$id" = "${CID:0:12}" ]
  [ "$pids" = 3 ]
  [[ $mem =~ ^[0-9.]+[kMG]?B\ / ]]
  run -0 pm rm -f -t 0 "$NAME"
  assert_nothing_left "$CID"
}

scenario_update() {
  start_detached "$PODMAN_IMAGE" sleep 1000
  run -0 pm update --memory 64m "$NAME"
  [ "$(cat "$(cgroup_of memory)/memory.limit_in_bytes")" = 67108864 ]
  run -0 pm rm -f -t 0 "$NAME"
  assert_nothing_left "$CID"
}

scenario_fail_start() {
  # Podman maps the runtime's "no such file" to 127 and shows the runtime's own message, which
  # it read from the --log file (runtime_supports_json).
  run -127 --separate-stderr pm run --rm --cidfile "$PD/cid.$NAME" --name "$NAME" \
    "$PODMAN_IMAGE" /nonexistent
  [[ $stderr == "Error: $RT: "*/nonexistent*"o such file or directory"* ]]
  assert_nothing_left "$(cat "$PD/cid.$NAME")"
}

# conmon's --timeout kills the container's process group: the container must be in one of its
# own (agentrt once left it in conmon's, so conmon killed itself and the container stayed
# "running").  Podman reports conmon's exit status -1 as 255.
scenario_timeout() {
  local t0=$SECONDS
  run -255 pm run --rm --timeout 1 --cidfile "$PD/cid.$NAME" --name "$NAME" "$PODMAN_IMAGE" \
    sleep 100
  [ $((SECONDS - t0)) -lt 30 ]
  [[ $output != *level=error* ]]
  assert_nothing_left "$(cat "$PD/cid.$NAME")"
}

scenario_annotation() {
  serve host
  local allow="io.agentrt.net.allow=127.0.0.1:$PORT"
  # The annotation reaches the runtime: it is in the state the runtime reports.
  start_detached --annotation "$allow" "$PODMAN_IMAGE" sleep 1000
  run -0 "$PD/bin/$RT" state "$CID"
  [ "$(jq -r '.annotations["io.agentrt.net.allow"]' <<<"$output")" = "127.0.0.1:$PORT" ]
  run -0 pm rm -f -t 0 "$NAME"
  assert_nothing_left "$CID"
  # And agentrt applies it: the container's connect to 127.0.0.1:PORT is brokered to the
  # host's server and audited.  Under runc 127.0.0.1 is the container's own loopback, where
  # nothing listens: the control shows that only the broker reaches the host.
  run -0 --separate-stderr pm run --rm --cidfile "$PD/cid.$NAME" --name "$NAME" --annotation "$allow" \
    "$PODMAN_IMAGE" sh -c "echo ping | nc 127.0.0.1 $PORT; echo nc=\$?"
  # The log is in the operator's audit_dir (tests/lib/podman.sh), named by the container's id.
  local audit
  audit="$PD/audit/$(cat "$PD/cid.$NAME").jsonl"
  if [ "$RT" = agentrt ]; then
    [ "$output" = "$(printf 'host:ping\nnc=0')" ]
    grep '"rule":"egress-allow"' "$audit" | grep -q "\"port\":$PORT"
  else
    [ "$output" = nc=1 ]
    [[ $stderr == *"Connection refused"* ]]
    [ ! -e "$audit" ]
  fi
  assert_nothing_left "$(cat "$PD/cid.$NAME")"
}

@test "podman agentrt: run --rm, stdout, stderr and exit code" { RT=agentrt scenario_run_rm; }
@test "podman runc: run --rm, stdout, stderr and exit code" { RT=runc scenario_run_rm; }
@test "podman agentrt: run -it, a tty inside and input reaching it" { RT=agentrt scenario_tty; }
@test "podman runc: run -it, a tty inside and input reaching it" { RT=runc scenario_tty; }
@test "podman agentrt: exec -it into a running container" { RT=agentrt scenario_exec_tty; }
@test "podman runc: exec -it into a running container" { RT=runc scenario_exec_tty; }
@test "podman agentrt: run -d, exec, logs, stop, rm" { RT=agentrt scenario_detached; }
@test "podman runc: run -d, exec, logs, stop, rm" { RT=runc scenario_detached; }
@test "podman agentrt: kill, a signal reaches the workload and KILL ends it" { RT=agentrt scenario_kill; }
@test "podman runc: kill, a signal reaches the workload and KILL ends it" { RT=runc scenario_kill; }
@test "podman agentrt: pause and unpause freeze and thaw the workload" { RT=agentrt scenario_pause; }
@test "podman runc: pause and unpause freeze and thaw the workload" { RT=runc scenario_pause; }
@test "podman agentrt: top" { RT=agentrt scenario_top; }
@test "podman runc: top" { RT=runc scenario_top; }
@test "podman agentrt: stats --no-stream" { RT=agentrt scenario_stats; }
@test "podman runc: stats --no-stream" { RT=runc scenario_stats; }
@test "podman agentrt: update --memory reaches the memory cgroup" { RT=agentrt scenario_update; }
@test "podman runc: update --memory reaches the memory cgroup" { RT=runc scenario_update; }
@test "podman agentrt: a missing executable, the runtime's error shown, nothing left" { RT=agentrt scenario_fail_start; }
@test "podman runc: a missing executable, the runtime's error shown, nothing left" { RT=runc scenario_fail_start; }
@test "podman agentrt: run --timeout, conmon kills the container" { RT=agentrt scenario_timeout; }
@test "podman runc: run --timeout, conmon kills the container" { RT=runc scenario_timeout; }
@test "podman agentrt: io.agentrt.net.allow reaches the runtime" { RT=agentrt scenario_annotation; }
@test "podman runc: io.agentrt.net.allow reaches the runtime" { RT=runc scenario_annotation; }
