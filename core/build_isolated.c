/* build_isolated.c: builds in a watched helper process (build_isolated.h). */
#include "core/build_isolated.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "jit/front/compile.h"
#include "weft/weft.h"

#define HELPER_NAME "weft-build-helper"
/* How often the helper's memory and time are looked at. */
#define WATCH_MS 20

extern char **environ;

static int in_helper;
static pthread_once_t located = PTHREAD_ONCE_INIT;
static char *helper_path;

void weft__build_helper_mode(void) { in_helper = 1; }

/* The helper beside the library (a build tree) or in the libexec folder
 * of the installation it is part of: nowhere else, so that no file that is
 * not part of this Weft is run. */
static void locate(void) {
  Dl_info info;
  char *lib = dladdr((void *)weft__build_isolated, &info) && info.dli_fname
                  ? realpath(info.dli_fname, NULL)
                  : NULL;
  char *slash = lib ? strrchr(lib, '/') : NULL;
  if (slash) *slash = 0;
  /* Beside the library (a build tree), in libexec/weft relative to it
   * (installed under any prefix), or where the build meant to install. */
  char *relative = NULL;
  if (slash && asprintf(&relative, "%s/" WEFT_LIB_TO_LIBEXEC, lib) < 0)
    relative = NULL;
  const char *folders[] = {slash ? lib : NULL, relative, WEFT_LIBEXEC_DIR};
  for (size_t i = 0; !helper_path && i < 3; i++) {
    char *path = NULL;
    if (!folders[i] || asprintf(&path, "%s/" HELPER_NAME, folders[i]) < 0)
      continue;
    if (!access(path, X_OK)) helper_path = path;
    else free(path);
  }
  if (!helper_path)
    fprintf(stderr, "weft: WEFT_BUILD_MEMORY is set, but the build helper "
            HELPER_NAME " is neither beside the library (in %s), nor in "
            "%s/" WEFT_LIB_TO_LIBEXEC ", nor in " WEFT_LIBEXEC_DIR ": builds "
            "run in this process, without a memory limit\n", lib ? lib : "?",
            lib ? lib : "?");
  free(relative);
  free(lib);
}

int weft__build_isolated(void) {
  const weft_config *c = weft__config();
  if (in_helper || !c->build_memory || c->dump_ir) return 0;
  pthread_once(&located, locate);
  return helper_path != NULL;
}

/* ------------------------------------------------------------ spawning */

/* The helper's environment: the application's, but the settings Weft was
 * configured with as they were then (an application that set WEFT_CHECK
 * since would otherwise have the helper build something else). malloc'd
 * array of borrowed strings, or NULL. */
static char **helper_environment(void) {
  const char *const *settings = weft__config_settings();
  size_t n = 0, k = 0;
  for (char **e = environ; e && *e; e++) n++;
  for (const char *const *s = settings; s && *s; s++) n++;
  char **env = settings ? malloc((n + 1) * sizeof *env) : NULL;
  if (!env) return NULL;
  for (char **e = environ; e && *e; e++)
    if (!weft__config_is_setting(*e)) env[k++] = *e;
  for (const char *const *s = settings; *s; s++) env[k++] = (char *)*s;
  env[k] = NULL;
  return env;
}

/* Starts the helper with one end of a socket pair as its standard input
 * and output (a socket, not pipes: writing to a helper that died is
 * EPIPE, not SIGPIPE in the application). 0, or an errno value. */
static int spawn(pid_t *pid, int *sock) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)) return errno;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  /* Not the application's blocked or ignored signals. */
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  char *argv[] = {helper_path, NULL};
  char **env = helper_environment();
  int rc = env ? posix_spawn(pid, helper_path, &actions, &attr, argv, env)
               : ENOMEM;
  free(env);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (rc) close(fds[0]);
  else *sock = fds[0];
  return rc;
}

