/* frame_views.c: the views of a frame. rill__frame_plan_views decides which views the snapshot
 * draws and where (its view list, or its single view), and fills one view slot per view: camera
 * matrices, shadow cascades, draw lists (frame_cull.c), frame constants and the instance, light
 * and cluster buffers (frame_lights.c). A frame with a single view over the whole output uses
 * views[0] and draws without a rectangle. */
#include "debug_views.h"
#include "frame.h"
#include "view_projection.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>
#include <cglm/clipspace/ortho_rh_zo.h>
#include <cglm/clipspace/persp_rh_zo.h>

/* Must match `Instance` in shaders/common.glsl (std430). */
typedef struct gpu_instance {
    float model[16];
    float prev_model[16];
    float params[4]; /* x: lod_fade */
} gpu_instance;

/* >>defaults -------------------------------------------------------------------------------- */

void rill_render_ssao_resolve(const rill_render_ssao *s, uint32_t *out_slices,
                              uint32_t *out_per_side, float *out_thickness) {
    static const uint32_t preset[RILL_SSAO_QUALITY_NUM][2] = {
        {3, 3}, {1, 2}, {2, 2}, {9, 3}, {0, 0}};
    rill_ssao_quality q =
        s && (unsigned)s->quality < RILL_SSAO_QUALITY_NUM ? s->quality : RILL_SSAO_HIGH;
    uint32_t slices = preset[q][0], per_side = preset[q][1];
    if (q == RILL_SSAO_CUSTOM) {
        slices = s->slice_count;
        per_side = s->samples_per_slice_side;
    }
    *out_slices = RILL_CLAMP(slices, 1u, 16u);
    *out_per_side = RILL_CLAMP(per_side, 1u, 8u);
    float t = s && (s->thickness != 0.0f || s->thickness_set) ? s->thickness : 0.25f;
    *out_thickness = t >= 0.0f ? t : 0.0f; /* NaN fails the test and becomes 0 too */
}

void rill__view_defaults(const rill_render_view *v, rill__view_settings *out) {
    memset(out, 0, sizeof(*out));
    bool ident_zero = true;
    for (int i = 0; i < 16; i++) {
        ident_zero &= v->world_from_view[i] == 0.0f;
    }
    if (ident_zero) {
        out->world_from_view[0] = out->world_from_view[5] = 1.0f;
        out->world_from_view[10] = out->world_from_view[15] = 1.0f;
    } else {
        memcpy(out->world_from_view, v->world_from_view, sizeof(out->world_from_view));
    }
    /* Degenerate cameras (near >= far, negative fov, NaN, inf) are clamped with a warning. */
    const float in[4] = {v->fov_y, v->near_plane, v->far_plane, v->ortho_height};
    rill__projection pr;
    rill__projection_resolve(in, &pr);
    out->fov_y = pr.fov_y;
    out->znear = pr.znear;
    out->zfar = pr.zfar;
    out->half_h = pr.half_h;
    out->orthographic = v->orthographic;
    rill_tonemapper op = v->tonemapper;
    if (op == RILL_TONEMAP_DEFAULT || (unsigned)op >= RILL_TONEMAP_NUM) {
        op = RILL_TONEMAP_ACES;
    }
    out->tonemapper = op;
    out->exposure = exp2f(RILL_CLAMP(v->exposure_ev, -20.0f, 20.0f));
    rill_render_ssao_resolve(&v->ssao, &out->ssao_slices, &out->ssao_per_side,
                             &out->ssao_thickness);
    out->ssao_radius = v->ssao.radius > 0.0f ? v->ssao.radius : 0.5f;
    const rill_render_bloom *b = &v->bloom;
    out->bloom_intensity = b->intensity > 0.0f ? b->intensity : 0.15f;
    out->bloom_threshold =
        b->threshold != 0.0f || b->threshold_set ? RILL_MAX(b->threshold, 0.0f) : 1.0f;
    const rill_render_auto_exposure *a = &v->auto_exposure;
    out->ae_rate = a->rate > 0.0f ? RILL_MIN(a->rate, 1.0f) : 0.05f;
    out->ae_min_ev = a->min_ev != 0.0f ? a->min_ev : -10.0f;
    out->ae_max_ev = a->max_ev != 0.0f ? a->max_ev : 10.0f;
}

