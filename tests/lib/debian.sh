# A Debian 12 (bookworm) root filesystem with python3 and pip, for the tests that need a real
# distribution's programs.  Built once with debootstrap and cached outside the clone, like
# rootfs.sh's busybox (CI starts from a fresh clone; the machine keeps the cache).
# Source this file; it defines debian_rootfs.

AGENTRT_TEST_CACHE=${AGENTRT_TEST_CACHE:-/var/cache/agentrt-tests}
# Bump the -rN suffix whenever what goes into the rootfs changes, so an old cache is not reused.
DEBIAN_ROOTFS_NAME=debian-bookworm-py-r1
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# debian_rootfs: prints the path of the cached rootfs, building it first if it is missing.
# The rootfs is shared by every test: use it read-only (root.readonly) and never write into it.
debian_rootfs() {
  local cache="$AGENTRT_TEST_CACHE/$DEBIAN_ROOTFS_NAME" lock fd rc=0
  # Only a finished build is ever renamed to $cache, so its existence means it is complete.
  if [ -x "$cache/usr/bin/python3" ]; then echo "$cache"; return 0; fi
  mkdir -p "$AGENTRT_TEST_CACHE" || return 1
  lock="$cache.lock"
  exec {fd}>"$lock" || return 1
  # Another run may be building it: wait for that build (a few minutes) instead of racing it.
  if ! flock -w 1800 "$fd"; then
    echo "debian_rootfs: timed out waiting for $lock" >&2; exec {fd}>&-; return 1
  fi
  if [ ! -x "$cache/usr/bin/python3" ]; then
    __debian_build "$cache" || rc=$?
  fi
  exec {fd}>&-
  [ "$rc" -eq 0 ] || return "$rc"
  echo "$cache"
}

# __debian_build CACHE: debootstrap into a temporary directory beside CACHE, then rename it.
# Called with the lock held.
__debian_build() {
  local cache=$1 tmp old log
  command -v debootstrap >/dev/null || { echo "debootstrap not found: run tools/install-deps.sh" >&2; return 1; }
  # With the lock held, any leftover temporary directory (or log) is from an interrupted build.
  # --one-file-system: an interrupted debootstrap may have left proc or sys mounted inside it.
  for old in "$cache".tmp.*; do
    [ -e "$old" ] && rm -rf --one-file-system "$old"
  done
  tmp=$(mktemp -d "$cache.tmp.XXXXXX") || return 1
  # mktemp made it 0700; a container root mapped to an unprivileged uid must be able to enter.
  chmod 0755 "$tmp"
  log="$tmp.log"
  echo "debian_rootfs: building $cache with debootstrap (a few minutes; log in $log)" >&2
  if ! debootstrap --variant=minbase --include=python3,python3-pip bookworm "$tmp" "$DEBIAN_MIRROR" \
    >"$log" 2>&1; then
    echo "debian_rootfs: debootstrap failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    rm -rf --one-file-system "$tmp"
    return 1
  fi
  # The downloaded .debs are a third of the size and no test needs them.
  rm -f "$tmp"/var/cache/apt/archives/*.deb
  mv -T "$tmp" "$cache" || { rm -rf --one-file-system "$tmp"; return 1; }
  rm -f "$log"
}
