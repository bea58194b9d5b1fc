/* test_builtins_vector_data.c: vector data load and store functions
 * (OpenCL C 3.0, 6.15.7). vloadn and vstoren of every type and width from
 * and to every address space, at offsets that misalign the vectors, in
 * OpenCL C 1.2 (named address space overloads) and 3.0 (generic ones);
 * vload_half and vstore_half in every form and rounding mode, checked on
 * all 2^16 half patterns and on every float or double near a rounding
 * boundary of a half, against a reference here that searches a table of
 * all halves (not the library's bit arithmetic). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#include "support.h"

#define NTYPES 10
static const char *const type_names[NTYPES] = {
    "char", "uchar", "short", "ushort", "int",
    "uint", "long",  "ulong", "float",  "double"};
static const int type_sizes[NTYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

#define NWIDTHS 5
static const int widths[NWIDTHS] = {2, 3, 4, 8, 16};

/* Vectors per width and type in the space tests. */
#define NI 4

static uint64_t lcg_state = 0x9e3779b97f4a7c15ULL;
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

/* Runs kernel k of source once per work-item of global, with buffers of the
 * given sizes (initial contents, or NULL for zeros) as its arguments; reads
 * the last one back into out. */
static void run(const char *source, const char *options, size_t global,
                int nbuf, const size_t *sizes, const void *const *init,
                void *out) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b[4];
  for (int i = 0; i < nbuf; i++) {
    b[i] = support_buffer(ctx, sizes[i], init[i]);
    CHECK_OK(weft_kernel_set_arg_buffer(k, (unsigned)i, b[i]), k);
  }
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  CHECK_OK(weft_buffer_read(b[nbuf - 1], 0, sizes[nbuf - 1], out), b[nbuf - 1]);
  for (int i = 0; i < nbuf; i++) weft_buffer_release(b[i]);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* ---- half references */

/* The value of every half pattern of positive sign, 0 to 0x7c00 (inf). */
static double half_values[0x7c01];

static double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                              : ldexp(1024 + m, e - 25);
  return h & 0x8000 ? -v : v;
}

static void make_half_values(void) {
  for (int h = 0; h <= 0x7c00; h++) half_values[h] = half_value((uint16_t)h);
}

enum { RTE, RTZ, RTP, RTN, NMODES };
static const char *const mode_names[NMODES + 1] = {"_rte", "_rtz", "_rtp",
                                                   "_rtn", ""};

/* x rounded to a half in the mode (the unnamed default is RTE): found
 * between its two neighbouring halves by binary search, the rounding
 * decided on the exact midpoint (long double holds it). Beyond the largest
 * half, 65504, the next one up counts as 65536 for ties, as if the
 * exponent went on, and is infinity. */
static uint16_t to_half(long double x, int mode) {
  if (isnan(x)) return 0x7e00;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  long double a = fabsl(x);
  int lo = 0, hi = 0x7c00;
  if (a >= half_values[0x7c00]) return sign | 0x7c00; /* only infinity */
  while (hi - lo > 1) { /* half_values[lo] <= a < half_values[hi] */
    int mid = (lo + hi) / 2;
    if (half_values[mid] <= a) lo = mid; else hi = mid;
  }
  if (half_values[lo] == a) return sign | (uint16_t)lo;
  long double up = hi == 0x7c00 ? 65536.0L : half_values[hi];
  long double midpoint = (half_values[lo] + up) / 2;
  int away; /* toward the larger magnitude */
  switch (mode) {
  case RTZ: away = 0; break;
  case RTP: away = !sign; break;
  case RTN: away = sign != 0; break;
  default: away = a > midpoint || (a == midpoint && (lo & 1)); break;
  }
  return sign | (uint16_t)(away ? hi : lo);
}

static int same_float(float got, float want) {
  if (isnan(got) && isnan(want)) return 1;
  return !memcmp(&got, &want, sizeof got);
}

