/* content.c: rill_content (rill/app.h, ON PLAYING CONTENT), the one path from what a user points
 * the engine at (a project folder, project.toml, a .rsn, a glTF model, a built-in test scene or a
 * pack) to a world in an app and a render snapshot per frame. The tools (`rill render`, `rill
 * run`, `rill demo`) and the examples all go through it, so a scene draws the same everywhere.
 * It resolves the input and the project settings, creates the app with its mounts, loads the
 * scene, lets the model system spawn every Model, and states the defaults it adds (a sun, a
 * camera) instead of drawing black. Built without the renderer, load and snapshot fail. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "rill/app.h"

#define LOGC "content"
#define CONTENT_PATH_MAX 1024
#define CONTENT_PROJECT_SEARCH_UP 3u

#if RILL_APP_HAS_RENDER
#include "rill/render.h"
#include "rill/render/hlod.h"
#include "rill/render/post.h"
#endif

struct rill_content {
    rill_content_desc desc;
    rill_content_kind kind;
    rill_app *app;
    bool owns_app;
    rill_project project;
    char input[CONTENT_PATH_MAX];
    char root[CONTENT_PATH_MAX];
    char scene[CONTENT_PATH_MAX];
    char pack[CONTENT_PATH_MAX];
    uint32_t pack_count;
    uint32_t defaults;
    rill_strbuf notes;
    rill_content_look look;
#if RILL_APP_HAS_RENDER
    rill_renderer *renderer;
    rill_app_models *models;
    rill_app_physics *physics;
    rill_app_terrain *terrain;
    rill_app_scripts *scripts;
    rill_render_terrain *render_terrain;
    rill_render_hlod *hlod; /* far-world proxies of the streamed instances */
    rill_render_components comps;
    rill_render_extract_buf xb;
    RILL_ARRAY(rill_render_instance) extra; /* built-in scenes: procedural instances */
    RILL_ARRAY(rill_mesh) meshes;
    RILL_ARRAY(rill_material) materials;
    rill_render_view last_view;
    bool have_view;
    rill_system render_sync; /* with a render thread: waits for its frame first in extract */
#endif
};

/* >>notes ------------------------------------------------------------------------------------- */

void rill_content_note(rill_content *c, const char *fmt, ...) {
    if (!c || !fmt) {
        return;
    }
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    RILL_LOG_INFO(LOGC, "%s", line);
    rill_strbuf_printf(&c->notes, "%s%s", c->notes.len ? "\n" : "", line);
}

const char *rill_content_notes(const rill_content *c) {
    return c && c->notes.data ? c->notes.data : "";
}

/* >>resolve ----------------------------------------------------------------------------------- */

static bool has_ext(const char *path, const char *ext) {
    return rill_path_ext_is(path, ext);
}

/* The folder of path ("." for a bare file name). */
static void dir_of(const char *path, char *dst, size_t cap) {
    if (!rill_path_dirname(dst, cap, path) || !dst[0]) {
        snprintf(dst, cap, ".");
    }
}

/* Finds project.toml in `dir` or up to CONTENT_PROJECT_SEARCH_UP folders above; on success dst
 * holds the folder. */
static bool find_project_up(const char *dir, char *dst, size_t cap) {
    char cur[CONTENT_PATH_MAX], probe[CONTENT_PATH_MAX + 16];
    snprintf(cur, sizeof(cur), "%s", dir);
    for (uint32_t up = 0; up <= CONTENT_PROJECT_SEARCH_UP; up++) {
        if (!rill_path_join(probe, sizeof(probe), cur, "project.toml")) {
            return false;
        }
        if (rill_file_exists(probe)) {
            snprintf(dst, cap, "%s", cur);
            return true;
        }
        size_t n = strlen(cur);
        if (n + 4 >= sizeof(cur)) {
            return false;
        }
        memcpy(cur + n, "/..", 4);
    }
    return false;
}

/* path relative to folder `root` (both as given on the command line); false when it is not
 * below it. */
static bool relative_to(const char *root, const char *path, char *dst, size_t cap) {
    char r[CONTENT_PATH_MAX], p[CONTENT_PATH_MAX];
    char *ra = realpath(root, NULL), *pa = realpath(path, NULL);
    bool ok = false;
    if (ra && pa) {
        snprintf(r, sizeof(r), "%s", ra);
        snprintf(p, sizeof(p), "%s", pa);
        size_t n = strlen(r);
        if (strncmp(p, r, n) == 0 && p[n] == '/') {
            snprintf(dst, cap, "%s", p + n + 1);
            ok = true;
        }
    }
    free(ra);
    free(pa);
    return ok;
}

static rill_result load_project_file(rill_content *c, const char *dir, rill_error *err) {
    char path[CONTENT_PATH_MAX + 16];
    if (!rill_path_join(path, sizeof(path), dir, "project.toml")) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", dir);
    }
    return rill_project_load(path, &c->project, err);
}

/* Reads project.toml from the app's VFS (the pack's own project). False when there is none. */
static rill_result load_project_vfs(rill_content *c, bool *found, rill_error *err) {
    *found = false;
    rill_vfs *vfs = rill_app_vfs(c->app);
    if (!rill_vfs_exists(vfs, "project.toml")) {
        return RILL_OK;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_result r = rill_vfs_read_all(vfs, "project.toml", &data, &size, err);
    if (r != RILL_OK) {
        return r;
    }
    rill_toml *doc = NULL;
    r = rill_toml_parse((const char *)data, size, "project.toml (pack)", &doc, err);
    rill_free(data);
    if (r == RILL_OK) {
        r = rill_project_from_toml(doc, &c->project, err);
    }
    rill_toml_destroy(doc);
    *found = r == RILL_OK;
    return r;
}

/* Why the input is not a file to play: missing, or something that exists but is neither a regular
 * file nor a folder (a FIFO, /dev/zero), said as what it is. */
static rill_result not_a_file(const char *in, rill_error *err) {
    struct stat st;
    if (stat(in, &st) != 0) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: no such file or folder", in);
    }
    const char *kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "something else";
    return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                          "%s: is %s, not a file or folder (give a project folder, a scene, a "
                          "model or a pack)",
                          in, kind);
}

/* Whether name holds "toml" in any letter case. */
static bool has_toml(const char *name) {
    for (; *name; name++) {
        if (strncasecmp(name, "toml", 4) == 0) {
            return true;
        }
    }
    return false;
}

