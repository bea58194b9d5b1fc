/* kernel_info.c: kernel descriptions from Clang's metadata (see
 * kernel_info.h). */
#include "jit/kernel_info.h"

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

static int unsupported_type(const char *type_name) {
  return strstr(type_name, "pipe") || strstr(type_name, "queue_t") ||
         strstr(type_name, "_depth_t") || strstr(type_name, "_msaa_t");
}

/* Images and samplers are pointers to Clang (an image's description, a
 * sampler's bits: builtins/image.cl), but arguments of their own kind to
 * whoever sets them. */
static void image_or_sampler(weft_arg_desc *arg, const char *access) {
  if (!strcmp(arg->type_name, "sampler_t")) {
    arg->kind = WEFT_ARG_SAMPLER;
  } else if (!strncmp(arg->type_name, "image", 5)) {
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

static int describe_kernel(LLVMValueRef fn, LLVMTargetDataRef layout,
                           weft_kernel_desc *k, char **error) {
  size_t name_length;
  const char *name = LLVMGetValueName2(fn, &name_length);
  k->name = strndup(name, name_length);
  k->num_args = LLVMCountParams(fn);
  k->args = calloc(k->num_args ? k->num_args : 1, sizeof *k->args);
  if (!k->name || !k->args) return WEFT_ENOMEM;

  unsigned n_space = 0, n_type = 0, n_qual = 0, n_name = 0;
  LLVMValueRef *spaces = arg_metadata(fn, "kernel_arg_addr_space", &n_space);
  LLVMValueRef *types = arg_metadata(fn, "kernel_arg_type", &n_type);
  LLVMValueRef *quals = arg_metadata(fn, "kernel_arg_type_qual", &n_qual);
  LLVMValueRef *names = arg_metadata(fn, "kernel_arg_name", &n_name);
  unsigned n_access = 0;
  LLVMValueRef *access = arg_metadata(fn, "kernel_arg_access_qual", &n_access);
  int rc = 0;
  for (unsigned i = 0; i < k->num_args && !rc; i++) {
    weft_arg_desc *arg = &k->args[i];
    unsigned space =
        spaces && i < n_space ? (unsigned)LLVMConstIntGetZExtValue(spaces[i]) : 0;
    describe_arg(fn, i, layout, space, arg);
    arg->type_name = metadata_string(types, n_type, i);
    arg->name = metadata_string(names, n_name, i);
    char *qualifiers = metadata_string(quals, n_qual, i);
    arg->type_qualifiers = qualifiers ? parse_qualifiers(qualifiers) : 0;
    free(qualifiers);
    char *qualifier = metadata_string(access, n_access, i);
    if (!arg->type_name || !arg->name || !qualifier) rc = WEFT_ENOMEM;
    else if (unsupported_type(arg->type_name)) {
      if (asprintf(error, "kernel '%s': argument '%s' has type %s, which "
                   "Weft does not support (no pipes, device queues, depth "
                   "or multisample images)",
                   k->name, arg->name, arg->type_name) < 0)
        *error = NULL;
      rc = WEFT_EBUILD;
    } else {
      image_or_sampler(arg, qualifier);
    }
    free(qualifier);
  }
  free(access);
  free(spaces);
  free(types);
  free(quals);
  free(names);
  read_sizes(fn, "reqd_work_group_size", k->reqd_local_size);
  read_sizes(fn, "work_group_size_hint", k->local_size_hint);
  read_type_hint(fn, k->vec_type_hint, sizeof k->vec_type_hint);
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
