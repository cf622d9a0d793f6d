# A private containerd 1.6 for the engine tests (tests/containerd.bats, and tests/cri.bats through
# tests/lib/cri.sh), and OCI images built from a local rootfs (tests/lib/oci_image.sh, sourced
# here).  Source this file (after helpers.bash).  Typical use in a bats file:
#
#   setup_file()    { containerd_start; export CTRD_DIR CTRD_SOCK CTRD_PID CTRD_NS; }
#   teardown_file() { containerd_stop; }
#   ...             ctr_ run --runc-binary "$AGENTRT" --runc-root "$CTRD_DIR/agentrt" ...
#
# containerd_start [--cri] [--ns NAME] [--dir DIR] [--netns PATH] [--config-extra TOML]
#   --cri             keep the CRI plugin (io.containerd.grpc.v1.cri); disabled by default.
#   --ns NAME         the containerd namespace ctr_ uses (default: ctrtest-PID, unique per run,
#                     so the cgroup parent /sys/fs/cgroup/*/NAME that ctr's default
#                     cgroupsPath (/NS/ID) makes is ours to remove in containerd_stop; a
#                     parent that existed before containerd_start is never touched).
#   --dir DIR         the private tree (created if missing; containerd_stop removes it), for a
#                     caller whose --config-extra names paths in it; default: a new directory
#                     under BATS_RUN_TMPDIR.
#   --netns PATH      run it in that network namespace (nsenter --net: its mount namespace is
#                     still its own, below), as a node's containerd with a CNI network
#                     (tests/cni.bats); default: ours.
#   --config-extra T  TOML appended to the generated config.toml (e.g. the CRI plugin's
#                     section and runtimes, tests/lib/cri.sh); may be given more than once.
#                     Every path in it should be under DIR.
#   --host-run        keep the caller's /run instead of a private one: for the systemd VM
#                     (tests/systemd.bats), whose runtimes must reach systemd through
#                     /run/systemd/private; never on a shared machine.
# The default snapshotter (overlayfs) is used, for ctr as for CRI.
# Sets CTRD_DIR (the private tree: root/, state/, containerd.sock, config.toml, containerd.log,
# fifo/ for ctr's --fifo-dir), CTRD_SOCK, CTRD_PID, CTRD_NS.  containerd runs in its own mount
# namespace whose /run is a private tmpfs: containerd 1.6 hard-codes each shim's ttrpc socket as
# /run/containerd/s/<sha256 of socket path, namespace, id>, and the runc shim's default runc
# root is /run/containerd/runc (give ctr --runc-root anyway, to see the runtime's state).
#
# containerd_stop: deletes what is left in CTRD_NS (tasks, containers, images), stops
# containerd by pid, kills the shims it started (found by their -address, which is our private
# socket) and the processes left in CTRD_NS's cgroups, removes those cgroups and CTRD_DIR.

source "${BASH_SOURCE[0]%/*}/oci_image.sh"

CTRD_READY_TIMEOUT=${CTRD_READY_TIMEOUT:-30}

# ctr_ ARGS: ctr against the private containerd, in the test namespace.
ctr_() { command ctr --address "$CTRD_SOCK" --namespace "$CTRD_NS" "$@"; }

containerd_start() {
  local cri=0 extra=() disabled dir= host_run=0 netns=()
  CTRD_NS=ctrtest-$$
  while [ $# -gt 0 ]; do
    case $1 in
      --cri) cri=1 ;;
      --ns) CTRD_NS=$2; shift ;;
      --dir) dir=$2; shift ;;
      --netns) netns=(nsenter --net="$2"); shift ;;
      --config-extra) extra+=("$2"); shift ;;
      --host-run) host_run=1 ;;
      *) echo "containerd_start: unknown option $1" >&2; return 1 ;;
    esac
    shift
  done
  # The namespace's cgroup parents are ours to clean only if we made them.
  CTRD_CG_OWNED=1
  if compgen -G "/sys/fs/cgroup/*/$CTRD_NS" >/dev/null || [ -d "/sys/fs/cgroup/$CTRD_NS" ]; then
    CTRD_CG_OWNED=0
  fi
  if ! command -v containerd >/dev/null; then
    echo "containerd not found: install containerd" >&2
    return 1
  fi
  if [ -n "$dir" ]; then
    mkdir -p "$dir" || return 1
    CTRD_DIR=$dir
  else
    CTRD_DIR=$(mktemp -d "${BATS_RUN_TMPDIR:-/tmp}/containerd.XXXXXX") || return 1
  fi
  chmod 0711 "$CTRD_DIR"
  CTRD_SOCK=$CTRD_DIR/containerd.sock
  mkdir -p "$CTRD_DIR/root" "$CTRD_DIR/state" "$CTRD_DIR/fifo"
  # Snapshotters that cannot work here only log errors at start; "opt" would create
  # /opt/containerd.  CRI is heavy and the plain tests do not need it.
  disabled='"io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.internal.v1.opt", "io.containerd.tracing.processor.v1.otlp"'
  [ "$cri" -eq 1 ] || disabled+=', "io.containerd.grpc.v1.cri"'
  {
    cat <<EOF
version = 2
root = "$CTRD_DIR/root"
state = "$CTRD_DIR/state"
disabled_plugins = [$disabled]
# containerd's own oom_score_adj is left as is: root here lacks CAP_SYS_RESOURCE.
oom_score = 0

[grpc]
  address = "$CTRD_SOCK"

[ttrpc]
  address = "$CTRD_SOCK.ttrpc"

[debug]
  address = ""
  level = "info"

[metrics]
  address = ""

[plugins]
  [plugins."io.containerd.service.v1.diff-service"]
    default = ["walking"]
  [plugins."io.containerd.gc.v1.scheduler"]
    pause_threshold = 0.02
EOF
    local e
    for e in "${extra[@]}"; do printf '%s\n' "$e"; done
  } >"$CTRD_DIR/config.toml"
  # Its own mount namespace with a private /run: containerd 1.6 hard-codes the shims' sockets in
  # /run/containerd/s, and the host's /run must not change.  The container rootfs mounts live in
  # that namespace too (containerd_mounts_under reads it), and vanish with it.  setsid: no
  # terminal signals; stdio to its log and no bats fd 3, so bats never waits on it.  Every step
  # execs, so $! is containerd.
  if [ "$host_run" -eq 1 ]; then
    setsid "${netns[@]}" containerd --config "$CTRD_DIR/config.toml" </dev/null >"$CTRD_DIR/containerd.log" 2>&1 3>&- &
  else
    setsid "${netns[@]}" unshare --mount --propagation private sh -c \
      'mount -t tmpfs -o mode=0755 agentrt-ctrd-run /run && exec containerd --config "$1"' \
      sh "$CTRD_DIR/config.toml" </dev/null >"$CTRD_DIR/containerd.log" 2>&1 3>&- &
  fi
  CTRD_PID=$!
  containerd_wait command ctr --address "$CTRD_SOCK" version
}

