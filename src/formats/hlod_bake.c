/* hlod_bake.c: bakes far-world proxies (rill/formats/hlod.h) with meshoptimizer.
 *
 * Level 0 (one district scene): each model the scene places is read once, flattened (every node's
 * primitives in model space, each vertex coloured with its material's base colour: the factor
 * times the mean of the base colour texture, times the vertex colour), and simplified on its own
 * to at most budget / 8 triangles, so a district of a thousand props does not merge a million
 * triangles. Its placements are then merged in scene space and the whole simplified to the budget.
 * Level 1 (cells of neighbouring instances): the members' level-0 proxies placed where they stand,
 * merged per cell and simplified to the budget again.
 *
 * Simplification is meshopt_simplify with no error bound (the budget decides), and
 * meshopt_simplifySloppy from the same input when the standard one stops above 1.25 x the target
 * (flat-shaded boxes, whose split vertices make every edge a seam, stop it early); a merge of more
 * than 16 x the target goes to 4 x with the sloppy one first (geo_simplify). Colours are
 * per vertex and never interpolated: a simplified mesh's vertices are a subset of its input's.
 */
#include "hlod_internal.h"
#include "lib_hooks.h"

#include "rill/formats/gltf.h"
#include "rill/formats/image.h"

#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

/* >>geometry ---------------------------------------------------------------------------------- */

typedef struct geo {
    RILL_ARRAY(float) pos;    /* xyz */
    RILL_ARRAY(float) nrm;    /* xyz */
    RILL_ARRAY(uint32_t) col; /* RGBA8 sRGB per vertex */
    RILL_ARRAY(uint32_t) idx;
} geo;

static void geo_free(geo *g) {
    rill_array_free(&g->pos);
    rill_array_free(&g->nrm);
    rill_array_free(&g->col);
    rill_array_free(&g->idx);
}

