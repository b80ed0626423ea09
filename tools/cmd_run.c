/* cmd_run.c: `rill run [INPUT]`, the windowed viewer. It opens a GLFW window (rill_window), a
 * renderer on it and plays INPUT through rill_content (rill/app.h, ON PLAYING CONTENT), the same
 * set-up `rill render` and `rill demo` use: a project folder (its project.toml: main scene,
 * [window] size, title and vsync, [rendering] quality and render scale), a .rsn scene, a .glb/.gltf
 * model, a built-in scene, or a pack (--pack, or one appended to this program). The app's render
 * hook draws the world with a fly camera and the stats overlay. The viewer loop itself
 * (rill_cli_viewer_run) is shared with `rill demo --window`.
 *
 * Controls: WASD move, Q/E down/up, right mouse drag looks around, Shift is 4x faster, the scroll
 * wheel changes the speed, 1-4 cycle the render mode of the built-in scene channels (context,
 * selectable, preserve-identity, ghost: normal, hidden, wireframe, ghost 0.35), a left click picks
 * the nearest selectable entity under the cursor (its name goes in the overlay; a reflection
 * probe's box the ray enters before that is picked instead and drawn as a wireframe box while
 * selected: viewer_probes.c), F1 toggles the
 * overlay, F2 cycles the quality tier, F3/F4 lower/raise the render scale, F5 turns texture
 * streaming on/off, F6 shows the texture state heatmap, F7 switches vsync, F9 cycles the debug
 * panels (stats, culling with its frustum frozen where F9 selected it, cameras, material of the
 * last click; rill/render/debug.h), Esc quits. The overlay
 * lists the effects that ran for the camera with their GPU time; the integrated-GPU hint shows as
 * a toast for the first seconds.
 */
#include "cli_args.h"
#include "cli_opts.h"
#include "cmds.h"
#include "rill/channels.h"
#include "viewer_probes.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"
#include "rill/render/environment.h"
#include "rill/stream.h"

#define RUN_MAX_FRAMES 1000000000ull /* --frames upper bound (a typo, not a wish) */
#define RUN_TOAST_NS 10000000000ull  /* how long the integrated-GPU hint stays on screen */

/* >>camera ------------------------------------------------------------------------------------ */

typedef struct fly_camera {
    float eye[3];
    float yaw, pitch;
    float speed;
} fly_camera;

static void camera_forward(const fly_camera *c, float out[3]) {
    out[0] = -sinf(c->yaw) * cosf(c->pitch);
    out[1] = sinf(c->pitch);
    out[2] = -cosf(c->yaw) * cosf(c->pitch);
}

/* world_from_view = T(eye) * Ry(yaw) * Rx(pitch): the view looks down its -Z axis. */
static void camera_matrix(const fly_camera *c, float out[16]) {
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (float *)c->eye);
    glm_rotate_y(m, c->yaw, m);
    glm_rotate_x(m, c->pitch, m);
    memcpy(out, m, sizeof(mat4));
}

/* The yaw and pitch of a world_from_view matrix (its -Z axis). */
static void camera_from_matrix(fly_camera *c, const float m[16]) {
    float f[3] = {-m[8], -m[9], -m[10]};
    float len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (len > 1e-6f) {
        c->pitch = asinf(RILL_CLAMP(f[1] / len, -1.0f, 1.0f));
        c->yaw = atan2f(-f[0], -f[2]);
    }
    c->eye[0] = m[12], c->eye[1] = m[13], c->eye[2] = m[14];
}

static void camera_update(fly_camera *c, const rill_input *in, float dt) {
    if (in->mouse_down[RILL_MOUSE_RIGHT]) {
        c->yaw -= (float)in->mouse_dx * 0.003f;
        c->pitch -= (float)in->mouse_dy * 0.003f;
        c->pitch = RILL_CLAMP(c->pitch, -1.55f, 1.55f);
    }
    if (in->scroll_y != 0.0) {
        c->speed = RILL_CLAMP(c->speed * powf(1.2f, (float)in->scroll_y), 0.05f, 5000.0f);
    }
    float f[3], right[3] = {cosf(c->yaw), 0.0f, -sinf(c->yaw)};
    camera_forward(c, f);
    float move[3] = {0, 0, 0};
    float fwd = (float)in->key_down['W'] - (float)in->key_down['S'];
    float side = (float)in->key_down['D'] - (float)in->key_down['A'];
    float up = (float)in->key_down['E'] - (float)in->key_down['Q'];
    for (int k = 0; k < 3; k++) {
        move[k] = f[k] * fwd + right[k] * side;
    }
    move[1] += up;
    float step =
        c->speed * dt *
        (in->key_down[RILL_KEY_LEFT_SHIFT] || in->key_down[RILL_KEY_RIGHT_SHIFT] ? 4.0f : 1.0f);
    for (int k = 0; k < 3; k++) {
        c->eye[k] += move[k] * step;
    }
}

/* >>viewer ------------------------------------------------------------------------------------ */

typedef struct viewer {
    const rill_cli_viewer_opts *opts;
    rill_content *content;
    rill_window *win;
    rill_renderer *r;
    fly_camera cam;
    bool overlay;
    bool heatmap;  /* F6: texture streaming heatmap */
    double hours;  /* the sun's time of day (--time-of-day, F8 / Shift+F8 step it) */
    bool capture;  /* capture this frame (the last one) for --screenshot */
    bool captured; /* a capture was written */
    uint64_t frames;
    uint64_t start_ns;
    uint64_t last_ns;
    double frame_ms;
    int rc;
    char picked[128]; /* the overlay's pick line */
    /* The reflection probe a pick selected (0: none): its box draws as a wireframe cube. */
    rill_entity probe;
    rill_mesh box_mesh;
    rill_material box_material;
    RILL_ARRAY(rill_render_instance) instances; /* the snapshot's, plus the probe box */
    rill_render_view shown; /* the view of the last frame drawn, and its framebuffer size */
    uint32_t shown_w, shown_h;
    rill_render_panel panel; /* F9 / --debug-view: the debug panel shown */
    float pick_at[4];        /* the material panel's pixel: x, y of a w x h window */
    bool pick_json;          /* print the material panel's JSON once (--pick) */
    char text[RILL_RENDER_OVERLAY_MAX_TEXT];
} viewer;

/* The selected probe's box, a wireframe cube, appended to the snapshot's instances (a copy the
 * viewer owns); called once a frame, after this frame's pick. */
static bool add_probe_box(viewer *v, rill_render_snapshot *snap, rill_error *err) {
    rill_world *w = rill_app_world(rill_content_app(v->content));
    rill_render_instance box;
    if (!v->probe || !viewer_probe_box(w, v->probe, v->box_mesh, &box)) {
        return true;
    }
    box.material = v->box_material;
    rill_array_clear(&v->instances);
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        if (!rill_array_push(&v->instances, snap->instances[i])) {
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory (probe box)");
            return false;
        }
    }
    if (!rill_array_push(&v->instances, box)) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory (probe box)");
        return false;
    }
    snap->instances = v->instances.data;
    snap->instance_count = v->instances.len;
    snap->instance_changed = NULL; /* the marks end before the box: every instance may differ */
    return true;
}

