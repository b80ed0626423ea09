/* Physics tests: raycasts against known shapes, heightfield orientation, overlap queries, a body
 * falling onto a box and settling, bad values refused (API and components), and collider
 * life cycle following the components. */
#include "rill_test.h"

#include "rill/physics.h"

#include <math.h>

typedef struct fixture {
    rill_world *world;
    rill_physics *phys;
    rill_physics_components c;
} fixture;

static void setup(fixture *f) {
    f->world = rill_world_create(NULL, NULL);
    assert_non_null(f->world);
    rill_physics_desc d = {.world = f->world};
    rill_error err = {0};
    f->phys = rill_physics_create(&d, &err);
    assert_non_null(f->phys);
    f->c = rill_physics_register(f->world);
}

static void teardown(fixture *f) {
    rill_physics_destroy(f->phys);
    rill_world_destroy(f->world);
}

static rill_entity spawn_at(fixture *f, float x, float y, float z) {
    rill_entity e = rill_world_spawn(f->world);
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    rill_world_set_transform(f->world, e, &t);
    return e;
}

static rill_collider collider_defaults(fixture *f) {
    rill_collider col;
    rill_type_apply_defaults(rill_world_component_type(f->world, f->c.collider), &col);
    return col;
}

static rill_entity add_box(fixture *f, float x, float y, float z, float hx, float hy, float hz) {
    rill_entity e = spawn_at(f, x, y, z);
    rill_collider col = collider_defaults(f);
    col.shape = RILL_COLLIDER_BOX;
    col.half_extents[0] = hx;
    col.half_extents[1] = hy;
    col.half_extents[2] = hz;
    assert_non_null(rill_world_add(f->world, e, f->c.collider, &col));
    return e;
}

static void test_defaults_and_register(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_collider col = collider_defaults(&f);
    assert_int_equal(col.shape, RILL_COLLIDER_BOX);
    assert_true(col.half_extents[0] == 0.5f && col.radius == 0.5f && col.layers == 1u);
    assert_true(fabsf(col.friction - 0.6f) < 1e-6f);
    rill_rigid_body rb;
    rill_type_apply_defaults(rill_world_component_type(f.world, f.c.rigid_body), &rb);
    assert_true(rb.mass == 1.0f && rb.gravity && rb.kind == RILL_BODY_DYNAMIC);
    rill_physics_components again = rill_physics_register(f.world);
    assert_int_equal(again.collider.id, f.c.collider.id);
    rill_physics_desc d = rill_physics_query_defaults();
    assert_true(d.gravity[1] < -9.0f && d.solver_iterations == 20 && d.max_colliders == 65536);
    teardown(&f);
}

