/* post_grade.c: ColorGrading (rill/render/post.h): `color_grading` on the linear HDR colour
 * (exposure, white balance, contrast, saturation) and `color_grading_lut` on the tonemapped colour
 * (lift / gamma / gain, then a .cube table). The tables are read through the renderer's file
 * system the first frame a camera names them, parsed (rill/formats/cube.h), kept in a storage
 * buffer (red fastest, then green, then blue) and looked up trilinearly in the shader. A table
 * that cannot be read or parsed is logged once and the grade runs without it. */
#include "post_internal.h"

#include "rill/formats/cube.h"

#include <math.h>
#include <string.h>

/* >>tables --------------------------------------------------------------------------------- */

void rill__post_luts_destroy(rill_renderer *r) {
    for (uint32_t i = 0; i < POST_MAX_LUTS; i++) {
        rill__buf_destroy(r->gpu, r->post->luts[i].buf);
        memset(&r->post->luts[i], 0, sizeof(r->post->luts[i]));
    }
}

/* Reads and uploads the table at path into slot l (l->buf stays NULL on failure, logged). */
static void lut_load(rill_renderer *r, rill__post_lut *l, const char *path) {
    l->path = rill_intern(path);
    if (!r->post->vfs) {
        RILL_LOG_WARN("render",
                      "ColorGrading.lut '%s': the renderer has no file system to read it "
                      "from (rill_renderer_set_vfs); graded without it",
                      path);
        return;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    rill_cube_lut lut;
    memset(&lut, 0, sizeof(lut));
    if (rill_vfs_read_all(r->post->vfs, path, &data, &size, &err) == RILL_OK &&
        rill_cube_parse((const char *)data, size, path, &lut, &err) == RILL_OK) {
        uint64_t bytes = (uint64_t)lut.size * lut.size * lut.size * 3u * sizeof(float);
        l->buf = rill__buf_create(r->gpu, bytes, RILL__BUF_STORAGE | RILL__BUF_TRANSFER_DST, false,
                                  "color grading lut", &err);
        if (l->buf && rill__buf_upload(r->gpu, l->buf, 0, lut.rgb, bytes, &err) != RILL_OK) {
            rill__buf_destroy(r->gpu, l->buf);
            l->buf = NULL;
        }
        l->size = lut.size;
        memcpy(l->domain_min, lut.domain_min, sizeof(l->domain_min));
        memcpy(l->domain_max, lut.domain_max, sizeof(l->domain_max));
    }
    if (!l->buf) {
        RILL_LOG_WARN("render", "ColorGrading.lut: %s; graded without it", err.msg);
    }
    rill_cube_free(&lut);
    rill_free(data);
}

/* The table named path, loaded the first time (least recently used slot replaced); NULL when
 * it failed or is not on the GPU yet. */
static const rill__post_lut *lut_get(rill_renderer *r, const char *path) {
    rill__post *p = r->post;
    rill__post_lut *slot = &p->luts[0];
    for (uint32_t i = 0; i < POST_MAX_LUTS; i++) {
        rill__post_lut *l = &p->luts[i];
        if (l->path && strcmp(l->path, path) == 0) {
            l->last_used = r->frame_counter;
            return l->buf && rill__buf_ready(l->buf) ? l : NULL;
        }
        /* an empty slot, else the least recently used */
        if (slot->path && (!l->path || l->last_used < slot->last_used)) {
            slot = l;
        }
    }
    rill__buf_destroy(r->gpu, slot->buf);
    memset(slot, 0, sizeof(*slot));
    slot->last_used = r->frame_counter;
    lut_load(r, slot, path);
    return slot->buf && rill__buf_ready(slot->buf) ? slot : NULL;
}

/* >>white balance -------------------------------------------------------------------------- */

typedef float m3[3][3]; /* row-major */

static void m3_mul(const m3 a, const m3 b, m3 out) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
}

static void m3_vec(const m3 a, const float v[3], float out[3]) {
    for (int i = 0; i < 3; i++) {
        out[i] = a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2];
    }
}

