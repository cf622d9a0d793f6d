#!/usr/bin/env bats
# agentrt exec: a new process in a running container's namespaces.
load helpers

setup() {
  setup_busybox
  update_config '.process.args = ["/bin/sleep", "1000"] | .hostname = "inside"'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
}
teardown() { teardown_root; }

@test "agentrt exec runs in the container's namespaces and rootfs" {
  agentrt exec "$CID" sh -c 'echo pid=$$; hostname; cat /etc/passwd; ls /sys/class/net'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" != "pid=1" ]
  [[ "${lines[0]}" =~ ^pid=[0-9]+$ ]]
  [ "${lines[1]}" = "inside" ]
  [ "${lines[2]}" = "root:x:0:0:root:/root:/bin/sh" ]
  [ "${lines[3]}" = "lo" ]
}

@test "agentrt exec exits with the process's status" {
  agentrt exec "$CID" sh -c 'exit 9'
  [ "$status" -eq 9 ]
}

@test "agentrt exec: the process leads a session and process group of its own, as under runc" {
  agentrt exec "$CID" sh -c 'cut -d" " -f1,5,6 /proc/$$/stat'
  [ "$status" -eq 0 ]
  read -r pid pgrp sid <<<"$output"
  [ "$pgrp" = "$pid" ]
  [ "$sid" = "$pid" ]
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" sleep 100
  [ "$status" -eq 0 ]
  pid=$(cat "$ROOT/exec.pid")
  [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
  [ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ]
}

@test "agentrt exec -u, -e, --cwd and --cap override the container's process" {
  agentrt exec -u 1000:1000 -e GREETING=hi --cwd /tmp "$CID" sh -c 'id -u; id -g; echo $GREETING; pwd'
  [ "$status" -eq 0 ]
  [ "${lines[*]}" = "1000 1000 hi /tmp" ]
  agentrt exec --cap CAP_SYS_ADMIN "$CID" grep CapEff /proc/self/status
  [ "$output" = "CapEff:	0000000020200420" ]
}

# (uid_t) -1 is "unchanged" to setresuid and setresgid: a process asking for 4294967295 stayed
# root (the init's or exec's ids before it changes them).
@test "agentrt exec and create refuse uid and gid 4294967295, naming the field" {
  local id
  for id in 4294967295 0:4294967295; do
    agentrt exec -u "$id" "$CID" id -u
    [ "$status" -eq 1 ]
    [ "$output" = "agentrt: --user: expected UID[:GID] as numbers from 0 to 4294967294, not \`$id\`" ]
  done
  agentrt exec --additional-gids 4294967295 "$CID" id -u
  [ "$status" -eq 1 ]
  [ "$output" = 'agentrt: --additional-gids: expected a number from 0 to 4294967294, not `4294967295`' ]
  jq -n '{cwd: "/", args: ["/bin/id", "-u"], user: {uid: 4294967295, gid: 0}}' >"$ROOT/process.json"
  agentrt exec --process "$ROOT/process.json" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $ROOT/process.json: user.uid: 4294967295 is -1, \"unchanged\" to setresuid and setresgid: not an id" ]
  for f in 'uid = 4294967295' 'gid = 4294967295' 'additionalGids = [4294967295]'; do
    update_config ".process.user.$f"
    agentrt_detached create -b "$BUNDLE" "$CID-2"
    [ "$status" -eq 1 ]
    [ "$output" = "agentrt: config.json: process.user.${f%% *}$([ "${f%% *}" = additionalGids ] && echo '[0]'): 4294967295 is -1, \"unchanged\" to setresuid and setresgid: not an id" ]
    update_config 'del(.process.user.additionalGids) | .process.user.uid = 0 | .process.user.gid = 0'
  done
  [ ! -e "$ROOT/state/$CID-2" ]
}

@test "agentrt exec --process runs a process.json" {
  jq -n '{cwd: "/", args: ["/bin/sh", "-c", "echo from-json; id -u"], user: {uid: 7, gid: 7},
          env: ["PATH=/bin"]}' >"$ROOT/process.json"
  agentrt exec --process "$ROOT/process.json" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "from-json" ]
  [ "${lines[1]}" = "7" ]
}

@test "agentrt exec --process: a FIFO fails at once, naming it" {
  mkfifo "$ROOT/process.json"
  status=0
  timeout 20 "$AGENTRT" --root "$ROOT/state" exec --process "$ROOT/process.json" "$CID" \
    </dev/null >/dev/null 2>"$ROOT/err" || status=$?
  echo "status=$status: $(cat "$ROOT/err")" >&2
  [ "$status" -eq 1 ]
  [ "$(cat "$ROOT/err")" = "agentrt: \`$ROOT/process.json\` is not a regular file" ]
}

@test "agentrt exec --process: JSON nested 400,000 levels deep fails naming where, no crash" {
  jq -n '{cwd: "/", args: ["/bin/true"]}' >"$ROOT/process.json"
  nest_member "$ROOT/process.json" 400000
  agentrt exec --process "$ROOT/process.json" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $ROOT/process.json: x[0][0][0][0][0][0][0]...: nested deeper than 64 levels" ]
  # The container is unharmed.
  agentrt exec "$CID" true
  [ "$status" -eq 0 ]
}

@test "agentrt exec -d --pid-file leaves the process running in the container" {
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" sleep 777
  [ "$status" -eq 0 ]
  pid=$(cat "$ROOT/exec.pid")
  [ "$(tr '\0' ' ' </proc/$pid/cmdline)" = "sleep 777 " ]
  init=$(__agentrt state "$CID" | jq -r .pid)
  [ "$(readlink /proc/$pid/ns/pid)" = "$(readlink /proc/$init/ns/pid)" ]
  [ "$(readlink /proc/$pid/ns/mnt)" = "$(readlink /proc/$init/ns/mnt)" ]
}

@test "agentrt exec of a missing binary fails naming it" {
  agentrt exec "$CID" /no/such/tool
  [ "$status" -eq 1 ]
  # runc's lower-case words: Docker's CLI turns them into exit status 127.
  [[ "$output" == *"exec \`/no/such/tool\`: no such file or directory"* ]]
  agentrt exec "$CID" no-such-tool
  [ "$status" -eq 1 ]
  [[ "$output" == *"exec \`no-such-tool\`: executable file not found in \$PATH"* ]]
}

@test "agentrt exec passes no host fd in" {
  run __agentrt exec "$CID" sh -c 'ls /proc/self/fd | sort -n | tr "\n" " "' 7</dev/null
  [ "$status" -eq 0 ]
  [ "$output" = "0 1 2 3 " ]
}

@test "agentrt exec into a stopped container fails" {
  __agentrt kill "$CID" KILL
  for _ in $(seq 50); do [ "$(__agentrt state "$CID" | jq -r .status)" = stopped ] && break; sleep 0.1; done
  agentrt exec "$CID" true
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot exec in container \`$CID\`: it is stopped"* ]]
}

@test "agentrt exec: a cwd through an inherited fd cannot reach the host (CVE-2024-21626)" {
  agentrt exec --cwd /proc/self/fd/9 "$CID" ls 9</
  [ "$status" -eq 1 ]
  [[ "$output" == *"outside the container"* || "$output" == *"chdir"* ]]
}
