/* Voxel-cone GI (SdfLow) sees what the user's project draws besides plain meshes, on lavapipe
 * through the world, extract and renderer: a terrain's chunks (gpu_only meshes, their CPU copy
 * dropped after upload) fill the clipmap; static batches (one instance drawing ranges of a merged
 * mesh) fill it with exactly the voxels their members fill unbatched, and the same again when
 * batching is switched off (the batch's voxels leave, the members' own come back). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include "batch_fixture.h"
#include "rill/render.h"
#include "rill/render/gi.h"
#include "rill/render/terrain.h"
#include "rill/terrain.h"
#include "rill_test.h"

#define W 64
#define H 64
#define BATCH_BIT (UINT64_C(1) << 63)

static rill_render_global_illumination gi;
static rill_render_routed_settings routed;

/* Routes SdfLow onto the snapshot's view (what a GlobalIllumination entity would). */
static void with_sdf_low(rill_render_snapshot *snap) {
    gi = rill_render_global_illumination_query_defaults();
    gi.quality = RILL_GI_SDF_LOW;
    routed = (rill_render_routed_settings){"GlobalIllumination", &gi, sizeof(gi), 0};
    snap->view.settings = &routed;
    snap->view.settings_count = 1;
}

static rill_render_stats stats_of(rill_renderer *r) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    return st;
}

/* >>terrain ----------------------------------------------------------------------------------- */

static void test_terrain_voxelized(void **state) {
    (void)state;
    rill_error err = {0};
    rill_renderer *r = render_test_renderer((rill_renderer_desc){
        .width = W, .height = H, .shadow_map_size = 256, .quality = RILL_RENDER_QUALITY_HIGH});
    assert_non_null(r);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    rill_terrain_system *ts =
        rill_terrain_system_create(&(rill_terrain_system_desc){.world = w, .jobs = jobs}, &err);
    assert_non_null(ts);
    rill_render_terrain *rt = rill_render_terrain_create(
        &(rill_render_terrain_desc){.renderer = r, .world = w, .terrain = ts}, &err);
    assert_non_null(rt);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);

    /* A gently rolling 32 m terrain of 2 x 2 chunks centred on the origin, no layer files. */
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.chunks_x = t.chunks_z = 2;
    t.chunk_size = 16.0f;
    t.resolution = 17;
    t.height_scale = 2.0f;
    t.height_offset = -1.0f;
    t.seed = 3;
    rill_entity te = rill_world_spawn(w);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = tr.translation[2] = -16.0f;
    rill_world_set_transform(w, te, &tr);
    rill_world_add(w, te, rill_terrain_register(w), &t);
    rill_terrain_view edit = {0};
    rill_terrain_system_flush(ts, &edit);
    rill_entity sun = rill_world_spawn(w);
    rill_world_add(w, sun, rc.directional_light, NULL);
    render_test_entity_look_at(w, sun, (float[3]){0, 0, 0}, (float[3]){0.5f, -1.0f, 0.35f});
    rill_entity cam = rill_world_spawn(w);
    rill_world_add(w, cam, rill_world_builtin(w)->camera, NULL);
    render_test_entity_look_at(w, cam, (float[3]){0, 6, 10}, (float[3]){0, 0, 0});
    rill_world_update_transforms(w);

    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    for (int i = 0; i < 8; i++) {
        assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
        assert_int_equal(snap.instance_count, 4); /* the chunks alone */
        with_sdf_low(&snap);
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
    rill_render_stats st = stats_of(r);
    print_message("terrain alone, SdfLow: %u voxels, %u cascades resident\n", st.gi_voxels_filled,
                  st.gi_cascades_resident);
    /* 32 m x 32 m of ground: at least one layer of the finest cascade's 0.5 m voxels over most of
     * it (the chunks kept no CPU copy for picking: the voxels come from their voxel copies) */
    assert_true(st.gi_voxels_filled > 2000);
    assert_int_equal(st.validation_messages, 0);

    rill_render_extract_buf_free(&xb);
    rill_render_terrain_destroy(rt);
    rill_terrain_system_destroy(ts);
    rill_world_destroy(w);
    rill_jobs_destroy(jobs);
    render_test_destroy_clean(r, true);
}

/* >>static batches ---------------------------------------------------------------------------- */

static void frame(batch_fx *f) {
    rill_error err = {0};
    rill_world_update_transforms(f->w);
    assert_int_equal(rill_render_extract(f->w, &f->rc, &f->xb, &f->snap, &err), RILL_OK);
    with_sdf_low(&f->snap);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
}

/* The snapshot's batch instances (ranged) and plain ones. */
static void count(const batch_fx *f, uint32_t *batches, uint32_t *plain) {
    *batches = *plain = 0;
    for (uint32_t i = 0; i < f->snap.instance_count; i++) {
        const rill_render_instance *in = &f->snap.instances[i];
        if ((in->id & BATCH_BIT) && in->range_count) {
            (*batches)++;
        } else {
            (*plain)++;
        }
    }
}

static void test_static_batch_voxelized(void **state) {
    (void)state;
    batch_fx f;
    batch_fx_open_quality(
        &f, "gi_voxel_batch", W, H, RILL_RENDER_BACKEND_DEFAULT,
        &(batch_fx_camera){
            .pos = {4.0f, 5.0f, 12.0f}, .pitch = 0.4f, .far_plane = 100, .sun = true},
        RILL_RENDER_QUALITY_HIGH);
    /* eight cubes in the 8 m cell (0,0,0), turned (the batch keeps each member's rotation) */
    for (int i = 0; i < 8; i++) {
        batch_fx_box(&f, 0, 0, 0.8f + 0.9f * (float)i, 1.0f + (float)(i % 3) * 2.0f, true);
    }
    for (int i = 0; i < 8; i++) {
        frame(&f);
    }
    uint32_t batches, plain;
    count(&f, &batches, &plain);
    assert_int_equal(batches, 0);
    uint32_t unbatched = stats_of(f.r).gi_voxels_filled;

    rill_render_assets_set_batching(f.ra, &(rill_render_batching){.enabled = true, .cell_size = 8});
    for (int i = 0; i < 20 && (count(&f, &batches, &plain), batches == 0 || plain != 0); i++) {
        frame(&f);
    }
    assert_int_equal(batches, 1);
    assert_int_equal(plain, 0); /* every cube is a range of the batch */
    for (int i = 0; i < 8; i++) {
        frame(&f);
    }
    uint32_t batched = stats_of(f.r).gi_voxels_filled;
    print_message("8 cubes, SdfLow: %u voxels unbatched, %u as one static batch\n", unbatched,
                  batched);
    assert_true(unbatched > 100);
    assert_int_equal(batched, unbatched);

    /* batching off: the members draw alone again, the batch's voxels go and theirs come back */
    rill_render_assets_set_batching(f.ra, &(rill_render_batching){.enabled = false});
    for (int i = 0; i < 8; i++) {
        frame(&f);
    }
    count(&f, &batches, &plain);
    assert_int_equal(batches, 0);
    assert_int_equal(stats_of(f.r).gi_voxels_filled, unbatched);
    batch_fx_assert_no_validation(&f);
    batch_fx_close(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terrain_voxelized),
        cmocka_unit_test(test_static_batch_voxelized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
