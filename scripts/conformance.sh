#!/bin/sh
# Runs suites of the Khronos OpenCL-CTS against this build of Weft, each
# sub-test alone under a time limit, and counts what passed, failed, was
# not supported (skipped) or ran out of time.
#
#   scripts/conformance.sh [SUITE...]      (default: api)
#
# A SUITE is a folder of test_conformance/ (api, basic, integer_ops,
# compiler, atomics...), built as its target test_SUITE. Environment:
#   CTS_DIR, OPENCL_HEADERS_DIR, SPIRV_HEADERS_DIR  checkouts to use; when
#       unset, they are cloned under WORK at the commits below (the ones
#       the README's figures were measured with)
#   WEFT_BUILD_DIR  Weft's build (build/), whose icd/ folder is used
#   ICD             another OCL_ICD_VENDORS folder instead (e.g. one holding
#                   only pocl.icd, to measure PoCL the same way)
#   WORK            where the CTS is built and the logs go (/tmp/weft-cts)
#   TIMEOUT         seconds per sub-test (120)
# Output: WORK/results-SUITE.csv (sub-test,status,seconds), a log per
# sub-test in WORK/logs/SUITE/, and a line of counts per suite.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
work=${WORK:-/tmp/weft-cts}
timeout_s=${TIMEOUT:-120}
cts_commit=b8f8906c251926b1b3679323bfbf3df730b40fb8
headers_commit=15b536b7fbe1098cea462a27db496b287ac89b63
spirv_commit=0d25db97cb9b8f725e4c95e4553001710e7fc39d
[ $# -gt 0 ] || set -- api
[ -d "${ICD:-$build/icd}" ] || { echo "conformance.sh: no ${ICD:-$build/icd}: build Weft first" >&2; exit 2; }
mkdir -p "$work"

# checkout NAME URL COMMIT: the folder of a checkout at COMMIT.
checkout() {
  dir=$work/src/$1
  if [ ! -d "$dir/.git" ]; then
    git clone -q "$2" "$dir" >&2
    git -C "$dir" checkout -q "$3" >&2
  fi
  echo "$dir"
}
cts=${CTS_DIR:-$(checkout OpenCL-CTS https://github.com/KhronosGroup/OpenCL-CTS "$cts_commit")}
headers=${OPENCL_HEADERS_DIR:-$(checkout OpenCL-Headers https://github.com/KhronosGroup/OpenCL-Headers "$headers_commit")}
spirv=${SPIRV_HEADERS_DIR:-$(checkout SPIRV-Headers https://github.com/KhronosGroup/SPIRV-Headers "$spirv_commit")}

cmake -S "$cts" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCL_INCLUDE_DIR="$headers" -DCL_LIB_DIR=/usr/lib/x86_64-linux-gnu \
  -DOPENCL_LIBRARIES=OpenCL -DSPIRV_INCLUDE_DIR="$spirv" > "$work/cmake.log"

export OCL_ICD_VENDORS="${ICD:-$build/icd}" WEFT_CACHE_DIR=off
for suite in "$@"; do
  cmake --build "$work/build" --target "test_$suite" -j"$(nproc)" > "$work/build-$suite.log"
  binary=$work/build/test_conformance/$suite/test_$suite
  logs=$work/logs/$suite
  csv=$work/results-$suite.csv
  mkdir -p "$logs"
  echo "sub-test,status,seconds" > "$csv"
  pass=0 fail=0 skip=0 late=0
  for t in $("$binary" --list 2>/dev/null | sed -n 's/^\t//p'); do
    start=$(date +%s.%N)
    rc=0
    timeout "$timeout_s" "$binary" "$t" > "$logs/$t.log" 2>&1 < /dev/null || rc=$?
    took=$(echo "$(date +%s.%N) - $start" | bc)
    # A sub-test that does not apply says "... test not supported" (or
    # "skipped") and still ends "PASSED test.".
    if [ "$rc" -eq 124 ]; then status=timeout late=$((late + 1))
    elif [ "$rc" -ne 0 ] || ! grep -q '^PASSED test' "$logs/$t.log"; then
      status=fail fail=$((fail + 1))
    elif grep -qE "test not supported|skipped \(requires" "$logs/$t.log"; then
      status=skip skip=$((skip + 1))
    else status=pass pass=$((pass + 1))
    fi
    printf '%s,%s,%.1f\n' "$t" "$status" "$took" >> "$csv"
  done
  echo "test_$suite: $pass passed, $fail failed, $skip not supported, $late past ${timeout_s} s ($csv)"
done
