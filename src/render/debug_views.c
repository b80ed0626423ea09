/* debug_views.c: the debug panels of rill/render/debug.h: their state on the renderer, the
 * culling frustum of view 0 (live, frozen, or the camera's own while the image is drawn from an
 * observer), the observer pose, and each frame's panel lines (world-space segments) and text.
 * The overlay pass (overlay.c) draws both: the lines projected on the CPU with view 0's
 * view-projection into screen-space quads, the text below the caller's overlay text. */
#include "debug_views.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "rill/render/debug.h"

#include <cglm/clipspace/ortho_rh_zo.h>
#include <cglm/clipspace/persp_rh_zo.h>

#define LOGM "render"

typedef struct debug_line {
    float a[3], b[3];
    uint32_t rgba; /* packed RGBA8, R in the low byte */
} debug_line;

typedef struct rill__debug {
    rill_render_debug_desc desc;
    bool frozen;             /* frozen_vp holds the frustum culling is frozen at */
    float frozen_vp[16];     /* view 0's culling view-projection on the frame it froze */
    bool have_cull;          /* cull_vp is set (a frame was planned) */
    float cull_vp[16];       /* the culling view-projection of view 0's last frame */
    bool observing;          /* view 0 of this frame is drawn from the observer */
    rill__view_settings cam; /* view 0's own camera settings this frame (before the observer) */
    RILL_ARRAY(debug_line) lines;
    uint32_t boxes_drawn, boxes_culled, boxes_left_out;
    char text[RILL_RENDER_OVERLAY_MAX_TEXT];
    char stats[RILL_RENDER_OVERLAY_MAX_TEXT]; /* the stats panel's text of the last frame */
} rill__debug;

/* Colours, RGBA8 packed R first. */
#define RGBA(r, g, b) ((uint32_t)(r) | (uint32_t)(g) << 8 | (uint32_t)(b) << 16 | 0xFFu << 24)
#define COL_FRUSTUM RGBA(255, 225, 30)
#define COL_DRAWN RGBA(60, 255, 80)
#define COL_CULLED RGBA(255, 50, 50)
#define COL_CAMERA RGBA(255, 255, 255)
#define COL_NEAR RGBA(255, 150, 30)
static const uint32_t CASCADE_COLS[4] = {RGBA(0, 230, 255), RGBA(60, 110, 255), RGBA(255, 60, 255),
                                         RGBA(255, 150, 30)};

static const char *const PANEL_NAMES[RILL_RENDER_PANEL_NUM] = {"none", "stats", "culling",
                                                               "cameras", "material"};

const char *rill_render_panel_name(rill_render_panel p) {
    return (uint32_t)p < RILL_RENDER_PANEL_NUM ? PANEL_NAMES[p] : "none";
}

void rill_renderer_set_debug(rill_renderer *r, const rill_render_debug_desc *desc) {
    rill__rthread_guard(r);
    if (!r) {
        return;
    }
    rill_render_debug_desc d = {0};
    if (desc) {
        if (desc->start_canary || desc->end_canary) {
            RILL_LOG_ERROR(LOGM, "rill_renderer_set_debug: desc canaries must be 0");
            return;
        }
        d = *desc;
    }
    if ((uint32_t)d.panel >= RILL_RENDER_PANEL_NUM) {
        RILL_LOG_WARN(LOGM, "rill_renderer_set_debug: unknown panel %u (none shown)",
                      (unsigned)d.panel);
        d.panel = RILL_RENDER_PANEL_NONE;
    }
    if (!r->debug) {
        if (d.panel == RILL_RENDER_PANEL_NONE && !d.freeze_culling && !d.observe) {
            return;
        }
        r->debug = rill_calloc_tagged(1, sizeof(rill__debug), RILL_MEM_RENDER);
        if (!r->debug) {
            RILL_LOG_ERROR(LOGM, "debug panels: out of memory");
            return;
        }
    }
    rill__debug *dbg = r->debug;
    if (!d.freeze_culling) {
        dbg->frozen = false; /* thawed: the next freeze takes that frame's frustum */
    }
    dbg->desc = d;
    if (d.panel != RILL_RENDER_PANEL_NONE && !rill__overlay_ensure(r)) {
        dbg->desc.panel = RILL_RENDER_PANEL_NONE;
    }
}

