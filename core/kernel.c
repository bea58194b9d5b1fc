/* kernel.c: kernel objects and their arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/handles.h"

/* Each argument gets a slot this aligned, big enough for a pointer. */
#define SLOT_ALIGN 16

static size_t slot_size(const weft_arg_desc *a) {
  size_t size = a->size > sizeof(uint64_t) ? a->size : sizeof(uint64_t);
  return (size + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
}

static int make_slots(weft_kernel *k) {
  unsigned n = k->desc->num_args;
  size_t total = 0;
  for (unsigned i = 0; i < n; i++) total += slot_size(&k->desc->args[i]);
  k->args = calloc(n ? n : 1, sizeof *k->args);
  k->is_set = calloc(n ? n : 1, 1);
  k->arg_sizes = calloc(n ? n : 1, sizeof *k->arg_sizes);
  k->arg_buffers = calloc(n ? n : 1, sizeof *k->arg_buffers);
  k->arg_shadows = calloc(n ? n : 1, sizeof *k->arg_shadows);
  k->values_size = total;
  if (posix_memalign((void **)&k->values, SLOT_ALIGN, total ? total : 1))
    k->values = NULL;
  if (!k->args || !k->is_set || !k->arg_sizes || !k->arg_buffers ||
      !k->arg_shadows || !k->values)
    return WEFT_ENOMEM;
  size_t offset = 0;
  for (unsigned i = 0; i < n; i++) {
    k->args[i] = k->values + offset;
    offset += slot_size(&k->desc->args[i]);
  }
  return 0;
}

void weft__kernel_hold(weft_kernel *k, unsigned index, weft_buffer *b) {
  if (b) weft_buffer_retain(b);
  if (k->arg_buffers[index]) weft_buffer_release(k->arg_buffers[index]);
  k->arg_buffers[index] = b;
}

static void kernel_free(weft_kernel *k) {
  for (unsigned i = 0; k->arg_buffers && i < k->desc->num_args; i++)
    weft__kernel_hold(k, i, NULL);
  free(k->arg_buffers);
  free(k->arg_shadows);
  free(k->args);
  free(k->is_set);
  free(k->arg_sizes);
  free(k->values);
  free(k);
}

/* "a, b, c": the kernel names, for a message. */
static void list_kernels(const weft_binary *bin, char *out, size_t size) {
  size_t used = 0;
  out[0] = 0;
  for (unsigned i = 0; i < bin->num_kernels && used < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "",
                             bin->kernels[i].name);
}

int weft_kernel_create(weft_program *p, const char *name, weft_kernel **out) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM) || !out) return WEFT_EINVAL;
  if (!name) return weft__fail(&p->object, WEFT_EINVAL, "NULL kernel name");
  weft__lock(&p->build_lock);
  const weft_binary *bin = p->binary;
  const weft_kernel_desc *desc = NULL;
  for (unsigned i = 0; bin && i < bin->num_kernels && !desc; i++)
    if (!strcmp(bin->kernels[i].name, name)) desc = &bin->kernels[i];
  if (desc) atomic_fetch_add(&p->num_kernels, 1);
  weft__unlock(&p->build_lock);
  if (!bin)
    return weft__fail(&p->object, WEFT_ENOTBUILT, "the program is not built");
  if (!desc) {
    char names[WEFT_MSG_MAX / 2];
    list_kernels(bin, names, sizeof names);
    return weft__fail(&p->object, WEFT_ENOKERNEL, "no kernel named '%s' in "
                      "the program (it has: %s)", name, names);
  }
  weft_kernel *k = calloc(1, sizeof *k);
  if (k) {
    k->binary = bin;
    k->desc = desc;
  }
  if (!k || make_slots(k)) {
    if (k) kernel_free(k);
    atomic_fetch_sub(&p->num_kernels, 1);
    return weft__fail(&p->object, WEFT_ENOMEM, "out of memory");
  }
  weft__object_init(&k->object, WEFT_KIND_KERNEL);
  k->program = p;
  weft_program_retain(p);
  *out = k;
  return 0;
}

int weft_kernel_clone(weft_kernel *k, weft_kernel **out) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL) || !out) return WEFT_EINVAL;
  weft_kernel *c = calloc(1, sizeof *c);
  if (c) {
    c->binary = k->binary;
    c->desc = k->desc;
    c->is_clone = 1;
  }
  if (!c || make_slots(c)) {
    if (c) kernel_free(c);
    return weft__fail(&k->object, WEFT_ENOMEM, "out of memory");
  }
  /* The slots have the same layout: one copy carries every value. */
  unsigned n = k->desc->num_args;
  memcpy(c->values, k->values, k->values_size);
  memcpy(c->is_set, k->is_set, n);
  memcpy(c->arg_sizes, k->arg_sizes, n * sizeof *c->arg_sizes);
  for (unsigned i = 0; i < n; i++) weft__kernel_hold(c, i, k->arg_buffers[i]);
  weft__object_init(&c->object, WEFT_KIND_KERNEL);
  c->program = k->program;
  weft_program_retain(k->program);
  atomic_fetch_add(&k->program->num_clones, 1);
  *out = c;
  return 0;
}

void weft_kernel_retain(weft_kernel *k) {
  if (weft__object_is(k, WEFT_KIND_KERNEL)) weft__object_retain(&k->object);
}

