#!/usr/bin/env bats
# The seccomp supervisor, seen from inside the container: what it denies (and audits), what it
# emulates, and that --platform none turns it off.  The workload side is tests/probe/probe.c.
# The scenarios that say what the policy does run on both platforms that enforce it: seccomp
# user notification (the default) and ptrace ("supervisor [ptrace]: …"); what is particular to
# ptrace (signals and stops of tracees, what it refuses) is at the end.
load helpers

setup() { setup_probe; }
teardown() { teardown_root; }

MiB=$((1024 * 1024))

# Checks whose syscall is not audited as a denied alert: allowed calls, clone3 (refused with
# ENOSYS in the kernel, so that libc falls back to clone, and not audited), and AF_PACKET (an
# odd family that programs probe innocently: at most a warning).
not_an_alert() { [[ $1 == allowed:* || $1 == clone3 || $1 == "socket(AF_PACKET)" ]]; }
# Obsolete calls are denied and audited as warnings: programs probe them innocently, as
# runtimes probe io_uring_setup and personality on every start.
obsolete() {
  [[ $1 == uselib || $1 == _sysctl || $1 == ustat || $1 == sysfs || $1 == io_uring_setup ||
    $1 == personality ]]
}

# add_cap CAP: CAP in every capability set of the process.
add_cap() {
  update_config --arg c "$1" '.process.capabilities |= (
    reduce ("bounding", "effective", "permitted", "inheritable", "ambient") as $s
      (.; .[$s] = ((.[$s] // []) + [$c] | unique)))'
}

# limits_512m_1cpu: memory 512 MiB, CPU quota of one CPU.
limits_512m_1cpu() {
  update_config --argjson m $((512 * MiB)) \
    '.linux.resources.memory.limit = $m | .linux.resources.cpu = {quota: 100000, period: 100000}'
}

# ptrace_platform: the container runs on the ptrace platform (annotation io.agentrt.platform).
ptrace_platform() { update_config '.annotations["io.agentrt.platform"] = "ptrace"'; }

# pod_may KEY…: $ROOT/agentrt.conf lets config.json use these operator-only annotation keys
# (README: who may configure what); pass it with --config "$ROOT/agentrt.conf".
pod_may() {
  local IFS=,
  printf 'pod_annotations = %s\n' "$*" >"$ROOT/agentrt.conf"
}

@test "supervisor: every call of the deny list gets EPERM and an alert in the audit log" {
  scenario_deny_list
}

@test "supervisor [ptrace]: every call of the deny list gets EPERM and an alert in the audit log" {
  ptrace_platform
  scenario_deny_list
}

scenario_deny_list() {
  update_config '.process.args = ["/bin/probe", "deny"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  ! grep -q '^FAIL ' <<<"$output"
  # One line per check: none was lost to a crash.
  local listed
  listed=$("$PROBE" deny --list | wc -l)
  [ "$(grep -cE '^(ok|skip) ' <<<"$output")" -eq "$listed" ]

  local audit="$ROOT/state/$CID/audit.jsonl"
  [ -s "$audit" ]
  jq -e . "$audit" >/dev/null # every line is JSON
  jq -r 'select(.verdict == "deny" and .severity == "alert") | .syscall' "$audit" | sort -u >"$ROOT/alerts"
  jq -r 'select(.verdict == "deny" and .severity == "warn") | .syscall' "$audit" | sort -u >"$ROOT/warnings"
  local name sys missing=""
  while read -r name; do
    not_an_alert "$name" && continue
    # "unshare(CLONE_NEWNS)" is a call of unshare.
    sys=${name%%(*}
    if obsolete "$sys"; then
      grep -qxF "$sys" "$ROOT/warnings" || missing+=" $name"
    else
      grep -qxF "$sys" "$ROOT/alerts" || missing+=" $name"
    fi
  done < <(sed -n 's/^ok //p' <<<"$output")
  echo "not audited as a denied alert:$missing" >&2
  [ -z "$missing" ]
}

@test "supervisor: the probes runtimes make on start are quiet: io_uring_setup ENOSYS and personality warnings, a clock read runs, all aggregated" {
  update_config '.process.args = ["/bin/sh", "-c",
    "for i in 1 2 3; do /bin/probe deny io_uring_setup \"personality(PER_LINUX32)\" \"allowed:adjtimex(ADJ_OFFSET_SS_READ)\" \"adjtimex(ADJ_TICK)\" || exit 1; done"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local audit="$ROOT/state/$CID/audit.jsonl"
  # Each probe is refused (or run) as a kernel would and recorded quietly: the first call, then
  # one record counting the repeats; only the change of the clock is an alert.
  run jq -sc '[.[] | select(.syscall == "io_uring_setup")] | [length, .[0].verdict, .[0].severity, .[0].rule, ([.[] | .count // 1] | add)]' "$audit"
  [ "$output" = '[2,"deny","warn","probe-io-uring",3]' ]
  run jq -sc '[.[] | select(.syscall == "personality")] | [length, .[0].severity, .[0].rule, ([.[] | .count // 1] | add)]' "$audit"
  [ "$output" = '[2,"warn","probe-personality",3]' ]
  run jq -sc '[.[] | select(.syscall == "adjtimex" and .verdict == "allow")] | [length, .[0].severity, .[0].rule, ([.[] | .count // 1] | add)]' "$audit"
  [ "$output" = '[2,"info","allow-clock-read",3]' ]
  run jq -sc '[.[] | select(.severity == "alert") | [.syscall, .rule]] | unique' "$audit"
  [ "$output" = '[["adjtimex","deny-clock"]]' ]
}

@test "supervisor: uname, sysinfo, the CPU count and /proc, /sys files reflect 512 MiB and 1 CPU" {
  scenario_emulate
}

@test "supervisor [ptrace]: uname, sysinfo, the CPU count and /proc, /sys files reflect 512 MiB and 1 CPU" {
  ptrace_platform
  scenario_emulate
}

scenario_emulate() {
  limits_512m_1cpu
  update_config --argjson m $((512 * MiB)) '
    .hostname = "probe-host" |
    .annotations["io.agentrt.uname.release"] = "6.1.0-agentrt" |
    .process.args = ["/bin/probe", "emulate", "--mem", ($m | tostring), "--cpus", "1",
                     "--release", "6.1.0-agentrt", "--hostname", "probe-host"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  ! grep -qE '^(FAIL|skip) ' <<<"$output"
  # uname, sysinfo, sched_getaffinity, sysconf, meminfo, cpuinfo, stat, uptime, loadavg,
  # cpu/online, cpu/possible.
  [ "$(grep -c '^ok ' <<<"$output")" -eq 11 ]
}

# wait_emulated MEM CPUS: within 3 s, a probe exec'd in the container sees MEM bytes and CPUS
# CPUs wherever it looks (sysinfo, sched_getaffinity, sysconf, meminfo, cpuinfo, stat, cpu
# online and possible).
wait_emulated() {
  local deadline=$(($(date +%s%N) + 3000000000))
  while :; do
    run __agentrt exec "$CID" /bin/probe emulate --mem "$1" --cpus "$2"
    [ "$status" -eq 0 ] && return 0
    if [ "$(date +%s%N)" -gt "$deadline" ]; then
      echo "after 3 s, not $1 bytes and $2 CPUs:" >&2
      echo "$output" >&2
      return 1
    fi
    sleep 0.1
  done
}

@test "supervisor: after update, meminfo, sysinfo, nproc and cpu online follow the new memory, quota and cpuset" {
  [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: the quota goes from 1 to 2"
  update_config --argjson m $((256 * MiB)) '.process.args = ["/bin/sleep", "1000"] |
    .linux.resources.memory.limit = $m | .linux.resources.cpu = {quota: 100000, period: 100000}'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait_emulated $((256 * MiB)) 1
  agentrt update --memory $((128 * MiB)) "$CID"
  [ "$status" -eq 0 ]
  wait_emulated $((128 * MiB)) 1
  agentrt update --cpu-quota 200000 "$CID"
  [ "$status" -eq 0 ]
  wait_emulated $((128 * MiB)) 2
  # The cpuset cuts it back to one CPU, the quota's two notwithstanding; containerd sends its
  # resources on stdin.
  run __agentrt update --resources - "$CID" <<<'{"cpu": {"cpus": "1"}}'
  [ "$status" -eq 0 ]
  wait_emulated $((128 * MiB)) 1
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: sched_getaffinity is the kernel's without a quota: taskset -c 0 nproc says 1, an unseen pid is ESRCH" {
  [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: taskset -c 0 must narrow the mask"
  # $$ is a host pid the container's namespace has no task for.
  update_config --arg host "$$" '.process.args = ["/bin/sh", "-c",
    "nproc; taskset -c 0 nproc; taskset -p 1; taskset -p 999999; echo esrch=$?; taskset -p " + $host + "; echo host=$?; /bin/probe affinity 1"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *$'thread: 1\nsize1: EINVAL\npid-1: ESRCH'* ]]
  [ "${lines[0]}" -eq "$(nproc)" ]
  [ "${lines[1]}" = 1 ]
  [[ "${lines[2]}" == "pid 1's current affinity mask: "* ]]
  [[ "$output" == *"999999's affinity: No such process"* ]]
  [[ "$output" == *"esrch=1"* && "$output" == *"host=1"* ]]
}

@test "supervisor: under a quota, sched_getaffinity is the target's own mask cut to the quota, and ESRCH for a pid it cannot see" {
  scenario_affinity_quota
}

@test "supervisor [ptrace]: under a quota, sched_getaffinity is the target's own mask cut to the quota, and ESRCH for a pid it cannot see" {
  ptrace_platform
  scenario_affinity_quota
}

scenario_affinity_quota() {
  [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: the quota of 1 must cut"
  # The quota shows one CPU of two: CPU 0 for a task that may run anywhere, CPU 1 for one
  # pinned there (not CPU 0, where it cannot run); a background task's mask by its pid; the
  # host's pid of the bats shell is nobody in the container.
  update_config --arg host "$$" '.linux.resources.cpu = {quota: 100000, period: 100000} |
    .process.args = ["/bin/sh", "-c",
    "nproc; taskset -c 1 nproc; taskset -c 1 sh -c \"taskset -p \\$\\$\"; taskset -c 1 sleep 100 & p=$!; sleep 0.2; taskset -p $p; kill $p; taskset -p 999999; echo esrch=$?; taskset -p " + $host + "; echo host=$?; /bin/probe affinity 1"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # Another thread by its tid; the kernel's EINVAL and ESRCH.
  [[ "$output" == *$'thread: 1\nsize1: EINVAL\npid-1: ESRCH'* ]]
  [ "${lines[0]}" = 1 ]
  [ "${lines[1]}" = 1 ]
  [[ "${lines[2]}" == *"current affinity mask: 2" ]]
  [[ "${lines[3]}" == *"current affinity mask: 2" ]]
  [[ "$output" == *"999999's affinity: No such process"* ]]
  [[ "$output" == *"esrch=1"* && "$output" == *"host=1"* ]]
}

@test "supervisor: under linux.personality LINUX32, the emulated uname says i686 as the kernel's does" {
  [ "$(uname -m)" = x86_64 ] || skip "the 32-bit machine name checked is x86_64's"
  update_config '.linux.personality = {domain: "LINUX32"} | .process.args = ["/bin/uname", "-m"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = i686 ]
  # Without it, the host's.
  update_config 'del(.linux.personality)'
  agentrt run -b "$BUNDLE" "$CID-64"
  [ "$status" -eq 0 ]
  [ "$output" = x86_64 ]
}

@test "supervisor: meminfo and sysinfo show what the cgroup's usage leaves of the limit; free's used is never past the total" {
  # 64 MiB in /dev/shm (a tmpfs: charged to the container's memory cgroup), then a second for
  # the supervisor to read the usage again.  The host's cache alone was more than the limit,
  # and busybox free's used (total - free - buffers - cached) wrapped around below 0.
  update_config --argjson m $((256 * MiB)) '.linux.resources.memory.limit = $m |
    .process.args = ["/bin/sh", "-c",
    "dd if=/dev/zero of=/dev/shm/fill bs=1048576 count=64 2>/dev/null; sleep 2; grep -E \"^(MemTotal|MemFree|MemAvailable):\" /proc/meminfo; free | sed -n 2p"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local total free avail mem
  total=$(awk '/^MemTotal:/ { print $2 }' <<<"$output")
  free=$(awk '/^MemFree:/ { print $2 }' <<<"$output")
  avail=$(awk '/^MemAvailable:/ { print $2 }' <<<"$output")
  echo "$output" >&2
  [ "$total" -eq 262144 ]
  [ "$free" -le $((262144 - 65536)) ]
  [ "$avail" -le $((262144 - 65536)) ]
  # free: "Mem:" total used free shared buff/cache available, used within the total (a used
  # that wrapped around ran into the total's column).
  read -r -a mem < <(grep '^Mem:' <<<"$output")
  [ "${#mem[@]}" -eq 7 ]
  [ "${mem[1]}" -eq 262144 ]
  [ "${mem[2]}" -le 262144 ]
}

@test "supervisor: mount fails with EPERM even with CAP_SYS_ADMIN, and works with --platform none" {
  add_cap CAP_SYS_ADMIN
  update_config '.process.args = ["/bin/probe", "mount", "/tmp/x"]'
  # The rootfs is read-only: the mount point must be there already.
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"mount: EPERM"* ]]
  agentrt run --platform none -b "$BUNDLE" "$CID-none"
  [ "$status" -eq 0 ]
  [[ "$output" == *mounted* ]]
}

# The whole script runs in the container; each assert names what it saw.
PY_WORKLOAD='
import os, json, subprocess, threading, multiprocessing

assert os.cpu_count() == 1, ("cpu_count", os.cpu_count())
with open("/proc/meminfo") as f:
    total = next(l.split() for l in f if l.startswith("MemTotal:"))
assert total[1:] == ["524288", "kB"], ("MemTotal", total)

out = subprocess.run(["/bin/echo", "from a subprocess"], capture_output=True, text=True, check=True)
assert out.stdout == "from a subprocess\n", out.stdout

seen = []
t = threading.Thread(target=seen.append, args=("thread",))
t.start()
t.join()
assert seen == ["thread"], seen

def square(x):
    return x * x

with multiprocessing.Pool(2) as pool:
    squares = pool.map(square, range(20))
assert squares == [x * x for x in range(20)], squares

print(json.dumps({"python": "ok", "cpus": os.cpu_count(), "memtotal_kb": int(total[1])}))
'

@test "supervisor: python3 and pip in a Debian rootfs with 512 MiB and 1 CPU" {
  scenario_python
}

# Threads, a process pool and subprocesses: every one of them traced from its birth.
@test "supervisor [ptrace]: python3 and pip in a Debian rootfs with 512 MiB and 1 CPU" {
  ptrace_platform
  scenario_python
}

scenario_python() {
  local rootfs
  rootfs=$(debian_rootfs)
  limits_512m_1cpu
  # The cached rootfs is shared by every run: read-only, never copied.
  update_config --arg r "$rootfs" --arg py "$PY_WORKLOAD" '
    .root = {path: $r, readonly: true} |
    .process.env += ["PY_WORKLOAD=" + $py] |
    .process.args = ["/bin/sh", "-c", "python3 -c \"$PY_WORKLOAD\" && pip --version"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"python": "ok"'* ]]
  [[ "$output" == *"pip "*" from /usr/lib/python3/dist-packages/pip"* ]]
}

# The supervisor's own processes: the watchdog is state.json's supervisorPid, the worker its
# child.
watchdog_pid() { jq -r .supervisorPid "$ROOT/state/$1/state.json"; }
worker_pid() { pgrep -P "$(watchdog_pid "$1")" -x agentrt-sv; }
init_pid() { __agentrt state "$1" | jq -r .pid; }

# wait_gone PID [SECONDS]: true once PID is no longer a live process (default 5 s).
wait_gone() {
  local i
  for ((i = 0; i < ${2:-5} * 20; i++)); do
    proc_alive "$1" || return 0
    sleep 0.05
  done
  return 1
}

# release_annotation R: uname reports release R.
release_annotation() { update_config --arg r "$1" '.annotations["io.agentrt.uname.release"] = $r'; }

no_supervisor_left() { [ "$(supervisors_left)" -eq 0 ]; }

# records FILTER: how many audit records of the container match the jq FILTER.
records() { jq -c "select($1)" "$ROOT/state/$CID/audit.jsonl" | wc -l; }

# The execve handler reads each argv string in a first piece of 256 bytes, then page by page
# (handlers/exec.c); 4096 bytes of strings at most, one more each (the NUL), are recorded, as
# JSON writes them.
@test "supervisor: an execve's record has its argv strings whole past the first piece, cut at 4096 bytes" {
  local a b c
  a=$(printf 'a%.0s' $(seq 1000)) b=$(printf 'b%.0s' $(seq 5000))
  c=$(printf 'c%.0s' $(seq 300))
  update_config --arg a "$a" --arg c "$c" '.process.args = ["/bin/true", $a, $c]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(records '.syscall == "execve" and .args.path == "/bin/true" and .args.argv == ["/bin/true", "'"$a"'", "'"$c"'"] and .truncated == null')" -eq 1 ]
  # Its comm is the name the process takes with the new program, as auditd's execve records.
  [ "$(records '.syscall == "execve" and .comm == "true"')" -eq 1 ]
  agentrt delete --force "$CID"
  # A string past the budget is cut: 4096 - 10 ("/bin/true") - 1001 - 1 (its NUL) = 3084 bytes,
  # the last three of them the "…" that says so, and the record says "truncated".
  update_config --arg a "$a" --arg b "$b" '.process.args = ["/bin/true", $a, $b]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(records '.syscall == "execve" and .args.argv[1] == "'"$a"'" and .args.argv[2] == "'"${b:0:3081}"'…" and (.args.argv | length) == 3 and .truncated == true')" -eq 1 ]
}

@test "supervisor: an exec'd process is supervised: uname is emulated, mount denied and audited with its pid" {
  scenario_exec_supervised
}

@test "supervisor [ptrace]: an exec'd process is supervised: uname is emulated, mount denied and audited with its pid" {
  ptrace_platform
  scenario_exec_supervised
}

scenario_exec_supervised() {
  add_cap CAP_SYS_ADMIN
  release_annotation 6.6.6-exec
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec "$CID" uname -r
  [ "$status" -eq 0 ]
  [ "$output" = 6.6.6-exec ]
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" /bin/probe mount /tmp/x
  [ "$status" -eq 0 ]
  local pid
  pid=$(cat "$ROOT/exec.pid")
  wait_gone "$pid"
  grep -qx 'mount: EPERM' "$ROOT/stdio.log"
  [ "$(records ".pid == $pid and .syscall == \"mount\" and .verdict == \"deny\" and .rule == \"deny-mount\"")" -eq 1 ]
  # Its execve was audited under the same pid.
  [ "$(records ".pid == $pid and .syscall == \"execve\" and .args.path == \"/bin/probe\"")" -eq 1 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# worker_cpu_ms PID: the CPU time the process has used, its ended threads' too, in ms (10 ms
# steps: clock ticks).
worker_cpu_ms() { awk '{ print ($14 + $15) * 10 }' "/proc/$1/stat"; }

# Once no process uses a notify fd's filter (an exec'd process reaped), its serving thread's
# NOTIF_RECV fails at once, every time: the thread must end, not spin until the main thread has
# dropped the fd.  One CPU for the container, so the supervisor (on the workload's CPUs) and its
# spinning thread would share it.  Spinning cost about 1 ms of CPU per exec here; 50 execs
# without it take the worker 10 ms or less.
@test "supervisor: an exec'd process that ended costs its serving thread no CPU (no spinning on its dead fd)" {
  update_config '.process.args = ["/bin/sleep", "1000"] | .linux.resources.cpu.cpus = "0"'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local w before after i
  w=$(worker_pid "$CID")
  before=$(worker_cpu_ms "$w")
  for i in $(seq 50); do
    __agentrt exec "$CID" /bin/true
  done
  sleep 0.2
  after=$(worker_cpu_ms "$w")
  echo "worker CPU for 50 execs: $((after - before)) ms"
  [ $((after - before)) -le 30 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
}

# kill_supervisor_test WHICH SIGNAL EVENT [FILTER]: with a workload calling uname in a loop,
# SIGNAL to the watchdog, the worker or both kills the container, records EVENT as an alert
# (counted in io.agentrt.audit.alerts), and no uname ever reaches the host kernel meanwhile (the
# calls of a dead supervisor fail with ENOSYS).  FILTER: what else the event's record must match.
kill_supervisor_test() {
  release_annotation 6.6.6-loop
  update_config '.process.args = ["/bin/sh", "-c", "while :; do uname -r; done"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local init victim
  init=$(init_pid "$CID")
  [ "$(cat "/proc/$(watchdog_pid "$CID")/comm")" = agentrt-watch ]
  victim=$(worker_pid "$CID")
  [ "$(cat "/proc/$victim/comm")" = agentrt-sv ]
  case $1 in
    watchdog) victim=$(watchdog_pid "$CID") ;;
    # Its process group (it leads a session of its own): the watchdog and the worker at once.
    both) victim=-$(watchdog_pid "$CID") ;;
  esac
  # Let it run: the log must show emulated answers before the kill.
  for _ in $(seq 100); do grep -qx 6.6.6-loop "$ROOT/stdio.log" && break; sleep 0.05; done
  kill "-$2" -- "$victim"
  wait_gone "$init"
  __agentrt state "$CID" >"$ROOT/state.out"
  [ "$(jq -r .status "$ROOT/state.out")" = stopped ]
  [ "$(records ".event == \"$3\" and .severity == \"alert\" and (${4:-true})")" -eq 1 ]
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' "$ROOT/state.out")" -eq 1 ]
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' "$ROOT/state.out")" = "$3" ]
  grep -qx 6.6.6-loop "$ROOT/stdio.log"
  ! grep -qxF "$(uname -r)" "$ROOT/stdio.log"
  # What is left of the supervisor follows it.
  [ "$(supervisors_left)" -eq 0 ] || { sleep 1; [ "$(supervisors_left)" -eq 0 ]; }
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: killing the worker kills the container (supervisor-died), no call passes meanwhile" {
  kill_supervisor_test worker KILL supervisor-died '.detail == "killed by signal 9"'
}

@test "supervisor: killing the watchdog kills the container (supervisor-lost), no call passes meanwhile" {
  kill_supervisor_test watchdog KILL supervisor-lost
}

@test "supervisor: SIGTERM to the watchdog of a running container kills it (supervisor-stopped)" {
  kill_supervisor_test watchdog TERM supervisor-stopped '.detail | startswith("stopped by signal 15 from pid ")'
}

@test "supervisor: SIGTERM to the worker kills the container (supervisor-stopped)" {
  # One alert only (kill_supervisor_test counts them): the watchdog adds no supervisor-died.
  kill_supervisor_test worker TERM supervisor-stopped '.detail | startswith("stopped by signal 15 from pid ")'
}

# The tracer's death kills its tracees (PTRACE_O_EXITKILL) before the watchdog even notices.
@test "supervisor [ptrace]: killing the worker kills the container (supervisor-died), no call passes meanwhile" {
  ptrace_platform
  kill_supervisor_test worker KILL supervisor-died '.detail == "killed by signal 9"'
}

@test "supervisor [ptrace]: SIGTERM to the worker kills the container (supervisor-stopped)" {
  ptrace_platform
  kill_supervisor_test worker TERM supervisor-stopped '.detail | startswith("stopped by signal 15 from pid ")'
}

# Both at once: nobody is left to kill the container but the kernel (the watchdog traces the
# init with PTRACE_O_EXITKILL; on the ptrace platform the worker does), nor to record why but the
# next command that looks (here `state`).
@test "supervisor: killing both supervisor processes at once kills the container (supervisor-lost)" {
  kill_supervisor_test both KILL supervisor-lost '.detail | test("watchdog .* is gone, its worker .* gone, and neither recorded why")'
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' "$ROOT/state.out")" = supervisor-lost ]
}

@test "supervisor [ptrace]: killing both supervisor processes at once kills the container (supervisor-lost)" {
  ptrace_platform
  kill_supervisor_test both KILL supervisor-lost '.detail | test("watchdog .* is gone, its worker .* gone, and neither recorded why")'
}

# A stop is no death: no kernel notification but SIGCHLD to the parent tells of it.  The worker
# is the watchdog's child (waitpid WUNTRACED); the watchdog is the worker's parent, which the
# worker looks at on its one-second timer.
@test "supervisor: a stopped worker kills the container (supervisor-stopped)" {
  kill_supervisor_test worker STOP supervisor-stopped '.detail | test("^the worker \\(pid [0-9]+\\) was stopped by signal 19")'
}

@test "supervisor: a stopped watchdog kills the container (supervisor-stopped)" {
  kill_supervisor_test watchdog STOP supervisor-stopped '.detail | test("^the watchdog \\(pid [0-9]+\\) is stopped")'
}

@test "supervisor [ptrace]: a stopped worker, the tracer, kills the container (supervisor-stopped)" {
  ptrace_platform
  kill_supervisor_test worker STOP supervisor-stopped '.detail | test("^the worker \\(pid [0-9]+\\) was stopped")'
}

@test "supervisor [ptrace]: a stopped watchdog kills the container (supervisor-stopped)" {
  ptrace_platform
  kill_supervisor_test watchdog STOP supervisor-stopped '.detail | test("^the watchdog \\(pid [0-9]+\\) is stopped")'
}

# The whole supervisor stopped: nothing of it can act, and no kernel notification tells anyone.
# The container hangs at its next supervised call; the next command that looks finds it so.
@test "supervisor: with the whole supervisor stopped, the next command kills the container (supervisor-stopped)" {
  release_annotation 6.6.6-loop
  update_config '.process.args = ["/bin/sh", "-c", "while :; do uname -r; done"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local init wd
  init=$(init_pid "$CID") wd=$(watchdog_pid "$CID")
  for _ in $(seq 100); do grep -qx 6.6.6-loop "$ROOT/stdio.log" && break; sleep 0.05; done
  kill -STOP -- "-$wd"
  sleep 1.5
  proc_alive "$init"
  agentrt list
  [ "$status" -eq 0 ]
  [[ "${lines[1]}" == "$CID "*" stopped "* ]]
  ! proc_alive "$init"
  wait_for "the supervisor's end" no_supervisor_left
  __agentrt state "$CID" >"$ROOT/state.out"
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' "$ROOT/state.out")" = supervisor-stopped ]
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' "$ROOT/state.out")" -eq 1 ]
  [ "$(records '.event == "supervisor-stopped" and .severity == "alert" and (.detail | test("watchdog .* is stopped, its worker .* stopped"))')" -eq 1 ]
  ! grep -qxF "$(uname -r)" "$ROOT/stdio.log"
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# The kill switch is a trace, which an execve keeps: the workload's own execve, and a process
# exec'd into the container later, which dies with the container's pid namespace.
@test "supervisor: killing both supervisor processes kills a workload that exec'd, and an exec'd process" {
  update_config '.process.args = ["/bin/sh", "-c", "echo started; exec /bin/sleep 1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local init exec_pid
  init=$(init_pid "$CID")
  wait_for "the workload's execve" grep -qx sleep "/proc/$init/comm"
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" /bin/sleep 999
  [ "$status" -eq 0 ]
  exec_pid=$(cat "$ROOT/exec.pid")
  proc_alive "$exec_pid"
  kill -KILL -- "-$(watchdog_pid "$CID")"
  wait_gone "$init" 2
  wait_gone "$exec_pid" 2
  agentrt audit --json "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq -c 'select(.event == "supervisor-lost" and .severity == "alert")' <<<"$output" | wc -l)" -eq 1 ]
  # Told once: looking again adds nothing.
  agentrt state "$CID"
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' <<<"$output")" -eq 1 ]
  [ "$(records '.event == "supervisor-lost"')" -eq 1 ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# group_alive PID: a thread of PID's process is still live (the leader may be a zombie).
group_alive() {
  local t
  for t in /proc/"$1"/task/*; do
    proc_alive "$1/task/${t##*/}" && return 0
  done
  return 1
}

# orphan_started: the probe's main thread has exited alone and its other thread runs.
orphan_started() {
  local init=$1
  [ "$(sed 's/^.*) //' "/proc/$init/stat" | cut -d' ' -f1)" = Z ] && group_alive "$init"
}

# orphan_test HOW [PLATFORM]: the workload's main thread exits alone (SYS_exit) and a thread of
# it runs on.  That is a running container (state says so), and the kill reaches it all: HOW is
# `both` (the supervisor's watchdog and worker SIGKILLed at once: the kernel's kill switch alone)
# or `deadline` (the watchdog's kill at the deadline).
orphan_test() {
  local init flags=()
  update_config '.process.args = ["/bin/probe", "orphan"]'
  case ${2:-} in
    ptrace) ptrace_platform ;;
    # The watchdog alone, there for the deadline.
    none) flags=(--platform none --timeout 1h) ;;
  esac
  if [ "$1" = deadline ]; then flags+=(--timeout 3s); fi
  agentrt_detached run -d "${flags[@]}" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # From the state file: `state` may not tell (it did call such a container stopped).
  init=$(jq -r .pid "$ROOT/state/$CID/state.json")
  wait_for "the main thread's exit" orphan_started "$init"
  agentrt state "$CID"
  [ "$(jq -r .status <<<"$output")" = running ]
  [ "$(jq -r .pid <<<"$output")" -eq "$init" ]
  if [ "$1" = both ]; then
    kill -KILL -- "-$(watchdog_pid "$CID")"
  fi
  wait_for "the container's end" eval "! group_alive $init"
  agentrt state "$CID"
  [ "$(jq -r .status <<<"$output")" = stopped ]
  if [ "$1" = both ]; then
    [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' <<<"$output")" = supervisor-lost ]
  else
    [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' <<<"$output")" = timeout ]
  fi
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# The kill switch traces each thread the init makes (a stop at each clone): a workload that
# makes many runs to its end, its status returned (a traced thread the watchdog did not reap
# would keep the init's exit from its parent for ever).
@test "supervisor: a workload that makes 300 threads runs to its end under the kill switch, on every platform" {
  local platform
  update_config '.process.args = ["/bin/probe", "threads", "300"]'
  for platform in seccomp ptrace; do
    update_config --arg p "$platform" '.annotations["io.agentrt.platform"] = $p'
    run -0 timeout 60 "$AGENTRT" --root "$ROOT/state" run -b "$BUNDLE" "$CID-$platform"
    [ "$output" = "threads: 300 made, 300 joined" ]
  done
  update_config 'del(.annotations["io.agentrt.platform"])'
  run -0 timeout 60 "$AGENTRT" --root "$ROOT/state" run --platform none --timeout 1h -b "$BUNDLE" "$CID-none"
  [ "$output" = "threads: 300 made, 300 joined" ]
  leaves_nothing
}

@test "supervisor: a workload whose main thread exited alone is running; killing both supervisor processes kills it" {
  orphan_test both
}

@test "supervisor [ptrace]: a workload whose main thread exited alone is running; killing both supervisor processes kills it" {
  orphan_test both ptrace
}

@test "supervisor: a workload whose main thread exited alone dies at its deadline" {
  orphan_test deadline
}

@test "supervisor: with --platform none, a workload whose main thread exited alone dies with its watchdog" {
  orphan_test both none
}

# In the runtime's pid namespace the container sees the supervisor's processes and may stop or
# kill them: refused where there is a supervisor or a deadline, unless agentrt.conf allows it.
@test "supervisor: a container without a pid namespace of its own is refused with a supervisor or a deadline, unless agentrt.conf allows it" {
  local msg="no pid namespace of the container's own, where it could stop or kill"
  update_config '.linux.namespaces |= map(select(.type != "pid"))'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"linux.namespaces: $msg its supervisor: add one, or allow it in agentrt.conf (supervised_without_pidns = allow)" ]]
  [ "${#lines[@]}" -eq 1 ]
  agentrt run --platform none --timeout 1h -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"$msg its deadline's watchdog:"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
  # Joined, the runtime's own pid namespace is no better.
  update_config '.linux.namespaces += [{type: "pid", path: "/proc/self/ns/pid"}]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"$msg its supervisor:"* ]]
  [ "$(state_dirs_left)" -eq 0 ]
  [ "$(cgroups_left)" = "" ]
  # Nothing to see: no supervisor, no deadline.
  update_config '.linux.namespaces |= map(select(.type != "pid"))'
  agentrt run --platform none -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # The operator's choice.
  printf 'supervised_without_pidns = allow\n' >"$ROOT/agentrt.conf"
  agentrt --config "$ROOT/agentrt.conf" run --timeout 1h -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# The supervisor frees the parsed config.json once it is forked: with a 4 MiB one (a long
# process.env) each of its processes held 15.6 MB, 2.4 MB with a small one.
@test "supervisor: its processes do not keep a 4 MiB config.json (RSS under 6 MB each)" {
  local p rss
  update_config -c '.process.args = ["/bin/sleep", "1000"]
    | .process.env += [range(39500) | "E\(.)=" + ("v" * 95)]'
  [ "$(stat -c %s "$BUNDLE/config.json")" -gt $((3950 * 1024)) ]
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  for p in $(watchdog_pid "$CID") $(worker_pid "$CID"); do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status")
    echo "supervisor process $p: VmRSS $rss kB" >&2
    [ "$rss" -lt 6144 ]
  done
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# supervisor.end tells a supervisor that ended with its container from one that was lost: a
# command that looks after the first has ended must not take it for the second.
@test "supervisor: a container that runs to its end leaves no supervisor-lost record, one whose supervisor is killed does" {
  update_config '.process.args = ["/bin/sh", "-c", "uname -r"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait_for "the supervisor's end" no_supervisor_left
  agentrt list
  agentrt state "$CID"
  [ "$(jq -r '.status' <<<"$output")" = stopped ]
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"] // "none"' <<<"$output")" = none ]
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' <<<"$output")" -eq 0 ]
  agentrt audit --json "$CID"
  [ "$(jq -c 'select(.event != null)' <<<"$output" | wc -l)" -eq 0 ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  # The same container, its supervisor killed while it runs.
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  kill -KILL -- "-$(watchdog_pid "$CID")"
  wait_gone "$(init_pid "$CID")" 2
  agentrt state "$CID"
  [ "$(jq -r '.annotations["io.agentrt.stop.reason"]' <<<"$output")" = supervisor-lost ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: delete stops the supervisor, of a running and of a created container" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt_detached create -b "$BUNDLE" "$CID-created"
  [ "$status" -eq 0 ]
  [ "$(supervisors_left)" -eq 4 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  agentrt delete "$CID-created"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: a failed create leaves no supervisor and no state directory" {
  # The init fails before the supervisor starts...
  update_config '.process.args = ["/bin/no-such-program"]'
  agentrt_detached create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"/bin/no-such-program"* ]]
  leaves_nothing
  # ...or after it (the pid file is written last).
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached create --audit-log "$ROOT/audit.jsonl" --pid-file "$ROOT/no-such-dir/pid" \
    -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"no-such-dir"* ]]
  leaves_nothing
  # agentrt stopped its own supervisor: that is no alert.
  [ "$(jq -c 'select(.event != null)' "$ROOT/audit.jsonl" | wc -l)" -eq 0 ]
  ! pgrep -f -- "--root $ROOT/state" >/dev/null
}

@test "supervisor: agentrt audit prints a table, --json the JSON lines, --follow ends with the container" {
  add_cap CAP_SYS_ADMIN
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  update_config '.process.args = ["/bin/probe", "mount", "/tmp/x"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  local n
  n=$(wc -l <"$ROOT/state/$CID/audit.jsonl")
  [ "$n" -ge 2 ] # execve and mount
  agentrt audit "$CID"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == TIME*SEV*PID*COMM*SYSCALL*VERDICT*RULE*ARGS ]]
  [ "${#lines[@]}" -eq $((n + 1)) ]
  [[ "$output" == *"alert"*"probe"*"mount"*"deny"*"deny-mount"*"target=/tmp/x"* ]]
  agentrt audit --json "$CID"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq "$n" ]
  jq -e . <<<"$output" >/dev/null
  [ "$(jq -s 'map(select(.syscall == "mount")) | length' <<<"$output")" -eq 1 ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]

  update_config '.process.args = ["/bin/sh", "-c", "sleep 1; /bin/probe mount /tmp/x"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-follow"
  [ "$status" -eq 0 ]
  # It returns once the container and its supervisor are gone, with the last records.
  run -0 timeout 20 "$AGENTRT" --root "$ROOT/state" audit --follow --json "$CID-follow"
  [[ "$output" == *'"syscall":"mount"'* ]]
  agentrt delete "$CID-follow"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: agentrt state counts the alerts in annotation io.agentrt.audit.alerts" {
  add_cap CAP_SYS_ADMIN
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  update_config '.process.args = ["/bin/sh", "-c", "/bin/probe mount /tmp/x; /bin/probe mount /tmp/x; true"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  __agentrt state "$CID" >"$ROOT/state.out"
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' "$ROOT/state.out")" = 2 ]
  [ "$(records '.severity == "alert"')" -eq 2 ]
  # Not in state.json itself: the count is the supervisor's, read when state is asked.
  [ "$(jq -r '.annotations["io.agentrt.audit.alerts"]' "$ROOT/state/$CID/state.json")" = null ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: annotation io.agentrt.platform=none, where agentrt.conf lets pods use it, behaves as --platform none" {
  add_cap CAP_SYS_ADMIN
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  pod_may io.agentrt.platform
  update_config '.annotations["io.agentrt.platform"] = "none" | .process.args = ["/bin/sh", "-c", "/bin/probe mount /tmp/x && sleep 1000"]'
  agentrt_detached --config "$ROOT/agentrt.conf" run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  for _ in $(seq 100); do grep -q mounted "$ROOT/stdio.log" && break; sleep 0.05; done
  grep -qx mounted "$ROOT/stdio.log"
  [ "$(supervisors_left)" -eq 0 ]
  [ "$(jq -r .platform "$ROOT/state/$CID/state.json")" = none ]
  [ "$(jq -r '.supervisorPid // "none"' "$ROOT/state/$CID/state.json")" = none ]
  [ "$(__agentrt state "$CID" | jq -r '.annotations["io.agentrt.audit.alerts"]')" = null ]
  agentrt audit "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == *"no supervisor (platform none)"* ]]
  # exec runs unsupervised too.
  agentrt --config "$ROOT/agentrt.conf" exec "$CID" /bin/probe mount /tmp/x
  [ "$status" -eq 0 ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: bad sandbox values fail create naming the annotation or flag, and leave nothing" {
  local case key value want
  while IFS='|' read -r key value want; do
    cp "$BUNDLE/config.json" "$ROOT/config.orig"
    update_config --arg k "$key" --arg v "$value" '.annotations[$k] = $v'
    agentrt_detached create -b "$BUNDLE" "$CID"
    cp "$ROOT/config.orig" "$BUNDLE/config.json"
    [ "$status" -eq 1 ]
    [[ "$output" == *"annotation $key: "*"$want"* ]]
    leaves_nothing
  done <<'EOF_CASES'
io.agentrt.platform|bogus|unknown platform `bogus`
io.agentrt.uname.release|6.1.0 agentrt|blank or control character
io.agentrt.uname.release||1 to 64 characters
io.agentrt.policy.ptrace|maybe|allow or deny
EOF_CASES
  for case in "--platform bogus|--platform: unknown platform \`bogus\`" \
    "--audit-log $ROOT/no-such-dir/a.jsonl|--audit-log: directory"; do
    # shellcheck disable=SC2086 # the flag and its value are two words
    agentrt_detached create ${case%%|*} -b "$BUNDLE" "$CID"
    [ "$status" -eq 1 ]
    [[ "$output" == *"${case#*|}"* ]]
    leaves_nothing
  done
}

@test "supervisor: --audit-log FILE puts the audit log there (relative to the current directory)" {
  add_cap CAP_SYS_ADMIN
  mkdir -p "$BUNDLE/rootfs/tmp/x" "$ROOT/logs"
  update_config '.process.args = ["/bin/probe", "mount", "/tmp/x"]'
  agentrt run --keep --audit-log "$ROOT/logs/audit.jsonl" -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$(jq -c 'select(.syscall == "mount" and .verdict == "deny")' "$ROOT/logs/audit.jsonl" | wc -l)" -eq 1 ]
  [ ! -e "$ROOT/state/$CID/audit.jsonl" ]
  [ "$(jq -r .auditLog "$ROOT/state/$CID/state.json")" = "$ROOT/logs/audit.jsonl" ]
  agentrt audit --json "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"syscall":"mount"'* ]]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  # The log outlives the container: it is the caller's file.
  [ -s "$ROOT/logs/audit.jsonl" ]
  (cd "$ROOT/logs" && "$AGENTRT" --root "$ROOT/state" run --audit-log rel.jsonl -b "$BUNDLE" "$CID-rel") || true
  [ "$(jq -c 'select(.syscall == "mount")' "$ROOT/logs/rel.jsonl" | wc -l)" -eq 1 ]
  leaves_nothing
}

@test "supervisor: agentrt audit refuses an audit log that is not a regular file, at once" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d --audit-log "$ROOT/audit.jsonl" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # The supervisor keeps its own fd; the name now leads to a FIFO with no writer.
  rm -f "$ROOT/audit.jsonl"
  mkfifo "$ROOT/audit.jsonl"
  status=0
  timeout 20 "$AGENTRT" --root "$ROOT/state" audit "$CID" </dev/null >/dev/null 2>"$ROOT/err" ||
    status=$?
  echo "status=$status: $(cat "$ROOT/err")" >&2
  [ "$status" -eq 1 ]
  [ "$(cat "$ROOT/err")" = "agentrt: container \`$CID\`: its audit log: \`$ROOT/audit.jsonl\` is not a regular file" ]
  agentrt delete --force "$CID"
  leaves_nothing
}

# policy_files: the compiled policies kept in --root, one a line.
policy_files() { find "$ROOT/state" -maxdepth 1 -name 'policy@*.bpf' | sort; }

@test "supervisor: the compiled policy is kept in --root and reused; a file that is not ours is not" {
  update_config '.process.args = ["/bin/uname", "-r"]'
  agentrt run -b "$BUNDLE" "$CID-1"
  [ "$status" -eq 0 ]
  [ "$output" = 6.1.0-agentrt ]
  agentrt run -b "$BUNDLE" "$CID-2"
  [ "$status" -eq 0 ]
  [ "$output" = 6.1.0-agentrt ]
  local f
  f=$(policy_files)
  [ "$(wc -l <<<"$f")" -eq 1 ]
  [ "$(stat -c %a "$f")" = 600 ]
  [ "$(head -c 16 "$f")" = "agentrt policy 1" ]
  cp "$f" "$ROOT/kept"
  agentrt run -b "$BUNDLE" "$CID-3" # taken from the file: the same file after
  [ "$status" -eq 0 ]
  [ "$output" = 6.1.0-agentrt ]
  cmp "$f" "$ROOT/kept"
  # Not ours: garbage, or writable by others.  Compiled afresh (uname still answered by the
  # supervisor) and written again.
  printf 'agentrt policy 1\ngarbage' >"$f"
  agentrt run -b "$BUNDLE" "$CID-4"
  [ "$status" -eq 0 ]
  [ "$output" = 6.1.0-agentrt ]
  cmp "$f" "$ROOT/kept"
  chmod 666 "$f"
  agentrt run -b "$BUNDLE" "$CID-5"
  [ "$status" -eq 0 ]
  [ "$(stat -c %a "$f")" = 600 ]
  # Another switch is another policy, in a file of its own.
  update_config '.annotations["io.agentrt.policy.ptrace"] = "deny"'
  agentrt run -b "$BUNDLE" "$CID-6"
  [ "$status" -eq 0 ]
  [ "$(policy_files | wc -l)" -eq 2 ]
  leaves_nothing
}

@test "supervisor: agentrt policy show lists mount as deny; --format json is valid JSON" {
  agentrt policy show
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == NAME*NR*TIER*CONDITION*HANDLER*SEVERITY*RULE ]]
  grep -qE '^mount +[0-9]+ +deny +- +deny:EPERM +alert +deny-mount$' <<<"$output"
  agentrt policy show --format json
  [ "$status" -eq 0 ]
  [ "$(jq length <<<"$output")" -ge 300 ]
  [ "$(jq -r '.[] | select(.name == "mount") | "\(.tier) \(.errno) \(.rule)"' <<<"$output")" = "deny EPERM deny-mount" ]
  [ "$(jq -r '.[] | select(.name == "uname") | .tier' <<<"$output")" = supervise ]
  leaves_nothing
}

# supervised_as_test: the process spec's user (set by the caller) is supervised: uname
# emulated, mount denied and audited.
supervised_as_test() {
  release_annotation 6.6.6-user
  mkdir -p "$BUNDLE/rootfs/tmp/x"
  update_config '.process.args = ["/bin/sh", "-c", "id -u; uname -r; /bin/probe mount /tmp/x"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "$1" ]
  [ "${lines[1]}" = 6.6.6-user ]
  [ "${lines[2]}" = "mount: EPERM" ]
  [ "$(records '.syscall == "mount" and .verdict == "deny" and .comm == "probe"')" -eq 1 ]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "supervisor: a container running as uid 1000 is supervised" {
  update_config '.process.user = {uid: 1000, gid: 1000}'
  supervised_as_test 1000
}

@test "supervisor: a container in a user namespace is supervised" {
  in_user_namespace
  supervised_as_test 0
}

in_user_namespace() {
  update_config '.linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
}

# Tracing a process of another uid, or of a user namespace, needs the worker's CAP_SYS_PTRACE.
@test "supervisor [ptrace]: a container running as uid 1000 is supervised" {
  ptrace_platform
  update_config '.process.user = {uid: 1000, gid: 1000}'
  supervised_as_test 1000
}

@test "supervisor [ptrace]: a container in a user namespace is supervised" {
  ptrace_platform
  in_user_namespace
  supervised_as_test 0
}

# The ptrace platform: what is particular to it.

# tracer_of PID: the pid tracing PID (0: none).
tracer_of() { awk '$1 == "TracerPid:" { print $2 }' "/proc/$1/status"; }

@test "supervisor [ptrace]: the worker traces the init and exec'd processes; state names the platform" {
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d --platform ptrace -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(jq -r .platform "$ROOT/state/$CID/state.json")" = ptrace ]
  local worker pid child
  worker=$(worker_pid "$CID")
  [ "$(tracer_of "$(init_pid "$CID")")" -eq "$worker" ]
  # An exec'd process, and the child it forks, are traced by the same worker.
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" /bin/sh -c 'sleep 1001 & wait'
  [ "$status" -eq 0 ]
  pid=$(cat "$ROOT/exec.pid")
  [ "$(tracer_of "$pid")" -eq "$worker" ]
  wait_for "the exec'd shell's child" eval 'child=$(pgrep -P "$pid" -x sleep)'
  [ "$(tracer_of "$child")" -eq "$worker" ]
  agentrt delete --force "$CID"
  leaves_nothing
}

# The kill switch (PTRACE_O_EXITKILL) is all the notify platform traces: the init, by the
# watchdog; not its children, not an exec'd process.  Inside, nobody seems to trace it: its
# tracer is outside its pid namespace.
@test "supervisor: the watchdog traces the init alone, and it looks untraced from inside" {
  update_config '.process.args = ["/bin/sh", "-c", "trap \"echo trapped; exit 7\" TERM; sleep 1002 & wait"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  local init child pid
  init=$(init_pid "$CID")
  [ "$(tracer_of "$init")" -eq "$(watchdog_pid "$CID")" ]
  wait_for "the init's child" eval 'child=$(pgrep -P "$init" -x sleep)'
  [ "$(tracer_of "$child")" -eq 0 ]
  agentrt_detached exec -d --pid-file "$ROOT/exec.pid" "$CID" /bin/sleep 1003
  [ "$status" -eq 0 ]
  pid=$(cat "$ROOT/exec.pid")
  [ "$(tracer_of "$pid")" -eq 0 ]
  agentrt exec "$CID" /bin/sh -c 'grep TracerPid /proc/1/status'
  [ "$status" -eq 0 ]
  [[ "$output" == *"TracerPid:"*"0" ]]
  # Signals reach it through the trace as before: its trap runs.
  agentrt kill "$CID" TERM
  [ "$status" -eq 0 ]
  wait_gone "$init"
  grep -qx trapped "$ROOT/stdio.log"
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

# counter_at: what the workload's counter file says now (0 for none, or for an empty one: the
# loop's `echo >` truncates before it writes, and a STOP may fall in between).
counter_at() {
  local v
  v=$(cat "$BUNDLE/rootfs/tmp/n" 2>/dev/null)
  echo "${v:-0}"
}

# A tracee's signals are passed on: a trapped TERM runs its trap; STOP stops the whole container
# until CONT (a group stop the tracer keeps with PTRACE_LISTEN, not a stop of its own).
@test "supervisor [ptrace]: signals reach the workload: STOP and CONT stop and resume it, TERM runs its trap" {
  ptrace_platform
  update_config '.root.readonly = false | .process.args = ["/bin/sh", "-c",
    "trap \"echo got-term; exit 3\" TERM; n=0; while :; do n=$((n + 1)); echo $n >/tmp/n; sleep 0.05; done"]'
  mkdir -p "$BUNDLE/rootfs/tmp"
  __agentrt run -b "$BUNDLE" "$CID" >"$ROOT/run.out" 2>&1 &
  local run_pid=$! before after rc=0
  wait_for "the loop to count" eval '[ "$(counter_at)" -ge 3 ]'
  agentrt kill "$CID" STOP
  [ "$status" -eq 0 ]
  sleep 0.3 # the iteration under way ends
  before=$(counter_at)
  sleep 0.5
  after=$(counter_at)
  echo "stopped: $before then $after" >&2
  [ "$before" -eq "$after" ]
  agentrt kill "$CID" CONT
  [ "$status" -eq 0 ]
  wait_for "the loop to count again" eval '[ "$(counter_at)" -gt "$after" ]'
  agentrt kill "$CID" TERM
  [ "$status" -eq 0 ]
  wait "$run_pid" || rc=$?
  cat "$ROOT/run.out" >&2
  [ "$rc" -eq 3 ]
  grep -qx got-term "$ROOT/run.out"
  leaves_nothing
}

@test "supervisor [ptrace]: what the platform cannot do fails create naming it, leaving nothing" {
  ptrace_platform
  pod_may io.agentrt.policy.ptrace
  update_config '.annotations["io.agentrt.policy.ptrace"] = "allow"'
  agentrt_detached --config "$ROOT/agentrt.conf" create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"io.agentrt.policy.ptrace=allow: the ptrace platform is the workload's one tracer"* ]]
  leaves_nothing
  update_config 'del(.annotations["io.agentrt.policy.ptrace"])'
  agentrt_detached create --net-allow 127.0.0.1:80 -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"--net-allow: the egress broker needs --platform seccomp"* ]]
  leaves_nothing
}

