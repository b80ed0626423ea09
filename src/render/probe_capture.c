/* probe_capture.c: `capture` reflection probe sources through the camera / render-texture
 * machinery. A capture asks for six render textures (rill_render_target_texture, 512 x 512); once
 * they have uploaded, the frame's snapshot gets six more views (90-degree, square, one per cube
 * face, from the probe's centre, with the primary view's settings and clear colour) drawing into
 * them, and after the views' passes "probe.capture" blits each view's final image onto its face
 * of the probes' scratch cube (mirrored: a cube face is seen from inside); probe.c then builds the
 * mips and prefilters it like an image source. The picture is the tonemapped (LDR, sRGB) one. */
#include "frame.h"
#include "rill/formats/rmip_cube.h"

#include <stdio.h>
#include <string.h>

#define FACES 6

struct rill__capture {
    rill_texture tex[FACES];
    char names[FACES][32];
    bool active; /* this frame draws the six views */
    float eye[3];
    rill_render_view views[RILL_RENDER_MAX_VIEWS];
    rill_render_snapshot snap;
    rill_rg_image faces[FACES]; /* this frame's final images of the six views */
    rill_rg_image cube;         /* the scratch cube they are blitted onto */
};

static struct rill__capture *capture_of(rill_renderer *r) {
    if (!r->capture) {
        r->capture = rill_calloc_tagged(1, sizeof(*r->capture), RILL_MEM_RENDER);
    }
    return r->capture;
}

void rill__capture_destroy(rill_renderer *r) {
    rill_free(r->capture); /* the render textures go with the renderer */
    r->capture = NULL;
}

bool rill__capture_request(rill_renderer *r, const float eye[3]) {
    struct rill__capture *c = capture_of(r);
    if (!c || c->active) {
        return false;
    }
    bool ready = true;
    for (int i = 0; i < FACES; i++) {
        if (!c->tex[i].id) {
            rill_error err = {0};
            snprintf(c->names[i], sizeof(c->names[i]), "rill.probe_capture.%d", i);
            c->tex[i] = rill_render_target_texture(r, c->names[i], &err);
            if (!c->tex[i].id) {
                RILL_LOG_WARN("render", "probe capture: %s", err.msg);
                return false;
            }
        }
        const rill__img *img = rill__texture_img(r, c->tex[i]);
        ready &= img && rill__img_ready(img);
    }
    if (ready) {
        c->active = true;
        memcpy(c->eye, eye, sizeof(c->eye));
    }
    return ready;
}

/* The camera of face f: it looks along the face's centre direction; its picture, mirrored left to
 * right, is the face (texel x along sc, row y along tc). */
static void face_view(const float eye[3], uint32_t f, float m[16]) {
    float fwd[3], sx[3], ty[3];
    rill_rmip_cube_face_dir(f, 0.0f, 0.0f, fwd);
    rill_rmip_cube_face_dir(f, 1.0f, 0.0f, sx);
    rill_rmip_cube_face_dir(f, 0.0f, 1.0f, ty);
    memset(m, 0, sizeof(float) * 16);
    for (int k = 0; k < 3; k++) {
        m[0 + k] = -(sx[k] - fwd[k]); /* right: against sc (the mirror) */
        m[4 + k] = -(ty[k] - fwd[k]); /* up: against tc (rows go down) */
        m[8 + k] = -fwd[k];           /* back */
        m[12 + k] = eye[k];
    }
    m[15] = 1.0f;
}

const rill_render_snapshot *rill__capture_snapshot(rill_renderer *r,
                                                   const rill_render_snapshot *snap) {
    struct rill__capture *c = r->capture;
    if (!c || !c->active) {
        return snap;
    }
    bool has_list = snap->views && snap->view_count;
    uint32_t n = has_list ? RILL_MIN(snap->view_count, RILL_RENDER_MAX_VIEWS) : 1u;
    if (n + FACES > RILL_RENDER_MAX_VIEWS) {
        c->active = false; /* no room this frame: the capture waits for fewer cameras */
        return snap;
    }
    memcpy(c->views, has_list ? snap->views : &snap->view, sizeof(rill_render_view) * n);
    const rill_render_view *primary = has_list ? &snap->views[0] : &snap->view;
    for (uint32_t f = 0; f < FACES; f++) {
        rill_render_view *v = &c->views[n + f];
        memset(v, 0, sizeof(*v));
        face_view(c->eye, f, v->world_from_view);
        v->fov_y = 1.57079633f;
        v->near_plane = 0.05f;
        v->far_plane = primary->far_plane;
        memcpy(v->clear_color, primary->clear_color, sizeof(v->clear_color));
        v->tonemapper = primary->tonemapper;
        v->exposure_ev = primary->exposure_ev;
        v->settings = primary->settings;
        v->settings_count = primary->settings_count;
        v->order = INT32_MIN + (int32_t)f; /* first: before the cameras that might sample it */
        v->target = c->names[f];
    }
    c->snap = *snap;
    c->snap.views = c->views;
    c->snap.view_count = n + FACES;
    return &c->snap;
}

static void pass_capture(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    struct rill__capture *c = r->capture;
    rill__img *cube = rill__ctx_img(ctx, c->cube);
    for (int f = 0; f < FACES; f++) {
        rill__cmd_blit_layer(ctx->cmd, rill__ctx_img(ctx, c->faces[f]), cube, (uint32_t)f, true);
    }
}

rill_result rill__capture_add_pass(rill_renderer *r, rill_rg *g, rill_rg_image cube,
                                   rill_rg_pass *out_pass, rill_error *err) {
    struct rill__capture *c = r->capture;
    const rill__frame *fr = &r->frame;
    int found = 0;
    for (uint32_t vi = 0; vi < fr->target_views; vi++) {
        const rill__view *vs = &fr->views[vi];
        for (int f = 0; f < FACES; f++) {
            if (vs->target_tex.id == c->tex[f].id) {
                c->faces[f] = vs->fx.ldr_color;
                found++;
            }
        }
    }
    c->active = false;
    c->cube = cube;
    if (found != FACES) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: probe capture: %d of 6 views drawn", found);
    }
    rill_rg_pass_desc d = {
        .label = "probe.capture", .exec = pass_capture, .user = r, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    for (int f = 0; f < FACES; f++) {
        RILL_TRY(rill_rg_use_image(g, p, c->faces[f], RILL_RG_USAGE_TRANSFER_SRC, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, cube, RILL_RG_USAGE_TRANSFER_DST, err));
    *out_pass = p;
    return RILL_OK;
}
