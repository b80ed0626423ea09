/* bench_gltf.c: glTF reader throughput on the two shapes of file users export: a city of 4,096
 * small meshes (about 30 MB) and one 1 M-triangle grid (about 28 MB), both written to disk with
 * Rill's own .glb writer, plus the same grid with a normal-mapped material (which makes the
 * reader generate tangents). Each file is read `reps` times from the file, as a user's call reads
 * it (rill_gltf_read_file; --from memory reads bytes loaded once beforehand instead); when cgltf
 * is built in (see CMakeLists.txt), its parse (cgltf_parse_file) + load + validate +
 * decode-every-accessor runs interleaved with Rill's on the same file, and its decoded
 * positions, UVs and indices are compared with Rill's. Prints one JSON line per file and reader:
 * medians of wall and thread CPU time, MB/s.
 * With --cold each load runs in a process of its own (this program with --one), as `rill render`
 * loads a model, so neither reader reuses memory an earlier load gave back to the allocator.
 * Usage: bench_gltf [--reps N] [--dir FOLDER] [--only city|grid_1m_t|normal] [--from file|memory]
 * [--cold] (files are written to FOLDER, default ".") */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Page faults of the process so far (each a trip into the kernel: what a read's fresh memory
 * costs beyond the copy). */
static double faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_minflt + (double)ru.ru_majflt;
}

typedef struct timing {
    double *wall, *cpu, *faults;
} timing;

static void report(const char *file, const char *reader, const char *from, size_t bytes,
                   const timing *t, int reps, uint64_t triangles) {
    double ms = median(t->wall, reps);
    printf("{\"bench\":\"gltf_read\",\"file\":\"%s\",\"reader\":\"%s\",\"from\":\"%s\","
           "\"bytes\":%zu,\"triangles\":%llu,\"ms_median\":%.2f,\"cpu_ms_median\":%.2f,"
           "\"page_faults_median\":%.0f,\"mb_per_s\":%.1f}\n",
           file, reader, from, bytes, (unsigned long long)triangles, ms, median(t->cpu, reps),
           median(t->faults, reps), (double)bytes / 1e6 / (ms / 1e3));
}

/* One read by Rill the way a user's call makes it: rill_gltf_read_file on the path (what the
 * asset server does through the VFS: read the file, then the reader), or from bytes already in
 * memory. */
static rill_gltf_model *rill_read(const char *label, const char *path, const uint8_t *bytes,
                                  size_t size) {
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    rill_result res;
    if (bytes) {
        rill_gltf_read_desc desc = {.name = label};
        res = rill_gltf_read_memory(bytes, size, &desc, &m, &err);
    } else {
        res = rill_gltf_read_file(path, NULL, &m, &err);
    }
    if (res != RILL_OK) {
        fprintf(stderr, "bench_gltf: %s\n", err.msg);
        exit(1);
    }
    return m;
}

/* One load by `who` (0: Rill, 1: cgltf) of the file at path (or of src, its bytes), timed; what
 * was decoded is kept until after the clocks stop and then freed (a load keeps its result). The
 * first Rill load also compares cgltf's output with Rill's (*ok). */
static void load_once(int who, const char *label, const char *path, const uint8_t *src, size_t size,
                      const uint8_t *bytes, bool compare, double out[3], int *ok, uint64_t *tris) {
    uint64_t t0 = rill_time_ns();
    double c0 = cpu_ms(), f0 = faults();
    rill_gltf_model *m = NULL;
#ifdef RILL_BENCH_HAVE_CGLTF
    peer_cgltf_loaded *l = NULL;
#else
    (void)bytes, (void)compare, (void)ok; /* only the comparison with cgltf reads them */
#endif
    if (who == 0) {
        m = rill_read(label, path, src, size);
    } else {
#ifdef RILL_BENCH_HAVE_CGLTF
        l = src ? peer_cgltf_load(src, size) : peer_cgltf_load_file(path);
        *ok &= l != NULL;
#endif
    }
    out[0] = (double)(rill_time_ns() - t0) / 1e6;
    out[1] = cpu_ms() - c0;
    out[2] = faults() - f0;
    if (m) {
        *tris = rill_gltf_model_triangle_count(m);
#ifdef RILL_BENCH_HAVE_CGLTF
        if (compare) {
            *ok &= peer_cgltf_compare(bytes, size, m);
        }
#endif
        rill_gltf_model_free(m);
    }
#ifdef RILL_BENCH_HAVE_CGLTF
    peer_cgltf_release(l);
#endif
    (void)bytes;
    (void)compare;
}

