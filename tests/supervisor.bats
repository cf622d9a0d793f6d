#!/usr/bin/env bats
# The seccomp supervisor, seen from inside the container: what it denies (and audits), what it
# emulates, and that --platform none turns it off.  The workload side is tests/probe/probe.c.
load helpers

setup() { setup_probe; }
teardown() { teardown_root; }

MiB=$((1024 * 1024))

# Checks whose syscall is not audited as a denied alert: allowed calls, clone3 (refused with
# ENOSYS in the kernel, so that libc falls back to clone, and not audited), and AF_PACKET (an
# odd family that programs probe innocently: at most a warning).
not_an_alert() { [[ $1 == allowed:* || $1 == clone3 || $1 == "socket(AF_PACKET)" ]]; }
# Obsolete calls are denied and audited as warnings: programs probe them innocently.
obsolete() { [[ $1 == uselib || $1 == _sysctl || $1 == ustat || $1 == sysfs ]]; }

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

@test "supervisor: every call of the deny list gets EPERM and an alert in the audit log" {
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

@test "supervisor: uname, sysinfo, the CPU count and /proc, /sys files reflect 512 MiB and 1 CPU" {
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
