/* cmd_run.c: `rill run PATH`, the windowed viewer. It opens a GLFW window (rill_window), a
 * renderer on it and an app whose render hook draws the content with a fly camera and the stats
 * overlay. PATH is a .rsn scene (loaded into the app's world; Model entities spawn their glTF
 * node trees through the app's model system, demo components become boxes and lights), a .glb/.gltf
 * model (framed automatically) or a built-in scene (builtin:spheres, builtin:cubes:N). The viewer
 * loop itself (rill_cli_viewer_run) is shared with `rill demo --window`.
 *
 * Controls: WASD move, Q/E down/up, right mouse drag looks around, Shift is 4x faster, the scroll
 * wheel changes the speed, F1 toggles the overlay, Esc quits.
 */
#include "cmds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"

#define RUN_MAX_LIGHTS 1024u         /* what the renderer shades; the nearest ones are kept */
#define RUN_MAX_FRAMES 1000000000ull /* --frames upper bound (a typo, not a wish) */

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
    if (in->scroll_y != 0.0)
        c->speed = RILL_CLAMP(c->speed * powf(1.2f, (float)in->scroll_y), 0.05f, 5000.0f);
    float f[3], right[3] = {cosf(c->yaw), 0.0f, -sinf(c->yaw)};
    camera_forward(c, f);
    float move[3] = {0, 0, 0};
    float fwd = (float)in->key_down['W'] - (float)in->key_down['S'];
    float side = (float)in->key_down['D'] - (float)in->key_down['A'];
    float up = (float)in->key_down['E'] - (float)in->key_down['Q'];
    for (int k = 0; k < 3; k++)
        move[k] = f[k] * fwd + right[k] * side;
    move[1] += up;
    float step =
        c->speed * dt *
        (in->key_down[RILL_KEY_LEFT_SHIFT] || in->key_down[RILL_KEY_RIGHT_SHIFT] ? 4.0f : 1.0f);
    for (int k = 0; k < 3; k++)
        c->eye[k] += move[k] * step;
}

/* >>viewer ------------------------------------------------------------------------------------ */

typedef struct light_key {
    float d2;
    uint32_t index;
} light_key;

typedef struct viewer {
    const rill_cli_viewer_opts *opts;
    rill_window *win;
    rill_renderer *r;
    rill_cli_view view;
    rill_render_components comps;
    rill_render_extract_buf xb;
    RILL_ARRAY(rill_render_instance) inst;
    RILL_ARRAY(rill_render_light) lights;
    RILL_ARRAY(light_key) keys;
    fly_camera cam;
    bool overlay;
    bool capture;  /* capture this frame (the last one) for --screenshot */
    bool captured; /* a capture was written */
    uint64_t frames;
    uint64_t last_ns;
    double frame_ms;
    int rc;
    char text[RILL_RENDER_OVERLAY_MAX_TEXT];
} viewer;

static int cmp_light_key(const void *a, const void *b) {
    float x = ((const light_key *)a)->d2, y = ((const light_key *)b)->d2;
    return (x > y) - (x < y);
}

/* Keeps the RUN_MAX_LIGHTS lights nearest the camera (the renderer shades at most that many). */
static void nearest_lights(viewer *v, const rill_render_light *src, uint32_t n) {
    v->lights.len = 0;
    if (n <= RUN_MAX_LIGHTS) {
        for (uint32_t i = 0; i < n; i++)
            rill_array_push(&v->lights, src[i]);
        return;
    }
    v->keys.len = 0;
    for (uint32_t i = 0; i < n; i++) {
        float d2 = 0.0f;
        for (int k = 0; k < 3; k++)
            d2 += (src[i].position[k] - v->cam.eye[k]) * (src[i].position[k] - v->cam.eye[k]);
        light_key key = {d2, i};
        rill_array_push(&v->keys, key);
    }
    qsort(v->keys.data, v->keys.len, sizeof(light_key), cmp_light_key);
    for (uint32_t i = 0; i < RUN_MAX_LIGHTS && i < v->keys.len; i++)
        rill_array_push(&v->lights, src[v->keys.data[i].index]);
}

/* Builds this frame's snapshot: the world (when used) plus the extra instances, seen from the fly
 * camera. */
