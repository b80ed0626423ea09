/* fog_volume.c: volumetric fog (rill/render/volumetric.h): the VolumetricFog settings type and
 * the FogVolume component (fields, defaults, registration), FogVolume's part of extract, and the
 * GPU side. Per view with a VolumetricFog routed (and a tier above Low), after the views are
 * planned: the settings resolved and clamped (a warning naming the entity and the field), the
 * boxes made into their inverse matrices and per-metre coefficients, one uniform block; in the
 * graph after the opaque surfaces, the sky and distance fog: "vfog" (vfog.comp: the froxel volume,
 * one column an invocation, lit by the sun's cascaded shadows, the view's point and spot lights
 * and the sky's ambient light, blended with last frame's froxels reprojected: the temporal
 * history, two images per view written in turn) and "vfog.apply" (vfog_apply.comp: the volume
 * over the lit image). A view whose medium is empty (its density 0 and no box with density > 0)
 * adds no pass. */
#include "frame.h"
#include "rill/render/volumetric.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* >>components ------------------------------------------------------------------------------ */

#define VF_F32(member, lo, hi, text)                                                               \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_F32,                                                   \
        .offset = offsetof(rill_render_volumetric_fog, member),                                    \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
static const rill_field vfog_fields[] = {
    VF_F32(density, 0, 10, "per metre at y <= 0, default 0.02"),
    VF_F32(scattering_albedo, 0, 1,
           "share of the extinction scattered (the rest absorbed), "
           "default 0.9"),
    VF_F32(anisotropy, -0.95, 0.95,
           "Henyey-Greenstein phase g: > 0 brighter toward the sun, "
           "default 0.6"),
    VF_F32(height_falloff, 0, 10,
           "per metre above y = 0: density times exp(-falloff * y), "
           "default 0.05"),
    {.name = "color",
     .type = RILL_FIELD_COLOR,
     .offset = offsetof(rill_render_volumetric_fog, color),
     .doc = "tint of the scattered light (linear), default (1, 1, 1)"},
    VF_F32(ambient_intensity, 0, 1000, "multiplier of the sky's light in the fog, default 1"),
    VF_F32(distance, 1, 100000, "metres the froxel volume reaches, default 256"),
};

#define FV_F32(member, lo, hi, text)                                                               \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_F32,                                                   \
        .offset = offsetof(rill_render_fog_volume, member),                                        \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
static const rill_field box_fields[] = {
    FV_F32(density, 0, 1000, "multiplier of the coefficients below, default 0.1 (0: no fog)"),
    {.name = "color",
     .type = RILL_FIELD_COLOR,
     .offset = offsetof(rill_render_fog_volume, color),
     .doc = "colour of the scattered light (linear), default (1, 1, 1)"},
    FV_F32(absorption, 0, 1000, "per metre at density 1, default 0.3"),
    FV_F32(scattering, 0, 1000, "per metre at density 1, default 0.3"),
    FV_F32(anisotropy, -0.95, 0.95, "Henyey-Greenstein phase g, default 0.5"),
};

rill_render_volumetric_fog rill_render_volumetric_fog_query_defaults(void) {
    rill_render_volumetric_fog f = {.density = 0.02f,
                                    .scattering_albedo = 0.9f,
                                    .anisotropy = 0.6f,
                                    .height_falloff = 0.05f,
                                    .color = {1.0f, 1.0f, 1.0f, 1.0f},
                                    .ambient_intensity = 1.0f,
                                    .distance = 256.0f};
    return f;
}

rill_render_fog_volume rill_render_fog_volume_query_defaults(void) {
    rill_render_fog_volume v = {.density = 0.1f,
                                .color = {1.0f, 1.0f, 1.0f, 1.0f},
                                .absorption = 0.3f,
                                .scattering = 0.3f,
                                .anisotropy = 0.5f};
    return v;
}

