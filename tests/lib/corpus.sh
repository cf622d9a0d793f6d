# The compatibility corpus' bundle, for tests/compat.bats and tools/corpus-syscalls.sh.
# Source this file after debian.sh; it defines corpus_bundle.

CORPUS_DIR=${CORPUS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../corpus" && pwd)}

# corpus_bundle BUNDLE COPY [ARG...]: a bundle at BUNDLE (agentrt spec's config; $AGENTRT is the
# binary) that runs ARGs (default: bash /corpus/tasks.sh) in the cached corpus rootfs, read-only
# (it is shared), with a tmpfs /tmp (exec: the tasks build and run programs there) and the
# directory COPY, which gets a copy of tasks.sh (a user-namespaced root must be able to read
# it), bind-mounted read-only at /corpus.  CORPUS_TASKS (a regex) is passed on.
corpus_bundle() {
  local bundle=$1 copy=$2 rootfs args
  shift 2
  [ $# -gt 0 ] || set -- /bin/bash /corpus/tasks.sh
  rootfs=$(debian_corpus_rootfs) || return 1
  mkdir -p "$bundle" "$copy" || return 1
  cp "$CORPUS_DIR/tasks.sh" "$copy/" && chmod -R a+rX "$copy" || return 1
  "$AGENTRT" spec --bundle "$bundle" || return 1
  # One a line (jq would take an argument such as -c for its own option).
  args=$(printf '%s\n' "$@" | jq -Rcn '[inputs]') || return 1
  jq --arg r "$rootfs" --arg c "$copy" --arg t "${CORPUS_TASKS:-.}" --argjson a "$args" '
    .root = {path: $r, readonly: true} |
    .process.terminal = false |
    .process.args = $a |
    .process.env += ["CORPUS_TASKS=" + $t] |
    .mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs",
                 options: ["nosuid", "nodev", "mode=1777"]},
                {destination: "/corpus", type: "bind", source: $c,
                 options: ["rbind", "ro", "nosuid", "nodev"]}]' \
    "$bundle/config.json" >"$bundle/config.json.new" && mv "$bundle/config.json.new" "$bundle/config.json"
}
