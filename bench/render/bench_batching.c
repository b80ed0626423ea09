/* bench_batching.c: static batching on a real project (the demo city from `rill demo`), batched
 * versus unbatched, through the path `rill render` takes (rill_content: project -> world ->
 * extract -> renderer, headless). Per mode, a fresh content and renderer: load, settle, turn
 * batching on or off, warm up until every cell is built (all cells in one extract, timed), then
 * `frames` timed frames from the world's camera. One JSON line per mode:
 *   {"bench":"batching","mode":"off|on","size":"WxH","frames":N,"instances":..,"draws":..,
 *    "triangles":..,"cpu_record_ms":median,"extract_ms":median,"batches":..,
 *    "batched_entities":..,"batch_materials":..,"cells_built":..,"build_ms_per_cell":mean,
 *    "build_ms_max_cell":..,"mode_change_us":..,"cells_rebuilt_by_mode_change":..}
 * instances = instances in the snapshot (entities drawn one by one + batches), draws = draw calls
 * of the frame (every pass), cpu_record_ms = rill_renderer_render (cull, sort, record, submit),
 * extract_ms = rill_content_snapshot (extract, batching included); both as CPU time of the main
 * thread (CLOCK_THREAD_CPUTIME_ID): lavapipe's threads share the cores, so wall time would
 * mostly measure them. batch_materials = distinct materials of the batches; batches = batch
 * meshes (one instance each, its members drawn as ranges). After the timed frames the context
 * channel is set to wireframe: mode_change_us is that call's CPU time, cells_rebuilt_by_mode_change
 * the cells the extract after it (and the frames drawn with it) rebuilt. Those frames (as many as
 * the timed ones, at least 4) give the wireframe figures: extract_ms_after_mode_change (the first
 * extract after the change, CPU), wire_draws (draw calls of the frame, every pass),
 * wire_edge_draws / wire_fill_draws (the wireframe pass's edge-buffer and line-fill draws),
 * wire_gpu_ms (the wireframe pass's GPU time, mean over the last half of them) and
 * wire_cpu_record_ms (median rill_renderer_render CPU time).
 *
 * usage: bench_batching PROJECT_OR_PACK [frames=20] [WxH=640x360] [cell_size=64] [part_size=16]
 *                      [modes=off,on]
 * modes: "off,on" (default), "on" or "off". With both, the two contents are loaded side by side
 * and their timed frames alternate (off, on, off, on ...), so a machine whose load changes during
 * the run (a shared one) weighs on both modes alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rill/app.h"
#include "rill/channels.h"
#include "rill/render.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n ? v[n / 2] : 0.0;
}

/* CPU time of the calling thread: the figures stay the main thread's own work while lavapipe's
 * threads draw the previous frame on the same cores. */
static double thread_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct side {
    bool on;
    rill_content *c;
    rill_renderer *r;
    rill_render_assets *ra;
    double *rec, *ext;
    double inst, draws, tris;
} side;

static void side_free(side *s) {
    if (s->c) {
        rill_content_release(s->c);
    }
    rill_renderer_destroy(s->r);
    rill_content_destroy(s->c);
    free(s->rec);
    free(s->ext);
}

/* Loads the content with batching on or off and warms it up (candidates taken, cells built in one
 * extract, uploads done, batches drawn). */
static bool side_open(side *s, const char *input, int frames, uint32_t w, uint32_t h, float cell,
                      float part, rill_error *err) {
    bool pack = strlen(input) > 5 && strcmp(input + strlen(input) - 5, ".rpak") == 0;
    s->c = rill_content_open(
        &(rill_content_desc){.input = pack ? NULL : input, .pack = pack ? input : NULL}, err);
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    if (s->c) {
        rill_content_renderer_desc(s->c, &rd);
    }
    rd.width = w;
    rd.height = h;
    rd.vsync = false;
    /* cpu_record_ms is the main thread's CPU time in rill_renderer_render: recorded there, not
     * handed to a render thread (whose hand-off would be all it measured). */
    rd.render_thread = false;
    s->rec = calloc((size_t)frames, sizeof(double));
    s->ext = calloc((size_t)frames, sizeof(double));
    if (!s->c || !s->rec || !s->ext || !(s->r = rill_renderer_create(&rd, err)) ||
        rill_content_load(s->c, s->r, err) != RILL_OK) {
        return false;
    }
    rill_content_settle(s->c, 600, NULL);
    s->ra = rill_app_models_render_assets(rill_content_models(s->c));
    rill_render_assets_set_batching(
        s->ra, &(rill_render_batching){
                   .enabled = s->on, .cell_size = cell, .part_size = part, .build_ms = 1e9f});
    rill_render_snapshot snap;
    /* At least 8 frames, then until the batcher has taken every candidate (new_per_frame a frame)
     * and built every queued cell, and two more frames upload and draw the batches. */
    for (int i = 0, quiet = 0; i < 8 || (quiet < 3 && i < 400); i++) {
        rill_app_frame(rill_content_app(s->c));
        if (rill_content_snapshot(s->c, &snap, err) != RILL_OK ||
            rill_renderer_render(s->r, &snap, err) != RILL_OK) {
            return false;
        }
        rill_render_batching_stats bs;
        rill_render_assets_get_batching_stats(s->ra, &bs);
        bool busy = bs.cells_waiting || bs.cells_building || bs.deferred_new_last_frame ||
                    bs.cells_built_last_frame;
        quiet = busy ? 0 : quiet + 1;
    }
    return true;
}

