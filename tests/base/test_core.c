/* test_core.c: errors, asserts, tagged allocation, logging, hashing, time, clocks and mutexes. */
#include "rill_test.h"

#include <stdatomic.h>

static void test_result_strings(void **state) {
    (void)state;
    assert_string_equal(rill_result_str(RILL_OK), "ok");
    assert_string_equal(rill_result_str(RILL_ERR_TRUNCATED), "data is truncated");
    assert_string_equal(rill_result_name(RILL_ERR_PARSE), "RILL_ERR_PARSE");
    assert_string_equal(rill_result_name(RILL_ERR_VERSION), "RILL_ERR_VERSION");
    assert_string_equal(rill_result_str(RILL_RESULT_NUM), "unknown");
    assert_string_equal(rill_result_str((rill_result)-1), "unknown");
    assert_string_equal(rill_result_name((rill_result)12345), "unknown");
    /* The numbers are part of the contract: appended codes must not shift them. */
    assert_int_equal(RILL_ERR_INVALID_ARGUMENT, 1);
    assert_int_equal(RILL_ERR_STALE_HANDLE, 11);
    for (int i = 0; i < RILL_RESULT_NUM; ++i) {
        assert_string_not_equal(rill_result_str((rill_result)i), "unknown");
        assert_true(strncmp(rill_result_name((rill_result)i), "RILL_", 5) == 0);
    }
}

static void test_error_set(void **state) {
    (void)state;
    rill_error err = {0};
    assert_int_equal(rill_error_set(&err, RILL_ERR_PARSE, "%s:%d:%d: expected '}'", "a.rsn", 12, 5),
                     RILL_ERR_PARSE);
    assert_int_equal(err.code, RILL_ERR_PARSE);
    assert_string_equal(err.msg, "a.rsn:12:5: expected '}'");
    /* NULL error is allowed and still returns the code. */
    assert_int_equal(rill_error_set(NULL, RILL_ERR_IO, "x"), RILL_ERR_IO);
    /* Long messages are truncated, never overflow. */
    char big[2000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    rill_error_set(&err, RILL_ERR_LIMIT, "%s", big);
    assert_int_equal(strlen(err.msg), RILL_ERROR_MSG_MAX - 1);
    rill_error_clear(&err);
    assert_int_equal(err.code, RILL_OK);
    assert_string_equal(err.msg, "");
    rill_error_clear(NULL);
}

/* Every desc carries start/end canaries; a desc that was not zero-initialized is refused with a
 * message naming the function, and NULL (all defaults) or a zeroed desc passes. */
static void test_desc_canaries(void **state) {
    (void)state;
    rill_error err = {0};
    assert_int_equal(rill_desc_check(0, 0, "f", &err), RILL_OK);
    assert_int_equal(rill_desc_check(7, 0, "rill_x_create", &err), RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "rill_x_create"));
    assert_int_equal(rill_desc_check(0, 0xDEADu, "f", NULL), RILL_ERR_INVALID_ARGUMENT);
    rill_jobs_desc d = {.worker_count = 1};
    const rill_jobs_desc *dp = &d;
    assert_int_equal(RILL_DESC_CHECK(dp, "rill_jobs_create", &err), RILL_OK);
    assert_int_equal(RILL_DESC_CHECK((const rill_jobs_desc *)NULL, "rill_jobs_create", &err),
                     RILL_OK);
    /* A desc filled field by field over stack garbage: the jobs system is not started. */
    memset(&d, 0xA5, sizeof(d));
    d.worker_count = 1;
    d.queue_capacity = 64;
    d.deterministic = false;
    rill_error_clear(&err);
    assert_null(rill_jobs_create(&d, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "rill_jobs_create"));
    d.start_canary = d.end_canary = 0;
    rill_jobs *jobs = rill_jobs_create(&d, &err);
    assert_non_null(jobs);
    rill_jobs_destroy(jobs);
}

static int checked_positive(int x) {
    RILL_ASSERT(x > 0);
    return x;
}

