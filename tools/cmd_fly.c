/* cmd_fly.c: `rill fly PROJECT|PACK --out DIR`, a fly-through with streaming on. The camera follows
 * a path (a JSON list of keyframes, or an automatic loop over the world's streamed bounds that
 * leaves its start and returns to it) at a fixed simulated step of 1/60 s, so runs compare. Each
 * frame runs the whole app (streaming decisions, the budgeted spawner, transforms), the extract,
 * a CPU frustum count of what the primary view sees, and (unless --no-render) the GPU frame.
 *
 * Output in DIR: frames.jsonl (one JSON object per frame), summary.json, frametime.png (main-thread
 * and streaming time per frame with the 16.7 ms frame budget and the 3 ms streaming budget) and
 * map.png (top-down: the terrain's chunk grid by state, instance bounds coloured by state, the
 * load/unload rings at the end, the camera path). The camera keeps a clearance above the ground
 * (a downward raycast on the physics colliders, else the terrain's heights). A per-frame key is one
 * line in write_frame_keys() (fly_report.c). This file is the run loop; the path, the counting and
 * the report are fly_path.c, fly_count.c and fly_report.c (fly.h).
 */
#include "cli_args.h"
#include "cli_opts.h"
#include "cmds.h"
#include "fly.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cglm/cglm.h>

#include "rill/app.h"
#include "rill/render.h"
#include "rill/render/hlod.h"
#include "rill/scene/model.h"
#include "rill/stream.h"
#include "rill/terrain.h"

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: rill fly PROJECT|PACK --out DIR [options]\n"
        "  PROJECT|PACK        a project folder (or its project.toml) or a .rpak\n"
        "  --out DIR           where frames.jsonl, summary.json, frametime.png and map.png go\n"
        "  --path FILE         camera keyframes: a JSON list of {\"pos\": [x,y,z], \"look\":\n"
        "                      [x,y,z] (optional), \"t\": seconds (optional)}; default: a loop\n"
        "                      over the world's streamed bounds that returns to its start\n"
        "  --speed M/S         flying speed where keyframes have no times (default: the path\n"
        "                      in --frames frames, else 30)\n"
        "  --frames N          frames to run (default: until the path ends)\n"
        "  --size WxH          output size (default 1280x720)\n"
        "  --quality low|medium|high\n"
        "                      quality tier, a ceiling on effects (default: the project's\n"
        "                      [rendering] graphics_quality, Medium); GI runs at high only\n"
        "  --upload-budget-mb N\n"
        "                      MiB of meshes and textures copied to the GPU a frame (default:\n"
        "                      the project's [rendering] upload_budget_bytes, 8 MiB; 0 = the\n"
        "                      renderer's own 32 MiB)\n"
        "  --workers N         job worker threads (default: cores - 1); extract's walk over\n"
        "                      the shown models runs on them and the main thread\n"
        "  --no-render         skip the GPU frame only (the app, the extract, the culling and\n"
        "                      every counter still run)\n"
        "  --window            show the fly-through in a window\n"
        "  --no-hlod           draw no far-world proxies (docs/streaming.md), to compare\n"
        "  --texture-heatmap   draw every model material flat in its texture state (green full,\n"
        "                      blue #low, amber swapping, grey not streamed)\n"
        "  --gpu-cull          GPU-driven culling and drawing of plain opaque instances (also\n"
        "                      [rendering] gpu_culling in project.toml)\n"
        "  --no-render-thread  record and submit each frame on the main thread (default: on a\n"
        "                      render thread while the next frame's app update runs, as\n"
        "                      [rendering] render_thread in project.toml, default true;\n"
        "                      frames.jsonl then says render_thread_ms)\n"
        "  --render-thread     on a render thread even where the project turns it off\n"
        "  --no-occlusion      with GPU culling, no occlusion culling (also [rendering]\n"
        "                      gpu_occlusion = false)\n"
        "  --cameras N         N views side by side (split screen, 1-4): the path camera on\n"
        "                      the left, each other one at its place turned 360/N degrees\n"
        "                      further round; streaming follows the path camera\n"
        "  --effect NAME[:field=value,...]\n"
        "                      put effect settings on every camera (repeatable), as rill\n"
        "                      render does (e.g. GlobalIllumination:quality=Hwrt)\n"
        "  --plugins DIR       also load the effect plugins of DIR (repeatable)\n"
        "  --no-plugins        load no plugins, not even the shipped ones\n"
        "Steps are a fixed 1/60 s of simulated time; streaming is on (run mode game).\n");
}

