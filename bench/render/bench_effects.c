/* bench_effects.c: the cost of the composition registry's effects, one JSON line per case.
 *   effect    GPU time of each engine effect (SSAO at High, bloom, auto exposure) and each
 *             plugin of the plugins folder alone (every shipped plugin: one line each, with the
 *             frame inputs it reads), from the registry's per-effect pass timings (mean after
 *             warm-up), with the whole frame's GPU time;
 *   tier      the same scene with SSAO, bloom, auto exposure and TAA settings on the camera at
 *             Low, Medium and High: passes, GPU and CPU-record time of the frame;
 *   absent    48 registered effects whose settings no camera holds vs none registered: passes
 *             they add (must be 0), GPU and CPU-record time of the frame;
 *   reload    hot-reload latency: from a plugin shader file's save (or a library's) to the first
 *             read-back frame showing the new image (poll + compile + render + read back).
 * A scene of 64 lit cubes with shadows. Figures quote the machine (docs/benchmarks.md).
 *
 * usage: bench_effects [--size 320x180] [--frames 20] [--plugins DIR] [--device NAME] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/plugins.h"

#include "bench_cubes.h"
#include "bench_renderer.h"

#define WARMUP 4

typedef struct bench {
    rill_renderer *r;
    rill_mesh cube;
    rill_material mats[4];
    rill_render_instance inst[BENCH_CUBES];
    uint32_t w, h, frames;
    const char *plugins;
} bench;

static void scene(bench *b, rill_render_snapshot *s) {
    bench_cubes_scene(s, b->inst, b->cube, b->mats, 0.0f);
}

static void die(const char *what, const rill_error *err) {
    fprintf(stderr, "bench_effects: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

static void frame(bench *b, const rill_render_snapshot *s) {
    rill_error err = {0};
    if (rill_renderer_render(b->r, s, &err) != RILL_OK || rill_renderer_wait_idle(b->r, &err)) {
        die("render", &err);
    }
}

static double gpu_total(const rill_renderer *r) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    double ms = 0;
    for (uint32_t i = 0; i < st.pass_count; i++) {
        ms += st.pass_gpu_ms[i];
    }
    return ms;
}

/* The effect with this id in the registry: its GPU time and passes of the last frame. */
static bool effect_info(const rill_renderer *r, const char *id, rill_render_effect_info *out) {
    for (uint32_t i = 0; i < rill_render_effect_count(r); i++) {
        if (rill_render_effect_get(r, i, out) && strcmp(out->id, id) == 0) {
            return true;
        }
    }
    return false;
}

typedef struct sample {
    double effect_ms, frame_ms, cpu_ms;
    uint32_t passes, effect_passes;
} sample;

/* Renders warm-up + frames of s; means of the effect's (id, may be NULL) GPU time, the frame's
 * GPU and CPU-record time; passes of the last graph (pass timings recorded). */
static sample measure(bench *b, const rill_render_snapshot *s, const char *id) {
    sample m = {0};
    for (uint32_t f = 0; f < WARMUP + b->frames; f++) {
        frame(b, s);
        if (f < WARMUP) {
            continue;
        }
        rill_render_stats st;
        rill_renderer_stats(b->r, &st);
        m.frame_ms += gpu_total(b->r);
        m.cpu_ms += st.cpu_record_ms;
        m.passes = st.pass_count;
        rill_render_effect_info fi;
        if (id && effect_info(b->r, id, &fi)) {
            m.effect_ms += fi.gpu_ms;
            m.effect_passes = fi.passes;
        }
    }
    m.effect_ms /= b->frames;
    m.frame_ms /= b->frames;
    m.cpu_ms /= b->frames;
    return m;
}

