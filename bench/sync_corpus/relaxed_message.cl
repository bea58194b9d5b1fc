// weak: message passing with a relaxed flag and no fences: on a weak
// memory the consumer may see the flag before the data. Correct under
// sequential consistency.
// run: --global 4 --local 2 --arg int[2] --arg int[1] --expect seen[0]==42
// explore: --global 4 --local 2 --arg int[2] --arg int[1] --expect seen[0]==42
__kernel void relaxed_message(__global int *box,
                              __global int *seen) {
  volatile __global atomic_int *flag = (volatile __global atomic_int *)&box[0];
  if (get_local_id(0)) return;
  if (get_group_id(0) == 0) {
    box[1] = 42;
    atomic_store_explicit(flag, 1, memory_order_relaxed);
  } else {
    while (atomic_load_explicit(flag, memory_order_relaxed) == 0) {}
    seen[0] = box[1];
  }
}
