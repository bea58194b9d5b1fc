/* fuzz_build.c: a mutation fuzzer of the two ways a program comes in,
 * OpenCL C source and program binaries, through the native API.
 *
 *   fuzz_build [--seconds S] [--seed N] [--out FILE] SEED_FILE...
 *
 * The seeds are kernels: a .cl file as it is, and from a .c file (the
 * examples) the lines of its string literals that end in "\n" joined. Each
 * round takes a seed, makes 1 to 4 changes (a byte flipped, a span deleted
 * or repeated, a piece of another seed spliced in, a token of OpenCL C
 * inserted, a number made extreme), writes the input to FILE (so that a
 * crash leaves it behind) and builds it with one of a few option strings.
 * Every third built program's binary is damaged and loaded again. A
 * round passes when the call returns 0 or a WEFT_E* status, with a log
 * where the build failed: any crash, abort or hang of the process fails
 * the run (CTest's time limit; WEFT_BUILD_TIMEOUT bounds each build).
 * The same seed makes the same rounds; how many run depends on the
 * machine. scripts/fuzz.sh runs it for longer, seed after seed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft/weft.h"

typedef struct text {
  char *bytes;
  size_t size;
} text;

static uint64_t state;

/* xorshift64*: the same rounds for the same seed. */
static uint64_t next(void) {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545f4914f6cdd1dull;
}

static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

static void die(const char *what) {
  fprintf(stderr, "fuzz_build: %s\n", what);
  exit(2);
}

/* ----------------------------------------------------------- seeds */

static text read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot read a seed file");
  text t = {NULL, 0};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f))) {
    t.bytes = realloc(t.bytes, t.size + n + 1);
    if (!t.bytes) die("out of memory");
    memcpy(t.bytes + t.size, buf, n);
    t.size += n;
  }
  fclose(f);
  if (!t.bytes && !(t.bytes = malloc(1))) die("out of memory");
  t.bytes[t.size] = 0;
  return t;
}

