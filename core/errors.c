/* errors.c: names and meanings of status codes. */
#include "weft/weft.h"

const char *weft_strerror(int status) {
  switch (status) {
  case WEFT_OK: return "WEFT_OK: success";
  case WEFT_EINVAL: return "WEFT_EINVAL: invalid argument";
  case WEFT_ENOMEM: return "WEFT_ENOMEM: out of memory";
  case WEFT_ESYS: return "WEFT_ESYS: a system call failed";
  case WEFT_ENODEV: return "WEFT_ENODEV: no such device";
  case WEFT_EBUILD: return "WEFT_EBUILD: the program failed to build";
  case WEFT_EOPTION: return "WEFT_EOPTION: invalid build option";
  case WEFT_ENOTBUILT: return "WEFT_ENOTBUILT: the program is not built";
  case WEFT_ENOKERNEL: return "WEFT_ENOKERNEL: no kernel of that name";
  case WEFT_EARGINDEX: return "WEFT_EARGINDEX: argument index out of range";
  case WEFT_EARGSIZE: return "WEFT_EARGSIZE: wrong argument size";
  case WEFT_EARGKIND: return "WEFT_EARGKIND: wrong kind of argument";
  case WEFT_EARGUNSET: return "WEFT_EARGUNSET: a kernel argument is not set";
  case WEFT_EWORKDIM: return "WEFT_EWORKDIM: dimensions must be 1 to 3";
  case WEFT_EGLOBALSIZE: return "WEFT_EGLOBALSIZE: invalid global size";
  case WEFT_EGROUPSIZE: return "WEFT_EGROUPSIZE: invalid work-group size";
  case WEFT_ERANGE: return "WEFT_ERANGE: outside the buffer";
  case WEFT_ELOCALMEM: return "WEFT_ELOCALMEM: too much local memory";
  case WEFT_EKERNELFAULT: return "WEFT_EKERNELFAULT: the kernel crashed";
  case WEFT_ESTACK: return "WEFT_ESTACK: work-item stack overflow";
  case WEFT_EBARRIER: return "WEFT_EBARRIER: barrier divergence";
  case WEFT_EMAPPED: return "WEFT_EMAPPED: invalid mapping";
  case WEFT_ELAUNCH: return "WEFT_ELAUNCH: the launch failed";
  case WEFT_ETIMEOUT:
    return "WEFT_ETIMEOUT: the launch ran past its time limit (WEFT_TIMEOUT)";
  case WEFT_EWAITLIST:
    return "WEFT_EWAITLIST: an event the command waited for failed";
  case WEFT_EOVERLAP:
    return "WEFT_EOVERLAP: the copy's source and destination share bytes";
  case WEFT_ECHECK:
    return "WEFT_ECHECK: a check failed in the kernel (check mode's "
           "invalid accesses, uninitialised reads or races, or weft_assert)";
  case WEFT_EDEADLOCK:
    return "WEFT_EDEADLOCK: work-groups wait for each other for ever";
  default: return "unknown Weft status";
  }
}