/* The snapshot's wireframe settings with their defaults: color (all zero: light blue), and
 * fade = (start, end, min alpha, on). */
static void wireframe_defaults(const rill_render_wireframe *wf, float color[4], float fade[4]) {
    static const float def_color[4] = {0.2f, 0.85f, 1.0f, 0.65f};
    bool zero = wf->color[0] == 0 && wf->color[1] == 0 && wf->color[2] == 0 && wf->color[3] == 0;
    memcpy(color, zero ? def_color : wf->color, sizeof(float) * 4);
    fade[0] = wf->fade_start > 0.0f ? wf->fade_start : 8.0f;
    fade[1] = wf->fade_end > fade[0] ? wf->fade_end : RILL_MAX(40.0f, fade[0] + 1.0f);
    fade[2] = wf->min_alpha > 0.0f ? wf->min_alpha : 0.08f;
    fade[3] = wf->fade ? 1.0f : 0.0f;
}

/* >>matrices -------------------------------------------------------------------------------- */

/* Frustum planes (a, b, c, d with ax + by + cz + d >= 0 inside) of a zero-to-one clip space. */
static void frustum_planes(mat4 vp, vec4 out[6]) {
    for (int i = 0; i < 4; i++) {
        float r0 = vp[i][0], r1 = vp[i][1], r2 = vp[i][2], r3 = vp[i][3];
        out[0][i] = r3 + r0;
        out[1][i] = r3 - r0;
        out[2][i] = r3 + r1;
        out[3][i] = r3 - r1;
        out[4][i] = r2;
        out[5][i] = r3 - r2;
    }
    for (int p = 0; p < 6; p++) {
        float len = sqrtf(out[p][0] * out[p][0] + out[p][1] * out[p][1] + out[p][2] * out[p][2]);
        if (len > 0.0f) {
            glm_vec4_scale(out[p], 1.0f / len, out[p]);
        }
    }
}

void rill__frustum_planes(const float vp[16], float out[6][4]) {
    mat4 m;
    memcpy(m, vp, sizeof(mat4));
    vec4 p[6];
    frustum_planes(m, p);
    memcpy(out, p, sizeof(p));
}

/* The bounding sphere of the view frustum between view distances a and b. */
static rill__sphere slice_sphere(mat4 world_from_view, float tan_y, float aspect, float a, float b,
                                 bool ortho, float half_h) {
    vec3 corners[8];
    int k = 0;
    for (int zi = 0; zi < 2; zi++) {
        float z = zi ? b : a;
        float hy = ortho ? half_h : z * tan_y, hx = hy * aspect;
        for (int yi = -1; yi <= 1; yi += 2) {
            for (int xi = -1; xi <= 1; xi += 2) {
                vec3 v = {hx * (float)xi, hy * (float)yi, -z};
                glm_mat4_mulv3(world_from_view, v, 1.0f, corners[k++]);
            }
        }
    }
    rill__sphere s;
    glm_vec3_zero(s.c);
    for (int i = 0; i < 8; i++) {
        glm_vec3_add(s.c, corners[i], s.c);
    }
    glm_vec3_scale(s.c, 1.0f / 8.0f, s.c);
    float r = 0.0f;
    for (int i = 0; i < 8; i++) {
        r = fmaxf(r, glm_vec3_distance(s.c, corners[i]));
    }
    s.r = ceilf(r * 16.0f) / 16.0f; /* quantized so the cascade size does not shimmer */
    return s;
}

