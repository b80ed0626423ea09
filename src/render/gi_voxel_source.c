/* gi_voxel_source.c: the CPU triangles the voxelizer reads for meshes that keep no CPU copy of
 * their own (glTF model primitives are gpu_only: picking reads the glTF data, which the public
 * rill_render_model_create does not keep). A primitive of at most RILL__VOX_SRC_KEEP triangles is
 * kept as it is (its used vertices compacted); a larger one is simplified by vertex clustering on
 * a grid of RILL__VOX_SRC_CELL metres (half the finest voxel, so the clustered surface stays
 * within one finest voxel of the original), the grid doubling until at most RILL__VOX_SRC_MAX
 * triangles are left. Clustering rather than an edge-collapse simplifier: the voxelizer only
 * needs where the surface is, to within a voxel, and clustering is one linear pass with a bound
 * on its error, where an error-driven simplifier's cost and result depend on the mesh. The copy
 * lives in the mesh slot and goes when the mesh is destroyed (the model unloads). Terrain chunks
 * and HLOD proxy parts (gpu_only too) get one the same way from their interleaved vertices; a
 * static batch's merged mesh keeps only its members' places (rill__vox_part), voxelized from the
 * members' own copies. */
#include "gi_voxel.h"

#include <math.h>
#include <string.h>

void rill__vox_source_free(rill__vox_source *s) {
    rill_free(s->positions);
    rill_free(s->indices);
    rill_free(s->parts);
    memset(s, 0, sizeof(*s));
}

/* Keeps the triangles as they are, with only the vertices they use. */
static bool keep_as_is(const float *pos, uint32_t vcount, const uint32_t *idx, uint32_t icount,
                       rill__vox_source *out) {
    uint32_t *remap = rill_malloc_tagged((size_t)vcount * sizeof(uint32_t), RILL_MEM_RENDER);
    out->indices = rill_malloc_tagged((size_t)icount * sizeof(uint32_t), RILL_MEM_RENDER);
    if (!remap || !out->indices) {
        rill_free(remap);
        return false;
    }
    memset(remap, 0xFF, (size_t)vcount * sizeof(uint32_t));
    uint32_t used = 0;
    for (uint32_t i = 0; i < icount; i++) {
        if (remap[idx[i]] == UINT32_MAX) {
            remap[idx[i]] = used++;
        }
        out->indices[i] = remap[idx[i]];
    }
    out->positions = rill_malloc_tagged((size_t)used * 3u * sizeof(float), RILL_MEM_RENDER);
    if (!out->positions) {
        rill_free(remap);
        return false;
    }
    for (uint32_t v = 0; v < vcount; v++) {
        if (remap[v] != UINT32_MAX) {
            memcpy(&out->positions[3u * remap[v]], &pos[3u * v], 3u * sizeof(float));
        }
    }
    rill_free(remap);
    out->vertex_count = used;
    out->tri_count = icount / 3u;
    return true;
}

/* The grid cell of vertex v (21 bits an axis from the box's low corner). */
static uint64_t cell_key(const float p[3], const float lo[3], float cell) {
    uint64_t key = 0;
    for (int k = 0; k < 3; k++) {
        float f = floorf((p[k] - lo[k]) / cell);
        uint64_t q = f > 0.0f ? (uint64_t)fminf(f, 2097151.0f) : 0u;
        key |= q << (21 * k);
    }
    return key;
}

/* One clustering at `cell`: out gets one vertex per occupied cell (the mean of its vertices) and
 * the triangles whose three corners land in three cells. False when out of memory. */
static bool cluster(const float *pos, uint32_t vcount, const uint32_t *idx, uint32_t icount,
                    const float lo[3], float cell, rill__vox_source *out) {
    rill_map cells = {0};
    uint32_t *of = rill_malloc_tagged((size_t)vcount * sizeof(uint32_t), RILL_MEM_RENDER);
    double *sum = rill_calloc_tagged((size_t)vcount * 4u, sizeof(double), RILL_MEM_RENDER);
    uint32_t *tris = rill_malloc_tagged((size_t)icount * sizeof(uint32_t), RILL_MEM_RENDER);
    bool ok = of && sum && tris;
    uint32_t n = 0, kept = 0;
    for (uint32_t v = 0; ok && v < vcount; v++) {
        uint64_t key = cell_key(&pos[3u * v], lo, cell), at;
        if (!rill_map_get(&cells, key, &at)) {
            at = n++;
            ok = rill_map_set(&cells, key, at);
        }
        of[v] = (uint32_t)at;
        for (int k = 0; k < 3; k++) {
            sum[4u * at + (uint32_t)k] += pos[3u * v + (uint32_t)k];
        }
        sum[4u * at + 3u] += 1.0;
    }
    for (uint32_t t = 0; ok && t + 2u < icount; t += 3u) {
        uint32_t a = of[idx[t]], b = of[idx[t + 1u]], c = of[idx[t + 2u]];
        if (a != b && b != c && a != c) {
            tris[kept++] = a;
            tris[kept++] = b;
            tris[kept++] = c;
        }
    }
    rill_map_free(&cells);
    rill_free(of);
    if (ok) {
        out->positions =
            rill_malloc_tagged((size_t)(n ? n : 1u) * 3u * sizeof(float), RILL_MEM_RENDER);
        ok = out->positions != NULL;
    }
    for (uint32_t i = 0; ok && i < n; i++) {
        for (uint32_t k = 0; k < 3u; k++) {
            out->positions[3u * i + k] = (float)(sum[4u * i + k] / sum[4u * i + 3u]);
        }
    }
    rill_free(sum);
    if (!ok) {
        rill_free(tris);
        return false;
    }
    out->indices = tris; /* icount words; kept of them used */
    out->vertex_count = n;
    out->tri_count = kept / 3u;
    return true;
}

