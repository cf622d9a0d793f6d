#!/usr/bin/env bats
# The Debian package (debian/, issue 18): built with dpkg-buildpackage from what `make dist`
# ships (tests/lib/deb.sh), held to lintian, then installed with apt into a clean Debian 12 (an
# overlay over the cached debootstrap'ed minbase of tests/lib/debian.sh, which stays as built)
# and used from the installed files only: /usr/bin/agentrt, its man pages, its completion, its
# conffile, and the demo's sandbox (the agent profile with an ephemeral rootfs, a deadline and
# a canary).  Podman through the installed drop-in is tests/systemd.bats' (its guest has Podman).
load helpers
source "$BATS_TEST_DIRNAME/lib/deb.sh"

setup_file() {
  local t0 t1
  export DEB_DIR=$BATS_FILE_TMPDIR/debian DEB DEB_LOWER DEB_BUILD_SECONDS DEB_INSTALL_SECONDS
  t0=$(date +%s.%N)
  DEB=$(deb_package)
  t1=$(date +%s.%N)
  DEB_BUILD_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  DEB_LOWER=$(debian_rootfs)
  mkdir -p "$DEB_DIR"/{upper,work,root,pkg}
  cp "$DEB" "$DEB_DIR/pkg/"
  # apt with the lists debootstrap left, which name what the mirror had then: after a point
  # release some are gone, and one `apt-get update` brings them up to date.
  t0=$(date +%s.%N)
  in_debian 'export DEBIAN_FRONTEND=noninteractive
    i() { apt-get install -y -q --no-install-recommends /srv/pkg/agentrt_*.deb man-db; }
    i || { apt-get update -q && i; }' >"$DEB_DIR/install.log" 2>&1 || {
    tail -n 30 "$DEB_DIR/install.log" >&2
    return 1
  }
  t1=$(date +%s.%N)
  DEB_INSTALL_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

# in_debian SCRIPT: SCRIPT (bash -c) as root in that Debian 12, in a mount namespace of its own
# (the overlay and every mount made for it go when SCRIPT ends), entered with pivot_root and not
# chroot: in a chroot no user namespace can be made, and the agent profile makes one.  The cached
# rootfs is also the sandbox's rootfs, read-only at /srv/rootfs.
in_debian() {
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare --mount --propagation private --fork /bin/bash -c '
    set -e
    d=$1 lower=$2 r=$1/root
    mount -t overlay overlay -o "lowerdir=$lower,upperdir=$d/upper,workdir=$d/work" "$r"
    mkdir -p "$r/srv/rootfs" "$r/srv/pkg" "$r/.old"
    mount --rbind /dev "$r/dev"
    mount -t proc proc "$r/proc"
    mount --rbind /sys "$r/sys"
    mount -t tmpfs -o mode=0755 tmpfs "$r/run"
    mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
    mount --bind -o ro "$lower" "$r/srv/rootfs"
    mount --bind -o ro "$d/pkg" "$r/srv/pkg"
    cp /etc/resolv.conf "$r/etc/resolv.conf"
    cd "$r"
    pivot_root . .old
    umount -l /.old
    cd /
    exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 /bin/bash -c "$3"
  ' in_debian "$DEB_DIR" "$DEB_LOWER" "$1"
}

@test "deb: dpkg-buildpackage builds the package from the make dist tree (and what it costs)" {
  echo "# build ${DEB_BUILD_SECONDS}s (0 when another file of this run built it), apt install ${DEB_INSTALL_SECONDS}s" >&3
  # dpkg-deb and lintian leave directories in TMPDIR (dpkg-deb.*, mldbm-elf-*): ours, not /tmp.
  TMPDIR=$BATS_FILE_TMPDIR dpkg-deb --info "$DEB" | grep -q "Package: agentrt"
  # Debian's build flags reached the compiler: FORTIFY's checked functions are linked.
  TMPDIR=$BATS_FILE_TMPDIR dpkg-deb --fsys-tarfile "$DEB" |
    tar -xO ./usr/bin/agentrt >"$BATS_FILE_TMPDIR/agentrt.bin"
  nm -D "$BATS_FILE_TMPDIR/agentrt.bin" | grep -q "__.*_chk"
}

@test "deb: lintian reports no error and no warning" {
  command -v lintian >/dev/null || {
    echo "lintian is not installed: run tools/install-deps.sh --tests" >&2
    return 1
  }
  run env TMPDIR="$BATS_FILE_TMPDIR" lintian --fail-on error,warning --info "$DEB"
  echo "$output"
  [ "$status" -eq 0 ]
  # Nothing but the note that it runs as root.
  [ -z "$(grep -v 'running with root privileges' <<<"$output")" ]
}

@test "deb: the package's files are where Debian has them, and agentrt --version runs from /usr/bin" {
  run in_debian 'dpkg -s agentrt | sed -n "s/^Status: //p"; command -v agentrt; agentrt --version'
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "install ok installed" ]
  [ "${lines[1]}" = /usr/bin/agentrt ]
  [[ "${lines[2]}" == "agentrt version 0.1.0"* ]]
  # The commit of the tree the package was built from (make dist's .tarball-version).
  [[ "$output" == *"commit: $(sh "$BATS_TEST_DIRNAME/../tools/version.sh" "$BATS_TEST_DIRNAME/.." "${GIT_COMMIT:-}")"* ]]
}

