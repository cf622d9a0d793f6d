#!/usr/bin/env bats
# The sandbox controls of issue 5 (but the egress broker): the deadline, the ephemeral rootfs
# and its disk cap, the resource shorthands, canaries and the agent profile.
load helpers

setup() { setup_busybox; }
teardown() { teardown_root; }

# sh_args SCRIPT: the container runs /bin/sh -c SCRIPT, on a writable root.
sh_args() { update_config --arg s "$1" '.root.readonly = false | .process.args = ["/bin/sh", "-c", $s]'; }

# tree_sum DIR: one checksum of every path, owner, mode and content under DIR.
tree_sum() {
  (cd "$1" && find . -printf '%p %U:%G %m %l\n' | LC_ALL=C sort
   find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum
}

not_alive() { ! proc_alive "$1"; }

# sleepers_of TAG: live processes whose command line holds TAG (a unique sleep duration).
sleepers_of() { pgrep -f -- "sleep $1" | while read -r p; do proc_alive "$p" && echo "$p"; done; }

# ---- deadline --------------------------------------------------------------------------------

@test "agent: --timeout kills the whole container at the deadline, forked-away children too (137)" {
  local tag=$((4000 + RANDOM)) t0 t1
  sh_args "(setsid sleep $tag &); sleep $((tag + 1))"
  t0=$(date +%s%N)
  agentrt run --audit-log "$ROOT/audit.jsonl" --timeout 2s -b "$BUNDLE" "$CID"
  t1=$(date +%s%N)
  [ "$status" -eq 137 ]
  (( (t1 - t0) / 1000000 >= 1900 && (t1 - t0) / 1000000 < 6000 ))
  [ -z "$(sleepers_of "$tag")" ]
  [ "$(jq -r 'select(.event == "timeout") | .verdict' "$ROOT/audit.jsonl")" = kill-container ]
  leaves_nothing
}

@test "agent: a timed-out container's state says why: io.agentrt.stop.reason=timeout" {
  sh_args 'sleep 1000'
  agentrt run --keep --timeout 500ms -b "$BUNDLE" "$CID"
  [ "$status" -eq 137 ]
  agentrt state "$CID"
  [ "$(jq -r '.status' <<<"$output")" = stopped ]
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' <<<"$output")" = timeout ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agent: a container that ends before its deadline has no stop reason" {
  sh_args 'exit 3'
  agentrt run --keep --timeout 5s -b "$BUNDLE" "$CID"
  [ "$status" -eq 3 ]
  agentrt state "$CID"
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"] // "none"' <<<"$output")" = none ]
  agentrt delete "$CID"
  leaves_nothing
}

@test "agent: the deadline holds with --platform none (a watchdog without the supervisor)" {
  local tag=$((5000 + RANDOM))
  sh_args "(setsid sleep $tag &); sleep $((tag + 1))"
  update_config '.annotations["io.agentrt.timeout"] = "1s"'
  agentrt run --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 137 ]
  [ -z "$(sleepers_of "$tag")" ]
  leaves_nothing
}

# With --platform none the deadline's watchdog is all the supervisor there is, and it holds the
# kill switch (it traces the init, PTRACE_O_EXITKILL): killed, the kernel kills the container;
# stopped, nothing tells, and the next command that looks kills it.  Either way that command
# records why.
@test "agent: with --platform none, a killed or stopped deadline watchdog kills the container" {
  local sig reason init
  sh_args 'sleep 1000'
  for sig in KILL STOP; do
    agentrt_detached run -d --platform none --timeout 1h -b "$BUNDLE" "$CID-$sig"
    [ "$status" -eq 0 ]
    init=$(__agentrt state "$CID-$sig" | jq -r .pid)
    kill "-$sig" "$(jq -r .supervisorPid "$ROOT/state/$CID-$sig/state.json")"
    reason=supervisor-stopped
    if [ "$sig" = KILL ]; then
      reason=supervisor-lost
      wait_for "the init's end" not_alive "$init"
    fi
    agentrt state "$CID-$sig"
    [ "$(jq -r .status <<<"$output")" = stopped ]
    [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' <<<"$output")" = "$reason" ]
    [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' <<<"$output")" -eq 1 ]
    ! proc_alive "$init"
    agentrt delete "$CID-$sig"
    [ "$status" -eq 0 ]
  done
  leaves_nothing
}

@test "agent: a created container's deadline runs from create; delete stops its watchdog" {
  sh_args 'sleep 1000'
  agentrt_detached create --timeout 1h -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(supervisors_left)" -ge 1 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agent: invalid deadlines fail at create naming the flag or annotation, leaving nothing" {
  local v
  for v in 0s 10 1d -5s 5.5s ""; do
    agentrt run --timeout "$v" -b "$BUNDLE" "$CID"
    [ "$status" -ne 0 ]
    [[ $output == *"--timeout: \`$v\`"* ]]
  done
  update_config '.annotations["io.agentrt.timeout"] = "soon"'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ $output == *'annotation io.agentrt.timeout: `soon`'* ]]
  leaves_nothing
}

# ---- ephemeral rootfs and disk cap -----------------------------------------------------------

@test "agent: --ephemeral writes to an overlay: the bundle is unchanged and nothing is left" {
  local before after mounts
  sh_args 'echo new >/etc/new && echo changed >/etc/passwd && rm /bin/ls && mkdir -p /var/x && cat /etc/new /etc/passwd'
  before=$(tree_sum "$BUNDLE/rootfs")
  mounts=$(wc -l </proc/self/mountinfo)
  agentrt run --ephemeral -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = new ] && [ "${lines[1]}" = changed ]
  after=$(tree_sum "$BUNDLE/rootfs")
  [ "$before" = "$after" ]
  [ "$(wc -l </proc/self/mountinfo)" -eq "$mounts" ]
  ! grep -qF "$BUNDLE" /proc/self/mountinfo
  leaves_nothing
}

