/* test_containers.c: arrays, the string buffer, the u64 map (checked against a reference),
 * interning and the generational handle pool. */
#include "rill_test.h"

#include <pthread.h>

/* >>array */

static void test_array(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    RILL_ARRAY(uint32_t) a = {0};
    for (uint32_t i = 0; i < 1000; ++i) {
        assert_true(rill_array_push(&a, i * 3u));
    }
    assert_int_equal(a.len, 1000);
    assert_true(a.cap >= 1000);
    for (uint32_t i = 0; i < 1000; ++i) {
        assert_int_equal(a.data[i], i * 3u);
    }
    assert_int_equal(rill_array_last(&a), 999u * 3u);
    assert_int_equal(rill_array_pop(&a), 999u * 3u);
    assert_int_equal(a.len, 999);
    rill_array_swap_remove(&a, 0);
    assert_int_equal(a.data[0], 998u * 3u);
    assert_int_equal(a.len, 998);
    uint32_t *p = rill_array_push_n(&a, 5);
    assert_non_null(p);
    assert_int_equal(a.len, 1003);
    assert_ptr_equal(p, &a.data[998]);
    uint32_t cap = a.cap;
    rill_array_clear(&a);
    assert_int_equal(a.len, 0);
    assert_int_equal(a.cap, cap);
    assert_true(rill_array_reserve(&a, 5000));
    assert_true(a.cap >= 5000);
    rill_array_free(&a);
    assert_null(a.data);
    assert_int_equal(a.cap, 0);
    RILL_TEST_LEAK_END();
}

static void test_array_overflow(void **state) {
    (void)state;
    /* Element counts whose byte size overflows are refused, leaving the array unchanged. */
    RILL_ARRAY(uint64_t) big = {0};
    assert_false(rill__array_reserve((void **)&big.data, &big.cap, UINT32_MAX, SIZE_MAX / 4u));
    assert_null(big.data);
    assert_int_equal(big.cap, 0);
    assert_false(rill__array_reserve((void **)&big.data, &big.cap, 4, 0));
}

/* A queue that once held 4096 and now holds a few gives its memory back step by step, keeping
 * what it uses; a use that sways within a factor of four never reallocates (the hysteresis). */
static void test_array_trim(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    RILL_ARRAY(uint64_t) q = {0};
    size_t empty = rill_mem_live_bytes(RILL_MEM_CONTAINER);
    assert_non_null(rill_array_push_n(&q, 4096));
    for (uint32_t i = 0; i < 4096; i++) {
        q.data[i] = i;
    }
    assert_int_equal(q.cap, 4096);
    /* Swaying between a quarter and all of it: nothing moves. */
    for (int round = 0; round < 10; round++) {
        q.len = round % 2 ? 4096u : 1024u;
        assert_false(rill_array_trim(&q, q.len, 64));
        assert_int_equal(q.cap, 4096);
    }
    /* Used 40 since the last trim: one halving per call down to the floor, contents kept. */
    q.len = 40;
    uint32_t expect[] = {2048, 1024, 512, 256, 128, 128, 128};
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
        rill_array_trim(&q, 40, 128);
        assert_int_equal(q.cap, expect[k]);
    }
    for (uint32_t i = 0; i < 40; i++) {
        assert_int_equal(q.data[i], i);
    }
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_CONTAINER) - empty, 128 * sizeof(uint64_t));
    /* A peak since the last trim keeps the memory even when the length is 0 now. */
    q.len = 0;
    assert_false(rill_array_trim(&q, 100, 0));
    assert_int_equal(q.cap, 128);
    /* The elements in use are never dropped, whatever peak says. */
    q.len = 60;
    assert_false(rill_array_trim(&q, 0, 0));
    assert_int_equal(q.cap, 128);
    /* fit: exactly the capacity asked for, never below the length; 0 frees. */
    assert_true(rill_array_fit(&q, 1000));
    assert_int_equal(q.cap, 1000);
    assert_true(rill_array_fit(&q, 10));
    assert_int_equal(q.cap, 60);
    for (uint32_t i = 0; i < 40; i++) {
        assert_int_equal(q.data[i], i);
    }
    q.len = 0;
    assert_true(rill_array_fit(&q, 0));
    assert_null(q.data);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_CONTAINER), empty);
    RILL_TEST_LEAK_END();
}

