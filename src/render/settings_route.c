/* settings_route.c: the effect settings components (Ssao, Bloom, AutoExposure, and the
 * anti-aliasing ones: TemporalAntiAliasing, Fxaa, Smaa, ContrastAdaptiveSharpening) and the routing
 * table rill_render_extract rebuilds every frame: each camera's route is itself, then every other
 * source that is not a camera in entity-id order (settings on a camera entity are that camera's
 * own: a split screen can bloom one half); per settings type the first source wins, and the view
 * gets a copy. */
#include "gi_internal.h"
#include "post_internal.h"
#include "render_internal.h"
#include "rill/render/effects.h"
#include "rill/render/environment.h"

#include <stdlib.h>
#include <string.h>

static const rill_enum_item ssao_quality_items[] = {
    {"High", RILL_SSAO_HIGH},   {"Low", RILL_SSAO_LOW},       {"Medium", RILL_SSAO_MEDIUM},
    {"Ultra", RILL_SSAO_ULTRA}, {"Custom", RILL_SSAO_CUSTOM},
};
static const uint32_t u_three = 3;
static const float f_quarter = 0.25f, f_half = 0.5f, f_bloom_i = 0.15f, f_one = 1.0f,
                   f_rate = 0.05f, f_min_ev = -10.0f, f_max_ev = 10.0f;

static const rill_field ssao_fields[] = {
    {.name = "quality",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_ssao, quality),
     .enum_items = ssao_quality_items,
     .enum_count = 5,
     .doc = "preset: High (18 samples, default), Low 4, Medium 8, Ultra 54, Custom"},
    {.name = "slice_count",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_render_ssao, slice_count),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 16,
     .default_value = &u_three,
     .doc = "Custom: directions per pixel (1..16)"},
    {.name = "samples_per_slice_side",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_render_ssao, samples_per_slice_side),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 8,
     .default_value = &u_three,
     .doc = "Custom: samples on each side of a direction (1..8)"},
    {.name = "thickness",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_ssao, thickness),
     .flags = RILL_FIELD_HAS_MIN,
     .min = 0,
     .default_value = &f_quarter,
     .doc = "assumed depth of surfaces (world units, >= 0)"},
    {.name = "radius",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_ssao, radius),
     .flags = RILL_FIELD_HAS_MIN,
     .min = 0,
     .default_value = &f_half,
     .doc = "sampling radius (world units)"},
};
static const rill_render_ssao ssao_default = {.enabled = true, .thickness_set = true};

static const rill_field bloom_fields[] = {
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_bloom, intensity),
     .flags = RILL_FIELD_HAS_MIN,
     .default_value = &f_bloom_i,
     .doc = "how much of the blurred light is added"},
    {.name = "threshold",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_bloom, threshold),
     .flags = RILL_FIELD_HAS_MIN,
     .default_value = &f_one,
     .doc = "linear HDR brightness where light starts to bloom"},
};
static const rill_render_bloom bloom_default = {.enabled = true, .threshold_set = true};

static const rill_field ae_fields[] = {
    {.name = "rate",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_auto_exposure, rate),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 1,
     .default_value = &f_rate,
     .doc = "fraction of the remaining difference closed each frame"},
    {.name = "min_ev",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_auto_exposure, min_ev),
     .default_value = &f_min_ev,
     .doc = "lowest exposure (EV)"},
    {.name = "max_ev",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_auto_exposure, max_ev),
     .default_value = &f_max_ev,
     .doc = "highest exposure (EV)"},
};
static const rill_render_auto_exposure ae_default = {.enabled = true};

static const rill_field taa_fields[] = {
    {.name = "reset",
     .type = RILL_FIELD_BOOL,
     .offset = offsetof(rill_render_taa, reset),
     .doc = "drop the history this frame (a camera cut)"},
};

static const rill_enum_item fxaa_items[] = {
    {"High", RILL_FXAA_HIGH},   {"Low", RILL_FXAA_LOW},         {"Medium", RILL_FXAA_MEDIUM},
    {"Ultra", RILL_FXAA_ULTRA}, {"Extreme", RILL_FXAA_EXTREME},
};
static const rill_field fxaa_fields[] = {
    {.name = "edge_threshold",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_fxaa, edge_threshold),
     .enum_items = fxaa_items,
     .enum_count = 5,
     .doc = "relative contrast that makes an edge: High 0.125 (default), Low 0.25, Medium 0.166, "
            "Ultra 0.063, Extreme 0.031"},
    {.name = "edge_threshold_min",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_fxaa, edge_threshold_min),
     .enum_items = fxaa_items,
     .enum_count = 5,
     .doc = "darkest contrast still processed: High 0.0312 (default), Low 0.0833, Medium 0.0625, "
            "Ultra 0.0156, Extreme 0.0078"},
};

