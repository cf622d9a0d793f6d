#!/bin/bash
# The compatibility corpus: what an agent does in a container, task by task.  Runs inside the
# corpus rootfs (tests/lib/debian.sh's debian_corpus_rootfs) with a writable, executable /tmp
# and no network but loopback.  Each task prints `OK NAME` or `FAIL NAME: REASON` (the reason is
# the last line the task wrote, which names the errno where a call was refused); every task runs
# even when one fails, and the exit status is 1 if any failed.  tests/compat.bats compares the
# outcome under each runtime configuration with runc's.
#   tasks.sh             run every task
#   tasks.sh --list      print the task names
#   CORPUS_TASKS=REGEX   run only the tasks whose name matches (extended regex)
#   CORPUS_TIMES=1       also print `# NAME MS` after each task
set -u

SELF=$(readlink -f "$0")
WORK=${CORPUS_WORK:-/tmp/corpus}
export HOME=$WORK/home LC_ALL=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
export GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid
export GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 PYTHONDONTWRITEBYTECODE=1

# fail MSG: the task's reason, as its last line.
fail() {
  echo "$*"
  exit 1
}

# why FILE: the line of a program's output that says why it failed: the last that names an
# errno or an error (a tool may warn before it fails), else the last.
why() {
  local l
  l=$(grep -E 'not permitted|denied|not implemented|No such|Invalid argument|fatal|rror' "$1" | tail -n 1)
  [ -n "$l" ] && echo "$l" || grep -v '^[[:space:]]*$' "$1" | tail -n 1
}

# expect WHAT EXPECTED ACTUAL
expect() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }

# hello.c, built by the tasks that need a small C program to work on.
hello_c() {
  cat >hello.c <<'EOF'
#include <stdio.h>
int main(int argc, char **argv) { printf("hello %d\n", argc); return 0; }
EOF
}

t_c_make() {
  hello_c
  cat >lib.c <<'EOF'
int twice(int x) { return 2 * x; }
EOF
  cat >main.c <<'EOF'
#include <stdio.h>
int twice(int);
int main(void) { printf("%d\n", twice(21)); return 0; }
EOF
  printf 'prog: main.o lib.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O2 -Wall -c $<\n' >Makefile
  make -j2 -s || fail "make failed"
  expect "prog" 42 "$(./prog)"
}

t_c_asan() {
  cat >a.c <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
int main(void) {
  char *p = malloc(64);
  strcpy(p, "no leak, no overflow");
  puts(p);
  free(p);
  return 0;
}
EOF
  gcc -g -fsanitize=address -o a a.c || fail "gcc -fsanitize=address failed"
  ./a >out 2>&1 || fail "leak-free asan program exited $?: $(why out)"
}

# LeakSanitizer finds a leak: its report needs its ptrace helper thread to work.
t_c_lsan_leak() {
  cat >l.c <<'EOF'
#include <stdlib.h>
void *keep;
int main(void) { keep = malloc(77); keep = 0; return 0; }
EOF
  gcc -g -fsanitize=address -o l l.c || fail "gcc failed"
  ./l >out 2>&1
  local rc=$?
  grep -q 'detected memory leaks' out && grep -q '77 byte' out || fail "rc=$rc: $(why out)"
}

t_cxx() {
  cat >t.cc <<'EOF'
#include <iostream>
#include <thread>
#include <vector>
#include <atomic>
#include <map>
int main() {
  std::atomic<int> n{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; i++) ts.emplace_back([&] { for (int j = 0; j < 1000; j++) n++; });
  for (auto &t : ts) t.join();
  std::map<std::string, int> m{{"a", 1}};
  try { throw std::runtime_error("x"); } catch (const std::exception &e) { m[e.what()] = 2; }
  std::cout << n << " " << m.size() << std::endl;
}
EOF
  g++ -O2 -pthread -o t t.cc || fail "g++ failed"
  expect "threads" "4000 2" "$(./t)"
}

t_git() {
  git init -q -b main repo && cd repo || fail "git init failed"
  echo one >f && git add f && git commit -q -m one || fail "commit failed"
  git checkout -q -b topic && echo two >g && git add g && git commit -q -m two || fail "branch failed"
  git checkout -q main && echo three >h && git add h && git commit -q -m three || fail "commit failed"
  git merge -q --no-edit topic || fail "merge failed"
  cd .. && git clone -q "file://$PWD/repo" clone || fail "clone failed"
  expect "log" 4 "$(git -C clone log --oneline | wc -l)"
  git -C clone gc -q || fail "gc failed"
  git -C clone fsck --no-dangling >/dev/null || fail "fsck failed"
}

