/* plugin_host.c: effect plugins over the C ABI of rill/plugin.h: the host's lifetime, its queries,
 * and each effect's entry in the renderer's composition registry (effects.c) with the plugin's
 * phase and order. Its add callback adds one pass that copies the phase's colour into plugin_src
 * and runs the effect from plugin_src into the colour, also reading the view's depth, normal and
 * motion images when the effect asked for them (ABI 1.1 inputs). Loading and hot reload are in
 * plugin_load.c, shaders and settings components in plugin_shaders.c. */
#include "plugin_internal.h"

#include <stdio.h>
#include <string.h>

/* Keeps msg as the last error (rill_plugins_get_stats) and logs it. */
void rill__plug_note_error(rill_plugins *p, const char *msg) {
    snprintf(p->stats.last_error, sizeof(p->stats.last_error), "%s", msg);
    rill_logf(RILL_LOG_WARN, "plugins", "%s", msg);
}

/* >>the registry ------------------------------------------------------------------------------ */

/* One camera's run of an effect this frame (rill_render_effect_state memory, its pass's user
 * pointer): the camera's scratch copy, the colour it rewrites, the frame inputs it reads and the
 * camera's depth range and settings (exec reads them while the frame's graph runs). */
typedef struct plug_run {
    plug_pass *pp;
    rill_rg_image src, target;
    rill_rg_image inputs[3]; /* depth, normal, motion; {0} when not asked for */
    float near_plane, far_plane;
    uint32_t orthographic;
    uint8_t settings[PLUG_MAX_SETTINGS];
} plug_run;

static void exec_effect(rill_rg_ctx *ctx, void *user) {
    const plug_run *run = user;
    plug_pass *pp = run->pp;
    plug_effect *e = &pp->p->effects.data[pp->effect];
    rill__img *src = rill__ctx_img(ctx, run->src);
    rill__img *dst = rill__ctx_img(ctx, run->target);
    if (!src || !dst || !e->pipe) {
        return;
    }
    rill__cmd_copy_image_general(ctx->cmd, dst, src);
    uint32_t ubo_size = e->settings_size ? (e->settings_size + 15u) & ~15u : 16u;
    rill__buf *buf = NULL;
    uint64_t off = 0;
    void *ubo = rill__frame_alloc(ctx->cmd, ubo_size, 256, &buf, &off);
    if (!ubo) {
        return;
    }
    memset(ubo, 0, ubo_size);
    memcpy(ubo, run->settings, e->settings_size);
    const rill__img_desc *d = rill__img_get_desc(dst);
    rill__cmd_bind_pipe(ctx->cmd, e->pipe);
    rill__binding b[7];
    memset(b, 0, sizeof(b));
    b[0].img = src;
    b[0].layer = -1;
    b[1].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[2].buf = buf;
    b[2].offset = off;
    b[2].range = ubo_size;
    b[3].img = dst;
    b[3].layer = -1;
    uint32_t nb = 4;
    if (e->inputs) {
        /* All three bindings exist; one not asked for is bound to an input that was. */
        rill_rg_image any = run->inputs[0].id   ? run->inputs[0]
                            : run->inputs[1].id ? run->inputs[1]
                                                : run->inputs[2];
        for (uint32_t i = 0; i < 3; i++) {
            b[4 + i].img = rill__ctx_img(ctx, run->inputs[i].id ? run->inputs[i] : any);
            b[4 + i].layer = -1;
            b[4 + i].sampler = RILL__SAMPLER_NEAREST_CLAMP;
            if (!b[4 + i].img) {
                return;
            }
        }
        nb = 7;
    }
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, nb);
    float push[12] = {(float)d->width,
                      (float)d->height,
                      1.0f / (float)d->width,
                      1.0f / (float)d->height,
                      0,
                      0,
                      run->near_plane,
                      run->far_plane,
                      0,
                      0,
                      0,
                      0};
    uint32_t frame = (uint32_t)rill__gpu_frame_index(pp->p->r->gpu);
    push[4] = (float)frame / 60.0f;
    memcpy(&push[5], &frame, 4);
    memcpy(&push[8], &run->orthographic, 4);
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

/* Runs when compiled and, with a world, when the camera's routed settings hold the effect's
 * component (without a world: always, with the host's settings). */
static bool plug_active(const rill_render_effect_ctx *ctx) {
    const plug_pass *pp = ctx->user;
    plug_effect *e = &pp->p->effects.data[pp->effect];
    if (pp->p->world && !ctx->settings) {
        return false;
    }
    if (!e->pipe && pp->p->lazy && !e->compile_failed) {
        /* compile_on_first_use: the first frame that wants the effect compiles it; a failure is
         * said once (library, effect, file:line) and keeps it off until its shader changes. */
        rill_error err = {0};
        if (rill__plug_compile(pp->p, e, pp->p->libs.data[e->lib].path, &e->pipe, &err) !=
            RILL_OK) {
            e->compile_failed = true;
            pp->p->stats.shader_errors++;
            rill__plug_note_error(pp->p, err.msg);
        }
    }
    return e->pipe != NULL;
}

