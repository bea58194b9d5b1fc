/* kernel_info.c: kernel descriptions from Clang's metadata (see
 * kernel_info.h). */
#include "jit/ir/kernel_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPIR_KERNEL_CALLING_CONVENTION 76

int weft__is_kernel(LLVMValueRef fn) {
  return LLVMGetFunctionCallConv(fn) == SPIR_KERNEL_CALLING_CONVENTION &&
         !LLVMIsDeclaration(fn);
}

/* The operands of the kernel's metadata node called kind (kernel_arg_*,
 * reqd_work_group_size...), or NULL. */
static LLVMValueRef *arg_metadata(LLVMValueRef fn, const char *kind,
                                  unsigned *count) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned id = LLVMGetMDKindIDInContext(context, kind, (unsigned)strlen(kind));
  size_t num_entries = 0;
  LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(fn, &num_entries);
  LLVMValueRef *operands = NULL;
  for (unsigned i = 0; i < num_entries; i++) {
    if (LLVMValueMetadataEntriesGetKind(entries, i) != id) continue;
    LLVMValueRef node = LLVMMetadataAsValue(
        context, LLVMValueMetadataEntriesGetMetadata(entries, i));
    *count = LLVMGetMDNodeNumOperands(node);
    operands = calloc(*count + 1, sizeof *operands);
    if (operands) LLVMGetMDNodeOperands(node, operands);
  }
  LLVMDisposeValueMetadataEntries(entries);
  return operands;
}

static char *metadata_string(LLVMValueRef *operands, unsigned count,
                             unsigned i) {
  unsigned length = 0;
  const char *s =
      operands && i < count ? LLVMGetMDString(operands[i], &length) : NULL;
  return s ? strndup(s, length) : strdup("");
}

static unsigned parse_qualifiers(const char *text) {
  unsigned q = 0;
  if (strstr(text, "const")) q |= WEFT_TYPE_CONST;
  if (strstr(text, "restrict")) q |= WEFT_TYPE_RESTRICT;
  if (strstr(text, "volatile")) q |= WEFT_TYPE_VOLATILE;
  return q;
}

/* Arguments Weft has no objects for: pipes (a type qualifier to Clang),
 * device queues, depth and multisample images (base: typedefs resolved). */
static int unsupported_type(const char *base, const char *qualifiers) {
  return strstr(qualifiers, "pipe") || !strcmp(base, "queue_t") ||
         (!strncmp(base, "image", 5) &&
          (strstr(base, "_depth") || strstr(base, "_msaa")));
}

/* Whether a base type (as Clang's kernel_arg_base_type gives it, typedefs
 * resolved) is an image type: "image_data_t *" is not. */
static int is_image_type(const char *base) {
  static const char *const images[] = {
      "image1d_t",       "image1d_buffer_t", "image1d_array_t",
      "image2d_t",       "image2d_array_t",  "image3d_t"};
  for (size_t i = 0; i < sizeof images / sizeof *images; i++)
    if (!strcmp(base, images[i])) return 1;
  return 0;
}

/* Images and samplers are pointers to Clang (an image's description, a
 * sampler's bits: builtins/image.cl), but arguments of their own kind to
 * whoever sets them. */
static void image_or_sampler(weft_arg_desc *arg, const char *base,
                             const char *access) {
  if (!strcmp(base, "sampler_t")) {
    arg->kind = WEFT_ARG_SAMPLER;
  } else if (is_image_type(base)) {
    arg->kind = WEFT_ARG_IMAGE;
    arg->access = !strcmp(access, "write_only")   ? WEFT_IMAGE_WRITE_ONLY
                  : !strcmp(access, "read_write") ? WEFT_IMAGE_READ_WRITE
                                                  : WEFT_IMAGE_READ_ONLY;
  }
}

LLVMTypeRef weft__byval_type(LLVMValueRef fn, unsigned index) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef attr = LLVMGetEnumAttributeAtIndex(fn, index + 1, kind);
  return attr ? LLVMGetTypeAttributeValue(attr) : NULL;
}

static void describe_arg(LLVMValueRef fn, unsigned i, LLVMTargetDataRef layout,
                         unsigned space, weft_arg_desc *arg) {
  LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(fn, i));
  LLVMTypeRef by_value = weft__byval_type(fn, i);
  int pointer = LLVMGetTypeKind(type) == LLVMPointerTypeKind && !by_value;
  arg->address_space = (weft_address_space)space;
  if (pointer && space == WEFT_ADDRESS_LOCAL) arg->kind = WEFT_ARG_LOCAL;
  else if (pointer) arg->kind = WEFT_ARG_BUFFER;
  else arg->kind = WEFT_ARG_VALUE;
  LLVMTypeRef stored = by_value ? by_value : type;
  arg->size = (size_t)LLVMABISizeOfType(layout, stored);
  arg->align = LLVMABIAlignmentOfType(layout, stored);
}

