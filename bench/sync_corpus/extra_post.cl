// bug: group 0 posts a semaphore of count 1 without waiting: two groups
// are inside at once. inside[1]: the most inside at once.
// run: --global 16 --local 2 --arg int4[1]=fill:1,0,0,0 --arg int[2] --expect 'inside[1]<=1'
// explore: --global 6 --local 2 --arg int4[1]=fill:1,0,0,0 --arg int[2] --expect 'inside[1]<=1'
__kernel void extra_post(__global weft_semaphore *s, __global int *inside) {
  if (get_group_id(0) == 0) {
    weft_semaphore_post_group(s);
    return;
  }
  weft_semaphore_wait_group(s);
  if (get_local_id(0) == 0) {
    atomic_max(&inside[1], atomic_inc(&inside[0]) + 1);
    atomic_dec(&inside[0]);
  }
  weft_semaphore_post_group(s);
}
