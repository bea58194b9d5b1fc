/*
 * arg_spec.h: kernel-argument specs as `weft run --arg` takes them, parsed
 * into what the argument needs (a value, a buffer, local memory) and, for a
 * buffer, the data it starts with. The grammar is in weft.c's help text.
 */
#ifndef WEFT_TOOL_ARG_SPEC_H
#define WEFT_TOOL_ARG_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "cltype.h"

typedef enum arg_spec_kind {
  ARG_SPEC_VALUE,  /* TYPE=V[,V...] */
  ARG_SPEC_BUFFER, /* TYPE[N][=INIT] */
  ARG_SPEC_LOCAL   /* local[BYTES] or local TYPE[N] */
} arg_spec_kind;

typedef enum arg_spec_init {
  ARG_INIT_ZERO,   /* no initializer */
  ARG_INIT_IOTA,   /* iota */
  ARG_INIT_RANDOM, /* random or random:SEED */
  ARG_INIT_FILL,   /* fill:V[,V...] */
  ARG_INIT_FILE,   /* file:PATH */
  ARG_INIT_UNDEFINED /* undefined: contents OpenCL leaves undefined */
} arg_spec_init;

typedef struct arg_spec {
  const char *text;   /* the spec as written, for messages */
  arg_spec_kind kind;
  cltype type;        /* of the value or each element (local[N]: uchar) */
  size_t count;       /* elements of a buffer or of local memory */
  size_t bytes;       /* size of the value, the buffer or the local memory */
  arg_spec_init init;
  int has_seed;       /* random:SEED rather than random */
  uint64_t seed;
  const char *path;   /* file:PATH, pointing into text */
  unsigned char value[CLTYPE_MAX_SIZE]; /* the value, or the fill element */
} arg_spec;

/* Parses a spec; 0, or -1 with the reason in err. spec keeps pointers into
 * text, which must outlive it. */
int arg_spec_parse(const char *text, arg_spec *spec, char *err, size_t size);

/* Writes a buffer spec's starting data, spec->bytes of it, to data. index
 * is the argument's position: random without a seed uses it as the seed, so
 * that two random buffers differ and every run repeats. 0, or -1 with the
 * reason in err (a file that cannot be read or has the wrong size). */
int arg_spec_fill(const arg_spec *spec, int index, void *data, char *err,
                  size_t size);

#endif /* WEFT_TOOL_ARG_SPEC_H */
