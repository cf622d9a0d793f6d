#!/usr/bin/env bats
# User-namespaced containers wherever their bundle is (issue 15): the rootfs and the bind
# sources are reached with the runtime's credentials, not by a path walk of the container's
# root, which is an unprivileged host uid; idmapped mounts (runtime-spec 1.2).
load helpers

setup() {
  setup_busybox
  update_config '.linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
}
teardown() { teardown_root; }

# private_dir: a directory made by `mktemp -d` (0700, host root's) in ROOT, printed.
private_dir() {
  local d
  d=$(mktemp -d "$ROOT/private.XXXXXX")
  [ "$(stat -c '%a %u' "$d")" = "700 0" ] || return 1
  echo "$d"
}

# private_bundle: the bundle moved under a private_dir; BUNDLE names it there.
private_bundle() {
  local d
  d=$(private_dir)
  mv "$BUNDLE" "$d/b"
  BUNDLE="$d/b"
}

sh_args() { update_config --arg s "$1" '.process.args = ["/bin/sh", "-c", $s]'; }

@test "userns: a user-namespaced container runs from a bundle under a 0700 directory of host root" {
  private_bundle
  sh_args 'id -u; cat /proc/self/uid_map; ls /bin/true'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ]
  [[ ${lines[1]} =~ ^\ +0\ +200000\ +65536$ ]]
  [ "${lines[2]}" = /bin/true ]
  # --no-pivot too (MS_MOVE of the same tree).
  agentrt run --no-pivot -b "$BUNDLE" "$CID-np"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ]
  leaves_nothing
}
