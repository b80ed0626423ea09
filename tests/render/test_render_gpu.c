/* test_render_gpu.c: GPU tests on lavapipe with validation on. Each test renders one scene at
 * 192x192 and compares it against a committed golden PNG (tolerance in golden.h); any validation
 * message fails the test. No Vulkan device is a failure, never a skip: CI installs lavapipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include "frame.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "golden.h"
#include "model_gen.h"
#include "rill/formats/image.h"
#include "rill/render.h"

#include "gpu_fixture.h"

static void test_pbr_lit(void **state) {
    fixture *f = *state;
    camera(f, 0, 3.2f, 6.5f, 0, 0.6f, 0);
    sun(f, -0.4f, -1.0f, -0.5f, 2.5f, true);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.04f;
    ground(f);
    for (int i = 0; i < 5; i++) {
        float rough = 0.1f + 0.2f * (float)i;
        add(f, f->sphere, mat(f, 1.0f, 0.78f, 0.34f, 1, 1.0f, rough, RILL_ALPHA_OPAQUE),
            -2.4f + 1.2f * (float)i, 1.6f, -0.6f, 1.0f);
        add(f, f->sphere, mat(f, 0.8f, 0.1f, 0.1f, 1, 0.0f, rough, RILL_ALPHA_OPAQUE),
            -2.4f + 1.2f * (float)i, 0.5f, 0.6f, 1.0f);
    }
    rill_render_light *pl = &f->lights[f->nl++];
    memset(pl, 0, sizeof(*pl));
    pl->kind = RILL_LIGHT_POINT;
    pl->position[0] = 2.0f, pl->position[1] = 1.0f, pl->position[2] = 1.8f;
    pl->color[0] = 0.3f, pl->color[1] = 0.5f, pl->color[2] = 1.0f;
    pl->intensity = 6.0f;
    pl->range = 8.0f;
    rill_render_light *sl = &f->lights[f->nl++];
    memset(sl, 0, sizeof(*sl));
    sl->kind = RILL_LIGHT_SPOT;
    sl->position[0] = -2.0f, sl->position[1] = 3.0f, sl->position[2] = 2.0f;
    sl->direction[0] = 0.3f, sl->direction[1] = -1.0f, sl->direction[2] = -0.2f;
    sl->color[0] = 1.0f, sl->color[1] = 0.6f, sl->color[2] = 0.2f;
    sl->intensity = 20.0f;
    sl->range = 10.0f;
    sl->inner_angle = 0.3f;
    sl->outer_angle = 0.5f;
    render_and_check(f, "pbr_lit");
}

static void test_shadows(void **state) {
    fixture *f = *state;
    camera(f, 4.0f, 5.0f, 6.0f, 0, 0.5f, 0);
    sun(f, -1.0f, -0.8f, -0.3f, 3.0f, true);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.06f;
    ground(f);
    rill_material white = mat(f, 0.9f, 0.9f, 0.9f, 1, 0, 0.6f, RILL_ALPHA_OPAQUE);
    add(f, f->cube, white, 0, 0.5f, 0, 1.0f);
    rill_render_instance *tall = &f->inst[f->n];
    add(f, f->cube, white, 1.5f, 1.0f, -1.5f, 1.0f);
    trs(tall->transform, 1.5f, 1.0f, -1.5f, 0.5f, 2.0f, 0.5f, 0.5f);
    add(f, f->sphere, white, -1.5f, 0.8f, 1.0f, 1.2f);
    render_and_check(f, "shadows");
}

static void tonemap_scene(fixture *f, rill_tonemapper op, float ev) {
    camera(f, 0, 2.0f, 5.0f, 0, 0.6f, 0);
    sun(f, -0.3f, -1.0f, -0.6f, 8.0f, false);
    f->snap.view.tonemapper = op;
    f->snap.view.exposure_ev = ev;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.2f;
    ground(f);
    const float cols[4][3] = {{1, 0.2f, 0.1f}, {0.2f, 1, 0.3f}, {0.2f, 0.4f, 1}, {1, 1, 1}};
    for (int i = 0; i < 4; i++) {
        add(f, f->sphere,
            mat(f, cols[i][0], cols[i][1], cols[i][2], 1, 0, 0.35f, RILL_ALPHA_OPAQUE),
            -1.8f + 1.2f * (float)i, 0.6f, 0, 1.0f);
    }
}

static void test_tonemap_aces(void **state) {
    tonemap_scene(*state, RILL_TONEMAP_ACES, 0.0f);
    render_and_check(*state, "tonemap_aces");
}

static void test_tonemap_agx(void **state) {
    tonemap_scene(*state, RILL_TONEMAP_AGX, 0.0f);
    render_and_check(*state, "tonemap_agx");
}

static void test_tonemap_none_exposure(void **state) {
    tonemap_scene(*state, RILL_TONEMAP_NONE, -1.5f);
    render_and_check(*state, "tonemap_none_ev-1.5");
}

static void test_transparency(void **state) {
    fixture *f = *state;
    camera(f, 0, 1.5f, 5.0f, 0, 0.8f, 0);
    sun(f, -0.3f, -1.0f, -0.8f, 3.0f, true);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.1f;
    ground(f);
    add(f, f->cube, mat(f, 0.9f, 0.9f, 0.2f, 1, 0, 0.5f, RILL_ALPHA_OPAQUE), 0, 0.75f, -2.0f, 1.5f);
    /* Added front to back on purpose: the renderer must sort them back to front. */
    add(f, f->sphere, mat(f, 0.1f, 0.3f, 1.0f, 0.4f, 0, 0.2f, RILL_ALPHA_BLEND), 0.5f, 0.8f, 1.0f,
        1.0f);
    add(f, f->sphere, mat(f, 0.1f, 1.0f, 0.2f, 0.5f, 0, 0.2f, RILL_ALPHA_BLEND), 0.0f, 0.8f, 0.0f,
        1.2f);
    add(f, f->sphere, mat(f, 1.0f, 0.1f, 0.1f, 0.6f, 0, 0.2f, RILL_ALPHA_BLEND), -0.6f, 0.9f, -1.0f,
        1.4f);
    render_and_check(f, "transparency");
}

