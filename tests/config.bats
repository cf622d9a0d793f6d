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

# ---- untrusted JSON: depth, size, counts, file type (spec.h, json.h) -------------------------

@test "agentrt create [config] JSON nested 400,000 levels deep fails naming where, no crash" {
  nest_member "$BUNDLE/config.json" 400000
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: x[0][0][0][0][0][0][0]...: nested deeper than 64 levels" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create [config] 64 levels of nesting are accepted, 65 are not" {
  nest_member "$BUNDLE/config.json" 63
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt delete "$CID"
  cp "$ROOT/config.json.orig" "$BUNDLE/config.json"
  nest_member "$BUNDLE/config.json" 64
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"nested deeper than 64 levels" ]]
}

@test "agentrt create [config] 20,000 seccomp rules fail at once naming the limit" {
  # libseccomp took 140 s of CPU over these before the cap.
  update_config -c '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [range(20000) | {"names": ["getppid"], "action": "SCMP_ACT_ERRNO",
                                 "args": [{"index": 0, "value": ., "op": "SCMP_CMP_EQ"}]}]}'
  SECONDS=0
  status=0
  timeout 60 "$AGENTRT" --root "$ROOT/state" create -b "$BUNDLE" "$CID" </dev/null \
    >/dev/null 2>"$ROOT/err" || status=$?
  echo "status=$status after ${SECONDS}s: $(cat "$ROOT/err")" >&2
  [ "$status" -eq 1 ]
  [ "$(cat "$ROOT/err")" = "agentrt: config.json: linux.seccomp.syscalls: more than 1024 entries" ]
  [ "$SECONDS" -lt 5 ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create [config] seccomp names and argument conditions past their caps are named" {
  expect_config_error '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [range(1025) | {"names": ["getppid", "getpid"], "action": "SCMP_ACT_ERRNO"}]}' \
    'linux.seccomp.syscalls: more than 1024 entries'
  expect_config_error '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [range(600) | {"names": ["getppid", "getpid", "gettid", "getuid"],
                               "action": "SCMP_ACT_ERRNO"}]}' \
    'linux.seccomp.syscalls: more than 2048 syscall names in all entries'
  expect_config_error '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [range(130) | {"names": ["getppid", "getpid"], "action": "SCMP_ACT_ERRNO",
                               "args": [{"index": 0, "value": ., "op": "SCMP_CMP_EQ"}]}]}' \
    'linux.seccomp.syscalls: more than 256 argument conditions in all entries (one per name)'
}

@test "agentrt create [config] mounts, masked paths and env past their caps are named" {
  expect_config_error '.mounts += [range(1100) | {"destination": "/m\(.)", "type": "tmpfs"}]' \
    'mounts: more than 1024 entries'
  expect_config_error '.linux.maskedPaths = [range(1025) | "/m\(.)"]' \
    'linux.maskedPaths: more than 1024 entries'
  expect_config_error '.process.env = [range(65537) | "V\(.)=1"]' \
    'process.env: more than 65536 entries'
}

# A seccomp profile at the caps still compiles in about a second (docs/runtime-spec.md).
@test "agentrt create [config] a seccomp profile at its caps is accepted and enforced" {
  update_config '.process.args = ["/bin/sh", "-c", "renice -n 1 -p $$ >/dev/null 2>&1 && echo allowed || echo denied"]
    | .linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "architectures":
        ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
      "syscalls": ([range(470) | {"names": ["getpriority", "setpriority", "sched_yield",
                                            "getcpu"], "action": "SCMP_ACT_ERRNO"}]
                   + [range(42) | {"names": ["personality"], "action": "SCMP_ACT_ERRNO",
                                   "args": [range(6) as $k | {"index": 0, "value": (. * 6 + $k + 100),
                                                              "op": "SCMP_CMP_EQ"}]}])}'
  SECONDS=0
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = denied ]
  [ "$SECONDS" -lt 10 ]
}

@test "agentrt create [config] a config.json larger than 4 MiB fails naming the limit" {
  update_config --arg pad "$(head -c 4200000 /dev/zero | tr '\0' x)" '.annotations.pad = $pad' \
    2>/dev/null || {
    # The value is too long for one argument: splice it in as text.
    jq -c . "$ROOT/config.json.orig" | sed 's/}$/,"pad":"/' >"$BUNDLE/config.json"
    { head -c 4200000 /dev/zero | tr '\0' x; echo '"}'; } >>"$BUNDLE/config.json"
  }
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $BUNDLE/config.json: larger than 4194304 bytes" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

@test "agentrt create [config] a config.json that is a FIFO fails at once" {
  rm "$BUNDLE/config.json"
  mkfifo "$BUNDLE/config.json"
  status=0
  timeout 20 "$AGENTRT" --root "$ROOT/state" create -b "$BUNDLE" "$CID" </dev/null \
    >/dev/null 2>"$ROOT/err" || status=$?
  echo "status=$status: $(cat "$ROOT/err")" >&2
  [ "$status" -eq 1 ]
  [ "$(cat "$ROOT/err")" = "agentrt: \`$BUNDLE/config.json\` is not a regular file" ]
  [ "$(state_dirs_left)" -eq 0 ]
}

# The state documents the init's hooks get hold the annotations: past one datagram of the sync
# socket (128 KiB) they travel in a memfd.
@test "agentrt create [config] 250 KiB of annotations reach the container's hooks" {
  # createContainer hooks run in the container's namespaces before pivot_root: host paths.
  update_config --arg out "$ROOT/size" '
    .hooks.createContainer = [{"path": "/bin/sh", "args": ["sh", "-c", "wc -c >\($out)"]}]
    | .annotations.big = ([range(5000) | "0123456789012345678901234567890123456789012345678"]
                          | join(""))'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(cat "$ROOT/size")" -gt 245000 ]
  update_config '.annotations.big += "x"'
  agentrt delete "$CID"
  update_config '.annotations.more = ([range(500) | "0123456789012345678901234567890123456789"]
                                      | join(""))'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: annotations: more than 262144 bytes of keys and values" ]
}
