#!/usr/bin/env bats
# The egress broker (--net-allow, io.agentrt.net.allow): the container has loopback only, and the
# supervisor connects allowlisted TCP endpoints for it, as the host sees them.  Every server here
# is one the test starts on the host's loopback and kills by pid: no address off this machine.
load helpers

setup() {
  setup_busybox
  SERVER_PIDS=()
  AUDIT="$ROOT/audit.jsonl"
}
teardown() {
  servers_stop
  teardown_root
}

in_container() { update_config --arg c "$1" '.process.args = ["/bin/sh", "-c", $c]'; }

@test "egress: an allowlisted host endpoint answers, data both ways, and it is audited" {
  serve 127.0.0.1 host
  in_container "echo ping | nc 127.0.0.1 $PORT"
  agentrt run --audit-log "$AUDIT" --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"host:ping"* ]]
  grep '"rule":"egress-allow"' "$AUDIT" | grep -q "\"port\":$PORT"
}

@test "egress: another port and another address are refused, each denial audited" {
  serve 127.0.0.1 allowed
  local allowed=$PORT
  serve 127.0.0.1 other
  in_container "nc 127.0.0.1 $PORT </dev/null; echo rc1=\$?; nc 10.255.255.1 80 </dev/null; echo rc2=\$?"
  agentrt run --audit-log "$AUDIT" --net-allow "127.0.0.1:$allowed,10.255.255.1:443" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # The host's other port is not reachable: 127.0.0.1 is the container's own loopback.
  [[ "$output" == *"rc1=1"* ]] && [[ "$output" != *"other:"* ]]
  [[ "$output" == *"Connection refused"* ]]
  grep '"rule":"egress-local"' "$AUDIT" | grep -q "\"port\":$PORT"
  # An allowlisted address on another port: refused, as a host that is up refuses it.
  [[ "$output" == *"rc2=1"* ]]
  grep '"rule":"egress-deny"' "$AUDIT" | grep '"address":"10.255.255.1"' | grep -q '"errno":"ECONNREFUSED"'
}

@test "egress: an address not on the list is unreachable and audited" {
  serve 127.0.0.1 allowed
  in_container "nc 192.0.2.7 $PORT </dev/null; echo rc=\$?"
  agentrt run --audit-log "$AUDIT" --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"rc=1"* ]] && [[ "$output" == *"Network is unreachable"* ]]
  grep '"rule":"egress-deny"' "$AUDIT" | grep '"address":"192.0.2.7"' | grep -q '"errno":"ENETUNREACH"'
}

@test "egress: IPv6, [::1]:port" {
  serve ::1 six
  in_container "echo v6 | nc ::1 $PORT"
  agentrt run --audit-log "$AUDIT" --net-allow "[::1]:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"six:v6"* ]]
  grep '"rule":"egress-allow"' "$AUDIT" | grep -q '"address":"::1"'
}

@test "egress: the container's own loopback servers keep working" {
  serve 127.0.0.1 host
  in_container "(echo inside | nc -l -p 7007 &) ; sleep 0.3; nc 127.0.0.1 7007 </dev/null"
  agentrt run --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"inside"* ]]
}

