/* Voxel-cone GI (GlobalIllumination quality SdfLow / SdfHigh) on lavapipe, validation on, in the
 * closed box of gi_box_fixture.h: the floor by the red wall is redder than by the green wall with
 * either tier and not without GI; the clipmap fills (voxels, four resident cascades, a measured
 * voxelization time); a despawned instance's voxels leave; the voxelization spends at most its
 * budget of work units a frame and still finishes; VoxelCache shows the voxels' light; Hwrt
 * runs SdfHigh and says so once; hostile settings clamp. */
#include "rill/render/effects.h"

#include <stdlib.h>

#include "gi_box_fixture.h"

static rill_render_routed_settings rs;

static void use_gi(box_scene *b, rill_render_global_illumination *g) {
    rs = gi_route(g);
    b->snap.view.settings = &rs;
    b->snap.view.settings_count = 1;
}

static rill_render_stats stats_of(const box_scene *b) {
    rill_render_stats st;
    rill_renderer_stats(b->r, &st);
    return st;
}

/* Colour bleeding with one tier: passes, stats, the ratio against the picture without GI. */
static void bleed_with(rill_gi_quality q, double *out_ratio) {
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    static uint8_t off[W * H * 4], on[W * H * 4];
    box_render(&b, 3, off);
    double ratio_off = bleed(&b, off);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = q;
    use_gi(&b, &g);
    box_render(&b, 10, on);
    double ratio_on = bleed(&b, on);
    print_message("%s: bleed ratio off %.3f on %.3f\n", q == RILL_GI_SDF_LOW ? "SdfLow" : "SdfHigh",
                  ratio_off, ratio_on);
    assert_true(has_pass(&b, "vxgi_trace") && has_pass(&b, "ssgi_temporal") &&
                has_pass(&b, "ssgi_apply"));
    assert_false(has_pass(&b, "ssgi")); /* the cone trace replaces the screen-space one */
    assert_true(fabs(ratio_off - 1.0) < 0.01);
    rill_render_stats st = stats_of(&b);
    print_message("voxels filled %u, cascades resident %u, voxelize %.3f ms, %llu units\n",
                  st.gi_voxels_filled, st.gi_cascades_resident, st.gi_voxelize_ms,
                  (unsigned long long)st.gi_voxel_units);
    assert_true(st.gi_voxels_filled > 100);
    assert_int_equal(st.gi_cascades_resident, 4);
    assert_true(st.gi_ms > 0.0);
    *out_ratio = ratio_on;
    /* Off: no voxel pass, the picture without GI. */
    g.quality = RILL_GI_OFF;
    static uint8_t off2[W * H * 4];
    box_render(&b, 2, off2);
    assert_false(has_pass(&b, "vxgi_trace") || has_pass(&b, "vxgi_inject"));
    assert_memory_equal(off, off2, sizeof(off));
    assert_int_equal(render_test_destroy(b.r), 0);
}

static void test_voxel_gi_bleeding(void **state) {
    (void)state;
    double low, high;
    bleed_with(RILL_GI_SDF_LOW, &low);
    bleed_with(RILL_GI_SDF_HIGH, &high);
    assert_true(low > 1.03);
    assert_true(high > 1.03);
}

/* An instance that leaves the snapshot (despawned, streamed out) takes its voxels with it; one
 * that comes back brings them again. */
static void test_voxel_gi_instances_leave(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_LOW;
    use_gi(&b, &g);
    box_render(&b, 6, NULL);
    uint32_t all = stats_of(&b).gi_voxels_filled;
    b.inst[4] = b.inst[5]; /* the red wall goes (the green one twice: one id, counted once) */
    box_render(&b, 6, NULL);
    uint32_t without = stats_of(&b).gi_voxels_filled;
    print_message("voxels with the red wall %u, without %u\n", all, without);
    assert_true(without < all);
    box_close(&b);
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    use_gi(&b, &g);
    b.snap.instance_count = 4; /* no coloured walls at all */
    box_render(&b, 6, NULL);
    uint32_t walls_out = stats_of(&b).gi_voxels_filled;
    b.snap.instance_count = 6;
    box_render(&b, 6, NULL);
    assert_int_equal(stats_of(&b).gi_voxels_filled, all); /* back: the same voxels */
    assert_true(walls_out < without);
    box_close(&b);
}

