/* test_world_query.c: query runs (each run's columns line up with its entities), the query cache
 * and the plain query's remembered runs of the world module. */
/* cmocka needs these before it, in this order. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <string.h>

#include "rill/world.h"
#include "rill_test.h"
#include "world_test.h"

/* Every match of a query, seen through runs, in a 0/1 array indexed by entity slot; checks that
 * each run's columns line up with its entities. Returns the number of matches. */
static uint32_t collect_runs(rill_world *w, const rill_query_desc *d, uint8_t *seen, uint32_t cap,
                             uint32_t *out_runs) {
    rill_query q = rill_world_query(w, d);
    uint32_t n = 0, runs = 0, terms = 0;
    while (terms < RILL_QUERY_MAX_TERMS && d->with[terms].id != 0) {
        terms++;
    }
    while (rill_query_next_run(&q)) {
        assert_true(q.count > 0);
        runs++;
        for (uint32_t k = 0; k < q.count; k++) {
            rill_entity e = q.entities[k];
            uint32_t slot = RILL_ENTITY_INDEX(e);
            assert_true(slot < cap);
            assert_int_equal(seen[slot], 0);
            seen[slot] = 1;
            for (uint32_t t = 0; t < terms; t++) {
                assert_ptr_equal((tag *)q.columns[t] + k, rill_world_get(w, e, d->with[t]));
            }
            for (uint32_t t = 0; t < RILL_QUERY_MAX_TERMS && d->without[t].id != 0; t++) {
                assert_false(rill_world_has(w, e, d->without[t]));
            }
            n++;
        }
    }
    assert_int_equal(q.count, 0);
    *out_runs = runs;
    return n;
}

/* Runs hand out exactly the matches of the entity-by-entity walk, long runs where entities got
 * their components together, and stay right when churn scrambles the dense orders. */
