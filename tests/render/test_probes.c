/* Reflection probes (rill/render/reflections.h, ON REFLECTION PROBES) on lavapipe, validation on:
 * a box above the view, which screen-space reflections cannot see, shows on a mirror floor
 * through a probe whose image holds it; a parallax-corrected probe puts a reflected edge where
 * the geometry says (within a pixel or two) and elsewhere than an uncorrected one; a probe whose
 * file is missing is inert and named; the components and their extract; a capture probe shows
 * what is behind the camera, and one face a frame bakes five frames later to the same picture. */
#include "rill/formats/image.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/reflections.h"
#include "rill/scene.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "render_test.h"

#define W 64
#define H 64
#define EW 256 /* equirectangular images the tests write */
#define EH 128

static const float g_eye[3] = {3.0f, 2.5f, 5.0f};
static const float g_at[3] = {0.0f, 0.0f, 0.0f};
static uint32_t g_capture_faces; /* rill_renderer_desc.probe_capture_faces of scene_open */
static uint64_t g_upload_budget; /* rill_renderer_desc.upload_budget_bytes of scene_open */

typedef struct scene {
    rill_renderer *r;
    rill_mesh cube, plane;
    rill_material floor, red;
    rill_render_instance in[2];
    uint32_t n;
    rill_render_snapshot s;
    rill_render_probe probe;
    rill_render_ssr ssr;
    rill_render_routed_settings rs;
    mat4 wfv;
} scene;

/* A path for a test file (RILL_TEST_TMP, else /tmp). */
static void tmp_path(char *out, size_t cap, const char *name) {
    const char *dir = getenv("RILL_TEST_TMP");
    if (dir) {
        mkdir(dir, 0755); /* ctest names it; it may not exist yet */
    }
    snprintf(out, cap, "%s/rill_probe_%ld_%s", dir ? dir : "/tmp", (long)getpid(), name);
}

/* Writes an equirectangular PNG: each texel's colour from its direction (centre column along
 * -Z, top row up; the image-based light's convention). */
static void write_equirect(const char *path, void (*color)(const float d[3], uint8_t rgb[3])) {
    static uint8_t px[EW * EH * 4];
    for (int y = 0; y < EH; y++) {
        for (int x = 0; x < EW; x++) {
            float u = ((float)x + 0.5f) / EW, v = ((float)y + 0.5f) / EH;
            float lon = (u - 0.5f) * 2.0f * (float)M_PI, lat = v * (float)M_PI;
            float d[3] = {sinf(lat) * sinf(lon), cosf(lat), -sinf(lat) * cosf(lon)};
            uint8_t *p = px + (y * EW + x) * 4;
            color(d, p);
            p[3] = 255;
        }
    }
    rill_error err = {0};
    assert_int_equal(rill_image_write_png(path, px, EW, EH, 4, &err), RILL_OK);
}

/* A mirror floor (white metal, roughness 0) seen from g_eye, no sun: what it shows is its
 * environment reflection (or SSR). */
static bool scene_open(scene *sc) {
    memset(sc, 0, sizeof(*sc));
    sc->r = render_test_renderer((rill_renderer_desc){.width = W,
                                                      .height = H,
                                                      .probe_capture_faces = g_capture_faces,
                                                      .upload_budget_bytes = g_upload_budget});
    if (!sc->r) {
        return false;
    }
    rill_error err = {0};
    sc->cube = rill_render_mesh_cube(sc->r, &err);
    sc->plane = rill_render_mesh_plane(sc->r, &err);
    sc->floor = render_test_material(sc->r, (rill_material_desc){.base_color = {1, 1, 1, 1},
                                                                 .metallic = 1.0f,
                                                                 .roughness = 0.0f,
                                                                 .roughness_set = true});
    sc->red = render_test_material(
        sc->r, (rill_material_desc){.base_color = {1, 0, 0, 1}, .emissive = {1, 0, 0}});
    render_test_place(&sc->in[0], 1, sc->plane, sc->floor, (float[3]){0, 0, 0}, 40.0f, 0.0f);
    sc->n = 1;
    render_test_look_at(sc->wfv, g_eye, g_at);
    memcpy(sc->s.view.world_from_view, sc->wfv, sizeof(sc->wfv));
    sc->s.instances = sc->in;
    sc->s.ambient[0] = sc->s.ambient[1] = sc->s.ambient[2] = 0.2f;
    /* The probe: a box 12 x 6 x 12 m around the floor's middle (y -1 .. 5). */
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){0, 2, 0});
    glm_scale(m, (vec3){12, 6, 12});
    memcpy(sc->probe.world_from_probe, m, sizeof(m));
    sc->probe.falloff = 0.1f;
    sc->probe.intensity = 1.0f;
    sc->probe.parallax = RILL_PARALLAX_AUTO;
    sc->ssr = rill_render_ssr_query_defaults();
    sc->rs = (rill_render_routed_settings){"ScreenSpaceReflections", &sc->ssr, sizeof(sc->ssr), 0};
    return true;
}

