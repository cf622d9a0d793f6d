#!/usr/bin/env bats
# The systemd cgroup driver (--systemd-cgroup) where systemd is pid 1: it is not on the machines
# the tests run on, so setup_file boots a Debian 12 guest with systemd in qemu (TCG, the cgroup
# v2 VM's kernel; tests/lib/systemd_vm.sh, its image built once and cached), twice: with
# cgroup v2 (systemd.unified_cgroup_hierarchy=1) and on hybrid (=0).  In the guest,
# agentrt-tests.service runs tests/vm/systemd-tests.sh: agentrt's create, start, update, pause,
# exec, ps, kill --all and delete with the driver, checked against `systemctl show` and the
# cgroup files, runc 1.1.5 with --systemd-cgroup as the control; on v2 also containerd 1.6's CRI
# with SystemdCgroup = true and the kubelet's cgroupsPath, and Podman with cgroup_manager
# systemd, each against runc.  Each test here asserts one guest result by name.
load helpers
source "$BATS_TEST_DIRNAME/lib/systemd_vm.sh"
source "$BATS_TEST_DIRNAME/lib/oci_image.sh"
source "$BATS_TEST_DIRNAME/lib/deb.sh"

# Per boot: ~30 s to the test unit, then the tests (the guest runs 5-16x slower than the host).
VM_TIMEOUT=${AGENTRT_VM_TIMEOUT:-900}

# bats 1.8 cannot skip from setup_file: it leaves the reason in VM_SKIP for setup to skip.
setup_file() {
  export VM_SKIP=
  local c
  if [ "$(id -u)" -ne 0 ]; then
    VM_SKIP="needs root (debootstrap, mknod in the initramfs)"
  fi
  for c in qemu-system-x86_64 cpio debootstrap mkfs.ext4 objcopy gcc; do
    [ -n "$VM_SKIP" ] || command -v "$c" >/dev/null || VM_SKIP="$c is not installed (tools/install-deps.sh --tests)"
  done
  [ -z "$VM_SKIP" ] || return 0
  local kernel image pkgdir kver payload t0 t1 layout
  if ! kernel=$("$BATS_TEST_DIRNAME/vm/fetch-kernel.sh" 2>"$BATS_FILE_TMPDIR/fetch.err"); then
    VM_SKIP="no Debian kernel for the VM: $(cat "$BATS_FILE_TMPDIR/fetch.err")"
    return 0
  fi
  t0=$(date +%s.%N)
  image=$(systemd_vm_image "$kernel")
  t1=$(date +%s.%N)
  export VM_IMAGE_SECONDS
  VM_IMAGE_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  pkgdir=$(systemd_vm_pkgdir "$kernel")
  kver=$(ls "$pkgdir/lib/modules")
  payload=$BATS_FILE_TMPDIR/payload
  # The Debian package for the guest's Podman (t_deb): built once per run, tests/deb.bats too.
  export VM_DEB_SECONDS
  t0=$(date +%s.%N)
  mkdir -p "$payload"
  cp "$(deb_package)" "$payload/agentrt.deb" || rm -f "$payload/agentrt.deb"
  t1=$(date +%s.%N)
  VM_DEB_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  systemd_vm_payload "$payload"
  systemd_vm_initramfs "$pkgdir" "$kver" "$BATS_FILE_TMPDIR/initramfs.cpio" "$payload"
  rm -rf "$payload"
  export VM_KERNEL=$kernel VM_IMAGE=$image
  # The two boots side by side (each on a copy-on-write snapshot of the image): a guest's tests
  # are mostly serial, so each keeps about one CPU busy, and the file takes the longer boot's
  # time rather than the sum.
  local pids=()
  for layout in v2 hybrid; do
    systemd_vm_timed_boot "$kernel" "$image" "$layout" &
    pids+=($!)
  done
  wait "${pids[@]}"
}

# systemd_vm_timed_boot KERNEL IMAGE LAYOUT: one boot, its seconds in seconds-LAYOUT.
systemd_vm_timed_boot() {
  local t0 t1
  t0=$(date +%s.%N)
  VM_TIMEOUT=$VM_TIMEOUT systemd_vm_boot "$1" "$2" "$BATS_FILE_TMPDIR/initramfs.cpio" \
    "$BATS_FILE_TMPDIR/console-$3.log" "$BATS_FILE_TMPDIR/qemu-$3.log" "$3"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }' >"$BATS_FILE_TMPDIR/seconds-$3"
}

