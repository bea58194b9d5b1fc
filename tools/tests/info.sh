# `weft info` lists the CPU device with its limits and exits 0.
. "$2/lib.sh"
# The CPU device's, even where WEFT_DEVICE puts a GPU first.
export WEFT_DEVICE=cpu
weft_exits 0 info
matches out.txt '^Number of devices +[1-9][0-9]*$'
matches out.txt '^Device 0$'
matches out.txt '^  Kind +CPU$'
matches out.txt '^  Compute units \(threads\) +[1-9][0-9]*$'
matches out.txt '^  Max work-group size +[1-9][0-9]*$'
matches out.txt '^  Max work-item sizes +[1-9][0-9]* x [1-9][0-9]* x [1-9][0-9]*$'
matches out.txt '^  Global memory +.*\([1-9][0-9]* bytes\)$'
matches out.txt '^  Local memory per group +.*\([1-9][0-9]* bytes\)$'
matches out.txt '^  Address bits +64$'
matches out.txt '^  Work-item stack size +.*\([1-9][0-9]* bytes\)$'
matches out.txt '^  Barriers +regions$'
matches out.txt '^  Context switch +(asm|ucontext)$'
# CUDA: the GPUs, or why there are none.
matches out.txt '^CUDA +([1-9][0-9]* GPUs?, driver|none: )'
WEFT_LIBCUDA=/nonexistent/libcuda.so.1 "$WEFT" info >out.txt 2>err.txt ||
  fail "info failed without a CUDA driver"
matches out.txt '^CUDA +none: no CUDA driver: /nonexistent/libcuda.so.1'
# The environment chooses the context switch.
WEFT_FIBER=ucontext "$WEFT" info >out.txt 2>err.txt || fail "info failed"
matches out.txt '^  Context switch +ucontext$'
# And how barriers are scheduled.
WEFT_BARRIER=fibers "$WEFT" info >out.txt 2>err.txt || fail "info failed"
matches out.txt '^  Barriers +fibers$'
# One thread per core the process may run on: pinned to one core (the
# first this shell may use), one.
if command -v taskset >/dev/null 2>&1; then
  cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
  taskset -c "$cpu" "$WEFT" info >out.txt 2>err.txt || fail "info failed pinned"
  matches out.txt '^  Compute units \(threads\) +1$'
  WEFT_NUM_THREADS=3 taskset -c "$cpu" "$WEFT" info >out.txt 2>err.txt ||
    fail "info failed pinned with WEFT_NUM_THREADS"
  matches out.txt '^  Compute units \(threads\) +3$'
fi
