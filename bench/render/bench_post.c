/* bench_post.c: the GPU cost of the post-processing effects (rill/render/post.h), one JSON line per
 * case, on bench_cubes.h's scene of 64 lit cubes with the camera orbiting (so motion vectors are
 * not zero):
 *   none               the frame without them (frame GPU time, CPU record time)
 *   depth_of_field     Gaussian and bokeh modes (max circle 64 px)
 *   motion_blur        8 and 32 samples, shutter 180 degrees
 *   color_grading      the HDR part (white balance, contrast, saturation) alone, the .cube part
 *                      alone (a 33^3 table), both
 *   forward_decal      100 decal boxes (10 x 10 over the grid, 1.2 m each): colour only, and with
 *                      albedo, normal and roughness maps (64 x 64 PNGs); one tiled pass each;
 *                      colour only again with the tiles' depth test off (the cost it saves)
 * Each line gives the effect's passes and GPU time (registry pass timings, mean after warm-up) and
 * the frame's GPU time. Figures quote the machine (docs/benchmarks.md).
 *
 * usage: bench_post [--size 1920x1080] [--frames 30] [--device NAME] [--only decals] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rill/asset.h"
#include "rill/formats/image.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/post.h"

#include "bench_cubes.h"
#include "bench_renderer.h"
#include "post_internal.h" /* rill__post_decal_depth_cull */

#define WARMUP 5

typedef struct bench {
    rill_renderer *r;
    rill_mesh cube;
    rill_material mats[4];
    rill_render_instance inst[BENCH_CUBES];
    uint32_t w, h, frames, frame_no;
    const rill_render_decal *decals;
    uint32_t decal_count;
} bench;

