/* oit.c: order-independent transparency (OrderIndependentTransparency, rill/render/msaa.h; the
 * component is registered in msaa.c). A view whose routed settings enable it gets, per view
 * index, two storage buffers kept across frames: a fragment count per pixel of its 3D images and
 * layer_count layers per pixel (12 bytes each: premultiplied colour and alpha as half floats,
 * the depth as a float). `oit_clear` zeroes the counts, the transparent pass appends its
 * fragments through oit_pbr.frag (no colour attachment, no blending) and `oit_resolve` sorts each
 * pixel's layers by depth and blends them over the view's HDR colour, farthest first. */
#include "frame.h"
#include "rill/render/msaa.h"

#include <string.h>

#include "render_shaders.h"

#define LAYER_BYTES 12u

typedef struct rill__oit {
    rill__pipe *draw[2]; /* the transparent pass's, single- and double-sided (oit_pbr.frag) */
    rill__pipe *clear, *resolve;
    bool made, failed, said_device;
    rill__buf *counts[RILL_RENDER_MAX_VIEWS], *layers[RILL_RENDER_MAX_VIEWS];
    rill__warned warned; /* settings replaced, layers lowered to fit, by entity */
} rill__oit;

typedef struct oit_push {
    uint32_t a, b, c, d;
} oit_push;

bool rill__oit_enabled(const rill_render_view *v) {
    const rill_render_oit *o =
        rill__routed_settings(v, "OrderIndependentTransparency", sizeof(rill_render_oit), NULL);
    return o && o->enabled;
}

void rill__oit_destroy(rill_renderer *r) {
    rill__oit *o = r->oit;
    if (!o) {
        return;
    }
    for (int i = 0; i < 2; i++) {
        rill__pipe_destroy(r->gpu, o->draw[i]);
    }
    rill__pipe_destroy(r->gpu, o->clear);
    rill__pipe_destroy(r->gpu, o->resolve);
    for (uint32_t i = 0; i < RILL_RENDER_MAX_VIEWS; i++) {
        rill__buf_destroy(r->gpu, o->counts[i]);
        rill__buf_destroy(r->gpu, o->layers[i]);
    }
    rill_free(o);
    r->oit = NULL;
}

/* >>pipelines ------------------------------------------------------------------------------- */

static rill__pipe *compute_pipe(rill_renderer *r, const char *label, const uint32_t *code,
                                size_t size, const rill__set_layout *set, rill_error *err) {
    rill__pipe_desc d;
    memset(&d, 0, sizeof(d));
    d.label = label;
    d.cs = code;
    d.cs_size = size;
    d.set_count = 1;
    d.sets[0] = *set;
    d.push_size = sizeof(oit_push);
    return rill__pipe_create(r->gpu, &d, err);
}

static bool make_pipes(rill_renderer *r, rill__oit *o) {
    if (o->made || o->failed) {
        return o->made;
    }
    static const rill__set_layout layers_set = {{RILL__BIND_STORAGE, RILL__BIND_STORAGE}};
    static const rill__set_layout clear_set = {{RILL__BIND_STORAGE}};
    static const rill__set_layout resolve_set = {
        {RILL__BIND_STORAGE, RILL__BIND_STORAGE, RILL__BIND_STORAGE_IMAGE}};
    rill_error e = {0};
    const rill__pipe_id rows[2] = {RILL__PIPE_TRANSPARENT, RILL__PIPE_TRANSPARENT_DS};
    for (int i = 0; i < 2; i++) {
        rill__pipe_desc d;
        rill__pipeline_desc(rows[i], &d);
        d.label = i ? "transparent (oit, double-sided)" : "transparent (oit)";
        d.fs = rill__spv_oit_pbr_frag;
        d.fs_size = rill__spv_oit_pbr_frag_size;
        d.color_count = 0;
        d.blend = RILL__BLEND_NONE;
        d.sets[2] = layers_set;
        d.set_count = 3;
        d.push_size = sizeof(oit_push);
        o->draw[i] = rill__pipe_create(r->gpu, &d, &e);
    }
    if (o->draw[0] && o->draw[1]) {
        o->clear = compute_pipe(r, "oit clear", rill__spv_oit_clear_comp,
                                rill__spv_oit_clear_comp_size, &clear_set, &e);
        o->resolve = compute_pipe(r, "oit resolve", rill__spv_oit_resolve_comp,
                                  rill__spv_oit_resolve_comp_size, &resolve_set, &e);
    }
    o->made = o->draw[0] && o->draw[1] && o->clear && o->resolve;
    if (!o->made) {
        RILL_LOG_ERROR(
            "render",
            "OrderIndependentTransparency: pipelines could not be made (%s); transparent "
            "surfaces are sorted per object instead",
            e.msg);
        o->failed = true;
    }
    return o->made;
}