/* This frame's snapshot: the world as rill_content sets it up, seen from the fly camera (with the
 * world camera's lens). With several active cameras every one is shown as the scene lays them
 * out (split screen, picture in picture) and the fly camera drives the primary one. */
static bool build_snapshot(viewer *v, rill_render_snapshot *snap, rill_error *err) {
    if (rill_content_snapshot(v->content, snap, err) != RILL_OK) {
        return false;
    }
    camera_matrix(&v->cam, snap->view.world_from_view);
    snap->view.orthographic = false;
    if (v->opts->near_plane > 0.0f) {
        snap->view.near_plane = v->opts->near_plane;
    }
    if (v->opts->far_plane > 0.0f) {
        snap->view.far_plane = v->opts->far_plane;
    }
    if (v->opts->passthrough) {
        snap->view.passthrough = (rill_passthrough)(v->opts->passthrough - 1);
    }
    if (snap->view_count < 2) {
        snap->views = NULL; /* the fly camera replaces the world's view */
        snap->view_count = 0;
    }
    /* The extract buffer's views: this viewer's own copies, edited in place. */
    rill_render_view *views = (rill_render_view *)snap->views;
    for (uint32_t i = 0; i < snap->view_count; i++) {
        if (views[i].camera == snap->view.camera) {
            views[i] = snap->view;
        } else if (v->opts->passthrough) {
            views[i].passthrough = (rill_passthrough)(v->opts->passthrough - 1);
        }
    }
    rill_cli_wireframe_apply(&v->opts->wireframe, &snap->wireframe);
    return true;
}

/* >>channels and picking ----------------------------------------------------------------------- */

#define GHOST_OPACITY 0.35f

/* Keys 1..4: the next mode of built-in channel `bit` (normal, hidden, wireframe, ghost). */
static void cycle_channel(rill_world *w, uint32_t bit) {
    rill_render_mode m = rill_channels_get_mode(w, bit, NULL);
    rill_render_mode next = m == RILL_RENDER_MODE_NORMAL      ? RILL_RENDER_MODE_HIDDEN
                            : m == RILL_RENDER_MODE_HIDDEN    ? RILL_RENDER_MODE_WIREFRAME
                            : m == RILL_RENDER_MODE_WIREFRAME ? RILL_RENDER_MODE_GHOST
                                                              : RILL_RENDER_MODE_NORMAL;
    rill_channels_set_mode(w, UINT64_C(1) << bit, next, GHOST_OPACITY);
}

/* This frame's input with the --press key of frame `frame` added (the viewer handles it as
 * a key pressed on the keyboard); `in` itself when there is none. */
static const rill_input *with_pressed(const rill_cli_viewer_opts *o, uint64_t frame,
                                      const rill_input *in, rill_input *copy) {
    if (!o->press || frame >= strlen(o->press)) {
        return in;
    }
    *copy = *in;
    copy->key_pressed[(unsigned char)o->press[frame]] = true;
    return copy;
}

/* "1 context normal  2 selectable hidden ..." for the overlay. */
static size_t channel_line(const rill_world *w, char *out, size_t cap) {
    static const char *const names[4] = {"context", "selectable", "preserve-id", "ghost"};
    size_t n = 0;
    for (uint32_t b = 0; b < 4 && n < cap; b++) {
        float op = 1.0f;
        rill_render_mode m = rill_channels_get_mode(w, b, &op);
        if (m == RILL_RENDER_MODE_GHOST) {
            n += (size_t)snprintf(out + n, cap - n, "%u %s ghost:%.2f  ", b + 1, names[b],
                                  (double)op);
        } else {
            n += (size_t)snprintf(out + n, cap - n, "%u %s %s  ", b + 1, names[b],
                                  rill_channels_mode_name(m));
        }
    }
    if (n < cap) {
        n += (size_t)snprintf(out + n, cap - n, "(keys 1-4)\n");
    }
    return RILL_MIN(n, cap);
}

/* Picks at window pixel (x, y) of a w x h window through `view`, from what renderer r drew;
 * writes the result line to out (and stdout when print). Gameplay hears of it through the Picked
 * event: scripts' on_event "pick" and C readers in the next app frame. A reflection probe whose
 * box the ray enters first (or that was hit) is named instead and, with out_probe, selected. */
static void pick_at(rill_renderer *r, rill_content *content, const rill_render_view *view, float x,
                    float y, float w, float h, bool print, char *out, size_t cap,
                    rill_entity *out_probe) {
    rill_app *app = rill_content_app(content);
    /* Every drawn kind: glTF models (assets), MeshInstance boxes (the renderer's meshes) and
     * terrain (its heights). */
    const rill_app_terrain *terrain = rill_content_terrain(content);
    rill_pick_desc d = {.opaque_blocks = true,
                        .terrain = terrain ? rill_app_terrain_system(terrain) : NULL};
    rill_render_pick_source(r, &d);
    rill_pick_hit hit;
    bool got = rill_channels_screen_ray(view->world_from_view, view->orthographic, view->fov_y,
                                        view->ortho_height, x, y, w, h, d.origin, d.dir) &&
               rill_channels_pick(rill_app_world(app), rill_app_assets(app), &d, &hit);
    rill_channels_send_pick(rill_app_world(app), got ? &hit : NULL, x, y);
    /* A reflection probe's box the ray enters before the geometry it hits (or the entity hit, when
     * it is a probe itself) is selected: its box draws as a wireframe. */
    float probe_at = 0.0f;
    rill_entity probe = viewer_probe_pick(rill_app_world(app), d.origin, d.dir,
                                          got ? hit.distance : FLT_MAX, &probe_at);
    if (!probe && got && viewer_is_probe(rill_app_world(app), hit.entity)) {
        probe = hit.entity;
        probe_at = hit.distance;
    }
    if (out_probe) {
        *out_probe = probe;
    }
    if (probe) {
        const char *name = rill_channels_pick_name(rill_app_world(app), probe);
        snprintf(out, cap, "picked probe %s%s(entity %u:%u) at %.1f m", name ? name : "",
                 name ? " " : "", RILL_ENTITY_INDEX(probe), RILL_ENTITY_GENERATION(probe),
                 (double)probe_at);
    } else if (got) {
        /* The name a user gave (the NM_ object, not the glTF node under it), else the entity as
         * index:generation, as log lines name entities. */
        const char *name = rill_channels_pick_name(rill_app_world(app), hit.entity);
        uint32_t index = RILL_ENTITY_INDEX(hit.entity), gen = RILL_ENTITY_GENERATION(hit.entity);
        if (name) {
            snprintf(out, cap, "picked %s (entity %u:%u) at %.1f m", name, index, gen,
                     (double)hit.distance);
        } else {
            snprintf(out, cap, "picked entity %u:%u at %.1f m", index, gen, (double)hit.distance);
        }
    } else {
        snprintf(out, cap, "picked nothing");
    }
    if (print) {
        printf("%s\n", out);
    }
}

/* --pick X,Y on the fw x fh picture r drew through `view`: a point outside it picks nothing (a ray
 * beyond the view could hit what the picture does not show) and says so on stderr. */
