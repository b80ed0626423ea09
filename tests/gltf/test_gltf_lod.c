/* test_gltf_lod.c: the LOD bake: level counts (about half the triangles per level), the 10%
 * rule ending the chain, the level limit, kept structure (nodes, names, materials), edges rebuilt
 * per level, and name_lodN.glb files written beside the model and readable again. */
#include "rill_test.h"

#include <math.h>

#include "gltf_test_models.h"
#include "rill/formats/gltf.h"
#include "rill/formats/lod.h"

static void test_levels_halve(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *base = tm_sphere(128, 64); /* 16128 triangles */
    uint64_t base_tris = rill_gltf_model_triangle_count(base);
    rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
    rill_lod_level_info info[RILL_LOD_MAX_LEVELS];
    uint32_t count;
    rill_error err = {0};
    assert_int_equal(rill_lod_bake(base, NULL, levels, info, &count, &err), RILL_OK);
    assert_int_equal(count, 3); /* the default */
    uint64_t parent = base_tris;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t t = rill_gltf_model_triangle_count(levels[i]);
        assert_int_equal(t, info[i].triangles);
        double want = (double)base_tris / (double)(2u << i);
        print_message("level %u: %llu triangles (target %.0f, sloppy %u)\n", i + 1,
                      (unsigned long long)t, want, info[i].sloppy_primitives);
        /* Within 25% of 1/2^n of the base, and at least 10% below the parent. */
        assert_true((double)t <= want * 1.25 && (double)t >= want * 0.75);
        assert_true((double)t <= 0.9 * (double)parent);
        parent = t;
        /* Structure, names and materials carry over; edges are rebuilt (a sphere keeps few). */
        const rill_gltf_model *l = levels[i];
        assert_int_equal(l->node_count, base->node_count);
        assert_string_equal(l->nodes[0].name, "sphere");
        assert_string_equal(l->meshes[0].name, "sphere");
        assert_int_equal(l->material_count, 1);
        assert_string_equal(l->materials[0].name, "paint");
        assert_int_equal(l->meshes[0].primitives[0].material, 0);
        const rill_gltf_primitive *p = &l->meshes[0].primitives[0];
        assert_true(p->vertex_count < base->meshes[0].primitives[0].vertex_count);
        for (uint32_t k = 0; k < p->index_count; k++) {
            assert_true(p->indices[k] < p->vertex_count);
        }
        assert_non_null(p->normals);
        assert_non_null(p->uv0);
    }
    for (uint32_t i = 0; i < count; i++) {
        rill_gltf_model_free(levels[i]);
    }
    /* At most four levels, whatever is asked. */
    rill_lod_desc d = {.levels = 9};
    assert_int_equal(rill_lod_bake(base, &d, levels, NULL, &count, &err), RILL_OK);
    assert_int_equal(count, RILL_LOD_MAX_LEVELS);
    for (uint32_t i = 0; i < count; i++) {
        rill_gltf_model_free(levels[i]);
    }
    rill_gltf_model_free(base);
    RILL_TEST_LEAK_END();
}

