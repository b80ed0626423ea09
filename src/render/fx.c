/* fx.c: in-place compute effects supplied as SPIR-V by the user (see rill_render_fx in
 * rill/render.h): one pipeline per effect, one graph pass per use, the target bound as a storage
 * image in the GENERAL layout, parameters in push constants. */
#include "render_internal.h"

#include <string.h>

#define FX_MAX_PARAMS 112u

struct rill_render_fx {
    rill_renderer *r;
    rill__pipe *pipe;
    uint32_t group_size;
    rill_rg_image target; /* this frame's, set by rill_render_fx_add */
    uint8_t params[FX_MAX_PARAMS];
    uint32_t params_size;
};

rill_render_fx *rill_render_fx_create(rill_renderer *r, const uint32_t *spirv, size_t spirv_size,
                                      const char *label, uint32_t group_size, rill_error *err) {
    rill__rthread_guard(r);
    if (!r || !spirv || spirv_size < 20 || spirv_size % 4 != 0) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render: effect '%s': not SPIR-V",
                       label ? label : "?");
        return NULL;
    }
    rill_render_fx *fx = rill_calloc_tagged(1, sizeof(*fx), RILL_MEM_RENDER);
    if (!fx) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
        return NULL;
    }
    rill__pipe_desc d;
    memset(&d, 0, sizeof(d));
    d.label = label ? label : "effect";
    d.cs = spirv;
    d.cs_size = spirv_size;
    d.set_count = 1;
    d.sets[0].bindings[0] = RILL__BIND_STORAGE_IMAGE;
    d.push_size = 8 + FX_MAX_PARAMS;
    fx->pipe = rill__pipe_create(r->gpu, &d, err);
    if (!fx->pipe) {
        rill_free(fx);
        return NULL;
    }
    fx->r = r;
    fx->group_size = group_size ? group_size : 8;
    return fx;
}

void rill_render_fx_destroy(rill_renderer *r, rill_render_fx *fx) {
    rill__rthread_guard(r);
    if (!r || !fx) {
        return;
    }
    rill__pipe_destroy(r->gpu, fx->pipe);
    rill_free(fx);
}

static void exec_fx(rill_rg_ctx *ctx, void *user) {
    rill_render_fx *fx = user;
    rill__img *img = rill__ctx_img(ctx, fx->target);
    if (!img) {
        return;
    }
    const rill__img_desc *d = rill__img_get_desc(img);
    rill__cmd_bind_pipe(ctx->cmd, fx->pipe);
    rill__binding b;
    memset(&b, 0, sizeof(b));
    b.img = img;
    b.layer = -1;
    rill__cmd_bind_transient_set(ctx->cmd, 0, &b, 1);
    uint8_t push[8 + FX_MAX_PARAMS];
    memcpy(push, &d->width, 4);
    memcpy(push + 4, &d->height, 4);
    memcpy(push + 8, fx->params, FX_MAX_PARAMS);
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    uint32_t gs = fx->group_size;
    rill__cmd_dispatch(ctx->cmd, (d->width + gs - 1) / gs, (d->height + gs - 1) / gs, 1);
}

rill_rg_pass rill_render_fx_add(rill_rg *graph, rill_render_fx *fx, const char *label,
                                rill_rg_image target, const void *params, uint32_t params_size,
                                rill_error *err) {
    rill_rg_pass none = {0};
    if (!graph || !fx || !label || !target.id || params_size > FX_MAX_PARAMS ||
        (params_size && !params)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "render: effect pass needs a graph, an effect, a label, a target and at "
                       "most %u bytes of parameters",
                       FX_MAX_PARAMS);
        return none;
    }
    fx->target = target;
    memset(fx->params, 0, sizeof(fx->params));
    if (params_size) {
        memcpy(fx->params, params, params_size);
    }
    fx->params_size = params_size;
    rill_rg_pass_desc d = {.label = label, .exec = exec_fx, .user = fx};
    rill_rg_pass p = rill_rg_add_pass(graph, &d, err);
    if (rill_rg_use_image(graph, p, target, RILL_RG_USAGE_STORAGE_WRITE, err) != RILL_OK) {
        return none;
    }
    return p;
}
