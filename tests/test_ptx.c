/* test_ptx.c: OpenCL C to PTX for NVIDIA GPUs (weft_compile_ptx), which
 * needs no GPU, so CI checks it: the CUDA entries and their globals, the
 * orderings as PTX fences, printf, the casts and widenings NVPTX cannot
 * make, and the errors. When the CUDA toolkit's ptxas is there, the PTX
 * is assembled too. The kernels running on a GPU are tests/cuda's and the device
 * tool's business. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support.h"
#include "weft/weft.h"

/* The PTX of source for sm, which must build; the caller frees it. */
static char *ptx_for(const char *source, const char *options, unsigned sm) {
  char *ptx = NULL, *log = NULL;
  int rc = weft_compile_ptx(source, 0, options, sm, &ptx, &log);
  if (rc) FAIL("weft_compile_ptx: %s\n%s", weft_strerror(rc), log);
  free(log);
  return ptx;
}

static char *ptx_of(const char *source, const char *options) {
  return ptx_for(source, options, 90);
}

/* Assembles ptx for sm with the toolkit's ptxas where there is one. */
static void assemble_for(const char *ptx, unsigned sm) {
  const char *ptxas = "/usr/local/cuda/bin/ptxas";
  if (access(ptxas, X_OK)) return;
  char path[] = "/tmp/weft-test-ptx-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  CHECK_EQ(write(fd, ptx, strlen(ptx)), (long long)strlen(ptx));
  close(fd);
  char command[256];
  snprintf(command, sizeof command, "%s -arch=sm_%u %s -o /dev/null", ptxas,
           sm, path);
  int status = system(command);
  unlink(path);
  CHECK_EQ(status, 0);
}

static void assemble(const char *ptx) { assemble_for(ptx, 90); }

TEST(arguments_become_entry_parameters) {
  char *ptx = ptx_of(
      "struct s { int a; double b; };\n"
      "constant float table[2] = {1, 2};\n"
      "kernel void k(global float *g, constant float *c, local float *l,\n"
      "              struct s v, float4 w) {\n"
      "  size_t i = get_global_id(0);\n"
      "  l[get_local_id(0)] = c[i] + table[i & 1];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  g[i] = l[0] + v.a + (float)v.b + w.y + get_global_offset(0);\n"
      "}\n",
      NULL);
  CHECK_STR_CONTAINS(ptx, ".visible .entry k(");
  CHECK_STR_CONTAINS(ptx, "weft_dynamic_local");   /* the __local argument */
  CHECK_STR_CONTAINS(ptx, "weft__constant_bank");  /* the __constant one */
  CHECK_STR_CONTAINS(ptx, "weft__launch_block");   /* the global offset */
  CHECK_STR_CONTAINS(ptx, "bar.sync");
  assemble(ptx);
  free(ptx);
}

TEST(sync_objects_and_global_barrier) {
  char *ptx = ptx_of(
      "kernel void k(global weft_mutex *m, global weft_semaphore *s,\n"
      "              global int *n) {\n"
      "  weft_mutex_lock_group(m);\n"
      "  if (get_local_id(0) == 0) n[0]++;\n"
      "  weft_mutex_unlock_group(m);\n"
      "  weft_semaphore_wait_group(s);\n"
      "  weft_semaphore_post_group(s);\n"
      "  weft_global_barrier();\n"
      "  n[1 + get_global_id(0)] = work_group_reduce_add(1);\n"
      "}\n",
      "-cl-std=CL3.0");
  CHECK_STR_CONTAINS(ptx, "weft__launch_words");
  /* The primitives' orderings are PTX's ordered instructions, with no
   * fence around them (LLVM 19 selects none itself): a lock's
   * compare-and-swap acquires; its unlock and a post are reds, atomics
   * nobody waits for; the barrier's add both acquires and releases. */
  CHECK_STR_CONTAINS(ptx, "atom.acquire.gpu.global.cas.b32");
  CHECK_STR_CONTAINS(ptx, "red.release.gpu.global.and.b32");
  CHECK_STR_CONTAINS(ptx, "red.release.gpu.global.add.u32");
  CHECK_STR_CONTAINS(ptx, "atom.acq_rel.gpu.global.add.u32");
  CHECK_STR_CONTAINS(ptx, "ld.acquire.gpu.global.b32");
  CHECK(!strstr(ptx, "fence.acq_rel.gpu"));
  CHECK_STR_CONTAINS(ptx, "nanosleep");
  assemble(ptx);
  free(ptx);
}

