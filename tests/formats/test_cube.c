/* test_cube.c: the .cube reader (rill/formats/cube.h): an identity table samples to its input, a
 * graded one to its grade; every truncation of a valid file is refused (or is the whole table);
 * hostile files (wrong counts, NaN, huge sizes, 1D tables, keywords after the table, long lines,
 * NUL bytes) are refused with "NAME:LINE:" and nothing left allocated. */
#include "cube_lut_text.h"
#include "rill_test.h"

#include "rill/formats/cube.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rill_result parse(const char *text, rill_cube_lut *lut, rill_error *err) {
    return rill_cube_parse(text, strlen(text), "t.cube", lut, err);
}

static void test_identity_and_grade(void **state) {
    (void)state;
    char *id = rill_test_cube_text(5, false, "# made by a test\nTITLE \"id # 5\"\n\n");
    rill_cube_lut lut;
    rill_error err = {0};
    assert_int_equal(parse(id, &lut, &err), RILL_OK);
    assert_int_equal(lut.size, 5);
    assert_string_equal(lut.title, "id # 5");
    float probes[3][3] = {{0.1f, 0.5f, 0.9f}, {0, 0, 0}, {1, 0.33f, 0.66f}}, out[3];
    for (int i = 0; i < 3; i++) {
        rill_cube_sample(&lut, probes[i], out);
        for (int k = 0; k < 3; k++) {
            assert_float_equal(out[k], probes[i][k], 1e-5);
        }
    }
    rill_cube_free(&lut);
    free(id);

    /* A byte-order mark at the start (Windows editors write one) is skipped; elsewhere it is a
     * refused line. */
    char *bom = rill_test_cube_text(2, false, "\xEF\xBB\xBFTITLE \"bom\"\n");
    assert_int_equal(parse(bom, &lut, &err), RILL_OK);
    assert_string_equal(lut.title, "bom");
    rill_cube_free(&lut);
    free(bom);

    char *warm = rill_test_cube_text(3, true, "DOMAIN_MIN 0 0 0\r\nDOMAIN_MAX 1 1 1\r\n");
    assert_int_equal(parse(warm, &lut, &err), RILL_OK);
    rill_cube_sample(&lut, (float[3]){0.5f, 0.5f, 0.5f}, out);
    assert_float_equal(out[0], 0.6f, 1e-5);
    assert_float_equal(out[1], 0.5f, 1e-5);
    assert_float_equal(out[2], 0.4f, 1e-5);
    rill_cube_free(&lut);
    free(warm);

    /* Resolve's input range maps [0, 2] onto the table. */
    char *wide = rill_test_cube_text(2, false, "LUT_3D_INPUT_RANGE 0 2\n");
    assert_int_equal(parse(wide, &lut, &err), RILL_OK);
    rill_cube_sample(&lut, (float[3]){1, 2, 0}, out);
    assert_float_equal(out[0], 0.5f, 1e-6);
    assert_float_equal(out[1], 1.0f, 1e-6);
    rill_cube_free(&lut);
    free(wide);
}

/* Every prefix of a valid file either parses into the same table (only the whole file, or one
 * cut inside its last number's trailing digits or newline) or is refused naming the file. */
static void test_truncations(void **state) {
    (void)state;
    char *text = rill_test_cube_text(3, true, "TITLE \"warm\"\n");
    size_t len = strlen(text);
    size_t last_line = len - 1;
    while (last_line > 0 && text[last_line - 1] != '\n') {
        last_line--;
    }
    for (size_t cut = 0; cut < len; cut++) {
        rill_cube_lut lut;
        rill_error err = {0};
        rill_result r = rill_cube_parse(text, cut, "cut.cube", &lut, &err);
        if (cut <= last_line + 2) { /* the last entry lacks at least two of its numbers */
            assert_int_not_equal(r, RILL_OK);
            assert_non_null(strstr(err.msg, "cut.cube:"));
            assert_null(lut.rgb);
        } else if (r == RILL_OK) {
            rill_cube_free(&lut);
        }
    }
    free(text);
}