rill_result rill__vfog_register(rill_world *w, rill_render_components *out, rill_error *err) {
    static rill_render_volumetric_fog vfog_default;
    static rill_render_fog_volume box_default;
    vfog_default = rill_render_volumetric_fog_query_defaults();
    box_default = rill_render_fog_volume_query_defaults();
    const rill_type_desc d[2] = {
        {.name = "VolumetricFog",
         RILL_TYPE_LAYOUT(rill_render_volumetric_fog),
         RILL_FIELDS(vfog_fields),
         .defaults = &vfog_default,
         .doc = "volumetric fog (a froxel volume lit by the sun and sky; Medium and High tiers), "
                "routed to cameras"},
        {.name = "FogVolume",
         RILL_TYPE_LAYOUT(rill_render_fog_volume),
         RILL_FIELDS(box_fields),
         .defaults = &box_default,
         .doc = "a box of fog (the transform maps the unit cube onto it) in the volumetric fog of "
                "every camera that has one"},
    };
    RILL_TRY(rill__render_settings_ensure(w, d, 1, out, NULL, err));
    /* FogVolume: boxes in the fog, not settings routed to cameras. */
    return rill__render_type_ensure(w, &d[1], err).id ? RILL_OK : RILL_ERR_INVALID_ARGUMENT;
}

static bool push_fog_box(void *user, const float world_from_box[16], const void *component,
                         rill_entity entity) {
    rill_render_extract_buf *buf = user;
    rill_render_fog_box b;
    memcpy(b.world_from_box, world_from_box, sizeof(b.world_from_box));
    memcpy(&b.fog, component, sizeof(b.fog));
    b.entity = entity;
    return rill_array_push(&buf->fog_volumes, b);
}

bool rill__vfog_extract(rill_world *w, rill_render_extract_buf *buf, rill_render_snapshot *out) {
    rill_array_clear(&buf->fog_volumes);
    out->fog_volumes = NULL;
    out->fog_volume_count = 0;
    if (!rill__extract_boxes(w, "FogVolume", push_fog_box, buf)) {
        return false;
    }
    out->fog_volumes = buf->fog_volumes.data;
    out->fog_volume_count = (uint32_t)buf->fog_volumes.len;
    return true;
}

/* >>resolving ------------------------------------------------------------------------------- */

#define VFOG_HISTORY_WEIGHT 0.9f /* NOTES 10: share of last frame's froxels in this frame's */
#define VFOG_CUT_COS 0.70710678f /* a camera turn above 45 degrees in one frame is a cut */
#define VFOG_JITTER_PERIOD 4096u /* the jitter sequence's index wraps here (float precision) */
#define VFOG_IDLE_FRAMES 60u     /* frames without fog after which a view's history is freed */

/* The settings block of vfog_common.glsl (std140). */
typedef struct vfog_block {
    float inv_vp[16];
    float prev_vp[16];
    float camera[4];
    float medium[4];
    float color[4];
    uint32_t grid[4];
    float slice[4];
    float prev_camera[4];
    float temporal[4];
} vfog_block;

/* A box as vfog.comp reads it. */
typedef struct gpu_box {
    float box_from_world[16];
    float color[4];
    float params[4];
} gpu_box;

/* One view's temporal history: two froxel images (in-scattered light and extinction per metre)
 * written in turn, and what last frame's volume was (to reproject into it and to see a cut). */
typedef struct vfog_history {
    rill__img *img[2];
    uint32_t w, h;       /* image size: grid x * slices, grid y */
    uint32_t cur;        /* the image last frame wrote */
    bool valid;          /* img[cur] holds a frame */
    uint64_t last_frame; /* the frame counter when it was written */
    uint32_t sample;     /* frames since the history restarted */
    float vp[16];        /* last frame's view-projection */
    float camera[4];     /* xyz last frame's camera, w its distance */
    float slice[2];      /* last frame's slice spacing (c, log(1 + D / c)) */
    float fwd[3];        /* last frame's forward axis and projection, to see cuts */
    float proj[5];
} vfog_history;

/* One view's fog this frame. */
typedef struct vfog_view {
    rill_renderer *r;
    const rill__view *vs;
    bool on;
    bool reset; /* this frame starts the history again (nothing to read) */
    uint32_t grid[3];
    rill__buf *block_buf;
    uint64_t block_off;
    rill_rg_image volume, hist_in, hist_out;
    vfog_history hist;
} vfog_view;

struct rill__vfog {
    vfog_view views[RILL_RENDER_MAX_VIEWS];
    rill__buf *box_buf;
    uint64_t box_off;
    uint32_t box_count;
    bool warned_boxes; /* "too many FogVolumes" was said */
};

