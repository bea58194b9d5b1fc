#!/bin/sh
# Runs tests/fuzz_build for longer than CI does: seed after seed, each for
# a few minutes, until SECONDS (default: an hour) have passed. A run that
# crashes leaves its input in fuzz-crashes/SEED.cl (add it to
# tests/fuzz_crashes/ once the crash is fixed, as a seed and a regression).
#   scripts/fuzz.sh [SECONDS] [FIRST_SEED]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
total=${1:-3600}
seed=${2:-$(date +%s)}
mkdir -p fuzz-crashes
export WEFT_CACHE_DIR=off WEFT_BUILD_TIMEOUT=${WEFT_BUILD_TIMEOUT:-30}
end=$(($(date +%s) + total))
crashes=0
while [ "$(date +%s)" -lt "$end" ]; do
  if ! "$build/tests/fuzz_build" --seconds 300 --seed "$seed" \
       --out "fuzz-crashes/input-$seed.cl" "$root"/examples/*.c \
       "$root"/tools/tests/*.cl "$root"/bench/check_corpus/*.cl \
       "$root"/tests/fuzz_crashes/*.cl; then
    mv "fuzz-crashes/input-$seed.cl" "fuzz-crashes/$seed.cl"
    echo "fuzz.sh: seed $seed crashed: fuzz-crashes/$seed.cl" >&2
    crashes=$((crashes + 1))
  fi
  seed=$((seed + 1))
done
echo "fuzz.sh: $crashes crashing seeds"
[ "$crashes" -eq 0 ]
