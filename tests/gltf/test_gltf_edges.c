/* test_gltf_edges.c: edge buffers: a split-normal cube gives its 12 edges and no diagonals, a
 * subdivided plane only its boundary, a finely tessellated sphere no edges at all; welding,
 * non-manifold edges, bad input; and the RILL_mesh_edges extension round trip through .glb. */
#include "rill_test.h"

#include "gltf_test_models.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"

static const rill_gltf_primitive *prim0(const rill_gltf_model *m) {
    return &m->meshes[0].primitives[0];
}

static void test_cube_edges(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *m = tm_cube();
    rill_error err = {0};
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    const rill_gltf_primitive *p = prim0(m);
    assert_int_equal(p->edge_index_count, 24); /* 12 edges */
    for (uint32_t e = 0; e < p->edge_index_count; e += 2) {
        const float *a = &p->positions[p->edge_indices[e] * 3];
        const float *b = &p->positions[p->edge_indices[e + 1] * 3];
        /* A cube edge changes exactly one coordinate (by the full size); a face diagonal two. */
        int changed = 0;
        for (int k = 0; k < 3; k++) {
            changed += fabsf(a[k] - b[k]) > 0.5f ? 1 : 0;
        }
        assert_int_equal(changed, 1);
    }
    /* No edge twice: the 12 welded pairs are distinct. */
    for (uint32_t e = 0; e < p->edge_index_count; e += 2) {
        for (uint32_t f = e + 2; f < p->edge_index_count; f += 2) {
            bool same = (p->edge_indices[e] == p->edge_indices[f] &&
                         p->edge_indices[e + 1] == p->edge_indices[f + 1]);
            assert_false(same);
        }
    }
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

static void test_plane_boundary_only(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    const uint32_t n = 16;
    rill_gltf_model *m = tm_plane(n);
    rill_error err = {0};
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    const rill_gltf_primitive *p = prim0(m);
    assert_int_equal(p->edge_index_count, 4 * n * 2);
    for (uint32_t e = 0; e < p->edge_index_count; e++) {
        const float *a = &p->positions[p->edge_indices[e] * 3];
        bool on_border = a[0] == 0.0f || a[0] == 1.0f || a[2] == 0.0f || a[2] == 1.0f;
        assert_true(on_border);
    }
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

static void test_sphere_no_interior_edges(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    /* 96 segments: neighbouring facets meet at about 4 degrees, far below 30; the duplicated
     * seam and pole vertices weld, so the seam is not a boundary either. */
    rill_gltf_model *m = tm_sphere(96, 48);
    rill_error err = {0};
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    assert_int_equal(prim0(m)->edge_index_count, 0);
    assert_null(prim0(m)->edge_indices);
    rill_gltf_model_free(m);
    /* A coarse one (6 segments: 60-degree steps) keeps every meridian edge. */
    m = tm_sphere(6, 3);
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    assert_true(prim0(m)->edge_index_count > 0);
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

static void test_weld_and_angle(void **state) {
    (void)state;
    rill_error err = {0};
    /* Two triangles folded along x=0..1 at a chosen dihedral; the shared edge's vertices are
     * duplicated and offset by less than (or more than) the weld tolerance. */
    for (int variant = 0; variant < 4; variant++) {
        float off = (variant & 1) ? 5e-5f : 5e-6f; /* beyond / within tolerance */
        float deg = (variant & 2) ? 40.0f : 20.0f; /* kept / dropped when welded */
        float rad = deg * 3.14159265f / 180.0f;
        float pos[] = {0,       0, 0, 1,       0, 0, 0.5f, 1,          0,
                       0 + off, 0, 0, 1 + off, 0, 0, 0.5f, -cosf(rad), sinf(rad)};
        uint32_t idx[] = {0, 1, 2, 4, 3, 5};
        uint32_t *lines;
        uint32_t count;
        assert_int_equal(rill_edges_build(pos, 6, 0, idx, 6, NULL, &lines, &count, &err), RILL_OK);
        uint32_t expect;
        if (variant & 1) {
            expect = 6; /* not welded: two separate triangles, all boundary */
        } else {
            expect = (variant & 2) ? 5 : 4; /* 4 outer edges, + the fold when >= 30 degrees */
        }
        if (count / 2 != expect) {
            fail_msg("variant %d: %u edges, expected %u", variant, count / 2, expect);
        }
        rill_free(lines);
    }
    /* Three triangles on one edge (non-manifold): the edge is kept even if all are coplanar. */
    float fan[] = {0, 0, 0, 1, 0, 0, 0.5f, 1, 0, 0.5f, -1, 0, 0.5f, 2, 0};
    uint32_t fi[] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    uint32_t *lines;
    uint32_t count;
    assert_int_equal(rill_edges_build(fan, 5, 0, fi, 9, NULL, &lines, &count, &err), RILL_OK);
    bool has_shared = false;
    for (uint32_t i = 0; i < count; i += 2) {
        has_shared = has_shared || (lines[i] == 0 && lines[i + 1] == 1);
    }
    assert_true(has_shared);
    rill_free(lines);
    /* Degenerate triangles are ignored; bad input is an argument error, not a crash. */
    uint32_t degen[] = {0, 0, 1};
    assert_int_equal(rill_edges_build(fan, 5, 0, degen, 3, NULL, &lines, &count, &err), RILL_OK);
    assert_int_equal(count, 0);
    uint32_t bad[] = {0, 1, 9};
    assert_int_equal(rill_edges_build(fan, 5, 0, bad, 3, NULL, &lines, &count, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_edges_build(fan, 5, 0, bad, 2, NULL, &lines, &count, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    rill_edges_desc d = rill_edges_query_defaults();
    assert_true(d.weld_tolerance == 1e-5f && d.angle_deg == 30.0f);
}

static void test_edges_in_glb(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *m = tm_cube();
    rill_error err = {0};
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    uint8_t *bytes;
    size_t size;
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &size, &err), RILL_OK);
    /* Declared as used, never as required, so other glTF tools still open the file. */
    uint32_t json_len;
    memcpy(&json_len, bytes + 12, 4);
    char *json = rill_strndup((const char *)bytes + 20, json_len);
    assert_non_null(strstr(json, "\"extensionsUsed\":[\"RILL_mesh_edges\"]"));
    assert_null(strstr(json, "extensionsRequired"));
    assert_non_null(strstr(json, "\"RILL_mesh_edges\":{\"edges\":"));
    rill_free(json);
    rill_gltf_model *b;
    assert_int_equal(rill_gltf_read_memory(bytes, size, NULL, &b, &err), RILL_OK);
    assert_int_equal(prim0(b)->edge_index_count, 24);
    assert_memory_equal(prim0(b)->edge_indices, prim0(m)->edge_indices, 24 * 4);
    rill_gltf_model_free(b);
    rill_free(bytes);
    /* skip_edges leaves the extension out entirely. */
    rill_glb_write_desc wd = {.skip_edges = true};
    assert_int_equal(rill_glb_write_memory(m, &wd, &bytes, &size, &err), RILL_OK);
    assert_int_equal(rill_gltf_read_memory(bytes, size, NULL, &b, &err), RILL_OK);
    assert_int_equal(prim0(b)->edge_index_count, 0);
    rill_gltf_model_free(b);
    rill_free(bytes);
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_edges),
        cmocka_unit_test(test_plane_boundary_only),
        cmocka_unit_test(test_sphere_no_interior_edges),
        cmocka_unit_test(test_weld_and_angle),
        cmocka_unit_test(test_edges_in_glb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
