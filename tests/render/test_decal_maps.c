/* ForwardDecal maps and the tiled decal pass (rill/render/post.h) on lavapipe, 96x64, validation
 * on: an albedo map paints only where its alpha covers (the half of the box it covers, greener);
 * a normal-only map changes the shading inside the box and nowhere else, and at strength 0 changes
 * nothing; the angle fade paints fully, partly or not at all; a roughness map changes the floor's
 * highlight inside the box; a missing map is warned about by name and the decal draws its colour as
 * if it had none; a NaN box is skipped with a warning while the other decals still draw; many
 * decals over the floor (binned into tiles) paint only inside their boxes; a decal entity in a
 * hidden channel is not extracted, one in a ghost channel is; the tiles' depth test (a tile drops
 * the decals whose box's depth range misses its surfaces') leaves the picture as it was without
 * it, on a scene of near and far surfaces sharing tiles; a colour decal paints a blended glass
 * pane inside its box (the pane's own fragments walk the decals) and nothing outside, and with an
 * albedo map opaque on one half paints only that half (the map sampled from the decal atlas); a
 * map that is not an image is warned about naming entity and file and the decal draws its colour;
 * a fifth 1024 x 1024 map in view overflows an atlas kept to four layers (warned, naming it) and
 * paints once the others have left the view; decals from a few pixels to large paint the same
 * pixels whatever map holds the atlas cell beside theirs (no bleeding at any level); albedo maps
 * are filtered in linear light (checkers of red and green texels, magnified and minified, on the
 * floor and on a blended pane); split
 * screen and render-texture cameras show mapped decals exactly as each camera alone; a fifth
 * 1024 x 1024 map grows the atlas and all five paint their own colours, also when only a second
 * camera sees it (the atlas grows the next frame); maps out of view are dropped only when that
 * frees a cell the new map fits. */
#include "rill_test.h"

#include "rill/asset.h"
#include "rill/channels.h"
#include "rill/formats/image.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/post.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "post_internal.h" /* rill__post_decal_depth_cull */
#include "render_test.h"

#include <cglm/clipspace/persp_rh_zo.h>

#define W 96
#define H 64

typedef struct scene {
    rill_renderer *r;
    rill_mesh cube;
    rill_material floor;
    rill_render_instance inst[3];
    rill_render_snapshot s;
    rill_vfs *vfs;
    char dir[512];
    mat4 vp;
    uint8_t px[W * H * 4];
} scene;

/* One 16x16 RGBA8 map written as a PNG under the scene's folder. */
static void write_map(scene *sc, const char *name, const uint8_t rgba_left[4],
                      const uint8_t rgba_right[4]) {
    uint8_t px[16 * 16 * 4];
    for (int i = 0; i < 16 * 16; i++) {
        memcpy(px + i * 4, (i % 16) < 8 ? rgba_left : rgba_right, 4);
    }
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", sc->dir, name);
    rill_error err = {0};
    assert_int_equal(rill_image_write_png(path, px, 16, 16, 4, &err), RILL_OK);
}

/* A floor slab seen from above and in front, lit by a low sun; the maps' folder mounted. */
static bool scene_open(scene *sc, const char *name) {
    memset(sc, 0, sizeof(*sc));
    sc->r =
        render_test_renderer((rill_renderer_desc){.width = W, .height = H, .shadow_map_size = 256});
    if (!sc->r) {
        return false;
    }
    rill_error err = {0};
    sc->cube = rill_render_mesh_cube(sc->r, &err);
    sc->floor = render_test_material(
        sc->r, (rill_material_desc){.base_color = {0.6f, 0.4f, 0.4f, 1}, .roughness = 0.25f});
    mat4 wfv, view, proj;
    render_test_look_at(wfv, (float[3]){0, 3, 4}, (float[3]){0, -1, 0});
    memcpy(sc->s.view.world_from_view, wfv, sizeof(wfv));
    glm_mat4_inv(wfv, view);
    glm_perspective_rh_zo(0.8f, (float)W / (float)H, 0.1f, 1000.0f, proj);
    glm_mat4_mul(proj, view, sc->vp);
    sc->s.has_sun = true;
    sc->s.sun = (rill_render_dir_light){{0.2f, -0.6f, -1.0f}, {1, 1, 1}, 3.0f, false, false};
    sc->s.ambient[0] = sc->s.ambient[1] = sc->s.ambient[2] = 0.2f;
    sc->s.instances = sc->inst;
    render_test_place(&sc->inst[0], 1, sc->cube, sc->floor, (float[3]){0, -1.1f, 0}, 1.0f, 0);
    sc->inst[0].transform[0] = 8.0f, sc->inst[0].transform[5] = 0.2f;
    sc->inst[0].transform[10] = 8.0f;
    sc->s.instance_count = 1;
    rill_test_tmpdir(sc->dir, sizeof(sc->dir), name);
    sc->vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    assert_non_null(sc->vfs);
    assert_int_equal(rill_vfs_mount_dir(sc->vfs, sc->dir, &err), RILL_OK);
    rill_renderer_set_vfs(sc->r, sc->vfs);
    return true;
}

static void scene_close(scene *sc) {
    rill_renderer_set_vfs(sc->r, NULL);
    rill_render_mesh_destroy(sc->r, sc->cube);
    rill_render_material_destroy(sc->r, sc->floor);
    render_test_destroy_clean(sc->r, false);
    rill_vfs_destroy(sc->vfs);
    rill_test_tmpdir_remove(sc->dir);
}

