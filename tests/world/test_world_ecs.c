/* test_world_ecs.c: entities, sparse-set storage, plain queries, hierarchy, transforms, events,
 * command buffers, resources and component hooks of the world module (query runs, caches and
 * memos are in test_world_query.c, bulk spawn and batch despawn in test_world_spawn.c). */
/* cmocka needs these before it, in this order. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <string.h>

#include "rill/world.h"
#include "rill_test.h"
#include "world_test.h"

static void test_generational_ids(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    assert_non_null(w);
    rill_component t = register_tag(w, "Tag");
    rill_entity a = rill_world_spawn(w);
    assert_int_not_equal(a, RILL_ENTITY_NULL);
    assert_int_equal(RILL_ENTITY_GENERATION(a), 1);
    assert_true(rill_world_is_alive(w, a));
    assert_non_null(rill_world_add(w, a, t, NULL));
    assert_true(rill_world_despawn(w, a));
    assert_false(rill_world_is_alive(w, a));
    assert_false(rill_world_despawn(w, a));
    rill_entity b = rill_world_spawn(w);
    assert_int_equal(RILL_ENTITY_INDEX(b), RILL_ENTITY_INDEX(a)); /* slot reused */
    assert_int_equal(RILL_ENTITY_GENERATION(b), 2);
    /* The stale handle reaches nothing of the new occupant. */
    assert_non_null(rill_world_add(w, b, t, &(tag){b, 7}));
    assert_null(rill_world_get(w, a, t));
    assert_false(rill_world_has(w, a, t));
    assert_null(rill_world_add(w, a, t, NULL));
    assert_false(rill_world_remove(w, a, t));
    assert_false(rill_world_set_parent(w, a, b));
    assert_int_equal(rill_world_despawn_recursive(w, a), 0);
    assert_int_equal(rill_world_entity_components(w, a, NULL, 0), 0);
    assert_int_equal(((tag *)rill_world_get(w, b, t))->value, 7);
    /* NULL and garbage entities are harmless too. */
    assert_false(rill_world_is_alive(w, RILL_ENTITY_NULL));
    assert_null(rill_world_get(w, RILL_ENTITY_NULL, t));
    assert_null(rill_world_get(w, RILL_ENTITY_MAKE(123456789u, 3), t));
    assert_null(rill_world_get(w, b, (rill_component){9999}));
    assert_null(rill_world_add(w, b, RILL_COMPONENT_NONE, NULL));
    assert_int_equal(rill_world_entity_count(w), 1);
    rill_world_destroy(w);
    rill_world_destroy(NULL);
}

static void test_spawn_n_and_reserve(void **state) {
    (void)state;
    rill_world *w = rill_world_create(&(rill_world_desc){.entity_capacity = 16}, NULL);
    assert_true(rill_world_reserve(w, 5000));
    rill_entity ents[3000];
    assert_int_equal(rill_world_spawn_n(w, 3000, ents), 3000);
    assert_int_equal(rill_world_entity_count(w), 3000);
    for (uint32_t i = 0; i < 3000; i += 2) {
        rill_world_despawn(w, ents[i]);
    }
    rill_entity more[2000];
    assert_int_equal(rill_world_spawn_n(w, 2000, more), 2000);
    assert_int_equal(rill_world_entity_count(w), 3500);
    for (uint32_t i = 0; i < 2000; i++) {
        assert_true(rill_world_is_alive(w, more[i]));
        for (uint32_t j = 0; j < 3000; j += 2) {
            if (RILL_ENTITY_INDEX(ents[j]) == RILL_ENTITY_INDEX(more[i])) {
                assert_int_not_equal(ents[j], more[i]);
            }
        }
    }
    assert_true(rill_world_component_reserve(w, RILL_COMPONENT_TRANSFORM, 10000));
    assert_false(rill_world_component_reserve(w, (rill_component){777}, 10));
    rill_world_destroy(w);
}