@test "agent: io.agentrt.ephemeral=true; a later run starts from the bundle again" {
  sh_args 'test ! -e /mark && touch /mark'
  update_config '.annotations["io.agentrt.ephemeral"] = "true"'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ ! -e "$BUNDLE/rootfs/mark" ]
  leaves_nothing
}

@test "agent: the ephemeral upper layer lives only in the container's mount namespace" {
  sh_args 'sleep 1000'
  agentrt_detached create --ephemeral -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  ! grep -qF "$BUNDLE/rootfs" /proc/self/mountinfo
  local pid
  pid=$(__agentrt state "$CID" | jq -r .pid)
  grep -q ' / / .* - overlay ' "/proc/$pid/mountinfo"
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "agent: --disk 16m: dd past it fails with ENOSPC, the host is fine, the bundle unchanged" {
  local before
  sh_args 'dd if=/dev/zero of=/fill bs=1M count=64 2>&1; echo dd=$?; df -k / | tail -1'
  before=$(tree_sum "$BUNDLE/rootfs")
  agentrt run --disk 16m -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ $output == *"No space left on device"* ]]
  [[ $output == *"dd=1"* ]]
  # The filesystem seen as / is the 16 MiB tmpfs.
  [ "$(grep -A0 -E '^(overlay|none) ' <<<"$output" | awk '{print $2}')" -le 16384 ]
  [ "$before" = "$(tree_sum "$BUNDLE/rootfs")" ]
  dd if=/dev/zero of="$ROOT/host-ok" bs=1M count=1 2>/dev/null
  leaves_nothing
}

@test "agent: io.agentrt.disk caps the config's writable tmpfs mounts without a size" {
  update_config '.mounts += [{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid"]},
                             {"destination": "/sized", "type": "tmpfs", "source": "tmpfs", "options": ["size=4m"]}]
    | .annotations["io.agentrt.disk"] = "8m"'
  sh_args 'df -k /scratch /sized | tail -2'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(awk 'NR == 1 {print $2}' <<<"$output")" -eq 8192 ]
  [ "$(awk 'NR == 2 {print $2}' <<<"$output")" -eq 4096 ]
  leaves_nothing
}

# Empty files cost no block but hold kernel memory (~2 KiB each through the overlay): the
# writable layer gets one inode per 2 KiB of its size, and so do the config's tmpfs mounts the
# cap covers (tmpfs's own default is half the machine's pages, 3 million here).
@test "agent: --disk 1m gives the writable layer 512 inodes, and empty files stop there with ENOSPC" {
  sh_args 'stat -f -c "inodes %c" /; stat -f -c "scratch %c" /scratch
    cd /tmp && i=0; while [ $i -lt 600 ] && true >f$i 2>/dev/null; do i=$((i + 1)); done; echo "files $i"'
  update_config '.mounts += [{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid"]}]'
  agentrt run --disk 1m -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ $output == *"inodes 512"* ]]
  [[ $output == *"scratch 512"* ]]
  # The root's inodes (upper/, work/ and the files' directory) leave a few less for files.
  [ "$(sed -n 's/^files //p' <<<"$output")" -lt 512 ]
  [ "$(sed -n 's/^files //p' <<<"$output")" -gt 500 ]
  leaves_nothing
}

@test "agent: invalid disk sizes and ephemeral values fail naming the flag or annotation" {
  local v
  for v in 0 16x 100k -1m m; do
    agentrt run --disk "$v" -b "$BUNDLE" "$CID"
    [ "$status" -ne 0 ]
    [[ $output == *"--disk: \`$v\`"* ]]
  done
  update_config '.annotations["io.agentrt.ephemeral"] = "yes"'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ $output == *'annotation io.agentrt.ephemeral: `yes`'* ]]
  leaves_nothing
}

# ---- resource shorthands ---------------------------------------------------------------------

