/* test_builtins_integer.c: the integer functions of OpenCL C 3.0 (6.15.4)
 * and cl_khr_extended_bit_ops for char to ulong at every width, compared
 * exactly with reference functions in plain C (128-bit where products
 * need it). Every pair of edge values is tried, then pseudo-random
 * values. */
#include "builtins_support.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

typedef struct itype {
  const char *name, *uname, *wide; /* wide: twice the bits, or NULL */
  int bits, is_signed;
} itype;

static const itype types[] = {
    {"char", "uchar", "short", 8, 1},   {"uchar", "uchar", "ushort", 8, 0},
    {"short", "ushort", "int", 16, 1},  {"ushort", "ushort", "uint", 16, 0},
    {"int", "uint", "long", 32, 1},     {"uint", "uint", "ulong", 32, 0},
    {"long", "ulong", NULL, 64, 1},     {"ulong", "ulong", NULL, 64, 0},
};
#define NUM_TYPES 8

#define LANES 6144  /* values per argument: every width divides it */
#define SLOTS 8192  /* components per buffer (3-vectors take 4) */
#define REGION (SLOTS * 8)

static i128 lowest(const itype *t) {
  return t->is_signed ? -((i128)1 << (t->bits - 1)) : 0;
}
static i128 highest(const itype *t) {
  return ((i128)1 << (t->bits - t->is_signed)) - 1;
}
static uint64_t bits_of(const itype *t, i128 v) {
  uint64_t u = (uint64_t)v;
  return t->bits == 64 ? u : u & ((1ull << t->bits) - 1);
}
/* v modulo 2^bits, in t's range. */
static i128 wrap(const itype *t, i128 v) {
  uint64_t u = bits_of(t, v);
  if (t->is_signed && t->bits < 64 && (u >> (t->bits - 1)))
    return (i128)u - ((i128)1 << t->bits);
  return t->is_signed && t->bits == 64 ? (i128)(int64_t)u : (i128)u;
}
static i128 saturate(const itype *t, i128 v) {
  return v < lowest(t) ? lowest(t) : v > highest(t) ? highest(t) : v;
}

/* Edge values: 0, +-1, the limits and their neighbours, powers of two,
 * their neighbours and negations, in range and without repeats. */
static int edge_values(const itype *t, i128 *out) {
  static const int powers[] = {1, 3, 7, 8, 15, 16, 23, 24, 31, 32, 47, 48, 62, 63};
  i128 cand[128];
  int n = 0, count = 0;
  i128 lo = lowest(t), hi = highest(t);
  cand[n++] = 0, cand[n++] = 1, cand[n++] = -1, cand[n++] = 2, cand[n++] = -2;
  cand[n++] = lo, cand[n++] = lo + 1, cand[n++] = hi, cand[n++] = hi - 1;
  cand[n++] = hi / 2, cand[n++] = lo / 2;
  for (unsigned i = 0; i < sizeof powers / sizeof *powers; i++) {
    i128 p = (i128)1 << powers[i];
    cand[n++] = p, cand[n++] = p - 1, cand[n++] = -p, cand[n++] = p + 1;
  }
  for (int i = 0; i < n; i++) {
    if (cand[i] < lo || cand[i] > hi) continue;
    int seen = 0;
    for (int j = 0; j < count; j++) seen |= out[j] == cand[i];
    if (!seen) out[count++] = cand[i];
  }
  return count;
}

/* Inputs for one type: every pair of edge values for x and y (z an edge
 * value too), then random bits, random edge values and small numbers. */
static void make_inputs(const itype *t, i128 *x, i128 *y, i128 *z) {
  i128 edges[128];
  int n = edge_values(t, edges), lane = 0;
  if (n * n > LANES) FAIL("too many edge values for %s", t->name);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++, lane++)
      x[lane] = edges[i], y[lane] = edges[j], z[lane] = edges[(i * 7 + j) % n];
  for (; lane < LANES; lane++) {
    i128 *v[3] = {&x[lane], &y[lane], &z[lane]};
    for (int k = 0; k < 3; k++) {
      uint64_t r = bs_random();
      switch (r % 4) {
      case 0: *v[k] = edges[(r >> 8) % (uint64_t)n]; break;
      case 1: *v[k] = wrap(t, (i128)(int64_t)(r >> 16) % 300); break;
      default: *v[k] = wrap(t, (i128)bs_random()); break;
      }
    }
  }
}