static void test_assert_hook(void **state) {
    (void)state;
    if (!RILL_TEST_HAS_ASSERTS) {
        skip();
    }
    RILL_TEST_EXPECT_ASSERT(checked_positive(-1));
    assert_string_equal(rill_test__assert_state()->last_expr, "x > 0");
    assert_int_equal(checked_positive(3), 3); /* no assert: the default hook is back */
}

/* >>alloc */

static void test_alloc_accounting(void **state) {
    (void)state;
    size_t before_total = rill_mem_live_total();
    size_t before_asset = rill_mem_live_bytes(RILL_MEM_ASSET);
    uint8_t *a = rill_malloc_tagged(100, RILL_MEM_ASSET);
    assert_non_null(a);
    assert_int_equal((uintptr_t)a % 16u, 0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_ASSET), before_asset + 100);
    assert_int_equal(rill_mem_live_total(), before_total + 100);
    memset(a, 0xAB, 100);
    /* Realloc keeps the birth tag even when asked for another one. */
    a = rill_realloc_tagged(a, 5000, RILL_MEM_RENDER);
    assert_non_null(a);
    assert_int_equal(a[99], 0xAB);
    assert_int_equal((uintptr_t)a % 16u, 0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_ASSET), before_asset + 5000);
    a = rill_realloc_tagged(a, 10, RILL_MEM_ASSET);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_ASSET), before_asset + 10);
    rill_free(a);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_ASSET), before_asset);
    assert_int_equal(rill_mem_live_total(), before_total);

    assert_null(rill_malloc(0));
    rill_free(NULL);
    /* realloc(NULL) allocates, realloc(p, 0) frees. */
    void *p = rill_realloc(NULL, 32);
    assert_non_null(p);
    assert_null(rill_realloc(p, 0));
    assert_int_equal(rill_mem_live_total(), before_total);
    /* Out-of-range tags are counted as general. */
    size_t before_general = rill_mem_live_bytes(RILL_MEM_GENERAL);
    p = rill_malloc_tagged(8, (rill_mem_tag)999);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_GENERAL), before_general + 8);
    rill_free(p);
    assert_int_equal(rill_mem_live_bytes((rill_mem_tag)999), 0);
}

/* Fills or checks n bytes with a pattern of their offsets. */
static bool pattern(uint8_t *p, size_t n, bool write) {
    for (size_t i = 0; i < n; i += 4093u) {
        uint8_t v = (uint8_t)(i * 31u >> 12);
        if (write) {
            p[i] = v;
        } else if (p[i] != v) {
            return false;
        }
    }
    return true;
}

/* rill_realloc_large: a block crossing RILL_MAPPED_MIN keeps its contents and tag through growth
 * (its own mapping on Linux), shrinking through rill_realloc_tagged and freeing, counted exactly
 * at every step. */
static void test_realloc_large(void **state) {
    (void)state;
    size_t before = rill_mem_live_bytes(RILL_MEM_WORLD), total = rill_mem_live_total();
    size_t small = RILL_MAPPED_MIN / 4u, big = 8u * RILL_MAPPED_MIN;
    uint8_t *p = rill_realloc_large(NULL, small, RILL_MEM_WORLD);
    assert_non_null(p);
    assert_true(pattern(p, small, true));
    assert_false(rill__mem_mapped(p)); /* a heap block below the size */
    for (size_t size = RILL_MAPPED_MIN; size <= big; size *= 2u) {
        p = rill_realloc_large(p, size, RILL_MEM_ASSET); /* the birth tag stays */
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16u, 0);
        assert_true(pattern(p, small, false));
        p[size - 1u] = 0x5A; /* the whole size is writable */
        assert_int_equal(rill_mem_live_bytes(RILL_MEM_WORLD), before + size);
#if defined(__linux__)
        assert_true(rill__mem_mapped(p)); /* its own mapping: resizes move pages */
#endif
    }
    p = rill_realloc_tagged(p, small, RILL_MEM_WORLD);
    assert_non_null(p);
    assert_true(pattern(p, small, false));
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_WORLD), before + small);
    p = rill_realloc_large(p, big, RILL_MEM_WORLD);
    assert_true(pattern(p, small, false));
    rill_free(p);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_WORLD), before);
    assert_int_equal(rill_mem_live_total(), total);
    /* below the threshold it is rill_realloc_tagged */
    p = rill_realloc_large(NULL, 100, RILL_MEM_WORLD);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_WORLD), before + 100);
    assert_null(rill_realloc_large(p, 0, RILL_MEM_WORLD));
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_WORLD), before);
}

