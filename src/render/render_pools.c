/* render_pools.c: the renderer's meshes, textures and materials behind generational handles:
 * creation (uploads are deferred to the next frame's start), destruction (deferred until the GPU
 * is done) and the lookups the frame uses, which skip stale handles and unfinished uploads. */
#include "render_internal.h"

#include <math.h>
#include <string.h>

#define POOL_SIZE 65536u

rill_result rill__pools_create(rill_renderer *r, rill_error *err) {
    r->meshes = rill_calloc_tagged(POOL_SIZE, sizeof(mesh_slot), RILL_MEM_RENDER);
    r->textures = rill_calloc_tagged(POOL_SIZE, sizeof(tex_slot), RILL_MEM_RENDER);
    r->materials = rill_calloc_tagged(POOL_SIZE, sizeof(mat_slot), RILL_MEM_RENDER);
    if (!r->meshes || !r->textures || !r->materials ||
        rill_pool_init(&r->mesh_pool, POOL_SIZE) != RILL_OK ||
        rill_pool_init(&r->tex_pool, POOL_SIZE) != RILL_OK ||
        rill_pool_init(&r->mat_pool, POOL_SIZE) != RILL_OK) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

/* Lets go of a mesh's index buffer: destroyed unless other meshes still draw with it. A shared
 * index buffer's edge buffer goes with it; a mesh's own edge buffer is not touched here. */
static void release_ib(rill_renderer *r, mesh_slot *m) {
    rill__ib_share *share = m->ib_share;
    if (share && --share->users > 0) {
        m->ib = m->eb = NULL;
        m->ib_share = NULL;
        return;
    }
    if (share) {
        rill__buf_destroy(r->gpu, share->edges);
        m->eb = NULL;
    }
    rill_free(share);
    rill__buf_destroy(r->gpu, m->ib);
    m->ib = NULL;
    m->ib_share = NULL;
}

static void free_cpu_copy(mesh_slot *m) {
    rill_free(m->cpu_positions);
    rill_free(m->cpu_indices);
    m->cpu_positions = NULL;
    m->cpu_indices = NULL;
    m->cpu_vertex_count = 0;
    rill__vox_source_free(&m->vox);
}

void rill__pools_destroy(rill_renderer *r) {
    for (uint32_t i = 0; r->meshes && i < POOL_SIZE; i++) {
        if (!r->meshes[i].block) { /* block meshes share their block's buffers */
            rill__buf_destroy(r->gpu, r->meshes[i].vb);
            release_ib(r, &r->meshes[i]);
        }
        rill__buf_destroy(r->gpu, r->meshes[i].eb);
        rill__buf_destroy(r->gpu, r->meshes[i].sb);
        rill__buf_destroy(r->gpu, r->meshes[i].mb);
        rill__buf_destroy(r->gpu, r->meshes[i].xb);
        free_cpu_copy(&r->meshes[i]);
    }
    for (uint32_t i = 0; i < r->blocks.len; i++) {
        rill__buf_destroy(r->gpu, r->blocks.data[i].vb);
        rill__buf_destroy(r->gpu, r->blocks.data[i].ib);
        rill__range_destroy(&r->blocks.data[i].vr);
        rill__range_destroy(&r->blocks.data[i].ir);
    }
    rill_array_free(&r->blocks);
    rill_array_free(&r->block_frees);
    for (uint32_t i = 0; r->textures && i < POOL_SIZE; i++) {
        rill__img_destroy(r->gpu, r->textures[i].img);
        rill__img_destroy(r->gpu, r->textures[i].pending);
    }
    for (uint32_t i = 0; r->materials && i < POOL_SIZE; i++) {
        rill__buf_destroy(r->gpu, r->materials[i].ubo);
        rill__dset_destroy(r->gpu, r->materials[i].set);
    }
}

void rill__pools_release(rill_renderer *r) {
    rill_pool_destroy(&r->mesh_pool);
    rill_pool_destroy(&r->tex_pool);
    rill_pool_destroy(&r->mat_pool);
    rill_free(r->meshes);
    rill_free(r->textures);
    rill_free(r->materials);
    rill_array_free(&r->tex_replacing);
}

/* >>meshes ---------------------------------------------------------------------------------- */

const mesh_slot *rill__mesh_get(const rill_renderer *r, rill_mesh mesh) {
    int32_t i = rill_pool_index(&r->mesh_pool, mesh.id);
    if (i < 0) {
        return NULL;
    }
    const mesh_slot *m = &r->meshes[i];
    bool edges = (!m->eb || rill__buf_ready(m->eb)) && (!m->xb || rill__buf_ready(m->xb));
    if (m->block) {
        return rill__buf_seq_done(m->vb, m->vseq) && rill__buf_seq_done(m->ib, m->iseq) && edges
                   ? m
                   : NULL;
    }
    return rill__buf_ready(m->vb) && rill__buf_ready(m->ib) && edges ? m : NULL;
}

uint32_t rill_render_mesh_edge_count(const rill_renderer *r, rill_mesh mesh) {
    rill__rthread_guard(r);
    int32_t i = r ? rill_pool_index(&r->mesh_pool, mesh.id) : -1;
    return i < 0 ? 0 : r->meshes[i].edge_index_count;
}

bool rill_render_mesh_info(const rill_renderer *r, rill_mesh mesh, uint32_t *out_index_count,
                           float out_center[3], float *out_radius) {
    rill__rthread_guard(r);
    int32_t i = r ? rill_pool_index(&r->mesh_pool, mesh.id) : -1;
    if (i < 0) {
        return false;
    }
    const mesh_slot *m = &r->meshes[i];
    if (out_index_count) {
        *out_index_count = m->index_count;
    }
    if (out_center) {
        memcpy(out_center, m->center, sizeof m->center);
    }
    if (out_radius) {
        *out_radius = m->radius;
    }
    return true;
}

bool rill_render_mesh_triangles(const rill_renderer *r, rill_mesh mesh, rill_pick_mesh *out) {
    rill__rthread_guard(r);
    int32_t i = r && out ? rill_pool_index(&r->mesh_pool, mesh.id) : -1;
    const mesh_slot *m = i >= 0 ? &r->meshes[i] : NULL;
    if (!m || !m->cpu_positions) {
        return false;
    }
    memset(out, 0, sizeof(*out));
    out->positions = m->cpu_positions;
    out->vertex_count = m->cpu_vertex_count;
    out->indices = m->cpu_indices;
    out->index_count = m->index_count;
    memcpy(out->bounds_min, m->box_min, sizeof(out->bounds_min));
    memcpy(out->bounds_max, m->box_max, sizeof(out->bounds_max));
    return true;
}

/* rill_pick_mesh_fn over MeshInstance entities: the triangles of the mesh the entity draws. */
static bool pick_mesh_instance(const void *renderer, const rill_world *world, rill_entity e,
                               rill_pick_mesh *out) {
    rill_component c = rill_world_find_component(world, "MeshInstance");
    const rill_mesh_instance *mi = c.id ? rill_world_get(world, e, c) : NULL;
    return mi && rill_render_mesh_triangles(renderer, (rill_mesh){mi->mesh}, out);
}

void rill_render_pick_source(const rill_renderer *r, rill_pick_desc *desc) {
    rill__rthread_guard(r);
    if (desc) {
        desc->mesh_source = r ? pick_mesh_instance : NULL;
        desc->mesh_source_user = r;
    }
}

uint64_t rill__texture_bytes(const rill_renderer *r) {
    uint64_t total = 0;
    for (uint32_t s = 0; r->textures && s < POOL_SIZE; s++) {
        const rill__img *img = r->textures[s].img;
        if (!img) {
            continue;
        }
        const rill__img_desc *d = rill__img_get_desc(img);
        uint32_t unit = rill__fmt_unit_bytes(d->format);
        for (uint32_t l = 0; l < d->mips; l++) {
            uint64_t w = RILL_MAX(d->width >> l, 1u), h = RILL_MAX(d->height >> l, 1u);
            total +=
                rill__fmt_is_block(d->format) ? ((w + 3) / 4) * ((h + 3) / 4) * unit : w * h * unit;
        }
    }
    return total;
}

const mat_slot *rill__material_get(const rill_renderer *r, rill_material mat) {
    int32_t i = rill_pool_index(&r->mat_pool, mat.id);
    if (i < 0) {
        return NULL;
    }
    const mat_slot *m = &r->materials[i];
    return rill__buf_ready(m->ubo) ? m : NULL;
}

/* An edge buffer is optional; when given it is a line list over the mesh's vertices. */
static bool edges_valid(const rill_mesh_desc *desc, rill_error *err) {
    const char *label = desc->label ? desc->label : "?";
    if (desc->edge_index_count && (!desc->edge_indices || desc->edge_index_count % 2 != 0)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: mesh '%s': edge buffer of %u indices is not a line list", label,
                       desc->edge_index_count);
        return false;
    }
    for (uint32_t i = 0; i < desc->edge_index_count; i++) {
        if (desc->edge_indices[i] >= desc->vertex_count) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                           "render: mesh '%s': edge index %u out of range", label, i);
            return false;
        }
    }
    return true;
}