static void test_ten_percent_rule(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
    uint32_t count = 99;
    rill_error err = {0};
    /* A single triangle cannot lose 10%: no level at all. */
    float *pos = tm_alloc(9, sizeof(float));
    float *nrm = tm_alloc(9, sizeof(float));
    uint32_t *idx = tm_alloc(3, sizeof(uint32_t));
    pos[3] = 1.0f;
    pos[7] = 1.0f;
    nrm[2] = nrm[5] = nrm[8] = 1.0f;
    idx[1] = 1;
    idx[2] = 2;
    rill_gltf_model *tri = tm_wrap("tri", 3, pos, nrm, NULL, 3, idx);
    assert_int_equal(rill_lod_bake(tri, NULL, levels, NULL, &count, &err), RILL_OK);
    assert_int_equal(count, 0);
    rill_gltf_model_free(tri);
    /* Raising the bar to 60%: a level that halves the sphere removes only ~50%, so the chain
     * ends before level 1. */
    rill_gltf_model *sphere = tm_sphere(64, 32);
    rill_lod_desc d = {.min_reduction = 0.6f};
    assert_int_equal(rill_lod_bake(sphere, &d, levels, NULL, &count, &err), RILL_OK);
    assert_int_equal(count, 0);
    /* A small mesh stalls after a few halvings: the chain stops there, short of 4 levels. */
    rill_gltf_model_free(sphere);
    sphere = tm_sphere(8, 4); /* 48 triangles */
    d = (rill_lod_desc){.levels = 4};
    rill_lod_level_info info[RILL_LOD_MAX_LEVELS];
    assert_int_equal(rill_lod_bake(sphere, &d, levels, info, &count, &err), RILL_OK);
    uint64_t parent = rill_gltf_model_triangle_count(sphere);
    for (uint32_t i = 0; i < count; i++) {
        assert_true((double)info[i].triangles <= 0.9 * (double)parent);
        parent = info[i].triangles;
        rill_gltf_model_free(levels[i]);
    }
    print_message("48-triangle sphere: %u levels\n", count);
    assert_true(count < RILL_LOD_MAX_LEVELS);
    rill_gltf_model_free(sphere);
    RILL_TEST_LEAK_END();
}

static void test_bake_file(void **state) {
    (void)state;
    char dir[512], path[600], lod[700];
    rill_test_tmpdir(dir, sizeof(dir), "gltf_lod");
    rill_test_path(path, sizeof(path), dir, "ball.glb");
    rill_gltf_model *base = tm_sphere(64, 32);
    rill_error err = {0};
    /* A stale level 4 from an earlier bake must not survive a bake that makes 3. */
    assert_true(rill_lod_path(lod, sizeof(lod), path, 4));
    assert_int_equal(rill_file_write_all(lod, "old", 3, &err), RILL_OK);
    assert_int_equal(rill_glb_write_file(base, path, NULL, &err), RILL_OK);
    uint32_t written = 0;
    assert_int_equal(rill_lod_bake_file(path, NULL, &written, &err), RILL_OK);
    assert_int_equal(written, 3);
    uint64_t parent = rill_gltf_model_triangle_count(base);
    for (uint32_t level = 1; level <= 3; level++) {
        assert_true(rill_lod_path(lod, sizeof(lod), path, level));
        rill_gltf_model *m;
        if (rill_gltf_read_file(lod, NULL, &m, &err) != RILL_OK) {
            fail_msg("%s", err.msg);
        }
        assert_true(rill_gltf_model_triangle_count(m) < parent);
        parent = rill_gltf_model_triangle_count(m);
        rill_gltf_model_free(m);
    }
    assert_true(rill_lod_path(lod, sizeof(lod), path, 4));
    assert_false(rill_file_exists(lod));
    rill_gltf_model_free(base);
    /* Names: the extension is replaced, folders kept. */
    assert_true(rill_lod_path(lod, sizeof(lod), "models/chair.glb", 2));
    assert_string_equal(lod, "models/chair_lod2.glb");
    assert_true(rill_lod_path(lod, sizeof(lod), "a.b/chair", 1));
    assert_string_equal(lod, "a.b/chair_lod1.glb");
    assert_false(rill_lod_path(lod, 8, "models/chair.glb", 1));
    rill_test_tmpdir_remove(dir);
}

static double bad_share(const rill_gltf_primitive *p, double cos_max, double lo, double hi,
                        double *out_lo, double *out_hi);