bool rill_renderer_debug_cull_matrix(const rill_renderer *r, float out_vp[16]) {
    rill__rthread_guard(r);
    if (!r || !r->debug || !r->debug->have_cull) {
        return false;
    }
    memcpy(out_vp, r->debug->cull_vp, sizeof(float) * 16);
    return true;
}

void rill__debug_destroy(rill_renderer *r) {
    if (r->debug) {
        rill_array_free(&r->debug->lines);
        rill_free(r->debug);
        r->debug = NULL;
    }
}

/* >>view 0: observer and culling ------------------------------------------------------------ */

/* The view-projection of camera settings st at this aspect ratio (as frame_views.c builds it). */
static void settings_vp(const rill__view_settings *st, float aspect, mat4 out) {
    mat4 w, view, proj;
    memcpy(w, st->world_from_view, sizeof(mat4));
    glm_mat4_inv(w, view);
    if (st->orthographic) {
        float hh = st->half_h;
        glm_ortho_rh_zo(-hh * aspect, hh * aspect, -hh, hh, st->znear, st->zfar, proj);
    } else {
        glm_perspective_rh_zo(st->fov_y, aspect, st->znear, st->zfar, proj);
    }
    glm_mat4_mul(proj, view, out);
}

/* The world bounding sphere of instance `in` (or of its range k when k >= 0); false when its mesh
 * is not live or the result is not finite. */
static bool instance_sphere(const rill_renderer *r, const rill_render_snapshot *snap,
                            const rill_render_instance *in, int k, vec3 out_c, float *out_r) {
    const mesh_slot *m = rill__mesh_get(r, in->mesh);
    if (!m) {
        return false;
    }
    const float *lc = m->center;
    float lr = m->radius;
    if (k >= 0) {
        const rill_render_range *rg = &snap->ranges[in->range_first + (uint32_t)k];
        lc = rg->center;
        lr = rg->radius;
    }
    mat4 t;
    memcpy(t, in->transform, sizeof(mat4));
    glm_mat4_mulv3(t, (float *)lc, 1.0f, out_c);
    float s = 0.0f;
    for (int c = 0; c < 3; c++) {
        s = fmaxf(s, t[c][0] * t[c][0] + t[c][1] * t[c][1] + t[c][2] * t[c][2]);
    }
    *out_r = lr * sqrtf(s);
    return isfinite(out_c[0]) && isfinite(out_c[1]) && isfinite(out_c[2]) && isfinite(*out_r);
}

/* Whether an instance's ranges lie inside the snapshot's (else it draws nothing). */
static bool ranges_ok(const rill_render_snapshot *snap, const rill_render_instance *in) {
    return in->range_count == 0 ||
           ((uint64_t)in->range_first + in->range_count <= snap->range_count && snap->ranges);
}

/* The box around every drawn instance's sphere; false when there is none. */
static bool scene_box(const rill_renderer *r, const rill_render_snapshot *snap, vec3 lo, vec3 hi) {
    bool any = false;
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const rill_render_instance *in = &snap->instances[i];
        vec3 c;
        float rad;
        if (in->mode == RILL_RENDER_MODE_HIDDEN || !instance_sphere(r, snap, in, -1, c, &rad)) {
            continue;
        }
        for (int a = 0; a < 3; a++) {
            lo[a] = any ? fminf(lo[a], c[a] - rad) : c[a] - rad;
            hi[a] = any ? fmaxf(hi[a], c[a] + rad) : c[a] + rad;
        }
        any = true;
    }
    return any;
}

/* The observer: behind, above and a little to the right of the camera, far enough back that the
 * camera and every instance fit its field of view, looking at their middle. */