static void test_textured(void **state) {
    fixture *f = *state;
    camera(f, 2.2f, 2.0f, 3.0f, 0, 0.4f, 0);
    sun(f, -0.5f, -1.0f, -0.4f, 3.0f, true);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.08f;
    ground(f);
    static uint8_t checker[64 * 64 * 4], bumps[64 * 64 * 4];
    for (int y = 0; y < 64; y++) {
        for (int x = 0; x < 64; x++) {
            uint8_t *p = &checker[(y * 64 + x) * 4];
            bool on = ((x / 8) + (y / 8)) % 2 == 0;
            p[0] = on ? 230 : 30, p[1] = on ? 200 : 60, p[2] = on ? 40 : 160, p[3] = 255;
            /* A normal map of horizontal ridges: the normal tilts up and down along v. */
            float s = sinf((float)y * 0.6f) * 0.5f;
            uint8_t *n = &bumps[(y * 64 + x) * 4];
            n[0] = 128, n[1] = (uint8_t)(128 + 127 * s), n[2] = (uint8_t)(255 * sqrtf(1 - s * s)),
            n[3] = 255;
        }
    }
    rill_error err = {0};
    rill_texture_desc td = {
        .pixels = checker, .width = 64, .height = 64, .srgb = true, .label = "checker"};
    rill_texture tex = rill_render_texture_create(f->r, &td, &err);
    rill_texture_desc nd = {
        .pixels = bumps, .width = 64, .height = 64, .srgb = false, .label = "ridges"};
    rill_texture nrm = rill_render_texture_create(f->r, &nd, &err);
    assert_true(tex.id && nrm.id);
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color_texture = tex;
    md.normal_texture = nrm;
    md.roughness = 0.5f;
    rill_material m = rill_render_material_create(f->r, &md, &err);
    assert_true(m.id != 0);
    add(f, f->cube, m, 0, 0.6f, 0, 1.2f);
    render_and_check(f, "textured");
    rill_render_material_destroy(f->r, m);
    rill_render_texture_destroy(f->r, tex);
    rill_render_texture_destroy(f->r, nrm);
}

/* A textured glTF model, written to .glb bytes, read back by the glTF reader and uploaded
 * through rill_render_model_create: the whole model path from file bytes to pixels. */
static void test_gltf_model(void **state) {
    fixture *f = *state;
    /* Cube geometry, 4 vertices per face, with normals, tangents and UVs. */
    static float pos[24 * 3], nrm[24 * 3], tan4[24 * 4], uv[24 * 2];
    static uint32_t idx[36];
    model_gen_cube(pos, nrm, tan4, idx);
    model_gen_cube_uv(uv);
    static uint8_t pixels[32 * 32 * 4];
    for (int y = 0; y < 32; y++) {
        for (int x = 0; x < 32; x++) {
            uint8_t *p = &pixels[(y * 32 + x) * 4];
            bool stripe = ((x + y) / 4) % 2 == 0;
            p[0] = stripe ? 240 : 20, p[1] = stripe ? 90 : 140, p[2] = stripe ? 30 : 200,
            p[3] = 255;
        }
    }
    uint8_t *png = NULL;
    size_t png_size = 0;
    assert_int_equal(rill_image_encode_png(pixels, 32, 32, 4, &png, &png_size, NULL), RILL_OK);

    rill_gltf_primitive prim;
    memset(&prim, 0, sizeof(prim));
    prim.vertex_count = 24;
    prim.positions = pos;
    prim.normals = nrm;
    prim.tangents = tan4;
    prim.uv0 = uv;
    prim.index_count = 36;
    prim.indices = idx;
    prim.material = 0;
    prim.bounds_min[0] = prim.bounds_min[1] = prim.bounds_min[2] = -0.5f;
    prim.bounds_max[0] = prim.bounds_max[1] = prim.bounds_max[2] = 0.5f;
    rill_gltf_mesh mesh = {"cube", 1, &prim};
    rill_gltf_material mt;
    memset(&mt, 0, sizeof(mt));
    mt.base_color_factor[0] = mt.base_color_factor[1] = mt.base_color_factor[2] =
        mt.base_color_factor[3] = 1.0f;
    mt.base_color_texture = (rill_gltf_texref){0, 0, 1.0f};
    mt.metallic_factor = 0.0f;
    mt.roughness_factor = 0.45f;
    mt.metallic_roughness_texture = mt.normal_texture = mt.occlusion_texture = mt.emissive_texture =
        (rill_gltf_texref){-1, 0, 1.0f};
    mt.alpha_cutoff = 0.5f;
    rill_gltf_texture tex = {NULL, -1, 0};
    rill_gltf_image img = {"stripes", NULL, "image/png", png, png_size};
    rill_gltf_node node;
    memset(&node, 0, sizeof(node));
    node.name = "cube";
    node.parent = -1;
    node.mesh = 0;
    node.camera = node.light = -1;
    /* 35 degrees about +Y, lifted so it rests on the ground. */
    float half = 0.5f * 0.6108652f;
    node.rotation[1] = sinf(half);
    node.rotation[3] = cosf(half);
    node.translation[1] = 0.6f;
    node.scale[0] = node.scale[1] = node.scale[2] = 1.2f;
    mat4 nm;
    glm_mat4_identity(nm);
    glm_translate(nm, node.translation);
    glm_rotate_y(nm, 0.6108652f, nm);
    glm_scale(nm, node.scale);
    memcpy(node.matrix, nm, sizeof(nm));
    int32_t roots[1] = {0};
    rill_gltf_scene scene = {"scene", 1, roots};
    rill_gltf_model model;
    memset(&model, 0, sizeof(model));
    model.mesh_count = 1, model.meshes = &mesh;
    model.node_count = 1, model.nodes = &node;
    model.scene_count = 1, model.scenes = &scene, model.default_scene = 0;
    model.material_count = 1, model.materials = &mt;
    model.texture_count = 1, model.textures = &tex;
    model.image_count = 1, model.images = &img;

    rill_error err = {0};
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    if (rill_glb_write_memory(&model, NULL, &glb, &glb_size, &err) != RILL_OK) {
        fail_msg("glb write: %s", err.msg);
    }
    rill_free(png);
    /* The same bytes are the committed tests/render/data/cube_striped.glb used by the CLI test. */
    const char *tmp = getenv("RILL_TEST_TMP");
    if (tmp) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/cube_striped.glb", tmp);
        rill_dir_create_all(tmp, NULL);
        rill_file_write_all(path, glb, glb_size, NULL);
    }
    rill_gltf_model *back = NULL;
    if (rill_gltf_read_memory(glb, glb_size, NULL, &back, &err) != RILL_OK) {
        fail_msg("glb read: %s", err.msg);
    }
    rill_free(glb);
    rill_render_model rm;
    if (rill_render_model_create(f->r, back, NULL, &rm, &err) != RILL_OK) {
        fail_msg("model: %s", err.msg);
    }
    rill_gltf_model_free(back);
    assert_int_equal(rm.instance_count, 1);
    assert_int_equal(rm.texture_count, 1);
    assert_true(rm.textures[0].id != 0);
    assert_float_equal(rm.bounds_max[1], 0.6f + 0.6f, 1e-4);

    camera(f, 2.0f, 2.2f, 2.8f, 0, 0.5f, 0);
    sun(f, -0.6f, -1.0f, -0.3f, 3.0f, true);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.08f;
    ground(f);
    f->inst[f->n++] = rm.instances[0];
    render_and_check(f, "gltf_model");
    rill_render_model_destroy(f->r, &rm);
}