static int same_half(uint16_t got, uint16_t want) {
  int got_nan = (got & 0x7c00) == 0x7c00 && (got & 0x3ff);
  int want_nan = (want & 0x7c00) == 0x7c00 && (want & 0x3ff);
  return got_nan && want_nan ? 1 : got == want;
}

/* ---- vloadn and vstoren in each address space */

/* How a kernel reaches memory of one address space: the qualifier of its
 * pointers, and where a copy of the input lives. */
typedef struct {
  const char *name, *options;
  const char *qualifier; /* of pointers into the space */
  const char *backing;   /* global, local, private or constant */
  int stores;            /* __constant cannot be written */
} space;

/* Per type: IN elements of input (then a pattern region), the outputs of the
 * loads, then the store region, which starts as the pattern. */
#define IN_ELEMS (1 + NI * 16)
#define LOAD_ELEMS (NI * (2 + 3 + 4 + 8 + 16))
#define STORE_ELEMS (NI * (2 + 3 + 4 + 8 + 16) + 2 * NWIDTHS)
#define TYPE_IN_BYTES (8 * (IN_ELEMS + STORE_ELEMS))
#define TYPE_OUT_BYTES (8 * (LOAD_ELEMS + STORE_ELEMS))
#define PATTERN 0xa5

/* Loops over the vectors stay rolled: each form is compiled once. */
static const char *space_prelude =
    "#define NI 4\n"
    /* The n elements of vload##n(i, src + 1) go to o[i * n + j]. */
    "#define LOAD(T, n, SRC, O) \\\n"
    "  _Pragma(\"nounroll\") for (int i = 0; i < NI; i++) { \\\n"
    "    T##n v = vload##n(i, SRC + 1); \\\n"
    "    for (int j = 0; j < n; j++) O[i * n + j] = v[j]; \\\n"
    "  } \\\n"
    "  O += NI * n;\n"
    /* vstore##n(v, i, d + 1) of v[j] = g[i * n + j]. */
    "#define STORE(T, n, G, D) \\\n"
    "  _Pragma(\"nounroll\") for (int i = 0; i < NI; i++) { \\\n"
    "    T##n v; \\\n"
    "    for (int j = 0; j < n; j++) v[j] = G[i * n + j]; \\\n"
    "    vstore##n(v, i, D + 1); \\\n"
    "  } \\\n"
    "  D += NI * n + 2;\n"
    "#define COPY(D, S, N) for (int e = 0; e < (N); e++) (D)[e] = (S)[e];\n";

