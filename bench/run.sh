#!/bin/bash
# bench/run.sh: agentrt side by side with crun, runc and runsc (gVisor), all from Debian's
# packages, in one run; medians and ratios to crun.  See bench/README.md.
#
#   bench/run.sh               install what is missing, measure, write bench/results.{md,tsv,png}
#   bench/run.sh bundle DIR    only build the bundles (DIR/true DIR/sleep DIR/idle DIR/sc
#                              DIR/sc-tcp, sharing DIR/rootfs, which holds /sc-bench and
#                              /notify-rtt; and the workloads DIR/py-pass ... DIR/pip on the
#                              Debian rootfs of tests/lib/debian.sh), to
#                              rerun a figure by hand with the command the table names (needs
#                              runc, jq, gcc and busybox-static)
#
# Environment: AGENTRT (the binary; default: ../agentrt beside this directory), BENCH_OUT (where
# results go; default: this directory), BENCH_WARMUP/BENCH_RUNS (the lifecycle rows' warm-up
# and timed rounds, default 2/10), SC_RUNS/SC_BUDGET_MS (sc-bench and notify-rtt: 9 runs, each
# its own container or process, of >= 100 ms per test), NOTIFY_BASE (the notify-rtt test the
# supervised calls are set against; default same-cpu-sync), BENCH_WL_WARMUP/BENCH_WL_RUNS (the
# workloads' rounds, 1/9), BENCH_IDLE_N
# (idle containers per peer for the footprint, 20), BENCH_SCALE_LOOPS/BENCH_SCALE_SECONDS (the
# parallel create/start/delete loops, 4 for 10 s), BENCH_AGENT_OPTS (what agentrt's full agent
# sandbox column adds to run and create), BENCH_PEERS (which peers; default all), BENCH_SECTIONS (which parts to run; default all:
# lifecycle syscalls workloads footprint scale).
#
# What this changes on the host: nothing but its containers.  If crun refuses the hybrid cgroup
# layout, the bench runs itself again in a mount namespace of its own (unshare --mount
# --propagation private) and unmounts the cgroup2 mount there, not on the host.  Every container has a unique id and a private --root under a
# temporary directory; everything is deleted at exit.  No sysctl is touched.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(dirname "$BENCH_DIR")
AGENTRT=${AGENTRT:-$SRC_DIR/agentrt}
OUT_DIR=${BENCH_OUT:-$BENCH_DIR}
# BENCH_QUICK=1: every part once, with the fewest runs, to check that the bench runs end to end
# (a minute or two; its figures mean little).  Any setting below still overrides it.
if [ "${BENCH_QUICK:-0}" = 1 ]; then
  : "${BENCH_WARMUP:=0}" "${BENCH_RUNS:=2}" "${SC_RUNS:=1}" "${SC_BUDGET_MS:=20}"
  : "${BENCH_WL_WARMUP:=0}" "${BENCH_WL_RUNS:=1}" "${BENCH_IDLE_N:=5}"
  : "${BENCH_SCALE_LOOPS:=2}" "${BENCH_SCALE_SECONDS:=2}"
fi
WARMUP=${BENCH_WARMUP:-2}
RUNS=${BENCH_RUNS:-10}
SC_RUNS=${SC_RUNS:-9}
SC_BUDGET_MS=${SC_BUDGET_MS:-100}
# agentrt three times: its default platform (seccomp, the supervisor), `--platform none` (no
# supervisor; only when this agentrt has the flag) and `--platform ptrace` (the same policy
# through ptrace stops; its column says "not built" for an agentrt that refuses it).
PEERS=(crun runc runsc agentrt agentrt-none agentrt-ptrace agentrt-agent agentrt-strict)
ALL_PEERS=("${PEERS[@]}")
# BENCH_PEERS: only these of PEERS, in that order (to rerun some by hand; crun is the baseline).
if [ -n "${BENCH_PEERS:-}" ]; then read -r -a PEERS <<<"$BENCH_PEERS"; fi
# The full agent sandbox (issue 15): the agent profile (user and network namespaces, no
# capabilities, cgroup limits, timeout), the egress broker, a size-limited ephemeral rootfs and
# canaries, all on the same plain bundles the other peers run.  192.0.2.1 (TEST-NET-1) is never
# dialed: the allowlist is only set up.  Its column has the lifecycle and workload rows only
# (AGENT_ROWS); the system calls, footprint and scale are the default column's business.
AGENT_OPTS=${BENCH_AGENT_OPTS:---agent --net-allow 192.0.2.1:443 --disk 64m --canary /root/.aws/credentials,/root/.ssh/id_ed25519}
# The parts of the bench that run (BENCH_SECTIONS, to rerun some by hand: a part left out says
# "not measured" in its rows).
SECTIONS=" ${BENCH_SECTIONS:-lifecycle syscalls workloads footprint scale} "
section() { [[ $SECTIONS == *" $1 "* ]]; } # NAME: whether that part runs
PACKAGES=(crun runc runsc hyperfine gnuplot-nox jq busybox-static gcc libc6-dev iproute2
  util-linux golang-github-containers-common)
# The OCI seccomp profile crun and runc also run the system-call tests with (Podman's, which
# is Docker's default), so that agentrt's filter is set against a runtime that has one too: any
# filter sends every system call down the kernel's slower entry path.
SECCOMP_PROFILE=${BENCH_SECCOMP_PROFILE:-/usr/share/containers/seccomp.json}
PROF_PEERS=(crun runc)
SC_TESTS=(getppid fcntl uname open-close open-proc stat fork-exec tcp-connect)
# notify-rtt's tests (bench/notify-rtt.c), run on the host: the raw round trip, and the least an
# emulated uname costs (same-cpu-sync-uname: the round trip and the answer written into the caller).
RTT_TESTS=(native same-cpu other-cpu same-cpu-sync unpinned unpinned-sync same-cpu-sync-uname)
# The sc-bench tests whose call the supervisor answers (DESIGN.md: uname, execve, connect), and
# the round trip their cost is set against (NOTIFY_BASE: one of RTT_TESTS but native).
SUPERVISED=(uname fork-exec tcp-connect)
NOTIFY_BASE=${NOTIFY_BASE:-same-cpu-sync}
CGROOT=/sys/fs/cgroup
# Real workloads (bundles DIR/NAME on the Debian rootfs), each timed as a whole `run` in rounds
# as the lifecycle rows are (BENCH_WL_WARMUP/BENCH_WL_RUNS, default 1/9: a run of runsc's takes
# seconds, but with 5 rounds a workload's ratio to crun moved by 0.05-0.1 between runs).
WORKLOADS=(py-pass py-import py-cpu py-files sh-procs pip)
WL_WARMUP=${BENCH_WL_WARMUP:-1}
WL_RUNS=${BENCH_WL_RUNS:-9}
WL_IMPORTS="json, os, re, subprocess, threading, multiprocessing, asyncio, email, http.client, sqlite3, decimal, xml.etree.ElementTree"
WL_CPU_ITER=13000000 # ~1 s of `n += i` in python3 on these VMs
# The file-heavy task: python3 writes and reads 2000 small files in /tmp (a tmpfs), then one
# grep reads them all again.
WL_FILES_PY='import os
os.mkdir("/tmp/f")
for i in range(2000):
    with open("/tmp/f/%d.txt" % i, "w") as f:
        f.write(("file %d, line of text\n" % i) * 8 + "needle %d\n" % (i % 10))
n = 0
for i in range(2000):
    with open("/tmp/f/%d.txt" % i) as f:
        n += len(f.read())
assert n > 0'
WL_FILES_SH="python3 -c '$WL_FILES_PY' && grep -rl 'needle 7' /tmp/f | wc -l"
WL_PROCS_SH='for i in $(seq 300); do /bin/true; done'
wl_args() { # WORKLOAD: its process.args, as JSON
  case $1 in
  py-pass) jq -nc '["/usr/bin/python3", "-c", "pass"]' ;;
  py-import) jq -nc --arg s "import $WL_IMPORTS" '["/usr/bin/python3", "-c", $s]' ;;
  py-cpu) jq -nc --arg s "n = 0
for i in range($WL_CPU_ITER):
    n += i" '["/usr/bin/python3", "-c", $s]' ;;
  py-files) jq -nc --arg s "$WL_FILES_SH" '["/bin/sh", "-c", $s]' ;;
  sh-procs) jq -nc --arg s "$WL_PROCS_SH" '["/bin/sh", "-c", $s]' ;;
  pip) jq -nc '["/usr/bin/pip", "--version"]' ;;
  esac
}

log() { printf 'bench: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

# ---------------------------------------------------------------------------------------------
# Bundles: one busybox rootfs (tests/lib/rootfs.sh) with the static sc-bench at /sc-bench (and
# notify-rtt at /notify-rtt: run on the host, it is kept there so one path names both), and
# one config (`runc spec`, terminal false, read-only root) that differs between the bundles only
# in process.args.
make_bundles() {
  local dir=$1 spec_tmp
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # Without pipefail: rootfs.sh reads busybox's version through `| sed -n 1p`, and busybox can
  # die of SIGPIPE writing the rest of its help.
  (
    set +o pipefail
    # shellcheck disable=SC1091 # tests/lib/rootfs.sh, beside bench/
    source "$SRC_DIR/tests/lib/rootfs.sh"
    rootfs_busybox "$dir/rootfs"
  )
  gcc -static -O2 -Wall -Wextra -o "$dir/rootfs/sc-bench" "$BENCH_DIR/sc-bench.c"
  gcc -static -O2 -Wall -Wextra -o "$dir/rootfs/notify-rtt" "$BENCH_DIR/notify-rtt.c"
  spec_tmp=$(mktemp -d "$dir/spec.XXXXXX")
  if command -v runc >/dev/null; then
    (cd "$spec_tmp" && runc spec)
  else
    # crun 1.8 refuses agentrt's ociVersion 1.2.0 ("unknown version specified").
    (cd "$spec_tmp" && "$AGENTRT" spec)
    jq '.ociVersion = "1.0.2-dev"' "$spec_tmp/config.json" >"$spec_tmp/c" &&
      mv "$spec_tmp/c" "$spec_tmp/config.json"
  fi
  local name args
  for name in true sleep idle sc sc-tcp; do
    case $name in
    true) args='["/bin/true"]' ;;
    sleep) args='["/bin/sleep","86400"]' ;;
    idle) args='["/bin/sleep","1000"]' ;;
    sc) args="[\"/sc-bench\",\"-r\",\"1\",\"-t\",\"$SC_BUDGET_MS\"]" ;;
    sc-tcp) args="[\"/sc-bench\",\"-r\",\"1\",\"-t\",\"$SC_BUDGET_MS\",\"tcp-connect\"]" ;;
    esac
    mkdir -p "$dir/$name"
    jq --arg root "$dir/rootfs" --argjson args "$args" \
      '.process.terminal = false | .process.args = $args | .root = {path: $root, readonly: true}' \
      "$spec_tmp/config.json" >"$dir/$name/config.json"
  done
  make_profile_bundle "$dir"
  make_workload_bundles "$dir" "$spec_tmp/config.json"
  rm -rf "$spec_tmp"
}

