/* own_component.c: a component of your own, from registration to a scene that uses it to a
 * system that moves it (docs/own-components.md walks through this file).
 *   own_component SCENE [FRAMES] [OUT.png]
 * Registers `Spinner { speed, axis }` in the world before the scene loads (the content's on_world
 * hook, so the scene reader knows the name and checks the values), loads SCENE (e.g.
 * examples/data/project/scenes/spinner.rsn), runs FRAMES frames (default 30) of a deterministic
 * app with a system that turns every entity holding a Spinner, prints each one's angle, and with
 * OUT.png renders the last frame headless. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "rill/app.h"
#include "rill/render.h"

/* 1. The component: a plain C struct. */
typedef struct spinner {
    float speed;   /* degrees per second */
    float axis[3]; /* turned about, in the entity's parent space */
} spinner;

static rill_component SPINNER;

/* 2. Its reflection: what the scene format, `--effect`-style text and tools can read and write. */
static void register_spinner(rill_world *w, void *user) {
    (void)user;
    static const float default_speed = 45.0f;
    static const float default_axis[3] = {0, 1, 0};
    const rill_field fields[] = {
        RILL_FIELD_WITH(spinner, speed, F32, RILL_FIELD_RANGE(-3600.0, 3600.0),
                        .default_value = &default_speed, .doc = "degrees per second"),
        RILL_FIELD_WITH(spinner, axis, VEC3, .default_value = default_axis,
                        .doc = "the axis it turns about"),
    };
    SPINNER = rill_world_register_component(
        w, &(rill_type_desc){.name = "Spinner",
                             RILL_TYPE_LAYOUT(spinner),
                             RILL_FIELDS(fields),
                             .doc = "turns its entity about an axis (examples/own_component.c)"});
}

/* 3. The system: every frame (update stage), each Spinner entity's rotation is set to
 * speed * game time about its axis. */
static void spin(rill_app *app, void *user) {
    (void)user;
    rill_world *w = rill_app_world(app);
    double t = rill_app_get_time(app)->elapsed;
    rill_query q = rill_world_query(w, &(rill_query_desc){.with = {SPINNER}});
    while (rill_query_next(&q)) {
        const spinner *s = rill_query_get(&q, 0);
        rill_transform *tr = rill_world_transform_mut(w, q.entity);
        float len =
            sqrtf(s->axis[0] * s->axis[0] + s->axis[1] * s->axis[1] + s->axis[2] * s->axis[2]);
        if (!tr || len == 0.0f) {
            continue;
        }
        float half = (float)(s->speed * t * 3.14159265358979 / 360.0); /* half the angle, rad */
        for (int i = 0; i < 3; i++) {
            tr->rotation[i] = s->axis[i] / len * sinf(half);
        }
        tr->rotation[3] = cosf(half);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        return fprintf(stderr, "usage: own_component SCENE [FRAMES] [OUT.png]\n"), 2;
    }
    long frames = argc > 2 ? strtol(argv[2], NULL, 10) : 30;
    rill_error err = {0};
    /* 4. The scene: opened with the hook that registers Spinner before it is read. */
    rill_content *c = rill_content_open(
        &(rill_content_desc){.input = argv[1], .deterministic = true, .on_world = register_spinner},
        &err);
    rill_renderer_desc rd = {0};
    rill_renderer *r = NULL;
    if (c) {
        rill_content_renderer_desc(c, &rd);
        rd.width = 160, rd.height = 120;
    }
    int ok = c && (r = rill_renderer_create(&rd, &err)) && rill_content_load(c, r, &err) == RILL_OK;
    if (ok) {
        rill_app *app = rill_content_app(c);
        rill_app_add_system(
            app, &(rill_system_desc){.name = "spin", .stage = RILL_STAGE_UPDATE, .fn = spin});
        for (long f = 0; f < frames; f++) {
            rill_app_frame(app);
        }
        rill_world *w = rill_app_world(app);
        rill_query q = rill_world_query(w, &(rill_query_desc){.with = {SPINNER}});
        while (rill_query_next(&q)) {
            const rill_transform *tr = rill_world_get(w, q.entity, RILL_COMPONENT_TRANSFORM);
            const char *name = rill_world_get_name(w, q.entity);
            printf("own_component: %s turned %.1f degrees in %ld frames (%.3f s)\n",
                   name ? name : "?",
                   2.0 * acos(fmin(1.0, fabs(tr->rotation[3]))) * 57.29577951308232, frames,
                   rill_app_get_time(app)->elapsed);
        }
        if (argc > 3) {
            rill_render_snapshot snap;
            ok = rill_content_snapshot(c, &snap, &err) == RILL_OK &&
                 rill_renderer_render(r, &snap, &err) == RILL_OK &&
                 rill_renderer_write_png(r, argv[3], &err) == RILL_OK;
            if (ok) {
                printf("own_component: wrote %s\n", argv[3]);
            }
        }
    }
    if (!ok) {
        fprintf(stderr, "own_component: %s\n", err.msg);
    }
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return ok ? 0 : 1;
}
