/* terrain_draw.c: draws the terrain system's resident chunks. Each resident chunk gets a GPU mesh
 * (uploaded once per chunk build, keyed by the build's version; the terrain's CPU copy is dropped
 * after the upload, and the renderer keeps none: terrain is picked through its heights) and every
 * terrain one splat material (weights, a 2 x 2 albedo atlas and a 2 x 2 normal atlas of its
 * layers). Chunks of one resolution draw with one shared GPU index buffer and one shared edge
 * buffer (the grid's cell sides: the wireframe pass draws them as lines). A chunk that streams out
 * has its mesh destroyed, so its GPU memory is freed once the frames in flight are done (the
 * shared buffers with the last chunk of their resolution).
 * rill_render_extract calls the sync and adds one opaque instance per chunk mesh, so the chunks
 * are culled, lit, shadowed and cast shadows like any mesh. */
#include "render_internal.h"

#include "rill/channels.h"
#include "rill/formats/image.h"
#include "rill/terrain.h"

#include <math.h>
#include <string.h>

#define LOGM "render"
#define RESOURCE_NAME "RenderTerrain"
#define ATLAS_CELL 256u /* texels of one layer in the atlases */

typedef struct chunk_gpu {
    rill_mesh mesh;
    uint64_t version;
} chunk_gpu;

/* The index buffer every chunk mesh of one resolution draws with: src is a live chunk mesh holding
 * it while users > 0. */
typedef struct ib_entry {
    uint32_t resolution, index_count, edge_index_count, users;
    rill_mesh src;
} ib_entry;

typedef struct terrain_gpu {
    rill_entity entity;
    uint32_t resolution;
    uint64_t look; /* hash of what the material is made from */
    rill_material material;
    rill_texture weights, albedo, normal;
    uint32_t chunks_x, chunks_z;
    chunk_gpu *chunks;
    uint32_t stamp;
} terrain_gpu;

struct rill_render_terrain {
    rill_renderer *renderer;
    rill_world *world;
    rill_terrain_system *terrain;
    rill_vfs *vfs;
    bool keep_cpu_meshes;
    RILL_ARRAY(ib_entry) ibs;
    rill_resource resource;
    rill_component comp;
    RILL_ARRAY(terrain_gpu *) terrains;
    RILL_ARRAY(rill_vertex) scratch;
    uint32_t stamp;
    rill_render_terrain_stats stats;
};

typedef struct terrain_resource {
    rill_render_terrain *rt;
} terrain_resource;

rill_render_terrain *rill__render_terrain_of(const rill_world *world) {
    rill_resource res = rill_world_find_resource(world, RESOURCE_NAME);
    const terrain_resource *tr = res.id ? rill_world_get_resource(world, res) : NULL;
    return tr ? tr->rt : NULL;
}

/* >>textures */

/* Bilinear resample of src into a cell x cell block of dst (row stride dst_w texels). */
static void blit_resampled(const rill_image *src, uint8_t *dst, uint32_t dst_w, uint32_t x0,
                           uint32_t y0, uint32_t cell) {
    const uint8_t *sp = src->pixels;
    for (uint32_t y = 0; y < cell; y++) {
        float fy = ((float)y + 0.5f) * (float)src->height / (float)cell - 0.5f;
        int32_t iy = (int32_t)floorf(fy);
        float ty = fy - (float)iy;
        uint32_t y_a = (uint32_t)RILL_CLAMP(iy, 0, (int32_t)src->height - 1);
        uint32_t y_b = (uint32_t)RILL_CLAMP(iy + 1, 0, (int32_t)src->height - 1);
        for (uint32_t x = 0; x < cell; x++) {
            float fx = ((float)x + 0.5f) * (float)src->width / (float)cell - 0.5f;
            int32_t ix = (int32_t)floorf(fx);
            float tx = fx - (float)ix;
            uint32_t x_a = (uint32_t)RILL_CLAMP(ix, 0, (int32_t)src->width - 1);
            uint32_t x_b = (uint32_t)RILL_CLAMP(ix + 1, 0, (int32_t)src->width - 1);
            uint8_t *d = &dst[((size_t)(y0 + y) * dst_w + x0 + x) * 4u];
            for (int c = 0; c < 4; c++) {
                float a = sp[((size_t)y_a * src->width + x_a) * 4u + c];
                float b = sp[((size_t)y_a * src->width + x_b) * 4u + c];
                float e = sp[((size_t)y_b * src->width + x_a) * 4u + c];
                float f = sp[((size_t)y_b * src->width + x_b) * 4u + c];
                float v = (a + (b - a) * tx) * (1.0f - ty) + (e + (f - e) * tx) * ty;
                d[c] = (uint8_t)RILL_CLAMP(v + 0.5f, 0.0f, 255.0f);
            }
        }
    }
}

