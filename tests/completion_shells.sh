#!/bin/sh
# The zsh and fish completions that make generates (completions/_agentrt, agentrt.fish) asked
# by the shells themselves (TAP, `make check`): zsh interactive in a pty (tests/lib/
# zsh_complete.zsh), fish through `complete -C`.  What they offer, with a trailing = or / cut,
# must be what --help says.
#   AGENTRT=./agentrt COMPLETION_DIR=completions srcdir=. sh tests/completion_shells.sh
set -u
: "${AGENTRT:?AGENTRT names the agentrt binary}" "${COMPLETION_DIR:?}" "${srcdir:=.}"
n=0
failed=0
for tool in zsh fish; do
  command -v $tool >/dev/null || {
    echo "1..1"
    echo "not ok 1 - $tool not found: install the Debian packages zsh and fish (tools/install-deps.sh --tests)"
    exit 1
  }
done
root=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-completion.XXXXXX")
bindir=$(cd "$(dirname "$AGENTRT")" && pwd)
trap 'rm -rf "$root"' EXIT
mkdir "$root/c1" # `agentrt --root $root list -q` lists it: an id to complete

offered () { # SHELL LINE
  if [ "$1" = zsh ]; then
    zsh -f "$srcdir/tests/lib/zsh_complete.zsh" "$COMPLETION_DIR" "$bindir" "$2"
  else
    PATH=$bindir:$PATH fish -c "source '$COMPLETION_DIR/agentrt.fish'; complete -C '$2'" | cut -f1
  fi | sed -e 's/=$//' -e 's|/$||' | sort -u
}
expect () { # SHELL DESCRIPTION EXPECTED LINE
  want=$(printf '%s\n' $3 | sort -u)
  got=$(offered "$1" "$4")
  n=$((n + 1))
  if [ "$got" = "$want" ]; then
    echo "ok $n - $1: $2"
  else
    failed=1
    echo "not ok $n - $1: $2"
    echo "# offered for \`$4\`: $(echo $got)"
    echo "# expected: $(echo $want)"
  fi
}

commands=$("$AGENTRT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
echo "1..16"
for sh in zsh fish; do
  expect $sh "a command from its first letters" "run" "agentrt ru"
  expect $sh "a command after a global option" "exec" "agentrt --root=$root ex"
  expect $sh "a command's option" "--keep" "agentrt run --ke"
  expect $sh "valued options, not only the longest" \
    "--net-allow --net-allow-add --net-allow-remove" "agentrt update --net-al"
  expect $sh "global options" "--root --rootless" "agentrt --ro"
  expect $sh "a container id under the --root given" "c1" "agentrt --root=$root kill "
  # A file after an option that takes one: fish offers near matches too (Makefile for ma).
  got=$(offered $sh "agentrt run -b $srcdir/ma")
  n=$((n + 1))
  if printf '%s\n' "$got" | grep -qx "$srcdir/man\|man"; then echo "ok $n - $sh: a file after -b"; else
    failed=1
    echo "not ok $n - $sh: a file after -b"
    echo "# offered: $(echo $got)"
  fi
  expect $sh "every command of agentrt --help" "$commands" "agentrt "
done
exit $failed
