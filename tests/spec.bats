#!/usr/bin/env bats
# agentrt spec and agentrt features.
load helpers

setup() { setup_root; mkdir -p "$BUNDLE"; }
teardown() { teardown_root; }

@test "agentrt spec writes a valid config.json like runc's" {
  cd "$BUNDLE"
  agentrt spec
  [ "$status" -eq 0 ]
  python3 -m json.tool config.json >/dev/null
  [ "$(jq -r .ociVersion config.json)" = "1.2.0" ]
  [ "$(jq -r .root.path config.json)" = "rootfs" ]
  [ "$(jq -r '.process.args[0]' config.json)" = "sh" ]
  [ "$(jq -r '.process.terminal' config.json)" = "true" ]
  [ "$(jq -r '[.linux.namespaces[].type] | join(",")' config.json)" = "pid,network,ipc,uts,mount,cgroup" ]
  [ "$(jq -r '.mounts | length' config.json)" = "7" ]
  [ "$(jq -r '.linux.maskedPaths | index("/proc/kcore") != null' config.json)" = "true" ]
}

@test "agentrt spec --bundle writes into that directory" {
  agentrt spec --bundle "$BUNDLE"
  [ "$status" -eq 0 ]
  [ -f "$BUNDLE/config.json" ]
  python3 -m json.tool "$BUNDLE/config.json" >/dev/null
}

@test "agentrt spec refuses to overwrite an existing config.json" {
  echo '{}' >"$BUNDLE/config.json"
  agentrt spec -b "$BUNDLE"
  [ "$status" -eq 1 ]
  [[ "$output" == *"config.json\` exists: remove it first"* ]]
  [ "$(cat "$BUNDLE/config.json")" = "{}" ]
}

@test "agentrt spec fails for a missing bundle directory" {
  agentrt spec -b "$ROOT/nope"
  [ "$status" -eq 1 ]
  [[ "$output" == *"open bundle \`$ROOT/nope\`: No such file or directory"* ]]
}

@test "agentrt spec --rootless maps the caller's ids in a user namespace" {
  agentrt spec --rootless -b "$BUNDLE"
  [ "$status" -eq 0 ]
  local c="$BUNDLE/config.json"
  [ "$(jq -r '[.linux.namespaces[].type] | index("user") != null' "$c")" = "true" ]
  [ "$(jq -r '[.linux.namespaces[].type] | index("network")' "$c")" = "null" ]
  [ "$(jq -r '.linux.uidMappings[0].hostID' "$c")" = "$(id -u)" ]
  [ "$(jq -r '.linux.gidMappings[0].hostID' "$c")" = "$(id -g)" ]
  [ "$(jq -r '.linux.resources' "$c")" = "null" ]
  [ "$(jq -r '[.mounts[].type] | index("cgroup")' "$c")" = "null" ]
}

@test "agentrt spec output is accepted by agentrt's own parser" {
  agentrt spec -b "$BUNDLE"
  rootfs_busybox "$BUNDLE/rootfs"
  update_config '.process.terminal = false'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
}

@test "agentrt features prints the OCI features document" {
  agentrt features
  [ "$status" -eq 0 ]
  echo "$output" | python3 -m json.tool >/dev/null
  [ "$(echo "$output" | jq -r .ociVersionMin)" = "1.0.0" ]
  [ "$(echo "$output" | jq -r .ociVersionMax)" = "1.2.0" ]
  [ "$(echo "$output" | jq -r '.hooks | join(",")')" = "prestart,createRuntime,createContainer,startContainer,poststart,poststop" ]
  [ "$(echo "$output" | jq -r '.mountOptions | index("rbind") != null')" = "true" ]
  [ "$(echo "$output" | jq -r '.linux.namespaces | length')" = "8" ]
  [ "$(echo "$output" | jq -r '.linux.capabilities | index("CAP_SYS_ADMIN") != null')" = "true" ]
  [ "$(echo "$output" | jq -r '.linux.seccomp.actions | index("SCMP_ACT_NOTIFY") != null')" = "true" ]
  [ "$(echo "$output" | jq -r '.linux.seccomp.operators | index("SCMP_CMP_MASKED_EQ") != null')" = "true" ]
  [ "$(echo "$output" | jq -r '.linux.seccomp.archs | index("SCMP_ARCH_X86_64") != null')" = "true" ]
  [[ "$(echo "$output" | jq -r '.annotations["io.github.seccomp.libseccomp.version"]')" =~ ^2\. ]]
}

@test "agentrt features claims no mechanism this build does not apply yet" {
  agentrt features
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq -r '.linux.cgroup.v1, .linux.cgroup.v2' | sort -u)" = "true" ]
  [ "$(echo "$output" | jq -r '.linux.cgroup.systemd, .linux.cgroup.systemdUser')" = "$(printf 'true\nfalse')" ]
  [ "$(echo "$output" | jq -r '.linux.apparmor.enabled, .linux.selinux.enabled' | sort -u)" = "false" ]
}

@test "agentrt features lists idmapped mounts: idmap, ridmap and mountExtensions.idmap" {
  agentrt features
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq -r '.linux.mountExtensions.idmap.enabled')" = "true" ]
  [ "$(echo "$output" | jq -r '.mountOptions | index("idmap") != null and index("ridmap") != null')" = "true" ]
  [ "$(echo "$output" | jq -r '.mountOptions | index("tmpcopyup")')" = "null" ]
}

@test "agentrt features says seccomp is applied and names what the supervisor takes" {
  agentrt features
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq -r '.linux.seccomp.enabled')" = "true" ]
  [ "$(echo "$output" | jq -r '.linux.seccomp.supportedFlags | index("SECCOMP_FILTER_FLAG_LOG") != null')" = "true" ]
  [ "$(echo "$output" | jq -r '.annotations["io.agentrt.platforms"]')" = "seccomp,ptrace,none" ]
  [[ ",$(echo "$output" | jq -r '.annotations["io.agentrt.policy.deny"]')," == *",mount,"* ]]
  [[ ",$(echo "$output" | jq -r '.annotations["io.agentrt.policy.supervise"]')," == *",uname,"* ]]
  [ "$(echo "$output" | jq -r '.annotations["io.agentrt.policy.errno"]')" = "clone3" ]
}

@test "agentrt features lists exactly the capabilities the parser accepts" {
  agentrt features
  caps=$(echo "$output" | jq -r '.linux.capabilities[]')
  agentrt spec -b "$BUNDLE"
  rootfs_busybox "$BUNDLE/rootfs"
  all=$(echo "$caps" | jq -R . | jq -s -c .)
  update_config --argjson c "$all" '.process.capabilities.bounding = $c | .process.terminal = false'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  update_config '.process.capabilities.bounding += ["CAP_NOT_A_THING"]'
  agentrt_detached create -b "$BUNDLE" "$CID-2"
  [[ "$output" == *"unknown capability \`CAP_NOT_A_THING\`"* ]]
}