/* rill_malloc_bulk: a large block reads as zeros when it says so, is writable to its end, keeps its
 * contents through growth and is counted under its tag until freed; a small one is an ordinary
 * block. */
static void test_malloc_bulk(void **state) {
    (void)state;
    size_t before = rill_mem_live_bytes(RILL_MEM_FORMATS), total = rill_mem_live_total();
    size_t size = RILL_BULK_MIN + 123u;
    bool zeroed = false;
    uint8_t *p = rill_malloc_bulk(size, RILL_MEM_FORMATS, &zeroed);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16u, 0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), before + size);
    if (zeroed) {
        for (size_t i = 0; i < size; i += 4093u) {
            assert_int_equal(p[i], 0);
        }
        assert_int_equal(p[size - 1u], 0);
    }
    assert_true(pattern(p, size, true));
    p = rill_realloc_tagged(p, 2u * size, RILL_MEM_WORLD); /* the birth tag stays */
    assert_non_null(p);
    assert_true(pattern(p, size, false));
    p[2u * size - 1u] = 0x5A;
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), before + 2u * size);
    rill_free(p);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), before);
    /* Blocks freed and allocated again (the spare mapping reused, cut, or a fresh one): each is
     * writable to its end, zeros when it says so, and counted exactly. */
    size_t sizes[4] = {3u * RILL_BULK_MIN, RILL_BULK_MIN, 2u * RILL_BULK_MIN + 77u, RILL_BULK_MIN};
    for (int k = 0; k < 4; k++) {
        p = rill_malloc_bulk(sizes[k], RILL_MEM_FORMATS, &zeroed);
        assert_non_null(p);
        if (zeroed) {
            assert_int_equal(p[0], 0);
            assert_int_equal(p[sizes[k] - 1u], 0);
        }
        memset(p, 0xA5, sizes[k]);
        assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), before + sizes[k]);
        rill_free(p);
    }
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), before);
    p = rill_malloc_bulk(100, RILL_MEM_FORMATS, &zeroed);
    assert_non_null(p);
    assert_false(zeroed); /* an ordinary block: its contents are unknown */
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_FORMATS), before + 100u);
    rill_free(p);
    assert_int_equal(rill_mem_live_total(), total);
}

static void test_calloc_zero(void **state) {
    (void)state;
    size_t before = rill_mem_live_total();
    uint32_t *z = rill_calloc_tagged(64, sizeof(uint32_t), RILL_MEM_WORLD);
    assert_non_null(z);
    for (int i = 0; i < 64; ++i) {
        assert_int_equal(z[i], 0);
    }
    rill_free(z);
    /* count * size overflows size_t: NULL, nothing allocated. */
    assert_null(rill_calloc(SIZE_MAX / 2, 3));
    assert_null(rill_calloc(SIZE_MAX, SIZE_MAX));
    assert_null(rill_malloc(SIZE_MAX));
    assert_null(rill_malloc(SIZE_MAX - 8));
    assert_int_equal(rill_mem_live_total(), before);
}

static void test_strdup(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char *a = rill_strdup("hello");
    assert_string_equal(a, "hello");
    char *b = rill_strndup("hello", 3);
    assert_string_equal(b, "hel");
    char *c = rill_strndup("hi", 10);
    assert_string_equal(c, "hi");
    assert_null(rill_strdup(NULL));
    rill_free(a);
    rill_free(b);
    rill_free(c);
    RILL_TEST_LEAK_END();
}