static void light_matrices(const rill__sphere *s, vec3 dir, float map_size, mat4 out_vp,
                           mat4 out_view, float *out_far) {
    float back = 4.0f * s->r + 10.0f; /* room for casters between the light and the slice */
    vec3 eye, up = {0.0f, 1.0f, 0.0f};
    if (fabsf(dir[1]) > 0.99f) {
        glm_vec3_copy((vec3){0.0f, 0.0f, 1.0f}, up);
    }
    glm_vec3_scale(dir, -(s->r + back), eye);
    glm_vec3_add(eye, (float *)s->c, eye);
    glm_lookat(eye, (float *)s->c, up, out_view);
    float far = 2.0f * s->r + back;
    mat4 proj;
    glm_ortho_rh_zo(-s->r, s->r, -s->r, s->r, 0.0f, far, proj);
    glm_mat4_mul(proj, out_view, out_vp);
    /* Snap the projection to whole texels so a moving camera does not make shadow edges crawl. */
    vec4 origin = {0, 0, 0, 1}, o;
    glm_mat4_mulv(out_vp, origin, o);
    float half = map_size * 0.5f;
    float ox = o[0] * half, oy = o[1] * half;
    proj[3][0] += (roundf(ox) - ox) / half;
    proj[3][1] += (roundf(oy) - oy) / half;
    glm_mat4_mul(proj, out_view, out_vp);
    *out_far = far;
}

/* The sun's direction of travel (normalized; straight down without a sun or a direction). */
static void sun_direction(const rill_render_snapshot *snap, vec3 out) {
    glm_vec3_copy((vec3){0.0f, -1.0f, 0.0f}, out);
    if (snap->has_sun) {
        glm_vec3_copy((float *)snap->sun.direction, out);
        if (glm_vec3_norm(out) < 1e-6f) {
            glm_vec3_copy((vec3){0.0f, -1.0f, 0.0f}, out);
        }
        glm_vec3_normalize(out);
    }
}

/* Cascade matrices of the view into vs->cascade_vp, their far distances and texel sizes; *whole
 * gets the bounding sphere of the shadowed part of the view. */
static void cascades_of(const rill_renderer *r, const rill__view_settings *st, uint32_t cascades,
                        mat4 world_from_view, float aspect, vec3 sun_dir, float cascade_vp[][16],
                        float cascade_far[4], float cascade_texel[4], rill__sphere *whole) {
    float znear = st->znear, dist = fminf(r->desc.shadow_distance, st->zfar);
    float tan_y = tanf(st->fov_y * 0.5f);
    float prev_split = znear;
    for (uint32_t c = 0; c < cascades; c++) {
        float t = (float)(c + 1) / (float)cascades;
        float lin = znear + (dist - znear) * t, lg = znear * powf(dist / znear, t);
        float split = c + 1 == cascades ? dist : 0.75f * lg + 0.25f * lin;
        rill__sphere s = slice_sphere(world_from_view, tan_y, aspect, prev_split, split,
                                      st->orthographic, st->half_h);
        mat4 lvp, lview;
        float lfar;
        light_matrices(&s, sun_dir, (float)r->desc.shadow_map_size, lvp, lview, &lfar);
        memcpy(cascade_vp[c], lvp, sizeof(mat4));
        cascade_far[c] = split;
        cascade_texel[c] = 2.0f * s.r / (float)r->desc.shadow_map_size;
        prev_split = split;
    }
    *whole =
        slice_sphere(world_from_view, tan_y, aspect, znear, dist, st->orthographic, st->half_h);
}

static void view_cascades(const rill_renderer *r, rill__view *vs, mat4 world_from_view,
                          float aspect, vec3 sun_dir, float cascade_far[4], float cascade_texel[4],
                          rill__sphere *whole) {
    cascades_of(r, &vs->set, vs->cascades, world_from_view, aspect, sun_dir, vs->cascade_vp,
                cascade_far, cascade_texel, whole);
}

