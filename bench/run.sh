#!/bin/sh
# run.sh: runs every benchmark, writes their CSVs and plots into
# BUILD/bench-results/, and prints the CSVs. It builds nothing.
#
# usage: bench/run.sh [BUILD]   (BUILD defaults to ../build beside this
#                                script; extra arguments, such as --quick,
#                                go to every benchmark)
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
[ $# -gt 0 ] && shift
results=$build/bench-results
mkdir -p "$results" || exit 1

status=0
for name in kernels switch build api math; do
  program=$build/bench/bench_$name
  if [ ! -x "$program" ]; then
    echo "run.sh: $program is missing: build the project first" >&2
    exit 1
  fi
  # The CSV goes to the file; stdout would only repeat it.
  if ! "$program" --csv "$results/$name.csv" "$@" >/dev/null; then
    echo "run.sh: bench_$name failed" >&2
    rm -f "$results/$name.csv"
    status=1
  fi
done

# Debian's Python has matplotlib; a python3 earlier in PATH may not.
for csv in "$results"/kernels.csv "$results"/switch.csv "$results"/build.csv \
           "$results"/api.csv "$results"/math.csv; do
  [ -f "$csv" ] || continue
  /usr/bin/python3 "$here/plot.py" "$csv" >/dev/null || status=1
  echo "== $csv"
  cat "$csv"
done
echo "== plots in $results"
exit $status
