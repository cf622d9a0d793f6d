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

# nest_member FILE N: FILE (a JSON object, not empty) with one more member, "x", that nests N
# arrays, [[[…]]]: spliced in as text, since jq cannot read what is that deep.
nest_member() {
  jq -c . "$1" | sed 's/}$/,"x":/' >"$1.new"
  { head -c "$2" /dev/zero | tr '\0' '['; head -c "$2" /dev/zero | tr '\0' ']'; echo '}'; } >>"$1.new"
  mv "$1.new" "$1"
}

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

# state_dirs_left [ROOT]: what is under a --root ($ROOT/state by default) after a command; tests
# expect nothing but the compiled policy agentrt keeps there for the next container
# (policy@HASH.bpf, policy/filter.c).
state_dirs_left() { find "${1:-$ROOT/state}" -mindepth 1 -maxdepth 1 ! -name 'policy@*.bpf' | wc -l; }

# proc_alive PID: PID exists and is not a zombie.  A process whose parent has gone (the
# supervisor, the init of a `run -d`) is a zombie until whoever adopted it reaps it, which may
# be much later: for the tests it is gone.
proc_alive() {
  local st
  st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $st && ${st%% *} != [ZX] ]]
}

# supervisors_left [WORD]: how many live supervisor processes (agentrt-watch, agentrt-sv) have
# WORD in their command line (default: this test's root, $ROOT/state).  They are forks of
# agentrt: their command line still names --root, the bundle and the container id.
supervisors_left() {
  local p n=0 word=${1:-$ROOT/state}
  for p in /proc/[0-9]*; do
    case $(cat "$p/comm" 2>/dev/null) in
      agentrt-watch | agentrt-sv) ;;
      *) continue ;;
    esac
    proc_alive "${p#/proc/}" || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$word" && n=$((n + 1))
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

# ns_owner PID: the host uid that owns the user namespace of PID (NS_GET_OWNER_UID).
ns_owner() {
  python3 -c 'import fcntl, struct, sys
with open("/proc/%s/ns/user" % sys.argv[1]) as f:
    print(struct.unpack("I", fcntl.ioctl(f, 0xb704, bytes(4)))[0])' "$1"
}

# wait_for DESC CMD...: polls CMD until it succeeds, 10 s at most.
wait_for() {
  local desc=$1 i
  shift
  for ((i = 0; i < 100; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  echo "timed out waiting for $desc" >&2
  return 1
}

# wait_nothing_left SECONDS WHAT LISTER [ARGS...]: polls LISTER ARGS (which prints one line for
# each thing of WHAT that is left) until it prints nothing, SECONDS at most (an engine may still
# be cleaning up when the command that removed a container has returned); then prints what is
# left and fails.
wait_nothing_left() {
  local tenths=$(($1 * 10)) what=$2 left i
  shift 2
  for ((i = 0; i < tenths; i++)); do
    left=$("$@")
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  echo "left of $what:" >&2
  echo "$left" >&2
  return 1
}

# serve [ADDR] TAG: a TCP server on the host at ADDR (default 127.0.0.1; ::1 for IPv6), on a
# free port it picks itself (PORT gets it), that answers each connection with "TAG:" and what it
# read (what came within a second).  Its pid is added to SERVER_PIDS: the test's teardown stops
# it with servers_stop.
serve() {
  local addr=127.0.0.1 portfile
  [ $# -lt 2 ] || { addr=$1; shift; }
  portfile=$(mktemp -u "${BATS_TEST_TMPDIR:-${BATS_RUN_TMPDIR:-/tmp}}/port.XXXXXX")
  python3 - "$addr" "$1" "$portfile" <<'PY' 3>&- &
import os, socket, sys, threading
addr, tag, portfile = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_STREAM)
s.bind((addr, 0))
s.listen(64)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
def answer(c):
    c.settimeout(1)
    try:
        data = c.recv(4096)
    except OSError:
        data = b""
    c.sendall(tag + b":" + data)
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=answer, args=(c,), daemon=True).start()
PY
  SERVER_PIDS+=($!)
  wait_for "the server's port" test -s "$portfile"
  PORT=$(cat "$portfile")
}

# servers_stop: stops the servers serve started, by pid.
servers_stop() {
  local p
  for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  SERVER_PIDS=()
}
