/* test_world_spawn.c: spawning in bulk (rill_world_spawn_bulk) and despawning in batches (the
 * commands' batch despawn, recursive despawn): storage, hierarchy and hooks stay consistent. */
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

/* >>batch despawn */

typedef struct batch_log {
    rill_component tag;
    int removes;
    int missing_name;  /* hooks that ran after the entity's Name was gone */
    rill_entity adopt; /* an outside entity the hook of value 7 attaches to the dying entity */
    uint32_t refused;  /* despawns of batch members from hooks that were (correctly) no-ops */
} batch_log;

static void batch_on_remove(rill_world *w, rill_entity e, void *data, void *user) {
    batch_log *log = user;
    log->removes++;
    if (rill_world_get_name(w, e) == NULL) {
        log->missing_name++;
    }
    const tag *t = data;
    if (t->value == 7 && log->adopt != RILL_ENTITY_NULL) {
        rill_world_set_parent(w, log->adopt, e); /* crosses into the batch: must be undone */
    }
    if (t->value == 9) {
        /* Despawning a member of the batch from a hook is a no-op, as for one entity. */
        rill_entity p = rill_world_get_parent(w, e);
        log->refused += (p != RILL_ENTITY_NULL && !rill_world_despawn(w, p)) ? 1u : 0u;
    }
}

/* Every Parent points at a live parent whose child list holds the entity exactly once, and
 * every child list has `count` live members. */
static void check_hierarchy(rill_world *w) {
    rill_entity e;
    for (uint32_t it = 0; rill_world_entity_next(w, &it, &e);) {
        rill_entity p = rill_world_get_parent(w, e);
        if (p != RILL_ENTITY_NULL) {
            assert_true(rill_world_is_alive(w, p));
            uint32_t seen = 0;
            for (rill_entity c = rill_world_first_child(w, p); c;
                 c = rill_world_next_sibling(w, c)) {
                seen += c == e ? 1u : 0u;
            }
            assert_int_equal(seen, 1);
        }
        uint32_t n = 0;
        for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
            assert_true(rill_world_is_alive(w, c));
            assert_true(rill_world_get_parent(w, c) == e);
            n++;
        }
        assert_int_equal(n, rill_world_child_count(w, e));
    }
}

/* Large subtrees go through the batch path: hooks run for every member with all components still
 * present, links across the subtree's edge are undone, interleaved survivors keep their data. */
