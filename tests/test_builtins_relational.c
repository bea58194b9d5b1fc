/* test_builtins_relational.c: the relational functions of OpenCL C 3.0
 * (6.15.9) for float and double at every width, on every pair of edge
 * values (zeros, subnormals, limits, infinities, NaNs), and select,
 * bitselect, any and all for every type. Scalar tests return 1 or 0,
 * vector tests -1 or 0; results are compared exactly. */
#include <float.h>
#include <math.h>

#include "builtins_support.h"

#define LANES 3072  /* values per argument: every width divides it */
#define REGION (LANES / 3 * 4 * 8) /* bytes of output per function */

/* Runs source's kernels k1 ... k16 on the argument lanes. */
static void run_widths(const char *source, int nargs, uint64_t *const *lanes,
                       const int *bytes, int nout,
                       void (*check)(int, const uint8_t *, void *), void *data) {
  bs_run r = {.source = source, .prefix = "k", .widths = bs_widths,
              .num_widths = BS_NUM_WIDTHS, .lanes = LANES, .nargs = nargs,
              .args = lanes, .bytes = bytes, .nout = nout, .region = REGION,
              .check = check, .data = data};
  bs_run_widths(&r);
}

/* Signed value of the low bytes * 8 bits of v. */
static int64_t sign_extend(uint64_t v, int bytes) {
  int shift = 64 - 8 * bytes;
  return (int64_t)(v << shift) >> shift;
}

/* Floats and doubles as bit patterns: the edge values, then random bits,
 * random edge values, and numbers near each other. */
static const uint32_t float_edges[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff,
    0x00800000, 0x80800000, 0x00800001, 0x3f800000, 0xbf800000, 0x3f800001,
    0x3fc00000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
    0xffc00000, 0x7f800001, 0x7fffffff, 0xffffffff, 0x3dcccccd, 0x0d800000};
static const uint64_t double_edges[] = {
    0x0000000000000000, 0x8000000000000000, 0x0000000000000001,
    0x8000000000000001, 0x000fffffffffffff, 0x800fffffffffffff,
    0x0010000000000000, 0x8010000000000000, 0x0010000000000001,
    0x3ff0000000000000, 0xbff0000000000000, 0x3ff0000000000001,
    0x3ff8000000000000, 0x7fefffffffffffff, 0xffefffffffffffff,
    0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
    0xfff8000000000000, 0x7ff0000000000001, 0x7fffffffffffffff,
    0xffffffffffffffff, 0x3fb999999999999a, 0x36a0000000000000};
#define NUM_EDGES 24

static uint64_t edge(int is_double, int i) {
  return is_double ? double_edges[i] : float_edges[i];
}

static void make_float_lanes(int is_double, uint64_t *x, uint64_t *y) {
  int lane = 0;
  for (int i = 0; i < NUM_EDGES; i++)
    for (int j = 0; j < NUM_EDGES; j++, lane++) x[lane] = edge(is_double, i), y[lane] = edge(is_double, j);
  for (; lane < LANES; lane++) {
    uint64_t r = bs_random(), bits = bs_random();
    if (!is_double) bits &= 0xffffffff;
    switch (r % 4) {
    case 0: x[lane] = edge(is_double, (int)((r >> 8) % NUM_EDGES)); y[lane] = bits; break;
    case 1: x[lane] = bits; y[lane] = bits + (r >> 8) % 3 - 1; break; /* neighbours */
    default: x[lane] = bits; y[lane] = is_double ? bs_random() : bs_random() & 0xffffffff;
    }
  }
}

/* Each relational function with its meaning in C. */
typedef struct rfunc {
  const char *name;
  int args;
  int (*ref)(double x, double y);
} rfunc;
static int r_isequal(double x, double y) { return x == y; }
static int r_isnotequal(double x, double y) { return x != y; }
static int r_isgreater(double x, double y) { return x > y; }
static int r_isgreaterequal(double x, double y) { return x >= y; }
static int r_isless(double x, double y) { return x < y; }
static int r_islessequal(double x, double y) { return x <= y; }
static int r_islessgreater(double x, double y) { return x < y || x > y; }
static int r_isordered(double x, double y) { return !isnan(x) && !isnan(y); }
static int r_isunordered(double x, double y) { return isnan(x) || isnan(y); }
static int r_isfinite(double x, double y) { (void)y; return isfinite(x); }
static int r_isinf(double x, double y) { (void)y; return isinf(x); }
static int r_isnan(double x, double y) { (void)y; return isnan(x); }
static int r_signbit(double x, double y) { (void)y; return signbit(x) != 0; }
/* isnormal of the value in its own type: a float widened to double stays
 * normal, so subnormal floats are found by magnitude. */
