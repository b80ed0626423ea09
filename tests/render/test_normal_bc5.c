/* test_normal_bc5.c: a normal map stored as BC5, the format `rill export` gives every normal map
 * (.rmip, docs/textures.md), shades as the RGBA8 image it was made from, on lavapipe with
 * validation on. BC5 holds only X and Y (red and green): blue samples as 0, so a shader that
 * reads the normal's Z from the texture turns every exported normal map's normals into the
 * surface (Z = -1) and draws those materials dark, from the pack only (found comparing a loose and
 * an exported ClearCoatTest: its normal-mapped rows were darker from the pack).
 *
 * A cube with a normal map of ridges (tilted up and down along v, every normal of unit length) is
 * drawn with the map uploaded as one BC5 level and as one RGBA8 level of what the BC5 blocks
 * decode to (X and Y, with their Z in blue); the two pictures must match by the golden rule. A
 * flat map as BC5 must also match the same cube drawn without a normal map. */
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
#include "rill/formats/bc.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip.h"

#define W 128
#define H 128
#define S 64 /* the normal map's size */

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube;
} fixture;

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 512, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    return 0;
}

/* The tangent-space normal map: ridges along v (amp > 0) or flat (amp 0), unit normals. */
static void make_map(uint8_t *rgba, float amp) {
    for (int y = 0; y < S; y++) {
        for (int x = 0; x < S; x++) {
            float s = sinf((float)y * 0.4f) * amp;
            uint8_t *n = &rgba[(y * S + x) * 4];
            n[0] = 128, n[1] = (uint8_t)(128 + 127 * s);
            n[2] = (uint8_t)(127.5f + 127.5f * sqrtf(1 - s * s)), n[3] = 255;
        }
    }
}

/* One linear level of rgba as RGBA8 or BC5 (encoded here), uploaded; bytes is the caller's. */
static rill_texture upload(fixture *f, const uint8_t *rgba, rill_tex_format format, uint8_t *bytes,
                           size_t cap) {
    rill_error err = {0};
    uint64_t size = 0;
    assert_true(rill_tex_level_size(format, S, S, &size));
    assert_true(size <= cap);
    if (format == RILL_TEX_FORMAT_RGBA8) {
        memcpy(bytes, rgba, (size_t)size);
    } else {
        assert_int_equal(
            rill_bc_encode_image(format, rgba, S, S, 0, NULL, bytes, (size_t)size, &err), RILL_OK);
    }
    rill_tex_data tex;
    memset(&tex, 0, sizeof(tex));
    tex.format = format;
    tex.flags = RILL_RMIP_FLAG_NORMAL_MAP;
    tex.width = tex.full_width = S;
    tex.height = tex.full_height = S;
    tex.level_count = 1;
    tex.levels[0] = (rill_tex_level){S, S, bytes, (size_t)size};
    rill_texture t = rill_render_texture_create_data(f->r, &tex, "normal map", &err);
    if (!t.id) {
        fail_msg("texture: %s", err.msg);
    }
    return t;
}

/* The cube, turned to show three faces, lit by a low sun; normal map nrm (0: none) into px. */
static void draw(fixture *f, rill_texture nrm, uint8_t *px) {
    rill_material m =
        render_test_material(f->r, (rill_material_desc){.base_color = {0.8f, 0.8f, 0.8f, 1},
                                                        .roughness = 0.5f,
                                                        .roughness_set = true,
                                                        .normal_texture = nrm});
    rill_render_instance inst;
    render_test_place(&inst, 1, f->cube, m, (float[3]){0, 0, 0}, 1.4f, 0.6f);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 inv;
    render_test_look_at(inv, (float[3]){1.6f, 1.8f, 2.6f}, (float[3]){0, 0, 0});
    memcpy(snap.view.world_from_view, inv, sizeof(mat4));
    snap.view.fov_y = 0.9f;
    snap.has_sun = true;
    float l = sqrtf(0.09f + 0.25f + 1.0f);
    snap.sun.direction[0] = -0.3f / l, snap.sun.direction[1] = -0.5f / l;
    snap.sun.direction[2] = -1.0f / l;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.05f;
    snap.instances = &inst;
    snap.instance_count = 1;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    rill_render_material_destroy(f->r, m);
}

/* Pixels of a and b whose colour differs by more than the golden tolerance; the mean of a. */
static uint32_t differing(const uint8_t *a, const uint8_t *b, double *mean_a, double *mean_b) {
    uint32_t bad = 0;
    double sa = 0, sb = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        for (int c = 0; c < 3; c++) {
            sa += a[i * 4 + c], sb += b[i * 4 + c];
        }
        for (int c = 0; c < 3; c++) {
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > RILL_GOLDEN_TOLERANCE) {
                bad++;
                break;
            }
        }
    }
    *mean_a = sa / (3.0 * W * H), *mean_b = sb / (3.0 * W * H);
    return bad;
}

static void expect_same(const char *what, const uint8_t *want, const uint8_t *got) {
    double ma, mb;
    uint32_t bad = differing(want, got, &ma, &mb);
    print_message("%s: %u of %u pixels differ; mean %.1f, BC5 %.1f\n", what, bad, W * H, ma, mb);
    if ((double)bad > (1.0 - RILL_GOLDEN_MIN_MATCH) * W * H) {
        fail_msg("%s: %u of %u pixels differ from the RGBA8 picture (mean %.1f, BC5 %.1f)", what,
                 bad, W * H, ma, mb);
    }
}

static void test_bc5_ridges_like_rgba8(void **state) {
    fixture *f = *state;
    static uint8_t map[S * S * 4], bytes[S * S * 4], want[W * H * 4], got[W * H * 4];
    make_map(map, 0.6f);
    rill_texture b = upload(f, map, RILL_TEX_FORMAT_BC5, bytes, sizeof(bytes));
    draw(f, b, got);
    /* The reference: what the BC5 blocks hold (X and Y after compression), with their Z, as
     * RGBA8, so the pictures differ only if the BC5 one reads its normals another way. */
    rill_error err = {0};
    assert_int_equal(rill_bc_decode_image(RILL_TEX_FORMAT_BC5, bytes, sizeof(bytes), S, S, map,
                                          sizeof(map), &err),
                     RILL_OK);
    for (int i = 0; i < S * S; i++) {
        float x = map[i * 4] / 127.5f - 1.0f, y = map[i * 4 + 1] / 127.5f - 1.0f;
        map[i * 4 + 2] = (uint8_t)lrintf(127.5f + 127.5f * sqrtf(fmaxf(0.0f, 1 - x * x - y * y)));
    }
    rill_texture a = upload(f, map, RILL_TEX_FORMAT_RGBA8, bytes, sizeof(bytes));
    draw(f, a, want);
    expect_same("ridges", want, got);
    rill_render_texture_destroy(f->r, a);
    rill_render_texture_destroy(f->r, b);
}

static void test_bc5_flat_like_no_map(void **state) {
    fixture *f = *state;
    static uint8_t map[S * S * 4], bytes[S * S * 4], want[W * H * 4], got[W * H * 4];
    make_map(map, 0.0f);
    draw(f, (rill_texture){0}, want);
    rill_texture b = upload(f, map, RILL_TEX_FORMAT_BC5, bytes, sizeof(bytes));
    draw(f, b, got);
    expect_same("flat", want, got);
    rill_render_texture_destroy(f->r, b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bc5_ridges_like_rgba8),
        cmocka_unit_test(test_bc5_flat_like_no_map),
    };
    return cmocka_run_group_tests(tests, setup, render_test_teardown);
}
