// weak: a compare-and-swap lock released by a relaxed store with no
// fence: on a weak memory the critical section's write may become visible
// after the release. Correct under sequential consistency.
// run: --global 16 --local 2 --arg int[1] --arg int[1] --expect count[0]==8
// explore: --global 6 --local 2 --arg int[1] --arg int[1] --expect count[0]==3
__kernel void relaxed_release(volatile __global atomic_int *lock,
                              __global int *count) {
  if (get_local_id(0) == 0) {
    int free = 0;
    while (!atomic_compare_exchange_strong(lock, &free, 1)) free = 0;
    int v = count[0];
    count[0] = v + 1;
    atomic_store_explicit(lock, 0, memory_order_relaxed);
  }
}
