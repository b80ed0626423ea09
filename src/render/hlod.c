/* hlod.c: far-world proxies drawn where streamed instances are not resident (rill/render/hlod.h).
 * The stream decides how much of each instance's proxy stands in for it (proxy_fade); this file
 * loads the proxy files (reads, parses and builds each part's voxel GI copy on workers; the
 * vertices and GPU objects on the main thread), picks the
 * level (a cell's merged level-1 part, or each instance's level-0 proxy) and hands the draws to
 * the snapshot as ordinary instances with the LOD crossfade's dither fade. */
#include "rill/render/hlod.h"

#include "gi_voxel.h"
#include "render_internal.h"

#include "rill/formats/hlod.h"
#include "rill/scene.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define HLOD_ATLAS 16u /* palette atlas side: 256 colours */

typedef enum file_state {
    FILE_IDLE = 0, /* known, not read yet */
    FILE_LOADING,  /* a worker reads and parses it */
    FILE_PARSED,   /* parsed; GPU objects not made yet */
    FILE_READY,
    FILE_MISSING,
    FILE_FAILED
} file_state;

typedef struct gpu_part {
    rill_mesh mesh; /* {0}: a part with no triangles */
    rill_material material;
    rill_texture texture;
    uint32_t triangles;
    float box_min[3], box_max[3];
    float cell_min[2], cell_max[2];
} gpu_part;

/* What the worker that parsed a file leaves for make_part: each part's voxel GI copy of its
 * triangles (building it on the main thread was two thirds of making a part; the mesh keeps it
 * for its life, so holding it from the parse on costs no memory at the end). The mesh's own
 * vertices are laid out on the main thread, part by part: laid out ahead for a whole file, the
 * level-1 cells of the 100 km² world held ~180 MB more for their first hundred frames. */
typedef struct part_prep {
    rill__vox_source vox;
} part_prep;

typedef struct proxy_file {
    char *path;
    char *scene; /* the scene it stands for (for messages) */
    _Atomic int state;
    rill_hlod *parsed;                /* FILE_PARSED: the worker's result (until all parts made) */
    part_prep *preps;                 /* FILE_PARSED: per parsed part, made by the worker */
    char message[RILL_ERROR_MSG_MAX]; /* FILE_FAILED: why */
    gpu_part *parts;
    uint32_t part_count; /* made so far (FILE_PARSED) or all (FILE_READY) */
    float cell;          /* level 1: the cell size (from part 0's rectangle) */
    rill_map by_cell;    /* level 1: packed (ix, iz) -> part + 1 */
    rill_render_hlod *owner;
} proxy_file;

struct rill_render_hlod {
    rill_render_hlod_desc desc;
    rill_component instance;
    rill_map by_path;    /* hash of path -> index into files + 1 */
    rill_map quiet_dirs; /* folders without any proxy, said once (note_missing) */
    RILL_ARRAY(proxy_file *) files;
    proxy_file *level1; /* NULL without a main scene */
    rill_counter loads;
    _Atomic uint32_t in_flight;
    RILL_ARRAY(rill_stream_instance_info) infos;
    RILL_ARRAY(int32_t) cell_of;  /* per info: its level-1 part, -1 = none */
    RILL_ARRAY(float) cell_w;     /* per level-1 part: this frame's level-1 share (0 = members) */
    RILL_ARRAY(uint8_t) cell_out; /* per level-1 part: every member stands fully as a proxy */
    RILL_ARRAY(rill_render_instance) out;
    RILL_ARRAY(rill_render_hlod_draw) draws;
    rill_render_hlod_stats stats;
};

rill_render_hlod_desc rill_render_hlod_query_defaults(void) {
    return (rill_render_hlod_desc){.max_loads = 4, .max_uploads = 2, .max_upload_triangles = 16384};
}

static rill_render_hlod_desc resolve(const rill_render_hlod_desc *desc) {
    rill_render_hlod_desc d = *desc, def = rill_render_hlod_query_defaults();
    if (!d.max_loads) {
        d.max_loads = def.max_loads;
    }
    if (!d.max_uploads) {
        d.max_uploads = def.max_uploads;
    }
    if (!d.max_upload_triangles) {
        d.max_upload_triangles = def.max_upload_triangles;
    }
    return d;
}

