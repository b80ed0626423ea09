/* model_assets.c: rill_render_assets (rill/render.h), the cache that turns the glTF assets named
 * by ModelMesh components into GPU models, one upload per asset. Entries are keyed by asset id;
 * each holds its own asset reference, the upload, and per glTF mesh the index of its first GPU
 * mesh (rill_render_model_create makes one GPU mesh per primitive in (mesh, primitive) order), so
 * resolving a ModelMesh is two lookups. */
#include "model_assets.h"
#include "texture_stream.h"
#include "texture_users.h"

#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOGM "render"
#define RESOURCE_NAME "RenderAssets"

typedef struct asset_entry {
    rill_asset asset; /* one reference held while the entry exists */
    bool failed;      /* upload failed (warned once); kept so it is not retried every frame */
    rill_render_model gpu;
    const rill_gltf_model *model; /* the payload (alive while the reference is held) */
    uint32_t *mesh_first;         /* mesh_count + 1 entries */
    uint32_t *tex_slot;           /* per glTF texture: its shared texture (texture_stream.h) */
    uint32_t *ts_mat;             /* per glTF material + the default one: texstream id */
    uint64_t last_used;
    uint32_t slot;      /* index in entries */
    bool idle;          /* in the idle list: no ModelMesh names it */
    uint32_t level;     /* LOD level from the path (_lodN) */
    uint64_t *mat_hash; /* per material (material_count + 1, the default last): its content */
} asset_entry;

/* The texture users' slice per update (main-thread time; texture_users.c). */
#define USERS_BUDGET_NS 1000000u
#define HEAT_NUM 4 /* full, low, swapping, not streamed */

struct rill_render_assets {
    rill_renderer *renderer;
    rill_asset_server *assets;
    rill_world *world;
    rill_resource resource;
    rill_model_components mc;
    uint32_t release_delay;
    uint64_t tick;
    RILL_ARRAY(asset_entry *) entries;
    rill_map entry_of; /* asset id -> asset_entry * */
    /* What the ModelMesh components name, kept by world observers (see "names" below). */
    rill_map named;                 /* asset id -> how many ModelMesh components name it */
    RILL_ARRAY(uint32_t) wanted;    /* named assets without an entry: uploaded once loaded */
    RILL_ARRAY(asset_entry *) idle; /* entries nothing names: released after release_delay */
    /* The last lookup: a model's primitives come in runs, so most extract lookups repeat it.
     * Cleared whenever an entry is freed. */
    uint32_t last_id;
    asset_entry *last;
    rill_render_assets_stats stats;
    /* texture streaming */
    rill__tsc *tsc;
    rill__tex_users *users;
    uint64_t stream_ns_last, stream_ns_max; /* users + carrier update */
    uint64_t stream_cpu_ns_last;            /* its thread CPU time */
    bool heatmap;
    rill_material heat[HEAT_NUM];
    rill__batcher *batcher;
    /* Material content -> the first uploaded material with it (asset id << 32 | index), so
     * static batches of equal materials from different assets (LOD levels, models sharing
     * textures) share one material and draw together. */
    rill_map canon;
};

static bool observe_names(rill_render_assets *ra);

/* The world resource holds only the pointer. */
typedef struct assets_resource {
    rill_render_assets *ra;
} assets_resource;

rill_render_assets *rill__render_assets_of(const rill_world *world) {
    rill_resource res = rill_world_find_resource(world, RESOURCE_NAME);
    const assets_resource *ar = res.id ? rill_world_get_resource(world, res) : NULL;
    return ar ? ar->ra : NULL;
}

rill_asset_server *rill__render_assets_server(const rill_render_assets *ra) {
    return ra ? ra->assets : NULL;
}

rill_render_assets *rill__render_assets_at(const rill_world *world, uint32_t resource) {
    const assets_resource *ar = rill_world_get_resource(world, (rill_resource){resource});
    return ar ? ar->ra : NULL;
}

