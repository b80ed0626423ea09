/* test_gltf_material_ext.c: KHR_materials_iridescence, _anisotropy and _dispersion seen in pixels,
 * through the path a user's file takes (.gltf text -> reader -> renderer model -> frame), on
 * lavapipe with validation on, with the square of fidelity_quad.h seen head on:
 * - iridescence: a thin film turns a dark dielectric's grey highlight into colours, and its
 *   thickness texture (green 0 over a minimum of 0 nm: no film) takes them away on that half;
 * - anisotropy: a round highlight stretches along the tangent (u, world +X), across with a
 *   rotation of 90 degrees, and along the direction its texture gives;
 * - dispersion: a white square seen through a thick refracting volume has grey edges, which
 *   dispersion splits into colour fringes (red and blue apart);
 * - a device allowing only Vulkan's minimum of 16 samplers per stage is refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fidelity_quad.h"
#include "golden.h"
#include "render_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "rill/formats/gltf.h"

#define W 64
#define H 64

#include "fidelity_view.h" /* after W and H */

/* The square of material `mat` (textures from texels) alone, in the sun. */
static void render_square(rill_renderer *r, const char *mat, const uint8_t texels[2][4], float sun,
                          uint8_t *px) {
    fq_opts o = {.material = mat};
    if (texels) {
        memcpy(o.texels, texels, sizeof(o.texels));
    }
    rill_render_model rm;
    rill_gltf_model *m = fq_load(r, &o, "material_ext.gltf", &rm);
    fq_render(r, rm.instances, 1, sun, 0.05f, px);
    rill_render_model_destroy(r, &rm);
    rill_gltf_model_free(m);
}

/* How far from grey a pixel is: its largest channel less its smallest. */
static int chroma(const uint8_t *p) {
    int hi = p[0] > p[1] ? p[0] : p[1], lo = p[0] < p[1] ? p[0] : p[1];
    hi = hi > p[2] ? hi : p[2];
    lo = lo < p[2] ? lo : p[2];
    return hi - lo;
}

/* The mean chroma over the band |x| in [0.05, 0.45], |y| <= 0.4 on one side (-1 left, 1 right),
 * where the sun's highlight falls. */
static float band_chroma(const uint8_t *px, float side) {
    float sum = 0.0f;
    int n = 0;
    for (float y = -0.4f; y <= 0.4f; y += 0.05f) {
        for (float x = 0.05f; x <= 0.45f; x += 0.05f) {
            sum += (float)chroma(fq_at(px, side * x, y));
            n++;
        }
    }
    return sum / (float)n;
}

static const char k_dark[] = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.02,0.02,0.02,1],"
                             "\"metallicFactor\":0,\"roughnessFactor\":%s}%s}";

/* KHR_materials_iridescence: a dark smooth dielectric's highlight is grey; under a 400 nm film
 * (ior 1.3) it turns coloured. With the thickness texture (green 0 on the left, 255 on the
 * right) over a minimum of 0 nm, the left half has no film and stays grey. The coloured picture
 * is the golden gltf_iridescence. */
static void test_iridescence(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t bare[W * H * 4], film[W * H * 4], half[W * H * 4];
    char mat[768];
    snprintf(mat, sizeof(mat), k_dark, "0.5", "");
    render_square(r, mat, NULL, 3.0f, bare);
    snprintf(mat, sizeof(mat), k_dark, "0.5",
             ",\"extensions\":{\"KHR_materials_iridescence\":{\"iridescenceFactor\":1,"
             "\"iridescenceIor\":1.3,\"iridescenceThicknessMaximum\":400}}");
    render_square(r, mat, NULL, 3.0f, film);
    snprintf(mat, sizeof(mat), k_dark, "0.5",
             ",\"extensions\":{\"KHR_materials_iridescence\":{\"iridescenceFactor\":1,"
             "\"iridescenceThicknessMinimum\":0,\"iridescenceThicknessMaximum\":400,"
             "\"iridescenceThicknessTexture\":{\"index\":0}}}");
    const uint8_t texels[2][4] = {{0, 0, 0, 255}, {0, 255, 0, 255}};
    render_square(r, mat, texels, 3.0f, half);
    float cb = band_chroma(bare, 1), cf = band_chroma(film, 1);
    float hl = band_chroma(half, -1), hr = band_chroma(half, 1);
    const uint8_t *p = fq_at(film, 0.1f, 0.0f), *q = fq_at(bare, 0.1f, 0.0f);
    print_message("highlight chroma: bare %.1f, film %.1f; thickness texture: left (0 nm) %.1f, "
                  "right (400 nm) %.1f; pixel bare %u,%u,%u film %u,%u,%u\n",
                  (double)cb, (double)cf, (double)hl, (double)hr, q[0], q[1], q[2], p[0], p[1],
                  p[2]);
    assert_true(cb < 4.0f);
    assert_true(cf > cb + 12.0f);
    assert_true(hl < cb + 4.0f);
    assert_true(hr > hl + 12.0f);
    golden_expect("gltf_iridescence", film, W, H);
    render_test_destroy_clean(r, false);
}

