#!/usr/bin/env bats
# Who may configure what (README): config.json is untrusted, annotations included (an engine
# copies a pod's into it), so an io.agentrt.* annotation may tighten the sandbox but never name a
# host path, turn the supervisor off or loosen the policy; an unknown key is an error.  What the
# operator decides comes from agentrt's flags and its configuration file, agentrt.conf
# (--config, $AGENTRT_CONFIG, /etc/agentrt/agentrt.conf), whose pod_annotations may hand an
# operator-only key to config.json on this node.
load helpers

setup() {
  setup_busybox
  CONF="$ROOT/agentrt.conf"
  SERVER_PIDS=()
}
teardown() {
  servers_stop
  teardown_root
}

# conf LINE…: $CONF with these lines.
conf() {
  printf '%s\n' "$@" >"$CONF"
  chmod 0600 "$CONF"
}

annotate() { update_config --arg k "$1" --arg v "$2" '.annotations[$k] = $v'; }

# refused KEY VALUE MESSAGE [AGENTRT ARGS…]: create with annotation KEY=VALUE fails with one line
# containing MESSAGE, and leaves nothing.
refused() {
  local key=$1 value=$2 want=$3
  shift 3
  cp "$BUNDLE/config.json" "$ROOT/config.orig"
  annotate "$key" "$value"
  agentrt_detached "$@" create -b "$BUNDLE" "$CID"
  cp "$ROOT/config.orig" "$BUNDLE/config.json"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"$want"* ]] || {
    echo "expected: $want" >&2
    return 1
  }
  leaves_nothing
}

@test "agentrt create [operator] io.agentrt.audit naming a host file is refused, and the file is not made" {
  local target="$ROOT/host/passwd-like"
  mkdir -p "$ROOT/host"
  refused io.agentrt.audit "$target" \
    "annotation io.agentrt.audit names a file on the host: that is the operator's to ask for (--audit-log or audit_dir"
  [ ! -e "$target" ]
  # An existing host file is not appended to either.
  echo keep >"$target"
  refused io.agentrt.audit "$target" "annotation io.agentrt.audit names a file on the host"
  [ "$(cat "$target")" = keep ]
}

@test "agentrt create [operator] io.agentrt.platform=none and io.agentrt.policy.ptrace=allow are refused; their tightening values are not" {
  refused io.agentrt.platform none \
    "annotation io.agentrt.platform=none turns the supervisor off: that is the operator's to ask for (--platform none, or pod_annotations = io.agentrt.platform in agentrt.conf)"
  refused io.agentrt.policy.ptrace allow \
    "annotation io.agentrt.policy.ptrace=allow lets the workload trace where the default refuses it: that is the operator's"
  annotate io.agentrt.platform ptrace
  annotate io.agentrt.policy.ptrace deny
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agentrt create [operator] io.agentrt.ephemeral=false is refused under the agent profile, and the bundle is not written" {
  update_config '.process.args = ["/bin/sh", "-c", "echo x > /tmp/written"]'
  annotate io.agentrt.ephemeral false
  agentrt_detached create --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: annotation io.agentrt.ephemeral=false under the agent profile lets the workload write into the bundle: that is the operator's to ask for (pod_annotations = io.agentrt.ephemeral in agentrt.conf), not config.json's" ]
  leaves_nothing
  refused io.agentrt.profile agent \
    "annotation io.agentrt.ephemeral=false under the agent profile lets the workload write into the bundle"
  [ ! -e "$BUNDLE/rootfs/tmp/written" ]
  # The profile's own annotations (ephemeral=true, timeout) pass the same checks.
  update_config 'del(.annotations["io.agentrt.ephemeral"])'
  agentrt run --agent -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  annotate io.agentrt.profile agent
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ ! -e "$BUNDLE/rootfs/tmp/written" ]
  # Without the profile, false is what any runc container is: the pod's to say.
  update_config 'del(.annotations["io.agentrt.profile"]) | .annotations["io.agentrt.ephemeral"] = "false" | .process.args = ["/bin/true"]'
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agentrt create [operator] an unknown io.agentrt.* annotation (a typo) fails create, naming it" {
  refused io.agentrt.timout 5s "agentrt: unknown annotation io.agentrt.timout"
  refused io.agentrt.Timeout 5s "unknown annotation io.agentrt.Timeout"
  refused IO.AGENTRT.timeout 5s "unknown annotation IO.AGENTRT.timeout"
  # Other namespaces are the engines' business.
  annotate io.kubernetes.cri.sandbox-id abc
  annotate io.agentrtx 1
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agentrt create [operator] the annotations agentrt writes into state are refused as inputs" {
  refused io.agentrt.audit.alerts 0 \
    "annotation io.agentrt.audit.alerts is written by agentrt (\`state\` shows it), not read from config.json"
  refused io.agentrt.stop.reason timeout "annotation io.agentrt.stop.reason is written by agentrt"
}

