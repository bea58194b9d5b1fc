/* test_builtins_convert.c: explicit conversions (OpenCL C 3.0, 6.4.3),
 * convert_<dst>[_sat][_<mode>] for every pair of the ten scalar types and
 * every width, and the as_<type> reinterpretations.
 *
 * Each source type gets edge values (zero, signed zeros, limits of every
 * type and their neighbours, ties, NaN, infinities, subnormals, values near
 * float rounding boundaries, random bit patterns). The results are compared
 * bit for bit with references computed here: saturation and integer
 * rounding with plain C on __int128 and long double, floating-point
 * rounding modes with the host's own (fesetround around a conversion from
 * long double, which holds every input exactly), which is not how the
 * library does it. Vector lanes get different inputs. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#include "support.h"

enum { SIGNED, UNSIGNED, FLOATING };
typedef struct {
  const char *name;
  int size, kind;
} type_info;

enum { CHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE,
       NTYPES };
static const type_info types[NTYPES] = {
    {"char", 1, SIGNED},   {"uchar", 1, UNSIGNED}, {"short", 2, SIGNED},
    {"ushort", 2, UNSIGNED}, {"int", 4, SIGNED},   {"uint", 4, UNSIGNED},
    {"long", 8, SIGNED},   {"ulong", 8, UNSIGNED}, {"float", 4, FLOATING},
    {"double", 8, FLOATING}};

#define NWIDTHS 6
static const int widths[NWIDTHS] = {1, 2, 3, 4, 8, 16};

enum { DEFAULT, RTE, RTZ, RTP, RTN, NMODES };
static const char *const mode_suffix[NMODES] = {"", "_rte", "_rtz", "_rtp",
                                                "_rtn"};

typedef __int128 i128;

static int is_integer(int t) { return types[t].kind != FLOATING; }

static i128 type_min(int t) {
  return types[t].kind == SIGNED ? -((i128)1 << (8 * types[t].size - 1)) : 0;
}

static i128 type_max(int t) {
  int bits = 8 * types[t].size - (types[t].kind == SIGNED);
  return ((i128)1 << bits) - 1;
}

/* A value of any of the types: an integer, or a long double, which holds
 * every float and double (and every 64-bit integer) exactly. */
typedef struct {
  int is_float;
  i128 i;
  long double f;
} value;

static value int_value(i128 i) { return (value){0, i, 0}; }
static value float_value(long double f) { return (value){1, 0, f}; }

static value decode(int t, const unsigned char *p) {
  if (t == FLOAT) {
    float f;
    memcpy(&f, p, 4);
    return float_value(f);
  }
  if (t == DOUBLE) {
    double d;
    memcpy(&d, p, 8);
    return float_value(d);
  }
  uint64_t u = 0;
  memcpy(&u, p, (size_t)types[t].size); /* little-endian */
  i128 i = u;
  if (types[t].kind == SIGNED && i > type_max(t))
    i -= (i128)1 << (8 * types[t].size);
  return int_value(i);
}

/* Stores v in type t: integers wrap around, floats round to nearest. */
static void encode(int t, value v, unsigned char *p) {
  if (t == FLOAT) {
    float f = v.is_float ? (float)v.f : (float)v.i;
    memcpy(p, &f, 4);
  } else if (t == DOUBLE) {
    double d = v.is_float ? (double)v.f : (double)v.i;
    memcpy(p, &d, 8);
  } else {
    uint64_t u = (uint64_t)v.i;
    memcpy(p, &u, (size_t)types[t].size);
  }
}

static void describe(int t, const unsigned char *p, char *out, size_t size) {
  value v = decode(t, p);
  if (v.is_float)
    snprintf(out, size, "%La (%.21Lg)", v.f, v.f);
  else if (v.i < 0)
    snprintf(out, size, "%lld", (long long)v.i);
  else
    snprintf(out, size, "%llu", (unsigned long long)v.i);
}

static int same_bits(int t, const unsigned char *a, const unsigned char *b) {
  if (!is_integer(t)) {
    value x = decode(t, a), y = decode(t, b);
    if (isnan(x.f) && isnan(y.f)) return 1; /* NaN payloads are free */
  }
  return !memcmp(a, b, (size_t)types[t].size);
}

/* ---- The reference. */

