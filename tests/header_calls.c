/* header_calls.c: see header_calls.h. */
#include "header_calls.h"
#include "harness.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    t->cap = 2 * (t->len + n + 1);
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = 0;
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static int has_word(const char *s, size_t n, const char *word) {
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= n; i++)
    if (!memcmp(s + i, word, w) &&
        (i == 0 || !isalnum((unsigned char)s[i - 1])) &&
        (i + w == n || !(isalnum((unsigned char)s[i + w]) || s[i + w] == '_')))
      return 1;
  return 0;
}

/* An argument for a parameter of type p (n characters): a pointer made
 * from a buffer of its address space, or a zero of its type. */
static void argument(text *t, const char *p, size_t n) {
  while (n && isspace((unsigned char)*p)) p++, n--;
  while (n && isspace((unsigned char)p[n - 1])) n--;
  if (!memchr(p, '*', n)) {
    if (has_word(p, n, "memory_order")) puts_(t, "memory_order_relaxed");
    else if (has_word(p, n, "memory_scope")) puts_(t, "memory_scope_device");
    else if (has_word(p, n, "event_t")) puts_(t, "ev");
    else {
      puts_(t, "(");
      put(t, p, n);
      puts_(t, ")0");
    }
    return;
  }
  if (has_word(p, n, "event_t")) {
    puts_(t, "&ev");
    return;
  }
  const char *base = has_word(p, n, "__global")  ? "g"
                     : has_word(p, n, "__local") ? "l"
                                                 : "pv"; /* private, generic */
  puts_(t, "(");
  put(t, p, n);
  puts_(t, ")");
  puts_(t, base);
}

/* Appends a call for a declaration "ret __ovld [attrs] name(params);". */
static int call(text *t, const char *line, const char *const *prefixes) {
  const char *open = strchr(line, '(');
  const char *ovld = strstr(line, "__ovld");
  if (!open || !ovld || ovld > open) return 0;
  const char *name = open;
  while (name > line && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
    name--;
  int wanted = 0;
  for (const char *const *p = prefixes; *p; p++)
    wanted |= !strncmp(name, *p, strlen(*p));
  const char *close = strrchr(line, ')');
  if (!wanted || !close || !strchr(close, ';')) return 0;
  puts_(t, "  ");
  put(t, name, (size_t)(open - name));
  puts_(t, "(");
  const char *p = open + 1;
  for (int first = 1; p < close; first = 0) {
    const char *end = memchr(p, ',', (size_t)(close - p));
    if (!end) end = close;
    if (!first) puts_(t, ", ");
    if (end > p && !(end - p == 4 && !memcmp(p, "void", 4)))
      argument(t, p, (size_t)(end - p));
    p = end + 1;
  }
  puts_(t, ");\n");
  return 1;
}

char *header_calls_source(const char *header, const char *const *prefixes,
                          size_t *count) {
  FILE *f = fopen(header, "r");
  if (!f) return NULL;
  text t = {0};
  *count = 0;
  puts_(&t, "__kernel void every(__global char *g, __local char *l) {\n"
            "  __private char private_bytes[256];\n"
            "  __private char *pv = private_bytes;\n"
            "  event_t ev = 0;\n");
  char line[4096];
  int keep = 0, continued = 0;
  while (fgets(line, sizeof line, f)) {
    const char *s = line;
    size_t n = strlen(line);
    int continues = n >= 2 && line[n - 2] == '\\';
    while (isspace((unsigned char)*s)) s++;
    if (continued) {
      if (keep) puts_(&t, line);
    } else if (*s == '#') {
      /* Conditionals only: the header's own #define lines are the base
       * header's, already in effect. */
      const char *d = s + 1;
      while (isspace((unsigned char)*d)) d++;
      keep = !strncmp(d, "if", 2) || !strncmp(d, "el", 2) ||
             !strncmp(d, "endif", 5);
      /* The include guard would hide everything where the header itself
       * declares the builtins. */
      int guard = !strncmp(d, "if", 2) && strstr(d, "_OPENCL_H_");
      if (keep) puts_(&t, guard ? "#if 1\n" : s);
    } else {
      *count += (size_t)call(&t, s, prefixes);
    }
    continued = continues;
  }
  fclose(f);
  puts_(&t, "}\n");
  return t.s;
}

char *header_calls_undefined(const char *source, const char *std) {
  if (access(WEFT_CLANG, X_OK)) SKIP("%s is not installed", WEFT_CLANG);
  char dir[] = "/tmp/weft-header-calls-XXXXXX";
  if (!mkdtemp(dir)) return NULL;
  char cl[64], ll[64], command[2048];
  snprintf(cl, sizeof cl, "%s/calls.cl", dir);
  snprintf(ll, sizeof ll, "%s/calls.ll", dir);
  FILE *f = fopen(cl, "w");
  if (!f) {
    rmdir(dir);
    return NULL;
  }
  fputs(source, f);
  fclose(f);
  /* Clang 19 leaves the scope features to whoever compiles: defined as
   * the builtin library is built. */
  snprintf(command, sizeof command,
           "%s -cc1 -triple x86_64-unknown-linux-gnu -finclude-default-header "
           "-ffake-address-space-map -resource-dir %s -internal-isystem "
           "%s/include %s -D__opencl_c_atomic_scope_device=1 "
           "-D__opencl_c_atomic_scope_all_devices=1 -w -emit-llvm "
           "-mlink-builtin-bitcode %s -o %s %s",
           WEFT_CLANG, WEFT_CLANG_RESOURCE_DIR, WEFT_CLANG_RESOURCE_DIR, std,
           WEFT_BUILTINS_LIBRARY, ll, cl);
  text t = {0};
  puts_(&t, "");
  FILE *ir = system(command) == 0 ? fopen(ll, "r") : NULL;
  char line[4096];
  while (ir && fgets(line, sizeof line, ir)) {
    char *at = strstr(line, "@_Z");
    if (strncmp(line, "declare", 7) || !at) continue;
    put(&t, at + 1, strcspn(at + 1, "("));
    puts_(&t, "\n");
  }
  if (ir) fclose(ir);
  else free(t.s), t.s = NULL;
  unlink(cl);
  unlink(ll);
  rmdir(dir);
  return t.s;
}
