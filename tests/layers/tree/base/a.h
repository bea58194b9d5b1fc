/* a.h: a base file that includes core (a breach). */
#include "core/b.h"