static void test_query_runs(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A"), cb = register_tag(w, "B"), cc = register_tag(w, "C");
    enum { N = 4000 };
    static rill_entity ents[N];
    static uint8_t seen[N];
    rill_world_spawn_n(w, N, ents);
    for (uint32_t i = 0; i < N; i++) {
        rill_world_add(w, ents[i], ca, &(tag){ents[i], (int32_t)i});
        rill_world_add(w, ents[i], cb, &(tag){ents[i], (int32_t)i});
    }
    rill_query_desc ab = {.with = {ca, cb}};
    uint32_t runs;
    assert_int_equal(collect_runs(w, &ab, seen, N, &runs), N);
    assert_int_equal(runs, 1); /* added together: one run */
    /* A column loop over runs writes what the per-entity walk reads back. */
    rill_query q = rill_world_query(w, &ab);
    while (rill_query_next_run(&q)) {
        tag *a = q.columns[0], *b = q.columns[1];
        for (uint32_t k = 0; k < q.count; k++) {
            b[k].value = a[k].value * 3;
        }
    }
    q = rill_world_query(w, &ab);
    uint32_t n = 0;
    while (rill_query_next(&q)) {
        tag *a = rill_query_get(&q, 0), *b = rill_query_get(&q, 1);
        assert_int_equal(a->owner, q.entity);
        assert_int_equal(b->owner, q.entity);
        assert_int_equal(b->value, a->value * 3);
        n++;
    }
    assert_int_equal(n, N);
    /* Churn: swap-removes and re-adds in another order scramble B's dense order against A's. */
    for (uint32_t i = 0; i < N; i += 7) {
        rill_world_remove(w, ents[i], cb);
    }
    for (uint32_t i = 0; i < N; i += 14) {
        rill_world_add(w, ents[i], cb, &(tag){ents[i], 0});
    }
    for (uint32_t i = 0; i < N; i += 11) {
        rill_world_add(w, ents[i], cc, &(tag){ents[i], 0});
    }
    rill_world_despawn(w, ents[17]);
    uint32_t expect_ab = 0, expect_abc = 0;
    for (uint32_t i = 0; i < N; i++) {
        bool b = rill_world_has(w, ents[i], cb), c = rill_world_has(w, ents[i], cc);
        expect_ab += b ? 1u : 0u;
        expect_abc += (b && !c) ? 1u : 0u;
    }
    memset(seen, 0, sizeof seen);
    assert_int_equal(collect_runs(w, &ab, seen, N, &runs), expect_ab);
    assert_true(runs > 1);
    q = rill_world_query(w, &ab);
    assert_int_equal(rill_query_count(&q), expect_ab);
    rill_query_desc ab_not_c = {.with = {ca, cb}, .without = {cc}};
    memset(seen, 0, sizeof seen);
    assert_int_equal(collect_runs(w, &ab_not_c, seen, N, &runs), expect_abc);
    rill_query_desc three = {.with = {cc, ca, cb}};
    memset(seen, 0, sizeof seen);
    uint32_t expect3 = 0;
    for (uint32_t i = 0; i < N; i++) {
        expect3 += rill_world_has(w, ents[i], cb) && rill_world_has(w, ents[i], cc) ? 1u : 0u;
    }
    assert_int_equal(collect_runs(w, &three, seen, N, &runs), expect3);
    /* An invalid query has no runs. */
    q = rill_world_query(w, &(rill_query_desc){.with = {ca, {999}}});
    assert_false(rill_query_next_run(&q));
    /* The per-entity walk survives a structural change in the middle of a run (against the
     * rules): every other match is still visited exactly once. */
    memset(seen, 0, sizeof seen);
    q = rill_world_query(w, &(rill_query_desc){.with = {ca}});
    n = 0;
    uint32_t alive_a = rill_world_component_len(w, ca);
    while (rill_query_next(&q)) {
        uint32_t slot = RILL_ENTITY_INDEX(q.entity);
        assert_int_equal(seen[slot], 0);
        seen[slot] = 1;
        n++;
        if (slot % 5 == 0) {
            rill_world_remove(w, q.entity, cb);
        }
        if (slot % 9 == 0) {
            rill_world_add(w, q.entity, cc, NULL);
        }
    }
    assert_int_equal(n, alive_a);
    rill_world_destroy(w);
}

/* Sums entity slots over a cached iteration, run by run or entity by entity. */
static uint64_t cached_sum(rill_query_cache *c, bool by_entity, uint32_t *out_n) {
    rill_query q = rill_query_cache_iter(c);
    uint64_t sum = 0;
    uint32_t n = 0;
    if (by_entity) {
        while (rill_query_next(&q)) {
            assert_int_equal(((tag *)rill_query_get(&q, 0))->owner, q.entity);
            sum += RILL_ENTITY_INDEX(q.entity);
            n++;
        }
    } else {
        while (rill_query_next_run(&q)) {
            for (uint32_t k = 0; k < q.count; k++) {
                assert_int_equal(((tag *)q.columns[0])[k].owner, q.entities[k]);
                assert_int_equal(((tag *)q.columns[1])[k].owner, q.entities[k]);
                sum += RILL_ENTITY_INDEX(q.entities[k]);
                n++;
            }
        }
    }
    *out_n = n;
    return sum;
}

/* A cached query replays its runs while its storages are unchanged and re-finds them after any
 * structural change of a term, including one in the middle of an iteration. */
