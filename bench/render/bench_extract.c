/* bench_extract.c: rill_render_extract on a real project (the demo city from `rill demo`) with its
 * walk over the shown models serial and spread over N job workers. The content is loaded through
 * rill_content (headless renderer), settled at its camera and frozen; then, per worker count,
 * `reps` extracts of the same world, timed. One JSON line per worker count:
 *   {"bench":"extract","workers":N,"shown":..,"instances":..,"reps":..,"wall_ms_median":..,
 *    "wall_ms_min":..,"cpu_ms_median":..,"sort_ms_median":..,"walk_ms_median":..,
 *    "mark_ms_median":..,"marked":..,"ns_per_shown":..,"same_as_serial":true|false}
 * workers 0 = serial (rill_render_extract_buf.jobs NULL); N > 0 = a rill_jobs of N workers, the
 * calling thread taking part. wall = elapsed time of the call (what the frame waits for); cpu =
 * the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID); sort / walk = the elapsed time of the
 * slot sort and of the walk (rill_render_extract_buf.sort_ns, walk_ns); mark = the elapsed time of
 * marking what changed since the extract before (mark_ns: every instance compared with the last
 * extract's), marked = the instances the last extract marked changed (0: the frozen world's
 * extracts are all alike, as they should be); ns_per_shown = wall median
 * / shown ModelMesh entities. same_as_serial: the snapshot's instances are byte for byte the serial
 * ones.
 *
 * batching "on": static batching on (every cell built and uploaded before the timed extracts;
 * serial = each entity skipped or taken as the walk reaches it), "off" (default): off, whatever the
 * project says. The line then has "batching":true|false, and same_as_serial compares the ranges
 * too. With batching on, the reference is taken once the batcher has built nothing for
 * static_frames + 2 extracts (settle_batches: the batcher's clock runs on extracts).
 *
 * When a snapshot is not the reference (same_as_serial false), a second line says why:
 *   {"bench":"extract_diff","workers":N,"batching":..,"settle_extracts":..,"settled":..,
 *    "first_differing_extract":K,"changed_extracts":C,"cells_built_since_ref":..,
 *    "cells_waiting":..,"range_switches_since_ref":.., then snapshot_diff.h's members}
 * settle_extracts / settled: the extracts the batcher took to settle before the reference (with
 * batching on; settled false: it still built cells after 10000 extracts). first_differing_extract:
 * the first of the config's extracts (0 = the warm one, then the timed ones) that differs from the
 * reference; changed_extracts: how many of them differ from the extract before (the reference
 * before the first): 1 = one change, then stable; every extract = the output never settles. The
 * batcher's figures count from the reference extract on (a cell rebuilt since: the batched walk
 * changed its output). The diff compares the config's last snapshot with the reference.
 *
 * usage: bench_extract PROJECT_OR_PACK [reps=50] [workers=0,1,2,4,8,15] [batching=off|on]
 *        [last_dt=-|SECONDS]
 * last_dt: after settling, one more app frame stepped by SECONDS (rill_app_frame_dt) before the
 * reference. 0.004 plays an H200 frame on dev: shorter than the physics step, it moves nothing,
 * so the falling cars that moved in every frame before stop (settle_batches says what follows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rill/app.h"
#include "rill/render.h"
#include "snapshot_diff.h"

#define MAX_CONFIGS 16
#define SETTLE_MAX 10000 /* extracts settle_batches waits for the batcher at most */
#define STATIC_FRAMES 60 /* rill_render_batching.static_frames (the default), set explicitly */
#define UPLOAD_RENDERS 4 /* frames rendered after a cell is built, so its batches upload */
#define DIFF_MAX 6       /* instances the diff line shows of each kind */

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
        if (end == s || v < 0 || v > 1024 || (*end && *end != ',')) {
            return 0;
        }
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
    rill_render_assets *ra;
    rill_render_batching_stats ref_stats; /* the batcher's after the reference extract */
    uint32_t shown, settle_extracts;
    bool batching, settled;
    double *wall, *cpu, *sort, *walk, *mark;
    int reps;
} bench;

