/* bench_cameras.c: the cost of several cameras (split screen): the bench_cubes scene seen by 1, 2
 * (side by side) and 4 (2 x 2) cameras, each with its own bloom, auto exposure and TAA (SSAO too
 * at --quality high), at 1920x1080 (or --size WxH). Each camera orbits the grid from its own
 * angle, turning a little every frame so TAA reprojects. Prints one JSON line per view count:
 *   {"bench":"cameras","views":N,"cpu_record_ms":...,"gpu_ms":...,"gpu_main_ms":...,...}
 * cpu_record_ms is the renderer's recording time (culling, graph, commands, submit) with the GPU
 * idle; gpu_ms the sum of every pass's timestamps; gpu_main_ms the raster passes (shadows,
 * prepass, opaque, transparent) and gpu_effects_ms the rest (effects, tonemapping, compose).
 * Usage: bench_cameras [--size WxH] [--frames N] [--views 1,2,4] [--quality low|medium|high]
 *                      [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cubes.h"
#include "bench_renderer.h"
#include "rill/render/effects.h"

#define MAX_VIEWS 4

/* The viewports of n cameras: 1 whole, 2 side by side, 4 in a 2 x 2 grid (3: the grid's first
 * three). */
static void viewport_of(uint32_t n, uint32_t i, float out[4]) {
    if (n == 1) {
        out[0] = out[1] = 0.0f, out[2] = out[3] = 1.0f;
    } else if (n == 2) {
        out[0] = 0.5f * (float)i, out[1] = 0.0f, out[2] = 0.5f, out[3] = 1.0f;
    } else {
        out[0] = 0.5f * (float)(i % 2), out[1] = 0.5f * (float)(i / 2), out[2] = out[3] = 0.5f;
    }
}

/* Frame f's views: the scene's camera orbited by 90 degrees per camera plus a little per frame. */
static void views_of(uint32_t n, uint32_t f, rill_render_view *views,
                     const rill_render_routed_settings *taa, rill_render_snapshot *s,
                     rill_render_instance *inst, rill_mesh cube, const rill_material mats[4]) {
    for (uint32_t i = 0; i < n; i++) {
        bench_cubes_scene(s, inst, cube, mats, 1.5707963f * (float)i + 0.01f * (float)f);
        views[i] = s->view;
        viewport_of(n, i, views[i].viewport);
        views[i].order = (int32_t)i;
        views[i].bloom.enabled = true;
        views[i].auto_exposure.enabled = true;
        views[i].ssao.enabled = true; /* runs at the High tier only */
        views[i].settings = taa;
        views[i].settings_count = 1;
    }
    s->view = views[0];
    s->views = views;
    s->view_count = n;
}

static double pass_sum(const rill_render_stats *s, bool main_only) {
    static const char *const main_passes[] = {"shadows", "prepass", "opaque", "transparent"};
    double t = 0;
    for (uint32_t i = 0; i < s->pass_count; i++) {
        bool is_main = false;
        for (int k = 0; k < 4; k++) {
            size_t len = strlen(main_passes[k]);
            is_main |= strncmp(s->pass_names[i], main_passes[k], len) == 0 &&
                       (s->pass_names[i][len] == 0 || s->pass_names[i][len] == '.');
        }
        t += is_main == main_only || !main_only ? s->pass_gpu_ms[i] : 0.0;
    }
    return t;
}

