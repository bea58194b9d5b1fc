# weft bench probe --quick: the probes' rates, the classification, and the
# defaults file, written where --output or WEFT_CACHE_DIR says.
. "$2/lib.sh"
# The defaults file is the CPU device's, even where WEFT_DEVICE puts a GPU
# first.
export WEFT_DEVICE=cpu

weft_exits 0 bench probe --quick --output defaults --csv probe.csv
has_line defaults 'version=1'
matches defaults '^mutex=(native|spin|spin_backoff|ticket)$'
matches defaults '^semaphore=(native|spin|spin_backoff|sleeping)$'
matches defaults '^barrier=(native|two_stage|xiao_feng)$'
matches defaults '^global_barrier=(native|two_stage)$'
matches defaults '^threads=[1-9][0-9]*$'
matches defaults '^class=atomics:'
matches out.txt '^  nearest +(Fermi|Tesla)'
matches out.txt "written to defaults"
has_line probe.csv 'probe,contention,groups,threads,accesses,seconds,accesses_per_s,ns_per_access'
awk -F, 'NR > 1 && !($7 ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && $7 > 0) {
  print "not a positive rate: " $0; bad = 1 } END { exit bad }' probe.csv >&2 ||
  fail "probe.csv has rates that are not positive"
for a in volatile_read volatile_write atomic_read atomic_write; do
  matches probe.csv "^$a,contentious,1,"
  matches probe.csv "^$a,noncontentious,1,"
done

# Without --output, the file goes to the kernel cache's folder; with the
# cache off, nowhere.
WEFT_CACHE_DIR="$WORK/cache" weft_exits 0 bench probe --quick --run-us 100
[ -f "$WORK/cache/sync-defaults" ] || fail "no sync-defaults in WEFT_CACHE_DIR"
WEFT_CACHE_DIR=off weft_exits 0 bench probe --quick --run-us 100
matches out.txt 'no file written'

# With fewer groups resident than the contest's largest count (a GPU's
# occupancy, emulated), the barriers compete at the most that can be
# resident instead of waiting for groups that never start.
WEFT_RESIDENT_GROUPS=4 weft_exits 0 bench probe --quick --run-us 100 --no-write
matches out.txt 'barriers at most 4 groups'
matches out.txt '^global_barrier=(native|two_stage)$'
exit 0