# An ignored SIGCHLD is inherited across exec: agentrt must not inherit it (run would wait for
# its init forever, the tracer would never hear of a stop).  `timeout` only keeps a hang from
# holding up the suite.
@test "supervisor: a caller that ignores SIGCHLD: run returns the status, on both platforms" {
  update_config '.process.args = ["/bin/sh", "-c", "uname -r; sleep 0.1 & wait; uname -r; exit 4"]'
  local platform
  for platform in seccomp ptrace; do
    run timeout 30 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$AGENTRT" --root "$ROOT/state" run --platform "$platform" -b "$BUNDLE" "$CID-$platform"
    echo "$platform: status $status: $output" >&2
    [ "$status" -eq 4 ]
    [ "$output" = "6.1.0-agentrt
6.1.0-agentrt" ]
  done
  leaves_nothing
}

# linux.seccomp's own SCMP_ACT_TRACE stops reach the tracer too: they are not the policy's, and
# get what they would get with no tracer (ENOSYS), unaudited.
@test "supervisor [ptrace]: an SCMP_ACT_TRACE of linux.seccomp gets ENOSYS, as with no tracer, and no record" {
  ptrace_platform
  update_config '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
      syscalls: [{names: ["getppid"], action: "SCMP_ACT_TRACE"}]}
    | .process.args = ["/bin/sh", "-c", "echo ppid=$PPID; uname -r"]'
  agentrt run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  # getppid cannot fail, so libc hands the raw -38 on: ash prints it unsigned.
  [ "${lines[0]}" = "ppid=$((2 ** 32 - 38))" ]
  [ "${lines[1]}" = 6.1.0-agentrt ]
  [ "$(records '.syscall == "getppid"')" -eq 0 ]
  [ "$(records '.verdict == "deny"')" -eq 0 ]
  agentrt delete "$CID"
  leaves_nothing
}