static void test_raycast_primitives(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_entity box = add_box(&f, 0, 0, 0, 1, 1, 1);
    rill_entity sphere = spawn_at(&f, 10, 0, 0);
    rill_collider col = collider_defaults(&f);
    col.shape = RILL_COLLIDER_SPHERE;
    col.radius = 2.0f;
    col.layers = 2;
    rill_world_add(f.world, sphere, f.c.collider, &col);
    rill_entity capsule = spawn_at(&f, 20, 0, 0);
    col.shape = RILL_COLLIDER_CAPSULE;
    col.radius = 0.5f;
    col.half_height = 2.0f;
    col.layers = 4;
    rill_world_add(f.world, capsule, f.c.collider, &col);
    rill_physics_sync(f.phys);

    rill_physics_stats st;
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.colliders, 3);
    assert_int_equal(st.static_colliders, 3);

    /* Straight down onto the box: top face at y = 1. */
    rill_physics_hit hit;
    float o[3] = {0.2f, 10, 0.3f}, down[3] = {0, -1, 0};
    assert_true(rill_physics_raycast(f.phys, o, down, 100, 0, &hit));
    assert_true(hit.entity == box);
    assert_true(fabsf(hit.distance - 9.0f) < 1e-4f);
    assert_true(fabsf(hit.position[1] - 1.0f) < 1e-4f);
    assert_true(fabsf(hit.normal[1] - 1.0f) < 1e-4f);
    /* Too short: misses. */
    assert_false(rill_physics_raycast(f.phys, o, down, 8.5f, 0, &hit));

    /* Sideways through the sphere (radius 2 at x = 10) from x = 5: hits at x = 8. */
    float o2[3] = {5, 0, 0}, right[3] = {3, 0, 0}; /* not unit length on purpose */
    assert_true(rill_physics_raycast(f.phys, o2, right, 100, 2, &hit));
    assert_true(hit.entity == sphere);
    assert_true(fabsf(hit.distance - 3.0f) < 1e-3f);
    assert_true(fabsf(hit.normal[0] + 1.0f) < 1e-3f);
    /* The mask skips the sphere and the box: the capsule (radius 0.5 at x = 20) is next. */
    assert_true(rill_physics_raycast(f.phys, o2, right, 100, 4, &hit));
    assert_true(hit.entity == capsule);
    assert_true(fabsf(hit.position[0] - 19.5f) < 1e-3f);
    /* The capsule stands along +Y: its top is at 2 + 0.5. */
    float o3[3] = {20, 10, 0};
    assert_true(rill_physics_raycast(f.phys, o3, down, 100, 4, &hit));
    assert_true(fabsf(hit.position[1] - 2.5f) < 1e-3f);
    /* A mask nothing carries. */
    assert_false(rill_physics_raycast(f.phys, o2, right, 100, 8, &hit));
    /* Bad arguments. */
    float zero[3] = {0, 0, 0}, nan3[3] = {NAN, 0, 0};
    assert_false(rill_physics_raycast(f.phys, o, zero, 100, 0, &hit));
    assert_false(rill_physics_raycast(f.phys, nan3, down, 100, 0, &hit));
    assert_false(rill_physics_raycast(f.phys, o, down, -1, 0, &hit));
    teardown(&f);
}

static void test_raycast_mesh_and_heightfield(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    /* A 10 x 10 quad at y = 2, two triangles, as a mesh collider added through the API. */
    float pos[] = {0, 2, 0, 10, 2, 0, 10, 2, 10, 0, 2, 10};
    uint32_t idx[] = {0, 2, 1, 0, 3, 2};
    rill_physics_shape_desc sd = {.type = RILL_PHYSICS_SHAPE_MESH,
                                  .positions = pos,
                                  .vertex_count = 4,
                                  .indices = idx,
                                  .index_count = 6};
    rill_physics_shape mesh;
    rill_error err = {0};
    assert_int_equal(rill_physics_shape_create(f.phys, &sd, &mesh, &err), RILL_OK);
    assert_true(rill_physics_shape_bytes(f.phys, mesh) == sizeof pos + sizeof idx);
    rill_physics_collider_desc cd = {.entity = 77, .part = 3};
    cd.collider = collider_defaults(&f);
    cd.collider.shape = RILL_COLLIDER_MESH;
    cd.collider.shape_data = mesh.id;
    cd.position[0] = 100;
    rill_physics_collider mc;
    assert_int_equal(rill_physics_collider_add(f.phys, &cd, &mc, &err), RILL_OK);

    /* A heightfield whose height is x + 10 z (samples 1 m apart), placed at (-50, 0, -50). */
    enum { N = 9 };
    float h[N * N];
    for (int z = 0; z < N; z++) {
        for (int x = 0; x < N; x++) {
            h[z * N + x] = (float)x + 10.0f * (float)z;
        }
    }
    rill_physics_shape_desc hd = {.type = RILL_PHYSICS_SHAPE_HEIGHTFIELD,
                                  .heights = h,
                                  .samples_x = N,
                                  .samples_z = N,
                                  .spacing_x = 1,
                                  .spacing_z = 1};
    rill_physics_shape hf;
    assert_int_equal(rill_physics_shape_create(f.phys, &hd, &hf, &err), RILL_OK);
    rill_entity ground = spawn_at(&f, -50, 0, -50);
    rill_collider col = collider_defaults(&f);
    col.shape = RILL_COLLIDER_HEIGHTFIELD;
    col.shape_data = hf.id;
    rill_world_add(f.world, ground, f.c.collider, &col);
    rill_physics_sync(f.phys);

    rill_physics_hit hit;
    float down[3] = {0, -1, 0};
    float o[3] = {104, 50, 7};
    assert_true(rill_physics_raycast(f.phys, o, down, 100, 0, &hit));
    assert_true(hit.entity == 77 && hit.part == 3);
    assert_true(fabsf(hit.position[1] - 2.0f) < 1e-3f);
    assert_true(hit.normal[1] > 0.99f);

    /* On the heightfield at local (3, 5): height 3 + 50 = 53; at (6.5, 2): 6.5 + 20. */
    float o2[3] = {-47, 200, -45};
    assert_true(rill_physics_raycast(f.phys, o2, down, 500, 0, &hit));
    assert_true(hit.entity == ground);
    assert_true(fabsf(hit.position[1] - 53.0f) < 1e-3f);
    float o3[3] = {-43.5f, 200, -48};
    assert_true(rill_physics_raycast(f.phys, o3, down, 500, 0, &hit));
    assert_true(fabsf(hit.position[1] - 26.5f) < 1e-3f);
    /* Outside the heightfield's extent: nothing. */
    float o4[3] = {-60, 200, -45};
    assert_false(rill_physics_raycast(f.phys, o4, down, 500, 0, &hit));

    /* Destroying the shape takes the colliders that read it with it. */
    rill_physics_shape_destroy(f.phys, mesh);
    assert_false(rill_physics_raycast(f.phys, o, down, 100, 0, &hit));
    rill_physics_shape_destroy(f.phys, mesh); /* stale: no-op */
    teardown(&f);
}

