# agentrt's Debian package (debian/), built as a distribution would: dpkg-buildpackage -b from the
# tree `make dist` puts in its tarball (distdir), with Debian's build flags and debhelper.  Built
# once per bats run (BATS_RUN_TMPDIR, shared by the files of one run: tests/deb.bats installs it
# into a clean Debian 12, tests/systemd.bats into its guest for Podman) and gone with it.
# Source this file; it defines deb_package.  $AGENTRT's directory is the configured build tree.

# deb_package: prints the path of the .deb, building it first if this run has none.
deb_package() {
  local dir=${BATS_RUN_TMPDIR:?deb_package runs under bats}/deb fd rc=0 deb
  mkdir -p "$dir" || return 1
  exec {fd}>"$dir.lock" || return 1
  flock -w 900 "$fd" || { echo "deb_package: timed out waiting for $dir.lock" >&2; exec {fd}>&-; return 1; }
  deb=$(ls "$dir"/agentrt_*.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ]; then
    __deb_build "$dir" || rc=$?
    deb=$(ls "$dir"/agentrt_*.deb 2>/dev/null | head -n 1)
  fi
  exec {fd}>&-
  [ "$rc" -eq 0 ] && [ -n "$deb" ] || return 1
  echo "$deb"
}

# __deb_build DIR: the distdir, dpkg-buildpackage in it, its .deb and the build log in DIR.  nocheck: `make check` is CI's own step, not the package's to repeat here.
__deb_build() {
  local dir=$1 build src c
  build=$(cd "$(dirname "$AGENTRT")" && pwd)
  for c in dpkg-buildpackage dh; do
    command -v "$c" >/dev/null || { echo "deb_package: $c not found: run tools/install-deps.sh --tests" >&2; return 1; }
  done
  [ -f "$build/Makefile" ] || { echo "deb_package: no Makefile in $build (configure it)" >&2; return 1; }
  src=$dir/src/agentrt
  rm -rf "$dir/src"
  mkdir -p "$dir/src"
  if ! make -s -C "$build" distdir distdir="$src" >"$dir/build.log" 2>&1 \
    || ! (mkdir -p "$dir/tmp" && cd "$src" && TMPDIR=$dir/tmp \
      DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -b -us -uc) \
      >>"$dir/build.log" 2>&1; then
    echo "deb_package: the build failed; last lines of $dir/build.log:" >&2
    tail -n 20 "$dir/build.log" >&2
    return 1
  fi
  # The package, not the debug symbols' (agentrt-dbgsym_*), which no test installs.
  mv "$dir"/src/agentrt_*.deb "$dir/" && rm -rf "$dir/src"
}