/* Appends the literal's contents (between its quotes), unescaped. */
static void unescape(text *out, const char *from, const char *to) {
  for (const char *p = from; p < to; p++) {
    char c = *p;
    if (c == '\\' && p + 1 < to) {
      c = *++p;
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    out->bytes[out->size++] = c;
  }
  out->bytes[out->size] = 0;
}

/* The kernel source of a C file: its string literal lines ending in \n. */
static text from_c(const text *c) {
  text out = {malloc(c->size + 1), 0};
  if (!out.bytes) die("out of memory");
  out.bytes[0] = 0;
  for (char *line = c->bytes; line && *line;) {
    char *end = strchr(line, '\n');
    char *open = line + strspn(line, " \t");
    char *close = end ? end : line + strlen(line);
    while (close > open && close[-1] != '"') close--;
    if (*open == '"' && close - open >= 4 && !strncmp(close - 3, "\\n", 2))
      unescape(&out, open + 1, close - 1);
    line = end ? end + 1 : NULL;
  }
  return out;
}

/* ------------------------------------------------------- mutations */

static const char *const tokens[] = {
    "{", "}", "(", ")", "[", "]", ";", ",", "*", "&", "<<", "?", ":",
    "for (;;) ", "while (1) ", "if (get_global_id(0)) ", "return;",
    "__local ", "__global ", "__constant ", "__private ", "volatile ",
    "barrier(CLK_LOCAL_MEM_FENCE);", "atomic_inc(", "vload4(0, ",
    "convert_int_sat(", "as_float(", "sizeof(", "typedef ", "struct ",
    "union ", "enum ", "int3 ", "double16 ", "half ", "void ",
    "0x7fffffff", "-2147483648", "1e308", "0.0f / 0.0f", "1 / 0",
    "#define A A A\n", "#include \"nothing.h\"\n", "#pragma unroll\n",
    "__attribute__((reqd_work_group_size(0, 1, 1))) ",
    "__attribute__((vec_type_hint(float4))) ", "asm(\"nop\");",
    "k(", "get_local_id(7)", "printf(\"%d %s %v4f\\n\", 1);",
    "image2d_t ", "sampler_t ", "goto l; l: ", "\\\n", "\"", "'",
    "/*", "*/", "//", "\n", "\0",
};

/* A number in the text made extreme. */
static void extreme(text *t) {
  static const char *const values[] = {"0", "-1", "4294967295",
                                       "9223372036854775807", "65536",
                                       "1000000000", "3.4e38f", "-0.0"};
  size_t at = below(t->size);
  while (at < t->size && (t->bytes[at] < '0' || t->bytes[at] > '9')) at++;
  if (at >= t->size) return;
  size_t end = at;
  while (end < t->size && t->bytes[end] >= '0' && t->bytes[end] <= '9') end++;
  const char *v = values[below(sizeof values / sizeof *values)];
  size_t n = strlen(v);
  char *grown = malloc(t->size - (end - at) + n + 1);
  if (!grown) die("out of memory");
  memcpy(grown, t->bytes, at);
  memcpy(grown + at, v, n);
  memcpy(grown + at + n, t->bytes + end, t->size - end);
  t->size = t->size - (end - at) + n;
  grown[t->size] = 0;
  free(t->bytes);
  t->bytes = grown;
}

/* Inserts n bytes of what at position at. */
static void insert(text *t, size_t at, const char *what, size_t n) {
  char *grown = realloc(t->bytes, t->size + n + 1);
  if (!grown) die("out of memory");
  t->bytes = grown;
  memmove(t->bytes + at + n, t->bytes + at, t->size - at);
  memcpy(t->bytes + at, what, n);
  t->size += n;
  t->bytes[t->size] = 0;
}

static void mutate(text *t, const text *seeds, size_t num_seeds) {
  size_t at = below(t->size + 1), span = 1 + below(64);
  if (span > t->size - (at < t->size ? at : t->size))
    span = t->size - (at < t->size ? at : t->size);
  switch (below(6)) {
  case 0: /* a byte flipped */
    if (t->size) t->bytes[below(t->size)] ^= (char)(1u << below(8));
    break;
  case 1: /* a span deleted */
    memmove(t->bytes + at, t->bytes + at + span, t->size - at - span);
    t->size -= span;
    t->bytes[t->size] = 0;
    break;
  case 2: { /* a span repeated */
    char *copy = malloc(span + 1);
    if (!copy) die("out of memory");
    memcpy(copy, t->bytes + at, span);
    insert(t, at, copy, span);
    free(copy);
    break;
  }
  case 3: { /* a piece of another seed */
    const text *other = &seeds[below(num_seeds)];
    size_t from = below(other->size), n = 1 + below(256);
    if (n > other->size - from) n = other->size - from;
    insert(t, at, other->bytes + from, n);
    break;
  }
  case 4: { /* a token */
    const char *token = tokens[below(sizeof tokens / sizeof *tokens)];
    insert(t, at, token, *token ? strlen(token) : 1);
    break;
  }
  default:
    extreme(t);
  }
}

/* ----------------------------------------------------------- rounds */

static const char *const option_sets[] = {
    "", "-cl-std=CL3.0", "-cl-opt-disable", "-cl-weft-check=all",
    "-g -cl-opt-disable", "-cl-fast-relaxed-math -DN=4", "-cl-std=CL1.2 -w"};

/* A status the API may return: 0 or one of its errors, with the message
 * it sets. */
static void check_status(int rc, const char *call, weft_program *p) {
  if (rc == 0) return;
  if (!strcmp(weft_strerror(rc), "unknown Weft status")) {
    fprintf(stderr, "fuzz_build: %s returned %d\n", call, rc);
    exit(1);
  }
  if (p && rc == WEFT_EBUILD && !*weft_program_build_log(p)) {
    fprintf(stderr, "fuzz_build: %s failed without a log\n", call);
    exit(1);
  }
}

/* Damages a built program's binary and loads and builds it again. */
static void damage_binary(weft_context *ctx, weft_program *p) {
  void *binary;
  size_t size;
  if (weft_program_get_binary(p, &binary, &size)) return;
  unsigned char *b = binary;
  switch (below(3)) {
  case 0:
    for (int i = 0, n = 1 + (int)below(8); i < n; i++)
      b[below(size)] ^= (unsigned char)(1u << below(8));
    break;
  case 1: size = below(size); break;
  default: b[below(size)] = (unsigned char)next();
  }
  weft_program *q;
  int rc = weft_program_create_binary(ctx, binary, size, &q);
  check_status(rc, "weft_program_create_binary", NULL);
  if (!rc) {
    check_status(weft_program_build(q, ""), "weft_program_build (binary)", q);
    weft_program_release(q);
  }
  free(binary);
}

static void write_input(const char *path, const text *t) {
  FILE *f = fopen(path, "wb");
  if (!f) die("cannot write the input file");
  fwrite(t->bytes, 1, t->size, f);
  fclose(f);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  double seconds = 20;
  unsigned long long seed = 1;
  const char *out = "fuzz-input.cl";
  text *seeds = calloc((size_t)argc, sizeof *seeds);
  size_t num_seeds = 0;
  if (!seeds) die("out of memory");
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      text t = read_file(argv[i]);
      size_t n = strlen(argv[i]);
      if (n > 2 && !strcmp(argv[i] + n - 2, ".c")) {
        text kernel = from_c(&t);
        free(t.bytes);
        t = kernel;
      }
      if (t.size) seeds[num_seeds++] = t;
      else free(t.bytes);
    }
  }
  if (!num_seeds) die("no seed kernels given");
  state = seed * 2654435761u + 1;
  weft_context *ctx;
  weft_device *dev;
  if (weft_device_get(0, &dev) || weft_context_create(dev, &ctx))
    die("no device");
  unsigned long rounds = 0, built = 0, failed = 0, binaries = 0, caught = 0;
  double end = now() + seconds;
  while (now() < end) {
    const text *seed_text = &seeds[below(num_seeds)];
    text t = {malloc(seed_text->size + 1), seed_text->size};
    if (!t.bytes) die("out of memory");
    memcpy(t.bytes, seed_text->bytes, t.size + 1);
    for (int i = 0, n = 1 + (int)below(4); i < n; i++) mutate(&t, seeds, num_seeds);
    write_input(out, &t);
    weft_program *p;
    int rc = weft_program_create(ctx, t.bytes, t.size, &p);
    check_status(rc, "weft_program_create", NULL);
    if (!rc) {
      rc = weft_program_build(p, option_sets[below(sizeof option_sets /
                                                   sizeof *option_sets)]);
      check_status(rc, "weft_program_build", p);
      if (rc) {
        failed++;
        if (strstr(weft_program_build_log(p), "the compiler crashed")) caught++;
      } else if (built++ % 3 == 0) {
        damage_binary(ctx, p);
        binaries++;
      }
      weft_program_release(p);
    }
    free(t.bytes);
    rounds++;
  }
  printf("fuzz_build: seed %llu: %lu rounds from %zu seeds, %lu built, %lu "
         "refused (%lu by a crash of the compiler, caught), %lu damaged "
         "binaries; the process never crashed\n",
         seed, rounds, num_seeds, built, failed, caught, binaries);
  weft_context_release(ctx);
  for (size_t i = 0; i < num_seeds; i++) free(seeds[i].bytes);
  free(seeds);
  remove(out);
  return 0;
}
