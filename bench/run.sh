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
for name in kernels peers switch build api math check sub_groups \
            coop_kernels clblast; do
  program=$build/bench/bench_$name
  # bench_clblast is built only where CLBlast is installed.
  if [ "$name" = clblast ] && [ ! -x "$program" ]; then
    echo "run.sh: no bench_clblast (CLBlast was not found): skipped" >&2
    continue
  fi
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

# The synchronization primitives and the memory-system probes (the
# probe's defaults file is left alone: --no-write).
weft=$build/tools/weft
if ! "$weft" bench sync --csv "$results/sync.csv" "$@" >/dev/null; then
  echo "run.sh: weft bench sync failed" >&2
  status=1
fi
if ! "$weft" bench probe --no-write --csv "$results/probe.csv" "$@" \
     >"$results/probe.txt"; then
  echo "run.sh: weft bench probe failed" >&2
  status=1
fi

# Debian's Python has matplotlib; a python3 earlier in PATH may not.
for csv in "$results"/kernels.csv "$results"/switch.csv "$results"/build.csv \
           "$results"/api.csv "$results"/math.csv "$results"/sync.csv \
           "$results"/probe.csv "$results"/coop_kernels.csv; do
  [ -f "$csv" ] || continue
  /usr/bin/python3 "$here/plot.py" "$csv" >/dev/null || status=1
  echo "== $csv"
  cat "$csv"
done
[ -f "$results/probe.txt" ] && cat "$results/probe.txt"
# Sub-groups: ratios within Weft, no plot.
[ -f "$results/sub_groups.csv" ] && echo "== $results/sub_groups.csv" &&
  cat "$results/sub_groups.csv"
echo "== plots in $results"
exit $status
