/* check_report.c: check mode's reports on the CPU (executor_internal.h).
 *
 * Generated code calls weft__cpu_check_failed for an access that failed
 * its check and was not carried out (jit/cpu/check_memory.c), and
 * check_races.c reports a race here (the racing access was made). The
 * launch keeps
 * one report per check site: the first work-item that failed there, its
 * offset and size, and how many times the site failed in all. When the
 * launch ends, it fails with WEFT_ECHECK and the reports, in the order
 * their first failures came. A division by zero is only a warning (the
 * kernel went on with a defined value): alone, it goes to stderr and the
 * launch succeeds. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"

struct check_report {
  uint64_t count;       /* failures at the site; 0: none */
  unsigned order;       /* of its first failure among the sites' */
  int64_t offset;
  uint64_t size;
  uint64_t extent;      /* the object's bytes then */
  char item[160];       /* the first work-item that failed */
  int race;             /* a race: the other access follows */
  weft_race_other other;
};

/* The launch's reports, one per check site, made at the first failure
 * (launch lock held). NULL when out of memory: the failure is still
 * counted in checks_lost. */
static check_report *reports_of(launch_state *l) {
  if (!l->checks)
    l->checks = calloc(l->desc->binary->num_check_sites + 1, sizeof *l->checks);
  return l->checks;
}

void weft__check_record(cpu_group *g, unsigned k, uint32_t site,
                        int64_t offset, uint64_t size,
                        const weft_race_other *other) {
  launch_state *l = g->launch;
  const weft_binary *bin = l->desc->binary;
  assert(site < bin->num_check_sites);
  const weft_check_site *s = &bin->check_sites[site];
  pthread_mutex_lock(&l->lock);
  check_report *all = reports_of(l);
  if (!all) {
    l->checks_lost++;
  } else if (!all[site].count++) {
    check_report *r = &all[site];
    r->order = l->num_checks++;
    r->offset = offset;
    r->size = size;
    r->extent = s->arg >= 0 ? g->ctx.arg_sizes[s->arg] : s->extent;
    weft__launch_describe_item(g, k, r->item, sizeof r->item);
    r->race = other != NULL;
    if (other) r->other = *other;
  }
  pthread_mutex_unlock(&l->lock);
}

void weft__cpu_check_failed(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                            uint64_t lz, uint32_t site, int64_t offset,
                            uint64_t size) {
  unsigned k = weft__item_index(ctx, lx, ly, lz);
  weft__check_record(ctx->group, k, site, offset, size, NULL);
}

/* "argument 1 'out' (a 256-byte buffer)", "private variable 'tmp' (16
 * bytes)". */
static void describe_object(const weft_launch_desc *d, const weft_check_site *s,
                            uint64_t extent, char *out, size_t size) {
  static const char *const spaces[] = {"private", "__global", "__constant",
                                       "__local"};
  const char *space = spaces[s->space & 3];
  if (s->arg < 0) {
    snprintf(out, size, "%s variable%s%s%s (%" PRIu64 " bytes)", space,
             *s->variable ? " '" : "", s->variable, *s->variable ? "'" : "",
             extent);
    return;
  }
  const weft_arg_desc *a = &d->kernel->args[s->arg];
  snprintf(out, size, "argument %d '%s' (%s%" PRIu64 " bytes%s)", s->arg,
           a->name, a->kind == WEFT_ARG_LOCAL ? "__local, " : "", extent,
           a->kind == WEFT_ARG_LOCAL ? "" : " from where it points");
}

/* "just past the end of", "4 bytes past the end of", "8 bytes before the
 * start of", or, for an access that begins inside, "overrunning the end
 * of". */
static void describe_position(const check_report *r, char *out, size_t size) {
  if (r->offset < 0)
    snprintf(out, size, "%" PRIu64 " bytes before the start of",
             (uint64_t)-r->offset);
  else if ((uint64_t)r->offset == r->extent)
    snprintf(out, size, "just past the end of");
  else if ((uint64_t)r->offset > r->extent)
    snprintf(out, size, "%" PRIu64 " bytes past the end of",
             (uint64_t)r->offset - r->extent);
  else
    snprintf(out, size, "at offset %" PRId64 ", overrunning the end of",
             r->offset);
}

/* "at offset 60 of" (an uninitialised read). */
static void describe_offset(const check_report *r, char *out, size_t size) {
  snprintf(out, size, "at offset %" PRId64 " of", r->offset);
}

static const char *access_name(unsigned access) {
  return access == WEFT_ACCESS_READ    ? "read"
         : access == WEFT_ACCESS_WRITE ? "write"
                                       : "atomic read-modify-write";
}

/* "prog.cl:9:18", or "(no source line)". */
static void describe_site(const weft_check_site *s, char *out, size_t size) {
  if (s->loc.line)
    snprintf(out, size, "%s:%u:%u", *s->file ? s->file : "program.cl",
             s->loc.line, s->loc.column);
  else
    snprintf(out, size, "(no source line)");
}

/* A race's line after its site: "read-write race on OBJECT at offset 4:
 * ITEM reads 4 bytes here, and ITEM wrote them at WHERE, with no barrier
 * between". */