@test "agentrt run [operator] agentrt.conf audit_dir puts every log in DIR/ID.jsonl, made 0750, read by audit" {
  conf "# the node's logs" "audit_dir = $ROOT/logs/agentrt"
  update_config '.process.args = ["/bin/sh", "-c", "/bin/true"]'
  agentrt --config "$CONF" run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(stat -c %a "$ROOT/logs/agentrt")" = 750 ]
  [ "$(jq -r .auditLog "$ROOT/state/$CID/state.json")" = "$ROOT/logs/agentrt/$CID.jsonl" ]
  [ ! -e "$ROOT/state/$CID/audit.jsonl" ]
  # The supervisor may still be writing the last records when run returns.
  wait_for "the execve record" grep -q '"syscall":"execve"' "$ROOT/logs/agentrt/$CID.jsonl"
  agentrt audit --json "$CID"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"syscall":"execve"'* ]]
  agentrt delete "$CID"
  [ "$status" -eq 0 ]
  # The log outlives the container (an engine deletes the state directory at once).
  grep -q '"syscall":"execve"' "$ROOT/logs/agentrt/$CID.jsonl"
  # The operator's flag still wins.
  agentrt --config "$CONF" run --audit-log "$ROOT/flag.jsonl" -b "$BUNDLE" "$CID-flag"
  [ "$status" -eq 0 ]
  [ -f "$ROOT/flag.jsonl" ]
  [ ! -e "$ROOT/logs/agentrt/$CID-flag.jsonl" ]
  leaves_nothing
}