/* The functions under test: an OpenCL C expression over x, y, z (vectors)
 * and ys, zs (the scalars of component 0), what it returns, and the
 * reference, given the same values. */
enum { SAME, UNSIGNED, WIDE, SIGNED };
enum { ALL, ONLY_32, NOT_64 };
typedef i128 ref_fn(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs);
typedef struct ifunc {
  const char *expr;
  int result, only;
  ref_fn *ref;
} ifunc;

static i128 r_abs(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)y, (void)z, (void)ys, (void)zs;
  return x < 0 ? -x : x;
}
static i128 r_abs_diff(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)z, (void)ys, (void)zs;
  return x > y ? x - y : y - x;
}
static i128 r_add_sat(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)z, (void)ys, (void)zs;
  return saturate(t, x + y);
}
static i128 r_sub_sat(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)z, (void)ys, (void)zs;
  return saturate(t, x - y);
}
/* >> of a negative __int128 is arithmetic with GCC and Clang: floor. */
static i128 r_hadd(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)z, (void)ys, (void)zs;
  return (x + y) >> 1;
}
static i128 r_rhadd(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)z, (void)ys, (void)zs;
  return (x + y + 1) >> 1;
}
static i128 mini(i128 a, i128 b) { return a < b ? a : b; }
static i128 maxi(i128 a, i128 b) { return a > b ? a : b; }
static i128 r_min(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)z, (void)ys, (void)zs;
  return mini(x, y);
}
static i128 r_max(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)z, (void)ys, (void)zs;
  return maxi(x, y);
}
static i128 r_clamp(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)ys, (void)zs;
  return mini(maxi(x, mini(y, z)), maxi(y, z));
}
static i128 r_min_s(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)y, (void)z, (void)zs;
  return mini(x, ys);
}
static i128 r_max_s(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)y, (void)z, (void)zs;
  return maxi(x, ys);
}
static i128 r_clamp_s(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)t, (void)y, (void)z;
  return mini(maxi(x, mini(ys, zs)), maxi(ys, zs));
}
static i128 r_clz(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)y, (void)z, (void)ys, (void)zs;
  uint64_t u = bits_of(t, x);
  int n = 0;
  for (int b = t->bits - 1; b >= 0 && !((u >> b) & 1); b--) n++;
  return n;
}
static i128 r_ctz(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)y, (void)z, (void)ys, (void)zs;
  uint64_t u = bits_of(t, x);
  int n = 0;
  for (int b = 0; b < t->bits && !((u >> b) & 1); b++) n++;
  return n;
}
static i128 r_popcount(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)y, (void)z, (void)ys, (void)zs;
  uint64_t u = bits_of(t, x);
  int n = 0;
  for (int b = 0; b < t->bits; b++) n += (u >> b) & 1;
  return n;
}
/* Rotate left by y modulo the width, a bit at a time. */
static i128 r_rotate(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)z, (void)ys, (void)zs;
  uint64_t u = bits_of(t, x);
  int n = (int)(bits_of(t, y) % (uint64_t)t->bits);
  for (int i = 0; i < n; i++) {
    uint64_t top = (u >> (t->bits - 1)) & 1;
    u = bits_of(t, (i128)((u << 1) | top));
  }
  return wrap(t, (i128)u);
}
static i128 mul_hi_of(const itype *t, i128 x, i128 y) {
  if (!t->is_signed) return (i128)(((u128)x * (u128)y) >> t->bits);
  return (x * y) >> t->bits;
}
static i128 r_mul_hi(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)z, (void)ys, (void)zs;
  return mul_hi_of(t, x, y);
}
static i128 r_mad_hi(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)ys, (void)zs;
  return wrap(t, mul_hi_of(t, x, y) + z);
}
static i128 r_mad_sat(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)ys, (void)zs;
  if (!t->is_signed) {
    u128 r = (u128)x * (u128)y + (u128)z;
    return r > (u128)highest(t) ? highest(t) : (i128)r;
  }
  return saturate(t, x * y + z);
}
/* mul24 and mad24 are defined for 24-bit operands; the kernels pass x and
 * y cut to 24 bits (sign-extended for int). */
