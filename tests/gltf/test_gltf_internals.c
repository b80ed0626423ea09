/* test_gltf_internals.c: the glTF reader's private parts, tested directly: the JSON parser
 * (grammar, escapes, exact numbers, depth and memory caps, every truncation), the SIMD accessor
 * kernels against plain scalar references (every tail length, a bad value in every lane), and
 * tangent generation with MikkTSpace semantics on cases whose answer is known (a flat quad, a
 * UV-mirrored seam, a primitive without UVs). */
#include "rill_test.h"

#include <math.h>
#include <stdlib.h>

#include "gltf_internal.h"
#include "gltf_json.h"

/* >>json -------------------------------------------------------------------------------------- */

static bool parses(const char *text) {
    rill__gj_doc doc;
    size_t at;
    bool over;
    bool ok = rill__gj_parse(text, strlen(text), 1u << 20, &doc, &at, &over);
    if (ok) {
        rill__gj_free(&doc);
    }
    return ok;
}

static void test_json_grammar(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    const char *good[] = {"{}",
                          "[]",
                          " {\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false} ",
                          "{\"a\":-0.5e-3}",
                          "\"\\u00e9\\ud83d\\ude00\"",
                          "0",
                          "[1e999]",
                          "{\"a\":1}\0\0  "};
    for (size_t i = 0; i < RILL_COUNTOF(good); i++) {
        assert_true(parses(good[i]));
    }
    const char *bad[] = {"",        "{",           "{\"a\"}",     "{\"a\":}",  "[1,]",
                         "[01]",    "[1.]",        "[.5]",        "[+1]",      "[1e]",
                         "[0x10]",  "[Infinity]",  "[NaN]",       "[tru]",     "\"a",
                         "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "\"a\tb\"",
                         "{} x",    "[1 2]",       "{\"a\" 1}",   "{1:2}"};
    for (size_t i = 0; i < RILL_COUNTOF(bad); i++) {
        if (parses(bad[i])) {
            fail_msg("accepted %s", bad[i]);
        }
    }
    /* Depth is capped; the cap is far above what glTF needs. */
    char deep[600];
    memset(deep, '[', 300);
    memset(deep + 300, ']', 300);
    rill__gj_doc doc;
    size_t at;
    bool over;
    assert_false(rill__gj_parse(deep, 600, 1u << 20, &doc, &at, &over));
    char nest[64];
    memset(nest, '[', 20);
    nest[20] = '1';
    memset(nest + 21, ']', 20);
    nest[41] = '\0';
    assert_true(parses(nest));
    /* The memory cap stops the tree and says so. */
    char many[4001];
    many[0] = '[';
    for (int i = 0; i < 1999; i++) {
        many[1 + i * 2] = '0';
        many[2 + i * 2] = ',';
    }
    many[3999] = '0';
    many[4000] = ']';
    assert_false(rill__gj_parse(many, sizeof(many), 16384, &doc, &at, &over));
    assert_true(over);
    /* Every prefix of a valid document is refused. */
    const char *text = "{\"asset\":{\"version\":\"2.0\"},\"n\":[1.5,-2,\"x\\n\"],\"t\":true}";
    for (size_t len = 0; len < strlen(text); len++) {
        assert_false(rill__gj_parse(text, len, 1u << 20, &doc, &at, &over));
        assert_false(over);
    }
    RILL_TEST_LEAK_END();
}