/* A file in dir that looks like a misnamed project.toml ("project.toml.txt" from an editor that
 * adds .txt, "Project.toml", "projct.toml"), into out; false when none (the first 4096 entries
 * are looked at). */
static bool misnamed_project_file(const char *dir, char *out, size_t cap) {
    static const char *const want[] = {"project.toml"};
    DIR *d = opendir(dir);
    if (!d) {
        return false;
    }
    bool found = false;
    struct dirent *e;
    for (int n = 0; !found && n < 4096 && (e = readdir(d)) != NULL; n++) {
        const char *name = e->d_name;
        found = (strncasecmp(name, "project", 7) == 0 && has_toml(name)) ||
                rill_suggest_from_list(name, want, 1) != NULL;
        if (found) {
            snprintf(out, cap, "%s", name);
        }
    }
    closedir(d);
    return found;
}

/* Works out kind, root, scene and which project.toml applies, from desc.input on disk. */
static rill_result resolve_disk(rill_content *c, rill_error *err) {
    const char *in = c->input;
    char dir[CONTENT_PATH_MAX];
    if (rill_dir_exists(in)) {
        char probe[CONTENT_PATH_MAX + 16];
        if (!rill_path_join(probe, sizeof(probe), in, "project.toml") || !rill_file_exists(probe)) {
            char near[256];
            if (misnamed_project_file(in, near, sizeof near)) {
                return rill_error_set(err, RILL_ERR_NOT_FOUND,
                                      "%s: a folder without project.toml (it holds '%s': rename "
                                      "it to project.toml)",
                                      in, near);
            }
            return rill_error_set(err, RILL_ERR_NOT_FOUND,
                                  "%s: a folder without project.toml (a project folder holds one; "
                                  "or name a .rsn scene or a .glb/.gltf model)",
                                  in);
        }
        c->kind = RILL_CONTENT_KIND_PROJECT;
        snprintf(c->root, sizeof(c->root), "%s", in);
        return load_project_file(c, c->root, err);
    }
    if (!rill_file_exists(in)) {
        return not_a_file(in, err);
    }
    dir_of(in, dir, sizeof(dir));
    if (strcmp(rill_path_basename(in), "project.toml") == 0) {
        c->kind = RILL_CONTENT_KIND_PROJECT;
        snprintf(c->root, sizeof(c->root), "%s", dir);
        return load_project_file(c, c->root, err);
    }
    if (has_ext(in, "rsn")) {
        c->kind = RILL_CONTENT_KIND_SCENE;
        char proj[CONTENT_PATH_MAX];
        if (find_project_up(dir, proj, sizeof(proj)) &&
            relative_to(proj, in, c->scene, sizeof(c->scene))) {
            snprintf(c->root, sizeof(c->root), "%s", proj);
            return load_project_file(c, c->root, err);
        }
        snprintf(c->root, sizeof(c->root), "%s", dir);
        snprintf(c->scene, sizeof(c->scene), "%s", rill_path_basename(in));
        return RILL_OK;
    }
    if (has_ext(in, "glb") || has_ext(in, "gltf")) {
        c->kind = RILL_CONTENT_KIND_MODEL;
        snprintf(c->root, sizeof(c->root), "%s", dir);
        snprintf(c->scene, sizeof(c->scene), "%s", rill_path_basename(in));
        return RILL_OK;
    }
    return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                          "%s: not a project folder, project.toml, .rsn, .glb, .gltf or builtin: "
                          "input",
                          in);
}

/* An input inside the mounted packs (no such file on disk). */
static rill_result resolve_in_pack(rill_content *c, rill_error *err) {
    const char *in = c->input;
    if (has_ext(in, "rsn")) {
        c->kind = RILL_CONTENT_KIND_SCENE;
    } else if (has_ext(in, "glb") || has_ext(in, "gltf")) {
        c->kind = RILL_CONTENT_KIND_MODEL;
    } else {
        return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                              "%s: not a .rsn, .glb or .gltf path inside the pack", in);
    }
    snprintf(c->scene, sizeof(c->scene), "%s", in);
    return RILL_OK;
}

/* desc.root given: the input is a path inside it (or inside the packs); its project.toml, when
 * there is one, supplies the settings. */
static rill_result resolve_rooted(rill_content *c, const char *root, rill_error *err) {
    snprintf(c->root, sizeof(c->root), "%s", root);
    char probe[CONTENT_PATH_MAX + 16];
    if (root[0] && rill_path_join(probe, sizeof(probe), root, "project.toml") &&
        rill_file_exists(probe)) {
        RILL_TRY(load_project_file(c, root, err));
    }
    return resolve_in_pack(c, err);
}

static rill_result create_app(rill_content *c, rill_error *err) {
    rill_app_desc ad = {.project = &c->project,
                        .root = c->root,
                        .pack = c->pack[0] ? c->pack : NULL,
                        .mount_packs = c->desc.mount_packs,
                        .deterministic = c->desc.deterministic,
                        .worker_count = c->desc.worker_count,
                        .scene_budget_ns = c->desc.scene_budget_ns};
    c->app = rill_app_create(&ad, err);
    if (!c->app) {
        return err ? err->code : RILL_ERR_IO;
    }
    c->owns_app = true;
    rill_vfs_stats vs;
    rill_vfs_get_stats(rill_app_vfs(c->app), &vs);
    c->pack_count = vs.mount_count - (c->root[0] ? 1u : 0u);
    return RILL_OK;
}

/* The pack's own project.toml, when the app's VFS holds one, replaces the defaults and the app is
 * made again with it (scene budget, static batching, quality, ...), so a scene named inside a pack
 * plays with the settings the pack's main scene plays with. found says whether there was one. */
static rill_result reopen_with_pack_project(rill_content *c, bool *found, rill_error *err) {
    RILL_TRY(load_project_vfs(c, found, err));
    if (!*found) {
        return RILL_OK;
    }
    rill_app_destroy(c->app);
    c->app = NULL;
    return create_app(c, err);
}

