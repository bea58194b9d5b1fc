/* c.c: core reaching into one back end (a breach). */
#include "backend/cpu/fault.h"
