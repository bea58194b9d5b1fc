#!/bin/sh
# check_cuda_api.sh: the constants backend/cuda/cuda_api.h copies from the
# driver's cuda.h still have cuda.h's values. Needs the CUDA toolkit's
# headers (CUDA_HOME, default /usr/local/cuda); run on a GPU machine:
#   tests/cuda/check_cuda_api.sh
set -eu
here=$(dirname "$0")
cuda=${CUDA_HOME:-/usr/local/cuda}
c=$(mktemp --suffix=.c)
trap 'rm -f "$c" "$c.o"' EXIT
echo '#include <cuda.h>' > "$c"
sed -n 's/^#define \(CU[A-Z_0-9]*\) \([0-9][0-9]*\)$/_Static_assert(\1 == \2, "\1 is not \2");/p' \
  "$here/../../backend/cuda/cuda_api.h" >> "$c"
n=$(grep -c _Static_assert "$c")
cc -std=c11 -I"$cuda/include" -c "$c" -o "$c.o"
echo "check_cuda_api: $n constants agree with $cuda/include/cuda.h"
# The structures: cuda_api_layout.c's sizes and offsets over both headers.
real=$(mktemp) ours=$(mktemp)
trap 'rm -f "$c" "$c.o" "$real" "$real.txt" "$ours" "$ours.txt"' EXIT
cc -std=c11 -DREAL -I"$cuda/include" "$here/cuda_api_layout.c" -o "$real"
cc -std=c11 -I"$here/../.." "$here/cuda_api_layout.c" -o "$ours"
"$real" > "$real.txt"
"$ours" > "$ours.txt"
if ! diff "$real.txt" "$ours.txt"; then
  echo "check_cuda_api: cuda_api.h's structures differ from cuda.h's (above)" >&2
  exit 1
fi
echo "check_cuda_api: CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC, CUDA_ARRAY3D_DESCRIPTOR and CUDA_MEMCPY3D have cuda.h's layout"
