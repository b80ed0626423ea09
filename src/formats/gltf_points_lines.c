/* gltf_points_lines.c: point and line primitives (modes 0 to 3) turned into triangles the reader
 * keeps, so every pass draws them like any mesh (culling, shadows, batching, export). Each line
 * segment becomes a thin triangular prism along it (three side faces, flat normals), each point a
 * small octahedron, both of radius RILL_GLTF_POINT_LINE_SIZE times the primitive's bounding
 * diagonal (at least RILL_GLTF_POINT_LINE_MIN metres): a world-space size, not glTF's one pixel.
 * Every generated vertex copies the attributes of the vertex it stands for (UVs, colours, skin,
 * morph displacements), so a coloured, skinned or morphed line stays so. */
#include "gltf_read_internal.h"

#include <math.h>
#include <string.h>

/* Segments (pairs of vertex indices) of line mode `mode` (1 lines, 2 loop, 3 strip) over the
 * primitive's index list, written to seg (room for count + 1 pairs); returns how many. */
static uint32_t line_segments(int mode, const uint32_t *idx, uint32_t count, uint32_t *seg) {
    uint32_t n = 0;
    if (mode == 1) {
        for (uint32_t i = 0; i + 1 < count; i += 2) {
            seg[n * 2] = idx[i], seg[n * 2 + 1] = idx[i + 1], n++;
        }
        return n;
    }
    for (uint32_t i = 0; i + 1 < count; i++) {
        seg[n * 2] = idx[i], seg[n * 2 + 1] = idx[i + 1], n++;
    }
    if (mode == 2 && count > 2) {
        seg[n * 2] = idx[count - 1], seg[n * 2 + 1] = idx[0], n++;
    }
    return n;
}

/* Two unit vectors perpendicular to d (unit) and to each other. */
static void perpendiculars(const float d[3], float u[3], float v[3]) {
    float a[3] = {0, 0, 0};
    a[fabsf(d[0]) < 0.6f ? 0 : fabsf(d[1]) < 0.6f ? 1 : 2] = 1.0f;
    u[0] = d[1] * a[2] - d[2] * a[1];
    u[1] = d[2] * a[0] - d[0] * a[2];
    u[2] = d[0] * a[1] - d[1] * a[0];
    float l = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++) {
        u[k] /= l;
    }
    v[0] = d[1] * u[2] - d[2] * u[1];
    v[1] = d[2] * u[0] - d[0] * u[2];
    v[2] = d[0] * u[1] - d[1] * u[0];
}

/* What the expansion writes: new positions and normals, and for each new vertex the source
 * vertex whose other attributes it copies. */
typedef struct out_mesh {
    float *pos, *nrm;
    uint32_t *src;
    uint32_t n;
} out_mesh;

static void put(out_mesh *o, const float p[3], const float nrm[3], uint32_t src) {
    memcpy(&o->pos[(size_t)o->n * 3], p, 3 * sizeof(float));
    memcpy(&o->nrm[(size_t)o->n * 3], nrm, 3 * sizeof(float));
    o->src[o->n++] = src;
}

/* Segment a-b as a prism of radius s: three side quads (two triangles each, 12 vertices). A
 * segment of zero length is drawn as a point. */
static void put_prism(out_mesh *o, const float *pos, uint32_t a, uint32_t b, float s);

/* Point a as an octahedron of radius s: eight triangles, 24 vertices, flat normals. */
static void put_octahedron(out_mesh *o, const float *pos, uint32_t a, float s) {
    const float *c = &pos[(size_t)a * 3];
    for (int f = 0; f < 8; f++) {
        float sx = (f & 1) ? -1.0f : 1.0f, sy = (f & 2) ? -1.0f : 1.0f, sz = (f & 4) ? -1.0f : 1.0f;
        float p[3][3] = {
            {c[0] + sx * s, c[1], c[2]}, {c[0], c[1] + sy * s, c[2]}, {c[0], c[1], c[2] + sz * s}};
        const float k = 0.57735027f;
        float nrm[3] = {sx * k, sy * k, sz * k};
        bool flip = sx * sy * sz < 0.0f; /* keep every face counter-clockwise seen from outside */
        put(o, p[0], nrm, a);
        put(o, p[flip ? 2 : 1], nrm, a);
        put(o, p[flip ? 1 : 2], nrm, a);
    }
}

static void put_prism(out_mesh *o, const float *pos, uint32_t a, uint32_t b, float s) {
    const float *pa = &pos[(size_t)a * 3], *pb = &pos[(size_t)b * 3];
    float d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0.0f)) {
        put_octahedron(o, pos, a, s);
        return;
    }
    for (int k = 0; k < 3; k++) {
        d[k] /= len;
    }
    float u[3], v[3], ring[3][3];
    perpendiculars(d, u, v);
    for (int i = 0; i < 3; i++) {
        float ang = (float)i * 2.0943951f; /* 120 degrees */
        for (int k = 0; k < 3; k++) {
            ring[i][k] = (cosf(ang) * u[k] + sinf(ang) * v[k]) * s;
        }
    }
    for (int i = 0; i < 3; i++) {
        const float *r0 = ring[i], *r1 = ring[(i + 1) % 3];
        float nrm[3], l = 0.0f;
        for (int k = 0; k < 3; k++) {
            nrm[k] = r0[k] + r1[k];
            l += nrm[k] * nrm[k];
        }
        l = sqrtf(l);
        for (int k = 0; k < 3; k++) {
            nrm[k] /= l;
        }
        float q[4][3];
        for (int k = 0; k < 3; k++) {
            q[0][k] = pa[k] + r0[k], q[1][k] = pa[k] + r1[k];
            q[2][k] = pb[k] + r1[k], q[3][k] = pb[k] + r0[k];
        }
        /* Counter-clockwise seen from outside (r0 -> r1 turns counter-clockwise about d). */
        put(o, q[0], nrm, a), put(o, q[1], nrm, a), put(o, q[2], nrm, b);
        put(o, q[0], nrm, a), put(o, q[2], nrm, b), put(o, q[3], nrm, b);
    }
}