static void pick_option(const rill_cli_viewer_opts *opts, rill_renderer *r, rill_content *content,
                        rill_entity *out_probe, const rill_render_view *view, uint32_t fw,
                        uint32_t fh, char *out, size_t cap) {
    float x = opts->pick_x, y = opts->pick_y;
    if (x >= (float)fw || y >= (float)fh) {
        fprintf(stderr, "rill run: --pick %g,%g is outside the %ux%u picture\n", (double)x,
                (double)y, fw, fh);
        snprintf(out, cap, "picked nothing");
        printf("%s\n", out);
        return;
    }
    pick_at(r, content, view, x, y, (float)fw, (float)fh, true, out, cap, out_probe);
}

/* When --pick picks: with --frames N >= 2, on the picture of frame N - 1, just before the last
 * frame's update, so the last frame's scripts (on_event "pick") and systems handle it and the
 * last picture (--screenshot) shows what they did; else on the first frame's picture. */
static bool pick_before_last(const rill_cli_viewer_opts *opts) {
    return opts->has_pick && opts->frames >= 2;
}

/* F9: the next debug panel (none, stats, culling, cameras, material). Culling freezes the
 * frustum of the frame it starts on: fly away to see what it keeps. */
static void set_panel(viewer *v, rill_render_panel p) {
    v->panel = p;
    rill_render_debug_desc d = rill_cli_debug_desc(p, false);
    rill_renderer_set_debug(v->r, &d);
    printf("rill run: debug view %s\n", rill_render_panel_name(p));
}

/* The material panel's text (appended to v->text from byte n): what draws the entity at the
 * last pick (else the window's centre). */
static void material_text(viewer *v, const rill_render_snapshot *snap, uint32_t fw, uint32_t fh,
                          size_t n) {
    float x = v->pick_at[0], y = v->pick_at[1], w = v->pick_at[2], h = v->pick_at[3];
    if (!(w > 0.0f && h > 0.0f)) {
        x = (float)(fw / 2), y = (float)(fh / 2), w = (float)fw, h = (float)fh;
    }
    char json[16384];
    if (n < sizeof(v->text)) {
        rill_cli_debug_material(v->content, v->r, snap, x, y, w, h, v->text + n,
                                sizeof(v->text) - n, json, sizeof(json));
    }
    if (v->pick_json) {
        printf("material: %s\n", json);
        v->pick_json = false;
    }
}

/* F2 cycles the quality tier (Low -> Medium -> High -> Low), F3/F4 lower/raise the render scale
 * by 0.1 (of the logical window, [0.1, 2]), F7 switches vsync, F8 (Shift+F8) turns the sun half
 * an hour on (back). */
static void runtime_keys(viewer *v, const rill_input *in) {
    rill_renderer_settings rs;
    rill_renderer_get_settings(v->r, &rs);
    if (in->key_pressed[RILL_KEY_F1 + 1]) {
        rill_render_quality q = rs.quality == RILL_RENDER_QUALITY_HIGH  ? RILL_RENDER_QUALITY_LOW
                                : rs.quality == RILL_RENDER_QUALITY_LOW ? RILL_RENDER_QUALITY_MEDIUM
                                                                        : RILL_RENDER_QUALITY_HIGH;
        rill_renderer_set_quality(v->r, q);
        printf("rill run: quality %s\n", rill_cli_quality_name(q));
    }
    if (in->key_pressed[RILL_KEY_F1 + 6]) {
        rill_renderer_set_vsync(v->r, !rs.vsync);
        printf("rill run: vsync %s\n", rs.vsync ? "off" : "on");
    }
    if (in->key_pressed[RILL_KEY_F1 + 7]) { /* F8: the sun half an hour on (Shift: back) */
        bool back = in->key_down[RILL_KEY_LEFT_SHIFT] || in->key_down[RILL_KEY_RIGHT_SHIFT];
        v->hours = fmod(v->hours + (back ? 23.5 : 0.5), 24.0);
        rill_error err = {0};
        if (rill_render_set_time_of_day(rill_app_world(rill_content_app(v->content)),
                                        rill_content_render_components(v->content), v->hours,
                                        &err) == RILL_OK) {
            printf("rill run: time of day %.1f h\n", v->hours);
        } else {
            printf("rill run: %s\n", err.msg);
        }
    }
    float step = (float)in->key_pressed[RILL_KEY_F1 + 3] - (float)in->key_pressed[RILL_KEY_F1 + 2];
    if (step != 0.0f) {
        rill_renderer_set_render_scale(v->r, rs.render_scale + 0.1f * step);
        rill_renderer_get_settings(v->r, &rs);
        printf("rill run: render scale %.1f (3D %ux%u)\n", (double)rs.render_scale, rs.width_3d,
               rs.height_3d);
    }
}

/* Texture streaming's overlay lines: settings, resident bytes against the budget, states. */
static size_t texture_overlay(viewer *v, const rill_render_assets *ra, uint64_t gpu_bytes,
                              size_t at) {
    if (at >= sizeof(v->text)) {
        return 0;
    }
    rill_texstream_settings ts = rill_render_assets_get_texture_streaming(ra);
    rill_render_texture_streaming_stats tx;
    rill_render_assets_get_texture_streaming_stats(ra, &tx);
    char budget[32] = "none";
    if (ts.budget_bytes) {
        snprintf(budget, sizeof budget, "%.1f MB", (double)ts.budget_bytes / 1e6);
    }
    int n = snprintf(v->text + at, sizeof(v->text) - at,
                     "textures %s: full %.0f m, low %.0f m, budget %s%s\n"
                     "  streamed %.1f MB of %.1f MB all-full (GPU %.1f MB); %u full, %u low, "
                     "%u swapping; read %.1f MB\n",
                     ts.enabled ? "streaming" : "all full", (double)ts.full_distance,
                     (double)rill_texstream_low_distance(&ts), budget,
                     v->heatmap ? ", heatmap" : "", (double)tx.decisions.resident_bytes / 1e6,
                     (double)tx.decisions.all_full_bytes / 1e6, (double)gpu_bytes / 1e6,
                     tx.decisions.full, tx.decisions.low, tx.decisions.in_flight + tx.replacing,
                     (double)tx.bytes_read / 1e6);
    return n > 0 ? RILL_MIN((size_t)n, sizeof(v->text) - at - 1) : 0;
}

/* The stats overlay from byte n of v->text on: renderer counters, the effects that ran with their
 * GPU time, the tier and scale, streaming and LOD. */
