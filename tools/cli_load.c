/* cli_load.c: the asynchronous scene load driver of `rill scene load` and `rill demo`
 * (rill_cli_load_scene): the content is opened through rill_content (the same resolution of the
 * project folder, its project.toml and the packs as `rill render` and `rill run`), then the scene
 * loads through the app's budgeted loader in a headless frame loop with a progress display, and
 * a summary of the main thread's frame times is printed. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "cmds.h"
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* CPU time of the calling thread: on a machine shared with other work, wall-clock frame times
 * include time the thread spent preempted, which says nothing about the frame's own cost. */
uint64_t rill_cli_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's major page faults and voluntary / involuntary context switches so far
 * (getrusage RUSAGE_THREAD): a frame whose wall time exceeds its CPU time waited on a lock or the
 * disk (faults, voluntary switches) or was preempted (involuntary switches). */
rill_cli_thread_waits rill_cli_thread_waits_now(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        return (rill_cli_thread_waits){0};
    }
    return (rill_cli_thread_waits){(uint64_t)ru.ru_majflt, (uint64_t)ru.ru_nvcsw,
                                   (uint64_t)ru.ru_nivcsw};
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static void draw_bar(const char *scene, float p, uint32_t entities, uint64_t frames) {
    char bar[31];
    int filled = (int)(p * 30.0f + 0.5f);
    for (int i = 0; i < 30; i++) {
        bar[i] = i < filled ? '#' : '-';
    }
    bar[30] = '\0';
    printf("\r%s [%s] %5.1f%%  %u entities  frame %llu ", scene, bar, (double)p * 100.0, entities,
           (unsigned long long)frames);
    fflush(stdout);
}

/* One load in flight: what the frame loop measures and shows. */
typedef struct load_run {
    const rill_cli_load_opts *opts;
    rill_app *app;
    rill_scene_loader *scenes;
    rill_scene_load h;
    const char *scene; /* the VFS path rill_content resolved */
    uint64_t t0;
    RILL_ARRAY(uint64_t) frame_ns;
    RILL_ARRAY(uint64_t) frame_cpu_ns;
    int last_decile;
    uint64_t last_draw;
} load_run;

/* The frame's progress: a live bar on a terminal (about 30 redraws a second, and once more when
 * the load completes), else a line per tenth. */
static void show_progress(load_run *lr, uint64_t frames, uint64_t now, rill_scene_load_state st) {
    float p = rill_scene_load_progress(lr->scenes, lr->h);
    uint32_t ents = rill_world_entity_count(rill_app_world(lr->app));
    if (lr->opts->progress) {
        if (now - lr->last_draw > 33000000u || st == RILL_SCENE_LOAD_LOADED) {
            draw_bar(lr->scene, p, ents, frames);
            lr->last_draw = now;
        }
        return;
    }
    int decile = (int)(p * 10.0f);
    if (decile > lr->last_decile) {
        printf("progress %3d%%  %u entities  frame %llu  %.2f s\n", decile * 10, ents,
               (unsigned long long)frames, (double)(now - lr->t0) * 1e-9);
        fflush(stdout);
        lr->last_decile = decile;
    }
}

/* Runs frames until the load leaves PARSING / SPAWNING or max_frames have run. Headless frames
 * are paced to at most ~240 per second: while a worker parses, the main thread would otherwise
 * spin through empty frames and steal a core from it. The sleep is not part of the measured
 * main-thread time. */
