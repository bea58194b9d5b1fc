/*
 * sync_options.h: each device builds programs with its default
 * cl_weft_sync algorithms as -D options (the CPU's measured on the
 * machine, backend/common/sync_defaults.h; a GPU's fixed), unless the
 * program chooses for itself.
 */
#ifndef WEFT_BACKEND_COMMON_SYNC_OPTIONS_H
#define WEFT_BACKEND_COMMON_SYNC_OPTIONS_H

/* options followed by those of defaults whose macro options does not
 * mention: a program's own choice wins. malloc'd; NULL when out of memory. */
char *weft__sync_options_apply(const char *defaults, const char *options);

#endif