rill_content *rill_content_open(const rill_content_desc *desc, rill_error *err) {
    rill_content_desc d;
    memset(&d, 0, sizeof(d));
    if (desc) {
        d = *desc;
    }
    if (d.start_canary || d.end_canary) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_content_open: desc canaries not 0");
        return NULL;
    }
    rill_content *c = rill_calloc(1, sizeof(*c));
    if (!c) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    c->desc = d;
    rill_project_defaults(&c->project);
    snprintf(c->input, sizeof(c->input), "%s", d.input ? d.input : "");
    snprintf(c->pack, sizeof(c->pack), "%s", d.pack ? d.pack : "");
    /* A .rpak given as the input is the pack to play, as with --pack. */
    size_t in_len = strlen(c->input);
    if (!c->pack[0] && in_len > 5 && strcmp(c->input + in_len - 5, ".rpak") == 0) {
        memcpy(c->pack, c->input, in_len + 1);
        c->input[0] = '\0';
    }
    c->desc.input = c->input;
    c->desc.pack = c->pack;
    rill_result r = RILL_OK;
    if (d.app) {
        c->kind = RILL_CONTENT_KIND_APP;
        c->app = d.app;
        c->project = *rill_app_project(d.app);
    } else if (strncmp(c->input, "builtin:", 8) == 0) {
        c->kind = RILL_CONTENT_KIND_BUILTIN;
        r = create_app(c, err);
    } else if (!c->input[0]) {
        if (!c->pack[0] && !d.mount_packs) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                           "nothing to play: give a project folder, a scene, a model or a pack");
            goto fail;
        }
        c->kind = RILL_CONTENT_KIND_PROJECT;
        r = create_app(c, err);
        if (r == RILL_OK && c->pack_count == 0) {
            rill_error_set(err, RILL_ERR_NOT_FOUND,
                           "nothing to play: no pack is appended to this program (rill pack "
                           "append) and none was given (--pack)");
            goto fail;
        }
        bool found = false;
        if (r == RILL_OK && (r = reopen_with_pack_project(c, &found, err)) == RILL_OK && !found) {
            rill_error_set(err, RILL_ERR_NOT_FOUND,
                           "%s: the pack holds no project.toml (name a scene inside it)",
                           c->pack[0] ? c->pack : "appended pack");
            goto fail;
        }
    } else if (d.root) {
        r = resolve_rooted(c, d.root, err);
        if (r == RILL_OK) {
            r = create_app(c, err);
        }
    } else if (c->pack[0] && !rill_file_exists(c->input) && !rill_dir_exists(c->input)) {
        bool found = false;
        r = resolve_in_pack(c, err);
        if (r == RILL_OK) {
            r = create_app(c, err);
        }
        if (r == RILL_OK) {
            r = reopen_with_pack_project(c, &found, err);
        }
    } else {
        r = resolve_disk(c, err);
        if (r == RILL_OK) {
            r = create_app(c, err);
        }
    }
    c->desc.root = d.root ? c->root : NULL; /* the caller's string is not kept */
    if (r != RILL_OK) {
        goto fail;
    }
    if (c->kind == RILL_CONTENT_KIND_PROJECT) {
        if (!c->project.main_scene[0]) {
            rill_error_set(err, RILL_ERR_NOT_FOUND,
                           "%s: project.toml names no main scene ([project] main_scene)",
                           c->input[0] ? c->input : "pack");
            goto fail;
        }
        snprintf(c->scene, sizeof(c->scene), "%s", c->project.main_scene);
    }
#if RILL_APP_HAS_RENDER
    if (rill_render_register_components(rill_app_world(c->app), &c->comps, err) != RILL_OK) {
        goto fail;
    }
#endif
    if (d.on_world) {
        d.on_world(rill_app_world(c->app), d.user);
    }
    return c;
fail:
    rill_content_destroy(c);
    return NULL;
}

/* >>accessors --------------------------------------------------------------------------------- */

rill_app *rill_content_app(const rill_content *c) {
    return c ? c->app : NULL;
}
rill_world *rill_content_world(const rill_content *c) {
    return c && c->app ? rill_app_world(c->app) : NULL;
}
rill_content_kind rill_content_get_kind(const rill_content *c) {
    return c ? c->kind : RILL_CONTENT_KIND_NONE;
}
const rill_project *rill_content_project(const rill_content *c) {
    return c ? &c->project : NULL;
}
const char *rill_content_root(const rill_content *c) {
    return c ? c->root : "";
}
const char *rill_content_scene(const rill_content *c) {
    return c ? c->scene : "";
}
uint32_t rill_content_pack_count(const rill_content *c) {
    return c ? c->pack_count : 0;
}
uint32_t rill_content_defaults_used(const rill_content *c) {
    return c ? c->defaults : 0;
}
rill_content_look *rill_content_get_look(rill_content *c) {
    return c ? &c->look : NULL;
}

#if RILL_APP_HAS_RENDER

rill_app_models *rill_content_models(const rill_content *c) {
    return c ? c->models : NULL;
}

struct rill_render_components *rill_content_render_components(rill_content *c) {
    return c ? &c->comps : NULL;
}

void rill_content_renderer_desc(rill_content *c, rill_renderer_desc *d) {
    if (!c || !d) {
        return;
    }
    const rill_project *p = &c->project;
    d->width = p->window.width;
    d->height = p->window.height;
    d->vsync = p->window.vsync;
    switch (p->rendering.graphics_quality) {
    case RILL_QUALITY_LOW:
        d->quality = RILL_RENDER_QUALITY_LOW;
        break;
    case RILL_QUALITY_HIGH:
        d->quality = RILL_RENDER_QUALITY_HIGH;
        break;
    default:
        d->quality = RILL_RENDER_QUALITY_MEDIUM;
        break;
    }
    /* A fraction of the logical window in [0.1, 2]; the renderer never draws above the
     * display's physical size (rill_renderer_set_render_scale). */
    d->render_scale = p->rendering.render_scale;
    if (p->rendering.gpu_culling) {
        d->debug_flags |= RILL_RENDER_DEBUG_GPU_CULL;
    }
    if (!p->rendering.gpu_occlusion) {
        d->debug_flags |= RILL_RENDER_DEBUG_NO_OCCLUSION;
    }
    d->jobs = rill_app_jobs(c->app); /* the frame's culling runs on the app's workers */
    d->render_thread = p->rendering.render_thread;
    d->upload_budget_bytes = p->rendering.upload_budget_bytes; /* 0: the renderer's default */
}

/* >>math -------------------------------------------------------------------------------------- */

static void normalize3(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 1e-12f) {
        v[0] /= l, v[1] /= l, v[2] /= l;
    }
}

static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The unit quaternion (x, y, z, w) of a rotation whose -Z axis points along dir, +Y as close to
 * world up as it can be. */
