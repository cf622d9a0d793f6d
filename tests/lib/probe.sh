# The syscall probe (tests/probe/probe.c), built once per test run and copied into the rootfs
# of each container that runs it.  Source this file; it defines build_probe.

PROBE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../probe" && pwd)/probe.c

# build_probe DIR [ROOTFS]: builds DIR/probe unless it is there and newer than its source, then,
# with ROOTFS, copies it to ROOTFS/bin/probe.  DIR is meant to be per run ($BATS_RUN_TMPDIR):
# bats may run tests in parallel, so the build holds a lock and renames a finished binary into
# place, and a test never sees half a binary.
build_probe() {
  local dir=$1 rootfs=${2:-} fd rc=0
  mkdir -p "$dir" || return 1
  if [ ! -x "$dir/probe" ] || [ "$PROBE_SRC" -nt "$dir/probe" ]; then
    exec {fd}>"$dir/probe.lock" || return 1
    flock "$fd"
    if [ ! -x "$dir/probe" ] || [ "$PROBE_SRC" -nt "$dir/probe" ]; then
      # -Werror: a warning here is a bug in the probe, and the probe is what the tests trust.
      gcc -static -O2 -Wall -Wextra -Werror -o "$dir/probe.new" "$PROBE_SRC" \
        && mv -f "$dir/probe.new" "$dir/probe" || rc=$?
    fi
    exec {fd}>&-
    [ "$rc" -eq 0 ] || { echo "build_probe: gcc -static failed for $PROBE_SRC" >&2; return "$rc"; }
  fi
  if [ -n "$rootfs" ]; then
    mkdir -p "$rootfs/bin" && cp "$dir/probe" "$rootfs/bin/probe"
  fi
}