static void overlay_text(viewer *v, rill_app *app, const rill_renderer_settings *rs, size_t n) {
    rill_render_stats st;
    rill_renderer_stats(v->r, &st);
    size_t cap = sizeof(v->text);
    n += rill_render_stats_format(&st, v->frame_ms, v->text + n, cap - n);
    if (n + 1 < cap) {
        n += rill_cli_effects_format(v->r, v->text + n, cap - n);
    }
    rill_stream_stats ss;
    rill_stream_get_stats(rill_app_stream(app), &ss);
    rill_lod_stats ls;
    rill_lod_system_get_stats(rill_app_models_lod(rill_content_models(v->content)), &ls);
    if (n + 1 < cap) {
        n += (size_t)snprintf(
            v->text + n, cap - n,
            "\nquality %s (F2)  scale %.1f (F3/F4) -> 3D %ux%u  shadows %u  present %s (F7)\n"
            "entities %u  instances %u loaded, %u loading, %u unloaded\n"
            "lod %u / %u / %u / %u  streaming %.2f ms\n",
            rill_cli_quality_name(rs->quality), (double)rs->render_scale, rs->width_3d,
            rs->height_3d, rs->shadow_map_size, rs->present_mode,
            rill_world_entity_count(rill_app_world(app)), ss.loaded, ss.loading,
            ss.unloaded + ss.failed, ls.per_level[0], ls.per_level[1], ls.per_level[2],
            ls.per_level[3], (double)rill_app_last_streaming_ns(app) / 1e6);
    }
    if (n + 1 < cap) {
        n += texture_overlay(v, rill_app_models_render_assets(rill_content_models(v->content)),
                             st.texture_bytes, n);
    }
    if (n + 1 < cap) {
        n += channel_line(rill_app_world(app), v->text + n, cap - n);
    }
    if (n + 1 < cap && v->picked[0]) {
        n += (size_t)snprintf(v->text + n, cap - n, "%s\n", v->picked);
    }
    if (n + 1 < cap) {
        snprintf(v->text + n, cap - n,
                 "speed %.1f  (F1 hides this, F5 texture streaming, F6 heatmap)", v->cam.speed);
    }
}

/* The app's render hook: input, camera, overlay, one frame. */
static void viewer_render(rill_app *app, void *user) {
    viewer *v = user;
    rill_input scripted;
    const rill_input *in = with_pressed(v->opts, v->frames, rill_window_input(v->win), &scripted);
    if (in->key_pressed[RILL_KEY_ESCAPE]) {
        rill_window_request_close(v->win);
    }
    if (in->key_pressed[RILL_KEY_F1]) {
        v->overlay = !v->overlay;
    }
    for (uint32_t b = 0; b < 4; b++) {
        if (in->key_pressed['1' + b]) {
            cycle_channel(rill_app_world(app), b);
        }
    }
    if (in == &scripted) {
        char line[256];
        size_t n = channel_line(rill_app_world(app), line, sizeof(line) - 1);
        line[n] = 0;
        printf("pressed %c: %s", v->opts->press[v->frames], line);
    }
    runtime_keys(v, in);
    if (v->opts->effects) {
        rill_cli_effects_poll(v->opts->effects); /* plugin hot reload */
    }
    rill_render_assets *ra = rill_app_models_render_assets(rill_content_models(v->content));
    if (in->key_pressed[RILL_KEY_F1 + 4]) { /* F5: texture streaming on/off, at run time */
        rill_texstream_settings ts = rill_render_assets_get_texture_streaming(ra);
        ts.enabled = !ts.enabled;
        rill_render_assets_set_texture_streaming(ra, &ts);
    }
    if (in->key_pressed[RILL_KEY_F1 + 8]) { /* F9: the next debug panel */
        set_panel(v, (rill_render_panel)((v->panel + 1) % RILL_RENDER_PANEL_NUM));
    }
    if (in->key_pressed[RILL_KEY_F1 + 5]) { /* F6: texture state heatmap */
        v->heatmap = !v->heatmap;
        rill_render_assets_set_texture_heatmap(ra, v->heatmap);
    }
    uint64_t now = rill_time_ns();
    if (!v->start_ns) {
        v->start_ns = now;
    }
    float dt = v->last_ns ? (float)((double)(now - v->last_ns) * 1e-9) : 1.0f / 60.0f;
    v->frame_ms = v->last_ns ? (double)(now - v->last_ns) * 1e-6 : 0.0;
    v->last_ns = now;
    camera_update(&v->cam, in, RILL_MIN(dt, 0.1f));
    /* Streaming and the LOD bands measure from the world's camera: it follows the fly camera, so
     * districts load and levels switch where the viewer looks (from the next frame's
     * post_update). */
    rill_entity world_cam = rill_lod_camera(rill_app_world(app), rill_app_get_run_mode(app), NULL);
    if (world_cam) {
        rill_transform t = rill_transform_identity();
        memcpy(t.translation, v->cam.eye, sizeof(t.translation));
        rill_world_set_transform(rill_app_world(app), world_cam, &t);
    }
    uint32_t fw, fh;
    rill_window_framebuffer_size(v->win, &fw, &fh);
    if (!fw || !fh) {
        return; /* minimized: nothing to draw into */
    }
    rill_error err = {0};
    rill_render_snapshot snap;
    if (!build_snapshot(v, &snap, &err)) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        v->rc = 1;
        rill_app_request_exit(app);
        return;
    }
    /* Window coordinates and framebuffer pixels may differ (HiDPI): the ray uses fractions. */
    if (v->frames == 0 && v->opts->has_pick && !pick_before_last(v->opts)) {
        pick_option(v->opts, v->r, v->content, &v->probe, &snap.view, fw, fh, v->picked,
                    sizeof(v->picked));
    }
    if (v->frames == 0 && v->opts->has_pick) { /* the material panel's pixel: --pick */
        v->pick_at[0] = v->opts->pick_x, v->pick_at[1] = v->opts->pick_y;
        v->pick_at[2] = (float)fw, v->pick_at[3] = (float)fh;
    }
    /* Its JSON on the last of --frames (models loaded by then), else the first frame. */
    uint64_t last = v->opts->frames ? v->opts->frames - 1u : 0u;
    v->pick_json = v->opts->has_pick && v->frames == last;
    if (in->mouse_pressed[RILL_MOUSE_LEFT]) {
        uint32_t ww, wh;
        rill_window_size(v->win, &ww, &wh);
        v->pick_at[0] = (float)in->mouse_x, v->pick_at[1] = (float)in->mouse_y;
        v->pick_at[2] = (float)ww, v->pick_at[3] = (float)wh;
        if (ww && wh) {
            pick_at(v->r, v->content, &snap.view, (float)in->mouse_x, (float)in->mouse_y, (float)ww,
                    (float)wh, false, v->picked, sizeof(v->picked), &v->probe);
        }
    }
    v->shown = snap.view, v->shown_w = fw, v->shown_h = fh;
    if (!add_probe_box(v, &snap, &err)) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        v->rc = 1;
        rill_app_request_exit(app);
        return;
    }
    rill_renderer_settings rs;
    rill_renderer_get_settings(v->r, &rs);
    bool toast = rs.hint[0] && now - v->start_ns < RUN_TOAST_NS && !v->opts->no_overlay;
    bool material = v->panel == RILL_RENDER_PANEL_MATERIAL;
    if (v->overlay || toast || material) {
        size_t n = 0;
        v->text[0] = 0;
        if (toast) {
            n = (size_t)snprintf(v->text, sizeof(v->text), "hint: %s\n", rs.hint);
        }
        if (v->overlay && n < sizeof(v->text)) {
            overlay_text(v, app, &rs, n);
            n = strlen(v->text);
            if (material && n + 1 < sizeof(v->text)) {
                v->text[n++] = '\n', v->text[n] = 0;
            }
        }
        if (material) {
            material_text(v, &snap, fw, fh, n);
        }
        rill_renderer_set_overlay_text(v->r, v->text);
    } else {
        rill_renderer_set_overlay_text(v->r, NULL);
    }
    if (v->capture) {
        rill_renderer_request_capture(v->r);
    }
    if (rill_renderer_render(v->r, &snap, &err) != RILL_OK) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        v->rc = 1;
        rill_app_request_exit(app);
        return;
    }
    v->frames++;
    if (v->capture) {
        v->capture = false;
        if (rill_renderer_write_capture_png(v->r, v->opts->screenshot, &err) != RILL_OK) {
            fprintf(stderr, "rill run: %s\n", err.msg);
            v->rc = 1;
        } else {
            v->captured = true;
            printf("screenshot %s\n", v->opts->screenshot);
        }
    }
}