/* >>files ------------------------------------------------------------------------------------- */

static void warn_file(const rill_render_hlod *h, const proxy_file *f, const char *why) {
    const char *where = rill_vfs_which(h->desc.vfs, f->path);
    if (!where && f->scene) {
        where = rill_vfs_which(h->desc.vfs, f->scene);
    }
    RILL_LOG_WARN("render", "far-world proxy %s (%s): %s; %s streams without it", f->path,
                  where ? where : "no pack or folder mounted", why,
                  f->scene ? f->scene : "the scene");
}

static bool is_proxy(const char *path, uint64_t size, void *user) {
    (void)size;
    bool *found = user;
    *found = rill_path_ext_is(path, "hlod");
    return !*found; /* stop at the first */
}

/* A missing proxy is a warning where proxies were baked (another .hlod beside the scene: this
 * one is lost or was left out); a folder without any (a project not exported yet, a pack exported
 * before proxies or with --no-hlod) is said once, at INFO, and its districts stream as before. */
static void note_missing(rill_render_hlod *h, const proxy_file *f) {
    char dir[1024];
    if (!rill_path_dirname(dir, sizeof dir, f->path)) {
        dir[0] = '\0';
    }
    bool found = false;
    rill_vfs_list(h->desc.vfs, dir, is_proxy, &found);
    if (found) {
        warn_file(h, f, "not found");
        return;
    }
    uint64_t key = rill_hash64_str(dir[0] ? dir : ".");
    if (rill_map_get(&h->quiet_dirs, key, NULL)) {
        return;
    }
    rill_map_set(&h->quiet_dirs, key, 1);
    const char *where = rill_vfs_which(h->desc.vfs, f->scene ? f->scene : f->path);
    RILL_LOG_INFO("render",
                  "no far-world proxies in %s/ (%s): its streamed scenes draw nothing "
                  "beyond their radius (rill export bakes them)",
                  dir[0] ? dir : ".", where ? where : "not mounted");
}

static bool prepare_parts(proxy_file *f, const rill_hlod *h);

static void free_preps(proxy_file *f, uint32_t count) {
    for (uint32_t i = 0; f->preps && i < count; i++) {
        rill__vox_source_free(&f->preps[i].vox);
    }
    rill_free(f->preps);
    f->preps = NULL;
}

static void load_job(void *arg) {
    proxy_file *f = arg;
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    rill_hlod *h = NULL;
    if (rill_vfs_read_all(f->owner->desc.vfs, f->path, &data, &size, &err) == RILL_OK &&
        rill_hlod_parse(data, size, f->path, &h, &err) == RILL_OK) {
        if (prepare_parts(f, h)) {
            f->parsed = h;
            atomic_store(&f->state, FILE_PARSED);
        } else {
            rill_hlod_free(h);
            snprintf(f->message, sizeof f->message, "out of memory");
            atomic_store(&f->state, FILE_FAILED);
        }
    } else {
        snprintf(f->message, sizeof f->message, "%s", err.msg);
        atomic_store(&f->state, FILE_FAILED);
    }
    rill_free(data);
    atomic_fetch_sub(&f->owner->in_flight, 1u);
}

/* The file for `path`, made (IDLE, or MISSING after a warning) on first sight. */
static proxy_file *file_for(rill_render_hlod *h, const char *path, const char *scene) {
    uint64_t key = rill_hash64_str(path), v = 0;
    if (rill_map_get(&h->by_path, key, &v)) {
        return h->files.data[v - 1];
    }
    proxy_file *f = rill_calloc_tagged(1, sizeof *f, RILL_MEM_RENDER);
    if (!f || !(f->path = rill_strdup(path)) || (scene && !(f->scene = rill_strdup(scene))) ||
        !rill_array_push(&h->files, f)) {
        if (f) {
            rill_free(f->path);
            rill_free(f->scene);
        }
        rill_free(f);
        return NULL;
    }
    f->owner = h;
    if (!rill_map_set(&h->by_path, key, h->files.len)) {
        h->files.len--;
        rill_free(f->path);
        rill_free(f->scene);
        rill_free(f);
        return NULL;
    }
    if (!rill_vfs_exists(h->desc.vfs, path)) {
        atomic_store(&f->state, FILE_MISSING);
        note_missing(h, f);
    }
    return f;
}

