#!/bin/sh
# The man pages against the binary (TAP, run by `make check`): every command of `agentrt --help`
# has its page and is named in agentrt(8); every option `agentrt [CMD] --help` prints, long and
# short, appears in that page; every io.agentrt.* key of annotations.c is in
# agentrt-annotations(7), every key of operator.c in agentrt.conf(5), every rule of `agentrt
# policy show` in agentrt-policy(7); every page renders without a warning from groff and man.  A flag added to a command without a line in its
# page fails here, which is the point: the pages are written by hand and cannot drift silently.
#   AGENTRT=./agentrt srcdir=. sh tests/man.sh
set -u
: "${AGENTRT:?AGENTRT names the agentrt binary}" "${srcdir:=.}"
man_dir=$srcdir/man
n=0
failed=0

ok () {
  n=$((n + 1))
  echo "ok $n - $1"
}
not_ok () {
  n=$((n + 1))
  failed=1
  echo "not ok $n - $1"
  shift
  for line in "$@"; do echo "# $line"; done
}

# roff writes a hyphen of an option as \-: "--net-allow" is \-\-net\-allow in the page, followed
# by anything but more of a name (\-\-net\-allow\-add is another option).
roff_re () {
  printf '%s' "$1" | sed 's/-/\\\\-/g'
}
has_long () {
  grep -Eq "$(roff_re "--$2")([^a-z0-9\\\\]|\\\\[^-]|\$)" "$1"
}
has_short () {
  grep -Eq "(^|[^-])$(roff_re "-$2")([^a-z0-9\\\\]|\$)" "$1"
}

# The options of one `--help`: long ones at the start of a line ("  -b, --bundle=DIR",
# "      --agent"), never the description's continuation lines (indented further).
long_opts () {
  sed -nE 's/^(  -[^ ], |      )--([a-z0-9][a-z0-9-]*).*/\2/p'
}
short_opts () {
  sed -nE 's/^  -([^ ]), --.*/\1/p'
}

# check_opts PAGE HELP-TEXT: one test per page, listing every option it lacks.
check_opts () {
  page=$1 help=$2 missing=
  for o in $(printf '%s\n' "$help" | long_opts); do
    has_long "$page" "$o" || missing="$missing --$o"
  done
  for o in $(printf '%s\n' "$help" | short_opts); do
    has_short "$page" "$o" || missing="$missing -$o"
  done
  if [ -z "$missing" ]; then
    ok "$(basename "$page") documents every option of its --help"
  else
    not_ok "$(basename "$page") documents every option of its --help" "missing:$missing"
  fi
}

for tool in groff man; do
  if ! command -v $tool >/dev/null; then
    echo "1..1"
    echo "not ok 1 - $tool not found: install the Debian packages groff-base and man-db"
    exit 1
  fi
done

top_help=$("$AGENTRT" --help) || {
  echo "1..1"
  echo "not ok 1 - $AGENTRT --help failed"
  exit 1
}
commands=$(printf '%s\n' "$top_help" | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
# The table is not empty: a change of argp's layout must not make this test pass on nothing.
[ "$(printf '%s\n' "$commands" | wc -l)" -ge 10 ] || not_ok "agentrt --help lists the commands" \
  "commands found: $commands"

check_opts "$man_dir/agentrt.8" "$top_help"
for c in $commands; do
  page=$man_dir/agentrt-$c.8
  if [ ! -f "$page" ]; then
    not_ok "agentrt $c has a man page" "no $page"
    continue
  fi
  ok "agentrt $c has a man page"
  grep -q "^\\.BR agentrt\\\\-$c (8)" "$man_dir/agentrt.8" && ok "agentrt(8) names agentrt-$c(8)" \
    || not_ok "agentrt(8) names agentrt-$c(8)"
  check_opts "$page" "$("$AGENTRT" "$c" --help)"
done

# The keys of the tables the code reads: { "io.agentrt.…", and { "key", set_… }.
missing=
for k in $(sed -nE 's/^  \{ "(io\.agentrt\.[a-z.]+)".*/\1/p' "$srcdir/src/lib/sandbox/annotations.c"); do
  grep -q "^\\.B $k\$" "$man_dir/agentrt-annotations.7" || missing="$missing $k"
done
[ -z "$missing" ] && ok "agentrt-annotations(7) documents every io.agentrt.* key" \
  || not_ok "agentrt-annotations(7) documents every io.agentrt.* key" "missing:$missing"
missing=
keys=$(sed -nE 's/^  \{ "([a-z_]+)", set_[a-z_]+ \},/\1/p' "$srcdir/src/lib/sandbox/operator.c")
[ -n "$keys" ] || missing=" (no key found in operator.c)"
for k in $keys; do
  grep -Eq "^\\.B[IR]? $k " "$man_dir/agentrt.conf.5" || missing="$missing $k"
done
[ -z "$missing" ] && ok "agentrt.conf(5) documents every key" \
  || not_ok "agentrt.conf(5) documents every key" "missing:$missing"

# The rules of `agentrt policy show` (both tables, both tiers), each a `.B rule` line of
# agentrt-policy(7); the rows are those with a number, not the header or the counts.
missing=
rules=$(for a in x86_64 aarch64; do for t in default strict; do
  "$AGENTRT" policy show --arch $a --tier $t --format table; done; done \
  | awk '$2 ~ /^[0-9]+$/ && $NF != "allow" { print $NF }' | sort -u)
[ -n "$rules" ] || missing=" (no rule printed by agentrt policy show)"
for r in $rules; do
  grep -q "^\\.B $(roff_re "$r")\$" "$man_dir/agentrt-policy.7" || missing="$missing $r"
done
[ -z "$missing" ] && ok "agentrt-policy(7) explains every rule of the policy" \
  || not_ok "agentrt-policy(7) explains every rule of the policy" "missing:$missing"

# Rendering: groff's own warnings (-ww) and man's (--warnings), at a fixed width and locale.
for page in "$man_dir"/*.[1-8]; do
  w=$(groff -ww -z -man "$page" 2>&1; LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  if [ -z "$w" ]; then
    ok "$(basename "$page") renders without warnings"
  else
    not_ok "$(basename "$page") renders without warnings" "$w"
  fi
done

echo "1..$n"
exit $failed