/* Replaces every per-vertex array but positions and normals with its values gathered at src. */
static bool gather(rill_gltf_primitive *prim, const uint32_t *src, uint32_t n) {
    uint32_t tc3 = 3 * prim->target_count;
    float **arrays[] = {&prim->uv0,           &prim->uv1,     &prim->colors,
                        &prim->joints,        &prim->weights, &prim->target_positions,
                        &prim->target_normals};
    const uint32_t comps[] = {2, 2, 4, 4, 4, tc3, tc3};
    for (size_t a = 0; a < RILL_COUNTOF(arrays); a++) {
        float *old = *arrays[a];
        if (!old || !comps[a]) {
            continue;
        }
        float *dst = rill__gltf_alloc((size_t)n * comps[a], sizeof(float));
        if (!dst) {
            return false;
        }
        for (uint32_t i = 0; i < n; i++) {
            memcpy(&dst[(size_t)i * comps[a]], &old[(size_t)src[i] * comps[a]],
                   comps[a] * sizeof(float));
        }
        rill_free(old);
        *arrays[a] = dst;
    }
    return true;
}

/* The primitive's new arrays: positions, normals and indices from o, the rest gathered. */
static bool adopt(rill_gltf_primitive *prim, out_mesh *o) {
    if (!gather(prim, o->src, o->n)) {
        return false;
    }
    uint32_t *idx = rill__gltf_alloc(o->n ? o->n : 1, sizeof(uint32_t));
    if (!idx) {
        return false;
    }
    for (uint32_t i = 0; i < o->n; i++) {
        idx[i] = i;
    }
    rill_free(prim->positions);
    rill_free(prim->normals);
    rill_free(prim->tangents);
    rill_free(prim->indices);
    rill_free(prim->edge_indices);
    prim->positions = o->pos, prim->normals = o->nrm;
    o->pos = o->nrm = NULL;
    prim->tangents = NULL;
    prim->edge_indices = NULL;
    prim->edge_index_count = 0;
    prim->indices = idx;
    prim->index_count = o->n;
    prim->vertex_count = o->n;
    return true;
}

rill_result rill__rd_expand_points_lines(rd *r, int mode, const char *where,
                                         rill_gltf_primitive *prim) {
    uint32_t count = prim->index_count;
    uint32_t *seg = NULL;
    uint32_t shapes = count; /* points */
    if (mode > 0) {
        RILL_TRY(rill__rd_charge(r, ((uint64_t)count + 1u) * 8u, where, ": line segments"));
        seg = rill__gltf_alloc((size_t)count + 1u, 2 * sizeof(uint32_t));
        if (!seg) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        shapes = line_segments(mode, prim->indices, count, seg);
    }
    uint64_t verts = (uint64_t)shapes * 24u; /* at most: a zero-length segment is an octahedron */
    if (verts > (1u << 24)) {
        rill_free(seg);
        return rill__rd_fail(r, RILL_ERR_LIMIT, "%s: %u %s expand to %llu vertices (limit 2^24)",
                             where, shapes, mode ? "line segments" : "points",
                             (unsigned long long)verts);
    }
    uint64_t per_vertex =
        28u + (prim->uv0 ? 8u : 0u) + (prim->uv1 ? 8u : 0u) + (prim->colors ? 16u : 0u) +
        (prim->joints ? 32u : 0u) +
        12u * prim->target_count *
            ((prim->target_positions ? 1u : 0u) + (prim->target_normals ? 1u : 0u));
    rill_result res =
        rill__rd_charge(r, verts * per_vertex, where, ": points and lines as triangles");
    out_mesh o = {0};
    if (res == RILL_OK && verts) {
        o.pos = rill__gltf_alloc_raw((size_t)verts * 3, sizeof(float));
        o.nrm = rill__gltf_alloc_raw((size_t)verts * 3, sizeof(float));
        o.src = rill__gltf_alloc_raw((size_t)verts, sizeof(uint32_t));
        if (!o.pos || !o.nrm || !o.src) {
            res = rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
    }
    if (res == RILL_OK) {
        const float *lo = prim->bounds_min, *hi = prim->bounds_max;
        float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        float s = sqrtf(dx * dx + dy * dy + dz * dz) * RILL_GLTF_POINT_LINE_SIZE;
        s = s > RILL_GLTF_POINT_LINE_MIN ? s : RILL_GLTF_POINT_LINE_MIN;
        for (uint32_t i = 0; i < shapes; i++) {
            if (mode == 0) {
                put_octahedron(&o, prim->positions, prim->indices[i], s);
            } else {
                put_prism(&o, prim->positions, seg[i * 2], seg[i * 2 + 1], s);
            }
        }
        if (!adopt(prim, &o)) {
            res = rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
    }
    rill_free(o.pos);
    rill_free(o.nrm);
    rill_free(o.src);
    rill_free(seg);
    if (res == RILL_OK) {
        rill__gltf_primitive_bounds(prim);
    }
    return res;
}