static void bench_engine_effects(bench *b) {
    static const char *const ids[3] = {"ssao", "bloom", "auto_exposure"};
    rill_render_snapshot s;
    rill_renderer_set_quality(b->r, RILL_RENDER_QUALITY_HIGH);
    scene(b, &s);
    sample none = measure(b, &s, NULL);
    printf("{\"bench\":\"effects\",\"case\":\"effect\",\"effect\":\"none\",\"size\":\"%ux%u\","
           "\"frame_gpu_ms\":%.3f,\"cpu_record_ms\":%.3f}\n",
           b->w, b->h, none.frame_ms, none.cpu_ms);
    for (int i = 0; i < 3; i++) {
        scene(b, &s);
        s.view.ssao.enabled = i == 0;
        s.view.bloom.enabled = i == 1;
        s.view.auto_exposure.enabled = i == 2;
        sample m = measure(b, &s, ids[i]);
        printf("{\"bench\":\"effects\",\"case\":\"effect\",\"effect\":\"%s\",\"kind\":\"engine\","
               "\"size\":\"%ux%u\",\"passes\":%u,\"effect_gpu_ms\":%.3f,\"frame_gpu_ms\":%.3f}\n",
               ids[i], b->w, b->h, m.effect_passes, m.effect_ms, m.frame_ms);
    }
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every plugin library of the folder (sorted), each alone on a fresh host: one line per effect. */
static void bench_plugin_effects(bench *b) {
    DIR *d = opendir(b->plugins);
    if (!d) {
        die(b->plugins, NULL);
    }
    char *names[256];
    uint32_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 256) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && strcmp(ent->d_name + len - 3, ".so") == 0) {
            names[n++] = strdup(ent->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_name);
    for (uint32_t i = 0; i < n; i++) {
        rill_error err = {0};
        rill_plugins *p = rill_plugins_create(&(rill_plugins_desc){.renderer = b->r}, &err);
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", b->plugins, names[i]);
        if (!p || rill_plugins_load(p, path, &err) != RILL_OK) {
            die(path, &err);
        }
        for (uint32_t k = 0; k < rill_plugins_effect_count(p); k++) {
            rill_plugin_effect_info ei;
            rill_plugins_effect_get(p, k, &ei);
            char id[64];
            snprintf(id, sizeof(id), "%s", ei.id);
            rill_render_snapshot s;
            scene(b, &s);
            sample m = measure(b, &s, id);
            printf("{\"bench\":\"effects\",\"case\":\"effect\",\"effect\":\"%s\","
                   "\"kind\":\"plugin\",\"plugin\":\"%s\",\"inputs\":%u,\"size\":\"%ux%u\","
                   "\"passes\":%u,\"effect_gpu_ms\":%.3f,\"frame_gpu_ms\":%.3f}\n",
                   id, ei.plugin, ei.inputs, b->w, b->h, m.effect_passes, m.effect_ms, m.frame_ms);
        }
        rill_plugins_destroy(p);
        free(names[i]);
    }
}

static void bench_tiers(bench *b) {
    static const rill_render_quality tiers[3] = {
        RILL_RENDER_QUALITY_LOW, RILL_RENDER_QUALITY_MEDIUM, RILL_RENDER_QUALITY_HIGH};
    static const char *const names[3] = {"Low", "Medium", "High"};
    rill_render_taa taa = {false};
    rill_render_routed_settings rs = {"TemporalAntiAliasing", &taa, sizeof(taa), 0};
    for (int i = 0; i < 3; i++) {
        rill_renderer_set_quality(b->r, tiers[i]);
        rill_render_snapshot s;
        scene(b, &s);
        s.view.ssao.enabled = s.view.bloom.enabled = s.view.auto_exposure.enabled = true;
        s.view.settings = &rs;
        s.view.settings_count = 1;
        sample m = measure(b, &s, NULL);
        rill_renderer_settings st;
        rill_renderer_get_settings(b->r, &st);
        uint32_t ran = 0;
        for (uint32_t k = 0; k < rill_render_effect_count(b->r); k++) {
            rill_render_effect_info fi;
            ran += rill_render_effect_get(b->r, k, &fi) && fi.ran_last_frame;
        }
        printf("{\"bench\":\"effects\",\"case\":\"tier\",\"tier\":\"%s\",\"size\":\"%ux%u\","
               "\"shadow_map\":%u,\"effects_run\":%u,\"timed_passes\":%u,\"frame_gpu_ms\":%.3f,"
               "\"cpu_record_ms\":%.3f}\n",
               names[i], b->w, b->h, st.shadow_map_size, ran, m.passes, m.frame_ms, m.cpu_ms);
    }
}

static void noop_exec(rill_rg_ctx *ctx, void *user) {
    (void)ctx;
    (void)user;
}

