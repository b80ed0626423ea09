/* cmd_render.c: `rill render [INPUT] --out frame.png [options]`, a headless render to PNG. INPUT
 * is anything rill_content_open takes (rill/app.h, ON PLAYING CONTENT): a project folder or its
 * project.toml, a .rsn scene, a .glb/.gltf model, builtin:spheres or builtin:cubes:N, or nothing
 * with --pack (or a pack appended to this program). The scene is set up by the same code as
 * `rill run` and `rill demo`: the world, its Model entities, and stated defaults for a missing
 * light or camera. */
#include "cli_args.h"
#include "cli_opts.h"
#include "cmds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/app.h"
#include "rill/asset.h"
#include "rill/channels.h"
#include "rill/render.h"
#include "rill/render/debug.h"
#include "rill/render/environment.h"
#include "rill/scene.h"
#include "rill/scene/anim.h"
#include "rill/world.h"

typedef struct render_opts {
    const char *input, *out, *device, *pack;
    const char *camera; /* --camera NAME: that camera alone, over the whole output */
    uint32_t w, h, frames;
    int tonemap; /* 0: the view's own, else rill_tonemapper */
    float exposure, render_scale;
    int debug_flags;      /* RILL_RENDER_DEBUG_VIEW_*, or PANEL_BIT | a rill_render_panel */
    float pick_x, pick_y; /* --pick X,Y (when pick_set): the material panel's pixel */
    bool pick_set;
    int ssao;    /* -1 off, else rill_ssao_quality */
    float bloom; /* intensity; 0 = off */
    bool size_set, dump_graph, stats, validation, auto_exposure, heatmap, strict, gpu_cull;
    bool render_thread_on, render_thread_off; /* --render-thread, --no-render-thread */
    int render_thread; /* rill_cli_render_thread: 0 = the project's (on), 1 on, -1 off */
    bool no_occlusion;
    int quality;         /* 0 = the project's, else rill_render_quality */
    rill_cli_effects fx; /* --effect, --plugins */
    /* --channel NAME=MODE, in order (a later one for the same channel wins) */
    const char *channels[RILL_CHANNEL_COUNT];
    uint32_t channel_count;
    int passthrough;                 /* -1: the camera's own, else rill_passthrough */
    rill_render_wireframe wireframe; /* --wireframe-fade / --wireframe-color (zero: defaults) */
    float time_of_day;               /* --time-of-day HOURS (when tod_set) */
    bool tod_set;
    float time; /* --time SECONDS (when time_set): every AnimationPlayer held there */
    bool time_set;
    const char *variant; /* --variant NAME: every Model drawn in that material variant */
} render_opts;

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill render [INPUT] --out frame.png [options]\n"
        "  INPUT               a project folder (or its project.toml), a .rsn scene, a .glb/.gltf\n"
        "                      model, a .rpak (as --pack), builtin:spheres or builtin:cubes:N; "
        "none\n"
        "                      with --pack (or a pack appended to this program) plays the pack's\n"
        "                      project\n"
        "  --out PATH          PNG to write (required)\n"
        "  --pack FILE         mount a .rpak before the project folder; INPUT may then be a path\n"
        "                      inside it\n"
        "  --size WxH          output size (default: the project's [window] size, else 1280x720)\n"
        "  --frames N          frames to render before writing (default 1)\n"
        "  --tonemap aces|agx|none\n"
        "  --exposure EV       exposure compensation in stops\n"
        "  --auto-exposure     adapt the exposure to the image\n"
        "  --bloom INTENSITY   bloom on with this intensity (> 0)\n"
        "  --ssao low|medium|high|ultra\n"
        "                      screen-space ambient occlusion (selects the High quality tier)\n"
        "  --effect NAME[:field=value,...]\n"
        "                      put effect settings on every camera (repeatable): any routed\n"
        "                      settings component by name or effect id (Bloom, "
        "ssao:quality=Ultra,\n"
        "                      Sepia:strength=0.5); fields as `rill components` lists them,\n"
        "                      a vector as (1, 0.3, 0.3, 1) or 1,0.3,0.3,1; checked before\n"
        "                      the content loads. Effects the scene holds apply without it\n"
        "  --plugins DIR       also load the effect plugins of DIR (repeatable; the shipped\n"
        "                      plugins, which `rill plugins` lists, load anyway)\n"
        "  --no-plugins        load no plugins, not even the shipped ones\n"
        "  --strict            unknown components and missing assets in the scenes are errors\n"
        "                      (without it they are warnings naming FILE:LINE:COL)\n"
        "  --quality low|medium|high\n"
        "                      quality tier, a ceiling on effects (default: the project's)\n"
        "  --debug-view normals|motion|stats|culling|cameras|material\n"
        "                      normals, motion: the prepass outputs instead of the image;\n"
        "                      stats: draws, triangles, per-pass GPU and CPU time, memory by tag\n"
        "                      drawn over the image; culling: the scene seen from behind the\n"
        "                      camera, its frustum (yellow) frozen, instance bounds green when\n"
        "                      drawn, red when culled; cameras: the same view with every\n"
        "                      camera's frustum (white, near plane orange) and the shadow\n"
        "                      cascades; material: what draws the entity at --pick (default the\n"
        "                      centre pixel): pipeline, shader, textures with their resident\n"
        "                      level, samplers, render mode and channels, on the image and as\n"
        "                      one JSON line on stdout (\"material: {...}\")\n"
        "  --pick X,Y          the pixel the material view describes\n"
        "  --gpu-cull          GPU-driven culling and drawing of plain opaque instances (also\n"
        "                      [rendering] gpu_culling in project.toml)\n"
        "  --no-render-thread  record and submit frames on the main thread (default: on a\n"
        "                      render thread, as [rendering] render_thread in project.toml,\n"
        "                      default true; the pixels are the same)\n"
        "  --render-thread     on a render thread even where the project turns it off\n"
        "  --no-occlusion      with GPU culling, no occlusion culling (also [rendering]\n"
        "                      gpu_occlusion = false)\n"
        "  --time-of-day HOURS turn the sun (the DirectionalLight marked sun, else the first)\n"
        "                      to this hour at latitude 45, equinox (6 sunrise toward +X, 12\n"
        "                      noon toward -Z, 18 sunset toward -X)\n"
        "  --time SECONDS      pose every AnimationPlayer at this time of its clip (paused);\n"
        "                      a model (or a scene without players) plays its first clip\n"
        "  --variant NAME      draw every model in its glTF material variant NAME\n"
        "                      (KHR_materials_variants; sets each Model's variant); an error\n"
        "                      when no model has it\n"
        "  --render-scale S    3D passes at this fraction of the output size, in [0.1, 2]; never\n"
        "                      above the output (default: the project's [rendering] render_scale)\n"
        "  --device NAME       pick a Vulkan device by name (also RILL_DEVICE)\n"
        "  --validation        enable the Vulkan validation layers (also RILL_VALIDATION=1); any\n"
        "                      validation message fails the command\n"
        "  --dump-graph        print the compiled render graph\n"
        "  --stats             print the CPU time of each step (load, upload, extract, record),\n"
        "                      per-pass GPU times, the effects that ran with their GPU time\n"
        "                      and counters\n"
        "  --texture-heatmap   draw every model material flat in its texture streaming state\n"
        "                      (green full, blue #low, amber swapping, grey not streamed)\n"
        "  --channel NAME=MODE render mode of a scene channel (repeatable): NAME is context,\n"
        "                      selectable, preserve-identity, ghost or bitN (0-63); MODE is\n"
        "                      normal, hidden, wireframe or ghost:OPACITY (0..1, e.g. ghost:0.35)\n"
        "  --passthrough off|mixed\n"
        "                      every camera's passthrough output (default: the Camera's own).\n"
        "                      off: ghost entities (--channel ghost=ghost:0.35, RenderMode ghost)\n"
        "                      draw as ordinary opaque geometry, so their opacity shows nowhere;\n"
        "                      mixed: the PNG's alpha is 0 where nothing drew, 1 on geometry and "
        "a\n"
        "                      ghost's opacity on its pixels, for compositing over a camera feed\n"
        "  --camera NAME       render only the camera of the entity named NAME, over the whole\n"
        "                      output (default: every active camera, laid out by its viewport\n"
        "                      and order, as the scene's split screen or picture in picture)\n"
        "  --wireframe-fade START,END[,MIN_ALPHA]\n"
        "                      fade wireframe lines from full at START metres to MIN_ALPHA\n"
        "                      (default 0.08) of it at END; meshes wholly beyond END are skipped\n"
        "  --wireframe-color R,G,B,A\n"
        "                      wireframe line colour, linear (default 0.2,0.85,1,0.65)\n"
        "A scene with no light gets a default sun and one with no camera a camera framing it; "
        "each\n"
        "default is stated on stderr as a note.\n");
}