static void scene_close(scene *sc) {
    rill_render_mesh_destroy(sc->r, sc->cube);
    rill_render_mesh_destroy(sc->r, sc->plane);
    rill_render_material_destroy(sc->r, sc->floor);
    rill_render_material_destroy(sc->r, sc->red);
    render_test_destroy_clean(sc->r, false);
}

/* Renders a few frames (uploads and the probe's bake land in the first ones) and reads them. */
static void scene_render(scene *sc, bool probe, bool ssr, uint8_t *px) {
    sc->s.instance_count = sc->n;
    sc->s.probes = probe ? &sc->probe : NULL;
    sc->s.probe_count = probe ? 1 : 0;
    sc->s.view.settings = ssr ? &sc->rs : NULL;
    sc->s.view.settings_count = ssr ? 1 : 0;
    rill_error err = {0};
    for (int f = 0; f < 4; f++) {
        if (rill_renderer_render(sc->r, &sc->s, &err) != RILL_OK) {
            fail_msg("render: %s", err.msg);
        }
    }
    assert_int_equal(rill_renderer_read_pixels(sc->r, px, W * H * 4, &err), RILL_OK);
    const char *dir = getenv("RILL_TEST_PNG_DIR"); /* to look at the pictures */
    if (dir) {
        static int shot;
        char path[512];
        snprintf(path, sizeof(path), "%s/probe_%d.png", dir, shot++);
        assert_int_equal(rill_renderer_write_png(sc->r, path, &err), RILL_OK);
    }
}

/* The floor point seen through pixel (x, y) and the reflected direction there; false when the
 * pixel sees no floor. */
static bool floor_ray(const scene *sc, int x, int y, float P[3], float R[3]) {
    float t = tanf(0.8f * 0.5f);
    float vx = (((float)x + 0.5f) / W * 2.0f - 1.0f) * t * ((float)W / H);
    float vy = (1.0f - ((float)y + 0.5f) / H * 2.0f) * t;
    float d[3];
    for (int k = 0; k < 3; k++) {
        d[k] = sc->wfv[0][k] * vx + sc->wfv[1][k] * vy - sc->wfv[2][k];
    }
    if (d[1] >= -1e-4f) {
        return false;
    }
    float s = -g_eye[1] / d[1];
    for (int k = 0; k < 3; k++) {
        P[k] = g_eye[k] + d[k] * s;
        R[k] = d[k];
    }
    R[1] = -d[1];
    return true;
}

static int classify(const uint8_t *p) { /* 1 red, -1 blue, 0 neither */
    return p[0] > p[2] + 25 ? 1 : p[2] > p[0] + 25 ? -1 : 0;
}

static void red_blue_halves(const float d[3], uint8_t rgb[3]) {
    rgb[0] = d[0] < 0.0f ? 255 : 0;
    rgb[1] = 0;
    rgb[2] = d[0] < 0.0f ? 0 : 255;
}

/* Auto puts the red/blue edge (the image's x = 0 half-plane seen from the probe's centre) where
 * the reflected rays leave the box on that plane; None where they point along it. */