static char *space_source(const space *sp) {
  char *src = NULL;
  size_t len = 0, cap = 0;
  appendf(&src, &len, &cap, "%s", space_prelude);
  appendf(&src, &len, &cap,
          "__kernel void k(__global const uchar *gin, __constant uchar *cin,\n"
          "                __global uchar *out) {\n"
          "  __local ulong lmem[%d];\n"
          "  ulong pmem[%d];\n",
          IN_ELEMS + STORE_ELEMS, IN_ELEMS + STORE_ELEMS);
  for (int t = 0; t < NTYPES; t++) {
    const char *T = type_names[t], *q = sp->qualifier;
    appendf(&src, &len, &cap,
            "  {\n"
            "    __global const %s *g = (__global const %s *)(gin + %d);\n"
            "    __global %s *o = (__global %s *)(out + %d);\n",
            T, T, t * TYPE_IN_BYTES, T, T, t * TYPE_OUT_BYTES);
    /* The input and the pattern, where the space keeps them. */
    if (!strcmp(sp->backing, "global")) {
      appendf(&src, &len, &cap,
              "    %s const %s *src = (%s const %s *)g;\n"
              "    %s %s *dst = (%s %s *)(o + %d);\n"
              "    COPY((__global %s *)(o + %d), g + %d, %d)\n",
              q, T, q, T, q, T, q, T, LOAD_ELEMS, T, LOAD_ELEMS, IN_ELEMS,
              STORE_ELEMS);
    } else if (!strcmp(sp->backing, "constant")) {
      appendf(&src, &len, &cap,
              "    __constant %s *src = (__constant %s *)(cin + %d);\n", T, T,
              t * TYPE_IN_BYTES);
    } else {
      const char *mem = !strcmp(sp->backing, "local") ? "lmem" : "pmem";
      const char *as = !strcmp(sp->backing, "local") ? "__local" : "__private";
      appendf(&src, &len, &cap,
              "    %s %s *copy = (%s %s *)%s;\n"
              "    COPY(copy, g, %d)\n"
              "    %s const %s *src = (%s const %s *)copy;\n"
              "    %s %s *dst = (%s %s *)(copy + %d);\n",
              as, T, as, T, mem, IN_ELEMS + STORE_ELEMS, q, T, q, T, q, T, q,
              T, IN_ELEMS);
    }
    for (int w = 0; w < NWIDTHS; w++)
      appendf(&src, &len, &cap, "    LOAD(%s, %d, src, o)\n", T, widths[w]);
    if (sp->stores) {
      for (int w = 0; w < NWIDTHS; w++)
        appendf(&src, &len, &cap, "    STORE(%s, %d, g, dst)\n", T, widths[w]);
      if (strcmp(sp->backing, "global"))
        appendf(&src, &len, &cap, "    dst -= %d;\n    COPY(o, dst, %d)\n",
                STORE_ELEMS, STORE_ELEMS);
    }
    appendf(&src, &len, &cap, "  }\n");
  }
  appendf(&src, &len, &cap, "}\n");
  return src;
}

static void check_space(const space *sp) {
  size_t in_size = NTYPES * TYPE_IN_BYTES, out_size = NTYPES * TYPE_OUT_BYTES;
  unsigned char *in = malloc(in_size), *out = malloc(out_size);
  for (size_t i = 0; i < in_size; i++) in[i] = (unsigned char)next_random();
  for (int t = 0; t < NTYPES; t++)
    memset(in + t * TYPE_IN_BYTES + IN_ELEMS * type_sizes[t], PATTERN,
           (size_t)(STORE_ELEMS * type_sizes[t]));
  char *src = space_source(sp);
  size_t sizes[3] = {in_size, in_size, out_size};
  const void *init[3] = {in, in, NULL};
  run(src, sp->options, 1, 3, sizes, init, out);

  for (int t = 0; t < NTYPES; t++) {
    size_t sz = (size_t)type_sizes[t];
    const unsigned char *g = in + t * TYPE_IN_BYTES;
    const unsigned char *o = out + t * TYPE_OUT_BYTES;
    const unsigned char *stored = o + LOAD_ELEMS * sz;
    for (int w = 0; w < NWIDTHS; w++) {
      int n = widths[w];
      for (int i = 0; i < NI; i++)
        for (int j = 0; j < n; j++) {
          size_t e = (size_t)(i * n + j);
          if (memcmp(o + e * sz, g + (1 + e) * sz, sz))
            FAIL("%s: vload%d(%d, p + 1) of %s: element %d is wrong",
                 sp->name, n, i, type_names[t], j);
        }
      o += (size_t)(NI * n) * sz;
      if (!sp->stores) continue;
      unsigned char pattern[8];
      memset(pattern, PATTERN, sizeof pattern);
      for (int e = 0; e < NI * n + 2; e++) {
        int inside = e >= 1 && e <= NI * n;
        const unsigned char *want = inside ? g + (size_t)(e - 1) * sz : pattern;
        if (memcmp(stored + (size_t)e * sz, want, sz))
          FAIL("%s: vstore%d of %s to p + 1: element %d is %s", sp->name, n,
               type_names[t], e - 1, inside ? "wrong" : "overwritten");
      }
      stored += (size_t)(NI * n + 2) * sz;
    }
  }
  free(src);
  free(in);
  free(out);
}

