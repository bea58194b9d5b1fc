/* binary_io.c: see binary_io.h. The format is native-endian and private
 * to one build of Weft (cache keys carry its build ID). */
#include "jit/cache/binary_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cache/byte_io.h"
#include "jit/ir/kernel_info.h"

typedef weft_byte_writer writer;

static void save_kernel(writer *w, const weft_kernel_desc *k) {
  weft__bytes_put_str(w, k->name);
  weft__bytes_put_u64(w, k->local_mem_size);
  weft__bytes_put_u64(w, k->flags);
  for (int d = 0; d < 3; d++) weft__bytes_put_u64(w, k->reqd_local_size[d]);
  for (int d = 0; d < 3; d++) weft__bytes_put_u64(w, k->local_size_hint[d]);
  weft__bytes_put_str(w, k->vec_type_hint);
  weft__bytes_put_u64(w, k->reqd_sub_group_size);
  weft__bytes_put_u64(w, k->sub_group_width);
  weft__bytes_put_u64(w, k->aggregate_words);
  weft__bytes_put_u64(w, k->transmit_size);
  weft__bytes_put_u64(w, k->jam_width);
  weft__bytes_put_u64(w, k->private_size);
  weft__bytes_put_u64(w, k->num_states);
  for (unsigned s = 0; s < k->num_states; s++) weft__bytes_put_u64(w, k->state_sites[s]);
  weft__bytes_put_u64(w, k->num_args);
  for (unsigned a = 0; a < k->num_args; a++) {
    const weft_arg_desc *arg = &k->args[a];
    weft__bytes_put_u64(w, arg->kind);
    weft__bytes_put_u64(w, arg->address_space);
    weft__bytes_put_u64(w, arg->size);
    weft__bytes_put_u64(w, arg->align);
    weft__bytes_put_u64(w, arg->type_qualifiers);
    weft__bytes_put_u64(w, arg->access);
    weft__bytes_put_str(w, arg->name);
    weft__bytes_put_str(w, arg->type_name);
  }
}

static void save_check_site(writer *w, const weft_check_site *c) {
  weft__bytes_put_u64(w, c->loc.line);
  weft__bytes_put_u64(w, c->loc.column);
  weft__bytes_put_str(w, c->file);
  weft__bytes_put_u64(w, c->access);
  weft__bytes_put_u64(w, (uint64_t)(int64_t)c->arg);
  weft__bytes_put_u64(w, c->space);
  weft__bytes_put_u64(w, c->extent);
  weft__bytes_put_str(w, c->variable);
}

int weft__binary_save(const weft_binary *b, unsigned char **out, size_t *size) {
  writer w = {0};
  weft__bytes_put_u64(&w, b->num_kernels);
  for (unsigned i = 0; i < b->num_kernels; i++) save_kernel(&w, &b->kernels[i]);
  weft__bytes_put_u64(&w, b->num_sites);
  for (unsigned i = 0; i < b->num_sites; i++) {
    weft__bytes_put_u64(&w, b->sites[i].line);
    weft__bytes_put_u64(&w, b->sites[i].column);
  }
  weft__bytes_put_u64(&w, b->num_check_sites);
  for (unsigned i = 0; i < b->num_check_sites; i++)
    save_check_site(&w, &b->check_sites[i]);
  weft__bytes_put_u64(&w, b->global_vars_size);
  if (w.failed) {
    free(w.data);
    return WEFT_ENOMEM;
  }
  *out = w.data;
  *size = w.size;
  return 0;
}

typedef weft_byte_reader reader;

