#!/usr/bin/env bats
# io.agentrt.net.allow in a pod on a CNI network (tests/lib/cni.sh builds it: Debian's bridge and
# host-local plugins, a node, a pod and a far side, each a network namespace of its own, with a
# NetworkPolicy stand-in on the node).  The runtime runs in the node's namespace, as containerd's
# shim does on a node.  A pod is made as containerd's CRI makes one: the sandbox (pause)
# container joins the pod's namespace by path, the other containers join the sandbox's
# (/proc/PID/ns/net), every config.json carries the pod's annotations and CRI's
# io.kubernetes.cri.container-type and -name.  Each scenario runs under agentrt and under runc,
# the control (no broker: the pod network as runc gives it).  The last tests drive the same
# through containerd's CRI plugin, with a private containerd in the node's namespace whose CNI
# configuration is this network.

load helpers
source "$BATS_TEST_DIRNAME/lib/cni.sh"
source "$BATS_TEST_DIRNAME/lib/cri.sh"

# What the pod's annotation allows: the far side's two endpoints (8081 is the one the policy
# rejects), the pod's own loopback (its sidecar), a name the pod's DNS knows.
POD_ALLOW="$CNI_FAR_IP:8080,$CNI_FAR_IP:8081,127.0.0.1:7070,far.agentrt.test:8080"

setup_file() {
  [ "$(id -u)" -eq 0 ] || skip "needs root"
  [ -x "$CNI_BIN/bridge" ] && [ -x "$CNI_BIN/host-local" ] ||
    skip "containernetworking-plugins is not installed"
  command -v iptables >/dev/null || skip "iptables is not installed"
  # Another run's network (alongside, or left by a killed one) is its own business: this run's
  # lives in a directory and namespaces of its own, and teardown_file checks only those.
  cni_up
  echo "${CNI_PIDS[*]}" >"$CNI_DIR/pids"
  export CNI_DIR CNI_NODE CNI_POD CNI_FAR
}