uint32_t rill__cascades_for(const rill_renderer *r, const rill_render_snapshot *snap,
                            const rill__view_settings *st, float aspect, float out_vp[][16]) {
    if (!r->frame.shadows) {
        return 0;
    }
    vec3 sun_dir;
    sun_direction(snap, sun_dir);
    mat4 world_from_view;
    memcpy(world_from_view, st->world_from_view, sizeof(mat4));
    float far_[4], texel[4];
    rill__sphere whole;
    cascades_of(r, st, r->frame.cascades, world_from_view, aspect, sun_dir, out_vp, far_, texel,
                &whole);
    return r->frame.cascades;
}

/* >>filling a view -------------------------------------------------------------------------- */

/* How one view is filled: rect_w x rect_h (output pixels) gives the aspect ratio; clustered
 * selects the clustered light list (else every light at every pixel); motion uses the view's
 * view-projection of last frame for camera motion. */
typedef struct view_fill {
    uint32_t rect_w, rect_h;
    bool clustered, motion;
} view_fill;

/* The instance buffer being written: the view's draw lists one after the other (opaque,
 * transparent, casters, wires, ghosts), which is how the passes index it. */
typedef struct instance_writer {
    const rill_renderer *r;
    const rill__view *vs;
    const draw_item *lists[5];
    uint32_t first[6]; /* list l's items are buffer entries [first[l], first[l + 1]) */
    gpu_instance *gi;
} instance_writer;

/* Writes buffer entries [begin, end) (a rill_job_range_fn; entries are independent, so ranges
 * may run on any thread). */
static void write_instance_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    const instance_writer *w = arg;
    gpu_instance *gi = w->gi;
    for (int l = 0; l < 5; l++) {
        uint32_t a = RILL_MAX(begin, w->first[l]), b = RILL_MIN(end, w->first[l + 1]);
        const draw_item *items = w->lists[l];
        /* The shadow vertex shader reads only the model matrix, so casters skip the previous
         * one: a quarter less to write into (possibly write-combined) GPU memory. */
        bool with_prev = l != 2;
        for (uint32_t k = a; k < b; k++) {
            /* In address order, so write-combining sees one ascending stream. */
            const draw_item *it = &items[k - w->first[l]];
            const rill_render_instance *in = &w->vs->snap->instances[it->inst];
            memcpy(gi[k].model, in->transform, sizeof(float) * 16);
            if (with_prev) {
                memcpy(gi[k].prev_model, rill__prev_model(w->r, in, it->prev), sizeof(float) * 16);
            }
            float params[4] = {in->lod_fade, 0.0f, 0.0f, 0.0f};
            memcpy(gi[k].params, params, sizeof(params));
        }
    }
}

/* Entries per range of the instance buffer's writing: 144 bytes each, so a range moves about
 * 150 KB. */
#define INSTANCE_WRITE_RANGE 1024u

/* Writes the instance buffer over the renderer's jobs (rill_renderer_desc.jobs). */
static void write_instances(const rill_renderer *r, const rill__view *vs, gpu_instance *gi) {
    instance_writer w = {.r = r,
                         .vs = vs,
                         .lists = {vs->opaque.data, vs->transparent.data, vs->casters.data,
                                   vs->wires.data, vs->ghosts.data},
                         .gi = gi};
    uint32_t lens[5] = {vs->opaque.len, vs->transparent.len, vs->casters.len, vs->wires.len,
                        vs->ghosts.len};
    for (int l = 0; l < 5; l++) {
        w.first[l + 1] = w.first[l] + lens[l];
    }
    rill_jobs_for(r->desc.jobs, w.first[5], INSTANCE_WRITE_RANGE, write_instance_range, &w);
}

