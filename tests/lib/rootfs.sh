# Root filesystems for the tests, built from Debian packages and cached outside the clone, so
# that later runs on the same machine reuse them (CI starts from a fresh clone every time).
# Source this file; it defines rootfs_busybox.

AGENTRT_TEST_CACHE=${AGENTRT_TEST_CACHE:-/var/cache/agentrt-tests}

# rootfs_busybox DIR: a rootfs made of the host's busybox-static and its applet links.
rootfs_busybox() {
  local dest=$1 busybox version cache
  busybox=$(command -v busybox) || { echo "busybox not found: install busybox-static" >&2; return 1; }
  if ldd "$busybox" >/dev/null 2>&1; then
    echo "$busybox is dynamically linked: install busybox-static" >&2; return 1
  fi
  # awk reads everything: a reader that stops early would SIGPIPE busybox under pipefail.
  version=$("$busybox" 2>&1 | awk 'NR == 1 { v = $2 } END { print v }')
  cache="$AGENTRT_TEST_CACHE/busybox-$version-r3"
  if [ ! -x "$cache/bin/busybox" ]; then
    local tmp
    tmp=$(mktemp -d "$AGENTRT_TEST_CACHE.tmp.XXXXXX" 2>/dev/null) || {
      mkdir -p "$(dirname "$AGENTRT_TEST_CACHE")"; tmp=$(mktemp -d "$AGENTRT_TEST_CACHE.tmp.XXXXXX"); }
    # mktemp made it 0700; a container root mapped to an unprivileged uid must be able to enter.
    chmod 0755 "$tmp"
    mkdir -p "$tmp"/{bin,dev,etc,proc,sys,tmp,root}
    chmod 1777 "$tmp/tmp"
    cp "$busybox" "$tmp/bin/busybox"
    # Relative links: `busybox --install -s` would point them at this temporary path.
    for a in $("$tmp/bin/busybox" --list); do
      [ "$a" = busybox ] || ln -sf busybox "$tmp/bin/$a"
    done
    echo 'root:x:0:0:root:/root:/bin/sh' >"$tmp/etc/passwd"
    echo 'root:x:0:' >"$tmp/etc/group"
    mkdir -p "$AGENTRT_TEST_CACHE"
    # Another run may have raced us here: the first rename wins, the loser is thrown away.
    mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
  fi
  mkdir -p "$dest"
  cp -a "$cache/." "$dest/"
}
