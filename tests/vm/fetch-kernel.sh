#!/bin/sh
# fetch-kernel.sh: prints the path of a bootable Debian 12 kernel for the cgroup v2 VM.
#
# The kernel is the one linux-image-amd64 depends on, fetched with `apt-get download` and
# unpacked with `dpkg-deb -x`: it is never installed on the host.  The unpacked package is
# cached in $AGENTRT_TEST_CACHE (one directory per package version), so only the first run
# needs the network.  When the bzImage's payload can be decompressed, the uncompressed vmlinux
# is printed instead: qemu boots it through its PVH entry point, which skips the xz
# decompression that costs seconds under TCG.
set -eu

cache=${AGENTRT_TEST_CACHE:-/var/cache/agentrt-tests}

die() { echo "fetch-kernel: $*" >&2; exit 1; }

# The versioned package behind the metapackage: "linux-image-6.1.0-57-amd64 (= 6.1.192-3)".
dep=$(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
[ -n "$dep" ] || die "apt-cache knows no linux-image-amd64 (run apt-get update)"
pkg=$(echo "$dep" | sed 's/[ ,(].*//')
ver=$(apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' | head -n 1)
[ -n "$ver" ] || die "apt-cache knows no version of $pkg"
dir="$cache/${pkg}_$ver"

# vmlinux_from DIR BZIMAGE: the kernel's xz payload starts at the xz magic (FD 37 7A 58 5A 00);
# xz stops at the end of its stream and complains about the trailing bytes, hence `|| true`
# and the ELF check afterwards.
vmlinux_from() {
  off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$2" 2>/dev/null | head -n 1 | cut -d: -f1) || return 1
  [ -n "$off" ] || return 1
  tail -c +"$((off + 1))" "$2" | xz -dc 2>/dev/null >"$1/vmlinux.new" || true
  if [ "$(head -c 4 "$1/vmlinux.new" | od -An -c | tr -d ' ')" = '177ELF' ]; then
    mv "$1/vmlinux.new" "$1/vmlinux"
  else
    rm -f "$1/vmlinux.new"
    return 1
  fi
}

if [ ! -e "$dir/.complete" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/kernel.tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # apt's sandbox user (_apt) cannot write this root-owned directory: apt warns and downloads
  # as root, which is what we are anyway.
  (cd "$tmp" && apt-get download -q "$pkg=$ver" >/dev/null 2>&1) || die "apt-get download $pkg=$ver failed"
  dpkg-deb -x "$tmp"/*.deb "$tmp/x" || die "dpkg-deb -x failed"
  rm -f "$tmp"/*.deb
  if command -v xz >/dev/null; then
    vmlinux_from "$tmp/x" "$tmp"/x/boot/vmlinuz-* || echo "fetch-kernel: no vmlinux extracted, booting the bzImage" >&2
  fi
  touch "$tmp/x/.complete"
  # Another run may have raced us here: the first rename wins.
  mv -T "$tmp/x" "$dir" 2>/dev/null || true
fi

if [ -e "$dir/vmlinux" ]; then
  echo "$dir/vmlinux"
else
  set -- "$dir"/boot/vmlinuz-*
  echo "$1"
fi
