/* edges.c: edge-buffer extraction (boundary, hard and non-manifold edges) for wireframe drawing.
 *
 * Two passes, both linear in the mesh size:
 *   1. weld: vertices are bucketed on a grid whose cell is twice the weld tolerance; a vertex
 *      joins the first earlier representative within tolerance in its own cell or the 7
 *      neighbours on its nearer sides (a point within tolerance cannot be anywhere else);
 *   2. edges: the three welded edges of every non-degenerate triangle are bucketed by their
 *      lower vertex (a counting sort) and each bucket ordered by the upper one; the first two
 *      faces of an edge decide whether it is hard, a third makes it non-manifold (always kept).
 * The LOD bake reuses a level's weld for the next (a simplified level's vertices are a subset of
 * its parent's), so only the edge pass runs per level. */
#include "rill/formats/edges.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

rill_edges_desc rill_edges_query_defaults(void) {
    return (rill_edges_desc){.weld_tolerance = 1e-5f, .angle_deg = 30.0f};
}

static rill_edges_desc resolve(const rill_edges_desc *desc) {
    rill_edges_desc d = rill_edges_query_defaults();
    if (desc && desc->weld_tolerance > 0.0f) {
        d.weld_tolerance = desc->weld_tolerance;
    }
    if (desc && desc->angle_deg > 0.0f) {
        d.angle_deg = desc->angle_deg;
    }
    return d;
}

static const float *pos_at(const float *positions, size_t stride, uint32_t i) {
    return (const float *)((const uint8_t *)positions + (size_t)i * stride);
}

/* Grid cell coordinate, clamped so huge coordinates cannot overflow the integer; *side is the
 * neighbouring cell (-1 or +1) nearer to v. */
static int64_t cell_of(float v, float inv_cell, int *side) {
    double x = (double)v * (double)inv_cell;
    double c = floor(x);
    *side = (x - c) < 0.5 ? -1 : 1;
    if (c > 4.0e18) {
        c = 4.0e18;
    } else if (c < -4.0e18) {
        c = -4.0e18;
    }
    return (int64_t)c;
}

/* A cell's 64-bit key, mixed inline (the weld probes 8 cells per vertex, most of them empty, and
 * a library hash call per probe cost more than the rest of the weld). Two cells that collide
 * merely share a chain: every candidate is still distance-checked. */
static uint64_t cell_key(int64_t x, int64_t y, int64_t z) {
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 32) ^ (uint64_t)y) * 0xC2B2AE3D27D4EB4Full;
    h = (h ^ (h >> 29) ^ (uint64_t)z) * 0x165667B19E3779F9ull;
    return h ^ (h >> 32);
}

/* Open-addressing table from cell key to the cell's most recent vertex + 1 (0 = empty), with a
 * bitset of occupied keys in front: most of the 8 probes per vertex ask about empty cells, and
 * the bitset (8 bits per slot, small enough to stay in cache) answers them without touching the
 * table. */
typedef struct cell_table {
    uint64_t *keys;
    uint32_t *heads;
    uint8_t *occupied;
    size_t mask;
} cell_table;

static uint32_t *cell_slot(cell_table *t, uint64_t key, bool insert) {
    size_t bit = (size_t)(key >> 40) & (t->mask * 8u + 7u);
    if (insert) {
        t->occupied[bit >> 3] |= (uint8_t)(1u << (bit & 7u));
    } else if (!(t->occupied[bit >> 3] & (1u << (bit & 7u)))) {
        return NULL;
    }
    size_t i = (size_t)key & t->mask;
    while (t->heads[i] != 0) {
        if (t->keys[i] == key) {
            return &t->heads[i];
        }
        i = (i + 1) & t->mask;
    }
    if (!insert) {
        return NULL;
    }
    t->keys[i] = key;
    return &t->heads[i];
}

/* >>weld -------------------------------------------------------------------------------------- */