static int run(uint32_t n, uint32_t w, uint32_t h, uint32_t frames, rill_render_quality q,
               const char *device) {
    rill_renderer_desc d = {.width = w, .height = h, .quality = q, .device_name = device};
    rill_renderer *r = bench_renderer_create("bench_cameras", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material mats[4];
    for (int k = 0; k < 4; k++) {
        mats[k] = rill_render_material_create(
            r,
            &(rill_material_desc){.base_color = {0.3f + 0.2f * (float)k, 0.5f, 0.8f - 0.15f * k, 1},
                                  .emissive = {k == 0 ? 4.0f : 0.0f, 0, 0},
                                  .roughness = 0.5f},
            &err);
    }
    static const rill_render_taa taa_settings = {false};
    const rill_render_routed_settings taa = {"TemporalAntiAliasing", &taa_settings,
                                             sizeof(taa_settings), 0};
    rill_render_instance inst[BENCH_CUBES];
    rill_render_view views[MAX_VIEWS];
    rill_render_snapshot s;
    double cpu = 0, gpu = 0, gpu_main = 0, cpu_max = 0;
    uint32_t measured = 0, passes = 0;
    const char *dev = "?";
    int rc = 0;
    for (uint32_t f = 0; f < frames + 3; f++) {
        memset(inst, 0, sizeof(inst));
        views_of(n, f, views, &taa, &s, inst, cube, mats);
        if (rill_renderer_render(r, &s, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_cameras: %s\n", err.msg);
            rc = 1;
            break;
        }
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        dev = st.device_name;
        if (f < 3) {
            continue; /* warm-up: pipelines, the IBL bake, TAA and exposure histories */
        }
        cpu += st.cpu_record_ms;
        cpu_max = st.cpu_record_ms > cpu_max ? st.cpu_record_ms : cpu_max;
        gpu += pass_sum(&st, false);
        gpu_main += pass_sum(&st, true);
        passes = st.pass_count;
        measured++;
    }
    if (measured) {
        printf("{\"bench\":\"cameras\",\"device\":\"%s\",\"views\":%u,\"width\":%u,\"height\":%u,"
               "\"frames\":%u,\"passes\":%u,\"cpu_record_ms\":%.4f,\"cpu_record_max_ms\":%.4f,"
               "\"gpu_ms\":%.4f,\"gpu_main_ms\":%.4f,\"gpu_effects_ms\":%.4f}\n",
               dev, n, w, h, measured, passes, cpu / measured, cpu_max, gpu / measured,
               gpu_main / measured, (gpu - gpu_main) / measured);
        fflush(stdout);
    }
    for (int k = 0; k < 4; k++) {
        rill_render_material_destroy(r, mats[k]);
    }
    rill_render_mesh_destroy(r, cube);
    rill_renderer_destroy(r);
    return rc;
}

int main(int argc, char **argv) {
    uint32_t w = 1920, h = 1080, frames = 60;
    const char *device = NULL, *list = "1,2,4";
    rill_render_quality q = RILL_RENDER_QUALITY_MEDIUM;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h || w > 16384 || h > 16384) {
                fprintf(stderr, "bench_cameras: --size WxH (at most 16384)\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
            frames = frames ? (frames < 100000 ? frames : 100000) : 1;
        } else if (!strcmp(argv[i], "--views") && i + 1 < argc) {
            list = argv[++i];
        } else if (!strcmp(argv[i], "--quality") && i + 1 < argc) {
            const char *v = argv[++i];
            q = !strcmp(v, "low")    ? RILL_RENDER_QUALITY_LOW
                : !strcmp(v, "high") ? RILL_RENDER_QUALITY_HIGH
                                     : RILL_RENDER_QUALITY_MEDIUM;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_cameras [--size WxH] [--frames N] [--views 1,2,4] "
                            "[--quality low|medium|high] [--device NAME]\n");
            return 2;
        }
    }
    int rc = 0;
    for (const char *p = list; *p;) {
        char *end;
        unsigned long n = strtoul(p, &end, 10);
        if (end == p || n < 1 || n > MAX_VIEWS) {
            fprintf(stderr, "bench_cameras: --views takes counts 1 to %d, comma separated\n",
                    MAX_VIEWS);
            return 2;
        }
        rc |= run((uint32_t)n, w, h, frames, q, device);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "bench_cameras: bad --views '%s'\n", list);
            return 2;
        }
    }
    return rc;
}
