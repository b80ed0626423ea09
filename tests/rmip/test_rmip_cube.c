/* test_rmip_cube.c: .rmip cubes (version 4) and environment images: a cube written and read back
 * holds the same texels; an equirectangular image reprojected onto a cube keeps its directions
 * (red sky above, blue ground below, a green mark toward -Z) and comes back the same way;
 * every truncation of a cube file and hostile headers are refused naming the file; environment
 * images of 1 x 1, 8200 x 2 and 16384 x 16384 are refused naming the file, one whose header claims
 * 9000 x 4000 by its header before decoding; the texture loader refuses a cube. */
#include "rill_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rill/asset.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip.h"
#include "rill/formats/rmip_cube.h"

/* An equirectangular w x h RGBA32F image: red above the horizon, blue below, and a green square
 * around the centre (the -Z direction). */
static void sky_image(rill_image *img, uint32_t w, uint32_t h) {
    rill_error err = {0};
    assert_int_equal(rill_image_alloc(img, w, h, RILL_PIXEL_RGBA32F, &err), RILL_OK);
    float *px = img->pixels;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            float *p = px + ((size_t)y * w + x) * 4;
            bool mark = x >= w / 2 - w / 16 && x < w / 2 + w / 16 && y >= h / 2 - h / 8 &&
                        y < h / 2 + h / 8;
            p[0] = !mark && y < h / 2 ? 2.0f : 0.0f; /* HDR: above 1 */
            p[1] = mark ? 1.0f : 0.0f;
            p[2] = !mark && y >= h / 2 ? 1.0f : 0.0f;
            p[3] = 1.0f;
        }
    }
}

/* The texel at the centre of face f of a cube level 0 (n x n faces of halves). */
static void face_centre(const rill_tex_data *t, uint32_t f, float out[4]) {
    uint32_t n = t->levels[0].width;
    const uint16_t *h = (const uint16_t *)t->levels[0].data + ((size_t)f * n * n) * 4;
    size_t i = ((size_t)(n / 2) * n + n / 2) * 4;
    for (int k = 0; k < 4; k++) {
        out[k] = rill_f16_to_f32(h[i + (size_t)k]);
    }
}

static void test_write_read_same_texels(void **state) {
    (void)state;
    enum { N = 8 };
    uint16_t *lv[4];
    rill_rmip_write_desc d;
    memset(&d, 0, sizeof(d));
    d.format = RILL_TEX_FORMAT_RGBA16F;
    d.width = d.height = N;
    d.level_count = 4;
    d.faces = 6;
    for (uint32_t l = 0, n = N; l < 4; l++, n /= 2) {
        size_t count = (size_t)6 * n * n * 4;
        lv[l] = rill_malloc(count * 2);
        for (size_t i = 0; i < count; i++) {
            lv[l][i] = rill_f32_to_f16((float)((i * 7 + l * 13) % 101) / 10.0f);
        }
        d.level_data[l] = lv[l];
        d.level_size[l] = count * 2;
    }
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_write(&d, &file, &size, &err), RILL_OK);
    uint32_t version = (uint32_t)file[4] | ((uint32_t)file[5] << 8);
    assert_int_equal(version, RILL_RMIP_VERSION_CUBE);
    rill_tex_data t;
    assert_int_equal(rill_rmip_cube_read(file, size, "c.rmip", &t, &err), RILL_OK);
    assert_int_equal(t.faces, 6);
    assert_int_equal(t.level_count, 4);
    for (uint32_t l = 0; l < 4; l++) {
        assert_int_equal(t.levels[l].size, d.level_size[l]);
        assert_memory_equal(t.levels[l].data, lv[l], d.level_size[l]);
        rill_free(lv[l]);
    }
    rill_tex_data_free(&t);
    rill_free(file);
}

