/* test_builtins_common.c: the common functions of OpenCL C 3.0 (6.15.6)
 * for float and double at every width, with the forms that take scalars,
 * against long double references: exactly where the result is exact
 * (min, max, clamp, step, sign), within the specification's 2 ulp for
 * degrees and radians, and within a few ulp for mix and smoothstep, whose
 * accuracy the specification leaves to the implementation. */
#include <float.h>
#include <math.h>

#include "builtins_support.h"

#define LANES 3072
#define REGION (LANES / 3 * 4 * 8) /* bytes of output per function */

/* Edge values (zeros, subnormals, limits, infinities, NaN) and numbers of
 * ordinary size, with a few repeats so equal arguments occur. */
static const double float_edges[] = {
    0.0, -0.0, 0x1p-149, -0x1p-149, 0x1.fffffcp-127, 0x1p-126, -0x1p-126, 1.0,
    -1.0, 0.5, 1.5, -2.5, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, 1e-30,
    -1e30, 0.1, 90.0, 3.14159265f, 1e20, 100.0};
static const double double_edges[] = {
    0.0, -0.0, 0x1p-1074, -0x1p-1074, 0x1.ffffffffffffep-1023, 0x1p-1022,
    -0x1p-1022, 1.0, -1.0, 0.5, 1.5, -2.5, DBL_MAX, -DBL_MAX, INFINITY,
    -INFINITY, NAN, 1e-300, -1e300, 0.1, 90.0, 3.141592653589793, 1e200, 100.0};
#define NUM_EDGES 24

static double ordinary(int is_double) {
  uint64_t r = bs_random();
  double v = ldexp((double)(r >> 11) / 0x1p53, (int)((r >> 3) % 40) - 20);
  v = r & 1 ? -v : v;
  return bs_rounded(is_double, v);
}

static double any_value(int is_double) {
  uint64_t r = bs_random();
  return bs_from_bits(is_double, is_double ? r : r >> 32);
}

static void make_lanes(int is_double, uint64_t *x, uint64_t *y, uint64_t *z) {
  const double *edges = is_double ? double_edges : float_edges;
  int lane = 0;
  for (int i = 0; i < NUM_EDGES; i++)
    for (int j = 0; j < NUM_EDGES; j++, lane++) {
      x[lane] = bs_to_bits(is_double, edges[i]);
      y[lane] = bs_to_bits(is_double, edges[j]);
      z[lane] = bs_to_bits(is_double, edges[(i * 5 + j) % NUM_EDGES]);
    }
  for (; lane < LANES; lane++) {
    uint64_t *v[3] = {&x[lane], &y[lane], &z[lane]};
    for (int k = 0; k < 3; k++) {
      uint64_t r = bs_random();
      double d = r % 8 == 0 ? edges[(r >> 8) % NUM_EDGES]
                 : r % 8 == 1 ? any_value(is_double) : ordinary(is_double);
      *v[k] = bs_to_bits(is_double, d);
    }
  }
}

/* The functions: the expression over x, y, z (and ys, zs: component 0),
 * how its result is judged, and whether it takes ys for y and zs for z. */
enum { EXACT, ULP2, MIX, SMOOTH };
typedef struct cfunc {
  const char *expr;
  int judge, scalar_y, scalar_z;
  long double (*ref)(long double x, long double y, long double z, long double ys,
                     long double zs);
} cfunc;

static long double lmin(long double a, long double b) { return fminl(a, b); }
static long double lmax(long double a, long double b) { return fmaxl(a, b); }
static long double lclamp(long double x, long double lo, long double hi) {
  return fminl(fmaxl(x, lo), hi);
}
static long double unit(long double a) { return fminl(fmaxl(a, 0), 1); }
#define REF(name, body)                                                     \
  static long double name(long double x, long double y, long double z,       \
                          long double ys, long double zs) {                 \
    (void)x, (void)y, (void)z, (void)ys, (void)zs;                          \
    return body;                                                            \
  }
