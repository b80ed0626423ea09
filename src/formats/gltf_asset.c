/* gltf_asset.c: the asset-server loader for .glb and .gltf files. It reads the file (and any
 * external buffers) through the server's VFS, so packed and loose models load the same way, and
 * hands out the CPU model as the payload. A "#meshN" label narrows the payload to one mesh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"

static rill_result vfs_read(const char *path, uint8_t **out_data, size_t *out_size, void *user,
                            rill_error *err) {
    return rill_vfs_read_all((rill_vfs *)user, path, out_data, out_size, err);
}

/* Bytes the model holds, for the server's memory accounting. */
static size_t model_bytes(const rill_gltf_model *m) {
    size_t n = sizeof(*m);
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const rill_gltf_primitive *pr = &m->meshes[i].primitives[p];
            size_t floats = 3 + 3 + (pr->tangents ? 4 : 0) + (pr->uv0 ? 2 : 0) + (pr->uv1 ? 2 : 0) +
                            (pr->colors ? 4 : 0) + (pr->joints ? 8 : 0);
            n += (size_t)pr->vertex_count * floats * sizeof(float);
            n += ((size_t)pr->index_count + pr->edge_index_count) * sizeof(uint32_t);
        }
    }
    for (uint32_t i = 0; i < m->image_count; i++) {
        n += m->images[i].size;
    }
    return n;
}

/* Keeps only mesh `keep`: the other meshes and the scene graph are freed, so the payload is
 * one mesh plus the materials and textures its primitives refer to. */
static void narrow_to_mesh(rill_gltf_model *m, uint32_t keep) {
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        if (i == keep) {
            continue;
        }
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            rill__gltf_primitive_release(&m->meshes[i].primitives[p]);
        }
        rill_free(m->meshes[i].primitives);
        rill_free(m->meshes[i].name);
    }
    if (keep != 0) {
        m->meshes[0] = m->meshes[keep];
    }
    m->mesh_count = 1;
    rill_gltf_model tmp = {0};
    tmp.nodes = m->nodes;
    tmp.node_count = m->node_count;
    tmp.scenes = m->scenes;
    tmp.scene_count = m->scene_count;
    tmp.cameras = m->cameras;
    tmp.camera_count = m->camera_count;
    tmp.lights = m->lights;
    tmp.light_count = m->light_count;
    m->nodes = NULL;
    m->scenes = NULL;
    m->cameras = NULL;
    m->lights = NULL;
    m->node_count = m->scene_count = m->camera_count = m->light_count = 0;
    m->default_scene = -1;
    /* tmp now owns only the graph parts; freeing it releases them. */
    rill_gltf_model *heap = rill__gltf_alloc(1, sizeof(*heap));
    if (heap) {
        *heap = tmp;
        rill_gltf_model_free(heap);
    }
}

static rill_result load(const rill_asset_load_ctx *ctx, void **out_payload, size_t *out_bytes,
                        rill_error *err) {
    *out_payload = NULL;
    *out_bytes = 0;
    long mesh = -1;
    if (ctx->label && ctx->label[0]) {
        char *end = NULL;
        if (strncmp(ctx->label, "mesh", 4) == 0 && ctx->label[4] >= '0' && ctx->label[4] <= '9') {
            mesh = strtol(ctx->label + 4, &end, 10);
        }
        if (mesh < 0 || !end || *end != '\0') {
            return rill_error_set(err, RILL_ERR_NOT_FOUND,
                                  "%s#%s: unknown label (glTF models offer #meshN)", ctx->path,
                                  ctx->label);
        }
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_result res = rill_vfs_read_all(ctx->vfs, ctx->path, &data, &size, err);
    if (res != RILL_OK) {
        return res;
    }
    char dir[RILL_VFS_PATH_MAX + 1];
    if (!rill_path_dirname(dir, sizeof(dir), ctx->path)) {
        rill_free(data);
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", ctx->path);
    }
    /* The VFS root is the project's: URIs may climb out of the model's folder up to it
     * ("../textures/a.png" beside "models/"), never above. */
    rill_gltf_read_desc desc = {
        .name = ctx->path,
        .base_dir = dir, /* "" for a model at the root: URIs are then the paths */
        .read_file = vfs_read,
        .read_file_user = ctx->vfs,
        .uri_up_levels = rill_gltf_folder_depth(dir),
    };
    rill_gltf_model *m = NULL;
    res = rill_gltf_read_memory(data, size, &desc, &m, err);
    rill_free(data);
    if (res != RILL_OK) {
        return res;
    }
    if (mesh >= 0) {
        if ((unsigned long)mesh >= m->mesh_count) {
            uint32_t count = m->mesh_count;
            rill_gltf_model_free(m);
            return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s#%s: the model has %u meshes",
                                  ctx->path, ctx->label, count);
        }
        narrow_to_mesh(m, (uint32_t)mesh);
    }
    *out_payload = m;
    *out_bytes = model_bytes(m);
    return RILL_OK;
}

static void unload(void *payload, size_t bytes, void *user) {
    (void)bytes;
    (void)user;
    rill_gltf_model_free(payload);
}

rill_result rill_gltf_register_asset_loader(rill_asset_server *server, rill_error *err) {
    rill_asset_loader loader = {
        .name = RILL_GLTF_ASSET_LOADER,
        .extensions = {"glb", "gltf"},
        .load = load,
        .unload = unload,
    };
    return rill_asset_server_register_loader(server, &loader, err);
}