static void quat_look(const float dir[3], float q[4]) {
    float f[3] = {dir[0], dir[1], dir[2]}, up[3] = {0, 1, 0}, r[3], u[3];
    normalize3(f);
    if (fabsf(f[1]) > 0.999f) {
        up[0] = 0, up[1] = 0, up[2] = -1;
    }
    cross3(f, up, r);
    normalize3(r);
    cross3(r, f, u);
    /* Columns X = r, Y = u, Z = -f. */
    float m00 = r[0], m01 = u[0], m02 = -f[0];
    float m10 = r[1], m11 = u[1], m12 = -f[1];
    float m20 = r[2], m21 = u[2], m22 = -f[2];
    float t = m00 + m11 + m22;
    if (t > 0.0f) {
        float s = sqrtf(t + 1.0f) * 2.0f;
        q[3] = 0.25f * s, q[0] = (m21 - m12) / s, q[1] = (m02 - m20) / s, q[2] = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q[3] = (m21 - m12) / s, q[0] = 0.25f * s, q[1] = (m01 + m10) / s, q[2] = (m02 + m20) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q[3] = (m02 - m20) / s, q[0] = (m01 + m10) / s, q[1] = 0.25f * s, q[2] = (m12 + m21) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q[3] = (m10 - m01) / s, q[0] = (m02 + m20) / s, q[1] = (m12 + m21) / s, q[2] = 0.25f * s;
    }
}

/* Spawns a root entity with a Name and a Transform at pos looking along dir (dir NULL = no
 * rotation). */
static rill_entity spawn_placed(rill_world *w, const char *name, const float pos[3],
                                const float dir[3]) {
    rill_entity e = rill_world_spawn(w);
    if (!e) {
        return e;
    }
    rill_world_set_name(w, e, name);
    rill_transform t = {{pos[0], pos[1], pos[2]}, {0, 0, 0, 1}, {1, 1, 1}};
    if (dir) {
        quat_look(dir, t.rotation);
    }
    rill_world_add(w, e, rill_world_builtin(w)->transform, &t);
    return e;
}

