/* cmd_render.c: `rill render SCENE_OR_MODEL --size WxH --out frame.png [--frames N]`, a headless
 * render to PNG. The input is a glTF model (.glb/.gltf, framed automatically with a default sun),
 * a scene (.rsn: loaded into an app's world; "Model" entities spawn their glTF node trees through
 * the app's model system; the camera, lights and meshes are extracted), or a
 * built-in test scene (builtin:spheres, builtin:cubes:N). */
#include "cli_args.h"
#include "cmds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/app.h"
#include "rill/asset.h"
#include "rill/render.h"
#include "rill/scene.h"
#include "rill/world.h"

typedef struct render_opts {
    const char *input, *out, *device;
    uint32_t w, h, frames;
    rill_tonemapper tonemap;
    float exposure, render_scale;
    uint32_t debug_flags;
    int ssao;    /* -1 off, else rill_ssao_quality */
    float bloom; /* intensity; 0 = off */
    bool dump_graph, stats, validation, auto_exposure;
} render_opts;

typedef struct scene_state {
    RILL_ARRAY(rill_render_instance) inst;
    RILL_ARRAY(rill_render_light) lights;
    RILL_ARRAY(rill_render_model) models;
    rill_mesh meshes[3];
    RILL_ARRAY(rill_material) mats;
    rill_render_snapshot snap;
    rill_app *app;               /* scenes only: the world and its model system */
    rill_app_models *models_sys; /* owns the uploads of the scene's Model files */
} scene_state;

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill render SCENE_OR_MODEL --size WxH --out frame.png [options]\n"
        "  SCENE_OR_MODEL  a .glb/.gltf model, a .rsn scene, builtin:spheres or builtin:cubes:N\n"
        "  --size WxH      output size (default 1280x720)\n"
        "  --out PATH      PNG to write (required)\n"
        "  --frames N      frames to render before writing (default 1)\n"
        "  --tonemap aces|agx|none, --exposure EV\n"
        "  --device NAME   pick a Vulkan device by name (also RILL_DEVICE)\n"
        "  --validation    enable the Vulkan validation layers (also RILL_VALIDATION=1)\n"
        "  --dump-graph    print the compiled render graph\n"
        "  --stats         print per-pass GPU times and counters\n");
}

static void look_at(rill_render_view *v, const float eye[3], const float target[3]) {
    mat4 view, inv;
    glm_lookat((float *)eye, (float *)target, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, inv);
    memcpy(v->world_from_view, inv, sizeof(mat4));
}

static void default_lighting(rill_render_snapshot *s) {
    s->has_sun = true;
    s->sun.direction[0] = -0.4f, s->sun.direction[1] = -1.0f, s->sun.direction[2] = -0.5f;
    s->sun.color[0] = 1.0f, s->sun.color[1] = 0.96f, s->sun.color[2] = 0.9f;
    s->sun.illuminance = 3.0f;
    s->sun.shadows = true;
    s->ambient[0] = s->ambient[1] = s->ambient[2] = 0.08f;
    s->view.clear_color[0] = 0.05f, s->view.clear_color[1] = 0.07f, s->view.clear_color[2] = 0.12f;
}

static bool push_instance(scene_state *st, rill_mesh mesh, rill_material mat, const float m[16]) {
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = st->inst.len + 1;
    in.mesh = mesh;
    in.material = mat;
    memcpy(in.transform, m, sizeof(in.transform));
    return rill_array_push(&st->inst, in);
}

