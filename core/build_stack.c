/* build_stack.c: builds on a stack of Weft's own (build_stack.h), within
 * WEFT_BUILD_TIMEOUT.
 *
 * A device build runs as a job on a thread of its own, with its own
 * copies of what it builds, so that the caller may stop waiting for it: a
 * build past WEFT_BUILD_TIMEOUT fails with a log that says so. Clang and
 * LLVM cannot be stopped midway, so the abandoned job runs on to its end
 * in the background and then frees what it made; the caller, its program
 * and the rest of the process go on (the job's time and memory are spent
 * all the same: README, Security). A crash of the compiler on the job's
 * thread is caught (job_guarded). */
#include "core/build_stack.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backends.h"
#include "base/config.h"
#include "base/fault.h"
#include "base/log.h"
#include "core/build_isolated.h"
#include "core/handles.h"
#include "jit/cache/cache.h"
#include "jit/front/compile.h"

#define BUILD_STACK ((size_t)1 << 30)

/* A joinable thread with the build stack running fn(arg): 0, or -1. */
static int start(pthread_t *thread, void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr)) return -1;
  int rc = pthread_attr_setstacksize(&attr, BUILD_STACK) ||
           pthread_create(thread, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  return rc ? -1 : 0;
}

/* ------------------------------------------------ device operations */

/* PTX: weft_compile_ptx's build for an architecture, with no device. */
typedef enum { BUILD, BUILD_IR, COMPILE, PTX } job_kind;

/* One operation: its own copies of the inputs, its results, and whether
 * the caller still waits for them (under lock). */
typedef struct job {
  pthread_mutex_t lock;
  pthread_cond_t finished;
  int done, abandoned;
  job_kind kind;
  weft_device *dev;
  unsigned sm;              /* PTX's architecture */
  char *source, *options;   /* source: BUILD, COMPILE, PTX; ir: BUILD_IR */
  size_t length;
  weft_jit_header *headers;
  unsigned num_headers;
  int rc;
  weft_binary *binary;
  void *ir;                 /* COMPILE's object; PTX's text */
  size_t ir_size;
  char *log;
} job;

static void job_free(job *j) {
  free(j->source);
  free(j->options);
  for (unsigned i = 0; i < j->num_headers; i++) {
    free((char *)j->headers[i].name);
    free((char *)j->headers[i].source);
  }
  free(j->headers);
  if (j->binary) j->dev->ops->binary_free(j->dev->state, j->binary);
  free(j->ir);
  free(j->log);
  pthread_cond_destroy(&j->finished);
  pthread_mutex_destroy(&j->lock);
  free(j);
}

static char *copy(const void *bytes, size_t n) {
  char *c = malloc(n + 1);
  if (c) {
    memcpy(c, bytes, n);
    c[n] = 0;
  }
  return c;
}

/* A job with copies of its inputs, or NULL without memory. */
static job *job_new(job_kind kind, weft_device *dev, const void *source,
                    size_t length, const char *options,
                    const weft_jit_header *headers, unsigned num_headers) {
  job *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  pthread_mutex_init(&j->lock, NULL);
  /* The time limit is measured on the monotonic clock: a change of the
   * wall clock neither ends a build early nor lets it run on. */
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&j->finished, &attr);
  pthread_condattr_destroy(&attr);
  j->kind = kind;
  j->dev = dev;
  j->length = length;
  j->source = copy(source, length);
  j->options = options ? copy(options, strlen(options)) : NULL;
  j->headers = num_headers ? calloc(num_headers, sizeof *j->headers) : NULL;
  int ok = j->source && (!options || j->options) && (!num_headers || j->headers);
  for (unsigned i = 0; ok && i < num_headers; i++, j->num_headers++) {
    j->headers[i].name = copy(headers[i].name, strlen(headers[i].name));
    j->headers[i].source = copy(headers[i].source, strlen(headers[i].source));
    ok = j->headers[i].name && j->headers[i].source;
  }
  /* (A header that failed is counted: its copies, if any, are freed.) */
  if (!ok) {
    job_free(j);
    return NULL;
  }
  return j;
}