rill_render_assets *rill_render_assets_create(const rill_render_assets_desc *desc,
                                              rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_render_assets_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->renderer || !desc->assets || !desc->world) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_render_assets_create: renderer, asset server and world are required");
        return NULL;
    }
    if (rill__render_assets_of(desc->world)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_render_assets_create: the world already has render assets");
        return NULL;
    }
    rill_type_desc td = {.name = RESOURCE_NAME,
                         RILL_TYPE_LAYOUT(assets_resource),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .doc = "the renderer's cache of uploaded model assets (runtime only)"};
    rill_model_components mc;
    rill_asset_loader rmip = rill_rmip_loader(); /* texture streaming loads "x.rmip[#low]" */
    if (rill_scene_model_register(desc->world, &mc, err) != RILL_OK ||
        rill_asset_server_register_loader(desc->assets, &rmip, err) != RILL_OK) {
        return NULL;
    }
    rill_resource res = rill_world_register_resource(desc->world, &td);
    rill_render_assets *ra = res.id ? rill_calloc_tagged(1, sizeof(*ra), RILL_MEM_RENDER) : NULL;
    if (!ra) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_render_assets_create: out of memory");
        return NULL;
    }
    ra->renderer = desc->renderer;
    ra->assets = desc->assets;
    ra->world = desc->world;
    ra->resource = res;
    ra->mc = mc;
    ra->release_delay = desc->release_delay_frames ? desc->release_delay_frames : 2;
    rill_texstream_settings ts =
        desc->texture_streaming ? *desc->texture_streaming : rill_texstream_settings_default();
    ra->tsc = rill__tsc_create(desc->renderer, desc->assets, desc->world, &ts);
    ra->batcher = rill__batch_create(desc->renderer, ra, res.id);
    ra->users = ra->tsc ? rill__tex_users_create(ra, desc->renderer, desc->world, &mc, res.id,
                                                 rill__tsc_decisions(ra->tsc))
                        : NULL;
    assets_resource ar = {ra};
    if (!ra->tsc || !ra->batcher || !ra->users || !rill_world_set_resource(desc->world, res, &ar)) {
        rill__tex_users_destroy(ra->users);
        rill__tsc_destroy(ra->tsc);
        rill__batch_destroy(ra->batcher);
        rill_free(ra);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_render_assets_create: out of memory");
        return NULL;
    }
    if (!observe_names(ra)) {
        rill_render_assets_destroy(ra);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                       "rill_render_assets_create: cannot observe ModelMesh");
        return NULL;
    }
    return ra;
}

static void drop_canon(rill_render_assets *ra, asset_entry *e) {
    for (uint32_t i = 0; e->mat_hash && e->model && i <= e->model->material_count; i++) {
        uint64_t v = 0;
        if (rill_map_get(&ra->canon, e->mat_hash[i], &v) &&
            v == (((uint64_t)e->asset.id << 32) | i)) {
            rill_map_remove(&ra->canon, e->mat_hash[i]);
        }
    }
    rill_free(e->mat_hash);
    e->mat_hash = NULL;
}

static void free_entry(rill_render_assets *ra, asset_entry *e) {
    if (ra->last == e) {
        ra->last = NULL;
        ra->last_id = 0;
    }
    if (e->tex_slot && e->ts_mat && e->model) {
        rill__tsc_remove_model(ra->tsc, &e->gpu, e->tex_slot, e->model->texture_count, e->ts_mat,
                               e->model->material_count + 1);
    }
    rill_free(e->tex_slot);
    rill_free(e->ts_mat);
    drop_canon(ra, e);
    if (e->gpu.meshes) {
        /* The renderer defers the GPU frees until the frames in flight are done. */
        rill_render_model_destroy(ra->renderer, &e->gpu);
        ra->stats.unloads++;
    }
    rill_asset_release(ra->assets, e->asset);
    rill_map_remove(&ra->entry_of, e->asset.id);
    rill_free(e->mesh_first);
    rill_free(e);
}

void rill_render_assets_destroy(rill_render_assets *ra) {
    if (!ra) {
        return;
    }
    rill__batch_destroy(ra->batcher); /* its meshes first: they use the entries' materials */
    for (uint32_t i = 0; i < ra->entries.len; i++) {
        free_entry(ra, ra->entries.data[i]);
    }
    rill_array_free(&ra->entries);
    rill_map_free(&ra->entry_of);
    rill_map_free(&ra->named);
    rill_array_free(&ra->wanted);
    rill_array_free(&ra->idle);
    rill__tex_users_destroy(ra->users);
    for (int i = 0; i < HEAT_NUM; i++) {
        rill_render_material_destroy(ra->renderer, ra->heat[i]);
    }
    rill__tsc_destroy(ra->tsc);
    rill_map_free(&ra->canon);
    rill_world_remove_resource(ra->world, ra->resource);
    rill_free(ra);
}

/* Uploads e's model (taking the textures other models already uploaded for the same images), its
 * new textures at "#low" while texture streaming is on, and registers them with the streamer. */
