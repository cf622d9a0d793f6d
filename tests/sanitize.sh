#!/bin/sh
# `make sanitize`: agentrt and its unit tests built with clang's address and undefined behaviour
# sanitizers in BUILDDIR, from DISTDIR (a `make distdir` copy: this tree may be configured for
# its own build, and configure refuses a second one beside it), then the unit tests and a fast
# subset of the bats suite (SANITIZE_BATS) run against the sanitized binary.  Any sanitizer
# report fails it, whichever process made it; reports are kept in BUILDDIR/reports.
# Leak checks are on for the unit tests and for every agentrt command the bats files run
# (tests/lsan.supp: a glibc leak).  A process that ends in execve (the init, an exec'd
# process) or _exit (the side of a clone, the supervisor) is not checked: LeakSanitizer runs
# at exit().
# Usage: SANITIZE_BATS="tests/cli.bats …" sanitize.sh DISTDIR BUILDDIR
set -eu
dist=$1 build=$2
bats_files=${SANITIZE_BATS:-tests/cli.bats tests/spec.bats tests/config.bats tests/lifecycle.bats}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
command -v clang >/dev/null || { echo "sanitize: clang is missing: tools/install-deps.sh --tests" >&2; exit 1; }
mkdir -p "$build/src"
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
# Timestamps are kept (distdir copies with them): an unchanged file is not rebuilt.
cp -pR "$dist/." "$build/src/"
reports=$build/reports
rm -rf "$reports"
mkdir -p "$reports"
cd "$build/src"
if [ ! -f config.status ] || [ configure -nt config.status ]; then
  ./configure -q CC=clang CFLAGS="-g -O1 -fno-omit-frame-pointer $san" LDFLAGS="$san" \
    GIT_COMMIT=unknown
fi
make -j"$(nproc)" agentrt >"$build/build.log" 2>&1 || { tail -n 30 "$build/build.log" >&2; exit 1; }
symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export ASAN_SYMBOLIZER_PATH="$symbolizer"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
status=0
echo "sanitize: unit tests"
ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan" make -j"$(nproc)" check \
  >"$build/check.log" 2>&1 || status=1
grep -E '^# (TOTAL|PASS|FAIL|ERROR)' "$build/check.log" | tr '\n' ' '
echo
[ "$status" -eq 0 ] || grep -E '^(FAIL|ERROR)' "$build/check.log" >&2
echo "sanitize: $bats_files"
# The suites' own checks, against the sanitized binary; the engine suites are not in the subset.
files=
for f in $bats_files; do files="$files $src/$f"; done
ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan" AGENTRT="$build/src/agentrt" \
  "$src/tests/run-bats.sh" --formatter tap $files >"$build/bats.log" 2>&1 || status=1
tail -n 1 "$build/bats.log"
[ "$status" -eq 0 ] || grep -E -A 12 '^not ok' "$build/bats.log" | head -n 80 >&2
if [ -n "$(ls -A "$reports")" ]; then
  status=1
  echo "sanitize: sanitizer reports in $reports:" >&2
  for r in "$reports"/*; do
    echo "--- $r" >&2
    head -n 40 "$r" >&2
  done
fi
exit "$status"
