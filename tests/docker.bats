#!/usr/bin/env bats
# Docker (Debian's docker.io 20.10, through its managed containerd and containerd-shim-runc-v2)
# drives agentrt end to end: `dockerd --add-runtime agentrt=PATH`, `docker run --runtime agentrt`.
# Every scenario runs against agentrt and against runc, Docker's own runtime, as the control.
# The daemon is private to this file (tests/lib/docker.sh) and the image is imported from a
# busybox rootfs: no registry, no host network change.
load helpers
source "$BATS_TEST_DIRNAME/lib/docker.sh"

setup_file() {
  command -v "$DOCKERD" >/dev/null && [ -x "$DOCKER_CLIENT" ] \
    || skip "Debian's docker.io is not installed (tools/install-deps.sh)"
  local dir
  dir=$(mktemp -d "${BATS_RUN_TMPDIR:-/tmp}/docker.XXXXXX")
  # agentrt as the shim runs it: an absolute path.
  docker_start "$dir" "$(readlink -f "$AGENTRT")"
  DOCKER_BASE_MOUNTS=$(docker_mounts)
  IMAGE=agentrt-busybox:test
  docker_import_busybox "$IMAGE"
  export DOCKER_DIR DOCKER_AGENTRT DOCKER_PID DOCKER_CONTAINERD_PID DOCKER_CGROUP_PARENT DOCKER_RUNTIME_ROOT \
    DOCKER_BASE_MOUNTS DOCKER_HOST_DIRS_MADE IMAGE
}

teardown_file() {
  docker_stop
}

setup() {
  NAME="t${BATS_TEST_NUMBER}-$$-$RANDOM"
  CIDFILE=$DOCKER_DIR/$NAME.cid
}

# A failed test leaves its container: remove it here, so the next test starts clean.
teardown() {
  local ids
  ids=$(dk ps -aq --filter "name=$NAME")
  [ -z "$ids" ] || dk rm -f $ids >/dev/null
}

# runtime_bin R: the binary behind Docker's runtime R.
runtime_bin() { if [ "$1" = agentrt ]; then echo "$AGENTRT"; else command -v runc; fi; }

# dk_run_detached R ARGS…: `docker run -d --runtime R --network none --name NAME ARGS…` (ARGS:
# options, the image, the command); ID is the container's full id.
dk_run_detached() {
  local r=$1
  shift
  run dk run -d --runtime "$r" --network none --name "$NAME" "$@"
  echo "docker run -d --runtime $r $* (status=$status): $output" >&2
  [ "$status" -eq 0 ]
  ID=$output
  [[ $ID =~ ^[0-9a-f]{64}$ ]]
  # The runtime that runs it is R: its own `state` finds it under the --root the shim gave it.
  run "$(runtime_bin "$r")" --root "$DOCKER_RUNTIME_ROOT" state "$ID"
  echo "$r state: $output" >&2
  [ "$status" -eq 0 ]
  [ "$(jq -r .status <<<"$output")" = running ]
}

# dk_wait_logs PATTERN: until the container's output has PATTERN, at most 10 s.
dk_wait_logs() {
  local i
  for ((i = 0; i < 100; i++)); do
    dk logs "$ID" 2>&1 | grep -q -- "$1" && return 0
    sleep 0.1
  done
  echo "no \`$1\` in the logs of $ID: $(dk logs "$ID" 2>&1)" >&2
  return 1
}

# The workload's stdout, and its exit status as docker run's.
run_rm() {
  run dk run --rm --runtime "$1" --network none --name "$NAME" --cidfile "$CIDFILE" "$IMAGE" \
    sh -c 'echo hi; exit 3'
  echo "docker run --rm --runtime $1 (status=$status): $output" >&2
  [ "$status" -eq 3 ]
  [ "$output" = hi ]
  docker_nothing_left "$(cat "$CIDFILE")"
  [ -z "$(dk ps -aq --filter "name=$NAME")" ]
}

