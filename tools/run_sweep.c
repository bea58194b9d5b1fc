/* run_sweep.c: `weft run --seeds A..B`: the kernel once per seed of a
 * schedule exploration (WEFT_SCHEDULE), each launch on fresh buffers and
 * judged by --expect, until one fails; that seed is printed with what ran
 * last and the command that replays it, alone, as the first launch of its
 * seed. `weft run --explore`: the same over the interleavings of an
 * exhaustive exploration, the failing one named by its replay value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "tool.h"

/* The mode of WEFT_SCHEDULE ("pct", "random"...), or NULL when it names
 * none (unset, fifo, malformed: Weft warns of the last). */
static const char *schedule_mode(char *out, size_t size) {
  const char *v = getenv("WEFT_SCHEDULE");
  if (!v) return NULL;
  size_t length = strcspn(v, ":");
  if (!v[length] || length >= size) return NULL;
  snprintf(out, size, "%.*s", (int)length, v);
  return out;
}

/* Whether WEFT_SCHEDULE is MODE:NUMBER[:NUMBER] of a mode that takes a
 * seed (Weft itself says more of a malformed one). */
static int schedule_valid(const char *v) {
  static const char *const modes[] = {"random:", "random-deep:", "pct:"};
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
    size_t n = strlen(modes[i]);
    if (strncmp(v, modes[i], n)) continue;
    size_t digits = strspn(v + n, "0123456789");
    return digits && (!v[n + digits] ||
                      (i == 2 && v[n + digits] == ':' &&
                       strspn(v + n + digits + 1, "0123456789") ==
                           strlen(v + n + digits + 1)));
  }
  return 0;
}

int run_sweep_prepare(const run_options *opt) {
  char mode[32], value[64];
  const char *v = getenv("WEFT_SCHEDULE");
  if (v && strcmp(v, "fifo") && !schedule_valid(v)) {
    tool_usage_error("run", "--seeds: WEFT_SCHEDULE='%s' is not a schedule "
                     "that takes a seed: unset it (random-deep), or give "
                     "random:SEED, random-deep:SEED, pct:SEED or "
                     "pct:SEED:DEPTH", v);
    return TOOL_EXIT_USAGE;
  }
  if (schedule_mode(mode, sizeof mode)) return 0;
  /* random-deep: of the modes, it found the corpus's bugs in the fewest
   * seeds (bench/sync_corpus.py; README, Schedule exploration). */
  snprintf(value, sizeof value, "random-deep:%llu", opt->seed_first);
  setenv("WEFT_SCHEDULE", value, 1);
  return 0;
}

/* "pct:17:3": WEFT_SCHEDULE with seed ("17", "SEED") in place of its
 * own. */
static void schedule_with_seed(const char *seed, char *out, size_t size) {
  char mode[32];
  const char *v = getenv("WEFT_SCHEDULE");
  if (!schedule_mode(mode, sizeof mode)) {
    snprintf(out, size, "?");
    return;
  }
  const char *depth = strchr(strchr(v, ':') + 1, ':');
  snprintf(out, size, "%s:%s%s", mode, seed, depth ? depth : "");
}

/* Prints word quoted for a POSIX shell, when it needs quoting. */
static void print_quoted(const char *word, FILE *out) {
  if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
                            "wxyz0123456789_./=:,+-@%") == strlen(word)) {
    fputs(word, out);
    return;
  }
  fputc('\'', out);
  for (const char *p = word; *p; p++)
    if (*p == '\'') fputs("'\\''", out);
    else fputc(*p, out);
  fputc('\'', out);
}

/* The command line without --seeds and --shard, under the failing seed's
 * schedule: a run that replays the failure. */
static void print_replay(const run_options *opt, unsigned long long seed) {
  char schedule[96], number[24];
  snprintf(number, sizeof number, "%llu", seed);
  schedule_with_seed(number, schedule, sizeof schedule);
  const char *memory = getenv("WEFT_MEMORY");
  int weak = memory && !strcmp(memory, "weak");
  fprintf(stderr, "weft run: seed %llu fails; replay it with:\n  %s"
          "WEFT_SCHEDULE=%s weft run", seed, weak ? "WEFT_MEMORY=weak " : "",
          schedule);
  for (int i = 1; i < opt->argc; i++) {
    const char *a = opt->argv[i];
    int joined = !strncmp(a, "--seeds=", 8) || !strncmp(a, "--shard=", 8);
    if (joined) continue;
    if (!strcmp(a, "--seeds") || !strcmp(a, "--shard")) {
      i++;
      continue;
    }
    fputc(' ', stderr);
    print_quoted(a, stderr);
  }
  fputc('\n', stderr);
}

