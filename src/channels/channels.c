/* channels.c: the SceneChannels component, its defaults (assigned by world add observers on the
 * components that make an entity renderable, and on Name for renames) and the per-channel render
 * modes resource (rill/channels.h). */
#include "rill/channels.h"

#include <stdlib.h>
#include <string.h>

#define NM_PREFIX "NM_"
#define MAX_DEPTH 256u /* ancestor walk limit (the world refuses cycles; this bounds the cost) */

static const rill_field channel_fields[] = {
    RILL_FIELD(rill_scene_channels, mask, U64),
    RILL_FIELD(rill_scene_channels, from_defaults, BOOL),
};

/* ChannelMask { mask }: channels authored in a scene file, applied as an explicit set. */
static const rill_field authored_fields[] = {RILL_FIELD(rill_channel_mask, mask, U64)};

static rill_channel_modes *modes_mut(const rill_world *w) {
    rill_resource res = rill_world_find_resource(w, "SceneChannelModes");
    return res.id ? rill_world_get_resource(w, res) : NULL;
}

const rill_channel_modes *rill_channels_modes(const rill_world *world) {
    return world ? modes_mut(world) : NULL;
}

rill_component rill_channels_component(const rill_world *world) {
    const rill_channel_modes *m = rill_channels_modes(world);
    return m ? m->comp : RILL_COMPONENT_NONE;
}

/* The renderable components, in the order the census visits them. */
static uint32_t renderable_comps(const rill_channel_modes *m, rill_component *out) {
    uint32_t n = 0;
    rill_component fixed[3] = {m->model_mesh, m->model, m->mesh_instance};
    for (uint32_t i = 0; i < 3; i++) {
        if (fixed[i].id) {
            out[n++] = fixed[i];
        }
    }
    for (uint32_t i = 0; i < m->watched_count && i < RILL_COUNTOF(m->watched); i++) {
        out[n++] = m->watched[i];
    }
    return n;
}

static bool renderable(const rill_world *w, const rill_channel_modes *m, rill_entity e) {
    rill_component comps[3 + RILL_COUNTOF(m->watched)];
    uint32_t n = renderable_comps(m, comps);
    for (uint32_t i = 0; i < n; i++) {
        if (rill_world_has(w, e, comps[i])) {
            return true;
        }
    }
    return false;
}

/* The default mask of e: the nearest explicit value or NM_ name on its ancestor chain. */
static uint64_t default_mask(const rill_world *w, const rill_channel_modes *m, rill_entity e) {
    rill_entity a = e;
    for (uint32_t depth = 0; a != RILL_ENTITY_NULL && depth < MAX_DEPTH; depth++) {
        const rill_scene_channels *sc = rill_world_get(w, a, m->comp);
        if (sc && !sc->from_defaults) {
            return sc->mask;
        }
        const char *name = rill_world_get_name(w, a);
        if (name && strncmp(name, NM_PREFIX, sizeof(NM_PREFIX) - 1) == 0) {
            return RILL_CHANNEL_SELECTABLE | RILL_CHANNEL_PRESERVE_IDENTITY;
        }
        a = rill_world_get_parent(w, a);
    }
    return RILL_CHANNEL_CONTEXT;
}

/* (Re)assigns e's default when it is renderable and its value is not explicit. */
static void assign_default(rill_world *w, const rill_channel_modes *m, rill_entity e) {
    const rill_scene_channels *sc = rill_world_get(w, e, m->comp);
    if (sc && !sc->from_defaults) {
        return;
    }
    if (!sc && !renderable(w, m, e)) {
        return; /* non-renderable: no channels */
    }
    rill_scene_channels v = {default_mask(w, m, e), true};
    if (!sc || sc->mask != v.mask) {
        rill_world_add(w, e, m->comp, &v);
    }
}

/* Refreshes the defaulted values below e (depth first, an explicit stack on the heap so a deep
 * tree cannot overflow the C stack). */
