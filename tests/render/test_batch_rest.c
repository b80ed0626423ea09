/* test_batch_rest.c: when static batching takes back an entity that stopped moving, counted in
 * extracts (the batcher's frames), on lavapipe. Boxes of the generated model and a mover stand in
 * one 8 m cell; the mover moves for a few frames, then the world updates without moving it: it
 * stays out of the batches for static_frames extracts and is taken back right after, its cell
 * rebuilt once, with no app frame in between (what bench_extract saw on the H200, where the demo's
 * falling cars stopped in a frame too short for a physics step). While the world's last update did
 * move it, no number of extracts batches it. A rebuilt cell draws its members one by one until a
 * frame is rendered (its new batch uploaded), then as one batch again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_gen.h"
#include "rill/render.h"
#include "rill/scene/model.h"

#define BATCH_BIT (UINT64_C(1) << 63)
#define STATIC_FRAMES 5u
#define BOXES 4u

typedef struct fx {
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_asset asset;
    rill_renderer *r;
    rill_world *w;
    rill_render_components rc;
    rill_render_assets *ra;
    rill_render_extract_buf xb;
    rill_render_snapshot snap;
    rill_entity mover;
} fx;

static void place(fx *f, rill_entity e, float x, float z) {
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    t.translation[1] = 0.5f;
    t.translation[2] = z;
    assert_true(rill_world_set_transform(f->w, e, &t));
}

static rill_entity box(fx *f, float x, float z) {
    rill_entity e = rill_world_spawn(f->w);
    place(f, e, x, z);
    rill_model_mesh mm = {f->asset.id, 0, 0};
    assert_non_null(rill_world_add(f->w, e, f->rc.model_mesh, &mm));
    return e;
}

static void camera(fx *f) {
    rill_entity cam = rill_world_spawn(f->w);
    rill_transform ct = rill_transform_identity();
    ct.translation[0] = 4.0f;
    ct.translation[1] = 6.0f;
    ct.translation[2] = 12.0f;
    ct.rotation[0] = sinf(-0.5f * 0.45f);
    ct.rotation[3] = cosf(-0.5f * 0.45f);
    rill_world_set_transform(f->w, cam, &ct);
    rill_camera c = {.active = true, .fov_y = 0.9f, .near_plane = 0.1f, .far_plane = 100.0f};
    c.viewport[2] = c.viewport[3] = 1.0f;
    assert_non_null(rill_world_add(f->w, cam, rill_world_builtin(f->w)->camera, &c));
}

static void fx_init(fx *f) {
    memset(f, 0, sizeof(*f));
    rill_error err = {0};
    uint8_t *glb = NULL;
    size_t n = 0;
    assert_int_equal(model_gen_glb(&glb, &n, &err), RILL_OK);
    const char *tmp = getenv("RILL_TEST_TMP");
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/batch_rest", tmp ? tmp : "/tmp/rill_test_batch_rest");
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    snprintf(path, sizeof path, "%s/m.glb", dir);
    assert_int_equal(rill_file_write_all(path, glb, n, NULL), RILL_OK);
    rill_free(glb);
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, dir, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(f->as, &err), RILL_OK);
    f->asset = rill_asset_load_sync(f->as, "m.glb", &err);
    assert_int_equal(rill_asset_get_state(f->as, f->asset), RILL_ASSET_STATE_LOADED);
    f->r = render_test_renderer(
        (rill_renderer_desc){.width = 96, .height = 64, .quality = RILL_RENDER_QUALITY_LOW});
    assert_non_null(f->r);
    f->w = rill_world_create(NULL, NULL);
    assert_int_equal(rill_render_register_components(f->w, &f->rc, &err), RILL_OK);
    f->ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = f->r, .assets = f->as, .world = f->w}, &err);
    assert_non_null(f->ra);
    camera(f);
    for (uint32_t i = 0; i < BOXES; i++)
        box(f, 1.0f + 1.5f * (float)i, 2.0f);
    f->mover = box(f, 1.0f, 5.0f);
}

static void fx_done(fx *f) {
    rill_render_stats rs;
    rill_renderer_stats(f->r, &rs);
    assert_int_equal(rs.validation_messages, 0);
    rill_render_extract_buf_free(&f->xb);
    rill_render_assets_destroy(f->ra);
    rill_world_destroy(f->w);
    rill_renderer_destroy(f->r);
    rill_asset_release(f->as, f->asset);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
}

static void extract(fx *f) {
    rill_error err = {0};
    assert_int_equal(rill_render_extract(f->w, &f->rc, &f->xb, &f->snap, &err), RILL_OK);
}

/* An app frame: the mover moves to x (or, x < 0, stays), transforms update, extract, render. */
static void frame(fx *f, float x) {
    rill_error err = {0};
    if (x >= 0.0f)
        place(f, f->mover, x, 5.0f);
    rill_world_update_transforms(f->w);
    extract(f);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
}

