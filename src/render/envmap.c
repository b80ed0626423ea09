/* envmap.c: the EnvironmentMapLight component (rill/render/environment.h) and the loading every
 * environment image shares. An EnvironmentMapLight routed to the frame's first view that has one
 * replaces the active sky as the source of the image-based light: ibl.c reprojects its image onto
 * the power-of-two RGBA16F source cube (face 256 / 128 / 64 by tier) and prefilters it (GGX
 * specular mips + irradiance harmonics) exactly as it bakes a sky, turned by `rotation` and scaled
 * by `intensity`. The sky drawn behind the scene stays whatever the sky mode says.
 *
 * The image (equirectangular .hdr / .png / ... or a .rmip cube, rill_env_image_decode) is read the
 * first time a frame names it, through the renderer's file system, and uploaded as one RGBA16F
 * level. A missing, unreadable or out-of-limits image is one warning naming the entity and the
 * file, and that path is not tried again until another is named: the light then comes from the
 * sky, as without the component. */
#include "frame.h"
#include "post_internal.h"
#include "rill/formats/rmip_cube.h"
#include "rill/render/environment.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

struct rill__envmap {
    const char *path;     /* interned: the image last named */
    rill_texture tex;     /* the image lit with, {0} when none */
    rill_texture pending; /* path's texture while it uploads (tex stays lit with meanwhile) */
    bool on;              /* this frame's IBL comes from tex */
    float turn, intensity;
};

/* >>the component --------------------------------------------------------------------------- */

static const rill_field envmap_fields[] = {
    {.name = "image",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_render_environment_map_light, image),
     .doc = "equirectangular .hdr (linear) / .png / .jpg (sRGB) or a .rmip cube, project path; "
            "4x2 to 8192x4096"},
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_environment_map_light, intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 65000,
     .doc = "linear multiplier of the light, default 1"},
    {.name = "rotation",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_environment_map_light, rotation),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = -3600,
     .max = 3600,
     .doc = "degrees about +Y, default 0 (the image's centre looks along -Z)"},
};

rill_render_environment_map_light rill_render_environment_map_light_query_defaults(void) {
    rill_render_environment_map_light e = {.image = NULL, .intensity = 1.0f, .rotation = 0.0f};
    return e;
}

rill_result rill__envmap_register(rill_world *w, rill_render_components *out, rill_error *err) {
    static rill_render_environment_map_light def;
    def = rill_render_environment_map_light_query_defaults();
    const rill_type_desc d = {
        .name = "EnvironmentMapLight",
        RILL_TYPE_LAYOUT(rill_render_environment_map_light),
        RILL_FIELDS(envmap_fields),
        .defaults = &def,
        .doc = "an image as the source of the image-based light instead of the sky, routed to "
               "cameras"};
    return rill__render_settings_ensure(w, &d, 1, out, NULL, err);
}

/* >>loading an environment image ------------------------------------------------------------ */