t_node_child_process() {
  node -e '
const cp = require("child_process");
const out = cp.execFileSync("/bin/echo", ["from", "child"]).toString().trim();
if (out !== "from child") throw new Error(out);
const p = cp.spawn("/bin/sh", ["-c", "exit 3"]);
p.on("exit", (code) => { if (code !== 3) throw new Error("exit " + code); console.log("ok"); });
' || fail "node failed"
}

t_node_worker_threads() {
  node -e '
const { Worker } = require("worker_threads");
const w = new Worker("const { parentPort } = require(\"worker_threads\"); let s = 0; for (let i = 0; i < 1e6; i++) s += i; parentPort.postMessage(s);", { eval: true });
w.on("message", (m) => { if (m !== 499999500000) throw new Error(m); console.log("ok"); });
w.on("error", (e) => { console.error(e); process.exit(1); });
' || fail "node failed"
}

t_node_fs_http() {
  node -e '
const http = require("http"), fs = require("fs/promises");
(async () => {
  await fs.writeFile("x.txt", "data");
  const srv = http.createServer((q, r) => r.end("pong")).listen(0, "127.0.0.1", () => {
    http.get({ host: "127.0.0.1", port: srv.address().port }, (r) => {
      let b = ""; r.on("data", (d) => (b += d));
      r.on("end", () => { srv.close(); if (b !== "pong") process.exit(1); });
    });
  });
})();
' || fail "node failed"
}

# A venv with a wheel built here, installed without an index.  The venv uses the system's pip
# (--system-site-packages) instead of ensurepip's copy: ensurepip alone took 15 s of the corpus'
# 25 on a loaded machine, and runs the same pip code.
t_python_venv_wheel() {
  mkdir -p pkg/corpuspkg && cd pkg || fail "mkdir"
  echo 'def answer(): return 42' >corpuspkg/__init__.py
  printf 'from setuptools import setup\nsetup(name="corpuspkg", version="1.0", packages=["corpuspkg"])\n' >setup.py
  python3 setup.py -q bdist_wheel -d ../dist >../wheel.log 2>&1 || fail "bdist_wheel: $(why ../wheel.log)"
  cd .. && python3 -m venv --without-pip --system-site-packages v || fail "venv failed"
  v/bin/python -m pip install -q dist/corpuspkg-1.0-*.whl || fail "pip install failed"
  ls -d v/lib/python3*/site-packages/corpuspkg >/dev/null || fail "the wheel is not in the venv"
  expect "import" 42 "$(v/bin/python -c 'import corpuspkg; print(corpuspkg.answer())')"
}

# A file, not -c: the spawn and forkserver children import the main module again.
t_python_multiprocessing() {
  cat >mp.py <<'EOF'
import multiprocessing as mp
def sq(x): return x * x
if __name__ == "__main__":
    for method in ("fork", "spawn", "forkserver"):
        with mp.get_context(method).Pool(2) as p:
            assert p.map(sq, range(10)) == [x * x for x in range(10)], method
    q = mp.Queue(); pr = mp.Process(target=q.put, args=(7,)); pr.start(); assert q.get() == 7; pr.join()
    with mp.Manager() as m:
        d = m.dict(); d["a"] = 1; assert d["a"] == 1
EOF
  python3 mp.py || fail "python failed"
}

t_python_asyncio() {
  python3 -c '
import asyncio
async def echo(r, w):
    w.write(await r.read(100)); await w.drain(); w.close()
async def main():
    srv = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(b"ping"); w.write_eof()
    assert await r.read() == b"ping"
    p = await asyncio.create_subprocess_exec("/bin/echo", "sub", stdout=asyncio.subprocess.PIPE)
    out, _ = await p.communicate()
    assert out == b"sub\n"
    await asyncio.gather(*(asyncio.sleep(0.01) for _ in range(100)))
    srv.close(); await srv.wait_closed()
asyncio.run(main())
' || fail "python failed"
}

t_python_threading() {
  python3 -c '
import threading, queue, concurrent.futures as cf
q = queue.Queue()
ts = [threading.Thread(target=lambda i=i: q.put(i)) for i in range(16)]
[t.start() for t in ts]; [t.join() for t in ts]
assert sorted(q.get() for _ in range(16)) == list(range(16))
with cf.ThreadPoolExecutor(4) as ex:
    assert sum(ex.map(lambda x: x, range(100))) == 4950
ev = threading.Event(); threading.Timer(0.05, ev.set).start(); assert ev.wait(5)
' || fail "python failed"
}