static bool build_snapshot(viewer *v, rill_render_snapshot *snap, rill_error *err) {
    memset(snap, 0, sizeof(*snap));
    v->inst.len = 0;
    v->lights.len = 0;
    bool world_sun = false;
    if (v->view.use_world) {
        rill_render_snapshot ws;
        rill_result res =
            rill_render_extract(rill_app_world(v->view.app), &v->comps, &v->xb, &ws, err);
        if (res == RILL_OK) {
            snap->view = ws.view;
            world_sun = ws.has_sun;
            snap->sun = ws.sun;
            memcpy(snap->ambient, ws.ambient, sizeof(snap->ambient));
            for (uint32_t i = 0; i < ws.instance_count; i++)
                if (!rill_array_push(&v->inst, ws.instances[i]))
                    return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory"), false;
            nearest_lights(v, ws.lights, ws.light_count);
        } else if (res != RILL_ERR_NOT_FOUND) {
            return false; /* no camera is fine: the fly camera stands in */
        }
    }
    for (uint32_t i = 0; i < v->view.extra_count; i++)
        if (!rill_array_push(&v->inst, v->view.extra[i]))
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory"), false;
    snap->has_sun = world_sun;
    if (!world_sun && v->view.has_sun) {
        snap->has_sun = true;
        memcpy(snap->sun.direction, v->view.sun_dir, sizeof(float) * 3);
        snap->sun.color[0] = 1.0f, snap->sun.color[1] = 0.96f, snap->sun.color[2] = 0.9f;
        snap->sun.illuminance = v->view.sun_illuminance > 0.0f ? v->view.sun_illuminance : 3.0f;
        snap->sun.shadows = true;
    }
    /* The view's ambient light, when it names one, wins over the extract's fixed default. */
    if (v->view.ambient[0] + v->view.ambient[1] + v->view.ambient[2] > 0.0f)
        memcpy(snap->ambient, v->view.ambient, sizeof(snap->ambient));
    memcpy(snap->view.clear_color, v->view.clear_color, sizeof(float) * 3);
    camera_matrix(&v->cam, snap->view.world_from_view);
    snap->view.orthographic = false;
    if (v->view.fov_y > 0.0f)
        snap->view.fov_y = v->view.fov_y;
    if (v->view.near_plane > 0.0f)
        snap->view.near_plane = v->view.near_plane;
    if (v->view.far_plane > 0.0f)
        snap->view.far_plane = v->view.far_plane;
    snap->instances = v->inst.data;
    snap->instance_count = v->inst.len;
    snap->lights = v->lights.data;
    snap->light_count = v->lights.len;
    return true;
}

/* The app's render hook: input, camera, overlay, one frame. */
static void viewer_render(rill_app *app, void *user) {
    viewer *v = user;
    const rill_input *in = rill_window_input(v->win);
    if (in->key_pressed[RILL_KEY_ESCAPE])
        rill_window_request_close(v->win);
    if (in->key_pressed[RILL_KEY_F1])
        v->overlay = !v->overlay;
    uint64_t now = rill_time_ns();
    float dt = v->last_ns ? (float)((double)(now - v->last_ns) * 1e-9) : 1.0f / 60.0f;
    v->frame_ms = v->last_ns ? (double)(now - v->last_ns) * 1e-6 : 0.0;
    v->last_ns = now;
    camera_update(&v->cam, in, RILL_MIN(dt, 0.1f));
    uint32_t fw, fh;
    rill_window_framebuffer_size(v->win, &fw, &fh);
    if (!fw || !fh)
        return; /* minimized: nothing to draw into */
    rill_error err = {0};
    rill_render_snapshot snap;
    if (!build_snapshot(v, &snap, &err)) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        v->rc = 1;
        rill_app_request_exit(app);
        return;
    }
    if (v->overlay) {
        rill_render_stats st;
        rill_renderer_stats(v->r, &st);
        size_t n = rill_render_stats_format(&st, v->frame_ms, v->text, sizeof(v->text));
        snprintf(v->text + n, sizeof(v->text) - n, "speed %.1f  (F1 hides this)", v->cam.speed);
        rill_renderer_set_overlay_text(v->r, v->text);
    } else {
        rill_renderer_set_overlay_text(v->r, NULL);
    }
    if (v->capture)
        rill_renderer_request_capture(v->r);
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