/* The same load in a fresh process (this program run with --one), as `rill render` loads a
 * model: nothing the allocator kept from an earlier load is there to reuse. */
static void load_cold(int who, const char *path, double out[3], int *ok) {
    char self[1024], cmd[2200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(cmd, sizeof(cmd), "'%s' --one %s '%s'", self, who ? "cgltf" : "rill", path);
    FILE *p = popen(cmd, "r");
    if (!p || fscanf(p, "%lf %lf %lf", &out[0], &out[1], &out[2]) != 3) {
        *ok = 0;
    }
    if (p && pclose(p) != 0) {
        *ok = 0;
    }
}

/* Reads the file `reps` times with Rill (and cgltf when built in), alternating which reader goes
 * first: from the file (from_file) or from its bytes read once beforehand, in this process or
 * (cold) each load in a process of its own. */
static int bench_file(const char *label, const char *path, int reps, bool from_file, bool cold) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    rill_error err = {0};
    if (rill_file_read_all(path, &bytes, &size, &err) != RILL_OK) {
        fprintf(stderr, "bench_gltf: %s\n", err.msg);
        return 1;
    }
    const uint8_t *src = from_file ? NULL : bytes;
    double *all = bm_zalloc((size_t)reps * 6u, sizeof(double));
    timing t[2] = {{all, all + reps, all + 2 * reps},
                   {all + 3 * reps, all + 4 * reps, all + 5 * reps}};
    uint64_t tris = 0;
    int peer_ok = 1;
    for (int r = 0; r < reps; r++) {
        for (int turn = 0; turn < 2; turn++) {
            int who = turn ^ (r & 1); /* 0: Rill, 1: cgltf */
#ifndef RILL_BENCH_HAVE_CGLTF
            if (who == 1) {
                continue;
            }
#endif
            double out[3] = {0, 0, 0};
            if (cold && from_file) {
                load_cold(who, path, out, &peer_ok);
            } else {
                load_once(who, label, path, src, size, bytes, r == 0, out, &peer_ok, &tris);
            }
            t[who].wall[r] = out[0];
            t[who].cpu[r] = out[1];
            t[who].faults[r] = out[2];
        }
    }
    if (cold && from_file) {
        double out[3];
        load_once(0, label, path, NULL, size, bytes, true, out, &peer_ok, &tris);
    }
    const char *from = !from_file ? "memory" : cold ? "file_cold" : "file";
    report(label, "rill", from, size, &t[0], reps, tris);
#ifdef RILL_BENCH_HAVE_CGLTF
    report(label, "cgltf", from, size, &t[1], reps, tris);
    printf("{\"bench\":\"gltf_read_vs_cgltf\",\"file\":\"%s\",\"from\":\"%s\","
           "\"same_output\":%s,\"rill_over_cgltf_speed\":%.2f,"
           "\"rill_over_cgltf_speed_cpu\":%.2f}\n",
           label, from, peer_ok ? "true" : "false",
           median(t[1].wall, reps) / median(t[0].wall, reps),
           median(t[1].cpu, reps) / median(t[0].cpu, reps));
#else
    (void)peer_ok;
#endif
    fflush(stdout);
    rill_free(all);
    rill_free(bytes);
    return 0;
}

int main(int argc, char **argv) {
    int reps = 7;
    const char *dir = ".";
    const char *only = NULL;
    bool from_file = true, cold = false;
    rill_log_set_level(RILL_LOG_ERROR);
    if (argc == 4 && strcmp(argv[1], "--one") == 0) {
        /* A child of load_cold: one load, its wall ms, CPU ms and page faults on stdout. */
        double out[3];
        int ok = 1;
        uint64_t tris = 0;
        load_once(strcmp(argv[2], "cgltf") == 0, "one", argv[3], NULL, 0, NULL, false, out, &ok,
                  &tris);
        printf("%f %f %f\n", out[0], out[1], out[2]);
        return ok ? 0 : 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
            from_file = strcmp(argv[++i], "memory") != 0;
        } else if (strcmp(argv[i], "--cold") == 0) {
            cold = true;
        }
    }
    if (reps < 1 || reps > 1000) {
        reps = 7;
    }
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
            rc = bench_file(labels[f], path, reps, from_file, cold);
        }
    }
    return rc;
}