@test "agent: --memory, --cpus and --pids are written into linux.resources" {
  sh_args 'true'
  agentrt_detached create --memory 64m --cpus 0.5 --pids 32 -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local c="$ROOT/state/$CID/config.json"
  [ "$(jq -r .linux.resources.memory.limit "$c")" -eq $((64 * 1024 * 1024)) ]
  [ "$(jq -r .linux.resources.cpu.quota "$c")" -eq 50000 ]
  [ "$(jq -r .linux.resources.cpu.period "$c")" -eq 100000 ]
  [ "$(jq -r .linux.resources.pids.limit "$c")" -eq 32 ]
  # The bundle's own config is not touched.
  [ "$(jq -r '.linux.resources.memory.limit // "unset"' "$BUNDLE/config.json")" = unset ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "agent: a memory limit of 0 in config.json (none, as in runc) gets the profile's 512m" {
  sh_args 'true'
  update_config '.linux.resources.memory = {"limit": 0}'
  agentrt_detached create --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq -r .linux.resources.memory.limit "$ROOT/state/$CID/config.json")" -eq 536870912 ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "agent: --pids is enforced: a fork past it fails" {
  sh_args 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 5 & done 2>&1; echo done'
  agentrt run --pids 4 -b "$BUNDLE" "$CID"
  [[ $output == *"can't fork"* || $output == *"Resource temporarily unavailable"* ]]
  leaves_nothing
}

# The profile copier rewrote configs through yajl's writer, which past 128 levels wrote beyond
# its state and corrupted the heap; the parser now refuses such nesting before any copy.
@test "agent: --agent, --memory and the agent annotation on a config nested 200 levels fail cleanly" {
  cp "$BUNDLE/config.json" "$ROOT/config.json.orig"
  nest_member "$BUNDLE/config.json" 200
  local flag
  for flag in --agent "--memory 64m" "--cpus 1" "--pids 10"; do
    agentrt_detached create $flag -b "$BUNDLE" "$CID"
    [ "$status" -eq 1 ]
    [ "$output" = "agentrt: config.json: x[0][0][0][0][0][0][0]...: nested deeper than 64 levels" ]
  done
  jq '.annotations["io.agentrt.profile"] = "agent"' "$ROOT/config.json.orig" >"$BUNDLE/config.json"
  nest_member "$BUNDLE/config.json" 200
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: x[0][0][0][0][0][0][0]...: nested deeper than 64 levels" ]
  leaves_nothing
}

# append_members TEXT: config.json with TEXT (members, as JSON text) spliced in before its last
# `}`: jq cannot write a key twice.
append_members() {
  local c
  c=$(cat "$BUNDLE/config.json")
  printf '%s,%s}\n' "${c%\}*}" "$1" >"$BUNDLE/config.json"
}

# The copier edited the first of two members with one key and copied the second as it was; the
# reader took the second: --agent kept the capabilities and the host's ids, --memory left the
# memory unlimited.  A key given twice is refused by the reader, for every flag alike.
@test "agent: a key given twice in config.json fails create, with --agent and --memory alike" {
  cp "$BUNDLE/config.json" "$ROOT/config.json.orig"
  update_config --arg d "$ROOT/hostetc" '.mounts += [{"destination": "/host", "type": "bind", "source": $d, "options": ["rbind"]}]'
  mkdir "$ROOT/hostetc"
  append_members '"process": {"args": ["/bin/true"], "cwd": "/", "user": {"uid": 0, "gid": 0},
    "capabilities": {"bounding": ["CAP_DAC_OVERRIDE"], "effective": ["CAP_DAC_OVERRIDE"], "permitted": ["CAP_DAC_OVERRIDE"]}},
    "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}],
    "resources": {"memory": {"limit": -1}}}'
  local flag
  for flag in --agent "--memory 64m" "--cpus 1" "--pids 10" ""; do
    agentrt_detached create $flag -b "$BUNDLE" "$CID"
    [ "$status" -eq 1 ]
    [ "$output" = 'agentrt: config.json: duplicate key `process`' ]
  done
  # Deeper down too, named by the path of its object.
  jq 'del(.linux.resources)' "$ROOT/config.json.orig" >"$BUNDLE/config.json"
  sed -i 's/"linux": {/"linux": {"resources": {"memory": {"limit": 1, "limit": -1}},/' "$BUNDLE/config.json"
  agentrt_detached create --memory 64m -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = 'agentrt: config.json: linux.resources.memory: duplicate key `limit`' ]
  leaves_nothing
}

# Edits are found by path, "linux/resources/memory/limit": a key of that name before "linux"
# took the --memory edit, and linux.resources itself was copied without it.
@test "agent: --memory is written into linux.resources whatever other keys hold a '/'" {
  update_config '{"linux/resources/memory/limit": 1, "linux/resources": {}} + . | .linux.resources.memory.limit = -1'
  agentrt_detached create --memory 64m -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local c="$ROOT/state/$CID/config.json"
  [ "$(jq -r .linux.resources.memory.limit "$c")" -eq $((64 * 1024 * 1024)) ]
  [ "$(jq -c '.["linux/resources/memory/limit"]' "$c")" = 1 ]
  [ "$(jq -c '.["linux/resources"]' "$c")" = '{}' ]
  local d
  d=$(jq -r '.cgroupPaths[]' "$ROOT/state/$CID/state.json" | grep /memory/)
  [ "$(cat "$d/memory.limit_in_bytes")" -eq $((64 * 1024 * 1024)) ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "agent: invalid shorthands fail naming the flag, leaving nothing" {
  agentrt run --memory 1k -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *'--memory: `1k`'* ]]
  agentrt run --cpus 0 -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *'--cpus: `0`'* ]]
  agentrt run --cpus 1.2.3 -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *'--cpus: `1.2.3`'* ]]
  agentrt run --pids 0 -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *'--pids: `0`'* ]]
  leaves_nothing
}

# ---- canaries --------------------------------------------------------------------------------

