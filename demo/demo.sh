#!/usr/bin/env bash
# The agentrt demo: an untrusted script runs in a sandbox built from Debian's busybox-static.
# It shows what the script may do, what it is denied (by the kernel: namespaces, pivot_root,
# capabilities, cgroup limits; and by agentrt's supervisor, which also emulates what programs
# size themselves by), the audit log, and that nothing is left behind.
# Usage: demo/demo.sh [path/to/agentrt]
set -euo pipefail
AGENTRT=$(realpath "${1:-$(dirname "$0")/../agentrt}")
source "$(dirname "$0")/../tests/lib/rootfs.sh"
work=$(mktemp -d /tmp/agentrt-demo.XXXXXX)
trap '"$AGENTRT" --root "$work/state" delete --force demo >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "a bundle: busybox rootfs + agentrt spec (runc's default config, read-only root)"
mkdir -p "$work/bundle"
rootfs_busybox "$work/bundle/rootfs"
"$AGENTRT" spec --bundle "$work/bundle"
cat >"$work/bundle/rootfs/untrusted.sh" <<'SCRIPT'
echo "I am $(id -u) in $(hostname), pid $$"
echo "may:    compute: $(seq 1000 | awk '{s+=$1} END {print s}')"
echo "may:    write /dev/shm: $(echo hi >/dev/shm/x && cat /dev/shm/x)"
echo "denied: write the root: $(touch /evil 2>&1 || true)"
echo "denied: network: interfaces are [$(ls /sys/class/net | tr '\n' ' ')]"
echo "denied: host processes: I see $(ls /proc | grep -c '^[0-9]') processes"
echo "denied: mount, even holding CAP_SYS_ADMIN: $(mount -t tmpfs none /tmp 2>&1 || true)"
echo "denied: raw devices: $(mknod /dev/shm/sda b 8 0 2>&1 || true)"
echo "seen:   kernel $(uname -r) (not the host's), $(nproc) CPU, $(awk '/MemTotal/ {print $2/1024 " MiB"}' /proc/meminfo)"
echo "capped: a memory bomb: $(sh -c 'x=y; while :; do x=$x$x; done' 2>&1; echo "killed, status $?")"
grep -E '^(CapEff|NoNewPrivs)' /proc/self/status
SCRIPT
jq '.process.terminal = false | .process.args = ["/bin/sh", "/untrusted.sh"] | .hostname = "sandbox"
    | .process.capabilities.bounding += ["CAP_SYS_ADMIN"] | .process.capabilities.effective += ["CAP_SYS_ADMIN"]
    | .process.capabilities.permitted += ["CAP_SYS_ADMIN"]
    | .linux.resources.memory.limit = 268435456 | .linux.resources.pids.limit = 64
    | .linux.resources.cpu = {"quota": 100000, "period": 100000}' "$work/bundle/config.json" >"$work/c.json"
mv "$work/c.json" "$work/bundle/config.json"

say "agentrt run: the script in the sandbox (256 MiB, 1 CPU, 64 pids)"
"$AGENTRT" --root "$work/state" run --keep --bundle "$work/bundle" demo

say "agentrt audit: what the supervisor saw and denied"
"$AGENTRT" --root "$work/state" audit demo | grep -v ' execve ' || true
echo "(and $("$AGENTRT" --root "$work/state" audit --json demo | grep -c '"execve"') execve records; alerts: $("$AGENTRT" --root "$work/state" state demo | jq -r '.annotations["io.agentrt.audit.alerts"]'))"
"$AGENTRT" --root "$work/state" delete demo

say "a model-written config with a mistake: the error names the JSON path"
jq '.linux.resources = {"memory": {"limit": "512m"}}' "$work/bundle/config.json" >"$work/c.json"
cp "$work/c.json" "$work/bundle/config.json"
"$AGENTRT" --root "$work/state" run --bundle "$work/bundle" demo || true

say "nothing is left behind"
echo "containers under --root: $("$AGENTRT" --root "$work/state" list -q | wc -l)"
echo "cgroups left: $(find /sys/fs/cgroup -path '*agentrt/demo' 2>/dev/null | wc -l)"