static i128 to24(const itype *t, i128 v) {
  i128 low = v & 0xffffff;
  return t->is_signed && low >= 0x800000 ? low - 0x1000000 : low;
}
static i128 r_mul24(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)z, (void)ys, (void)zs;
  return wrap(t, to24(t, x) * to24(t, y));
}
static i128 r_mad24(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)ys, (void)zs;
  return wrap(t, to24(t, x) * to24(t, y) + z);
}
static i128 r_upsample(const itype *t, i128 x, i128 y, i128 z, i128 ys, i128 zs) {
  (void)z, (void)ys, (void)zs;
  return x * ((i128)1 << t->bits) + (i128)bits_of(t, y);
}

/* cl_khr_extended_bit_ops' fields: bit offset ys modulo the width, count
 * zs modulo what is left of it plus one (0 to all of it), as the kernels'
 * OFFSET and COUNT below compute them. */
static unsigned field_offset(const itype *t, i128 ys) {
  return (unsigned)ys & (unsigned)(t->bits - 1);
}
static unsigned field_count(const itype *t, i128 ys, i128 zs) {
  return (unsigned)zs % (unsigned)(t->bits + 1 - (int)field_offset(t, ys));
}
static uint64_t field_mask(unsigned count) {
  return count == 64 ? ~0ull : (1ull << count) - 1;
}
static i128 r_bitfield_insert(const itype *t, i128 x, i128 y, i128 z, i128 ys,
                              i128 zs) {
  (void)z;
  unsigned offset = field_offset(t, ys), count = field_count(t, ys, zs);
  uint64_t mask = field_mask(count) << offset;
  uint64_t r = (bits_of(t, x) & ~mask) | ((bits_of(t, y) << offset) & mask);
  return wrap(t, (i128)r);
}
static i128 r_extract_unsigned(const itype *t, i128 x, i128 y, i128 z, i128 ys,
                               i128 zs) {
  (void)y, (void)z;
  unsigned offset = field_offset(t, ys), count = field_count(t, ys, zs);
  return count ? (i128)((bits_of(t, x) >> offset) & field_mask(count)) : 0;
}
static i128 r_extract_signed(const itype *t, i128 x, i128 y, i128 z, i128 ys,
                             i128 zs) {
  i128 u = r_extract_unsigned(t, x, y, z, ys, zs);
  unsigned count = field_count(t, ys, zs);
  return count && (u >> (count - 1)) & 1 ? u - ((i128)1 << count) : u;
}
static i128 r_bit_reverse(const itype *t, i128 x, i128 y, i128 z, i128 ys,
                          i128 zs) {
  (void)y, (void)z, (void)ys, (void)zs;
  uint64_t u = bits_of(t, x), r = 0;
  for (int b = 0; b < t->bits; b++) r |= ((u >> b) & 1) << (t->bits - 1 - b);
  return wrap(t, (i128)r);
}

#define X24 "(IS_SIGNED ? (x << 8) >> 8 : x & (T)0xffffff)"
#define Y24 "(IS_SIGNED ? (y << 8) >> 8 : y & (T)0xffffff)"

static const ifunc abs_family[] = {
    {"abs(x)", UNSIGNED, ALL, r_abs},
    {"abs_diff(x, y)", UNSIGNED, ALL, r_abs_diff},
    {"add_sat(x, y)", SAME, ALL, r_add_sat},
    {"sub_sat(x, y)", SAME, ALL, r_sub_sat},
    {"hadd(x, y)", SAME, ALL, r_hadd},
    {"rhadd(x, y)", SAME, ALL, r_rhadd},
    {NULL, 0, 0, NULL}};
