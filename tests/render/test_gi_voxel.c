/* Voxel-cone GI (GlobalIllumination quality SdfLow / SdfHigh) on lavapipe, validation on, in the
 * closed box of gi_box_fixture.h: the floor by the red wall is redder than by the green wall with
 * either tier and not without GI; the clipmap fills (voxels, four resident cascades, a measured
 * voxelization time); a despawned instance's voxels leave; the voxelization spends at most its
 * budget of work units a frame and still finishes; VoxelCache shows the voxels' light; Hwrt
 * runs SdfHigh and says so once; hostile settings clamp; red and green walls that are a glTF
 * model (its meshes keep no CPU copy for picking) voxelize and bleed too, and leave with the
 * model; the specular cone colours a rough metal floor that takes no diffuse bounce; a moving
 * instance stays out of the clipmap until it stands still; walls whose colour is their base-colour
 * texture's (white factors: an RGBA8 red texture, a BC1 green one) bleed their texture's colour. */
#include "base64_encode.h"
#include "rill/formats/bc.h"
#include "rill/formats/gltf.h"
#include "rill/formats/rmip.h"
#include "rill/render/effects.h"
#include "rill/render/reflections.h"

#include <stdlib.h>

#include "gi_box_fixture.h"

/* Colour bleeding with one tier: passes, stats, the ratio against the picture without GI. */
static void bleed_with(rill_gi_quality q, double *out_ratio) {
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    static uint8_t off[W * H * 4], on[W * H * 4];
    box_render(&b, 3, off);
    double ratio_off = bleed(&b, off);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = q;
    use_gi(&b, &g);
    box_render(&b, 10, on);
    double ratio_on = bleed(&b, on);
    print_message("%s: bleed ratio off %.3f on %.3f\n", q == RILL_GI_SDF_LOW ? "SdfLow" : "SdfHigh",
                  ratio_off, ratio_on);
    assert_true(has_pass(&b, "vxgi_trace") && has_pass(&b, "ssgi_temporal") &&
                has_pass(&b, "ssgi_apply"));
    assert_false(has_pass(&b, "ssgi")); /* the cone trace replaces the screen-space one */
    assert_true(fabs(ratio_off - 1.0) < 0.01);
    rill_render_stats st = box_stats(&b);
    print_message("voxels filled %u, cascades resident %u, voxelize %.3f ms, %llu units\n",
                  st.gi_voxels_filled, st.gi_cascades_resident, st.gi_voxelize_ms,
                  (unsigned long long)st.gi_voxel_units);
    assert_true(st.gi_voxels_filled > 100);
    assert_int_equal(st.gi_cascades_resident, 4);
    assert_true(st.gi_ms > 0.0);
    *out_ratio = ratio_on;
    /* Off: no voxel pass, the picture without GI. */
    g.quality = RILL_GI_OFF;
    static uint8_t off2[W * H * 4];
    box_render(&b, 2, off2);
    assert_false(has_pass(&b, "vxgi_trace") || has_pass(&b, "vxgi_inject"));
    assert_memory_equal(off, off2, sizeof(off));
    assert_int_equal(render_test_destroy(b.r), 0);
}

static void test_voxel_gi_bleeding(void **state) {
    (void)state;
    double low, high;
    bleed_with(RILL_GI_SDF_LOW, &low);
    bleed_with(RILL_GI_SDF_HIGH, &high);
    assert_true(low > 1.03);
    assert_true(high > 1.03);
}

/* An instance that leaves the snapshot (despawned, streamed out) takes its voxels with it; one
 * that comes back brings them again. */
static void test_voxel_gi_instances_leave(void **state) {
    (void)state;
    box_scene b;
    rill_render_global_illumination g;
    box_open_gi(&b, &g, RILL_GI_SDF_LOW);
    box_render(&b, 6, NULL);
    uint32_t all = box_stats(&b).gi_voxels_filled;
    b.inst[4] = b.inst[5]; /* the red wall goes (the green one twice: one id, counted once) */
    box_render(&b, 6, NULL);
    uint32_t without = box_stats(&b).gi_voxels_filled;
    print_message("voxels with the red wall %u, without %u\n", all, without);
    assert_true(without < all);
    box_close(&b);
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    use_gi(&b, &g);
    b.snap.instance_count = 4; /* no coloured walls at all */
    box_render(&b, 6, NULL);
    uint32_t walls_out = box_stats(&b).gi_voxels_filled;
    b.snap.instance_count = 6;
    box_render(&b, 6, NULL);
    assert_int_equal(box_stats(&b).gi_voxels_filled, all); /* back: the same voxels */
    assert_true(walls_out < without);
    box_close(&b);
}

