/* batch_fixture.h: the lavapipe fixture of the static batching tests (test_batching.c,
 * test_batch_rest.c, test_batch_slices.c): the generated model (model_gen.h) written as m.glb to a
 * temp folder of the test's own, mounted in a VFS and loaded by an asset server, a renderer under
 * validation, a world with the render components and rill_render_assets drawing it, and an active
 * camera (with, where asked, a blue clear colour and a sun). Each test keeps its own struct holding
 * a batch_fx and what it adds (movers, boxes). Header-only (static functions); include after
 * cmocka.h. */
#ifndef RILL_TEST_BATCH_FIXTURE_H
#define RILL_TEST_BATCH_FIXTURE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_gen.h"
#include "render_test.h"
#include "rill/render.h"
#include "rill/scene/model.h"

typedef struct batch_fx {
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_asset asset; /* m.glb: the model_gen model */
    rill_renderer *r;
    rill_world *w;
    rill_render_components rc;
    rill_render_assets *ra;
    rill_render_extract_buf xb; /* the tests' extracts fill it and snap; batch_fx_close frees it */
    rill_render_snapshot snap;
} batch_fx;

/* Where the camera stands and what it sees besides the models. */
typedef struct batch_fx_camera {
    float pos[3];
    float pitch; /* radians, looking down (a turn of -pitch about +X) */
    float far_plane;
    float clear_blue; /* the clear colour's blue (red and green are 0) */
    bool sun;         /* a white directional light (illuminance 3, shadows) */
} batch_fx_camera;

/* Spawns cam's camera (fov_y 0.9, near 0.1, the whole viewport) and, with cam->sun, the sun. */
static inline void batch_fx_camera_spawn(batch_fx *f, const batch_fx_camera *cam) {
    rill_entity e = rill_world_spawn(f->w);
    rill_transform ct = rill_transform_identity();
    ct.translation[0] = cam->pos[0];
    ct.translation[1] = cam->pos[1];
    ct.translation[2] = cam->pos[2];
    ct.rotation[0] = sinf(-0.5f * cam->pitch);
    ct.rotation[3] = cosf(-0.5f * cam->pitch);
    rill_world_set_transform(f->w, e, &ct);
    rill_camera c = {
        .active = true, .fov_y = 0.9f, .near_plane = 0.1f, .far_plane = cam->far_plane};
    c.viewport[2] = c.viewport[3] = 1.0f;
    c.clear_color[2] = cam->clear_blue;
    assert_non_null(rill_world_add(f->w, e, rill_world_builtin(f->w)->camera, &c));
    if (!cam->sun) {
        return;
    }
    rill_entity sun = rill_world_spawn(f->w);
    rill_transform st = rill_transform_identity();
    st.rotation[0] = -0.45f, st.rotation[1] = 0.38f, st.rotation[2] = 0.21f, st.rotation[3] = 0.77f;
    rill_world_set_transform(f->w, sun, &st);
    rill_directional_light dl = {.color = {1, 1, 1, 1}, .illuminance = 3.0f, .shadows = true};
    assert_non_null(rill_world_add(f->w, sun, f->rc.directional_light, &dl));
}

/* Opens the fixture into *f (zeroed first): m.glb written to $RILL_TEST_TMP/<dir_name> (or
 * /tmp/rill_test_<dir_name>/<dir_name> without it) and loaded, a width x height renderer at LOW
 * quality (batch_fx_open_quality: at `quality`) on `backend` (a Vulkan test without a driver fails
 * here), the world, its render assets, then cam's camera. */
static inline void batch_fx_open_quality(batch_fx *f, const char *dir_name, uint32_t width,
                                         uint32_t height, rill_render_backend backend,
                                         const batch_fx_camera *cam, rill_render_quality quality) {
    memset(f, 0, sizeof(*f));
    rill_error err = {0};
    uint8_t *glb = NULL;
    size_t n = 0;
    assert_int_equal(model_gen_glb(&glb, &n, &err), RILL_OK);
    const char *tmp = getenv("RILL_TEST_TMP");
    char base[512], dir[1024], path[1200];
    snprintf(base, sizeof base, "/tmp/rill_test_%s", dir_name);
    snprintf(dir, sizeof dir, "%s/%s", tmp ? tmp : base, dir_name);
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
    f->r = render_test_renderer((rill_renderer_desc){
        .width = width, .height = height, .quality = quality, .backend = backend});
    assert_non_null(f->r);
    f->w = rill_world_create(NULL, NULL);
    assert_int_equal(rill_render_register_components(f->w, &f->rc, &err), RILL_OK);
    f->ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = f->r, .assets = f->as, .world = f->w}, &err);
    assert_non_null(f->ra);
    batch_fx_camera_spawn(f, cam);
}

static inline void batch_fx_open(batch_fx *f, const char *dir_name, uint32_t width, uint32_t height,
                                 rill_render_backend backend, const batch_fx_camera *cam) {
    batch_fx_open_quality(f, dir_name, width, height, backend, cam, RILL_RENDER_QUALITY_LOW);
}

/* Stands e on the ground at (x, z); `turned`: turned about +Y by 0.1 x radians (batches must turn
 * normals too). */
static inline void batch_fx_place(batch_fx *f, rill_entity e, float x, float z, bool turned) {
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    t.translation[1] = 0.5f;
    t.translation[2] = z;
    if (turned) {
        t.rotation[1] = sinf(0.1f * x);
        t.rotation[3] = cosf(0.1f * x);
    }
    assert_true(rill_world_set_transform(f->w, e, &t));
}

/* A new entity drawing primitive `prim` of mesh `mesh` of m.glb, placed as batch_fx_place does. */
static inline rill_entity batch_fx_box(batch_fx *f, uint32_t mesh, uint32_t prim, float x, float z,
                                       bool turned) {
    rill_entity e = rill_world_spawn(f->w);
    batch_fx_place(f, e, x, z, turned);
    rill_model_mesh mm = {f->asset.id, mesh, prim};
    assert_non_null(rill_world_add(f->w, e, f->rc.model_mesh, &mm));
    return e;
}

/* Fails the test unless the renderer has seen no validation message so far. */
static inline void batch_fx_assert_no_validation(const batch_fx *f) {
    rill_render_stats rs;
    rill_renderer_stats(f->r, &rs);
    assert_int_equal(rs.validation_messages, 0);
}

/* Frees what batch_fx_open made and the extract buffer, in reverse order (the render assets before
 * the world and renderer they draw from, the asset before its server). */
static inline void batch_fx_close(batch_fx *f) {
    rill_render_extract_buf_free(&f->xb);
    rill_render_assets_destroy(f->ra);
    rill_world_destroy(f->w);
    rill_renderer_destroy(f->r);
    rill_asset_release(f->as, f->asset);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
}

#endif
