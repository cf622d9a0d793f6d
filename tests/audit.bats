#!/usr/bin/env bats
# The audit log: what a workload wrote into a record cannot drive the terminal of whoever reads
# it.
load helpers

setup() { setup_probe; }
teardown() { teardown_root; }

LOG() { echo "$ROOT/state/$CID/audit.jsonl"; }
# records FILTER: how many records of the log match the jq FILTER.
records() { jq -c "select($1)" "$(LOG)" | wc -l; }

# U+009B is a CSI (ESC [) to a terminal that takes C1 controls; U+202E reverses what follows;
# U+2028 breaks a line in some viewers.
@test "audit: agentrt audit prints C1 and bidi controls escaped, in the table and the JSON lines" {
  local csi=$'\xc2\x9b' rlo=$'\xe2\x80\xae' ls=$'\xe2\x80\xa8'
  update_config --arg a "x${csi}31mred" --arg b "evil${rlo}txt.exe" --arg c "l1${ls}l2" \
    '.process.args = ["/bin/true", $a, $b, $c]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # The log itself is safe to cat, and means the same.
  ! LC_ALL=C grep -qE "$csi|$rlo|$ls" "$(LOG)"
  grep -qF 'x\u009b31mred' "$(LOG)" && grep -qF 'evil\u202etxt.exe' "$(LOG)" && grep -qF 'l1\u2028l2' "$(LOG)"
  [ "$(records ".args.argv == [\"/bin/true\", \"x${csi}31mred\", \"evil${rlo}txt.exe\", \"l1${ls}l2\"]")" -eq 1 ]
  # A line as an older agentrt wrote it, the controls raw.
  printf '{"time":"2020-01-01T00:00:00Z","id":"%s","pid":1,"comm":"old%s","syscall":"execve","args":{"path":"/x%s"},"verdict":"allow","rule":"audit-exec","severity":"info"}\n' \
    "$CID" "$csi" "$rlo" >>"$(LOG)"
  agentrt audit "$CID"
  [ "$status" -eq 0 ]
  ! LC_ALL=C grep -qE "$csi|$rlo|$ls" <<<"$output"
  [[ "$output" == *"x?31mred evil?txt.exe l1?l2"* ]]
  [[ "$output" == *"old?"*"path=/x?"* ]]
  agentrt audit --json "$CID"
  [ "$status" -eq 0 ]
  ! LC_ALL=C grep -qE "$csi|$rlo|$ls" <<<"$output"
  [[ "$output" == *'"comm":"old\u009b"'* ]]
  jq -e . <<<"$output" >/dev/null
}
