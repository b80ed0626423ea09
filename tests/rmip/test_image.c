/* test_image.c: image import and mip generation: sRGB-correct averaging (a 0/255 checkerboard
 * gives 188, not 128), premultiplied alpha (transparent pixels do not bleed colour), normal maps
 * renormalized per level, odd and 1 x N sizes, HDR values kept, import errors naming the file,
 * and the half-float conversion. */
#include "rill_test.h"

#include <math.h>

#include "rill/formats/image.h"

static rill_image make_rgba8(uint32_t w, uint32_t h) {
    rill_image img;
    rill_error err = {0};
    assert_int_equal(rill_image_alloc(&img, w, h, RILL_PIXEL_RGBA8, &err), RILL_OK);
    return img;
}

static void test_checkerboard_srgb(void **state) {
    (void)state;
    const uint32_t n = 64;
    rill_image img = make_rgba8(n, n);
    uint8_t *p = img.pixels;
    for (uint32_t y = 0; y < n; y++) {
        for (uint32_t x = 0; x < n; x++) {
            uint8_t v = ((x + y) & 1) ? 255 : 0;
            p[(y * n + x) * 4] = p[(y * n + x) * 4 + 1] = p[(y * n + x) * 4 + 2] = v;
            p[(y * n + x) * 4 + 3] = 255;
        }
    }
    rill_mip_chain chain;
    rill_error err = {0};
    assert_int_equal(rill_image_build_mips(&img, NULL, &chain, &err), RILL_OK);
    assert_int_equal(chain.count, 7);
    for (uint32_t lv = 1; lv < chain.count; lv++) {
        const uint8_t *q = chain.levels[lv].pixels;
        uint32_t w = chain.levels[lv].width;
        /* Away from the borders (where the clamped filter taps fold onto one parity) every pixel
         * is the linear mean 0.5, i.e. sRGB 187.5; a gamma-naive filter would give 128. */
        uint32_t margin = lv == 1 ? 2 : 3;
        for (uint32_t y = 0; y < w; y++) {
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *px = q + (y * w + x) * 4;
                bool interior = x >= margin && y >= margin && x + margin < w && y + margin < w;
                if (interior) {
                    assert_true(abs((int)px[0] - 188) <= 1);
                }
                assert_true(abs((int)px[0] - 188) <= 24);
                assert_int_equal(px[3], 255);
            }
        }
    }
    /* Level 0 is the base, untouched. */
    assert_memory_equal(chain.levels[0].pixels, img.pixels, img.size);
    rill_mip_chain_free(&chain);

    /* The same data as linear (LINEAR usage) averages to 128. */
    rill_mip_desc d = {.usage = RILL_MIP_LINEAR, .max_levels = 2};
    assert_int_equal(rill_image_build_mips(&img, &d, &chain, &err), RILL_OK);
    assert_int_equal(chain.count, 2);
    const uint8_t *mid = (const uint8_t *)chain.levels[1].pixels + (16 * 32 + 16) * 4;
    assert_true(abs((int)mid[0] - 128) <= 1);
    rill_mip_chain_free(&chain);
    rill_image_free(&img);
}

static void test_alpha_premultiplied(void **state) {
    (void)state;
    /* One opaque red pixel among transparent green ones: the colour of the reduced pixel is red
     * (transparent texels carry no colour), its alpha a quarter. */
    rill_image img = make_rgba8(2, 2);
    uint8_t *p = img.pixels;
    for (int i = 0; i < 4; i++) {
        p[i * 4] = 0;
        p[i * 4 + 1] = 255;
        p[i * 4 + 2] = 0;
        p[i * 4 + 3] = 0;
    }
    p[0] = 255;
    p[1] = 0;
    p[3] = 255;
    rill_mip_chain chain;
    rill_error err = {0};
    assert_int_equal(rill_image_build_mips(&img, NULL, &chain, &err), RILL_OK);
    const uint8_t *q = chain.levels[1].pixels;
    assert_int_equal(q[0], 255);
    assert_int_equal(q[1], 0);
    assert_true(abs((int)q[3] - 64) <= 1);
    rill_mip_chain_free(&chain);
    rill_image_free(&img);
}