static rill_entity spawn_camera(rill_world *w, const char *name, const float eye[3],
                                const float target[3], float near_plane, float far_plane) {
    float dir[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    rill_entity e = spawn_placed(w, name, eye, dir);
    if (!e) {
        return e;
    }
    rill_camera *cam = rill_world_add(w, e, rill_world_builtin(w)->camera, NULL);
    if (cam) {
        cam->is_default = true;
        if (near_plane > 0.0f) {
            cam->near_plane = near_plane;
        }
        if (far_plane > 0.0f) {
            cam->far_plane = far_plane;
        }
        /* The stated defaults' background: a dark blue, not the camera's black. */
        cam->clear_color[0] = 0.05f, cam->clear_color[1] = 0.07f, cam->clear_color[2] = 0.12f;
    }
    return e;
}

#define SUN_DIR_X (-0.4f)
#define SUN_DIR_Y (-1.0f)
#define SUN_DIR_Z (-0.5f)

static rill_entity spawn_sun(rill_content *c, const char *name) {
    rill_world *w = rill_app_world(c->app);
    float dir[3] = {SUN_DIR_X, SUN_DIR_Y, SUN_DIR_Z};
    rill_entity e = spawn_placed(w, name, (float[3]){0, 0, 0}, dir);
    rill_directional_light *dl = e ? rill_world_add(w, e, c->comps.directional_light, NULL) : NULL;
    if (dl) {
        dl->color[0] = 1.0f, dl->color[1] = 0.96f, dl->color[2] = 0.9f, dl->color[3] = 1.0f;
        dl->illuminance = 3.0f;
        dl->shadows = true;
    }
    return e;
}

/* >>builtins ---------------------------------------------------------------------------------- */

static bool push_extra(rill_content *c, rill_mesh mesh, rill_material mat, const float pos[3],
                       float scale) {
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = 0x4255494C00000000ull + c->extra.len + 1u; /* stable ids: motion vectors work */
    in.mesh = mesh;
    in.material = mat;
    in.transform[0] = in.transform[5] = in.transform[10] = scale;
    in.transform[15] = 1.0f;
    in.transform[12] = pos[0], in.transform[13] = pos[1], in.transform[14] = pos[2];
    return rill_array_push(&c->extra, in);
}

static rill_material make_material(rill_content *c, float r, float g, float b, float metallic,
                                   float roughness, rill_error *err) {
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color[0] = r, md.base_color[1] = g, md.base_color[2] = b, md.base_color[3] = 1.0f;
    md.metallic = metallic;
    md.roughness = roughness;
    rill_material m = rill_render_material_create(c->renderer, &md, err);
    if (m.id && !rill_array_push(&c->materials, m)) {
        rill_render_material_destroy(c->renderer, m);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        m.id = 0;
    }
    return m;
}

#define BUILTIN_MAX_CUBES 10000000u

static rill_result load_builtin(rill_content *c, rill_error *err) {
    rill_renderer *r = c->renderer;
    rill_world *w = rill_app_world(c->app);
    const char *name = c->input + 8;
    rill_mesh cube = rill_render_mesh_cube(r, err), sphere = rill_render_mesh_sphere(r, 32, err),
              plane = rill_render_mesh_plane(r, err);
    rill_array_push(&c->meshes, cube);
    rill_array_push(&c->meshes, sphere);
    rill_array_push(&c->meshes, plane);
    if (!cube.id || !sphere.id || !plane.id) {
        return err ? err->code : RILL_ERR_IO;
    }
    rill_material ground = make_material(c, 0.6f, 0.6f, 0.6f, 0.0f, 0.8f, err);
    if (!ground.id) {
        return err ? err->code : RILL_ERR_IO;
    }
    unsigned n = 0;
    char tail = 0;
    if (strcmp(name, "spheres") == 0) {
        push_extra(c, plane, ground, (float[3]){0, 0, 0}, 20.0f);
        for (int i = 0; i < 5; i++) {
            for (int row = 0; row < 2; row++) {
                rill_material m =
                    make_material(c, row ? 0.8f : 1.0f, row ? 0.1f : 0.78f, row ? 0.1f : 0.34f,
                                  row ? 0.0f : 1.0f, 0.1f + 0.2f * (float)i, err);
                if (!m.id) {
                    return err ? err->code : RILL_ERR_IO;
                }
                float pos[3] = {-2.4f + 1.2f * (float)i, row ? 0.5f : 1.6f, row ? 0.6f : -0.6f};
                if (!push_extra(c, sphere, m, pos, 1.0f)) {
                    return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
                }
            }
        }
        spawn_camera(w, "Camera", (float[3]){0, 3.2f, 6.5f}, (float[3]){0, 0.6f, 0}, 0, 0);
        spawn_sun(c, "Sun");
        return RILL_OK;
    }
    if (sscanf(name, "cubes:%u%c", &n, &tail) == 1 && n > 0 && n <= BUILTIN_MAX_CUBES) {
        uint32_t side = (uint32_t)ceil(sqrt((double)n));
        float extent = (float)side * 1.5f;
        push_extra(c, plane, ground, (float[3]){0, 0, 0}, extent * 1.2f);
        rill_material mats[8];
        for (uint32_t i = 0; i < 8; i++) {
            if (!(mats[i] = make_material(c, 0.3f + 0.1f * (float)i, 0.5f, 1.0f - 0.1f * (float)i,
                                          0.0f, 0.5f, err))
                     .id) {
                return err ? err->code : RILL_ERR_IO;
            }
        }
        if (!rill_array_reserve(&c->extra, n + 1u)) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (uint32_t i = 0; i < n; i++) {
            float pos[3] = {((float)(i % side) - (float)side * 0.5f) * 1.5f, 0.5f,
                            ((float)(i / side) - (float)side * 0.5f) * 1.5f};
            push_extra(c, i % 3 == 2 ? sphere : cube, mats[i % 8], pos, 1.0f);
        }
        spawn_camera(w, "Camera", (float[3]){0, extent * 0.5f + 2.0f, extent * 0.6f + 3.0f},
                     (float[3]){0, 0, 0}, 0, extent * 4.0f + 100.0f);
        spawn_sun(c, "Sun");
        return RILL_OK;
    }
    return rill_error_set(err, RILL_ERR_NOT_FOUND,
                          "unknown built-in scene '%s' (builtin:spheres, builtin:cubes:N with N "
                          "in [1, %u])",
                          name, BUILTIN_MAX_CUBES);
}

/* >>defaults ---------------------------------------------------------------------------------- */

static bool world_has(rill_world *w, rill_component comp) {
    if (!comp.id) {
        return false;
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comp;
    rill_query q = rill_world_query(w, &qd);
    return rill_query_next(&q);
}

static bool world_has_active_camera(rill_world *w) {
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = rill_world_builtin(w)->camera;
    rill_query q = rill_world_query(w, &qd);
    while (rill_query_next(&q)) {
        /* A camera that extract ignores, placed out of the world or not placed at all (no
         * Transform, so no GlobalTransform), does not count: the default one frames instead. */
        const rill_global_transform *xf =
            rill_world_get(w, q.entity, rill_world_builtin(w)->global_transform);
        if (((const rill_camera *)rill_query_get(&q, 0))->active && xf &&
            rill_mat4_in_world_limit(xf->m)) {
            return true;
        }
    }
    return false;
}

static void grow(bool *any, float lo[3], float hi[3], const float p[3], float r) {
    for (int k = 0; k < 3; k++) {
        lo[k] = *any ? RILL_MIN(lo[k], p[k] - r) : p[k] - r;
        hi[k] = *any ? RILL_MAX(hi[k], p[k] + r) : p[k] + r;
    }
    *any = true;
}

/* The glTF asset a spawned tree draws: the first ModelMesh below root (depth first). */
static uint32_t tree_asset(rill_world *w, const rill_render_components *rc, rill_entity root,
                           uint32_t depth) {
    const rill_model_mesh *mm = rill_world_get(w, root, rc->model_mesh);
    if (mm) {
        return mm->asset;
    }
    if (depth > 64) {
        return 0;
    }
    for (rill_entity e = rill_world_first_child(w, root); e; e = rill_world_next_sibling(w, e)) {
        uint32_t a = tree_asset(w, rc, e, depth + 1);
        if (a) {
            return a;
        }
    }
    return 0;
}

/* Each Model's uploaded bounds placed by its spawned root's matrix: the root's Transform is the
 * identity, so that is where the entity puts the model, and it exists even when the entity has
 * no Transform (and so no GlobalTransform): such an entity passes its parent's matrix through,
 * the identity at the top, and its model is drawn there. */
static bool model_bounds(rill_content *c, float lo[3], float hi[3], bool *any) {
    rill_world *w = rill_app_world(c->app);
    rill_render_assets *ra = rill_app_models_render_assets(c->models);
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = c->comps.model;
    rill_query q = rill_world_query(w, &qd);
    bool found = false;
    while (ra && rill_query_next(&q)) {
        rill_entity root = rill_app_models_root(c->models, q.entity);
        uint32_t asset = root ? tree_asset(w, &c->comps, root, 0) : 0;
        const rill_render_model *rm =
            asset ? rill_render_assets_model(ra, (rill_asset){asset}) : NULL;
        const float *m = rm ? rill_world_global_matrix(w, root) : NULL;
        if (!m) {
            continue;
        }
        if (!rill_mat4_in_world_limit(m)) {
            continue; /* not drawn (extract warns): framing it would make the planes inf */
        }
        for (int k = 0; k < 8; k++) {
            float p[3] = {(k & 1) ? rm->bounds_max[0] : rm->bounds_min[0],
                          (k & 2) ? rm->bounds_max[1] : rm->bounds_min[1],
                          (k & 4) ? rm->bounds_max[2] : rm->bounds_min[2]};
            float wp[3];
            for (int i = 0; i < 3; i++) {
                wp[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
            }
            grow(any, lo, hi, wp, 0.0f);
        }
        found = true;
    }
    return found;
}

/* Each Terrain's box: from its entity's translation (the terrain is axis-aligned, rotation and
 * scale ignored) across its chunks, between the heights its samples ([0, 1]) can take. Known from
 * the component alone, before any chunk is built. */
static void terrain_bounds(rill_content *c, float lo[3], float hi[3], bool *any) {
    rill_world *w = rill_app_world(c->app);
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = rill_world_find_component(w, "Terrain");
    qd.with[1] = rill_world_builtin(w)->global_transform;
    if (!qd.with[0].id) {
        return;
    }
    rill_query q = rill_world_query(w, &qd);
    while (rill_query_next(&q)) {
        const rill_terrain *t = rill_query_get(&q, 0);
        const float *m = ((const rill_global_transform *)rill_query_get(&q, 1))->m;
        float y0 = t->height_offset, y1 = t->height_offset + t->height_scale;
        float a[3] = {m[12], m[13] + RILL_MIN(y0, y1), m[14]};
        float b[3] = {m[12] + (float)t->chunks_x * t->chunk_size, m[13] + RILL_MAX(y0, y1),
                      m[14] + (float)t->chunks_z * t->chunk_size};
        if (!rill_mat4_in_world_limit(m) || !isfinite(b[0]) || !isfinite(b[1]) || !isfinite(b[2])) {
            continue;
        }
        grow(any, lo, hi, a, 0.0f);
        grow(any, lo, hi, b, 0.0f);
    }
}

/* What the world draws: the spawned models' boxes; without models, every terrain's box and every
 * MeshInstance and built-in instance as a box of its scale around its origin (procedural meshes
 * are unit sized). */
static bool content_bounds(rill_content *c, float lo[3], float hi[3]) {
    bool any = false;
    if (model_bounds(c, lo, hi, &any)) {
        return true;
    }
    terrain_bounds(c, lo, hi, &any);
    rill_world *w = rill_app_world(c->app);
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = c->comps.mesh_instance;
    qd.with[1] = rill_world_builtin(w)->global_transform;
    rill_query q = rill_world_query(w, &qd);
    while (rill_query_next(&q)) {
        const float *m = ((const rill_global_transform *)rill_query_get(&q, 1))->m;
        if (!rill_mat4_in_world_limit(m)) {
            continue;
        }
        float s = sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        grow(&any, lo, hi, &m[12], 0.5f * s);
    }
    for (uint32_t i = 0; i < c->extra.len; i++) {
        const float *m = c->extra.data[i].transform;
        grow(&any, lo, hi, &m[12], 0.5f * m[0]);
    }
    return any;
}

bool rill_content_bounds(rill_content *content, float lo[3], float hi[3]) {
    float l[3], h[3];
    if (!content || !content->models || !content_bounds(content, l, h)) {
        return false;
    }
    memcpy(lo, l, sizeof l);
    memcpy(hi, h, sizeof h);
    return true;
}

static void apply_defaults(rill_content *c) {
    rill_world *w = rill_app_world(c->app);
    const char *what = c->scene[0] ? c->scene : c->input;
    if (!world_has(w, c->comps.directional_light) && !world_has(w, c->comps.point_light) &&
        !world_has(w, c->comps.spot_light)) {
        spawn_sun(c, "Default Sun");
        c->defaults |= RILL_CONTENT_DEFAULT_LIGHT;
        rill_content_note(c,
                          "%s has no light: added the default sun (DirectionalLight, "
                          "illuminance 3, travelling along (%.1f, %.1f, %.1f))",
                          what, (double)SUN_DIR_X, (double)SUN_DIR_Y, (double)SUN_DIR_Z);
    }
    if (!world_has_active_camera(w)) {
        float lo[3], hi[3], center[3] = {0, 0, 0}, radius = 5.0f;
        if (content_bounds(c, lo, hi)) {
            float ext2 = 0.0f;
            for (int k = 0; k < 3; k++) {
                center[k] = 0.5f * (lo[k] + hi[k]);
                ext2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
            }
            radius = fmaxf(0.5f * sqrtf(ext2), 1e-3f);
        }
        /* Far enough for the bounding sphere to fit the default 0.8 rad vertical field of view,
         * from the front-right-above. */
        float dist = radius / sinf(0.4f) * 1.1f;
        float dir[3] = {0.55f, 0.45f, 0.7f};
        normalize3(dir);
        float eye[3];
        for (int k = 0; k < 3; k++) {
            eye[k] = center[k] + dir[k] * dist;
        }
        spawn_camera(w, "Default Camera", eye, center, fmaxf(dist - radius * 2.0f, dist * 0.01f),
                     dist + radius * 4.0f);
        c->defaults |= RILL_CONTENT_DEFAULT_CAMERA;
        rill_content_note(c,
                          "%s has no active camera: added a default camera framing its bounds "
                          "(centre (%.2f, %.2f, %.2f), radius %.2f)",
                          what, (double)center[0], (double)center[1], (double)center[2],
                          (double)radius);
    }
    rill_world_update_transforms(w);
}

/* >>load -------------------------------------------------------------------------------------- */

static rill_result spawn_model_entity(rill_content *c, rill_error *err) {
    rill_world *w = rill_app_world(c->app);
    rill_entity e = spawn_placed(w, rill_path_basename(c->scene), (float[3]){0, 0, 0}, NULL);
    rill_model_ref ref = {rill_intern(c->scene)};
    if (!e || !ref.path || !rill_world_add(w, e, c->comps.model, &ref)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory spawning the model");
    }
    return RILL_OK;
}

static rill_result enable_terrain(rill_content *c, rill_renderer *renderer, rill_error *err);

/* The app's update stages of a frame run while the render thread records the previous one; the
 * extract stage (model uploads, texture swaps) and the snapshot change and read the renderer, so
 * the frame waits for the render thread first there. The failure of a frame stays for
 * rill_renderer_render to report. */
static void sys_render_sync(rill_app *app, void *user) {
    (void)app;
    rill_content *c = user;
    rill_renderer_sync(c->renderer, NULL);
}

static rill_result add_render_sync(rill_content *c, rill_error *err) {
    rill_renderer_settings rs;
    rill_renderer_get_settings(c->renderer, &rs);
    if (!rs.render_thread) {
        return RILL_OK;
    }
    c->render_sync =
        rill_app_add_system(c->app, &(rill_system_desc){.name = "rill.render_sync",
                                                        .stage = RILL_STAGE_EXTRACT,
                                                        .order = RILL_SYSTEM_ORDER_BUILTIN - 100,
                                                        .fn = sys_render_sync,
                                                        .user = c});
    if (!c->render_sync.id) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "rill_content_load: cannot add the render sync system");
    }
    return RILL_OK;
}

rill_result rill_content_load(rill_content *c, rill_renderer *renderer, rill_error *err) {
    if (!c || !renderer) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_content_load: NULL argument");
    }
    if (c->renderer) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_content_load: loaded already");
    }
    c->renderer = renderer;
    rill_renderer_set_vfs(renderer, rill_app_vfs(c->app)); /* ColorGrading.lut tables */
    if (add_render_sync(c, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    rill_world *w = rill_app_world(c->app);
    /* Every component the engine knows, before the scene binds its blocks (a Terrain or Collider
     * read before its registration would be kept as unknown text). */
    rill_result r = rill_app_register_components(w, NULL, NULL, err);
    if (r != RILL_OK) {
        return r;
    }
    switch (c->kind) {
    case RILL_CONTENT_KIND_BUILTIN:
        r = load_builtin(c, err);
        break;
    case RILL_CONTENT_KIND_PROJECT:
    case RILL_CONTENT_KIND_SCENE:
        r = rill_scene_load_sync(rill_app_scenes(c->app), c->scene, NULL, err);
        if (r == RILL_OK) { /* the boot load includes the streamed content near the camera */
            rill_stream_settle(rill_app_stream(c->app), 0);
        }
        break;
    case RILL_CONTENT_KIND_MODEL:
        r = spawn_model_entity(c, err);
        break;
    default:
        break;
    }
    if (r != RILL_OK) {
        return r;
    }
    rill_world_update_transforms(w);
    if (c->desc.on_loaded && c->desc.on_loaded(c, renderer, c->desc.user, err) != 0) {
        return err && err->code ? err->code : RILL_ERR_IO;
    }
    c->models = rill_app_enable_models(c->app, renderer, NULL, err);
    if (!c->models) {
        return err ? err->code : RILL_ERR_IO;
    }
    rill_render_assets_set_batching(
        rill_app_models_render_assets(c->models),
        &(rill_render_batching){.enabled = c->project.rendering.static_batching});
    rill_app_models_flush(c->models);
    rill_app_models_stats ms;
    rill_app_models_get_stats(c->models, &ms);
    if (ms.failed) { /* each failure was logged with its entity and file */
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: %u Model entities failed to load",
                              c->scene[0] ? c->scene : c->input, ms.failed);
    }
    apply_defaults(c);
    return enable_terrain(c, renderer, err);
}

