/* bench_export.c: times the exporter (rill/formats/export.h) on a generated sample project.
 *
 *   bench_export [WORKDIR] [MAX_JOBS]
 *
 * The project: textures/terrain_albedo.png (2048^2), four 1024^2 PNGs (colour, grass, a normal map
 * by name, a roughness map by name), a 512^2 ORM map, a 256^2 RGBA icon, a 512x256 .hdr sky, a
 * procedural sphere .glb of about 76k triangles, the assimp 2CylinderEngine .glb when Debian's
 * assimp-testmodels are installed, a scene, project.toml and an opaque audio file. The patterns
 * mix smooth gradients with noise, so BC7 does real work (flat colour would be far too easy).
 *
 * For each worker count 1, 2, 4, ... up to MAX_JOBS (default: the core count) it runs a forced
 * export (no cache), then one cached export at MAX_JOBS. One JSON line per run. */
#include "rill/formats/export.h"
#include "rill/formats/gltf.h"
#include "rill/formats/image.h"

#include "gltf_test_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool write_file(const char *root, const char *rel, const void *data, size_t size) {
    char path[2048], dir[2048];
    if (!rill_path_join(path, sizeof(path), root, rel) ||
        !rill_path_dirname(dir, sizeof(dir), path) || rill_dir_create_all(dir, NULL) != RILL_OK) {
        return false;
    }
    rill_error err = {0};
    if (rill_file_write_all(path, data, size, &err) != RILL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    return true;
}

static uint32_t noise(uint32_t x, uint32_t y, uint32_t seed) {
    uint32_t h = x * 374761393u + y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    return (h ^ (h >> 16)) & 63u;
}

enum pattern { PAT_ALBEDO, PAT_GRASS, PAT_NORMAL, PAT_ROUGH, PAT_ORM, PAT_ICON };

static bool write_png(const char *root, const char *rel, int w, int h, enum pattern pat) {
    int ch = pat == PAT_ICON ? 4 : 3;
    uint8_t *px = malloc((size_t)w * (size_t)h * (size_t)ch);
    if (!px) {
        return false;
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t *p = &px[((size_t)y * (size_t)w + (size_t)x) * (size_t)ch];
            uint32_t n = noise((uint32_t)x, (uint32_t)y, (uint32_t)pat);
            int v = 96 + (int)(60.0 * sin(x * 0.05) * cos(y * 0.031)) + (int)n;
            switch (pat) {
            case PAT_ALBEDO:
                p[0] = (uint8_t)RILL_MIN(v, 255);
                p[1] = (uint8_t)RILL_MIN(v / 2 + 40, 255);
                p[2] = (uint8_t)(50 + n);
                break;
            case PAT_GRASS:
                p[0] = (uint8_t)(40 + n);
                p[1] = (uint8_t)(120 + noise((uint32_t)y, (uint32_t)x, 9));
                p[2] = 30;
                break;
            case PAT_NORMAL:
                p[0] = (uint8_t)(128 + (int)(50.0 * sin(x * 0.2)));
                p[1] = (uint8_t)(128 + (int)(50.0 * cos(y * 0.17)));
                p[2] = 220;
                break;
            case PAT_ROUGH:
                p[0] = p[1] = p[2] = (uint8_t)(((x * 255) / w) ^ (int)n);
                break;
            case PAT_ORM:
                p[0] = 255;
                p[1] = (uint8_t)((x * y) & 255);
                p[2] = 0;
                break;
            case PAT_ICON:
                p[0] = (uint8_t)x;
                p[1] = (uint8_t)y;
                p[2] = 128;
                p[3] = (uint8_t)(255 - n);
                break;
            }
        }
    }
    uint8_t *png = NULL;
    size_t size = 0;
    bool ok = rill_image_encode_png(px, (uint32_t)w, (uint32_t)h, (uint32_t)ch, &png, &size,
                                    NULL) == RILL_OK &&
              write_file(root, rel, png, size);
    rill_free(png);
    free(px);
    return ok;
}

static bool write_hdr(const char *root, const char *rel, int w, int h) {
    float *px = malloc((size_t)w * (size_t)h * 3 * sizeof(float));
    if (!px) {
        return false;
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float *p = &px[((size_t)y * (size_t)w + (size_t)x) * 3];
            p[0] = 4.0f * (float)x / (float)w;
            p[1] = 1.0f + (float)y / (float)h;
            p[2] = 0.5f;
        }
    }
    uint8_t *hdr = NULL;
    size_t size = 0;
    bool ok =
        rill_image_encode_hdr(px, (uint32_t)w, (uint32_t)h, 3, &hdr, &size, NULL) == RILL_OK &&
        write_file(root, rel, hdr, size);
    rill_free(hdr);
    free(px);
    return ok;
}

