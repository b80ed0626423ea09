/* effects.c: the composition registry. One list of effects per renderer (engine and plugin alike),
 * kept sorted by (phase, order, registration); the frame graph asks it to add a phase's effects
 * for each view, each effect only for the views whose routed settings hold its settings type.
 * It also keeps the frame-lifetime memory effects hold their per-view state in
 * (rill_render_effect_state). */
#include "rill/render/effects.h"
#include "frame.h"
#include "gi_internal.h"
#include "post_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct rill__effect {
    uint32_t handle, seq;
    char id[48], settings[48];
    bool has_settings, after_lighting;
    bool anchor;     /* an engine anchor (anti-aliasing): first in its phase, whatever the order */
    uint32_t wanted; /* bit v: it runs for view v this frame */
    uint32_t ran;    /* bit v: it added passes for view v to the last graph */
    /* the passes it added to the last graph, per view */
    uint32_t pass_first[RILL_RENDER_MAX_VIEWS], pass_n[RILL_RENDER_MAX_VIEWS];
    rill_render_phase phase;
    int32_t order;
    rill_render_effect_active_fn active;
    rill_render_effect_add_fn add;
    void *user;
} rill__effect;

/* A block of the frame-lifetime state memory. */
typedef struct state_block {
    uint8_t *data;
    size_t size, used;
} state_block;

#define STATE_BLOCK_SIZE (64u * 1024u)
#define STATE_MAX_SIZE (16u * 1024u * 1024u) /* one request; the frame's state is far smaller */

struct rill__effects {
    rill__effect list[RILL_RENDER_MAX_EFFECTS];
    uint32_t count, next_handle, next_seq;
    RILL_ARRAY(state_block) blocks; /* rill_render_effect_state's memory, reused every frame */
};

const char *rill_render_phase_name(rill_render_phase p) {
    switch (p) {
        RILL_RENDER_PHASE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "?";
    }
}

static bool before(const rill__effect *a, const rill__effect *b) {
    if (a->phase != b->phase) {
        return a->phase < b->phase;
    }
    if (a->anchor != b->anchor) {
        return a->anchor;
    }
    if (a->order != b->order) {
        return a->order < b->order;
    }
    return a->seq < b->seq;
}

static bool name_ok(const char *s, size_t cap) {
    return s && s[0] && strlen(s) < cap;
}

static uint32_t effect_register(rill_renderer *r, const rill_render_effect_desc *d, bool anchor,
                                rill_error *err) {
    if (RILL_DESC_CHECK(d, "rill_render_effect_register", err) != RILL_OK) {
        return 0;
    }
    if (!r || !r->effects || !d || !d->add || !name_ok(d->id, 48) ||
        (unsigned)d->phase >= RILL_RENDER_PHASE_NUM || (d->settings && !name_ok(d->settings, 48))) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: effect needs an id (< 48 chars), a phase, an add callback");
        return 0;
    }
    struct rill__effects *e = r->effects;
    for (uint32_t i = 0; i < e->count; i++) {
        if (strcmp(e->list[i].id, d->id) == 0) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: effect '%s' already registered",
                           d->id);
            return 0;
        }
    }
    if (e->count == RILL_RENDER_MAX_EFFECTS) {
        rill_error_set(err, RILL_ERR_LIMIT, "render: more than %u effects",
                       RILL_RENDER_MAX_EFFECTS);
        return 0;
    }
    rill__effect fx;
    memset(&fx, 0, sizeof(fx));
    fx.handle = ++e->next_handle;
    fx.seq = e->next_seq++;
    snprintf(fx.id, sizeof(fx.id), "%s", d->id);
    fx.has_settings = d->settings != NULL;
    if (d->settings) {
        snprintf(fx.settings, sizeof(fx.settings), "%s", d->settings);
    }
    fx.phase = d->phase;
    fx.order = d->order;
    fx.active = d->active;
    fx.add = d->add;
    fx.user = d->user;
    fx.after_lighting = d->phase == RILL_RENDER_PHASE_GI && d->after_lighting;
    fx.anchor = anchor;
    uint32_t at = e->count;
    while (at > 0 && before(&fx, &e->list[at - 1])) {
        e->list[at] = e->list[at - 1];
        at--;
    }
    e->list[at] = fx;
    e->count++;
    return fx.handle;
}

uint32_t rill_render_effect_register(rill_renderer *r, const rill_render_effect_desc *d,
                                     rill_error *err) {
    rill__rthread_guard(r);
    return effect_register(r, d, false, err);
}

uint32_t rill__effect_register_anchor(rill_renderer *r, const rill_render_effect_desc *d,
                                      rill_error *err) {
    return effect_register(r, d, true, err);
}

