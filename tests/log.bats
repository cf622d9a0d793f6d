#!/usr/bin/env bats
# --log and --log-format: errors reach the log file in runc's formats, where containerd's shim
# and conmon read them.
load helpers

setup() { setup_root; }
teardown() { teardown_root; }

@test "agentrt --log-format json writes the error as a JSON line with level, msg and time" {
  agentrt --log "$ROOT/log.json" --log-format json state nosuch
  [ "$status" -eq 1 ]
  [[ "$output" == *"container \`nosuch\` does not exist"* ]] # stderr too
  local last
  last=$(tail -n1 "$ROOT/log.json")
  [ "$(echo "$last" | jq -r .level)" = "error" ]
  [ "$(echo "$last" | jq -r .msg)" = "container \`nosuch\` does not exist" ]
  [[ "$(echo "$last" | jq -r .time)" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$ ]]
}

@test "agentrt --log with the text format writes logrus-style lines" {
  agentrt --log "$ROOT/log.txt" state nosuch
  [ "$status" -eq 1 ]
  grep -E '^time="[^"]+" level=error msg="container `nosuch` does not exist"$' "$ROOT/log.txt"
}

@test "agentrt --log appends, one line per error" {
  agentrt --log "$ROOT/log.json" --log-format=json state a1
  agentrt --log "$ROOT/log.json" --log-format=json state a2
  [ "$(wc -l <"$ROOT/log.json")" -eq 2 ]
  jq -e . "$ROOT/log.json" >/dev/null
}

@test "agentrt usage errors reach the --log file as one record, without the usage lines" {
  agentrt --log "$ROOT/log.json" --log-format json kill
  [ "$status" -eq 1 ]
  [[ "$output" == *"Usage: agentrt kill"* ]] # stderr keeps the usage line
  [ "$(wc -l <"$ROOT/log.json")" -eq 1 ]
  [[ "$(jq -r .msg "$ROOT/log.json")" == *"missing arguments: expects 1 to 2" ]]
}

@test "agentrt --debug writes debug lines only to the log, not stdout" {
  agentrt --debug --log "$ROOT/log.json" --log-format json list -q
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

@test "agentrt reports an unwritable --log file" {
  agentrt --log "$ROOT/no/such/dir/log" list
  [ "$status" -eq 1 ]
  [[ "$output" == *"open log file \`$ROOT/no/such/dir/log\`: No such file or directory"* ]]
}