# DIR/sc-prof: DIR/sc with linux.seccomp from SECCOMP_PROFILE.  That file is in the engines'
# format (Docker's and Podman's: includes/excludes by capability and architecture), which the
# engine turns into OCI for the runtime; so does this, for x86_64 and the bundle's bounding
# capabilities.  Without it, DIR/no-profile says why.
PROFILE_TO_OCI='def want($caps):
  (.includes // {}) as $i | (.excludes // {}) as $e |
  ((($i.arches // []) | length) == 0 or (($i.arches // []) | index("amd64")) != null) and
  (($i.caps // []) | all(. as $c | $caps | index($c) != null)) and
  ((($e.arches // []) | index("amd64")) == null) and
  ((($e.caps // []) | any(. as $c | $caps | index($c) != null)) | not);
{defaultAction: .defaultAction}
+ (if .defaultErrnoRet then {defaultErrnoRet: .defaultErrnoRet} else {} end)
+ {architectures: [.archMap[] | select(.architecture == "SCMP_ARCH_X86_64")
                   | .architecture, .subArchitectures[]],
   syscalls: [.syscalls[] | select(want($caps)) | {names, action}
              + (if .errnoRet then {errnoRet} else {} end) + (if .args then {args} else {} end)]}'
make_profile_bundle() { # DIR
  local dir=$1 caps
  rm -f "$dir/no-profile"
  mkdir -p "$dir/sc-prof"
  caps=$(jq -c '.process.capabilities.bounding // []' "$dir/sc/config.json")
  if [ ! -r "$SECCOMP_PROFILE" ] ||
    ! jq --argjson caps "$caps" "$PROFILE_TO_OCI" "$SECCOMP_PROFILE" >"$dir/sc-prof/profile.json" 2>"$dir/sc-prof/profile.err"; then
    echo "no OCI seccomp profile: $SECCOMP_PROFILE is missing or not a Docker/Podman profile (Debian package golang-github-containers-common)" >"$dir/no-profile"
    return 0
  fi
  jq --slurpfile p "$dir/sc-prof/profile.json" '.linux.seccomp = $p[0]' "$dir/sc/config.json" \
    >"$dir/sc-prof/config.json"
}

# The real workloads: the cached Debian rootfs with python3 (tests/lib/debian.sh), shared with
# the tests and so used read-only as root.path, with a tmpfs at /tmp for the file-heavy task.
# Without it, DIR/no-debian says why and the workload rows say so.
make_workload_bundles() { # DIR CONFIG
  local dir=$1 config=$2 debian w
  rm -f "$dir/no-debian"
  if ! debian=$(
    set +o pipefail
    # shellcheck disable=SC1091 # tests/lib/debian.sh, beside bench/
    source "$SRC_DIR/tests/lib/debian.sh"
    debian_rootfs 2>"$dir/debian.err"
  ); then
    echo "no Debian rootfs (tests/lib/debian.sh): $(tail -n1 "$dir/debian.err")" >"$dir/no-debian"
    return 0
  fi
  for w in "${WORKLOADS[@]}"; do
    mkdir -p "$dir/$w"
    jq --arg root "$debian" --argjson args "$(wl_args "$w")" \
      '.process.terminal = false | .process.args = $args | .root = {path: $root, readonly: true}
       | .mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs",
                      options: ["nosuid", "nodev", "mode=1777", "size=256m"]}]' \
      "$config" >"$dir/$w/config.json"
  done
}

# ---------------------------------------------------------------------------------------------
# Each peer's command line, with its private --root, and what its `run` and `create` take
# after the command (CR_OPTS: agentrt's --platform is an option of those two, not global).
declare -A RT CR_OPTS UNAVAIL NOTE VERSION
set_rt() {
  local tmp=$1
  RT[crun]="crun --root $tmp/root-crun"
  RT[runc]="runc --root $tmp/root-runc"
  RT[runsc]="runsc --root $tmp/root-runsc --platform=ptrace --network=none${RUNSC_EXTRA:-}"
  RT[agentrt]="$AGENTRT --root $tmp/root-agentrt"
  RT[agentrt-strict]="$AGENTRT --root $tmp/root-agentrt-strict"
  CR_OPTS[agentrt-strict]=" --policy strict"
  RT[agentrt-none]="$AGENTRT --root $tmp/root-agentrt-none"
  CR_OPTS[agentrt-none]=" --platform none"
  RT[agentrt-ptrace]="$AGENTRT --root $tmp/root-agentrt-ptrace"
  CR_OPTS[agentrt-ptrace]=" --platform ptrace"
  RT[agentrt-agent]="$AGENTRT --root $tmp/root-agentrt-agent"
  CR_OPTS[agentrt-agent]=" $AGENT_OPTS"
}
rt_run() { echo "${RT[$1]} run${CR_OPTS[$1]:-}"; }       # PEER: its `run` command, options and all
rt_create() { echo "${RT[$1]} create${CR_OPTS[$1]:-}"; } # PEER: its `create`

# `__prep PEER PHASE ID`: what hyperfine runs, untimed, before each timed command (--prepare).
if [ "${1:-}" = __prep ]; then
  set_rt "$BENCH_TMP"
  peer=$2 phase=$3 id=$4 rt=${RT[$2]} create=$(rt_create "$2")
  exec </dev/null >/dev/null 2>>"$BENCH_TMP/prep.log"
  $rt delete --force "$id" || true
  case $phase in
  create | run | wl-*) ;;
  start) $create --bundle "$BENCH_TMP/b/true" "$id" ;;
  delete | delete-late)
    $create --bundle "$BENCH_TMP/b/true" "$id"
    $rt start "$id"
    for _ in $(seq 500); do # until /bin/true has exited: delete a stopped container
      if [ "$($rt state "$id" | jq -r .status)" = stopped ]; then
        [ "$phase" = delete ] || sleep 3 # and, for delete-late, whatever winds down after it
        exit 0
      fi
      sleep 0.01
    done
    echo "prep: $peer $id did not stop" >&2
    exit 1
    ;;
  esac
  exit 0
fi

if [ "${1:-}" = bundle ]; then
  [ $# -eq 2 ] || die "usage: $0 bundle DIR"
  make_bundles "$2"
  log "bundles in $2: true sleep idle sc sc-tcp$([ -e "$2/no-profile" ] || echo " sc-prof") (rootfs: $2/rootfs, with sc-bench and notify-rtt)$(
    [ -e "$2/no-debian" ] && echo "; $(cat "$2/no-debian")" || echo " and ${WORKLOADS[*]} (the Debian rootfs)")"
  exit 0
fi
[ $# -eq 0 ] || die "usage: $0 [bundle DIR]"
[ "$(id -u)" -eq 0 ] || die "needs root (containers, and maybe a mount namespace of its own)"

# ---------------------------------------------------------------------------------------------
# Install what is missing, from Debian's packages.  A package that cannot be installed takes
# only its own peer out of the table, with the reason.
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || log "apt-get update failed"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    for p in "${missing[@]}"; do
      apt-get install -y -qq --no-install-recommends "$p" >/dev/null || log "could not install $p"
    done
fi
for tool in hyperfine jq gcc gnuplot busybox nsenter ip; do
  command -v "$tool" >/dev/null || die "$tool is missing and could not be installed"
done
[ -x "$AGENTRT" ] || die "no agentrt binary at $AGENTRT (build it, or set AGENTRT)"
AGENTRT=$(cd "$(dirname "$AGENTRT")" && pwd)/$(basename "$AGENTRT")

TMP=$(mktemp -d /tmp/agentrt-bench.XXXXXX)
chmod 0755 "$TMP"
export BENCH_TMP=$TMP
ID=ab$$ # every container id is $ID-PEER-PHASE: unique on this machine while we run
CGROUP_NOTE=""
# Inside the mount namespace of its own that the bench runs itself again in when crun refuses
# the booted hybrid layout (below): the cgroup2 mount goes from this namespace only, so that
# every peer sees cgroup v1 alone.  Never outside such a namespace: that would be the host's.
if [ "${BENCH_CGROUP_NS:-0}" = 1 ]; then
  [ "$(readlink /proc/self/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] ||
    die "BENCH_CGROUP_NS=1 but not in a mount namespace of its own: not unmounting $CGROOT/unified"
  umount "$CGROOT/unified" || die "could not unmount $CGROOT/unified in the bench's mount namespace"
  CGROUP_NOTE="crun refuses the booted layout (\"${BENCH_CRUN_ERR:-hybrid}\"): the whole bench ran in a mount namespace of its own (\`unshare --mount --propagation private\`) without the cgroup2 mount at $CGROOT/unified, so every peer saw cgroup v1 only (cgroup2 holds only hugetlb here, which no bundle limits); the host's mounts were not touched"
fi

remove_all() { # every container of this run, and the temporary directory
  local peer id q
  for peer in "${PEERS[@]}"; do
    [ -n "${RT[$peer]:-}" ] || continue
    [ -d "$TMP/root-$peer" ] || continue
    q=-q
    [ "$peer" != runsc ] || q=-quiet
    for id in $(${RT[$peer]} list $q 2>/dev/null); do
      case $id in "$ID"-*) ${RT[$peer]} delete --force "$id" >/dev/null 2>&1 ;; esac
    done
  done
  rm -rf --one-file-system "$TMP"
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  remove_all
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Other work on the machine slows every peer alike only while they take turns: the load is
# reported beside the figures (1-minute average, at the start and the end of the run).
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
log "building the bundles in $TMP/b"
make_bundles "$TMP/b"
B=$TMP/b
set_rt "$TMP"
for peer in "${PEERS[@]}"; do mkdir -p "$TMP/root-$peer"; done

# ---------------------------------------------------------------------------------------------
# Which peers run here.  A probe is a `run` of /bin/true; its error is the reason in the table.
probe() { # PEER: 0 if it runs /bin/true here; its stderr in $TMP/probe-PEER.err
  local peer=$1
  $(rt_run "$peer") --bundle "$B/true" "$ID-$peer-probe" </dev/null >/dev/null \
    2>"$TMP/probe-$peer.err"
}
first_error() { # FILE: the runtime's message, one line, without its time and level prefix
  { grep -v '^\s*$' "$1" 2>/dev/null || echo "(no message)"; } | tail -n1 | sed -E 's/^time="[^"]*" level=[a-z]+ msg="(.*)"$/\1/' |
    tr '|' '/' | cut -c1-200
}

for peer in "${ALL_PEERS[@]}"; do # left out by BENCH_PEERS: not probed, not measured
  [[ " ${PEERS[*]} " == *" $peer "* ]] || UNAVAIL[$peer]="not measured: not in BENCH_PEERS"
done
for peer in "${PEERS[@]}"; do
  bin=${RT[$peer]%% *}
  if ! command -v "$bin" >/dev/null; then
    UNAVAIL[$peer]="cannot run here: $bin is not installed (Debian package $peer)"
    continue
  fi
  case $peer in
  agentrt | agentrt-strict | agentrt-none | agentrt-ptrace | agentrt-agent) VERSION[$peer]=$("$AGENTRT" --version | sed -n 1p | sed 's/ version//') ;;
  runsc) VERSION[$peer]="runsc $(runsc --version | sed -n 1p | awk '{print $3}')" ;;
  *) VERSION[$peer]=$($bin --version | sed -n 1p | sed 's/ version//') ;;
  esac
done
# The supervisor and its --platform flag come together: an agentrt without the flag has no
# supervisor, and its default is what `--platform none` would be.  The help is read whole
# first: `| grep -q` could stop reading, and agentrt's SIGPIPE would fail the pipe (pipefail).
HAVE_PLATFORM=0
if grep -q -- --platform <<<"$("$AGENTRT" run --help 2>&1 || true)"; then
  HAVE_PLATFORM=1
else
  UNAVAIL[agentrt-none]="not available: this agentrt has no \`--platform\` (\`agentrt run --help\`), so no supervisor: its default column is \`--platform none\` behaviour"
  UNAVAIL[agentrt-ptrace]="not available: this agentrt has no \`--platform\`"
fi

if [ -z "${UNAVAIL[crun]:-}" ] && ! probe crun; then
  err=$(first_error "$TMP/probe-crun.err")
  # crun 1.8 refuses a hybrid layout whose cgroup2 mount holds a controller (hugetlb, here).
  # Moving hugetlb to a v1 hierarchy of its own for the run changes the whole machine, and the
  # other runtimes at work on it put their containers there (and then the move cannot be
  # undone until they are gone); so the bench runs itself again in a mount namespace of its
  # own, without the cgroup2 mount, and every peer is measured there.
  if [ "${BENCH_CGROUP_NS:-0}" = 1 ]; then
    UNAVAIL[crun]="cannot run here: $err (even without the cgroup2 mount)"
  elif [ "${BENCH_HIDE_UNIFIED:-1}" = 0 ]; then
    UNAVAIL[crun]="cannot run here: $err (the bench did not hide the cgroup2 mount: BENCH_HIDE_UNIFIED=0)"
  elif [[ $err == *hybrid* ]] && mountpoint -q "$CGROOT/unified" && command -v unshare >/dev/null; then
    log "crun: \"$err\": running the bench again in a mount namespace without $CGROOT/unified"
    set +e
    remove_all
    trap - EXIT INT TERM
    exec unshare --mount --propagation private env BENCH_CGROUP_NS=1 BENCH_CRUN_ERR="$err" \
      bash "$BENCH_DIR/run.sh"
  else
    UNAVAIL[crun]="cannot run here: $err"
  fi
fi
if [ -z "${UNAVAIL[runsc]:-}" ] && ! probe runsc; then
  export RUNSC_EXTRA=" --ignore-cgroups"
  set_rt "$TMP"
  probe runsc || UNAVAIL[runsc]="cannot run here: $(first_error "$TMP/probe-runsc.err")"
fi
for peer in runc agentrt agentrt-strict agentrt-none agentrt-ptrace agentrt-agent; do
  if [ -z "${UNAVAIL[$peer]:-}" ] && ! probe $peer; then
    err=$(first_error "$TMP/probe-$peer.err")
    # A platform an older agentrt refuses as not written yet is "not built".
    if [[ $peer == agentrt-ptrace && $err == *"not supported"* ]]; then
      UNAVAIL[$peer]="not built: \`agentrt run --platform ptrace\` says \"$err\""
    else
      UNAVAIL[$peer]="cannot run here: $err"
    fi
  fi
done
NOTE[runsc]="gVisor, --platform=ptrace (/dev/kvm here is a PVM device), --network=none${RUNSC_EXTRA:+, --ignore-cgroups}"
declare -A LABEL=([agentrt-strict]="agentrt --policy strict" [agentrt-none]="agentrt --platform none" [agentrt-ptrace]="agentrt --platform ptrace"
  [agentrt-agent]="agentrt --agent (the full agent sandbox)")
NOTE[agentrt-agent]="\`run\` and \`create\` with \`$AGENT_OPTS\`: the agent profile (user and network namespaces, no capabilities, memory, CPU and pids limits, a timeout), the egress broker's allowlist, an ephemeral rootfs of that size with the canaries planted, and the supervisor; lifecycle and workload rows only"
NOTE[agentrt-strict]="\`run\` and \`create\` with \`--policy strict\`: the strict policy (the agent profile's allowlist), on the default platform"
NOTE[agentrt-ptrace]="\`run\` and \`create\` with \`--platform ptrace\`: the supervisor through ptrace stops"
if [ "$HAVE_PLATFORM" = 1 ]; then
  LABEL[agentrt]="agentrt (default: seccomp)"
  NOTE[agentrt]="the default platform, seccomp: uname, execve, connect and bind go to the supervisor (seccomp user notification), the rest stays in the kernel"
  NOTE[agentrt-none]="\`run\` and \`create\` with \`--platform none\`: no supervisor, plain runc behaviour"
else
  NOTE[agentrt]="only \`--platform none\` behaviour exists today: no supervisor yet, so no system call is supervised"
fi
NOTE[crun]=${CGROUP_NOTE:-"booted cgroup layout"}
NOTE[runc]="booted cgroup layout${CGROUP_NOTE:+ (without the cgroup2 mount, see crun)}"
for peer in "${PEERS[@]}"; do
  [ -z "${UNAVAIL[$peer]:-}" ] || log "$peer: ${UNAVAIL[$peer]}"
done

# ---------------------------------------------------------------------------------------------
# Lifecycle: the peers take turns, round after round, as the system-call rows do (below).  This
# VM's speed drifts by 10-30% over seconds, so peers timed one block of runs after the other
# would measure the drift: once, block by block, `python3 -c pass` took 42.8 ms under agentrt and
# 26.6 ms under agentrt --platform none, and 31.0 and 31.2 ms taking turns.  Each single run is
# timed by hyperfine (no shell between it and the runtime: -N), which runs the untimed step
# before it (`__prep`, above) as --prepare.  VAL[peer,row] is the median in the row's unit, or
# the reason there is none.
declare -A VAL
LIFECYCLE=(run create start delete exec)
declare -A LC_LABEL=([run]="run /bin/true" [create]="create" [start]="start" [delete]="delete"
  [exec]="exec /bin/true into a running container")
declare -A LC_CMD=(
  [run]='`$RT run --bundle $B/true ID`'
  [create]='`$RT create --bundle $B/true ID` (each after `$RT delete --force ID`)'
  [start]='`$RT start ID` (each after `$RT create --bundle $B/true ID`)'
  [delete]='`$RT delete ID` (each after create, start and /bin/true having exited)'
  [exec]='`$RT exec ID /bin/true` (ID from `$RT create --bundle $B/sleep ID; $RT start ID`)'
)

fmt() { # VALUE: three significant figures, no exponent
  awk -v v="$1" 'BEGIN { if (v >= 100) printf "%.0f", v; else if (v >= 10) printf "%.1f", v; else printf "%.2f", v }'
}
is_num() { [[ ${1:-} =~ ^[0-9]+(\.[0-9]+)?$ ]]; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
hf_id() { # PEER PHASE: the container id PEER's PHASE uses in every round
  case $2 in
  delete-late) echo "$ID-$1-dlate" ;;
  *) echo "$ID-$1-$2" ;;
  esac
}
hf_cmd() { # PEER PHASE: the command hyperfine times
  local peer=$1 phase=$2 id
  id=$(hf_id "$peer" "$phase")
  case $phase in
  run) echo "$(rt_run "$peer") --bundle $B/true $id" ;;
  create) echo "$(rt_create "$peer") --bundle $B/true $id" ;;
  start) echo "${RT[$peer]} start $id" ;;
  delete | delete-late) echo "${RT[$peer]} delete $id" ;;
  exec) echo "${RT[$peer]} exec $id /bin/true" ;;
  wl-*) echo "$(rt_run "$peer") --bundle $B/${phase#wl-} $id" ;;
  esac
}
hf_once() { # PEER PHASE: hyperfine times the command once, after its --prepare; prints ms
  local peer=$1 phase=$2 json=$TMP/hf-$1-$2.json
  local -a prep=()
  [ "$phase" = exec ] || prep=(--prepare "bash $BENCH_DIR/run.sh __prep $peer $phase $(hf_id "$peer" "$phase")")
  hyperfine -N --style none --runs 1 "${prep[@]}" --export-json "$json" "$(hf_cmd "$peer" "$phase")" \
    </dev/null >"$TMP/hf-$peer-$phase.out" 2>&1 &&
    jq -r '.results[0].times[0] * 1000' "$json"
}
declare -A HFV # the timed runs of each peer and row, in ms
# WARMUP+RUNS rounds; in each, every peer runs the command once, in an order rotated by one
# each round.  The warm-up rounds are not counted; VAL[PEER,PHASE] is the median of the RUNS
# others.  A peer whose run fails is `failed:` and out of the later rounds.
hf_rounds() { # PHASE WARMUP RUNS PEER...
  local phase=$1 warmup=$2 runs=$3 round i n peer t
  shift 3
  local -a peers=("$@")
  n=${#peers[@]}
  for peer in "${peers[@]}"; do
    VAL[$peer,$phase]="" HFV[$peer,$phase]=""
    log "$peer $phase: $(hf_cmd "$peer" "$phase")"
  done
  for round in $(seq $((warmup + runs))); do
    log "$phase, round $round of $((warmup + runs))$([ "$round" -gt "$warmup" ] || echo " (warm-up)")"
    for i in $(seq 0 $((n - 1))); do
      peer=${peers[$(((i + round) % n))]}
      [ -z "${VAL[$peer,$phase]}" ] || continue
      if t=$(hf_once "$peer" "$phase"); then
        [ "$round" -le "$warmup" ] || HFV[$peer,$phase]+=" $t"
      else
        VAL[$peer,$phase]="failed: $(first_error "$TMP/hf-$peer-$phase.out")"
      fi
    done
  done
  for peer in "${peers[@]}"; do
    ${RT[$peer]} delete --force "$(hf_id "$peer" "$phase")" </dev/null >/dev/null 2>&1 || true
    [ -n "${VAL[$peer,$phase]}" ] || [ -z "${HFV[$peer,$phase]}" ] ||
      VAL[$peer,$phase]=$(median <<<"${HFV[$peer,$phase]}")
  done
}

RUN_PEERS=() # the peers that run here
for peer in "${PEERS[@]}"; do [ -n "${UNAVAIL[$peer]:-}" ] || RUN_PEERS+=("$peer"); done
# The agent sandbox's column has the lifecycle and workload rows only.
BASE_PEERS=()
for peer in "${RUN_PEERS[@]}"; do [ "$peer" = agentrt-agent ] || BASE_PEERS+=("$peer"); done
if section lifecycle; then
  for phase in run create start delete; do
    hf_rounds "$phase" "$WARMUP" "$RUNS" "${RUN_PEERS[@]}"
  done
  # A delete far slower than crun's may be waiting for something to wind down after the
  # container's process exited (runsc: its sandbox): time it again, 3 s after the exit.
  late=()
  for peer in "${RUN_PEERS[@]}"; do
    if is_num "${VAL[$peer,delete]}" && awk -v v="${VAL[$peer,delete]}" 'BEGIN { exit !(v > 100) }'; then
      late+=("$peer")
    fi
  done
  [ ${#late[@]} -eq 0 ] || hf_rounds delete-late 0 3 "${late[@]}"
  for peer in "${late[@]}"; do
    if is_num "${VAL[$peer,delete-late]}"; then
      NOTE[$peer,delete]="deleting 3 s after /bin/true exited instead takes $(fmt "${VAL[$peer,delete-late]}") ms (median of 3): right after the exit, \`$peer delete\` waits for the rest of the container (runsc: its sandbox) to wind down"
    fi
  done
  # exec goes into each peer's running sleep container, started before the rounds.
  exec_peers=()
  for peer in "${RUN_PEERS[@]}"; do
    id=$(hf_id "$peer" exec)
    if $(rt_create "$peer") --bundle "$B/sleep" "$id" </dev/null >/dev/null 2>"$TMP/exec-$peer.err" &&
      ${RT[$peer]} start "$id" </dev/null >/dev/null 2>>"$TMP/exec-$peer.err"; then
      exec_peers+=("$peer")
    else
      VAL[$peer,exec]="failed: $(first_error "$TMP/exec-$peer.err")"
    fi
  done
  [ ${#exec_peers[@]} -eq 0 ] || hf_rounds exec "$WARMUP" "$RUNS" "${exec_peers[@]}"
  for peer in "${RUN_PEERS[@]}"; do
    ${RT[$peer]} kill "$(hf_id "$peer" exec)" KILL >/dev/null 2>&1 || true
    ${RT[$peer]} delete --force "$(hf_id "$peer" exec)" </dev/null >/dev/null 2>&1 || true
  done
fi

# ---------------------------------------------------------------------------------------------
# System calls inside the container: sc-bench as the container's process, and on the host.
# This VM's speed for the same call drifts between processes (by up to 1.7x, in steps), so the
# runs are not made in one container: each run is its own container (`-r 1`), and the peers take
# turns, round after round, in a rotating order; the figure is the median over the rounds.
declare -A SC_LABEL=([getppid]="getppid (allowed call)" [fcntl]="fcntl F_GETFD (allowed; its command checked under strict)" [uname]="uname"
  [open-close]="open+close of a regular file (/etc/passwd)" [open-proc]="open+close of /proc/meminfo"
  [stat]="stat (/etc/passwd)" [fork-exec]="fork+exec+wait (a static binary)"
  [tcp-connect]="TCP connect to a loopback server in the container (socket+connect+close)")
declare -A SCV SCNA # the values of each round; the reason a test could not run

parse_sc() { # PEER FILE [PREFIX]: sc-bench's lines, appended to SCV[PEER,PREFIXTEST] (or SCNA)
  local peer=$1 file=$2 prefix=${3:-} name value rest
  while IFS=$'\t' read -r name value rest; do
    case $name in '#'* | '') continue ;; esac
    name=$prefix$name
    if [ "$value" = n/a ]; then
      SCNA[$peer,$name]="n/a: $(tr '|' '/' <<<"$rest")"
    else
      SCV[$peer,$name]="${SCV[$peer,$name]:-} $value"
    fi
  done <"$file"
}

# A peer that leaves the container's loopback down cannot connect to 127.0.0.1 (runc, crun and
# runsc bring lo up themselves).  Measure it anyway, with lo brought up from the host (nsenter)
# between create and start, and say so next to the figure.
tcp_with_lo_up() { # PEER ROUND
  local peer=$1 id=$ID-$1-sctcp$2 out=$TMP/sctcp-$1-$2 pid status
  $(rt_create "$peer") --bundle "$B/sc-tcp" "$id" </dev/null >"$out.out" 2>"$out.err" || return 1
  pid=$(${RT[$peer]} state "$id" | jq -r .pid) &&
    nsenter --net="/proc/$pid/ns/net" ip link set lo up &&
    ${RT[$peer]} start "$id" </dev/null >/dev/null 2>>"$out.err" || {
    ${RT[$peer]} delete --force "$id" >/dev/null 2>&1
    return 1
  }
  for _ in $(seq 600); do
    status=$(${RT[$peer]} state "$id" 2>/dev/null | jq -r .status) || status=gone
    [ "$status" = running ] || break
    sleep 0.1
  done
  ${RT[$peer]} delete --force "$id" >/dev/null 2>&1 || true
  parse_sc "$peer" "$out.out"
  NOTE[$peer,tcp-connect]="under a plain \`run\` the connect fails (\"${SCNA[$peer,tcp-connect]#n/a: }\"): $peer leaves the container's lo down, where runc, crun and runsc bring it up; measured instead with lo brought up from the host by \`nsenter --net=/proc/PID/ns/net ip link set lo up\` between \`\$RT create --bundle \$B/sc-tcp ID\` and \`\$RT start ID\`"
}

sc_once() { # PEER ROUND (PEER+prof: PEER with the OCI seccomp profile, bundle sc-prof)
  local peer=$1 round=$2 out=$TMP/sc-$1-$2 t rt
  if [[ $peer == *+prof ]]; then
    rt=${peer%+prof}
    if $(rt_run "$rt") --bundle "$B/sc-prof" "$ID-$rt-scprof$round" </dev/null >"$out.out" 2>"$out.err"; then
      parse_sc "$rt" "$out.out" prof-
    else
      for t in "${SC_TESTS[@]}"; do SCNA[$rt,prof-$t]="failed: $(first_error "$out.err")"; done
    fi
    return
  fi
  if [ "$peer" = host ]; then
    "$B/rootfs/sc-bench" -r 1 -t "$SC_BUDGET_MS" >"$out.out"
    parse_sc host "$out.out"
    # The raw notify round trip, in the host's turn: it drifts between processes as the rest.
    if "$B/rootfs/notify-rtt" -r 1 -t "$SC_BUDGET_MS" >"$out.rtt" 2>"$out.rtt.err"; then
      parse_sc host "$out.rtt" rtt-
    else
      for t in "${RTT_TESTS[@]}"; do SCNA[host,rtt-$t]="failed: $(first_error "$out.rtt.err")"; done
    fi
    return
  fi
  if $(rt_run "$peer") --bundle "$B/sc" "$ID-$peer-sc$round" </dev/null >"$out.out" 2>"$out.err"; then
    parse_sc "$peer" "$out.out"
  else
    for t in "${SC_TESTS[@]}"; do SCNA[$peer,$t]="failed: $(first_error "$out.err")"; done
  fi
  if grep -q $'^tcp-connect\tn/a' "$out.out"; then
    tcp_with_lo_up "$peer" "$round" || log "$peer: tcp-connect with lo brought up failed too"
  fi
}

SC_PEERS=(host "${BASE_PEERS[@]}")
for peer in "${PROF_PEERS[@]}"; do
  if [ -e "$B/no-profile" ]; then
    for t in "${SC_TESTS[@]}"; do VAL[$peer,prof-$t]="not measured: $(cat "$B/no-profile")"; done
  elif [ -z "${UNAVAIL[$peer]:-}" ]; then
    SC_PEERS+=("$peer+prof")
  fi
done
section syscalls || SC_RUNS=0
for round in $(seq "$SC_RUNS"); do
  log "sc-bench, round $round of $SC_RUNS"
  n=${#SC_PEERS[@]}
  for i in $(seq 0 $((n - 1))); do
    sc_once "${SC_PEERS[$(((i + round) % n))]}" "$round"
  done
done
for sc_peer in "${SC_PEERS[@]}"; do
  peer=${sc_peer%+prof}
  if [ "$peer" = "$sc_peer" ]; then tests=("${SC_TESTS[@]}"); else tests=("${SC_TESTS[@]/#/prof-}"); fi
  [ "$peer" != host ] || tests+=("${RTT_TESTS[@]/#/rtt-}")
  for t in "${tests[@]}"; do
    if [ -n "${SCV[$peer,$t]:-}" ]; then
      VAL[$peer,$t]=$(median <<<"${SCV[$peer,$t]}")
      [ "$(wc -w <<<"${SCV[$peer,$t]}")" -eq "$SC_RUNS" ] ||
        NOTE[$peer,$t]="${NOTE[$peer,$t]:+${NOTE[$peer,$t]}; }only $(wc -w <<<"${SCV[$peer,$t]}") of $SC_RUNS runs gave a figure (${SCNA[$peer,$t]:-})"
    else
      VAL[$peer,$t]=${SCNA[$peer,$t]:-not measured}
    fi
  done
done

# ---------------------------------------------------------------------------------------------
# Real workloads on the Debian rootfs: each a whole `run`, timed in rounds as the lifecycle rows
# are (fewer: one of runsc's takes seconds), workload by workload, so that the VM's drift falls
# on all peers alike.
declare -A WL_LABEL=([py-pass]="python3 -c pass" [py-import]="python3: import 12 standard modules"
  [py-cpu]="python3: CPU-bound loop (~1 s)" [py-files]="file-heavy: write, read and grep 2000 small files in a tmpfs /tmp"
  [sh-procs]="process-heavy: sh runs /bin/true 300 times" [pip]="pip --version")
declare -A WL_PROC=([py-pass]='`python3 -c pass`' [py-import]="\`python3 -c \"import $WL_IMPORTS\"\`"
  [py-cpu]="\`python3 -c \"n = 0; for i in range($WL_CPU_ITER): n += i\"\` (as three lines)"
  [py-files]='`sh -c "python3 -c '"'"'…'"'"' && grep -rl '"'"'needle 7'"'"' /tmp/f | wc -l"`: python3 writes 2000 files of 9 lines to /tmp/f, then reads them back (bench/run.sh: WL_FILES_PY)'
  [sh-procs]="\`sh -c '$WL_PROCS_SH'\` (dash)" [pip]='`pip --version`')
if [ -e "$B/no-debian" ]; then
  for w in "${WORKLOADS[@]}"; do
    for peer in "${PEERS[@]}"; do VAL[$peer,wl-$w]="not measured: $(cat "$B/no-debian")"; done
  done
elif section workloads; then
  for w in "${WORKLOADS[@]}"; do
    hf_rounds "wl-$w" "$WL_WARMUP" "$WL_RUNS" "${RUN_PEERS[@]}"
  done
fi

# ---------------------------------------------------------------------------------------------
# Footprint: IDLE_N idle containers (`sleep 1000`) per peer, created and started one after the
# other (timed), then the host memory they hold: the PSS of every process the runtime left
# (the container's, a supervisor's, runsc's sandbox and gofer), and the drop in MemAvailable;
# for agentrt, its supervisor's PSS alone.  "Left by the runtime": a process that was not there
# before the first create, is there once all have started, is not one of this script's own,
# and is gone after the deletes (other work on the machine rarely fits all three).
IDLE_N=${BENCH_IDLE_N:-100}
# A peer stops short of IDLE_N when the host's MemAvailable falls below BENCH_IDLE_MEM_FLOOR_MB
# (default 4096) or when starting them has taken BENCH_IDLE_MAX_SECONDS (default 300); its
# figures are then per container of those it started, and a footnote says how many and why.
IDLE_MEM_FLOOR_MB=${BENCH_IDLE_MEM_FLOOR_MB:-4096}
IDLE_MAX_SECONDS=${BENCH_IDLE_MAX_SECONDS:-300}
pss_kb() { # PID...: the sum of their Pss in kB (a process gone counts 0)
  local pid sum=0 v
  for pid in "$@"; do
    v=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || true)
    sum=$((sum + ${v:-0}))
  done
  echo "$sum"
}
# A zombie counts as gone: a killed container process is reparented to PID 1, which need not
# reap it at once.
alive() { # PID
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}
mem_available_kb() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
# (A process that goes while find reads /proc makes it complain and fail: not an error here.)
all_pids() { { find /proc -maxdepth 1 -name '[0-9]*' -printf '%f\n' 2>/dev/null || true; } | sort; }
# Other work on the machine (tests running beside the bench) starts processes too: only one in
# an idle container's cgroup (named after its id), or one whose command line names this peer's
# --root or an idle id (runsc's sandbox and gofer), or an agentrt supervisor, counts.
runtime_left() { # PEER PID
  local peer=$1 pid=$2
  grep -qx "$pid" "$TMP/fp-$peer.sv" && return 0
  grep -q -- "$ID-$peer-idle" "/proc/$pid/cgroup" 2>/dev/null && return 0
  { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -e "$TMP/root-$peer " -e "$ID-$peer-idle"
}
supervisor_pids() { # PEER ID: agentrt's supervisor (agentrt-watch) and its children (agentrt-sv)
  local sp
  sp=$(jq -r '.supervisorPid // empty' "$TMP/root-$1/$2/state.json" 2>/dev/null || true)
  [ -n "$sp" ] || return 0
  echo "$sp"
  cat "/proc/$sp/task/"*/children 2>/dev/null | tr ' ' '\n' | grep . || true
}
declare -A FP_NOTE
footprint() { # PEER
  local peer=$1 i id t0 t1 mem0 mem1 sv=0 nsv=0 pid left=0 nleft=0 rc=0 n short=""
  local -a ids=() new=()
  log "$peer: $IDLE_N idle containers"
  all_pids >"$TMP/fp-$peer.before"
  mem0=$(mem_available_kb)
  t0=$(date +%s%N)
  for i in $(seq "$IDLE_N"); do
    if [ "$(mem_available_kb)" -lt $((IDLE_MEM_FLOOR_MB * 1024)) ]; then
      short="the host's MemAvailable fell below $IDLE_MEM_FLOOR_MB MiB (BENCH_IDLE_MEM_FLOOR_MB)"
      break
    fi
    if [ "$(date +%s%N)" -gt $((t0 + IDLE_MAX_SECONDS * 1000000000)) ]; then
      short="starting them took over $IDLE_MAX_SECONDS s (BENCH_IDLE_MAX_SECONDS)"
      break
    fi
    id=$ID-$peer-idle$i
    ids+=("$id")
    $(rt_create "$peer") --bundle "$B/idle" "$id" </dev/null >/dev/null 2>"$TMP/fp-$peer.err" &&
      ${RT[$peer]} start "$id" </dev/null >/dev/null 2>>"$TMP/fp-$peer.err" || {
      rc=1
      break
    }
  done
  t1=$(date +%s%N)
  n=${#ids[@]}
  [ -z "$short" ] ||
    NOTE[$peer,fp-start]="only $n of $IDLE_N containers were started: $short; this peer's memory figures are per container of those $n"
  [ "$n" -gt 0 ] || rc=1
  sleep 2 # let what the runtime started settle (runsc's sandbox, agentrt's supervisor)
  mem1=$(mem_available_kb)
  all_pids >"$TMP/fp-$peer.after"
  if [ "$rc" = 0 ]; then
    VAL[$peer,fp-start]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
    VAL[$peer,fp-avail]=$(awk -v a="$mem0" -v b="$mem1" -v n="$n" 'BEGIN { v = (a - b) / n / 1024; printf "%.3f", v < 0 ? 0 : v }')
    for id in "${ids[@]}"; do
      for pid in $(supervisor_pids "$peer" "$id"); do
        sv=$((sv + $(pss_kb "$pid")))
        nsv=$((nsv + 1))
      done
    done
    [ "$nsv" = 0 ] ||
      VAL[$peer,fp-sv]=$(awk -v s="$sv" -v n="$n" 'BEGIN { printf "%.3f", s / n / 1024 }')
    for id in "${ids[@]}"; do supervisor_pids "$peer" "$id"; done >"$TMP/fp-$peer.sv"
    for pid in $(comm -13 "$TMP/fp-$peer.before" "$TMP/fp-$peer.after"); do
      runtime_left "$peer" "$pid" || continue
      new+=("$pid:$(pss_kb "$pid")")
    done
  else
    for row in fp-start fp-avail fp-pss; do VAL[$peer,$row]="failed: $(first_error "$TMP/fp-$peer.err")"; done
  fi
  # Eight at a time: a runsc delete waits for its sandbox to wind down (seconds each).
  [ "$n" = 0 ] || printf '%s\n' "${ids[@]}" |
    xargs -P 8 -I{} sh -c "${RT[$peer]} kill {} KILL; ${RT[$peer]} delete --force {}" >/dev/null 2>&1 || true
  [ "$rc" = 0 ] || return 0
  sleep 1
  for pid in "${new[@]}"; do
    if ! alive "${pid%%:*}"; then
      left=$((left + ${pid#*:}))
      nleft=$((nleft + 1))
    fi
  done
  VAL[$peer,fp-pss]=$(awk -v s="$left" -v n="$n" 'BEGIN { printf "%.3f", s / n / 1024 }')
  FP_NOTE[$peer]=$(awk -v p="$nleft" -v n="$n" 'BEGIN { printf "%g", p / n }')
}
for peer in "${BASE_PEERS[@]}"; do
  section footprint || break
  [ "$peer" != agentrt-strict ] || continue # the policy's tier changes no process nor memory
  footprint "$peer"
  is_num "${VAL[$peer,fp-pss]:-}" &&
    NOTE[$peer,fp-pss]="${FP_NOTE[$peer]} process(es) per container counted"
done

# ---------------------------------------------------------------------------------------------
# Scale: SCALE_LOOPS loops side by side, each creating, starting and deleting (--force, right
# after start) containers of /bin/true for SCALE_SECONDS; containers per second, from the
# first create to the end of the last loop's last delete.
SCALE_LOOPS=${BENCH_SCALE_LOOPS:-4}
SCALE_SECONDS=${BENCH_SCALE_SECONDS:-10}
scale_loop() { # PEER LOOP DEADLINE_NS: prints how many containers it went through, and failures
  local peer=$1 k=$2 deadline=$3 n=0 fail=0 id create rt
  create=$(rt_create "$peer") rt=${RT[$peer]}
  set +e
  while [ "$(date +%s%N)" -lt "$deadline" ]; do
    id=$ID-$peer-scale$k-$((n + fail))
    if $create --bundle "$B/true" "$id" && $rt start "$id" && $rt delete --force "$id"; then
      n=$((n + 1))
    else
      fail=$((fail + 1))
      $rt delete --force "$id"
    fi
  done </dev/null >/dev/null 2>>"$TMP/scale-$peer.err"
  echo "$n $fail"
}
for peer in "${BASE_PEERS[@]}"; do
  section scale || break
  [ "$peer" != agentrt-strict ] || continue
  log "$peer: $SCALE_LOOPS create/start/delete loops for $SCALE_SECONDS s"
  t0=$(date +%s%N)
  for k in $(seq "$SCALE_LOOPS"); do
    scale_loop "$peer" "$k" $((t0 + SCALE_SECONDS * 1000000000)) >"$TMP/scale-$peer-$k" &
  done
  wait
  t1=$(date +%s%N)
  read -r ok fail < <(cat "$TMP/scale-$peer-"* | awk '{ a += $1; b += $2 } END { print a + 0, b + 0 }')
  if [ "$ok" -gt 0 ]; then
    VAL[$peer,scale]=$(awk -v n="$ok" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / ((b - a) / 1e9) }')
    [ "$fail" = 0 ] || NOTE[$peer,scale]="$fail of $((ok + fail)) iterations failed ($(first_error "$TMP/scale-$peer.err")); only the $ok others are counted"
  else
    VAL[$peer,scale]="failed: $(first_error "$TMP/scale-$peer.err")"
  fi
done

# ---------------------------------------------------------------------------------------------
# The table (stdout and results.md), the data (results.tsv) and the chart (results.png).
cell() { # PEER ROW
  local peer=$1 row=$2 v base
  if [ -n "${UNAVAIL[$peer]:-}" ]; then
    case ${UNAVAIL[$peer]} in
    "not available:"*) echo "not available" ;; # the setup row says why
    "not built:"*) echo "not built" ;;
    *) echo "${UNAVAIL[$peer]}" ;;
    esac
    return
  fi
  case $peer,$row in
  agentrt-agent,run | agentrt-agent,create | agentrt-agent,start | agentrt-agent,delete) ;;
  agentrt-agent,exec | agentrt-agent,wl-*) ;;
  agentrt-agent,*)
    echo —
    return
    ;;
  agentrt-strict,fp-* | agentrt-strict,scale)
    echo —
    return
    ;;
  esac
  v=${VAL[$peer,$row]:-}
  if ! is_num "$v"; then
    echo "${v:-not measured}"
    return
  fi
  base=${VAL[crun,$row]:-}
  if [ -z "${UNAVAIL[crun]:-}" ] && is_num "$base" && awk -v b="$base" 'BEGIN { exit !(b > 0) }'; then
    printf '%s (%s×)' "$(fmt "$v")" "$(fmt "$(awk -v a="$v" -v b="$base" 'BEGIN { printf "%.4f", a / b }')")"
  else
    fmt "$v"
  fi
  if [ -n "${NOTE_MARK[$peer,$row]:-}" ]; then printf ' %s' "${NOTE_MARK[$peer,$row]}"; fi
}

# Footnotes, numbered in the table's order.
declare -A NOTE_MARK
SUPERSCRIPT=(⁰ ¹ ² ³ ⁴ ⁵ ⁶ ⁷ ⁸ ⁹)
NOTE_ORDER=()
FOOTPRINT=(fp-start fp-pss fp-avail)
for row in "${LIFECYCLE[@]}" "${SC_TESTS[@]}" "${SC_TESTS[@]/#/prof-}" "${WORKLOADS[@]/#/wl-}" "${FOOTPRINT[@]}" scale; do
  for peer in "${PEERS[@]}"; do
    if [ -n "${NOTE[$peer,$row]:-}" ] && [ -z "${UNAVAIL[$peer]:-}" ] && is_num "${VAL[$peer,$row]:-}"; then
      NOTE_ORDER+=("$peer,$row")
      n=${#NOTE_ORDER[@]}
      NOTE_MARK[$peer,$row]="⁽$(sed 's/./&\n/g' <<<"$n" | while read -r d; do [ -z "$d" ] || printf '%s' "${SUPERSCRIPT[$d]}"; done)⁾"
    fi
  done
done

declare -A SUP_LABEL=([uname]="uname" [fork-exec]="fork+exec+wait (its execve)"
  [tcp-connect]="TCP connect (its connect)")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; } # A B: A / B

# The raw round trip rows: the host column only, with the ratio to the native call.
declare -A RTT_LABEL=([native]="getppid, no filter (notify-rtt's native call, on CPU 0)"
  [same-cpu]="seccomp notify round trip: caller and supervisor on CPU 0"
  [other-cpu]="seccomp notify round trip: caller on CPU 0, supervisor on CPU 1"
  [same-cpu-sync]="seccomp notify round trip: both on CPU 0, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP"
  [unpinned]="seccomp notify round trip: neither pinned"
  [unpinned-sync]="seccomp notify round trip: neither pinned, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP"
  [same-cpu-sync-uname]="emulated uname at its least: the \`same-cpu-sync\` round trip, the supervisor writing a struct utsname into the caller (uname(2), process_vm_writev) before it answers")
rtt_cell() { # TEST: the host's figure for notify-rtt's TEST
  local v=${VAL[host,rtt-$1]:-} native=${VAL[host,rtt-native]:-}
  if ! is_num "$v"; then
    echo "${v:-not measured}"
  elif [ "$1" != native ] && is_num "$native"; then
    printf '%s (%s× native)' "$(fmt "$v")" "$(fmt "$(ratio "$v" "$native")")"
  else
    fmt "$v"
  fi
}
# The round trip the supervised calls are set against: NOTIFY_BASE, or same-cpu without it.
RTT_BASE=$NOTIFY_BASE
is_num "${VAL[host,rtt-$RTT_BASE]:-}" || RTT_BASE=same-cpu
# A supervised call against the raw round trip: what the supervisor adds over `--platform
# none` (same binary, same run; the call's own work cancels out), in round trips, and the
# whole call in round trips (the goal for uname: at most 1.5).
supervised_cell() { # TEST
  local t=$1 v=${VAL[agentrt,$1]:-} none=${VAL[agentrt-none,$1]:-} base=${VAL[host,rtt-$RTT_BASE]:-}
  if [ "$HAVE_PLATFORM" = 0 ]; then
    echo "not available (no supervisor)"
  elif [ -n "${UNAVAIL[agentrt]:-}" ] || [ -n "${UNAVAIL[agentrt-none]:-}" ]; then
    echo "not measured: ${UNAVAIL[agentrt]:-${UNAVAIL[agentrt-none]}}"
  elif ! is_num "$v" || ! is_num "$none" || ! is_num "$base"; then
    echo "not measured (agentrt: ${v:-—}; --platform none: ${none:-—}; round trip: ${base:-—})"
  else
    printf '%s× (%s ns over `--platform none`; the whole call %s× the round trip)' \
      "$(fmt "$(ratio "$(awk -v a="$v" -v b="$none" 'BEGIN { print a - b }')" "$base")")" \
      "$(awk -v a="$v" -v b="$none" 'BEGIN { printf "%+.0f", a - b }')" "$(fmt "$(ratio "$v" "$base")")"
  fi
}

# Supervised uname against the least an emulated uname costs here (notify-rtt's
# same-cpu-sync-uname), which is itself set against the raw round trip: what is left over is
# the supervisor's own doing.
uname_floor_cell() {
  local v=${VAL[agentrt,uname]:-} floor=${VAL[host,rtt-same-cpu-sync-uname]:-} base=${VAL[host,rtt-$RTT_BASE]:-}
  if [ "$HAVE_PLATFORM" = 0 ]; then
    echo "not available (no supervisor)"
  elif ! is_num "$v" || ! is_num "$floor" || ! is_num "$base"; then
    echo "not measured (agentrt: ${v:-—}; the least: ${floor:-—}; round trip: ${base:-—})"
  else
    printf '%s× the least (%s ns ÷ %s ns), which is %s× the round trip' "$(fmt "$(ratio "$v" "$floor")")" \
      "$(fmt "$v")" "$(fmt "$floor")" "$(fmt "$(ratio "$floor" "$base")")"
  fi
}

declare -A FP_LABEL=([fp-start]="start $IDLE_N idle containers, one after the other"
  [fp-pss]="host memory per idle container: PSS of the processes the runtime left"
  [fp-avail]="host memory per idle container: drop in MemAvailable")
declare -A FP_UNIT=([fp-start]="ms" [fp-pss]="MiB" [fp-avail]="MiB")
declare -A FP_CMD=(
  [fp-start]="\`\$RT create --bundle \$B/idle ID\$i; \$RT start ID\$i\` for i in 1…$IDLE_N (\`/bin/sleep 1000\`), wall time of the whole loop"
  [fp-pss]="those $IDLE_N containers, 2 s after the last start: the sum of \`Pss:\` in \`/proc/PID/smaps_rollup\` over every process that appeared with them (in their cgroups, or naming them) and went with their \`kill KILL\` and \`delete --force\` (not the bench's own), ÷ $IDLE_N"
  [fp-avail]="\`MemAvailable\` in /proc/meminfo before the first create − 2 s after the last start, ÷ $IDLE_N (noisier: page cache, other work)")
declare -A ROW_NAME=([fp-start]="start $IDLE_N idle" [fp-pss]="memory per idle container (PSS)"
  [fp-avail]="memory per idle container (MemAvailable)" [scale]="parallel loops")
for w in "${WORKLOADS[@]}"; do ROW_NAME[wl-$w]=${WL_LABEL[$w]}; done
for t in "${SC_TESTS[@]}"; do ROW_NAME[prof-$t]="${SC_LABEL[$t]} with the OCI seccomp profile"; done
SCALE_LABEL="$SCALE_LOOPS parallel create/start/delete loops for $SCALE_SECONDS s (higher is better)"
SCALE_CMD="$SCALE_LOOPS loops side by side, each: \`\$RT create --bundle \$B/true ID; \$RT start ID; \$RT delete --force ID\` (a new ID each time) until $SCALE_SECONDS s have passed; containers ÷ the wall time until the last loop ended"
goal_cell() { # VALUE GOAL UNIT: VALUE, and whether it meets "≤ GOAL"
  if ! is_num "$1"; then
    echo "${1:-not measured}"
  elif awk -v v="$1" -v g="$2" 'BEGIN { exit !(v <= g) }'; then
    printf '%s (goal ≤ %s%s: met)' "$(fmt "$1")" "$2" "$3"
  else
    printf '%s (goal ≤ %s%s: **missed**)' "$(fmt "$1")" "$2" "$3"
  fi
}
runsc_cell() { # PEER: its per-container memory ÷ runsc's
  local v=${VAL[$1,fp-pss]:-} r=${VAL[runsc,fp-pss]:-} a=${VAL[$1,fp-avail]:-} ra=${VAL[runsc,fp-avail]:-}
  if [ -n "${UNAVAIL[$1]:-}" ] || [ -n "${UNAVAIL[runsc]:-}" ] || ! is_num "$v" || ! is_num "$r" ||
    ! awk -v r="$r" 'BEGIN { exit !(r > 0) }'; then
    echo "not measured"
    return
  fi
  goal_cell "$(awk -v a="$v" -v b="$r" 'BEGIN { printf "%.3f", a / b }')" 0.1 ×
  if is_num "$a" && is_num "$ra" && awk -v r="$ra" 'BEGIN { exit !(r > 0) }'; then
    printf ' (MemAvailable: %s×)' "$(fmt "$(ratio "$a" "$ra")")"
  fi
}
# The system-call rows with the OCI seccomp profile: crun and runc run with it, agentrt (default)
# with its own filter (its figure from the plain row), each set against crun with the profile.
prof_cell() { # PEER TEST
  local peer=$1 t=$2 v base=${VAL[crun,prof-$2]:-}
  case $peer in
  crun | runc) v=${VAL[$peer,prof-$t]:-} ;;
  agentrt) v=${VAL[agentrt,$t]:-} ;;
  *)
    echo —
    return
    ;;
  esac
  if [ -n "${UNAVAIL[$peer]:-}" ]; then
    cell "$peer" "$t"
  elif ! is_num "$v"; then
    echo "${v:-not measured}"
  elif is_num "$base" && awk -v b="$base" 'BEGIN { exit !(b > 0) }'; then
    printf '%s (%s× crun with the profile)' "$(fmt "$v")" "$(fmt "$(ratio "$v" "$base")")"
  else
    fmt "$v"
  fi
  if [ "$peer" != agentrt ] && [ -n "${NOTE_MARK[$peer,prof-$t]:-}" ]; then printf ' %s' "${NOTE_MARK[$peer,prof-$t]}"; fi
}