/* Timed frame i of a side. */
static bool side_frame(side *s, int i, rill_error *err) {
    rill_render_snapshot snap;
    rill_app_frame(rill_content_app(s->c));
    double t0 = thread_ms();
    if (rill_content_snapshot(s->c, &snap, err) != RILL_OK) {
        return false;
    }
    double t1 = thread_ms();
    s->ext[i] = t1 - t0;
    if (rill_renderer_render(s->r, &snap, err) != RILL_OK) {
        return false;
    }
    s->rec[i] = thread_ms() - t1;
    rill_render_stats st;
    rill_renderer_stats(s->r, &st);
    s->inst += snap.instance_count;
    s->draws += st.draw_calls;
    s->tris += (double)st.triangles;
    return true;
}

/* GPU time of the pass named `name` in the last completed frame (0 when it did not run). */
static double pass_ms(const rill_render_stats *st, const char *name) {
    for (uint32_t i = 0; i < st->pass_count; i++) {
        if (st->pass_names[i] && !strcmp(st->pass_names[i], name)) {
            return st->pass_gpu_ms[i];
        }
    }
    return 0.0;
}

/* What the frames after the mode change measure: the context channel drawn as wireframe. */
typedef struct wire_figures {
    double extract_after_ms; /* the first extract after the change */
    double draws, edge_draws, fill_draws, gpu_ms, rec_ms;
    int frames;
} wire_figures;

/* The context channel set to wireframe (mode_us: the call), then `frames` frames drawn so: the
 * first extract's CPU time, and per frame the draws (all passes), the wireframe pass's draws by
 * kind and its GPU time (timestamps lag a frame or two: the last half of the frames count). */
static bool wire_frames(side *s, int frames, double *mode_us, wire_figures *wf, rill_error *err) {
    memset(wf, 0, sizeof(*wf));
    double tm = thread_ms();
    rill_channels_set_mode(rill_app_world(rill_content_app(s->c)), RILL_CHANNEL_CONTEXT,
                           RILL_RENDER_MODE_WIREFRAME, 1.0f);
    *mode_us = (thread_ms() - tm) * 1e3;
    double *rec = calloc((size_t)frames, sizeof(double));
    if (!rec) {
        return false;
    }
    int counted = 0;
    for (int i = 0; i < frames; i++) {
        rill_render_snapshot snap;
        if (i) {
            rill_app_frame(rill_content_app(s->c));
        }
        double t0 = thread_ms();
        if (rill_content_snapshot(s->c, &snap, err) != RILL_OK) {
            break;
        }
        double t1 = thread_ms();
        if (!i) {
            wf->extract_after_ms = t1 - t0;
        }
        if (rill_renderer_render(s->r, &snap, err) != RILL_OK) {
            break;
        }
        rec[i] = thread_ms() - t1;
        rill_render_stats st;
        rill_renderer_stats(s->r, &st);
        wf->draws += st.draw_calls;
        wf->edge_draws += st.wire_edge_draws;
        wf->fill_draws += st.wire_fill_draws;
        if (i >= frames / 2) {
            wf->gpu_ms += pass_ms(&st, "wireframe");
            counted++;
        }
        wf->frames = i + 1;
    }
    bool ok = wf->frames == frames;
    if (ok) {
        wf->draws /= frames;
        wf->edge_draws /= frames;
        wf->fill_draws /= frames;
        wf->gpu_ms /= counted ? counted : 1;
        wf->rec_ms = median(rec, frames);
    }
    free(rec);
    return ok;
}

