#!/usr/bin/env bats
# ptrace inside the sandbox: a tracer of the workload's own (strace, gdb, LeakSanitizer) works
# within the container's pid namespace on the seccomp platform, stays under the policy, and
# reaches nothing outside; where the container shares a pid namespace, and on the ptrace
# platform, it is refused and audited.  The workload side is tests/probe/tracer.c.
load helpers

TRACER_SRC="$BATS_TEST_DIRNAME/probe/tracer.c"

# build_tracer ROOTFS: tracer.c built once per run (under a lock: bats may run tests in
# parallel), copied to ROOTFS/bin/tracer.
build_tracer() {
  local dir="${BATS_RUN_TMPDIR:-/tmp}/tracer" fd rc=0
  mkdir -p "$dir"
  exec {fd}>"$dir/lock"
  flock "$fd"
  if [ ! -x "$dir/tracer" ] || [ "$TRACER_SRC" -nt "$dir/tracer" ]; then
    gcc -static -O2 -Wall -Wextra -Werror -o "$dir/tracer.new" "$TRACER_SRC" \
      && mv -f "$dir/tracer.new" "$dir/tracer" || rc=$?
  fi
  exec {fd}>&-
  [ "$rc" -eq 0 ] || return "$rc"
  cp "$dir/tracer" "$1/bin/tracer"
}

setup() {
  [ "$(uname -m)" = x86_64 ] || skip "tracer.c reads x86_64 registers"
  setup_busybox
  : >"$ROOT/agentrt.conf"
  build_tracer "$BUNDLE/rootfs"
  update_config '.annotations["io.agentrt.uname.release"] = "6.1.0-agentrt"'
}
teardown() { teardown_root; }

# records FILTER [ID]: how many audit records of container ID (default $CID) match the jq FILTER.
records() { jq -c "select($1)" "$ROOT/state/${2:-$CID}/audit.jsonl" | wc -l; }
# tracer ARGS…: the container's process is /bin/tracer ARGS.
tracer() {
  update_config --argjson a "$(printf '%s\n' "$@" | jq -R . | jq -cs .)" '.process.args = ["/bin/tracer"] + $a'
}
# run_tracer ID [--platform P] ARGS…: run container ID (kept, for its audit log) with
# /bin/tracer ARGS.
run_tracer() {
  local id=$1 flags=()
  shift
  if [ "$1" = --platform ]; then
    flags=(--platform "$2")
    shift 2
  fi
  tracer "$@"
  agentrt --config "$ROOT/agentrt.conf" run --keep "${flags[@]}" -b "$BUNDLE" "$id"
}

# kept_leave_nothing: delete the containers run --keep kept, then nothing may be left.
kept_leave_nothing() {
  local c
  for c in $(__agentrt list -q); do __agentrt delete "$c"; done
  leaves_nothing
}

ptrace_platform() { update_config '.annotations["io.agentrt.platform"] = "ptrace"'; }
# no_pidns: the container shares agentrt's pid namespace, which agentrt.conf allows.
no_pidns() {
  update_config '.linux.namespaces |= map(select(.type != "pid"))'
  printf 'supervised_without_pidns = allow\n' >>"$ROOT/agentrt.conf"
}

@test "agentrt run [ptrace] a tracer in the container traces its children: TRACEME, ATTACH, syscall stops, PEEKUSER, process_vm_readv" {
  run_tracer "$CID" --fork trace
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  [ "$(grep -c '^ok ' <<<"$output")" -eq 5 ]
  [ "$(records '.rule == "deny-ptrace"')" -eq 0 ]
  # The policy that allows it is the one `policy show` prints.
  agentrt policy show
  grep -qE '^ptrace +[0-9]+ +allow +- +none +none +allow-ptrace$' <<<"$output"
  grep -qE '^process_vm_readv +[0-9]+ +allow ' <<<"$output"
}

