#!/bin/sh
# Prints the commit that `agentrt --version` shows, as make runs it at every build (not
# configure: a commit or an edit after configure must show): GIT_COMMIT when given (configure's
# variable), else the .tarball-version that `make dist` stored in a tarball, else
# `git describe` of the source tree (40-digit commit, after the nearest v* tag if any, -dirty
# with uncommitted changes), else "unknown".
#   tools/version.sh SRCDIR [GIT_COMMIT]           the commit
#   tools/version.sh SRCDIR [GIT_COMMIT] --header  build_version.h
set -eu
srcdir=$1 override=${2:-} v=
if [ -n "$override" ]; then
  v=$override
elif [ -f "$srcdir/.tarball-version" ]; then
  v=$(cat "$srcdir/.tarball-version")
else
  v=$(git -C "$srcdir" describe --always --dirty --abbrev=40 --match 'v[0-9]*' 2>/dev/null) || v=
fi
[ -n "$v" ] || v=unknown
case "$v" in
  *[!A-Za-z0-9._+-]*)
    echo "version.sh: \`$v\` is not a commit" >&2
    exit 1
    ;;
esac
if [ "${3:-}" = --header ]; then
  echo "/* Written by tools/version.sh at build time.  */"
  echo "#define AR_BUILD_COMMIT \"$v\""
else
  echo "$v"
fi
