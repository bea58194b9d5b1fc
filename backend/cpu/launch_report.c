/* launch_report.c: a launch's failure (the first report wins) and the
 * words reports use: a work-item as OpenCL numbers it, the source line of
 * a code address; the clock of time limits. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "backend/cpu/executor_internal.h"
#include "jit/jit.h"

void weft__launch_report(launch_state *l, int status, const char *fmt, ...) {
  pthread_mutex_lock(&l->lock);
  if (!l->status) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->msg->text, sizeof l->msg->text, fmt, ap);
    va_end(ap);
    l->status = status;
  }
  pthread_mutex_unlock(&l->lock);
  atomic_store(&l->failed, 1);
}

void weft__launch_describe_linear(const launch_state *l, uint64_t group,
                                  uint64_t k, char *out, size_t size) {
  const weft_launch_desc *d = l->desc;
  uint64_t wg[3], lid[3];
  for (int i = 0; i < 3; i++) {
    wg[i] = group % l->num_groups[i];
    group /= l->num_groups[i];
    lid[i] = k % d->local[i];
    k /= d->local[i];
  }
  weft__launch_format_item(d, wg, lid, out, size);
}

void weft__launch_format_item(const weft_launch_desc *d,
                              const uint64_t group[3], const uint64_t lid[3],
                              char *out, size_t size) {
  uint64_t gid[3];
  for (int k = 0; k < 3; k++)
    gid[k] = group[k] * d->local[k] + lid[k] + d->offset[k];
  char a[64], b[64], c[64];
  weft__format_ids(a, sizeof a, d->dims, gid);
  weft__format_ids(b, sizeof b, d->dims, lid);
  weft__format_ids(c, sizeof c, d->dims, group);
  snprintf(out, size, "work-item %s [local %s in work-group %s]", a, b, c);
}

void weft__launch_describe_item(const cpu_group *g, unsigned k, char *out,
                                size_t size) {
  uint64_t lid[3];
  weft__group_local_id(g, k, lid);
  weft__launch_format_item(g->launch->desc, g->ctx.group_id, lid, out, size);
}

void weft__launch_code_place(const weft_launch_desc *d, const void *pc,
                             char *out, size_t size) {
  snprintf(out, size, " at ");
  if (!pc || !weft__jit_code_line(d->binary, d->kernel->name, pc, out + 4,
                                  size - 4))
    out[0] = 0;
}

double weft__launch_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
