"""cl_weft_schedule from PyOpenCL, in one process: a sweep of schedule
seeds (WEFT_SCHEDULE=random-deep, set by the test's environment) over a
test-then-set lock, each seed set by clEnqueueScheduleSeedWEFT through
ctypes, finds a seed that loses an update, and that seed, set again,
loses the same; a compare-and-swap lock passes every seed. The extension
function comes from clGetExtensionFunctionAddressForPlatform of the
ICD loader, as any PyOpenCL program can get it.

Usage: test_pyopencl_schedule.py KERNELS_DIR (exit 77: skipped, when the
first device is a GPU)
"""

import ctypes
import os
import sys

import numpy as np
import pyopencl as cl

SEEDS = 200
GROUPS = 8


def seed_function(platform):
    loader = ctypes.CDLL("libOpenCL.so.1")
    find = loader.clGetExtensionFunctionAddressForPlatform
    find.restype = ctypes.c_void_p
    find.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    address = find(platform.int_ptr, b"clEnqueueScheduleSeedWEFT")
    if not address:
        sys.exit("clEnqueueScheduleSeedWEFT not found")
    kind = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                            ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p)
    return kind(address)


def counter_after(ctx, queue, kernel, set_seed, seed):
    """The counter the lock guards after one launch under seed."""
    zero = np.zeros(1, np.int32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    lock = cl.Buffer(ctx, flags, hostbuf=zero)
    count = cl.Buffer(ctx, flags, hostbuf=zero)
    assert set_seed(queue.int_ptr, seed, 0, None, None) == 0
    kernel(queue, (2 * GROUPS,), (2,), lock, count)
    out = np.empty(1, np.int32)
    cl.enqueue_copy(queue, out, count)
    return int(out[0])


def main():
    kernels = sys.argv[1]
    platform = [p for p in cl.get_platforms() if p.name == "Weft"][0]
    device = platform.get_devices()[0]
    if device.type != cl.device_type.CPU:
        print("skipped: schedule exploration is the CPU's; the first device "
              "is a GPU (WEFT_DEVICE)")
        sys.exit(77)
    ctx = cl.Context(devices=[device])
    queue = cl.CommandQueue(ctx)
    set_seed = seed_function(platform)

    def build(name):
        with open(os.path.join(kernels, name + ".cl")) as f:
            program = cl.Program(ctx, f.read()).build("-cl-std=CL3.0")
        return getattr(program, name)

    ttas = build("ttas_lock")
    caught = next((s for s in range(1, SEEDS + 1)
                   if counter_after(ctx, queue, ttas, set_seed, s) != GROUPS),
                  None)
    if caught is None:
        sys.exit(f"no seed of {SEEDS} broke the test-then-set lock")
    lost = GROUPS - counter_after(ctx, queue, ttas, set_seed, caught)
    if lost == 0:
        sys.exit(f"seed {caught}, set again, lost no update")
    for _ in range(2):
        again = GROUPS - counter_after(ctx, queue, ttas, set_seed, caught)
        if again != lost:
            sys.exit(f"seed {caught} lost {lost} updates, then {again}")
    print(f"test-then-set lock: seed {caught} loses {lost} update(s)")

    cas = build("cas_lock")
    for s in range(1, SEEDS + 1):
        got = counter_after(ctx, queue, cas, set_seed, s)
        if got != GROUPS:
            sys.exit(f"compare-and-swap lock, seed {s}: counter {got}")
    print(f"compare-and-swap lock: {SEEDS} seeds passed")


if __name__ == "__main__":
    main()