typedef struct counting_alloc {
    int allocs, reallocs, frees;
} counting_alloc;

static void *count_alloc(size_t size, void *user) {
    ((counting_alloc *)user)->allocs++;
    return malloc(size);
}
static void *count_realloc(void *ptr, size_t size, void *user) {
    ((counting_alloc *)user)->reallocs++;
    return realloc(ptr, size);
}
static void count_free(void *ptr, void *user) {
    ((counting_alloc *)user)->frees++;
    free(ptr);
}

static void test_allocator_hooks(void **state) {
    (void)state;
    counting_alloc c = {0};
    rill_allocator hooks = {count_alloc, count_realloc, count_free, &c};
    rill_set_allocator(&hooks);
    void *p = rill_malloc(10);
    p = rill_realloc(p, 100);
    rill_free(p);
    rill_set_allocator(NULL);
    assert_int_equal(c.allocs, 1);
    assert_int_equal(c.reallocs, 1);
    assert_int_equal(c.frees, 1);
    /* A partial set of hooks means libc. */
    rill_allocator partial = {count_alloc, NULL, NULL, &c};
    rill_set_allocator(&partial);
    rill_free(rill_malloc(4));
    rill_set_allocator(NULL);
    assert_int_equal(c.allocs, 1);
}

static void *failing_alloc(size_t size, void *user) {
    (void)size;
    (void)user;
    return NULL;
}
static void *failing_realloc(void *ptr, size_t size, void *user) {
    (void)ptr;
    (void)size;
    (void)user;
    return NULL;
}

static void test_out_of_memory(void **state) {
    (void)state;
    size_t before = rill_mem_live_total();
    void *keep = rill_malloc(16);
    rill_allocator hooks = {failing_alloc, failing_realloc, count_free, &(counting_alloc){0}};
    rill_set_allocator(&hooks);
    assert_null(rill_malloc(10));
    assert_null(rill_calloc(2, 2));
    assert_null(rill_realloc(keep, 1000)); /* keep survives */
    assert_null(rill_strdup("abc"));
    rill_map m = {0};
    assert_false(rill_map_set(&m, 1, 2));
    assert_int_equal(m.len, 0);
    RILL_ARRAY(int) arr = {0};
    assert_false(rill_array_push(&arr, 5));
    assert_int_equal(arr.len, 0);
    rill_set_allocator(NULL);
    rill_free(keep);
    assert_int_equal(rill_mem_live_total(), before);
}

/* >>log */

static void test_log_capture(void **state) {
    (void)state;
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    RILL_LOG_WARN("asset", "missing %s", "rock.rmip");
    RILL_LOG_ERROR("render", "device lost");
    RILL_LOG_DEBUG("x", "dbg");
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 1);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_ERROR), 1);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_DEBUG), 1);
    assert_string_equal(cap.last_module, "x");
    assert_true(rill_test_log_last_has(&cap, "dbg"));
    /* Threshold: below it nothing reaches the sink. */
    rill_log_set_level(RILL_LOG_ERROR);
    assert_int_equal(rill_log_get_level(), RILL_LOG_ERROR);
    RILL_LOG_WARN("asset", "dropped");
    RILL_LOG_INFO("asset", "dropped");
    assert_int_equal(cap.total, 3);
    RILL_LOG_ERROR("asset", "kept %d", 7);
    assert_int_equal(cap.total, 4);
    assert_string_equal(cap.last_msg, "kept 7");
    rill_log_set_level(RILL_LOG_NONE);
    RILL_LOG_ERROR("asset", "dropped");
    assert_int_equal(cap.total, 4);
    /* Long lines are truncated, not overflowed. */
    rill_log_set_level(RILL_LOG_DEBUG);
    char big[5000];
    memset(big, 'y', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    RILL_LOG_INFO("big", "%s", big);
    assert_true(strlen(cap.last_msg) > 1000);
    rill_test_log_end(&cap);
    assert_string_equal(rill_log_level_name(RILL_LOG_WARN), "warn");
    assert_string_equal(rill_log_level_name((rill_log_level)77), "unknown");
}