static int parse(int argc, char **argv, fly_opts *o) {
    memset(o, 0, sizeof *o);
    o->w = 1280, o->h = 720;
    const rill_cli_opt opts[] = {
        {"--no-render", RILL_CLI_OPT_FLAG, &o->no_render},
        {"--window", RILL_CLI_OPT_FLAG, &o->window},
        {"--texture-heatmap", RILL_CLI_OPT_FLAG, &o->heatmap},
        {"--gpu-cull", RILL_CLI_OPT_FLAG, &o->gpu_cull},
        {"--render-thread", RILL_CLI_OPT_FLAG, &o->render_thread_on},
        {"--no-render-thread", RILL_CLI_OPT_FLAG, &o->render_thread_off},
        {"--no-occlusion", RILL_CLI_OPT_FLAG, &o->no_occlusion},
        {"--no-hlod", RILL_CLI_OPT_FLAG, &o->no_hlod},
        {"--out", RILL_CLI_OPT_STRING, &o->out},
        {"--path", RILL_CLI_OPT_STRING, &o->path},
        {"--speed", RILL_CLI_OPT_FLOAT, &o->speed, .min = 0.001, .max = 100000.0,
         .want = "metres per second in (0, 1e5]"},
        {"--frames", RILL_CLI_OPT_U64, &o->frames, .min = 1, .max = (double)FLY_MAX_FRAMES},
        {"--workers", RILL_CLI_OPT_U32, &o->workers, .min = 1, .max = 1024},
        {"--cameras", RILL_CLI_OPT_U32, &o->cameras, .min = 1, .max = FLY_MAX_CAMERAS},
        {"--upload-budget-mb", RILL_CLI_OPT_U32, &o->upload_budget_mb, .min = 0, .max = 4096,
         .given = &o->upload_budget_set},
        {"--size", RILL_CLI_OPT_SIZE, &o->w, &o->h, .given = &o->size_set},
        RILL_CLI_QUALITY_OPT(&o->quality),
    };
    const rill_cli_parser p = {"fly", opts, RILL_COUNTOF(opts), &o->input, &o->fx, usage};
    int rc = rill_cli_parse(&p, argc, argv);
    if (rc || (rc = rill_cli_render_thread("fly", o->render_thread_on, o->render_thread_off,
                                           &o->render_thread))) {
        return rc;
    }
    if (!o->input || !o->out) {
        fprintf(stderr, "rill fly: %s\n",
                !o->input ? "PROJECT or PACK required" : "--out DIR required");
        usage(stderr);
        return 2;
    }
    size_t n = strlen(o->input);
    if (n > 5 && strcmp(o->input + n - 5, ".rpak") == 0) {
        o->pack = o->input;
        o->input = NULL;
    }
    return 0;
}

/* >>main -------------------------------------------------------------------------------------- */

static bool make_dir(const char *dir) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        return true;
    }
    return false;
}

const char *fly_out_path(fly_run *run, const char *name) {
    snprintf(run->path, sizeof run->path, "%s/%s", run->o.out, name);
    return run->path;
}

rill_render_assets *fly_assets(const fly_run *run) {
    return rill_app_models_render_assets(rill_content_models(run->content));
}

