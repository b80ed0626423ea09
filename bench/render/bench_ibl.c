/* bench_ibl.c: GPU time of the image-based light's bake, per quality tier, at 1920x1080 (or
 * --size WxH): the first frame's whole bake (the source cube, its mips and harmonics, then the six
 * prefiltered faces in one frame) and the per-frame slice of a sky that keeps changing (what a
 * moving sun costs: one step a frame, "ibl.source" or one "ibl.face"). Prints JSON lines:
 *   {"bench":"ibl","tier":...,"face":N,"full_bake_ms":...,"slice_mean_ms":...,"slice_max_ms":...}
 * GPU times are the renderer's pass timestamps (rill_render_stats). Usage:
 *   bench_ibl [--size WxH] [--frames N] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_renderer.h"

static double pass_ms(const rill_render_stats *s, const char *prefix) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strncmp(s->pass_names[i], prefix, strlen(prefix)) == 0) {
            t += s->pass_gpu_ms[i];
        }
    }
    return t;
}

static int run_tier(rill_render_quality q, const char *name, uint32_t w, uint32_t h,
                    uint32_t frames, const char *device) {
    rill_renderer_desc d = {.width = w, .height = h, .quality = q, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_ibl", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh sphere = rill_render_mesh_sphere(r, 32, &err);
    rill_material m = rill_render_material_create(
        r, &(rill_material_desc){.metallic = 1, .roughness = 0.5f, .roughness_set = true}, &err);
    rill_render_instance in;
    memset(&in, 0, sizeof(in));
    in.id = 1;
    in.mesh = sphere;
    in.material = m;
    for (int k = 0; k < 16; k++) {
        in.transform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    in.transform[14] = -3.0f;
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    for (int k = 0; k < 16; k++) {
        snap.view.world_from_view[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    }
    snap.instances = &in;
    snap.instance_count = 1;
    snap.ambient[0] = 0.2f, snap.ambient[1] = 0.22f, snap.ambient[2] = 0.26f;
    snap.has_sun = true;
    snap.sun.direction[1] = -1.0f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    /* Frame 0 bakes whole; wait so its timestamps are the newest finished frame's. */
    rill_render_stats s;
    if (rill_renderer_render(r, &snap, &err) != RILL_OK || rill_renderer_wait_idle(r, &err)) {
        fprintf(stderr, "bench_ibl: %s\n", err.msg);
        rill_renderer_destroy(r);
        return 1;
    }
    rill_renderer_stats(r, &s);
    double full = pass_ms(&s, "ibl.source") + pass_ms(&s, "ibl.face");
    double lut = pass_ms(&s, "ibl.lut");
    uint32_t face = s.ibl_face_size;
    /* A sky that changes every frame: one bake step a frame, forever. */
    double sum = 0, mx = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < frames; i++) {
        snap.environment.version = i + 1;
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_ibl: %s\n", err.msg);
            break;
        }
        rill_renderer_stats(r, &s);
        double t = pass_ms(&s, "ibl.source") + pass_ms(&s, "ibl.face");
        if (t > 0) {
            sum += t;
            mx = t > mx ? t : mx;
            n++;
        }
    }
    rill_renderer_stats(r, &s);
    printf("{\"bench\":\"ibl\",\"device\":\"%s\",\"tier\":\"%s\",\"width\":%u,\"height\":%u,"
           "\"face\":%u,\"brdf_table_ms\":%.4f,\"full_bake_ms\":%.4f,\"slice_frames\":%u,"
           "\"slice_mean_ms\":%.4f,\"slice_max_ms\":%.4f,\"bakes\":%u,\"aim_slice_ms\":0.2}\n",
           s.device_name, name, w, h, face, lut, full, n, n ? sum / n : 0.0, mx, s.ibl_bakes);
    fflush(stdout);
    rill_render_material_destroy(r, m);
    rill_render_mesh_destroy(r, sphere);
    rill_renderer_destroy(r);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, frames = 70;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h) {
                fprintf(stderr, "bench_ibl: --size WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_ibl [--size WxH] [--frames N] [--device NAME]\n");
            return 2;
        }
    }
    int rc = 0;
    rc |= run_tier(RILL_RENDER_QUALITY_LOW, "low", w, h, frames, device);
    rc |= run_tier(RILL_RENDER_QUALITY_MEDIUM, "medium", w, h, frames, device);
    rc |= run_tier(RILL_RENDER_QUALITY_HIGH, "high", w, h, frames, device);
    return rc;
}