static void print_notes(const char *notes) {
    while (notes && *notes) {
        const char *nl = strchr(notes, '\n');
        int n = nl ? (int)(nl - notes) : (int)strlen(notes);
        fprintf(stderr, "note: %.*s\n", n, notes);
        notes = nl ? nl + 1 : NULL;
    }
}

/* The fly camera starts where the world's primary camera is (opts->eye/target override it). */
static bool start_camera(viewer *v, rill_error *err) {
    rill_render_snapshot snap;
    if (rill_content_snapshot(v->content, &snap, err) != RILL_OK) {
        return false;
    }
    camera_from_matrix(&v->cam, snap.view.world_from_view);
    if (v->opts->has_start) {
        const float *e = v->opts->eye, *t = v->opts->target;
        float f[3] = {t[0] - e[0], t[1] - e[1], t[2] - e[2]};
        float len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        memcpy(v->cam.eye, e, sizeof(v->cam.eye));
        if (len > 1e-6f) {
            v->cam.pitch = asinf(f[1] / len);
            v->cam.yaw = atan2f(-f[0], -f[2]);
        }
    }
    float far_plane = v->opts->far_plane > 0.0f ? v->opts->far_plane : snap.view.far_plane;
    v->cam.speed =
        v->opts->speed > 0.0f ? v->opts->speed : RILL_CLAMP(far_plane * 0.02f, 1.0f, 100.0f);
    return true;
}

/* The window's input (NULL: none, headless) as the scripts read it (rill.key_down, rill.mouse,
 * rill.gamepad_*, ...), with the --key presses of frame `frame` (1 = the first) added. */
static void scripts_input(const rill_cli_viewer_opts *opts, rill_content *content,
                          const rill_input *in, uint64_t frame) {
    rill_script_input si;
    memset(&si, 0, sizeof(si));
    if (in) {
        memcpy(si.key_down, in->key_down, sizeof(si.key_down));
        memcpy(si.key_pressed, in->key_pressed, sizeof(si.key_pressed));
        memcpy(si.mouse_down, in->mouse_down, sizeof(si.mouse_down));
        memcpy(si.mouse_pressed, in->mouse_pressed, sizeof(si.mouse_pressed));
        si.mouse_x = in->mouse_x, si.mouse_y = in->mouse_y;
        si.mouse_dx = in->mouse_dx, si.mouse_dy = in->mouse_dy;
        si.scroll_y = in->scroll_y;
        for (int g = 0; g < RILL_GAMEPAD_MAX; g++) {
            const rill_gamepad *p = &in->gamepads[g];
            rill_script_gamepad *q = &si.gamepads[g];
            q->connected = p->connected;
            memcpy(q->button_down, p->button_down, sizeof(q->button_down));
            memcpy(q->button_pressed, p->button_pressed, sizeof(q->button_pressed));
            memcpy(q->axis, p->axis, sizeof(q->axis));
        }
    }
    for (uint32_t i = 0; i < opts->key_count; i++) {
        if (opts->keys[i].frame == frame) {
            si.key_down[opts->keys[i].code] = si.key_pressed[opts->keys[i].code] = true;
        }
    }
    rill_scripts_set_input(rill_content_scripts(content), &si);
}

/* --time-of-day: turns the world's sun (false after printing why: no DirectionalLight). */
static bool apply_time_of_day(const rill_cli_viewer_opts *opts, rill_content *content) {
    rill_error err = {0};
    if (opts->time_of_day_set &&
        rill_render_set_time_of_day(rill_app_world(rill_content_app(content)),
                                    rill_content_render_components(content), opts->time_of_day,
                                    &err) != RILL_OK) {
        fprintf(stderr, "rill run: --time-of-day: %s\n", err.msg);
        return false;
    }
    return true;
}

/* --variant: every Model in that material variant (false after printing why). */
static bool apply_variant(const rill_cli_viewer_opts *opts, rill_content *content) {
    rill_error err = {0};
    if (opts->variant && rill_cli_apply_variant(content, opts->variant, &err) != RILL_OK) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        return false;
    }
    return true;
}

/* --headless: the content on an offscreen renderer for opts->frames frames, each drawn from the
 * world's own cameras; the same frame loop as the window's (scripts, physics, streaming), with
 * no input. --screenshot saves the last frame. */
static int run_headless(const rill_cli_viewer_opts *opts, rill_content *content) {
    rill_error err = {0};
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    rill_content_renderer_desc(content, &rd);
    rd.vsync = false;
    if (opts->render_thread) {
        rd.render_thread = opts->render_thread > 0;
    }
    if (opts->width) {
        rd.width = opts->width, rd.height = opts->height;
    }
    if (opts->quality) {
        rd.quality = (rill_render_quality)opts->quality;
    }
    rill_cli_step("starting the renderer");
    rill_renderer *r = rill_renderer_create(&rd, &err);
    int rc = 1;
    uint64_t f = 0;
    /* As with a window: plugins before the scene is bound (it may hold their settings),
     * --effect after the load (the default camera exists then). */
    if (r) {
        rill_cli_step("loading plugins");
    }
    if (!r ||
        (opts->effects && rill_cli_effects_attach(opts->effects, r, content, &err) != RILL_OK)) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rill_cli_step("loading the content");
    if (rill_content_load(content, r, &err) != RILL_OK ||
        (opts->effects && rill_cli_effects_apply(opts->effects, content, r, &err) != RILL_OK)) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rill_cli_step_done("%u entities", rill_world_entity_count(rill_content_world(content)));
    print_notes(rill_content_notes(content));
    if (!apply_time_of_day(opts, content) || !apply_variant(opts, content)) {
        goto done;
    }
    rill_app *app = rill_content_app(content);
    rill_cli_step("running %llu frames", (unsigned long long)opts->frames);
    uint32_t pw = rd.width ? rd.width : 1280u, ph = rd.height ? rd.height : 720u;
    char picked[128];
    rill_render_view shown;
    memset(&shown, 0, sizeof(shown));
    for (; f < opts->frames && !rill_app_exit_requested(app); f++) {
        scripts_input(opts, content, NULL, f + 1u);
        if (pick_before_last(opts) && f + 1u == opts->frames) {
            pick_option(opts, r, content, NULL, &shown, pw, ph, picked, sizeof(picked));
        }
        rill_app_frame(app);
        rill_render_snapshot snap;
        if (rill_content_snapshot(content, &snap, &err) != RILL_OK ||
            rill_renderer_render(r, &snap, &err) != RILL_OK) {
            fprintf(stderr, "rill run: %s\n", err.msg);
            goto done;
        }
        shown = snap.view;
        if (f == 0 && opts->has_pick && !pick_before_last(opts)) {
            pick_option(opts, r, content, NULL, &shown, pw, ph, picked, sizeof(picked));
        }
    }
    if (opts->screenshot && rill_renderer_write_png(r, opts->screenshot, &err) != RILL_OK) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rill_cli_progress_stop();
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    rill_scripts_stats ss;
    rill_scripts_get_stats(rill_content_scripts(content), &ss);
    printf("rill run: %llu frames headless on %s; scripts: %u files, %u running, %u errors\n",
           (unsigned long long)f, st.device_name, ss.files, ss.running,
           ss.errors + ss.compile_errors);
    rc = st.validation_messages ? 1 : 0;
    if (st.validation_messages) {
        fprintf(stderr, "rill run: %u validation messages\n", st.validation_messages);
    }
done:
    rill_cli_progress_stop();
    rill_content_release(content);
    if (opts->effects) {
        rill_cli_effects_release(opts->effects);
    }
    rill_renderer_destroy(r);
    return rc;
}

