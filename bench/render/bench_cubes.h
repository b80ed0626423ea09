/* bench_cubes.h: the scene bench_aa and bench_effects time: an 8 x 8 grid of lit cubes (four
 * materials, each cube turned a little more than the last) under a shadow-casting sun, seen from
 * above and in front. `orbit` turns the camera about the vertical axis first (radians; bench_aa
 * moves it every frame so TAA reprojects). Header-only. */
#ifndef RILL_BENCH_CUBES_H
#define RILL_BENCH_CUBES_H

#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"

#define BENCH_CUBES 64

static inline void bench_cubes_scene(rill_render_snapshot *s, rill_render_instance *inst,
                                     rill_mesh cube, const rill_material mats[4], float orbit) {
    memset(s, 0, sizeof(*s));
    mat4 view;
    glm_mat4_identity(view);
    glm_rotate_y(view, orbit, view);
    glm_translate(view, (vec3){0, 3.0f, 12.0f});
    glm_rotate_x(view, -0.25f, view);
    memcpy(s->view.world_from_view, view, sizeof(mat4));
    s->view.fov_y = 0.9f;
    s->has_sun = true;
    s->sun.direction[0] = -0.3f, s->sun.direction[1] = -1.0f, s->sun.direction[2] = -0.5f;
    s->sun.color[0] = s->sun.color[1] = s->sun.color[2] = 1.0f;
    s->sun.illuminance = 3.0f;
    s->sun.shadows = true;
    s->ambient[0] = s->ambient[1] = s->ambient[2] = 0.1f;
    for (uint32_t i = 0; i < BENCH_CUBES; i++) {
        mat4 m;
        glm_mat4_identity(m);
        glm_translate(m, (vec3){(float)(i % 8) * 1.6f - 5.6f, 0.5f, (float)(i / 8) * 1.6f - 5.6f});
        glm_rotate_y(m, 0.3f * (float)i, m);
        inst[i].id = i + 1;
        inst[i].mesh = cube;
        inst[i].material = mats[i % 4];
        memcpy(inst[i].transform, m, sizeof(mat4));
    }
    s->instances = inst;
    s->instance_count = BENCH_CUBES;
}

#endif