static void test_json_values(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    const char *text = "{\"s\":\"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\",\"k\\u0041\":1,"
                       "\"n\":[0,-0,1,123456789012345,0.1,-2.5e-3,1e22,1e23,"
                       "0.30000000000000004,3.4028234663852886e38,1e999,123456789012345678901],"
                       "\"o\":{},\"dup\":1,\"dup\":2}";
    rill__gj_doc doc;
    size_t at;
    bool over;
    assert_true(rill__gj_parse(text, strlen(text), 1u << 20, &doc, &at, &over));
    const rill__gj *s = rill__gj_get(doc.root, "s");
    assert_true(rill__gj_is_string(s));
    assert_string_equal(s->u.str, "a\"b\\c/\xC3\xA9\xF0\x9F\x98\x80");
    assert_non_null(rill__gj_get(doc.root, "kA"));
    assert_null(rill__gj_get(doc.root, "missing"));
    assert_int_equal((int)rill__gj_num(rill__gj_get(doc.root, "dup")), 1); /* the first wins */
    const rill__gj *n = rill__gj_get(doc.root, "n");
    assert_true(rill__gj_is_array(n));
    const char *expect[] = {"0",
                            "-0",
                            "1",
                            "123456789012345",
                            "0.1",
                            "-2.5e-3",
                            "1e22",
                            "1e23",
                            "0.30000000000000004",
                            "3.4028234663852886e38",
                            "1e999",
                            "123456789012345678901"};
    assert_int_equal(n->count, RILL_COUNTOF(expect));
    size_t i = 0;
    const rill__gj *e;
    RILL__GJ_FOR(e, n) {
        /* Exactly what strtod gives: the fast path must round the same way. */
        double want = strtod(expect[i], NULL);
        double got = rill__gj_num(e);
        assert_memory_equal(&got, &want, sizeof(double));
        assert_true(rill__gj_num_finite(e) == (bool)isfinite(want));
        i++;
    }
    assert_true(rill__gj_is_object(rill__gj_get(doc.root, "o")));
    assert_int_equal(rill__gj_get(doc.root, "o")->count, 0);
    rill__gj_free(&doc);
    RILL_TEST_LEAK_END();
}

/* Random decimal numbers of every shape the fast path takes (and some it must refuse): each must
 * read exactly as strtod reads it, bit for bit. */
static void test_json_numbers_random(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    uint64_t seed = 0x243F6A8885A308D3ull;
    char text[96], num[80];
    int checked = 0;
    for (int it = 0; it < 100000; it++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        int digits = 1 + (int)(seed % 20), point = (int)((seed >> 8) % (uint64_t)(digits + 1));
        int exp = (int)((seed >> 16) % 61) - 30;
        size_t o = 0;
        if ((seed >> 24) & 1) {
            num[o++] = '-';
        }
        uint64_t d = seed >> 27;
        for (int k = 0; k < digits; k++) {
            if (k == point && k > 0) {
                num[o++] = '.';
            }
            int dig = (int)(d % 10);
            d = d / 10 ^ (seed >> (k % 32));
            num[o++] = (char)('0' + ((k == 0 && point > 1) ? (dig ? dig : 1) : dig));
        }
        if ((seed >> 40) & 1) {
            o += (size_t)snprintf(num + o, sizeof(num) - o, "e%d", exp);
        }
        num[o] = '\0';
        snprintf(text, sizeof(text), "[%s]", num);
        rill__gj_doc doc;
        size_t at;
        bool over;
        if (!rill__gj_parse(text, strlen(text), 1u << 20, &doc, &at, &over)) {
            continue; /* e.g. a leading zero before more digits: not JSON, strtod disagrees */
        }
        double want = strtod(num, NULL), got = rill__gj_num(doc.root->child);
        if (memcmp(&want, &got, sizeof(double)) != 0) {
            fail_msg("%s: got %.17g, strtod %.17g", num, got, want);
        }
        checked++;
        rill__gj_free(&doc);
    }
    assert_true(checked > 60000);
    RILL_TEST_LEAK_END();
}

/* >>kernels ----------------------------------------------------------------------------------- */