static void test_normals_renormalized(void **state) {
    (void)state;
    /* Alternating normals tilted +x and -x by 60 degrees: the plain average is (0, 0, 0.5); the
     * mip must store the unit vector (0, 0, 1). */
    rill_image img = make_rgba8(32, 32);
    uint8_t *p = img.pixels;
    for (uint32_t i = 0; i < 32 * 32; i++) {
        float nx = (i & 1) ? 0.866f : -0.866f, nz = 0.5f;
        p[i * 4] = (uint8_t)((nx * 0.5f + 0.5f) * 255.0f + 0.5f);
        p[i * 4 + 1] = 128;
        p[i * 4 + 2] = (uint8_t)((nz * 0.5f + 0.5f) * 255.0f + 0.5f);
        p[i * 4 + 3] = 255;
    }
    rill_mip_desc d = {.usage = RILL_MIP_NORMAL, .max_levels = 0};
    rill_mip_chain chain;
    rill_error err = {0};
    assert_int_equal(rill_image_build_mips(&img, &d, &chain, &err), RILL_OK);
    assert_int_equal(chain.count, 6);
    for (uint32_t lv = 0; lv < chain.count; lv++) {
        const uint8_t *q = chain.levels[lv].pixels;
        uint32_t w = chain.levels[lv].width;
        for (uint32_t y = 0; y < w; y++) {
            for (uint32_t x = 0; x < w; x++) {
                float v[3];
                for (int c = 0; c < 3; c++) {
                    v[c] = (float)q[(y * w + x) * 4 + c] / 255.0f * 2.0f - 1.0f;
                }
                float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                assert_true(fabsf(len - 1.0f) < 0.02f); /* unit length everywhere */
                bool interior = x >= 3 && y >= 3 && x + 3 < w && y + 3 < w;
                if (lv > 0 && interior) {
                    assert_true(v[2] > 0.98f);
                }
            }
        }
    }
    rill_mip_chain_free(&chain);
    rill_image_free(&img);
}

/* Fraction of texels of a level whose alpha passes a 0.5 alpha test. */
static float coverage_of(const rill_image *img) {
    size_t n = (size_t)img->width * img->height, pass = 0;
    for (size_t i = 0; i < n; i++) {
        pass += ((const uint8_t *)img->pixels)[i * 4 + 3] >= 128;
    }
    return (float)pass / (float)n;
}

static void test_alpha_coverage(void **state) {
    (void)state;
    /* Foliage-like cutout: thin irregular opaque strands over transparency. Plain filtering
     * averages the strands below the alpha test's threshold so the lower levels lose most of
     * them; with the cutoff given, every level keeps level 0's share of passing texels. */
    const uint32_t n = 96;
    rill_image img = make_rgba8(n, n);
    uint8_t *p = img.pixels;
    for (uint32_t y = 0; y < n; y++) {
        for (uint32_t x = 0; x < n; x++) {
            uint8_t *q = p + (y * n + x) * 4;
            q[0] = 90;
            q[1] = 140;
            q[2] = 40;
            float v = sinf((float)x * 0.9f) + sinf((float)y * 1.3f) + sinf((float)(x + y) * 0.37f);
            q[3] = v > 1.2f ? 255 : 0;
        }
    }
    rill_mip_chain plain, kept;
    rill_error err = {0};
    assert_int_equal(rill_image_build_mips(&img, NULL, &plain, &err), RILL_OK);
    rill_mip_desc d = {.usage = RILL_MIP_COLOR, .max_levels = 0, .alpha_cutoff = 0.5f};
    assert_int_equal(rill_image_build_mips(&img, &d, &kept, &err), RILL_OK);
    float c0 = coverage_of(&kept.levels[0]);
    assert_true(c0 > 0.1f && c0 < 0.4f);
    assert_true(coverage_of(&plain.levels[3]) < 0.5f * c0); /* strands thinned away */
    for (uint32_t lv = 1; lv < kept.count; lv++) {
        if ((size_t)kept.levels[lv].width * kept.levels[lv].height < 64) {
            break;
        }
        float c = coverage_of(&kept.levels[lv]);
        print_message("level %u coverage %.3f (plain %.3f)\n", lv, c,
                      coverage_of(&plain.levels[lv]));
        assert_true(fabsf(c - c0) < 0.05f);
        /* Colour is untouched by the alpha scaling. */
        assert_true(abs((int)((uint8_t *)kept.levels[lv].pixels)[1] - 140) <= 2);
    }
    rill_mip_chain_free(&plain);
    rill_mip_chain_free(&kept);
    rill_image_free(&img);
}

