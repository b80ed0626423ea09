/* edges.c: edge-buffer extraction (boundary, hard and non-manifold edges) for wireframe drawing.
 *
 * Two passes, both hash based so the cost is linear in the mesh size:
 *   1. weld: vertices are bucketed on a grid whose cell is twice the weld tolerance; a vertex
 *      joins the first earlier representative within tolerance in its own cell or the 7
 *      neighbours on its nearer sides (a point within tolerance cannot be anywhere else);
 *   2. edges: every non-degenerate triangle adds its three welded edges to a map keyed by the
 *      sorted pair; the first face stores its normal, the second decides whether the edge is
 *      hard, a third makes it non-manifold (always kept). */
#include "rill/formats/edges.h"

#include <math.h>
#include <string.h>

#include "gltf_internal.h"

void rill_edges_query_defaults(rill_edges_desc *out) {
    out->weld_tolerance = 1e-5f;
    out->angle_deg = 30.0f;
}

static rill_edges_desc resolve(const rill_edges_desc *desc) {
    rill_edges_desc d;
    rill_edges_query_defaults(&d);
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

static uint64_t cell_key(int64_t x, int64_t y, int64_t z) {
    int64_t c[3] = {x, y, z};
    return rill_hash64(c, sizeof(c));
}

typedef struct edge_rec {
    uint32_t a, b;
    uint32_t faces;
    bool hard;
    float n[3];
} edge_rec;

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
    if (stride == 0) {
        stride = 3 * sizeof(float);
    }
    rill_edges_desc d = resolve(desc);
    float tol = d.weld_tolerance;
    float inv_cell = 0.5f / tol;
    /* Inclusive "at least angle": a tiny slack so an exact 30-degree crease is kept despite
     * rounding in the normals. */
    float cos_limit = cosf(d.angle_deg * 3.14159265f / 180.0f) + 1e-6f;

    rill_result res = RILL_ERR_OUT_OF_MEMORY;
    uint32_t *weld = rill__gltf_alloc(vertex_count, sizeof(uint32_t));
    uint32_t *next = rill__gltf_alloc(vertex_count, sizeof(uint32_t));
    rill_map cells = {0}, emap = {0};
    edge_rec *recs = NULL;
    uint32_t rec_count = 0, rec_cap = 0;
    uint32_t *lines = NULL;
    if (!weld || !next || !rill_map_reserve(&cells, vertex_count)) {
        goto done;
    }

    /* >>weld */
    for (uint32_t v = 0; v < vertex_count; v++) {
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
            uint64_t head;
            if (!rill_map_get(&cells, cell_key(x, y, z), &head)) {
                continue;
            }
            for (uint32_t r = (uint32_t)head; r != 0; r = next[r - 1]) {
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
        uint64_t key = cell_key(c[0], c[1], c[2]), head = 0;
        rill_map_get(&cells, key, &head);
        next[v] = (uint32_t)head;
        if (!rill_map_set(&cells, key, (uint64_t)v + 1u)) {
            goto done;
        }
    }

    /* >>edges */
    if (!rill_map_reserve(&emap, index_count)) {
        goto done;
    }
    for (uint32_t t = 0; t < index_count; t += 3) {
        uint32_t w[3] = {weld[indices[t]], weld[indices[t + 1]], weld[indices[t + 2]]};
        if (w[0] == w[1] || w[1] == w[2] || w[0] == w[2]) {
            continue;
        }
        const float *p0 = pos_at(positions, stride, w[0]);
        const float *p1 = pos_at(positions, stride, w[1]);
        const float *p2 = pos_at(positions, stride, w[2]);
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!isfinite(l) || l <= 0.0f) {
            continue; /* zero-area triangle: it has no normal and draws nothing */
        }
        n[0] /= l;
        n[1] /= l;
        n[2] /= l;
        for (int k = 0; k < 3; k++) {
            uint32_t a = w[k], b = w[(k + 1) % 3];
            if (a > b) {
                uint32_t tmp = a;
                a = b;
                b = tmp;
            }
            uint64_t key = ((uint64_t)a << 32) | b, ri;
            if (!rill_map_get(&emap, key, &ri)) {
                if (rec_count == rec_cap) {
                    uint32_t cap = rec_cap ? rec_cap * 2 : 256;
                    edge_rec *nr =
                        rill_realloc_tagged(recs, (size_t)cap * sizeof(edge_rec), RILL_MEM_FORMATS);
                    if (!nr) {
                        goto done;
                    }
                    recs = nr;
                    rec_cap = cap;
                }
                ri = rec_count++;
                recs[ri] = (edge_rec){a, b, 0, false, {n[0], n[1], n[2]}};
                if (!rill_map_set(&emap, key, ri)) {
                    goto done;
                }
            }
            edge_rec *e = &recs[ri];
            e->faces++;
            if (e->faces == 2) {
                float dot = e->n[0] * n[0] + e->n[1] * n[1] + e->n[2] * n[2];
                e->hard = dot <= cos_limit;
            }
        }
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < rec_count; i++) {
        kept += (recs[i].faces != 2 || recs[i].hard) ? 1u : 0u;
    }
    if (kept) {
        lines = rill__gltf_alloc((size_t)kept * 2, sizeof(uint32_t));
        if (!lines) {
            goto done;
        }
        uint32_t o = 0;
        for (uint32_t i = 0; i < rec_count; i++) {
            if (recs[i].faces != 2 || recs[i].hard) {
                lines[o++] = recs[i].a;
                lines[o++] = recs[i].b;
            }
        }
    }
    *out_lines = lines;
    *out_count = kept * 2;
    lines = NULL;
    res = RILL_OK;
done:
    if (res != RILL_OK) {
        rill_error_set(err, res, "rill_edges_build: out of memory");
    }
    rill_free(lines);
    rill_free(recs);
    rill_map_free(&cells);
    rill_map_free(&emap);
    rill_free(weld);
    rill_free(next);
    return res;
}

rill_result rill_gltf_model_build_edges(rill_gltf_model *model, const rill_edges_desc *desc,
                                        rill_error *err) {
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
