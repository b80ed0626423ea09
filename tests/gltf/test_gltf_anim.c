/* test_gltf_anim.c: glTF animation clips: the reader keeps translation, rotation, scale and
 * weights channels with step, linear and cubic-spline samplers, and the sampler evaluates them to
 * hand-computed values; hostile clips (key times that do not increase, NaN keys, output counts
 * that do not match, indices out of range) are refused with the file and the JSON path. The test
 * files are written here as .gltf text with the keys in a base64 data: URI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gltf_test_models.h"
#include "rill/formats/gltf.h"

/* The buffer of every test file: 4 key times (0, 1, 2, 4), then 4 vec3 translations, then 4
 * rotation quaternions, then 12 vec3 cubic-spline (in, value, out) triples, then 8 weights (2 per
 * key). Offsets in floats: times 0, translations 4, rotations 16, cubic 32, weights 68. */
#define B_TIMES 0
#define B_TRANS 4
#define B_ROT 16
#define B_CUBIC 32
#define B_WEIGHTS 68
#define B_FLOATS 76

static float buf[B_FLOATS];

static void fill_buffer(void) {
    const float times[4] = {0, 1, 2, 4};
    memcpy(buf + B_TIMES, times, sizeof(times));
    for (int k = 0; k < 4; k++) {
        float *t = buf + B_TRANS + k * 3;
        t[0] = (float)k * 2.0f, t[1] = 10.0f + (float)k, t[2] = -(float)k;
        /* Rotations about +Z by 0, 90, 180 and 270 degrees. */
        float a = (float)k * 0.5f * 3.14159265f;
        float *q = buf + B_ROT + k * 4;
        q[0] = 0, q[1] = 0, q[2] = sinf(a * 0.5f), q[3] = cosf(a * 0.5f);
        for (int j = 0; j < 3; j++) {
            float *c = buf + B_CUBIC + (k * 3 + j) * 3;
            /* in-tangent (j 0), value (j 1), out-tangent (j 2): x = key, tangents 1 and 3. */
            c[0] = j == 1 ? (float)k : j == 0 ? 1.0f : 3.0f;
            c[1] = c[2] = 0.0f;
        }
        buf[B_WEIGHTS + k * 2] = (float)k * 0.25f;
        buf[B_WEIGHTS + k * 2 + 1] = 1.0f - (float)k * 0.25f;
    }
}

/* A .gltf of one node and one animation whose JSON `animations` array is `anims`; `times_acc`
 * overrides accessor 0's JSON (NULL: 4 float times). *out is the model or NULL; returns the
 * result, err filled. */
static rill_result read_text(const char *anims, const char *extra_accessor, rill_gltf_model **out,
                             rill_error *err) {
    static char b64[B_FLOATS * 4 * 2], text[16384];
    rill_test_base64((const uint8_t *)buf, sizeof(buf), b64);
    snprintf(
        text, sizeof(text),
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"door\"}],"
        "\"scenes\":[{\"nodes\":[0]}],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"}"
        ","
        "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":64,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":128,\"componentType\":5126,\"count\":12,\"type\":"
        "\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":272,\"componentType\":5126,\"count\":8,\"type\":"
        "\"SCALAR\"}"
        "%s],"
        "\"animations\":%s}",
        sizeof(buf), b64, sizeof(buf), extra_accessor ? extra_accessor : "", anims);
    rill_gltf_read_desc d = {.name = "clip.gltf"};
    *out = NULL;
    return rill_gltf_read_memory(text, strlen(text), &d, out, err);
}

/* One channel on node 0 driving `path` from sampler 0 (input 0, output `out_acc`, interp). */
static void one_channel(char *dst, size_t cap, const char *path, int out_acc, const char *interp) {
    snprintf(dst, cap,
             "[{\"name\":\"open\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
             "\"%s\"}}],\"samplers\":[{\"input\":0,\"output\":%d,\"interpolation\":\"%s\"}]}]",
             path, out_acc, interp);
}