static const char *const TONEMAPS[] = {"aces", "agx", "none", NULL};
static const int TONEMAP_VALUES[] = {RILL_TONEMAP_ACES, RILL_TONEMAP_AGX, RILL_TONEMAP_NONE};
static const char *const SSAO_LEVELS[] = {"low", "medium", "high", "ultra", NULL};
static const int SSAO_VALUES[] = {RILL_SSAO_LOW, RILL_SSAO_MEDIUM, RILL_SSAO_HIGH, RILL_SSAO_ULTRA};
/* --debug-view: renderer debug flags, or a debug panel (rill/render/debug.h) marked by PANEL_BIT.
 */
#define PANEL_BIT (1 << 24)
static const char *const DEBUG_VIEWS[] = {"normals", "motion",   "stats", "culling",
                                          "cameras", "material", NULL};
static const int DEBUG_VIEW_FLAGS[] = {
    RILL_RENDER_DEBUG_VIEW_NORMALS,        RILL_RENDER_DEBUG_VIEW_MOTION,
    PANEL_BIT | RILL_RENDER_PANEL_STATS,   PANEL_BIT | RILL_RENDER_PANEL_CULLING,
    PANEL_BIT | RILL_RENDER_PANEL_CAMERAS, PANEL_BIT | RILL_RENDER_PANEL_MATERIAL};