/* The mean luma of a 3 x 3 block around the square's point (x, y). */
static float block_luma(const uint8_t *px, float x, float y) {
    float sum = 0.0f;
    for (int j = -1; j <= 1; j++) {
        for (int i = -1; i <= 1; i++) {
            sum += fq_luma(fq_at(px, x + 0.03f * (float)i, y + 0.03f * (float)j));
        }
    }
    return sum / 9.0f;
}

/* The mean of block_luma at 0.7 either side of the middle on the X axis (x_axis) or Y axis. */
static float axis_luma(const uint8_t *px, int x_axis) {
    const float d = 0.7f;
    return x_axis ? 0.5f * (block_luma(px, d, 0) + block_luma(px, -d, 0))
                  : 0.5f * (block_luma(px, 0, d) + block_luma(px, 0, -d));
}

/* KHR_materials_anisotropy: the sun's highlight on a smooth dark square is round (as bright at
 * x = 0.7 as at y = 0.7); with strength 1 it stretches along the tangent (u, world +X), so the
 * point on the X axis is brighter than the one on the Y axis; rotated 90 degrees it stretches
 * along Y; a direction texture of (0, 1) (red 128, green 255) stretches it along Y too. The
 * stretched picture is the golden gltf_anisotropy. */
static void test_anisotropy(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    static uint8_t iso[W * H * 4], along[W * H * 4], turned[W * H * 4], textured[W * H * 4];
    char mat[768];
    snprintf(mat, sizeof(mat), k_dark, "0.3", "");
    render_square(r, mat, NULL, 4.0f, iso);
    snprintf(mat, sizeof(mat), k_dark, "0.3",
             ",\"extensions\":{\"KHR_materials_anisotropy\":{\"anisotropyStrength\":1}}");
    render_square(r, mat, NULL, 4.0f, along);
    snprintf(mat, sizeof(mat), k_dark, "0.3",
             ",\"extensions\":{\"KHR_materials_anisotropy\":{\"anisotropyStrength\":1,"
             "\"anisotropyRotation\":1.5707963}}");
    render_square(r, mat, NULL, 4.0f, turned);
    snprintf(mat, sizeof(mat), k_dark, "0.3",
             ",\"extensions\":{\"KHR_materials_anisotropy\":{\"anisotropyStrength\":1,"
             "\"anisotropyTexture\":{\"index\":0}}}");
    const uint8_t texels[2][4] = {{128, 255, 255, 255}, {128, 255, 255, 255}};
    render_square(r, mat, texels, 4.0f, textured);
    float ix = axis_luma(iso, 1), iy = axis_luma(iso, 0);
    float ax = axis_luma(along, 1), ay = axis_luma(along, 0);
    float tx = axis_luma(turned, 1), ty = axis_luma(turned, 0);
    float xx = axis_luma(textured, 1), xy = axis_luma(textured, 0);
    print_message("luma on the X axis / Y axis: isotropic %.1f / %.1f, along the tangent %.1f / "
                  "%.1f, rotated 90 degrees %.1f / %.1f, textured (0, 1) %.1f / %.1f\n",
                  (double)ix, (double)iy, (double)ax, (double)ay, (double)tx, (double)ty,
                  (double)xx, (double)xy);
    assert_true(fabsf(ix - iy) < 8.0f);
    assert_true(ax > ay + 10.0f);
    assert_true(ty > tx + 10.0f);
    assert_true(xy > xx + 10.0f);
    golden_expect("gltf_anisotropy", along, W, H);
    render_test_destroy_clean(r, false);
}

/* The square of `front` with, 1.5 behind it, an unlit white square of 0.4 its size, in the sky
 * light only, drawn by r into px. Both squares' models are made and destroyed here, so the next
 * picture in the same renderer gets new models whose instance ids repeat these (a renderer once
 * drew the back square with the front's transform then: the test keeps one renderer for both). */
static void render_over_white(rill_renderer *r, const char *front, uint8_t *px) {
    fq_render_over(r, front, "[1,1,1,1]", "material_ext.gltf", px);
}

/* Pixels whose red and blue differ by more than 40 (colour fringes), and the largest such
 * difference. */
