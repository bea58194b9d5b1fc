#!/bin/sh
# Builds Weft (scripts/build.sh) and its Debian package with CPack:
# build/package/weft_VERSION_ARCH.deb (cmake/package.cmake says what is in
# it). Install it with `apt install ./build/package/weft_*.deb`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cd "$build"
cpack -B "$build/package"
ls "$build"/package/weft_*.deb