static rill_result create_streamed(rill_render_assets *ra, asset_entry *e, const char *path,
                                   rill_error *err) {
    const rill_gltf_model *m = e->model;
    rill__tex_origin *origins =
        rill_calloc_tagged(m->texture_count + 1, sizeof *origins, RILL_MEM_RENDER);
    e->tex_slot = rill_calloc_tagged(m->texture_count + 1, sizeof(uint32_t), RILL_MEM_RENDER);
    e->ts_mat = rill_calloc_tagged(m->material_count + 1, sizeof(uint32_t), RILL_MEM_RENDER);
    if (!origins || !e->tex_slot || !e->ts_mat) {
        rill_free(origins);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
    }
    rill__tex_share share = {rill__tsc_find, ra->tsc};
    rill_result res = rill__render_model_create_streamed(
        ra->renderer, m, rill_asset_server_vfs(ra->assets), path, &share,
        rill__tsc_start_low(ra->tsc), origins, &e->gpu, err);
    if (res == RILL_OK) {
        rill__tsc_add_model(ra->tsc, m, &e->gpu, origins, e->tex_slot, e->ts_mat);
    }
    for (uint32_t t = 0; t < m->texture_count; t++) {
        rill_free(origins[t].path); /* the ones the streamer took are NULL */
    }
    rill_free(origins);
    if (res != RILL_OK) {
        rill_free(e->tex_slot);
        rill_free(e->ts_mat);
        e->tex_slot = e->ts_mat = NULL;
    }
    return res;
}

/* One texture reference's part of a material's content: the image by its resolved path (an
 * embedded image by its asset and index: never shared), the sampler and the reference itself. */
static uint64_t texref_hash(const rill_gltf_model *m, const rill_gltf_texref *t, const char *dir,
                            uint32_t asset_id, uint64_t h) {
    if (t->texture < 0 || (uint32_t)t->texture >= m->texture_count) {
        return rill_hash64_seed("none", 4, h);
    }
    const rill_gltf_texture *tx = &m->textures[t->texture];
    if (tx->image >= 0 && (uint32_t)tx->image < m->image_count && m->images[tx->image].uri) {
        h = rill_hash64_seed(dir, strlen(dir), h);
        h = rill_hash64_str(m->images[tx->image].uri) ^ (h * 0x9E3779B97F4A7C15ull);
    } else {
        uint32_t id[2] = {asset_id, (uint32_t)tx->image};
        h = rill_hash64_seed(id, sizeof(id), h);
    }
    if (tx->sampler >= 0 && (uint32_t)tx->sampler < m->sampler_count) {
        const rill_gltf_sampler *s = &m->samplers[tx->sampler];
        uint32_t sv[4] = {s->mag_filter, s->min_filter, s->wrap_s, s->wrap_t};
        h = rill_hash64_seed(sv, sizeof(sv), h);
    }
    float tv[6] = {t->scale,    t->offset[0],   t->offset[1],
                   t->rotation, t->uv_scale[0], t->uv_scale[1]};
    uint32_t iv[3] = {t->texcoord, (uint32_t)t->has_transform, (uint32_t)t->transform_texcoord};
    h = rill_hash64_seed(tv, sizeof(tv), h);
    return rill_hash64_seed(iv, sizeof(iv), h);
}

/* Content hashes of an upload's materials (the default material last), and the canonical
 * material of each content not seen before. */
