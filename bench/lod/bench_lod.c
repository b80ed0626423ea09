/* bench_lod.c: LOD bake throughput and per-level triangle counts, plus reader and edge-builder
 * throughput, on real models (Debian assimp-testmodels, when installed) and a generated UV
 * sphere. Prints one JSON line per model and measurement. Usage: bench_lod [model.glb ...]
 * (default: the assimp models listed below). Each timing is the best of `reps` runs.
 *
 * The "lod_vs_meshopt" lines compare the bake (3 levels, edges included) with bare meshoptimizer
 * doing the same levels: every primitive simplified from the previous level's indices with the
 * same targets, error and sloppy fallback, on the base vertex buffer, nothing else (no copies,
 * compaction, bounds or edges). Runs alternate, each timed in thread CPU time, and the medians
 * are compared; the goal is
 * a ratio of at most 1.2. Generated models: a UV sphere, a 250 k-triangle terrain grid and a city
 * of 512 buildings (bench/gltf/bench_models.h). */
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_models.h"
#include "gltf_test_models.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"
#include "rill/formats/lod.h"

static const char *k_default_models[] = {
    "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
    "/usr/share/assimp/models/glTF2/ClearCoat-glTF/ClearCoatTest.gltf",
    "/usr/share/assimp/models/glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
};

/* Thread CPU time: on a machine shared with other work, the ratio of two CPU times is far
 * steadier than one of wall times (waiting for a core is not counted against either side). */
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Bare meshoptimizer doing what the bake's simplification does for `levels` levels. Returns the
 * triangles of the last level (so the work cannot be optimized away). */
static uint64_t bare_meshopt(const rill_gltf_model *m, uint32_t levels) {
    rill_lod_desc d = rill_lod_query_defaults();
    uint64_t tris = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const rill_gltf_primitive *bp = &m->meshes[i].primitives[p];
            size_t count = bp->index_count;
            const uint32_t *src = bp->indices;
            uint32_t *bufs[2] = {malloc(count * 4 + 4), malloc(count * 4 + 4)};
            uint32_t *alt = malloc(count * 4 + 4);
            for (uint32_t level = 1; level <= levels; level++) {
                size_t target = ((size_t)bp->index_count / 3u >> level) * 3u;
                target = target < 3 ? 3 : target;
                if (target >= count) {
                    continue;
                }
                uint32_t *dst = bufs[level & 1];
                float err = 0.0f;
                size_t got = meshopt_simplify(dst, src, count, bp->positions, bp->vertex_count, 12,
                                              target, d.target_error, 0, &err);
                if ((double)got > (double)d.sloppy_threshold * (double)target) {
                    size_t sgot = meshopt_simplifySloppy(alt, src, count, bp->positions,
                                                         bp->vertex_count, 12, target, 1.0f, &err);
                    if (sgot >= 3 && sgot < got) {
                        memcpy(dst, alt, sgot * 4);
                        got = sgot;
                    }
                }
                if (got >= 3 && got < count) {
                    src = dst;
                    count = got;
                }
            }
            tris += count / 3;
            free(bufs[0]);
            free(bufs[1]);
            free(alt);
        }
    }
    return tris;
}

/* The bake (default desc: 3 levels, edges included, and the same without edges) against bare
 * meshoptimizer, the three alternating within each run. */
