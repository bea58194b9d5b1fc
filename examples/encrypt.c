/*
 * encrypt.c: a toy cipher that mixes every word of a block with its two
 * neighbours, in place in __local memory: the example that motivated
 * barrier() in Clover's CPU back end, and Weft's per-work-item stacks.
 *
 * Each work-group loads a block of GROUP words into __local memory, runs
 * ROUNDS rounds of
 *     block[i] = block[i] ^ rotl(block[i-1], round) ^ (block[i+1] + KEY)
 * (indices wrap around inside the block) and stores the block back. The
 * host runs the same rounds in plain C and compares every word.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft/weft.h"

enum { WORDS = 1 << 16, GROUP = 256, ROUNDS = 8 };
static const uint32_t KEY = 0x9e3779b9u;

/*
 * Every work-item reads its neighbours' words, then overwrites its own.
 * Barrier (1) keeps any item from writing before all have read: on Weft's
 * CPU back end the items of a group run one after another between
 * barriers, so without it item 0 would store its new word and item 1 would
 * then mix in that new word instead of the old one. Barrier (2) keeps any
 * item from reading for the next round before all have written this one.
 * The shifts are masked so that rotl(x, 0) and rotl(x, 32) are defined.
 */
static const char *source =
    "uint rotl(uint x, uint n) {\n"
    "  return (x << (n & 31)) | (x >> ((32 - n) & 31));\n"
    "}\n"
    "\n"
    "__kernel void encrypt(__global uint *data, uint rounds, uint key) {\n"
    "  __local uint block[GROUP];\n"
    "  uint me = get_local_id(0);\n"
    "  uint left = (me + GROUP - 1) % GROUP, right = (me + 1) % GROUP;\n"
    "  block[me] = data[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint r = 1; r <= rounds; r++) {\n"
    "    uint next = block[me] ^ rotl(block[left], r) ^ (block[right] + key);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);   /* (1) all have read */\n"
    "    block[me] = next;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);   /* (2) all have written */\n"
    "  }\n"
    "  data[get_global_id(0)] = block[me];\n"
    "}\n";

/* Stops the program with Weft's explanation when a call fails. */
#define CHECK(call, object) check((call), (object), #call)

static void check(int rc, const void *object, const char *call) {
  if (rc == WEFT_OK) return;
  fprintf(stderr, "encrypt: %s failed: %s\n  %s\n", call, weft_strerror(rc),
          object ? weft_errmsg(object) : "");
  exit(EXIT_FAILURE);
}

/* Compiles source and returns its kernel called name. The kernel keeps its
 * program alive, so the program's reference is dropped here. */
static weft_kernel *build_kernel(weft_context *ctx, const char *source,
                                 const char *options, const char *name) {
  weft_program *program;
  CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  int rc = weft_program_build(program, options);
  if (rc != WEFT_OK) {
    fprintf(stderr, "encrypt: build failed: %s\n%s\n", weft_strerror(rc),
            weft_program_build_log(program));
    exit(EXIT_FAILURE);
  }
  weft_kernel *kernel;
  CHECK(weft_kernel_create(program, name, &kernel), program);
  weft_program_release(program);
  return kernel;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint32_t rotl(uint32_t x, uint32_t n) {
  return (x << (n & 31)) | (x >> ((32 - n) & 31));
}

/* The same rounds in plain C. Each round reads a copy of the block as it
 * was before the round, which is what the two barriers give the kernel. */
static void encrypt_on_host(uint32_t *data) {
  uint32_t old[GROUP];
  for (size_t base = 0; base < WORDS; base += GROUP)
    for (uint32_t r = 1; r <= ROUNDS; r++) {
      memcpy(old, data + base, sizeof old);
      for (size_t i = 0; i < GROUP; i++)
        data[base + i] = old[i] ^ rotl(old[(i + GROUP - 1) % GROUP], r) ^
                         (old[(i + 1) % GROUP] + KEY);
    }
}

int main(void) {
  static uint32_t plain[WORDS], expected[WORDS], result[WORDS];
  for (size_t i = 0; i < WORDS; i++) plain[i] = (uint32_t)i * 2654435761u;
  memcpy(expected, plain, sizeof plain);
  encrypt_on_host(expected);

  weft_device *device;
  weft_context *ctx;
  CHECK(weft_device_get(0, &device), NULL);
  CHECK(weft_context_create(device, &ctx), device);
  /* The kernel's __local block takes its size from the host's constant. */
  char options[32];
  snprintf(options, sizeof options, "-DGROUP=%d", GROUP);
  weft_kernel *kernel = build_kernel(ctx, source, options, "encrypt");

  weft_buffer *data;
  CHECK(weft_buffer_create(ctx, sizeof plain, WEFT_MEM_COPY_HOST_PTR, plain,
                           &data), ctx);
  uint32_t rounds = ROUNDS, key = KEY;
  CHECK(weft_kernel_set_arg_buffer(kernel, 0, data), kernel);
  CHECK(weft_kernel_set_arg_value(kernel, 1, &rounds, sizeof rounds), kernel);
  CHECK(weft_kernel_set_arg_value(kernel, 2, &key, sizeof key), kernel);
  size_t global = WORDS, local = GROUP;
  double start = now_ms();
  CHECK(weft_kernel_launch(kernel, 1, NULL, &global, &local), kernel);
  double ms = now_ms() - start;
  CHECK(weft_buffer_read(data, 0, sizeof result, result), data);

  for (size_t i = 0; i < WORDS; i++)
    if (result[i] != expected[i]) {
      fprintf(stderr, "encrypt: word %zu is %08x, the host says %08x\n", i,
              (unsigned)result[i], (unsigned)expected[i]);
      return EXIT_FAILURE;
    }
  printf("encrypt: %d words in groups of %d, %d rounds, %.1f ms\n", WORDS,
         GROUP, ROUNDS, ms);
  for (size_t i = 1; i < 4; i++)
    printf("  word %zu: %08x -> %08x\n", i, (unsigned)plain[i],
           (unsigned)result[i]);
  printf("  all %d words match the host: ok\n", WORDS);

  weft_buffer_release(data);
  weft_kernel_release(kernel);
  weft_context_release(ctx);
  return EXIT_SUCCESS;
}