static const ifunc min_max_family[] = {
    {"min(x, y)", SAME, ALL, r_min},
    {"max(x, y)", SAME, ALL, r_max},
    {"clamp(x, min(y, z), max(y, z))", SAME, ALL, r_clamp},
    {"min(x, ys)", SAME, ALL, r_min_s},
    {"max(x, ys)", SAME, ALL, r_max_s},
    {"clamp(x, min(ys, zs), max(ys, zs))", SAME, ALL, r_clamp_s},
    {NULL, 0, 0, NULL}};
static const ifunc bit_family[] = {
    {"clz(x)", SAME, ALL, r_clz},
    {"ctz(x)", SAME, ALL, r_ctz},
    {"popcount(x)", SAME, ALL, r_popcount},
    {"rotate(x, y)", SAME, ALL, r_rotate},
    {NULL, 0, 0, NULL}};
#define WIDTH "(uint)(sizeof(ys) * 8)"
#define OFFSET "((uint)ys & (" WIDTH " - 1))"
#define COUNT "((uint)zs % (" WIDTH " + 1 - " OFFSET "))"
static const ifunc extended_bit_family[] = {
    {"bitfield_insert(x, y, " OFFSET ", " COUNT ")", SAME, ALL,
     r_bitfield_insert},
    {"bitfield_extract_signed(x, " OFFSET ", " COUNT ")", SIGNED, ALL,
     r_extract_signed},
    {"bitfield_extract_unsigned(x, " OFFSET ", " COUNT ")", UNSIGNED, ALL,
     r_extract_unsigned},
    {"bit_reverse(x)", SAME, ALL, r_bit_reverse},
    {NULL, 0, 0, NULL}};
static const ifunc multiply_family[] = {
    {"mul_hi(x, y)", SAME, ALL, r_mul_hi},
    {"mad_hi(x, y, z)", SAME, ALL, r_mad_hi},
    {"mad_sat(x, y, z)", SAME, ALL, r_mad_sat},
    {"mul24(" X24 ", " Y24 ")", SAME, ONLY_32, r_mul24},
    {"mad24(" X24 ", " Y24 ", z)", SAME, ONLY_32, r_mad24},
    {"upsample(x, AS_U(y))", WIDE, NOT_64, r_upsample},
    {NULL, 0, 0, NULL}};

static int applies(const ifunc *f, const itype *t) {
  return f->only == ALL || (f->only == ONLY_32 && t->bits == 32) ||
         (f->only == NOT_64 && t->bits < 64);
}

static const char *result_type(const ifunc *f, const itype *t) {
  if (f->result == SIGNED) return t->uname + 1; /* "uchar" -> "char" */
  return f->result == UNSIGNED ? t->uname : f->result == WIDE ? t->wide : t->name;
}

/* One kernel per type and width: k_int4 computes every function of the
 * family into its region of out. */
static char *family_source(const ifunc *fs) {
  bs_text s = {0};
  for (int ti = 0; ti < NUM_TYPES; ti++) {
    const itype *t = &types[ti];
    for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
      int n = bs_widths[wi];
      const char *T = bs_vec(t->name, n);
      bs_append(&s, "#define T %s\n#define IS_SIGNED %d\n#define AS_U as_%s\n", T,
                t->is_signed, bs_vec(t->uname, n));
      bs_append(&s, "__kernel void k_%s(__global const T *a, __global const T *b,"
                " __global const T *c, __global char *out) {\n"
                "  size_t i = get_global_id(0);\n  T x = a[i], y = b[i], z = c[i];\n"
                "  %s ys = %s, zs = %s;\n", T, t->name, n == 1 ? "y" : "y.s0",
                n == 1 ? "z" : "z.s0");
      for (int f = 0; fs[f].expr; f++)
        if (applies(&fs[f], t))
          bs_append(&s, "  ((__global %s *)(out + %d))[i] = %s;\n",
                    bs_vec(result_type(&fs[f], t), n), f * REGION, fs[f].expr);
      bs_append(&s, "}\n#undef T\n#undef IS_SIGNED\n#undef AS_U\n");
    }
  }
  return s.s;
}