t_python_numpy() {
  python3 -c '
import numpy as np
a = np.arange(10000, dtype=float).reshape(100, 100)
b = a @ a.T
assert b.shape == (100, 100)
x = np.linalg.solve(np.eye(50) * 2, np.ones(50))
assert np.allclose(x, 0.5)
print(np.fft.fft(np.ones(8))[0].real)
' || fail "numpy failed"
}

t_python_subprocess_sockets() {
  python3 -c '
import os, socket, subprocess, tempfile, select
a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
d = tempfile.mkdtemp(); path = os.path.join(d, "s")
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(path); conn, _ = s.accept(); c.send(b"y"); assert conn.recv(1) == b"y"
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u.bind(("::1", 0)); u.sendto(b"z", u.getsockname()); assert u.recv(1) == b"z"
out = subprocess.run(["sh", "-c", "echo $0", "arg"], capture_output=True, text=True).stdout
assert out == "arg\n", out
r, w = os.pipe(); assert select.select([r], [w], [], 1)[1] == [w]
' || fail "python failed"
}

t_sqlite() {
  sqlite3 db.sqlite 'create table t(a integer, b text); insert into t values (1, "x"), (2, "y");' ||
    fail "sqlite3 failed"
  expect "sum" 3 "$(sqlite3 db.sqlite 'select sum(a) from t;')"
  python3 -c '
import sqlite3
c = sqlite3.connect("db.sqlite"); c.execute("pragma journal_mode=wal")
c.execute("insert into t values (3, ?)", ("z",)); c.commit()
assert c.execute("select count(*) from t").fetchone()[0] == 3
' || fail "python sqlite3 failed"
}

t_perl() {
  expect "perl" "b=2 child=0" "$(perl -e '
my %h = (a => 1, b => 2); my $s = join " ", map { "$_=$h{$_}" } grep { /b/ } sort keys %h;
my $pid = fork(); if ($pid == 0) { exit 0 } waitpid($pid, 0);
print "$s child=", $? >> 8, "\n";')"
}

t_tar_xz() {
  mkdir -p src/d && seq 1 20000 >src/d/n && ln -s d/n src/link
  tar -cJf a.tar.xz src || fail "tar -cJ failed"
  mkdir out && tar -xJf a.tar.xz -C out || fail "tar -xJ failed"
  cmp src/d/n out/src/d/n || fail "contents differ"
  expect "link" d/n "$(readlink out/src/link)"
  xz -t a.tar.xz && gzip -c src/d/n | gzip -dc | cmp - src/d/n || fail "xz/gzip failed"
}

t_busybox() {
  expect "busybox" 3 "$(printf 'a\nb\nc\n' | busybox wc -l)"
  busybox sh -c 'for i in 1 2 3; do :; done; [ "$(busybox echo hi)" = hi ]' || fail "busybox sh failed"
}

t_shell_tools() {
  seq 1 200 | xargs -P 4 -n 10 echo >x || fail "xargs failed"
  expect "xargs" 200 "$(tr ' ' '\n' <x | grep -c .)"
  mkdir -p f/g && touch f/g/h && expect "find" f/g/h "$(find f -type f)"
  expect "sort" "1 2 3" "$(printf '3\n1\n2\n' | sort -n | paste -sd' ')"
  expect "awk/sed" "B" "$(echo b | sed 's/b/B/' | awk '{print $1}')"
  expect "sha256" 1 "$(echo x | sha256sum | grep -c '^[0-9a-f]\{64\}')"
}

t_ps() {
  ps aux >ps.out || fail "ps aux failed"
  grep -q 'ps aux' ps.out || fail "ps aux does not list itself"
  ps -eo pid,ppid,stat,comm >/dev/null || fail "ps -eo failed"
}

t_top() { top -b -n 1 | grep -q '^ *PID' || fail "top -b -n1 shows no process list"; }

t_free() { free -m | grep -q '^Mem:' || fail "free shows no Mem line"; }

t_df() { df -h / /tmp >/dev/null || fail "df failed: $(df / 2>&1 | tail -n 1)"; }

# nproc counts the CPUs the caller may run on, as sched_getaffinity reports them.
t_nproc() {
  expect "nproc" "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')" "$(nproc)"
}

t_uptime() { uptime | grep -q 'load average' || fail "uptime: $(uptime 2>&1)"; }