static void refresh_below(rill_world *w, const rill_channel_modes *m, rill_entity e) {
    if (!rill_world_first_child(w, e)) {
        return;
    }
    RILL_ARRAY(rill_entity) stack = {0};
    for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
        rill_array_push(&stack, c);
    }
    while (stack.len) {
        rill_entity d = stack.data[--stack.len];
        assign_default(w, m, d);
        for (rill_entity c = rill_world_first_child(w, d); c; c = rill_world_next_sibling(w, c)) {
            rill_array_push(&stack, c);
        }
    }
    rill_array_free(&stack);
}

static void on_renderable(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    (void)user;
    const rill_channel_modes *m = modes_mut(w);
    if (m) {
        assign_default(w, m, e);
    }
}

static void on_name(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    (void)user;
    const rill_channel_modes *m = modes_mut(w);
    if (m) {
        assign_default(w, m, e);
        refresh_below(w, m, e);
    }
}

static void on_authored(rill_world *w, rill_entity e, void *data, void *user) {
    (void)user;
    const rill_channel_mask *cm = data;
    if (cm) {
        rill_channels_set(w, e, cm->mask);
    }
}

void rill_channels_refresh(rill_world *world, rill_entity e, bool clear_explicit) {
    const rill_channel_modes *m = world ? modes_mut(world) : NULL;
    if (!m || !rill_world_is_alive(world, e)) {
        return;
    }
    rill_scene_channels *sc = rill_world_get(world, e, m->comp);
    if (sc && clear_explicit) {
        sc->from_defaults = true;
    }
    assign_default(world, m, e);
    refresh_below(world, m, e);
}

/* Renderable entities that existed before the observers did. Runs once per new observer. */
static void assign_existing(rill_world *w, const rill_channel_modes *m, rill_component comp) {
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comp;
    rill_query q = rill_world_query(w, &qd);
    RILL_ARRAY(rill_entity) list = {0};
    while (rill_query_next(&q)) {
        rill_array_push(&list, q.entity);
    }
    for (uint32_t i = 0; i < list.len; i++) {
        assign_default(w, m, list.data[i]);
    }
    rill_array_free(&list);
}

static bool observe(rill_world *w, rill_channel_modes *m, rill_component comp,
                    rill_component_hook fn) {
    if (!comp.id) {
        return true;
    }
    if (!rill_world_observe_add(w, comp, fn, NULL)) {
        return false;
    }
    assign_existing(w, m, comp);
    return true;
}