static void observer_settings(const rill_renderer *r, const rill_render_snapshot *snap,
                              rill__view_settings *st) {
    const float *w = st->world_from_view;
    vec3 cam = {w[12], w[13], w[14]}, lo, hi;
    if (!scene_box(r, snap, lo, hi)) {
        glm_vec3_copy(cam, lo);
        glm_vec3_copy(cam, hi);
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = fminf(lo[a], cam[a]);
        hi[a] = fmaxf(hi[a], cam[a]);
    }
    vec3 mid, half;
    glm_vec3_add(lo, hi, mid);
    glm_vec3_scale(mid, 0.5f, mid);
    glm_vec3_sub(hi, mid, half);
    float rad = fmaxf(glm_vec3_norm(half), 1.0f);
    vec3 back = {w[8], w[9], w[10]}, right = {w[0], w[1], w[2]}, up = {0.0f, 1.0f, 0.0f}, dir;
    back[1] = 0.0f;
    if (glm_vec3_norm(back) < 1e-3f) {
        back[2] = 1.0f;
    }
    glm_vec3_normalize(back);
    right[1] = 0.0f;
    glm_vec3_scale(back, 1.0f, dir);
    glm_vec3_muladds(up, 0.8f, dir);
    glm_vec3_muladds(right, 0.35f, dir);
    glm_vec3_normalize(dir);
    const float fov = 0.9f;
    float dist = rad / sinf(fov * 0.5f) * 1.05f;
    vec3 eye;
    glm_vec3_copy(mid, eye);
    glm_vec3_muladds(dir, dist, eye);
    mat4 view, world;
    glm_lookat(eye, mid, up, view);
    glm_mat4_inv(view, world);
    memcpy(st->world_from_view, world, sizeof(mat4));
    st->orthographic = false;
    st->fov_y = fov;
    st->znear = fmaxf(dist * 0.01f, 0.01f);
    st->zfar = dist + rad * 2.0f + 10.0f;
}

void rill__debug_view_begin(rill_renderer *r, const rill_render_snapshot *snap, rill__view *vs) {
    rill__debug *dbg = r->debug;
    if (!dbg || vs->index != 0) {
        return;
    }
    dbg->cam = vs->set;
    dbg->observing = dbg->desc.observe;
    if (dbg->observing) {
        observer_settings(r, snap, &vs->set);
    }
}

void rill__debug_cull_planes(rill_renderer *r, const rill__view *vs, float aspect,
                             float planes[6][4]) {
    rill__debug *dbg = r->debug;
    if (!dbg || vs->index != 0) {
        return;
    }
    mat4 vp;
    if (dbg->observing) {
        settings_vp(&dbg->cam, aspect, vp); /* the camera culls, the observer looks */
    } else {
        memcpy(vp, vs->view_proj, sizeof(mat4));
    }
    if (dbg->desc.freeze_culling) {
        if (!dbg->frozen) {
            memcpy(dbg->frozen_vp, vp, sizeof(mat4));
            dbg->frozen = true;
        }
        memcpy(vp, dbg->frozen_vp, sizeof(mat4));
    }
    memcpy(dbg->cull_vp, vp, sizeof(mat4));
    dbg->have_cull = true;
    if (dbg->observing || dbg->desc.freeze_culling) {
        rill__frustum_planes((const float *)vp, planes);
    }
}

/* >>lines ---------------------------------------------------------------------------------- */

static void add_line(rill__debug *dbg, const float a[3], const float b[3], uint32_t rgba) {
    if (dbg->lines.len >= RILL_RENDER_DEBUG_MAX_LINES) {
        return;
    }
    debug_line l;
    memcpy(l.a, a, sizeof(l.a));
    memcpy(l.b, b, sizeof(l.b));
    l.rgba = rgba;
    (void)rill_array_push(&dbg->lines, l);
}

/* The 12 edges of a box given by its 8 corners, corner i at bit 0: x, bit 1: y, bit 2: z. */
static void add_box(rill__debug *dbg, const vec3 c[8], uint32_t rgba) {
    static const uint8_t e[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int i = 0; i < 12; i++) {
        add_line(dbg, c[e[i][0]], c[e[i][1]], rgba);
    }
}

/* A frustum (the clip volume of vp) from its near plane to the fraction `reach` of the way to its
 * far plane; its near rectangle in near_rgba. */
static void add_frustum(rill__debug *dbg, const float vp[16], float reach, uint32_t rgba,
                        uint32_t near_rgba) {
    mat4 m, inv;
    memcpy(m, vp, sizeof(mat4));
    glm_mat4_inv(m, inv);
    vec3 c[8];
    for (int i = 0; i < 4; i++) {
        vec4 n = {(i & 1) ? 1.0f : -1.0f, (i & 2) ? 1.0f : -1.0f, 0.0f, 1.0f}, f, wn, wf;
        glm_vec4_copy(n, f);
        f[2] = 1.0f;
        glm_mat4_mulv(inv, n, wn);
        glm_mat4_mulv(inv, f, wf);
        for (int a = 0; a < 3; a++) {
            c[i][a] = wn[a] / wn[3];
            c[i + 4][a] = wf[a] / wf[3];
        }
        glm_vec3_lerp(c[i], c[i + 4], reach, c[i + 4]);
    }
    add_box(dbg, c, rgba);
    static const uint8_t ne[4][2] = {{0, 1}, {1, 3}, {3, 2}, {2, 0}};
    for (int i = 0; i < 4; i++) {
        add_line(dbg, c[ne[i][0]], c[ne[i][1]], near_rgba);
    }
}

