# Podman with a private configuration, for tests/podman.bats.  Source it after helpers.bash.
#
# Nothing here reads or writes the system's Podman paths (/etc/containers, /var/lib/containers,
# /run/containers, /run/runc, /run/agentrt): CONTAINERS_CONF and CONTAINERS_STORAGE_CONF point
# at files under one private directory $PD, which also holds the storage, Podman's tmp_dir
# (events, exit files), and each runtime's --root.

PODMAN_CONF_SHIPPED=${PODMAN_CONF_SHIPPED:-$BATS_TEST_DIRNAME/../contrib/podman/containers.conf}
PODMAN_IMAGE=localhost/agentrt-test-busybox:1

# podman_config SHIPPED: the shipped containers.conf with the test's private settings added
# under its own tables and agentrt's path replaced by the wrapper's.  Fails if the shipped file
# lacks a table or the agentrt entry the test relies on, so it cannot silently test less.
podman_config() {
  awk -v pd="$PD" -v path="$PATH" '
    function add(t) {
      if (t == "containers") print "netns = \"none\""
      if (t == "engine") {
        print "events_logger = \"file\""
        printf "conmon_env_vars = [\"PATH=%s\", \"CONTAINERS_CONF=%s/containers.conf\", ", path, pd
        printf "\"CONTAINERS_STORAGE_CONF=%s/storage.conf\"]\n", pd
        print "tmp_dir = \"" pd "/tmp\""
        print "volume_path = \"" pd "/volumes\""
      }
      if (t == "engine.runtimes") print "runc = [\"" pd "/bin/runc\"]"
      seen[t] = 1
    }
    /^\[[a-z.]+\][ \t]*$/ { print; t = $0; gsub(/[][ \t]/, "", t); add(t); next }
    t == "engine.runtimes" && /^agentrt[ \t]*=/ { print "agentrt = [\"" pd "/bin/agentrt\"]"; agentrt = 1; next }
    { print }
    END {
      print "[network]"
      print "network_config_dir = \"" pd "/net\""
      if (!seen["containers"] || !seen["engine"] || !seen["engine.runtimes"] || !agentrt) {
        print "podman_config: the shipped file lacks [containers], [engine] or the agentrt runtime" > "/dev/stderr"
        exit 1
      }
    }' "$1"
}

# podman_setup: $PD with the configuration, the runtime wrappers, the storage and the image.
# Podman's exit command (`podman container cleanup`, run by conmon after the container exits)
# gets no --runtime-flag, so a global flag could not give the runtimes a private --root for
# every call: each runtime is a wrapper named after it (Podman picks runtime_supports_json by
# the binary's file name) that adds --root (and agentrt's --config).
podman_setup() {
  mkdir -p "$PD"/{bin,tmp,volumes,net,rt/agentrt,rt/runc}
  # agentrt's operator configuration too (a node has /etc/agentrt/agentrt.conf): the audit logs
  # in $PD/audit, and io.agentrt.net.allow may name the host's loopback (the test's servers).
  printf 'audit_dir = %s\npod_annotations = io.agentrt.net.allow\n' "$PD/audit" >"$PD/agentrt.conf"
  chmod 0600 "$PD/agentrt.conf"
  printf '#!/bin/sh\nexec %q --root %q --config %q "$@"\n' "$AGENTRT" "$PD/rt/agentrt" \
    "$PD/agentrt.conf" >"$PD/bin/agentrt"
  printf '#!/bin/sh\nexec %q --root %q "$@"\n' "$(command -v runc)" "$PD/rt/runc" >"$PD/bin/runc"
  chmod 0755 "$PD/bin/agentrt" "$PD/bin/runc"
  podman_config "$PODMAN_CONF_SHIPPED" >"$PD/containers.conf" || return 1
  printf '[storage]\ndriver = "overlay"\ngraphroot = "%s/graph"\nrunroot = "%s/run"\n' \
    "$PD" "$PD" >"$PD/storage.conf"
  export CONTAINERS_CONF="$PD/containers.conf" CONTAINERS_STORAGE_CONF="$PD/storage.conf"
  # Where podman writes temporary files of its own (the resources file of `update`).
  export TMPDIR="$PD/tmp"
  rootfs_busybox "$PD/rootfs"
  tar -C "$PD/rootfs" -cf "$PD/rootfs.tar" .
  podman import -q "$PD/rootfs.tar" "$PODMAN_IMAGE" >/dev/null
  rm -rf "$PD/rootfs" "$PD/rootfs.tar"
}

# podman_pids: processes whose command line names $PD (conmon, podman's exit command, a runtime
# call, a supervisor): all were started by this file's tests.
podman_pids() {
  local p args
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    mapfile -d "" args 2>/dev/null <"$p/cmdline" || continue
    [[ "${args[*]}" == *"$PD/"* ]] && echo "${p#/proc/}"
  done
}

# podman_teardown: removes every container and $PD, stops what is left of ours by pid, unmounts
# what is still mounted under $PD, and removes Podman's shared cgroup parents if this file
# created them and they are empty.
podman_teardown() {
  [ -n "${PD:-}" ] && [ -d "$PD" ] || return 0
  local p m h
  timeout 60 podman rm -fa -t 0 >/dev/null 2>&1 || true
  for p in $(podman_pids); do kill -9 "$p" 2>/dev/null || true; done
  for m in $(awk -v pd="$PD/" 'index($5, pd) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf "$PD"
  if [ ! -e "${BATS_FILE_TMPDIR:-/nonexistent}/libpod_parent.existed" ]; then
    for h in /sys/fs/cgroup/*/libpod_parent; do
      rmdir "$h/conmon" "$h" 2>/dev/null || true
    done
  fi
}

# podman_leftovers ID: what is left of container ID, one line each: Podman's record, the
# runtime's state directory, a mount under $PD (no container runs between scenarios, so none
# may be left at all), a cgroup directory named after it, a process naming it.
podman_leftovers() {
  local id=$1 p args
  podman container exists "$id" 2>/dev/null && echo "podman still has container $id"
  for p in "$PD"/rt/*/"$id"; do [ -e "$p" ] && echo "state directory $p"; done
  awk -v pd="$PD/" 'index($5, pd) == 1 { print "mount " $5 }' /proc/self/mountinfo
  find /sys/fs/cgroup -maxdepth 6 -type d -name "*$id*" -printf 'cgroup %p\n' 2>/dev/null
  for p in /proc/[0-9]*; do
    mapfile -d "" args 2>/dev/null <"$p/cmdline" || continue
    [[ "${args[*]}" == *"$id"* ]] && proc_alive "${p#/proc/}" && echo "process ${p#/proc/}: ${args[*]}"
  done
  return 0
}

# assert_nothing_left ID: polls (podman's exit command may still be cleaning up when the podman
# command that ran the container has returned) until nothing of ID is left, 15 s at most.
assert_nothing_left() {
  [ -n "$1" ] || { echo "assert_nothing_left: no container id" >&2; return 1; }
  wait_nothing_left 15 "$1" podman_leftovers "$1"
}
