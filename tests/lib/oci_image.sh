# OCI image archives made by hand from a directory, for engines that need an image where no
# registry exists (containerd's `ctr image import`).  Source this file; it defines
# oci_image_archive.  Needs tar, sha256sum and jq.

# oci_image_archive ROOTFS NAME OUT.tar [ENTRYPOINT_JSON]: one uncompressed layer made of ROOTFS,
# an image config (linux/amd64 or the host's arch, ENTRYPOINT_JSON such as '["/pause"]'), a
# manifest, index.json and oci-layout, all content-addressed by sha256, packed into OUT.tar.
# The index names the image NAME (io.containerd.image.name), which `ctr image import` uses.
oci_image_archive() {
  local rootfs=$1 name=$2 out=$3 entrypoint=${4:-null} dir arch layer config manifest
  dir=$(mktemp -d "${TMPDIR:-/tmp}/oci-image.XXXXXX")
  mkdir -p "$dir/blobs/sha256"
  case $(uname -m) in
    x86_64) arch=amd64 ;;
    aarch64) arch=arm64 ;;
    *) arch=$(uname -m) ;;
  esac
  # Owned by root, sorted, dated 0: the same tree gives the same digest.
  tar --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 -C "$rootfs" -cf "$dir/layer.tar" . ||
    { rm -rf "$dir"; return 1; }
  layer=$(_oci_blob "$dir" "$dir/layer.tar")
  jq -cn --arg arch "$arch" --arg diff "sha256:${layer%% *}" --argjson ep "$entrypoint" '{
      architecture: $arch, os: "linux",
      config: { Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                Entrypoint: $ep, WorkingDir: "/" },
      rootfs: { type: "layers", diff_ids: [$diff] },
      history: [{ created_by: "tests/lib/oci_image.sh" }] }' >"$dir/config.json"
  config=$(_oci_blob "$dir" "$dir/config.json")
  jq -cn --arg cd "sha256:${config%% *}" --argjson cs "${config##* }" \
    --arg ld "sha256:${layer%% *}" --argjson ls "${layer##* }" '{
      schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs },
      layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $ld, size: $ls }] }' \
    >"$dir/manifest.json"
  manifest=$(_oci_blob "$dir" "$dir/manifest.json")
  jq -cn --arg md "sha256:${manifest%% *}" --argjson ms "${manifest##* }" --arg name "$name" '{
      schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $md,
                    size: $ms, annotations: { "io.containerd.image.name": $name,
                                              "org.opencontainers.image.ref.name": ($name | sub(".*:"; "")) } }] }' \
    >"$dir/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
  tar --numeric-owner --owner=0 --group=0 -C "$dir" -cf "$out" oci-layout index.json blobs
  local rc=$?
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