/* >>planning -------------------------------------------------------------------------------- */

/* buf grown to at least size bytes (a fresh one; the old one goes once its frames are done). */
static bool ensure_buf(rill_renderer *r, rill__buf **buf, uint64_t size, const char *label) {
    if (*buf && rill__buf_size(*buf) >= size) {
        return true;
    }
    rill__buf_destroy(r->gpu, *buf);
    rill_error e = {0};
    *buf = rill__buf_create(r->gpu, size, RILL__BUF_STORAGE, false, label, &e);
    if (!*buf) {
        RILL_LOG_ERROR("render", "OrderIndependentTransparency: %s (%llu bytes): %s", label,
                       (unsigned long long)size, e.msg);
    }
    return *buf != NULL;
}

/* The settings of v's routed OIT, clamped (one warning per entity and field); false: off. */
static bool settings(rill__oit *o, const rill_render_view *v, uint32_t *layers, float *threshold,
                     rill_entity *source) {
    const rill_render_oit *s =
        rill__routed_settings(v, "OrderIndependentTransparency", sizeof(rill_render_oit), source);
    if (!s || !s->enabled) {
        return false;
    }
    rill__fix_src fs = {&o->warned, "OrderIndependentTransparency", *source};
    *layers = rill__fix_u32(&fs, "layer_count", s->layer_count, 1, RILL_RENDER_OIT_MAX_LAYERS);
    *threshold = rill__fix(&fs, "alpha_threshold", s->alpha_threshold, 0.0f, 1.0f, 0.0f);
    return true;
}

void rill__oit_plan_view(rill_renderer *r, rill__view *vs) {
    vs->oit_layers = 0;
    uint32_t layers;
    float threshold;
    rill_entity src = 0;
    if (!vs->view || vs->passthrough) {
        return; /* mixed passthrough draws its ghosts' alpha by blending: sorted per object */
    }
    if (!r->oit) {
        r->oit = rill_calloc_tagged(1, sizeof(rill__oit), RILL_MEM_RENDER);
    }
    rill__oit *o = r->oit;
    if (!o || !settings(o, vs->view, &layers, &threshold, &src)) {
        return;
    }
    const rill__gpu_caps *caps = rill__gpu_get_caps(r->gpu);
    if (!caps->fragment_stores) {
        if (!o->said_device) {
            o->said_device = true;
            RILL_LOG_WARN("render", "OrderIndependentTransparency: the device cannot write storage "
                                    "buffers from fragment shaders; transparent surfaces are "
                                    "sorted per object instead");
        }
        return;
    }
    /* The layers of one view must fit one storage binding. */
    uint64_t px = (uint64_t)vs->size3[0] * vs->size3[1];
    uint32_t fit = layers;
    while (fit > 1 && px * fit * LAYER_BYTES > caps->max_storage_range) {
        fit--;
    }
    if (fit != layers) {
        rill__fix_src fs = {&o->warned, "OrderIndependentTransparency", src};
        rill__fix_warn(&fs, "layer_count (for the device's storage range)", (double)layers,
                       (double)fit);
    }
    if (!make_pipes(r, o) || !ensure_buf(r, &o->counts[vs->index], px * 4u, "oit counts") ||
        !ensure_buf(r, &o->layers[vs->index], px * fit * LAYER_BYTES, "oit layers")) {
        return;
    }
    vs->oit_layers = fit;
    vs->oit_threshold = threshold;
}