/* The spaces, as OpenCL C 1.2 programs reach them (the overloads of the
 * named address spaces) and as 2.0 and 3.0 programs do (the generic ones,
 * and __constant). The 1.2 programs are built unoptimized, which runs the
 * library's code as it is and compiles several times faster. */
#define NAMED_OPTIONS "-cl-std=CL1.2 -cl-opt-disable"
static const space global_1_2 = {"global 1.2", NAMED_OPTIONS, "__global",
                                 "global", 1};
static const space global_3_0 = {"global 3.0", "-cl-std=CL3.0", "__global",
                                 "global", 1};
static const space local_1_2 = {"local 1.2", NAMED_OPTIONS, "__local",
                                "local", 1};
static const space private_1_2 = {"private 1.2", NAMED_OPTIONS, "__private",
                                  "private", 1};
static const space constant_1_2 = {"constant 1.2", NAMED_OPTIONS,
                                   "__constant", "constant", 0};
static const space constant_3_0 = {"constant 3.0", "-cl-std=CL3.0",
                                   "__constant", "constant", 0};
/* Generic pointers into the spaces they can point to (global 3.0 passes
 * __global pointers to the generic overloads already). */
static const space generic_local = {"generic local", "-cl-std=CL2.0", "",
                                    "local", 1};
static const space generic_private = {"generic private", "-cl-std=CL3.0", "",
                                      "private", 1};

TEST(vload_vstore_global) {
  check_space(&global_1_2);
  check_space(&global_3_0);
}

TEST(vload_vstore_local) { check_space(&local_1_2); }

TEST(vload_vstore_private) { check_space(&private_1_2); }

TEST(vload_constant) {
  check_space(&constant_1_2);
  check_space(&constant_3_0);
}

TEST(vload_vstore_generic) {
  check_space(&generic_local);
  check_space(&generic_private);
}

/* ---- vload_half and vstore_half */

/* vload_half and the vector forms of it and of vloada_half read every half
 * pattern (Clang 19 declares no scalar vloada_half or vstorea_half); lane j
 * of vector i comes from pattern i * n + j (i * 4 + j for vloada_half3). */
TEST(vload_half_every_pattern) {
  enum { COUNT = 65536, FORMS = 11 };
  char *src = NULL;
  size_t len = 0, cap = 0;
  appendf(&src, &len, &cap,
          "__kernel void k(__global const half *h, __global float *out) {\n"
          "  size_t i = get_global_id(0);\n"
          "  out[i] = vload_half(i, h);\n");
  for (int w = 0; w < NWIDTHS; w++)
    for (int aligned = 0; aligned <= 1; aligned++) {
      int n = widths[w], step = aligned && n == 3 ? 4 : n;
      appendf(&src, &len, &cap,
              "  if (i < %d) {\n"
              "    float%d v = vload%s_half%d(i, h);\n"
              "    for (int j = 0; j < %d; j++) out[%d + i * %d + j] = v[j];\n"
              "  }\n",
              COUNT / step, n, aligned ? "a" : "", n, n,
              (1 + 2 * w + aligned) * COUNT, n);
    }
  appendf(&src, &len, &cap, "}\n");

  uint16_t *patterns = malloc(COUNT * sizeof *patterns);
  float *out = malloc(FORMS * COUNT * sizeof *out);
  for (int i = 0; i < COUNT; i++) patterns[i] = (uint16_t)i;
  size_t sizes[2] = {COUNT * sizeof *patterns, FORMS * COUNT * sizeof *out};
  const void *init[2] = {patterns, NULL};
  run(src, NULL, COUNT, 2, sizes, init, out);

  for (int form = 0; form < FORMS; form++) {
    int n = form ? widths[(form - 1) / 2] : 1, aligned = form && !(form & 1);
    int step = aligned && n == 3 ? 4 : n;
    for (int i = 0; i < COUNT / step; i++)
      for (int j = 0; j < n; j++) {
        uint16_t h = (uint16_t)(i * step + j);
        float want = (float)half_value(h), got = out[form * COUNT + i * n + j];
        if (!same_float(got, want))
          FAIL("vload%s_half%.0d(%d) lane %d: half 0x%04x gave %a, expected %a",
               aligned ? "a" : "", n > 1 ? n : 0, i, j, h, got, want);
      }
  }
  free(patterns);
  free(out);
  free(src);
}