int rill_cli_viewer_run(const rill_cli_viewer_opts *opts, rill_content *content) {
    if (opts->headless) {
        return run_headless(opts, content);
    }
    if (!rill_window_display_available()) {
        fprintf(stderr, "rill run: no display: neither DISPLAY nor WAYLAND_DISPLAY is set (use "
                        "`rill render` for headless output, or run under xvfb-run)\n");
        return 1;
    }
    viewer *v = rill_calloc(1, sizeof(viewer));
    if (!v) {
        fprintf(stderr, "rill run: out of memory\n");
        return 1;
    }
    v->opts = opts;
    v->content = content;
    v->overlay = !opts->no_overlay;
    rill_error err = {0};
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    rill_content_renderer_desc(content, &rd);
    if (opts->render_thread) {
        rd.render_thread = opts->render_thread > 0;
    }
    const rill_project *p = rill_content_project(content);
    rill_window_desc wd = {.title = opts->title ? opts->title : p->window.title,
                           .width = opts->width ? opts->width : rd.width,
                           .height = opts->height ? opts->height : rd.height,
                           .fullscreen = opts->fullscreen >= 0 ? opts->fullscreen != 0
                                                               : p->window.fullscreen};
    int rc = 1;
    rill_app *app = rill_content_app(content);
    rill_cli_step("opening the window and starting the renderer");
    if (!(v->win = rill_window_create(&wd, &err))) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rd.width = rd.height = 0; /* the surface decides */
    rd.glfw_window = rill_window_glfw(v->win);
    if (opts->vsync >= 0) {
        rd.vsync = opts->vsync != 0;
    }
    rd.shadow_distance = opts->shadow_distance;
    if (opts->quality) {
        rd.quality = (rill_render_quality)opts->quality;
    }
    if (opts->render_scale > 0.0f) {
        rd.render_scale = opts->render_scale;
    }
    if (!(v->r = rill_renderer_create(&rd, &err))) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    /* Plugins before the scene is bound (it may hold their settings), --effect after the load
     * (the default camera exists then). */
    rill_cli_step("loading plugins");
    if (opts->effects && rill_cli_effects_attach(opts->effects, v->r, content, &err) != RILL_OK) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rill_cli_step("loading the content");
    if (rill_content_load(content, v->r, &err) != RILL_OK || !start_camera(v, &err) ||
        (opts->effects && rill_cli_effects_apply(opts->effects, content, v->r, &err) != RILL_OK)) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rill_cli_step_done("%u entities", rill_world_entity_count(rill_app_world(app)));
    v->box_mesh = viewer_probe_box_mesh(v->r, &err);
    v->box_material = rill_render_material_create(v->r, &(rill_material_desc){0}, &err);
    rill_cli_step("drawing the first frame");
    print_notes(rill_content_notes(content));
    v->hours = opts->time_of_day_set ? opts->time_of_day : 12.0;
    if (!apply_time_of_day(opts, content) || !apply_variant(opts, content)) {
        goto done;
    }
    for (uint32_t i = 0; i < opts->channel_count; i++) {
        uint64_t ch = 0;
        rill_render_mode mode;
        float op = 1.0f;
        if (rill_channels_parse_assignment(opts->channels[i], &ch, &mode, &op, NULL)) {
            rill_channels_set_mode(rill_app_world(app), ch, mode, op);
        }
    }
    if (opts->debug_panel) {
        set_panel(v, (rill_render_panel)opts->debug_panel);
    }
    rill_app_set_render_hook(app, viewer_render, v);
    v->rc = 0;
    while (!rill_app_exit_requested(app)) {
        rill_window_poll(v->win);
        bool closing = rill_window_should_close(v->win);
        bool last = opts->frames && v->frames + 1u >= opts->frames;
        if (closing && (!opts->screenshot || v->captured)) {
            break;
        }
        /* The last frame (by --frames, or the one after a close request) is the screenshot. */
        if (opts->screenshot && (last || closing)) {
            v->capture = true;
        }
        scripts_input(opts, content, rill_window_input(v->win), v->frames + 1u);
        if (pick_before_last(opts) && v->frames + 1u == opts->frames && v->shown_w) {
            pick_option(opts, v->r, content, &v->probe, &v->shown, v->shown_w, v->shown_h,
                        v->picked, sizeof(v->picked));
        }
        rill_app_frame(app);
        if (v->frames == 1) {
            rill_cli_progress_stop(); /* the first frame is on screen */
        }
        if (closing || (opts->frames && v->frames >= opts->frames)) {
            break;
        }
    }
    rill_app_set_render_hook(app, NULL, NULL);
    rc = v->rc;
    if (opts->screenshot && !v->captured && rc == 0) {
        /* Only a window that stayed minimized to the end gets here. */
        fprintf(stderr, "rill run: no frame was drawn to save as %s\n", opts->screenshot);
        rc = 1;
    }
    rill_render_stats st;
    rill_renderer_stats(v->r, &st);
    printf("rill run: %llu frames on %s\n", (unsigned long long)v->frames, st.device_name);
    if (st.validation_messages) {
        fprintf(stderr, "rill run: %u validation messages\n", st.validation_messages);
        rc = 1;
    }
done:
    rill_cli_progress_stop();
    rill_content_release(content);
    if (opts->effects) {
        rill_cli_effects_release(opts->effects);
    }
    rill_array_free(&v->instances);
    rill_renderer_destroy(v->r);
    rill_window_destroy(v->win);
    rill_free(v);
    return rc;
}