static int send_all(int sock, const unsigned char *data, size_t size) {
  for (size_t at = 0; at < size;) {
    ssize_t n = send(sock, data + at, size - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += (size_t)n;
  }
  return shutdown(sock, SHUT_WR);
}

/* ------------------------------------------------------------ watching */

/* The helper's resident anonymous memory (its heap and stacks, not the
 * libraries' code it shares), in bytes; 0 when it cannot be read. */
static size_t resident(pid_t pid) {
  char path[64], line[128];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "re");
  size_t kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "RssAnon: %zu kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib * 1024;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* Why the helper must stop now (into why), or 0 while it is within its
 * limits. */
static int past_limit(pid_t pid, const struct timespec *t0, char *why,
                      size_t size) {
  const weft_config *c = weft__config();
  if (c->build_timeout > 0 && seconds_since(t0) > c->build_timeout) {
    snprintf(why, size, "error: the build ran past WEFT_BUILD_TIMEOUT (%g s) "
             "and was stopped\n", c->build_timeout);
    return 1;
  }
  if (resident(pid) > c->build_memory) {
    snprintf(why, size, "error: the build used more than WEFT_BUILD_MEMORY "
             "(%.0f MiB) and was stopped\n",
             (double)c->build_memory / (1 << 20));
    return 1;
  }
  return 0;
}

/* Reads the helper's reply into w until it closes its end, watching its
 * limits: 0, or 1 with why[] when it was stopped (killed). */
static int collect(pid_t pid, int sock, weft_wire *w, char *why, size_t size) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned char chunk[65536];
  for (;;) {
    struct pollfd p = {sock, POLLIN, 0};
    int ready = poll(&p, 1, WATCH_MS);
    if (ready > 0) {
      ssize_t n = recv(sock, chunk, sizeof chunk, 0);
      if (n == 0 || (n < 0 && errno != EINTR)) return 0;
      if (n > 0) weft__bytes_put(w, chunk, (size_t)n);
    }
    if (past_limit(pid, &t0, why, size)) {
      kill(pid, SIGKILL);
      return 1;
    }
  }
}

/* The helper's end: its wait status, or -1 (not ours to wait for). */
static int reap(pid_t pid) {
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

static int fail(char **log, const char *text) {
  weft__log_append(log, text);
  return WEFT_EBUILD;
}

/* The log line for a helper that ended without a whole reply. */
static int ended_badly(int status, char **log) {
  char text[256];
  if (status != -1 && WIFSIGNALED(status))
    snprintf(text, sizeof text, "error: the build helper ended by signal %d "
             "(%s) before replying (a crash of the compiler, or the system "
             "ran out of memory); the build failed and Weft went on\n",
             WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    snprintf(text, sizeof text, "error: the build helper (%s) ended with "
             "status %d without a reply\n", helper_path,
             status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return fail(log, text);
}

int weft__build_in_helper(const weft_build_request *request,
                          weft_build_reply *reply, char **log) {
  memset(reply, 0, sizeof *reply);
  weft_wire out = {0}, in = {0};
  weft__wire_put_request(&out, request);
  if (out.failed) {
    free(out.data);
    return fail(log, "error: out of memory\n");
  }
  pid_t pid;
  int sock = -1, err = spawn(&pid, &sock);
  if (err) {
    free(out.data);
    fprintf(stderr, "weft: cannot start the build helper %s (%s): this build "
            "runs in the process, without a memory limit\n", helper_path,
            strerror(err));
    return WEFT__ENOHELPER;
  }
  char why[256] = "";
  /* A helper that dies before reading all shows in its status. */
  int stopped = send_all(sock, out.data, out.size) ? 0
                : collect(pid, sock, &in, why, sizeof why);
  free(out.data);
  close(sock);
  int status = reap(pid);
  int rc = 0;
  if (stopped) rc = fail(log, why);
  else if (in.failed) rc = fail(log, "error: out of memory\n");
  else if (weft__wire_get_reply(in.data, in.size, reply))
    rc = ended_badly(status, log);
  free(in.data);
  return rc;
}
