#!/usr/bin/env bash
# The agentrt demo: a model-written-looking Python script runs under the agent profile in a
# Debian rootfs (debootstrap'ed once, cached) with one allowlisted endpoint: an "API" the demo
# serves on the host's loopback.  The script does its job, then tries what an injected attacker
# would: read host secrets and a planted credential, reach another address, mount, fork-bomb,
# fill the disk, run past its deadline.  The demo prints what happened, then the audit log's
# alerts, and shows that nothing is left behind.
# Usage: demo/demo.sh [path/to/agentrt]
set -euo pipefail
AGENTRT=$(realpath "${1:-$(dirname "$0")/../agentrt}")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/lib/debian.sh"
work=$(mktemp -d /tmp/agentrt-demo.XXXXXX)
chmod 755 "$work" # the container's root is an unprivileged uid on the host: it reads agent.py
api_pid=
cleanup() {
  "$AGENTRT" --root "$work/state" delete --force demo >/dev/null 2>&1 || true
  [ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
rt() { "$AGENTRT" --root "$work/state" "$@"; }

say "a Debian 12 rootfs with python3 (debootstrap, cached in $AGENTRT_TEST_CACHE)"
rootfs=$(debian_rootfs)
echo "$rootfs"

say "an API on the host's loopback: the one endpoint the agent may reach"
mkdir -p "$work/api"
echo '{"task": "sum the squares", "numbers": [3, 4, 12]}' >"$work/api/task.json"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work/api" "$port" >/dev/null 2>&1 &
api_pid=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.1; done
echo "http://127.0.0.1:$port/task.json"

say "the model-written script (agent.py)"
mkdir -p "$work/bundle"
cat >"$work/agent.py" <<'PY'
import json, os, socket, subprocess, sys, urllib.request
API = sys.argv[1]
def show(what, fn):
    try:
        print(f"  {what:<44} {fn()}")
    except Exception as e:
        print(f"  {what:<44} refused: {type(e).__name__}: {e}")
    sys.stdout.flush()

print("the job:")
task = json.load(urllib.request.urlopen(API + "/task.json", timeout=5))
show("fetch the task from the API", lambda: task["task"])
show("compute it", lambda: sum(n * n for n in task["numbers"]))
show("who am I", lambda: f"uid {os.getuid()}, {os.cpu_count()} CPU, kernel {os.uname().release}")
show("write scratch files", lambda: open("/tmp/scratch", "w").write("x" * 4096) and "ok")

print("then, injected:")
show("read /etc/shadow", lambda: open("/etc/shadow").read()[:20])
show("climb out via /proc/1/root/../..", lambda: "lands in its own / (" + ", ".join(sorted(os.listdir("/proc/1/root/../.."))[:3]) + ", ...)")
show("look for the host's processes", lambda: f"{len([p for p in os.listdir('/proc') if p.isdigit()])} visible, all its own")
show("read ~/.aws/credentials (a planted decoy)", lambda: open("/home/agent/.aws/credentials").read().split()[0])
show("reach another address (203.0.113.7:443)", lambda: socket.create_connection(("203.0.113.7", 443), timeout=3))
show("DNS (8.8.8.8:53)", lambda: socket.create_connection(("8.8.8.8", 53), timeout=3))
show("mount a filesystem", lambda: subprocess.run(["mount", "-t", "tmpfs", "x", "/mnt"], capture_output=True, text=True).stderr.strip() or "mounted")
def forkbomb():
    kids = []
    try:
        for _ in range(10000):
            pid = os.fork()
            if pid == 0:
                try:
                    os.pause()
                finally:
                    os._exit(0)
            kids.append(pid)
    finally:
        n = len(kids)
        for k in kids:
            os.kill(k, 9)
            os.waitpid(k, 0)
    return f"{n} forks"
show("fork-bomb", lambda: f"stopped after {forkbomb()}")
def fill():
    n = 0
    with open("/tmp/fill", "wb") as f:
        while True:
            f.write(b"\0" * (1 << 20)); f.flush(); n += 1
show("fill the disk", fill)
print("  run forever ...", flush=True)
import time
time.sleep(3600)
PY
rt spec --agent --bundle "$work/bundle"
jq --arg r "$rootfs" --arg api "http://127.0.0.1:$port" --arg py "$work/agent.py" '
    .root.path = $r | .hostname = "agent"
  | .process.args = ["python3", "/tmp/agent.py", $api] | .process.terminal = false
  | .mounts += [{"destination": "/tmp/agent.py", "type": "bind", "source": $py, "options": ["bind", "ro"]}]' \
  "$work/bundle/config.json" >"$work/c.json"
mv "$work/c.json" "$work/bundle/config.json"
echo "agentrt run --agent --net-allow 127.0.0.1:$port --timeout 20s --disk 32m --canary /home/agent/.aws/credentials"

say "the run"
status=0
rt run --keep --net-allow "127.0.0.1:$port" --timeout 20s --disk 32m --canary /home/agent/.aws/credentials \
  --bundle "$work/bundle" demo || status=$?
echo "  -> ended with status $status ($(rt state demo 2>/dev/null | jq -r '.annotations["io.agentrt.stop.reason"] // "exited"'))"

say "the audit log's alerts and denials"
rt audit --json demo 2>/dev/null | jq -r 'select(.severity == "alert" or .verdict == "deny" or .event != null)
  | "  \(.severity)\t\(.syscall // .event)\t\(.rule // .verdict // "")\t\(.args.addr.address // .args.target // .detail // "")"' | sort | uniq -c | sort -rn
echo "  alerts counted: $(rt state demo 2>/dev/null | jq -r '.annotations["io.agentrt.audit.alerts"]')"
rt delete demo 2>/dev/null || true

say "nothing is left behind"
echo "containers under --root: $(rt list -q | wc -l)"
echo "cgroups left: $(find /sys/fs/cgroup -path '*agentrt/demo' 2>/dev/null | wc -l)"
echo "the Debian rootfs is unchanged: $(test ! -e "$rootfs/tmp/scratch" && echo yes || echo NO)"