rill_result rill__vfog_create(rill_renderer *r, rill_error *err) {
    r->vfog = rill_calloc_tagged(1, sizeof(*r->vfog), RILL_MEM_RENDER);
    if (!r->vfog) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

static void history_free(rill_renderer *r, vfog_history *h) {
    for (int i = 0; i < 2; i++) {
        rill__img_destroy(r->gpu, h->img[i]);
        h->img[i] = NULL;
    }
    h->valid = false;
    h->w = h->h = 0;
}

void rill__vfog_destroy(rill_renderer *r) {
    if (!r->vfog) {
        return;
    }
    for (uint32_t i = 0; i < RILL_RENDER_MAX_VIEWS; i++) {
        history_free(r, &r->vfog->views[i].hist);
    }
    rill_free(r->vfog);
    r->vfog = NULL;
}

static float fixf(rill_renderer *r, const char *type, rill_entity e, const char *field, float v,
                  float lo, float hi, float def) {
    return rill__settings_fix(r, type, e, field, v, lo, hi, def);
}

/* vf clamped field by field (warnings name src). */
static void fix_settings(rill_renderer *r, rill_entity src, rill_render_volumetric_fog *f) {
    const char *t = "VolumetricFog";
    rill_render_volumetric_fog d = rill_render_volumetric_fog_query_defaults();
    f->density = fixf(r, t, src, "density", f->density, 0.0f, 10.0f, d.density);
    f->scattering_albedo =
        fixf(r, t, src, "scattering_albedo", f->scattering_albedo, 0.0f, 1.0f, d.scattering_albedo);
    f->anisotropy = fixf(r, t, src, "anisotropy", f->anisotropy, -0.95f, 0.95f, d.anisotropy);
    f->height_falloff =
        fixf(r, t, src, "height_falloff", f->height_falloff, 0.0f, 10.0f, d.height_falloff);
    for (int k = 0; k < 3; k++) {
        f->color[k] = fixf(r, t, src, "color", f->color[k], 0.0f, 1e4f, 1.0f);
    }
    f->ambient_intensity =
        fixf(r, t, src, "ambient_intensity", f->ambient_intensity, 0.0f, 1000.0f, 1.0f);
    f->distance = fixf(r, t, src, "distance", f->distance, 1.0f, 1e5f, d.distance);
}

static void fix_box(rill_renderer *r, rill_entity src, rill_render_fog_volume *b) {
    const char *t = "FogVolume";
    rill_render_fog_volume d = rill_render_fog_volume_query_defaults();
    b->density = fixf(r, t, src, "density", b->density, 0.0f, 1000.0f, d.density);
    for (int k = 0; k < 3; k++) {
        b->color[k] = fixf(r, t, src, "color", b->color[k], 0.0f, 1e4f, 1.0f);
    }
    b->absorption = fixf(r, t, src, "absorption", b->absorption, 0.0f, 1000.0f, d.absorption);
    b->scattering = fixf(r, t, src, "scattering", b->scattering, 0.0f, 1000.0f, d.scattering);
    b->anisotropy = fixf(r, t, src, "anisotropy", b->anisotropy, -0.95f, 0.95f, d.anisotropy);
}

/* The snapshot's boxes with fog in them into this frame's buffer (the inverse of a degenerate or
 * non-finite matrix drops the box). */
static rill_result plan_boxes(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                              rill_error *err) {
    rill__vfog *v = r->vfog;
    v->box_count = 0;
    uint32_t n = snap->fog_volumes ? snap->fog_volume_count : 0;
    if (n > RILL_RENDER_MAX_FOG_VOLUMES) {
        if (!v->warned_boxes) {
            RILL_LOG_WARN("render", "%u FogVolumes; the first %u are used", n,
                          RILL_RENDER_MAX_FOG_VOLUMES);
            v->warned_boxes = true;
        }
        n = RILL_RENDER_MAX_FOG_VOLUMES;
    }
    /* Never empty: the set binds the buffer whatever the count. */
    gpu_box *out =
        rill__frame_alloc(cmd, sizeof(gpu_box) * (n ? n : 1), 256, &v->box_buf, &v->box_off);
    if (!out) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    memset(out, 0, sizeof(gpu_box));
    for (uint32_t i = 0; i < n; i++) {
        const rill_render_fog_box *b = &snap->fog_volumes[i];
        rill_render_fog_volume f = b->fog;
        fix_box(r, b->entity, &f);
        mat4 m, inv;
        memcpy(m, b->world_from_box, sizeof(m));
        float det = glm_mat4_det(m);
        if (f.density <= 0.0f || !isfinite(det) || fabsf(det) < 1e-12f) {
            continue;
        }
        glm_mat4_inv(m, inv);
        gpu_box *g = &out[v->box_count++];
        memcpy(g->box_from_world, inv, sizeof(inv));
        for (int k = 0; k < 3; k++) {
            g->color[k] = f.density * f.scattering * f.color[k];
        }
        g->params[0] = f.density * (f.absorption + f.scattering);
        g->params[1] = f.anisotropy;
    }
    return RILL_OK;
}

/* Froxels across, down and deep for the tier (0: no fog at Low). */
static void tier_grid(rill_render_quality q, uint32_t out[3]) {
    if (q == RILL_RENDER_QUALITY_LOW) {
        out[0] = out[1] = out[2] = 0;
    } else if (q == RILL_RENDER_QUALITY_HIGH) {
        out[0] = 160, out[1] = 90, out[2] = 64;
    } else {
        out[0] = 80, out[1] = 45, out[2] = 32;
    }
}

/* View vs's block: its matrices, the settings and the grid. */
static void fill_block(const rill__view *vs, const rill_render_volumetric_fog *f,
                       const uint32_t grid[3], uint32_t boxes, vfog_block *b) {
    memset(b, 0, sizeof(*b));
    mat4 vp, inv;
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, inv);
    memcpy(b->inv_vp, inv, sizeof(inv));
    b->camera[0] = vs->set.world_from_view[12];
    b->camera[1] = vs->set.world_from_view[13];
    b->camera[2] = vs->set.world_from_view[14];
    b->camera[3] = f->distance;
    b->medium[0] = f->density;
    b->medium[1] = f->scattering_albedo;
    b->medium[2] = f->anisotropy;
    b->medium[3] = f->height_falloff;
    memcpy(b->color, f->color, sizeof(float) * 3);
    b->color[3] = f->ambient_intensity;
    b->grid[0] = grid[0], b->grid[1] = grid[1], b->grid[2] = grid[2], b->grid[3] = boxes;
    /* Slices: c = distance / 64 keeps the first slice about a 20th of the range at 32 slices. */
    float c = f->distance / 64.0f;
    b->slice[0] = c;
    b->slice[1] = logf(1.0f + f->distance / c);
}

