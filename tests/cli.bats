#!/usr/bin/env bats
# The command line: runc's global options, help, usage errors, and the commands whose mechanism
# is not built yet failing honestly.
load helpers

setup() { setup_root; }
teardown() { teardown_root; }

COMMANDS="create start run state kill delete list exec ps pause resume update events spec features"

@test "agentrt --version names version, commit, spec, libseccomp and features" {
  agentrt --version
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^agentrt\ version\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
  [[ "${lines[1]}" =~ ^commit:\ ((v[0-9.]+-[0-9]+-g)?[0-9a-f]{40}(-dirty)?|unknown)$ ]]
  [ "${lines[2]}" = "spec: 1.2.0" ]
  [[ "${lines[3]}" =~ ^libseccomp:\ 2\.[0-9]+\.[0-9]+$ ]]
  [[ "${lines[4]}" == +* ]]
}

@test "agentrt --help lists every command" {
  agentrt --help
  [ "$status" -eq 0 ]
  for c in $COMMANDS; do
    [[ "$output" == *"  $c "* ]] || { echo "missing $c" >&2; return 1; }
  done
  [[ "$output" == *"--root=DIR"* ]]
  [[ "$output" == *"--log-format=FORMAT"* ]]
  [[ "$output" == *"--systemd-cgroup"* ]]
}

@test "agentrt COMMAND --help prints a usage line for every command" {
  for c in $COMMANDS; do
    agentrt "$c" --help
    [ "$status" -eq 0 ] || return 1
    [[ "${lines[0]}" == "Usage: agentrt $c "* ]] || return 1
  done
}

@test "agentrt without a command fails with a usage line" {
  agentrt
  [ "$status" -eq 1 ]
  [[ "$output" == *"Usage: agentrt"* ]]
  [[ "$output" == *"no command given"* ]]
}

@test "agentrt rejects an unknown command" {
  agentrt frobnicate x
  [ "$status" -eq 1 ]
  [[ "$output" == *"unknown command \`frobnicate\`"* ]]
}

@test "agentrt rejects an unknown global option" {
  agentrt --no-such-option list
  [ "$status" -eq 1 ]
  [[ "$output" == *"unrecognized option '--no-such-option'"* ]]
  [[ "$output" == *"agentrt --help"* ]]
}

@test "agentrt state rejects an unknown option" {
  agentrt state --frob x
  [ "$status" -eq 1 ]
  [[ "$output" == *"agentrt state: unrecognized option '--frob'"* ]]
}

@test "agentrt state without an id fails with a usage line" {
  agentrt state
  [ "$status" -eq 1 ]
  [[ "$output" == *"missing arguments: expects exactly 1"* ]]
  [[ "$output" == *"Usage: agentrt state [OPTION...] CONTAINER"* ]]
}

@test "agentrt kill with three arguments fails with a usage line" {
  agentrt kill a KILL extra
  [ "$status" -eq 1 ]
  [[ "$output" == *"too many arguments: expects 1 to 2"* ]]
  [[ "$output" == *"Usage: agentrt kill"* ]]
}

@test "agentrt every command that takes an id refuses a missing one" {
  for c in create start run state kill delete exec ps pause resume update events; do
    agentrt "$c"
    [ "$status" -eq 1 ] || return 1
    [[ "$output" == *"Usage: agentrt $c"* ]] || return 1
  done
}

@test "agentrt accepts --flag value and --flag=value" {
  run "$AGENTRT" --root "$ROOT/state" state nosuch
  [[ "$output" == *"container \`nosuch\` does not exist"* ]]
  run "$AGENTRT" --root="$ROOT/state" state nosuch
  [[ "$output" == *"container \`nosuch\` does not exist"* ]]
}

@test "agentrt accepts runc's --rootless, --systemd-cgroup and --debug" {
  agentrt --rootless=true --systemd-cgroup --debug list -q
  [ "$status" -eq 0 ]
  agentrt --rootless list -q
  [ "$status" -eq 0 ]
}

@test "agentrt kill refuses an invalid signal" {
  agentrt kill "$CID" SIGNOPE
  [ "$status" -eq 1 ]
  [[ "$output" == *"invalid signal \`SIGNOPE\`"* ]]
}

@test "agentrt kill, start, pause, resume, ps, update, events of a missing container fail" {
  for c in "kill $CID 9" "start $CID" "pause $CID" "resume $CID" "ps $CID" "update $CID" \
           "events $CID" "exec $CID /bin/true"; do
    agentrt $c
    [ "$status" -eq 1 ] || return 1
    [[ "$output" == *"container \`$CID\` does not exist"* ]] || return 1
  done
}

@test "agentrt exec --process reports a malformed process.json with its JSON path" {
  echo '{"cwd": "/", "args": ["sh", 7]}' >"$ROOT/process.json"
  agentrt exec --process "$ROOT/process.json" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"$ROOT/process.json: args[1]: expected a string"* ]]
}

@test "agentrt exec stops option parsing at the command" {
  # --help after the id belongs to the command, not to agentrt.
  agentrt exec "$CID" ls --help
  [ "$status" -eq 1 ]
  [[ "$output" == *"container \`$CID\` does not exist"* ]]
}

@test "agentrt refuses a bad --log-format" {
  agentrt --log-format yaml list
  [ "$status" -eq 1 ]
  [[ "$output" == *"--log-format: expected text or json, not \`yaml\`"* ]]
}
