#!/bin/bash
# The bash completion that make generates (completions/agentrt, tools/completion.sh) against the
# binary it was generated from (TAP, run by `make check`): it offers the commands, each
# command's options and a file after an option that takes one, as bash would call it.
#   AGENTRT=./agentrt COMPLETION=completions/agentrt srcdir=. bash tests/completion.bash
set -u
: "${AGENTRT:?AGENTRT names the agentrt binary}" "${COMPLETION:?COMPLETION names the script}"
: "${srcdir:=.}"
n=0
failed=0

# offered WORD...: what _agentrt offers for the last word of `WORD...`, one a line, sorted.
offered () {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _agentrt
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect DESCRIPTION EXPECTED WORD...: EXPECTED (one a line) is what is offered.
expect () {
  local what=$1 want got
  want=$(printf '%s\n' $2 | sort)
  shift 2
  got=$(offered "$@")
  n=$((n + 1))
  if [ "$got" = "$want" ]; then
    echo "ok $n - $what"
  else
    failed=1
    echo "not ok $n - $what"
    echo "# offered for \`$*\`: $(echo $got)"
    echo "# expected: $(echo $want)"
  fi
}

echo "1..9"
# shellcheck source=/dev/null
. "$COMPLETION" || {
  echo "Bail out! $COMPLETION does not load"
  exit 1
}
complete -p agentrt >/dev/null || echo "Bail out! $COMPLETION registers no completion for agentrt"

expect "a command from its first letters" "run" agentrt ru
expect "a command after a global option and its value" "exec" agentrt --root /tmp ex
expect "a command's option" "--keep" agentrt run --ke
expect "a valued option with its =, and not a longer name's" "--net-allow= --net-allow-add= \
  --net-allow-remove=" agentrt update --net-al
expect "global options" "--root= --rootless" agentrt --ro
expect "a file after an option that takes one" "$srcdir/man" agentrt run --bundle = "$srcdir/ma"
expect "a file after an option's value in the next word" "$srcdir/man" agentrt run -b "$srcdir/ma"

root=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-completion.XXXXXX")
mkdir "$root/c1" # `agentrt --root $root list -q` lists it
PATH=$(cd "$(dirname "$AGENTRT")" && pwd):$PATH # the ids come from `agentrt list`: this one
expect "a container id under the --root given" "c1" agentrt --root "$root" kill ""
rm -rf "$root"

# Every command of `agentrt --help`, and nothing else.
commands=$("$AGENTRT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
expect "every command of agentrt --help" "$commands" agentrt ""
exit $failed
