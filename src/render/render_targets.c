/* render_targets.c: render textures by name (rill_render_target_texture). A camera whose
 * Camera.target names one draws into it (frame_views.c plans it, frame_graph.c copies the
 * camera's final image in); a material image "target:NAME" samples it (model.c). The textures
 * live in the renderer's texture pool like any other, made on first use, and are never destroyed
 * before the renderer. A camera's target_size picks the size: a texture asked for at another size
 * gets a new image of it, switched in once uploaded (materials sampling it are rebuilt then). */
#include "render_internal.h"

#include <stdio.h>
#include <string.h>

static int32_t find(const rill_renderer *r, const char *name) {
    for (uint32_t i = 0; i < r->target_count; i++) {
        if (strcmp(r->targets[i].name, name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

/* A black w x h image, one level, RGBA8 sRGB, in d (its pixels allocated: rill_free them). */
static bool black_image(uint32_t w, uint32_t h, rill_tex_data *d, rill_error *err) {
    size_t bytes = (size_t)w * h * 4;
    uint8_t *px = rill_malloc_tagged(bytes, RILL_MEM_RENDER);
    if (!px) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (render texture)");
        return false;
    }
    for (size_t i = 0; i < bytes; i += 4) {
        px[i] = px[i + 1] = px[i + 2] = 0;
        px[i + 3] = 255;
    }
    memset(d, 0, sizeof(*d));
    d->format = RILL_TEX_FORMAT_RGBA8;
    d->srgb = true;
    d->width = d->full_width = d->levels[0].width = w;
    d->height = d->full_height = d->levels[0].height = h;
    d->level_count = 1;
    d->levels[0].data = px;
    d->levels[0].size = bytes;
    return true;
}

static rill_texture create(rill_renderer *r, const char *name, uint32_t w, uint32_t h,
                           rill_error *err) {
    rill_tex_data d;
    if (!black_image(w, h, &d, err)) {
        return (rill_texture){0};
    }
    char label[80];
    snprintf(label, sizeof(label), "render texture %s", name);
    rill_texture t = rill_render_texture_create_data(r, &d, label, err);
    rill_free((void *)d.levels[0].data);
    return t;
}

/* A size as asked: 0 is the default, the rest clamped to 16 .. 4096. */
static uint32_t side(uint32_t v) {
    return v == 0 ? RILL_RENDER_TARGET_SIZE : v < 16 ? 16 : v > 4096 ? 4096 : v;
}

rill_texture rill__target_texture_sized(rill_renderer *r, const char *name, uint32_t width,
                                        uint32_t height, rill_error *err) {
    rill_texture none = {0};
    size_t len = name ? strlen(name) : 0;
    if (!r || len == 0 || len >= sizeof(r->targets[0].name)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: render texture name '%.64s' must be 1 to %zu characters",
                       name ? name : "", sizeof(r->targets[0].name) - 1);
        return none;
    }
    uint32_t w = side(width), h = side(height);
    int32_t i = find(r, name);
    if (i >= 0) {
        if (width && height && (r->targets[i].width != w || r->targets[i].height != h)) {
            rill_tex_data d;
            if (!black_image(w, h, &d, err)) {
                return none;
            }
            rill_result res = rill__texture_replace_resized(r, r->targets[i].tex, &d, err);
            rill_free((void *)d.levels[0].data);
            if (res != RILL_OK) {
                return none;
            }
            r->targets[i].width = w, r->targets[i].height = h;
        }
        return r->targets[i].tex;
    }
    if (r->target_count == RILL_RENDER_MAX_TARGETS) {
        rill_error_set(err, RILL_ERR_LIMIT, "render: render texture '%s': more than %u", name,
                       RILL_RENDER_MAX_TARGETS);
        return none;
    }
    rill_texture t = create(r, name, w, h, err);
    if (t.id) {
        snprintf(r->targets[r->target_count].name, sizeof(r->targets[0].name), "%s", name);
        r->targets[r->target_count].width = w;
        r->targets[r->target_count].height = h;
        r->targets[r->target_count++].tex = t;
    }
    return t;
}

/* Without a size: the texture as it is, or a new one of the default size. */
rill_texture rill_render_target_texture(rill_renderer *r, const char *name, rill_error *err) {
    rill__rthread_guard(r);
    return rill__target_texture_sized(r, name, 0, 0, err);
}

bool rill__target_owned(const rill_renderer *r, rill_texture tex) {
    for (uint32_t i = 0; r && tex.id && i < r->target_count; i++) {
        if (r->targets[i].tex.id == tex.id) {
            return true;
        }
    }
    return false;
}