static long double round_integral(long double f, int mode) {
  switch (mode) {
  case RTE: return rintl(f); /* the default environment rounds to even */
  case RTP: return ceill(f);
  case RTN: return floorl(f);
  default: return truncl(f); /* float to integer defaults to rtz */
  }
}

static const int fe_modes[NMODES] = {FE_TONEAREST, FE_TONEAREST,
                                     FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

/* The long double x rounded to float or double in the mode, by the host's
 * hardware. volatile keeps the conversion after fesetround. */
static void round_to(int d, long double x, int mode, unsigned char *out) {
  volatile long double vx = x;
  fesetround(fe_modes[mode]);
  if (d == FLOAT) {
    volatile float f = (float)vx;
    fesetround(FE_TONEAREST);
    memcpy(out, (const void *)&f, 4);
  } else {
    volatile double f = (double)vx;
    fesetround(FE_TONEAREST);
    memcpy(out, (const void *)&f, 8);
  }
}

/* convert_<d>[_sat]<mode>(v) as bytes of d. Returns 0 where OpenCL leaves
 * the result undefined: float to integer out of range, without _sat. */
static int reference(int d, int sat, int mode, value v, unsigned char *out) {
  if (!is_integer(d)) {
    round_to(d, v.is_float ? v.f : (long double)v.i, mode, out);
    return 1;
  }
  i128 r;
  if (!v.is_float) {
    r = v.i;
  } else {
    long double f = round_integral(v.f, mode);
    if (isnan(f)) {
      if (!sat) return 0;
      r = 0;
    } else if (f < (long double)type_min(d)) {
      if (!sat) return 0;
      r = type_min(d);
    } else if (f > (long double)type_max(d)) {
      if (!sat) return 0;
      r = type_max(d);
    } else {
      r = (i128)f;
    }
  }
  if (sat && r < type_min(d)) r = type_min(d);
  if (sat && r > type_max(d)) r = type_max(d);
  encode(d, int_value(r), out);
  return 1;
}

/* ---- Inputs. */

#define MAX_INPUTS 2048

static uint64_t lcg_state = 0x853c49e6748fea9bULL;
static uint64_t next_random(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg_state ^ (lcg_state >> 29);
}

typedef struct {
  int count;
  unsigned char bytes[MAX_INPUTS][8];
} input_set;

static void add_int(input_set *set, int s, i128 i) {
  if (i < type_min(s) || i > type_max(s)) return;
  CHECK(set->count < MAX_INPUTS);
  encode(s, int_value(i), set->bytes[set->count++]);
}

static void add_float(input_set *set, int s, long double f) {
  CHECK(set->count < MAX_INPUTS);
  encode(s, float_value(f), set->bytes[set->count++]);
}

/* f and its neighbours in the precision of s, with both signs. */
static void add_float_around(input_set *set, int s, long double f) {
  for (int sign = -1; sign <= 1; sign += 2) {
    long double g = sign * f;
    add_float(set, s, g);
    if (s == FLOAT) {
      add_float(set, s, nextafterf((float)g, INFINITY));
      add_float(set, s, nextafterf((float)g, -INFINITY));
    } else {
      add_float(set, s, nextafter((double)g, INFINITY));
      add_float(set, s, nextafter((double)g, -INFINITY));
    }
  }
}

static void integer_inputs(input_set *set, int s) {
  for (int i = -3; i <= 3; i++) add_int(set, s, i);
  for (int t = 0; t < DOUBLE; t++) {
    if (!is_integer(t)) continue;
    for (int k = -1; k <= 1; k++) {
      add_int(set, s, type_min(t) + k);
      add_int(set, s, type_max(t) + k);
    }
  }
  for (int k = 1; k < 64; k++) {
    for (int sign = -1; sign <= 1; sign += 2) {
      add_int(set, s, sign * ((i128)1 << k));
      add_int(set, s, sign * (((i128)1 << k) + 1));
      add_int(set, s, sign * (((i128)1 << k) - 1));
    }
  }
  /* Ties and near-ties for float (24 bits) and double (53 bits). */
  for (int k = 0; k <= 39; k++) {
    for (int sign = -1; sign <= 1; sign += 2) {
      i128 tie = (((i128)1 << 24) + 1) << k, odd = (((i128)1 << 24) + 3) << k;
      add_int(set, s, sign * tie);
      add_int(set, s, sign * odd);
      add_int(set, s, sign * (tie + 1));
      add_int(set, s, sign * (tie - 1));
      if (k <= 10) {
        i128 dtie = (((i128)1 << 53) + 1) << k;
        add_int(set, s, sign * dtie);
        add_int(set, s, sign * (dtie + 1));
        add_int(set, s, sign * (dtie - 1));
      }
    }
  }
  /* Random values of every magnitude. */
  for (int k = 0; k < 256; k++) {
    uint64_t r = next_random();
    int bits = (int)(next_random() % (8 * (unsigned)types[s].size)) + 1;
    i128 v = bits >= 64 ? (i128)r : (i128)(r & ((1ULL << bits) - 1));
    if (types[s].kind == SIGNED && (next_random() & 1)) v = -v;
    add_int(set, s, v);
  }
}

static void float_inputs(input_set *set, int s) {
  add_float(set, s, 0.0L);
  add_float(set, s, -0.0L);
  for (int k = 1; k <= 16; k++) add_float_around(set, s, k * 0.25L);
  for (int t = 0; t < FLOAT; t++) {
    long double lo = (long double)type_min(t), hi = (long double)type_max(t);
    long double edges[] = {lo - 1, lo - 0.5L, lo, lo + 0.5L, lo + 1,
                           hi - 1, hi - 0.5L, hi, hi + 0.5L, hi + 1};
    for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
      add_float_around(set, s, fabsl(edges[e]));
  }
  add_float(set, s, NAN);
  add_float(set, s, -NAN);
  add_float(set, s, INFINITY);
  add_float(set, s, -INFINITY);
  long double specials[] = {FLT_TRUE_MIN, FLT_MIN, FLT_MAX, 0x1p24L, 0x1p31L,
                            0x1p53L, 0x1p63L, 0x1p64L};
  for (size_t e = 0; e < sizeof specials / sizeof *specials; e++)
    add_float_around(set, s, specials[e]);
  if (s == DOUBLE) {
    long double dspecials[] = {
        DBL_TRUE_MIN, DBL_MIN, DBL_MAX, 1e300L,
        0x1p128L - 0x1p103L,         /* FLT_MAX + half an ulp: a tie */
        0x1p128L,                     /* beyond FLT_MAX */
        1 + 0x1p-24L, 1 + 0x3p-24L,   /* float ties, even and odd */
        0x1p-150L, 0x3p-150L,         /* ties among float subnormals */
        0x1p-126L - 0x1p-150L,        /* between subnormal and normal */
        0x1p-149L * 0.75L, 0x1p-149L * 0.25L};
    for (size_t e = 0; e < sizeof dspecials / sizeof *dspecials; e++)
      add_float_around(set, s, dspecials[e]);
  }
  /* Random values: half with exponents where integers live, half with
   * random bit patterns (NaNs included). */
  for (int k = 0; k < 256; k++) {
    uint64_t r = next_random();
    int e = (int)(next_random() % 100) - 30;
    long double f = ldexpl((long double)(r >> 11) / 0x1p53L, e);
    if (next_random() & 1) f = -f;
    add_float(set, s, f);
    CHECK(set->count < MAX_INPUTS);
    memcpy(set->bytes[set->count++], &r, 8);
  }
}

static const input_set *inputs_of(int s) {
  static input_set sets[NTYPES];
  static int made[NTYPES];
  if (!made[s]) {
    if (is_integer(s))
      integer_inputs(&sets[s], s);
    else
      float_inputs(&sets[s], s);
    made[s] = 1;
  }
  return &sets[s];
}

/* ---- Building and running conversions. */

typedef struct {
  int d, sat, mode, w; /* w indexes widths */
} conv;

#define MAX_CONVS 512
#define CASE_SIZE 16

/* Elements a vector of width n takes in the buffers (3 takes 4). */
static int slot(int n) { return n == 3 ? 4 : n; }

static void appendf(char **s, size_t *len, size_t *cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char line[512];
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  while (*len + (size_t)n + 1 > *cap) {
    *cap = *cap ? 2 * *cap : 4096;
    *s = realloc(*s, *cap);
    CHECK(*s);
  }
  memcpy(*s + *len, line, (size_t)n + 1);
  *len += (size_t)n;
}

/* "convert_int4_sat_rte" */
static void conv_name(int d, int n, int sat, int mode, char *out, size_t size) {
  char width[12] = "";
  if (n > 1) snprintf(width, sizeof width, "%d", n);
  snprintf(out, size, "convert_%s%s%s%s", types[d].name, width,
           sat ? "_sat" : "", mode_suffix[mode]);
}

static void vector_type(int t, int n, char *out, size_t size) {
  if (n > 1)
    snprintf(out, size, "%s%d", types[t].name, n);
  else
    snprintf(out, size, "%s", types[t].name);
}

/* Runs the conversions c[0..nc) of source type s in one kernel, over all
 * of s's inputs (lane j of work-item i converts input i + j), and checks
 * every lane against the reference. */
static void run_convs(int s, const conv *c, int nc, const char *options) {
  const input_set *in = inputs_of(s);
  size_t count = (size_t)in->count, ssize = (size_t)types[s].size;
  size_t in_off[NWIDTHS], in_size = 0;
  for (int w = 0; w < NWIDTHS; w++) {
    in_off[w] = in_size;
    in_size += (count * (size_t)slot(widths[w]) * ssize + 127) & ~(size_t)127;
  }
  size_t *out_off = malloc((size_t)nc * sizeof *out_off), out_size = 0;
  for (int k = 0; k < nc; k++) {
    out_off[k] = out_size;
    size_t dsize = (size_t)types[c[k].d].size;
    out_size += (count * (size_t)slot(widths[c[k].w]) * dsize + 127) &
                ~(size_t)127;
  }

  unsigned char *host_in = calloc(1, in_size);
  for (int w = 0; w < NWIDTHS; w++)
    for (size_t i = 0; i < count; i++)
      for (int j = 0; j < widths[w]; j++)
        memcpy(host_in + in_off[w] +
                   (i * (size_t)slot(widths[w]) + (size_t)j) * ssize,
               in->bytes[(i + (size_t)j) % count], ssize);

  char *src = NULL, sn[16], dn[16], name[48];
  size_t len = 0, cap = 0;
  appendf(&src, &len, &cap,
          "__kernel void k(__global const uchar *restrict in,\n"
          "                __global uchar *restrict out) {\n"
          "  size_t i = get_global_id(0);\n");
  for (int w = 0; w < NWIDTHS; w++) {
    vector_type(s, widths[w], sn, sizeof sn);
    appendf(&src, &len, &cap,
            "  %s x%d = ((__global const %s *)(in + %zu))[i];\n", sn, w, sn,
            in_off[w]);
  }
  /* Cases of a few conversions keep basic blocks small, which code
   * generation's scheduler needs to be fast. */
  appendf(&src, &len, &cap,
          "  for (int c = 0; c < %d; c++)\n    switch (c) {\n",
          (nc + CASE_SIZE - 1) / CASE_SIZE);
  for (int k = 0; k < nc; k++) {
    int n = widths[c[k].w];
    vector_type(c[k].d, n, dn, sizeof dn);
    conv_name(c[k].d, n, c[k].sat, c[k].mode, name, sizeof name);
    if (k % CASE_SIZE == 0)
      appendf(&src, &len, &cap, "%s    case %d:\n", k ? "      break;\n" : "",
              k / CASE_SIZE);
    appendf(&src, &len, &cap,
            "      ((__global %s *)(out + %zu))[i] = %s(x%d);\n", dn,
            out_off[k], name, c[k].w);
  }
  appendf(&src, &len, &cap, "    }\n}\n");

  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, src, options);
  weft_kernel *kern;
  CHECK_OK(weft_kernel_create(p, "k", &kern), p);
  weft_buffer *bin = support_buffer(ctx, in_size, host_in);
  weft_buffer *bout = support_buffer(ctx, out_size, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(kern, 0, bin), kern);
  CHECK_OK(weft_kernel_set_arg_buffer(kern, 1, bout), kern);
  CHECK_OK(weft_kernel_launch(kern, 1, NULL, &count, NULL), kern);
  unsigned char *host_out = malloc(out_size);
  CHECK_OK(weft_buffer_read(bout, 0, out_size, host_out), bout);

  for (int k = 0; k < nc; k++) {
    int n = widths[c[k].w], d = c[k].d;
    size_t dsize = (size_t)types[d].size;
    for (size_t i = 0; i < count; i++) {
      for (int j = 0; j < n; j++) {
        const unsigned char *x = in->bytes[(i + (size_t)j) % count];
        const unsigned char *got =
            host_out + out_off[k] + (i * (size_t)slot(n) + (size_t)j) * dsize;
        unsigned char want[8];
        if (!reference(d, c[k].sat, c[k].mode, decode(s, x), want)) continue;
        if (!same_bits(d, got, want)) {
          char xs[96], gs[96], ws[96];
          conv_name(d, n, c[k].sat, c[k].mode, name, sizeof name);
          describe(s, x, xs, sizeof xs);
          describe(d, got, gs, sizeof gs);
          describe(d, want, ws, sizeof ws);
          FAIL("%s(%s) lane %d: got %s, expected %s", name, xs, j, gs, ws);
        }
      }
    }
  }
  free(host_out);
  free(host_in);
  free(out_off);
  free(src);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_kernel_release(kern);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* All conversions from s to the destinations [d0, d1], every width and
 * mode, with and without _sat where the destination has it. */
static void run_all(int s, int d0, int d1) {
  conv *c = malloc(MAX_CONVS * 2 * sizeof *c);
  int nc = 0;
  for (int d = d0; d <= d1; d++)
    for (int sat = 0; sat <= is_integer(d); sat++)
      for (int mode = 0; mode < NMODES; mode++)
        for (int w = 0; w < NWIDTHS; w++) c[nc++] = (conv){d, sat, mode, w};
  run_convs(s, c, nc, NULL);
  free(c);
}

/* Wrap-around, and with _sat clamping to the destination's range; the
 * rounding modes change nothing. */
TEST(convert_integer_to_integer) {
  for (int s = CHAR; s <= ULONG; s++) run_all(s, CHAR, ULONG);
}

/* Rounding to an integer in each mode (rtz by default); with _sat, clamping
 * and NaN to 0. Out of range without _sat the result is undefined: it is
 * not checked, but converting it must not trap. */
TEST(convert_float_to_integer) {
  run_all(FLOAT, CHAR, ULONG);
  run_all(DOUBLE, CHAR, ULONG);
}

/* Round to nearest even by default; every mode correctly rounded, for the
 * integers that float (24 bits) or double (53 bits) cannot hold. */
TEST(convert_integer_to_float) {
  for (int s = CHAR; s <= ULONG; s++) run_all(s, FLOAT, DOUBLE);
}

/* double to float in each mode: ties, overflow to infinity or to FLT_MAX,
 * underflow to subnormals and zero; float to double and identities exact. */
TEST(convert_float_to_float) {
  run_all(FLOAT, FLOAT, DOUBLE);
  run_all(DOUBLE, FLOAT, DOUBLE);
}

/* The same conversions with optimization off: the library's code, not what
 * LLVM folds it into, gives the results. */
TEST(convert_unoptimized) {
  conv c[4 * NMODES * NWIDTHS];
  int nc = 0;
  for (int mode = 0; mode < NMODES; mode++)
    for (int w = 0; w < NWIDTHS; w++) {
      c[nc++] = (conv){INT, 1, mode, w};
      c[nc++] = (conv){ULONG, 1, mode, w};
      c[nc++] = (conv){FLOAT, 0, mode, w};
      c[nc++] = (conv){CHAR, 1, mode, w};
    }
  run_convs(DOUBLE, c, nc, "-cl-opt-disable");
  run_convs(LONG, c, nc, "-cl-opt-disable");
}

/* -cl-fast-relaxed-math relaxes arithmetic, not conversions: the library's
 * exact rounding (Fast2Sum, NaN to 0 with _sat) survives the option. */
TEST(convert_fast_relaxed_math) {
  conv c[4 * NMODES * NWIDTHS];
  int nc = 0;
  for (int mode = 0; mode < NMODES; mode++)
    for (int w = 0; w < NWIDTHS; w++) {
      c[nc++] = (conv){INT, 1, mode, w};
      c[nc++] = (conv){DOUBLE, 0, mode, w};
      c[nc++] = (conv){FLOAT, 0, mode, w};
      c[nc++] = (conv){UCHAR, 1, mode, w};
    }
  const char *fast = "-cl-fast-relaxed-math";
  run_convs(LONG, c, nc, fast);
  run_convs(ULONG, c, nc, fast);
  run_convs(DOUBLE, c, nc, fast);
}

/* One kernel that calls every convert_ function OpenCL C declares: it
 * builds and links, so none is missing from the library. */
TEST(convert_every_declaration_links) {
  char *src = NULL, dn[16], sn[16], name[48];
  size_t len = 0, cap = 0;
  appendf(&src, &len, &cap,
          "__kernel void k(__global const double16 *in,\n"
          "                __global double16 *out, int which) {\n"
          "  switch (which) {\n");
  int calls = 0;
  for (int d = 0; d < NTYPES; d++)
    for (int s = 0; s < NTYPES; s++)
      for (int w = 0; w < NWIDTHS; w++)
        for (int sat = 0; sat <= is_integer(d); sat++)
          for (int mode = 0; mode < NMODES; mode++) {
            int n = widths[w];
            vector_type(d, n, dn, sizeof dn);
            vector_type(s, n, sn, sizeof sn);
            conv_name(d, n, sat, mode, name, sizeof name);
            if (calls % CASE_SIZE == 0)
              appendf(&src, &len, &cap, "%s  case %d:\n",
                      calls ? "    break;\n" : "", calls / CASE_SIZE);
            appendf(&src, &len, &cap,
                    "    *(__global %s *)out = %s(*(__global const %s *)in);\n",
                    dn, name, sn);
            calls++;
          }
  appendf(&src, &len, &cap, "  }\n}\n");
  CHECK_EQ(calls, 5400);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, src, "-cl-opt-disable");
  weft_program_release(p);
  weft_context_release(ctx);
  free(src);
}

