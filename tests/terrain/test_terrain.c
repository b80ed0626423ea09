/* Terrain tests: defaults, the streaming rule at the ring and its hysteresis, heights from PNG /
 * raw / noise, height and normal queries against raycasts on the colliders, chunk streaming
 * driven by a fake camera (at most N builds applied per frame, colliders exactly for resident
 * chunks, a raycast over an unloaded chunk misses until it streams in), memory back to its start
 * after 1000 in/out cycles, and hostile heightmaps. */
#include "rill_test.h"

#include "png_gray.h"
#include "rill/terrain.h"

#include <math.h>

typedef struct fixture {
    rill_world *world;
    rill_jobs *jobs;
    rill_vfs *vfs;
    rill_physics *phys;
    rill_terrain_system *sys;
    rill_component comp;
    char dir[512];
} fixture;

static void setup(fixture *f, const char *name) {
    memset(f, 0, sizeof *f);
    f->world = rill_world_create(NULL, NULL);
    f->jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    f->vfs = rill_vfs_create(NULL, NULL);
    rill_test_tmpdir(f->dir, sizeof f->dir, name);
    rill_error err = {0};
    assert_int_equal(rill_vfs_mount_dir(f->vfs, f->dir, &err), RILL_OK);
    f->phys = rill_physics_create(&(rill_physics_desc){.world = f->world}, &err);
    assert_non_null(f->phys);
    f->sys = rill_terrain_system_create(
        &(rill_terrain_system_desc){
            .world = f->world, .jobs = f->jobs, .vfs = f->vfs, .physics = f->phys},
        &err);
    assert_non_null(f->sys);
    f->comp = rill_world_find_component(f->world, "Terrain");
    assert_true(f->comp.id != 0);
}

static void teardown(fixture *f) {
    rill_terrain_system_destroy(f->sys);
    rill_physics_destroy(f->phys);
    rill_jobs_destroy(f->jobs);
    rill_vfs_destroy(f->vfs);
    rill_world_destroy(f->world);
    rill_test_tmpdir_remove(f->dir);
}

static rill_entity spawn_terrain(fixture *f, const rill_terrain *t, float x, float y, float z) {
    rill_entity e = rill_world_spawn(f->world);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = x;
    tr.translation[1] = y;
    tr.translation[2] = z;
    rill_world_set_transform(f->world, e, &tr);
    assert_non_null(rill_world_add(f->world, e, f->comp, t));
    return e;
}

/* One frame as the app runs it: completions drained in pre_update, the system in post_update. */
static void frame(fixture *f, const rill_terrain_view *view) {
    rill_jobs_drain(f->jobs, 0);
    rill_terrain_system_update(f->sys, view);
}

static rill_terrain small_terrain(uint32_t cx, uint32_t cz) {
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.chunks_x = cx;
    t.chunks_z = cz;
    t.chunk_size = 16.0f;
    t.resolution = 9;
    t.height_scale = 20.0f;
    t.noise_scale = 40.0f;
    t.stream = true;
    t.stream_radius = 32.0f;
    return t;
}

static void test_defaults(void **state) {
    (void)state;
    rill_terrain t;
    rill_terrain_defaults(&t);
    assert_int_equal(t.chunks_x, 4);
    assert_int_equal(t.chunks_z, 4);
    assert_true(t.chunk_size == 64.0f);
    assert_int_equal(t.resolution, 129);
    assert_false(t.stream);
    assert_true(t.stream_radius == 256.0f);
    assert_int_equal(t.max_rebuilds, 2);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_component c = rill_terrain_register(w);
    rill_terrain r;
    rill_type_apply_defaults(rill_world_component_type(w, c), &r);
    assert_int_equal(r.chunks_x, 4);
    assert_int_equal(r.resolution, 129);
    assert_true(r.layer_color[3][0] > 0.8f);
    assert_true(rill_world_find_component(w, "Collider").id != 0);
    rill_world_destroy(w);
}

static void test_rule_at_ring(void **state) {
    (void)state;
    float mn[2] = {0, 0}, mx[2] = {64, 64};
    float inside[2] = {10, 20}, side[2] = {100, 32}, corner[2] = {67, 68};
    assert_true(rill_terrain_rect_distance(inside, mn, mx) == 0.0f);
    assert_true(fabsf(rill_terrain_rect_distance(side, mn, mx) - 36.0f) < 1e-5f);
    assert_true(fabsf(rill_terrain_rect_distance(corner, mn, mx) - 5.0f) < 1e-5f);
    /* radius 256, chunk 64: in at <= 256, out beyond 320, keep between. */
    assert_int_equal(rill_terrain_chunk_decision(256.0f, 256.0f, 64.0f), 1);
    assert_int_equal(rill_terrain_chunk_decision(256.01f, 256.0f, 64.0f), 0);
    assert_int_equal(rill_terrain_chunk_decision(320.0f, 256.0f, 64.0f), 0);
    assert_int_equal(rill_terrain_chunk_decision(320.01f, 256.0f, 64.0f), -1);
    /* A radius below one chunk is raised to one chunk. */
    assert_int_equal(rill_terrain_chunk_decision(60.0f, 10.0f, 64.0f), 1);
    assert_int_equal(rill_terrain_chunk_decision(100.0f, 10.0f, 64.0f), 0);
    assert_int_equal(rill_terrain_chunk_decision(128.5f, 10.0f, 64.0f), -1);
}