static void start_load(rill_render_hlod *h, proxy_file *f) {
    if (atomic_load(&f->state) != FILE_IDLE || atomic_load(&h->in_flight) >= h->desc.max_loads) {
        return;
    }
    atomic_store(&f->state, FILE_LOADING);
    atomic_fetch_add(&h->in_flight, 1u);
    if (h->desc.jobs) {
        rill_jobs_run(h->desc.jobs, load_job, f, &h->loads);
    } else {
        load_job(f);
    }
}

/* >>gpu --------------------------------------------------------------------------------------- */

static void part_uv(uint32_t index, float uv[2]) {
    uv[0] = ((float)(index % HLOD_ATLAS) + 0.5f) / (float)HLOD_ATLAS;
    uv[1] = ((float)(index / HLOD_ATLAS) + 0.5f) / (float)HLOD_ATLAS;
}

/* A part's vertices and indices: each vertex's uv is the centre of its palette texel. A triangle
 * whose corners name different colours takes its first corner's for all three (copies of the
 * others), so no triangle samples between texels. *out_v and *out_idx are the caller's to free. */
static bool part_mesh(const rill_hlod_part *pt, rill_vertex **out_v, uint32_t **out_idx,
                      uint32_t *out_count) {
    uint32_t nv = pt->vertex_count, ni = pt->index_count;
    rill_vertex *v = rill_malloc_tagged(((size_t)nv + ni) * sizeof *v + sizeof *v, RILL_MEM_RENDER);
    uint32_t *idx = rill_malloc_tagged((size_t)ni * 4u + 4u, RILL_MEM_RENDER);
    if (!v || !idx) {
        rill_free(v);
        rill_free(idx);
        return false;
    }
    for (uint32_t i = 0; i < nv; i++) {
        v[i] = (rill_vertex){0};
        memcpy(v[i].position, pt->vertices[i].position, 12);
        memcpy(v[i].normal, pt->vertices[i].normal, 12);
        part_uv(pt->vertices[i].color, v[i].uv);
    }
    uint32_t count = nv;
    for (uint32_t t = 0; t < ni; t += 3) {
        uint32_t c = pt->vertices[pt->indices[t]].color;
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t src = pt->indices[t + k];
            if (pt->vertices[src].color == c) {
                idx[t + k] = src;
                continue;
            }
            v[count] = v[src];
            part_uv(c, v[count].uv);
            idx[t + k] = count++;
        }
    }
    *out_v = v, *out_idx = idx, *out_count = count;
    return true;
}

/* The voxel GI's copy of a part's triangles (on the worker; none when out of memory, as the main
 * thread's copy was best-effort). */
static void part_vox(const rill_hlod_part *pt, rill__vox_source *out) {
    float *xyz = rill_malloc_tagged((size_t)pt->vertex_count * 3u * sizeof(float) + sizeof(float),
                                    RILL_MEM_RENDER);
    if (!xyz) {
        return;
    }
    for (uint32_t i = 0; i < pt->vertex_count; i++) {
        memcpy(&xyz[3u * i], pt->vertices[i].position, 3u * sizeof(float));
    }
    (void)rill__vox_source_build(xyz, pt->vertex_count, pt->indices, pt->index_count, 1.0f, out);
    rill_free(xyz);
}

/* Builds every part's voxel copy (the worker); false when out of memory. */
static bool prepare_parts(proxy_file *f, const rill_hlod *h) {
    f->preps = rill_calloc_tagged(h->part_count + 1u, sizeof *f->preps, RILL_MEM_RENDER);
    if (!f->preps) {
        return false;
    }
    for (uint32_t i = 0; i < h->part_count; i++) {
        const rill_hlod_part *pt = &h->parts[i];
        if (!pt->index_count) {
            continue; /* draws nothing */
        }
        part_vox(pt, &f->preps[i].vox);
    }
    return true;
}