static void test_overlap(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_entity a = add_box(&f, 0, 0, 0, 1, 1, 1);
    rill_entity b = add_box(&f, 3, 0, 0, 1, 1, 1);
    add_box(&f, 30, 0, 0, 1, 1, 1);
    rill_physics_sync(f.phys);
    rill_entity out[8];
    float c[3] = {1.5f, 0, 0};
    uint32_t n = rill_physics_overlap_sphere(f.phys, c, 1.0f, 0, out, 8);
    assert_int_equal(n, 2);
    assert_true((out[0] == a && out[1] == b) || (out[0] == b && out[1] == a));
    assert_int_equal(rill_physics_overlap_sphere(f.phys, c, 1.0f, 0, NULL, 0), 2);
    float half[3] = {0.2f, 0.2f, 0.2f};
    float at_b[3] = {3, 0.5f, 0};
    n = rill_physics_overlap_box(f.phys, at_b, half, NULL, 0, out, 8);
    assert_int_equal(n, 1);
    assert_true(out[0] == b);
    float empty[3] = {15, 0, 0};
    assert_int_equal(rill_physics_overlap_box(f.phys, empty, half, NULL, 0, out, 8), 0);
    float bad[3] = {0, 0, 0};
    assert_int_equal(rill_physics_overlap_box(f.phys, at_b, bad, NULL, 0, out, 8), 0);
    teardown(&f);
}

static void test_body_settles_on_box(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    add_box(&f, 0, 0, 0, 5, 0.5f, 5); /* top at y = 0.5 */
    rill_entity body = add_box(&f, 0.3f, 4, -0.2f, 0.5f, 0.5f, 0.5f);
    rill_rigid_body rb;
    rill_type_apply_defaults(rill_world_component_type(f.world, f.c.rigid_body), &rb);
    rb.mass = 2.0f;
    assert_non_null(rill_world_add(f.world, body, f.c.rigid_body, &rb));
    rill_physics_step(f.phys, 1.0 / 60.0);
    rill_physics_stats st;
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.bodies, 1);
    assert_int_equal(st.static_colliders, 1);
    const rill_transform *t = rill_world_get(f.world, body, rill_world_builtin(f.world)->transform);
    assert_true(t->translation[1] < 4.0f); /* falling */
    for (int i = 0; i < 600; i++) {
        rill_physics_step(f.phys, 1.0 / 60.0);
    }
    t = rill_world_get(f.world, body, rill_world_builtin(f.world)->transform);
    const rill_rigid_body *now = rill_world_get(f.world, body, f.c.rigid_body);
    /* Resting on the top face: centre at 0.5 + 0.5, level, asleep. */
    assert_true(fabsf(t->translation[1] - 1.0f) < 0.02f);
    assert_true(fabsf(t->translation[0] - 0.3f) < 0.05f);
    assert_true(fabsf(t->rotation[3]) > 0.999f);
    assert_true(now->sleeping);
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.awake, 0);
    assert_true(st.steps == 601);

    /* Gameplay sets a velocity: the body wakes and moves up. */
    rill_rigid_body *w = rill_world_get(f.world, body, f.c.rigid_body);
    w->linear_velocity[1] = 5.0f;
    rill_physics_step(f.phys, 1.0 / 60.0);
    t = rill_world_get(f.world, body, rill_world_builtin(f.world)->transform);
    assert_true(t->translation[1] > 1.05f);
    /* A teleport through the Transform moves the body. */
    rill_transform *tm = rill_world_transform_mut(f.world, body);
    tm->translation[0] = 50.0f;
    tm->translation[1] = 10.0f;
    rill_physics_step(f.phys, 1.0 / 60.0);
    t = rill_world_get(f.world, body, rill_world_builtin(f.world)->transform);
    assert_true(fabsf(t->translation[0] - 50.0f) < 0.01f);
    assert_true(fabsf(t->translation[1] - 10.0f) < 0.2f);
    teardown(&f);
}

