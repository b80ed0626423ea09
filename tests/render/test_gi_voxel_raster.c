/* The voxel-cone GI's CPU voxelizer (src/render/gi_voxel_raster.c), no GPU: the triangle / voxel
 * box test, a triangle marking the voxels it crosses with the instance's colours, a face on a
 * voxel boundary marking one side only, the triangle allotment being kept, triangles with
 * positions that are not finite marking nothing; and the voxel copy of a glTF model primitive
 * (gi_voxel_source.c): a small one kept as it is, a large one simplified under its triangle cap
 * to voxels within one voxel of the original's; a texture's mean colour (texture_mean.c, what a
 * textured material's voxels take): linear from sRGB, alpha-weighted, a block-compressed chain's
 * smallest level, a large single level sampled, unreadable levels refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gi_voxel.h"
#include "rill/formats/bc.h"
#include "rill/formats/rmip.h"

static void test_tri_box(void **state) {
    (void)state;
    float bmin[3] = {0, 0, 0}, bmax[3] = {1, 1, 1};
    /* through the middle */
    assert_true(rill__vox_tri_box((float[3]){-1, 0.5f, -1}, (float[3]){2, 0.5f, -1},
                                  (float[3]){0.5f, 0.5f, 2}, bmin, bmax));
    /* beside the box on x */
    assert_false(rill__vox_tri_box((float[3]){1.5f, 0, 0}, (float[3]){2, 1, 0},
                                   (float[3]){1.5f, 0, 1}, bmin, bmax));
    /* its plane misses the box (a slanted triangle above the corner) */
    assert_false(rill__vox_tri_box((float[3]){1.2f, 1.2f, 0.9f}, (float[3]){0.9f, 1.2f, 1.2f},
                                   (float[3]){1.2f, 0.9f, 1.2f}, bmin, bmax));
    /* the boxes overlap but an edge axis separates them */
    assert_false(rill__vox_tri_box((float[3]){1.1f, 2.0f, 0.5f}, (float[3]){2.0f, 1.1f, 0.5f},
                                   (float[3]){2.0f, 2.0f, 0.5f}, bmin, bmax));
}

static uint32_t occupied(const uint32_t *words) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < RILL__VOX_BRICK_VOXELS; i++) {
        n += (words[2 * i] >> 24) != 0;
    }
    return n;
}

static void test_raster_quad(void **state) {
    (void)state;
    static float pos[12] = {0, 2, 0, 4, 2, 0, 4, 2, 4, 0, 2, 4}; /* y = 2 plane, 4 x 4 m */
    static uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    rill__vox_inst in;
    memset(&in, 0, sizeof(in));
    in.positions = pos;
    in.indices = idx;
    in.tri_count = 2;
    in.transform[0] = in.transform[5] = in.transform[10] = in.transform[15] = 1.0f;
    in.albedo[0] = 1.0f; /* red */
    in.emissive[1] = RILL__VOX_EMISSIVE_RANGE;
    static uint32_t words[RILL__VOX_BRICK_VOXELS * 2];
    memset(words, 0, sizeof(words));
    int32_t lo[3] = {0, 0, 0};
    uint32_t count = 2;
    /* 0.5 m voxels: the plane at y = 2 is the boundary between layers 3 and 4: one layer only */
    uint32_t added = rill__vox_raster(&in, lo, 0.5f, words, 0, &count);
    assert_int_equal(count, 2);
    assert_int_equal(added, 64); /* 8 x 8 voxels */
    assert_int_equal(occupied(words), 64);
    uint32_t i = 3 + 16 * (4 + 16 * 5); /* x 3, y 4 (above the plane), z 5 */
    uint32_t j = 3 + 16 * (3 + 16 * 5);
    assert_true((words[2 * i] >> 24) != 0 || (words[2 * j] >> 24) != 0);
    uint32_t w = (words[2 * i] >> 24) ? i : j;
    assert_int_equal(words[2 * w], 0xFF0000FFu);           /* red, occupied */
    assert_int_equal((words[2 * w + 1] >> 8) & 0xFF, 255); /* full green emissive */
    /* the allotment: one triangle examined, then the other */
    memset(words, 0, sizeof(words));
    count = 1;
    assert_true(rill__vox_raster(&in, lo, 0.5f, words, 0, &count) > 0);
    assert_int_equal(count, 1);
    count = 5;
    rill__vox_raster(&in, lo, 0.5f, words, 1, &count);
    assert_int_equal(count, 1);
    assert_int_equal(occupied(words), 64);
    /* outside the brick: nothing */
    memset(words, 0, sizeof(words));
    int32_t far[3] = {100, 0, 0};
    count = 2;
    assert_int_equal(rill__vox_raster(&in, far, 0.5f, words, 0, &count), 0);
    /* not finite: nothing */
    pos[0] = NAN;
    pos[4] = INFINITY;
    count = 2;
    assert_int_equal(rill__vox_raster(&in, lo, 0.5f, words, 0, &count), 0);
    assert_int_equal(occupied(words), 0);
}