/* The part's GPU mesh, and the worker's voxel copy moved into it. */
static bool make_mesh(rill_renderer *r, const rill_hlod_part *pt, part_prep *pp, const char *label,
                      rill_mesh *out) {
    rill_vertex *v = NULL;
    uint32_t *idx = NULL, count = 0;
    if (!part_mesh(pt, &v, &idx, &count)) {
        return false;
    }
    rill_error err = {0};
    *out = rill_render_mesh_create(r,
                                   &(rill_mesh_desc){.vertices = v,
                                                     .vertex_count = count,
                                                     .indices = idx,
                                                     .index_count = pt->index_count,
                                                     .label = label,
                                                     .gpu_only = true},
                                   &err);
    if (out->id) {
        rill__mesh_take_vox_source(r, *out, &pp->vox);
    }
    rill_free(v);
    rill_free(idx);
    return out->id != 0;
}

static bool make_part(rill_renderer *r, const rill_hlod_part *pt, part_prep *pp, const char *label,
                      gpu_part *g) {
    memset(g, 0, sizeof *g);
    memcpy(g->box_min, pt->box_min, sizeof g->box_min);
    memcpy(g->box_max, pt->box_max, sizeof g->box_max);
    memcpy(g->cell_min, pt->cell_min, sizeof g->cell_min);
    memcpy(g->cell_max, pt->cell_max, sizeof g->cell_max);
    if (!pt->index_count) {
        return true; /* draws nothing */
    }
    uint8_t px[HLOD_ATLAS * HLOD_ATLAS * 4u];
    for (uint32_t i = 0; i < HLOD_ATLAS * HLOD_ATLAS; i++) {
        /* Unused texels are transparent: the texture's mean colour (what voxel GI gives the
         * proxy) is then its palette's (no texel outside the palette is sampled). */
        uint32_t c = i < pt->palette_count ? pt->palette[i] : (pt->palette[0] & 0x00FFFFFFu);
        for (uint32_t k = 0; k < 4; k++) {
            px[i * 4u + k] = (uint8_t)(c >> (8u * k));
        }
    }
    rill_error err = {0};
    g->texture = rill_render_texture_create(
        r,
        &(rill_texture_desc){
            .pixels = px, .width = HLOD_ATLAS, .height = HLOD_ATLAS, .srgb = true, .label = label},
        &err);
    if (!g->texture.id || !make_mesh(r, pt, pp, label, &g->mesh)) {
        return false;
    }
    g->material =
        rill_render_material_create(r,
                                    &(rill_material_desc){.base_color_texture = g->texture,
                                                          .roughness = 0.9f,
                                                          .double_sided = true,
                                                          .nearest = true,
                                                          .label = label},
                                    &err);
    g->triangles = pt->index_count / 3u;
    return g->material.id != 0;
}

static void free_parts(rill_renderer *r, proxy_file *f) {
    for (uint32_t i = 0; f->parts && i < f->part_count; i++) {
        gpu_part *g = &f->parts[i];
        if (g->material.id) {
            rill_render_material_destroy(r, g->material);
        }
        if (g->mesh.id) {
            rill_render_mesh_destroy(r, g->mesh);
        }
        if (g->texture.id) {
            rill_render_texture_destroy(r, g->texture);
        }
    }
    rill_free(f->parts);
    f->parts = NULL;
    f->part_count = 0;
}

static uint64_t cell_key(int32_t x, int32_t z) {
    return ((uint64_t)(uint32_t)x << 32) | (uint32_t)z;
}

/* What making a part costs against the frame's budget: its triangles, and its palette texture
 * and material as 256 more (a part without triangles makes nothing). */
static uint64_t part_cost(const rill_hlod_part *pt) {
    return pt->index_count ? pt->index_count / 3u + HLOD_ATLAS * HLOD_ATLAS : 1u;
}

