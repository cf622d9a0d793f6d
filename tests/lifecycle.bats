#!/usr/bin/env bats
# create, start, run, state, kill, delete: the container's life, and what isolates it.
load helpers

setup() { setup_busybox; cp "$BUNDLE/config.json" "$ROOT/config.orig"; }
teardown() { teardown_root; }

# run_sh SCRIPT: `agentrt run` of /bin/sh -c SCRIPT.
run_sh() { update_config --arg s "$1" '.process.args = ["/bin/sh", "-c", $s]'; agentrt run -b "$BUNDLE" "$CID"; }

pid_alive() { kill -0 "$1" 2>/dev/null; }

@test "agentrt run /bin/true exits 0 and leaves nothing" {
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt run exits with the workload's status" {
  run_sh 'exit 3'
  [ "$status" -eq 3 ]
}

@test "agentrt run exits with 128+N when the workload dies of signal N" {
  update_config '.process.args = ["/bin/sleep", "100"]'
  __agentrt run -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>&1 &
  local run_pid=$! rc=0
  for _ in $(seq 50); do [ "$(__agentrt state "$CID" 2>/dev/null | jq -r .status)" = running ] && break; sleep 0.1; done
  __agentrt kill "$CID" KILL
  wait "$run_pid" || rc=$?
  [ "$rc" -eq 137 ]
}

@test "agentrt run forwards signals to the workload" {
  update_config '.process.args = ["/bin/sh", "-c", "trap \"exit 42\" TERM; while :; do sleep 0.1; done"]'
  # Not through a shell function: $! must be agentrt itself.
  "$AGENTRT" --root "$ROOT/state" run -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>&1 &
  local run_pid=$! rc=0
  for _ in $(seq 50); do [ "$(__agentrt state "$CID" 2>/dev/null | jq -r .status)" = running ] && break; sleep 0.1; done
  sleep 0.3 # let the shell install its trap
  kill -TERM "$run_pid"
  wait "$run_pid" || rc=$?
  [ "$rc" -eq 42 ]
}

@test "agentrt run passes stdout and stderr straight through" {
  run_sh 'echo out; echo err >&2'
  [ "$status" -eq 0 ]
  [[ "$output" == *out* ]]
  [[ "$output" == *err* ]]
}

@test "agentrt run --keep keeps the stopped container's state" {
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt state "$CID"
  [ "$(echo "$output" | jq -r .status)" = "stopped" ]
  [ "$(echo "$output" | jq -r .pid)" = "0" ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create then start: created, then running, with the pid in the pid file" {
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached create -b "$BUNDLE" --pid-file "$ROOT/pid" "$CID"
  [ "$status" -eq 0 ]
  agentrt state "$CID"
  [ "$(echo "$output" | jq -r .status)" = "created" ]
  local pid
  pid=$(echo "$output" | jq -r .pid)
  [ "$pid" = "$(cat "$ROOT/pid")" ]
  [ "$(echo "$output" | jq -r .bundle)" = "$BUNDLE" ]
  pid_alive "$pid"
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  agentrt state "$CID"
  [ "$(echo "$output" | jq -r .status)" = "running" ]
  [ "$(tr '\0' ' ' </proc/$pid/cmdline)" = "/bin/sleep 100 " ]
  agentrt list
  [[ "${lines[1]}" == "$CID "*" $pid "*running* ]]
}

@test "agentrt start of a started container fails" {
  agentrt_detached create -b "$BUNDLE" "$CID"
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  agentrt start "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot start container \`$CID\`"* ]]
}