int rill_cli_viewer_run(const rill_cli_viewer_opts *opts, rill_app *app,
                        rill_cli_view_setup_fn setup, void *user) {
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
    v->overlay = true;
    rill_error err = {0};
    rill_window_desc wd = {.title = opts->title ? opts->title : "rill run",
                           .width = opts->width ? opts->width : 1280,
                           .height = opts->height ? opts->height : 720};
    int rc = 1;
    if (rill_window_create(&wd, &v->win, &err) != RILL_OK) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    rd.glfw_window = rill_window_glfw(v->win);
    rd.vsync = opts->vsync;
    rd.shadow_distance = opts->shadow_distance;
    if (rill_renderer_create(&rd, &v->r, &err) != RILL_OK) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    v->view.app = app;
    if (rill_render_register_components(rill_app_world(app), &v->comps, &err) != RILL_OK ||
        setup(v->r, &v->view, user, &err) != 0) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        goto done;
    }
    memcpy(v->cam.eye, v->view.eye, sizeof(v->cam.eye));
    v->cam.yaw = v->view.yaw;
    v->cam.pitch = v->view.pitch;
    v->cam.speed = v->view.speed > 0.0f ? v->view.speed : 5.0f;
    rill_app_set_render_hook(app, viewer_render, v);
    v->rc = 0;
    while (!rill_app_exit_requested(app)) {
        rill_window_poll(v->win);
        bool closing = rill_window_should_close(v->win);
        bool last = opts->frames && v->frames + 1u >= opts->frames;
        if (closing && (!opts->screenshot || v->captured))
            break;
        /* The last frame (by --frames, or the one after a close request) is the screenshot. */
        if (opts->screenshot && (last || closing))
            v->capture = true;
        rill_app_frame(app);
        if (closing || (opts->frames && v->frames >= opts->frames))
            break;
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
    if (v->r && v->view.release)
        v->view.release(v->r, user);
    rill_render_extract_buf_free(&v->xb);
    rill_array_free(&v->inst);
    rill_array_free(&v->lights);
    rill_array_free(&v->keys);
    rill_renderer_destroy(v->r);
    rill_window_destroy(v->win);
    rill_free(v);
    return rc;
}

/* >>content ----------------------------------------------------------------------------------- */

/* What `rill run` loads; the arrays own the renderer resources made for it. */
typedef struct run_content {
    const char *input;
    const char *dir; /* folder of a .rsn (the app's root) */
    RILL_ARRAY(rill_render_instance) extra;
    RILL_ARRAY(rill_render_model) models;
    rill_renderer *r;
    rill_app_models *models_sys; /* scenes: the app's model system (owns the Model uploads) */
} run_content;

static bool push_extra(run_content *c, rill_mesh mesh, rill_material mat, const float m[16]) {
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = 0x52554E0000000000ull + c->extra.len + 1u; /* stable ids: motion vectors work */
    in.mesh = mesh;
    in.material = mat;
    memcpy(in.transform, m, sizeof(in.transform));
    return rill_array_push(&c->extra, in);
}

static void default_look(rill_cli_view *v) {
    v->has_sun = true;
    v->sun_dir[0] = -0.4f, v->sun_dir[1] = -1.0f, v->sun_dir[2] = -0.5f;
    v->ambient[0] = v->ambient[1] = v->ambient[2] = 0.08f;
    v->clear_color[0] = 0.05f, v->clear_color[1] = 0.07f, v->clear_color[2] = 0.12f;
}

/* Points the camera at target from eye. */
static void look_at(rill_cli_view *v, const float eye[3], const float target[3]) {
    float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    float len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    memcpy(v->eye, eye, sizeof(v->eye));
    if (len > 1e-6f) {
        v->pitch = asinf(f[1] / len);
        v->yaw = atan2f(-f[0], -f[2]);
    }
}

