"""PyOpenCL on Weft: pyopencl.array, ElementwiseKernel, ReductionKernel,
GenericScanKernel and hand-written programs, each result checked against
NumPy (exactly for integers, with tight tolerances for floats).

Usage: test_pyopencl.py GROUP [--platform NAME] [--cache]

Each GROUP (see GROUPS below) is its own CTest test, so a failure names
what broke. The platform is chosen by name (default "Weft") among all those
the ICD loader lists; tests run with OCL_ICD_VENDORS pointing at a folder
that holds PoCL's .icd beside Weft's.

Without --cache, PYOPENCL_NO_CACHE must be set: every program is built from
source. With --cache, the group runs twice, each time in a fresh process
with PyOpenCL's on-disk cache under $XDG_CACHE_HOME (emptied first): the
first run builds from source and stores each program's binary
(clGetProgramInfo(CL_PROGRAM_BINARIES)), the second loads every program
from those binaries (clCreateProgramWithBinary). PyOpenCL quietly falls
back to a source build when the binary path fails; the test does not.
"""

import argparse
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

import pyopencl as cl
import pyopencl.array as cla
import pyopencl.cache
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import GenericScanKernel

# Sizes that are not powers of two (and one above 100k) catch edge cases in
# the work-group splitting of reductions and scans.
SIZES = [1, 7, 256, 1000, 4097, 100003]
RTOL32 = 1e-6   # a few ulp of float32
RTOL64 = 1e-13  # a few ulp of float64

# Filled by main(): the context and queue on the chosen platform.
ctx = None
queue = None


def rng(seed):
    return np.random.default_rng(seed)


def floats(n, seed, low=-10.0, high=10.0, dtype=np.float32):
    return rng(seed).uniform(low, high, n).astype(dtype)


def ints(n, seed, low=-1000, high=1000):
    return rng(seed).integers(low, high, n, dtype=np.int32)


def check_int(got, expected, what):
    got = got.get() if isinstance(got, cla.Array) else np.asarray(got)
    if got.dtype != expected.dtype:
        raise AssertionError(f"{what}: dtype {got.dtype}, expected "
                             f"{expected.dtype}")
    assert_array_equal(got, expected, err_msg=what)


def check_float(got, expected, what, rtol=RTOL32, atol=0.0):
    got = got.get() if isinstance(got, cla.Array) else np.asarray(got)
    assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=what)


# {{{ groups

def group_array_arith():
    """pyopencl.array element-wise arithmetic, comparisons, fill, arange,
    slicing and astype."""
    for n in SIZES:
        x, y = floats(n, 1), floats(n, 2, 0.5, 8.0)
        a, b = cla.to_device(queue, x), cla.to_device(queue, y)
        # +, -, * and / are single IEEE operations: NumPy gets the same bits.
        check_float(a + b, x + y, f"float a+b n={n}", rtol=0)
        check_float(a - b, x - y, f"float a-b n={n}", rtol=0)
        check_float(a * b, x * y, f"float a*b n={n}", rtol=0)
        check_float(a / b, x / y, f"float a/b n={n}", rtol=RTOL32)
        check_float(2.5 * a + 1, np.float32(2.5) * x + 1, f"2.5*a+1 n={n}",
                    rtol=RTOL32)
        check_float(a - 3, x - 3, f"a-3 n={n}", rtol=0)
        check_float(10 / b, 10 / y, f"10/b n={n}", rtol=RTOL32)
        check_float(-a, -x, f"-a n={n}", rtol=0)
        check_float(abs(a), np.abs(x), f"abs(a) n={n}", rtol=0)
        check_float(a ** 2, x ** 2, f"a**2 n={n}", rtol=RTOL32)
        check_float(cla.maximum(a, b), np.maximum(x, y), f"maximum n={n}",
                    rtol=0)
        # In-place operators write into the same buffer.
        c = a.copy()
        c += b
        c *= 2
        check_float(c, (x + y) * 2, f"in-place n={n}", rtol=0)

        i, j = ints(n, 3), ints(n, 4, 1, 50)
        ia, ja = cla.to_device(queue, i), cla.to_device(queue, j)
        check_int(ia + ja, i + j, f"int a+b n={n}")
        check_int(ia - ja, i - j, f"int a-b n={n}")
        check_int(ia * ja, i * j, f"int a*b n={n}")
        check_int(ia * 3 - 7, i * 3 - 7, f"int a*3-7 n={n}")
        check_int(ia & ja, i & j, f"int a&b n={n}")

        # Comparisons give int8 masks of 0 and 1, as in PyOpenCL's docs.
        for name, got, expected in [
                ("a<b", a < b, x < y), ("a<=b", a <= b, x <= y),
                ("a>b", a > b, x > y), ("a>=0", a >= 0, x >= 0),
                ("a==a", a == a, x == x), ("a!=b", a != b, x != y),
                ("int a==b", ia == ja, i == j), ("int a<5", ia < 5, i < 5)]:
            got = got.get()
            assert_array_equal(got != 0, expected, err_msg=f"{name} n={n}")

    f = cla.empty(queue, 5000, np.float32)
    f.fill(np.float32(3.25))
    check_float(f, np.full(5000, 3.25, np.float32), "fill float", rtol=0)
    g = cla.zeros(queue, 4097, np.int32)
    check_int(g, np.zeros(4097, np.int32), "zeros int")
    g.fill(-17)
    check_int(g, np.full(4097, -17, np.int32), "fill int")

    check_int(cla.arange(queue, 0, 100003, 1, dtype=np.int32),
              np.arange(0, 100003, 1, dtype=np.int32), "arange int")
    check_float(cla.arange(queue, 0.0, 100.0, 0.25, dtype=np.float32),
                np.arange(0.0, 100.0, 0.25, dtype=np.float32),
                "arange float", rtol=0)

    x = floats(10000, 5)
    a = cla.to_device(queue, x)
    check_float(a[100:7000], x[100:7000], "slice get", rtol=0)
    check_float(a[100:7000] * 2, x[100:7000] * 2, "slice arithmetic", rtol=0)
    s = a[1000:2000]
    s.fill(1.5)
    x[1000:2000] = 1.5
    check_float(a, x, "fill through a slice", rtol=0)
    check_float(a.astype(np.float64), x.astype(np.float64), "astype float64",
                rtol=0)
    check_int(a.astype(np.int32), x.astype(np.int32), "astype int32")
    i = ints(10000, 6)
    check_float(cla.to_device(queue, i).astype(np.float32),
                i.astype(np.float32), "int astype float32", rtol=0)


