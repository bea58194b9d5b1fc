#!/bin/sh
# Builds the CUDA header library's tests (test_cuda_sync.cu) with nvcc for
# this machine's GPU and runs them, then again under compute-sanitizer's
# memcheck, racecheck and synccheck where it is installed (fewer
# operations there: it runs kernels a hundred times slower).
# Usage: nvcc_tests.sh SOURCE_DIR BUILD_DIR. Exit 77 (skipped) without
# nvcc or without a GPU, saying which.
src=$1
out=$2
PATH=$PATH:/usr/local/cuda/bin
if ! command -v nvcc >/dev/null 2>&1; then
  echo "no CUDA toolkit (nvcc not found): the CUDA header tests are skipped"
  exit 77
fi
# -arch=native needs a GPU at build time; without one, the test skips.
arch=native
nvidia-smi >/dev/null 2>&1 || arch=sm_90
nvcc -O2 -std=c++17 -arch=$arch -I"$src/include" \
  "$src/tests/cuda/test_cuda_sync.cu" -o "$out/test_cuda_sync" || exit 1
"$out/test_cuda_sync" || exit $?
command -v compute-sanitizer >/dev/null 2>&1 || {
  echo "compute-sanitizer not found: the sanitizer runs are skipped"
  exit 0
}
for tool in memcheck racecheck synccheck; do
  echo "compute-sanitizer --tool $tool:"
  WEFT_CUDA_TEST_OPS=4 compute-sanitizer --tool $tool --error-exitcode 1 \
    "$out/test_cuda_sync" || exit 1
done
