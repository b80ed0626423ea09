/* gpu_fixture.h: the scene fixture of test_render_gpu.c, test_camera_components.c and
 * test_render_lifecycle.c: a 192x192 High-quality renderer with a cube, a sphere and a plane, and
 * the helpers that place instances, a look-at camera and the sun, read the frame back and compare
 * it with a golden.
 * Header-only (static inline); include after cmocka.h. */
#ifndef RILL_TEST_GPU_FIXTURE_H
#define RILL_TEST_GPU_FIXTURE_H

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "golden.h"
#include "render_test.h"
#include "rill/render.h"

#define W 192
#define H 192

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube, sphere, plane;
    rill_render_instance inst[64];
    uint32_t n;
    rill_render_light lights[8];
    uint32_t nl;
    rill_render_snapshot snap;
} fixture;

static inline int setup(void **state) {
    /* everything on (High); the shadow size given */
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 512, .quality = RILL_RENDER_QUALITY_HIGH};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1; /* cmocka reports a failed setup as a failure */
    }
    f->cube = render_test_cube(f->r);
    f->sphere = render_test_sphere(f->r, 48);
    f->plane = render_test_plane(f->r);
    return 0;
}

/* Everything the renderer allocated is back. */
static inline int teardown(void **state) {
    return render_test_teardown_all_freed(state);
}

static inline void trs(float out[16], float x, float y, float z, float sx, float sy, float sz,
                       float rot_y) {
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){x, y, z});
    glm_rotate_y(m, rot_y, m);
    glm_scale(m, (vec3){sx, sy, sz});
    memcpy(out, m, sizeof(mat4));
}

static inline void add(fixture *f, rill_mesh mesh, rill_material mat, float x, float y, float z,
                       float s) {
    render_test_place(&f->inst[f->n], f->n + 1, mesh, mat, (float[3]){x, y, z}, s, 0.0f);
    f->n++;
}

static inline void camera(fixture *f, float ex, float ey, float ez, float tx, float ty, float tz) {
    mat4 inv;
    render_test_look_at(inv, (float[3]){ex, ey, ez}, (float[3]){tx, ty, tz});
    memset(&f->snap, 0, sizeof(f->snap));
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.9f;
    f->snap.view.clear_color[0] = 0.05f;
    f->snap.view.clear_color[1] = 0.07f;
    f->snap.view.clear_color[2] = 0.12f;
    f->n = 0;
    f->nl = 0;
}

static inline void sun(fixture *f, float dx, float dy, float dz, float illum, bool shadows) {
    f->snap.has_sun = true;
    float l = sqrtf(dx * dx + dy * dy + dz * dz);
    f->snap.sun.direction[0] = dx / l;
    f->snap.sun.direction[1] = dy / l;
    f->snap.sun.direction[2] = dz / l;
    f->snap.sun.color[0] = 1.0f;
    f->snap.sun.color[1] = 0.96f;
    f->snap.sun.color[2] = 0.9f;
    f->snap.sun.illuminance = illum;
    f->snap.sun.shadows = shadows;
}

static inline rill_material mat(fixture *f, float r, float g, float b, float a, float metal,
                                float rough, rill_alpha_mode mode) {
    return render_test_material(f->r, (rill_material_desc){.base_color = {r, g, b, a},
                                                           .metallic = metal,
                                                           .roughness = rough,
                                                           .roughness_set = true,
                                                           .alpha_mode = mode});
}

/* Reads the last frame into px (W x H RGBA8) and checks that it raised no validation message. */
static inline void read_frame(fixture *f, uint8_t *px) {
    rill_error err = {0};
    if (rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.validation_messages, 0);
}

static inline void render_and_check(fixture *f, const char *golden) {
    f->snap.instances = f->inst;
    f->snap.instance_count = f->n;
    f->snap.lights = f->lights;
    f->snap.light_count = f->nl;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    static uint8_t px[W * H * 4];
    read_frame(f, px);
    golden_expect(golden, px, W, H);
}

static inline void ground(fixture *f) {
    add(f, f->plane, mat(f, 0.6f, 0.6f, 0.6f, 1, 0, 0.8f, RILL_ALPHA_OPAQUE), 0, 0, 0, 20.0f);
}

#endif
