/* cmd_scene.c: `rill scene check FILE` validates a .rsn file against the component registry and
 * `rill scene load FILE` loads it asynchronously through a headless frame loop, with a progress
 * display and a timing summary. The load driver (rill_cli_load_scene) is shared with `rill demo`.
 */
#include "cmds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void scene_usage(FILE *f) {
    fprintf(f,
            "usage: rill scene check FILE [--lossy]\n"
            "       rill scene load FILE [--root DIR] [--pack X.rpak] [--budget-ms N] [--verbose]\n"
            "                            [--trace-frames]\n"
            "\n"
            "check  parse FILE and bind it to the component registry; print every problem as\n"
            "       FILE:LINE:COL and exit 1 when there is an error\n"
            "load   load FILE asynchronously in a headless frame loop (nested scene instances\n"
            "       included) and print entities, frames, time and main-thread frame times.\n"
            "       --root DIR    project folder that scene paths are relative to\n"
            "                     (default: the folder holding FILE)\n"
            "       --pack X.rpak mount a pack before the root (its files win)\n"
            "       --budget-ms N wall-clock spawn budget per frame (default: project, 3 ms)\n"
            "       --verbose     show debug and info log lines\n"
            "       --trace-frames print every frame's main-thread time\n");
}

/* >>check ------------------------------------------------------------------------------------- */

