/* model_assets.c: rill_render_assets (rill/render.h), the cache that turns the glTF assets named
 * by ModelMesh components into GPU models, one upload per asset. Entries are keyed by asset id;
 * each holds its own asset reference, the upload, and per glTF mesh the index of its first GPU
 * mesh (rill_render_model_create makes one GPU mesh per primitive in (mesh, primitive) order), so
 * resolving a ModelMesh is two lookups. */
#include "model_assets.h"

#include <stdio.h>
#include <string.h>

#define LOGM "render"
#define RESOURCE_NAME "RenderAssets"

typedef struct asset_entry {
    rill_asset asset; /* one reference held while the entry exists */
    bool failed;      /* upload failed (warned once); kept so it is not retried every frame */
    rill_render_model gpu;
    const rill_gltf_model *model; /* the payload (alive while the reference is held) */
    uint32_t *mesh_first;         /* mesh_count + 1 entries */
    uint64_t last_used;
} asset_entry;

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
    rill_render_assets_stats stats;
};

/* The world resource holds only the pointer. */
typedef struct assets_resource {
    rill_render_assets *ra;
} assets_resource;

rill_render_assets *rill__render_assets_of(const rill_world *world) {
    rill_resource res = rill_world_find_resource(world, RESOURCE_NAME);
    const assets_resource *ar = res.id ? rill_world_get_resource(world, res) : NULL;
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
    if (rill_scene_model_register(desc->world, &mc, err) != RILL_OK) {
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
    assets_resource ar = {ra};
    if (!rill_world_set_resource(desc->world, res, &ar)) {
        rill_free(ra);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_render_assets_create: out of memory");
        return NULL;
    }
    return ra;
}

static void free_entry(rill_render_assets *ra, asset_entry *e) {
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
    for (uint32_t i = 0; i < ra->entries.len; i++) {
        free_entry(ra, ra->entries.data[i]);
    }
    rill_array_free(&ra->entries);
    rill_map_free(&ra->entry_of);
    rill_world_remove_resource(ra->world, ra->resource);
    rill_free(ra);
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
    e->model = rill_asset_get_payload_as(ra->assets, asset, RILL_GLTF_ASSET_LOADER);
    rill_error err = {0};
    if (!e->model) {
        RILL_LOG_WARN(LOGM, "%s: not a glTF model; its ModelMesh entities draw nothing", path);
        e->failed = true;
    } else if (!(e->mesh_first = rill_calloc_tagged(e->model->mesh_count + 1, sizeof(uint32_t),
                                                    RILL_MEM_RENDER)) ||
               rill_render_model_create_vfs(ra->renderer, e->model,
                                            rill_asset_server_vfs(ra->assets), path, &e->gpu,
                                            &err) != RILL_OK) {
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
    }
    ra->stats.failures += e->failed;
    return e;
}

static asset_entry *lookup(rill_render_assets *ra, uint32_t asset_id) {
    uint64_t v = 0;
    if (rill_map_get(&ra->entry_of, asset_id, &v)) {
        asset_entry *e = (asset_entry *)(uintptr_t)v;
        e->last_used = ra->tick;
        return e;
    }
    rill_asset a = {asset_id};
    return asset_id ? upload(ra, a) : NULL;
}

const rill_render_model *rill_render_assets_model(rill_render_assets *ra, rill_asset asset) {
    asset_entry *e = ra ? lookup(ra, asset.id) : NULL;
    return e && !e->failed ? &e->gpu : NULL;
}

bool rill__render_assets_resolve(rill_render_assets *ra, const rill_model_mesh *mm,
                                 rill_mesh *out_mesh, rill_material *out_material) {
    asset_entry *e = lookup(ra, mm->asset);
    if (!e || e->failed || mm->mesh >= e->model->mesh_count ||
        mm->primitive >= e->model->meshes[mm->mesh].primitive_count) {
        return false;
    }
    uint32_t gi = e->mesh_first[mm->mesh] + mm->primitive;
    int32_t mat = e->model->meshes[mm->mesh].primitives[mm->primitive].material;
    uint32_t mi = mat >= 0 ? (uint32_t)mat : e->model->material_count;
    if (gi >= e->gpu.mesh_count || mi >= e->gpu.material_count) {
        return false;
    }
    *out_mesh = e->gpu.meshes[gi];
    *out_material = e->gpu.materials[mi];
    return true;
}

void rill_render_assets_update(rill_render_assets *ra) {
    if (!ra) {
        return;
    }
    {
        const rill_entity *ents = NULL;
        void *data = NULL;
        uint32_t n = rill_world_component_dense(ra->world, ra->mc.model_mesh, &ents, &data);
        const rill_model_mesh *mms = data;
        uint32_t last = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (mms[i].asset == last) {
                continue; /* siblings of one model come in runs */
            }
            last = mms[i].asset;
            lookup(ra, last);
        }
    }
    for (uint32_t i = 0; i < ra->entries.len;) {
        asset_entry *e = ra->entries.data[i];
        if (ra->tick - e->last_used >= ra->release_delay) {
            free_entry(ra, e);
            rill_array_swap_remove(&ra->entries, i);
        } else {
            i++;
        }
    }
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