/* Creates and fills the edge buffer when the mesh has one. */
static bool upload_edges(rill_renderer *r, mesh_slot *m, const rill_mesh_desc *desc,
                         rill_error *err) {
    if (!desc->edge_index_count) {
        return true;
    }
    uint64_t bytes = (uint64_t)desc->edge_index_count * sizeof(uint32_t);
    m->eb = rill__buf_create(r->gpu, bytes, RILL__BUF_INDEX, false, desc->label, err);
    if (!m->eb || rill__buf_upload(r->gpu, m->eb, 0, desc->edge_indices, bytes, err) != RILL_OK) {
        return false;
    }
    m->edge_index_count = desc->edge_index_count;
    return true;
}

static mesh_slot *shared_source(rill_renderer *r, const rill_mesh_desc *desc, rill_error *err);

/* Creates and fills the skin weights' buffer of a skinned mesh. */
static bool upload_skin(rill_renderer *r, mesh_slot *m, const rill_mesh_desc *desc,
                        rill_error *err) {
    if (!desc->skin) {
        return true;
    }
    uint32_t hi = 0;
    for (uint32_t v = 0; v < desc->vertex_count; v++) {
        for (int k = 0; k < 4; k++) {
            hi = RILL_MAX(hi, (uint32_t)desc->skin[v].joints[k]);
        }
    }
    uint64_t bytes = (uint64_t)desc->vertex_count * sizeof(rill_vertex_skin);
    m->sb = rill__buf_create(r->gpu, bytes, RILL__BUF_STORAGE, false, desc->label, err);
    if (!m->sb || rill__buf_upload(r->gpu, m->sb, 0, desc->skin, bytes, err) != RILL_OK) {
        return false;
    }
    m->skin_joints = hi + 1u;
    return true;
}

/* Creates and fills the displacements' buffer of a mesh with morph targets: every target's
 * positions (zeros where none are given), then their normals when given. */
static bool upload_morph(rill_renderer *r, mesh_slot *m, const rill_mesh_desc *desc,
                         rill_error *err) {
    uint32_t t = desc->morph_target_count;
    if (!t) {
        return true;
    }
    if (t > 256) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: mesh '%s': %u morph targets "
                       "(256 at most)",
                       desc->label ? desc->label : "?", t);
        return false;
    }
    size_t n = (size_t)desc->vertex_count * t * 3u;
    uint64_t block = (uint64_t)n * sizeof(float);
    m->mb = rill__buf_create(r->gpu, block * (desc->morph_normals ? 2u : 1u), RILL__BUF_STORAGE,
                             false, desc->label, err);
    float *zeros =
        desc->morph_positions ? NULL : rill_calloc_tagged(n, sizeof(float), RILL_MEM_RENDER);
    const float *pos = desc->morph_positions ? desc->morph_positions : zeros;
    bool ok = m->mb && pos && rill__buf_upload(r->gpu, m->mb, 0, pos, block, err) == RILL_OK &&
              (!desc->morph_normals ||
               rill__buf_upload(r->gpu, m->mb, block, desc->morph_normals, block, err) == RILL_OK);
    float reach = 0.0f;
    for (size_t i = 0; ok && i < n; i += 3) {
        float d = sqrtf(pos[i] * pos[i] + pos[i + 1] * pos[i + 1] + pos[i + 2] * pos[i + 2]);
        reach = isfinite(d) && d > reach ? d : reach;
    }
    rill_free(zeros);
    m->morph_targets = t;
    m->morph_normals = desc->morph_normals != NULL;
    m->morph_reach = reach;
    return ok;
}

/* Packs and uploads a mesh's per-vertex extras (colours as 16-bit unorm, the second UV set) when
 * it has any. */
static bool upload_extras(rill_renderer *r, mesh_slot *m, const rill_mesh_desc *desc,
                          rill_error *err) {
    if (!desc->colors && !desc->uv1) {
        return true;
    }
    uint64_t bytes = (uint64_t)desc->vertex_count * sizeof(rill__vertex_extra);
    rill__vertex_extra *x = rill_malloc_tagged((size_t)bytes, RILL_MEM_RENDER);
    if (!x) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: mesh '%s': out of memory",
                       desc->label ? desc->label : "?");
        return false;
    }
    for (uint32_t v = 0; v < desc->vertex_count; v++) {
        for (int k = 0; k < 4; k++) {
            float c = desc->colors ? desc->colors[(size_t)v * 4 + k] : 1.0f;
            c = c > 0.0f ? (c < 1.0f ? c : 1.0f) : 0.0f; /* NaN -> 0 */
            x[v].color[k] = (uint16_t)(c * 65535.0f + 0.5f);
        }
        x[v].uv1[0] = desc->uv1 ? desc->uv1[(size_t)v * 2] : 0.0f;
        x[v].uv1[1] = desc->uv1 ? desc->uv1[(size_t)v * 2 + 1] : 0.0f;
    }
    m->xb = rill__buf_create(r->gpu, bytes, RILL__BUF_VERTEX, false, desc->label, err);
    bool ok = m->xb && rill__buf_upload(r->gpu, m->xb, 0, x, bytes, err) == RILL_OK;
    rill_free(x);
    return ok;
}

rill__buf *rill__mesh_extras(const rill_renderer *r, const mesh_slot *m) {
    const mesh_slot *of = m->xb_of.id ? rill__mesh_get(r, m->xb_of) : NULL;
    return m->xb ? m->xb : of ? of->xb : NULL;
}

