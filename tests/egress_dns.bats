#!/usr/bin/env bats
# Egress by name (issue 16): the sandbox's resolver, allowlists of names and wildcards, pinned
# answers, live updates, the denials the workload reads and `audit --suggest`.  The "upstream"
# is the tests' own DNS server on the host's loopback (tests/lib/dns_server.py), named by
# agentrt.conf's dns_servers, with CDN-like answers: several addresses, short TTLs, a CNAME to
# another domain, rotating answers.  Web servers on loopback addresses stand behind the names.
# The operator's --net-allow with agentrt.conf's dns_host_answers = allow lets a name's answers
# be the host's loopback (config.json's could not, nor the list alone).  Nothing leaves the machine: every server is started here and stopped by pid.
load helpers

setup() {
  setup_busybox
  SERVER_PIDS=()
  AUDIT="$ROOT/audit.jsonl"
  dns_up
}
teardown() {
  servers_stop
  teardown_root
}

# dns_up: the upstream, and $ROOT/agentrt.conf naming it.  DNS_LOG gets each query it saw.
dns_up() {
  cat >"$ROOT/zone.json" <<'EOF'
{"pypi.test": {"a": ["127.0.0.21"], "ttl": 2},
 "files.test": {"cname": "edge.cdn-example.test", "ttl": 30},
 "edge.cdn-example.test": {"a": ["127.0.0.31", "127.0.0.32", "127.0.0.33"], "ttl": 1, "pick": 2},
 "a.mirror.test": {"a": ["127.0.0.35"], "ttl": 60},
 "b.mirror.test": {"a": ["127.0.0.36"], "ttl": 60},
 "evil.test": {"a": ["127.0.0.41"], "ttl": 60},
 "far.test": {"a": ["192.0.2.10"], "ttl": 60},
 "shared.test": {"a": ["127.0.0.21"], "ttl": 60},
 "meta.test": {"a": ["169.254.169.254", "192.0.2.10", "0.0.0.0"], "aaaa": ["fe80::1", "fd00:ec2::254"], "ttl": 60},
 "lo.test": {"a": ["127.0.0.21"], "ttl": 60},
 "registry.test": {"a": ["127.0.0.21"], "ttl": 60},
 "code.test": {"a": ["127.0.0.21"], "ttl": 60},
 "*.many.test": {"hashed": true, "ttl": 60}}
EOF
  DNS_LOG=$ROOT/dns.log
  python3 "$BATS_TEST_DIRNAME/lib/dns_server.py" "$ROOT/zone.json" "$ROOT/dns.port" "$DNS_LOG" \
    </dev/null >/dev/null 2>&1 3>&- &
  SERVER_PIDS+=($!)
  wait_for "the DNS server" test -s "$ROOT/dns.port"
  DNS_PORT=$(cat "$ROOT/dns.port")
  # The tests' servers are on the host's loopback: the operator lets names resolve to it.
  printf 'dns_servers = 127.0.0.1:%s\ndns_host_answers = allow\n' "$DNS_PORT" >"$ROOT/agentrt.conf"
  chmod 0600 "$ROOT/agentrt.conf"
}

# http_up ADDR…: a web server on those addresses serving $ROOT/www (HTTP_PORT).
http_up() {
  mkdir -p "$ROOT/www"
  echo "hello from the index" >"$ROOT/www/index.txt"
  python3 "$BATS_TEST_DIRNAME/lib/http_server.py" "$ROOT/www" "$ROOT/http.port" "$@" \
    </dev/null >/dev/null 2>&1 3>&- &
  SERVER_PIDS+=($!)
  wait_for "the web server" test -s "$ROOT/http.port"
  HTTP_PORT=$(cat "$ROOT/http.port")
  rm -f "$ROOT/http.port"
}

in_container() { update_config --arg c "$1" '.process.args = ["/bin/sh", "-c", $c]'; }

# run_allowed LIST [AGENTRT-ARGS…]: run the bundle with --net-allow LIST, the upstream above.
run_allowed() {
  local list=$1
  shift
  agentrt --config "$ROOT/agentrt.conf" run --audit-log "$AUDIT" --net-allow "$list" "$@" \
    -b "$BUNDLE" "$CID"
}

# debian_bundle: the cached Debian rootfs, read-only, with an overlay so that what create
# mounts (/etc/hosts, /etc/resolv.conf, /run/agentrt/denials) never writes into the cache.
debian_bundle() {
  local rootfs
  rootfs=$(debian_rootfs)
  update_config --arg r "$rootfs" '.root = {path: $r, readonly: false}'
}

