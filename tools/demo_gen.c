/* demo_gen.c: the placement pieces both world generators of `rill demo` build with (demo_gen.h):
 * the seeded random numbers, turning an entity by yaw and pitch, a camera component, the sun and
 * the harbour's sea with its camera. The city (cmd_demo.c) and the region (demo_region.c) call
 * these with their own places, so a change to the sun or the sea is made once. */
#include "demo_gen.h"

#include <math.h>

#include "rill/render/ocean.h"

/* splitmix64: tiny, fast and the same on every platform, so the demo is identical everywhere. */
uint64_t demo_gen_rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float demo_gen_rng_float(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)((demo_gen_rng_next(s) >> 40) * (1.0 / 16777216.0));
}

void demo_gen_aim(demo_gen *g, rill_entity e, float yaw, float pitch) {
    rill_transform *t = rill_world_transform_mut(g->w, e);
    if (!t) {
        return;
    }
    float cy = cosf(yaw * 0.5f), sy = sinf(yaw * 0.5f), cp = cosf(pitch * 0.5f),
          sp = sinf(pitch * 0.5f);
    t->rotation[0] = cy * sp, t->rotation[1] = sy * cp, t->rotation[2] = -sy * sp;
    t->rotation[3] = cy * cp;
}

void demo_gen_camera(demo_gen *g, rill_entity e, bool is_main, float far_plane) {
    const rill_builtins *bc = rill_world_builtin(g->w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(g->w, bc->camera), &c);
    if (is_main) {
        c.is_default = true;
        c.clear_color[0] = 0.42f, c.clear_color[1] = 0.58f, c.clear_color[2] = 0.80f; /* sky */
    } else {
        c.active = false;
    }
    if (far_plane > 0.0f) {
        c.far_plane = far_plane;
    }
    rill_world_add(g->w, e, bc->camera, &c);
}

void demo_gen_sun(demo_gen *g) {
    rill_entity sun = demo_gen_put(g, 0, "Sun", 0.0f, 500.0f, 0.0f, 0.0f);
    demo_gen_aim(g, sun, 0.67f, -0.96f); /* late afternoon: from the south-east, 55 degrees up */
    rill_directional_light dl = {
        .color = {1.0f, 0.96f, 0.9f, 1.0f}, .illuminance = 3.0f, .shadows = true, .sun = true};
    rill_world_add(g->w, sun, g->ids.directional_light, &dl);
}

uint32_t demo_gen_harbour(demo_gen *g, const float rect[4], float level, const float cam[3],
                          float cam_yaw) {
    rill_component wc = rill_world_find_component(g->w, "Water");
    if (!wc.id) {
        return 0;
    }
    rill_entity e = demo_gen_put(g, 0, "Harbour", 0.5f * (rect[0] + rect[1]), level,
                                 0.5f * (rect[2] + rect[3]), 0.0f);
    rill_render_water w;
    rill_type_apply_defaults(rill_world_component_type(g->w, wc), &w);
    w.wind_speed = 6.0f;
    w.amplitude = 0.5f;
    w.extent[0] = rect[1] - rect[0];
    w.extent[1] = rect[3] - rect[2];
    w.clarity = 2.0f;
    rill_world_add(g->w, e, wc, &w);
    rill_entity c = demo_gen_put(g, 0, "Harbour camera", cam[0], cam[1], cam[2], 0.0f);
    demo_gen_aim(g, c, cam_yaw, -0.07f); /* 4 degrees down */
    demo_gen_camera(g, c, false, 3000.0f);
    return 2;
}