rill_result rill_channels_attach(rill_world *world, rill_error *err) {
    if (!world) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "channels: NULL world");
    }
    rill_model_components mc;
    if (rill_scene_model_register(world, &mc, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    rill_resource res = rill_world_find_resource(world, "SceneChannelModes");
    if (!res.id) {
        rill_type_desc rd = {.name = "SceneChannelModes",
                             RILL_TYPE_LAYOUT(rill_channel_modes),
                             .flags = RILL_TYPE_NO_SERIALIZE,
                             .doc = "render mode per scene channel bit"};
        res = rill_world_register_resource(world, &rd);
    }
    rill_channel_modes *m = res.id ? rill_world_get_resource(world, res) : NULL;
    if (res.id && !m) {
        m = rill_world_set_resource(world, res, NULL);
        for (uint32_t b = 0; m && b < RILL_CHANNEL_COUNT; b++) {
            m->opacity[b] = 1.0f;
        }
    }
    if (!m) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "channels: resource not registered");
    }
    if (!m->comp.id) {
        rill_type_desc cd = {.name = "SceneChannels",
                             RILL_TYPE_LAYOUT(rill_scene_channels),
                             .flags = RILL_TYPE_NO_SERIALIZE,
                             RILL_FIELDS(channel_fields),
                             .doc = "scene channel mask (rill/channels.h)"};
        rill_component c = rill_world_find_component(world, cd.name);
        m->comp = c.id ? c : rill_world_register_component(world, &cd);
        m = modes_mut(world);
        if (!m || !m->comp.id) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                  "channels: component not registered");
        }
    }
    if (!m->authored.id) {
        rill_type_desc ad = {.name = "ChannelMask",
                             RILL_TYPE_LAYOUT(rill_channel_mask),
                             RILL_FIELDS(authored_fields),
                             .doc = "scene channels set explicitly in a scene (bits: 1 context, 2 "
                                    "selectable, 4 preserve-identity, 8 ghost; rill/channels.h)"};
        rill_component c = rill_world_find_component(world, ad.name);
        c = c.id ? c : rill_world_register_component(world, &ad);
        m = modes_mut(world);
        if (!m || !c.id || !rill_world_observe_add(world, c, on_authored, NULL)) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                  "channels: ChannelMask not registered");
        }
        m->authored = c;
        /* Entities that carried it before the observer existed. */
        rill_query_desc qd;
        memset(&qd, 0, sizeof(qd));
        qd.with[0] = c;
        rill_query q = rill_world_query(world, &qd);
        RILL_ARRAY(rill_entity) list = {0};
        while (rill_query_next(&q)) {
            rill_array_push(&list, q.entity);
        }
        for (uint32_t i = 0; i < list.len; i++) {
            const rill_channel_mask *cm = rill_world_get(world, list.data[i], c);
            rill_channels_set(world, list.data[i], cm ? cm->mask : 0);
        }
        rill_array_free(&list);
        m = modes_mut(world);
    }
    bool ok = true;
    if (!m->name.id) {
        m->name = RILL_COMPONENT_NAME;
        ok = ok && rill_world_observe_add(world, RILL_COMPONENT_NAME, on_name, NULL);
    }
    if (!m->model.id) {
        m->model = mc.model;
        m->model_mesh = mc.model_mesh;
        ok = ok && observe(world, m, mc.model, on_renderable) &&
             observe(world, m, mc.model_mesh, on_renderable);
    }
    rill_component mi = rill_world_find_component(world, "MeshInstance");
    m = modes_mut(world);
    if (!m->mesh_instance.id && mi.id) {
        m->mesh_instance = mi;
        ok = ok && observe(world, m, mi, on_renderable);
    }
    if (!ok) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "channels: could not add observers");
    }
    return RILL_OK;
}

rill_result rill_channels_watch(rill_world *world, rill_component comp, rill_error *err) {
    if (!world || !comp.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "channels: watch needs a component");
    }
    rill_channel_modes *m = modes_mut(world);
    if (!m) {
        rill_result r = rill_channels_attach(world, err);
        if (r != RILL_OK) {
            return r;
        }
        m = modes_mut(world);
    }
    for (uint32_t i = 0; i < m->watched_count; i++) {
        if (rill_component_eq(m->watched[i], comp)) {
            return RILL_OK;
        }
    }
    if (m->watched_count == RILL_COUNTOF(m->watched)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "channels: more than %u watched components",
                              (unsigned)RILL_COUNTOF(m->watched));
    }
    m->watched[m->watched_count++] = comp;
    if (!observe(world, m, comp, on_renderable)) {
        m = modes_mut(world);
        m->watched_count--;
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "channels: could not add an observer");
    }
    return RILL_OK;
}

/* Counts entity e of the census (e is renderable). */
static void census_one(const rill_world *w, const rill_channel_modes *m, rill_entity e,
                       rill_channels_census *out) {
    const rill_scene_channels *sc = rill_world_get(w, e, m->comp);
    out->renderable++;
    if (!sc) {
        out->unassigned++;
        return;
    }
    out->explicit_set += !sc->from_defaults;
    out->stale += sc->from_defaults && sc->mask != default_mask(w, m, e);
    for (uint32_t b = 0; b < RILL_COUNTOF(out->bits); b++) {
        out->bits[b] += (uint32_t)(sc->mask >> b) & 1u;
    }
}

void rill_channels_take_census(const rill_world *world, rill_channels_census *out) {
    memset(out, 0, sizeof(*out));
    const rill_channel_modes *m = world ? modes_mut(world) : NULL;
    if (!m) {
        return;
    }
    rill_component comps[3 + RILL_COUNTOF(m->watched)];
    uint32_t nc = renderable_comps(m, comps);
    for (uint32_t c = 0; c < nc; c++) {
        const rill_entity *ents = NULL;
        uint32_t n = rill_world_component_dense(world, comps[c], &ents, NULL);
        for (uint32_t i = 0; i < n; i++) {
            bool counted = false; /* by an earlier component of the list */
            for (uint32_t k = 0; k < c && !counted; k++) {
                counted = rill_world_has(world, ents[i], comps[k]);
            }
            if (!counted) {
                census_one(world, m, ents[i], out);
            }
        }
    }
}