# The goals of issue 7, each with its figure and whether it is met.  goal_line GOAL VALUE OP
# LIMIT FIGURE FROM: VALUE (a ratio) against LIMIT with OP (le: at most, ge: at least).
goal_line() {
  local verdict
  if ! is_num "$2"; then
    verdict="not measured"
  elif awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN { exit !(op == "le" ? v <= l : v >= l) }'; then
    verdict=met
  else
    verdict="**missed**"
  fi
  printf '| %s | %s | %s | %s |\n' "$1" "$5" "$verdict" "$6"
}
ratio_of() { # PEER ROW OTHER_PEER [OTHER_ROW]: VAL[PEER,ROW] ÷ VAL[OTHER,OTHER_ROW], or nothing
  local a=${VAL[$1,$2]:-} b=${VAL[$3,${4:-$2}]:-}
  [ -z "${UNAVAIL[$1]:-}" ] && [ -z "${UNAVAIL[$3]:-}" ] && is_num "$a" && is_num "$b" &&
    awk -v b="$b" 'BEGIN { exit !(b > 0) }' && ratio "$a" "$b"
}
ratio_text() { # RATIO A_LABEL B_LABEL: "1.10× (A ÷ B)" or why not
  if is_num "$1"; then printf '%s× (%s ÷ %s)' "$(fmt "$1")" "$2" "$3"; else echo "not measured"; fi
}
goals_table() {
  local r r2 t w base=${VAL[host,rtt-$RTT_BASE]:-} v none
  echo "## Goals (issue 7)"
  echo
  echo "Each from this run's table below; ratios of medians.  agentrt is its default platform"
  echo "(seccomp, the supervisor)."
  echo
  echo "| goal | figure | verdict | from the rows |"
  echo "|---|---|---|---|"
  r=$(ratio_of agentrt run crun || true)
  goal_line "\`run\` of /bin/true with the supervisor ≤ 1.1× crun" "$r" le 1.1 "$(ratio_text "$r" agentrt crun)" "run /bin/true"
  r=$(ratio_of agentrt-none run crun || true)
  goal_line "\`run\` of /bin/true with \`--platform none\` ≤ 1.0× crun" "$r" le 1.0 "$(ratio_text "$r" "agentrt --platform none" crun)" "run /bin/true"
  r=$(ratio_of agentrt run runsc || true)
  goal_line "\`run\` of /bin/true ≤ 0.1× runsc" "$r" le 0.1 "$(ratio_text "$r" agentrt runsc)" "run /bin/true"
  r=$(ratio_of agentrt getppid crun || true)
  goal_line "allowed system call (getppid) ≤ 1.05× crun" "$r" le 1.05 "$(ratio_text "$r" agentrt crun)" "getppid (allowed call)"
  r=$(ratio_of agentrt getppid crun prof-getppid || true)
  goal_line "allowed system call (getppid) ≤ 1.05× crun, both with a seccomp filter" "$r" le 1.05 "$(ratio_text "$r" agentrt "crun with the OCI profile")" "getppid … with the OCI seccomp profile"
  r=$(ratio_of agentrt wl-py-cpu crun || true)
  goal_line "CPU-bound loop ≤ 1.05× crun" "$r" le 1.05 "$(ratio_text "$r" agentrt crun)" "python3: CPU-bound loop"
  for t in "${SUPERVISED[@]}"; do
    v=${VAL[agentrt,$t]:-} none=${VAL[agentrt-none,$t]:-} r=""
    if [ -z "${UNAVAIL[agentrt]:-}${UNAVAIL[agentrt-none]:-}" ] && is_num "$v" && is_num "$none" && is_num "$base"; then
      r=$(ratio "$(awk -v a="$v" -v b="$none" 'BEGIN { print a - b }')" "$base")
      goal_line "supervised ${SUP_LABEL[$t]}: what the supervisor adds ≤ 1.5× the raw notify round trip" "$r" le 1.5 \
        "$(fmt "$r")× ($(awk -v a="$v" -v b="$none" 'BEGIN { printf "%+.0f", a - b }') ns over \`--platform none\` ÷ $(fmt "$base") ns, \`$RTT_BASE\`)$(
          [ "$t" != uname ] || echo "; the whole call is $(uname_floor_cell)")" \
        "${SC_LABEL[$t]}; supervised ${SUP_LABEL[$t]}$([ "$t" != uname ] || echo "; … at its least")"
    else
      goal_line "supervised ${SUP_LABEL[$t]}: what the supervisor adds ≤ 1.5× the raw notify round trip" "" le 1.5 "not measured" "${SC_LABEL[$t]}"
    fi
  done
  r=$(ratio_of runsc open-close agentrt || true)
  goal_line "open+close ≥ 10× faster than runsc (ptrace)" "$r" ge 10 "$(ratio_text "$r" runsc agentrt)" "open+close of a regular file"
  for w in "${WORKLOADS[@]}"; do
    r=$(ratio_of agentrt "wl-$w" crun || true)
    r2=$(ratio_of agentrt "wl-$w" runsc || true)
    if is_num "$r" && is_num "$r2" && awk -v a="$r2" 'BEGIN { exit !(a < 1) }'; then
      goal_line "${WL_LABEL[$w]}: ≤ 1.15× crun and faster than runsc" "$r" le 1.15 \
        "$(ratio_text "$r" agentrt crun); $(fmt "$r2")× runsc" "${WL_LABEL[$w]}"
    elif is_num "$r" && is_num "$r2"; then
      printf '| %s | %s | **missed** (not faster than runsc) | %s |\n' "${WL_LABEL[$w]}: ≤ 1.15× crun and faster than runsc" \
        "$(ratio_text "$r" agentrt crun); $(fmt "$r2")× runsc" "${WL_LABEL[$w]}"
    else
      goal_line "${WL_LABEL[$w]}: ≤ 1.15× crun and faster than runsc" "" le 1.15 "not measured" "${WL_LABEL[$w]}"
    fi
  done
  v=${VAL[agentrt,fp-sv]:-}
  [ -z "${UNAVAIL[agentrt]:-}" ] || v=""
  goal_line "supervisor memory ≤ 2 MiB per container" "$v" le 2 "$(is_num "$v" && echo "$(fmt "$v") MiB PSS" || echo "not measured")" "supervisor PSS per idle container"
  r=$(ratio_of agentrt fp-pss runsc || true)
  goal_line "host memory per idle container ≤ 0.1× runsc's per idle sandbox" "$r" le 0.1 "$(ratio_text "$r" agentrt runsc)$(is_num "$r" && echo " by PSS")" "host memory per idle container: PSS"
  echo
}