/* How far along vp's frustum (0..1 of near to far) the farthest drawn instance lies, a little
 * past it; 1 when nothing is drawn. */
static float frustum_reach(const rill_renderer *r, const rill_render_snapshot *snap,
                           const float vp[16]) {
    mat4 m, inv;
    memcpy(m, vp, sizeof(mat4));
    glm_mat4_inv(m, inv);
    vec4 nc = {0, 0, 0, 1}, fc = {0, 0, 1, 1}, wn, wf;
    glm_mat4_mulv(inv, nc, wn);
    glm_mat4_mulv(inv, fc, wf);
    vec3 n = {wn[0] / wn[3], wn[1] / wn[3], wn[2] / wn[3]};
    vec3 f = {wf[0] / wf[3], wf[1] / wf[3], wf[2] / wf[3]}, fwd;
    glm_vec3_sub(f, n, fwd);
    float len = glm_vec3_norm(fwd);
    if (!(len > 0.0f) || !isfinite(len)) {
        return 1.0f;
    }
    glm_vec3_scale(fwd, 1.0f / len, fwd);
    vec3 lo, hi;
    if (!scene_box(r, snap, lo, hi)) {
        return 1.0f;
    }
    float far_d = 0.0f;
    for (int i = 0; i < 8; i++) {
        vec3 p = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]}, d;
        glm_vec3_sub(p, n, d);
        far_d = fmaxf(far_d, glm_vec3_dot(d, fwd));
    }
    return glm_clamp(far_d * 1.1f / len, 0.02f, 1.0f);
}

/* Whether sphere (c, rad) is inside the planes (cull_frustum's test in frame_cull.c). */
static bool sphere_inside(const float planes[6][4], const vec3 c, float rad) {
    for (int k = 0; k < 6; k++) {
        if (planes[k][0] * c[0] + planes[k][1] * c[1] + planes[k][2] * c[2] + planes[k][3] < -rad) {
            return false;
        }
    }
    return true;
}

/* The corners of local box [lo, hi] through matrix t. */
static void box_corners(const float t[16], const float lo[3], const float hi[3], vec3 out[8]) {
    mat4 m;
    memcpy(m, t, sizeof(mat4));
    for (int i = 0; i < 8; i++) {
        vec3 p = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]};
        glm_mat4_mulv3(m, p, 1.0f, out[i]);
    }
}

/* Culling panel: every instance's box (each range's, for a ranged one) in the colour of the
 * frustum test against the culling frustum, and the frustum. */
static void culling_lines(rill_renderer *r, rill__debug *dbg, const rill_render_snapshot *snap) {
    float planes[6][4];
    rill__frustum_planes(dbg->cull_vp, planes);
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const rill_render_instance *in = &snap->instances[i];
        const mesh_slot *m = rill__mesh_get(r, in->mesh);
        if (in->mode == RILL_RENDER_MODE_HIDDEN || !m || !ranges_ok(snap, in)) {
            continue;
        }
        uint32_t parts = in->range_count ? in->range_count : 1u;
        for (uint32_t k = 0; k < parts; k++) {
            vec3 c, corners[8];
            float rad;
            if (!instance_sphere(r, snap, in, in->range_count ? (int)k : -1, c, &rad)) {
                continue;
            }
            bool in_view = sphere_inside(planes, c, rad);
            *(in_view ? &dbg->boxes_drawn : &dbg->boxes_culled) += 1;
            if (dbg->lines.len + 12 > RILL_RENDER_DEBUG_MAX_LINES - 16) {
                dbg->boxes_left_out++;
                continue;
            }
            if (in->range_count) {
                const rill_render_range *rg = &snap->ranges[in->range_first + k];
                float lo[3], hi[3];
                for (int a = 0; a < 3; a++) {
                    lo[a] = rg->center[a] - rg->radius;
                    hi[a] = rg->center[a] + rg->radius;
                }
                box_corners(in->transform, lo, hi, corners);
            } else {
                box_corners(in->transform, m->box_min, m->box_max, corners);
            }
            add_box(dbg, corners, in_view ? COL_DRAWN : COL_CULLED);
        }
    }
    add_frustum(dbg, dbg->cull_vp, frustum_reach(r, snap, dbg->cull_vp), COL_FRUSTUM, COL_FRUSTUM);
}

