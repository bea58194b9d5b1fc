# gdb sees kernels built with -g: a breakpoint set by the kernel's source
# line (pending until the program is built) stops each work-item there, a
# private variable prints, and so do the work-item's ids, the backtrace goes from the kernel's source
# into Weft's group runner, and a fault stops at the kernel's line.
. "$2/lib.sh"
command -v gdb >/dev/null 2>&1 || { echo "skipped: no gdb" >&2; exit 77; }
# One thread: the work-items run on the launching thread, "weft" (with a
# pool thread, either may take the group).
export WEFT_DEVICE=cpu WEFT_NUM_THREADS=1
gdb -q -batch -ex 'set breakpoint pending on' -ex 'break program.cl:8' \
    -ex run -ex 'print i' -ex continue -ex 'print i' \
    -ex 'print weft_global_id_0' -ex 'print weft_local_id_0' \
    -ex 'delete 1' -ex continue -ex bt \
    --args "$WEFT" run "$TESTS/debug.cl" --global 8 --local 8 \
    --arg 'int[8]' --options '-g -cl-opt-disable' >out.txt 2>err.txt ||
  fail "gdb exited with $?"
# The breakpoint, twice: work-items 0 and 1.
matches out.txt '^Thread 1 "weft" hit Breakpoint 1, debug \(out=.*\) at .*program\.cl:8$'
has_line out.txt '$1 = 0'
has_line out.txt '$2 = 1'
# The work-item's ids, as variables of Weft's.
has_line out.txt '$3 = 1'
has_line out.txt '$4 = 1'
# Work-item 5's write through NULL: gdb stops at the kernel's line 9,
# whose frames lead to the group runner.
matches out.txt 'received signal SIGSEGV'
matches out.txt '^#0  (0x[0-9a-f]+ in )?debug \(out=.*\) at .*program\.cl:9$'
matches out.txt '^#[0-9]+ .* in weft__group_run '