# A process started a second ago is a second old: ps reads its start time from
# /proc/PID/stat and the time since boot from /proc/uptime.
t_ps_etime() {
  sleep 30 &
  local pid=$! e
  sleep 1.2
  e=$(ps -o etimes= -p "$pid" | tr -d ' ')
  pgrep -O 1 -x sleep >pg
  kill "$pid"
  [ -n "$e" ] && [ "$e" -ge 1 ] && [ "$e" -le 5 ] || fail "ps -o etimes of a 1 s old process: '$e'"
  grep -qx "$pid" pg || fail "pgrep -O 1 does not find a 1 s old process"
}

t_pty() {
  python3 -c '
import os, pty
pid, fd = pty.fork()
if pid == 0:
    os.execlp("sh", "sh", "-c", "tty; stty size")
out = b""
while True:
    try:
        d = os.read(fd, 1024)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
assert b"/dev/pts/" in out, out
' || fail "python pty failed"
  script -qec 'test -t 0 && test -t 1' /dev/null >/dev/null || fail "script(1) gives no terminal"
}

t_exec_storm() {
  local i
  for ((i = 0; i < 500; i++)); do /bin/true || fail "exec $i failed"; done
  expect "forks" 100 "$(for ((i = 0; i < 100; i++)); do /bin/echo x; done | wc -l)"
}

t_strace() {
  hello_c && gcc -o hello hello.c || fail "gcc failed"
  strace -f -qq -o trace ./hello a >out 2>err || fail "$(why err)"
  grep -q '^[0-9]* *execve("./hello"' trace || grep -q '^execve("./hello"' trace || fail "no execve in strace output"
  grep -q 'write(1, "hello 2' trace || fail "no write in strace output"
}

t_gdb() {
  cat >crash.c <<'EOF'
#include <stddef.h>
static void inner(int *p) { *p = 1; }
int main(void) { inner(NULL); return 0; }
EOF
  gcc -g -O0 -o crash crash.c || fail "gcc failed"
  gdb -q -batch -ex run -ex bt ./crash >out 2>&1
  grep -q 'SIGSEGV' out && grep -q 'inner' out || fail "$(why out)"
}

# A nested sandbox: a user namespace of the workload's own.
t_unshare_user() {
  expect "unshare -U" 65534 "$(unshare -U id -u 2>&1)"
}

# taskset narrows the affinity: nproc in it counts one CPU.
t_taskset() {
  taskset -p $$ >/dev/null || fail "taskset -p failed"
  expect "taskset -c 0 nproc" 1 "$(taskset -c 0 nproc)"
}

# The affinity of a pid that does not exist is ESRCH.
t_taskset_esrch() {
  taskset -p 999999 >out 2>&1 && fail "taskset -p 999999 (no such pid) succeeded: $(cat out)"
  grep -q 'No such process' out || fail "taskset -p 999999: $(cat out)"
}

t_flock() {
  local i=0
  : >lock
  flock lock sh -c ': >held; sleep 1' &
  while [ ! -e held ] && ((i++ < 200)); do sleep 0.05; done
  ! flock -n lock true || fail "flock -n got a lock that is held"
  wait
  flock -n lock true || fail "flock -n failed on a free lock"
  python3 -c '
import fcntl
f = open("lock", "w"); fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB); fcntl.lockf(f, fcntl.LOCK_UN)
fcntl.flock(f, fcntl.LOCK_SH); fcntl.flock(f, fcntl.LOCK_UN)
' || fail "python lockf failed"
}

t_mmap_mprotect() {
  cat >m.c <<'EOF'
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
static sigjmp_buf env;
static void on_segv(int s) { (void) s; siglongjmp(env, 1); }
int main(void) {
  long pg = sysconf(_SC_PAGESIZE);
  char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); return 1; }
  memset(p, 1, 4 * pg);
  if (mprotect(p, pg, PROT_READ)) { perror("mprotect"); return 1; }
  signal(SIGSEGV, on_segv);
  if (sigsetjmp(env, 1) == 0) { p[0] = 2; puts("write to a read-only page succeeded"); return 1; }
  if (mprotect(p, pg, PROT_READ | PROT_WRITE)) { perror("mprotect back"); return 1; }
  p = mremap(p, 4 * pg, 8 * pg, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) { perror("mremap"); return 1; }
  if (madvise(p, 8 * pg, MADV_DONTNEED) || msync(p, pg, MS_ASYNC) || munmap(p, 8 * pg)) {
    perror("madvise/msync/munmap"); return 1;
  }
  void *x = mmap(NULL, pg, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (x == MAP_FAILED) { perror("mmap rwx"); return 1; }
  return 0;
}
EOF
  gcc -o m m.c && ./m || fail "mmap test failed"
}

