// correct: each group writes its slot, a global barrier, then each reads
// its neighbour's: every read sees the write.
// run: --global 16 --local 2 --arg int[8] --arg int[1] --expect bad[0]==0
// explore: --global 6 --local 2 --arg int[3] --arg int[1] --expect bad[0]==0
__kernel void global_barrier(__global int *slots, __global int *bad) {
  int g = get_group_id(0), n = get_num_groups(0);
  if (get_local_id(0) == 0) slots[g] = g + 1;
  weft_global_barrier();
  if (get_local_id(0) == 0 && slots[(g + 1) % n] != (g + 1) % n + 1)
    atomic_inc(&bad[0]);
}
