/* binary_io.c: see binary_io.h. The format is native-endian and private
 * to one build of Weft (cache keys carry its build ID). */
#include "jit/binary_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/kernel_info.h"

typedef struct writer {
  unsigned char *data;
  size_t size, capacity;
  int failed;
} writer;

static void put(writer *w, const void *p, size_t n) {
  if (w->failed) return;
  if (w->size + n > w->capacity) {
    size_t capacity = w->capacity ? 2 * w->capacity : 256;
    while (capacity < w->size + n) capacity *= 2;
    unsigned char *grown = realloc(w->data, capacity);
    if (!grown) {
      w->failed = 1;
      return;
    }
    w->data = grown;
    w->capacity = capacity;
  }
  memcpy(w->data + w->size, p, n);
  w->size += n;
}

static void put_u64(writer *w, uint64_t v) { put(w, &v, sizeof v); }

static void put_str(writer *w, const char *s) {
  put_u64(w, strlen(s));
  put(w, s, strlen(s));
}

static void save_kernel(writer *w, const weft_kernel_desc *k) {
  put_str(w, k->name);
  put_u64(w, k->local_mem_size);
  put_u64(w, k->flags);
  for (int d = 0; d < 3; d++) put_u64(w, k->reqd_local_size[d]);
  for (int d = 0; d < 3; d++) put_u64(w, k->local_size_hint[d]);
  put_str(w, k->vec_type_hint);
  put_u64(w, k->private_size);
  put_u64(w, k->num_states);
  for (unsigned s = 0; s < k->num_states; s++) put_u64(w, k->state_sites[s]);
  put_u64(w, k->num_args);
  for (unsigned a = 0; a < k->num_args; a++) {
    const weft_arg_desc *arg = &k->args[a];
    put_u64(w, arg->kind);
    put_u64(w, arg->address_space);
    put_u64(w, arg->size);
    put_u64(w, arg->align);
    put_u64(w, arg->type_qualifiers);
    put_u64(w, arg->access);
    put_str(w, arg->name);
    put_str(w, arg->type_name);
  }
}

static void save_check_site(writer *w, const weft_check_site *c) {
  put_u64(w, c->loc.line);
  put_u64(w, c->loc.column);
  put_str(w, c->file);
  put_u64(w, c->access);
  put_u64(w, (uint64_t)(int64_t)c->arg);
  put_u64(w, c->space);
  put_u64(w, c->extent);
  put_str(w, c->variable);
}

int weft__binary_save(const weft_binary *b, unsigned char **out, size_t *size) {
  writer w = {0};
  put_u64(&w, b->num_kernels);
  for (unsigned i = 0; i < b->num_kernels; i++) save_kernel(&w, &b->kernels[i]);
  put_u64(&w, b->num_sites);
  for (unsigned i = 0; i < b->num_sites; i++) {
    put_u64(&w, b->sites[i].line);
    put_u64(&w, b->sites[i].column);
  }
  put_u64(&w, b->num_check_sites);
  for (unsigned i = 0; i < b->num_check_sites; i++)
    save_check_site(&w, &b->check_sites[i]);
  put_u64(&w, b->global_vars_size);
  if (w.failed) {
    free(w.data);
    return WEFT_ENOMEM;
  }
  *out = w.data;
  *size = w.size;
  return 0;
}

typedef struct reader {
  const unsigned char *data;
  size_t size, at;
  int failed;
} reader;

static uint64_t get_u64(reader *r) {
  uint64_t v = 0;
  if (r->failed || r->size - r->at < sizeof v) {
    r->failed = 1;
    return 0;
  }
  memcpy(&v, r->data + r->at, sizeof v);
  r->at += sizeof v;
  return v;
}

/* A count that the remaining bytes could hold, at least min_bytes each. */
static unsigned get_count(reader *r, size_t min_bytes) {
  uint64_t n = get_u64(r);
  if (n > (r->size - r->at) / min_bytes) r->failed = 1;
  return r->failed ? 0 : (unsigned)n;
}

static char *get_str(reader *r) {
  uint64_t n = get_u64(r);
  if (r->failed || n > r->size - r->at) {
    r->failed = 1;
    return NULL;
  }
  char *s = strndup((const char *)r->data + r->at, n);
  if (!s) r->failed = 1;
  r->at += n;
  return s;
}

