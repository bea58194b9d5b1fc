/* arg_fill.c: the data a buffer spec starts with (iota, random, fill,
 * file). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "arg_spec.h"

/* The i-th element of a buffer of spec's type. */
static unsigned char *element(const arg_spec *spec, void *data, size_t i) {
  return (unsigned char *)data + i * cltype_size(spec->type);
}

/* Element i, component c holds i*width+c, converted to the type. */
static void fill_iota(const arg_spec *spec, void *data) {
  size_t scalar_size = cltype_scalar_size(spec->type.scalar);
  unsigned width = spec->type.width;
  for (size_t i = 0; i < spec->count; i++)
    for (unsigned c = 0; c < width; c++)
      cltype_store_integer(spec->type.scalar, (uint64_t)i * width + c,
                           element(spec, data, i) + c * scalar_size);
}

/* splitmix64 turns any seed, zero included, into a well-mixed state. */
static uint64_t mix_seed(uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return z ? z : 1; /* xorshift never leaves the all-zero state */
}

/* xorshift64*: small, fast, and the same stream on every host. */
static uint64_t next_random(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545f4914f6cdd1du;
}

/* Floats uniform in [0,1) from the top bits (24 for float, so that rounding
 * to float never reaches 1); integers uniform in 0..255 for 8-bit types and
 * 0..65535 otherwise, small enough to add and multiply without overflow. */
static void store_random(cltype_scalar scalar, uint64_t r, void *dst) {
  if (scalar == CLTYPE_FLOAT)
    cltype_store_real(scalar, (double)(r >> 40) / (1u << 24), dst);
  else if (scalar == CLTYPE_DOUBLE)
    cltype_store_real(scalar, (double)(r >> 11) / (double)(1ull << 53), dst);
  else if (cltype_scalar_size(scalar) == 1)
    cltype_store_integer(scalar, r >> 56, dst);
  else
    cltype_store_integer(scalar, r >> 48, dst);
}

static void fill_random(const arg_spec *spec, int index, void *data) {
  uint64_t state = mix_seed(spec->has_seed ? spec->seed : (uint64_t)index);
  size_t scalar_size = cltype_scalar_size(spec->type.scalar);
  for (size_t i = 0; i < spec->count; i++)
    for (unsigned c = 0; c < spec->type.width; c++)
      store_random(spec->type.scalar, next_random(&state),
                   element(spec, data, i) + c * scalar_size);
}

static void fill_value(const arg_spec *spec, void *data) {
  size_t size = cltype_size(spec->type);
  for (size_t i = 0; i < spec->count; i++)
    memcpy(element(spec, data, i), spec->value, size);
}

static int fill_file(const arg_spec *spec, void *data, char *err,
                     size_t size) {
  FILE *f = fopen(spec->path, "rb");
  struct stat st;
  int rc = 0;
  if (!f || fstat(fileno(f), &st)) {
    snprintf(err, size, "cannot read '%s': %s", spec->path, strerror(errno));
    rc = -1;
  } else if ((uint64_t)st.st_size != spec->bytes) {
    char name[CLTYPE_NAME_MAX];
    cltype_name(spec->type, name, sizeof name);
    snprintf(err, size, "'%s' has %lld bytes, but %s[%zu] takes %zu",
             spec->path, (long long)st.st_size, name, spec->count,
             spec->bytes);
    rc = -1;
  } else if (fread(data, 1, spec->bytes, f) != spec->bytes) {
    snprintf(err, size, "cannot read '%s': %s", spec->path,
             ferror(f) ? strerror(errno) : "it ended early");
    rc = -1;
  }
  if (f) fclose(f);
  return rc;
}

int arg_spec_fill(const arg_spec *spec, int index, void *data, char *err,
                  size_t size) {
  if (spec->init == ARG_INIT_FILE) return fill_file(spec, data, err, size);
  /* Zero first: it is the whole of ZERO and the padding of a vector of 3. */
  memset(data, 0, spec->bytes);
  switch (spec->init) {
  case ARG_INIT_ZERO:
  case ARG_INIT_UNDEFINED: break;
  case ARG_INIT_IOTA: fill_iota(spec, data); break;
  case ARG_INIT_RANDOM: fill_random(spec, index, data); break;
  case ARG_INIT_FILL: fill_value(spec, data); break;
  case ARG_INIT_FILE: break;
  }
  return 0;
}
