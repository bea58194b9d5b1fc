/*
 * bfs.c: breadth-first search level by level in one launch, with a global
 * barrier between levels: the second example of the Cooperative Kernels
 * paper (Sorensen, Evrard and Donaldson), on 4 times more work-groups than
 * Weft has threads.
 *
 * The graph is a 512 x 512 grid with one edge in ten left out at random,
 * so the search from a corner takes over a thousand levels. At each level
 * every work-item of the launch takes its share of the frontier (the
 * vertices found at the level before), claims each unvisited neighbour
 * with a compare-and-swap on its level, and appends the ones it claimed to
 * the next frontier. weft_global_barrier() then waits for every work-group
 * of the launch before the next level starts.
 *
 * Without a global barrier this takes a launch per level. With one, every
 * group must be running or able to run when another waits at the barrier:
 * Weft parks a waiting group and runs another on its thread, so any number
 * of groups works. The host checks every vertex's level against its own
 * search.
 *
 * With --cooperative the barrier is resizing_global_barrier() of a
 * cooperative kernel (cl_weft_cooperative_kernels): the launch's groups
 * are the most it may have, it starts with as many as Weft has threads
 * for, and at each level the number of groups may change; the level
 * travels to new groups as a transmit variable, and each level reads the
 * number of work-items anew.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft/weft.h"

enum { SIDE = 512, VERTICES = SIDE * SIDE, GROUP = 64 };

/* counts[d % 3] is the size of level d's frontier. Three counters turn:
 * level d reads its own, adds to the next one, and clears the one after,
 * which level d - 1 read before the barrier and level d + 1 fills after
 * the next. Every work-item reads the same count after a barrier, so all
 * leave the loop together. */
static const char *source =
    "/* Level depth's share of work-item me of items; 0 when the level's\n"
    " * frontier is empty (the search is over). */\n"
    "uint visit(__global const uint *offsets, __global const uint *edges,\n"
    "           __global atomic_int *level, __global uint *frontiers,\n"
    "           __global atomic_uint *counts, uint vertices, uint depth,\n"
    "           uint me, uint items) {\n"
    "  uint count = atomic_load(&counts[depth % 3]);\n"
    "  if (count == 0) return 0;\n"
    "  if (me == 0) atomic_store(&counts[(depth + 2) % 3], 0);\n"
    "  __global const uint *now = frontiers + (depth & 1) * vertices;\n"
    "  __global uint *next = frontiers + ((depth + 1) & 1) * vertices;\n"
    "  for (uint i = me; i < count; i += items) {\n"
    "    uint u = now[i];\n"
    "    for (uint e = offsets[u]; e < offsets[u + 1]; e++) {\n"
    "      uint v = edges[e];\n"
    "      int unvisited = -1;\n"
    "      if (atomic_compare_exchange_strong(&level[v], &unvisited,\n"
    "                                         (int)depth + 1))\n"
    "        next[atomic_fetch_add(&counts[(depth + 1) % 3], 1)] = v;\n"
    "    }\n"
    "  }\n"
    "  return count;\n"
    "}\n"
    "\n"
    "__kernel void bfs(__global const uint *offsets,\n"
    "                  __global const uint *edges, __global atomic_int *level,\n"
    "                  __global uint *frontiers, __global atomic_uint *counts,\n"
    "                  uint vertices, __global uint *levels) {\n"
    "  uint me = get_global_id(0), items = get_global_size(0);\n"
    "  uint depth = 0;\n"
    "  for (;; depth++) {\n"
    "    if (!visit(offsets, edges, level, frontiers, counts, vertices, depth,\n"
    "               me, items))\n"
    "      break;\n"
    "    weft_global_barrier();\n"
    "  }\n"
    "  if (me == 0) *levels = depth;\n"
    "}\n"
    "\n"
    "/* The number of work-items may change at each level: read anew. */\n"
    "__kernel void bfs_cooperative(__global const uint *offsets,\n"
    "                  __global const uint *edges, __global atomic_int *level,\n"
    "                  __global uint *frontiers, __global atomic_uint *counts,\n"
    "                  uint vertices, __global uint *levels) {\n"
    "  transmit uint depth = 0;\n"
    "  for (;; depth++) {\n"
    "    if (!visit(offsets, edges, level, frontiers, counts, vertices, depth,\n"
    "               get_global_id(0), get_global_size(0)))\n"
    "      break;\n"
    "    resizing_global_barrier();\n"
    "  }\n"
    "  if (get_global_id(0) == 0) *levels = depth;\n"
    "}\n";