/* Every half's value, the midpoints between neighbouring halves (ties),
 * and the floats or doubles one ulp on either side of each, with both
 * signs; then specials and random bit patterns. */
static long double *rounding_inputs(int is_double, int *count) {
  int max = 0x7c00 * 12 + 64 + 4096;
  long double *x = malloc((size_t)max * sizeof *x);
  int n = 0;
  for (int h = 0; h < 0x7c00; h++) {
    long double v = half_values[h];
    long double up = h == 0x7bff ? 65536.0L : half_values[h + 1];
    long double mid = (v + up) / 2;
    long double around[6];
    if (is_double) {
      around[0] = nextafter((double)v, -INFINITY);
      around[1] = nextafter((double)v, INFINITY);
      around[2] = nextafter((double)mid, -INFINITY);
      around[3] = nextafter((double)mid, INFINITY);
    } else {
      around[0] = nextafterf((float)v, -INFINITY);
      around[1] = nextafterf((float)v, INFINITY);
      around[2] = nextafterf((float)mid, -INFINITY);
      around[3] = nextafterf((float)mid, INFINITY);
    }
    around[4] = v;
    around[5] = mid;
    for (int k = 0; k < 6; k++) {
      x[n++] = around[k];
      x[n++] = -around[k];
    }
  }
  long double specials[] = {INFINITY, -INFINITY, NAN, -NAN, 65520, 65536,
                            1e10L, FLT_MAX, FLT_TRUE_MIN, 0x1p-25L, 1e300L,
                            DBL_TRUE_MIN, -65520, -1e300L, -0x1p-26L};
  for (size_t k = 0; k < sizeof specials / sizeof *specials; k++)
    x[n++] = is_double ? (long double)(double)specials[k]
                       : (long double)(float)specials[k];
  for (int k = 0; k < 4096; k++) {
    uint64_t r = next_random();
    if (is_double) {
      double d;
      memcpy(&d, &r, sizeof d);
      x[n++] = d;
    } else {
      float f;
      uint32_t r32 = (uint32_t)r;
      memcpy(&f, &r32, sizeof f);
      x[n++] = f;
    }
  }
  while (n % 16) x[n++] = 0; /* whole vectors of 16 */
  CHECK(n <= max);
  *count = n;
  return x;
}

/* vstore_half and vstorea_half in each mode and form, from float or
 * double, on every input of rounding_inputs: lane j of vector i stores
 * input i * n + j. One program per rounding mode. */