static void test_bad_values_refused_api(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_error err = {0};
    rill_physics_shape s;
    float h[4] = {0, 1, NAN, 2};
    rill_physics_shape_desc hd = {.type = RILL_PHYSICS_SHAPE_HEIGHTFIELD,
                                  .heights = h,
                                  .samples_x = 2,
                                  .samples_z = 2,
                                  .spacing_x = 1,
                                  .spacing_z = 1,
                                  .label = "cliff"};
    assert_int_equal(rill_physics_shape_create(f.phys, &hd, &s, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_true(strstr(err.msg, "cliff") && strstr(err.msg, "(0, 1)"));
    assert_int_equal(s.id, 0);
    h[2] = 0;
    hd.spacing_z = 0;
    assert_int_equal(rill_physics_shape_create(f.phys, &hd, &s, &err), RILL_ERR_INVALID_ARGUMENT);
    hd.spacing_z = 1;
    hd.samples_x = 1;
    assert_int_equal(rill_physics_shape_create(f.phys, &hd, &s, &err), RILL_ERR_INVALID_ARGUMENT);
    /* Meshes: an index out of range, all triangles degenerate. */
    float pos[] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    uint32_t idx[] = {0, 1, 3};
    rill_physics_shape_desc md = {.type = RILL_PHYSICS_SHAPE_MESH,
                                  .positions = pos,
                                  .vertex_count = 3,
                                  .indices = idx,
                                  .index_count = 3};
    assert_int_equal(rill_physics_shape_create(f.phys, &md, &s, &err), RILL_ERR_INVALID_ARGUMENT);
    idx[2] = 2;
    assert_int_equal(rill_physics_shape_create(f.phys, &md, &s, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_true(strstr(err.msg, "zero area") != NULL);

    /* Colliders: zero-size box, NaN radius, NaN position, a heightfield naming no shape. */
    rill_physics_collider_desc cd = {0};
    cd.collider = collider_defaults(&f);
    cd.collider.half_extents[1] = 0.0f;
    rill_physics_collider c;
    assert_int_equal(rill_physics_collider_add(f.phys, &cd, &c, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_true(strstr(err.msg, "half_extents") != NULL);
    cd.collider = collider_defaults(&f);
    cd.collider.shape = RILL_COLLIDER_SPHERE;
    cd.collider.radius = NAN;
    assert_int_equal(rill_physics_collider_add(f.phys, &cd, &c, &err), RILL_ERR_INVALID_ARGUMENT);
    cd.collider.radius = 1;
    cd.position[2] = INFINITY;
    assert_int_equal(rill_physics_collider_add(f.phys, &cd, &c, &err), RILL_ERR_INVALID_ARGUMENT);
    cd.position[2] = 0;
    cd.collider.shape = RILL_COLLIDER_HEIGHTFIELD;
    cd.collider.shape_data = 12345;
    assert_int_equal(rill_physics_collider_add(f.phys, &cd, &c, &err), RILL_ERR_INVALID_ARGUMENT);
    rill_physics_stats st;
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.colliders, 0);
    assert_int_equal(st.shapes, 0);
    /* A desc with a canary set, and one with NaN gravity. */
    rill_physics_desc d = {.world = f.world, .end_canary = 1};
    assert_null(rill_physics_create(&d, &err));
    d.end_canary = 0;
    d.gravity_set = true;
    d.gravity[1] = NAN;
    assert_null(rill_physics_create(&d, &err));
    teardown(&f);
}

static void test_bad_values_refused_components(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    rill_entity e = add_box(&f, 0, 0, 0, 1, 0, 1); /* zero height */
    rill_world_set_name(f.world, e, "flat");
    rill_entity dyn = add_box(&f, 0, 5, 0, 1, 1, 1);
    rill_rigid_body rb;
    rill_type_apply_defaults(rill_world_component_type(f.world, f.c.rigid_body), &rb);
    rb.mass = NAN;
    rill_world_add(f.world, dyn, f.c.rigid_body, &rb);
    rill_physics_step(f.phys, 1.0 / 60.0);
    rill_physics_stats st;
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.colliders, 0);
    assert_int_equal(st.refused, 2);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_ERROR), 2);
    /* Refused once: no repeated error while nothing changes. */
    rill_physics_step(f.phys, 1.0 / 60.0);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_ERROR), 2);
    /* Fixing the values builds them. */
    rill_collider *col = rill_world_get(f.world, e, f.c.collider);
    col->half_extents[1] = 0.25f;
    rill_rigid_body *b = rill_world_get(f.world, dyn, f.c.rigid_body);
    b->mass = 3.0f;
    rill_physics_step(f.phys, 1.0 / 60.0);
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.colliders, 2);
    assert_int_equal(st.bodies, 1);
    assert_int_equal(st.refused, 0);
    /* A NaN written into a built body's velocity rebuilds it, which is refused. */
    b = rill_world_get(f.world, dyn, f.c.rigid_body);
    b->linear_velocity[0] = NAN;
    rill_physics_step(f.phys, 1.0 / 60.0);
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.bodies, 0);
    assert_int_equal(st.refused, 1);
    /* A dynamic mesh is refused, and so is a body under a parent. */
    rill_entity child = add_box(&f, 0, 1, 0, 1, 1, 1);
    rill_world_set_parent(f.world, child, e);
    rill_type_apply_defaults(rill_world_component_type(f.world, f.c.rigid_body), &rb);
    rill_world_add(f.world, child, f.c.rigid_body, &rb);
    rill_physics_step(f.phys, 1.0 / 60.0);
    assert_true(rill_test_log_last_has(&cap, "root entity"));
    rill_test_log_end(&cap);
    teardown(&f);
}

