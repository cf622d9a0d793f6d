#!/bin/bash
# The checkpoint/restore spike's measurements (docs/checkpoint.md), as root:
#   bash bench/checkpoint/spike.sh [check|notify|seize|sockets|runc|all]
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
		grep -qsE 'notify_ckpt|sk.py' "/proc/$p/cmdline" && kill -9 "$p" 2>/dev/null
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
	local img=$1 i
	shift
	for i in 1 2 3 4 5; do
		"$@" && return 0
		grep -qs "File exists" "$img/restore.log" || break
		sleep 0.5
	done
	grep Error "$img/restore.log"
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

# (c): dump and restore a task whose seccomp filter has a user-notification listener, and give
# the restored task a listener again.
do_notify() {
	build_notify
	local d="$work/notify" p t n0
	mkdir -p "$d/img" "$d/img2"
	(cd "$d" && exec "$work/notify_ckpt" run child.pid >out.log 2>sup.log) &
	pids+=($!)
	sleep 1
	p=$(cat "$d/child.pid")
	pids+=("$p")
	echo "== notify: before dump: $(tail -1 "$d/out.log"); $(grep Seccomp_filters "/proc/$p/status")"
	kill -USR1 "$p"
	sleep 0.3
	echo "the task stacks a listener itself: $(grep 'stack NEW_LISTENER' "$d/out.log") (EPERM: the policy's deny-seccomp-listener)"
	"$work/notify_ckpt" inject "$p" 2>"$d/inject0.log"
	echo "injected, the filter suspended: $(head -1 "$d/inject0.log") (EBUSY: one listener per chain)"
	t=$(now)
	"$CRIU" dump -t "$p" -D "$d/img" -o dump.log || {
		grep Error "$d/img/dump.log"
		return 1
	}
	echo "dump: $(since "$t") s"
	sleep 0.5
	echo "the old listener: $(cat "$d/sup.log")"
	t=$(now)
	restore_retry "$d/img" "$CRIU" restore -D "$d/img" -o restore.log -d || return 1
	echo "restore: $(since "$t") s"
	sleep 1
	echo "== notify: restored, running, no listener: $(tail -1 "$d/out.log"); $(grep Seccomp_filters "/proc/$p/status")"
	kill -USR1 "$p"
	sleep 0.3
	echo "the task stacks a listener itself: $(grep 'stack NEW_LISTENER' "$d/out.log" | tail -1) (ENOSYS: the policy's own notify has no listener)"
	"$work/notify_ckpt" inject "$p" 2>"$d/inject.log" &
	pids+=($!)
	sleep 1
	echo "== notify: after the injected stacking: $(tail -1 "$d/out.log"); $(grep Seccomp_filters "/proc/$p/status")"
	cat "$d/inject.log"
	echo "== notify: again, restored with --leave-stopped and injected before it runs"
	"$CRIU" dump -t "$p" -D "$d/img2" -o dump.log || return 1
	sleep 0.5
	# The output file stays as it was dumped (CRIU checks its size); what follows is new.
	n0=$(wc -l <"$d/out.log")
	t=$(now)
	restore_retry "$d/img2" "$CRIU" restore -D "$d/img2" -o restore.log -d --leave-stopped || return 1
	echo "restore: $(since "$t") s, $(grep State "/proc/$p/status")"
	t=$(now)
	"$work/notify_ckpt" inject "$p" 2>"$d/inject2.log" &
	pids+=($!)
	while ! grep -q 'close' "$d/inject2.log"; do sleep 0.01; done
	echo "inject: $(since "$t") s, $(grep State "/proc/$p/status"), $(grep Seccomp_filters "/proc/$p/status")"
	kill -CONT "$p"
	sleep 1
	echo "after SIGCONT: $(tail -n +$((n0 + 1)) "$d/out.log" | grep -c 'errno=38') calls got ENOSYS, $(tail -n +$((n0 + 1)) "$d/out.log" | grep -c 'getppid=4242') got 4242"
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

# (d): a TCP socket of another network namespace in the tree, as the egress broker puts one.
do_sockets() {
	local d="$work/sockets" p port
	mkdir -p "$d/img1" "$d/img2"
	cat >"$d/sk.py" <<'EOF'
import ctypes, os, socket, sys, time
srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    c = socket.create_connection(srv.getsockname())
    srv.close()
    if ctypes.CDLL(None, use_errno=True).unshare(0x40000000) != 0:  # CLONE_NEWNET
        sys.exit(1)
    os.setsid()
    fd = os.open('child.out', os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(os.open('/dev/null', os.O_RDONLY), 0); os.dup2(fd, 1); os.dup2(fd, 2)
    os.write(w, b'%d %d\n' % (os.getpid(), c.getsockname()[1])); os.close(w)
    while True: time.sleep(1)
os.close(w)
print(os.read(r, 32).decode().strip(), flush=True)
conn, _ = srv.accept()
time.sleep(600)
EOF
	(cd "$d" && exec python3 sk.py >child.pid) &
	pids+=($!)
	sleep 1.5
	read -r p port <"$d/child.pid"
	case "$p$port" in '' | *[!0-9]*) echo "sockets: no child" >&2; return 1 ;; esac
	echo "== sockets: pid $p in its own netns holds a connection made in the host's (from port $port)"
	"$CRIU" dump -t "$p" -D "$d/img1" -o dump.log --leave-running --tcp-established
	echo "criu dump --tcp-established: exit $?: $(grep Error "$d/img1/dump.log" | grep -v RLIMIT | head -1)"
	# SOCK_DESTROY of that one connection only: its own source port, on loopback.
	ss -K -tnH "( src 127.0.0.1:$port )" >/dev/null
	echo "after ss -K of it (SOCK_DESTROY: the socket is TCP_CLOSE):"
	"$CRIU" dump -t "$p" -D "$d/img2" -o dump.log
	echo "criu dump: exit $?"
	kill -9 "${pids[-1]}" 2>/dev/null # the parent: the dumped child's zombie goes with it
	sleep 0.5
	restore_retry "$d/img2" "$CRIU" restore -D "$d/img2" -o restore.log -d >/dev/null
	echo "criu restore: exit $?: $(grep Error "$d/img2/restore.log" | grep -v RLIMIT | head -1)"
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
sockets) do_sockets ;;
runc) do_runc ;;
all)
	do_check
	do_notify
	do_seize
	do_sockets
	do_runc
	;;
*)
	echo "usage: $0 [check|notify|seize|sockets|runc|all]" >&2
	exit 2
	;;
esac
