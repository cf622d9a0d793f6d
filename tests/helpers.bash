# Shared by every tests/*.bats: a private --root and bundle per test, a unique container id, and
# a teardown that removes what the test made even when it failed.
bats_require_minimum_version 1.5.0

AGENTRT=${AGENTRT:-$BATS_TEST_DIRNAME/../agentrt}
source "$BATS_TEST_DIRNAME/lib/rootfs.sh"
source "$BATS_TEST_DIRNAME/lib/probe.sh"
source "$BATS_TEST_DIRNAME/lib/debian.sh"

# Raw call with the test's private root, no bats `run`.
__agentrt() { "$AGENTRT" --root "$ROOT/state" "$@"; }

# bats shows this only when the test fails.
agentrt() {
  run __agentrt "$@"
  echo "agentrt $* (status=$status)" >&2
  echo "$output" >&2
}

# For create and run -d: the container keeps the stdio it was given, so a pipe that bats reads
# would never reach EOF.  Its stdio goes to $ROOT/stdio.log instead; status and output are
# agentrt's own (on stderr, which the container does not inherit here).
agentrt_detached() {
  status=0
  __agentrt "$@" </dev/null >>"$ROOT/stdio.log" 2>"$ROOT/agentrt.err" || status=$?
  output=$(cat "$ROOT/agentrt.err")
  mapfile -t lines <<<"$output"
  echo "agentrt $* (status=$status)" >&2
  echo "$output" >&2
}

update_config() { jq "$@" "$BUNDLE/config.json" >"$BUNDLE/config.json.new" && mv "$BUNDLE/config.json.new" "$BUNDLE/config.json"; }

# setup_root: a private directory for this test, with ROOT/state as --root.
setup_root() {
  ROOT=$(mktemp -d "${BATS_RUN_TMPDIR:-/tmp}/agentrt.XXXXXX")
  # A container's root in a user namespace is an unprivileged host uid: it must be able to
  # reach the bundle.
  chmod 0711 "$ROOT" "${BATS_RUN_TMPDIR:-/tmp}"
  mkdir -p "$ROOT/state"
  BUNDLE="$ROOT/bundle"
  CID="t${BATS_TEST_NUMBER}-$$-$RANDOM"
}

# setup_busybox: setup_root plus a bundle with a busybox rootfs and agentrt's default config.
setup_busybox() {
  setup_root
  mkdir -p "$BUNDLE"
  rootfs_busybox "$BUNDLE/rootfs"
  "$AGENTRT" spec --bundle "$BUNDLE"
  update_config '.process.terminal = false | .process.args = ["/bin/true"]'
}

# setup_probe: setup_busybox plus /bin/probe (tests/probe/probe.c, built once per run) in the
# rootfs; PROBE is the host's copy, for `probe deny --list`.
setup_probe() {
  setup_busybox
  build_probe "${BATS_RUN_TMPDIR:-/tmp}/probe" "$BUNDLE/rootfs"
  PROBE="${BATS_RUN_TMPDIR:-/tmp}/probe/probe"
}

teardown_root() {
  [ -n "${ROOT:-}" ] || return 0
  local c left
  for c in $(__agentrt list -q 2>/dev/null); do __agentrt delete --force "$c" || true; done
  rm -rf "$ROOT"
  # Every test's containers must leave no cgroup behind: a leak fails the test (and is
  # cleaned here, so the machine is left as it was).
  left=$(cgroups_left)
  if [ -n "$left" ]; then
    echo "cgroups left behind: $left" >&2
    rmdir $left 2>/dev/null || true
    return 1
  fi
}

# cgroups_left: cgroup directories of this test's containers (ids start with $CID).
cgroups_left() {
  [ -n "${CID:-}" ] || return 0
  find /sys/fs/cgroup -maxdepth 6 -type d -name "$CID*" 2>/dev/null | sort -r | tr '\n' ' '
}

# state_dirs_left: what is under --root after a command; tests expect nothing but the compiled
# policy agentrt keeps there for the next container (policy@HASH.bpf, policy/filter.c).
state_dirs_left() { find "$ROOT/state" -mindepth 1 -maxdepth 1 ! -name 'policy@*.bpf' | wc -l; }

# proc_alive PID: PID exists and is not a zombie.  A process whose parent has gone (the
# supervisor, the init of a `run -d`) is a zombie until whoever adopted it reaps it, which may
# be much later: for the tests it is gone.
proc_alive() {
  local st
  st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $st && ${st%% *} != [ZX] ]]
}

# supervisors_left: the live supervisor processes (agentrt-watch, agentrt-sv) of this test's
# root.  They are forks of agentrt: their command line still names --root.
supervisors_left() {
  local p n=0
  for p in /proc/[0-9]*; do
    case $(cat "$p/comm" 2>/dev/null) in
      agentrt-watch | agentrt-sv) ;;
      *) continue ;;
    esac
    proc_alive "${p#/proc/}" || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$ROOT/state" && n=$((n + 1))
  done
  echo "$n"
}

# leaves_nothing: no state directory and no supervisor process of this test is left.
leaves_nothing() {
  local dirs svs
  dirs=$(state_dirs_left) svs=$(supervisors_left)
  echo "left: $dirs state dirs, $svs supervisor processes" >&2
  [ "$dirs" -eq 0 ] && [ "$svs" -eq 0 ]
}