/* >>history --------------------------------------------------------------------------------- */

/* The view's forward axis and projection (fov, near, far, orthographic height and mode). */
static void camera_key(const rill__view *vs, float fwd[3], float proj[5]) {
    const float *m = vs->set.world_from_view;
    float len = sqrtf(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    fwd[0] = 0.0f, fwd[1] = 0.0f, fwd[2] = -1.0f;
    if (len > 1e-6f) {
        fwd[0] = -m[8] / len, fwd[1] = -m[9] / len, fwd[2] = -m[10] / len;
    }
    proj[0] = vs->set.fov_y, proj[1] = vs->set.znear, proj[2] = vs->set.zfar;
    proj[3] = vs->set.half_h, proj[4] = vs->set.orthographic ? 1.0f : 0.0f;
}

/* Whether the camera cut since last frame: another projection, a turn of more than 45 degrees,
 * or a move farther than the volume reaches (nothing of last frame's volume is in this one). */
static bool camera_cut(const vfog_history *h, const rill__view *vs, const vfog_block *b) {
    float fwd[3], proj[5];
    camera_key(vs, fwd, proj);
    float c = fwd[0] * h->fwd[0] + fwd[1] * h->fwd[1] + fwd[2] * h->fwd[2];
    float dx = b->camera[0] - h->camera[0], dy = b->camera[1] - h->camera[1],
          dz = b->camera[2] - h->camera[2];
    float moved = sqrtf(dx * dx + dy * dy + dz * dz);
    return memcmp(proj, h->proj, sizeof(proj)) != 0 || !(c >= VFOG_CUT_COS) ||
           !(moved < b->camera[3]);
}

/* (Re)creates the history's two images at w x h; false when that fails (no temporal blend). */
static bool history_images(rill_renderer *r, vfog_history *h, uint32_t w, uint32_t hh) {
    if (h->img[0] && h->w == w && h->h == hh) {
        return true;
    }
    history_free(r, h);
    rill_error err = {0};
    if (!rill__history_images_create(r->gpu, h->img, w, hh, "vfog", &err)) {
        RILL_LOG_WARN("render", "volumetric fog: no temporal history (%s)", err.msg);
        history_free(r, h);
        return false;
    }
    h->w = w;
    h->h = hh;
    return true;
}

/* Fills b's reprojection and jitter from the view's history and remembers this frame's volume
 * for the next. A fresh history (the first frame with fog, after a frame without, a cut or a new
 * grid) reads nothing and samples the slices' middles, as a single frame does. */
static bool plan_history(rill_renderer *r, vfog_view *fv, vfog_block *b) {
    vfog_history *h = &fv->hist;
    uint32_t w = fv->grid[0] * fv->grid[2], hh = fv->grid[1];
    if (!history_images(r, h, w, hh)) {
        return false;
    }
    bool fresh = !h->valid || h->last_frame + 1 != r->frame_counter || camera_cut(h, fv->vs, b);
    h->sample = fresh ? 0 : (h->sample + 1) % VFOG_JITTER_PERIOD;
    memcpy(b->prev_vp, h->vp, sizeof(b->prev_vp));
    memcpy(b->prev_camera, h->camera, sizeof(b->prev_camera));
    b->slice[2] = h->slice[0];
    b->slice[3] = h->slice[1];
    b->temporal[0] = (float)h->sample;
    b->temporal[1] = fresh ? 0.0f : VFOG_HISTORY_WEIGHT;
    fv->reset = fresh;
    memcpy(h->vp, fv->vs->view_proj, sizeof(h->vp));
    memcpy(h->camera, b->camera, sizeof(h->camera));
    h->slice[0] = b->slice[0];
    h->slice[1] = b->slice[1];
    camera_key(fv->vs, h->fwd, h->proj);
    return true;
}

/* Frees the histories of views that had no fog for a while. */
static void history_idle(rill_renderer *r) {
    for (uint32_t i = 0; i < RILL_RENDER_MAX_VIEWS; i++) {
        vfog_history *h = &r->vfog->views[i].hist;
        if (h->img[0] && r->frame_counter - h->last_frame > VFOG_IDLE_FRAMES) {
            history_free(r, h);
        }
    }
}

rill_result rill__vfog_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                            rill_error *err) {
    rill__vfog *v = r->vfog;
    uint32_t grid[3];
    tier_grid(r->desc.quality, grid);
    bool boxes_done = false;
    for (uint32_t i = 0; i < r->frame.view_count; i++) {
        vfog_view *fv = &v->views[i];
        const rill__view *vs = &r->frame.views[i];
        fv->on = false;
        const rill_render_routed_settings *rs =
            grid[0] && !r->frame.no_view
                ? rill__view_routed(vs->view, "VolumetricFog", sizeof(rill_render_volumetric_fog))
                : NULL;
        if (!rs) {
            continue;
        }
        if (!boxes_done) {
            RILL_TRY(plan_boxes(r, cmd, snap, err));
            boxes_done = true;
        }
        rill_render_volumetric_fog f = *(const rill_render_volumetric_fog *)rs->data;
        fix_settings(r, rs->source, &f);
        if (f.density <= 0.0f && v->box_count == 0) {
            continue; /* nothing in the air */
        }
        vfog_block *b = rill__frame_alloc(cmd, sizeof(*b), 256, &fv->block_buf, &fv->block_off);
        if (!b) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                  "render: frame scratch allocation failed");
        }
        fill_block(vs, &f, grid, v->box_count, b);
        fv->r = r;
        fv->vs = vs;
        memcpy(fv->grid, grid, sizeof(grid));
        fv->on = plan_history(r, fv, b);
    }
    history_idle(r);
    return RILL_OK;
}