static void test_parallax_edge(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    char path[512];
    tmp_path(path, sizeof(path), "halves.png");
    write_equirect(path, red_blue_halves);
    sc.probe.source = path;
    static uint8_t autop[W * H * 4], nonep[W * H * 4];
    scene_render(&sc, true, false, autop);
    rill_render_stats st;
    rill_renderer_stats(sc.r, &st);
    assert_int_equal(st.probes_shaded, 1);
    assert_int_equal(st.probe_bakes, 1);
    sc.probe.parallax = RILL_PARALLAX_NONE;
    scene_render(&sc, true, false, nonep);
    int checked = 0, wrong_auto = 0, wrong_none = 0, differ = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float P[3], R[3];
            if (!floor_ray(&sc, x, y, P, R) || fabsf(P[0]) > 4.5f || fabsf(P[2]) > 4.5f) {
                continue; /* not the floor, or near the box's faces where it fades */
            }
            /* Expected colours: None looks along R; Auto toward where R leaves the box
             * (half extents 6, 3, 6 around (0, 2, 0)). */
            float L[3] = {P[0], P[1] - 2.0f, P[2]}, hx[3] = {6, 3, 6}, tmin = 1e30f;
            for (int k = 0; k < 3; k++) {
                if (fabsf(R[k]) > 1e-6f) {
                    float tk = ((R[k] > 0 ? hx[k] : -hx[k]) - L[k]) / R[k];
                    tmin = fminf(tmin, tk);
                }
            }
            int want_auto = L[0] + R[0] * tmin < 0.0f ? 1 : -1;
            int want_none = R[0] < 0.0f ? 1 : -1;
            int ga = classify(autop + (y * W + x) * 4), gn = classify(nonep + (y * W + x) * 4);
            checked++;
            wrong_auto += ga != want_auto;
            wrong_none += gn != want_none;
            differ += ga != gn;
        }
    }
    print_message("floor pixels %d: Auto wrong %d, None wrong %d, Auto != None %d\n", checked,
                  wrong_auto, wrong_none, differ);
    assert_true(checked > 400);
    /* The edge is one line of pixels: a few pixels off along it at most. */
    assert_true(wrong_auto <= checked / 50 + 4);
    assert_true(wrong_none <= checked / 50 + 4);
    assert_true(differ > checked / 10);
    remove(path);
    scene_close(&sc);
}

/* A rough floor reads the prefiltered mips: near the edge it shows both colours blended (the
 * GGX lobe spans the edge), and nowhere black (every mip of every face was written). */
static void test_rough_reads_prefiltered_mips(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    rill_render_material_destroy(sc.r, sc.floor);
    sc.floor = render_test_material(sc.r, (rill_material_desc){.base_color = {1, 1, 1, 1},
                                                               .metallic = 1.0f,
                                                               .roughness = 0.6f,
                                                               .roughness_set = true});
    sc.in[0].material = sc.floor;
    char path[512];
    tmp_path(path, sizeof(path), "halves_rough.png");
    write_equirect(path, red_blue_halves);
    sc.probe.source = path;
    static uint8_t px[W * H * 4];
    scene_render(&sc, true, false, px);
    int floor_px = 0, dark = 0, mixed = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float P[3], R[3];
            if (!floor_ray(&sc, x, y, P, R) || fabsf(P[0]) > 4.5f || fabsf(P[2]) > 4.5f) {
                continue;
            }
            const uint8_t *p = px + (y * W + x) * 4;
            floor_px++;
            dark += p[0] + p[2] < 40;
            mixed += p[0] > 40 && p[2] > 40;
        }
    }
    print_message("rough floor: %d pixels, %d dark, %d showing both colours\n", floor_px, dark,
                  mixed);
    assert_true(floor_px > 400);
    assert_int_equal(dark, 0);
    assert_true(mixed > floor_px / 20);
    remove(path);
    scene_close(&sc);
}

/* The red box's direction seen from the probe's centre (0, 2, 0): box at (0, 6, -4), 2 m wide. */
static bool box_hit(const float o[3], const float d[3]) {
    float lo[3] = {-1, 5, -5}, hi[3] = {1, 7, -3}, t0 = 0.0f, t1 = 1e30f;
    for (int k = 0; k < 3; k++) {
        if (fabsf(d[k]) < 1e-8f) {
            if (o[k] < lo[k] || o[k] > hi[k]) {
                return false;
            }
            continue;
        }
        float a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
        t0 = fmaxf(t0, fminf(a, b));
        t1 = fminf(t1, fmaxf(a, b));
    }
    return t0 <= t1;
}

