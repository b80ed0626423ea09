/* bench_scene.c: scene benchmarks, one JSON line per measurement.
 *
 *   parse        .rsn text -> document (lexer + parser), MB/s
 *   parse_bind   text -> component bytes (parse + registry binding, what a load worker does), MB/s
 *   spawn        bound scene -> world (spawn_n + components + hierarchy), entities/s
 *   load_sync    read + parse + bind + spawn of a file, seconds
 *   load_async   the same scene through rill_scene_load_async with a 3 ms budget: per-frame
 *                main-thread time (max, p99: the loader's update plus the transform pass that
 *                propagates what it applied), frames, total time, and the ratio to load_sync
 *   swap_async   the same again, replacing the scene the first load made
 *
 * Scenes have 4 typical components per entity: Name, Transform, MeshRenderer {mesh, material:
 * asset paths, cast_shadows}, Collider {shape enum, half_extents vec3, friction}; one entity in
 * eight is a child of the one before it.
 *
 * Usage: bench_scene [max_entities]   (default 1000000; sizes 10k, 100k, 1M up to it)
 */
#include "rill/scene.h"

#include "../../src/scene/scene_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct mesh_renderer {
    const char *mesh;
    const char *material;
    bool cast_shadows;
} mesh_renderer;

typedef struct collider {
    int32_t shape;
    float half_extents[3];
    float friction;
} collider;

static void register_bench_components(rill_world *w) {
    static const bool yes = true;
    const rill_field mr_fields[] = {
        RILL_FIELD(mesh_renderer, mesh, ASSET_PATH),
        RILL_FIELD(mesh_renderer, material, ASSET_PATH),
        RILL_FIELD_WITH(mesh_renderer, cast_shadows, BOOL, .default_value = &yes),
    };
    static const rill_enum_item shapes[] = {{"box", 0}, {"sphere", 1}, {"capsule", 2}};
    static const float half[3] = {0.5f, 0.5f, 0.5f};
    static const float fr = 0.6f;
    const rill_field co_fields[] = {
        RILL_FIELD_WITH(collider, shape, ENUM, .enum_items = shapes, .enum_count = 3),
        RILL_FIELD_WITH(collider, half_extents, VEC3, RILL_FIELD_MIN(0), .default_value = half),
        RILL_FIELD_WITH(collider, friction, F32, RILL_FIELD_RANGE(0, 1), .default_value = &fr),
    };
    rill_type_desc mr = {
        .name = "MeshRenderer", RILL_TYPE_LAYOUT(mesh_renderer), RILL_FIELDS(mr_fields)};
    rill_type_desc co = {.name = "Collider", RILL_TYPE_LAYOUT(collider), RILL_FIELDS(co_fields)};
    rill_world_register_component(w, &mr);
    rill_world_register_component(w, &co);
}

/* A scene of n entities in canonical form (the writer's own layout, as files on disk are). */
static char *make_scene(uint32_t n, size_t *out_len) {
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    static const char *const meshes[] = {"models/rock.glb", "models/tree.glb", "models/house.glb",
                                         "models/fence.glb"};
    uint64_t s = 88172645463325252ull;
    for (uint32_t i = 1; i <= n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        float x = (float)(s % 100000) * 0.01f, z = (float)((s >> 20) % 100000) * 0.01f;
        float yaw = (float)((s >> 40) % 628) * 0.01f;
        if (i % 8 == 0) {
            rill_strbuf_printf(&sb, "\nentity %u parent %u \"obj_%u\" {\n", i, i - 1, i);
        } else {
            rill_strbuf_printf(&sb, "\nentity %u \"obj_%u\" {\n", i, i);
        }
        rill_strbuf_printf(
            &sb,
            "    Collider {\n        shape: box\n        half_extents: (0.5, 1.25, 0.5)\n"
            "        friction: 0.6\n    }\n"
            "    MeshRenderer {\n        mesh: @\"%s\"\n        material: @\"materials/m%u.mat\"\n"
            "        cast_shadows: true\n    }\n"
            "    Transform {\n        translation: (%.2f, 0, %.2f)\n"
            "        rotation: (0, %.4f, 0, 1)\n        scale: (1, 1, 1)\n    }\n}\n",
            meshes[i & 3], i & 15u, (double)x, (double)z, (double)yaw * 0.1);
    }
    *out_len = sb.len;
    return sb.data;
}

