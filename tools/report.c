/* report.c: how the subcommands tell the user what went wrong. */
#include <stdarg.h>
#include <stdio.h>

#include "tool.h"
#include "weft/weft.h"

int tool_report(const char *cmd, const char *what, int rc,
                const void *object) {
  const char *msg = object ? weft_errmsg(object) : "";
  fprintf(stderr, "weft %s: %s: %s%s%s\n", cmd, what, weft_strerror(rc),
          msg && *msg ? ": " : "", msg ? msg : "");
  return TOOL_EXIT_FAILED;
}

static void print_message(const char *cmd, const char *format, va_list ap) {
  fprintf(stderr, "weft %s: ", cmd);
  vfprintf(stderr, format, ap);
  fputc('\n', stderr);
}

void tool_error(const char *cmd, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  print_message(cmd, format, ap);
  va_end(ap);
}

void tool_usage_error(const char *cmd, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  print_message(cmd, format, ap);
  va_end(ap);
  fprintf(stderr, "Try 'weft %s --help'.\n", cmd);
}