static void box_seen_from_probe(const float d[3], uint8_t rgb[3]) {
    const float o[3] = {0, 2, 0};
    bool hit = box_hit(o, d);
    rgb[0] = hit ? 255 : 90;
    rgb[1] = hit ? 0 : 90;
    rgb[2] = hit ? 0 : 90;
}

/* The box above the view is off screen: SSR cannot show it, the probe (whose image holds it, as a
 * capture would) does, on the floor pixels whose reflected rays meet it. */
static void test_off_screen_box_through_probe(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    render_test_place(&sc.in[1], 2, sc.cube, sc.red, (float[3]){0, 6, -4}, 2.0f, 0.0f);
    sc.n = 2;
    char path[512];
    tmp_path(path, sizeof(path), "box.png");
    write_equirect(path, box_seen_from_probe);
    sc.probe.source = path;
    static uint8_t ssr_only[W * H * 4], with_probe[W * H * 4];
    scene_render(&sc, false, true, ssr_only);
    scene_render(&sc, true, true, with_probe);
    int red_ssr = 0, red_probe = 0, expected = 0, agree = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float P[3], R[3];
            if (!floor_ray(&sc, x, y, P, R)) {
                continue;
            }
            /* With Auto the probe is read toward where the ray leaves its box; the image says
             * what the box looks like from the centre in that direction. */
            float L[3] = {P[0], P[1] - 2.0f, P[2]}, hx[3] = {6, 3, 6}, tmin = 1e30f;
            for (int k = 0; k < 3; k++) {
                if (fabsf(R[k]) > 1e-6f) {
                    tmin = fminf(tmin, ((R[k] > 0 ? hx[k] : -hx[k]) - L[k]) / R[k]);
                }
            }
            float dir[3] = {L[0] + R[0] * tmin, L[1] + R[1] * tmin, L[2] + R[2] * tmin};
            const float o[3] = {0, 2, 0};
            bool want = box_hit(o, dir) && fabsf(P[0]) < 4.5f && fabsf(P[2]) < 4.5f;
            bool a = classify(ssr_only + (y * W + x) * 4) == 1;
            bool b = classify(with_probe + (y * W + x) * 4) == 1;
            red_ssr += a;
            red_probe += b;
            expected += want;
            agree += want && b;
        }
    }
    print_message("red floor pixels: SSR alone %d, with the probe %d (expected %d, %d agree)\n",
                  red_ssr, red_probe, expected, agree);
    assert_int_equal(red_ssr, 0);
    assert_true(expected >= 20);
    assert_true(agree >= expected * 8 / 10);
    assert_true(red_probe <= expected + expected / 4 + 4);
    remove(path);
    scene_close(&sc);
}

static char g_log[4096];
static void log_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)level;
    (void)module;
    (void)user;
    size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof(g_log) - n, "%s\n", msg);
}

/* A probe whose file is missing: one message naming the file and the entity, the picture is the
 * one without the probe, no validation message (scene_close checks). */
static void test_missing_source_inert(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    static uint8_t none[W * H * 4], missing[W * H * 4];
    scene_render(&sc, false, false, none);
    sc.probe.source = "no/such/probe_sky.hdr";
    sc.probe.entity = RILL_ENTITY_MAKE(7, 1);
    g_log[0] = 0;
    rill_log_set_sink(log_sink, NULL);
    scene_render(&sc, true, false, missing);
    scene_render(&sc, true, false, missing);
    rill_log_set_sink(NULL, NULL);
    print_message("log: %s", g_log);
    assert_non_null(strstr(g_log, "no/such/probe_sky.hdr"));
    assert_non_null(strstr(g_log, "entity 7:1"));
    assert_null(strstr(strstr(g_log, "probe_sky") + 1, "probe_sky.hdr' not")); /* once */
    assert_memory_equal(none, missing, sizeof(none));
    /* A broken file (a PNG cut short): named too, inert too. */
    char path[512];
    tmp_path(path, sizeof(path), "broken.png");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 1, 16, f);
    fclose(f);
    sc.probe.source = path;
    g_log[0] = 0;
    rill_log_set_sink(log_sink, NULL);
    scene_render(&sc, true, false, missing);
    rill_log_set_sink(NULL, NULL);
    assert_non_null(strstr(g_log, "broken.png"));
    assert_memory_equal(none, missing, sizeof(none));
    rill_render_stats st;
    rill_renderer_stats(sc.r, &st);
    assert_int_equal(st.probes_failed, 2);
    assert_int_equal(st.probes_shaded, 0);
    assert_int_equal(st.probe_bakes, 0);
    /* Sources no probe names for 300 frames are let go (a failed one too: named again if a probe
     * asks for it later). */
    sc.s.probes = NULL;
    sc.s.probe_count = 0;
    rill_error err = {0};
    for (int k = 0; k < 302; k++) {
        assert_int_equal(rill_renderer_render(sc.r, &sc.s, &err), RILL_OK);
    }
    rill_renderer_stats(sc.r, &st);
    assert_int_equal(st.probes_failed, 0);
    remove(path);
    scene_close(&sc);
}