REF(r_clamp, lclamp(x, lmin(y, z), lmax(y, z)))
REF(r_min, lmin(x, y))
REF(r_max, lmax(x, y))
REF(r_clamp_s, lclamp(x, lmin(ys, zs), lmax(ys, zs)))
REF(r_min_s, lmin(x, ys))
REF(r_max_s, lmax(x, ys))
REF(r_degrees, x * (180 / 3.14159265358979323846264338327950288L))
REF(r_radians, x * (3.14159265358979323846264338327950288L / 180))
REF(r_step, x < y ? 0 : 1)
REF(r_step_s, x < ys ? 0 : 1)
/* NaN gives +0; a zero keeps its sign. */
REF(r_sign, isnan(x) ? 0 : x > 0 ? 1 : x < 0 ? -1 : x)
REF(r_mix, x + (y - x) * unit(z))
REF(r_mix_s, x + (y - x) * unit(zs))
static long double smooth(long double e0, long double e1, long double x) {
  long double t = lclamp((x - e0) / (e1 - e0), 0, 1);
  return t * t * (3 - 2 * t);
}
REF(r_smoothstep, smooth(lmin(y, z), lmax(y, z), x))
REF(r_smoothstep_s, smooth(lmin(ys, zs), lmax(ys, zs), x))

static const cfunc cfuncs[] = {
    {"clamp(x, min(y, z), max(y, z))", EXACT, 0, 0, r_clamp},
    {"min(x, y)", EXACT, 0, 0, r_min},
    {"max(x, y)", EXACT, 0, 0, r_max},
    {"clamp(x, min(ys, zs), max(ys, zs))", EXACT, 1, 1, r_clamp_s},
    {"min(x, ys)", EXACT, 1, 0, r_min_s},
    {"max(x, ys)", EXACT, 1, 0, r_max_s},
    {"degrees(x)", ULP2, 0, 0, r_degrees},
    {"radians(x)", ULP2, 0, 0, r_radians},
    {"step(y, x)", EXACT, 0, 0, r_step},
    {"step(ys, x)", EXACT, 1, 0, r_step_s},
    {"sign(x)", EXACT, 0, 0, r_sign},
    {"mix(x, y, clamp(z, (S)0, (S)1))", MIX, 0, 0, r_mix},
    {"mix(x, y, clamp(zs, (S)0, (S)1))", MIX, 0, 1, r_mix_s},
    {"smoothstep(min(y, z), max(y, z), x)", SMOOTH, 0, 0, r_smoothstep},
    {"smoothstep(min(ys, zs), max(ys, zs), x)", SMOOTH, 1, 1, r_smoothstep_s}};
#define NUM_CFUNCS 15

typedef struct ccase {
  int is_double;
  uint64_t *x, *y, *z;
} ccase;

static int finite_in(int is_double, long double v) {
  return isfinite(bs_rounded(is_double, v));
}

/* Whether a result is right. Exact results compare as values (min and max
 * of +0 and -0 may give either) except sign, whose zero keeps its sign. */
static int judge(const cfunc *f, int is_double, double got, long double want,
                 long double x, long double y, long double z) {
  switch (f->judge) {
  case EXACT:
    if (isnan(want)) return isnan(got);
    if (f->ref == r_sign) return got == want && !signbit(got) == !signbit(want);
    return got == bs_rounded(is_double, want);
  case ULP2:
    return bs_ulp_error(is_double, got, want) <= 2;
  case MIX: { /* defined for finite x and y whose difference is finite */
    if (!finite_in(is_double, x) || !finite_in(is_double, y) ||
        !finite_in(is_double, y - x) || isnan(z))
      return 1;
    long double scale = fmaxl(fabsl(x), fabsl(y));
    long double eps = is_double ? DBL_EPSILON : FLT_EPSILON;
    long double tiny = is_double ? 0x1p-1074L : 0x1p-149L;
    return fabsl(got - want) <= 2 * eps * scale + tiny;
  }
  default: /* SMOOTH: defined for finite edges e0 < e1 and finite x */
    if (!(fminl(y, z) < fmaxl(y, z)) || !finite_in(is_double, y) ||
        !finite_in(is_double, z) || !finite_in(is_double, x) ||
        !finite_in(is_double, fmaxl(y, z) - fminl(y, z)) ||
        !finite_in(is_double, x - fminl(y, z)))
      return 1;
    return fabsl(got - want) <= 8 * (is_double ? DBL_EPSILON : FLT_EPSILON);
  }
}

