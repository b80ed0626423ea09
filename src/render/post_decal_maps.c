/* post_decal_maps.c: the textures ForwardDecal boxes name (albedo, normal, roughness maps), read
 * through the renderer's file system the first frame a decal names them, the way a model's
 * external images are: the exported .rmip beside a .png is preferred (rill_export_output_path's
 * rule), a .rmip uploads in its own format and mip chain, any other image is decoded to RGBA8
 * with a generated chain. The texture is then copied into the decal atlas (post_decal_atlas.c)
 * and freed. Up to POST_MAX_DECAL_MAPS maps are known at once (the least recently used one not in
 * view is replaced); a map that cannot be read is warned about once, naming the decal's entity and
 * the file, remembered as failed, and its decals draw without it. */
#include "post_internal.h"

#include "rill/formats/export.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip.h"

#include <string.h>

/* The VFS path to read for path: its exported .rmip when the file system has one. */
static const char *pick_path(rill_vfs *vfs, const char *path, char *buf, size_t cap) {
    if (rill_export_output_path(buf, cap, path) && strcmp(buf, path) != 0 &&
        rill_vfs_exists(vfs, buf)) {
        return buf;
    }
    return path;
}

static bool has_rmip_ext(const char *path) {
    size_t n = strlen(path);
    return n > 5 && rill_str_ieq(path + n - 5, ".rmip");
}

/* A texture from a .rmip file's bytes; srgb applies to the formats that carry colour either way. */
static rill_texture from_rmip(rill_renderer *r, const uint8_t *bytes, size_t size, const char *name,
                              bool srgb, rill_error *err) {
    rill_tex_data tex;
    if (rill_rmip_read(bytes, size, name, &tex, err) != RILL_OK) {
        return (rill_texture){0};
    }
    if (tex.format == RILL_TEX_FORMAT_BC1 || tex.format == RILL_TEX_FORMAT_BC7 ||
        tex.format == RILL_TEX_FORMAT_RGBA8) {
        tex.srgb = srgb;
    }
    rill_texture out = rill_render_texture_create_data(r, &tex, name, err);
    rill_tex_data_free(&tex);
    return out;
}

/* A texture from any image file's bytes (PNG, JPEG, ...: rill_image_load, limits included). */
static rill_texture from_image(rill_renderer *r, const uint8_t *bytes, size_t size,
                               const char *name, bool srgb, rill_error *err) {
    rill_image img;
    if (rill_image_load(bytes, size, name, RILL_PIXEL_RGBA8, &img, err) != RILL_OK) {
        return (rill_texture){0};
    }
    rill_texture_desc d = {.pixels = img.pixels,
                           .width = img.width,
                           .height = img.height,
                           .srgb = srgb,
                           .label = name};
    rill_texture out = rill_render_texture_create(r, &d, err);
    rill_image_free(&img);
    return out;
}

/* Reads and uploads the map at path into slot m (failed on failure, warned naming entity). */
static void map_load(rill_renderer *r, rill__post_decal_map *m, const char *path, bool srgb,
                     rill_entity entity) {
    m->path = rill_intern(path);
    m->srgb = srgb;
    m->failed = true;
    rill_vfs *vfs = r->post->vfs;
    if (!vfs) {
        RILL_LOG_WARN("render",
                      "ForwardDecal map '%s' (entity %u:%u): the renderer has no file system to "
                      "read it from (rill_renderer_set_vfs); the decal draws without it",
                      path, RILL_ENTITY_INDEX(entity), RILL_ENTITY_GENERATION(entity));
        return;
    }
    char rmip[1024];
    const char *read = pick_path(vfs, path, rmip, sizeof(rmip));
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_vfs_read_all(vfs, read, &data, &size, &err) == RILL_OK) {
        m->tex = has_rmip_ext(read) ? from_rmip(r, data, size, read, srgb, &err)
                                    : from_image(r, data, size, read, srgb, &err);
    }
    rill_free(data);
    m->failed = !m->tex.id;
    if (m->failed) {
        RILL_LOG_WARN("render",
                      "ForwardDecal map '%s' (entity %u:%u): %s; the decal draws without it", path,
                      RILL_ENTITY_INDEX(entity), RILL_ENTITY_GENERATION(entity), err.msg);
    }
}

void rill__post_decal_map_drop(rill_renderer *r, rill__post_decal_map *m) {
    if (m->tex.id) {
        rill_render_texture_destroy(r, m->tex);
    }
    memset(m, 0, sizeof(*m));
}

rill__post_decal_map *rill__post_decal_map_get(rill_renderer *r, const char *path, bool srgb,
                                               rill_entity entity) {
    if (!path || !path[0]) {
        return NULL;
    }
    rill__post *p = r->post;
    rill__post_decal_map *slot = NULL; /* an empty entry, else the least recently used */
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        rill__post_decal_map *m = &p->maps[i];
        if (m->path && m->srgb == srgb && strcmp(m->path, path) == 0) {
            m->last_used = r->frame_counter;
            return m;
        }
        bool older = m->path && m->last_used < r->frame_counter &&
                     (!slot || (slot->path && m->last_used < slot->last_used));
        if ((!m->path && (!slot || slot->path)) || older) {
            slot = m;
        }
    }
    if (!slot) {
        if (!p->warned_many_maps) {
            RILL_LOG_WARN("render",
                          "ForwardDecal map '%s': the decals in view name more than %u distinct "
                          "maps; decals draw without the rest",
                          path, POST_MAX_DECAL_MAPS);
            p->warned_many_maps = true;
        }
        return NULL;
    }
    rill__post_decal_map_drop(r, slot);
    slot->last_used = r->frame_counter;
    map_load(r, slot, path, srgb, entity);
    return slot;
}
