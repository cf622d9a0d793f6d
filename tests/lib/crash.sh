#!/usr/bin/env bash
# Fault injection for tests/crash.bats: agentrt create, start, exec and delete are killed
# part-way (SIGKILL), then `delete --force` must leave nothing of the container: no state
# directory, no cgroup directory in any hierarchy, no process (the init, the supervisor's
# agentrt-watch and agentrt-sv, an exec'd process, anything in the cgroups), no mount in the
# host's mount table.  Nothing in the binary helps: the kills come from outside.
#
#   crash.sh random RUNS       RUNS kills, the four commands in turn, each after a random delay
#                              between 0 and what the command takes here (measured first; a
#                              kill that comes after the end is counted as "done first"), every
#                              other container with --ephemeral
#   crash.sh sweep CMD STRIDE [NAME]
#                              CMD (create, start, exec or delete) killed as it enters its 1st,
#                              (1+STRIDE)th, (1+2*STRIDE)th … system call (strace's fault
#                              injection); with NAME (mkdir…), as it enters each of its calls
#                              of NAME instead.  Each time on a fresh container
#   crash.sh left ID           prints what is left of container ID (nothing: all is gone)
#
# Environment: AGENTRT, ROOT (ROOT/state is the --root), BUNDLE (its workload is
# `/bin/sleep MARK`), CID (the containers' ids start with it), MARK.  Run it as a child
# subreaper (crash.bats does): the processes whose agentrt was killed are then reaped here, not
# by pid 1, which on some hosts reaps late (and a pid namespace's init does not finish dying
# before every process of its namespace is reaped).  Prints one line per thing left, a summary,
# and exits 1 if anything was left.
set -u

runs=0 leaks=0 late=0
declare -A killed done_

A() { "$AGENTRT" --root "$ROOT/state" "$@"; }

# proc_alive PID: not gone, not a zombie (a zombie is only waiting for its reaper).
proc_alive() {
  local st
  read -r st 2>/dev/null <"/proc/$1/stat" || return 1
  st=${st##*) }
  [[ -n $st && ${st%% *} != [ZX] ]]
}

# left ID: what is left of container ID, one line each.  agentrt's forks (the supervisor, the
# init and an exec'd process before they exec) have agentrt's command line, which names the
# root and the id; the workload and exec'd processes are `sleep MARK`.
left() {
  local id=$1 p cmd comm
  local -a argv
  [ -e "$ROOT/state/$id" ] && echo "state directory $ROOT/state/$id"
  find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d -name "$id" 2>/dev/null | sed 's/^/cgroup /'
  for p in /proc/[0-9]*; do
    mapfile -d '' -t argv 2>/dev/null <"$p/cmdline" || continue
    cmd=" ${argv[*]} "
    case $cmd in
      *" $ROOT/state "*" $id "* | *" $MARK "*) ;;
      *) continue ;;
    esac
    proc_alive "${p#/proc/}" || continue
    read -r comm 2>/dev/null <"$p/comm"
    echo "process ${p#/proc/} ($comm):$cmd"
  done
  grep -F -- "$ROOT" /proc/self/mountinfo | sed 's/^/mount /'
}

# check ID WHAT: after the delete --force, nothing of ID may be left.  Processes that are still
# dying are given two seconds (and counted as late); whatever is left then is a leak, reported
# and removed, so that the next run starts clean.
check() {
  local id=$1 what=$2 out i
  out=$(left "$id")
  [ -z "$out" ] && return 0
  for ((i = 0; i < 20; i++)); do
    sleep 0.1
    out=$(left "$id")
    if [ -z "$out" ]; then
      late=$((late + 1))
      echo "late: $what: processes of $id took up to $(((i + 1) * 100)) ms to go"
      return 0
    fi
  done
  leaks=$((leaks + 1))
  echo "LEAK: $what:"
  echo "$out" | sed 's/^/  /'
  echo "$out" | sed -n 's/^process \([0-9]*\) .*/\1/p' | xargs -r kill -9 2>/dev/null
  sleep 0.2
  echo "$out" | sed -n 's/^cgroup //p' | xargs -r rmdir 2>/dev/null
  rm -rf "${ROOT:?}/state/$id"
}

# argv_of CMD ID [EPH]: sets `argv` to the agentrt command line of CMD on ID.
argv_of() {
  case $1 in
    create) argv=(create ${3:+--ephemeral} -b "$BUNDLE" "$2") ;;
    start) argv=(start "$2") ;;
    exec) argv=(exec -d "$2" /bin/sleep "$MARK") ;;
    delete) argv=(delete --force "$2") ;;
  esac
}

# prepare CMD ID [EPH]: brings ID to where CMD applies: nothing for create, created for start,
# running for exec and delete.
prepare() {
  {
    case $1 in
      start) A create ${3:+--ephemeral} -b "$BUNDLE" "$2" ;;
      exec | delete) A create ${3:+--ephemeral} -b "$BUNDLE" "$2" && A start "$2" ;;
    esac
  } </dev/null >>"$ROOT/stdio.log" 2>>"$ROOT/crash.err"
}

# finish ID WHAT: delete --force must succeed, and leave nothing.
finish() {
  local id=$1 what=$2 err
  runs=$((runs + 1))
  if ! err=$(A delete --force "$id" 2>&1 </dev/null); then
    leaks=$((leaks + 1))
    echo "LEAK: $what: delete --force failed: $err"
  fi
  check "$id" "$what"
}