rill_texture rill__env_texture_load(rill_renderer *r, const char *path, const char *label,
                                    rill_error *err) {
    rill_vfs *vfs = r->post ? r->post->vfs : NULL;
    if (!vfs) {
        rill_error_set(err, RILL_ERR_NOT_FOUND, "the renderer has no file system to read it from");
        return (rill_texture){0};
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_image img;
    memset(&img, 0, sizeof(img));
    rill_texture tex = {0};
    if (rill_vfs_read_all(vfs, path, &data, &size, err) == RILL_OK &&
        rill_env_image_decode(data, size, path, &img, err) == RILL_OK) {
        size_t n = (size_t)img.width * img.height * 4u;
        uint16_t *half = rill_malloc_tagged(n * sizeof(uint16_t), RILL_MEM_RENDER);
        if (half) {
            const float *px = img.pixels;
            for (size_t i = 0; i < n; i++) {
                half[i] = rill_f32_to_f16(px[i]); /* finite, in [0, 65000]: the decoder's */
            }
            rill_tex_data td;
            memset(&td, 0, sizeof(td));
            td.format = RILL_TEX_FORMAT_RGBA16F;
            td.width = td.full_width = img.width;
            td.height = td.full_height = img.height;
            td.level_count = 1;
            td.faces = 1;
            td.levels[0] = (rill_tex_level){img.width, img.height, (const uint8_t *)half,
                                            n * sizeof(uint16_t)};
            tex = rill_render_texture_create_data(r, &td, label, err);
            rill_free(half);
        } else {
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    rill_image_free(&img);
    rill_free(data);
    return tex;
}

/* >>planning -------------------------------------------------------------------------------- */

static bool ready(const rill_renderer *r, rill_texture t) {
    int32_t ti = t.id ? rill_pool_index(&r->tex_pool, t.id) : -1;
    return ti >= 0 && rill__img_ready(r->textures[ti].img);
}

static void drop(rill_renderer *r, rill_texture *t) {
    if (t->id) {
        rill_render_texture_destroy(r, *t);
    }
    *t = (rill_texture){0};
}

void rill__envmap_plan(rill_renderer *r, const rill_render_snapshot *snap) {
    if (!r->envmap) {
        r->envmap = rill_calloc_tagged(1, sizeof(*r->envmap), RILL_MEM_RENDER);
        if (!r->envmap) {
            return; /* no memory: the sky's light */
        }
    }
    rill__envmap *k = r->envmap;
    k->on = false;
    const rill_render_view *list = snap->view_count ? snap->views : &snap->view;
    uint32_t n = snap->view_count ? RILL_MIN(snap->view_count, RILL_RENDER_MAX_VIEWS) : 1;
    const rill_render_routed_settings *rs = NULL;
    const rill_render_environment_map_light *e = NULL;
    for (uint32_t i = 0; i < n && !e; i++) {
        rs = rill__view_routed(&list[i], "EnvironmentMapLight",
                               sizeof(rill_render_environment_map_light));
        e = rs ? rs->data : NULL;
        e = e && e->image && e->image[0] ? e : NULL;
    }
    if (!e) {
        return;
    }
    const char *path = rill_intern(e->image);
    if (path != k->path) {
        k->path = path;
        drop(r, &k->pending);
        rill_error err = {0};
        k->pending = rill__env_texture_load(r, path, "environment map", &err);
        if (!k->pending.id) {
            drop(r, &k->tex); /* a broken image: the sky's light, not the last image's */
            RILL_LOG_WARN("render",
                          "EnvironmentMapLight of entity %u:%u: image '%s': %s; the image-based "
                          "light comes from the sky",
                          RILL_ENTITY_INDEX(rs->source), RILL_ENTITY_GENERATION(rs->source), path,
                          err.msg);
        }
    }
    /* A new image replaces the one lit with once it has uploaded (no frames of sky light between
     * two images). */
    if (ready(r, k->pending)) {
        drop(r, &k->tex);
        k->tex = k->pending;
        k->pending = (rill_texture){0};
    }
    k->on = ready(r, k->tex);
    rill__fix_src cs = {&r->env_warned, "EnvironmentMapLight", rs->source};
    k->intensity = rill__fix(&cs, "intensity", e->intensity, 0.0f, 65000.0f, 1.0f);
    k->turn =
        rill__fix(&cs, "rotation", e->rotation, -3600.0f, 3600.0f, 0.0f) * 3.14159265f / 180.0f;
}

bool rill__envmap_get(const rill_renderer *r, rill_texture *out_tex, float *out_rotation,
                      float *out_intensity) {
    const rill__envmap *k = r->envmap;
    if (!k || !k->on) {
        return false;
    }
    *out_tex = k->tex;
    *out_rotation = k->turn;
    *out_intensity = k->intensity;
    return true;
}

void rill__envmap_destroy(rill_renderer *r) {
    rill_free(r->envmap); /* the texture goes with the renderer's pool */
    r->envmap = NULL;
}
