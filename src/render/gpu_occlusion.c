/* gpu_occlusion.c: GPU culling's two-phase occlusion (gpu_cull.c; off with
 * RILL_RENDER_DEBUG_NO_OCCLUSION). The view's frustum survivors that passed last frame's
 * occlusion test are phase 1: the cull appends them to the view's list as before, and the prepass
 * draws them. Then, inside the prepass (frame_passes.c), this file's record builds a
 * farthest-depth pyramid from the depth buffer (ssr_hiz.comp with `farthest`: the SSR pyramid
 * keeps the nearest depth and is built after lighting) and tests every instance the view's
 * frustum holds against it (shaders/gpu_occlusion.comp): the ones phase 1 did not draw and that
 * are not behind the depth so far become phase 2, drawn by the prepass right after (depth, normal
 * and motion loaded) and by the opaque pass with phase 1's; every tested instance's result is its
 * visibility for the next frame. An instance is only left out when its whole bounding box lies
 * behind depth that was drawn, so the picture is the one without occlusion.
 *
 * plan decides per frame whether the view occludes (the setting; one sample per pixel: the
 * pyramid of a multisampled depth would need every sample; the view's own culling frustum, not a
 * debug panel's) and whether last frame's results are forgotten (the first frame, a new size or
 * projection, a turn above 45 degrees or a jump of the camera: a cut). The pyramid is the
 * renderer's, kept between frames, made again at a new size. Shadow cascades keep the frustum
 * test: a caster hidden from the camera still casts. */
#include "frame.h"

#include <math.h>
#include <string.h>

#define OCCL_LEVELS_MAX 16u
#define OCCL_CUT_COS 0.70710678f /* a turn above 45 degrees in one frame is a cut */
#define OCCL_CUT_JUMP 25.0f      /* and so is a camera moving farther than this in one frame */

struct rill__gc_occl {
    rill__img *hiz; /* R32F, half the depth image's size, a full chain of levels */
    uint32_t w, h;  /* the depth image's size it was made for */
    uint32_t levels;
    bool have_cam; /* last frame's camera below is known */
    float fwd[3], eye[3], proj[5];
};

/* Must match `Params` in gpu_occlusion.comp (std430). */
typedef struct occl_params {
    float view_proj[16];
    float screen[4];
    uint32_t info[4];
    uint32_t pyramid[4];
} occl_params;

static uint32_t half_of(uint32_t n) {
    return n > 1u ? (n + 1u) / 2u : 1u;
}

static uint32_t level_size(uint32_t size, uint32_t level) {
    uint32_t s = size >> level;
    return s ? s : 1u;
}

void rill__gc_occl_destroy(rill_renderer *r, rill__gc_occl *o) {
    if (o) {
        rill__img_destroy(r->gpu, o->hiz);
        rill_free(o);
    }
}

/* The pyramid for a w x h depth image (made again when the size changed); false: none. */
static bool ensure_pyramid(rill_renderer *r, rill__gc_occl *o, uint32_t w, uint32_t h) {
    if (o->hiz && o->w == w && o->h == h) {
        return true;
    }
    rill__img_destroy(r->gpu, o->hiz);
    o->hiz = NULL;
    uint32_t hw = half_of(w), hh = half_of(h), levels = 1;
    while (levels < OCCL_LEVELS_MAX && ((hw >> levels) >= 1u || (hh >> levels) >= 1u)) {
        levels++;
    }
    rill__img_desc d = {.width = hw,
                        .height = hh,
                        .layers = 1,
                        .mips = levels,
                        .format = RILL_RG_FORMAT_R32F,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                        .label = "gpu cull depth pyramid"};
    rill_error err = {0};
    o->hiz = rill__img_create(r->gpu, &d, &err);
    if (!o->hiz) {
        RILL_LOG_WARN("render", "GPU culling's occlusion off: %s", err.msg);
        return false;
    }
    o->w = w;
    o->h = h;
    o->levels = levels;
    o->have_cam = false; /* a new size: last frame's results are forgotten */
    return true;
}