static int fringe_pixels(const uint8_t *px, int *largest) {
    int n = 0;
    *largest = 0;
    for (int i = 0; i < W * H; i++) {
        int dv = abs((int)px[i * 4] - (int)px[i * 4 + 2]);
        n += dv > 40;
        *largest = dv > *largest ? dv : *largest;
    }
    return n;
}

/* KHR_materials_dispersion: a clear square (transmission 1, a volume 4 thick, ior 1.5) in front
 * of a small white one. Without dispersion every channel refracts alike and the white square
 * shows through grey-white, with no colour anywhere; with dispersion 20 (iors 1.25, 1.5, 1.75 for
 * red, green and blue) the channels land apart and its edges split into colours. The split
 * picture is the golden gltf_dispersion. */
static void test_dispersion(void **state) {
    (void)state;
    static uint8_t plain[W * H * 4], split[W * H * 4];
    const char *fmt = "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,1],"
                      "\"metallicFactor\":0,\"roughnessFactor\":0},\"extensions\":{"
                      "\"KHR_materials_transmission\":{\"transmissionFactor\":1},"
                      "\"KHR_materials_volume\":{\"thicknessFactor\":4}%s}}";
    char mat[768];
    snprintf(mat, sizeof(mat), fmt, "");
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    render_over_white(r, mat, plain);
    snprintf(mat, sizeof(mat), fmt, ",\"KHR_materials_dispersion\":{\"dispersion\":20}");
    render_over_white(r, mat, split);
    render_test_destroy_clean(r, false);
    int lp = 0, ls = 0;
    int np = fringe_pixels(plain, &lp), ns = fringe_pixels(split, &ls);
    const uint8_t *c = fq_at(split, 0, 0);
    print_message("pixels with red and blue apart by over 40: %d without dispersion (largest "
                  "%d), %d with (largest %d); middle %u,%u,%u\n",
                  np, lp, ns, ls, c[0], c[1], c[2]);
    assert_int_equal(np, 0);
    assert_true(ns >= 20);
    assert_true(ls > 100);
    assert_true(c[0] > 150 && c[2] > 150); /* the middle (no bending head on) stays white */
    golden_expect("gltf_dispersion", split, W, H);
}

/* A renderer on a device emulated (RILL_MAX_STAGE_SAMPLERS) to allow `limit` samplers per shader
 * stage: RILL_OK (it started, and is gone again) or why it did not. */
static rill_result create_with_limit(uint32_t limit, rill_error *err) {
    char v[16];
    snprintf(v, sizeof(v), "%u", limit);
    setenv("RILL_MAX_STAGE_SAMPLERS", v, 1);
    rill_renderer *r = rill_renderer_create(&(rill_renderer_desc){.width = W, .height = H}, err);
    unsetenv("RILL_MAX_STAGE_SAMPLERS");
    if (r) {
        rill_renderer_destroy(r);
        return RILL_OK;
    }
    return err->code;
}

/* A device at Vulkan's guaranteed minimum of 16 samplers per shader stage cannot take the
 * material pipelines (17 material textures, plus the frame's in the lit passes): the renderer
 * refuses to start, naming the pipeline, its count and the limit, instead of failing inside the
 * driver. Raising the limit to each refusal's count walks through the pipelines until one fits
 * them all: the lit opaque pass is the last refused, and the renderer starts at its count. */
static void test_sampler_limit(void **state) {
    (void)state;
    rill_renderer *r = fq_renderer();
    if (!r) {
        skip();
    }
    render_test_destroy_clean(r, false);
    uint32_t limit = 16, refusals = 0;
    rill_error err = {0}, last = {0};
    rill_result res;
    while ((res = create_with_limit(limit, &err)) == RILL_ERR_UNSUPPORTED && limit < 1024) {
        char pipe[64] = {0};
        unsigned binds = 0, allows = 0;
        const char *at = strstr(err.msg, "pipeline '");
        assert_non_null(at);
        assert_int_equal(
            sscanf(at, "pipeline '%63[^']' binds %u samplers per shader stage", pipe, &binds), 2);
        const char *al = strstr(err.msg, "allows ");
        assert_non_null(al);
        assert_int_equal(sscanf(al, "allows %u (maxPerStageDescriptorSamplers)", &allows), 1);
        print_message("limit %u: %s\n", limit, err.msg);
        assert_int_equal(allows, limit);
        assert_true(binds > limit);
        last = err;
        limit = binds;
        refusals++;
    }
    assert_int_equal(res, RILL_OK);
    assert_true(refusals >= 2); /* the prepass (17) first, the lit passes after */
    assert_non_null(strstr(last.msg, "pipeline 'opaque"));
    assert_true(limit >= 17 + 11);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iridescence),
        cmocka_unit_test(test_anisotropy),
        cmocka_unit_test(test_dispersion),
        cmocka_unit_test(test_sampler_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