static void hash_materials(rill_render_assets *ra, asset_entry *e, const char *path) {
    const rill_gltf_model *m = e->model;
    e->mat_hash = rill_calloc_tagged(m->material_count + 1u, sizeof(uint64_t), RILL_MEM_RENDER);
    if (!e->mat_hash) {
        return; /* no sharing for this asset */
    }
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
    } else {
        dir[0] = 0;
    }
    for (uint32_t i = 0; i <= m->material_count; i++) {
        uint64_t h = rill_hash64_str("rill material");
        if (i < m->material_count) {
            const rill_gltf_material *mt = &m->materials[i];
            float fv[12] = {
                mt->base_color_factor[0], mt->base_color_factor[1], mt->base_color_factor[2],
                mt->base_color_factor[3], mt->metallic_factor,      mt->roughness_factor,
                mt->emissive_factor[0],   mt->emissive_factor[1],   mt->emissive_factor[2],
                mt->alpha_cutoff,         mt->normal_texture.scale, mt->occlusion_texture.scale};
            /* The lighting extensions too: two materials differing only there are not one. */
            float xv[28] = {mt->emissive_strength,
                            mt->ior,
                            mt->specular_factor,
                            mt->specular_color_factor[0],
                            mt->specular_color_factor[1],
                            mt->specular_color_factor[2],
                            mt->clearcoat_factor,
                            mt->clearcoat_roughness_factor,
                            mt->clearcoat_normal_texture.scale,
                            mt->transmission_factor,
                            mt->thickness_factor,
                            mt->attenuation_distance,
                            mt->attenuation_color[0],
                            mt->attenuation_color[1],
                            mt->attenuation_color[2],
                            (float)mt->has_volume,
                            mt->has_sheen ? mt->sheen_color_factor[0] : 0.0f,
                            mt->has_sheen ? mt->sheen_color_factor[1] : 0.0f,
                            mt->has_sheen ? mt->sheen_color_factor[2] : 0.0f,
                            mt->has_sheen ? mt->sheen_roughness_factor : 0.0f,
                            mt->iridescence_factor,
                            mt->iridescence_ior,
                            mt->iridescence_thickness_min,
                            mt->iridescence_thickness_max,
                            mt->anisotropy_strength,
                            mt->anisotropy_rotation,
                            mt->dispersion,
                            0.0f};
            uint32_t iv[4] = {(uint32_t)mt->alpha_mode, (uint32_t)mt->double_sided,
                              (uint32_t)mt->unlit, (uint32_t)mt->has_specular};
            h = rill_hash64_seed(fv, sizeof(fv), h);
            h = rill_hash64_seed(xv, sizeof(xv), h);
            h = rill_hash64_seed(iv, sizeof(iv), h);
            const rill_gltf_texref *refs[RILL_MATERIAL_TEX_NUM];
            rill__model_material_refs(mt, refs);
            for (int k = 0; k < RILL_MATERIAL_TEX_NUM; k++) {
                h = texref_hash(m, refs[k], dir, e->asset.id, h);
            }
        }
        e->mat_hash[i] = h;
        uint64_t v = 0;
        if (!rill_map_get(&ra->canon, h, &v)) {
            rill_map_set(&ra->canon, h, ((uint64_t)e->asset.id << 32) | i);
        }
    }
}

/* >>names: how many ModelMesh components name each asset, kept by world observers (the ModelMesh
 * add and remove hooks). An entry lives while anything names it; one nothing names is idle and
 * goes release_delay updates after its last use (a name or a lookup). So the update's work follows
 * what changed, not how many ModelMesh entities exist. ModelMesh is written only through
 * rill_world_add (the observers see every change). ------------------------------------------- */

static uint64_t names_of(const rill_render_assets *ra, uint32_t asset_id) {
    uint64_t n = 0;
    rill_map_get(&ra->named, asset_id, &n);
    return n;
}

static asset_entry *entry_of(const rill_render_assets *ra, uint32_t asset_id) {
    uint64_t v = 0;
    return rill_map_get(&ra->entry_of, asset_id, &v) ? (asset_entry *)(uintptr_t)v : NULL;
}

/* Out of memory leaves the entry alive until destroy: never released while used. */
static void mark_idle(rill_render_assets *ra, asset_entry *e) {
    if (!e->idle && rill_array_push(&ra->idle, e)) {
        e->idle = true;
    }
}

static void name_asset(rill_render_assets *ra, uint32_t asset_id) {
    uint64_t n = names_of(ra, asset_id);
    if (rill_map_set(&ra->named, asset_id, n + 1u) && n == 0 && !entry_of(ra, asset_id)) {
        rill_array_push(&ra->wanted, asset_id); /* out of memory: extract uploads it */
    }
}

static void unname_asset(rill_render_assets *ra, uint32_t asset_id) {
    uint64_t n = names_of(ra, asset_id);
    if (n > 1u) {
        rill_map_set(&ra->named, asset_id, n - 1u);
        return;
    }
    asset_entry *e = n ? entry_of(ra, asset_id) : NULL;
    rill_map_remove(&ra->named, asset_id);
    if (e) {
        e->last_used = ra->tick;
        mark_idle(ra, e);
    }
}

/* The observers find the cache through its world resource (the id is their user pointer), so a
 * destroyed cache is never reached and a new one in the same world reuses them. */
static void on_mesh_named(rill_world *w, rill_entity ent, void *data, void *user) {
    rill_render_assets *ra = rill__render_assets_at(w, (uint32_t)(uintptr_t)user);
    uint32_t id = ((const rill_model_mesh *)data)->asset;
    if (ra && id) {
        name_asset(ra, id);
    }
    if (ra) {
        rill__tex_users_mesh_added(ra->users, ent);
    }
}

static void on_mesh_unnamed(rill_world *w, rill_entity ent, void *data, void *user) {
    rill_render_assets *ra = rill__render_assets_at(w, (uint32_t)(uintptr_t)user);
    uint32_t id = ((const rill_model_mesh *)data)->asset;
    if (ra && id) {
        unname_asset(ra, id);
    }
    if (ra) {
        rill__tex_users_mesh_removed(ra->users, ent);
    }
}

