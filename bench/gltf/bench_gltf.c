/* bench_gltf.c: glTF reader throughput on the two shapes of file users export: a city of 4,096
 * small meshes (about 30 MB) and one 1 M-triangle grid (about 28 MB), both written to disk with
 * Rill's own .glb writer, plus the same grid with a normal-mapped material (which makes the
 * reader generate tangents). Each file is read from memory `reps` times; when cgltf is built in
 * (see CMakeLists.txt), its parse + load + validate + decode-every-accessor runs interleaved
 * with Rill's on the same bytes and its decoded positions, UVs and indices are compared with
 * Rill's. Prints one JSON line per file and reader, medians and MB/s.
 * Usage: bench_gltf [--reps N] [--dir FOLDER] [--only city|grid_1m_t|normal] (files are written to
 * FOLDER, default ".") */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_models.h"
#include "rill/formats/gltf.h"
#ifdef RILL_BENCH_HAVE_CGLTF
#include "peer_cgltf.h"
#endif

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void report(const char *file, const char *reader, size_t bytes, double ms,
                   uint64_t triangles) {
    printf("{\"bench\":\"gltf_read\",\"file\":\"%s\",\"reader\":\"%s\",\"bytes\":%zu,"
           "\"triangles\":%llu,\"ms_median\":%.2f,\"mb_per_s\":%.1f}\n",
           file, reader, bytes, (unsigned long long)triangles, ms,
           (double)bytes / 1e6 / (ms / 1e3));
}

static int bench_file(const char *label, const char *path, int reps) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(path, &bytes, &size, &err) != RILL_OK) {
        fprintf(stderr, "bench_gltf: %s\n", err.msg);
        return 1;
    }
    double *rill_ms = bm_zalloc((size_t)reps, sizeof(double));
    double *peer_ms = bm_zalloc((size_t)reps, sizeof(double));
    uint64_t tris = 0;
    int peer_ok = 1;
    for (int r = 0; r < reps; r++) {
        rill_gltf_model *m = NULL;
        uint64_t t0 = rill_time_ns();
        rill_gltf_read_desc desc = {.name = label};
        if (rill_gltf_read_memory(bytes, size, &desc, &m, &err) != RILL_OK) {
            fprintf(stderr, "bench_gltf: %s\n", err.msg);
            return 1;
        }
        rill_ms[r] = (double)(rill_time_ns() - t0) / 1e6;
        tris = rill_gltf_model_triangle_count(m);
#ifdef RILL_BENCH_HAVE_CGLTF
        if (r == 0) {
            peer_ok = peer_cgltf_compare(bytes, size, m);
        }
        t0 = rill_time_ns();
        if (peer_cgltf_load(bytes, size) == 0) {
            peer_ok = 0;
        }
        peer_ms[r] = (double)(rill_time_ns() - t0) / 1e6;
#endif
        rill_gltf_model_free(m);
    }
    double rm = median(rill_ms, reps);
    report(label, "rill", size, rm, tris);
#ifdef RILL_BENCH_HAVE_CGLTF
    double pm = median(peer_ms, reps);
    report(label, "cgltf", size, pm, tris);
    printf("{\"bench\":\"gltf_read_vs_cgltf\",\"file\":\"%s\",\"same_output\":%s,"
           "\"rill_over_cgltf_speed\":%.2f}\n",
           label, peer_ok ? "true" : "false", pm / rm);
#else
    (void)peer_ok;
#endif
    fflush(stdout);
    rill_free(rill_ms);
    rill_free(peer_ms);
    rill_free(bytes);
    return 0;
}

int main(int argc, char **argv) {
    int reps = 7;
    const char *dir = ".";
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        }
    }
    if (reps < 1 || reps > 1000) {
        reps = 7;
    }
    rill_log_set_level(RILL_LOG_ERROR);
    const char *labels[3] = {"city_4096_meshes", "grid_1m_triangles", "grid_1m_normal_mapped"};
    int rc = 0;
    for (int f = 0; f < 3 && rc == 0; f++) {
        if (only && !strstr(labels[f], only)) {
            continue;
        }
        rill_gltf_model *model = f == 0 ? make_city(4096, 4) : make_grid(1000, 500, f == 2);
        char path[1024];
        snprintf(path, sizeof(path), "%s/bench_%s.glb", dir, labels[f]);
        rill_error err = {0};
        if (rill_glb_write_file(model, path, NULL, &err) != RILL_OK) {
            fprintf(stderr, "bench_gltf: %s\n", err.msg);
            rc = 1;
        }
        rill_gltf_model_free(model);
        if (rc == 0) {
            rc = bench_file(labels[f], path, reps);
        }
    }
    return rc;
}
