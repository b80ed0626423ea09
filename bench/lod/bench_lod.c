/* bench_lod.c: LOD bake throughput and per-level triangle counts, plus reader and edge-builder
 * throughput, on real models (Debian assimp-testmodels, when installed) and a generated UV
 * sphere. Prints one JSON line per model and measurement. Usage: bench_lod [model.glb ...]
 * (default: the assimp models listed below). Each timing is the best of `reps` runs. */
#include <stdio.h>
#include <string.h>

#include "gltf_test_models.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"
#include "rill/formats/lod.h"

static const char *k_default_models[] = {
    "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
    "/usr/share/assimp/models/glTF2/ClearCoat-glTF/ClearCoatTest.gltf",
    "/usr/share/assimp/models/glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
};

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
            rill_gltf_model_free(m);
        }
    }
    /* A generated UV sphere of 261,632 triangles: one large smooth primitive. */
    rill_gltf_model *sphere = tm_sphere(512, 256);
    bench_model("uv_sphere_512x256", sphere, -1.0, 0);
    rill_gltf_model_free(sphere);
    return 0;
}
