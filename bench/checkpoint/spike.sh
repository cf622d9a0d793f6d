#!/bin/bash
# The checkpoint/restore spike's measurements (docs/checkpoint.md), as root:
#   bash bench/checkpoint/spike.sh [check|notify|seize|runc|all]
# CRIU=path picks the criu binary (default: criu in PATH; Debian 12's 3.17 cannot run on
# kernels >= 6.13, docs/checkpoint.md says how to build 4.2).  RUNC=path picks runc.
# Everything is made under a private mktemp directory and removed at the end.
set -u
CRIU=${CRIU:-criu}
RUNC=${RUNC:-runc}
ROOTFS=${ROOTFS:-/var/cache/agentrt-tests/debian-bookworm-py-r1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/agentrt-ckpt-spike.XXXXXX)
pids=()
runc_id=

cleanup() {
	local p
	# Only ours: a pid may have been reused since (pid_max is small here).
	for p in "${pids[@]}"; do
		grep -qs notify_ckpt "/proc/$p/cmdline" && kill -9 "$p" 2>/dev/null
	done
	if [ -n "$runc_id" ]; then
		"$RUNC" --root "$work/runc-root" delete -f "$runc_id" >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | sed 's/^\./0./'; }

# criu restore gives the tree its old pids: on a busy machine with pid_max 32768 one may have
# been taken again meanwhile ("Can't fork for PID: File exists"); try again.
restore_retry() {
	local i
	for i in 1 2 3 4 5; do
		"$@" && return 0
		grep -qs "File exists" "$work/notify/img/restore.log" || return 1
		sleep 0.5
	done
	return 1
}

do_check() {
	echo "== criu check ($("$CRIU" --version | head -1))"
	"$CRIU" check 2>&1 | tail -3
	echo "== criu check --all"
	"$CRIU" check --all 2>&1 | grep -v 'libnftables support' | tail -6
}

build_notify() {
	[ -x "$work/notify_ckpt" ] || gcc -O2 -Wall -o "$work/notify_ckpt" "$here/notify_ckpt.c" || exit 1
}

# (c): dump and restore a task whose seccomp filter has a user-notification listener.
do_notify() {
	build_notify
	local d="$work/notify" p t
	mkdir -p "$d/img"
	(cd "$d" && exec "$work/notify_ckpt" run child.pid >out.log 2>sup.log) &
	pids+=($!)
	sleep 1
	p=$(cat "$d/child.pid")
	pids+=("$p")
	echo "== notify: before dump: $(tail -1 "$d/out.log")"
	grep Seccomp_filters "/proc/$p/status"
	t=$(now)
	"$CRIU" dump -t "$p" -D "$d/img" -o dump.log || {
		grep Error "$d/img/dump.log"
		return 1
	}
	echo "dump: $(since "$t") s"
	sleep 0.5
	echo "supervisor: $(cat "$d/sup.log")"
	t=$(now)
	restore_retry "$CRIU" restore -D "$d/img" -o restore.log -d 2>"$work/last-restore.log" || {
		grep Error "$d/img/restore.log"
		return 1
	}
	echo "restore: $(since "$t") s"
	sleep 1
	echo "== notify: after restore, no listener: $(tail -1 "$d/out.log")"
	grep Seccomp_filters "/proc/$p/status"
	"$work/notify_ckpt" adopt "$p" 2>"$d/adopt.log" &
	pids+=($!)
	sleep 1
	echo "== notify: after a second filter with NEW_LISTENER is stacked: $(tail -1 "$d/out.log")"
	grep Seccomp_filters "/proc/$p/status"
	cat "$d/adopt.log"
	echo "== notify: the same stacking before a checkpoint (listener already on the chain):"
	(cd "$d" && exec "$work/notify_ckpt" run child2.pid >out2.log 2>sup2.log) &
	pids+=($!)
	sleep 1
	pids+=("$(cat "$d/child2.pid")")
	kill -USR1 "$(cat "$d/child2.pid")"
	sleep 0.3
	grep 'stack NEW_LISTENER' "$d/out2.log"
}

# agentrt's kill switch: the supervisor PTRACE_SEIZEs the init; CRIU must seize it too.
do_seize() {
	build_notify
	local d="$work/seize" p
	mkdir -p "$d/img"
	(cd "$d" && exec "$work/notify_ckpt" run --seize child.pid >out.log 2>sup.log) &
	pids+=($!)
	sleep 1
	p=$(cat "$d/child.pid")
	pids+=("$p")
	echo "== seize: $(grep TracerPid "/proc/$p/status")"
	"$CRIU" dump -t "$p" -D "$d/img" -o dump.log --leave-running
	echo "criu dump exit $?:"; grep -B2 Error "$d/img/dump.log" | grep -v RLIMIT_NOFILE | head -8
}

# (b): runc checkpoint/restore of a python3 holding 100 MiB.
do_runc() {
	local b="$work/bundle" r="$work/runc-root" p t
	mkdir -p "$b"
	(cd "$b" && "$RUNC" spec)
	python3 - "$b/config.json" "$ROOTFS" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c['root'] = {'path': sys.argv[2], 'readonly': True}
c['process']['terminal'] = False
c['process']['args'] = ['python3', '-c',
    'import os,time\nb=bytearray(os.urandom(100<<20))\nwhile True: time.sleep(1)']
json.dump(c, open(sys.argv[1], 'w'))
EOF
	runc_id=ckpt-spike-$$
	# stdio are pipes: runc hands a restore its own pipes in their place (a host file is
	# refused by CRIU: its mount is not the container's).
	: | "$RUNC" --root "$r" run -d --bundle "$b" "$runc_id" 2>&1 | cat >/dev/null &
	sleep 4
	p=$("$RUNC" --root "$r" state "$runc_id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
	echo "== runc: python3 pid $p, $(grep VmRSS "/proc/$p/status")"
	t=$(now)
	"$RUNC" --root "$r" --criu "$CRIU" checkpoint --image-path "$work/img" --work-path "$work/wp" "$runc_id" || {
		grep Error "$work/wp/dump.log" | head -3
		return 1
	}
	echo "runc checkpoint: $(since "$t") s, image $(du -sb "$work/img" | cut -f1) bytes"
	t=$(now)
	: | "$RUNC" --root "$r" --criu "$CRIU" restore -d --bundle "$b" --image-path "$work/img" --work-path "$work/wr" "$runc_id" 2>&1 | cat >/dev/null &
	while ! "$RUNC" --root "$r" state "$runc_id" 2>/dev/null | grep -q '"running"'; do sleep 0.01; done
	echo "runc restore: $(since "$t") s"
	p=$("$RUNC" --root "$r" state "$runc_id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
	echo "restored python3 pid $p, $(grep VmRSS "/proc/$p/status")"
}

case "${1:-all}" in
check) do_check ;;
notify) do_notify ;;
seize) do_seize ;;
runc) do_runc ;;
all)
	do_check
	do_notify
	do_seize
	do_runc
	;;
*)
	echo "usage: $0 [check|notify|seize|runc|all]" >&2
	exit 2
	;;
esac