/* The frame inputs e asked for, from the graph handles of the effect's view, and the view's depth
 * range. False (and a warning, once per effect) when the frame lacks one: the effect then adds no
 * pass, and the rest of the frame renders. */
static bool take_inputs(plug_run *run, plug_effect *e, const rill_render_effect_ctx *ctx) {
    const plug_pass *pp = run->pp;
    static const char *const names[3] = {"depth", "normal", "motion"};
    const rill_rg_image have[3] = {ctx->frame->depth, ctx->frame->normal, ctx->frame->motion};
    memset(run->inputs, 0, sizeof(run->inputs));
    for (uint32_t i = 0; i < 3; i++) {
        if (!(e->inputs & (1u << i))) {
            continue;
        }
        if (!have[i].id) {
            if (!e->warned_inputs) {
                e->warned_inputs = true;
                rill_logf(RILL_LOG_WARN, "plugins",
                          "%s: effect '%s' reads %s, which this frame does not have: skipped",
                          pp->p->libs.data[e->lib].path, e->id, names[i]);
            }
            return false;
        }
        run->inputs[i] = have[i];
    }
    const rill__view *v = &ctx->renderer->frame.views[ctx->view_index];
    run->near_plane = v->set.znear;
    run->far_plane = v->set.zfar;
    run->orthographic = v->set.orthographic;
    return true;
}

/* One pass: copy the phase's colour into the scratch image, then the effect samples it and writes
 * the colour in place. Both are held as storage writes (GENERAL), so same-image writers run in
 * the order they are added (the registry's) and every later reader waits for them. */
static rill_result plug_add(rill_render_effect_ctx *ctx, rill_error *err) {
    plug_pass *pp = ctx->user;
    plug_effect *e = &pp->p->effects.data[pp->effect];
    rill_rg *g = ctx->graph;
    bool hdr = ctx->phase <= RILL_RENDER_PHASE_HDR_POST;
    plug_run *run = rill_render_effect_state(ctx, sizeof(plug_run), err);
    if (!run) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    /* The camera's scratch copy, shared by its effects of the phase. */
    rill_rg_image *src = &ctx->renderer->frame.views[ctx->view_index].fx.plugin_src[hdr ? 0 : 1];
    if (!src->id) {
        *src = rill_rg_create_image_like(g, hdr ? "plugin_src_hdr" : "plugin_src", ctx->color, err);
    }
    run->pp = pp;
    run->src = *src;
    if (ctx->settings) {
        uint32_t n = ctx->settings_size < e->settings_size ? ctx->settings_size : e->settings_size;
        memcpy(run->settings, ctx->settings, n);
    } else {
        memcpy(run->settings, e->settings, sizeof(e->settings));
    }
    run->target = ctx->color;
    if (!take_inputs(run, e, ctx)) {
        return RILL_OK; /* no pass this frame (said once) */
    }
    char fx[80];
    snprintf(fx, sizeof(fx), "plugin:%s", e->id);
    rill_rg_pass_desc fd = {.label = fx, .exec = exec_effect, .user = run};
    rill_rg_pass pass = rill_rg_add_pass(g, &fd, err);
    RILL_TRY(rill_rg_use_image(g, pass, *src, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, pass, ctx->color, RILL_RG_USAGE_STORAGE_WRITE, err));
    for (uint32_t i = 0; i < 3; i++) {
        if (run->inputs[i].id) {
            RILL_TRY(
                rill_rg_use_image(g, pass, run->inputs[i], RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        }
    }
    return rill_rg_add_edge(
        g, hdr ? ctx->frame->end_main_pass : ctx->frame->end_main_pass_post_processing, pass, err);
}

/* Puts e into the renderer's composition registry (phase and order from the plugin; settings =
 * the component named by its id when the host has a world). */
rill_result rill__plug_effect_register(rill_plugins *p, plug_effect *e, rill_error *err) {
    rill_render_effect_desc d;
    memset(&d, 0, sizeof(d));
    d.id = e->id;
    d.phase = (rill_render_phase)e->phase;
    d.order = e->order;
    d.settings = p->world ? e->id : NULL;
    d.active = plug_active;
    d.add = plug_add;
    uint32_t i = (uint32_t)(e - p->effects.data);
    if (i >= RILL_RENDER_MAX_EFFECTS) {
        return rill_error_set(err, RILL_ERR_LIMIT, "plugins: effect '%s': more than %u effects",
                              e->id, RILL_RENDER_MAX_EFFECTS);
    }
    p->passes[i] = (plug_pass){.p = p, .effect = i};
    d.user = &p->passes[i];
    d.after_lighting = true; /* a GI plugin transforms the lit image */
    e->fx = rill_render_effect_register(p->r, &d, err);
    return e->fx ? RILL_OK : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}

void rill__plug_effect_unregister(rill_plugins *p, plug_effect *e) {
    rill_render_effect_unregister(p->r, e->fx);
    e->fx = 0;
}

/* >>lifetime and queries ----------------------------------------------------------------------- */

rill_plugins_desc rill_plugins_query_defaults(void) {
    rill_plugins_desc d;
    memset(&d, 0, sizeof(d));
    return d;
}

rill_plugins *rill_plugins_create(const rill_plugins_desc *desc, rill_error *err) {
    if (!desc || desc->start_canary || desc->end_canary || !desc->renderer ||
        desc->renderer->plugins || (desc->world && !desc->components)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "plugins: needs a zero-initialized desc, a renderer without a plugin host "
                       "and, with a world, its render components");
        return NULL;
    }
    rill_renderer *r = desc->renderer;
    rill_plugins *p = rill_calloc_tagged(1, sizeof(*p), RILL_MEM_RENDER);
    if (p) {
        p->passes = rill_calloc_tagged(RILL_RENDER_MAX_EFFECTS, sizeof(plug_pass), RILL_MEM_RENDER);
    }
    if (!p || !p->passes) {
        rill_free(p);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "plugins: out of memory");
        return NULL;
    }
    p->sc = shaderc_compiler_initialize();
    if (!p->sc) {
        rill_free(p->passes);
        rill_free(p);
        rill_error_set(err, RILL_ERR_UNSUPPORTED, "plugins: shaderc could not start");
        return NULL;
    }
    p->r = r;
    p->lazy = desc->compile_on_first_use;
    p->world = desc->world;
    p->comps = desc->world ? desc->components : NULL;
    r->plugins = p;
    return p;
}