/* The components' defaults and their extract from a world. */
static void test_probe_components(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    rill_component lp = rill_world_find_component(w, "LightProbe");
    rill_component src = rill_world_find_component(w, "ReflectionProbeSource");
    rill_component par = rill_world_find_component(w, "ParallaxCorrection");
    assert_true(lp.id && src.id && par.id);
    rill_light_probe l;
    rill_type_apply_defaults(rill_world_component_type(w, lp), &l);
    assert_float_equal(l.falloff, 0.1f, 1e-7);
    rill_parallax_correction pc;
    rill_type_apply_defaults(rill_world_component_type(w, par), &pc);
    assert_int_equal(pc.mode, RILL_PARALLAX_AUTO);
    assert_float_equal(pc.half_extents[1], 1.0f, 0.0);
    const rill_builtins *b = rill_world_builtin(w);
    rill_entity cam = rill_world_spawn(w), pe = rill_world_spawn(w), bare = rill_world_spawn(w);
    rill_camera cc;
    rill_type_apply_defaults(rill_world_component_type(w, b->camera), &cc);
    cc.active = true;
    assert_non_null(rill_world_add(w, cam, b->camera, &cc));
    assert_non_null(rill_world_add(w, cam, b->transform, NULL));
    assert_non_null(rill_world_add(w, cam, b->global_transform, NULL));
    rill_transform t = rill_transform_identity();
    t.translation[1] = 3.0f;
    t.scale[0] = 10.0f;
    assert_non_null(rill_world_add(w, pe, b->transform, &t));
    assert_non_null(rill_world_add(w, pe, b->global_transform, NULL));
    assert_non_null(rill_world_add(w, pe, lp, &l));
    rill_reflection_probe_source s;
    rill_type_apply_defaults(rill_world_component_type(w, src), &s);
    assert_float_equal(s.intensity, 1.0f, 0.0);
    s.source = "sky/lobby.hdr";
    assert_non_null(rill_world_add(w, pe, src, &s));
    pc.mode = RILL_PARALLAX_CUSTOM;
    pc.half_extents[0] = 4.0f;
    assert_non_null(rill_world_add(w, pe, par, &pc));
    assert_non_null(rill_world_add(w, bare, b->transform, NULL));
    assert_non_null(rill_world_add(w, bare, b->global_transform, NULL));
    assert_non_null(rill_world_add(w, bare, lp, &l));
    rill_world_update_transforms(w);
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot snap;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &snap, &err), RILL_OK);
    assert_int_equal(snap.probe_count, 2);
    const rill_render_probe *p0 = snap.probes[0].entity == pe ? &snap.probes[0] : &snap.probes[1];
    const rill_render_probe *p1 = p0 == &snap.probes[0] ? &snap.probes[1] : &snap.probes[0];
    assert_string_equal(p0->source, "sky/lobby.hdr");
    assert_int_equal(p0->parallax, RILL_PARALLAX_CUSTOM);
    assert_float_equal(p0->half_extents[0], 4.0f, 0.0);
    assert_float_equal(p0->world_from_probe[0], 10.0f, 1e-5);
    assert_float_equal(p0->world_from_probe[13], 3.0f, 1e-5);
    assert_null(p1->source); /* no source: inert */
    assert_int_equal(p1->parallax, RILL_PARALLAX_AUTO);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