static void scene_render(scene *sc, const rill_render_decal *d, uint32_t n, int frames) {
    sc->s.decals = d;
    sc->s.decal_count = n;
    rill_error err = {0};
    for (int f = 0; f < frames; f++) {
        assert_int_equal(rill_renderer_render(sc->r, &sc->s, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(sc->r, sc->px, sizeof(sc->px), &err), RILL_OK);
}

/* A decal box at (x, -1, z), sx wide and sz deep, 1 m tall, projecting down. */
static rill_render_decal box_decal(float x, float z, float sx, float sz) {
    rill_render_decal d;
    memset(&d, 0, sizeof(d));
    mat4 box;
    glm_mat4_identity(box);
    glm_translate(box, (vec3){x, -1.0f, z});
    glm_scale(box, (vec3){sx, 1.0f, sz});
    memcpy(d.world_from_box, box, sizeof(box));
    memcpy(d.base_color, (float[4]){1, 1, 1, 1}, sizeof(d.base_color));
    d.angle_fade_start = 60, d.angle_fade_end = 80;
    d.normal_strength = d.roughness_strength = 1.0f;
    return d;
}

/* The screen rectangle (pixels x0, y0, x1, y1) of the box part [lo, hi] (box space). */
static void box_rect(const scene *sc, const rill_render_decal *d, const float lo[3],
                     const float hi[3], float out[4]) {
    mat4 box, vp;
    memcpy(box, d->world_from_box, sizeof(box));
    memcpy(vp, sc->vp, sizeof(vp));
    out[0] = W, out[1] = H, out[2] = 0, out[3] = 0;
    for (int c = 0; c < 8; c++) {
        vec4 corner = {c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2], 1}, w,
             cl;
        glm_mat4_mulv(box, corner, w);
        glm_mat4_mulv(vp, w, cl);
        float sx = (cl[0] / cl[3] * 0.5f + 0.5f) * W, sy = (0.5f - cl[1] / cl[3] * 0.5f) * H;
        out[0] = fminf(out[0], sx), out[2] = fmaxf(out[2], sx);
        out[1] = fminf(out[1], sy), out[3] = fmaxf(out[3], sy);
    }
}

static const float whole_lo[3] = {-0.5f, -0.5f, -0.5f}, whole_hi[3] = {0.5f, 0.5f, 0.5f};

/* Pixels that differ from base; *outside gets those outside every rect (n of them). */
static int changed_pixels(const uint8_t *base, const uint8_t *px, const float (*rects)[4], int n,
                          int *outside) {
    int changed = 0;
    *outside = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            if (memcmp(base + (y * W + x) * 4, px + (y * W + x) * 4, 3) == 0) {
                continue;
            }
            changed++;
            bool in = false;
            for (int i = 0; i < n; i++) {
                const float *r = rects[i];
                in |= x + 1 >= r[0] && x <= r[2] + 1 && y + 1 >= r[1] && y <= r[3] + 1;
            }
            *outside += !in;
        }
    }
    return changed;
}

/* An albedo map opaque green on its left half (box -X) and transparent on its right: only the
 * left half of the box turns greener. */
static void test_albedo_map(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_albedo")) {
        skip();
    }
    write_map(&sc, "paint.png", (uint8_t[4]){0, 255, 0, 255}, (uint8_t[4]){255, 0, 0, 0});
    static uint8_t base[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    rill_render_decal d = box_decal(0, 0, 2.0f, 2.0f);
    d.albedo = "paint.png";
    scene_render(&sc, &d, 1, 3); /* the first frame reads and uploads the map */
    float left[1][4];
    box_rect(&sc, &d, whole_lo, (float[3]){0.0f, 0.5f, 0.5f}, left[0]);
    int outside = 0, changed = changed_pixels(base, sc.px, left, 1, &outside);
    int greener = 0, edge = 0;
    for (int i = 0; i < W * H; i++) {
        bool g = sc.px[i * 4 + 1] > base[i * 4 + 1] + 20 && sc.px[i * 4] < base[i * 4];
        greener += g;
        /* the others lie on the map's alpha edge (bilinear between its halves), box x = 0 */
        edge += !g && memcmp(sc.px + i * 4, base + i * 4, 3) != 0 &&
                fabsf((float)(i % W) + 0.5f - left[0][2]) < 2.0f;
    }
    print_message("albedo map: %d pixels changed (%d greener, %d on the map's edge), %d outside "
                  "the map's opaque half\n",
                  changed, greener, edge, outside);
    assert_true(changed > 100);
    assert_true(greener > changed * 8 / 10);
    assert_int_equal(greener + edge, changed);
    assert_int_equal(outside, 0);
    scene_close(&sc);
}

/* A normal-only decal (base_color alpha 0): a map tilting the normal towards +X changes the
 * shading inside the box only; at normal_strength 0 it changes nothing. */
static void test_normal_map(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_normal")) {
        skip();
    }
    /* tangent space (0.7, 0, 0.71): 0.5 + 0.5 v */
    write_map(&sc, "bump_n.png", (uint8_t[4]){217, 128, 218, 255},
              (uint8_t[4]){217, 128, 218, 255});
    static uint8_t base[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    rill_render_decal d = box_decal(0, 0, 2.0f, 2.0f);
    d.base_color[3] = 0.0f;
    d.normal = "bump_n.png";
    scene_render(&sc, &d, 1, 3);
    float rect[1][4];
    box_rect(&sc, &d, whole_lo, whole_hi, rect[0]);
    int outside = 0, changed = changed_pixels(base, sc.px, rect, 1, &outside);
    print_message("normal map: %d pixels shaded differently, %d outside the box\n", changed,
                  outside);
    assert_true(changed > 100);
    assert_int_equal(outside, 0);
    d.normal_strength = 0.0f;
    scene_render(&sc, &d, 1, 1);
    assert_memory_equal(sc.px, base, sizeof(base));
    scene_close(&sc);
}

/* A roughness map (green 255: fully rough) over a glossy floor changes its lighting inside the
 * box only. */
static void test_roughness_map(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_rough")) {
        skip();
    }
    write_map(&sc, "matte_rough.png", (uint8_t[4]){0, 255, 0, 255}, (uint8_t[4]){0, 255, 0, 255});
    static uint8_t base[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    rill_render_decal d = box_decal(0, 0, 2.0f, 2.0f);
    d.base_color[3] = 0.0f;
    d.roughness = "matte_rough.png";
    scene_render(&sc, &d, 1, 3);
    float rect[1][4];
    box_rect(&sc, &d, whole_lo, whole_hi, rect[0]);
    int outside = 0, changed = changed_pixels(base, sc.px, rect, 1, &outside);
    print_message("roughness map: %d pixels changed, %d outside the box\n", changed, outside);
    assert_true(changed > 50);
    assert_int_equal(outside, 0);
    scene_close(&sc);
}

/* A map that does not exist: one warning naming it, and the decal draws its colour exactly as a
 * decal without maps does. A NaN box among good decals is skipped with a warning naming its
 * entity; the others still draw. */
static void test_missing_map_and_nan_box(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_missing")) {
        skip();
    }
    rill_render_decal d[2] = {box_decal(0, 0, 1.5f, 1.5f), box_decal(1, 0, 1, 1)};
    memcpy(d[0].base_color, (float[4]){0.9f, 0.1f, 0.1f, 1}, sizeof(d[0].base_color));
    scene_render(&sc, d, 1, 2);
    static uint8_t plain[W * H * 4];
    memcpy(plain, sc.px, sizeof(plain));
    d[0].albedo = "maps/nope.png";
    rill_test_log log = {0};
    rill_test_log_begin(&log);
    scene_render(&sc, d, 1, 2);
    rill_test_log_end(&log);
    assert_true(log.count[RILL_LOG_WARN] >= 1);
    print_message("missing map: %s\n", log.last_msg);
    assert_non_null(strstr(log.last_msg, "maps/nope.png"));
    assert_memory_equal(sc.px, plain, sizeof(plain));

    d[1].world_from_box[5] = NAN;
    d[1].entity = RILL_ENTITY_MAKE(7, 0);
    rill_test_log_begin(&log);
    scene_render(&sc, d, 2, 1);
    rill_test_log_end(&log);
    assert_non_null(strstr(log.last_msg, "7:0"));
    assert_memory_equal(sc.px, plain, sizeof(plain));
    scene_close(&sc);
}

