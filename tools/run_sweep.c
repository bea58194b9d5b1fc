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

void run_schedule_default(const run_options *opt) {
  /* random-deep for seeds: of the modes, it found the corpus's bugs in the
   * fewest (bench/sync_corpus.py; README, Schedule exploration). Each seed
   * is set before its launch. */
  if (opt->has_seeds) setenv("WEFT_SCHEDULE", "random-deep:0", 0);
  if (opt->explore) setenv("WEFT_SCHEDULE", "exhaustive", 0);
}

/* The environment that replays seed (seed_text in place of its number:
 * "SEED" for the summary), as Weft reads its configuration back; 0, or -1
 * under no schedule that takes a seed. */
static int environment(unsigned long long seed, const char *seed_text,
                       char *out, size_t size) {
  char env[160];
  if (weft_schedule_environment(seed, env, sizeof env)) return -1;
  if (!seed_text) {
    snprintf(out, size, "%s", env);
    return 0;
  }
  /* Formatted with seed 0, the seed is the first ":0" of the value. */
  char *at = strstr(strstr(env, "WEFT_SCHEDULE="), ":0");
  snprintf(out, size, "%.*s:%s%s", (int)(at - env), env, seed_text, at + 2);
  return 0;
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

/* "  ENV weft run ARGS": the command line without the sweep's options
 * (--seeds, --shard, --explore), under env: a run that replays a
 * failure. */
static void print_replay_command(const run_options *opt, const char *env) {
  fprintf(stderr, "  %s weft run", env);
  for (int i = 1; i < opt->argc; i++) {
    const char *a = opt->argv[i];
    if (!strncmp(a, "--seeds=", 8) || !strncmp(a, "--shard=", 8) ||
        !strcmp(a, "--explore"))
      continue;
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

/* One launch: fresh buffers, the launch, the expectations. 0 when it
 * passes, 1 when it fails (reported), or another exit status. */
static int one_launch(run_state *run) {
  run_args_release(run);
  int status = run_args_set(run);
  if (status) return status;
  double ms;
  /* A failed launch is reported with the schedule that reproduces it. */
  if (run_launch(run, &ms)) return 1;
  int broken = run_expect_check(run);
  if (broken < 0) return TOOL_EXIT_FAILED;
  if (!broken) return 0;
  run_show_results(run);
  return 1;
}

/* The replay of the interleaving that failed: WEFT_SCHEDULE=replay:...,
 * after what else the environment must hold (WEFT_MEMORY). */
static void print_explore_replay(const run_options *opt, const char *env) {
  char replay[4096], line[4300];
  unsigned long long explored = 0;
  if (weft_schedule_replay(replay, sizeof replay, &explored)) return;
  fprintf(stderr, "weft run: interleaving %llu fails; replay it with:\n",
          explored + 1);
  snprintf(line, sizeof line, "%.*sWEFT_SCHEDULE=%s",
           (int)(strstr(env, "WEFT_SCHEDULE=") - env), env, replay);
  print_replay_command(opt, line);
}

int run_explore(run_state *run) {
  char env[160];
  if (environment(0, NULL, env, sizeof env) ||
      strncmp(strstr(env, "WEFT_SCHEDULE="), "WEFT_SCHEDULE=exhaustive", 24)) {
    tool_usage_error("run", "--explore: WEFT_SCHEDULE is not "
                     "exhaustive[:BUDGET[:PREEMPTIONS[:full]]] (Weft says "
                     "what it "
                     "read above, if it ignored it): unset it, or give one "
                     "of those");
    return TOOL_EXIT_USAGE;
  }
  for (unsigned long long ran = 1;; ran++) {
    int status = one_launch(run);
    if (status == 1) {
      print_history();
      print_explore_replay(run->opt, env);
      return TOOL_EXIT_FAILED;
    }
    if (status) return status;
    int next = weft_schedule_next();
    if (next == 1) continue;
    if (next == 0) {
      unsigned long long repeats = 0;
      weft_schedule_explored(NULL, &repeats);
      printf("weft run: all %llu distinct interleaving%s within %s "
             "explored in %llu launches, no failure%s\n", ran - repeats,
             ran - repeats == 1 ? "" : "s", env, ran,
             run->opt->num_expects ? "" : " (nothing was checked but that "
                                          "each launch succeeded: no "
                                          "--expect)");
      return 0;
    }
    if (next == WEFT_ERANGE) {
      printf("weft run: %llu interleavings explored, no failure; the "
             "budget is spent and more are left (WEFT_SCHEDULE="
             "exhaustive:BUDGET[:PREEMPTIONS[:full]])\n", ran);
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
  char env[160];
  if (environment(0, "SEED", env, sizeof env) ||
      strstr(env, "WEFT_SCHEDULE=exhaustive") ||
      strstr(env, "WEFT_SCHEDULE=replay:")) {
    tool_usage_error("run", "--seeds: WEFT_SCHEDULE is not a schedule that "
                     "takes a seed (Weft says what it read above, if it "
                     "ignored it): unset it (random-deep), or give "
                     "random:SEED, random-deep:SEED, pct:SEED or "
                     "pct:SEED:DEPTH");
    return TOOL_EXIT_USAGE;
  }
  for (unsigned long long seed = opt->seed_first + opt->shard;
       seed <= opt->seed_last && seed >= opt->seed_first; seed += step) {
    weft_schedule_seed(seed);
    int status = one_launch(run);
    if (status == 1) {
      char replay[160];
      print_history();
      fprintf(stderr, "weft run: seed %llu fails; replay it with:\n", seed);
      environment(seed, NULL, replay, sizeof replay);
      print_replay_command(opt, replay);
      return TOOL_EXIT_FAILED;
    }
    if (status) return status;
    ran++;
    if (seed + step < seed) break; /* the last seed of the range */
  }
  printf("weft run: %llu seed%s of %llu..%llu passed under %s", ran,
         ran == 1 ? "" : "s", opt->seed_first, opt->seed_last, env);
  if (opt->shards) printf(" (shard %u/%u)", opt->shard, opt->shards);
  printf("%s\n", opt->num_expects ? "" : "; nothing was checked but that "
                                        "each launch succeeded (no --expect)");
  return 0;
}