/* A small budget: no frame spends more work units than it, and the clipmap still fills to the
 * same voxels as with the default budget, over more frames. */
static void test_voxel_gi_budget(void **state) {
    (void)state;
    box_scene b;
    rill_render_global_illumination g;
    box_open_gi(&b, &g, RILL_GI_SDF_LOW);
    box_render(&b, 6, NULL);
    uint32_t want = box_stats(&b).gi_voxels_filled;
    box_close(&b);

    const uint32_t budget = 300;
    box_open_budget(&b, RILL_RENDER_QUALITY_HIGH, budget);
    use_gi(&b, &g);
    uint32_t frames = 0, busy = 0;
    for (; frames < 400 && box_stats(&b).gi_voxels_filled != want; frames++) {
        box_render(&b, 1, NULL);
        rill_render_stats st = box_stats(&b);
        assert_true(st.gi_voxel_units <= budget);
        busy += st.gi_voxel_units > budget / 2 ? 1u : 0u;
    }
    print_message("budget %u: filled %u of %u voxels after %u frames (%u frames over half)\n",
                  budget, box_stats(&b).gi_voxels_filled, want, frames, busy);
    assert_int_equal(box_stats(&b).gi_voxels_filled, want);
    assert_true(frames > 6); /* it did take longer */
    assert_true(busy > 0);
    box_close(&b);
}

/* VoxelCache shows the clipmap's light: the red wall's voxels are red. */
static void test_voxel_gi_cache_view(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_HIGH;
    g.debug = RILL_GI_DEBUG_VOXEL_CACHE;
    use_gi(&b, &g);
    static uint8_t px[W * H * 4];
    box_render(&b, 6, px);
    assert_true(has_pass(&b, "vxgi_debug"));
    assert_false(has_pass(&b, "ssgi_apply"));
    double lr, lg, rr, rg;
    patch_rg(&b, px, (vec3){-0.99f, 0.5f, -0.9f}, &lr, &lg);
    patch_rg(&b, px, (vec3){0.99f, 0.5f, -0.9f}, &rr, &rg);
    print_message("voxel cache: by the red wall r %.0f g %.0f, by the green r %.0f g %.0f\n",
                  lr / 49, lg / 49, rr / 49, rg / 49);
    assert_true(lr > 2.0 * lg);
    assert_true(rg > 2.0 * rr);
    box_close(&b);
}

/* Hwrt runs SdfHigh and says so once; hostile values on a voxel tier clamp. */
static void test_voxel_gi_hwrt_and_hostile(void **state) {
    (void)state;
    box_scene b;
    rill_render_global_illumination g;
    box_open_gi(&b, &g, RILL_GI_HWRT);
    render_test_log_begin();
    box_render(&b, 3, NULL);
    assert_true(has_pass(&b, "vxgi_trace"));
    g.quality = RILL_GI_SDF_LOW;
    g.intensity = INFINITY;
    g.specular_intensity = NAN;
    box_render(&b, 2, NULL);
    render_test_log_end();
    const char *at = strstr(render_test_logged, "quality Hwrt");
    assert_non_null(at);
    assert_null(strstr(at + 1, "quality Hwrt"));
    assert_non_null(strstr(render_test_logged, "running SdfHigh"));
    assert_non_null(strstr(render_test_logged, "intensity = inf"));
    assert_non_null(strstr(render_test_logged, "specular_intensity = nan"));
    assert_true(has_pass(&b, "vxgi_trace"));
    assert_int_equal(render_test_destroy(b.r), 0);
}

/* The specular cone: a rough metal floor takes no diffuse bounce (metals reflect none), so without
 * the specular cone it shows no colour from the walls; with it, the floor by the red wall reflects
 * red and the floor by the green wall green. */