static int build_builtin(rill_renderer *r, const char *name, scene_state *st, rill_error *err) {
    st->meshes[0] = rill_render_mesh_cube(r, err);
    st->meshes[1] = rill_render_mesh_sphere(r, 32, err);
    st->meshes[2] = rill_render_mesh_plane(r, err);
    if (!st->meshes[0].id || !st->meshes[1].id || !st->meshes[2].id)
        return 1;
    default_lighting(&st->snap);
    mat4 m;
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.6f, md.base_color[3] = 1.0f;
    md.roughness = 0.8f;
    rill_material ground = rill_render_material_create(r, &md, err);
    if (!ground.id || !rill_array_push(&st->mats, ground))
        return 1;
    if (strcmp(name, "spheres") == 0) {
        glm_mat4_identity(m);
        glm_scale_uni(m, 20.0f);
        push_instance(st, st->meshes[2], ground, (float *)m);
        for (int i = 0; i < 5; i++)
            for (int row = 0; row < 2; row++) {
                memset(&md, 0, sizeof(md));
                md.base_color[0] = row ? 0.8f : 1.0f, md.base_color[1] = row ? 0.1f : 0.78f;
                md.base_color[2] = row ? 0.1f : 0.34f, md.base_color[3] = 1.0f;
                md.metallic = row ? 0.0f : 1.0f;
                md.roughness = 0.1f + 0.2f * (float)i;
                rill_material mat = rill_render_material_create(r, &md, err);
                if (!mat.id || !rill_array_push(&st->mats, mat))
                    return 1;
                glm_mat4_identity(m);
                glm_translate(
                    m, (vec3){-2.4f + 1.2f * (float)i, row ? 0.5f : 1.6f, row ? 0.6f : -0.6f});
                push_instance(st, st->meshes[1], mat, (float *)m);
            }
        look_at(&st->snap.view, (float[3]){0, 3.2f, 6.5f}, (float[3]){0, 0.6f, 0});
        return 0;
    }
    unsigned n = 0;
    if (sscanf(name, "cubes:%u", &n) == 1 && n > 0 && n <= 10000000u) {
        uint32_t side = (uint32_t)ceil(sqrt((double)n));
        float extent = (float)side * 1.5f;
        glm_mat4_identity(m);
        glm_scale_uni(m, extent * 1.2f);
        push_instance(st, st->meshes[2], ground, (float *)m);
        for (uint32_t i = 0; i < 8; i++) {
            memset(&md, 0, sizeof(md));
            md.base_color[0] = 0.3f + 0.1f * (float)i, md.base_color[1] = 0.5f,
            md.base_color[2] = 1.0f - 0.1f * (float)i;
            md.base_color[3] = 1.0f;
            md.roughness = 0.5f;
            rill_material mat = rill_render_material_create(r, &md, err);
            if (!mat.id || !rill_array_push(&st->mats, mat))
                return 1;
        }
        for (uint32_t i = 0; i < n; i++) {
            glm_mat4_identity(m);
            glm_translate(m, (vec3){((float)(i % side) - (float)side * 0.5f) * 1.5f, 0.5f,
                                    ((float)(i / side) - (float)side * 0.5f) * 1.5f});
            if (!push_instance(st, st->meshes[i % 3 == 2 ? 1 : 0], st->mats.data[1 + i % 8],
                               (float *)m))
                return 1;
        }
        look_at(&st->snap.view, (float[3]){0, extent * 0.5f + 2.0f, extent * 0.6f + 3.0f},
                (float[3]){0, 0, 0});
        st->snap.view.far_plane = extent * 4.0f + 100.0f;
        return 0;
    }
    rill_error_set(err, RILL_ERR_NOT_FOUND, "unknown built-in scene '%s' (spheres, cubes:N)", name);
    return 1;
}

static bool add_model_instances(scene_state *st, const rill_render_model *rm,
                                const float parent[16]) {
    for (uint32_t i = 0; i < rm->instance_count; i++) {
        /* Aligned copies: cglm's SIMD matrix product needs 16-byte alignment. */
        mat4 pm, im, m;
        memcpy(pm, parent, sizeof(mat4));
        memcpy(im, rm->instances[i].transform, sizeof(mat4));
        glm_mat4_mul(pm, im, m);
        if (!push_instance(st, rm->instances[i].mesh, rm->instances[i].material, (float *)m))
            return false;
    }
    return true;
}

static int load_model(rill_renderer *r, const char *path, scene_state *st, rill_render_model *out,
                      rill_error *err) {
    rill_gltf_model *gm = NULL;
    if (rill_gltf_read_file(path, NULL, &gm, err) != RILL_OK)
        return 1;
    char dir[1024];
    if (!rill_path_dirname(dir, sizeof(dir), path))
        dir[0] = 0;
    rill_result res = rill_render_model_create(r, gm, dir[0] ? dir : ".", out, err);
    rill_gltf_model_free(gm);
    if (res != RILL_OK)
        return 1;
    if (!rill_array_push(&st->models, *out)) {
        rill_render_model_destroy(r, out);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        return 1;
    }
    return 0;
}

static int build_model(rill_renderer *r, const char *path, scene_state *st, rill_error *err) {
    rill_render_model rm;
    if (load_model(r, path, st, &rm, err))
        return 1;
    mat4 ident;
    glm_mat4_identity(ident);
    if (!add_model_instances(st, &rm, (float *)ident))
        return 1;
    default_lighting(&st->snap);
    /* Frame the bounds: look from the front-right-above, far enough for the bounding sphere. */
    vec3 c, ext;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (rm.bounds_min[k] + rm.bounds_max[k]);
        ext[k] = rm.bounds_max[k] - rm.bounds_min[k];
    }
    float radius = fmaxf(0.5f * glm_vec3_norm(ext), 1e-3f);
    float dist = radius / sinf(0.4f) * 1.1f;
    vec3 dir = {0.55f, 0.45f, 0.7f};
    glm_vec3_normalize(dir);
    float eye[3] = {c[0] + dir[0] * dist, c[1] + dir[1] * dist, c[2] + dir[2] * dist};
    look_at(&st->snap.view, eye, c);
    st->snap.view.near_plane = fmaxf(dist - radius * 2.0f, dist * 0.01f);
    st->snap.view.far_plane = dist + radius * 4.0f;
    return 0;
}