def group_array_reduce():
    """cla.sum, cla.dot, cla.max and cla.min."""
    for n in SIZES + [1 << 20]:
        x, y = floats(n, 10), floats(n, 11)
        a, b = cla.to_device(queue, x), cla.to_device(queue, y)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        # Summation order differs from NumPy's: compare with the float64
        # sum, scaled by the sum of magnitudes (the bound on rounding).
        scale = np.abs(x64).sum()
        check_float(cla.sum(a).get(), x64.sum(), f"sum n={n}", rtol=0,
                    atol=1e-6 * scale)
        check_float(cla.dot(a, b).get(), np.dot(x64, y64), f"dot n={n}",
                    rtol=0, atol=1e-6 * np.abs(x64 * y64).sum())
        check_float(cla.max(a).get(), x.max(), f"max n={n}", rtol=0)
        check_float(cla.min(a).get(), x.min(), f"min n={n}", rtol=0)

        i, j = ints(n, 12), ints(n, 13)
        ia, ja = cla.to_device(queue, i), cla.to_device(queue, j)
        assert int(cla.sum(ia).get()) == int(i.astype(np.int64).sum()), \
            f"int sum n={n}: {cla.sum(ia).get()} != {i.sum()}"
        got = int(cla.dot(ia, ja, dtype=np.int64).get())
        assert got == int(np.dot(i.astype(np.int64), j)), f"int dot n={n}"
        assert int(cla.max(ia).get()) == int(i.max()), f"int max n={n}"
        assert int(cla.min(ia).get()) == int(i.min()), f"int min n={n}"


def group_elementwise():
    """ElementwiseKernel on float32 (with math builtins) and int32."""
    fk = ElementwiseKernel(
        ctx, "float a, __global const float *x, __global const float *y, "
        "__global float *z",
        "z[i] = a * sin(x[i]) + exp(y[i] / 4.0f) + sqrt(fabs(x[i]))"
        " - cos(y[i]) * log(1.0f + fabs(x[i]))",
        "weft_elwise_float")
    ik = ElementwiseKernel(
        ctx, "__global const int *x, __global const int *y, __global int *z",
        "z[i] = x[i] * y[i] - (x[i] >> 2) + (x[i] ^ y[i]) + max(x[i], y[i])"
        " + abs(x[i]) % 7",
        "weft_elwise_int")
    for n in SIZES:
        x, y = floats(n, 20), floats(n, 21)
        a, b = cla.to_device(queue, x), cla.to_device(queue, y)
        z = cla.empty_like(a)
        fk(np.float32(1.5), a, b, z).wait()
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        expected = (1.5 * np.sin(x64) + np.exp(y64 / 4) + np.sqrt(np.abs(x64))
                    - np.cos(y64) * np.log1p(np.abs(x64)))
        # OpenCL allows a few ulp per builtin; the terms are at most ~15.
        check_float(z, expected, f"float elementwise n={n}", rtol=1e-5,
                    atol=1e-5)

        i, j = ints(n, 22), ints(n, 23)
        ia, ja = cla.to_device(queue, i), cla.to_device(queue, j)
        iz = cla.empty_like(ia)
        ik(ia, ja, iz)
        expected = (i * j - (i >> 2) + (i ^ j) + np.maximum(i, j)
                    + np.abs(i) % 7).astype(np.int32)
        check_int(iz, expected, f"int elementwise n={n}")

    # A range of the array only (PyOpenCL's slice argument).
    x = floats(5000, 24)
    a = cla.to_device(queue, x)
    z = cla.zeros(queue, 5000, np.float32)
    fk(np.float32(0.0), a, a, z, slice=slice(1000, 3000))
    expected = np.zeros(5000)
    x64 = x[1000:3000].astype(np.float64)
    expected[1000:3000] = (np.exp(x64 / 4) + np.sqrt(np.abs(x64))
                           - np.cos(x64) * np.log1p(np.abs(x64)))
    check_float(z, expected, "elementwise on a range", rtol=1e-5, atol=1e-5)


