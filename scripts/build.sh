#!/bin/sh
# Configures and builds Weft in ./build (or $WEFT_BUILD_DIR). Extra
# arguments go to CMake, e.g. -DCMAKE_BUILD_TYPE=Debug.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DWEFT_WERROR=ON "$@" >/dev/null
ninja -C "$build"