static void check_vstore_half(int is_double) {
  make_half_values();
  int count;
  long double *x = rounding_inputs(is_double, &count);
  const char *F = is_double ? "double" : "float";
  /* Each form writes its own region of out. vstorea_halfn needs p + i * n
   * aligned to a halfn (OpenCL C 6.15.8), 32 bytes for n = 16: regions
   * are whole multiples of 16 halves (the GPU faults on less). */
  size_t fsize = is_double ? 8 : 4;
  size_t region = ((size_t)count * 4 / 3 + 16 + 15) / 16 * 16;
  unsigned char *in = malloc((size_t)count * fsize);
  for (int i = 0; i < count; i++) {
    if (is_double) {
      double d = (double)x[i];
      memcpy(in + (size_t)i * 8, &d, 8);
    } else {
      float f = (float)x[i];
      memcpy(in + (size_t)i * 4, &f, 4);
    }
  }
  enum { FORMS = 11 };
  uint16_t *out = malloc(FORMS * region * sizeof *out);
  uint16_t *want = malloc((size_t)count * sizeof *want);
  for (int mode = 0; mode <= NMODES; mode++) {
    const char *m = mode_names[mode];
    char *src = NULL;
    size_t len = 0, cap = 0;
    appendf(&src, &len, &cap,
            "__kernel void k(__global const %s *x, __global half *out) {\n"
            "  size_t i = get_global_id(0);\n"
            "  vstore_half%s(x[i], i, out);\n",
            F, m);
    for (int w = 0; w < NWIDTHS; w++)
      for (int aligned = 0; aligned <= 1; aligned++) {
        int n = widths[w];
        appendf(&src, &len, &cap,
                "  if (i < %d)\n"
                "    vstore%s_half%d%s(vload%d(i, x), i, out + %zu);\n",
                count / n, aligned ? "a" : "", n, m, n,
                (size_t)(1 + 2 * w + aligned) * region);
      }
    appendf(&src, &len, &cap, "}\n");
    size_t sizes[2] = {(size_t)count * fsize, FORMS * region * sizeof *out};
    const void *init[2] = {in, NULL};
    run(src, NULL, (size_t)count, 2, sizes, init, out);
    free(src);

    for (int i = 0; i < count; i++) want[i] = to_half(x[i], mode);
    for (int form = 0; form < FORMS; form++) {
      int n = form ? widths[(form - 1) / 2] : 1, aligned = form && !(form & 1);
      int step = aligned && n == 3 ? 4 : n;
      for (int i = 0; i < count / n; i++)
        for (int j = 0; j < n; j++) {
          long double v = x[i * n + j];
          uint16_t got = out[form * region + (size_t)(i * step + j)];
          if (!same_half(got, want[i * n + j]))
            FAIL("vstore%s_half%.0d%s(%s %La) lane %d: 0x%04x, expected 0x%04x",
                 aligned ? "a" : "", n > 1 ? n : 0, m, F, v, j, got,
                 want[i * n + j]);
        }
    }
  }
  free(want);
  free(out);
  free(in);
  free(x);
}

TEST(vstore_half_float_rounding) { check_vstore_half(0); }

/* From double directly: rounding through float first would get the doubles
 * one ulp beside a midpoint wrong. */
TEST(vstore_half_double_rounding) { check_vstore_half(1); }

/* ---- the half forms in each address space */

#define HALF_REGION (NI * 16) /* elements per form */
#define HALF_LOAD_FORMS 11
#define HALF_STORE_FORMS (2 * (NMODES + 1) * 11) /* float, double; modes */
#define HALF_PATTERN 0xa5a5

/* Elements move between registers and global memory with vloadn and
 * vstoren (tested above); loops stay rolled, so that each form is compiled
 * once. */
static const char *half_prelude =
    "#define NI 4\n"
    "#define R (NI * 16)\n"
    "#define LOADH1(S, O) \\\n"
    "  _Pragma(\"nounroll\") for (int i = 0; i < NI; i++) \\\n"
    "    O[i] = vload_half(i, S); \\\n"
    "  O += R;\n"
    "#define LOADH(a, n, S, O) \\\n"
    "  _Pragma(\"nounroll\") for (int i = 0; i < NI; i++) \\\n"
    "    vstore##n(vload##a##_half##n(i, S), i, O); \\\n"
    "  O += R;\n"
    "#define STOREH1(G, m, D) \\\n"
    "  _Pragma(\"nounroll\") for (int i = 0; i < NI; i++) \\\n"
    "    vstore_half##m(G[i], i, D); \\\n"
    "  D += R;\n"
    "#define STOREH(F, a, n, m, G, D) \\\n"
    "  _Pragma(\"nounroll\") for (int i = 0; i < NI; i++) \\\n"
    "    vstore##a##_half##n##m(vload##n(i, G), i, D); \\\n"
    "  D += R;\n"
    "#define COPY(D, S, N) for (int e = 0; e < (N); e++) (D)[e] = (S)[e];\n";

