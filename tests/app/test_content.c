/* test_content.c: rill_content, the one set-up path of the tools (rill/app.h, ON PLAYING
 * CONTENT), on a headless lavapipe renderer with validation: a project folder (project.toml: main
 * scene, window size) whose scene names a model in a subfolder and has no light and no camera
 * gets the stated defaults and draws a lit model, not a black frame; the same scene opened as a
 * .rsn finds its project above it; a model with its own light and camera gets no defaults;
 * built-in scenes; texture streaming settings are read without a warning; a terrain's first chunks
 * are on the renderer when the load returns (the first snapshot uploads none); bad inputs fail
 * naming the input; a model with a light and a camera exported with LOD levels still has one of
 * each in the world and draws the loose project's picture; a Model entity without a Transform is
 * framed by the default camera as one with `Transform {}`; a given root (desc.root) is the
 * project folder the input is found in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gltf/gltf_test_models.h"
#include "image_psnr.h"
#include "render/model_gen.h"
#include "rill/app.h"
#include "rill/formats/export.h"
#include "rill/render.h"
#include "rill/terrain.h"
#include "rill_test.h"

static rill_renderer *make_renderer(rill_content *c) {
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    if (c) {
        rill_content_renderer_desc(c, &d);
    }
    d.validation = 1;
    d.quality = RILL_RENDER_QUALITY_LOW;
    rill_renderer *r = NULL;
    rill_error err = {0};
    if (!(r = rill_renderer_create(&d, &err))) {
        fail_msg("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s", err.msg);
    }
    return r;
}

static const char SCENE_NO_LIGHT[] = "rsn 1\n"
                                     "entity 1 \"Box\" {\n"
                                     "    Transform { translation: (0, 0, 0) }\n"
                                     "    Model { path: \"models/cube.glb\" }\n"
                                     "}\n";

/* A project: project.toml (64 x 48 window), scenes/world.rsn naming models/cube.glb. */
static void write_project(const char *dir, const char *extra_toml) {
    char toml[512];
    snprintf(toml, sizeof(toml),
             "[project]\nname = \"t\"\nmain_scene = \"scenes/world.rsn\"\n"
             "[window]\nwidth = 64\nheight = 48\n%s",
             extra_toml);
    rill_test_write_file(dir, "project.toml", toml, strlen(toml));
    rill_test_write_file(dir, "scenes/world.rsn", SCENE_NO_LIGHT, strlen(SCENE_NO_LIGHT));
    rill_test_copy_file(RILL_TEST_CUBE_GLB, dir, "models/cube.glb");
}

/* Fraction of pixels that differ clearly from the top-left one (the background). */
static double drawn_fraction(rill_renderer *r) {
    uint32_t w = 0, h = 0;
    rill_renderer_size(r, &w, &h);
    uint8_t *px = malloc((size_t)w * h * 4);
    assert_non_null(px);
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(r, px, (size_t)w * h * 4, &err), RILL_OK);
    uint32_t differ = 0, bright = 0;
    for (uint32_t i = 0; i < w * h; i++) {
        int d = abs(px[i * 4] - px[0]) + abs(px[i * 4 + 1] - px[1]) + abs(px[i * 4 + 2] - px[2]);
        differ += d > 24;
        bright += px[i * 4] + px[i * 4 + 1] + px[i * 4 + 2] > 120;
    }
    free(px);
    assert_true(bright > 0); /* lit, not black */
    return (double)differ / (double)(w * h);
}

static void render_one(rill_content *c, rill_renderer *r) {
    rill_error err = {0};
    rill_render_snapshot snap;
    for (int f = 0; f < 2; f++) {
        rill_app_frame(rill_content_app(c));
        assert_int_equal(rill_content_snapshot(c, &snap, &err), RILL_OK);
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
}

/* The renderer saw no validation message; then the content and the renderer go. */
static void finish_clean(rill_content *c, rill_renderer *r) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
}

