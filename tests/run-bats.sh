#!/usr/bin/env bash
# Runs the bats suites, shows their TAP output, then lists every skip and closes with one
# "N passed, N failed, N skipped" line.  Exit status: non-zero if any test failed.
set -uo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bats --print-output-on-failure --timing "$@" | tee "$out"
rc=${PIPESTATUS[0]}
passed=$(grep -cE '^ok ' "$out" | tr -d ' ')
skipped=$(grep -cE '^ok .*# skip' "$out" | tr -d ' ')
failed=$(grep -cE '^not ok ' "$out" | tr -d ' ')
passed=$((passed - skipped))
if [ "$skipped" -gt 0 ]; then
  echo "skipped tests:"
  grep -E '^ok .*# skip' "$out" | sed 's/^/  /'
fi
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