@test "agent: --canary plants decoys; opening one is an alert naming the file and the process" {
  local before
  before=$(tree_sum "$BUNDLE/rootfs")
  sh_args 'stat /root/.aws/credentials >/dev/null && ls /root/.ssh && cat /root/.aws/credentials'
  agentrt run --keep --canary /root/.aws/credentials,/root/.ssh/id_rsa -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ $output == *id_rsa* && $output == *aws_secret_access_key* ]]
  local a="$ROOT/state/$CID/audit.jsonl"
  [ "$(jq -r 'select(.event == "canary") | .severity' "$a")" = alert ]
  # stat and readdir are no opens: one alert only, the cat's.
  [ "$(jq -r 'select(.event == "canary") | .detail' "$a" | wc -l)" -eq 1 ]
  jq -r 'select(.event == "canary") | .detail' "$a" | grep -qF '`/root/.aws/credentials` opened by pid'
  jq -r 'select(.event == "canary") | .detail' "$a" | grep -qF '(cat)'
  agentrt state "$CID"
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' <<<"$output")" -ge 1 ]
  agentrt delete "$CID"
  [ "$before" = "$(tree_sum "$BUNDLE/rootfs")" ]
  leaves_nothing
}

@test "agent: an untouched canary raises nothing" {
  sh_args 'true'
  update_config '.annotations["io.agentrt.canary"] = "/home/agent/.netrc"'
  agentrt run --audit-log "$ROOT/audit.jsonl" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  ! grep -q '"event":"canary"' "$ROOT/audit.jsonl"
  leaves_nothing
}

@test "agent: invalid canaries fail at create, and --platform none cannot watch them" {
  local v
  for v in relative /proc/x /a/../b /dev/shm/k /x/; do
    agentrt run --canary "$v" -b "$BUNDLE" "$CID"
    [[ $status -ne 0 && $output == *"--canary: \`$v\`"* ]]
  done
  agentrt run --platform none --canary /root/k -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *"canaries need the supervisor"* ]]
  # A path through a file of the rootfs cannot hold a decoy.
  agentrt run --canary /bin/busybox/k -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *"is not a directory"* ]]
  leaves_nothing
}

# ---- the agent profile -----------------------------------------------------------------------

@test "agent: spec --agent writes the locked-down config" {
  local d="$ROOT/agent-bundle" c
  mkdir -p "$d"
  agentrt spec --agent -b "$d"
  [ "$status" -eq 0 ]
  c="$d/config.json"
  [ "$(jq -r '[.linux.namespaces[].type] | sort | join(",")' "$c")" = cgroup,ipc,mount,network,pid,user,uts ]
  [ "$(jq -r '.linux.uidMappings[0].hostID' "$c")" -eq 100000 ]
  [ "$(jq -r '.process.capabilities | [.[]] | flatten | length' "$c")" -eq 0 ]
  [ "$(jq -r '.process.noNewPrivileges' "$c")" = true ]
  [ "$(jq -r '.linux.resources.memory.limit' "$c")" -eq $((512 * 1024 * 1024)) ]
  [ "$(jq -r '.linux.resources.pids.limit' "$c")" -eq 256 ]
  [ "$(jq -r '.annotations["io.agentrt.timeout"]' "$c")" = 10m ]
  [ "$(jq -r '.annotations["io.agentrt.ephemeral"]' "$c")" = true ]
  [ "$(jq -r '.annotations["io.agentrt.disk"]' "$c")" = 256m ]
  jq -e '.linux.maskedPaths | index("/proc/kcore")' "$c" >/dev/null
  [ "$(jq -r '[.mounts[] | select(.type == "cgroup")] | length' "$c")" -eq 0 ]
  agentrt spec --agent --rootless -b "$ROOT"
  [ "$status" -ne 0 ]
}

@test "agent: run --agent: root inside, an unprivileged uid on the host, loopback only, no caps" {
  local tag=$((6000 + RANDOM)) uid
  sh_args "id -u; grep CapEff /proc/self/status; ls /sys/class/net; echo w >/tmp/w && cat /tmp/w; sleep $tag"
  update_config '.process.env += ["TAG=1"]'
  __agentrt run --agent --timeout 3s -b "$BUNDLE" "$CID" >"$ROOT/out" 2>&1 &
  for _ in $(seq 50); do [ -n "$(sleepers_of "$tag")" ] && break; sleep 0.1; done
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$(sleepers_of "$tag" | head -1)/status")
  [ "$uid" -eq 100000 ]
  wait $! || status=$?
  [ "${status:-0}" -eq 137 ]
  cat "$ROOT/out" >&2
  [ "$(sed -n 1p "$ROOT/out")" = 0 ]
  grep -q 'CapEff:.0000000000000000' "$ROOT/out"
  [ "$(sed -n 3p "$ROOT/out")" = lo ]
  grep -qx w "$ROOT/out"
  leaves_nothing
}