/* Installs the observers and counts the ModelMesh components that exist already (and queues
 * them for the texture users). */
static bool observe_names(rill_render_assets *ra) {
    void *user = (void *)(uintptr_t)ra->resource.id;
    if (!rill_world_observe_add(ra->world, ra->mc.model_mesh, on_mesh_named, user) ||
        !rill_world_observe_remove(ra->world, ra->mc.model_mesh, on_mesh_unnamed, user)) {
        return false;
    }
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(ra->world, ra->mc.model_mesh, &ents, &data);
    const rill_model_mesh *mms = data;
    for (uint32_t i = 0; i < n; i++) {
        if (mms[i].asset) {
            name_asset(ra, mms[i].asset);
        }
        rill__tex_users_mesh_added(ra->users, ents[i]);
    }
    return true;
}

/* N for a path whose file name ends "_lodN.<ext>", else 0. */
static uint32_t lod_level_of(const char *path) {
    const char *dot = strrchr(path, '.'), *l = dot;
    while (l && l > path && l[-1] >= '0' && l[-1] <= '9') {
        l--;
    }
    if (!dot || l == dot || l - path < 4 || strncmp(l - 4, "_lod", 4) != 0 || dot - l > 2) {
        return 0;
    }
    return (uint32_t)strtoul(l, NULL, 10);
}

/* Uploads a LOADED glTF asset into a new entry. NULL while it is not loaded (or out of memory). */
static asset_entry *upload(rill_render_assets *ra, rill_asset asset) {
    if (rill_asset_get_state(ra->assets, asset) != RILL_ASSET_STATE_LOADED) {
        return NULL;
    }
    asset_entry *e = rill_calloc_tagged(1, sizeof(*e), RILL_MEM_RENDER);
    if (!e) {
        return NULL;
    }
    e->slot = ra->entries.len;
    if (!rill_array_push(&ra->entries, e)) {
        rill_free(e);
        return NULL;
    }
    if (!rill_map_set(&ra->entry_of, asset.id, (uint64_t)(uintptr_t)e)) {
        ra->entries.len--;
        rill_free(e);
        return NULL;
    }
    e->asset = asset;
    rill_asset_retain(ra->assets, asset);
    e->last_used = ra->tick;
    rill_asset_info info;
    memset(&info, 0, sizeof(info));
    rill_asset_get_info(ra->assets, asset, &info);
    const char *path = info.path ? info.path : "?";
    e->level = lod_level_of(path);
    e->model = rill_asset_get_payload_as(ra->assets, asset, RILL_GLTF_ASSET_LOADER);
    rill_error err = {0};
    if (!e->model) {
        RILL_LOG_WARN(LOGM, "%s: not a glTF model; its ModelMesh entities draw nothing", path);
        e->failed = true;
    } else if (!(e->mesh_first = rill_calloc_tagged(e->model->mesh_count + 1, sizeof(uint32_t),
                                                    RILL_MEM_RENDER)) ||
               create_streamed(ra, e, path, &err) != RILL_OK) {
        RILL_LOG_WARN(LOGM, "%s: upload failed, nothing is drawn: %s", path,
                      err.msg[0] ? err.msg : "out of memory");
        e->failed = true;
    } else {
        uint32_t first = 0;
        for (uint32_t i = 0; i < e->model->mesh_count; i++) {
            e->mesh_first[i] = first;
            first += e->model->meshes[i].primitive_count;
        }
        e->mesh_first[e->model->mesh_count] = first;
        ra->stats.uploads++;
        hash_materials(ra, e, path);
    }
    ra->stats.failures += e->failed;
    if (names_of(ra, asset.id) == 0) {
        mark_idle(ra, e); /* looked up through the API only */
    }
    return e;
}

static asset_entry *lookup(rill_render_assets *ra, uint32_t asset_id) {
    if (asset_id && asset_id == ra->last_id) {
        ra->last->last_used = ra->tick;
        return ra->last;
    }
    uint64_t v = 0;
    if (rill_map_get(&ra->entry_of, asset_id, &v)) {
        asset_entry *e = (asset_entry *)(uintptr_t)v;
        e->last_used = ra->tick;
        ra->last_id = asset_id;
        ra->last = e;
        return e;
    }
    rill_asset a = {asset_id};
    return asset_id ? upload(ra, a) : NULL;
}