static void test_edit_mode_all_resident_queries_match_colliders(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_edit");
    rill_terrain t = small_terrain(3, 2);
    rill_entity e = spawn_terrain(&f, &t, 100, 5, -20);
    rill_terrain_view edit = {0};
    rill_terrain_system_flush(f.sys, &edit);
    rill_terrain_info info;
    assert_true(rill_terrain_get_info(f.sys, e, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.samples_x, 3 * 8 + 1);
    assert_int_equal(info.samples_z, 2 * 8 + 1);
    assert_int_equal(info.resident, 6);
    assert_int_equal(info.colliders, 6);
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 2, 1), RILL_TERRAIN_CHUNK_RESIDENT);
    rill_physics_stats ps;
    rill_physics_get_stats(f.phys, &ps);
    assert_int_equal(ps.static_colliders, 6);

    /* Heights and normals at many points agree with raycasts on the colliders. */
    uint32_t seed = 12345;
    for (int i = 0; i < 200; i++) {
        seed = seed * 1664525u + 1013904223u;
        float x = 100.0f + (float)(seed >> 8) / 16777216.0f * 48.0f;
        seed = seed * 1664525u + 1013904223u;
        float z = -20.0f + (float)(seed >> 8) / 16777216.0f * 32.0f;
        float h, n[3];
        assert_true(rill_terrain_height_at(f.sys, RILL_ENTITY_NULL, x, z, &h, n));
        assert_true(h >= 5.0f && h <= 25.0f);
        float o[3] = {x, 200, z}, down[3] = {0, -1, 0};
        rill_physics_hit hit;
        assert_true(rill_physics_raycast(f.phys, o, down, 400, 0, &hit));
        assert_true(hit.entity == e);
        assert_true(fabsf(hit.position[1] - h) < 1e-3f);
        float dot = hit.normal[0] * n[0] + hit.normal[1] * n[1] + hit.normal[2] * n[2];
        assert_true(dot > 0.999f);
    }
    float h;
    assert_false(rill_terrain_height_at(f.sys, e, 99.0f, 0.0f, &h, NULL));
    assert_false(rill_terrain_height_at(f.sys, e, 120.0f, 12.5f, &h, NULL));
    assert_true(rill_terrain_height_at(f.sys, e, 148.0f, 12.0f, &h, NULL)); /* far edge */

    /* The mesh of a chunk: world positions on the heights, unit normals, shared indices. */
    rill_terrain_chunk_mesh m;
    assert_true(rill_terrain_chunk_get_mesh(f.sys, e, 1, 1, &m));
    assert_int_equal(m.vertex_count, 81);
    assert_int_equal(m.index_count, 8 * 8 * 6);
    const float *v = &m.vertices[(3 * 9 + 5) * 6];
    assert_true(fabsf(v[0] - (100.0f + 16.0f + 5 * 2.0f)) < 1e-4f);
    assert_true(fabsf(v[2] - (-20.0f + 16.0f + 3 * 2.0f)) < 1e-4f);
    assert_true(rill_terrain_height_at(f.sys, e, v[0], v[2], &h, NULL));
    assert_true(fabsf(v[1] - h) < 1e-4f);
    assert_true(fabsf(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] - 1.0f) < 1e-4f);
    assert_true(m.bounds_min[1] <= v[1] && m.bounds_max[1] >= v[1]);
    /* Its edges: every side of every cell once (9 rows and 9 columns of 8 segments), no diagonal:
     * each joins neighbours along x (same row) or along z (same column). */
    assert_int_equal(m.edge_index_count, 2 * 9 * 8 * 2);
    uint8_t seen[81 * 2] = {0}; /* [vertex * 2 + axis]: the segment from it toward +x / +z */
    for (uint32_t i = 0; i < m.edge_index_count; i += 2) {
        uint32_t a = RILL_MIN(m.edge_indices[i], m.edge_indices[i + 1]);
        uint32_t b = RILL_MAX(m.edge_indices[i], m.edge_indices[i + 1]);
        bool along_x = b == a + 1 && a % 9 != 8, along_z = b == a + 9;
        assert_true(b < 81 && (along_x || along_z));
        assert_int_equal(seen[a * 2 + (along_z ? 1 : 0)]++, 0);
    }
    teardown(&f);
}

static void test_noise_is_deterministic(void **state) {
    (void)state;
    rill_terrain t = small_terrain(2, 2);
    float *a = NULL, *b = NULL;
    uint32_t sx, sz;
    rill_error err = {0};
    assert_int_equal(rill_terrain_load_heights(NULL, &t, NULL, &a, &sx, &sz, &err), RILL_OK);
    assert_int_equal(rill_terrain_load_heights(NULL, &t, "", &b, &sx, &sz, &err), RILL_OK);
    assert_int_equal(sx, 17);
    assert_memory_equal(a, b, sx * sz * sizeof(float));
    float lo = 1e9f, hi = -1e9f;
    for (uint32_t i = 0; i < sx * sz; i++) {
        lo = fminf(lo, a[i]);
        hi = fmaxf(hi, a[i]);
    }
    assert_true(lo >= 0.0f && hi <= 20.0f && hi - lo > 1.0f); /* scaled, not flat */
    rill_free(b);
    t.seed = 2;
    assert_int_equal(rill_terrain_load_heights(NULL, &t, NULL, &b, &sx, &sz, &err), RILL_OK);
    assert_true(memcmp(a, b, sx * sz * sizeof(float)) != 0);
    rill_free(a);
    rill_free(b);
}

