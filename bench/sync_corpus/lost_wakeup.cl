// bug: a lost wake-up: the consumer sees no data, and only then says it
// waits; the producer, between the two, publishes and sees nobody waiting,
// so it never posts: the consumer sleeps for ever (a deadlock).
// run: --global 2 --local 1 --arg int[2] --arg int4[1] --expect box[0]==1
// explore: --global 2 --local 1 --arg int[2] --arg int4[1] --expect box[0]==1
__kernel void lost_wakeup(volatile __global int *box,
                          __global weft_semaphore *s) {
  volatile __global atomic_int *ready = (volatile __global atomic_int *)&box[0];
  volatile __global atomic_int *waiting =
      (volatile __global atomic_int *)&box[1];
  if (get_group_id(0) == 0) {
    if (atomic_load(ready) == 0) {
      atomic_store(waiting, 1);
      weft_semaphore_wait_group(s);
    }
  } else {
    atomic_store(ready, 1);
    if (atomic_load(waiting)) weft_semaphore_post_group(s);
  }
}