static void test_batch_despawn(void **state) {
    (void)state;
    batch_log log = {0};
    rill_world *w = rill_world_create(NULL, NULL);
    static const rill_field fields[] = {RILL_FIELD(tag, owner, ENTITY),
                                        RILL_FIELD(tag, value, I32)};
    rill_type_desc d = {.name = "BatchTag",
                        RILL_TYPE_LAYOUT(tag),
                        .fields = fields,
                        .field_count = 2,
                        .on_remove = batch_on_remove,
                        .hook_user = &log};
    log.tag = rill_world_register_component(w, &d);
    rill_component plain = register_tag(w, "Plain");
    rill_entity keep_parent = rill_world_spawn(w);
    rill_entity root = rill_world_spawn(w);
    rill_entity sibling = rill_world_spawn(w);
    rill_world_set_parent(w, root, keep_parent);
    rill_world_set_parent(w, sibling, keep_parent);
    log.adopt = rill_world_spawn(w);
    /* 300 subtree members (root included), interleaved with 150 survivors in every storage. */
    rill_entity members[300], survivors[150];
    members[0] = root;
    uint32_t ns = 0;
    for (uint32_t i = 1; i < 300; i++) {
        members[i] = rill_world_spawn(w);
        /* Chains and fans: parent is the previous member or one a few back. */
        rill_world_set_parent(w, members[i], members[i % 3 == 0 ? i - 1 : (i - 1) / 2]);
        if (i % 2 == 0) {
            survivors[ns] = rill_world_spawn(w);
            rill_world_add(w, survivors[ns], plain, &(tag){survivors[ns], (int32_t)ns});
            rill_transform st = rill_transform_identity();
            st.translation[0] = (float)ns;
            rill_world_set_transform(w, survivors[ns], &st);
            rill_world_set_name(w, survivors[ns], "survivor");
            ns++;
        }
    }
    for (uint32_t i = 0; i < 300; i++) {
        int32_t v = i == 40 ? 7 : i == 50 ? 9 : (int32_t)i + 100;
        rill_world_add(w, members[i], log.tag, &(tag){members[i], v});
        rill_world_add(w, members[i], plain, &(tag){members[i], -1});
        rill_world_set_name(w, members[i], "member");
        rill_transform id = rill_transform_identity();
        rill_world_set_transform(w, members[i], &id);
    }
    rill_world_update_transforms(w);
    uint32_t before = rill_world_entity_count(w);
    assert_int_equal(rill_world_despawn_recursive(w, root), 300);
    assert_int_equal(rill_world_entity_count(w), before - 300);
    assert_int_equal(log.removes, 300);
    assert_int_equal(log.missing_name, 0);
    assert_int_equal(log.refused, 1);
    for (uint32_t i = 0; i < 300; i++) {
        assert_false(rill_world_is_alive(w, members[i]));
    }
    /* The kept parent lost only the root; the adopted outsider is a root again. */
    assert_int_equal(rill_world_child_count(w, keep_parent), 1);
    assert_true(rill_world_first_child(w, keep_parent) == sibling);
    assert_true(rill_world_is_alive(w, log.adopt));
    assert_true(rill_world_get_parent(w, log.adopt) == RILL_ENTITY_NULL);
    /* Survivors kept their own data through the compaction. */
    for (uint32_t i = 0; i < ns; i++) {
        const tag *t = rill_world_get(w, survivors[i], plain);
        assert_non_null(t);
        assert_true(t->owner == survivors[i]);
        assert_int_equal(t->value, (int32_t)i);
        const rill_transform *tr = rill_world_get(w, survivors[i], RILL_COMPONENT_TRANSFORM);
        assert_float_equal(tr->translation[0], (float)i, 0.0f);
        assert_string_equal(rill_world_get_name(w, survivors[i]), "survivor");
    }
    const rill_builtins *bi = rill_world_builtin(w);
    rill_component all[] = {log.tag,    plain,       bi->name, bi->transform, bi->global_transform,
                            bi->parent, bi->children};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        check_set(w, all[k]);
    }
    check_hierarchy(w);
    assert_int_equal(rill_world_component_len(w, log.tag), 0);
    /* Transforms still propagate (stale dirty entries of the dead are skipped). */
    rill_world_update_transforms(w);

    /* Several roots at once: duplicates, a root under another root and stale ids go once. */
    rill_entity a = rill_world_spawn(w), b = RILL_ENTITY_NULL;
    for (uint32_t i = 0; i < 100; i++) {
        rill_entity x = rill_world_spawn(w);
        rill_world_set_parent(w, x, i < 50 ? a : b);
        if (i == 49) {
            b = x;
        }
        rill_world_add(w, x, plain, &(tag){x, 1});
    }
    rill_entity roots[] = {b, a, a, members[3], RILL_ENTITY_NULL, b};
    uint32_t left = rill_world_entity_count(w);
    assert_int_equal(rill_world_despawn_recursive_n(w, roots, 6), 101);
    assert_int_equal(rill_world_entity_count(w), left - 101);
    check_set(w, plain);
    check_hierarchy(w);
    assert_int_equal(rill_world_despawn_recursive_n(w, roots, 6), 0);
    assert_int_equal(rill_world_despawn_recursive_n(w, NULL, 3), 0);
    rill_world_destroy(w);
}

static uint32_t bulk_hook_calls;
static rill_component bulk_hooked;
static void count_add_hook(rill_world *w, rill_entity e, void *data, void *user) {
    (void)user;
    assert_ptr_equal(rill_world_get(w, e, bulk_hooked), data);
    assert_non_null(rill_world_get(w, e, RILL_COMPONENT_TRANSFORM)); /* entity is complete */
    bulk_hook_calls++;
}