/* A scene goes through an app (deterministic: no worker threads) with the shared model system:
 * Model entities load their glTF files through the asset server and spawn their node trees. The
 * app lives in st until the frames are rendered (the uploads belong to its model system). */
static int build_scene(rill_renderer *r, const char *path, scene_state *st, rill_error *err) {
    char dir[1024];
    if (!rill_path_dirname(dir, sizeof(dir), path) || !dir[0])
        snprintf(dir, sizeof(dir), ".");
    st->app = rill_app_create(&(rill_app_desc){.deterministic = true, .root = dir}, err);
    if (!st->app)
        return 1;
    rill_world *world = rill_app_world(st->app);
    rill_render_components comps;
    if (rill_render_register_components(world, &comps, err) != RILL_OK)
        return 1;
    st->models_sys = rill_app_enable_models(st->app, r, NULL, err);
    if (!st->models_sys || rill_scene_load_sync(rill_app_scenes(st->app), rill_path_basename(path),
                                                NULL, err) != RILL_OK)
        return 1;
    rill_world_update_transforms(world);
    rill_app_models_flush(st->models_sys);
    rill_app_models_stats ms;
    rill_app_models_get_stats(st->models_sys, &ms);
    if (ms.failed) /* each failure was logged with its entity and file */
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: %u Model entities failed to load", path,
                              ms.failed),
               1;
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    int rc = 1;
    if (rill_render_extract(world, &comps, &xb, &snap, err) != RILL_OK)
        goto done;
    st->snap = snap;
    /* The command line's view options apply to the primary camera view: draw that one alone. */
    st->snap.views = NULL;
    st->snap.view_count = 0;
    for (uint32_t i = 0; i < xb.instances.len; i++)
        if (!rill_array_push(&st->inst, xb.instances.data[i]))
            goto done;
    for (uint32_t i = 0; i < xb.lights.len; i++)
        if (!rill_array_push(&st->lights, xb.lights.data[i]))
            goto done;
    rc = 0;
done:
    rill_render_extract_buf_free(&xb);
    return rc;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int parse(int argc, char **argv, render_opts *o) {
    memset(o, 0, sizeof(*o));
    o->w = 1280, o->h = 720, o->frames = 1;
    o->ssao = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--size") == 0 && v) {
            if (sscanf(v, "%ux%u", &o->w, &o->h) != 2 || !o->w || !o->h || o->w > 16384 ||
                o->h > 16384) {
                fprintf(stderr, "rill render: bad --size '%s' (want WxH)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--out") == 0 && v) {
            o->out = v, i++;
        } else if (strcmp(a, "--frames") == 0 && v) {
            long long n = 0;
            if (!rill_cli_parse_int(v, 1, 1000000, &n)) {
                fprintf(stderr, "rill render: bad --frames '%s' (want a count in [1, 1000000])\n",
                        v);
                return 2;
            }
            o->frames = (uint32_t)n, i++;
        } else if (strcmp(a, "--tonemap") == 0 && v) {
            o->tonemap = strcmp(v, "agx") == 0    ? RILL_TONEMAP_AGX
                         : strcmp(v, "none") == 0 ? RILL_TONEMAP_NONE
                                                  : RILL_TONEMAP_ACES;
            i++;
        } else if (strcmp(a, "--exposure") == 0 && v) {
            o->exposure = strtof(v, NULL), i++;
        } else if (strcmp(a, "--bloom") == 0 && v) {
            o->bloom = strtof(v, NULL), i++;
        } else if (strcmp(a, "--ssao") == 0 && v) {
            o->ssao = strcmp(v, "low") == 0      ? RILL_SSAO_LOW
                      : strcmp(v, "medium") == 0 ? RILL_SSAO_MEDIUM
                      : strcmp(v, "ultra") == 0  ? RILL_SSAO_ULTRA
                                                 : RILL_SSAO_HIGH;
            i++;
        } else if (strcmp(a, "--debug-view") == 0 && v) {
            o->debug_flags = strcmp(v, "motion") == 0 ? RILL_RENDER_DEBUG_VIEW_MOTION
                                                      : RILL_RENDER_DEBUG_VIEW_NORMALS;
            i++;
        } else if (strcmp(a, "--render-scale") == 0 && v) {
            o->render_scale = strtof(v, NULL), i++;
        } else if (strcmp(a, "--device") == 0 && v) {
            o->device = v, i++;
        } else if (strcmp(a, "--auto-exposure") == 0) {
            o->auto_exposure = true;
        } else if (strcmp(a, "--validation") == 0) {
            o->validation = true;
        } else if (strcmp(a, "--dump-graph") == 0) {
            o->dump_graph = true;
        } else if (strcmp(a, "--stats") == 0) {
            o->stats = true;
        } else if (a[0] == '-' || o->input) {
            fprintf(stderr, "rill render: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            o->input = a;
        }
    }
    if (!o->input || !o->out) {
        usage(stderr);
        return 2;
    }
    return 0;
}