uint64_t rill_channels_get(const rill_world *world, rill_entity e) {
    const rill_channel_modes *m = world ? modes_mut(world) : NULL;
    const rill_scene_channels *sc = m ? rill_world_get(world, e, m->comp) : NULL;
    return sc ? sc->mask : 0;
}

bool rill_channels_set(rill_world *world, rill_entity e, uint64_t mask) {
    const rill_channel_modes *m = world ? modes_mut(world) : NULL;
    if (!m || !rill_world_is_alive(world, e)) {
        return false;
    }
    rill_scene_channels v = {mask, false};
    if (!rill_world_add(world, e, m->comp, &v)) {
        return false;
    }
    refresh_below(world, modes_mut(world), e);
    return true;
}

/* >>modes -------------------------------------------------------------------------------------- */

void rill_channels_set_mode(rill_world *world, uint64_t channels, rill_render_mode mode,
                            float opacity) {
    rill_channel_modes *m = world ? modes_mut(world) : NULL;
    if (!m || (uint32_t)mode >= RILL_RENDER_MODE_NUM) {
        return;
    }
    opacity = opacity >= 0.0f ? (opacity <= 1.0f ? opacity : 1.0f) : 0.0f; /* NaN -> 0 */
    for (uint32_t b = 0; b < RILL_CHANNEL_COUNT; b++) {
        if (channels & (UINT64_C(1) << b)) {
            m->mode[b] = (uint8_t)mode;
            m->opacity[b] = mode == RILL_RENDER_MODE_GHOST ? opacity : 1.0f;
        }
    }
    m->hidden = m->wireframe = m->ghost = 0;
    for (uint32_t b = 0; b < RILL_CHANNEL_COUNT; b++) {
        uint64_t bit = UINT64_C(1) << b;
        m->hidden |= m->mode[b] == RILL_RENDER_MODE_HIDDEN ? bit : 0;
        m->wireframe |= m->mode[b] == RILL_RENDER_MODE_WIREFRAME ? bit : 0;
        m->ghost |= m->mode[b] == RILL_RENDER_MODE_GHOST ? bit : 0;
    }
    m->changes++;
}

void rill_channels_set_visible(rill_world *world, uint64_t channels, bool visible) {
    rill_channels_set_mode(world, channels,
                           visible ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN, 1.0f);
}

rill_render_mode rill_channels_get_mode(const rill_world *world, uint32_t bit, float *opacity) {
    const rill_channel_modes *m = world ? modes_mut(world) : NULL;
    if (opacity) {
        *opacity = m && bit < RILL_CHANNEL_COUNT ? m->opacity[bit] : 1.0f;
    }
    return m && bit < RILL_CHANNEL_COUNT ? (rill_render_mode)m->mode[bit] : RILL_RENDER_MODE_NORMAL;
}

rill_render_mode rill_channels_resolve(const rill_channel_modes *m, uint64_t mask, float *opacity) {
    float op = 1.0f;
    rill_render_mode mode = RILL_RENDER_MODE_NORMAL;
    if (m && (mask & m->hidden)) {
        mode = RILL_RENDER_MODE_HIDDEN;
    } else if (m && (mask & m->wireframe)) {
        mode = RILL_RENDER_MODE_WIREFRAME;
    } else if (m && (mask & m->ghost)) {
        mode = RILL_RENDER_MODE_GHOST;
        for (uint64_t g = mask & m->ghost; g; g &= g - 1) {
            float o = m->opacity[__builtin_ctzll(g)];
            op = o < op ? o : op;
        }
    }
    if (opacity) {
        *opacity = op;
    }
    return mode;
}

