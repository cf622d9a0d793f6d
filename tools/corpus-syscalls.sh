#!/bin/bash
# tools/corpus-syscalls.sh [OUT [ARGS-OUT]]: measures the syscalls the compatibility corpus
# (tests/corpus/tasks.sh) makes under runc, and writes their names, sorted, one a line, to OUT
# (default tests/corpus/syscalls-x86_64.txt) under a header that says how it was made; and the
# arguments it gives the multiplexers the strict tier narrows (ioctl requests, socket
# families, prctl options, fcntl commands, ...) with their counts to ARGS-OUT (default
# tests/corpus/syscall-args-x86_64.txt).  The strict policy tier's allowlist is derived from
# them.  Run as root on x86_64 with runc, perf and jq, from a built tree (AGENTRT, default
# ./agentrt, writes the bundle's config).
#
# Counted by perf stat on the tracepoints syscalls:sys_enter_*, attached to the container's init
# once it is the corpus' shell and inherited by everything it starts.  Not strace: a process has
# one tracer, so under strace -f the corpus' own tracers (strace, gdb, LeakSanitizer) fail and
# what they call goes unmeasured; the tracepoints see every call of every process, traced or
# not, CLONE_UNTRACED included, and change nothing in what the corpus does.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
AGENTRT=${AGENTRT:-$top/agentrt}
out=${1:-$top/tests/corpus/syscalls-x86_64.txt}
args_out=${2:-$top/tests/corpus/syscall-args-x86_64.txt}
# The calls whose arguments are recorded: the multiplexers, and the calls a tracer or a
# sanitizer makes in ways the policy tells apart.
arg_calls="ioctl socket prctl fcntl madvise mremap clone ptrace personality setsockopt getsockopt"
unistd=/usr/include/x86_64-linux-gnu/asm/unistd_64.h

die() {
  echo "corpus-syscalls: $*" >&2
  exit 1
}
[ "$(uname -m)" = x86_64 ] || die "x86_64 only (the tracepoints count this architecture's calls)"
[ "$(id -u)" -eq 0 ] || die "run as root"
for c in runc perf jq; do command -v "$c" >/dev/null || die "$c not found"; done
[ -x "$AGENTRT" ] || die "$AGENTRT not found: build first, or set AGENTRT"
[ -r "$unistd" ] || die "$unistd not found (linux-libc-dev): it names the syscalls"
[ -d /sys/kernel/tracing/events/syscalls ] || die "no syscall tracepoints in /sys/kernel/tracing"

source "$top/tests/lib/debian.sh"
source "$top/tests/lib/corpus.sh"

