/* test_gltf_variants.c: KHR_materials_variants read from a generated file (variants_quad.h): the
 * variant names, each primitive's material per variant (a variant it does not map keeps its own
 * material; a primitive that maps none has no table), the lookups by name and by variant; the
 * .glb writer keeps them (read back the same, written again the same bytes); the extension is not
 * named as left out; hostile variant data is refused with the file and the JSON path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "glb_round_trip.h"
#include "rill/formats/gltf.h"
#include "variants_quad.h"

static char text[65536];

static rill_gltf_model *read_quad(const variants_quad_opts *o, rill_error *err) {
    size_t n = variants_quad_text(o, text, sizeof(text));
    assert_true(n > 0);
    rill_gltf_model *m = NULL;
    rill_gltf_read_desc d = {.name = "variants.gltf"};
    rill_gltf_read_memory(text, n, &d, &m, err);
    return m;
}

/* The model's variants and materials as variants_quad.h describes them. */
static void check_model(const rill_gltf_model *m) {
    assert_int_equal(m->variant_count, 3);
    assert_string_equal(m->variant_names[0], "blue");
    assert_string_equal(m->variant_names[1], "green");
    assert_string_equal(m->variant_names[2], "plain");
    assert_int_equal(rill_gltf_model_find_variant(m, "green"), 1);
    assert_int_equal(rill_gltf_model_find_variant(m, "plain"), 2);
    assert_int_equal(rill_gltf_model_find_variant(m, "purple"), -1);
    assert_int_equal(rill_gltf_model_find_variant(m, ""), -1);
    assert_int_equal(rill_gltf_model_find_variant(m, NULL), -1);
    const rill_gltf_primitive *left = &m->meshes[0].primitives[0];
    const rill_gltf_primitive *right = &m->meshes[0].primitives[1];
    assert_non_null(left->variant_materials);
    assert_null(right->variant_materials);
    /* variant 0 = none; k = variant k - 1; beyond the count: the primitive's own. */
    static const int32_t want_left[5] = {0, 1, 2, 0, 0};
    for (uint32_t v = 0; v < 5; v++) {
        assert_int_equal(rill_gltf_primitive_variant_material(m, left, v), want_left[v]);
        assert_int_equal(rill_gltf_primitive_variant_material(m, right, v), 3);
    }
}

static void test_variants_read(void **state) {
    (void)state;
    rill_error err = {0};
    rill_gltf_model *m = read_quad(NULL, &err);
    if (!m) {
        fail_msg("read failed: %s", err.msg);
    }
    check_model(m);
    assert_int_equal(rill_gltf_primitive_variant_material(NULL, &m->meshes[0].primitives[0], 1), 0);
    rill_gltf_model_free(m);
}

/* Written as .glb and read back: the same variants and mappings; written again: the same bytes. */
static void test_variants_round_trip(void **state) {
    (void)state;
    rill_error err = {0};
    rill_gltf_model *m = read_quad(NULL, &err);
    assert_non_null(m);
    uint8_t *a = NULL;
    size_t an = 0;
    rill_gltf_model *r = glb_round_trip(m, &a, &an);
    check_model(r);
    glb_rewrites_same(r, a, an);
    rill_gltf_model_free(r);
    rill_gltf_model_free(m);
}

static void expect_refused(const variants_quad_opts *o, const char *needle) {
    rill_error err = {0};
    rill_gltf_model *m = read_quad(o, &err);
    assert_null(m);
    if (!strstr(err.msg, "variants.gltf") || !strstr(err.msg, needle)) {
        fail_msg("expected \"%s\" in \"%s\"", needle, err.msg);
    }
}

static void test_variants_hostile(void **state) {
    (void)state;
    const char *mp = "meshes[0].primitives[0].extensions.KHR_materials_variants.mappings";
    char want[256];
    snprintf(want, sizeof(want), "%s[1].variants[0]: variant 3 out of range (3)", mp);
    expect_refused(&(variants_quad_opts){.mappings =
                                             "{\"mappings\":[{\"material\":1,\"variants\":[0]},"
                                             "{\"material\":2,\"variants\":[3]}]}"},
                   want);
    snprintf(want, sizeof(want), "%s[1].variants[0]: variant 0 is mapped twice", mp);
    expect_refused(&(variants_quad_opts){.mappings =
                                             "{\"mappings\":[{\"material\":1,\"variants\":[0]},"
                                             "{\"material\":2,\"variants\":[0]}]}"},
                   want);
    snprintf(want, sizeof(want), "%s[0].material: material 9 out of range (4)", mp);
    expect_refused(
        &(variants_quad_opts){.mappings = "{\"mappings\":[{\"material\":9,\"variants\":[0]}]}"},
        want);
    snprintf(want, sizeof(want), "%s[0].material: missing", mp);
    expect_refused(&(variants_quad_opts){.mappings = "{\"mappings\":[{\"variants\":[0]}]}"}, want);
    snprintf(want, sizeof(want), "%s[0].variants[0]: expected an index", mp);
    expect_refused(
        &(variants_quad_opts){.mappings = "{\"mappings\":[{\"material\":1,\"variants\":[0.5]}]}"},
        want);
    snprintf(want, sizeof(want), "%s[0].variants: missing or empty", mp);
    expect_refused(
        &(variants_quad_opts){.mappings = "{\"mappings\":[{\"material\":1,\"variants\":[]}]}"},
        want);
    expect_refused(&(variants_quad_opts){.mappings = "{\"mappings\":[7]}"},
                   "mappings[0]: expected an object");
    /* Mappings in a file without variants. */
    expect_refused(&(variants_quad_opts){.no_variants = true},
                   "KHR_materials_variants.mappings: the file names no variants");
    expect_refused(&(variants_quad_opts){.variants = "{\"variants\":[{\"name\":\"a\"},{}]}"},
                   "extensions.KHR_materials_variants.variants[1].name: missing");
    expect_refused(&(variants_quad_opts){.variants = "{\"variants\":[]}"},
                   "extensions.KHR_materials_variants.variants: missing or empty");
    expect_refused(&(variants_quad_opts){.variants = "[1]"}, "KHR_materials_variants");
    /* More variants than the limit: refused before anything is allocated for them. */
    static char many[RILL_GLTF_MAX_VARIANTS * 16 + 64];
    size_t len = (size_t)snprintf(many, sizeof(many), "{\"variants\":[");
    for (uint32_t i = 0; i <= RILL_GLTF_MAX_VARIANTS; i++) {
        len += (size_t)snprintf(many + len, sizeof(many) - len, "%s{\"name\":\"v\"}", i ? "," : "");
    }
    snprintf(many + len, sizeof(many) - len, "]}");
    snprintf(want, sizeof(want), "variants: %u variants (limit %u)", RILL_GLTF_MAX_VARIANTS + 1u,
             RILL_GLTF_MAX_VARIANTS);
    expect_refused(&(variants_quad_opts){.variants = many}, want);
}

/* Every truncation of the file fails cleanly (no crash, no leak: the ASan build checks). */
static void test_variants_truncated(void **state) {
    (void)state;
    size_t n = variants_quad_text(NULL, text, sizeof(text));
    static char cut[16384];
    for (size_t k = 0; k < n; k += 7) {
        memcpy(cut, text, k);
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        assert_int_not_equal(rill_gltf_read_memory(cut, k, NULL, &m, &err), RILL_OK);
        assert_null(m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_read),
        cmocka_unit_test(test_variants_round_trip),
        cmocka_unit_test(test_variants_hostile),
        cmocka_unit_test(test_variants_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
