#!/usr/bin/env bats
# The strict policy (agentrt-policy(7)): an allowlist of syscalls, what is off it refused with
# ENOSYS and audited (aggregated), socket, ioctl, prctl, fcntl, madvise and mremap narrowed by
# argument; how it is chosen (--policy, io.agentrt.policy, the agent profile, agentrt.conf),
# and that the default policy is unchanged.  Seen from the workload with tests/probe/strict_probe.c.
load helpers

setup() {
  setup_busybox
  build_strict_probe "$BUNDLE/rootfs"
}
teardown() { teardown_root; }

# build_strict_probe ROOTFS: the static probe, built once per run, copied to ROOTFS/bin.
build_strict_probe() {
  local dir=${BATS_RUN_TMPDIR:-/tmp}/strict_probe fd rc=0
  mkdir -p "$dir"
  exec {fd}>"$dir/lock"
  flock "$fd"
  if [ ! -x "$dir/strict_probe" ] || [ "$BATS_TEST_DIRNAME/probe/strict_probe.c" -nt "$dir/strict_probe" ]; then
    gcc -static -O2 -Wall -Wextra -Werror -o "$dir/strict_probe.new" \
      "$BATS_TEST_DIRNAME/probe/strict_probe.c" && mv -f "$dir/strict_probe.new" "$dir/strict_probe" || rc=$?
  fi
  exec {fd}>&-
  [ "$rc" -eq 0 ] || return "$rc"
  cp "$dir/strict_probe" "$1/bin/strict_probe"
}

# probe_args CALL…: the container runs the probe with these calls.
probe_args() {
  update_config --argjson a "$(jq -nc '$ARGS.positional' --args "$@")" '.process.args = ["/bin/strict_probe"] + $a'
}

LOG() { echo "$ROOT/audit.jsonl"; }

# records RULE: the audit log's records of RULE, one JSON object a line.
records() { jq -c --arg r "$1" 'select(.rule == $r)' "$(LOG)"; }

@test "strict: a call off the allowlist gets ENOSYS and a warn record, repeats aggregated" {
  probe_args shmdt syncfs getppid repeat-shmdt 200
  agentrt run --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt ENOSYS"* ]]
  [[ "$output" == *"syncfs ENOSYS"* ]]
  [[ "$output" == *"getppid ok"* ]]
  [[ "$output" == *"repeat-shmdt 0 ok, last ENOSYS"* ]]
  [ "$(records refuse-strict | jq -r 'select(.syscall == "syncfs") | "\(.verdict) \(.errno) \(.severity)"')" = "deny ENOSYS warn" ]
  # 201 calls of shmdt, counted in a few records: the first, then aggregates with a count.
  [ "$(records refuse-strict | jq -s '[.[] | select(.syscall == "shmdt") | .count // 1] | add')" -eq 201 ]
  [ "$(records refuse-strict | jq -s '[.[] | select(.syscall == "shmdt")] | length')" -le 3 ]
  leaves_nothing
}

@test "strict: the default policy does not change: the same calls reach the kernel, unaudited" {
  probe_args shmdt syncfs ioctl-tiocsetd prctl-set-name madvise-mergeable mremap-dontunmap socket-netlink-audit
  agentrt run --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt EINVAL"* ]]  # the kernel's own answer
  [[ "$output" == *"syncfs EBADF"* ]]
  [[ "$output" == *"madvise-mergeable ok"* ]]
  [[ "$output" == *"mremap-dontunmap ok"* ]]
  [[ "$output" == *"socket-netlink-audit ok"* ]]
  [ -z "$(jq -c 'select(.rule // "" | startswith("refuse-strict"))' "$(LOG)")" ]
  leaves_nothing
}

@test "strict: socket: AF_PACKET, raw, non-route netlink, MPTCP, UDP-Lite and SCTP sockets refused; TCP, UDP, ping and netlink route work" {
  probe_args socket-inet socket-raw socket-packet socket-netlink-route socket-netlink-audit \
    socket-tcp socket-ping socket-mptcp socket-udplite socket-sctp
  agentrt run --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"socket-inet ok"* ]]
  [[ "$output" == *"socket-raw EAFNOSUPPORT"* ]]
  [[ "$output" == *"socket-packet EAFNOSUPPORT"* ]]
  [[ "$output" == *"socket-netlink-route ok"* ]]
  [[ "$output" == *"socket-netlink-audit EAFNOSUPPORT"* ]]
  [[ "$output" == *"socket-tcp ok"* ]]
  # A ping socket may still be refused by the kernel (net.ipv4.ping_group_range), not by us.
  [[ "$output" == *"socket-ping ok"* || "$output" == *"socket-ping EACCES"* ]]
  [[ "$output" == *"socket-mptcp EAFNOSUPPORT"* ]]
  [[ "$output" == *"socket-udplite EAFNOSUPPORT"* ]]
  [[ "$output" == *"socket-sctp EAFNOSUPPORT"* ]]
  [ "$(records refuse-strict-socket | jq -s 'map(.count // 1) | add')" -eq 6 ]
  leaves_nothing
}