static void load_kernel(reader *r, weft_kernel_desc *k) {
  k->name = weft__bytes_get_str(r);
  k->local_mem_size = weft__bytes_get_u64(r);
  k->flags = (unsigned)weft__bytes_get_u64(r);
  for (int d = 0; d < 3; d++) k->reqd_local_size[d] = weft__bytes_get_u64(r);
  for (int d = 0; d < 3; d++) k->local_size_hint[d] = weft__bytes_get_u64(r);
  char *hint = weft__bytes_get_str(r);
  if (hint) snprintf(k->vec_type_hint, sizeof k->vec_type_hint, "%s", hint);
  free(hint);
  k->reqd_sub_group_size = (unsigned)weft__bytes_get_u64(r);
  k->sub_group_width = (unsigned)weft__bytes_get_u64(r);
  k->aggregate_words = (unsigned)weft__bytes_get_u64(r);
  k->transmit_size = weft__bytes_get_u64(r);
  k->jam_width = (unsigned)weft__bytes_get_u64(r);
  k->private_size = weft__bytes_get_u64(r);
  k->num_states = weft__bytes_get_count(r, sizeof(uint64_t));
  k->state_sites = calloc(k->num_states + 1, sizeof *k->state_sites);
  if (!k->state_sites) r->failed = 1;
  for (unsigned s = 0; s < k->num_states && !r->failed; s++)
    k->state_sites[s] = (unsigned)weft__bytes_get_u64(r);
  k->num_args = weft__bytes_get_count(r, 7 * sizeof(uint64_t));
  k->args = calloc(k->num_args + 1, sizeof *k->args);
  if (!k->args) {
    r->failed = 1;
    k->num_args = 0;
  }
  for (unsigned a = 0; a < k->num_args && !r->failed; a++) {
    weft_arg_desc *arg = &k->args[a];
    arg->kind = (weft_arg_kind)weft__bytes_get_u64(r);
    arg->address_space = (weft_address_space)weft__bytes_get_u64(r);
    arg->size = weft__bytes_get_u64(r);
    arg->align = weft__bytes_get_u64(r);
    arg->type_qualifiers = (unsigned)weft__bytes_get_u64(r);
    arg->access = (weft_image_access)weft__bytes_get_u64(r);
    arg->name = weft__bytes_get_str(r);
    arg->type_name = weft__bytes_get_str(r);
  }
}

static void load_check_site(reader *r, weft_check_site *c) {
  c->loc.line = (unsigned)weft__bytes_get_u64(r);
  c->loc.column = (unsigned)weft__bytes_get_u64(r);
  c->file = weft__bytes_get_str(r);
  c->access = (unsigned)weft__bytes_get_u64(r);
  c->arg = (int)(int64_t)weft__bytes_get_u64(r);
  c->space = (weft_address_space)weft__bytes_get_u64(r);
  c->extent = weft__bytes_get_u64(r);
  c->variable = weft__bytes_get_str(r);
}

/* The check sites, after the barrier sites. */
static void load_check_sites(reader *r, weft_binary *b) {
  b->num_check_sites = r->failed ? 0 : weft__bytes_get_count(r, 8 * sizeof(uint64_t));
  b->check_sites = calloc(b->num_check_sites + 1, sizeof *b->check_sites);
  if (!b->check_sites) r->failed = 1;
  for (unsigned i = 0; i < b->num_check_sites && !r->failed; i++)
    load_check_site(r, &b->check_sites[i]);
}

int weft__binary_load(const unsigned char *data, size_t size, weft_binary *b) {
  reader r = {data, size, 0, 0};
  b->num_kernels = weft__bytes_get_count(&r, 12 * sizeof(uint64_t));
  b->kernels = calloc(b->num_kernels + 1, sizeof *b->kernels);
  if (!b->kernels) r.failed = 1;
  for (unsigned i = 0; i < b->num_kernels && !r.failed; i++)
    load_kernel(&r, &b->kernels[i]);
  b->num_sites = r.failed ? 0 : weft__bytes_get_count(&r, 2 * sizeof(uint64_t));
  b->sites = calloc(b->num_sites + 1, sizeof *b->sites);
  if (!b->sites) r.failed = 1;
  for (unsigned i = 0; i < b->num_sites && !r.failed; i++) {
    b->sites[i].line = (unsigned)weft__bytes_get_u64(&r);
    b->sites[i].column = (unsigned)weft__bytes_get_u64(&r);
  }
  load_check_sites(&r, b);
  b->global_vars_size = weft__bytes_get_u64(&r);
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