static void load_kernel(reader *r, weft_kernel_desc *k) {
  k->name = get_str(r);
  k->local_mem_size = get_u64(r);
  k->flags = (unsigned)get_u64(r);
  for (int d = 0; d < 3; d++) k->reqd_local_size[d] = get_u64(r);
  for (int d = 0; d < 3; d++) k->local_size_hint[d] = get_u64(r);
  char *hint = get_str(r);
  if (hint) snprintf(k->vec_type_hint, sizeof k->vec_type_hint, "%s", hint);
  free(hint);
  k->private_size = get_u64(r);
  k->num_states = get_count(r, sizeof(uint64_t));
  k->state_sites = calloc(k->num_states + 1, sizeof *k->state_sites);
  if (!k->state_sites) r->failed = 1;
  for (unsigned s = 0; s < k->num_states && !r->failed; s++)
    k->state_sites[s] = (unsigned)get_u64(r);
  k->num_args = get_count(r, 7 * sizeof(uint64_t));
  k->args = calloc(k->num_args + 1, sizeof *k->args);
  if (!k->args) {
    r->failed = 1;
    k->num_args = 0;
  }
  for (unsigned a = 0; a < k->num_args && !r->failed; a++) {
    weft_arg_desc *arg = &k->args[a];
    arg->kind = (weft_arg_kind)get_u64(r);
    arg->address_space = (weft_address_space)get_u64(r);
    arg->size = get_u64(r);
    arg->align = get_u64(r);
    arg->type_qualifiers = (unsigned)get_u64(r);
    arg->access = (weft_image_access)get_u64(r);
    arg->name = get_str(r);
    arg->type_name = get_str(r);
  }
}

static void load_check_site(reader *r, weft_check_site *c) {
  c->loc.line = (unsigned)get_u64(r);
  c->loc.column = (unsigned)get_u64(r);
  c->file = get_str(r);
  c->access = (unsigned)get_u64(r);
  c->arg = (int)(int64_t)get_u64(r);
  c->space = (weft_address_space)get_u64(r);
  c->extent = get_u64(r);
  c->variable = get_str(r);
}

/* The check sites, after the barrier sites. */
static void load_check_sites(reader *r, weft_binary *b) {
  b->num_check_sites = r->failed ? 0 : get_count(r, 8 * sizeof(uint64_t));
  b->check_sites = calloc(b->num_check_sites + 1, sizeof *b->check_sites);
  if (!b->check_sites) r->failed = 1;
  for (unsigned i = 0; i < b->num_check_sites && !r->failed; i++)
    load_check_site(r, &b->check_sites[i]);
}

int weft__binary_load(const unsigned char *data, size_t size, weft_binary *b) {
  reader r = {data, size, 0, 0};
  b->num_kernels = get_count(&r, 12 * sizeof(uint64_t));
  b->kernels = calloc(b->num_kernels + 1, sizeof *b->kernels);
  if (!b->kernels) r.failed = 1;
  for (unsigned i = 0; i < b->num_kernels && !r.failed; i++)
    load_kernel(&r, &b->kernels[i]);
  b->num_sites = r.failed ? 0 : get_count(&r, 2 * sizeof(uint64_t));
  b->sites = calloc(b->num_sites + 1, sizeof *b->sites);
  if (!b->sites) r.failed = 1;
  for (unsigned i = 0; i < b->num_sites && !r.failed; i++) {
    b->sites[i].line = (unsigned)get_u64(&r);
    b->sites[i].column = (unsigned)get_u64(&r);
  }
  load_check_sites(&r, b);
  b->global_vars_size = get_u64(&r);
  if (!r.failed && r.at == size) return 0;
  weft__kernel_descs_free(b->kernels, b->num_kernels);
  weft__check_sites_free(b->check_sites, b->num_check_sites);
  free(b->sites);
  b->kernels = NULL;
  b->sites = NULL;
  b->check_sites = NULL;
  b->num_kernels = b->num_sites = b->num_check_sites = 0;
  return WEFT_EBUILD;
}