int rill_cmd_render(int argc, char **argv) {
    render_opts o;
    int prc = parse(argc, argv, &o);
    if (prc)
        return prc < 0 ? 0 : prc;
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = o.w;
    d.height = o.h;
    d.device_name = o.device;
    d.render_scale = o.render_scale;
    d.debug_flags = o.debug_flags;
    if (o.ssao >= 0)
        d.quality = RILL_RENDER_QUALITY_HIGH; /* the tier that runs SSAO */
    d.validation = o.validation ? 1 : 0;
    rill_renderer *r = NULL;
    rill_error err = {0};
    if (rill_renderer_create(&d, &r, &err) != RILL_OK) {
        fprintf(stderr, "rill render: %s\n", err.msg);
        return 1;
    }
    scene_state st;
    memset(&st, 0, sizeof(st));
    int rc;
    if (strncmp(o.input, "builtin:", 8) == 0)
        rc = build_builtin(r, o.input + 8, &st, &err);
    else if (ends_with(o.input, ".glb") || ends_with(o.input, ".gltf"))
        rc = build_model(r, o.input, &st, &err);
    else if (ends_with(o.input, ".rsn"))
        rc = build_scene(r, o.input, &st, &err);
    else
        rc = (rill_error_set(&err, RILL_ERR_UNSUPPORTED,
                             "%s: not a .glb, .gltf, .rsn or builtin: input", o.input),
              1);
    if (rc == 0) {
        st.snap.instances = st.inst.data;
        st.snap.instance_count = st.inst.len;
        st.snap.lights = st.lights.data;
        st.snap.light_count = st.lights.len;
        if (o.tonemap)
            st.snap.view.tonemapper = o.tonemap;
        if (o.exposure != 0.0f)
            st.snap.view.exposure_ev = o.exposure;
        st.snap.view.auto_exposure.enabled = o.auto_exposure;
        if (o.bloom > 0.0f) {
            st.snap.view.bloom.enabled = true;
            st.snap.view.bloom.intensity = o.bloom;
        }
        if (o.ssao >= 0) {
            st.snap.view.ssao.enabled = true;
            st.snap.view.ssao.quality = (rill_ssao_quality)o.ssao;
        }
        for (uint32_t f = 0; f < o.frames && rc == 0; f++)
            if (rill_renderer_render(r, &st.snap, &err) != RILL_OK)
                rc = 1;
        if (rc == 0 && rill_renderer_write_png(r, o.out, &err) != RILL_OK)
            rc = 1;
    }
    if (rc)
        fprintf(stderr, "rill render: %s\n", err.msg);
    if (rc == 0) {
        rill_render_stats s;
        rill_renderer_stats(r, &s);
        printf("rendered %s -> %s (%ux%u, %u frames, %u/%u instances visible, %u draws) on %s\n",
               o.input, o.out, o.w, o.h, o.frames, s.instances_visible, s.instances_submitted,
               s.draw_calls, s.device_name);
        if (o.stats) {
            printf("cpu record %.3f ms (plus %.3f ms waiting for a frame slot)\n", s.cpu_record_ms,
                   s.cpu_wait_ms);
            for (uint32_t i = 0; i < s.pass_count; i++)
                printf("gpu %-32s %.3f ms\n", s.pass_names[i], s.pass_gpu_ms[i]);
            if (s.validation)
                printf("validation messages: %u\n", s.validation_messages);
        }
        if (o.dump_graph) {
            rill_strbuf sb = {0};
            rill_renderer_dump_graph(r, &sb);
            if (sb.data)
                fputs(sb.data, stdout);
            rill_strbuf_free(&sb);
        }
        if (s.validation_messages)
            rc = 1;
    }
    for (uint32_t i = 0; i < st.models.len; i++)
        rill_render_model_destroy(r, &st.models.data[i]);
    rill_array_free(&st.models);
    rill_app_disable_models(st.models_sys);
    rill_app_destroy(st.app);
    rill_array_free(&st.inst);
    rill_array_free(&st.lights);
    rill_array_free(&st.mats);
    rill_renderer_destroy(r);
    return rc;
}
