// Every work-group waits for a flag that only the last would set, after
// its own wait: no group can go on.
// class: deadlock
// expect: error
// global: 4 local: 1
// arg: int[2]
__kernel void k(__global int *flags) {
  size_t g = get_group_id(0);
  while (atomic_add(&flags[0], 0) == 0) {
  }
  if (g == get_num_groups(0) - 1) atomic_xchg(&flags[0], 1);
  flags[1] = (int)g;
}
