/* test_lib_hooks.c: cJSON, meshoptimizer and zstd allocate through rill's allocator hooks. A
 * counting allocator is installed before anything allocates; each library's work must show up
 * in it (and, for cJSON, under RILL_MEM_FORMATS). */
#include "rill_test.h"

#include "rill/formats/gltf.h"
#include "rill/formats/lod.h"
#include "rill/formats/rpak.h"

#include <cjson/cJSON.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <string.h>
#include <zstd.h>

static size_t alloc_calls, alloc_bytes;

static void *count_alloc(size_t size, void *user) {
    (void)user;
    alloc_calls++;
    alloc_bytes += size;
    return aligned_alloc(16, (size + 15u) & ~(size_t)15u);
}

static void *count_realloc(void *ptr, size_t size, void *user) {
    (void)user;
    alloc_calls++;
    alloc_bytes += size;
    return realloc(ptr, size);
}

static void count_free(void *ptr, void *user) {
    (void)user;
    free(ptr);
}

static void test_zstd_contexts(void **state) {
    (void)state;
    size_t n = 1u << 20;
    uint8_t *data = calloc(1, n); /* compressible */
    assert_non_null(data);
    rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
    assert_non_null(w);
    size_t before = alloc_bytes;
    assert_int_equal(rill_rpak_writer_add(w, "a.bin", data, n, RILL_RPAK_COMPRESSION_ZSTD, NULL),
                     RILL_OK);
    /* The copy of the data is not made for a compressed entry; the compression context
     * (megabytes at level 9) is what comes through the hooks. */
    size_t ctx = ZSTD_estimateCCtxSize(9);
    assert_true(alloc_bytes - before >= ctx / 2);
    rill_rpak_writer_destroy(w);
    free(data);
}

static void test_cjson_and_meshopt(void **state) {
    (void)state;
    /* Any formats entry point installs the cJSON and meshoptimizer hooks; an invalid call is
     * enough. */
    uint8_t *out = NULL;
    size_t out_size = 0;
    rill_glb_write_memory(NULL, NULL, &out, &out_size, NULL);
    size_t live = rill_mem_live_bytes(RILL_MEM_FORMATS);
    cJSON *o = cJSON_CreateObject();
    assert_non_null(o);
    assert_true(rill_mem_live_bytes(RILL_MEM_FORMATS) > live);
    cJSON_Delete(o);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), live);

    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    unsigned int idx[3] = {0, 1, 2}, dst[3];
    size_t calls = alloc_calls;
    meshopt_simplify(dst, idx, 3, pos, 3, sizeof(float) * 3, 3, 0.01f, 0, NULL);
    assert_true(alloc_calls > calls);
}

int main(void) {
    rill_allocator a = {count_alloc, count_realloc, count_free, NULL};
    rill_set_allocator(&a);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zstd_contexts),
        cmocka_unit_test(test_cjson_and_meshopt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