tmp=$(mktemp -d /tmp/corpus-syscalls.XXXXXX)
chmod 0711 "$tmp"
cid=corpus-syscalls-$$
perf_pid='' rec_pid=''
cleanup() {
  [ -z "$perf_pid" ] || kill "$perf_pid" 2>/dev/null || true
  [ -z "$rec_pid" ] || kill "$rec_pid" 2>/dev/null || true
  runc --root "$tmp/runc" delete --force "$cid" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The init waits for /corpus/go before it becomes the corpus: perf attaches to a shell that
# runc's own init (a Go program) has already turned into, so none of runc's calls are counted.
corpus_bundle "$tmp/bundle" "$tmp/corpus" /bin/bash -c \
  'while [ ! -e /corpus/go ]; do sleep 0.05; done; exec bash /corpus/tasks.sh'
runc --root "$tmp/runc" run -d --bundle "$tmp/bundle" "$cid" </dev/null >"$tmp/out" 2>&1 ||
  die "runc run: $(tail -n 1 "$tmp/out")"
pid=$(runc --root "$tmp/runc" state "$cid" | jq -r .pid)

perf stat -x, -e 'syscalls:sys_enter_*' -p "$pid" -o "$tmp/counts" &
perf_pid=$!
events=()
for c in $arg_calls; do events+=(-e "syscalls:sys_enter_$c"); done
perf record -q -m 1024 "${events[@]}" -p "$pid" -o "$tmp/args.data" 2>"$tmp/record.err" &
rec_pid=$!
# perf holds one fd per tracepoint once it counts (stat), and one per event and CPU besides
# its ring buffers (record).
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
for _ in $(seq 100); do
  [ "$(fds $perf_pid)" -gt 300 ] && [ "$(fds $rec_pid)" -gt 10 ] && break
  sleep 0.1
done
[ "$(fds $perf_pid)" -gt 300 ] || die "perf stat did not start"
[ "$(fds $rec_pid)" -gt 10 ] || die "perf record did not start: $(cat "$tmp/record.err")"
sleep 0.5
start=$SECONDS
touch "$tmp/corpus/go"
while [ "$(runc --root "$tmp/runc" state "$cid" 2>/dev/null | jq -r .status)" = running ]; do
  [ $((SECONDS - start)) -lt 600 ] || die "the corpus still runs after 600 s"
  sleep 0.2
done
kill -INT "$perf_pid" "$rec_pid"
wait "$perf_pid" || true
wait "$rec_pid" || true
perf_pid='' rec_pid=''
! grep -qi 'lost' "$tmp/record.err" || die "perf record lost events: $(cat "$tmp/record.err")"

cat "$tmp/out" >&2
grep -q '^OK ' "$tmp/out" || die "the corpus printed no task"
! grep -q '^FAIL ' "$tmp/out" || die "a task failed under runc: its calls would be missing"

# The tracepoints are named after the kernel's SYSCALL_DEFINE names; where those differ from
# the syscall table's, the table's name.
awk -F, '$1 ~ /^[0-9]+$/ && $1 > 0 { sub(/^syscalls:sys_enter_/, "", $3); print $3 }' "$tmp/counts" |
  sed -e 's/^newstat$/stat/' -e 's/^newlstat$/lstat/' -e 's/^newfstat$/fstat/' \
    -e 's/^newuname$/uname/' -e 's/^sendfile64$/sendfile/' -e 's/^umount$/umount2/' |
  LC_ALL=C sort -u >"$tmp/names"
n=$(wc -l <"$tmp/names")
[ "$n" -gt 50 ] || die "only $n syscalls counted: perf did not follow the corpus"
# A name the (possibly older) header does not know is kept, but said.
while read -r name; do
  grep -q "^#define __NR_$name " "$unistd" || echo "corpus-syscalls: $name is not in $unistd" >&2
done <"$tmp/names"

{
  echo "# The syscalls the compatibility corpus (tests/corpus/tasks.sh, $(bash "$CORPUS_DIR/tasks.sh" --list | wc -l) tasks) makes under runc"
  echo "# on x86_64: $n names.  Produced by tools/corpus-syscalls.sh (perf stat on the tracepoints"
  echo "# syscalls:sys_enter_* of every process of the container), kernel $(uname -r)."
  echo "# The strict policy tier's allowlist is derived from it: regenerate when the corpus changes."
  cat "$tmp/names"
} >"$out"
echo "corpus-syscalls: $n syscalls in $((SECONDS - start)) s, written to $out" >&2

# One line per call and distinct argument, with its count: the value as the policy sees it
# (socket's type without SOCK_NONBLOCK and SOCK_CLOEXEC, clone's flags without the exit
# signal).
perf script -i "$tmp/args.data" -F event,trace 2>/dev/null | python3 -c '
import collections, re, sys
fmt = {
    "ioctl": lambda a: "cmd=%#x" % a["cmd"],
    "socket": lambda a: "family=%d type=%d protocol=%d" % (a["family"], a["type"] & 0xf, a["protocol"]),
    "prctl": lambda a: "option=%d" % a["option"],
    "fcntl": lambda a: "cmd=%d" % a["cmd"],
    "madvise": lambda a: "behavior=%d" % a["behavior"],
    "mremap": lambda a: "flags=%#x" % a["flags"],
    "clone": lambda a: "flags=%#x" % (a["clone_flags"] & ~0xff),
    "ptrace": lambda a: "request=%#x" % a["request"],
    "personality": lambda a: "persona=%#x" % a["personality"],
    "setsockopt": lambda a: "level=%d optname=%d" % (a["level"], a["optname"]),
    "getsockopt": lambda a: "level=%d optname=%d" % (a["level"], a["optname"]),
}
n = collections.Counter()
for line in sys.stdin:
    m = re.match(r"\s*syscalls:sys_enter_(\w+):\s*(.*)", line)
    if not m or m.group(1) not in fmt:
        continue
    args = {k: int(v, 16) for k, v in re.findall(r"(\w+): (0x[0-9a-f]+)", m.group(2))}
    n[m.group(1) + " " + fmt[m.group(1)](args)] += 1
for k in sorted(n):
    print(k, n[k])
' >"$tmp/args"
[ -s "$tmp/args" ] || die "no arguments recorded"
{
  echo "# The arguments the compatibility corpus gives the calls the strict tier narrows, under runc on"
  echo "# x86_64: CALL ARGUMENT=VALUE... COUNT, one line per distinct value (socket's type without"
  echo "# SOCK_NONBLOCK|SOCK_CLOEXEC, clone's flags without the exit signal; ptrace and prctl by"
  echo "# number).  Produced by tools/corpus-syscalls.sh (perf record on syscalls:sys_enter_CALL),"
  echo "# kernel $(uname -r), with ${out#"$top"/}."
  cat "$tmp/args"
} >"$args_out"
echo "corpus-syscalls: $(wc -l <"$tmp/args") distinct arguments of $arg_calls, written to $args_out" >&2
