# A Debian 12 (bookworm) root filesystem with python3 and pip, for the tests that need a real
# distribution's programs.  Built once with debootstrap and cached outside the clone, like
# rootfs.sh's busybox (CI starts from a fresh clone; the machine keeps the cache).
# Source this file; it defines debian_rootfs and debian_corpus_rootfs.

AGENTRT_TEST_CACHE=${AGENTRT_TEST_CACHE:-/var/cache/agentrt-tests}
# Bump the -rN suffix whenever what goes into the rootfs changes, so an old cache is not reused.
DEBIAN_ROOTFS_NAME=debian-bookworm-py-r1
DEBIAN_ROOTFS_PACKAGES=python3,python3-pip
# The compatibility corpus (tests/corpus/tasks.sh): the toolchains and tools an agent uses.
# npm is left out: it pulls in some 400 node-* packages, and node itself is what the corpus runs.
DEBIAN_CORPUS_NAME=debian-bookworm-corpus-r1
DEBIAN_CORPUS_PACKAGES=gcc,g++,make,libc6-dev,git,nodejs,python3,python3-venv,python3-pip,\
python3-numpy,python3-wheel,python3-setuptools,perl,sqlite3,busybox,tar,xz-utils,curl,strace,\
procps,util-linux,bsdutils
# Installed with apt-get in the new root after debootstrap: debootstrap's own dependency order
# fails to configure gdb's libsource-highlight4v5.
DEBIAN_CORPUS_LATE=gdb
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# debian_rootfs: prints the path of the cached rootfs, building it first if it is missing.
# The rootfs is shared by every test: use it read-only (root.readonly) and never write into it.
debian_rootfs() {
  __debian_cached "$DEBIAN_ROOTFS_NAME" "$DEBIAN_ROOTFS_PACKAGES"
}

# debian_corpus_rootfs: the same for the compatibility corpus' rootfs (several hundred MB).
debian_corpus_rootfs() {
  __debian_cached "$DEBIAN_CORPUS_NAME" "$DEBIAN_CORPUS_PACKAGES" "$DEBIAN_CORPUS_LATE"
}

# __debian_cached NAME PACKAGES [LATE]: prints the path of the cached rootfs NAME, building it
# with the comma-separated PACKAGES (and then the space-separated LATE) first if it is missing.
__debian_cached() {
  local cache="$AGENTRT_TEST_CACHE/$1" packages=$2 late=${3:-} lock fd rc=0
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
    __debian_build "$cache" "$packages" "$late" || rc=$?
  fi
  exec {fd}>&-
  [ "$rc" -eq 0 ] || return "$rc"
  echo "$cache"
}

# __debian_build CACHE PACKAGES LATE: debootstrap into a temporary directory beside CACHE, then rename it.
# Called with the lock held.
__debian_build() {
  local cache=$1 packages=$2 late=$3 tmp old log
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
  if ! debootstrap --variant=minbase --include="$packages" bookworm "$tmp" "$DEBIAN_MIRROR" \
    >"$log" 2>&1 || ! __debian_late "$tmp" "$late" >>"$log" 2>&1; then
    # debootstrap's own log names the package at fault; it goes with the directory.
    cat "$tmp/debootstrap/debootstrap.log" >>"$log" 2>/dev/null
    echo "debian_rootfs: building $cache failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    rm -rf --one-file-system "$tmp"
    return 1
  fi
  # The downloaded .debs are a third of the size and no test needs them.
  rm -f "$tmp"/var/cache/apt/archives/*.deb
  rm -rf "$tmp"/var/lib/apt/lists/*
  mv -T "$tmp" "$cache" || { rm -rf --one-file-system "$tmp"; return 1; }
  rm -f "$log"
}

# __debian_late ROOT PACKAGES: apt-get install PACKAGES (space-separated, may be empty) in ROOT.
# Nothing is mounted into ROOT: dpkg and apt-get need no /proc for this.
__debian_late() {
  [ -n "$2" ] || return 0
  echo "debian_rootfs: apt-get install $2" >&2
  # shellcheck disable=SC2086 # a list of package names
  chroot "$1" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
    "apt-get update -q && apt-get install -q -y --no-install-recommends $2 && apt-get clean"
}