/* Counts chunks whose state matches the ring rule for camera (x, z), and checks that resident
 * chunks and only those have a collider (a raycast at their centre hits them). */
static void check_ring(fixture *f, rill_entity e, const rill_terrain *t, float x, float z) {
    rill_terrain_info info;
    rill_terrain_get_info(f->sys, e, &info);
    for (uint32_t cz = 0; cz < t->chunks_z; cz++) {
        for (uint32_t cx = 0; cx < t->chunks_x; cx++) {
            float mn[2] = {info.origin[0] + (float)cx * t->chunk_size,
                           info.origin[2] + (float)cz * t->chunk_size};
            float mx[2] = {mn[0] + t->chunk_size, mn[1] + t->chunk_size};
            float cam[2] = {x, z};
            float d = rill_terrain_rect_distance(cam, mn, mx);
            rill_terrain_chunk_state s = rill_terrain_chunk_get_state(f->sys, e, cx, cz);
            if (d <= t->stream_radius) {
                assert_int_equal(s, RILL_TERRAIN_CHUNK_RESIDENT);
            }
            if (d > t->stream_radius + t->chunk_size) {
                assert_int_equal(s, RILL_TERRAIN_CHUNK_UNLOADED);
            }
            float o[3] = {(mn[0] + mx[0]) * 0.5f, 500, (mn[1] + mx[1]) * 0.5f},
                  down[3] = {0, -1, 0};
            rill_physics_hit hit;
            bool hits = rill_physics_raycast(f->phys, o, down, 1000, 0, &hit);
            assert_int_equal(hits, s == RILL_TERRAIN_CHUNK_RESIDENT);
            if (hits) {
                assert_int_equal(hit.part, cz * t->chunks_x + cx);
            }
        }
    }
}

static void test_streaming_ring_and_rebuild_limit(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_stream");
    rill_terrain t = small_terrain(12, 12); /* 192 m square, radius 32, chunk 16 */
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view view = {
        .streaming = true, .has_camera = true, .camera_position = {40, 0, 40}};
    uint32_t max_seen = 0, frames = 0;
    rill_terrain_info info;
    for (; frames < 200; frames++) {
        frame(&f, &view);
        rill_terrain_get_info(f.sys, e, &info);
        assert_true(info.rebuilds_last_update <= 2);
        max_seen = RILL_MAX(max_seen, info.rebuilds_last_update);
        if (info.status == RILL_TERRAIN_STATUS_READY && info.building == 0 && frames > 2) {
            break;
        }
    }
    assert_int_equal(max_seen, 2);
    assert_true(info.resident > 4);
    assert_true(frames >= info.resident / 2); /* it took several frames: the limit held */
    check_ring(&f, e, &t, 40, 40);
    assert_int_equal(info.colliders, info.resident);
    rill_terrain_stats st;
    rill_terrain_get_stats(f.sys, &st);
    assert_int_equal(st.chunks, 144);
    assert_int_equal(st.resident, info.resident);

    /* Fly across: every settled frame agrees with the rule, and never more than 2 per frame. */
    for (int step = 0; step < 60; step++) {
        view.camera_position[0] = 40.0f + (float)step * 2.0f;
        view.camera_position[2] = 40.0f + (float)step * 1.5f;
        for (int k = 0; k < 40; k++) {
            frame(&f, &view);
            rill_terrain_get_info(f.sys, e, &info);
            assert_true(info.rebuilds_last_update <= 2);
            if (info.building == 0) {
                break;
            }
        }
        check_ring(&f, e, &t, view.camera_position[0], view.camera_position[2]);
    }
    /* No camera: residency stays as it is, whatever the last position was. */
    uint32_t resident = info.resident;
    rill_terrain_view lost = {.streaming = true, .has_camera = false};
    for (int k = 0; k < 5; k++) {
        frame(&f, &lost);
    }
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.resident, resident);
    /* Streaming off (edit): every chunk comes back. */
    rill_terrain_view edit = {0};
    for (int k = 0; k < 200 && info.resident < 144; k++) {
        frame(&f, &edit);
        rill_terrain_get_info(f.sys, e, &info);
        assert_true(info.rebuilds_last_update <= 2);
    }
    assert_int_equal(info.resident, 144);
    teardown(&f);
}

static void settle(fixture *f, const rill_terrain_view *view);

/* A timed view (the frame's streaming budget, docs/streaming.md) bounds the applies over all
 * terrains: with its budget spent (0) each update applies exactly one finished build, whatever
 * max_rebuilds allows, so nothing starves and every chunk still arrives; untimed, max_rebuilds
 * per terrain holds alone. */