# inotify instances and fanotify groups are counted per user by the kernel, 128 each: a
# container without a user namespace (its root is host root) that took them all left host root,
# and agentrt's own canary set-up for the next container, with EMFILE.  The supervisor caps the
# live instances of such a container at 32 (shared or duplicated fds counted once) and audits
# the refusal; host root keeps its own.
scenario_fsnotify_cap() {
  local kind
  add_cap CAP_SYS_ADMIN # fanotify_init of a full group, as host root has it
  for kind in inotify fanotify; do
    update_config --arg k "$kind" '.process.args = ["/bin/probe", "hold", $k, "200"]'
    agentrt_detached run -d --audit-log "$ROOT/audit-$kind.jsonl" -b "$BUNDLE" "$CID-$kind"
    [ "$status" -eq 0 ]
    wait_for "the probe's count" grep -q "^$kind: " "$ROOT/stdio.log"
    grep "^$kind: " "$ROOT/stdio.log" >&2
    grep -q "^$kind: 32 made, then EMFILE" "$ROOT/stdio.log"
    python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if (libc.inotify_init1(0) if sys.argv[1] == "inotify" else libc.fanotify_init(0, 0)) >= 0 else 1)' "$kind"
    wait_for "the audit record" grep -q '"rule":"limit-fsnotify"' "$ROOT/audit-$kind.jsonl"
    jq -e 'select(.rule == "limit-fsnotify") | .verdict == "deny" and .errno == "EMFILE" and .severity == "warn"' \
      "$ROOT/audit-$kind.jsonl" >/dev/null
  done
  agentrt delete --force "$CID-inotify"
  agentrt delete --force "$CID-fanotify"
  leaves_nothing
}

