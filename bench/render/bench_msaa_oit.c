/* bench_msaa_oit.c: the GPU cost of Msaa and OrderIndependentTransparency (rill/render/msaa.h),
 * one JSON line per case.
 *   msaa   bench_cubes.h's 64 lit cubes (camera orbiting) with Msaa off, 2, 4 and 8 samples (a
 *          count the device lacks is lowered to the largest it has, logged on stderr): the
 *          frame's GPU time, the GPU time of the passes MSAA adds or changes (prepass_msaa,
 *          opaque, msaa_resolve) and the CPU record time.
 *   oit    100 overlapping transparent quads (alpha 0.3, each covering most of the image, at
 *          100 depths, drawn in a shuffled order) over the cubes: per-object sorted blending vs
 *          OIT at 8 layers: the frame's GPU time and the transparent passes' (transparent,
 *          oit_clear, oit_resolve).
 * Figures quote the machine (docs/benchmarks.md).
 *
 * usage: bench_msaa_oit [--size 1920x1080] [--frames 30] [--device NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/render.h"
#include "rill/render/msaa.h"

#include "bench_cubes.h"
#include "bench_renderer.h"

#define WARMUP 5
#define QUADS 100

typedef struct bench {
    rill_renderer *r;
    rill_mesh cube, plane;
    rill_material mats[4], glass[4];
    rill_render_instance inst[BENCH_CUBES + QUADS];
    uint32_t w, h, frames, frame_no, quads;
} bench;

static void die(const char *what, const rill_error *err) {
    fprintf(stderr, "bench_msaa_oit: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

typedef struct sample {
    double frame_ms, passes_ms, cpu_ms;
} sample;

static bool named(const char *name, const char *const *ids) {
    for (; name && *ids; ids++) {
        if (!strcmp(name, *ids)) {
            return true;
        }
    }
    return false;
}

/* The quads: facing the camera (which looks at the grid from +Z), 0.08 m apart in depth, spawned
 * in a shuffled order (a fixed permutation). */
static void add_quads(bench *b, rill_render_snapshot *s) {
    for (uint32_t k = 0; k < b->quads; k++) {
        uint32_t i = (k * 37u) % QUADS; /* 37 is prime to 100: a permutation */
        rill_render_instance *in = &b->inst[BENCH_CUBES + k];
        memset(in, 0, sizeof(*in));
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, (vec3){0.02f * (float)(i % 7), 2.0f, 4.0f - 0.08f * (float)i});
        glm_rotate_x(m, 1.5708f, m);
        glm_scale_uni(m, 14.0f);
        in->id = 1000u + k;
        in->mesh = b->plane;
        in->material = b->glass[i % 4];
        memcpy(in->transform, m, sizeof(mat4));
    }
    s->instances = b->inst;
    s->instance_count = BENCH_CUBES + b->quads;
}

/* Warm-up + frames with `settings` routed to the camera; the GPU time of the passes in ids. */
static sample measure(bench *b, const rill_render_routed_settings *settings, uint32_t n,
                      const char *const *ids) {
    sample m = {0};
    for (uint32_t f = 0; f < WARMUP + b->frames; f++) {
        rill_render_snapshot s;
        bench_cubes_scene(&s, b->inst, b->cube, b->mats, 0.01f * (float)b->frame_no++);
        add_quads(b, &s);
        s.view.settings = settings;
        s.view.settings_count = n;
        rill_error err = {0};
        if (rill_renderer_render(b->r, &s, &err) != RILL_OK ||
            rill_renderer_wait_idle(b->r, &err) != RILL_OK) {
            die("render", &err);
        }
        if (f < WARMUP) {
            continue;
        }
        rill_render_stats st;
        rill_renderer_stats(b->r, &st);
        m.cpu_ms += st.cpu_record_ms;
        for (uint32_t i = 0; i < st.pass_count; i++) {
            m.frame_ms += st.pass_gpu_ms[i];
            m.passes_ms += named(st.pass_names[i], ids) ? st.pass_gpu_ms[i] : 0.0;
        }
    }
    m.frame_ms /= b->frames;
    m.passes_ms /= b->frames;
    m.cpu_ms /= b->frames;
    return m;
}

