/* test_pick.c: picking (rill_channels_pick, rill/channels.h). Cubes of the generated model stand
 * in a row in front of a camera: a context wall first, then two NM_ (selectable) landmarks. The
 * ray must stop at the wall while it is drawn, pass through it once its channel is hidden (or drawn
 * as wireframe), skip an entity hidden by its own RenderMode, hit a scaled and rotated entity
 * where its triangles are, report the name of the named ancestor, and miss beside the cubes.
 * Then every drawn kind at once: a glTF landmark over a MeshInstance box over a terrain, the
 * nearest winning whatever its kind, with the same hidden / wireframe / ghost rules for each; and
 * rill_terrain_raycast against a brute-force march over the height field. */
#include "rill_test.h"

#include "model_gen.h"
#include "rill/asset.h"
#include "rill/channels.h"
#include "rill/scene.h"
#include "rill/terrain.h"

#include <math.h>

typedef struct fx {
    rill_world *world;
    rill_model_components mc;
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_asset a;
    char dir[512];
} fx;

static void fx_init(fx *f) {
    f->world = rill_world_create(NULL, NULL);
    assert_non_null(f->world);
    rill_error err = {0};
    assert_int_equal(rill_channels_attach(f->world, &err), RILL_OK);
    assert_int_equal(rill_scene_model_register(f->world, &f->mc, &err), RILL_OK);
    rill_test_tmpdir(f->dir, sizeof f->dir, "channels_pick");
    uint8_t *glb = NULL;
    size_t n = 0;
    assert_int_equal(model_gen_glb(&glb, &n, &err), RILL_OK);
    char path[700];
    snprintf(path, sizeof path, "%s/m.glb", f->dir);
    assert_int_equal(rill_file_write_all(path, glb, n, NULL), RILL_OK);
    rill_free(glb);
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, f->dir, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(f->as, &err), RILL_OK);
    f->a = rill_asset_load_sync(f->as, "m.glb", &err);
    assert_int_equal(rill_asset_get_state(f->as, f->a), RILL_ASSET_STATE_LOADED);
}

static void fx_done(fx *f) {
    rill_world_destroy(f->world);
    rill_asset_release(f->as, f->a);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
}

/* A named entity at (x, y, z) holding the generated model's unit cube (mesh 0, primitive 0) on a
 * child entity, as a model spawn makes it. Returns the child (the drawn entity). */
static rill_entity cube(fx *f, const char *name, float x, float y, float z, float scale,
                        float roll) {
    rill_entity root = rill_world_spawn(f->world);
    rill_world_set_name(f->world, root, name);
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    t.rotation[2] = sinf(0.5f * roll); /* about Z: the faces toward the camera stay square on */
    t.rotation[3] = cosf(0.5f * roll);
    t.scale[0] = t.scale[1] = t.scale[2] = scale;
    assert_true(rill_world_set_transform(f->world, root, &t));
    rill_entity prim = rill_world_spawn(f->world);
    rill_world_set_name(f->world, prim, "part"); /* a glTF node name, as spawns give */
    rill_transform id = rill_transform_identity();
    assert_true(rill_world_set_transform(f->world, prim, &id));
    assert_true(rill_world_set_parent(f->world, prim, root));
    rill_model_mesh mm = {f->a.id, 0, 0};
    assert_true(rill_world_add(f->world, prim, f->mc.model_mesh, &mm));
    return prim;
}

static bool pick(fx *f, float ox, float oy, bool blocks, rill_pick_hit *hit) {
    rill_world_update_transforms(f->world);
    rill_pick_desc d = {
        .origin = {ox, oy, 0.0f}, .dir = {0.0f, 0.0f, -2.0f}, .opaque_blocks = blocks};
    memset(hit, 0, sizeof(*hit));
    return rill_channels_pick(f->world, f->as, &d, hit);
}