static void test_project_defaults(void **state) {
    (void)state;
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "content_project");
    write_project(dir, "");
    rill_error err = {0};
    rill_content *c =
        rill_content_open(&(rill_content_desc){.input = dir, .deterministic = true}, &err);
    assert_non_null(c);
    assert_int_equal(rill_content_get_kind(c), RILL_CONTENT_KIND_PROJECT);
    assert_string_equal(rill_content_scene(c), "scenes/world.rsn");
    assert_int_equal(rill_content_project(c)->window.width, 64);
    assert_string_equal(rill_content_notes(c), "");
    rill_renderer *r = make_renderer(c);
    uint32_t w = 0, h = 0;
    rill_renderer_size(r, &w, &h);
    assert_int_equal(w, 64);
    assert_int_equal(h, 48);
    assert_int_equal(rill_content_load(c, r, &err), RILL_OK);
    assert_int_equal(rill_content_defaults_used(c),
                     RILL_CONTENT_DEFAULT_LIGHT | RILL_CONTENT_DEFAULT_CAMERA);
    assert_non_null(strstr(rill_content_notes(c), "no light"));
    assert_non_null(strstr(rill_content_notes(c), "no active camera"));
    rill_world *world = rill_content_world(c);
    assert_true(rill_world_find_by_name(world, "Default Sun") != RILL_ENTITY_NULL);
    assert_true(rill_world_find_by_name(world, "Default Camera") != RILL_ENTITY_NULL);
    render_one(c, r);
    double drawn = drawn_fraction(r);
    assert_true(drawn > 0.05 && drawn < 0.95); /* the framed cube fills part of the frame */
    finish_clean(c, r);

    /* The scene file itself: its project is found one folder up. */
    char scene[600];
    rill_test_path(scene, sizeof(scene), dir, "scenes/world.rsn");
    c = rill_content_open(&(rill_content_desc){.input = scene, .deterministic = true}, &err);
    assert_non_null(c);
    assert_int_equal(rill_content_get_kind(c), RILL_CONTENT_KIND_SCENE);
    assert_string_equal(rill_content_scene(c), "scenes/world.rsn");
    assert_int_equal(rill_content_project(c)->window.height, 48);
    rill_content_destroy(c);
    rill_test_tmpdir_remove(dir);
}

static void test_model_with_light_and_camera(void **state) {
    (void)state;
    char dir[512], path[600];
    rill_test_tmpdir(dir, sizeof(dir), "content_model");
    rill_error err = {0};
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    assert_int_equal(model_gen_glb(&glb, &glb_size, &err), RILL_OK);
    rill_test_write_file(dir, "robot.glb", glb, glb_size);
    rill_free(glb);
    rill_test_path(path, sizeof(path), dir, "robot.glb");
    rill_content *c =
        rill_content_open(&(rill_content_desc){.input = path, .deterministic = true}, &err);
    assert_non_null(c);
    assert_int_equal(rill_content_get_kind(c), RILL_CONTENT_KIND_MODEL);
    rill_renderer *r = make_renderer(NULL);
    assert_int_equal(rill_content_load(c, r, &err), RILL_OK);
    assert_int_equal(rill_content_defaults_used(c), 0); /* its own point light and camera */
    render_one(c, r);
    rill_content_release(c);
    rill_content_release(c); /* idempotent */
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    rill_test_tmpdir_remove(dir);
}

static void test_builtin(void **state) {
    (void)state;
    rill_error err = {0};
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = "builtin:cubes:4", .deterministic = true}, &err);
    assert_non_null(c);
    rill_renderer *r = make_renderer(NULL);
    assert_int_equal(rill_content_load(c, r, &err), RILL_OK);
    assert_int_equal(rill_content_defaults_used(c), 0);
    rill_render_snapshot snap;
    assert_int_equal(rill_content_snapshot(c, &snap, &err), RILL_OK);
    assert_int_equal(snap.instance_count, 5); /* four cubes and the ground */
    assert_true(snap.has_sun);
    /* What changed since the last snapshot is marked, the built-in instances (appended after
     * extract) too: everything in the first, nothing in a second of the same world. */
    assert_non_null(snap.instance_changed);
    for (uint32_t i = 0; i < snap.instance_count; i++) {
        assert_true(snap.instance_changed[i]);
    }
    uint64_t first = snap.instance_epoch;
    assert_int_equal(rill_content_snapshot(c, &snap, &err), RILL_OK);
    assert_int_equal(snap.instance_count, 5);
    assert_int_equal(snap.instance_changed_since, first);
    assert_non_null(snap.instance_changed);
    for (uint32_t i = 0; i < snap.instance_count; i++) {
        assert_false(snap.instance_changed[i]);
    }
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);

    c = rill_content_open(&(rill_content_desc){.input = "builtin:cubes:0"}, &err);
    assert_non_null(c);
    r = make_renderer(NULL);
    assert_int_not_equal(rill_content_load(c, r, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "cubes:0"));
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
}