static void die(const char *what, const rill_error *err) {
    fprintf(stderr, "bench_post: %s: %s\n", what, err ? err->msg : "");
    exit(1);
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

typedef struct sample {
    double effect_ms, frame_ms, cpu_ms;
    uint32_t passes;
} sample;

/* Warm-up + frames with `settings` routed to the camera; the GPU time of the effects named by
 * ids (NULL-terminated), summed. */
static sample measure(bench *b, const rill_render_routed_settings *settings, uint32_t n,
                      const char *const *ids) {
    sample m = {0};
    for (uint32_t f = 0; f < WARMUP + b->frames; f++) {
        rill_render_snapshot s;
        bench_cubes_scene(&s, b->inst, b->cube, b->mats, 0.01f * (float)b->frame_no++);
        s.view.settings = settings;
        s.view.settings_count = n;
        s.decals = b->decals;
        s.decal_count = b->decal_count;
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
        m.frame_ms += gpu_total(b->r);
        m.cpu_ms += st.cpu_record_ms;
        for (uint32_t i = 0; i < rill_render_effect_count(b->r); i++) {
            rill_render_effect_info fi;
            for (const char *const *id = ids; id && *id; id++) {
                if (rill_render_effect_get(b->r, i, &fi) && !strcmp(fi.id, *id) &&
                    fi.ran_last_frame) {
                    m.effect_ms += fi.gpu_ms;
                    m.passes += f == WARMUP ? fi.passes : 0;
                }
            }
        }
    }
    m.effect_ms /= b->frames;
    m.frame_ms /= b->frames;
    m.cpu_ms /= b->frames;
    return m;
}

static void report(const bench *b, const char *effect, const char *variant, sample m) {
    printf("{\"bench\":\"post\",\"effect\":\"%s\",\"variant\":\"%s\",\"size\":\"%ux%u\","
           "\"passes\":%u,\"effect_gpu_ms\":%.3f,\"frame_gpu_ms\":%.3f,\"cpu_record_ms\":%.3f}\n",
           effect, variant, b->w, b->h, m.passes, m.effect_ms, m.frame_ms, m.cpu_ms);
    fflush(stdout);
}

/* A 64 x 64 map under dir: a ring (albedo: colour in the ring, transparent outside; normal: a
 * bump; roughness: rough ring on a glossy ground). */
static void write_decal_map(const char *dir, const char *name, int kind) {
    static uint8_t px[64 * 64 * 4];
    for (int y = 0; y < 64; y++) {
        for (int x = 0; x < 64; x++) {
            float dx = ((float)x - 31.5f) / 32.0f, dy = ((float)y - 31.5f) / 32.0f;
            float r = sqrtf(dx * dx + dy * dy);
            bool ring = r > 0.5f && r < 0.9f;
            uint8_t *p = px + (y * 64 + x) * 4;
            if (kind == 0) {
                p[0] = 200, p[1] = 60, p[2] = 30, p[3] = ring ? 255 : 0;
            } else if (kind == 1) {
                float s = ring ? 0.5f : 0.0f;
                p[0] = (uint8_t)(127.5f + 127.0f * dx * s),
                p[1] = (uint8_t)(127.5f - 127.0f * dy * s);
                p[2] = 230, p[3] = 255;
            } else {
                p[0] = 0, p[1] = ring ? 240 : 40, p[2] = 0, p[3] = 255;
            }
        }
    }
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    rill_error err = {0};
    if (rill_image_write_png(path, px, 64, 64, 4, &err) != RILL_OK) {
        die("decal map", &err);
    }
}

/* 100 decal boxes laid over the cube grid, projecting down: colour only, then with maps read
 * through vfs (rooted at dir). */
static void bench_decals(bench *b, rill_vfs *vfs, const char *dir) {
    static rill_render_decal d[100];
    for (int i = 0; i < 100; i++) {
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m,
                      (vec3){(float)(i % 10) * 1.25f - 5.6f, 0.5f, (float)(i / 10) * 1.25f - 5.6f});
        glm_scale(m, (vec3){1.2f, 2.0f, 1.2f});
        memcpy(d[i].world_from_box, m, sizeof(m));
        d[i].base_color[0] = (float)(i % 3) * 0.4f, d[i].base_color[1] = 0.5f;
        d[i].base_color[2] = 0.2f, d[i].base_color[3] = 0.8f;
        d[i].angle_fade_start = 60, d[i].angle_fade_end = 80;
        d[i].normal_strength = d[i].roughness_strength = 1.0f;
    }
    static const char *const ids[] = {"forward_decal", NULL};
    b->decals = d;
    b->decal_count = 100;
    report(b, "forward_decal", "100_boxes", measure(b, NULL, 0, ids));
    rill__post_decal_depth_cull(b->r, false);
    report(b, "forward_decal", "100_boxes_no_depth_cull", measure(b, NULL, 0, ids));
    rill__post_decal_depth_cull(b->r, true);
    write_decal_map(dir, "ring.png", 0);
    write_decal_map(dir, "ring_n.png", 1);
    write_decal_map(dir, "ring_rough.png", 2);
    rill_renderer_set_vfs(b->r, vfs);
    for (int i = 0; i < 100; i++) {
        d[i].albedo = "ring.png", d[i].normal = "ring_n.png", d[i].roughness = "ring_rough.png";
    }
    report(b, "forward_decal", "100_boxes_3_maps", measure(b, NULL, 0, ids));
    rill_renderer_set_vfs(b->r, NULL);
    b->decal_count = 0;
    static const char *const names[] = {"ring.png", "ring_n.png", "ring_rough.png"};
    for (int i = 0; i < 3; i++) {
        char path[600];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
}

/* A warm 33^3 .cube table in a fresh folder mounted as the renderer's file system. */
static rill_vfs *lut_vfs(char *dir, size_t cap) {
    snprintf(dir, cap, "/tmp/bench_post_XXXXXX");
    if (!mkdtemp(dir)) {
        die("mkdtemp", NULL);
    }
    char path[600];
    snprintf(path, sizeof(path), "%s/warm.cube", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        die(path, NULL);
    }
    const uint32_t n = 33;
    fprintf(f, "TITLE \"warm\"\nLUT_3D_SIZE %u\n", n);
    for (uint32_t i = 0; i < n * n * n; i++) {
        float r = (float)(i % n) / (n - 1), g = (float)(i / n % n) / (n - 1),
              bl = (float)(i / (n * n)) / (n - 1);
        fprintf(f, "%.6f %.6f %.6f\n", r * 1.05f + 0.02f, g, bl * 0.9f);
    }
    fclose(f);
    rill_error err = {0};
    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    if (!vfs || rill_vfs_mount_dir(vfs, dir, &err) != RILL_OK) {
        die("vfs", &err);
    }
    return vfs;
}

static void run(bench *b, bool only_decals) {
    sample none = measure(b, NULL, 0, NULL);
    report(b, "none", "", none);
    char dir[64];
    rill_vfs *vfs = lut_vfs(dir, sizeof(dir));
    if (only_decals) {
        bench_decals(b, vfs, dir);
        rill_vfs_destroy(vfs);
        char path[600];
        snprintf(path, sizeof(path), "%s/warm.cube", dir);
        unlink(path);
        rmdir(dir);
        return;
    }

    static const char *const dof_ids[] = {"depth_of_field", NULL};
    for (int mode = 0; mode < 2; mode++) {
        rill_render_dof d = {mode ? RILL_DOF_BOKEH : RILL_DOF_GAUSSIAN, 8.0f, 0.5f, 0.01866f, 64};
        rill_render_routed_settings rs = {"DepthOfField", &d, sizeof(d), 0};
        report(b, "depth_of_field", mode ? "bokeh" : "gaussian", measure(b, &rs, 1, dof_ids));
    }

    static const char *const mb_ids[] = {"motion_blur", NULL};
    const uint32_t samples[2] = {8, 32};
    for (int i = 0; i < 2; i++) {
        rill_render_motion_blur m = {180.0f, samples[i]};
        rill_render_routed_settings rs = {"MotionBlur", &m, sizeof(m), 0};
        report(b, "motion_blur", i ? "32_samples" : "8_samples", measure(b, &rs, 1, mb_ids));
    }

    rill_renderer_set_vfs(b->r, vfs);
    static const char *const grade_ids[] = {"color_grading", "color_grading_lut", NULL};
    rill_render_color_grading g = {.temperature = 0.3f,
                                   .contrast = 1.1f,
                                   .saturation = 1.2f,
                                   .gamma = {1, 1, 1},
                                   .gain = {1, 1, 1}};
    rill_render_routed_settings rs = {"ColorGrading", &g, sizeof(g), 0};
    report(b, "color_grading", "hdr", measure(b, &rs, 1, grade_ids));
    g = (rill_render_color_grading){
        .contrast = 1, .saturation = 1, .gamma = {1, 1, 1}, .gain = {1, 1, 1}, .lut = "warm.cube"};
    report(b, "color_grading", "lut_33", measure(b, &rs, 1, grade_ids));
    g.temperature = 0.3f, g.contrast = 1.1f, g.saturation = 1.2f;
    report(b, "color_grading", "hdr_and_lut_33", measure(b, &rs, 1, grade_ids));
    rill_renderer_set_vfs(b->r, NULL);
    bench_decals(b, vfs, dir);
    rill_vfs_destroy(vfs);
    char path[600];
    snprintf(path, sizeof(path), "%s/warm.cube", dir);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv) {
    bench b = {.w = 1920, .h = 1080, .frames = 30};
    bool only_decals = false;
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
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc && !strcmp(argv[i + 1], "decals")) {
            only_decals = true, i++;
        } else {
            fprintf(stderr, "usage: bench_post [--size 1920x1080] [--frames 30] [--device NAME] "
                            "[--only decals]\n");
            return 2;
        }
    }
    d.width = b.w;
    d.height = b.h;
    d.quality = RILL_RENDER_QUALITY_HIGH;
    b.r = bench_renderer_create("bench_post", d);
    if (!b.r) {
        return 1;
    }
    rill_error err = {0};
    b.cube = rill_render_mesh_cube(b.r, &err);
    const float colors[4][3] = {
        {0.8f, 0.2f, 0.2f}, {0.2f, 0.7f, 0.3f}, {0.3f, 0.4f, 0.9f}, {0.9f, 0.8f, 0.3f}};
    for (int i = 0; i < 4; i++) {
        rill_material_desc md = {.base_color = {colors[i][0], colors[i][1], colors[i][2], 1},
                                 .roughness = 0.5f};
        b.mats[i] = rill_render_material_create(b.r, &md, &err);
    }
    if (!b.cube.id) {
        die("cube", &err);
    }
    run(&b, only_decals);
    rill_renderer_destroy(b.r);
    return 0;
}