static void xform_point(const float m[16], const float p[3], float out[3]) {
    for (int r = 0; r < 3; r++) {
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

static void xform_normal(const float m[16], const float n[3], float out[3]) {
    for (int r = 0; r < 3; r++) {
        out[r] = m[r] * n[0] + m[4 + r] * n[1] + m[8 + r] * n[2];
    }
    float l = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (l > 1e-12f) {
        for (int r = 0; r < 3; r++) {
            out[r] /= l;
        }
    }
}

/* Appends src placed by m to dst. False when out of memory or over the vertex limit. */
static bool geo_append(geo *dst, const geo *src, const float m[16]) {
    uint32_t base = dst->col.len, nv = src->col.len;
    if ((uint64_t)base + nv > UINT32_MAX / 4u ||
        (uint64_t)dst->idx.len + src->idx.len > UINT32_MAX / 4u) {
        return false;
    }
    float *p = rill_array_push_n(&dst->pos, nv * 3u);
    float *n = rill_array_push_n(&dst->nrm, nv * 3u);
    uint32_t *c = rill_array_push_n(&dst->col, nv);
    uint32_t *ix = rill_array_push_n(&dst->idx, src->idx.len);
    if ((nv && (!p || !n || !c)) || (src->idx.len && !ix)) {
        return false;
    }
    for (uint32_t v = 0; v < nv; v++) {
        xform_point(m, &src->pos.data[v * 3u], &p[v * 3u]);
        xform_normal(m, &src->nrm.data[v * 3u], &n[v * 3u]);
        c[v] = src->col.data[v];
    }
    for (uint32_t i = 0; i < src->idx.len; i++) {
        ix[i] = src->idx.data[i] + base;
    }
    return true;
}

/* Keeps only the vertices idx[0, count) uses, in first-use order, with idx rewritten. */
static bool geo_compact(geo *g, uint32_t *idx, uint32_t count) {
    geo out = {0};
    uint32_t nv = g->col.len;
    uint32_t *remap = rill_malloc_tagged((size_t)nv * 4u + 4u, RILL_MEM_FORMATS);
    uint32_t *ix = rill_array_push_n(&out.idx, count);
    if (!remap || (count && !ix)) {
        rill_free(remap);
        geo_free(&out);
        return false;
    }
    memset(remap, 0xFF, (size_t)nv * 4u);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = idx[i];
        if (remap[v] == UINT32_MAX) {
            remap[v] = out.col.len;
            if (!rill_array_push(&out.col, g->col.data[v]) || !rill_array_push_n(&out.pos, 3u) ||
                !rill_array_push_n(&out.nrm, 3u)) {
                rill_free(remap);
                geo_free(&out);
                return false;
            }
            memcpy(&out.pos.data[remap[v] * 3u], &g->pos.data[v * 3u], 12);
            memcpy(&out.nrm.data[remap[v] * 3u], &g->nrm.data[v * 3u], 12);
        }
        ix[i] = remap[v];
    }
    rill_free(remap);
    geo_free(g);
    *g = out;
    return true;
}

/* Simplifies g in place to at most about `triangles` triangles (see the file comment). A mesh
 * over 16 x the target (a district's thousand props merged) first goes to 4 x the target with
 * the sloppy simplifier, which clusters vertices in one linear pass: the standard one's cost grows
 * with its input and made a region world's export 20 x slower with proxies than without. */
static bool geo_simplify(geo *g, uint32_t triangles) {
    uint32_t count = g->idx.len, target = triangles * 3u;
    if (count <= target || !g->col.len) {
        return true;
    }
    rill__formats_lib_hooks();
    if (count / 16u > target) {
        uint32_t *pre = rill_malloc_tagged((size_t)count * 4u, RILL_MEM_FORMATS);
        if (!pre) {
            return false;
        }
        size_t got = meshopt_simplifySloppy(pre, g->idx.data, count, g->pos.data, g->col.len, 12,
                                            (size_t)target * 4u, 1.0f, NULL);
        bool ok = geo_compact(g, pre, (uint32_t)got);
        rill_free(pre);
        if (!ok) {
            return false;
        }
        count = g->idx.len;
        if (count <= target) {
            return true;
        }
    }
    uint32_t *dst = rill_malloc_tagged((size_t)count * 4u, RILL_MEM_FORMATS);
    if (!dst) {
        return false;
    }
    size_t got = meshopt_simplify(dst, g->idx.data, count, g->pos.data, g->col.len, 12, target,
                                  1.0f, 0, NULL);
    if (got > (size_t)target + target / 4u) {
        got = meshopt_simplifySloppy(dst, g->idx.data, count, g->pos.data, g->col.len, 12, target,
                                     1.0f, NULL);
    }
    bool ok = geo_compact(g, dst, (uint32_t)got);
    rill_free(dst);
    return ok;
}

/* >>colour ------------------------------------------------------------------------------------ */

static float srgb_lin(uint8_t c) {
    return rill_srgb_to_linear((float)c / 255.0f);
}

static uint8_t lin_srgb8(float v) {
    float s = rill_linear_to_srgb(v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v);
    return (uint8_t)(s * 255.0f + 0.5f);
}

/* The mean colour (linear RGB + alpha) of an encoded image; false when it does not decode. */
static bool image_mean(const uint8_t *data, size_t size, const char *name, float out[4]) {
    rill_image img = {0};
    if (rill_image_load(data, size, name, RILL_PIXEL_RGBA8, &img, NULL) != RILL_OK) {
        return false;
    }
    const uint8_t *px = img.pixels;
    uint64_t n = (uint64_t)img.width * img.height;
    uint64_t step = n > 65536u ? n / 65536u : 1u; /* a sample of at most 64k texels is enough */
    double sum[4] = {0}, cnt = 0;
    for (uint64_t i = 0; i < n; i += step, cnt++) {
        for (int k = 0; k < 3; k++) {
            sum[k] += srgb_lin(px[i * 4u + (uint64_t)k]);
        }
        sum[3] += px[i * 4u + 3u] / 255.0;
    }
    for (int k = 0; k < 4; k++) {
        out[k] = cnt > 0 ? (float)(sum[k] / cnt) : 1.0f;
    }
    rill_image_free(&img);
    return true;
}

typedef struct rill__hlod_cache rill__hlod_cache;
static bool cached_mean(rill__hlod_cache *c, const char *path, float out[4], bool *out_ok);
static void keep_mean(rill__hlod_cache *c, const char *path, const float mean[4], bool ok);

/* The base colour of material `mi` of model m (linear RGBA): factor x texture mean. Means of
 * external images are kept in the cache (models of one style share their facade images). */
static void material_colour(rill__hlod_cache *cache, const char *project_dir,
                            const char *model_path, const rill_gltf_model *m, int32_t mi,
                            float out[4]) {
    out[0] = out[1] = out[2] = out[3] = 1.0f;
    if (mi < 0 || (uint32_t)mi >= m->material_count) {
        return;
    }
    const rill_gltf_material *mat = &m->materials[mi];
    memcpy(out, mat->base_color_factor, sizeof(float) * 4);
    int32_t ti = mat->base_color_texture.texture;
    if (ti < 0 || (uint32_t)ti >= m->texture_count) {
        return;
    }
    int32_t ii = m->textures[ti].image;
    if (ii < 0 || (uint32_t)ii >= m->image_count) {
        return;
    }
    const rill_gltf_image *img = &m->images[ii];
    float mean[4];
    bool ok = false;
    if (img->data) {
        ok = image_mean(img->data, img->size, model_path, mean);
    } else if (img->uri) {
        char dir[1024], joined[2048], rel[2048], os[4096];
        uint8_t *bytes = NULL;
        size_t size = 0;
        /* The URI is relative to the model's folder; the read stays inside the project. */
        if (rill_path_dirname(dir, sizeof dir, model_path) &&
            rill_path_join(joined, sizeof joined, dir, img->uri) &&
            rill_path_normalize(rel, sizeof rel, joined) && !cached_mean(cache, rel, mean, &ok)) {
            if (rill_path_join(os, sizeof os, project_dir, rel) &&
                rill_file_read_all_in(project_dir, os, 0, &bytes, &size, NULL) == RILL_OK) {
                ok = image_mean(bytes, size, rel, mean);
            }
            keep_mean(cache, rel, mean, ok);
        }
        rill_free(bytes);
    }
    if (ok) {
        for (int k = 0; k < 4; k++) {
            out[k] *= mean[k];
        }
    }
}

static uint32_t pack_rgba(const float c[4]) {
    uint32_t a = (uint32_t)((c[3] < 0 ? 0 : c[3] > 1 ? 1 : c[3]) * 255.0f + 0.5f);
    return (uint32_t)lin_srgb8(c[0]) | ((uint32_t)lin_srgb8(c[1]) << 8) |
           ((uint32_t)lin_srgb8(c[2]) << 16) | (a << 24);
}

/* >>models ------------------------------------------------------------------------------------ */

/* A node's matrix in model space (its local matrix composed with its parents'). */
static void node_matrix(const rill_gltf_model *m, uint32_t ni, float out[16]) {
    memcpy(out, m->nodes[ni].matrix, sizeof(float) * 16);
    int32_t p = m->nodes[ni].parent;
    for (int step = 0; p >= 0 && (uint32_t)p < m->node_count && step < 256; step++) {
        float r[16];
        const float *a = m->nodes[p].matrix;
        for (int c = 0; c < 4; c++) {
            for (int k = 0; k < 4; k++) {
                r[c * 4 + k] = a[k] * out[c * 4] + a[4 + k] * out[c * 4 + 1] +
                               a[8 + k] * out[c * 4 + 2] + a[12 + k] * out[c * 4 + 3];
            }
        }
        memcpy(out, r, sizeof r);
        p = m->nodes[p].parent;
    }
}

/* Reads model_path (project-relative) into g: every node's primitives in model space. */
static rill_result load_model(rill__hlod_cache *cache, const char *project_dir,
                              const char *model_path, geo *g, rill_error *err) {
    char os[4096], dir[1024];
    if (!rill_path_join(os, sizeof os, project_dir, model_path) ||
        !rill_path_dirname(dir, sizeof dir, model_path)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", model_path);
    }
    rill_gltf_read_desc rd = {.name = model_path, .uri_up_levels = rill_gltf_folder_depth(dir)};
    rill_gltf_model *m = NULL;
    RILL_TRY(rill_gltf_read_file(os, &rd, &m, err));
    float *mat_col =
        rill_malloc_tagged(sizeof(float) * 4u * (m->material_count + 1u), RILL_MEM_FORMATS);
    if (!mat_col) {
        rill_gltf_model_free(m);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", model_path);
    }
    for (uint32_t i = 0; i < m->material_count; i++) {
        material_colour(cache, project_dir, model_path, m, (int32_t)i, &mat_col[i * 4u]);
    }
    rill_result r = RILL_OK;
    for (uint32_t ni = 0; ni < m->node_count && r == RILL_OK; ni++) {
        int32_t mesh = m->nodes[ni].mesh;
        if (mesh < 0 || (uint32_t)mesh >= m->mesh_count) {
            continue;
        }
        float nm[16];
        node_matrix(m, ni, nm);
        const rill_gltf_mesh *ms = &m->meshes[mesh];
        for (uint32_t pi = 0; pi < ms->primitive_count && r == RILL_OK; pi++) {
            const rill_gltf_primitive *p = &ms->primitives[pi];
            float white[4] = {1, 1, 1, 1};
            const float *mc = p->material >= 0 && (uint32_t)p->material < m->material_count
                                  ? &mat_col[(uint32_t)p->material * 4u]
                                  : white;
            geo one = {0};
            uint32_t *c = rill_array_push_n(&one.col, p->vertex_count);
            float *pos = rill_array_push_n(&one.pos, p->vertex_count * 3u);
            float *nrm = rill_array_push_n(&one.nrm, p->vertex_count * 3u);
            uint32_t *ix = rill_array_push_n(&one.idx, p->index_count);
            if (p->vertex_count && (!c || !pos || !nrm || (p->index_count && !ix))) {
                geo_free(&one);
                r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", model_path);
                break;
            }
            memcpy(pos, p->positions, (size_t)p->vertex_count * 12u);
            memcpy(nrm, p->normals, (size_t)p->vertex_count * 12u);
            if (p->index_count) {
                memcpy(ix, p->indices, (size_t)p->index_count * 4u);
            }
            for (uint32_t v = 0; v < p->vertex_count; v++) {
                float k[4] = {mc[0], mc[1], mc[2], mc[3]};
                if (p->colors) {
                    for (int q = 0; q < 4; q++) {
                        k[q] *= p->colors[v * 4u + (uint32_t)q];
                    }
                }
                c[v] = pack_rgba(k);
            }
            if (!geo_append(g, &one, nm)) {
                r = rill_error_set(err, RILL_ERR_LIMIT, "%s: too large for a proxy", model_path);
            }
            geo_free(&one);
        }
    }
    rill_free(mat_col);
    rill_gltf_model_free(m);
    return r;
}

/* >>parts ------------------------------------------------------------------------------------- */

/* Turns g into a part: colours into a palette of at most 256 (exact when they fit; otherwise
 * quantized with fewer bits per channel until they do). */
static rill_result geo_to_part(const geo *g, rill_hlod_part *pt, rill_error *err) {
    memset(pt, 0, sizeof *pt);
    uint32_t nv = g->col.len;
    pt->vertices = rill_malloc_tagged((size_t)nv * sizeof(rill_hlod_vertex) + 4u, RILL_MEM_FORMATS);
    pt->indices = rill_malloc_tagged((size_t)g->idx.len * 4u + 4u, RILL_MEM_FORMATS);
    pt->palette = rill_malloc_tagged(RILL_HLOD_MAX_PALETTE * 4u, RILL_MEM_FORMATS);
    if (!pt->vertices || !pt->indices || !pt->palette) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "proxy: out of memory");
    }
    static const uint32_t masks[] = {0xFFFFFFFFu, 0xFCFCFCFCu, 0xF8F8F8F8u, 0xF0F0F0F0u,
                                     0xE0E0E0E0u, 0xC0C0C0C0u, 0x80808080u};
    for (uint32_t mi = 0; mi < RILL_COUNTOF(masks); mi++) {
        uint32_t n = 0;
        bool fits = true;
        for (uint32_t v = 0; v < nv && fits; v++) {
            uint32_t c = g->col.data[v] & masks[mi];
            uint32_t k = 0;
            while (k < n && pt->palette[k] != c) {
                k++;
            }
            if (k == n) {
                fits = n < RILL_HLOD_MAX_PALETTE;
                if (fits) {
                    pt->palette[n++] = c;
                }
            }
            pt->vertices[v].color = k;
        }
        if (fits) {
            pt->palette_count = n;
            break;
        }
    }
    for (int k = 0; k < 3; k++) {
        pt->box_min[k] = nv ? INFINITY : 0.0f;
        pt->box_max[k] = nv ? -INFINITY : 0.0f;
    }
    for (uint32_t v = 0; v < nv; v++) {
        memcpy(pt->vertices[v].position, &g->pos.data[v * 3u], 12);
        memcpy(pt->vertices[v].normal, &g->nrm.data[v * 3u], 12);
        for (int k = 0; k < 3; k++) {
            float x = g->pos.data[v * 3u + (uint32_t)k];
            pt->box_min[k] = fminf(pt->box_min[k], x);
            pt->box_max[k] = fmaxf(pt->box_max[k], x);
        }
    }
    if (g->idx.len) {
        memcpy(pt->indices, g->idx.data, (size_t)g->idx.len * 4u);
    }
    pt->vertex_count = nv;
    pt->index_count = g->idx.len;
    pt->cell_min[0] = pt->box_min[0], pt->cell_min[1] = pt->box_min[2];
    pt->cell_max[0] = pt->box_max[0], pt->cell_max[1] = pt->box_max[2];
    return RILL_OK;
}