/* A hostile file is refused with `want` in the message (which names the file and line). */
static void refused(const char *text, const char *want) {
    rill_cube_lut lut;
    rill_error err = {0};
    assert_int_not_equal(parse(text, &lut, &err), RILL_OK);
    if (!strstr(err.msg, want)) {
        fail_msg("'%s' does not say '%s'", err.msg, want);
    }
    assert_null(lut.rgb);
    assert_int_equal(lut.size, 0);
}

static void test_hostile(void **state) {
    (void)state;
    refused("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n", "t.cube:4: 3 entries; LUT_3D_SIZE 2 needs 8");
    refused("LUT_3D_SIZE 2\n0 0 0\n1 0\n", "t.cube:3: expected 3 numbers, found 2");
    refused("LUT_3D_SIZE 2\n0 0 0 1\n", "t.cube:2: more than 3 numbers");
    refused("LUT_3D_SIZE 2\n0 nan 0\n", "t.cube:2: 'nan' is not a finite number");
    refused("LUT_3D_SIZE 2\n0 1e39 0\n", "t.cube:2: '1e39' is not a finite number");
    refused("LUT_3D_SIZE 100000\n", "t.cube:1: LUT_3D_SIZE 100000 is not a whole number in 2..128");
    refused("LUT_3D_SIZE 4294967296\n", "t.cube:1: LUT_3D_SIZE");
    refused("LUT_3D_SIZE 1\n0 0 0\n", "t.cube:1: LUT_3D_SIZE 1 is not");
    refused("LUT_3D_SIZE 2.5\n", "t.cube:1: LUT_3D_SIZE 2.5 is not");
    refused("LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", "t.cube:2: LUT_3D_SIZE given twice");
    refused("LUT_1D_SIZE 16\n", "t.cube:1: 1D tables");
    refused("0 0 0\n", "t.cube:1: table entry before LUT_3D_SIZE");
    refused("# only a comment\n", "t.cube:1: no LUT_3D_SIZE");
    refused("", "t.cube:1: no LUT_3D_SIZE");
    refused("FOO 1\n", "t.cube:1: unknown keyword 'FOO'");
    refused("TITLE \"x\"\n\xEF\xBB\xBFLUT_3D_SIZE 2\n", "t.cube:2: unknown keyword"); /* a BOM */
    refused("\xFF\xFET", "t.cube:1: the file is UTF-16");
    refused("TITLE \"open\nLUT_3D_SIZE 2\n", "t.cube:1: TITLE's quote is not closed");
    refused("DOMAIN_MIN 0 0 0\nDOMAIN_MIN 0 0 0\n", "t.cube:2: DOMAIN_MIN repeats the domain");
    char *t = rill_test_cube_text(2, false, "DOMAIN_MIN 0 1 0\nDOMAIN_MAX 1 1 1\n");
    refused(t, "t.cube:11: DOMAIN_MAX must be above DOMAIN_MIN");
    free(t);
    t = rill_test_cube_text(2, false, "");
    size_t n = strlen(t);
    char *after = malloc(n + 32);
    snprintf(after, n + 32, "%sTITLE \"late\"\n", t);
    refused(after, "t.cube:10: keyword TITLE after the table");
    snprintf(after, n + 32, "%s0 0 0\n", t);
    refused(after, "t.cube:10: more than 8 entries");
    free(after);
    free(t);
    char long_line[2048];
    memset(long_line, ' ', sizeof(long_line));
    memcpy(long_line, "LUT_3D_SIZE 2", 13);
    long_line[sizeof(long_line) - 1] = '\0';
    refused(long_line, "t.cube:1: line longer than 1024 bytes");
    rill_cube_lut lut;
    rill_error err = {0};
    assert_int_not_equal(rill_cube_parse("LUT_3D_SIZE 2\n\0 0 0\n", 20, "t.cube", &lut, &err),
                         RILL_OK);
    assert_non_null(strstr(err.msg, "t.cube:2: NUL byte"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_and_grade),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
