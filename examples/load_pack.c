/* load_pack.c: play a project from its pack alone, headless.
 *   rill export my_project --out game.rpak      (or: rill pack create my_project --out game.rpak)
 *   load_pack game.rpak shot.png
 * The pack is mounted in the app's virtual file system (rill/asset.h) before any loose folder; its
 * project.toml names the main scene and the window size, which becomes the picture's size. */
#include <stdio.h>

#include "rill/app.h"
#include "rill/render.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: load_pack GAME.rpak OUT.png\n");
        return 2;
    }
    rill_error err = {0};
    rill_content *c = rill_content_open(&(rill_content_desc){.pack = argv[1]}, &err);
    if (!c) {
        fprintf(stderr, "load_pack: %s\n", err.msg);
        return 1;
    }
    const rill_project *p = rill_content_project(c);
    printf("project '%s' from %s (%u pack), main scene %s\n", p->name, argv[1],
           rill_content_pack_count(c), rill_content_scene(c));
    rill_renderer_desc rd = {0};
    rill_content_renderer_desc(c, &rd); /* [window] size, [rendering] quality and scale */
    rill_renderer *r = NULL;
    int ok =
        (r = rill_renderer_create(&rd, &err)) != NULL && rill_content_load(c, r, &err) == RILL_OK;
    for (int frame = 0; ok && frame < 2; frame++) {
        rill_render_snapshot snap;
        rill_app_frame(rill_content_app(c));
        ok = rill_content_snapshot(c, &snap, &err) == RILL_OK &&
             rill_renderer_render(r, &snap, &err) == RILL_OK;
    }
    ok = ok && rill_renderer_write_png(r, argv[2], &err) == RILL_OK;
    if (ok) {
        rill_vfs_stats vs;
        rill_vfs_get_stats(rill_app_vfs(rill_content_app(c)), &vs);
        printf("wrote %s (%ux%u); %llu files read from the pack\n", argv[2], rd.width, rd.height,
               (unsigned long long)vs.read_calls);
    } else {
        fprintf(stderr, "load_pack: %s\n", err.msg);
    }
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return ok ? 0 : 1;
}