static const char *const PASSTHROUGH_NAMES[] = {"off", "mixed", NULL};

/* --time: every AnimationPlayer paused at t (its clip's time, clamped to the clip by the
 * animation system); without any, each Model entity gets one playing its first clip, so a
 * model file shows its pose. The app's animation update applies it at the next frame. */
static void pose_players(rill_world *w, float t) {
    rill_component player = rill_world_find_component(w, "AnimationPlayer");
    rill_component model = rill_world_find_component(w, "Model");
    const rill_entity *ents;
    void *data;
    uint32_t n = player.id ? rill_world_component_dense(w, player, &ents, &data) : 0;
    for (uint32_t i = 0; i < n; i++) {
        rill_animation_player *p = (rill_animation_player *)data + i;
        p->time = t;
        p->playing = false;
    }
    uint32_t m =
        n || !model.id || !player.id ? 0 : rill_world_component_dense(w, model, &ents, &data);
    rill_entity *models = m ? rill_malloc(sizeof(rill_entity) * m) : NULL;
    for (uint32_t i = 0; models && i < m; i++) {
        models[i] = ents[i];
    }
    for (uint32_t i = 0; models && i < m; i++) {
        rill_animation_player p = {.playing = false, .loop = false, .speed = 1.0f, .time = t};
        rill_world_add(w, models[i], player, &p);
    }
    rill_free(models);
    if (n + m == 0) {
        fprintf(stderr, "warning: --time: nothing to animate (no AnimationPlayer, no Model)\n");
    }
}

/* Where the command's time went, for --stats: wall and main-thread CPU ns per step. */
typedef struct step_times {
    uint64_t wall[4], cpu[4]; /* load, upload, extract (all frames), record (all frames) */
} step_times;
enum { T_LOAD, T_UPLOAD, T_EXTRACT, T_RECORD };

static void time_begin(uint64_t *w, uint64_t *c) {
    *w = rill_time_ns();
    *c = rill_cli_thread_cpu_ns();
}

static void time_end(step_times *t, int k, uint64_t w, uint64_t c) {
    t->wall[k] += rill_time_ns() - w;
    t->cpu[k] += rill_cli_thread_cpu_ns() - c;
}