/* Angle fade: the box turned 45 degrees about X sees the floor at 45 degrees from its +Y. A fade
 * from 60 to 80 degrees paints fully, one from 30 to 60 partly (between the floor and the full
 * paint), one from 10 to 20 not at all (the frame without the decal). */
static void test_angle_fade(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_fade")) {
        skip();
    }
    static uint8_t base[W * H * 4], full[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    rill_render_decal d = box_decal(0, 0, 1.0f, 1.0f); /* a cube: its +Y turns a true 45 */
    memcpy(d.base_color, (float[4]){0.1f, 0.9f, 0.1f, 1}, sizeof(d.base_color));
    mat4 box;
    memcpy(box, d.world_from_box, sizeof(box));
    glm_rotate_x(box, 0.785398f, box);
    memcpy(d.world_from_box, box, sizeof(box));
    scene_render(&sc, &d, 1, 1);
    memcpy(full, sc.px, sizeof(full));
    d.angle_fade_start = 30, d.angle_fade_end = 60;
    scene_render(&sc, &d, 1, 1);
    int partial = 0, painted = 0;
    for (int i = 0; i < W * H; i++) {
        int g0 = base[i * 4 + 1], g1 = sc.px[i * 4 + 1], g2 = full[i * 4 + 1];
        painted += g2 > g0 + 20;
        partial += g2 > g0 + 20 && g1 > g0 + 5 && g1 < g2 - 5;
    }
    print_message("angle fade: %d pixels painted at full, %d of them partly at 30..60\n", painted,
                  partial);
    assert_true(painted > 50);
    assert_true(partial > painted * 9 / 10);
    d.angle_fade_start = 10, d.angle_fade_end = 20;
    scene_render(&sc, &d, 1, 1);
    assert_memory_equal(sc.px, base, sizeof(base));
    scene_close(&sc);
}

/* 60 small decals in a grid over the floor (many tiles, several decals per tile): every changed
 * pixel lies inside some decal's box, and most boxes paint. */
static void test_many_decals_binned(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_many")) {
        skip();
    }
    static uint8_t base[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    enum { N = 60 };
    static rill_render_decal d[N];
    static float rects[N][4];
    for (int i = 0; i < N; i++) {
        d[i] = box_decal((float)(i % 10) * 0.6f - 2.7f, (float)(i / 10) * 0.6f - 1.5f, 0.3f, 0.3f);
        memcpy(d[i].base_color, (float[4]){0.1f, 0.2f, 0.9f, 1}, sizeof(d[i].base_color));
        box_rect(&sc, &d[i], whole_lo, whole_hi, rects[i]);
    }
    scene_render(&sc, d, N, 1);
    assert_true(rill_render_effect_count(sc.r) > 0);
    int outside = 0, changed = changed_pixels(base, sc.px, (const float(*)[4])rects, N, &outside);
    print_message("%d decals: %d pixels painted, %d outside every box\n", N, changed, outside);
    assert_true(changed > 200);
    assert_int_equal(outside, 0);
    scene_close(&sc);
}

/* Pillars standing on the floor (near surfaces in tiles with far floor), decals of several heights
 * over floor and pillar tops, a far one whose screen rectangle meets the pillars' tiles, and a box
 * the camera stands in (its depth range starts at 0): with the tiles' depth test on, the picture is
 * the one drawn with it off, pixel for pixel, and the decals paint. */
static void test_depth_cull_keeps_picture(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_depth_cull")) {
        skip();
    }
    render_test_place(&sc.inst[1], 2, sc.cube, sc.floor, (float[3]){0.8f, -0.4f, 0.6f}, 1.0f, 0.4f);
    sc.inst[1].transform[0] = 0.6f, sc.inst[1].transform[10] = 0.6f, sc.inst[1].transform[5] = 1.2f;
    render_test_place(&sc.inst[2], 3, sc.cube, sc.floor, (float[3]){-1.2f, -0.7f, 1.4f}, 0.6f, 0);
    sc.s.instance_count = 3;
    static uint8_t base[W * H * 4], off[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    enum { N = 7 };
    rill_render_decal d[N] = {
        box_decal(0.8f, 0.6f, 1.4f, 1.4f),   box_decal(-1.2f, 1.4f, 0.9f, 0.9f),
        box_decal(0.6f, -2.5f, 1.5f, 1.0f),  box_decal(-0.5f, 0.0f, 0.8f, 3.0f),
        box_decal(1.8f, -0.5f, 0.5f, 0.5f),  box_decal(0.0f, 0.0f, 0.4f, 0.4f),
        box_decal(0.0f, 3.0f, 12.0f, 12.0f),
    };
    float heights[N] = {0.5f, 3.0f, 1.0f, 0.4f, 2.0f, 0.1f, 12.0f};
    for (int i = 0; i < N; i++) {
        float *m = d[i].world_from_box;
        m[5] = heights[i], m[13] = -1.0f + (i == 1 ? 0.2f : 0.0f) + (i == 6 ? 4.0f : 0.0f);
        float c[4] = {0.2f + 0.1f * (float)i, 0.9f - 0.1f * (float)i, 0.5f, i == 6 ? 0.15f : 0.7f};
        memcpy(d[i].base_color, c, sizeof(c));
    }
    rill__post_decal_depth_cull(sc.r, false);
    scene_render(&sc, d, N, 2);
    memcpy(off, sc.px, sizeof(off));
    rill__post_decal_depth_cull(sc.r, true);
    scene_render(&sc, d, N, 2);
    int painted = 0, differ = 0;
    for (int i = 0; i < W * H; i++) {
        painted += memcmp(base + i * 4, off + i * 4, 3) != 0;
        differ += memcmp(sc.px + i * 4, off + i * 4, 3) != 0;
    }
    print_message("depth test: %d pixels painted, %d differ with the test on\n", painted, differ);
    assert_true(painted > W * H / 2);
    assert_int_equal(differ, 0);
    scene_close(&sc);
}

/* A blended pane (alpha 0.4) 0.5 m over the floor, a decal box around the pane only (the floor is
 * below it): the pane turns redder inside the box's rectangle and nowhere else; a decal with an
 * albedo map there paints nothing (maps paint opaque surfaces only). */