static void test_voxel_gi_specular_cone(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_material_desc md = {.base_color = {0.9f, 0.9f, 0.9f, 1.0f},
                             .metallic = 1.0f,
                             .roughness = 0.5f,
                             .roughness_set = true};
    b.inst[0].material = render_test_material(b.r, md);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_LOW;
    g.intensity = 1.0f;
    g.specular_intensity = 0.0f;
    use_gi(&b, &g);
    static uint8_t diffuse[W * H * 4], spec[W * H * 4];
    box_render(&b, 10, diffuse);
    double ratio_diffuse = bleed(&b, diffuse);
    g.specular_intensity = 1.0f;
    box_render(&b, 4, spec);
    double ratio_spec = bleed(&b, spec);
    print_message("rough metal floor: bleed ratio without the specular cone %.3f, with %.3f\n",
                  ratio_diffuse, ratio_spec);
    assert_true(fabs(ratio_diffuse - 1.0) < 0.02);
    assert_true(ratio_spec > 1.05);
    box_close(&b);
}

/* An instance that only moves (a car, a door) leaves the clipmap while it moves and comes back
 * once it has stood still for RILL__VOX_STILL_FRAMES (30) frames, where it stands: re-voxelizing
 * its bricks every frame would keep them from ever finishing. */
static void test_voxel_gi_moving_instance(void **state) {
    (void)state;
    box_scene b;
    rill_render_global_illumination g;
    box_open_gi(&b, &g, RILL_GI_SDF_LOW);
    box_render(&b, 6, NULL);
    uint32_t room = box_stats(&b).gi_voxels_filled;
    /* a 0.6 m cube standing on the floor in the middle of the room */
    static rill_render_instance inst[7];
    memcpy(inst, b.inst, sizeof(b.inst));
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(b.r, &err);
    place_box(&inst[6], 7, cube, b.inst[0].material, (vec3){0, 0.3f, 0}, (vec3){0.6f, 0.6f, 0.6f});
    b.snap.instances = inst;
    b.snap.instance_count = 7;
    box_render(&b, 6, NULL);
    uint32_t with_cube = box_stats(&b).gi_voxels_filled;
    for (int i = 0; i < 8; i++) { /* it slides 2 cm a frame */
        inst[6].transform[12] += 0.02f;
        box_render(&b, 1, NULL);
    }
    uint32_t moving = box_stats(&b).gi_voxels_filled;
    box_render(&b, 40, NULL); /* still again */
    uint32_t settled = box_stats(&b).gi_voxels_filled;
    print_message("voxels: room %u, with the cube %u, while it moves %u, once still %u\n", room,
                  with_cube, moving, settled);
    assert_true(with_cube > room);
    assert_int_equal(moving, room);
    assert_true(settled > room);
    box_close(&b);
}

/* A probe capture's faces (views into render textures) use the clipmap where it is: a capture
 * 200 m away does not scroll it there and back (no brick re-voxelized, the same voxels). */
static void test_voxel_gi_capture_keeps_clipmap(void **state) {
    (void)state;
    box_scene b;
    rill_render_global_illumination g;
    box_open_gi(&b, &g, RILL_GI_SDF_LOW);
    box_render(&b, 6, NULL);
    uint32_t filled = box_stats(&b).gi_voxels_filled;
    assert_int_equal(box_stats(&b).gi_voxel_units, 0); /* settled */
    rill_render_probe probe;
    memset(&probe, 0, sizeof(probe));
    glm_mat4_identity((vec4 *)probe.world_from_probe);
    probe.world_from_probe[12] = 200.0f;
    probe.world_from_probe[13] = 1.0f;
    probe.falloff = 0.1f;
    probe.intensity = 1.0f;
    probe.capture = true;
    b.snap.probes = &probe;
    b.snap.probe_count = 1;
    uint64_t units = 0;
    for (int i = 0; i < 8; i++) { /* the textures' upload, six faces (one a frame), the bake */
        box_render(&b, 1, NULL);
        units += box_stats(&b).gi_voxel_units;
    }
    rill_render_stats st = box_stats(&b);
    print_message("after the capture: %llu work units, %u voxels (%u before)\n",
                  (unsigned long long)units, st.gi_voxels_filled, filled);
    assert_int_equal(st.probe_bakes, 1);
    assert_int_equal(units, 0);
    assert_int_equal(st.gi_voxels_filled, filled);
    box_close(&b);
}

