/* lib_hooks.c: cJSON, meshoptimizer and zstd allocate through rill's hooks (see lib_hooks.h).
 * cJSON and meshoptimizer take process-wide function pointers, set once before their first use;
 * zstd takes an allocator per context. */
#include "lib_hooks.h"

#include "rill/base.h"

#include <pthread.h>

#include <cjson/cJSON.h>
#include <meshoptimizer.h>

/* rill_malloc_tagged returns NULL for 0 bytes, which these libraries read as failure. */
static void *lib_alloc(size_t size) {
    return rill_malloc_tagged(size ? size : 1u, RILL_MEM_FORMATS);
}

static void lib_free(void *ptr) {
    rill_free(ptr);
}

static void *zstd_alloc(void *opaque, size_t size) {
    (void)opaque;
    return lib_alloc(size);
}

static void zstd_free(void *opaque, void *ptr) {
    (void)opaque;
    rill_free(ptr);
}

const ZSTD_customMem rill__zstd_mem = {zstd_alloc, zstd_free, NULL};

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void install(void) {
    cJSON_Hooks hooks = {lib_alloc, lib_free};
    cJSON_InitHooks(&hooks);
    meshopt_setAllocator(lib_alloc, lib_free);
}

void rill__formats_lib_hooks(void) {
    pthread_once(&hooks_once, install);
}