rill_mesh rill__mesh_create_skin_target(rill_renderer *r, rill_mesh base, rill_error *err) {
    rill_mesh h = {0};
    int32_t bi = rill_pool_index(&r->mesh_pool, base.id);
    if (bi < 0 || !(r->meshes[bi].sb || r->meshes[bi].mb) || r->meshes[bi].block) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: skin target of a stale or rigid "
                       "mesh");
        return h;
    }
    uint32_t nv = (uint32_t)(rill__buf_size(r->meshes[bi].vb) / sizeof(rill_vertex));
    rill_mesh_desc d = {.vertex_count = nv, .share_indices = base, .label = "skinned"};
    mesh_slot *src = shared_source(r, &d, err);
    if (!src) {
        return h;
    }
    uint32_t id = rill_pool_alloc(&r->mesh_pool);
    if (!id) {
        rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "render: mesh pool exhausted");
        return h;
    }
    mesh_slot *m = &r->meshes[rill_pool_index(&r->mesh_pool, id)];
    src = &r->meshes[bi];
    memset(m, 0, sizeof(*m));
    m->vb = rill__buf_create(r->gpu, (uint64_t)nv * sizeof(rill_vertex),
                             RILL__BUF_VERTEX | RILL__BUF_STORAGE, false, "skinned vertices", err);
    if (!m->vb) {
        memset(m, 0, sizeof(*m));
        rill_pool_free(&r->mesh_pool, id);
        return h;
    }
    rill__buf_mark_written(m->vb);
    m->rewritten = true;
    m->ib = src->ib;
    m->eb = src->eb;
    m->edge_index_count = src->edge_index_count;
    m->ib_share = src->ib_share;
    m->ib_share->users++;
    m->index_count = src->index_count;
    m->max_index = src->max_index;
    m->xb_of = src->xb ? base : (rill_mesh){0};
    memcpy(m->center, src->center, sizeof(m->center));
    m->radius = src->radius;
    memcpy(m->box_min, src->box_min, sizeof(m->box_min));
    memcpy(m->box_max, src->box_max, sizeof(m->box_max));
    h.id = id;
    return h;
}

mesh_slot *rill__mesh_slot(rill_renderer *r, rill_mesh mesh) {
    int32_t i = rill_pool_index(&r->mesh_pool, mesh.id);
    return i < 0 ? NULL : &r->meshes[i];
}

/* The mesh whose index buffer desc shares, after checking it fits; NULL (err set) when it does
 * not. */
static mesh_slot *shared_source(rill_renderer *r, const rill_mesh_desc *desc, rill_error *err) {
    const char *label = desc->label ? desc->label : "?";
    int32_t si = rill_pool_index(&r->mesh_pool, desc->share_indices.id);
    mesh_slot *src = si >= 0 ? &r->meshes[si] : NULL;
    if (!src || !src->ib) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: mesh '%s': share_indices is stale",
                       label);
        return NULL;
    }
    if ((desc->index_count && desc->index_count != src->index_count) ||
        src->max_index >= desc->vertex_count) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: mesh '%s': the shared indices (%u, up to %u) do not fit %u "
                       "vertices",
                       label, src->index_count, src->max_index, desc->vertex_count);
        return NULL;
    }
    if (!src->ib_share) {
        src->ib_share = rill_calloc_tagged(1, sizeof *src->ib_share, RILL_MEM_RENDER);
        if (!src->ib_share) {
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
            return NULL;
        }
        src->ib_share->buf = src->ib;
        src->ib_share->edges = src->eb;
        src->ib_share->users = 1;
    }
    return src;
}

/* Checks desc's own indices; the largest in *out_max. */
static bool check_indices(const rill_mesh_desc *desc, uint32_t *out_max, rill_error *err) {
    uint32_t hi = 0;
    for (uint32_t i = 0; i < desc->index_count; i++) {
        if (desc->indices[i] >= desc->vertex_count) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                           "render: mesh '%s': index %u out of range",
                           desc->label ? desc->label : "?", i);
            return false;
        }
        hi = RILL_MAX(hi, desc->indices[i]);
    }
    *out_max = hi;
    return true;
}

/* The local bounds of the vertices: the box, and a sphere (centre of the box, radius to the
 * farthest vertex). */
static void mesh_bounds(mesh_slot *m, const rill_mesh_desc *desc) {
    float *lo = m->box_min, *hi = m->box_max;
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < desc->vertex_count; i++) {
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], desc->vertices[i].position[k]);
            hi[k] = fmaxf(hi[k], desc->vertices[i].position[k]);
        }
    }
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        m->center[k] = 0.5f * (lo[k] + hi[k]);
    }
    for (uint32_t i = 0; i < desc->vertex_count; i++) {
        float d2 = 0.0f;
        for (int k = 0; k < 3; k++) {
            float d = desc->vertices[i].position[k] - m->center[k];
            d2 += d * d;
        }
        r2 = fmaxf(r2, d2);
    }
    m->radius = sqrtf(r2);
}

/* Keeps the positions and triangle indices picking tests (the indices of src, the mesh whose index
 * buffer m shares, when it has a copy; else none is kept). False when out of memory. */
static bool keep_cpu_copy(mesh_slot *m, const rill_mesh_desc *desc, const mesh_slot *src,
                          rill_error *err) {
    const uint32_t *indices = src ? src->cpu_indices : desc->indices;
    if (desc->gpu_only || !indices) {
        return true;
    }
    m->cpu_positions =
        rill_malloc_tagged((size_t)desc->vertex_count * 3u * sizeof(float), RILL_MEM_RENDER);
    m->cpu_indices = rill_malloc_tagged((size_t)m->index_count * sizeof(uint32_t), RILL_MEM_RENDER);
    if (!m->cpu_positions || !m->cpu_indices) {
        free_cpu_copy(m);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: mesh '%s': out of memory",
                       desc->label ? desc->label : "?");
        return false;
    }
    for (uint32_t i = 0; i < desc->vertex_count; i++) {
        memcpy(&m->cpu_positions[i * 3u], desc->vertices[i].position, 3u * sizeof(float));
    }
    memcpy(m->cpu_indices, indices, (size_t)m->index_count * sizeof(uint32_t));
    m->cpu_vertex_count = desc->vertex_count;
    return true;
}

