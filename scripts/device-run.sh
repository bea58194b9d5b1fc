#!/bin/bash
# On a GPU machine (the device tool's): unpacks what scripts/device-pack.sh
# packed, where the build named it, then runs the command given, e.g.
#   bash scripts/device-run.sh ctest -j8 -L kernel
# in build/ with WEFT_DEVICE=cuda unless the caller set it, and CTS_BIN
# naming the CTS binaries where they were packed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cat "$root/build-gpu/build-path")
source_root=${build%/build}
# The build's paths name the source tree: this checkout stands in for it.
if [ ! -e "$source_root/CMakeLists.txt" ]; then
  mkdir -p "$(dirname "$source_root")"
  ln -sfn "$root" "$source_root"
fi
# Unpacked again when the pack changed (a warm machine keeps the last).
pack_id=$(cksum < "$root/build-gpu/gpu.tar.xz")
if [ ! -x "$build/tools/weft" ] ||
   [ "$(cat "$build/.gpu-pack-id" 2>/dev/null)" != "$pack_id" ]; then
  tar -xJf "$root/build-gpu/gpu.tar.xz" -C /
  echo "$pack_id" > "$build/.gpu-pack-id"
fi
# The CTS binaries, if packed: scripts/conformance.sh runs them (CTS_BIN).
if [ -f "$root/build-gpu/cts.tar.xz" ]; then
  export CTS_BIN=/tmp/weft-cts-bin
  [ -d "$CTS_BIN/test_conformance" ] ||
    { mkdir -p "$CTS_BIN" && tar -xJf "$root/build-gpu/cts.tar.xz" -C "$CTS_BIN"; }
fi
export LD_LIBRARY_PATH=/opt/weft-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WEFT_DEVICE=${WEFT_DEVICE-cuda}
export PATH=/usr/local/cuda/bin:$PATH
cd "$build"
exec "$@"