static void test_kernels(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    enum { N = 37 };
    float pos[N * 3], nrm[N * 3];
    uint32_t idx[N], out[N];
    uint64_t seed = 7;
    for (int i = 0; i < N * 3; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        pos[i] = (float)((int64_t)(seed >> 33) % 2001 - 1000) * 0.01f;
    }
    for (int v = 0; v < N; v++) {
        float a = (float)v * 0.37f, b = (float)v * 0.91f;
        nrm[v * 3] = cosf(a) * sinf(b);
        nrm[v * 3 + 1] = sinf(a) * sinf(b);
        nrm[v * 3 + 2] = cosf(b);
        idx[v] = (uint32_t)(v * 7 % N);
    }
    for (size_t count = 0; count <= N; count++) {
        /* Bounds equal a scalar scan. */
        float lo[3], hi[3];
        assert_int_equal(rill__gltf_check_positions(pos, count, lo, hi), count);
        for (int k = 0; count && k < 3; k++) {
            float l = pos[k], h = pos[k];
            for (size_t v = 0; v < count; v++) {
                l = fminf(l, pos[v * 3 + k]);
                h = fmaxf(h, pos[v * 3 + k]);
            }
            assert_true(lo[k] == l && hi[k] == h);
        }
        assert_true(rill__gltf_normals_unit(nrm, count));
        assert_int_equal(rill__gltf_first_non_finite(pos, count * 3), count * 3);
        assert_int_equal(rill__gltf_decode_indices(out, (const uint8_t *)idx, count, 4, 5125, N),
                         count);
        assert_memory_equal(out, idx, count * 4);
        /* A bad value in every position is found, in every lane of the vector loops. */
        for (size_t at = 0; at < count; at++) {
            for (int k = 0; k < 3; k++) {
                float keep = pos[at * 3 + k];
                pos[at * 3 + k] = k == 1 ? NAN : (k ? INFINITY : -INFINITY);
                assert_int_equal(rill__gltf_check_positions(pos, count, lo, hi), at);
                assert_int_equal(rill__gltf_first_non_finite(pos, count * 3), at * 3 + (size_t)k);
                pos[at * 3 + k] = keep;
                keep = nrm[at * 3 + k];
                nrm[at * 3 + k] *= 1.001f;
                nrm[at * 3 + k] += 0.01f;
                assert_false(rill__gltf_normals_unit(nrm, count));
                nrm[at * 3 + k] = keep;
            }
            uint32_t keep = idx[at];
            idx[at] = N;
            assert_int_equal(
                rill__gltf_decode_indices(out, (const uint8_t *)idx, count, 4, 5125, N), at);
            idx[at] = 0x80000001u; /* above 2^31: the sign-flipped compare must still see it */
            assert_int_equal(
                rill__gltf_decode_indices(out, (const uint8_t *)idx, count, 4, 5125, N), at);
            idx[at] = keep;
        }
    }
    /* 16- and 8-bit indices, strided and not. */
    uint16_t i16[8] = {0, 1, 2, 65535, 4, 5, 6, 7};
    assert_int_equal(rill__gltf_decode_indices(out, (const uint8_t *)i16, 8, 2, 5123, 100000), 8);
    assert_int_equal(out[3], 65535);
    assert_int_equal(rill__gltf_decode_indices(out, (const uint8_t *)i16, 8, 2, 5123, 8), 3);
    uint8_t i8[8] = {1, 0, 2, 0, 3, 0, 4, 0};
    assert_int_equal(rill__gltf_decode_indices(out, i8, 4, 2, 5121, 5), 4);
    assert_true(out[0] == 1 && out[3] == 4);
    /* Normalized integers follow glTF's rules. */
    int8_t s8[3] = {-128, 127, 0};
    float f[3];
    rill__gltf_decode_floats(f, (const uint8_t *)s8, 3, 1, 1, 5120, true);
    assert_true(f[0] == -1.0f && f[1] == 1.0f && f[2] == 0.0f);
    uint16_t u16[2] = {65535, 0};
    rill__gltf_decode_floats(f, (const uint8_t *)u16, 1, 2, 4, 5123, true);
    assert_true(f[0] == 1.0f && f[1] == 0.0f);
    RILL_TEST_LEAK_END();
}

/* >>tangents ---------------------------------------------------------------------------------- */

/* A primitive over copies of the given arrays (vertex_count vertices, index_count indices). */
static rill_gltf_primitive make_prim(const float *pos, const float *uv, uint32_t vc,
                                     const uint32_t *idx, uint32_t ic) {
    rill_gltf_primitive p;
    memset(&p, 0, sizeof(p));
    p.vertex_count = vc;
    p.index_count = ic;
    p.positions = rill__gltf_alloc(vc * 3, sizeof(float));
    p.normals = rill__gltf_alloc(vc * 3, sizeof(float));
    p.uv0 = uv ? rill__gltf_alloc(vc * 2, sizeof(float)) : NULL;
    p.indices = rill__gltf_alloc(ic, sizeof(uint32_t));
    memcpy(p.positions, pos, vc * 3 * sizeof(float));
    if (uv) {
        memcpy(p.uv0, uv, vc * 2 * sizeof(float));
    }
    memcpy(p.indices, idx, ic * sizeof(uint32_t));
    for (uint32_t v = 0; v < vc; v++) {
        p.normals[v * 3 + 2] = 1.0f; /* every case lies in the z = 0 plane, facing +z */
    }
    p.material = -1;
    return p;
}

static void expect_tangent(const rill_gltf_primitive *p, uint32_t v, float x, float y, float w) {
    const float *t = &p->tangents[v * 4];
    if (fabsf(t[0] - x) > 1e-5f || fabsf(t[1] - y) > 1e-5f || fabsf(t[2]) > 1e-5f || t[3] != w) {
        fail_msg("vertex %u: tangent (%g %g %g %g), expected (%g %g 0 %g)", v, t[0], t[1], t[2],
                 t[3], x, y, w);
    }
}