static bool write_sphere(const char *root, const char *rel, uint32_t seg, uint32_t rings) {
    rill_gltf_model *m = tm_sphere(seg, rings);
    uint8_t *bytes = NULL;
    size_t n = 0;
    bool ok = rill_glb_write_memory(m, NULL, &bytes, &n, NULL) == RILL_OK &&
              write_file(root, rel, bytes, n);
    rill_free(bytes);
    rill_gltf_model_free(m);
    return ok;
}

static bool make_project(const char *root) {
    bool ok = write_png(root, "textures/terrain_albedo.png", 2048, 2048, PAT_ALBEDO) &&
              write_png(root, "textures/rock_albedo.png", 1024, 1024, PAT_ALBEDO) &&
              write_png(root, "textures/grass.png", 1024, 1024, PAT_GRASS) &&
              write_png(root, "textures/rock_n.png", 1024, 1024, PAT_NORMAL) &&
              write_png(root, "textures/rock_rough.png", 1024, 1024, PAT_ROUGH) &&
              write_png(root, "textures/wall_orm.png", 512, 512, PAT_ORM) &&
              write_png(root, "textures/icon.png", 256, 256, PAT_ICON) &&
              write_hdr(root, "textures/sky.hdr", 512, 256) &&
              write_sphere(root, "models/sphere.glb", 256, 150);
    const char *engine =
        "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb";
    uint8_t *data = NULL;
    size_t size = 0;
    if (ok && rill_file_exists(engine) &&
        rill_file_read_all(engine, &data, &size, NULL) == RILL_OK) {
        ok = write_file(root, "models/engine.glb", data, size);
    }
    rill_free(data);
    const char *scene = "entity 1 { name: \"ground\" }\n";
    const char *toml = "[project]\nname = \"bench\"\n";
    uint8_t audio[50000];
    for (size_t i = 0; i < sizeof(audio); i++) {
        audio[i] = (uint8_t)noise((uint32_t)i, 7, 3) * 4u;
    }
    return ok && write_file(root, "scenes/main.rsn", scene, strlen(scene)) &&
           write_file(root, "project.toml", toml, strlen(toml)) &&
           write_file(root, "audio/wind.ogg", audio, sizeof(audio));
}

static bool run(const char *proj, const char *pack, uint32_t jobs, bool cached, const char *mode) {
    rill_export_desc d = {0};
    d.project_dir = proj;
    d.out_pack = pack;
    d.jobs = jobs;
    d.no_cache = !cached;
    rill_export_result res = {0};
    rill_error err = {0};
    rill_result r = rill_export_run(&d, &res, &err);
    if (r != RILL_OK) {
        fprintf(stderr, "export failed: %s\n", err.msg);
    } else {
        printf("{\"bench\":\"export_%s\",\"workers\":%u,\"seconds\":%.3f,\"inputs\":%u,"
               "\"outputs\":%u,\"rebuilt\":%u,\"cached\":%u,\"bytes_in\":%llu,\"bytes_out\":%llu,"
               "\"cores\":%u}\n",
               mode, res.worker_count, res.seconds, res.counts.inputs, res.counts.outputs,
               res.counts.rebuilt, res.counts.cached, (unsigned long long)res.counts.bytes_in,
               (unsigned long long)res.counts.bytes_out, rill_cpu_count());
        fflush(stdout);
    }
    rill_export_result_free(&res);
    return r == RILL_OK;
}

int main(int argc, char **argv) {
    const char *work = argc > 1 ? argv[1] : "/tmp/rill-bench-export";
    uint32_t max_jobs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : rill_cpu_count();
    if (max_jobs == 0) {
        max_jobs = 1;
    }
    char proj[1024], pack[1024];
    if (!rill_path_join(proj, sizeof(proj), work, "project") ||
        !rill_path_join(pack, sizeof(pack), work, "game.rpak")) {
        return 1;
    }
    rill_dir_remove_all(work, NULL);
    if (!make_project(proj)) {
        fprintf(stderr, "bench_export: cannot build the sample project under %s\n", work);
        return 1;
    }
    bool ok = true;
    for (uint32_t j = 1; ok && j <= max_jobs; j *= 2) {
        ok = run(proj, pack, j, false, "forced");
        if (j < max_jobs && j * 2 > max_jobs) {
            ok = ok && run(proj, pack, max_jobs, false, "forced");
        }
    }
    /* Fill the cache, then time the cached run. */
    ok = ok && run(proj, pack, max_jobs, true, "cache_fill") &&
         run(proj, pack, max_jobs, true, "cached");
    rill_dir_remove_all(work, NULL);
    return ok ? 0 : 1;
}