static int r_isnormal_f(double x, double y) {
  (void)y;
  return isfinite(x) && fabs(x) >= FLT_MIN;
}
static int r_isnormal_d(double x, double y) { (void)y; return isnormal(x); }

static const rfunc rfuncs[] = {
    {"isequal", 2, r_isequal},       {"isnotequal", 2, r_isnotequal},
    {"isgreater", 2, r_isgreater},   {"isgreaterequal", 2, r_isgreaterequal},
    {"isless", 2, r_isless},         {"islessequal", 2, r_islessequal},
    {"islessgreater", 2, r_islessgreater}, {"isordered", 2, r_isordered},
    {"isunordered", 2, r_isunordered}, {"isfinite", 1, r_isfinite},
    {"isinf", 1, r_isinf},           {"isnan", 1, r_isnan},
    {"isnormal", 1, r_isnormal_f},   {"signbit", 1, r_signbit}};
#define NUM_RFUNCS 14

typedef struct float_case {
  int is_double;
  uint64_t *x, *y;
} float_case;

static void check_relational(int n, const uint8_t *out, void *data) {
  float_case *c = data;
  /* A scalar returns int 1; a vector -1 in the integer of its size. */
  int bytes = n == 1 ? 4 : c->is_double ? 8 : 4;
  int64_t yes = n == 1 ? 1 : -1;
  for (int f = 0; f < NUM_RFUNCS; f++) {
    int (*ref)(double, double) = rfuncs[f].ref;
    if (ref == r_isnormal_f && c->is_double) ref = r_isnormal_d;
    for (int l = 0; l < LANES; l++) {
      int d = c->is_double;
      double x = bs_from_bits(d, c->x[l]), y = bs_from_bits(d, c->y[l]);
      int64_t got = sign_extend(bs_get(out + f * REGION, bytes, bs_slot(l, n)), bytes);
      int64_t want = ref(x, y) ? yes : 0;
      if (got != want)
        FAIL("%s on %s%d, component %d: x=%a (0x%llx) y=%a (0x%llx) gave %lld, "
             "expected %lld", rfuncs[f].name, c->is_double ? "double" : "float",
             n, l % n, x, (unsigned long long)c->x[l], y,
             (unsigned long long)c->y[l], (long long)got, (long long)want);
    }
  }
}

static void check_float_type(int is_double) {
  static uint64_t x[LANES], y[LANES];
  make_float_lanes(is_double, x, y);
  const char *F = is_double ? "double" : "float";
  bs_text s = {0};
  for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
    int n = bs_widths[wi];
    const char *T = bs_vec(F, n);
    const char *R = n == 1 ? "int" : bs_vec(is_double ? "long" : "int", n);
    bs_append(&s, "__kernel void k%d(__global const %s *a, __global const %s *b,"
              " __global char *out) {\n  size_t i = get_global_id(0);\n"
              "  %s x = a[i], y = b[i];\n", n, T, T, T);
    for (int f = 0; f < NUM_RFUNCS; f++)
      bs_append(&s, "  ((__global %s *)(out + %d))[i] = %s(x%s);\n", R, f * REGION,
                rfuncs[f].name, rfuncs[f].args == 2 ? ", y" : "");
    bs_append(&s, "}\n");
  }
  uint64_t *lanes[2] = {x, y};
  int bytes[2] = {is_double ? 8 : 4, is_double ? 8 : 4};
  float_case c = {is_double, x, y};
  run_widths(s.s, 2, lanes, bytes, NUM_RFUNCS, check_relational, &c);
  free(s.s);
}

TEST(float_comparisons_and_classification) { check_float_type(0); }

TEST(double_comparisons_and_classification) { check_float_type(1); }

/* select and bitselect for every type, with masks of both signednesses. */
typedef struct stype {
  const char *name, *imask, *umask;
  int bytes;
} stype;
static const stype stypes[] = {
    {"char", "char", "uchar", 1},   {"uchar", "char", "uchar", 1},
    {"short", "short", "ushort", 2}, {"ushort", "short", "ushort", 2},
    {"int", "int", "uint", 4},      {"uint", "int", "uint", 4},
    {"long", "long", "ulong", 8},   {"ulong", "long", "ulong", 8},
    {"float", "int", "uint", 4},    {"double", "long", "ulong", 8}};
#define NUM_STYPES 10

typedef struct select_case {
  const stype *t;
  uint64_t *a, *b, *m;
} select_case;

