/* render_model.c: render one glTF model (or a scene, or a project folder) to a PNG, headless.
 *   render_model model.glb out.png
 * The scene is set up as `rill render` does it (rill_content): a model with no light or camera
 * gets a default sun and a camera that frames it. */
#include <stdio.h>

#include "rill/app.h"
#include "rill/render.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        return fprintf(stderr, "usage: render_model MODEL_OR_SCENE OUT.png\n"), 2;
    }
    rill_error err = {0};
    rill_content *content = rill_content_open(&(rill_content_desc){.input = argv[1]}, &err);
    rill_renderer *r = NULL;
    rill_renderer_desc rd = {.width = 256, .height = 256};
    int ok = content && (r = rill_renderer_create(&rd, &err)) != NULL &&
             rill_content_load(content, r, &err) == RILL_OK;
    rill_render_snapshot snap;
    for (int frame = 0; ok && frame < 2; frame++) { /* the first frame uploads the model */
        rill_app_frame(rill_content_app(content));
        ok = rill_content_snapshot(content, &snap, &err) == RILL_OK &&
             rill_renderer_render(r, &snap, &err) == RILL_OK;
    }
    ok = ok && rill_renderer_write_png(r, argv[2], &err) == RILL_OK;
    printf(ok ? "wrote %s\n" : "render_model: %s\n", ok ? argv[2] : err.msg);
    rill_content_release(content);
    rill_renderer_destroy(r);
    rill_content_destroy(content);
    return ok ? 0 : 1;
}