static int fly_setup(fly_run *run, rill_error *err) {
    rill_content_desc cd = {
        .input = run->o.input, .pack = run->o.pack, .worker_count = run->o.workers};
    rill_cli_content_hooks(&cd);
    run->content = rill_content_open(&cd, err);
    if (!run->content) {
        return 1;
    }
    rill_renderer_desc d;
    memset(&d, 0, sizeof d);
    rill_content_renderer_desc(run->content, &d);
    d.vsync = false;
    d.width = run->o.w, d.height = run->o.h;
    if (run->o.quality) {
        d.quality = (rill_render_quality)run->o.quality;
    }
    if (run->o.gpu_cull) {
        d.debug_flags |= RILL_RENDER_DEBUG_GPU_CULL;
    }
    if (run->o.upload_budget_set) {
        d.upload_budget_bytes = (uint64_t)run->o.upload_budget_mb << 20;
    }
    if (run->o.render_thread) {
        d.render_thread = run->o.render_thread > 0;
    }
    if (run->o.no_occlusion) {
        d.debug_flags |= RILL_RENDER_DEBUG_NO_OCCLUSION;
    }
    if (run->o.window) {
        rill_window_desc wd = {
            .title = "rill fly", .width = run->o.w, .height = run->o.h, .fixed_size = true};
        if (!(run->win = rill_window_create(&wd, err))) {
            return 1;
        }
        d.glfw_window = rill_window_glfw(run->win);
    }
    if (!(run->r = rill_renderer_create(&d, err))) {
        return 1;
    }
    rill_renderer_settings rset;
    rill_renderer_get_settings(run->r, &rset);
    run->threaded = rset.render_thread; /* [rendering] render_thread, or the flags */
    if (rill_cli_effects_attach(&run->o.fx, run->r, run->content, err) != RILL_OK ||
        rill_content_load(run->content, run->r, err) != RILL_OK ||
        rill_cli_effects_apply(&run->o.fx, run->content, run->r, err) != RILL_OK) {
        return 1;
    }
    rill_app *app = rill_content_app(run->content);
    /* frames.jsonl's extract_chunk_* (the slowest parallel chunk of each frame's snapshot) */
    rill_jobs_set_chunk_profiling(rill_app_jobs(app), true);
    if (rill_app_get_run_mode(app) != RILL_RUN_MODE_GAME) {
        rill_app_set_run_mode(app, RILL_RUN_MODE_GAME);
    }
    if (run->o.heatmap) {
        rill_render_assets_set_texture_heatmap(fly_assets(run), true);
    }
    if (run->o.no_hlod) {
        rill_stream_hlod_settings hs = rill_stream_get_hlod(rill_app_stream(app));
        hs.enabled = false;
        rill_stream_set_hlod(rill_app_stream(app), &hs);
    }
    char why[512];
    if (run->o.path) {
        if (!fly_read_path(run->o.path, run->keys, &run->nkeys, why, sizeof why)) {
            rill_error_set(err, RILL_ERR_PARSE, "%s", why);
            return 1;
        }
    } else {
        float mn[3], mx[3];
        run->nkeys = fly_world_bounds(app, mn, mx) ? fly_auto_path(mn, mx, run->keys)
                                                   : fly_content_path(run->content, run->keys);
    }
    float speed = run->o.speed;
    if (speed <= 0.0f) {
        float len = fly_path_length(run->keys, run->nkeys);
        speed = run->o.frames > 1
                    ? RILL_MAX(len / (float)((double)(run->o.frames - 1u) * FLY_DT), 0.001f)
                    : 30.0f;
    }
    double duration = fly_time_path(run->keys, run->nkeys, speed);
    if (!fly_path_times_ok(run, speed, duration, err)) {
        return 1;
    }
    if (!run->o.frames) {
        run->o.frames = (uint64_t)ceil(duration / FLY_DT) + 1u;
    }
    run->frames = calloc(run->o.frames + FLY_SETTLE_MAX, sizeof(fly_frame));
    run->jsonl = fopen(fly_out_path(run, "frames.jsonl"), "w");
    if (!run->frames || !run->jsonl) {
        rill_error_set(err, RILL_ERR_IO, "%s: cannot write", run->path);
        return 1;
    }
    printf("fly: %u keyframes, %.0f m at %.1f m/s, %llu frames of 1/60 s%s\n", run->nkeys,
           (double)fly_path_length(run->keys, run->nkeys), (double)speed,
           (unsigned long long)run->o.frames, run->o.no_render ? " (no render)" : "");
    return 0;
}

/* The camera never goes below FLY_CLEARANCE metres above the ground under it: a downward raycast
 * on the physics colliders (resident terrain chunks, bodies), else the terrain's heights where no
 * chunk is resident there. */
#define FLY_CLEARANCE 12.0f
static void keep_above_ground(fly_run *run, float pos[3]) {
    rill_physics *phys = rill_app_physics_world(rill_content_physics(run->content));
    float from[3] = {pos[0], pos[1] + 2000.0f, pos[2]}, down[3] = {0.0f, -1.0f, 0.0f};
    rill_physics_hit hit;
    float ground;
    if (phys && rill_physics_raycast(phys, from, down, 10000.0f, 0, &hit)) {
        ground = hit.position[1];
    } else if (!rill_terrain_height_at(rill_app_terrain_system(rill_content_terrain(run->content)),
                                       RILL_ENTITY_NULL, pos[0], pos[2], &ground, NULL)) {
        return;
    }
    pos[1] = RILL_MAX(pos[1], ground + FLY_CLEARANCE);
}

