/* ocean.c: Water, the FFT ocean (rill/render/ocean.h): the component (fields, defaults,
 * registration as a component and a routed settings type), its part of extract (with the
 * entity's channel mode), and planning: once a frame, the ocean to draw (lowest entity id; the
 * others named once), its settings clamped (warnings naming entity and field), the quality
 * tier's grid size and cascade count, and the block the ocean shaders read. The GPU passes are in
 * ocean_draw.c. */
#include "ocean_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "rill/channels.h"

/* >>component ------------------------------------------------------------------------------- */

#define OC_F32(member, lo, hi, text)                                                               \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_F32, .offset = offsetof(rill_render_water, member),    \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
#define OC_VEC(member, kind, lo, hi, text)                                                         \
    {                                                                                              \
        .name = #member, .type = kind, .offset = offsetof(rill_render_water, member),              \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
static const rill_field water_fields[] = {
    OC_F32(wind_speed, 0.5, 40, "metres per second 10 m above the sea, default 10"),
    OC_VEC(wind_direction, RILL_FIELD_VEC2, -1, 1,
           "where the waves run, the entity's local x and z, default (1, 0)"),
    OC_F32(choppiness, 0, 4, "horizontal displacement scale (sharper crests), default 1.2"),
    OC_F32(amplitude, 0, 10, "scale of the spectrum's wave heights, default 1"),
    OC_F32(fetch_km, 1, 2000, "JONSWAP fetch: km of sea the wind has blown over, default 100"),
    OC_VEC(tile_size, RILL_FIELD_VEC3, 1, 4000,
           "metres each cascade's tile repeats over, largest first, default (250, 37, 5)"),
    {.name = "cascades",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_render_water, cascades),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = RILL_RENDER_OCEAN_MAX_CASCADES,
     .doc = "simulated tiles, 1..3 (Low tier: at most 2), default 3"},
    {.name = "depth_color",
     .type = RILL_FIELD_COLOR,
     .offset = offsetof(rill_render_water, depth_color),
     .doc = "colour deep water tends to (linear), default (0, 0.15, 0.2)"},
    {.name = "scatter_color",
     .type = RILL_FIELD_COLOR,
     .offset = offsetof(rill_render_water, scatter_color),
     .doc = "tint of what is seen through the water (linear), default (0.8, 1, 0.95)"},
    OC_F32(clarity, 0.01, 1000, "metres of water over which light falls to 1/e, default 6"),
    OC_F32(foam, 0, 4, "foam where the surface folds, 0 none, default 1"),
    OC_VEC(extent, RILL_FIELD_VEC2, 0, 1e6,
           "metres along local x and z around the entity; (0, 0) an infinite sea (default)"),
};

rill_render_water rill_render_water_query_defaults(void) {
    rill_render_water w = {.wind_speed = 10.0f,
                           .wind_direction = {1.0f, 0.0f},
                           .choppiness = 1.2f,
                           .amplitude = 1.0f,
                           .fetch_km = 100.0f,
                           .tile_size = {250.0f, 37.0f, 5.0f},
                           .cascades = 3,
                           .depth_color = {0.0f, 0.15f, 0.2f, 1.0f},
                           .scatter_color = {0.8f, 1.0f, 0.95f, 1.0f},
                           .clarity = 6.0f,
                           .foam = 1.0f,
                           .extent = {0.0f, 0.0f}};
    return w;
}

rill_result rill__ocean_register(rill_world *w, rill_render_components *out, rill_error *err) {
    static rill_render_water def;
    def = rill_render_water_query_defaults();
    const rill_type_desc d = {
        .name = "Water",
        RILL_TYPE_LAYOUT(rill_render_water),
        RILL_FIELDS(water_fields),
        .defaults = &def,
        .doc = "an FFT ocean (JONSWAP spectrum, cascades simulated once a frame) on the entity's "
               "local plane y = 0 (on a camera: the world plane y = 0), infinite or `extent` "
               "metres, with Fresnel sky reflection, depth colour and foam"};
    rill_component c = rill__render_type_ensure(w, &d, err);
    if (!c.id) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    RILL_TRY(rill_channels_watch(w, c, err)); /* a mesh like any other: it gets channels */
    return rill_render_components_add_settings(out, c, err);
}

typedef struct extract_ctx {
    rill_world *w;
    rill_render_extract_buf *buf;
    rill_component camera;
} extract_ctx;

