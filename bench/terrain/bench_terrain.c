/* bench_terrain.c: terrain and physics figures. One JSON line per measurement:
 *   {"bench":"terrain","case":"rebuild","resolution":R,...}  mesh + collider build per chunk: the
 *       worker part (positions, normals, collider samples) and the main-thread part (heightfield
 *       collider creation), mean over every chunk of a 4 x 4 terrain built and rebuilt 3 times;
 *   {"case":"memory",...}       measured CPU bytes (rill_mem_live_bytes of the terrain and physics
 *       tags) per resident chunk with its mesh (headless) and after the renderer dropped the mesh
 *       (collider only), per unloaded chunk (its share of the heights and its record), and whether
 *       every byte came back once all chunks went out; GPU bytes from the renderer's layout
 * (48-byte vertices per chunk; one index buffer per resolution, asserted by test render_terrain);
 *   {"case":"fly",...}          a camera entity crossing a 2 km terrain (32 x 32 chunks of 64 m,
 *       resolution 129, stream radius 256) at 100 m/s, 60 frames per second, with worker threads,
 *       the terrain driven as a rill_stream streamer (as in an app): the main thread's work per
 *       frame (completion drain + transforms + stream update + physics step), worst and 99th
 *       percentile, and builds applied per frame;
 *   {"case":"physics_1000",...} the physics step for 1000 bodies dropped on a resident 4 x 4
 *       terrain: mean and worst over 600 steps at 60 Hz, and how many still move at the end.
 * Arguments: "quick" shortens the fly (a smoke run); "rebuild", "physics" or "fly" runs only that
 * case (rebuild includes memory). */
#include "rill/physics.h"
#include "rill/stream/terrain.h"
#include "rill/terrain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_ctx {
    rill_world *world;
    rill_jobs *jobs;
    rill_physics *phys;
    rill_terrain_system *sys;
    rill_component comp;
} bench_ctx;

static void ctx_init(bench_ctx *b, bool deterministic) {
    b->world = rill_world_create(NULL, NULL);
    b->jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = deterministic}, NULL);
    rill_error err = {0};
    b->phys = rill_physics_create(&(rill_physics_desc){.world = b->world}, &err);
    b->sys = rill_terrain_system_create(
        &(rill_terrain_system_desc){.world = b->world, .jobs = b->jobs, .physics = b->phys}, &err);
    if (!b->phys || !b->sys) {
        fprintf(stderr, "bench_terrain: %s\n", err.msg);
        exit(1);
    }
    b->comp = rill_terrain_register(b->world);
}

static void ctx_free(bench_ctx *b) {
    rill_terrain_system_destroy(b->sys);
    rill_physics_destroy(b->phys);
    rill_jobs_destroy(b->jobs);
    rill_world_destroy(b->world);
}

static rill_entity spawn_terrain(bench_ctx *b, const rill_terrain *t) {
    rill_entity e = rill_world_spawn(b->world);
    rill_transform tr = rill_transform_identity();
    rill_world_set_transform(b->world, e, &tr);
    rill_world_add(b->world, e, b->comp, t);
    return e;
}