static void test_timed_view_applies_one_at_least(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_timed");
    rill_terrain t = small_terrain(6, 6);
    t.max_rebuilds = 4;
    rill_entity e[2] = {spawn_terrain(&f, &t, 0, 0, 0), spawn_terrain(&f, &t, 100, 0, 0)};
    rill_terrain_view view = {.streaming = true,
                              .has_camera = true,
                              .camera_position = {98, 0, 40},
                              .timed = true,
                              .budget_ns = 0};
    uint32_t applied = 0, frames = 0, max_seen = 0;
    rill_terrain_info info[2];
    for (; frames < 400; frames++) {
        frame(&f, &view);
        uint32_t now = 0, building = 0;
        for (int k = 0; k < 2; k++) {
            rill_terrain_get_info(f.sys, e[k], &info[k]);
            now += info[k].rebuilds_last_update;
            building += info[k].building;
        }
        assert_true(now <= 1);
        applied += now;
        if (info[0].status == RILL_TERRAIN_STATUS_READY &&
            info[1].status == RILL_TERRAIN_STATUS_READY && building == 0 && frames > 2) {
            break;
        }
    }
    assert_true(info[0].resident > 0 && info[1].resident > 0);
    assert_int_equal(applied, info[0].resident + info[1].resident);
    /* Untimed: far away and back, each terrain applies up to its own 4 an update. */
    view.timed = false;
    view.camera_position[0] = 5000.0f;
    settle(&f, &view);
    view.camera_position[0] = 98.0f;
    for (int k = 0; k < 100; k++) {
        frame(&f, &view);
        rill_terrain_get_info(f.sys, e[0], &info[0]);
        rill_terrain_get_info(f.sys, e[1], &info[1]);
        assert_true(info[0].rebuilds_last_update <= 4 && info[1].rebuilds_last_update <= 4);
        max_seen = RILL_MAX(max_seen, info[0].rebuilds_last_update + info[1].rebuilds_last_update);
    }
    assert_true(max_seen > 1);
    teardown(&f);
}

static void settle(fixture *f, const rill_terrain_view *view) {
    rill_terrain_info info;
    for (int k = 0; k < 50; k++) {
        frame(f, view);
        rill_terrain_stats st;
        rill_terrain_get_stats(f->sys, &st);
        if (st.building == 0 && k > 1) {
            break;
        }
    }
    (void)info;
}

static void test_hysteresis_no_flicker(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_hyst");
    rill_terrain t = small_terrain(1, 1); /* one chunk [0, 16]^2, radius 32 */
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view view = {.streaming = true, .has_camera = true, .camera_position = {8, 0, 8}};
    settle(&f, &view);
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 0, 0), RILL_TERRAIN_CHUNK_RESIDENT);
    /* Oscillate around radius + chunk (48 m from the bounds): x = 16 + 48 -/+ 0.5. It stays in
     * on the inner side and goes out once on the outer side, then never comes back. */
    int transitions = 0;
    rill_terrain_chunk_state last = RILL_TERRAIN_CHUNK_RESIDENT;
    for (int i = 0; i < 40; i++) {
        view.camera_position[0] = (i % 2) ? 64.5f : 63.5f;
        view.camera_position[2] = 8.0f;
        settle(&f, &view);
        rill_terrain_chunk_state s = rill_terrain_chunk_get_state(f.sys, e, 0, 0);
        if (s != last) {
            transitions++;
        }
        last = s;
    }
    assert_int_equal(transitions, 1);
    assert_int_equal(last, RILL_TERRAIN_CHUNK_UNLOADED);
    /* Oscillate around the radius (32 m): x = 48 -/+ 0.5. It comes in once and stays. */
    transitions = 0;
    for (int i = 0; i < 40; i++) {
        view.camera_position[0] = (i % 2) ? 48.5f : 47.5f;
        settle(&f, &view);
        rill_terrain_chunk_state s = rill_terrain_chunk_get_state(f.sys, e, 0, 0);
        if (s != last) {
            transitions++;
        }
        last = s;
    }
    assert_int_equal(transitions, 1);
    assert_int_equal(last, RILL_TERRAIN_CHUNK_RESIDENT);
    teardown(&f);
}

static void test_raycast_misses_unloaded_then_hits(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_ray");
    rill_terrain t = small_terrain(10, 1); /* 160 m along X */
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view view = {.streaming = true, .has_camera = true, .camera_position = {8, 0, 8}};
    settle(&f, &view);
    float o[3] = {150, 100, 8}, down[3] = {0, -1, 0};
    rill_physics_hit hit;
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 9, 0), RILL_TERRAIN_CHUNK_UNLOADED);
    assert_false(rill_physics_raycast(f.phys, o, down, 500, 0, &hit));
    float h;
    assert_true(rill_terrain_height_at(f.sys, e, 150, 8, &h, NULL)); /* heights stay */
    view.camera_position[0] = 140;
    settle(&f, &view);
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 9, 0), RILL_TERRAIN_CHUNK_RESIDENT);
    assert_true(rill_physics_raycast(f.phys, o, down, 500, 0, &hit));
    assert_true(hit.entity == e && hit.part == 9);
    assert_true(fabsf(hit.position[1] - h) < 1e-3f);
    /* The chunk at the start went out, with its collider. */
    float o0[3] = {4, 100, 8};
    assert_false(rill_physics_raycast(f.phys, o0, down, 500, 0, &hit));
    teardown(&f);
}

