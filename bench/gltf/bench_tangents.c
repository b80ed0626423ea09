/* bench_tangents.c: Rill's tangent generation against the reference MikkTSpace implementation
 * (github.com/mmikk/MikkTSpace), built only when its sources are found outside the repository
 * (RILL_MIKKTSPACE_DIR, default /work/peers/MikkTSpace). For each test mesh both generate
 * tangents from the same positions, normals and UVs; per corner, the angle between the two
 * tangents and whether the bitangent signs agree are reported, with the time of each. Prints one
 * JSON line per mesh. Meshes: UV spheres (one with mirrored halves, so seam vertices split), a
 * cube with mirrored faces, generated buildings and a terrain grid (bench_models.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_models.h"
#include "gltf_internal.h"
#include "gltf_test_models.h"
#include "mikktspace.h"

typedef struct ctx_t {
    const rill_gltf_primitive *p;
    float *out;
} ctx_t;

static const rill_gltf_primitive *prim_of(const SMikkTSpaceContext *c) {
    return ((const ctx_t *)c->m_pUserData)->p;
}
static int get_faces(const SMikkTSpaceContext *c) {
    return (int)(prim_of(c)->index_count / 3);
}
static int get_verts(const SMikkTSpaceContext *c, int f) {
    (void)c;
    (void)f;
    return 3;
}
static uint32_t vert(const SMikkTSpaceContext *c, int f, int v) {
    return prim_of(c)->indices[f * 3 + v];
}
static void get_pos(const SMikkTSpaceContext *c, float o[], int f, int v) {
    memcpy(o, &prim_of(c)->positions[vert(c, f, v) * 3], 12);
}
static void get_nrm(const SMikkTSpaceContext *c, float o[], int f, int v) {
    memcpy(o, &prim_of(c)->normals[vert(c, f, v) * 3], 12);
}
static void get_uv(const SMikkTSpaceContext *c, float o[], int f, int v) {
    memcpy(o, &prim_of(c)->uv0[vert(c, f, v) * 2], 8);
}
static void set_tan(const SMikkTSpaceContext *c, const float t[], float s, int f, int v) {
    float *o = &((ctx_t *)c->m_pUserData)->out[(f * 3 + v) * 4];
    memcpy(o, t, 12);
    o[3] = s;
}

static void compare(const char *name, rill_gltf_primitive *p) {
    rill_free(p->tangents);
    p->tangents = NULL;
    uint32_t ic = p->index_count, n0 = p->vertex_count;
    float *ref = calloc((size_t)ic * 4, sizeof(float));
    ctx_t cx = {p, ref};
    SMikkTSpaceInterface it = {get_faces, get_verts, get_pos, get_nrm, get_uv, set_tan, NULL};
    SMikkTSpaceContext c = {&it, &cx};
    uint64_t t0 = rill_time_ns();
    genTangSpaceDefault(&c);
    double ref_ms = (double)(rill_time_ns() - t0) / 1e6;
    t0 = rill_time_ns();
    rill__gltf_primitive_fix_tangents(p, true);
    double rill_ms = (double)(rill_time_ns() - t0) / 1e6;
    double maxa = 0, suma = 0;
    uint32_t sign_bad = 0;
    for (uint32_t k = 0; k < ic; k++) {
        const float *a = &ref[k * 4], *b = &p->tangents[p->indices[k] * 4];
        double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        double d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la > 0 ? la : 1);
        double ang = acos(fmax(-1.0, fmin(1.0, d))) * 180.0 / 3.14159265358979;
        maxa = fmax(maxa, ang);
        suma += ang;
        sign_bad += (a[3] < 0) != (b[3] < 0);
    }
    printf("{\"bench\":\"tangents_vs_mikktspace\",\"mesh\":\"%s\",\"corners\":%u,"
           "\"vertices\":%u,\"vertices_after\":%u,\"mean_deg\":%.4f,\"max_deg\":%.4f,"
           "\"sign_mismatches\":%u,\"rill_ms\":%.2f,\"mikktspace_ms\":%.2f}\n",
           name, ic, n0, p->vertex_count, suma / ic, maxa, sign_bad, rill_ms, ref_ms);
    free(ref);
}

int main(void) {
    rill_log_set_level(RILL_LOG_ERROR);
    rill_gltf_model *s = tm_sphere(64, 32);
    compare("uv_sphere_64x32", &s->meshes[0].primitives[0]);
    rill_gltf_model *ms = tm_sphere(64, 32);
    rill_gltf_primitive *mp = &ms->meshes[0].primitives[0];
    for (uint32_t v = 0; v < mp->vertex_count; v++) {
        if (mp->uv0[v * 2] > 0.5f) {
            mp->uv0[v * 2] = 1.0f - mp->uv0[v * 2]; /* mirrored halves sharing the seam */
        }
    }
    compare("uv_sphere_mirrored_halves", mp);
    rill_gltf_model *cube = tm_cube();
    for (uint32_t v = 12; v < 24; v++) {
        cube->meshes[0].primitives[0].uv0[v * 2] = 1.0f - cube->meshes[0].primitives[0].uv0[v * 2];
    }
    compare("cube_3_faces_mirrored", &cube->meshes[0].primitives[0]);
    rill_gltf_model *city = make_city(4, 6);
    compare("building", &city->meshes[1].primitives[0]);
    rill_gltf_model *g = make_grid(500, 250, true);
    compare("grid_250k_triangles", &g->meshes[0].primitives[0]);
    rill_gltf_model *list[] = {s, ms, cube, city, g};
    for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
        rill_gltf_model_free(list[i]);
    }
    return 0;
}