/* A small budget: no frame spends more work units than it, and the clipmap still fills to the
 * same voxels as with the default budget, over more frames. */
static void test_voxel_gi_budget(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_LOW;
    use_gi(&b, &g);
    box_render(&b, 6, NULL);
    uint32_t want = stats_of(&b).gi_voxels_filled;
    box_close(&b);

    const uint32_t budget = 300;
    box_open_budget(&b, RILL_RENDER_QUALITY_HIGH, budget);
    use_gi(&b, &g);
    uint32_t frames = 0, busy = 0;
    for (; frames < 400 && stats_of(&b).gi_voxels_filled != want; frames++) {
        box_render(&b, 1, NULL);
        rill_render_stats st = stats_of(&b);
        assert_true(st.gi_voxel_units <= budget);
        busy += st.gi_voxel_units > budget / 2 ? 1u : 0u;
    }
    print_message("budget %u: filled %u of %u voxels after %u frames (%u frames over half)\n",
                  budget, stats_of(&b).gi_voxels_filled, want, frames, busy);
    assert_int_equal(stats_of(&b).gi_voxels_filled, want);
    assert_true(frames > 6); /* it did take longer */
    assert_true(busy > 0);
    box_close(&b);
}

/* VoxelCache shows the clipmap's light: the red wall's voxels are red. */
static void test_voxel_gi_cache_view(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_HIGH;
    g.debug = RILL_GI_DEBUG_VOXEL_CACHE;
    use_gi(&b, &g);
    static uint8_t px[W * H * 4];
    box_render(&b, 6, px);
    assert_true(has_pass(&b, "vxgi_debug"));
    assert_false(has_pass(&b, "ssgi_apply"));
    double lr, lg, rr, rg;
    patch_rg(&b, px, (vec3){-0.99f, 0.5f, -0.9f}, &lr, &lg);
    patch_rg(&b, px, (vec3){0.99f, 0.5f, -0.9f}, &rr, &rg);
    print_message("voxel cache: by the red wall r %.0f g %.0f, by the green r %.0f g %.0f\n",
                  lr / 49, lg / 49, rr / 49, rg / 49);
    assert_true(lr > 2.0 * lg);
    assert_true(rg > 2.0 * rr);
    box_close(&b);
}

/* Warnings logged while a test runs. */
static char logged[8192];
static void log_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)level;
    (void)module;
    (void)user;
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

/* Hwrt runs SdfHigh and says so once; hostile values on a voxel tier clamp. */
static void test_voxel_gi_hwrt_and_hostile(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_HWRT;
    use_gi(&b, &g);
    logged[0] = 0;
    rill_log_set_sink(log_sink, NULL);
    box_render(&b, 3, NULL);
    assert_true(has_pass(&b, "vxgi_trace"));
    g.quality = RILL_GI_SDF_LOW;
    g.intensity = INFINITY;
    g.specular_intensity = NAN;
    box_render(&b, 2, NULL);
    rill_log_set_sink(NULL, NULL);
    print_message("%s", logged);
    const char *at = strstr(logged, "quality Hwrt");
    assert_non_null(at);
    assert_null(strstr(at + 1, "quality Hwrt"));
    assert_non_null(strstr(logged, "running SdfHigh"));
    assert_non_null(strstr(logged, "intensity = inf"));
    assert_non_null(strstr(logged, "specular_intensity = nan"));
    assert_true(has_pass(&b, "vxgi_trace"));
    assert_int_equal(render_test_destroy(b.r), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voxel_gi_bleeding),
        cmocka_unit_test(test_voxel_gi_instances_leave),
        cmocka_unit_test(test_voxel_gi_budget),
        cmocka_unit_test(test_voxel_gi_cache_view),
        cmocka_unit_test(test_voxel_gi_hwrt_and_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