/* CPU time of the calling thread: unlike wall time it leaves out the time the scheduler gives to
 * other processes, which on a shared machine dominates any single frame. */
static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The fastest of a few runs of one step, on the wall clock and on the thread's CPU clock. */
typedef struct best_run {
    double sec, cpu_sec;
    uint64_t t0, c0; /* the current run's start */
} best_run;

static best_run best_run_none(void) {
    return (best_run){.sec = 1e30, .cpu_sec = 1e30};
}

static void best_run_start(best_run *b) {
    b->c0 = thread_cpu_ns();
    b->t0 = rill_time_ns();
}

static void best_run_end(best_run *b) {
    double sec = (double)(rill_time_ns() - b->t0) * 1e-9;
    double csec = (double)(thread_cpu_ns() - b->c0) * 1e-9;
    b->sec = sec < b->sec ? sec : b->sec;
    b->cpu_sec = csec < b->cpu_sec ? csec : b->cpu_sec;
}

/* One JSON line: the best times of a step over a text of len bytes with n entities. */
static void best_run_print(const best_run *b, const char *bench, uint32_t n, size_t len) {
    double mb = (double)len / 1e6;
    printf("{\"bench\":\"%s\",\"entities\":%u,\"bytes\":%zu,\"seconds\":%.6f,"
           "\"mb_per_s\":%.1f,\"cpu_seconds\":%.6f,\"mb_per_cpu_s\":%.1f}\n",
           bench, n, len, b->sec, mb / b->sec, b->cpu_sec, mb / b->cpu_sec);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void bench_size(uint32_t n, const char *dir) {
    size_t len;
    char *text = make_scene(n, &len);

    /* parse: best of a few runs for the small sizes */
    int reps = n <= 10000 ? 5 : n <= 100000 ? 3 : 2;
    best_run best = best_run_none();
    for (int r = 0; r < reps; r++) {
        rsn_doc doc;
        rill_error err = {0};
        best_run_start(&best);
        if (rill__rsn_parse(&doc, "bench.rsn", text, len, &err) != RILL_OK) {
            fprintf(stderr, "parse failed: %s\n", err.msg);
            exit(1);
        }
        best_run_end(&best);
        rill__rsn_doc_free(&doc);
    }
    best_run_print(&best, "scene_parse", n, len);

    /* parse + bind, and spawn from the bound scene */
    rill_world *w = rill_world_create(&(rill_world_desc){.entity_capacity = n}, NULL);
    register_bench_components(w);
    rill_scene_register(w);
    scene_types *types = rill__scene_types_create(w);
    bind_opts opts = {.max_depth = 8, .max_entities = 1u << 30};
    best = best_run_none();
    bound_scene keep = {0};
    for (int r = 0; r < reps; r++) {
        rsn_doc doc;
        bound_scene b = {0};
        rill_error err = {0};
        best_run_start(&best);
        rill__rsn_parse(&doc, "bench.rsn", text, len, &err);
        if (rill__scene_bind(types, &opts, &doc, NULL, &b, &err) != RILL_OK) {
            fprintf(stderr, "bind failed: %s\n", err.msg);
            exit(1);
        }
        rill__rsn_doc_free(&doc);
        best_run_end(&best);
        if (r == reps - 1) {
            keep = b;
        } else {
            rill__bound_free(&b);
        }
    }
    best_run_print(&best, "scene_parse_bind", n, len);

    rill_entity *spawned = malloc(sizeof(rill_entity) * n);
    uint64_t c0 = thread_cpu_ns();
    uint64_t t0 = rill_time_ns();
    rill_world_spawn_n(w, n, spawned);
    uint64_t t1 = rill_time_ns();
    for (uint32_t i = 0; i < n; i++) {
        rill__scene_apply_entity(w, types, &keep, i, spawned, RILL_ENTITY_NULL);
    }
    uint64_t t2 = rill_time_ns();
    double csec = (double)(thread_cpu_ns() - c0) * 1e-9;
    double sec = (double)(t2 - t0) * 1e-9;
    printf("{\"bench\":\"scene_spawn\",\"entities\":%u,\"components_per_entity\":4,"
           "\"spawn_n_seconds\":%.6f,\"seconds\":%.6f,\"entities_per_s\":%.0f,"
           "\"cpu_seconds\":%.6f,\"entities_per_cpu_s\":%.0f}\n",
           n, (double)(t1 - t0) * 1e-9, sec, (double)n / sec, csec, (double)n / csec);
    free(spawned);
    rill__bound_free(&keep);
    rill__scene_types_release(types);
    rill_world_destroy(w);

    /* sync and async load of the file, only up to 100k (the async target is stated at 100k) */
    if (n <= 100000) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bench_%u.rsn", dir, n);
        rill_error err = {0};
        rill_file_write_all(path, text, len, &err);
        rill_vfs *vfs = rill_vfs_create(NULL, NULL);
        rill_vfs_mount_dir(vfs, dir, &err);
        char rel[64];
        snprintf(rel, sizeof rel, "bench_%u.rsn", n);
        /* Missing asset paths only warn; keep the log quiet. */
        rill_log_set_level(RILL_LOG_ERROR);

        w = rill_world_create(&(rill_world_desc){.entity_capacity = n}, NULL);
        register_bench_components(w);
        rill_scene_loader *ld =
            rill_scene_loader_create(&(rill_scene_loader_desc){.world = w, .vfs = vfs}, NULL);
        t0 = rill_time_ns();
        if (rill_scene_load_sync(ld, rel, NULL, &err) != RILL_OK) {
            fprintf(stderr, "sync load failed: %s\n", err.msg);
            exit(1);
        }
        double sync_sec = (double)(rill_time_ns() - t0) * 1e-9;
        printf("{\"bench\":\"scene_load_sync\",\"entities\":%u,\"seconds\":%.6f,"
               "\"entities_per_s\":%.0f}\n",
               n, sync_sec, (double)n / sync_sec);
        rill_scene_loader_destroy(ld);
        rill_world_destroy(w);

        rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){0}, NULL);
        w = rill_world_create(&(rill_world_desc){.entity_capacity = n}, NULL);
        register_bench_components(w);
        const uint64_t budget = 3000000;
        ld = rill_scene_loader_create(
            &(rill_scene_loader_desc){.world = w, .vfs = vfs, .jobs = jobs, .budget_ns = budget},
            NULL);
        uint32_t cap = 1u << 16;
        uint64_t *ft = malloc(sizeof(uint64_t) * cap);
        uint64_t *fc = malloc(sizeof(uint64_t) * cap);
        /* Run 0 loads into an empty world; run 1 loads the same file again, so its completing
         * update also despawns the previous 100k-entity main scene (same-frame swap). */
        for (int run = 0; run < 2; run++) {
            uint32_t frames = 0;
            t0 = rill_time_ns();
            rill_scene_load h = rill_scene_load_async(ld, rel, &err);
            uint64_t busy = 0, busy_cpu = 0;
            /* Until the load is done and, for the swap, the replaced scene is gone too. */
            while (rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_PARSING ||
                   rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_SPAWNING ||
                   rill_scene_loader_retiring(ld)) {
                bool parsing = rill_scene_load_get_state(ld, h) == RILL_SCENE_LOAD_PARSING;
                /* A frame's share of the load: the loader's update and the transform pass that
                 * propagates what it applied (app.c runs both every frame). */
                uint64_t c = thread_cpu_ns(), a = rill_time_ns();
                uint32_t applied = rill_scene_loader_update(ld);
                uint64_t mid = rill_time_ns();
                uint32_t propagated = rill_world_update_transforms(w);
                uint64_t d = rill_time_ns() - a, dc = thread_cpu_ns() - c;
                /* Frames that only polled the worker do nothing; record the frames that did work
                 * (the spawn pass, applying, completion). */
                if (getenv("BENCH_SCENE_FRAMES") && (applied > 0 || !parsing)) {
                    fprintf(stderr,
                            "frame: parsing=%d applied=%u propagated=%u wall=%.3f (loader %.3f) "
                            "cpu=%.3f ms\n",
                            parsing, applied, propagated, (double)d * 1e-6,
                            (double)(mid - a) * 1e-6, (double)dc * 1e-6);
                }
                if ((applied > 0 || propagated > 0 || !parsing || d > 200000) && frames < cap) {
                    ft[frames] = d;
                    fc[frames++] = dc;
                }
                busy += d;
                busy_cpu += dc;
                rill_world_update_events(w);
                /* A game does other work between updates; while the worker parses, do not compete
                 * with it for the CPU. */
                if (parsing) {
                    rill_sleep_ns(200000);
                }
            }
            double async_sec = (double)(rill_time_ns() - t0) * 1e-9;
            if (rill_scene_load_get_state(ld, h) != RILL_SCENE_LOAD_LOADED) {
                fprintf(stderr, "async load: %s\n", rill_scene_load_error(ld, h));
            }
            qsort(ft, frames, sizeof *ft, cmp_u64);
            qsort(fc, frames, sizeof *fc, cmp_u64);
            uint64_t mx = frames ? ft[frames - 1] : 0;
            uint64_t p99 = frames ? ft[(uint32_t)((double)(frames - 1) * 0.99)] : 0;
            uint64_t cmx = frames ? fc[frames - 1] : 0;
            uint64_t cp99 = frames ? fc[(uint32_t)((double)(frames - 1) * 0.99)] : 0;
            printf(
                "{\"bench\":\"%s\",\"entities\":%u,\"budget_ms\":%.1f,"
                "\"state\":\"%s\",\"work_frames\":%u,\"frame_max_ms\":%.3f,\"frame_p99_ms\":%.3f,"
                "\"frame_cpu_max_ms\":%.3f,\"frame_cpu_p99_ms\":%.3f,"
                "\"main_thread_ms\":%.3f,\"main_thread_cpu_ms\":%.3f,\"total_seconds\":%.6f,"
                "\"sync_seconds\":%.6f,\"total_vs_sync\":%.3f}\n",
                run == 0 ? "scene_load_async" : "scene_swap_async", n, (double)budget * 1e-6,
                rill_scene_load_state_name(rill_scene_load_get_state(ld, h)), frames,
                (double)mx * 1e-6, (double)p99 * 1e-6, (double)cmx * 1e-6, (double)cp99 * 1e-6,
                (double)busy * 1e-6, (double)busy_cpu * 1e-6, async_sec, sync_sec,
                async_sec / sync_sec);
        }
        free(fc);
        free(ft);
        rill_scene_loader_destroy(ld);
        rill_world_destroy(w);
        rill_jobs_destroy(jobs);
        rill_vfs_destroy(vfs);
        remove(path);
        rill_log_set_level(RILL_LOG_INFO);
    }
    rill_free(text);
}

int main(int argc, char **argv) {
    uint32_t max = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) {
        dir = "/tmp";
    }
    static const uint32_t sizes[] = {10000, 100000, 1000000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] <= max) {
            bench_size(sizes[i], dir);
        }
    }
    return 0;
}