static void bench_rebuild(uint32_t res) {
    bench_ctx b;
    ctx_init(&b, true); /* builds run on this thread: their time is the work itself */
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.resolution = res;
    t.stream = true;
    rill_entity e = spawn_terrain(&b, &t);
    rill_terrain_view near = {
        .streaming = true, .has_camera = true, .camera_position = {128, 0, 128}};
    rill_terrain_view far = near;
    far.camera_position[0] = 1e6f;
    for (int round = 0; round < 3; round++) {
        rill_terrain_system_flush(b.sys, &near);
        rill_terrain_system_flush(b.sys, &far);
    }
    rill_terrain_system_flush(b.sys, &near);
    rill_terrain_info info;
    rill_terrain_get_info(b.sys, e, &info);
    double n = (double)info.rebuilds_total;
    double build_ms = (double)info.build_ns_total / n / 1e6;
    double apply_ms = (double)info.apply_ns_total / n / 1e6;
    printf("{\"bench\":\"terrain\",\"case\":\"rebuild\",\"resolution\":%u,\"chunks_built\":%.0f,"
           "\"build_ms_per_chunk\":%.3f,\"apply_ms_per_chunk\":%.3f,\"total_ms_per_chunk\":%.3f}\n",
           res, n, build_ms, apply_ms, build_ms + apply_ms);
    /* Memory, measured: all out, all in, meshes dropped as the renderer does after its upload, all
     * out again. */
    uint32_t chunks = info.chunks_x * info.chunks_z;
    rill_terrain_system_flush(b.sys, &far);
    size_t out0 = rill_mem_live_bytes(RILL_MEM_TERRAIN) + rill_mem_live_bytes(RILL_MEM_PHYSICS);
    rill_terrain_system_flush(b.sys, &near);
    size_t in = rill_mem_live_bytes(RILL_MEM_TERRAIN) + rill_mem_live_bytes(RILL_MEM_PHYSICS);
    for (uint32_t i = 0; i < chunks; i++) {
        rill_terrain_chunk_drop_mesh(b.sys, e, i % info.chunks_x, i / info.chunks_x);
    }
    size_t dropped = rill_mem_live_bytes(RILL_MEM_TERRAIN) + rill_mem_live_bytes(RILL_MEM_PHYSICS);
    rill_terrain_get_info(b.sys, e, &info);
    uint32_t resident = info.resident;
    size_t unloaded = info.height_bytes / chunks;
    rill_terrain_system_flush(b.sys, &far);
    size_t out1 = rill_mem_live_bytes(RILL_MEM_TERRAIN) + rill_mem_live_bytes(RILL_MEM_PHYSICS);
    uint64_t gpu_vertex = (uint64_t)res * res * 48u;
    uint64_t gpu_index = (uint64_t)(res - 1) * (res - 1) * 6u * 4u;
    printf("{\"bench\":\"terrain\",\"case\":\"memory\",\"resolution\":%u,\"resident\":%u,"
           "\"resident_cpu_bytes_per_chunk_with_mesh\":%zu,"
           "\"resident_cpu_bytes_per_chunk_rendered\":%zu,\"unloaded_bytes_per_chunk\":%zu,"
           "\"gpu_vertex_bytes_per_chunk\":%llu,\"gpu_index_bytes_per_resolution\":%llu,"
           "\"bytes_back_after_out\":%s}\n",
           res, resident, (in - out0) / resident + unloaded, (dropped - out0) / resident + unloaded,
           unloaded, (unsigned long long)gpu_vertex, (unsigned long long)gpu_index,
           out1 == out0 ? "true" : "false");
    fflush(stdout);
    ctx_free(&b);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void bench_fly(bool quick) {
    bench_ctx b;
    ctx_init(&b, false);
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.chunks_x = t.chunks_z = 32;
    t.stream = true;
    rill_entity e = spawn_terrain(&b, &t);
    rill_error err = {0};
    rill_stream *stream = rill_stream_create(
        &(rill_stream_desc){.world = b.world, .run_mode = RILL_RUN_MODE_GAME}, &err);
    if (!stream || !rill_stream_add_terrain(stream, b.sys)) {
        fprintf(stderr, "bench_terrain: stream: %s\n", err.msg);
        exit(1);
    }
    /* Start in a corner, settled, then fly the camera entity along the diagonal. */
    rill_entity cam = rill_world_spawn(b.world);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = tr.translation[2] = 100.0f;
    rill_world_set_transform(b.world, cam, &tr);
    rill_camera c = {.active = true, .role = RILL_CAMERA_ROLE_GAME};
    rill_world_add(b.world, cam, rill_world_builtin(b.world)->camera, &c);
    rill_world_update_transforms(b.world);
    rill_terrain_view view = {
        .streaming = true, .has_camera = true, .camera_position = {100, 0, 100}};
    rill_terrain_system_flush(b.sys, &view);
    const double dt = 1.0 / 60.0, speed = 100.0;
    uint32_t frames = quick ? 300 : 1500; /* 5 s or 25 s: 500 m or 2.5 km... along the diagonal */
    uint64_t *ns = malloc(frames * sizeof(uint64_t));
    uint32_t max_applied = 0;
    uint64_t applied = 0;
    for (uint32_t f = 0; f < frames; f++) {
        float step = (float)(speed * dt / sqrt(2.0));
        tr.translation[0] += step;
        tr.translation[2] += step;
        rill_world_set_transform(b.world, cam, &tr);
        uint64_t t0 = rill_time_ns();
        rill_jobs_drain(b.jobs, 2000000);
        rill_world_update_transforms(b.world);
        rill_stream_update(stream);
        rill_physics_step(b.phys, dt);
        ns[f] = rill_time_ns() - t0;
        rill_terrain_info info;
        rill_terrain_get_info(b.sys, e, &info);
        max_applied =
            info.rebuilds_last_update > max_applied ? info.rebuilds_last_update : max_applied;
        applied += info.rebuilds_last_update;
        /* Pace the frames like a 60 Hz loop so workers build between them. */
        uint64_t spent = rill_time_ns() - t0;
        if (spent < 16666666u) {
            rill_sleep_ns(16666666u - spent);
        }
    }
    qsort(ns, frames, sizeof(uint64_t), cmp_u64);
    double sum = 0;
    for (uint32_t f = 0; f < frames; f++) {
        sum += (double)ns[f];
    }
    rill_terrain_info info;
    rill_terrain_get_info(b.sys, e, &info);
    printf("{\"bench\":\"terrain\",\"case\":\"fly\",\"speed_m_s\":100,\"frames\":%u,"
           "\"chunks\":%u,\"resident_end\":%u,\"workers\":%u,\"builds_applied\":%llu,"
           "\"max_applied_per_frame\":%u,\"main_ms_mean\":%.3f,\"main_ms_p99\":%.3f,"
           "\"main_ms_worst\":%.3f,\"budget_ms\":16.667}\n",
           frames, info.chunks_x * info.chunks_z, info.resident, rill_jobs_worker_count(b.jobs),
           (unsigned long long)applied, max_applied, sum / frames / 1e6,
           (double)ns[(uint32_t)(frames * 0.99)] / 1e6, (double)ns[frames - 1] / 1e6);
    fflush(stdout);
    free(ns);
    rill_stream_destroy(stream);
    ctx_free(&b);
}

static void bench_physics(void) {
    bench_ctx b;
    ctx_init(&b, true);
    rill_terrain t;
    rill_terrain_defaults(&t);
    rill_entity e = spawn_terrain(&b, &t);
    rill_terrain_system_flush(b.sys, NULL);
    rill_physics_components pc = rill_physics_register(b.world);
    /* 1000 bodies (spheres, boxes, capsules) on a 40 x 25 grid, 5 m apart, 10 m above ground. */
    for (uint32_t i = 0; i < 1000; i++) {
        float x = 30.0f + (float)(i % 40) * 5.0f, z = 60.0f + (float)(i / 40) * 5.0f, h = 0;
        rill_terrain_height_at(b.sys, e, x, z, &h, NULL);
        rill_entity body = rill_world_spawn(b.world);
        rill_transform tr = rill_transform_identity();
        tr.translation[0] = x;
        tr.translation[1] = h + 10.0f;
        tr.translation[2] = z;
        rill_world_set_transform(b.world, body, &tr);
        rill_collider col;
        rill_type_apply_defaults(rill_world_component_type(b.world, pc.collider), &col);
        col.shape = (int32_t)(i % 3);
        rill_world_add(b.world, body, pc.collider, &col);
        rill_world_add(b.world, body, pc.rigid_body, NULL);
    }
    /* The first step builds the 1000 bodies from their components: reported on its own. */
    rill_physics_step(b.phys, 1.0 / 60.0);
    rill_physics_stats first;
    rill_physics_get_stats(b.phys, &first);
    const uint32_t steps = 600;
    uint64_t sum = 0, worst = 0, sum_first = 0, per[600];
    for (uint32_t s = 0; s < steps; s++) {
        rill_physics_step(b.phys, 1.0 / 60.0);
        rill_physics_stats st;
        rill_physics_get_stats(b.phys, &st);
        per[s] = st.last_step_ns;
        sum += st.last_step_ns;
        if (s < 120) {
            sum_first += st.last_step_ns;
        }
        if (st.last_step_ns > worst) {
            worst = st.last_step_ns;
        }
    }
    qsort(per, steps, sizeof(uint64_t), cmp_u64);
    rill_physics_stats st;
    rill_physics_get_stats(b.phys, &st);
    printf(
        "{\"bench\":\"terrain\",\"case\":\"physics_1000\",\"bodies\":%u,\"terrain_colliders\":%u,"
        "\"steps\":%u,\"step_ms_mean\":%.3f,\"step_ms_mean_first_2s\":%.3f,"
        "\"step_ms_p99\":%.3f,\"step_ms_worst\":%.3f,\"awake_end\":%u,\"first_step_ms_with_1000_"
        "creations\":%.3f}\n",
        st.bodies, st.static_colliders, steps, (double)sum / steps / 1e6,
        (double)sum_first / 120 / 1e6, (double)per[(uint32_t)(steps * 0.99)] / 1e6,
        (double)worst / 1e6, st.awake, (double)first.last_step_ns / 1e6);
    fflush(stdout);
    ctx_free(&b);
}

int main(int argc, char **argv) {
    bool quick = false;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "quick") == 0) {
            quick = true;
        } else {
            only = argv[i];
        }
    }
    if (!only || strcmp(only, "rebuild") == 0) {
        bench_rebuild(129);
        bench_rebuild(257);
    }
    if (!only || strcmp(only, "physics") == 0) {
        bench_physics();
    }
    if (!only || strcmp(only, "fly") == 0) {
        bench_fly(quick);
    }
    return 0;
}