/* The capture scene on sc: a mirror sphere (floor's material) in front of the camera and a big
 * red cube behind it, and a capturing probe (entity 7); returns the sphere's mesh. */
static rill_mesh capture_scene(scene *sc) {
    rill_mesh sphere = render_test_sphere(sc->r, 32);
    render_test_place(&sc->in[0], 1, sphere, sc->floor, (float[3]){0, 1, 0}, 1.0f, 0.0f);
    render_test_place(&sc->in[1], 2, sc->cube, sc->red, (float[3]){0, 2, 9.5f}, 8.0f, 0.0f);
    sc->n = 2;
    mat4 wfv;
    render_test_look_at(wfv, (float[3]){0, 1, 2.2f}, (float[3]){0, 1, 0});
    memcpy(sc->s.view.world_from_view, wfv, sizeof(wfv));
    sc->probe.capture = true;
    sc->probe.entity = 7;
    return sphere;
}

/* A capture probe (ReflectionProbeSource.capture): the engine renders the scene from the probe's
 * centre; a mirror sphere in front of the camera then shows the red wall behind the camera, which
 * neither the sky's light nor screen-space reflections can give it. Before the capture is ready
 * (and without the probe) the sphere shows the grey ambient light. */
static void test_capture_shows_what_is_behind(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    rill_mesh sphere = capture_scene(&sc);
    static uint8_t none[W * H * 4], captured[W * H * 4];
    scene_render(&sc, false, false, none);
    scene_render(&sc, true, false, captured);
    scene_render(&sc, true, false, captured); /* the targets' upload, the capture, the bake */
    double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    for (int y = H / 2 - 3; y < H / 2 + 3; y++) {
        for (int x = W / 2 - 3; x < W / 2 + 3; x++) {
            for (int k = 0; k < 3; k++) {
                a[k] += none[(y * W + x) * 4 + k] / 36.0;
                b[k] += captured[(y * W + x) * 4 + k] / 36.0;
            }
        }
    }
    print_message(
        "mirror sphere's centre: no probe %.0f %.0f %.0f, captured probe %.0f %.0f %.0f\n", a[0],
        a[1], a[2], b[0], b[1], b[2]);
    assert_true(a[0] < a[2] + 15.0);
    assert_true(b[0] > b[2] + 40.0 && b[0] > a[0] + 40.0);
    rill_render_stats st;
    rill_renderer_stats(sc.r, &st);
    assert_int_equal(st.probe_bakes, 1);
    rill_render_mesh_destroy(sc.r, sphere);
    scene_close(&sc);
}

/* Textures queued after the capture's own render textures (six of 512 x 512 RGBA8, 1 MiB each),
 * under a 1 MiB budget: one a frame, so the queue stays long after the capture's targets have
 * uploaded. */
#define BACKLOG_TEXTURES 12
static void queue_backlog(rill_renderer *r) {
    static uint8_t px[512 * 512 * 4];
    rill_error err = {0};
    for (int i = 0; i < BACKLOG_TEXTURES; i++) {
        px[i] = (uint8_t)i;
        rill_texture_desc td = {.pixels = px, .width = 512, .height = 512, .label = "backlog"};
        assert_true(rill_render_texture_create(r, &td, &err).id != 0);
    }
}

/* The capture scene of test_capture_shows_what_is_behind drawn frame by frame with the probe:
 * the frame (1-based) whose bake finished, then the picture three frames later. With backlog,
 * under a 1 MiB upload budget, textures are queued after the first frame; *drained is then the
 * first frame after it whose uploads left none queued. */
