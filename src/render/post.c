/* post.c: the post-processing effects' state on the renderer (rill/render/post.h): their compute
 * pipelines, the per-frame run records their passes read (one per pass use, so an effect may run
 * for several cameras in a frame), and the file system the .cube tables are read from. */
#include "post_internal.h"

#include <string.h>

#include "render_shaders.h"

#define T RILL__BIND_TEXTURE
#define I RILL__BIND_STORAGE_IMAGE
#define S RILL__BIND_STORAGE

/* One row per rill__post_pipe. */
static const struct {
    const char *label;
    const uint32_t *code;
    const size_t *size;
    rill__set_layout set;
} pipe_rows[POST_PIPE_NUM] = {
    [POST_PIPE_GRADE] = {"color grading",
                         rill__spv_grade_comp,
                         &rill__spv_grade_comp_size,
                         {{T, I}}},
    [POST_PIPE_GRADE_LUT] = {"color grading lut",
                             rill__spv_grade_lut_comp,
                             &rill__spv_grade_lut_comp_size,
                             {{T, I, S}}},
    [POST_PIPE_DOF_COC] = {"dof coc",
                           rill__spv_dof_coc_comp,
                           &rill__spv_dof_coc_comp_size,
                           {{T, T, I}}},
    [POST_PIPE_DOF_BLUR] = {"dof blur",
                            rill__spv_dof_blur_comp,
                            &rill__spv_dof_blur_comp_size,
                            {{T, I}}},
    [POST_PIPE_DOF_BOKEH] = {"dof bokeh",
                             rill__spv_dof_bokeh_comp,
                             &rill__spv_dof_bokeh_comp_size,
                             {{T, I}}},
    [POST_PIPE_DOF_COMPOSITE] = {"dof composite",
                                 rill__spv_dof_composite_comp,
                                 &rill__spv_dof_composite_comp_size,
                                 {{T, T, T, I}}},
    [POST_PIPE_MOTION_BLUR] = {"motion blur",
                               rill__spv_motion_blur_comp,
                               &rill__spv_motion_blur_comp_size,
                               {{T, T, T, I}}},
    [POST_PIPE_DECAL] = {"forward decal",
                         rill__spv_decal_comp,
                         &rill__spv_decal_comp_size,
                         {{T, T, I, S, S, T, T}}},
    [POST_PIPE_DECAL_ATLAS] = {"decal atlas",
                               rill__spv_decal_atlas_comp,
                               &rill__spv_decal_atlas_comp_size,
                               {{T, I}}},
    [POST_PIPE_DECAL_ATLAS_GROW] = {"decal atlas grow",
                                    rill__spv_decal_atlas_grow_comp,
                                    &rill__spv_decal_atlas_grow_comp_size,
                                    {{T, I}}},
};
#undef T
#undef I
#undef S

rill_result rill__post_create(rill_renderer *r, rill_error *err) {
    rill__post *p = rill_calloc_tagged(1, sizeof(*p), RILL_MEM_RENDER);
    if (!p) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (post)");
    }
    r->post = p;
    for (int i = 0; i < POST_PIPE_NUM; i++) {
        rill__pipe_desc d;
        memset(&d, 0, sizeof(d));
        d.label = pipe_rows[i].label;
        d.cs = pipe_rows[i].code;
        d.cs_size = *pipe_rows[i].size;
        d.set_count = 1;
        d.sets[0] = pipe_rows[i].set;
        d.push_size = POST_PUSH_BYTES;
        p->pipes[i] = rill__pipe_create(r->gpu, &d, err);
        if (!p->pipes[i]) {
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
        }
    }
    rill__img_desc nd = {.width = 1,
                         .height = 1,
                         .layers = 1,
                         .mips = 1,
                         .format = RILL_RG_FORMAT_RGBA16F,
                         .usage = RILL__IMG_SAMPLED | RILL__IMG_TRANSFER_DST | RILL__IMG_ARRAY,
                         .label = "no decal"};
    static const uint16_t zero[4] = {0, 0, 0, 0};
    p->no_decal = rill__img_create(r->gpu, &nd, err);
    if (!p->no_decal || rill__img_upload(r->gpu, p->no_decal, zero, sizeof(zero), err) != RILL_OK) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    RILL_TRY(rill__post_register_grade(r, err));
    RILL_TRY(rill__post_register_dof(r, err));
    RILL_TRY(rill__post_register_decals(r, err));
    return rill__post_register_motion(r, err);
}