static char *half_space_source(const space *sp) {
  char *src = NULL;
  size_t len = 0, cap = 0;
  const char *q = sp->qualifier;
  appendf(&src, &len, &cap, "%s", half_prelude);
  appendf(&src, &len, &cap,
          "__kernel void k(__global const uchar *gin, __constant uchar *cin,\n"
          "                __global uchar *out) {\n"
          "  __global const ushort *gh = (__global const ushort *)gin;\n"
          "  __global const float *gf = (__global const float *)(gin + %d);\n"
          "  __global const double *gd = (__global const double *)(gin + %d);\n"
          "  __global float *o = (__global float *)out;\n"
          "  __global ushort *oh = (__global ushort *)(out + %d);\n",
          2 * HALF_REGION, 6 * HALF_REGION, 4 * HALF_LOAD_FORMS * HALF_REGION);
  if (!strcmp(sp->backing, "global")) {
    appendf(&src, &len, &cap,
            "  %s const half *src = (%s const half *)gh;\n"
            "  %s half *dst = (%s half *)oh;\n", q, q, q, q);
  } else if (!strcmp(sp->backing, "constant")) {
    appendf(&src, &len, &cap,
            "  __constant half *src = (__constant half *)cin;\n");
  } else {
    const char *as = !strcmp(sp->backing, "local") ? "__local" : "__private";
    appendf(&src, &len, &cap,
            /* vloada_half and vstorea_half need vector alignment. */
            "  %s ushort copy[%d] __attribute__((aligned(32)));\n"
            "  %s ushort scratch[%d] __attribute__((aligned(32)));\n"
            "  COPY(copy, gh, %d)\n"
            "  for (int e = 0; e < %d; e++) scratch[e] = 0x%x;\n"
            "  %s const half *src = (%s const half *)copy;\n"
            "  %s half *dst = (%s half *)scratch;\n",
            as, HALF_REGION, as, HALF_STORE_FORMS * HALF_REGION, HALF_REGION,
            HALF_STORE_FORMS * HALF_REGION, HALF_PATTERN, q, q, q, q);
  }
  appendf(&src, &len, &cap, "  LOADH1(src, o)\n");
  for (int w = 0; w < NWIDTHS; w++)
    appendf(&src, &len, &cap, "  LOADH(, %d, src, o)\n  LOADH(a, %d, src, o)\n",
            widths[w], widths[w]);
  if (sp->stores) {
    for (int d = 0; d <= 1; d++)
      for (int mode = 0; mode <= NMODES; mode++) {
        const char *m = mode_names[mode], *G = d ? "gd" : "gf";
        appendf(&src, &len, &cap, "  STOREH1(%s, %s, dst)\n", G, m);
        for (int w = 0; w < NWIDTHS; w++)
          appendf(&src, &len, &cap,
                  "  STOREH(%s, , %d, %s, %s, dst)\n"
                  "  STOREH(%s, a, %d, %s, %s, dst)\n",
                  d ? "double" : "float", widths[w], m, G,
                  d ? "double" : "float", widths[w], m, G);
      }
    if (strcmp(sp->backing, "global"))
      appendf(&src, &len, &cap, "  COPY(oh, scratch, %d)\n",
              HALF_STORE_FORMS * HALF_REGION);
  }
  appendf(&src, &len, &cap, "}\n");
  return src;
}

