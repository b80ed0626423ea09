/* bench_reflections.c: GPU time of screen-space reflections and of a reflection probe's bake at
 * 1920x1080 (or --size WxH), High tier. A mirror floor under rows of boxes, the camera looking
 * along it (most pixels trace), SSR on: the mean and max over --frames frames of the four SSR
 * passes (ssr_hiz, ssr_trace, ssr_blur, ssr_resolve) and their sum; then a probe whose source is a
 * 1024 x 512 equirectangular PNG written to the temporary folder: the bake (probe.source, the fill
 * of the scratch cube and its mips, and probe.filter, the GGX prefilter of the 256 x 256 cube).
 * Prints JSON lines:
 *   {"bench":"ssr",...,"ssr_ms":...,"ssr_max_ms":...,"hiz_ms":...,"trace_ms":...,...}
 *   {"bench":"probe_bake",...,"bake_ms":...,"source_ms":...,"filter_ms":...}
 * GPU times are the renderer's pass timestamps (rill_render_stats). Usage:
 *   bench_reflections [--size WxH] [--frames N] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "bench_renderer.h"
#include "rill/formats/image.h"
#include "rill/render/reflections.h"

static double pass_ms(const rill_render_stats *s, const char *name) {
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        if (strcmp(s->pass_names[i], name) == 0) {
            t += s->pass_gpu_ms[i];
        }
    }
    return t;
}

#define BOXES 24

typedef struct bench_scene {
    rill_mesh cube, plane;
    rill_material floor, box;
    rill_render_instance in[BOXES + 1];
    rill_render_snapshot snap;
    rill_render_ssr ssr;
    rill_render_routed_settings rs;
} bench_scene;

static void place(rill_render_instance *in, uint32_t id, rill_mesh mesh, rill_material mat, float x,
                  float y, float z, float s) {
    memset(in, 0, sizeof(*in));
    in->id = id;
    in->mesh = mesh;
    in->material = mat;
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){x, y, z});
    glm_scale_uni(m, s);
    memcpy(in->transform, m, sizeof(m));
}

static void scene_make(rill_renderer *r, bench_scene *sc) {
    rill_error err = {0};
    memset(sc, 0, sizeof(*sc));
    sc->cube = rill_render_mesh_cube(r, &err);
    sc->plane = rill_render_mesh_plane(r, &err);
    sc->floor =
        rill_render_material_create(r,
                                    &(rill_material_desc){.base_color = {0.8f, 0.8f, 0.8f, 1},
                                                          .metallic = 1.0f,
                                                          .roughness = 0.1f,
                                                          .roughness_set = true},
                                    &err);
    sc->box = rill_render_material_create(
        r, &(rill_material_desc){.base_color = {0.8f, 0.3f, 0.2f, 1}, .roughness = 0.6f}, &err);
    place(&sc->in[0], 1, sc->plane, sc->floor, 0, 0, -20, 80.0f);
    for (uint32_t i = 0; i < BOXES; i++) {
        float x = (float)(i % 6) * 4.0f - 10.0f, z = -(float)(i / 6) * 8.0f - 4.0f;
        place(&sc->in[1 + i], 2 + i, sc->cube, sc->box, x, 1.0f, z, 2.0f);
    }
    mat4 view, wfv;
    glm_lookat((vec3){0, 2.5f, 6}, (vec3){0, 0.5f, -10}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, wfv);
    memcpy(sc->snap.view.world_from_view, wfv, sizeof(wfv));
    sc->snap.instances = sc->in;
    sc->snap.instance_count = BOXES + 1;
    sc->snap.ambient[0] = 0.2f, sc->snap.ambient[1] = 0.22f, sc->snap.ambient[2] = 0.26f;
    sc->snap.has_sun = true;
    sc->snap.sun.direction[0] = 0.3f, sc->snap.sun.direction[1] = -1.0f;
    sc->snap.sun.color[0] = sc->snap.sun.color[1] = sc->snap.sun.color[2] = 1.0f;
    sc->snap.sun.illuminance = 3.0f;
    sc->ssr = rill_render_ssr_query_defaults();
    sc->rs = (rill_render_routed_settings){"ScreenSpaceReflections", &sc->ssr, sizeof(sc->ssr), 0};
    sc->snap.view.settings = &sc->rs;
    sc->snap.view.settings_count = 1;
}

static bool frame(rill_renderer *r, const rill_render_snapshot *snap, rill_render_stats *s) {
    rill_error err = {0};
    if (rill_renderer_render(r, snap, &err) != RILL_OK ||
        rill_renderer_wait_idle(r, &err) != RILL_OK) {
        fprintf(stderr, "bench_reflections: %s\n", err.msg);
        return false;
    }
    rill_renderer_stats(r, s);
    return true;
}

static const char *const ssr_passes[4] = {"ssr_hiz", "ssr_trace", "ssr_blur", "ssr_resolve"};

static int bench_ssr(rill_renderer *r, bench_scene *sc, uint32_t w, uint32_t h, uint32_t frames) {
    rill_render_stats s;
    for (int i = 0; i < 3; i++) { /* uploads, pipelines warm */
        if (!frame(r, &sc->snap, &s)) {
            return 1;
        }
    }
    double sum[4] = {0}, total = 0, mx = 0;
    uint32_t n = 0;
    for (uint32_t f = 0; f < frames; f++) {
        if (!frame(r, &sc->snap, &s)) {
            return 1;
        }
        double t = 0;
        for (int k = 0; k < 4; k++) {
            double pk = pass_ms(&s, ssr_passes[k]);
            sum[k] += pk;
            t += pk;
        }
        total += t;
        mx = t > mx ? t : mx;
        n++;
    }
    printf("{\"bench\":\"ssr\",\"device\":\"%s\",\"width\":%u,\"height\":%u,\"frames\":%u,"
           "\"ssr_ms\":%.4f,\"ssr_max_ms\":%.4f,\"hiz_ms\":%.4f,\"trace_ms\":%.4f,"
           "\"blur_ms\":%.4f,\"resolve_ms\":%.4f,\"steps\":%u,\"aim_ms\":1.0}\n",
           s.device_name, w, h, n, n ? total / n : 0.0, mx, n ? sum[0] / n : 0.0,
           n ? sum[1] / n : 0.0, n ? sum[2] / n : 0.0, n ? sum[3] / n : 0.0, sc->ssr.steps);
    fflush(stdout);
    return 0;
}