static void test_real_model(void **state) {
    (void)state;
    const char *path =
        "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb";
    if (!rill_file_exists(path)) {
        print_message("assimp-testmodels not installed; skipping\n");
        skip();
    }
    rill_gltf_model *base;
    rill_error err = {0};
    assert_int_equal(rill_gltf_read_file(path, NULL, &base, &err), RILL_OK);
    rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
    rill_lod_level_info info[RILL_LOD_MAX_LEVELS];
    uint32_t count;
    assert_int_equal(rill_lod_bake(base, NULL, levels, info, &count, &err), RILL_OK);
    assert_true(count >= 1);
    uint64_t parent = rill_gltf_model_triangle_count(base);
    uint32_t sloppy = 0;
    for (uint32_t i = 0; i < count; i++) {
        print_message("2CylinderEngine level %u: %llu triangles (sloppy %u)\n", i + 1,
                      (unsigned long long)info[i].triangles, info[i].sloppy_primitives);
        assert_true((double)info[i].triangles <= 0.9 * (double)parent);
        parent = info[i].triangles;
        sloppy += info[i].sloppy_primitives;
        /* Every primitive shades like its base: no more of its area with a corner normal over
         * ~78 degrees off the face (lit edge-on or from behind: the black crankcase of the
         * unchecked bake) than the bake's 5 % a level allows. */
        for (uint32_t m = 0; m < base->mesh_count; m++) {
            for (uint32_t p = 0; p < base->meshes[m].primitive_count; p++) {
                double lo, hi, l, h;
                double was = bad_share(&base->meshes[m].primitives[p], 0.2, 0, INFINITY, &lo, &hi);
                double now =
                    bad_share(&levels[i]->meshes[m].primitives[p], 0.2, 0, INFINITY, &l, &h);
                assert_true(now <= was + 0.05 * (double)(i + 1));
            }
        }
        assert_int_equal(levels[i]->node_count, base->node_count);
        assert_int_equal(levels[i]->mesh_count, base->mesh_count);
        uint8_t *bytes;
        size_t size;
        assert_int_equal(rill_glb_write_memory(levels[i], NULL, &bytes, &size, &err), RILL_OK);
        rill_free(bytes);
        rill_gltf_model_free(levels[i]);
    }
    /* Some of its boxy parts still take the sloppy result: their corners moved to the copy of
     * each point whose normal fits the face (repair_corners) shade right. */
    assert_true(sloppy >= 1);
    rill_gltf_model_free(base);
}

/* A sphere (smooth, it halves) and a second primitive of `n` thin flat-shaded boxes in a row, the
 * fins of an engine cylinder: each box face has its own vertices, normal and 0..1 UVs. */
static rill_gltf_model *sphere_and_fins(uint32_t n) {
    rill_gltf_model *m = tm_sphere(64, 32);
    rill_gltf_model *cube = tm_cube();
    const rill_gltf_primitive *c = &cube->meshes[0].primitives[0];
    float *pos = tm_alloc((size_t)n * 24 * 3, sizeof(float));
    float *nrm = tm_alloc((size_t)n * 24 * 3, sizeof(float));
    float *uv = tm_alloc((size_t)n * 24 * 2, sizeof(float));
    uint32_t *idx = tm_alloc((size_t)n * 36, sizeof(uint32_t));
    for (uint32_t f = 0; f < n; f++) {
        for (uint32_t v = 0; v < 24; v++) {
            float *p = &pos[(f * 24 + v) * 3];
            p[0] = c->positions[v * 3] * 2.0f;
            p[1] = c->positions[v * 3 + 1] * 2.0f;
            p[2] = c->positions[v * 3 + 2] * 0.05f + 0.1f * (float)f;
            memcpy(&nrm[(f * 24 + v) * 3], &c->normals[v * 3], 3 * sizeof(float));
            memcpy(&uv[(f * 24 + v) * 2], &c->uv0[v * 2], 2 * sizeof(float));
        }
        for (uint32_t i = 0; i < 36; i++) {
            idx[f * 36 + i] = c->indices[i] + f * 24;
        }
    }
    rill_gltf_model *fins = tm_wrap("fins", n * 24, pos, nrm, uv, n * 36, idx);
    rill_gltf_mesh *mesh = &m->meshes[0];
    rill_gltf_primitive *both = tm_alloc(2, sizeof(rill_gltf_primitive));
    both[0] = mesh->primitives[0];
    both[1] = fins->meshes[0].primitives[0];
    rill_free(mesh->primitives);
    mesh->primitives = both;
    mesh->primitive_count = 2;
    fins->meshes[0].primitive_count = 0;
    rill_gltf_model_free(fins);
    rill_gltf_model_free(cube);
    return m;
}