static void report(const bench *b, const char *what, const char *variant, sample m) {
    printf("{\"bench\":\"msaa_oit\",\"case\":\"%s\",\"variant\":\"%s\",\"size\":\"%ux%u\","
           "\"quads\":%u,\"passes_gpu_ms\":%.3f,\"frame_gpu_ms\":%.3f,\"cpu_record_ms\":%.3f}\n",
           what, variant, b->w, b->h, b->quads, m.passes_ms, m.frame_ms, m.cpu_ms);
    fflush(stdout);
}

static void run(bench *b) {
    static const char *const msaa_ids[] = {"prepass_msaa", "opaque", "msaa_resolve", NULL};
    b->quads = 0;
    const rill_msaa_samples counts[4] = {RILL_MSAA_OFF, RILL_MSAA_SAMPLE2, RILL_MSAA_SAMPLE4,
                                         RILL_MSAA_SAMPLE8};
    const char *names[4] = {"off", "2x", "4x", "8x"};
    for (int i = 0; i < 4; i++) {
        rill_render_msaa ms = {counts[i]};
        rill_render_routed_settings rs = {"Msaa", &ms, sizeof(ms), 0};
        report(b, "msaa", names[i], measure(b, &rs, 1, msaa_ids));
    }
    static const char *const oit_ids[] = {"transparent", "oit_clear", "oit_resolve", NULL};
    b->quads = QUADS;
    report(b, "oit", "sorted_blending", measure(b, NULL, 0, oit_ids));
    rill_render_oit oit = {8, 0.0f, true};
    rill_render_routed_settings rs = {"OrderIndependentTransparency", &oit, sizeof(oit), 0};
    report(b, "oit", "oit_8_layers", measure(b, &rs, 1, oit_ids));
}

int main(int argc, char **argv) {
    bench b = {.w = 1920, .h = 1080, .frames = 30};
    rill_renderer_desc d = rill_renderer_query_defaults();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &b.w, &b.h) != 2 || !b.w || !b.h) {
                die("--size wants WxH", NULL);
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            b.frames = (uint32_t)atoi(argv[++i]);
            b.frames = b.frames ? b.frames : 1;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            d.device_name = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: bench_msaa_oit [--size 1920x1080] [--frames 30] [--device NAME]\n");
            return 2;
        }
    }
    d.width = b.w;
    d.height = b.h;
    d.quality = RILL_RENDER_QUALITY_HIGH;
    b.r = bench_renderer_create("bench_msaa_oit", d);
    if (!b.r) {
        return 1;
    }
    rill_error err = {0};
    b.cube = rill_render_mesh_cube(b.r, &err);
    b.plane = rill_render_mesh_plane(b.r, &err);
    if (!b.cube.id || !b.plane.id) {
        die("meshes", &err);
    }
    const float colors[4][3] = {
        {0.8f, 0.2f, 0.2f}, {0.2f, 0.7f, 0.3f}, {0.3f, 0.4f, 0.9f}, {0.9f, 0.8f, 0.3f}};
    for (int i = 0; i < 4; i++) {
        rill_material_desc md = {.base_color = {colors[i][0], colors[i][1], colors[i][2], 1},
                                 .roughness = 0.5f};
        b.mats[i] = rill_render_material_create(b.r, &md, &err);
        md.base_color[3] = 0.3f;
        md.alpha_mode = RILL_ALPHA_BLEND;
        md.double_sided = true;
        b.glass[i] = rill_render_material_create(b.r, &md, &err);
    }
    run(&b);
    rill_renderer_destroy(b.r);
    return 0;
}
