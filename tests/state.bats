#!/usr/bin/env bats
# State under --root: state, list, delete, and container id rules.
load helpers

setup() { setup_root; }
teardown() { teardown_root; }

@test "agentrt state of a missing container fails naming it" {
  agentrt state nosuch
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: container \`nosuch\` does not exist" ]
}

@test "agentrt state under a root that was never made fails the same way" {
  run "$AGENTRT" --root "$ROOT/never-made" state nosuch
  [ "$status" -eq 1 ]
  [[ "$output" == *"container \`nosuch\` does not exist"* ]]
  [ ! -e "$ROOT/never-made" ]
}

@test "agentrt list prints runc's table header on an empty root" {
  agentrt list
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^ID\ +PID\ +STATUS\ +BUNDLE\ +CREATED\ +OWNER$ ]]
  [ "${#lines[@]}" -eq 1 ]
}

@test "agentrt list -q and --format json on an empty root" {
  agentrt list -q
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  agentrt list --format json
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | jq -r 'length')" = "0" ]
  agentrt list --format=json
  [ "$status" -eq 0 ]
}

@test "agentrt list refuses an unknown format" {
  agentrt list --format yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *"--format: expected table or json, not \`yaml\`"* ]]
}

@test "agentrt delete of a missing container fails, delete --force succeeds" {
  agentrt delete nosuch
  [ "$status" -eq 1 ]
  [[ "$output" == *"container \`nosuch\` does not exist"* ]]
  agentrt delete --force nosuch
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  agentrt delete -f nosuch
  [ "$status" -eq 0 ]
}

@test "agentrt refuses ids with a slash, dot-dot, spaces or over 255 bytes" {
  for id in "../escape" "a/b" ".." "a b" "$(printf 'x%.0s' {1..256})"; do
    agentrt state "$id"
    [ "$status" -eq 1 ] || return 1
    [[ "$output" == *"container id"* ]] || return 1
  done
  [ "$(state_dirs_left)" -eq 0 ]
  [ ! -e "$ROOT/escape" ]
}

@test "agentrt delete --force still validates the id" {
  agentrt delete --force ../x
  [ "$status" -eq 1 ]
  [[ "$output" == *"invalid container id \`../x\`"* ]]
}

@test "agentrt delete removes a state directory that a killed create left behind" {
  mkdir -p "$ROOT/state/$CID" # no state.json: create was killed before it wrote one
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  [ ! -e "$ROOT/state/$CID" ]
  mkdir -p "$ROOT/state/$CID"
  agentrt delete "$CID"
  [ ! -e "$ROOT/state/$CID" ]
}

@test "agentrt uses \$XDG_RUNTIME_DIR/agentrt as the default root for a non-root user" {
  command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
  mkdir -p "$ROOT/xdg/agentrt/c1"
  echo '{"id": "c1", "pid": 0, "status": "stopped", "bundle": "/b"}' >"$ROOT/xdg/agentrt/c1/state.json"
  chown -R 1000:1000 "$ROOT/xdg"
  run setpriv --reuid 1000 --regid 1000 --clear-groups env XDG_RUNTIME_DIR="$ROOT/xdg" "$AGENTRT" list -q
  [ "$status" -eq 0 ]
  [ "$output" = "c1" ]
}

@test "agentrt refuses a --root reached through a directory others may write" {
  mkdir -m 0777 "$ROOT/open"
  chmod 0777 "$ROOT/open"
  run "$AGENTRT" --root "$ROOT/open/state" list
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"\`$ROOT/open\` is writable by group or others"* ]]
  [ ! -e "$ROOT/open/state" ]
}

@test "agentrt refuses a --root through a symlink that is not root's" {
  mkdir "$ROOT/real"
  ln -s "$ROOT/real" "$ROOT/link"
  chown -h nobody "$ROOT/link"
  run "$AGENTRT" --root "$ROOT/link/state" list
  [ "$status" -eq 1 ]
  [[ "$output" == *"\`$ROOT/link\` is a symlink of uid"* ]]
  # root's own symlink is followed as before
  ln -s "$ROOT/real" "$ROOT/rootlink"
  run "$AGENTRT" --root "$ROOT/rootlink/state" list -q
  [ "$status" -eq 0 ]
}

@test "agentrt delete --force ignores a journal that is not the runtime's own file" {
  local cg=/sys/fs/cgroup/pids/agentrt-test-$CID
  [ -d /sys/fs/cgroup/pids ] || skip "no v1 pids hierarchy"
  mkdir "$cg"
  mkdir -m 0700 "$ROOT/state/c1"
  printf '\ncgroup %s\n' "$cg" >"$ROOT/state/c1/journal"
  chown nobody "$ROOT/state/c1/journal"
  agentrt delete --force c1
  local kept=0
  [ -d "$cg" ] && kept=1
  rmdir "$cg" 2>/dev/null || true
  [ "$kept" -eq 1 ]
}