void weft_kernel_release(weft_kernel *k) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL) || !weft__object_release(&k->object))
    return;
  weft_program *p = k->program;
  atomic_fetch_sub(k->is_clone ? &p->num_clones : &p->num_kernels, 1);
  weft__object_fini(&k->object);
  kernel_free(k);
  weft_program_release(p);
}

const char *weft_kernel_name(weft_kernel *k) {
  return weft__object_is(k, WEFT_KIND_KERNEL) ? k->desc->name : NULL;
}

int weft_kernel_arg_count(weft_kernel *k) {
  return weft__object_is(k, WEFT_KIND_KERNEL) ? (int)k->desc->num_args
                                              : WEFT_EINVAL;
}

int weft_kernel_get_attributes(weft_kernel *k, weft_kernel_attributes *out) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL) || !out) return WEFT_EINVAL;
  memcpy(out->reqd_local_size, k->desc->reqd_local_size,
         sizeof out->reqd_local_size);
  memcpy(out->local_size_hint, k->desc->local_size_hint,
         sizeof out->local_size_hint);
  memcpy(out->vec_type_hint, k->desc->vec_type_hint, sizeof out->vec_type_hint);
  out->sub_group_size = k->desc->reqd_sub_group_size;
  return 0;
}

size_t weft_kernel_local_mem_size(weft_kernel *k) {
  return weft__object_is(k, WEFT_KIND_KERNEL) ? k->desc->local_mem_size : 0;
}

int weft__kernel_arg(weft_kernel *k, int index, weft_arg_kind kind,
                     const weft_arg_desc **out) {
  if (index < 0 || (unsigned)index >= k->desc->num_args)
    return weft__fail(&k->object, WEFT_EARGINDEX, "kernel '%s' has %u "
                      "arguments; there is no argument %d", k->desc->name,
                      k->desc->num_args, index);
  const weft_arg_desc *a = &k->desc->args[index];
  static const char *const kinds[] = {"", "a buffer", "a local memory size",
                                      "a value", "an image", "a sampler"};
  if (kind && a->kind != kind)
    return weft__fail(&k->object, WEFT_EARGKIND, "argument %d ('%s %s') of "
                      "kernel '%s' takes %s, not %s", index, a->type_name,
                      a->name, k->desc->name, kinds[a->kind], kinds[kind]);
  *out = a;
  return 0;
}

int weft_kernel_arg_info(weft_kernel *k, int index, weft_arg_info *info) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL) || !info) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, 0, &a);
  if (rc) return rc;
  info->kind = a->kind;
  info->address_space = a->address_space;
  info->size = a->size;
  info->name = a->name;
  info->type_name = a->type_name;
  info->type_qualifiers = a->type_qualifiers;
  info->access = a->access;
  return 0;
}

int weft_kernel_set_arg_buffer(weft_kernel *k, int index, weft_buffer *b) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, WEFT_ARG_BUFFER, &a);
  if (rc) return rc;
  if (b && !weft__object_is(b, WEFT_KIND_BUFFER))
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d: not a buffer",
                      index);
  if (b && b->context != k->program->context)
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d: the buffer "
                      "belongs to another context", index);
  void *mem = b ? b->mem : NULL;
  memcpy(k->args[index], &mem, sizeof mem);
  k->arg_sizes[index] = b ? b->size : 0;
  weft__kernel_hold(k, (unsigned)index, b);
  k->is_set[index] = 1;
  return 0;
}

int weft_kernel_set_arg_svm(weft_kernel *k, int index, const void *ptr) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, WEFT_ARG_BUFFER, &a);
  if (rc) return rc;
  void *base = NULL;
  size_t size = 0;
  if (ptr && weft_svm_find(k->program->context, ptr, &base, &size))
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d ('%s %s'): %p is "
                      "not in an SVM allocation of the kernel's context",
                      index, a->type_name, a->name, ptr);
  memcpy(k->args[index], &ptr, sizeof ptr);
  k->arg_sizes[index] = ptr ? size - (size_t)((const char *)ptr - (char *)base) : 0;
  weft__kernel_hold(k, (unsigned)index, NULL);
  k->is_set[index] = 1;
  return 0;
}

int weft_kernel_set_arg_value(weft_kernel *k, int index, const void *value,
                              size_t size) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, WEFT_ARG_VALUE, &a);
  if (rc) return rc;
  if (!value)
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d: NULL value",
                      index);
  if (size != a->size)
    return weft__fail(&k->object, WEFT_EARGSIZE, "argument %d ('%s %s') of "
                      "kernel '%s' is %zu bytes, not %zu", index, a->type_name,
                      a->name, k->desc->name, a->size, size);
  memcpy(k->args[index], value, size);
  k->is_set[index] = 1;
  return 0;
}

int weft_kernel_set_arg_local(weft_kernel *k, int index, size_t size) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, WEFT_ARG_LOCAL, &a);
  if (rc) return rc;
  if (!size)
    return weft__fail(&k->object, WEFT_EARGSIZE, "argument %d ('%s %s'): "
                      "local memory size is 0", index, a->type_name, a->name);
  k->arg_sizes[index] = size;
  k->is_set[index] = 1;
  return 0;
}