static void test_pick_through_hidden(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_entity wall = cube(&f, "Wall", 0.0f, 0.0f, -5.0f, 1.0f, 0.0f);
    rill_entity near_lm = cube(&f, "NM_Near", 0.0f, 0.0f, -10.0f, 1.0f, 0.0f);
    /* 2x scale, turned 45 degrees about Z: a diamond seen from the camera. */
    rill_entity far_lm = cube(&f, "NM_Far", 0.0f, 0.0f, -20.0f, 2.0f, 0.785398163f);
    assert_int_equal(rill_channels_get(f.world, wall), RILL_CHANNEL_CONTEXT);
    assert_true(rill_channels_get(f.world, near_lm) & RILL_CHANNEL_SELECTABLE);
    rill_pick_hit hit;

    /* The drawn wall hides the landmarks; without blocking the nearest landmark is hit. */
    assert_false(pick(&f, 0.0f, 0.0f, true, &hit));
    assert_true(pick(&f, 0.0f, 0.0f, false, &hit));
    assert_true(hit.entity == near_lm);
    assert_float_equal(hit.distance, 9.5f, 1e-4);
    assert_float_equal(hit.normal[2], 1.0f, 1e-4);
    assert_string_equal(rill_channels_pick_name(f.world, hit.entity), "NM_Near");

    /* Hidden context: the ray goes through the wall. */
    rill_channels_set_visible(f.world, RILL_CHANNEL_CONTEXT, false);
    assert_true(pick(&f, 0.0f, 0.0f, true, &hit));
    assert_true(hit.entity == near_lm);
    assert_float_equal(hit.point[2], -9.5f, 1e-4);
    /* A wireframe wall does not block either; a ghosted one does (it is drawn opaque). */
    rill_channels_set_mode(f.world, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_WIREFRAME, 1.0f);
    assert_true(pick(&f, 0.0f, 0.0f, true, &hit));
    rill_channels_set_mode(f.world, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_GHOST, 0.3f);
    assert_false(pick(&f, 0.0f, 0.0f, true, &hit));
    rill_channels_set_visible(f.world, RILL_CHANNEL_CONTEXT, false);

    /* The near landmark hidden by its own RenderMode: the far one, scaled and rotated, is hit on
     * its front face, 1 in front of its centre. */
    rill_render_mode_component rm = {RILL_RENDER_MODE_HIDDEN, 1.0f};
    assert_true(rill_world_add(f.world, near_lm, f.mc.render_mode, &rm));
    assert_true(pick(&f, 0.0f, 0.0f, true, &hit));
    assert_true(hit.entity == far_lm);
    assert_float_equal(hit.distance, 19.0f, 1e-4);
    assert_string_equal(rill_channels_pick_name(f.world, hit.entity), "NM_Far");
    /* Inside the diamond's box but outside the diamond (|x| + |y| > sqrt 2): a miss. */
    assert_false(pick(&f, 0.9f, 0.9f, true, &hit));
    assert_true(pick(&f, 0.6f, 0.6f, true, &hit));
    /* Beside everything: a miss. */
    assert_false(pick(&f, 5.0f, 0.0f, true, &hit));

    /* Other pickable channels: the wall is pickable when asked for context. */
    rill_channels_set_visible(f.world, RILL_CHANNEL_CONTEXT, true);
    rill_world_update_transforms(f.world);
    rill_pick_desc d = {.dir = {0, 0, -1}, .channels = RILL_CHANNEL_CONTEXT, .opaque_blocks = true};
    assert_true(rill_channels_pick(f.world, f.as, &d, &hit));
    assert_true(hit.entity == wall);
    /* No NM_ or explicit value above the wall: its nearest name. */
    assert_string_equal(rill_channels_pick_name(f.world, wall), "part");
    assert_true(
        rill_channels_set(f.world, rill_world_get_parent(f.world, wall), RILL_CHANNEL_CONTEXT));
    assert_string_equal(rill_channels_pick_name(f.world, wall), "Wall");
    d.max_distance = 4.0f; /* the wall starts at 4.5 */
    assert_false(rill_channels_pick(f.world, f.as, &d, &hit));
    d.max_distance = 0.0f;
    d.dir[2] = 0.0f; /* no direction: nothing */
    assert_false(rill_channels_pick(f.world, f.as, &d, &hit));
    fx_done(&f);
}

