#!/usr/bin/env bats
# User-namespaced containers wherever their bundle is (issue 15): the rootfs and the bind
# sources are reached with the runtime's credentials, not by a path walk of the container's
# root, which is an unprivileged host uid; idmapped mounts (runtime-spec 1.2).
load helpers

setup() {
  setup_busybox
  update_config '.linux.namespaces += [{"type": "user"}]
    | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
    | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
}
# A second --root (the owner tests): its containers are removed too.
teardown() {
  local c
  if [ -n "${ROOT:-}" ]; then
    for c in $("$AGENTRT" --root "$ROOT/state2" list -q 2>/dev/null); do
      "$AGENTRT" --root "$ROOT/state2" delete --force "$c" || true
    done
  fi
  teardown_root
}

# private_dir: a directory made by `mktemp -d` (0700, host root's) in ROOT, printed.
private_dir() {
  local d
  d=$(mktemp -d "$ROOT/private.XXXXXX")
  [ "$(stat -c '%a %u' "$d")" = "700 0" ] || return 1
  echo "$d"
}

# private_bundle: the bundle moved under a private_dir; BUNDLE names it there.
private_bundle() {
  local d
  d=$(private_dir)
  mv "$BUNDLE" "$d/b"
  BUNDLE="$d/b"
}

sh_args() { update_config --arg s "$1" '.process.args = ["/bin/sh", "-c", $s]'; }

@test "userns: a user-namespaced container runs from a bundle under a 0700 directory of host root" {
  private_bundle
  sh_args 'id -u; cat /proc/self/uid_map; ls /bin/true'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ]
  [[ ${lines[1]} =~ ^\ +0\ +200000\ +65536$ ]]
  [ "${lines[2]}" = /bin/true ]
  # --no-pivot too (MS_MOVE of the same tree).
  agentrt run --no-pivot -b "$BUNDLE" "$CID-np"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ]
  leaves_nothing
}

@test "userns: bind sources under a 0700 directory of host root are mounted (file, directory, rbind)" {
  local d
  d=$(private_dir)
  mkdir -p "$d/dir/sub" "$d/rdir/sub"
  echo file >"$d/file"
  echo deep >"$d/dir/sub/deep"
  # A mount below the rbind source comes along (a plain bind of it would be refused: the user
  # namespace locks the mounts it inherits, and one may not be left uncovered).
  mount -t tmpfs -o size=1m tmpfs "$d/rdir/sub"
  echo tmpfs >"$d/rdir/sub/on-tmpfs"
  update_config --arg d "$d" '.mounts += [
      {"destination": "/tmp/file", "type": "bind", "source": ($d + "/file"), "options": ["bind", "ro"]},
      {"destination": "/tmp/dir", "type": "bind", "source": ($d + "/dir"), "options": ["bind"]},
      {"destination": "/tmp/rdir", "type": "bind", "source": ($d + "/rdir"), "options": ["rbind"]}]'
  sh_args 'cat /tmp/file; ls /tmp/dir/sub; cat /tmp/rdir/sub/on-tmpfs; echo x >/tmp/file || echo ro'
  agentrt run -b "$BUNDLE" "$CID"
  umount "$d/rdir/sub"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = file ]
  [ "${lines[1]}" = deep ]
  [ "${lines[2]}" = tmpfs ]
  [ "${lines[-1]}" = ro ]
  leaves_nothing
}

# The bind is made in the container's own mount namespace from the copy of the source mount
# there, which carries the flags the user namespace locks: the container's root cannot make a
# read-only host mount writable (a tree cloned in the host's namespace would let it).
@test "userns: a bind of a read-only host mount stays read-only for the container's root" {
  local d
  d=$(private_dir)
  mkdir -p "$d/ro"
  echo host >"$d/ro/f"
  mount --bind "$d/ro" "$d/ro"
  mount -o remount,bind,ro "$d/ro"
  update_config --arg d "$d" '.mounts += [{"destination": "/tmp/ro", "type": "bind", "source": ($d + "/ro"), "options": ["bind"]}]
    | .process.capabilities.bounding += ["CAP_SYS_ADMIN"] | .process.capabilities.effective += ["CAP_SYS_ADMIN"]
    | .process.capabilities.permitted += ["CAP_SYS_ADMIN"]'
  sh_args 'mount -o remount,bind,rw /tmp/ro 2>&1; echo changed >/tmp/ro/f 2>&1; cat /tmp/ro/f'
  agentrt run --platform none -b "$BUNDLE" "$CID"
  umount "$d/ro"
  [ "$status" -eq 0 ]
  [ "$(cat "$d/ro/f")" = host ]
  [ "${lines[-1]}" = host ]
  leaves_nothing
}