@test "egress dns: an allowed name resolves through the sandbox's resolver (busybox), CNAMEs too, and is reached" {
  http_up 127.0.0.21 127.0.0.31 127.0.0.32 127.0.0.33
  in_container "cat /etc/resolv.conf /etc/hosts; nslookup files.test; wget -q -O- http://pypi.test:$HTTP_PORT/whoami; wget -q -O- http://files.test:$HTTP_PORT/whoami"
  run_allowed "pypi.test:$HTTP_PORT,files.test:$HTTP_PORT"
  [ "$status" -eq 0 ]
  # The container's DNS is the supervisor's; /etc/hosts has localhost only.
  [[ "$output" == "nameserver 127.0.0.53"* ]]
  [ "$(grep -c localhost <<<"$output")" -eq 2 ]
  ! grep -q pypi.test <<<"$(sed -n '2,3p' <<<"$output")"
  [[ "$output" == *"files.test"*"canonical name = edge.cdn-example.test"* ]]
  [[ "$output" == *"127.0.0.21 pypi.test:$HTTP_PORT"* ]]
  [[ "$output" =~ 127\.0\.0\.3[123]\ files\.test:$HTTP_PORT ]]
  # Each connect is recorded under the name and the entry that allowed it (a CNAME's target is
  # the CDN's, never listed: the question's name is what the pin keeps).
  grep '"rule":"egress-allow"' "$AUDIT" | grep -q '"name":"files.test","entry":"files.test:'"$HTTP_PORT"'"'
  grep '"rule":"egress-allow"' "$AUDIT" | grep -q '"name":"pypi.test"'
}

@test "egress dns: a name not on the list is NXDOMAIN at once, audited, in the denials file, and asked for by --suggest" {
  http_up 127.0.0.21 127.0.0.41
  in_container "nslookup evil.test; echo rc=\$?; wget -q -O- http://evil.test:$HTTP_PORT/ 2>&1; nc 192.0.2.7 80 </dev/null 2>&1; echo nc=\$?; nc far.test 1 </dev/null 2>&1; cat /run/agentrt/denials; ls -l /run/agentrt/denials; echo x >/run/agentrt/denials || echo read-only"
  run_allowed "pypi.test:$HTTP_PORT,far.test:$HTTP_PORT" --keep
  [ "$status" -eq 0 ]
  [[ "$output" == *"NXDOMAIN"* ]] || [[ "$output" == *"can't find evil.test"* ]]
  [[ "$output" == *"rc=1"* ]]
  [[ "$output" == *"bad address 'evil.test"* ]]
  # An address no allowed name resolved to: unreachable, as the loopback-only namespace says.
  [[ "$output" == *"Network is unreachable"* ]] && [[ "$output" == *"nc=1"* ]]
  [[ "$output" != *"(192.0.2.10)"*"unreachable"* ]]
  # An allowed name on another port: refused, as a host that is up refuses a closed port.
  [[ "$output" == *"Connection refused"* ]]
  # The upstream never saw the refused name.
  ! grep -q evil.test "$DNS_LOG"
  # The workload reads why, and what to ask for, without privileges; it cannot write it.
  grep -E "dns evil.test NXDOMAIN not-listed ask: evil.test:\*" <<<"$output"
  grep -E "connect 192.0.2.7:80 ENETUNREACH unknown ask: 192.0.2.7:80" <<<"$output"
  grep -E "connect 192.0.2.10:1\(far.test\) ECONNREFUSED port ask: far.test:1" <<<"$output"
  # A query asked again (A, AAAA, retries) is one line.
  [ "$(grep -c "dns evil.test" <<<"$output")" -eq 1 ]
  [[ "$output" == *"read-only"* ]]
  grep '"event":"dns"' "$AUDIT" | grep '"name":"evil.test"' | grep -q '"verdict":"deny"'
  grep '"rule":"egress-deny"' "$AUDIT" | grep '"address":"192.0.2.10"' | grep -q '"reason":"port"'
  run __agentrt audit "$CID" --suggest
  [ "$status" -eq 0 ]
  [ "$output" = "evil.test:*,192.0.2.7:80,far.test:1" ]
}

@test "egress dns: wildcards match names below, not the name itself, and ports are per entry" {
  http_up 127.0.0.35 127.0.0.36
  in_container "wget -q -O- http://a.mirror.test:$HTTP_PORT/whoami; wget -q -O- http://b.mirror.test:$HTTP_PORT/whoami; nslookup mirror.test; echo rc=\$?"
  run_allowed "*.mirror.test:$((HTTP_PORT - 1))-$((HTTP_PORT + 1))"
  [ "$status" -eq 0 ]
  [[ "$output" == *"127.0.0.35 a.mirror.test"* ]]
  [[ "$output" == *"127.0.0.36 b.mirror.test"* ]]
  [[ "$output" == *"rc=1"* ]]
  grep '"rule":"egress-allow"' "$AUDIT" | grep -q '"entry":"\*.mirror.test:'
}

