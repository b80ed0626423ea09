/* test_ocean.c: Water, the FFT ocean (rill/render/ocean.h, src/render/ocean*.c) on lavapipe with
 * validation on, as a user sees it: two frames of the sea differ and the same frame count renders
 * the same bytes on another renderer; at a grazing angle the water reflects more sky than looking
 * straight down (Fresnel); a Water whose channel is hidden draws nothing (the world's path:
 * component -> extract -> renderer); ghost at opacity 0 / 1 is no water / the water; hostile
 * settings render as their clamped values with warnings naming the entity; the simulation runs
 * once a frame before any view; a golden at 48 x 48; with ScreenSpaceReflections (Medium) the
 * water mirrors a red wall standing in it, and waves bend the straight edge of a submerged slab
 * (refraction offsets).
 * RILL_OCEAN_PNG_DIR=dir writes each frame a test reads, to look at. */
#define WATER_PNG_ENV "RILL_OCEAN_PNG_DIR"
#include "water_fixture.h"

#include "rill/channels.h"

/* The sea (its surface y = 0, nothing under it) seen from eye toward `at` under a sun, with a
 * bright sky light (the image-based light's cube is the ambient colour without a sky). */
static void scene(fixture *f, const float eye[3], const float at[3], bool water) {
    look(f, eye, at, 0.8f, 5000.0f);
    sky_light(f, 2.0f, 0.3f, 0.5f, (float[3]){0.6f, 0.7f, 0.9f});
    memset(&f->sea, 0, sizeof(f->sea));
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    memcpy(f->sea.world_from_water, id, sizeof(id));
    f->sea.water = rill_render_water_query_defaults();
    f->sea.entity = 5;
    if (water) {
        f->snap.oceans = &f->sea;
        f->snap.ocean_count = 1;
    }
}

static double sum_at(const uint8_t *px, int x, int y) {
    double c[3];
    mean_at(px, x, y, c);
    return sum3(c);
}

/* The sea moves: two frames differ on most of the water, never in the sky above the horizon; the
 * same number of frames gives the same bytes on a fresh renderer (a fixed seed, a time from the
 * frame count). The simulation passes run once a frame, before the view's ocean pass. */
static void test_moves_deterministic(void **state) {
    fixture *f = *state;
    static uint8_t a[W * H * 4], b[W * H * 4], none[W * H * 4];
    scene(f, (float[3]){0, 12, 30}, (float[3]){0, 0, 0}, false);
    render(f, f->r, 1, NULL);
    memcpy(none, f->px, sizeof(none));
    scene(f, (float[3]){0, 12, 30}, (float[3]){0, 0, 0}, true);
    rill_renderer *r2 = make_renderer(RILL_RENDER_QUALITY_LOW);
    assert_non_null(r2);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    rill_error err = {0};
    for (uint64_t i = 0; i < st.frame_index; i++) {
        assert_int_equal(rill_renderer_render(r2, &f->snap, &err), RILL_OK);
    }
    render(f, f->r, 2, "moves_a");
    memcpy(a, f->px, sizeof(a));
    render(f, r2, 2, "moves_other");
    memcpy(b, f->px, sizeof(b));
    assert_memory_equal(a, b, sizeof(a));
    render(f, f->r, 20, "moves_b");
    int water = differing(none, a), changed = differing(a, f->px);
    print_message("ocean: %d of %d pixels are water, %d changed over 20 frames\n", water, W * H,
                  changed);
    assert_true(water > W * H / 3);
    assert_true(changed > water / 3);
    /* Where there is no water (above the horizon), nothing changed. */
    for (int i = 0; i < W * H; i++) {
        if (!memcmp(&none[i * 4], &a[i * 4], 3)) {
            assert_memory_equal(&a[i * 4], &f->px[i * 4], 3);
        }
    }
    /* One simulation a frame, before the view's pass. */
    rill_renderer_stats(f->r, &st);
    int spectrum = -1, fft = -1, maps = -1, draw = -1;
    for (uint32_t i = 0; i < st.pass_count; i++) {
        const char *n = st.pass_names[i];
        spectrum = !strcmp(n, "ocean.spectrum") ? (int)i : spectrum;
        fft = !strcmp(n, "ocean.fft") ? (int)i : fft;
        maps = !strcmp(n, "ocean.maps") ? (int)i : maps;
        draw = !strcmp(n, "ocean") ? (int)i : draw;
    }
    print_message("passes: spectrum %d fft %d maps %d ocean %d\n", spectrum, fft, maps, draw);
    assert_true(spectrum >= 0 && spectrum < fft && fft < maps && maps < draw);
    render_test_destroy_clean(r2, false);
}