# The agent profile's writable layer is capped below its memory limit (512m): filling it is
# ENOSPC for the workload, not an OOM kill of the container.
@test "agent: run --agent caps the writable layer at 256m: dd past it is ENOSPC, the container lives" {
  sh_args 'df -k / | tail -1; dd if=/dev/zero of=/tmp/fill bs=1M count=300 2>&1; echo dd=$?; rm /tmp/fill; echo alive'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(grep -E '^(overlay|none) ' <<<"$output" | awk '{print $2}')" -eq 262144 ]
  [[ $output == *"No space left on device"* ]]
  [[ $output == *"dd=1"* ]]
  [[ $output == *alive* ]]
  # --disk still wins over the default.
  sh_args 'df -k / | tail -1'
  agentrt run --agent --disk 32m -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(grep -E '^(overlay|none) ' <<<"$output" | awk '{print $2}')" -eq 32768 ]
  leaves_nothing
}

# The user namespace is owned by a uid of agentrt's reserved range, not host root: the kernel
# charges inotify instances and fanotify groups (and user namespaces) made inside to the owner,
# and the namespace's own limit caps the container at 32 of each.  A container that makes all
# it can leaves host root, and the next container's canaries (fanotify), able to make theirs.
host_root_can_make() {
  python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0) if sys.argv[1] == "inotify" else libc.fanotify_init(0, 0)
sys.exit(0 if fd >= 0 else 1)' "$1"
}

@test "agent: run --agent: the user namespace is owned by a reserved uid, not host root" {
  local pid
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  pid=$(__agentrt state "$CID" | jq .pid)
  [ "$(ns_owner "$pid")" -ge $((0xff000000)) ]
  agentrt exec "$CID" cat /proc/sys/user/max_inotify_instances /proc/sys/user/max_fanotify_groups \
    /proc/sys/user/max_inotify_watches /proc/sys/user/max_fanotify_marks
  [ "$status" -eq 0 ]
  [ "${lines[0]}" -eq 32 ] && [ "${lines[1]}" -eq 32 ]
  [ "${lines[2]}" -eq 16384 ] && [ "${lines[3]}" -eq 16384 ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "agent: a container holding all the inotify instances and fanotify groups it can leaves host root its own" {
  local kind
  build_probe "${BATS_RUN_TMPDIR:-/tmp}/probe" "$BUNDLE/rootfs"
  for kind in inotify fanotify; do
    update_config --arg k "$kind" '.process.args = ["/bin/probe", "hold", $k, "200"]'
    agentrt_detached run -d --agent -b "$BUNDLE" "$CID-$kind"
    [ "$status" -eq 0 ]
    wait_for "the probe's count" grep -q "^$kind: " "$ROOT/stdio.log"
    grep "^$kind: " "$ROOT/stdio.log" >&2
    grep -q "^$kind: 32 made, then EMFILE" "$ROOT/stdio.log"
    host_root_can_make "$kind"
  done
  # The next container's canary set-up (fanotify_init, by the runtime) still works.
  update_config '.process.args = ["/bin/true"]'
  agentrt run --agent --canary /root/.aws/credentials -b "$BUNDLE" "$CID-next"
  [ "$status" -eq 0 ]
  agentrt delete --force "$CID-inotify"
  agentrt delete --force "$CID-fanotify"
  leaves_nothing
}

# ---- the agent profile's host ids ------------------------------------------------------------

# The profile kept the config's own user namespace and mappings (a pod's, with hostUsers: false),
# so 0 -> 0 ran the workload as host root.  Host ids below 65536 (the host's users) and from
# 0xFF000000 (the runtime's) are not the profile's to give.
IDS_MSG="the agent profile gives a container only host ids from 65536 to 4278190079 (below: the host's users; above: the runtime's)"

# with_maps UHOST USIZE GHOST GSIZE: the original config.json with a new user namespace mapping
# container id 0 to these host ids.
with_maps() {
  jq --argjson uh "$1" --argjson us "$2" --argjson gh "$3" --argjson gs "$4" \
    '.linux.namespaces = ([.linux.namespaces[] | select(.type != "user")] + [{"type": "user"}])
     | .linux.uidMappings = [{"containerID": 0, "hostID": $uh, "size": $us}]
     | .linux.gidMappings = [{"containerID": 0, "hostID": $gh, "size": $gs}]' \
    "$ROOT/config.json.orig" >"$BUNDLE/config.json"
}

@test "agent: --agent refuses config.json's mappings to host root, the host's users or the runtime's ids" {
  sh_args 'id -u; cat /proc/self/uid_map /proc/self/gid_map'
  cp "$BUNDLE/config.json" "$ROOT/config.json.orig"
  local m
  for m in '0 1 200000 65536|uidMappings[0]: host ids 0-0' \
    '200000 65536 0 65536|gidMappings[0]: host ids 0-65535' \
    '1000 1 200000 65536|uidMappings[0]: host ids 1000-1000' \
    '60000 10000 200000 65536|uidMappings[0]: host ids 60000-69999' \
    '200000 65536 4278190000 100|gidMappings[0]: host ids 4278190000-4278190099'; do
    # shellcheck disable=SC2086
    with_maps ${m%%|*}
    agentrt_detached create --agent -b "$BUNDLE" "$CID"
    [ "$status" -eq 1 ]
    [ "$output" = "agentrt: config.json: linux.${m#*|}: $IDS_MSG" ]
  done
  # The annotation alike.
  with_maps 0 1 200000 65536
  update_config '.annotations["io.agentrt.profile"] = "agent"'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: linux.uidMappings[0]: host ids 0-0: $IDS_MSG" ]
  leaves_nothing
  # A range of its own is kept.
  with_maps 200000 65536 300000 65536
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ]
  [ "$(echo ${lines[1]})" = "0 200000 65536" ] && [ "$(echo ${lines[2]})" = "0 300000 65536" ]
  leaves_nothing
}

# userns_holder: the pid of a process that sleeps in a new user namespace mapping container ids
# 0-65535 to host ids 0-65535 (unshare's --map-users needs newuidmap and /etc/subuid).
userns_holder() {
  python3 -c 'import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        os._exit(1)
    os.write(w, b"x")
    time.sleep(1000)
    os._exit(0)
os.close(w)
if os.read(r, 1) != b"x":
    raise SystemExit("unshare")
for f in ("uid_map", "gid_map"):
    with open("/proc/%d/%s" % (pid, f), "w") as m:
        m.write("0 0 65536\n")
print(pid)' 3>&-
}

# A joined user namespace has no mappings in config.json that bind it: its maps are the kernel's.
@test "agent: --agent refuses to join a user namespace that maps host root" {
  local holder
  holder=$(userns_holder)
  update_config --arg p "/proc/$holder/ns/user" \
    '.linux.namespaces = ([.linux.namespaces[] | select(.type != "user")] + [{"type": "user", "path": $p}])
     | del(.linux.uidMappings, .linux.gidMappings)'
  sh_args 'id -u; cat /proc/self/uid_map'
  agentrt run --agent -b "$BUNDLE" "$CID"
  kill "$holder"
  wait "$holder" || true
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: the container's user namespace (uid_map): maps host ids 0-65535: $IDS_MSG" ]
  leaves_nothing
}

# An idmapped mount gives the files of its mapping's container side (the ids on the host's disk)
# to the ids of its host side: mapping 0 to the container's root made it the owner of host root's
# files in any directory it could bind.
@test "agent: --agent refuses an idmapped mount that gives the container host users' files" {
  local d="$ROOT/hostdir" n
  mkdir "$d"
  echo host >"$d/f"
  chmod 600 "$d/f"
  # The index in the profile's copy, without the cgroup mounts.
  n=$(jq '[.mounts[] | select(.type != "cgroup" and .type != "cgroup2")] | length' "$BUNDLE/config.json")
  sh_args 'echo written >/host/f; cat /host/f'
  update_config --arg d "$d" '.mounts += [{"destination": "/host", "type": "bind", "source": $d, "options": ["bind"],
       "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
       "gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}]}]'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: mounts[$n].uidMappings[0]: the files of host ids 0-65535: $IDS_MSG" ]
  [ "$(cat "$d/f")" = host ]
  # Nor to host root, on the host side.
  update_config '.mounts[-1].gidMappings = [{"containerID": 200000, "hostID": 0, "size": 1}]
    | .mounts[-1].uidMappings = [{"containerID": 200000, "hostID": 100000, "size": 65536}]'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: mounts[$n].gidMappings[0]: host ids 0-0: $IDS_MSG" ]
  leaves_nothing
  # The files of ids the profile gives away may be the container's.
  chown -R 200000:200000 "$d"
  update_config '.mounts[-1].gidMappings = .mounts[-1].uidMappings'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = written ]
  [ "$(stat -c %u "$d/f")" -eq 200000 ]
  leaves_nothing
}