# systemd_vm_payload DIR: what the guest gets of this build (/opt/agentrt-test): agentrt (and
# the Debian package, agentrt.deb, put there before), the guest's tests, the engine helpers they
# reuse, a busybox rootfs, and OCI images of busybox and of the CRI's pause (tests/pause), made
# here: the guest has no registry.
systemd_vm_payload() {
  local d=$1 top=$BATS_TEST_DIRNAME/..
  mkdir -p "$d"/{tests/lib,contrib/kubernetes,contrib/podman,images,img/pause}
  install -m 0755 "$AGENTRT" "$d/agentrt"
  install -m 0755 "$BATS_TEST_DIRNAME/vm/systemd-tests.sh" "$d/systemd-tests.sh"
  cp "$BATS_TEST_DIRNAME"/lib/{cri.sh,containerd.sh,oci_image.sh,podman.sh,cri_client.py,pb.py} \
    "$d/tests/lib/"
  cp "$top/contrib/kubernetes/agentrt.conf" "$d/contrib/kubernetes/"
  cp "$top/contrib/podman/containers.conf" "$d/contrib/podman/"
  rootfs_busybox "$d/rootfs"
  gcc -static -O2 -o "$d/img/pause/pause" "$BATS_TEST_DIRNAME/pause/pause.c"
  oci_image_from_rootfs "$d/img/pause" "$d/images/pause.tar" localhost/agentrt-test/pause:1 /pause
  oci_image_from_rootfs "$d/rootfs" "$d/images/busybox.tar" localhost/agentrt-test/busybox:1
  rm -rf "$d/img"
}

setup() {
  [ -z "$VM_SKIP" ] || skip "$VM_SKIP"
}

# guest_test LAYOUT NAME: passes if that boot's guest printed `ok N NAME`; shows the guest's
# diagnostics for NAME.
guest_test() {
  local console=$BATS_FILE_TMPDIR/console-$1.log line
  line=$(grep -E "^(not )?ok [0-9]+ $2\$" "$console" || true)
  if [ -z "$line" ]; then
    echo "no result for \`$2\` on the $1 guest's console" >&2
    vm_finished "$1" || return 1
    return 1
  fi
  awk -v l="$line" '$0 == l { on = 1; print; next } on && /^# / { print; next } { on = 0 }' \
    "$console" >&2
  [[ "$line" == "ok "* ]]
}

# vm_finished LAYOUT: that guest ran to its marker.
vm_finished() {
  grep -q '^AGENTRT-VM-RESULT: ' "$BATS_FILE_TMPDIR/console-$1.log" 2>/dev/null && return 0
  echo "the $1 VM printed no result marker (timeout ${VM_TIMEOUT}s):" >&2
  cat "$BATS_FILE_TMPDIR/qemu-$1.log" >&2
  tail -n 60 "$BATS_FILE_TMPDIR/console-$1.log" >&2
  return 1
}

# vm_ran LAYOUT: the guest finished, and printed a result for every test it planned.
vm_ran() {
  local console=$BATS_FILE_TMPDIR/console-$1.log
  vm_finished "$1"
  grep '^guest: ' "$console" >&2
  echo "# $1 VM: $(cat "$BATS_FILE_TMPDIR/seconds-$1")s from qemu start to poweroff (image ready in ${VM_IMAGE_SECONDS}s, the .deb in ${VM_DEB_SECONDS}s)" >&3
  sed -n 's/^guest: tests ran/# guest: tests ran/p; s/^AGENTRT-VM-RESULT: /# guest result: /p' "$console" >&3
  [ "$(grep -cE '^(not )?ok [0-9]+ ' "$console")" -eq "$(sed -n 's/^1\.\.//p' "$console")" ]
}

@test "systemd VM v2: boots Debian 12 with systemd under TCG and runs every guest test" {
  vm_ran v2
}

@test "systemd VM v2: systemd is pid 1 on cgroup2, features says systemd: true" {
  guest_test v2 "layout"
}

@test "systemd VM v2: create --systemd-cgroup makes system.slice/agentrt-ID.scope with the init, later commands need no flag, delete removes the unit" {
  guest_test v2 "lifecycle"
}

@test "systemd VM v2: resources are the unit's properties as runc's are, and exact in the files (cpu.max 33333 where systemd has 34%)" {
  guest_test v2 "resources"
}

@test "systemd VM v2: cgroupsPath kubepods-besteffort-pod<uid>.slice:cri-containerd:ID expands to the kubelet's slices" {
  guest_test v2 "slice"
}

@test "systemd VM v2: org.systemd.property.* annotations need pod_annotations, then set the unit's properties as runc's" {
  guest_test v2 "property annotations"
}

@test "systemd VM v2: update sets the unit's properties and the files, and a daemon-reload keeps them" {
  guest_test v2 "update"
}

@test "systemd VM v2: pause freezes the scope, the supervisor waits outside, resume thaws" {
  guest_test v2 "pause resume"
}