/* A bulk spawn stores each entity's own data (or defaults), marks transforms dirty, runs hooks on
 * complete entities, reuses free slots, forms one run, and refuses bad descs whole. */
static void test_spawn_bulk(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A");
    rill_type_desc hd = *rill_world_component_type(w, ca);
    hd.name = "Hooked";
    hd.on_add = count_add_hook;
    rill_component ch = rill_world_register_component(w, &hd);
    /* Free slots to reuse. */
    rill_entity old[10];
    rill_world_spawn_n(w, 10, old);
    for (uint32_t i = 0; i < 10; i += 2) {
        rill_world_despawn(w, old[i]);
    }
    enum { N = 3000 };
    static tag tags[N];
    static rill_transform trs[N];
    static rill_entity out[N];
    for (uint32_t i = 0; i < N; i++) {
        tags[i] = (tag){0, (int32_t)i};
        trs[i] = rill_transform_identity();
        trs[i].translation[1] = (float)i;
    }
    rill_spawn_desc d = {
        .count = N,
        .components = {RILL_COMPONENT_TRANSFORM, ca, RILL_COMPONENT_GLOBAL_TRANSFORM},
        .data = {trs, tags, NULL}};
    assert_int_equal(rill_world_spawn_bulk(w, &d, out), N);
    assert_int_equal(rill_world_entity_count(w), 5 + N);
    for (uint32_t i = 0; i < N; i++) {
        assert_true(rill_world_is_alive(w, out[i]));
        assert_int_equal(((tag *)rill_world_get(w, out[i], ca))->value, (int32_t)i);
        const rill_transform *t = rill_world_get(w, out[i], RILL_COMPONENT_TRANSFORM);
        assert_true(t->translation[1] == (float)i);
        const float *m = rill_world_global_matrix(w, out[i]);
        assert_true(m[0] == 1.0f && m[13] == 0.0f); /* defaults until the update */
    }
    check_set(w, ca);
    assert_int_equal(rill_world_update_transforms(w), N);
    assert_true(rill_world_global_matrix(w, out[N - 1])[13] == (float)(N - 1));
    /* One run over Transform + A. */
    rill_query q = rill_world_query(w, &(rill_query_desc){.with = {RILL_COMPONENT_TRANSFORM, ca}});
    assert_true(rill_query_next_run(&q));
    assert_int_equal(q.count, N);
    /* Hooks see complete entities; out may be NULL. */
    bulk_hook_calls = 0;
    bulk_hooked = ch;
    d = (rill_spawn_desc){.count = 5, .components = {ch, RILL_COMPONENT_TRANSFORM}};
    assert_int_equal(rill_world_spawn_bulk(w, &d, NULL), 5);
    assert_int_equal(bulk_hook_calls, 5);
    assert_int_equal(rill_world_component_len(w, ch), 5);
    /* Bad descs spawn nothing. */
    uint32_t before = rill_world_entity_count(w);
    d = (rill_spawn_desc){.count = 3, .components = {ca, ca}};
    assert_int_equal(rill_world_spawn_bulk(w, &d, out), 0);
    d = (rill_spawn_desc){.count = 3, .components = {ca, {999}}};
    assert_int_equal(rill_world_spawn_bulk(w, &d, out), 0);
    d = (rill_spawn_desc){.count = 3, .components = {RILL_COMPONENT_PARENT}};
    assert_int_equal(rill_world_spawn_bulk(w, &d, out), 0);
    assert_int_equal(rill_world_spawn_bulk(w, &(rill_spawn_desc){0}, out), 0);
    assert_int_equal(rill_world_entity_count(w), before);
    /* No components: plain entities. */
    assert_int_equal(rill_world_spawn_bulk(w, &(rill_spawn_desc){.count = 4}, out), 4);
    assert_int_equal(rill_world_entity_components(w, out[3], NULL, 0), 0);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_despawn),
        cmocka_unit_test(test_spawn_bulk),
    };
    return cmocka_run_group_tests(tests, rill_test_setup_quiet, NULL);
}