@test "supervisor: a container without a user namespace holds at most 32 inotify instances and fanotify groups" {
  scenario_fsnotify_cap
}

@test "supervisor [ptrace]: a container without a user namespace holds at most 32 inotify instances and fanotify groups" {
  ptrace_platform
  scenario_fsnotify_cap
}

# The count reads one /proc entry per fd of the container: with a million fds each call took
# 5.5 s (9.4 s at worst) of the supervisor's time while the caller waited.  The work of a call
# is capped (32768 entries): past it the call gets EMFILE at once, audited as such, and below
# it inotify works as before.
@test "supervisor: inotify_init in a container with more fds than the count may read fails with EMFILE at once, audited" {
  update_config '.process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": 9000, "soft": 9000}]
    | .process.args = ["/bin/probe", "fdscan", "2", "1000", "3"]'
  agentrt run --audit-log "$ROOT/audit.jsonl" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *"calls, mean"*", ok 3, EMFILE 0, other 0"* ]]
  update_config '.process.args = ["/bin/probe", "fdscan", "8", "8192", "3"]'
  agentrt run --audit-log "$ROOT/audit.jsonl" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *", ok 0, EMFILE 3, other 0"* ]]
  # Each call is answered well within a second (about 0.2 s here, under load more).
  local worst
  worst=$(sed -n 's/.*max \([0-9.]*\) ms.*/\1/p' <<<"$output")
  awk -v w="$worst" 'BEGIN { exit !(w < 2000) }'
  jq -e 'select(.rule == "limit-fsnotify") | .args.scan == "over" and .args.scanMax == 32768 and .errno == "EMFILE"' \
    "$ROOT/audit.jsonl" >/dev/null
  leaves_nothing
}