static void test_transparent_surface(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_transparent")) {
        skip();
    }
    rill_material glass =
        render_test_material(sc.r, (rill_material_desc){.base_color = {0.3f, 0.5f, 0.9f, 0.4f},
                                                        .roughness = 0.5f,
                                                        .alpha_mode = RILL_ALPHA_BLEND});
    render_test_place(&sc.inst[1], 2, sc.cube, glass, (float[3]){0, -0.5f, 0}, 1.0f, 0);
    sc.inst[1].transform[0] = 3.0f, sc.inst[1].transform[5] = 0.05f;
    sc.inst[1].transform[10] = 3.0f;
    sc.s.instance_count = 2;
    static uint8_t base[W * H * 4];
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(base));
    rill_render_decal d = box_decal(0.3f, 0.2f, 1.2f, 1.0f);
    d.world_from_box[5] = 0.3f, d.world_from_box[13] = -0.5f; /* the pane's height only */
    memcpy(d.base_color, (float[4]){1, 0.05f, 0.05f, 1}, sizeof(d.base_color));
    scene_render(&sc, &d, 1, 2);
    float rect[1][4];
    box_rect(&sc, &d, whole_lo, whole_hi, rect[0]);
    int outside = 0, changed = changed_pixels(base, sc.px, rect, 1, &outside);
    int redder = 0;
    for (int i = 0; i < W * H; i++) {
        redder += sc.px[i * 4] > base[i * 4] + 10 && sc.px[i * 4 + 2] < base[i * 4 + 2];
    }
    print_message("glass pane: %d pixels changed (%d redder), %d outside the box\n", changed,
                  redder, outside);
    assert_true(changed > 150);
    assert_true(redder > changed * 9 / 10);
    assert_int_equal(outside, 0);
    /* a map opaque on its left half (box -X) only: the pane turns redder there and nowhere else */
    write_map(&sc, "mask.png", (uint8_t[4]){255, 255, 255, 255}, (uint8_t[4]){255, 255, 255, 0});
    d.albedo = "mask.png";
    scene_render(&sc, &d, 1, 3); /* the first frame reads and uploads the map */
    int all = changed;
    box_rect(&sc, &d, whole_lo, (float[3]){0.0f, 0.5f, 0.5f}, rect[0]);
    changed = changed_pixels(base, sc.px, rect, 1, &outside);
    redder = 0;
    for (int i = 0; i < W * H; i++) {
        redder += sc.px[i * 4] > base[i * 4] + 10 && sc.px[i * 4 + 2] < base[i * 4 + 2];
    }
    print_message("glass pane, decal with a half-opaque map: %d pixels changed (%d redder), %d "
                  "outside the map's opaque half\n",
                  changed, redder, outside);
    assert_true(changed > all / 4 && changed < all * 3 / 4);
    assert_true(redder > changed * 8 / 10);
    assert_int_equal(outside, 0);
    rill_render_material_destroy(sc.r, glass);
    scene_close(&sc);
}

/* A map that is not an image (a truncated PNG header) is warned about once, naming the decal's
 * entity and the file, and the decal draws as if it had no map. */
static void test_broken_map(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_broken")) {
        skip();
    }
    rill_render_decal d = box_decal(0, 0, 1.5f, 1.5f);
    memcpy(d.base_color, (float[4]){0.1f, 0.1f, 0.9f, 1}, sizeof(d.base_color));
    d.entity = RILL_ENTITY_MAKE(9, 2);
    scene_render(&sc, &d, 1, 2);
    static uint8_t plain[W * H * 4];
    memcpy(plain, sc.px, sizeof(plain));
    char path[700];
    snprintf(path, sizeof(path), "%s/broken.png", sc.dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("\x89PNG\r\n\x1a\nnot really", 1, 18, f);
    fclose(f);
    d.albedo = "broken.png";
    rill_test_log log = {0};
    rill_test_log_begin(&log);
    scene_render(&sc, &d, 1, 3);
    rill_test_log_end(&log);
    print_message("broken map: %s\n", log.last_msg);
    assert_int_equal(log.count[RILL_LOG_WARN], 1);
    assert_non_null(strstr(log.last_msg, "broken.png"));
    assert_non_null(strstr(log.last_msg, "9:2"));
    assert_memory_equal(sc.px, plain, sizeof(plain));
    scene_close(&sc);
}

/* A size x size PNG of one colour under the scene's folder. */
static void write_solid_map(scene *sc, const char *name, uint32_t size, const uint8_t rgba[4]) {
    uint8_t *px = malloc((size_t)size * size * 4);
    assert_non_null(px);
    for (uint32_t i = 0; i < size * size; i++) {
        memcpy(px + i * 4, rgba, 4);
    }
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", sc->dir, name);
    rill_error err = {0};
    assert_int_equal(rill_image_write_png(path, px, (int)size, (int)size, 4, &err), RILL_OK);
    free(px);
}

/* An atlas kept to four layers (as on a device where it could not grow) holds four 1024 x 1024
 * maps (one a layer): a fifth in view at once is warned about (naming it, its size and the atlas)
 * and its decal draws without it; once the others leave the view, it takes one of their cells
 * and paints. */
static void test_atlas_full(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_atlas_full")) {
        skip();
    }
    rill__post_decal_atlas_limit(sc.r, 4);
    rill_render_decal d[5];
    static const char *const names[5] = {"big0.png", "big1.png", "big2.png", "big3.png",
                                         "big4.png"};
    for (int i = 0; i < 5; i++) {
        write_solid_map(&sc, names[i], 1024, (uint8_t[4]){40, 200, 40, 255});
        d[i] = box_decal(-1.6f + 0.8f * (float)i, 0, 0.7f, 0.7f);
        d[i].entity = RILL_ENTITY_MAKE(20 + i, 0);
    }
    /* the last decal alone without its map: the picture a failed map leaves */
    scene_render(&sc, &d[4], 1, 2);
    static uint8_t plain[W * H * 4];
    memcpy(plain, sc.px, sizeof(plain));
    for (int i = 0; i < 5; i++) {
        d[i].albedo = names[i];
    }
    rill_test_log log = {0};
    rill_test_log_begin(&log);
    scene_render(&sc, d, 5, 3);
    rill_test_log_end(&log);
    print_message("atlas full: %s\n", log.last_msg);
    assert_int_equal(log.count[RILL_LOG_WARN], 1);
    assert_non_null(strstr(log.last_msg, "big4.png"));
    assert_non_null(strstr(log.last_msg, "1024 x 1024"));
    assert_non_null(strstr(log.last_msg, "atlas"));
    assert_non_null(strstr(log.last_msg, "24:0"));
    rill_test_log_begin(&log);
    scene_render(&sc, &d[4], 1, 3);
    rill_test_log_end(&log);
    assert_int_equal(log.count[RILL_LOG_WARN], 0);
    float rect[1][4];
    box_rect(&sc, &d[4], whole_lo, whole_hi, rect[0]);
    int outside = 0, changed = changed_pixels(plain, sc.px, rect, 1, &outside);
    print_message("atlas full: alone, the fifth map paints %d pixels differently, %d outside\n",
                  changed, outside);
    assert_true(changed > 20);
    assert_int_equal(outside, 0);
    scene_close(&sc);
}