const rill_render_model *rill_render_assets_model(rill_render_assets *ra, rill_asset asset) {
    asset_entry *e = ra ? lookup(ra, asset.id) : NULL;
    return e && !e->failed ? &e->gpu : NULL;
}

/* The glTF material index mm draws with in model m (its primitive's in mm's material variant;
 * material_count = the default material). */
static uint32_t material_index(const rill_gltf_model *m, const rill_model_mesh *mm) {
    const rill_gltf_primitive *p = &m->meshes[mm->mesh].primitives[mm->primitive];
    int32_t mat = rill_gltf_primitive_variant_material(m, p, mm->variant);
    return mat >= 0 && (uint32_t)mat < m->material_count ? (uint32_t)mat : m->material_count;
}

/* Entry e's GPU mesh index and glTF material index (material_count = the default) of mm; false
 * when e is NULL, failed, or mm names what it does not have. */
static bool slots_of(const asset_entry *e, const rill_model_mesh *mm, uint32_t *out_gi,
                     uint32_t *out_mi) {
    if (!e || e->failed || mm->mesh >= e->model->mesh_count ||
        mm->primitive >= e->model->meshes[mm->mesh].primitive_count) {
        return false;
    }
    uint32_t gi = e->mesh_first[mm->mesh] + mm->primitive;
    uint32_t mi = material_index(e->model, mm);
    if (gi >= e->gpu.mesh_count || mi >= e->gpu.material_count) {
        return false;
    }
    *out_gi = gi;
    *out_mi = mi;
    return true;
}

/* The entry, GPU mesh index and glTF material index of mm (uploading its asset when needed). */
static asset_entry *locate(rill_render_assets *ra, const rill_model_mesh *mm, uint32_t *out_gi,
                           uint32_t *out_mi) {
    asset_entry *e = lookup(ra, mm->asset);
    return slots_of(e, mm, out_gi, out_mi) ? e : NULL;
}

/* The heatmap material for a texstream material's state. */
static rill_material heat_material(rill_render_assets *ra, uint32_t ts_mat) {
    rill_texstream *ts = rill__tsc_decisions(ra->tsc);
    int k = ts_mat == RILL_TEXSTREAM_NONE                                ? 3
            : rill_texstream_material_swapping(ts, ts_mat)               ? 2
            : rill_texstream_material_level(ts, ts_mat) == RILL_TEX_FULL ? 0
                                                                         : 1;
    return ra->heat[k];
}

bool rill__render_assets_resolve(rill_render_assets *ra, const rill_model_mesh *mm,
                                 rill_mesh *out_mesh, rill_material *out_material) {
    uint32_t gi = 0, mi = 0;
    asset_entry *e = locate(ra, mm, &gi, &mi);
    if (!e) {
        return false;
    }
    *out_mesh = e->gpu.meshes[gi];
    *out_material = e->gpu.materials[mi];
    if (ra->heatmap && ra->heat[0].id) {
        *out_material = heat_material(ra, e->ts_mat ? e->ts_mat[mi] : RILL_TEXSTREAM_NONE);
    }
    return true;
}

rill_material rill__render_assets_drawn_material(rill_render_assets *ra, uint32_t owner,
                                                 rill_material mat) {
    if (!ra->heatmap || !ra->heat[0].id) {
        return mat;
    }
    const asset_entry *e = lookup(ra, owner);
    uint32_t ts_mat = RILL_TEXSTREAM_NONE;
    for (uint32_t k = 0; e && !e->failed && e->ts_mat && k < e->gpu.material_count; k++) {
        if (e->gpu.materials[k].id == mat.id) {
            ts_mat = e->ts_mat[k];
            break;
        }
    }
    return heat_material(ra, ts_mat);
}

rill__resolved rill__render_assets_peek(const rill_render_assets *ra, const rill_model_mesh *mm,
                                        rill__assets_cursor *cur, rill_mesh *out_mesh,
                                        rill_material *out_material) {
    if (ra->heatmap) {
        return RILL__RESOLVE_SERIAL; /* the heat material reads the streamer's state */
    }
    const asset_entry *e = cur->entry;
    if (!e || cur->id != mm->asset) {
        uint64_t v = 0;
        if (!mm->asset || !rill_map_get(&ra->entry_of, mm->asset, &v)) {
            return mm->asset ? RILL__RESOLVE_SERIAL : RILL__RESOLVE_NONE; /* not uploaded yet */
        }
        e = (const asset_entry *)(uintptr_t)v;
        cur->entry = e;
        cur->id = mm->asset;
    }
    uint32_t gi = 0, mi = 0;
    if (!slots_of(e, mm, &gi, &mi)) {
        return RILL__RESOLVE_NONE;
    }
    *out_mesh = e->gpu.meshes[gi];
    *out_material = e->gpu.materials[mi];
    return RILL__RESOLVE_OK;
}

