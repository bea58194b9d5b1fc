#!/bin/sh
# install.sh BUILD SOURCE: `cmake --install BUILD` into a fresh prefix, then
# what a user of the installed Weft does: run bin/weft; build an outside
# CMake project with find_package(Weft CONFIG) (Weft::weft runs a kernel,
# Weft::OpenCL finds the platform through the ICD file under the prefix);
# build the same native program with pkg-config; read the man pages
# (without a warning); build under WEFT_BUILD_MEMORY with the installed
# helper; plot a benchmark with the installed script. Every file lands
# under the prefix.
set -eu
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install.sh: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" ||
  fail "cmake --install failed: $(cat "$work/install.log")"
for f in bin/weft include/weft/weft.h include/weft/cl_weft.h \
         include/weft/kernel.h include/weft/sync_algorithms.h \
         include/weft/cuda/sync.cuh lib/libweft.so.0 lib/libweft-opencl.so.0 \
         lib/cmake/Weft/WeftConfig.cmake lib/cmake/Weft/WeftConfigVersion.cmake \
         lib/pkgconfig/weft.pc share/man/man1/weft.1 \
         share/man/man7/weft-kernel.7 share/weft/plot.py \
         share/weft/plot_sync.py \
         libexec/weft/weft-build-helper etc/OpenCL/vendors/weft.icd; do
  [ -e "$prefix/$f" ] || fail "no $f under the prefix"
done
# Nothing outside the prefix (the manifest lists every file written).
if grep -v "^$prefix/" "$build/install_manifest.txt"; then
  fail "files installed outside $prefix (above)"
fi
icd=$(cat "$prefix/etc/OpenCL/vendors/weft.icd")
[ "$icd" = "$prefix/lib/libweft-opencl.so.0" ] ||
  fail "the ICD file names '$icd', not $prefix/lib/libweft-opencl.so.0"

# The command, from its prefix alone (no LD_LIBRARY_PATH).
"$prefix/bin/weft" --version >"$work/version.txt" ||
  fail "bin/weft --version failed"
grep -Eq '^weft [0-9]+\.[0-9]+\.[0-9]+ \((git [0-9a-f]+(-dirty)?|unknown), LLVM [0-9]' \
  "$work/version.txt" || fail "bin/weft --version: $(cat "$work/version.txt")"
printf '__kernel void k(__global int *a) { a[get_global_id(0)] = 7; }\n' \
  >"$work/k.cl"
WEFT_CACHE_DIR=off WEFT_BUILD_MEMORY=1G "$prefix/bin/weft" run "$work/k.cl" \
  --global 4 --arg 'int[4]' >"$work/run.txt" 2>"$work/run.err" ||
  fail "bin/weft run failed: $(cat "$work/run.err")"
grep -q '7 7 7 7' "$work/run.txt" || fail "bin/weft run: $(cat "$work/run.txt")"
! grep -q 'build helper' "$work/run.err" ||
  fail "the installed helper was not found: $(cat "$work/run.err")"

# weft bench --plot with the installed script (plot.py draws a sync CSV
# with plot_sync.py, which must be installed beside it).
(cd "$work" && WEFT_CACHE_DIR=off "$prefix/bin/weft" bench sync --quick \
  --only mutex --max-groups 2 --csv sync.csv --plot >"$work/plot.txt" \
  2>&1) || fail "bin/weft bench sync --plot failed: $(cat "$work/plot.txt")"
[ -s "$work/sync.png" ] || fail "no sync.png: $(cat "$work/plot.txt")"

# An outside CMake project.
cmake -S "$source/tests/install" -B "$work/user" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/user.log" 2>&1 ||
  fail "configuring the outside project failed: $(cat "$work/user.log")"
ninja -C "$work/user" >>"$work/user.log" 2>&1 ||
  fail "building the outside project failed: $(cat "$work/user.log")"
WEFT_CACHE_DIR=off "$work/user/native_user" | grep -q '^native: ok' ||
  fail "native_user (Weft::weft) did not run its kernel"
OCL_ICD_VENDORS="$prefix/etc/OpenCL/vendors" "$work/user/opencl_user" |
  grep -q '^opencl: ok' ||
  fail "opencl_user (Weft::OpenCL) found no Weft platform"

# pkg-config.
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion weft \
  >"$work/pc.txt" || fail "pkg-config knows no weft"
# shellcheck disable=SC2046
cc -o "$work/native_pc" "$source/tests/install/native_user.c" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs weft) ||
  fail "building with pkg-config's flags failed"
WEFT_CACHE_DIR=off LD_LIBRARY_PATH="$prefix/lib" "$work/native_pc" |
  grep -q '^native: ok' || fail "the pkg-config build did not run its kernel"

# The man pages render without a warning.
for page in man1/weft.1 man7/weft-kernel.7; do
  MANWIDTH=80 man --warnings -l "$prefix/share/man/$page" >/dev/null \
    2>"$work/man.err" || fail "man -l $page failed"
  [ ! -s "$work/man.err" ] || fail "man -l $page: $(cat "$work/man.err")"
done
echo "install.sh: installed, found and used from $prefix"
