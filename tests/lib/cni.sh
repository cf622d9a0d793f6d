# A Kubernetes node's pod network, built by hand with Debian's CNI plugins (bridge, host-local)
# for tests/cni.bats, in network namespaces of its own: the host's network is never touched.
# Source this file after helpers.bash.
#
#   node  the node: the bridge artbr0 (198.18.0.1/24, the pods' gateway), made by the bridge
#         plugin run here as the kubelet's containerd runs it, and a veth to `far` (198.18.1.1);
#         it routes between the two and its FORWARD chain holds a NetworkPolicy stand-in:
#         pod traffic to 198.18.1.2:8081 is rejected with a TCP reset
#   pod   a pod's namespace: eth0 198.18.0.2/24 from host-local, default route via the bridge,
#         lo up (containerd's loopback plugin does that)
#   far   another machine of the cluster: 198.18.1.2 and 198.18.1.3, default route via the node;
#         TCP servers on 198.18.1.2:8080 ("allowed"), 198.18.1.2:8081 ("policy") and
#         198.18.1.3:8080 ("other"), each answering "TAG:PEER:" and what it read, and a DNS
#         server on 198.18.1.2:53 that knows far.agentrt.test (198.18.1.2) and logs each
#         query's source address
#
# Addresses are from 198.18.0.0/15 (RFC 2544's benchmarking range), reachable only inside these
# namespaces.  The namespaces are bind mounts of nsfs on files under CNI_DIR (not /run/netns,
# which `ip netns` would make a mount point of on the host); cni_down removes everything:
# servers (by pid), the CNI attachment (DEL), the mounts (the bridge and veths go with their
# namespaces) and CNI_DIR with host-local's state.

CNI_BIN=${CNI_BIN:-/usr/lib/cni}
CNI_POD_IP=198.18.0.2
CNI_NODE_IP=198.18.0.1
CNI_FAR_IP=198.18.1.2
CNI_OTHER_IP=198.18.1.3
CNI_NAME=agentrt-test
CNI_NETWORK=$CNI_NAME

# cni_conf DIR: the bridge network's configuration (a single plugin's; cni_conflist wraps it),
# with host-local's state under DIR.
cni_conf() {
  cat <<EOF
{ "cniVersion": "1.0.0", "name": "$CNI_NETWORK", "type": "bridge", "bridge": "artbr0",
  "isGateway": true, "ipMasq": false, "hairpinMode": false,
  "ipam": { "type": "host-local",
            "ranges": [[{ "subnet": "198.18.0.0/24", "gateway": "$CNI_NODE_IP" }]],
            "routes": [{ "dst": "0.0.0.0/0" }], "dataDir": "$1/ipam" } }
EOF
}

# cni_conflist DIR: the same as a list, with the loopback plugin, as containerd's conf_dir has it.
cni_conflist() {
  cat <<EOF
{ "cniVersion": "1.0.0", "name": "$CNI_NETWORK",
  "plugins": [ { "type": "bridge", "bridge": "artbr0", "isGateway": true, "ipMasq": false,
                 "hairpinMode": false,
                 "ipam": { "type": "host-local",
                           "ranges": [[{ "subnet": "198.18.0.0/24", "gateway": "$CNI_NODE_IP" }]],
                           "routes": [{ "dst": "0.0.0.0/0" }], "dataDir": "$1/ipam" } } ] }
EOF
}

# in_ns NAME CMD…: CMD in namespace NAME (node, pod or far), nothing else of ours changed.
in_ns() {
  local ns=$1
  shift
  nsenter --net="$CNI_DIR/ns/$ns" "$@"
}

cni_plugin() {
  in_ns node env CNI_COMMAND="$1" CNI_CONTAINERID="art-$$" CNI_NETNS="$CNI_DIR/ns/pod" \
    CNI_IFNAME=eth0 CNI_PATH="$CNI_BIN" "$CNI_BIN/bridge" <"$CNI_DIR/cni.json"
}