static void test_memory_after_1000_cycles(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_cycles");
    rill_terrain t = small_terrain(2, 1);
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view near = {.streaming = true, .has_camera = true, .camera_position = {8, 0, 8}};
    rill_terrain_view far = near;
    far.camera_position[0] = 1000;
    settle(&f, &far); /* loaded, nothing resident */
    rill_terrain_info info;
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.resident, 0);
    /* One warm-up cycle: the queue of finished builds keeps its (small) capacity once grown. */
    settle(&f, &near);
    settle(&f, &far);
    size_t terrain0 = rill_mem_live_bytes(RILL_MEM_TERRAIN);
    size_t physics0 = rill_mem_live_bytes(RILL_MEM_PHYSICS);
    size_t resident_peak = 0;
    for (int cycle = 0; cycle < 1000; cycle++) {
        settle(&f, &near);
        rill_terrain_get_info(f.sys, e, &info);
        assert_int_equal(info.resident, 2);
        assert_int_equal(info.colliders, 2);
        resident_peak = RILL_MAX(resident_peak, rill_mem_live_bytes(RILL_MEM_TERRAIN));
        settle(&f, &far);
        rill_terrain_get_info(f.sys, e, &info);
        assert_int_equal(info.resident, 0);
    }
    assert_true(resident_peak > terrain0); /* the cycles really held meshes */
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_TERRAIN), terrain0);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_PHYSICS), physics0);
    assert_int_equal(info.rebuilds_total, 2002);
    /* Removing the component releases everything the terrain held. */
    rill_world_remove(f.world, e, f.comp);
    frame(&f, &far);
    rill_terrain_stats st;
    rill_terrain_get_stats(f.sys, &st);
    assert_int_equal(st.terrains, 0);
    teardown(&f);
}

/* A renderer drops the CPU copy of a chunk's mesh after its upload: the bytes come back, the
 * chunk stays resident with its collider, and a refresh rebuilds it with a mesh again. Bytes per
 * resident chunk, before and after the drop, and per unloaded chunk are what they should be. */
static void test_drop_mesh_and_refresh(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_drop");
    rill_terrain t = small_terrain(2, 1); /* resolution 9 */
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view edit = {0};
    rill_terrain_view far = {.streaming = true, .has_camera = true, .camera_position = {900, 0, 0}};
    settle(&f, &far); /* loaded, nothing resident */
    size_t out_bytes = rill_mem_live_bytes(RILL_MEM_TERRAIN);
    settle(&f, &edit);
    rill_terrain_info info;
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.resident, 2);
    size_t in_bytes = rill_mem_live_bytes(RILL_MEM_TERRAIN);
    const size_t mesh = 9u * 9u * 6u * sizeof(float);
    assert_true(in_bytes >= out_bytes + 2u * mesh); /* meshes + the ready-queue's capacity */
    size_t with_mesh = info.resident_bytes;
    assert_int_equal(rill_terrain_chunk_drop_mesh(f.sys, e, 0, 0), mesh);
    assert_int_equal(rill_terrain_chunk_drop_mesh(f.sys, e, 0, 0), 0); /* already dropped */
    assert_int_equal(rill_terrain_chunk_drop_mesh(f.sys, e, 5, 0), 0); /* out of range */
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_TERRAIN), in_bytes - mesh);
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.resident_bytes, with_mesh - mesh);
    assert_int_equal(info.colliders, 2);
    rill_terrain_chunk_mesh m;
    assert_true(rill_terrain_chunk_get_mesh(f.sys, e, 0, 0, &m));
    assert_null(m.vertices);
    assert_int_equal(m.vertex_count, 81);
    uint64_t version = m.version;
    /* Refresh: rebuilt (a new version) with its mesh and collider back. */
    assert_true(rill_terrain_chunk_refresh(f.sys, e, 0, 0));
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 0, 0), RILL_TERRAIN_CHUNK_BUILDING);
    settle(&f, &edit);
    assert_true(rill_terrain_chunk_get_mesh(f.sys, e, 0, 0, &m));
    assert_non_null(m.vertices);
    assert_true(m.version != version);
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.colliders, 2);
    assert_int_equal(info.resident_bytes, with_mesh);
    /* Out: back to the bytes of an all-unloaded terrain. */
    settle(&f, &far);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_TERRAIN), out_bytes);
    assert_false(rill_terrain_chunk_refresh(f.sys, e, 0, 0));
    teardown(&f);
}

static void write_u16_png(fixture *f, const char *name, uint32_t w, uint32_t h, int depth) {
    uint16_t *s = malloc((size_t)w * h * sizeof(uint16_t));
    for (uint32_t i = 0; i < w * h; i++) {
        s[i] = (uint16_t)(depth == 16 ? (i * 37u) & 0xFFFF : i & 0xFF);
    }
    size_t size;
    uint8_t *png = png_gray_encode(s, w, h, depth, &size);
    rill_test_write_file(f->dir, name, png, size);
    free(png);
    free(s);
}

