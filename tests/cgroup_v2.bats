#!/usr/bin/env bats
# cgroup v2 for real: this machine is cgroup v1 hybrid, so agentrt's v2 path is proven in a VM.
# setup_file boots it once: qemu with TCG (no KVM needed), Debian 12's kernel (tests/vm/
# fetch-kernel.sh, unpacked, never installed), cgroup2 the only hierarchy, and an initramfs
# built from this build tree (tests/vm/build-initramfs.sh).  The guest's /init runs
# tests/vm/guest-tests.sh and prints TAP plus a result marker on the serial console; each test
# here asserts one guest line by name.  A guest test for a command this build lacks is a TODO
# there and a skip here.
load helpers

# The guest runs 5-16x slower than the host; the whole boot takes well under a minute.
VM_TIMEOUT=${AGENTRT_VM_TIMEOUT:-300}

# bats 1.8 cannot skip from setup_file: it leaves the reason in VM_SKIP for setup to skip.
setup_file() {
  export VM_SKIP=
  if [ "$(id -u)" -ne 0 ]; then
    VM_SKIP="needs root (mknod in the initramfs, the kernel cache)"
  elif ! command -v qemu-system-x86_64 >/dev/null; then
    VM_SKIP="qemu-system-x86_64 is not installed (qemu-system-x86)"
  elif ! command -v cpio >/dev/null; then
    VM_SKIP="cpio is not installed"
  fi
  [ -z "$VM_SKIP" ] || return 0
  local kernel initramfs pkgdir t0 t1
  if ! kernel=$("$BATS_TEST_DIRNAME/vm/fetch-kernel.sh" 2>"$BATS_FILE_TMPDIR/fetch.err"); then
    VM_SKIP="no Debian kernel for the VM: $(cat "$BATS_FILE_TMPDIR/fetch.err")"
    return 0
  fi
  initramfs="$BATS_FILE_TMPDIR/initramfs.cpio"
  # overlay is a module in Debian's kernel: the ephemeral rootfs (--disk) needs it; loop and
  # ext4 (with what ext4 needs) give the guest a filesystem that takes idmapped mounts (its
  # root is a tmpfs, which 6.1 cannot idmap).  The kernel is the unpacked package's vmlinux or
  # its boot/vmlinuz-*.
  pkgdir=$(dirname "$kernel")
  [ -d "$pkgdir/lib" ] || pkgdir=$(dirname "$pkgdir")
  local m modules=()
  for m in overlay loop crc16 mbcache jbd2 crc32c_generic ext4; do
    modules+=($(find "$pkgdir/lib/modules" -name "$m.ko" 2>/dev/null | head -n 1))
  done
  "$BATS_TEST_DIRNAME/vm/build-initramfs.sh" "$AGENTRT" "$initramfs" "${modules[@]}"
  export VM_CONSOLE="$BATS_FILE_TMPDIR/console.log"
  t0=$(date +%s.%N)
  # -no-reboot and panic=-1: a guest panic ends qemu instead of looping; loglevel=1 keeps
  # kernel messages (the OOM killer's) off the console the TAP is read from.
  timeout "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -nodefaults -display none \
    -no-reboot -serial "file:$VM_CONSOLE" -kernel "$kernel" -initrd "$initramfs" \
    -append "console=ttyS0 loglevel=1 panic=-1 cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1" \
    >"$BATS_FILE_TMPDIR/qemu.log" 2>&1 || echo "qemu: status $?" >>"$BATS_FILE_TMPDIR/qemu.log"
  t1=$(date +%s.%N)
  # The serial line ends lines with CR LF.
  sed -i 's/\r$//' "$VM_CONSOLE" 2>/dev/null || true
  export VM_SECONDS
  VM_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  export VM_KERNEL=$kernel
}

setup() {
  [ -z "$VM_SKIP" ] || skip "$VM_SKIP"
}

# guest_test NAME: passes if the guest printed `ok N NAME`, whether or not a later guest test
# hung the VM (the first test here fails then); shows the guest's diagnostics for NAME.
guest_test() {
  local line
  line=$(grep -E "^(not )?ok [0-9]+ $1( #.*)?\$" "$VM_CONSOLE" || true)
  if [ -z "$line" ]; then
    echo "no result for \`$1\` on the console" >&2
    vm_finished || return 1
    return 1
  fi
  # The test's `# ` lines up to the next result.
  awk -v l="$line" '$0 == l { on = 1; print; next } on && /^# / { print; next } { on = 0 }' \
    "$VM_CONSOLE" >&2
  case $line in
  "not ok "*"# TODO"*) skip "${line#*# TODO }" ;;
  "ok "*) return 0 ;;
  *) return 1 ;;
  esac
}