/* The extract step: a world with a camera, a MeshInstance, a sun and a point light renders the
 * same way a hand-built snapshot would. */
static void test_world_extract(void **state) {
    fixture *f = *state;
    rill_world *w = rill_world_create(NULL, NULL);
    assert_non_null(w);
    rill_render_components rc;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);

    rill_entity cam = rill_world_spawn(w);
    rill_camera *c = rill_world_add(w, cam, b->camera, NULL);
    assert_non_null(c);
    assert_true(c->active);
    c->clear_color[0] = 0.1f, c->clear_color[1] = 0.1f, c->clear_color[2] = 0.15f;
    render_test_entity_look_at(w, cam, (float[3]){0, 2.5f, 4.5f}, (float[3]){0, 0.5f, 0});

    rill_entity cube = rill_world_spawn(w);
    rill_mesh_instance mi = {f->cube.id,
                             mat(f, 0.2f, 0.7f, 0.3f, 1, 0, 0.4f, RILL_ALPHA_OPAQUE).id};
    assert_non_null(rill_world_add(w, cube, rc.mesh_instance, &mi));
    rill_transform t = rill_transform_identity();
    t.translation[1] = 0.5f;
    assert_true(rill_world_set_transform(w, cube, &t));

    rill_entity floor = rill_world_spawn(w);
    rill_mesh_instance fi = {f->plane.id,
                             mat(f, 0.6f, 0.6f, 0.6f, 1, 0, 0.8f, RILL_ALPHA_OPAQUE).id};
    assert_non_null(rill_world_add(w, floor, rc.mesh_instance, &fi));
    t = rill_transform_identity();
    t.scale[0] = t.scale[1] = t.scale[2] = 10.0f;
    assert_true(rill_world_set_transform(w, floor, &t));

    rill_entity sun_e = rill_world_spawn(w);
    rill_directional_light *dl = rill_world_add(w, sun_e, rc.directional_light, NULL);
    assert_non_null(dl);
    assert_float_equal(dl->illuminance, 3.0f, 1e-6); /* the registered default */
    t = rill_transform_identity();
    /* Rotate -Z (the light direction) down and to the side: -60 degrees about X, then 30 about Y.
     */
    versor qx, qy, qs;
    glm_quatv(qx, -1.0471976f, (vec3){1, 0, 0});
    glm_quatv(qy, 0.5235988f, (vec3){0, 1, 0});
    glm_quat_mul(qy, qx, qs);
    memcpy(t.rotation, qs, sizeof(float) * 4);
    assert_true(rill_world_set_transform(w, sun_e, &t));

    rill_entity lamp = rill_world_spawn(w);
    rill_point_light *pl = rill_world_add(w, lamp, rc.point_light, NULL);
    assert_non_null(pl);
    pl->color[0] = 1.0f, pl->color[1] = 0.3f, pl->color[2] = 0.2f;
    pl->intensity = 4.0f;
    t = rill_transform_identity();
    t.translation[0] = 1.2f, t.translation[1] = 0.6f, t.translation[2] = 0.8f;
    assert_true(rill_world_set_transform(w, lamp, &t));

    /* Out of the world (rill/world.h): a default camera at 3e38, a cube at NaN, a cube scaled
     * 1e30, a lamp at -inf and a sun whose rotation is NaN are skipped; the frame is the same. */
    rill_entity bad[5];
    for (int k = 0; k < 5; k++) {
        bad[k] = rill_world_spawn(w);
    }
    rill_camera *bc = rill_world_add(w, bad[0], b->camera, NULL);
    bc->is_default = true; /* the primary view if it were taken */
    assert_non_null(rill_world_add(w, bad[1], rc.mesh_instance, &mi));
    assert_non_null(rill_world_add(w, bad[2], rc.mesh_instance, &mi));
    assert_non_null(rill_world_add(w, bad[3], rc.point_light, NULL));
    assert_non_null(rill_world_add(w, bad[4], rc.directional_light, NULL));
    rill_transform bt[5];
    for (int k = 0; k < 5; k++) {
        bt[k] = rill_transform_identity();
    }
    bt[0].translation[0] = 3e38f;
    bt[1].translation[1] = NAN;
    bt[2].scale[2] = 1e30f;
    bt[3].translation[2] = -INFINITY;
    bt[4].rotation[0] = NAN;
    for (int k = 0; k < 5; k++) {
        assert_true(rill_world_set_transform(w, bad[k], &bt[k]));
    }

    rill_world_update_transforms(w);
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    if (rill_render_extract(w, &rc, &xb, &snap, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    assert_int_equal(xb.out_of_world, 5);
    assert_true(xb.warned_out_of_world);
    assert_int_equal(snap.view_count, 1);
    assert_int_equal(snap.instance_count, 2);
    assert_int_equal(snap.light_count, 1);
    assert_true(snap.has_sun);
    assert_true(snap.sun.direction[1] < -0.5f);
    f->snap = snap;
    f->n = 0;
    for (uint32_t i = 0; i < snap.instance_count; i++) {
        f->inst[f->n++] = snap.instances[i];
    }
    f->nl = 0;
    for (uint32_t i = 0; i < snap.light_count; i++) {
        f->lights[f->nl++] = snap.lights[i];
    }
    render_and_check(f, "world_extract");
    /* Without the good sun, the one at NaN is not taken either. */
    rill_world_despawn(w, sun_e);
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
    assert_false(snap.has_sun);
    assert_int_equal(xb.out_of_world, 5);
    /* No active camera: a clear error, no frame. */
    c = rill_world_get(w, cam, b->camera);
    c->active = false;
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_ERR_NOT_FOUND);
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
}

/* User compute effects slotted between anchors: inverting the tonemapped image between
 * tonemapping and end_main_pass_post_processing inverts every pixel; scaling the HDR image by 0
 * between end_main_pass and tonemapping gives black. */
extern const uint32_t test_spv_invert_ldr[], test_spv_scale_hdr[];
extern const size_t test_spv_invert_ldr_size, test_spv_scale_hdr_size;

typedef struct fx_setup {
    rill_render_fx *invert, *scale;
    bool use_invert, use_scale;
} fx_setup;