static void test_heightmap_files(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_files");
    rill_terrain t = small_terrain(2, 2); /* 17 x 17 samples */
    t.height_scale = 100.0f;
    t.height_offset = -10.0f;
    rill_error err = {0};
    float *h = NULL;
    uint32_t sx, sz;
    /* A 16-bit PNG keeps its full precision. */
    write_u16_png(&f, "hm16.png", 17, 17, 16);
    assert_int_equal(rill_terrain_load_heights(f.vfs, &t, "hm16.png", &h, &sx, &sz, &err), RILL_OK);
    assert_true(fabsf(h[5] - (((5u * 37u) / 65535.0f) * 100.0f - 10.0f)) < 1e-4f);
    assert_true(fabsf(h[17 * 17 - 1] - ((((288u * 37u) & 0xFFFF) / 65535.0f) * 100.0f - 10.0f)) <
                1e-4f);
    rill_free(h);
    /* Raw 16-bit little-endian. */
    uint8_t raw[17 * 17 * 2];
    for (int i = 0; i < 17 * 17; i++) {
        raw[i * 2] = (uint8_t)(i * 100);
        raw[i * 2 + 1] = (uint8_t)((i * 100) >> 8);
    }
    rill_test_write_file(f.dir, "hm.r16", raw, sizeof raw);
    assert_int_equal(rill_terrain_load_heights(f.vfs, &t, "hm.r16", &h, &sx, &sz, &err), RILL_OK);
    assert_true(fabsf(h[3] - ((300.0f / 65535.0f) * 100.0f - 10.0f)) < 1e-4f);
    rill_free(h);
    /* Raw floats, and a terrain drawn from one through the system. */
    float fl[17 * 17];
    for (int i = 0; i < 17 * 17; i++) {
        fl[i] = (float)(i % 17) * 0.01f;
    }
    rill_test_write_file(f.dir, "hm.r32", fl, sizeof fl);
    t.heightmap = rill_intern("hm.r32");
    t.stream = false;
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_system_flush(f.sys, NULL);
    rill_terrain_info info;
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.resident, 4);
    float y;
    assert_true(rill_terrain_height_at(f.sys, e, 6.0f, 3.0f, &y, NULL)); /* sample x = 3 */
    assert_true(fabsf(y - (0.03f * 100.0f - 10.0f)) < 1e-3f);
    teardown(&f);
}

static void expect_load_error(fixture *f, const rill_terrain *t, const char *path, rill_result want,
                              const char *needle) {
    float *h = NULL;
    uint32_t sx = 1, sz = 1;
    rill_error err = {0};
    assert_int_equal(rill_terrain_load_heights(f->vfs, t, path, &h, &sx, &sz, &err), want);
    assert_null(h);
    assert_int_equal(sx, 0);
    if (!strstr(err.msg, path) || !strstr(err.msg, needle)) {
        fail_msg("message '%s' should name '%s' and say '%s'", err.msg, path, needle);
    }
}

static void test_hostile_heightmaps(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_hostile");
    rill_terrain t = small_terrain(2, 2); /* 17 x 17 */
    write_u16_png(&f, "small.png", 16, 17, 16);
    expect_load_error(&f, &t, "small.png", RILL_ERR_CORRUPT, "17x17");
    /* A map of another size says which chunks and resolution take it as it is (21 and 14 samples
     * less one: chunks of 7, the divisor nearest the default), or nothing when none do (257 is
     * prime and over 256 chunks). */
    write_u16_png(&f, "other.png", 22, 15, 16);
    expect_load_error(&f, &t, "other.png", RILL_ERR_CORRUPT,
                      "it fits chunks_x: 3, chunks_z: 2, resolution: 8");
    write_u16_png(&f, "nofit.png", 258, 2, 16);
    expect_load_error(&f, &t, "nofit.png", RILL_ERR_CORRUPT, "17x17 samples");
    {
        float *hh = NULL;
        uint32_t hx = 0, hz = 0;
        rill_error e2 = {0};
        rill_terrain_load_heights(f.vfs, &t, "nofit.png", &hh, &hx, &hz, &e2);
        assert_null(strstr(e2.msg, "fits"));
    }
    write_u16_png(&f, "eight.png", 17, 17, 8); /* 8-bit is fine: widened */
    float *h = NULL;
    uint32_t sx, sz;
    rill_error err = {0};
    assert_int_equal(rill_terrain_load_heights(f.vfs, &t, "eight.png", &h, &sx, &sz, &err),
                     RILL_OK);
    rill_free(h);
    /* A PNG cut in half, and garbage with a .png name. */
    size_t size;
    uint16_t px[17 * 17] = {0};
    uint8_t *png = png_gray_encode(px, 17, 17, 16, &size);
    rill_test_write_file(f.dir, "cut.png", png, size / 2);
    free(png);
    expect_load_error(&f, &t, "cut.png", RILL_ERR_PARSE, "cut.png");
    rill_test_write_file(f.dir, "junk.png", "not a png at all", 16);
    expect_load_error(&f, &t, "junk.png", RILL_ERR_PARSE, "junk.png");
    /* Raw: truncated, too long, empty. */
    uint8_t raw[17 * 17 * 2 + 2] = {0};
    rill_test_write_file(f.dir, "short.r16", raw, 17 * 17 * 2 - 1);
    expect_load_error(&f, &t, "short.r16", RILL_ERR_TRUNCATED, "truncated");
    rill_test_write_file(f.dir, "long.r16", raw, sizeof raw);
    expect_load_error(&f, &t, "long.r16", RILL_ERR_CORRUPT, "wrong size");
    rill_test_write_file(f.dir, "empty.r16", raw, 0);
    expect_load_error(&f, &t, "empty.r16", RILL_ERR_TRUNCATED, "truncated");
    /* NaN and infinite samples. */
    float fl[17 * 17] = {0};
    fl[17 * 3 + 4] = NAN;
    rill_test_write_file(f.dir, "nan.r32", fl, sizeof fl);
    expect_load_error(&f, &t, "nan.r32", RILL_ERR_CORRUPT, "(4, 3)");
    fl[17 * 3 + 4] = INFINITY;
    rill_test_write_file(f.dir, "inf.f32", fl, sizeof fl);
    expect_load_error(&f, &t, "inf.f32", RILL_ERR_CORRUPT, "not a finite");
    /* Huge finite samples that overflow once scaled. */
    fl[17 * 3 + 4] = 3e38f;
    rill_test_write_file(f.dir, "big.r32", fl, sizeof fl);
    expect_load_error(&f, &t, "big.r32", RILL_ERR_CORRUPT, "not finite");
    /* Unknown type and a missing file. */
    rill_test_write_file(f.dir, "hm.bmp", raw, 10);
    expect_load_error(&f, &t, "hm.bmp", RILL_ERR_UNSUPPORTED, "unknown heightmap type");
    expect_load_error(&f, &t, "missing.r16", RILL_ERR_NOT_FOUND, "missing.r16");

    /* Through the system: the terrain FAILS with the message, an error is logged, nothing is
     * built, the engine keeps going, and fixing the path loads it. */
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    t.heightmap = rill_intern("short.r16");
    t.stream = false;
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_system_flush(f.sys, NULL);
    rill_test_log_end(&cap);
    rill_terrain_info info;
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_FAILED);
    assert_non_null(strstr(info.error.msg, "short.r16"));
    assert_int_equal(info.resident, 0);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_ERROR), 1);
    assert_true(rill_test_log_last_has(&cap, "short.r16"));
    rill_terrain *live = rill_world_get(f.world, e, f.comp);
    live->heightmap = rill_intern("eight.png");
    rill_terrain_system_flush(f.sys, NULL);
    rill_terrain_get_info(f.sys, e, &info);
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.resident, 4);
    teardown(&f);
}

