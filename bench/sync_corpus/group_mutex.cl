// correct: weft_mutex taken for the group; every work-item counts.
// run: --global 16 --local 2 --arg int4[1] --arg int[1] --expect count[0]==16
// explore: --global 6 --local 2 --arg int4[1] --arg int[1] --expect count[0]==6
__kernel void group_mutex(__global weft_mutex *m, __global int *count) {
  weft_mutex_lock_group(m);
  int lid = get_local_id(0);
  for (int i = 0; i < 2; i++) {
    if (lid == i) {
      int v = count[0];
      count[0] = v + 1;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  weft_mutex_unlock_group(m);
}