static void check_common(int n, const uint8_t *out, void *data) {
  ccase *c = data;
  int bytes = c->is_double ? 8 : 4;
  for (int f = 0; f < NUM_CFUNCS; f++) {
    for (int l = 0; l < LANES; l++) {
      int l0 = l - l % n;
      long double x = bs_from_bits(c->is_double, c->x[l]);
      long double y = bs_from_bits(c->is_double, c->y[l]);
      long double z = bs_from_bits(c->is_double, c->z[l]);
      long double ys = bs_from_bits(c->is_double, c->y[l0]);
      long double zs = bs_from_bits(c->is_double, c->z[l0]);
      double got = bs_from_bits(c->is_double, bs_get(out + f * REGION, bytes, bs_slot(l, n)));
      long double want = cfuncs[f].ref(x, y, z, ys, zs);
      if (!judge(&cfuncs[f], c->is_double, got, want, x,
                 cfuncs[f].scalar_y ? ys : y, cfuncs[f].scalar_z ? zs : z))
        FAIL("%s on %s, component %d: x=%La y=%La z=%La (ys=%La zs=%La) gave %a, "
             "expected %La", cfuncs[f].expr,
             bs_vec(c->is_double ? "double" : "float", n), l % n, x, y, z, ys, zs,
             got, want);
    }
  }
}

static void check_common_type(int is_double) {
  static uint64_t x[LANES], y[LANES], z[LANES];
  make_lanes(is_double, x, y, z);
  const char *F = is_double ? "double" : "float";
  bs_text s = {0};
  bs_append(&s, "#define S %s\n", F);
  for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
    int n = bs_widths[wi];
    const char *T = bs_vec(F, n);
    bs_append(&s, "__kernel void k%d(__global const %s *a, __global const %s *b,"
              " __global const %s *c, __global char *out) {\n"
              "  size_t i = get_global_id(0);\n  %s x = a[i], y = b[i], z = c[i];\n"
              "  S ys = %s, zs = %s;\n", n, T, T, T, T, n == 1 ? "y" : "y.s0",
              n == 1 ? "z" : "z.s0");
    for (int f = 0; f < NUM_CFUNCS; f++)
      bs_append(&s, "  ((__global %s *)(out + %d))[i] = %s;\n", T, f * REGION,
                cfuncs[f].expr);
    bs_append(&s, "}\n");
  }
  uint64_t *lanes[3] = {x, y, z};
  int bytes[3] = {is_double ? 8 : 4, is_double ? 8 : 4, is_double ? 8 : 4};
  ccase c = {is_double, x, y, z};
  bs_run r = {.source = s.s, .prefix = "k", .widths = bs_widths,
              .num_widths = BS_NUM_WIDTHS, .lanes = LANES, .nargs = 3,
              .args = lanes, .bytes = bytes, .nout = NUM_CFUNCS,
              .region = REGION, .check = check_common, .data = &c};
  bs_run_widths(&r);
  free(s.s);
}

TEST(float_common_functions) { check_common_type(0); }

TEST(double_common_functions) { check_common_type(1); }

/* A kernel that calls every common declaration of the header, for float
 * and double at every width, builds: none is missing from the library. */
TEST(every_declaration_links) {
  bs_text s = {0};
  bs_begin_every_declaration(&s);
  for (int fi = 0; fi < 2; fi++) {
    const char *S = fi ? "double" : "float";
    for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
      int n = bs_widths[wi];
      const char *T = bs_vec(S, n);
      bs_append(&s, "  { %s x = *(__global const %s *)in, y = x + 1, z = y + 1;\n"
                "    %s s = *(__global const %s *)(in + 128), t = s + 1;\n"
                "    USE(clamp(x, y, z)); USE(degrees(x)); USE(max(x, y));\n"
                "    USE(min(x, y)); USE(mix(x, y, z)); USE(radians(x));\n"
                "    USE(step(x, y)); USE(smoothstep(x, y, z)); USE(sign(x));\n",
                T, T, S, S);
      if (n > 1)
        bs_append(&s, "    USE(clamp(x, s, t)); USE(max(x, s)); USE(min(x, s));\n"
                  "    USE(mix(x, y, s)); USE(step(s, x)); USE(smoothstep(s, t, x));\n");
      bs_append(&s, "  }\n");
    }
  }
  bs_append(&s, "}\n");
  bs_build_and_free(&s);
}

TEST_MAIN()
