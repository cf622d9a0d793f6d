#!/usr/bin/env bats
# create's checks before it sets anything up: the bundle, config.json (every error names its JSON
# path), the rootfs and the id.  Each failure leaves nothing under --root.
load helpers

setup() { setup_busybox; cp "$BUNDLE/config.json" "$ROOT/config.json.orig"; }
teardown() { teardown_root; }

# expect_config_error JQ_FILTER MESSAGE: apply the filter to the pristine config.json; create
# must then fail with MESSAGE and leave no state behind.
expect_config_error() {
  cp "$ROOT/config.json.orig" "$BUNDLE/config.json"
  update_config "$1"
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ] || return 1
  [ "$output" = "agentrt: config.json: $2" ] || { echo "expected: config.json: $2" >&2; return 1; }
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create [config] wrong types fail with their JSON path" {
  expect_config_error '.linux.resources.memory = {"limit": "1g"}' \
    'linux.resources.memory.limit: expected an integer'
  expect_config_error '.hostname = 5' 'hostname: expected a string'
  expect_config_error '.process.terminal = "yes"' 'process.terminal: expected a boolean'
  expect_config_error '.mounts[2].destination = 1' 'mounts[2].destination: expected a string'
  expect_config_error '.process.args = ["sh", 7]' 'process.args[1]: expected a string'
  expect_config_error '.process.env = "PATH=/bin"' 'process.env: expected an array'
  expect_config_error '.linux = []' 'linux: expected an object'
  expect_config_error '.annotations = {"a": 1}' 'annotations.a: expected a string'
}

@test "agentrt create [config] bad values fail with their JSON path" {
  expect_config_error '.process.user.uid = -1' 'process.user.uid: expected a non-negative integer'
  expect_config_error '.process.user.uid = 1.5' 'process.user.uid: expected an integer'
  expect_config_error '.linux.namespaces += [{"type": "pid"}]' \
    'linux.namespaces[6].type: duplicate namespace `pid`'
  expect_config_error '.linux.namespaces[0].type = "bogus"' \
    'linux.namespaces[0].type: unknown namespace `bogus`'
  expect_config_error '.process.rlimits[0].type = "RLIMIT_BOGUS"' \
    'process.rlimits[0].type: unknown rlimit `RLIMIT_BOGUS`'
  expect_config_error '.process.cwd = "relative"' 'process.cwd: expected an absolute path'
  expect_config_error '.linux.rootfsPropagation = "sideways"' \
    'linux.rootfsPropagation: unknown propagation `sideways`'
  expect_config_error '.linux.seccomp = {"defaultAction": "SCMP_ACT_MAYBE"}' \
    'linux.seccomp.defaultAction: unknown action `SCMP_ACT_MAYBE`'
}

@test "agentrt create [config] missing required members are named" {
  expect_config_error 'del(.ociVersion)' 'ociVersion: is required'
  expect_config_error 'del(.root)' 'root: is required'
  expect_config_error 'del(.process.cwd)' 'process.cwd: is required'
}

@test "agentrt create [config] invalid JSON is reported as such" {
  echo '{"ociVersion": "1.2.0",' >"$BUNDLE/config.json"
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == "agentrt: config.json: invalid JSON: "* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create [config] unknown properties are ignored" {
  update_config '.futureThing = {"x": 1} | .process.newKnob = true | .linux.somethingElse = []'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
}

@test "agentrt create fails for a missing config.json" {
  rm "$BUNDLE/config.json"
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: open \`$BUNDLE/config.json\`: No such file or directory" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create fails for a missing bundle" {
  agentrt_detached create -b "$ROOT/missing" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: bundle \`$ROOT/missing\`: No such file or directory" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create fails for a missing rootfs" {
  rm -rf "$BUNDLE/rootfs"
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: rootfs \`$BUNDLE/rootfs\`: No such file or directory" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create fails for a rootfs that is not a directory" {
  rm -rf "$BUNDLE/rootfs"
  touch "$BUNDLE/rootfs"
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: rootfs \`$BUNDLE/rootfs\`: Not a directory" ]
}

@test "agentrt create fails for a config without a process" {
  update_config 'del(.process)'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"process: is required to create a container"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create refuses an invalid id before reading the bundle" {
  agentrt_detached create -b "$ROOT/missing" "../$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"invalid container id"* ]]
}