# containerd_wait CMD...: polls CMD (a client call) until it succeeds, CTRD_READY_TIMEOUT s at
# most; fails with the end of containerd's log if it does not, or if containerd exits.
containerd_wait() {
  local i
  for ((i = 0; i < CTRD_READY_TIMEOUT * 10; i++)); do
    if ! kill -0 "$CTRD_PID" 2>/dev/null; then
      echo "containerd exited at start; its log:" >&2
      tail -n 20 "$CTRD_DIR/containerd.log" >&2
      return 1
    fi
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "containerd: no answer to \`$*\` on $CTRD_SOCK within ${CTRD_READY_TIMEOUT}s; its log:" >&2
  tail -n 20 "$CTRD_DIR/containerd.log" >&2
  return 1
}

# containerd_shim_pids: the live shims our containerd started (their command line names our
# socket as -address).
containerd_shim_pids() {
  local p
  [ -n "${CTRD_SOCK:-}" ] || return 0
  for p in $(grep -lsF -- "$CTRD_SOCK" /proc/[0-9]*/cmdline); do
    p=${p%/cmdline}
    case $(cat "$p/comm" 2>/dev/null) in containerd-shim*) ;; *) continue ;; esac
    tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- " $CTRD_SOCK " && echo "${p#/proc/}"
  done
}

# containerd_shim_socket ID: the socket of the shim of task ID in CTRD_NS, as containerd 1.6
# names it (/run/containerd/s/<sha256 of CTRD_SOCK/CTRD_NS/ID>): in containerd's private /run,
# /proc/CTRD_PID/root/run on the host; the host's /run/containerd/s never has it.
containerd_shim_socket() {
  echo "/run/containerd/s/$(printf '%s' "$CTRD_SOCK/$CTRD_NS/$1" | sha256sum | cut -d' ' -f1)"
}

# containerd_mounts_under DIR: mount points at or below DIR in containerd's mount namespace
# (where its shims mount the containers' root filesystems), deepest first.
containerd_mounts_under() {
  local mi=/proc/${CTRD_PID:-self}/mountinfo
  [ -r "$mi" ] || return 0
  awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' "$mi" | sort -r
}

# containerd_clean_ns: kill and delete every task, container and image left in CTRD_NS.
containerd_clean_ns() {
  local id
  for id in $(ctr_ task ls -q 2>/dev/null); do
    ctr_ task kill -a -s SIGKILL "$id" >/dev/null 2>&1 || true
    ctr_ task delete -f "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr_ container ls -q 2>/dev/null); do
    ctr_ container delete "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr_ image ls -q 2>/dev/null); do
    ctr_ image rm --sync "$id" >/dev/null 2>&1 || true
  done
}

# containerd_ns_cgroups: the cgroup directories under CTRD_NS's parents, deepest first.
containerd_ns_cgroups() {
  [ -n "${CTRD_NS:-}" ] && [ "${CTRD_CG_OWNED:-0}" -eq 1 ] || return 0
  find /sys/fs/cgroup/*/"$CTRD_NS" /sys/fs/cgroup/"$CTRD_NS" -depth -type d 2>/dev/null
}

containerd_stop() {
  [ -n "${CTRD_DIR:-}" ] || return 0
  local i p shims='' cg
  if [ -n "${CTRD_PID:-}" ] && kill -0 "$CTRD_PID" 2>/dev/null; then
    containerd_clean_ns
    shims=$(containerd_shim_pids)
    kill -TERM "$CTRD_PID" 2>/dev/null
    for ((i = 0; i < 100; i++)); do kill -0 "$CTRD_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$CTRD_PID" 2>/dev/null || true
    wait "$CTRD_PID" 2>/dev/null || true
  fi
  # Shims outlive containerd by design; only a failed delete leaves one behind, and the
  # processes of its container in the cgroups ctr gave them (/NS/ID).
  shims="$shims $(containerd_shim_pids)"
  for p in $shims; do kill -KILL "$p" 2>/dev/null || true; done
  for cg in $(containerd_ns_cgroups); do
    for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
  done
  for p in $shims; do
    for ((i = 0; i < 50; i++)); do [ -d "/proc/$p" ] || break; sleep 0.1; done
  done
  for cg in $(containerd_ns_cgroups); do
    for ((i = 0; i < 50; i++)); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
  done
  # The mount namespace, and every mount in it, went with its last process.
  rm -rf "$CTRD_DIR"
  CTRD_DIR='' CTRD_PID=
  return 0
}