void rill__post_destroy(rill_renderer *r) {
    rill__post *p = r->post;
    if (!p) {
        return;
    }
    rill__post_luts_destroy(r);
    rill__img_destroy(r->gpu, p->no_decal);
    rill__img_destroy(r->gpu, p->atlas);
    rill__img_destroy(r->gpu, p->atlas_old);
    rill__buf_destroy(r->gpu, p->no_decal_buf);
    rill_free(p->decals);
    for (int i = 0; i < POST_PIPE_NUM; i++) {
        rill__pipe_destroy(r->gpu, p->pipes[i]);
    }
    rill_free(p);
    r->post = NULL;
}

void rill_renderer_set_vfs(rill_renderer *r, rill_vfs *vfs) {
    rill__rthread_guard(r);
    if (r && r->post) {
        r->post->vfs = vfs;
    }
}

rill__post_run *rill__post_run_new(rill_renderer *r, rill__post_pipe pipe) {
    rill__post *p = r->post;
    if (p->run_frame != r->frame_counter) {
        p->run_frame = r->frame_counter;
        p->run_count = 0;
    }
    if (p->run_count == POST_MAX_RUNS) {
        return NULL;
    }
    rill__post_run *run = &p->runs[p->run_count++];
    memset(run, 0, sizeof(*run));
    run->pipe = pipe;
    return run;
}

static void exec_run(rill_rg_ctx *ctx, void *user) {
    const rill__post_run *run = user;
    rill__img *dst = rill__ctx_img(ctx, run->out);
    const rill__img_desc *d = rill__img_get_desc(dst);
    rill__binding b[POST_MAX_IMAGES + 2];
    memset(b, 0, sizeof(b));
    uint32_t n = 0;
    for (; n < run->in_count; n++) {
        b[n].img = rill__ctx_img(ctx, run->in[n]);
        b[n].layer = -1;
        b[n].sampler = run->in_linear[n] ? RILL__SAMPLER_LINEAR_CLAMP : RILL__SAMPLER_NEAREST_CLAMP;
    }
    b[n].img = dst;
    b[n].layer = -1;
    b[n++].sampler = RILL__SAMPLER_NUM;
    if (run->buffer) {
        b[n++].buf = run->buffer;
    }
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->post->pipes[run->pipe]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, n);
    uint8_t push[POST_PUSH_BYTES];
    memcpy(push, run->push, sizeof(push));
    memcpy(push, &d->width, 4);
    memcpy(push + 4, &d->height, 4);
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

rill_result rill__post_add_pass(rill_render_effect_ctx *ctx, const char *label, rill__post_run *run,
                                rill_error *err) {
    rill_rg *g = ctx->graph;
    rill_rg_pass p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = label, .exec = exec_run, .user = run}, err);
    for (uint32_t i = 0; i < run->in_count; i++) {
        RILL_TRY(rill_rg_use_image(g, p, run->in[i], RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, run->out, RILL_RG_USAGE_STORAGE_WRITE, err));
    rill_rg_pass anchor = ctx->phase <= RILL_RENDER_PHASE_HDR_POST ? ctx->frame->end_main_pass
                                                                   : ctx->frame->tonemapping;
    return rill_rg_add_edge(g, anchor, p, err);
}

const void *rill__post_settings(const rill_render_effect_ctx *ctx, uint32_t size) {
    return ctx->settings && ctx->settings_size == size ? ctx->settings : NULL;
}

void rill__post_depth_params(const rill_render_view *v, float out[3]) {
    rill__view_settings st;
    rill__view_defaults(v, &st);
    out[0] = st.znear;
    out[1] = st.zfar;
    out[2] = st.orthographic ? 1.0f : 0.0f;
}
