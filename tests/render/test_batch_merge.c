/* test_batch_merge.c: a cell's batch geometry merged over the jobs (src/render/batch_merge.c, built
 * from its source: no GPU). Two meshes of members (small primitives that share a slice, one of
 * 5000 vertices cut into pieces over several, edges on some, an index past its primitive's
 * vertices, two mirroring members whose triangles must turn) are merged without jobs, with
 * deterministic jobs and over 1 and 4 workers: every member lies at the offsets its counts give
 * (vertices placed by its own matrix, indices and edges offset to its first vertex in its mesh),
 * its box bounds exactly its vertices, each mesh's box, centre and radius are what a walk over its
 * vertices measures, and every byte is the same whatever ran it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch_merge.h"

#define MEMBERS 7
#define BIG 3 /* member 3 has BIG_VERTICES */
#define BIG_VERTICES 5000u

typedef struct fixture {
    rill_gltf_primitive prims[MEMBERS];
    float m[MEMBERS][16];
    uint32_t mesh_of[MEMBERS]; /* 0 or 1 */
    float origin[3];
} fixture;

static uint32_t rng = 12345u;
static float frand(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 16777216.0f * 2.0f - 1.0f;
}

static float *floats(uint32_t n) {
    float *f = malloc(n * sizeof(float));
    assert_non_null(f);
    for (uint32_t i = 0; i < n; i++) {
        f[i] = frand();
    }
    return f;
}

/* Member i: a primitive of n vertices (a triangle list over them, and with edges a line loop), all
 * attributes on the even members, only positions on the odd ones. */
static void make_member(fixture *f, uint32_t i, uint32_t n, bool edges) {
    rill_gltf_primitive *p = &f->prims[i];
    memset(p, 0, sizeof(*p));
    p->vertex_count = n;
    p->positions = floats(3 * n);
    if (i % 2 == 0) {
        p->normals = floats(3 * n);
        p->tangents = floats(4 * n);
        p->uv0 = floats(2 * n);
    }
    p->index_count = 3 * (n - 2);
    p->indices = malloc(p->index_count * sizeof(uint32_t));
    assert_non_null(p->indices);
    for (uint32_t t = 0; t < n - 2; t++) {
        p->indices[3 * t] = t;
        p->indices[3 * t + 1] = t + 2; /* out of order: offsets must follow the indices */
        p->indices[3 * t + 2] = t + 1;
    }
    if (i == 1) {
        p->indices[1] = n + 7; /* past its vertices: reads its first one */
    }
    if (edges) {
        p->edge_index_count = 2 * n;
        p->edge_indices = malloc(p->edge_index_count * sizeof(uint32_t));
        assert_non_null(p->edge_indices);
        for (uint32_t k = 0; k < n; k++) {
            p->edge_indices[2 * k] = k;
            p->edge_indices[2 * k + 1] = (k + 1) % n;
        }
    }
    /* Turned, scaled unevenly and moved: normals go through the inverse transpose; members 2 and 5
     * mirror (x scaled by a negative factor). */
    float c = cosf(0.3f * (float)i), s = sinf(0.3f * (float)i), sx = 1.0f + 0.25f * (float)i;
    if (i == 2 || i == 5) {
        sx = -sx;
    }
    const float m[16] = {c * sx,           0,    -s * sx,          0, 0, 0.5f, 0, 0, s, 0, c, 0,
                         10.0f * (float)i, 1.5f, -3.0f * (float)i, 1};
    memcpy(f->m[i], m, sizeof(m));
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    const uint32_t counts[MEMBERS] = {24, 3, 100, BIG_VERTICES, 24, 1500, 8};
    for (uint32_t i = 0; i < MEMBERS; i++) {
        make_member(f, i, counts[i], i % 3 != 1);
        f->mesh_of[i] = i >= 4;
    }
    f->origin[0] = 64.0f;
    f->origin[1] = 0.0f;
    f->origin[2] = -128.0f;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    for (uint32_t i = 0; i < MEMBERS; i++) {
        rill_gltf_primitive *p = &f->prims[i];
        free(p->positions);
        free(p->normals);
        free(p->tangents);
        free(p->uv0);
        free(p->indices);
        free(p->edge_indices);
    }
    free(f);
    return 0;
}

/* Lays the fixture's members out as two meshes and runs the merge over jobs. */
static void merge(const fixture *f, rill_jobs *jobs, rill__merge *mg) {
    rill__merge_clear(mg);
    for (uint32_t i = 0; i < MEMBERS; i++) {
        if (i == 0 || f->mesh_of[i] != f->mesh_of[i - 1]) {
            assert_true(rill__merge_mesh_begin(mg, 100u + i));
        }
        assert_true(rill__merge_add(mg, &f->prims[i], f->m[i]));
    }
    assert_true(rill__merge_run(mg, jobs, f->origin));
}

static void assert_near(float a, float b) {
    assert_true(fabsf(a - b) <= 1e-4f * (1.0f + fabsf(b)));
}

/* A normal through the inverse transpose of m's 3x3: its dot with m's column c is the source's
 * component c (n' . (M e_c) = n . e_c). */