# The goals of issue 17 item 7: the strict policy against the default one, on the same platform.
strict_goals_table() {
  local r r2 t w
  echo "## Goals (issue 17: the strict policy)"
  echo
  echo "agentrt with \`--policy strict\` (the column \"${LABEL[agentrt-strict]}\") against its default"
  echo "policy, and against crun, on the same bundles; ratios of medians from the table below."
  echo "getppid is allowed whatever its arguments, so the kernel's action cache allows it without"
  echo "running the filter; fcntl's command is checked under strict, so the filter runs for it."
  echo
  echo "| goal | figure | verdict | from the rows |"
  echo "|---|---|---|---|"
  for t in getppid fcntl; do
    r=$(ratio_of agentrt-strict "$t" agentrt || true)
    r2=$(ratio_of agentrt-strict "$t" crun || true)
    goal_line "${SC_LABEL[$t]} under strict ≤ 1.02× the default policy" "$r" le 1.02 \
      "$(ratio_text "$r" strict default); $(ratio_text "$r2" strict crun)" "${SC_LABEL[$t]}"
  done
  for w in "${WORKLOADS[@]}"; do
    r=$(ratio_of agentrt-strict "wl-$w" agentrt || true)
    r2=$(ratio_of agentrt-strict "wl-$w" crun || true)
    goal_line "${WL_LABEL[$w]} under strict ≤ 1.02× the default policy" "$r" le 1.02 \
      "$(ratio_text "$r" strict default); $(ratio_text "$r2" strict crun)" "${WL_LABEL[$w]}"
  done
  echo
}