@test "egress dns: glibc (python3, getent) resolves, the cache honours the TTL, HTTPS is NODATA, TCP works" {
  debian_bundle
  http_up 127.0.0.21
  in_container "getent hosts pypi.test; python3 -c '
import socket, struct, time, urllib.request
print(sorted({a[4][0] for a in socket.getaddrinfo(\"files.test\", 80)}))
print(urllib.request.urlopen(\"http://pypi.test:$HTTP_PORT/index.txt\", timeout=5).read().decode().strip())
def query(name, qtype, tcp=False):
    q = struct.pack(\">HHHHHH\", 7, 0x100, 1, 0, 0, 0) + b\"\".join(bytes([len(l)]) + l.encode() for l in name.split(\".\")) + b\"\\0\" + struct.pack(\">HH\", qtype, 1)
    if tcp:
        s = socket.create_connection((\"127.0.0.53\", 53), timeout=3)
        s.sendall(struct.pack(\">H\", len(q)) + q)
        r = s.recv(4096)[2:]
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(3)
        s.sendto(q, (\"127.0.0.53\", 53))
        r = s.recv(4096)
    flags, qd, an = struct.unpack(\">HHH\", r[2:8])
    return \"rcode=%d answers=%d\" % (flags & 15, an)
print(\"https\", query(\"pypi.test\", 65))
print(\"tcp\", query(\"pypi.test\", 1, True))
print(\"denied\", query(\"evil.test\", 1))
for i in range(3):
    socket.getaddrinfo(\"pypi.test\", 80, socket.AF_INET)
time.sleep(3)
socket.getaddrinfo(\"pypi.test\", 80, socket.AF_INET)
'"
  run_allowed "pypi.test:$HTTP_PORT,files.test:80" --ephemeral
  [ "$status" -eq 0 ]
  [[ "$output" == "127.0.0.21"*"pypi.test"* ]]
  [[ "$output" =~ \[\'127\.0\.0\.3[123]\',\ \'127\.0\.0\.3[123]\'\] ]]
  [[ "$output" == *"hello from the index"* ]]
  [[ "$output" == *"https rcode=0 answers=0"* ]]
  [[ "$output" == *"tcp rcode=0 answers=1"* ]]
  [[ "$output" == *"denied rcode=3 answers=0"* ]]
  # pypi.test's TTL is 2 s: the three look-ups within it were answered from the cache (getent,
  # urllib and the TCP query asked too: 3 at most before), the one after it went upstream.
  local n
  n=$(grep -c '^pypi.test A$' "$DNS_LOG")
  [ "$n" -ge 2 ] && [ "$n" -le 4 ]
  ! grep -q '^pypi.test HTTPS$' "$DNS_LOG"
}

@test "egress dns: pip installs from an allowed index by name, and is denied another index by name" {
  debian_bundle
  mkdir -p "$ROOT/www/simple/agentpkg"
  python3 - "$ROOT/www" <<'PY'
import base64, hashlib, sys, zipfile
root = sys.argv[1]
files = {"agentpkg/__init__.py": b"WHERE = 'the allowed index'\n",
         "agentpkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: agentpkg\nVersion: 1.0\n",
         "agentpkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: agentrt-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = ""
for name, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (name, digest, len(data))
record += "agentpkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(root + "/agentpkg-1.0-py3-none-any.whl", "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
    z.writestr("agentpkg-1.0.dist-info/RECORD", record)
open(root + "/simple/agentpkg/index.html", "w").write(
    '<a href="../../agentpkg-1.0-py3-none-any.whl">agentpkg-1.0-py3-none-any.whl</a>\n')
PY
  http_up 127.0.0.21 127.0.0.41
  in_container "pip install --no-cache-dir --disable-pip-version-check --target /tmp/site --trusted-host pypi.test --index-url http://pypi.test:$HTTP_PORT/simple/ agentpkg 2>&1 | grep -E 'Successfully|ERROR'; PYTHONPATH=/tmp/site python3 -c 'import agentpkg; print(agentpkg.WHERE)'; pip install --no-cache-dir --disable-pip-version-check --retries 0 --target /tmp/other --trusted-host evil.test --index-url http://evil.test:$HTTP_PORT/simple/ agentpkg 2>&1 | tail -2; cat /run/agentrt/denials"
  run_allowed "pypi.test:$HTTP_PORT" --ephemeral
  [ "$status" -eq 0 ]
  [[ "$output" == *"Successfully installed agentpkg-1.0"* ]]
  [[ "$output" == *"the allowed index"* ]]
  [[ "$output" == *"No matching distribution found for agentpkg"* ]]
  [[ "$output" == *"dns evil.test NXDOMAIN not-listed ask: evil.test:*"* ]]
  grep -q "GET /simple/agentpkg/" "$ROOT/http.log"
  ! grep -q "^127.0.0.41" "$ROOT/http.log"
}

@test "egress dns: Node's dns.lookup (libc) and dns.resolve (c-ares) use the sandbox's resolver" {
  command -v node >/dev/null || skip "node is not installed (tools/install-deps.sh --tests)"
  debian_bundle
  mkdir -p "$ROOT/nodebin"
  cp "$(command -v node)" "$ROOT/nodebin/node"
  update_config --arg n "$ROOT/nodebin" '.mounts += [{destination: "/usr/local/bin", type: "bind", source: $n, options: ["rbind", "ro"]}]'
  in_container "node -e '
const dns = require(\"dns\");
dns.lookup(\"pypi.test\", (e, a) => console.log(\"lookup\", e ? e.code : a));
dns.resolve4(\"files.test\", (e, a) => console.log(\"resolve4\", e ? e.code : a.length));
dns.resolve4(\"evil.test\", (e, a) => console.log(\"denied\", e ? e.code : a));
'"
  run_allowed "pypi.test:443,files.test:443" --ephemeral
  [ "$status" -eq 0 ]
  [[ "$output" == *"lookup 127.0.0.21"* ]]
  [[ "$output" == *"resolve4 2"* ]]
  [[ "$output" == *"denied ENOTFOUND"* ]]
}

@test "egress dns: npm installs from an allowed registry whose tarballs are on a CDN's name, and is denied another registry by name" {
  command -v node >/dev/null || skip "node is not installed (tools/install-deps.sh --tests)"
  local npm
  npm=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  [ -f "$npm/bin/npm-cli.js" ] || skip "npm is not installed (tools/install-deps.sh --tests)"
  debian_bundle
  mkdir -p "$ROOT/nodebin"
  cp "$(command -v node)" "$ROOT/nodebin/node"
  update_config --arg n "$ROOT/nodebin" --arg m "$npm" '.mounts += [
      {destination: "/usr/local/bin", type: "bind", source: $n, options: ["rbind", "ro"]},
      {destination: "/opt/npm", type: "bind", source: $m, options: ["rbind", "ro"]}]'
  http_up 127.0.0.21 127.0.0.31 127.0.0.32 127.0.0.33
  # The registry's metadata on registry.test, its tarball on files.test (a CNAME to a CDN's
  # name with rotating answers), as npmjs.org's are on registry.npmjs.org and a CDN.
  python3 - "$ROOT/www" "files.test:$HTTP_PORT" <<'PY'
import base64, hashlib, io, json, sys, tarfile
root, files_host = sys.argv[1], sys.argv[2]
files = {"package/package.json": json.dumps({"name": "agentpkg", "version": "1.0.0", "main": "index.js"}).encode(),
         "package/index.js": b"module.exports = 'the allowed registry';\n"}
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for n, d in files.items():
        i = tarfile.TarInfo(n)
        i.size, i.mode = len(d), 0o644
        t.addfile(i, io.BytesIO(d))
tgz = buf.getvalue()
open(root + "/agentpkg-1.0.0.tgz", "wb").write(tgz)
dist = {"tarball": "http://%s/agentpkg-1.0.0.tgz" % files_host, "shasum": hashlib.sha1(tgz).hexdigest(),
        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}
json.dump({"name": "agentpkg", "dist-tags": {"latest": "1.0.0"},
           "versions": {"1.0.0": {"name": "agentpkg", "version": "1.0.0", "main": "index.js", "dist": dist}}},
          open(root + "/agentpkg", "w"))
PY
  in_container "mkdir -p /tmp/p && cd /tmp/p && export HOME=/tmp; npm() { node /opt/npm/bin/npm-cli.js --no-audit --no-fund --no-update-notifier --fetch-retries 0 --cache /tmp/npm-cache \"\$@\"; }; npm install --registry http://registry.test:$HTTP_PORT/ agentpkg 2>&1 | tail -2; node -e 'console.log(require(\"agentpkg\"))'; mkdir /tmp/q && cd /tmp/q && npm install --registry http://evil.test:$HTTP_PORT/ agentpkg 2>&1 | grep -m1 -o 'ENOTFOUND[^)]*'; cat /run/agentrt/denials"
  run_allowed "registry.test:$HTTP_PORT,files.test:$HTTP_PORT" --ephemeral
  [ "$status" -eq 0 ]
  [[ "$output" == *"added 1 package"* ]]
  [[ "$output" == *"the allowed registry"* ]]
  [[ "$output" == *"ENOTFOUND"* ]]
  [[ "$output" == *"dns evil.test NXDOMAIN not-listed ask: evil.test:*"* ]]
  grep -q "GET /agentpkg " "$ROOT/http.log"
  grep -qE "^127\.0\.0\.3[123] .*GET /agentpkg-1.0.0.tgz" "$ROOT/http.log"
  grep '"rule":"egress-allow"' "$AUDIT" | grep -q '"name":"files.test"'
  ! grep -q "^127.0.0.41" "$ROOT/http.log"
}

@test "egress dns: git clones from a code host only git may reach (@program), runc the control" {
  command -v git >/dev/null && [ -x /usr/lib/git-core/git-remote-http ] || skip "git is not installed"
  debian_bundle
  http_up 127.0.0.21
  # A repository over git's dumb HTTP protocol, served as files.
  git init -q "$ROOT/src"
  echo "cloned from the code host" >"$ROOT/src/README"
  git -C "$ROOT/src" add README
  git -C "$ROOT/src" -c user.name=t -c user.email=t@t commit -q -m one
  git clone -q --bare "$ROOT/src" "$ROOT/www/repo.git"
  git -C "$ROOT/www/repo.git" update-server-info
  # The host's git (Debian 12's, as the rootfs is) under /opt/git, with the libraries the rootfs
  # lacks: only /opt/git/ may reach the code host.
  mkdir -p "$ROOT/git/lib" "$ROOT/git/libexec"
  cp /usr/bin/git /usr/lib/git-core/git-remote-http "$ROOT/git/libexec/"
  ldd /usr/bin/git /usr/lib/git-core/git-remote-http | awk '$3 ~ /^\// { print $3 }' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|libresolv|librt)\.so' | xargs cp -L -t "$ROOT/git/lib"
  update_config --arg g "$ROOT/git" '.mounts += [{destination: "/opt/git", type: "bind", source: $g, options: ["rbind", "ro"]}]'
  in_container "export HOME=/tmp PATH=/opt/git/libexec:\$PATH LD_LIBRARY_PATH=/opt/git/lib GIT_EXEC_PATH=/opt/git/libexec; git clone -q http://code.test:$HTTP_PORT/repo.git /tmp/r 2>&1 && cat /tmp/r/README; python3 -c 'import urllib.request; urllib.request.urlopen(\"http://code.test:$HTTP_PORT/repo.git/HEAD\", timeout=5)' 2>&1 | tail -1; grep code.test /run/agentrt/denials"
  run_allowed "code.test:$HTTP_PORT@/opt/git/" --ephemeral
  [ "$status" -eq 0 ]
  [[ "$output" == *"cloned from the code host"* ]]
  [[ "$output" == *"Permission denied"* ]]
  [[ "$output" == *"EACCES program ask: code.test:$HTTP_PORT@/usr/bin/python3.11"* ]]
  grep '"rule":"egress-allow"' "$AUDIT" | grep '"name":"code.test"' | grep -q '"exe":"/opt/git/libexec/git-remote-http"'
  # runc, the control: with the host's network, nothing tells git from python.  (The cached
  # rootfs read-only, /tmp a tmpfs, git on /mnt, which the rootfs has: runc would make a missing
  # mount target in the cache.)
  update_config --arg g "$ROOT/git" '.linux.namespaces = [.linux.namespaces[] | select(.type != "network")]
    | .root.readonly = true
    | .mounts = [.mounts[] | select(.destination != "/opt/git")]
    | .mounts += [{destination: "/mnt", type: "bind", source: $g, options: ["rbind", "ro"]},
                  {destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev"]}]'
  in_container "export HOME=/tmp PATH=/mnt/libexec:\$PATH LD_LIBRARY_PATH=/mnt/lib GIT_EXEC_PATH=/mnt/libexec; git clone -q http://127.0.0.21:$HTTP_PORT/repo.git /tmp/r 2>&1 && cat /tmp/r/README; python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.21:$HTTP_PORT/repo.git/HEAD\", timeout=5).read().decode().strip())'"
  run runc --root "$ROOT/runc" run -b "$BUNDLE" "$CID-runc"
  echo "$output" >&2
  runc --root "$ROOT/runc" delete --force "$CID-runc" >/dev/null 2>&1 || true
  [[ "$output" == *"cloned from the code host"* ]]
  [[ "$output" == *"ref: refs/heads/"* ]]
}

@test "egress dns: Go's own resolver (CGO_ENABLED=0) uses the sandbox's resolver" {
  command -v go >/dev/null || skip "go is not installed (golang-go: tools/install-deps.sh --tests)"
  http_up 127.0.0.21
  mkdir -p "$ROOT/go"
  cat >"$ROOT/go/main.go" <<'EOF'
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
)

func main() {
	addrs, err := net.LookupHost("files.test")
	fmt.Println("lookup", len(addrs), err)
	_, err = net.LookupHost("evil.test")
	fmt.Println("denied", err)
	r, err := http.Get("http://pypi.test:" + os.Args[1] + "/whoami")
	if err != nil {
		fmt.Println("get", err)
		return
	}
	b, _ := io.ReadAll(r.Body)
	fmt.Print("get ", string(b))
}
EOF
  (cd "$ROOT/go" && CGO_ENABLED=0 GOCACHE="$ROOT/go/cache" GOPATH="$ROOT/go/path" GOFLAGS=-mod=mod \
    go build -o "$BUNDLE/rootfs/bin/golookup" main.go)
  update_config --arg p "$HTTP_PORT" '.process.args = ["/bin/golookup", $p]'
  run_allowed "pypi.test:$HTTP_PORT,files.test:443"
  [ "$status" -eq 0 ]
  [[ "$output" == *"lookup 2 <nil>"* ]]
  [[ "$output" == *"denied"*"evil.test"*"no such host"* ]]
  [[ "$output" == *"get 127.0.0.21 pypi.test:$HTTP_PORT"* ]]
}

@test "egress dns: a program's entry lets only that program connect (EACCES for others)" {
  http_up 127.0.0.21
  # A copy of busybox under another path (its applet is still its first argument).
  mkdir -p "$BUNDLE/rootfs/opt"
  cp "$BUNDLE/rootfs/bin/busybox" "$BUNDLE/rootfs/opt/busybox"
  in_container "/opt/busybox wget -q -O- http://pypi.test:$HTTP_PORT/whoami; wget -q -O- http://pypi.test:$HTTP_PORT/whoami; echo rc=\$?; cat /run/agentrt/denials"
  run_allowed "pypi.test:$HTTP_PORT@/opt/busybox"
  [ "$status" -eq 0 ]
  [[ "$output" == *"127.0.0.21 pypi.test:$HTTP_PORT"* ]]
  [[ "$output" == *"Permission denied"* ]] && [[ "$output" == *"rc=1"* ]]
  [[ "$output" == *"EACCES program ask: pypi.test:$HTTP_PORT@/bin/busybox"* ]]
  grep '"rule":"egress-deny"' "$AUDIT" | grep '"reason":"program"' | grep -q '"exe":"/bin/busybox"'
}

@test "egress dns: prctl(PR_SET_MM) is refused and audited in a container with an allowlist" {
  cat >"$ROOT/setmm.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
int main (void)
{
  /* PR_SET_MM_EXE_FILE with a bad fd: the kernel says EPERM (no CAP_SYS_RESOURCE) or EBADF.  */
  int r = prctl (PR_SET_MM, PR_SET_MM_EXE_FILE, -1, 0, 0);
  printf ("set_mm=%d errno=%s\n", r, r < 0 ? strerrorname_np (errno) : "0");
  printf ("get_name=%d\n", prctl (PR_GET_DUMPABLE, 0, 0, 0, 0) >= 0);
  return 0;
}
EOF
  gcc -static -O2 -o "$BUNDLE/rootfs/bin/setmm" "$ROOT/setmm.c"
  update_config '.process.args = ["/bin/setmm"]'
  agentrt --config "$ROOT/agentrt.conf" run --audit-log "$AUDIT" --net-allow "pypi.test:443" -b "$BUNDLE" "$CID"
  [[ "$output" == *"set_mm=-1 errno=EPERM"* ]] && [[ "$output" == *"get_name=1"* ]]
  grep '"syscall":"prctl"' "$AUDIT" | grep -q '"rule":"deny-prctl-set-mm"'
  # Without one, the kernel decides (EPERM too: no CAP_SYS_RESOURCE), and nothing is audited.
  rm -f "$AUDIT"
  agentrt run --audit-log "$AUDIT" -b "$BUNDLE" "$CID-b"
  [[ "$output" == *"set_mm=-1 errno=EPERM"* ]]
  ! grep -q '"syscall":"prctl"' "$AUDIT"
}

@test "egress dns: a name's answer of a metadata, link-local or unspecified address is never pinned; the host's loopback only with dns_host_answers" {
  http_up 127.0.0.21
  in_container "nslookup meta.test; echo leaked=\$(nslookup meta.test | grep -c -e 169.254 -e fe80 -e fd00 -e 0.0.0.0); nc 169.254.169.254 80 </dev/null 2>&1; echo nc=\$?; wget -q -O- http://lo.test:$HTTP_PORT/whoami; echo wget=\$?; cat /run/agentrt/denials"
  run_allowed "meta.test:80,lo.test:$HTTP_PORT"
  [ "$status" -eq 0 ]
  # The upstream said 169.254.169.254 (a cloud's metadata service), 0.0.0.0, fe80::1 and AWS's
  # fd00:ec2::254: the workload sees none of them, and a connect to one is unreachable.
  grep -q '^meta.test A$' "$DNS_LOG" && grep -q '^meta.test AAAA$' "$DNS_LOG"
  [[ "$output" == *"192.0.2.10"* ]]
  [[ "$output" == *"leaked=0"* ]]
  [[ "$output" == *"Network is unreachable"* ]] && [[ "$output" == *"nc=1"* ]]
  grep -E "connect 169.254.169.254:80 ENETUNREACH" <<<"$output"
  # The host's loopback, which the operator allowed for names (agentrt.conf), is reached.
  [[ "$output" == *"127.0.0.21 lo.test:$HTTP_PORT"* ]] && [[ "$output" == *"wget=0"* ]]
  # Without dns_host_answers, a name resolving to the host's loopback gets no address: the
  # host's services stay out of reach of whoever answers for a listed name (DNS rebinding).
  printf 'dns_servers = 127.0.0.1:%s\n' "$DNS_PORT" >"$ROOT/agentrt.conf"
  in_container "nslookup lo.test; wget -q -O- http://lo.test:$HTTP_PORT/whoami; echo wget=\$?; wget -q -O- http://127.0.0.21:$HTTP_PORT/whoami; echo direct=\$?"
  agentrt --config "$ROOT/agentrt.conf" run --net-allow "lo.test:$HTTP_PORT" -b "$BUNDLE" "$CID-b"
  [ "$status" -eq 0 ]
  [[ "$output" != *"127.0.0.21 lo.test"* ]]
  [[ "$output" != *"Address: 127.0.0.21"* ]]
  [[ "$output" == *"wget=1"* ]] && [[ "$output" == *"direct=1"* ]]
}

@test "egress dns: a hostile workload's malformed, huge and many queries leave the resolver answering, its own pins at worst evicted" {
  debian_bundle
  http_up 127.0.0.21
  cat >"$ROOT/abuse.py" <<'PY'
import errno, os, socket, struct, sys, time
R = ("127.0.0.53", 53)
def q(name, qtype=1, qid=7, flags=0x100, qd=1):
    return struct.pack(">HHHHHH", qid, flags, qd, 0, 0, 0) + b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack(">HH", qtype, 1)
def udp(msg, wait=2.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(wait)
    s.sendto(msg, R)
    try:
        r = s.recv(65535)
    except socket.timeout:
        return "none"
    finally:
        s.close()
    flags, qd, an = struct.unpack(">HHH", r[2:8])
    return "rcode=%d an=%d" % (flags & 15, an)
def ok(tag):
    t = time.monotonic()
    r = udp(q("pypi.test"))
    print(tag, r, "%.0fms" % ((time.monotonic() - t) * 1000), flush=True)
loop = struct.pack(">HHHHHH", 7, 0x100, 1, 0, 0, 0) + b"\xc0\x0c" + struct.pack(">HH", 1, 1)
bad = {"empty": b"", "short": b"\0" * 5, "loop": loop, "cut": q("pypi.test")[:-2],
       "trailing": q("pypi.test") + b"x" * 100, "huge": q("pypi.test") + b"x" * 60000,
       "response": q("pypi.test", flags=0x8100), "questions": q("pypi.test", qd=50),
       "label": q("a" * 64 + ".test"), "long": q(".".join(["a" * 63] * 5)), "opcode": q("pypi.test", flags=0x2900)}
for k, m in bad.items():
    try:
        print("bad", k, udp(m, 0.5), flush=True)
    except OSError as e:
        print("bad", k, "send", e.errno, flush=True)
ok("after-malformed")
# A flood of refused names, sent without waiting: each is NXDOMAIN, audited, at most.
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5000):
    s.sendto(q("x%d.evil.test" % i, qid=i), R)
s.close()
t = time.monotonic()
while udp(q("pypi.test"), 0.2) == "none":
    pass
print("flood-drained %.0fms" % ((time.monotonic() - t) * 1000), flush=True)
ok("after-flood")
# More TCP clients than the resolver serves at once, holding on: UDP goes on; a length that
# never comes, and a zero one, are let go.
held = [socket.create_connection(R, timeout=3) for _ in range(20)]
ok("tcp-held")
held[0].sendall(b"\xff\xff" + b"x" * 10)
held[1].sendall(b"\x00\x00")
for c in held:
    c.close()
time.sleep(0.5)
c = socket.create_connection(R, timeout=3)
m = q("pypi.test")
c.sendall(struct.pack(">H", len(m)) + m)
print("tcp-after", len(c.recv(4096)) > 12, flush=True)
c.close()
# The workload's own pins: connect, then more names than the table holds, then again.
a = socket.getaddrinfo("pypi.test", int(sys.argv[1]), socket.AF_INET, socket.SOCK_STREAM)[0][4]
socket.create_connection(a, timeout=3).close()
print("connect-before ok", flush=True)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
answered = 0
for i in range(1300):
    s.sendto(q("n%d.many.test" % i, qid=i), R)
    try:
        s.recv(4096)
        answered += 1
    except socket.timeout:
        pass
print("many answered", answered, flush=True)
try:
    socket.create_connection(a, timeout=3).close()
    print("connect-evicted ok", flush=True)
except OSError as e:
    print("connect-evicted", errno.errorcode[e.errno], flush=True)
a = socket.getaddrinfo("pypi.test", int(sys.argv[1]), socket.AF_INET, socket.SOCK_STREAM)[0][4]
socket.create_connection(a, timeout=3).close()
print("connect-again ok", flush=True)
PY
  update_config --arg r "$ROOT" '.mounts += [{destination: "/t", type: "bind", source: $r, options: ["rbind", "ro"]}]'
  update_config --arg p "$HTTP_PORT" '.process.args = ["python3", "/t/abuse.py", $p]'
  run_allowed "pypi.test:$HTTP_PORT,*.many.test:80" --ephemeral
  echo "$output" >&2
  [ "$status" -eq 0 ]
  # Malformed: FORMERR or NOTIMP for a query that has a header, nothing for less or a response.
  [[ "$output" == *"bad empty none"* ]] && [[ "$output" == *"bad short none"* ]]
  [[ "$output" == *"bad response none"* ]]
  [[ "$output" == *"bad loop rcode=1"* ]] && [[ "$output" == *"bad cut rcode=1"* ]]
  [[ "$output" == *"bad trailing rcode=1"* ]] && [[ "$output" == *"bad questions rcode=1"* ]]
  [[ "$output" == *"bad label rcode=1"* ]] && [[ "$output" == *"bad long rcode=1"* ]]
  [[ "$output" == *"bad opcode rcode=4"* ]]
  [[ "$output" =~ bad\ huge\ (rcode=1|none|send) ]]
  # Answered after each, well within a client's first timeout.
  local tag
  # A flood overflows the socket's buffer (the kernel drops what is over): a client's retry is
  # answered.
  [[ "$output" =~ flood-drained\ ([0-9]+)ms ]]
  [ "${BASH_REMATCH[1]}" -lt 2000 ]
  for tag in after-malformed after-flood tcp-held; do
    [[ "$output" =~ $tag\ rcode=0\ an=1\ ([0-9]+)ms ]]
    [ "${BASH_REMATCH[1]}" -lt 1000 ]
  done
  [[ "$output" == *"tcp-after True"* ]]
  # The flood is in the audit log, bounded by its rate.
  [ "$(stat -c %s "$AUDIT")" -lt $((4 << 20)) ]
  # A flood of allowed names evicts the workload's own pins (least recently used first): a
  # connect to an address resolved before is then refused (ENETUNREACH; here ECONNREFUSED, as a
  # loopback address no pin holds is the container's own), until the name is resolved again.
  # Only the workload's own names are at stake: the table is its sandbox's.
  [[ "$output" == *"connect-before ok"* ]]
  [[ "$output" =~ many\ answered\ 1[23][0-9][0-9] ]]
  [[ "$output" == *"connect-evicted ECONNREFUSED"* ]]
  [[ "$output" == *"connect-again ok"* ]]
}

@test "agentrt update --net-allow-remove shuts a brokered connection down at once; --net-allow-add opens a name" {
  python3 - "$ROOT/hold.port" <<'PY' >"$ROOT/hold.log" 2>&1 3>&- &
import os, socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.21", 0))
s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def hold(c):
    c.sendall(b"hello\n")
    while c.recv(100):
        pass
    print("closed", flush=True)
while True:
    c, _ = s.accept()
    threading.Thread(target=hold, args=(c,), daemon=True).start()
PY
  SERVER_PIDS+=($!)
  wait_for "the holding server" test -s "$ROOT/hold.port"
  local port
  port=$(cat "$ROOT/hold.port")
  in_container "nc pypi.test $port; echo nc-ended; nslookup evil.test >/dev/null && echo evil-resolves; sleep 30"
  agentrt_detached --config "$ROOT/agentrt.conf" run -d --audit-log "$AUDIT" \
    --net-allow "pypi.test:$port,evil.test:80" -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  wait_for "the connection" grep -q hello "$ROOT/stdio.log"
  agentrt update --net-allow-remove "pypi.test:$port" "$CID"
  [ "$status" -eq 0 ]
  wait_for "the end of the connection" grep -q nc-ended "$ROOT/stdio.log"
  wait_for "the server to see it" grep -q closed "$ROOT/hold.log"
  grep '"event":"egress-policy"' "$AUDIT" | grep -q "is now \`evil.test:80\`"
  grep '"event":"egress-revoke"' "$AUDIT" | grep -q "127.0.0.21:$port (pypi.test)"
  wait_for "evil.test resolving" grep -q evil-resolves "$ROOT/stdio.log"
  # An entry not on the list cannot be removed; a bad list changes nothing.
  agentrt update --net-allow-remove "pypi.test:$port" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"\`pypi.test:$port\` is not on the list"* ]]
  agentrt update --net-allow "x:y" "$CID"
  [ "$status" -ne 0 ]
  [[ "$output" == *"--net-allow"* ]]
  agentrt update --net-allow-add "*.mirror.test:443" "$CID"
  [ "$status" -eq 0 ]
  grep '"event":"egress-policy"' "$AUDIT" | grep -q 'is now `evil.test:80,\*.mirror.test:443`'
}

@test "agentrt update --timeout moves the deadline later and sooner" {
  update_config '.process.args = ["sleep", "60"]'
  agentrt_detached run -d --timeout 2s -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt update --timeout 30s "$CID"
  [ "$status" -eq 0 ]
  sleep 3
  [ "$(__agentrt state "$CID" | jq -r .status)" = running ]
  agentrt update --timeout +1s "$CID"
  [ "$status" -eq 0 ]
  wait_for "the deadline" sh -c "[ \"\$(\"$AGENTRT\" --root \"$ROOT/state\" state \"$CID\" | jq -r .status)\" = stopped ]"
  [ "$(__agentrt state "$CID" | jq -r '.annotations["io.agentrt.stop.reason"]')" = timeout ]
  grep -q '"event":"timeout-changed"' "$ROOT/state/$CID/audit.jsonl"
  agentrt update --timeout bogus "$CID"
  [ "$status" -ne 0 ]
}