/* size_for follows the working set it is told: grown in one step to need + need/4, kept while
 * need sways within a factor of two, given back when need falls below half of it; the map's
 * likewise, by powers of two. */
static void test_size_for(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    RILL_ARRAY(uint32_t) list = {0};
    assert_true(rill_array_size_for(&list, 31000));
    assert_int_equal(list.cap, 38750);
    uint32_t sway[] = {33000, 35800, 19400, 38750, 31000};
    for (size_t k = 0; k < sizeof sway / sizeof sway[0]; k++) {
        assert_true(rill_array_size_for(&list, sway[k]));
        assert_int_equal(list.cap, 38750);
    }
    assert_true(rill_array_size_for(&list, 40000)); /* above: grown to 1.25x */
    assert_int_equal(list.cap, 50000);
    assert_true(rill_array_size_for(&list, 1000)); /* far below: back to 1.25x */
    assert_int_equal(list.cap, 1250);
    list.len = 1200; /* never below what is in use */
    assert_true(rill_array_size_for(&list, 100));
    assert_int_equal(list.cap, 1200);
    rill_array_free(&list);

    rill_map m = {0};
    assert_true(rill_map_size_for(&m, 70000)); /* 70000 / (3/4) -> 131072 */
    assert_int_equal(m.cap, 131072);
    for (uint64_t k = 0; k < 1000; k++) {
        assert_true(rill_map_set(&m, k, k));
    }
    assert_true(rill_map_size_for(&m, 40000)); /* 65536 wanted: within 2x, kept */
    assert_int_equal(m.cap, 131072);
    assert_true(rill_map_size_for(&m, 20000)); /* 32768 wanted: rehashed to it */
    assert_int_equal(m.cap, 32768);
    for (uint64_t k = 0; k < 1000; k++) {
        uint64_t v = 0;
        assert_true(rill_map_get(&m, k, &v));
        assert_int_equal(v, k);
    }
    assert_true(rill_map_size_for(&m, 0)); /* the keys it holds still fit */
    assert_int_equal(m.cap, 2048);
    rill_map_free(&m);
    RILL_TEST_LEAK_END();
}

/* >>strbuf */

static void test_strbuf(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_strbuf sb = {0};
    assert_true(rill_strbuf_append(&sb, "abc", 3));
    assert_string_equal(sb.data, "abc");
    assert_true(rill_strbuf_printf(&sb, "-%d-%s", 42, "x"));
    assert_string_equal(sb.data, "abc-42-x");
    assert_int_equal(sb.len, 8);
    /* Many appends cross growth boundaries, both in append and in printf. */
    for (int i = 0; i < 500; ++i) {
        assert_true(rill_strbuf_printf(&sb, "%04d", i));
    }
    assert_int_equal(sb.len, 8 + 500 * 4);
    assert_int_equal(strlen(sb.data), sb.len);
    assert_memory_equal(sb.data + 8, "000000010002", 12);
    assert_memory_equal(sb.data + sb.len - 4, "0499", 4);
    char big[3000];
    memset(big, 'q', sizeof(big));
    assert_true(rill_strbuf_append(&sb, big, sizeof(big)));
    assert_int_equal(strlen(sb.data), sb.len);
    assert_true(rill_strbuf_append(&sb, NULL, 0));
    rill_strbuf_free(&sb);
    assert_null(sb.data);
    /* Appending the buffer's own bytes: the growth may move them, the copy must follow. */
    assert_true(rill_strbuf_append(&sb, "ab", 2));
    for (int i = 0; i < 12; ++i) {
        assert_true(rill_strbuf_append(&sb, sb.data, sb.len));
    }
    assert_int_equal(sb.len, 2u << 12);
    for (uint32_t i = 0; i < sb.len; i += 2) {
        assert_memory_equal(sb.data + i, "ab", 2);
    }
    rill_strbuf_free(&sb);
    /* printf into an empty buffer, exact-fit boundaries. */
    for (int n = 0; n < 40; ++n) {
        rill_strbuf t = {0};
        assert_true(rill_strbuf_printf(&t, "%.*s", n, "0123456789012345678901234567890123456789"));
        assert_int_equal(t.len, n);
        assert_true(rill_strbuf_printf(&t, "%s", "!"));
        assert_int_equal(strlen(t.data), (size_t)n + 1u);
        rill_strbuf_free(&t);
    }
    RILL_TEST_LEAK_END();
}

