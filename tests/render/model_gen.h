/* model_gen.h: a small generated glTF model for the model-spawning tests (render and app): two
 * meshes (one with one primitive, one with two), a node hierarchy with TRS and matrix transforms,
 * a KHR_lights_punctual point light and a perspective camera, written as .glb bytes with
 * rill_glb_write_memory. Header-only so both test folders can share it. */
#ifndef RILL_TESTS_MODEL_GEN_H
#define RILL_TESTS_MODEL_GEN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/base.h"
#include "rill/formats/gltf.h"

/* The values the tests check against. */
#define MODEL_GEN_LIGHT_INTENSITY 30.0f
#define MODEL_GEN_LIGHT_RANGE 12.0f
#define MODEL_GEN_CAM_YFOV 0.7f
#define MODEL_GEN_CAM_ZNEAR 0.05f
#define MODEL_GEN_CAM_ZFAR 100.0f

/* The corners of a cube face in its (tangent, bitangent) axes, in vertex order. */
static const float model_gen_corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};

/* A unit cube (-0.5..0.5): 24 vertices with face normals and tangents, 36 indices. */
static inline void model_gen_cube(float pos[72], float nrm[72], float tan4[96], uint32_t idx[36]) {
    static const float faces[6][9] = {
        {1, 0, 0, 0, 0, -1, 0, 1, 0}, {-1, 0, 0, 0, 0, 1, 0, 1, 0}, {0, 1, 0, 1, 0, 0, 0, 0, -1},
        {0, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 1, 1, 0, 0, 0, 1, 0},  {0, 0, -1, -1, 0, 0, 0, 1, 0},
    };
    const float(*corners)[2] = model_gen_corners;
    for (int fc = 0; fc < 6; fc++) {
        for (int c = 0; c < 4; c++) {
            int v = fc * 4 + c;
            for (int k = 0; k < 3; k++) {
                pos[v * 3 + k] = 0.5f * (faces[fc][k] + corners[c][0] * faces[fc][3 + k] +
                                         corners[c][1] * faces[fc][6 + k]);
                nrm[v * 3 + k] = faces[fc][k];
                tan4[v * 4 + k] = faces[fc][3 + k];
            }
            tan4[v * 4 + 3] = 1.0f;
        }
        uint32_t b = (uint32_t)fc * 4, *ix = idx + fc * 6;
        ix[0] = b, ix[1] = b + 1, ix[2] = b + 2, ix[3] = b, ix[4] = b + 2, ix[5] = b + 3;
    }
}

/* The texture coordinates of model_gen_cube's 24 vertices: each face shows the whole texture
 * upright (v grows downwards). */
static inline void model_gen_cube_uv(float uv[48]) {
    for (int v = 0; v < 24; v++) {
        uv[v * 2] = (model_gen_corners[v % 4][0] + 1) * 0.5f;
        uv[v * 2 + 1] = 1.0f - (model_gen_corners[v % 4][1] + 1) * 0.5f;
    }
}

/* Writes the test model as .glb bytes (*out owned by the caller, rill_free). Nodes:
 *   0 "base"  translation (0, 0.5, 0), mesh 0 (one primitive), children 1 and 2
 *   1 "arm"   translation (1, 1, 0), 90 degrees about +Y, scale 0.5, mesh 1 (two primitives)
 *   2 "lamp"  translation (0, 2, 0), point light 0
 *   3 "eye"   a matrix: translation (0, 1.5, 6), camera 0
 * Scene "testscene" with roots 0 and 3. */