# The goals of issue 15 item 5: the full agent sandbox against crun running the plain bundle.
agent_goals_table() {
  local r
  echo "## Goals (issue 15: the full agent sandbox)"
  echo
  echo "agentrt with \`$AGENT_OPTS\` (the column \"${LABEL[agentrt-agent]}\") on the same"
  echo "bundle crun runs plain; ratios of medians from the table below."
  echo
  echo "| goal | figure | verdict | from the rows |"
  echo "|---|---|---|---|"
  r=$(ratio_of agentrt-agent run crun || true)
  goal_line "the agent sandbox's \`run\` of /bin/true ≤ 1.0× crun's plain \`run\`" "$r" le 1.0 "$(ratio_text "$r" "agentrt --agent" crun)" "run /bin/true"
  r=$(ratio_of agentrt-agent wl-py-pass crun || true)
  goal_line "the agent sandbox's \`run\` of python3 -c pass ≤ 1.0× crun's plain \`run\`" "$r" le 1.0 "$(ratio_text "$r" "agentrt --agent" crun)" "python3 -c pass"
  r=$(ratio_of agentrt-agent exec crun || true)
  goal_line "\`exec\` of /bin/true into a running agent sandbox ≤ 0.5× crun's \`exec\`" "$r" le 0.5 "$(ratio_text "$r" "agentrt --agent" crun)" "exec /bin/true into a running container"
  echo
}