@test "agentrt create [operator] a malformed agentrt.conf fails create, run and exec with FILE:LINE; other commands do not read it" {
  conf "audit_dir = $ROOT/logs" "# fine so far" "audit_dri = /x"
  agentrt_detached --config "$CONF" create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $CONF:3: unknown key \`audit_dri\`" ]
  leaves_nothing
  conf "audit_dir $ROOT/logs"
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $CONF:1: expected \`key = value\`" ]
  conf "pod_annotations = io.agentrt.*"
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [[ "$output" == "agentrt: $CONF:1: pod_annotations: \`io.agentrt.*\` is not an annotation with operator-only values"* ]]
  conf "pod_annotations = io.agentrt.audit"
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $CONF:1: pod_annotations: io.agentrt.audit needs audit_dir (the only directory it may name a file in)" ]
  [ ! -e "$ROOT/logs" ]
  leaves_nothing
  # A container made with a good file: exec reads the bad one, state and delete do not (an
  # engine must always be able to remove what it made).
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  conf "audit_dir = relative"
  agentrt --config "$CONF" exec "$CID" /bin/true
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: $CONF:1: audit_dir: \`relative\`: expected an absolute path" ]
  agentrt --config "$CONF" state "$CID"
  [ "$status" -eq 0 ]
  agentrt --config "$CONF" list
  [ "$status" -eq 0 ]
  agentrt --config "$CONF" delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agentrt create [operator] a group-writable agentrt.conf is refused" {
  conf "audit_dir = $ROOT/logs"
  chmod 0664 "$CONF"
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: \`$CONF\` is writable by group or others" ]
  leaves_nothing
}

@test "agentrt create [operator] --config and AGENTRT_CONFIG name the file, and it must exist; the flag wins" {
  agentrt --config "$ROOT/missing.conf" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: operator configuration \`$ROOT/missing.conf\`: No such file or directory" ]
  AGENTRT_CONFIG="$ROOT/missing.conf" agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: operator configuration \`$ROOT/missing.conf\`: No such file or directory" ]
  agentrt --config "" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: --config: expected a file" ]
  conf "audit_dir = $ROOT/env-logs"
  AGENTRT_CONFIG="$CONF" agentrt run -b "$BUNDLE" "$CID-env"
  [ "$status" -eq 0 ]
  [ -f "$ROOT/env-logs/$CID-env.jsonl" ]
  printf 'audit_dir = %s\n' "$ROOT/flag-logs" >"$ROOT/flag.conf"
  AGENTRT_CONFIG="$CONF" agentrt --config "$ROOT/flag.conf" run -b "$BUNDLE" "$CID-flag"
  [ "$status" -eq 0 ]
  [ -f "$ROOT/flag-logs/$CID-flag.jsonl" ]
  [ ! -e "$ROOT/env-logs/$CID-flag.jsonl" ]
  leaves_nothing
}

# Runs agentrt with /etc/agentrt/agentrt.conf as given, in a mount namespace of its own whose
# /etc is an overlay over the host's: the host's /etc is never written.
with_default_conf() {
  local text=$1
  shift
  mkdir -p "$ROOT/etc-upper/agentrt" "$ROOT/etc-work"
  printf '%s\n' "$text" >"$ROOT/etc-upper/agentrt/agentrt.conf"
  chmod 0600 "$ROOT/etc-upper/agentrt/agentrt.conf"
  unshare --mount --propagation private sh -c '
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/etc-upper,workdir=$1/etc-work" /etc &&
    shift && exec "$@"' sh "$ROOT" "$AGENTRT" --root "$ROOT/state" "$@"
}

@test "agentrt create [operator] /etc/agentrt/agentrt.conf is read by default, and a bad one fails create" {
  [ ! -e /etc/agentrt/agentrt.conf ] || skip "this host has an /etc/agentrt/agentrt.conf of its own"
  run with_default_conf "audit_dir = $ROOT/default-logs" run -b "$BUNDLE" "$CID"
  echo "$output" >&2
  [ "$status" -eq 0 ]
  [ -f "$ROOT/default-logs/$CID.jsonl" ]
  run with_default_conf "bogus = 1" run -b "$BUNDLE" "$CID-2"
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: /etc/agentrt/agentrt.conf:1: unknown key \`bogus\`" ]
  # --config overrides it.
  conf "audit_dir = $ROOT/flag-logs"
  run with_default_conf "bogus = 1" --config "$CONF" run -b "$BUNDLE" "$CID-3"
  [ "$status" -eq 0 ]
  [ -f "$ROOT/flag-logs/$CID-3.jsonl" ]
  leaves_nothing
}

@test "agentrt run [operator] pod_annotations lets config.json use an operator-only key on this node" {
  conf "pod_annotations = io.agentrt.platform, io.agentrt.policy.ptrace"
  annotate io.agentrt.platform none
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ "$(supervisors_left)" -eq 0 ]
  update_config 'del(.annotations["io.agentrt.platform"])'
  annotate io.agentrt.policy.ptrace allow
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID-2"
  [ "$status" -eq 0 ]
  # Only what is listed.
  conf "pod_annotations = io.agentrt.platform"
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID-3"
  [ "$status" -eq 1 ]
  [[ "$output" == *"annotation io.agentrt.policy.ptrace=allow lets the workload trace where the default refuses it"* ]]
  leaves_nothing
}

@test "agentrt run [operator] with pod_annotations, io.agentrt.audit names only a file directly under audit_dir" {
  local dir="$ROOT/logs" bad
  mkdir -p "$ROOT/other"
  conf "audit_dir = $dir" "pod_annotations = io.agentrt.audit"
  annotate io.agentrt.audit "$dir/mine.jsonl"
  agentrt --config "$CONF" run --keep -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  [ -f "$dir/mine.jsonl" ]
  [ "$(jq -r .auditLog "$ROOT/state/$CID/state.json")" = "$dir/mine.jsonl" ]
  agentrt delete "$CID"
  for bad in "$ROOT/other/x.jsonl" "$dir/../other/x.jsonl" "$dir/sub/x.jsonl" "$dir-x/x.jsonl" \
    "$dir" "x.jsonl" "/etc/agentrt-test-$CID"; do
    refused io.agentrt.audit "$bad" \
      "annotation io.agentrt.audit: \`$bad\`: expected a file directly under audit_dir \`$dir\`" \
      --config "$CONF"
  done
  [ ! -e "$ROOT/other/x.jsonl" ]
  [ ! -e "/etc/agentrt-test-$CID" ]
  # A symlink planted there is not followed.
  ln -s "$ROOT/other/target" "$dir/link.jsonl"
  refused io.agentrt.audit "$dir/link.jsonl" \
    "annotation io.agentrt.audit: \`$dir/link.jsonl\` is not a regular file" \
    --config "$CONF"
  [ ! -e "$ROOT/other/target" ]
}

# refused_beside MESSAGE: create $CID with the config as it is fails with one line containing
# MESSAGE, and leaves no state of $CID (other containers are running).
refused_beside() {
  agentrt_detached --config "$CONF" create -b "$BUNDLE" "$CID"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"$1"* ]]
  [ ! -e "$ROOT/state/$CID" ]
}

@test "agentrt create [operator] io.agentrt.audit may not name a log another container writes, but within its pod" {
  local dir="$ROOT/logs"
  conf "audit_dir = $dir" "pod_annotations = io.agentrt.audit"
  update_config '.process.args = ["/bin/sleep", "1000"]'
  # A container of the operator's default: audit_dir/ID.jsonl.
  agentrt_detached --config "$CONF" run -d -b "$BUNDLE" "$CID-a"
  [ "$status" -eq 0 ]
  annotate io.agentrt.audit "$dir/$CID-a.jsonl"
  refused_beside "audit log \`$dir/$CID-a.jsonl\`: container \`$CID-a\` writes it; a container's audit log is its own"
  # One a pod named: another pod may not name it, a container of the same pod may.
  annotate io.kubernetes.cri.sandbox-id pod1
  annotate io.agentrt.audit "$dir/pod1.jsonl"
  agentrt_detached --config "$CONF" run -d -b "$BUNDLE" "$CID-b"
  [ "$status" -eq 0 ]
  annotate io.kubernetes.cri.sandbox-id pod2
  refused_beside "audit log \`$dir/pod1.jsonl\`: container \`$CID-b\` writes it"
  annotate io.kubernetes.cri.sandbox-id pod1
  agentrt_detached --config "$CONF" run -d -b "$BUNDLE" "$CID-c"
  [ "$status" -eq 0 ]
  [ "$(jq -r .auditLog "$ROOT/state/$CID-c/state.json")" = "$dir/pod1.jsonl" ]
  # Deleted, the name is free again (the log is kept, as audit_dir's logs are).
  agentrt delete --force "$CID-a"
  [ "$status" -eq 0 ]
  annotate io.kubernetes.cri.sandbox-id pod3
  annotate io.agentrt.audit "$dir/$CID-a.jsonl"
  agentrt_detached --config "$CONF" run -d -b "$BUNDLE" "$CID-d"
  [ "$status" -eq 0 ]
  for c in b c d; do agentrt delete --force "$CID-$c"; done
  leaves_nothing
}

@test "agentrt exec [operator] exec checks the stored annotations against agentrt.conf as it is now" {
  conf "pod_annotations = io.agentrt.policy.ptrace"
  annotate io.agentrt.policy.ptrace allow
  update_config '.process.args = ["/bin/sleep", "1000"]'
  agentrt_detached --config "$CONF" run -d -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  agentrt --config "$CONF" exec "$CID" /bin/true
  [ "$status" -eq 0 ]
  # The operator takes it back: a new process does not get it.
  agentrt exec "$CID" /bin/true
  [ "$status" -eq 1 ]
  [ "$output" = "agentrt: annotation io.agentrt.policy.ptrace=allow lets the workload trace where the default refuses it: that is the operator's to ask for (pod_annotations = io.agentrt.policy.ptrace in agentrt.conf), not config.json's" ]
  agentrt delete --force "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

@test "agentrt create [operator] io.agentrt.net.allow may not name this host's own addresses; the flag and pod_annotations may" {
  local addr
  # A name is no address: the sandbox's resolver drops an answer naming the host's own
  # (tests/egress_dns.bats, rebinding).  v4-mapped forms are their IPv4 addresses; a cloud's
  # metadata service outside link-local (Alibaba's, Azure's WireServer, AWS's over IPv6) is the
  # host's too.
  for addr in 127.0.0.1:80 "[::1]:80" 0.0.0.0:80 169.254.169.254:80 \
    "[::ffff:127.0.0.1]:80" "[::ffff:169.254.169.254]:80" "[::ffff:7f00:2]:80" \
    100.100.100.200:80 168.63.129.16:80 "[fd00:ec2::254]:80" "[::ffff:100.100.100.200]:80"; do
    refused io.agentrt.net.allow "$addr" \
      "is an address of this host (loopback, link-local, a cloud's metadata service or one of its interfaces), which the broker would reach from the host's network: that is the operator's to allow (--net-allow, or pod_annotations = io.agentrt.net.allow in agentrt.conf)"
  done
  # An address of one of the host's interfaces, other than loopback.
  addr=$(ip -o -4 addr show scope global | awk '{ sub("/.*", "", $4); print $4; exit }')
  if [ -n "$addr" ]; then
    refused io.agentrt.net.allow "$addr:443" "annotation io.agentrt.net.allow: $addr:443 is an address of this host"
  fi
  serve 127.0.0.1 host
  update_config --arg p "$PORT" '.process.args = ["/bin/sh", "-c", "echo a | nc 127.0.0.1 \($p)"]'
  annotate io.agentrt.net.allow "127.0.0.1:$PORT"
  conf "pod_annotations = io.agentrt.net.allow"
  agentrt --config "$CONF" run -b "$BUNDLE" "$CID"
  servers_stop
  [ "$status" -eq 0 ]
  [[ "$output" == *"host:a"* ]]
  leaves_nothing
}

# The systemd driver's org.systemd.property.* (runc's, crun's) set any property of the container's
# unit, MemoryMax=infinity and DeviceAllow= among them: the operator's.  systemd does not run on
# this machine, so an annotation that passes the check gets as far as connecting to it.
@test "agentrt create: org.systemd.property.* annotations need pod_annotations = org.systemd.property.*" {
  local nosd=1
  [ ! -S /run/systemd/private ] && [ ! -S /run/dbus/system_bus_socket ] || nosd=0
  refused org.systemd.property.TimeoutStopSec 5 "annotation org.systemd.property.TimeoutStopSec sets a property of the container's systemd unit: that is the operator's to allow (pod_annotations = org.systemd.property.* in agentrt.conf), not config.json's" --systemd-cgroup
  conf "pod_annotations = org.systemd.property.*"
  refused org.systemd.property.TimeoutStopSec "'5'" "annotation org.systemd.property.TimeoutStopSec: \`'5'\` is not a value agentrt reads" --config "$CONF" --systemd-cgroup
  refused org.systemd.property.Memory-Max 5 "annotation org.systemd.property.Memory-Max: a property name is letters only" --config "$CONF" --systemd-cgroup
  if [ "$nosd" -eq 1 ]; then
    refused org.systemd.property.TimeoutStopSec 5 "systemd does not run here" --config "$CONF" --systemd-cgroup
  fi
  # The cgroupfs driver has no unit: they change nothing there, as with runc.
  annotate org.systemd.property.TimeoutStopSec 5
  agentrt run -b "$BUNDLE" "$CID"
  [ "$status" -eq 0 ]
  leaves_nothing
}

