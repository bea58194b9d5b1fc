/* backends.c: the table of back ends (backends.h): the CPU first, so that
 * it is device 0 and OpenCL's default unless WEFT_DEVICE says otherwise,
 * then CUDA's GPUs. A new back end is a line here. */
#include "backend/backends.h"

#include "backend/cpu/cpu_device.h"
#include "backend/cuda/cuda_device.h"

const weft_backend weft__backends[] = {
    {"cpu", weft__cpu_probe, NULL, NULL},
    {"cuda", weft__cuda_probe, weft__cuda_status, weft__cuda_compile_ptx},
};

const unsigned weft__num_backends =
    sizeof weft__backends / sizeof *weft__backends;
