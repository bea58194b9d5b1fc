// A histogram whose bin index runs past its 8 bins.
// class: memory
// expect: error
// global: 64 local: 8
// arg: int[8]
// arg: uchar[64]=iota
__kernel void k(__global int *bins, __global const uchar *data) {
  atomic_inc(&bins[data[get_global_id(0)] / 4]);
}