/* A tiny deterministic generator so the scale test is repeatable. */
static uint32_t rng_next(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void test_storage_at_scale(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A"), cb = register_tag(w, "B"), cc = register_tag(w, "C");
    enum { N = 100000 };
    static rill_entity ents[N];
    assert_int_equal(rill_world_spawn_n(w, N, ents), N);
    for (uint32_t i = 0; i < N; i++) {
        tag v = {ents[i], (int32_t)i};
        assert_non_null(rill_world_add(w, ents[i], ca, &v));
        if (i % 2 == 0) {
            assert_non_null(rill_world_add(w, ents[i], cb, &v));
        }
        if (i % 3 == 0) {
            assert_non_null(rill_world_add(w, ents[i], cc, &v));
        }
    }
    uint32_t seed = 12345;
    uint32_t removed = 0, despawned = 0;
    for (uint32_t k = 0; k < N / 2; k++) {
        uint32_t i = rng_next(&seed) % N;
        switch (rng_next(&seed) % 3) {
        case 0:
            removed += rill_world_remove(w, ents[i], ca) ? 1u : 0u;
            break;
        case 1:
            rill_world_remove(w, ents[i], cb);
            break;
        default:
            despawned += rill_world_despawn(w, ents[i]) ? 1u : 0u;
            break;
        }
    }
    assert_int_equal(rill_world_entity_count(w), N - despawned);
    check_set(w, ca);
    check_set(w, cb);
    check_set(w, cc);
    /* Every surviving component still holds its own entity's data after all the swaps. */
    for (uint32_t id = ca.id; id <= cc.id; id++) {
        rill_component c = {id};
        const rill_entity *de;
        void *data;
        uint32_t n = rill_world_component_dense(w, c, &de, &data);
        for (uint32_t i = 0; i < n; i++) {
            tag *t = (tag *)data + i;
            assert_int_equal(t->owner, de[i]);
            assert_int_equal(ents[t->value], de[i]);
        }
    }
    assert_true(rill_world_component_len(w, ca) <= N - removed);
    /* Respawn into the freed slots and keep the invariants. */
    for (uint32_t k = 0; k < despawned; k++) {
        rill_entity e = rill_world_spawn(w);
        assert_non_null(rill_world_add(w, e, cc, &(tag){e, -1}));
    }
    check_set(w, cc);
    assert_int_equal(rill_world_entity_count(w), N);
    rill_world_destroy(w);
}

/* The world's desc is checked like every desc: positional or garbage canaries are refused. */
static void test_world_desc_canaries(void **state) {
    (void)state;
    rill_error err = {0};
    assert_null(rill_world_create(&(rill_world_desc){.start_canary = 1}, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "rill_world_create"));
    rill_error_clear(&err);
    assert_null(rill_world_create(&(rill_world_desc){.end_canary = 0xFFFFFFFFu}, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    rill_world *w = rill_world_create(&(rill_world_desc){.entity_capacity = 8}, &err);
    assert_non_null(w);
    rill_world_destroy(w);
}

static void test_entity_components_and_builtins(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    const rill_builtins *b = rill_world_builtin(w);
    assert_int_equal(b->name.id, RILL_BUILTIN_NAME);
    assert_int_equal(b->transform.id, RILL_BUILTIN_TRANSFORM);
    assert_int_equal(b->camera.id, RILL_BUILTIN_CAMERA);
    assert_int_equal(rill_world_find_component(w, "Name").id, RILL_BUILTIN_NAME);
    assert_int_equal(rill_world_find_component(w, "Transform").id, RILL_BUILTIN_TRANSFORM);
    assert_int_equal(rill_world_find_component(w, "GlobalTransform").id,
                     RILL_BUILTIN_GLOBAL_TRANSFORM);
    assert_int_equal(rill_world_find_component(w, "Parent").id, RILL_BUILTIN_PARENT);
    assert_int_equal(rill_world_find_component(w, "Children").id, RILL_BUILTIN_CHILDREN);
    assert_int_equal(rill_world_find_component(w, "Camera").id, RILL_BUILTIN_CAMERA);
    assert_int_equal(rill_world_find_component(w, "Nope").id, 0);
    assert_true(rill_world_component_type(w, RILL_COMPONENT_GLOBAL_TRANSFORM)->flags &
                RILL_TYPE_NO_SERIALIZE);
    assert_false(rill_world_component_type(w, RILL_COMPONENT_TRANSFORM)->flags &
                 RILL_TYPE_NO_SERIALIZE);

    rill_component t = register_tag(w, "Tag");
    assert_int_equal(t.id, RILL_COMPONENT_BUILTIN_NUM);
    assert_int_equal(register_tag(w, "Tag").id, t.id); /* same name, same size: same id */
    rill_type_desc other = {.name = "Tag", .size = 4};
    assert_int_equal(rill_world_register_component(w, &other).id, 0);

    rill_entity e = rill_world_spawn(w);
    rill_world_add(w, e, t, NULL);
    rill_world_add(w, e, RILL_COMPONENT_CAMERA, NULL);
    rill_world_set_name(w, e, "cam");
    rill_component list[8];
    uint32_t n = rill_world_entity_components(w, e, list, 8);
    assert_int_equal(n, 3);
    assert_int_equal(list[0].id, RILL_BUILTIN_NAME);
    assert_int_equal(list[1].id, RILL_BUILTIN_CAMERA);
    assert_int_equal(list[2].id, t.id);
    assert_int_equal(rill_world_entity_components(w, e, list, 1), 3);

    const rill_camera *cam = rill_world_get(w, e, RILL_COMPONENT_CAMERA);
    assert_true(cam->active);
    assert_false(cam->is_default);
    assert_true(cam->hdr);
    assert_int_equal(cam->role, RILL_CAMERA_ROLE_GAME);
    assert_int_equal(cam->projection, RILL_PROJECTION_PERSPECTIVE);
    assert_float_equal(cam->fov_y, 0.8f, 1e-7);
    assert_float_equal(cam->near_plane, 0.1f, 1e-7);
    assert_float_equal(cam->far_plane, 1000.0f, 1e-7);
    assert_float_equal(cam->ortho_height, 10.0f, 1e-7);
    assert_float_equal(cam->viewport[2], 1.0f, 0);
    assert_float_equal(cam->clear_color[3], 1.0f, 0);

    assert_string_equal(rill_world_get_name(w, e), "cam");
    assert_int_equal(rill_world_find_by_name(w, "cam"), e);
    assert_int_equal(rill_world_find_by_name(w, "other"), RILL_ENTITY_NULL);
    rill_world_set_name(w, e, NULL);
    assert_null(rill_world_get_name(w, e));

    rill_transform *tr = rill_world_add(w, e, RILL_COMPONENT_TRANSFORM, NULL);
    assert_float_equal(tr->scale[0], 1.0f, 0);
    assert_float_equal(tr->rotation[3], 1.0f, 0);
    /* Managed components cannot be added directly. */
    assert_null(rill_world_add(w, e, RILL_COMPONENT_PARENT, NULL));
    assert_null(rill_world_add(w, e, RILL_COMPONENT_CHILDREN, NULL));
    rill_world_destroy(w);
}

static void test_queries(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A"), cb = register_tag(w, "B"), cc = register_tag(w, "C");
    enum { N = 1000 };
    rill_entity ents[N];
    rill_world_spawn_n(w, N, ents);
    for (uint32_t i = 0; i < N; i++) {
        rill_world_add(w, ents[i], ca, &(tag){ents[i], (int32_t)i});
        if (i % 2 == 0) {
            rill_world_add(w, ents[i], cb, &(tag){ents[i], (int32_t)i * 10});
        }
        if (i % 5 == 0) {
            rill_world_add(w, ents[i], cc, &(tag){ents[i], 0});
        }
    }
    /* with A, B: the even ones (500); B is the smaller set and drives. */
    rill_query q = rill_world_query(w, &(rill_query_desc){.with = {ca, cb}});
    assert_int_equal(q.driver, 1);
    uint32_t n = 0;
    while (rill_query_next(&q)) {
        tag *a = rill_query_get(&q, 0), *b = rill_query_get(&q, 1);
        assert_int_equal(a->owner, q.entity);
        assert_int_equal(b->owner, q.entity);
        assert_int_equal(b->value, a->value * 10);
        assert_null(rill_query_get(&q, 2));
        n++;
    }
    assert_int_equal(n, 500);
    /* with A, B without C: even and not a multiple of 5 (400). */
    q = rill_world_query(w, &(rill_query_desc){.with = {ca, cb}, .without = {cc}});
    assert_int_equal(rill_query_count(&q), 400);
    while (rill_query_next(&q)) {
        assert_false(rill_world_has(w, q.entity, cc));
        assert_int_equal(((tag *)rill_query_get(&q, 0))->value % 2, 0);
    }
    /* with C only: 200, and writes through the pointers stick. */
    q = rill_world_query(w, &(rill_query_desc){.with = {cc}});
    while (rill_query_next(&q)) {
        ((tag *)rill_query_get(&q, 0))->value = 42;
    }
    q = rill_world_query(w, &(rill_query_desc){.with = {cc}});
    n = 0;
    while (rill_query_next(&q)) {
        assert_int_equal(((tag *)rill_query_get(&q, 0))->value, 42);
        n++;
    }
    assert_int_equal(n, 200);
    /* Invalid descs yield nothing. */
    q = rill_world_query(w, &(rill_query_desc){0});
    assert_false(rill_query_next(&q));
    q = rill_world_query(w, &(rill_query_desc){.with = {ca, {999}}});
    assert_false(rill_query_next(&q));
    q = rill_world_query(w, &(rill_query_desc){.with = {ca}, .without = {{999}}});
    assert_false(rill_query_next(&q));
    /* Despawning the current entity (against the rules) must still visit every other match once. */
    q = rill_world_query(w, &(rill_query_desc){.with = {ca}});
    n = 0;
    while (rill_query_next(&q)) {
        n++;
        if (((tag *)rill_query_get(&q, 0))->value % 3 == 0) {
            rill_world_despawn(w, q.entity);
        }
    }
    assert_int_equal(n, N);
    rill_world_destroy(w);
}

static bool near(float a, float b) {
    return fabsf(a - b) < 1e-4f;
}

static void test_hierarchy(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_entity root = rill_world_spawn(w), a = rill_world_spawn(w), b = rill_world_spawn(w),
                c = rill_world_spawn(w), d = rill_world_spawn(w);
    assert_true(rill_world_set_parent(w, a, root));
    assert_true(rill_world_set_parent(w, b, root));
    assert_true(rill_world_set_parent(w, c, root));
    assert_true(rill_world_set_parent(w, d, b));
    assert_int_equal(rill_world_get_parent(w, d), b);
    assert_int_equal(rill_world_child_count(w, root), 3);
    rill_entity kids[4];
    assert_int_equal(rill_world_children(w, root, kids, 4), 3);
    assert_int_equal(kids[0], a);
    assert_int_equal(kids[1], b);
    assert_int_equal(kids[2], c);
    /* Cycles and self-parenting are refused. */
    assert_false(rill_world_set_parent(w, root, d));
    assert_false(rill_world_set_parent(w, b, b));
    assert_false(rill_world_set_parent(w, b, d));
    /* Reparent the middle child: the sibling list stays linked. */
    assert_true(rill_world_set_parent(w, b, a));
    assert_int_equal(rill_world_children(w, root, kids, 4), 2);
    assert_int_equal(kids[0], a);
    assert_int_equal(kids[1], c);
    assert_int_equal(rill_world_next_sibling(w, a), c);
    assert_int_equal(rill_world_first_child(w, a), b);
    /* Removing Parent detaches; the Children component goes with the last child. */
    assert_true(rill_world_remove(w, b, RILL_COMPONENT_PARENT));
    assert_int_equal(rill_world_get_parent(w, b), RILL_ENTITY_NULL);
    assert_false(rill_world_has(w, a, RILL_COMPONENT_CHILDREN));
    assert_true(rill_world_set_parent(w, b, root));
    assert_true(rill_world_set_parent(w, b, RILL_ENTITY_NULL));
    assert_true(rill_world_set_parent(w, b, root));
    /* Non-recursive despawn of root: children become roots. */
    assert_true(rill_world_despawn(w, root));
    assert_int_equal(rill_world_get_parent(w, a), RILL_ENTITY_NULL);
    assert_int_equal(rill_world_get_parent(w, c), RILL_ENTITY_NULL);
    assert_int_equal(rill_world_get_parent(w, d), b);
    /* Despawning a middle child unlinks it from its parent. */
    rill_world_set_parent(w, a, c);
    rill_world_set_parent(w, b, c);
    rill_world_despawn(w, a);
    assert_int_equal(rill_world_child_count(w, c), 1);
    assert_int_equal(rill_world_first_child(w, c), b);
    /* Recursive despawn takes the whole subtree and nothing else. */
    rill_entity e = rill_world_spawn(w);
    rill_world_set_parent(w, e, d);
    for (int i = 0; i < 10; i++) {
        rill_entity x = rill_world_spawn(w);
        rill_world_set_parent(w, x, i % 2 ? e : d);
    }
    uint32_t before = rill_world_entity_count(w);
    assert_int_equal(rill_world_despawn_recursive(w, b), 13); /* b, d, e, 10 more */
    assert_int_equal(rill_world_entity_count(w), before - 13);
    assert_true(rill_world_is_alive(w, c));
    assert_false(rill_world_has(w, c, RILL_COMPONENT_CHILDREN));
    assert_int_equal(rill_world_component_len(w, RILL_COMPONENT_PARENT), 0);
    assert_int_equal(rill_world_component_len(w, RILL_COMPONENT_CHILDREN), 0);
    rill_world_destroy(w);
}

/* The world limit: finite and within +-1e9 on every element, whatever the source of the value. */
static void test_mat4_in_world_limit(void **state) {
    (void)state;
    float m[16];
    rill_mat4_identity(m);
    assert_true(rill_mat4_in_world_limit(m));
    m[12] = RILL_WORLD_LIMIT;
    m[13] = -RILL_WORLD_LIMIT;
    assert_true(rill_mat4_in_world_limit(m));
    const float bad[] = {2e9f, -1.5e9f, 3e38f, INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 16; i++) {
        for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
            rill_mat4_identity(m);
            m[i] = bad[k];
            assert_false(rill_mat4_in_world_limit(m));
        }
    }
}

static void test_transforms(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_entity root = rill_world_spawn(w), child = rill_world_spawn(w),
                grand = rill_world_spawn(w), other = rill_world_spawn(w),
                group = rill_world_spawn(w), leaf = rill_world_spawn(w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = 10;
    rill_world_set_transform(w, root, &t);
    t = rill_transform_identity();
    t.translation[1] = 2;
    t.scale[0] = t.scale[1] = t.scale[2] = 2;
    rill_world_set_transform(w, child, &t);
    t = rill_transform_identity();
    t.translation[2] = 1;
    rill_world_set_transform(w, grand, &t);
    rill_world_set_transform(w, other, &t);
    rill_world_set_transform(w, leaf, &t);
    rill_world_set_parent(w, child, root);
    rill_world_set_parent(w, grand, child);
    rill_world_set_parent(w, group, root); /* no Transform: passes root's matrix through */
    rill_world_set_parent(w, leaf, group);

    assert_int_equal(rill_world_update_transforms(w), 5);
    const float *m = rill_world_global_matrix(w, grand);
    assert_non_null(m);
    /* root (10,0,0) * child (0,2,0) scale 2 * grand (0,0,1) = (10, 2, 2) */
    assert_true(near(m[12], 10) && near(m[13], 2) && near(m[14], 2));
    assert_true(near(m[0], 2));
    m = rill_world_global_matrix(w, leaf);
    assert_true(near(m[12], 10) && near(m[13], 0) && near(m[14], 1));
    assert_null(rill_world_global_matrix(w, group));

    /* Clean: nothing is recomputed. */
    assert_int_equal(rill_world_update_transforms(w), 0);
    /* A leaf change rewrites only the leaf. */
    rill_world_transform_mut(w, grand)->translation[2] = 3;
    assert_int_equal(rill_world_update_transforms(w), 1);
    uint32_t nchanged = 0;
    const rill_entity *changed = rill_world_changed_transforms(w, &nchanged);
    assert_int_equal(nchanged, 1);
    assert_int_equal(changed[0], grand);
    assert_true(near(rill_world_global_matrix(w, grand)[14], 6));
    /* A root change rewrites its whole subtree (root, child, grand, leaf) but not `other`. */
    rill_world_transform_mut(w, root)->translation[0] = 0;
    rill_world_transform_mut(w, grand); /* dirty under a dirty ancestor: covered once */
    assert_int_equal(rill_world_update_transforms(w), 4);
    assert_true(near(rill_world_global_matrix(w, grand)[12], 0));
    /* Writing through rill_world_get does not mark; marking by hand does. */
    ((rill_transform *)rill_world_get(w, other, RILL_COMPONENT_TRANSFORM))->translation[0] = 5;
    assert_int_equal(rill_world_update_transforms(w), 0);
    rill_world_mark_transform_dirty(w, other);
    assert_int_equal(rill_world_update_transforms(w), 1);
    assert_true(near(rill_world_global_matrix(w, other)[12], 5));
    /* Reparenting marks the moved subtree. */
    rill_world_set_parent(w, other, child);
    assert_int_equal(rill_world_update_transforms(w), 1);
    assert_true(near(rill_world_global_matrix(w, other)[12], 10)); /* 0 + 2*5 */
    /* Orphaning on despawn marks the children. */
    rill_world_despawn(w, child);
    assert_int_equal(rill_world_update_transforms(w), 2); /* grand and other, now roots */
    assert_true(near(rill_world_global_matrix(w, grand)[14], 3));
    /* A rotation: 90 degrees about Z maps x to y. */
    t = rill_transform_identity();
    t.rotation[2] = sinf(0.785398163f);
    t.rotation[3] = cosf(0.785398163f);
    rill_world_set_transform(w, root, &t);
    rill_transform lt = rill_transform_identity();
    lt.translation[0] = 1;
    rill_world_set_transform(w, leaf, &lt);
    rill_world_update_transforms(w);
    m = rill_world_global_matrix(w, leaf);
    assert_true(near(m[12], 0) && near(m[13], 1));
    rill_world_destroy(w);
}

typedef struct ping {
    int32_t n;
} ping;

static void test_events(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_event ev = rill_world_register_event(w, "Ping", sizeof(ping));
    assert_int_not_equal(ev.id, 0);
    assert_int_equal(rill_world_register_event(w, "Ping", sizeof(ping)).id, ev.id);
    assert_int_equal(rill_world_register_event(w, "Ping", 8).id, 0);
    assert_int_equal(rill_world_find_event(w, "Ping").id, ev.id);
    assert_false(rill_world_send_event(w, (rill_event){99}, &(ping){1}));
    rill_event_reader early = {.event = ev}, late = {.event = ev};

    rill_world_send_event(w, ev, &(ping){1});
    rill_world_send_event(w, ev, &(ping){2});
    assert_int_equal(rill_world_event_count(w, ev), 2);
    assert_int_equal(((const ping *)rill_event_read(w, &early))->n, 1);
    assert_int_equal(((const ping *)rill_event_read(w, &early))->n, 2);
    assert_null(rill_event_read(w, &early));

    rill_world_update_events(w); /* frame 2: 1 and 2 are previous */
    rill_world_send_event(w, ev, &(ping){3});
    assert_int_equal(rill_world_event_count(w, ev), 3);
    assert_int_equal(((const ping *)rill_world_event_at(w, ev, 0))->n, 1);
    assert_int_equal(((const ping *)rill_world_event_at(w, ev, 2))->n, 3);
    assert_null(rill_world_event_at(w, ev, 3));
    assert_int_equal(((const ping *)rill_event_read(w, &early))->n, 3);
    assert_null(rill_event_read(w, &early));

    rill_world_update_events(w); /* frame 3: 1 and 2 are gone */
    assert_int_equal(rill_world_event_count(w, ev), 1);
    /* `late` never read: it gets what is left and counts what it missed. */
    assert_int_equal(((const ping *)rill_event_read(w, &late))->n, 3);
    assert_int_equal(late.missed, 2);
    assert_null(rill_event_read(w, &late));
    rill_world_update_events(w);
    assert_int_equal(rill_world_event_count(w, ev), 0);
    assert_null(rill_event_read(w, &early));
    /* Steady state reuses the buffers. */
    for (int frame = 0; frame < 10; frame++) {
        for (int i = 0; i < 100; i++) {
            rill_world_send_event(w, ev, &(ping){i});
        }
        uint32_t seen = 0;
        while (rill_event_read(w, &early) != NULL) {
            seen++;
        }
        assert_int_equal(seen, 100);
        rill_world_update_events(w);
    }
    rill_world_destroy(w);
}

static void test_commands(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A");
    rill_commands *cmds = rill_commands_create(w);
    assert_non_null(cmds);
    rill_entity parent = rill_commands_spawn(cmds);
    rill_entity child = rill_commands_spawn(cmds);
    assert_int_not_equal(parent, RILL_ENTITY_NULL);
    assert_false(rill_world_is_alive(w, parent)); /* placeholder */
    assert_true(rill_commands_add(cmds, parent, ca, &(tag){0, 12}));
    assert_true(rill_commands_add(cmds, child, ca, NULL));
    assert_true(rill_commands_add(cmds, child, RILL_COMPONENT_TRANSFORM, NULL));
    assert_false(rill_commands_add(cmds, child, RILL_COMPONENT_PARENT, NULL));
    assert_false(rill_commands_add(cmds, child, (rill_component){999}, NULL));
    rill_commands_set_parent(cmds, child, parent);
    assert_int_equal(rill_commands_len(cmds), 6);
    assert_int_equal(rill_world_entity_count(w), 0);
    assert_int_equal(rill_commands_apply(w, cmds), 6);
    assert_int_equal(rill_commands_len(cmds), 0);
    rill_entity p = rill_commands_resolve(cmds, parent), c = rill_commands_resolve(cmds, child);
    assert_true(rill_world_is_alive(w, p));
    assert_true(rill_world_is_alive(w, c));
    assert_int_equal(((tag *)rill_world_get(w, p, ca))->value, 12);
    assert_non_null(rill_world_get(w, c, RILL_COMPONENT_TRANSFORM));
    assert_int_equal(rill_world_get_parent(w, c), p);
    assert_int_equal(rill_commands_resolve(cmds, p), p); /* real ids resolve to themselves */
    assert_int_equal(rill_commands_resolve(cmds, RILL_ENTITY_MAKE(77, 0)), RILL_ENTITY_NULL);
    assert_int_equal(rill_commands_apply(w, cmds), 0);

    /* Structural changes from inside a query go through the buffer. */
    for (int i = 0; i < 100; i++) {
        rill_entity e = rill_world_spawn(w);
        rill_world_add(w, e, ca, &(tag){e, i});
    }
    rill_query q = rill_world_query(w, &(rill_query_desc){.with = {ca}});
    while (rill_query_next(&q)) {
        tag *t = rill_query_get(&q, 0);
        if (t->value % 2 == 1) {
            rill_commands_despawn(cmds, q.entity);
        } else {
            rill_commands_remove(cmds, q.entity, ca);
        }
    }
    rill_entity gone = c;
    rill_commands_despawn_recursive(cmds, p);
    assert_int_equal(rill_commands_apply(w, cmds), 103); /* 50 despawns, 52 removes, 1 subtree */
    assert_false(rill_world_is_alive(w, gone));
    assert_int_equal(rill_world_component_len(w, ca), 0);
    assert_int_equal(rill_world_entity_count(w), 50);
    /* Commands naming dead entities are skipped. */
    rill_commands_despawn(cmds, gone);
    rill_commands_add(cmds, gone, ca, NULL);
    assert_int_equal(rill_commands_apply(w, cmds), 0);
    rill_commands_spawn(cmds);
    rill_commands_clear(cmds);
    assert_int_equal(rill_commands_apply(w, cmds), 0);
    assert_int_equal(rill_world_entity_count(w), 50);
    rill_commands_destroy(cmds);
    rill_commands_destroy(NULL);
    rill_world_destroy(w);
}

/* >>hooks */

typedef struct hook_log {
    int adds;
    int removes;
    int32_t last_removed_value;
    bool saw_name_on_remove;
} hook_log;

static void on_add(rill_world *w, rill_entity e, void *data, void *user) {
    (void)w, (void)e, (void)data;
    ((hook_log *)user)->adds++;
}

static void on_remove(rill_world *w, rill_entity e, void *data, void *user) {
    hook_log *log = user;
    log->removes++;
    log->last_removed_value = ((tag *)data)->value;
    /* The entity still has its other components while the hook runs. */
    log->saw_name_on_remove = rill_world_get_name(w, e) != NULL;
}

static void test_hooks(void **state) {
    (void)state;
    hook_log log = {0};
    rill_world *w = rill_world_create(NULL, NULL);
    static const rill_field fields[] = {RILL_FIELD(tag, value, I32)};
    rill_type_desc d = {.name = "Handle",
                        RILL_TYPE_LAYOUT(tag),
                        .fields = fields,
                        .field_count = 1,
                        .on_add = on_add,
                        .on_remove = on_remove,
                        .hook_user = &log};
    rill_component h = rill_world_register_component(w, &d);
    rill_entity e = rill_world_spawn(w);
    rill_world_add(w, e, h, &(tag){0, 1});
    assert_int_equal(log.adds, 1);
    rill_world_add(w, e, h, &(tag){0, 2}); /* replace: old released, new acquired */
    assert_int_equal(log.removes, 1);
    assert_int_equal(log.last_removed_value, 1);
    assert_int_equal(log.adds, 2);
    rill_world_remove(w, e, h);
    assert_int_equal(log.removes, 2);
    assert_int_equal(log.last_removed_value, 2);
    rill_world_add(w, e, h, &(tag){0, 3});
    rill_world_set_name(w, e, "named");
    rill_world_despawn(w, e);
    assert_int_equal(log.removes, 3);
    assert_int_equal(log.last_removed_value, 3);
    assert_true(log.saw_name_on_remove);
    /* Recursive despawn fires for every entity of the subtree. */
    rill_entity root = rill_world_spawn(w);
    rill_world_add(w, root, h, &(tag){0, 4});
    for (int i = 0; i < 5; i++) {
        rill_entity x = rill_world_spawn(w);
        rill_world_add(w, x, h, &(tag){0, 5});
        rill_world_set_parent(w, x, root);
    }
    rill_world_despawn_recursive(w, root);
    assert_int_equal(log.removes, 9);
    /* Clear and destroy release what is left. */
    for (int i = 0; i < 3; i++) {
        rill_world_add(w, rill_world_spawn(w), h, NULL);
    }
    rill_world_clear(w);
    assert_int_equal(log.removes, 12);
    assert_int_equal(rill_world_entity_count(w), 0);
    rill_world_add(w, rill_world_spawn(w), h, NULL);
    rill_world_destroy(w);
    assert_int_equal(log.removes, 13);
    /* ... unless the desc says not to. */
    w = rill_world_create(&(rill_world_desc){.skip_hooks_on_destroy = true}, NULL);
    h = rill_world_register_component(w, &d);
    rill_world_add(w, rill_world_spawn(w), h, NULL);
    rill_world_destroy(w);
    assert_int_equal(log.removes, 13);
}

/* A per-value count kept by add and remove observers, the way a module counts what names an
 * asset: the sum of values on live components, and the order the hooks ran in. */
typedef struct value_count {
    int64_t sum;
    int type_hook_runs;
    int observer_after_type_hook; /* removals where the type's on_remove had already run */
    bool saw_other_component;     /* the entity still had its Name during a removal */
} value_count;

static void count_add(rill_world *w, rill_entity e, void *data, void *user) {
    (void)w, (void)e;
    ((value_count *)user)->sum += ((tag *)data)->value;
}

static void count_remove(rill_world *w, rill_entity e, void *data, void *user) {
    value_count *vc = user;
    vc->sum -= ((tag *)data)->value;
    vc->observer_after_type_hook += vc->type_hook_runs > 0;
    vc->saw_other_component = vc->saw_other_component || rill_world_get_name(w, e) != NULL;
}

static void type_remove(rill_world *w, rill_entity e, void *data, void *user) {
    (void)w, (void)e, (void)data;
    ((value_count *)user)->type_hook_runs++;
}

/* Remove observers run on remove, replace (with the old value), despawn, batch despawn, clear and
 * destroy, after the type's own hook; an add + remove pair keeps an exact count through all of
 * them. */
static void test_remove_observers(void **state) {
    (void)state;
    value_count vc = {0};
    rill_world *w = rill_world_create(NULL, NULL);
    static const rill_field fields[] = {RILL_FIELD(tag, value, I32)};
    rill_type_desc d = {.name = "Counted",
                        RILL_TYPE_LAYOUT(tag),
                        .fields = fields,
                        .field_count = 1,
                        .on_remove = type_remove,
                        .hook_user = &vc};
    rill_component c = rill_world_register_component(w, &d);
    assert_true(rill_world_observe_add(w, c, count_add, &vc));
    assert_true(rill_world_observe_remove(w, c, count_remove, &vc));
    assert_true(rill_world_observe_remove(w, c, count_remove, &vc)); /* the same: a no-op */
    assert_false(rill_world_observe_remove(w, RILL_COMPONENT_NONE, count_remove, &vc));
    assert_false(rill_world_observe_remove(w, c, NULL, &vc));
    rill_entity e = rill_world_spawn(w);
    rill_world_set_name(w, e, "counted");
    rill_world_add(w, e, c, &(tag){0, 5});
    assert_int_equal(vc.sum, 5);
    rill_world_add(w, e, c, &(tag){0, 7}); /* replace: 5 leaves, 7 comes */
    assert_int_equal(vc.sum, 7);
    assert_int_equal(vc.type_hook_runs, 1);
    assert_int_equal(vc.observer_after_type_hook, 1);
    assert_true(rill_world_remove(w, e, c));
    assert_int_equal(vc.sum, 0);
    rill_world_add(w, e, c, &(tag){0, 3});
    rill_world_despawn(w, e);
    assert_int_equal(vc.sum, 0);
    assert_true(vc.saw_other_component);
    /* A subtree of 100 goes as one batch. */
    rill_entity root = rill_world_spawn(w);
    rill_world_add(w, root, c, &(tag){0, 1});
    for (int i = 0; i < 99; i++) {
        rill_entity x = rill_world_spawn(w);
        rill_world_add(w, x, c, &(tag){0, 2});
        rill_world_set_parent(w, x, root);
    }
    assert_int_equal(vc.sum, 199);
    assert_int_equal(rill_world_despawn_recursive(w, root), 100);
    assert_int_equal(vc.sum, 0);
    for (int i = 0; i < 3; i++) {
        rill_world_add(w, rill_world_spawn(w), c, &(tag){0, 4});
    }
    rill_world_clear(w);
    assert_int_equal(vc.sum, 0);
    rill_world_add(w, rill_world_spawn(w), c, &(tag){0, 6});
    int before = vc.type_hook_runs;
    rill_world_destroy(w);
    assert_int_equal(vc.sum, 0);
    assert_int_equal(vc.observer_after_type_hook, vc.type_hook_runs);
    assert_true(vc.type_hook_runs > before);
    /* Room for 6 per component and kind. */
    w = rill_world_create(NULL, NULL);
    c = rill_world_register_component(w, &d);
    value_count more[7] = {{0}};
    for (int i = 0; i < 6; i++) {
        assert_true(rill_world_observe_remove(w, c, count_remove, &more[i]));
    }
    assert_false(rill_world_observe_remove(w, c, count_remove, &more[6]));
    rill_world_add(w, rill_world_spawn(w), c, &(tag){0, 9});
    rill_world_destroy(w);
    assert_int_equal(more[5].sum, -9);
    assert_int_equal(more[6].sum, 0);
}

/* Prefaulting reserved storage touches only [len, capacity) and changes no component data. */
static void test_component_prefault(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component c = register_tag(w, "Pf");
    rill_entity e[10];
    for (int i = 0; i < 10; i++) {
        e[i] = rill_world_spawn(w);
        rill_world_add(w, e[i], c, &(tag){e[i], i});
    }
    assert_true(rill_world_component_reserve(w, c, 1000));
    assert_int_equal(rill_world_component_prefault(w, c, 0, 5), 0);  /* all below len */
    assert_int_equal(rill_world_component_prefault(w, c, 5, 10), 5); /* clamped to len */
    assert_int_equal(rill_world_component_prefault(w, c, 10, 990), 990);
    assert_int_equal(rill_world_component_prefault(w, c, 990, 100000) <= 10, true);
    assert_int_equal(rill_world_component_prefault(w, RILL_COMPONENT_NONE, 0, 10), 0);
    assert_int_equal(rill_world_component_prefault(NULL, c, 0, 10), 0);
    assert_int_equal(rill_world_component_len(w, c), 10);
    for (int i = 0; i < 10; i++) {
        const tag *t = rill_world_get(w, e[i], c);
        assert_true(t->owner == e[i]);
        assert_int_equal(t->value, i);
    }
    check_set(w, c);
    rill_world_destroy(w);
}

typedef struct settings {
    float gravity;
    int32_t steps;
} settings;

static void test_resources(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    static const float g = -9.81f;
    static const rill_field fields[] = {{.name = "gravity",
                                         .type = RILL_FIELD_F32,
                                         .offset = offsetof(settings, gravity),
                                         .default_value = &g},
                                        RILL_FIELD(settings, steps, I32)};
    rill_type_desc d = {
        .name = "Physics", RILL_TYPE_LAYOUT(settings), .fields = fields, .field_count = 2};
    rill_resource r = rill_world_register_resource(w, &d);
    assert_int_not_equal(r.id, 0);
    assert_int_equal(rill_world_find_resource(w, "Physics").id, r.id);
    assert_int_equal(rill_world_find_component(w, "Physics").id, 0);
    assert_int_equal(rill_world_register_component(w, &d).id, 0); /* a name has one kind */
    assert_null(rill_world_get_resource(w, r));
    settings *s = rill_world_set_resource(w, r, NULL);
    assert_float_equal(s->gravity, -9.81f, 0);
    assert_ptr_equal(rill_world_get_resource(w, r), s);
    rill_world_set_resource(w, r, &(settings){1, 4});
    assert_int_equal(((settings *)rill_world_get_resource(w, r))->steps, 4);
    assert_string_equal(rill_world_resource_type(w, r)->name, "Physics");
    assert_true(rill_world_remove_resource(w, r));
    assert_false(rill_world_remove_resource(w, r));
    assert_null(rill_world_get_resource(w, r));
    assert_null(rill_world_set_resource(w, (rill_resource){42}, NULL));
    /* Plain types are findable for reflection only. */
    rill_type_desc pd = {.name = "BloomSettings", .size = 8, .fields = fields, .field_count = 2};
    assert_non_null(rill_world_register_type(w, &pd));
    assert_non_null(rill_world_find_type(w, "BloomSettings"));
    assert_non_null(rill_world_find_type(w, "Transform"));
    assert_null(rill_world_find_type(w, "Nope"));
    rill_world_destroy(w);
}

/* Copying a component from one entity to another passes a pointer into the same storage, which
 * the add may reallocate; the value must survive (ASan catches a stale read). */
/* rill_world_get_many: each entry what rill_world_get gives, one liveness check for all. */
static void test_get_many(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component a = register_tag(w, "A"), b = register_tag(w, "B");
    rill_entity e = rill_world_spawn(w), bare = rill_world_spawn(w);
    rill_world_add(w, e, a, &(tag){e, 1});
    rill_world_set_transform(w, e, &(rill_transform){{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}});
    rill_component want[] = {a, b, RILL_COMPONENT_TRANSFORM, RILL_COMPONENT_NONE,
                             (rill_component){9999}};
    void *out[5];
    memset(out, 0xFF, sizeof out);
    assert_int_equal(rill_world_get_many(w, e, want, 5, out), 2);
    for (uint32_t i = 0; i < 5; i++) {
        assert_ptr_equal(out[i], rill_world_get(w, e, want[i]));
    }
    assert_int_equal(((tag *)out[0])->value, 1);
    assert_true(((rill_transform *)out[2])->translation[2] == 3.0f);
    assert_int_equal(rill_world_get_many(w, bare, want, 5, out), 0);
    rill_world_despawn(w, e);
    memset(out, 0xFF, sizeof out);
    assert_int_equal(rill_world_get_many(w, e, want, 5, out), 0); /* stale: every entry NULL */
    for (uint32_t i = 0; i < 5; i++) {
        assert_null(out[i]);
    }
    assert_int_equal(rill_world_get_many(NULL, e, want, 1, out), 0);
    assert_null(out[0]);
    rill_world_destroy(w);
}

static void test_add_from_own_storage(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A");
    rill_entity src = rill_world_spawn(w);
    rill_world_add(w, src, ca, &(tag){src, 77});
    for (int i = 0; i < 5000; i++) {
        rill_entity e = rill_world_spawn(w);
        tag *t = rill_world_add(w, e, ca, rill_world_get(w, src, ca));
        assert_non_null(t);
        assert_int_equal(t->value, 77);
    }
    /* Replacing a component with its own value is a no-op. */
    tag *self = rill_world_get(w, src, ca);
    assert_int_equal(((tag *)rill_world_add(w, src, ca, self))->value, 77);
    /* Removing a Transform re-dirties the subtree that inherited through it. */
    rill_entity p = rill_world_spawn(w), c = rill_world_spawn(w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = 4;
    rill_world_set_transform(w, p, &t);
    rill_world_set_transform(w, c, &t);
    rill_world_set_parent(w, c, p);
    rill_world_update_transforms(w);
    assert_true(near(rill_world_global_matrix(w, c)[12], 8));
    rill_world_remove(w, p, RILL_COMPONENT_TRANSFORM);
    assert_int_equal(rill_world_update_transforms(w), 1);
    assert_true(near(rill_world_global_matrix(w, c)[12], 4));
    rill_world_destroy(w);
}

/* Forwarding an event read this frame sends a pointer into the very buffer that the send may
 * grow; the event must be copied from where it lies after the growth, not from freed memory. */
static void test_forward_event_from_own_buffer(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_event ev = rill_world_register_event(w, "Ping", sizeof(ping));
    rill_world_send_event(w, ev, &(ping){42});
    for (int i = 0; i < 1000; i++) {
        const ping *first = rill_world_event_at(w, ev, 0);
        assert_true(rill_world_send_event(w, ev, first));
    }
    assert_int_equal(rill_world_event_count(w, ev), 1001);
    for (uint32_t i = 0; i < 1001; i++) {
        assert_int_equal(((const ping *)rill_world_event_at(w, ev, i))->n, 42);
    }
    rill_world_destroy(w);
}

/* A hook that tries to record into (or re-apply) the buffer being applied is refused. */
static void recording_hook(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    rill_commands *cmds = user;
    rill_commands_despawn(cmds, e);
    assert_false(rill_commands_add(cmds, e, RILL_COMPONENT_NAME, NULL));
    assert_int_equal(rill_commands_spawn(cmds), RILL_ENTITY_NULL);
    assert_int_equal(rill_commands_apply(w, cmds), 0);
}

static void test_commands_reentrancy(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_commands *cmds = rill_commands_create(w);
    rill_type_desc d = {.name = "Hooked", .size = 4, .on_add = recording_hook, .hook_user = cmds};
    rill_component h = rill_world_register_component(w, &d);
    rill_entity e = rill_commands_spawn(cmds);
    rill_commands_add(cmds, e, h, NULL);
    assert_int_equal(rill_commands_apply(w, cmds), 2);
    assert_true(rill_world_is_alive(w, rill_commands_resolve(cmds, e)));
    assert_int_equal(rill_commands_len(cmds), 0);
    rill_commands_destroy(cmds);
    rill_world_destroy(w);
}

/* A partial transform update computes only the listed dirty subtrees, skips entries under a
 * dirty ancestor, and what it wrote stays listed as changed after the next full update. */
static void test_update_transforms_of(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_transform t = rill_transform_identity();
    rill_entity a = rill_world_spawn(w), b = rill_world_spawn(w), c = rill_world_spawn(w);
    t.translation[0] = 1;
    rill_world_set_transform(w, a, &t);
    t.translation[0] = 2;
    rill_world_set_transform(w, b, &t);
    rill_world_set_transform(w, c, &t);
    rill_world_set_parent(w, c, b);
    rill_world_update_transforms(w);
    /* Move a and b; update only c (under dirty b: skipped) and a. */
    rill_world_transform_mut(w, a)->translation[0] = 10;
    rill_world_transform_mut(w, b)->translation[0] = 20;
    rill_entity list[2] = {c, a};
    assert_int_equal(rill_world_update_transforms_of(w, list, 2), 1);
    assert_true(rill_world_global_matrix(w, a)[12] == 10.0f);
    assert_true(rill_world_global_matrix(w, c)[12] == 4.0f); /* still the old parent matrix */
    assert_int_equal(rill_world_update_transforms_of(w, NULL, 0), 0);
    /* The full update does b's subtree only, and lists a too. */
    assert_int_equal(rill_world_update_transforms(w), 2);
    assert_true(rill_world_global_matrix(w, c)[12] == 22.0f);
    uint32_t n = 0;
    const rill_entity *changed = rill_world_changed_transforms(w, &n);
    assert_int_equal(n, 3);
    bool saw_a = false;
    for (uint32_t i = 0; i < n; i++) {
        saw_a = saw_a || changed[i] == a;
    }
    assert_true(saw_a);
    /* A later full update starts a fresh list. */
    rill_world_transform_mut(w, c)->translation[0] = 1;
    assert_int_equal(rill_world_update_transforms(w), 1);
    rill_world_changed_transforms(w, &n);
    assert_int_equal(n, 1);
    rill_world_destroy(w);
}

/* A reader of the changed list with a cursor sees each write once, and hears when it missed some
 * (two full updates between its reads start the list afresh twice). */
static void test_changed_transforms_since(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_transform t = rill_transform_identity();
    rill_entity a = rill_world_spawn(w), b = rill_world_spawn(w);
    rill_world_set_transform(w, a, &t);
    rill_world_set_transform(w, b, &t);
    rill_world_update_transforms(w);
    uint64_t cursor = 0;
    const rill_entity *got = NULL;
    uint32_t n = 0;
    assert_true(rill_world_changed_transforms_since(w, &cursor, &got, &n));
    assert_int_equal(n, 2);
    assert_true(rill_world_changed_transforms_since(w, &cursor, &got, &n)); /* read again */
    assert_int_equal(n, 0);
    /* A partial update starts a new list; the full update after it adds to it: only b is new. */
    rill_world_transform_mut(w, a)->translation[0] = 1;
    rill_world_update_transforms_of(w, &a, 1);
    assert_true(rill_world_changed_transforms_since(w, &cursor, &got, &n));
    assert_true(n == 1 && got[0] == a);
    rill_world_transform_mut(w, b)->translation[0] = 1;
    rill_world_update_transforms(w);
    assert_true(rill_world_changed_transforms_since(w, &cursor, &got, &n));
    assert_true(n == 1 && got[0] == b);
    /* Two full updates without a read: a's move is gone from the list. */
    rill_world_transform_mut(w, a)->translation[0] = 2;
    rill_world_update_transforms(w);
    rill_world_transform_mut(w, b)->translation[0] = 2;
    rill_world_update_transforms(w);
    assert_false(rill_world_changed_transforms_since(w, &cursor, &got, &n));
    assert_true(n == 1 && got[0] == b);
    assert_true(rill_world_changed_transforms_since(w, &cursor, &got, &n)); /* caught up */
    assert_int_equal(n, 0);
    rill_world_destroy(w);
}

static void test_no_leaks(void **state) {
    (void)state;
    size_t before = rill_mem_live_bytes(RILL_MEM_WORLD);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component ca = register_tag(w, "A");
    rill_event ev = rill_world_register_event(w, "E", 4);
    rill_commands *cmds = rill_commands_create(w);
    for (int i = 0; i < 1000; i++) {
        rill_entity e = rill_world_spawn(w);
        rill_world_add(w, e, ca, NULL);
        rill_world_set_transform(w, e, &(rill_transform){{0}, {0, 0, 0, 1}, {1, 1, 1}});
        rill_world_send_event(w, ev, &i);
        rill_commands_add(cmds, rill_commands_spawn(cmds), ca, &(tag){0, i});
    }
    rill_commands_apply(w, cmds);
    rill_world_update_transforms(w);
    rill_commands_destroy(cmds);
    rill_world_destroy(w);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_WORLD), before);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generational_ids),
        cmocka_unit_test(test_spawn_n_and_reserve),
        cmocka_unit_test(test_storage_at_scale),
        cmocka_unit_test(test_entity_components_and_builtins),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_hierarchy),
        cmocka_unit_test(test_transforms),
        cmocka_unit_test(test_mat4_in_world_limit),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_remove_observers),
        cmocka_unit_test(test_component_prefault),
        cmocka_unit_test(test_resources),
        cmocka_unit_test(test_get_many),
        cmocka_unit_test(test_add_from_own_storage),
        cmocka_unit_test(test_forward_event_from_own_buffer),
        cmocka_unit_test(test_commands_reentrancy),
        cmocka_unit_test(test_update_transforms_of),
        cmocka_unit_test(test_changed_transforms_since),
        cmocka_unit_test(test_world_desc_canaries),
        cmocka_unit_test(test_no_leaks),
    };
    return cmocka_run_group_tests(tests, rill_test_setup_quiet, NULL);
}
