/* effects.c: the composition registry. One list of effects per renderer (engine and plugin alike),
 * kept sorted by (phase, order, registration); the frame graph asks it to add a phase's effects,
 * each only when the primary camera's routed settings hold its settings type. */
#include "rill/render/effects.h"
#include "frame.h"
#include "gi_internal.h"
#include "post_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct rill__effect {
    uint32_t handle, seq;
    char id[48], settings[48];
    bool has_settings, ran, wanted, after_lighting;
    bool anchor; /* an engine anchor (anti-aliasing): first in its phase, whatever the order */
    uint32_t pass_first, pass_n; /* the passes it added to the last graph */
    rill_render_phase phase;
    int32_t order;
    rill_render_effect_active_fn active;
    rill_render_effect_add_fn add;
    void *user;
} rill__effect;

struct rill__effects {
    rill__effect list[RILL_RENDER_MAX_EFFECTS];
    uint32_t count, next_handle, next_seq;
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
    return effect_register(r, d, false, err);
}

uint32_t rill__effect_register_anchor(rill_renderer *r, const rill_render_effect_desc *d,
                                      rill_error *err) {
    return effect_register(r, d, true, err);
}

void rill_render_effect_unregister(rill_renderer *r, uint32_t effect) {
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
    for (uint32_t p = fx->pass_first; p < fx->pass_first + fx->pass_n; p++) {
        const char *label = rill_rg_pass_label(r->graph, p);
        for (uint32_t k = 0; label && k < st->pass_count; k++) {
            if (st->pass_names[k] && strcmp(st->pass_names[k], label) == 0) {
                ms += st->pass_gpu_ms[k];
                break;
            }
        }
    }
    rill_free(st);
    return ms;
}

uint32_t rill_render_effect_count(const rill_renderer *r) {
    return r && r->effects ? r->effects->count : 0;
}

bool rill_render_effect_get(const rill_renderer *r, uint32_t i, rill_render_effect_info *out) {
    if (!out || i >= rill_render_effect_count(r)) {
        return false;
    }
    const rill__effect *fx = &r->effects->list[i];
    *out = (rill_render_effect_info){fx->handle,
                                     fx->id,
                                     fx->phase,
                                     fx->order,
                                     fx->has_settings ? fx->settings : NULL,
                                     fx->ran,
                                     fx->ran ? fx->pass_n : 0,
                                     0.0};
    if (fx->ran && fx->pass_n) {
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
    rill_free(r->effects);
    r->effects = NULL;
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

static bool wanted_id(const struct rill__effects *e, const char *id) {
    for (uint32_t i = 0; i < e->count; i++) {
        if (strcmp(e->list[i].id, id) == 0) {
            return e->list[i].wanted;
        }
    }
    return false;
}

void rill__effects_plan(rill_renderer *r, const rill_render_view *primary) {
    rill__frame *f = &r->frame;
    f->chain[0] = f->chain[1] = 0;
    struct rill__effects *e = r->effects;
    rill_render_effect_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.renderer = r;
    ctx.view = primary;
    for (uint32_t i = 0; e && i < e->count; i++) {
        rill__effect *fx = &e->list[i];
        fx->ran = false;
        ctx.phase = fx->phase;
        ctx.id = fx->id;
        ctx.user = fx->user;
        fx->wanted = primary && effect_wanted(fx, &ctx);
    }
    /* The engine's effects that other passes read before the graph is built (frame constants). */
    f->ssao = e && wanted_id(e, "ssao");
    f->bloom = e && wanted_id(e, "bloom");
    f->auto_exposure = e && wanted_id(e, "auto_exposure");
    f->aa.taa = e && wanted_id(e, "taa"); /* effects_aa.c plans it (jitter, history) */
}

/* Adds the wanted effects of `phase` (for GI: those with after_lighting == lit). */
static rill_result add_phase(rill_renderer *r, rill_rg *g, rill_render_phase phase, bool lit,
                             rill_error *err) {
    rill__frame *f = &r->frame;
    /* Screen effects work on the whole image: a single whole-output view only. */
    if (!r->effects || f->view_count != 1 || f->per_view_tonemap || f->no_view ||
        !f->views[0].view) {
        return RILL_OK;
    }
    bool hdr = phase <= RILL_RENDER_PHASE_HDR_POST;
    rill_rg_image *color = hdr ? &f->hdr_color : &f->ldr_color;
    rill_render_effect_ctx ctx = {.renderer = r,
                                  .graph = g,
                                  .frame = &f->fg,
                                  .phase = phase,
                                  .view = f->views[0].view,
                                  .color = *color,
                                  .chain_ = f->chain[hdr ? 0 : 1]};
    struct rill__effects *e = r->effects;
    for (uint32_t i = 0; i < e->count; i++) {
        rill__effect *fx = &e->list[i];
        if (fx->phase != phase || !fx->wanted || fx->after_lighting != lit) {
            continue;
        }
        ctx.settings = rill_render_view_settings(ctx.view, fx->settings, &ctx.settings_size);
        ctx.id = fx->id;
        ctx.user = fx->user;
        fx->pass_first = rill_rg_pass_count(g);
        rill_result res = fx->add(&ctx, err);
        if (res != RILL_OK) {
            return res;
        }
        fx->pass_n = rill_rg_pass_count(g) - fx->pass_first;
        fx->ran = fx->pass_n > 0;
    }
    f->chain[hdr ? 0 : 1] = ctx.chain_;
    *color = ctx.color;
    return RILL_OK;
}

rill_result rill__effects_add_phase(rill_renderer *r, rill_rg *g, rill_render_phase phase,
                                    rill_error *err) {
    return add_phase(r, g, phase, false, err);
}

rill_result rill__effects_add_gi_lit(rill_renderer *r, rill_rg *g, rill_error *err) {
    return add_phase(r, g, RILL_RENDER_PHASE_GI, true, err);
}
