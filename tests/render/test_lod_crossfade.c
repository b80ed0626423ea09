/* test_lod_crossfade.c: the dithered LOD crossfade (rill_render_instance.lod_fade) on lavapipe with
 * validation on. A golden of a mid-crossfade frame (a red cube fading out into a green sphere, sun
 * shadows on the ground); and the coverage rule: two levels carrying -f and +f cover every pixel
 * of the mesh exactly once, in the opaque and the transparent passes (a blended pixel drawn twice
 * or not at all would show), and their shadow is the whole mesh's shadow (the shadow pass dithers
 * with the same complementary patterns, so the pair's shadow map has no hole). */
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

#include <cglm/cglm.h>

#include "golden.h"
#include "rill/render.h"

#define W 128
#define H 128

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube, sphere, plane;
    rill_render_instance inst[8];
    uint32_t n;
    rill_render_snapshot snap;
} fixture;

static int setup(void **state) {
    /* Low: no SSAO, bloom or auto exposure, so pixels stay apart. */
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 512, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    f->sphere = render_test_sphere(f->r, 32);
    f->plane = render_test_plane(f->r);
    return 0;
}

static void scene(fixture *f, bool with_sun) {
    mat4 inv;
    render_test_look_at(inv, (float[3]){0, 2.6f, 4.2f}, (float[3]){0, 0.5f, 0});
    memset(&f->snap, 0, sizeof(f->snap));
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.9f;
    f->snap.view.clear_color[2] = 0.2f;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.05f;
    if (with_sun) {
        f->snap.has_sun = true;
        glm_vec3_normalize_to((vec3){-0.5f, -1.0f, -0.3f}, f->snap.sun.direction);
        f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
        f->snap.sun.illuminance = 2.5f;
        f->snap.sun.shadows = true;
    }
    f->n = 0;
}

static rill_material mat(fixture *f, float r, float g, float b, float a, rill_alpha_mode mode) {
    return render_test_material(f->r, (rill_material_desc){.base_color = {r, g, b, a},
                                                           .roughness = 0.7f,
                                                           .roughness_set = true,
                                                           .alpha_mode = mode});
}

static void add(fixture *f, rill_mesh mesh, rill_material m, float y, float s, float fade) {
    rill_render_instance *in = &f->inst[f->n];
    render_test_place(in, f->n + 1, mesh, m, (float[3]){0, y, 0}, s, 0.0f);
    in->lod_fade = fade;
    f->n++;
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

static bool same_px(const uint8_t *a, const uint8_t *b, int tol) {
    for (int c = 0; c < 3; c++) {
        if (abs((int)a[c] - (int)b[c]) > tol) {
            return false;
        }
    }
    return true;
}

/* Mid-crossfade: the cube draws the pixels its -0.5 dither keeps, the sphere the others, and
 * the shadow on the ground is cut by the same patterns. */
static void test_crossfade_golden(void **state) {
    fixture *f = *state;
    static uint8_t px[W * H * 4];
    scene(f, true);
    add(f, f->plane, mat(f, 0.6f, 0.6f, 0.6f, 1, RILL_ALPHA_OPAQUE), 0, 8.0f, 0.0f);
    add(f, f->cube, mat(f, 0.9f, 0.1f, 0.1f, 1, RILL_ALPHA_OPAQUE), 0.6f, 1.2f, -0.5f);
    add(f, f->sphere, mat(f, 0.1f, 0.9f, 0.2f, 1, RILL_ALPHA_OPAQUE), 0.6f, 1.2f, 0.5f);
    render(f, px);
    golden_expect("lod_crossfade", px, W, H);
    /* The dither is visible: inside the cube's silhouette both colours occur, in a fine mix. */
    uint32_t red = 0, green = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        const uint8_t *p = &px[i * 4];
        red += p[0] > 2 * p[1] + 20 && p[0] > 2 * p[2] + 20;
        green += p[1] > 2 * p[0] + 20 && p[1] > 2 * p[2] + 20;
    }
    assert_true(red > 200 && green > 200);
}

/* Every pixel of a crossfading pair is drawn by exactly one level, at several fades, in the
 * opaque and transparent passes; and its shadow equals the mesh's own. */
