/* water_fixture.h: what the two water tests share (test_water.c: PoolWater; test_ocean.c: Water,
 * the FFT ocean), on lavapipe with validation on: a 48 x 48 renderer, a fixture holding the
 * snapshot with a floor, a pool (box) and a sea (surface), the view and the sky light, rendering
 * frames and reading them back (the folder named by $WATER_PNG_ENV, defined by the test before
 * including this, gets each frame a test reads, to look at) and pixel measures; an active camera
 * in a world (render_test_world_camera) and the log capture are render_test.h's. */
#ifndef RILL_TEST_WATER_FIXTURE_H
#define RILL_TEST_WATER_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "golden.h"
#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/render.h"
#include "rill/render/ocean.h"
#include "rill/render/reflections.h"
#include "rill/render/water.h"
#include "rill/scene.h"

#define W 48
#define H 48

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube;
    rill_material white;
    rill_render_instance floor;
    rill_render_snapshot snap;
    rill_render_water_box box;     /* the pool (snap.water) */
    rill_render_water_surface sea; /* the sea (snap.oceans) */
    uint8_t px[W * H * 4];         /* the last frame read back */
} fixture;

/* The water tests' renderer settings: W x H, the quality q. */
static inline rill_renderer_desc renderer_desc(rill_render_quality q) {
    return (rill_renderer_desc){.width = W, .height = H, .shadow_map_size = 256, .quality = q};
}

static inline rill_renderer *make_renderer(rill_render_quality q) {
    return render_test_renderer(renderer_desc(q));
}

/* A Low tier renderer with a unit cube and a white material. */
static inline int setup(void **state) {
    fixture *f = render_test_fixture(state, sizeof(*f), renderer_desc(RILL_RENDER_QUALITY_LOW));
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    f->white = render_test_material(f->r, (rill_material_desc){.base_color = {1, 1, 1, 1}});
    return 0;
}

/* An empty snapshot seen from eye toward at. */
static inline void look(fixture *f, const float eye[3], const float at[3], float fov_y,
                        float far_plane) {
    memset(&f->snap, 0, sizeof(f->snap));
    mat4 inv;
    render_test_look_at(inv, eye, at);
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = fov_y;
    f->snap.view.far_plane = far_plane;
}

/* A white sun of `illuminance` along (dx, -1, dz) and the ambient colour. */
static inline void sky_light(fixture *f, float illuminance, float dx, float dz,
                             const float ambient[3]) {
    f->snap.has_sun = true;
    f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
    f->snap.sun.illuminance = illuminance;
    f->snap.sun.direction[0] = dx, f->snap.sun.direction[1] = -1.0f, f->snap.sun.direction[2] = dz;
    memcpy(f->snap.ambient, ambient, sizeof(float) * 3);
}

/* frames frames of the snapshot on r, the last read back into f->px (and written as name.png
 * into $WATER_PNG_ENV's folder when both are given). */
static inline void render(fixture *f, rill_renderer *r, int frames, const char *name) {
    rill_error err = {0};
    for (int i = 0; i < frames; i++) {
        assert_int_equal(rill_renderer_render(r, &f->snap, &err), RILL_OK);
    }
    if (rill_renderer_read_pixels(r, f->px, sizeof(f->px), &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    const char *dir = getenv(WATER_PNG_ENV);
    if (dir && name) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.png", dir, name);
        assert_int_equal(rill_renderer_write_png(r, path, &err), RILL_OK);
    }
}

/* Pixels whose colour differs between a and b. */
static inline int differing(const uint8_t *a, const uint8_t *b) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        n += memcmp(&a[i * 4], &b[i * 4], 3) != 0;
    }
    return n;
}

/* Mean R, G, B (0..255) over the 6 x 6 pixels around (x, y). */
static inline void mean_at(const uint8_t *px, int x, int y, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    for (int j = y - 3; j < y + 3; j++) {
        for (int i = x - 3; i < x + 3; i++) {
            const uint8_t *p = px + ((size_t)j * W + (size_t)i) * 4;
            for (int k = 0; k < 3; k++) {
                out[k] += p[k] / 36.0;
            }
        }
    }
}

static inline double sum3(const double c[3]) {
    return c[0] + c[1] + c[2];
}

/* Redness (R minus the mean of G and B) over the rows y0..y1 of the middle third of the frame. */
static inline double redness(const uint8_t *px, int y0, int y1) {
    double s = 0.0;
    int n = 0;
    for (int y = y0; y <= y1; y++) {
        for (int x = W / 3; x < W * 2 / 3; x++) {
            const uint8_t *q = px + ((size_t)y * W + (size_t)x) * 4;
            s += q[0] - 0.5 * (q[1] + q[2]);
            n++;
        }
    }
    return s / n;
}

/* inst: the unit cube of material m stretched from lo to hi. */
static inline void place_box(rill_render_instance *inst, uint32_t id, rill_mesh cube,
                             rill_material m, const float lo[3], const float hi[3]) {
    render_test_place(inst, id, cube, m, (float[3]){0, 0, 0}, 1.0f, 0.0f);
    mat4 t;
    glm_mat4_identity(t);
    glm_translate(t,
                  (vec3){(lo[0] + hi[0]) * 0.5f, (lo[1] + hi[1]) * 0.5f, (lo[2] + hi[2]) * 0.5f});
    glm_scale(t, (vec3){hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    memcpy(inst->transform, t, sizeof(t));
}

#endif /* RILL_TEST_WATER_FIXTURE_H */