/* The PTX of j's source, as its text in j->ir: the build of the back end
 * that makes PTX, which needs no device. */
static int ptx_do(job *j) {
  const weft_backend *b = weft__backends;
  while (b < weft__backends + weft__num_backends && !b->compile_ptx) b++;
  if (b == weft__backends + weft__num_backends) {
    j->log = strdup("error: no back end of this Weft makes PTX\n");
    return WEFT_ENODEV;
  }
  char *ptx = NULL;
  int rc = b->compile_ptx(weft__config(), j->sm, j->source, j->length,
                          j->options, &ptx, &j->log);
  j->ir = ptx;
  j->ir_size = ptx ? strlen(ptx) : 0;
  return rc;
}

static void job_do(job *j) {
  const weft_device_ops *ops = j->dev ? j->dev->ops : NULL;
  switch (j->kind) {
  case BUILD:
    j->rc = ops->build(j->dev->state, j->source, j->length, j->options,
                       &j->binary, &j->log);
    break;
  case BUILD_IR:
    j->rc = ops->build_ir(j->dev->state, j->source, j->length, j->options,
                          &j->binary, &j->log);
    break;
  case COMPILE:
    j->rc =
        ops->compile(j->dev->state, j->source, j->length, j->options,
                     j->headers, j->num_headers, &j->ir, &j->ir_size, &j->log);
    break;
  case PTX:
    j->rc = ptx_do(j);
    break;
  }
}

static int job_call(void *arg) {
  job_do(arg);
  return 0;
}

/* Does j with a crash of Clang or LLVM caught (Clang 19 crashes on some
 * ill-formed source: tests/fuzz_crashes/): a build error that says so,
 * and the process goes on, what the compiler had allocated lost. */
static void job_guarded(job *j) {
  int unused;
  char what[160], text[384];
  if (!weft__fault_run(job_call, j, &unused, what, sizeof what)) return;
  snprintf(text, sizeof text, "error: the compiler crashed on this source "
           "(%s), a bug of Clang or LLVM; the build failed and Weft went on\n",
           what);
  j->binary = NULL; /* whatever the compiler had made is lost */
  j->ir = NULL;
  j->log = strdup(text);
  j->rc = WEFT_EBUILD;
}

/* The job's thread: does it, then hands the results over, or frees them
 * when no one waits any more. */
static void *job_main(void *arg) {
  job *j = arg;
  job_guarded(j);
  pthread_mutex_lock(&j->lock);
  int abandoned = j->abandoned;
  j->done = 1;
  pthread_cond_signal(&j->finished);
  pthread_mutex_unlock(&j->lock);
  if (abandoned) job_free(j);
  return NULL;
}

/* Waits for j until the build time limit (none: until it ends); 1 when it
 * ended, 0 when it was abandoned (then its thread frees it). */
static int wait_for(job *j, pthread_t thread) {
  double limit = weft__config()->build_timeout;
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += (time_t)limit;
  until.tv_nsec += (long)((limit - (double)(time_t)limit) * 1e9);
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&j->lock);
  int rc = 0;
  while (!j->done && rc != ETIMEDOUT)
    rc = limit > 0 ? pthread_cond_timedwait(&j->finished, &j->lock, &until)
                   : pthread_cond_wait(&j->finished, &j->lock);
  int done = j->done;
  j->abandoned = !done;
  pthread_mutex_unlock(&j->lock);
  if (done) pthread_join(thread, NULL);
  else pthread_detach(thread);
  return done;
}

/* j's status, with its results moved to the caller's (out, or ir and
 * size; log always); j is freed. */
