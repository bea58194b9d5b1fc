/* options.c: parsing of OpenCL build options (see options.h). */
#include "jit/front/options.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checks.h"
#include "jit/kernel_abi.h"
#include "weft/weft.h"

/* Options that mean the same to Clang's cc1 and pass through unchanged. */
static const char *const passthrough[] = {
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-uniform-work-group-size",
    "-cl-strict-aliasing",
    "-w",
    "-Werror",
};

/* Hints the specification lets a device ignore, and that x86-64 code
 * generation does not act upon (Clang's own driver drops them too);
 * -cl-no-subgroup-ifp (OpenCL 3.0) lets a device drop the sub-groups'
 * independent forward progress, which Weft keeps anyway, and cc1 does
 * not know it. */
static const char *const ignored[] = {
    "-cl-denorms-are-zero",
    "-cl-no-subgroup-ifp",
};

static const struct {
  const char *name;
  int version;
} versions[] = {
    {"CL1.0", 100}, {"CL1.1", 110}, {"CL1.2", 120}, {"CL2.0", 200},
    {"CL3.0", 300},
};

static int push_arg(weft_build_options *o, const char *arg) {
  char **grown = realloc(o->args, (size_t)(o->num_args + 1) * sizeof *grown);
  if (!grown) return WEFT_ENOMEM;
  o->args = grown;
  o->args[o->num_args] = strdup(arg);
  if (!o->args[o->num_args]) return WEFT_ENOMEM;
  o->num_args++;
  return 0;
}

static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

/* Splits the next whitespace-separated word off *p, honouring single and
 * double quotes the way a shell would. Returns NULL at the end. */
static char *next_word(const char **p) {
  const char *s = *p;
  while (isspace((unsigned char)*s)) s++;
  if (!*s) return NULL;
  char *word = malloc(strlen(s) + 1);
  if (!word) return NULL;
  size_t n = 0;
  char quote = 0;
  for (; *s && (quote || !isspace((unsigned char)*s)); s++) {
    if (quote && *s == quote) quote = 0;
    else if (!quote && (*s == '"' || *s == '\'')) quote = *s;
    else if (*s == '\\' && s[1] && quote != '\'') word[n++] = *++s;
    else word[n++] = *s;
  }
  word[n] = 0;
  *p = s;
  return word;
}

/* -D and -I take their value attached ("-DX=1") or as the next word. */
static int parse_valued(weft_build_options *o, const char *flag,
                        const char *word, const char **rest, char **error) {
  const char *value = word + 2;
  char *next = NULL;
  if (!*value) {
    next = next_word(rest);
    if (!next) {
      *error = format("build option '%s' needs a value", flag);
      return WEFT_EOPTION;
    }
    value = next;
  }
  int rc = push_arg(o, flag);
  if (!rc) rc = push_arg(o, value);
  free(next);
  return rc;
}

static int parse_std(weft_build_options *o, const char *word, char **error) {
  const char *name = word + strlen("-cl-std=");
  for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
    if (!strcmp(name, versions[i].name)) {
      o->cl_version = versions[i].version;
      return push_arg(o, word);
    }
  }
  *error = format("unsupported OpenCL C version in '%s' (Weft accepts "
                  "CL1.0, CL1.1, CL1.2, CL2.0 and CL3.0)", word);
  return WEFT_EOPTION;
}

static int parse_check(weft_build_options *o, const char *word, char **error) {
  if (!weft__check_parse(word + strlen("-cl-weft-check="), &o->check))
    return 0;
  *error = format("bad check list in '%s': expected " WEFT_CHECK_WORDS, word);
  return WEFT_EOPTION;
}

static int parse_word(weft_build_options *o, const char *word,
                      const char **rest, char **error) {
  if (!strncmp(word, "-D", 2)) return parse_valued(o, "-D", word, rest, error);
  if (!strncmp(word, "-I", 2)) return parse_valued(o, "-I", word, rest, error);
  if (!strncmp(word, "-cl-std=", 8)) return parse_std(o, word, error);
  if (!strncmp(word, "-cl-weft-check=", 15)) return parse_check(o, word, error);
  if (!strcmp(word, "-cl-opt-disable")) {
    o->optimize = 0;
    return 0;
  }
  if (!strcmp(word, "-cl-weft-assert")) {
    o->assertions = 1;
    return 0;
  }
  if (!strcmp(word, "-cl-weft-no-aggregate")) {
    o->no_aggregate = 1;
    return 0;
  }
  if (!strcmp(word, "-cl-weft-no-jam")) {
    o->no_jam = 1;
    return 0;
  }
  if (!strcmp(word, "-cl-weft-no-stream")) {
    o->no_stream = 1;
    return 0;
  }
  /* Argument names are always kept; the OpenCL layer decides what to show. */
  if (!strcmp(word, "-cl-kernel-arg-info")) return 0;
  if (!strcmp(word, "-g")) {
    o->debug = 1;
    return 0;
  }
  for (size_t i = 0; i < sizeof passthrough / sizeof *passthrough; i++)
    if (!strcmp(word, passthrough[i])) return push_arg(o, word);
  for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
    if (!strcmp(word, ignored[i])) return 0;
  *error = format("unknown build option '%s'", word);
  return WEFT_EOPTION;
}

int weft__options_parse(const char *options, weft_build_options *out,
                        char **error) {
  memset(out, 0, sizeof *out);
  out->cl_version = 120; /* OpenCL: the highest 1.x version by default */
  out->optimize = 1;
  *error = NULL;
  const char *rest = options ? options : "";
  int rc = 0;
  char *word;
  while (!rc && (word = next_word(&rest))) {
    rc = parse_word(out, word, &rest, error);
    free(word);
  }
  if (rc) {
    if (!*error) *error = format("out of memory parsing build options");
    weft__options_free(out);
  }
  return rc;
}

int weft__options_define_assert(weft_build_options *o) {
  int rc = push_arg(o, "-D");
  return rc ? rc : push_arg(o, "__WEFT_ASSERT__");
}

void weft__options_free(weft_build_options *o) {
  for (int i = 0; i < o->num_args; i++) free(o->args[i]);
  free(o->args);
  o->args = NULL;
  o->num_args = 0;
}