static void test_lifecycle_follows_components(void **state) {
    (void)state;
    size_t before = rill_mem_live_bytes(RILL_MEM_PHYSICS);
    fixture f;
    setup(&f);
    rill_entity a = add_box(&f, 0, 0, 0, 1, 1, 1);
    rill_entity b = add_box(&f, 5, 0, 0, 1, 1, 1);
    rill_physics_sync(f.phys);
    rill_physics_stats st;
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.colliders, 2);
    rill_world_remove(f.world, a, f.c.collider);
    rill_world_despawn(f.world, b);
    rill_physics_sync(f.phys);
    rill_physics_get_stats(f.phys, &st);
    assert_int_equal(st.colliders, 0);
    float o[3] = {0, 10, 0}, down[3] = {0, -1, 0};
    assert_false(rill_physics_raycast(f.phys, o, down, 100, 0, NULL));
    /* A static collider follows its entity when moved. */
    rill_entity c = add_box(&f, 0, 0, 0, 1, 1, 1);
    rill_physics_sync(f.phys);
    rill_transform *t = rill_world_transform_mut(f.world, c);
    t->translation[0] = 40;
    rill_physics_sync(f.phys);
    float o2[3] = {40, 10, 0};
    assert_true(rill_physics_raycast(f.phys, o2, down, 100, 0, NULL));
    assert_false(rill_physics_raycast(f.phys, o, down, 100, 0, NULL));
    /* Many add/remove cycles leave nothing behind. */
    size_t mid = rill_mem_live_bytes(RILL_MEM_PHYSICS);
    for (int i = 0; i < 200; i++) {
        rill_entity e = add_box(&f, (float)i, 0, 0, 1, 1, 1);
        rill_physics_sync(f.phys);
        rill_world_despawn(f.world, e);
        rill_physics_sync(f.phys);
    }
    assert_true(rill_mem_live_bytes(RILL_MEM_PHYSICS) <= mid + 4096);
    teardown(&f);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_PHYSICS), before);
}

