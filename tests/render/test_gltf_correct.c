/* test_gltf_correct.c: glTF shading corrections on lavapipe with validation on. A primitive
 * without a material draws with glTF's default material (white, metallic 1, roughness 1), not the
 * renderer's grey dielectric; a vertex tangent parallel to its normal, and a zero-length vertex
 * normal, shade like a well-formed mesh instead of turning the face black (a normalize() of a
 * zero vector in the fragment shader is NaN). Each case renders a lit cube seen on a corner (three
 * faces) and compares it with a reference rendering of a well-formed equivalent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model_gen.h"
#include "render_test.h"

#include <stdlib.h>

#include "golden.h"

#define W 96
#define H 96

static rill_renderer *renderer(void) {
    return render_test_renderer((rill_renderer_desc){.width = W, .height = H});
}

/* Renders one instance of mesh/mat at the origin, seen from a corner and lit by a sun from
 * another, into px (W * H * 4). */
static void render_one(rill_renderer *r, rill_mesh mesh, rill_material mat, uint8_t *px) {
    rill_render_instance in;
    render_test_place(&in, 1, mesh, mat, (float[3]){0, 0, 0}, 1.0f, 0.0f);
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 inv;
    render_test_look_at(inv, (float[3]){1.6f, 1.3f, 2.0f}, (float[3]){0, 0, 0});
    memcpy(snap.view.world_from_view, inv, sizeof(mat4));
    snap.view.fov_y = 0.8f;
    snap.has_sun = true;
    float l = sqrtf(0.3f * 0.3f + 1.0f + 0.5f * 0.5f);
    snap.sun.direction[0] = -0.3f / l;
    snap.sun.direction[1] = -1.0f / l;
    snap.sun.direction[2] = -0.5f / l;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = 3.0f;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.3f;
    snap.instances = &in;
    snap.instance_count = 1;
    rill_error err = {0};
    /* Two frames: the first may still be uploading the mesh. */
    for (int f = 0; f < 2; f++) {
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
    if (rill_renderer_read_pixels(r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

/* Pixels whose colour differs by more than the golden tolerance on some channel. */
static uint32_t differing(const uint8_t *a, const uint8_t *b) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        for (int c = 0; c < 3; c++) {
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > RILL_GOLDEN_TOLERANCE) {
                n++;
                break;
            }
        }
    }
    return n;
}

/* Pixels that are not the clear colour of the top-left corner. */
static uint32_t covered(const uint8_t *px) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        n += memcmp(&px[i * 4], px, 3) != 0;
    }
    return n;
}

/* The unit cube of model_gen.h as renderer vertices; `how` breaks it: 0 = well formed, 1 = every
 * tangent along its normal, 2 = every normal zero, 3 = no tangents. */
static rill_mesh cube_mesh(rill_renderer *r, int how) {
    float pos[72], nrm[72], tan4[96], uv[48];
    uint32_t idx[36];
    model_gen_cube(pos, nrm, tan4, idx);
    model_gen_cube_uv(uv);
    rill_vertex v[24];
    memset(v, 0, sizeof(v));
    for (int i = 0; i < 24; i++) {
        memcpy(v[i].position, &pos[i * 3], 12);
        memcpy(v[i].uv, &uv[i * 2], 8);
        if (how != 2) {
            memcpy(v[i].normal, &nrm[i * 3], 12);
        }
        if (how == 0) {
            memcpy(v[i].tangent, &tan4[i * 4], 16);
        } else if (how == 1 || how == 2) {
            memcpy(v[i].tangent, &nrm[i * 3], 12);
            v[i].tangent[3] = 1.0f;
        }
    }
    rill_error err = {0};
    rill_mesh_desc d = {.vertices = v, .vertex_count = 24, .indices = idx, .index_count = 36};
    rill_mesh m = rill_render_mesh_create(r, &d, &err);
    assert_true(m.id != 0);
    return m;
}

/* A tangent parallel to the normal, a zero normal and no tangent at all shade like the cube with
 * a proper tangent frame: no black (NaN) faces. */