# run -d, exec (output and status, and a missing executable), stop (SIGTERM reaches the init:
# it exits with its trap's status, not the 137 of stop's SIGKILL), rm.
detached_exec_stop() {
  dk_run_detached "$1" "$IMAGE" sh -c 'trap "exit 143" TERM; sleep 1000 & wait'
  run dk exec "$ID" sh -c 'echo from-exec; exit 7'
  echo "docker exec (status=$status): $output" >&2
  [ "$status" -eq 7 ]
  [ "$output" = from-exec ]
  # docker exec says 126 for any failed start, under runc too; the error names the file.
  run dk exec "$ID" /no/such/tool
  echo "docker exec /no/such/tool (status=$status): $output" >&2
  [ "$status" -eq 126 ]
  [[ $output == *"/no/such/tool"*"no such file or directory"* ]]
  run dk exec "$ID" echo still-up
  [ "$output" = still-up ]
  # The leftover check sees a live container: its state dir, its shim, and for agentrt the
  # supervisor, which audited the exec'd command.
  local live
  live=$(docker_leftovers "$ID")
  echo "live: $live" >&2
  grep -q "^state dir " <<<"$live"
  grep -q "^process .* containerd-shim" <<<"$live"
  grep -q "^shim socket " <<<"$live"
  if [ "$1" = agentrt ]; then
    grep -q "^process .* agentrt-sv" <<<"$live"
    grep -q '"syscall":"execve".*still-up' "$DOCKER_RUNTIME_ROOT/$ID/audit.jsonl"
  fi
  run dk stop -t 20 "$ID"
  [ "$status" -eq 0 ]
  [ "$(dk inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$ID")" = "exited 143" ]
  run dk rm "$ID"
  [ "$status" -eq 0 ]
  docker_nothing_left "$ID"
}

# kill -s USR1 reaches the init's trap; kill (SIGKILL) ends it with 137; rm.
kill_container() {
  dk_run_detached "$1" "$IMAGE" sh -c 'trap "echo got-usr1" USR1; echo ready; while :; do sleep 1 & wait; done'
  dk_wait_logs ready
  run dk kill -s USR1 "$ID"
  [ "$status" -eq 0 ]
  dk_wait_logs got-usr1
  [ "$(dk inspect -f '{{.State.Status}}' "$ID")" = running ]
  run dk kill "$ID"
  [ "$status" -eq 0 ]
  run dk wait "$ID"
  [ "$output" = 137 ]
  run dk rm "$ID"
  [ "$status" -eq 0 ]
  docker_nothing_left "$ID"
}

# cg CONTROLLER FILE: a file of the container's cgroup in that v1 hierarchy.
cg() { cat "/sys/fs/cgroup/$1/$DOCKER_CGROUP_PARENT/$ID/$2"; }

# Docker's limits reach the container's cgroups; `docker update` (the shim's `update
# --resources -`, JSON on stdin) changes them live; pause and unpause freeze and thaw it.
limits_update_pause() {
  dk_run_detached "$1" --memory 64m --memory-swap 64m --cpus 0.5 --cpu-shares 512 --pids-limit 20 \
    "$IMAGE" sleep 1000
  [ "$(cg memory memory.limit_in_bytes)" -eq $((64 << 20)) ]
  [ "$(cg cpu cpu.cfs_quota_us)" -eq 50000 ]
  [ "$(cg cpu cpu.shares)" -eq 512 ]
  [ "$(cg pids pids.max)" -eq 20 ]
  if [ "$1" = agentrt ]; then
    # agentrt's supervisor shows the workload its limits, not the host's.
    run dk exec "$ID" sh -c 'head -n 1 /proc/meminfo; nproc'
    echo "$output" >&2
    [[ ${lines[0]} =~ ^MemTotal:\ +65536\ kB$ ]]
    [ "${lines[1]}" = 1 ]
  fi
  run dk update --memory 128m --memory-swap 128m --cpus 1.5 --pids-limit 30 "$ID"
  echo "docker update (status=$status): $output" >&2
  [ "$status" -eq 0 ]
  [ "$(cg memory memory.limit_in_bytes)" -eq $((128 << 20)) ]
  [ "$(cg cpu cpu.cfs_quota_us)" -eq 150000 ]
  [ "$(cg pids pids.max)" -eq 30 ]
  if [ "$1" = agentrt ]; then
    # ... and follows the update within a few seconds (1.5 CPUs of quota show as 2).
    local i
    for i in $(seq 30); do
      run dk exec "$ID" sh -c 'head -n 1 /proc/meminfo; nproc'
      [[ ${lines[0]} =~ ^MemTotal:\ +131072\ kB$ ]] && [ "${lines[1]}" = 2 ] && break
      sleep 0.1
    done
    echo "after update: $output" >&2
    [[ ${lines[0]} =~ ^MemTotal:\ +131072\ kB$ ]]
    [ "${lines[1]}" = 2 ]
  fi
  run dk pause "$ID"
  [ "$status" -eq 0 ]
  [ "$(cg freezer freezer.state)" = FROZEN ]
  [ "$(dk inspect -f '{{.State.Status}}' "$ID")" = paused ]
  run dk unpause "$ID"
  [ "$status" -eq 0 ]
  [ "$(cg freezer freezer.state)" = THAWED ]
  run dk exec "$ID" echo thawed
  [ "$output" = thawed ]
  run dk rm -f "$ID"
  [ "$status" -eq 0 ]
  docker_nothing_left "$ID"
}