/* Many cubes on a grid, every one selectable: the hierarchy must find the nearest along rays in
 * several directions (checked against a brute-force answer from the grid's geometry). */
static void test_pick_grid(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_entity grid[20][20];
    for (int i = 0; i < 20; i++) {
        for (int j = 0; j < 20; j++) {
            char name[32];
            snprintf(name, sizeof name, "NM_%d_%d", i, j);
            grid[i][j] = cube(&f, name, (float)i * 3.0f, 0.0f, -(float)j * 3.0f - 5.0f, 1.0f, 0.0f);
        }
    }
    rill_pick_hit hit;
    for (int i = 0; i < 20; i++) {
        /* Straight down -Z over column i: the first cube of that column. */
        assert_true(pick(&f, (float)i * 3.0f + 0.2f, 0.1f, true, &hit));
        assert_true(hit.entity == grid[i][0]);
        assert_float_equal(hit.distance, 4.5f, 1e-4);
    }
    assert_false(pick(&f, 1.5f, 0.0f, true, &hit)); /* between two columns */
    /* Hide the first row's landmarks one by one: the next row is hit. */
    rill_render_mode_component rm = {RILL_RENDER_MODE_HIDDEN, 1.0f};
    assert_true(rill_world_add(f.world, grid[7][0], f.mc.render_mode, &rm));
    assert_true(pick(&f, 21.0f, 0.0f, true, &hit));
    assert_true(hit.entity == grid[7][1]);
    assert_float_equal(hit.distance, 7.5f, 1e-4);
    fx_done(&f);
}

/* >>every drawn kind */

/* A MeshInstance-like component (mesh, material) and the unit cube a mesh source returns for mesh
 * 1; any other mesh has no triangles. */
typedef struct test_mesh_instance {
    uint32_t mesh, material;
} test_mesh_instance;

typedef struct mesh_source {
    rill_component comp;
    float positions[8 * 3];
    uint32_t indices[36];
} mesh_source;

static void unit_cube(mesh_source *ms) {
    for (uint32_t v = 0; v < 8; v++) {
        for (uint32_t k = 0; k < 3; k++) {
            ms->positions[v * 3 + k] = (v >> k) & 1u ? 0.5f : -0.5f;
        }
    }
    /* Two triangles per face; vertex v has x = bit 0, y = bit 1, z = bit 2. */
    static const uint32_t quads[6][4] = {{0, 1, 3, 2}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 3, 7, 5}};
    for (uint32_t f = 0; f < 6; f++) {
        const uint32_t *q = quads[f];
        uint32_t tri[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        memcpy(&ms->indices[f * 6], tri, sizeof tri);
    }
}

static bool source_fn(const void *user, const rill_world *w, rill_entity e, rill_pick_mesh *out) {
    const mesh_source *ms = user;
    const test_mesh_instance *mi = rill_world_get(w, e, ms->comp);
    if (!mi || mi->mesh != 1) {
        return false;
    }
    *out = (rill_pick_mesh){.positions = ms->positions,
                            .vertex_count = 8,
                            .indices = ms->indices,
                            .index_count = 36,
                            .bounds_min = {-0.5f, -0.5f, -0.5f},
                            .bounds_max = {0.5f, 0.5f, 0.5f}};
    return true;
}

typedef struct terrain_fx {
    rill_jobs *jobs;
    rill_terrain_system *ts;
    rill_entity e;
} terrain_fx;

/* A generated 96 m terrain of 3 x 3 chunks (17 samples a side each) with its corner at
 * (-48, -10, -48), loaded and built. */
