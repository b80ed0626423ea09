/* test_world_pages.c: the world's entity-indexed storage comes in pages of 1024 slots (generations
 * and flags, each component's sparse index): entities at and around page edges, despawn and reuse
 * across them, bulk spawns over free slots of several pages, empty pages given back after a batch
 * despawn, and a component used by a few far-apart entities costing pages, not the whole range. */
/* cmocka needs these before it, in this order. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include "rill/world.h"
#include "rill_test.h"

#define PAGE 1024u /* slots per page (RILL__PAGE_SLOTS) */

typedef struct owned {
    rill_entity owner;
    uint32_t value;
} owned;

static rill_component register_owned(rill_world *w, const char *name) {
    static const rill_field fields[] = {RILL_FIELD(owned, owner, ENTITY),
                                        RILL_FIELD(owned, value, U32)};
    rill_type_desc d = {.name = name, RILL_TYPE_LAYOUT(owned), .fields = fields, .field_count = 2};
    return rill_world_register_component(w, &d);
}

/* Spawns n entities into out (slots 0..n-1 in a fresh world). */
static void spawn(rill_world *w, rill_entity *out, uint32_t n) {
    assert_int_equal(rill_world_spawn_n(w, n, out), n);
}

/* Every dense element owns its data, and exactly `has` entities of ents[0..n) have c. */
static void check(rill_world *w, rill_component c, const rill_entity *ents, uint32_t n,
                  uint32_t has) {
    const rill_entity *dense;
    void *data;
    uint32_t len = rill_world_component_dense(w, c, &dense, &data);
    for (uint32_t i = 0; i < len; i++) {
        const owned *o = (const owned *)data + i;
        assert_true(o->owner == dense[i]);
        assert_ptr_equal(rill_world_get(w, dense[i], c), o);
    }
    uint32_t seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        const owned *o = rill_world_get(w, ents[i], c);
        if (o) {
            assert_true(o->owner == ents[i]);
            seen++;
        }
    }
    assert_int_equal(seen, has);
}

static bool at_edge(uint32_t slot) {
    uint32_t r = slot % PAGE;
    return r <= 1u || r >= PAGE - 2u;
}

static void test_page_edges(void **state) {
    (void)state;
    rill_world *w = rill_world_create(&(rill_world_desc){.entity_capacity = 16}, NULL);
    rill_component c = register_owned(w, "Owned");
    enum { N = 3 * PAGE + 5 };
    static rill_entity ents[N];
    spawn(w, ents, N);
    uint32_t has = 0;
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(RILL_ENTITY_INDEX(ents[i]), i);
        if (at_edge(i)) {
            rill_world_add(w, ents[i], c, &(owned){ents[i], i});
            has++;
        }
    }
    check(w, c, ents, N, has);
    /* the last slot of a page and the first of the next are distinct entries */
    rill_world_remove(w, ents[PAGE - 1u], c);
    assert_null(rill_world_get(w, ents[PAGE - 1u], c));
    assert_int_equal(((owned *)rill_world_get(w, ents[PAGE], c))->value, PAGE);
    check(w, c, ents, N, has - 1u);
    /* despawn at the edges, reuse: the slots come back with the next generation, bare */
    uint32_t edge[] = {PAGE - 1u, PAGE, 2u * PAGE, 2u * PAGE + 1u};
    for (uint32_t k = 0; k < 4; k++) {
        assert_true(rill_world_despawn(w, ents[edge[k]]));
    }
    for (uint32_t k = 0; k < 4; k++) {
        rill_entity old = ents[edge[3u - k]];
        rill_entity e = rill_world_spawn(w);
        assert_int_equal(RILL_ENTITY_INDEX(e), RILL_ENTITY_INDEX(old)); /* last in, first out */
        assert_int_equal(RILL_ENTITY_GENERATION(e), RILL_ENTITY_GENERATION(old) + 1u);
        assert_false(rill_world_is_alive(w, old));
        assert_null(rill_world_get(w, old, c));
        assert_null(rill_world_get(w, e, c));
        ents[edge[3u - k]] = e;
    }
    check(w, c, ents, N, has - 4u);
    /* past the last slot ever used: nothing, and no page is made by asking */
    assert_null(rill_world_get(w, RILL_ENTITY_MAKE(10u * PAGE, 1u), c));
    assert_false(rill_world_is_alive(w, RILL_ENTITY_MAKE(N, 1u)));
    rill_world_destroy(w);
}

/* A bulk spawn takes free slots from several pages (last in, first out) and fresh ones across a
 * page edge; every entity gets its components, none of the others. */