SC_CMD='`$RT run --bundle $B/sc ID` (×'"$SC_RUNS"'); host: `$B/rootfs/sc-bench -r 1 -t '"$SC_BUDGET_MS"
RTT_CMD='host, in its turn of each round (×'"$SC_RUNS"'): `$B/rootfs/notify-rtt -r 1 -t '"$SC_BUDGET_MS"
{
  echo "# agentrt benchmark results"
  echo
  echo "$(date -u +%Y-%m-%d), $(uname -r), $(nproc) vCPUs, $(. /etc/os-release && echo "$PRETTY_NAME"); $(hyperfine --version);"
  echo "load average (1 min) $LOAD_START at the start, $(cut -d' ' -f1 /proc/loadavg) at the end (other work on the machine)."
  echo "Medians, and in brackets the ratio to crun (lower is faster).  Lifecycle and real workloads, in"
  echo "ms: the peers take turns, round after round, so that a drift in the machine's speed falls on all"
  echo "alike; in each round every peer runs the row's command once, in an order rotated by one each"
  echo "round, timed by \`hyperfine -N --runs 1 [--prepare STEP] CMD\` (STEP: the untimed step the row"
  echo "names); the median of $RUNS rounds after $WARMUP warm-up rounds (workloads: of $WL_RUNS after $WL_WARMUP)."
  echo "System calls: sc-bench inside the container, ns per call, median of $SC_RUNS runs of >= $SC_BUDGET_MS ms,"
  echo "each run a new container (\`\$B/sc\` runs \`/sc-bench -r 1 -t $SC_BUDGET_MS\`, every test; a test's name"
  echo "after it runs that one only), the peers taking turns likewise.  \`\$B\` is a bundle directory from"
  echo "\`bench/run.sh bundle \$B\`; \`\$RT\` is the peer's command line from the row below; ID is any new id."
  if [ "$HAVE_PLATFORM" = 1 ]; then
    echo "crun, runc and agentrt --platform none let every call run natively, so their differences in the"
    echo "system-call rows, and from the host column, are this VM's run-to-run noise; agentrt's default"
    echo "(seccomp) sends uname, fork-exec's execve and tcp-connect's connect to its supervisor."
  else
    echo "crun, runc and agentrt all let these calls run natively, so their differences in the system-call"
    echo "rows, and from the host column, are this VM's run-to-run noise, not the runtimes."
  fi
  echo "The notify round trip rows are bench/notify-rtt.c on the host (getppid answered by a"
  echo "supervisor process at once); the \"supervised\" rows set agentrt's supervised calls against"
  echo "the \`$RTT_BASE\` round trip."
  echo
  goals_table
  strict_goals_table
  agent_goals_table
  echo "## All figures"
  echo
  printf '| measurement | unit |'
  for peer in "${PEERS[@]}"; do printf ' %s |' "${LABEL[$peer]:-$peer}"; done
  printf ' host | command |\n|---|---|'
  for _ in "${PEERS[@]}"; do printf -- '---|'; done
  printf -- '---|---|\n'
  printf '| version | |'
  for peer in "${PEERS[@]}"; do printf ' %s |' "${VERSION[$peer]:-—}"; done
  printf ' %s | |\n' "$(uname -r)"
  printf '| `$RT` | |'
  for peer in "${PEERS[@]}"; do
    printf ' `%s`' "$(sed "s#$TMP#\$TMP#g; s#$SRC_DIR/##" <<<"${RT[$peer]}" | sed 's#--root $TMP/root-[a-z-]*#--root $ROOT#')"
    [ -z "${CR_OPTS[$peer]:-}" ] || printf '; `run` and `create` take `%s`' "${CR_OPTS[$peer]# }"
    printf ' |'
  done
  printf ' — | `$ROOT`: a private state directory per peer |\n'
  printf '| setup | |'
  for peer in "${PEERS[@]}"; do printf ' %s |' "${UNAVAIL[$peer]:-${NOTE[$peer]}}"; done
  printf ' no container | one bundle config for all: `runc spec`, terminal false, read-only root |\n'
  for phase in "${LIFECYCLE[@]}"; do
    printf '| %s | ms |' "${LC_LABEL[$phase]}"
    for peer in "${PEERS[@]}"; do printf ' %s |' "$(cell "$peer" "$phase")"; done
    printf ' — | %s |\n' "${LC_CMD[$phase]}"
  done
  for t in "${SC_TESTS[@]}"; do
    printf '| %s | ns/call |' "${SC_LABEL[$t]}"
    for peer in "${PEERS[@]}"; do printf ' %s |' "$(cell "$peer" "$t")"; done
    printf ' %s | %s |\n' "$(is_num "${VAL[host,$t]:-}" && fmt "${VAL[host,$t]}" || echo "${VAL[host,$t]:-—}")" \
      "$SC_CMD $t\`"
  done
  for t in "${SC_TESTS[@]}"; do
    printf '| %s, crun and runc with an OCI seccomp profile (agentrt: its own filter, as above) | ns/call |' "${SC_LABEL[$t]}"
    for peer in "${PEERS[@]}"; do printf ' %s |' "$(prof_cell "$peer" "$t")"; done
    printf ' — | `$RT run --bundle $B/sc-prof ID` (×%s): `$B/sc` with `linux.seccomp` = `%s` turned into OCI for x86_64 and the bundle'"'"'s capabilities, as an engine does (bench/run.sh: PROFILE_TO_OCI) |\n' "$SC_RUNS" "$SECCOMP_PROFILE"
  done
  for t in "${RTT_TESTS[@]}"; do
    printf '| %s | ns/call |' "${RTT_LABEL[$t]}"
    for _ in "${PEERS[@]}"; do printf ' — |'; done
    printf ' %s | %s |\n' "$(rtt_cell "$t")" "$RTT_CMD $t\`"
  done
  for t in "${SUPERVISED[@]}"; do
    printf '| supervised %s, against the notify round trip | round trips |' "${SUP_LABEL[$t]}"
    for peer in "${PEERS[@]}"; do
      if [ "$peer" = agentrt ]; then printf ' %s |' "$(supervised_cell "$t")"; else printf ' — |'; fi
    done
    printf ' %s ns (`%s`) | (agentrt − agentrt --platform none) ÷ the host'"'"'s `%s` round trip, each from its row above |\n' \
      "$(is_num "${VAL[host,rtt-$RTT_BASE]:-}" && fmt "${VAL[host,rtt-$RTT_BASE]}" || echo —)" "$RTT_BASE" "$RTT_BASE"
  done
  printf '| supervised uname, against an emulated uname at its least | ratio |'
  for peer in "${PEERS[@]}"; do
    if [ "$peer" = agentrt ]; then printf ' %s |' "$(uname_floor_cell)"; else printf ' — |'; fi
  done
  printf ' %s ns (`same-cpu-sync-uname`) | agentrt'"'"'s uname ÷ the host'"'"'s `same-cpu-sync-uname`, each from its row above |\n' \
    "$(is_num "${VAL[host,rtt-same-cpu-sync-uname]:-}" && fmt "${VAL[host,rtt-same-cpu-sync-uname]}" || echo —)"
  for w in "${WORKLOADS[@]}"; do
    printf '| %s | ms |' "${WL_LABEL[$w]}"
    for peer in "${PEERS[@]}"; do printf ' %s |' "$(cell "$peer" "wl-$w")"; done
    printf ' — | `$RT run --bundle $B/%s ID` (`hyperfine -N --runs 1` in each of %s rounds after %s warm-up, the peers taking turns): %s |\n' "$w" "$WL_RUNS" "$WL_WARMUP" "${WL_PROC[$w]}"
  done
  for row in "${FOOTPRINT[@]}"; do
    printf '| %s | %s |' "${FP_LABEL[$row]}" "${FP_UNIT[$row]}"
    for peer in "${PEERS[@]}"; do printf ' %s |' "$(cell "$peer" "$row")"; done
    printf ' — | %s |\n' "${FP_CMD[$row]}"
  done
  printf '| supervisor PSS per idle container (goal ≤ 2 MiB) | MiB |'
  for peer in "${PEERS[@]}"; do
    if [ "$peer" = agentrt ]; then printf ' %s |' "$(goal_cell "${VAL[agentrt,fp-sv]:-}" 2 " MiB")"; else printf ' — |'; fi
  done
  printf ' — | the same %s containers: the sum of `Pss:` in `/proc/PID/smaps_rollup` of `supervisorPid` (`$ROOT/ID/state.json`: agentrt-watch) and its child (agentrt-sv), ÷ %s |\n' "$IDLE_N" "$IDLE_N"
  printf '| host memory per idle container against runsc'"'"'s (goal ≤ 0.1) | × runsc |'
  for peer in "${PEERS[@]}"; do
    case $peer in
    agentrt | agentrt-none) printf ' %s |' "$(runsc_cell "$peer")" ;;
    *) printf ' — |' ;;
    esac
  done
  printf ' — | the PSS row above, agentrt ÷ runsc (MemAvailable row: in brackets) |\n'
  printf '| %s | containers/s |' "$SCALE_LABEL"
  for peer in "${PEERS[@]}"; do printf ' %s |' "$(cell "$peer" scale)"; done
  printf ' — | %s |\n' "$SCALE_CMD"
  [ ${#NOTE_ORDER[@]} -eq 0 ] || echo
  for key in "${NOTE_ORDER[@]}"; do
    echo "${NOTE_MARK[$key]} ${key%%,*}, ${ROW_NAME[${key#*,}]:-${key#*,}}: ${NOTE[$key]}."
  done
  echo
  echo '![chart](results.png)'
} >"$TMP/results.md"

# results.tsv: five blocks (gnuplot's index 0 to 4): lifecycle, system calls in the
# containers, the round trips on the host, the real workloads, and footprint and scale.
tsv_head() {
  printf 'section\tmeasurement'
  for peer in "${PEERS[@]}"; do printf '\t%s' "${LABEL[$peer]:-$peer}"; done
  printf '\thost\n'
}
tsv_val() { # PEER ROW
  local v=${VAL[$1,$2]:-}
  { [ -z "${UNAVAIL[$1]:-}" ] && is_num "$v"; } || v=NaN
  printf '%s' "$v"
}
{
  tsv_head
  for phase in "${LIFECYCLE[@]}"; do
    printf 'lifecycle\t%s' "$phase"
    for peer in "${PEERS[@]}"; do printf '\t%s' "$(tsv_val "$peer" "$phase")"; done
    printf '\tNaN\n'
  done
  printf '\n\n'
  tsv_head
  for t in "${SC_TESTS[@]}"; do
    printf 'syscalls\t%s' "$t"
    for peer in "${PEERS[@]}" host; do printf '\t%s' "$(tsv_val "$peer" "$t")"; done
    printf '\n'
  done
  printf '\n\nsection\tmeasurement\thost\n'
  for t in "${RTT_TESTS[@]}"; do
    printf 'notify-rtt\t%s\t%s\n' "$t" "$(tsv_val host "rtt-$t")"
  done
  printf '\n\n'
  tsv_head
  for w in "${WORKLOADS[@]}"; do
    printf 'workloads\t%s' "$w"
    for peer in "${PEERS[@]}"; do printf '\t%s' "$(tsv_val "$peer" "wl-$w")"; done
    printf '\tNaN\n'
  done
  printf '\n\n'
  tsv_head
  for row in "${FOOTPRINT[@]}" fp-sv scale; do
    printf 'footprint\t%s' "$row"
    for peer in "${PEERS[@]}"; do printf '\t%s' "$(tsv_val "$peer" "$row")"; done
    printf '\tNaN\n'
  done
} >"$TMP/results.tsv"

if [ "$HAVE_PLATFORM" = 1 ]; then
  subtitle="agentrt (default: seccomp supervisor, --platform ptrace and --platform none)"
else
  subtitle="agentrt (--platform none behaviour: no supervisor yet)"
fi
mkdir -p "$OUT_DIR"
if [ -n "${BENCH_SECTIONS:-}${BENCH_PEERS:-}" ]; then
  log "a part of the bench only (BENCH_SECTIONS, BENCH_PEERS): no chart"
  sed -i '/^!\[chart\](results.png)$/d' "$TMP/results.md"
else
  gnuplot -e "data='$TMP/results.tsv'; out='$TMP/results.png'; subtitle='$subtitle'" "$BENCH_DIR/plot.gp" \
    2>"$TMP/gnuplot.err" || {
    cat "$TMP/gnuplot.err" >&2
    die "gnuplot failed"
  }
  cp "$TMP/results.png" "$OUT_DIR/"
fi
cp "$TMP/results.md" "$TMP/results.tsv" "$OUT_DIR/"
cat "$TMP/results.md"
log "wrote $OUT_DIR/results.md and results.tsv$([ -n "${BENCH_SECTIONS:-}${BENCH_PEERS:-}" ] || echo ", results.png")"
