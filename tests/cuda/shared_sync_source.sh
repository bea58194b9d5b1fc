#!/bin/sh
# One source per synchronization algorithm: weft/sync_algorithms.h is
# what both the OpenCL builtins (for the CPU and for the GPU) and the
# CUDA header library compile. Reads the header lists Clang wrote for the
# builtins' sync.cl (builtins/CMakeLists.txt), then compiles the CUDA
# header (sync_header_kernels.cu) to PTX with Clang, which needs no CUDA
# toolkit, and reads its list too. Exit 77 (skipped) without Clang.
# Usage: shared_sync_source.sh SOURCE_DIR BUILD_DIR CLANG
set -u
src=$1
build=$2
clang=$3
shared=include/weft/sync_algorithms.h
fail=0
# Without Clang (a GPU machine that runs a build made elsewhere) neither
# list can be made here.
if [ ! -x "$clang" ]; then
  echo "no Clang at $clang: the builtins' header lists and the CUDA header's build are checked where Weft is built"
  exit 77
fi
want=$(realpath "$src/$shared")
uses() { # FILE: whether the header list names the shared source
  for f in $(tr '\\' ' ' < "$1"); do
    [ "$(realpath -m "$f")" = "$want" ] && return 0
  done
  return 1
}
for target in x86_64 nvptx64; do
  d=$build/builtins/$target/sync.bc.d
  if [ ! -f "$d" ]; then
    echo "FAIL: no header list $d (builtins not built?)"
    fail=1
  elif uses "$d"; then
    echo "ok: the $target builtins' sync.cl includes $shared"
  else
    echo "FAIL: the $target builtins' sync.cl does not include $shared"
    fail=1
  fi
done
out=$build/tests/cuda/sync_header_kernels
"$clang" -x cuda --cuda-device-only -nocudainc -nocudalib \
  --cuda-gpu-arch=sm_70 -std=c++17 -O2 -Wall -Wextra -Werror \
  -Wno-unknown-cuda-version -include "$src/tests/cuda/clang_cuda_prelude.h" \
  -I"$src/include" -MD -MF "$out.d" -S "$src/tests/cuda/sync_header_kernels.cu" \
  -o "$out.ptx" || { echo "FAIL: the CUDA header does not compile"; exit 1; }
if uses "$out.d"; then
  echo "ok: the CUDA header library includes $shared"
else
  echo "FAIL: the CUDA header library does not include $shared"
  fail=1
fi
# The kernel made it to PTX, with the GPU's atomics.
if grep -q "every_call" "$out.ptx" && grep -q "atom.acquire.gpu.cas" "$out.ptx"; then
  echo "ok: the CUDA header's kernel compiled to PTX"
else
  echo "FAIL: no kernel or no compare-and-swap in $out.ptx"
  fail=1
fi
exit $fail
