#include "jit/x.h"