/* More map than the atlas starts with: four 1024 x 1024 maps fill its four layers, and a fifth in
 * view with them makes it grow (the first four copied into the new atlas): on an unlit floor
 * drawn without tone mapping every decal then paints exactly its own map's colour, with no
 * warning. */
static void test_atlas_grows(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_atlas_grows")) {
        skip();
    }
    rill_render_material_destroy(sc.r, sc.floor);
    sc.floor = render_test_material(
        sc.r, (rill_material_desc){.base_color = {0.2f, 0.2f, 0.2f, 1}, .unlit = true});
    sc.inst[0].material = sc.floor;
    sc.s.view.tonemapper = RILL_TONEMAP_NONE;
    static const uint8_t colors[5][4] = {{230, 30, 30, 255},
                                         {30, 230, 30, 255},
                                         {30, 30, 230, 255},
                                         {230, 230, 30, 255},
                                         {30, 230, 230, 255}};
    rill_render_decal d[5];
    char names[5][16];
    for (int i = 0; i < 5; i++) {
        snprintf(names[i], sizeof(names[i]), "grow%d.png", i);
        write_solid_map(&sc, names[i], 1024, colors[i]);
        d[i] = box_decal(-1.6f + 0.8f * (float)i, 0, 0.7f, 0.7f);
        d[i].albedo = names[i];
    }
    rill_test_log log = {0};
    rill_test_log_begin(&log);
    scene_render(&sc, d, 4, 3); /* the four fill the atlas */
    scene_render(&sc, d, 5, 3); /* the fifth grows it */
    rill_test_log_end(&log);
    assert_int_equal(log.count[RILL_LOG_WARN], 0);
    for (int i = 0; i < 5; i++) {
        float rect[4]; /* where the box meets the floor, inside its edges */
        box_rect(&sc, &d[i], (float[3]){-0.4f, 0, -0.4f}, (float[3]){0.4f, 0, 0.4f}, rect);
        int painted = 0, wrong = 0;
        for (int y = (int)fmaxf(rect[1], 0); y <= (int)rect[3] && y < H; y++) {
            for (int x = (int)fmaxf(rect[0], 0); x <= (int)rect[2] && x < W; x++) {
                const uint8_t *p = sc.px + (y * W + x) * 4;
                bool floor = abs(p[0] - p[1]) < 3 && abs(p[1] - p[2]) < 3;
                if (floor) {
                    continue;
                }
                painted++;
                for (int c = 0; c < 3; c++) {
                    wrong += abs(p[c] - colors[i][c]) > 2;
                }
            }
        }
        print_message("atlas grown: decal %d paints %d pixels, %d channels off its map's colour\n",
                      i, painted, wrong);
        assert_true(painted > 20);
        assert_int_equal(wrong, 0);
    }
    scene_close(&sc);
}

/* Whether the renderer holds the map `name` in an atlas cell. */
static bool map_placed(const scene *sc, const char *name) {
    for (uint32_t i = 0; i < POST_MAX_DECAL_MAPS; i++) {
        const rill__post_decal_map *m = &sc->r->post->maps[i];
        if (m->path && strcmp(m->path, name) == 0 && m->placed) {
            return true;
        }
    }
    return false;
}

/* Maps out of view are dropped only when that frees a cell the new map fits: in an atlas kept to
 * one layer holding three 512 x 512 maps, two of them out of view, a 1024 x 1024 map beside the
 * one in view finds no room (warned) and the two stay; once it is alone in view, all three are
 * dropped for it. */
static void test_atlas_drops_only_what_frees_room(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_atlas_drops")) {
        skip();
    }
    rill__post_decal_atlas_limit(sc.r, 1);
    static const char *const names[4] = {"a.png", "b.png", "c.png", "e.png"};
    rill_render_decal d[4];
    for (int i = 0; i < 4; i++) {
        write_solid_map(&sc, names[i], i < 3 ? 512 : 1024, (uint8_t[4]){40, 200, 40, 255});
        d[i] = box_decal(-1.2f + 0.8f * (float)i, 0, 0.7f, 0.7f);
        d[i].albedo = names[i];
        d[i].entity = RILL_ENTITY_MAKE(30 + i, 0);
    }
    scene_render(&sc, &d[0], 2, 3); /* a and b */
    scene_render(&sc, &d[2], 1, 3); /* c: a and b out of view */
    assert_true(map_placed(&sc, "a.png") && map_placed(&sc, "b.png") && map_placed(&sc, "c.png"));
    rill_test_log log = {0};
    rill_test_log_begin(&log);
    scene_render(&sc, &d[2], 2, 3); /* c and e: no 1024 cell without c */
    rill_test_log_end(&log);
    print_message("atlas of one layer: %s\n", log.last_msg);
    assert_int_equal(log.count[RILL_LOG_WARN], 1);
    assert_non_null(strstr(log.last_msg, "e.png"));
    assert_non_null(strstr(log.last_msg, "33:0"));
    assert_true(map_placed(&sc, "a.png") && map_placed(&sc, "b.png"));
    assert_false(map_placed(&sc, "e.png"));
    scene_render(&sc, &d[3], 1, 3); /* e alone */
    assert_true(map_placed(&sc, "e.png"));
    assert_false(map_placed(&sc, "a.png") || map_placed(&sc, "b.png") || map_placed(&sc, "c.png"));
    scene_close(&sc);
}

/* A size x size PNG checker of single texels, red and green, under the scene's folder. */
static void write_checker(scene *sc, const char *name, uint32_t size) {
    uint8_t *px = malloc((size_t)size * size * 4);
    assert_non_null(px);
    for (uint32_t i = 0; i < size * size; i++) {
        bool red = ((i % size) + (i / size)) % 2 == 0;
        memcpy(px + i * 4, red ? (uint8_t[4]){255, 0, 0, 255} : (uint8_t[4]){0, 255, 0, 255}, 4);
    }
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", sc->dir, name);
    rill_error err = {0};
    assert_int_equal(rill_image_write_png(path, px, (int)size, (int)size, 4, &err), RILL_OK);
    free(px);
}

/* An sRGB-encoded byte in linear light. */
static float linear_of(uint8_t c) {
    float v = (float)c / 255.0f;
    return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f);
}

/* Albedo maps are filtered in linear light, as sampling the map's own sRGB texture does: on an
 * unlit floor drawn without tone mapping (a pixel is its surface's albedo, sRGB-encoded), two
 * checkers of single red and green texels, one magnified (texels blend bilinearly at level 0) and
 * one minified (levels where the squares have blended), paint pixels whose red and green add up
 * to 1 in linear light, and the minified one (0.5, 0.5). Filtering the encoded bytes instead
 * gives less (halfway between a red and a green texel 0.21 + 0.21). */