static rill_scene_load_state run_frames(load_run *lr, uint64_t max_frames, uint64_t *frames) {
    const uint64_t min_frame_period = 4166666u;
    rill_scene_load_state st = RILL_SCENE_LOAD_PARSING;
    while (*frames < max_frames) {
        uint64_t c0 = rill_cli_thread_cpu_ns();
        uint64_t f0 = rill_time_ns();
        rill_app_frame(lr->app);
        uint64_t f1 = rill_time_ns();
        uint64_t c1 = rill_cli_thread_cpu_ns();
        rill_array_push(&lr->frame_ns, f1 - f0);
        rill_array_push(&lr->frame_cpu_ns, c1 - c0);
        (*frames)++;
        if (lr->opts->trace_frames) {
            printf("frame %llu: %.3f ms, cpu %.3f ms (pre_update %.3f, post_update %.3f) "
                   "progress %.3f\n",
                   (unsigned long long)*frames, (double)(f1 - f0) * 1e-6, (double)(c1 - c0) * 1e-6,
                   (double)rill_app_last_stage_ns(lr->app, RILL_STAGE_PRE_UPDATE) * 1e-6,
                   (double)rill_app_last_stage_ns(lr->app, RILL_STAGE_POST_UPDATE) * 1e-6,
                   (double)rill_scene_load_progress(lr->scenes, lr->h));
        }
        st = rill_scene_load_get_state(lr->scenes, lr->h);
        show_progress(lr, *frames, f1, st);
        if (st != RILL_SCENE_LOAD_PARSING && st != RILL_SCENE_LOAD_SPAWNING) {
            break;
        }
        uint64_t spent = rill_time_ns() - f0;
        if (spent < min_frame_period) {
            rill_sleep_ns(min_frame_period - spent);
        }
    }
    return st;
}

/* Maximum, 99th percentile and mean of the measured frames into res. */
static void frame_times(load_run *lr, rill_cli_load_result *res) {
    uint32_t n = lr->frame_ns.len;
    if (!n) {
        return;
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += lr->frame_ns.data[i];
    }
    qsort(lr->frame_ns.data, n, sizeof(uint64_t), cmp_u64);
    uint32_t p99 = (uint32_t)ceil(0.99 * n) - 1u;
    res->max_frame_ms = (double)lr->frame_ns.data[n - 1u] * 1e-6;
    res->p99_frame_ms = (double)lr->frame_ns.data[p99] * 1e-6;
    res->mean_frame_ms = (double)sum / n * 1e-6;
    qsort(lr->frame_cpu_ns.data, n, sizeof(uint64_t), cmp_u64);
    res->max_frame_cpu_ms = (double)lr->frame_cpu_ns.data[n - 1u] * 1e-6;
    res->p99_frame_cpu_ms = (double)lr->frame_cpu_ns.data[p99] * 1e-6;
}

static void print_summary(const load_run *lr, const rill_cli_load_result *res, double budget_ms) {
    uint32_t warnings = rill_scene_load_warnings(lr->scenes, lr->h);
    printf("loaded %s: %u entities in %.2f s over %llu frames (%u warnings)\n", lr->scene,
           res->entities, res->seconds, (unsigned long long)res->frames, warnings);
    printf("main-thread frame time: max %.2f ms, p99 %.2f ms, mean %.2f ms "
           "(spawn budget %.2f ms)\n",
           res->max_frame_ms, res->p99_frame_ms, res->mean_frame_ms, budget_ms);
    printf("main-thread frame CPU time: max %.2f ms, p99 %.2f ms\n", res->max_frame_cpu_ms,
           res->p99_frame_cpu_ms);
}

/* Opens opts' content and registers every engine component before the scene binds (a Terrain or
 * Collider bound before its registration would be kept as unknown text), then the demo's
 * placeholders. NULL after printing why. */
static rill_content *open_content(const rill_cli_load_opts *opts) {
    rill_error err = {0};
    uint64_t budget_ns = opts->budget_ms > 0.0 ? (uint64_t)(opts->budget_ms * 1e6) : 0u;
    rill_content *c = rill_content_open(&(rill_content_desc){.input = opts->scene,
                                                             .root = opts->root,
                                                             .pack = opts->pack,
                                                             .scene_budget_ns = budget_ns},
                                        &err);
    if (c && rill_app_register_components(rill_content_world(c), NULL, NULL, &err) != RILL_OK) {
        rill_content_destroy(c);
        c = NULL;
    }
    if (!c) {
        fprintf(stderr, "error: %s\n", err.msg);
        return NULL;
    }
    rill_demo_register_components(rill_content_world(c));
    rill_scene_loader_set_strict(rill_app_scenes(rill_content_app(c)), opts->strict);
    return c;
}

