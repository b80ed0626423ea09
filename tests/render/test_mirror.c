/* test_mirror.c: mirrored instances (a world matrix with a negative determinant) on lavapipe with
 * validation on. A mirror turns a mesh's winding around, so a mirrored instance must draw with
 * clockwise front faces (glTF 2.0) and its tangent frame's handedness flipped. Each scene holds a
 * cube on the left and its mirror image on the right (the cube reflected in the plane x = 0: the
 * same cube, placed at -x and turned the other way, scaled by -1 along x), seen by a camera and lit
 * by a sun that are symmetric in that plane, so a right answer is a picture that equals its own
 * left-right flip within the golden tolerance. A mirrored cube drawn inside out (its back faces),
 * lit from the wrong side (a double-sided material taking its faces for back faces) or with its
 * normal map's bitangent reversed breaks the symmetry. */
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

#include "golden.h"
#include "rill/formats/image.h"

#define W 192
#define H 192

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube;
    rill_texture checker, ridges;
} fixture;

/* A 64x64 checker (sRGB) and a normal map of ridges along v: its normals tilt up and down the
 * bitangent, so a bitangent of the wrong sign shades the ridges' other side. */
static void make_textures(fixture *f) {
    static uint8_t checker[64 * 64 * 4], ridges[64 * 64 * 4];
    for (int y = 0; y < 64; y++) {
        for (int x = 0; x < 64; x++) {
            uint8_t *p = &checker[(y * 64 + x) * 4];
            bool on = ((x / 16) + (y / 16)) % 2 == 0;
            p[0] = on ? 230 : 40, p[1] = on ? 190 : 80, p[2] = on ? 60 : 170, p[3] = 255;
            float s = sinf((float)y * 0.4f) * 0.6f;
            uint8_t *n = &ridges[(y * 64 + x) * 4];
            n[0] = 128, n[1] = (uint8_t)(128 + 127 * s), n[2] = (uint8_t)(255 * sqrtf(1 - s * s));
            n[3] = 255;
        }
    }
    rill_error err = {0};
    rill_texture_desc td = {.pixels = checker, .width = 64, .height = 64, .srgb = true};
    f->checker = rill_render_texture_create(f->r, &td, &err);
    rill_texture_desc nd = {.pixels = ridges, .width = 64, .height = 64};
    f->ridges = rill_render_texture_create(f->r, &nd, &err);
    assert_true(f->checker.id && f->ridges.id);
}

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 512, .quality = RILL_RENDER_QUALITY_HIGH};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    make_textures(f);
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rill_render_texture_destroy(f->r, f->checker);
    rill_render_texture_destroy(f->r, f->ridges);
    render_test_destroy_clean(f->r, false);
    rill_free(f);
    return 0;
}

/* The textured, normal-mapped material of the cubes. */
static rill_material cube_material(fixture *f, bool double_sided, rill_alpha_mode mode) {
    return render_test_material(f->r, (rill_material_desc){.base_color = {1, 1, 1, 0.7f},
                                                           .roughness = 0.45f,
                                                           .roughness_set = true,
                                                           .alpha_mode = mode,
                                                           .double_sided = double_sided,
                                                           .base_color_texture = f->checker,
                                                           .normal_texture = f->ridges});
}

/* Instance id at (x, 0.5, 0), turned rot_y about +Y, scaled by (sx, 1, 1). */
static void place(rill_render_instance *in, uint32_t id, rill_mesh mesh, rill_material m, float x,
                  float rot_y, float sx) {
    memset(in, 0, sizeof(*in));
    in->id = id;
    in->mesh = mesh;
    in->material = m;
    mat4 t;
    glm_mat4_identity(t);
    glm_translate(t, (vec3){x, 0.5f, 0.0f});
    glm_rotate_y(t, rot_y, t);
    glm_scale(t, (vec3){sx, 1.0f, 1.0f});
    memcpy(in->transform, t, sizeof(mat4));
}

/* Renders the two instances with the camera and the sun in the plane x = 0; px gets the frame,
 * draws the frame's draw calls. */
static void render_pair(fixture *f, const rill_render_instance inst[2], uint8_t *px,
                        uint32_t *draws) {
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 inv;
    render_test_look_at(inv, (float[3]){0, 2.4f, 4.6f}, (float[3]){0, 0.4f, 0});
    memcpy(snap.view.world_from_view, inv, sizeof(mat4));
    snap.view.fov_y = 0.9f;
    snap.view.clear_color[0] = 0.05f;
    snap.view.clear_color[1] = 0.07f;
    snap.view.clear_color[2] = 0.12f;
    snap.has_sun = true;
    float l = sqrtf(1.0f + 0.36f);
    snap.sun.direction[1] = -1.0f / l;
    snap.sun.direction[2] = -0.6f / l;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    snap.sun.shadows = true;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.08f;
    snap.instances = (rill_render_instance *)inst;
    snap.instance_count = 2;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.validation_messages, 0);
    *draws = st.draw_calls;
}