/* The cube scene with a 3 x 2 chunk generated terrain under it. */
static const char SCENE_TERRAIN[] = "rsn 1\n"
                                    "entity 1 \"Box\" {\n"
                                    "    Transform { translation: (0, 0, 0) }\n"
                                    "    Model { path: \"models/cube.glb\" }\n"
                                    "}\n"
                                    "entity 2 \"Ground\" {\n"
                                    "    Transform { translation: (-24, -4, -16) }\n"
                                    "    Terrain { chunks_x: 3 chunks_z: 2 chunk_size: 16 "
                                    "resolution: 9 height_scale: 2 }\n"
                                    "}\n";

/* The chunks built before the first frame are uploaded by the load, not by the first snapshot (the
 * boot frame of `rill fly` made ~100 chunk meshes inside its extract). */
static void test_terrain_uploaded_at_load(void **state) {
    (void)state;
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "content_terrain");
    write_project(dir, "");
    rill_test_write_file(dir, "scenes/world.rsn", SCENE_TERRAIN, strlen(SCENE_TERRAIN));
    rill_error err = {0};
    rill_content *c =
        rill_content_open(&(rill_content_desc){.input = dir, .deterministic = true}, &err);
    assert_non_null(c);
    rill_renderer *r = make_renderer(c);
    assert_int_equal(rill_content_load(c, r, &err), RILL_OK);
    rill_terrain_stats ts;
    rill_terrain_get_stats(rill_app_terrain_system(rill_content_terrain(c)), &ts);
    assert_int_equal(ts.resident, 6);
    rill_render_terrain_stats before, after;
    rill_render_terrain_get_stats(rill_content_render_terrain(c), &before);
    assert_int_equal(before.meshes, 6);
    rill_render_snapshot snap;
    assert_int_equal(rill_content_snapshot(c, &snap, &err), RILL_OK);
    rill_render_terrain_get_stats(rill_content_render_terrain(c), &after);
    assert_true(after.uploads == before.uploads);
    assert_int_equal(snap.instance_count, 1 + 6); /* the cube and the chunks */
    render_one(c, r);
    finish_clean(c, r);
    rill_test_tmpdir_remove(dir);
}

/* A lit model with LODs: a 48 x 24 UV sphere (enough triangles for the export to bake 3 levels)
 * as node "ball", a point light on node "lamp" and a camera on node "eye" 4 m in front of it. */
static void write_lit_sphere(const char *dir, const char *rel) {
    rill_gltf_model *sphere = tm_sphere(48, 24);
    rill_gltf_node nodes[3];
    memset(nodes, 0, sizeof(nodes));
    static const char *names[3] = {"ball", "lamp", "eye"};
    static const float at[3][3] = {{0, 0, 0}, {1.5f, 1.5f, 2.0f}, {0, 0, 4.0f}};
    for (int i = 0; i < 3; i++) {
        nodes[i].name = (char *)names[i];
        nodes[i].parent = -1;
        nodes[i].mesh = nodes[i].camera = nodes[i].light = -1;
        memcpy(nodes[i].translation, at[i], sizeof(at[i]));
        nodes[i].rotation[3] = 1.0f;
        nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1.0f;
    }
    nodes[0].mesh = 0;
    nodes[1].light = 0;
    nodes[2].camera = 0;
    rill_gltf_light light = {.name = "bulb",
                             .type = RILL_GLTF_LIGHT_POINT,
                             .intensity = 6.0f,
                             .color = {1.0f, 0.9f, 0.8f},
                             .range = 20.0f};
    rill_gltf_camera cam = {.name = "view",
                            .type = RILL_GLTF_CAMERA_PERSPECTIVE,
                            .yfov = 0.8f,
                            .znear = 0.05f,
                            .zfar = 100.0f};
    int32_t roots[3] = {0, 1, 2};
    rill_gltf_scene scene = {"lit", 3, roots};
    rill_gltf_model m;
    memset(&m, 0, sizeof(m));
    m.mesh_count = sphere->mesh_count, m.meshes = sphere->meshes;
    m.material_count = sphere->material_count, m.materials = sphere->materials;
    m.node_count = 3, m.nodes = nodes;
    m.scene_count = 1, m.scenes = &scene, m.default_scene = 0;
    m.light_count = 1, m.lights = &light;
    m.camera_count = 1, m.cameras = &cam;
    uint8_t *bytes = NULL;
    size_t n = 0;
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(&m, NULL, &bytes, &n, &err), RILL_OK);
    rill_test_write_file(dir, rel, bytes, n);
    rill_free(bytes);
    rill_gltf_model_free(sphere);
}