# cni_up: the namespaces, the pod's attachment and the far side's servers.  Sets CNI_DIR,
# CNI_NODE, CNI_POD, CNI_FAR (the namespaces' files) and CNI_PIDS (the servers).
cni_up() {
  local ns
  CNI_DIR=$(mktemp -d "${BATS_RUN_TMPDIR:-/tmp}/cni.XXXXXX") || return 1
  chmod 0711 "$CNI_DIR"
  # Next to CNI_DIR, so that cni_down's rm leaves it for teardown_file's check.
  { cni_host_links; echo "-"; } >"$CNI_DIR.host-links"
  CNI_PIDS=()
  mkdir -p "$CNI_DIR/ns"
  for ns in node pod far; do
    touch "$CNI_DIR/ns/$ns" && unshare --net="$CNI_DIR/ns/$ns" true || return 1
    in_ns "$ns" ip link set lo up || return 1
  done
  CNI_NODE=$CNI_DIR/ns/node CNI_POD=$CNI_DIR/ns/pod CNI_FAR=$CNI_DIR/ns/far
  cni_conf "$CNI_DIR" >"$CNI_DIR/cni.json"
  cni_plugin ADD >"$CNI_DIR/add.json" || return 1
  [ "$(jq -r '.ips[0].address' "$CNI_DIR/add.json")" = "$CNI_POD_IP/24" ] || return 1
  # The far side, through the node (the bridge plugin, isGateway, turned on forwarding there).
  in_ns node ip link add artfar0 type veth peer name eth0 netns "$CNI_FAR" || return 1
  in_ns node ip addr add 198.18.1.1/24 dev artfar0 &&
    in_ns node ip link set artfar0 up &&
    in_ns far ip addr add "$CNI_FAR_IP/24" dev eth0 &&
    in_ns far ip addr add "$CNI_OTHER_IP/24" dev eth0 &&
    in_ns far ip link set eth0 up &&
    in_ns far ip route add default via 198.18.1.1 || return 1
  in_ns node iptables -A FORWARD -s 198.18.0.0/24 -d "$CNI_FAR_IP" -p tcp --dport 8081 \
    -j REJECT --reject-with tcp-reset || return 1
  cni_servers
}

# The servers: nsenter execs python3, so $! is the server itself; its output goes to a file (a
# process left holding bats' output would make bats wait for it).
cni_servers() {
  nsenter --net="$CNI_DIR/ns/far" python3 - "$CNI_DIR/far" "$CNI_FAR_IP" "$CNI_OTHER_IP" \
    <<'PY' >"$CNI_DIR/far.log" 2>&1 3>&- &
import os, socket, struct, sys, threading
log, far, other = sys.argv[1], sys.argv[2], sys.argv[3]
def tcp(addr, port, tag):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    def answer(c, peer):
        c.settimeout(1)
        try:
            data = c.recv(4096)
        except OSError:
            data = b""
        c.sendall(b"%s:%s:%s" % (tag, peer.encode(), data))
        c.close()
    def loop():
        while True:
            c, peer = s.accept()
            threading.Thread(target=answer, args=(c, peer[0]), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
def dns():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((far, 53))
    while True:
        q, peer = s.recvfrom(512)
        labels, i = [], 12
        while q[i]:
            labels.append(q[i + 1:i + 1 + q[i]].decode())
            i += 1 + q[i]
        name, qtype = ".".join(labels), struct.unpack(">H", q[i + 1:i + 3])[0]
        question = q[12:i + 5]
        with open(log + ".dns", "a") as f:
            f.write("%s %s %d\n" % (peer[0], name, qtype))
        known = name == "far.agentrt.test"
        answers = b""
        if known and qtype == 1:
            answers = struct.pack(">HHHIH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton(far)
        flags = 0x8180 if known else 0x8183
        s.sendto(q[:2] + struct.pack(">HHHHH", flags, 1, 1 if answers else 0, 0, 0)
                 + question + answers, peer)
tcp(far, 8080, b"allowed")
tcp(far, 8081, b"policy")
tcp(other, 8080, b"other")
threading.Thread(target=dns, daemon=True).start()
open(log + ".ready", "w").close()
threading.Event().wait()
PY
  CNI_PIDS+=($!)
  wait_for "the far side's servers" test -e "$CNI_DIR/far.ready"
}

# cni_down: everything cni_up made, whatever state it is in.
cni_down() {
  [ -n "${CNI_DIR:-}" ] || return 0
  local p ns
  for p in "${CNI_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${CNI_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  CNI_PIDS=()
  [ -e "$CNI_DIR/cni.json" ] && cni_plugin DEL >/dev/null 2>&1
  for ns in pod far node; do
    umount "$CNI_DIR/ns/$ns" 2>/dev/null || true
  done
  rm -rf "$CNI_DIR"
  CNI_DIR=
}

# cni_host_links: the host's links with the names cni_up gives in its own namespaces (none,
# unless one was made on the host by mistake).
cni_host_links() {
  ip -br link show 2>/dev/null | awk '$1 ~ /^(artbr0|artfar0)/ { print $1 }'
}

# cni_left DIR: what of the test network cni_up made in DIR is left on the host (its namespaces'
# mounts, and links of its names on the host that were not there before it, CNI_DIR's
# host-links; processes in one of its namespaces are not: they would hold it); one line each.
# Only this run's: another run's network (running alongside, or left by one that was killed) is
# neither reported nor in the way, as each lives in its own directory and namespaces.
cni_left() {
  local dir=$1
  [ -n "$dir" ] || return 0
  awk -v d="$dir/ns/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo
  cni_host_links | grep -vxF -f "$dir.host-links" 2>/dev/null || true
}