static rill_hlod *hlod_new(uint32_t level, uint32_t parts) {
    rill_hlod *h = rill_calloc_tagged(1, sizeof *h, RILL_MEM_FORMATS);
    if (h && !(h->parts = rill_calloc_tagged(parts + 1u, sizeof *h->parts, RILL_MEM_FORMATS))) {
        rill_free(h);
        return NULL;
    }
    if (h) {
        h->level = level;
    }
    return h;
}

/* >>model cache ------------------------------------------------------------------------------ */

/* One model flattened and pre-simplified, shared by every scene of an export that places it
 * (a region world's thousands of cells place the same few dozen models). */
typedef struct model_entry {
    char *path;
    uint32_t budget; /* the pre-simplification it was made with */
    geo g;
    bool ready, failed;
} model_entry;

typedef struct image_mean_entry {
    uint64_t key; /* hash of the project-relative path */
    float mean[4];
    bool ok;
} image_mean_entry;

struct rill__hlod_cache {
    rill_mutex lock;
    rill_cond done;
    RILL_ARRAY(model_entry *) models;
    RILL_ARRAY(image_mean_entry) means;
};

static bool cached_mean(rill__hlod_cache *c, const char *path, float out[4], bool *out_ok) {
    if (!c) {
        return false;
    }
    uint64_t key = rill_hash64_str(path);
    bool found = false;
    rill_mutex_lock(&c->lock);
    for (uint32_t i = 0; i < c->means.len && !found; i++) {
        if (c->means.data[i].key == key) {
            memcpy(out, c->means.data[i].mean, sizeof(float) * 4);
            *out_ok = c->means.data[i].ok;
            found = true;
        }
    }
    rill_mutex_unlock(&c->lock);
    return found;
}