/* Physics and terrain for every content: Collider / RigidBody components simulate, Terrain
 * components load, stream and draw. The terrain's first chunks are built before the first frame
 * (those the streaming camera wants, or all of them in edit mode) and their meshes created on the
 * renderer then too: left to the first snapshot, ~100 chunk meshes of the demo were made inside
 * frame 0's extract (8-11 ms of it on the development machine), against about 2 a frame after. */
static rill_result enable_terrain(rill_content *c, rill_renderer *renderer, rill_error *err) {
    c->physics = rill_app_enable_physics(c->app, NULL, err);
    c->terrain = c->physics
                     ? rill_app_enable_terrain(c->app, rill_app_physics_world(c->physics), err)
                     : NULL;
    if (!c->terrain) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    rill_render_terrain_desc rd = {.renderer = renderer,
                                   .world = rill_app_world(c->app),
                                   .terrain = rill_app_terrain_system(c->terrain),
                                   .vfs = rill_app_vfs(c->app)};
    c->render_terrain = rill_render_terrain_create(&rd, err);
    if (!c->render_terrain) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    rill_app_terrain_flush(c->terrain);
    rill_render_terrain_update(c->render_terrain);
    /* Far-world proxies: drawn where streamed instances are not resident (rill/render/hlod.h). */
    c->hlod = rill_render_hlod_create(&(rill_render_hlod_desc){.renderer = renderer,
                                                               .world = rill_app_world(c->app),
                                                               .stream = rill_app_stream(c->app),
                                                               .vfs = rill_app_vfs(c->app),
                                                               .jobs = rill_app_jobs(c->app),
                                                               .main_scene = c->scene},
                                      err);
    if (!c->hlod) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    /* A terrain that failed (its error was logged with its entity) fails the load, as a Model
     * does: a bad heightmap or one over the max_chunks limit must not render a world without it
     * and exit 0. */
    rill_terrain_stats ts;
    rill_terrain_get_stats(rill_app_terrain_system(c->terrain), &ts);
    if (ts.failed) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: %u Terrain entities failed to load",
                              c->scene[0] ? c->scene : c->input, ts.failed);
    }
    /* Scripts last: their init runs at the first frame, with the world, physics and terrain in
     * place. */
    rill_scripts_desc sd = {.physics = rill_app_physics_world(c->physics),
                            .terrain = rill_app_terrain_system(c->terrain),
                            .hot_reload = c->desc.hot_reload};
    c->scripts = rill_app_enable_scripts(c->app, &sd, err);
    return c->scripts ? RILL_OK : (err ? err->code : RILL_ERR_OUT_OF_MEMORY);
}

