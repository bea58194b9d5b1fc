// bug: the producer raises the flag before it writes the data: the
// consumer can read the data unwritten.
// run: --global 4 --local 2 --arg int[2] --arg int[1] --expect seen[0]==42
// explore: --global 4 --local 2 --arg int[2] --arg int[1] --expect seen[0]==42
__kernel void flag_before_data(volatile __global int *box,
                               __global int *seen) {
  volatile __global atomic_int *flag = (volatile __global atomic_int *)&box[0];
  if (get_local_id(0)) return;
  if (get_group_id(0) == 0) {
    atomic_store(flag, 1);
    box[1] = 42;
  } else {
    while (atomic_load(flag) == 0) {}
    seen[0] = box[1];
  }
}