static void keep_mean(rill__hlod_cache *c, const char *path, const float mean[4], bool ok) {
    if (!c) {
        return;
    }
    image_mean_entry e = {.key = rill_hash64_str(path), .ok = ok};
    if (ok) {
        memcpy(e.mean, mean, sizeof e.mean);
    }
    rill_mutex_lock(&c->lock);
    rill_array_push(&c->means, e); /* out of memory: it is decoded again next time */
    rill_mutex_unlock(&c->lock);
}

rill__hlod_cache *rill__hlod_cache_create(void) {
    rill__hlod_cache *c = rill_calloc_tagged(1, sizeof *c, RILL_MEM_FORMATS);
    if (c) {
        rill_mutex_init(&c->lock);
        rill_cond_init(&c->done);
    }
    return c;
}

void rill__hlod_cache_destroy(rill__hlod_cache *c) {
    if (!c) {
        return;
    }
    for (uint32_t i = 0; i < c->models.len; i++) {
        geo_free(&c->models.data[i]->g);
        rill_free(c->models.data[i]->path);
        rill_free(c->models.data[i]);
    }
    rill_array_free(&c->models);
    rill_array_free(&c->means);
    rill_cond_destroy(&c->done);
    rill_mutex_destroy(&c->lock);
    rill_free(c);
}

