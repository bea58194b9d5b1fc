// correct: a semaphore of count 2: never more than two groups inside.
// run: --global 16 --local 2 --arg int4[1]=fill:2,0,0,0 --arg int[3] --expect 'inside[1]<=2' --expect inside[2]==8
// explore: --global 6 --local 2 --arg int4[1]=fill:2,0,0,0 --arg int[3] --expect 'inside[1]<=2' --expect inside[2]==3
__kernel void group_semaphore(__global weft_semaphore *s,
                             __global int *inside) {
  weft_semaphore_wait_group(s);
  if (get_local_id(0) == 0) {
    atomic_max(&inside[1], atomic_inc(&inside[0]) + 1);
    atomic_inc(&inside[2]);
    atomic_dec(&inside[0]);
  }
  weft_semaphore_post_group(s);
}
