# A Debian 12 VM with systemd as pid 1, for tests/systemd.bats (the systemd cgroup driver: no
# systemd runs on the machines the tests run on).  Source this file; it defines
# systemd_vm_image, systemd_vm_initramfs and systemd_vm_boot.
#
# The guest: a debootstrap'ed Debian 12 (systemd, dbus, and what the tests drive: containerd,
# runc, podman with conmon, python3-grpcio for tests/lib/cri_client.py) in an ext4 image made
# with `mkfs.ext4 -d` (no loop device, no mount), cached in $AGENTRT_TEST_CACHE like
# tests/lib/debian.sh's rootfs, and booted read-only (qemu's snapshot=on: the guest's writes go
# to a temporary overlay, the image stays as built).  The kernel is tests/vm/fetch-kernel.sh's
# (the cgroup v2 VM's); its modules that the image needs (overlay, for containerd's and Podman's
# snapshots) are put into the image, and the initramfs holds those that mount the root (virtio,
# ext4).  What changes with each build of agentrt (the binary, the guest's test script, the test
# images) goes into the initramfs, and /init copies it into the root before it hands over to
# systemd, whose unit agentrt-tests.service runs the tests, prints TAP on the serial console and
# powers off.

AGENTRT_TEST_CACHE=${AGENTRT_TEST_CACHE:-/var/cache/agentrt-tests}
# Bump -rN whenever what goes into the image changes, so an old cache is not reused.
SYSTEMD_VM_NAME=debian-bookworm-systemd-r1
# debootstrap's own: the base, and agentrt's libraries.
SYSTEMD_VM_BASE=systemd,systemd-sysv,dbus,kmod,libyajl2,libseccomp2,libcap2,procps,util-linux,iproute2,jq
# Installed after, with apt in the new root (debootstrap fails to configure containers-common
# when Podman comes in its --include): the engines the tests drive.
SYSTEMD_VM_ENGINES="containerd runc podman conmon python3 python3-grpcio"
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The modules that mount the root, in the order they load (each after what it depends on,
# computed from the modules' own .modinfo at build time).
SYSTEMD_VM_BOOT_MODULES="virtio_pci virtio_blk ext4 crc32c_generic"
# The module directories the guest itself loads from (overlay; and what these need).
SYSTEMD_VM_GUEST_MODULES="kernel/fs kernel/lib kernel/crypto kernel/arch/x86/crypto"

# systemd_vm_image KERNEL: prints the path of the cached image for KERNEL (tests/vm/
# fetch-kernel.sh's vmlinux or vmlinuz, inside the unpacked package), building it first if it is
# missing: a few minutes, once per kernel version.
systemd_vm_image() {
  local kernel=$1 pkgdir kver img lock fd rc=0
  pkgdir=$(systemd_vm_pkgdir "$kernel") || return 1
  kver=$(ls "$pkgdir/lib/modules")
  img="$AGENTRT_TEST_CACHE/$SYSTEMD_VM_NAME-$kver.img"
  # Only a finished image is ever renamed to $img.
  if [ -s "$img" ]; then echo "$img"; return 0; fi
  mkdir -p "$AGENTRT_TEST_CACHE" || return 1
  lock="$img.lock"
  exec {fd}>"$lock" || return 1
  if ! flock -w 1800 "$fd"; then
    echo "systemd_vm_image: timed out waiting for $lock" >&2; exec {fd}>&-; return 1
  fi
  if [ ! -s "$img" ]; then
    __systemd_vm_build "$img" "$pkgdir" "$kver" || rc=$?
  fi
  exec {fd}>&-
  [ "$rc" -eq 0 ] || return "$rc"
  echo "$img"
}

# systemd_vm_pkgdir KERNEL: the unpacked kernel package the kernel file is in.
systemd_vm_pkgdir() {
  local d
  d=$(dirname "$1")
  [ -d "$d/lib/modules" ] || d=$(dirname "$d")
  [ -d "$d/lib/modules" ] || { echo "systemd_vm: no lib/modules beside $1" >&2; return 1; }
  echo "$d"
}

# __systemd_vm_build IMG PKGDIR KVER: debootstrap, then the guest's configuration, then the
# ext4 image.  Called with the lock held.
__systemd_vm_build() {
  local img=$1 pkgdir=$2 kver=$3 tmp log m
  for c in debootstrap mkfs.ext4; do
    command -v "$c" >/dev/null || { echo "systemd_vm: $c not found: run tools/install-deps.sh --tests" >&2; return 1; }
  done
  rm -rf --one-file-system "$img".tmp.*
  tmp=$(mktemp -d "$img.tmp.XXXXXX") || return 1
  chmod 0755 "$tmp"
  log="$tmp.log"
  echo "systemd_vm: building $img with debootstrap (a few minutes; log in $log)" >&2
  if ! debootstrap --variant=minbase --include="$SYSTEMD_VM_BASE" bookworm "$tmp/root" \
    "$DEBIAN_MIRROR" >"$log" 2>&1; then
    echo "systemd_vm: debootstrap failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    rm -rf --one-file-system "$tmp"
    return 1
  fi
  # No service may start in the chroot; /proc for the packages' scripts, in a mount namespace
  # of its own, which goes (with the mount) when apt is done.
  printf '#!/bin/sh\nexit 101\n' >"$tmp/root/usr/sbin/policy-rc.d"
  chmod 0755 "$tmp/root/usr/sbin/policy-rc.d"
  # shellcheck disable=SC2016 # expanded by the inner shell
  if ! unshare --mount --fork sh -c 'mount -t proc proc "$0/proc" &&
      DEBIAN_FRONTEND=noninteractive chroot "$0" apt-get install -y -q --no-install-recommends "$@"' \
    "$tmp/root" $SYSTEMD_VM_ENGINES >>"$log" 2>&1; then
    echo "systemd_vm: apt-get install $SYSTEMD_VM_ENGINES failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    rm -rf --one-file-system "$tmp"
    return 1
  fi
  rm -f "$tmp/root/usr/sbin/policy-rc.d"
  rm -f "$tmp"/root/var/cache/apt/archives/*.deb "$tmp"/root/var/lib/apt/lists/*_Packages
  mkdir -p "$tmp/root/lib/modules/$kver"
  for m in $SYSTEMD_VM_GUEST_MODULES; do
    [ -d "$pkgdir/lib/modules/$kver/$m" ] || continue
    mkdir -p "$tmp/root/lib/modules/$kver/$(dirname "$m")"
    cp -a "$pkgdir/lib/modules/$kver/$m" "$tmp/root/lib/modules/$kver/$m"
  done
  cp "$pkgdir"/lib/modules/"$kver"/modules.builtin* "$tmp/root/lib/modules/$kver/"
  chroot "$tmp/root" depmod "$kver" >>"$log" 2>&1 || { echo "systemd_vm: depmod failed" >&2; rm -rf "$tmp"; return 1; }
  __systemd_vm_configure "$tmp/root" || { rm -rf --one-file-system "$tmp"; return 1; }
  # 3 GiB, sparse: the guest's containers and images are written to qemu's overlay, not here.
  if ! mkfs.ext4 -q -F -L agentrt-root -d "$tmp/root" "$tmp/root.img" 3G >>"$log" 2>&1; then
    echo "systemd_vm: mkfs.ext4 -d failed (e2fsprogs 1.43 or later?); see $log" >&2
    rm -rf --one-file-system "$tmp"
    return 1
  fi
  mv "$tmp/root.img" "$img" || { rm -rf --one-file-system "$tmp"; return 1; }
  rm -rf --one-file-system "$tmp" "$log"
}

# __systemd_vm_configure ROOT: the guest's own settings.  The test unit is the one thing
# multi-user.target starts that matters; what would wait for a network, a login or a clock is
# masked, so that the tests start as soon as dbus is up.
__systemd_vm_configure() {
  local root=$1 u
  echo agentrt-vm >"$root/etc/hostname"
  printf '127.0.0.1 localhost agentrt-vm\n' >"$root/etc/hosts"
  : >"$root/etc/machine-id"
  printf 'LABEL=agentrt-root / ext4 rw 0 1\n' >"$root/etc/fstab"
  for u in serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service \
    apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
    systemd-networkd-wait-online.service containerd.service podman.service podman.socket \
    podman-restart.service podman-auto-update.timer systemd-logind.service; do
    ln -sf /dev/null "$root/etc/systemd/system/$u"
  done
  cat >"$root/etc/systemd/system/agentrt-tests.service" <<'EOF'
[Unit]
Description=agentrt's systemd driver tests
After=basic.target dbus.service
Wants=dbus.service
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ExecStart=/opt/agentrt-test/systemd-tests.sh
EOF
  mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
  ln -sf ../agentrt-tests.service "$root/etc/systemd/system/multi-user.target.wants/agentrt-tests.service"
  # No journal on disk, nothing of systemd's own on the console but what we print.
  mkdir -p "$root/etc/systemd/journald.conf.d"
  printf '[Journal]\nStorage=volatile\nForwardToConsole=no\n' >"$root/etc/systemd/journald.conf.d/agentrt.conf"
}

# systemd_vm_modules PKGDIR KVER MODULE…: the .ko files of MODULE… and of what they depend on,
# dependencies first (from each module's .modinfo `depends=`, as modprobe would load them).
systemd_vm_modules() {
  local pkgdir=$1 kver=$2 m
  shift 2
  declare -A seen=()
  __mod_visit() {
    local name=$1 ko deps d
    [ -z "${seen[$name]:-}" ] || return 0
    seen[$name]=1
    ko=$(find "$pkgdir/lib/modules/$kver/kernel" -name "$name.ko" -o -name "${name//_/-}.ko" | head -n 1)
    [ -n "$ko" ] || return 0 # built in
    deps=$(objcopy -O binary --only-section=.modinfo "$ko" /dev/stdout 2>/dev/null | tr '\0' '\n' |
      sed -n 's/^depends=//p')
    for d in ${deps//,/ }; do __mod_visit "$d"; done
    echo "$ko"
  }
  for m in "$@"; do __mod_visit "$m"; done
}

# systemd_vm_initramfs PKGDIR KVER OUT PAYLOAD: busybox, the root's modules, /init
# (tests/vm/systemd-init) and PAYLOAD (a directory: /opt/agentrt-test in the guest).
systemd_vm_initramfs() {
  local pkgdir=$1 kver=$2 out=$3 payload=$4 stage here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  stage=$(mktemp -d "${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/sdvm-initramfs.XXXXXX") || return 1
  mkdir -p "$stage"/{bin,dev,proc,sys,newroot,modules}
  cp "$(command -v busybox)" "$stage/bin/busybox"
  for a in sh mount umount insmod switch_root mkdir cp cat echo sleep poweroff ls; do
    ln -s busybox "$stage/bin/$a"
  done
  systemd_vm_modules "$pkgdir" "$kver" $SYSTEMD_VM_BOOT_MODULES >"$stage/modules/order.list" || return 1
  while read -r ko; do cp "$ko" "$stage/modules/"; done <"$stage/modules/order.list"
  sed -i 's|.*/||' "$stage/modules/order.list"
  install -m 0755 "$here/vm/systemd-init" "$stage/init"
  cp -a "$payload" "$stage/payload"
  mknod -m 0600 "$stage/dev/console" c 5 1
  (cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp" || { rm -rf "$stage"; return 1; }
  mv "$out.tmp" "$out"
  rm -rf "$stage"
}

# systemd_vm_boot KERNEL IMAGE INITRAMFS CONSOLE LOG CGROUP: boots the guest until it powers
# off (or VM_TIMEOUT seconds pass); CGROUP is v2 (systemd.unified_cgroup_hierarchy=1) or hybrid
# (=0: v1 controllers, and cgroup2 at /sys/fs/cgroup/unified for systemd's own tracking).
systemd_vm_boot() {
  local kernel=$1 image=$2 initramfs=$3 console=$4 log=$5 unified=1
  [ "$6" = hybrid ] && unified=0
  timeout "${VM_TIMEOUT:-600}" qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -nodefaults \
    -display none -no-reboot -serial "file:$console" -kernel "$kernel" -initrd "$initramfs" \
    -drive "file=$image,if=virtio,format=raw,snapshot=on" \
    -append "console=ttyS0 loglevel=1 panic=-1 quiet systemd.show_status=0 systemd.unified_cgroup_hierarchy=$unified agentrt.cgroup=$6${AGENTRT_VM_DEBUG:+ agentrt.debug}" \
    >"$log" 2>&1 || echo "qemu: status $?" >>"$log"
  sed -i 's/\r$//' "$console" 2>/dev/null || true
}
