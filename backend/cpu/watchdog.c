/* watchdog.c: the time limit of launches whose loops have stop points
 * (check mode, WEFT_TIMEOUT), and SIGQUIT's report of where their
 * work-items are (executor_internal.h).
 *
 * A thread of the executor's, started with the first such launch, sleeps
 * until the running launch's deadline and then sets the launch's stop
 * word: work-items see it at their next turn of a loop, the first say
 * where they are, their groups end, and the launch fails with
 * WEFT_ETIMEOUT. SIGQUIT sets the word's quit bit instead: each worker
 * whose work-item meets a stop point says where it is, once, and goes on;
 * the watchdog clears the bit a moment later. With no such launch
 * running, SIGQUIT does what it did before Weft. */
#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu/executor_internal.h"

/* How long the quit bit stays set: every worker in a loop meets a stop
 * point well within it. */
#define QUIT_SECONDS 0.2

struct weft_watchdog {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  pthread_t thread;
  launch_state *launch;    /* watched, or NULL */
  double deadline;         /* its monotonic deadline; 0: none */
  int quitting;            /* the executor goes away */
};

/* The running watched launch's stop word, for the SIGQUIT handler, and
 * how many SIGQUITs came (a worker reports once for each). */
static _Atomic(_Atomic uint32_t *) quit_word;
static atomic_uint quit_count;
static struct sigaction previous_quit;

static void on_quit(int sig) {
  _Atomic uint32_t *word = atomic_load(&quit_word);
  if (word) {
    atomic_fetch_add(&quit_count, 1);
    atomic_fetch_or(word, WEFT_STOP_QUIT);
    return;
  }
  /* No kernel to describe: SIGQUIT as it was. */
  sigaction(sig, &previous_quit, NULL);
  raise(sig);
}

static void install_quit_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_quit;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGQUIT, &sa, &previous_quit);
}

/* Until the executor goes: sets the watched launch's timeout bit at its
 * deadline, and clears its quit bit a moment after it is set. */