static void m3_inv(const m3 a, m3 out) {
    float c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1], c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2],
          c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
    float inv_det = 1.0f / (a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02);
    out[0][0] = c00 * inv_det;
    out[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * inv_det;
    out[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * inv_det;
    out[1][0] = c01 * inv_det;
    out[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * inv_det;
    out[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * inv_det;
    out[2][0] = c02 * inv_det;
    out[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * inv_det;
    out[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * inv_det;
}

/* The white point (CIE xy) that temperature and tint describe: temperature moves x along the
 * daylight locus away from D65 (cooler: towards blue), tint moves y (green / magenta). */
static void white_xy(float temperature, float tint, float out[2]) {
    float x = 0.31271f - temperature * (temperature < 0.0f ? 0.1f : 0.05f);
    out[0] = x;
    out[1] = 2.87f * x - 3.0f * x * x - 0.27509507f + tint * 0.05f;
}

/* The linear sRGB matrix that adapts the white point (temperature, tint) to D65 in CAT02 cone
 * space (von Kries): a white lit by that illuminant becomes neutral, so positive temperature
 * (a bluer white adapted away) warms the image. Identity at (0, 0). */
static void white_balance(float temperature, float tint, m3 out) {
    static const m3 xyz_from_rgb = {{0.4124564f, 0.3575761f, 0.1804375f},
                                    {0.2126729f, 0.7151522f, 0.0721750f},
                                    {0.0193339f, 0.1191920f, 0.9503041f}};
    static const m3 lms_from_xyz = {
        {0.7328f, 0.4296f, -0.1624f}, {-0.7036f, 1.6975f, 0.0061f}, {0.0030f, 0.0136f, 0.9834f}};
    memset(out, 0, sizeof(m3));
    out[0][0] = out[1][1] = out[2][2] = 1.0f;
    if (temperature == 0.0f && tint == 0.0f) {
        return;
    }
    float xy[2], d65[2];
    white_xy(temperature, tint, xy);
    white_xy(0.0f, 0.0f, d65);
    float w[3] = {xy[0] / xy[1], 1.0f, (1.0f - xy[0] - xy[1]) / xy[1]};
    float n[3] = {d65[0] / d65[1], 1.0f, (1.0f - d65[0] - d65[1]) / d65[1]};
    float lw[3], ln[3];
    m3_vec(lms_from_xyz, w, lw);
    m3_vec(lms_from_xyz, n, ln);
    m3 scale = {{ln[0] / lw[0], 0, 0}, {0, ln[1] / lw[1], 0}, {0, 0, ln[2] / lw[2]}};
    m3 to_lms, from_lms, a, b;
    m3_mul(lms_from_xyz, xyz_from_rgb, to_lms);
    m3_inv(to_lms, from_lms);
    m3_mul(scale, to_lms, a);
    m3_mul(from_lms, a, b);
    memcpy(out, b, sizeof(m3));
}

/* >>effects -------------------------------------------------------------------------------- */

/* The camera's grade, clamped (warned once per field). */
static rill_render_color_grading grading_of(const rill_render_effect_ctx *ctx) {
    rill_render_color_grading g;
    const rill_render_color_grading *s = rill__post_settings(ctx, sizeof(g));
    memcpy(&g, s, sizeof(g));
    rill__post_fix_grading(ctx->renderer, rill__post_source(ctx->view, "ColorGrading"), &g);
    return g;
}

static bool hdr_neutral(const rill_render_color_grading *g) {
    return g->exposure == 0.0f && g->temperature == 0.0f && g->tint == 0.0f &&
           g->contrast == 1.0f && g->saturation == 1.0f;
}

static bool ldr_neutral(const rill_render_color_grading *g) {
    for (int k = 0; k < 3; k++) {
        if (g->lift[k] != 0.0f || g->gamma[k] != 1.0f || g->gain[k] != 1.0f) {
            return false;
        }
    }
    return true;
}

static bool grade_active(const rill_render_effect_ctx *ctx) {
    if (!rill__post_settings(ctx, sizeof(rill_render_color_grading))) {
        return false;
    }
    rill_render_color_grading g = grading_of(ctx);
    return !hdr_neutral(&g);
}

static const rill__post_lut *grade_lut(const rill_render_effect_ctx *ctx,
                                       const rill_render_color_grading *g) {
    return g->lut && g->lut[0] ? lut_get(ctx->renderer, g->lut) : NULL;
}

static bool lut_active(const rill_render_effect_ctx *ctx) {
    if (!rill__post_settings(ctx, sizeof(rill_render_color_grading))) {
        return false;
    }
    rill_render_color_grading g = grading_of(ctx);
    return !ldr_neutral(&g) || grade_lut(ctx, &g);
}

/* Push constants of grade.comp (after the output size). */
typedef struct grade_push {
    uint32_t size[2];
    float exposure, contrast, saturation, pad[3];
    float wb[3][4]; /* rows */
} grade_push;

static rill_result add_grade(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_render_color_grading g = grading_of(ctx);
    rill__post_run *run = rill__post_run_new(ctx->renderer, POST_PIPE_GRADE);
    if (!run) {
        return RILL_OK;
    }
    grade_push push = {{0, 0}, exp2f(g.exposure), g.contrast, g.saturation, {0, 0, 0}, {{0}}};
    m3 wb;
    white_balance(g.temperature, g.tint, wb);
    for (int i = 0; i < 3; i++) {
        memcpy(push.wb[i], wb[i], sizeof(wb[i]));
    }
    memcpy(run->push, &push, sizeof(push));
    run->in[0] = ctx->color;
    run->in_count = 1;
    run->out = rill_render_effect_next_color(ctx, err);
    return rill__post_add_pass(ctx, "color_grading", run, err);
}

/* Push constants of grade_lut.comp. */
typedef struct grade_lut_push {
    uint32_t size[2], lut_size, has_lut;
    float domain_min[4], domain_max[4], lift[4], inv_gamma[4], gain[4];
} grade_lut_push;

static rill_result add_grade_lut(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_render_color_grading g = grading_of(ctx);
    const rill__post_lut *lut = grade_lut(ctx, &g);
    if (ldr_neutral(&g) && !lut) {
        return RILL_OK;
    }
    rill__post_run *run = rill__post_run_new(ctx->renderer, POST_PIPE_GRADE_LUT);
    if (!run) {
        return RILL_OK;
    }
    grade_lut_push push;
    memset(&push, 0, sizeof(push));
    for (int k = 0; k < 3; k++) {
        push.lift[k] = g.lift[k];
        push.inv_gamma[k] = 1.0f / g.gamma[k];
        push.gain[k] = g.gain[k];
        push.domain_max[k] = 1.0f;
    }
    if (lut) {
        push.has_lut = 1;
        push.lut_size = lut->size;
        memcpy(push.domain_min, lut->domain_min, sizeof(float) * 3);
        memcpy(push.domain_max, lut->domain_max, sizeof(float) * 3);
        run->buffer = lut->buf;
    } else {
        /* The layout has the table's binding: bind any buffer the shader will not read. */
        for (uint32_t i = 0; i < POST_MAX_LUTS && !run->buffer; i++) {
            run->buffer = ctx->renderer->post->luts[i].buf;
        }
        if (!run->buffer) {
            run->buffer = ctx->renderer->exposure_buf;
        }
    }
    memcpy(run->push, &push, sizeof(push));
    run->in[0] = ctx->color;
    run->in_count = 1;
    run->out = rill_render_effect_next_color(ctx, err);
    return rill__post_add_pass(ctx, "color_grading_lut", run, err);
}

rill_result rill__post_register_grade(rill_renderer *r, rill_error *err) {
    static const rill_render_effect_desc fx[] = {
        {.id = "color_grading",
         .phase = RILL_RENDER_PHASE_HDR_POST,
         .order = 150,
         .settings = "ColorGrading",
         .active = grade_active,
         .add = add_grade},
        {.id = "color_grading_lut",
         .phase = RILL_RENDER_PHASE_LDR_POST,
         .order = -100,
         .settings = "ColorGrading",
         .active = lut_active,
         .add = add_grade_lut},
    };
    for (size_t i = 0; i < RILL_COUNTOF(fx); i++) {
        if (!rill_render_effect_register(r, &fx[i], err)) {
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
        }
    }
    return RILL_OK;
}
