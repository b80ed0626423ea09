/* bench_extract.c: rill_render_extract on a real project (the demo city from `rill demo`) with its
 * walk over the shown models serial and spread over N job workers. The content is loaded through
 * rill_content (headless renderer), settled at its camera and frozen; then, per worker count,
 * `reps` extracts of the same world, timed. One JSON line per worker count:
 *   {"bench":"extract","workers":N,"shown":..,"instances":..,"reps":..,"wall_ms_median":..,
 *    "wall_ms_min":..,"cpu_ms_median":..,"sort_ms_median":..,"walk_ms_median":..,
 *    "ns_per_shown":..,"same_as_serial":true|false}
 * workers 0 = serial (rill_render_extract_buf.jobs NULL); N > 0 = a rill_jobs of N workers, the
 * calling thread taking part. wall = elapsed time of the call (what the frame waits for); cpu =
 * the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID); sort / walk = the elapsed time of the
 * slot sort and of the walk (rill_render_extract_buf.sort_ns, walk_ns); ns_per_shown = wall median
 * / shown ModelMesh entities. same_as_serial: the snapshot's instances are byte for byte the serial
 * ones.
 *
 * batching "on": static batching on (every cell built and uploaded before the timed extracts;
 * serial = each entity skipped or taken as the walk reaches it), "off" (default): off, whatever the
 * project says. The line then has "batching":true|false, and same_as_serial compares the ranges
 * too.
 *
 * usage: bench_extract PROJECT_OR_PACK [reps=50] [workers=0,1,2,4,8,15] [batching=off|on]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rill/app.h"
#include "rill/render.h"

#define MAX_CONFIGS 16

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double ms_of(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Parses "0,1,2,4" into counts; returns how many, 0 when malformed. */
static int parse_workers(const char *s, uint32_t *out) {
    int n = 0;
    while (*s && n < MAX_CONFIGS) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 1024 || (*end && *end != ','))
            return 0;
        out[n++] = (uint32_t)v;
        s = *end ? end + 1 : end;
    }
    return *s ? 0 : n;
}

typedef struct bench {
    rill_world *w;
    rill_render_components rc;
    rill_render_extract_buf serial; /* the reference snapshot */
    rill_render_snapshot ref;
    uint32_t shown;
    bool batching;
    double *wall, *cpu, *sort, *walk;
    int reps;
} bench;

/* reps extracts over `workers` workers; prints the line. */
static bool run_config(bench *b, uint32_t workers, rill_error *err) {
    rill_jobs *jobs = NULL;
    if (workers && !(jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = workers}, err)))
        return false;
    rill_render_extract_buf xb = {0};
    xb.jobs = jobs;
    rill_render_snapshot snap;
    bool ok = rill_render_extract(b->w, &b->rc, &xb, &snap, err) == RILL_OK; /* warm */
    for (int i = 0; i < b->reps && ok; i++) {
        double w0 = ms_of(CLOCK_MONOTONIC), c0 = ms_of(CLOCK_THREAD_CPUTIME_ID);
        ok = rill_render_extract(b->w, &b->rc, &xb, &snap, err) == RILL_OK;
        b->cpu[i] = ms_of(CLOCK_THREAD_CPUTIME_ID) - c0;
        b->wall[i] = ms_of(CLOCK_MONOTONIC) - w0;
        b->sort[i] = (double)xb.sort_ns * 1e-6;
        b->walk[i] = (double)xb.walk_ns * 1e-6;
    }
    if (ok) {
        bool same = snap.instance_count == b->ref.instance_count &&
                    !memcmp(snap.instances, b->ref.instances,
                            (size_t)snap.instance_count * sizeof(rill_render_instance)) &&
                    snap.range_count == b->ref.range_count &&
                    !memcmp(snap.ranges, b->ref.ranges,
                            (size_t)snap.range_count * sizeof(rill_render_range));
        double *all[] = {b->wall, b->cpu, b->sort, b->walk};
        for (int k = 0; k < 4; k++)
            qsort(all[k], (size_t)b->reps, sizeof(double), cmp_double);
        double med = b->wall[b->reps / 2];
        printf("{\"bench\":\"extract\",\"workers\":%u,\"batching\":%s,\"shown\":%u,"
               "\"instances\":%u,\"reps\":%d,"
               "\"wall_ms_median\":%.3f,\"wall_ms_min\":%.3f,\"cpu_ms_median\":%.3f,"
               "\"sort_ms_median\":%.3f,\"walk_ms_median\":%.3f,\"ns_per_shown\":%.1f,"
               "\"same_as_serial\":%s}\n",
               workers, b->batching ? "true" : "false", b->shown, snap.instance_count, b->reps, med,
               b->wall[0], b->cpu[b->reps / 2], b->sort[b->reps / 2], b->walk[b->reps / 2],
               b->shown ? med * 1e6 / b->shown : 0.0, same ? "true" : "false");
        fflush(stdout);
    }
    rill_render_extract_buf_free(&xb);
    rill_jobs_destroy(jobs);
    return ok;
}

