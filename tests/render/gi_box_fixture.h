/* gi_box_fixture.h: the closed box of the global illumination tests (test_gi.c, test_gi_voxel.c):
 * x in [-1, 1], y in [0, 2], z in [-1, 1], a white floor, ceiling, back and front walls, a red wall
 * at -x and a green one at +x, a point light under the ceiling, the camera inside looking down
 * at the floor; and how to measure colour bleeding on its floor; the GI settings on the view, the
 * stats (the log capture is render_test.h's). */
#ifndef RILL_TEST_GI_BOX_FIXTURE_H
#define RILL_TEST_GI_BOX_FIXTURE_H

#include "rill/render.h"
#include "rill/render/gi.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "render_test.h"

#define W 96
#define H 96

typedef struct box_scene {
    rill_renderer *r;
    const rill_rg *graph;
    rill_render_instance inst[6];
    rill_render_light light;
    rill_render_snapshot snap;
    mat4 wfv;
} box_scene;

static inline rill_result grab_graph(const rill_render_graph *fg, void *user, rill_error *err) {
    (void)err;
    ((box_scene *)user)->graph = fg->graph;
    return RILL_OK;
}

/* Instance id of mesh/mat: the unit cube stretched to `size` around `pos`. */
static inline void place_box(rill_render_instance *in, uint32_t id, rill_mesh mesh,
                             rill_material mat, vec3 pos, vec3 size) {
    memset(in, 0, sizeof(*in));
    in->id = id;
    in->mesh = mesh;
    in->material = mat;
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, pos);
    glm_scale(m, size);
    memcpy(in->transform, m, sizeof(mat4));
}

static inline rill_material matte(rill_renderer *r, float red, float green, float blue) {
    rill_material_desc d = {.base_color = {red, green, blue, 1.0f}, .roughness = 1.0f};
    return render_test_material(r, d);
}

/* The room x in [-1, 1], y in [0, 2], z in [-1, 1]: white floor, ceiling, back and front walls,
 * a red wall at -x and a green one at +x, a point light under the ceiling; the camera stands
 * inside by the front wall looking down at the floor. */
static inline void box_open_budget(box_scene *b, rill_render_quality q, uint32_t voxel_budget) {
    memset(b, 0, sizeof(*b));
    b->r = render_test_renderer((rill_renderer_desc){.width = W,
                                                     .height = H,
                                                     .shadow_map_size = 256,
                                                     .quality = q,
                                                     .setup_graph = grab_graph,
                                                     .setup_graph_user = b,
                                                     .gi_voxel_budget = voxel_budget});
    assert_non_null(b->r);
    rill_error err = {0};
    rill_mesh cube = rill_render_mesh_cube(b->r, &err);
    assert_true(cube.id != 0);
    rill_material white = matte(b->r, 0.8f, 0.8f, 0.8f);
    rill_material red = matte(b->r, 0.9f, 0.05f, 0.05f);
    rill_material green = matte(b->r, 0.05f, 0.9f, 0.05f);
    place_box(&b->inst[0], 1, cube, white, (vec3){0, -0.05f, 0}, (vec3){2.2f, 0.1f, 2.2f});
    place_box(&b->inst[1], 2, cube, white, (vec3){0, 2.05f, 0}, (vec3){2.2f, 0.1f, 2.2f});
    place_box(&b->inst[2], 3, cube, white, (vec3){0, 1, -1.05f}, (vec3){2.2f, 2.2f, 0.1f});
    place_box(&b->inst[3], 4, cube, white, (vec3){0, 1, 1.05f}, (vec3){2.2f, 2.2f, 0.1f});
    place_box(&b->inst[4], 5, cube, red, (vec3){-1.05f, 1, 0}, (vec3){0.1f, 2.2f, 2.2f});
    place_box(&b->inst[5], 6, cube, green, (vec3){1.05f, 1, 0}, (vec3){0.1f, 2.2f, 2.2f});
    b->light = (rill_render_light){.kind = RILL_LIGHT_POINT,
                                   .position = {0, 1.7f, -0.2f},
                                   .color = {1, 1, 1},
                                   .intensity = 3.0f,
                                   .range = 10.0f};
    render_test_look_at(b->wfv, (float[3]){0, 1.3f, 0.9f}, (float[3]){0, 0.2f, -0.6f});
    memcpy(b->snap.view.world_from_view, b->wfv, sizeof(b->wfv));
    b->snap.view.fov_y = 1.2f;
    b->snap.instances = b->inst;
    b->snap.instance_count = 6;
    b->snap.lights = &b->light;
    b->snap.light_count = 1;
    b->snap.ambient[0] = b->snap.ambient[1] = b->snap.ambient[2] = 0.03f;
}