def group_reduction():
    """ReductionKernel: a sum, a dot product through map_expr, a max."""
    fsum = ReductionKernel(ctx, np.float32, neutral="0",
                           reduce_expr="a+b", map_expr="x[i]",
                           arguments="__global const float *x")
    fdot = ReductionKernel(ctx, np.float32, neutral="0",
                           reduce_expr="a+b", map_expr="x[i]*y[i]",
                           arguments="__global const float *x, "
                           "__global const float *y")
    isum = ReductionKernel(ctx, np.int64, neutral="0",
                           reduce_expr="a+b", map_expr="(long)x[i]",
                           arguments="__global const int *x")
    imax = ReductionKernel(ctx, np.int32, neutral="INT_MIN",
                           reduce_expr="max(a, b)", map_expr="x[i]",
                           arguments="__global const int *x")
    fmax_ = ReductionKernel(ctx, np.float32, neutral="-INFINITY",
                            reduce_expr="fmax(a, b)", map_expr="fabs(x[i])",
                            arguments="__global const float *x")
    for n in SIZES + [1 << 20]:
        x, y = floats(n, 30), floats(n, 31)
        a, b = cla.to_device(queue, x), cla.to_device(queue, y)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        check_float(fsum(a).get(), x64.sum(), f"sum n={n}", rtol=0,
                    atol=1e-6 * np.abs(x64).sum())
        check_float(fdot(a, b).get(), np.dot(x64, y64), f"dot n={n}",
                    rtol=0, atol=1e-6 * np.abs(x64 * y64).sum())
        check_float(fmax_(a).get(), np.abs(x).max(), f"max |x| n={n}",
                    rtol=0)
        i = ints(n, 32, -(1 << 30), 1 << 30)
        ia = cla.to_device(queue, i)
        assert int(isum(ia).get()) == int(i.astype(np.int64).sum()), \
            f"int64 sum n={n}"
        assert int(imax(ia).get()) == int(i.max()), f"int max n={n}"


def group_scan():
    """GenericScanKernel: inclusive and exclusive prefix sums of int32."""
    inclusive = GenericScanKernel(
        ctx, np.int32, arguments="__global const int *in, __global int *out",
        input_expr="in[i]", scan_expr="a+b", neutral="0",
        output_statement="out[i] = item;")
    exclusive = GenericScanKernel(
        ctx, np.int32, arguments="__global const int *in, __global int *out",
        input_expr="in[i]", scan_expr="a+b", neutral="0",
        output_statement="out[i] = prev_item;")
    # Values and sizes keep the sums inside int32.
    for n in [1, 2, 7, 100, 255, 256, 257, 1000, 4097, 65536, 100003,
              262147, 1000003]:
        x = ints(n, 40, -100, 1000)
        a = cla.to_device(queue, x)
        out = cla.empty_like(a)
        inclusive(a, out)
        expected = np.cumsum(x, dtype=np.int32)
        check_int(out, expected, f"inclusive scan n={n}")
        out.fill(12345)
        exclusive(a, out)
        expected = np.concatenate(([0], expected[:-1])).astype(np.int32)
        check_int(out, expected, f"exclusive scan n={n}")


def group_float64():
    """pyopencl.array, reductions and an ElementwiseKernel on float64."""
    k = ElementwiseKernel(
        ctx, "__global const double *x, __global double *z",
        "z[i] = sin(x[i]) * exp(-x[i] * x[i]) + sqrt(1.0 + x[i] * x[i])",
        "weft_elwise_double")
    for n in SIZES:
        x = floats(n, 50, -5.0, 5.0, np.float64)
        y = floats(n, 51, 0.5, 4.0, np.float64)
        a, b = cla.to_device(queue, x), cla.to_device(queue, y)
        check_float(a + b, x + y, f"double a+b n={n}", rtol=0)
        check_float(a * b - 2, x * y - 2, f"double a*b-2 n={n}", rtol=0)
        check_float(a / b, x / y, f"double a/b n={n}", rtol=0)
        check_float(3 / b, 3 / y, f"double 3/b n={n}", rtol=0)
        check_float(cla.sum(a).get(), x.sum(), f"double sum n={n}", rtol=0,
                    atol=1e-13 * np.abs(x).sum())
        check_float(cla.dot(a, b).get(), np.dot(x, y), f"double dot n={n}",
                    rtol=0, atol=1e-13 * np.abs(x * y).sum())
        assert cla.max(a).get() == x.max(), f"double max n={n}"
        assert cla.min(a).get() == x.min(), f"double min n={n}"
        z = cla.empty_like(a)
        k(a, z)
        expected = np.sin(x) * np.exp(-x * x) + np.sqrt(1 + x * x)
        check_float(z, expected, f"double elementwise n={n}", rtol=RTOL64,
                    atol=1e-15)
        check_int(a.astype(np.int32), x.astype(np.int32),
                  f"double astype int32 n={n}")