@test "deb: man -w agentrt and man agentrt-run find and render the installed pages" {
  run in_debian 'man -w agentrt; man -w agentrt-run; man -w 5 agentrt.conf; man -w 7 agentrt-policy
    MANWIDTH=80 man agentrt-run 2>&1 | head -n 3'
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = /usr/share/man/man8/agentrt.8.gz ]
  [ "${lines[1]}" = /usr/share/man/man8/agentrt-run.8.gz ]
  [ "${lines[2]}" = /usr/share/man/man5/agentrt.conf.5.gz ]
  [ "${lines[3]}" = /usr/share/man/man7/agentrt-policy.7.gz ]
  [[ "${lines[4]}" == "AGENTRT-RUN(8)"* ]]
}

@test "deb: bash completion from the installed file completes agentrt's commands" {
  # bash-completion itself is not in minbase: the installed file alone, as its loader sources it.
  run in_debian '. /usr/share/bash-completion/completions/agentrt
    f=$(complete -p agentrt | sed -n "s/.*-F \([^ ]*\) agentrt$/\1/p")
    COMP_WORDS=(agentrt ru); COMP_CWORD=1; COMP_LINE="agentrt ru"; COMP_POINT=10
    "$f" agentrt ru agentrt; printf "%s\n" "${COMPREPLY[@]}"'
  echo "$output"
  [ "$status" -eq 0 ]
  [[ " ${lines[*]} " == *" run "* ]]
  [[ " ${lines[*]} " != *" start "* ]]
  run in_debian 'ls /usr/share/zsh/vendor-completions/_agentrt /usr/share/fish/vendor_completions.d/agentrt.fish'
  [ "$status" -eq 0 ]
}

@test "deb: /etc/agentrt/agentrt.conf is a conffile, read by default; the drop-ins name /usr/bin/agentrt" {
  run in_debian 'dpkg-query -W -f="\${Conffiles}\n" agentrt
    stat -c "%U %a" /etc/agentrt/agentrt.conf
    sed -n "s/^agentrt = //p" /usr/share/agentrt/podman/containers.conf
    sed -n "s/^ *BinaryName = //p" /usr/share/agentrt/kubernetes/containerd-agentrt.toml
    cp -p /etc/agentrt/agentrt.conf /run/conf.orig
    echo "bogus = 1" >>/etc/agentrt/agentrt.conf
    agentrt --root /run/t create -b /nonexistent x 2>&1 || true
    mv /run/conf.orig /etc/agentrt/agentrt.conf'
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == " /etc/agentrt/agentrt.conf "* ]]
  [ "${lines[1]}" = "root 644" ]
  [ "${lines[2]}" = '["/usr/bin/agentrt"]' ]
  [ "${lines[3]}" = '"/usr/bin/agentrt"' ]
  [[ "${lines[4]}" == *"/etc/agentrt/agentrt.conf:"*": unknown key \`bogus\`"* ]]
}

# The demo's (demo/demo.sh) sandbox without its network part: a Python script under the agent
# profile in the Debian rootfs, with the demo's deadline, disk cap and canary, run by the
# installed agentrt with the installed (commented) agentrt.conf.
@test "deb: the demo's sandbox runs from the installed files: agent profile, ephemeral rootfs, deadline, canary" {
  cat >"$DEB_DIR/pkg/agent.py" <<'PY'
import os, socket
def show(what, fn):
    try:
        print(what, fn())
    except Exception as e:
        print(what, "refused:", type(e).__name__)
show("uid", lambda: os.getuid())
show("release", lambda: os.uname().release)
show("scratch", lambda: open("/tmp/scratch", "w").write("x" * 4096))
show("net", lambda: socket.create_connection(("203.0.113.7", 443), timeout=3))
show("fork", lambda: [os.fork() or os._exit(0) for _ in range(300)] and "all")
show("canary", lambda: open("/home/agent/.aws/credentials").read()[:4])
PY
  run in_debian 'set -e
    mkdir /tmp/b && cd /tmp/b && agentrt spec --agent
    python3 - <<PY
import json
c = json.load(open("config.json"))
c["root"]["path"] = "/srv/rootfs"
c["process"]["args"] = ["python3", "/srv/pkg/agent.py"]
c["process"]["terminal"] = False
c["mounts"].append({"destination": "/srv/pkg", "type": "bind", "source": "/srv/pkg", "options": ["bind", "ro"]})
json.dump(c, open("config.json", "w"))
PY
    agentrt run --keep --timeout 20s --disk 32m --canary /home/agent/.aws/credentials -b /tmp/b demo
    agentrt state demo | python3 -c "import json, sys; print(\"profile\", json.load(sys.stdin)[\"annotations\"][\"io.agentrt.profile\"])"
    agentrt audit --json demo | grep -c "\"severity\":\"alert\"" | sed "s/^/alerts /"
    agentrt delete demo
    echo "left $(agentrt list -q | wc -l)"
    test ! -e /srv/rootfs/tmp/scratch && echo "rootfs unchanged"'
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"uid 0"* ]]
  [[ "$output" == *"release 6.1.0-agentrt"* ]]
  [[ "$output" == *"scratch 4096"* ]]
  # A loopback-only network namespace, the profile's 256 pids.
  [[ "$output" == *"net refused: OSError"* ]]
  [[ "$output" == *"fork refused: BlockingIOError"* ]]
  [[ "$output" == *"profile agent"* ]]
  [[ "$output" != *"alerts 0"* ]]
  [[ "$output" == *"left 0"* ]]
  [[ "$output" == *"rootfs unchanged"* ]]
}
