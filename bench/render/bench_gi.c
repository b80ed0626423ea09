/* bench_gi.c: GPU time of screen-space global illumination at 1920x1080 (or --size WxH) on a
 * representative scene: a ground plane with a grid of coloured cubes and spheres under a sun,
 * seen at a slant (every pixel is a surface, a band of sky at the top), GlobalIllumination at its
 * defaults (ScreenSpace), quality tier High. After warm-up frames it prints one JSON line with
 * the mean and max of the three passes (ssgi trace at half resolution, ssgi_temporal, ssgi_apply)
 * and of their sum (rill_render_stats.gi_ms):
 *   {"bench":"gi","tier":"screen_space","width":...,"gi_mean_ms":...,"gi_max_ms":...,...}
 * GPU times are the renderer's pass timestamps. Usage:
 *   bench_gi [--size WxH] [--frames N] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_renderer.h"
#include "rill/render/gi.h"

#define GRID 12

static double pass_ms(const rill_render_stats *s, const char *name) {
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strcmp(s->pass_names[i], name) == 0) {
            return s->pass_gpu_ms[i];
        }
    }
    return 0.0;
}

static void place(rill_render_instance *in, uint32_t id, rill_mesh mesh, rill_material m, float x,
                  float y, float z, float sx, float sy, float sz) {
    memset(in, 0, sizeof(*in));
    in->id = id;
    in->mesh = mesh;
    in->material = m;
    in->transform[0] = sx, in->transform[5] = sy, in->transform[10] = sz, in->transform[15] = 1;
    in->transform[12] = x, in->transform[13] = y, in->transform[14] = z;
}

/* A camera at (0, 4, 10) looking toward (0, 0, -6) (+Y up), as a camera-to-world matrix. */
static void look(float m[16]) {
    float f[3] = {0, -4, -16}, len = 16.4924225f;
    f[1] /= len, f[2] /= len;
    float r[3] = {1, 0, 0};
    float u[3] = {0, -f[2], f[1]}; /* r x (-f) ... up = cross(right, back) */
    memset(m, 0, sizeof(float) * 16);
    m[0] = r[0], m[1] = r[1], m[2] = r[2];
    m[4] = u[0], m[5] = u[1], m[6] = u[2];
    m[8] = -f[0], m[9] = -f[1], m[10] = -f[2];
    m[12] = 0, m[13] = 4, m[14] = 10, m[15] = 1;
}

static int run(uint32_t w, uint32_t h, uint32_t frames, const char *device) {
    rill_renderer_desc d = {
        .width = w, .height = h, .quality = RILL_RENDER_QUALITY_HIGH, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_gi", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(r, &err), sphere = rill_render_mesh_sphere(r, 32, &err);
    rill_material mats[4];
    const float colours[4][3] = {
        {0.9f, 0.1f, 0.1f}, {0.1f, 0.8f, 0.2f}, {0.8f, 0.8f, 0.8f}, {0.2f, 0.3f, 0.9f}};
    for (int i = 0; i < 4; i++) {
        rill_material_desc md = {.base_color = {colours[i][0], colours[i][1], colours[i][2], 1},
                                 .roughness = 0.8f};
        mats[i] = rill_render_material_create(r, &md, &err);
    }
    static rill_render_instance inst[GRID * GRID + 1];
    uint32_t n = 0;
    place(&inst[n], n + 1, cube, mats[2], 0, -0.5f, -6, 40, 1, 40);
    n++;
    for (int z = 0; z < GRID; z++) {
        for (int x = 0; x < GRID; x++) {
            float px = ((float)x - GRID / 2) * 1.6f, pz = -(float)z * 1.6f;
            rill_mesh mesh = (x + z) & 1 ? sphere : cube;
            float s = 0.6f + 0.5f * (float)((x * 7 + z * 3) % 4) / 3.0f;
            place(&inst[n], n + 1, mesh, mats[(x + 2 * z) % 4], px, s * 0.5f, pz, s, s, s);
            n++;
        }
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    look(snap.view.world_from_view);
    snap.instances = inst;
    snap.instance_count = n;
    snap.ambient[0] = 0.2f, snap.ambient[1] = 0.22f, snap.ambient[2] = 0.26f;
    snap.has_sun = true;
    snap.sun.direction[0] = 0.4f, snap.sun.direction[1] = -0.8f, snap.sun.direction[2] = -0.45f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    rill_render_global_illumination gi = rill_render_global_illumination_query_defaults();
    rill_render_routed_settings rs = {"GlobalIllumination", &gi, sizeof(gi), 0};
    snap.view.settings = &rs;
    snap.view.settings_count = 1;
    rill_render_stats s;
    double sum[4] = {0}, mx[4] = {0};
    uint32_t got = 0, warm = 5;
    for (uint32_t i = 0; i < frames + warm; i++) {
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_gi: %s\n", err.msg);
            rill_renderer_destroy(r);
            return 1;
        }
        if (i < warm) {
            continue;
        }
        rill_renderer_stats(r, &s);
        double t[4] = {pass_ms(&s, "ssgi"), pass_ms(&s, "ssgi_temporal"), pass_ms(&s, "ssgi_apply"),
                       s.gi_ms};
        for (int k = 0; k < 4; k++) {
            sum[k] += t[k];
            mx[k] = t[k] > mx[k] ? t[k] : mx[k];
        }
        got++;
    }
    rill_renderer_stats(r, &s);
    double m = got ? 1.0 / got : 0.0;
    printf("{\"bench\":\"gi\",\"device\":\"%s\",\"tier\":\"screen_space\",\"width\":%u,"
           "\"height\":%u,\"frames\":%u,\"trace_mean_ms\":%.4f,\"temporal_mean_ms\":%.4f,"
           "\"apply_mean_ms\":%.4f,\"gi_mean_ms\":%.4f,\"gi_max_ms\":%.4f,\"aim_ms\":1.0}\n",
           s.device_name, w, h, got, sum[0] * m, sum[1] * m, sum[2] * m, sum[3] * m, mx[3]);
    fflush(stdout);
    rill_renderer_destroy(r);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, frames = 60;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h) {
                fprintf(stderr, "bench_gi: --size WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_gi [--size WxH] [--frames N] [--device NAME]\n");
            return 2;
        }
    }
    return run(w, h, frames, device);
}