/* as_<type> reinterprets the bytes of any type as any other of the same
 * size (3-component vectors take the size of 4 and reinterpret among
 * themselves): every such pair, on bytes that include NaN patterns, which
 * must come through unchanged. */
TEST(as_type_every_pair) {
  enum { SIZE = 128 };
  unsigned char in[SIZE], *out;
  for (int i = 0; i < SIZE; i++) in[i] = (unsigned char)next_random();
  uint32_t snan = 0x7fa00001; /* a signalling NaN with a payload */
  uint64_t dnan = 0xfff4000000000123ULL;
  memcpy(in, &snan, 4);
  memcpy(in + 8, &dnan, 8);

  char *src = NULL, dn[16], sn[16];
  size_t len = 0, cap = 0;
  appendf(&src, &len, &cap,
          "__kernel void k(__global const uchar *restrict in,\n"
          "                __global uchar *restrict out) {\n");
  int pairs = 0;
  size_t sizes[512];
  char names[512][40];
  for (int d = 0; d < NTYPES; d++)
    for (int dw = 0; dw < NWIDTHS; dw++)
      for (int s = 0; s < NTYPES; s++)
        for (int sw = 0; sw < NWIDTHS; sw++) {
          int dn_ = widths[dw], sn_ = widths[sw];
          size_t dsize = (size_t)(types[d].size * slot(dn_));
          size_t ssize = (size_t)(types[s].size * slot(sn_));
          if (dsize != ssize || (dn_ == 3) != (sn_ == 3)) continue;
          vector_type(d, dn_, dn, sizeof dn);
          vector_type(s, sn_, sn, sizeof sn);
          appendf(&src, &len, &cap,
                  "  *(__global %s *)(out + %d) =\n"
                  "      as_%s(*(__global const %s *)in);\n",
                  dn, pairs * SIZE, dn, sn);
          snprintf(names[pairs], sizeof names[pairs], "as_%s(%s)", dn, sn);
          /* A 3-component vector's fourth element is not data. */
          sizes[pairs++] = dn_ == 3 ? 3 * (size_t)types[d].size : dsize;
        }
  appendf(&src, &len, &cap, "}\n");
  CHECK_EQ(pairs, 404);

  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, src, NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *bin = support_buffer(ctx, SIZE, in);
  weft_buffer *bout = support_buffer(ctx, (size_t)pairs * SIZE, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bin), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bout), k);
  size_t one = 1;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &one, NULL), k);
  out = malloc((size_t)pairs * SIZE);
  CHECK_OK(weft_buffer_read(bout, 0, (size_t)pairs * SIZE, out), bout);
  for (int i = 0; i < pairs; i++)
    if (memcmp(out + i * SIZE, in, sizes[i]))
      FAIL("%s changed the bytes", names[i]);
  free(out);
  free(src);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST_MAIN()
