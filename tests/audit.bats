#!/usr/bin/env bats
# The audit log under a workload that floods it (supervisor/audit_budget.h): repeated records
# are aggregated with a count, every string and record is capped, the log stops at its budget
# with a notice and keeps a reserve for alerts, every alert is counted (io.agentrt.audit.alerts),
# and what a workload wrote into a record cannot drive the terminal of whoever reads it.  The
# flooding workload is tests/probe/audit_flood.c.
load helpers

setup() { setup_probe; }
teardown() { teardown_root; }

LOG() { echo "$ROOT/state/$CID/audit.jsonl"; }
# records FILTER: how many records of the log match the jq FILTER.
records() { jq -c "select($1)" "$(LOG)" | wc -l; }
alerts() { __agentrt state "$CID" | jq -r '.annotations["io.agentrt.audit.alerts"]'; }

# flood_setup ARGS...: the flood program in the rootfs, /bin/marker-1… linked to it, and it as
# the container's process with ARGS.
flood_setup() {
  gcc -static -O2 -Wall -Wextra -Werror -o "$BUNDLE/rootfs/bin/audit_flood" \
    "$BATS_TEST_DIRNAME/probe/audit_flood.c"
  local i
  for i in $(seq 1 20); do ln -s audit_flood "$BUNDLE/rootfs/bin/marker-$i"; done
  update_config --argjson a "$(jq -cn '$ARGS.positional' --args -- "$@")" '.process.args = $a'
}

# flood_count NAME: the count the flood printed last ("execs=E mounts=M markers=K").
flood_count() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<<"$output" | tail -1; }

# Each record of the flood was 50-75 KB (control bytes, six in JSON each) and 40 MiB a second
# of them reached the log, while the markers made meanwhile were mostly missing.
@test "audit: a flood of long execs and denied mounts costs a few records, and every marker between them is recorded" {
  flood_setup /bin/audit_flood 4
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local mounts markers size i
  mounts=$(flood_count mounts) markers=$(flood_count markers)
  size=$(stat -c %s "$(LOG)")
  echo "flood: $(flood_count execs) execs, $mounts denied mounts, $markers markers; log: $size bytes" >&2
  [ "$markers" -ge 3 ] && [ "$mounts" -ge 1000 ]
  [ "$size" -lt $((256 * 1024)) ]
  # Every marker: its exec and its denied mount, each a record of its own.
  for i in $(seq 1 "$markers"); do
    [ "$(records ".syscall == \"execve\" and .args.path == \"/bin/marker-$i\" and .comm == \"marker-$i\"")" -eq 1 ]
    [ "$(records ".syscall == \"mount\" and .comm == \"marker-$i\" and .args.target == \"/marker-$i\" and .severity == \"alert\"")" -eq 1 ]
  done
  # Every denied mount is an alert, counted whether written or aggregated.
  [ "$(alerts)" -eq "$mounts" ]
}

@test "audit: repeated denials are one record and an aggregate with the count, first and last time" {
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  update_config '.process.args = ["/bin/sh", "-c", "for i in $(seq 50); do /bin/probe mount /tmp/x; done; true"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # Fifty processes, one program: the first record whole, the 49 others in one aggregate (the
  # container ended within the 5 s window, and the supervisor wrote it before it exited).
  [ "$(records '.syscall == "mount" and .count == null')" -eq 1 ]
  [ "$(records '.syscall == "mount" and .count == 49 and .comm == "probe" and .verdict == "deny"
                and .rule == "deny-mount" and .severity == "alert" and .args.target == "/tmp/x"
                and .first <= .last and .time == .last')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/probe" and .count == null')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/probe" and .count == 49')" -eq 1 ]
  [ "$(alerts)" -eq 50 ]
  # The table shows the count.
  agentrt audit "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"mount"*"deny"*"deny-mount"*"count=49 first="*"target=/tmp/x"* ]]
}

