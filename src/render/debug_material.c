/* debug_material.c: the material resolver of the debug panels (rill/render/debug.h): what the
 * renderer draws one snapshot instance with (pipeline variant and shader as the passes choose
 * them, the material's textures with the level the GPU samples first, their samplers, the render
 * mode, whether a shared block draws the mesh) and that description as JSON and as text. */
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rill/render/debug.h"

static const char *const SLOT_NAMES[RILL_MATERIAL_TEX_NUM] = {"base_color",
                                                              "normal",
                                                              "metallic_roughness",
                                                              "occlusion",
                                                              "emissive",
                                                              "specular",
                                                              "specular_color",
                                                              "clearcoat",
                                                              "clearcoat_roughness",
                                                              "clearcoat_normal",
                                                              "transmission",
                                                              "thickness",
                                                              "sheen_color",
                                                              "sheen_roughness",
                                                              "iridescence",
                                                              "iridescence_thickness",
                                                              "anisotropy"};
_Static_assert(RILL_MATERIAL_TEX_NUM == 17, "name every material texture slot");

static const char *const BUILTIN_SAMPLERS[RILL__SAMPLER_NUM] = {
    "linear repeat", "linear clamp",   "nearest clamp", "shadow",
    "linear mirror", "nearest repeat", "nearest mirror"};

/* A material sampler's name from its desc (static strings: one per combination). */
static const char *sampler_name(const rill_renderer *r, rill__sampler_kind k) {
    if ((uint32_t)k < RILL__SAMPLER_NUM) {
        return BUILTIN_SAMPLERS[k];
    }
    rill__sampler_desc d;
    if (!rill__sampler_desc_of(r->gpu, k, &d)) {
        return "unknown";
    }
    static const char *const wraps[3] = {"repeat", "clamp", "mirror"};
    static const char *const mips[3] = {"mip linear", "mip nearest", "no mips"};
    /* [wrap_u][wrap_v][mag][min][mip]: built once, read-only after. */
    static char names[3][3][2][2][3][64];
    uint32_t wu = d.wrap_u < 3 ? d.wrap_u : 0, wv = d.wrap_v < 3 ? d.wrap_v : 0;
    uint32_t mip = d.mip < 3 ? d.mip : 0;
    char *s = names[wu][wv][d.mag_nearest][d.min_nearest][mip];
    if (!s[0]) {
        snprintf(s, 64, "%s/%s, mag %s, min %s, %s", wraps[wu], wraps[wv],
                 d.mag_nearest ? "nearest" : "linear", d.min_nearest ? "nearest" : "linear",
                 mips[mip]);
    }
    return s;
}

static const char *alpha_name(rill_alpha_mode m) {
    return m == RILL_ALPHA_MASK ? "mask" : m == RILL_ALPHA_BLEND ? "blend" : "opaque";
}

static const char *mode_name(rill_render_mode m) {
    return m == RILL_RENDER_MODE_HIDDEN      ? "hidden"
           : m == RILL_RENDER_MODE_WIREFRAME ? "wireframe"
           : m == RILL_RENDER_MODE_GHOST     ? "ghost"
                                             : "normal";
}

/* The pipeline of the instance's lit pass and its fragment shader, as the draw lists choose them
 * (frame_cull.c: hidden draws nothing; wireframe goes to the wire list, edge buffer or polygon
 * lines; blended materials to the transparent list; the rest to the opaque list). */
static void pipeline_of(const rill_render_instance *in, const mesh_slot *m, const mat_slot *mt,
                        rill_render_instance_info *out) {
    out->shader = "pbr.frag";
    if (in->mode == RILL_RENDER_MODE_HIDDEN) {
        out->pipeline = "none (hidden)";
        out->shader = "none";
    } else if (in->mode == RILL_RENDER_MODE_WIREFRAME) {
        out->pipeline = rill__mesh_edges(m) ? "wireframe (edges)" : "wireframe";
        out->shader = "wire.frag";
    } else if (mt->alpha_mode == RILL_ALPHA_BLEND) {
        out->pipeline = mt->double_sided ? "transparent (double-sided)" : "transparent";
    } else {
        out->pipeline = mt->double_sided ? "opaque (double-sided)" : "opaque";
    }
}

static void texture_info(const rill_renderer *r, const rill_render_assets *ra, const mat_slot *mt,
                         uint32_t slot, rill_render_texture_info *t) {
    memset(t, 0, sizeof(*t));
    t->slot = SLOT_NAMES[slot];
    t->sampler = sampler_name(r, mt->samplers[slot]);
    rill_texture tex = mt->tex[slot];
    const rill__img *img = rill__texture_img(r, tex);
    int32_t ix = rill_pool_index(&r->tex_pool, tex.id);
    const tex_slot *ts = ix >= 0 ? &r->textures[ix] : NULL;
    if (!img || !ts) {
        t->format = "placeholder";
        return;
    }
    const rill__img_desc *d = rill__img_get_desc(img);
    t->texture = tex.id;
    t->path = rill_render_assets_texture_path(ra, tex);
    t->width = ts->full_width ? ts->full_width : d->width;
    t->height = ts->full_height ? ts->full_height : d->height;
    t->resident_width = d->width;
    t->resident_levels = d->mips;
    uint32_t level = 0;
    while (level < 31 && (t->width >> level) > d->width) {
        level++;
    }
    t->resident_level = level;
    t->format = rill_tex_format_name(ts->format);
    t->srgb = ts->srgb;
}

