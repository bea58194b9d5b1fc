/* add_index.cl: data[i] += i, compiled by clang-19 for nvptx64 at build
 * time (tests/cuda/CMakeLists.txt) with the special registers read
 * directly: the PTX that test_cuda_driver loads and runs on the GPU. */
__kernel void add_index(__global uint *data, uint n) {
  uint i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
           __nvvm_read_ptx_sreg_tid_x();
  if (i < n) data[i] += i;
}