static void bench_vs_meshopt(const char *name, const rill_gltf_model *m, int reps) {
    if (rill_gltf_model_triangle_count(m) < 1000) {
        return; /* too small to have levels or a meaningful ratio */
    }
    double *bake = malloc(sizeof(double) * (size_t)reps * 3u);
    double *bare = bake + reps, *plain = bake + 2 * reps;
    uint32_t count = 0;
    uint64_t bare_tris = 0, bake_tris = 0;
    rill_error err = {0};
    rill_lod_desc no_edges = rill_lod_query_defaults();
    no_edges.skip_edges = true;
    for (int r = 0; r < reps; r++) {
        for (int turn = 0; turn < 3; turn++) {
            int which = (turn + r) % 3; /* 0 bake, 1 bare meshoptimizer, 2 bake without edges */
            double t0 = cpu_ms();
            if (which == 1) {
                bare_tris = bare_meshopt(m, count);
                bare[r] = cpu_ms() - t0;
                continue;
            }
            rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
            rill_lod_level_info info[RILL_LOD_MAX_LEVELS];
            if (rill_lod_bake(m, which ? &no_edges : NULL, levels, info, &count, &err) != RILL_OK) {
                fprintf(stderr, "%s: %s\n", name, err.msg);
                free(bake);
                return;
            }
            (which ? plain : bake)[r] = cpu_ms() - t0;
            bake_tris = count ? info[count - 1].triangles : 0;
            for (uint32_t i = 0; i < count; i++) {
                rill_gltf_model_free(levels[i]);
            }
        }
    }
    qsort(bake, (size_t)reps, sizeof(double), cmp_d);
    qsort(bare, (size_t)reps, sizeof(double), cmp_d);
    qsort(plain, (size_t)reps, sizeof(double), cmp_d);
    double mb = bake[reps / 2], mm = bare[reps / 2], mp = plain[reps / 2];
    printf("{\"bench\":\"lod_vs_meshopt\",\"model\":\"%s\",\"base_triangles\":%llu,\"levels\":%u,"
           "\"last_level_triangles\":%llu,\"bare_last_level_triangles\":%llu,"
           "\"bake_cpu_ms_median\":%.2f,\"bake_no_edges_cpu_ms_median\":%.2f,"
           "\"meshopt_cpu_ms_median\":%.2f,\"bake_over_meshopt\":%.2f,"
           "\"bake_no_edges_over_meshopt\":%.2f}\n",
           name, (unsigned long long)rill_gltf_model_triangle_count(m), count,
           (unsigned long long)bake_tris, (unsigned long long)bare_tris, mb, mp, mm, mb / mm,
           mp / mm);
    fflush(stdout);
    free(bake);
}