/* Whether the view's camera cut since last frame (see the file comment); remembers this one. */
static bool camera_cut(rill__gc_occl *o, const rill__view_settings *st) {
    const float *m = st->world_from_view;
    float len = sqrtf(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    float fwd[3] = {0.0f, 0.0f, -1.0f};
    if (len > 1e-6f) {
        fwd[0] = -m[8] / len, fwd[1] = -m[9] / len, fwd[2] = -m[10] / len;
    }
    float eye[3] = {m[12], m[13], m[14]};
    float proj[5] = {st->fov_y, st->znear, st->zfar, st->half_h, st->orthographic ? 1.0f : 0.0f};
    bool cut = !o->have_cam || memcmp(o->proj, proj, sizeof(proj)) != 0;
    float c = fwd[0] * o->fwd[0] + fwd[1] * o->fwd[1] + fwd[2] * o->fwd[2];
    float dx = eye[0] - o->eye[0], dy = eye[1] - o->eye[1], dz = eye[2] - o->eye[2];
    cut = cut || !(c >= OCCL_CUT_COS) ||
          !(dx * dx + dy * dy + dz * dz <= OCCL_CUT_JUMP * OCCL_CUT_JUMP);
    memcpy(o->fwd, fwd, sizeof(fwd));
    memcpy(o->eye, eye, sizeof(eye));
    memcpy(o->proj, proj, sizeof(proj));
    o->have_cam = true;
    return cut;
}

bool rill__gc_occl_plan(rill_renderer *r, rill__gc_occl **op, const rill__view *vs,
                        const float planes[6][4], bool *out_reset) {
    *out_reset = false;
    if ((r->desc.debug_flags & RILL_RENDER_DEBUG_NO_OCCLUSION) || vs->msaa > 1u ||
        !r->pipes[RILL__PIPE_GPU_OCCLUSION] || !r->pipes[RILL__PIPE_SSR_HIZ]) {
        if (*op) {
            (*op)->have_cam = false; /* when it comes back, nothing of before counts */
        }
        return false;
    }
    /* A debug panel culling with another camera's frustum (or a frozen one) than the one whose
     * depth is drawn: the depth says nothing about what that camera sees. */
    float own[6][4];
    rill__frustum_planes(vs->view_proj, own);
    if (memcmp(own, planes, sizeof(own)) != 0) {
        if (*op) {
            (*op)->have_cam = false;
        }
        return false;
    }
    if (!*op) {
        *op = rill_calloc_tagged(1, sizeof(rill__gc_occl), RILL_MEM_RENDER);
        if (!*op) {
            return false;
        }
    }
    rill__gc_occl *o = *op;
    if (!ensure_pyramid(r, o, vs->size3[0], vs->size3[1])) {
        return false;
    }
    *out_reset = camera_cut(o, &vs->set);
    return true;
}

/* One image barrier from usage `from` to `to`. */
static void img_barrier(rill__cmd *cmd, rill__img *img, rill_rg_usage from, rill_rg_usage to) {
    rill_rg_barrier b = {0, true, from, to};
    rill__cmd_barriers(cmd, &b, 1, &img, NULL);
}

/* The farthest-depth pyramid of depth (held SAMPLED_COMPUTE) into o->hiz, left SAMPLED_COMPUTE. */
static void build_pyramid(rill_renderer *r, rill__gc_occl *o, rill__cmd *cmd, rill__img *depth) {
    const rill__img_desc *dd = rill__img_get_desc(depth), *hd = rill__img_get_desc(o->hiz);
    img_barrier(cmd, o->hiz, RILL_RG_USAGE_NONE, RILL_RG_USAGE_STORAGE_WRITE);
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_SSR_HIZ]);
    for (uint32_t l = 0; l < o->levels; l++) {
        rill__binding b[3] = {
            {.img = depth, .layer = -1, .sampler = RILL__SAMPLER_NEAREST_CLAMP},
            {.img = o->hiz, .layer = -1, .one_level = true, .level = l ? l - 1u : 0u},
            {.img = o->hiz, .layer = -1, .one_level = true, .level = l},
        };
        rill__cmd_bind_transient_set(cmd, 0, b, 3);
        struct {
            uint32_t src[2], dst[2], level, farthest;
        } push = {{l ? level_size(hd->width, l - 1u) : dd->width,
                   l ? level_size(hd->height, l - 1u) : dd->height},
                  {level_size(hd->width, l), level_size(hd->height, l)},
                  l,
                  1u};
        rill__cmd_push(cmd, &push, sizeof(push));
        rill__cmd_dispatch(cmd, (push.dst[0] + 7u) / 8u, (push.dst[1] + 7u) / 8u, 1);
        rill__cmd_compute_barrier(cmd);
    }
    img_barrier(cmd, o->hiz, RILL_RG_USAGE_STORAGE_WRITE, RILL_RG_USAGE_SAMPLED_COMPUTE);
}