static void assert_normal(const float got[3], const float n[3], const float *m) {
    for (int c = 0; c < 3; c++) {
        const float *col = m + 4 * c;
        float dot = got[0] * col[0] + got[1] * col[1] + got[2] * col[2];
        assert_true(fabsf(dot - n[c]) < 1e-3f);
    }
}

/* Whether m's 3x3 mirrors (negative determinant). */
static bool mirrors(const float *m) {
    float det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                m[8] * (m[1] * m[6] - m[2] * m[5]);
    return det < 0.0f;
}

/* A tangent through m's 3x3, its sign flipped when m mirrors (the batch draws unmirrored). */
static void assert_tangent(const float got[4], const float t[4], const float *m) {
    for (int r = 0; r < 3; r++) {
        assert_near(got[r], m[r] * t[0] + m[4 + r] * t[1] + m[8 + r] * t[2]);
    }
    assert_true(got[3] == (mirrors(m) ? -t[3] : t[3]));
}

/* Each mesh's bounds as the renderer measures a mesh (render_pools.c mesh_bounds): the box of its
 * vertices vertex by vertex, its centre, the farthest vertex from it. */
static void assert_mesh_bounds(const rill__merge *mg) {
    for (uint32_t k = 0; k < mg->meshes.len; k++) {
        const rill__merge_mesh *mm = &mg->meshes.data[k];
        const rill_vertex *v = mg->vertices.data + mm->first_vertex;
        float box[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY}, c[3];
        for (uint32_t i = 0; i < mm->vertex_count; i++) {
            for (int r = 0; r < 3; r++) {
                box[r] = fminf(box[r], v[i].position[r]);
                box[3 + r] = fmaxf(box[3 + r], v[i].position[r]);
            }
        }
        for (int r = 0; r < 3; r++) {
            c[r] = 0.5f * (box[r] + box[3 + r]);
        }
        float r2 = 0.0f;
        for (uint32_t i = 0; i < mm->vertex_count; i++) {
            float d2 = 0.0f;
            for (int r = 0; r < 3; r++) {
                float d = v[i].position[r] - c[r];
                d2 += d * d;
            }
            r2 = fmaxf(r2, d2);
        }
        float radius = sqrtf(r2);
        assert_memory_equal(mm->box, box, sizeof(box));
        assert_memory_equal(mm->center, c, sizeof(c));
        assert_memory_equal(&mm->radius, &radius, sizeof(radius));
    }
}

/* Every member where its counts put it: its vertices placed by its own matrix (checked against a
 * plain transform, to rounding), its indices and edges offset to its first vertex in its mesh, its
 * box the exact bounds of those vertices. */
