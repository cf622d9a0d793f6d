#!/usr/bin/env bash
# The agentrt demo.  Until the sandbox can start processes (issues 3 and 4), it shows what exists:
# a runc-compatible default config, the features document, and config checking that names the
# exact JSON path of a mistake.  Usage: demo/demo.sh [path/to/agentrt]
set -euo pipefail
AGENTRT=${1:-$(dirname "$0")/../agentrt}
AGENTRT=$(realpath "$AGENTRT")
work=$(mktemp -d /tmp/agentrt-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "agentrt --version"
"$AGENTRT" --version

say "agentrt spec: a default config.json, as runc spec writes it"
mkdir -p "$work/bundle/rootfs"
"$AGENTRT" spec --bundle "$work/bundle"
jq -c '{ociVersion, args: .process.args, namespaces: [.linux.namespaces[].type]}' "$work/bundle/config.json"

say "agentrt features: what this build recognizes and applies"
"$AGENTRT" features | jq -c '{ociVersionMin, ociVersionMax, hooks, namespaces: .linux.namespaces,
  cgroup: .linux.cgroup, seccomp: {enabled: .linux.seccomp.enabled, actions: .linux.seccomp.actions}}'

say "a model-written config with a mistake: the error names the JSON path"
jq '.linux.resources = {"memory": {"limit": "512m"}}' "$work/bundle/config.json" >"$work/c.json"
mv "$work/c.json" "$work/bundle/config.json"
"$AGENTRT" --root "$work/state" create --bundle "$work/bundle" demo-1 || true

say "nothing is left behind"
echo "containers under --root: $("$AGENTRT" --root "$work/state" list -q | wc -l)"