static int scene_check(int argc, char **argv) {
    const char *file = NULL;
    bool lossy = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lossy") == 0) {
            lossy = true;
        } else if (strcmp(argv[i], "--help") == 0) {
            scene_usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "rill scene check: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        fprintf(stderr, "rill scene check: missing FILE\n");
        scene_usage(stderr);
        return 2;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(file, &data, &size, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    rill_world *world = rill_world_create(NULL, NULL);
    if (!world) {
        rill_free(data);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    /* Every component the engine registers (the renderer's, physics' and terrain's included),
     * so their names and values are checked, plus the demo's. */
    if (rill_app_register_components(world, NULL, NULL, &err) != RILL_OK) {
        rill_free(data);
        rill_world_destroy(world);
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    rill_demo_register_components(world);
    rill_scene_check_info info = {0};
    rill_result r = rill_scene_check_text(world, file, (const char *)data, size,
                                          &(rill_scene_read_desc){.lossy = lossy}, &info, &err);
    rill_free(data);
    rill_world_destroy(world);
    if (r != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg[0] ? err.msg : rill_result_str(r));
        return 1;
    }
    printf("%s: ok: %u entities, %u components (%u unknown), %u warnings\n", file, info.entities,
           info.components, info.unknown_components, info.warnings);
    return 0;
}

/* >>load -------------------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* CPU time of the calling thread: on a machine shared with other work, wall-clock frame times
 * include time the thread spent preempted, which says nothing about the frame's own cost. */
uint64_t rill_cli_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

int rill_cli_load_scene(const rill_cli_load_opts *opts, rill_cli_load_result *out) {
    rill_cli_load_result res = {0};
    if (out) {
        *out = res;
    }
    rill_project project;
    rill_error err = {0};
    char toml_path[1024];
    int tn = snprintf(toml_path, sizeof(toml_path), "%s/project.toml", opts->root);
    if (tn < 0 || (size_t)tn >= sizeof(toml_path)) {
        /* A cut path would read some other file, or none, without a word. */
        fprintf(stderr, "error: path too long: %s/project.toml\n", opts->root);
        return 1;
    }
    if (rill_file_exists(toml_path)) {
        if (rill_project_load(toml_path, &project, &err) != RILL_OK) {
            fprintf(stderr, "error: %s\n", err.msg);
            return 1;
        }
    } else {
        rill_project_defaults(&project);
    }
    uint64_t budget_ns = opts->budget_ms > 0.0 ? (uint64_t)(opts->budget_ms * 1e6) : 0u;
    rill_app *app = rill_app_create(&(rill_app_desc){.project = &project,
                                                     .root = opts->root,
                                                     .pack = opts->pack,
                                                     .scene_budget_ns = budget_ns},
                                    &err);
    if (!app) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    rill_world *world = rill_app_world(app);
    /* Every engine component before the scene binds (a Terrain or Collider bound before its
     * registration would be kept as unknown text), then the demo's placeholders. */
    if (rill_app_register_components(world, NULL, NULL, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        rill_app_destroy(app);
        return 1;
    }
    rill_demo_register_components(world);
    rill_scene_loader *scenes = rill_app_scenes(app);
    uint64_t t0 = rill_time_ns();
    rill_scene_load h = rill_scene_load_async(scenes, opts->scene, &err);
    if (!h.id) {
        fprintf(stderr, "error: %s\n", err.msg);
        rill_app_destroy(app);
        return 1;
    }
    uint64_t max_frames = opts->max_frames ? opts->max_frames : 1000000u;
    RILL_ARRAY(uint64_t) frame_ns = {0};
    RILL_ARRAY(uint64_t) frame_cpu_ns = {0};
    int last_decile = -1;
    uint64_t last_draw = 0;
    rill_scene_load_state st = RILL_SCENE_LOAD_PARSING;
    /* Headless frames are paced to at most ~240 per second: while a worker parses, the main
     * thread would otherwise spin through empty frames and steal a core from it. The sleep is not
     * part of the measured main-thread time. */
    const uint64_t min_frame_period = 4166666u;
    while (res.frames < max_frames) {
        uint64_t c0 = rill_cli_thread_cpu_ns();
        uint64_t f0 = rill_time_ns();
        rill_app_frame(app);
        uint64_t f1 = rill_time_ns();
        uint64_t c1 = rill_cli_thread_cpu_ns();
        rill_array_push(&frame_ns, f1 - f0);
        rill_array_push(&frame_cpu_ns, c1 - c0);
        res.frames++;
        if (opts->trace_frames) {
            printf("frame %llu: %.3f ms, cpu %.3f ms (pre_update %.3f, post_update %.3f) "
                   "progress %.3f\n",
                   (unsigned long long)res.frames, (double)(f1 - f0) * 1e-6,
                   (double)(c1 - c0) * 1e-6,
                   (double)rill_app_last_stage_ns(app, RILL_STAGE_PRE_UPDATE) * 1e-6,
                   (double)rill_app_last_stage_ns(app, RILL_STAGE_POST_UPDATE) * 1e-6,
                   (double)rill_scene_load_progress(scenes, h));
        }
        st = rill_scene_load_get_state(scenes, h);
        float p = rill_scene_load_progress(scenes, h);
        uint32_t ents = rill_world_entity_count(world);
        if (opts->progress) {
            /* Redraw about 30 times a second, and once more when the load completes. */
            if (f1 - last_draw > 33000000u || st == RILL_SCENE_LOAD_LOADED) {
                draw_bar(opts->scene, p, ents, res.frames);
                last_draw = f1;
            }
        } else {
            int decile = (int)(p * 10.0f);
            if (decile > last_decile) {
                printf("progress %3d%%  %u entities  frame %llu  %.2f s\n", decile * 10, ents,
                       (unsigned long long)res.frames, (double)(f1 - t0) * 1e-9);
                fflush(stdout);
                last_decile = decile;
            }
        }
        if (st != RILL_SCENE_LOAD_PARSING && st != RILL_SCENE_LOAD_SPAWNING) {
            break;
        }
        uint64_t spent = rill_time_ns() - f0;
        if (spent < min_frame_period) {
            rill_sleep_ns(min_frame_period - spent);
        }
    }
    if (opts->progress) {
        printf("\n");
    }
    res.seconds = (double)(rill_time_ns() - t0) * 1e-9;
    res.entities = rill_world_entity_count(world);
    if (frame_ns.len) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < frame_ns.len; i++) {
            sum += frame_ns.data[i];
        }
        qsort(frame_ns.data, frame_ns.len, sizeof(uint64_t), cmp_u64);
        uint32_t p99 = (uint32_t)ceil(0.99 * frame_ns.len) - 1u;
        res.max_frame_ms = (double)frame_ns.data[frame_ns.len - 1u] * 1e-6;
        res.p99_frame_ms = (double)frame_ns.data[p99] * 1e-6;
        res.mean_frame_ms = (double)sum / frame_ns.len * 1e-6;
        qsort(frame_cpu_ns.data, frame_cpu_ns.len, sizeof(uint64_t), cmp_u64);
        res.max_frame_cpu_ms = (double)frame_cpu_ns.data[frame_cpu_ns.len - 1u] * 1e-6;
        res.p99_frame_cpu_ms = (double)frame_cpu_ns.data[p99] * 1e-6;
    }
    rill_array_free(&frame_cpu_ns);
    rill_array_free(&frame_ns);
    int rc = 0;
    if (st == RILL_SCENE_LOAD_LOADED) {
        res.ok = true;
        uint32_t warnings = rill_scene_load_warnings(scenes, h);
        printf("loaded %s: %u entities in %.2f s over %llu frames (%u warnings)\n", opts->scene,
               res.entities, res.seconds, (unsigned long long)res.frames, warnings);
        printf("main-thread frame time: max %.2f ms, p99 %.2f ms, mean %.2f ms "
               "(spawn budget %.2f ms)\n",
               res.max_frame_ms, res.p99_frame_ms, res.mean_frame_ms,
               budget_ns ? (double)budget_ns * 1e-6 : (double)project.scene.load_budget_ms);
        printf("main-thread frame CPU time: max %.2f ms, p99 %.2f ms\n", res.max_frame_cpu_ms,
               res.p99_frame_cpu_ms);
        if (opts->on_loaded) {
            rc = opts->on_loaded(app, opts->on_loaded_user);
        }
    } else if (st == RILL_SCENE_LOAD_FAILED) {
        fprintf(stderr, "error: loading %s failed: %s\n", opts->scene,
                rill_scene_load_error(scenes, h));
        rc = 1;
    } else {
        fprintf(stderr, "error: loading %s did not finish within %llu frames (state %s)\n",
                opts->scene, (unsigned long long)max_frames, rill_scene_load_state_name(st));
        rc = 1;
    }
    rill_app_destroy(app);
    if (out) {
        *out = res;
    }
    return rc;
}

/* Splits an OS path into the folder and the file name (the file then is the VFS path). False
 * when the folder does not fit root[cap]. */
static bool split_root(const char *file, char *root, size_t cap, const char **out_rel) {
    const char *slash = strrchr(file, '/');
    if (!slash) {
        snprintf(root, cap, ".");
        *out_rel = file;
        return true;
    }
    size_t len = slash > file ? (size_t)(slash - file) : 1u; /* "/x.rsn" lives in "/" */
    if (len >= cap) {
        return false;
    }
    memcpy(root, file, len);
    root[len] = '\0';
    *out_rel = slash + 1;
    return true;
}

static int scene_load(int argc, char **argv) {
    const char *file = NULL;
    const char *root = NULL;
    const char *pack = NULL;
    double budget_ms = 0.0;
    bool verbose = false;
    bool trace = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[++i];
        } else if (strcmp(argv[i], "--pack") == 0 && i + 1 < argc) {
            pack = argv[++i];
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            char *end = NULL;
            budget_ms = strtod(argv[++i], &end);
            if (!end || *end || !(budget_ms > 0.0) || budget_ms > 10000.0) {
                fprintf(stderr, "rill scene load: --budget-ms needs a number of milliseconds "
                                "in (0, 10000]\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--trace-frames") == 0) {
            trace = true;
        } else if (strcmp(argv[i], "--help") == 0) {
            scene_usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "rill scene load: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        fprintf(stderr, "rill scene load: missing FILE\n");
        scene_usage(stderr);
        return 2;
    }
    if (verbose) {
        rill_cli_install_log(true);
    }
    char root_buf[1024];
    const char *rel = file;
    if (!root) {
        if (!split_root(file, root_buf, sizeof(root_buf), &rel)) {
            fprintf(stderr, "rill scene load: path too long: %s\n", file);
            return 1;
        }
        root = root_buf;
    } else {
        /* FILE may be given as ROOT/x.rsn or as x.rsn relative to ROOT. */
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/') {
            n--;
        }
        if (strncmp(file, root, n) == 0 && file[n] == '/') {
            rel = file + n + 1;
        }
    }
    rill_cli_load_opts opts = {.root = root,
                               .pack = pack,
                               .scene = rel,
                               .budget_ms = budget_ms,
                               .progress = !trace && isatty(STDOUT_FILENO) != 0,
                               .trace_frames = trace};
    return rill_cli_load_scene(&opts, NULL);
}

int rill_cmd_scene(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        scene_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "check") == 0) {
        return scene_check(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "load") == 0) {
        return scene_load(argc - 1, argv + 1);
    }
    fprintf(stderr, "rill scene: unknown subcommand '%s'\n", argv[1]);
    scene_usage(stderr);
    return 2;
}
