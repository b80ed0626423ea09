/* test_gltf_morph.c: morph targets read from a generated file (morph_quad.h): the target's
 * POSITION displacements interleaved per vertex, the mesh's default weights, a "weights" clip;
 * copies keep them; hostile morph data refused with the file and the JSON path: a NaN
 * displacement, more targets than the limit, weights that do not match the targets; every
 * truncation of the file fails cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "glb_round_trip.h"
#include "morph_quad.h"
#include "rill/formats/gltf.h"

static char text[65536];

static rill_gltf_model *read_quad(const morph_quad_opts *o, rill_error *err) {
    size_t n = morph_quad_text(o, text, sizeof(text));
    rill_gltf_model *m = NULL;
    rill_gltf_read_desc d = {.name = "quad.gltf"};
    rill_gltf_read_memory(text, n, &d, &m, err);
    return m;
}

static void test_morph_read(void **state) {
    (void)state;
    rill_error err = {0};
    rill_gltf_model *m = read_quad(&(morph_quad_opts){.weight = 0.5f}, &err);
    assert_non_null(m);
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->target_count, 1);
    assert_non_null(p->target_positions);
    assert_null(p->target_normals);
    assert_float_equal(p->target_positions[2 * 3], 1.0f, 0);
    assert_float_equal(p->target_positions[1 * 3], 0.0f, 0);
    assert_int_equal(m->meshes[0].weight_count, 1);
    assert_float_equal(m->meshes[0].weights[0], 0.5f, 0);
    assert_int_equal(m->animations[0].channels[0].path, RILL_GLTF_ANIM_WEIGHTS);
    float w = -1;
    rill_gltf_sampler_eval(&m->animations[0].samplers[0], 0.25f, false, &w);
    assert_float_equal(w, 0.25f, 1e-6);
    /* Three targets: interleaved by vertex. */
    rill_gltf_model *m3 = read_quad(&(morph_quad_opts){.targets = 3}, &err);
    assert_non_null(m3);
    const rill_gltf_primitive *p3 = &m3->meshes[0].primitives[0];
    assert_int_equal(p3->target_count, 3);
    for (int t = 0; t < 3; t++) {
        assert_float_equal(p3->target_positions[(2 * 3 + t) * 3], 1.0f, 0);
    }
    rill_gltf_model_free(m3);
    rill_gltf_model_free(m);
}

static void expect_refused(const morph_quad_opts *o, const char *part) {
    rill_error err = {0};
    rill_gltf_model *m = read_quad(o, &err);
    if (m || !strstr(err.msg, "quad.gltf") || !strstr(err.msg, part)) {
        fail_msg("expected a refusal naming '%s', got: %s", part, m ? "a model" : err.msg);
    }
}

static void test_hostile_morph(void **state) {
    (void)state;
    expect_refused(&(morph_quad_opts){.nan_delta = true},
                   "meshes[0].primitives[0].targets[0].POSITION: vertex 2 is not finite");
    expect_refused(&(morph_quad_opts){.targets = 300},
                   "meshes[0].primitives[0].targets: 300 morph targets (limit 256)");
    expect_refused(&(morph_quad_opts){.mesh_weights = 2}, "meshes[0].weights: 2 weights for 1");
    size_t n = morph_quad_text(&(morph_quad_opts){0}, text, sizeof(text));
    gltf_read_prefixes(text, n, 5);
}

/* The .glb writer keeps the targets, the weights and the weights clip: read back they are the
 * same (three targets: the interleaving survives), and writing again gives the same bytes. */
static void test_morph_round_trip(void **state) {
    (void)state;
    rill_error err = {0};
    rill_gltf_model *m = read_quad(&(morph_quad_opts){.weight = 0.25f, .targets = 3}, &err);
    assert_non_null(m);
    uint8_t *a = NULL;
    size_t an = 0;
    rill_gltf_model *r = glb_round_trip(m, &a, &an);
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0], *q = &r->meshes[0].primitives[0];
    assert_int_equal(q->target_count, 3);
    assert_memory_equal(q->target_positions, p->target_positions, 4 * 3 * 3 * sizeof(float));
    assert_int_equal(r->meshes[0].weight_count, 3);
    assert_float_equal(r->meshes[0].weights[2], 0.25f, 0);
    assert_int_equal(r->animations[0].channels[0].path, RILL_GLTF_ANIM_WEIGHTS);
    glb_rewrites_same(r, a, an);
    rill_gltf_model_free(r);
    rill_gltf_model_free(m);
}

/* KHR_materials_emissive_strength: read, refused when negative, written back. */
static void test_emissive_strength(void **state) {
    (void)state;
    rill_error err = {0};
    rill_gltf_model *m = read_quad(&(morph_quad_opts){.emission = 0.1f, .strength = 8}, &err);
    assert_non_null(m);
    assert_float_equal(m->materials[0].emissive_strength, 8.0f, 0);
    assert_float_equal(m->materials[0].emissive_factor[0], 0.1f, 1e-7);
    uint8_t *a = NULL;
    size_t an = 0;
    assert_int_equal(rill_glb_write_memory(m, NULL, &a, &an, &err), RILL_OK);
    rill_gltf_model *r = NULL;
    assert_int_equal(rill_gltf_read_memory(a, an, NULL, &r, &err), RILL_OK);
    assert_float_equal(r->materials[0].emissive_strength, 8.0f, 0);
    rill_free(a);
    rill_gltf_model_free(r);
    rill_gltf_model_free(m);
    m = read_quad(&(morph_quad_opts){0}, &err);
    assert_float_equal(m->materials[0].emissive_strength, 0.0f, 0); /* not given */
    rill_gltf_model_free(m);
    expect_refused(&(morph_quad_opts){.strength = -1},
                   "materials[0].extensions.KHR_materials_emissive_strength.emissiveStrength: -1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_morph_read),
        cmocka_unit_test(test_hostile_morph),
        cmocka_unit_test(test_morph_round_trip),
        cmocka_unit_test(test_emissive_strength),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