rill_scripts *rill_content_scripts(const rill_content *c) {
    return c ? rill_app_scripts_system(c->scripts) : NULL;
}

rill_app_physics *rill_content_physics(const rill_content *c) {
    return c ? c->physics : NULL;
}

rill_app_terrain *rill_content_terrain(const rill_content *c) {
    return c ? c->terrain : NULL;
}

rill_render_terrain *rill_content_render_terrain(const rill_content *c) {
    return c ? c->render_terrain : NULL;
}

struct rill_render_hlod *rill_content_hlod(const rill_content *c) {
    return c ? c->hlod : NULL;
}

/* >>settle ------------------------------------------------------------------------------------ */

static bool content_busy(rill_content *c) {
    rill_app *app = c->app;
    rill_stream_stats ss;
    rill_stream_get_stats(rill_app_stream(app), &ss);
    rill_app_models_stats ms;
    rill_app_models_get_stats(c->models, &ms);
    /* Texture streaming: decisions in progress and swaps not yet handed to the renderer (the
     * renderer switches handed ones at its next frame, before drawing). */
    uint32_t tex =
        rill_render_assets_texture_streaming_pending(rill_app_models_render_assets(c->models));
    return rill_scene_loader_pending(rill_app_scenes(app)) > 0 || ss.loading > 0 ||
           ms.pending > 0 || tex > 0;
}

uint32_t rill_content_settle(rill_content *c, uint32_t max_frames, bool *out_settled) {
    if (out_settled) {
        *out_settled = false;
    }
    if (!c || !c->renderer) {
        return 0;
    }
    if (!max_frames) {
        max_frames = 600;
    }
    uint32_t frames = 0, quiet = 0;
    /* Two quiet frames in a row: a load that completes spawns entities (Model entities, nested
     * instances) whose own work starts in the next frame. */
    while (frames < max_frames && quiet < 2) {
        rill_app_frame(c->app);
        frames++;
        quiet = content_busy(c) ? 0 : quiet + 1;
    }
    if (out_settled) {
        *out_settled = quiet >= 2;
    }
    return frames;
}

