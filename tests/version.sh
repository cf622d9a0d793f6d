#!/bin/sh
# `agentrt --version` and `features` name the commit of the tree as built (TAP, `make check`):
# what tools/version.sh finds now (git describe, or the tarball's .tarball-version), so a
# binary that kept the commit configure saw fails here after a commit or an edit.
set -u
: "${AGENTRT:?AGENTRT names the agentrt binary}" "${srcdir:=.}"
want=$(sh "$srcdir/tools/version.sh" "$srcdir" "${GIT_COMMIT:-}")
echo "1..2"
got=$("$AGENTRT" --version | sed -n 's/^commit: //p')
if [ "$got" = "$want" ]; then echo "ok 1 - --version shows $want"; else
  echo "not ok 1 - --version shows \`$got\`, the tree is $want"; fi
got=$("$AGENTRT" features | sed -n 's/^ *"io.agentrt.commit": "\(.*\)",*$/\1/p')
if [ "$got" = "$want" ]; then echo "ok 2 - features shows $want"; else
  echo "not ok 2 - features shows \`$got\`, the tree is $want"; fi