/* How one config's extracts went against the reference and each other. */
typedef struct drift {
    snap_copy prev;   /* the extract before */
    long first_diff;  /* the first extract differing from the reference, -1 none */
    uint32_t changed; /* extracts differing from the one before */
    uint32_t extracts;
} drift;

/* Notes snapshot s, the config's next extract; false when out of memory. */
static bool drift_note(drift *d, const bench *b, const rill_render_snapshot *s) {
    rill_render_snapshot prev = d->extracts ? snap_copy_view(&d->prev) : b->ref;
    d->changed += !snap_same(&prev, s);
    if (d->first_diff < 0 && !snap_same(&b->ref, s)) {
        d->first_diff = (long)d->extracts;
    }
    d->extracts++;
    return snap_copy_set(&d->prev, s);
}

/* The diff line of a config whose last snapshot s is not the reference. */
static void print_diff(const bench *b, uint32_t workers, const drift *d,
                       const rill_render_snapshot *s) {
    rill_render_batching_stats bs = {0};
    if (b->batching) {
        rill_render_assets_get_batching_stats(b->ra, &bs);
    }
    printf("{\"bench\":\"extract_diff\",\"workers\":%u,\"batching\":%s,\"settle_extracts\":%u,"
           "\"settled\":%s,\"first_differing_extract\":%ld,\"changed_extracts\":%u,"
           "\"extracts\":%u,\"cells_built_since_ref\":%llu,\"cells_waiting\":%u,"
           "\"range_switches_since_ref\":%llu",
           workers, b->batching ? "true" : "false", b->settle_extracts,
           b->settled ? "true" : "false", d->first_diff, d->changed, d->extracts,
           (unsigned long long)(bs.cells_built - b->ref_stats.cells_built), bs.cells_waiting,
           (unsigned long long)(bs.range_switches - b->ref_stats.range_switches));
    if (!snap_diff_json(stdout, &b->ref, s, DIFF_MAX)) {
        printf(",\"diff\":\"out of memory\"");
    }
    printf("}\n");
    fflush(stdout);
}

/* reps extracts over `workers` workers; prints the line. */
static bool run_config(bench *b, uint32_t workers, rill_error *err) {
    rill_jobs *jobs = NULL;
    if (workers && !(jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = workers}, err))) {
        return false;
    }
    rill_render_extract_buf xb = {0};
    xb.jobs = jobs;
    rill_render_snapshot snap;
    drift d = {.first_diff = -1};
    bool ok = rill_render_extract(b->w, &b->rc, &xb, &snap, err) == RILL_OK && /* warm */
              drift_note(&d, b, &snap);
    for (int i = 0; i < b->reps && ok; i++) {
        double w0 = ms_of(CLOCK_MONOTONIC), c0 = ms_of(CLOCK_THREAD_CPUTIME_ID);
        ok = rill_render_extract(b->w, &b->rc, &xb, &snap, err) == RILL_OK;
        b->cpu[i] = ms_of(CLOCK_THREAD_CPUTIME_ID) - c0;
        b->wall[i] = ms_of(CLOCK_MONOTONIC) - w0;
        b->sort[i] = (double)xb.sort_ns * 1e-6;
        b->walk[i] = (double)xb.walk_ns * 1e-6;
        b->mark[i] = (double)xb.mark_ns * 1e-6;
        ok = ok && drift_note(&d, b, &snap); /* (after the clocks are read) */
    }
    if (ok) {
        bool same = snap_same(&snap, &b->ref);
        uint32_t marked = 0;
        for (uint32_t i = 0; snap.instance_changed && i < snap.instance_count; i++) {
            marked += snap.instance_changed[i] != 0;
        }
        double *all[] = {b->wall, b->cpu, b->sort, b->walk, b->mark};
        for (int k = 0; k < 5; k++) {
            qsort(all[k], (size_t)b->reps, sizeof(double), cmp_double);
        }
        double med = b->wall[b->reps / 2];
        printf("{\"bench\":\"extract\",\"workers\":%u,\"batching\":%s,\"shown\":%u,"
               "\"instances\":%u,\"reps\":%d,"
               "\"wall_ms_median\":%.3f,\"wall_ms_min\":%.3f,\"cpu_ms_median\":%.3f,"
               "\"sort_ms_median\":%.3f,\"walk_ms_median\":%.3f,\"mark_ms_median\":%.3f,"
               "\"marked\":%u,\"ns_per_shown\":%.1f,\"same_as_serial\":%s}\n",
               workers, b->batching ? "true" : "false", b->shown, snap.instance_count, b->reps, med,
               b->wall[0], b->cpu[b->reps / 2], b->sort[b->reps / 2], b->walk[b->reps / 2],
               b->mark[b->reps / 2], marked, b->shown ? med * 1e6 / b->shown : 0.0,
               same ? "true" : "false");
        fflush(stdout);
        if (!same) {
            print_diff(b, workers, &d, &snap);
        }
    }
    snap_copy_free(&d.prev);
    rill_render_extract_buf_free(&xb);
    rill_jobs_destroy(jobs);
    return ok;
}