LOCAL_SOURCE = """
// A tree reduction in local memory: one partial sum per work-group.
__kernel void group_sum(__global const float *in, __global float *partial,
                        __local float *scratch) {
  size_t lid = get_local_id(0), n = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s /= 2) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

// Reverses each work-group's slice through a kernel-scope __local array.
__kernel void reverse_in_group(__global int *a) {
  __local int tile[256];
  size_t lid = get_local_id(0), n = get_local_size(0);
  tile[lid] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  a[get_global_id(0)] = tile[n - 1 - lid];
}
"""


def group_program_local():
    """A hand-written cl.Program with __local memory and barrier()."""
    prg = cl.Program(ctx, LOCAL_SOURCE).build()
    for local in [1, 16, 64, 256]:
        groups = 37
        n = local * groups
        # Small integers in float: every order of summation is exact.
        x = rng(60).integers(-50, 50, n).astype(np.float32)
        mf = cl.mem_flags
        src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
        partial = cl.Buffer(ctx, mf.WRITE_ONLY, groups * 4)
        prg.group_sum(queue, (n,), (local,), src, partial,
                      cl.LocalMemory(local * 4))
        got = np.empty(groups, np.float32)
        cl.enqueue_copy(queue, got, partial)
        check_float(got, x.reshape(groups, local).sum(axis=1),
                    f"group_sum local={local}", rtol=0)

        i = ints(n, 61)
        buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=i)
        knl = prg.reverse_in_group
        knl(queue, (n,), (local,), buf)
        got = np.empty_like(i)
        cl.enqueue_copy(queue, got, buf)
        check_int(got, i.reshape(groups, local)[:, ::-1].reshape(n),
                  f"reverse_in_group local={local}")
    info = prg.get_info(cl.program_info.KERNEL_NAMES)
    assert set(info.split(";")) == {"group_sum", "reverse_in_group"}, info


