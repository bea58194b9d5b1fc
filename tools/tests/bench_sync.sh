# weft bench sync --quick: each primitive measured on Weft and on pthreads,
# every rate a positive number, the latencies and the summary there. The
# kernels check their invariants themselves and exit 1 on a violation.
. "$2/lib.sh"

# positive_column FILE N: field N of every line but the header is a
# positive number (not nan, not empty).
positive_column() {
  awk -F, -v n="$2" 'NR > 1 && !($n ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && $n > 0) {
    print "not a positive rate: " $0; bad = 1 } END { exit bad }' "$1" >&2 ||
    fail "$1 has rates that are not positive"
}

weft_exits 0 bench sync --quick --csv sync.csv
cmp -s out.txt sync.csv || fail "stdout and the --csv file differ"
has_line sync.csv 'measure,primitive,init,impl,groups,threads,ops,seconds,ops_per_s,ns_per_op'
positive_column sync.csv 9
# pthreads run beside the CPU only: not where WEFT_DEVICE puts a GPU first.
case "${WEFT_DEVICE:-}" in cuda*) beside_cpu=0 ;; *) beside_cpu=1 ;; esac
for p in mutex semaphore barrier global_barrier; do
  matches sync.csv "^rate,$p,[0-9]*,native,1,"
  [ $beside_cpu = 0 ] || matches sync.csv "^rate,$p,[0-9]*,pthread,1,"
done
for count in 1 2 10 120; do matches sync.csv "^rate,semaphore,$count,native,"; done
matches sync.csv '^latency,mutex,,native,1,'
if [ $beside_cpu = 1 ]; then
  matches sync.csv '^latency,semaphore,1,pthread,1,'
  matches err.txt 'mutex +native +[0-9.]+ ns +pthread'
fi
matches err.txt 'global_barrier +native +[0-9]+ groups: .*/s'

# One primitive, one implementation.
weft_exits 0 bench sync --quick --only mutex --impl native
[ "$(grep -c '^rate,' out.txt)" -ge 2 ] || fail "--only mutex measured nothing"
grep -q 'pthread\|semaphore' out.txt && fail "--only/--impl did not filter"
# The summary has the headers of what was measured only; no progress lines
# when stderr is not a terminal.
grep -q 'barriers per second' err.txt && fail "--only mutex: a barrier header"
matches err.txt '^uncontended'
grep -q 'left\]$' err.txt && fail "progress lines, stderr not a terminal"
weft_exits 0 bench sync --quick --only barrier --impl native
grep -q '^uncontended' err.txt && fail "--only barrier: a latency header"
matches err.txt '^barriers per second'
# On a terminal, a line per point with the points left.
if command -v script >/dev/null 2>&1; then
  script -qec "$WEFT bench sync --quick --only mutex --impl native" \
    /dev/null >tty.txt 2>&1 || fail "bench sync on a terminal failed"
  grep -Eq '^  mutex/native, 1 group: [0-9.e+]+/s  \[1/[0-9]+, [0-9]+:[0-9]{2} left\]' \
    tty.txt || fail "no progress line on a terminal: $(cat tty.txt)"
fi

# The device by name; pthreads only beside the CPU.
weft_exits 0 bench sync --quick --only mutex --impl native --device cpu
matches out.txt '^rate,mutex,,native,1,'
weft_exits 2 bench sync --device frob
matches err.txt "--device 'frob': expected an index, cpu, cuda or cuda:N"

weft_exits 2 bench sync --ops 0
matches err.txt "'--ops' '0'|--ops '0'"
weft_exits 2 bench sync --plot
matches err.txt 'give --csv PATH'
weft_exits 2 bench
weft_exits 2 bench frob
matches err.txt "unknown benchmark 'frob'"
exit 0
