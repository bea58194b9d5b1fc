#!/bin/sh
# The OpenCL path's synchronization primitives on the GPU under
# compute-sanitizer: every algorithm's test of test_sync_algorithms, and
# test_sync's global barrier, run with WEFT_DEVICE=cuda under memcheck,
# racecheck and synccheck; any error the tool reports fails the test.
# Usage: sanitize_sync.sh TESTS_DIR (the build's tests/). Exit 77
# (skipped) without compute-sanitizer or without a GPU, saying which.
tests=$1
PATH=$PATH:/usr/local/cuda/bin
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  echo "compute-sanitizer not found: the sanitized GPU sync tests are skipped"
  exit 77
fi
if ! nvidia-smi >/dev/null 2>&1; then
  echo "no CUDA device (nvidia-smi finds none): the sanitized GPU sync tests are skipped"
  exit 77
fi
export WEFT_DEVICE=cuda
# The sanitizers run kernels many times slower: the watchdog waits longer.
export WEFT_SPIN_TIMEOUT=120
cases="test_sync_algorithms:mutex_native test_sync_algorithms:mutex_spin
test_sync_algorithms:mutex_spin_backoff test_sync_algorithms:mutex_ticket
test_sync_algorithms:mutex_trylock test_sync_algorithms:semaphore_native
test_sync_algorithms:semaphore_spin test_sync_algorithms:semaphore_spin_backoff
test_sync_algorithms:semaphore_sleeping test_sync_algorithms:barrier_native
test_sync_algorithms:barrier_two_stage test_sync_algorithms:barrier_xiao_feng
test_sync_algorithms:barrier_over_some_groups
test_sync_algorithms:fifo_ticket_mutex
test_sync_algorithms:fifo_sleeping_semaphore test_sync:global_barrier_phases"
for tool in memcheck racecheck synccheck; do
  for c in $cases; do
    echo "compute-sanitizer --tool $tool ${c%%:*} ${c#*:}"
    compute-sanitizer --tool $tool --error-exitcode 1 \
      "$tests/${c%%:*}" "${c#*:}" || exit 1
  done
done
