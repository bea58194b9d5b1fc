// bug: the lock is released before the critical section's write.
// run: --global 16 --local 2 --arg int[1] --arg int[1] --expect count[0]==8
// explore: --global 6 --local 2 --arg int[1] --arg int[1] --expect count[0]==3
__kernel void early_release(volatile __global atomic_int *lock,
                            __global int *count) {
  if (get_local_id(0) == 0) {
    int free = 0;
    while (!atomic_compare_exchange_strong(lock, &free, 1)) free = 0;
    int v = count[0];
    atomic_store(lock, 0);
    count[0] = v + 1;
  }
}