static void test_albedo_linear_filtering(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_linear")) {
        skip();
    }
    rill_render_material_destroy(sc.r, sc.floor);
    sc.floor = render_test_material(
        sc.r, (rill_material_desc){.base_color = {0.2f, 0.2f, 0.6f, 1}, .unlit = true});
    sc.inst[0].material = sc.floor;
    sc.s.view.tonemapper = RILL_TONEMAP_NONE;
    write_checker(&sc, "near.png", 16);
    write_checker(&sc, "far.png", 512);
    /* an unlit blended pane (alpha 1) behind them: its own fragments walk the decals */
    rill_material pane =
        render_test_material(sc.r, (rill_material_desc){.base_color = {0.2f, 0.2f, 0.6f, 1},
                                                        .unlit = true,
                                                        .alpha_mode = RILL_ALPHA_BLEND});
    render_test_place(&sc.inst[1], 2, sc.cube, pane, (float[3]){0, -0.5f, -2.5f}, 1.0f, 0);
    sc.inst[1].transform[0] = 2.4f, sc.inst[1].transform[5] = 0.05f;
    sc.inst[1].transform[10] = 2.4f;
    sc.s.instance_count = 2;
    rill_render_decal d[3] = {box_decal(-1.0f, 0.5f, 1.8f, 1.8f), box_decal(1.0f, 0.5f, 1.8f, 1.8f),
                              box_decal(0, -2.5f, 1.8f, 1.8f)};
    d[2].world_from_box[5] = 0.3f, d[2].world_from_box[13] = -0.5f; /* the pane only */
    d[0].albedo = "near.png";
    d[1].albedo = "far.png";
    d[2].albedo = "near.png";
    scene_render(&sc, d, 3, 3);
    static const char *const what[3] = {"magnified", "minified", "pane, magnified"};
    for (int i = 0; i < 3; i++) {
        float rect[4];
        box_rect(&sc, &d[i], whole_lo, whole_hi, rect);
        int painted = 0, blended = 0;
        float worst_sum = 0.0f, worst_mean = 0.0f;
        for (int y = (int)rect[1]; y <= (int)rect[3] && y < H; y++) {
            for (int x = (int)rect[0]; x <= (int)rect[2] && x < W; x++) {
                const uint8_t *p = sc.px + (y * W + x) * 4;
                if (y < 0 || x < 0 || p[2] != 0) {
                    continue; /* the floor's and the pane's blue: not painted */
                }
                float r = linear_of(p[0]), g = linear_of(p[1]);
                painted++;
                blended += r > 0.15f && g > 0.15f;
                worst_sum = fmaxf(worst_sum, fabsf(r + g - 1.0f));
                worst_mean = fmaxf(worst_mean, fmaxf(fabsf(r - 0.5f), fabsf(g - 0.5f)));
            }
        }
        print_message("%s checker: %d pixels painted, %d blend red and green; red + green off 1 "
                      "by at most %.3f, (r, g) off (0.5, 0.5) by at most %.3f\n",
                      what[i], painted, blended, worst_sum, worst_mean);
        assert_true(painted > 100);
        assert_true(blended > painted / 4);
        assert_true(worst_sum < 0.03f);
        if (i == 1) {
            assert_true(worst_mean < 0.03f);
        }
    }
    rill_render_material_destroy(sc.r, pane);
    scene_close(&sc);
}

/* What a render texture's camera drew: its final image copied into a buffer by an effect that
 * runs last for cameras drawing into a texture (grab_target). */
typedef struct target_grab {
    rill__buf *buf;
    rill_rg_image img;
    int grabbed;
} target_grab;

static void grab_exec(rill_rg_ctx *ctx, void *user) {
    target_grab *g = user;
    rill__cmd_copy_image_to_buffer(ctx->cmd, rill__ctx_img(ctx, g->img), g->buf);
    rill__cmd_host_read_barrier(ctx->cmd);
    g->grabbed++;
}

static rill_result grab_target(rill_render_effect_ctx *ctx, rill_error *err) {
    target_grab *g = ctx->user;
    if (!ctx->view->target) {
        return RILL_OK;
    }
    rill_rg *graph = ctx->graph;
    rill_rg_buffer b =
        rill_rg_import_buffer(graph, "grab", g->buf, RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, err);
    rill_rg_pass p = rill_rg_add_pass(
        graph,
        &(rill_rg_pass_desc){.label = "grab", .exec = grab_exec, .user = g, .side_effect = true},
        err);
    g->img = ctx->color;
    RILL_TRY(rill_rg_use_buffer(graph, p, b, RILL_RG_USAGE_TRANSFER_DST, err));
    return rill_rg_use_image(graph, p, ctx->color, RILL_RG_USAGE_TRANSFER_SRC, err);
}

static bool always(const rill_render_effect_ctx *ctx) {
    (void)ctx;
    return true;
}

/* A view of the scene from eye (towards the floor's middle) in viewport vp (NULL: all of it). */
static rill_render_view view_from(const scene *sc, const float eye[3], const float vp[4]) {
    rill_render_view v = sc->s.view;
    mat4 wfv;
    render_test_look_at(wfv, eye, (float[3]){0, -1, 0});
    memcpy(v.world_from_view, wfv, sizeof(wfv));
    memset(v.viewport, 0, sizeof(v.viewport));
    if (vp) {
        memcpy(v.viewport, vp, sizeof(v.viewport));
    }
    return v;
}

/* Renders the scene's decals through these views (frames frames) into sc->px. */
static void render_views(scene *sc, const rill_render_view *views, uint32_t n,
                         const rill_render_decal *d, uint32_t nd, int frames) {
    sc->s.view = views[0];
    sc->s.views = views;
    sc->s.view_count = n;
    scene_render(sc, d, nd, frames);
    sc->s.views = NULL;
    sc->s.view_count = 0;
}

/* Pixels of rectangle x0..x1 (exclusive) where a and b differ. */
static int differing(const uint8_t *a, const uint8_t *b, int x0, int x1) {
    int n = 0;
    for (int y = 0; y < H; y++) {
        for (int x = x0; x < x1; x++) {
            n += memcmp(a + (y * W + x) * 4, b + (y * W + x) * 4, 3) != 0;
        }
    }
    return n;
}

/* Mapped decals (albedo, normal and roughness maps, over the floor and a glass pane) seen by
 * several cameras at once: in a split screen each half shows them exactly as a render of that
 * camera alone in the same rectangle, and a camera drawing into a render texture beside the
 * main camera draws exactly what it draws alone on the output; the maps are first read while
 * both cameras see them (one atlas, one copy each, shared by the cameras). */
