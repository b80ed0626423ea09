/* cmd_render.c: `rill render [INPUT] --out frame.png [options]`, a headless render to PNG. INPUT
 * is anything rill_content_open takes (rill/app.h, ON PLAYING CONTENT): a project folder or its
 * project.toml, a .rsn scene, a .glb/.gltf model, builtin:spheres or builtin:cubes:N, or nothing
 * with --pack (or a pack appended to this program). The scene is set up by the same code as
 * `rill run` and `rill demo`: the world, its Model entities, and stated defaults for a missing
 * light or camera. */
#include "cli_args.h"
#include "cmds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/app.h"
#include "rill/asset.h"
#include "rill/channels.h"
#include "rill/render.h"
#include "rill/scene.h"
#include "rill/world.h"

typedef struct render_opts {
    const char *input, *out, *device, *pack;
    uint32_t w, h, frames;
    rill_tonemapper tonemap;
    float exposure, render_scale;
    uint32_t debug_flags;
    int ssao;    /* -1 off, else rill_ssao_quality */
    float bloom; /* intensity; 0 = off */
    bool size_set, dump_graph, stats, validation, auto_exposure, heatmap;
    int quality;         /* 0 = the project's, else rill_render_quality */
    rill_cli_effects fx; /* --effect, --plugins */
    /* --channel NAME=MODE, in order (a later one for the same channel wins) */
    const char *channels[RILL_CHANNEL_COUNT];
    uint32_t channel_count;
    int passthrough; /* -1: the camera's own, else rill_passthrough */
} render_opts;

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill render [INPUT] --out frame.png [options]\n"
        "  INPUT               a project folder (or its project.toml), a .rsn scene, a .glb/.gltf\n"
        "                      model, builtin:spheres or builtin:cubes:N; none with --pack (or a\n"
        "                      pack appended to this program) plays the pack's project\n"
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
        "                      Sepia:strength=0.5); fields as `rill components` lists them.\n"
        "                      Effects the scene holds apply without it\n"
        "  --plugins DIR       load the effect plugins of DIR (before the scene is bound)\n"
        "  --quality low|medium|high\n"
        "                      quality tier, a ceiling on effects (default: the project's)\n"
        "  --debug-view normals|motion\n"
        "  --render-scale S    3D passes at this fraction of the output size, in [0.1, 2]; never\n"
        "                      above the output (default: the project's [rendering] render_scale)\n"
        "  --device NAME       pick a Vulkan device by name (also RILL_DEVICE)\n"
        "  --validation        enable the Vulkan validation layers (also RILL_VALIDATION=1); any\n"
        "                      validation message fails the command\n"
        "  --dump-graph        print the compiled render graph\n"
        "  --stats             print per-pass GPU times, the effects that ran with their GPU time\n"
        "                      and counters\n"
        "  --texture-heatmap   draw every model material flat in its texture streaming state\n"
        "                      (green full, blue #low, amber swapping, grey not streamed)\n"
        "  --channel NAME=MODE render mode of a scene channel (repeatable): NAME is context,\n"
        "                      selectable, preserve-identity, ghost or bitN (0-63); MODE is\n"
        "                      normal, hidden, wireframe or ghost:OPACITY (0..1, e.g. ghost:0.35)\n"
        "  --passthrough off|mixed\n"
        "                      the camera's passthrough output (default: the Camera's own):\n"
        "                      mixed writes a PNG whose alpha is 0 where nothing drew, 1 on\n"
        "                      geometry and a ghost's opacity on its pixels (for compositing over\n"
        "                      a camera feed)\n"
        "A scene with no light gets a default sun and one with no camera a camera framing it; "
        "each\n"
        "default is stated on stderr as a note.\n");
}

static const char *const TONEMAPS[] = {"aces", "agx", "none", NULL};
static const rill_tonemapper TONEMAP_VALUES[] = {RILL_TONEMAP_ACES, RILL_TONEMAP_AGX,
                                                 RILL_TONEMAP_NONE};
static const char *const SSAO_LEVELS[] = {"low", "medium", "high", "ultra", NULL};
static const rill_ssao_quality SSAO_VALUES[] = {RILL_SSAO_LOW, RILL_SSAO_MEDIUM, RILL_SSAO_HIGH,
                                                RILL_SSAO_ULTRA};
