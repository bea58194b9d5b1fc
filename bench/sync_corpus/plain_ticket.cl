// bug: a ticket lock whose ticket is taken by a plain load and store: two
// groups can draw the same ticket.
// run: --global 16 --local 2 --arg int[2] --arg int[1] --expect count[0]==8
// explore: --global 6 --local 2 --arg int[2] --arg int[1] --expect count[0]==3
__kernel void plain_ticket(volatile __global int *tickets,
                           __global int *count) {
  volatile __global atomic_int *serving =
      (volatile __global atomic_int *)&tickets[1];
  if (get_local_id(0) == 0) {
    int mine = tickets[0];
    tickets[0] = mine + 1;
    while (atomic_load(serving) != mine) {}
    int v = count[0];
    count[0] = v + 1;
    atomic_store(serving, mine + 1);
  }
}