# The strings of the flood are 4000 control bytes each (24 KB of JSON): each is cut at 1 KiB of
# JSON, ending with "…", and the record says "truncated".
@test "audit: every string of a record is capped and marked, every record is under 8 KiB" {
  flood_setup /bin/audit_flood 1
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(awk 'length($0) > 8191' "$(LOG)" | wc -l)" -eq 0 ]
  [ "$(records '.syscall == "mount" and .comm == "audit_flood" and .truncated == true
                and (.args.source | endswith("…")) and (.args.target | endswith("…"))
                and (.args.fstype | endswith("…")) and (.args.target | startswith("/\u0001"))')" -ge 1 ]
  [ "$(records '.syscall == "execve" and (.args.path | startswith("/nonexistent/\u0001"))
                and (.args.path | endswith("…")) and .truncated == true')" -ge 1 ]
  # Cut at a JSON length: a control byte takes six, so some 170 of them are left of 4000.
  local n
  n=$(jq -r 'select(.syscall == "mount" and .comm == "audit_flood") | .args.target | length' "$(LOG)" | head -1)
  [ "$n" -gt 150 ] && [ "$n" -lt 200 ]
}

# A workload that renames itself for every call (a new aggregate each time) and floods: the log
# stops at the budget with a notice, after which alerts are still written (from the reserve,
# aggregated by call) and all of them are counted.
@test "audit: --audit-budget: the log stops at its budget with audit-budget-exhausted; alerts after it are recorded and counted" {
  flood_setup /bin/sh -c '/bin/audit_flood --vary 3 && /bin/probe deny'
  agentrt run --keep --audit-budget 1m -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local size mounts line
  size=$(stat -c %s "$(LOG)") mounts=$(flood_count mounts)
  echo "log: $size bytes, $mounts denied mounts in the flood" >&2
  [ "$size" -le $((1024 * 1024)) ]
  [ "$(records '.event == "audit-budget-exhausted" and .severity == "warn"')" -eq 1 ]
  line=$(grep -n '"event":"audit-budget-exhausted"' "$(LOG)" | cut -d: -f1)
  # The flood filled it: the notice is written once the budget for records is used.
  [ "$size" -gt $((7 * 1024 * 1024 / 8)) ]
  # After the notice: alerts only, among them probe's denied calls made after the flood.
  tail -n +"$((line + 1))" "$(LOG)" >"$ROOT/after"
  [ "$(jq -c 'select(.severity != "alert")' "$ROOT/after" | wc -l)" -eq 0 ]
  local sys
  for sys in pivot_root bpf init_module kexec_load keyctl; do
    [ "$(jq -c --arg s "$sys" 'select(.syscall == $s and .verdict == "deny")' "$ROOT/after" | wc -l)" -ge 1 ]
  done
  # Every alert was counted: the flood's mounts and probe's denials (more than 20).
  [ "$(alerts)" -ge $((mounts + 20)) ]
}

@test "audit: agentrt.conf's audit_budget caps every container's log; a bad one fails create" {
  flood_setup /bin/sh -c '/bin/audit_flood --vary 3'
  printf 'audit_budget = 512k\n' >"$ROOT/agentrt.conf"
  agentrt --config "$ROOT/agentrt.conf" run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(stat -c %s "$(LOG)")" -le $((512 * 1024)) ]
  [ "$(records '.event == "audit-budget-exhausted"')" -eq 1 ]
  agentrt delete "$CID"
  printf 'audit_budget = 10k\n' >"$ROOT/agentrt.conf"
  agentrt --config "$ROOT/agentrt.conf" create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"agentrt.conf:1: audit_budget: \`10k\`: expected a size of at least 64k"* ]]
  agentrt --config "$ROOT/agentrt.conf" create --audit-budget 1m -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ] # a bad file is an error whatever the flags say
  leaves_nothing
}

@test "audit: --audit-budget must be a size of 64k at least" {
  agentrt create --audit-budget 10k -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"--audit-budget: \`10k\`: expected a size of at least 64k"* ]]
  agentrt create --audit-budget lots -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  leaves_nothing
}

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

# The supervisor lets the kernel run an exec (it does not learn the result): it looks the path
# up first, in the caller's root and cwd, and records what the kernel will refuse.
@test "audit: an exec the kernel refuses records its outcome: ENOENT for a PATH search's misses, EACCES for a directory or a file without x" {
  printf 'echo hi\n' >"$BUNDLE/rootfs/bin/notexec"
  chmod 0644 "$BUNDLE/rootfs/bin/notexec"
  update_config '.process.cwd = "/bin" | .process.args = ["/bin/sh", "-c",
    "env PATH=/nope:/bin probe deny --list >/dev/null; /bin/nosuch; /tmp; /bin/notexec; ./nosuch2; ./probe deny --list >/dev/null; true"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # The miss keeps the caller's name (env's), the program found takes its own.
  [ "$(records '.syscall == "execve" and .args.path == "/nope/probe" and .verdict == "allow" and .args.outcome == "ENOENT" and .comm == "env"')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/probe" and .args.outcome == null and .comm == "probe"')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/nosuch" and .args.outcome == "ENOENT"')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/tmp" and .args.outcome == "EACCES"')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/notexec" and .args.outcome == "EACCES"')" -eq 1 ]
  # Relative paths resolve from the caller's cwd.
  [ "$(records '.syscall == "execve" and .args.path == "./nosuch2" and .args.outcome == "ENOENT"')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "./probe" and .args.outcome == null')" -eq 1 ]
}