static bool push_ocean(void *user, const float world_from[16], const void *component,
                       rill_entity entity) {
    extract_ctx *x = user;
    rill_render_water_surface s;
    memset(&s, 0, sizeof(s));
    float opacity = 1.0f;
    rill_render_mode mode =
        rill_channels_resolve(x->buf->channel_modes, rill_channels_get(x->w, entity), &opacity);
    if (mode == RILL_RENDER_MODE_HIDDEN) {
        return true;
    }
    if (x->camera.id && rill_world_get(x->w, entity, x->camera)) {
        mat4 id = GLM_MAT4_IDENTITY_INIT; /* --effect: the world plane y = 0 */
        memcpy(s.world_from_water, id, sizeof(id));
        s.on_camera = true;
    } else {
        memcpy(s.world_from_water, world_from, sizeof(s.world_from_water));
    }
    memcpy(&s.water, component, sizeof(s.water));
    s.entity = entity;
    s.mode = (uint32_t)mode;
    s.ghost_opacity = opacity;
    return rill_array_push(&x->buf->oceans, s);
}

bool rill__ocean_extract(rill_world *w, rill_render_extract_buf *buf, rill_render_snapshot *out) {
    rill_array_clear(&buf->oceans);
    out->oceans = NULL;
    out->ocean_count = 0;
    extract_ctx x = {w, buf, rill_world_builtin(w)->camera};
    if (!rill__extract_boxes(w, "Water", push_ocean, &x)) {
        return false;
    }
    out->oceans = buf->oceans.data;
    out->ocean_count = (uint32_t)buf->oceans.len;
    return true;
}

/* >>planning -------------------------------------------------------------------------------- */