/* >>map */

/* A tiny deterministic generator so the randomized test reproduces exactly. */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_map_basic(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_map m = {0};
    uint64_t v = 0;
    assert_false(rill_map_get(&m, 1, &v));
    assert_false(rill_map_remove(&m, 1));
    uint32_t it = 0;
    assert_false(rill_map_next(&m, &it, NULL, NULL));
    /* Zero and all-ones are ordinary keys. */
    assert_true(rill_map_set(&m, 0, 10));
    assert_true(rill_map_set(&m, UINT64_MAX, 20));
    assert_true(rill_map_get(&m, 0, &v));
    assert_int_equal(v, 10);
    assert_true(rill_map_get(&m, UINT64_MAX, &v));
    assert_int_equal(v, 20);
    assert_true(rill_map_set(&m, 0, 11));
    assert_int_equal(m.len, 2);
    assert_true(rill_map_get(&m, 0, NULL));
    assert_true(rill_map_remove(&m, 0));
    assert_false(rill_map_get(&m, 0, &v));
    assert_int_equal(m.len, 1);
    rill_map_clear(&m);
    assert_int_equal(m.len, 0);
    assert_false(rill_map_get(&m, UINT64_MAX, &v));
    assert_true(rill_map_reserve(&m, 1000));
    uint32_t cap = m.cap;
    assert_true((cap & (cap - 1u)) == 0);
    for (uint64_t k = 0; k < 1000; ++k) {
        assert_true(rill_map_set(&m, k << 32, k));
    }
    assert_int_equal(m.cap, cap); /* reserve means no growth */
    assert_true(m.len * 4u <= m.cap * 3u);
    rill_map_free(&m);
    assert_int_equal(m.cap, 0);
    RILL_TEST_LEAK_END();
}

/* Runs `ops` random operations on keys drawn from [0, universe) and checks every answer against
 * a plain array indexed by key. A small universe keeps the table small and nearly full, so probe
 * clusters often wrap around the end of the table (the tricky case of backward-shift deletion). */