/* >>walls from a glTF model --------------------------------------------------------------------
 */

/* A .gltf (text, its buffer a base64 data URI) of the box's two coloured walls: one unit cube
 * mesh per wall (24 vertices with normals, 36 indices), a red and a green matte material, two
 * nodes scaling and placing them as gi_box_fixture.h places its cube walls. */
static char *walls_gltf(void) {
    static struct {
        float pos[24][3], nrm[24][3];
        uint32_t idx[36];
    } buf;
    for (int f = 0; f < 6; f++) {
        int ax = f / 2;
        float sgn = (f & 1) ? 0.5f : -0.5f;
        int u = (ax + 1) % 3, v = (ax + 2) % 3;
        for (int c = 0; c < 4; c++) {
            float *p = buf.pos[f * 4 + c], *n = buf.nrm[f * 4 + c];
            memset(n, 0, sizeof(float) * 3);
            p[ax] = sgn;
            n[ax] = sgn * 2.0f;
            p[u] = (c == 1 || c == 2) ? 0.5f : -0.5f;
            p[v] = (c >= 2) ? 0.5f : -0.5f;
        }
        uint32_t q[6] = {0, 1, 2, 0, 2, 3};
        bool flip = sgn < 0.0f;
        for (int k = 0; k < 6; k++) {
            buf.idx[f * 6 + k] = (uint32_t)(f * 4) + (flip ? q[5 - k] : q[k]);
        }
    }
    static char b64[(sizeof(buf) + 2) / 3 * 4 + 1];
    rill_test_base64((const uint8_t *)&buf, sizeof(buf), b64);
    static char json[4096];
    int n = snprintf(
        json, sizeof(json),
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":288},"
        "{\"buffer\":0,\"byteOffset\":288,\"byteLength\":288},"
        "{\"buffer\":0,\"byteOffset\":576,\"byteLength\":144}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\","
        "\"min\":[-0.5,-0.5,-0.5],\"max\":[0.5,0.5,0.5]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5125,\"count\":36,\"type\":\"SCALAR\"}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.9,0.05,0.05,1],"
        "\"metallicFactor\":0,\"roughnessFactor\":1}},"
        "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.05,0.9,0.05,1],"
        "\"metallicFactor\":0,\"roughnessFactor\":1}}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},"
        "\"indices\":2,\"material\":0}]},"
        "{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2,"
        "\"material\":1}]}],"
        "\"nodes\":[{\"mesh\":0,\"translation\":[-1.05,1,0],\"scale\":[0.1,2.2,2.2]},"
        "{\"mesh\":1,\"translation\":[1.05,1,0],\"scale\":[0.1,2.2,2.2]}],"
        "\"scenes\":[{\"nodes\":[0,1]}],\"scene\":0}",
        sizeof(buf), b64);
    assert_true(n > 0 && (size_t)n < sizeof(json));
    return json;
}

/* The coloured walls are the model's two instances (renumbered after the fixture's own). */
static void model_walls(box_scene *b, const rill_render_model *model) {
    assert_int_equal(model->instance_count, 2);
    for (uint32_t i = 0; i < 2; i++) {
        b->inst[4 + i] = model->instances[i];
        b->inst[4 + i].id = 5 + i;
    }
}

static void test_voxel_gi_model_walls(void **state) {
    (void)state;
    const char *json = walls_gltf();
    rill_gltf_model *gm = NULL;
    rill_error err = {0};
    assert_int_equal(rill_gltf_read_memory(json, strlen(json), NULL, &gm, &err), RILL_OK);
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_model model;
    assert_int_equal(rill_render_model_create(b.r, gm, NULL, &model, &err), RILL_OK);
    rill_gltf_model_free(gm); /* the renderer keeps what it needs */
    /* gpu_only: no triangles for picking, but voxels all the same */
    rill_pick_mesh pm;
    assert_false(rill_render_mesh_triangles(b.r, model.meshes[0], &pm));
    model_walls(&b, &model);
    static uint8_t off[W * H * 4], on[W * H * 4];
    box_render(&b, 3, off);
    double ratio_off = bleed(&b, off);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_LOW;
    use_gi(&b, &g);
    box_render(&b, 10, on);
    double ratio_on = bleed(&b, on);
    uint32_t filled = box_stats(&b).gi_voxels_filled;
    print_message("model walls, SdfLow: bleed ratio off %.3f on %.3f, %u voxels\n", ratio_off,
                  ratio_on, filled);
    assert_true(fabs(ratio_off - 1.0) < 0.01);
    assert_true(ratio_on > 1.03);
    /* the model unloads: its instances leave the snapshot, its meshes (and their voxel copies)
     * go, and so do their voxels */
    b.snap.instance_count = 4;
    rill_render_model_destroy(b.r, &model);
    box_render(&b, 6, NULL);
    uint32_t after = box_stats(&b).gi_voxels_filled;
    print_message("after the model unloads: %u voxels\n", after);
    assert_true(after < filled);
    render_test_destroy_clean(b.r, true);
}

