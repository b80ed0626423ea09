/* bench_batching.c: static batching on a real project (the demo city from `rill demo`), batched
 * versus unbatched, through the path `rill render` takes (rill_content: project -> world ->
 * extract -> renderer, headless). Per mode, a fresh content and renderer: load, settle, turn
 * batching on or off, warm up until every cell is built (all cells in one extract, timed), then
 * `frames` timed frames from the world's camera. One JSON line per mode:
 *   {"bench":"batching","mode":"off|on","size":"WxH","frames":N,"instances":..,"draws":..,
 *    "triangles":..,"cpu_record_ms":median,"extract_ms":median,"batches":..,
 *    "batched_entities":..,"batch_materials":..,"cells_built":..,"build_ms_per_cell":mean,
 *    "build_ms_max_cell":..}
 * instances = instances in the snapshot (entities drawn one by one + batches), draws = draw calls
 * of the frame (every pass), cpu_record_ms = rill_renderer_render (cull, sort, record, submit),
 * extract_ms = rill_content_snapshot (extract, batching included); both as CPU time of the main
 * thread (CLOCK_THREAD_CPUTIME_ID): lavapipe's threads share the cores, so wall time would
 * mostly measure them. batch_materials = distinct materials of the batches.
 *
 * usage: bench_batching PROJECT_OR_PACK [frames=20] [WxH=640x360] [cell_size=64]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rill/app.h"
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

static int run(const char *input, bool on, int frames, uint32_t w, uint32_t h, float cell) {
    rill_error err = {0};
    bool pack = strlen(input) > 5 && strcmp(input + strlen(input) - 5, ".rpak") == 0;
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = pack ? NULL : input, .pack = pack ? input : NULL}, &err);
    rill_renderer *r = NULL;
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    if (c)
        rill_content_renderer_desc(c, &rd);
    rd.width = w;
    rd.height = h;
    rd.vsync = false;
    if (!c || !(r = rill_renderer_create(&rd, &err)) || rill_content_load(c, r, &err) != RILL_OK) {
        fprintf(stderr, "bench_batching: %s\n", err.msg);
        if (c)
            rill_content_release(c);
        rill_renderer_destroy(r);
        rill_content_destroy(c);
        return 1;
    }
    rill_content_settle(c, 600, NULL);
    rill_render_assets *ra = rill_app_models_render_assets(rill_content_models(c));
    rill_render_assets_set_batching(
        ra, &(rill_render_batching){.enabled = on, .cell_size = cell, .cells_per_frame = 1000000u});
    rill_app *app = rill_content_app(c);
    rill_render_snapshot snap;
    int rc = 0;
    /* Warm-up: cells built (one extract builds all), uploads done, batches drawn. */
    for (int i = 0; i < 8 && rc == 0; i++) {
        rill_app_frame(app);
        if (rill_content_snapshot(c, NULL, &snap, &err) != RILL_OK ||
            rill_renderer_render(r, &snap, &err) != RILL_OK)
            rc = 1;
    }
    double *rec = calloc((size_t)frames, sizeof(double));
    double *ext = calloc((size_t)frames, sizeof(double));
    double inst = 0, draws = 0, tris = 0;
    for (int i = 0; i < frames && rc == 0 && rec && ext; i++) {
        rill_app_frame(app);
        double t0 = thread_ms();
        if (rill_content_snapshot(c, NULL, &snap, &err) != RILL_OK) {
            rc = 1;
            break;
        }
        double t1 = thread_ms();
        ext[i] = t1 - t0;
        if (rill_renderer_render(r, &snap, &err) != RILL_OK) {
            rc = 1;
            break;
        }
        rec[i] = thread_ms() - t1;
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        inst += snap.instance_count;
        draws += st.draw_calls;
        tris += (double)st.triangles;
    }
    if (rc == 0 && rec && ext) {
        rill_render_batching_stats bs;
        rill_render_assets_get_batching_stats(ra, &bs);
        printf("{\"bench\":\"batching\",\"mode\":\"%s\",\"size\":\"%ux%u\",\"frames\":%d,"
               "\"instances\":%.0f,\"draws\":%.1f,\"triangles\":%.0f,\"cpu_record_ms\":%.3f,"
               "\"extract_ms\":%.3f,\"cell_size\":%.0f,\"batches\":%u,\"batched_entities\":%u,"
               "\"batch_materials\":%u,"
               "\"cells_built\":%llu,\"build_ms_per_cell\":%.3f,\"build_ms_max_cell\":%.3f}\n",
               on ? "on" : "off", w, h, frames, inst / frames, draws / frames, tris / frames,
               median(rec, frames), median(ext, frames), (double)bs.cell_size, bs.batches,
               bs.batched_entities, bs.materials, (unsigned long long)bs.cells_built,
               bs.cells_built ? bs.build_ms_total / (double)bs.cells_built : 0.0,
               bs.build_ms_max_cell);
    } else if (rc) {
        fprintf(stderr, "bench_batching: %s\n", err.msg);
    }
    free(rec);
    free(ext);
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_batching PROJECT_OR_PACK [frames=20] [WxH=640x360] "
                        "[cell_size=64]\n");
        return 2;
    }
    int frames = argc > 2 ? atoi(argv[2]) : 20;
    unsigned w = 640, h = 360;
    if (argc > 3 && sscanf(argv[3], "%ux%u", &w, &h) != 2) {
        fprintf(stderr, "bench_batching: bad size '%s'\n", argv[3]);
        return 2;
    }
    float cell = argc > 4 ? (float)atof(argv[4]) : 64.0f;
    if (frames < 1 || frames > 100000 || w < 1 || h < 1 || w > 16384 || h > 16384) {
        fprintf(stderr, "bench_batching: frames in [1, 100000], size in [1, 16384]\n");
        return 2;
    }
    int rc = run(argv[1], false, frames, w, h, cell);
    return rc ? rc : run(argv[1], true, frames, w, h, cell);
}