void rill_plugins_destroy(rill_plugins *p) {
    if (!p) {
        return;
    }
    for (uint32_t i = 0; i < p->effects.len; i++) {
        rill__plug_effect_unregister(p, &p->effects.data[i]);
        rill__pipe_destroy(p->r->gpu, p->effects.data[i].pipe);
        rill_free(p->effects.data[i].source);
    }
    rill__plug_free_staged(p);
    for (uint32_t i = 0; i < p->libs.len; i++) {
        rill__plug_close_lib(&p->libs.data[i]);
    }
    rill_array_free(&p->effects);
    rill_array_free(&p->staged);
    rill_array_free(&p->libs);
    shaderc_compiler_release(p->sc);
    p->r->plugins = NULL;
    rill_free(p->passes);
    rill_free(p);
}

uint32_t rill_plugins_count(const rill_plugins *p) {
    return p ? p->libs.len : 0;
}

bool rill_plugins_get(const rill_plugins *p, uint32_t index, rill_plugin_info *out) {
    if (!p || !out || index >= p->libs.len) {
        return false;
    }
    const plug_lib *l = &p->libs.data[index];
    memset(out, 0, sizeof(*out));
    *out = (rill_plugin_info){l->path, l->name, l->version, l->abi_major, l->abi_minor, 0, {0}};
    for (uint32_t i = 0; i < p->effects.len; i++) {
        if (p->effects.data[i].lib == index && !p->effects.data[i].dead) {
            if (out->effect_count < 16) {
                out->effects[out->effect_count] = p->effects.data[i].id;
            }
            out->effect_count++;
        }
    }
    return true;
}

uint32_t rill_plugins_effect_count(const rill_plugins *p) {
    return p ? p->effects.len : 0;
}

bool rill_plugins_effect_get(const rill_plugins *p, uint32_t index, rill_plugin_effect_info *out) {
    if (!p || !out || index >= p->effects.len) {
        return false;
    }
    const plug_effect *e = &p->effects.data[index];
    bool ran = false;
    for (uint32_t i = 0; e->fx && i < rill_render_effect_count(p->r); i++) {
        rill_render_effect_info fi;
        if (rill_render_effect_get(p->r, i, &fi) && fi.handle == e->fx) {
            ran = fi.ran_last_frame;
        }
    }
    *out = (rill_plugin_effect_info){e->id,           e->plugin,        e->phase,
                                     e->order,        e->settings_size, e->generation,
                                     ran && !e->dead, e->inputs};
    return true;
}

void rill_plugins_get_stats(const rill_plugins *p, rill_plugins_stats *out) {
    if (p && out) {
        *out = p->stats;
    }
}

rill_result rill_plugins_compile(rill_plugins *p, const char *id, rill_error *err) {
    int i = p && id ? rill__plug_find_effect(p, id) : -1;
    if (i < 0) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "plugins: no effect '%s'",
                              id ? id : "(null)");
    }
    plug_effect *e = &p->effects.data[i];
    if (e->pipe) {
        return RILL_OK;
    }
    rill_result rc = rill__plug_compile(p, e, p->libs.data[e->lib].path, &e->pipe, err);
    if (rc != RILL_OK) {
        e->compile_failed = true;
        p->stats.shader_errors++;
        rill__plug_note_error(p, err ? err->msg : "plugins: compile failed");
    }
    return rc;
}

rill_result rill_plugins_set_settings(rill_plugins *p, const char *id, const void *data,
                                      uint32_t size, rill_error *err) {
    int i = p && id ? rill__plug_find_effect(p, id) : -1;
    if (i < 0 || !data || size != p->effects.data[i].settings_size) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "plugins: no effect '%s' with %u bytes of settings",
                              id ? id : "(null)", size);
    }
    memcpy(p->effects.data[i].settings, data, size);
    return RILL_OK;
}