/* Static batching on or off; on: frames until every cell is built (all queued cells at once) and
 * its batches drawn. */
static bool set_batching(rill_content *c, rill_renderer *r, bool on, rill_error *err) {
    rill_render_assets *ra = rill_app_models_render_assets(rill_content_models(c));
    rill_render_assets_set_batching(ra, &(rill_render_batching){.enabled = on,
                                                                .build_ms = on ? 1e9f : 0.0f,
                                                                .static_frames = STATIC_FRAMES});
    for (int i = 0; on && i < 8; i++) {
        rill_render_snapshot snap;
        rill_app_frame(rill_content_app(c));
        if (rill_content_snapshot(c, &snap, err) != RILL_OK ||
            rill_renderer_render(r, &snap, err) != RILL_OK) {
            return false;
        }
    }
    return true;
}

/* Loads and settles the content; the world stays as it is from then on. last_dt >= 0: one more
 * app frame stepped by last_dt seconds before the reference (see the usage). */
static rill_content *open_content(const char *input, bool batching, double last_dt,
                                  rill_renderer **out_r, rill_error *err) {
    bool pack = strlen(input) > 5 && strcmp(input + strlen(input) - 5, ".rpak") == 0;
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = pack ? NULL : input, .pack = pack ? input : NULL}, err);
    if (!c) {
        return NULL;
    }
    rill_renderer_desc rd;
    memset(&rd, 0, sizeof(rd));
    rill_content_renderer_desc(c, &rd);
    rd.width = 320;
    rd.height = 180;
    rd.vsync = false;
    /* settle_batches extracts again into the snapshot it has just rendered, and the extracts are
     * timed alone: no render thread to hand the frames to (or to sync with first). */
    rd.render_thread = false;
    if (!(*out_r = rill_renderer_create(&rd, err)) ||
        rill_content_load(c, *out_r, err) != RILL_OK) {
        return c;
    }
    rill_content_settle(c, 600, NULL);
    for (int i = 0; i < 4; i++) { /* uploads of what settling brought in */
        rill_app_frame(rill_content_app(c));
    }
    set_batching(c, *out_r, batching, err);
    if (last_dt >= 0.0) {
        rill_app_frame_dt(rill_content_app(c), last_dt);
    }
    return c;
}

/* With batching on, extracts (and renders) until the batcher's output cannot change while the
 * world does not: no cell built or waiting for STATIC_FRAMES + 2 extracts in a row, and the last
 * built cell's batches uploaded. The batcher counts extracts as frames: an entity that moved in an
 * earlier app frame but not in the last one is batched again STATIC_FRAMES extracts later, which
 * rebuilds its cell; in the demo these are the falling cars, moved by the physics step, and on the
 * H200 most app frames are shorter than that 1/60 s step, so the last one often moved nothing (a
 * reference taken earlier differed from the timed extracts from the ~60th on, with 0 workers
 * too). A rebuilt cell draws its members one by one until its new batches are uploaded, which
 * only rendering does: each build is followed by UPLOAD_RENDERS frames of the snapshot. */
