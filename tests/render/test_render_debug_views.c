/* test_render_debug_views.c: the debug panels (rill/render/debug.h) on lavapipe with validation
 * on. Culling: a cube behind the camera is drawn as a red (culled) box and the one in front as a
 * green one, seen from the observer, and a frozen frustum keeps culling after the camera turns
 * around (thawing it culls from the camera again). Cameras: a second camera's frustum (white) and
 * the shadow cascades (cyan first) are drawn. Stats: the panel's text changes the top-left corner
 * and per-pass CPU times are reported. Material: a streamed texture's resident level, its sampler
 * and the pipeline are named, in the JSON tools read. */
#include "rill_test.h"

#include "rill/render.h"
#include "rill/render/debug.h"

#define W 192u
#define H 128u

typedef struct scene {
    rill_renderer *r;
    rill_render_instance inst[2];
    rill_render_snapshot snap;
    uint8_t *px;
} scene;

static void identity(float m[16]) {
    for (int i = 0; i < 16; i++) {
        m[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    }
}

/* A renderer, a cube at the origin (in front of the camera at z = 3 looking down -Z) and one at
 * z = 10 (behind it). */
static void scene_make(scene *s, bool sun) {
    memset(s, 0, sizeof(*s));
    rill_renderer_desc d = {0};
    d.width = W, d.height = H;
    d.validation = 1;
    rill_error err = {0};
    if (!(s->r = rill_renderer_create(&d, &err))) {
        fail_msg("no Vulkan device: %s", err.msg);
    }
    rill_mesh cube = rill_render_mesh_cube(s->r, &err);
    rill_material mat = rill_render_material_create(s->r, NULL, &err);
    assert_true(cube.id && mat.id);
    for (int i = 0; i < 2; i++) {
        s->inst[i].id = (uint64_t)i + 1u, s->inst[i].mesh = cube, s->inst[i].material = mat;
        identity(s->inst[i].transform);
    }
    s->inst[1].transform[14] = 10.0f;
    s->snap.instances = s->inst;
    s->snap.instance_count = 2;
    identity(s->snap.view.world_from_view);
    s->snap.view.world_from_view[14] = 3.0f;
    s->snap.ambient[0] = s->snap.ambient[1] = s->snap.ambient[2] = 0.5f;
    if (sun) {
        s->snap.has_sun = true;
        s->snap.sun.direction[0] = -0.3f, s->snap.sun.direction[1] = -1.0f;
        s->snap.sun.direction[2] = -0.4f;
        s->snap.sun.color[0] = s->snap.sun.color[1] = s->snap.sun.color[2] = 1.0f;
        s->snap.sun.illuminance = 3.0f;
        s->snap.sun.shadows = true;
    }
    s->px = rill_malloc(W * H * 4u);
    assert_non_null(s->px);
}

static void scene_free(scene *s) {
    rill_render_stats st;
    rill_renderer_stats(s->r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_free(s->px);
    rill_renderer_destroy(s->r);
}

static void frame(scene *s) {
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(s->r, &s->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(s->r, s->px, W * H * 4u, &err), RILL_OK);
}

/* Pixels within 12 of rgb in every channel, in rows [y0, H). */
static uint32_t count_colour(const scene *s, uint8_t r, uint8_t g, uint8_t b, uint32_t y0) {
    uint32_t n = 0;
    for (uint32_t i = y0 * W; i < W * H; i++) {
        const uint8_t *p = s->px + i * 4u;
        n += abs(p[0] - r) <= 12 && abs(p[1] - g) <= 12 && abs(p[2] - b) <= 12;
    }
    return n;
}

static uint32_t visible(const scene *s) {
    rill_render_stats st;
    rill_renderer_stats(s->r, &st);
    return st.instances_visible;
}

static void test_culling_panel_colours_bounds_and_freezes(void **state) {
    (void)state;
    scene s;
    scene_make(&s, false);
    frame(&s); /* uploads */
    assert_int_equal(visible(&s), 1);
    assert_int_equal(count_colour(&s, 255, 50, 50, 16), 0);

    rill_render_debug_desc d = {
        .panel = RILL_RENDER_PANEL_CULLING, .freeze_culling = true, .observe = true};
    rill_renderer_set_debug(s.r, &d);
    frame(&s);
    frame(&s);
    /* Seen from the observer: the cube behind the camera is culled (red box, not drawn), the one
     * in front drawn (green box); the frozen frustum is yellow. */
    assert_int_equal(visible(&s), 1);
    uint32_t red = count_colour(&s, 255, 50, 50, 16), green = count_colour(&s, 60, 255, 80, 16);
    uint32_t yellow = count_colour(&s, 255, 225, 30, 16);
    assert_true(red > 20);
    assert_true(green > 20);
    assert_true(yellow > 20);
    /* The culling frustum is the camera's own, not the observer's: it keeps the origin and not
     * z = 10. */
    float vp[16];
    assert_true(rill_renderer_debug_cull_matrix(s.r, vp));
    float w0 = vp[3] * 0 + vp[7] * 0 + vp[11] * 0 + vp[15];
    float z0 = vp[14];
    assert_true(w0 > 0.0f && z0 >= 0.0f && z0 <= w0);
    float w1 = vp[11] * 10.0f + vp[15];
    assert_true(w1 < 0.0f); /* behind the camera */

    /* Turn the camera around (at z = 3, looking down +Z at the far cube), culling frozen: the
     * frozen frustum still keeps the near cube and culls the far one. */
    d.observe = false;
    rill_renderer_set_debug(s.r, &d);
    float *m = s.snap.view.world_from_view;
    m[0] = -1.0f, m[10] = -1.0f; /* a half turn about Y */
    frame(&s);
    assert_int_equal(visible(&s), 1);
    assert_true(count_colour(&s, 255, 50, 50, 16) > 20); /* the far cube, in sight, culled */
    /* Thawed: the camera's own frustum now keeps the far cube. */
    d.freeze_culling = false;
    rill_renderer_set_debug(s.r, &d);
    frame(&s);
    assert_int_equal(visible(&s), 1);
    assert_true(count_colour(&s, 60, 255, 80, 16) > 20);
    assert_int_equal(count_colour(&s, 255, 50, 50, 16), 0); /* the near cube is off-screen */
    /* Panel off: no lines. */
    rill_renderer_set_debug(s.r, NULL);
    frame(&s);
    assert_int_equal(count_colour(&s, 60, 255, 80, 0), 0);
    scene_free(&s);
}

static void test_cameras_panel_draws_frustums_and_cascades(void **state) {
    (void)state;
    scene s;
    scene_make(&s, true);
    /* Two views side by side: the left one is view 0, whose camera the observer shows along
     * with the right one's frustum. */
    rill_render_view views[2] = {s.snap.view, s.snap.view};
    views[0].viewport[2] = 0.5f, views[0].viewport[3] = 1.0f;
    views[1].viewport[0] = 0.5f, views[1].viewport[2] = 0.5f, views[1].viewport[3] = 1.0f;
    views[1].world_from_view[12] = 2.0f;
    views[1].order = 1;
    s.snap.views = views;
    s.snap.view_count = 2;
    frame(&s);
    rill_render_debug_desc d = {.panel = RILL_RENDER_PANEL_CAMERAS, .observe = true};
    rill_renderer_set_debug(s.r, &d);
    frame(&s);
    frame(&s);
    /* Lines land only in view 0's rectangle (the left half); the text block is the top rows. */
    uint32_t white_left = 0, cyan_right = 0;
    for (uint32_t y = 24; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = s.px + (y * W + x) * 4u;
            bool white = p[0] > 243 && p[1] > 243 && p[2] > 243;
            bool cyan = p[0] < 12 && abs(p[1] - 230) <= 12 && p[2] > 243;
            white_left += white && x < W / 2;
            cyan_right += cyan && x >= W / 2;
        }
    }
    assert_true(white_left > 20);
    assert_true(count_colour(&s, 0, 230, 255, 24) > 10); /* the first cascade */
    assert_int_equal(cyan_right, 0);
    scene_free(&s);
}

static void test_stats_panel_text_and_pass_cpu_times(void **state) {
    (void)state;
    scene s;
    scene_make(&s, false);
    frame(&s);
    frame(&s);
    uint8_t *plain = rill_malloc(W * H * 4u);
    assert_non_null(plain);
    memcpy(plain, s.px, W * H * 4u);
    rill_render_stats st;
    rill_renderer_stats(s.r, &st);
    assert_true(st.pass_cpu_count > 0);
    bool opaque = false;
    for (uint32_t i = 0; i < st.pass_cpu_count; i++) {
        assert_true(st.pass_cpu_ms[i] >= 0.0);
        opaque |= st.pass_cpu_names[i] && strcmp(st.pass_cpu_names[i], "opaque") == 0;
    }
    assert_true(opaque);
    rill_render_debug_desc d = {.panel = RILL_RENDER_PANEL_STATS};
    rill_renderer_set_debug(s.r, &d);
    frame(&s);
    frame(&s);
    uint32_t changed_top = 0;
    for (uint32_t i = 0; i < W * 24u; i++) {
        changed_top += memcmp(plain + i * 4u, s.px + i * 4u, 3) != 0;
    }
    assert_true(changed_top > 200);
    assert_string_equal(rill_render_panel_name(RILL_RENDER_PANEL_STATS), "stats");
    assert_string_equal(rill_render_panel_name((rill_render_panel)99), "none");
    rill_free(plain);
    scene_free(&s);
}

static void test_material_resolver_names_resident_level(void **state) {
    (void)state;
    scene s;
    scene_make(&s, false);
    rill_error err = {0};
    /* A 64 x 64 tail (levels 2..) of a 256 x 256 chain: resident level 2. */
    rill_tex_data t;
    memset(&t, 0, sizeof(t));
    t.format = RILL_TEX_FORMAT_RGBA8;
    t.srgb = true;
    t.width = t.height = 64;
    t.full_width = t.full_height = 256;
    t.first_level = 2;
    t.level_count = 7;
    static uint8_t bytes[64 * 64 * 4 * 2];
    memset(bytes, 200, sizeof(bytes));
    size_t off = 0;
    for (uint32_t l = 0; l < t.level_count; l++) {
        uint32_t e = 64u >> l ? 64u >> l : 1u;
        t.levels[l].width = t.levels[l].height = e;
        t.levels[l].data = bytes + off;
        t.levels[l].size = (size_t)e * e * 4u;
        off += t.levels[l].size;
    }
    rill_texture tex = rill_render_texture_create_data(s.r, &t, "tail", &err);
    assert_true(tex.id != 0);
    rill_material_desc md = {0};
    md.base_color[0] = md.base_color[1] = md.base_color[2] = md.base_color[3] = 1.0f;
    md.base_color_texture = tex;
    md.alpha_mode = RILL_ALPHA_BLEND;
    rill_material mat = rill_render_material_create(s.r, &md, &err);
    assert_true(mat.id != 0);
    s.inst[0].material = mat;
    frame(&s);
    frame(&s);
    rill_render_instance_info info;
    assert_true(rill_render_describe_instance(s.r, NULL, &s.snap, 1, &info));
    assert_string_equal(info.pipeline, "transparent");
    assert_string_equal(info.alpha_mode, "blend");
    assert_string_equal(info.render_mode, "normal");
    assert_int_equal(info.texture_count, RILL_MATERIAL_TEX_NUM);
    assert_string_equal(info.textures[0].slot, "base_color");
    assert_int_equal(info.textures[0].texture, tex.id);
    assert_int_equal(info.textures[0].width, 256);
    assert_int_equal(info.textures[0].resident_width, 64);
    assert_int_equal(info.textures[0].resident_level, 2);
    assert_string_equal(info.textures[0].format, "rgba8");
    assert_int_equal(info.textures[1].texture, 0); /* no normal map: the placeholder */
    char json[16384];
    size_t n = rill_render_instance_info_json(&info, json, sizeof(json));
    assert_true(n < sizeof(json));
    assert_non_null(strstr(json, "\"slot\":\"base_color\""));
    assert_non_null(strstr(json, "\"resident_level\":2"));
    assert_non_null(strstr(json, "\"pipeline\":\"transparent\""));
    /* A short buffer is cut and terminated, and says how much it needed. */
    char tiny[16];
    assert_int_equal(rill_render_instance_info_json(&info, tiny, sizeof(tiny)), n);
    assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
    /* An id the snapshot does not hold describes nothing. */
    assert_false(rill_render_describe_instance(s.r, NULL, &s.snap, 77, &info));
    rill_render_material_destroy(s.r, mat);
    rill_render_texture_destroy(s.r, tex);
    scene_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_culling_panel_colours_bounds_and_freezes),
        cmocka_unit_test(test_cameras_panel_draws_frustums_and_cascades),
        cmocka_unit_test(test_stats_panel_text_and_pass_cpu_times),
        cmocka_unit_test(test_material_resolver_names_resident_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