/* >>snapshot ---------------------------------------------------------------------------------- */

rill_result rill_content_snapshot(rill_content *c, rill_render_snapshot *out, rill_error *err) {
    if (!c || !out || !c->renderer) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_content_snapshot: not loaded (rill_content_load first)");
    }
    rill_renderer_sync(c->renderer, NULL); /* the render thread reads the last snapshot */
    rill_error xerr = {0};
    c->xb.jobs = rill_app_jobs(c->app); /* the walk over the shown models is spread over them */
    rill_result r = rill_render_extract(rill_app_world(c->app), &c->comps, &c->xb, out, &xerr);
    if (r == RILL_ERR_NOT_FOUND && c->have_view) {
        /* The world's cameras went inactive: keep drawing from the last view. */
        out->view = c->last_view;
        out->views = NULL;
        out->view_count = 0;
    } else if (r != RILL_OK) {
        if (err) {
            *err = xerr;
        }
        return r;
    } else {
        c->last_view = out->view;
        c->have_view = true;
    }
    for (uint32_t i = 0; i < c->extra.len; i++) {
        if (!rill_array_push(&c->xb.instances, c->extra.data[i])) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    /* Far-world proxies, seen from the primary view's camera. */
    const rill_render_instance *proxies = NULL;
    uint32_t np = rill_render_hlod_update(c->hlod, &out->view.world_from_view[12], &proxies, NULL);
    for (uint32_t i = 0; i < np; i++) {
        if (!rill_array_push(&c->xb.instances, proxies[i])) {
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    out->instances = c->xb.instances.data;
    out->instance_count = c->xb.instances.len;
    /* The appended instances marked as extract marks its own (no marks when it failed). */
    if (rill_render_extract_mark_appended(&c->xb, out, err) != RILL_OK) {
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    out->ranges = c->xb.ranges.data;
    out->range_count = c->xb.ranges.len;
    out->lights = c->xb.lights.data;
    out->light_count = c->xb.lights.len;
    if (c->look.set_clear_color) {
        memcpy(out->view.clear_color, c->look.clear_color, sizeof(float) * 3);
        for (uint32_t i = 0; i < out->view_count; i++) {
            memcpy(c->xb.views[i].clear_color, c->look.clear_color, sizeof(float) * 3);
        }
    }
    if (c->look.ambient[0] + c->look.ambient[1] + c->look.ambient[2] > 0.0f) {
        memcpy(out->ambient, c->look.ambient, sizeof(out->ambient));
    }
    /* project.toml's [rendering] ambient: the multiplier of worlds without a WorldEnvironment */
    out->ambient_scale = c->project.rendering.ambient;
    out->ambient_scale_set = true; /* 0 there is no ambient light, not the default */
    return RILL_OK;
}

void rill_content_release(rill_content *c) {
    if (!c) {
        return;
    }
    if (c->renderer) { /* nothing below may change what a frame in progress reads */
        rill_renderer_sync(c->renderer, NULL);
    }
    if (c->render_sync.id) {
        rill_app_remove_system(c->app, c->render_sync);
    }
    c->render_sync = (rill_system){0};
    rill_app_disable_scripts(c->scripts); /* final() may still read models, physics, terrain */
    c->scripts = NULL;
    rill_app_disable_models(c->models);
    c->models = NULL;
    rill_render_hlod_destroy(c->hlod);
    c->hlod = NULL;
    rill_render_terrain_destroy(c->render_terrain);
    rill_app_disable_terrain(c->terrain);
    rill_app_disable_physics(c->physics);
    c->render_terrain = NULL;
    c->terrain = NULL;
    c->physics = NULL;
    if (c->renderer) {
        for (uint32_t i = 0; i < c->materials.len; i++) {
            rill_render_material_destroy(c->renderer, c->materials.data[i]);
        }
        for (uint32_t i = 0; i < c->meshes.len; i++) {
            if (c->meshes.data[i].id) {
                rill_render_mesh_destroy(c->renderer, c->meshes.data[i]);
            }
        }
        rill_renderer_set_vfs(c->renderer, NULL); /* the app's file system may go first */
    }
    c->materials.len = c->meshes.len = c->extra.len = 0;
    c->renderer = NULL;
}

static void free_render_state(rill_content *c) {
    rill_render_extract_buf_free(&c->xb);
    rill_array_free(&c->extra);
    rill_array_free(&c->meshes);
    rill_array_free(&c->materials);
}

#else /* built without the renderer */

void rill_content_renderer_desc(rill_content *c, struct rill_renderer_desc *d) {
    (void)c, (void)d;
}

rill_app_models *rill_content_models(const rill_content *c) {
    (void)c;
    return NULL;
}

struct rill_render_components *rill_content_render_components(rill_content *c) {
    (void)c;
    return NULL;
}

uint32_t rill_content_settle(rill_content *c, uint32_t max_frames, bool *out_settled) {
    (void)c, (void)max_frames;
    if (out_settled) {
        *out_settled = false;
    }
    return 0;
}

rill_app_physics *rill_content_physics(const rill_content *c) {
    (void)c;
    return NULL;
}

rill_app_terrain *rill_content_terrain(const rill_content *c) {
    (void)c;
    return NULL;
}

struct rill_render_terrain *rill_content_render_terrain(const rill_content *c) {
    (void)c;
    return NULL;
}

struct rill_render_hlod *rill_content_hlod(const rill_content *c) {
    (void)c;
    return NULL;
}

rill_scripts *rill_content_scripts(const rill_content *c) {
    (void)c;
    return NULL;
}

rill_result rill_content_load(rill_content *c, rill_renderer *renderer, rill_error *err) {
    (void)c, (void)renderer;
    return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                          "rill_content_load: built without the renderer");
}

rill_result rill_content_snapshot(rill_content *c, struct rill_render_snapshot *out,
                                  rill_error *err) {
    (void)c, (void)out;
    return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                          "rill_content_snapshot: built without the renderer");
}

void rill_content_release(rill_content *c) {
    (void)c;
}

static void free_render_state(rill_content *c) {
    (void)c;
}

#endif

void rill_content_destroy(rill_content *c) {
    if (!c) {
        return;
    }
    rill_content_release(c);
    free_render_state(c);
    if (c->owns_app) {
        rill_app_destroy(c->app);
    }
    rill_strbuf_free(&c->notes);
    rill_free(c);
}
