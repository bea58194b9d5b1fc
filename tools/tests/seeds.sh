# weft run --seeds A..B --expect: a sweep of schedule seeds stops at the
# first seed whose result breaks an expectation, prints it with the command
# that replays it, and that command fails the same way; a correct kernel
# passes every seed; --shard shares the seeds out; bad input is refused.
. "$2/lib.sh"
export WEFT_DEVICE=cpu
# CPU schedules only: no CUDA, whose context every weft process would
# make for each GPU (past the test's limit beside a dozen GPU tests).
export WEFT_LIBCUDA=/nonexistent
unset WEFT_SCHEDULE
corpus="$2/../../bench/sync_corpus"
ttas="$corpus/ttas_lock.cl"
set -- --options -cl-std=CL3.0 --global 16 --local 2 --arg 'int[1]' --arg 'int[1]'

# The test-then-set lock loses an update under some seed of random-deep
# (the default) and of pct.
weft_exits 1 run "$ttas" "$@" --seeds 1..100 --expect 'count[0]==8'
matches err.txt "^weft run: expectation 'count\[0\]==8' broken: element 0 of argument 1 is [0-7], not == 8$"
matches err.txt "^weft run: seed [0-9]+ fails; replay it with:$"
# What ran last, with the lines of the lock.
matches err.txt "^weft run: the last stretches of its interleaving, oldest first:$"
matches err.txt "^  work-item \([0-9]+\) \[local \(0\) in work-group \([0-7]\)\]: program\.cl:(7|8|9|10|11):[0-9]+(, 1 step| to program\.cl:[0-9]+:[0-9]+, [0-9]+ steps)$"
replay=$(grep -A1 'replay it with:' err.txt | tail -1)
case "$replay" in
  "  WEFT_SCHEDULE=random-deep:"*" weft run $ttas --options -cl-std=CL3.0 --global 16 --local 2 --arg 'int[1]' --arg 'int[1]' --expect 'count[0]==8'") ;;
  *) fail "unexpected replay line: $replay" ;;
esac
seed=$(sed -n 's/^weft run: seed \([0-9]*\) fails.*/\1/p' err.txt)
found=$(grep -o 'is [0-9], not' err.txt)
# The replay, alone: the same seed gives the same count.
WEFT_SCHEDULE=random-deep:$seed "$WEFT" run "$ttas" "$@" --expect 'count[0]==8' \
  >out.txt 2>err.txt && fail "the replay of seed $seed passed"
grep -q "$found" err.txt || fail "the replay of seed $seed gave another count"

WEFT_SCHEDULE=pct:1 "$WEFT" run "$ttas" "$@" --seeds 1..200 \
  --expect 'count[0]==8' >out.txt 2>err.txt && fail "pct never broke the lock"
matches err.txt "^  WEFT_SCHEDULE=pct:[0-9]+ weft run "

# A correct lock passes every seed, and says how many ran.
weft_exits 0 run "$corpus/cas_lock.cl" "$@" --seeds 1..50 --expect 'count[0]==8' \
  --expect 'lock[0]==0'
has_line out.txt "weft run: 50 seeds of 1..50 passed under WEFT_SCHEDULE=random-deep:SEED"
weft_exits 0 run "$corpus/cas_lock.cl" "$@" --seeds 1..50 --shard 2/4 \
  --expect 'count[0]==8'
has_line out.txt "weft run: 12 seeds of 1..50 passed under WEFT_SCHEDULE=random-deep:SEED (shard 2/4)"

# One run, no seeds: the expectation decides the exit status.
weft_exits 0 run "$corpus/cas_lock.cl" "$@" --expect 'count[0]==8'
weft_exits 1 run "$corpus/cas_lock.cl" "$@" --expect '1[0]!=8'
matches err.txt "^weft run: expectation '1\[0\]!=8' broken: element 0 of argument 1 is 8, not != 8$"