void rill_render_effect_unregister(rill_renderer *r, uint32_t effect) {
    rill__rthread_guard(r);
    if (!r || !r->effects || !effect) {
        return;
    }
    struct rill__effects *e = r->effects;
    for (uint32_t i = 0; i < e->count; i++) {
        if (e->list[i].handle == effect) {
            memmove(&e->list[i], &e->list[i + 1], (e->count - i - 1) * sizeof(e->list[0]));
            e->count--;
            return;
        }
    }
}

/* The GPU time of fx's passes: their labels in the last built graph, looked up in the newest
 * timings (a pass label names one pass per frame). */
static double effect_gpu_ms(const rill_renderer *r, const rill__effect *fx) {
    rill_render_stats *st = rill_malloc_tagged(sizeof(*st), RILL_MEM_RENDER);
    if (!st) {
        return 0.0;
    }
    rill_renderer_stats(r, st);
    double ms = 0.0;
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        for (uint32_t p = fx->pass_first[v]; p < fx->pass_first[v] + fx->pass_n[v]; p++) {
            const char *label = rill_rg_pass_label(r->graph, p);
            for (uint32_t k = 0; label && k < st->pass_count; k++) {
                if (st->pass_names[k] && strcmp(st->pass_names[k], label) == 0) {
                    ms += st->pass_gpu_ms[k];
                    break;
                }
            }
        }
    }
    rill_free(st);
    return ms;
}

uint32_t rill_render_effect_count(const rill_renderer *r) {
    rill__rthread_guard(r);
    return r && r->effects ? r->effects->count : 0;
}

bool rill_render_effect_get(const rill_renderer *r, uint32_t i, rill_render_effect_info *out) {
    rill__rthread_guard(r);
    if (!out || i >= rill_render_effect_count(r)) {
        return false;
    }
    const rill__effect *fx = &r->effects->list[i];
    uint32_t passes = 0;
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        passes += fx->ran & (1u << v) ? fx->pass_n[v] : 0u;
    }
    *out = (rill_render_effect_info){
        fx->handle,   fx->id, fx->phase, fx->order, fx->has_settings ? fx->settings : NULL,
        fx->ran != 0, passes, 0.0};
    if (passes) {
        out->gpu_ms = effect_gpu_ms(r, fx);
    }
    return true;
}

rill_rg_image rill_render_effect_next_color(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_rg_image none = {0};
    if (!ctx || !ctx->graph || !ctx->color.id) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: effect context without colour");
        return none;
    }
    char name[32];
    ctx->chain_++;
    snprintf(name, sizeof(name), "%s.fx%u",
             ctx->phase <= RILL_RENDER_PHASE_HDR_POST ? "hdr" : "ldr", ctx->chain_);
    rill_rg_image next = rill_rg_create_image_like(ctx->graph, name, ctx->color, err);
    if (next.id) {
        ctx->color = next;
    }
    return next;
}

rill_result rill__effects_create(rill_renderer *r, rill_error *err) {
    r->effects = rill_calloc_tagged(1, sizeof(*r->effects), RILL_MEM_RENDER);
    if (!r->effects) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (effects)");
    }
    RILL_TRY(rill__effects_register_engine(r, err));
    RILL_TRY(rill__ssr_effect_register(r, err));
    RILL_TRY(rill__effects_register_aa(r, err));
    RILL_TRY(rill__gi_create(r, err));
    return rill__post_create(r, err); /* colour grading, depth of field, motion blur */
}

void rill__effects_destroy(rill_renderer *r) {
    rill__gi_destroy(r);
    rill__post_destroy(r);
    if (r->effects) {
        for (uint32_t i = 0; i < r->effects->blocks.len; i++) {
            rill_free(r->effects->blocks.data[i].data);
        }
        rill_array_free(&r->effects->blocks);
    }
    rill_free(r->effects);
    r->effects = NULL;
}

void *rill_render_effect_state(rill_render_effect_ctx *ctx, size_t size, rill_error *err) {
    struct rill__effects *e = ctx && ctx->renderer ? ctx->renderer->effects : NULL;
    if (!e || size == 0 || size > STATE_MAX_SIZE) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: effect state of %zu bytes (1 to %u)", size, STATE_MAX_SIZE);
        return NULL;
    }
    size = (size + 15u) & ~(size_t)15u;
    for (uint32_t i = 0; i < e->blocks.len; i++) {
        state_block *b = &e->blocks.data[i];
        if (b->size - b->used >= size) {
            void *p = b->data + b->used;
            b->used += size;
            return memset(p, 0, size);
        }
    }
    state_block nb = {rill_malloc_tagged(RILL_MAX(size, (size_t)STATE_BLOCK_SIZE), RILL_MEM_RENDER),
                      RILL_MAX(size, (size_t)STATE_BLOCK_SIZE), size};
    if (!nb.data || !rill_array_push(&e->blocks, nb)) {
        rill_free(nb.data);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (effect state)");
        return NULL;
    }
    return memset(nb.data, 0, size);
}