static void test_equirect_round_trip(void **state) {
    (void)state;
    rill_image img;
    sky_image(&img, 128, 64);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_cube_from_equirect(&img, 0, &file, &size, &err), RILL_OK);
    rill_tex_data t;
    assert_int_equal(rill_rmip_cube_read(file, size, "sky.rmip", &t, &err), RILL_OK);
    assert_int_equal(t.width, 32); /* the largest power of two <= 128 / 4 */
    assert_int_equal(t.level_count, 6);
    float up[4], down[4], back[4];
    face_centre(&t, 2, up);   /* +Y */
    face_centre(&t, 3, down); /* -Y */
    face_centre(&t, 5, back); /* -Z: the image's centre */
    assert_true(up[0] > 1.9f && up[2] < 0.01f);
    assert_true(down[2] > 0.99f && down[0] < 0.01f);
    assert_true(back[1] > 0.99f && back[0] < 0.01f);
    /* The smallest level averages the six faces. */
    assert_int_equal(t.levels[5].width, 1);
    /* Back to an equirectangular image: the same picture. */
    rill_image back_img;
    assert_int_equal(rill_rmip_cube_to_equirect(&t, &back_img, &err), RILL_OK);
    assert_int_equal(back_img.width, 128);
    assert_int_equal(back_img.height, 64);
    const float *p = back_img.pixels;
    const float *top = p + ((size_t)4 * 128 + 10) * 4, *bot = p + ((size_t)60 * 128 + 10) * 4;
    const float *mid = p + ((size_t)32 * 128 + 64) * 4;
    assert_true(top[0] > 1.9f && bot[2] > 0.99f && mid[1] > 0.99f);
    /* And through the decoder every environment image takes. */
    rill_image dec;
    assert_int_equal(rill_env_image_decode(file, size, "sky.rmip", &dec, &err), RILL_OK);
    assert_int_equal(dec.width, 128);
    rill_image_free(&dec);
    rill_image_free(&back_img);
    rill_tex_data_free(&t);
    rill_free(file);
    rill_image_free(&img);
}

static void test_every_truncation(void **state) {
    (void)state;
    rill_image img;
    sky_image(&img, 64, 32);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_cube_from_equirect(&img, 8, &file, &size, &err), RILL_OK);
    for (size_t n = 0; n < size; n++) {
        rill_tex_data t;
        err = (rill_error){0};
        assert_int_not_equal(rill_rmip_cube_read(file, n, "cut.rmip", &t, &err), RILL_OK);
        assert_non_null(strstr(err.msg, "cut.rmip"));
        rill_image e;
        assert_int_not_equal(rill_env_image_decode(file, n, "cut.rmip", &e, &err), RILL_OK);
    }
    rill_free(file);
    rill_image_free(&img);
}

static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void test_hostile_headers(void **state) {
    (void)state;
    rill_image img;
    sky_image(&img, 64, 32);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_cube_from_equirect(&img, 8, &file, &size, &err), RILL_OK);
    uint8_t *bad = rill_malloc(size);
    rill_tex_data t;
    /* Not square; a face size so large the level sizes disagree; version 3 with the cube flag
     * (a texture, not a cube); BC7 faces; a huge level count. */
    struct {
        size_t at;
        uint32_t v;
    } edits[] = {{12, 4}, {8, 16384}, {4, 3}, {20, RILL_TEX_FORMAT_BC7}, {16, 40}};
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        memcpy(bad, file, size);
        wr32(bad + edits[i].at, edits[i].v);
        err = (rill_error){0};
        assert_int_not_equal(rill_rmip_cube_read(bad, size, "bad.rmip", &t, &err), RILL_OK);
        assert_non_null(strstr(err.msg, "bad.rmip"));
    }
    /* A 2D texture is not a cube. */
    rill_image small;
    sky_image(&small, 8, 8);
    uint16_t half[8 * 8 * 4];
    for (size_t i = 0; i < 8 * 8 * 4; i++) {
        half[i] = rill_f32_to_f16(((float *)small.pixels)[i]);
    }
    rill_rmip_write_desc d;
    memset(&d, 0, sizeof(d));
    d.format = RILL_TEX_FORMAT_RGBA16F;
    d.width = d.height = 8;
    d.level_count = 1;
    d.level_data[0] = half;
    d.level_size[0] = sizeof(half);
    uint8_t *flat = NULL;
    size_t flat_size = 0;
    assert_int_equal(rill_rmip_write(&d, &flat, &flat_size, &err), RILL_OK);
    assert_int_equal(rill_rmip_cube_read(flat, flat_size, "flat.rmip", &t, &err),
                     RILL_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "flat.rmip"));
    rill_free(flat);
    rill_image_free(&small);
    rill_free(bad);
    rill_free(file);
    rill_image_free(&img);
}

