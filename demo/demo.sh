#!/usr/bin/env bash
# The agentrt demo: an untrusted script runs in a sandbox built from Debian's busybox-static.
# It shows what the script may do, what it is denied, and that nothing is left behind.  The
# system-call supervisor and its audit log come with issue 4; until then the denials are the
# kernel's (namespaces, pivot_root, dropped capabilities, no_new_privs, a read-only root).
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
echo "denied: mount: $(mount -t tmpfs none /tmp 2>&1 || true)"
echo "denied: raw devices: $(mknod /dev/shm/sda b 8 0 2>&1 || true)"
grep -E '^(CapEff|NoNewPrivs)' /proc/self/status
SCRIPT
jq '.process.terminal = false | .process.args = ["/bin/sh", "/untrusted.sh"] | .hostname = "sandbox"' "$work/bundle/config.json" >"$work/c.json"
mv "$work/c.json" "$work/bundle/config.json"

say "agentrt run: the script in the sandbox"
"$AGENTRT" --root "$work/state" run --bundle "$work/bundle" demo

say "a model-written config with a mistake: the error names the JSON path"
jq '.linux.resources = {"memory": {"limit": "512m"}}' "$work/bundle/config.json" >"$work/c.json"
cp "$work/c.json" "$work/bundle/config.json"
"$AGENTRT" --root "$work/state" run --bundle "$work/bundle" demo || true

say "nothing is left behind"
echo "containers under --root: $("$AGENTRT" --root "$work/state" list -q | wc -l)"
echo "audit log: comes with the supervisor (issue 4)"
