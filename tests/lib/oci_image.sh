# OCI image archives made by hand from a directory, for engines that need an image where no
# registry exists (containerd's `ctr image import`, for ctr as for CRI).  Source this file; it
# defines oci_image_from_rootfs.  Needs tar, gzip, sha256sum and jq.

# oci_image_from_rootfs ROOTFS OUT.tar REF [CMD...]: an OCI image layout tarball of ROOTFS (one
# gzip layer), written as `ctr image import` reads it: oci-layout, index.json, and the layer,
# config and manifest blobs named by their sha256.  The image's Cmd is CMD (default /bin/sh), no
# Entrypoint.  REF (e.g. docker.io/library/busybox:agentrt) is recorded both as
# io.containerd.image.name and as org.opencontainers.image.ref.name; the index gives the host's
# platform.  Deterministic: the same ROOTFS gives the same digests and the same OUT.tar.
oci_image_from_rootfs() {
  local rootfs=$1 out=$2 ref=$3
  shift 3
  local cmd='["/bin/sh"]' arch dir layer diff_id config manifest rc=0
  [ $# -eq 0 ] || cmd=$(jq -cn '$ARGS.positional' --args "$@")
  case $(uname -m) in
    x86_64) arch=amd64 ;;
    aarch64) arch=arm64 ;;
    *) arch=$(uname -m) ;;
  esac
  dir=$(mktemp -d "${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/oci.XXXXXX") || return 1
  mkdir -p "$dir/blobs/sha256"
  # Owned by root, sorted, dated 0: the same tree gives the same digest.
  tar -C "$rootfs" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -cf "$dir/layer.tar" . || { rm -rf "$dir"; return 1; }
  diff_id=$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)
  gzip -n "$dir/layer.tar"
  layer=$(_oci_blob "$dir" "$dir/layer.tar.gz")
  jq -cn --arg arch "$arch" --arg diff "sha256:$diff_id" --argjson cmd "$cmd" '{
    architecture: $arch, os: "linux", created: "1970-01-01T00:00:00Z",
    config: {Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
             Cmd: $cmd, WorkingDir: "/"},
    rootfs: {type: "layers", diff_ids: [$diff]},
    history: [{created: "1970-01-01T00:00:00Z", created_by: "tests/lib/oci_image.sh"}]}' \
    >"$dir/config.json"
  config=$(_oci_blob "$dir" "$dir/config.json")
  jq -cn --arg c "sha256:${config%% *}" --argjson cs "${config##* }" \
    --arg l "sha256:${layer%% *}" --argjson ls "${layer##* }" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
    layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $l, size: $ls}]}' \
    >"$dir/manifest.json"
  manifest=$(_oci_blob "$dir" "$dir/manifest.json")
  jq -cn --arg m "sha256:${manifest%% *}" --argjson ms "${manifest##* }" --arg ref "$ref" \
    --arg arch "$arch" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
                 platform: {architecture: $arch, os: "linux"},
                 annotations: {"io.containerd.image.name": $ref,
                               "org.opencontainers.image.ref.name": $ref}}]}' >"$dir/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
  tar -C "$dir" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -cf "$out" oci-layout index.json blobs || rc=$?
  rm -rf "$dir"
  return $rc
}

# _oci_blob DIR FILE: moves FILE to DIR/blobs/sha256/<digest>; prints "<digest> <size>".
_oci_blob() {
  local sum size
  sum=$(sha256sum "$2" | cut -d' ' -f1) size=$(stat -c %s "$2")
  mv "$2" "$1/blobs/sha256/$sum"
  echo "$sum $size"
}