/* Ordered atomics in global memory become PTX's ordered forms (seq_cst
 * with a fence.sc first, sub as an add of the negation); through a
 * generic address, which may be __local memory, they keep a fence on
 * each side, as a fence stays a fence. */
TEST(ordered_atomics_as_ptx_instructions) {
  char *ptx = ptx_of(
      "kernel void k(volatile global uint *w, volatile global ulong *l,\n"
      "              volatile global int *out, global atomic_uint *g) {\n"
      "  uint v = __atomic_fetch_add(w, 1u, __ATOMIC_ACQ_REL);\n"
      "  uint x = __atomic_load_n(w + 1, __ATOMIC_ACQUIRE);\n"
      "  __atomic_store_n(w + 2, v + x, __ATOMIC_RELEASE);\n"
      "  uint e = 5;\n"
      "  __atomic_compare_exchange_n(w + 3, &e, 7u, 0, __ATOMIC_ACQ_REL,\n"
      "                              __ATOMIC_ACQUIRE);\n"
      "  ulong y = __atomic_fetch_sub(l, 3ul, __ATOMIC_SEQ_CST);\n"
      "  int m = atomic_max(out, 4);\n"
      "  uint z = atomic_load_explicit(g, memory_order_acquire,\n"
      "                                memory_scope_device);\n"
      "  out[1] = e + y + m + z;\n"
      "}\n",
      "-cl-std=CL3.0");
  CHECK_STR_CONTAINS(ptx, "atom.acq_rel.gpu.global.add.u32");
  CHECK_STR_CONTAINS(ptx, "ld.acquire.gpu.global.b32");
  CHECK_STR_CONTAINS(ptx, "st.release.gpu.global.b32");
  CHECK_STR_CONTAINS(ptx, "atom.acq_rel.gpu.global.cas.b32");
  CHECK_STR_CONTAINS(ptx, "fence.sc.gpu; atom.acq_rel.gpu.global.add.u64");
  CHECK_STR_CONTAINS(ptx, "-3;"); /* the sub's operand, negated */
  CHECK_STR_CONTAINS(ptx, "fence.sc.gpu; atom.acq_rel.gpu.global.max.s32");
  CHECK_STR_CONTAINS(ptx, "fence.acq_rel.gpu"); /* the generic load's */
  assemble(ptx);
  free(ptx);
}

/* An ordered atomic on __local memory (OpenCL 1.2's atomic_inc is
 * seq_cst) is fenced at CTA scope: only its work-group can see it, and a
 * GPU-scope fence on each side cost a __local histogram 2.6 times
 * NVIDIA's time. Global ones keep GPU scope. */
TEST(local_atomics_fenced_in_the_work_group) {
  char *ptx = ptx_of(
      "kernel void k(global const uint *in, global uint *bins,\n"
      "              local uint *local_bins) {\n"
      "  local_bins[get_local_id(0)] = 0;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  atomic_inc(&local_bins[in[get_global_id(0)] & 63]);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  atomic_add(&bins[get_local_id(0)], local_bins[get_local_id(0)]);\n"
      "}\n",
      "");
  CHECK_STR_CONTAINS(ptx, "fence.sc.cta;");
  CHECK_STR_CONTAINS(ptx, "atom.shared.add.u32");
  CHECK(!strstr(ptx, "fence.sc.gpu;\n"));
  CHECK_STR_CONTAINS(ptx, "fence.sc.gpu; atom.acq_rel.gpu.global.add.u32");
  assemble(ptx);
  free(ptx);
}

/* Whether ptx holds text as a constant byte array: PTX spells bytes in
 * decimal, "37, 100" for "%d". */
static int has_bytes(const char *ptx, const char *text) {
  char spelled[1024] = "{";
  size_t n = 1;
  for (const char *c = text; *c && n < sizeof spelled - 8; c++)
    n += (size_t)snprintf(spelled + n, sizeof spelled - n, "%s%d",
                          c == text ? "" : ", ", *c);
  return strstr(ptx, spelled) != NULL;
}