/* A sphere of radius rad around c, `seg` segments around and seg / 2 from pole to pole. */
static void sphere(float rad, const float c[3], uint32_t seg, float **pos, uint32_t *vn,
                   uint32_t **idx, uint32_t *in) {
    uint32_t rings = seg / 2;
    *vn = (seg + 1) * (rings + 1);
    *in = seg * rings * 6;
    *pos = test_malloc(sizeof(float) * 3 * *vn);
    *idx = test_malloc(sizeof(uint32_t) * *in);
    for (uint32_t j = 0; j <= rings; j++) {
        float th = 3.14159265f * (float)j / (float)rings;
        for (uint32_t i = 0; i <= seg; i++) {
            float ph = 6.2831853f * (float)i / (float)seg;
            float *p = &(*pos)[3 * (j * (seg + 1) + i)];
            p[0] = c[0] + rad * sinf(th) * cosf(ph);
            p[1] = c[1] + rad * cosf(th);
            p[2] = c[2] + rad * sinf(th) * sinf(ph);
        }
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < rings; j++) {
        for (uint32_t i = 0; i < seg; i++) {
            uint32_t a = j * (seg + 1) + i, b = a + seg + 1;
            uint32_t q[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(&(*idx)[k], q, sizeof(q));
            k += 6;
        }
    }
}

/* The voxels of one 16^3 brick at the origin (0.5 m voxels) that a triangle list occupies. */
static void voxelize(const float *pos, const uint32_t *idx, uint32_t tris, uint32_t *words) {
    rill__vox_inst in;
    memset(&in, 0, sizeof(in));
    in.positions = pos;
    in.indices = idx;
    in.tri_count = tris;
    in.transform[0] = in.transform[5] = in.transform[10] = in.transform[15] = 1.0f;
    in.albedo[0] = 1.0f;
    memset(words, 0, sizeof(uint32_t) * 2 * RILL__VOX_BRICK_VOXELS);
    int32_t lo[3] = {0, 0, 0};
    uint32_t count = tris;
    rill__vox_raster(&in, lo, 0.5f, words, 0, &count);
    assert_int_equal(count, tris);
}

/* Voxels of a that have no occupied voxel of b within one voxel (26-neighbourhood). */
static uint32_t missing_near(const uint32_t *a, const uint32_t *b) {
    uint32_t miss = 0;
    for (int z = 0; z < 16; z++) {
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 16; x++) {
                if (!(a[2 * (x + 16 * (y + 16 * z))] >> 24)) {
                    continue;
                }
                bool near = false;
                for (int dz = -1; dz <= 1 && !near; dz++) {
                    for (int dy = -1; dy <= 1 && !near; dy++) {
                        for (int dx = -1; dx <= 1 && !near; dx++) {
                            int u = x + dx, v = y + dy, w = z + dz;
                            near = u >= 0 && u < 16 && v >= 0 && v < 16 && w >= 0 && w < 16 &&
                                   (b[2 * (u + 16 * (v + 16 * w))] >> 24) != 0;
                        }
                    }
                }
                miss += near ? 0u : 1u;
            }
        }
    }
    return miss;
}