static rill_gltf_model *read_ok(const char *anims) {
    rill_gltf_model *m;
    rill_error err = {0};
    if (read_text(anims, NULL, &m, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    return m;
}

static void test_linear_and_step(void **state) {
    (void)state;
    char a[1024];
    one_channel(a, sizeof(a), "translation", 1, "LINEAR");
    rill_gltf_model *m = read_ok(a);
    assert_int_equal(m->animation_count, 1);
    const rill_gltf_animation *an = &m->animations[0];
    assert_string_equal(an->name, "open");
    assert_int_equal(rill_gltf_animation_find(m, "open"), 0);
    assert_int_equal(rill_gltf_animation_find(m, "close"), -1);
    assert_int_equal(an->channel_count, 1);
    assert_int_equal(an->channels[0].node, 0);
    assert_int_equal(an->channels[0].path, RILL_GLTF_ANIM_TRANSLATION);
    assert_true(an->duration == 4.0f);
    const rill_gltf_anim_sampler *s = &an->samplers[0];
    float v[3];
    /* Half way between key 2 (t 2: x 4, y 12, z -2) and key 3 (t 4: x 6, y 13, z -3). */
    rill_gltf_sampler_eval(s, 3.0f, false, v);
    assert_float_equal(v[0], 5.0f, 1e-5);
    assert_float_equal(v[1], 12.5f, 1e-5);
    assert_float_equal(v[2], -2.5f, 1e-5);
    /* Clamped before the first and after the last key. */
    rill_gltf_sampler_eval(s, -1.0f, false, v);
    assert_float_equal(v[1], 10.0f, 1e-6);
    rill_gltf_sampler_eval(s, 9.0f, false, v);
    assert_float_equal(v[1], 13.0f, 1e-6);
    rill_gltf_model_free(m);

    one_channel(a, sizeof(a), "translation", 1, "STEP");
    m = read_ok(a);
    s = &m->animations[0].samplers[0];
    assert_int_equal(s->interpolation, RILL_GLTF_INTERP_STEP);
    rill_gltf_sampler_eval(s, 1.999f, false, v);
    assert_float_equal(v[0], 2.0f, 1e-6); /* key 1 holds until t reaches key 2 */
    rill_gltf_sampler_eval(s, 2.0f, false, v);
    assert_float_equal(v[0], 4.0f, 1e-6);
    rill_gltf_model_free(m);
}

/* Rotation keys slerp: a quarter of the way from 90 to 180 degrees about +Z (t 1.25) is 112.5. */
static void test_rotation_slerp(void **state) {
    (void)state;
    char a[1024];
    one_channel(a, sizeof(a), "rotation", 2, "LINEAR");
    rill_gltf_model *m = read_ok(a);
    float q[4];
    rill_gltf_sampler_eval(&m->animations[0].samplers[0], 1.25f, true, q);
    float half = 112.5f * 3.14159265f / 180.0f * 0.5f;
    assert_float_equal(q[0], 0.0f, 1e-6);
    assert_float_equal(q[2], sinf(half), 1e-5);
    assert_float_equal(q[3], cosf(half), 1e-5);
    rill_gltf_model_free(m);
}

/* Cubic spline between key 1 (t 1, value 1, out-tangent 3) and key 2 (t 2, value 2, in-tangent
 * 1) at u = 0.5, dt = 1: 0.5 * 1 + 0.125 * 3 + 0.5 * 2 + (-0.125) * 1 = 1.75. */
static void test_cubic_spline(void **state) {
    (void)state;
    char a[1024];
    one_channel(a, sizeof(a), "scale", 3, "CUBICSPLINE");
    rill_gltf_model *m = read_ok(a);
    const rill_gltf_anim_sampler *s = &m->animations[0].samplers[0];
    assert_int_equal(s->interpolation, RILL_GLTF_INTERP_CUBICSPLINE);
    assert_int_equal(s->comps, 3);
    float v[3];
    rill_gltf_sampler_eval(s, 1.5f, false, v);
    assert_float_equal(v[0], 1.75f, 1e-5);
    /* At a key the spline passes through the key's value. */
    rill_gltf_sampler_eval(s, 2.0f, false, v);
    assert_float_equal(v[0], 2.0f, 1e-6);
    /* Between key 2 (t 2, value 2, out 3) and key 3 (t 4, value 3, in 1), dt = 2, u = 0.25:
     * h00 = 0.84375, h10 = 0.140625 * dt, h01 = 0.15625, h11 = -0.046875 * dt:
     * 0.84375 * 2 + 0.28125 * 3 + 0.15625 * 3 - 0.09375 * 1 = 2.90625. */
    rill_gltf_sampler_eval(s, 2.5f, false, v);
    assert_float_equal(v[0], 2.90625f, 1e-5);
    rill_gltf_model_free(m);
}

/* Weights: two per key (the morph target count follows from the output count). */
static void test_weights(void **state) {
    (void)state;
    char a[1024];
    one_channel(a, sizeof(a), "weights", 4, "LINEAR");
    rill_gltf_model *m = read_ok(a);
    const rill_gltf_anim_sampler *s = &m->animations[0].samplers[0];
    assert_int_equal(s->comps, 2);
    float w[2];
    rill_gltf_sampler_eval(s, 0.5f, false, w);
    assert_float_equal(w[0], 0.125f, 1e-6);
    assert_float_equal(w[1], 0.875f, 1e-6);
    rill_gltf_model_free(m);
}

/* Each hostile clip is refused, and the message names the file and the JSON path. */
static void expect_refused(const char *anims, const char *extra, const char *path_part) {
    rill_gltf_model *m;
    rill_error err = {0};
    rill_result r = read_text(anims, extra, &m, &err);
    print_message("%s\n", err.msg);
    assert_int_not_equal(r, RILL_OK);
    assert_null(m);
    assert_non_null(strstr(err.msg, "clip.gltf"));
    if (!strstr(err.msg, path_part)) {
        fail_msg("'%s' does not name '%s'", err.msg, path_part);
    }
}

static void test_hostile_clips(void **state) {
    (void)state;
    char a[1024];
    /* Key times that do not increase (key 2 repeats key 1). */
    float keep = buf[B_TIMES + 2];
    buf[B_TIMES + 2] = 1.0f;
    one_channel(a, sizeof(a), "translation", 1, "LINEAR");
    expect_refused(a, NULL, "animations[0].samplers[0].input");
    buf[B_TIMES + 2] = keep;
    /* A NaN key value. */
    buf[B_TRANS + 4] = NAN;
    expect_refused(a, NULL, "animations[0].samplers[0].output");
    buf[B_TRANS + 4] = 11.0f;
    /* A NaN key time. */
    buf[B_TIMES + 1] = NAN;
    expect_refused(a, NULL, "animations[0].samplers[0].input");
    buf[B_TIMES + 1] = 1.0f;
    /* 12 cubic triples read as linear keys: the counts do not match. */
    one_channel(a, sizeof(a), "translation", 3, "LINEAR");
    expect_refused(a, NULL, "animations[0].samplers[0].output");
    /* A translation from a VEC4 accessor. */
    one_channel(a, sizeof(a), "translation", 2, "LINEAR");
    expect_refused(a, NULL, "animations[0].samplers[0].output");
    /* An accessor out of range, an unknown interpolation, a node out of range. */
    one_channel(a, sizeof(a), "translation", 9, "LINEAR");
    expect_refused(a, NULL, "animations[0].samplers[0].output");
    one_channel(a, sizeof(a), "translation", 1, "BOUNCY");
    expect_refused(a, NULL, "animations[0].samplers[0].interpolation");
    expect_refused("[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":7,\"path\":\"scale\"}}],"
                   "\"samplers\":[{\"input\":0,\"output\":1}]}]",
                   NULL, "animations[0].channels[0].target.node");
    expect_refused("[{\"channels\":[{\"sampler\":3,\"target\":{\"node\":0,\"path\":\"scale\"}}],"
                   "\"samplers\":[{\"input\":0,\"output\":1}]}]",
                   NULL, "animations[0].channels[0].sampler");
    /* A time accessor claiming 2^32 - 1 keys: refused before anything is allocated. */
    expect_refused("[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}],"
                   "\"samplers\":[{\"input\":5,\"output\":1}]}]",
                   ",{\"bufferView\":0,\"componentType\":5126,\"count\":4294967295,"
                   "\"type\":\"SCALAR\"}",
                   "accessors[5]");
}

int main(void) {
    fill_buffer();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_and_step), cmocka_unit_test(test_rotation_slerp),
        cmocka_unit_test(test_cubic_spline),    cmocka_unit_test(test_weights),
        cmocka_unit_test(test_hostile_clips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