static rill_result add_noop(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_rg_pass_desc d = {.label = ctx->id, .exec = noop_exec, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(ctx->graph, &d, err);
    return p.id ? RILL_OK : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}

static void bench_absent(bench *b) {
    rill_renderer_set_quality(b->r, RILL_RENDER_QUALITY_MEDIUM);
    rill_render_snapshot s;
    scene(b, &s);
    sample before = measure(b, &s, NULL);
    uint32_t handles[48];
    for (uint32_t i = 0; i < 48; i++) {
        char id[32], settings[32];
        snprintf(id, sizeof(id), "absent_%u", i);
        snprintf(settings, sizeof(settings), "Absent%u", i);
        rill_render_effect_desc d = {.id = id,
                                     .phase = (rill_render_phase)(i % RILL_RENDER_PHASE_NUM),
                                     .order = (int32_t)i,
                                     .settings = settings,
                                     .add = add_noop};
        rill_error err = {0};
        handles[i] = rill_render_effect_register(b->r, &d, &err);
        if (!handles[i]) {
            die("register", &err);
        }
    }
    sample after = measure(b, &s, NULL);
    uint32_t added = 0;
    for (uint32_t k = 0; k < rill_render_effect_count(b->r); k++) {
        rill_render_effect_info fi;
        if (rill_render_effect_get(b->r, k, &fi) && strncmp(fi.id, "absent_", 7) == 0) {
            added += fi.passes;
        }
    }
    printf("{\"bench\":\"effects\",\"case\":\"absent\",\"registered\":48,\"passes_added\":%u,"
           "\"timed_passes_before\":%u,\"timed_passes_after\":%u,\"frame_gpu_ms_before\":%.3f,"
           "\"frame_gpu_ms_after\":%.3f,\"cpu_record_ms_before\":%.3f,"
           "\"cpu_record_ms_after\":%.3f}\n",
           added, before.passes, after.passes, before.frame_ms, after.frame_ms, before.cpu_ms,
           after.cpu_ms);
    for (uint32_t i = 0; i < 48; i++) {
        rill_render_effect_unregister(b->r, handles[i]);
    }
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static bool copy_file(const char *from, const char *to) {
    FILE *a = fopen(from, "rb"), *c = fopen(to, "wb");
    bool ok = a && c;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof(buf), a)) > 0) {
        ok = fwrite(buf, 1, n, c) == n;
    }
    if (a) {
        fclose(a);
    }
    if (c) {
        ok = fclose(c) == 0 && ok;
    }
    return ok;
}

/* Frames (poll, render, read back) until the image differs from `old` (or the library swap
 * happened when old is NULL); returns the ms from t0, or -1 after 200 frames. */
static double until_new_image(bench *b, rill_plugins *p, const uint8_t *old, uint8_t *px,
                              double t0) {
    rill_render_snapshot s;
    scene(b, &s);
    size_t size = (size_t)b->w * b->h * 4;
    bool swapped = false;
    for (int f = 0; f < 200; f++) {
        swapped |= rill_plugins_poll(p) > 0;
        rill_error err = {0};
        frame(b, &s);
        if (rill_renderer_read_pixels(b->r, px, size, &err) != RILL_OK) {
            die("read_pixels", &err);
        }
        if (old ? memcmp(old, px, size) != 0 : swapped) {
            return now_ms() - t0;
        }
    }
    return -1.0;
}

