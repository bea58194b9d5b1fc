#!/bin/sh
# Sets up everything (Debian packages, build) and runs the demo: the
# example programs in examples/, real kernels checked against the host.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${WEFT_BUILD_DIR:-$root/build}
"$build/tools/weft" info
exec "$root/examples/demo.sh" "$build"