static rill_result add_fx(const rill_render_graph *fg, void *user, rill_error *err) {
    fx_setup *s = user;
    if (s->use_invert) {
        rill_rg_pass p = rill_render_fx_add(fg->graph, s->invert, "invert", fg->ldr, NULL, 0, err);
        rill_rg_pass chain[] = {fg->tonemapping, p, fg->end_main_pass_post_processing};
        RILL_TRY(rill_rg_add_edges(fg->graph, chain, 3, err));
    }
    if (s->use_scale) {
        float params[6] = {0, 0, 0.0f, 0, 0, 0}; /* pad, then scale.x = 0 */
        rill_rg_pass p = rill_render_fx_add(fg->graph, s->scale, "scale_hdr", fg->hdr, params,
                                            sizeof(params), err);
        rill_rg_pass chain[] = {fg->end_main_pass, p, fg->tonemapping};
        RILL_TRY(rill_rg_add_edges(fg->graph, chain, 3, err));
    }
    return RILL_OK;
}

static void test_compute_effects(void **state) {
    (void)state;
    fx_setup fs;
    memset(&fs, 0, sizeof(fs));
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = 96;
    d.height = 64;
    d.validation = 1;
    d.setup_graph = add_fx;
    d.setup_graph_user = &fs;
    fixture f;
    memset(&f, 0, sizeof(f));
    rill_error err = {0};
    assert_non_null(f.r = rill_renderer_create(&d, &err));
    fs.invert = rill_render_fx_create(f.r, test_spv_invert_ldr, test_spv_invert_ldr_size, "invert",
                                      8, &err);
    fs.scale =
        rill_render_fx_create(f.r, test_spv_scale_hdr, test_spv_scale_hdr_size, "scale", 8, &err);
    assert_non_null(fs.invert);
    assert_non_null(fs.scale);
    f.cube = rill_render_mesh_cube(f.r, &err);
    f.sphere = rill_render_mesh_sphere(f.r, 24, &err);
    f.plane = rill_render_mesh_plane(f.r, &err);
    tonemap_scene(&f, RILL_TONEMAP_ACES, 0.0f);
    f.snap.instances = f.inst;
    f.snap.instance_count = f.n;
    static uint8_t plain[96 * 64 * 4], inverted[96 * 64 * 4], black[96 * 64 * 4];
    for (int pass = 0; pass < 3; pass++) {
        fs.use_invert = pass == 1;
        fs.use_scale = pass == 2;
        assert_int_equal(rill_renderer_render(f.r, &f.snap, &err), RILL_OK);
        uint8_t *dst = pass == 0 ? plain : pass == 1 ? inverted : black;
        assert_int_equal(rill_renderer_read_pixels(f.r, dst, sizeof(plain), &err), RILL_OK);
    }
    size_t bad = 0;
    for (size_t i = 0; i < sizeof(plain); i++) {
        if (i % 4 == 3) {
            continue;
        }
        bad += abs((int)inverted[i] - (255 - (int)plain[i])) > 1;
        assert_int_equal(black[i], 0);
    }
    assert_int_equal(bad, 0);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f.r, &sb);
    assert_non_null(strstr(sb.data, "scale_hdr"));
    rill_strbuf_free(&sb);
    rill_render_stats st;
    rill_renderer_stats(f.r, &st);
    assert_int_equal(st.validation_messages, 0);
    rill_render_fx_destroy(f.r, fs.invert);
    rill_render_fx_destroy(f.r, fs.scale);
    rill_renderer_destroy(f.r);
}

/* Clustered lighting: 96 small point lights over a floor give the same image through the cluster
 * grid as with every light shaded at every pixel, and match the golden. */
static void many_lights_scene(fixture *f, rill_render_light *lights, uint32_t *out_n) {
    camera(f, 0, 6.0f, 9.0f, 0, 0, -1.0f);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.02f;
    ground(f);
    rill_material m = mat(f, 0.8f, 0.8f, 0.8f, 1, 0, 0.4f, RILL_ALPHA_OPAQUE);
    for (int i = 0; i < 5; i++) {
        add(f, f->sphere, m, -4.0f + 2.0f * (float)i, 0.5f, -1.0f, 1.0f);
    }
    uint32_t n = 0;
    for (int z = 0; z < 8; z++) {
        for (int x = 0; x < 12; x++) {
            rill_render_light *L = &lights[n++];
            memset(L, 0, sizeof(*L));
            L->kind = RILL_LIGHT_POINT;
            L->position[0] = -8.25f + 1.5f * (float)x;
            L->position[1] = 0.4f;
            L->position[2] = -9.0f + 1.5f * (float)z;
            L->color[0] = (float)((x + z) % 3 == 0), L->color[1] = (float)((x + z) % 3 == 1);
            L->color[2] = (float)((x + z) % 3 == 2);
            L->intensity = 1.5f;
            L->range = 1.6f;
        }
    }
    *out_n = n;
}

/* Renders f's instances lit by `count` lights and reads the frame into px (W * H * 4). */
static void draw_lights(fixture *f, const rill_render_light *lights, uint32_t count, uint8_t *px) {
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    f->snap.lights = lights;
    f->snap.light_count = count;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err), RILL_OK);
}

static void test_clustered_lights(void **state) {
    fixture *f = *state;
    static rill_render_light lights[96];
    uint32_t n = 0;
    many_lights_scene(f, lights, &n);
    static uint8_t clustered[W * H * 4], flat[W * H * 4];
    draw_lights(f, lights, n, clustered);
    rill_render_stats cs;
    rill_renderer_stats(f->r, &cs);
    /* Each small light lands in a handful of the 3456 clusters, not in all of them. */
    assert_true(cs.light_cluster_refs > 0);
    assert_true(cs.light_cluster_refs < n * 60);
    golden_expect("many_lights", clustered, W, H);
    /* The reference: a second renderer that loops over every light. */
    fixture g;
    memset(&g, 0, sizeof(g));
    g.r = render_test_renderer(
        (rill_renderer_desc){.width = W,
                             .height = H,
                             .shadow_map_size = 512,
                             .debug_flags = RILL_RENDER_DEBUG_FLAT_LIGHT_LIST});
    assert_non_null(g.r);
    g.cube = render_test_cube(g.r);
    g.sphere = render_test_sphere(g.r, 48);
    g.plane = render_test_plane(g.r);
    many_lights_scene(&g, lights, &n);
    draw_lights(&g, lights, n, flat);
    size_t off = 0;
    for (size_t i = 0; i < sizeof(flat); i++) {
        off += abs((int)flat[i] - (int)clustered[i]) > 1;
    }
    assert_int_equal(off, 0);
    render_test_destroy_clean(g.r, false);
}

/* Lights level with the camera but far to either side reach the near plane's depth without
 * touching the view: they take no cluster (before, each took every tile of its depth slices) and
 * change no pixel. */