static uint32_t capture_frames_with(uint32_t faces, bool backlog, uint8_t *px, uint32_t *drained) {
    g_capture_faces = faces;
    g_upload_budget = backlog ? 1u << 20 : 0;
    scene sc;
    bool opened = scene_open(&sc);
    g_capture_faces = 0;
    g_upload_budget = 0;
    if (!opened) {
        return 0;
    }
    rill_mesh sphere = capture_scene(&sc);
    rill_error err = {0};
    sc.s.instance_count = sc.n;
    sc.s.probes = &sc.probe;
    sc.s.probe_count = 1;
    uint32_t baked_at = 0;
    for (uint32_t f = 1; f <= 64 && !baked_at; f++) {
        assert_int_equal(rill_renderer_render(sc.r, &sc.s, &err), RILL_OK);
        rill_render_stats st;
        rill_renderer_stats(sc.r, &st);
        baked_at = st.probe_bakes ? f : 0;
        if (backlog && f == 1) {
            queue_backlog(sc.r);
        }
        if (backlog && f > 1 && !*drained && st.upload_backlog_bytes == 0) {
            *drained = f;
        }
    }
    for (int f = 0; f < 3; f++) {
        assert_int_equal(rill_renderer_render(sc.r, &sc.s, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(sc.r, px, W * H * 4, &err), RILL_OK);
    rill_render_stats st;
    rill_renderer_stats(sc.r, &st);
    assert_int_equal(st.probe_bakes, 1);
    rill_render_mesh_destroy(sc.r, sphere);
    scene_close(&sc);
    return baked_at;
}

static uint32_t capture_frames(uint32_t faces, uint8_t *px) {
    return capture_frames_with(faces, false, px, NULL);
}

/* A capture spread over frames (rill_renderer_desc.probe_capture_faces, default one face a
 * frame): the bake lands five frames after the one that draws all six faces at once would, and
 * the picture is the same: the sphere's centre shows the red wall behind the camera in both and
 * no pixel differs by more than 2 of 255. */
static void test_capture_over_frames(void **state) {
    (void)state;
    static uint8_t all[W * H * 4], spread[W * H * 4];
    uint32_t at_all = capture_frames(6, all);
    if (!at_all) {
        skip();
    }
    uint32_t at_spread = capture_frames(0, spread);
    print_message("capture baked on frame %u (six faces a frame) and %u (one a frame)\n", at_all,
                  at_spread);
    assert_int_equal(at_spread, at_all + 5u);
    int worst = 0;
    double red = 0.0, blue = 0.0;
    for (int i = 0; i < W * H * 4; i++) {
        int d = abs((int)all[i] - (int)spread[i]);
        worst = d > worst ? d : worst;
    }
    for (int y = H / 2 - 3; y < H / 2 + 3; y++) {
        for (int x = W / 2 - 3; x < W / 2 + 3; x++) {
            red += spread[(y * W + x) * 4 + 0] / 36.0;
            blue += spread[(y * W + x) * 4 + 2] / 36.0;
        }
    }
    print_message("largest difference %d; spread capture's sphere centre red %.0f blue %.0f\n",
                  worst, red, blue);
    assert_true(red > blue + 40.0);
    assert_true(worst <= 2);
}

/* A capture waits for the upload backlog (probe_capture.c): its faces are extra views, kept off
 * the frames that copy the most. Under a small budget with textures queued behind the capture's
 * own targets, the first face is drawn on the first frame whose uploads left none queued and the
 * bake lands five frames later; the picture is the one without the backlog. */
static void test_capture_waits_for_uploads(void **state) {
    (void)state;
    static uint8_t plain[W * H * 4], waited[W * H * 4];
    uint32_t at_plain = capture_frames(0, plain);
    if (!at_plain) {
        skip();
    }
    uint32_t drained = 0;
    uint32_t at = capture_frames_with(0, true, waited, &drained);
    print_message("capture baked on frame %u without a backlog; with one drained on frame %u, "
                  "baked on frame %u\n",
                  at_plain, drained, at);
    assert_true(drained > at_plain); /* the queue outlasts a capture that does not wait */
    assert_int_equal(at, drained + 5u);
    int worst = 0;
    for (int i = 0; i < W * H * 4; i++) {
        int d = abs((int)plain[i] - (int)waited[i]);
        worst = d > worst ? d : worst;
    }
    assert_true(worst <= 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_components),
        cmocka_unit_test(test_parallax_edge),
        cmocka_unit_test(test_rough_reads_prefiltered_mips),
        cmocka_unit_test(test_off_screen_box_through_probe),
        cmocka_unit_test(test_missing_source_inert),
        cmocka_unit_test(test_capture_shows_what_is_behind),
        cmocka_unit_test(test_capture_over_frames),
        cmocka_unit_test(test_capture_waits_for_uploads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