# Bad input.
weft_exits 2 run "$ttas" "$@" --expect 'count[0]=8'
matches err.txt "^weft run: --expect 'count\[0\]=8': no operator after"
weft_exits 2 run "$ttas" "$@" --expect 'total[0]==8'
matches err.txt "^weft run: --expect 'total\[0\]==8' names no argument of the kernel$"
weft_exits 2 run "$ttas" "$@" --expect 'count[1]==8'
matches err.txt "is past the buffer's end \(1 elements\)$"
weft_exits 2 run "$ttas" "$@" --seeds 9..2
matches err.txt "^weft run: --seeds '9\.\.2': expected A\.\.B"
weft_exits 2 run "$ttas" "$@" --shard 1/4
matches err.txt "give --seeds$"
weft_exits 2 run "$ttas" "$@" --seeds 1..4 --shard 4/4
WEFT_SCHEDULE=pct:x weft_exits 2 run "$ttas" "$@" --seeds 1..4
matches err.txt "is not a schedule that takes a seed"
# weft_assert: checked under a schedule (here it fails when another group
# wrote between the read and the write: a lost update), with its line and
# work-item; under -cl-weft-assert in a plain run; nothing in a plain build.
cat > assert.cl <<'CL'
__kernel void k(volatile __global atomic_int *lock, __global int *count) {
  if (get_local_id(0) == 0) {
    while (atomic_load(lock) != 0) {}
    atomic_store(lock, 1);
    int v = count[0];
    count[0] = v + 1;
    weft_assert(count[0] == v + 1);
    atomic_store(lock, 0);
  }
}
CL
weft_exits 1 run assert.cl "$@" --seeds 1..100
matches err.txt "program\.cl:7:5: kernel 'k': weft_assert\(count\[0\] == v \+ 1\) failed in work-item \([0-9]+\) \[local \(0\) in work-group \([0-7]\)\] \[schedule random-deep:[0-9]+, launch 1 of that seed"
matches err.txt "^weft run: seed [0-9]+ fails; replay it with:$"
sed -i 's/count\[0\] == v + 1/count[0] < 0/' assert.cl
weft_exits 0 run assert.cl "$@"
weft_exits 1 run assert.cl --options '-cl-std=CL3.0 -cl-weft-assert' \
  --global 16 --local 2 --arg 'int[1]' --arg 'int[1]'
matches err.txt "WEFT_ECHECK: .*: program\.cl:7:5: kernel 'k': weft_assert\(count\[0\] < 0\) failed in work-item \(0\) \[local \(0\) in work-group \(0\)\]$"

# A schedule Weft does not know is refused with the forms it takes, and
# the launch runs first come, first served.
WEFT_SCHEDULE=pct:1:17 weft_exits 0 run "$corpus/cas_lock.cl" "$@"
has_line err.txt "weft: ignoring WEFT_SCHEDULE='pct:1:17': expected fifo, random:SEED, random-deep:SEED, pct:SEED, pct:SEED:DEPTH (SEED a number, DEPTH 1 to 16), exhaustive[:BUDGET[:PREEMPTIONS[:full]]] (BUDGET at least 1, PREEMPTIONS at most 16, full: no partial-order reduction) or replay:POS=CHOICE,..."
WEFT_SCHEDULE=pct:1:3 weft_exits 0 run "$corpus/cas_lock.cl" "$@"
[ -s err.txt ] && fail "pct:1:3 was not taken"

# WEFT_MEMORY=weak: a lock released by a relaxed store loses an update
# under some seed; under sequential consistency, none; an unknown value is
# refused.
release="$corpus/relaxed_release.cl"
WEFT_MEMORY=weak weft_exits 1 run "$release" "$@" --seeds 1..100 --expect 'count[0]==8'
matches err.txt "^weft run: seed [0-9]+ fails; replay it with:$"
matches err.txt "^  WEFT_MEMORY=weak WEFT_SCHEDULE=random-deep:[0-9]+ weft run "
weft_exits 0 run "$release" "$@" --seeds 1..100 --expect 'count[0]==8'
WEFT_MEMORY=strong weft_exits 0 run "$release" "$@"
has_line err.txt "weft: ignoring WEFT_MEMORY='strong': expected sc or weak"