/* The level-1 cell map of a file whose parts are all made. */
static bool map_cells(proxy_file *f, const rill_hlod *p) {
    bool ok = true;
    f->cell = p->parts[0].cell_max[0] - p->parts[0].cell_min[0];
    for (uint32_t i = 0; ok && f->cell > 0.0f && i < p->part_count; i++) {
        int32_t x = (int32_t)floorf(p->parts[i].cell_min[0] / f->cell + 0.5f);
        int32_t z = (int32_t)floorf(p->parts[i].cell_min[1] / f->cell + 0.5f);
        ok = rill_map_set(&f->by_cell, cell_key(x, z), i + 1u);
    }
    return ok;
}

/* Makes the GPU objects of a parsed file's next parts while *budget lasts (the part that crosses
 * it is made: at least one a frame) and takes their cost off it; once every part is made, maps
 * the cells and the file is READY (until then it stays PARSED and draws nothing). A failure
 * there is a warning like a bad file. */
static void finish_parts(rill_render_hlod *h, proxy_file *f, uint64_t *budget) {
    rill_hlod *p = f->parsed;
    bool ok = true;
    if (!f->parts) {
        f->parts = rill_calloc_tagged(p->part_count + 1u, sizeof *f->parts, RILL_MEM_RENDER);
        ok = f->parts != NULL;
    }
    while (ok && f->part_count<p->part_count && * budget> 0) {
        uint32_t i = f->part_count++;
        uint64_t cost = part_cost(&p->parts[i]);
        *budget = cost < *budget ? *budget - cost : 0;
        ok = make_part(h->desc.renderer, &p->parts[i], &f->preps[i], f->path, &f->parts[i]);
        h->stats.gpu_triangles += f->parts[i].triangles;
    }
    if (ok && f->part_count < p->part_count) {
        return; /* more parts next frame */
    }
    if (ok && p->level == 1 && p->part_count) {
        ok = map_cells(f, p);
    }
    f->parsed = NULL;
    free_preps(f, p->part_count);
    rill_hlod_free(p);
    if (ok) {
        atomic_store(&f->state, FILE_READY);
        return;
    }
    free_parts(h->desc.renderer, f);
    snprintf(f->message, sizeof f->message, "could not be uploaded");
    atomic_store(&f->state, FILE_FAILED);
    warn_file(h, f, f->message);
    f->message[0] = '\1'; /* warned */
}

/* Makes parsed files' parts (at most max_uploads files and max_upload_triangles a frame) and
 * reports failed ones once. */
static void poll_files(rill_render_hlod *h) {
    uint32_t uploads = 0;
    uint64_t budget = h->desc.max_upload_triangles;
    h->stats.ready = h->stats.loading = h->stats.missing = h->stats.failed = 0;
    for (uint32_t i = 0; i < h->files.len; i++) {
        proxy_file *f = h->files.data[i];
        int st = atomic_load(&f->state);
        if (st == FILE_PARSED && uploads < h->desc.max_uploads && budget > 0) {
            uploads++;
            finish_parts(h, f, &budget);
            st = atomic_load(&f->state);
        } else if (st == FILE_FAILED && f->message[0] != '\1') {
            warn_file(h, f, f->message);
            f->message[0] = '\1';
        }
        h->stats.ready += st == FILE_READY;
        h->stats.loading += st == FILE_LOADING || st == FILE_PARSED;
        h->stats.missing += st == FILE_MISSING;
        h->stats.failed += st == FILE_FAILED;
    }
    h->stats.files = h->files.len;
}

/* >>decisions --------------------------------------------------------------------------------- */

static float dist_box(const float p[3], const float mn[3], const float mx[3]) {
    return rill_stream_distance_to_box(p, mn, mx);
}