def group_copy_events():
    """cl.enqueue_copy both ways and between buffers, events and wait()."""
    mf = cl.mem_flags
    n = 100003
    x = floats(n, 70)
    buf = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    ev = cl.enqueue_copy(queue, buf, x, is_blocking=False)
    ev.wait()
    assert ev.command_execution_status == cl.command_execution_status.COMPLETE
    back = np.zeros_like(x)
    ev = cl.enqueue_copy(queue, back, buf, is_blocking=False, wait_for=[ev])
    ev.wait()
    check_float(back, x, "host -> device -> host", rtol=0)

    # Offsets on both sides, then a device-to-device copy.
    part = np.empty(1000, np.float32)
    cl.enqueue_copy(queue, part, buf, src_offset=4 * 500)
    check_float(part, x[500:1500], "read at an offset", rtol=0)
    cl.enqueue_copy(queue, buf, np.full(10, -1.0, np.float32),
                    dst_offset=4 * 20)
    x[20:30] = -1.0
    other = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    e1 = cl.enqueue_copy(queue, other, buf, byte_count=x.nbytes)
    e2 = cl.enqueue_copy(queue, back, other, wait_for=[e1], is_blocking=False)
    cl.wait_for_events([e1, e2])
    check_float(back, x, "device -> device", rtol=0)

    # A kernel between the copies, ordered by events; then a marker.
    prg = cl.Program(ctx, """
        __kernel void twice(__global float *a) { a[get_global_id(0)] *= 2; }
        """).build()
    e_in = cl.enqueue_copy(queue, buf, x, is_blocking=False)
    e_k = prg.twice(queue, (n,), None, buf, wait_for=[e_in])
    e_out = cl.enqueue_copy(queue, back, buf, is_blocking=False,
                            wait_for=[e_k])
    marker = cl.enqueue_marker(queue, wait_for=[e_out])
    marker.wait()
    for e in (e_in, e_k, e_out, marker):
        assert e.command_execution_status == \
            cl.command_execution_status.COMPLETE, e
    check_float(back, 2 * x, "copy, kernel, copy with events", rtol=0)
    assert e_k.command_type == cl.command_type.NDRANGE_KERNEL

    # Profiling information on a profiling queue.
    pq = cl.CommandQueue(
        ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    ev = prg.twice(pq, (n,), None, buf)
    ev.wait()
    assert ev.profile.queued <= ev.profile.submit <= ev.profile.start \
        <= ev.profile.end, (ev.profile.queued, ev.profile.submit,
                            ev.profile.start, ev.profile.end)
    queue.finish()


def group_svm():
    """Coarse-grained SVM: pyopencl.svm_empty arrays written by the host,
    passed to kernels (cl.SVM), copied and filled with enqueue_copy and
    enqueue_fill, read back through maps."""
    dev = ctx.devices[0]
    assert dev.svm_capabilities & \
        cl.device_svm_capabilities.COARSE_GRAIN_BUFFER, dev.svm_capabilities
    n = 4097
    prg = cl.Program(ctx, """
        __kernel void axpy(float a, __global const float *x,
                           __global float *y) {
          y[get_global_id(0)] += a * x[get_global_id(0)];
        }
        """).build()
    x = floats(n, 80)
    xs = cl.svm_empty(ctx, cl.svm_mem_flags.READ_ONLY, n, np.float32)
    ys = cl.svm_empty(ctx, cl.svm_mem_flags.READ_WRITE, n, np.float32,
                      alignment=4096)
    with cl.SVM(xs).map_rw(queue) as mapped:
        mapped[:] = x
    cl.enqueue_fill(queue, cl.SVM(ys), np.float32(1.5), n * 4)
    prg.axpy(queue, (n,), None, np.float32(2), cl.SVM(xs), cl.SVM(ys))
    with cl.SVM(ys).map_ro(queue) as mapped:
        check_float(mapped, 1.5 + 2 * x, "axpy on SVM arrays")
    back = np.empty(n, np.float32)
    cl.enqueue_copy(queue, back, cl.SVM(ys))
    check_float(back, 1.5 + 2 * x, "SVM -> host copy", rtol=0)
    queue.finish()


def group_images():
    """Images and samplers as PyOpenCL makes them: image_from_array, Image
    with a format, Sampler objects, enqueue_copy between NumPy and images,
    a kernel that samples one image (nearest and bilinear) and writes
    another, each result checked against NumPy."""
    formats = cl.get_supported_image_formats(
        ctx, cl.mem_flags.READ_ONLY, cl.mem_object_type.IMAGE2D)
    assert any(f.channel_order == cl.channel_order.RGBA and
               f.channel_data_type == cl.channel_type.FLOAT
               for f in formats), formats
    h, w = 37, 53
    src = floats(h * w * 4, 90, 0.0, 1.0).reshape(h, w, 4)
    image = cl.image_from_array(ctx, src, num_channels=4)
    assert image.shape == (w, h), image.shape
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    out = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, fmt, shape=(w, h))
    prg = cl.Program(ctx, """
        __kernel void sample(read_only image2d_t src, sampler_t s,
                             write_only image2d_t dst, float dx, float dy,
                             int normalized) {
          int x = get_global_id(0), y = get_global_id(1);
          float2 at = (float2)(x + dx, y + dy);
          if (normalized) at /= (float2)(get_image_width(src),
                                         get_image_height(src));
          write_imagef(dst, (int2)(x, y), read_imagef(src, s, at));
        }
        """).build()
    nearest = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE,
                         cl.filter_mode.NEAREST)
    prg.sample(queue, (w, h), None, image, nearest, out, np.float32(0.5),
               np.float32(0.5), np.int32(0))
    got = np.empty_like(src)
    cl.enqueue_copy(queue, got, out, origin=(0, 0), region=(w, h))
    check_float(got, src, "nearest sampling at element centres", rtol=0)
    # Bilinear, normalized: half way between elements in x, a quarter in
    # y; the last row and column clamp to the edge.
    linear = cl.Sampler(ctx, True, cl.addressing_mode.CLAMP_TO_EDGE,
                        cl.filter_mode.LINEAR)
    prg.sample(queue, (w, h), None, image, linear, out, np.float32(1.0),
               np.float32(0.75), np.int32(1))
    cl.enqueue_copy(queue, got, out, origin=(0, 0), region=(w, h))
    x1 = np.minimum(np.arange(w) + 1, w - 1)
    y1 = np.minimum(np.arange(h) + 1, h - 1)
    row = 0.5 * src[:, :, :] + 0.5 * src[:, x1, :]
    expected = 0.75 * row + 0.25 * row[y1, :, :]
    check_float(got, expected, "bilinear sampling", rtol=1e-5, atol=1e-6)
    # An 8-bit image written by the host, read back by a kernel as floats.
    bytes8 = ints(h * w * 4, 91, 0, 256).astype(np.uint8).reshape(h, w, 4)
    fmt8 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
    image8 = cl.Image(ctx, cl.mem_flags.READ_ONLY, fmt8, shape=(w, h))
    cl.enqueue_copy(queue, image8, bytes8, origin=(0, 0), region=(w, h))
    prg.sample(queue, (w, h), None, image8, nearest, out, np.float32(0.5),
               np.float32(0.5), np.int32(0))
    cl.enqueue_copy(queue, got, out, origin=(0, 0), region=(w, h))
    check_float(got, bytes8.astype(np.float32) / 255, "UNORM_INT8 as floats",
                rtol=1e-6)
    queue.finish()