const rill_gltf_primitive *rill__render_assets_primitive(rill_render_assets *ra,
                                                         const rill_model_mesh *mm) {
    asset_entry *e = lookup(ra, mm->asset);
    if (!e || e->failed || mm->mesh >= e->model->mesh_count ||
        mm->primitive >= e->model->meshes[mm->mesh].primitive_count) {
        return NULL;
    }
    const rill_gltf_primitive *p = &e->model->meshes[mm->mesh].primitives[mm->primitive];
    return p->positions && p->vertex_count ? p : NULL;
}

uint32_t rill__render_assets_level(rill_render_assets *ra, uint32_t asset_id) {
    asset_entry *e = lookup(ra, asset_id);
    return e ? e->level : 0u;
}

bool rill__render_assets_material_of(rill_render_assets *ra, const rill_model_mesh *mm,
                                     uint64_t *out_key, rill_material *out_mat,
                                     uint32_t *out_owner) {
    asset_entry *e = lookup(ra, mm->asset);
    if (!e || e->failed || mm->mesh >= e->model->mesh_count ||
        mm->primitive >= e->model->meshes[mm->mesh].primitive_count) {
        return false;
    }
    uint32_t mi = material_index(e->model, mm);
    if (mi >= e->gpu.material_count) {
        return false;
    }
    *out_key = ((uint64_t)mm->asset << 32) | mi; /* no content hash: this material only */
    *out_mat = e->gpu.materials[mi];
    *out_owner = mm->asset;
    uint64_t v = 0;
    if (!e->mat_hash || !rill_map_get(&ra->canon, e->mat_hash[mi], &v)) {
        return true;
    }
    asset_entry *o = lookup(ra, (uint32_t)(v >> 32));
    uint32_t oi = (uint32_t)v;
    if (o && !o->failed && oi < o->gpu.material_count) {
        *out_key = e->mat_hash[mi];
        *out_mat = o->gpu.materials[oi];
        *out_owner = o->asset.id;
    }
    return true;
}

bool rill__render_assets_stream_mesh(rill_render_assets *ra, const rill_model_mesh *mm,
                                     rill_mesh *out_mesh, uint32_t *out_ts_mat) {
    *out_ts_mat = RILL_TEXSTREAM_NONE;
    uint32_t gi = 0, mi = 0;
    asset_entry *e = locate(ra, mm, &gi, &mi);
    if (!e) {
        return entry_of(ra, mm->asset) != NULL; /* no upload yet: wait for one */
    }
    *out_mesh = e->gpu.meshes[gi];
    *out_ts_mat = e->ts_mat ? e->ts_mat[mi] : RILL_TEXSTREAM_NONE;
    return true;
}

uint64_t rill__render_assets_uploads(const rill_render_assets *ra) {
    return ra->stats.uploads + ra->stats.failures;
}

rill__tex_users *rill__render_assets_users(rill_render_assets *ra) {
    return ra->users;
}

void rill__render_assets_touch(rill_render_assets *ra, uint32_t asset_id) {
    lookup(ra, asset_id);
}

struct rill__batcher *rill__render_assets_batcher(rill_render_assets *ra) {
    return ra ? ra->batcher : NULL;
}

void rill_render_assets_set_batching(rill_render_assets *ra, const rill_render_batching *settings) {
    if (ra) {
        rill__batch_configure(ra->batcher, settings);
    }
}

void rill_render_assets_get_batching_stats(const rill_render_assets *ra,
                                           rill_render_batching_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (ra) {
        rill__batch_stats(ra->batcher, out);
    }
}

/* Named assets without an entry: uploaded once loaded; dropped when nothing names them now. */
static void upload_wanted(rill_render_assets *ra) {
    for (uint32_t i = 0; i < ra->wanted.len;) {
        uint32_t id = ra->wanted.data[i];
        if (names_of(ra, id) == 0 || lookup(ra, id)) {
            rill_array_swap_remove(&ra->wanted, i);
        } else {
            i++;
        }
    }
}

/* Idle entries: one named again leaves the list; one unused for release_delay updates goes. */
static void release_idle(rill_render_assets *ra) {
    for (uint32_t i = 0; i < ra->idle.len;) {
        asset_entry *e = ra->idle.data[i];
        bool named = names_of(ra, e->asset.id) > 0;
        if (!named && ra->tick - e->last_used < ra->release_delay) {
            i++;
            continue;
        }
        rill_array_swap_remove(&ra->idle, i);
        e->idle = false;
        if (!named) {
            uint32_t slot = e->slot;
            free_entry(ra, e);
            rill_array_swap_remove(&ra->entries, slot);
            if (slot < ra->entries.len) {
                ra->entries.data[slot]->slot = slot;
            }
        }
    }
}