rill_result rill__ocean_create(rill_renderer *r, rill_error *err) {
    r->ocean = rill_calloc_tagged(1, sizeof(*r->ocean), RILL_MEM_RENDER);
    if (!r->ocean) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

void rill__ocean_destroy(rill_renderer *r) {
    rill__ocean *o = r->ocean;
    if (!o) {
        return;
    }
    rill__ocean_free_gpu(r, o);
    rill_free(o);
    r->ocean = NULL;
}

/* w's values made safe, warning once per (entity, field) about each it replaced. */
static void fix(rill_renderer *r, rill_entity src, rill_render_water *w) {
    rill__fix_src s = {&r->env_warned, "Water", src};
    rill_render_water d = rill_render_water_query_defaults();
    w->wind_speed = rill__fix(&s, "wind_speed", w->wind_speed, 0.5f, 40.0f, d.wind_speed);
    for (int k = 0; k < 2; k++) {
        w->wind_direction[k] =
            rill__fix(&s, "wind_direction", w->wind_direction[k], -1.0f, 1.0f, 0.0f);
    }
    float n = hypotf(w->wind_direction[0], w->wind_direction[1]);
    if (n < 1e-6f) {
        rill__fix_warn(&s, "wind_direction", 0.0, 1.0);
        w->wind_direction[0] = 1.0f, w->wind_direction[1] = 0.0f, n = 1.0f;
    }
    w->wind_direction[0] /= n, w->wind_direction[1] /= n;
    w->choppiness = rill__fix(&s, "choppiness", w->choppiness, 0.0f, 4.0f, d.choppiness);
    w->amplitude = rill__fix(&s, "amplitude", w->amplitude, 0.0f, 10.0f, d.amplitude);
    w->fetch_km = rill__fix(&s, "fetch_km", w->fetch_km, 1.0f, 2000.0f, d.fetch_km);
    for (int k = 0; k < 3; k++) {
        w->tile_size[k] =
            rill__fix(&s, "tile_size", w->tile_size[k], 1.0f, 4000.0f, d.tile_size[k]);
    }
    w->cascades = rill__fix_u32(&s, "cascades", w->cascades, 1, RILL_RENDER_OCEAN_MAX_CASCADES);
    for (int k = 0; k < 3; k++) {
        w->depth_color[k] = rill__fix(&s, "depth_color", w->depth_color[k], 0.0f, 1.0f, 0.0f);
        w->scatter_color[k] = rill__fix(&s, "scatter_color", w->scatter_color[k], 0.0f, 1.0f, 1.0f);
    }
    w->clarity = rill__fix(&s, "clarity", w->clarity, 0.01f, 1000.0f, d.clarity);
    w->foam = rill__fix(&s, "foam", w->foam, 0.0f, 4.0f, d.foam);
    for (int k = 0; k < 2; k++) {
        w->extent[k] = rill__fix(&s, "extent", w->extent[k], 0.0f, 1e6f, 0.0f);
    }
}

/* The ocean to draw: one on a camera (what --effect asked for), else the lowest entity id (the
 * others named in a warning once). */
static const rill_render_water_surface *pick(rill__ocean *o, const rill_render_snapshot *snap) {
    const rill_render_water_surface *best = NULL;
    for (uint32_t i = 0; snap->oceans && i < snap->ocean_count; i++) {
        const rill_render_water_surface *s = &snap->oceans[i];
        if (!best || s->on_camera > best->on_camera ||
            (s->on_camera == best->on_camera && s->entity < best->entity)) {
            best = s;
        }
    }
    for (uint32_t i = 0; best && i < snap->ocean_count; i++) {
        const rill_render_water_surface *s = &snap->oceans[i];
        if (s != best && rill__warned_first(&o->warned, s->entity ^ (best->entity << 32))) {
            RILL_LOG_WARN("render",
                          "Water of entity %u:%u ignored: one ocean a world, entity "
                          "%u:%u's is drawn",
                          RILL_ENTITY_INDEX(s->entity), RILL_ENTITY_GENERATION(s->entity),
                          RILL_ENTITY_INDEX(best->entity), RILL_ENTITY_GENERATION(best->entity));
        }
    }
    return best;
}

/* Whether m maps the plane well enough to draw it (finite, invertible). */
static bool usable(const float m[16], mat4 inv) {
    mat4 a;
    memcpy(a, m, sizeof(a));
    float det = glm_mat4_det(a);
    if (!isfinite(det) || fabsf(det) < 1e-12f) {
        return false;
    }
    glm_mat4_inv(a, inv);
    return true;
}

static void fill_block(rill__ocean *o, const rill_render_water_surface *s,
                       const rill_render_water *w, const mat4 inv, rill__ocean_block *b) {
    memset(b, 0, sizeof(*b));
    memcpy(b->water_from_world, inv, sizeof(b->water_from_world));
    for (int k = 0; k < 3; k++) {
        b->tiles[k] = w->tile_size[k];
        b->depth[k] = w->depth_color[k];
        b->scatter[k] = w->scatter_color[k];
    }
    b->tiles[3] = (float)o->cascades;
    b->depth[3] = w->clarity;
    b->scatter[3] = w->foam;
    b->wind[0] = w->wind_direction[0];
    b->wind[1] = w->wind_direction[1];
    b->wind[2] = w->wind_speed;
    b->wind[3] = w->fetch_km * 1000.0f;
    b->sim[0] = w->amplitude;
    b->sim[1] = w->choppiness;
    b->sim[2] = (float)o->size;
    b->sim[3] = o->time;
    b->extent[0] = 0.5f * w->extent[0];
    b->extent[1] = 0.5f * w->extent[1];
    b->extent[2] = (w->extent[0] > 0.0f && w->extent[1] > 0.0f) ? 1.0f : 0.0f;
    b->mode[0] = (float)s->mode;
    b->mode[1] =
        s->mode == RILL_RENDER_MODE_GHOST ? RILL_CLAMP(s->ghost_opacity, 0.0f, 1.0f) : 1.0f;
}

rill_result rill__ocean_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                             rill_error *err) {
    rill__ocean *o = r->ocean;
    o->on = false;
    const rill_render_water_surface *s = pick(o, snap);
    mat4 inv;
    if (!s || r->frame.no_view || !usable(s->world_from_water, inv)) {
        return RILL_OK;
    }
    rill_render_water w = s->water;
    fix(r, s->entity, &w);
    bool low = r->desc.quality == RILL_RENDER_QUALITY_LOW;
    o->size = low ? RILL_RENDER_OCEAN_SIZE / 2 : RILL_RENDER_OCEAN_SIZE;
    o->cascades = low ? RILL_MIN(w.cascades, 2u) : w.cascades;
    /* The sea repeats every RILL__OCEAN_PERIOD seconds (frequencies are quantised to it), so the
     * time kept is the frame time modulo it, in double until then. */
    double t = (double)r->frame_counter / 60.0;
    o->time = (float)fmod(t, RILL__OCEAN_PERIOD);
    rill__ocean_block *b = rill__frame_alloc(cmd, sizeof(*b), 256, &o->block_buf, &o->block_off);
    if (!b) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    fill_block(o, s, &w, inv, b);
    RILL_TRY(rill__ocean_make_gpu(r, o, err));
    o->on = true;
    return RILL_OK;
}