static void store(void *mem, int bytes, int index, i128 v) {
  uint64_t u = (uint64_t)v;
  switch (bytes) {
  case 1: ((uint8_t *)mem)[index] = (uint8_t)u; break;
  case 2: ((uint16_t *)mem)[index] = (uint16_t)u; break;
  case 4: ((uint32_t *)mem)[index] = (uint32_t)u; break;
  default: ((uint64_t *)mem)[index] = u; break;
  }
}

static i128 load(const void *mem, int bits, int is_signed, int index) {
  switch (bits) {
  case 8:
    if (is_signed) return ((const int8_t *)mem)[index];
    return ((const uint8_t *)mem)[index];
  case 16:
    if (is_signed) return ((const int16_t *)mem)[index];
    return ((const uint16_t *)mem)[index];
  case 32:
    if (is_signed) return ((const int32_t *)mem)[index];
    return ((const uint32_t *)mem)[index];
  default:
    return is_signed ? (i128)((const int64_t *)mem)[index]
                     : (i128)((const uint64_t *)mem)[index];
  }
}

static void print128(char *buf, i128 v) {
  if (v < 0) { *buf++ = '-'; v = -v; }
  char tmp[48];
  int n = 0;
  do tmp[n++] = (char)('0' + (int)(v % 10)); while ((v /= 10) != 0);
  while (n) *buf++ = tmp[--n];
  *buf = 0;
}

/* Runs every kernel of the family and compares each component. */
static void check_family(const ifunc *fs) {
  int nf = 0;
  while (fs[nf].expr) nf++;
  char *source = family_source(fs);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  free(source);
  static i128 x[LANES], y[LANES], z[LANES];
  static uint8_t in[3][SLOTS * 8];
  uint8_t *out = malloc((size_t)nf * REGION);
  for (int ti = 0; ti < NUM_TYPES; ti++) {
    const itype *t = &types[ti];
    int bytes = t->bits / 8;
    make_inputs(t, x, y, z);
    for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
      int n = bs_widths[wi], items = LANES / n;
      for (int l = 0; l < LANES; l++) {
        int slot = l / n * bs_stride(n) + l % n;
        store(in[0], bytes, slot, x[l]);
        store(in[1], bytes, slot, y[l]);
        store(in[2], bytes, slot, z[l]);
      }
      weft_buffer *bufs[4];
      for (int k = 0; k < 3; k++) bufs[k] = support_buffer(ctx, SLOTS * 8, in[k]);
      bufs[3] = support_buffer(ctx, (size_t)nf * REGION, NULL);
      char name[32];
      snprintf(name, sizeof name, "k_%s", bs_vec(t->name, n));
      bs_launch(p, name, (size_t)items, bufs, 4);
      CHECK_OK(weft_buffer_read(bufs[3], 0, (size_t)nf * REGION, out), bufs[3]);
      for (int k = 0; k < 4; k++) weft_buffer_release(bufs[k]);
      for (int f = 0; f < nf; f++) {
        if (!applies(&fs[f], t)) continue;
        int rbits = fs[f].result == WIDE ? 2 * t->bits : t->bits;
        int rsigned = fs[f].result == SIGNED     ? 1
                      : fs[f].result == UNSIGNED ? 0
                                                 : t->is_signed;
        for (int l = 0; l < LANES; l++) {
          int slot = l / n * bs_stride(n) + l % n, l0 = l - l % n;
          i128 got = load(out + f * REGION, rbits, rsigned, slot);
          i128 want = fs[f].ref(t, x[l], y[l], z[l], y[l0], z[l0]);
          if (got != want) {
            char g[48], w[48], a[48], b[48], c[48];
            print128(g, got), print128(w, want);
            print128(a, x[l]), print128(b, y[l]), print128(c, z[l]);
            FAIL("%s on %s, component %d: x=%s y=%s z=%s gave %s, expected %s",
                 fs[f].expr, bs_vec(t->name, n), l % n, a, b, c, g, w);
          }
        }
      }
    }
  }
  free(out);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(abs_abs_diff_saturating_and_halving) { check_family(abs_family); }

