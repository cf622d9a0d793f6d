#!/usr/bin/env bash
# build-initramfs.sh AGENTRT OUT [MODULE.ko...]: the cgroup v2 VM's initramfs, an uncompressed
# newc cpio (the kernel unpacks it faster than it would decompress one under TCG).
#
# Contents: busybox-static as the guest's userland (tests/lib/rootfs.sh), /init
# (tests/vm/guest-init), /tests/guest-tests.sh, the agentrt binary with the shared libraries
# ldd lists for it, and /rootfs, a busybox rootfs with the static probe (tests/probe) that the
# guest tests copy into each container's bundle, and the kernel modules given (in /modules, which
# /init loads: overlay, for the ephemeral rootfs).  Built on every run from the build tree;
# nothing of it is cached.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 AGENTRT OUT [MODULE.ko...]" >&2; exit 2; }
agentrt=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/rootfs.sh"
source "$here/../lib/probe.sh"

command -v cpio >/dev/null || { echo "build-initramfs: cpio not found: install cpio" >&2; exit 1; }

stage=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

rootfs_busybox "$stage"
rootfs_busybox "$stage/rootfs"
build_probe "$stage/probe-build" "$stage/rootfs"
rm -rf "$stage/probe-build"
mkdir -p "$stage/tests" "$stage/newroot"

install -m 0755 "$here/guest-init" "$stage/init"
install -m 0755 "$here/guest-tests.sh" "$stage/tests/guest-tests.sh"
install -m 0755 "$agentrt" "$stage/bin/agentrt"
mkdir -p "$stage/modules"
for m in "$@"; do install -m 0644 "$m" "$stage/modules/"; done

# Every library at the path ldd resolved it to, the dynamic loader included (the binary asks for
# it by its absolute path, /lib64/ld-linux-x86-64.so.2); symlinks are followed (cp -L) so the
# file itself lands there.
ldd "$agentrt" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
  while read -r lib; do
    mkdir -p "$stage$(dirname "$lib")"
    cp -L "$lib" "$stage$lib"
  done

# The kernel opens /dev/console for init's stdio before anything is mounted.
mknod -m 0600 "$stage/dev/console" c 5 1
mknod -m 0666 "$stage/dev/null" c 1 3

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