/* Fresnel: over deep black water (depth colour 0: only the reflection shows) a pixel looking
 * straight down reflects little of the bright sky, one at a grazing angle much more. */
static void test_fresnel(void **state) {
    fixture *f = *state;
    double v[2];
    const float eyes[2][3] = {{0, 40, 0.01f}, {0, 2, 60}};
    for (int i = 0; i < 2; i++) {
        scene(f, eyes[i], (float[3]){0, 0, 0}, true);
        f->sea.water.depth_color[0] = f->sea.water.depth_color[1] = f->sea.water.depth_color[2] = 0;
        f->sea.water.amplitude = 0.05f;
        f->sea.water.foam = 0.0f;
        f->snap.has_sun = false; /* no glint */
        render(f, f->r, 2, i ? "grazing" : "down");
        v[i] = sum_at(f->px, W / 2, H / 2);
    }
    print_message("water straight down %.1f, grazing %.1f (of 765)\n", v[0], v[1]);
    assert_true(v[1] > v[0] * 3.0 + 30.0);
}

/* Ghost at opacity 0 is no water; wireframe changes fewer pixels than the water
 * (lines only). */
static void test_channel_modes(void **state) {
    fixture *f = *state;
    static uint8_t none[W * H * 4], full[W * H * 4];
    const float eye[3] = {0, 12, 30}, at[3] = {0, 0, 0};
    scene(f, eye, at, false);
    render(f, f->r, 1, NULL);
    memcpy(none, f->px, sizeof(none));
    scene(f, eye, at, true);
    render(f, f->r, 1, NULL);
    memcpy(full, f->px, sizeof(full));
    scene(f, eye, at, true);
    f->sea.mode = RILL_RENDER_MODE_GHOST;
    f->sea.ghost_opacity = 0.0f;
    render(f, f->r, 1, "ghost0");
    assert_memory_equal(f->px, none, sizeof(none));
    f->sea.mode = RILL_RENDER_MODE_WIREFRAME;
    render(f, f->r, 1, "wireframe");
    int wire = differing(none, f->px), water = differing(none, full);
    print_message("wireframe changes %d pixels, the water %d\n", wire, water);
    assert_true(wire > 0 && wire < water);
}

/* Hostile values render as their clamped values (warned once each, naming the entity): NaN wind
 * speed and infinite choppiness are the defaults, huge tiles 4000 m, a zero wind direction (1, 0),
 * cascades 1000 is 3, a depth colour above 1 is 1; a matrix that cannot be inverted drops it. */
static void test_hostile_clamp(void **state) {
    fixture *f = *state;
    static uint8_t want[W * H * 4], none[W * H * 4];
    const float eye[3] = {0, 12, 30}, at[3] = {0, 0, 0};
    for (int k = 0; k < 2; k++) {
        rill_renderer *r = make_renderer(RILL_RENDER_QUALITY_MEDIUM);
        assert_non_null(r);
        scene(f, eye, at, true);
        rill_render_water *w = &f->sea.water;
        if (k == 0) {
            w->tile_size[0] = w->tile_size[1] = 4000.0f;
            w->depth_color[1] = 1.0f;
        } else {
            w->wind_speed = NAN;
            w->choppiness = INFINITY;
            w->tile_size[0] = 1e30f, w->tile_size[1] = 5e6f;
            w->wind_direction[0] = w->wind_direction[1] = 0.0f;
            w->cascades = 1000;
            w->depth_color[1] = 7.0f;
            render_test_log_begin();
        }
        render(f, r, 2, k ? "hostile" : "hostile_clamped");
        rill_log_set_sink(NULL, NULL);
        if (k == 0) {
            memcpy(want, f->px, sizeof(want));
        }
        render_test_destroy_clean(r, false);
    }
    print_message("%s", render_test_logged);
    assert_memory_equal(f->px, want, sizeof(want));
    assert_int_equal(render_test_count_of(render_test_logged, "Water of entity 5:0"), 6);
    assert_non_null(strstr(render_test_logged, "wind_speed = nan"));
    assert_non_null(strstr(render_test_logged, "choppiness = inf"));
    assert_non_null(strstr(render_test_logged, "tile_size = 1e+30"));
    assert_non_null(strstr(render_test_logged, "cascades = 1000"));
    scene(f, eye, at, false);
    render(f, f->r, 1, NULL);
    memcpy(none, f->px, sizeof(none));
    scene(f, eye, at, true);
    memset(f->sea.world_from_water, 0, sizeof(f->sea.world_from_water));
    render(f, f->r, 1, NULL);
    assert_memory_equal(f->px, none, sizeof(none));
}