static const rill_enum_item smaa_items[] = {
    {"High", RILL_SMAA_HIGH},
    {"Low", RILL_SMAA_LOW},
    {"Medium", RILL_SMAA_MEDIUM},
    {"Ultra", RILL_SMAA_ULTRA},
};
static const rill_field smaa_fields[] = {
    {.name = "preset",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_smaa, preset),
     .enum_items = smaa_items,
     .enum_count = 4,
     .doc = "edge threshold / search steps: High 0.1/16 (default), Low 0.15/4, Medium 0.1/8, "
            "Ultra 0.05/32"},
};

static const float f_cas = 0.6f;
static const rill_field cas_fields[] = {
    {.name = "sharpening_strength",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_cas, sharpening_strength),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0,
     .max = 1,
     .default_value = &f_cas,
     .doc = "0 mildest .. 1 strongest sharpening"},
    {.name = "denoise",
     .type = RILL_FIELD_BOOL,
     .offset = offsetof(rill_render_cas, denoise),
     .doc = "sharpen less where the neighbourhood is noisy"},
};
static const rill_render_cas cas_default = {.sharpening_strength = 0.6f};

/* The anti-aliasing settings types, in the order they are routed. */
static rill_result register_aa(rill_world *w, rill_render_components *out, rill_error *err) {
    rill_type_desc d[4] = {
        {.name = "TemporalAntiAliasing",
         RILL_TYPE_LAYOUT(rill_render_taa),
         RILL_FIELDS(taa_fields),
         .doc = "temporal anti-aliasing (jittered camera + history), routed to cameras"},
        {.name = "Fxaa",
         RILL_TYPE_LAYOUT(rill_render_fxaa),
         RILL_FIELDS(fxaa_fields),
         .doc = "fast approximate anti-aliasing, routed to cameras"},
        {.name = "Smaa",
         RILL_TYPE_LAYOUT(rill_render_smaa),
         RILL_FIELDS(smaa_fields),
         .doc = "subpixel morphological anti-aliasing (1x), routed to cameras"},
        {.name = "ContrastAdaptiveSharpening",
         RILL_TYPE_LAYOUT(rill_render_cas),
         RILL_FIELDS(cas_fields),
         .defaults = &cas_default,
         .doc = "contrast-adaptive sharpening, routed to cameras"},
    };
    rill_component *const slots[4] = {&out->taa, &out->fxaa, &out->smaa, &out->cas};
    return rill__render_settings_ensure(w, d, 4, out, slots, err);
}

rill_component rill__render_type_ensure(rill_world *w, const rill_type_desc *d, rill_error *err) {
    rill_component c = rill_world_find_component(w, d->name);
    if (!c.id) {
        c = rill_world_register_component(w, d);
    }
    if (!c.id) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: could not register the %s component", d->name);
    }
    return c;
}

rill_result rill__render_settings_ensure(rill_world *w, const rill_type_desc *d, uint32_t n,
                                         rill_render_components *out, rill_component *const *slots,
                                         rill_error *err) {
    for (uint32_t i = 0; i < n; i++) {
        rill_component c = rill__render_type_ensure(w, &d[i], err);
        if (!c.id) {
            return RILL_ERR_INVALID_ARGUMENT;
        }
        if (slots) {
            *slots[i] = c;
        }
        RILL_TRY(rill_render_components_add_settings(out, c, err));
    }
    return RILL_OK;
}

