/* test_pick.c: picking (rill_channels_pick, rill/channels.h). Cubes of the generated model stand
 * in a row in front of a camera: a context wall first, then two NM_ (selectable) landmarks. The
 * ray must stop at the wall while it is drawn, pass through it once its channel is hidden (or drawn
 * as wireframe), skip an entity hidden by its own RenderMode, hit a scaled and rotated entity
 * where its triangles are, report the name of the named ancestor, and miss beside the cubes. */
#include "rill_test.h"

#include "model_gen.h"
#include "rill/asset.h"
#include "rill/channels.h"
#include "rill/scene.h"

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
        cmocka_unit_test(test_pick_through_hidden),
        cmocka_unit_test(test_pick_grid),
        cmocka_unit_test(test_screen_ray),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
