/* probe_capture.c: `capture` reflection probe sources through the camera / render-texture
 * machinery. A capture asks for six render textures (rill_render_target_texture, 512 x 512); once
 * they have uploaded, it draws the cube's faces over one or more frames
 * (rill_renderer_desc.probe_capture_faces a frame, one by default: a capture's six views in one
 * frame made that frame several times dearer than its neighbours). Each of those frames' snapshot
 * gets one more view per face (90-degree, square, from the probe's centre, with the primary
 * view's settings and clear colour) drawing into its render texture, and after the views' passes
 * "probe.capture" blits each face's final image onto its layer of the probes' scratch cube
 * (mirrored: a cube face is seen from inside); the scratch cube keeps the faces of the earlier
 * frames (probe.c lends it to nothing else meanwhile). The frame that draws the last face hands
 * the cube to probe.c, which builds the mips and prefilters it like an image source. The picture
 * is the tonemapped (LDR, sRGB) one. */
#include "frame.h"
#include "rill/formats/rmip_cube.h"

#include <stdio.h>
#include <string.h>

#define FACES 6
/* A capture starts once the frame's uploads left no backlog (the start-up burst of a streamed
 * world, a district arriving), or after this many frames of waiting (a world that streams without
 * pause): its faces are views of their own, best not drawn on the frames that copy the most. */
#define CAPTURE_DEFER_MAX 120u

struct rill__capture {
    rill_texture tex[FACES];
    char names[FACES][32];
    char key[64];      /* the capture under way (probe.c's entry key), "" none */
    float eye[3];      /* and its centre */
    uint32_t next;     /* its first face not drawn yet (0: none under way) */
    uint32_t first;    /* this frame draws faces first .. first + count - 1 */
    uint32_t count;    /* 0: none this frame */
    uint32_t deferred; /* frames the next capture's start has waited for the upload backlog */
    rill_render_view views[RILL_RENDER_MAX_VIEWS];
    rill_render_snapshot snap;
    rill_rg_image faces[FACES];      /* this frame's final images of the faces it draws */
    rill_rg_image cube;              /* the scratch cube they are blitted onto */
    uint32_t blit_first, blit_count; /* the faces the probe.capture pass blits */
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

/* The six render textures, made on first use; false while one is missing or not uploaded. */
static bool textures_ready(rill_renderer *r, struct rill__capture *c) {
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
    return ready;
}

/* Whether this frame's uploads left some queued for later frames. */
static bool upload_backlog(const rill_renderer *r) {
    rill__upload_figures uf;
    rill__gpu_upload_figures(r->gpu, &uf);
    return uf.backlog_bytes > 0;
}

rill__capture_step rill__capture_request(rill_renderer *r, const char *key, const float eye[3]) {
    struct rill__capture *c = capture_of(r);
    if (!c) {
        return RILL__CAPTURE_WAIT;
    }
    c->count = 0; /* probe.c asks once a frame: a count left here is a failed frame's */
    bool same = strcmp(c->key, key) == 0 && memcmp(c->eye, eye, sizeof(c->eye)) == 0;
    if ((c->next && !same) || !textures_ready(r, c)) {
        return RILL__CAPTURE_WAIT; /* another capture is under way, or the textures upload */
    }
    if (!c->next && upload_backlog(r) && c->deferred < CAPTURE_DEFER_MAX) {
        c->deferred++;
        return RILL__CAPTURE_WAIT;
    }
    if (!c->next) {
        c->deferred = 0;
        snprintf(c->key, sizeof(c->key), "%s", key);
        memcpy(c->eye, eye, sizeof(c->eye));
    }
    uint32_t per = RILL_CLAMP(r->desc.probe_capture_faces, 1u, (uint32_t)FACES);
    c->first = c->next;
    c->count = RILL_MIN(per, FACES - c->next);
    return c->first + c->count == FACES ? RILL__CAPTURE_LAST : RILL__CAPTURE_FACES;
}

bool rill__capture_busy(const rill_renderer *r) {
    return r->capture && r->capture->next > 0;
}

void rill__capture_abandon(rill_renderer *r) {
    if (r->capture) {
        r->capture->next = 0;
        r->capture->count = 0;
        r->capture->key[0] = '\0';
    }
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
    if (!c || !c->count) {
        return snap;
    }
    bool has_list = snap->views && snap->view_count;
    uint32_t n = has_list ? RILL_MIN(snap->view_count, RILL_RENDER_MAX_VIEWS) : 1u;
    if (n + c->count > RILL_RENDER_MAX_VIEWS) {
        c->count = 0; /* no room this frame: the capture waits for fewer cameras */
        return snap;
    }
    memcpy(c->views, has_list ? snap->views : &snap->view, sizeof(rill_render_view) * n);
    const rill_render_view *primary = has_list ? &snap->views[0] : &snap->view;
    for (uint32_t i = 0; i < c->count; i++) {
        uint32_t f = c->first + i;
        rill_render_view *v = &c->views[n + i];
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
    c->snap.view_count = n + c->count;
    return &c->snap;
}

static void pass_capture(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    struct rill__capture *c = r->capture;
    rill__img *cube = rill__ctx_img(ctx, c->cube);
    for (uint32_t f = c->blit_first; f < c->blit_first + c->blit_count; f++) {
        rill__cmd_blit_layer(ctx->cmd, rill__ctx_img(ctx, c->faces[f]), cube, f, true);
    }
}

rill_result rill__capture_add_pass(rill_renderer *r, rill_rg *g, rill_rg_image cube, bool *out_last,
                                   rill_error *err) {
    struct rill__capture *c = r->capture;
    const rill__frame *fr = &r->frame;
    *out_last = false;
    if (!c || !c->count) {
        return RILL_OK; /* no face drawn this frame (no room for its views) */
    }
    uint32_t found = 0, first = c->first, count = c->count;
    c->count = 0;
    for (uint32_t vi = 0; vi < fr->target_views; vi++) {
        const rill__view *vs = &fr->views[vi];
        for (uint32_t f = first; f < first + count; f++) {
            if (vs->target_tex.id == c->tex[f].id) {
                c->faces[f] = vs->fx.ldr_color;
                found++;
            }
        }
    }
    if (found != count) {
        rill__capture_abandon(r); /* begun again from its first face */
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: probe capture: %u of %u views drawn", found, count);
    }
    c->cube = cube;
    c->blit_first = first;
    c->blit_count = count;
    rill_rg_pass_desc d = {
        .label = "probe.capture", .exec = pass_capture, .user = r, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    for (uint32_t f = first; f < first + count; f++) {
        RILL_TRY(rill_rg_use_image(g, p, c->faces[f], RILL_RG_USAGE_TRANSFER_SRC, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, cube, RILL_RG_USAGE_TRANSFER_DST, err));
    c->next = first + count;
    if (c->next == FACES) { /* the cube is whole: probe.c bakes it now */
        rill__capture_abandon(r);
        *out_last = true;
    }
    return RILL_OK;
}