# vm_finished: the guest ran to its marker.
vm_finished() {
  grep -q '^AGENTRT-VM-RESULT: ' "$VM_CONSOLE" 2>/dev/null && return 0
  echo "the VM printed no result marker (timeout ${VM_TIMEOUT}s):" >&2
  cat "$BATS_FILE_TMPDIR/qemu.log" >&2
  tail -n 60 "$VM_CONSOLE" >&2
  return 1
}

@test "cgroup v2 VM: boots Debian's kernel under TCG and runs every guest test" {
  vm_finished
  grep '^guest: ' "$VM_CONSOLE" >&2
  echo "# VM: ${VM_SECONDS}s from qemu start to poweroff, kernel $VM_KERNEL" >&3
  sed -n 's/^AGENTRT-VM-RESULT: /# guest result: /p' "$VM_CONSOLE" >&3
  # Every guest test printed a result (a failure is reported by its own test below).
  [ "$(grep -cE '^(not )?ok [0-9]+ ' "$VM_CONSOLE")" -eq "$(sed -n 's/^1\.\.//p' "$VM_CONSOLE")" ]
}

@test "cgroup v2 VM: cgroup2 is the only hierarchy and state.json holds one directory" {
  guest_test "layout"
}

@test "cgroup v2 VM: a 64 MiB memory limit OOM-kills a memory bomb, the guest survives" {
  guest_test "memory oom"
}

@test "cgroup v2 VM: a fork bomb stops at pids.max 20" {
  guest_test "pids fork bomb"
}

@test "cgroup v2 VM: cpu.max 50000 100000 holds a spinner to about half a CPU" {
  guest_test "cpu quota"
}

@test "cgroup v2 VM: pause freezes the cgroup and resume thaws it" {
  guest_test "pause resume"
}

@test "cgroup v2 VM: update --memory and --resources change the limits live" {
  guest_test "update"
}

@test "cgroup v2 VM: after update, /proc/meminfo, nproc and cpu online follow memory.max, cpu.max and the cpuset" {
  guest_test "vfiles update"
}

@test "cgroup v2 VM: the device program allows /dev/null, denies a block device made with mknod, and update replaces it" {
  guest_test "devices"
}

@test "cgroup v2 VM: kill --all KILL kills every process of the container" {
  guest_test "kill all"
}

@test "cgroup v2 VM: ps lists the processes of the container's cgroup" {
  guest_test "ps"
}

@test "cgroup v2 VM: the supervisor is in the container's child cgroup, charged under its cpu.max, and not in ps" {
  guest_test "supervisor cgroup"
}

@test "cgroup v2 VM: pause moves the supervisor out of the frozen cgroup and resume back" {
  guest_test "supervisor pause"
}

@test "cgroup v2 VM: kill --all KILL stops the supervisor without an alert" {
  guest_test "supervisor kill all"
}

@test "cgroup v2 VM: the deadline is recorded and kills the container, supervisor included, without an alert" {
  guest_test "supervisor deadline"
}

@test "cgroup v2 VM: a loopback socket flood stays under memory.max" {
  guest_test "socket memory"
}

@test "cgroup v2 VM: kernelTCP below memory.max fails create by name, at or above it is accepted" {
  guest_test "kernel tcp"
}

@test "cgroup v2 VM: --disk 64m gives the writable layer 32768 inodes, and empty files stop there" {
  guest_test "tmpfs inodes"
}

@test "cgroup v2 VM: the inodes and dentries of a tmpfs the workload fills are charged to memory.max" {
  guest_test "tmpfs kmem"
}

@test "cgroup v2 VM: --agent runs on Debian 12's kernel from a bundle under a 0700 directory (overlay built by path)" {
  guest_test "agent any path"
}

@test "cgroup v2 VM: on ext4 the agent profile's root owns the root-owned image (idmapped lower layer), the bundle untouched" {
  guest_test "agent idmap"
}

@test "cgroup v2 VM: delete leaves no cgroup directory" {
  guest_test "cgroup removed"
}