bool rill__edges_weld(const float *positions, uint32_t vertex_count, size_t stride, float tol,
                      uint32_t *weld) {
    if (stride == 0) {
        stride = 3 * sizeof(float);
    }
    if (vertex_count == 0) {
        return true;
    }
    float inv_cell = 0.5f / tol;
    size_t cap = 16;
    while (cap < (size_t)vertex_count * 2) {
        cap *= 2;
    }
    uint32_t *next = rill__gltf_alloc_raw(vertex_count, sizeof(uint32_t));
    cell_table t = {rill__gltf_alloc_raw(cap, sizeof(uint64_t)),
                    rill__gltf_alloc(cap, sizeof(uint32_t)), rill__gltf_alloc(cap, 1), cap - 1};
    bool ok = next && t.keys && t.heads && t.occupied;
    for (uint32_t v = 0; ok && v < vertex_count; v++) {
        const float *p = pos_at(positions, stride, v);
        int64_t c[3];
        int side[3];
        for (int k = 0; k < 3; k++) {
            c[k] = cell_of(p[k], inv_cell, &side[k]);
        }
        uint32_t found = UINT32_MAX;
        /* Cells are twice the tolerance wide, so a point within tolerance lies in this cell or
         * in the neighbour on the side this point is closer to: 8 cells, not 27. */
        for (int probe = 0; probe < 8 && found == UINT32_MAX; probe++) {
            int64_t x = c[0] + ((probe & 1) ? side[0] : 0);
            int64_t y = c[1] + ((probe & 2) ? side[1] : 0);
            int64_t z = c[2] + ((probe & 4) ? side[2] : 0);
            const uint32_t *head = cell_slot(&t, cell_key(x, y, z), false);
            for (uint32_t r = head ? *head : 0; r != 0; r = next[r - 1]) {
                const float *q = pos_at(positions, stride, r - 1);
                float ex = q[0] - p[0], ey = q[1] - p[1], ez = q[2] - p[2];
                if (ex * ex + ey * ey + ez * ez <= tol * tol) {
                    found = r - 1;
                    break;
                }
            }
        }
        if (found != UINT32_MAX) {
            weld[v] = found;
            continue;
        }
        weld[v] = v;
        uint32_t *head = cell_slot(&t, cell_key(c[0], c[1], c[2]), true);
        next[v] = *head;
        *head = v + 1u;
    }
    rill_free(t.keys);
    rill_free(t.heads);
    rill_free(t.occupied);
    rill_free(next);
    return ok;
}

/* >>edges ------------------------------------------------------------------------------------- */

/* A half-edge in its bucket (all half-edges of a bucket share the lower welded vertex). */
typedef struct half_edge {
    uint32_t hi;
    uint32_t id; /* triangle * 3 + corner */
} half_edge;

/* The faces of one edge met so far in a bucket: the first two (lowest half-edge numbers, which
 * is triangle order) and how many. */
typedef struct edge_group {
    uint32_t first, second, count;
} edge_group;

/* The edge pass without hashing: half-edges are bucketed by their lower welded vertex (a counting
 * sort); inside a bucket, the half-edges of one edge (same upper vertex) are grouped through a
 * stamp per upper vertex, with no sorting. An edge is emitted at its first half-edge, which keeps
 * the output in order of first appearance. */
/* Rounds a byte count up to 16 so arrays carved from one scratch block stay aligned. */
static size_t round16(size_t n) {
    return (n + 15u) & ~(size_t)15u;
}