/* The frame constants other than lights and clusters (frame_lights.c writes those). */
static void write_frame(const rill_renderer *r, const rill__view *vs, rill__gpu_frame *fr,
                        mat4 view, mat4 proj, mat4 vp, bool motion, const float cascade_far[4],
                        const float cascade_texel[4], const vec3 sun_dir) {
    const rill_render_snapshot *snap = vs->snap;
    const float *wfv = vs->set.world_from_view;
    bool sun = snap->has_sun, shadows = r->frame.shadows;
    memset(fr, 0, sizeof(*fr));
    memcpy(fr->view, view, sizeof(mat4));
    memcpy(fr->proj, proj, sizeof(mat4));
    memcpy(fr->view_proj, vp, sizeof(mat4));
    bool have_prev = motion && (r->have_prev_view_proj & (1u << vs->index));
    memcpy(fr->prev_view_proj, have_prev ? r->prev_view_proj[vs->index] : (const float *)vp,
           sizeof(mat4));
    for (uint32_t c = 0; c < vs->cascades; c++) {
        memcpy(fr->cascade_vp[c], vs->cascade_vp[c], sizeof(mat4));
    }
    memcpy(fr->cascade_far, cascade_far, sizeof(fr->cascade_far));
    memcpy(fr->cascade_texel, cascade_texel, sizeof(fr->cascade_texel));
    fr->camera_pos[0] = wfv[12], fr->camera_pos[1] = wfv[13], fr->camera_pos[2] = wfv[14];
    fr->sun_dir[0] = -sun_dir[0], fr->sun_dir[1] = -sun_dir[1], fr->sun_dir[2] = -sun_dir[2];
    fr->sun_dir[3] = shadows ? 1.0f : 0.0f;
    if (sun) {
        /* With the atmosphere, the sun light reaching the camera has crossed it: tinted by the
         * transmittance toward the sun (red at sunset, nothing once it has set). */
        float tr[3] = {1.0f, 1.0f, 1.0f};
        if (vs->set.sky_mode == RILL_SKY_ATMOSPHERE) {
            rill_render_atmosphere_transmittance(&vs->set.atmo, fmaxf(wfv[13], 0.0f), -sun_dir[1],
                                                 tr);
        }
        for (int k = 0; k < 3; k++) {
            fr->sun_color[k] = snap->sun.color[k] * snap->sun.illuminance * tr[k];
        }
    }
    fr->sun_color[3] = sun ? 1.0f : 0.0f;
    /* The image-based light, scaled by WorldEnvironment.ambient (resolved per view). */
    rill__ibl_frame_consts(r, fr->ambient);
    fr->ambient[0] *= vs->set.ambient;
    fr->shadow_params[0] = 1.0f / (float)r->desc.shadow_map_size;
    fr->shadow_params[2] = (float)vs->cascades;
    fr->counts[2] = vs->fx.ssao ? 1u : 0u;
    fr->counts[3] = vs->fx.material_in_normal ? 1u : 0u;
    fr->cluster_params[2] = (float)vs->size3[0];
    fr->cluster_params[3] = (float)vs->size3[1];
    if (vs->fx.aa.taa) {
        fr->jitter[0] = vs->fx.aa.jitter[0];
        fr->jitter[1] = vs->fx.aa.jitter[1];
    }
    rill__clouds_frame_consts(r, fr->cloud_shadow);
}

/* Fills view slot vs (its snap, view and settings set): camera matrices, cascades, draw lists,
 * frame constants, instance, light and cluster buffers. vs->view_proj is set first, so it is
 * known even when a later step fails. */
