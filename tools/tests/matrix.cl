// Two kernels: the tool must be told which one to run.

// out[y][x] = y * width + x + group-local data, in a 2-D range. Each group
// stages its row of ids in local memory to check --local and local args.
__kernel void index2d(__global int *out, __local int *scratch, int width) {
  size_t x = get_global_id(0), y = get_global_id(1);
  size_t lx = get_local_id(0), ly = get_local_id(1);
  size_t lw = get_local_size(0);
  scratch[ly * lw + lx] = (int)(y * width + x);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[y * width + x] = scratch[ly * lw + lx] * 10 + (int)(get_group_id(0) +
                       get_group_id(1) * get_num_groups(0));
}

__kernel void scale4(__global float4 *v, float4 factor, __global uint *count) {
  size_t i = get_global_id(0);
  v[i] = v[i] * factor;
  atomic_inc(count);
}
