#!/bin/sh
# Sets up everything (Debian packages, build) and runs the whole CTest suite.
# Every test runs in its own process under a timeout (tests/CMakeLists.txt),
# so a hang fails one test instead of stalling the run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${WEFT_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)
cd "$build"
exec ctest --output-on-failure --timeout 600 -j "$jobs" "$@"