static uint32_t count_of(rill_world *w, const char *component) {
    return rill_world_component_len(w, rill_world_find_component(w, component));
}

static uint32_t count_named(rill_world *w, const char *name) {
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(w, RILL_COMPONENT_NAME, &ents, &data), named = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *v = ((const rill_name *)data)[i].value;
        named += v && strcmp(v, name) == 0;
    }
    return named;
}

static uint32_t active_cameras(rill_world *w) {
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(w, RILL_COMPONENT_CAMERA, &ents, &data);
    uint32_t active = 0;
    for (uint32_t i = 0; i < n; i++) {
        active += ((const rill_camera *)data)[i].active;
    }
    return active;
}

/* Opens `input` (or the pack), loads and renders it; *out_pixels (malloc'd) gets the picture and
 * *out_levels the levels spawned for the scene's Model entity "Ball". Checks that the world holds
 * one point light and one active camera, whatever the levels. */
static void render_lit(const char *input, const char *pack, uint8_t **out_pixels,
                       uint32_t *out_levels) {
    rill_error err = {0};
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = input, .pack = pack, .deterministic = true}, &err);
    assert_non_null(c);
    rill_renderer *r = make_renderer(c);
    assert_int_equal(rill_content_load(c, r, &err), RILL_OK);
    assert_int_equal(rill_content_defaults_used(c), 0); /* the model's light and camera */
    rill_world *w = rill_content_world(c);
    rill_entity ball = rill_world_find_by_name(w, "Ball");
    assert_true(ball != RILL_ENTITY_NULL);
    *out_levels =
        rill_scene_models_levels(rill_app_models_scene(rill_content_models(c)), ball, NULL);
    assert_int_equal(count_of(w, "PointLight"), 1);
    assert_int_equal(active_cameras(w), 1);
    /* Each level has its sphere node; the light's and the camera's nodes are the base's alone. */
    assert_int_equal(count_named(w, "ball"), *out_levels);
    assert_int_equal(count_named(w, "lamp"), 1);
    assert_int_equal(count_named(w, "eye"), 1);
    render_one(c, r);
    assert_true(drawn_fraction(r) > 0.05);
    uint32_t pw = 0, ph = 0;
    rill_renderer_size(r, &pw, &ph);
    *out_pixels = malloc((size_t)pw * ph * 4);
    assert_non_null(*out_pixels);
    assert_int_equal(rill_renderer_read_pixels(r, *out_pixels, (size_t)pw * ph * 4, &err), RILL_OK);
    finish_clean(c, r);
}

static const char SCENE_LIT[] = "rsn 1\n"
                                "entity 1 \"Ball\" {\n"
                                "    Transform {}\n"
                                "    Model { path: \"models/lit.glb\" }\n"
                                "}\n";

/* Every LOD level's tree used to bring its own copies of the model's light and camera: the pack
 * (3 baked levels) lit the sphere four times over (PSNR 19.9 dB against the loose picture) and
 * rendered four views. Now the levels are geometry only: one light and one camera, and the pack's
 * picture is the loose project's. */
static void test_lod_levels_no_extra_lights_or_cameras(void **state) {
    (void)state;
    char dir[512], proj[600], pack[600];
    rill_test_tmpdir(dir, sizeof(dir), "content_lod_lights");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    const char *toml = "[project]\nname = \"lit\"\nmain_scene = \"scenes/world.rsn\"\n"
                       "[window]\nwidth = 64\nheight = 48\n";
    rill_test_write_file(proj, "project.toml", toml, strlen(toml));
    rill_test_write_file(proj, "scenes/world.rsn", SCENE_LIT, strlen(SCENE_LIT));
    write_lit_sphere(proj, "models/lit.glb");
    uint8_t *loose = NULL, *packed = NULL;
    uint32_t loose_levels = 0, pack_levels = 0;
    render_lit(proj, NULL, &loose, &loose_levels);
    assert_int_equal(loose_levels, 1); /* no levels beside the loose source */

    rill_export_desc ed = {.project_dir = proj, .out_pack = pack, .no_cache = true, .jobs = 1};
    rill_export_result res;
    rill_error err = {0};
    assert_int_equal(rill_export_run(&ed, &res, &err), RILL_OK);
    assert_int_equal(res.counts.failed, 0);
    rill_export_result_free(&res);
    render_lit(NULL, pack, &packed, &pack_levels);
    assert_int_equal(pack_levels, 4); /* the base and 3 baked levels */
    double psnr = rill_test_psnr(loose, packed, 64u * 48u, 0, 3);
    if (psnr < 40.0) {
        fail_msg("the pack's picture differs from the loose project's: PSNR %.1f dB", psnr);
    }
    free(loose);
    free(packed);
    rill_test_tmpdir_remove(dir);
}