/* vprintf is C's: the format is rewritten for it. Vectors become one
 * conversion per element joined by commas; h and hh drop out (their
 * arguments are truncated first); 64-bit elements read as l. A format its
 * arguments do not match prints nothing. */
TEST(printf_becomes_vprintf) {
  char *ptx = ptx_of(
      "kernel void k(global int *a) {\n"
      "  a[0] = printf(\"%d %s %f %%\\n\", a[1], \"x\", 1.5f);\n"
      "  a[1] = printf(\"%hhd|%hu|%v2hlf|%#v3hhx|%v2ld\\n\", 300, -1,\n"
      "                (float2)(1, 2), (uchar3)(1, 2, 3), (long2)(4, 5));\n"
      "}\n",
      NULL);
  CHECK_STR_CONTAINS(ptx, "vprintf");
  CHECK(has_bytes(ptx, "%d %s %f %%\n"));
  CHECK(has_bytes(ptx, "%d|%u|%f,%f|%#x,%#x,%#x|%ld,%ld\n"));
  assemble(ptx);
  free(ptx);
}
/* Optimization folds local -> generic -> global into one cast, which
 * NVPTX cannot select (LLVM aborted the process on it). */
TEST(casts_between_named_spaces) {
  char *ptx = ptx_of(
      "int where(int *p) {\n"
      "  return (to_global(p) == (global int *)p) |\n"
      "         (to_local(p) == (local int *)p) << 1;\n"
      "}\n"
      "kernel void k(global int *out) {\n"
      "  local int tile[8];\n"
      "  volatile int pick = get_global_id(0) % 8;\n"
      "  out[0] = where(tile + pick) | where(out + pick) << 2;\n"
      "}\n",
      "-cl-std=CL3.0");
  assemble(ptx);
  free(ptx);
}

/* Widening a loaded float8 or float16 to double: NVPTX 19 alone makes
 * extending vector loads into f64 registers, which ptxas rejects. The
 * conversions must be per element, with no such load left. */
