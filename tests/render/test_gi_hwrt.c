/* The Hwrt GI tier (GlobalIllumination quality Hwrt) through the renderer, validation on, in the
 * closed box of gi_box_fixture.h. On a device without ray queries (lavapipe, where these tests
 * run) it falls back to SdfHigh: the log says so once with the reason, the stats report the tier
 * that ran (SdfHigh) and why, and the picture equals one rendered with quality SdfHigh. On a
 * device with ray queries (the H200) the Hwrt tier itself runs: its trace pass is in the graph,
 * the stats say Hwrt, and the floor by the red wall is redder than by the green wall. */
#include <stdlib.h>

#include "gi_box_fixture.h"

/* Renders the box with quality q for `frames` frames into px; the stats of the last. */
static rill_render_stats render_tier(box_scene *b, rill_gi_quality q, uint32_t frames,
                                     uint8_t *px) {
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = q;
    g.intensity = 1.0f;
    use_gi(b, &g);
    box_render(b, frames, px);
    rill_render_stats st;
    rill_renderer_stats(b->r, &st);
    return st;
}

static void check_fallback(box_scene *b, const rill_render_stats *st, const uint8_t *hwrt) {
    print_message("fallback: %s\n", st->gi_hwrt_why);
    assert_int_equal(st->gi_tier, RILL_GI_SDF_HIGH);
    assert_true(has_pass(b, "vxgi_trace"));
    assert_false(has_pass(b, "hwrt_trace"));
    const char *at =
        strstr(render_test_logged, "quality Hwrt: hardware ray tracing is not available");
    assert_non_null(at);
    assert_non_null(strstr(at, st->gi_hwrt_why));
    assert_non_null(strstr(at, "running SdfHigh"));
    assert_null(strstr(at + 1, "quality Hwrt")); /* once */
    /* the same picture as quality SdfHigh, from a fresh renderer after as many frames */
    box_scene s;
    box_open(&s, RILL_RENDER_QUALITY_HIGH);
    static uint8_t sdf[W * H * 4];
    rill_render_stats ss = render_tier(&s, RILL_GI_SDF_HIGH, 10, sdf);
    assert_int_equal(ss.gi_tier, RILL_GI_SDF_HIGH);
    assert_string_equal(ss.gi_hwrt_why, "");
    int worst = 0;
    for (size_t i = 0; i < sizeof(sdf); i++) {
        worst = RILL_MAX(worst, abs((int)sdf[i] - (int)hwrt[i]));
    }
    print_message("largest difference from SdfHigh: %d\n", worst);
    assert_true(worst <= 1);
    box_close(&s);
}

static void test_hwrt_tier(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    static uint8_t off[W * H * 4], px[W * H * 4];
    box_render(&b, 3, off);
    render_test_log_begin();
    rill_render_stats st = render_tier(&b, RILL_GI_HWRT, 10, px);
    render_test_log_end();
    if (st.gi_hwrt_why[0]) {
        check_fallback(&b, &st, px);
    } else { /* a device with ray queries: the tier itself */
        assert_int_equal(st.gi_tier, RILL_GI_HWRT);
        assert_true(has_pass(&b, "hwrt_trace") && has_pass(&b, "ssgi_apply"));
        assert_false(has_pass(&b, "vxgi_trace"));
        assert_non_null(strstr(render_test_logged, "quality Hwrt: ray-traced GI"));
        double ratio_off = bleed(&b, off), ratio_on = bleed(&b, px);
        print_message("Hwrt: bleed ratio off %.3f on %.3f\n", ratio_off, ratio_on);
        assert_true(ratio_on > ratio_off + 0.05);
    }
    box_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hwrt_tier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
