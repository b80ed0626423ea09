/* The voxel-cone GI's CPU voxelizer (src/render/gi_voxel_raster.c), no GPU: the triangle / voxel
 * box test, a triangle marking the voxels it crosses with the instance's colours, a face on a
 * voxel boundary marking one side only, the triangle allotment being kept, and triangles with
 * positions that are not finite marking nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gi_voxel.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tri_box),
        cmocka_unit_test(test_raster_quad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