static void test_bulk_over_pages(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component c = register_owned(w, "Owned");
    enum { N = 2 * PAGE + 10 };
    static rill_entity ents[N];
    spawn(w, ents, N);
    uint32_t freed[] = {3u, PAGE + 7u, 2u * PAGE + 1u};
    for (uint32_t k = 0; k < 3; k++) {
        rill_world_despawn(w, ents[freed[k]]);
    }
    enum { M = PAGE + 3 };
    static owned init[M];
    static rill_entity got[M];
    for (uint32_t i = 0; i < M; i++) {
        init[i] = (owned){RILL_ENTITY_NULL, i};
    }
    rill_spawn_desc sd = {.count = M, .components = {c}, .data = {init}};
    assert_int_equal(rill_world_spawn_bulk(w, &sd, got), M);
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(RILL_ENTITY_INDEX(got[k]), freed[2u - k]);
    }
    assert_int_equal(RILL_ENTITY_INDEX(got[3]), N); /* then fresh slots */
    assert_int_equal(RILL_ENTITY_INDEX(got[M - 1]), N + M - 4u);
    for (uint32_t i = 0; i < M; i++) {
        const owned *o = rill_world_get(w, got[i], c);
        assert_non_null(o);
        assert_int_equal(o->value, i);
    }
    for (uint32_t i = 0; i < N; i++) {
        assert_null(rill_world_get(w, ents[i], c));
    }
    assert_int_equal(rill_world_component_len(w, c), M);
    rill_world_destroy(w);
}

/* A component on three entities a million slots apart costs a few pages, not an index over the
 * whole range (4 MB before the pages). */
static void test_far_apart_costs_pages(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component c = register_owned(w, "Owned");
    enum { N = 1000000 };
    rill_entity *ents = rill_malloc(sizeof(rill_entity) * N);
    assert_non_null(ents);
    spawn(w, ents, N);
    size_t before = rill_mem_live_bytes(RILL_MEM_WORLD);
    uint32_t at[] = {0u, N / 2u, N - 1u};
    for (uint32_t k = 0; k < 3; k++) {
        rill_world_add(w, ents[at[k]], c, &(owned){ents[at[k]], k});
    }
    size_t grew = rill_mem_live_bytes(RILL_MEM_WORLD) - before;
    assert_true(grew < 64u * 1024u); /* 3 pages of 4 KB and a table of 1024 page pointers */
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(((owned *)rill_world_get(w, ents[at[k]], c))->value, k);
    }
    assert_null(rill_world_get(w, ents[1], c));
    assert_null(rill_world_get(w, ents[N - 2], c));
    rill_free(ents);
    rill_world_destroy(w);
}

/* A subtree spread over pages goes in one batch: the component's pages that it emptied are given
 * back, those still used stay, and the world's memory returns to what it was before the
 * component was added (its dense arrays back to their floor). */
static void test_batch_despawn_gives_pages_back(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component c = register_owned(w, "Owned");
    enum { N = 9 * PAGE };
    static rill_entity ents[N];
    spawn(w, ents, N);
    rill_world_add(w, ents[0], c, &(owned){ents[0], 0}); /* the first page stays used */
    size_t before = rill_mem_live_bytes(RILL_MEM_WORLD);
    for (uint32_t i = PAGE; i < N; i++) {
        rill_world_set_parent(w, ents[i], ents[PAGE]);
        rill_world_add(w, ents[i], c, &(owned){ents[i], i});
    }
    assert_true(rill_mem_live_bytes(RILL_MEM_WORLD) > before + 16u * PAGE * sizeof(uint32_t));
    assert_int_equal(rill_world_despawn_recursive(w, ents[PAGE]), N - PAGE);
    check(w, c, ents, PAGE, 1u);
    /* the 17 index pages the subtree made (Owned 8, Parent 8, Children 1; 4 KB each) went; what
     * stays is the list of the free slots and the dense floor of Owned, Parent and Children (64
     * elements each) */
    size_t free_list = (N - PAGE) * sizeof(uint32_t);
    assert_true(rill_mem_live_bytes(RILL_MEM_WORLD) <= before + free_list + 12u * 1024u);
    /* the slots come back, and adding to them makes pages again */
    static rill_entity again[N - PAGE];
    spawn(w, again, N - PAGE);
    for (uint32_t i = 0; i < N - PAGE; i++) {
        assert_true(RILL_ENTITY_INDEX(again[i]) >= PAGE);
        rill_world_add(w, again[i], c, &(owned){again[i], i});
    }
    check(w, c, again, N - PAGE, N - PAGE);
    rill_world_destroy(w);
}