/* >>command ----------------------------------------------------------------------------------- */

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill run [INPUT] [--pack FILE] [--size WxH] [--fullscreen | --window]\n"
        "                [--vsync on|off] [--frames N]\n"
        "                [--screenshot out.png] [--channel NAME=MODE]... [--pick X,Y]\n"
        "                [--press KEYS] [--key KEY@FRAME,...]\n"
        "                [--wireframe-fade START,END[,MIN_ALPHA]]\n"
        "                [--wireframe-color R,G,B,A]\n"
        "                [--quality low|medium|high] [--render-scale S]\n"
        "                [--effect NAME[:field=value,...]]... [--plugins DIR]... [--no-plugins]\n"
        "                [--time-of-day HOURS] [--variant NAME] [--headless --frames N]\n"
        "                [--strict]\n"
        "                [--no-overlay] [--passthrough off|mixed]\n"
        "                [--debug-view stats|culling|cameras|material]\n"
        "  INPUT             a project folder (or its project.toml), a .rsn scene, a .glb/.gltf\n"
        "                    model, a .rpak (as --pack), builtin:spheres or builtin:cubes:N; none\n"
        "                    with --pack (or a pack appended to this program) plays the pack's\n"
        "                    project\n"
        "  --pack FILE       mount a .rpak before the project folder; INPUT may then be a path\n"
        "                    inside it\n"
        "  --size WxH        window size (default: the project's [window] size, else 1280x720)\n"
        "  --fullscreen      full screen on the primary monitor, at its resolution\n"
        "  --window          in a window (default, unless the project's [window] fullscreen)\n"
        "  --vsync on|off    wait for the display (default: the project's [window] vsync, on)\n"
        "  --frames N        quit after N frames (default: run until closed)\n"
        "  --screenshot PNG  save the last frame\n"
        "  --headless        no window: run --frames N frames (scripts, physics, streaming,\n"
        "                    an offscreen renderer) and quit; for tests and servers\n"
        "  --no-render-thread\n"
        "                    record and submit frames on the main thread (default: on a render\n"
        "                    thread while the app's next frame updates, as [rendering]\n"
        "                    render_thread in project.toml, default true)\n"
        "  --render-thread   on a render thread even where the project turns it off\n"
        "  --channel NAME=MODE  start a scene channel in a render mode (repeatable): NAME is\n"
        "                    context, selectable, preserve-identity, ghost or bitN; MODE is\n"
        "                    normal, hidden, wireframe or ghost[:OPACITY]\n"
        "  --pick X,Y        pick at pixel X,Y as a click would and print what was hit: on the\n"
        "                    picture before the last of --frames, so the last frame's scripts\n"
        "                    (on_event pick) handle it (with --frames 1 or none: the first\n"
        "                    frame); headless too\n"
        "  --press KEYS      press the channel keys KEYS (1-4), one a frame from the first, as\n"
        "                    on the keyboard; each press prints the overlay's channel line\n"
        "  --key KEY@FRAME[,KEY@FRAME...]\n"
        "                    press script keys (rill.key_pressed names: l, space, f1, ...) on\n"
        "                    those frames (1 = the first), for the scripts only; headless too\n"
        "  --wireframe-fade START,END[,MIN_ALPHA]\n"
        "                    fade wireframe lines from full at START metres to MIN_ALPHA\n"
        "                    (default 0.08) of it at END, as `rill render`\n"
        "  --wireframe-color R,G,B,A\n"
        "                    wireframe line colour, linear (default 0.2,0.85,1,0.65)\n"
        "  --quality low|medium|high\n"
        "                    quality tier, a ceiling on effects (default: the project's\n"
        "                    [rendering] graphics_quality, Medium); F2 cycles it while running\n"
        "  --render-scale S  3D resolution as a fraction of the logical window, in [0.1, 2],\n"
        "                    never above the display (default: the project's); F3/F4 change it\n"
        "  --effect NAME[:field=value,...]\n"
        "                    put effect settings on every camera (repeatable): any routed\n"
        "                    settings component by name or effect id (Bloom, ssao:quality=Ultra,\n"
        "                    Sepia:strength=0.5, DistanceFog:color=1,0.3,0.3,1). Effects the\n"
        "                    scene holds apply without it\n"
        "  --variant NAME    draw every model in its glTF material variant NAME\n"
        "                    (KHR_materials_variants); an error when no model has it\n"
        "  --time-of-day HOURS\n"
        "                    turn the sun (the DirectionalLight marked sun, else the first) to\n"
        "                    that hour in [0, 24] (latitude 45, equinox; 12 = noon); F8 /\n"
        "                    Shift+F8 step it half an hour while running\n"
        "  --plugins DIR     also load the effect plugins of DIR (repeatable; the shipped\n"
        "                    plugins load anyway); edited shaders and rebuilt libraries are\n"
        "                    swapped in while running\n"
        "  --no-plugins      load no plugins, not even the shipped ones (`rill plugins`)\n"
        "  --debug-view stats|culling|cameras|material\n"
        "                    start with a debug view (F9 cycles them; see `rill render --help`);\n"
        "                    with --pick, material prints what draws the picked entity as one\n"
        "                    JSON line (\"material: {...}\")\n"
        "  --no-overlay      start with the overlay (stats, hints) hidden, for screenshots;\n"
        "                    F1 shows and hides it\n"
        "  --strict          unknown components and missing assets in the scenes are errors\n"
        "                    (without it they are warnings naming FILE:LINE:COL)\n"
        "  --passthrough off|mixed\n"
        "                    every camera's passthrough (default: each Camera's own). off:\n"
        "                    ghost entities draw as ordinary opaque geometry (their opacity\n"
        "                    shows nowhere); mixed: the image's alpha is 0 where nothing drew\n"
        "                    and a ghost's opacity on its pixels (see --screenshot), for\n"
        "                    compositing over a camera feed\n"
        "controls: WASD move, Q/E down/up, right mouse drag to look, Shift fast, scroll "
        "speed,\n"
        "          1 2 3 4 cycle the mode of the context, selectable, preserve-identity and\n"
        "          ghost channels (normal, hidden, wireframe, ghost 0.35), left click picks the\n"
        "          nearest selectable entity (named in the overlay; a reflection probe's box in\n"
        "          front of it is picked instead and drawn as a wireframe box), F1 overlay "
        "(effects with\n"
        "          their GPU time), F2 quality tier, F3/F4 render scale, F5 texture streaming\n"
        "          on/off, F6 texture state heatmap, F7 vsync, F8 / Shift+F8 sun +/- half an "
        "hour,\n"
        "          F9 debug views (stats, culling: the frustum freezes, fly away to see it,\n"
        "          cameras, material: what draws the last clicked entity, then none),\n"
        "          Esc quit. Every active camera is shown as the scene lays them out (split\n"
        "          screen, picture in picture); the fly camera drives the primary one.\n"
        "          Needs a display (DISPLAY or WAYLAND_DISPLAY).\n"
        "A scene with no light gets a default sun and one with no camera a camera framing it; "
        "each\n"
        "default is stated on stderr as a note.\n");
}

/* --key KEY@FRAME[,KEY@FRAME...]: script key names (rill.key_down's) and 1-based frames. */
static bool parse_keys(const char *text, rill_cli_viewer_opts *o) {
    const char *p = text;
    while (*p) {
        const char *at = strchr(p, '@'), *end = strchr(p, ',');
        if (!end) {
            end = p + strlen(p);
        }
        char name[32], *stop = NULL;
        size_t n = at && at < end ? (size_t)(at - p) : 0;
        unsigned long long frame = n ? strtoull(at + 1, &stop, 10) : 0;
        if (n && n < sizeof(name)) {
            memcpy(name, p, n);
            name[n] = 0;
        }
        int code = n && n < sizeof(name) ? rill_scripts_key_code(name) : -1;
        if (code < 0 || stop != end || frame < 1 || frame > RUN_MAX_FRAMES ||
            o->key_count >= RILL_COUNTOF(o->keys)) {
            fprintf(stderr,
                    "rill run: bad --key '%s' (want KEY@FRAME[,KEY@FRAME...], at most %zu, KEY a "
                    "script key name such as l, space, f1, FRAME from 1)\n",
                    text, RILL_COUNTOF(o->keys));
            return false;
        }
        o->keys[o->key_count].code = code;
        o->keys[o->key_count++].frame = frame;
        p = *end ? end + 1 : end;
    }
    return o->key_count > 0;
}