def group_program_scope_vars():
    """Programs with the same program-scope variables, alive at once.

    Each program is its own namespace. PyOpenCL depends on it: its cache
    appends '__constant int pyopencl_defeat_cache_<uuid> = 0;' to a source,
    and loading that binary twice gives two programs that both define it.
    """
    sources = {
        "__constant": "__constant int offset = 5;\n",
        "__global (CL2.0)": "__global int offset = 5;\n",
        "unused __constant": "__constant int unused_here = 0;\n"
                             "#define offset 5\n",
    }
    for what, decls in sources.items():
        options = "-cl-std=CL2.0" if "CL2.0" in what else ""
        src = decls + """
            __kernel void add_offset(__global int *a) {
              a[get_global_id(0)] += offset;
            }
            """
        programs = [cl.Program(ctx, src).build(options) for _ in range(3)]
        # One more from the first one's binary, as PyOpenCL's cache does.
        binary = programs[0].get_info(cl.program_info.BINARIES)[0]
        programs.append(cl.Program(ctx, ctx.devices, [binary]).build(options))
        # And one in a second context.
        ctx2 = cl.Context(ctx.devices)
        queue2 = cl.CommandQueue(ctx2)
        programs.append(cl.Program(ctx2, src).build(options))
        for index, prg in enumerate(programs):
            q = queue2 if prg.get_info(cl.program_info.CONTEXT) == ctx2 \
                else queue
            x = ints(1000, 80 + index)
            a = cla.to_device(q, x)
            prg.add_offset(q, (1000,), None, a.data)
            check_int(a, x + 5, f"{what}: program {index}")


def group_clmath():
    """pyopencl.clmath: the unary and binary math functions, float32 and
    float64, against NumPy (or Python's math module, in float64)."""
    import math
    import pyopencl.clmath as clm
    r = rng(90)
    wide = r.uniform(-20, 20, 4097)
    wide[:8] = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-3]
    unit = r.uniform(-1, 1, 4097)
    pos = r.uniform(1e-3, 50, 4097)
    above1 = r.uniform(1, 50, 4097)
    small = r.uniform(-4, 4, 4097)
    gam = r.uniform(0.1, 10, 4097)
    vec = np.vectorize
    functions = [
        ("sin", wide, np.sin), ("cos", wide, np.cos), ("tan", unit, np.tan),
        ("asin", unit, np.arcsin), ("acos", unit, np.arccos),
        ("atan", wide, np.arctan), ("sinh", small, np.sinh),
        ("cosh", small, np.cosh), ("tanh", wide, np.tanh),
        ("asinh", wide, np.arcsinh), ("acosh", above1, np.arccosh),
        ("atanh", unit * 0.99, np.arctanh),
        ("exp", small * 4, np.exp), ("exp2", small * 4, np.exp2),
        ("exp10", small, lambda v: 10.0 ** v), ("expm1", small, np.expm1),
        ("log", pos, np.log), ("log2", pos, np.log2),
        ("log10", pos, np.log10), ("log1p", pos, np.log1p),
        ("sqrt", pos, np.sqrt), ("cbrt", wide, np.cbrt),
        ("ceil", wide, np.ceil), ("floor", wide, np.floor),
        ("trunc", wide, np.trunc), ("rint", wide, np.rint),
        # OpenCL's round() takes halves away from zero.
        ("round", wide, lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)),
        ("fabs", wide, np.abs),
        ("sinpi", unit * 4, lambda v: np.sin(np.pi * v)),
        ("cospi", unit * 4, lambda v: np.cos(np.pi * v)),
        ("erf", small, vec(math.erf)), ("erfc", small, vec(math.erfc)),
        ("tgamma", gam, vec(math.gamma)), ("lgamma", gam, vec(math.lgamma)),
    ]
    # Every function is checked, and the failures listed together: a
    # missing builtin fails the build of its kernel only.
    failures = []

    def check(what, compute, expected, rtol, atol=0.0):
        try:
            check_float(compute(), expected, what, rtol=rtol, atol=atol)
        except Exception as e:  # a build failure or a wrong result
            lines = [ln for ln in str(e).splitlines()
                     if "error" in ln or "Mismatch" in ln or "Max" in ln]
            failures.append(f"{what}: {type(e).__name__}: "
                            + " / ".join(lines[:3] or [str(e)[:300]]))

    for dtype, rtol, atol in [(np.float32, 1e-5, 1e-6),
                              (np.float64, 1e-12, 1e-14)]:
        t = np.dtype(dtype)
        for name, x, ref in functions:
            x = x.astype(dtype)
            check(f"clmath.{name} {t}",
                  lambda: getattr(clm, name)(cla.to_device(queue, x)),
                  ref(x.astype(np.float64)), rtol, atol)
        x, y = wide.astype(dtype), pos.astype(dtype)
        a, b = cla.to_device(queue, x), cla.to_device(queue, y)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        check(f"clmath.atan2 {t}", lambda: clm.atan2(a, b),
              np.arctan2(x64, y64), rtol, atol)
        # fmod, ldexp and modf are exact in IEEE arithmetic.
        check(f"clmath.fmod {t}", lambda: clm.fmod(a, b), np.fmod(x, y), 0)
        e = ints(4097, 91, -10, 10)
        check(f"clmath.ldexp {t}",
              lambda: clm.ldexp(a, cla.to_device(queue, e)), np.ldexp(x, e), 0)
        check(f"clmath.modf {t}", lambda: np.stack([
              part.get() for part in clm.modf(a)]), np.stack(np.modf(x)), 0)
    if failures:
        raise AssertionError(f"{len(failures)} clmath checks failed:\n"
                             + "\n".join(failures))