static inline rill_result model_gen_glb(uint8_t **out, size_t *out_size, rill_error *err) {
    float pos[72], nrm[72], tan4[96];
    uint32_t idx[36];
    model_gen_cube(pos, nrm, tan4, idx);
    rill_gltf_primitive prims[3];
    memset(prims, 0, sizeof(prims));
    for (int i = 0; i < 3; i++) {
        prims[i].vertex_count = 24;
        prims[i].positions = pos;
        prims[i].normals = nrm;
        prims[i].tangents = tan4;
        prims[i].index_count = 36;
        prims[i].indices = idx;
        prims[i].material = i == 2 ? -1 : i; /* the last one uses the default material */
        for (int k = 0; k < 3; k++) {
            prims[i].bounds_min[k] = -0.5f, prims[i].bounds_max[k] = 0.5f;
        }
    }
    rill_gltf_mesh meshes[2] = {{"box", 1, &prims[0]}, {"pair", 2, &prims[1]}};
    rill_gltf_material mats[2];
    memset(mats, 0, sizeof(mats));
    for (int i = 0; i < 2; i++) {
        mats[i].base_color_factor[0] = i ? 0.2f : 0.9f;
        mats[i].base_color_factor[1] = 0.6f;
        mats[i].base_color_factor[2] = i ? 0.9f : 0.2f;
        mats[i].base_color_factor[3] = 1.0f;
        mats[i].roughness_factor = 0.6f;
        mats[i].base_color_texture = mats[i].metallic_roughness_texture = mats[i].normal_texture =
            mats[i].occlusion_texture = mats[i].emissive_texture = (rill_gltf_texref){-1, 0, 1.0f};
        mats[i].alpha_cutoff = 0.5f;
    }
    rill_gltf_node nodes[4];
    memset(nodes, 0, sizeof(nodes));
    static const char *names[4] = {"base", "arm", "lamp", "eye"};
    for (int i = 0; i < 4; i++) {
        nodes[i].name = (char *)names[i];
        nodes[i].parent = -1;
        nodes[i].mesh = nodes[i].camera = nodes[i].light = -1;
        nodes[i].rotation[3] = 1.0f;
        nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1.0f;
    }
    int32_t base_children[2] = {1, 2};
    nodes[0].translation[1] = 0.5f;
    nodes[0].mesh = 0;
    nodes[0].child_count = 2;
    nodes[0].children = base_children;
    nodes[1].parent = 0;
    nodes[1].translation[0] = 1.0f, nodes[1].translation[1] = 1.0f;
    nodes[1].rotation[1] = sinf(0.25f * 3.14159265f);
    nodes[1].rotation[3] = cosf(0.25f * 3.14159265f);
    nodes[1].scale[0] = nodes[1].scale[1] = nodes[1].scale[2] = 0.5f;
    nodes[1].mesh = 1;
    nodes[2].parent = 0;
    nodes[2].translation[1] = 2.0f;
    nodes[2].light = 0;
    nodes[3].has_matrix = true;
    nodes[3].camera = 0;
    /* The TRS-to-matrix part of the other nodes is filled by the reader; the writer uses TRS. */
    for (int i = 0; i < 4; i++) {
        memset(nodes[i].matrix, 0, sizeof(nodes[i].matrix));
        nodes[i].matrix[0] = nodes[i].matrix[5] = nodes[i].matrix[10] = nodes[i].matrix[15] = 1;
    }
    nodes[3].matrix[12] = 0.0f, nodes[3].matrix[13] = 1.5f, nodes[3].matrix[14] = 6.0f;
    rill_gltf_light light;
    memset(&light, 0, sizeof(light));
    light.name = "bulb";
    light.type = RILL_GLTF_LIGHT_POINT;
    light.color[0] = 1.0f, light.color[1] = 0.8f, light.color[2] = 0.6f;
    light.intensity = MODEL_GEN_LIGHT_INTENSITY;
    light.range = MODEL_GEN_LIGHT_RANGE;
    rill_gltf_camera cam;
    memset(&cam, 0, sizeof(cam));
    cam.name = "view";
    cam.type = RILL_GLTF_CAMERA_PERSPECTIVE;
    cam.yfov = MODEL_GEN_CAM_YFOV;
    cam.znear = MODEL_GEN_CAM_ZNEAR;
    cam.zfar = MODEL_GEN_CAM_ZFAR;
    int32_t roots[2] = {0, 3};
    rill_gltf_scene scene = {"testscene", 2, roots};
    rill_gltf_model model;
    memset(&model, 0, sizeof(model));
    model.mesh_count = 2, model.meshes = meshes;
    model.node_count = 4, model.nodes = nodes;
    model.scene_count = 1, model.scenes = &scene, model.default_scene = 0;
    model.material_count = 2, model.materials = mats;
    model.light_count = 1, model.lights = &light;
    model.camera_count = 1, model.cameras = &cam;
    return rill_glb_write_memory(&model, NULL, out, out_size, err);
}

/* Writes the test model as DIR/models/<names[i]> for each of `count` names, with DIR =
 * $RILL_TEST_TMP/<sub> (/tmp/rill_test/<sub> without it), folders created; dir (dir_size bytes)
 * receives DIR, the folder to mount. */
static inline rill_result model_gen_write_files(const char *sub, const char *const *names,
                                                int count, char *dir, size_t dir_size,
                                                rill_error *err) {
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    rill_result r = model_gen_glb(&glb, &glb_size, err);
    const char *tmp_env = getenv("RILL_TEST_TMP");
    snprintf(dir, dir_size, "%s/%s", tmp_env ? tmp_env : "/tmp/rill_test", sub);
    char path[1200];
    snprintf(path, sizeof(path), "%s/models", dir);
    if (r == RILL_OK) {
        r = rill_dir_create_all(path, err);
    }
    for (int i = 0; i < count && r == RILL_OK; i++) {
        snprintf(path, sizeof(path), "%s/models/%s", dir, names[i]);
        r = rill_file_write_all(path, glb, glb_size, err);
    }
    rill_free(glb);
    return r;
}

#endif