/* The area-weighted share of p's triangles that shade wrongly: a corner normal whose cosine with
 * the face's is under cos_max, or a texture density (UV area over area) outside [lo/2, 2 hi], the
 * range of the base primitive's own triangles. */
static double bad_share(const rill_gltf_primitive *p, double cos_max, double lo, double hi,
                        double *out_lo, double *out_hi) {
    double total = 0, bad = 0;
    *out_lo = INFINITY;
    *out_hi = 0;
    for (uint32_t t = 0; t < p->index_count; t += 3) {
        const uint32_t *i = &p->indices[t];
        const float *a = &p->positions[i[0] * 3], *b = &p->positions[i[1] * 3],
                    *c = &p->positions[i[2] * 3];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (area < 1e-12) {
            continue;
        }
        double density = 1.0; /* no UVs: every triangle's density is fine */
        if (p->uv0) {
            const float *ua = &p->uv0[i[0] * 2], *ub = &p->uv0[i[1] * 2], *uc = &p->uv0[i[2] * 2];
            density =
                fabs((ub[0] - ua[0]) * (uc[1] - ua[1]) - (uc[0] - ua[0]) * (ub[1] - ua[1])) / area;
        }
        *out_lo = fmin(*out_lo, density);
        *out_hi = fmax(*out_hi, density);
        bool wrong = density < lo / 2 || density > hi * 2;
        for (int k = 0; k < 3; k++) {
            const float *vn = &p->normals[i[k] * 3];
            wrong = wrong || (vn[0] * n[0] + vn[1] * n[1] + vn[2] * n[2]) < cos_max * area;
        }
        total += area;
        bad += wrong ? area : 0;
    }
    return total > 0 ? bad / total : 0;
}

/* Every baked level shades like its base: meshoptimizer's sloppy fallback, which knows only
 * positions, gave the boxes' corners one face's normal for all three faces and UVs from across
 * the seams (the engine model's black crankcase and torn fins at level 3), so a result of it that
 * shades worse than its parent is not taken. */
static void test_levels_keep_shading(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *base = sphere_and_fins(64);
    double lo[2], hi[2];
    for (uint32_t p = 0; p < 2; p++) {
        assert_true(bad_share(&base->meshes[0].primitives[p], 0.5, 0, INFINITY, &lo[p], &hi[p]) <
                    1e-9);
    }
    rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
    rill_lod_level_info info[RILL_LOD_MAX_LEVELS];
    uint32_t count;
    rill_error err = {0};
    assert_int_equal(rill_lod_bake(base, NULL, levels, info, &count, &err), RILL_OK);
    assert_int_equal(count, 3); /* the sphere halves, so every level is made */
    for (uint32_t i = 0; i < count; i++) {
        for (uint32_t p = 0; p < 2; p++) {
            double l, h;
            double share =
                bad_share(&levels[i]->meshes[0].primitives[p], 0.5, lo[p], hi[p], &l, &h);
            print_message("level %u primitive %u: %u triangles, %.1f %% shaded wrong\n", i + 1, p,
                          levels[i]->meshes[0].primitives[p].index_count / 3, 100 * share);
            assert_true(share <= 0.05);
        }
        rill_gltf_model_free(levels[i]);
    }
    rill_gltf_model_free(base);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_halve),        cmocka_unit_test(test_ten_percent_rule),
        cmocka_unit_test(test_bake_file),           cmocka_unit_test(test_real_model),
        cmocka_unit_test(test_levels_keep_shading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