@test "strict: ioctl, prctl, fcntl, madvise, mremap outside their lists refused and audited" {
  probe_args ioctl-fionread ioctl-tiocsetd ioctl-other prctl-set-name prctl-set-mm fcntl-getfd \
    fcntl-setlease madvise-dontneed madvise-mergeable mremap-dontunmap
  agentrt run --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"ioctl-fionread ok"* ]]
  [[ "$output" == *"ioctl-tiocsetd ENOTTY"* ]]
  [[ "$output" == *"ioctl-other ENOTTY"* ]]
  [[ "$output" == *"prctl-set-name ok"* ]]
  [[ "$output" == *"prctl-set-mm EINVAL"* ]]
  [[ "$output" == *"fcntl-getfd ok"* ]]
  [[ "$output" == *"madvise-dontneed ok"* ]]
  [[ "$output" == *"madvise-mergeable EINVAL"* ]]
  [[ "$output" == *"mremap-dontunmap EINVAL"* ]]
  [ "$(records refuse-strict-ioctl | jq -s -r 'map(.args.request) | sort | join(" ")')" = "0x1234 0x5423" ]
  [ "$(records refuse-strict-prctl | jq -s length)" -eq 1 ]
  [ "$(records refuse-strict-fcntl | jq -r '.args[1]')" = 0x400 ] # F_SETLEASE
  [ "$(records refuse-strict-madvise | jq -r '.args[2]')" = 0xc ]  # MADV_MERGEABLE
  [ "$(records refuse-strict-mremap | jq -s length)" -eq 1 ]
  leaves_nothing
}

@test "strict: the agent profile uses it, state.json records it, --policy default turns it off" {
  probe_args shmdt socket-packet
  agentrt run --agent --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt ENOSYS"* ]]
  [ -n "$(records refuse-strict)" ]
  agentrt_detached create --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq -r .policy "$ROOT/state/$CID/state.json")" = strict ]
  [ "$(jq -r '.annotations["io.agentrt.policy"]' "$ROOT/state/$CID/state.json")" = strict ]
  agentrt delete --force "$CID"
  agentrt run --agent --policy default -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt EINVAL"* ]]
  leaves_nothing
}

@test "strict: io.agentrt.policy=strict selects it; =default under the agent profile is the operator's" {
  probe_args shmdt
  update_config '.annotations["io.agentrt.policy"] = "strict"'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt ENOSYS"* ]]
  update_config '.annotations["io.agentrt.policy"] = "lax"'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"annotation io.agentrt.policy: \`lax\`: expected default or strict"* ]]
  update_config '.annotations["io.agentrt.policy"] = "default"'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"annotation io.agentrt.policy=default under the agent profile turns the strict allowlist off"* ]]
  agentrt run --policy lax -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"--policy: \`lax\`: expected default or strict"* ]]
  leaves_nothing
}

@test "strict: agentrt.conf's policy = strict applies to containers that name none, and config.json may not lower it" {
  local conf="$ROOT/agentrt.conf"
  printf 'policy = strict\n' >"$conf"
  chmod 0600 "$conf"
  probe_args shmdt
  agentrt --config "$conf" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt ENOSYS"* ]]
  # The node's floor: a pod's annotation does not take it away…
  update_config '.annotations["io.agentrt.policy"] = "default"'
  agentrt --config "$conf" run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"annotation io.agentrt.policy=default: agentrt.conf's policy = strict is the operator's floor"* ]]
  leaves_nothing
  # …unless the operator lets pods set it; the operator's own flag may.
  printf 'policy = strict\npod_annotations = io.agentrt.policy\n' >"$conf"
  agentrt --config "$conf" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt EINVAL"* ]]
  update_config 'del(.annotations["io.agentrt.policy"])'
  printf 'policy = strict\n' >"$conf"
  agentrt --config "$conf" run --policy default -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt EINVAL"* ]]
  leaves_nothing
}