static void assert_layout(const fixture *f, const rill__merge *mg) {
    assert_int_equal(mg->meshes.len, 2);
    assert_int_equal(mg->members.len, MEMBERS);
    uint32_t v = 0, ix = 0, ex = 0, base = 0;
    for (uint32_t i = 0; i < MEMBERS; i++) {
        const rill_gltf_primitive *p = &f->prims[i];
        const rill__merge_member *mb = &mg->members.data[i];
        if (i == 4) {
            base = 0; /* a new mesh */
        }
        assert_int_equal(mb->first_vertex, v);
        assert_int_equal(mb->base, base);
        assert_int_equal(mb->first_index, ix);
        assert_int_equal(mb->first_edge, ex);
        const float *m = f->m[i];
        float box[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
        for (uint32_t k = 0; k < p->vertex_count; k++) {
            const rill_vertex *o = &mg->vertices.data[v + k];
            const float *q = p->positions + 3 * k;
            for (int r = 0; r < 3; r++) {
                float want = m[r] * q[0] + m[4 + r] * q[1] + m[8 + r] * q[2] + m[12 + r];
                assert_near(o->position[r], want - f->origin[r]);
                box[r] = fminf(box[r], o->position[r]);
                box[3 + r] = fmaxf(box[3 + r], o->position[r]);
            }
            if (p->uv0) {
                assert_memory_equal(o->uv, p->uv0 + 2 * k, sizeof(o->uv));
            }
            if (p->normals) {
                assert_normal(o->normal, p->normals + 3 * k, m);
                assert_tangent(o->tangent, p->tangents + 4 * k, m);
            } else {
                const float zero[4] = {0};
                assert_memory_equal(o->normal, zero, sizeof(o->normal));
                assert_memory_equal(o->tangent, zero, sizeof(o->tangent));
            }
        }
        assert_memory_equal(mb->box, box, sizeof(box));
        for (uint32_t k = 0; k < p->index_count; k++) {
            /* A mirroring member's triangles turn: (a, b, c) -> (a, c, b). */
            uint32_t from = mirrors(m) && k % 3 ? k + (k % 3 == 1 ? 1 : -1) : k;
            uint32_t want = base + (p->indices[from] < p->vertex_count ? p->indices[from] : 0u);
            assert_int_equal(mg->indices.data[ix + k], want);
        }
        for (uint32_t k = 0; k < p->edge_index_count; k++) {
            assert_int_equal(mg->edges.data[ex + k], base + p->edge_indices[k]);
        }
        v += p->vertex_count;
        ix += p->index_count;
        ex += p->edge_index_count;
        base += p->vertex_count;
    }
    assert_int_equal(mg->vertices.len, v);
    assert_int_equal(mg->indices.len, ix);
    assert_int_equal(mg->edges.len, ex);
    const rill__merge_mesh *m1 = &mg->meshes.data[1];
    assert_int_equal(mg->meshes.data[0].tag, 100);
    assert_int_equal(m1->tag, 104);
    assert_int_equal(m1->first_member, 4);
    assert_int_equal(m1->member_count, 3);
    assert_int_equal(m1->first_vertex, mg->members.data[4].first_vertex);
    assert_int_equal(m1->vertex_count, v - m1->first_vertex);
    assert_int_equal(m1->index_count, ix - m1->first_index);
    assert_int_equal(m1->edge_count, ex - m1->first_edge);
    assert_mesh_bounds(mg);
}

/* The same bytes: vertices, indices, edges, layouts and boxes. */
static void assert_same(const rill__merge *a, const rill__merge *b) {
    assert_int_equal(a->vertices.len, b->vertices.len);
    assert_memory_equal(a->vertices.data, b->vertices.data, a->vertices.len * sizeof(rill_vertex));
    assert_int_equal(a->indices.len, b->indices.len);
    assert_memory_equal(a->indices.data, b->indices.data, a->indices.len * sizeof(uint32_t));
    assert_int_equal(a->edges.len, b->edges.len);
    assert_memory_equal(a->edges.data, b->edges.data, a->edges.len * sizeof(uint32_t));
    assert_int_equal(a->members.len, b->members.len);
    for (uint32_t i = 0; i < a->members.len; i++) {
        const rill__merge_member *x = &a->members.data[i], *y = &b->members.data[i];
        assert_int_equal(x->first_vertex, y->first_vertex);
        assert_int_equal(x->first_index, y->first_index);
        assert_int_equal(x->first_edge, y->first_edge);
        assert_memory_equal(x->box, y->box, sizeof(x->box));
    }
    assert_int_equal(a->meshes.len, b->meshes.len);
    for (uint32_t k = 0; k < a->meshes.len; k++) {
        const rill__merge_mesh *x = &a->meshes.data[k], *y = &b->meshes.data[k];
        assert_memory_equal(x->box, y->box, sizeof(x->box));
        assert_memory_equal(x->center, y->center, sizeof(x->center));
        assert_memory_equal(&x->radius, &y->radius, sizeof(x->radius));
    }
}

static void test_serial_layout(void **state) {
    fixture *f = *state;
    rill__merge mg = {0};
    merge(f, NULL, &mg);
    assert_layout(f, &mg);
    /* The big member is cut into pieces over several slices; small ones share a slice. */
    uint32_t big_pieces = 0;
    for (uint32_t k = 0; k < mg.pieces.len; k++) {
        big_pieces += mg.pieces.data[k].member == BIG;
    }
    assert_int_equal(big_pieces,
                     (BIG_VERTICES + RILL__MERGE_SLICE_VERTICES - 1u) / RILL__MERGE_SLICE_VERTICES);
    assert_true(mg.slices.len - 1u > big_pieces);
    assert_true(mg.slices.len - 1u < mg.pieces.len);
    /* Merged again into the kept memory: the same. */
    rill__merge again = {0};
    merge(f, NULL, &again);
    merge(f, NULL, &again);
    assert_same(&mg, &again);
    rill__merge_free(&again);
    rill__merge_free(&mg);
}

static void test_jobs_match_serial(void **state) {
    fixture *f = *state;
    rill__merge serial = {0}, by = {0};
    merge(f, NULL, &serial);
    const rill_jobs_desc descs[] = {
        {.deterministic = true}, {.worker_count = 1}, {.worker_count = 4}};
    for (size_t d = 0; d < sizeof(descs) / sizeof(descs[0]); d++) {
        rill_jobs *jobs = rill_jobs_create(&descs[d], NULL);
        assert_non_null(jobs);
        for (int k = 0; k < 8; k++) { /* workers take other slices each time */
            if (by.vertices.data) {   /* stale bytes from the last run must all be written over */
                memset(by.vertices.data, 0xAB, by.vertices.cap * sizeof(rill_vertex));
            }
            merge(f, jobs, &by);
            assert_layout(f, &by);
            assert_same(&serial, &by);
        }
        rill_jobs_destroy(jobs);
    }
    rill__merge_free(&serial);
    rill__merge_free(&by);
}

/* An empty merge runs and lays out nothing. */
static void test_empty(void **state) {
    (void)state;
    rill__merge mg = {0};
    assert_true(rill__merge_run(&mg, NULL, (const float[3]){0, 0, 0}));
    assert_int_equal(mg.vertices.len + mg.indices.len + mg.edges.len, 0);
    assert_int_equal(mg.slices.len, 1);
    rill__merge_free(&mg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_serial_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jobs_match_serial, setup, teardown),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
