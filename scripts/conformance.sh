#!/bin/sh
# Runs suites of the Khronos OpenCL-CTS against this build of Weft, each
# sub-test alone under a time limit, and counts what passed, failed, was
# not supported (skipped) or ran out of time.
#
#   scripts/conformance.sh [SUITE...]      (default: api)
#
# A SUITE is a folder of test_conformance/ (api, basic, integer_ops,
# compiler, images/kernel_read_write...), built as the target its
# CMakeLists.txt names (test_<MODULE_NAME>). Environment:
#   CTS_DIR, OPENCL_HEADERS_DIR, SPIRV_HEADERS_DIR  checkouts to use; when
#       unset, they are cloned under WORK at the commits below (the ones
#       the README's figures were measured with)
#   CTS_BIN         a CTS build tree made earlier (WORK/build's layout), whose
#                   binaries are run as they are: nothing is cloned or built
#                   (for a machine without a compiler or a network, such as
#                   a GPU machine the build is carried to)
#   WEFT_BUILD_DIR  Weft's build (build/), whose icd/ folder is used
#   ICD             another OCL_ICD_VENDORS folder instead (e.g. one holding
#                   only pocl.icd, to measure PoCL the same way)
#   WORK            where the CTS is built and the logs go (/tmp/weft-cts)
#   TIMEOUT         seconds per sub-test (120)
#   JOBS            sub-tests run at once (1)
#   ARGS            more arguments for every sub-test (e.g. "-w", the quick
#                   mode of test_bruteforce and test_conversions)
#   LABEL           names the results (default: the suite's last folder)
# Output: WORK/results-LABEL.csv (sub-test,status,seconds), a log per
# sub-test in WORK/logs/LABEL/, and a line of counts per suite.
set -eu

# One sub-test: conformance.sh --one BINARY SUBTEST LOGDIR CSV (internal).
if [ "${1:-}" = --one ]; then
  binary=$2 t=$3 logs=$4 csv=$5
  start=$(date +%s%N)
  rc=0
  # The whole binary (below: one whose only "sub-test" is its own name).
  name=$t; [ "$t" = "(all)" ] && name=
  # shellcheck disable=SC2086 # ARGS and name are lists of words
  timeout "${TIMEOUT:-120}" "$binary" $name ${ARGS:-} > "$logs/$t.log" 2>&1 < /dev/null || rc=$?
  took=$(( ($(date +%s%N) - start) / 100000000 ))
  # A sub-test that does not apply says "... test not supported" (or
  # "skipped") and still ends "PASSED test."; a binary whose whole
  # feature the device lacks (device-side enqueue) skips everything at its
  # start and prints no "PASSED test".
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status=timeout
  elif grep -qE "^Test skipped while initialization|^SKIPPED [0-9]+ of [0-9]+ tests" "$logs/$t.log"; then
    status=skip
  elif [ "$rc" -ne 0 ] || ! grep -q '^PASSED test' "$logs/$t.log"; then
    status=fail
  elif grep -qE "test not supported|skipped \(requires" "$logs/$t.log"; then
    status=skip
  else status=pass
  fi
  printf '%s,%s,%d.%d\n' "$t" "$status" $((took / 10)) $((took % 10)) >> "$csv"
  exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
work=${WORK:-/tmp/weft-cts}
jobs=${JOBS:-1}
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

# The suite's binary: built from the checkout, or found in CTS_BIN.
suite_binary() {
  if [ -n "${CTS_BIN:-}" ]; then
    find "$CTS_BIN/test_conformance/$1" -maxdepth 1 -name 'test_*' -type f -perm -u+x | head -n 1
    return
  fi
  module=$(sed -n 's/^ *set *( *MODULE_NAME *\([A-Za-z0-9_]*\) *).*/\1/p' \
    "$cts/test_conformance/$1/CMakeLists.txt" | head -n 1 | tr 'A-Z' 'a-z')
  cmake --build "$work/build" --target "test_$module" -j"$(nproc)" \
    > "$work/build-$(basename "$1").log"
  echo "$work/build/test_conformance/$1/test_$module"
}

if [ -z "${CTS_BIN:-}" ]; then
  cts=${CTS_DIR:-$(checkout OpenCL-CTS https://github.com/KhronosGroup/OpenCL-CTS "$cts_commit")}
  headers=${OPENCL_HEADERS_DIR:-$(checkout OpenCL-Headers https://github.com/KhronosGroup/OpenCL-Headers "$headers_commit")}
  spirv=${SPIRV_HEADERS_DIR:-$(checkout SPIRV-Headers https://github.com/KhronosGroup/SPIRV-Headers "$spirv_commit")}
  cmake -S "$cts" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCL_INCLUDE_DIR="$headers" -DCL_LIB_DIR=/usr/lib/x86_64-linux-gnu \
    -DOPENCL_LIBRARIES=OpenCL -DSPIRV_INCLUDE_DIR="$spirv" > "$work/cmake.log"
fi

export OCL_ICD_VENDORS="${ICD:-$build/icd}" WEFT_CACHE_DIR=off TIMEOUT ARGS
TIMEOUT=${TIMEOUT:-120} ARGS=${ARGS:-}
for suite in "$@"; do
  binary=$(suite_binary "$suite")
  [ -x "$binary" ] || { echo "conformance.sh: no binary for $suite" >&2; exit 2; }
  label=${LABEL:-$(basename "$suite")}
  logs=$work/logs/$label
  csv=$work/results-$label.csv
  mkdir -p "$logs"
  : > "$csv.rows"
  # test_conversions lists only "conversions", a name it cannot run
  # ("Unable to parse function name"): such a binary runs whole.
  list=$("$binary" --list 2>/dev/null | sed -n 's/^\t//p')
  [ "$list" = "$(basename "$suite")" ] && list="(all)"
  [ -z "$list" ] || printf '%s\n' "$list" |
    xargs -P "$jobs" -I{} sh "$0" --one "$binary" {} "$logs" "$csv.rows"
  { echo "sub-test,status,seconds"; sort "$csv.rows"; } > "$csv"
  rm -f "$csv.rows"
  count() { grep -c ",$1," "$csv" || true; }
  echo "$(basename "$binary") ($label): $(count pass) passed, $(count fail) failed," \
       "$(count skip) not supported, $(count timeout) past ${TIMEOUT} s ($csv)"
done