static void test_decals_two_cameras(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_cameras")) {
        skip();
    }
    rill_material glass =
        render_test_material(sc.r, (rill_material_desc){.base_color = {0.3f, 0.5f, 0.9f, 0.4f},
                                                        .roughness = 0.5f,
                                                        .alpha_mode = RILL_ALPHA_BLEND});
    render_test_place(&sc.inst[1], 2, sc.cube, glass, (float[3]){0.8f, -0.5f, 0}, 1.0f, 0);
    sc.inst[1].transform[0] = 1.5f, sc.inst[1].transform[5] = 0.05f;
    sc.inst[1].transform[10] = 1.5f;
    sc.s.instance_count = 2;
    write_map(&sc, "paint.png", (uint8_t[4]){40, 220, 40, 255}, (uint8_t[4]){220, 40, 200, 160});
    write_map(&sc, "bump.png", (uint8_t[4]){200, 128, 230, 255}, (uint8_t[4]){90, 170, 230, 255});
    write_map(&sc, "rough.png", (uint8_t[4]){0, 20, 0, 255}, (uint8_t[4]){0, 240, 0, 255});
    rill_render_decal d[2] = {box_decal(-0.6f, 0, 1.6f, 1.6f), box_decal(0.8f, 0.1f, 1.4f, 1.2f)};
    d[0].albedo = "paint.png", d[0].normal = "bump.png", d[0].roughness = "rough.png";
    d[1].world_from_box[5] = 1.2f, d[1].world_from_box[13] = -0.7f; /* the pane and the floor */
    d[1].albedo = "paint.png", d[1].normal = "bump.png";
    const float eye_a[3] = {0, 3, 4}, eye_b[3] = {-2.5f, 2.5f, 2.5f};
    const float left[4] = {0, 0, 0.5f, 1}, right[4] = {0.5f, 0, 0.5f, 1};
    static uint8_t split[W * H * 4], alone[W * H * 4], main_px[W * H * 4];
    rill_render_view views[2] = {view_from(&sc, eye_a, left), view_from(&sc, eye_b, right)};
    render_views(&sc, views, 2, d, 2, 3); /* the maps are read with both cameras in view */
    memcpy(split, sc.px, sizeof(split));
    render_views(&sc, &views[0], 1, d, 2, 2);
    memcpy(alone, sc.px, sizeof(alone));
    int da = differing(split, alone, 0, W / 2);
    render_views(&sc, &views[1], 1, d, 2, 2);
    int db = differing(split, sc.px, W / 2, W);
    /* the decals show in both halves (against the floor without them) */
    static uint8_t bare[W * H * 4];
    render_views(&sc, views, 2, NULL, 0, 2);
    memcpy(bare, sc.px, sizeof(bare));
    int pa = differing(split, bare, 0, W / 2), pb = differing(split, bare, W / 2, W);
    print_message("split screen: decals paint %d and %d pixels; %d and %d differ from each camera "
                  "drawn alone\n",
                  pa, pb, da, db);
    assert_true(pa > 200 && pb > 200);
    assert_int_equal(da, 0);
    assert_int_equal(db, 0);

    /* a render texture's camera (eye b) beside the main camera (eye a) */
    rill_error err = {0};
    target_grab g = {0};
    g.buf = rill__buf_create(sc.r->gpu, (uint64_t)W * H * 4, RILL__BUF_TRANSFER_DST, true,
                             "decal test grab", &err);
    assert_non_null(g.buf);
    rill_render_effect_desc fx = {.id = "decal_test_grab",
                                  .phase = RILL_RENDER_PHASE_OVERLAY,
                                  .order = 1000,
                                  .active = always,
                                  .add = grab_target,
                                  .user = &g};
    uint32_t handle = rill_render_effect_register(sc.r, &fx, &err);
    assert_true(handle != 0);
    rill_render_view tv[2] = {view_from(&sc, eye_a, NULL), view_from(&sc, eye_b, NULL)};
    tv[1].target = "decal_tv";
    tv[1].target_size[0] = W, tv[1].target_size[1] = H;
    render_views(&sc, tv, 2, d, 2, 4); /* the texture is made, then drawn into */
    memcpy(main_px, sc.px, sizeof(main_px));
    assert_true(g.grabbed > 0);
    static uint8_t target[W * H * 4];
    memcpy(target, rill__buf_map(g.buf), sizeof(target));
    rill_render_effect_unregister(sc.r, handle);
    rill_render_view solo = tv[1]; /* the same camera on the output */
    solo.target = NULL;
    render_views(&sc, &solo, 1, d, 2, 2);
    int dt = differing(target, sc.px, 0, W);
    render_views(&sc, &solo, 1, NULL, 0, 2);
    int painted = differing(target, sc.px, 0, W);
    render_views(&sc, &tv[0], 1, d, 2, 2);
    int dm = differing(main_px, sc.px, 0, W);
    print_message("render texture: decals paint %d pixels; %d differ from its camera drawn alone "
                  "on the output, %d of the main camera's\n",
                  painted, dt, dm);
    assert_true(painted > 400);
    assert_int_equal(dt, 0);
    assert_int_equal(dm, 0);
    rill__buf_destroy(sc.r->gpu, g.buf);
    rill_render_material_destroy(sc.r, glass);
    scene_close(&sc);
}

/* Pixels of columns x0..x1 (exclusive) within 2 of colour c in every channel. */
static int pixels_of(const uint8_t *px, int x0, int x1, const uint8_t c[4]) {
    int n = 0;
    for (int y = 0; y < H; y++) {
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = px + (y * W + x) * 4;
            n += abs(p[0] - c[0]) <= 2 && abs(p[1] - c[1]) <= 2 && abs(p[2] - c[2]) <= 2;
        }
    }
    return n;
}

/* The atlas grows for a map only a second camera sees: a split screen whose left camera sees four
 * 1024 x 1024 maps (filling the atlas) and whose right camera sees a fifth; the right camera's
 * decals are gathered after the frame's graph took the atlas, so it grows at the start of the
 * next frame. Then all five paint their own colours in their halves, with no warning. */