/* A 2 x 2 atlas of the layers' textures (paths[i] of layer i; NULL or "" = the placeholder). A file
 * that cannot be read or decoded is a warning naming it; its layer draws with the placeholder.
 * Returns {0} when no layer names a texture (the material's own placeholder is used). */
static rill_texture make_atlas(rill_render_terrain *rt, rill_entity e, const char *const *paths,
                               uint32_t count, bool normals) {
    bool any = false;
    for (uint32_t i = 0; i < count; i++) {
        any |= paths[i] && paths[i][0];
    }
    rill_texture tex = {0};
    if (!any || !rt->vfs) {
        return tex;
    }
    uint32_t w = ATLAS_CELL * 2u;
    uint8_t *px = rill_malloc_tagged((size_t)w * w * 4u, RILL_MEM_RENDER);
    if (!px) {
        return tex;
    }
    const uint8_t fill[4] = {normals ? 128 : 255, normals ? 128 : 255, 255, 255};
    for (size_t i = 0; i < (size_t)w * w; i++) {
        memcpy(&px[i * 4u], fill, 4);
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!paths[i] || !paths[i][0]) {
            continue;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        rill_error err = {0};
        rill_image img;
        memset(&img, 0, sizeof img);
        rill_result r = rill_vfs_read_all(rt->vfs, paths[i], &data, &size, &err);
        if (r == RILL_OK) {
            r = rill_image_load(data, size, paths[i], RILL_PIXEL_RGBA8, &img, &err);
        }
        rill_free(data);
        if (r != RILL_OK) {
            RILL_LOG_WARN(LOGM, "terrain %u: layer %u %s: %s (drawn without it)",
                          RILL_ENTITY_INDEX(e), i, normals ? "normal map" : "albedo", err.msg);
            continue;
        }
        blit_resampled(&img, px, w, (i % 2u) * ATLAS_CELL, (i / 2u) * ATLAS_CELL, ATLAS_CELL);
        rill_image_free(&img);
    }
    rill_error err = {0};
    rill_texture_desc td = {.pixels = px,
                            .width = w,
                            .height = w,
                            .srgb = !normals,
                            .label = normals ? "terrain normal atlas" : "terrain albedo atlas"};
    tex = rill_render_texture_create(rt->renderer, &td, &err);
    if (!tex.id) {
        RILL_LOG_WARN(LOGM, "terrain %u: atlas: %s", RILL_ENTITY_INDEX(e), err.msg);
    }
    rill_free(px);
    return tex;
}

static uint64_t look_hash(const rill_terrain *c, const uint8_t *splat, uint32_t sw, uint32_t sh) {
    uint64_t h = rill_hash64(&c->layer_count, sizeof c->layer_count);
    h = rill_hash64_seed(c->layer_color, sizeof c->layer_color, h);
    h = rill_hash64_seed(c->layer_tile, sizeof c->layer_tile, h);
    /* Asset paths are interned: equal strings are equal pointers. */
    h = rill_hash64_seed(c->layer_albedo, sizeof c->layer_albedo, h);
    h = rill_hash64_seed(c->layer_normal, sizeof c->layer_normal, h);
    uintptr_t sp = (uintptr_t)splat;
    h = rill_hash64_seed(&sp, sizeof sp, h);
    uint32_t dims[2] = {sw, sh};
    return rill_hash64_seed(dims, sizeof dims, h);
}