# The kernel runs seccomp after a tracer's syscall-entry stop, with the registers the tracer
# left (since 4.8): getppid turned into another call is that call for the policy, refused,
# emulated or audited as if the tracee had made it.  --platform none is the control: there the
# rewritten calls run in the kernel.
@test "agentrt run [ptrace] a call a tracer rewrites at syscall entry still meets the policy: unshare(CLONE_NEWUSER) refused, uname emulated, mount refused, audited" {
  scenario_rewrite entry
}

# The same at the seccomp stop of the bundle's own SCMP_ACT_TRACE rule: the kernel runs the
# filters again on the call the tracer made of it.
@test "agentrt run [ptrace] a call a tracer rewrites at a seccomp stop (linux.seccomp SCMP_ACT_TRACE) is filtered again" {
  update_config '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
    syscalls: [{names: ["getppid"], action: "SCMP_ACT_TRACE"}]}'
  scenario_rewrite seccomp
}

scenario_rewrite() {
  local at=$1
  run_tracer "$CID-u" --fork rewrite "$at" unshare
  [ "$status" -eq 0 ]
  grep -qx 'child: unshare = -1 EPERM' <<<"$output"
  [ "$(records '.syscall == "unshare" and .verdict == "deny" and .severity == "alert"
                and .comm == "tracer"' "$CID-u")" -eq 1 ]
  run_tracer "$CID-n" --fork rewrite "$at" uname
  [ "$status" -eq 0 ]
  grep -qx 'child: uname = 0 0 release 6.1.0-agentrt' <<<"$output"
  run_tracer "$CID-m" --fork rewrite "$at" mount
  [ "$status" -eq 0 ]
  grep -qx 'child: mount = -1 EPERM' <<<"$output"
  [ "$(records '.syscall == "mount" and .verdict == "deny" and .comm == "tracer"
                and .args.target == "/nonexistent/agentrt-tracer"' "$CID-m")" -eq 1 ]
  # The control: without the policy the kernel runs what the tracer made of getppid.
  run_tracer "$CID-nu" --platform none --fork rewrite "$at" unshare
  [ "$status" -eq 0 ]
  grep -qx 'child: unshare = 0 0' <<<"$output"
  run_tracer "$CID-nn" --platform none --fork rewrite "$at" uname
  [ "$status" -eq 0 ]
  grep -qx "child: uname = 0 0 release $(uname -r)" <<<"$output"
  kept_leave_nothing
}

# A tracer sees the container's pid namespace only: agentrt's supervisor and the host are not
# in it.  The container's pid 1 is traced already, by the supervisor's kill switch
# (PTRACE_O_EXITKILL), so nothing in the container can attach to it: EPERM.
@test "agentrt exec [ptrace] a tracer reaches nothing outside the container: the supervisor's pids are not there, the init is the kill switch's" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local wd wk init
  wd=$(jq -r .supervisorPid "$ROOT/state/$CID/state.json")
  wk=$(jq -r .supervisorWorkerPid "$ROOT/state/$CID/state.json")
  init=$(__agentrt state "$CID" | jq -r .pid)
  [ "$wd" -gt 1 ] && [ "$wk" -gt 1 ] && [ "$init" -gt 1 ]
  agentrt exec "$CID" /bin/tracer attach 1 "$wd" "$wk" "$init" $$
  [ "$status" -eq 0 ]
  grep -qx '1 EPERM' <<<"$output"
  local p
  for p in "$wd" "$wk" "$init" $$; do
    grep -qx "$p ESRCH" <<<"$output"
  done
  # Every pid it can see is the container's: its init and what exec started.
  agentrt exec "$CID" /bin/sh -c 'ls /proc | grep -c "^[0-9]"'
  [ "$status" -eq 0 ]
  [ "$output" -le 5 ]
  # An exec'd tracer gets the init's policy: the same compiled file, ptrace allowed.
  agentrt exec "$CID" /bin/tracer --fork trace
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  [ "$(find "$ROOT/state" -maxdepth 1 -name 'policy@*.bpf' | wc -l)" -eq 1 ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "agentrt run [ptrace] a traced caller's supervised calls stay right: uname emulated, mount refused, execve audited" {
  run_tracer "$CID" --fork supervised
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  grep -qx 'child: uname = 0 release 6.1.0-agentrt' <<<"$output"
  grep -qx 'child: mount = -1 EPERM' <<<"$output"
  [ "$(records '.syscall == "mount" and .verdict == "deny" and .comm == "tracer"')" -eq 1 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/true"')" -eq 1 ]
}

# LeakSanitizer's StopTheWorld: a tracer made with clone(CLONE_VM | CLONE_FS | CLONE_FILES |
# CLONE_UNTRACED) attaches to the process that made it.  Every -fsanitize=address program does
# this at exit.
@test "agentrt run [ptrace] clone(CLONE_UNTRACED) and LeakSanitizer's stop-the-world work; as the container's init, the attach is refused (the kill switch traces it)" {
  run_tracer "$CID" --fork untraced
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  grep -qx 'ok stop-the-world' <<<"$output"
  [ "$(records '.rule == "deny-clone-ns"')" -eq 0 ]
  # Run as pid 1 itself: the clone is allowed, but pid 1 has a tracer already.
  run_tracer "$CID-1" untraced
  [ "$status" -eq 1 ]
  grep -qx 'ok clone(CLONE_UNTRACED)' <<<"$output"
  grep -qx 'attach EPERM' <<<"$output"
}

@test "agentrt run [ptrace] personality(ADDR_NO_RANDOMIZE) works (gdb, setarch -R); MMAP_PAGE_ZERO and PER_LINUX32 are refused" {
  run_tracer "$CID" --fork personality
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  grep -qx 'ok no-randomize' <<<"$output"
  [ "$(records '.syscall == "personality" and .verdict == "deny"')" -ge 1 ]
}

# On the ptrace platform the supervisor is every process's tracer: a second one is refused by
# the policy (EPERM and an alert, as the kernel would refuse it anyway), and so is
# CLONE_UNTRACED, whose child the supervisor would not follow.  personality is as elsewhere.
@test "agentrt run [ptrace] on the ptrace platform ptrace and clone(CLONE_UNTRACED) get EPERM and an alert; personality works" {
  ptrace_platform
  run_tracer "$CID" --fork trace
  [ "$status" -ne 0 ]
  grep -qx 'FAIL traceme: EPERM' <<<"$output"
  [ "$(records '.syscall == "ptrace" and .verdict == "deny" and .severity == "alert"
                and .rule == "deny-ptrace"')" -ge 1 ]
  run_tracer "$CID-u" --fork untraced
  [ "$status" -eq 1 ]
  grep -q '^FAIL clone(CLONE_UNTRACED): EPERM' <<<"$output"
  [ "$(records '.syscall == "clone" and .rule == "deny-clone-ns"' "$CID-u")" -eq 1 ]
  run_tracer "$CID-p" --fork personality
  [ "$status" -eq 0 ]
  # An exec'd process gets the platform's policy too: create's flag, not an annotation.
  update_config 'del(.annotations["io.agentrt.platform"]) | .process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d --platform ptrace -b "$BUNDLE" "$CID-x"
  [ "$status" -eq 0 ]
  agentrt exec "$CID-x" /bin/tracer --fork trace
  [ "$status" -ne 0 ]
  grep -qx 'FAIL traceme: EPERM' <<<"$output"
  agentrt delete --force "$CID-x"
  kept_leave_nothing
}

# Sharing agentrt's pid namespace, a tracer would reach processes that are not the container's
# (the supervisor's, the host's of the same uid): ptrace and process_vm_readv/writev are
# refused, unless the operator allows them (io.agentrt.policy.ptrace=allow, operator-only).
@test "agentrt run [ptrace] without a pid namespace of its own, ptrace is refused and audited; the operator's io.agentrt.policy.ptrace=allow lets it through" {
  no_pidns
  run_tracer "$CID" --fork trace
  [ "$status" -ne 0 ]
  grep -qx 'FAIL traceme: EPERM' <<<"$output"
  [ "$(records '.syscall == "ptrace" and .rule == "deny-ptrace"')" -ge 1 ]
  update_config '.annotations["io.agentrt.policy.ptrace"] = "allow"'
  printf 'pod_annotations = io.agentrt.policy.ptrace\n' >>"$ROOT/agentrt.conf"
  run_tracer "$CID-a" --fork trace
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  kept_leave_nothing
}

# deny is a tightening: config.json may ask for it, and gets it in its own pid namespace too.
@test "agentrt run [ptrace] io.agentrt.policy.ptrace=deny (a pod's) refuses ptrace and process_vm_readv in a container's own pid namespace" {
  update_config '.annotations["io.agentrt.policy.ptrace"] = "deny"'
  run_tracer "$CID" --fork trace
  [ "$status" -ne 0 ]
  grep -qx 'FAIL traceme: EPERM' <<<"$output"
  grep -q '^FAIL process_vm_readv: EPERM' <<<"$output"
  [ "$(records '.syscall == "process_vm_readv" and .rule == "deny-ptrace"')" -eq 1 ]
}

# With CAP_SYS_PTRACE in the host's user namespace (no user namespace of its own) the kernel
# lets the container attach to any process in its pid namespace, non-dumpable or not: agentrt's
# own among them, such as the process `exec` starts, which joins with every capability and
# installs its filters last.  So ptrace is not allowed by default there; the operator may.
@test "agentrt run [ptrace] a container holding CAP_SYS_PTRACE without a user namespace gets ptrace refused unless the operator allows it" {
  update_config '.process.capabilities |= (reduce ("bounding", "effective", "permitted") as $s
    (.; .[$s] += ["CAP_SYS_PTRACE"]))'
  run_tracer "$CID" --fork trace
  [ "$status" -ne 0 ]
  grep -qx 'FAIL traceme: EPERM' <<<"$output"
  [ "$(records '.syscall == "ptrace" and .rule == "deny-ptrace"')" -ge 1 ]
  # No capabilities section: every capability is kept, this one too.
  update_config 'del(.process.capabilities)'
  run_tracer "$CID-all" --fork trace
  [ "$status" -ne 0 ]
  grep -qx 'FAIL traceme: EPERM' <<<"$output"
  update_config '.annotations["io.agentrt.policy.ptrace"] = "allow"'
  printf 'pod_annotations = io.agentrt.policy.ptrace\n' >>"$ROOT/agentrt.conf"
  run_tracer "$CID-a" --fork trace
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL' <<<"$output"
  kept_leave_nothing
}

# The ptrace wall (src/lib/init/landlock.h): where the container holds CAP_SYS_PTRACE without a
# user namespace its processes are in a Landlock domain, and the process `exec` starts is
# outside it until it enters a sibling of its own: the kernel refuses ptrace and /proc/PID/mem
# between them, whatever the capabilities.  The operator allows ptrace here (the annotation),
# so that the policy lets the calls reach the kernel and Landlock is what refuses them.
requires_landlock() {
  local abi
  abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
  [ "$abi" -ge 1 ] || skip "no Landlock in this kernel (such a container is refused: tests/unit/test_landlock.c)"
}
host_ptrace_cap_allowed() {
  update_config '.process.capabilities |= (reduce ("bounding", "effective", "permitted") as $s
    (.; .[$s] += ["CAP_SYS_PTRACE"]))
    | .annotations["io.agentrt.policy.ptrace"] = "allow"'
  printf 'pod_annotations = io.agentrt.policy.ptrace\n' >>"$ROOT/agentrt.conf"
}
stopped() { [ "$(__agentrt state "$1" | jq -r .status)" = stopped ]; }
# ns_pid HOSTPID: the pid of HOSTPID in its own (innermost) pid namespace.
ns_pid() { awk '/^NSpid:/ { print $NF }' "/proc/$1/status"; }

@test "agentrt exec [ptrace] a container holding CAP_SYS_PTRACE without a user namespace cannot attach to or open the memory of an exec'd process, and still traces its own children" {
  requires_landlock
  host_ptrace_cap_allowed
  update_config '.process.args = ["/bin/sh", "-c",
    "while [ ! -s /go ]; do sleep 0.1; done; tracer reach $(cat /go); tracer --fork trace; echo end"]'
  agentrt_detached --config "$ROOT/agentrt.conf" run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt_detached --config "$ROOT/agentrt.conf" exec -d --pid-file "$ROOT/exec.pid" "$CID" \
    /bin/sleep 1011
  [ "$status" -eq 0 ]
  local target
  target=$(ns_pid "$(cat "$ROOT/exec.pid")")
  echo "$target" >"$BUNDLE/rootfs/go.new"
  mv "$BUNDLE/rootfs/go.new" "$BUNDLE/rootfs/go"
  wait_for "the container's end" stopped "$CID"
  output=$(cat "$ROOT/stdio.log")
  echo "$output" >&2
  grep -qx "attach $target EPERM" <<<"$output"
  grep -qx "mem $target EACCES" <<<"$output"
  # Within its own domain: TRACEME, ATTACH of its children, their memory.
  ! grep -q '^FAIL' <<<"$output"
  [ "$(grep -c '^ok ' <<<"$output")" -eq 5 ]
  grep -qx end <<<"$output"
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# --cap gives an exec'd process what config.json did not: it gets the wall too, and reaches no
# other exec'd process (the next one's way in is what it would attack).
@test "agentrt exec [ptrace] an exec'd process given CAP_SYS_PTRACE with --cap cannot attach to or open the memory of another exec'd process" {
  requires_landlock
  update_config '.process.args = ["/bin/sleep", "1012"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" /bin/sleep 1013
  [ "$status" -eq 0 ]
  local target
  target=$(ns_pid "$(cat "$ROOT/exec.pid")")
  agentrt exec --cap CAP_SYS_PTRACE "$CID" /bin/tracer reach "$target"
  [ "$status" -eq 0 ]
  grep -qx "attach $target EPERM" <<<"$output"
  grep -qx "mem $target EACCES" <<<"$output"
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# Without Landlock (faked: tracer nolandlock fails the calls with ENOSYS) there is no wall, and
# such a container is refused, at create and at exec, rather than run unprotected.
@test "agentrt run and exec [ptrace] refuse a container holding CAP_SYS_PTRACE without a user namespace where the kernel has no Landlock; --platform none runs it" {
  local nolandlock="${BATS_RUN_TMPDIR:-/tmp}/tracer/tracer" msg
  msg="linux.capabilities: CAP_SYS_PTRACE without a user namespace lets the container attach to agentrt's own processes during exec, and this kernel has no Landlock to stop it: add a user namespace or drop CAP_SYS_PTRACE"
  # The control: a container without the capability needs no wall.
  run "$nolandlock" nolandlock "$AGENTRT" --root "$ROOT/state" run -b "$BUNDLE" "$CID-plain"
  [ "$status" -eq 0 ]
  update_config '.process.capabilities |= (reduce ("bounding", "effective", "permitted") as $s
    (.; .[$s] += ["CAP_SYS_PTRACE"]))'
  run "$nolandlock" nolandlock "$AGENTRT" --root "$ROOT/state" run -b "$BUNDLE" "$CID"
  echo "$output" >&2
  [ "$status" -ne 0 ]
  [ "$output" = "agentrt: $msg" ]
  leaves_nothing
  [ -z "$(cgroups_left)" ]
  run "$nolandlock" nolandlock "$AGENTRT" --root "$ROOT/state" run --platform none -b "$BUNDLE" "$CID-none"
  [ "$status" -eq 0 ]
  # exec: the container made where Landlock is, the exec'd process where it is not.
  update_config '.process.args = ["/bin/sleep", "1014"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-x"
  [ "$status" -eq 0 ]
  run "$nolandlock" nolandlock "$AGENTRT" --root "$ROOT/state" exec "$CID-x" /bin/true
  echo "$output" >&2
  [ "$status" -ne 0 ]
  [ "$output" = "agentrt: $msg" ]
  agentrt delete --force "$CID-x"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# The race the wall closes: from the init's tree, a scanner seizes and opens the memory of every
# new pid while `agentrt exec` runs 40 times; without the wall it catches some of them before
# their filters and capability drop (Seccomp 0, the runtime's capabilities).
@test "agentrt exec [ptrace] a container holding CAP_SYS_PTRACE without a user namespace catches none of 40 exec'd processes on their way in" {
  requires_landlock
  host_ptrace_cap_allowed
  update_config '.process.args = ["/bin/tracer", "scan", "/stop"]'
  agentrt_detached --config "$ROOT/agentrt.conf" run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait_for "the scanner" grep -q scanning "$ROOT/stdio.log"
  local i
  for ((i = 0; i < 40; i++)); do
    agentrt --config "$ROOT/agentrt.conf" exec "$CID" /bin/true
    [ "$status" -eq 0 ]
  done
  touch "$BUNDLE/rootfs/stop"
  wait_for "the container's end" stopped "$CID"
  output=$(cat "$ROOT/stdio.log")
  echo "$output" >&2
  local line new
  line=$(grep '^scan: ' <<<"$output")
  new=$(awk '{ print $2 }' <<<"$line")
  # It saw them (each exec'd process lives long enough in the pid namespace to be listed) …
  [ "$new" -ge 30 ]
  # … and reached none.
  [[ "$line" == *" new, 0 seized, 0 mem, 0 unprotected" ]]
  ! grep -q '^caught ' <<<"$output"
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# The real tools, in the Debian rootfs of the compatibility corpus (built by tests/compat.bats's
# helpers; skipped where it has not been built): strace follows a shell, gdb runs a program
# with address randomization off and prints a backtrace, a program built with
# -fsanitize=address exits 0 and a leaking one is caught by LeakSanitizer (ASan's exit code, 1).
@test "agentrt run [ptrace] strace, gdb and -fsanitize=address programs work in the Debian corpus rootfs; as the init, LeakSanitizer fails" {
  local rootfs="${AGENTRT_TEST_CACHE:-/var/cache/agentrt-tests}/debian-bookworm-corpus-r1"
  [ -x "$rootfs/usr/bin/gdb" ] && [ -x "$rootfs/usr/bin/strace" ] \
    || skip "no corpus rootfs at $rootfs (tests/compat.bats builds it)"
  cat >"$BUNDLE/script.sh" <<'SCRIPT'
cd /tmp
printf 'int main (void) { return 0; }\n' >ok.c
printf '#include <stdlib.h>\nvoid *p;\nint main (void) { p = malloc (7); p = 0; return 0; }\n' >leak.c
gcc -g -fsanitize=address -o ok ok.c && ./ok && echo "asan ok"
gcc -g -fsanitize=address -o leak leak.c
./leak 2>leak.err; echo "leak exit $?"
grep -q 'detected memory leaks' leak.err && echo "leak found"
strace -f -o st.out sh -c '/bin/true; echo traced' && grep -q 'execve("/bin/true"' st.out && echo "strace ok"
gdb -q -batch -ex 'break main' -ex run -ex bt ./ok 2>&1 | tee gdb.out | grep -q 'main () at ok.c' && echo "gdb ok"
grep -q 'Error disabling address space randomization' gdb.out || echo "gdb aslr off"
echo done
SCRIPT
  update_config --arg r "$rootfs" --arg s "$(cat "$BUNDLE/script.sh")" '.root = {path: $r, readonly: true}
    | .mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "size=256m"]}]
    | .process.env += ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp"]
    | .process.args = ["/bin/sh", "-c", $s]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local want
  for want in "asan ok" "leak exit 1" "leak found" "traced" "strace ok" "gdb ok" "gdb aslr off" done; do
    grep -qx "$want" <<<"$output"
  done
  [ "$(records '.verdict == "deny"')" -eq 0 ]
  # As the container's init it is the kill switch's tracee, and a process has one tracer:
  # LeakSanitizer cannot stop it, and says so.
  update_config '.process.args = ["/bin/sh", "-c",
    "cd /tmp && printf \"int main (void) { return 0; }\\n\" >ok.c && gcc -fsanitize=address -o ok ok.c && exec ./ok"]'
  agentrt run -b "$BUNDLE" "$CID-init"
  [ "$status" -eq 1 ]
  [[ "$output" == *"LeakSanitizer has encountered a fatal error"* ]]
  kept_leave_nothing
}
