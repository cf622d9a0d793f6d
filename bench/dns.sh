#!/bin/bash
# bench/dns.sh: the cost of egress by name (issue 16), agentrt against crun with the host's
# network (the floor: no resolver of ours, no broker; runc when crun cannot run here, as on a
# hybrid cgroup layout whose cgroup2 holds a controller: the table says which).  Both ask the same dnsmasq on the host's
# loopback (127.0.0.77:53, a cache of its own names: --host-record), crun directly through the
# container's resolv.conf, agentrt through the sandbox's resolver (127.0.0.53, served by the
# supervisor, whose upstream is that dnsmasq: agentrt.conf's dns_servers).  Same Debian rootfs
# (tests/lib/debian.sh), same Python loop (its median per-operation time over BENCH_DNS_RUNS
# containers of BENCH_DNS_N operations each):
#
#   gai-hosts     glibc's getaddrinfo of localhost (/etc/hosts, no DNS): the control, what NSS's
#                 file reads cost in each (agentrt's rootfs is an overlay here, --ephemeral)
#   udp-sendto    socket, sendto, recv, close: a stub that never connects its UDP socket
#                 (musl, Go): no notify round trip under agentrt
#   udp-connect   socket, connect, send, recv, close: glibc's stub (one: the connect, answered
#                 by the supervisor without the broker)
#   getaddrinfo   glibc's getaddrinfo (A and AAAA, in parallel, over one connected socket)
#   connect-name  getaddrinfo, then a TCP connect to the answer and close (agentrt: the broker's
#                 connect, issue 7's cost, on top)
#
# Answers are cached after the first (dnsmasq's host records; the sandbox's resolver's cache, for
# their TTL of 60 s).  Prints a markdown table.  Needs root, crun or runc, dnsmasq, jq.
#
#   bench/dns.sh [AGENTRT]
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(dirname "$BENCH_DIR")
AGENTRT=$(realpath "${1:-${AGENTRT:-$SRC_DIR/agentrt}}")
N=${BENCH_DNS_N:-2000}
RUNS=${BENCH_DNS_RUNS:-5}
ADDR=127.0.0.77
NAME=pypi.bench.test
source "$SRC_DIR/tests/lib/debian.sh"
die() {
  echo "bench/dns.sh: $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/agentrt-bench-dns.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -z "${FLOOR:-}" ] || $FLOOR --root "$work/floor" delete --force bench-dns-floor >/dev/null 2>&1 || true
  "$AGENTRT" --root "$work/agentrt" delete --force bench-dns-agentrt >/dev/null 2>&1 || true
  ! mountpoint -q "$work/merged" || umount "$work/merged"
  rm -rf "$work"
}
trap cleanup EXIT

rootfs=$(debian_rootfs)
# The floor's rootfs: an overlay of the cached one, so that the mount targets it makes (/bench,
# /etc/hosts) land here and never in the cache (agentrt runs --ephemeral, its own overlay).
mkdir -p "$work/upper" "$work/ovwork" "$work/merged"
mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$work/upper,workdir=$work/ovwork" "$work/merged"
dnsmasq --keep-in-foreground --no-resolv --no-hosts --bind-interfaces --listen-address=$ADDR \
  --port=53 --user=root --pid-file= --local-ttl=60 --host-record=$NAME,127.0.0.21 \
  --log-facility=/dev/null &
pids+=($!)
python3 - "$work/tcp.port" <<'PY' >/dev/null 2>&1 &
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.21", 0))
s.listen(512)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    s.accept()[0].close()
PY
pids+=($!)
for _ in $(seq 50); do [ -s "$work/tcp.port" ] && break; sleep 0.1; done
port=$(cat "$work/tcp.port")
printf 'dns_servers = %s\ndns_host_answers = allow\n' "$ADDR" >"$work/agentrt.conf"
chmod 0600 "$work/agentrt.conf"
printf 'nameserver %s\noptions timeout:2 attempts:1\n' "$ADDR" >"$work/resolv.conf"
# The container's /etc/hosts as agentrt's (localhost only), for the floor too.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$work/hosts"