# A hook of config.json that runs on the host ran as host root under --agent: whoever wrote the
# bundle ran what they liked outside the sandbox.  The operator may allow them (Docker's
# libnetwork hook); createContainer and startContainer run as the container's root and stay.
@test "agent: --agent refuses config.json's host hooks unless agentrt.conf allows them" {
  local k
  for k in prestart createRuntime poststart poststop; do
    update_config --arg k "$k" --arg f "$ROOT/$k.ran" \
      '.hooks = {($k): [{"path": "/bin/touch", "args": ["touch", $f]}]}'
    agentrt run --agent -b "$BUNDLE" "$CID"
    [ "$status" -eq 1 ]
    [ "$output" = "agentrt: config.json: hooks.$k: hooks run on the host as root: refused under the agent profile (agentrt.conf: agent_hooks = allow)" ]
    [ ! -e "$ROOT/$k.ran" ]
    leaves_nothing
  done
  # Without the profile, a bundle's hooks run as runc runs them.
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ -e "$ROOT/poststop.ran" ]
  rm "$ROOT/poststop.ran"
  printf 'agent_hooks = allow\n' >"$ROOT/agentrt.conf"
  agentrt --config "$ROOT/agentrt.conf" run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ -e "$ROOT/poststop.ran" ]
  printf 'agent_hooks = yes\n' >"$ROOT/agentrt.conf"
  agentrt --config "$ROOT/agentrt.conf" run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"agentrt.conf:1: agent_hooks: \`yes\`: expected \`allow\` or \`refuse\`" ]]
  leaves_nothing
}