static void drop_material(rill_render_terrain *rt, terrain_gpu *g) {
    rill_render_material_destroy(rt->renderer, g->material);
    rill_render_texture_destroy(rt->renderer, g->weights);
    rill_render_texture_destroy(rt->renderer, g->albedo);
    rill_render_texture_destroy(rt->renderer, g->normal);
    g->material.id = g->weights.id = g->albedo.id = g->normal.id = 0;
}

static void make_material(rill_render_terrain *rt, terrain_gpu *g, const rill_terrain *c) {
    uint32_t sw = 0, sh = 0;
    const uint8_t *splat = rill_terrain_splat_map(rt->terrain, g->entity, &sw, &sh);
    uint64_t look = look_hash(c, splat, sw, sh);
    if (g->material.id && look == g->look) {
        return;
    }
    drop_material(rt, g);
    g->look = look;
    static const uint8_t layer0[4] = {255, 0, 0, 0}; /* no weight map: all on layer 0 */
    rill_texture_desc wd = {.pixels = splat ? splat : layer0,
                            .width = splat ? sw : 1,
                            .height = splat ? sh : 1,
                            .srgb = false,
                            .label = "terrain weights"};
    rill_error err = {0};
    g->weights = rill_render_texture_create(rt->renderer, &wd, &err);
    uint32_t layers = RILL_MIN(c->layer_count, (uint32_t)RILL_TERRAIN_MAX_LAYERS);
    g->albedo = make_atlas(rt, g->entity, c->layer_albedo, layers, false);
    g->normal = make_atlas(rt, g->entity, c->layer_normal, layers, true);
    rill_material_desc md = {.kind = RILL_MATERIAL_TERRAIN,
                             .roughness = 0.9f,
                             .splat_weights = g->weights,
                             .layer_albedo_atlas = g->albedo,
                             .layer_normal_atlas = g->normal,
                             .layer_count = layers ? layers : 1,
                             .label = "terrain"};
    memcpy(md.layer_color, c->layer_color, sizeof md.layer_color);
    memcpy(md.layer_tile, c->layer_tile, sizeof md.layer_tile);
    g->material = rill_render_material_create(rt->renderer, &md, &err);
    if (!g->material.id) {
        RILL_LOG_WARN(LOGM, "terrain %u: material: %s", RILL_ENTITY_INDEX(g->entity), err.msg);
    }
}

/* >>chunks */

static ib_entry *find_ib(rill_render_terrain *rt, uint32_t resolution) {
    for (uint32_t i = 0; i < rt->ibs.len; i++) {
        if (rt->ibs.data[i].resolution == resolution) {
            return &rt->ibs.data[i];
        }
    }
    return NULL;
}

/* Another live chunk mesh of this resolution than `not`, to hold the shared index buffer. */
static rill_mesh other_src(const rill_render_terrain *rt, uint32_t resolution, rill_mesh not ) {
    for (uint32_t t = 0; t < rt->terrains.len; t++) {
        const terrain_gpu *g = rt->terrains.data[t];
        for (uint32_t i = 0; g->resolution == resolution && i < g->chunks_x * g->chunks_z; i++) {
            if (g->chunks[i].mesh.id && g->chunks[i].mesh.id != not .id) {
                return g->chunks[i].mesh;
            }
        }
    }
    return (rill_mesh){0};
}

static void update_ib_stats(rill_render_terrain *rt) {
    rt->stats.index_buffers = 0;
    rt->stats.index_bytes = rt->stats.edge_bytes = 0;
    for (uint32_t i = 0; i < rt->ibs.len; i++) {
        if (rt->ibs.data[i].users) {
            rt->stats.index_buffers++;
            rt->stats.index_bytes += (uint64_t)rt->ibs.data[i].index_count * sizeof(uint32_t);
            rt->stats.edge_bytes += (uint64_t)rt->ibs.data[i].edge_index_count * sizeof(uint32_t);
        }
    }
}

