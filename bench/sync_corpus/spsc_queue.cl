// correct: a single-producer, single-consumer ring of 4 slots, published
// by release stores and read after acquire loads: group 0 pushes 1 to 8,
// group 1 pops and adds them up.
// run: --global 4 --local 2 --arg int[6] --arg int[1] --expect sum[0]==36
// explore: --global 4 --local 2 --arg int[6] --arg int[1] --expect sum[0]==36
__kernel void spsc_queue(__global int *q, __global int *sum) {
  volatile __global atomic_int *head = (volatile __global atomic_int *)&q[0];
  volatile __global atomic_int *tail = (volatile __global atomic_int *)&q[1];
  if (get_local_id(0)) return;
  if (get_group_id(0) == 0) {
    for (int i = 1; i <= 8; i++) {
      int t = atomic_load_explicit(tail, memory_order_relaxed);
      while (t - atomic_load_explicit(head, memory_order_acquire) == 4) {}
      q[2 + t % 4] = i;
      atomic_store_explicit(tail, t + 1, memory_order_release);
    }
  } else {
    int s = 0;
    for (int i = 0; i < 8; i++) {
      int h = atomic_load_explicit(head, memory_order_relaxed);
      while (atomic_load_explicit(tail, memory_order_acquire) == h) {}
      s += q[2 + h % 4];
      atomic_store_explicit(head, h + 1, memory_order_release);
    }
    sum[0] = s;
  }
}