static const char *const PASSTHROUGH_NAMES[] = {"off", "mixed", NULL};
static const char *const PANELS[] = {"stats", "culling", "cameras", "material", NULL};
static const int PANEL_VALUES[] = {RILL_RENDER_PANEL_STATS, RILL_RENDER_PANEL_CULLING,
                                   RILL_RENDER_PANEL_CAMERAS, RILL_RENDER_PANEL_MATERIAL};
static const int PASSTHROUGH_VALUES[] = {1 + RILL_PASSTHROUGH_OFF, 1 + RILL_PASSTHROUGH_MIXED};
static const char *const ON_OFF[] = {"on", "off", NULL};
static const int ON_OFF_VALUES[] = {1, 0};

int rill_cmd_run(int argc, char **argv) {
    rill_cli_effects fx;
    memset(&fx, 0, sizeof(fx));
    rill_cli_viewer_opts o = {.vsync = -1, .fullscreen = -1, .effects = &fx};
    bool fullscreen = false, windowed = false, strict = false, thread_on = false,
         thread_off = false;
    const char *input = NULL, *pack = NULL, *wire_fade = NULL, *wire_color = NULL, *keys = NULL;
    const rill_cli_opt opts[] = {
        {"--size", RILL_CLI_OPT_SIZE, &o.width, &o.height},
        {"--fullscreen", RILL_CLI_OPT_FLAG, &fullscreen},
        {"--window", RILL_CLI_OPT_FLAG, &windowed},
        {"--vsync", RILL_CLI_OPT_ENUM, &o.vsync, .names = ON_OFF, .values = ON_OFF_VALUES},
        RILL_CLI_QUALITY_OPT(&o.quality),
        {"--render-scale", RILL_CLI_OPT_FLOAT, &o.render_scale, .min = 0.1, .max = 2,
         .want = "[0.1, 2]"},
        {"--frames", RILL_CLI_OPT_U64, &o.frames, .min = 1, .max = (double)RUN_MAX_FRAMES},
        {"--screenshot", RILL_CLI_OPT_STRING, &o.screenshot},
        {"--pack", RILL_CLI_OPT_STRING, &pack},
        {"--channel", RILL_CLI_OPT_CHANNEL, o.channels, &o.channel_count,
         .max = RILL_COUNTOF(o.channels)},
        {"--pick", RILL_CLI_OPT_POINT, &o.pick_x, &o.pick_y, .min = 0, .max = 16384,
         .want = "X,Y window pixels", .given = &o.has_pick},
        {"--press", RILL_CLI_OPT_STRING, &o.press},
        {"--debug-view", RILL_CLI_OPT_ENUM, &o.debug_panel, .names = PANELS,
         .values = PANEL_VALUES},
        {"--key", RILL_CLI_OPT_STRING, &keys},
        {"--wireframe-fade", RILL_CLI_OPT_STRING, &wire_fade},
        {"--wireframe-color", RILL_CLI_OPT_STRING, &wire_color},
        {"--headless", RILL_CLI_OPT_FLAG, &o.headless},
        {"--variant", RILL_CLI_OPT_STRING, &o.variant},
        {"--time-of-day", RILL_CLI_OPT_FLOAT, &o.time_of_day, .min = 0, .max = 24,
         .want = "hours in [0, 24]", .given = &o.time_of_day_set},
        {"--strict", RILL_CLI_OPT_FLAG, &strict},
        {"--no-overlay", RILL_CLI_OPT_FLAG, &o.no_overlay},
        {"--render-thread", RILL_CLI_OPT_FLAG, &thread_on},
        {"--no-render-thread", RILL_CLI_OPT_FLAG, &thread_off},
        {"--passthrough", RILL_CLI_OPT_ENUM, &o.passthrough, .names = PASSTHROUGH_NAMES,
         .values = PASSTHROUGH_VALUES},
    };
    const rill_cli_parser p = {"run", opts, RILL_COUNTOF(opts), &input, &fx, usage};
    int prc = rill_cli_parse(&p, argc, argv);
    if (prc) {
        return prc < 0 ? 0 : prc;
    }
    if (rill_cli_render_thread("run", thread_on, thread_off, &o.render_thread)) {
        return 2;
    }
    if (!input && !pack && !rill_cli_has_appended_pack()) {
        fprintf(stderr, "rill run: missing INPUT (a project folder, scene, model or --pack)\n");
        usage(stderr);
        return 2;
    }
    if (fullscreen && windowed) {
        fprintf(stderr, "%s: --fullscreen and --window contradict each other\n",
                rill_cli_who("run"));
        return 2;
    }
    if (fullscreen || windowed) {
        o.fullscreen = fullscreen ? 1 : 0;
    }
    if ((wire_fade && !rill_cli_wireframe_fade("run", wire_fade, &o.wireframe)) ||
        (wire_color && !rill_cli_wireframe_color("run", wire_color, &o.wireframe))) {
        return 2;
    }
    if (o.headless && !o.frames) {
        fprintf(stderr, "%s: --headless needs --frames N (there is no window to close)\n",
                rill_cli_who("run"));
        return 2;
    }
    if (o.press && (!o.press[0] || strspn(o.press, "1234") != strlen(o.press))) {
        fprintf(stderr, "rill run: bad --press '%s': the channel keys 1, 2, 3 and 4 only\n",
                o.press);
        return 2;
    }
    if (o.press && o.frames && strlen(o.press) > o.frames) {
        fprintf(stderr,
                "rill run: --press '%s' has %zu keys but --frames %llu presses only %llu (one a "
                "frame)\n",
                o.press, strlen(o.press), (unsigned long long)o.frames,
                (unsigned long long)o.frames);
        return 2;
    }
    if (keys && !parse_keys(keys, &o)) {
        return 2;
    }
    char why[1024];
    if (o.screenshot && !rill_cli_writable(o.screenshot, why, sizeof(why))) {
        fprintf(stderr, "%s: cannot write --screenshot: %s\n", rill_cli_who("run"), why);
        return 1;
    }
    rill_error err = {0};
    /* Saving a loose script reloads it while the game runs (docs/scripting.md). */
    rill_content_desc cd = {.input = input, .pack = pack, .hot_reload = true};
    rill_cli_content_hooks(&cd);
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        return 1;
    }
    rill_scene_loader_set_strict(rill_app_scenes(rill_content_app(c)), strict);
    if (rill_content_get_kind(c) != RILL_CONTENT_KIND_PROJECT) {
        o.title = input ? input : pack;
    }
    rill_cli_progress_start("rill run");
    int rc = rill_cli_viewer_run(&o, c);
    rill_content_destroy(c);
    return rc;
}