rill_result rill__render_settings_register(rill_world *w, rill_render_components *out,
                                           rill_error *err) {
    const rill_type_desc d[3] = {
        {.name = "Ssao",
         RILL_TYPE_LAYOUT(rill_render_ssao),
         RILL_FIELDS(ssao_fields),
         .defaults = &ssao_default,
         .doc = "screen-space ambient occlusion settings, routed to cameras"},
        {.name = "Bloom",
         RILL_TYPE_LAYOUT(rill_render_bloom),
         RILL_FIELDS(bloom_fields),
         .defaults = &bloom_default,
         .doc = "bloom settings, routed to cameras"},
        {.name = "AutoExposure",
         RILL_TYPE_LAYOUT(rill_render_auto_exposure),
         RILL_FIELDS(ae_fields),
         .defaults = &ae_default,
         .doc = "auto exposure settings, routed to cameras"},
    };
    rill_component *const slots[3] = {&out->ssao, &out->bloom, &out->auto_exposure};
    out->settings_count = 0;
    rill_result r = rill__render_settings_ensure(w, d, 3, out, slots, err);
    if (r == RILL_OK) {
        r = register_aa(w, out, err);
    }
    if (r == RILL_OK) {
        r = rill__environment_register(w, out, err);
    }
    if (r == RILL_OK) {
        r = rill__ssr_register(w, out, err);
    }
    if (r == RILL_OK) {
        r = rill__gi_register_components(w, out, err);
    }
    if (r == RILL_OK) {
        r = rill__post_register_components(w, out, err); /* post_settings.c */
    }
    if (r == RILL_OK) {
        r = rill__probe_register(w, err);
    }
    if (r == RILL_OK) {
        r = rill__envmap_register(w, out, err); /* envmap.c */
    }
    if (r == RILL_OK) {
        r = rill__vfog_register(w, out, err); /* fog_volume.c */
    }
    if (r == RILL_OK) {
        r = rill__clouds_register(w, out, err); /* clouds.c */
    }
    if (r == RILL_OK) {
        r = rill__water_register(w, err); /* water.c */
    }
    if (r == RILL_OK) {
        r = rill__ocean_register(w, out, err); /* ocean.c */
    }
    if (r == RILL_OK) {
        r = rill__msaa_register(w, out, err); /* msaa.c: Msaa, OrderIndependentTransparency */
    }
    return r;
}

rill_result rill_render_components_add_settings(rill_render_components *comps,
                                                rill_component settings, rill_error *err) {
    if (!comps || !settings.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: NULL settings component");
    }
    for (uint32_t i = 0; i < comps->settings_count; i++) {
        if (comps->settings[i].id == settings.id) {
            return RILL_OK;
        }
    }
    if (comps->settings_count >= RILL_RENDER_MAX_SETTINGS) {
        return rill_error_set(err, RILL_ERR_LIMIT, "render: more than %u settings types",
                              RILL_RENDER_MAX_SETTINGS);
    }
    comps->settings[comps->settings_count++] = settings;
    return RILL_OK;
}

/* The routed copy of `type` on v, with its source (NULL when none or of another size). */
const rill_render_routed_settings *rill__view_routed(const rill_render_view *v, const char *type,
                                                     uint32_t size) {
    for (uint32_t i = 0; v && i < v->settings_count; i++) {
        const rill_render_routed_settings *rs = &v->settings[i];
        if (rs->type && strcmp(rs->type, type) == 0) {
            return rs->size == size ? rs : NULL;
        }
    }
    return NULL;
}

const void *rill_render_view_settings(const rill_render_view *v, const char *type, uint32_t *size) {
    if (!v || !type) {
        return NULL;
    }
    for (uint32_t i = 0; i < v->settings_count; i++) {
        if (v->settings[i].type && strcmp(v->settings[i].type, type) == 0) {
            if (size) {
                *size = v->settings[i].size;
            }
            return v->settings[i].data;
        }
    }
    return NULL;
}

static int entity_cmp(const void *a, const void *b) {
    rill_entity x = *(const rill_entity *)a, y = *(const rill_entity *)b;
    return x < y ? -1 : (x > y);
}

/* The sources of one settings type, in entity order, into buf->route_sources. */
static bool collect_sources(rill_world *w, rill_component t, rill_render_extract_buf *buf) {
    rill_array_clear(&buf->route_sources);
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = t;
    rill_query q = rill_world_query(w, &qd);
    while (rill_query_next(&q)) {
        if (!rill_array_push(&buf->route_sources, q.entity)) {
            return false;
        }
    }
    if (buf->route_sources.len > 1) {
        qsort(buf->route_sources.data, buf->route_sources.len, sizeof(rill_entity), entity_cmp);
    }
    return true;
}