bool rill_render_describe_instance(const rill_renderer *r, const rill_render_assets *ra,
                                   const rill_render_snapshot *snap, uint64_t id,
                                   rill_render_instance_info *out) {
    rill__rthread_guard(r);
    if (!r || !snap || !out) {
        return false;
    }
    memset(out, 0, sizeof(*out));
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const rill_render_instance *in = &snap->instances[i];
        if (in->id != id) {
            continue;
        }
        const mesh_slot *m = rill__mesh_get(r, in->mesh);
        const mat_slot *mt = rill__material_get(r, in->material);
        if (!m || !mt) {
            return false;
        }
        out->instance = i;
        out->mesh = in->mesh.id;
        out->material = in->material.id;
        out->index_count = m->index_count;
        out->vertex_count = m->vertex_count ? m->vertex_count : m->max_index + 1u;
        pipeline_of(in, m, mt, out);
        out->alpha_mode = alpha_name(mt->alpha_mode);
        out->double_sided = mt->double_sided;
        out->render_mode = mode_name(in->mode);
        out->ghost_opacity = in->mode == RILL_RENDER_MODE_GHOST ? in->ghost_opacity : 1.0f;
        out->range_count = in->range_count;
        out->batched = m->block != 0;
        for (uint32_t s = 0; s < RILL_MATERIAL_TEX_NUM; s++) {
            texture_info(r, ra, mt, s, &out->textures[s]);
        }
        out->texture_count = RILL_MATERIAL_TEX_NUM;
        return true;
    }
    return false;
}

#define APPEND(...)                                                                                \
    do {                                                                                           \
        int k_ = snprintf(cap > n ? buf + n : NULL, cap > n ? cap - n : 0, __VA_ARGS__);           \
        if (k_ > 0)                                                                                \
            n += (size_t)k_;                                                                       \
    } while (0)

/* s as a JSON string (quotes and control characters escaped), or null. */
static size_t json_str(char *buf, size_t cap, size_t n, const char *s) {
    if (!s) {
        APPEND("null");
        return n;
    }
    APPEND("\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            APPEND("\\%c", *p);
        } else if (*p < 0x20) {
            APPEND("\\u%04x", *p);
        } else {
            APPEND("%c", *p);
        }
    }
    APPEND("\"");
    return n;
}

size_t rill_render_instance_info_json(const rill_render_instance_info *info, char *buf,
                                      size_t cap) {
    size_t n = 0;
    if (cap) {
        buf[0] = 0;
    }
    APPEND("{\"instance\":%u,\"mesh\":%u,\"material\":%u,\"indices\":%u,\"vertices\":%u,"
           "\"pipeline\":",
           info->instance, info->mesh, info->material, info->index_count, info->vertex_count);
    n = json_str(buf, cap, n, info->pipeline);
    APPEND(",\"shader\":");
    n = json_str(buf, cap, n, info->shader);
    APPEND(",\"alpha_mode\":");
    n = json_str(buf, cap, n, info->alpha_mode);
    APPEND(",\"double_sided\":%s,\"render_mode\":", info->double_sided ? "true" : "false");
    n = json_str(buf, cap, n, info->render_mode);
    APPEND(",\"ghost_opacity\":%.3f,\"batched\":%s,\"ranges\":%u,\"textures\":[",
           (double)info->ghost_opacity, info->batched ? "true" : "false", info->range_count);
    for (uint32_t i = 0; i < info->texture_count && i < RILL_RENDER_MATERIAL_SLOTS; i++) {
        const rill_render_texture_info *t = &info->textures[i];
        APPEND("%s{\"slot\":", i ? "," : "");
        n = json_str(buf, cap, n, t->slot);
        APPEND(",\"texture\":%u,\"path\":", t->texture);
        n = json_str(buf, cap, n, t->path);
        APPEND(",\"format\":");
        n = json_str(buf, cap, n, t->format);
        APPEND(",\"srgb\":%s,\"width\":%u,\"height\":%u,\"resident_level\":%u,"
               "\"resident_width\":%u,\"resident_levels\":%u,\"sampler\":",
               t->srgb ? "true" : "false", t->width, t->height, t->resident_level,
               t->resident_width, t->resident_levels);
        n = json_str(buf, cap, n, t->sampler);
        APPEND("}");
    }
    APPEND("]}");
    return n;
}

size_t rill_render_instance_info_text(const rill_render_instance_info *info, char *buf,
                                      size_t cap) {
    size_t n = 0;
    if (cap) {
        buf[0] = 0;
    }
    APPEND("pipeline %s, shader %s\n", info->pipeline, info->shader);
    APPEND("mesh %u (%u indices%s), material %u: alpha %s%s\n", info->mesh, info->index_count,
           info->batched ? ", in a shared block" : "", info->material, info->alpha_mode,
           info->double_sided ? ", double-sided" : "");
    APPEND("render mode %s", info->render_mode);
    if (info->range_count) {
        APPEND(", %u ranges (static batch)", info->range_count);
    }
    APPEND("\n");
    for (uint32_t i = 0; i < info->texture_count && i < RILL_RENDER_MATERIAL_SLOTS; i++) {
        const rill_render_texture_info *t = &info->textures[i];
        if (!t->texture) {
            if (i <= RILL_MATERIAL_TEX_EMISSIVE) { /* the extension slots only when they are set */
                APPEND("  %-18s placeholder, %s\n", t->slot, t->sampler);
            }
            continue;
        }
        APPEND("  %-18s %s %ux%u %s%s, level %u resident (%u px, %u levels), %s\n", t->slot,
               t->path ? t->path : "(embedded)", t->width, t->height, t->format,
               t->srgb ? " srgb" : "", t->resident_level, t->resident_width, t->resident_levels,
               t->sampler);
    }
    return n;
}
#undef APPEND