/* >>hash */

static void test_hash(void **state) {
    (void)state;
    uint64_t a = rill_hash64("hello", 5);
    assert_int_equal(a, rill_hash64_str("hello"));
    assert_int_not_equal(a, rill_hash64("hellp", 5));
    assert_int_not_equal(a, rill_hash64_seed("hello", 5, 1));
    assert_int_equal(rill_hash64_seed("hello", 5, 0), a); /* XXH3 seed 0 = unseeded */
    assert_int_equal(rill_hash64_str(NULL), rill_hash64("", 0));
    /* Stable across runs and machines: a known XXH3-64 value for "" (from the XXH3 reference). */
    assert_int_equal(rill_hash64("", 0), 0x2D06800538D394C2ull);
}

/* >>time */

static void test_time_and_clock(void **state) {
    (void)state;
    uint64_t t0 = rill_time_ns();
    rill_sleep_ns(2000000);
    uint64_t t1 = rill_time_ns();
    assert_true(t1 - t0 >= 2000000);
    assert_true(rill_time_sec() > 0.0);
    rill_test_clock fake = {1000};
    rill_clock c = rill_test_clock_make(&fake);
    assert_int_equal(rill_clock_now(&c), 1000);
    rill_test_clock_advance(&fake, 500);
    assert_int_equal(rill_clock_now(&c), 1500);
    rill_clock zero = {0};
    assert_true(rill_clock_now(&zero) >= t1);
    assert_true(rill_clock_now(NULL) >= t1);
}

/* >>threads */

typedef struct mutex_test {
    rill_mutex m;
    rill_cond c;
    int value;
    bool ready;
} mutex_test;

#include <pthread.h>

static void *mutex_worker(void *arg) {
    mutex_test *t = arg;
    for (int i = 0; i < 10000; ++i) {
        rill_mutex_lock(&t->m);
        t->value++;
        rill_mutex_unlock(&t->m);
    }
    rill_mutex_lock(&t->m);
    t->ready = true;
    rill_cond_signal(&t->c);
    rill_mutex_unlock(&t->m);
    return NULL;
}

static void test_mutex_cond(void **state) {
    (void)state;
    mutex_test t = {0};
    rill_mutex_init(&t.m);
    rill_cond_init(&t.c);
    /* A timed wait with nothing signalling times out after about the timeout. */
    rill_mutex_lock(&t.m);
    uint64_t t0 = rill_time_ns();
    assert_false(rill_cond_wait_ns(&t.c, &t.m, 3000000));
    assert_true(rill_time_ns() - t0 >= 2500000);
    rill_mutex_unlock(&t.m);
    pthread_t th[2];
    pthread_create(&th[0], NULL, mutex_worker, &t);
    pthread_create(&th[1], NULL, mutex_worker, &t);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    rill_mutex_lock(&t.m);
    while (!t.ready) {
        rill_cond_wait(&t.c, &t.m);
    }
    assert_int_equal(t.value, 20000);
    rill_mutex_unlock(&t.m);
    rill_cond_broadcast(&t.c);
    rill_cond_destroy(&t.c);
    rill_mutex_destroy(&t.m);
    assert_true(rill_cpu_count() >= 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_strings),  cmocka_unit_test(test_error_set),
        cmocka_unit_test(test_assert_hook),     cmocka_unit_test(test_alloc_accounting),
        cmocka_unit_test(test_calloc_zero),     cmocka_unit_test(test_strdup),
        cmocka_unit_test(test_realloc_large),   cmocka_unit_test(test_malloc_bulk),
        cmocka_unit_test(test_allocator_hooks), cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_log_capture),     cmocka_unit_test(test_hash),
        cmocka_unit_test(test_time_and_clock),  cmocka_unit_test(test_mutex_cond),
        cmocka_unit_test(test_desc_canaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
