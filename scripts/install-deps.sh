#!/bin/sh
# Installs the Debian 12 packages Weft needs to build, test and benchmark.
# Runs as root, or through sudo when it is available.
set -eu

PACKAGES="
  build-essential cmake ninja-build pkg-config git
  llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19
  libffi-dev libedit-dev zlib1g-dev libzstd-dev libxml2-dev
  ocl-icd-opencl-dev opencl-c-headers clinfo pocl-opencl-icd
  libsleef-dev libmpfr-dev libclblast-dev
  python3 python3-numpy python3-matplotlib python3-pyopencl
  valgrind oclgrind gdb
  man-db groff-base
"

if [ "$(id -u)" -eq 0 ]; then
  SUDO=
elif command -v sudo >/dev/null 2>&1; then
  SUDO=sudo
else
  echo "install-deps.sh: run as root (or install sudo) to install packages" >&2
  exit 1
fi

# Skip apt entirely when everything is present (fast reruns, offline use).
missing=$(dpkg-query -W -f='${Status} ${Package}\n' $PACKAGES 2>/dev/null |
          awk '$3 == "installed" { print $4 }' | sort)
wanted=$(printf '%s\n' $PACKAGES | sort)
if [ "$missing" = "$wanted" ]; then
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $PACKAGES