/* Static batching on or off; on: frames until every cell is built (all queued cells at once) and
 * its batches drawn. */
static bool set_batching(rill_content *c, rill_renderer *r, bool on, rill_error *err) {
    rill_render_assets *ra = rill_app_models_render_assets(rill_content_models(c));
    rill_render_assets_set_batching(
        ra, &(rill_render_batching){.enabled = on, .build_ms = on ? 1e9f : 0.0f});
    for (int i = 0; on && i < 8; i++) {
        rill_render_snapshot snap;
        rill_app_frame(rill_content_app(c));
        if (rill_content_snapshot(c, NULL, &snap, err) != RILL_OK ||
            rill_renderer_render(r, &snap, err) != RILL_OK)
            return false;
    }
    return true;
}

/* Loads and settles the content; the world stays as it is from then on. */
static rill_content *open_content(const char *input, bool batching, rill_renderer **out_r,
                                  rill_error *err) {
    bool pack = strlen(input) > 5 && strcmp(input + strlen(input) - 5, ".rpak") == 0;
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = pack ? NULL : input, .pack = pack ? input : NULL}, err);
    if (!c)
        return NULL;
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    rill_content_renderer_desc(c, &rd);
    rd.width = 320;
    rd.height = 180;
    rd.vsync = false;
    if (!(*out_r = rill_renderer_create(&rd, err)) || rill_content_load(c, *out_r, err) != RILL_OK)
        return c;
    rill_content_settle(c, 600, NULL);
    for (int i = 0; i < 4; i++) /* uploads of what settling brought in */
        rill_app_frame(rill_content_app(c));
    set_batching(c, *out_r, batching, err);
    return c;
}

/* With batching on, extracts until the batcher has no cell built or waiting, so the reference
 * snapshot and every timed extract see the same built cells (cells build within a time budget a
 * frame, so the first extracts change the output while they build). */
static bool settle_batches(rill_content *c, bench *b, rill_error *err) {
    rill_render_assets *ra = rill_app_models_render_assets(rill_content_models(c));
    for (int i = 0; b->batching && i < 10000; i++) {
        rill_render_batching_stats bs;
        if (rill_render_extract(b->w, &b->rc, &b->serial, &b->ref, err) != RILL_OK)
            return false;
        rill_render_assets_get_batching_stats(ra, &bs);
        if (!bs.cells_waiting && !bs.cells_built_last_frame)
            return true;
    }
    return true;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_extract PROJECT_OR_PACK [reps=50] [workers=0,1,2,4,8,15] "
                        "[batching=off|on]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 50;
    uint32_t workers[MAX_CONFIGS];
    int nw = parse_workers(argc > 3 ? argv[3] : "0,1,2,4,8,15", workers);
    const char *batching = argc > 4 ? argv[4] : "off";
    if (reps < 1 || reps > 100000 || nw < 1 ||
        (strcmp(batching, "on") != 0 && strcmp(batching, "off") != 0)) {
        fprintf(stderr, "bench_extract: reps in [1, 100000], workers a list like 0,1,4, "
                        "batching on or off\n");
        return 2;
    }
    rill_error err = {0};
    rill_renderer *r = NULL;
    bench b = {.reps = reps, .batching = strcmp(batching, "on") == 0};
    rill_content *c = open_content(argv[1], b.batching, &r, &err);
    b.wall = calloc((size_t)reps, sizeof(double));
    b.cpu = calloc((size_t)reps, sizeof(double));
    b.sort = calloc((size_t)reps, sizeof(double));
    b.walk = calloc((size_t)reps, sizeof(double));
    bool ok = c && r && err.code == RILL_OK && b.wall && b.cpu && b.sort && b.walk;
    if (ok) {
        b.w = rill_app_world(rill_content_app(c));
        ok = rill_render_register_components(b.w, &b.rc, &err) == RILL_OK &&
             settle_batches(c, &b, &err) &&
             rill_render_extract(b.w, &b.rc, &b.serial, &b.ref, &err) == RILL_OK;
        b.shown = ok ? b.serial.shown.len : 0;
    }
    for (int i = 0; i < nw && ok; i++)
        ok = run_config(&b, workers[i], &err);
    if (!ok)
        fprintf(stderr, "bench_extract: %s\n", err.msg[0] ? err.msg : "out of memory");
    rill_render_extract_buf_free(&b.serial);
    free(b.wall);
    free(b.cpu);
    free(b.sort);
    free(b.walk);
    if (c)
        rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return ok ? 0 : 1;
}