teardown_file() {
  [ -n "${CNI_DIR:-}" ] || return 0
  local dir=$CNI_DIR left
  read -r -a CNI_PIDS <"$CNI_DIR/pids" || true
  if [ -e "$CNI_DIR/cri.env" ]; then
    cri_cni_env
    cri_stop
  fi
  local d
  for d in /sys/fs/cgroup/*/"${CRI_CGPARENT:-none}"; do
    [ -d "$d" ] && rmdir "$d"
  done
  cni_down
  # Nothing of this run's network is left on the host, and nothing was ever made in its
  # namespace.
  left=$(cni_left "$dir")
  rm -f "$dir.host-links"
  [ -z "$left" ] || {
    echo "left on the host: $left" >&2
    return 1
  }
}

setup() {
  setup_root
  rootfs_busybox "$ROOT/rootfs"
  touch "$ROOT/rootfs/etc/resolv.conf" "$ROOT/rootfs/etc/hosts"
  # The pod's resolv.conf, as containerd writes it from the kubelet's DNS config.
  printf 'nameserver %s\noptions timeout:2 attempts:1\n' "$CNI_FAR_IP" >"$ROOT/resolv.conf"
  IDS=()
}

teardown() {
  local id
  for id in "${IDS[@]}"; do
    HANDLER=runc rt delete --force "$id" >/dev/null 2>&1 || true
  done
  # A failed CRI test's pod, so that the next one starts from none.
  if [ -e "$CNI_DIR/cri.env" ]; then
    cri_cni_env
    cri cleanup >/dev/null 2>&1 || true
  fi
  teardown_root
}

# agentrt's own commands run in the node's namespace too (the helpers' teardown included).
__agentrt() { nsenter --net="$CNI_NODE" "$AGENTRT" --root "$ROOT/state" "$@"; }

# rt ARGS…: the runtime of HANDLER, in the node's namespace, as a shim would run it.
rt() {
  case $HANDLER in
    agentrt) nsenter --net="$CNI_NODE" "$AGENTRT" --root "$ROOT/state" "$@" ;;
    runc) nsenter --net="$CNI_NODE" runc --root "$ROOT/runc" "$@" ;;
  esac
}

# start_ctr NAME NETNS ANNOTATIONS-JSON ARGS…: a container of the pod, detached; sets CTR_PID.
start_ctr() {
  local name=$1 netns=$2 ann=$3 b=$ROOT/b-$1 id=$1-$CID
  shift 3
  mkdir -p "$b"
  "$AGENTRT" spec --bundle "$b"
  # (jq --args would take a `-c` among them for its own option.)
  jq --arg r "$ROOT/rootfs" --arg n "$netns" --arg rc "$ROOT/resolv.conf" --argjson a "$ann" \
    --argjson args "$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@")" \
    '.root = {path: $r, readonly: true} | .process.terminal = false
     | .process.args = $args | .annotations = $a
     | .linux.namespaces = [.linux.namespaces[] | select(.type != "network")]
         + [{type: "network", path: $n}]
     | .mounts += [{destination: "/etc/resolv.conf", type: "bind", source: $rc,
                    options: ["rbind", "ro"]}]' \
    <"$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
  IDS+=("$id")
  # The container keeps the stdio it is given: a file, never a pipe bats waits on.
  status=0
  rt run -d -b "$b" "$id" </dev/null >"$ROOT/$name.out" 2>&1 || status=$?
  echo "run $name (status=$status): $(cat "$ROOT/$name.out")" >&2
  [ "$status" -eq 0 ]
  CTR_PID=$(rt state "$id" | jq -r .pid)
  [ "$CTR_PID" -gt 0 ]
}

# pod_up HANDLER [EXTRA-ANNOTATIONS-JSON]: the pod's sandbox (PAUSE_PID), the container `agent`
# (isolated: named in io.agentrt.net.allow.containers) with a server on :9090, and the
# container `sidecar` (not named: the pod network) with a server on :7070.
pod_up() {
  HANDLER=$1
  local extra=${2:-{\}} pod
  pod=$(jq -n -c --arg l "$POD_ALLOW" --argjson e "$extra" \
    '{"io.agentrt.net.allow": $l, "io.agentrt.net.allow.containers": "agent"} + $e')
  start_ctr pause "$CNI_POD" "$(jq -c '. + {"io.kubernetes.cri.container-type": "sandbox"}' <<<"$pod")" \
    sleep 600
  PAUSE_PID=$CTR_PID
  start_ctr sidecar "/proc/$PAUSE_PID/ns/net" \
    "$(jq -c '. + {"io.kubernetes.cri.container-type": "container",
                   "io.kubernetes.cri.container-name": "sidecar"}' <<<"$pod")" \
    sh -c 'while :; do echo sidecar | nc -l -p 7070; done'
  start_ctr agent "/proc/$PAUSE_PID/ns/net" \
    "$(jq -c '. + {"io.kubernetes.cri.container-type": "container",
                   "io.kubernetes.cri.container-name": "agent"}' <<<"$pod")" \
    sh -c 'while :; do echo inside | nc -l -p 9090; done'
  AGENT=agent-$CID SIDECAR=sidecar-$CID
}

# in_ctr ID CMD: CMD by sh -c in container ID (exec, as kubectl exec does).
in_ctr() {
  run rt exec "$1" sh -c "$2"
  echo "exec $1 [$2]: $status" >&2
  echo "$output" >&2
}

# connect_from_pod ADDR PORT: what a Service, a port-forward or a probe gets from the pod's
# namespace: the first bytes, or the errno's name.
connect_from_pod() {
  nsenter --net="$CNI_POD" python3 -c '
import errno, socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
    print(s.recv(100).decode().strip())
except OSError as e:
    print(errno.errorcode.get(e.errno, e))' "$1" "$2"
}

audit_has() { grep -F "$1" "$ROOT/state/$AGENT/audit.jsonl" | grep -qF "$2"; }

pod_network() {
  pod_up "$1"
  # The sandbox keeps the pod's namespace even with the annotation (CRI passes it the pod's
  # annotations too), so the pod's IP stays where the other containers find it.
  [ "$(stat -L -c %i "/proc/$PAUSE_PID/ns/net")" = "$(stat -L -c %i "$CNI_POD")" ]
  in_ctr "$SIDECAR" 'ls /sys/class/net'
  [ "$output" = "$(printf 'eth0\nlo')" ]
  in_ctr "$AGENT" 'ls /sys/class/net'
  if [ "$HANDLER" = agentrt ]; then
    [ "$output" = lo ]
  else
    [ "$output" = "$(printf 'eth0\nlo')" ]
  fi
}

@test "cni: the pod's sandbox and an unnamed container keep the pod network, a named one has loopback only (agentrt)" {
  pod_network agentrt
}

@test "cni: the same pod under runc (control)" {
  pod_network runc
}

pod_allowed() {
  pod_up "$1"
  in_ctr "$AGENT" "echo hi | nc -w 3 $CNI_FAR_IP 8080"
  [ "$status" -eq 0 ]
  # The far side sees the pod's address: the connection left from the pod's namespace.
  [ "$output" = "allowed:$CNI_POD_IP:hi" ]
  if [ "$HANDLER" = agentrt ]; then
    audit_has '"rule":"egress-allow"' "\"address\":\"$CNI_FAR_IP\""
  fi
}

@test "cni: an allowlisted endpoint answers through the broker, which connects with the pod's IP (agentrt)" {
  pod_allowed agentrt
}

@test "cni: the same endpoint under runc, directly (control)" {
  pod_allowed runc
}

pod_policy() {
  pod_up "$1"
  in_ctr "$AGENT" "nc -w 3 $CNI_FAR_IP 8081 </dev/null"
  [ "$status" -ne 0 ]
  [[ "$output" == *"Connection refused"* ]]
  # The policy is why: the node itself (not forwarding for the pod) reaches the server.
  run nsenter --net="$CNI_NODE" python3 -c "
import socket
print(socket.create_connection(('$CNI_FAR_IP', 8081), timeout=3).recv(100).decode())"
  [ "$output" = "policy:198.18.1.1:" ]
}

@test "cni: an allowlisted endpoint the pod's NetworkPolicy rejects is refused, ECONNREFUSED (agentrt)" {
  pod_policy agentrt
}

@test "cni: the same policy under runc (control)" {
  pod_policy runc
}

pod_unlisted() {
  pod_up "$1"
  in_ctr "$AGENT" "nc -w 3 $CNI_OTHER_IP 8080 </dev/null"
  if [ "$HANDLER" = agentrt ]; then
    [ "$status" -ne 0 ]
    [[ "$output" == *"Network is unreachable"* ]]
    audit_has '"rule":"egress-deny"' "\"address\":\"$CNI_OTHER_IP\""
    audit_has "\"address\":\"$CNI_OTHER_IP\"" '"errno":"ENETUNREACH"'
  else
    [ "$status" -eq 0 ]
    [ "$output" = "other:$CNI_POD_IP:" ]
  fi
  # A container of the pod that the annotation does not name reaches both, directly.
  in_ctr "$SIDECAR" "nc -w 3 $CNI_FAR_IP 8080 </dev/null; nc -w 3 $CNI_OTHER_IP 8080 </dev/null"
  [ "$status" -eq 0 ]
  [ "$output" = "allowed:$CNI_POD_IP:other:$CNI_POD_IP:" ]
}

@test "cni: an address not on the list is unreachable and audited; an unnamed container of the pod reaches it (agentrt)" {
  pod_unlisted agentrt
}

@test "cni: the same addresses under runc (control)" {
  pod_unlisted runc
}

pod_inbound() {
  pod_up "$1"
  if [ "$HANDLER" = agentrt ]; then
    # What listens in the isolated container is in its own namespace: not at the pod's IP
    # (a Service, a probe) nor on the pod's loopback (containerd's port-forward).
    [ "$(connect_from_pod "$CNI_POD_IP" 9090)" = ECONNREFUSED ]
    [ "$(connect_from_pod 127.0.0.1 9090)" = ECONNREFUSED ]
  else
    [ "$(connect_from_pod "$CNI_POD_IP" 9090)" = inside ]
    [ "$(connect_from_pod 127.0.0.1 9090)" = inside ]
  fi
  # The unnamed container's server is the pod's.
  [ "$(connect_from_pod "$CNI_POD_IP" 7070)" = sidecar ]
}

@test "cni: a server in the isolated container is not reachable from the pod's network (agentrt)" {
  pod_inbound agentrt
}

@test "cni: the same server under runc (control)" {
  pod_inbound runc
}

pod_loopback() {
  pod_up "$1"
  # 127.0.0.1 on the pod's list is the pod's loopback: its sidecar, never the node's.
  in_ctr "$AGENT" "nc -w 3 127.0.0.1 7070 </dev/null"
  [ "$status" -eq 0 ]
  [ "$output" = sidecar ]
}

@test "cni: 127.0.0.1 on the pod's list is the pod's own loopback (agentrt)" {
  pod_loopback agentrt
}

@test "cni: the same loopback under runc (control)" {
  pod_loopback runc
}

pod_names() {
  : >"$CNI_DIR/far.dns"
  pod_up "$1"
  in_ctr "$AGENT" "echo hi | nc -w 3 far.agentrt.test 8080"
  [ "$status" -eq 0 ]
  [[ "$output" == *"allowed:$CNI_POD_IP:hi" ]]
  # Resolved by the pod's DNS server, asked from the pod's address (agentrt: by the sandbox's
  # resolver, whose upstream queries leave from the pod's namespace with the pod's resolv.conf;
  # runc: by the container itself).
  grep -q "^$CNI_POD_IP far.agentrt.test 1\$" "$CNI_DIR/far.dns"
  if [ "$HANDLER" = agentrt ]; then
    # The container's DNS is the supervisor's (with the pod's options), its /etc/hosts has no
    # name, and the pod's DNS server cannot be asked directly.
    in_ctr "$AGENT" "cat /etc/resolv.conf; grep -c far.agentrt.test /etc/hosts"
    [[ "$output" == *"options timeout:2 attempts:1"*"nameserver 127.0.0.53"* ]]
    [[ "$output" == *0 ]]
    in_ctr "$AGENT" "nslookup far.agentrt.test $CNI_FAR_IP"
    [ "$status" -ne 0 ]
  fi
}

@test "cni: a name on the list is resolved in the pod's network, by the pod's DNS server (agentrt)" {
  pod_names agentrt
}

@test "cni: the same name under runc (control)" {
  pod_names runc
}

@test "cni: the node's addresses stay refused from the annotation (agentrt)" {
  HANDLER=agentrt
  start_ctr pause "$CNI_POD" '{"io.kubernetes.cri.container-type": "sandbox"}' sleep 600
  local a b=$ROOT/b-agent
  for a in "$CNI_NODE_IP:8080" 198.18.1.1:8080 169.254.169.254:80 0.0.0.0:80; do
    jq --arg p "/proc/$CTR_PID/ns/net" --arg a "$a" \
      '.annotations = {"io.agentrt.net.allow": $a, "io.kubernetes.cri.container-type": "container",
                       "io.kubernetes.cri.container-name": "agent"}
       | .linux.namespaces = [.linux.namespaces[] | select(.type != "network")]
           + [{type: "network", path: $p}]' "$ROOT/b-pause/config.json" >"$b.json"
    mkdir -p "$b" && mv "$b.json" "$b/config.json"
    agentrt create -b "$b" "x-$CID"
    [ "$status" -ne 0 ]
    [[ "$output" == *"annotation io.agentrt.net.allow: $a is an address of this host"*"from the pod's network"* ]]
  done
  [ "$(state_dirs_left)" -eq 1 ] # the pause
}

@test "cni: a name the pod's DNS does not know is NXDOMAIN in the container, asked from the pod's IP (agentrt)" {
  : >"$CNI_DIR/far.dns"
  pod_up agentrt '{"io.agentrt.net.allow": "nowhere.agentrt.test:80"}'
  in_ctr "$AGENT" "nslookup nowhere.agentrt.test"
  [ "$status" -ne 0 ]
  [[ "$output" == *"NXDOMAIN"* ]]
  grep -q "^$CNI_POD_IP nowhere.agentrt.test 1\$" "$CNI_DIR/far.dns"
}

@test "cni: a pod's resolv.conf that is no regular file fails create at once, naming it (agentrt)" {
  HANDLER=agentrt
  start_ctr pause "$CNI_POD" '{"io.kubernetes.cri.container-type": "sandbox"}' sleep 600
  mkfifo "$ROOT/fifo"
  mkdir -p "$ROOT/b-agent"
  jq --arg p "/proc/$CTR_PID/ns/net" --arg f "$ROOT/fifo" \
    '.annotations = {"io.agentrt.net.allow": "far.agentrt.test:8080",
                     "io.kubernetes.cri.container-type": "container",
                     "io.kubernetes.cri.container-name": "agent"}
     | .linux.namespaces = [.linux.namespaces[] | select(.type != "network")]
         + [{type: "network", path: $p}]
     | .mounts |= map(if .destination == "/etc/resolv.conf" then .source = $f else . end)' \
    "$ROOT/b-pause/config.json" >"$ROOT/b-agent/config.json"
  run timeout 20 nsenter --net="$CNI_NODE" "$AGENTRT" --root "$ROOT/state" create -b "$ROOT/b-agent" "x-$CID"
  echo "$output" >&2
  [ "$status" -eq 1 ]
  [[ "$output" == *"annotation io.agentrt.net.allow: the resolver's upstream: \`$ROOT/fifo\` (/etc/resolv.conf) is not a regular file"* ]]
  [ "$(state_dirs_left)" -eq 1 ] # the pause
}

@test "cni: the agent profile keeps the sandbox's pod network and connects from it (agentrt)" {
  pod_up agentrt '{"io.agentrt.profile": "agent"}'
  [ "$(stat -L -c %i "/proc/$PAUSE_PID/ns/net")" = "$(stat -L -c %i "$CNI_POD")" ]
  in_ctr "$AGENT" "ls /sys/class/net; echo hi | nc -w 3 $CNI_FAR_IP 8080; nc -w 3 $CNI_OTHER_IP 8080 </dev/null"
  [[ "$output" == "lo"*"allowed:$CNI_POD_IP:hi"*"Network is unreachable"* ]]
  # Under the profile, the container the list does not name has no network at all.
  in_ctr "$SIDECAR" 'ls /sys/class/net'
  [ "$output" = lo ]
}

# --- the same through containerd's CRI ---------------------------------------------------------

PAUSE_IMAGE=localhost/agentrt-test/pause:1
BUSYBOX_IMAGE=localhost/agentrt-test/busybox:1

# cri_cni_start: a private containerd (tests/lib/cri.sh) in the node's namespace, whose CNI
# configuration is this network (with host-local's state shared with cni_up's pod, so the CRI
# pod gets the next address).  The node's agentrt.conf lets pods name nothing of the node.
cri_cni_start() {
  if [ -e "$CNI_DIR/cri.env" ]; then
    cri_cni_env
    return 0
  fi
  command -v containerd >/dev/null || skip "containerd is not installed"
  "$CRI_PYTHON" -c 'import grpc' 2>/dev/null || skip "python3-grpcio is not installed"
  CRI_AGENTRT=$(realpath "$AGENTRT")
  CRI_TMP=$CNI_DIR/cri
  CRI_CGPARENT=agentrt-cni-$$-$RANDOM
  mkdir -p "$CRI_TMP/img/pause"
  gcc -static -O2 -o "$CRI_TMP/img/pause/pause" "$BATS_TEST_DIRNAME/pause/pause.c"
  oci_image_from_rootfs "$CRI_TMP/img/pause" "$CRI_TMP/img/pause.tar" "$PAUSE_IMAGE" /pause
  rootfs_busybox "$CRI_TMP/img/busybox"
  oci_image_from_rootfs "$CRI_TMP/img/busybox" "$CRI_TMP/img/busybox.tar" "$BUSYBOX_IMAGE"
  CRI_SANDBOX_IMAGE=$PAUSE_IMAGE CRI_NETNS=$CNI_NODE CRI_CNI_BIN=$CNI_BIN \
    CRI_CNI_CONFLIST=$(cni_conflist "$CNI_DIR") CRI_POD_ANNOTATIONS= \
    cri_start "$CRI_TMP/c" "$CRI_AGENTRT"
  ctr_ images import "$CRI_TMP/img/pause.tar" >/dev/null
  ctr_ images import "$CRI_TMP/img/busybox.tar" >/dev/null
  # For the next test and teardown_file, which run in shells of their own.
  printf '%s\n' "$CTRD_DIR" "$CTRD_SOCK" "$CTRD_PID" "$CTRD_NS" "$CRI_CGPARENT" "$CRI_AGENTRT" \
    >"$CNI_DIR/cri.env"
}

cri_cni_env() {
  { read -r CTRD_DIR; read -r CTRD_SOCK; read -r CTRD_PID; read -r CTRD_NS; read -r CRI_CGPARENT
    read -r CRI_AGENTRT; } <"$CNI_DIR/cri.env"
  CRI_TMP=$CNI_DIR/cri
}

cri_cni_pod() {
  local handler=$1 uid ctr ip
  cri_cni_start
  : >"$CNI_DIR/far.dns"
  uid=$(cat /proc/sys/kernel/random/uuid)
  run cri runp --handler "$handler" --name cni --uid "$uid" --namespace agentrt-test \
    --cgroup-parent "/$CRI_CGPARENT" --pod-network --dns-server "$CNI_FAR_IP" \
    --save "$CRI_TMP/$uid.pod" \
    --annotation "io.agentrt.net.allow=$CNI_FAR_IP:8080,far.agentrt.test:8081"
  echo "runp: $output" >&2
  [ "$status" -eq 0 ]
  local pod=$output
  ip=$(cri podstatus "$pod" | jq -r .ip)
  [[ "$ip" == 198.18.0.* ]]
  [ "$ip" != "$CNI_POD_IP" ]
  run cri create --pod "$pod" --pod-config "$CRI_TMP/$uid.pod" --name agent --image "$BUSYBOX_IMAGE" \
    --pod-network -- sleep 600
  echo "create: $output" >&2
  [ "$status" -eq 0 ]
  ctr=$output
  run cri start "$ctr"
  [ "$status" -eq 0 ]
  run cri exec-sync "$ctr" sh -c "echo hi | nc -w 3 $CNI_FAR_IP 8080"
  echo "$output" >&2
  [ "$status" -eq 0 ]
  [ "$output" = "allowed:$ip:hi" ]
  run cri exec-sync "$ctr" sh -c "nc -w 3 $CNI_OTHER_IP 8080 </dev/null 2>&1"
  echo "$output" >&2
  run cri exec-sync "$ctr" ls /sys/class/net
  echo "$output" >&2
  if [ "$handler" = agentrt ]; then
    [ "$output" = lo ]
    run cri exec-sync "$ctr" sh -c "nc -w 3 $CNI_OTHER_IP 8080 </dev/null 2>&1"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Network is unreachable"* ]]
    # The name is resolved by the pod's DNS (containerd's resolv.conf from the kubelet's DNS
    # config), asked from the pod's address by the sandbox's resolver, and is the far side's
    # policy-rejected port.
    run cri exec-sync "$ctr" sh -c "nc -w 3 far.agentrt.test 8081 </dev/null 2>&1"
    [[ "$output" == *"Connection refused"* ]]
    grep -q "^$ip far.agentrt.test 1\$" "$CNI_DIR/far.dns"
  else
    [ "$output" = "$(printf 'eth0\nlo')" ]
    run cri exec-sync "$ctr" sh -c "nc -w 3 $CNI_OTHER_IP 8080 </dev/null"
    [ "$status" -eq 0 ]
    [ "$output" = "other:$ip:" ]
  fi
  run cri stop "$ctr"
  [ "$status" -eq 0 ]
  run cri rm "$ctr"
  [ "$status" -eq 0 ]
  run cri stopp "$pod"
  [ "$status" -eq 0 ]
  run cri rmp "$pod"
  [ "$status" -eq 0 ]
  # containerd's CNI DEL gave the address back.
  [ ! -e "$CNI_DIR/ipam/$CNI_NETWORK/$ip" ]
  [ -z "$(cri listp)" ]
}

@test "cri: a pod on a CNI network with io.agentrt.net.allow connects with its IP, through the broker only (agentrt)" {
  cri_cni_pod agentrt
}

@test "cri: the same pod on the CNI network under runc (control)" {
  cri_cni_pod runc
}