/* >>graph ----------------------------------------------------------------------------------- */

static void pass_volume(rill_rg_ctx *ctx, void *user);
static void pass_apply(rill_rg_ctx *ctx, void *user);

rill_result rill__vfog_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                rill_rg_pass *out_last, rill_error *err) {
    *out_last = after;
    vfog_view *fv = &r->vfog->views[vs->index];
    if (vs->index >= r->frame.view_count || !fv->on) {
        return RILL_OK;
    }
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .scale = 1.0f,
                            .width = fv->grid[0] * fv->grid[2],
                            .height = fv->grid[1]};
    fv->volume = rill_rg_create_image(g, "vfog.volume", &d, err);
    const rill_rg_usage rd = RILL_RG_USAGE_SAMPLED_COMPUTE;
    /* Last frame's history in (contents undefined on a reset: not read), this frame's out. */
    vfog_history *h = &fv->hist;
    uint32_t next = h->cur ^ 1u;
    fv->hist_in =
        rill_rg_import_image(g, "vfog.history_in", &d, h->img[h->cur],
                             fv->reset ? RILL_RG_USAGE_NONE : rd, RILL_RG_USAGE_NONE, err);
    fv->hist_out =
        rill_rg_import_image(g, "vfog.history_out", &d, h->img[next], RILL_RG_USAGE_NONE, rd, err);
    rill_rg_pass_desc pd = {.label = "vfog", .exec = pass_volume, .user = fv, .view = vs->index};
    rill_rg_pass vp = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, vp, vs->res.shadow_map, rd, err));
    RILL_TRY(rill__ibl_access_sh_compute(r, g, vp, err));
    RILL_TRY(rill_rg_use_image(g, vp, fv->volume, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, vp, fv->hist_in, rd, err));
    RILL_TRY(rill_rg_use_image(g, vp, fv->hist_out, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill__clouds_shadow_access(r, g, vp, rd, err));
    h->cur = next;
    h->valid = true;
    h->last_frame = r->frame_counter;
    pd.label = "vfog.apply";
    pd.exec = pass_apply;
    rill_rg_pass ap = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, ap, fv->volume, rd, err));
    RILL_TRY(rill_rg_use_image(g, ap, vs->res.depth, rd, err));
    RILL_TRY(rill_rg_use_image(g, ap, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, after, ap, err));
    *out_last = ap;
    return RILL_OK;
}