static int format_race(const launch_state *l, const weft_check_site *s,
                       const check_report *r, const char *object, char *out,
                       size_t size) {
  const weft_check_site *sites = l->desc->binary->check_sites;
  const weft_check_site *o = r->other.site >= 0 ? &sites[r->other.site] : NULL;
  int writes = (s->access & WEFT_ACCESS_WRITE) != 0;
  int other_writes = o && (o->access & WEFT_ACCESS_WRITE);
  char other[160], where[192];
  weft__check_races_describe(l, r->other.item, other, sizeof other);
  if (o) describe_site(o, where, sizeof where);
  else snprintf(where, sizeof where, "a line not recorded");
  return snprintf(
      out, size,
      "%s race on %s at offset %" PRId64 ": %s %s %" PRIu64 " bytes here, and "
      "%s %s them at %s, %s",
      writes && other_writes ? "write-write" : "read-write", object, r->offset,
      r->item, writes ? "writes" : "reads", r->size, other,
      other_writes ? "wrote" : "read", where,
      r->other.same_group ? "with no barrier between"
                          : "in another work-group, and no atomic, lock or "
                            "flag orders the two");
}

/* One report's line. */
static void format_report(const launch_state *l, unsigned site,
                          const check_report *r, char *out, size_t size) {
  const weft_launch_desc *d = l->desc;
  const weft_check_site *s = &d->binary->check_sites[site];
  char object[256], position[96], where[192];
  describe_object(d, s, r->extent, object, sizeof object);
  describe_position(r, position, sizeof position);
  describe_site(s, where, sizeof where);
  if (s->access == WEFT_ACCESS_UNINIT) describe_offset(r, position, sizeof position);
  int n = snprintf(out, size, "%s: ", where);
  if (n < 0 || (size_t)n >= size) return;
  out += n;
  size -= (size_t)n;
  n = r->race ? format_race(l, s, r, object, out, size)
      : s->access == WEFT_ACCESS_UNINIT
          ? snprintf(out, size, "uninitialised read of %" PRIu64
                                " bytes by %s, %s %s",
                     r->size, r->item, position, object)
      : s->access == WEFT_ACCESS_DIVIDE
          ? snprintf(out, size, "warning: integer division by zero by "
                                "%s (the kernel went on: x / 0 gives all "
                                "ones, x %% 0 gives x)",
                     r->item)
          : snprintf(out, size, "invalid %s of %" PRIu64 " bytes by "
                                "%s, %s %s",
                     access_name(s->access), r->size, r->item, position, object);
  if (r->count > 1 && n > 0 && (size_t)n < size)
    snprintf(out + n, size - (size_t)n, "; %" PRIu64 " times in all", r->count);
}

/* The sites that failed, in the order of their first failures. */
static unsigned *failed_sites(const launch_state *l, unsigned n_sites) {
  unsigned *order = malloc((l->num_checks + 1) * sizeof *order);
  if (!order) return NULL;
  for (unsigned i = 0; i < n_sites; i++)
    if (l->checks[i].count) order[l->checks[i].order] = i;
  return order;
}

/* The sites that failed and are errors (not warnings). */
static unsigned count_errors(const launch_state *l, const unsigned *order) {
  const weft_check_site *sites = l->desc->binary->check_sites;
  unsigned errors = 0;
  for (unsigned i = 0; order && i < l->num_checks; i++)
    errors += sites[order[i]].access != WEFT_ACCESS_DIVIDE;
  return errors;
}

void weft__check_reports_finish(launch_state *l) {
  if (!l->checks && !l->checks_lost) return;
  const weft_launch_desc *d = l->desc;
  unsigned *order = l->checks ? failed_sites(l, d->binary->num_check_sites) : NULL;
  unsigned errors = count_errors(l, order) + (l->checks_lost != 0);
  char text[WEFT_MSG_MAX];
  int used = errors ? snprintf(text, sizeof text,
                               "kernel '%s': %u error%s found by check mode "
                               "(invalid accesses were not carried out)",
                               d->kernel->name, errors, errors == 1 ? "" : "s")
                    : snprintf(text, sizeof text,
                               "kernel '%s': %u warning%s from check mode",
                               d->kernel->name, l->num_checks,
                               l->num_checks == 1 ? "" : "s");
  for (unsigned i = 0; order && i < l->num_checks && used > 0 &&
                       (size_t)used < sizeof text; i++) {
    char line[WEFT_MSG_MAX];
    format_report(l, order[i], &l->checks[order[i]], line, sizeof line);
    used += snprintf(text + used, sizeof text - (size_t)used, "\n%s", line);
  }
  if (l->checks_lost && used > 0 && (size_t)used < sizeof text)
    snprintf(text + used, sizeof text - (size_t)used,
             "\n(%" PRIu64 " more not described: out of memory)", l->checks_lost);
  free(order);
  free(l->checks);
  l->checks = NULL;
  if (!errors) {
    fprintf(stderr, "weft: %s\n", text);
    return;
  }
  /* A failure the checks did not prevent (a fault, a deadlock) keeps its
   * own report: it ended the launch. */
  if (!l->status) weft__launch_report(l, WEFT_ECHECK, "%s", text);
}