# A brokered non-blocking connect completes before it returns (0, which a non-blocking connect
# may return): the workload never holds an unconnected socket of the host's namespace.
@test "egress: non-blocking connect (connected at once, writable, O_NONBLOCK and options kept), python3" {
  local rootfs
  rootfs=$(debian_rootfs)
  serve 127.0.0.1 py
  update_config --arg r "$rootfs" '.root = {path: $r, readonly: true}'
  in_container "python3 -c '
import errno, fcntl, os, select, socket
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
s.setblocking(False)
r = s.connect_ex((\"127.0.0.1\", $PORT))
print(\"connect\", errno.errorcode.get(r, r))
_, w, _ = select.select([], [s], [], 5)
print(\"writable\", bool(w), \"so_error\", s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))
print(\"nodelay\", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
print(\"nonblocking\", bool(fcntl.fcntl(s.fileno(), fcntl.F_GETFL) & os.O_NONBLOCK))
s.setblocking(True)
s.sendall(b\"nb\")
print(s.recv(100).decode())
c = socket.create_connection((\"127.0.0.1\", $PORT), timeout=5)
c.sendall(b\"timeout\")
print(c.recv(100).decode())
try:
    socket.create_connection((\"192.0.2.9\", 80), timeout=2)
except OSError as e:
    print(\"denied\", errno.errorcode[e.errno])
'"
  # --ephemeral: what create mounts for the allowlist (/etc/hosts…) is not written into the
  # shared rootfs.
  agentrt run --ephemeral --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"connect 0"* ]]
  [[ "$output" == *"writable True so_error 0"* ]]
  [[ "$output" == *"nonblocking True"* ]]
  [[ "$output" == *"nodelay 1"* ]]
  [[ "$output" == *"py:nb"* ]]
  [[ "$output" == *"py:timeout"* ]]
  [[ "$output" == *"denied ENETUNREACH"* ]]
}

@test "egress: the annotation does the same as the flag" {
  serve 127.0.0.1 anno
  in_container "echo a | nc 127.0.0.1 $PORT"
  update_config --arg v "127.0.0.1:$PORT" '.annotations["io.agentrt.net.allow"] = $v'
  # The host's loopback is the operator's to allow (tests/operator.bats).
  echo "pod_annotations = io.agentrt.net.allow" >"$ROOT/agentrt.conf"
  agentrt --config "$ROOT/agentrt.conf" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"anno:a"* ]]
}

@test "egress: a config without a network namespace gets one, and so does one joining ours" {
  serve 127.0.0.1 host
  update_config '.linux.namespaces |= map(select(.type != "network"))'
  in_container "ls /sys/class/net; echo x | nc 127.0.0.1 $PORT"
  agentrt run --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(grep -cv -e '^lo$' -e 'host:' <<<"$output")" -eq 0 ]
  [[ "$output" == *"host:x"* ]]
  # The caller's own namespace (a hostNetwork pod's containers join the pause's, which is the
  # node's): the container gets one of its own, and the broker connects from ours as above.
  update_config '.linux.namespaces += [{type: "network", path: "/proc/self/ns/net"}]'
  in_container "ls /sys/class/net; echo y | nc 127.0.0.1 $PORT"
  agentrt run --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(grep -cv -e '^lo$' -e 'host:' <<<"$output")" -eq 0 ]
  [[ "$output" == *"host:y"* ]]
  leaves_nothing
}

@test "egress: a network namespace path that is not one fails create naming it" {
  update_config '.linux.namespaces |= map(select(.type != "network")) + [{type: "network", path: "/proc/self/ns/uts"}]'
  agentrt create --net-allow 127.0.0.1:80 -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"--net-allow: \`/proc/self/ns/uts\` is not a network namespace"* ]]
  update_config '.linux.namespaces |= map(select(.type != "network")) + [{type: "network", path: "/nonexistent/net"}]'
  agentrt create --net-allow 127.0.0.1:80 -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"--net-allow: network namespace \`/nonexistent/net\`"* ]]
  leaves_nothing
}

@test "egress: joining a network namespace with loopback only is allowed (a pod's, under CRI)" {
  # As containerd's CRI does for a hostNetwork pod's containers under the agent profile: they
  # join the sandbox's namespace, which the profile made loopback-only (tests/cni.bats has the
  # pods with a CNI network).
  serve 127.0.0.1 pod
  unshare --net sleep 1000 &
  SERVER_PIDS+=($!)
  update_config --arg p "/proc/$!/ns/net" \
    '.linux.namespaces |= map(select(.type != "network")) + [{type: "network", path: $p}]'
  in_container "ls /sys/class/net; echo y | nc 127.0.0.1 $PORT"
  agentrt run --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(grep -cv -e '^lo$' -e 'pod:' <<<"$output")" -eq 0 ]
  [[ "$output" == *"pod:y"* ]]
  leaves_nothing
}

@test "egress: a bad --net-allow fails create naming the flag, and leaves nothing" {
  local bad
  for bad in "" "127.0.0.1" "127.0.0.1:0" "127.0.0.1:70000" "[::1:80" "::1:80" "a b:80" \
    "127.0.0.1:80," "*:80" "*.:443" "host:80@relative/path"; do
    agentrt create --net-allow "$bad" -b "$BUNDLE" "$CID"
    [ "$status" -ne 0 ]
    [[ "$output" == *"--net-allow"* ]]
    leaves_nothing
  done
  update_config '.annotations["io.agentrt.net.allow"] = "x:y"'
  agentrt create -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"annotation io.agentrt.net.allow"* ]]
  agentrt create --platform none --net-allow 127.0.0.1:80 -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"--net-allow"*"--platform none"* ]]
  leaves_nothing
}

@test "egress: rewriting the sockaddr after the check cannot redirect the connection" {
  serve 127.0.0.1 allowed
  local allowed=$PORT
  serve 127.0.0.1 other
  gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$BUNDLE/rootfs/bin/egress_race" \
    "$BATS_TEST_DIRNAME/probe/egress_race.c"
  update_config --arg a "$allowed" --arg o "$PORT" '.process.args = ["/bin/egress_race", $a, $o, "3"]'
  agentrt run --net-allow "127.0.0.1:$allowed" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"other=0 "* ]]
  # The race ran both ways: some connects were allowlisted, some went to the container's own
  # loopback (refused).
  [[ "$output" =~ allowed=[1-9] ]] && [[ "$output" =~ failed=[1-9] ]]
}

@test "egress: swapping the fd under an AF_UNIX connect never disconnects a brokered socket" {
  serve 127.0.0.1 allowed
  gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$BUNDLE/rootfs/bin/unix_race" \
    "$BATS_TEST_DIRNAME/probe/unix_race.c"
  mkdir -p "$BUNDLE/rootfs/tmp"
  update_config --arg p "$PORT" '.root.readonly = false | .process.args = ["/bin/unix_race", $p, "3"] | .process.cwd = "/tmp"'
  agentrt run --net-allow "127.0.0.1:$PORT" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # Relative and `..` paths resolved in the caller's cwd; the TCP socket was brokered (of the
  # host's namespace), stayed connected to its endpoint, and the race did connect unix sockets.
  [[ "$output" == *"relative=1 brokered=1 "* ]]
  [[ "$output" == *" lost=0"* ]]
  [[ "$output" =~ unix_ok=[1-9] ]]
}