static void map_random_run(uint32_t universe, int ops, uint64_t seed) {
    enum { UNIVERSE_MAX = 4096 };
    static uint64_t ref_val[UNIVERSE_MAX];
    static bool ref_has[UNIVERSE_MAX];
    assert_true(universe <= UNIVERSE_MAX);
    memset(ref_has, 0, sizeof(ref_has));
    rill_map m = {0};
    uint32_t ref_len = 0;
    int check_every = universe < 100 ? 1 : 20000;
    for (int op = 0; op < ops; ++op) {
        uint64_t r = rng_next(&seed);
        uint32_t k = (uint32_t)(r % universe);
        /* Keys that differ only in high bits: the map must hash, not use the low bits. */
        uint64_t key = (uint64_t)k * 0x100000000ull + (k & 7u);
        uint32_t kind = (uint32_t)((r >> 32) % 10u);
        if (kind < 5) {
            uint64_t val = rng_next(&seed);
            assert_true(rill_map_set(&m, key, val));
            if (!ref_has[k]) {
                ref_len++;
            }
            ref_has[k] = true;
            ref_val[k] = val;
        } else if (kind < 9) {
            assert_int_equal(rill_map_remove(&m, key), ref_has[k]);
            if (ref_has[k]) {
                ref_len--;
            }
            ref_has[k] = false;
        } else {
            uint64_t v = 0;
            bool has = rill_map_get(&m, key, &v);
            assert_int_equal(has, ref_has[k]);
            if (has) {
                assert_int_equal(v, ref_val[k]);
            }
        }
        assert_int_equal(m.len, ref_len);
        if (op % check_every == 0) {
            /* Full check: every key agrees and iteration visits exactly the live keys once. */
            for (uint32_t i = 0; i < universe; ++i) {
                uint64_t v = 0;
                uint64_t kk = (uint64_t)i * 0x100000000ull + (i & 7u);
                assert_int_equal(rill_map_get(&m, kk, &v), ref_has[i]);
                if (ref_has[i]) {
                    assert_int_equal(v, ref_val[i]);
                }
            }
            uint32_t seen = 0;
            uint64_t k2, v2;
            for (uint32_t it = 0; rill_map_next(&m, &it, &k2, &v2);) {
                uint32_t i = (uint32_t)(k2 >> 32);
                assert_true(i < universe && ref_has[i]);
                assert_int_equal(v2, ref_val[i]);
                seen++;
            }
            assert_int_equal(seen, ref_len);
        }
    }
    rill_map_free(&m);
}

/* A map that held 100k keys and now holds 100 halves per trim down to its floor, keeping every
 * key; near its growth point it never rehashes. */
static void test_map_trim(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_map m = {0};
    for (uint64_t k = 0; k < 100000; k++) {
        assert_true(rill_map_set(&m, k * 7919u, k));
    }
    uint32_t full = m.cap;
    assert_false(rill_map_trim(&m, 0)); /* over 3/16 full */
    assert_int_equal(m.cap, full);
    for (uint64_t k = 100; k < 100000; k++) {
        assert_true(rill_map_remove(&m, k * 7919u));
    }
    uint32_t steps = 0;
    while (rill_map_trim(&m, 1024)) {
        steps++;
    }
    assert_int_equal(m.cap, 1024);
    assert_true(steps >= 7);
    for (uint64_t k = 0; k < 100; k++) {
        uint64_t v = 0;
        assert_true(rill_map_get(&m, k * 7919u, &v));
        assert_int_equal(v, k);
    }
    assert_false(rill_map_get(&m, 100u * 7919u, NULL));
    /* Grown back past the floor, then swaying between 3/16 and 3/4 full: no rehash. */
    for (uint64_t k = 100; k < 1500; k++) {
        assert_true(rill_map_set(&m, k * 7919u, k));
    }
    uint32_t cap = m.cap;
    for (uint64_t k = 500; k < 1500; k++) {
        assert_true(rill_map_remove(&m, k * 7919u));
    }
    assert_false(rill_map_trim(&m, 0));
    assert_int_equal(m.cap, cap);
    rill_map_free(&m);
    RILL_TEST_LEAK_END();
}

static void test_map_random_vs_reference(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    map_random_run(4096, 200000, 12345);
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        map_random_run(12, 5000, seed); /* capacity 16, up to 12 keys: frequent wrap-around */
        map_random_run(40, 5000, seed); /* capacity 64 */
    }
    RILL_TEST_LEAK_END();
}

static void test_map_delete_clusters(void **state) {
    (void)state;
    /* Sequential keys, removed in several orders: backward-shift deletion must keep every other
     * key reachable whatever the removal order. */
    for (int order = 0; order < 3; ++order) {
        rill_map m = {0};
        const uint64_t n = 3000;
        for (uint64_t k = 0; k < n; ++k) {
            assert_true(rill_map_set(&m, k, k + 1));
        }
        for (uint64_t j = 0; j < n; ++j) {
            uint64_t k = order == 0 ? j : order == 1 ? n - 1 - j : (j * 7919u) % n;
            assert_true(rill_map_remove(&m, k));
            assert_false(rill_map_remove(&m, k));
            if (j % 97 == 0) {
                for (uint64_t q = 0; q < n; ++q) {
                    uint64_t kk = order == 0 ? q : order == 1 ? n - 1 - q : (q * 7919u) % n;
                    uint64_t v = 0;
                    bool want = q > j;
                    assert_int_equal(rill_map_get(&m, kk, &v), want);
                    if (want) {
                        assert_int_equal(v, kk + 1);
                    }
                }
            }
        }
        assert_int_equal(m.len, 0);
        rill_map_free(&m);
    }
}