static void test_query_cache(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A"), cb = register_tag(w, "B"), cc = register_tag(w, "C");
    enum { N = 2000 };
    static rill_entity ents[N];
    rill_world_spawn_n(w, N, ents);
    uint64_t expect = 0;
    for (uint32_t i = 0; i < N; i++) {
        rill_world_add(w, ents[i], ca, &(tag){ents[i], 0});
        rill_world_add(w, ents[i], cb, &(tag){ents[i], 0});
        expect += RILL_ENTITY_INDEX(ents[i]);
    }
    rill_query_cache *c =
        rill_world_query_cache(w, &(rill_query_desc){.with = {ca, cb}, .without = {cc}});
    assert_non_null(c);
    uint32_t n;
    for (int round = 0; round < 3; round++) { /* record, then replay twice */
        assert_int_equal(cached_sum(c, round == 2, &n), expect);
        assert_int_equal(n, N);
    }
    assert_true(rill_query_cache_iter(c).replaying); /* private member: the records are used */
    /* Changes to a term storage (here the without term) are seen by the next iteration. */
    rill_world_add(w, ents[5], cc, &(tag){ents[5], 0});
    expect -= RILL_ENTITY_INDEX(ents[5]);
    assert_int_equal(cached_sum(c, false, &n), expect);
    assert_int_equal(n, N - 1);
    rill_world_remove(w, ents[9], cb);
    expect -= RILL_ENTITY_INDEX(ents[9]);
    assert_int_equal(cached_sum(c, true, &n), expect);
    assert_int_equal(cached_sum(c, false, &n), expect);
    /* A change in the middle of a replayed iteration (against the rules) neither crashes nor
     * visits an entity twice. */
    rill_query q = rill_query_cache_iter(c);
    static uint8_t seen[N + 16];
    memset(seen, 0, sizeof seen);
    uint32_t visited = 0;
    while (rill_query_next(&q)) {
        uint32_t slot = RILL_ENTITY_INDEX(q.entity);
        assert_int_equal(seen[slot], 0);
        seen[slot] = 1;
        if (visited++ == 10) {
            rill_world_remove(w, ents[1000], ca);
        }
    }
    assert_true(visited >= N - 3);
    /* An iteration abandoned halfway leaves the cache to record again. */
    q = rill_query_cache_iter(c);
    assert_true(rill_query_next_run(&q));
    expect -= RILL_ENTITY_INDEX(ents[1000]);
    assert_int_equal(cached_sum(c, false, &n), expect);
    assert_int_equal(cached_sum(c, false, &n), expect);
    rill_query_cache_destroy(c);
    /* An invalid desc caches nothing and yields nothing. */
    c = rill_world_query_cache(w, &(rill_query_desc){.with = {ca, {999}}});
    q = rill_query_cache_iter(c);
    assert_false(rill_query_next_run(&q));
    rill_query_cache_destroy(c);
    rill_query_cache_destroy(NULL);
    rill_world_destroy(w);
}

/* Walks q run by run from where it stands, marking each match in seen (each once), and checks
 * the columns against the world. `stop` > 0 stops after that many runs. Returns the matches. */
static uint32_t walk_runs(rill_world *w, rill_query *q, uint8_t *seen, uint32_t stop) {
    uint32_t n = 0, runs = 0;
    while ((stop == 0 || runs < stop) && rill_query_next_run(q)) {
        runs++;
        for (uint32_t k = 0; k < q->count; k++) {
            rill_entity e = q->entities[k];
            assert_int_equal(seen[RILL_ENTITY_INDEX(e)], 0);
            seen[RILL_ENTITY_INDEX(e)] = 1;
            assert_ptr_equal((tag *)q->columns[0] + k, rill_world_get(w, e, q->desc.with[0]));
            assert_ptr_equal((tag *)q->columns[1] + k, rill_world_get(w, e, q->desc.with[1]));
            n++;
        }
    }
    return n;
}

/* A plain query remembers its runs: repeating it replays them (the same matches), a structural
 * change is seen by the next one, and nested iterations of the same desc, iterations abandoned
 * halfway and an iteration whose memo entry nine other queries took over all stay exact. */
