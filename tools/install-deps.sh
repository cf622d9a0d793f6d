#!/bin/sh
# Installs, from Debian's packages, what agentrt needs.  Run as root on Debian 12.
#   tools/install-deps.sh          to build agentrt and run its demo
#   tools/install-deps.sh --tests  also what the whole test suite needs: the engines that drive
#                                  agentrt in tests (Podman, containerd, Docker; their services
#                                  are started privately by the tests themselves, never the
#                                  system's), qemu for the cgroup v2 VM and the systemd VM
#                                  (whose image debootstrap and mkfs.ext4 make), the CNI plugins
#                                  and iptables for a pod network built in namespaces of its own,
#                                  and clang with its sanitizer and libFuzzer runtime (libclang-rt,
#                                  only recommended by clang) and llvm-symbolizer for `make fuzz`
#                                  and `make sanitize`; perf for tools/corpus-syscalls.sh
set -eu
export DEBIAN_FRONTEND=noninteractive
build="autoconf automake libtool make gcc libc6-dev pkg-config git ca-certificates groff-base man-db
  libyajl-dev libseccomp-dev libcap-dev libsystemd-dev"
demo="busybox-static debootstrap python3 jq procps util-linux bsdutils"
tests="bats clang-format zsh fish tmux qemu-system-x86 cpio xz-utils strace e2fsprogs binutils
  podman conmon runc containerd docker.io python3-grpcio clang libclang-rt-14-dev llvm
  containernetworking-plugins iptables linux-perf"
case "${1:-}" in
  "") set -- $build $demo ;;
  --tests) set -- $build $demo $tests ;;
  *) echo "usage: $0 [--tests]" >&2; exit 1 ;;
esac
apt-get update -qq
# The tests run Debian's /usr/bin/python3 for python3-grpcio, whatever python3 is first in PATH.
apt-get install -y -qq --no-install-recommends "$@" >/dev/null
echo "install-deps: $# packages are installed"
