/* test_range_alloc.c: the free-list allocator behind the GPU memory sub-allocator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "range_alloc.h"

static void test_alignment_and_coalescing(void **state) {
    (void)state;
    rill__range_alloc ra;
    assert_true(rill__range_init(&ra, 1024));
    uint64_t a, b, c;
    assert_true(rill__range_alloc_bytes(&ra, 100, 1, &a));
    assert_int_equal(a, 0);
    assert_true(rill__range_alloc_bytes(&ra, 100, 256, &b));
    assert_int_equal(b, 256); /* aligned; [100, 256) stays free */
    assert_true(rill__range_alloc_bytes(&ra, 50, 1, &c));
    assert_int_equal(c, 100); /* first fit takes the gap */
    assert_int_equal(ra.used, 250);
    assert_false(rill__range_alloc_bytes(&ra, 2000, 1, &c) && c);
    assert_true(rill__range_free(&ra, 100, 50));
    assert_true(rill__range_free(&ra, 0, 100));
    assert_true(rill__range_free(&ra, 256, 100));
    assert_int_equal(ra.used, 0);
    assert_int_equal(ra.free.len, 1); /* everything merged back into one range */
    assert_int_equal(rill__range_largest_free(&ra), 1024);
    rill__range_destroy(&ra);
}

static void test_fill_and_reuse(void **state) {
    (void)state;
    rill__range_alloc ra;
    assert_true(rill__range_init(&ra, 64 * 16));
    uint64_t offs[16];
    for (int i = 0; i < 16; i++) {
        assert_true(rill__range_alloc_bytes(&ra, 64, 64, &offs[i]));
    }
    uint64_t x;
    assert_false(rill__range_alloc_bytes(&ra, 1, 1, &x));
    for (int i = 0; i < 16; i += 2) {
        assert_true(rill__range_free(&ra, offs[i], 64));
    }
    assert_false(rill__range_alloc_bytes(&ra, 128, 1, &x)); /* fragmented: no 128-byte hole */
    assert_true(rill__range_alloc_bytes(&ra, 64, 64, &x));
    assert_int_equal(x, 0);
    assert_false(rill__range_alloc_bytes(&ra, 0, 1, &x));
    assert_false(rill__range_alloc_bytes(&ra, 8, 3, &x)); /* alignment must be a power of two */
    rill__range_destroy(&ra);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_and_coalescing),
        cmocka_unit_test(test_fill_and_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