/* Reads, flattens and pre-simplifies a model into e (outside the lock). */
static void make_model(rill__hlod_cache *c, const char *project_dir, const char *scene_path,
                       model_entry *e) {
    rill_error merr = {0};
    if (load_model(c, project_dir, e->path, &e->g, &merr) != RILL_OK) {
        /* One unreadable model leaves a hole in the proxy, not a missing proxy. */
        RILL_LOG_WARN("export", "%s: proxy leaves out %s: %s", scene_path, e->path, merr.msg);
        e->failed = true;
    } else if (!geo_simplify(&e->g, e->budget)) {
        e->failed = true;
    }
}

/* The model at `path`, made once per cache (other jobs wanting it meanwhile wait for it); without
 * a cache, made into *own. NULL when it failed or memory ran out. */
static const model_entry *model_get(rill__hlod_cache *c, const char *project_dir,
                                    const char *scene_path, const char *path, uint32_t budget,
                                    model_entry *own) {
    if (!c) {
        *own = (model_entry){.path = (char *)path, .budget = budget};
        make_model(NULL, project_dir, scene_path, own);
        own->path = NULL;
        return own->failed ? NULL : own;
    }
    rill_mutex_lock(&c->lock);
    model_entry *e = NULL;
    for (uint32_t i = 0; i < c->models.len && !e; i++) {
        if (c->models.data[i]->budget == budget && strcmp(c->models.data[i]->path, path) == 0) {
            e = c->models.data[i];
        }
    }
    if (e) {
        while (!e->ready) {
            rill_cond_wait(&c->done, &c->lock);
        }
        rill_mutex_unlock(&c->lock);
        return e->failed ? NULL : e;
    }
    e = rill_calloc_tagged(1, sizeof *e, RILL_MEM_FORMATS);
    if (!e || !(e->path = rill_strdup(path)) || !rill_array_push(&c->models, e)) {
        rill_mutex_unlock(&c->lock);
        if (e) {
            rill_free(e->path);
        }
        rill_free(e);
        return NULL;
    }
    e->budget = budget;
    rill_mutex_unlock(&c->lock);
    make_model(c, project_dir, scene_path, e);
    rill_mutex_lock(&c->lock);
    e->ready = true;
    rill_cond_broadcast(&c->done);
    rill_mutex_unlock(&c->lock);
    return e->failed ? NULL : e;
}

