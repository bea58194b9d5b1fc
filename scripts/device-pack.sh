#!/bin/sh
# Packs a built tree for a GPU machine that has CUDA but neither LLVM 19
# nor Debian's libraries (the device tool's): build/ without objects,
# Clang's resource headers the JIT compiles against, and the shared
# libraries libweft and the tests load, into build-gpu/gpu.tar.xz
# (ignored by git; carry build-gpu), and with CTS_BIN=DIR the OpenCL-CTS
# binaries of that build into build-gpu/cts.tar.xz. scripts/device-run.sh
# unpacks them.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
out=$root/build-gpu
mkdir -p "$out"
libs=$(mktemp -d)
trap 'rm -rf "$libs"' EXIT
mkdir -p "$libs/opt/weft-libs"
# Every library the runtime, the tests and the ICD loader need, less the C
# and C++ runtimes (the GPU machine's own are newer).
# (bench_clblast, where it was built, brings CLBlast's.)
for f in "$build"/libweft.so.0.1.0 "$build"/tests/test_atomic \
         "$build"/tests/api/test_cl_platform /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 \
         "$build"/bench/bench_clblast; do
  [ -e "$f" ] || continue
  ldd "$f" | awk '/=> \// { print $3 }'
done | sort -u | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' |
  grep -v '/libweft' |
  while read -r lib; do cp -L "$lib" "$libs/opt/weft-libs/"; done
cp -L /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 "$libs/opt/weft-libs/"
strip --strip-unneeded "$libs"/opt/weft-libs/*.so* 2>/dev/null || true
# The build tree at its own absolute path (CTest's files name it), with
# libweft stripped; of Clang's headers, not the other targets' intrinsics.
tar -C / -cf "$out/gpu.tar" \
  --exclude='*.o' --exclude='*.a' --exclude='*.d' --exclude='.ninja_*' \
  --exclude='CMakeFiles/*.dir' --exclude='bench-results' \
  --exclude='*.parts' --exclude='weft_builtins_split' \
  --exclude='libweft.so.0.1.0' --exclude='arm_*' --exclude='riscv_*' \
  --exclude='*intrin*' --exclude='hexagon*' --exclude='ppc_wrappers' \
  "${build#/}" "usr/lib/llvm-19/lib/clang/19/include"
mkdir -p "$libs/${build#/}"
strip --strip-unneeded -o "$libs/${build#/}/libweft.so.0.1.0" \
  "$build/libweft.so.0.1.0"
tar -C "$libs" -rf "$out/gpu.tar" opt/weft-libs "${build#/}/libweft.so.0.1.0"
xz -T0 -6 -f "$out/gpu.tar"
echo "$build" > "$out/build-path"
# With CTS_BIN (a CTS build tree, scripts/conformance.sh's): its test
# binaries, stripped, for conformance.sh on the GPU machine.
rm -f "$out/cts.tar.xz"
if [ -n "${CTS_BIN:-}" ]; then
  mkdir -p "$libs/cts"
  (cd "$CTS_BIN" && find test_conformance -name 'test_*' -type f -perm -u+x) |
    while read -r f; do
      mkdir -p "$libs/cts/$(dirname "$f")"
      strip -o "$libs/cts/$f" "$CTS_BIN/$f"
    done
  tar -C "$libs/cts" -cJf "$out/cts.tar.xz" test_conformance
fi
ls -la "$out"/*.tar.xz
