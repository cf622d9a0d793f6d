#!/usr/bin/env bats
# The compatibility corpus (tests/corpus/tasks.sh: ~40 things an agent does, each printing OK or
# FAIL) in a Debian 12 rootfs with the toolchains (debian_corpus_rootfs), one container per
# runtime configuration.  runc is the control: every task passes there.  Under agentrt, every
# difference from runc is either a test failure or a line of tests/corpus/expected-denials, which
# names the configuration, the task and the errno (a regex the task's FAIL line must match); a
# line whose task passes now fails the test too, so the list cannot keep a denial that is gone.
load helpers
source "$BATS_TEST_DIRNAME/lib/corpus.sh"

setup() { setup_root; }
teardown() {
  local c
  for c in $(runc --root "$ROOT/runc" list -q 2>/dev/null); do
    runc --root "$ROOT/runc" delete --force "$c" || true
  done
  teardown_root
}

# The configurations: one line each, `corpus_run NAME [--run-flag|ANNOTATION=VALUE]...`; NAME
# is what expected-denials' first column lists.  CORPUS_TASKS=REGEX runs a subset of the tasks.
@test "compat: runc (the control) passes every task of the corpus" { corpus_run runc; }
@test "compat: agentrt, default policy: the corpus passes but for its expected denials" { corpus_run default; }
@test "compat: agentrt --agent: the corpus passes but for its expected denials" { corpus_run agent --agent; }
@test "compat: agentrt, ptrace platform: the corpus passes but for its expected denials" { corpus_run ptrace io.agentrt.platform=ptrace; }
# The strict tier's line, once it merges (and "strict" in expected-denials' lists):
@test "compat: agentrt, strict tier: the corpus passes but for its expected denials" { corpus_run strict io.agentrt.policy=strict; }

# corpus_run NAME [ARG...]: runs the corpus under configuration NAME (runc when NAME is runc,
# else agentrt with the run flags (--…) and annotations (KEY=VALUE) ARGs) and checks its
# outcome against runc's (every task OK) and expected-denials.  Prints how long the corpus took.
corpus_run() {
  local name=$1 a start flags=()
  shift
  corpus_bundle "$BUNDLE" "$ROOT/corpus"
  for a in "$@"; do
    case $a in
      --*) flags+=("$a") ;;
      *=*) update_config --arg k "${a%%=*}" --arg v "${a#*=}" '.annotations[$k] = $v' ;;
      *) echo "corpus_run: $a is neither a --flag nor an annotation" >&2; return 1 ;;
    esac
  done
  start=$SECONDS
  if [ "$name" = runc ]; then
    run runc --root "$ROOT/runc" run --bundle "$BUNDLE" "$CID"
  else
    run __agentrt run "${flags[@]}" --bundle "$BUNDLE" "$CID"
  fi
  echo "corpus under $name: status $status, $((SECONDS - start)) s" >&2
  corpus_check "$name"
}

# corpus_check NAME: $output (tasks.sh's) has one line per task, and its FAILs are exactly
# NAME's expected denials, each with its reason.
corpus_check() {
  local name=$1 task line want bad=0
  local -A result reason expected
  while read -r line; do
    case $line in
      "OK "*) result[${line#OK }]=ok ;;
      "FAIL "*)
        task=${line#FAIL }
        task=${task%%:*}
        result[$task]=fail reason[$task]=${line#FAIL "$task": }
        ;;
    esac
  done <<<"$output"
  local configs regex
  while read -r configs task regex; do
    [[ ,$configs, == *,"$name",* ]] && expected[$task]=$regex
  done < <(grep -v '^[[:space:]]*\(#\|$\)' "$CORPUS_DIR/expected-denials")
  for task in $(bash "$CORPUS_DIR/tasks.sh" --list); do
    [[ $task =~ ${CORPUS_TASKS:-.} ]] || continue
    want=${expected[$task]-}
    case ${result[$task]:-missing} in
      missing)
        echo "$task: no OK or FAIL line (the corpus died?)" >&2
        bad=1
        ;;
      ok)
        if [ -n "$want" ]; then
          echo "$task: passes under $name now: remove its line from expected-denials" >&2
          bad=1
        fi
        ;;
      fail)
        if [ -z "$want" ]; then
          if [ "$name" = runc ]; then
            echo "$task: fails under runc, the control (the task or the rootfs is wrong): ${reason[$task]}" >&2
          else
            echo "$task: fails under $name and not under runc: ${reason[$task]}" >&2
          fi
          bad=1
        elif ! [[ ${reason[$task]} =~ $want ]]; then
          echo "$task: fails under $name for another reason than the expected /$want/: ${reason[$task]}" >&2
          bad=1
        fi
        ;;
    esac
  done
  # tasks.sh's own status agrees: 0 exactly when every task passed.
  if [ ${#reason[@]} -eq 0 ]; then [ "$status" -eq 0 ]; else [ "$status" -eq 1 ]; fi
  [ "$bad" -eq 0 ]
}