/* Three sizes from a kernel attribute's metadata (x, y, z), or zeros. */
static void read_sizes(LLVMValueRef fn, const char *kind, size_t out[3]) {
  unsigned n = 0;
  LLVMValueRef *sizes = arg_metadata(fn, kind, &n);
  for (unsigned d = 0; d < 3; d++)
    out[d] = sizes && n == 3 ? (size_t)LLVMConstIntGetZExtValue(sizes[d]) : 0;
  free(sizes);
}

/* The OpenCL C name of vec_type_hint's type ("uint4"), from its
 * metadata: a value of the type, and whether an integer one is signed. */
static void read_type_hint(LLVMValueRef fn, char *out, size_t size) {
  unsigned n = 0;
  LLVMValueRef *hint = arg_metadata(fn, "vec_type_hint", &n);
  out[0] = 0;
  if (hint && n == 2 && hint[0] && LLVMIsAConstantInt(hint[1])) {
    LLVMTypeRef type = LLVMTypeOf(hint[0]);
    unsigned lanes = 1;
    if (LLVMGetTypeKind(type) == LLVMVectorTypeKind) {
      lanes = LLVMGetVectorSize(type);
      type = LLVMGetElementType(type);
    }
    const char *name = NULL;
    switch (LLVMGetTypeKind(type)) {
    case LLVMHalfTypeKind: name = "half"; break;
    case LLVMFloatTypeKind: name = "float"; break;
    case LLVMDoubleTypeKind: name = "double"; break;
    case LLVMIntegerTypeKind: {
      static const char *const ints[] = {"char", "short", "int", "long"};
      unsigned bits = LLVMGetIntTypeWidth(type);
      unsigned i = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
      int is_signed = LLVMConstIntGetZExtValue(hint[1]) != 0;
      if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
        snprintf(out, size, "%s%s", is_signed ? "" : "u", ints[i]);
      break;
    }
    default: break;
    }
    if (name) snprintf(out, size, "%s", name);
    if (out[0] && lanes > 1)
      snprintf(out + strlen(out), size - strlen(out), "%u", lanes);
  }
  free(hint);
}

/* The argument metadata Clang gives a kernel (-cl-kernel-arg-info). */
typedef struct arg_metadata_set {
  LLVMValueRef *spaces, *types, *quals, *names, *access, *bases;
  unsigned n_space, n_type, n_qual, n_name, n_access, n_base;
} arg_metadata_set;

static void read_arg_metadata(LLVMValueRef fn, arg_metadata_set *m) {
  memset(m, 0, sizeof *m);
  m->spaces = arg_metadata(fn, "kernel_arg_addr_space", &m->n_space);
  m->types = arg_metadata(fn, "kernel_arg_type", &m->n_type);
  m->quals = arg_metadata(fn, "kernel_arg_type_qual", &m->n_qual);
  m->names = arg_metadata(fn, "kernel_arg_name", &m->n_name);
  m->access = arg_metadata(fn, "kernel_arg_access_qual", &m->n_access);
  m->bases = arg_metadata(fn, "kernel_arg_base_type", &m->n_base);
}

static void free_arg_metadata(arg_metadata_set *m) {
  free(m->spaces);
  free(m->types);
  free(m->quals);
  free(m->names);
  free(m->access);
  free(m->bases);
}

/* Argument i of kernel fn (named kernel), into arg: 0, WEFT_ENOMEM, or
 * WEFT_EBUILD with *error for a type Weft has no objects for. */
static int describe_one(LLVMValueRef fn, LLVMTargetDataRef layout,
                        const arg_metadata_set *m, unsigned i,
                        const char *kernel, weft_arg_desc *arg, char **error) {
  unsigned space = m->spaces && i < m->n_space
                       ? (unsigned)LLVMConstIntGetZExtValue(m->spaces[i])
                       : 0;
  describe_arg(fn, i, layout, space, arg);
  arg->type_name = metadata_string(m->types, m->n_type, i);
  arg->name = metadata_string(m->names, m->n_name, i);
  char *qualifiers = metadata_string(m->quals, m->n_qual, i);
  char *access = metadata_string(m->access, m->n_access, i);
  char *base = metadata_string(m->bases, m->n_base, i);
  int rc = 0;
  if (!arg->type_name || !arg->name || !qualifiers || !access || !base) {
    rc = WEFT_ENOMEM;
  } else if (unsupported_type(base, qualifiers)) {
    if (asprintf(error, "kernel '%s': argument '%s' has type %s, which Weft "
                 "does not support (no pipes, device queues, depth or "
                 "multisample images)", kernel, arg->name, arg->type_name) < 0)
      *error = NULL;
    rc = WEFT_EBUILD;
  } else {
    arg->type_qualifiers = parse_qualifiers(qualifiers);
    image_or_sampler(arg, base, access);
  }
  free(qualifiers);
  free(access);
  free(base);
  return rc;
}