/* >>passes ---------------------------------------------------------------------------------- */

static void pass_clear(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__oit *o = ctx->r->oit;
    uint32_t total = vs->size3[0] * vs->size3[1];
    rill__cmd_bind_pipe(ctx->cmd, o->clear);
    rill__binding b[1] = {{.buf = o->counts[vs->index]}};
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 1);
    oit_push push = {total, 0, 0, 0};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (total + 63) / 64, 1, 1);
}

static void pass_resolve(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__oit *o = ctx->r->oit;
    rill__cmd_bind_pipe(ctx->cmd, o->resolve);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    b[0].buf = o->counts[vs->index];
    b[1].buf = o->layers[vs->index];
    b[2].img = rill__ctx_img(ctx, vs->res.hdr);
    b[2].layer = -1;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    oit_push push = {vs->size3[0], vs->size3[1], vs->oit_layers, 0};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (vs->size3[0] + 7) / 8, (vs->size3[1] + 7) / 8, 1);
}

rill_result rill__oit_add_clear(rill_renderer *r, rill_rg *g, rill__view *vs, rill_error *err) {
    rill__oit *o = r->oit;
    /* Last frame's resolve (compute) may still read them: imported as written by compute. */
    vs->res.oit_counts =
        rill_rg_import_buffer(g, "oit_counts", o->counts[vs->index], RILL_RG_USAGE_STORAGE_WRITE,
                              RILL_RG_USAGE_NONE, err);
    vs->res.oit_layers =
        rill_rg_import_buffer(g, "oit_layers", o->layers[vs->index], RILL_RG_USAGE_STORAGE_WRITE,
                              RILL_RG_USAGE_NONE, err);
    rill_rg_pass_desc d = {.label = "oit_clear", .exec = pass_clear, .user = vs};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    return rill_rg_use_buffer(g, p, vs->res.oit_counts, RILL_RG_USAGE_STORAGE_WRITE, err);
}

rill_result rill__oit_use_layers(rill_rg *g, rill_rg_pass transparent, const rill__view *vs,
                                 rill_error *err) {
    RILL_TRY(rill_rg_use_buffer(g, transparent, vs->res.oit_counts, RILL_RG_USAGE_STORAGE_FRAGMENT,
                                err));
    return rill_rg_use_buffer(g, transparent, vs->res.oit_layers, RILL_RG_USAGE_STORAGE_FRAGMENT,
                              err);
}

rill_result rill__oit_add_resolve(rill_renderer *r, rill_rg *g, rill__view *vs,
                                  rill_rg_pass transparent, rill_error *err) {
    (void)r;
    rill_rg_pass_desc d = {.label = "oit_resolve", .exec = pass_resolve, .user = vs};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    RILL_TRY(rill_rg_use_buffer(g, p, vs->res.oit_counts, RILL_RG_USAGE_STORAGE_READ, err));
    RILL_TRY(rill_rg_use_buffer(g, p, vs->res.oit_layers, RILL_RG_USAGE_STORAGE_READ, err));
    RILL_TRY(rill_rg_use_image(g, p, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    return rill_rg_add_edge(g, transparent, p, err);
}

rill__pipe *const *rill__oit_begin_draws(rill_rg_ctx *ctx, const rill__view *vs) {
    rill__oit *o = ctx->r->oit;
    rill__cmd_bind_pipe(ctx->cmd, o->draw[0]);
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    b[0].buf = o->counts[vs->index];
    b[1].buf = o->layers[vs->index];
    rill__cmd_bind_transient_set(ctx->cmd, 2, b, 2);
    float t = vs->oit_threshold;
    oit_push push = {vs->size3[0], vs->oit_layers, 0, 0};
    memcpy(&push.c, &t, sizeof(t));
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    return o->draw;
}
