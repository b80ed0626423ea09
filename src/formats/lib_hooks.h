/* lib_hooks.h: routes the allocations of the libraries formats uses (cJSON, meshoptimizer, zstd)
 * through rill's allocator hooks, so they count under RILL_MEM_FORMATS and follow
 * rill_set_allocator like the engine's own memory. */
#ifndef RILL_FORMATS_LIB_HOOKS_H
#define RILL_FORMATS_LIB_HOOKS_H

#ifndef ZSTD_STATIC_LINKING_ONLY
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem */
#endif
#include <zstd.h>

/* Installs the cJSON and meshoptimizer hooks (process-wide, once; thread-safe). Call before the
 * first cJSON or meshopt_ call of an entry point: they then allocate through rill_malloc_tagged. */
void rill__formats_lib_hooks(void);

/* zstd's allocator: pass to ZSTD_createCCtx_advanced / ZSTD_createDCtx_advanced. */
extern const ZSTD_customMem rill__zstd_mem;

#endif