/* Pixels of px that differ from their left-right mirror pixel by more than the golden tolerance
 * on some channel. */
static uint32_t asymmetric_pixels(const uint8_t *px) {
    uint32_t bad = 0;
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *a = &px[(y * W + x) * 4], *b = &px[(y * W + (W - 1 - x)) * 4];
            for (int c = 0; c < 3; c++) {
                if (abs((int)a[c] - (int)b[c]) > RILL_GOLDEN_TOLERANCE) {
                    bad++;
                    break;
                }
            }
        }
    }
    return bad;
}

/* Pixels of the right half (the mirrored cube's) that are not the clear colour. */
static uint32_t right_half_covered(const uint8_t *px) {
    uint8_t clear[4];
    memcpy(clear, &px[0], 4); /* the top-left corner shows the clear colour */
    uint32_t n = 0;
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = W / 2; x < W; x++) {
            n += memcmp(&px[(y * W + x) * 4], clear, 3) != 0;
        }
    }
    return n;
}

/* Writes px to $RILL_TEST_TMP/<name>.png for a look after a failure; returns where. */
static const char *keep_frame(const char *name, const uint8_t *px) {
    static char path[1024];
    const char *tmp = getenv("RILL_TEST_TMP");
    if (!tmp) {
        return "(RILL_TEST_TMP not set)";
    }
    rill_dir_create_all(tmp, NULL);
    snprintf(path, sizeof(path), "%s/%s.png", tmp, name);
    rill_image_write_png(path, px, W, H, 4, NULL);
    return path;
}

/* The cube and its mirror with material m: the picture must equal its own left-right flip. */
static void expect_mirror_symmetric(fixture *f, rill_material m, const char *what) {
    rill_render_instance inst[2];
    place(&inst[0], 1, f->cube, m, -1.2f, 0.6f, 1.0f);
    place(&inst[1], 2, f->cube, m, 1.2f, -0.6f, -1.0f);
    static uint8_t px[W * H * 4];
    uint32_t draws;
    render_pair(f, inst, px, &draws);
    assert_true(right_half_covered(px) > 2000);
    uint32_t bad = asymmetric_pixels(px);
    print_message("%s: %u of %u pixels differ from their mirror pixel\n", what, bad, W * H);
    if ((double)bad > (1.0 - RILL_GOLDEN_MIN_MATCH) * W * H) {
        fail_msg("%s: %u of %u pixels differ from the mirrored picture (frame: %s)", what, bad,
                 W * H, keep_frame(what, px));
    }
}

static void test_mirrored_opaque(void **state) {
    fixture *f = *state;
    expect_mirror_symmetric(f, cube_material(f, false, RILL_ALPHA_OPAQUE), "mirror_opaque");
}

/* Double-sided: nothing is culled, but the shaders turn the normal around on back faces, so a
 * mirrored instance must still tell its front faces from its back faces. */
static void test_mirrored_double_sided(void **state) {
    fixture *f = *state;
    expect_mirror_symmetric(f, cube_material(f, true, RILL_ALPHA_OPAQUE), "mirror_double_sided");
}

static void test_mirrored_blended(void **state) {
    fixture *f = *state;
    expect_mirror_symmetric(f, cube_material(f, false, RILL_ALPHA_BLEND), "mirror_blended");
}

/* A mirrored instance never shares an instanced draw with unmirrored ones of the same mesh and
 * material (they need another front face) in the prepass and opaque pass, while the shadow pass,
 * which culls nothing, still draws both with one call per cascade: one draw more in each of the
 * two passes, nothing more elsewhere. */
static void test_mirrored_runs(void **state) {
    fixture *f = *state;
    rill_material m = cube_material(f, false, RILL_ALPHA_OPAQUE);
    rill_render_instance inst[2];
    static uint8_t px[W * H * 4];
    uint32_t plain, mirrored;
    place(&inst[0], 1, f->cube, m, -1.2f, 0.6f, 1.0f);
    place(&inst[1], 2, f->cube, m, 1.2f, -0.6f, 1.0f);
    render_pair(f, inst, px, &plain);
    place(&inst[1], 2, f->cube, m, 1.2f, -0.6f, -1.0f);
    render_pair(f, inst, px, &mirrored);
    assert_int_equal(mirrored, plain + 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mirrored_opaque, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mirrored_double_sided, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mirrored_blended, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mirrored_runs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