static void test_query_memo(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A"), cb = register_tag(w, "B"), cc = register_tag(w, "C");
    enum { N = 3000 };
    static rill_entity ents[N];
    static uint8_t seen[N + 16];
    rill_world_spawn_n(w, N, ents);
    for (uint32_t i = 0; i < N; i++) {
        rill_world_add(w, ents[i], ca, &(tag){ents[i], 0});
        rill_world_add(w, ents[i], cb, &(tag){ents[i], 0});
    }
    /* Churn, so the query has many runs (not so many that they are not worth remembering). */
    for (uint32_t i = 0; i < N; i += 50) {
        rill_world_remove(w, ents[i], cb);
    }
    for (uint32_t i = 0; i < N; i += 100) {
        rill_world_add(w, ents[i], cb, &(tag){ents[i], 0});
    }
    uint32_t expect = 0;
    for (uint32_t i = 0; i < N; i++) {
        expect += rill_world_has(w, ents[i], cb) ? 1u : 0u;
    }
    rill_query_desc ab = {.with = {ca, cb}};
    uint32_t runs = 0;
    for (int round = 0; round < 3; round++) { /* finds and records, then replays */
        memset(seen, 0, sizeof seen);
        assert_int_equal(collect_runs(w, &ab, seen, N, &runs), expect);
    }
    assert_true(runs > 10);
    rill_query q = rill_world_query(w, &ab);
    assert_true(q.replaying); /* private member: the remembered runs are used */
    /* A structural change of a term is seen by the next query. */
    rill_world_remove(w, ents[1], cb);
    expect--;
    q = rill_world_query(w, &ab);
    assert_false(q.replaying);
    memset(seen, 0, sizeof seen);
    assert_int_equal(walk_runs(w, &q, seen, 0), expect);
    /* Nested queries of the same desc while the outer one records: the inner ones take the
     * recording over; every walk stays exact and the next query replays. */
    rill_world_remove(w, ents[2], cb);
    expect--;
    q = rill_world_query(w, &ab);
    memset(seen, 0, sizeof seen);
    uint32_t outer = 0;
    for (int step = 0; step < 4; step++) {
        outer += walk_runs(w, &q, seen, 2);
        static uint8_t inner_seen[N + 16];
        memset(inner_seen, 0, sizeof inner_seen);
        rill_query in = rill_world_query(w, &ab);
        assert_int_equal(walk_runs(w, &in, inner_seen, 0), expect);
    }
    outer += walk_runs(w, &q, seen, 0);
    assert_int_equal(outer, expect);
    q = rill_world_query(w, &ab);
    assert_true(q.replaying);
    /* Abandoned halfway: the next query still sees everything. */
    memset(seen, 0, sizeof seen);
    walk_runs(w, &q, seen, 3);
    memset(seen, 0, sizeof seen);
    assert_int_equal(collect_runs(w, &ab, seen, N, &runs), expect);
    /* A replaying iteration whose memo entry is taken over by nine other queries meanwhile goes
     * on from where it stood. */
    q = rill_world_query(w, &ab);
    assert_true(q.replaying);
    memset(seen, 0, sizeof seen);
    outer = walk_runs(w, &q, seen, 5);
    rill_query_desc others[9] = {
        {.with = {cb, ca}},
        {.with = {ca, cb}, .without = {cc}},
        {.with = {ca, cc}},
        {.with = {cb, cc}},
        {.with = {ca, cb, cc}},
        {.with = {cc, ca}},
        {.with = {cc, cb}},
        {.with = {cb, ca}, .without = {cc}},
        {.with = {ca, cc}, .without = {cb}},
    };
    for (int k = 0; k < 9; k++) {
        static uint8_t other_seen[N + 16];
        memset(other_seen, 0, sizeof other_seen);
        rill_query o = rill_world_query(w, &others[k]);
        walk_runs(w, &o, other_seen, 0);
    }
    outer += walk_runs(w, &q, seen, 0);
    assert_int_equal(outer, expect);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_runs),
        cmocka_unit_test(test_query_cache),
        cmocka_unit_test(test_query_memo),
    };
    return cmocka_run_group_tests(tests, rill_test_setup_quiet, NULL);
}