static void check_select(int n, const uint8_t *out, void *data) {
  select_case *c = data;
  int bytes = c->t->bytes;
  uint64_t top = 1ull << (8 * bytes - 1);
  uint64_t all = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
  static const char *names[] = {"bitselect", "select (signed mask)",
                                "select (unsigned mask)"};
  for (int f = 0; f < 3; f++) {
    for (int l = 0; l < LANES; l++) {
      uint64_t a = c->a[l], b = c->b[l], m = c->m[l];
      uint64_t want;
      if (f == 0) want = ((a & ~m) | (b & m)) & all;
      else if (n == 1) want = m ? b : a; /* a scalar mask: not zero */
      else want = m & top ? b : a;      /* a vector mask: its top bit */
      uint64_t got = bs_get(out + f * REGION, bytes, bs_slot(l, n));
      if (got != want)
        FAIL("%s on %s, component %d: a=0x%llx b=0x%llx c=0x%llx gave 0x%llx, "
             "expected 0x%llx", names[f], bs_vec(c->t->name, n), l % n,
             (unsigned long long)a, (unsigned long long)b, (unsigned long long)m,
             (unsigned long long)got, (unsigned long long)want);
    }
  }
}

TEST(select_and_bitselect_every_type) {
  static uint64_t a[LANES], b[LANES], m[LANES];
  for (int ti = 0; ti < NUM_STYPES; ti++) {
    const stype *t = &stypes[ti];
    int bits = 8 * t->bytes;
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1, top = 1ull << (bits - 1);
    uint64_t masks[] = {0, all, 1, top, all ^ top, top | 1};
    for (int l = 0; l < LANES; l++) {
      a[l] = bs_random() & all;
      b[l] = bs_random() & all;
      uint64_t r = bs_random();
      m[l] = r % 3 ? masks[(r >> 8) % 6] : bs_random() & all;
    }
    bs_text s = {0};
    for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
      int n = bs_widths[wi];
      const char *T = bs_vec(t->name, n), *I = bs_vec(t->imask, n);
      const char *U = bs_vec(t->umask, n);
      bs_append(&s, "__kernel void k%d(__global const %s *pa, __global const %s *pb,"
                " __global const %s *pm, __global char *out) {\n"
                "  size_t i = get_global_id(0);\n  %s a = pa[i], b = pb[i];\n"
                "  %s m = pm[i];\n"
                "  ((__global %s *)out)[i] = bitselect(a, b, as_%s(m));\n"
                "  ((__global %s *)(out + %d))[i] = select(a, b, m);\n"
                "  ((__global %s *)(out + %d))[i] = select(a, b, as_%s(m));\n}\n",
                n, T, T, I, T, I, T, T, T, REGION, T, 2 * REGION, U);
    }
    uint64_t *lanes[3] = {a, b, m};
    int bytes[3] = {t->bytes, t->bytes, t->bytes};
    select_case c = {t, a, b, m};
    run_widths(s.s, 3, lanes, bytes, 3, check_select, &c);
    free(s.s);
  }
}

/* any and all look only at the top bit of each component. */
typedef struct anyall_case {
  const char *name;
  int bytes;
  uint64_t *x;
} anyall_case;

static void check_any_all(int n, const uint8_t *out, void *data) {
  anyall_case *c = data;
  uint64_t top = 1ull << (8 * c->bytes - 1);
  for (int item = 0; item < LANES / n; item++) {
    int any = 0, all = 1;
    for (int k = 0; k < n; k++) {
      int set = (c->x[item * n + k] & top) != 0;
      any |= set, all &= set;
    }
    int got_any = ((const int *)out)[item], got_all = ((const int *)(out + REGION))[item];
    if (got_any != any || got_all != all)
      FAIL("any/all on %s, item %d: gave %d/%d, expected %d/%d",
           bs_vec(c->name, n), item, got_any, got_all, any, all);
  }
}

TEST(any_and_all_every_type) {
  static const struct { const char *name; int bytes; } types[] = {
      {"char", 1}, {"short", 2}, {"int", 4}, {"long", 8}};
  static uint64_t x[LANES];
  for (int ti = 0; ti < 4; ti++) {
    int bits = 8 * types[ti].bytes;
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1, top = 1ull << (bits - 1);
    /* Runs of 16 components share a chance of a set top bit: none, few,
     * most, all, so vectors of every width see each answer. */
    for (int l = 0; l < LANES; l++) {
      int chance = (l / 16) % 4;
      uint64_t r = bs_random(), low = bs_random() & (all >> 1);
      int set = chance == 0 ? 0 : chance == 3 ? 1 : chance == 1 ? r % 8 == 0 : r % 8 != 0;
      x[l] = low | (set ? top : 0);
    }
    bs_text s = {0};
    for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
      int n = bs_widths[wi];
      const char *T = bs_vec(types[ti].name, n);
      bs_append(&s, "__kernel void k%d(__global const %s *a, __global char *out) {\n"
                "  size_t i = get_global_id(0);\n"
                "  ((__global int *)out)[i] = any(a[i]);\n"
                "  ((__global int *)(out + %d))[i] = all(a[i]);\n}\n", n, T, REGION);
    }
    uint64_t *lanes[1] = {x};
    anyall_case c = {types[ti].name, types[ti].bytes, x};
    run_widths(s.s, 1, lanes, &types[ti].bytes, 2, check_any_all, &c);
    free(s.s);
  }
}

