/* test_channel_passes.c: the render modes in the passes test_channels_render.c does not cover, on
 * lavapipe with validation on. A blended instance that is hidden draws nothing in the transparent
 * pass (its pixels are the scene's without it; shown, it tints them). The wireframe pass runs after
 * the transparent one and before the debug overlay: in the compiled graph (pass order of the dump),
 * and in the picture: opaque wireframe lines behind a blended quad keep their own colour, which
 * they would not if the quad were blended over them, while the quad tints the scene behind it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"

#define W 160
#define H 120

typedef struct fixture {
    rill_renderer *r;
    rill_mesh plane, cube, sphere;
    rill_material ground, orange, glass;
    rill_render_instance inst[8];
    uint32_t n;
    rill_render_snapshot snap;
} fixture;

static int setup(void **state) {
    rill_renderer_desc d = {.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->plane = render_test_plane(f->r);
    f->cube = render_test_cube(f->r);
    f->sphere = render_test_sphere(f->r, 16);
    f->ground = render_test_material(f->r, (rill_material_desc){.base_color = {0.5f, 0.5f, 0.5f, 1},
                                                                .roughness = 0.7f,
                                                                .roughness_set = true});
    f->orange = render_test_material(f->r, (rill_material_desc){.base_color = {0.9f, 0.5f, 0.2f, 1},
                                                                .roughness = 0.6f,
                                                                .roughness_set = true});
    /* A strongly tinting glass: blue, half opaque, alpha blended. */
    f->glass = render_test_material(f->r, (rill_material_desc){.base_color = {0.1f, 0.2f, 1, 0.6f},
                                                               .roughness = 0.3f,
                                                               .roughness_set = true,
                                                               .alpha_mode = RILL_ALPHA_BLEND});
    return 0;
}

static rill_render_instance *add(fixture *f, rill_mesh mesh, rill_material mat, float x, float y,
                                 float z, float s) {
    rill_render_instance *in = &f->inst[f->n];
    render_test_place(in, f->n + 1, mesh, mat, (float[3]){x, y, z}, s, 0.3f);
    f->n++;
    return in;
}

/* The glass quad: a cube at (0, y, 1) flattened along its own z. */
static void add_glass(fixture *f, float y, float s) {
    rill_render_instance *g = add(f, f->cube, f->glass, 0, y, 1.0f, s);
    for (int k = 8; k < 11; k++) {
        g->transform[k] *= 0.05f;
    }
    g->mode = RILL_RENDER_MODE_NORMAL;
}

/* Camera in front of the origin, no sun (no shadows to move with the casters), flat ambient. */
static void scene(fixture *f) {
    mat4 inv;
    render_test_look_at(inv, (float[3]){0, 1.5f, 4.0f}, (float[3]){0, 0.5f, 0});
    memset(&f->snap, 0, sizeof(f->snap));
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.9f;
    f->snap.view.clear_color[0] = 0.3f;
    f->snap.view.clear_color[1] = 0.3f;
    f->snap.view.clear_color[2] = 0.3f;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.6f;
    f->n = 0;
    add(f, f->plane, f->ground, 0, 0, 0, 10.0f);
}

static void render(fixture *f, uint8_t *px) {
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

static bool same_px(const uint8_t *a, const uint8_t *b, uint32_t i, int tol) {
    for (int c = 0; c < 3; c++) {
        if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > tol) {
            return false;
        }
    }
    return true;
}

static uint32_t pixels_differing(const uint8_t *a, const uint8_t *b, int tol) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        n += !same_px(a, b, i, tol);
    }
    return n;
}

/* A glass quad (a flattened cube) in front of an orange sphere, in mode m. */
static void glass_scene(fixture *f, int mode) {
    scene(f);
    add(f, f->sphere, f->orange, 0, 0.6f, -0.5f, 1.0f);
    if (mode >= 0) {
        add_glass(f, 0.8f, 1.2f);
        f->inst[f->n - 1].mode = (rill_render_mode)mode;
    }
}