static void test_source_small_kept(void **state) {
    (void)state;
    /* 4 vertices, one unused: kept as they are, the unused one left out */
    float pos[12] = {0, 0, 0, 1, 0, 0, 9, 9, 9, 0, 1, 0};
    uint32_t idx[3] = {0, 1, 3};
    rill__vox_source s;
    assert_true(rill__vox_source_build(pos, 4, idx, 3, 1.0f, &s));
    assert_int_equal(s.tri_count, 1);
    assert_int_equal(s.vertex_count, 3);
    assert_true(s.cell == 0.0f);
    assert_true(s.positions[3 * s.indices[2] + 1] == 1.0f);
    rill__vox_source_free(&s);
    /* hostile: an index out of range, a position not finite: no copy */
    idx[2] = 4;
    assert_true(rill__vox_source_build(pos, 4, idx, 3, 1.0f, &s));
    assert_int_equal(s.tri_count, 0);
    assert_null(s.positions);
    idx[2] = 3;
    pos[4] = NAN;
    assert_true(rill__vox_source_build(pos, 4, idx, 3, 1.0f, &s));
    assert_int_equal(s.tri_count, 0);
}

static void test_source_large_simplified(void **state) {
    (void)state;
    float *pos;
    uint32_t *idx, vn, in;
    sphere(3.0f, (float[3]){4, 4, 4}, 256, &pos, &vn, &idx, &in); /* 65,536 triangles */
    rill__vox_source s;
    assert_true(rill__vox_source_build(pos, vn, idx, in, 1.0f, &s));
    print_message("sphere of %u triangles -> %u triangles, %u vertices, cell %.2f m\n", in / 3,
                  s.tri_count, s.vertex_count, (double)s.cell);
    assert_true(s.tri_count > 100 && s.tri_count <= RILL__VOX_SRC_MAX);
    assert_true(s.cell >= RILL__VOX_SRC_CELL);
    static uint32_t full[RILL__VOX_BRICK_VOXELS * 2], simple[RILL__VOX_BRICK_VOXELS * 2];
    voxelize(pos, idx, in / 3, full);
    voxelize(s.positions, s.indices, s.tri_count, simple);
    uint32_t a = occupied(full), b = occupied(simple);
    uint32_t lost = missing_near(full, simple), extra = missing_near(simple, full);
    print_message("voxels: full %u, simplified %u; full not near simplified %u, simplified not "
                  "near full %u\n",
                  a, b, lost, extra);
    assert_true(a > 400);
    assert_int_equal(lost, 0);
    assert_int_equal(extra, 0);
    assert_true(b > a * 3 / 4);
    rill__vox_source_free(&s);
    /* drawn 4x larger (1,800 m^2 of surface a 0.25 m grid cuts into ~60,000 triangles): the grid
     * is coarsened (in world metres) until the cap holds */
    assert_true(rill__vox_source_build(pos, vn, idx, in, 4.0f, &s));
    print_message("drawn 4x larger: %u triangles, cell %.2f m\n", s.tri_count, (double)s.cell);
    assert_true(s.tri_count <= RILL__VOX_SRC_MAX && s.tri_count > 100);
    assert_true(s.cell > RILL__VOX_SRC_CELL);
    rill__vox_source_free(&s);
    test_free(pos);
    test_free(idx);
}

/* >>texture mean ------------------------------------------------------------------------------ */