/* >>intern */

typedef struct intern_thread_arg {
    rill_interner *in;
    const char *results[200];
} intern_thread_arg;

static void *intern_thread(void *p) {
    intern_thread_arg *a = p;
    char buf[32];
    for (int i = 0; i < 200; ++i) {
        snprintf(buf, sizeof(buf), "name_%d", i);
        a->results[i] = rill_interner_get(a->in, buf, strlen(buf));
    }
    return NULL;
}

static void test_intern(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_interner *in = rill_interner_create();
    assert_non_null(in);
    char buf[16] = "rock";
    const char *a = rill_interner_get(in, buf, 4);
    strcpy(buf, "tree");
    const char *b = rill_interner_get(in, buf, 4);
    assert_string_equal(a, "rock");
    assert_string_equal(b, "tree");
    assert_ptr_equal(rill_interner_get(in, "rock", 4), a);
    assert_ptr_equal(rill_interner_get(in, "rocky", 4), a); /* length-delimited */
    assert_ptr_not_equal(rill_interner_get(in, "roc", 3), a);
    const char *empty = rill_interner_get(in, "", 0);
    assert_string_equal(empty, "");
    assert_ptr_equal(rill_interner_get(in, NULL, 0), empty);
    assert_null(rill_interner_get(in, NULL, 3));
    /* Embedded NULs are part of the key. */
    const char *z1 = rill_interner_get(in, "a\0b", 3);
    const char *z2 = rill_interner_get(in, "a\0c", 3);
    assert_ptr_not_equal(z1, z2);
    /* Many strings (table growth, several chunks, one oversized): earlier pointers stay put. */
    const char *first[5000];
    for (int i = 0; i < 5000; ++i) {
        snprintf(buf, sizeof(buf), "s%d", i);
        first[i] = rill_interner_get(in, buf, strlen(buf));
    }
    static char huge[200000];
    memset(huge, 'h', sizeof(huge) - 1);
    const char *h = rill_interner_get(in, huge, sizeof(huge) - 1);
    assert_int_equal(strlen(h), sizeof(huge) - 1);
    for (int i = 0; i < 5000; ++i) {
        snprintf(buf, sizeof(buf), "s%d", i);
        assert_string_equal(first[i], buf);
        assert_ptr_equal(rill_interner_get(in, buf, strlen(buf)), first[i]);
    }
    assert_ptr_equal(rill_interner_get(in, "rock", 4), a);
    /* Threads racing on the same names all get the same pointers. */
    intern_thread_arg args[4];
    pthread_t th[4];
    for (int t = 0; t < 4; ++t) {
        args[t].in = in;
        pthread_create(&th[t], NULL, intern_thread, &args[t]);
    }
    for (int t = 0; t < 4; ++t) {
        pthread_join(th[t], NULL);
    }
    for (int i = 0; i < 200; ++i) {
        for (int t = 1; t < 4; ++t) {
            assert_ptr_equal(args[t].results[i], args[0].results[i]);
        }
    }
    rill_interner_destroy(in);
    rill_interner_destroy(NULL);
    RILL_TEST_LEAK_END();
}

static void test_intern_global(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    const char *a = rill_intern("chair.glb#mesh0");
    assert_ptr_equal(rill_intern_n("chair.glb#mesh0xyz", 15), a);
    assert_null(rill_intern(NULL));
    rill_intern_shutdown();
    /* After shutdown the global interner starts again on demand. */
    const char *b = rill_intern("x");
    assert_string_equal(b, "x");
    rill_intern_shutdown();
    RILL_TEST_LEAK_END();
}

