/* run_expect.c: --expect's text parsed (run_expect.h); run_expect_check.c
 * checks it against a run. */
#include "run_expect.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *text;
  run_expect_op op;
} ops[] = {{"==", EXPECT_EQ}, {"!=", EXPECT_NE}, {"<=", EXPECT_LE},
           {">=", EXPECT_GE}, {"<", EXPECT_LT},  {">", EXPECT_GT}};

const char *run_expect_op_text(run_expect_op op) {
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (ops[i].op == op) return ops[i].text;
  return "?";
}

/* ARG before '[': digits (an index) or an identifier (a name). */
static int parse_arg_part(const char *text, size_t length, run_expect *e) {
  if (!length) return -1;
  int digits = 1, ident = isalpha((unsigned char)text[0]) || text[0] == '_';
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    digits &= isdigit(c) != 0;
    ident &= isalnum(c) || c == '_';
  }
  if (digits) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || v > 4096 || end != text + length) return -1;
    e->arg = (int)v;
    e->name = NULL;
    return 0;
  }
  if (!ident) return -1;
  e->name = text;
  e->name_length = length;
  return 0;
}

int run_expect_parse(const char *text, run_expect *e, char *err, size_t size) {
  static const char form[] = "expected ARG[INDEX]OPVALUE, ARG an argument's "
                             "index or name, OP one of == != <= >= < >, "
                             "e.g. 'count[0]==32'";
  memset(e, 0, sizeof *e);
  e->text = text;
  const char *open = strchr(text, '[');
  const char *close = open ? strchr(open, ']') : NULL;
  if (!open || !close || parse_arg_part(text, (size_t)(open - text), e)) {
    snprintf(err, size, "%s", form);
    return -1;
  }
  char *end;
  errno = 0;
  unsigned long long element = strtoull(open + 1, &end, 10);
  if (!isdigit((unsigned char)open[1]) || end != close || errno) {
    snprintf(err, size, "INDEX must be a number: %s", form);
    return -1;
  }
  e->element = (size_t)element;
  const char *p = close + 1;
  while (*p == ' ') p++;
  size_t i = 0;
  while (i < sizeof ops / sizeof *ops &&
         strncmp(p, ops[i].text, strlen(ops[i].text)))
    i++;
  if (i == sizeof ops / sizeof *ops) {
    snprintf(err, size, "no operator after ']': %s", form);
    return -1;
  }
  e->op = ops[i].op;
  p += strlen(ops[i].text);
  errno = 0;
  e->value = strtold(p, &end);
  while (*end == ' ') end++;
  if (end == p || *end || errno) {
    snprintf(err, size, "VALUE must be a number: %s", form);
    return -1;
  }
  return 0;
}
