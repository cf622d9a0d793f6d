#!/bin/sh
# `make fuzz`: builds the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang and the address and
# undefined sanitizers in BUILDDIR, from DISTDIR (a `make distdir` copy of the sources: this
# tree may be configured for its own build, and configure refuses a second build beside it),
# then runs each for FUZZ_SECONDS over a working corpus seeded from tests/fuzz/corpus (the JSON
# targets, with spec.dict) or tests/fuzz/corpus-TARGET.  A crash,
# a leak, a hang (10 s for one input) or a sanitizer report fails it; the input is left in
# BUILDDIR/crash-*.  Usage: FUZZ_SECONDS=60 run.sh DISTDIR BUILDDIR
set -eu
dist=$1 build=$2 seconds=${FUZZ_SECONDS:-60}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
command -v clang >/dev/null || { echo "fuzz: clang is missing: tools/install-deps.sh --tests" >&2; exit 1; }
mkdir -p "$build/src"
build=$(cd "$build" && pwd)
# Timestamps are kept (distdir copies with them): an unchanged file is not rebuilt.
cp -pR "$dist/." "$build/src/"
cd "$build/src"
if [ ! -f config.status ] || [ configure -nt config.status ]; then
  ./configure -q CC=clang CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san" \
    LDFLAGS="$san" GIT_COMMIT=unknown
fi
targets="spec profile dns netpolicy"
make -j"$(nproc)" $(for t in $targets; do echo tests/fuzz/fuzz_$t; done) >"$build/build.log" 2>&1 ||
  { tail -n 30 "$build/build.log" >&2; exit 1; }
status=0
for t in $targets; do
  case $t in
    spec | profile) seeds=tests/fuzz/corpus dict=-dict=tests/fuzz/spec.dict ;;
    *) seeds=tests/fuzz/corpus-$t dict= ;;
  esac
  mkdir -p "$build/corpus-$t"
  echo "fuzz: fuzz_$t for ${seconds}s"
  rc=0
  ./tests/fuzz/fuzz_"$t" -max_total_time="$seconds" -timeout=10 $dict \
    -artifact_prefix="$build/crash-$t-" -print_final_stats=1 "$build/corpus-$t" "$seeds" \
    >"$build/fuzz_$t.log" 2>&1 || rc=$?
  grep -E '^#[0-9]+' "$build/fuzz_$t.log" | tail -n 1
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$build/fuzz_$t.log" | tr '\n' ' '
  echo
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "fuzz: fuzz_$t failed ($rc): $build/fuzz_$t.log" >&2
    grep -E -A 30 '^==[0-9]+==|runtime error|Timeout|out-of-memory' "$build/fuzz_$t.log" | head -n 60 >&2
  fi
done
exit "$status"