static void test_clustered_lights_beside_view(void **state) {
    fixture *f = *state;
    static rill_render_light lights[96 + 64];
    uint32_t n = 0;
    many_lights_scene(f, lights, &n);
    static uint8_t base[W * H * 4], beside[W * H * 4];
    draw_lights(f, lights, n, base);
    rill_render_stats bs;
    rill_renderer_stats(f->r, &bs);
    for (uint32_t i = 0; i < 64; i++) {
        rill_render_light *L = &lights[n + i];
        memset(L, 0, sizeof(*L));
        L->kind = RILL_LIGHT_POINT;
        L->position[0] = (i % 2 ? 60.0f : -60.0f) + (float)(i / 2) * 0.5f;
        L->position[1] = 6.0f; /* the camera's height, its depth within range of the camera */
        L->position[2] = 9.0f - (float)(i % 8);
        L->color[0] = L->color[1] = L->color[2] = 1.0f;
        L->intensity = 50.0f;
        L->range = 12.0f;
    }
    draw_lights(f, lights, n + 64, beside);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_true(bs.light_cluster_refs > 0);
    assert_int_equal(st.light_cluster_refs, bs.light_cluster_refs);
    assert_memory_equal(beside, base, sizeof(base));
    assert_int_equal(st.validation_messages, 0);
}

/* More lights than a view shades: 2000 lights far from the camera come first in the snapshot,
 * the scene's 96 after them. The view shades the 1024 nearest its camera, so the picture is the
 * one of the 96 alone (the far ones light nothing on screen); keeping the first 1024 would leave
 * it dark. */
static void test_nearest_lights(void **state) {
    fixture *f = *state;
    static rill_render_light lights[2096];
    uint32_t n = 0;
    for (uint32_t i = 0; i < 2000; i++) {
        rill_render_light *L = &lights[i];
        memset(L, 0, sizeof(*L));
        L->kind = RILL_LIGHT_POINT;
        L->position[0] = 5000.0f + (float)(i % 50);
        L->position[1] = 1.0f;
        L->position[2] = (float)(i / 50);
        L->color[0] = L->color[1] = L->color[2] = 1.0f;
        L->intensity = 100.0f;
        L->range = 2.0f;
    }
    many_lights_scene(f, lights + 2000, &n);
    static uint8_t px[W * H * 4];
    draw_lights(f, lights, 2000 + n, px);
    golden_expect("many_lights", px, W, H);
}

/* Render modes from scene channels: a wireframe sphere and cube (lines, no shadow, no depth), a
 * hidden cube (nothing at all, not even its shadow), next to a normal cube. */
static void test_render_modes(void **state) {
    fixture *f = *state;
    camera(f, 0, 2.5f, 5.5f, 0, 0.5f, 0);
    sun(f, -0.5f, -1.0f, -0.3f, 3.0f, true);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.08f;
    ground(f);
    rill_material m = mat(f, 0.9f, 0.5f, 0.2f, 1, 0, 0.5f, RILL_ALPHA_OPAQUE);
    add(f, f->cube, m, -1.6f, 0.5f, 0, 1.0f);
    rill_mesh coarse = rill_render_mesh_sphere(f->r, 12, NULL);
    add(f, coarse, m, 0.0f, 0.7f, 0, 1.4f);
    f->inst[f->n - 1].mode = RILL_RENDER_MODE_WIREFRAME;
    add(f, f->cube, m, 1.6f, 0.5f, 0, 1.0f);
    f->inst[f->n - 1].mode = RILL_RENDER_MODE_WIREFRAME;
    add(f, f->cube, m, 0.0f, 0.5f, 1.8f, 0.8f);
    f->inst[f->n - 1].mode = RILL_RENDER_MODE_HIDDEN;
    render_and_check(f, "render_modes");
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_true(st.fill_mode_non_solid);       /* lavapipe has it, so the lines above were drawn */
    assert_int_equal(st.instances_visible, 4); /* ground, normal cube, two wireframes */
}

/* Alpha-masked materials: a cut-out panel shows its holes and casts a shadow with the same holes.
 */
static void test_alpha_mask(void **state) {
    fixture *f = *state;
    camera(f, 0.5f, 2.2f, 4.5f, 0, 0.8f, 0);
    sun(f, 0.3f, -1.0f, 0.9f, 3.0f, true); /* from behind the panel, shadow falls towards us */
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.08f;
    ground(f);
    static uint8_t holes[32 * 32 * 4];
    for (int y = 0; y < 32; y++) {
        for (int x = 0; x < 32; x++) {
            uint8_t *p = &holes[(y * 32 + x) * 4];
            bool solid = ((x / 8) + (y / 8)) % 2 == 0;
            p[0] = 60, p[1] = 200, p[2] = 90, p[3] = solid ? 255 : 0;
        }
    }
    rill_error err = {0};
    rill_texture_desc td = {
        .pixels = holes, .width = 32, .height = 32, .srgb = true, .label = "holes"};
    rill_texture tex = rill_render_texture_create(f->r, &td, &err);
    rill_material_desc md;
    memset(&md, 0, sizeof(md));
    md.base_color_texture = tex;
    md.alpha_mode = RILL_ALPHA_MASK;
    md.double_sided = true;
    md.roughness = 0.6f;
    rill_material m = rill_render_material_create(f->r, &md, &err);
    assert_true(tex.id && m.id);
    rill_render_instance *panel = &f->inst[f->n];
    add(f, f->plane, m, 0, 0, 0, 1);
    mat4 t;
    glm_mat4_identity(t);
    glm_translate(t, (vec3){0, 1.1f, 0});
    glm_rotate_x(t, 1.5707963f, t);
    glm_scale(t, (vec3){2.0f, 1.0f, 2.0f});
    memcpy(panel->transform, t, sizeof(mat4));
    render_and_check(f, "alpha_mask");
}

/* The motion tests' scene: a floor, and a grey cube at x (returned, last in f->inst) seen from
 * (0, 1.2, 4); *m gets the cube's material. */
static rill_render_instance *motion_scene(fixture *f, float x, rill_material *m) {
    camera(f, 0, 1.2f, 4.0f, 0, 0.5f, 0);
    sun(f, -0.3f, -1.0f, -0.4f, 3.0f, false);
    ground(f);
    *m = mat(f, 0.8f, 0.8f, 0.8f, 1, 0, 0.5f, RILL_ALPHA_OPAQUE);
    add(f, f->cube, *m, x, 0.5f, 0, 1.0f);
    return &f->inst[f->n - 1];
}

/* The prepass outputs, through the debug views: a cube moving right has positive horizontal
 * motion and no vertical motion while the static floor has none; the floor's normal is +Y. */