bool rill__vox_source_build(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                            uint32_t index_count, float scale, rill__vox_source *out) {
    memset(out, 0, sizeof(*out));
    if (!positions || !indices || vertex_count == 0 || index_count < 3) {
        return true; /* nothing to voxelize: no copy */
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < vertex_count; v++) {
        for (int k = 0; k < 3; k++) {
            float p = positions[3u * v + (uint32_t)k];
            if (!isfinite(p)) {
                return true; /* the voxelizer's bounds would not be finite either */
            }
            lo[k] = fminf(lo[k], p);
            hi[k] = fmaxf(hi[k], p);
        }
    }
    for (uint32_t i = 0; i < index_count; i++) {
        if (indices[i] >= vertex_count) {
            return true; /* the reader rejects these; a hand-made mesh gets no copy */
        }
    }
    index_count -= index_count % 3u;
    if (index_count / 3u <= RILL__VOX_SRC_KEEP) {
        if (!keep_as_is(positions, vertex_count, indices, index_count, out)) {
            rill__vox_source_free(out);
            return false;
        }
        return true;
    }
    float extent = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    float s = scale > 1e-6f && isfinite(scale) ? scale : 1.0f;
    /* The cell in the mesh's own units; at least extent / 2^20 so a cell index fits 21 bits. */
    float cell = fmaxf(RILL__VOX_SRC_CELL / s, extent / 1048576.0f);
    for (;;) {
        rill__vox_source tmp = {0};
        if (!cluster(positions, vertex_count, indices, index_count, lo, cell, &tmp)) {
            rill__vox_source_free(&tmp);
            return false;
        }
        if (tmp.tri_count <= RILL__VOX_SRC_MAX || cell > extent) {
            /* compacted: only the clusters the kept triangles use, no spare index room */
            bool ok = tmp.tri_count == 0 || keep_as_is(tmp.positions, tmp.vertex_count, tmp.indices,
                                                       tmp.tri_count * 3u, out);
            rill__vox_source_free(&tmp);
            if (!ok) {
                rill__vox_source_free(out);
                return false;
            }
            out->cell = cell * s;
            return true;
        }
        rill__vox_source_free(&tmp);
        cell *= 2.0f;
    }
}

bool rill__mesh_keep_vox_source(rill_renderer *r, rill_mesh mesh, const float *positions,
                                uint32_t vertex_count, const uint32_t *indices,
                                uint32_t index_count, float scale) {
    int32_t i = r ? rill_pool_index(&r->mesh_pool, mesh.id) : -1;
    if (i < 0) {
        return true;
    }
    mesh_slot *m = &r->meshes[i];
    rill__vox_source_free(&m->vox);
    if (m->cpu_positions || m->sb || m->morph_targets) {
        return true; /* it has its own copy, or it deforms */
    }
    return rill__vox_source_build(positions, vertex_count, indices, index_count, scale, &m->vox);
}

bool rill__mesh_keep_vox_source_strided(rill_renderer *r, rill_mesh mesh, const void *positions,
                                        size_t stride, uint32_t vertex_count,
                                        const uint32_t *indices, uint32_t index_count,
                                        float scale) {
    if (!positions || !vertex_count) {
        return true;
    }
    float *xyz = rill_malloc_tagged((size_t)vertex_count * 3u * sizeof(float), RILL_MEM_RENDER);
    if (!xyz) {
        return false;
    }
    const uint8_t *p = positions;
    for (uint32_t v = 0; v < vertex_count; v++) {
        memcpy(&xyz[3u * v], p + (size_t)v * stride, 3u * sizeof(float));
    }
    bool ok = rill__mesh_keep_vox_source(r, mesh, xyz, vertex_count, indices, index_count, scale);
    rill_free(xyz);
    return ok;
}

void rill__mesh_take_vox_source(rill_renderer *r, rill_mesh mesh, rill__vox_source *src) {
    int32_t i = r ? rill_pool_index(&r->mesh_pool, mesh.id) : -1;
    mesh_slot *m = i >= 0 ? &r->meshes[i] : NULL;
    if (m && !m->cpu_positions && !m->sb && !m->morph_targets) {
        rill__vox_source_free(&m->vox);
        m->vox = *src;
        memset(src, 0, sizeof(*src));
        return;
    }
    rill__vox_source_free(src); /* it has its own copy, or it deforms */
}

bool rill__mesh_keep_vox_parts(rill_renderer *r, rill_mesh mesh, const rill__vox_part *parts,
                               uint32_t count) {
    int32_t i = r ? rill_pool_index(&r->mesh_pool, mesh.id) : -1;
    if (i < 0 || !count) {
        return true;
    }
    mesh_slot *m = &r->meshes[i];
    rill__vox_source_free(&m->vox);
    m->vox.parts = rill_malloc_tagged((size_t)count * sizeof(*parts), RILL_MEM_RENDER);
    if (!m->vox.parts) {
        return false;
    }
    memcpy(m->vox.parts, parts, (size_t)count * sizeof(*parts));
    m->vox.part_count = count;
    return true;
}
