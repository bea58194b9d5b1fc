/* test_builtins_vector_misc.c: shuffle and shuffle2 (OpenCL C 3.0,
 * 6.15.13) for every element type and width, on random bit patterns (NaNs
 * among the floats must move unchanged), compared bit for bit with the
 * definition computed here. */
#include <stdarg.h>
#include <stdint.h>

#include "support.h"

#define NTYPES 10
static const char *const type_names[NTYPES] = {
    "char", "uchar", "short", "ushort", "int",
    "uint", "long",  "ulong", "float",  "double"};
static const int type_sizes[NTYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

/* The unsigned integer type of each element size: shuffle's masks. */
static const char *unsigned_of(int size) {
  return size == 1 ? "uchar" : size == 2 ? "ushort"
                              : size == 4 ? "uint" : "ulong";
}

#define ITEMS 64
#define MAX_BYTES 128 /* the largest vector, double16 */
#define CASE_SIZE 16

static uint64_t lcg_state = 0x2545f4914f6cdd1dULL;
static uint64_t next_random(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg_state ^ (lcg_state >> 29);
}

static void appendf(char **s, size_t *len, size_t *cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char line[1024];
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  CHECK(n >= 0 && (size_t)n < sizeof line);
  while (*len + (size_t)n + 1 > *cap) {
    *cap = *cap ? 2 * *cap : 8192;
    *s = realloc(*s, *cap);
    CHECK(*s);
  }
  memcpy(*s + *len, line, (size_t)n + 1);
  *len += (size_t)n;
}

static void type_name(int t, int n, char *out, size_t size) {
  if (n > 1)
    snprintf(out, size, "%s%d", type_names[t], n);
  else
    snprintf(out, size, "%s", type_names[t]);
}

static uint64_t element(const unsigned char *p, int size, int index) {
  uint64_t v = 0;
  memcpy(&v, p + (size_t)index * (size_t)size, (size_t)size);
  return v;
}

/* Inputs a, b, c: ITEMS slots of MAX_BYTES random bytes each. The masks
 * in c are often 0, 1, only the top bit, all ones or all but the top bit
 * (in elements of csize bytes). */
typedef struct {
  unsigned char a[ITEMS * MAX_BYTES], b[ITEMS * MAX_BYTES];
  unsigned char c[ITEMS * MAX_BYTES];
} inputs;

static void make_inputs(inputs *in, int csize) {
  for (size_t i = 0; i < sizeof in->a; i++) {
    in->a[i] = (unsigned char)next_random();
    in->b[i] = (unsigned char)next_random();
    in->c[i] = (unsigned char)next_random();
  }
  for (int e = 0; e < ITEMS * MAX_BYTES / csize; e++) {
    uint64_t top = 1ULL << (8 * csize - 1), v;
    switch (next_random() % 6) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = top; break;
    case 3: v = ~0ULL; break;
    case 4: v = top - 1; break;
    default: continue;
    }
    memcpy(in->c + (size_t)e * (size_t)csize, &v, (size_t)csize);
  }
}

/* Builds source (one kernel k(a, b, c, out) whose calls write ITEMS results
 * each, MAX_BYTES apart), runs it and returns out. */
static unsigned char *run(const char *source, const inputs *in, int calls) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  size_t out_size = (size_t)calls * ITEMS * MAX_BYTES;
  weft_buffer *b[4] = {support_buffer(ctx, sizeof in->a, in->a),
                       support_buffer(ctx, sizeof in->b, in->b),
                       support_buffer(ctx, sizeof in->c, in->c),
                       support_buffer(ctx, out_size, NULL)};
  for (unsigned i = 0; i < 4; i++)
    CHECK_OK(weft_kernel_set_arg_buffer(k, i, b[i]), k);
  size_t global = ITEMS;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  unsigned char *out = malloc(out_size);
  CHECK_OK(weft_buffer_read(b[3], 0, out_size, out), b[3]);
  for (int i = 0; i < 4; i++) weft_buffer_release(b[i]);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  return out;
}

/* The kernel's start; each call's line follows "case": operands are read
 * as A(type), B(type), C(type) from the item's slot. */
static void begin_kernel(char **src, size_t *len, size_t *cap, int calls) {
  appendf(src, len, cap,
          "#define A(T) (*(__global const T *)(a + i * %d))\n"
          "#define B(T) (*(__global const T *)(b + i * %d))\n"
          "#define C(T) (*(__global const T *)(c + i * %d))\n"
          "#define OUT(T, k) (*(__global T *)(out + ((k) * %d + i) * %d))\n"
          "__kernel void k(__global const uchar *restrict a,\n"
          "                __global const uchar *restrict b,\n"
          "                __global const uchar *restrict c,\n"
          "                __global uchar *restrict out) {\n"
          "  size_t i = get_global_id(0);\n"
          "  for (int g = 0; g < %d; g++)\n"
          "    switch (g) {\n",
          MAX_BYTES, MAX_BYTES, MAX_BYTES, ITEMS, MAX_BYTES,
          (calls + CASE_SIZE - 1) / CASE_SIZE);
}

