// Correct: work-item 0 of each group takes a lock made of a
// compare-and-swap and an exchange, and adds to a plain counter inside.
// class: correct
// expect: clean
// global: 64 local: 4
// arg: int[1]
// arg: int[1]
__kernel void k(volatile __global int *lock, __global int *count) {
  if (get_local_id(0) != 0) return;
  while (atomic_cmpxchg(lock, 0, 1) != 0) {}
  count[0] = count[0] + 1;
  atomic_xchg(lock, 0);
}
