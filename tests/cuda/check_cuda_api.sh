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