# The init is not dumpable, so its /proc files belong to host root, which the root of its user
# namespace is not: oom_score_adj is written before the namespace is made (containerd's pause
# container asks for one).
@test "userns: process.oomScoreAdj applies in a user namespace" {
  update_config '.process.oomScoreAdj = 500'
  sh_args 'cat /proc/self/oom_score_adj'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$output" = 500 ]
  leaves_nothing
}

# What the runtime cannot open for the container's root stays the init's to reach: a
# createContainer hook runs in the container, as its root.  The error names the directory that
# stops it, and why.
@test "userns: a path the container's root cannot reach fails naming the 0700 directory and the uid" {
  local d
  d=$(private_dir)
  printf '#!/bin/sh\ntrue\n' >"$d/hook"
  chmod 0755 "$d/hook"
  update_config --arg h "$d/hook" '.hooks.createContainer = [{"path": $h}]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ $output == *"\`$d\` is 0700 root:root; the container's root is host uid 200000"* ]]
  leaves_nothing
}

# ---- idmapped mounts (runtime-spec 1.2) --------------------------------------------------------

# idmap_src: a directory of host root's with a root-owned file, printed.
idmap_src() {
  local d
  d=$(private_dir)/src
  mkdir -p "$d/sub"
  echo host >"$d/f"
  echo "$d"
}

@test "userns: idmap: a file of host uid 0 shows as the container's root and is writable by it" {
  local d
  d=$(idmap_src)
  update_config --arg d "$d" '.mounts += [{"destination": "/tmp/m", "type": "bind", "source": $d, "options": ["bind", "idmap"]}]'
  sh_args 'stat -c "%u:%g" /tmp/m/f; echo written >>/tmp/m/f && echo new >/tmp/m/new && stat -c "%u:%g" /tmp/m/new'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0:0 ] && [ "${lines[1]}" = 0:0 ]
  # Written through the mount: on the host, as host root's (the mapping back), not 200000's.
  [ "$(cat "$d/f")" = "host
written" ]
  [ "$(stat -c %u:%g "$d/new")" = 0:0 ]
  # Without the option the same file is not the container's: nobody, and not writable.
  update_config '.mounts[-1].options = ["bind"]'
  sh_args 'stat -c "%u" /tmp/m/f; echo x >>/tmp/m/f || echo denied'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 65534 ] && [ "${lines[-1]}" = denied ]
  leaves_nothing
}

@test "userns: ridmap idmaps the mounts below an rbind too; idmap only the top one" {
  local d
  d=$(idmap_src)
  mount -t tmpfs -o size=1m,mode=0755 tmpfs "$d/sub"
  echo below >"$d/sub/g"
  update_config --arg d "$d" '.mounts += [
      {"destination": "/tmp/r", "type": "bind", "source": $d, "options": ["rbind", "ridmap"]},
      {"destination": "/tmp/i", "type": "bind", "source": $d, "options": ["rbind", "idmap"]}]'
  sh_args 'stat -c "%u" /tmp/r/f /tmp/r/sub/g /tmp/i/f /tmp/i/sub/g'
  agentrt run -b "$BUNDLE" "$CID"
  umount "$d/sub"
  [ "$status" -eq 0 ]
  [ "$(echo "${lines[*]}")" = "0 0 0 65534" ]
  leaves_nothing
}

# containerd 2.x sends the mappings on its mounts (/etc/hosts, /etc/hostname, volumes) without
# the option: they are applied, not ignored.  A mapping other than the container's goes through
# a user namespace of its own: host uid 0 shows as 1000 here.
@test "userns: uidMappings without the option are applied, the container's or another" {
  local d
  d=$(idmap_src)
  update_config --arg d "$d" '.mounts += [
      {"destination": "/tmp/same", "type": "bind", "source": $d, "options": ["bind"],
       "uidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}],
       "gidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}]},
      {"destination": "/tmp/other", "type": "bind", "source": $d, "options": ["bind"],
       "uidMappings": [{"containerID": 0, "hostID": 201000, "size": 1}],
       "gidMappings": [{"containerID": 0, "hostID": 201000, "size": 1}]}]'
  sh_args 'stat -c "%u:%g" /tmp/same/f /tmp/other/f'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0:0 ] && [ "${lines[1]}" = 1000:1000 ]
  leaves_nothing
}