@test "strict: a process exec'd into a strict container is under it too" {
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" /bin/strict_probe shmdt getppid
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt ENOSYS"* ]]
  [[ "$output" == *"getppid ok"* ]]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "strict: on the ptrace platform too: ENOSYS and a record from the tracer" {
  probe_args shmdt getppid ioctl-tiocsetd
  agentrt run --platform ptrace --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"shmdt ENOSYS"* ]]
  [[ "$output" == *"getppid ok"* ]]
  [[ "$output" == *"ioctl-tiocsetd ENOTTY"* ]]
  [ "$(records refuse-strict | jq -r .syscall)" = shmdt ]
  [ -n "$(records refuse-strict-ioctl)" ]
  leaves_nothing
}

@test "strict: busybox's shell and tools run under it without a refusal" {
  update_config '.root.readonly = false | .process.args = ["/bin/sh", "-c",
    "mkdir -p /tmp/d && cd /tmp/d && echo hi > f && cp f g && ls -la >/dev/null && tar cf t.tar f g && tar tf t.tar >/dev/null && ps >/dev/null && (sleep 0.1 &) && wait && sort f | uniq | wc -l && id -u && date >/dev/null && echo done"]'
  agentrt run --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *done* ]]
  [ -z "$(jq -c 'select(.rule // "" | startswith("refuse-strict"))' "$(LOG)")" ]
  leaves_nothing
}

# What tests/supervisor.bats's python scenario runs, and more: processes, threads, asyncio,
# sqlite, glibc's resolver with AI_ADDRCONFIG (a netlink route socket; the rootfs has no
# /etc/hosts).
PY_STRICT='import json, os, re, subprocess, threading, multiprocessing, asyncio, sqlite3, socket, ssl
def sq(x): return x * x
if __name__ == "__main__":
    with multiprocessing.Pool(2) as p: assert p.map(sq, [1, 2, 3]) == [1, 4, 9]
    async def a(): await asyncio.sleep(0.01); return 1
    assert asyncio.run(a()) == 1
    assert subprocess.run(["true"]).returncode == 0
    sqlite3.connect("/tmp/db").execute("create table t(x)")
    socket.getaddrinfo("127.0.0.1", 80, flags=socket.AI_ADDRCONFIG)
    print("python ok")'

@test "strict: python3 and pip run under it without a refusal" {
  local rootfs
  rootfs=$(debian_rootfs)
  update_config --arg r "$rootfs" --arg py "$PY_STRICT" '.root = {path: $r, readonly: true} |
    .mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]}] |
    .process.env += ["PY_STRICT=" + $py] |
    .process.args = ["/bin/sh", "-c", "python3 -c \"$PY_STRICT\" && pip --version"]'
  agentrt run --policy strict --audit-log "$(LOG)" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"python ok"* ]]
  [[ "$output" == *"pip "*" from /usr/lib/python3/dist-packages/pip"* ]]
  [ -z "$(jq -c 'select(.rule // "" | startswith("refuse-strict"))' "$(LOG)")" ]
  leaves_nothing
}

@test "strict: agentrt policy show --tier strict: at most 200 calls reach the kernel on x86_64" {
  local n
  agentrt policy show --arch x86_64 --tier strict
  [ "$status" -eq 0 ]
  [[ "${lines[-1]}" == "policy strict (x86_64): reachable in the kernel: "* ]]
  n=$(sed -E 's/.*reachable in the kernel: ([0-9]+) .*/\1/' <<<"${lines[-1]}")
  [ "$n" -le 200 ]
  grep -qE '^shmget +[0-9]+ +deny +- +deny:ENOSYS +warn +refuse-strict$' <<<"$output"
  grep -qE '^read +0 +allow ' <<<"$output"
  agentrt policy show --arch x86_64
  [[ "${lines[-1]}" == "policy default (x86_64): reachable in the kernel: "* ]]
  [ "$(sed -E 's/.*reachable in the kernel: ([0-9]+) .*/\1/' <<<"${lines[-1]}")" -gt "$n" ]
  agentrt policy show --tier lax
  [ "$status" -ne 0 ]
  [[ "$output" == *"--tier: expected default or strict, not \`lax\`"* ]]
}