static void test_texture_mean(void **state) {
    (void)state;
    /* 4x4 sRGB: half the texels pure red, half mid grey (188 = 0.5 linear) */
    uint8_t px[4 * 4 * 4];
    for (int i = 0; i < 16; i++) {
        uint8_t *p = &px[4 * i];
        bool red = i % 2 == 0;
        p[0] = red ? 255 : 188;
        p[1] = p[2] = red ? 0 : 188;
        p[3] = 255;
    }
    float m[3];
    assert_true(rill__texture_mean_rgba8(px, 4, 4, true, m));
    assert_float_equal(m[0], 0.75f, 0.01f); /* (1 + 0.5) / 2, linear */
    assert_float_equal(m[1], 0.25f, 0.01f);
    assert_float_equal(m[2], 0.25f, 0.01f);
    /* the grey texels transparent: red alone */
    for (int i = 1; i < 16; i += 2) {
        px[4 * i + 3] = 0;
    }
    assert_true(rill__texture_mean_rgba8(px, 4, 4, true, m));
    assert_float_equal(m[0], 1.0f, 0.01f);
    assert_float_equal(m[1], 0.0f, 0.01f);
    for (int i = 0; i < 16; i++) {
        px[4 * i + 3] = 0;
    }
    assert_false(rill__texture_mean_rgba8(px, 4, 4, true, m)); /* nothing to see */

    /* a BC1 chain 8x8 (green) + 4x4 (blue): the smallest level (blue) is read */
    static uint8_t green[8 * 8 * 4], blue[4 * 4 * 4], bc[32 + 8];
    for (int i = 0; i < 64; i++) {
        memcpy(&green[4 * i], (uint8_t[4]){0, 255, 0, 255}, 4);
    }
    for (int i = 0; i < 16; i++) {
        memcpy(&blue[4 * i], (uint8_t[4]){0, 0, 255, 255}, 4);
    }
    rill_error err = {0};
    assert_int_equal(rill_bc_encode_image(RILL_TEX_FORMAT_BC1, green, 8, 8, 0, NULL, bc, 32, &err),
                     RILL_OK);
    assert_int_equal(
        rill_bc_encode_image(RILL_TEX_FORMAT_BC1, blue, 4, 4, 0, NULL, bc + 32, 8, &err), RILL_OK);
    rill_tex_data tex = {.format = RILL_TEX_FORMAT_BC1, .width = 8, .height = 8, .level_count = 2};
    tex.levels[0] = (rill_tex_level){8, 8, bc, 32};
    tex.levels[1] = (rill_tex_level){4, 4, bc + 32, 8};
    assert_true(rill__texture_mean_data(&tex, m));
    assert_true(m[2] > 0.9f && m[0] < 0.05f && m[1] < 0.05f);
    tex.levels[1].size = 4; /* truncated: refused, not read past */
    assert_false(rill__texture_mean_data(&tex, m));
    tex.level_count = 1; /* the green level alone */
    assert_true(rill__texture_mean_data(&tex, m));
    assert_true(m[1] > 0.9f && m[0] < 0.05f && m[2] < 0.05f);

    /* a large single level: sampled on a bounded grid, left half black, right half white */
    enum { BIG = 1024 };
    uint8_t *big = malloc((size_t)BIG * BIG * 4);
    assert_non_null(big);
    for (size_t y = 0; y < BIG; y++) {
        for (size_t x = 0; x < BIG; x++) {
            uint8_t v = x < BIG / 2 ? 0 : 255;
            memcpy(&big[(y * BIG + x) * 4], (uint8_t[4]){v, v, v, 255}, 4);
        }
    }
    assert_true(rill__texture_mean_rgba8(big, BIG, BIG, false, m));
    assert_float_equal(m[0], 0.5f, 0.01f);
    free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tri_box),           cmocka_unit_test(test_raster_quad),
        cmocka_unit_test(test_source_small_kept), cmocka_unit_test(test_source_large_simplified),
        cmocka_unit_test(test_texture_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