def group_clrandom():
    """pyopencl.clrandom: Philox and Threefry generators, uniform and
    normal, in float32 and float64. No NumPy generator matches their
    streams: the checks are statistical, plus reproducibility by seed."""
    import pyopencl.clrandom as clr
    n = 1 << 18
    for gen in (clr.PhiloxGenerator, clr.ThreefryGenerator):
        for dtype in (np.float32, np.float64):
            what = f"{gen.__name__} {np.dtype(dtype)}"
            u = gen(ctx, seed=7).uniform(queue, n, dtype, a=2, b=5).get()
            again = gen(ctx, seed=7).uniform(queue, n, dtype, a=2, b=5).get()
            assert_array_equal(u, again, err_msg=f"{what}: same seed")
            assert u.dtype == dtype, what
            assert 2 <= u.min() and u.max() <= 5, (what, u.min(), u.max())
            # Means and spreads within 6 standard errors.
            assert abs(u.mean() - 3.5) < 6 * 3 / np.sqrt(12 * n), \
                (what, u.mean())
            hist = np.histogram(u, bins=16, range=(2, 5))[0]
            assert hist.min() > n / 16 * 0.95, (what, hist)
            z = gen(ctx, seed=8).normal(queue, n, dtype, mu=1, sigma=2).get()
            assert abs(z.mean() - 1) < 6 * 2 / np.sqrt(n), (what, z.mean())
            assert abs(z.std() - 2) < 0.02, (what, z.std())
    # Unseeded (a new seed each run), and in float32: a value within 2^-25
    # of 1 rounds to 1.0 (it did once in about 120 runs), so 1 is allowed.
    x = clr.rand(queue, n, np.float32).get()
    assert 0 <= x.min() and x.max() <= 1 and abs(x.mean() - 0.5) < 0.005, \
        ("clrandom.rand", x.min(), x.max(), x.mean())


def group_algorithm():
    """pyopencl.algorithm and sorting: copy_if, remove_if, partition,
    unique, cla.cumsum, RadixSort and BitonicSort."""
    from pyopencl.algorithm import (RadixSort, copy_if, partition,
                                    remove_if, unique)
    from pyopencl.bitonic_sort import BitonicSort
    for n in [1, 1000, 100003]:
        x = ints(n, 100, 0, 1000)
        a = cla.to_device(queue, x)
        out, count, _ = copy_if(a, "ary[i] > 600")
        check_int(out[:int(count.get())], x[x > 600], f"copy_if n={n}")
        out, count, _ = remove_if(a, "ary[i] > 600")
        check_int(out[:int(count.get())], x[x <= 600], f"remove_if n={n}")
        true_, false_, count, _ = partition(a, "ary[i] % 3 == 0")
        c = int(count.get())
        check_int(true_[:c], x[x % 3 == 0], f"partition true n={n}")
        check_int(false_[:n - c], x[x % 3 != 0], f"partition false n={n}")
        s = np.sort(x)
        out, count, _ = unique(cla.to_device(queue, s))
        check_int(out[:int(count.get())], np.unique(s), f"unique n={n}")
        check_int(cla.cumsum(a), np.cumsum(x, dtype=np.int32),
                  f"cumsum n={n}")

    sort = RadixSort(ctx, "__global int *keys, __global int *values",
                     key_expr="keys[i]", sort_arg_names=["keys", "values"])
    for n in [7, 4097, 100003]:
        keys = ints(n, 101, 0, 1 << 20)
        values = np.arange(n, dtype=np.int32)
        (k, v), _ = sort(cla.to_device(queue, keys),
                         cla.to_device(queue, values), key_bits=20)
        order = np.argsort(keys, kind="stable")
        check_int(k, keys[order], f"RadixSort keys n={n}")
        check_int(v, values[order], f"RadixSort values n={n}")

    bitonic = BitonicSort(ctx)
    for n in [2, 1024, 1 << 16]:
        x = floats(n, 102)
        a = cla.to_device(queue, x)
        bitonic(a)
        check_float(a, np.sort(x), f"BitonicSort n={n}", rtol=0)