static void test_crossfade_covers_once(void **state) {
    fixture *f = *state;
    static uint8_t bg[W * H * 4], only_a[W * H * 4], only_b[W * H * 4], pair[W * H * 4];
    for (int pass = 0; pass < 2; pass++) {
        rill_alpha_mode mode = pass ? RILL_ALPHA_BLEND : RILL_ALPHA_OPAQUE;
        float alpha = pass ? 0.5f : 1.0f;
        rill_material ma = mat(f, 1.0f, 0.05f, 0.05f, alpha, mode);
        rill_material mb = mat(f, 0.05f, 0.05f, 1.0f, alpha, mode);
        /* References: nothing, level a whole, level b whole (same mesh: same silhouette). */
        scene(f, false);
        render(f, bg);
        scene(f, false);
        add(f, f->cube, ma, 0.6f, 1.2f, 0.0f);
        render(f, only_a);
        scene(f, false);
        add(f, f->cube, mb, 0.6f, 1.2f, 0.0f);
        render(f, only_b);
        const float fades[3] = {1.0f / 16.0f, 0.5f, 13.0f / 16.0f};
        for (int k = 0; k < 3; k++) {
            scene(f, false);
            add(f, f->cube, ma, 0.6f, 1.2f, -fades[k]); /* outgoing */
            add(f, f->cube, mb, 0.6f, 1.2f, fades[k]);  /* incoming */
            render(f, pair);
            uint32_t inside = 0, from_b = 0;
            for (uint32_t i = 0; i < W * H; i++) {
                const uint8_t *p = &pair[i * 4];
                if (same_px(&only_a[i * 4], &bg[i * 4], 0)) {
                    /* outside the mesh: untouched */
                    if (!same_px(p, &bg[i * 4], 0)) {
                        fail_msg("pass %d fade %g: pixel %u outside the mesh drawn", pass,
                                 (double)fades[k], i);
                    }
                    continue;
                }
                inside++;
                bool a = same_px(p, &only_a[i * 4], 1), b = same_px(p, &only_b[i * 4], 1);
                if (a == b) { /* neither: a hole or a double blend; both cannot happen (colours) */
                    fail_msg("pass %d fade %g: pixel (%u, %u) is %u,%u,%u: not one level", pass,
                             (double)fades[k], i % W, i / W, p[0], p[1], p[2]);
                }
                from_b += b;
            }
            /* The incoming level draws about `fade` of the pixels (a 4x4 pattern over a few
             * thousand pixels). */
            double share = (double)from_b / (double)inside;
            assert_true(inside > 1000);
            if (fabs(share - (double)fades[k]) > 0.05) {
                fail_msg("pass %d: incoming share %.3f at fade %g", pass, share, (double)fades[k]);
            }
        }
    }
    /* Shadows: a lit cube over a ground plane; the pair's ground (its shadow) equals the whole
     * cube's, while one level alone leaves a dithered shadow (so the shadow pass dithers). */
    rill_material ground = mat(f, 0.7f, 0.7f, 0.7f, 1, RILL_ALPHA_OPAQUE);
    rill_material ma = mat(f, 0.9f, 0.2f, 0.2f, 1, RILL_ALPHA_OPAQUE);
    static uint8_t whole[W * H * 4], half[W * H * 4];
    scene(f, true);
    add(f, f->plane, ground, 0, 8.0f, 0.0f);
    add(f, f->cube, ma, 0.6f, 1.2f, 0.0f);
    render(f, whole);
    scene(f, true);
    add(f, f->plane, ground, 0, 8.0f, 0.0f);
    add(f, f->cube, ma, 0.6f, 1.2f, -0.5f);
    add(f, f->cube, ma, 0.6f, 1.2f, 0.5f);
    render(f, pair);
    scene(f, true);
    add(f, f->plane, ground, 0, 8.0f, 0.0f);
    add(f, f->cube, ma, 0.6f, 1.2f, 0.5f);
    render(f, half);
    uint32_t differ_pair = 0, differ_half = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        differ_pair += !same_px(&pair[i * 4], &whole[i * 4], 1);
        differ_half += !same_px(&half[i * 4], &whole[i * 4], 1);
    }
    assert_int_equal(differ_pair, 0);
    assert_true(differ_half > 500); /* the lone level's holes: cube and shadow both dithered */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_crossfade_golden, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_crossfade_covers_once, setup, render_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