static int job_results(job *j, weft_binary **out, void **ir, size_t *size,
                       char **log) {
  int rc = j->rc;
  if (out) *out = j->binary;
  if (ir) *ir = j->ir;
  if (size) *size = j->ir_size;
  *log = j->log;
  j->binary = NULL;
  j->ir = NULL;
  j->log = NULL;
  job_free(j);
  return rc;
}

/* ------------------------------------------- in a helper process */

/* Does j from the kernel cache alone: WEFT__EMISS when it is not there. */
static int job_from_cache(job *j) {
  free(j->log);
  j->log = NULL;
  weft__cache_only(1);
  job_do(j);
  weft__cache_only(0);
  return j->rc;
}

static int device_index(const weft_device *dev) {
  weft_device *d;
  for (int i = 0; i < weft_device_count(); i++)
    if (!weft_device_get(i, &d) && d == dev) return i;
  return -1;
}

/* A build the helper made: its cache entry adopted, then the build done
 * again from the cache, which now holds it. */
static void adopt(job *j, const weft_build_reply *reply) {
  weft_cached *held = weft__cache_adopt((weft_cache_kind)reply->kind,
                                        reply->payload, reply->size);
  if (held && job_from_cache(j) != WEFT__EMISS) {
    weft__cache_release(held);
    return;
  }
  weft__cache_release(held);
  free(j->log);
  j->log = strdup(held ? "error: the build helper's result is not this "
                         "build's (another libweft?)\n"
                       : "error: the build helper's result is damaged\n");
  j->rc = WEFT_EBUILD;
}

/* Does j in a helper (build_isolated.h); 0 when there was none to be had
 * (j is then still to do). A build that is in the cache needs none. */
static int job_isolated(job *j) {
  if (j->kind != COMPILE && job_from_cache(j) != WEFT__EMISS) return 1;
  free(j->log);
  j->log = NULL;
  static const weft_build_op ops[] = {[BUILD] = WEFT_BUILD_SOURCE,
                                      [BUILD_IR] = WEFT_BUILD_IR,
                                      [COMPILE] = WEFT_BUILD_COMPILE,
                                      [PTX] = WEFT_BUILD_PTX};
  weft_build_request request = {ops[j->kind],
                                j->dev ? device_index(j->dev) : -1,
                                j->sm, j->source, j->length, j->options,
                                j->headers, j->num_headers};
  weft_build_reply reply;
  int rc = weft__build_in_helper(&request, &reply, &j->log);
  if (rc == WEFT__ENOHELPER) return 0;
  j->rc = rc ? rc : reply.rc;
  /* A compile's object, PTX's text: the result itself. */
  if (!rc && (reply.rc || j->kind == COMPILE || j->kind == PTX)) {
    j->log = reply.log; /* the helper's log is the build's */
    reply.log = NULL;
    j->ir = reply.payload;
    j->ir_size = reply.size;
    reply.payload = NULL;
  } else if (!rc) {
    adopt(j, &reply);
  }
  weft__wire_reply_free(&reply);
  return 1;
}

/* ------------------------------------------- in this process */

/* Runs j within the time limit, or in a helper under a memory limit: its
 * status, with its results moved to the caller's. */
static int job_run_logged(job *j, weft_binary **out, void **ir,
                          size_t *size, char **log, int *isolated) {
  pthread_t thread;
  if (weft__build_isolated() && job_isolated(j)) {
    *isolated = 1; /* done in a helper */
  } else if (start(&thread, job_main, j)) {
    job_guarded(j); /* no thread to be had: here, without a limit */
  } else if (!wait_for(j, thread)) {
    char text[160];
    snprintf(text, sizeof text, "error: the build ran past WEFT_BUILD_TIMEOUT "
             "(%g s) and was abandoned\n", weft__config()->build_timeout);
    *log = strdup(text);
    return WEFT_EBUILD;
  }
  return job_results(j, out, ir, size, log);
}

/* WEFT_LOG=build,cache: what j is, before it runs (the job goes with its
 * results). */
