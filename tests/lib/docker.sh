# A private Docker daemon (Debian's docker.io 20.10) for tests/docker.bats: its own data root,
# exec root, socket, pid file, config file, cgroup parent and managed containerd, and no change
# to the host's network (no bridge, no iptables, no ip_forward).  Source this file; it defines
# docker_start, docker_stop, dk, docker_import_busybox and the leftover checks.
#
# The client is /usr/bin/docker, Debian's 20.10 client of the same release as the daemon: it
# speaks the daemon's API version (1.41) without negotiating.  /usr/local/bin/docker on these
# machines is an unrelated newer client; it is not used.

DOCKER_CLIENT=${DOCKER_CLIENT:-/usr/bin/docker}
DOCKERD=${DOCKERD:-/usr/sbin/dockerd}

# dk ARGS…: the client, against the private daemon, with a private client config dir.
dk() { DOCKER_CONFIG="$DOCKER_DIR/client" "$DOCKER_CLIENT" -H "unix://$DOCKER_DIR/docker.sock" "$@"; }

# docker_start DIR AGENTRT: starts dockerd with its state under DIR (which must not exist yet)
# and agentrt registered as runtime `agentrt` (runc is built in as `runc`).  Sets DOCKER_DIR,
# DOCKER_AGENTRT, DOCKER_PID, DOCKER_CONTAINERD_PID, DOCKER_CGROUP_PARENT and
# DOCKER_RUNTIME_ROOT (the --root the shim gives the runtime: ours and runc's alike) and
# DOCKER_HOST_DIRS_MADE.
docker_start() {
  local dir=$1 agentrt=$2 i
  DOCKER_DIR=$dir
  DOCKER_AGENTRT=$agentrt
  DOCKER_CGROUP_PARENT=agentrt-docker-$$-$RANDOM
  DOCKER_RUNTIME_ROOT=$dir/exec/runtime-runc/moby
  mkdir -p "$dir/data" "$dir/exec" "$dir/client" "$dir/tmp" || return 1
  # Two paths are fixed in the binaries: dockerd makes /run/docker/plugins (plugin discovery)
  # and each shim puts its socket in /run/containerd/s.  Those that did not exist before are
  # removed by docker_stop if they are empty by then (other engines' shims may share the second).
  DOCKER_HOST_DIRS_MADE=
  for i in /run/docker/plugins /run/docker /run/containerd/s /run/containerd; do
    [ -e "$i" ] || DOCKER_HOST_DIRS_MADE+="$i "
  done
  # Everything the daemon would otherwise read from /etc/docker/daemon.json, and the trust
  # key that it would otherwise create as /etc/docker/key.json.
  printf '{"deprecated-key-path": "%s/key.json"}\n' "$dir" >"$dir/daemon.json"
  # setsid: a signal bats sends its process group must not reach the daemon; teardown stops it.
  # TMPDIR: the containerd dockerd manages inherits it, and writes its goroutine stacks there
  # (containerd.PID.stacks.log) when dockerd, shutting down under load, SIGUSR1s it first.
  TMPDIR=$dir/tmp setsid "$DOCKERD" --config-file "$dir/daemon.json" \
    --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
    -H "unix://$dir/docker.sock" \
    --bridge=none --iptables=false --ip6tables=false --ip-masq=false --ip-forward=false \
    --exec-opt native.cgroupdriver=cgroupfs --cgroup-parent "/$DOCKER_CGROUP_PARENT" \
    --storage-driver overlay2 --oom-score-adjust 0 \
    --add-runtime "agentrt=$agentrt" \
    </dev/null >"$dir/dockerd.log" 2>&1 &
  DOCKER_PID=$!
  for ((i = 0; i < 300; i++)); do
    dk version >/dev/null 2>&1 && break
    kill -0 "$DOCKER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if ! dk version >/dev/null 2>&1; then
    echo "dockerd did not come up; the end of $dir/dockerd.log:" >&2
    tail -n 20 "$dir/dockerd.log" >&2
    return 1
  fi
  # The containerd that dockerd manages is its child, with a config dockerd wrote.
  DOCKER_CONTAINERD_PID=$(pgrep -P "$DOCKER_PID" -x containerd | head -n 1)
  [ -n "$DOCKER_CONTAINERD_PID" ] || { echo "dockerd started no containerd" >&2; return 1; }
  docker_check_private || return 1
}