static int setup_builtin(rill_renderer *r, run_content *c, rill_cli_view *v, const char *name,
                         rill_error *err) {
    rill_mesh cube = rill_render_mesh_cube(r, err), sphere = rill_render_mesh_sphere(r, 32, err),
              plane = rill_render_mesh_plane(r, err);
    if (!cube.id || !sphere.id || !plane.id)
        return 1;
    default_look(v);
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.6f, md.base_color[3] = 1.0f;
    md.roughness = 0.8f;
    rill_material ground = rill_render_material_create(r, &md, err);
    if (!ground.id)
        return 1;
    mat4 m;
    unsigned n = 0;
    if (strcmp(name, "spheres") == 0) {
        glm_mat4_identity(m);
        glm_scale_uni(m, 20.0f);
        push_extra(c, plane, ground, (float *)m);
        for (int i = 0; i < 5; i++)
            for (int row = 0; row < 2; row++) {
                memset(&md, 0, sizeof(md));
                md.base_color[0] = row ? 0.8f : 1.0f, md.base_color[1] = row ? 0.1f : 0.78f;
                md.base_color[2] = row ? 0.1f : 0.34f, md.base_color[3] = 1.0f;
                md.metallic = row ? 0.0f : 1.0f;
                md.roughness = 0.1f + 0.2f * (float)i;
                rill_material mat = rill_render_material_create(r, &md, err);
                if (!mat.id)
                    return 1;
                glm_mat4_identity(m);
                glm_translate(
                    m, (vec3){-2.4f + 1.2f * (float)i, row ? 0.5f : 1.6f, row ? 0.6f : -0.6f});
                push_extra(c, sphere, mat, (float *)m);
            }
        look_at(v, (float[3]){0, 3.2f, 6.5f}, (float[3]){0, 0.6f, 0});
        v->speed = 3.0f;
        return 0;
    }
    if (sscanf(name, "cubes:%u", &n) == 1 && n > 0 && n <= 1000000u) {
        uint32_t side = (uint32_t)ceil(sqrt((double)n));
        float extent = (float)side * 1.5f;
        glm_mat4_identity(m);
        glm_scale_uni(m, extent * 1.2f);
        push_extra(c, plane, ground, (float *)m);
        rill_material mats[8];
        for (uint32_t i = 0; i < 8; i++) {
            memset(&md, 0, sizeof(md));
            md.base_color[0] = 0.3f + 0.1f * (float)i, md.base_color[1] = 0.5f;
            md.base_color[2] = 1.0f - 0.1f * (float)i, md.base_color[3] = 1.0f;
            md.roughness = 0.5f;
            if (!(mats[i] = rill_render_material_create(r, &md, err)).id)
                return 1;
        }
        for (uint32_t i = 0; i < n; i++) {
            glm_mat4_identity(m);
            glm_translate(m, (vec3){((float)(i % side) - (float)side * 0.5f) * 1.5f, 0.5f,
                                    ((float)(i / side) - (float)side * 0.5f) * 1.5f});
            if (!push_extra(c, i % 3 == 2 ? sphere : cube, mats[i % 8], (float *)m))
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory"), 1;
        }
        look_at(v, (float[3]){0, extent * 0.5f + 2.0f, extent * 0.6f + 3.0f}, (float[3]){0, 0, 0});
        v->far_plane = extent * 4.0f + 100.0f;
        v->speed = RILL_MAX(extent * 0.2f, 3.0f);
        return 0;
    }
    rill_error_set(err, RILL_ERR_NOT_FOUND, "unknown built-in scene '%s' (spheres, cubes:N)", name);
    return 1;
}

/* Loads a glTF file and adds its instances under `parent`. out_bounds (may be NULL) receives the
 * model's own bounds. */
static int add_model(run_content *c, const char *path, const float parent[16], float bmin[3],
                     float bmax[3], rill_error *err) {
    rill_gltf_model *gm = NULL;
    if (rill_gltf_read_file(path, NULL, &gm, err) != RILL_OK)
        return 1;
    char dir[1024];
    if (!rill_path_dirname(dir, sizeof(dir), path) || !dir[0])
        snprintf(dir, sizeof(dir), ".");
    rill_render_model rm;
    rill_result res = rill_render_model_create(c->r, gm, dir, &rm, err);
    rill_gltf_model_free(gm);
    if (res != RILL_OK)
        return 1;
    if (!rill_array_push(&c->models, rm)) {
        rill_render_model_destroy(c->r, &rm);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory"), 1;
    }
    for (uint32_t i = 0; i < rm.instance_count; i++) {
        mat4 pm, im, m; /* aligned copies for cglm */
        memcpy(pm, parent, sizeof(mat4));
        memcpy(im, rm.instances[i].transform, sizeof(mat4));
        glm_mat4_mul(pm, im, m);
        if (!push_extra(c, rm.instances[i].mesh, rm.instances[i].material, (float *)m))
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory"), 1;
    }
    if (bmin)
        memcpy(bmin, rm.bounds_min, sizeof(float) * 3);
    if (bmax)
        memcpy(bmax, rm.bounds_max, sizeof(float) * 3);
    return 0;
}