static int bench_probe(rill_renderer *r, bench_scene *sc) {
    enum { EW = 1024, EH = 512 };
    uint8_t *px = malloc((size_t)EW * EH * 4);
    if (!px) {
        return 1;
    }
    for (uint32_t i = 0; i < (uint32_t)EW * EH; i++) {
        uint32_t x = i % EW, y = i / EW;
        px[i * 4 + 0] = (uint8_t)(x * 255 / EW);
        px[i * 4 + 1] = (uint8_t)(y * 255 / EH);
        px[i * 4 + 2] = (uint8_t)(((x / 32) ^ (y / 32)) & 1 ? 200 : 40);
        px[i * 4 + 3] = 255;
    }
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof(path), "%s/bench_reflections_probe.png", tmp ? tmp : "/tmp");
    rill_error err = {0};
    rill_result res = rill_image_write_png(path, px, EW, EH, 4, &err);
    free(px);
    if (res != RILL_OK) {
        fprintf(stderr, "bench_reflections: %s\n", err.msg);
        return 1;
    }
    rill_render_probe probe;
    memset(&probe, 0, sizeof(probe));
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){0, 4, -10});
    glm_scale(m, (vec3){40, 10, 40});
    memcpy(probe.world_from_probe, m, sizeof(m));
    probe.falloff = 0.1f;
    probe.intensity = 1.0f;
    probe.source = path;
    sc->snap.probes = &probe;
    sc->snap.probe_count = 1;
    /* The file is read at the first frame, uploaded, then baked in the frame after the upload. */
    rill_render_stats s;
    double src = 0, filt = 0, with_probe = 0;
    for (int i = 0; i < 6; i++) {
        if (!frame(r, &sc->snap, &s)) {
            remove(path);
            return 1;
        }
        double a = pass_ms(&s, "probe.source"), b = pass_ms(&s, "probe.filter");
        if (a + b > 0) {
            src = a, filt = b;
        }
        with_probe = 0;
        for (int k = 0; k < 4; k++) {
            with_probe += pass_ms(&s, ssr_passes[k]);
        }
    }
    remove(path);
    printf("{\"bench\":\"probe_bake\",\"device\":\"%s\",\"face\":256,\"source_w\":%d,"
           "\"source_h\":%d,\"bake_ms\":%.4f,\"source_ms\":%.4f,\"filter_ms\":%.4f,"
           "\"ssr_ms_with_probe\":%.4f}\n",
           s.device_name, EW, EH, src + filt, src, filt, with_probe);
    fflush(stdout);
    sc->snap.probes = NULL;
    sc->snap.probe_count = 0;
    return 0;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, frames = 60;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h) {
                fprintf(stderr, "bench_reflections: --size WxH\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_reflections [--size WxH] [--frames N] [--device NAME]\n");
            return 2;
        }
    }
    rill_renderer_desc d = {
        .width = w, .height = h, .quality = RILL_RENDER_QUALITY_HIGH, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_reflections", d);
    if (!r) {
        return 1;
    }
    bench_scene sc;
    scene_make(r, &sc);
    int rc = bench_ssr(r, &sc, w, h, frames);
    rc |= bench_probe(r, &sc);
    rill_render_material_destroy(r, sc.floor);
    rill_render_material_destroy(r, sc.box);
    rill_render_mesh_destroy(r, sc.cube);
    rill_render_mesh_destroy(r, sc.plane);
    rill_renderer_destroy(r);
    return rc;
}