/* Returns 0 to go on, -1 after --help (exit 0), 2 on a usage error. */
static int parse(int argc, char **argv, render_opts *o) {
    memset(o, 0, sizeof(*o));
    const char *wire_fade = NULL, *wire_color = NULL;
    o->frames = 1;
    o->ssao = -1;
    o->passthrough = -1;
    const rill_cli_opt opts[] = {
        {"--size", RILL_CLI_OPT_SIZE, &o->w, &o->h, .given = &o->size_set},
        {"--out", RILL_CLI_OPT_STRING, &o->out},
        {"--pack", RILL_CLI_OPT_STRING, &o->pack},
        {"--camera", RILL_CLI_OPT_STRING, &o->camera},
        {"--variant", RILL_CLI_OPT_STRING, &o->variant},
        {"--frames", RILL_CLI_OPT_U32, &o->frames, .min = 1, .max = 1000000},
        {"--tonemap", RILL_CLI_OPT_ENUM, &o->tonemap, .names = TONEMAPS, .values = TONEMAP_VALUES},
        {"--passthrough", RILL_CLI_OPT_ENUM, &o->passthrough, .names = PASSTHROUGH_NAMES},
        {"--exposure", RILL_CLI_OPT_FLOAT, &o->exposure, .min = -32, .max = 32,
         .want = "stops in [-32, 32]"},
        {"--bloom", RILL_CLI_OPT_FLOAT, &o->bloom, .min = 0, .max = 100,
         .want = "an intensity in [0, 100]"},
        {"--ssao", RILL_CLI_OPT_ENUM, &o->ssao, .names = SSAO_LEVELS, .values = SSAO_VALUES},
        RILL_CLI_QUALITY_OPT(&o->quality),
        {"--debug-view", RILL_CLI_OPT_ENUM, &o->debug_flags, .names = DEBUG_VIEWS,
         .values = DEBUG_VIEW_FLAGS},
        {"--pick", RILL_CLI_OPT_POINT, &o->pick_x, &o->pick_y, .min = 0, .max = 16384,
         .want = "X,Y output pixels", .given = &o->pick_set},
        {"--render-scale", RILL_CLI_OPT_FLOAT, &o->render_scale, .min = 0.1, .max = 2,
         .want = "[0.1, 2]"},
        {"--time-of-day", RILL_CLI_OPT_FLOAT, &o->time_of_day, .min = 0, .max = 24,
         .want = "hours in [0, 24]", .given = &o->tod_set},
        {"--time", RILL_CLI_OPT_FLOAT, &o->time, .min = 0, .max = 1e6,
         .want = "seconds in [0, 1e6]", .given = &o->time_set},
        {"--device", RILL_CLI_OPT_STRING, &o->device},
        {"--channel", RILL_CLI_OPT_CHANNEL, o->channels, &o->channel_count,
         .max = RILL_CHANNEL_COUNT},
        {"--auto-exposure", RILL_CLI_OPT_FLAG, &o->auto_exposure},
        {"--gpu-cull", RILL_CLI_OPT_FLAG, &o->gpu_cull},
        {"--render-thread", RILL_CLI_OPT_FLAG, &o->render_thread_on},
        {"--no-render-thread", RILL_CLI_OPT_FLAG, &o->render_thread_off},
        {"--no-occlusion", RILL_CLI_OPT_FLAG, &o->no_occlusion},
        {"--validation", RILL_CLI_OPT_FLAG, &o->validation},
        {"--dump-graph", RILL_CLI_OPT_FLAG, &o->dump_graph},
        {"--stats", RILL_CLI_OPT_FLAG, &o->stats},
        {"--texture-heatmap", RILL_CLI_OPT_FLAG, &o->heatmap},
        {"--strict", RILL_CLI_OPT_FLAG, &o->strict},
        {"--wireframe-fade", RILL_CLI_OPT_STRING, &wire_fade},
        {"--wireframe-color", RILL_CLI_OPT_STRING, &wire_color},
    };
    const rill_cli_parser p = {"render", opts, RILL_COUNTOF(opts), &o->input, &o->fx, usage};
    int rc = rill_cli_parse(&p, argc, argv);
    if (rc || (rc = rill_cli_render_thread("render", o->render_thread_on, o->render_thread_off,
                                           &o->render_thread))) {
        return rc;
    }
    if ((wire_fade && !rill_cli_wireframe_fade("render", wire_fade, &o->wireframe)) ||
        (wire_color && !rill_cli_wireframe_color("render", wire_color, &o->wireframe))) {
        return 2;
    }
    if (!o->input && !o->pack && !rill_cli_has_appended_pack()) {
        fprintf(stderr, "rill render: missing INPUT (a project folder, scene, model or --pack)\n");
        usage(stderr);
        return 2;
    }
    if (!o->out) {
        fprintf(stderr, "rill render: missing --out PATH (the PNG to write)\n");
        return 2;
    }
    return 0;
}

/* The static batching stats of the content (enabled false when batching is off). */
static rill_render_batching_stats batching_of(rill_content *c) {
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(rill_app_models_render_assets(rill_content_models(c)),
                                          &bs);
    return bs;
}

/* Meshes and textures reach the GPU under a per-frame byte budget, so a big scene needs a few
 * frames before everything is resident, static batching builds its cells within a time budget
 * per frame, and reflection probes bake one a frame (a captured one over six frames). Tiny frames
 * get all of it there without paying for full-size renders; the output then starts from a
 * complete scene, every probe baked, every cell batched (what is batched does not depend on how
 * fast the machine built the cells). */