/* Copies the settings the engine's effects read into the view's own fields. */
static void apply_engine(const rill_render_components *comps, rill_component t, const void *data,
                         rill_render_view *v) {
    if (t.id == comps->ssao.id) {
        memcpy(&v->ssao, data, sizeof(v->ssao));
        v->ssao.enabled = true;
        v->ssao.thickness_set = true;
    } else if (t.id == comps->bloom.id) {
        memcpy(&v->bloom, data, sizeof(v->bloom));
        v->bloom.enabled = true;
        v->bloom.threshold_set = true;
    } else if (t.id == comps->auto_exposure.id) {
        memcpy(&v->auto_exposure, data, sizeof(v->auto_exposure));
        v->auto_exposure.enabled = true;
    } else if (t.id == comps->world_environment.id) {
        /* The SSAO section, unless an Ssao component on the route set it (Ssao routes first). */
        const rill_world_environment *env = data;
        if (!v->ssao.enabled && env->ssao.enabled) {
            v->ssao = env->ssao;
        }
    }
}

/* One WorldEnvironment per world: the one with the lowest entity id is every camera's (a
 * camera's own included), a second is warned about once per buffer, naming both, and ignored. */
static void warn_second_environment(rill_world *w, rill_render_extract_buf *buf) {
    if (buf->route_sources.len < 2 || buf->warned_environments) {
        return;
    }
    buf->warned_environments = true;
    rill_entity a = buf->route_sources.data[0], b = buf->route_sources.data[1];
    const char *na = rill_world_get_name(w, a), *nb = rill_world_get_name(w, b);
    RILL_LOG_WARN("render",
                  "extract: %u WorldEnvironment components; a world has one: entity %u:%u%s%s%s "
                  "is used, entity %u:%u%s%s%s (and any other) is ignored",
                  (unsigned)buf->route_sources.len, RILL_ENTITY_INDEX(a), RILL_ENTITY_GENERATION(a),
                  na ? " (" : "", na ? na : "", na ? ")" : "", RILL_ENTITY_INDEX(b),
                  RILL_ENTITY_GENERATION(b), nb ? " (" : "", nb ? nb : "", nb ? ")" : "");
}

rill_result rill__render_route_settings(rill_world *w, const rill_render_components *comps,
                                        rill_render_extract_buf *buf, rill_render_view **views,
                                        const rill_entity *cams, uint32_t n, rill_error *err) {
    rill_array_clear(&buf->routed_bytes);
    for (uint32_t vi = 0; vi < n; vi++) {
        views[vi]->settings_count = 0;
    }
    for (uint32_t ti = 0; ti < comps->settings_count; ti++) {
        rill_component t = comps->settings[ti];
        const rill_type_desc *td = rill_world_component_type(w, t);
        if (!td || !rill_world_component_len(w, t)) {
            continue;
        }
        if (!collect_sources(w, t, buf)) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory routing");
        }
        bool env = t.id == comps->world_environment.id;
        if (env) {
            warn_second_environment(w, buf);
        }
        /* The shared source: the first that is not a camera (the world's one environment is
         * every camera's, a camera's included). */
        rill_entity shared = RILL_ENTITY_NULL;
        for (uint32_t k = 0; k < buf->route_sources.len && shared == RILL_ENTITY_NULL; k++) {
            rill_entity e = buf->route_sources.data[k];
            shared = env || !rill_world_has(w, e, rill_world_builtin(w)->camera) ? e : shared;
        }
        for (uint32_t vi = 0; vi < n; vi++) {
            rill_entity src = rill_world_has(w, cams[vi], t) && !env ? cams[vi] : shared;
            if (src == RILL_ENTITY_NULL) {
                continue; /* only other cameras hold it: their own */
            }
            const void *data = rill_world_get(w, src, t);
            size_t at = buf->routed_bytes.len;
            size_t pad = (16 - (at & 15)) & 15;
            unsigned char *dst = rill_array_push_n(&buf->routed_bytes, pad + td->size);
            if (!dst || !data) {
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory routing");
            }
            memcpy(dst + pad, data, td->size);
            rill__settings_fix_nonfinite(td, src, dst + pad, buf); /* no NaN or inf routed */
            rill_render_routed_settings *rs = &buf->routed[vi][views[vi]->settings_count++];
            /* offset now, pointer once every copy is in (the array may move) */
            *rs = (rill_render_routed_settings){td->name, (const void *)(uintptr_t)(at + pad),
                                                td->size, src};
            apply_engine(comps, t, dst + pad, views[vi]);
        }
    }
    for (uint32_t vi = 0; vi < n; vi++) {
        for (uint32_t i = 0; i < views[vi]->settings_count; i++) {
            rill_render_routed_settings *rs = &buf->routed[vi][i];
            rs->data = buf->routed_bytes.data + (uintptr_t)rs->data;
        }
        views[vi]->settings = views[vi]->settings_count ? buf->routed[vi] : NULL;
    }
    return RILL_OK;
}
