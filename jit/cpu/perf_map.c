/* perf_map.c: perf's map of JIT code (perf_map.h). The object file gives
 * each function's place in its section and its size; the JIT gives where
 * one exported function (an entry point) of that section landed, hence
 * where the section did. */
#include "jit/cpu/perf_map.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Object.h>

static int enabled;
static FILE *map;
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

void weft__perf_map_enable(void) { enabled = 1; }

static FILE *map_file(void) {
  if (map) return map;
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  map = fopen(path, "a");
  return map;
}

/* Whether the symbol is a function of the object's (sized, named). */
static int is_function(LLVMSymbolIteratorRef s, const char *prefix) {
  const char *name = LLVMGetSymbolName(s);
  return name && !strncmp(name, prefix, strlen(prefix)) &&
         LLVMGetSymbolSize(s) > 0;
}

/* Where the section of the entry point named name landed, minus its
 * place in the object: what to add to the section's symbols. */
static int section_bias(weft_orc_code *code, LLVMSymbolIteratorRef s,
                        intptr_t *bias) {
  char *error = NULL;
  void *address = weft__orc_lookup(code, LLVMGetSymbolName(s), &error);
  free(error);
  if (!address) return -1;
  *bias = (intptr_t)address - (intptr_t)LLVMGetSymbolAddress(s);
  return 0;
}

/* "weft:saxpy [weft.1a2b...]" from "weft.1a2b....saxpy". */
static void write_line(FILE *f, LLVMSymbolIteratorRef s, intptr_t bias,
                       const char *prefix) {
  const char *name = LLVMGetSymbolName(s) + strlen(prefix);
  if (*name == '.') name++;
  fprintf(f, "%lx %lx weft:%s [%s]\n",
          (unsigned long)(LLVMGetSymbolAddress(s) + (uint64_t)bias),
          (unsigned long)LLVMGetSymbolSize(s), *name ? name : "(program)",
          prefix);
}

void weft__perf_map_add(weft_orc_code *code, const void *object, size_t size,
                        const char *prefix) {
  if (!enabled) return;
  LLVMMemoryBufferRef buffer =
      LLVMCreateMemoryBufferWithMemoryRange(object, size, "perf-map", 0);
  char *error = NULL;
  LLVMBinaryRef binary = buffer ? LLVMCreateBinary(buffer, NULL, &error) : NULL;
  LLVMDisposeMessage(error);
  LLVMSymbolIteratorRef s = binary ? LLVMObjectFileCopySymbolIterator(binary) : NULL;
  /* One bias serves every function: the object has one text section
   * (functions are not given sections of their own). */
  intptr_t bias = 0;
  int found = 0;
  for (; s && !LLVMObjectFileIsSymbolIteratorAtEnd(binary, s) && !found;
       LLVMMoveToNextSymbol(s))
    if (is_function(s, prefix) && !section_bias(code, s, &bias)) found = 1;
  if (s) LLVMDisposeSymbolIterator(s);
  pthread_mutex_lock(&map_lock);
  FILE *f = found ? map_file() : NULL;
  s = f ? LLVMObjectFileCopySymbolIterator(binary) : NULL;
  for (; s && !LLVMObjectFileIsSymbolIteratorAtEnd(binary, s);
       LLVMMoveToNextSymbol(s))
    if (is_function(s, prefix)) write_line(f, s, bias, prefix);
  if (f) fflush(f);
  pthread_mutex_unlock(&map_lock);
  if (s) LLVMDisposeSymbolIterator(s);
  if (binary) LLVMDisposeBinary(binary);
  if (buffer) LLVMDisposeMemoryBuffer(buffer);
}
