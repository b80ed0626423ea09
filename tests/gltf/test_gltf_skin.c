/* test_gltf_skin.c: skins read from a generated file (skin_bar.h): joints, inverse bind matrices,
 * JOINTS_0 / WEIGHTS_0 per vertex (weights normalized), the node's skin; copies keep them; and
 * hostile skins refused with the file and the JSON path: a joint index beyond the skin, a NaN
 * weight, more joints than the limit, too few inverse bind matrices, an accessor claiming 10^9
 * matrices, every truncation of the file. */
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
#include "rill/formats/gltf.h"
#include "skin_bar.h"

static char text[65536];

static rill_gltf_model *read_bar(const skin_bar_opts *o, rill_error *err) {
    size_t n = skin_bar_text(o, text, sizeof(text));
    rill_gltf_model *m = NULL;
    rill_gltf_read_desc d = {.name = "bar.gltf"};
    rill_gltf_read_memory(text, n, &d, &m, err);
    return m;
}

static void test_skin_read(void **state) {
    (void)state;
    rill_error err = {0};
    skin_bar_opts o = {0};
    rill_gltf_model *m = read_bar(&o, &err);
    assert_non_null(m);
    assert_int_equal(m->skin_count, 1);
    const rill_gltf_skin *s = &m->skins[0];
    assert_int_equal(s->joint_count, 2);
    assert_int_equal(s->joints[0], 2);
    assert_int_equal(s->joints[1], 3);
    assert_int_equal(s->skeleton, 2);
    assert_float_equal(s->inverse_bind_matrices[16 + 13], -1.0f, 0);
    assert_float_equal(s->inverse_bind_matrices[0], 1.0f, 0);
    assert_int_equal(m->nodes[1].skin, 0);
    assert_int_equal(m->nodes[0].skin, -1);
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    assert_non_null(p->joints);
    assert_non_null(p->weights);
    /* Row 2 (vertices 4, 5) is shared half and half; the top row follows j1 alone, and its
     * weight-0 joint reads 0. */
    assert_float_equal(p->weights[4 * 4], 0.5f, 1e-6);
    assert_float_equal(p->weights[4 * 4 + 1], 0.5f, 1e-6);
    assert_float_equal(p->joints[9 * 4 + 1], 1.0f, 0);
    assert_float_equal(p->joints[9 * 4], 0.0f, 0);
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            sum += p->weights[v * 4 + k];
        }
        assert_float_equal(sum, 1.0f, 1e-6);
    }
    rill_gltf_model_free(m);
}

static void expect_refused(const skin_bar_opts *o, const char *part) {
    rill_error err = {0};
    rill_gltf_model *m = read_bar(o, &err);
    if (m || !strstr(err.msg, "bar.gltf") || !strstr(err.msg, part)) {
        fail_msg("expected a refusal naming '%s', got: %s", part, m ? "a model" : err.msg);
    }
}

static void test_hostile_skins(void **state) {
    (void)state;
    expect_refused(&(skin_bar_opts){.bad_joint = 2},
                   "meshes[0].primitives[0].attributes.JOINTS_0: vertex 9: joint 2 out of range "
                   "of skins[0]");
    expect_refused(&(skin_bar_opts){.bad_joint = 200}, "joint 200 out of range");
    expect_refused(&(skin_bar_opts){.nan_weight = true},
                   "meshes[0].primitives[0].attributes.WEIGHTS_0: vertex 5: weight 1");
    expect_refused(&(skin_bar_opts){.joint_count = RILL_GLTF_MAX_JOINTS + 1},
                   "skins[0].joints: 1025 joints");
    expect_refused(&(skin_bar_opts){.ibm_count = 1},
                   "skins[0].inverseBindMatrices: accessor 6 holds 1 matrices for 2 joints");
    expect_refused(&(skin_bar_opts){.ibm_count = 1000000000u}, "accessors[6]");
    /* Every truncation of the file fails cleanly (or, never here, reads). */
    size_t n = skin_bar_text(&(skin_bar_opts){0}, text, sizeof(text));
    gltf_read_prefixes(text, n, 7);
}

/* The .glb writer keeps the skin, the weights and the clip: read back they are the same, and
 * writing again gives the same bytes. */
static void test_skin_round_trip(void **state) {
    (void)state;
    rill_error err = {0};
    rill_gltf_model *m = read_bar(&(skin_bar_opts){0}, &err);
    assert_non_null(m);
    uint8_t *a = NULL;
    size_t an = 0;
    rill_gltf_model *r = glb_round_trip(m, &a, &an);
    assert_int_equal(r->skin_count, 1);
    assert_int_equal(r->skins[0].joint_count, 2);
    assert_memory_equal(r->skins[0].joints, m->skins[0].joints, 2 * sizeof(int32_t));
    assert_memory_equal(r->skins[0].inverse_bind_matrices, m->skins[0].inverse_bind_matrices,
                        32 * sizeof(float));
    assert_int_equal(r->skins[0].skeleton, 2);
    assert_int_equal(r->nodes[1].skin, 0);
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0], *q = &r->meshes[0].primitives[0];
    assert_memory_equal(q->joints, p->joints, p->vertex_count * 4 * sizeof(float));
    assert_memory_equal(q->weights, p->weights, p->vertex_count * 4 * sizeof(float));
    assert_int_equal(r->animation_count, 1);
    assert_string_equal(r->animations[0].name, "bend");
    assert_int_equal(r->animations[0].channels[0].node, 3);
    assert_int_equal(r->animations[0].channels[0].path, RILL_GLTF_ANIM_ROTATION);
    assert_memory_equal(r->animations[0].samplers[0].values, m->animations[0].samplers[0].values,
                        8 * sizeof(float));
    glb_rewrites_same(r, a, an);
    rill_gltf_model_free(r);
    rill_gltf_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skin_read),
        cmocka_unit_test(test_hostile_skins),
        cmocka_unit_test(test_skin_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
