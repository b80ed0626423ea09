/* bench_ocean.c: GPU time of Water, the FFT ocean (src/render/ocean*.c), per quality tier at
 * 1920x1080 (or --size WxH): the once-a-frame simulation (ocean.spectrum + ocean.fft + ocean.maps:
 * cascades x N² with N 256 at High / Medium, 128 at Low) and the view's draw pass ("ocean"), with
 * the camera 8 m above an infinite sea of the defaults (JONSWAP, wind 10 m/s, 3 cascades over
 * 250 / 37 / 5 m), the horizon across the middle of the frame, a few boxes standing in it. GPU
 * times are the renderer's pass timestamps (rill_render_stats), averaged over the frames after
 * the first. Prints JSON lines:
 *   {"bench":"ocean","tier":...,"grid":...,"cascades":...,"spectrum_ms":...,"fft_ms":...,
 *    "maps_ms":...,"sim_ms":...,"draw_ms":...,"total_ms":...,"aim_sim_ms":0.3}
 * Aim (issue 25): FFT ocean 256² x 3 cascades <= 0.3 ms on the H200 (sim_ms at medium / high).
 * Usage: bench_ocean [--size WxH] [--frames N] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_renderer.h"
#include "rill/render/ocean.h"

static double pass_ms(const rill_render_stats *s, const char *name) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strcmp(s->pass_names[i], name) == 0) {
            t += s->pass_gpu_ms[i];
        }
    }
    return t;
}

static bool frame(rill_renderer *r, const rill_render_snapshot *snap, rill_render_stats *s) {
    rill_error err = {0};
    if (rill_renderer_render(r, snap, &err) != RILL_OK ||
        rill_renderer_wait_idle(r, &err) != RILL_OK) {
        fprintf(stderr, "bench_ocean: %s\n", err.msg);
        return false;
    }
    rill_renderer_stats(r, s);
    return true;
}

static int run_tier(rill_render_quality q, const char *name, uint32_t w, uint32_t h,
                    uint32_t frames, const char *device) {
    rill_renderer_desc d = {.width = w, .height = h, .quality = q, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_ocean", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material m =
        rill_render_material_create(r, &(rill_material_desc){.roughness = 0.6f}, &err);
    enum { BOXES = 6 };
    rill_render_instance in[BOXES];
    memset(in, 0, sizeof(in));
    for (int i = 0; i < BOXES; i++) {
        in[i].id = (uint64_t)i + 1;
        in[i].mesh = cube;
        in[i].material = m;
        in[i].transform[0] = in[i].transform[5] = in[i].transform[10] = 6.0f;
        in[i].transform[15] = 1.0f;
        in[i].transform[12] = (float)(i - 2) * 25.0f;
        in[i].transform[14] = -40.0f - 30.0f * (float)i;
    }
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    for (int k = 0; k < 16; k++) {
        snap.view.world_from_view[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    snap.view.world_from_view[13] = 8.0f;
    snap.view.far_plane = 20000.0f;
    snap.instances = in;
    snap.instance_count = BOXES;
    snap.has_sun = true;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    snap.sun.direction[0] = 0.3f, snap.sun.direction[1] = -0.5f, snap.sun.direction[2] = -0.8f;
    snap.ambient[0] = 0.5f, snap.ambient[1] = 0.6f, snap.ambient[2] = 0.8f;
    rill_render_water_surface sea;
    memset(&sea, 0, sizeof(sea));
    for (int k = 0; k < 16; k++) {
        sea.world_from_water[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    sea.water = rill_render_water_query_defaults();
    snap.oceans = &sea;
    snap.ocean_count = 1;
    rill_render_stats s;
    if (!frame(r, &snap, &s)) {
        rill_renderer_destroy(r);
        return 1;
    }
    double spectrum = 0, fft = 0, maps = 0, draw = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < frames; i++) {
        if (!frame(r, &snap, &s)) {
            break;
        }
        spectrum += pass_ms(&s, "ocean.spectrum");
        fft += pass_ms(&s, "ocean.fft");
        maps += pass_ms(&s, "ocean.maps");
        draw += pass_ms(&s, "ocean");
        n++;
    }
    double k = n ? 1.0 / n : 0.0;
    bool low = q == RILL_RENDER_QUALITY_LOW;
    printf("{\"bench\":\"ocean\",\"device\":\"%s\",\"tier\":\"%s\",\"width\":%u,\"height\":%u,"
           "\"frames\":%u,\"grid\":%u,\"cascades\":%u,\"spectrum_ms\":%.4f,\"fft_ms\":%.4f,"
           "\"maps_ms\":%.4f,\"sim_ms\":%.4f,\"draw_ms\":%.4f,\"total_ms\":%.4f,"
           "\"aim_sim_ms\":0.3}\n",
           s.device_name, name, w, h, n, low ? RILL_RENDER_OCEAN_SIZE / 2 : RILL_RENDER_OCEAN_SIZE,
           low ? 2u : 3u, spectrum * k, fft * k, maps * k, (spectrum + fft + maps) * k, draw * k,
           (spectrum + fft + maps + draw) * k);
    fflush(stdout);
    rill_render_material_destroy(r, m);
    rill_render_mesh_destroy(r, cube);
    rill_renderer_destroy(r);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, frames = 60;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h) {
                fprintf(stderr, "bench_ocean: --size WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_ocean [--size WxH] [--frames N] [--device NAME]\n");
            return 2;
        }
    }
    int rc = 0;
    rc |= run_tier(RILL_RENDER_QUALITY_LOW, "low", w, h, frames, device);
    rc |= run_tier(RILL_RENDER_QUALITY_MEDIUM, "medium", w, h, frames, device);
    rc |= run_tier(RILL_RENDER_QUALITY_HIGH, "high", w, h, frames, device);
    return rc;
}