#define WARM_UP_FRAMES 64
#define WARM_UP_BATCH_FRAMES 4096 /* a cell a frame at least: the largest worlds fit */
static rill_result warm_up(rill_renderer *r, rill_content *c, const render_opts *o,
                           rill_error *err) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    rill_result res = rill_renderer_resize(r, 32, 18, err);
    for (int f = 0; f < WARM_UP_BATCH_FRAMES && res == RILL_OK; f++) {
        rill_render_snapshot snap;
        if ((res = rill_content_snapshot(c, &snap, err)) != RILL_OK ||
            (res = rill_renderer_render(r, &snap, err)) != RILL_OK ||
            (res = rill_renderer_wait_idle(r, err)) != RILL_OK) {
            break;
        }
        rill_renderer_stats(r, &st);
        rill_render_batching_stats bs = batching_of(c);
        bool building =
            bs.enabled && (bs.cells_waiting || bs.cells_building || bs.cells_built_last_frame);
        bool waiting = st.uploaded_bytes_last_frame != 0 || st.probes_waiting != 0;
        if (!building && (!waiting || f >= WARM_UP_FRAMES)) {
            break;
        }
    }
    if (res == RILL_OK) {
        res = rill_renderer_resize(r, o->w, o->h, err);
    }
    return res;
}

/* The command line's view options on one view. */
static void apply_view_opts_to(const render_opts *o, rill_render_view *v) {
    if (o->tonemap) {
        v->tonemapper = (rill_tonemapper)o->tonemap;
    }
    if (o->exposure != 0.0f) {
        v->exposure_ev = o->exposure;
    }
    if (o->auto_exposure) { /* else the scene's AutoExposure, when routed, stays */
        v->auto_exposure.enabled = true;
    }
    if (o->bloom > 0.0f) {
        v->bloom.enabled = true;
        v->bloom.intensity = o->bloom;
    }
    if (o->ssao >= 0) {
        v->ssao.enabled = true;
        v->ssao.quality = (rill_ssao_quality)o->ssao;
    }
    if (o->passthrough >= 0) {
        v->passthrough = (rill_passthrough)o->passthrough;
    }
}

/* The command line's view options on every view; with --camera (entity `cam`), that camera's
 * view alone over the whole output. False when that camera has no view this frame. */
static bool apply_view_opts(const render_opts *o, rill_entity cam, rill_render_snapshot *snap) {
    if (o->camera) {
        const rill_render_view *pick = snap->view.camera == cam ? &snap->view : NULL;
        for (uint32_t i = 0; !pick && i < snap->view_count; i++) {
            pick = snap->views[i].camera == cam ? &snap->views[i] : NULL;
        }
        if (!pick) {
            return false;
        }
        snap->view = *pick;
        memset(snap->view.viewport, 0, sizeof(snap->view.viewport));
        snap->views = NULL;
        snap->view_count = 0;
    }
    apply_view_opts_to(o, &snap->view);
    /* The extract buffer's views: this command's own copies, edited in place. */
    for (uint32_t i = 0; i < snap->view_count; i++) {
        apply_view_opts_to(o, (rill_render_view *)&snap->views[i]);
    }
    rill_cli_wireframe_apply(&o->wireframe, &snap->wireframe);
    return true;
}

/* --camera NAME: the entity named NAME with a Camera, made active (RILL_ENTITY_NULL with a message
 * naming the flag and the cameras there are). */
static rill_entity find_camera(const render_opts *o, rill_world *w, rill_error *err) {
    rill_component cc = rill_world_builtin(w)->camera;
    rill_entity e = rill_world_find_by_name(w, o->camera);
    rill_camera *cam = e != RILL_ENTITY_NULL ? rill_world_get(w, e, cc) : NULL;
    if (cam) {
        cam->active = true;
        return e;
    }
    char names[512] = "";
    size_t n = 0;
    rill_query q = rill_world_query(w, &(rill_query_desc){.with = {cc}});
    while (rill_query_next(&q) && n + 1 < sizeof(names)) {
        const char *nm = rill_world_get_name(w, q.entity);
        int k =
            snprintf(names + n, sizeof(names) - n, "%s'%s'", n ? ", " : "", nm ? nm : "(unnamed)");
        n += k > 0 ? (size_t)k : 0;
    }
    rill_error_set(err, RILL_ERR_NOT_FOUND, "--camera '%s': %s; the cameras are: %s", o->camera,
                   e != RILL_ENTITY_NULL ? "that entity has no Camera" : "no entity has that Name",
                   names[0] ? names : "none");
    return RILL_ENTITY_NULL;
}