/* Whether fx runs for ctx's view: its settings routed (or given on the view for the engine's),
 * and its own condition. */
static bool effect_wanted(const rill__effect *fx, rill_render_effect_ctx *ctx) {
    ctx->settings = NULL;
    ctx->settings_size = 0;
    if (fx->has_settings) {
        ctx->settings = rill_render_view_settings(ctx->view, fx->settings, &ctx->settings_size);
        if (!ctx->settings && !fx->active) {
            return false;
        }
    }
    return fx->active ? fx->active(ctx) : true;
}

static bool wanted_id(const struct rill__effects *e, const char *id, uint32_t bit) {
    for (uint32_t i = 0; i < e->count; i++) {
        if (strcmp(e->list[i].id, id) == 0) {
            return (e->list[i].wanted & bit) != 0;
        }
    }
    return false;
}

void rill__effects_frame_begin(rill_renderer *r) {
    struct rill__effects *e = r->effects;
    for (uint32_t i = 0; e && i < e->count; i++) {
        e->list[i].wanted = e->list[i].ran = 0;
    }
    for (uint32_t i = 0; e && i < e->blocks.len; i++) {
        e->blocks.data[i].used = 0;
    }
}

void rill__effects_plan_view(rill_renderer *r, rill__view *vs) {
    rill__view_fx *vf = &vs->fx;
    memset(vf, 0, sizeof(*vf));
    struct rill__effects *e = r->effects;
    rill_render_effect_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.renderer = r;
    ctx.view = vs->view;
    ctx.view_index = vs->index;
    uint32_t bit = 1u << vs->index;
    for (uint32_t i = 0; e && vs->view && !r->frame.no_view && i < e->count; i++) {
        rill__effect *fx = &e->list[i];
        ctx.phase = fx->phase;
        ctx.id = fx->id;
        ctx.user = fx->user;
        if (effect_wanted(fx, &ctx)) {
            fx->wanted |= bit;
        }
    }
    /* The engine's effects that other passes read before the graph is built (frame constants). */
    vf->ssao = e && wanted_id(e, "ssao", bit);
    vf->bloom = e && wanted_id(e, "bloom", bit);
    vf->auto_exposure = e && wanted_id(e, "auto_exposure", bit);
    vf->aa.taa = e && wanted_id(e, "taa", bit); /* effects_aa.c plans it (jitter, history) */
    /* The normal image's alpha: read by screen-space reflections and GI, else never written. */
    vf->material_in_normal = e && (wanted_id(e, "ssr", bit) || wanted_id(e, "gi", bit));
}

/* Adds the effects of `phase` wanted for view vs (for GI: those with after_lighting == lit), in
 * the view's scope of the graph. */
static rill_result add_phase(rill_renderer *r, rill_rg *g, rill__view *vs, rill_render_phase phase,
                             bool lit, rill_error *err) {
    if (!r->effects || r->frame.no_view || !vs->view) {
        return RILL_OK;
    }
    rill__view_fx *vf = &vs->fx;
    bool hdr = phase <= RILL_RENDER_PHASE_HDR_POST;
    rill_rg_image *color = hdr ? &vf->hdr_color : &vf->ldr_color;
    rill_render_effect_ctx ctx = {.renderer = r,
                                  .graph = g,
                                  .frame = &vf->fg,
                                  .phase = phase,
                                  .view = vs->view,
                                  .color = *color,
                                  .view_index = vs->index,
                                  .chain_ = vf->chain[hdr ? 0 : 1]};
    struct rill__effects *e = r->effects;
    uint32_t v = vs->index, bit = 1u << v;
    for (uint32_t i = 0; i < e->count; i++) {
        rill__effect *fx = &e->list[i];
        if (fx->phase != phase || !(fx->wanted & bit) || fx->after_lighting != lit) {
            continue;
        }
        ctx.settings = rill_render_view_settings(ctx.view, fx->settings, &ctx.settings_size);
        ctx.id = fx->id;
        ctx.user = fx->user;
        fx->pass_first[v] = rill_rg_pass_count(g);
        rill_result res = fx->add(&ctx, err);
        if (res != RILL_OK) {
            return res;
        }
        fx->pass_n[v] = rill_rg_pass_count(g) - fx->pass_first[v];
        if (fx->pass_n[v]) {
            fx->ran |= bit;
        }
    }
    vf->chain[hdr ? 0 : 1] = ctx.chain_;
    *color = ctx.color;
    return RILL_OK;
}

rill_result rill__effects_add_phase(rill_renderer *r, rill_rg *g, rill__view *vs,
                                    rill_render_phase phase, rill_error *err) {
    return add_phase(r, g, vs, phase, false, err);
}

rill_result rill__effects_add_gi_lit(rill_renderer *r, rill_rg *g, rill__view *vs,
                                     rill_error *err) {
    return add_phase(r, g, vs, RILL_RENDER_PHASE_GI, true, err);
}