static bool settle_batches(bench *b, rill_renderer *r, rill_error *err) {
    uint32_t quiet = 0, renders = 0;
    b->settled = !b->batching;
    while (!b->settled && b->settle_extracts < SETTLE_MAX) {
        rill_render_batching_stats bs;
        if (rill_render_extract(b->w, &b->rc, &b->serial, &b->ref, err) != RILL_OK) {
            return false;
        }
        b->settle_extracts++;
        rill_render_assets_get_batching_stats(b->ra, &bs);
        bool busy = bs.cells_waiting || bs.cells_building || bs.cells_built_last_frame;
        quiet = busy ? 0 : quiet + 1;
        renders = busy ? UPLOAD_RENDERS : renders;
        if (renders) {
            renders--;
            if (rill_renderer_render(r, &b->ref, err) != RILL_OK) {
                return false;
            }
        }
        b->settled = quiet >= STATIC_FRAMES + 2 && !renders;
    }
    return true;
}

/* "-" (none) or seconds in [0, 0.25]; false when malformed. */
static bool parse_last_dt(const char *s, double *out) {
    char *end = NULL;
    *out = -1.0;
    if (!strcmp(s, "-")) {
        return true;
    }
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0.0 && v <= 0.25)) {
        return false;
    }
    *out = v;
    return true;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_extract PROJECT_OR_PACK [reps=50] [workers=0,1,2,4,8,15] "
                        "[batching=off|on] [last_dt=-|SECONDS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 50;
    uint32_t workers[MAX_CONFIGS];
    int nw = parse_workers(argc > 3 ? argv[3] : "0,1,2,4,8,15", workers);
    const char *batching = argc > 4 ? argv[4] : "off";
    double last_dt = -1.0;
    if (reps < 1 || reps > 100000 || nw < 1 ||
        (strcmp(batching, "on") != 0 && strcmp(batching, "off") != 0) ||
        !parse_last_dt(argc > 5 ? argv[5] : "-", &last_dt)) {
        fprintf(stderr, "bench_extract: reps in [1, 100000], workers a list like 0,1,4, "
                        "batching on or off, last_dt - or seconds in [0, 0.25]\n");
        return 2;
    }
    rill_error err = {0};
    rill_renderer *r = NULL;
    bench b = {.reps = reps, .batching = strcmp(batching, "on") == 0};
    rill_content *c = open_content(argv[1], b.batching, last_dt, &r, &err);
    b.wall = calloc((size_t)reps, sizeof(double));
    b.cpu = calloc((size_t)reps, sizeof(double));
    b.sort = calloc((size_t)reps, sizeof(double));
    b.walk = calloc((size_t)reps, sizeof(double));
    b.mark = calloc((size_t)reps, sizeof(double));
    bool ok = c && r && err.code == RILL_OK && b.wall && b.cpu && b.sort && b.walk && b.mark;
    if (ok) {
        b.w = rill_app_world(rill_content_app(c));
        b.ra = rill_app_models_render_assets(rill_content_models(c));
        ok = rill_render_register_components(b.w, &b.rc, &err) == RILL_OK &&
             settle_batches(&b, r, &err) &&
             rill_render_extract(b.w, &b.rc, &b.serial, &b.ref, &err) == RILL_OK;
        b.shown = ok ? b.serial.shown.len : 0;
        if (ok && b.batching) {
            rill_render_assets_get_batching_stats(b.ra, &b.ref_stats);
        }
    }
    for (int i = 0; i < nw && ok; i++) {
        ok = run_config(&b, workers[i], &err);
    }
    if (!ok) {
        fprintf(stderr, "bench_extract: %s\n", err.msg[0] ? err.msg : "out of memory");
    }
    rill_render_extract_buf_free(&b.serial);
    free(b.wall);
    free(b.cpu);
    free(b.sort);
    free(b.walk);
    free(b.mark);
    if (c) {
        rill_content_release(c);
    }
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return ok ? 0 : 1;
}