static void test_odd_sizes_and_hdr(void **state) {
    (void)state;
    const uint32_t dims[][3] = {{5, 3, 3}, {1, 9, 4}, {9, 1, 4}, {1, 1, 1}, {7, 7, 3}};
    for (size_t k = 0; k < RILL_COUNTOF(dims); k++) {
        rill_image img;
        rill_error err = {0};
        assert_int_equal(rill_image_alloc(&img, dims[k][0], dims[k][1], RILL_PIXEL_RGBA32F, &err),
                         RILL_OK);
        float *f = img.pixels;
        for (size_t i = 0; i < (size_t)dims[k][0] * dims[k][1] * 4; i++) {
            f[i] = 4.0f;
        }
        rill_mip_desc d = {.usage = RILL_MIP_LINEAR, .max_levels = 0};
        rill_mip_chain chain;
        assert_int_equal(rill_image_build_mips(&img, &d, &chain, &err), RILL_OK);
        assert_int_equal(chain.count, dims[k][2]);
        assert_int_equal(rill_image_mip_count(dims[k][0], dims[k][1]), dims[k][2]);
        uint32_t w = dims[k][0], h = dims[k][1];
        for (uint32_t lv = 0; lv < chain.count; lv++) {
            assert_int_equal(chain.levels[lv].width, w);
            assert_int_equal(chain.levels[lv].height, h);
            const float *q = chain.levels[lv].pixels;
            /* A constant survives filtering exactly (weights sum to 1), above 1.0 too. */
            for (size_t i = 0; i < (size_t)w * h * 4; i++) {
                assert_true(fabsf(q[i] - 4.0f) < 1e-4f);
            }
            w = RILL_MAX(1u, w / 2);
            h = RILL_MAX(1u, h / 2);
        }
        rill_mip_chain_free(&chain);
        rill_image_free(&img);
    }
}

static void test_load_errors(void **state) {
    (void)state;
    rill_image img;
    rill_error err = {0};
    const uint8_t junk[] = {0x89, 'P', 'N', 'G', 1, 2, 3};
    assert_int_equal(
        rill_image_load(junk, sizeof(junk), "tex/junk.png", RILL_PIXEL_NONE, &img, &err),
        RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "tex/junk.png"));
    assert_null(img.pixels);
    assert_int_equal(rill_image_load(junk, 0, "tex/empty.png", RILL_PIXEL_NONE, &img, &err),
                     RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "tex/empty.png"));
    /* A valid 2 x 1 binary PPM: not a format Rill reads (docs/textures.md), refused by name. */
    const uint8_t ppm[] = {'P', '6',  ' ', '2', ' ', '1', ' ', '2', '5',
                           '5', '\n', 1,   2,   3,   4,   5,   6};
    assert_int_equal(rill_image_load(ppm, sizeof(ppm), "tex/a.ppm", RILL_PIXEL_NONE, &img, &err),
                     RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "tex/a.ppm"));
    assert_null(img.pixels);
    /* A TGA header claiming 60000 x 60000: refused on the header, before any allocation. */
    uint8_t tga[18 + 4] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x60, 0xea, 0x60, 0xea, 32, 8};
    assert_int_equal(rill_image_load(tga, sizeof(tga), "huge.tga", RILL_PIXEL_NONE, &img, &err),
                     RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "huge.tga"));
    /* A real 2 x 1 TGA (uncompressed BGRA) loads, and as float it is divided by 255. */
    uint8_t ok[18 + 8] = {0, 0, 2, 0,  0, 0,  0,  0,  0,   0,  0,  0,  2,
                          0, 1, 0, 32, 8, 10, 20, 30, 255, 40, 50, 60, 128};
    assert_int_equal(rill_image_load(ok, sizeof(ok), "ok.tga", RILL_PIXEL_NONE, &img, &err),
                     RILL_OK);
    assert_int_equal(img.type, RILL_PIXEL_RGBA8);
    assert_int_equal(img.width, 2);
    const uint8_t *p = img.pixels;
    assert_int_equal(p[0], 30); /* BGR -> RGB */
    assert_int_equal(p[2], 10);
    assert_int_equal(p[7], 128);
    rill_image_free(&img);
    assert_int_equal(rill_image_load(ok, sizeof(ok), "ok.tga", RILL_PIXEL_RGBA32F, &img, &err),
                     RILL_OK);
    assert_true(fabsf(((float *)img.pixels)[0] - 30.0f / 255.0f) < 1e-6f);
    rill_image_free(&img);
    /* Every truncation of the TGA fails cleanly or loads (stb pads short pixel data). */
    for (size_t n = 0; n < sizeof(ok); n++) {
        if (rill_image_load(ok, n, "cut.tga", RILL_PIXEL_NONE, &img, &err) == RILL_OK) {
            rill_image_free(&img);
        }
    }
}

