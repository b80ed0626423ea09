/* test_hlod_stream.c: the instance streamer's far-world proxy share (rill/stream.h, "ON FAR-WORLD
 * PROXIES") under a scripted camera: whole (1) whenever the instance is not LOADED (unloaded,
 * loading, unloading: the same update the content is hidden), falling to 0 over crossfade_frames
 * updates once it is loaded and staying there; the settings' defaults and clamps. */
#include "stream/stream_fixture.h"

#include <math.h>

#define BUDGET 1000000ull
#define COST 100000ull

static rill_stream_instance_info info_of(sfx *fx, rill_entity root) {
    rill_stream_instance_info infos[8];
    uint32_t n = rill_stream_instances(fx->stream, infos, 8);
    for (uint32_t i = 0; i < n && i < 8; i++) {
        if (infos[i].root == root) {
            return infos[i];
        }
    }
    fail_msg("instance not listed");
    return infos[0];
}

static void test_share_follows_residency(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    rill_stream_hlod_settings hs = rill_stream_hlod_default();
    hs.crossfade_frames = 4;
    rill_stream_set_hlod(fx.stream, &hs);
    sfx_scene(&fx, "d.rsn", 30, 1.0f);
    rill_entity root = sfx_instance(&fx, "d.rsn", 0, 0, 100, 150, 10);
    sfx_camera(&fx, 1000, 0);
    sfx_frames(&fx, 3);
    assert_int_equal(info_of(&fx, root).state, RILL_INSTANCE_UNLOADED);
    assert_true(info_of(&fx, root).proxy_fade == 1.0f);
    /* In range: loading takes several frames (30 entities at 10 a frame), the proxy stays whole. */
    sfx_camera(&fx, 50, 0);
    uint32_t frames = 0;
    for (; frames < 50 && info_of(&fx, root).state != RILL_INSTANCE_LOADED; frames++) {
        sfx_frame(&fx);
        if (info_of(&fx, root).state != RILL_INSTANCE_LOADED) {
            assert_true(info_of(&fx, root).proxy_fade == 1.0f);
        }
    }
    assert_true(frames > 1);
    /* Loaded: the share falls by a quarter each update, to 0, and stays there. */
    float expect = 0.75f;
    assert_true(fabsf(info_of(&fx, root).proxy_fade - expect) < 1e-5f);
    for (int k = 0; k < 3; k++) {
        sfx_frame(&fx);
        expect -= 0.25f;
        assert_true(fabsf(info_of(&fx, root).proxy_fade - expect) < 1e-5f);
    }
    assert_true(info_of(&fx, root).proxy_fade == 0.0f);
    sfx_frames(&fx, 5);
    assert_true(info_of(&fx, root).proxy_fade == 0.0f);
    /* Leaving: the update that starts the unload (content hidden at once) makes it whole. */
    sfx_camera(&fx, 1000, 0);
    sfx_frame(&fx);
    assert_int_equal(info_of(&fx, root).state, RILL_INSTANCE_UNLOADING);
    assert_true(info_of(&fx, root).proxy_fade == 1.0f);
    sfx_frames(&fx, 10);
    assert_int_equal(info_of(&fx, root).state, RILL_INSTANCE_UNLOADED);
    assert_true(info_of(&fx, root).proxy_fade == 1.0f);
    sfx_done(&fx);
}

/* Edit mode brings everything in: once loaded the proxies fade out there too. */
static void test_edit_mode_fades_out(void **state) {
    (void)state;
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_EDIT, BUDGET, COST);
    sfx_scene(&fx, "d.rsn", 5, 1.0f);
    rill_entity root = sfx_instance(&fx, "d.rsn", 5000, 0, 100, 150, 10);
    sfx_frames(&fx, 5 + rill_stream_get_hlod(fx.stream).crossfade_frames);
    assert_int_equal(info_of(&fx, root).state, RILL_INSTANCE_LOADED);
    assert_true(info_of(&fx, root).proxy_fade == 0.0f);
    sfx_done(&fx);
}

static void test_settings(void **state) {
    (void)state;
    rill_stream_hlod_settings d = rill_stream_hlod_default();
    assert_true(d.enabled);
    assert_true(d.far_distance == 6000.0f && d.level1_distance == 1200.0f);
    assert_true(d.level_crossfade == 100.0f && d.crossfade_frames == 30);
    sfx fx;
    sfx_init(&fx, RILL_RUN_MODE_GAME, BUDGET, COST);
    rill_stream_set_hlod(fx.stream, &(rill_stream_hlod_settings){.enabled = true,
                                                                 .far_distance = 500.0f,
                                                                 .level1_distance = 900.0f,
                                                                 .level_crossfade = -1.0f});
    rill_stream_hlod_settings got = rill_stream_get_hlod(fx.stream);
    assert_true(got.far_distance == 500.0f);
    assert_true(got.level1_distance == 500.0f); /* kept within the far distance */
    assert_true(got.level_crossfade == 100.0f && got.crossfade_frames == 30);
    rill_stream_set_hlod(fx.stream, NULL);
    assert_true(rill_stream_get_hlod(fx.stream).far_distance == 6000.0f);
    sfx_done(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share_follows_residency),
        cmocka_unit_test(test_edit_mode_fades_out),
        cmocka_unit_test(test_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