static void call_line(char **src, size_t *len, size_t *cap, int k,
                      const char *fmt, ...) {
  char line[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (k % CASE_SIZE == 0)
    appendf(src, len, cap, "%s    case %d:\n", k ? "      break;\n" : "",
            k / CASE_SIZE);
  appendf(src, len, cap, "      %s\n", line);
}

static const int shuffle_widths[4] = {2, 4, 8, 16};

/* shuffle(x, mask) and shuffle2(x, y, mask) of every type, from every width
 * m to every width n, with masks read from memory (any value: only
 * mask % m or mask % 2m counts) and constant masks (folded at compile
 * time). */
TEST(shuffle_every_type_and_width) {
  inputs *in = malloc(sizeof *in);
  make_inputs(in, 1);
  char *src = NULL, tm[16], tn[16], un[16];
  size_t len = 0, cap = 0;
  int calls = 10 * 4 * 4 * 4;
  begin_kernel(&src, &len, &cap, calls);
  int k = 0;
  /* Constant masks, per call: the same for every item. */
  static unsigned constants[10 * 4 * 4 * 4][16];
  for (int t = 0; t < NTYPES; t++) {
    const char *u = unsigned_of(type_sizes[t]);
    for (int mi = 0; mi < 4; mi++)
      for (int ni = 0; ni < 4; ni++) {
        int m = shuffle_widths[mi], n = shuffle_widths[ni];
        type_name(t, m, tm, sizeof tm);
        type_name(t, n, tn, sizeof tn);
        snprintf(un, sizeof un, "%s%d", u, n);
        k++, call_line(&src, &len, &cap, k - 1,
                       "OUT(%s, %d) = shuffle(A(%s), C(%s));", tn, k - 1, tm,
                       un);
        k++, call_line(&src, &len, &cap, k - 1,
                  "OUT(%s, %d) = shuffle2(A(%s), B(%s), C(%s));", tn, k - 1,
                  tm, tm, un);
        for (int two = 0; two <= 1; two++) {
          char list[128] = "";
          for (int j = 0; j < n; j++) {
            unsigned v = (unsigned)(next_random() % 256);
            constants[k][j] = v; /* for the call made next, number k */
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u",
                     j ? ", " : "", v);
          }
          if (two)
            k++, call_line(&src, &len, &cap, k - 1,
                      "OUT(%s, %d) = shuffle2(A(%s), B(%s), (%s)(%s));", tn,
                      k - 1, tm, tm, un, list);
          else
            k++, call_line(&src, &len, &cap, k - 1,
                      "OUT(%s, %d) = shuffle(A(%s), (%s)(%s));", tn, k - 1,
                      tm, un, list);
        }
      }
  }
  appendf(&src, &len, &cap, "    }\n}\n");
  CHECK_EQ(k, calls);
  unsigned char *out = run(src, in, calls);

  k = 0;
  for (int t = 0; t < NTYPES; t++) {
    int size = type_sizes[t];
    for (int mi = 0; mi < 4; mi++)
      for (int ni = 0; ni < 4; ni++, k += 4) {
        int m = shuffle_widths[mi], n = shuffle_widths[ni];
        for (int form = 0; form < 4; form++) {
          int two = form & 1;
          for (int i = 0; i < ITEMS; i++) {
            const unsigned char *x = in->a + i * MAX_BYTES;
            const unsigned char *y = in->b + i * MAX_BYTES;
            const unsigned char *mask = in->c + i * MAX_BYTES;
            const unsigned char *r =
                out + ((size_t)(k + form) * ITEMS + (size_t)i) * MAX_BYTES;
            for (int j = 0; j < n; j++) {
              uint64_t sel = form < 2 ? element(mask, size, j)
                                      : constants[k + form][j];
              int idx = (int)(sel % (uint64_t)((two + 1) * m));
              uint64_t want = idx < m ? element(x, size, idx)
                                      : element(y, size, idx - m);
              if (element(r, size, j) != want)
                FAIL("%s of %s%d to %d (%s mask) item %d element %d: got "
                     "%#llx, expected %#llx", two ? "shuffle2" : "shuffle",
                     type_names[t], m, n, form < 2 ? "variable" : "constant", i,
                     j, (unsigned long long)element(r, size, j),
                     (unsigned long long)want);
            }
          }
        }
      }
  }
  free(out);
  free(src);
  free(in);
}

TEST_MAIN()