# Watches and marks are counted per user too, and cost kernel memory: the namespace's own
# limits stop the container at 16384 of each (ENOSPC), host root keeps its own.  The profile's
# strict policy refuses fanotify_mark (no program of the corpus uses fanotify): the marks are
# counted under --policy default.
@test "agent: a container holds at most 16384 inotify watches and 16384 fanotify marks" {
  local kind
  build_probe "${BATS_RUN_TMPDIR:-/tmp}/probe" "$BUNDLE/rootfs"
  update_config '.root.readonly = false | .process.args = ["/bin/probe", "watch", "fanotify", "1", "/"]'
  agentrt_detached run -d --agent -b "$BUNDLE" "$CID-strict"
  [ "$status" -eq 0 ]
  wait_for "the probe's count" grep -q "^fanotify watches: " "$ROOT/stdio.log"
  grep -q "^fanotify watches: 0 made, then ENOSYS" "$ROOT/stdio.log"
  agentrt delete --force "$CID-strict"
  : >"$ROOT/stdio.log"
  for kind in inotify fanotify; do
    update_config --arg k "$kind" '.root.readonly = false | .process.args = ["/bin/probe", "watch", $k, "16500", "/"]'
    agentrt_detached run -d --agent --policy default -b "$BUNDLE" "$CID-$kind"
    [ "$status" -eq 0 ]
    wait_for "the probe's count" grep -q "^$kind watches: " "$ROOT/stdio.log"
    grep "^$kind watches: " "$ROOT/stdio.log" >&2
    grep -q "^$kind watches: 16384 made, then ENOSPC" "$ROOT/stdio.log"
    host_root_can_make "$kind"
    agentrt delete --force "$CID-$kind"
  done
  leaves_nothing
}

@test "agent: io.agentrt.profile=agent applies the profile, keeping args, env and cwd" {
  update_config '.annotations["io.agentrt.profile"] = "agent" | .process.cwd = "/tmp"
    | .process.env += ["KEPT=yes"] | .process.args = ["/bin/sh", "-c", "pwd; echo $KEPT; cat /proc/self/uid_map"]'
  agentrt run --memory 128m -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = /tmp ] && [ "${lines[1]}" = yes ]
  [[ ${lines[2]} == *100000* ]]
  update_config '.annotations["io.agentrt.profile"] = "strict"'
  agentrt run -b "$BUNDLE" "$CID"
  [[ $status -ne 0 && $output == *'annotation io.agentrt.profile: `strict`'* ]]
  leaves_nothing
}

# A pod's app container joins the sandbox's IPC namespace, which belongs to the sandbox's user
# namespace: the profile's container, root of a user namespace of its own, could not mount its
# mqueue there, and shares no IPC objects with the pod's other containers.
@test "agent: the profile makes a joined IPC namespace new, as it does the network one; exec joins the rest" {
  local other
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-other"
  [ "$status" -eq 0 ]
  other=$(__agentrt state "$CID-other" | jq .pid)
  update_config --arg p "/proc/$other/ns" '.linux.namespaces |= map(if .type == "ipc" then .path = ($p + "/ipc")
      elif .type == "uts" then .path = ($p + "/uts") else . end)
    | del(.hostname) | .process.args = ["/bin/sh", "-c", "readlink /proc/self/ns/ipc; ls -d /dev/mqueue; exec sleep 100"]'
  agentrt_detached run -d --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait_for "the container's output" grep -q mqueue "$ROOT/stdio.log"
  [ "$(sed -n 1p "$ROOT/stdio.log")" != "$(readlink "/proc/$other/ns/ipc")" ]
  # exec joins the UTS namespace of the other container's user namespace before the
  # container's own (the container's root has no capability there).
  agentrt exec "$CID" readlink /proc/self/ns/uts
  [ "$status" -eq 0 ]
  [ "$output" = "$(readlink "/proc/$other/ns/uts")" ]
  agentrt delete --force "$CID"
  agentrt delete --force "$CID-other"
  leaves_nothing
}

# ---- any bundle path -------------------------------------------------------------------------

# private_bundle: the bundle moved under a directory made by `mktemp -d` (0700, host root's),
# as every bundle containerd makes is; BUNDLE names it there.  The container's root is an
# unprivileged host uid that cannot search it.
private_bundle() {
  local d
  d=$(mktemp -d "$ROOT/private.XXXXXX")
  [ "$(stat -c '%a %u' "$d")" = "700 0" ]
  mv "$BUNDLE" "$d/b"
  BUNDLE="$d/b"
}

@test "agent: run --agent works with the bundle under a 0700 directory of host root (mktemp -d)" {
  private_bundle
  sh_args 'id -u; echo w >/tmp/w && cat /tmp/w; ls /bin/true'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ] && [ "${lines[1]}" = w ] && [ "${lines[2]}" = /bin/true ]
  # create, start and delete by hand too (an engine's path), with a relative --pid-file: the
  # runtime's own cwd is the caller's again after the clone.
  update_config '.process.args = ["/bin/sleep", "100"]'
  (cd "$ROOT" && agentrt_detached create --agent --pid-file pid -b "$BUNDLE" "$CID-c")
  [ "$status" -eq 0 ]
  [ "$(cat "$ROOT/pid")" -eq "$(__agentrt state "$CID-c" | jq .pid)" ]
  agentrt start "$CID-c"
  [ "$status" -eq 0 ]
  agentrt delete --force "$CID-c"
  leaves_nothing
}

# ---- the profile's root owns the image ---------------------------------------------------------