t_signals() {
  cat >s.c <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile sig_atomic_t got;
static void on(int s, siginfo_t *i, void *c) { (void) c; got = s == SIGUSR1 && i->si_value.sival_int == 7; }
int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on; sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
  if (sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 7}) || !got) { puts("sigqueue"); return 1; }
  sigset_t set; sigemptyset(&set); sigaddset(&set, SIGUSR2); sigprocmask(SIG_BLOCK, &set, NULL);
  kill(getpid(), SIGUSR2);
  int sig; if (sigwait(&set, &sig) || sig != SIGUSR2) { puts("sigwait"); return 1; }
  pid_t c = fork(); if (c == 0) { pause(); _exit(0); }
  kill(c, SIGTERM); int st; waitpid(c, &st, 0);
  if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM) { puts("child"); return 1; }
  return 0;
}
EOF
  gcc -o s s.c && ./s || fail "signal test failed"
  (trap 'echo trapped' USR1; kill -USR1 $BASHPID; true) | grep -q trapped || fail "bash trap failed"
}

t_timers() {
  cat >tm.c <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include <sys/time.h>
static volatile sig_atomic_t fired;
static void on(int s) { (void) s; fired++; }
int main(void) {
  struct timespec a, b, r;
  clock_gettime(CLOCK_MONOTONIC, &a);
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  struct itimerspec its = {.it_value = {0, 20000000}};
  if (fd < 0 || timerfd_settime(fd, 0, &its, NULL)) { perror("timerfd"); return 1; }
  uint64_t n; if (read(fd, &n, 8) != 8 || n != 1) { puts("timerfd read"); return 1; }
  signal(SIGALRM, on);
  timer_t t; struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM};
  if (timer_create(CLOCK_MONOTONIC, &ev, &t) || timer_settime(t, 0, &its, NULL)) { perror("timer_create"); return 1; }
  while (!fired) pause();
  struct itimerval iv = {.it_value = {0, 10000}};
  setitimer(ITIMER_REAL, &iv, NULL); while (fired < 2) pause();
  nanosleep(&(struct timespec){0, 1000000}, NULL);
  clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){0, 1000000}, NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (clock_getres(CLOCK_REALTIME, &r) || clock_gettime(CLOCK_BOOTTIME, &r) || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &r)) { puts("clocks"); return 1; }
  double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  if (ms < 40 || ms > 5000) { printf("elapsed %.1f ms\n", ms); return 1; }
  return 0;
}
EOF
  gcc -o tm tm.c && ./tm || fail "timer test failed"
}

t_proc() {
  grep -q '^Pid:' /proc/self/status && grep -q 'r-xp' /proc/self/maps || fail "/proc/self"
  grep -q '^MemTotal:' /proc/meminfo && grep -q '^processor' /proc/cpuinfo || fail "meminfo/cpuinfo"
  read -r _ _ _ _ _ </proc/loadavg || fail "loadavg"
  [ -e "/proc/$$/fd/0" ] && [ -n "$(ls /proc/$$/fd)" ] || fail "/proc/PID/fd"
  [ "$(readlink /proc/self/exe)" = /usr/bin/readlink ] || fail "/proc/self/exe"
  grep -q . /proc/self/cgroup /proc/self/mountinfo /proc/self/limits || fail "cgroup/mountinfo/limits"
}

# One kernel: uname, /proc/version and /proc/sys/kernel/osrelease name the same release.
t_kernel_identity() {
  local r
  r=$(uname -r)
  expect "osrelease" "$r" "$(cat /proc/sys/kernel/osrelease)"
  grep -qF "Linux version $r " /proc/version || fail "/proc/version is not release $r: $(cut -c1-60 /proc/version)"
}

# /proc/uptime and CLOCK_BOOTTIME count from the same boot.
t_uptime_boottime() {
  python3 -c '
import time
up = float(open("/proc/uptime").read().split()[0])
bt = time.clock_gettime(time.CLOCK_BOOTTIME)
assert abs(up - bt) < 2, "/proc/uptime %.0f, CLOCK_BOOTTIME %.0f" % (up, bt)
' 2>&1 | tail -n 1 | grep . && return 1
  return 0
}

