#!/bin/sh
# Runs piglit's OpenCL profile (Debian's piglit, installed when missing)
# against this build of Weft, and compares each result with the checked-in
# list tests/conformance/piglit-cl.expected: a test (or subtest) that passed
# there and does not now is a regression, and the script exits 1; one that
# passes now and did not there is printed, to update the list with.
#
#   scripts/piglit.sh
#
# Environment: WEFT_BUILD_DIR (build/), WORK (/tmp/weft-piglit: results
# and logs), ICD (an OCL_ICD_VENDORS folder; default the build's icd/, so
# that the same run measures another platform, e.g. PoCL's, to compare),
# JOBS (tests at once; the cores).
# Output: WORK/results.txt ("test: result" per line, as the list), counts.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
work=${WORK:-/tmp/weft-piglit}
icd=${ICD:-$build/icd}
expected=$root/tests/conformance/piglit-cl.expected
[ -d "$icd" ] || { echo "piglit.sh: no $icd: build Weft first" >&2; exit 2; }
if ! command -v piglit >/dev/null 2>&1; then
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends piglit >&2
fi
mkdir -p "$work"
rm -rf "$work/results" "$work/cache"
# A kernel cache of its own, empty: every build is a build.
OCL_ICD_VENDORS=$icd WEFT_CACHE_DIR=$work/cache POCL_CACHE_DIR=$work/cache \
  piglit run cl "$work/results" -c -j "${JOBS:-$(nproc)}" --timeout 300 \
  -b json >"$work/run.log" 2>&1 || true
piglit summary console "$work/results" 2>/dev/null |
  grep -E '^[^ ].*: [a-z-]+$' | sort >"$work/results.txt"
[ -s "$work/results.txt" ] || {
  echo "piglit.sh: no results (see $work/run.log)" >&2; exit 1; }
for r in pass fail skip crash timeout; do
  printf '%s %s  ' "$r" "$(grep -c ": $r\$" "$work/results.txt" || true)"
done
echo "(tests and subtests; $work/results.txt)"
exec "$root/scripts/compare-results.sh" "$expected" "$work/results.txt" piglit.sh
