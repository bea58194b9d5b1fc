/* test_local_size.c: the local sizes Weft chooses for a NULL local size
 * (core/local_size.c, compiled into the test), for a described CPU and a
 * described GPU: no device is needed, so CI checks the GPU's rule too. */
#include "core/local_size.h"
#include "harness.h"

static weft_device_info gpu(unsigned multiprocessors) {
  weft_device_info info = {0};
  info.kind = WEFT_DEVICE_GPU;
  info.compute_units = multiprocessors;
  info.max_work_group_size = 1024;
  info.max_work_item_sizes[0] = info.max_work_item_sizes[1] = 1024;
  info.max_work_item_sizes[2] = 64;
  return info;
}

static weft_device_info cpu(unsigned threads) {
  weft_device_info info = {0};
  info.kind = WEFT_DEVICE_CPU;
  info.compute_units = threads;
  info.max_work_group_size = 4096;
  for (int d = 0; d < 3; d++) info.max_work_item_sizes[d] = 4096;
  return info;
}

/* Every suggestion divides its global size and stays within the limits. */
static void check_valid(const weft_device_info *info, unsigned dims,
                        const size_t *global, const size_t *local) {
  size_t items = 1;
  for (unsigned d = 0; d < 3; d++) {
    size_t g = d < dims ? global[d] : 1;
    CHECK(local[d] >= 1);
    CHECK(local[d] <= info->max_work_item_sizes[d]);
    CHECK_EQ(g % local[d], 0);
    items *= local[d];
  }
  CHECK(items <= info->max_work_group_size);
}

static void suggest(const weft_device_info *info, unsigned dims, size_t x,
                    size_t y, size_t z, size_t local[3]) {
  size_t global[3] = {x, y, z};
  weft__local_size_suggest(info, dims, global, 1, local);
  check_valid(info, dims, global, local);
}

/* A large 1D launch on a GPU gets blocks of 8 warps, not the 1024 the
 * CPU's rule would give (vecadd ran at 75% of NVIDIA's bandwidth so). */
TEST(gpu_streaming_launch_gets_256_threads) {
  weft_device_info h100 = gpu(132);
  size_t local[3];
  suggest(&h100, 1, (size_t)1 << 26, 1, 1, local);
  CHECK_EQ(local[0], 256);
  CHECK_EQ(local[1], 1);
  CHECK_EQ(local[2], 1);
}

/* Few work-items: blocks shrink while there are fewer blocks than
 * multiprocessors, but never below a warp (n-body over 32768 bodies got
 * half-warp blocks from the CPU's rule). */
TEST(gpu_small_launch_keeps_whole_warps) {
  weft_device_info h100 = gpu(132);
  size_t local[3];
  suggest(&h100, 1, 32768, 1, 1, local);
  CHECK_EQ(local[0], 128); /* 256 blocks: at least one per multiprocessor */
  suggest(&h100, 1, 2048, 1, 1, local);
  CHECK_EQ(local[0], 32);
  suggest(&h100, 1, 96, 1, 1, local);
  CHECK_EQ(local[0], 32);
  suggest(&h100, 1, 7, 1, 1, local); /* fewer items than a warp */
  CHECK_EQ(local[0], 7);
}

/* 2D: two warps along rows, the rest down the columns. */
TEST(gpu_image_launch_is_two_warps_wide) {
  weft_device_info h100 = gpu(132);
  size_t local[3];
  suggest(&h100, 2, 8192, 8192, 1, local);
  CHECK_EQ(local[0], 64);
  CHECK_EQ(local[1], 4);
  suggest(&h100, 3, 512, 512, 512, local);
  CHECK_EQ(local[0], 64);
  CHECK_EQ(local[1] * local[2], 4);
  /* A single row: dimension 0 takes all of the block. */
  suggest(&h100, 2, 1 << 20, 1, 1, local);
  CHECK_EQ(local[0], 256);
  CHECK_EQ(local[1], 1);
}

/* Sizes with awkward divisors stay valid. */
TEST(gpu_awkward_sizes_stay_valid) {
  weft_device_info h100 = gpu(132);
  static const size_t cases[][3] = {{1021, 1, 1}, {7, 9, 11}, {100, 3, 1},
                                    {1, 1, 1},    {6000, 5, 3}, {33, 1024, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    size_t local[3];
    suggest(&h100, 3, cases[c][0], cases[c][1], cases[c][2], local);
  }
}

/* The CPU's rule is unchanged: about 8 groups per thread, dimension 0
 * first. */
TEST(cpu_divides_the_work_by_the_threads) {
  weft_device_info two = cpu(2);
  size_t local[3];
  suggest(&two, 1, (size_t)1 << 24, 1, 1, local);
  CHECK_EQ(local[0], 4096); /* the device's limit */
  suggest(&two, 1, 4096, 1, 1, local);
  CHECK_EQ(local[0], 256);
  suggest(&two, 2, 1024, 1024, 1, local);
  CHECK_EQ(local[0], 1024);
  CHECK_EQ(local[1], 4);
}

/* A kernel whose whole sub-groups run side by side asks for x sizes of
 * their multiples (16 here): 4800 items on 2 threads would be groups of
 * 300, and are 240; where the global size is no multiple, as before;
 * where the threads want fewer items a group, one sub-group. */
TEST(cpu_prefers_whole_sub_groups) {
  weft_device_info two = cpu(2);
  size_t local[3], global[3];
  static const struct {
    size_t global, multiple, want;
  } cases[] = {{4800, 1, 300}, {4800, 16, 240}, {1000, 16, 50},
               {64, 16, 16}, {1 << 20, 16, 4096}, {48, 16, 16}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    global[0] = cases[c].global;
    global[1] = global[2] = 1;
    weft__local_size_suggest(&two, 1, global, cases[c].multiple, local);
    check_valid(&two, 1, global, local);
    CHECK_EQ(local[0], cases[c].want);
  }
}

TEST_MAIN()