/* >>recording ------------------------------------------------------------------------------- */

static void bind_block(const vfog_view *fv, rill__binding *b) {
    b->buf = fv->block_buf;
    b->offset = fv->block_off;
    b->range = sizeof(vfog_block);
}

static void bind_img(rill__binding *b, rill__img *img, rill__sampler_kind s) {
    b->img = img;
    b->layer = -1;
    b->sampler = s;
}

static void pass_volume(rill_rg_ctx *ctx, void *user) {
    vfog_view *fv = user;
    rill_renderer *r = fv->r;
    const rill__view *vs = fv->vs;
    rill__binding b[12], ibl[3];
    memset(b, 0, sizeof(b));
    b[0].buf = vs->frame_buf;
    b[0].offset = vs->frame_off;
    b[0].range = sizeof(rill__gpu_frame);
    bind_img(&b[1], rill__ctx_img(ctx, vs->res.shadow_map), RILL__SAMPLER_SHADOW);
    rill__ibl_bindings(r, ibl);
    b[2] = ibl[2];
    bind_block(fv, &b[3]);
    b[4].buf = r->vfog->box_buf;
    b[4].offset = r->vfog->box_off;
    b[4].range = sizeof(gpu_box) * (r->vfog->box_count ? r->vfog->box_count : 1);
    b[5].img = rill__ctx_img(ctx, fv->volume);
    b[5].layer = -1;
    b[6].buf = vs->light_buf;
    b[6].offset = vs->light_off;
    b[6].range = vs->light_size;
    b[7].buf = vs->cluster_buf;
    b[7].offset = vs->cluster_off;
    b[7].range = vs->cluster_size;
    b[8].buf = vs->cluster_idx_buf;
    b[8].offset = vs->cluster_idx_off;
    b[8].range = vs->cluster_idx_size;
    bind_img(&b[9], rill__ctx_img(ctx, fv->hist_in), RILL__SAMPLER_LINEAR_CLAMP);
    b[10].img = rill__ctx_img(ctx, fv->hist_out);
    b[10].layer = -1;
    bind_img(&b[11], rill__clouds_shadow_img(r), RILL__SAMPLER_LINEAR_CLAMP);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_VFOG]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 12);
    rill__cmd_dispatch(ctx->cmd, (fv->grid[0] + 7) / 8, (fv->grid[1] + 7) / 8, 1);
}

static void pass_apply(rill_rg_ctx *ctx, void *user) {
    vfog_view *fv = user;
    rill_renderer *r = fv->r;
    const rill__view *vs = fv->vs;
    rill__img *depth = rill__ctx_img(ctx, vs->res.depth);
    const rill__img_desc *dd = rill__img_get_desc(depth);
    rill__binding b[4];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, fv->volume), RILL__SAMPLER_LINEAR_CLAMP);
    bind_img(&b[1], depth, RILL__SAMPLER_NEAREST_CLAMP);
    b[2].img = rill__ctx_img(ctx, vs->res.hdr);
    b[2].layer = -1;
    bind_block(fv, &b[3]);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_VFOG_APPLY]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    rill__cmd_dispatch(ctx->cmd, (dd->width + 7) / 8, (dd->height + 7) / 8, 1);
}