/* >>pool */

static void test_pool(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_pool pool;
    assert_int_equal(rill_pool_init(&pool, 0), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_pool_init(&pool, RILL_POOL_MAX_CAPACITY + 1u), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_pool_init(&pool, 4), RILL_OK);
    uint32_t ids[4];
    for (int i = 0; i < 4; ++i) {
        ids[i] = rill_pool_alloc(&pool);
        assert_int_not_equal(ids[i], 0);
        assert_int_equal(rill_pool_index(&pool, ids[i]), i);
    }
    assert_int_equal(pool.live, 4);
    /* Exhausted: 0, nothing changes. */
    assert_int_equal(rill_pool_alloc(&pool), 0);
    assert_int_equal(pool.live, 4);
    /* Free then reuse: the slot comes back with a new generation, the old id is stale. */
    assert_true(rill_pool_free(&pool, ids[2]));
    assert_false(rill_pool_valid(&pool, ids[2]));
    assert_int_equal(rill_pool_index(&pool, ids[2]), -1);
    assert_false(rill_pool_free(&pool, ids[2])); /* double free: no-op */
    uint32_t again = rill_pool_alloc(&pool);
    assert_int_not_equal(again, ids[2]);
    assert_int_equal(rill_pool_index(&pool, again), 2);
    assert_false(rill_pool_valid(&pool, ids[2]));
    assert_false(rill_pool_free(&pool, ids[2]));
    assert_true(rill_pool_valid(&pool, again));
    /* Invalid ids: 0, index out of range, never-allocated slot, index bits zero. */
    assert_false(rill_pool_valid(&pool, 0));
    assert_false(rill_pool_valid(&pool, 5));
    assert_false(rill_pool_valid(&pool, 1u << RILL_POOL_INDEX_BITS));
    assert_false(rill_pool_valid(&pool, 0xFFFFFFFFu));
    assert_false(rill_pool_valid(NULL, ids[0]));
    /* Many cycles on one slot: generations keep every recent id distinct. */
    for (int i = 0; i < 4; ++i) {
        rill_pool_free(&pool, i == 2 ? again : ids[i]);
    }
    assert_int_equal(pool.live, 0);
    uint32_t prev = rill_pool_alloc(&pool);
    for (int i = 0; i < 1000; ++i) {
        assert_true(rill_pool_free(&pool, prev));
        uint32_t next = rill_pool_alloc(&pool);
        assert_int_not_equal(next, prev);
        assert_false(rill_pool_valid(&pool, prev));
        prev = next;
    }
    rill_pool_destroy(&pool);
    assert_int_equal(rill_pool_alloc(&pool), 0); /* destroyed pool: empty */
    rill_pool_destroy(&pool);
    RILL_TEST_LEAK_END();
}

static void test_pool_large(void **state) {
    (void)state;
    rill_pool pool;
    assert_int_equal(rill_pool_init(&pool, RILL_POOL_MAX_CAPACITY), RILL_OK);
    uint32_t last = 0;
    for (uint32_t i = 0; i < RILL_POOL_MAX_CAPACITY; ++i) {
        last = rill_pool_alloc(&pool);
        assert_true(last != 0);
    }
    assert_int_equal(rill_pool_index(&pool, last), (int32_t)RILL_POOL_MAX_CAPACITY - 1);
    assert_int_equal(rill_pool_alloc(&pool), 0);
    rill_pool_destroy(&pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array),
        cmocka_unit_test(test_array_overflow),
        cmocka_unit_test(test_array_trim),
        cmocka_unit_test(test_size_for),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_map_basic),
        cmocka_unit_test(test_map_trim),
        cmocka_unit_test(test_map_random_vs_reference),
        cmocka_unit_test(test_map_delete_clusters),
        cmocka_unit_test(test_intern),
        cmocka_unit_test(test_intern_global),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_pool_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