/* >>level 0 ----------------------------------------------------------------------------------- */

typedef struct placed_model {
    const char *path; /* borrowed from the scan */
    const model_entry *model;
    model_entry own; /* without a cache */
} placed_model;

rill_result rill__hlod_bake_scene(const char *project_dir, const char *scene_path, const char *t,
                                  size_t n, uint32_t triangles, rill__hlod_cache *cache,
                                  rill_hlod **out, rill_error *err) {
    *out = NULL;
    if (!triangles) {
        triangles = RILL_HLOD_DEFAULT_TRIANGLES;
    }
    const uint32_t per_model = RILL_MAX(16u, triangles / 8u);
    rill__rsn_scan scan;
    if (!rill__rsn_scan_text(t, n, &scan)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", scene_path);
    }
    RILL_ARRAY(placed_model) models = {0};
    geo all = {0};
    rill_result r = RILL_OK;
    for (uint32_t i = 0; i < scan.count && r == RILL_OK; i++) {
        const char *mp = scan.ents[i].model;
        if (!mp) {
            continue;
        }
        uint32_t k = 0;
        while (k < models.len && strcmp(models.data[k].path, mp) != 0) {
            k++;
        }
        if (k == models.len) {
            if (!rill_array_push(&models, ((placed_model){.path = mp}))) {
                r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", scene_path);
                break;
            }
            placed_model *pm = &models.data[k];
            pm->model = model_get(cache, project_dir, scene_path, mp, per_model, &pm->own);
        }
        /* pm->own may have moved with the array: the pointer into it is refreshed here. */
        placed_model *pm = &models.data[k];
        const model_entry *me = cache ? pm->model : (pm->own.failed ? NULL : &pm->own);
        if (!me) {
            continue;
        }
        float m[16];
        rill__rsn_world_matrix(&scan, i, m);
        if (!geo_append(&all, &me->g, m)) {
            r = rill_error_set(err, RILL_ERR_LIMIT, "%s: too many vertices for a proxy",
                               scene_path);
        }
    }
    if (r == RILL_OK && !geo_simplify(&all, triangles)) {
        r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", scene_path);
    }
    rill_hlod *h = r == RILL_OK ? hlod_new(0, 1) : NULL;
    if (r == RILL_OK && !h) {
        r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", scene_path);
    }
    if (h) {
        h->part_count = 1;
        r = geo_to_part(&all, &h->parts[0], err);
    }
    for (uint32_t i = 0; i < models.len; i++) {
        geo_free(&models.data[i].own.g);
    }
    rill_array_free(&models);
    geo_free(&all);
    rill__rsn_scan_free(&scan);
    if (r != RILL_OK) {
        rill_hlod_free(h);
        return r;
    }
    *out = h;
    return RILL_OK;
}