# usleep MICROSECONDS, without a fork: `read -t` on a FIFO nobody writes (random_runs opens it).
usleep() { read -rt "$(printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)))" -u "$never" _ || true; }

# duration CMD: microseconds CMD takes here, the least of three runs (the first create under a
# root also compiles the policy for the next ones).
duration() {
  local id t0 t1 i best=
  for ((i = 0; i < 3; i++)); do
    id="$CID-cal-$1-$i"
    prepare "$1" "$id"
    argv_of "$1" "$id"
    t0=${EPOCHREALTIME/./}
    A "${argv[@]}" </dev/null >>"$ROOT/stdio.log" 2>>"$ROOT/crash.err"
    t1=${EPOCHREALTIME/./}
    A delete --force "$id" </dev/null 2>>"$ROOT/crash.err"
    [ -n "$best" ] && [ "$best" -le $((t1 - t0)) ] || best=$((t1 - t0))
  done
  echo "$best"
}

random_runs() {
  local n=$1 i cmd id eph delay pid rc
  local -a cmds=(create start exec delete)
  declare -A max
  [ -p "$ROOT/never" ] || mkfifo "$ROOT/never"
  exec {never}<>"$ROOT/never"
  for cmd in "${cmds[@]}"; do
    max[$cmd]=$(($(duration "$cmd") + 1))
    echo "calibration: $cmd takes $((max[$cmd] / 1000)) ms: kills after 0-$((max[$cmd] / 1000)) ms"
  done
  for ((i = 0; i < n; i++)); do
    cmd=${cmds[i % 4]} id="$CID-r$i" eph=
    ((i / 4 % 2)) && eph=1
    prepare "$cmd" "$id" "$eph"
    argv_of "$cmd" "$id" "$eph"
    delay=$(((RANDOM * 32768 + RANDOM) % max[$cmd]))
    # A simple command, not the function A: its pid is agentrt's, not a subshell's.
    "$AGENTRT" --root "$ROOT/state" "${argv[@]}" </dev/null >>"$ROOT/stdio.log" \
      2>>"$ROOT/crash.err" &
    pid=$!
    usleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rc=$?
    if [ "$rc" -eq 137 ]; then
      killed[$cmd]=$((${killed[$cmd]:-0} + 1))
    else
      done_[$cmd]=$((${done_[$cmd]:-0} + 1))
    fi
    finish "$id" "$cmd${eph:+ --ephemeral} killed after $((delay / 1000)).$((delay / 100 % 10)) ms (status $rc)"
  done
}

# The system calls of `agentrt ARGV…` (not of its children), one name per line, in order.
trace_names() {
  strace -qq -o "$ROOT/trace" "$AGENTRT" --root "$ROOT/state" "$@" </dev/null \
    >>"$ROOT/stdio.log" 2>>"$ROOT/crash.err"
  sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' "$ROOT/trace"
}

sweep() {
  local cmd=$1 stride=$2 only=${3:-} id k n name when rc
  local -a names
  id="$CID-ref"
  prepare "$cmd" "$id"
  argv_of "$cmd" "$id"
  mapfile -t names < <(trace_names "${argv[@]}")
  A delete --force "$id" </dev/null 2>>"$ROOT/crash.err"
  n=${#names[@]}
  echo "sweep: $cmd makes $n system calls; killed entering every ${stride}th${only:+ $only}"
  for ((k = 1; k <= n; k++)); do
    name=${names[k - 1]}
    [ -z "$only" ] || [ "$name" = "$only" ] || continue
    [ $(((k - 1) % stride)) -eq 0 ] || [ -n "$only" ] || continue
    id="$CID-s$k"
    when=0
    for ((j = 0; j < k; j++)); do [ "${names[j]}" = "$name" ] && when=$((when + 1)); done
    prepare "$cmd" "$id"
    argv_of "$cmd" "$id"
    strace -qq -o /dev/null -e trace="$name" -e inject="$name:signal=KILL:when=$when" \
      "$AGENTRT" --root "$ROOT/state" "${argv[@]}" </dev/null >>"$ROOT/stdio.log" \
      2>>"$ROOT/crash.err" &
    wait $! 2>/dev/null
    rc=$?
    if [ "$rc" -eq 137 ]; then
      killed[$cmd]=$((${killed[$cmd]:-0} + 1))
    else
      done_[$cmd]=$((${done_[$cmd]:-0} + 1))
    fi
    finish "$id" "$cmd killed entering system call $k ($name #$when; status $rc)"
  done
}

start=${EPOCHREALTIME/./}
case ${1:-} in
  random) random_runs "${2:-40}" ;;
  sweep) sweep "$2" "${3:-1}" "${4:-}" ;;
  left)
    left "$2"
    exit 0
    ;;
  *)
    echo "usage: $0 random RUNS | sweep CMD STRIDE [NAME] | left ID" >&2
    exit 2
    ;;
esac
summary=""
for cmd in create start exec delete; do
  [ -n "${killed[$cmd]:-}${done_[$cmd]:-}" ] &&
    summary+=" $cmd: ${killed[$cmd]:-0} killed part-way, ${done_[$cmd]:-0} done first;"
done
echo "runs: $runs;$summary leaks: $leaks; late: $late; $((((${EPOCHREALTIME/./}) - start) / 1000)) ms"
[ "$leaks" -eq 0 ]