rill_mesh rill_render_mesh_create(rill_renderer *r, const rill_mesh_desc *desc, rill_error *err) {
    rill__rthread_guard(r);
    if (RILL_DESC_CHECK(desc, "rill_render_mesh_create", err) != RILL_OK) {
        return (rill_mesh){0};
    }
    rill_mesh h = {0};
    bool shared = desc && desc->share_indices.id;
    if (!r || !desc || !desc->vertices || desc->vertex_count == 0 ||
        (!shared && (!desc->indices || desc->index_count == 0)) || desc->index_count % 3 != 0) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: mesh '%s': empty or not triangles",
                       desc && desc->label ? desc->label : "?");
        return h;
    }
    uint32_t max_index = 0;
    mesh_slot *src = shared ? shared_source(r, desc, err) : NULL;
    if (shared ? !src : !check_indices(desc, &max_index, err)) {
        return h;
    }
    if (!edges_valid(desc, err)) {
        return h;
    }
    if (shared && desc->edge_index_count) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: mesh '%s': share_indices draws the source's edges; edge_indices "
                       "must be empty",
                       desc->label ? desc->label : "?");
        return h;
    }
    uint32_t id = rill_pool_alloc(&r->mesh_pool);
    if (!id) {
        rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "render: mesh pool exhausted");
        return h;
    }
    mesh_slot *m = &r->meshes[rill_pool_index(&r->mesh_pool, id)];
    memset(m, 0, sizeof(*m));
    uint64_t vbytes = (uint64_t)desc->vertex_count * sizeof(rill_vertex);
    uint64_t ibytes = (uint64_t)desc->index_count * sizeof(uint32_t);
    bool deforms = desc->skin || desc->morph_target_count;
    uint32_t vusage = RILL__BUF_VERTEX | (deforms ? RILL__BUF_STORAGE : 0u);
    m->vb = rill__buf_create(r->gpu, vbytes, vusage, false, desc->label, err);
    if (src) { /* the source's edge buffer comes with its indices */
        m->ib = src->ib;
        m->eb = src->eb;
        m->edge_index_count = src->edge_index_count;
        m->ib_share = src->ib_share;
        m->ib_share->users++;
    } else if (m->vb) {
        m->ib = rill__buf_create(r->gpu, ibytes, RILL__BUF_INDEX, false, desc->label, err);
    }
    m->index_count = src ? src->index_count : desc->index_count;
    m->max_index = src ? src->max_index : max_index;
    if (!m->vb || !m->ib ||
        rill__buf_upload(r->gpu, m->vb, 0, desc->vertices, vbytes, err) != RILL_OK ||
        (!src && rill__buf_upload(r->gpu, m->ib, 0, desc->indices, ibytes, err) != RILL_OK) ||
        (!src && !upload_edges(r, m, desc, err)) || !keep_cpu_copy(m, desc, src, err) ||
        !upload_skin(r, m, desc, err) || !upload_morph(r, m, desc, err) ||
        !upload_extras(r, m, desc, err)) {
        rill__buf_destroy(r->gpu, m->vb);
        rill__buf_destroy(r->gpu, m->sb);
        rill__buf_destroy(r->gpu, m->mb);
        rill__buf_destroy(r->gpu, m->xb);
        release_ib(r, m);
        rill__buf_destroy(r->gpu, m->eb);
        memset(m, 0, sizeof(*m));
        rill_pool_free(&r->mesh_pool, id);
        return h;
    }
    mesh_bounds(m, desc);
    h.id = id;
    return h;
}

void rill_render_mesh_destroy(rill_renderer *r, rill_mesh mesh) {
    rill__rthread_guard(r);
    if (!r) {
        return;
    }
    int32_t i = rill_pool_index(&r->mesh_pool, mesh.id);
    if (i < 0) {
        return;
    }
    r->assets_destroyed++;
    mesh_slot *m = &r->meshes[i];
    if (m->block) {
        /* its edges follow its triangles in the block's index buffer */
        mesh_block_free f = {m->block - 1u,
                             m->first_index,
                             m->index_count + m->edge_index_count,
                             (uint32_t)m->vertex_offset,
                             m->vertex_count,
                             r->frame_counter};
        if (!rill_array_push(&r->block_frees, f)) {
            return; /* out of memory: the ranges (and the handle) stay in use */
        }
    } else {
        rill__buf_destroy(r->gpu, m->vb);
        release_ib(r, m);
    }
    rill__buf_destroy(r->gpu, m->sb);
    rill__buf_destroy(r->gpu, m->mb);
    rill__buf_destroy(r->gpu, m->eb);
    rill__buf_destroy(r->gpu, m->xb);
    free_cpu_copy(m);
    memset(&r->meshes[i], 0, sizeof(mesh_slot));
    rill_pool_free(&r->mesh_pool, mesh.id);
}

/* >>merged meshes: shared blocks ------------------------------------------------------------- */

#define BLOCK_VERTICES (1u << 20) /* 48 MiB of vertices */
#define BLOCK_INDICES (1u << 23)  /* 32 MiB of indices */

/* Returns the ranges of meshes destroyed long enough ago (no frame in flight reads them). */
static void block_collect(rill_renderer *r) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r->block_frees.len; i++) {
        mesh_block_free f = r->block_frees.data[i];
        if (r->frame_counter > f.frame + r->desc.frames_in_flight + 1u) {
            mesh_block *b = &r->blocks.data[f.block];
            rill__range_free(&b->vr, f.vertex_offset, f.vertex_count);
            rill__range_free(&b->ir, f.first_index, f.index_count);
        } else {
            r->block_frees.data[kept++] = f;
        }
    }
    r->block_frees.len = kept;
}

/* Ranges for the mesh in an existing block or a new one; false when none can hold it. */
static bool block_alloc(rill_renderer *r, uint32_t nv, uint32_t ni, uint32_t *out_block,
                        uint64_t *out_v, uint64_t *out_i) {
    if (nv > BLOCK_VERTICES || ni > BLOCK_INDICES) {
        return false;
    }
    for (uint32_t b = 0; b <= r->blocks.len; b++) {
        if (b == r->blocks.len) {
            mesh_block nb;
            memset(&nb, 0, sizeof(nb));
            nb.vb = rill__buf_create(r->gpu, (uint64_t)BLOCK_VERTICES * sizeof(rill_vertex),
                                     RILL__BUF_VERTEX, false, "merged meshes (vertices)", NULL);
            nb.ib = nb.vb
                        ? rill__buf_create(r->gpu, (uint64_t)BLOCK_INDICES * sizeof(uint32_t),
                                           RILL__BUF_INDEX, false, "merged meshes (indices)", NULL)
                        : NULL;
            if (!nb.ib || !rill__range_init(&nb.vr, BLOCK_VERTICES) ||
                !rill__range_init(&nb.ir, BLOCK_INDICES) || !rill_array_push(&r->blocks, nb)) {
                rill__buf_destroy(r->gpu, nb.vb);
                rill__buf_destroy(r->gpu, nb.ib);
                rill__range_destroy(&nb.vr);
                rill__range_destroy(&nb.ir);
                return false;
            }
        }
        mesh_block *blk = &r->blocks.data[b];
        if (!rill__range_alloc_bytes(&blk->vr, nv, 1, out_v)) {
            continue;
        }
        if (!rill__range_alloc_bytes(&blk->ir, ni, 1, out_i)) {
            rill__range_free(&blk->vr, *out_v, nv);
            continue;
        }
        *out_block = b;
        return true;
    }
    return false;
}

