# containerd 1.6 with its CRI plugin, as a Kubernetes node runs it, for tests/cri.bats: the private
# containerd of tests/lib/containerd.sh (its own mount namespace with a private /run, so the
# shims' sockets never reach the host's /run/containerd/s), started with the CRI plugin, in
# namespace k8s.io, with the RuntimeClass handlers below.  Source this file after helpers.bash;
# it defines cri_start, cri_stop and cri (the CRI client), and containerd.sh's functions.

source "${BASH_SOURCE[0]%/*}/containerd.sh"

CRI_PYTHON=${CRI_PYTHON:-/usr/bin/python3} # Debian's, which has python3-grpcio

# cri ARGS…: tests/lib/cri_client.py against our containerd.
cri() { "$CRI_PYTHON" "${BASH_SOURCE[0]%/*}/cri_client.py" --endpoint "unix://$CTRD_SOCK" "$@"; }

# cri_config DIR AGENTRT SANDBOX_IMAGE: the CRI plugin's part of containerd's config.toml, with
# its paths under DIR.  Handler `agentrt` is the RuntimeClass under test
# (contrib/kubernetes/containerd-agentrt.toml, with private paths); handler `runc` is the
# control, configured the same way.  Each runtime's --root is DIR/NAME-root/k8s.io.  The CNI
# plugins are CRI_CNI_BIN's (default: DIR/cni/bin, empty).  With CRI_SYSTEMD_CGROUP=1 both use
# the systemd cgroup driver (SystemdCgroup = true: the shim passes --systemd-cgroup), as on a
# node whose kubelet's cgroupDriver is systemd.
cri_config() {
  local sd=""
  [ "${CRI_SYSTEMD_CGROUP:-0}" = 1 ] && sd="SystemdCgroup = true"
  cat <<EOF
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$3"
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
        Root = "$1/runc-root"
        $sd
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.agentrt]
      runtime_type = "io.containerd.runc.v2"
      # Pod annotations io.agentrt.* reach the sandbox's and the containers' config.json.
      pod_annotations = ["io.agentrt.*"]
      container_annotations = ["io.agentrt.*"]
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.agentrt.options]
        BinaryName = "$2"
        Root = "$1/agentrt-root"
        $sd
  [plugins."io.containerd.grpc.v1.cri".cni]
    # Empty unless CRI_CNI_CONFLIST: pods run with the node's network (hostNetwork), which
    # needs no CNI.
    bin_dir = "${CRI_CNI_BIN:-$1/cni/bin}"
    conf_dir = "$1/cni/net.d"
EOF
}

# cri_agentrt_conf DIR: the node's agentrt.conf (contrib/kubernetes/agentrt.conf) with its
# audit_dir under DIR, and pod_annotations = CRI_POD_ANNOTATIONS.  By default the pods here have
# the node's network (hostNetwork), so the node's loopback is theirs anyway: the operator lets
# them name it in io.agentrt.net.allow (CRI_POD_ANNOTATIONS empty: pods may not).
cri_agentrt_conf() {
  sed "s|^audit_dir = .*|audit_dir = $1/audit|" "${BASH_SOURCE[0]%/*}/../../contrib/kubernetes/agentrt.conf"
  local keys=${CRI_POD_ANNOTATIONS-io.agentrt.net.allow}
  [ -z "$keys" ] || echo "pod_annotations = $keys"
}

# cri_start DIR AGENTRT [OPTION…]: containerd_start --cri on DIR (CRI_SANDBOX_IMAGE is the pause
# image; OPTION… are containerd_start's, such as --host-run), then waits until its CRI answers.
# Sets CTRD_DIR, CTRD_SOCK, CTRD_PID, CTRD_NS (k8s.io).
# The handler runs AGENTRT through a wrapper that adds --config DIR/agentrt.conf: a node has
# /etc/agentrt/agentrt.conf, which a test must not write.  With CRI_CNI_CONFLIST (a .conflist's
# text) pods get that CNI network, with CRI_NETNS containerd runs in that network namespace
# (containerd_start --netns): the plugins then work there, never in ours (tests/cni.bats).
cri_start() {
  local dir=$1 agentrt=$2 netns=()
  shift 2
  mkdir -p "$dir"/{cni/bin,cni/net.d,logs,runc-root,agentrt-root} || return 1
  if [ -n "${CRI_CNI_CONFLIST:-}" ]; then
    printf '%s\n' "$CRI_CNI_CONFLIST" >"$dir/cni/net.d/10-agentrt-test.conflist" || return 1
  fi
  [ -z "${CRI_NETNS:-}" ] || netns=(--netns "$CRI_NETNS")
  cri_agentrt_conf "$dir" >"$dir/agentrt.conf" && chmod 0600 "$dir/agentrt.conf" || return 1
  printf '#!/bin/sh\nexec %q --config %q "$@"\n' "$agentrt" "$dir/agentrt.conf" >"$dir/agentrt" &&
    chmod 0755 "$dir/agentrt" || return 1
  containerd_start --cri --ns k8s.io --dir "$dir" "${netns[@]}" "$@" --config-extra \
    "$(cri_config "$dir" "$dir/agentrt" "${CRI_SANDBOX_IMAGE:-localhost/agentrt-test/pause:1}")" ||
    return 1
  # The pods' cgroups are under the cgroup parent the test gives them; /NS/ID, where ctr would
  # put a container, is not used, and k8s.io is no namespace of ours alone to clean.
  CTRD_CG_OWNED=0
  containerd_wait cri version
}

# cri_stop: removes every pod left (a failed test's) through CRI, then deletes with its runtime
# (CRI_AGENTRT, runc) whatever a runtime still holds under its root, then containerd_stop.
cri_stop() {
  [ -n "${CTRD_DIR:-}" ] || return 0
  local c root rt
  if [ -n "${CTRD_PID:-}" ] && kill -0 "$CTRD_PID" 2>/dev/null; then
    cri cleanup >/dev/null 2>&1 || true
  fi
  for rt in "runc:$CTRD_DIR/runc-root" "${CRI_AGENTRT:-}:$CTRD_DIR/agentrt-root"; do
    root=${rt#*:}
    [ -n "${rt%%:*}" ] && [ -d "$root/$CTRD_NS" ] || continue
    for c in $("${rt%%:*}" --root "$root/$CTRD_NS" list -q 2>/dev/null); do
      "${rt%%:*}" --root "$root/$CTRD_NS" delete --force "$c" >/dev/null 2>&1 || true
    done
  done
  containerd_stop
}