/* The default sea at the Medium tier (3 cascades of 256²), frame 30, looked at from a ship. */
static void test_golden(void **state) {
    (void)state;
    fixture g;
    memset(&g, 0, sizeof(g));
    g.r = make_renderer(RILL_RENDER_QUALITY_MEDIUM);
    assert_non_null(g.r);
    scene(&g, (float[3]){0, 6, 20}, (float[3]){0, 0, -20}, true);
    render(&g, g.r, 30, "golden");
    golden_expect("ocean_medium", g.px, W, H);
    render_test_destroy_clean(g.r, false);
}

/* The user's path: a camera and a Water entity in a world. The Water reaches the snapshot with
 * its entity, transform and channel mode; hidden, it is not there and the picture is the world
 * without water; on a camera (where --effect puts it) it is the world plane y = 0; Water is a
 * routed settings type (what --effect looks up). */
static void test_world_path(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);
    rill_component wc = rill_world_find_component(w, "Water");
    assert_true(wc.id != 0);
    bool routed = false;
    for (uint32_t i = 0; i < comps.settings_count; i++) {
        routed |= comps.settings[i].id == wc.id;
    }
    assert_true(routed);
    mat4 view;
    render_test_look_at(view, (float[3]){0, 12, 30}, (float[3]){0, 0, 0});
    rill_global_transform cg;
    memcpy(cg.m, view, sizeof(cg.m));
    rill_entity cam = render_test_world_camera(w, &cg);
    rill_render_water v;
    rill_type_apply_defaults(rill_world_component_type(w, wc), &v);
    assert_int_equal(v.cascades, 3);
    assert_float_equal(v.tile_size[1], 37.0f, 0.0);
    assert_float_equal(v.choppiness, 1.2f, 0.0);
    v.clarity = 9.0f;
    rill_entity e = rill_world_spawn(w);
    rill_global_transform sea;
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    memcpy(sea.m, id, sizeof(id));
    sea.m[13] = -1.0f; /* the sea level */
    assert_non_null(rill_world_add(w, e, wc, &v));
    assert_non_null(rill_world_add(w, e, b->transform, NULL));
    assert_non_null(rill_world_add(w, e, b->global_transform, &sea));
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.ocean_count, 1);
    assert_int_equal(s.oceans[0].entity, e);
    assert_float_equal(s.oceans[0].water.clarity, 9.0f, 0.0);
    assert_float_equal(s.oceans[0].world_from_water[13], -1.0f, 0.0);
    assert_int_equal(s.oceans[0].mode, RILL_RENDER_MODE_NORMAL);

    rill_renderer *r = make_renderer(RILL_RENDER_QUALITY_LOW);
    assert_non_null(r);
    static uint8_t with[W * H * 4], hidden[W * H * 4], without[W * H * 4];
    assert_int_equal(rill_renderer_render(r, &s, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(r, with, sizeof(with), &err), RILL_OK);
    /* Hidden through its channel (a Water defaults to `context`). */
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_HIDDEN, 1.0f);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.ocean_count, 0);
    assert_int_equal(rill_renderer_render(r, &s, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(r, hidden, sizeof(hidden), &err), RILL_OK);
    rill_world_despawn(w, e);
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_NORMAL, 1.0f);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(rill_renderer_render(r, &s, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(r, without, sizeof(without), &err), RILL_OK);
    assert_memory_equal(hidden, without, sizeof(without));
    assert_true(differing(with, without) > W * H / 3);
    /* Ghost through the channel reaches the snapshot. */
    rill_channels_set_mode(w, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_GHOST, 0.25f);
    /* On the camera: the world plane y = 0. */
    assert_non_null(rill_world_add(w, cam, wc, &v));
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.ocean_count, 1);
    assert_int_equal(s.oceans[0].mode, RILL_RENDER_MODE_GHOST);
    assert_true(s.oceans[0].on_camera);
    assert_float_equal(s.oceans[0].ghost_opacity, 0.25f, 1e-6);
    for (int k = 0; k < 16; k++) {
        assert_float_equal(s.oceans[0].world_from_water[k], (k % 5) == 0 ? 1.0f : 0.0f, 0.0);
    }
    render_test_destroy_clean(r, false);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

/* A box of `material` from lo to hi in the snapshot (one instance). */
static void add_box(fixture *f, rill_render_instance *inst, rill_mesh cube, rill_material m,
                    const float lo[3], const float hi[3]) {
    place_box(inst, 1, cube, m, lo, hi);
    f->snap.instances = inst;
    f->snap.instance_count = 1;
}