static void test_atlas_grows_second_camera(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, "decal_atlas_grows2")) {
        skip();
    }
    rill_render_material_destroy(sc.r, sc.floor);
    sc.floor = render_test_material(
        sc.r, (rill_material_desc){.base_color = {0.2f, 0.2f, 0.2f, 1}, .unlit = true});
    sc.inst[0].material = sc.floor;
    sc.s.view.tonemapper = RILL_TONEMAP_NONE;
    static const uint8_t colors[5][4] = {{230, 30, 30, 255},
                                         {30, 230, 30, 255},
                                         {30, 30, 230, 255},
                                         {230, 230, 30, 255},
                                         {30, 230, 230, 255}};
    rill_render_decal d[5];
    char names[5][16];
    for (int i = 0; i < 5; i++) {
        snprintf(names[i], sizeof(names[i]), "two%d.png", i);
        write_solid_map(&sc, names[i], 1024, colors[i]);
        d[i] = box_decal(i < 4 ? -0.9f + 0.6f * (float)i : 3.0f, 0, 0.5f, 0.5f);
        d[i].albedo = names[i];
    }
    rill_render_view views[2] = {view_from(&sc, (float[3]){0, 3, 4}, (float[4]){0, 0, 0.5f, 1}),
                                 view_from(&sc, (float[3]){0, 3, 4}, (float[4]){0.5f, 0, 0.5f, 1})};
    mat4 wfv; /* the right camera looks at the fifth decal only */
    render_test_look_at(wfv, (float[3]){3.0f, 3, 4}, (float[3]){3.0f, -1, 0});
    memcpy(views[1].world_from_view, wfv, sizeof(wfv));
    rill_test_log log = {0};
    rill_test_log_begin(&log);
    bool deferred = false; /* a frame ended with the growth left for the next */
    for (int f = 0; f < 4; f++) {
        render_views(&sc, views, 2, d, 5, 1);
        deferred |= sc.r->post->grow_wanted;
    }
    rill_test_log_end(&log);
    assert_true(deferred);
    assert_int_equal(log.count[RILL_LOG_WARN], 0);
    int n[5];
    for (int i = 0; i < 5; i++) {
        n[i] = pixels_of(sc.px, i < 4 ? 0 : W / 2, i < 4 ? W / 2 : W, colors[i]);
    }
    print_message("atlas grown for the second camera: %u layers; the decals paint %d, %d, %d, %d "
                  "(left) and %d (right) pixels of their own colours\n",
                  sc.r->post->atlas_layers, n[0], n[1], n[2], n[3], n[4]);
    assert_int_equal(sc.r->post->atlas_layers, 8);
    for (int i = 0; i < 5; i++) {
        assert_true(n[i] > 15);
    }
    scene_close(&sc);
}

/* Renders, on a fresh renderer, a large decal with map `first` (placed first: the atlas cell at
 * its corner) and green decals of four sizes whose map takes the cell beside it; into px. */
static bool render_neighbours(const char *first, const uint8_t rgba[4], uint8_t *px,
                              float rects[4][4], uint8_t *base) {
    scene sc;
    if (!scene_open(&sc, "decal_bleed")) {
        return false;
    }
    write_solid_map(&sc, first, 16, rgba);
    write_solid_map(&sc, "green.png", 16, (uint8_t[4]){20, 230, 20, 255});
    scene_render(&sc, NULL, 0, 2);
    memcpy(base, sc.px, sizeof(sc.px));
    rill_render_decal d[5];
    d[0] = box_decal(-1.5f, 0, 1.0f, 1.0f);
    d[0].albedo = first;
    static const float sizes[4] = {0.1f, 0.2f, 0.4f, 0.8f};
    for (int i = 0; i < 4; i++) {
        d[1 + i] = box_decal(0.2f + 0.6f * (float)i, -0.5f, sizes[i], sizes[i]);
        d[1 + i].albedo = "green.png";
        box_rect(&sc, &d[1 + i], whole_lo, whole_hi, rects[i]);
    }
    scene_render(&sc, d, 5, 3);
    memcpy(px, sc.px, sizeof(sc.px));
    scene_close(&sc);
    return true;
}

/* Maps share the atlas without bleeding: green decals from small (a few pixels: the map's
 * coarsest levels) to large paint the same pixels whether the map in the cell beside theirs is
 * red or blue. */
static void test_atlas_no_bleed(void **state) {
    (void)state;
    static uint8_t red[W * H * 4], blue[W * H * 4], base[W * H * 4];
    float rects[4][4];
    if (!render_neighbours("red.png", (uint8_t[4]){255, 0, 0, 255}, red, rects, base) ||
        !render_neighbours("blue.png", (uint8_t[4]){0, 0, 255, 255}, blue, rects, base)) {
        skip();
    }
    int painted = 0, differ = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            bool in = false;
            for (int i = 0; i < 4; i++) {
                in |= x + 1 >= rects[i][0] && x <= rects[i][2] + 1 && y + 1 >= rects[i][1] &&
                      y <= rects[i][3] + 1;
            }
            const uint8_t *a = red + (y * W + x) * 4, *b = blue + (y * W + x) * 4;
            painted += in && memcmp(a, base + (y * W + x) * 4, 3) != 0;
            differ += in && memcmp(a, b, 3) != 0;
        }
    }
    print_message("atlas neighbours: %d pixels painted green, %d differ with a blue neighbour\n",
                  painted, differ);
    assert_true(painted > 30);
    assert_int_equal(differ, 0);
}

/* The decal entity's channels: hidden leaves it out of the snapshot, ghost keeps it. */
static void test_decal_channels(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);
    render_test_world_camera(w, NULL);
    rill_entity decal = rill_world_spawn(w);
    rill_component fdc = rill_world_find_component(w, "ForwardDecal");
    rill_render_forward_decal fd;
    rill_type_apply_defaults(rill_world_component_type(w, fdc), &fd);
    assert_float_equal(fd.normal_strength, 1.0f, 0.0);
    assert_float_equal(fd.roughness_strength, 1.0f, 0.0);
    fd.albedo = rill_intern("decals/crack.png");
    assert_non_null(rill_world_add(w, decal, fdc, &fd));
    assert_non_null(rill_world_add(w, decal, b->transform, NULL));
    assert_non_null(rill_world_add(w, decal, b->global_transform, NULL));
    assert_true(rill_channels_set(w, decal, 1ull << 20));
    rill_world_update_transforms(w);
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.decal_count, 1);
    assert_string_equal(s.decals[0].albedo, "decals/crack.png");
    rill_channels_set_mode(w, 1ull << 20, RILL_RENDER_MODE_HIDDEN, 1.0f);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.decal_count, 0);
    rill_channels_set_mode(w, 1ull << 20, RILL_RENDER_MODE_WIREFRAME, 1.0f);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.decal_count, 0);
    rill_channels_set_mode(w, 1ull << 20, RILL_RENDER_MODE_GHOST, 0.5f);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.decal_count, 1);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_albedo_map),
        cmocka_unit_test(test_normal_map),
        cmocka_unit_test(test_roughness_map),
        cmocka_unit_test(test_missing_map_and_nan_box),
        cmocka_unit_test(test_angle_fade),
        cmocka_unit_test(test_many_decals_binned),
        cmocka_unit_test(test_decal_channels),
        cmocka_unit_test(test_depth_cull_keeps_picture),
        cmocka_unit_test(test_transparent_surface),
        cmocka_unit_test(test_broken_map),
        cmocka_unit_test(test_atlas_full),
        cmocka_unit_test(test_atlas_no_bleed),
        cmocka_unit_test(test_albedo_linear_filtering),
        cmocka_unit_test(test_decals_two_cameras),
        cmocka_unit_test(test_atlas_grows),
        cmocka_unit_test(test_atlas_grows_second_camera),
        cmocka_unit_test(test_atlas_drops_only_what_frees_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
