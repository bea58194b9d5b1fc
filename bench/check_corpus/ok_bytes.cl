// Correct: each work-item writes its own byte of __local memory (four to
// a word), then, after the barrier, reads its neighbour's.
// class: correct
// expect: clean
// global: 128 local: 64
// arg: int[128]
__kernel void k(__global int *out) {
  __local uchar b[64];
  size_t l = get_local_id(0);
  b[l] = (uchar)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = b[(l + 1) % 64];
}