/* This frame's terrain and physics counters. */
static void terrain_counters(fly_run *run, fly_frame *fr) {
    rill_terrain_stats ts;
    rill_terrain_get_stats(rill_app_terrain_system(rill_content_terrain(run->content)), &ts);
    rill_physics_stats ps;
    rill_physics_get_stats(rill_app_physics_world(rill_content_physics(run->content)), &ps);
    fr->terrain_chunks = ts.chunks;
    fr->terrain_resident = ts.resident;
    fr->terrain_cpu_bytes = ts.height_bytes + ts.resident_bytes;
    rill_render_terrain_stats rs;
    rill_render_terrain_get_stats(rill_content_render_terrain(run->content), &rs);
    fr->terrain_gpu_bytes = rs.vertex_bytes + rs.index_bytes;
    fr->chunk_rebuilds = ts.rebuilds_last_update;
    fr->colliders = ps.colliders;
    fr->physics_ms = (double)(ps.step_ns_total - run->physics_ns) / 1e6;
    run->physics_ns = ps.step_ns_total;
}

/* This frame's LOD counters (the update ran in the app's frame). */
static void lod_counters(fly_run *run, fly_frame *fr) {
    rill_lod_stats ls;
    rill_lod_system_get_stats(rill_app_models_lod(rill_content_models(run->content)), &ls);
    fr->lod_checked = ls.checked;
    fr->lod_deferred = ls.deferred;
    fr->lod_switches = (uint32_t)(ls.switches - run->lod_switches);
    run->lod_switches = ls.switches;
}

/* One frame: camera on the path, the app's frame, extract, counts, and the GPU frame. */
/* Which streamed instances are loaded, as an order-free fingerprint: the sum of their roots'
 * hashes (two frames with the same loaded set have the same value). */
static uint64_t loaded_set(fly_run *run, rill_app *app) {
    rill_stream *s = rill_app_stream(app);
    uint32_t n = rill_stream_instances(s, NULL, 0);
    if (n > run->inst_cap) {
        free(run->inst);
        run->inst_cap = n;
        run->inst = malloc((size_t)n * sizeof *run->inst);
    }
    n = run->inst ? rill_stream_instances(s, run->inst, RILL_MIN(n, run->inst_cap)) : 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (run->inst[i].state == RILL_INSTANCE_LOADED) {
            sum += rill_hash64(&run->inst[i].root, sizeof run->inst[i].root);
        }
    }
    return sum;
}

/* The thread CPU time of this frame's texture streaming update (decisions, loads started, swaps
 * handed over). */
static double stream_texture_cpu_ms(fly_run *run) {
    rill_render_texture_streaming_stats tx;
    rill_render_assets_get_texture_streaming_stats(fly_assets(run), &tx);
    return (double)tx.update_cpu_ns_last / 1e6;
}

/* The thread CPU time of this frame's streaming systems: the scene loader (rill.scenes), the
 * stream update (rill.stream: instance decisions and hides, terrain rebuilds, texture decisions)
 * and the model system (rill.models: tree spawns and retires), plus the texture streaming update
 * (timed inside the renderer's asset cache). What a loaded machine's preemption does not inflate,
 * unlike stream_ms. */
static double stream_cpu_ms(fly_run *run, const rill_app *app) {
    rill_system_timing t[64];
    uint32_t n = RILL_MIN(rill_app_system_timings(app, t, RILL_COUNTOF(t)), RILL_COUNTOF(t));
    uint64_t ns = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!strcmp(t[i].name, "rill.scenes") || !strcmp(t[i].name, "rill.stream") ||
            !strcmp(t[i].name, "rill.models")) {
            ns += t[i].cpu_ns;
        }
    }
    return (double)ns / 1e6 + stream_texture_cpu_ms(run);
}