@test "userns: idmap without a user namespace takes the mount's mappings" {
  local d
  d=$(idmap_src)
  update_config --arg d "$d" '.linux.namespaces |= map(select(.type != "user")) | del(.linux.uidMappings, .linux.gidMappings)
    | .mounts += [{"destination": "/tmp/m", "type": "bind", "source": $d, "options": ["bind", "idmap"],
       "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}],
       "gidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}]}]'
  sh_args 'stat -c "%u:%g" /tmp/m/f; cat /proc/self/uid_map'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 1000:1000 ]
  [[ ${lines[1]} =~ ^\ +0\ +0\ +4294967295$ ]]
  leaves_nothing
}

@test "userns: idmapped mount errors follow the spec's MUSTs: one line, exit 1, nothing left" {
  local d
  d=$(idmap_src)
  # uidMappings without gidMappings.
  update_config --arg d "$d" '.mounts += [{"destination": "/tmp/m", "type": "bind", "source": $d, "options": ["bind"],
       "uidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}]}]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: config.json: mounts[$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))] (\`/tmp/m\`): uidMappings needs gidMappings: Invalid argument" ]
  # idmap without a user namespace and without mappings.
  update_config '.linux.namespaces |= map(select(.type != "user")) | del(.linux.uidMappings, .linux.gidMappings)
    | .mounts[-1] |= (del(.uidMappings) | .options = ["bind", "idmap"])'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ $output == *"(\`/tmp/m\`): idmap needs uidMappings and gidMappings, or a user namespace whose mapping it takes"* ]]
  [ "${#lines[@]}" -eq 1 ]
  # Not a bind mount.
  update_config '.mounts[-1] = {"destination": "/tmp/m", "type": "tmpfs", "source": "tmpfs", "options": ["idmap"]}'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ $output == *"idmapped mounts are supported for bind mounts only"* ]]
  leaves_nothing
}

# ---- the bundle containerd 2.x hands a runtime for a `hostUsers: false` pod ------------------