static void job_describe(const job *j, char *out, size_t size) {
  static const char *const kinds[] = {[BUILD] = "build", [BUILD_IR] =
                                      "build from IR", [COMPILE] = "compile",
                                      [PTX] = "PTX build"};
  char target[sizeof weft__device_info(j->dev)->name];
  if (j->kind == PTX) snprintf(target, sizeof target, "sm_%u", j->sm);
  else snprintf(target, sizeof target, "%s", weft__device_info(j->dev)->name);
  snprintf(out, size, "%s of %zu bytes for %s (options '%s')", kinds[j->kind],
           j->length, target, j->options ? j->options : "");
}

/* Then how it went, and where a build came from. */
static void job_log(const char *what, int rc, const weft_binary *binary,
                    const char *log, double seconds, int isolated) {
  const char *where = isolated ? " in the build helper" : "";
  if (rc) {
    const char *error = log ? strstr(log, "error:") : NULL;
    weft__log(WEFT_LOG_BUILD, "%s: failed%s after %.1f ms: %.*s", what,
              where, seconds * 1e3, error ? (int)strcspn(error, "\n") : 0,
              error ? error : "");
    return;
  }
  weft__log(WEFT_LOG_BUILD, "%s: done%s in %.1f ms", what, where,
            seconds * 1e3);
  if (!binary) return;
  const char *dir = weft__config()->cache_dir;
  const char *kept = dir ? "on disk in " : "in memory (WEFT_CACHE_DIR=off)";
  if (isolated) /* the helper's result, adopted through the cache */
    weft__log(WEFT_LOG_CACHE, "%s: built by the build helper, kept %s%s",
              what, kept, dir ? dir : "");
  else if (binary->from_cache)
    weft__log(WEFT_LOG_CACHE, "%s: found in the kernel cache, %s", what,
              binary->from_cache == 2 ? "on disk" : "in memory");
  else
    weft__log(WEFT_LOG_CACHE, "%s: not in the kernel cache: built, and kept "
              "%s%s", what, kept, dir ? dir : "");
}

static int job_run(job *j, weft_binary **out, void **ir, size_t *size,
                   char **log) {
  if (!weft__logging(WEFT_LOG_BUILD | WEFT_LOG_CACHE))
    return job_run_logged(j, out, ir, size, log, &(int){0});
  char what[512];
  job_describe(j, what, sizeof what);
  double start = weft__log_now();
  int isolated = 0;
  int rc = job_run_logged(j, out, ir, size, log, &isolated);
  job_log(what, rc, out ? *out : NULL, *log, weft__log_now() - start,
          isolated);
  return rc;
}

static int no_memory(char **log) {
  *log = strdup("error: out of memory\n");
  return WEFT_ENOMEM;
}

int weft__device_build(weft_device *dev, const char *source, size_t length,
                       const char *options, weft_binary **out, char **log) {
  job *j = job_new(BUILD, dev, source, length, options, NULL, 0);
  return j ? job_run(j, out, NULL, NULL, log) : no_memory(log);
}

int weft__device_build_ir(weft_device *dev, const void *ir, size_t size,
                          const char *options, weft_binary **out, char **log) {
  job *j = job_new(BUILD_IR, dev, ir, size, options, NULL, 0);
  return j ? job_run(j, out, NULL, NULL, log) : no_memory(log);
}

int weft__device_compile(weft_device *dev, const char *source, size_t length,
                         const char *options, const weft_jit_header *headers,
                         unsigned num_headers, void **ir, size_t *size,
                         char **log) {
  job *j = job_new(COMPILE, dev, source, length, options, headers, num_headers);
  return j ? job_run(j, NULL, ir, size, log) : no_memory(log);
}

int weft__ptx_build(unsigned sm, const char *source, size_t length,
                    const char *options, char **ptx, char **log) {
  job *j = job_new(PTX, NULL, source, length, options, NULL, 0);
  if (!j) return no_memory(log);
  j->sm = sm;
  return job_run(j, NULL, (void **)ptx, NULL, log);
}