static void test_hidden_skipped_in_transparent_pass(void **state) {
    fixture *f = *state;
    static uint8_t none[W * H * 4], shown[W * H * 4], hidden[W * H * 4];
    glass_scene(f, -1);
    render(f, none);
    glass_scene(f, RILL_RENDER_MODE_NORMAL);
    render(f, shown);
    uint32_t tinted = pixels_differing(none, shown, 8);
    print_message("the shown glass tints %u pixels\n", tinted);
    assert_true(tinted > 1000); /* the quad covers a good part of the picture */
    glass_scene(f, RILL_RENDER_MODE_HIDDEN);
    render(f, hidden);
    assert_int_equal(pixels_differing(none, hidden, 0), 0);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.instances_visible, 2); /* the ground and the sphere */
}

/* The position of pass `name` in the compiled graph's dump (lines "%2u name"), or -1. */
static int pass_position(const char *dump, const char *name) {
    size_t len = strlen(name);
    for (const char *line = dump; line && *line; line = strchr(line, '\n'), line += !!line) {
        char *end = NULL;
        long pos = strtol(line, &end, 10);
        if (end != line && *end == ' ' && !strncmp(end + 1, name, len) &&
            (end[1 + len] == '\n' || end[1 + len] == ' ')) {
            return (int)pos;
        }
    }
    return -1;
}

/* Wireframe cubes (opaque lines: alpha 1) behind and beside a glass quad. */
static void wire_scene(fixture *f, bool glass) {
    scene(f);
    for (int i = 0; i < 3; i++) {
        add(f, f->cube, f->orange, -1.2f + 1.2f * (float)i, 0.5f, -0.5f, 0.8f)->mode =
            RILL_RENDER_MODE_WIREFRAME;
    }
    f->snap.wireframe.color[0] = 1.0f;
    f->snap.wireframe.color[1] = 0.1f;
    f->snap.wireframe.color[2] = 0.1f;
    f->snap.wireframe.color[3] = 1.0f;
    if (glass) {
        add_glass(f, 0.7f, 1.6f);
    }
}

/* Line pixels (the wired scene differs from the bare one there) behind the glass (the glass alone
 * tints the bare scene there): how many, and how many of them the glass leaves as they are. */
static void lines_behind_glass(const uint8_t *bare, const uint8_t *glass_only, const uint8_t *wired,
                               const uint8_t *glassed, uint32_t *out_lines, uint32_t *out_kept) {
    *out_lines = *out_kept = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (!same_px(bare, wired, i, 24) && !same_px(bare, glass_only, i, 8)) {
            (*out_lines)++;
            *out_kept += same_px(wired, glassed, i, 1);
        }
    }
}

static void test_wireframe_after_transparent_before_overlay(void **state) {
    fixture *f = *state;
    static uint8_t bare[W * H * 4], glass_only[W * H * 4], wired[W * H * 4], glassed[W * H * 4];
    /* The compiled graph's order, with the debug overlay on. */
    rill_renderer_set_overlay_text(f->r, "channel passes");
    wire_scene(f, true);
    render(f, glassed);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    const char *dump = sb.data ? sb.data : "";
    int tr = pass_position(dump, "transparent"), wf = pass_position(dump, "wireframe"),
        ov = pass_position(dump, "overlay");
    if (tr < 0 || wf < 0 || ov < 0) {
        fail_msg("graph dump lacks a pass:\n%s", dump);
    }
    assert_true(tr < wf && wf < ov);
    rill_strbuf_free(&sb);
    /* The picture (overlay off): opaque lines behind the glass keep their colour; blended before
     * them, the glass would have tinted them as it tints the scene behind it. */
    rill_renderer_set_overlay_text(f->r, NULL);
    scene(f);
    render(f, bare);
    add_glass(f, 0.7f, 1.6f);
    render(f, glass_only);
    wire_scene(f, false);
    render(f, wired);
    wire_scene(f, true);
    render(f, glassed);
    uint32_t lines = 0, kept = 0;
    lines_behind_glass(bare, glass_only, wired, glassed, &lines, &kept);
    print_message("line pixels behind the glass: %u, kept: %u; the glass tints %u pixels\n", lines,
                  kept, pixels_differing(bare, glass_only, 8));
    assert_true(lines > 100);
    assert_true(kept + lines / 50 >= lines); /* all but a few edge pixels */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hidden_skipped_in_transparent_pass, setup,
                                        render_test_teardown_all_freed),
        cmocka_unit_test_setup_teardown(test_wireframe_after_transparent_before_overlay, setup,
                                        render_test_teardown_all_freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