TEST(min_max_clamp_with_vector_and_scalar_forms) { check_family(min_max_family); }

TEST(clz_ctz_popcount_rotate) { check_family(bit_family); }

TEST(mul_hi_mad_hi_mad_sat_mul24_mad24_upsample) { check_family(multiply_family); }

/* cl_khr_extended_bit_ops, which the device lists. */
TEST(bitfield_insert_extract_bit_reverse) {
  weft_context *ctx = support_context();
  weft_device_info info;
  CHECK_OK(weft_device_info_get(weft_context_device(ctx), &info), ctx);
  CHECK(strstr(info.features, "cl_khr_extended_bit_ops") != NULL);
  weft_context_release(ctx);
  check_family(extended_bit_family);
}

/* cl_khr_integer_dot_product over random words a and b and accumulators
 * c: each of the sixteen functions against a byte-by-byte sum in C. */
static const char *dot_source =
    "#define DOTS(i, x, y, ux, uy, sx, sy)                              \\\n"
    "  out[16 * i + 0] = dot(ux, uy);                                  \\\n"
    "  out[16 * i + 1] = dot(sx, sy);                                  \\\n"
    "  out[16 * i + 2] = dot(ux, sy);                                  \\\n"
    "  out[16 * i + 3] = dot(sx, uy);                                  \\\n"
    "  out[16 * i + 4] = dot_acc_sat(ux, uy, (uint)c[i]);              \\\n"
    "  out[16 * i + 5] = dot_acc_sat(sx, sy, c[i]);                    \\\n"
    "  out[16 * i + 6] = dot_acc_sat(ux, sy, c[i]);                    \\\n"
    "  out[16 * i + 7] = dot_acc_sat(sx, uy, c[i]);                    \\\n"
    "  out[16 * i + 8] = dot_4x8packed_uu_uint(x, y);                  \\\n"
    "  out[16 * i + 9] = dot_4x8packed_ss_int(x, y);                   \\\n"
    "  out[16 * i + 10] = dot_4x8packed_us_int(x, y);                  \\\n"
    "  out[16 * i + 11] = dot_4x8packed_su_int(x, y);                  \\\n"
    "  out[16 * i + 12] = dot_acc_sat_4x8packed_uu_uint(x, y, (uint)c[i]); \\\n"
    "  out[16 * i + 13] = dot_acc_sat_4x8packed_ss_int(x, y, c[i]);    \\\n"
    "  out[16 * i + 14] = dot_acc_sat_4x8packed_us_int(x, y, c[i]);    \\\n"
    "  out[16 * i + 15] = dot_acc_sat_4x8packed_su_int(x, y, c[i]);\n"
    "__kernel void dots(__global const uint *a, __global const uint *b,\n"
    "                   __global const int *c, __global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint x = a[i], y = b[i];\n"
    "  DOTS(i, x, y, as_uchar4(x), as_uchar4(y), as_char4(x), as_char4(y))\n"
    "}\n";

/* Byte k of w, as unsigned (sign 0) or signed. */
static int64_t byte_of(uint32_t w, int k, int sign) {
  uint8_t b = (uint8_t)(w >> (8 * k));
  return sign ? (int64_t)(int8_t)b : (int64_t)b;
}

