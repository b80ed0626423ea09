/* The Hwrt GI tier's CPU steps (gi_hwrt_pack.c), no device: a snapshot transform packs into
 * Vulkan's row-major 3x4 TLAS instance with its custom index, mask and flags; non-finite
 * transforms, indices beyond 24 bits and a missing BLAS are refused; a mesh gets a BLAS only under
 * the triangle cap, within the memory budget and the frame's build budget (whose first build
 * always goes). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gi_hwrt.h"

static void test_pack_instance(void **state) {
    (void)state;
    /* column-major: x axis (1,2,3), y axis (4,5,6), z axis (7,8,9), translation (10,11,12) */
    float m[16] = {1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 1};
    rill__accel_instance in;
    memset(&in, 0xAB, sizeof(in));
    assert_int_equal(sizeof(in), 64);
    assert_true(rill__hwrt_pack_instance(m, 41, 0x1234500ull, &in));
    const float rows[12] = {1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12};
    for (int i = 0; i < 12; i++) {
        assert_true(in.transform[i] == rows[i]);
    }
    assert_int_equal(in.index_mask & 0xFFFFFFu, 41);
    assert_int_equal(in.index_mask >> 24, 0xFF);
    assert_int_equal(in.offset_flags & 0xFFFFFFu, 0);
    assert_int_equal(in.offset_flags >> 24, 0x5); /* cull disabled, opaque */
    assert_true(in.blas == 0x1234500ull);
    /* the largest index that fits, and refusals that leave out untouched */
    assert_true(rill__hwrt_pack_instance(m, (1u << 24) - 1u, 1, &in));
    assert_int_equal(in.index_mask & 0xFFFFFFu, (1u << 24) - 1u);
    rill__accel_instance before = in;
    assert_false(rill__hwrt_pack_instance(m, 1u << 24, 1, &in));
    assert_false(rill__hwrt_pack_instance(m, 0, 0, &in));
    m[13] = NAN;
    assert_false(rill__hwrt_pack_instance(m, 0, 1, &in));
    m[13] = INFINITY;
    assert_false(rill__hwrt_pack_instance(m, 0, 1, &in));
    assert_memory_equal(&in, &before, sizeof(in));
}

static void test_blas_limits(void **state) {
    (void)state;
    const uint64_t budget = 1000ull * RILL__HWRT_BLAS_BYTES_PER_TRIANGLE;
    const uint32_t frame = 600;
    assert_int_equal(rill__hwrt_blas_verdict(0, 0, budget, 0, frame), RILL__HWRT_NO_TRIANGLES);
    assert_int_equal(
        rill__hwrt_blas_verdict(RILL__HWRT_MAX_BLAS_TRIANGLES + 1u, 0, UINT64_MAX, 0, UINT32_MAX),
        RILL__HWRT_TOO_BIG);
    assert_int_equal(
        rill__hwrt_blas_verdict(RILL__HWRT_MAX_BLAS_TRIANGLES, 0, UINT64_MAX, 0, UINT32_MAX),
        RILL__HWRT_BUILD);
    /* memory: exactly at the budget fits, one triangle more does not, nor anything when over */
    assert_int_equal(
        rill__hwrt_blas_verdict(400, 600ull * RILL__HWRT_BLAS_BYTES_PER_TRIANGLE, budget, 0, frame),
        RILL__HWRT_BUILD);
    assert_int_equal(
        rill__hwrt_blas_verdict(401, 600ull * RILL__HWRT_BLAS_BYTES_PER_TRIANGLE, budget, 0, frame),
        RILL__HWRT_OVER_BUDGET);
    assert_int_equal(rill__hwrt_blas_verdict(1, budget + 1, budget, 0, frame),
                     RILL__HWRT_OVER_BUDGET);
    /* the frame's builds: the first always goes (even above the frame's share), later ones
     * until the share is spent, then wait */
    assert_int_equal(rill__hwrt_blas_verdict(900, 0, budget, 0, frame), RILL__HWRT_BUILD);
    assert_int_equal(rill__hwrt_blas_verdict(100, 0, budget, 500, frame), RILL__HWRT_BUILD);
    assert_int_equal(rill__hwrt_blas_verdict(101, 0, budget, 500, frame), RILL__HWRT_DEFER);
    assert_int_equal(rill__hwrt_blas_verdict(1, 0, budget, 900, frame), RILL__HWRT_DEFER);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_instance),
        cmocka_unit_test(test_blas_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