# The busybox rootfs belongs to host root, as an image unpacked by host root does.  The
# overlay's lower layer is an idmapped mount of it (the container's mapping), so the container's
# root owns its files: writes to /etc and /root work, copied up into the writable layer as the
# mapped root (host uid 100000); the bundle is never written.
@test "agent: the profile's root owns a root-owned image: writes /etc/x and /root/a, the bundle untouched" {
  local before pid
  [ "$(stat -c %u "$BUNDLE/rootfs/etc")" -eq 0 ]
  sh_args 'stat -c "%u:%g" / /etc /etc/passwd; echo x >/etc/x && echo agent:x:1000:1000::/:/bin/sh >>/etc/passwd && mkdir /root/a && touch /etc/new && echo wrote; tail -1 /etc/passwd; exec sleep 100'
  before=$(tree_sum "$BUNDLE")
  agentrt_detached run -d --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait_for "the writes" grep -q '^agent:' "$ROOT/stdio.log"
  cat "$ROOT/stdio.log" >&2
  [ "$(sed -n 1,3p "$ROOT/stdio.log" | sort -u)" = 0:0 ]
  grep -qx wrote "$ROOT/stdio.log"
  # From the host: the writable layer's files belong to the mapped root.
  pid=$(__agentrt state "$CID" | jq .pid)
  [ "$(stat -c %u:%g "/proc/$pid/root/etc/x" "/proc/$pid/root/root/a" "/proc/$pid/root/etc/passwd" | sort -u)" = 100000:100000 ]
  [ "$(stat -c %u "/proc/$pid/root/bin/busybox")" -eq 100000 ]
  agentrt delete --force "$CID"
  [ "$(tree_sum "$BUNDLE")" = "$before" ]
  [ ! -e "$BUNDLE/rootfs/etc/x" ]
  leaves_nothing
}

@test "agent: --ephemeral under any new user namespace idmaps the lower layer; an already shifted rootfs is left as it is" {
  update_config '.linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
  sh_args 'stat -c %u /etc; echo x >/etc/x && echo wrote'
  agentrt run --ephemeral -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ] && [ "${lines[1]}" = wrote ]
  # A rootfs chowned to the mapping already (as containerd 1.7 and Podman shift one) must not
  # be mapped twice: its files are the container's root's as they are.
  chown -R 200000:200000 "$BUNDLE/rootfs"
  agentrt run --ephemeral -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ] && [ "${lines[1]}" = wrote ]
  [ "$(stat -c %u "$BUNDLE/rootfs/etc")" -eq 200000 ] && [ ! -e "$BUNDLE/rootfs/etc/x" ]
  leaves_nothing
}

# containerd's and Podman's rootfs is an overlay mount, which cannot be idmapped: its layers
# are (upperdir and lowerdir, from mountinfo), stacked under the writable layer in the same
# order, so the profile's root owns the image there too; the engine's own upper directory is
# not written.
@test "agent: a rootfs that is an overlay mount is taken apart into idmapped layers: the profile's root owns it" {
  local lower=$ROOT/lower
  mv "$BUNDLE/rootfs" "$lower"
  mkdir -p "$BUNDLE/rootfs" "$ROOT/upper" "$ROOT/work"
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$ROOT/upper,workdir=$ROOT/work" "$BUNDLE/rootfs"
  echo engine >"$BUNDLE/rootfs/etc/in-upper"
  sh_args 'stat -c %u /etc /etc/in-upper; cat /etc/in-upper; echo x >/etc/x && mkdir /root/a && echo wrote'
  agentrt run --agent -b "$BUNDLE" "$CID"
  umount "$BUNDLE/rootfs"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ] && [ "${lines[1]}" = 0 ] && [ "${lines[2]}" = engine ] && [ "${lines[3]}" = wrote ]
  [ "$(ls "$ROOT/upper" "$ROOT/upper/etc" | tr '\n' ' ')" = "$ROOT/upper: etc  $ROOT/upper/etc: in-upper " ]
  [ ! -e "$lower/etc/x" ]
  leaves_nothing
}

# containerd names the layers of a long list relative to a directory it changes to: those
# cannot be found again, and the overlay is used as it is, its root-owned files nobody's
# (65534) to the container's root; its own /tmp and new files are writable.
@test "agent: an overlay rootfs whose layers cannot be found again is used as it is, not idmapped" {
  mv "$BUNDLE/rootfs" "$ROOT/lower"
  mkdir -p "$BUNDLE/rootfs" "$ROOT/upper" "$ROOT/work"
  (cd "$ROOT" && mount -t overlay overlay -o lowerdir=lower,upperdir=upper,workdir=work "$BUNDLE/rootfs")
  sh_args 'stat -c %u /etc; echo x >/etc/x 2>/dev/null || echo denied; echo t >/tmp/t && cat /tmp/t'
  agentrt --log-level debug run --agent -b "$BUNDLE" "$CID"
  umount "$BUNDLE/rootfs"
  [ "$status" -eq 0 ]
  [[ $output == *"not idmapped: a layer of the rootfs's overlay is named by a relative path"* ]]
  [ "${lines[-3]}" = 65534 ] && [ "${lines[-2]}" = denied ] && [ "${lines[-1]}" = t ]
  [ -z "$(ls "$ROOT/upper")" ]
  leaves_nothing
}