static void test_tangents(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    /* A flat quad, u along +x and v along +y: tangent +x, w = +1 everywhere. */
    const float qpos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const float quv[] = {0, 0, 1, 0, 1, 1, 0, 1};
    const uint32_t qidx[] = {0, 1, 2, 0, 2, 3};
    rill_gltf_primitive p = make_prim(qpos, quv, 4, qidx, 6);
    assert_true(rill__gltf_primitive_fix_tangents(&p, true));
    assert_int_equal(p.vertex_count, 4);
    for (uint32_t v = 0; v < 4; v++) {
        expect_tangent(&p, v, 1, 0, 1);
    }
    rill__gltf_primitive_release(&p);

    /* u rotated a quarter turn (u along +y): the tangent follows u, w stays +1. */
    const float ruv[] = {0, 0, 0, -1, 1, -1, 1, 0};
    p = make_prim(qpos, ruv, 4, qidx, 6);
    assert_true(rill__gltf_primitive_fix_tangents(&p, true));
    for (uint32_t v = 0; v < 4; v++) {
        expect_tangent(&p, v, 0, 1, 1);
    }
    rill__gltf_primitive_release(&p);

    /* Two quads side by side with mirrored UVs (u runs 0 -> 1 -> 0 across x = 0..2), sharing the
     * seam vertices 1 and 4 (same position, normal and UV on both sides). The left half keeps
     * w = +1 with tangent +x; the right half runs u backwards: tangent -x, w = -1, so the
     * bitangent cross(n, t) * w is +y on both sides. The seam vertices are split in two. */
    const float mpos[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
    const float muv[] = {0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1};
    const uint32_t midx[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
    p = make_prim(mpos, muv, 6, midx, 12);
    assert_true(rill__gltf_primitive_fix_tangents(&p, true));
    assert_int_equal(p.vertex_count, 8);
    for (uint32_t c = 0; c < 12; c++) {
        uint32_t v = p.indices[c];
        bool right = c >= 6;
        expect_tangent(&p, v, right ? -1.0f : 1.0f, 0, right ? -1.0f : 1.0f);
        /* Copies keep the attributes of the vertex they copy. */
        assert_memory_equal(&p.positions[v * 3], &mpos[midx[c] * 3], 12);
        assert_memory_equal(&p.uv0[v * 2], &muv[midx[c] * 2], 8);
    }
    rill__gltf_primitive_release(&p);

    /* Duplicated vertices with equal values are one tangent space (welded by value). A second
     * copy of vertex 2 used by the second triangle must get the same tangent. */
    const float dpos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0};
    const float duv[] = {0, 0, 1, 0, 1, 1, 0, 1, 1, 1};
    const uint32_t didx[] = {0, 1, 2, 0, 4, 3};
    p = make_prim(dpos, duv, 5, didx, 6);
    assert_true(rill__gltf_primitive_fix_tangents(&p, true));
    assert_memory_equal(&p.tangents[2 * 4], &p.tangents[4 * 4], 16);
    rill__gltf_primitive_release(&p);

    /* No UVs: any unit tangent perpendicular to the normal. Degenerate UVs: the same. */
    p = make_prim(qpos, NULL, 4, qidx, 6);
    assert_true(rill__gltf_primitive_fix_tangents(&p, true));
    const float zuv[8] = {0};
    rill_gltf_primitive z = make_prim(qpos, zuv, 4, qidx, 6);
    assert_true(rill__gltf_primitive_fix_tangents(&z, true));
    for (uint32_t v = 0; v < 4; v++) {
        const float *t = &p.tangents[v * 4], *u = &z.tangents[v * 4];
        assert_true(fabsf(t[2]) < 1e-6f && fabsf(t[0] * t[0] + t[1] * t[1] - 1.0f) < 1e-5f);
        assert_true(fabsf(u[2]) < 1e-6f && fabsf(u[0] * u[0] + u[1] * u[1] - 1.0f) < 1e-5f);
    }
    rill__gltf_primitive_release(&p);
    rill__gltf_primitive_release(&z);

    /* Not asked to generate: a primitive without tangents keeps none. */
    p = make_prim(qpos, quv, 4, qidx, 6);
    assert_true(rill__gltf_primitive_fix_tangents(&p, false));
    assert_null(p.tangents);
    rill__gltf_primitive_release(&p);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_grammar),
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_json_numbers_random),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_tangents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