cat >"$work/loop.py" <<'PY'
import socket, struct, sys, time
resolver, name, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
q = struct.pack(">HHHHHH", 7, 0x100, 1, 0, 0, 0) + b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
def udp_sendto():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(q, (resolver, 53)); s.recv(512); s.close()
def udp_connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((resolver, 53)); s.send(q); s.recv(512); s.close()
def gai():
    socket.getaddrinfo(name, port, socket.AF_INET, socket.SOCK_STREAM)
def connect_name():
    a = socket.getaddrinfo(name, port, socket.AF_INET, socket.SOCK_STREAM)[0][4]
    c = socket.create_connection(a); c.close()
def gai_hosts():
    socket.getaddrinfo("localhost", port, socket.AF_INET, socket.SOCK_STREAM)
for label, fn in (("gai-hosts", gai_hosts), ("udp-sendto", udp_sendto), ("udp-connect", udp_connect), ("getaddrinfo", gai), ("connect-name", connect_name)):
    fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    print("%s\t%.1f" % (label, (time.perf_counter() - t) / n * 1e6), flush=True)
PY

bundle() { # DIR RESOLVER ROOTFS: a bundle running loop.py against RESOLVER
  mkdir -p "$1"
  (cd "$1" && crun spec --rootless >/dev/null 2>&1 || crun spec >/dev/null)
  jq --arg r "$3" --arg res "$2" --arg name $NAME --arg port "$port" --arg n "$N" \
    --arg w "$work" '
      .root = {path: $r, readonly: true} | .process.terminal = false
    | .process.args = ["python3", "/bench/loop.py", $res, $name, $port, $n]
    | .linux.namespaces = [.linux.namespaces[] | select(.type != "network" and .type != "user")]
    | del(.linux.uidMappings, .linux.gidMappings)
    | .mounts += [{destination: "/bench", type: "bind", source: $w, options: ["rbind", "ro"]},
                  {destination: "/etc/hosts", type: "bind", source: ($w + "/hosts"),
                   options: ["bind", "ro"]},
                  {destination: "/etc/resolv.conf", type: "bind", source: ($w + "/resolv.conf"),
                   options: ["bind", "ro"]}]' "$1/config.json" >"$1/c.json"
  mv "$1/c.json" "$1/config.json"
}
bundle "$work/b-floor" $ADDR "$work/merged"
bundle "$work/b-agentrt" 127.0.0.53 "$rootfs"
FLOOR=crun
if ! crun --root "$work/floor" run --bundle "$work/b-floor" bench-dns-floor >"$work/probe" 2>&1; then
  echo "bench/dns.sh: crun cannot run here ($(tail -1 "$work/probe")): runc is the floor" >&2
  crun --root "$work/floor" delete --force bench-dns-floor >/dev/null 2>&1 || true
  FLOOR=runc
fi

declare -A RES
for r in $(seq "$RUNS"); do
  while IFS=$'\t' read -r k v; do RES[floor,$k]+="$v "; done \
    < <($FLOOR --root "$work/floor" run --bundle "$work/b-floor" bench-dns-floor)
  while IFS=$'\t' read -r k v; do RES[agentrt,$k]+="$v "; done \
    < <("$AGENTRT" --root "$work/agentrt" --config "$work/agentrt.conf" run --ephemeral \
      --net-allow "$NAME:$port" --bundle "$work/b-agentrt" bench-dns-agentrt)
done
median() { tr ' ' '\n' | { grep . || true; } | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "| per operation (µs, median of $RUNS containers × $N) | $FLOOR, host network | agentrt --net-allow $NAME | agentrt − $FLOOR |"
echo "|---|---|---|---|"
for k in gai-hosts udp-sendto udp-connect getaddrinfo connect-name; do
  c=$(median <<<"${RES[floor,$k]:-}") a=$(median <<<"${RES[agentrt,$k]:-}")
  [ -n "$c" ] && [ -n "$a" ] || die "$k: no figure (floor: ${RES[floor,$k]:-none}, agentrt: ${RES[agentrt,$k]:-none})"
  echo "| $k | $c | $a | $(awk -v a="$a" -v c="$c" 'BEGIN { printf "%+.1f", a - c }') |"
done