/* PNG bytes of a w x h grey image. */
static void png_of(uint32_t w, uint32_t h, uint8_t **out, size_t *size) {
    uint8_t *px = rill_calloc((size_t)w * h, 3);
    assert_non_null(px);
    rill_error err = {0};
    assert_int_equal(rill_image_encode_png(px, w, h, 3, out, size, &err), RILL_OK);
    rill_free(px);
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

static void be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A PNG whose header says w x h RGB and whose pixel data is one empty stored block (the decoder
 * must refuse by the header before it allocates: a real 16384^2 file is too slow to make). */
static void png_header_only(uint32_t w, uint32_t h, uint8_t **out, size_t *size) {
    static const uint8_t idat_data[] = {0x78, 0x01, 0x01, 0x00, 0x00, 0xFF,
                                        0xFF, 0x00, 0x00, 0x00, 0x01};
    uint8_t *b = rill_calloc(1, 128);
    memcpy(b, "\x89PNG\r\n\x1a\n", 8);
    be32(b + 8, 13);
    memcpy(b + 12, "IHDR", 4);
    be32(b + 16, w);
    be32(b + 20, h);
    b[24] = 8; /* depth */
    b[25] = 2; /* RGB */
    be32(b + 29, crc32_of(b + 12, 17));
    be32(b + 33, sizeof(idat_data));
    memcpy(b + 37, "IDAT", 4);
    memcpy(b + 41, idat_data, sizeof(idat_data));
    be32(b + 41 + sizeof(idat_data), crc32_of(b + 37, 4 + sizeof(idat_data)));
    size_t at = 45 + sizeof(idat_data);
    be32(b + at, 0);
    memcpy(b + at + 4, "IEND", 4);
    be32(b + at + 8, crc32_of(b + at + 4, 4));
    *out = b;
    *size = at + 12;
}

static void test_hostile_env_images(void **state) {
    (void)state;
    const uint32_t sizes[3][2] = {{1, 1}, {8200, 2}, {16384, 16384}};
    for (int i = 0; i < 3; i++) {
        uint8_t *png = NULL;
        size_t size = 0;
        if (i < 2) {
            png_of(sizes[i][0], sizes[i][1], &png, &size);
        } else {
            png_header_only(sizes[i][0], sizes[i][1], &png, &size);
        }
        rill_image out;
        rill_error err = {0};
        assert_int_not_equal(rill_env_image_decode(png, size, "sky/bad.png", &out, &err), RILL_OK);
        assert_non_null(strstr(err.msg, "sky/bad.png"));
        assert_null(out.pixels);
        print_message("%ux%u: %s\n", sizes[i][0], sizes[i][1], err.msg);
        rill_free(png);
    }
    uint8_t *png = NULL;
    size_t size = 0;
    png_of(16, 8, &png, &size);
    rill_image out;
    rill_error err = {0};
    assert_int_equal(rill_env_image_decode(png, size, "ok.png", &out, &err), RILL_OK);
    assert_int_equal(out.type, RILL_PIXEL_RGBA32F);
    rill_image_free(&out);
    rill_free(png);
}

/* A header that claims more than an environment image may be but less than the image limits
 * (9000 x 4000: 576 MB of floats) is refused by its header's size with the environment limit,
 * before anything is decoded: a PNG and a Radiance .hdr, both without pixel data (had it decoded
 * first, the result would be a parse error from the missing pixels, not the limit). */
static void test_env_image_header_checked_first(void **state) {
    (void)state;
    uint8_t *png = NULL;
    size_t png_size = 0;
    png_header_only(9000, 4000, &png, &png_size);
    const char hdr[] = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4000 +X 9000\n";
    const struct {
        const void *data;
        size_t size;
        const char *name;
    } files[2] = {{png, png_size, "sky/huge.png"}, {hdr, sizeof(hdr) - 1, "sky/huge.hdr"}};
    for (int i = 0; i < 2; i++) {
        rill_image out;
        rill_error err = {0};
        assert_int_equal(
            rill_env_image_decode(files[i].data, files[i].size, files[i].name, &out, &err),
            RILL_ERR_LIMIT);
        print_message("%s\n", err.msg);
        assert_non_null(strstr(err.msg, files[i].name));
        assert_non_null(strstr(err.msg, "9000x4000 is outside"));
        assert_null(out.pixels);
    }
    rill_free(png);
}

/* The texture loader (materials) refuses a cube, naming it. */
static void test_texture_loader_refuses_cube(void **state) {
    (void)state;
    rill_image img;
    sky_image(&img, 64, 32);
    uint8_t *file = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_rmip_cube_from_equirect(&img, 8, &file, &size, &err), RILL_OK);
    char dir[] = "/tmp/rill_rmip_cubeXXXXXX", path[600];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sky.rmip", dir);
    assert_int_equal(rill_file_write_all(path, file, size, &err), RILL_OK);
    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    assert_non_null(vfs);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_load_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.vfs = vfs;
    ctx.path = "sky.rmip";
    void *payload = NULL;
    size_t bytes = 0;
    assert_int_equal(rill_rmip_load(&ctx, &payload, &bytes, &err), RILL_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "sky.rmip"));
    assert_null(payload);
    rill_vfs_destroy(vfs);
    remove(path);
    remove(dir);
    rill_free(file);
    rill_image_free(&img);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read_same_texels),
        cmocka_unit_test(test_equirect_round_trip),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_hostile_env_images),
        cmocka_unit_test(test_env_image_header_checked_first),
        cmocka_unit_test(test_texture_loader_refuses_cube),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
