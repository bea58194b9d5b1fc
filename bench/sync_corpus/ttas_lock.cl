// bug: a test-then-set lock (an atomic load, then a separate store): two
// groups can both see it free and both enter.
// run: --global 16 --local 2 --arg int[1] --arg int[1] --expect count[0]==8
// explore: --global 6 --local 2 --arg int[1] --arg int[1] --expect count[0]==3
__kernel void ttas_lock(volatile __global atomic_int *lock,
                        __global int *count) {
  if (get_local_id(0) == 0) {
    while (atomic_load(lock) != 0) {}
    atomic_store(lock, 1);
    int v = count[0];
    count[0] = v + 1;
    atomic_store(lock, 0);
  }
}