/* The cube scene with its Model entity's Transform as `xform` ("" for none). */
static void write_cube_scene(const char *dir, const char *xform) {
    char rsn[256];
    snprintf(rsn, sizeof(rsn),
             "rsn 1\nentity 1 \"Box\" {\n%s    Model { path: \"models/cube.glb\" }\n}\n", xform);
    rill_test_write_file(dir, "scenes/world.rsn", rsn, strlen(rsn));
}

/* Loads the project in dir, renders it; out_xf gets the default camera's Transform, out_lo/hi the
 * content bounds (returns whether there are any), *out_pixels (malloc'd) the picture. */
static bool default_framing(const char *dir, rill_transform *out_xf, float out_lo[3],
                            float out_hi[3], uint8_t **out_pixels) {
    rill_error err = {0};
    rill_content *c =
        rill_content_open(&(rill_content_desc){.input = dir, .deterministic = true}, &err);
    assert_non_null(c);
    rill_renderer *r = make_renderer(c);
    assert_int_equal(rill_content_load(c, r, &err), RILL_OK);
    assert_true(rill_content_defaults_used(c) & RILL_CONTENT_DEFAULT_CAMERA);
    bool bounded = rill_content_bounds(c, out_lo, out_hi);
    rill_world *w = rill_content_world(c);
    const rill_transform *xf =
        rill_world_get(w, rill_world_find_by_name(w, "Default Camera"), RILL_COMPONENT_TRANSFORM);
    assert_non_null(xf);
    *out_xf = *xf;
    render_one(c, r);
    *out_pixels = malloc(64u * 48u * 4u);
    assert_non_null(*out_pixels);
    assert_int_equal(rill_renderer_read_pixels(r, *out_pixels, 64u * 48u * 4u, &err), RILL_OK);
    finish_clean(c, r);
    return bounded;
}

/* A Model entity without a Transform stands at the identity: its model is drawn at the origin, so
 * the default camera frames it there, as with `Transform {}`. The framing used to need the
 * entity's GlobalTransform, which such an entity never gets: it framed a radius of 5 around the
 * origin instead, the cube a speck in the picture. */
static void test_default_camera_frames_model_without_transform(void **state) {
    (void)state;
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "content_no_transform");
    write_project(dir, "");
    rill_transform with_xf, without_xf;
    float lo[2][3], hi[2][3];
    uint8_t *with_px = NULL, *without_px = NULL;
    write_cube_scene(dir, "    Transform {}\n");
    assert_true(default_framing(dir, &with_xf, lo[0], hi[0], &with_px));
    write_cube_scene(dir, "");
    bool bounded = default_framing(dir, &without_xf, lo[1], hi[1], &without_px);
    double psnr = rill_test_psnr(with_px, without_px, 64u * 48u, 0, 3);
    if (psnr < 99.0) {
        fail_msg("framed differently without Transform: PSNR %.1f dB, camera at (%g, %g, %g) "
                 "instead of (%g, %g, %g)",
                 psnr, (double)without_xf.translation[0], (double)without_xf.translation[1],
                 (double)without_xf.translation[2], (double)with_xf.translation[0],
                 (double)with_xf.translation[1], (double)with_xf.translation[2]);
    }
    assert_memory_equal(&with_xf, &without_xf, sizeof(with_xf));
    assert_true(bounded);
    assert_memory_equal(lo[0], lo[1], sizeof(lo[0]));
    assert_memory_equal(hi[0], hi[1], sizeof(hi[0]));
    free(with_px);
    free(without_px);

    /* A Camera without a Transform has no GlobalTransform, so extract makes no view of it: the
     * default camera frames the scene instead (the render used to fail: "no active camera with a
     * GlobalTransform"). */
    write_cube_scene(dir, "    Transform {}\n");
    const char cam[] = "entity 2 \"Eye\" {\n    Camera {}\n}\n";
    char rsn[512], path[600];
    rill_test_path(path, sizeof(path), dir, "scenes/world.rsn");
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_file_read_all(path, &data, &size, &err), RILL_OK);
    snprintf(rsn, sizeof(rsn), "%.*s%s", (int)size, (const char *)data, cam);
    rill_free(data);
    rill_test_write_file(dir, "scenes/world.rsn", rsn, strlen(rsn));
    rill_transform cam_xf;
    uint8_t *cam_px = NULL;
    assert_true(default_framing(dir, &cam_xf, lo[1], hi[1], &cam_px));
    assert_memory_equal(&with_xf, &cam_xf, sizeof(cam_xf));
    free(cam_px);
    rill_test_tmpdir_remove(dir);
}