# What containerd 2.x's CRI writes for an app container of a pod with a user namespace (Debian
# 12's containerd 1.6 ignores the pod's userns_options, so no engine here makes it: the shape
# is built by hand from containerd's code, internal/cri and core/runtime/v2):
# - the bundle directory 0710 root:<the pod's host root gid> (prepareBundleDirectoryPermissions),
#   the rootfs an overlay mount in it;
# - the user namespace joined by path, /proc/<sandbox>/ns/user, with the pod's mappings in
#   linux.uidMappings (read, not written), and the sandbox's network, IPC and UTS namespaces;
# - /etc/hosts, /etc/hostname and /etc/resolv.conf bound from the sandbox's directory (0700,
#   host root's) with the pod's mappings as uidMappings and no idmap option; /dev/shm without.
@test "userns: containerd 2.x's app container of a hostUsers: false pod (0710 bundle, joined userns, mounts with uidMappings)" {
  local sandbox pod sbdir lower
  # The sandbox (pause) container: a user namespace of its own, mapping 0 to 200000.
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID-sandbox"
  [ "$status" -eq 0 ]
  sandbox=$(__agentrt state "$CID-sandbox" | jq .pid)
  # Its files, in a 0700 directory of host root's.
  sbdir=$(private_dir)
  echo agentrt-pod >"$sbdir/hostname"
  echo "127.0.0.1 localhost" >"$sbdir/hosts"
  echo "nameserver 192.0.2.1" >"$sbdir/resolv.conf"
  mkdir "$sbdir/shm"
  # The app container's bundle: 0710 root:200000 in a 0711 directory, the rootfs an overlay.
  pod=$ROOT/task/k8s.io/app
  mkdir -p "$pod/rootfs" "$ROOT/snap/upper" "$ROOT/snap/work"
  chmod 0711 "$ROOT/task" "$ROOT/task/k8s.io"
  chown root:200000 "$pod" && chmod 0710 "$pod"
  lower=$BUNDLE/rootfs
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$ROOT/snap/upper,workdir=$ROOT/snap/work" "$pod/rootfs"
  # The mount points are in the image (containerd 2.x also idmaps the image's layers, which is
  # not built here: the container's root may not create them in /etc of host root's).
  touch "$pod/rootfs/etc/hosts" "$pod/rootfs/etc/hostname" "$pod/rootfs/etc/resolv.conf"
  jq --arg p "/proc/$sandbox/ns" --arg sb "$sbdir" '
    .process.args = ["/bin/sh", "-c", "id -u; readlink /proc/self/ns/user; cat /etc/hostname; stat -c %u:%g /etc/hostname /etc/resolv.conf; ls -d /dev/shm"]
    | .linux.namespaces = [{"type": "pid"}, {"type": "mount"}, {"type": "cgroup"},
        {"type": "ipc", "path": ($p + "/ipc")}, {"type": "uts", "path": ($p + "/uts")},
        {"type": "network", "path": ($p + "/net")}, {"type": "user", "path": ($p + "/user")}]
    | .mounts += [
        {"destination": "/etc/hosts", "type": "bind", "source": ($sb + "/hosts"), "options": ["rbind", "rprivate", "rw"],
         "uidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}],
         "gidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}]},
        {"destination": "/etc/hostname", "type": "bind", "source": ($sb + "/hostname"), "options": ["rbind", "rprivate", "rw"],
         "uidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}],
         "gidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}]},
        {"destination": "/etc/resolv.conf", "type": "bind", "source": ($sb + "/resolv.conf"), "options": ["rbind", "rprivate", "rw"],
         "uidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}],
         "gidMappings": [{"containerID": 0, "hostID": 200000, "size": 65536}]},
        {"destination": "/dev/shm", "type": "bind", "source": ($sb + "/shm"), "options": ["rbind", "ro", "nosuid", "nodev", "noexec"]}]
    | .mounts |= map(select(.destination != "/dev/shm" or .type == "bind"))' \
    "$BUNDLE/config.json" >"$pod/config.json"
  agentrt run -b "$pod" "$CID-app"
  umount "$pod/rootfs"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 0 ]
  [ "${lines[1]}" = "$(readlink "/proc/$sandbox/ns/user")" ]
  [ "${lines[2]}" = agentrt-pod ]
  [ "${lines[3]}" = 0:0 ] && [ "${lines[4]}" = 0:0 ]
  [ "${lines[5]}" = /dev/shm ]
  agentrt delete --force "$CID-sandbox"
  leaves_nothing
}

# ---- owners ---------------------------------------------------------------------------------
# The owner of a user namespace has every capability in it.  Each container's is a uid of its
# own from agentrt's reserved range (0xff000000 and up), which no mapping and no process.user
# may name: not a uid the container's root maps to (200000 here, the owner before), which any
# host process of that uid could have used to enter every such container.

# setns_as UID PID: a host process of UID tries to enter the user namespace of PID, with an fd
# of it opened before it dropped root (so that only the capability in the namespace decides,
# not whether it may open the file); prints `setns ok` or `setns ERRNO`.
setns_as() {
  python3 -c 'import ctypes, errno, os, sys
fd = os.open("/proc/%s/ns/user" % sys.argv[2], os.O_RDONLY)
uid = int(sys.argv[1])
os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
libc = ctypes.CDLL(None, use_errno=True)
r = libc.setns(fd, 0x10000000)  # CLONE_NEWUSER
print("setns ok" if r == 0 else "setns " + errno.errorcode[ctypes.get_errno()])' "$1" "$2"
}

@test "userns: a host process of the uid the container's root maps to cannot enter its user namespace" {
  local pid
  update_config '.process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  pid=$(__agentrt state "$CID" | jq .pid)
  run setns_as 200000 "$pid"
  echo "$output" >&2
  [ "$status" -eq 0 ]
  [ "$output" = "setns EPERM" ]
  # Host root still can (exec does).
  agentrt exec "$CID" id -u
  [ "$status" -eq 0 ] && [ "$output" = 0 ]
  agentrt delete --force "$CID"
  leaves_nothing
}

@test "userns: containers created at once under two --root have owners of their own, in the reserved range" {
  local i pids=() owners=() c r
  update_config '.process.args = ["/bin/sleep", "100"]'
  for i in 0 1 2 3; do
    r=$ROOT/state; ((i % 2)) && r=$ROOT/state2
    "$AGENTRT" --root "$r" run -d -b "$BUNDLE" "$CID-$i" </dev/null >/dev/null 2>"$ROOT/err-$i" &
    pids+=($!)
  done
  for i in 0 1 2 3; do
    wait "${pids[$i]}" || { cat "$ROOT/err-$i" >&2; false; }
  done
  for i in 0 1 2 3; do
    r=$ROOT/state; ((i % 2)) && r=$ROOT/state2
    owners+=("$(ns_owner "$("$AGENTRT" --root "$r" state "$CID-$i" | jq .pid)")")
  done
  echo "owners: ${owners[*]}" >&2
  for i in 0 1 2 3; do
    [ "${owners[$i]}" -ge $((0xff000000)) ] && [ "${owners[$i]}" -lt $((0xffff0000)) ]
  done
  [ "$(printf '%s\n' "${owners[@]}" | sort -u | wc -l)" -eq 4 ]
  # The registry shared by both roots names each live container's state directory.
  [ "$(grep -lxF -e "$ROOT/state/$CID-0" -e "$ROOT/state2/$CID-1" /run/agentrt-owners/* | wc -l)" -eq 2 ]
  for i in 0 1 2 3; do
    r=$ROOT/state; ((i % 2)) && r=$ROOT/state2
    "$AGENTRT" --root "$r" delete --force "$CID-$i"
  done
  # A deleted container's owner is free again: the next one may have it, never a live one's.
  agentrt_detached run -d -b "$BUNDLE" "$CID-next"
  [ "$status" -eq 0 ]
  c=$(ns_owner "$(__agentrt state "$CID-next" | jq .pid)")
  [ "$c" -ge $((0xff000000)) ] && [ "$c" -lt $((0xffff0000)) ]
  agentrt delete --force "$CID-next"
  leaves_nothing
  [ "$(state_dirs_left "$ROOT/state2")" -eq 0 ]
  # delete frees the slots: no file of the registry names a state directory of this test.
  [ -z "$(grep -rlsF "$ROOT/" /run/agentrt-owners)" ]
}

@test "userns: ids of the reserved owner range are refused in mappings and process.user, one line, nothing left" {
  local cfg=$BUNDLE/config.json
  cp "$cfg" "$ROOT/config.orig"
  update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 4278124544, "size": 65537}]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ] && [ "${#lines[@]}" -eq 1 ]
  [[ $output == *'linux.uidMappings[0]: host ids 4278124544-4278190080 reach'*'reserved range'* ]]
  cp "$ROOT/config.orig" "$cfg"
  update_config '.linux.gidMappings += [{"containerID": 65536, "hostID": 4294967294, "size": 1}]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ] && [[ $output == *'linux.gidMappings[1]'*'reserved range'* ]]
  # An idmapped mount's host ids own what the container writes there.
  cp "$ROOT/config.orig" "$cfg"
  mkdir "$ROOT/src"
  update_config --arg s "$ROOT/src" '.mounts += [{"destination": "/mnt", "type": "bind", "source": $s, "options": ["bind", "idmap"],
      "uidMappings": [{"containerID": 0, "hostID": 4278190085, "size": 1}], "gidMappings": [{"containerID": 0, "hostID": 0, "size": 1}]}]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ] && [[ $output == *'mounts['*'].uidMappings[0]: host ids 4278190085-4278190085 reach'* ]]
  # Without a user namespace, process.user is a host id.
  cp "$ROOT/config.orig" "$cfg"
  update_config 'del(.linux.uidMappings, .linux.gidMappings) | .linux.namespaces |= map(select(.type != "user"))
    | .process.user.uid = 4278190081'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ] && [ "${#lines[@]}" -eq 1 ]
  [[ $output == *'process.user.uid: 4278190081 is in'*'reserved range'* ]]
  update_config '.process.user.uid = 0 | .process.user.additionalGids = [4278190082]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -ne 0 ] && [[ $output == *'process.user.additionalGids[0]: 4278190082'* ]]
  # exec --user too.
  update_config '.process.user.additionalGids = [] | .process.args = ["/bin/sleep", "100"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt exec --user 4278190081 "$CID" id -u
  [ "$status" -ne 0 ] && [[ $output == *'exec: process.user.uid: 4278190081'* ]]
  agentrt delete --force "$CID"
  leaves_nothing
}
