/*
 * Geometric functions (OpenCL C 3.0, 6.15.5) for floats and doubles of 1 to
 * 4 components.
 */
#include "builtins.h"

#define WEFT_GEOMETRIC(T, S)                                                 \
  S WEFT_OVERLOAD dot(T x, T y) { return weft_sum(x * y); }                  \
  S WEFT_OVERLOAD length(T x) { return sqrt(dot(x, x)); }                    \
  S WEFT_OVERLOAD distance(T x, T y) { return length(x - y); }               \
  T WEFT_OVERLOAD normalize(T x) {                                           \
    S l = length(x);                                                         \
    return l == 0 ? x : x / l;                                               \
  }

static float WEFT_OVERLOAD weft_sum(float x) { return x; }
static float WEFT_OVERLOAD weft_sum(float2 x) { return x.x + x.y; }
static float WEFT_OVERLOAD weft_sum(float3 x) { return x.x + x.y + x.z; }
static float WEFT_OVERLOAD weft_sum(float4 x) { return (x.x + x.y) + (x.z + x.w); }
static double WEFT_OVERLOAD weft_sum(double x) { return x; }
static double WEFT_OVERLOAD weft_sum(double2 x) { return x.x + x.y; }
static double WEFT_OVERLOAD weft_sum(double3 x) { return x.x + x.y + x.z; }
static double WEFT_OVERLOAD weft_sum(double4 x) { return (x.x + x.y) + (x.z + x.w); }

WEFT_GEOMETRIC(float, float)
WEFT_GEOMETRIC(float2, float)
WEFT_GEOMETRIC(float3, float)
WEFT_GEOMETRIC(float4, float)
WEFT_GEOMETRIC(double, double)
WEFT_GEOMETRIC(double2, double)
WEFT_GEOMETRIC(double3, double)
WEFT_GEOMETRIC(double4, double)

#define WEFT_CROSS(T)                                                        \
  T WEFT_OVERLOAD cross(T a, T b) {                                          \
    T r = a.yzxw * b.zxyw - a.zxyw * b.yzxw;                                 \
    r.w = 0;                                                                 \
    return r;                                                                \
  }
WEFT_CROSS(float4)
WEFT_CROSS(double4)
float3 WEFT_OVERLOAD cross(float3 a, float3 b) { return a.yzx * b.zxy - a.zxy * b.yzx; }
double3 WEFT_OVERLOAD cross(double3 a, double3 b) { return a.yzx * b.zxy - a.zxy * b.yzx; }