# docker_check_private: every path the daemon and its containerd write is under DOCKER_DIR.
docker_check_private() {
  local toml=$DOCKER_DIR/exec/containerd/containerd.toml key path
  tr '\0' ' ' <"/proc/$DOCKER_CONTAINERD_PID/cmdline" | grep -qF -- "--config $toml" || {
    echo "containerd does not run with $toml" >&2; return 1; }
  for key in root state address; do
    path=$(awk -v k="$key" '$1 == k { gsub(/"/, "", $3); print $3; exit }' "$toml")
    case $path in
      "$DOCKER_DIR"/*) ;;
      *) echo "containerd's $key is $path, not under $DOCKER_DIR" >&2; return 1 ;;
    esac
  done
  [ "$(dk info --format '{{.DockerRootDir}}')" = "$DOCKER_DIR/data" ] || return 1
}

# docker_stop: stops the daemon, its containerd and any shim of it, by pid; unmounts what is
# left under DOCKER_DIR, removes the cgroup parent and DOCKER_DIR.
docker_stop() {
  [ -n "${DOCKER_DIR:-}" ] || return 0
  local p shims=() mnt i procs
  # The shims are children of init (they daemonize); they name our containerd's socket.
  for p in /proc/[0-9]*; do
    tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "-address $DOCKER_DIR/exec/containerd/containerd.sock" \
      && shims+=("${p#/proc/}")
  done
  if [ -n "${DOCKER_PID:-}" ]; then
    kill -TERM "$DOCKER_PID" 2>/dev/null
    __docker_wait_gone "$DOCKER_PID" 150 || kill -KILL "$DOCKER_PID" 2>/dev/null
    wait "$DOCKER_PID" 2>/dev/null
  fi
  for p in ${DOCKER_CONTAINERD_PID:-} "${shims[@]}"; do
    kill -0 "$p" 2>/dev/null || continue
    kill -TERM "$p" 2>/dev/null
    __docker_wait_gone "$p" 50 || kill -KILL "$p" 2>/dev/null
  done
  # A daemon that died leaves containers no shim watches any more: the runtime that made each
  # (agentrt if its `state` reads it, else runc) deletes it, then whatever is still in one of
  # the daemon's cgroups is killed.
  for p in "$DOCKER_RUNTIME_ROOT"/*/; do
    [ -d "$p" ] || continue
    p=$(basename "$p")
    if "$DOCKER_AGENTRT" --root "$DOCKER_RUNTIME_ROOT" state "$p" >/dev/null 2>&1; then
      "$DOCKER_AGENTRT" --root "$DOCKER_RUNTIME_ROOT" delete --force "$p"
    else
      runc --root "$DOCKER_RUNTIME_ROOT" delete --force "$p"
    fi
  done
  for ((i = 0; i < 50; i++)); do
    procs=$(cat /sys/fs/cgroup/pids/"$DOCKER_CGROUP_PARENT"/*/cgroup.procs 2>/dev/null)
    [ -n "$procs" ] || break
    # shellcheck disable=SC2086 # one pid a word
    kill -KILL $procs 2>/dev/null
    sleep 0.1
  done
  # Deepest first: the overlay mounts and netns files sit under the data-root's bind mount.
  while read -r mnt; do
    umount "$mnt" 2>/dev/null || umount -l "$mnt"
  done < <(docker_mounts | sort -r)
  # Its containers' directories first (-depth), then the parent, in every hierarchy.
  find /sys/fs/cgroup -depth -mindepth 2 -maxdepth 4 -type d \
    \( -path "*/$DOCKER_CGROUP_PARENT" -o -path "*/$DOCKER_CGROUP_PARENT/*" \) -exec rmdir {} + 2>/dev/null
  rm -rf --one-file-system "$DOCKER_DIR"
  for p in ${DOCKER_HOST_DIRS_MADE:-}; do rmdir "$p" 2>/dev/null; done
  return 0
}

# __docker_wait_gone PID TENTHS: until PID has exited (or is a zombie), at most TENTHS/10 s.
__docker_wait_gone() {
  local i
  for ((i = 0; i < $2; i++)); do
    proc_alive "$1" || return 0
    sleep 0.1
  done
  return 1
}

# docker_mounts: the mount points under DOCKER_DIR, as the host sees them.
docker_mounts() { awk -v d="$DOCKER_DIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo; }

# docker_import_busybox NAME: an image made locally from rootfs_busybox (no registry).
docker_import_busybox() {
  local tmp
  tmp=$(mktemp -d "$DOCKER_DIR/rootfs.XXXXXX") || return 1
  rootfs_busybox "$tmp" || return 1
  tar -C "$tmp" -c . | dk import - "$1" >/dev/null || return 1
  rm -rf "$tmp"
}

# docker_leftovers ID: what is left of container ID (the full id), one line each: the runtime's
# state dir under the shim's --root, containerd's bundle, a cgroup named after it, a process
# whose command line names it (shim, runtime, agentrt's supervisor) or that sits in its cgroup.
# The container's host mounts (its overlay, its netns file) have no id in their path:
# docker_mounts_left checks those.
docker_leftovers() {
  local id=$1 p
  [[ $id =~ ^[0-9a-f]{64}$ ]] || { echo "not a container id: \`$id\`"; return 0; }
  [ -e "$DOCKER_RUNTIME_ROOT/$id" ] && echo "state dir $DOCKER_RUNTIME_ROOT/$id"
  p=$DOCKER_DIR/exec/containerd/daemon/io.containerd.runtime.v2.task/moby/$id
  [ -e "$p" ] && echo "bundle $p"
  # The shim's socket: containerd 1.6 names it after its address, namespace and the id.
  p=/run/containerd/s/$(printf '%s' "$DOCKER_DIR/exec/containerd/containerd.sock/moby/$id" | sha256sum | cut -d ' ' -f 1)
  [ -e "$p" ] && echo "shim socket $p"
  find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d -name "$id" 2>/dev/null | sed 's/^/cgroup /'
  for p in /proc/[0-9]*; do
    proc_alive "${p#/proc/}" || continue
    if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "$id" || grep -qF -- "$id" "$p/cgroup" 2>/dev/null; then
      echo "process ${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
    fi
  done
  return 0
}

# docker_mounts_left: mounts under DOCKER_DIR beyond those the daemon had when it came up
# (DOCKER_BASE_MOUNTS, set by the caller after docker_start).
docker_mounts_left() { comm -13 <(sort <<<"$DOCKER_BASE_MOUNTS") <(docker_mounts | sort) | sed '/^$/d'; }

# docker_nothing_left ID: polls (the shim exits after `docker rm` returns) until nothing of ID
# is left, at most 10 s; then prints what is left and fails.
docker_nothing_left() { wait_nothing_left 10 "$1" docker_left_of "$1"; }

# docker_left_of ID: docker_leftovers ID, and the mounts docker_mounts_left finds.
docker_left_of() {
  docker_leftovers "$1"
  docker_mounts_left | sed 's/^/mount /'
}
