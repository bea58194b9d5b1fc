/*
 * cltype.h: the OpenCL C scalar and vector types that kernel-argument specs
 * name (int, float4, uchar16...): their sizes, how to read a component from
 * text, how to store generated values and how to print them.
 */
#ifndef WEFT_TOOL_CLTYPE_H
#define WEFT_TOOL_CLTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cltype_scalar {
  CLTYPE_CHAR,
  CLTYPE_UCHAR,
  CLTYPE_SHORT,
  CLTYPE_USHORT,
  CLTYPE_INT,
  CLTYPE_UINT,
  CLTYPE_LONG,
  CLTYPE_ULONG,
  CLTYPE_FLOAT,
  CLTYPE_DOUBLE
} cltype_scalar;

typedef struct cltype {
  cltype_scalar scalar;
  unsigned width; /* components: 1 (a scalar), 2, 3, 4, 8 or 16 */
} cltype;

/* The largest type, double16, takes 128 bytes. */
#define CLTYPE_MAX_SIZE 128
/* Enough for any type's name, "ushort16" included. */
#define CLTYPE_NAME_MAX 16

/* Parses a type name of length bytes ("float4"); 0, or -1 if unknown. */
int cltype_parse(const char *text, size_t length, cltype *out);

/* Writes the type's name ("float4") to out. */
void cltype_name(cltype type, char *out, size_t size);

size_t cltype_scalar_size(cltype_scalar scalar);
int cltype_is_float(cltype_scalar scalar);

/* Components of storage: the width, except 4 for a vector of 3. */
unsigned cltype_slots(cltype type);

/* Bytes one element takes, as sizeof in OpenCL C (float3: 16). */
size_t cltype_size(cltype type);

/* Reads one component from length bytes of text into dst; 0, or -1 when
 * the text is not a number of that type or does not fit in it. */
int cltype_parse_scalar(cltype_scalar scalar, const char *text,
                        size_t length, void *dst);

/* Stores v converted to the scalar type, as an OpenCL C cast would. */
void cltype_store_integer(cltype_scalar scalar, uint64_t v, void *dst);
void cltype_store_real(cltype_scalar scalar, double v, void *dst);

/* Prints one element: a scalar as a number (floats with %g), a vector as
 * "(a,b,c)" without its padding component. */
void cltype_print(cltype type, const void *src, FILE *out);

#endif /* WEFT_TOOL_CLTYPE_H */