/* >>textured walls ------------------------------------------------------------------------------
 */

/* A white-factor matte material whose base colour is a 8x8 texture of colour c (sRGB bytes) with
 * a white texel in every 4: RGBA8 through rill_render_texture_create, or BC1 through
 * rill_render_texture_create_data (an 8x8 + 4x4 chain). */
static rill_material textured(rill_renderer *r, const uint8_t c[3], bool bc1) {
    static uint8_t px[8 * 8 * 4], bc[32 + 8];
    for (int i = 0; i < 64; i++) {
        bool white = i % 4 == 3;
        for (int k = 0; k < 3; k++) {
            px[4 * i + k] = white ? 255 : c[k];
        }
        px[4 * i + 3] = 255;
    }
    rill_error err = {0};
    rill_texture tex;
    if (!bc1) {
        tex = rill_render_texture_create(
            r, &(rill_texture_desc){.pixels = px, .width = 8, .height = 8, .srgb = true}, &err);
    } else {
        assert_int_equal(rill_bc_encode_image(RILL_TEX_FORMAT_BC1, px, 8, 8, 0, NULL, bc, 32, &err),
                         RILL_OK);
        assert_int_equal(
            rill_bc_encode_image(RILL_TEX_FORMAT_BC1, px, 4, 4, 32, NULL, bc + 32, 8, &err),
            RILL_OK); /* the top-left 4x4 of the same pattern */
        rill_tex_data d = {
            .format = RILL_TEX_FORMAT_BC1, .srgb = true, .width = 8, .height = 8, .level_count = 2};
        d.levels[0] = (rill_tex_level){8, 8, bc, 32};
        d.levels[1] = (rill_tex_level){4, 4, bc + 32, 8};
        tex = rill_render_texture_create_data(r, &d, "bc1 wall", &err);
    }
    assert_true(tex.id != 0);
    rill_material_desc d = {
        .base_color = {1, 1, 1, 1}, .roughness = 1.0f, .base_color_texture = tex};
    return render_test_material(r, d);
}

static void test_voxel_gi_textured_walls(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    b.inst[4].material = textured(b.r, (uint8_t[3]){240, 20, 20}, false);
    b.inst[5].material = textured(b.r, (uint8_t[3]){20, 240, 20}, true);
    static uint8_t off[W * H * 4], on[W * H * 4];
    box_render(&b, 3, off);
    double ratio_off = bleed(&b, off);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.quality = RILL_GI_SDF_LOW;
    use_gi(&b, &g);
    box_render(&b, 10, on);
    double ratio_on = bleed(&b, on);
    print_message("textured walls (white factors), SdfLow: bleed ratio off %.3f on %.3f\n",
                  ratio_off, ratio_on);
    assert_true(fabs(ratio_off - 1.0) < 0.01);
    assert_true(ratio_on > 1.03); /* white voxels (the factor alone) give 1.00 */
    box_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voxel_gi_bleeding),
        cmocka_unit_test(test_voxel_gi_instances_leave),
        cmocka_unit_test(test_voxel_gi_budget),
        cmocka_unit_test(test_voxel_gi_cache_view),
        cmocka_unit_test(test_voxel_gi_hwrt_and_hostile),
        cmocka_unit_test(test_voxel_gi_moving_instance),
        cmocka_unit_test(test_voxel_gi_capture_keeps_clipmap),
        cmocka_unit_test(test_voxel_gi_specular_cone),
        cmocka_unit_test(test_voxel_gi_model_walls),
        cmocka_unit_test(test_voxel_gi_textured_walls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