t_curl_loopback() {
  local port=$((20000 + RANDOM % 20000)) i
  echo served >index.txt
  python3 -m http.server --bind 127.0.0.1 "$port" >srv.log 2>&1 &
  local pid=$!
  for ((i = 0; i < 300; i++)); do
    curl -sf "http://127.0.0.1:$port/index.txt" >got 2>/dev/null && break
    sleep 0.05
  done
  kill "$pid"
  wait "$pid" 2>/dev/null
  expect "curl" served "$(cat got 2>/dev/null)"
}

t_users() {
  expect "id -u" 0 "$(id -u)"
  whoami >/dev/null && getent passwd root >/dev/null || fail "whoami/getent failed"
  python3 -c 'import os, pwd, getpass; pwd.getpwuid(os.getuid()); getpass.getuser()' || fail "pwd"
}

t_inotify() {
  python3 -c '
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_CLOEXEC)
assert fd >= 0, os.strerror(ctypes.get_errno())
assert libc.inotify_add_watch(fd, b".", 0x100) >= 0, os.strerror(ctypes.get_errno())
open("new", "w").close()
ev = os.read(fd, 4096)
assert struct.unpack_from("iIII", ev)[1] & 0x100
' || fail "inotify failed"
}

t_files() {
  mkdir -p d && echo x >d/f && ln d/f d/hard && ln -s f d/sym && mv d/f d/g || fail "file ops"
  chmod 600 d/g && [ "$(stat -c %a d/g)" = 600 ] || fail "chmod/stat"
  touch -d '2020-01-01' d/g && [ "$(stat -c %Y d/g)" -lt 1600000000 ] || fail "utimensat"
  truncate -s 1M d/big && fallocate -l 2M d/big && sync d/big || fail "truncate/fallocate/sync"
  cp -a d e && rm -r d e || fail "cp -a/rm -r"
  dd if=/dev/urandom of=r bs=4k count=4 status=none && [ "$(stat -c %s r)" = 16384 ] || fail "dd"
  mkfifo p && (echo fifo >p &) && [ "$(cat p)" = fifo ] || fail "fifo"
  python3 -c 'import os; os.setxattr("r", "user.k", b"v")' 2>/dev/null
  return 0
}

t_limits() {
  ulimit -n 512 && [ "$(ulimit -n)" = 512 ] || fail "ulimit -n"
  python3 -c '
import resource
resource.setrlimit(resource.RLIMIT_CORE, (0, 0)); resource.getrusage(resource.RUSAGE_SELF)
import os; os.nice(1); os.sched_yield()
' || fail "rlimit/nice"
}

TASKS="c_make c_asan c_lsan_leak cxx git node_child_process node_worker_threads node_fs_http
python_venv_wheel python_multiprocessing python_asyncio python_threading python_numpy
python_subprocess_sockets sqlite perl tar_xz busybox shell_tools ps top free df nproc uptime
ps_etime pty exec_storm strace gdb unshare_user taskset taskset_esrch flock mmap_mprotect signals timers proc
kernel_identity uptime_boottime curl_loopback users inotify files limits"

case ${1:-} in
  --list)
    for t in $TASKS; do echo "${t//_/-}"; done
    exit 0
    ;;
  --one)
    # One task, in the current directory (the runner's re-exec under timeout).
    t=${2//-/_}
    "t_$t"
    exit
    ;;
esac

mkdir -p "$HOME" || exit 1
failed=0
for t in $TASKS; do
  name=${t//_/-}
  [[ $name =~ ${CORPUS_TASKS:-.} ]] || continue
  dir=$WORK/$name
  rm -rf "$dir" && mkdir -p "$dir" || exit 1
  # A process each: a task's cd, traps and exit stay its own; 60 s at most.
  t0=${EPOCHREALTIME/[.,]/}
  (cd "$dir" && exec timeout -k 5 60 bash "$SELF" --one "$name") >"$dir.log" 2>&1 </dev/null
  rc=$?
  [ -z "${CORPUS_TIMES:-}" ] || echo "# $name $(((${EPOCHREALTIME/[.,]/} - t0) / 1000)) ms"
  if [ $rc -eq 0 ]; then
    echo "OK $name"
  else
    failed=1
    echo "FAIL $name: rc=$rc: $(grep -v '^[[:space:]]*$' "$dir.log" | tail -n 1 | cut -c1-240)"
  fi
  [ -n "${CORPUS_KEEP:-}" ] || rm -rf "$dir" "$dir.log"
done
exit $failed