static void release_chunk(rill_render_terrain *rt, terrain_gpu *g, uint32_t i) {
    chunk_gpu *c = &g->chunks[i];
    if (!c->mesh.id) {
        return;
    }
    ib_entry *ib = find_ib(rt, g->resolution);
    if (ib && ib->users) {
        ib->users--;
        if (ib->src.id == c->mesh.id) {
            ib->src = ib->users ? other_src(rt, g->resolution, c->mesh) : (rill_mesh){0};
        }
    }
    rill_render_mesh_destroy(rt->renderer, c->mesh);
    rt->stats.vertex_bytes -= (uint64_t)g->resolution * g->resolution * sizeof(rill_vertex);
    c->mesh.id = 0;
    c->version = 0;
    rt->stats.meshes--;
    rt->stats.releases++;
    update_ib_stats(rt);
}

static void upload_chunk(rill_render_terrain *rt, terrain_gpu *g, uint32_t i,
                         const rill_terrain_chunk_mesh *m, const rill_terrain_info *info) {
    release_chunk(rt, g, i);
    if (!m->vertices) {
        /* Its CPU copy went with an earlier upload (another terrain renderer): build it again. */
        rill_terrain_chunk_refresh(rt->terrain, g->entity, i % g->chunks_x, i / g->chunks_x);
        return;
    }
    ib_entry *ib = find_ib(rt, g->resolution);
    if (!ib) {
        ib_entry fresh = {.resolution = g->resolution};
        if (!rill_array_push(&rt->ibs, fresh)) {
            return;
        }
        ib = &rill_array_last(&rt->ibs);
    }
    /* A live holder of this resolution's index buffer, else this chunk uploads one and holds it. */
    rill_mesh share = {0};
    if (ib->users && rill_render_mesh_info(rt->renderer, ib->src, NULL, NULL, NULL)) {
        share = ib->src;
    }
    rill_array_clear(&rt->scratch);
    rill_vertex *v = rill_array_push_n(&rt->scratch, m->vertex_count);
    if (!v) {
        return;
    }
    float sx = info->chunk_size * (float)info->chunks_x,
          sz = info->chunk_size * (float)info->chunks_z;
    for (uint32_t k = 0; k < m->vertex_count; k++) {
        const float *s = &m->vertices[k * 6u];
        memcpy(v[k].position, s, sizeof(float) * 3);
        memcpy(v[k].normal, s + 3, sizeof(float) * 3);
        v[k].uv[0] = (s[0] - info->origin[0]) / sx;
        v[k].uv[1] = (s[2] - info->origin[2]) / sz;
        memset(v[k].tangent, 0, sizeof v[k].tangent);
    }
    /* The first chunk of a resolution uploads the indices and edges; the others share both. */
    rill_mesh_desc md = {.vertices = v,
                         .vertex_count = m->vertex_count,
                         .indices = m->indices,
                         .index_count = m->index_count,
                         .label = "terrain chunk",
                         .edge_indices = share.id ? NULL : m->edge_indices,
                         .edge_index_count = share.id ? 0 : m->edge_index_count,
                         .share_indices = share,
                         .gpu_only = true};
    rill_error err = {0};
    rill_mesh mesh = rill_render_mesh_create(rt->renderer, &md, &err);
    if (!mesh.id) {
        RILL_LOG_WARN(LOGM, "terrain %u: chunk %u: %s", RILL_ENTITY_INDEX(g->entity), i, err.msg);
        return;
    }
    if (!share.id) {
        ib->src = mesh;
        ib->index_count = m->index_count;
        ib->edge_index_count = m->edge_index_count;
    }
    /* The voxel GI's copy of the chunk's triangles (the GPU mesh keeps none). */
    if (!rill__mesh_keep_vox_source_strided(rt->renderer, mesh, m->vertices, sizeof(float) * 6u,
                                            m->vertex_count, m->indices, m->index_count, 1.0f)) {
        RILL_LOG_WARN(LOGM, "terrain %u: chunk %u: out of memory for its voxel copy",
                      RILL_ENTITY_INDEX(g->entity), i);
    }
    ib->users++;
    g->chunks[i].mesh = mesh;
    g->chunks[i].version = m->version;
    rt->stats.meshes++;
    rt->stats.uploads++;
    rt->stats.vertex_bytes += (uint64_t)m->vertex_count * sizeof(rill_vertex);
    update_ib_stats(rt);
    /* The GPU copy is the one that draws: the terrain's CPU vertices can go. */
    if (!rt->keep_cpu_meshes) {
        rill_terrain_chunk_drop_mesh(rt->terrain, g->entity, i % g->chunks_x, i / g->chunks_x);
    }
}