rill_mesh rill__mesh_create_merged(rill_renderer *r, const rill_mesh_desc *desc,
                                   const rill__mesh_bounds *bounds, rill_error *err) {
    rill__rthread_guard(r);
    rill_mesh h = {0};
    uint32_t max_index = 0;
    if (!r || !desc || !desc->vertices || desc->vertex_count == 0 || !desc->indices ||
        desc->index_count == 0 || desc->index_count % 3 != 0 || desc->share_indices.id) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: mesh '%s': empty or not triangles",
                       desc && desc->label ? desc->label : "?");
        return h;
    }
    if (!check_indices(desc, &max_index, err) || !edges_valid(desc, err)) {
        return h;
    }
    block_collect(r);
    uint32_t b = 0;
    uint64_t voff = 0, ioff = 0;
    /* The edges follow the triangles in the block's index buffer. */
    uint64_t nidx = (uint64_t)desc->index_count + desc->edge_index_count;
    /* Too big for a block, or with vertex extras (a block binds none): its own buffers. */
    if (nidx > UINT32_MAX || desc->colors || desc->uv1 ||
        !block_alloc(r, desc->vertex_count, (uint32_t)nidx, &b, &voff, &ioff)) {
        return rill_render_mesh_create(r, desc, err);
    }
    mesh_block *blk = &r->blocks.data[b];
    uint32_t id = rill_pool_alloc(&r->mesh_pool);
    mesh_slot *m = id ? &r->meshes[rill_pool_index(&r->mesh_pool, id)] : NULL;
    if (m) {
        memset(m, 0, sizeof(*m));
    }
    bool ok =
        m &&
        rill__buf_upload(r->gpu, blk->vb, voff * sizeof(rill_vertex), desc->vertices,
                         (uint64_t)desc->vertex_count * sizeof(rill_vertex), err) == RILL_OK &&
        rill__buf_upload(r->gpu, blk->ib, ioff * sizeof(uint32_t), desc->indices,
                         (uint64_t)desc->index_count * sizeof(uint32_t), err) == RILL_OK &&
        (!desc->edge_index_count ||
         rill__buf_upload(r->gpu, blk->ib, (ioff + desc->index_count) * sizeof(uint32_t),
                          desc->edge_indices, (uint64_t)desc->edge_index_count * sizeof(uint32_t),
                          err) == RILL_OK);
    if (!ok) { /* an upload already queued lands in space that is free again */
        rill__range_free(&blk->vr, voff, desc->vertex_count);
        rill__range_free(&blk->ir, ioff, (uint32_t)nidx);
        if (m) {
            memset(m, 0, sizeof(*m));
            rill_pool_free(&r->mesh_pool, id);
        } else {
            rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "render: mesh pool exhausted");
        }
        return h;
    }
    m->vseq = rill__buf_upload_seq(blk->vb);
    m->iseq = rill__buf_upload_seq(blk->ib);
    m->vb = blk->vb;
    m->ib = blk->ib;
    m->block = b + 1u;
    m->index_count = desc->index_count;
    m->max_index = max_index;
    m->first_index = (uint32_t)ioff;
    m->edge_index_count = desc->edge_index_count;
    m->first_edge = (uint32_t)ioff + desc->index_count;
    m->vertex_offset = (int32_t)voff;
    m->vertex_count = desc->vertex_count;
    if (bounds) {
        memcpy(m->box_min, bounds->box_min, sizeof(m->box_min));
        memcpy(m->box_max, bounds->box_max, sizeof(m->box_max));
        memcpy(m->center, bounds->center, sizeof(m->center));
        m->radius = bounds->radius;
    } else {
        mesh_bounds(m, desc);
    }
    h.id = id;
    return h;
}

typedef bool (*procmesh_fn)(rill_vertex **, uint32_t *, uint32_t **, uint32_t *);

static rill_mesh proc_mesh(rill_renderer *r, bool ok, rill_vertex *v, uint32_t vn, uint32_t *idx,
                           uint32_t in, const char *label, rill_error *err) {
    rill_mesh h = {0};
    if (!ok) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory building %s", label);
    } else {
        rill_mesh_desc d = {
            .vertices = v, .vertex_count = vn, .indices = idx, .index_count = in, .label = label};
        h = rill_render_mesh_create(r, &d, err);
    }
    rill_free(v);
    rill_free(idx);
    return h;
}

rill_mesh rill_render_mesh_cube(rill_renderer *r, rill_error *err) {
    rill_vertex *v = NULL;
    uint32_t *i = NULL, vn = 0, in = 0;
    bool ok = rill__procmesh_cube(&v, &vn, &i, &in);
    return proc_mesh(r, ok, v, vn, i, in, "cube", err);
}

rill_mesh rill_render_mesh_sphere(rill_renderer *r, uint32_t segments, rill_error *err) {
    rill_vertex *v = NULL;
    uint32_t *i = NULL, vn = 0, in = 0;
    bool ok = rill__procmesh_sphere(segments ? segments : 32, &v, &vn, &i, &in);
    return proc_mesh(r, ok, v, vn, i, in, "sphere", err);
}

rill_mesh rill_render_mesh_plane(rill_renderer *r, rill_error *err) {
    rill_vertex *v = NULL;
    uint32_t *i = NULL, vn = 0, in = 0;
    bool ok = rill__procmesh_plane(&v, &vn, &i, &in);
    return proc_mesh(r, ok, v, vn, i, in, "plane", err);
}

/* >>textures -------------------------------------------------------------------------------- */

rill_texture rill_render_texture_create(rill_renderer *r, const rill_texture_desc *desc,
                                        rill_error *err) {
    rill__rthread_guard(r);
    if (RILL_DESC_CHECK(desc, "rill_render_texture_create", err) != RILL_OK) {
        return (rill_texture){0};
    }
    rill_texture h = {0};
    if (!r || !desc || !desc->pixels || !desc->width || !desc->height || desc->width > 16384 ||
        desc->height > 16384) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: texture '%s': bad size or no pixels",
                       desc && desc->label ? desc->label : "?");
        return h;
    }
    uint32_t id = rill_pool_alloc(&r->tex_pool);
    if (!id) {
        rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "render: texture pool exhausted");
        return h;
    }
    uint32_t mips = 1, m = RILL_MAX(desc->width, desc->height);
    while (m > 1) {
        m >>= 1;
        mips++;
    }
    rill__img_desc d = {
        .width = desc->width,
        .height = desc->height,
        .layers = 1,
        .mips = mips,
        .format = desc->srgb ? RILL_RG_FORMAT_RGBA8_SRGB : RILL_RG_FORMAT_RGBA8_UNORM,
        .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST | RILL__IMG_TRANSFER_SRC,
        .label = desc->label};
    rill__img *img = rill__img_create(r->gpu, &d, err);
    bool ok = img && rill__img_upload(r->gpu, img, desc->pixels,
                                      (uint64_t)desc->width * desc->height * 4, err) == RILL_OK;
    tex_slot info = {.format = RILL_TEX_FORMAT_RGBA8,
                     .srgb = desc->srgb,
                     .full_width = desc->width,
                     .full_height = desc->height};
    float mean[3];
    rill__texture_set_mean(
        &info, rill__texture_mean_rgba8(desc->pixels, desc->width, desc->height, desc->srgb, mean),
        mean);
    return rill__texture_finish(r, id, img, ok, &info);
}

rill_texture rill__texture_finish(rill_renderer *r, uint32_t id, rill__img *img, bool ok,
                                  const tex_slot *info) {
    if (!ok) {
        rill__img_destroy(r->gpu, img);
        rill_pool_free(&r->tex_pool, id);
        return (rill_texture){0};
    }
    tex_slot *t = &r->textures[rill_pool_index(&r->tex_pool, id)];
    *t = *info;
    t->img = img;
    return (rill_texture){id};
}

void rill_render_texture_destroy(rill_renderer *r, rill_texture tex) {
    rill__rthread_guard(r);
    if (!r) {
        return;
    }
    int32_t i = rill_pool_index(&r->tex_pool, tex.id);
    if (i < 0 || rill__target_owned(r, tex)) {
        return; /* a render texture lives as long as the renderer */
    }
    rill__img_destroy(r->gpu, r->textures[i].img);
    rill__img_destroy(r->gpu, r->textures[i].pending);
    memset(&r->textures[i], 0, sizeof(tex_slot));
    rill_pool_free(&r->tex_pool, tex.id);
}

