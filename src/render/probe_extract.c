/* probe_extract.c: the reflection probe components (LightProbe, ReflectionProbeSource,
 * ParallaxCorrection: fields and defaults) and their part of rill_render_extract: one
 * rill_render_probe per entity with a LightProbe and a GlobalTransform, with the world's asset VFS
 * to read the sources through. */
#include "model_assets.h"
#include "render_internal.h"
#include "rill/asset.h"
#include "rill/render/reflections.h"

#include <stddef.h>
#include <string.h>

static const float f_tenth = 0.1f, f_one = 1.0f;
static const float v_one[3] = {1.0f, 1.0f, 1.0f};

static const rill_field probe_fields[] = {
    {.name = "falloff",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_light_probe, falloff),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 1,
     .default_value = &f_tenth,
     .doc = "fraction of the box over which the probe fades out at its faces, default 0.1"},
};

static const rill_field source_fields[] = {
    {.name = "source",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_reflection_probe_source, source),
     .doc = "equirectangular image (.hdr, .png, ...) or a .rmip cube; empty: the probe is inert"},
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_reflection_probe_source, intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 1000,
     .default_value = &f_one,
     .doc = "multiplier of the probe's light, default 1"},
    {.name = "capture",
     .type = RILL_FIELD_BOOL,
     .offset = offsetof(rill_reflection_probe_source, capture),
     .doc = "render the scene from the probe's centre into its cube instead of an image, once "
            "(the probe is inert until then), default off"},
    {.name = "capture_version",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_reflection_probe_source, capture_version),
     .doc = "with capture: a new value captures again (bump it after the scene changed)"},
};

static const rill_enum_item parallax_items[] = {
    {"Auto", RILL_PARALLAX_AUTO},
    {"None", RILL_PARALLAX_NONE},
    {"Custom", RILL_PARALLAX_CUSTOM},
};

static const rill_field parallax_fields[] = {
    {.name = "mode",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_parallax_correction, mode),
     .enum_items = parallax_items,
     .enum_count = 3,
     .doc = "Auto (the probe's box, default), None (infinitely far), Custom (half_extents)"},
    {.name = "half_extents",
     .type = RILL_FIELD_VEC3,
     .offset = offsetof(rill_parallax_correction, half_extents),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0.01,
     .max = 1e5,
     .default_value = v_one,
     .doc = "Custom: metres along the probe's axes, default (1, 1, 1)"},
};

rill_result rill__probe_register(rill_world *w, rill_error *err) {
    const rill_type_desc d[3] = {
        {.name = "LightProbe",
         RILL_TYPE_LAYOUT(rill_light_probe),
         RILL_FIELDS(probe_fields),
         .doc = "a reflection probe: the entity's transform maps the unit cube onto the box it "
                "influences"},
        {.name = "ReflectionProbeSource",
         RILL_TYPE_LAYOUT(rill_reflection_probe_source),
         RILL_FIELDS(source_fields),
         .doc = "where a reflection probe's cube comes from (an equirectangular image or a .rmip "
                "cube, or a capture of the scene)"},
        {.name = "ParallaxCorrection",
         RILL_TYPE_LAYOUT(rill_parallax_correction),
         RILL_FIELDS(parallax_fields),
         .doc = "how a reflection probe's cube is projected: None, Auto (its box), Custom"},
    };
    for (int i = 0; i < 3; i++) {
        if (!rill__render_type_ensure(w, &d[i], err).id) {
            return RILL_ERR_INVALID_ARGUMENT;
        }
    }
    return RILL_OK;
}

rill_result rill__probe_extract(rill_world *world, rill_render_extract_buf *buf,
                                rill_render_snapshot *out, rill_error *err) {
    rill_array_clear(&buf->probes);
    out->probes = NULL;
    out->probe_count = 0;
    rill_component lp = rill_world_find_component(world, "LightProbe");
    if (!lp.id) {
        return RILL_OK;
    }
    rill_component src = rill_world_find_component(world, "ReflectionProbeSource");
    rill_component par = rill_world_find_component(world, "ParallaxCorrection");
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = lp;
    qd.with[1] = rill_world_builtin(world)->global_transform;
    rill_query q = rill_world_query(world, &qd);
    while (rill_query_next(&q)) {
        const rill_light_probe *l = rill_query_get(&q, 0);
        const rill_global_transform *xf = rill_query_get(&q, 1);
        const rill_reflection_probe_source *s =
            src.id ? rill_world_get(world, q.entity, src) : NULL;
        const rill_parallax_correction *pc = par.id ? rill_world_get(world, q.entity, par) : NULL;
        struct rill_render_probe p;
        memset(&p, 0, sizeof(p));
        memcpy(p.world_from_probe, xf->m, sizeof(p.world_from_probe));
        p.falloff = l->falloff;
        p.intensity = s ? s->intensity : 1.0f;
        p.source = s && s->source && s->source[0] ? s->source : NULL;
        p.capture = s && s->capture;
        p.capture_version = s ? s->capture_version : 0;
        p.parallax = pc ? pc->mode : RILL_PARALLAX_AUTO;
        memcpy(p.half_extents, pc ? pc->half_extents : v_one, sizeof(p.half_extents));
        p.entity = q.entity;
        if (!rill_array_push(&buf->probes, p)) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory in extract");
        }
    }
    out->probes = buf->probes.data;
    out->probe_count = buf->probes.len;
    rill_render_assets *ra = rill__render_assets_of(world);
    rill_asset_server *as = ra ? rill__render_assets_server(ra) : NULL;
    out->probe_vfs = as ? rill_asset_server_vfs(as) : NULL;
    return RILL_OK;
}