/* Cameras panel: every view's frustum at its rectangle's aspect, view 0's cascades, and the
 * frozen frustum. */
static void camera_lines(rill_renderer *r, rill__debug *dbg, const rill_render_snapshot *snap) {
    const rill__frame *f = &r->frame;
    for (uint32_t i = 0; i < f->view_count; i++) {
        const rill__view *vs = &f->views[i];
        const rill__view_settings *st = i == 0 && dbg->observing ? &dbg->cam : &vs->set;
        float aspect = vs->out_rect[3] ? (float)vs->out_rect[2] / (float)vs->out_rect[3] : 1.0f;
        mat4 vp;
        settings_vp(st, aspect, vp);
        if (i == 0 && !dbg->observing) {
            continue; /* the camera the image is drawn from: its frustum is the image's border */
        }
        add_frustum(dbg, (const float *)vp, frustum_reach(r, snap, (const float *)vp), COL_CAMERA,
                    COL_NEAR);
    }
    /* The cascades of view 0's camera (recomputed for it under the observer, whose image has its
     * own). */
    const rill__view *v0 = &f->views[0];
    float aspect0 = v0->out_rect[3] ? (float)v0->out_rect[2] / (float)v0->out_rect[3] : 1.0f;
    float cvp[RILL__MAX_CASCADES][16];
    uint32_t nc =
        dbg->observing ? rill__cascades_for(r, snap, &dbg->cam, aspect0, cvp) : v0->cascades;
    if (!dbg->observing) {
        memcpy(cvp, v0->cascade_vp, sizeof(cvp));
    }
    for (uint32_t c = 0; c < nc && c < 4; c++) {
        mat4 m, inv;
        memcpy(m, cvp[c], sizeof(mat4));
        glm_mat4_inv(m, inv);
        vec3 corners[8];
        for (int k = 0; k < 8; k++) {
            vec4 p = {(k & 1) ? 1.0f : -1.0f, (k & 2) ? 1.0f : -1.0f, (k & 4) ? 1.0f : 0.0f, 1.0f},
                 w;
            glm_mat4_mulv(inv, p, w);
            for (int a = 0; a < 3; a++) {
                corners[k][a] = w[a] / w[3];
            }
        }
        add_box(dbg, corners, CASCADE_COLS[c]);
    }
    if (dbg->frozen) {
        add_frustum(dbg, dbg->frozen_vp, frustum_reach(r, snap, dbg->frozen_vp), COL_FRUSTUM,
                    COL_FRUSTUM);
    }
}

/* >>text ----------------------------------------------------------------------------------- */

static const char *const TAG_NAMES[RILL_MEM_TAG_NUM] = {
    "general", "container", "world", "asset",   "scene",   "formats", "render",
    "stream",  "jobs",      "app",   "physics", "terrain", "script"};

#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (n < cap) {                                                                             \
            int k_ = snprintf(buf + n, cap - n, __VA_ARGS__);                                      \
            if (k_ > 0)                                                                            \
                n += (size_t)k_;                                                                   \
        }                                                                                          \
    } while (0)