/* >>materials ------------------------------------------------------------------------------- */

/* The sampler of texture slot i: its own when given, else the material-wide wrap and nearest. */
static rill__sampler_desc slot_sampler(const rill_material_desc *d, int i) {
    rill__sampler_desc sd;
    memset(&sd, 0, sizeof(sd));
    const rill_texture_sampler *ts = &d->samplers[i];
    if (ts->set) {
        sd.wrap_u = (uint8_t)((unsigned)ts->wrap_u < RILL_TEXTURE_WRAP_NUM ? ts->wrap_u : 0);
        sd.wrap_v = (uint8_t)((unsigned)ts->wrap_v < RILL_TEXTURE_WRAP_NUM ? ts->wrap_v : 0);
        sd.mag_nearest = ts->mag_filter == RILL_TEXTURE_FILTER_NEAREST;
        sd.min_nearest = ts->min_filter == RILL_TEXTURE_FILTER_NEAREST;
        sd.mip = (uint8_t)(ts->mip_filter == RILL_TEXTURE_MIP_NEAREST ? 1
                           : ts->mip_filter == RILL_TEXTURE_MIP_NONE  ? 2
                                                                      : 0);
    } else {
        uint8_t wrap = (uint8_t)((unsigned)d->wrap < RILL_TEXTURE_WRAP_NUM ? d->wrap : 0);
        sd.wrap_u = sd.wrap_v = wrap;
        sd.mag_nearest = d->nearest;
    }
    return sd;
}

/* Rows of slot i's UV transform into ubo (two vec4 per slot). */
static void slot_transform(const rill_texture_transform *t, float *rows) {
    float c = 1.0f, s = 0.0f, sx = 1.0f, sy = 1.0f, ox = 0.0f, oy = 0.0f;
    if (t->set) {
        c = cosf(t->rotation);
        s = sinf(t->rotation);
        sx = t->scale[0];
        sy = t->scale[1];
        ox = t->offset[0];
        oy = t->offset[1];
    }
    /* KHR_texture_transform: T * R * S with R = [[c, s], [-s, c]]. */
    float m[8] = {c * sx, s * sy, ox, 0.0f, -s * sx, c * sy, oy, 0.0f};
    memcpy(rows, m, sizeof(m));
}

/* Where the material block's extension fields start (floats): after 4 vec4, 2 per texture slot
 * and the 5 of the terrain splat. */
#define MAT_EXT (16 + 8 * RILL_MATERIAL_TEX_NUM + 20)
#define MAT_EXT_VEC4 10

/* KHR_materials_iridescence's vec4: strength (0 = none), the film's ior (0 = 1.3) and its
 * thickness range in nanometres (both 0 = 100 to 400). */
static void iridescence_params(const rill_material_desc *d, float *out) {
    float f = isfinite(d->iridescence) ? RILL_CLAMP(d->iridescence, 0.0f, 1.0f) : 0.0f;
    float ior = d->iridescence_ior;
    float lo = d->iridescence_thickness_min, hi = d->iridescence_thickness_max;
    if (lo == 0.0f && hi == 0.0f) {
        lo = 100.0f, hi = 400.0f;
    }
    out[0] = f;
    out[1] = ior >= 1.0f && isfinite(ior) ? RILL_MIN(ior, 1e3f) : 1.3f;
    out[2] = isfinite(lo) ? RILL_CLAMP(lo, 0.0f, 1e6f) : 100.0f;
    out[3] = isfinite(hi) ? RILL_CLAMP(hi, 0.0f, 1e6f) : 400.0f;
}

/* The material block's extension vec4s (MAT_EXT_VEC4 of them): the dielectric reflectance at
 * normal incidence (rgb) and grazing angles (w); unlit, clear coat strength and roughness, and
 * whether the reflectance is other than the default (ior 1.5, no specular: exactly 0.04 and 1;
 * the shader otherwise takes the constants, bit for bit as before); the clear coat normal map's
 * scale, whether there is one and whether it is BC5 (Z rebuilt), whether the specular textures
 * apply; the reflectance at normal incidence before the clamp to 1 and the strength (the
 * textured path multiplies them by the textures first); transmission, volume thickness,
 * attenuation distance (0 = none) and whether there is a volume; the attenuation colour and
 * the ior; the sheen colour and roughness; the iridescence strength, film ior and thickness range
 * (iridescence_params); the anisotropy strength, the cosine and sine of its rotation and whether
 * it has a texture; the dispersion. */
static void material_extensions(const rill_material_desc *d, bool coat_bc5, float *out) {
    float ior = d->ior > 0.0f && isfinite(d->ior) ? d->ior : 1.5f;
    float r = (ior - 1.0f) / (ior + 1.0f);
    float f0 = ior == 1.5f ? 0.04f : r * r;
    float spec = d->specular_set ? RILL_CLAMP(d->specular, 0.0f, 1.0f) : 1.0f;
    bool spec_tex = d->specular_set && (d->specular_texture.id || d->specular_color_texture.id);
    for (int k = 0; k < 3; k++) {
        float c = d->specular_set ? RILL_CLAMP(d->specular_color[k], 0.0f, 1e6f) : 1.0f;
        out[k] = RILL_MIN(f0 * c, 1.0f) * spec;
        out[12 + k] = f0 * c;
    }
    out[3] = spec;
    out[4] = d->unlit ? 1.0f : 0.0f;
    out[5] = RILL_CLAMP(d->clearcoat, 0.0f, 1.0f);
    out[6] = RILL_CLAMP(d->clearcoat_roughness, 0.0f, 1.0f);
    out[7] = out[0] != 0.04f || out[1] != 0.04f || out[2] != 0.04f || out[3] != 1.0f || spec_tex
                 ? 1.0f
                 : 0.0f;
    float ns = d->clearcoat_normal_scale;
    out[8] = ns != 0.0f && isfinite(ns) ? RILL_CLAMP(ns, -1e3f, 1e3f) : 1.0f;
    out[9] = d->clearcoat_normal_texture.id ? 1.0f : 0.0f;
    out[10] = coat_bc5 ? 1.0f : 0.0f;
    out[11] = spec_tex ? 1.0f : 0.0f;
    out[15] = spec;
    bool volume = d->volume_set && d->thickness > 0.0f && isfinite(d->thickness);
    float ad = d->attenuation_distance;
    out[16] = isfinite(d->transmission) ? RILL_CLAMP(d->transmission, 0.0f, 1.0f) : 0.0f;
    out[17] = volume ? RILL_MIN(d->thickness, 1e6f) : 0.0f;
    out[18] = volume && ad > 0.0f && isfinite(ad) ? ad : 0.0f;
    out[19] = volume ? 1.0f : 0.0f;
    for (int k = 0; k < 3; k++) {
        float c = d->attenuation_color[k];
        out[20 + k] = volume && isfinite(c) ? RILL_CLAMP(c, 0.0f, 1.0f) : 1.0f;
    }
    out[23] = ior;
    for (int k = 0; k < 3; k++) {
        float c = d->sheen_color[k];
        out[24 + k] = isfinite(c) ? RILL_CLAMP(c, 0.0f, 1.0f) : 0.0f;
    }
    out[27] = isfinite(d->sheen_roughness) ? RILL_CLAMP(d->sheen_roughness, 0.0f, 1.0f) : 0.0f;
    iridescence_params(d, &out[28]);
    float aniso = isfinite(d->anisotropy) ? RILL_CLAMP(d->anisotropy, 0.0f, 1.0f) : 0.0f;
    float rot = isfinite(d->anisotropy_rotation) ? fmodf(d->anisotropy_rotation, 6.2831853f) : 0.0f;
    out[32] = aniso;
    out[33] = cosf(rot);
    out[34] = sinf(rot);
    out[35] = aniso > 0.0f && d->anisotropy_texture.id ? 1.0f : 0.0f;
    out[36] = isfinite(d->dispersion) ? RILL_CLAMP(d->dispersion, 0.0f, 1e3f) : 0.0f;
}

