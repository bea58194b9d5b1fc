// bug: a counter raised by a plain read and write across groups, no lock.
// run: --global 16 --local 2 --arg int[1] --expect count[0]==8
// explore: --global 6 --local 2 --arg int[1] --expect count[0]==3
__kernel void lost_update_counter(__global int *count) {
  if (get_local_id(0) == 0) {
    int v = count[0];
    count[0] = v + 1;
  }
}