/* Screen-space reflections on the water (Medium tier, the view's ScreenSpaceReflections): a red
 * wall standing in the sea 40 m ahead shows in the water in front of it, which without them
 * reflects only the sky. */
static void test_reflects_the_scene(void **state) {
    (void)state;
    fixture *f = rill_calloc(1, sizeof(*f));
    rill_renderer *r = make_renderer(RILL_RENDER_QUALITY_MEDIUM);
    assert_non_null(r);
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material red = render_test_material(
        r, (rill_material_desc){.base_color = {1, 0, 0, 1}, .emissive = {2, 0, 0}, .roughness = 1});
    rill_render_instance wall;
    rill_render_ssr ssr = rill_render_ssr_query_defaults();
    rill_render_routed_settings rs = {"ScreenSpaceReflections", &ssr, sizeof(ssr), 0};
    double red_water[2];
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 3, 0}, (float[3]){0, 1.0f, -40}, true);
        f->sea.water.amplitude = 0.1f; /* a calm sea: a clear mirror image */
        add_box(f, &wall, cube, red, (float[3]){-30, -5, -45}, (float[3]){30, 12, -40});
        if (i) {
            f->snap.view.settings = &rs;
            f->snap.view.settings_count = 1;
        }
        render(f, r, 3, i ? "ssr_on" : "ssr_off");
        red_water[i] = redness(f->px, H * 2 / 3, H - 2); /* the water in front of the wall */
    }
    print_message("water in front of a red wall: redness %.1f without reflections, %.1f with\n",
                  red_water[0], red_water[1]);
    assert_true(red_water[1] > red_water[0] + 15.0);
    render_test_destroy_clean(r, false);
    rill_free(f);
}

/* Spread (standard deviation, pixels) across rows of where a row first turns dark from the left:
 * the edge of a bright slab on the left of the frame. */
static double edge_spread(const uint8_t *px) {
    double xs[H], mean = 0.0;
    int n = 0;
    for (int y = 4; y < H - 4; y++) {
        const uint8_t *row = px + (size_t)y * W * 4;
        int bright = row[4 * 4] + row[4 * 4 + 1] + row[4 * 4 + 2];
        int dark = row[(W - 5) * 4] + row[(W - 5) * 4 + 1] + row[(W - 5) * 4 + 2];
        int mid = (bright + dark) / 2, x = 4;
        while (x < W - 4 && row[x * 4] + row[x * 4 + 1] + row[x * 4 + 2] > mid) {
            x++;
        }
        xs[n++] = x;
        mean += x;
    }
    mean /= n;
    double v = 0.0;
    for (int i = 0; i < n; i++) {
        v += (xs[i] - mean) * (xs[i] - mean);
    }
    return sqrt(v / n);
}

/* Refraction offsets: a white slab 4 m under the surface, its edge straight below the camera; with
 * a calm sea the edge is straight, with waves it wanders from row to row (the scene under the water
 * is seen shifted along the surface's normal). */
static void test_refraction_bends_edges(void **state) {
    fixture *f = *state;
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(f->r, &err);
    rill_material white = render_test_material(
        f->r, (rill_material_desc){.base_color = {1, 1, 1, 1}, .emissive = {3, 3, 3}});
    rill_render_instance slab;
    double spread[2];
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 5, 0.01f}, (float[3]){0, 0, 0}, true);
        f->sea.water.amplitude = i ? 2.0f : 0.0f;
        f->sea.water.foam = 0.0f;
        f->sea.water.clarity = 20.0f;
        f->snap.has_sun = false; /* no glint */
        add_box(f, &slab, cube, white, (float[3]){-50, -6, -50}, (float[3]){0, -4, 50});
        render(f, f->r, 3, i ? "refraction_waves" : "refraction_calm");
        spread[i] = edge_spread(f->px);
    }
    print_message("a submerged edge: spread across rows %.2f px calm, %.2f px with waves\n",
                  spread[0], spread[1]);
    assert_true(spread[0] < 0.6);
    assert_true(spread[1] > spread[0] + 0.5);
}

int main(void) {
    const struct CMUnitTest solo[] = {
        cmocka_unit_test(test_world_path),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_reflects_the_scene),
    };
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_moves_deterministic),    cmocka_unit_test(test_fresnel),
        cmocka_unit_test(test_channel_modes),          cmocka_unit_test(test_hostile_clamp),
        cmocka_unit_test(test_refraction_bends_edges),
    };
    int failed = cmocka_run_group_tests_name("ocean_solo", solo, NULL, NULL);
    return failed + cmocka_run_group_tests_name("ocean_gpu", gpu, setup, render_test_teardown);
}
