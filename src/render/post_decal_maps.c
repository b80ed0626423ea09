/* post_decal_maps.c: the textures ForwardDecal boxes name (albedo, normal, roughness maps), read
 * through the renderer's file system the first frame a decal names them, the way a model's
 * external images are: the exported .rmip beside a .png is preferred (rill_export_output_path's
 * rule), a .rmip uploads in its own format and mip chain, any other image is decoded to RGBA8
 * with a generated chain. Up to POST_MAX_DECAL_MAPS stay loaded (least recently used replaced);
 * a map that cannot be read is warned about once, remembered as failed, and its decals draw
 * without it. The textures live in the renderer's pool, which frees them with the renderer. */
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

/* Reads and uploads the map at path into slot m (m->tex stays {0} on failure, warned). */
static void map_load(rill_renderer *r, rill__post_decal_map *m, const char *path, bool srgb) {
    m->path = rill_intern(path);
    m->srgb = srgb;
    rill_vfs *vfs = r->post->vfs;
    if (!vfs) {
        RILL_LOG_WARN("render",
                      "ForwardDecal map '%s': the renderer has no file system to read it from "
                      "(rill_renderer_set_vfs); the decal draws without it",
                      path);
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
    if (!m->tex.id) {
        RILL_LOG_WARN("render", "ForwardDecal map: %s; the decal draws without it", err.msg);
    }
}

rill__img *rill__post_decal_map_img(rill_renderer *r, const char *path, bool srgb) {
    if (!path || !path[0]) {
        return NULL;
    }
    rill__post *p = r->post;
    rill__post_decal_map *slot = &p->maps[0];
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        rill__post_decal_map *m = &p->maps[i];
        if (m->path && m->srgb == srgb && strcmp(m->path, path) == 0) {
            m->last_used = r->frame_counter;
            rill__img *img = m->tex.id ? rill__texture_img(r, m->tex) : NULL;
            return img && rill__img_ready(img) ? img : NULL;
        }
        /* an empty slot, else the least recently used */
        if (slot->path && (!m->path || m->last_used < slot->last_used)) {
            slot = m;
        }
    }
    if (slot->tex.id) {
        rill_render_texture_destroy(r, slot->tex);
    }
    memset(slot, 0, sizeof(*slot));
    slot->last_used = r->frame_counter;
    map_load(r, slot, path, srgb);
    rill__img *img = slot->tex.id ? rill__texture_img(r, slot->tex) : NULL;
    return img && rill__img_ready(img) ? img : NULL;
}