static void test_chunk_map(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_map");
    rill_terrain t = small_terrain(4, 4); /* 64 m square at the origin, chunk 16, radius 32 */
    t.stream_radius = 16.0f;
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view view = {.streaming = true, .has_camera = true, .camera_position = {8, 0, 8}};
    settle(&f, &view);
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 0, 0), RILL_TERRAIN_CHUNK_RESIDENT);
    assert_int_equal(rill_terrain_chunk_get_state(f.sys, e, 3, 3), RILL_TERRAIN_CHUNK_UNLOADED);
    enum { S = 64 };
    static uint8_t img[S * S * 4];
    memset(img, 7, sizeof img);
    float mn[2] = {-32, -32}, mx[2] = {96, 96}; /* half a pixel a metre; terrain in the middle */
    assert_int_equal(rill_terrain_draw_chunk_map(f.sys, mn, mx, img, S, S), 16);
    /* Chunk (0, 0) spans x 16..24, y 16..24 (-Z up); its inside is green. */
    const uint8_t *p = &img[(20 * S + 20) * 4];
    assert_true(p[1] > p[0] + 20 && p[1] > p[2] + 20);
    /* Chunk (3, 3): x 40..48, y 40..48, unloaded grey. */
    p = &img[(44 * S + 44) * 4];
    assert_true(p[0] == p[1] && p[1] == p[2]); /* grey */
    /* Outside the terrain: untouched. */
    assert_int_equal(img[(2 * S + 2) * 4], 7);
    assert_int_equal(rill_terrain_draw_chunk_map(f.sys, mx, mn, img, S, S), 0); /* bad rect */
    teardown(&f);
}

/* The same streaming with real worker threads: builds finish in any order and at any time, and
 * the ring rule, the per-frame limit and the colliders still hold once each move settles. */
static void test_streaming_with_workers(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_workers");
    rill_terrain_system_destroy(f.sys);
    rill_jobs_destroy(f.jobs);
    f.jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 2}, NULL);
    rill_error err = {0};
    f.sys = rill_terrain_system_create(
        &(rill_terrain_system_desc){
            .world = f.world, .jobs = f.jobs, .vfs = f.vfs, .physics = f.phys},
        &err);
    assert_non_null(f.sys);
    rill_terrain t = small_terrain(10, 10);
    rill_entity e = spawn_terrain(&f, &t, 0, 0, 0);
    rill_terrain_view view = {.streaming = true, .has_camera = true};
    for (int step = 0; step < 12; step++) {
        view.camera_position[0] = 10.0f + 12.0f * (float)step;
        view.camera_position[2] = 150.0f - 11.0f * (float)step;
        rill_terrain_info info;
        for (int k = 0; k < 2000; k++) {
            frame(&f, &view);
            rill_terrain_get_info(f.sys, e, &info);
            assert_true(info.rebuilds_last_update <= 2);
            if (info.status == RILL_TERRAIN_STATUS_READY && info.building == 0 && k > 1) {
                break;
            }
            rill_sleep_ns(100000);
        }
        assert_int_equal(info.building, 0);
        check_ring(&f, e, &t, view.camera_position[0], view.camera_position[2]);
        assert_int_equal(info.colliders, info.resident);
    }
    teardown(&f);
}

