// bug: a global barrier reused by resetting its count: group 0 sets the
// count back to 0 for the next round once it sees every group arrived,
// while a group that has not looked yet waits for a count that now never
// comes (the next round's arrivals fall one short: a deadlock).
// run: --global 16 --local 2 --arg int[1] --arg int[8] --arg int[1] --expect bad[0]==0
// explore: --global 4 --local 2 --arg int[1] --arg int[2] --arg int[1] --expect bad[0]==0
__kernel void barrier_reinit(__global int *count, __global int *data,
                             __global int *bad) {
  volatile __global atomic_int *c = (volatile __global atomic_int *)count;
  if (get_local_id(0)) return;
  int g = get_group_id(0), n = get_num_groups(0);
  for (int round = 1; round <= 2; round++) {
    data[g] = round;
    atomic_fetch_add(c, 1);
    while (atomic_load(c) < n) {}
    if (g == 0) atomic_store(c, 0);
    /* Past the barrier, every group has written this round. */
    for (int i = 0; i < n; i++)
      if (data[i] < round) atomic_inc(&bad[0]);
  }
}
