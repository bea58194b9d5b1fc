/* cl_sampler.c: sampler objects. A sampler is its three settings; a
 * kernel's sampler argument gets them as CLK_* bits (weft.h's
 * WEFT_SAMPLER_*), as a sampler written in a program would be. */
#include <stdlib.h>
#include <string.h>

#include "api/cl_objects.h"

unsigned weft__cl_sampler_bits(cl_sampler s) {
  unsigned bits = s->normalized ? WEFT_SAMPLER_NORMALIZED : 0;
  switch (s->addressing) {
  case CL_ADDRESS_CLAMP_TO_EDGE: bits |= WEFT_SAMPLER_CLAMP_TO_EDGE; break;
  case CL_ADDRESS_CLAMP: bits |= WEFT_SAMPLER_CLAMP; break;
  case CL_ADDRESS_REPEAT: bits |= WEFT_SAMPLER_REPEAT; break;
  case CL_ADDRESS_MIRRORED_REPEAT: bits |= WEFT_SAMPLER_MIRRORED_REPEAT; break;
  default: bits |= WEFT_SAMPLER_NONE; break;
  }
  return bits | (s->filter == CL_FILTER_LINEAR ? WEFT_SAMPLER_LINEAR
                                               : WEFT_SAMPLER_NEAREST);
}

static cl_int check_settings(cl_bool normalized, cl_addressing_mode a,
                             cl_filter_mode f) {
  if (normalized != CL_TRUE && normalized != CL_FALSE) return CL_INVALID_VALUE;
  if (a < CL_ADDRESS_NONE || a > CL_ADDRESS_MIRRORED_REPEAT) return CL_INVALID_VALUE;
  if (f != CL_FILTER_NEAREST && f != CL_FILTER_LINEAR) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

/* The settings a properties list gives (each at most once), over the
 * defaults; the list's length (with its 0) in *count. */
static cl_int read_properties(const cl_sampler_properties *p, cl_bool *normalized,
                              cl_addressing_mode *a, cl_filter_mode *f,
                              size_t *count) {
  int seen[3] = {0, 0, 0};
  size_t i = 0;
  for (; p && p[i]; i += 2) {
    int which = p[i] == CL_SAMPLER_NORMALIZED_COORDS ? 0
                : p[i] == CL_SAMPLER_ADDRESSING_MODE ? 1
                : p[i] == CL_SAMPLER_FILTER_MODE     ? 2
                                                     : -1;
    if (which < 0 || seen[which]++) return CL_INVALID_VALUE;
    if (which == 0) *normalized = (cl_bool)p[i + 1];
    else if (which == 1) *a = (cl_addressing_mode)p[i + 1];
    else *f = (cl_filter_mode)p[i + 1];
  }
  *count = p ? i + 1 : 0;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context c, const cl_sampler_properties *props, cl_int *errcode) {
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode a = CL_ADDRESS_CLAMP;
  cl_filter_mode f = CL_FILTER_NEAREST;
  size_t count = 0;
  cl_sampler s = NULL;
  cl_int rc = CL_SUCCESS;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else rc = read_properties(props, &normalized, &a, &f, &count);
  if (!rc) rc = check_settings(normalized, a, f);
  if (!rc && !(s = weft__cl_alloc(sizeof *s))) rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc && count &&
      !(s->properties = malloc(count * sizeof *s->properties))) {
    weft__cl_free(s, sizeof *s);
    s = NULL;
    rc = CL_OUT_OF_HOST_MEMORY;
  }
  if (!rc) {
    weft__cl_init(s, CL_KIND_SAMPLER);
    s->context = c;
    s->normalized = normalized;
    s->addressing = a;
    s->filter = f;
    if (count) memcpy(s->properties, props, count * sizeof *props);
    s->num_properties = count;
    clRetainContext(c);
  }
  if (errcode) *errcode = rc;
  return s;
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context c,
                                                    cl_bool normalized,
                                                    cl_addressing_mode a,
                                                    cl_filter_mode f,
                                                    cl_int *errcode) {
  cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS, normalized,
                                   CL_SAMPLER_ADDRESSING_MODE, a,
                                   CL_SAMPLER_FILTER_MODE, f, 0};
  cl_sampler s = clCreateSamplerWithProperties(c, props, errcode);
  /* Made without a list: CL_SAMPLER_PROPERTIES is empty. */
  if (s) {
    free(s->properties);
    s->properties = NULL;
    s->num_properties = 0;
  }
  return s;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler s) {
  if (!weft__cl_is(s, CL_KIND_SAMPLER)) return CL_INVALID_SAMPLER;
  weft__cl_retain(s);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler s) {
  if (!weft__cl_is(s, CL_KIND_SAMPLER)) return CL_INVALID_SAMPLER;
  if (!weft__cl_release(s)) return CL_SUCCESS;
  cl_context c = s->context;
  free(s->properties);
  weft__cl_free(s, sizeof *s);
  clReleaseContext(c);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler s,
                                                 cl_sampler_info p, size_t n,
                                                 void *v, size_t *r) {
  if (!weft__cl_is(s, CL_KIND_SAMPLER)) return CL_INVALID_SAMPLER;
  cl_uint refs;
  switch (p) {
  case CL_SAMPLER_REFERENCE_COUNT:
    refs = (cl_uint)atomic_load(&s->h.refs);
    return weft__cl_info(&refs, sizeof refs, n, v, r);
  case CL_SAMPLER_CONTEXT: return weft__cl_info(&s->context, sizeof s->context, n, v, r);
  case CL_SAMPLER_NORMALIZED_COORDS:
    return weft__cl_info(&s->normalized, sizeof s->normalized, n, v, r);
  case CL_SAMPLER_ADDRESSING_MODE:
    return weft__cl_info(&s->addressing, sizeof s->addressing, n, v, r);
  case CL_SAMPLER_FILTER_MODE: return weft__cl_info(&s->filter, sizeof s->filter, n, v, r);
  case CL_SAMPLER_PROPERTIES:
    return weft__cl_info(s->properties, s->num_properties * sizeof *s->properties,
                         n, v, r);
  default: return CL_INVALID_VALUE;
  }
}