@test "agentrt create refuses a duplicate id and leaves the first container alone" {
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: container \`$CID\` already exists" ]
  agentrt state "$CID"
  [ "$(echo "$output" | jq -r .status)" = "created" ]
}

@test "agentrt kill stops a running container; kill of a stopped one fails" {
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  pid=$(__agentrt state "$CID" | jq -r .pid)
  agentrt kill "$CID" KILL
  [ "$status" -eq 0 ]
  for _ in $(seq 50); do pid_alive "$pid" || break; sleep 0.1; done
  agentrt state "$CID"
  [ "$(echo "$output" | jq -r .status)" = "stopped" ]
  agentrt kill "$CID" 9
  [ "$status" -eq 1 ]
  [[ "$output" == *"container not running"* ]]
}

@test "agentrt kill --all of a stopped container succeeds and kills what its init left (as runc)" {
  # No pid namespace of its own: the init's child outlives it, in the container's cgroup.
  # containerd's shim sends `kill --all ID 9` after such an init exits, and on StopPodSandbox.
  update_config '.process.args = ["/bin/sh", "-c", "sleep 1236 & exit 0"]
    | .linux.namespaces |= map(select(.type != "pid"))'
  # No supervisor: a container in the runtime's pid namespace may have none by default.
  agentrt_detached create --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt start "$CID"
  [ "$status" -eq 0 ]
  for _ in $(seq 50); do [ "$(__agentrt state "$CID" | jq -r .status)" = stopped ] && break; sleep 0.1; done
  [ "$(__agentrt state "$CID" | jq -r .status)" = stopped ]
  pgrep -f 'sleep 1236' >/dev/null
  agentrt kill "$CID" 9
  [ "$status" -eq 1 ]
  agentrt kill --all "$CID" 9
  [ "$status" -eq 0 ]
  for _ in $(seq 50); do pgrep -f 'sleep 1236' >/dev/null || break; sleep 0.1; done
  run pgrep -f 'sleep 1236'
  [ "$status" -eq 1 ]
  # Once its cgroup is gone too, still no error.
  agentrt kill --all "$CID" 9
  [ "$status" -eq 0 ]
}

@test "agentrt kill --all signals every process of the container" {
  # The init ignores TERM (a pid namespace's init gets only signals it handles); its child
  # `sleep 1234` is reached only through --all.
  update_config '.process.args = ["/bin/sh", "-c", "trap \"\" TERM; sleep 1234 & while :; do sleep 1; done"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  for _ in $(seq 50); do pgrep -f 'sleep 1234' >/dev/null && break; sleep 0.1; done
  pgrep -f 'sleep 1234' >/dev/null
  agentrt kill --all "$CID" TERM
  [ "$status" -eq 0 ]
  for _ in $(seq 50); do pgrep -f 'sleep 1234' >/dev/null || break; sleep 0.1; done
  ! pgrep -f 'sleep 1234'
  [ "$(__agentrt state "$CID" | jq -r .status)" = running ]
}

@test "agentrt delete refuses a running container, delete --force kills it" {
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  pid=$(__agentrt state "$CID" | jq -r .pid)
  agentrt delete "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"that is not stopped: running"* ]]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  ! pid_alive "$pid"
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt delete --force kills processes that double-forked and called setsid" {
  # Durations no other process has, matched whole: 'sleep 20[01]' once matched another test's
  # leftover `sleep 2000`.
  local a=$((400000 + RANDOM)) b
  b=$((a + 1))
  update_config --arg s "setsid sh -c \"sleep $a & sleep $b\" & sleep 100" \
    '.process.args = ["/bin/sh", "-c", $s]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  sleep 0.3
  pgrep -fx "sleep ($a|$b)" >/dev/null
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  sleep 0.2
  ! pgrep -fx "sleep ($a|$b)"
}

@test "agentrt delete of a created container works without --force" {
  agentrt_detached create -b "$BUNDLE" "$CID"
  pid=$(__agentrt state "$CID" | jq -r .pid)
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  ! pid_alive "$pid"
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create of a missing executable fails at create and leaves nothing" {
  update_config '.process.args = ["/no/such/binary"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"exec \`/no/such/binary\`: no such file or directory"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
  ! pgrep -f "agentrt.*$CID"
}

@test "agentrt run: the workload is pid 1 and sees only its own processes" {
  run_sh 'echo pid=$$; ls /proc | grep -c "^[0-9]"'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "pid=1" ]
  [ "${lines[1]}" -le 3 ]
}

@test "agentrt run: the workload leads a session and process group of its own, as under runc" {
  # conmon's --timeout kills the container's process group: shared with the caller, it hit
  # conmon too.  Fields 1, 5 and 6 of stat: pid, process group, session.
  run_sh 'cut -d" " -f1,5,6 /proc/$$/stat'
  [ "$status" -eq 0 ]
  [ "$output" = "1 1 1" ]
}

@test "agentrt run: the rootfs is the root, the hostname is set" {
  update_config '.hostname = "box1"'
  run_sh 'hostname; cat /etc/passwd; ls /'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "box1" ]
  [ "${lines[1]}" = "root:x:0:0:root:/root:/bin/sh" ]
}

@test "agentrt run: the network namespace has only loopback" {
  run_sh 'ls /sys/class/net'
  [ "$status" -eq 0 ]
  [ "$output" = "lo" ]
}

@test "agentrt run: a read-only root refuses writes" {
  run_sh 'touch /x 2>&1; echo rc=$?'
  [[ "$output" == *"Read-only file system"* ]]
  [[ "$output" == *"rc=1"* ]]
}

@test "agentrt run: env, cwd (created when missing) and rlimits apply" {
  update_config '.process.env += ["GREETING=hi"] | .process.cwd = "/work/dir" | .root.readonly = false'
  run_sh 'echo $GREETING; pwd; ulimit -n'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "hi" ]
  [ "${lines[1]}" = "/work/dir" ]
  [ "${lines[2]}" = "1024" ]
}

@test "agentrt run: capabilities and no_new_privs are as configured" {
  run_sh 'grep -E "^(CapEff|CapBnd|CapAmb|NoNewPrivs)" /proc/self/status'
  [ "$status" -eq 0 ]
  # CAP_KILL (5), CAP_NET_BIND_SERVICE (10), CAP_AUDIT_WRITE (29)
  [[ "$output" == *"CapEff:	0000000020000420"* ]]
  [[ "$output" == *"CapBnd:	0000000020000420"* ]]
  # Ambient needs inheritable, which runc's default spec no longer sets (CVE-2022-29162): none.
  [[ "$output" == *"CapAmb:	0000000000000000"* ]]
  [[ "$output" == *"NoNewPrivs:	1"* ]]
}

@test "agentrt run: a user namespace maps root to an unprivileged host uid" {
  update_config '.linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
  run_sh 'id -u; cat /proc/self/uid_map'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "0" ]
  [[ "${lines[1]}" =~ ^\ +0\ +200000\ +65536$ ]]
}

@test "agentrt run: no host fd leaks in, --preserve-fds passes fds on" {
  run_sh 'ls /proc/self/fd | sort -n | tr "\n" " "' 5</dev/null
  [ "$status" -eq 0 ]
  [ "$output" = "0 1 2 3 " ] # 3 is ls's own directory fd
  update_config '.process.args = ["/bin/sh", "-c", "ls /proc/self/fd | sort -n | tr \"\\n\" \" \""]'
  run __agentrt run --preserve-fds 1 -b "$BUNDLE" "$CID-p" 3</dev/null
  [ "$status" -eq 0 ]
  [ "$output" = "0 1 2 3 4 " ]
}

@test "agentrt create: hooks run with the state on stdin; a failing hook leaves nothing" {
  cat >"$ROOT/hook.sh" <<HOOK
#!/bin/sh
cat >"$ROOT/hook-\$1.json"
HOOK
  chmod +x "$ROOT/hook.sh"
  update_config --arg h "$ROOT/hook.sh" '.hooks = {
      "createRuntime": [{"path": $h, "args": ["hook", "createRuntime"]}],
      "poststart": [{"path": $h, "args": ["hook", "poststart"]}],
      "poststop": [{"path": $h, "args": ["hook", "poststop"]}]}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq -r .id "$ROOT/hook-createRuntime.json")" = "$CID" ]
  [ "$(jq -r .status "$ROOT/hook-createRuntime.json")" = "creating" ]
  [ "$(jq -r .status "$ROOT/hook-poststart.json")" = "running" ]
  [ "$(jq -r .status "$ROOT/hook-poststop.json")" = "stopped" ]
  update_config '.hooks = {"createRuntime": [{"path": "/bin/false"}]}'
  agentrt_detached create -b "$BUNDLE" "$CID-2"
  [ "$status" -eq 1 ]
  [[ "$output" == *"hook \`/bin/false\` (createRuntime) exited with status 1"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create: a failing mount is reported and leaves nothing" {
  update_config '.mounts += [{"destination": "/data", "type": "bind", "source": "/no/such/dir", "options": ["rbind"]}]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"/no/such/dir"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create: controls this build cannot apply fail loudly, and leave nothing" {
  for f in '.process.scheduler = {"policy": "SCHED_OTHER"}' \
           '.process.ioPriority = {"class": "IOPRIO_CLASS_IDLE"}'; do
    cp "$ROOT/config.orig" "$BUNDLE/config.json"
    update_config "$f"
    agentrt_detached create -b "$BUNDLE" "$CID"
    [ "$status" -eq 1 ] || return 1
    [[ "$output" == *": not supported yet"* ]] || return 1
    [ "$(state_dirs_left)" -eq 0 ] || return 1
  done
}

@test "agentrt run: a namespace given by path is joined" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-a"
  [ "$status" -eq 0 ]
  a=$(__agentrt state "$CID-a" | jq -r .pid)
  cp "$ROOT/config.orig" "$BUNDLE/config.json"
  update_config --arg p "/proc/$a/ns/net" '.process.args = ["/bin/sh", "-c", "readlink /proc/self/ns/net"]
    | .linux.namespaces |= map(if .type == "network" then .path = $p else . end)'
  agentrt run -b "$BUNDLE" "$CID-b"
  [ "$status" -eq 0 ]
  [ "$output" = "$(readlink /proc/$a/ns/net)" ]
}

@test "agentrt run: linux.devices are created with their type, numbers and mode" {
  update_config '.linux.devices = [{"path": "/dev/mynull", "type": "c", "major": 1, "minor": 3, "fileMode": 438}]'
  run_sh 'ls -l /dev/mynull; echo x >/dev/mynull && echo written'
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "crw-rw-rw-"*" 1, "*"3 "*"/dev/mynull" ]]
  [ "${lines[1]}" = "written" ]
}

@test "agentrt run: namespaced sysctls apply in the container only; others are refused" {
  host=$(cat /proc/sys/net/ipv4/ip_forward)
  want=$((1 - host))
  update_config --arg v "$want" '.linux.sysctl = {"net.ipv4.ip_forward": $v}'
  run_sh 'cat /proc/sys/net/ipv4/ip_forward'
  [ "$status" -eq 0 ]
  [ "$output" = "$want" ]
  [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$host" ]
  update_config '.linux.sysctl = {"kernel.panic": "1"}'
  agentrt run -b "$BUNDLE" "$CID-2"
  [ "$status" -eq 1 ]
  [[ "$output" == *"linux.sysctl: \`kernel.panic\` is not namespaced"* ]]
}

@test "agentrt run: oomScoreAdj, masked and read-only paths apply" {
  update_config '.process.oomScoreAdj = 500'
  run_sh 'cat /proc/self/oom_score_adj; wc -c </proc/timer_list; echo 1 >/proc/sys/kernel/ns_last_pid 2>&1 || echo ro'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "500" ]
  [ "${lines[1]}" = "0" ]
  [[ "${lines[*]}" == *ro* ]]
}

@test "agentrt run: createContainer and startContainer hooks run, in that order" {
  update_config --arg f "$ROOT/created" '.root.readonly = false | .hooks = {
      "createContainer": [{"path": "/bin/sh", "args": ["sh", "-c", ("cat >" + $f)]}],
      "startContainer": [{"path": "/bin/sh", "args": ["sh", "-c", "cat >/started"]}]}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq -r .status "$ROOT/created")" = "creating" ]
  # startContainer resolves in the container: its file lands in the rootfs
  [ "$(jq -r .status "$BUNDLE/rootfs/started")" = "created" ]
}

@test "agentrt create: a hook past its timeout is killed and create fails, leaving nothing" {
  update_config '.hooks = {"createRuntime": [{"path": "/bin/sleep", "args": ["sleep", "30"], "timeout": 1}]}'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"(createRuntime) timed out after 1 s"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
  ! pgrep -f "^/bin/sleep 30$"
}

@test "agentrt run --no-pivot runs in the rootfs too" {
  update_config '.process.args = ["/bin/cat", "/etc/passwd"]'
  agentrt run --no-pivot -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = "root:x:0:0:root:/root:/bin/sh" ]
}

@test "agentrt run passes LISTEN_FDS on, as systemd socket activation expects" {
  update_config '.process.args = ["/bin/sh", "-c", "echo $LISTEN_FDS $LISTEN_PID; ls /proc/self/fd | sort -n | tr \"\\n\" \" \""]'
  LISTEN_FDS=1 run __agentrt run -b "$BUNDLE" "$CID" 3</dev/null
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "1 1" ]
  [ "${lines[1]}" = "0 1 2 3 4 " ]
}

@test "agentrt create: a rootfs symlink cannot redirect a mount onto the host (CVE-2021-30465)" {
  target=$(mktemp -d /tmp/agentrt-host-target.XXXXXX)
  ln -s "$target" "$BUNDLE/rootfs/evil"
  update_config '.mounts += [{"destination": "/evil/x", "type": "tmpfs", "source": "tmpfs"}]
    | .process.args = ["/bin/stat", "-f", "-c", "%T", "/evil/x"]'
  agentrt run -b "$BUNDLE" "$CID"
  ls -A "$target" >"$ROOT/target.ls"
  rmdir "$target" 2>/dev/null || rm -rf "$target"
  [ "$status" -eq 0 ]
  [ "$output" = "tmpfs" ] # the mount happened, inside the rootfs
  [ ! -s "$ROOT/target.ls" ]
  ! grep -q "$target" /proc/self/mountinfo
}

@test "agentrt create: the waiting init's /proc/PID/exe (agentrt) is out of the container's reach (CVE-2019-5736)" {
  update_config '.process.args = ["/bin/true"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" sh -c 'cat /proc/1/exe >/dev/null 2>&1 && echo readable || echo denied'
  [ "$output" = "denied" ]
}

@test "agentrt run: a failing poststart hook is a warning, and the hooks after it still run" {
  update_config --arg f "$ROOT/second" '.hooks = {"poststart": [{"path": "/bin/false"},
      {"path": "/bin/sh", "args": ["sh", "-c", ("cat >" + $f)]}]}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"warning: hook \`/bin/false\` (poststart) exited with status 1"* ]]
  [ "$(jq -r .status "$ROOT/second")" = "running" ]
}

@test "agentrt run: every rootfsPropagation value works, unbindable included" {
  for p in shared slave private unbindable rshared rslave rprivate runbindable; do
    cp "$ROOT/config.orig" "$BUNDLE/config.json"
    update_config --arg p "$p" '.linux.rootfsPropagation = $p
      | .process.args = ["/bin/awk", "$5 == \"/\"", "/proc/self/mountinfo"]'
    agentrt run -b "$BUNDLE" "$CID-$p"
    [ "$status" -eq 0 ] || return 1
    case $p in
      *shared) [[ "$output" == *shared:* ]] || return 1 ;;
      *unbindable) [[ "$output" == *unbindable* ]] || return 1 ;;
    esac
  done
}

@test "agentrt create: a capability the host cannot grant fails at create, not after start" {
  # Root here lacks CAP_SYS_RESOURCE in its bounding set; on a host that has it, nothing fails.
  grep -q '^CapBnd:.*' /proc/self/status
  if (( (0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> 24) & 1 )); then
    skip "this host can grant CAP_SYS_RESOURCE"
  fi
  update_config '.process.capabilities.bounding += ["CAP_SYS_RESOURCE"]
    | .process.capabilities.effective += ["CAP_SYS_RESOURCE"]
    | .process.capabilities.permitted += ["CAP_SYS_RESOURCE"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *capset* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create: --preserve-fds of an fd the caller did not pass fails (no runtime fd leaks)" {
  agentrt_detached create --preserve-fds 2 -b "$BUNDLE" "$CID" 3>&- 4>&-
  [ "$status" -eq 1 ]
  [[ "$output" == *"fd 3 was not passed by the caller"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt delete --force of a container in a joined pid namespace spares the namespace's owner" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-owner"
  owner=$(__agentrt state "$CID-owner" | jq -r .pid)
  update_config --arg p "/proc/$owner/ns/pid" '.linux.namespaces |= map(if .type == "pid" then .path = $p else . end)'
  agentrt_detached run -d -b "$BUNDLE" "$CID-guest"
  [ "$status" -eq 0 ]
  agentrt delete --force "$CID-guest"
  [ "$status" -eq 0 ]
  pid_alive "$owner"
  [ "$(__agentrt state "$CID-owner" | jq -r .status)" = running ]
}

@test "agentrt state does not wait for a create that is running its hooks" {
  update_config '.hooks = {"createRuntime": [{"path": "/bin/sleep", "args": ["sleep", "2"]}]}'
  "$AGENTRT" --root "$ROOT/state" create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>&1 &
  local create_pid=$!
  for _ in $(seq 50); do [ -e "$ROOT/state/$CID/state.json" ] && break; sleep 0.05; done
  run timeout 1 "$AGENTRT" --root "$ROOT/state" state "$CID"
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq -r .status)" = creating ]
  wait "$create_pid"
}

@test "agentrt delete clears what a create killed during its hooks left behind" {
  update_config '.hooks = {"createRuntime": [{"path": "/bin/sleep", "args": ["sleep", "30"]}]}'
  "$AGENTRT" --root "$ROOT/state" create -b "$BUNDLE" "$CID" </dev/null >/dev/null 2>&1 &
  local create_pid=$!
  for _ in $(seq 50); do [ -e "$ROOT/state/$CID/state.json" ] && break; sleep 0.05; done
  sleep 0.3
  kill -9 "$create_pid"
  wait "$create_pid" || true
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  [ "$(state_dirs_left)" -eq 0 ]
  sleep 0.2
  ! pgrep -f "^sleep 30$" # the hook died with the create that ran it
}

@test "agentrt run: a new user namespace can join a network namespace the host owns" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-net"
  owner=$(__agentrt state "$CID-net" | jq -r .pid)
  cp "$ROOT/config.orig" "$BUNDLE/config.json"
  update_config --arg p "/proc/$owner/ns/net" '.linux.namespaces |= map(if .type == "network" then .path = $p else . end)
    | .linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .process.args = ["/bin/sh", "-c", "id -u; readlink /proc/self/ns/net; echo $$"]'
  agentrt run -b "$BUNDLE" "$CID-userns"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "0" ]
  [ "${lines[1]}" = "$(readlink /proc/$owner/ns/net)" ]
  [ "${lines[2]}" = "1" ] # still pid 1 of its own pid namespace
}

@test "agentrt run: loopback is up in a new network namespace" {
  run_sh 'cat /sys/class/net/lo/operstate; (nc -l -p 8080 -e echo served &) ; sleep 0.2; nc 127.0.0.1 8080 </dev/null'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "unknown" ] # lo reports "unknown" when up
  [[ "$output" == *served* ]]
}