static void test_prepass_outputs(void **state) {
    fixture *f = *state;
    rill_material m;
    rill_render_instance *cube = motion_scene(f, -0.1f, &m);
    (void)m;
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    static uint8_t px[W * H * 4];
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    trs(cube->transform, 0.1f, 0.5f, 0, 1, 1, 1, 0); /* moves 0.2 to the right */
    rill_renderer_set_debug_flags(f->r, RILL_RENDER_DEBUG_VIEW_MOTION);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof(px), &err), RILL_OK);
    const uint8_t *c = &px[((H / 2) * W + W / 2) * 4];  /* the cube */
    const uint8_t *fl = &px[((H - 8) * W + W / 2) * 4]; /* the floor near the bottom */
    assert_true(c[0] > 128 + 20);                       /* moving right */
    assert_true(abs((int)c[1] - 128) <= 2);             /* not up or down */
    assert_true(abs((int)fl[0] - 128) <= 1 && abs((int)fl[1] - 128) <= 1); /* static */
    rill_renderer_set_debug_flags(f->r, RILL_RENDER_DEBUG_VIEW_NORMALS);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof(px), &err), RILL_OK);
    assert_true(abs((int)fl[0] - 128) <= 1 && fl[1] >= 254 && abs((int)fl[2] - 128) <= 1);
    rill_renderer_set_debug_flags(f->r, 0);
}

/* The motion view's red channel at the centre pixel (128: no horizontal motion). */
static int centre_motion_x(fixture *f) {
    static uint8_t px[W * H * 4];
    rill_error err = {0};
    rill_renderer_set_debug_flags(f->r, RILL_RENDER_DEBUG_VIEW_MOTION);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof(px), &err), RILL_OK);
    rill_renderer_set_debug_flags(f->r, 0);
    return (int)px[((H / 2) * W + W / 2) * 4];
}

/* Motion history: an instance that moved while it was out of view still shows that motion in
 * the frame it comes into view; one that stops shows none; the history follows instances by id
 * when the snapshot lists them in another order; and history of ids that went away is dropped
 * (memory stays flat while every frame brings new ids). */
static void test_motion_history(void **state) {
    fixture *f = *state;
    rill_material m;
    rill_render_instance *cube = motion_scene(f, -30.0f, &m); /* far to the left: culled */
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    trs(cube->transform, -0.1f, 0.5f, 0, 1, 1, 1, 0); /* into view, from the left */
    assert_true(centre_motion_x(f) > 128 + 20);
    assert_true(abs(centre_motion_x(f) - 128) <= 1); /* still: no motion */
    /* Listed first instead of last, moved 0.2 to the right: still its own last matrix. */
    rill_render_instance swapped[2] = {*cube, f->inst[0]};
    trs(swapped[0].transform, 0.1f, 0.5f, 0, 1, 1, 1, 0);
    f->snap.instances = swapped;
    assert_true(centre_motion_x(f) > 128 + 20);
    assert_true(abs(centre_motion_x(f) - 128) <= 1);

    /* 64 instances with new ids every frame. */
    camera(f, 0, 1.2f, 4.0f, 0, 0.5f, 0);
    for (uint32_t k = 0; k < 64; k++) {
        add(f, f->cube, m, (float)(k % 8) - 3.5f, 0.5f, -(float)(k / 8), 0.3f);
    }
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    size_t at100 = 0;
    for (uint32_t frame = 1; frame <= 200; frame++) {
        for (uint32_t k = 0; k < 64; k++) {
            f->inst[k].id = (uint64_t)frame * 64u + k;
        }
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
        if (frame == 100) {
            at100 = rill_mem_live_bytes(RILL_MEM_CONTAINER);
        }
    }
    /* Kept, the history of the 6400 ids of the last 100 frames would take over 900 KB. */
    size_t at200 = rill_mem_live_bytes(RILL_MEM_CONTAINER);
    print_message("container bytes: %zu after 100 frames, %zu after 200\n", at100, at200);
    assert_true(at200 < at100 + 64 * 1024);
}

/* New ids join the motion history a bounded number a frame (frame_cull.c HISTORY_NEW_*: a
 * minimum, then more within a time budget; pinned here to exactly 4096, so the frame an id joins
 * does not depend on the machine), in snapshot order, so a first frame of many instances costs a
 * bounded part of them: a cube listed after 9000 new in-view instances is taken in the third
 * frame and shows its motion from the fourth, moving all along; before then it draws as an
 * instance without motion of its own. */
static void test_motion_history_new_ids_bounded(void **state) {
    fixture *f = *state;
    rill__motion_history_set_new_ids(f->r, 4096u, 0.0);
    rill_material m;
    motion_scene(f, -0.3f, &m);
    enum { FILL = 9000 };
    rill_render_instance *all = rill_calloc(FILL + 2u, sizeof *all);
    assert_non_null(all);
    for (uint32_t k = 0; k < FILL; k++) { /* specks left of the cube, in view */
        render_test_place(&all[k], 100u + k, f->cube, m,
                          (float[3]){-1.5f + 0.0001f * (float)k, 0.5f, 0.0f}, 0.01f, 0.0f);
    }
    all[FILL] = f->inst[0];      /* the floor */
    all[FILL + 1u] = f->inst[1]; /* the cube, last */
    float *cube = all[FILL + 1u].transform;
    f->snap.instances = all;
    f->snap.instance_count = FILL + 2u;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK); /* takes 4096 */
    int moved[3];
    for (int frame = 1; frame <= 3; frame++) {
        trs(cube, -0.3f + 0.2f * (float)frame, 0.5f, 0, 1, 1, 1, 0); /* 0.2 to the right */
        moved[frame - 1] = centre_motion_x(f);
    }
    assert_true(abs(moved[0] - 128) <= 1); /* frame 1: not in the history yet */
    assert_true(abs(moved[1] - 128) <= 1); /* frame 2: taken now, no last frame yet */
    assert_true(moved[2] > 128 + 20);      /* frame 3: its motion */
    rill_free(all);
}

/* Renders `frames` frames of instances [0, n) of `many` (ids 1..n, behind the camera: culled) and
 * returns the container bytes after them. */
static size_t render_many(fixture *f, rill_render_instance *many, uint32_t n, uint32_t frames) {
    f->snap.instances = many;
    f->snap.instance_count = n;
    rill_error err = {0};
    for (uint32_t k = 0; k < frames; k++) {
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    }
    return rill_mem_live_bytes(RILL_MEM_CONTAINER);
}

/* The draw lists and the motion history are sized for the frame's instances, not for the most the
 * renderer ever saw: after a stretch of 6x the instances, the same 2000 instances take the memory
 * they took before it, give or take the history of the ids of the last big frame. */