size_t rill__debug_stats_text(const rill_render_stats *s, char *buf, size_t cap) {
    size_t n = rill_render_stats_format(s, 0.0, buf, cap);
    APPEND("cpu phases: setup %.2f cull %.2f sort %.2f upload %.2f graph %.2f commands %.2f "
           "submit %.2f ms\n",
           s->cpu_setup_ms, s->cpu_cull_ms, s->cpu_sort_ms, s->cpu_upload_ms, s->cpu_graph_ms,
           s->cpu_commands_ms, s->cpu_submit_ms);
    APPEND("cpu per pass (recording):\n");
    for (uint32_t i = 0; i < s->pass_cpu_count; i++) {
        APPEND("  %-14s %7.3f ms\n", s->pass_cpu_names[i] ? s->pass_cpu_names[i] : "?",
               s->pass_cpu_ms[i]);
    }
    APPEND("gpu memory %.1f MB used in %u blocks (%.1f MB), textures %.1f MB\n",
           (double)s->gpu_memory_used_bytes / 1e6, s->gpu_memory_blocks,
           (double)s->gpu_memory_block_bytes / 1e6, (double)s->texture_bytes / 1e6);
    APPEND("memory by tag (%.1f MB live):", (double)rill_mem_live_total() / 1e6);
    for (int t = 0; t < RILL_MEM_TAG_NUM; t++) {
        APPEND("%s %s %.2f MB", t % 4 == 0 ? "\n " : "", TAG_NAMES[t],
               (double)rill_mem_live_bytes((rill_mem_tag)t) / 1e6);
    }
    APPEND("\n");
    return n < cap ? n : cap - 1u;
}

static void panel_text(rill_renderer *r, rill__debug *dbg) {
    char *buf = dbg->text;
    size_t cap = sizeof(dbg->text), n = 0;
    buf[0] = 0;
    switch (dbg->desc.panel) {
    case RILL_RENDER_PANEL_STATS:
        APPEND("[stats] %.4000s", dbg->stats[0] ? dbg->stats : "(from the next frame on)\n");
        break;
    case RILL_RENDER_PANEL_CULLING:
        APPEND("[culling%s%s] frustum yellow; bounds: %u drawn (green), %u culled (red)",
               dbg->frozen ? ", frozen" : "", dbg->observing ? ", observed" : "", dbg->boxes_drawn,
               dbg->boxes_culled);
        if (dbg->boxes_left_out) {
            APPEND(", %u not shown (line limit)", dbg->boxes_left_out);
        }
        APPEND("\n");
        break;
    case RILL_RENDER_PANEL_CAMERAS:
        APPEND("[cameras] %u view%s: frustum white, near plane orange; %u shadow cascade%s: cyan, "
               "blue, magenta, orange%s\n",
               r->frame.view_count, r->frame.view_count == 1 ? "" : "s", r->frame.views[0].cascades,
               r->frame.views[0].cascades == 1 ? "" : "s",
               dbg->frozen ? "; frozen frustum yellow" : "");
        break;
    default:
        break;
    }
    (void)n;
}
#undef APPEND

void rill__debug_plan(rill_renderer *r) {
    rill__debug *dbg = r->debug;
    if (!dbg) {
        return;
    }
    rill_array_clear(&dbg->lines);
    dbg->boxes_drawn = dbg->boxes_culled = dbg->boxes_left_out = 0;
    const rill_render_snapshot *snap = r->frame.views[0].snap;
    if (snap && r->frame.view_count > 0 && dbg->have_cull) {
        if (dbg->desc.panel == RILL_RENDER_PANEL_CULLING) {
            culling_lines(r, dbg, snap);
        } else if (dbg->desc.panel == RILL_RENDER_PANEL_CAMERAS) {
            camera_lines(r, dbg, snap);
        }
    }
    panel_text(r, dbg);
}

void rill__debug_frame_end(rill_renderer *r) {
    rill__debug *dbg = r->debug;
    if (dbg && dbg->desc.panel == RILL_RENDER_PANEL_STATS) {
        rill_render_stats s;
        rill_renderer_stats(r, &s); /* its counters are this frame's until the next one starts */
        rill__debug_stats_text(&s, dbg->stats, sizeof(dbg->stats));
    }
}

const char *rill__debug_text(const rill_renderer *r) {
    return r->debug && r->debug->desc.panel != RILL_RENDER_PANEL_NONE ? r->debug->text : "";
}

bool rill__debug_draws(const rill_renderer *r) {
    return r->debug && r->debug->desc.panel != RILL_RENDER_PANEL_NONE &&
           (r->debug->lines.len || r->debug->text[0]);
}

/* >>projection ----------------------------------------------------------------------------- */

/* One quad of stb_easy_font's vertex layout (x, y, z, RGBA8 as float bits) for the segment a-b
 * in pixels, `width` pixels wide. */
