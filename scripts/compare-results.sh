#!/bin/sh
# compare-results.sh EXPECTED RESULTS WHO: two lists of "test: outcome"
# lines (scripts/piglit.sh's and scripts/pyopencl-tests.sh's). A test that
# passes in EXPECTED and not in RESULTS (or is missing) is a regression:
# listed on stderr, exit 1. One that passes now and did not there is
# printed, to update EXPECTED with.
set -eu
expected=$1 results=$2 who=$3
# The first file's lines are told apart by name, not by NR == FNR: that
# test takes an empty first file's successor for it.
regressions=$(awk -F': ' -v now="$results" 'FILENAME == now { got[$1] = $2; next }
  $2 == "pass" && got[$1] != "pass" { print $1 ": " (got[$1] ? got[$1] : "missing") }' \
  "$results" "$expected")
awk -F': ' -v was="$expected" 'FILENAME == was { had[$1] = $2; next }
  $2 == "pass" && had[$1] != "pass" { print "  now passing: " $1 " (was " (had[$1] ? had[$1] : "absent") ")" }' \
  "$expected" "$results"
[ -z "$regressions" ] && exit 0
echo "$who: passed in $expected, not now:" >&2
echo "$regressions" >&2
exit 1