static void terrain_init(rill_world *w, terrain_fx *t) {
    rill_error err = {0};
    t->jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    t->ts =
        rill_terrain_system_create(&(rill_terrain_system_desc){.world = w, .jobs = t->jobs}, &err);
    assert_non_null(t->ts);
    rill_terrain c;
    rill_terrain_defaults(&c);
    c.chunks_x = c.chunks_z = 3;
    c.chunk_size = 32.0f;
    c.resolution = 17;
    c.height_scale = 24.0f;
    c.noise_scale = 40.0f;
    c.seed = 11;
    t->e = rill_world_spawn(w);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = tr.translation[2] = -48.0f;
    tr.translation[1] = -10.0f;
    assert_true(rill_world_set_transform(w, t->e, &tr));
    assert_non_null(rill_world_add(w, t->e, rill_terrain_register(w), &c));
    /* The renderer's terrain drawer does this: a terrain is renderable, so it gets channels. */
    assert_int_equal(rill_channels_watch(w, rill_terrain_register(w), &err), RILL_OK);
    rill_terrain_view edit = {0};
    rill_terrain_system_flush(t->ts, &edit);
    rill_terrain_info info;
    assert_true(rill_terrain_get_info(t->ts, t->e, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
}

static void terrain_done(terrain_fx *t) {
    rill_terrain_system_destroy(t->ts);
    rill_jobs_destroy(t->jobs);
}

/* Straight down at (x, z) from y = 40 with every source; *hit cleared first. */
static bool pick_down(fx *f, const mesh_source *ms, const terrain_fx *t, float x, float z,
                      bool blocks, rill_pick_hit *hit) {
    rill_world_update_transforms(f->world);
    rill_pick_desc d = {.origin = {x, 40.0f, z},
                        .dir = {0.0f, -1.0f, 0.0f},
                        .opaque_blocks = blocks,
                        .mesh_source = ms ? source_fn : NULL,
                        .mesh_source_user = ms,
                        .terrain = t ? t->ts : NULL};
    memset(hit, 0, sizeof(*hit));
    return rill_channels_pick(f->world, f->as, &d, hit);
}

static void test_pick_every_kind(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_error err = {0};
    mesh_source ms;
    unit_cube(&ms);
    rill_type_desc td = {.name = "MeshInstance", RILL_TYPE_LAYOUT(test_mesh_instance)};
    ms.comp = rill_world_register_component(f.world, &td);
    assert_int_equal(rill_channels_attach(f.world, &err), RILL_OK); /* now watches MeshInstance */
    terrain_fx t;
    terrain_init(f.world, &t);
    float g = 0.0f;
    assert_true(rill_terrain_height_at(t.ts, t.e, 3.0f, 2.0f, &g, NULL));

    /* Over (3, 2): a landmark cube 8 m above the ground, a box 4 m above it, the terrain. */
    rill_entity lm = cube(&f, "NM_Tower", 3.0f, g + 8.0f, 2.0f, 1.0f, 0.0f);
    rill_entity box = rill_world_spawn(f.world);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = 3.0f;
    tr.translation[1] = g + 4.0f;
    tr.translation[2] = 2.0f;
    tr.scale[0] = tr.scale[1] = tr.scale[2] = 2.0f;
    assert_true(rill_world_set_transform(f.world, box, &tr));
    test_mesh_instance mi = {1, 0};
    assert_non_null(rill_world_add(f.world, box, ms.comp, &mi));
    assert_int_equal(rill_channels_get(f.world, box), RILL_CHANNEL_CONTEXT);
    assert_int_equal(rill_channels_get(f.world, t.e), RILL_CHANNEL_CONTEXT);
    assert_true(rill_channels_set(f.world, box, RILL_CHANNEL_SELECTABLE));
    /* The terrain in an application channel too, so it can be hidden on its own. */
    const uint64_t ground = UINT64_C(1) << 40;
    assert_true(rill_channels_set(f.world, t.e, RILL_CHANNEL_SELECTABLE | ground));

    rill_pick_hit hit;
    assert_true(pick_down(&f, &ms, &t, 3.0f, 2.0f, true, &hit));
    assert_true(hit.entity == lm); /* the top face, 0.5 above its centre */
    assert_float_equal(hit.distance, 40.0f - (g + 8.5f), 1e-3);
    assert_float_equal(hit.normal[1], 1.0f, 1e-5);
    /* The landmark hidden: the box (2 m across) is next, then the terrain. */
    rill_render_mode_component rm = {RILL_RENDER_MODE_HIDDEN, 1.0f};
    assert_non_null(rill_world_add(f.world, lm, f.mc.render_mode, &rm));
    assert_true(pick_down(&f, &ms, &t, 3.0f, 2.0f, true, &hit));
    assert_true(hit.entity == box);
    assert_float_equal(hit.distance, 40.0f - (g + 5.0f), 1e-3);
    assert_float_equal(hit.point[1], g + 5.0f, 1e-3);
    /* Without a mesh source the box is not seen: the terrain, at its height there. */
    assert_true(pick_down(&f, NULL, &t, 3.0f, 2.0f, true, &hit));
    assert_true(hit.entity == t.e);
    assert_float_equal(hit.point[1], g, 1e-3);
    assert_true(hit.normal[1] > 0.0f);
    /* The terrain's channel hidden: nothing under the box's hidden-from-the-source column. */
    rill_channels_set_visible(f.world, ground, false);
    assert_false(pick_down(&f, NULL, &t, 3.0f, 2.0f, true, &hit));
    rill_channels_set_visible(f.world, ground, true);
    assert_false(pick_down(&f, NULL, NULL, 3.0f, 2.0f, true, &hit)); /* no terrain given */

    /* The box as context geometry: drawn, it hides the terrain; hidden or wireframe, the ray
     * passes it; ghosted, it is drawn opaque and blocks again. */
    assert_true(rill_channels_set(f.world, box, RILL_CHANNEL_CONTEXT));
    assert_false(pick_down(&f, &ms, &t, 3.0f, 2.0f, true, &hit));
    assert_true(pick_down(&f, &ms, &t, 3.0f, 2.0f, false, &hit));
    assert_true(hit.entity == t.e);
    static const rill_render_mode passing[2] = {RILL_RENDER_MODE_HIDDEN,
                                                RILL_RENDER_MODE_WIREFRAME};
    for (int i = 0; i < 2; i++) {
        rill_channels_set_mode(f.world, RILL_CHANNEL_CONTEXT, passing[i], 1.0f);
        assert_true(pick_down(&f, &ms, &t, 3.0f, 2.0f, true, &hit));
        assert_true(hit.entity == t.e);
    }
    rill_channels_set_mode(f.world, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_GHOST, 0.35f);
    assert_false(pick_down(&f, &ms, &t, 3.0f, 2.0f, true, &hit));
    rill_channels_set_mode(f.world, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_NORMAL, 1.0f);

    /* A terrain in front blocks too: a landmark under the ground is hidden by it unless the
     * terrain is wireframe (its lines leave the ray through). */
    assert_true(rill_channels_set(f.world, t.e, ground));
    rill_entity buried = cube(&f, "NM_Buried", -20.0f, 0.0f, -20.0f, 1.0f, 0.0f);
    float gb = 0.0f;
    assert_true(rill_terrain_height_at(t.ts, t.e, -20.0f, -20.0f, &gb, NULL));
    rill_transform *bt = rill_world_transform_mut(f.world, rill_world_get_parent(f.world, buried));
    bt->translation[1] = gb - 3.0f;
    assert_false(pick_down(&f, &ms, &t, -20.0f, -20.0f, true, &hit));
    rill_channels_set_mode(f.world, ground, RILL_RENDER_MODE_WIREFRAME, 1.0f);
    assert_true(pick_down(&f, &ms, &t, -20.0f, -20.0f, true, &hit));
    assert_true(hit.entity == buried);
    rill_channels_set_mode(f.world, ground, RILL_RENDER_MODE_GHOST, 0.5f);
    assert_false(pick_down(&f, &ms, &t, -20.0f, -20.0f, true, &hit));
    terrain_done(&t);
    fx_done(&f);
}

/* Height of the ray above the surface at t (false outside the terrain). */
static bool above(const rill_terrain_system *ts, const float o[3], const float d[3], float t,
                  float *out) {
    float h = 0.0f;
    if (!rill_terrain_height_at(ts, RILL_ENTITY_NULL, o[0] + d[0] * t, o[2] + d[2] * t, &h, NULL)) {
        return false;
    }
    *out = o[1] + d[1] * t - h;
    return true;
}

/* The first point where the ray crosses the surface (the sign of its height above it changes
 * between two samples over the terrain), marched in steps of `step` and refined by bisection;
 * INFINITY when it never does. */
static float march(const rill_terrain_system *ts, const float o[3], const float d[3], float step) {
    float prev_t = 0.0f, prev = 0.0f, cur = 0.0f;
    bool inside = false;
    for (float t = 0.0f; t < 400.0f; t += step) {
        if (!above(ts, o, d, t, &cur)) {
            inside = false;
            continue;
        }
        if (inside && (cur > 0.0f) != (prev > 0.0f)) {
            float lo = prev_t, hi = t;
            for (int i = 0; i < 40; i++) {
                float mid = 0.5f * (lo + hi), m = 0.0f;
                above(ts, o, d, mid, &m);
                if ((m > 0.0f) == (prev > 0.0f)) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return hi;
        }
        inside = true;
        prev_t = t;
        prev = cur;
    }
    return INFINITY;
}

/* rill_terrain_raycast against the brute-force march, over rays from many places in many
 * directions (shallow ones that cross many cells included), and its bounds. */
static void test_terrain_raycast(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    terrain_fx t;
    terrain_init(w, &t);
    uint32_t hits = 0, rays = 0;
    for (int i = 0; i < 12; i++) {
        for (int j = 0; j < 12; j++) {
            float yaw = (float)i * 0.5236f, pitch = -0.08f - (float)j * 0.12f;
            float o[3] = {-60.0f + (float)i * 9.0f, 12.0f + (float)(j % 4),
                          50.0f - (float)j * 8.0f};
            float d[3] = {cosf(pitch) * cosf(yaw), sinf(pitch), cosf(pitch) * sinf(yaw)};
            float want = march(t.ts, o, d, 0.01f), got = 0.0f, n[3];
            bool hit = rill_terrain_raycast(t.ts, t.e, o, d, 0.0f, false, &got, n);
            rays++;
            if (!isfinite(want)) {
                assert_false(hit);
                continue;
            }
            if (!hit) {
                fail_msg("ray %d %d: o %f %f %f d %f %f %f want %f", i, j, o[0], o[1], o[2], d[0],
                         d[1], d[2], want);
            }
            hits++;
            assert_float_equal(got, want, 0.02);
            float h = 0.0f, hn[3];
            assert_true(
                rill_terrain_height_at(t.ts, t.e, o[0] + d[0] * got, o[2] + d[2] * got, &h, hn));
            assert_float_equal(o[1] + d[1] * got, h, 0.01);
            assert_float_equal(n[1], hn[1], 0.05); /* the same triangle's normal (or its twin) */
            /* Not within a shorter distance; a longer dir gives the same distance. */
            assert_false(rill_terrain_raycast(t.ts, t.e, o, d, got - 0.05f, false, &got, NULL));
            float d2[3] = {d[0] * 7.0f, d[1] * 7.0f, d[2] * 7.0f}, got2 = 0.0f;
            assert_true(
                rill_terrain_raycast(t.ts, RILL_ENTITY_NULL, o, d2, 0.0f, false, &got2, NULL));
            assert_float_equal(got2, want, 0.02);
        }
    }
    assert_true(hits > rays / 2 && hits < rays); /* both outcomes were exercised */
    /* From below, straight up: the underside is hit; zero and non-finite rays are not. */
    float h = 0.0f, got = 0.0f;
    assert_true(rill_terrain_height_at(t.ts, t.e, 5.0f, 5.0f, &h, NULL));
    assert_true(rill_terrain_raycast(t.ts, t.e, (float[3]){5.0f, h - 30.0f, 5.0f},
                                     (float[3]){0, 1, 0}, 0.0f, false, &got, NULL));
    assert_float_equal(got, 30.0f, 1e-3);
    assert_false(rill_terrain_raycast(t.ts, t.e, (float[3]){5.0f, 0.0f, 5.0f}, (float[3]){0, 0, 0},
                                      0.0f, false, &got, NULL));
    assert_false(rill_terrain_raycast(t.ts, t.e, (float[3]){NAN, 0.0f, 5.0f}, (float[3]){0, -1, 0},
                                      0.0f, false, &got, NULL));
    assert_false(rill_terrain_raycast(t.ts, t.e + 1u, (float[3]){5.0f, 40.0f, 5.0f},
                                      (float[3]){0, -1, 0}, 0.0f, false, &got, NULL));

    /* Streaming from the (-48, -48) corner: the far corner chunk (2, 2) goes out. Its cells
     * still answer a plain cast, not a resident_only one, and picking (what is drawn) passes over
     * them. */
    rill_terrain *tc = rill_world_get(w, t.e, rill_terrain_register(w));
    tc->stream = true;
    tc->stream_radius = 32.0f;
    rill_terrain_view corner = {
        .streaming = true, .has_camera = true, .camera_position = {-48.0f, 0.0f, -48.0f}};
    rill_terrain_system_update(t.ts, &corner);
    assert_int_equal(rill_terrain_chunk_get_state(t.ts, t.e, 2, 2), RILL_TERRAIN_CHUNK_UNLOADED);
    assert_int_equal(rill_terrain_chunk_get_state(t.ts, t.e, 0, 0), RILL_TERRAIN_CHUNK_RESIDENT);
    float down[3] = {0, -1, 0}, far_o[3] = {32.0f, 40.0f, 32.0f},
          near_o[3] = {-32.0f, 40.0f, -32.0f};
    assert_true(rill_terrain_raycast(t.ts, t.e, far_o, down, 0.0f, false, &got, NULL));
    assert_false(rill_terrain_raycast(t.ts, t.e, far_o, down, 0.0f, true, &got, NULL));
    assert_true(rill_terrain_raycast(t.ts, t.e, near_o, down, 0.0f, true, &got, NULL));
    rill_pick_desc pd = {.dir = {0, -1, 0}, .channels = RILL_CHANNEL_CONTEXT, .terrain = t.ts};
    rill_pick_hit hit;
    memcpy(pd.origin, far_o, sizeof far_o);
    assert_false(rill_channels_pick(w, NULL, &pd, &hit));
    memcpy(pd.origin, near_o, sizeof near_o);
    assert_true(rill_channels_pick(w, NULL, &pd, &hit));
    assert_true(hit.entity == t.e);
    terrain_done(&t);
    rill_world_destroy(w);
}

static void test_screen_ray(void **state) {
    (void)state;
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 3, 4, 1}, o[3], d[3];
    assert_true(rill_channels_screen_ray(m, false, 1.0f, 0, 50, 50, 100, 100, o, d));
    assert_float_equal(o[0], 2.0f, 1e-6);
    assert_float_equal(d[2], -1.0f, 1e-6);
    /* The top edge's middle is fov/2 above the axis. */
    assert_true(rill_channels_screen_ray(m, false, 1.0f, 0, 50, 0, 100, 100, o, d));
    assert_float_equal(atan2f(d[1], -d[2]), 0.5f, 1e-5);
    /* The right edge of a 2:1 view: horizontal half angle atan(2 tan(fov/2)). */
    assert_true(rill_channels_screen_ray(m, false, 1.0f, 0, 200, 50, 200, 100, o, d));
    assert_float_equal(atan2f(d[0], -d[2]), atanf(2.0f * tanf(0.5f)), 1e-5);
    /* Orthographic: parallel rays from points on the view plane. */
    assert_true(rill_channels_screen_ray(m, true, 0, 10.0f, 0, 0, 100, 100, o, d));
    assert_float_equal(o[0], 2.0f - 5.0f, 1e-5);
    assert_float_equal(o[1], 3.0f + 5.0f, 1e-5);
    assert_float_equal(d[2], -1.0f, 1e-6);
    assert_false(rill_channels_screen_ray(m, false, 1.0f, 0, 0, 0, 0, 100, o, d));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_through_hidden), cmocka_unit_test(test_pick_grid),
        cmocka_unit_test(test_pick_every_kind),     cmocka_unit_test(test_terrain_raycast),
        cmocka_unit_test(test_screen_ray),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
