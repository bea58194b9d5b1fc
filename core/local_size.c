/* local_size.c: the local size Weft picks where a launch leaves the
 * choice (see local_size.h). */
#include "core/local_size.h"

/* Groups per thread an automatic local size aims at: enough to balance
 * uneven work, few enough that per-group costs stay small. */
#define GROUPS_PER_THREAD 8

/* The largest divisor of n that is at most limit (at least 1), searched
 * from limit down: a launch's sizes are mostly multiples of a power of
 * two, found at once. (Searching up to sqrt(n) took 8192 64-bit
 * divisions for 64M work-items, 65 us of every such launch on an H200.) */
static size_t largest_divisor(size_t n, size_t limit) {
  if (n <= limit) return n;
  for (size_t d = limit; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* The largest divisor of n that is a multiple of multiple and at most
 * limit (or multiple itself, where limit is less), where n is such a
 * multiple; else largest_divisor's. */
static size_t largest_divisor_by(size_t n, size_t limit, size_t multiple) {
  if (multiple <= 1 || n % multiple) return largest_divisor(n, limit);
  if (limit > n) limit = n;
  for (size_t d = (limit > multiple ? limit : multiple) / multiple * multiple;
       d > multiple; d -= multiple)
    if (n % d == 0) return d;
  return multiple;
}

/* Fills local[0..3) from dimension 0 up, each the largest divisor of its
 * global size within want's remaining items and the device's limit (1
 * past dims; dimension 0 a multiple of multiple where it can be); gives
 * the items left unplaced. */
static size_t fill_from_dimension_0(const weft_device_info *info,
                                    unsigned dims, const size_t *global,
                                    size_t want, size_t multiple,
                                    size_t *local) {
  for (unsigned d = 0; d < 3; d++) {
    if (d >= dims) {
      local[d] = 1;
      continue;
    }
    size_t limit = want < info->max_work_item_sizes[d]
                       ? want
                       : info->max_work_item_sizes[d];
    local[d] = d == 0 && multiple <= info->max_work_item_sizes[0]
                   ? largest_divisor_by(global[d], limit, multiple)
                   : largest_divisor(global[d], limit);
    want /= local[d];
    if (want < 1) want = 1;
  }
  return want;
}

/* CPU: divide the work by the threads, aiming at GROUPS_PER_THREAD
 * groups per thread, dimension 0 first (the one LLVM vectorizes), whole
 * sub-groups where the kernel runs them side by side (multiple: else
 * its groups of 50 ran on fibers). */
static void suggest_cpu(const weft_device_info *info, unsigned dims,
                        size_t total, const size_t *global, size_t multiple,
                        size_t *local) {
  size_t want = total / ((size_t)info->compute_units * GROUPS_PER_THREAD);
  if (want < 1) want = 1;
  if (want > info->max_work_group_size) want = info->max_work_group_size;
  fill_from_dimension_0(info, dims, global, want, multiple, local);
}

/* GPU: blocks of GPU_GROUP_ITEMS threads (8 warps: enough to hide
 * latency, small enough that several share a multiprocessor and the last
 * wave is short), halved down to a warp while there would be fewer
 * blocks than multiprocessors. In 2 and 3 dimensions dimension 0 takes
 * GPU_ROW threads (whole warps reading a row's consecutive elements) and
 * the rest go to the others; dimension 0 takes what they cannot. On an
 * H100, 1024-thread blocks (the CPU's rule) ran vecadd at 75% of NVIDIA's
 * bandwidth; of the 2D shapes of 256 threads, 64x4 was within 1.5% of
 * the best for a 5-point stencil (256x1), a naive matrix product (64x2)
 * and mandelbrot (16x16, 2.7%), where 256x1 cost the product 15%. */
#define GPU_GROUP_ITEMS 256
#define GPU_WARP 32
#define GPU_ROW 64

static void suggest_gpu(const weft_device_info *info, unsigned dims,
                        size_t total, const size_t *global, size_t *local) {
  size_t want = GPU_GROUP_ITEMS;
  if (want > info->max_work_group_size) want = info->max_work_group_size;
  while (want > GPU_WARP && total / want < info->compute_units) want /= 2;
  if (dims == 1) {
    fill_from_dimension_0(info, dims, global, want, 1, local);
    return;
  }
  size_t row = want < GPU_ROW ? want : GPU_ROW;
  size_t rest_global[3] = {1, global[1], dims > 2 ? global[2] : 1};
  size_t rest[3];
  size_t unplaced = fill_from_dimension_0(info, dims, rest_global,
                                          want / row, 1, rest);
  /* The row: GPU_ROW, and whatever dimensions 1 and 2 could not hold. */
  size_t limit = row * unplaced;
  if (limit > info->max_work_item_sizes[0]) limit = info->max_work_item_sizes[0];
  local[0] = largest_divisor(global[0], limit);
  local[1] = rest[1];
  local[2] = rest[2];
}

void weft__local_size_suggest(const weft_device_info *info, unsigned dims,
                              const size_t *global, size_t multiple,
                              size_t *local) {
  size_t total = 1;
  for (unsigned d = 0; d < dims; d++) total *= global[d];
  if (info->kind == WEFT_DEVICE_GPU)
    suggest_gpu(info, dims, total, global, local);
  else
    suggest_cpu(info, dims, total, global, multiple, local);
}