/* True when tex is a BC5 image (export's format for normal maps: X and Y only). */
static bool texture_is_bc5(const rill_renderer *r, rill_texture tex) {
    int32_t i = rill_pool_index(&r->tex_pool, tex.id);
    return i >= 0 && r->textures[i].format == RILL_TEX_FORMAT_BC5;
}

rill__img *rill__texture_img(const rill_renderer *r, rill_texture tex) {
    int32_t i = rill_pool_index(&r->tex_pool, tex.id);
    return i >= 0 ? r->textures[i].img : NULL;
}

static rill__img *tex_or(rill_renderer *r, rill_texture t, rill__img *fallback) {
    int32_t i = rill_pool_index(&r->tex_pool, t.id);
    return i >= 0 && r->textures[i].img ? r->textures[i].img : fallback;
}

/* The material's descriptor set from its current textures (placeholders for none). */
static rill__dset *material_set(rill_renderer *r, const mat_slot *m, rill_error *err) {
    rill__binding b[1 + RILL_MATERIAL_TEX_NUM];
    memset(b, 0, sizeof(b));
    b[0].buf = m->ubo;
    for (int i = 0; i < RILL_MATERIAL_TEX_NUM; i++) {
        bool normal = i == RILL_MATERIAL_TEX_NORMAL || i == RILL_MATERIAL_TEX_CLEARCOAT_NORMAL;
        rill__img *fallback = normal ? r->flat_normal : r->white;
        b[i + 1].img = tex_or(r, m->tex[i], fallback);
        b[i + 1].layer = -1;
        b[i + 1].sampler = m->samplers[i];
    }
    return rill__dset_create(r->gpu, r->pipes[RILL__PIPE_OPAQUE], 1, b, 1 + RILL_MATERIAL_TEX_NUM,
                             err);
}

/* Texture id -> switch to its uploaded replacement; true when it switched. */
static bool commit_texture(rill_renderer *r, uint32_t id) {
    int32_t i = rill_pool_index(&r->tex_pool, id);
    if (i < 0 || !r->textures[i].pending || !rill__img_ready(r->textures[i].pending)) {
        return false;
    }
    rill__img_destroy(r->gpu, r->textures[i].img); /* deferred past the frames using it */
    r->textures[i].img = r->textures[i].pending;
    r->textures[i].pending = NULL;
    return true;
}

/* True when tex waits for its own upload or for another texture of its batch. */
static bool replacement_waits(rill_renderer *r, int32_t ti, const uint32_t *blocked,
                              uint32_t nblocked) {
    const tex_slot *t = &r->textures[ti];
    if (t->pending && !rill__img_ready(t->pending)) {
        return true;
    }
    for (uint32_t b = 0; t->pending && t->batch && b < nblocked; b++) {
        if (blocked[b] == t->batch) {
            return true;
        }
    }
    return false;
}

void rill__pools_commit_replacements(rill_renderer *r) {
    if (!r->tex_replacing.len) {
        return;
    }
    /* Batches (rill_render_texture_replace_many) with a member still uploading wait whole, so a
     * material never draws one slot switched and another not. */
    RILL_ARRAY(uint32_t) blocked = {0};
    for (uint32_t k = 0; k < r->tex_replacing.len; k++) {
        int32_t ti = rill_pool_index(&r->tex_pool, r->tex_replacing.data[k]);
        const tex_slot *t = ti >= 0 ? &r->textures[ti] : NULL;
        if (t && t->pending && t->batch && !rill__img_ready(t->pending) &&
            !rill_array_push(&blocked, t->batch)) {
            rill_array_free(&blocked);
            return; /* out of memory: nothing switches this frame */
        }
    }
    RILL_ARRAY(uint32_t) done = {0};
    for (uint32_t k = 0; k < r->tex_replacing.len;) {
        uint32_t id = r->tex_replacing.data[k];
        int32_t ti = rill_pool_index(&r->tex_pool, id);
        if (ti >= 0 && replacement_waits(r, ti, blocked.data, blocked.len)) {
            k++; /* still waiting for upload budget */
            continue;
        }
        if (commit_texture(r, id) && !rill_array_push(&done, id)) {
            k++; /* out of memory: the sets are rebuilt at a later frame */
            continue;
        }
        rill_array_swap_remove(&r->tex_replacing, k);
    }
    rill_array_free(&blocked);
    /* Every live material naming a switched texture gets a new set (the old one is freed once the
     * frames in flight are done). Replacements are rare; one pass over the pool per frame that has
     * any. */
    for (uint32_t mi = 0; done.len && mi < POOL_SIZE; mi++) {
        mat_slot *m = &r->materials[mi];
        if (!m->set) {
            continue;
        }
        bool uses = false;
        for (int s = 0; s < RILL_MATERIAL_TEX_NUM && !uses; s++) {
            for (uint32_t k = 0; k < done.len && !uses; k++) {
                uses = m->tex[s].id == done.data[k];
            }
        }
        if (!uses) {
            continue;
        }
        rill_error err = {0};
        rill__dset *set = material_set(r, m, &err);
        if (set) {
            rill__dset_destroy(r->gpu, m->set);
            m->set = set;
        } else {
            RILL_LOG_WARN("render", "texture replace: material keeps its old set: %s", err.msg);
        }
    }
    rill_array_free(&done);
}