static const char *const DEBUG_VIEWS[] = {"normals", "motion", NULL};
static const char *const PASSTHROUGH_NAMES[] = {"off", "mixed", NULL};
static const char *const QUALITIES[] = {"low", "medium", "high", NULL};
static const rill_render_quality QUALITY_VALUES[] = {
    RILL_RENDER_QUALITY_LOW, RILL_RENDER_QUALITY_MEDIUM, RILL_RENDER_QUALITY_HIGH};

/* Returns 0 to go on, -1 after --help (exit 0), 2 on a usage error. */
static int parse(int argc, char **argv, render_opts *o) {
    memset(o, 0, sizeof(*o));
    o->frames = 1;
    o->ssao = -1;
    o->passthrough = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return -1;
        }
        int fxa = rill_cli_effects_arg(&o->fx, "render", a, v); /* --effect, --plugins */
        if (fxa != 0) {
            if (fxa < 0)
                return 2;
            i++;
            continue;
        }
        bool takes_value =
            !strcmp(a, "--size") || !strcmp(a, "--out") || !strcmp(a, "--frames") ||
            !strcmp(a, "--tonemap") || !strcmp(a, "--exposure") || !strcmp(a, "--bloom") ||
            !strcmp(a, "--ssao") || !strcmp(a, "--debug-view") || !strcmp(a, "--render-scale") ||
            !strcmp(a, "--device") || !strcmp(a, "--pack") || !strcmp(a, "--channel") ||
            !strcmp(a, "--passthrough") || !strcmp(a, "--quality");
        if (takes_value && !v) {
            fprintf(stderr, "rill render: %s needs a value\n", a);
            return 2;
        }
        if (strcmp(a, "--size") == 0) {
            if (!rill_cli_parse_size(v, &o->w, &o->h)) {
                fprintf(stderr, "rill render: bad --size '%s' (want WxH, each in [1, 16384])\n", v);
                return 2;
            }
            o->size_set = true, i++;
        } else if (strcmp(a, "--out") == 0) {
            o->out = v, i++;
        } else if (strcmp(a, "--pack") == 0) {
            o->pack = v, i++;
        } else if (strcmp(a, "--frames") == 0) {
            long long n = 0;
            if (!rill_cli_parse_int(v, 1, 1000000, &n)) {
                fprintf(stderr, "rill render: bad --frames '%s' (want a count in [1, 1000000])\n",
                        v);
                return 2;
            }
            o->frames = (uint32_t)n, i++;
        } else if (strcmp(a, "--tonemap") == 0) {
            if ((k = rill_cli_enum(v, TONEMAPS)) < 0)
                return rill_cli_bad_enum("render", a, v, TONEMAPS), 2;
            o->tonemap = TONEMAP_VALUES[k], i++;
        } else if (strcmp(a, "--passthrough") == 0) {
            if ((k = rill_cli_enum(v, PASSTHROUGH_NAMES)) < 0)
                return rill_cli_bad_enum("render", a, v, PASSTHROUGH_NAMES), 2;
            o->passthrough = k, i++;
        } else if (strcmp(a, "--exposure") == 0) {
            if (!rill_cli_parse_float(v, -32.0, 32.0, &o->exposure)) {
                fprintf(stderr, "rill render: bad --exposure '%s' (want stops in [-32, 32])\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--bloom") == 0) {
            if (!rill_cli_parse_float(v, 0.0, 100.0, &o->bloom)) {
                fprintf(stderr, "rill render: bad --bloom '%s' (want an intensity in [0, 100])\n",
                        v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--ssao") == 0) {
            if ((k = rill_cli_enum(v, SSAO_LEVELS)) < 0)
                return rill_cli_bad_enum("render", a, v, SSAO_LEVELS), 2;
            o->ssao = (int)SSAO_VALUES[k], i++;
        } else if (strcmp(a, "--quality") == 0) {
            if ((k = rill_cli_enum(v, QUALITIES)) < 0)
                return rill_cli_bad_enum("render", a, v, QUALITIES), 2;
            o->quality = (int)QUALITY_VALUES[k], i++;
        } else if (strcmp(a, "--debug-view") == 0) {
            if ((k = rill_cli_enum(v, DEBUG_VIEWS)) < 0)
                return rill_cli_bad_enum("render", a, v, DEBUG_VIEWS), 2;
            o->debug_flags =
                k == 1 ? RILL_RENDER_DEBUG_VIEW_MOTION : RILL_RENDER_DEBUG_VIEW_NORMALS;
            i++;
        } else if (strcmp(a, "--render-scale") == 0) {
            if (!rill_cli_parse_float(v, 0.1, 2.0, &o->render_scale)) {
                fprintf(stderr, "rill render: bad --render-scale '%s' (want [0.1, 2])\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--device") == 0) {
            o->device = v, i++;
        } else if (strcmp(a, "--channel") == 0) {
            uint64_t ch;
            rill_render_mode mode;
            float op;
            rill_error perr = {0};
            if (!rill_channels_parse_assignment(v, &ch, &mode, &op, &perr)) {
                fprintf(stderr, "rill render: bad --channel: %s\n", perr.msg);
                return 2;
            }
            if (o->channel_count == RILL_CHANNEL_COUNT) {
                fprintf(stderr, "rill render: at most %u --channel options\n", RILL_CHANNEL_COUNT);
                return 2;
            }
            o->channels[o->channel_count++] = v, i++;
        } else if (strcmp(a, "--auto-exposure") == 0) {
            o->auto_exposure = true;
        } else if (strcmp(a, "--validation") == 0) {
            o->validation = true;
        } else if (strcmp(a, "--dump-graph") == 0) {
            o->dump_graph = true;
        } else if (strcmp(a, "--stats") == 0) {
            o->stats = true;
        } else if (strcmp(a, "--texture-heatmap") == 0) {
            o->heatmap = true;
        } else if (a[0] == '-' || o->input) {
            fprintf(stderr, "rill render: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            o->input = a;
        }
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

/* Meshes and textures reach the GPU under a per-frame byte budget, so a big scene needs a few
 * frames before everything is resident. Tiny frames get it there without paying for full-size
 * renders; the output then starts from a complete scene. */
static rill_result warm_up(rill_renderer *r, rill_content *c, const render_opts *o,
                           rill_error *err) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    rill_result res = rill_renderer_resize(r, 32, 18, err);
    for (int f = 0; f < 64 && res == RILL_OK; f++) {
        rill_render_snapshot snap;
        if ((res = rill_content_snapshot(c, NULL, &snap, err)) != RILL_OK ||
            (res = rill_renderer_render(r, &snap, err)) != RILL_OK ||
            (res = rill_renderer_wait_idle(r, err)) != RILL_OK)
            break;
        rill_renderer_stats(r, &st);
        if (st.uploaded_bytes_last_frame == 0)
            break;
    }
    if (res == RILL_OK)
        res = rill_renderer_resize(r, o->w, o->h, err);
    return res;
}

/* The command line's view options, on the primary view (drawn alone). */
static void apply_view_opts(const render_opts *o, rill_render_snapshot *snap) {
    snap->views = NULL;
    snap->view_count = 0;
    if (o->tonemap)
        snap->view.tonemapper = o->tonemap;
    if (o->exposure != 0.0f)
        snap->view.exposure_ev = o->exposure;
    if (o->auto_exposure) /* else the scene's AutoExposure, when routed, stays */
        snap->view.auto_exposure.enabled = true;
    if (o->bloom > 0.0f) {
        snap->view.bloom.enabled = true;
        snap->view.bloom.intensity = o->bloom;
    }
    if (o->ssao >= 0) {
        snap->view.ssao.enabled = true;
        snap->view.ssao.quality = (rill_ssao_quality)o->ssao;
    }
    if (o->passthrough >= 0)
        snap->view.passthrough = (rill_passthrough)o->passthrough;
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

static void print_stats(const render_opts *o, rill_renderer *r) {
    rill_render_stats s;
    rill_renderer_stats(r, &s);
    printf("cpu record %.3f ms (plus %.3f ms waiting for a frame slot)\n", s.cpu_record_ms,
           s.cpu_wait_ms);
    for (uint32_t i = 0; i < s.pass_count; i++)
        printf("gpu %-32s %.3f ms\n", s.pass_names[i], s.pass_gpu_ms[i]);
    printf("wireframe draws: %u edge buffers, %u line fill; ghost alpha draws: %u\n",
           s.wire_edge_draws, s.wire_fill_draws, s.ghost_alpha_draws);
    char line[1024];
    rill_cli_effects_format(r, line, sizeof(line));
    printf("%s\n", line);
    rill_renderer_settings rs;
    rill_renderer_get_settings(r, &rs);
    printf("quality %s, shadow map %u, render scale %.2f (3D %ux%u)\n",
           rs.quality == RILL_RENDER_QUALITY_LOW    ? "low"
           : rs.quality == RILL_RENDER_QUALITY_HIGH ? "high"
                                                    : "medium",
           rs.shadow_map_size, (double)rs.render_scale, rs.width_3d, rs.height_3d);
    if (s.validation)
        printf("validation messages: %u\n", s.validation_messages);
    (void)o;
}

int rill_cmd_render(int argc, char **argv) {
    render_opts o;
    int prc = parse(argc, argv, &o);
    if (prc)
        return prc < 0 ? 0 : prc;
    char why[1024];
    if (!rill_cli_writable(o.out, why, sizeof(why))) {
        fprintf(stderr, "rill render: cannot write --out: %s\n", why);
        return 1;
    }
    rill_error err = {0};
    rill_content_desc cd = {.input = o.input, .pack = o.pack, .deterministic = true};
    rill_cli_content_hooks(&cd);
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        fprintf(stderr, "rill render: %s\n", err.msg);
        return 1;
    }
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    rill_content_renderer_desc(c, &d);
    d.vsync = false;
    if (o.size_set)
        d.width = o.w, d.height = o.h;
    else if (rill_content_get_kind(c) != RILL_CONTENT_KIND_PROJECT)
        d.width = 1280, d.height = 720;
    o.w = d.width, o.h = d.height;
    d.device_name = o.device;
    if (o.render_scale > 0.0f)
        d.render_scale = o.render_scale;
    d.debug_flags = o.debug_flags;
    if (o.ssao >= 0)
        d.quality = RILL_RENDER_QUALITY_HIGH; /* the tier that runs SSAO */
    if (o.quality)
        d.quality = (rill_render_quality)o.quality;
    d.validation = o.validation ? 1 : 0;
    rill_renderer *r = NULL;
    if (!(r = rill_renderer_create(&d, &err))) {
        fprintf(stderr, "rill render: %s\n", err.msg);
        rill_content_destroy(c);
        return 1;
    }
    int rc = 1;
    if (rill_cli_effects_attach(&o.fx, r, c, &err) != RILL_OK ||
        rill_content_load(c, r, &err) != RILL_OK ||
        rill_cli_effects_apply(&o.fx, c, r, &err) != RILL_OK)
        goto done;
    apply_channels(&o, rill_app_world(rill_content_app(c)));
    if (o.heatmap)
        rill_render_assets_set_texture_heatmap(
            rill_app_models_render_assets(rill_content_models(c)), true);
    /* Streamed scene instances and their models load over frames: let them arrive first. */
    bool settled = false;
    uint32_t settle_frames = rill_content_settle(c, 0, &settled);
    if (!settled)
        fprintf(stderr, "warning: still loading after %u frames; rendering what is there\n",
                settle_frames);
    if (warm_up(r, c, &o, &err) != RILL_OK)
        goto done;
    print_notes(rill_content_notes(c));
    rill_app *app = rill_content_app(c);
    for (uint32_t f = 0; f < o.frames; f++) {
        rill_app_frame(app);
        rill_render_snapshot snap;
        if (rill_content_snapshot(c, NULL, &snap, &err) != RILL_OK)
            goto done;
        apply_view_opts(&o, &snap);
        if (rill_renderer_render(r, &snap, &err) != RILL_OK)
            goto done;
    }
    if (rill_renderer_write_png(r, o.out, &err) != RILL_OK)
        goto done;
    rc = 0;
    rill_render_stats s;
    rill_renderer_stats(r, &s);
    printf("rendered %s -> %s (%ux%u, %u frames, %u/%u instances visible, %u draws) on %s\n",
           o.input  ? o.input
           : o.pack ? o.pack
                    : "appended pack",
           o.out, o.w, o.h, o.frames, s.instances_visible, s.instances_submitted, s.draw_calls,
           s.device_name);
    if (o.stats)
        print_stats(&o, r);
    if (o.dump_graph) {
        rill_strbuf sb = {0};
        rill_renderer_dump_graph(r, &sb);
        if (sb.data)
            fputs(sb.data, stdout);
        rill_strbuf_free(&sb);
    }
    if (s.validation_messages) {
        fprintf(stderr, "rill render: %u validation messages\n", s.validation_messages);
        rc = 1;
    }
done:
    if (rc && err.msg[0])
        fprintf(stderr, "rill render: %s\n", err.msg);
    rill_content_release(c);
    rill_cli_effects_release(&o.fx);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return rc;
}
