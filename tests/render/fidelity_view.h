/* fidelity_view.h: what the glTF fidelity tests (test_gltf_fidelity.c, test_gltf_material_ext.c)
 * do with fidelity_quad.h's square: a W x H renderer, the file read into a renderer model, frames
 * seen head on from (0, 0, 3.5) under a sun shining along -Z, a square in front of a smaller
 * unlit one, and the pixel where a point of the square shows. Header-only (static inline);
 * include after cmocka.h and render_test.h, with W and H defined. */
#ifndef RILL_TEST_FIDELITY_VIEW_H
#define RILL_TEST_FIDELITY_VIEW_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fidelity_quad.h"
#include "rill/formats/gltf.h"
#include "rill/render.h"

/* A W x H renderer (validation on), or NULL when there is no Vulkan renderer. */
static inline rill_renderer *fq_renderer(void) {
    return render_test_renderer((rill_renderer_desc){.width = W, .height = H});
}

/* Reads the file o describes (named `name` in messages) into a renderer model rm of one instance;
 * returns the glTF model (free it after rm). */
static inline rill_gltf_model *fq_load(rill_renderer *r, const fq_opts *o, const char *name,
                                       rill_render_model *rm) {
    static char text[16384];
    size_t n = fq_text(o, text, sizeof(text));
    assert_true(n > 0);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    rill_gltf_read_desc rd = {.name = name};
    if (rill_gltf_read_memory(text, n, &rd, &m, &err) != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    assert_int_equal(rill_render_model_create(r, m, NULL, rm, &err), RILL_OK);
    assert_int_equal(rm->instance_count, 1);
    return m;
}

/* Renders the instances (two frames: the first may still upload the meshes and images) from
 * (0, 0, 3.5) looking at the origin, with a sun of this illuminance shining along -Z (0: none)
 * and sky light `ambient`, and reads the picture into px (W * H * 4). */
static inline void fq_render(rill_renderer *r, const rill_render_instance *inst, uint32_t count,
                             float sun, float ambient, uint8_t *px) {
    rill_render_snapshot snap;
    memset(&snap, 0, sizeof(snap));
    mat4 inv;
    render_test_look_at(inv, (float[3]){0, 0, 3.5f}, (float[3]){0, 0, 0});
    memcpy(snap.view.world_from_view, inv, sizeof(mat4));
    snap.view.fov_y = 0.8f;
    snap.has_sun = sun > 0.0f;
    snap.sun.direction[2] = -1.0f;
    snap.sun.color[0] = snap.sun.color[1] = snap.sun.color[2] = 1.0f;
    snap.sun.illuminance = sun;
    snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = ambient;
    snap.instances = inst;
    snap.instance_count = count;
    rill_error err = {0};
    for (int f = 0; f < 2; f++) {
        if (rill_renderer_render(r, &snap, &err) != RILL_OK) {
            fail_msg("render: %s", err.msg);
        }
    }
    if (rill_renderer_read_pixels(r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

/* The square of `front` with, 1.5 behind it, an unlit square of 0.4 its size whose base colour
 * is `back` (a JSON array, e.g. "[1,0,0,1]"), in the sky light only, drawn by r into px. Both
 * squares' models are made and destroyed here, so the next picture in the same renderer gets new
 * models whose instance ids repeat these. */
static inline void fq_render_over(rill_renderer *r, const char *front, const char *back,
                                  const char *name, uint8_t *px) {
    char back_mat[256];
    snprintf(back_mat, sizeof(back_mat),
             "{\"pbrMetallicRoughness\":{\"baseColorFactor\":%s},"
             "\"extensions\":{\"KHR_materials_unlit\":{}}}",
             back);
    rill_render_model fm, bm;
    rill_gltf_model *f = fq_load(r, &(fq_opts){.material = front}, name, &fm);
    rill_gltf_model *b = fq_load(r, &(fq_opts){.material = back_mat}, name, &bm);
    rill_render_instance inst[2] = {bm.instances[0], fm.instances[0]};
    glm_mat4_identity((vec4 *)inst[0].transform);
    inst[0].transform[0] = inst[0].transform[5] = inst[0].transform[10] = 0.4f;
    inst[0].transform[14] = -1.5f;
    inst[0].id += 1000;
    fq_render(r, inst, 2, 0.0f, 0.3f, px);
    rill_render_model_destroy(r, &fm);
    rill_render_model_destroy(r, &bm);
    rill_gltf_model_free(f);
    rill_gltf_model_free(b);
}

/* The pixel where the square's point (x, y) shows (the square spans about 68 % of the view). */
static inline const uint8_t *fq_at(const uint8_t *px, float x, float y) {
    float half = 3.5f * tanf(0.4f); /* world half-height seen at the square */
    int col = (int)((0.5f + 0.5f * x / half) * W);
    int row = (int)((0.5f - 0.5f * y / half) * H);
    return &px[((size_t)row * W + (size_t)col) * 4];
}

/* A pixel's luma (Rec. 709 weights, 0..255). */
static inline float fq_luma(const uint8_t *p) {
    return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
}

#endif