/* The process's resident set in bytes (Linux /proc/self/statm), 0 where it cannot be read. */
static uint64_t resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, rss = 0;
    bool ok = f && fscanf(f, "%llu %llu", &size, &rss) == 2;
    if (f) {
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return ok && page > 0 ? (uint64_t)rss * (uint64_t)page : 0;
}

/* Keeps what frame f measured for its line in frames.jsonl, written by fly_row_finish. */
static void fly_row_begin(fly_run *run, uint64_t f, double t, const rill_stream_stats *ss,
                          const fly_counts *fc, const rill_render_texture_streaming_stats *tx) {
    fly_row *row = &run->row;
    row->f = f, row->t = t, row->ss = *ss, row->fc = *fc, row->tx = *tx;
    row->nsys = RILL_MIN(
        rill_app_system_timings(rill_content_app(run->content), row->sys, RILL_COUNTOF(row->sys)),
        RILL_COUNTOF(row->sys));
    row->pending = true;
}

/* The waiting frame's render statistics (rs: that frame's) and its line. */
static void fly_row_finish(fly_run *run, const rill_render_stats *rs) {
    fly_row *row = &run->row;
    if (!row->pending) {
        return;
    }
    row->pending = false;
    fly_frame *fr = &run->frames[row->f];
    bool rendered = !run->o.no_render;
    fr->render_thread_ms = rendered ? rs->render_thread_ms : 0.0;
    fr->texture_bytes = rs->texture_bytes;
    fr->gpu_block_bytes = rs->gpu_memory_block_bytes;
    fr->gpu_used_bytes = rs->gpu_memory_used_bytes;
    /* All-full: the textures that do not stream as they are, the streamed ones at full. */
    uint64_t streamed = RILL_MIN(row->tx.decisions.resident_bytes, fr->texture_bytes);
    fr->texture_bytes_full = fr->texture_bytes - streamed + row->tx.decisions.all_full_bytes;
    double gpu_ms = 0.0;
    for (uint32_t i = 0; rendered && i < rs->pass_count; i++) {
        gpu_ms += rs->pass_gpu_ms[i];
    }
    if (rendered) {
        row->fc.draws = rs->draw_calls;
        run->gi_tier = rs->gi_tier;
        memcpy(run->gi_hwrt_why, rs->gi_hwrt_why, sizeof(run->gi_hwrt_why));
    }
    if (row->f < run->o.frames) {
        fly_write_frame_keys(run->jsonl, row, fr, gpu_ms, rs);
    }
}

/* With a render thread, the last frame's line waits for the thread to finish it. */
static int fly_flush_row(fly_run *run, rill_error *err) {
    if (!run->row.pending) {
        return 0;
    }
    if (run->r && rill_renderer_sync(run->r, err) != RILL_OK) {
        return 1;
    }
    rill_render_stats rs;
    rill_renderer_stats(run->r, &rs);
    fly_row_finish(run, &rs);
    return 0;
}

/* --cameras N: the path camera takes the left 1/N of the output and becomes the world's default
 * game camera (so streaming keeps following it); N - 1 more cameras, copies of it, take the other
 * columns. False when the world refuses an entity. */
static bool add_extra_cameras(fly_run *run, rill_world *w, rill_entity cam) {
    uint32_t n = run->o.cameras;
    rill_component cc = rill_world_builtin(w)->camera;
    rill_camera *main_cam = rill_world_get(w, cam, cc);
    if (n < 2 || !main_cam) {
        return true;
    }
    main_cam->is_default = true;
    rill_camera copy = *main_cam;
    float width = 1.0f / (float)n;
    main_cam->viewport[0] = 0.0f, main_cam->viewport[1] = 0.0f;
    main_cam->viewport[2] = width, main_cam->viewport[3] = 1.0f;
    for (uint32_t k = 1; k < n; k++) {
        rill_entity e = rill_world_spawn(w);
        rill_transform tr = {.scale = {1, 1, 1}, .rotation = {0, 0, 0, 1}};
        if (!e || !rill_world_add(w, e, RILL_COMPONENT_TRANSFORM, &tr)) {
            return false;
        }
        rill_camera c = copy;
        c.is_default = false;
        c.order = copy.order + (int32_t)k;
        c.viewport[0] = width * (float)k, c.viewport[1] = 0.0f;
        c.viewport[2] = width, c.viewport[3] = 1.0f;
        if (!rill_world_add(w, e, cc, &c)) {
            return false;
        }
        run->extra_cams[k - 1] = e;
    }
    return true;
}

