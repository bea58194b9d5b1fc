// bug: group 2 returns without reaching the global barrier: the others
// wait for it for ever.
// run: --global 16 --local 2 --arg int[1] --expect out[0]==0
// explore: --global 6 --local 2 --arg int[1] --expect out[0]==0
__kernel void skipped_barrier(__global int *out) {
  if (get_group_id(0) == 2) return;
  weft_global_barrier();
}
