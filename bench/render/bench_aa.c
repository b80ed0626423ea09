/* bench_aa.c: GPU time of each anti-aliasing effect (TAA, FXAA, SMAA, CAS) per frame, from the
 * renderer's pass timestamps. A scene of 64 lit cubes is rendered with each effect's settings
 * routed to the camera in turn (and with none, and with all four); after warm-up frames the GPU
 * time of the effect's passes and of the whole frame are averaged. One JSON line per case.
 *
 * usage: bench_aa [--size 320x180] [--frames 20] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/render.h"
#include "rill/render/effects.h"

#include "bench_cubes.h"
#include "bench_renderer.h"

#define WARMUP 4

typedef struct bench_case {
    const char *name;
    bool taa, fxaa, smaa, cas;
} bench_case;

static const char *const aa_passes[] = {"taa",          "fxaa",       "smaa_edges",
                                        "smaa_weights", "smaa_blend", "cas"};
enum { AA_PASSES = 6 };

static int run_case(rill_renderer *r, const bench_case *c, rill_mesh cube,
                    const rill_material *mats, uint32_t frames, uint32_t w, uint32_t h) {
    static rill_render_instance inst[BENCH_CUBES];
    rill_render_taa taa = {false};
    rill_render_fxaa fxaa = {RILL_FXAA_HIGH, RILL_FXAA_HIGH};
    rill_render_smaa smaa = {RILL_SMAA_HIGH};
    rill_render_cas cas = {0.6f, false};
    rill_render_routed_settings rs[4];
    uint32_t n = 0;
    if (c->taa) {
        rs[n++] = (rill_render_routed_settings){"TemporalAntiAliasing", &taa, sizeof(taa), 0};
    }
    if (c->fxaa) {
        rs[n++] = (rill_render_routed_settings){"Fxaa", &fxaa, sizeof(fxaa), 0};
    }
    if (c->smaa) {
        rs[n++] = (rill_render_routed_settings){"Smaa", &smaa, sizeof(smaa), 0};
    }
    if (c->cas) {
        rs[n++] = (rill_render_routed_settings){"ContrastAdaptiveSharpening", &cas, sizeof(cas), 0};
    }
    double pass_ms[AA_PASSES] = {0}, total = 0;
    uint32_t passes_in_graph = 0;
    for (uint32_t f = 0; f < WARMUP + frames; f++) {
        rill_render_snapshot s;
        bench_cubes_scene(&s, inst, cube, mats, 0.01f * (float)f);
        s.view.settings = n ? rs : NULL;
        s.view.settings_count = n;
        rill_error err = {0};
        if (rill_renderer_render(r, &s, &err) != RILL_OK ||
            rill_renderer_wait_idle(r, &err) != RILL_OK) {
            fprintf(stderr, "bench_aa: %s\n", err.msg);
            return 1;
        }
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        if (f < WARMUP) {
            continue;
        }
        passes_in_graph = st.pass_count;
        for (uint32_t k = 0; k < st.pass_count; k++) {
            total += st.pass_gpu_ms[k];
            for (int a = 0; a < AA_PASSES; a++) {
                if (strcmp(st.pass_names[k], aa_passes[a]) == 0) {
                    pass_ms[a] += st.pass_gpu_ms[k];
                }
            }
        }
    }
    double effect = 0;
    printf("{\"bench\":\"aa_effect\",\"case\":\"%s\",\"width\":%u,\"height\":%u,\"frames\":%u,"
           "\"passes\":%u,\"gpu_ms\":{",
           c->name, w, h, frames, passes_in_graph);
    bool first = true;
    for (int a = 0; a < AA_PASSES; a++) {
        if (pass_ms[a] > 0) {
            printf("%s\"%s\":%.4f", first ? "" : ",", aa_passes[a], pass_ms[a] / frames);
            effect += pass_ms[a] / frames;
            first = false;
        }
    }
    printf("},\"effect_gpu_ms\":%.4f,\"frame_gpu_ms\":%.4f}\n", effect, total / frames);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t w = 320, h = 180, frames = 20;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || !w || !h || w > 8192 || h > 8192) {
                fprintf(stderr, "bench_aa: --size WxH (1..8192)\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            long v = strtol(argv[++i], NULL, 10);
            if (v < 1 || v > 100000) {
                fprintf(stderr, "bench_aa: --frames 1..100000\n");
                return 2;
            }
            frames = (uint32_t)v;
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_aa [--size WxH] [--frames N] [--device NAME]\n");
            return 2;
        }
    }
    rill_renderer_desc d = rill_renderer_query_defaults();
    d.width = w;
    d.height = h;
    d.validation = 0;
    d.device_name = device;
    d.quality = RILL_RENDER_QUALITY_HIGH;
    rill_renderer *r = bench_renderer_create("bench_aa", d);
    if (!r) {
        return 1;
    }
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(r, &err);
    rill_material mats[4];
    for (int i = 0; i < 4; i++) {
        rill_material_desc md;
        memset(&md, 0, sizeof(md));
        md.base_color[0] = 0.2f + 0.2f * (float)i, md.base_color[1] = 0.6f;
        md.base_color[2] = 0.8f - 0.2f * (float)i, md.base_color[3] = 1.0f;
        md.roughness = 0.5f;
        mats[i] = rill_render_material_create(r, &md, &err);
    }
    static const bench_case cases[] = {
        {"none", false, false, false, false}, {"taa", true, false, false, false},
        {"fxaa", false, true, false, false},  {"smaa", false, false, true, false},
        {"cas", false, false, false, true},   {"all", true, true, true, true},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && rc == 0; i++) {
        rc = run_case(r, &cases[i], cube, mats, frames, w, h);
    }
    rill_renderer_destroy(r);
    return rc;
}
