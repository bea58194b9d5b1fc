/* b.h: core, including base: allowed. */
#include "base/a.h"
int core_b(void);