static int setup_model(run_content *c, rill_cli_view *v, rill_error *err) {
    float ident[16], bmin[3], bmax[3];
    rill_mat4_identity(ident);
    if (add_model(c, c->input, ident, bmin, bmax, err))
        return 1;
    default_look(v);
    float center[3], radius = 0.0f;
    for (int k = 0; k < 3; k++) {
        center[k] = 0.5f * (bmin[k] + bmax[k]);
        radius += (bmax[k] - bmin[k]) * (bmax[k] - bmin[k]);
    }
    radius = fmaxf(0.5f * sqrtf(radius), 1e-3f);
    float dist = radius / sinf(0.4f) * 1.1f;
    float dir[3] = {0.55f, 0.45f, 0.7f}, dl = sqrtf(0.55f * 0.55f + 0.45f * 0.45f + 0.7f * 0.7f);
    float eye[3];
    for (int k = 0; k < 3; k++)
        eye[k] = center[k] + dir[k] / dl * dist;
    look_at(v, eye, center);
    v->near_plane = fmaxf(radius * 0.01f, 1e-3f);
    v->far_plane = dist + radius * 8.0f;
    v->speed = radius;
    return 0;
}

static int setup_scene(run_content *c, rill_cli_view *v, rill_error *err) {
    rill_app *app = v->app;
    rill_world *world = rill_app_world(app);
    const char *file = strrchr(c->input, '/') ? strrchr(c->input, '/') + 1 : c->input;
    if (rill_scene_load_sync(rill_app_scenes(app), file, NULL, err) != RILL_OK)
        return 1;
    rill_world_update_transforms(world);
    int64_t demo = rill_demo_make_drawables(c->r, world, err);
    if (demo < 0)
        return 1;
    rill_world_update_transforms(world);
    rill_render_components comps;
    if (rill_render_register_components(world, &comps, err) != RILL_OK)
        return 1;
    /* Model entities load through the app's model system (asset server, one upload per file,
     * node trees spawned under the entities); flushed here so the first frame has them. */
    c->models_sys = rill_app_enable_models(app, c->r, NULL, err);
    if (!c->models_sys)
        return 1;
    rill_app_models_flush(c->models_sys);
    rill_app_models_stats ms;
    rill_app_models_get_stats(c->models_sys, &ms);
    if (ms.failed) /* each failure was logged with its entity and file */
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: %u Model entities failed to load",
                              c->input, ms.failed),
               1;
    v->use_world = true;
    default_look(v);
    if (demo > 0) { /* the demo city: daylight as `rill demo` renders it */
        v->clear_color[0] = 0.42f, v->clear_color[1] = 0.58f, v->clear_color[2] = 0.80f;
        v->ambient[0] = 0.16f, v->ambient[1] = 0.18f, v->ambient[2] = 0.22f;
    }
    /* Start where the scene's camera is, if it has one. */
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    rill_error cam_err = {0};
    v->eye[1] = 2.0f, v->eye[2] = 8.0f;
    if (rill_render_extract(world, &comps, &xb, &snap, &cam_err) == RILL_OK) {
        fly_camera fc = {{0, 0, 0}, 0, 0, 0};
        camera_from_matrix(&fc, snap.view.world_from_view);
        memcpy(v->eye, fc.eye, sizeof(v->eye));
        v->yaw = fc.yaw, v->pitch = fc.pitch;
        v->fov_y = snap.view.fov_y, v->near_plane = snap.view.near_plane;
        v->far_plane = snap.view.far_plane;
    }
    rill_render_extract_buf_free(&xb);
    v->speed = 10.0f;
    return 0;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void run_release(rill_renderer *r, void *user) {
    run_content *c = user;
    rill_app_disable_models(c->models_sys);
    c->models_sys = NULL;
    for (uint32_t i = 0; i < c->models.len; i++)
        rill_render_model_destroy(r, &c->models.data[i]);
    c->models.len = 0;
}