static void free_terrain(rill_render_terrain *rt, terrain_gpu *g) {
    for (uint32_t i = 0; i < g->chunks_x * g->chunks_z; i++) {
        release_chunk(rt, g, i);
    }
    drop_material(rt, g);
    rill_free(g->chunks);
    rill_free(g);
}

static terrain_gpu *find(rill_render_terrain *rt, rill_entity e) {
    for (uint32_t i = 0; i < rt->terrains.len; i++) {
        if (rt->terrains.data[i]->entity == e) {
            return rt->terrains.data[i];
        }
    }
    return NULL;
}

static void sync_terrain(rill_render_terrain *rt, rill_entity e, const rill_terrain *c) {
    rill_terrain_info info;
    if (!rill_terrain_get_info(rt->terrain, e, &info) || info.status != RILL_TERRAIN_STATUS_READY) {
        return;
    }
    terrain_gpu *g = find(rt, e);
    if (g && (g->chunks_x != info.chunks_x || g->chunks_z != info.chunks_z ||
              g->resolution != info.resolution)) {
        for (uint32_t i = 0; i < rt->terrains.len; i++) {
            if (rt->terrains.data[i] == g) {
                rill_array_swap_remove(&rt->terrains, i);
            }
        }
        free_terrain(rt, g);
        g = NULL;
    }
    if (!g) {
        g = rill_calloc_tagged(1, sizeof *g, RILL_MEM_RENDER);
        if (g) {
            g->chunks = rill_calloc_tagged((size_t)info.chunks_x * info.chunks_z, sizeof(chunk_gpu),
                                           RILL_MEM_RENDER);
        }
        if (!g || !g->chunks || !rill_array_push(&rt->terrains, g)) {
            if (g) {
                rill_free(g->chunks);
            }
            rill_free(g);
            return;
        }
        g->entity = e;
        g->resolution = info.resolution;
        g->chunks_x = info.chunks_x;
        g->chunks_z = info.chunks_z;
    }
    g->stamp = rt->stamp;
    make_material(rt, g, c);
    for (uint32_t cz = 0; cz < info.chunks_z; cz++) {
        for (uint32_t cx = 0; cx < info.chunks_x; cx++) {
            uint32_t i = cz * info.chunks_x + cx;
            rill_terrain_chunk_mesh m;
            if (!rill_terrain_chunk_get_mesh(rt->terrain, e, cx, cz, &m)) {
                release_chunk(rt, g, i); /* streamed out: its GPU memory goes */
            } else if (g->chunks[i].version != m.version || !g->chunks[i].mesh.id) {
                upload_chunk(rt, g, i, &m, &info);
            }
        }
    }
}

void rill_render_terrain_update(rill_render_terrain *rt) {
    if (!rt) {
        return;
    }
    rt->stamp++;
    rill_query_desc qd = {.with = {rt->comp}};
    rill_query q = rill_world_query(rt->world, &qd);
    while (rill_query_next(&q)) {
        sync_terrain(rt, q.entity, rill_query_get(&q, 0));
    }
    for (uint32_t i = 0; i < rt->terrains.len;) {
        terrain_gpu *g = rt->terrains.data[i];
        if (g->stamp != rt->stamp) {
            free_terrain(rt, g);
            rill_array_swap_remove(&rt->terrains, i);
        } else {
            i++;
        }
    }
    rt->stats.terrains = rt->terrains.len;
}