# run -t and exec -t: the workload gets a terminal (the shim's console socket).
terminal() {
  run dk run --rm -t --runtime "$1" --network none --name "$NAME" --cidfile "$CIDFILE" "$IMAGE" \
    sh -c 'tty; [ -t 0 ] && [ -t 1 ] && echo both-ttys'
  echo "docker run -t (status=$status): $output" >&2
  [ "$status" -eq 0 ]
  [[ ${lines[0]} =~ ^/dev/pts/[0-9]+ ]]
  [[ ${lines[1]} == both-ttys* ]]
  docker_nothing_left "$(cat "$CIDFILE")"
  dk_run_detached "$1" "$IMAGE" sleep 1000
  run dk exec -t "$ID" tty
  [[ $output =~ ^/dev/pts/[0-9]+ ]]
  run dk exec "$ID" tty
  [[ $output == "not a tty"* ]]
  run dk rm -f "$ID"
  [ "$status" -eq 0 ]
  docker_nothing_left "$ID"
}

# A missing executable: docker run fails at create with the runtime's error, exits 127 as it
# does under runc (it reads the error's words), and --rm leaves nothing.
failing_start() {
  run -127 dk run --rm --runtime "$1" --network none --name "$NAME" --cidfile "$CIDFILE" "$IMAGE" /nonexistent
  echo "docker run /nonexistent --runtime $1 (status=$status): $output" >&2
  [ "$status" -eq 127 ]
  [[ $output == *"OCI runtime create failed"*"/nonexistent"*"no such file or directory"* ]]
  docker_nothing_left "$(cat "$CIDFILE")"
  [ -z "$(dk ps -aq --filter "name=$NAME")" ]
}

@test "docker: run --rm prints the output and exits 3 [agentrt]" { run_rm agentrt; }
@test "docker: run --rm prints the output and exits 3 [runc]" { run_rm runc; }
@test "docker: run -d, exec, stop, rm [agentrt]" { detached_exec_stop agentrt; }
@test "docker: run -d, exec, stop, rm [runc]" { detached_exec_stop runc; }
@test "docker: kill -s USR1, kill, rm [agentrt]" { kill_container agentrt; }
@test "docker: kill -s USR1, kill, rm [runc]" { kill_container runc; }
@test "docker: a missing executable fails the run with 127 and leaves nothing [agentrt]" { failing_start agentrt; }
@test "docker: a missing executable fails the run with 127 and leaves nothing [runc]" { failing_start runc; }
@test "docker: --memory, --cpus, --pids-limit reach the cgroups; update; pause [agentrt]" { limits_update_pause agentrt; }
@test "docker: --memory, --cpus, --pids-limit reach the cgroups; update; pause [runc]" { limits_update_pause runc; }
@test "docker: run -t and exec -t get a terminal [agentrt]" { terminal agentrt; }
@test "docker: run -t and exec -t get a terminal [runc]" { terminal runc; }
