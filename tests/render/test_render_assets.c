/* test_render_assets.c: how long rill_render_assets keeps an upload and what its load/unload
 * cycles leave, with the texture streaming fixture (texstream_fixture.h) on the null GPU backend
 * (no pixels are read, so no Vulkan driver is needed; test_texture_stream.c checks the users
 * against the picture):
 *   - an upload lives while any ModelMesh names it, drawn or not (a parked LOD level is never
 *     extracted), and goes release_delay updates after the last name or lookup goes; a ModelMesh
 *     rewritten to another asset moves the name;
 *   - load/unload cycles (200, or RILL_ASSET_CYCLES: the sanitizer builds' variant runs 1000):
 *     every upload is released once, the users and the render heap come back to their start. */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <stdlib.h>
#include <string.h>

#include "texstream_fixture.h"

static rill_render_assets_stats asset_stats(const fx *f) {
    rill_render_assets_stats s;
    rill_render_assets_get_stats(f->ra, &s);
    return s;
}

static void updates(fx *f, int n) {
    for (int i = 0; i < n; i++) {
        rill_render_assets_update(f->ra);
    }
}

/* Writes asset into every ModelMesh under root (rill_world_add: a replace). */
static void rename_meshes(fx *f, rill_entity root, rill_asset asset) {
    const rill_model_mesh *mm = rill_world_get(f->w, root, f->rc.model_mesh);
    if (mm) {
        rill_model_mesh next = *mm;
        next.asset = asset.id;
        assert_non_null(rill_world_add(f->w, root, f->rc.model_mesh, &next));
    }
    for (rill_entity c = rill_world_first_child(f->w, root); c;
         c = rill_world_next_sibling(f->w, c)) {
        rename_meshes(f, c, asset);
    }
}

static void test_upload_lives_while_named(void **state) {
    (void)state;
    fx f;
    fx_open_on(&f, 0, NULL, RILL_RENDER_BACKEND_NULL);
    place_camera(&f, 200.0f);
    frame(&f, false);
    assert_int_equal(asset_stats(&f).models, 1);
    rill_entity h2;
    rill_asset a2 = spawn_model(&f, "models/q.glb", &h2); /* the same asset again */

    /* Parked levels are never extracted: only their names keep the upload. */
    fx_set_shown(&f, f.holder, false);
    fx_set_shown(&f, h2, false);
    updates(&f, 10);
    assert_int_equal(asset_stats(&f).models, 1);
    assert_true(rill_world_despawn_recursive(f.w, f.holder) > 0);
    updates(&f, 10);
    assert_int_equal(asset_stats(&f).models, 1); /* h2 still names it */

    /* The last name goes: the upload goes after the release delay (2 updates), not before. */
    assert_true(rill_world_despawn_recursive(f.w, h2) > 0);
    updates(&f, 2);
    assert_int_equal(asset_stats(&f).models, 1);
    updates(&f, 1);
    rill_render_assets_stats s = asset_stats(&f);
    assert_int_equal(s.models, 0);
    assert_int_equal(s.unloads, 1);
    assert_int_equal(s.uploads, 1);

    /* A tree rewritten to the LOD file: its upload comes without a frame drawn, q's goes. */
    rill_error err = {0};
    rill_asset lod = rill_asset_load_sync(f.as, "models/q_lod1.glb", &err);
    assert_true(lod.id != 0);
    rill_entity h3;
    rill_asset a3 = spawn_model(&f, "models/q.glb", &h3);
    updates(&f, 1);
    assert_int_equal(asset_stats(&f).uploads, 2);
    rename_meshes(&f, h3, lod);
    updates(&f, 4);
    s = asset_stats(&f);
    assert_int_equal(s.uploads, 3);
    assert_int_equal(s.unloads, 2);
    assert_int_equal(s.models, 1);

    /* Looked up through the API only: kept while looked up, then released. */
    for (int i = 0; i < 5; i++) {
        assert_non_null(rill_render_assets_model(f.ra, a3));
        updates(&f, 1);
    }
    assert_int_equal(asset_stats(&f).models, 2);
    updates(&f, 3);
    s = asset_stats(&f);
    assert_int_equal(s.models, 1);
    assert_int_equal(s.unloads, 3);
    rill_asset_release(f.as, lod);
    rill_asset_release(f.as, a2);
    rill_asset_release(f.as, a3);
    fx_close(&f);
}

static int cycles = 200;

/* The LOD file loaded and unloaded `cycles` times beside a model that stays: odd cycles name it
 * again within the release delay (kept), even ones wait until it is released. */
static void test_load_unload_cycles(void **state) {
    (void)state;
    size_t render0 = rill_mem_live_bytes(RILL_MEM_RENDER);
    fx f;
    fx_open_on(&f, 0, NULL, RILL_RENDER_BACKEND_NULL);
    int frames = 0;
    place_camera(&f, 200.0f);
    settle(&f, false, &frames);
    size_t render1 = rill_mem_live_bytes(RILL_MEM_RENDER);
    for (int c = 0; c < cycles; c++) {
        rill_entity h;
        rill_asset a = spawn_model(&f, "models/q_lod1.glb", &h);
        if (c % 3) {
            frame(&f, false); /* every third goes in the frame it came */
        }
        assert_true(rill_world_despawn_recursive(f.w, h) > 0);
        rill_asset_release(f.as, a);
        for (int i = 0; i < (c % 2 ? 1 : 4); i++) {
            frame(&f, false);
        }
    }
    settle(&f, false, &frames);
    rill_renderer_wait_idle(f.r, NULL);
    frame(&f, false);
    rill_render_assets_stats s = asset_stats(&f);
    print_message("%d cycles: %llu uploads, %llu unloads\n", cycles, (unsigned long long)s.uploads,
                  (unsigned long long)s.unloads);
    assert_int_equal(s.models, 1);
    assert_int_equal(s.uploads, s.unloads + 1);     /* every LOD upload released once */
    assert_true(s.unloads >= (uint64_t)cycles / 3); /* about one a pair of cycles */
    rill_texstream_stats d = fx_decisions(&f);
    assert_int_equal(d.users, 1);
    assert_int_equal(d.materials, 1);
    assert_int_equal(rill_render_assets_texture_streaming_pending(f.ra), 0);
    /* The cache's records and the streamer's arrays may keep their high-water capacity. */
    assert_true(rill_mem_live_bytes(RILL_MEM_RENDER) <= render1 + 64u * 1024u);
    fx_close(&f);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_RENDER), render0);
}

int main(void) {
    const char *env = getenv("RILL_ASSET_CYCLES");
    if (env) {
        cycles = atoi(env) > 0 ? atoi(env) : cycles;
        const struct CMUnitTest only[] = {cmocka_unit_test(test_load_unload_cycles)};
        return cmocka_run_group_tests(only, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upload_lives_while_named),
        cmocka_unit_test(test_load_unload_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