/* >>level 1 ----------------------------------------------------------------------------------- */

typedef struct cell_key {
    int32_t x, z;
    uint32_t member;
} cell_key;

static int cmp_cell(const void *a, const void *b) {
    const cell_key *p = a, *q = b;
    if (p->z != q->z) {
        return p->z < q->z ? -1 : 1;
    }
    if (p->x != q->x) {
        return p->x < q->x ? -1 : 1;
    }
    return p->member < q->member ? -1 : p->member > q->member;
}

/* Appends every part of proxy p, placed by m, to g (palette indices back to colours). */
static bool append_proxy(geo *g, const rill_hlod *p, const float m[16]) {
    for (uint32_t pi = 0; pi < p->part_count; pi++) {
        const rill_hlod_part *pt = &p->parts[pi];
        geo one = {0};
        float *pos = rill_array_push_n(&one.pos, pt->vertex_count * 3u);
        float *nrm = rill_array_push_n(&one.nrm, pt->vertex_count * 3u);
        uint32_t *c = rill_array_push_n(&one.col, pt->vertex_count);
        uint32_t *ix = rill_array_push_n(&one.idx, pt->index_count);
        bool ok = !pt->vertex_count || (pos && nrm && c);
        ok = ok && (!pt->index_count || ix);
        for (uint32_t v = 0; ok && v < pt->vertex_count; v++) {
            memcpy(&pos[v * 3u], pt->vertices[v].position, 12);
            memcpy(&nrm[v * 3u], pt->vertices[v].normal, 12);
            c[v] = pt->palette[pt->vertices[v].color];
        }
        if (ok && pt->index_count) {
            memcpy(ix, pt->indices, (size_t)pt->index_count * 4u);
        }
        ok = ok && geo_append(g, &one, m);
        geo_free(&one);
        if (!ok) {
            return false;
        }
    }
    return true;
}