static void put_segment(float *v, const float a[2], const float b[2], float width, uint32_t rgba) {
    float dx = b[0] - a[0], dy = b[1] - a[1], len = sqrtf(dx * dx + dy * dy);
    float nx = len > 0.0f ? -dy / len * width * 0.5f : width * 0.5f;
    float ny = len > 0.0f ? dx / len * width * 0.5f : 0.0f;
    const float xs[4] = {a[0] + nx, b[0] + nx, b[0] - nx, a[0] - nx};
    const float ys[4] = {a[1] + ny, b[1] + ny, b[1] - ny, a[1] - ny};
    for (int i = 0; i < 4; i++) {
        v[i * 4 + 0] = xs[i];
        v[i * 4 + 1] = ys[i];
        v[i * 4 + 2] = 0.0f;
        memcpy(&v[i * 4 + 3], &rgba, 4);
    }
}

/* Clips segment a-b to the rectangle [x0, x1] x [y0, y1] (Liang-Barsky); false when none of it
 * is inside. */
static bool clip_rect(float a[2], float b[2], float x0, float y0, float x1, float y1) {
    float t0 = 0.0f, t1 = 1.0f, d[2] = {b[0] - a[0], b[1] - a[1]};
    const float p[4] = {-d[0], d[0], -d[1], d[1]};
    const float q[4] = {a[0] - x0, x1 - a[0], a[1] - y0, y1 - a[1]};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0.0f) {
            if (q[i] < 0.0f) {
                return false;
            }
            continue;
        }
        float t = q[i] / p[i];
        if (p[i] < 0.0f) {
            t0 = fmaxf(t0, t);
        } else {
            t1 = fminf(t1, t);
        }
    }
    if (t0 > t1) {
        return false;
    }
    float a0 = a[0], a1 = a[1];
    a[0] = a0 + d[0] * t0, a[1] = a1 + d[1] * t0;
    b[0] = a0 + d[0] * t1, b[1] = a1 + d[1] * t1;
    return true;
}

uint32_t rill__debug_line_quads(const rill_renderer *r, float *verts, uint32_t max_quads) {
    const rill__debug *dbg = r->debug;
    if (!dbg || dbg->desc.panel == RILL_RENDER_PANEL_NONE || r->frame.view_count == 0) {
        return 0;
    }
    const rill__view *vs = &r->frame.views[0];
    mat4 vp;
    memcpy(vp, vs->view_proj, sizeof(mat4));
    const float rx = (float)vs->out_rect[0], ry = (float)vs->out_rect[1];
    const float rw = (float)vs->out_rect[2], rh = (float)vs->out_rect[3];
    const float width = r->height >= 600 ? 2.0f : 1.0f;
    uint32_t q = 0;
    for (size_t i = 0; i < dbg->lines.len && q < max_quads; i++) {
        const debug_line *l = &dbg->lines.data[i];
        vec4 a = {l->a[0], l->a[1], l->a[2], 1.0f}, b = {l->b[0], l->b[1], l->b[2], 1.0f}, ca, cb;
        glm_mat4_mulv(vp, a, ca);
        glm_mat4_mulv(vp, b, cb);
        /* Clip to the near plane (clip z >= 0 in zero-to-one depth; w > 0 in front). */
        const float eps = 1e-5f;
        float da = fminf(ca[2], ca[3] - eps), db = fminf(cb[2], cb[3] - eps);
        if (da < 0.0f && db < 0.0f) {
            continue;
        }
        if (da < 0.0f || db < 0.0f) {
            float t = da / (da - db);
            vec4 p;
            glm_vec4_lerp(ca, cb, t, p);
            glm_vec4_copy(p, da < 0.0f ? ca : cb);
        }
        float pa[2] = {rx + (ca[0] / ca[3] * 0.5f + 0.5f) * rw,
                       ry + (0.5f - ca[1] / ca[3] * 0.5f) * rh};
        float pb[2] = {rx + (cb[0] / cb[3] * 0.5f + 0.5f) * rw,
                       ry + (0.5f - cb[1] / cb[3] * 0.5f) * rh};
        /* Only view 0's rectangle (a split screen's other views are not drawn over). */
        if (!isfinite(pa[0] + pa[1] + pb[0] + pb[1]) ||
            !clip_rect(pa, pb, rx, ry, rx + rw, ry + rh)) {
            continue;
        }
        put_segment(verts + (size_t)q * 16u, pa, pb, width, l->rgba);
        q++;
    }
    return q;
}