static int run_setup(rill_renderer *r, rill_cli_view *v, void *user, rill_error *err) {
    run_content *c = user;
    c->r = r;
    v->release = run_release;
    int rc;
    if (strncmp(c->input, "builtin:", 8) == 0)
        rc = setup_builtin(r, c, v, c->input + 8, err);
    else if (ends_with(c->input, ".glb") || ends_with(c->input, ".gltf"))
        rc = setup_model(c, v, err);
    else
        rc = setup_scene(c, v, err);
    v->extra = c->extra.data;
    v->extra_count = c->extra.len;
    return rc;
}

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill run PATH [--size WxH] [--vsync on|off] [--frames N] [--screenshot out.png]\n"
        "  PATH              a .rsn scene, a .glb/.gltf model, builtin:spheres or "
        "builtin:cubes:N\n"
        "  --size WxH        window size (default 1280x720)\n"
        "  --vsync on|off    wait for the display (default on)\n"
        "  --frames N        quit after N frames (default: run until closed)\n"
        "  --screenshot PNG  save the last frame\n"
        "controls: WASD move, Q/E down/up, right mouse drag to look, Shift fast, scroll "
        "speed,\n"
        "          F1 overlay, Esc quit. Needs a display (DISPLAY or WAYLAND_DISPLAY).\n");
}

int rill_cmd_run(int argc, char **argv) {
    rill_cli_viewer_opts o = {.vsync = true};
    const char *input = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--size") == 0 && val) {
            if (sscanf(val, "%ux%u", &o.width, &o.height) != 2 || !o.width || !o.height ||
                o.width > 16384 || o.height > 16384) {
                fprintf(stderr, "rill run: bad --size '%s' (want WxH)\n", val);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--vsync") == 0 && val) {
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0) {
                fprintf(stderr, "rill run: --vsync takes on or off\n");
                return 2;
            }
            o.vsync = strcmp(val, "on") == 0;
            i++;
        } else if (strcmp(a, "--frames") == 0 && val) {
            char *end = NULL;
            unsigned long long n = strtoull(val, &end, 10);
            /* strtoull takes "-1" (as ULLONG_MAX) and saturates on overflow: both would mean
             * "run forever" instead of the usage error. */
            if (!end || *end || val[0] < '0' || val[0] > '9' || n < 1 || n > RUN_MAX_FRAMES) {
                fprintf(stderr, "rill run: --frames needs a count in [1, %llu]\n", RUN_MAX_FRAMES);
                return 2;
            }
            o.frames = n;
            i++;
        } else if (strcmp(a, "--screenshot") == 0 && val) {
            o.screenshot = val;
            i++;
        } else if (a[0] == '-' || input) {
            fprintf(stderr, "rill run: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            input = a;
        }
    }
    if (!input) {
        usage(stderr);
        return 2;
    }
    run_content c;
    memset(&c, 0, sizeof(c));
    c.input = input;
    char dir[1024] = "";
    bool scene = strncmp(input, "builtin:", 8) != 0 && !ends_with(input, ".glb") &&
                 !ends_with(input, ".gltf");
    if (scene) {
        if (!ends_with(input, ".rsn")) {
            fprintf(stderr, "rill run: %s: not a .rsn, .glb, .gltf or builtin: input\n", input);
            return 1;
        }
        if (!rill_file_exists(input)) {
            fprintf(stderr, "rill run: %s: no such file\n", input);
            return 1;
        }
        if (!rill_path_dirname(dir, sizeof(dir), input) || !dir[0])
            snprintf(dir, sizeof(dir), ".");
    }
    c.dir = dir;
    o.title = input;
    rill_error err = {0};
    /* A scene's folder is the app's root (paths inside the scene resolve against it); other
     * inputs mount nothing. */
    rill_app *app = rill_app_create(&(rill_app_desc){.root = scene ? dir : ""}, &err);
    if (!app) {
        fprintf(stderr, "rill run: %s\n", err.msg);
        return 1;
    }
    rill_demo_register_components(rill_app_world(app));
    int rc = rill_cli_viewer_run(&o, app, run_setup, &c);
    rill_app_destroy(app);
    rill_array_free(&c.extra);
    rill_array_free(&c.models);
    return rc;
}
