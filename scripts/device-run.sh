#!/bin/bash
# On a GPU machine (the device tool's): unpacks what scripts/device-pack.sh
# packed, where the build named it, then runs the command given, e.g.
#   bash scripts/device-run.sh ctest -j8 -L kernel
# in build/ with WEFT_DEVICE=cuda unless the caller set it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cat "$root/build-gpu/build-path")
source_root=${build%/build}
# The build's paths name the source tree: this checkout stands in for it.
if [ ! -e "$source_root/CMakeLists.txt" ]; then
  mkdir -p "$(dirname "$source_root")"
  ln -sfn "$root" "$source_root"
fi
[ -x "$build/tools/weft" ] || tar -xJf "$root/build-gpu/gpu.tar.xz" -C /
export LD_LIBRARY_PATH=/opt/weft-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WEFT_DEVICE=${WEFT_DEVICE-cuda}
export PATH=/usr/local/cuda/bin:$PATH
cd "$build"
exec "$@"