/* Function f of the sixteen (dot_source's order) on x, y and c. */
static int64_t dot_reference(int f, uint32_t x, uint32_t y, int32_t c) {
  /* Signedness of x and y: uu, ss, us, su. */
  static const int sx[4] = {0, 1, 0, 1}, sy[4] = {0, 1, 1, 0};
  int kind = f % 4, acc = (f / 4) % 2;
  int64_t sum = 0;
  for (int k = 0; k < 4; k++)
    sum += byte_of(x, k, sx[kind]) * byte_of(y, k, sy[kind]);
  if (!acc) return kind ? sum : (int64_t)(uint32_t)sum;
  if (!kind) {
    int64_t r = sum + (uint32_t)c;
    return r > UINT32_MAX ? (int64_t)UINT32_MAX : r;
  }
  int64_t r = sum + c;
  return r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
}

TEST(integer_dot_products) {
  enum { N = 4096 };
  static uint32_t a[N], b[N];
  static int32_t c[N], out[16 * N];
  uint64_t seed = 12345;
  for (int i = 0; i < N; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (uint32_t)(seed >> 32), b[i] = (uint32_t)seed;
    /* Accumulators near the limits too, where the sums saturate. */
    c[i] = i % 4 == 0 ? INT32_MAX - (int32_t)(a[i] % 300000)
           : i % 4 == 1 ? INT32_MIN + (int32_t)(b[i] % 300000)
           : i % 4 == 2 ? -1 - (int32_t)(a[i] % 300000)
                        : (int32_t)(seed >> 40);
  }
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, dot_source, "-cl-std=CL3.0");
  weft_buffer *bufs[4] = {support_buffer(ctx, sizeof a, a),
                          support_buffer(ctx, sizeof b, b),
                          support_buffer(ctx, sizeof c, c),
                          support_buffer(ctx, sizeof out, NULL)};
  bs_launch(p, "dots", N, bufs, 4);
  CHECK_OK(weft_buffer_read(bufs[3], 0, sizeof out, out), bufs[3]);
  for (int i = 0; i < N; i++)
    for (int f = 0; f < 16; f++) {
      int64_t want = dot_reference(f, a[i], b[i], c[i]);
      if ((int32_t)(uint32_t)want != out[16 * i + f])
        FAIL("function %d of x=%#x y=%#x c=%d: %d, expected %lld", f, a[i],
             b[i], c[i], out[16 * i + f], (long long)want);
    }
  for (int k = 0; k < 4; k++) weft_buffer_release(bufs[k]);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A kernel that calls every integer declaration of the header, for every
 * type and width, builds: none is missing from the library. */
TEST(every_declaration_links) {
  bs_text s = {0};
  bs_begin_every_declaration(&s);
  for (int ti = 0; ti < NUM_TYPES; ti++) {
    const itype *t = &types[ti];
    for (int wi = 0; wi < BS_NUM_WIDTHS; wi++) {
      int n = bs_widths[wi];
      const char *T = bs_vec(t->name, n), *S = t->name;
      bs_append(&s, "  { %s x = *(__global const %s *)in, y = x + (%s)1, z = y;\n"
                "    %s s = *(__global const %s *)(in + 8);\n", T, T, T, S, S);
      static const char *calls[] = {
          "abs(x)", "abs_diff(x, y)", "add_sat(x, y)", "hadd(x, y)",
          "rhadd(x, y)", "clamp(x, y, z)", "clz(x)", "ctz(x)", "mad_hi(x, y, z)",
          "mad_sat(x, y, z)", "max(x, y)", "min(x, y)", "mul_hi(x, y)",
          "rotate(x, y)", "sub_sat(x, y)", "popcount(x)", NULL};
      for (int c = 0; calls[c]; c++) bs_append(&s, "    USE(%s);\n", calls[c]);
      if (n > 1)
        bs_append(&s, "    USE(clamp(x, s, s)); USE(max(x, s)); USE(min(x, s));\n");
      if (t->wide)
        bs_append(&s, "    USE(upsample(x, as_%s(y)));\n", bs_vec(t->uname, n));
      if (t->bits == 32)
        bs_append(&s, "    USE(mad24(x, y, z)); USE(mul24(x, y));\n");
      bs_append(&s, "  }\n");
    }
  }
  bs_append(&s, "}\n");
  bs_build_and_free(&s);
}

TEST_MAIN()