#define CHECK(call, object) check((call), (object), #call)

static void check(int rc, const void *object, const char *call) {
  if (rc == WEFT_OK) return;
  fprintf(stderr, "bfs: %s failed: %s\n  %s\n", call, weft_strerror(rc),
          object ? weft_errmsg(object) : "");
  exit(EXIT_FAILURE);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The grid as compressed rows: the neighbours of u are edges[offsets[u] ..
 * offsets[u + 1] - 1]. An edge is kept in both directions or neither. */
typedef struct graph {
  uint32_t offsets[VERTICES + 1];
  uint32_t edges[4 * VERTICES];
  uint32_t num_edges;
} graph;

static int kept(uint32_t a, uint32_t b) {
  /* A hash of the edge, the same from either end. */
  uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  uint64_t h = (uint64_t)lo * 0x9e3779b97f4a7c15ull ^ hi * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h % 10 != 0;
}

static void make_grid(graph *g) {
  g->num_edges = 0;
  for (uint32_t u = 0; u < VERTICES; u++) {
    g->offsets[u] = g->num_edges;
    uint32_t x = u % SIDE, y = u / SIDE;
    uint32_t near[4], n = 0;
    if (x > 0) near[n++] = u - 1;
    if (x + 1 < SIDE) near[n++] = u + 1;
    if (y > 0) near[n++] = u - SIDE;
    if (y + 1 < SIDE) near[n++] = u + SIDE;
    for (uint32_t i = 0; i < n; i++)
      if (kept(u, near[i])) g->edges[g->num_edges++] = near[i];
  }
  g->offsets[VERTICES] = g->num_edges;
}

/* The host's search: levels (-1: unreached); returns the number of levels
 * with vertices. */
static uint32_t search(const graph *g, int32_t *level, uint32_t *queue) {
  for (uint32_t u = 0; u < VERTICES; u++) level[u] = -1;
  uint32_t head = 0, tail = 0, depth = 0;
  level[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    uint32_t u = queue[head++];
    if ((uint32_t)level[u] + 1 > depth) depth = (uint32_t)level[u] + 1;
    for (uint32_t e = g->offsets[u]; e < g->offsets[u + 1]; e++)
      if (level[g->edges[e]] < 0) {
        level[g->edges[e]] = level[u] + 1;
        queue[tail++] = g->edges[e];
      }
  }
  return depth;
}

static weft_buffer *buffer(weft_context *ctx, size_t size, const void *data) {
  weft_buffer *b;
  CHECK(weft_buffer_create(ctx, size, WEFT_MEM_READ_WRITE, NULL, &b), ctx);
  if (data) CHECK(weft_buffer_write(b, 0, size, data), b);
  return b;
}

int main(int argc, char **argv) {
  int cooperative = argc > 1 && !strcmp(argv[1], "--cooperative");
  graph *g = malloc(sizeof *g);
  int32_t *want = malloc(VERTICES * 4), *got = malloc(VERTICES * 4);
  uint32_t *queue = malloc(VERTICES * 4);
  if (!g || !want || !got || !queue) return EXIT_FAILURE;
  make_grid(g);
  uint32_t want_levels = search(g, want, queue);

  weft_device *device;
  weft_context *ctx;
  weft_device_info info;
  CHECK(weft_device_get(0, &device), NULL);
  CHECK(weft_device_info_get(device, &info), device);
  CHECK(weft_context_create(device, &ctx), device);
  uint32_t groups = 4 * info.compute_units;

  weft_program *program;
  CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  if (weft_program_build(program, "-cl-std=CL3.0") != WEFT_OK) {
    fprintf(stderr, "bfs: build failed:\n%s\n", weft_program_build_log(program));
    return EXIT_FAILURE;
  }
  weft_kernel *kernel;
  CHECK(weft_kernel_create(program, cooperative ? "bfs_cooperative" : "bfs",
                           &kernel), program);
  weft_program_release(program);

  /* Level 0 is the corner alone: its level 0, the others -1. */
  for (uint32_t u = 0; u < VERTICES; u++) got[u] = u ? -1 : 0;
  uint32_t counts[3] = {1, 0, 0}, first = 0, vertices = VERTICES;
  weft_buffer *offsets = buffer(ctx, sizeof g->offsets, g->offsets);
  weft_buffer *edges = buffer(ctx, g->num_edges * 4, g->edges);
  weft_buffer *level = buffer(ctx, VERTICES * 4, got);
  weft_buffer *frontiers = buffer(ctx, 2 * VERTICES * 4, NULL);
  weft_buffer *count = buffer(ctx, sizeof counts, counts);
  weft_buffer *levels = buffer(ctx, 4, NULL);
  CHECK(weft_buffer_write(frontiers, 0, 4, &first), frontiers);

  weft_buffer *args[] = {offsets, edges, level, frontiers, count};
  for (unsigned i = 0; i < 5; i++)
    CHECK(weft_kernel_set_arg_buffer(kernel, i, args[i]), kernel);
  CHECK(weft_kernel_set_arg_value(kernel, 5, &vertices, sizeof vertices),
        kernel);
  CHECK(weft_kernel_set_arg_buffer(kernel, 6, levels), kernel);
  size_t global = (size_t)groups * GROUP, local = GROUP;
  double start = now_ms();
  CHECK(weft_kernel_launch(kernel, 1, NULL, &global, &local), kernel);
  double ms = now_ms() - start;

  uint32_t got_levels = 0, wrong = 0, first_wrong = 0, reached = 0;
  CHECK(weft_buffer_read(level, 0, VERTICES * 4, got), level);
  CHECK(weft_buffer_read(levels, 0, 4, &got_levels), levels);
  for (uint32_t u = 0; u < VERTICES; u++) {
    reached += want[u] >= 0;
    if (got[u] != want[u] && !wrong++) first_wrong = u;
  }
  printf("bfs: a %dx%d grid (%u edges) from a corner on %s%u groups of %d "
         "(%u thread%s), %.1f ms\n", SIDE, SIDE, g->num_edges,
         cooperative ? "a cooperative kernel of at most " : "", groups, GROUP,
         info.compute_units, info.compute_units == 1 ? "" : "s", ms);
  printf("  %u levels, one %s barrier each (%.1f us per level); "
         "%u vertices reached\n", got_levels,
         cooperative ? "resizing" : "global", ms * 1e3 / got_levels, reached);
  int ok = !wrong && got_levels == want_levels;
  if (wrong)
    fprintf(stderr, "bfs: %u vertices at the wrong level, the first %u at "
            "%d, not %d\n", wrong, first_wrong, got[first_wrong],
            want[first_wrong]);
  else if (!ok)
    fprintf(stderr, "bfs: %u levels, not %u\n", got_levels, want_levels);
  else
    printf("  every level as the host's search found; ok\n");

  weft_buffer *all[] = {offsets, edges, level, frontiers, count, levels};
  for (unsigned i = 0; i < 6; i++) weft_buffer_release(all[i]);
  weft_kernel_release(kernel);
  weft_context_release(ctx);
  free(g);
  free(want);
  free(got);
  free(queue);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
