/* bench_cameras.c: the cost of several cameras (split screen): the bench_cubes scene seen by 1, 2
 * (side by side) and 4 (2 x 2) cameras, each with its own bloom, auto exposure and TAA (SSAO too
 * at --quality high), at 1920x1080 (or --size WxH). Each camera orbits the grid from its own
 * angle, turning a little every frame so TAA reprojects. Prints one JSON line per view count:
 *   {"bench":"cameras","views":N,"cpu_record_ms":...,"gpu_ms":...,"gpu_main_ms":...,...}
 * cpu_record_ms is the renderer's recording time (culling, graph, commands, submit) with the GPU
 * idle; gpu_ms the sum of every pass's timestamps; gpu_main_ms the raster passes (shadows,
 * prepass, opaque, transparent) and gpu_effects_ms the rest (effects, tonemapping, compose).
 * --gpu-cull culls on the GPU (RILL_RENDER_DEBUG_GPU_CULL: every camera its own lists);
 * --field N adds N small cubes on a square field 400 m across around the grid, most of them
 * outside each camera's frustum (work for culling; 0 by default). The JSON line then also says
 * gpu_cull, instances and cpu_cull_ms (the renderer's culling, CPU side).
 * Usage: bench_cameras [--size WxH] [--frames N] [--views 1,2,4] [--quality low|medium|high]
 *                      [--device NAME] [--gpu-cull] [--field N] */
#include <math.h>
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

/* The field's cubes after the grid's (inst[BENCH_CUBES ..]): `field` of them on a square 400 m
 * across, 0.4 m each, ids after the grid's. */
static void field_of(rill_render_instance *inst, uint32_t field, rill_mesh cube,
                     const rill_material mats[4]) {
    uint32_t side = (uint32_t)ceilf(sqrtf((float)field));
    float step = side > 1u ? 400.0f / (float)(side - 1u) : 0.0f;
    for (uint32_t k = 0; k < field; k++) {
        rill_render_instance *in = &inst[BENCH_CUBES + k];
        float x = (float)(k % side) * step - 200.0f, z = (float)(k / side) * step - 200.0f;
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, (vec3){x, 0.2f, z});
        glm_scale_uni(m, 0.4f);
        in->id = BENCH_CUBES + 1u + k;
        in->mesh = cube;
        in->material = mats[k % 4u];
        memcpy(in->transform, m, sizeof(mat4));
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

/* What a run draws besides its view count. */
typedef struct bench_opts {
    uint32_t w, h, frames, field;
    rill_render_quality q;
    const char *device;
    bool gpu_cull;
} bench_opts;

static int run(uint32_t n, const bench_opts *o) {
    uint32_t w = o->w, h = o->h, frames = o->frames;
    rill_renderer_desc d = {.width = w,
                            .height = h,
                            .quality = o->q,
                            .device_name = o->device,
                            .debug_flags = o->gpu_cull ? RILL_RENDER_DEBUG_GPU_CULL : 0u};
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
    uint32_t ninst = BENCH_CUBES + o->field;
    rill_render_instance *inst = calloc(ninst, sizeof(*inst));
    if (!inst) {
        fprintf(stderr, "bench_cameras: out of memory\n");
        rill_renderer_destroy(r);
        return 1;
    }
    rill_render_view views[MAX_VIEWS];
    rill_render_snapshot s;
    double cpu = 0, gpu = 0, gpu_main = 0, cpu_max = 0, cull = 0;
    uint32_t measured = 0, passes = 0;
    const char *dev = "?";
    int rc = 0;
    for (uint32_t f = 0; f < frames + 3; f++) {
        memset(inst, 0, ninst * sizeof(*inst));
        views_of(n, f, views, &taa, &s, inst, cube, mats);
        field_of(inst, o->field, cube, mats);
        s.instance_count = ninst;
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
        cull += st.cpu_cull_ms;
        cpu_max = st.cpu_record_ms > cpu_max ? st.cpu_record_ms : cpu_max;
        gpu += pass_sum(&st, false);
        gpu_main += pass_sum(&st, true);
        passes = st.pass_count;
        measured++;
    }
    if (measured) {
        printf("{\"bench\":\"cameras\",\"device\":\"%s\",\"views\":%u,\"width\":%u,\"height\":%u,"
               "\"frames\":%u,\"passes\":%u,\"cpu_record_ms\":%.4f,\"cpu_record_max_ms\":%.4f,"
               "\"gpu_ms\":%.4f,\"gpu_main_ms\":%.4f,\"gpu_effects_ms\":%.4f,"
               "\"gpu_cull\":%s,\"instances\":%u,\"cpu_cull_ms\":%.4f}\n",
               dev, n, w, h, measured, passes, cpu / measured, cpu_max, gpu / measured,
               gpu_main / measured, (gpu - gpu_main) / measured, o->gpu_cull ? "true" : "false",
               ninst, cull / measured);
        fflush(stdout);
    }
    for (int k = 0; k < 4; k++) {
        rill_render_material_destroy(r, mats[k]);
    }
    rill_render_mesh_destroy(r, cube);
    rill_renderer_destroy(r);
    free(inst);
    return rc;
}

int main(int argc, char **argv) {
    bench_opts o = {1920, 1080, 60, 0, RILL_RENDER_QUALITY_MEDIUM, NULL, false};
    const char *list = "1,2,4";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &o.w, &o.h) != 2 || !o.w || !o.h || o.w > 16384 ||
                o.h > 16384) {
                fprintf(stderr, "bench_cameras: --size WxH (at most 16384)\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            uint32_t frames = (uint32_t)strtoul(argv[++i], NULL, 10);
            o.frames = frames ? (frames < 100000 ? frames : 100000) : 1;
        } else if (!strcmp(argv[i], "--views") && i + 1 < argc) {
            list = argv[++i];
        } else if (!strcmp(argv[i], "--quality") && i + 1 < argc) {
            const char *v = argv[++i];
            o.q = !strcmp(v, "low")    ? RILL_RENDER_QUALITY_LOW
                  : !strcmp(v, "high") ? RILL_RENDER_QUALITY_HIGH
                                       : RILL_RENDER_QUALITY_MEDIUM;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            o.device = argv[++i];
        } else if (!strcmp(argv[i], "--gpu-cull")) {
            o.gpu_cull = true;
        } else if (!strcmp(argv[i], "--field") && i + 1 < argc) {
            char *end;
            unsigned long n = strtoul(argv[++i], &end, 10);
            if (*end || n > 4000000ul) {
                fprintf(stderr, "bench_cameras: --field N (0 to 4000000 cubes)\n");
                return 2;
            }
            o.field = (uint32_t)n;
        } else {
            fprintf(stderr, "usage: bench_cameras [--size WxH] [--frames N] [--views 1,2,4] "
                            "[--quality low|medium|high] [--device NAME] [--gpu-cull] "
                            "[--field N]\n");
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
        rc |= run((uint32_t)n, &o);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "bench_cameras: bad --views '%s'\n", list);
            return 2;
        }
    }
    return rc;
}