void rill_render_assets_update(rill_render_assets *ra) {
    if (!ra) {
        return;
    }
    upload_wanted(ra);
    release_idle(ra);
    uint64_t t0 = rill_time_ns(), c0 = rill_thread_cpu_ns();
    rill__tex_users_update(ra->users, USERS_BUDGET_NS);
    rill__tsc_update(ra->tsc);
    ra->stream_ns_last = rill_time_ns() - t0;
    ra->stream_cpu_ns_last = rill_thread_cpu_ns() - c0;
    ra->stream_ns_max = RILL_MAX(ra->stream_ns_max, ra->stream_ns_last);
    ra->tick++;
}

void rill_render_assets_get_stats(const rill_render_assets *ra, rill_render_assets_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (!ra) {
        return;
    }
    *out = ra->stats;
    out->models = ra->entries.len;
}

/* >>texture streaming API -------------------------------------------------------------------- */

void rill_render_assets_set_texture_streaming(rill_render_assets *ra,
                                              const rill_texstream_settings *settings) {
    if (ra && settings) {
        rill_texstream_set_settings(rill__tsc_decisions(ra->tsc), settings);
    }
}

rill_texstream_settings rill_render_assets_get_texture_streaming(const rill_render_assets *ra) {
    return ra ? *rill_texstream_get_settings(rill__tsc_decisions(ra->tsc))
              : rill_texstream_settings_default();
}

void rill_render_assets_get_texture_streaming_stats(const rill_render_assets *ra,
                                                    rill_render_texture_streaming_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (!ra) {
        return;
    }
    rill_texstream_get_stats(rill__tsc_decisions(ra->tsc), &out->decisions);
    rill__tsc_stats s;
    rill__tsc_get_stats(ra->tsc, &s);
    out->bytes_read = s.bytes_read;
    out->swaps = s.swaps;
    out->batches = s.batches;
    out->cancelled = s.cancelled;
    out->load_failures = s.load_failures;
    out->queued = s.queued;
    out->loading = s.loading;
    out->replacing = ra->renderer->tex_replacing.len;
    out->swap_ns_last = s.swap_ns_last;
    out->swap_ns_max = s.swap_ns_max;
    out->update_ns_last = ra->stream_ns_last;
    out->update_ns_max = ra->stream_ns_max;
    out->update_cpu_ns_last = ra->stream_cpu_ns_last;
    out->full_landed = s.full_landed;
    out->full_latency_ms_max = s.full_latency_ms_max;
    out->full_latency_ms_mean = s.full_landed ? s.full_latency_ms_sum / (double)s.full_landed : 0;
}

uint32_t rill_render_assets_texture_streaming_pending(const rill_render_assets *ra) {
    return ra ? rill__tsc_pending(ra->tsc) + rill__tex_users_pending(ra->users) : 0;
}

void rill_render_assets_set_time(rill_render_assets *ra, double seconds) {
    if (ra) {
        rill__tsc_set_time(ra->tsc, seconds);
    }
}

void rill_render_assets_set_texture_heatmap(rill_render_assets *ra, bool on) {
    if (!ra) {
        return;
    }
    static const float colors[HEAT_NUM][3] = {
        {0.10f, 0.80f, 0.15f}, {0.15f, 0.35f, 1.00f}, {1.00f, 0.60f, 0.05f}, {0.45f, 0.45f, 0.45f}};
    for (int i = 0; on && i < HEAT_NUM; i++) {
        if (ra->heat[i].id) {
            continue;
        }
        rill_material_desc d;
        memset(&d, 0, sizeof(d));
        memcpy(d.base_color, colors[i], sizeof(colors[i]));
        d.base_color[3] = 1.0f;
        d.roughness = 0.8f;
        d.roughness_set = true;
        d.label = "texture heatmap";
        rill_error err = {0};
        ra->heat[i] = rill_render_material_create(ra->renderer, &d, &err);
        if (!ra->heat[i].id) {
            RILL_LOG_WARN(LOGM, "texture heatmap: %s", err.msg);
            return;
        }
    }
    ra->heatmap = on;
}

const char *rill_render_assets_texture_path(const rill_render_assets *ra, rill_texture tex) {
    return ra ? rill__tsc_path_of(ra->tsc, tex) : NULL;
}
