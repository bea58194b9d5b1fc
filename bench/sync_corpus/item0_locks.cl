// bug: only work-item 0 takes the lock, but every work-item writes.
// run: --global 16 --local 2 --arg int[1] --arg int[1] --expect count[0]==16
// explore: --global 6 --local 2 --arg int[1] --arg int[1] --expect count[0]==6
__kernel void item0_locks(volatile __global atomic_int *lock,
                          __global int *count) {
  if (get_local_id(0) == 0) {
    int free = 0;
    while (!atomic_compare_exchange_strong(lock, &free, 1)) free = 0;
  }
  int v = count[0];
  count[0] = v + 1;
  if (get_local_id(0) == 0) atomic_store(lock, 0);
}