static rill_result view_fill_slot(rill_renderer *r, rill__cmd *cmd, rill__view *vs,
                                  const view_fill *p, rill_error *err) {
    const rill__view_settings *st = &vs->set;
    float aspect = (float)p->rect_w / (float)p->rect_h;
    mat4 world_from_view, view, proj, vp;
    memcpy(world_from_view, st->world_from_view, sizeof(mat4));
    glm_mat4_inv(world_from_view, view);
    if (st->orthographic) {
        float hh = st->half_h;
        glm_ortho_rh_zo(-hh * aspect, hh * aspect, -hh, hh, st->znear, st->zfar, proj);
    } else {
        glm_perspective_rh_zo(st->fov_y, aspect, st->znear, st->zfar, proj);
    }
    glm_mat4_mul(proj, view, vp);
    memcpy(vs->view_proj, vp, sizeof(mat4));
    rill__cull_params cp;
    memset(&cp, 0, sizeof(cp));
    vec4 planes[6];
    frustum_planes(vp, planes);
    memcpy(cp.planes, planes, sizeof(cp.planes));
    rill__debug_cull_planes(r, vs, aspect, cp.planes); /* a debug panel's culling frustum */

    /* Sun and cascades. */
    bool shadows = r->frame.shadows;
    vec3 sun_dir;
    sun_direction(vs->snap, sun_dir);
    vs->cascades = r->frame.cascades;
    float cascade_far[4] = {0}, cascade_texel[4] = {0};
    rill__sphere whole = {{0, 0, 0}, 0};
    if (shadows) {
        view_cascades(r, vs, world_from_view, aspect, sun_dir, cascade_far, cascade_texel, &whole);
    }
    rill__phase_mark(r, RILL__CPU_SETUP);

    wireframe_defaults(&vs->snap->wireframe, vs->wire_color, vs->wire_fade);
    r->instances_submitted = vs->snap->instance_count;
    cp.shadows = shadows;
    memcpy(cp.shadow_center, whole.c, sizeof(cp.shadow_center));
    cp.shadow_radius = whole.r;
    memcpy(cp.sun_dir, sun_dir, sizeof(cp.sun_dir));
    for (int k = 0; k < 3; k++) {
        cp.cam_pos[k] = world_from_view[3][k];
        cp.cam_fwd[k] = -world_from_view[2][k];
    }
    /* GPU-driven culling (gpu_cull.c) takes its instances first; the CPU path skips them. Every
     * view of the frame culls the one resident table with its own frustum. */
    bool gpu = (r->desc.debug_flags & RILL_RENDER_DEBUG_GPU_CULL) != 0;
    rill_error gerr = {0};
    cp.gpu_taken = rill__gpu_cull_scan(r, vs, gpu, &gerr);
    if (gpu && !cp.gpu_taken && gerr.code != RILL_OK) {
        RILL_LOG_WARN("render", "GPU culling off this frame: %s", gerr.msg);
    }
    rill_result res = rill__view_cull(r, vs, &cp, err);
    if (res != RILL_OK) {
        return res;
    }

    /* Per-frame buffers. */
    rill__gpu_frame *fr =
        rill__frame_alloc(cmd, sizeof(rill__gpu_frame), 256, &vs->frame_buf, &vs->frame_off);
    uint32_t ninst =
        vs->opaque.len + vs->transparent.len + vs->casters.len + vs->wires.len + vs->ghosts.len;
    vs->inst_size = (uint64_t)RILL_MAX(ninst, 1u) * sizeof(gpu_instance);
    gpu_instance *gi = rill__frame_alloc(cmd, vs->inst_size, 256, &vs->inst_buf, &vs->inst_off);
    if (!fr || !gi) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    write_frame(r, vs, fr, view, proj, vp, p->motion, cascade_far, cascade_texel, sun_dir);
    write_instances(r, vs, gi);
    if (cp.gpu_taken) {
        res = rill__gpu_cull_record(r, cmd, vs, cp.planes, err);
        if (res != RILL_OK) {
            return res;
        }
    }
    res = rill__view_lights(r, cmd, vs, view, proj, p->clustered, fr, err);
    if (res == RILL_OK) {
        rill__phase_mark(r, RILL__CPU_UPLOAD);
    }
    return res;
}

/* >>planning the frame ---------------------------------------------------------------------- */

/* Pixel span [a, a + len) of a normalized span [x, x + w) over size pixels (rounded, clamped;
 * NaN counts as 0). */
static void pixel_span(float x, float w, uint32_t size, uint32_t *a, uint32_t *len) {
    x = x == x ? x : 0.0f;
    w = w == w ? w : 0.0f;
    float x0 = RILL_CLAMP(x, 0.0f, 1.0f), x1 = RILL_CLAMP(x + w, x0, 1.0f);
    uint32_t p0 = (uint32_t)(x0 * (float)size + 0.5f), p1 = (uint32_t)(x1 * (float)size + 0.5f);
    *a = RILL_MIN(p0, size);
    *len = RILL_MIN(p1, size) - *a;
}