rill_result rill__edges_from_weld(const float *positions, size_t stride, uint32_t vertex_count,
                                  const uint32_t *weld, const uint32_t *indices,
                                  uint32_t index_count, float angle_deg, rill__scratch *scratch,
                                  uint32_t **out_lines, uint32_t *out_count) {
    *out_lines = NULL;
    *out_count = 0;
    if (stride == 0) {
        stride = 3 * sizeof(float);
    }
    uint32_t tris = index_count / 3;
    if (tris == 0) {
        return RILL_OK;
    }
    /* Inclusive "at least angle": a tiny slack so an exact 30-degree crease is kept despite
     * rounding in the normals. */
    float cos_limit = cosf(angle_deg * 3.14159265f / 180.0f) + 1e-6f;
    /* One scratch block: face normals, welded corners (UINT32_MAX in the first marks a dropped
     * triangle), bucket starts, half-edges and keep flags. */
    size_t n3 = (size_t)tris * 3;
    size_t o_corner = round16(n3 * sizeof(float));
    size_t o_start = o_corner + round16(n3 * sizeof(uint32_t));
    size_t o_he = o_start + round16(((size_t)vertex_count + 1) * sizeof(uint32_t));
    size_t o_keep = o_he + round16(n3 * sizeof(half_edge));
    size_t o_stamp = o_keep + round16(n3);
    size_t o_slot = o_stamp + round16((size_t)vertex_count * sizeof(uint32_t));
    size_t o_grp = o_slot + round16((size_t)vertex_count * sizeof(uint32_t));
    uint8_t *mem = rill__scratch_get(scratch, o_grp + n3 * sizeof(edge_group));
    if (!mem) {
        return RILL_ERR_OUT_OF_MEMORY;
    }
    float *fn = (float *)(void *)mem;
    uint32_t *wc = (uint32_t *)(void *)(mem + o_corner);
    uint32_t *start = (uint32_t *)(void *)(mem + o_start);
    half_edge *he = (half_edge *)(void *)(mem + o_he);
    uint8_t *keep = mem + o_keep;
    uint32_t *stamp = (uint32_t *)(void *)(mem + o_stamp);
    uint32_t *slot = (uint32_t *)(void *)(mem + o_slot);
    edge_group *grp = (edge_group *)(void *)(mem + o_grp);
    memset(start, 0, ((size_t)vertex_count + 1) * sizeof(uint32_t));
    memset(keep, 0, n3);
    memset(stamp, 0, (size_t)vertex_count * sizeof(uint32_t));
    /* >>faces: welded corners and unit normals; degenerate and zero-area triangles drop out. */
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t w0 = weld[indices[t * 3]], w1 = weld[indices[t * 3 + 1]],
                 w2 = weld[indices[t * 3 + 2]];
        wc[t * 3] = UINT32_MAX;
        if (w0 == w1 || w1 == w2 || w0 == w2) {
            continue;
        }
        const float *p0 = pos_at(positions, stride, w0);
        const float *p1 = pos_at(positions, stride, w1);
        const float *p2 = pos_at(positions, stride, w2);
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!isfinite(l) || l <= 0.0f) {
            continue; /* zero-area triangle: it has no normal and draws nothing */
        }
        fn[t * 3] = n[0] / l;
        fn[t * 3 + 1] = n[1] / l;
        fn[t * 3 + 2] = n[2] / l;
        wc[t * 3] = w0;
        wc[t * 3 + 1] = w1;
        wc[t * 3 + 2] = w2;
        start[(w0 < w1 ? w0 : w1) + 1]++;
        start[(w1 < w2 ? w1 : w2) + 1]++;
        start[(w2 < w0 ? w2 : w0) + 1]++;
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        start[v + 1] += start[v];
    }
    /* >>bucket: filled in triangle order, so each bucket is already ordered by half-edge. */
    for (uint32_t t = 0; t < tris; t++) {
        if (wc[t * 3] == UINT32_MAX) {
            continue;
        }
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t a = wc[t * 3 + k], b = wc[t * 3 + (k + 1) % 3];
            uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            he[start[lo]++] = (half_edge){hi, t * 3 + k};
        }
    }
    /* start[v] now ends bucket v; bucket v begins where bucket v-1 ended. */
    uint32_t kept = 0, begin = 0;
    for (uint32_t v = 0; v < vertex_count; v++) {
        uint32_t end = start[v], ng = 0;
        for (uint32_t i = begin; i < end; i++) {
            uint32_t h = he[i].hi;
            if (stamp[h] != v + 1u) {
                stamp[h] = v + 1u;
                slot[h] = ng;
                grp[ng++] = (edge_group){he[i].id, UINT32_MAX, 1};
            } else {
                edge_group *g = &grp[slot[h]];
                g->second = g->count == 1 ? he[i].id : g->second;
                g->count++;
            }
        }
        for (uint32_t k = 0; k < ng; k++) {
            const edge_group *g = &grp[k];
            bool hard = false;
            if (g->count == 2) {
                const float *a = &fn[(g->first / 3) * 3], *b = &fn[(g->second / 3) * 3];
                hard = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] <= cos_limit;
            }
            if (g->count != 2 || hard) {
                keep[g->first] = 1;
                kept++;
            }
        }
        begin = end;
    }
    if (kept) {
        uint32_t *lines = rill__gltf_alloc_raw((size_t)kept * 2, sizeof(uint32_t));
        if (!lines) {
            return RILL_ERR_OUT_OF_MEMORY;
        }
        uint32_t o = 0;
        for (uint32_t id = 0; id < tris * 3; id++) {
            if (keep[id]) {
                uint32_t t = id / 3, k = id % 3;
                uint32_t a = wc[t * 3 + k], b = wc[t * 3 + (k + 1) % 3];
                lines[o++] = a < b ? a : b;
                lines[o++] = a < b ? b : a;
            }
        }
        *out_lines = lines;
        *out_count = kept * 2;
    }
    return RILL_OK;
}

