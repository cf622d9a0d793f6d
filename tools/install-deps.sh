#!/bin/sh
# Installs, from Debian's packages, what agentrt needs to build, to run its demo and to run its
# whole test suite.  Run as root on Debian 12.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  autoconf automake libtool make gcc libc6-dev pkg-config git ca-certificates \
  libyajl-dev libseccomp-dev libcap-dev \
  bats jq python3 busybox-static clang-format procps util-linux bsdutils \
  debootstrap qemu-system-x86 cpio xz-utils \
  containerd runc python3-grpcio >/dev/null
echo "install-deps: build and test dependencies are installed"