static void test_lists_follow_instances(void **state) {
    fixture *f = *state;
    camera(f, 0, 1.2f, 4.0f, 0, 0.5f, 0);
    rill_material m = mat(f, 0.8f, 0.8f, 0.8f, 1, 0, 0.5f, RILL_ALPHA_OPAQUE);
    enum { SMALL = 2000, BIG = 12000 };
    rill_render_instance *many = rill_calloc(BIG, sizeof *many);
    for (uint32_t k = 0; k < BIG; k++) {
        render_test_place(&many[k], k + 1u, f->cube, m, (float[3]){(float)(k % 100), 0, 50.0f},
                          0.3f, 0.0f);
    }
    size_t small = render_many(f, many, SMALL, 30);
    size_t big = render_many(f, many, BIG, 30);
    size_t again = render_many(f, many, SMALL, 30);
    print_message("container bytes: %zu with %d instances, %zu with %d, %zu with %d again\n", small,
                  SMALL, big, BIG, again, SMALL);
    assert_true(big > small + 3u * 1024u * 1024u);
    assert_true(again <= small + 512u * 1024u);
    /* the same working set, the same memory: a second round trip lands where the first did */
    render_many(f, many, BIG, 30);
    size_t twice = render_many(f, many, SMALL, 30);
    assert_true(twice <= again + 64u * 1024u && again <= twice + 64u * 1024u);
    rill_free(many);
}

/* SSAO: presets and clamps resolve as specified; off means no pass; on darkens the ambient light
 * where objects meet the floor (golden). */
static void test_ssao(void **state) {
    fixture *f = *state;
    uint32_t sl, ps;
    float th;
    rill_render_ssao s;
    memset(&s, 0, sizeof(s));
    rill_render_ssao_resolve(&s, &sl, &ps, &th);
    assert_int_equal(sl * ps * 2, 18); /* High is the default */
    assert_float_equal(th, 0.25f, 1e-6);
    s.quality = RILL_SSAO_LOW;
    rill_render_ssao_resolve(&s, &sl, &ps, &th);
    assert_int_equal(sl * ps * 2, 4);
    s.quality = RILL_SSAO_MEDIUM;
    rill_render_ssao_resolve(&s, &sl, &ps, &th);
    assert_int_equal(sl * ps * 2, 8);
    s.quality = RILL_SSAO_ULTRA;
    rill_render_ssao_resolve(&s, &sl, &ps, &th);
    assert_int_equal(sl * ps * 2, 54);
    s.quality = RILL_SSAO_CUSTOM;
    s.slice_count = 40;
    s.samples_per_slice_side = 0;
    s.thickness = -3.0f;
    rill_render_ssao_resolve(&s, &sl, &ps, &th);
    assert_int_equal(sl, 16);
    assert_int_equal(ps, 1);
    assert_float_equal(th, 0.0f, 1e-6);

    camera(f, 0, 2.4f, 4.5f, 0, 0.4f, 0);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.8f;
    ground(f);
    rill_material m = mat(f, 0.8f, 0.8f, 0.8f, 1, 0, 0.8f, RILL_ALPHA_OPAQUE);
    add(f, f->cube, m, -1.2f, 0.5f, 0, 1.0f);
    add(f, f->sphere, m, 0.3f, 0.5f, 0.2f, 1.0f);
    add(f, f->cube, m, 1.5f, 0.4f, -0.4f, 0.8f);
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    assert_null(strstr(sb.data, "ssao")); /* off: no pass at all */
    sb.len = 0;
    static uint8_t off[W * H * 4], on[W * H * 4];
    assert_int_equal(rill_renderer_read_pixels(f->r, off, sizeof(off), &err), RILL_OK);
    f->snap.view.ssao.enabled = true;
    render_and_check(f, "ssao");
    assert_int_equal(rill_renderer_read_pixels(f->r, on, sizeof(on), &err), RILL_OK);
    uint32_t darker = 0, lighter = 0;
    for (size_t i = 0; i < sizeof(on); i += 4) {
        darker += on[i] + 3 < off[i];
        lighter += on[i] > off[i] + 1;
    }
    assert_true(darker > 200);    /* contact shadows where objects meet the floor */
    assert_int_equal(lighter, 0); /* occlusion only ever removes light */
    rill_renderer_dump_graph(f->r, &sb);
    assert_non_null(strstr(sb.data, " ssao\n"));
    rill_strbuf_free(&sb);
}

/* Bloom: bright emissive spheres glow into their surroundings; light below the threshold does
 * not bloom, and no pixel gets darker. */
static void test_bloom(void **state) {
    fixture *f = *state;
    camera(f, 0, 0.5f, 5.0f, 0, 0.5f, 0);
    f->snap.view.clear_color[0] = f->snap.view.clear_color[1] = f->snap.view.clear_color[2] = 0.01f;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.05f;
    const float em[3][3] = {{12, 2, 1}, {1, 10, 2}, {2, 3, 14}};
    for (int i = 0; i < 3; i++) {
        rill_material_desc md;
        memset(&md, 0, sizeof(md));
        md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.1f, md.base_color[3] = 1;
        memcpy(md.emissive, em[i], sizeof(em[i]));
        rill_error e = {0};
        rill_material m = rill_render_material_create(f->r, &md, &e);
        assert_true(m.id != 0);
        add(f, f->sphere, m, -1.5f + 1.5f * (float)i, 0.5f, 0, 0.8f);
    }
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    static uint8_t off[W * H * 4], on[W * H * 4];
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, off, sizeof(off), &err), RILL_OK);
    f->snap.view.bloom.enabled = true;
    f->snap.view.bloom.intensity = 0.3f;
    render_and_check(f, "bloom");
    assert_int_equal(rill_renderer_read_pixels(f->r, on, sizeof(on), &err), RILL_OK);
    uint32_t brighter = 0, darker = 0;
    for (size_t i = 0; i < sizeof(on); i++) {
        if (i % 4 == 3) {
            continue;
        }
        brighter += on[i] > off[i] + 8;
        darker += on[i] + 1 < off[i];
    }
    assert_true(brighter > 1000); /* halos */
    assert_int_equal(darker, 0);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    assert_non_null(strstr(sb.data, "bloom_up0"));
    rill_strbuf_free(&sb);
}

/* Auto exposure: a dim and a bright version of the same scene end up at similar brightness, which
 * a fixed exposure cannot do; the first frame jumps straight to its target. */
static double mean_of(const uint8_t *px, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i += 4) {
        sum += px[i] + px[i + 1] + px[i + 2];
    }
    return sum / (double)(n / 4 * 3);
}

