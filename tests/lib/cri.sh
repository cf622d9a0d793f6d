# A private containerd 1.6 with its CRI plugin, as a Kubernetes node runs it, for tests/cri.bats.
# Source this file; it defines cri_start, cri_stop and cri (the CRI client).
#
# Everything lives under one directory CRI_DIR: root, state, the gRPC socket, the runtimes'
# --root, CNI (empty), logs.  The one path containerd 1.6 does not let us move is the shims'
# sockets, /run/containerd/s/<sha256 of our socket, namespace and id>: the shims remove them
# when they exit.

CRI_PYTHON=${CRI_PYTHON:-/usr/bin/python3} # Debian's, which has python3-grpcio
CRI_NS=k8s.io

# cri ARGS…: tests/lib/cri_client.py against our containerd.
cri() { "$CRI_PYTHON" "${BASH_SOURCE[0]%/*}/cri_client.py" --endpoint "unix://$CRI_DIR/containerd.sock" "$@"; }

# ctr_cri ARGS…: ctr in the CRI's namespace.
ctr_cri() { ctr --address "$CRI_DIR/containerd.sock" -n "$CRI_NS" "$@"; }

# cri_config AGENTRT SANDBOX_IMAGE: the containerd config.toml.  Handler `agentrt` is the
# RuntimeClass under test (contrib/kubernetes/containerd-agentrt.toml, with private paths);
# handler `runc` is the control, configured the same way.
cri_config() {
  cat <<EOF
version = 2
root = "$CRI_DIR/root"
state = "$CRI_DIR/state"
# No plugins from /var/lib/containerd/opt, no snapshotters we do not use.
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = "$CRI_DIR/containerd.sock"
[ttrpc]
  address = "$CRI_DIR/containerd.sock.ttrpc"
[debug]
  address = ""
  level = "info"
[metrics]
  address = ""

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$2"
  # The sandbox asks for oom_score_adj -998; root here lacks CAP_SYS_RESOURCE, so a negative
  # value fails.  Restricted, it is clamped to containerd's own (0).
  restrict_oom_score_adj = true
  # Loading the default AppArmor profile would change the host; this kernel has none anyway.
  disable_apparmor = true
  # A random port on loopback: several containerds may run on this machine.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  netns_mounts_under_state_dir = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        Root = "$CRI_DIR/runc-root"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.agentrt]
      runtime_type = "io.containerd.runc.v2"
      # Pod annotations io.agentrt.* reach the sandbox's and the containers' config.json.
      pod_annotations = ["io.agentrt.*"]
      container_annotations = ["io.agentrt.*"]
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.agentrt.options]
        BinaryName = "$1"
        Root = "$CRI_DIR/agentrt-root"
  [plugins."io.containerd.grpc.v1.cri".cni]
    # Empty: pods run with the node's network (hostNetwork), which needs no CNI.
    bin_dir = "$CRI_DIR/cni/bin"
    conf_dir = "$CRI_DIR/cni/net.d"
EOF
}

# cri_start DIR AGENTRT: starts containerd on DIR and waits until its CRI answers.  Sets
# CRI_DIR and CRI_PID.
cri_start() {
  CRI_DIR=$1
  local agentrt=$2 i
  mkdir -p "$CRI_DIR"/{cni/bin,cni/net.d,logs,runc-root,agentrt-root}
  cri_config "$agentrt" "${CRI_SANDBOX_IMAGE:-localhost/agentrt-test/pause:1}" >"$CRI_DIR/config.toml"
  containerd --config "$CRI_DIR/config.toml" >"$CRI_DIR/containerd.log" 2>&1 &
  CRI_PID=$!
  for ((i = 0; i < 200; i++)); do
    if [ -S "$CRI_DIR/containerd.sock" ] && cri version >/dev/null 2>&1; then
      return 0
    fi
    kill -0 "$CRI_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "containerd did not start; its log:" >&2
  tail -n 30 "$CRI_DIR/containerd.log" >&2
  return 1
}

# cri_shims: the pids of the shims of our containerd (their command line names our socket).
cri_shims() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = containerd-shim ] || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "-address $CRI_DIR/containerd.sock " &&
      echo "${p#/proc/}"
  done
}

# cri_stop: removes every pod left (a failed test's), stops containerd by its pid, then its shims,
# then whatever the runtimes still hold under our roots and every mount under CRI_DIR.
cri_stop() {
  [ -n "${CRI_DIR:-}" ] || return 0
  local pid m i c root rt
  if [ -n "${CRI_PID:-}" ] && kill -0 "$CRI_PID" 2>/dev/null; then
    cri cleanup >/dev/null 2>&1 || true
    kill -TERM "$CRI_PID"
    for ((i = 0; i < 100; i++)); do kill -0 "$CRI_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$CRI_PID" 2>/dev/null || true
    wait "$CRI_PID" 2>/dev/null || true
  fi
  for pid in $(cri_shims); do kill -KILL "$pid" 2>/dev/null || true; done
  for rt in "runc:$CRI_DIR/runc-root" "${CRI_AGENTRT:-}:$CRI_DIR/agentrt-root"; do
    root=${rt#*:}
    [ -n "${rt%%:*}" ] && [ -d "$root/$CRI_NS" ] || continue
    for c in $("${rt%%:*}" --root "$root/$CRI_NS" list -q 2>/dev/null); do
      "${rt%%:*}" --root "$root/$CRI_NS" delete --force "$c" >/dev/null 2>&1 || true
    done
  done
  # Deepest first: the containers' rootfs overlays, the sandboxes' /dev/shm.
  for m in $(cri_mounts | sort -r); do umount -l "$m" 2>/dev/null || true; done
  rm -rf "$CRI_DIR"
}

# cri_mounts: mount points under CRI_DIR.
cri_mounts() { awk -v d="$CRI_DIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo; }