static inline void box_open(box_scene *b, rill_render_quality q) {
    box_open_budget(b, q, 0);
}

static inline void box_close(box_scene *b) {
    render_test_destroy_clean(b->r, false);
}

/* Renders `frames` frames (uploads land, the accumulation settles) and reads the last. */
static inline void box_render(box_scene *b, uint32_t frames, uint8_t *px) {
    rill_error err = {0};
    for (uint32_t i = 0; i < frames; i++) {
        assert_int_equal(rill_renderer_render(b->r, &b->snap, &err), RILL_OK);
    }
    if (px) {
        assert_int_equal(rill_renderer_read_pixels(b->r, px, W * H * 4, &err), RILL_OK);
    }
}

static inline bool has_pass(const box_scene *b, const char *label) {
    return b->graph && rill_rg_order_of(b->graph, label) >= 0;
}

/* Mean red and green of a 7x7 patch around the pixel where world point p lands. */
static inline void patch_rg(const box_scene *b, const uint8_t *px, vec3 p, double *red,
                            double *green) {
    mat4 view, proj, vp;
    glm_mat4_inv((vec4 *)b->wfv, view);
    glm_perspective(b->snap.view.fov_y, (float)W / (float)H, 0.1f, 1000.0f, proj);
    glm_mat4_mul(proj, view, vp);
    vec4 c;
    glm_mat4_mulv(vp, (vec4){p[0], p[1], p[2], 1.0f}, c);
    int x = (int)((c[0] / c[3] * 0.5f + 0.5f) * W), y = (int)((0.5f - c[1] / c[3] * 0.5f) * H);
    assert_true(x >= 3 && x < W - 3 && y >= 3 && y < H - 3);
    *red = *green = 0.0;
    for (int dy = -3; dy <= 3; dy++) {
        for (int dx = -3; dx <= 3; dx++) {
            const uint8_t *q = px + ((size_t)(y + dy) * W + (size_t)(x + dx)) * 4;
            *red += q[0];
            *green += q[1];
        }
    }
}

/* How much redder the floor by the red wall is than the floor by the green wall: the red / green
 * ratio of the first patch over that of the second. */
static inline double bleed(const box_scene *b, const uint8_t *px) {
    double lr, lg, rr, rg;
    patch_rg(b, px, (vec3){-0.8f, 0.0f, -0.3f}, &lr, &lg);
    patch_rg(b, px, (vec3){0.8f, 0.0f, -0.3f}, &rr, &rg);
    print_message("floor by the red wall r/g %.3f (%.0f %.0f), by the green wall r/g %.3f (%.0f "
                  "%.0f)\n",
                  lr / lg, lr / 49, lg / 49, rr / rg, rr / 49, rg / 49);
    return (lr / lg) / (rr / rg);
}

static inline rill_render_routed_settings gi_route(rill_render_global_illumination *g) {
    return (rill_render_routed_settings){"GlobalIllumination", g, sizeof(*g), 0};
}

/* The view's settings: GlobalIllumination g (which must outlive the frames rendered with it). */
static rill_render_routed_settings box_settings;
static inline void use_gi(box_scene *b, rill_render_global_illumination *g) {
    box_settings = gi_route(g);
    b->snap.view.settings = &box_settings;
    b->snap.view.settings_count = 1;
}

/* The box at the High tier with GlobalIllumination quality q (the defaults otherwise) in *g. */
static inline void box_open_gi(box_scene *b, rill_render_global_illumination *g,
                               rill_gi_quality q) {
    box_open(b, RILL_RENDER_QUALITY_HIGH);
    *g = rill_render_global_illumination_query_defaults();
    g->quality = q;
    use_gi(b, g);
}

static inline rill_render_stats box_stats(const box_scene *b) {
    rill_render_stats st;
    rill_renderer_stats(b->r, &st);
    return st;
}

#endif