static bool emit(rill_render_hlod *h, const gpu_part *g, const float *m, rill_entity root,
                 uint32_t level, uint32_t part, float fade) {
    if (!g->mesh.id) {
        return true;
    }
    /* A stable id per (instance, level, part), as terrain chunks have: the voxel GI tracks
     * instances by id (id 0 is never voxelized) and motion vectors match frames by it. Bit 63 is
     * static batching's. */
    uint64_t key[3] = {root, level, part};
    rill_render_instance in = {.id = (rill_hash64(key, sizeof(key)) | 1u) & ~(UINT64_C(1) << 63),
                               .mesh = g->mesh,
                               .material = g->material,
                               .mode = RILL_RENDER_MODE_NORMAL,
                               .lod_fade = fade};
    static const float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(in.transform, m ? m : ident, sizeof in.transform);
    rill_render_hlod_draw d = {.root = root, .level = level, .part = part, .lod_fade = fade};
    if (!rill_array_push(&h->out, in) || !rill_array_push(&h->draws, d)) {
        return false;
    }
    h->stats.drawn++;
    h->stats.triangles += g->triangles;
    if (level) {
        h->stats.drawn_level1++;
    } else {
        h->stats.drawn_level0++;
    }
    return true;
}

/* Level 1: which cell each instance belongs to, and each cell's share this frame. */
static void decide_cells(rill_render_hlod *h, const float eye[3],
                         const rill_stream_hlod_settings *hs) {
    proxy_file *l1 = h->level1;
    uint32_t n = h->infos.len;
    bool ready = l1 && atomic_load(&l1->state) == FILE_READY && l1->cell > 0.0f;
    uint32_t parts = ready ? l1->part_count : 0;
    if (!rill_array_size_for(&h->cell_of, n) || !rill_array_size_for(&h->cell_w, parts) ||
        !rill_array_size_for(&h->cell_out, parts)) {
        parts = 0;
    }
    h->cell_of.len = n;
    h->cell_w.len = h->cell_out.len = parts;
    for (uint32_t k = 0; k < parts; k++) {
        h->cell_out.data[k] = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const rill_stream_instance_info *in = &h->infos.data[i];
        h->cell_of.data[i] = -1;
        uint64_t v = 0;
        if (!parts) {
            continue;
        }
        float cx = 0.5f * (in->bounds_min[0] + in->bounds_max[0]);
        float cz = 0.5f * (in->bounds_min[2] + in->bounds_max[2]);
        if (!rill_map_get(&l1->by_cell,
                          cell_key((int32_t)floorf(cx / l1->cell), (int32_t)floorf(cz / l1->cell)),
                          &v) ||
            v == 0 || v > parts) {
            continue;
        }
        h->cell_of.data[i] = (int32_t)(v - 1u);
        if (in->proxy_fade < 1.0f) {
            h->cell_out.data[v - 1u] = 0; /* a member is resident or crossfading */
        }
    }
    for (uint32_t k = 0; k < parts; k++) {
        const gpu_part *g = &l1->parts[k];
        float d = dist_box(eye, g->box_min, g->box_max);
        float w = (d - hs->level1_distance) / hs->level_crossfade;
        w = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
        h->cell_w.data[k] = h->cell_out.data[k] && d <= hs->far_distance ? w : 0.0f;
        if (h->cell_w.data[k] > 0.0f) {
            emit(h, g, NULL, RILL_ENTITY_NULL, 1, k,
                 h->cell_w.data[k] >= 1.0f ? 0.0f : h->cell_w.data[k]);
        }
    }
}

/* Level 0: every instance whose proxy stands in for it, unless its cell took over. */
static void decide_instances(rill_render_hlod *h, const float eye[3],
                             const rill_stream_hlod_settings *hs) {
    rill_world *w = h->desc.world;
    for (uint32_t i = 0; i < h->infos.len; i++) {
        const rill_stream_instance_info *in = &h->infos.data[i];
        if (!(in->proxy_fade > 0.0f)) {
            continue;
        }
        int32_t cell = h->cell_of.data[i];
        float cw = cell >= 0 ? h->cell_w.data[cell] : 0.0f;
        if (cw >= 1.0f || dist_box(eye, in->bounds_min, in->bounds_max) > hs->far_distance) {
            continue;
        }
        const rill_scene_instance *si = rill_world_get(w, in->root, h->instance);
        char path[1024];
        if (!si || !si->scene || !rill_hlod_path(path, sizeof path, si->scene, 0)) {
            continue;
        }
        proxy_file *f = file_for(h, path, si->scene);
        if (!f) {
            continue;
        }
        start_load(h, f);
        const float *m = rill_world_global_matrix(w, in->root);
        if (atomic_load(&f->state) != FILE_READY || !f->part_count || !m) {
            continue;
        }
        /* The content arrived: the proxy keeps proxy_fade of the pixels (+f, the incoming
         * share of the dither) and is gone at 0. A cell crossfading in takes the complement. */
        float fade = in->proxy_fade < 1.0f ? in->proxy_fade : cw > 0.0f ? -cw : 0.0f;
        emit(h, &f->parts[0], m, in->root, 0, 0, fade);
    }
}