/* Precedence rank: higher wins. */
static int rank(rill_render_mode m) {
    switch (m) {
    case RILL_RENDER_MODE_HIDDEN:
        return 3;
    case RILL_RENDER_MODE_WIREFRAME:
        return 2;
    case RILL_RENDER_MODE_GHOST:
        return 1;
    default:
        return 0;
    }
}

rill_render_mode rill_channels_join(rill_render_mode a, float a_opacity, rill_render_mode b,
                                    float b_opacity, float *out_opacity) {
    rill_render_mode r = rank(a) >= rank(b) ? a : b;
    float op = 1.0f;
    if (r == RILL_RENDER_MODE_GHOST) {
        op = a == RILL_RENDER_MODE_GHOST ? a_opacity : 1.0f;
        if (b == RILL_RENDER_MODE_GHOST && b_opacity < op) {
            op = b_opacity;
        }
    }
    if (out_opacity) {
        *out_opacity = op;
    }
    return r;
}

/* >>names -------------------------------------------------------------------------------------- */

static const char *const builtin_names[4] = {"context", "selectable", "preserve-identity", "ghost"};
const char *rill_channels_mode_name(rill_render_mode mode) {
    switch (mode) {
        RILL_RENDER_MODE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "normal";
    }
}

static bool parse_channel(const char *s, size_t n, uint64_t *out) {
    for (uint32_t b = 0; b < 4; b++) {
        if (strlen(builtin_names[b]) == n && strncmp(s, builtin_names[b], n) == 0) {
            *out = UINT64_C(1) << b;
            return true;
        }
    }
    bool leading_zero = n > 4 && s[3] == '0'; /* "bit07": N is written as "bit7" */
    if (n > 3 && n <= 5 && !leading_zero && strncmp(s, "bit", 3) == 0) {
        uint32_t v = 0;
        for (size_t i = 3; i < n; i++) {
            if (s[i] < '0' || s[i] > '9') {
                return false;
            }
            v = v * 10 + (uint32_t)(s[i] - '0');
        }
        if (v < RILL_CHANNEL_COUNT) {
            *out = UINT64_C(1) << v;
            return true;
        }
    }
    return false;
}

bool rill_channels_parse_assignment(const char *text, uint64_t *out_channels,
                                    rill_render_mode *out_mode, float *out_opacity,
                                    rill_error *err) {
    const char *eq = text ? strchr(text, '=') : NULL;
    if (!eq || !out_channels || !out_mode || !out_opacity) {
        rill_error_set(err, RILL_ERR_PARSE, "channel '%s': expected NAME=MODE", text ? text : "");
        return false;
    }
    if (!parse_channel(text, (size_t)(eq - text), out_channels)) {
        rill_error_set(err, RILL_ERR_PARSE,
                       "channel '%.*s': unknown (context, selectable, preserve-identity, ghost, "
                       "bit0..bit63)",
                       (int)(eq - text), text);
        return false;
    }
    const char *mode = eq + 1;
    *out_opacity = 1.0f;
    for (uint32_t i = 0; i < RILL_RENDER_MODE_NUM; i++) {
        if (strcmp(mode, rill_channels_mode_name((rill_render_mode)i)) == 0) {
            *out_mode = (rill_render_mode)i;
            *out_opacity = i == RILL_RENDER_MODE_GHOST ? 0.5f : 1.0f;
            return true;
        }
    }
    if (strncmp(mode, "ghost:", 6) == 0) {
        /* A plain decimal: no sign, space, "nan" or "inf" (strtod would take " 0.3" and "+.5"). */
        const char *num = mode + 6;
        char *end = NULL;
        double v = (*num >= '0' && *num <= '9') || *num == '.' ? strtod(num, &end) : -1.0;
        if (end && end != num && *end == '\0' && v >= 0.0 && v <= 1.0) {
            *out_mode = RILL_RENDER_MODE_GHOST;
            *out_opacity = (float)v;
            return true;
        }
    }
    rill_error_set(err, RILL_ERR_PARSE,
                   "channel mode '%s': expected normal, hidden, wireframe, ghost or ghost:OPACITY "
                   "(0..1)",
                   mode);
    return false;
}