static bool drawn_alone(const fx *f, rill_entity e) {
    for (uint32_t i = 0; i < f->snap.instance_count; i++)
        if (f->snap.instances[i].id == e)
            return true;
    return false;
}

static uint32_t batches_drawn(const fx *f) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->snap.instance_count; i++)
        n += (f->snap.instances[i].id & BATCH_BIT) != 0;
    return n;
}

static rill_render_batching_stats stats(const fx *f) {
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(f->ra, &bs);
    return bs;
}

/* Batching on while the mover moves: the boxes are one batch, the mover an instance. */
static void start_moving(fx *f) {
    rill_render_assets_set_batching(f->ra, &(rill_render_batching){.enabled = true,
                                                                   .cell_size = 8.0f,
                                                                   .static_frames = STATIC_FRAMES});
    for (int i = 0; i < 6; i++)
        frame(f, 1.0f + 0.1f * (float)i);
    assert_int_equal(batches_drawn(f), 1);
    assert_true(drawn_alone(f, f->mover));
    assert_int_equal(stats(f).batched_entities, BOXES);
}

static void test_rest_counted_in_extracts(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    start_moving(&f);
    uint64_t built = stats(&f).cells_built;
    /* The world's last update moved the mover: however many extracts run, it moved last frame. */
    for (uint32_t i = 0; i < 4 * STATIC_FRAMES; i++) {
        extract(&f);
        assert_true(drawn_alone(&f, f.mover));
    }
    assert_int_equal(stats(&f).cells_built, built);
    /* An update that moves nothing (an app frame without a physics step): static_frames extracts
     * later, and not before, the mover is taken back and its cell rebuilt, without app frames. */
    frame(&f, -1.0f);
    uint32_t at = 0;
    for (uint32_t i = 1; i <= 3 * STATIC_FRAMES && !at; i++) {
        extract(&f);
        at = stats(&f).cells_built > built ? i : 0;
    }
    print_message("the mover's cell was rebuilt %u extracts after the last update\n", at);
    assert_true(at > STATIC_FRAMES && at <= STATIC_FRAMES + 3);
    rill_render_batching_stats bs = stats(&f);
    assert_int_equal(bs.cells_built, built + 1);
    assert_int_equal(bs.batched_entities, BOXES + 1);
    /* Until a frame uploads the new batch, its members draw one by one (the mover too), and the
     * output stays so. */
    for (int i = 0; i < 3; i++) {
        extract(&f);
        assert_int_equal(batches_drawn(&f), 0);
        assert_int_equal(f.snap.instance_count, BOXES + 1);
        assert_true(drawn_alone(&f, f.mover));
    }
    /* Rendered once, the cell draws its batch, the mover in it. */
    frame(&f, -1.0f);
    frame(&f, -1.0f);
    assert_int_equal(batches_drawn(&f), 1);
    assert_int_equal(f.snap.instance_count, 1);
    assert_false(drawn_alone(&f, f.mover));
    assert_int_equal(stats(&f).cells_built, built + 1);
    fx_done(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_counted_in_extracts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