uint32_t rill_render_hlod_update(rill_render_hlod *h, const float eye[3],
                                 const rill_render_instance **out_instances,
                                 const rill_render_hlod_draw **out_draws) {
    if (out_instances) {
        *out_instances = NULL;
    }
    if (out_draws) {
        *out_draws = NULL;
    }
    if (!h) {
        return 0;
    }
    poll_files(h);
    h->out.len = h->draws.len = 0;
    h->stats.drawn = h->stats.drawn_level0 = h->stats.drawn_level1 = 0;
    h->stats.triangles = 0;
    rill_stream_hlod_settings hs = rill_stream_get_hlod(h->desc.stream);
    if (!hs.enabled || !eye) {
        return 0;
    }
    if (h->level1) {
        start_load(h, h->level1);
    }
    uint32_t n = rill_stream_instances(h->desc.stream, NULL, 0);
    if (!rill_array_size_for(&h->infos, n)) {
        return 0;
    }
    h->infos.len = rill_stream_instances(h->desc.stream, h->infos.data, n);
    if (h->infos.len > n) {
        h->infos.len = n;
    }
    decide_cells(h, eye, &hs);
    decide_instances(h, eye, &hs);
    if (out_instances) {
        *out_instances = h->out.data;
    }
    if (out_draws) {
        *out_draws = h->draws.data;
    }
    return h->out.len;
}

void rill_render_hlod_get_stats(const rill_render_hlod *h, rill_render_hlod_stats *out) {
    if (out) {
        *out = h ? h->stats : (rill_render_hlod_stats){0};
    }
}

/* >>lifetime ---------------------------------------------------------------------------------- */

rill_render_hlod *rill_render_hlod_create(const rill_render_hlod_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_render_hlod_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->renderer || !desc->world || !desc->stream || !desc->vfs) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_render_hlod_create: renderer, world, stream and vfs are required");
        return NULL;
    }
    rill_render_hlod *h = rill_calloc_tagged(1, sizeof *h, RILL_MEM_RENDER);
    if (!h) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_render_hlod_create: out of memory");
        return NULL;
    }
    h->desc = resolve(desc);
    h->desc.main_scene = NULL; /* the caller's string is not kept */
    h->instance = rill_scene_register(desc->world).instance;
    char path[1024];
    if (desc->main_scene && rill_hlod_path(path, sizeof path, desc->main_scene, 1)) {
        /* Level 1 is optional: a world without cells is not worth a warning. */
        if (rill_vfs_exists(desc->vfs, path)) {
            h->level1 = file_for(h, path, desc->main_scene);
        }
    }
    return h;
}

void rill_render_hlod_destroy(rill_render_hlod *h) {
    if (!h) {
        return;
    }
    if (h->desc.jobs) {
        rill_jobs_wait(h->desc.jobs, &h->loads);
    }
    for (uint32_t i = 0; i < h->files.len; i++) {
        proxy_file *f = h->files.data[i];
        free_parts(h->desc.renderer, f);
        free_preps(f, f->parsed ? f->parsed->part_count : 0u);
        rill_hlod_free(f->parsed);
        rill_map_free(&f->by_cell);
        rill_free(f->path);
        rill_free(f->scene);
        rill_free(f);
    }
    rill_array_free(&h->files);
    rill_map_free(&h->by_path);
    rill_map_free(&h->quiet_dirs);
    rill_array_free(&h->infos);
    rill_array_free(&h->cell_of);
    rill_array_free(&h->cell_w);
    rill_array_free(&h->cell_out);
    rill_array_free(&h->out);
    rill_array_free(&h->draws);
    rill_free(h);
}
