/*
 * build_isolated.h: builds in a helper process, so that a limit on a
 * build's memory (WEFT_BUILD_MEMORY) and time (WEFT_BUILD_TIMEOUT) can
 * stop it. Clang and LLVM cannot be stopped midway, nor their memory
 * bounded, inside the application's process; a process of their own can
 * be watched and killed.
 *
 * The helper (tools/build_helper.c, `weft-build-helper`, found beside the
 * library or in <prefix>/libexec/weft/) is the same library run as a
 * program: it reads a request (build_wire.h), runs the device operation
 * in its own process and replies with the status, the log and the result
 * (a build's kernel-cache entry, as the bytes of its file; a compile's
 * object). The asking process adopts the entry into its kernel cache and
 * builds again from the cache alone (jit/cache/cache.h), which loads the code
 * the helper made; a build that was in the cache already never starts a
 * helper. The helper is given the settings Weft started with (config.h's
 * weft__config_settings), so it builds as this process would and writes
 * the same disk cache.
 */
#ifndef WEFT_CORE_BUILD_ISOLATED_H
#define WEFT_CORE_BUILD_ISOLATED_H

#include "core/build_wire.h"

/* Whether builds go to a helper: WEFT_BUILD_MEMORY is set, this process
 * is not the helper, WEFT_DUMP_IR is not asking for every build's IR, and
 * the helper was found (otherwise one warning says builds go unlimited). */
int weft__build_isolated(void);

/* Makes this process the helper: its builds run in it. */
void weft__build_helper_mode(void);

/* What weft__build_in_helper returns when it could not start a helper:
 * the caller builds in its own process (a warning said why). */
#define WEFT__ENOHELPER (-1001)

/* Runs request in a helper, watched: 0 with its reply, or WEFT_EBUILD
 * with *log saying how the helper failed (stopped at a limit, killed by a
 * signal, a damaged reply), or WEFT__ENOHELPER. */
int weft__build_in_helper(const weft_build_request *request,
                          weft_build_reply *reply, char **log);

#endif