rill_material rill_render_material_create(rill_renderer *r, const rill_material_desc *desc,
                                          rill_error *err) {
    rill__rthread_guard(r);
    if (RILL_DESC_CHECK(desc, "rill_render_material_create", err) != RILL_OK) {
        return (rill_material){0};
    }
    rill_material h = {0};
    if (!r) {
        return h;
    }
    rill_material_desc d;
    memset(&d, 0, sizeof(d));
    if (desc) {
        d = *desc;
    }
    if (d.base_color[0] == 0 && d.base_color[1] == 0 && d.base_color[2] == 0 &&
        d.base_color[3] == 0) {
        d.base_color[0] = d.base_color[1] = d.base_color[2] = d.base_color[3] = 1.0f;
    }
    if (d.roughness == 0.0f && !d.roughness_set) {
        d.roughness = 1.0f;
    }
    if (d.normal_scale == 0.0f) {
        d.normal_scale = 1.0f;
    }
    if (d.occlusion_strength == 0.0f) {
        d.occlusion_strength = 1.0f;
    }
    if (d.alpha_cutoff == 0.0f) {
        d.alpha_cutoff = 0.5f;
    }
    if ((unsigned)d.alpha_mode >= RILL_ALPHA_NUM) {
        d.alpha_mode = RILL_ALPHA_OPAQUE;
    }
    uint32_t id = rill_pool_alloc(&r->mat_pool);
    if (!id) {
        rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "render: material pool exhausted");
        return h;
    }
    mat_slot *m = &r->materials[rill_pool_index(&r->mat_pool, id)];
    memset(m, 0, sizeof(*m));
    /* Must match `Material` in shaders/common.glsl (std140): 4 vec4, the UV transforms of the
     * texture slots, the terrain splat fields (zero for PBR materials), then the dielectric
     * reflectance and the unlit, clear coat and specular texture parameters (MAT_EXT). */
    float ubo[MAT_EXT + 4 * MAT_EXT_VEC4] = {
        d.base_color[0],
        d.base_color[1],
        d.base_color[2],
        d.base_color[3],
        d.emissive[0],
        d.emissive[1],
        d.emissive[2],
        0.0f,
        RILL_CLAMP(d.metallic, 0.0f, 1.0f),
        RILL_CLAMP(d.roughness, 0.0f, 1.0f),
        RILL_CLAMP(d.occlusion_strength, 0.0f, 1.0f),
        d.alpha_cutoff,
        d.normal_scale,
        (float)d.alpha_mode,
        0.0f,
        0.0f,
    };
    for (int t = 0; t < RILL_MATERIAL_TEX_NUM; t++) {
        slot_transform(&d.transforms[t], &ubo[16 + 8 * t]);
        ubo[16 + 8 * t + 3] = d.uv_sets[t] == 1 ? 1.0f : 0.0f;
    }
    bool terrain = d.kind == RILL_MATERIAL_TERRAIN;
    if (terrain) {
        d.specular_texture.id = d.specular_color_texture.id = 0;
        d.clearcoat_texture.id = d.clearcoat_roughness_texture.id = 0;
        d.clearcoat_normal_texture.id = 0;
        d.transmission = 0.0f;
        d.transmission_texture.id = d.thickness_texture.id = 0;
        memset(d.sheen_color, 0, sizeof d.sheen_color);
        d.sheen_color_texture.id = d.sheen_roughness_texture.id = 0;
        d.iridescence = d.anisotropy = d.dispersion = 0.0f;
        d.iridescence_texture.id = d.iridescence_thickness_texture.id = 0;
        d.anisotropy_texture.id = 0;
    }
    material_extensions(&d, texture_is_bc5(r, d.clearcoat_normal_texture), &ubo[MAT_EXT]);
    if (terrain) {
        float *splat = &ubo[16 + 8 * RILL_MATERIAL_TEX_NUM];
        uint32_t layers = d.layer_count == 0 ? 1u : RILL_MIN(d.layer_count, 4u);
        ubo[13] = (float)RILL_ALPHA_OPAQUE;
        ubo[14] = 1.0f;
        ubo[15] = (float)layers;
        for (uint32_t i = 0; i < 4; i++) {
            splat[i] = d.layer_tile[i] > 0.0f ? d.layer_tile[i] : 8.0f;
            memcpy(&splat[4 + i * 4], d.layer_color[i], sizeof(float) * 4);
        }
        d.alpha_mode = RILL_ALPHA_OPAQUE;
        /* The weights cover the terrain once and the atlases are sampled inside their quadrants:
         * clamp, linear, no per-slot samplers or transforms. */
        d.wrap = RILL_TEXTURE_WRAP_CLAMP;
        d.nearest = false;
        memset(d.samplers, 0, sizeof d.samplers);
        /* No weight map: the white image, every drawn layer weighed the same. */
        d.base_color_texture = d.splat_weights;
        d.normal_texture = d.layer_normal_atlas;
        d.metallic_roughness_texture = d.layer_albedo_atlas;
        d.occlusion_texture.id = d.emissive_texture.id = 0;
    }
    /* A BC5 normal map (export's format for normal maps, docs/textures.md) holds X and Y alone:
     * blue samples 0 (also when the device lacks BC and it is decoded to RGBA8), which read as
     * the normal's Z turns every normal into the surface. The shader rebuilds Z for these. A
     * texture keeps its format for life (rill_render_texture_replace takes the same one only). */
    ubo[7] = !terrain && texture_is_bc5(r, d.normal_texture) ? 1.0f : 0.0f;
    /* A transmissive surface shows the opaque image behind it: it draws after the opaque pass,
     * with the blended ones (its UBO keeps its own alpha mode). */
    m->transmissive = ubo[MAT_EXT + 16] > 0.0f;
    m->alpha_mode = m->transmissive ? RILL_ALPHA_BLEND : d.alpha_mode;
    m->double_sided = d.double_sided;
    for (int k = 0; k < 3; k++) {
        m->gi_albedo[k] = terrain ? d.layer_color[0][k] : d.base_color[k];
        m->gi_emissive[k] = terrain ? 0.0f : d.emissive[k];
    }
    m->gi_texture = terrain ? (rill_texture){0} : d.base_color_texture;
    m->ubo = rill__buf_create(r->gpu, sizeof(ubo), RILL__BUF_UNIFORM, false,
                              d.label ? d.label : "material", err);
    if (!m->ubo || rill__buf_upload(r->gpu, m->ubo, 0, ubo, sizeof(ubo), err) != RILL_OK) {
        goto fail;
    }
    rill_texture texs[RILL_MATERIAL_TEX_NUM] = {d.base_color_texture,
                                                d.normal_texture,
                                                d.metallic_roughness_texture,
                                                d.occlusion_texture,
                                                d.emissive_texture,
                                                d.specular_texture,
                                                d.specular_color_texture,
                                                d.clearcoat_texture,
                                                d.clearcoat_roughness_texture,
                                                d.clearcoat_normal_texture,
                                                d.transmission_texture,
                                                d.thickness_texture,
                                                d.sheen_color_texture,
                                                d.sheen_roughness_texture,
                                                d.iridescence_texture,
                                                d.iridescence_thickness_texture,
                                                d.anisotropy_texture};
    for (int i = 0; i < RILL_MATERIAL_TEX_NUM; i++) {
        m->tex[i] = texs[i];
        rill__sampler_desc sd = slot_sampler(&d, i);
        m->samplers[i] = rill__sampler_material(r->gpu, &sd, err);
    }
    m->set = material_set(r, m, err);
    if (!m->set) {
        goto fail;
    }
    h.id = id;
    return h;
fail:
    rill__buf_destroy(r->gpu, m->ubo);
    memset(m, 0, sizeof(*m));
    rill_pool_free(&r->mat_pool, id);
    return h;
}

void rill_render_material_destroy(rill_renderer *r, rill_material mat) {
    rill__rthread_guard(r);
    if (!r) {
        return;
    }
    int32_t i = rill_pool_index(&r->mat_pool, mat.id);
    if (i < 0) {
        return;
    }
    r->assets_destroyed++;
    rill__buf_destroy(r->gpu, r->materials[i].ubo);
    rill__dset_destroy(r->gpu, r->materials[i].set);
    memset(&r->materials[i], 0, sizeof(mat_slot));
    rill_pool_free(&r->mat_pool, mat.id);
}
