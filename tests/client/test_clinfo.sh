#!/bin/sh
# test_clinfo.sh: clinfo, the first thing a user runs, sees Weft through the
# ICD loader and every query it makes succeeds.
#
# Usage: test_clinfo.sh CLINFO ICD_DIR ICD_WITH_POCL_DIR
# ICD_DIR holds weft.icd alone; ICD_WITH_POCL_DIR holds it beside pocl.icd.
set -u
clinfo=$1
icd=$2
icd_pocl=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0

fail() {
  echo "test_clinfo: FAIL: $*" >&2
  failed=1
}

# The full listing, Weft alone.
OCL_ICD_VENDORS=$icd "$clinfo" >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "clinfo exited with status $rc"
grep -q '^Number of platforms  *1$' "$out" || fail "clinfo does not count 1 platform"
grep -q '^  Platform Name  *Weft$' "$out" || fail "no platform named Weft"
grep -q '^  Device Type  *CPU$' "$out" || fail "no CPU device"
grep -q '^  Device Available  *Yes$' "$out" || fail "the device is not available"
grep -q '^  Compiler Available  *Yes$' "$out" || fail "no compiler"
# clinfo names a failed query by its CL error code ("CL_INVALID_VALUE") or
# prints "<error: ...>" or "<getInfo:123: NAME : error -30>" in its place.
if grep -nE 'CL_INVALID|CL_OUT_OF|<error|: error -?[0-9]+|Invalid ' "$out" >&2; then
  fail "clinfo reports failed queries (lines above)"
fi

# The short listing: exactly one platform, Weft, with one device.
OCL_ICD_VENDORS=$icd "$clinfo" -l >"$out" 2>&1 || fail "clinfo -l failed"
platforms=$(grep -c '^Platform #' "$out")
[ "$platforms" -eq 1 ] || fail "clinfo -l lists $platforms platforms, expected 1"
grep -q '^Platform #0: Weft$' "$out" || fail "clinfo -l: platform 0 is not Weft"
grep -q 'Device #0: ' "$out" || fail "clinfo -l: Weft lists no device"
[ "$failed" -eq 0 ] || cat "$out" >&2

# Beside PoCL: both platforms, each with a device.
OCL_ICD_VENDORS=$icd_pocl "$clinfo" -l >"$out" 2>&1 ||
  fail "clinfo -l with PoCL failed"
grep -qE '^Platform #[0-9]+: Weft$' "$out" || fail "with PoCL: no Weft platform"
grep -qE '^Platform #[0-9]+: Portable Computing Language$' "$out" ||
  fail "with PoCL: no PoCL platform (is pocl-opencl-icd installed?)"
[ "$(grep -c 'Device #0: ' "$out")" -eq 2 ] ||
  fail "with PoCL: expected a device under each of the two platforms"
OCL_ICD_VENDORS=$icd_pocl "$clinfo" >/dev/null 2>&1 ||
  fail "full clinfo with PoCL exited non-zero"

[ "$failed" -eq 0 ] || { cat "$out" >&2; exit 1; }
echo "test_clinfo: ok"