/* A terrain of 256 x 256 chunks held resident (not streamed) would take every renderer mesh (the
 * 65536 of its pool: "mesh pool exhausted", most chunks missing) and a collider each: it is refused
 * before its heights load, naming the limit, and counted as failed. Streamed, only its ring
 * counts; terrains share the limit. */
static void test_max_chunks(void **state) {
    (void)state;
    fixture f;
    setup(&f, "terrain_max_chunks");
    rill_terrain big = small_terrain(256, 256);
    big.stream = false;
    big.resolution = 2; /* 257 x 257 heights: the streamed load below stays cheap */
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    rill_entity e = spawn_terrain(&f, &big, 0, 0, 0);
    rill_terrain_view edit = {0};
    rill_terrain_system_flush(f.sys, &edit);
    rill_test_log_end(&cap);
    rill_terrain_info info;
    assert_true(rill_terrain_get_info(f.sys, e, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_FAILED);
    assert_int_equal(info.resident, 0);
    assert_int_equal(info.height_bytes, 0);
    assert_int_equal(info.error.code, RILL_ERR_LIMIT);
    assert_non_null(strstr(info.error.msg, "65536 chunks resident (256 x 256)"));
    assert_non_null(strstr(info.error.msg, "max_chunks limit of 16384"));
    assert_true(rill_test_log_last_has(&cap, "max_chunks limit of 16384"));
    rill_terrain_stats ts;
    rill_terrain_get_stats(f.sys, &ts);
    assert_int_equal(ts.failed, 1);
    /* Streamed with a 32 m ring over 16 m chunks (at most 5 x 5 resident), the same size loads. */
    big.stream = true;
    rill_world_despawn(f.world, e);
    e = spawn_terrain(&f, &big, 0, 0, 0);
    rill_terrain_view cam = {.streaming = true, .has_camera = true, .camera_position = {8, 0, 8}};
    rill_terrain_system_flush(f.sys, &cam);
    assert_true(rill_terrain_get_info(f.sys, e, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_true(info.resident > 0 && info.resident <= 25);
    rill_terrain_get_stats(f.sys, &ts);
    assert_int_equal(ts.failed, 0);
    teardown(&f);
    /* The limit is the desc's, over all terrains: 16 chunks, a 4 x 4 loads, a 2 x 1 more fails. */
    setup(&f, "terrain_max_chunks_desc");
    rill_terrain_system_destroy(f.sys);
    rill_error err = {0};
    f.sys = rill_terrain_system_create(
        &(rill_terrain_system_desc){
            .world = f.world, .jobs = f.jobs, .vfs = f.vfs, .physics = f.phys, .max_chunks = 16},
        &err);
    assert_non_null(f.sys);
    rill_terrain a = small_terrain(4, 4), b = small_terrain(2, 1);
    a.stream = b.stream = false;
    rill_entity ea = spawn_terrain(&f, &a, 0, 0, 0);
    rill_terrain_system_flush(f.sys, &edit);
    rill_entity eb = spawn_terrain(&f, &b, 500, 0, 0);
    rill_test_log_begin(&cap);
    rill_terrain_system_flush(f.sys, &edit);
    rill_test_log_end(&cap);
    assert_true(rill_terrain_get_info(f.sys, ea, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.resident, 16);
    assert_true(rill_terrain_get_info(f.sys, eb, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_FAILED);
    assert_non_null(strstr(info.error.msg, "2 chunks resident (2 x 1) with 16 of other terrains"));
    /* A streamed terrain counts its ring (3 x 3 here); in edit mode, which wants every chunk, it
     * loads chunks only up to the limit and says so. */
    rill_world_despawn(f.world, ea);
    rill_world_despawn(f.world, eb);
    rill_terrain_system_flush(f.sys, &edit);
    rill_terrain s8 = small_terrain(8, 8);
    s8.stream_radius = 16.0f;
    rill_entity es = spawn_terrain(&f, &s8, 0, 0, 0);
    rill_test_log_begin(&cap);
    rill_terrain_system_flush(f.sys, &edit);
    rill_test_log_end(&cap);
    assert_true(rill_terrain_get_info(f.sys, es, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    assert_int_equal(info.resident, 16);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 1);
    assert_true(rill_test_log_last_has(&cap, "only up to the max_chunks limit of 16"));
    teardown(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_rule_at_ring),
        cmocka_unit_test(test_max_chunks),
        cmocka_unit_test(test_timed_view_applies_one_at_least),
        cmocka_unit_test(test_edit_mode_all_resident_queries_match_colliders),
        cmocka_unit_test(test_noise_is_deterministic),
        cmocka_unit_test(test_streaming_ring_and_rebuild_limit),
        cmocka_unit_test(test_hysteresis_no_flicker),
        cmocka_unit_test(test_raycast_misses_unloaded_then_hits),
        cmocka_unit_test(test_memory_after_1000_cycles),
        cmocka_unit_test(test_drop_mesh_and_refresh),
        cmocka_unit_test(test_heightmap_files),
        cmocka_unit_test(test_hostile_heightmaps),
        cmocka_unit_test(test_chunk_map),
        cmocka_unit_test(test_streaming_with_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