/* desc.root names the project folder instead of finding it: input is then a path inside it, and
 * its project.toml supplies the settings (here the window size); scene_budget_ns reaches the
 * app. A root "" has no loose folder, so the scene is not found. */
static void test_given_root(void **state) {
    (void)state;
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "content_root");
    write_project(dir, "");
    rill_error err = {0};
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = "scenes/world.rsn", .root = dir, .scene_budget_ns = 500000},
        &err);
    assert_non_null(c);
    assert_int_equal(rill_content_get_kind(c), RILL_CONTENT_KIND_SCENE);
    assert_string_equal(rill_content_scene(c), "scenes/world.rsn");
    assert_string_equal(rill_content_root(c), dir);
    assert_int_equal(rill_content_project(c)->window.width, 64);
    assert_true(rill_vfs_exists(rill_app_vfs(rill_content_app(c)), "models/cube.glb"));
    assert_int_equal(rill_app_streaming_budget_left_ns(rill_content_app(c)), 500000);
    rill_content_destroy(c);
    c = rill_content_open(&(rill_content_desc){.input = "scenes/world.rsn", .root = ""}, &err);
    assert_non_null(c);
    assert_false(rill_vfs_exists(rill_app_vfs(rill_content_app(c)), "scenes/world.rsn"));
    rill_content_destroy(c);
    assert_null(rill_content_open(&(rill_content_desc){.input = "x.txt", .root = dir}, &err));
    assert_non_null(strstr(err.msg, "x.txt"));
}

static void test_unapplied_and_bad_inputs(void **state) {
    (void)state;
    char dir[512], path[600];
    rill_test_tmpdir(dir, sizeof(dir), "content_bad");
    write_project(dir, "[streaming.texture]\nfull_distance = 30\n");
    rill_error err = {0};
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    rill_content *c = rill_content_open(&(rill_content_desc){.input = dir}, &err);
    rill_test_log_end(&cap);
    assert_non_null(c);
    /* Texture streaming applies these settings now (rill_app_texture_streaming_settings). */
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 0);
    assert_true(rill_content_project(c)->streaming.texture.full_distance == 30.0f);
    rill_content_destroy(c);

    /* A folder without project.toml, a missing file, an unknown kind, no main scene. */
    rill_test_path(path, sizeof(path), dir, "models");
    assert_null(rill_content_open(&(rill_content_desc){.input = path}, &err));
    assert_int_equal(err.code, RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "project.toml"));
    rill_test_path(path, sizeof(path), dir, "nope.rsn");
    assert_null(rill_content_open(&(rill_content_desc){.input = path}, &err));
    assert_non_null(strstr(err.msg, "nope.rsn"));
    rill_test_path(path, sizeof(path), dir, "project.toml");
    rill_test_write_file(dir, "notes.txt", "x", 1);
    rill_test_path(path, sizeof(path), dir, "notes.txt");
    assert_null(rill_content_open(&(rill_content_desc){.input = path}, &err));
    assert_int_equal(err.code, RILL_ERR_UNSUPPORTED);
    rill_test_write_file(dir, "project.toml", "[project]\nname = \"x\"\n", 21);
    assert_null(rill_content_open(&(rill_content_desc){.input = dir}, &err));
    assert_non_null(strstr(err.msg, "main scene"));
    /* Nothing at all (no input, no pack): refused, not a crash. */
    assert_null(rill_content_open(NULL, &err));
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    rill_log_set_level(RILL_LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_project_defaults),
        cmocka_unit_test(test_model_with_light_and_camera),
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_terrain_uploaded_at_load),
        cmocka_unit_test(test_lod_levels_no_extra_lights_or_cameras),
        cmocka_unit_test(test_default_camera_frames_model_without_transform),
        cmocka_unit_test(test_unapplied_and_bad_inputs),
        cmocka_unit_test(test_given_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