/* Whether a view covers the whole output (an all-zero viewport means it does). */
static bool view_whole(const rill_render_view *v) {
    const float *vr = v->viewport;
    if (vr[0] == 0.0f && vr[1] == 0.0f && vr[2] == 0.0f && vr[3] == 0.0f) {
        return true;
    }
    return vr[0] <= 0.0f && vr[1] <= 0.0f && vr[2] >= 1.0f && vr[3] >= 1.0f;
}

/* The 3D image size of an output size at the renderer's render scale (at least 1). */
static uint32_t size_3d(const rill_renderer *r, uint32_t out) {
    uint32_t n = (uint32_t)((float)out * r->render_scale + 0.5f);
    return n ? n : 1u;
}

/* Starts slot `index` for view v over out_rect (output pixels): no graph resources yet
 * (frame_graph.c makes them); its effects are planned (routed settings, tier ceiling, TAA). */
static rill__view *slot_begin(rill_renderer *r, uint32_t index, const rill_render_snapshot *snap,
                              const rill_render_view *v, bool in_rect, const uint32_t out_rect[4]) {
    rill__view *vs = &r->frame.views[index];
    vs->snap = snap;
    vs->view = v;
    vs->index = index;
    vs->in_rect = in_rect;
    memcpy(vs->out_rect, out_rect, sizeof(vs->out_rect));
    vs->size3[0] = size_3d(r, out_rect[2]);
    vs->size3[1] = size_3d(r, out_rect[3]);
    vs->passthrough = v->passthrough == RILL_PASSTHROUGH_MIXED;
    rill__view_defaults(v, &vs->set);
    rill__view_environment(r, snap, v, &vs->set);
    rill__debug_view_begin(r, snap, vs);  /* a debug panel's observer */
    memset(&vs->res, 0, sizeof(vs->res)); /* no images until the graph hands them out */
    rill__effects_plan_view(r, vs);
    rill__taa_plan(r, vs);
    rill__msaa_plan_view(r, vs);
    rill__oit_plan_view(r, vs);
    return vs;
}

/* The rectangle of view v in the output; false: zero area. */
static bool view_rect(const rill_renderer *r, const rill_render_view *v, uint32_t out_rect[4]) {
    bool whole = view_whole(v);
    float vx = whole ? 0.0f : v->viewport[0], vy = whole ? 0.0f : v->viewport[1];
    float vw = whole ? 1.0f : v->viewport[2], vh = whole ? 1.0f : v->viewport[3];
    pixel_span(vx, vw, r->width, &out_rect[0], &out_rect[2]);
    pixel_span(vy, vh, r->height, &out_rect[1], &out_rect[3]);
    return out_rect[2] && out_rect[3];
}

/* The render texture of a view drawing into one, when it can be drawn this frame (its first
 * upload recorded); {0} otherwise (a bad name is warned about once). */
static rill_texture view_target(rill_renderer *r, const rill_render_view *v) {
    rill_texture none = {0};
    rill_error err = {0};
    rill_texture t =
        rill__target_texture_sized(r, v->target, v->target_size[0], v->target_size[1], &err);
    if (!t.id) {
        if (!r->warned_target) {
            r->warned_target = true;
            RILL_LOG_WARN("render", "Camera.target: %s; the camera is not drawn", err.msg);
        }
        return none;
    }
    const rill__img *img = rill__texture_img(r, t);
    return img && rill__img_ready(img) ? t : none;
}