bool rill__render_terrain_extract(rill_render_terrain *rt, rill_render_extract_buf *buf) {
    rill_render_terrain_update(rt);
    for (uint32_t t = 0; t < rt->terrains.len; t++) {
        const terrain_gpu *g = rt->terrains.data[t];
        if (!g->material.id) {
            continue;
        }
        /* The terrain entity's channels, resolved like any instance's: every chunk draws so. */
        float opacity = 1.0f;
        rill_render_mode mode = rill_channels_resolve(
            buf->channel_modes, rill_channels_get(rt->world, g->entity), &opacity);
        if (mode == RILL_RENDER_MODE_HIDDEN) {
            continue;
        }
        for (uint32_t i = 0; i < g->chunks_x * g->chunks_z; i++) {
            if (!g->chunks[i].mesh.id) {
                continue;
            }
            rill_render_instance in;
            memset(&in, 0, sizeof in);
            uint64_t key[2] = {g->entity, i};
            in.id = rill_hash64(key, sizeof key) | 1u; /* stable across frames: motion vectors */
            in.mesh = g->chunks[i].mesh;
            in.material = g->material;
            rill_mat4_identity(in.transform); /* chunk vertices are in world space */
            in.mode = mode;
            in.ghost_opacity = opacity;
            if (!rill_array_push(&buf->instances, in)) {
                return false;
            }
        }
    }
    return true;
}

/* >>life cycle */

rill_render_terrain *rill_render_terrain_create(const rill_render_terrain_desc *desc,
                                                rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_render_terrain_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->renderer || !desc->world || !desc->terrain) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_render_terrain_create: renderer, world and terrain are required");
        return NULL;
    }
    if (rill__render_terrain_of(desc->world)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_render_terrain_create: the world already has a terrain renderer");
        return NULL;
    }
    rill_type_desc td = {.name = RESOURCE_NAME,
                         RILL_TYPE_LAYOUT(terrain_resource),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .doc = "the renderer's GPU copies of terrain chunks (runtime only)"};
    rill_resource res = rill_world_register_resource(desc->world, &td);
    rill_render_terrain *rt = res.id ? rill_calloc_tagged(1, sizeof *rt, RILL_MEM_RENDER) : NULL;
    if (!rt) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_render_terrain_create: out of memory");
        return NULL;
    }
    rt->renderer = desc->renderer;
    rt->world = desc->world;
    rt->terrain = desc->terrain;
    rt->vfs = desc->vfs;
    rt->keep_cpu_meshes = desc->keep_cpu_meshes;
    rt->resource = res;
    rt->comp = rill_terrain_register(desc->world);
    terrain_resource tr = {rt};
    if (!rt->comp.id || !rill_world_set_resource(desc->world, res, &tr)) {
        rill_free(rt);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_render_terrain_create: out of memory");
        return NULL;
    }
    /* A terrain is renderable: it gets scene channels (context by default) like a model. */
    if (rill_channels_watch(desc->world, rt->comp, err) != RILL_OK) {
        rill_world_set_resource(desc->world, res, &(terrain_resource){NULL});
        rill_free(rt);
        return NULL;
    }
    return rt;
}

void rill_render_terrain_destroy(rill_render_terrain *rt) {
    if (!rt) {
        return;
    }
    for (uint32_t i = 0; i < rt->terrains.len; i++) {
        free_terrain(rt, rt->terrains.data[i]);
    }
    rill_array_free(&rt->terrains);
    rill_array_free(&rt->scratch);
    rill_array_free(&rt->ibs);
    rill_world_remove_resource(rt->world, rt->resource);
    rill_free(rt);
}

void rill_render_terrain_get_stats(const rill_render_terrain *rt, rill_render_terrain_stats *out) {
    memset(out, 0, sizeof *out);
    if (rt) {
        *out = rt->stats;
    }
}