static void test_auto_exposure(void **state) {
    fixture *f = *state;
    static uint8_t px[W * H * 4];
    double fixed[2], autox[2];
    rill_error err = {0};
    for (int bright = 0; bright < 2; bright++) {
        tonemap_scene(f, RILL_TONEMAP_ACES, 0.0f);
        f->snap.sun.illuminance = bright ? 40.0f : 0.6f;
        f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = bright ? 1.0f : 0.015f;
        f->snap.view.clear_color[0] = f->snap.view.clear_color[1] = f->snap.view.clear_color[2] =
            bright ? 1.0f : 0.015f;
        f->snap.instances = f->inst;
        f->snap.instance_count = f->n;
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
        assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof(px), &err), RILL_OK);
        fixed[bright] = mean_of(px, sizeof(px));
        f->snap.view.auto_exposure.enabled = true;
        f->snap.view.auto_exposure.rate = 1.0f;
        for (int i = 0; i < 3; i++) {
            assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
        }
        assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof(px), &err), RILL_OK);
        autox[bright] = mean_of(px, sizeof(px));
    }
    /* Fixed exposure: the bright scene is far brighter. Auto: both land near mid grey. */
    assert_true(fixed[1] - fixed[0] > 100.0);
    assert_true(fabs(autox[1] - autox[0]) < 30.0);
    assert_true(autox[0] > 60.0 && autox[0] < 200.0);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    assert_non_null(strstr(sb.data, "auto_exposure"));
    rill_strbuf_free(&sb);
}

/* render_scale renders the 3D images smaller and upscales in the tonemapper: the output keeps its
 * size and looks like the full-resolution frame, only softer. */
static void test_render_scale(void **state) {
    fixture *f = *state;
    tonemap_scene(f, RILL_TONEMAP_ACES, 0.0f);
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    static uint8_t full[W * H * 4], half[W * H * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, full, sizeof(full), &err), RILL_OK);
    rill_renderer_set_render_scale(f->r, 0.5f);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(f->r, half, sizeof(half), &err), RILL_OK);
    rill_strbuf sb = {0};
    rill_renderer_dump_graph(f->r, &sb);
    assert_non_null(strstr(sb.data, "image hdr: transient rgba16f 96x96"));
    assert_non_null(strstr(sb.data, "image ldr: transient rgba8_unorm 192x192"));
    rill_strbuf_free(&sb);
    double sum = 0.0;
    for (size_t i = 0; i < sizeof(full); i++) {
        sum += abs((int)full[i] - (int)half[i]);
    }
    double mean = sum / (double)sizeof(full);
    assert_true(mean > 0.0);                    /* it did change */
    assert_true(mean < 6.0);                    /* but only by resampling */
    rill_renderer_set_render_scale(f->r, 0.0f); /* back to the default */
}

/* A user pass slotted between two anchors (handles from rill_render_graph) runs between them; an
 * edge to a pass that does not exist ({0}) fails the frame with a message saying so. */
static int user_runs;
static void user_exec(rill_rg_ctx *ctx, void *user) {
    (void)ctx;
    (void)user;
    user_runs++;
}
static rill_result setup_user_graph(const rill_render_graph *fg, void *user, rill_error *err) {
    rill_rg_pass_desc d = {.label = "my_effect", .exec = user_exec, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(fg->graph, &d, err);
    rill_rg_pass chain[] = {fg->end_main_pass, p, fg->tonemapping};
    RILL_TRY(rill_rg_add_edges(fg->graph, chain, 3, err));
    rill_rg_pass none = {0};
    return user ? rill_rg_add_edge(fg->graph, p, none, err) : RILL_OK;
}

static void test_user_pass_between_anchors(void **state) {
    (void)state;
    for (int bad = 0; bad < 2; bad++) {
        rill_renderer_desc d;
        memset(&d, 0, sizeof(d));
        d.width = 64;
        d.height = 64;
        d.validation = 1;
        d.setup_graph = setup_user_graph;
        d.setup_graph_user = bad ? (void *)1 : NULL;
        rill_renderer *r = NULL;
        rill_error err = {0};
        assert_non_null(r = rill_renderer_create(&d, &err));
        rill_render_snapshot snap;
        memset(&snap, 0, sizeof(snap));
        user_runs = 0;
        rill_result res = rill_renderer_render(r, &snap, &err);
        if (bad) {
            assert_int_equal(res, RILL_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(err.msg, "no such pass"));
        } else {
            assert_int_equal(res, RILL_OK);
            assert_int_equal(user_runs, 1);
            rill_strbuf sb = {0};
            rill_renderer_dump_graph(r, &sb);
            const char *a = strstr(sb.data, RILL_RG_END_MAIN_PASS);
            const char *m = strstr(sb.data, "my_effect");
            const char *t = strstr(sb.data, " tonemapping");
            assert_true(a && m && t && a < m && m < t);
            rill_strbuf_free(&sb);
        }
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        assert_int_equal(st.validation_messages, 0);
        rill_renderer_destroy(r);
    }
}

/* Several frames in flight: timestamps come back per pass, uploads are budgeted, stale handles
 * draw nothing. */
static void test_frames_and_stats(void **state) {
    fixture *f = *state;
    camera(f, 0, 2, 5, 0, 0, 0);
    sun(f, 0, -1, -0.2f, 2.0f, true);
    ground(f);
    rill_material m = mat(f, 1, 1, 1, 1, 0, 0.5f, RILL_ALPHA_OPAQUE);
    add(f, f->cube, m, 0, 0.5f, 0, 1);
    rill_mesh gone = rill_render_mesh_cube(f->r, NULL);
    rill_render_mesh_destroy(f->r, gone);
    add(f, gone, m, 1, 0.5f, 0, 1);        /* stale: skipped */
    add(f, f->cube, m, 0, 0.5f, 40.0f, 1); /* behind the camera: culled */
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    rill_error err = {0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_wait_idle(f->r, &err), RILL_OK);
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.instances_submitted, 4);
    assert_int_equal(st.instances_visible, 2);
    assert_true(st.pass_count >= 5);
    bool saw_opaque = false;
    for (uint32_t i = 0; i < st.pass_count; i++) {
        assert_true(st.pass_gpu_ms[i] >= 0.0);
        saw_opaque |= strcmp(st.pass_names[i], "opaque") == 0;
    }
    assert_true(saw_opaque);
    assert_true(st.validation);
    assert_true(st.gpu_memory_blocks >= 1);
    assert_int_equal(st.validation_messages, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pbr_lit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shadows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tonemap_aces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tonemap_agx, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tonemap_none_exposure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transparency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_textured, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frames_and_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gltf_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_extract, setup, teardown),
        cmocka_unit_test_setup_teardown(test_render_scale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_render_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alpha_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prepass_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_motion_history, setup, teardown),
        cmocka_unit_test_setup_teardown(test_motion_history_new_ids_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lists_follow_instances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssao, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bloom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auto_exposure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clustered_lights, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clustered_lights_beside_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nearest_lights, setup, teardown),
        cmocka_unit_test(test_user_pass_between_anchors),
        cmocka_unit_test(test_compute_effects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
