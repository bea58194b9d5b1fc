// correct: a ticket lock (the ticket taken by an atomic increment).
// run: --global 16 --local 2 --arg int[2] --arg int[1] --expect count[0]==8
// explore: --global 6 --local 2 --arg int[2] --arg int[1] --expect count[0]==3
__kernel void ticket_lock(volatile __global atomic_int *tickets,
                          __global int *count) {
  if (get_local_id(0) == 0) {
    int mine = atomic_fetch_add(&tickets[0], 1);
    while (atomic_load(&tickets[1]) != mine) {}
    int v = count[0];
    count[0] = v + 1;
    atomic_store(&tickets[1], mine + 1);
  }
}