rill_result rill__hlod_bake_cells(const rill__hlod_member *members, uint32_t n, float cell,
                                  uint32_t triangles, rill_hlod **out, rill_error *err) {
    *out = NULL;
    if (!triangles) {
        triangles = RILL_HLOD_DEFAULT_TRIANGLES;
    }
    if (!(cell > 0.0f)) {
        float widest = 1.0f;
        for (uint32_t i = 0; i < n; i++) {
            widest = fmaxf(widest, fmaxf(members[i].box_max[0] - members[i].box_min[0],
                                         members[i].box_max[2] - members[i].box_min[2]));
        }
        cell = 3.0f * widest;
    }
    cell_key *keys = rill_malloc_tagged(sizeof(cell_key) * (n + 1u), RILL_MEM_FORMATS);
    if (!keys) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "proxy cells: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        float cx = 0.5f * (members[i].box_min[0] + members[i].box_max[0]);
        float cz = 0.5f * (members[i].box_min[2] + members[i].box_max[2]);
        keys[i] = (cell_key){(int32_t)floorf(cx / cell), (int32_t)floorf(cz / cell), i};
    }
    qsort(keys, n, sizeof *keys, cmp_cell);
    uint32_t cells = 0;
    for (uint32_t i = 0; i < n; i++) {
        cells += i == 0 || keys[i].x != keys[i - 1].x || keys[i].z != keys[i - 1].z;
    }
    rill_hlod *h = hlod_new(1, cells);
    rill_result r = h ? RILL_OK : rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < n && r == RILL_OK;) {
        uint32_t j = i;
        geo g = {0};
        float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (; j < n && keys[j].x == keys[i].x && keys[j].z == keys[i].z; j++) {
            const rill__hlod_member *m = &members[keys[j].member];
            if (!append_proxy(&g, m->proxy, m->matrix)) {
                r = rill_error_set(err, RILL_ERR_LIMIT, "proxy cell too large");
            }
            for (int k = 0; k < 3; k++) {
                bmin[k] = fminf(bmin[k], m->box_min[k]);
                bmax[k] = fmaxf(bmax[k], m->box_max[k]);
            }
        }
        if (r == RILL_OK && !geo_simplify(&g, triangles)) {
            r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
        rill_hlod_part *pt = &h->parts[h->part_count];
        if (r == RILL_OK) {
            h->part_count++;
            r = geo_to_part(&g, pt, err);
        }
        if (r == RILL_OK) {
            for (int k = 0; k < 3; k++) {
                pt->box_min[k] = fminf(pt->box_min[k], bmin[k]);
                pt->box_max[k] = fmaxf(pt->box_max[k], bmax[k]);
            }
            pt->cell_min[0] = (float)keys[i].x * cell, pt->cell_min[1] = (float)keys[i].z * cell;
            pt->cell_max[0] = pt->cell_min[0] + cell, pt->cell_max[1] = pt->cell_min[1] + cell;
        }
        geo_free(&g);
        i = j;
    }
    rill_free(keys);
    if (r != RILL_OK) {
        rill_hlod_free(h);
        return r;
    }
    *out = h;
    return RILL_OK;
}