TEST(float_vectors_widened_to_double) {
  char *ptx = ptx_of(
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void k(global const float8 *a, global const float16 *b,\n"
      "              global double8 *c, global double16 *d) {\n"
      "  size_t i = get_global_id(0);\n"
      "  c[i] = convert_double8(a[i]);\n"
      "  d[i] = convert_double16(b[i]);\n"
      "}\n",
      NULL);
  CHECK_STR_CONTAINS(ptx, "cvt.f64.f32");
  for (const char *at = ptx; (at = strstr(at, "ld.global.v")); at++) {
    const char *brace = strchr(at, '{');
    CHECK(brace && strncmp(brace + 1, "%fd", 3)); /* no f64 destinations */
  }
  assemble(ptx);
  free(ptx);
}

/* vload16 of chars from an odd address: NVPTX 19 alone selects the
 * align-1 vector load as ld.v4.u32, which faults on the GPU. Element
 * loads, and the aligned float4 load left whole. */
TEST(unaligned_vector_loads_per_element) {
  char *ptx = ptx_of("kernel void k(global const char *a, global char16 *o,\n"
                     "              global float4 *f) {\n"
                     "  o[0] = vload16(0, a + 1);\n"
                     "  f[0] = f[1];\n"
                     "}\n",
                     NULL);
  CHECK(!strstr(ptx, ".v4.u32"));
  CHECK_STR_CONTAINS(ptx, "ld.global.v4.f32");
  assemble(ptx);
  free(ptx);
}

/* The number of times text occurs from from up to the next occurrence
 * of mark after it (or the end). */
static int count_up_to(const char *from, const char *mark, const char *text) {
  const char *end = strstr(from + 1, mark);
  int n = 0;
  for (const char *at = strstr(from, text); at && (!end || at < end);
       at = strstr(at + 1, text))
    n++;
  return n;
}

/* The number of times text occurs in ptx between from and the next
 * "$L__" label after it (one block). */
static int count_in_block(const char *from, const char *text) {
  return count_up_to(from, "$L__", text);
}

/* The largest number of ld.global loads in one block of ptx. */
static int most_loads_in_a_block(const char *ptx) {
  int most = 0;
  for (const char *at = ptx; at; at = strstr(at + 1, "$L__BB")) {
    int n = count_in_block(at, "ld.global");
    if (n > most) most = n;
  }
  return most;
}

/* A grid-stride loop (CLBlast's reductions) gets four loads out at once:
 * unrolled by four with its trip count computed before it (a division),
 * as NVIDIA's compiler does; restrict pointers only read go through the
 * read-only cache (ld.global.nc). A loop that also counts with an atomic
 * keeps one load a turn, and so does one with a pragma of its own. */
TEST(grid_stride_loops_unrolled_by_four) {
  const char *source =
      "kernel void sum(int n, const global float *restrict x,\n"
      "                global float *out) {\n"
      "  float acc = 0;\n"
      "  for (int id = get_global_id(0); id < n;\n"
      "       id += 256 * (int)get_num_groups(0))\n"
      "    acc += x[id];\n"
      "  out[get_global_id(0)] = acc;\n"
      "}\n"
      "kernel void counted(int n, const global float *restrict x,\n"
      "                    global float *out, global int *c) {\n"
      "  float acc = 0;\n"
      "  for (int id = get_global_id(0); id < n;\n"
      "       id += 256 * (int)get_num_groups(0)) {\n"
      "    acc += x[id];\n"
      "    atomic_inc(c);\n"
      "  }\n"
      "  out[get_global_id(0)] = acc;\n"
      "}\n"
      "kernel void pragma(int n, const global float *restrict x,\n"
      "                   global float *out) {\n"
      "  float acc = 0;\n"
      "  #pragma unroll 1\n"
      "  for (int id = get_global_id(0); id < n;\n"
      "       id += 256 * (int)get_num_groups(0))\n"
      "    acc += x[id];\n"
      "  out[get_global_id(0)] = acc;\n"
      "}\n";
  char *ptx = ptx_of(source, NULL);
  const char *sum = strstr(ptx, ".entry sum(");
  const char *counted = strstr(ptx, ".entry counted(");
  const char *pragma = strstr(ptx, ".entry pragma(");
  CHECK(sum && counted && pragma);
  /* Each entry's text, cut at the next one. */
  const char *entries[] = {sum, counted, pragma};
  int loads[3], nc[3];
  for (int e = 0; e < 3; e++) {
    const char *end = NULL;
    for (int o = 0; o < 3; o++)
      if (entries[o] > entries[e] && (!end || entries[o] < end))
        end = entries[o];
    size_t length = end ? (size_t)(end - entries[e]) : strlen(entries[e]);
    char *text = strndup(entries[e], length);
    loads[e] = most_loads_in_a_block(text);
    nc[e] = strstr(text, "ld.global.nc.f32") != NULL;
    free(text);
  }
  CHECK_EQ(loads[0], 4);
  CHECK_STR_CONTAINS(sum, "div.u32");
  CHECK_EQ(loads[1], 1);
  CHECK_EQ(loads[2], 1);
  /* The pragma's loop stays one ptxas must not unroll. */
  const char *no_unroll = strstr(pragma, "nounroll");
  const char *next = strstr(pragma + 1, ".entry");
  CHECK(no_unroll && (!next || no_unroll < next));
  CHECK(nc[0] && nc[1] && nc[2]);
  assemble(ptx);
  free(ptx);
  /* Without optimization nothing is unrolled. */
  ptx = ptx_of(source, "-cl-opt-disable");
  CHECK_EQ(most_loads_in_a_block(ptx), 1);
  free(ptx);
}

/* The block of ptx that holds the most ld.global loads. */
static const char *block_of_most_loads(const char *ptx) {
  const char *best = NULL;
  int most = 0;
  for (const char *at = ptx; at; at = strstr(at + 1, "$L__BB")) {
    int n = count_in_block(at, "ld.global");
    if (n > most) {
      most = n;
      best = at;
    }
  }
  return best;
}

/* A stride loop with int indices (CLBlast's Xdot: x[id * inc + off])
 * steps a pointer a turn: its unrolled block multiplies nothing, where
 * each load's address was multiplied, extended and added anew, and is
 * free of LLVM's "nounroll". */
TEST(stride_loops_step_pointers) {
  char *ptx = ptx_of(
      "kernel void dot(int n, const global float *restrict x, int xo,\n"
      "                int xi, const global float *restrict y, int yo,\n"
      "                int yi, global float *out) {\n"
      "  float acc = 0;\n"
      "  int groups = get_num_groups(0);\n"
      "  int id = (int)get_group_id(0) * 256 + (int)get_local_id(0);\n"
      "  while (id < n) {\n"
      "    acc = fma(x[id * xi + xo], y[id * yi + yo], acc);\n"
      "    id += 256 * groups;\n"
      "  }\n"
      "  out[get_global_id(0)] = acc;\n"
      "}\n",
      NULL);
  const char *block = block_of_most_loads(ptx);
  CHECK(block != NULL);
  CHECK_EQ(count_in_block(block, "ld.global.nc.f32"), 8);
  CHECK_EQ(count_in_block(block, "mul"), 0);
  CHECK_EQ(count_in_block(block, "cvt"), 0);
  /* Left for ptxas to unroll further, as NVIDIA's compiler leaves it; the
   * remainder (one load of each a turn) is not. */
  CHECK_EQ(count_in_block(block, "nounroll"), 0);
  const char *remainder = strstr(ptx, ".pragma \"nounroll\"");
  CHECK(remainder != NULL);
  CHECK_EQ(count_in_block(remainder, "ld.global.nc.f32"), 2);
  assemble(ptx);
  free(ptx);
}

/* Where ptx's entry name starts, or NULL. */
static const char *entry_of(const char *ptx, const char *name) {
  char head[128];
  snprintf(head, sizeof head, ".entry %s(", name);
  return strstr(ptx, head);
}

/* The loads in the block of ptx's entry name that ends at its first
 * bar.sync: with how many of them read through the read-only cache
 * (*nc). */
static int loads_before_barrier(const char *ptx, const char *name, int *nc) {
  const char *from = entry_of(ptx, name);
  const char *bar = from ? strstr(from, "bar.sync") : NULL;
  if (!bar) return -1;
  for (const char *label = strstr(from, "$L__"); label && label < bar;
       label = strstr(label + 1, "$L__"))
    if (label[-1] == '\n') from = label; /* a label's line, not a branch */
  int n = 0;
  *nc = 0;
  for (const char *at = strstr(from, "ld.global"); at && at < bar;
       at = strstr(at + 1, "ld.global")) {
    n++;
    *nc += !strncmp(at, "ld.global.nc", 12);
  }
  return n;
}

/* Reads of memory only read that follow a barrier are issued above it,
 * as NVIDIA's compiler has them (in flight while the group meets); reads
 * of memory the group writes are not. */
TEST(reads_of_read_only_memory_above_barriers) {
  char *ptx = ptx_of(
      "kernel void rows(const global float *restrict a, int ld,\n"
      "                 const global float *restrict x, global float *y,\n"
      "                 int n) {\n"
      "  local float xl[16];\n"
      "  int gid = get_global_id(0), lid = get_local_id(0);\n"
      "  float acc = 0;\n"
      "  for (int k = 0; k < n; k += 16) {\n"
      "    if (lid < 16) xl[lid] = x[k + lid];\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    #pragma unroll\n"
      "    for (int c = 0; c < 16; c++)\n"
      "      acc = fma(a[ld * (k + c) + gid], xl[c], acc);\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "  y[gid] = acc;\n"
      "}\n"
      "kernel void written(global float *a, int ld, global float *y) {\n"
      "  int gid = get_global_id(0);\n"
      "  a[gid] = 1.0f;\n"
      "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  y[gid] = a[gid + 1] + a[gid + ld];\n"
      "}\n",
      NULL);
  int nc = 0;
  CHECK_EQ(loads_before_barrier(ptx, "rows", &nc), 16);
  CHECK_EQ(nc, 16);
  CHECK_EQ(loads_before_barrier(ptx, "written", &nc), 0);
  assemble(ptx);
  free(ptx);
}

/* The times text occurs in ptx's entry name (up to the next entry). */
static int count_in_entry(const char *ptx, const char *name, const char *text) {
  const char *from = entry_of(ptx, name);
  return from ? count_up_to(from, ".entry ", text) : -1;
}

/* A loop whose tests are joined by && (mandelbrot's escape test) has one
 * exit, both tests in one predicate, as NVIDIA's compiler makes it: O3
 * had threaded the && into two branches a turn. The square the test
 * computes is used again by the next turn (one mul.rn a turn, beside the
 * two before the loop), also in a program with an image kernel, whose
 * texture pass runs its first passes over every kernel. */
TEST(loop_tests_joined_by_and_in_one_branch) {
  static const char *mandelbrot =
      "kernel void mandelbrot(global float *out, uint iterations) {\n"
      "  uint x = get_global_id(0), y = get_global_id(1);\n"
      "  uint width = get_global_size(0), height = get_global_size(1);\n"
      "  float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height;\n"
      "  float zr = 0.0f, zi = 0.0f;\n"
      "  uint i = 0;\n"
      "  while (i < iterations && zr * zr + zi * zi <= 4.0f) {\n"
      "    float t = zr * zr - zi * zi + cr;\n"
      "    zi = 2.0f * zr * zi + ci;\n"
      "    zr = t;\n"
      "    i++;\n"
      "  }\n"
      "  out[y * width + x] = (float)i;\n"
      "}\n";
  char with_image[2048];
  snprintf(with_image, sizeof with_image,
           "kernel void copy(read_only image2d_t src, global float *out) {\n"
           "  int x = get_global_id(0);\n"
           "  out[x] = read_imagef(src, (int2)(x, 0)).x;\n"
           "}\n%s",
           mandelbrot);
  const char *sources[] = {mandelbrot, with_image};
  for (int i = 0; i < 2; i++) {
    char *ptx = ptx_of(sources[i], NULL);
    CHECK_EQ(count_in_entry(ptx, "mandelbrot", "and.pred"), 1);
    /* The loop's, and the one around it for iterations == 0. */
    CHECK_EQ(count_in_entry(ptx, "mandelbrot", " bra"), 2);
    CHECK_EQ(count_in_entry(ptx, "mandelbrot", "mul.rn.f32"), 3);
    assemble(ptx);
    free(ptx);
  }
}

TEST(errors) {
  char *ptx = NULL, *log = NULL;
  CHECK_EQ(weft_compile_ptx("kernel void k(global int *a) { a[0] = b; }", 0,
                            NULL, 90, &ptx, &log),
           WEFT_EBUILD);
  CHECK_STR_CONTAINS(log, "program.cl:1:");
  CHECK(!ptx);
  free(log);
  CHECK_EQ(weft_compile_ptx("kernel void k(global int *a) {}", 0, NULL, 60,
                            &ptx, &log),
           WEFT_EINVAL);
  CHECK_STR_CONTAINS(log, "sm_70");
  free(log);
  CHECK_EQ(weft_compile_ptx("kernel void k(global int *a) {}", 0, "-Dbad=",
                            90, NULL, &log),
           WEFT_EINVAL);
}

/* Source that crashes Clang 19 (tests/fuzz_crashes/) and a build past
 * WEFT_BUILD_TIMEOUT are build errors of weft_compile_ptx, as they are of
 * device builds (it runs as they do: core/build_stack.h), and the next
 * build works. */
TEST(compiler_crash_and_time_limit) {
  /* Long enough for a plain build in a helper process on a loaded machine
   * (8 tests at once on a GPU machine took past 1 s). */
  setenv("WEFT_BUILD_TIMEOUT", "3", 1);
  FILE *f = fopen(WEFT_SOURCE_DIR "/tests/fuzz_crashes/clang_typo_correction.cl", "rb");
  CHECK(f != NULL);
  static char source[65536];
  size_t n = fread(source, 1, sizeof source - 1, f);
  fclose(f);
  source[n] = 0;
  char *ptx = NULL, *log = NULL;
  CHECK_EQ(weft_compile_ptx(source, n, NULL, 90, &ptx, &log), WEFT_EBUILD);
  CHECK(!ptx);
  CHECK_STR_CONTAINS(log, "error:");
  free(log);
  /* 400 nested loops take 2.5 s for PTX on a 2-core EPYC (800: 16 s):
   * 1000 stay far past the limit on a faster machine, whose abandoned
   * build ends with the process. */
  char *loops = support_nested_loops(1000);
  CHECK_EQ(weft_compile_ptx(loops, 0, NULL, 90, &ptx, &log), WEFT_EBUILD);
  CHECK_STR_CONTAINS(log, "ran past WEFT_BUILD_TIMEOUT (3 s)");
  free(log);
  free(loops);
  free(ptx_of("kernel void k(global int *a) { a[0] = 1; }", NULL));
}

/* Images and samplers are the CPU device's: a GPU build names the
 * argument. */
/* Images and samplers compile for the GPU: the image builtins
 * (builtins/image.cl) are inlined into the kernel, which reads the
 * image's layout from the global memory its argument points to. */
TEST(images_compile_for_the_gpu) {
  char *ptx = ptx_of(
      "constant sampler_t s = CLK_NORMALIZED_COORDS_TRUE |\n"
      "    CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
      "kernel void k(read_only image2d_t in, write_only image2d_t out,\n"
      "              sampler_t host_sampler) {\n"
      "  int2 at = (int2)(get_global_id(0), get_global_id(1));\n"
      "  float4 v = read_imagef(in, s, convert_float2(at) / 7.0f) +\n"
      "             read_imagef(in, host_sampler, at);\n"
      "  write_imagef(out, at, v * (float)get_image_width(in));\n}\n",
      "-cl-std=CL3.0");
  CHECK_STR_CONTAINS(ptx, ".entry k(");
  CHECK_STR_CONTAINS(ptx, "ld.global");
  CHECK(!strstr(ptx, "read_image")); /* no call left to a builtin */
  CHECK(!strstr(ptx, "write_image"));
  assemble(ptx);
  free(ptx);
}

/* A loop of filtered reads (a blur's taps) gets versions that take the
 * image's texture as there (jit/ptx/ptx_textures.c): their fetches stand
 * in one block, no branch between them, and a read through a texture has
 * no switch on the channel order (none at all where the order is RGBA); an arrays' and a 3D image's reads use
 * their textures' own instructions. Unoptimized builds just load the
 * handles. */
TEST(texture_reads_in_one_block_where_every_image_has_textures) {
  static const char *source =
      "kernel void blur(read_only image2d_t src, global float4 *out) {\n"
      "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
      "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  float4 sum = 0.0f;\n"
      "  for (int dy = -1; dy <= 1; dy++)\n"
      "    for (int dx = -1; dx <= 1; dx++)\n"
      "      sum += read_imagef(src, s, (float2)(x + 0.5f * dx, y + 0.5f * dy));\n"
      "  out[y * get_global_size(0) + x] = sum;\n"
      "}\n"
      "kernel void layers(read_only image2d_array_t a, read_only image3d_t v,\n"
      "                   read_only image1d_array_t b, sampler_t s,\n"
      "                   global float4 *out) {\n"
      "  float4 c = (float4)(get_global_id(0), 1.5f, 2.0f, 0.0f);\n"
      "  out[get_global_id(0)] = read_imagef(a, s, c) + read_imagef(v, s, c) +\n"
      "                          read_imagef(b, s, c.xy);\n"
      "}\n";
  char *ptx = ptx_of(source, "-cl-std=CL3.0");
  /* blur's entry, to the next one or the end. */
  const char *start = strstr(ptx, ".entry blur");
  CHECK(start);
  const char *end = strstr(start + 1, ".entry");
  if (!end) end = start + strlen(start);
  /* The longest run of fetches with no branch between them. */
  int run = 0, longest = 0;
  const char *previous = NULL;
  for (const char *at = strstr(start, "tex.2d"); at && at < end;
       at = strstr(at + 1, "tex.2d")) {
    int branch = 0;
    for (const char *c = previous; c && c < at && !branch; c++)
      branch = !strncmp(c, "bra", 3);
    run = previous && !branch ? run + 1 : 1;
    if (run > longest) longest = run;
    previous = at;
  }
  if (longest != 9) FAIL("blur's longest run of fetches: %d, not 9", longest);
  CHECK_STR_CONTAINS(ptx, "tex.a2d.v4.f32.f32");
  CHECK_STR_CONTAINS(ptx, "tex.3d.v4.f32.f32");
  CHECK_STR_CONTAINS(ptx, "tex.a1d.v4.f32.f32");
  assemble(ptx);
  free(ptx);
  ptx = ptx_of(source, "-cl-std=CL3.0 -cl-opt-disable");
  CHECK(!strstr(ptx, "__weft_texture_handle"));
  assemble(ptx);
  free(ptx);
}

/* Sub-group reductions of integers of 32 bits or fewer: one redux.sync
 * each on sm_80 and newer; shuffles on older GPUs (sm_75), whose ptxas refuses
 * redux.sync, unoptimized builds included; floats shuffle everywhere. */
TEST(sub_group_reductions_as_redux_where_the_gpu_has_it) {
  static const char *source =
      "kernel void k(global int *a, global uint *b, global float *f,\n"
      "              global short *s) {\n"
      "  size_t i = get_global_id(0);\n"
      "  a[i] = sub_group_reduce_add(a[i]) + sub_group_reduce_min(a[i]);\n"
      "  b[i] = sub_group_reduce_max(b[i]);\n"
      "  f[i] = sub_group_reduce_add(f[i]);\n"
      "  s[i] = sub_group_reduce_min(s[i]);\n"
      "  if (a[i] & 1) b[i] = sub_group_non_uniform_reduce_xor(b[i]);\n"
      "}\n";
  static const char *const options[] = {"-cl-std=CL3.0",
                                        "-cl-std=CL3.0 -cl-opt-disable"};
  for (int o = 0; o < 2; o++) {
    char *ptx = ptx_for(source, options[o], 90);
    CHECK_STR_CONTAINS(ptx, "redux.sync.add.s32");
    CHECK_STR_CONTAINS(ptx, "redux.sync.min.s32");
    CHECK_STR_CONTAINS(ptx, "redux.sync.max.u32");
    CHECK_STR_CONTAINS(ptx, "redux.sync.xor.b32");
    CHECK_STR_CONTAINS(ptx, "shfl.sync"); /* the float's */
    assemble_for(ptx, 90);
    free(ptx);
    ptx = ptx_for(source, options[o], 75);
    CHECK(!strstr(ptx, "redux"));
    CHECK_STR_CONTAINS(ptx, "shfl.sync");
    assemble_for(ptx, 75);
    free(ptx);
  }
}

/* libdevice is needed only by the math that calls it, and an unreadable
 * one is named in the log of those builds. */
TEST(math_needs_a_readable_libdevice) {
  setenv("WEFT_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
  char *ptx = ptx_of("kernel void k(global float *a) { a[0] = 2; }", NULL);
  free(ptx);
  char *log = NULL;
  CHECK_EQ(weft_compile_ptx("kernel void k(global float *a) {\n"
                            "  a[0] = pow(a[1], a[2]) + sin(a[3]);\n}\n",
                            0, NULL, 90, &ptx, &log),
           WEFT_EBUILD);
  CHECK(!ptx);
  CHECK_STR_CONTAINS(log, "(math on the GPU) comes from the CUDA toolkit's "
                          "libdevice: WEFT_LIBDEVICE=/nonexistent/"
                          "libdevice.10.bc cannot be read");
  free(log);
}

/* The threads of this process, from /proc/self/status. */
static int thread_count(void) {
  FILE *f = fopen("/proc/self/status", "r");
  CHECK(f != NULL);
  char line[256];
  int threads = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "Threads:", 8)) threads = atoi(line + 8);
  fclose(f);
  return threads;
}

/* PTX is the CUDA back end's JIT's work alone: no device is made for it
 * (the CPU device would start its worker threads; a GPU, the driver),
 * and the build's own thread is gone when the call returns. */
TEST(needs_no_device) {
  CHECK_EQ(thread_count(), 1);
  free(ptx_of("kernel void k(global int *a) { a[0] = 1; }", NULL));
  CHECK_EQ(thread_count(), 1);
}

TEST_MAIN()