GROUPS = {name[len("group_"):]: f for name, f in globals().items()
          if name.startswith("group_")}

# }}}


class CacheRecorder:
    """Wraps PyOpenCL's cached build to record, per program, whether it
    came from the cache (PyOpenCL imports the function at each build), and
    the low-level builds to keep the errors that PyOpenCL swallows when it
    falls back from a binary to the source."""

    def __init__(self):
        self.was_cached = []
        self.build_errors = []
        self.inner = pyopencl.cache.create_built_program_from_source_cached
        pyopencl.cache.create_built_program_from_source_cached = self
        build = cl._cl._Program.build

        def recording_build(prg, *args, **kwargs):
            try:
                return build(prg, *args, **kwargs)
            except cl.Error as e:
                self.build_errors.append(str(e))
                raise
        cl._cl._Program.build = recording_build

    def __call__(self, *args, **kwargs):
        prg, was_cached = self.inner(*args, **kwargs)
        self.was_cached.append(was_cached)
        return prg, was_cached


def choose_platform(name):
    platforms = cl.get_platforms()
    names = [p.name for p in platforms]
    chosen = [p for p in platforms if p.name == name]
    if not chosen:
        sys.exit(f"test_pyopencl: no platform named {name!r} among {names} "
                 f"(OCL_ICD_VENDORS={os.environ.get('OCL_ICD_VENDORS')})")
    return chosen[0]


def run_group(args):
    global ctx, queue
    platform = choose_platform(args.platform)
    ctx = cl.Context(platform.get_devices())
    queue = cl.CommandQueue(ctx)
    recorder = CacheRecorder() if args.phase else None
    print(f"{args.group} on {platform.name}: {ctx.devices[0].name}"
          + (f" ({args.phase} cache)" if args.phase else ""))
    GROUPS[args.group]()
    queue.finish()
    if args.phase:
        # Every program must have come from the cache on the warm run. The
        # cold run builds from source (a group may build one source twice:
        # the second comes from the cache already).
        built = recorder.was_cached
        if not built:
            sys.exit("test_pyopencl: no program went through the cache")
        if args.phase == "cold" and built[0]:
            sys.exit(f"test_pyopencl: the cold run found a cached program: "
                     f"{built}")
        if recorder.build_errors:
            sys.exit("test_pyopencl: builds failed, and PyOpenCL built "
                     "those programs again from source:\n"
                     + "\n".join(recorder.build_errors))
        if args.phase == "warm" and not all(built):
            sys.exit("test_pyopencl: the warm run rebuilt programs from "
                     f"source instead of loading their binaries: {built}")
        print(f"{len(built)} programs, {args.phase} cache: ok")
    print(f"{args.group}: ok")


def run_cached(args):
    """Runs the group twice in fresh processes: cold cache, then warm."""
    cache_home = os.environ.get("XDG_CACHE_HOME")
    if not cache_home:
        sys.exit("test_pyopencl: --cache needs XDG_CACHE_HOME (a folder the "
                 "test may empty)")
    shutil.rmtree(cache_home, ignore_errors=True)
    os.makedirs(cache_home)
    env = dict(os.environ)
    env.pop("PYOPENCL_NO_CACHE", None)
    for phase in ("cold", "warm"):
        rc = subprocess.call([sys.executable, __file__, args.group,
                              "--platform", args.platform, "--phase", phase],
                             env=env)
        if rc != 0:
            sys.exit(f"test_pyopencl: {args.group}, {phase} cache: "
                     f"exit status {rc}")
        binaries = [os.path.join(d, "binary")
                    for d, _, files in os.walk(cache_home)
                    if "binary" in files]
        if not binaries or not all(os.path.getsize(b) > 0 for b in binaries):
            sys.exit("test_pyopencl: PyOpenCL stored no program binaries "
                     f"under {cache_home}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--platform", default="Weft")
    parser.add_argument("--cache", action="store_true",
                        help="run twice, through PyOpenCL's binary cache")
    parser.add_argument("--phase", choices=["cold", "warm"],
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    # PyOpenCL turns a failure of its binary cache into a warning and
    # builds from source: make it an error, and every other warning too.
    warnings.simplefilter("error")
    # A build that succeeds with warnings in its log is not a failure.
    warnings.filterwarnings("ignore", category=cl.CompilerWarning)
    if args.cache:
        run_cached(args)
    elif args.phase:
        run_group(args)
    else:
        if "PYOPENCL_NO_CACHE" not in os.environ:
            sys.exit("test_pyopencl: set PYOPENCL_NO_CACHE=1, or use --cache")
        run_group(args)


if __name__ == "__main__":
    main()