/* The extra cameras stand where the path camera is, camera k turned k * 360/N degrees about the
 * vertical (a world-space yaw applied after the path camera's rotation). */
static void place_extra_cameras(fly_run *run, rill_world *w, const rill_transform *at) {
    for (uint32_t k = 1; k < run->o.cameras && k < FLY_MAX_CAMERAS; k++) {
        float half = (float)M_PI * (float)k / (float)run->o.cameras;
        versor yaw = {0.0f, sinf(half), 0.0f, cosf(half)}, q;
        glm_quat_mul(yaw, (float *)at->rotation, q);
        rill_transform tr = *at;
        memcpy(tr.rotation, q, sizeof tr.rotation);
        rill_world_set_transform(w, run->extra_cams[k - 1], &tr);
    }
}

/* The CPU heap per allocation tag now. */
static void sample_live(fly_frame *fr) {
    for (int tag = 0; tag < RILL_MEM_TAG_NUM; tag++) {
        fr->live[tag] = rill_mem_live_bytes((rill_mem_tag)tag);
    }
}

static int fly_frame_run(fly_run *run, uint64_t f, rill_entity cam, rill_error *err) {
    rill_app *app = rill_content_app(run->content);
    rill_world *w = rill_app_world(app);
    double t = (double)RILL_MIN(f, run->o.frames - 1u) * FLY_DT; /* settle frames hold still */
    fly_frame *fr = &run->frames[f];
    uint64_t t0 = rill_time_ns(), cpu0 = rill_cli_thread_cpu_ns();
    rill_cli_thread_waits waits0 = rill_cli_thread_waits_now();
    rill_thread_blocked_reset_max();
    rill_thread_blocked blk0 = rill_thread_blocked_now();
    rill_transform tr = {.scale = {1, 1, 1}};
    fly_path_eval(run->keys, run->nkeys, t, tr.translation, tr.rotation);
    keep_above_ground(run, tr.translation);
    rill_world_set_transform(w, cam, &tr);
    place_extra_cameras(run, w, &tr);
    memcpy(fr->cam, tr.translation, sizeof fr->cam);
    rill_app_frame_dt(app, FLY_DT);
    uint64_t t_app = rill_time_ns();
    rill_render_snapshot snap;
    uint64_t x0 = rill_cli_thread_cpu_ns();
    rill_thread_blocked xb0 = rill_thread_blocked_now();
    (void)rill_jobs_take_slowest_chunk(rill_app_jobs(app));
    if (rill_content_snapshot(run->content, &snap, err) != RILL_OK) {
        return 1;
    }
    rill_thread_blocked xb1 = rill_thread_blocked_now();
    fr->chunk_max = rill_jobs_take_slowest_chunk(rill_app_jobs(app));
    fr->extract_lock_ms = (double)(xb1.lock_ns - xb0.lock_ns) / 1e6;
    fr->extract_cond_ms = (double)(xb1.cond_ns - xb0.cond_ns) / 1e6;
    fr->app_ms = (double)(t_app - t0) / 1e6;
    fr->extract_ms = (double)(rill_time_ns() - t_app) / 1e6;
    fr->extract_cpu_ms = (double)(rill_cli_thread_cpu_ns() - x0) / 1e6;
    rill_render_hlod_stats hst;
    rill_render_hlod_get_stats(rill_content_hlod(run->content), &hst);
    fr->hlod_drawn = hst.drawn;
    fr->hlod_triangles = hst.triangles;
    /* The counting below is the tool's measurement, not engine work: kept out of main_ms. */
    uint64_t c0 = rill_time_ns(), count_cpu0 = rill_cli_thread_cpu_ns();
    fly_counts fc;
    count_ctx cx = {run->r,
                    app,
                    rill_app_models_scene(rill_content_models(run->content)),
                    rill_content_render_components(run->content),
                    fly_assets(run),
                    (float)run->o.w / (float)run->o.h};
    fly_count_snapshot(&cx, &snap, &fc);
    uint64_t count_ns = rill_time_ns() - c0, count_cpu = rill_cli_thread_cpu_ns() - count_cpu0;
    /* With a render thread the heap is sampled here, where the thread is idle (the snapshot
     * synced with it), not while it records: the same point in the frame on every run. */
    bool threaded = run->threaded && !run->o.no_render;
    if (threaded) {
        sample_live(fr);
    }
    rill_render_stats rs;
    if (!run->o.no_render) {
        if (run->win) {
            rill_window_poll(run->win);
        }
        if (rill_renderer_render(run->r, &snap, err) != RILL_OK) {
            return 1;
        }
    }
    /* With a render thread these are the statistics of the frame before (finished during this
     * one's hand-off), plus this frame's waits for the render thread. */
    rill_renderer_stats(run->r, &rs);
    double wait_ms = run->o.no_render ? 0.0 : threaded ? rs.render_sync_ms : rs.cpu_wait_ms;
    fr->render_sync_ms = threaded ? rs.render_sync_ms : 0.0;
    uint64_t t1 = rill_time_ns();
    fr->main_ms = (double)(t1 - t0 - count_ns) / 1e6 - wait_ms;
    fr->main_cpu_ms = (double)(rill_cli_thread_cpu_ns() - cpu0 - count_cpu) / 1e6;
    rill_cli_thread_waits waits1 = rill_cli_thread_waits_now();
    fr->main_faults = (uint32_t)(waits1.major_faults - waits0.major_faults);
    fr->main_waits = (uint32_t)(waits1.voluntary_switches - waits0.voluntary_switches);
    fr->main_preempts = (uint32_t)(waits1.involuntary_switches - waits0.involuntary_switches);
    rill_thread_blocked blk1 = rill_thread_blocked_now();
    fr->main_lock_ms = (double)(blk1.lock_ns - blk0.lock_ns) / 1e6;
    fr->main_cond_ms = (double)(blk1.cond_ns - blk0.cond_ns) / 1e6;
    fr->lock_max_ms = (double)blk1.lock_max_ns / 1e6;
    fr->lock_max_at = blk1.lock_max_at;
    fr->cond_max_ms = (double)blk1.cond_max_ns / 1e6;
    fr->cond_max_at = blk1.cond_max_at;
    /* Real time keeps pace with the simulated step, so workers (file reads, parses) take the time
     * they would in a game; a frame that runs long is not made up for. */
    if (t1 - t0 < (uint64_t)(FLY_DT * 1e9)) {
        rill_sleep_ns((uint64_t)(FLY_DT * 1e9) - (t1 - t0));
    }
    /* Streaming work: the app's ledger of the frame (the scene loader's instance loads and
     * budgeted despawns, the model system's tree spawns and retires, the stream update's decisions,
     * hides and terrain applies, the texture streaming update with its swaps). */
    rill_scene_models_stats ms;
    rill_scene_models_get_stats(rill_app_models_scene(rill_content_models(run->content)), &ms);
    fr->stream_ms = (double)rill_app_last_streaming_ns(app) / 1e6;
    fr->stream_cpu_ms = stream_cpu_ms(run, app);
    fr->entities = rill_world_entity_count(w);
    fr->triangles = fc.triangles;
    fr->triangles_full = fc.triangles_full;
    terrain_counters(run, fr);
    lod_counters(run, fr);
    rill_stream_stats ss;
    rill_stream_get_stats(rill_app_stream(app), &ss);
    fr->loaded = ss.loaded, fr->loading = ss.loading, fr->unloading = ss.unloading;
    fr->loaded_set = loaded_set(run, app);
    /* Far-world proxies count as loading until every part is made (a parsed file is held
     * until then, under a per-frame triangle budget). */
    rill_render_hlod_stats hs;
    rill_render_hlod_get_stats(rill_content_hlod(run->content), &hs);
    fr->settled = !ss.loading && !ss.unloading && !ms.pending && !hs.loading &&
                  !rill_scene_loader_retiring(rill_app_scenes(app));
    if (!threaded) {
        sample_live(fr);
    }
    fr->rss_bytes = resident_bytes();
    rill_render_texture_streaming_stats tx;
    rill_render_assets_get_texture_streaming_stats(fly_assets(run), &tx);
    fr->texture_bytes_read = tx.bytes_read;
    fr->texture_swap_ms = (double)tx.swap_ns_last / 1e6;
    fr->texture_stream_ms = (double)tx.update_ns_last / 1e6;
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(fly_assets(run), &bs);
    fr->batch_build_ms = bs.build_ms_last_frame;
    fr->batch_cells_built = bs.cells_built_last_frame;
    fr->batch_cells_waiting = bs.cells_waiting;
    fr->batch_cells_building = bs.cells_building;
    fr->batch_meshes_built = bs.meshes_built_last_frame;
    fr->batched_entities = bs.batched_entities;
    fr->batch_taken_new = bs.taken_new_last_frame;
    fr->batch_deferred_new = bs.deferred_new_last_frame;
    if (threaded) {
        fly_row_finish(run, &rs); /* the frame before: rs is its statistics */
    }
    fly_row_begin(run, f, t, &ss, &fc, &tx);
    if (!threaded) {
        fly_row_finish(run, &rs);
    }
    return run->win && rill_window_should_close(run->win) ? -1 : 0;
}