static void test_degenerate_frames_shade(void **state) {
    (void)state;
    rill_renderer *r = renderer();
    if (!r) {
        skip();
    }
    rill_material mat = render_test_material(
        r, (rill_material_desc){.base_color = {0.8f, 0.5f, 0.3f, 1}, .roughness = 0.6f});
    static uint8_t ref[W * H * 4], px[W * H * 4];
    render_one(r, cube_mesh(r, 0), mat, ref);
    assert_true(covered(ref) > W * H / 8);
    const char *what[] = {"", "tangents along the normals", "zero normals", "no tangents"};
    for (int how = 1; how <= 3; how++) {
        render_one(r, cube_mesh(r, how), mat, px);
        uint32_t bad = differing(ref, px);
        print_message("%s: %u of %u pixels differ\n", what[how], bad, W * H);
        assert_true(bad <= W * H / 200);
    }
    render_test_destroy_clean(r, false);
}

/* A one-primitive glTF model of the cube; material -1 = none, else one material with the given
 * metallic and roughness factors. */
static void draw_gltf_cube(rill_renderer *r, int32_t material, float metallic, float roughness,
                           uint8_t *px) {
    float pos[72], nrm[72], tan4[96];
    uint32_t idx[36];
    model_gen_cube(pos, nrm, tan4, idx);
    rill_gltf_primitive prim = {.vertex_count = 24,
                                .positions = pos,
                                .normals = nrm,
                                .index_count = 36,
                                .indices = idx,
                                .material = material,
                                .bounds_min = {-0.5f, -0.5f, -0.5f},
                                .bounds_max = {0.5f, 0.5f, 0.5f}};
    rill_gltf_mesh mesh = {.name = "cube", .primitive_count = 1, .primitives = &prim};
    rill_gltf_node node = RILL_GLTF_MESH_NODE("cube", 0);
    int32_t root = 0;
    rill_gltf_scene scene = {.node_count = 1, .nodes = &root};
    rill_gltf_material mt = {.base_color_factor = {1, 1, 1, 1},
                             .metallic_factor = metallic,
                             .roughness_factor = roughness,
                             .base_color_texture = {.texture = -1},
                             .metallic_roughness_texture = {.texture = -1},
                             .normal_texture = {.texture = -1, .scale = 1},
                             .occlusion_texture = {.texture = -1, .scale = 1},
                             .emissive_texture = {.texture = -1},
                             .alpha_cutoff = 0.5f};
    rill_gltf_model m = {.mesh_count = 1,
                         .meshes = &mesh,
                         .node_count = 1,
                         .nodes = &node,
                         .scene_count = 1,
                         .scenes = &scene,
                         .default_scene = 0,
                         .material_count = material >= 0 ? 1u : 0u,
                         .materials = material >= 0 ? &mt : NULL};
    rill_render_model rm;
    rill_error err = {0};
    assert_int_equal(rill_render_model_create(r, &m, NULL, &rm, &err), RILL_OK);
    assert_int_equal(rm.instance_count, 1);
    render_one(r, rm.instances[0].mesh, rm.instances[0].material, px);
    rill_render_model_destroy(r, &rm);
}

/* glTF 2.0, 3.9.6: a primitive without a material is white, metallic 1, roughness 1. */
static void test_default_material_is_gltfs(void **state) {
    (void)state;
    rill_renderer *r = renderer();
    if (!r) {
        skip();
    }
    static uint8_t none[W * H * 4], metal[W * H * 4], plastic[W * H * 4];
    draw_gltf_cube(r, -1, 0, 0, none);
    draw_gltf_cube(r, 0, 1.0f, 1.0f, metal);
    draw_gltf_cube(r, 0, 0.0f, 1.0f, plastic);
    assert_true(covered(none) > W * H / 8);
    uint32_t vs_metal = differing(none, metal), vs_plastic = differing(none, plastic);
    print_message("no material vs metal: %u, vs plastic: %u pixels differ\n", vs_metal, vs_plastic);
    assert_true(vs_metal <= W * H / 200);
    assert_true(vs_plastic > W * H / 20);
    render_test_destroy_clean(r, false);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degenerate_frames_shade),
        cmocka_unit_test(test_default_material_is_gltfs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