/* Counts the contact events of pair (x, y) in either order since the reader's last read. */
static uint32_t count_pair(fixture *f, rill_event_reader *rd, rill_entity x, rill_entity y,
                           rill_physics_contact *last) {
    uint32_t n = 0;
    const rill_physics_contact *c;
    while ((c = rill_event_read(f->world, rd)) != NULL) {
        if ((c->a == x && c->b == y) || (c->a == y && c->b == x)) {
            n++;
            if (last) {
                *last = *c;
            }
        }
    }
    return n;
}

/* Two bodies falling onto each other (the lower onto the ground, the upper onto it): one begin
 * per pair while they settle and sleep, with a point between them and a normal separating them;
 * the upper one's despawn ends its pair once. */
static void test_contact_events(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_event begin, end;
    rill_physics_contact_events(f.world, &begin, &end);
    assert_true(begin.id && end.id && begin.id != end.id);
    rill_entity ground = add_box(&f, 0, 0, 0, 5, 0.5f, 5); /* top at y = 0.5 */
    rill_entity low = add_box(&f, 0, 2.0f, 0, 0.5f, 0.5f, 0.5f);
    rill_entity high = add_box(&f, 0.1f, 4.0f, 0, 0.5f, 0.5f, 0.5f);
    rill_rigid_body rb;
    rill_type_apply_defaults(rill_world_component_type(f.world, f.c.rigid_body), &rb);
    assert_non_null(rill_world_add(f.world, low, f.c.rigid_body, &rb));
    assert_non_null(rill_world_add(f.world, high, f.c.rigid_body, &rb));
    rill_event_reader rb_hl = {.event = begin}, rb_lg = {.event = begin}, rb_hg = {.event = begin};
    rill_event_reader re_hl = {.event = end}, re_lg = {.event = end};
    uint32_t n_hl = 0, n_lg = 0, n_hg = 0, e_hl = 0, e_lg = 0;
    rill_physics_contact c_hl = {0};
    for (int i = 0; i < 600; i++) {
        rill_physics_step(f.phys, 1.0 / 60.0);
        n_hl += count_pair(&f, &rb_hl, high, low, &c_hl);
        n_lg += count_pair(&f, &rb_lg, low, ground, NULL);
        n_hg += count_pair(&f, &rb_hg, high, ground, NULL);
        e_hl += count_pair(&f, &re_hl, high, low, NULL);
        e_lg += count_pair(&f, &re_lg, low, ground, NULL);
        rill_world_update_events(f.world);
    }
    assert_int_equal(n_lg, 1);
    assert_int_equal(n_hl, 1);
    assert_int_equal(n_hg, 0);
    assert_int_equal(e_hl, 0);
    assert_int_equal(e_lg, 0);
    assert_int_equal(rill_physics_touching_count(f.phys), 2);
    /* Where the two boxes meet, at y = 1.5 by then (the contact of the step they met is near). */
    assert_true(fabsf(c_hl.point[1] - 1.5f) < 0.3f);
    float ny = c_hl.a == high ? c_hl.normal[1] : -c_hl.normal[1]; /* toward a */
    assert_true(ny > 0.9f);
    assert_true(c_hl.depth >= 0.0f);
    rill_world_despawn(f.world, high);
    for (int i = 0; i < 3; i++) {
        rill_physics_step(f.phys, 1.0 / 60.0);
        e_hl += count_pair(&f, &re_hl, high, low, NULL);
        e_lg += count_pair(&f, &re_lg, low, ground, NULL);
        rill_world_update_events(f.world);
    }
    assert_int_equal(e_hl, 1);
    assert_int_equal(e_lg, 0);
    assert_int_equal(rill_physics_touching_count(f.phys), 1);
    teardown(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_register),
        cmocka_unit_test(test_raycast_primitives),
        cmocka_unit_test(test_raycast_mesh_and_heightfield),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_body_settles_on_box),
        cmocka_unit_test(test_bad_values_refused_api),
        cmocka_unit_test(test_bad_values_refused_components),
        cmocka_unit_test(test_lifecycle_follows_components),
        cmocka_unit_test(test_contact_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