static void check_half_space(const space *sp) {
  make_half_values();
  /* Halves: specials, then random patterns. Floats and doubles: rounding
   * inputs picked at random, after a few that every mode rounds apart. */
  uint16_t halves[HALF_REGION];
  uint16_t specials[] = {0, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00,
                         0x7bff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3555};
  for (int i = 0; i < HALF_REGION; i++)
    halves[i] = i < 12 ? specials[i] : (uint16_t)next_random();
  int count;
  long double *fx = rounding_inputs(0, &count);
  long double *dx = rounding_inputs(1, &count);
  long double values[2][HALF_REGION];
  long double firsts[] = {1 + 0x1p-11L, -(1 + 0x1p-11L), 1 + 0x3p-11L,
                          65520, -70000, 0x1p-25L, -0x1p-26L, NAN};
  for (int i = 0; i < HALF_REGION; i++) {
    int pick = (int)(next_random() % (uint64_t)count);
    values[0][i] = i < 8 ? firsts[i] : fx[pick];
    values[1][i] = i < 8 ? firsts[i] : dx[pick];
  }
  free(fx);
  free(dx);

  unsigned char in[14 * HALF_REGION];
  memcpy(in, halves, sizeof halves);
  for (int i = 0; i < HALF_REGION; i++) {
    float f = (float)values[0][i];
    double d = (double)values[1][i];
    values[0][i] = f; /* what the kernel gets */
    memcpy(in + 2 * HALF_REGION + 4 * i, &f, 4);
    memcpy(in + 6 * HALF_REGION + 8 * i, &d, 8);
  }
  size_t load_bytes = 4 * HALF_LOAD_FORMS * HALF_REGION;
  size_t out_size = load_bytes + 2 * HALF_STORE_FORMS * HALF_REGION;
  unsigned char *out = malloc(out_size);
  memset(out, 0xa5, out_size);
  char *src = half_space_source(sp);
  size_t sizes[3] = {sizeof in, sizeof in, out_size};
  const void *init[3] = {in, in, out};
  run(src, sp->options, 1, 3, sizes, init, out);

  const float *loaded = (const float *)out;
  for (int form = 0; form < HALF_LOAD_FORMS; form++) {
    int n = form ? widths[(form - 1) / 2] : 1, aligned = form && !(form & 1);
    int step = aligned && n == 3 ? 4 : n;
    for (int i = 0; i < NI; i++)
      for (int j = 0; j < n; j++) {
        uint16_t h = halves[i * step + j];
        float got = loaded[form * HALF_REGION + i * n + j];
        if (!same_float(got, (float)half_value(h)))
          FAIL("%s: vload%s_half%.0d(%d) lane %d: half 0x%04x gave %a",
               sp->name, aligned ? "a" : "", n > 1 ? n : 0, i, j, h, got);
      }
  }
  const uint16_t *stored = (const uint16_t *)(out + load_bytes);
  for (int d = 0; sp->stores && d <= 1; d++)
    for (int mode = 0; mode <= NMODES; mode++)
      for (int form = 0; form < 11; form++, stored += HALF_REGION) {
        int n = form ? widths[(form - 1) / 2] : 1;
        int aligned = form && !(form & 1), step = aligned && n == 3 ? 4 : n;
        for (int e = 0; e < HALF_REGION; e++) {
          int i = e / step, j = e % step, inside = i < NI && j < n;
          uint16_t want =
              inside ? to_half(values[d][i * n + j], mode) : HALF_PATTERN;
          if (!same_half(stored[e], want))
            FAIL("%s: vstore%s_half%.0d%s from %s: element %d is 0x%04x, "
                 "expected 0x%04x", sp->name, aligned ? "a" : "",
                 n > 1 ? n : 0, mode_names[mode], d ? "double" : "float", e,
                 stored[e], want);
        }
      }
  free(out);
  free(src);
}

TEST(vload_vstore_half_spaces) {
  /* The generic overloads on __global memory are those of the rounding
   * tests above. */
  const space *all[] = {&global_1_2,   &local_1_2,     &private_1_2,
                        &constant_1_2, &constant_3_0,  &generic_local,
                        &generic_private};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    check_half_space(all[i]);
}

TEST_MAIN()