static void bench_model(const char *name, const rill_gltf_model *m, double read_ms,
                        int64_t file_bytes) {
    const int reps = 3;
    uint64_t tris = rill_gltf_model_triangle_count(m);
    rill_error err = {0};
    if (read_ms >= 0.0) {
        printf("{\"bench\":\"gltf_read\",\"model\":\"%s\",\"bytes\":%lld,\"triangles\":%llu,"
               "\"ms\":%.3f,\"mb_per_s\":%.1f}\n",
               name, (long long)file_bytes, (unsigned long long)tris, read_ms,
               read_ms > 0 ? (double)file_bytes / 1e6 / (read_ms / 1e3) : 0.0);
    }
    /* Edge buffers over every primitive of the base model. */
    double best_edges = 1e30;
    uint64_t edge_count = 0;
    for (int r = 0; r < reps; r++) {
        rill_gltf_model *copy = NULL;
        uint8_t *bytes;
        size_t size;
        if (rill_glb_write_memory(m, NULL, &bytes, &size, &err) != RILL_OK ||
            rill_gltf_read_memory(bytes, size, NULL, &copy, &err) != RILL_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            return;
        }
        rill_free(bytes);
        uint64_t t0 = rill_time_ns();
        rill_gltf_model_build_edges(copy, NULL, &err);
        double ms = (double)(rill_time_ns() - t0) / 1e6;
        best_edges = ms < best_edges ? ms : best_edges;
        edge_count = 0;
        for (uint32_t i = 0; i < copy->mesh_count; i++) {
            for (uint32_t p = 0; p < copy->meshes[i].primitive_count; p++) {
                edge_count += copy->meshes[i].primitives[p].edge_index_count / 2;
            }
        }
        rill_gltf_model_free(copy);
    }
    printf("{\"bench\":\"edges\",\"model\":\"%s\",\"triangles\":%llu,\"edges\":%llu,\"ms\":%.3f,"
           "\"triangles_per_s\":%.0f}\n",
           name, (unsigned long long)tris, (unsigned long long)edge_count, best_edges,
           best_edges > 0 ? (double)tris / (best_edges / 1e3) : 0.0);

    double best = 1e30;
    rill_lod_level_info info[RILL_LOD_MAX_LEVELS];
    uint32_t count = 0;
    for (int r = 0; r < reps; r++) {
        rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
        uint64_t t0 = rill_time_ns();
        if (rill_lod_bake(m, NULL, levels, info, &count, &err) != RILL_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            return;
        }
        double ms = (double)(rill_time_ns() - t0) / 1e6;
        best = ms < best ? ms : best;
        for (uint32_t i = 0; i < count; i++) {
            rill_gltf_model_free(levels[i]);
        }
    }
    printf("{\"bench\":\"lod_bake\",\"model\":\"%s\",\"base_triangles\":%llu,\"levels\":%u,"
           "\"level_triangles\":[",
           name, (unsigned long long)tris, count);
    for (uint32_t i = 0; i < count; i++) {
        printf("%s%llu", i ? "," : "", (unsigned long long)info[i].triangles);
    }
    printf("],\"level_targets\":[");
    for (uint32_t i = 0; i < count; i++) {
        printf("%s%llu", i ? "," : "", (unsigned long long)info[i].target_triangles);
    }
    printf("],\"sloppy_primitives\":[");
    for (uint32_t i = 0; i < count; i++) {
        printf("%s%u", i ? "," : "", info[i].sloppy_primitives);
    }
    printf("],\"ms\":%.3f,\"base_triangles_per_s\":%.0f}\n", best,
           best > 0 ? (double)tris / (best / 1e3) : 0.0);
    fflush(stdout);
}

int main(int argc, char **argv) {
    rill_log_set_level(RILL_LOG_ERROR);
    const char **models = (const char **)(argv + 1);
    int n = argc - 1;
    if (n == 0) {
        models = k_default_models;
        n = (int)RILL_COUNTOF(k_default_models);
    }
    for (int i = 0; i < n; i++) {
        if (!rill_file_exists(models[i])) {
            fprintf(stderr, "bench_lod: %s not found (install assimp-testmodels); skipped\n",
                    models[i]);
            continue;
        }
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        double best_read = 1e30;
        for (int r = 0; r < 3; r++) {
            rill_gltf_model_free(m);
            uint64_t t0 = rill_time_ns();
            if (rill_gltf_read_file(models[i], NULL, &m, &err) != RILL_OK) {
                fprintf(stderr, "bench_lod: %s\n", err.msg);
                m = NULL;
                break;
            }
            double ms = (double)(rill_time_ns() - t0) / 1e6;
            best_read = ms < best_read ? ms : best_read;
        }
        if (m) {
            bench_model(rill_path_basename(models[i]), m, best_read, rill_file_size(models[i]));
            bench_vs_meshopt(rill_path_basename(models[i]), m, 7);
            rill_gltf_model_free(m);
        }
    }
    /* A generated UV sphere of 261,632 triangles: one large smooth primitive. */
    rill_gltf_model *sphere = tm_sphere(512, 256);
    bench_model("uv_sphere_512x256", sphere, -1.0, 0);
    bench_vs_meshopt("uv_sphere_512x256", sphere, 7);
    rill_gltf_model_free(sphere);
    rill_gltf_model *grid = make_grid(500, 250, false);
    bench_vs_meshopt("grid_250k_triangles", grid, 5);
    rill_gltf_model_free(grid);
    rill_gltf_model *city = make_city(512, 8);
    bench_vs_meshopt("city_512_meshes", city, 5);
    rill_gltf_model_free(city);
    return 0;
}