# --explore: every interleaving at 3 groups within 2 preemptions; the
# test-then-set lock fails in one, printed with the WEFT_SCHEDULE that
# replays it alone; the compare-and-swap lock passes them all.
set -- --options -cl-std=CL3.0 --global 6 --local 2 --arg 'int[1]' --arg 'int[1]'
weft_exits 1 run "$ttas" "$@" --explore --expect 'count[0]==3'
matches err.txt "^weft run: interleaving [0-9]+ fails; replay it with:$"
replay=$(sed -n 's/^  WEFT_SCHEDULE=\(replay:[0-9=,]*\) weft run .*/\1/p' err.txt)
[ -n "$replay" ] || fail "no replay line"
found=$(grep -o 'is [0-9], not' err.txt)
WEFT_SCHEDULE=$replay "$WEFT" run "$ttas" "$@" --expect 'count[0]==3' \
  >out.txt 2>err.txt && fail "the replay $replay passed"
grep -q "$found" err.txt || fail "the replay $replay gave another count"
weft_exits 0 run "$corpus/cas_lock.cl" "$@" --explore --expect 'count[0]==3'
matches out.txt "^weft run: all [0-9]+ distinct interleavings within WEFT_SCHEDULE=exhaustive explored in [0-9]+ launches, no failure$"
WEFT_SCHEDULE=exhaustive:5 weft_exits 1 run "$corpus/cas_lock.cl" "$@" --explore \
  --expect 'count[0]==3'
has_line out.txt "weft run: 5 interleavings explored, no failure; the budget is spent and more are left (WEFT_SCHEDULE=exhaustive:BUDGET[:PREEMPTIONS[:full]])"
# Without partial-order reduction, every interleaving is distinct, and
# there are more of them than with it.
WEFT_SCHEDULE=exhaustive:100000:2:full weft_exits 0 run "$corpus/cas_lock.cl" "$@" \
  --explore --expect 'count[0]==3'
full=$(sed -n 's/^weft run: all \([0-9]*\) distinct interleavings within WEFT_SCHEDULE=exhaustive:100000:2:full explored in \1 launches, no failure$/\1/p' out.txt)
[ -n "$full" ] || fail "no count of distinct interleavings without reduction"
weft_exits 0 run "$corpus/cas_lock.cl" "$@" --explore --expect 'count[0]==3'
reduced=$(sed -n 's/^weft run: all [0-9]* distinct interleavings within .* in \([0-9]*\) launches, no failure$/\1/p' out.txt)
[ "$reduced" -lt "$full" ] || fail "$reduced launches with reduction, $full without"
WEFT_SCHEDULE=exhaustive:10:2:fast weft_exits 0 run "$corpus/cas_lock.cl" "$@"
matches err.txt "^weft: ignoring WEFT_SCHEDULE='exhaustive:10:2:fast': expected "
weft_exits 2 run "$ttas" "$@" --explore --seeds 1..3
WEFT_SCHEDULE=pct:1 weft_exits 2 run "$ttas" "$@" --explore
matches err.txt "is not exhaustive\[:BUDGET\[:PREEMPTIONS\[:full\]\]\]"
WEFT_SCHEDULE=exhaustive:0 weft_exits 0 run "$corpus/cas_lock.cl" "$@"
matches err.txt "^weft: ignoring WEFT_SCHEDULE='exhaustive:0': expected "
WEFT_SCHEDULE=replay:1=x weft_exits 0 run "$corpus/cas_lock.cl" "$@"
matches err.txt "^weft: ignoring WEFT_SCHEDULE='replay:1=x': expected "
exit 0