/* The classifications read the bits, so -cl-fast-relaxed-math (which
 * lets the compiler assume that arithmetic sees no NaN or infinity) still
 * finds them in data. */
static void check_classified(int n, const uint8_t *out, void *data) {
  const uint64_t *x = data;
  for (int l = 0; l < LANES; l++) {
    double v = bs_from_bits(0, x[l]);
    int want = (isnan(v) ? 1 : 0) | (isinf(v) ? 2 : 0) | (isfinite(v) ? 4 : 0) |
               (r_isnormal_f(v, 0) ? 8 : 0) | (signbit(v) ? 16 : 0);
    int got = ((const int *)out)[bs_slot(l, n)];
    if (got != want)
      FAIL("classifying %a (0x%llx) on float%d under -cl-fast-relaxed-math gave "
           "%d, expected %d", v, (unsigned long long)x[l], n, got, want);
  }
}

TEST(classification_under_fast_relaxed_math) {
  static uint64_t x[LANES], y[LANES];
  make_float_lanes(0, x, y);
  bs_text s = {0};
  for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
    int n = bs_widths[wi];
    const char *T = bs_vec("float", n), *I = bs_vec("int", n);
    /* Vector tests give -1: negate them to get the bit. */
    const char *sign = n == 1 ? "" : "-";
    bs_append(&s, "__kernel void k%d(__global const %s *a, __global %s *out) {\n"
              "  size_t i = get_global_id(0);\n  %s x = a[i];\n"
              "  out[i] = %sisnan(x) | %sisinf(x) << 1 | %sisfinite(x) << 2 |"
              " %sisnormal(x) << 3 | %ssignbit(x) << 4;\n}\n",
              n, T, I, T, sign, sign, sign, sign, sign);
  }
  uint64_t *lanes[1] = {x};
  int bytes[1] = {4};
  bs_run r = {.source = s.s, .prefix = "k", .widths = bs_widths,
              .num_widths = BS_NUM_WIDTHS, .lanes = LANES, .nargs = 1,
              .args = lanes, .bytes = bytes, .nout = 1, .region = REGION,
              .check = check_classified, .data = x,
              .options = "-cl-std=CL3.0 -cl-fast-relaxed-math"};
  bs_run_widths(&r);
  free(s.s);
}

/* A kernel that calls every relational declaration of the header, for
 * every type and width, builds: none is missing from the library. */
TEST(every_declaration_links) {
  bs_text s = {0};
  bs_begin_every_declaration(&s);
  for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
    int n = bs_widths[wi];
    for (int fi = 0; fi < 2; fi++) {
      const char *T = bs_vec(fi ? "double" : "float", n);
      bs_append(&s, "  { %s x = *(__global const %s *)in, y = x + 1;\n", T, T);
      for (int f = 0; f < NUM_RFUNCS; f++)
        bs_append(&s, "    USE(%s(x%s));\n", rfuncs[f].name, rfuncs[f].args == 2 ? ", y" : "");
      bs_append(&s, "  }\n");
    }
    for (int ti = 0; ti < NUM_STYPES; ti++) {
      const stype *t = &stypes[ti];
      const char *T = bs_vec(t->name, n), *I = bs_vec(t->imask, n);
      const char *U = bs_vec(t->umask, n);
      bs_append(&s, "  { %s a = *(__global const %s *)in, b = a + (%s)1;\n"
                "    %s m = *(__global const %s *)(in + 128); %s u = as_%s(m);\n"
                "    USE(bitselect(a, b, a)); USE(select(a, b, m)); USE(select(a, b, u));\n",
                T, T, T, I, I, U, U);
      if (ti % 2 == 0 && ti < 8) bs_append(&s, "    USE(any(a)); USE(all(a));\n");
      bs_append(&s, "  }\n");
    }
  }
  bs_append(&s, "}\n");
  bs_build_and_free(&s);
}

TEST_MAIN()