/* The frame the memory comparison ends at: the path's last settled frame among its final
 * FLY_SETTLE_MAX (the camera is back near its start there), else the camera holds still at the
 * path's end until streaming has settled (at most FLY_SETTLE_MAX more frames, not written to
 * frames.jsonl); the last frame run when it never settles. */
static uint64_t fly_settle(fly_run *run, uint64_t n, rill_error *err, int *rc) {
    for (uint64_t i = n; i-- > 1u && i + FLY_SETTLE_MAX >= n;) {
        if (run->frames[i].settled) {
            return i;
        }
    }
    rill_entity cam = rill_app_streaming_camera(rill_content_app(run->content), NULL);
    uint64_t end = n - 1u;
    while (*rc == 0 && !run->frames[end].settled && end + 1u < n + FLY_SETTLE_MAX) {
        int fr = fly_frame_run(run, end + 1u, cam, err);
        if (fr < 0) {
            break; /* the window closed */
        }
        *rc = fr;
        end++;
    }
    return end;
}

int rill_cmd_fly(int argc, char **argv) {
    static fly_run run; /* large (keyframes); one fly per process */
    memset(&run, 0, sizeof run);
    int prc = parse(argc, argv, &run.o);
    if (prc) {
        return prc < 0 ? 0 : prc;
    }
    if (!make_dir(run.o.out)) {
        fprintf(stderr, "rill fly: cannot create %s: %s\n", run.o.out, strerror(errno));
        return 1;
    }
    rill_error err = {0};
    int rc = fly_setup(&run, &err);
    uint64_t n = 0;
    if (rc == 0) {
        rill_entity cam = rill_app_streaming_camera(rill_content_app(run.content), NULL);
        if (!cam) {
            rill_error_set(&err, RILL_ERR_NOT_FOUND, "the world has no active game camera");
            rc = 1;
        } else if (!add_extra_cameras(&run, rill_app_world(rill_content_app(run.content)), cam)) {
            rill_error_set(&err, RILL_ERR_OUT_OF_MEMORY, "--cameras: the extra cameras");
            rc = 1;
        }
        /* What the content load settled in (instances within reach of the scene's camera) is
         * counted too: the path's first frame may unload it at once. */
        if (rc == 0) {
            fly_sample_live(rill_content_app(run.content), &run.live);
        }
        for (; rc == 0 && n < run.o.frames; n++) {
            int fr = fly_frame_run(&run, n, cam, &err);
            if (n % 30u == 29u) {
                fly_sample_live(rill_content_app(run.content), &run.live);
            }
            if (fr < 0) {
                n++;
                break;
            }
            rc = fr;
        }
    }
    uint64_t end = n ? n - 1u : 0;
    if (rc == 0 && n == run.o.frames) {
        end = fly_settle(&run, n, &err, &rc);
    }
    if (rc == 0) {
        rc = fly_flush_row(&run, &err);
    }
    if (run.jsonl) {
        fclose(run.jsonl);
    }
    if (rc == 0) {
        rc = fly_finish(&run, n, end);
    } else {
        fprintf(stderr, "rill fly: %s\n", err.msg);
    }
    if (run.r) {
        rill_renderer_wait_idle(run.r, NULL);
    }
    rill_content_release(run.content);
    rill_cli_effects_release(&run.o.fx);
    rill_renderer_destroy(run.r);
    rill_window_destroy(run.win);
    rill_content_destroy(run.content);
    free(run.frames);
    free(run.inst);
    rill_map_free(&run.live);
    return rc;
}