/* A component wide enough that its array gets a mapping of its own (RILL_MAPPED_MIN) early. */
typedef struct wide {
    rill_entity owner;
    uint32_t value;
    float pad[14];
} wide;

static rill_component register_wide(rill_world *w) {
    static const rill_field fields[] = {RILL_FIELD(wide, owner, ENTITY),
                                        RILL_FIELD(wide, value, U32)};
    rill_type_desc d = {.name = "Wide", RILL_TYPE_LAYOUT(wide), .fields = fields, .field_count = 2};
    return rill_world_register_component(w, &d);
}

static void spawn_wide(rill_world *w, rill_component c, rill_entity *out, uint32_t n) {
    spawn(w, out, n);
    for (uint32_t i = 0; i < n; i++) {
        rill_world_add(w, out[i], c, &(wide){.owner = out[i], .value = i});
    }
}

/* A district's worth of entities came and went (a batch despawn): the component storage is back
 * within its slack (1/32 of what it holds, world.c SET_SLACK) of what it was, not at the most it
 * ever held, and coming and going again does not creep. What stays is per slot the district
 * added: its generation and flags (5 bytes), its free-list entry (4) and part of an index page
 * shared with live entities. Before: the doubled array stayed (+4.4 MB here). */
static void test_storage_follows_entities(void **state) {
    (void)state;
    enum { BASE = 40000, EXTRA = 60000 };
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component c = register_wide(w);
    static rill_entity base[BASE], extra[EXTRA];
    spawn_wide(w, c, base, BASE);
    size_t before = rill_mem_live_bytes(RILL_MEM_WORLD);
    size_t slack = BASE / 32u * (sizeof(wide) + sizeof(rill_entity)) + 64u * sizeof(wide) * 2u;
    size_t per_slot = EXTRA * 16u;
    size_t after = 0;
    for (int round = 0; round < 3; round++) {
        spawn_wide(w, c, extra, EXTRA);
        assert_true(rill_mem_live_bytes(RILL_MEM_WORLD) >= before + EXTRA * sizeof(wide));
        assert_int_equal(rill_world_despawn_recursive_n(w, extra, EXTRA), EXTRA);
        const rill_entity *dense;
        void *data;
        assert_int_equal(rill_world_component_dense(w, c, &dense, &data), BASE);
        for (uint32_t i = 0; i < BASE; i++) {
            assert_true(((const wide *)data)[i].owner == dense[i]);
        }
        size_t now = rill_mem_live_bytes(RILL_MEM_WORLD);
        assert_true(now <= before + slack + per_slot);
        if (round > 0) {
            assert_int_equal(now, after); /* the same storage each time */
        }
        after = now;
    }
    for (uint32_t i = 0; i < BASE; i++) {
        assert_int_equal(((const wide *)rill_world_get(w, base[i], c))->value, i);
    }
    rill_world_destroy(w);
}

/* The list of free slots a despawn left gives its capacity back as spawns reuse the slots: the
 * world holding the same entities again holds the same memory, not 4 bytes more per slot the
 * despawn freed (before: +256 KB here). */
static void test_free_list_follows_reuse(void **state) {
    (void)state;
    enum { ALL = 100000, GO = 60000 };
    rill_world *w = rill_world_create(NULL, NULL);
    static rill_entity ents[ALL];
    spawn(w, ents, ALL);
    size_t peak = rill_mem_live_bytes(RILL_MEM_WORLD);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(rill_world_despawn_recursive_n(w, ents + ALL - GO, GO), GO);
        assert_true(rill_mem_live_bytes(RILL_MEM_WORLD) >= peak + GO * sizeof(uint32_t));
        spawn(w, ents + ALL - GO, GO / 2u);
        for (uint32_t i = ALL - GO / 2u; i < ALL; i++) {
            ents[i] = rill_world_spawn(w);
        }
        assert_int_equal(rill_world_entity_count(w), ALL);
        assert_true(rill_mem_live_bytes(RILL_MEM_WORLD) <= peak + 1024u * sizeof(uint32_t));
    }
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_edges),
        cmocka_unit_test(test_bulk_over_pages),
        cmocka_unit_test(test_far_apart_costs_pages),
        cmocka_unit_test(test_batch_despawn_gives_pages_back),
        cmocka_unit_test(test_storage_follows_entities),
        cmocka_unit_test(test_free_list_follows_reuse),
    };
    return cmocka_run_group_tests(tests, rill_test_setup_quiet, NULL);
}
