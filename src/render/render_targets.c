/* render_targets.c: render textures by name (rill_render_target_texture). A camera whose
 * Camera.target names one draws into it (frame_views.c plans it, frame_graph.c copies the
 * camera's final image in); a material image "target:NAME" samples it (model.c). The textures
 * live in the renderer's texture pool like any other, made on first use, and are never destroyed
 * before the renderer. */
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

/* A black RILL_RENDER_TARGET_SIZE square, one level, RGBA8 sRGB. */
static rill_texture create(rill_renderer *r, const char *name, rill_error *err) {
    rill_texture none = {0};
    const uint32_t n = RILL_RENDER_TARGET_SIZE;
    size_t bytes = (size_t)n * n * 4;
    uint8_t *px = rill_malloc_tagged(bytes, RILL_MEM_RENDER);
    if (!px) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (render texture)");
        return none;
    }
    for (size_t i = 0; i < bytes; i += 4) {
        px[i] = px[i + 1] = px[i + 2] = 0;
        px[i + 3] = 255;
    }
    rill_tex_data d;
    memset(&d, 0, sizeof(d));
    d.format = RILL_TEX_FORMAT_RGBA8;
    d.srgb = true;
    d.width = d.height = d.full_width = d.full_height = n;
    d.level_count = 1;
    d.levels[0].width = d.levels[0].height = n;
    d.levels[0].data = px;
    d.levels[0].size = bytes;
    char label[80];
    snprintf(label, sizeof(label), "render texture %s", name);
    rill_texture t = rill_render_texture_create_data(r, &d, label, err);
    rill_free(px);
    return t;
}

rill_texture rill_render_target_texture(rill_renderer *r, const char *name, rill_error *err) {
    rill__rthread_guard(r);
    rill_texture none = {0};
    size_t len = name ? strlen(name) : 0;
    if (!r || len == 0 || len >= sizeof(r->targets[0].name)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: render texture name '%.64s' must be 1 to %zu characters",
                       name ? name : "", sizeof(r->targets[0].name) - 1);
        return none;
    }
    int32_t i = find(r, name);
    if (i >= 0) {
        return r->targets[i].tex;
    }
    if (r->target_count == RILL_RENDER_MAX_TARGETS) {
        rill_error_set(err, RILL_ERR_LIMIT, "render: render texture '%s': more than %u", name,
                       RILL_RENDER_MAX_TARGETS);
        return none;
    }
    rill_texture t = create(r, name, err);
    if (t.id) {
        snprintf(r->targets[r->target_count].name, sizeof(r->targets[0].name), "%s", name);
        r->targets[r->target_count++].tex = t;
    }
    return t;
}

bool rill__target_owned(const rill_renderer *r, rill_texture tex) {
    for (uint32_t i = 0; r && tex.id && i < r->target_count; i++) {
        if (r->targets[i].tex.id == tex.id) {
            return true;
        }
    }
    return false;
}
