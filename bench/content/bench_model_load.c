/* bench_model_load.c: how long a model takes to load (read through the VFS, parse the glTF,
 * decode its buffers: rill_asset_load_sync with the glTF loader) from a loose project folder
 * versus from a pack of the same folder, raw or zstd. One JSON line per (model, source):
 *   {"bench":"model_load","model":...,"source":"loose|pack_raw|pack_zstd","bytes":N,
 *    "ms_best":..,"ms_median":..,"mb_per_s":..}
 * bytes is the model file's size; mb_per_s = bytes / best time. Each source gets one untimed
 * warm-up load (the page cache is warm, so the figures compare code paths, not disks), then `reps`
 * timed loads, each in a fresh app (so nothing is cached in the asset server).
 *
 * usage: bench_model_load [reps=9] [tmpdir=/tmp] MODEL.glb...
 *   (default models: Debian assimp-testmodels' 2CylinderEngine.glb and BoxTextured.glb)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rill/app.h"
#include "rill/formats/gltf.h"
#include "rill/formats/rpak.h"

static const char *DEFAULT_MODELS[] = {
    "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
    "/usr/share/assimp/models/glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One load in a fresh app; returns seconds, or -1 on failure. */
static double load_once(const char *root, const char *pack, const char *path) {
    rill_error err = {0};
    rill_app *app =
        rill_app_create(&(rill_app_desc){.root = root, .pack = pack, .deterministic = true}, &err);
    if (!app || rill_gltf_register_asset_loader(rill_app_assets(app), &err) != RILL_OK) {
        fprintf(stderr, "bench_model_load: %s\n", err.msg);
        rill_app_destroy(app);
        return -1.0;
    }
    double t0 = rill_time_sec();
    rill_asset h = rill_asset_load_sync(rill_app_assets(app), path, &err);
    double t = rill_time_sec() - t0;
    bool ok = rill_asset_get_state(rill_app_assets(app), h) == RILL_ASSET_STATE_LOADED;
    if (!ok) {
        fprintf(stderr, "bench_model_load: %s: %s\n", path, err.msg);
    }
    rill_asset_release(rill_app_assets(app), h);
    rill_app_destroy(app);
    return ok ? t : -1.0;
}

static int bench_source(const char *model, const char *source, const char *root, const char *pack,
                        const char *path, size_t bytes, int reps) {
    double *t = calloc((size_t)reps, sizeof(double));
    if (!t || load_once(root, pack, path) < 0.0) { /* warm-up */
        free(t);
        return 1;
    }
    for (int i = 0; i < reps; i++) {
        if ((t[i] = load_once(root, pack, path)) < 0.0) {
            free(t);
            return 1;
        }
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    printf("{\"bench\":\"model_load\",\"model\":\"%s\",\"source\":\"%s\",\"bytes\":%zu,"
           "\"ms_best\":%.3f,\"ms_median\":%.3f,\"mb_per_s\":%.1f}\n",
           model, source, bytes, t[0] * 1e3, t[reps / 2] * 1e3, (double)bytes / t[0] / 1e6);
    free(t);
    return 0;
}

static int bench_model(const char *model_path, const char *tmp, int reps) {
    const char *name = rill_path_basename(model_path);
    char dir[1024], file[1100], raw[1100], zst[1100];
    snprintf(dir, sizeof(dir), "%s/rill_bench_model_%ld", tmp, (long)getpid());
    snprintf(file, sizeof(file), "%s/models/%s", dir, name);
    snprintf(raw, sizeof(raw), "%s_raw.rpak", dir);
    snprintf(zst, sizeof(zst), "%s_zstd.rpak", dir);
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    char models_dir[1100];
    snprintf(models_dir, sizeof(models_dir), "%s/models", dir);
    if (rill_file_read_all(model_path, &data, &size, &err) != RILL_OK ||
        rill_dir_create_all(models_dir, &err) != RILL_OK ||
        rill_file_write_all(file, data, size, &err) != RILL_OK) {
        fprintf(stderr, "bench_model_load: %s\n", err.msg);
        rill_free(data);
        return 1;
    }
    char vpath[512];
    snprintf(vpath, sizeof(vpath), "models/%s", name);
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        rill_rpak_writer *w = rill_rpak_writer_create(NULL, NULL);
        rill_rpak_compression c = k ? RILL_RPAK_COMPRESSION_ZSTD : RILL_RPAK_COMPRESSION_RAW;
        if (!w || rill_rpak_writer_add(w, vpath, data, size, c, &err) != RILL_OK ||
            rill_rpak_writer_finish_file(w, k ? zst : raw, &err) != RILL_OK) {
            fprintf(stderr, "bench_model_load: %s\n", err.msg);
            rc = 1;
        }
        rill_rpak_writer_destroy(w);
    }
    rill_free(data);
    if (rc == 0) {
        rc = bench_source(name, "loose", dir, NULL, vpath, size, reps) ||
             bench_source(name, "pack_raw", "", raw, vpath, size, reps) ||
             bench_source(name, "pack_zstd", "", zst, vpath, size, reps);
    }
    rill_dir_remove_all(dir, NULL);
    remove(raw);
    remove(zst);
    return rc;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    const char *tmp = argc > 2 ? argv[2] : "/tmp";
    if (reps < 1) {
        reps = 1;
    }
    rill_log_set_level(RILL_LOG_WARN);
    int rc = 0;
    if (argc > 3) {
        for (int i = 3; i < argc; i++) {
            rc |= bench_model(argv[i], tmp, reps);
        }
    } else {
        for (size_t i = 0; i < sizeof(DEFAULT_MODELS) / sizeof(DEFAULT_MODELS[0]); i++) {
            rc |= bench_model(DEFAULT_MODELS[i], tmp, reps);
        }
    }
    return rc;
}