static int describe_kernel(LLVMValueRef fn, LLVMTargetDataRef layout,
                           weft_kernel_desc *k, char **error) {
  size_t name_length;
  const char *name = LLVMGetValueName2(fn, &name_length);
  k->name = strndup(name, name_length);
  k->num_args = LLVMCountParams(fn);
  k->args = calloc(k->num_args ? k->num_args : 1, sizeof *k->args);
  if (!k->name || !k->args) return WEFT_ENOMEM;

  arg_metadata_set m;
  read_arg_metadata(fn, &m);
  int rc = 0;
  for (unsigned i = 0; i < k->num_args && !rc; i++)
    rc = describe_one(fn, layout, &m, i, k->name, &k->args[i], error);
  free_arg_metadata(&m);
  read_sizes(fn, "reqd_work_group_size", k->reqd_local_size);
  read_sizes(fn, "work_group_size_hint", k->local_size_hint);
  read_type_hint(fn, k->vec_type_hint, sizeof k->vec_type_hint);
  unsigned n = 0;
  LLVMValueRef *width = arg_metadata(fn, "intel_reqd_sub_group_size", &n);
  k->reqd_sub_group_size =
      width && n == 1 && LLVMIsAConstantInt(width[0])
          ? (unsigned)LLVMConstIntGetZExtValue(width[0]) : 0;
  free(width);
  return rc;
}

int weft__kernel_info_collect(LLVMModuleRef module, LLVMTargetDataRef layout,
                              weft_kernel_desc **out, unsigned *count,
                              char **error) {
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f))
    n += weft__is_kernel(f) != 0;
  weft_kernel_desc *descs = calloc(n ? n : 1, sizeof *descs);
  if (!descs) return WEFT_ENOMEM;
  unsigned i = 0;
  int rc = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f && !rc;
       f = LLVMGetNextFunction(f)) {
    if (weft__is_kernel(f)) rc = describe_kernel(f, layout, &descs[i++], error);
  }
  if (rc) {
    weft__kernel_descs_free(descs, n);
    return rc;
  }
  *out = descs;
  *count = n;
  return 0;
}

size_t weft__global_variables_size(LLVMModuleRef module, LLVMTargetDataRef layout) {
  size_t total = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) &&
        LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == WEFT_ADDRESS_GLOBAL)
      total += LLVMABISizeOfType(layout, LLVMGlobalGetValueType(g));
  return total;
}

void weft__check_sites_free(weft_check_site *sites, unsigned count) {
  if (!sites) return;
  for (unsigned i = 0; i < count; i++) {
    free(sites[i].file);
    free(sites[i].variable);
  }
  free(sites);
}

void weft__kernel_descs_free(weft_kernel_desc *descs, unsigned count) {
  if (!descs) return;
  for (unsigned i = 0; i < count; i++) {
    for (unsigned a = 0; a < descs[i].num_args; a++) {
      free(descs[i].args[a].name);
      free(descs[i].args[a].type_name);
    }
    free(descs[i].args);
    free(descs[i].name);
    free(descs[i].state_sites);
  }
  free(descs);
}

int weft__kernel_info_check_sub_groups(const weft_kernel_desc *kernels,
                                       unsigned count, unsigned sizes,
                                       const char *device, char **error) {
  for (unsigned i = 0; i < count; i++) {
    unsigned n = kernels[i].reqd_sub_group_size;
    if (!n || ((n & (n - 1)) == 0 && (n & sizes))) continue;
    char list[64] = "";
    for (unsigned s = 1, left = sizes; s && left; s <<= 1) {
      if (!(left & s)) continue;
      left &= ~s;
      size_t used = strlen(list);
      snprintf(list + used, sizeof list - used, "%s%u",
               !used ? "" : left ? ", " : " and ", s);
    }
    if (asprintf(error,
                 "kernel '%s': intel_reqd_sub_group_size(%u) is not a "
                 "sub-group size of %s (%s)",
                 kernels[i].name, n, device, list) < 0)
      *error = NULL;
    return WEFT_EBUILD;
  }
  return 0;
}