rill_result rill__gc_occl_record(rill_renderer *r, rill__gc_occl *o, rill__cmd *cmd,
                                 const rill__view *vs, rill__img *depth,
                                 const rill__gc_occl_in *in) {
    rill__buf *pbuf = NULL;
    uint64_t poff = 0;
    occl_params *p = rill__frame_alloc(cmd, sizeof(occl_params), 16, &pbuf, &poff);
    const rill__img_desc *dd = rill__img_get_desc(depth);
    /* The pyramid was made for the view's 3D size; the levels' coverage (a texel of level n
     * covers 2^(n + 1) pixels) holds only for the depth image it halves, so it follows that. */
    if (!p || !o || !ensure_pyramid(r, o, dd->width, dd->height)) {
        return RILL_ERR_OUT_OF_MEMORY;
    }
    const rill__img_desc *hd = rill__img_get_desc(o->hiz);
    memset(p, 0, sizeof(*p));
    memcpy(p->view_proj, vs->view_proj, sizeof(p->view_proj));
    p->screen[0] = (float)dd->width;
    p->screen[1] = (float)dd->height;
    /* Margins that keep rounding on the safe side: a box a thousandth larger than the sphere,
     * and its depth a few float steps nearer than the depth it must lie behind. */
    p->screen[2] = 1e-6f;
    p->screen[3] = 1.001f;
    p->info[0] = in->late;
    p->info[1] = in->ncmds;
    p->info[2] = in->total;
    p->info[3] = in->slots;
    p->pyramid[0] = hd->width;
    p->pyramid[1] = hd->height;
    p->pyramid[2] = o->levels;
    /* Timed per view, named as the graph names a view's passes ("opaque.1"). */
    static const char *const names[RILL_RENDER_MAX_VIEWS] = {
        "gpu occlusion",   "gpu occlusion.1", "gpu occlusion.2", "gpu occlusion.3",
        "gpu occlusion.4", "gpu occlusion.5", "gpu occlusion.6", "gpu occlusion.7"};
    const char *name = names[vs->index < RILL_RENDER_MAX_VIEWS ? vs->index : 0u];
    rill__cmd_label_begin(cmd, name);
    rill__cmd_timestamp_begin(cmd, name);
    rill__cmd_compute_barrier(cmd); /* the cull's flags and commands, written before the graph */
    img_barrier(cmd, depth, RILL_RG_USAGE_DEPTH_WRITE, RILL_RG_USAGE_SAMPLED_COMPUTE);
    build_pyramid(r, o, cmd, depth);
    rill__cmd_bind_pipe(cmd, r->pipes[RILL__PIPE_GPU_OCCLUSION]);
    rill__binding b[8] = {in->res,   in->groups, in->cmds,
                          in->out,   in->flags,  {.buf = pbuf, .offset = poff, .range = sizeof(*p)},
                          in->counts};
    b[7] = (rill__binding){.img = o->hiz, .layer = -1, .sampler = RILL__SAMPLER_NEAREST_CLAMP};
    rill_result res = rill__cmd_bind_transient_set(cmd, 0, b, 8);
    const uint32_t most = 65535u * 64u;
    for (uint32_t at = 0; res == RILL_OK && at < in->slots; at += most) {
        uint32_t n = RILL_MIN(in->slots - at, most);
        uint32_t push[2] = {in->slots, at};
        rill__cmd_push(cmd, push, sizeof(push));
        rill__cmd_dispatch(cmd, (n + 63u) / 64u, 1, 1);
    }
    rill__cmd_compute_barrier(cmd);
    img_barrier(cmd, depth, RILL_RG_USAGE_SAMPLED_COMPUTE, RILL_RG_USAGE_DEPTH_WRITE);
    rill__cmd_timestamp_end(cmd);
    rill__cmd_label_end(cmd);
    return res;
}