/* --channel options: per-channel render modes on the world (parsed already in parse). */
static void apply_channels(const render_opts *o, rill_world *world) {
    for (uint32_t i = 0; i < o->channel_count; i++) {
        uint64_t ch;
        rill_render_mode mode;
        float op;
        if (rill_channels_parse_assignment(o->channels[i], &ch, &mode, &op, NULL)) {
            rill_channels_set_mode(world, ch, mode, op);
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

static void print_stats(const render_opts *o, rill_renderer *r, rill_content *c,
                        const step_times *t) {
    rill_render_stats s;
    rill_renderer_stats(r, &s);
    rill_renderer_settings rs;
    rill_renderer_get_settings(r, &rs);
    static const char *const names[] = {"load", "upload", "extract", "record"};
    for (int k = 0; k < 4; k++) {
        printf("cpu %-8s %10.3f ms main thread, %10.3f ms wall%s\n", names[k],
               (double)t->cpu[k] * 1e-6, (double)t->wall[k] * 1e-6,
               k == T_LOAD        ? " (plugins, scene, models, streaming in)"
               : k == T_UPLOAD    ? " (meshes and textures to the GPU, batching: warm-up frames)"
               : k == T_EXTRACT   ? " (world to render snapshot, all frames)"
               : rs.render_thread ? " (handing frames to the render thread, all frames)"
                                  : " (recording and submitting, all frames)");
    }
    printf("cpu record %.3f ms (plus %.3f ms waiting for a frame slot)%s\n", s.cpu_record_ms,
           s.cpu_wait_ms, rs.render_thread ? " on the render thread, the last frame" : "");
    for (uint32_t i = 0; i < s.pass_count; i++) {
        printf("gpu %-32s %.3f ms\n", s.pass_names[i], s.pass_gpu_ms[i]);
    }
    printf("gi: %.3f ms (voxelize %.3f ms, %llu units; %u voxels, %u cascades resident)\n", s.gi_ms,
           s.gi_voxelize_ms, (unsigned long long)s.gi_voxel_units, s.gi_voxels_filled,
           s.gi_cascades_resident);
    printf("wireframe draws: %u edge buffers, %u line fill; ghost alpha draws: %u\n",
           s.wire_edge_draws, s.wire_fill_draws, s.ghost_alpha_draws);
    printf("instances: %u submitted, %u visible, %u occluded (GPU culling's occlusion)\n",
           s.instances_submitted, s.instances_visible, s.instances_occluded);
    rill_channels_census cs;
    rill_channels_take_census(rill_app_world(rill_content_app(c)), &cs);
    printf("channels: %u renderable entities, %u without channels, %u stale defaults, %u set "
           "explicitly; context %u, selectable %u, preserve-identity %u, ghost %u\n",
           cs.renderable, cs.unassigned, cs.stale, cs.explicit_set, cs.bits[0], cs.bits[1],
           cs.bits[2], cs.bits[3]);
    rill_render_batching_stats bs = batching_of(c);
    if (bs.enabled) {
        printf("static batching: %u batches of %u entities, %llu cells built, %u waiting\n",
               bs.batches, bs.batched_entities, (unsigned long long)bs.cells_built,
               bs.cells_waiting);
    } else {
        printf("static batching: off\n");
    }
    char line[1024];
    rill_cli_effects_format(r, line, sizeof(line));
    printf("%s\n", line);
    printf("reflections: ssr %.3f ms; probes %u shaded, %u baked (%.3f ms this frame), %u "
           "unusable sources\n",
           s.ssr_gpu_ms, s.probes_shaded, s.probe_bakes, s.probe_bake_gpu_ms, s.probes_failed);
    printf("quality %s, shadow map %u, render scale %.2f (3D %ux%u)\n",
           rs.quality == RILL_RENDER_QUALITY_LOW    ? "low"
           : rs.quality == RILL_RENDER_QUALITY_HIGH ? "high"
                                                    : "medium",
           rs.shadow_map_size, (double)rs.render_scale, rs.width_3d, rs.height_3d);
    if (s.validation) {
        printf("validation messages: %u\n", s.validation_messages);
    }
    (void)o;
}

/* --debug-view material: the entity at --pick (else the centre pixel) described on the image
 * (the overlay) and in json. */
static void material_panel(const render_opts *o, rill_content *c, rill_renderer *r,
                           const rill_render_snapshot *snap, char *json, size_t json_cap) {
    float x = o->pick_set ? o->pick_x : (float)(o->w / 2),
          y = o->pick_set ? o->pick_y : (float)(o->h / 2);
    char text[RILL_RENDER_OVERLAY_MAX_TEXT];
    rill_cli_debug_material(c, r, snap, x, y, (float)o->w, (float)o->h, text, sizeof(text), json,
                            json_cap);
    rill_renderer_set_overlay_text(r, text);
}

int rill_cmd_render(int argc, char **argv) {
    render_opts o;
    int prc = parse(argc, argv, &o);
    if (prc) {
        return prc < 0 ? 0 : prc;
    }
    char why[1024];
    if (!rill_cli_writable(o.out, why, sizeof(why))) {
        fprintf(stderr, "rill render: cannot write --out: %s\n", why);
        return 1;
    }
    if (!rill_path_ext_is(o.out, "png")) { /* "a.jpg" would hold a PNG under another name */
        fprintf(stderr, "rill render: warning: --out %s is written as a PNG (name it .png)\n",
                o.out);
    }
    rill_error err = {0};
    rill_content_desc cd = {.input = o.input, .pack = o.pack, .deterministic = true};
    rill_cli_content_hooks(&cd);
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        fprintf(stderr, "rill render: %s\n", err.msg);
        return 1;
    }
    rill_scene_loader_set_strict(rill_app_scenes(rill_content_app(c)), o.strict);
    step_times times = {0};
    uint64_t w0, c0;
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    rill_content_renderer_desc(c, &d);
    d.vsync = false;
    if (o.size_set) {
        d.width = o.w, d.height = o.h;
    } else if (rill_content_get_kind(c) != RILL_CONTENT_KIND_PROJECT) {
        d.width = 1280, d.height = 720;
    }
    o.w = d.width, o.h = d.height;
    d.device_name = o.device;
    if (o.render_scale > 0.0f) {
        d.render_scale = o.render_scale;
    }
    rill_render_panel panel = RILL_RENDER_PANEL_NONE;
    if (o.debug_flags & PANEL_BIT) {
        panel = (rill_render_panel)(o.debug_flags & ~PANEL_BIT);
        o.debug_flags = 0;
    }
    if (o.pick_set && (o.pick_x >= (float)o.w || o.pick_y >= (float)o.h)) {
        fprintf(stderr, "rill render: --pick %g,%g is outside the %ux%u picture\n",
                (double)o.pick_x, (double)o.pick_y, o.w, o.h);
        rill_content_destroy(c);
        return 2;
    }
    d.debug_flags =
        (d.debug_flags & (RILL_RENDER_DEBUG_GPU_CULL | RILL_RENDER_DEBUG_NO_OCCLUSION)) |
        (uint32_t)o.debug_flags;
    if (o.gpu_cull) {
        d.debug_flags |= RILL_RENDER_DEBUG_GPU_CULL;
    }
    if (o.render_thread) {
        d.render_thread = o.render_thread > 0;
    }
    if (o.no_occlusion) {
        d.debug_flags |= RILL_RENDER_DEBUG_NO_OCCLUSION;
    }
    if (o.ssao >= 0) {
        d.quality = RILL_RENDER_QUALITY_HIGH; /* the tier that runs SSAO */
    }
    if (o.quality) {
        d.quality = (rill_render_quality)o.quality;
    }
    d.validation = o.validation ? 1 : 0;
    rill_renderer *r = NULL;
    rill_cli_progress_start("rill render");
    rill_cli_step("starting the renderer");
    if (!(r = rill_renderer_create(&d, &err))) {
        rill_cli_progress_stop();
        fprintf(stderr, "rill render: %s\n", err.msg);
        rill_content_destroy(c);
        return 1;
    }
    int rc = 1;
    time_begin(&w0, &c0);
    rill_cli_step("loading plugins");
    if (rill_cli_effects_attach(&o.fx, r, c, &err) != RILL_OK) {
        goto done;
    }
    rill_cli_step("loading %s", o.input ? o.input : o.pack ? o.pack : "the appended pack");
    if (rill_content_load(c, r, &err) != RILL_OK) {
        goto done;
    }
    rill_cli_step_done("%u entities", rill_world_entity_count(rill_app_world(rill_content_app(c))));
    if (rill_cli_effects_apply(&o.fx, c, r, &err) != RILL_OK) {
        goto done;
    }
    apply_channels(&o, rill_app_world(rill_content_app(c)));
    if (o.heatmap) {
        rill_render_assets_set_texture_heatmap(
            rill_app_models_render_assets(rill_content_models(c)), true);
    }
    /* Streamed scene instances and their models load over frames: let them arrive first. */
    bool settled = false;
    rill_cli_step("streaming in the scene's instances and models");
    uint32_t settle_frames = rill_content_settle(c, 0, &settled);
    rill_cli_step_done("%u frames, %u entities", settle_frames,
                       rill_world_entity_count(rill_app_world(rill_content_app(c))));
    time_end(&times, T_LOAD, w0, c0);
    if (!settled) {
        fprintf(stderr, "warning: still loading after %u frames; rendering what is there\n",
                settle_frames);
    }
    if (o.tod_set && rill_render_set_time_of_day(rill_app_world(rill_content_app(c)),
                                                 rill_content_render_components(c), o.time_of_day,
                                                 &err) != RILL_OK) {
        goto done;
    }
    if (o.time_set) {
        pose_players(rill_app_world(rill_content_app(c)), o.time);
    }
    if (o.variant && rill_cli_apply_variant(c, o.variant, &err) != RILL_OK) {
        goto done;
    }
    rill_entity cam = RILL_ENTITY_NULL;
    if (o.camera && !(cam = find_camera(&o, rill_app_world(rill_content_app(c)), &err))) {
        goto done;
    }
    rill_cli_step("uploading meshes and textures");
    time_begin(&w0, &c0);
    if (warm_up(r, c, &o, &err) != RILL_OK) {
        goto done;
    }
    time_end(&times, T_UPLOAD, w0, c0);
    {
        rill_render_stats us;
        rill_renderer_stats(r, &us);
        rill_cli_step_done("%.1f MB of textures on the GPU", (double)us.texture_bytes / 1e6);
    }
    print_notes(rill_content_notes(c));
    rill_app *app = rill_content_app(c);
    /* A debug panel gets one frame more: the stats panel shows the frame before the last (the
     * newest timed one), and the material panel picks through the frame before. */
    uint32_t frames = o.frames + (panel != RILL_RENDER_PANEL_NONE ? 1u : 0u);
    rill_render_debug_desc dd = rill_cli_debug_desc(panel, true);
    rill_renderer_set_debug(r, &dd);
    char material_json[16384] = "";
    uint32_t views = 1; /* the last frame's: its visible count sums them */
    rill_cli_step("rendering %u frame%s at %ux%u", o.frames, o.frames == 1 ? "" : "s", o.w, o.h);
    for (uint32_t f = 0; f < frames; f++) {
        rill_app_frame(app);
        rill_render_snapshot snap;
        time_begin(&w0, &c0);
        if (rill_content_snapshot(c, &snap, &err) != RILL_OK) {
            goto done;
        }
        time_end(&times, T_EXTRACT, w0, c0);
        if (!apply_view_opts(&o, cam, &snap)) {
            rill_error_set(&err, RILL_ERR_NOT_FOUND,
                           "--camera '%s': the camera has no view (no GlobalTransform, or beyond "
                           "the %u views a frame draws)",
                           o.camera, RILL_RENDER_MAX_VIEWS);
            goto done;
        }
        views = snap.view_count > 1 ? snap.view_count : 1u;
        if (panel == RILL_RENDER_PANEL_MATERIAL && f + 1 == frames) {
            material_panel(&o, c, r, &snap, material_json, sizeof(material_json));
        }
        time_begin(&w0, &c0);
        if (rill_renderer_render(r, &snap, &err) != RILL_OK) {
            goto done;
        }
        time_end(&times, T_RECORD, w0, c0);
    }
    rill_cli_step("writing %s", o.out);
    if (rill_renderer_write_png(r, o.out, &err) != RILL_OK) {
        goto done;
    }
    rill_cli_progress_stop();
    rc = 0;
    rill_render_stats s;
    rill_renderer_stats(r, &s);
    char over[48] = ""; /* several cameras: each view counts what it sees */
    if (views > 1) {
        snprintf(over, sizeof over, " (summed over %u views)", views);
    }
    printf("rendered %s -> %s (%ux%u, %u frames, %u/%u instances visible%s, %u draws) on %s\n",
           o.input  ? o.input
           : o.pack ? o.pack
                    : "appended pack",
           o.out, o.w, o.h, o.frames, s.instances_visible, s.instances_submitted, over,
           s.draw_calls, s.device_name);
    if (material_json[0]) {
        printf("material: %s\n", material_json);
    }
    if (o.stats) {
        print_stats(&o, r, c, &times);
    }
    if (o.dump_graph) {
        rill_strbuf sb = {0};
        rill_renderer_dump_graph(r, &sb);
        if (sb.data) {
            fputs(sb.data, stdout);
        }
        rill_strbuf_free(&sb);
    }
    if (s.validation_messages) {
        fprintf(stderr, "rill render: %u validation messages\n", s.validation_messages);
        rc = 1;
    }
done:
    rill_cli_progress_stop();
    if (rc && err.msg[0]) {
        fprintf(stderr, "rill render: %s\n", err.msg);
    }
    rill_content_release(c);
    rill_cli_effects_release(&o.fx);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return rc;
}