static void test_half_floats(void **state) {
    (void)state;
    const float vals[] = {0.0f, 1.0f, -2.5f, 65504.0f, 0.333f, 6.1e-5f, 3.0e-6f};
    for (size_t i = 0; i < RILL_COUNTOF(vals); i++) {
        float back = rill_f16_to_f32(rill_f32_to_f16(vals[i]));
        assert_true(fabsf(back - vals[i]) <= fabsf(vals[i]) * 0.001f + 1e-7f);
    }
    assert_int_equal(rill_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(rill_f32_to_f16(1e6f), 0x7c00); /* overflow -> infinity */
    assert_int_equal(rill_f32_to_f16(-0.0f), 0x8000);
    assert_true(fabsf(rill_srgb_to_linear(rill_linear_to_srgb(0.25f)) - 0.25f) < 1e-5f);
}

/* PNG encoding (the engine's one PNG writer) round-trips through the loader, for RGBA and grey,
 * and refuses empty or malformed input without allocating. */
static void test_png_encode_round_trip(void **state) {
    (void)state;
    uint8_t rgba[3 * 2 * 4], grey[3 * 2];
    for (uint32_t i = 0; i < 6; i++) {
        rgba[i * 4 + 0] = (uint8_t)(i * 40);
        rgba[i * 4 + 1] = (uint8_t)(255 - i * 30);
        rgba[i * 4 + 2] = (uint8_t)(i * 7);
        rgba[i * 4 + 3] = (uint8_t)(100 + i);
        grey[i] = (uint8_t)(i * 50);
    }
    rill_error err = {0};
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(rill_image_encode_png(rgba, 3, 2, 4, &png, &size, &err), RILL_OK);
    assert_true(size > 8 && memcmp(png, "\x89PNG", 4) == 0);
    rill_image img;
    assert_int_equal(rill_image_load(png, size, "rt.png", RILL_PIXEL_RGBA8, &img, &err), RILL_OK);
    assert_int_equal(img.width, 3);
    assert_int_equal(img.height, 2);
    assert_memory_equal(img.pixels, rgba, sizeof(rgba));
    rill_image_free(&img);
    rill_free(png);
    assert_int_equal(rill_image_encode_png(grey, 3, 2, 1, &png, &size, &err), RILL_OK);
    assert_int_equal(rill_image_load(png, size, "g.png", RILL_PIXEL_RGBA8, &img, &err), RILL_OK);
    assert_int_equal(img.source_channels, 1);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(((uint8_t *)img.pixels)[i * 4], grey[i]);
    }
    rill_image_free(&img);
    rill_free(png);
    assert_int_equal(rill_image_encode_png(rgba, 0, 2, 4, &png, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_null(png);
    assert_int_equal(rill_image_encode_png(rgba, 3, 2, 5, &png, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_image_encode_png(NULL, 3, 2, 4, &png, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_not_equal(rill_image_write_png("/nonexistent-dir/x.png", rgba, 3, 2, 4, &err),
                         RILL_OK);
}

/* HDR encoding round-trips through the loader within RGBE's precision (8-bit shared mantissa),
 * and refuses what PNG encoding refuses. */
static void test_hdr_encode_round_trip(void **state) {
    (void)state;
    enum { W = 5, H = 3 };
    float px[W * H * 3];
    for (int i = 0; i < W * H * 3; i++) {
        px[i] = 0.25f + (float)i * 0.5f;
    }
    rill_error err = {0};
    uint8_t *hdr = NULL;
    size_t size = 0;
    assert_int_equal(rill_image_encode_hdr(px, W, H, 3, &hdr, &size, &err), RILL_OK);
    rill_image img;
    assert_int_equal(rill_image_load(hdr, size, "m.hdr", RILL_PIXEL_NONE, &img, &err), RILL_OK);
    assert_true(img.source_hdr);
    assert_int_equal(img.width, W);
    assert_int_equal(img.height, H);
    const float *f = img.pixels;
    for (int i = 0; i < W * H; i++) {
        for (int c = 0; c < 3; c++) {
            assert_true(fabsf(f[i * 4 + c] - px[i * 3 + c]) <= px[i * 3 + c] / 64.0f);
        }
    }
    rill_image_free(&img);
    rill_free(hdr);
    assert_int_equal(rill_image_encode_hdr(px, 0, H, 3, &hdr, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_null(hdr);
    assert_int_equal(size, 0);
    assert_int_equal(rill_image_encode_hdr(px, W, H, 0, &hdr, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_image_encode_hdr(NULL, W, H, 3, &hdr, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checkerboard_srgb),     cmocka_unit_test(test_alpha_premultiplied),
        cmocka_unit_test(test_normals_renormalized),  cmocka_unit_test(test_alpha_coverage),
        cmocka_unit_test(test_odd_sizes_and_hdr),     cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_png_encode_round_trip), cmocka_unit_test(test_hdr_encode_round_trip),
        cmocka_unit_test(test_half_floats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
