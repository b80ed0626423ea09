/* game_loop.c: a windowed game loop. The app's frame loop runs your systems in their stages; a
 * render hook draws the world each frame.
 *   game_loop PROJECT_OR_SCENE [FRAMES]     (Esc or closing the window quits)
 * Without a display (no DISPLAY or WAYLAND_DISPLAY) it says so and exits 0, so it is safe to run
 * headless. The "update" system below spins the entity named "Cube" a little every frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rill/app.h"
#include "rill/render.h"

typedef struct game {
    rill_content *content;
    rill_window *window;
    rill_renderer *renderer;
    rill_entity cube;
    int failed;
} game;

/* update stage: gameplay. Turns the cube about +Y at half a turn per second of game time. */
static void spin(rill_app *app, void *user) {
    game *g = user;
    rill_transform *t = rill_world_transform_mut(rill_app_world(app), g->cube);
    if (!t) {
        return;
    }
    float a = (float)(rill_app_get_time(app)->elapsed * 3.14159265);
    t->rotation[0] = 0, t->rotation[1] = sinf(a * 0.5f), t->rotation[2] = 0;
    t->rotation[3] = cosf(a * 0.5f);
}

/* render hook: last in the render stage. */
static void draw(rill_app *app, void *user) {
    game *g = user;
    rill_render_snapshot snap;
    rill_error err = {0};
    if (rill_content_snapshot(g->content, &snap, &err) != RILL_OK ||
        rill_renderer_render(g->renderer, &snap, &err) != RILL_OK) {
        fprintf(stderr, "game_loop: %s\n", err.msg);
        g->failed = 1;
        rill_app_request_exit(app);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        return fprintf(stderr, "usage: game_loop PROJECT_OR_SCENE [FRAMES]\n"), 2;
    }
    if (!rill_window_display_available()) {
        return printf("game_loop: no display (DISPLAY/WAYLAND_DISPLAY unset): skipped\n"), 0;
    }
    long frames = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    game g = {0};
    rill_error err = {0};
    g.content = rill_content_open(&(rill_content_desc){.input = argv[1]}, &err);
    const rill_project *p = g.content ? rill_content_project(g.content) : NULL;
    rill_renderer_desc rd = {0};
    rill_content_renderer_desc(g.content, &rd);
    int ok =
        g.content && (g.window = rill_window_create(&(rill_window_desc){.title = p->window.title,
                                                                        .width = p->window.width,
                                                                        .height = p->window.height},
                                                    &err)) != NULL;
    if (ok) {
        rd.width = rd.height = 0; /* the window's surface decides */
        rd.glfw_window = rill_window_glfw(g.window);
        ok = (g.renderer = rill_renderer_create(&rd, &err)) != NULL &&
             rill_content_load(g.content, g.renderer, &err) == RILL_OK;
    }
    if (ok) {
        rill_app *app = rill_content_app(g.content);
        g.cube = rill_world_find_by_name(rill_app_world(app), "Cube");
        rill_app_add_system(
            app, &(rill_system_desc){
                     .name = "spin", .stage = RILL_STAGE_UPDATE, .fn = spin, .user = &g});
        rill_app_set_render_hook(app, draw, &g);
        for (long f = 0; !rill_app_exit_requested(app) && (!frames || f < frames); f++) {
            rill_window_poll(g.window);
            if (rill_window_should_close(g.window) ||
                rill_window_input(g.window)->key_pressed[RILL_KEY_ESCAPE]) {
                break;
            }
            rill_app_frame(app);
        }
        rill_app_set_render_hook(app, NULL, NULL);
        printf("game_loop: %llu frames\n", (unsigned long long)rill_app_get_time(app)->frame);
    } else {
        fprintf(stderr, "game_loop: %s\n", err.msg);
    }
    rill_content_release(g.content);
    rill_renderer_destroy(g.renderer);
    rill_window_destroy(g.window);
    rill_content_destroy(g.content);
    return ok && !g.failed ? 0 : 1;
}