static void *watch(void *arg) {
  weft_watchdog *d = arg;
  pthread_mutex_lock(&d->lock);
  double quit_seen = 0;
  while (!d->quitting) {
    launch_state *l = d->launch;
    double t = weft__launch_now(), wake = t + 3600;
    if (l && (atomic_load(&l->stop) & WEFT_STOP_QUIT)) {
      if (!quit_seen) quit_seen = t;
      if (t - quit_seen >= QUIT_SECONDS) {
        atomic_fetch_and(&l->stop, ~WEFT_STOP_QUIT);
        quit_seen = 0;
      }
    }
    if (l && d->deadline && t >= d->deadline) {
      atomic_fetch_or(&l->stop, WEFT_STOP_TIMEOUT);
      d->deadline = 0;
    }
    /* A launch is watched in slices, to see SIGQUIT's bit. */
    if (l) wake = t + QUIT_SECONDS / 2;
    if (l && d->deadline && d->deadline < wake) wake = d->deadline;
    struct timespec until = {(time_t)wake,
                             (long)((wake - (double)(time_t)wake) * 1e9)};
    pthread_cond_timedwait(&d->changed, &d->lock, &until);
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

/* The watchdog, started on first use (the lock's attributes make its
 * waits use the monotonic clock). */
static weft_watchdog *watchdog_of(weft_executor *e) {
  if (e->watchdog) return e->watchdog;
  weft_watchdog *d = calloc(1, sizeof *d);
  pthread_condattr_t attr;
  if (!d || pthread_condattr_init(&attr)) {
    free(d);
    return NULL;
  }
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_mutex_init(&d->lock, NULL);
  pthread_cond_init(&d->changed, &attr);
  pthread_condattr_destroy(&attr);
  if (pthread_create(&d->thread, NULL, watch, d)) {
    pthread_cond_destroy(&d->changed);
    pthread_mutex_destroy(&d->lock);
    free(d);
    return NULL;
  }
  install_quit_handler();
  return e->watchdog = d;
}

void weft__watchdog_begin(launch_state *l) {
  weft_executor *e = l->executor;
  if (!(l->desc->kernel->flags & WEFT_KERNEL_STOP_POINTS)) return;
  double limit = e->timeout < 0 ? WEFT_CHECK_TIMEOUT : e->timeout;
  weft_watchdog *d = watchdog_of(e);
  if (!d) return; /* no thread to watch with: the launch runs unwatched */
  pthread_mutex_lock(&d->lock);
  d->launch = l;
  d->deadline = limit > 0 ? weft__launch_now() + limit : 0;
  l->time_limit = limit;
  pthread_cond_signal(&d->changed);
  pthread_mutex_unlock(&d->lock);
  atomic_store(&quit_word, &l->stop);
}

void weft__watchdog_end(launch_state *l) {
  weft_watchdog *d = l->executor->watchdog;
  if (!d || d->launch != l) return;
  atomic_store(&quit_word, NULL);
  pthread_mutex_lock(&d->lock);
  d->launch = NULL;
  d->deadline = 0;
  pthread_mutex_unlock(&d->lock);
}

void weft__watchdog_destroy(weft_executor *e) {
  weft_watchdog *d = e->watchdog;
  if (!d) return;
  pthread_mutex_lock(&d->lock);
  d->quitting = 1;
  pthread_cond_signal(&d->changed);
  pthread_mutex_unlock(&d->lock);
  pthread_join(d->thread, NULL);
  pthread_cond_destroy(&d->changed);
  pthread_mutex_destroy(&d->lock);
  free(d);
  e->watchdog = NULL;
}

/* "work-item (5) [local (5) in work-group (0)] in the loop at
 * program.cl:9:5". */
static void describe_stop(cpu_group *g, uint64_t lx, uint64_t ly, uint64_t lz,
                          uint32_t site, char *out, size_t size) {
  const weft_binary *bin = g->launch->desc->binary;
  assert(site < bin->num_check_sites);
  const weft_check_site *s = &bin->check_sites[site];
  unsigned k = (unsigned)(lx + g->ctx.local_size[0] * (ly + g->ctx.local_size[1] * lz));
  char item[192];
  weft__launch_describe_item(g, k, item, sizeof item);
  if (s->loc.line)
    snprintf(out, size, "%s in the loop at %s:%u:%u", item,
             *s->file ? s->file : "program.cl", s->loc.line, s->loc.column);
  else
    snprintf(out, size, "%s in a loop", item);
}

void weft__cpu_stopped(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly, uint64_t lz,
                       uint32_t site) {
  cpu_group *g = ctx->group;
  launch_state *l = g->launch;
  uint32_t word = atomic_load(&l->stop);
  char where[320];
  if (word & WEFT_STOP_TIMEOUT) {
    describe_stop(g, lx, ly, lz, site, where, sizeof where);
    pthread_mutex_lock(&l->lock);
    if (l->num_stopped < WEFT_STOPPED_MAX)
      snprintf(l->stopped[l->num_stopped], sizeof l->stopped[0], "%s", where);
    l->num_stopped++;
    pthread_mutex_unlock(&l->lock);
    weft__launch_report(l, WEFT_ETIMEOUT, "kernel '%s' ran past its time",
                        l->desc->kernel->name);
    weft__group_abort(g);
  }
  unsigned count = atomic_load(&quit_count);
  if (!(word & WEFT_STOP_QUIT) || g->worker->quit_seen == count) return;
  g->worker->quit_seen = count;
  describe_stop(g, lx, ly, lz, site, where, sizeof where);
  fprintf(stderr, "weft: SIGQUIT: kernel '%s' is running: %s\n",
          l->desc->kernel->name, where);
}

void weft__watchdog_report(launch_state *l) {
  if (l->status != WEFT_ETIMEOUT) return;
  char *text = l->msg->text;
  size_t size = sizeof l->msg->text;
  int used = snprintf(text, size,
                      "kernel '%s' ran past its time limit of %g s "
                      "(WEFT_TIMEOUT) and was ended; still running: ",
                      l->desc->kernel->name, l->time_limit);
  unsigned shown = l->num_stopped < WEFT_STOPPED_MAX ? l->num_stopped
                                                     : WEFT_STOPPED_MAX;
  for (unsigned i = 0; i < shown && used > 0 && (size_t)used < size; i++)
    used += snprintf(text + used, size - (size_t)used, "%s%s", i ? "; " : "",
                     l->stopped[i]);
  if (l->num_stopped > shown && used > 0 && (size_t)used < size)
    snprintf(text + used, size - (size_t)used, "; and %u more work-items",
             l->num_stopped - shown);
}
