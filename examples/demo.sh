#!/bin/sh
# demo.sh: runs the examples one after another, each under a one-line
# header, and exits non-zero if any of them fails (after running the rest).
# cl_histogram is an OpenCL program: it reaches Weft through the ICD loader,
# pointed at the build's icd/ folder (OCL_ICD_VENDORS).
#
# Usage: examples/demo.sh [BUILD_DIR]
# BUILD_DIR is the CMake build directory holding examples/encrypt and the
# others. It defaults to build/ at the top of the repository (../build next
# to this script), where the README's build command puts it.

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
failed=""
# An absolute path: the loader reads the folder named by OCL_ICD_VENDORS.
if [ -d "$build" ]; then build=$(cd "$build" && pwd); fi

# run NAME DESCRIPTION... [-- ARGUMENTS...]
run() {
  name=$1
  shift
  what=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    what="$what $1"
    shift
  done
  [ $# -gt 0 ] && shift
  echo "== $name:$what"
  if [ ! -x "$build/examples/$name" ]; then
    echo "demo: $build/examples/$name is missing; build first" >&2
    failed="$failed $name"
  elif ! OCL_ICD_VENDORS="$build/icd" "$build/examples/$name" "$@"; then
    failed="$failed $name"
  fi
}

run encrypt "neighbours mixed in place in __local memory, with barrier()"
run reduce "a tree reduction with __local scratch passed as an argument"
run matmul "a matrix product in 16x16 tiles of __local memory"
run colour "a per-pixel conversion with the local size left to Weft"
run work_stealing "irregular work shared out by stealing between work-groups:" \
  "per-group queues behind weft_mutex, idle groups asleep on a weft_semaphore"
run bfs "a breadth-first search of a thousand levels in one launch," \
  "with weft_global_barrier() between levels"
run bfs "the same as a cooperative kernel: groups killed and forked at" \
  "resizing_global_barrier()" -- --cooperative
run cl_histogram "a byte histogram through the OpenCL API: __local bins," \
  "atomics and barrier()"

if [ -n "$failed" ]; then
  echo "demo: failed:$failed" >&2
  exit 1
fi
echo "demo: all examples ok"