/* The shipped plugins' components into c's world when opts ask for them and the scene file
 * names components the engine lacks (read through the content's VFS, as the loader reads it). */
static void add_plugin_components(const rill_cli_load_opts *opts, rill_content *c,
                                  rill_cli_plugin_components *pc) {
    if (!opts->plugin_components) {
        return;
    }
    uint8_t *text = NULL;
    size_t size = 0;
    rill_error err = {0};
    const char *scene = rill_content_scene(c);
    if (rill_vfs_read_all(rill_app_vfs(rill_content_app(c)), scene, &text, &size, &err) ==
        RILL_OK) {
        rill_cli_plugin_components_add(pc, c, scene, (const char *)text, size);
    }
    rill_free(text); /* a file that does not read fails the load below, with its message */
}

/* What became of the load: the summary and the on_loaded hook, or why it did not complete. */
static int load_outcome(load_run *lr, rill_scene_load_state st, uint64_t max_frames,
                        const rill_cli_load_result *res, double budget_ms) {
    if (st == RILL_SCENE_LOAD_LOADED) {
        print_summary(lr, res, budget_ms);
        return lr->opts->on_loaded ? lr->opts->on_loaded(lr->app, lr->opts->on_loaded_user) : 0;
    }
    if (st == RILL_SCENE_LOAD_FAILED) {
        fprintf(stderr, "error: loading %s failed: %s\n", lr->scene,
                rill_scene_load_error(lr->scenes, lr->h));
    } else {
        fprintf(stderr, "error: loading %s did not finish within %llu frames (state %s)\n",
                lr->scene, (unsigned long long)max_frames, rill_scene_load_state_name(st));
    }
    return 1;
}

int rill_cli_load_scene(const rill_cli_load_opts *opts, rill_cli_load_result *out) {
    rill_cli_load_result res = {0};
    if (out) {
        *out = res;
    }
    rill_content *c = open_content(opts);
    if (!c) {
        return 1;
    }
    rill_cli_plugin_components pc = {0};
    add_plugin_components(opts, c, &pc);
    load_run lr = {.opts = opts, .app = rill_content_app(c), .last_decile = -1};
    lr.scenes = rill_app_scenes(lr.app);
    lr.scene = rill_content_scene(c);
    double budget_ms = opts->budget_ms > 0.0
                           ? (double)(uint64_t)(opts->budget_ms * 1e6) * 1e-6
                           : (double)rill_content_project(c)->scene.load_budget_ms;
    rill_error err = {0};
    lr.t0 = rill_time_ns();
    lr.h = rill_scene_load_async(lr.scenes, lr.scene, &err);
    if (!lr.h.id) {
        fprintf(stderr, "error: %s\n", err.msg);
        rill_cli_plugin_components_release_host(&pc);
        rill_content_destroy(c);
        rill_cli_plugin_components_release(&pc);
        return 1;
    }
    uint64_t max_frames = opts->max_frames ? opts->max_frames : 1000000u;
    rill_scene_load_state st = run_frames(&lr, max_frames, &res.frames);
    if (opts->progress) {
        printf("\n");
    }
    res.seconds = (double)(rill_time_ns() - lr.t0) * 1e-9;
    res.entities = rill_world_entity_count(rill_app_world(lr.app));
    frame_times(&lr, &res);
    rill_array_free(&lr.frame_cpu_ns);
    rill_array_free(&lr.frame_ns);
    res.ok = st == RILL_SCENE_LOAD_LOADED;
    int rc = load_outcome(&lr, st, max_frames, &res, budget_ms);
    rill_cli_plugin_components_release_host(&pc);
    rill_content_destroy(c);
    rill_cli_plugin_components_release(&pc);
    if (out) {
        *out = res;
    }
    return rc;
}