/* A channel mode change (context -> wireframe) after the timed frames and the frames drawn with
 * it, then the side's line. */
static bool side_report(side *s, int frames, uint32_t w, uint32_t h, rill_error *err) {
    rill_render_batching_stats b0, bs;
    rill_render_assets_get_batching_stats(s->ra, &b0);
    double mode_us = 0.0;
    wire_figures wf;
    if (!wire_frames(s, frames < 4 ? 4 : frames, &mode_us, &wf, err)) {
        return false;
    }
    rill_render_assets_get_batching_stats(s->ra, &bs);
    printf("{\"bench\":\"batching\",\"mode\":\"%s\",\"size\":\"%ux%u\",\"frames\":%d,"
           "\"instances\":%.0f,\"draws\":%.1f,\"triangles\":%.0f,\"cpu_record_ms\":%.3f,"
           "\"extract_ms\":%.3f,\"cell_size\":%.0f,\"part_size\":%.1f,\"batches\":%u,"
           "\"batched_entities\":%u,\"batch_materials\":%u,\"cells_built\":%llu,"
           "\"build_ms_per_cell\":%.3f,\"build_ms_max_cell\":%.3f,\"mode_change_us\":%.2f,"
           "\"cells_rebuilt_by_mode_change\":%llu,\"extract_ms_after_mode_change\":%.3f,"
           "\"wire_frames\":%d,\"wire_draws\":%.1f,\"wire_edge_draws\":%.1f,"
           "\"wire_fill_draws\":%.1f,\"wire_gpu_ms\":%.3f,\"wire_cpu_record_ms\":%.3f}\n",
           s->on ? "on" : "off", w, h, frames, s->inst / frames, s->draws / frames,
           s->tris / frames, median(s->rec, frames), median(s->ext, frames), (double)bs.cell_size,
           (double)bs.part_size, bs.batches, bs.batched_entities, bs.materials,
           (unsigned long long)bs.cells_built,
           bs.cells_built ? bs.build_ms_total / (double)bs.cells_built : 0.0, bs.build_ms_max_cell,
           mode_us, (unsigned long long)(bs.cells_built - b0.cells_built), wf.extract_after_ms,
           wf.frames, wf.draws, wf.edge_draws, wf.fill_draws, wf.gpu_ms, wf.rec_ms);
    return true;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_batching PROJECT_OR_PACK [frames=20] [WxH=640x360] "
                        "[cell_size=64] [part_size=16] [modes=off,on]\n");
        return 2;
    }
    int frames = argc > 2 ? atoi(argv[2]) : 20;
    unsigned w = 640, h = 360;
    if (argc > 3 && sscanf(argv[3], "%ux%u", &w, &h) != 2) {
        fprintf(stderr, "bench_batching: bad size '%s'\n", argv[3]);
        return 2;
    }
    float cell = argc > 4 ? (float)atof(argv[4]) : 64.0f;
    float part = argc > 5 ? (float)atof(argv[5]) : 0.0f;
    const char *modes = argc > 6 ? argv[6] : "off,on";
    if (frames < 1 || frames > 100000 || w < 1 || h < 1 || w > 16384 || h > 16384) {
        fprintf(stderr, "bench_batching: frames in [1, 100000], size in [1, 16384]\n");
        return 2;
    }
    side sides[2];
    memset(sides, 0, sizeof(sides));
    int n = 0;
    if (!strcmp(modes, "off,on")) {
        sides[0].on = false;
        sides[1].on = true;
        n = 2;
    } else if (!strcmp(modes, "on") || !strcmp(modes, "off")) {
        sides[0].on = !strcmp(modes, "on");
        n = 1;
    } else {
        fprintf(stderr, "bench_batching: modes is off,on / on / off, not '%s'\n", modes);
        return 2;
    }
    rill_error err = {0};
    bool ok = true;
    for (int k = 0; k < n && ok; k++) {
        ok = side_open(&sides[k], argv[1], frames, w, h, cell, part, &err);
    }
    for (int i = 0; i < frames && ok; i++) {
        for (int k = 0; k < n && ok; k++) {
            ok = side_frame(&sides[k], i, &err);
        }
    }
    for (int k = 0; k < n && ok; k++) {
        ok = side_report(&sides[k], frames, w, h, &err);
    }
    if (!ok) {
        fprintf(stderr, "bench_batching: %s\n", err.msg[0] ? err.msg : "out of memory");
    }
    for (int k = 0; k < n; k++) {
        side_free(&sides[k]);
    }
    return ok ? 0 : 1;
}
