/* test_text.c: the shared text primitives: the one number syntax both ways, hex digits and the
 * URI rules the glTF reader and the exporter both apply. */
#include "rill_test.h"

#include "rill/base.h"

#include <math.h>
#include <string.h>

static void test_numbers_round_trip(void **state) {
    (void)state;
    static const float fs[] = {0.1f,  0.8f,  1.0f / 3.0f,   1e-5f,    1.5e-6f, 123456.0f,
                               1e16f, -2.5f, 3.4028235e38f, 1.4e-45f, -0.0f};
    char buf[32];
    for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
        uint32_t n = rill_num_format_f32(fs[i], buf, sizeof buf);
        float back = 0;
        assert_true(rill_num_parse_f32(buf, n, &back));
        assert_memory_equal(&back, &fs[i], sizeof back);
    }
    static const double ds[] = {0.1, 1e300, 5e-324, 1.0 / 3.0, -123.456};
    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
        uint32_t n = rill_num_format_f64(ds[i], buf, sizeof buf);
        double back = 0;
        assert_true(rill_num_parse_f64(buf, n, &back));
        assert_memory_equal(&back, &ds[i], sizeof back);
    }
    rill_num_format_f32(0.8f, buf, sizeof buf);
    assert_string_equal(buf, "0.8");
    rill_num_format_f32(1e-5f, buf, sizeof buf);
    assert_string_equal(buf, "0.00001");
    rill_num_format_f64(1e20, buf, sizeof buf);
    assert_string_equal(buf, "1e+20");
}

static void test_numbers_strict(void **state) {
    (void)state;
    float f;
    assert_false(rill_num_parse_f32("0x1p3", 5, &f)); /* no hex floats */
    assert_false(rill_num_parse_f32(" 1", 2, &f));    /* no spaces */
    assert_false(rill_num_parse_f32("1.5x", 4, &f));
    assert_false(rill_num_parse_f32("", 0, &f));
    assert_true(rill_num_parse_f32("-inf", 4, &f) && isinf(f) && f < 0);
    /* Not NUL-terminated: only len bytes are read. */
    assert_true(rill_num_parse_f32("2.59", 3, &f));
    assert_true(f == 2.5f);
    bool neg, over;
    uint64_t mag;
    assert_true(rill_num_parse_int("-0x1F", 5, &neg, &mag, &over));
    assert_true(neg && mag == 31 && !over);
    assert_true(rill_num_parse_int("99999999999999999999", 20, &neg, &mag, &over));
    assert_true(over && mag == UINT64_MAX);
    assert_false(rill_num_parse_int("0x", 2, &neg, &mag, &over));
    assert_false(rill_num_parse_int("1e3", 3, &neg, &mag, &over));
    assert_int_equal(rill_hex_digit('b'), 11);
    assert_int_equal(rill_hex_digit('F'), 15);
    assert_int_equal(rill_hex_digit('g'), -1);
}

static void test_uri_rules(void **state) {
    (void)state;
    char dst[16];
    assert_true(rill_uri_decode(dst, sizeof dst, "a%20b%2Fc.png"));
    assert_string_equal(dst, "a b/c.png");
    assert_true(rill_uri_decode(dst, sizeof dst, "100%.png")); /* a lone '%' stays */
    assert_string_equal(dst, "100%.png");
    assert_false(rill_uri_decode(dst, sizeof dst, "a%00b"));            /* NUL */
    assert_false(rill_uri_decode(dst, sizeof dst, "0123456789abcdef")); /* does not fit */
    assert_true(rill_uri_is_relative_path("tex/a.png"));
    assert_true(rill_uri_is_relative_path("../shared/a.png")); /* the caller confines it */
    assert_true(rill_uri_is_relative_path("dir/a:b.png"));
    assert_false(rill_uri_is_relative_path(""));
    assert_false(rill_uri_is_relative_path("/etc/passwd"));
    assert_false(rill_uri_is_relative_path("\\\\server\\x"));
    assert_false(rill_uri_is_relative_path("C:/x.png"));
    assert_false(rill_uri_is_relative_path("data:image/png;base64,AAAA"));
    assert_false(rill_uri_is_relative_path("http://example.com/a.png"));
    assert_false(rill_uri_is_relative_path("dir/http://x"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_round_trip),
        cmocka_unit_test(test_numbers_strict),
        cmocka_unit_test(test_uri_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
