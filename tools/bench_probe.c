#include "tool.h"
int tool_bench_probe(int argc, char **argv) { (void)argc; (void)argv; return 0; }