@test "systemd VM v2: the supervisor's worker is in the scope's child cgroup agentrt-supervisor (Delegate=yes), its watchdog outside the unit" {
  guest_test v2 "supervisor cgroup"
}

@test "systemd VM v2: exec joins the unit, ps and events --stats count both processes, kill --all empties it" {
  guest_test v2 "exec ps kill all"
}

@test "systemd VM v2: DevicePolicy strict, /dev/null works, an unlisted device is refused" {
  guest_test v2 "devices"
}

@test "systemd VM v2: delete --force of a container with a damaged state.json stops the unit the journal names" {
  guest_test v2 "journal"
}

@test "systemd VM v2: delete --force after a create killed with its unit made leaves nothing" {
  guest_test v2 "killed create"
}

@test "systemd VM v2: a create that fails after its unit exists stops it and leaves nothing" {
  guest_test v2 "failed create"
}

@test "systemd VM v2: runc --systemd-cgroup (the control) runs, pauses and deletes its unit" {
  guest_test v2 "runc control"
}

@test "systemd VM v2: create with either driver leaves nothing after delete (and what each costs)" {
  guest_test v2 "create time"
}

@test "systemd VM v2: an OOM kill in the container ends it as it ends runc's (systemd's OOM policy for scopes)" {
  guest_test v2 "oom like runc"
}

@test "systemd VM v2: containerd's CRI with SystemdCgroup = true: pod slice, container scopes, MemoryMax, update, all gone after removal (runc too)" {
  guest_test v2 "cri"
}

@test "systemd VM v2: Podman with cgroup_manager systemd: libpod-ID.scope in machine.slice with the memory limit, gone after rm (runc too)" {
  guest_test v2 "podman"
}

@test "systemd VM v2: the Debian package installs with dpkg, and Podman runs agentrt through the installed drop-in" {
  guest_test v2 "deb podman drop-in"
  # What it adds to the v2 boot (the package is built in setup_file, VM_DEB_SECONDS).
  sed -n 's/^# deb podman drop-in: \(.*\)/# guest: dpkg -i and the Podman run took \1/p' \
    "$BATS_FILE_TMPDIR/console-v2.log" >&3
}

@test "systemd VM v2: no unit of any test is left" {
  guest_test v2 "no units left"
}

@test "systemd VM hybrid: boots with systemd.unified_cgroup_hierarchy=0 and runs every guest test" {
  vm_ran hybrid
}

@test "systemd VM hybrid: v1 controllers and the unified hierarchy" {
  guest_test hybrid "layout"
}

@test "systemd VM hybrid: the init is in systemd's v1 cgroups and in the freezer, cpuset, … ones agentrt joined; delete removes them all" {
  guest_test hybrid "lifecycle"
}

@test "systemd VM hybrid: resources are the unit's properties as runc's are (MemoryLimit, CPUShares), exact in the v1 files" {
  guest_test hybrid "resources"
}

@test "systemd VM hybrid: the kubelet's slice path" {
  guest_test hybrid "slice"
}

@test "systemd VM hybrid: org.systemd.property.* annotations, as runc's" {
  guest_test hybrid "property annotations"
}

@test "systemd VM hybrid: update sets the unit's properties and the v1 files" {
  guest_test hybrid "update"
}

@test "systemd VM hybrid: pause freezes the v1 freezer agentrt joined" {
  guest_test hybrid "pause resume"
}

@test "systemd VM hybrid: the supervisor's worker is in the scope's cpu,cpuacct cgroup, not its freezer; its watchdog outside the unit" {
  guest_test hybrid "supervisor cgroup"
}

@test "systemd VM hybrid: exec, ps and kill --all" {
  guest_test hybrid "exec ps kill all"
}

@test "systemd VM hybrid: DevicePolicy strict and the devices cgroup refuse an unlisted device" {
  guest_test hybrid "devices"
}

@test "systemd VM hybrid: delete --force stops the unit the journal names" {
  guest_test hybrid "journal"
}

@test "systemd VM hybrid: delete --force after a killed create leaves no v1 directory" {
  guest_test hybrid "killed create"
}

@test "systemd VM hybrid: a create that fails after its unit exists leaves no v1 directory" {
  guest_test hybrid "failed create"
}

@test "systemd VM hybrid: runc --systemd-cgroup (the control)" {
  guest_test hybrid "runc control"
}

@test "systemd VM hybrid: create with either driver leaves nothing after delete" {
  guest_test hybrid "create time"
}

@test "systemd VM hybrid: an OOM kill in the container ends it as it ends runc's" {
  guest_test hybrid "oom like runc"
}

@test "systemd VM hybrid: no unit of any test is left" {
  guest_test hybrid "no units left"
}