/* Fills view slot f->view_count for list[i] over out_rect (tex: its render texture, or {0}). */
static rill_result plan_one(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                            const rill_render_view *v, const uint32_t out_rect[4], rill_texture tex,
                            rill_error *err) {
    rill__frame *f = &r->frame;
    bool clustered = !(r->desc.debug_flags & RILL_RENDER_DEBUG_FLAT_LIGHT_LIST);
    rill__view *vs = slot_begin(r, f->view_count, snap, v, true, out_rect);
    vs->target_tex = tex;
    view_fill p = {out_rect[2], out_rect[3], clustered, true};
    rill_result res = view_fill_slot(r, cmd, vs, &p, err);
    f->view_count++;
    return res;
}

/* Several views, or one in part of the output, or one drawing into a render texture: each in its
 * own images, in drawing order, composed into its rectangle of the output afterwards (or copied
 * into its render texture). Each has its own clustered light grid (over its own image), effects,
 * TAA history and exposure. Cameras drawing into render textures come first, so the others can
 * sample this frame's image. */
static rill_result plan_rects(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                              const rill_render_view *list, uint32_t count, rill_error *err) {
    rill__frame *f = &r->frame;
    rill_result res = RILL_OK;
    for (uint32_t i = 0; i < count && res == RILL_OK; i++) {
        rill_texture tex = list[i].target ? view_target(r, &list[i]) : (rill_texture){0};
        if (tex.id) { /* drawn at the size of the image it has now (a resize lands later) */
            const rill__img_desc *d = rill__img_get_desc(rill__texture_img(r, tex));
            const uint32_t whole[4] = {0, 0, d->width, d->height};
            res = plan_one(r, cmd, snap, &list[i], whole, tex, err);
        }
    }
    f->target_views = f->view_count;
    for (uint32_t i = 0; i < count && res == RILL_OK; i++) {
        uint32_t out_rect[4];
        if (list[i].target || !view_rect(r, &list[i], out_rect)) {
            continue; /* a render texture's, or zero area: nothing to draw on the output */
        }
        res = plan_one(r, cmd, snap, &list[i], out_rect, (rill_texture){0}, err);
    }
    return res;
}

rill_result rill__frame_plan_views(rill_renderer *r, rill__cmd *cmd,
                                   const rill_render_snapshot *snap, rill_error *err) {
    rill__frame *f = &r->frame;
    /* The views: the snapshot's list when it has one, else its single view. One view over the
     * whole output records as the single view; anything else goes view by view. */
    bool has_list = snap->views && snap->view_count;
    const rill_render_view *list = has_list ? snap->views : &snap->view;
    uint32_t count = has_list ? RILL_MIN(snap->view_count, (uint32_t)RILL_RENDER_MAX_VIEWS) : 1u;
    bool multi = count > 1 || !view_whole(&list[0]) || list[0].target;
    const rill_render_view *primary = multi ? &list[0] : &snap->view;
    rill__effects_frame_begin(r);
    /* Every view of a snapshot has the same sun, so the same cascade count. */
    f->shadows = snap->has_sun && snap->sun.shadows;
    f->cascades = f->shadows ? r->desc.shadow_cascades : 0;
    f->view_count = 0;
    f->target_views = 0;
    f->no_view = false;
    f->composed = multi;
    rill_result res = RILL_OK;
    if (multi) {
        res = plan_rects(r, cmd, snap, list, count, err);
        if (res != RILL_OK || f->view_count > 0) {
            return res;
        }
        /* Nothing to draw: the passes still need valid state, so the first view records as a
         * single view and tonemapping writes black. */
        f->no_view = true;
        f->composed = false;
        f->target_views = 0;
        rill__effects_frame_begin(r);
    }
    bool clustered = !(r->desc.debug_flags & RILL_RENDER_DEBUG_FLAT_LIGHT_LIST);
    const uint32_t whole[4] = {0, 0, r->width, r->height};
    rill__view *vs = slot_begin(r, 0, snap, primary, false, whole);
    vs->target_tex = (rill_texture){0};
    view_fill p = {r->width, r->height, clustered, true};
    res = view_fill_slot(r, cmd, vs, &p, err);
    f->view_count = 1;
    if (f->no_view) {
        r->instances_visible = 0;
    }
    return res;
}
