/* x.c and y.c include each other's header: a loop. */
#include "jit/x.h"
#include "jit/y.h"