rill_result rill_edges_build(const float *positions, uint32_t vertex_count, size_t stride,
                             const uint32_t *indices, uint32_t index_count,
                             const rill_edges_desc *desc, uint32_t **out_lines, uint32_t *out_count,
                             rill_error *err) {
    if (out_lines) {
        *out_lines = NULL;
    }
    if (out_count) {
        *out_count = 0;
    }
    if (!out_lines || !out_count || (vertex_count && !positions) || (index_count && !indices) ||
        index_count % 3 != 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_edges_build: bad arguments (index_count %u)", index_count);
    }
    for (uint32_t i = 0; i < index_count; i++) {
        if (indices[i] >= vertex_count) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "rill_edges_build: index %u at %u out of range (%u)", indices[i],
                                  i, vertex_count);
        }
    }
    if (index_count == 0) {
        return RILL_OK;
    }
    rill_edges_desc d = resolve(desc);
    uint32_t *weld = rill__gltf_alloc_raw(vertex_count, sizeof(uint32_t));
    rill_result res = RILL_ERR_OUT_OF_MEMORY;
    rill__scratch scratch = {0};
    if (weld && rill__edges_weld(positions, vertex_count, stride, d.weld_tolerance, weld)) {
        res = rill__edges_from_weld(positions, stride, vertex_count, weld, indices, index_count,
                                    d.angle_deg, &scratch, out_lines, out_count);
    }
    rill__scratch_free(&scratch);
    rill_free(weld);
    if (res != RILL_OK) {
        rill_error_set(err, res, "rill_edges_build: out of memory");
    }
    return res;
}

rill_result rill_gltf_model_build_edges(rill_gltf_model *model, const rill_edges_desc *desc,
                                        rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_gltf_model_build_edges", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (!model) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_gltf_model_build_edges: NULL");
    }
    for (uint32_t i = 0; i < model->mesh_count; i++) {
        for (uint32_t p = 0; p < model->meshes[i].primitive_count; p++) {
            rill_gltf_primitive *pr = &model->meshes[i].primitives[p];
            uint32_t *lines;
            uint32_t count;
            rill_result res = rill_edges_build(pr->positions, pr->vertex_count, 0, pr->indices,
                                               pr->index_count, desc, &lines, &count, err);
            if (res != RILL_OK) {
                return res;
            }
            rill_free(pr->edge_indices);
            pr->edge_indices = lines;
            pr->edge_index_count = count;
        }
    }
    return RILL_OK;
}