static void bench_reload(bench *b) {
    char dir[] = "/tmp/bench_effects_XXXXXX";
    if (!mkdtemp(dir)) {
        die("mkdtemp", NULL);
    }
    char so[512], glsl[512], from[1024];
    snprintf(so, sizeof(so), "%s/sepia.so", dir);
    snprintf(glsl, sizeof(glsl), "%s/sepia.glsl", dir);
    snprintf(from, sizeof(from), "%s/sepia.so", b->plugins);
    bool ok = copy_file(from, so);
    snprintf(from, sizeof(from), "%s/sepia.glsl", b->plugins);
    ok = ok && copy_file(from, glsl);
    if (!ok) {
        die("copying sepia.so / sepia.glsl", NULL);
    }
    rill_error err = {0};
    rill_plugins *p = rill_plugins_create(&(rill_plugins_desc){.renderer = b->r}, &err);
    if (!p || rill_plugins_load(p, so, &err) != RILL_OK) {
        die(so, &err);
    }
    size_t size = (size_t)b->w * b->h * 4;
    uint8_t *a = malloc(size), *c = malloc(size);
    rill_render_snapshot s;
    scene(b, &s);
    frame(b, &s);
    frame(b, &s);
    if (!a || !c || rill_renderer_read_pixels(b->r, a, size, &err) != RILL_OK) {
        die("read_pixels", &err);
    }
    /* Alternate two shaders: each save must show up as a new image. */
    static const char *const bodies[2] = {
        "layout(set = 0, binding = 2) uniform S { vec4 v; } s;\n"
        "vec4 rill_effect(vec2 uv, vec4 c) { return vec4(1.0 - c.rgb, c.a); }\n",
        "layout(set = 0, binding = 2) uniform S { vec4 v; } s;\n"
        "vec4 rill_effect(vec2 uv, vec4 c) { return vec4(c.bgr, c.a); }\n"};
    for (int i = 0; i < 6; i++) {
        /* The mtime must change: file systems with coarse timestamps need a new second. */
        struct stat st0;
        stat(glsl, &st0);
        FILE *f = fopen(glsl, "w");
        if (!f || fputs(bodies[i & 1], f) < 0) {
            die("writing the shader", NULL);
        }
        fclose(f);
        struct timespec ts[2];
        clock_gettime(CLOCK_REALTIME, &ts[0]);
        ts[0].tv_sec += i + 1;
        ts[1] = ts[0];
        utimensat(0, glsl, ts, 0);
        double t0 = now_ms();
        double ms = until_new_image(b, p, a, c, t0);
        printf("{\"bench\":\"effects\",\"case\":\"reload\",\"what\":\"shader\",\"size\":\"%ux%u\","
               "\"save_to_new_image_ms\":%.2f}\n",
               b->w, b->h, ms);
        memcpy(a, c, size);
    }
    for (int i = 0; i < 3; i++) {
        copy_file(from, glsl); /* the original shader back (the library's own) */
        snprintf(from, sizeof(from), "%s/sepia.so", b->plugins);
        double t0 = now_ms();
        copy_file(from, so);
        struct timespec ts[2];
        clock_gettime(CLOCK_REALTIME, &ts[0]);
        ts[0].tv_sec += 10 + i;
        ts[1] = ts[0];
        utimensat(0, so, ts, 0);
        double ms = until_new_image(b, p, NULL, c, t0);
        printf("{\"bench\":\"effects\",\"case\":\"reload\",\"what\":\"library\",\"size\":\"%ux%u\","
               "\"save_to_swapped_frame_ms\":%.2f}\n",
               b->w, b->h, ms);
        snprintf(from, sizeof(from), "%s/sepia.glsl", b->plugins);
    }
    rill_plugins_destroy(p);
    free(a);
    free(c);
    unlink(so);
    unlink(glsl);
    rmdir(dir);
}

int main(int argc, char **argv) {
    bench b;
    memset(&b, 0, sizeof(b));
    b.w = 320, b.h = 180, b.frames = 20;
    const char *device = NULL;
    static char plugdir[1024];
    snprintf(plugdir, sizeof(plugdir), "%s/../../plugins", argc ? argv[0] : ".");
    char *slash = strrchr(argc ? argv[0] : "", '/');
    if (slash) {
        snprintf(plugdir, sizeof(plugdir), "%.*s/../../plugins", (int)(slash - argv[0]), argv[0]);
    }
    b.plugins = plugdir;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &b.w, &b.h) != 2 || !b.w || !b.h) {
                return 2;
            }
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            b.frames = (uint32_t)atoi(argv[++i]);
            if (!b.frames) {
                return 2;
            }
        } else if (!strcmp(argv[i], "--plugins") && i + 1 < argc) {
            b.plugins = argv[++i];
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_effects [--size WxH] [--frames N] [--plugins DIR] "
                            "[--device NAME]\n");
            return 2;
        }
    }
    rill_renderer_desc d = rill_renderer_query_defaults();
    d.width = b.w;
    d.height = b.h;
    d.device_name = device;
    d.validation = -1;
    if (!(b.r = bench_renderer_create("bench_effects", d))) {
        return 1;
    }
    rill_error err = {0};
    b.cube = rill_render_mesh_cube(b.r, &err);
    static const float colors[4][3] = {
        {0.9f, 0.2f, 0.1f}, {0.1f, 0.7f, 0.3f}, {0.2f, 0.3f, 0.9f}, {0.9f, 0.9f, 0.9f}};
    for (int i = 0; i < 4; i++) {
        rill_material_desc md;
        memset(&md, 0, sizeof(md));
        memcpy(md.base_color, colors[i], sizeof(colors[i]));
        md.base_color[3] = 1.0f;
        md.roughness = 0.5f;
        md.roughness_set = true;
        b.mats[i] = rill_render_material_create(b.r, &md, &err);
    }
    rill_render_stats st;
    rill_renderer_stats(b.r, &st);
    fprintf(stderr, "bench_effects on %s\n", st.device_name);
    bench_engine_effects(&b);
    bench_plugin_effects(&b);
    bench_tiers(&b);
    bench_absent(&b);
    bench_reload(&b);
    rill_renderer_destroy(b.r);
    return 0;
}