/* What the failing launch's work-items ran last, between schedule
 * points. */
static void print_history(void) {
  static char text[8192];
  if (weft_schedule_history(text, sizeof text) || !text[0]) return;
  fprintf(stderr, "weft run: the last stretches of its interleaving, oldest "
          "first:\n");
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
    fprintf(stderr, "  %s\n", line);
}

/* One seed: fresh buffers, the launch, the expectations. 0 when it passes,
 * 1 when it fails (reported), or another exit status. */
static int one_seed(run_state *run, unsigned long long seed) {
  run_args_release(run);
  int status = run_args_set(run);
  if (status) return status;
  weft_schedule_seed(seed);
  double ms;
  /* A failed launch is reported with the schedule that reproduces it. */
  if (run_launch(run, &ms)) return 1;
  int broken = run_expect_check(run);
  if (broken < 0) return TOOL_EXIT_FAILED;
  if (!broken) return 0;
  run_show_results(run);
  return 1;
}

int run_explore_prepare(void) {
  const char *v = getenv("WEFT_SCHEDULE");
  if (!v || !strcmp(v, "fifo")) {
    setenv("WEFT_SCHEDULE", "exhaustive", 1);
    return 0;
  }
  if (!strncmp(v, "exhaustive", 10)) return 0;
  tool_usage_error("run", "--explore: WEFT_SCHEDULE='%s' is not "
                   "exhaustive[:BUDGET[:PREEMPTIONS]]: unset it, or give one "
                   "of those", v);
  return TOOL_EXIT_USAGE;
}

/* The command line without --explore, under the interleaving's replay. */
static void print_explore_replay(const run_options *opt) {
  char replay[4096];
  unsigned long long explored = 0;
  if (weft_schedule_replay(replay, sizeof replay, &explored)) return;
  const char *memory = getenv("WEFT_MEMORY");
  int weak = memory && !strcmp(memory, "weak");
  fprintf(stderr, "weft run: interleaving %llu fails; replay it with:\n  %s"
          "WEFT_SCHEDULE=%s weft run", explored + 1,
          weak ? "WEFT_MEMORY=weak " : "", replay);
  for (int i = 1; i < opt->argc; i++) {
    if (strcmp(opt->argv[i], "--explore")) {
      fputc(' ', stderr);
      print_quoted(opt->argv[i], stderr);
    }
  }
  fputc('\n', stderr);
}

int run_explore(run_state *run) {
  for (unsigned long long ran = 1;; ran++) {
    int status = one_seed(run, 0);
    if (status == 1) {
      print_history();
      print_explore_replay(run->opt);
      return TOOL_EXIT_FAILED;
    }
    if (status) return status;
    int next = weft_schedule_next();
    if (next == 1) continue;
    if (next == 0) {
      printf("weft run: all %llu interleaving%s within WEFT_SCHEDULE=%s "
             "explored, no failure%s\n", ran, ran == 1 ? "" : "s",
             getenv("WEFT_SCHEDULE"),
             run->opt->num_expects ? "" : " (nothing was checked but that "
                                          "each launch succeeded: no "
                                          "--expect)");
      return 0;
    }
    if (next == WEFT_ERANGE) {
      printf("weft run: %llu interleavings explored, no failure; the "
             "budget is spent and more are left (WEFT_SCHEDULE="
             "exhaustive:BUDGET[:PREEMPTIONS])\n", ran);
      return TOOL_EXIT_FAILED;
    }
    tool_error("run", "--explore: %s after %llu interleavings",
               weft_strerror(next), ran);
    return TOOL_EXIT_FAILED;
  }
}

int run_sweep(run_state *run) {
  const run_options *opt = run->opt;
  unsigned long long step = opt->shards ? opt->shards : 1, ran = 0;
  char schedule[96];
  for (unsigned long long seed = opt->seed_first + opt->shard;
       seed <= opt->seed_last && seed >= opt->seed_first; seed += step) {
    int status = one_seed(run, seed);
    if (status == 1) {
      print_history();
      print_replay(opt, seed);
      return TOOL_EXIT_FAILED;
    }
    if (status) return status;
    ran++;
    if (seed + step < seed) break; /* the last seed of the range */
  }
  schedule_with_seed("SEED", schedule, sizeof schedule);
  printf("weft run: %llu seed%s of %llu..%llu passed under WEFT_SCHEDULE=%s",
         ran, ran == 1 ? "" : "s", opt->seed_first, opt->seed_last,
         schedule);
  if (opt->shards) printf(" (shard %u/%u)", opt->shard, opt->shards);
  printf("%s\n", opt->num_expects ? "" : "; nothing was checked but that "
                                        "each launch succeeded (no --expect)");
  return 0;
}
